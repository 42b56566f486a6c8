"""Run :func:`specbrowser.session.rechunk.rechunk` in a child process, relaying its progress.

Re-chunking is pure Python for seconds on a large spec. In a thread it would hold the GIL, and
an event loop sharing the process (the app) would wait up to a switch interval every time it
gives the GIL up for a system call, so keys would be handled late while a re-chunk runs. In a
child process the parent's thread only waits on a pipe.

The child opens its own connection and writes the chunk set in one transaction, as
:func:`~specbrowser.session.rechunk.rechunk` does; a stop request is checked at each progress
report, and a stopped child rolls back before it exits, so a cancelled run leaves the database
as it was.

The child is forked from multiprocessing's fork server where the platform has one (Linux,
macOS): a clean single-threaded process started once, by :func:`prepare`, with specbrowser's
re-chunk modules already imported (forking the app itself, which runs threads, is unsafe;
spawning a fresh interpreter per re-chunk is slower).
Elsewhere (Windows) the child is spawned. A forked child still imports the parent's
``__main__`` module again (multiprocessing's rule); the console script's main module imports
only :mod:`specbrowser.__main__` and :mod:`specbrowser.process` (the command line is imported
inside a function), so a child does not import the whole command line again.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import sys
from collections.abc import Callable
from multiprocessing.connection import Connection
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

from specbrowser.chunking.policy import ChunkPolicy
from specbrowser.errors import error_report, raise_reported
from specbrowser.progress import CancelToken, JobCancelled, Progress, checked

POLL_S = 0.05
"""How often (seconds) the parent checks for a stop request while the child is silent."""

STOP_GRACE_S = 10.0
"""How long a stopped child may take to roll back before it is terminated."""


PRELOAD = ["specbrowser.session.rechunk", "specbrowser.store"]
"""What the fork server imports once, so that each child starts with it."""

if TYPE_CHECKING:  # ForkServerContext exists only where the platform has a fork server
    from multiprocessing.context import ForkServerContext, SpawnContext

    from specbrowser.session.rechunk import RechunkResult

    _Context: TypeAlias = ForkServerContext | SpawnContext
    """The contexts a child is started from (:func:`_context`); both have ``Process``."""


def _context() -> _Context:
    """The fork server's context where the platform has one, else ``spawn``."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(PRELOAD)
        return context
    return multiprocessing.get_context("spawn")


def prepare() -> None:
    """Start multiprocessing's resource tracker and the fork server (it imports
    :data:`PRELOAD` in its own process) ahead of the first re-chunk. They are handed the
    process's real standard error (``sys.__stderr__``) even where an app has replaced
    ``sys.stderr`` (Textual does, with an object whose ``fileno`` is -1: passed on, it failed
    the first re-chunk). Harmless to call twice; if it fails here it is tried again, and
    reported, at the first re-chunk."""
    # deferred: multiprocessing's fork server and tracker, only for the app's re-chunks
    from multiprocessing import forkserver, resource_tracker

    try:
        with contextlib.redirect_stderr(sys.__stderr__ or sys.stderr):
            resource_tracker.ensure_running()
            if _context().get_start_method() == "forkserver":
                forkserver.ensure_running()
    except (OSError, ValueError):
        pass


def rechunk_in_subprocess(
    db_path: Path,
    policy: ChunkPolicy,
    *,
    progress: Progress | None = None,
    cancelled: Callable[[], bool] = lambda: False,
) -> RechunkResult:
    """Re-chunk the database at ``db_path`` under ``policy`` in a child process.

    ``progress(stage, done, total)`` is called in this process for each report of the child;
    ``cancelled()`` is polled every :data:`POLL_S` seconds, and when it turns true the child is
    asked to stop.

    Raises:
        JobCancelled: ``cancelled()`` turned true before the child finished; the database is
            unchanged.
        SpecbrowserError: what :func:`~specbrowser.session.rechunk.rechunk` raised in the child (the
            same class, e.g. ``NotFoundError``, ``DatabaseError``).
        RuntimeError: the child failed unexpectedly or died (the message names the error).
    """
    try:
        child, receiver, stop = _start(_context(), db_path, policy)
    except OSError:  # no fork server here (its socket could not be made, say): spawn instead
        child, receiver, stop = _start(multiprocessing.get_context("spawn"), db_path, policy)
    try:
        while True:
            if cancelled():
                stop.set()
            if not receiver.poll(POLL_S):
                if not child.is_alive() and not receiver.poll(0):
                    raise RuntimeError(
                        f"the re-chunk process ended without a result (exit code {child.exitcode})"
                    )
                continue
            try:
                kind, payload = receiver.recv()
            except EOFError:
                raise RuntimeError(
                    f"the re-chunk process ended without a result (exit code {child.exitcode})"
                ) from None
            if kind == "progress":
                if progress is not None and not stop.is_set():
                    progress(*payload)
            elif kind == "done":
                return payload
            elif kind == "cancelled":
                raise JobCancelled
            else:
                raise_reported(kind, payload, "the re-chunk process")
    finally:
        stop.set()
        child.join(STOP_GRACE_S)
        if child.is_alive():
            child.terminate()
            child.join()
        receiver.close()


def _start(context: _Context, db_path: Path, policy: ChunkPolicy) -> tuple[Any, Connection, Any]:
    """Start the child in ``context``: the process, the end of its pipe to read, the stop
    event."""
    receiver, sender = context.Pipe(duplex=False)
    stop = context.Event()
    child = context.Process(
        target=_child,
        args=(str(db_path), policy.settings(), sender, stop),
        name="specbrowser-rechunk",
        daemon=True,
    )
    try:
        child.start()
    except BaseException:
        receiver.close()
        raise
    finally:
        sender.close()  # the child holds its end; EOF here means it is gone
    return child, receiver, stop


def _child(db_path: str, settings: dict[str, Any], sender: Connection, stop: Any) -> None:
    """The child's whole life: re-chunk, then send one final message."""
    # deferred: the re-chunk's modules (21 ms) load in the child (the fork server preloads them)
    from specbrowser.session.rechunk import rechunk
    from specbrowser.session.stores import open_store

    def send(stage: str, done: int, total: int) -> None:
        sender.send(("progress", (stage, done, total)))

    progress = checked(send, CancelToken(stop))  # stops at the next report once asked to
    try:
        db = open_store(db_path)
        try:
            result = rechunk(db, ChunkPolicy.from_settings(settings), progress=progress)
        finally:
            db.close()
        sender.send(("done", result))
    except JobCancelled:
        sender.send(("cancelled", None))
    except BaseException as error:
        sender.send(error_report(error))
    finally:
        sender.close()
