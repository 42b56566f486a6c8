"""Spread independent CPU-bound work (breaking sections down) over the machine's cores.

Breaking a section down is pure Python over its own lxml tree, so threads would share one GIL;
processes do not. :func:`split_map` computes items in this process and in forked children,
which inherit everything the items need (sections, cached conversions, an ingest's parsed tree)
without pickling it. All take item indexes from one pipe, heaviest item first, until it is
empty; only each child's results come back, pickled, over its own pipe. Forking and collecting
take time of their own, so small jobs run in this process alone (:data:`MIN_WEIGHT`).

``os.fork`` and not :mod:`multiprocessing`: the re-chunk already runs in a daemonic
multiprocessing child (:mod:`specbrowser.session.rechunk_process`), and multiprocessing forbids
daemonic processes children; its forked ``Process`` also flushes the inherited stdio buffers on
exit, which can print the parent's pending output twice. A child here only computes, writes its
results and leaves with ``os._exit``: no stdio, no atexit handlers, no database connection.
Forking is only used where it is safe and cheap: on Linux (macOS's system libraries are not
fork-safe; Windows has no fork), from the main thread. A call from another thread (the app's
ingest runs in a Textual worker thread) runs everything here: the app's other threads might
hold a lock the child would need. The CLI's only other thread, Rich's progress refresher,
touches nothing a child uses. With one usable core, everything runs here too.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import re
import signal
import struct
import sys
import threading
from collections.abc import Callable, Sequence
from typing import TypeVar

from specbrowser.errors import PolicyError, error_report, raise_reported
from specbrowser.process import sigint_held

with contextlib.suppress(ImportError):  # Windows has neither; only Linux forks (worker_count)
    import fcntl
    import termios

T = TypeVar("T")
R = TypeVar("R")

MIN_WEIGHT = 800_000
"""The least total weight (for sections: characters of HTML to break down) worth forking for:
below it, forking and collecting cost about what the split saves (ECMA-262's large sections on
2 cores; BENCHMARKS.md, "Breakdowns spread over the cores")."""

MAX_WORKERS = 4
"""At most this many processes (this one included), whatever the core count."""

WORKERS_ENV = "SPECBROWSER_WORKERS"
"""An environment variable that caps the process count (a whole number from 1; 1 keeps all the
work in this process), for a shared machine or to compare timings."""


def usable_cores() -> int:
    """How many cores this process may run on (its CPU affinity where the platform says)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def worker_count(total_weight: int) -> int:
    """How many processes :func:`split_map` would use for items of ``total_weight``: the usable
    cores, at most :data:`MAX_WORKERS` and at most what :data:`WORKERS_ENV` says; 1 (this
    process alone) off Linux, from a thread other than the main one, or below
    :data:`MIN_WEIGHT`.

    Raises:
        PolicyError: :data:`WORKERS_ENV` is set to something other than a whole number from 1.
    """
    limit = _env_limit()
    if (
        not sys.platform.startswith("linux")
        or total_weight < MIN_WEIGHT
        or threading.current_thread() is not threading.main_thread()
    ):
        return 1
    return max(1, min(MAX_WORKERS, usable_cores(), limit))


def check_environment() -> None:
    """Check :data:`WORKERS_ENV` now (the CLI does before any work), not after a parse.

    Raises:
        PolicyError: it is set to something other than a whole number from 1.
    """
    _env_limit()


def _env_limit() -> int:
    value = os.environ.get(WORKERS_ENV, "").strip()
    if not value:
        return MAX_WORKERS
    if not re.fullmatch(r"[0-9]+", value) or int(value) < 1:  # ASCII digits: int() takes no "²"
        raise PolicyError(
            f"{WORKERS_ENV} must be a whole number from 1 (the most processes to "
            f"break sections down with), not {value!r}"
        )
    return int(value)


def split_map(
    func: Callable[[T], R],
    items: Sequence[T],
    weights: Sequence[int],
    on_done: Callable[[int, int], None] | None = None,
    meanwhile: Callable[[], None] | None = None,
) -> list[R]:
    """``[func(item) for item in items]``, computed by up to :func:`worker_count` processes.

    The processes take items one at a time from a shared queue, heaviest first by ``weights``
    (one non-negative int per item, e.g. characters), so a slow process or a badly estimated
    item does not leave the others idle. ``on_done(n, of)`` is called in this process after
    each of its items, with ``n`` the items taken so far by all processes (from 1 up to ``of``,
    the item count). Children need nothing but ``func`` and the items (they inherit this
    process's memory as it is at the call); ``func`` must return picklable results.

    ``meanwhile()``, when given, runs once in this process before it takes any item: once the
    children are started, so other work of the caller's (an ingest writes the spec's tables)
    overlaps theirs, and the queue leaves this process the items they have not taken yet. It
    sees the items as they were at the call (no item computed here yet).

    Raises:
        whatever ``func`` raised, in whichever process: a :class:`SpecbrowserError` from a child
        is raised again here with its class and message; any other child failure becomes
        ``RuntimeError`` naming it. Children still running when this process fails or is
        interrupted are killed and reaped.
    """
    workers = min(worker_count(sum(weights)), len(items))
    queue = _queue(sorted(range(len(items)), key=lambda i: -weights[i])) if workers > 1 else None
    if queue is None:
        if meanwhile is not None:
            meanwhile()
        return _run_here(func, items, on_done)
    children: dict[int, int] = {}  # pid -> read fd of its results, until reaped
    try:
        for _ in range(workers - 1):
            # Ctrl-C held over the fork: one arriving during it would be raised inside the
            # interpreter's at-fork handlers (logging's), which swallow it, and the run would
            # go on; held, it is raised here once the child is known and can be killed
            with sigint_held():
                pid, fd = _fork(func, items, queue)
                children[pid] = fd
        if meanwhile is not None:
            meanwhile()
        results: list = [None] * len(items)
        for i, result in _take(func, items, queue, on_done):
            results[i] = result
        for pid in list(children):
            for i, result in _collect(pid, children.pop(pid)):
                results[i] = result
        return results
    finally:
        os.close(queue)
        for pid, fd in children.items():
            _kill(pid, fd)


def _run_here(
    func: Callable[[T], R], items: Sequence[T], on_done: Callable[[int, int], None] | None
) -> list[R]:
    results = []
    for n, item in enumerate(items, start=1):
        results.append(func(item))
        if on_done is not None:
            on_done(n, len(items))
    return results


_INDEX = struct.Struct("=I")
"""An item index in the queue: 4 bytes, so each read takes exactly one (pipe reads of data
written before are whole)."""


def _queue(order: list[int]) -> int | None:
    """A pipe holding ``order``'s indexes, its write end closed (readers stop at its end); the
    read end, or None when the pipe cannot hold them all."""
    data = b"".join(map(_INDEX.pack, order))
    read_fd, write_fd = os.pipe()
    try:
        if len(data) > _PIPE_DEFAULT_BYTES:
            fcntl.fcntl(write_fd, fcntl.F_SETPIPE_SZ, len(data))
        os.set_blocking(write_fd, False)
        written = os.write(write_fd, data)
    except OSError:
        written = -1
    finally:
        os.close(write_fd)
    if written != len(data):
        os.close(read_fd)
        return None
    return read_fd


_PIPE_DEFAULT_BYTES = 65_536

RESULT_PIPE_BYTES = 1 << 20
"""The capacity asked for a child's result pipe (Linux's default ``pipe-max-size``). An
ECMA-262 ingest's child sends some 11 MB (its chunks and Markdown cache entries): through the
default 64 KiB the child and this process took turns, one 64 KiB at a time; collecting took
41-77 ms, 29-33 ms through 1 MiB."""


def _take(
    func: Callable[[T], R],
    items: Sequence[T],
    queue: int,
    on_done: Callable[[int, int], None] | None = None,
) -> list[tuple[int, R]]:
    """Compute items taken from ``queue`` until it is empty: (index, result) pairs."""
    done: list[tuple[int, R]] = []
    while chunk := os.read(queue, _INDEX.size):
        (i,) = _INDEX.unpack(chunk)
        done.append((i, func(items[i])))
        if on_done is not None:
            on_done(len(items) - _left(queue), len(items))
    return done


def _left(queue: int) -> int:
    """How many indexes ``queue`` still holds."""
    return struct.unpack("=i", fcntl.ioctl(queue, termios.FIONREAD, b"\0\0\0\0"))[0] // _INDEX.size


def _fork(func: Callable[[T], R], items: Sequence[T], queue: int) -> tuple[int, int]:
    """Start a child computing ``func`` over items it takes from ``queue``; its pid and the
    pipe end to read its results from."""
    read_fd, write_fd = os.pipe()
    with contextlib.suppress(OSError):  # above the system's pipe-max-size: the default stays
        fcntl.fcntl(write_fd, fcntl.F_SETPIPE_SZ, RESULT_PIPE_BYTES)
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:  # the child: compute, send, leave without running any of the parent's exits
        code = 1
        try:
            os.close(read_fd)
            signal.signal(signal.SIGINT, signal.SIG_DFL)  # Ctrl-C ends it quietly
            _die_with(parent)
            try:
                payload: tuple[str, object] = ("done", _take(func, items, queue))
            except BaseException as error:
                payload = error_report(error)
            with os.fdopen(write_fd, "wb") as out:
                pickle.dump(payload, out, protocol=pickle.HIGHEST_PROTOCOL)
            code = 0
        finally:
            os._exit(code)
    os.close(write_fd)
    return pid, read_fd


def _die_with(parent: int) -> None:
    """Have the kernel kill this child when its parent dies (Linux ``PR_SET_PDEATHSIG``): a
    parent ended by SIGTERM or SIGKILL runs no cleanup, and the child would compute on for
    nothing. If the parent is already gone, leave now."""
    try:
        # ctypes here, not at the top: 1.6 ms of every command's start-up (the command line
        # imports this module), for a forked child only
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):  # no prctl: the child ends at its first write instead
        return
    if os.getppid() != parent:
        os._exit(1)


_PR_SET_PDEATHSIG = 1
"""From Linux's ``<sys/prctl.h>``."""


def _collect(pid: int, fd: int) -> list:
    """The results a child sent, read to the end (a child writing more than a pipe holds waits
    for this read); then the child is reaped and ``fd`` closed."""
    try:
        with os.fdopen(fd, "rb") as stream:
            try:
                kind, payload = pickle.load(stream)
            except (EOFError, pickle.UnpicklingError):
                kind, payload = "crash", "it ended without a whole result"
    finally:
        os.waitpid(pid, 0)
    if kind == "done":
        return payload
    raise_reported(kind, payload, f"a worker process (pid {pid})")


def _kill(pid: int, fd: int) -> None:
    """Stop a child whose results are not wanted (this process failed or was interrupted), reap
    it, and close our end of its pipe."""
    os.close(fd)
    try:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except (ProcessLookupError, ChildProcessError):
        pass
