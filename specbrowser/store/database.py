""":class:`SpecStore`: one open specbrowser database, the object every caller of the store holds.

It owns the :class:`~specbrowser.store.sqldb.SqlDatabase` (and its connection), the file's
``path`` and whether sqlite-vec could be loaded (``vector_error``), so nothing has to be
recovered from the connection or patched onto it. Reads go through the store's query functions
and methods; writes go through :meth:`SpecStore.transaction`, which turns a SQLite error into
the project's one-line :class:`~specbrowser.errors.DatabaseError`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType

from specbrowser.errors import DatabaseError, NotASpecbrowserDatabase
from specbrowser.process import COMMITS, Commit, sigint_held
from specbrowser.store.advice import AdvisorSets
from specbrowser.store.cache import MarkdownCache
from specbrowser.store.chunks import ChunkReads
from specbrowser.store.connection import (
    DATABASE_ERRORS,
    DB_ERRORS,
    OPERATIONAL_ERRORS,
    checkpoint,
    connect,
    database_error,
    use_write_ahead_log,
)
from specbrowser.store.corpus import Corpus
from specbrowser.store.queries import SetQueries
from specbrowser.store.reuse import StoredTrees
from specbrowser.store.schema import APP_ID, PAGE_SIZE, SCHEMA_VERSION, create_schema, migrate
from specbrowser.store.sections import Sections
from specbrowser.store.sets import ChunkSets
from specbrowser.store.sqldb import SqlDatabase
from specbrowser.store.symbols import SymbolIndex
from specbrowser.store.toc import TocTables
from specbrowser.store.tokens import TokenCounts
from specbrowser.store.tree import TreeQueries
from specbrowser.store.vectors import Vectors


class SpecStore(ChunkReads, SetQueries, TreeQueries):
    """One open specbrowser database (a corpus of specs, its chunk sets, caches and vectors).

    Attributes:
        db: the :class:`~specbrowser.store.sqldb.SqlDatabase` on the connection; used inside
            :mod:`specbrowser.store` only (every SQL statement of the project lives there).
        path: the database file.
        vector_error: None when sqlite-vec is loaded in this connection, else one line saying
            why semantic search is off.

    Open one with :meth:`open`; a worker thread opens its own with :meth:`reopen` (a SQLite
    connection belongs to the thread that made it). Usable as a context manager that closes it.

    Its own methods read a chunk set's chunks (:class:`~specbrowser.store.chunks.ChunkReads`,
    :class:`~specbrowser.store.queries.SetQueries`, :class:`~specbrowser.store.tree.TreeQueries`:
    the classes it is made of); every other topic is a named part, as sqlite-utils' ``Database``
    holds its tables: :attr:`sections`, :attr:`corpus`, :attr:`sets`, :attr:`toc`,
    :attr:`symbols`, :attr:`trees`, :attr:`cache`, :attr:`vectors`, :attr:`tokens`,
    :attr:`advice`.
    """

    def __init__(self, db: SqlDatabase, path: Path, vector_error: str | None) -> None:
        self.db = db
        self.path = path
        self.vector_error = vector_error
        self.sections = Sections(self)
        """The document and its sections."""
        self.corpus = Corpus(self)
        """The specs the database holds, their names, ids and removal."""
        self.sets = ChunkSets(self)
        """The chunk sets, the ingest's write and the active set."""
        self.toc = TocTables(self)
        """The stored TOC and its mismatches with the section tree."""
        self.symbols = SymbolIndex(db)
        """The symbol index and each chunk set's anchor map."""
        self.trees = StoredTrees(self)
        """The chunk trees a re-chunk copies from stored sets."""
        self.cache = MarkdownCache(self)
        """Each section's cached Markdown conversion."""
        self.vectors = Vectors(self)
        """Embeddings and the KNN index."""
        self.tokens = TokenCounts(db)
        """Token counts by model and retrieval text."""
        self.advice = AdvisorSets(db)
        """The chunk sets the advisor made, and the figures it compares sets by."""
        self.log_on_close = False
        """Whether :meth:`close` puts the file in write-ahead-log mode: a file this connection
        created stays in the rollback journal until then (see :meth:`open`)."""

    @classmethod
    def open(
        cls, path: Path | str, *, create: bool = False, busy_timeout_s: float | None = None
    ) -> SpecStore:
        """Open a specbrowser database, creating the schema when ``create`` and the file is new;
        a database of an older schema is upgraded in place
        (:func:`specbrowser.store.schema.migrate`). The file is then in write-ahead-log mode
        (:data:`~specbrowser.store.connection.JOURNAL_MODE`), but for a file created here: that
        one is put in it when this connection closes (:attr:`log_on_close`). Nobody reads a
        database that holds no spec yet, and its first write is the whole spec (ECMA-262:
        about 44 MB), which the rollback journal writes once, into the file, and the log twice
        (into the log, then into the file at the checkpoint). A write waits ``busy_timeout_s``
        for another connection's write lock (default
        :data:`~specbrowser.store.connection.BUSY_TIMEOUT_S`).

        Raises:
            DatabaseError: missing file (without ``create``), a folder, not SQLite, locked, or
                not writable (an older schema needs writing to be upgraded).
            NotASpecbrowserDatabase: a SQLite file specbrowser did not write, or a newer schema.
        """
        path = Path(path)
        if not create and not path.exists():
            raise DatabaseError(
                f"{path} does not exist (create it with: specbrowser ingest SPEC --db {path})"
            )
        connected = connect(path, busy_timeout_s=busy_timeout_s)
        database = SqlDatabase(connected.conn)
        store = cls(database, path, connected.vector_error)
        try:
            if store._check_schema(create):
                store.log_on_close = True
            else:
                use_write_ahead_log(store.conn)
        except DATABASE_ERRORS as exc:
            store.close()
            raise database_error(path, exc) from None
        except BaseException:
            store.close()
            raise
        return store

    def _check_schema(self, create: bool) -> bool:
        """Create the schema of a new file (then True), refuse a foreign one, upgrade an older
        one."""
        db, path = self.db, self.path
        names = set(db.table_names())
        if "meta" not in names:
            if names or not create:
                raise NotASpecbrowserDatabase(f"{path} is not a specbrowser database")
            create_schema(db)
            return True
        meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
        if meta.get("app") != APP_ID:
            raise NotASpecbrowserDatabase(f"{path} is not a specbrowser database")
        version = int(meta.get("schema_version", 0))
        if version != SCHEMA_VERSION and not self._upgrade(version):
            raise NotASpecbrowserDatabase(
                f"{path} has schema version {meta.get('schema_version')}, this specbrowser reads "
                f"{SCHEMA_VERSION}: re-ingest the spec into a new database"
            )
        return False

    def _upgrade(self, version: int) -> bool:
        """:func:`specbrowser.store.schema.migrate`, with a database that cannot be written (a
        read-only file or folder) named for what it is: an older schema that needs writing."""
        try:
            return migrate(self.db, version, self.path)
        except DATABASE_ERRORS as exc:
            if "readonly" not in str(exc):
                raise
            raise DatabaseError(
                f"{self.path} was written by an older specbrowser (schema {version}) and is "
                "upgraded in place when opened, which needs write access: open it once where "
                "it can be written (or copy it)"
            ) from None

    def reopen(self, *, busy_timeout_s: float | None = None) -> SpecStore:
        """A new connection to the same file (for a worker thread); the caller closes it.

        Raises:
            DatabaseError: the file can no longer be opened (see :meth:`open`).
        """
        return type(self).open(self.path, busy_timeout_s=busy_timeout_s)

    def data_version(self) -> int:
        """SQLite's ``PRAGMA data_version``: a number that changes when another connection (this
        process's or another's) commits to the file, and only then; cheap enough to poll.

        Raises:
            DatabaseError: the database cannot be read (locked past the timeout, gone).
        """
        try:
            return int(self.db.execute("PRAGMA data_version").fetchone()[0])
        except DB_ERRORS as exc:
            raise DatabaseError(f"cannot read {self.path}: {exc}") from None

    def close(self) -> None:
        """Put a file this connection created in write-ahead-log mode (:attr:`log_on_close`),
        copy the log into the file as far as other connections allow
        (:func:`~specbrowser.store.connection.checkpoint`), then close the connection (the
        object is unusable afterwards)."""
        if self.log_on_close:
            use_write_ahead_log(self.conn)
        checkpoint(self.conn)
        self.db.close()

    def __enter__(self) -> SpecStore:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<SpecStore {self.path}>"

    @property
    def conn(self) -> sqlite3.Connection:
        """The DB-API connection (``sqlite3``'s or sqlean's, which has the same interface), for
        the store's own bulk statements."""
        return self.db.conn

    @contextmanager
    def transaction(self, what: str = "a change") -> Iterator[SqlDatabase]:
        """A write transaction: everything inside commits together or not at all (an exception,
        Ctrl-C included, rolls it back). Nested use becomes a savepoint of the outer one.

        The outermost transaction's ``COMMIT`` runs with Ctrl-C held back (in the main thread:
        a SIGINT that arrives meanwhile is raised right after), and a committed transaction is
        recorded in :data:`specbrowser.process.COMMITS` as ``what`` (a phrase such as
        ``"chunk set 1a2b… (active)"``) before that interrupt can be raised, so whoever catches
        it can tell a user whether the file changed.

        Yields the ``SqlDatabase`` (for the store's own statements).

        Raises:
            DatabaseError: SQLite could not write (locked by another process, read-only, disk
                full), as one line naming the file; the transaction is rolled back.
        """
        try:
            if self.conn.in_transaction:
                with self.db.atomic():
                    yield self.db
                return
            # IMMEDIATE: the write lock now, waited for as long as the busy timeout allows. A
            # transaction that began by reading could not wait for it later: in write-ahead-log
            # mode a commit by another connection since that read fails it at once ("database
            # is locked").
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                yield self.db
            except BaseException:
                self.db.rollback()  # a no-op where an error already ended the transaction
                raise
            try:
                with sigint_held():
                    self.conn.execute("COMMIT")
                    COMMITS.append(Commit(self.path, what))
            except BaseException:
                self.db.rollback()
                raise
        except OPERATIONAL_ERRORS as exc:
            raise self.error(exc) from None

    def vacuum(self) -> None:
        """Rebuild the database file without its free pages (after deleting chunk sets), so that
        it shrinks, with pages of :data:`~specbrowser.store.schema.PAGE_SIZE` bytes (a file an
        older specbrowser wrote with smaller ones gets them too). Needs free disk space about the
        size of the database.

        Raises:
            DatabaseError: the database is locked or read-only, or the disk is full (the file is
                then as it was).
        """
        try:
            if self.db.execute("PRAGMA page_size").fetchone()[0] == PAGE_SIZE:
                self.db.execute("VACUUM")
                return
            # a file in write-ahead-log mode keeps its page size: out of that mode for the
            # rebuild (which then needs no other connection on the file), then back
            self.db.execute("PRAGMA journal_mode = DELETE")
            self.db.execute(f"PRAGMA page_size = {PAGE_SIZE}")  # a constant
            self.db.execute("VACUUM")
            use_write_ahead_log(self.conn)
        except OPERATIONAL_ERRORS as exc:
            raise self.error(exc) from None

    def error(self, exc: Exception) -> DatabaseError:
        """The one-line :class:`DatabaseError` for a SQLite error raised on this database."""
        return database_error(self.path, exc)
