"""The one progress-and-cancel protocol of every long operation.

A long operation (ingest, re-chunk, token counting, embedding, export) takes a
:class:`Progress` callback and reports ``(stage, done, total)`` to it. Whoever runs the
operation stops it through a :class:`CancelToken`: :func:`checked` wraps the callback so that it
raises :class:`JobCancelled` at the next report once the token is set, and every pipeline is
written to stop there safely (see :mod:`specbrowser.session.jobs`).
"""

from __future__ import annotations

import threading
from typing import Protocol


class Progress(Protocol):
    """``progress(stage, done, total)``: ``done`` of ``total`` units (sections, texts, records)
    of the named ``stage``; ``total`` 0 for a stage that is not counted (loading, storing).
    Raising in it stops the job (see the module docstring)."""

    def __call__(self, stage: str, done: int, total: int, /) -> None: ...


class JobCancelled(Exception):
    """A job stopped because its :class:`CancelToken` was set; what it wrote is as the job's
    docstring says (nothing, for ingest and re-chunk)."""


class Flag(Protocol):
    """What holds a cancel request: :class:`threading.Event` has this shape, and so do a
    multiprocessing event and a front end's adapter over its own worker state."""

    def set(self) -> None: ...

    def is_set(self) -> bool: ...


class CancelToken:
    """A cancel request shared between whoever runs a job and the job itself.

    Args:
        event: what holds the request (a :class:`Flag`); a new :class:`threading.Event` by
            default.
    """

    def __init__(self, event: Flag | None = None) -> None:
        self._event: Flag = event if event is not None else threading.Event()

    def cancel(self) -> None:
        """Ask the job to stop at its next progress report."""
        self._event.set()

    @property
    def cancelled(self) -> bool:
        """Whether a stop was asked for."""
        return self._event.is_set()

    def check(self) -> None:
        """Raise :class:`JobCancelled` if a stop was asked for."""
        if self._event.is_set():
            raise JobCancelled


def checked(progress: Progress | None, cancel: CancelToken | None) -> Progress:
    """The progress callback a job passes down its pipeline: it raises :class:`JobCancelled`
    once ``cancel`` is set, else forwards to ``progress`` (if any)."""

    def report(stage: str, done: int, total: int) -> None:
        if cancel is not None:
            cancel.check()
        if progress is not None:
            progress(stage, done, total)

    return report
