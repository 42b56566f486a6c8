"""Reads of one database on a few worker threads, each with its own :class:`Session`.

A SQLite connection belongs to the thread that opened it, and a tool call must not block the
server's event loop; so each call runs on one of :data:`WORKERS` threads, which opens its
session the first time and keeps it. Each call reads the chunk set it names afresh: the active
one (which another shell may change with ``specbrowser policies --activate`` or a re-chunk), or
the one ``--set`` named. A database replaced under the server (another file renamed over it)
is opened again; a read that fails (locked past SQLite's busy timeout, a file being rewritten)
is retried once on a new connection, then reported as one line.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

from specbrowser.errors import DatabaseError, NotFoundError
from specbrowser.session import DB_ERRORS, Session

T = TypeVar("T")

WORKERS = 4
"""Threads serving tool calls (and so open connections). SQLite reads release the GIL, so a few
overlap; more would only add connections and page caches."""

CLOSE_WAIT_S = 5.0
"""How long :meth:`Reader.close` waits for every worker to take its closing task (a worker
still busy with a long call delays it)."""

Work = Callable[[Session, str], T]
"""What a tool does with the thread's session and the full version of the set it reads."""


class Reader:
    """Runs :data:`Work` on worker threads against one database file, read-only.

    Args:
        path: the database file (checked by the caller: :meth:`Session.open` once).
        policy_version: the chunk set to read (a full version or unique prefix), or None for
            the active one at each call.
    """

    def __init__(self, path: Path, policy_version: str | None = None) -> None:
        self.path = Path(path)
        self.policy_version = policy_version
        self._local = threading.local()
        self._open: list[Session] = []
        self._lock = threading.Lock()
        self._executor = ThreadPoolExecutor(WORKERS, thread_name_prefix="specbrowser-mcp")

    async def call(self, work: Work[T]) -> T:
        """Run ``work`` on a worker thread and return its result.

        Raises:
            SpecbrowserError: whatever ``work`` raises for bad input (an unknown id …), or a
                :class:`DatabaseError` when the database cannot be read twice in a row.
        """
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, self._run, work)

    def close(self) -> None:
        """Close every session on its own thread (SQLite refuses a close from another), then
        stop the workers.

        One task per worker, held at a barrier until all are running, so each lands on its own
        thread; threads that never opened a session have nothing to close.
        """
        barrier = threading.Barrier(WORKERS)

        def close_here() -> None:
            with contextlib.suppress(threading.BrokenBarrierError):
                barrier.wait(timeout=CLOSE_WAIT_S)
            session: Session | None = getattr(self._local, "session", None)
            if session is not None:
                self._forget(session)

        for _ in range(WORKERS):
            self._executor.submit(close_here)
        self._executor.shutdown(wait=True, cancel_futures=False)
        with self._lock:
            self._open.clear()

    # --- on a worker thread ----------------------------------------------------------------

    def _run(self, work: Work[T]) -> T:
        try:
            return self._attempt(work, fresh=False)
        except DB_ERRORS:
            pass  # a file rewritten under us, a lock held past the busy timeout: once more
        try:
            return self._attempt(work, fresh=True)
        except DB_ERRORS as exc:
            raise _read_error(self.path, exc) from None

    def _attempt(self, work: Work[T], *, fresh: bool) -> T:
        session = self._session(fresh)
        return work(session, self._version(session))

    def _version(self, session: Session) -> str:
        if self.policy_version is None:
            return session.active_version()
        try:
            return session.resolve_version(self.policy_version)
        except NotFoundError:
            raise NotFoundError(
                f"the chunk set {self.policy_version} this server reads is no longer in the "
                "database (deleted from another shell?); restart it with another --set"
            ) from None

    def _session(self, fresh: bool) -> Session:
        """This thread's session, opened again when ``fresh`` or when another file has taken
        the database's path since it was opened."""
        try:
            stat = os.stat(self.path)
        except OSError:
            raise DatabaseError(f"{self.path} no longer exists") from None
        identity = (stat.st_dev, stat.st_ino)
        session: Session | None = getattr(self._local, "session", None)
        if session is not None and (fresh or self._local.identity != identity):
            self._forget(session)
            session = None
        if session is None:
            session = Session.open(self.path)
            self._local.session, self._local.identity = session, identity
            with self._lock:
                self._open.append(session)
        return session

    def _forget(self, session: Session) -> None:
        with self._lock:
            if session in self._open:
                self._open.remove(session)
        with contextlib.suppress(*DB_ERRORS):
            session.close()
        self._local.session = None


def _read_error(path: Path, exc: Exception) -> DatabaseError:
    """One line for a read that failed twice."""
    message = str(exc)
    if "locked" in message or "busy" in message:
        return DatabaseError(
            f"{path} is locked by another process (a re-chunk or ingest writing it?); "
            "try again when it is done"
        )
    return DatabaseError(f"cannot read {path}: {message}")
