"""What one specbrowser process shares from its start to its exit: the exit statuses, what a
command says when Ctrl-C stops it, the write transactions it committed (so that message tells
the truth), the cyclic garbage collector held off and the thread switch interval shortened
during start-up, and a quick exit that skips freeing large results.

The lightest module of the package (the standard library only): the console script's entry
point (:mod:`specbrowser.__main__`) imports it before anything else.
"""

from __future__ import annotations

import atexit
import contextlib
import gc
import os
import signal
import sys
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import NamedTuple

EXIT_USER_ERROR = 2
"""A user mistake: one red line on stderr."""

EXIT_INTERRUPTED = 130
"""128 + SIGINT, as a shell reports Ctrl-C; every command's status after Ctrl-C."""

INTERRUPTED = "interrupted; nothing was changed"
"""What a command prints after Ctrl-C when it committed nothing (:func:`interrupted_message`)."""


class Commit(NamedTuple):
    """One committed write transaction: the database file and what it wrote (a phrase)."""

    path: Path
    what: str


COMMITS: list[Commit] = []
"""Every write transaction this process committed, oldest first: the store appends
(:meth:`specbrowser.store.SpecStore.transaction`), nothing removes."""


def interrupted_message(commits: Sequence[Commit]) -> str:
    """The line a command prints when Ctrl-C stopped it after ``commits`` (those committed since
    the command started): :data:`INTERRUPTED` when there are none, else what each wrote where
    (``interrupted after the commit: chunk set 1a2b… (active) written to e.db``)."""
    if not commits:
        return INTERRUPTED
    written = "; ".join(f"{c.what} written to {c.path}" for c in commits)
    return f"interrupted after the commit: {written}"


@contextlib.contextmanager
def sigint_held() -> Iterator[None]:
    """Hold Ctrl-C back for the ``with`` block: a SIGINT that arrives meanwhile raises
    :class:`KeyboardInterrupt` as the block ends (after its last statement), not inside it.

    Outside the main thread, or where SIGINT has a handler other than Python's default, the
    block runs as it is (only the main thread's handler sees signals)."""
    if (
        threading.current_thread() is not threading.main_thread()
        or signal.getsignal(signal.SIGINT) is not signal.default_int_handler
    ):
        yield
        return
    received: list[int] = []
    signal.signal(signal.SIGINT, lambda signum, _frame: received.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if received:
        raise KeyboardInterrupt


_kept: list[object] = []
_leaving = False


def keep_until_exit(value: object) -> None:
    """Let ``value`` live until the process ends, when it ends by :func:`leave` (the console
    script, ``python -m specbrowser``): a large result freed object by object costs time for
    nothing just before the exit (an ingest's lxml tree, sections and chunks). Called in
    process otherwise (tests, a program using the command line), a no-op: the value is freed as
    usual."""
    if _leaving:
        _kept.append(value)


_collector_paused = False


def pause_collector() -> None:
    """Turn Python's cyclic garbage collector off until :func:`resume_collector`, for a
    start-up: the imports of the command line and of the app, and the app's first screen,
    allocate a few hundred thousand objects that live until the exit (modules, classes,
    functions, Textual's styles), and each collection their allocation triggers walks them all
    again and frees next to nothing. A no-op when the collector is off already."""
    global _collector_paused
    if gc.isenabled():
        gc.disable()
        _collector_paused = True


def resume_collector() -> None:
    """End :func:`pause_collector`'s pause: the objects alive now are moved out of the
    collector's sight for good (``gc.freeze``: the start-up's, which live until the exit; later
    collections walk only what is allocated after them), and the collector is on again. A no-op
    without a pause, so a process that never paused (tests, a program using the package) keeps
    its collector as it was."""
    global _collector_paused
    if _collector_paused:
        _collector_paused = False
        gc.freeze()
        gc.enable()


FIRST_FRAME_SWITCH_INTERVAL_S = 0.0005
"""The interpreter's thread switch interval (seconds) until the app's first frame is on the
terminal (:func:`hand_over_quickly`)."""

_switch_interval: float | None = None


def hand_over_quickly() -> None:
    """Shorten the interpreter's thread switch interval (``sys.setswitchinterval``, 5 ms by
    default) to :data:`FIRST_FRAME_SWITCH_INTERVAL_S` until :func:`hand_over_normally`. Textual
    writes a frame from a thread of its own, which needs the GIL to encode it: after the first
    frame the main thread goes on laying out, and that thread waited a whole interval, then
    another, before the frame reached the terminal (10 ms of ECMA-262's first frame; 1 ms
    with this). A no-op when shortened already."""
    global _switch_interval
    if _switch_interval is None:
        _switch_interval = sys.getswitchinterval()
        sys.setswitchinterval(FIRST_FRAME_SWITCH_INTERVAL_S)


def hand_over_normally() -> None:
    """Put back the switch interval :func:`hand_over_quickly` shortened (a no-op otherwise)."""
    global _switch_interval
    if _switch_interval is not None:
        sys.setswitchinterval(_switch_interval)
        _switch_interval = None


def hold_for_first_frame() -> None:
    """The app's start-up, from ``open`` to its first frame: the collector paused
    (:func:`pause_collector`) and the switch interval shortened (:func:`hand_over_quickly`)."""
    pause_collector()
    hand_over_quickly()


def release_after_first_frame() -> None:
    """End :func:`hold_for_first_frame` (each half a no-op when already ended)."""
    resume_collector()
    hand_over_normally()


def exit_quickly_from_now() -> None:
    """Make :func:`keep_until_exit` keep values: the process will end by :func:`leave`."""
    global _leaving
    _leaving = True


def leave(status: int) -> None:
    """End the process with ``status`` the way the interpreter would, less its teardown: the
    atexit handlers run (logging, multiprocessing's children) and stdout and stderr are
    flushed, then ``os._exit``. What is skipped is freeing every object one by one. Every
    command closes its database and files before it returns (``with`` blocks), so nothing is
    left unwritten. Never returns."""
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed pipe: nothing more to say
            stream.flush()
    os._exit(status)
