""":class:`SqlDatabase`: the store's handle on one connection, which runs statements as
sqlite-utils' ``Database.execute`` does and hands the rest (tables, views, ``atomic``) to a
``sqlite_utils.Database`` made on first use.

Reading a database needs only statements; sqlite-utils (with click, dateutil and pluggy: 35–45
ms of imports) is needed only to create tables and insert rows. A command or an app that only
reads never imports it: the app paints its first screen without it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import sqlite_utils
    from sqlite_utils.db import Table, View

TRANSACTION_CONTROL = frozenset({"BEGIN", "COMMIT", "END", "ROLLBACK", "SAVEPOINT", "RELEASE"})
"""Statements that open or close a transaction themselves: :meth:`SqlDatabase.execute` never
commits after them (sqlite-utils' own list)."""


def first_keyword(sql: str) -> str:
    """The first keyword of ``sql``, upper-cased, after the whitespace, ``;``, byte order mark
    and ``--`` / ``/* */`` comments the driver skips ("" when there is none)."""
    i, n = 0, len(sql)
    while i < n:
        if sql[i].isspace() or sql[i] in (";", "\ufeff"):
            i += 1
        elif sql.startswith("--", i):
            newline = sql.find("\n", i)
            if newline == -1:
                return ""
            i = newline + 1
        elif sql.startswith("/*", i):
            end = sql.find("*/", i + 2)
            if end == -1:
                return ""
            i = end + 2
        else:
            break
    j = i
    while j < n and (sql[j].isalpha() or sql[j] == "_"):
        j += 1
    return sql[i:j].upper()


class SqlDatabase:
    """One connection, as the store uses it: :meth:`execute` for every statement,
    :meth:`rollback` and :meth:`table_names`, and the sqlite-utils calls that create tables,
    indexes and views, insert rows or open savepoints (:meth:`table`, ``[name]``,
    :meth:`create_view`, :meth:`atomic`), which go to a ``sqlite_utils.Database`` on the same
    connection (:attr:`utils`, made when first needed).

    Like sqlite-utils' ``Database``, it turns SQLite's recursive triggers on.

    Args:
        conn: the DB-API connection (``sqlite3``'s or sqlean's).
    """

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self._utils: sqlite_utils.Database | None = None
        self.execute("PRAGMA recursive_triggers=on;")

    def execute(
        self, sql: str, parameters: Sequence[Any] | dict[str, Any] | None = None
    ) -> sqlite3.Cursor:
        """Run one statement, as sqlite-utils' ``Database.execute`` does: a write outside a
        transaction is committed at once, and one that fails there leaves no transaction
        open; inside a transaction, both are left to it.

        Raises:
            sqlite3.Error (or the driver's): what SQLite raised.
        """
        was_in_transaction = self.conn.in_transaction
        try:
            if parameters is not None:
                cursor = self.conn.execute(sql, parameters)
            else:
                cursor = self.conn.execute(sql)
        except Exception:
            if not was_in_transaction and self.conn.in_transaction:
                self.conn.execute("ROLLBACK")
            raise
        if (
            not was_in_transaction
            and self.conn.in_transaction
            and cursor.description is None
            and first_keyword(sql) not in TRANSACTION_CONTROL
        ):
            self.conn.execute("COMMIT")
        return cursor

    @property
    def utils(self) -> sqlite_utils.Database:
        """The ``sqlite_utils.Database`` on this connection (imported and made on first use;
        plugins not run: specbrowser's SQL uses no function they register, and finding them
        scans every installed distribution's entry points)."""
        if self._utils is None:
            # deferred: sqlite-utils, click, dateutil, pluggy (35-45 ms), for writes only
            from specbrowser.store._sqlite_utils import load_sqlite_utils

            self._utils = load_sqlite_utils().Database(
                self.conn, execute_plugins=False, recursive_triggers=False
            )
        return self._utils

    def table(self, name: str) -> Table:
        """sqlite-utils' table ``name`` (to create it, its indexes, or insert rows)."""
        return self.utils.table(name)

    def __getitem__(self, name: str) -> Table | View:
        return self.utils[name]

    def create_view(self, name: str, sql: str) -> None:
        """sqlite-utils' ``create_view``."""
        self.utils.create_view(name, sql)

    def atomic(self) -> AbstractContextManager[Any]:
        """sqlite-utils' ``atomic``: a transaction, or a savepoint inside one."""
        return self.utils.atomic()

    def rollback(self) -> None:
        """Roll the open transaction back (a no-op without one), as sqlite-utils'
        ``rollback``."""
        if self.conn.in_transaction:
            self.conn.execute("ROLLBACK")

    def table_names(self) -> list[str]:
        """The names of the database's tables (virtual ones and their shadow tables too)."""
        return [
            name for (name,) in self.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        ]

    def close(self) -> None:
        """Close the connection."""
        self.conn.close()
