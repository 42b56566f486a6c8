"""The one place SQLite connections are made, with sqlite-vec loaded when this Python can.

Python's built-in ``sqlite3`` is often built without ``enable_load_extension`` (this machine's,
many macOS builds). :func:`connect` prefers ``sqlean.py`` (a ``sqlite3``-compatible
build that can load extensions), then the built-in module; it then tries to load sqlite-vec. When
no build can, the connection still works (lexical search, browsing) and
:attr:`Connected.vector_error` says why vector search is off.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import sqlite3
from pathlib import Path
from types import ModuleType
from typing import NamedTuple

from specbrowser.errors import DatabaseError, NotASpecbrowserDatabase

BUSY_TIMEOUT_S = 5.0
"""How long a write waits for another connection's write lock before giving up with "database is
locked" (in write-ahead-log mode reads never wait, but for a writer holding the file exclusively:
see :data:`JOURNAL_MODE`)."""

BACKGROUND_BUSY_TIMEOUT_S = 120.0
"""How long a background job's write (the app's token count, an embedding batch) waits for
another connection's write lock: an ingest holds it while it chunks (seconds, more on a loaded
machine), and such a job loses nothing by waiting."""

JOURNAL_MODE = "wal"
"""SQLite's journal mode for every database specbrowser opens
(:meth:`specbrowser.store.SpecStore.open` sets it once the schema exists, since a file in this
mode keeps its page size): with a write-ahead log readers never block a writer nor wait for one,
so the app can read and count tokens while a command-line re-chunk or ingest writes the same
file. The log (``FILE-wal``, with its index ``FILE-shm``) is copied into the file by each
connection as it closes, and removed by the last one: a closed database is one file. A file
being created is written in the rollback journal and put in this mode as its creating
connection closes (:attr:`specbrowser.store.SpecStore.log_on_close`)."""


def _driver() -> ModuleType:
    try:  # sqlean, which can load extensions (sqlite-vec), else the standard library's
        import sqlean

        return sqlean
    except ImportError:
        return sqlite3


DRIVER: ModuleType = _driver()
"""The DB-API module connections come from (``sqlean`` when installed, else ``sqlite3``)."""

DB_ERRORS: tuple[type[Exception], ...] = tuple({sqlite3.Error, DRIVER.Error})
"""Base errors of either driver (``sqlean``'s classes do not derive from ``sqlite3``'s)."""
OPERATIONAL_ERRORS: tuple[type[Exception], ...] = tuple(
    {sqlite3.OperationalError, DRIVER.OperationalError}
)
DATABASE_ERRORS: tuple[type[Exception], ...] = tuple({sqlite3.DatabaseError, DRIVER.DatabaseError})


class Connected(NamedTuple):
    """An open connection and whether vector search can use it.

    Attributes:
        conn: the DB-API connection (``sqlite3``-compatible).
        vector_error: None when sqlite-vec is loaded, else one line saying why not.
    """

    conn: sqlite3.Connection
    vector_error: str | None


CACHE_KIB = 65_536
"""Page cache per connection, in KiB (allocated as used). A chunk set of ECMA-262 writes about
30 MB of pages (rows and FTS5 index); with SQLite's default 2 MB cache the transaction spills
to the file early and holds the exclusive lock from then on, so the app's reads on its own
connection waited up to seconds during a background re-chunk. With the whole transaction in
memory the exclusive lock lasts only for the commit."""


def connect(path: Path | str, *, busy_timeout_s: float | None = None) -> Connected:
    """Open ``path`` and try to load sqlite-vec into the connection; a write waits
    ``busy_timeout_s`` (default :data:`BUSY_TIMEOUT_S`) for another connection's lock.

    Raises:
        DatabaseError: the path is a folder, its folder does not exist, or SQLite cannot open it.
    """
    path = Path(path)
    if path.is_dir():
        raise DatabaseError(f"{path} is a folder, not a database file")
    if not path.parent.exists():
        raise DatabaseError(f"cannot create {path}: folder {path.parent} does not exist")
    try:
        timeout = BUSY_TIMEOUT_S if busy_timeout_s is None else busy_timeout_s
        conn = DRIVER.connect(str(path), timeout=timeout)
    except DB_ERRORS as exc:
        raise DatabaseError(f"cannot open {path}: {exc}") from None
    try:
        conn.execute(f"PRAGMA cache_size = -{CACHE_KIB}")  # reads the schema: may wait for a lock
    except DB_ERRORS as exc:
        if _locked(exc):  # said now: the caller's first statement would wait as long again
            conn.close()
            raise database_error(path, exc) from None
        if "unable to open" in str(exc) and not os.access(path.parent, os.W_OK):
            conn.close()
            conn = _connect_read_only_media(path, timeout)
        # not a database …: the caller's first statement says so, in its words
    return Connected(conn, load_vector_extension(conn))


def _connect_read_only_media(path: Path, timeout: float) -> sqlite3.Connection:
    """A connection to a database in write-ahead-log mode in a folder nobody can write (a
    read-only file system): SQLite can read such a file only as ``immutable`` (it cannot make
    the log's index beside it), which is what a file there is."""
    uri = f"{path.resolve().as_uri()}?immutable=1"
    try:
        conn = DRIVER.connect(uri, uri=True, timeout=timeout)
        conn.execute(f"PRAGMA cache_size = -{CACHE_KIB}")
    except DB_ERRORS as exc:
        raise database_error(path, exc) from None
    return conn


def _locked(exc: Exception) -> bool:
    return "locked" in str(exc) or "busy" in str(exc)


def use_write_ahead_log(conn: sqlite3.Connection) -> None:
    """Put the database in :data:`JOURNAL_MODE` (a no-op when it is already). A file that
    cannot be switched (read-only, or another process holds it in the old journal mode) keeps
    its mode: everything works in it, with readers and writers waiting for each other."""
    with contextlib.suppress(*DB_ERRORS):
        conn.execute(f"PRAGMA journal_mode = {JOURNAL_MODE}")  # a constant


def checkpoint(conn: sqlite3.Connection) -> None:
    """Copy what the write-ahead log holds into the database file, as far as other
    connections' reads allow, without waiting for them (so that a copy of the file made while
    another process keeps it open has every commit); a no-op in another journal mode."""
    with contextlib.suppress(*DB_ERRORS):  # locked, read-only: the last one to close copies it
        conn.execute("PRAGMA wal_checkpoint(PASSIVE)")


def database_error(path: Path, exc: Exception) -> DatabaseError:
    """The one-line :class:`DatabaseError` for a SQLite error on the database at ``path``: not
    SQLite, locked by another process (after :data:`BUSY_TIMEOUT_S`), read-only, or other."""
    message = str(exc)
    if "file is not a database" in message:
        return NotASpecbrowserDatabase(f"{path} is not a SQLite database")
    if _locked(exc):
        return DatabaseError(f"{path} is locked by another process; try again when it is done")
    if "readonly" in message or "unable to open" in message:
        return DatabaseError(f"cannot write {path}: {message}")
    return DatabaseError(f"{path}: {message}")


def vector_extension_path() -> Path | None:
    """Where the sqlite-vec package keeps its loadable extension (``vec0`` without the platform
    suffix, as SQLite takes it), or None when the package is not installed. Found without
    importing the package, which imports ``numpy.typing`` (0.05–0.1 s on every database open)
    for a helper specbrowser does not use; ``sqlite_vec.loadable_path()`` says the same."""
    spec = importlib.util.find_spec("sqlite_vec")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / "vec0"


def load_vector_extension(conn: sqlite3.Connection) -> str | None:
    """Load sqlite-vec; return None on success, else why it could not be loaded (one line)."""
    extension = vector_extension_path()
    if extension is None:
        return "sqlite-vec is not installed (pip install sqlite-vec); semantic search is off"
    try:
        conn.enable_load_extension(True)
        try:
            conn.load_extension(str(extension))
        finally:
            conn.enable_load_extension(False)
    except AttributeError:
        return (
            "this Python's sqlite3 cannot load extensions (install sqlean.py); "
            "semantic search is off"
        )
    except DB_ERRORS as exc:
        return f"sqlite-vec could not be loaded ({exc}); semantic search is off"
    return None
