"""One FTS5 index per chunk set, so that a set's BM25 ranking counts only its own texts.

``texts`` holds each distinct text once, shared by the sets that have it; an index over all of
them would give BM25 statistics (document count, average length, each term's
document frequency) over every stored set, so storing a second set would change the first set's
scores. Each set therefore gets its own *external-content* FTS5 table over ``texts``
(``content='texts'``: the index only, the text is read from ``texts`` for snippets), holding the
rows of the texts the set uses, built when the set is written and dropped with it.

Table names come from the policy version (:func:`set_fts_table`), never from input text.
"""

from __future__ import annotations

import hashlib

import sqlite_utils

SET_FTS_PREFIX = "set_fts_"
"""Start of every per-set FTS5 table's name."""


def set_fts_table(policy_version: str) -> str:
    """The FTS5 table name of a chunk set: the prefix and the first 16 hex digits of the
    version's sha1 (only ``[a-z0-9_]``, so safe to put into SQL)."""
    return SET_FTS_PREFIX + hashlib.sha1(policy_version.encode()).hexdigest()[:16]


def build_set_fts(db: sqlite_utils.Database, policy_version: str) -> None:
    """(Re)build the chunk set's FTS5 index from its chunk rows (call inside a transaction)."""
    from specbrowser.store.schema import FTS_TOKENIZER  # schema's migration imports this module

    table = set_fts_table(policy_version)
    db.execute(f"DROP TABLE IF EXISTS [{table}]")
    db.execute(
        f"CREATE VIRTUAL TABLE [{table}] USING fts5(title, retrieval_header, retrieval_body, "
        f"content='texts', content_rowid='id', tokenize='{FTS_TOKENIZER}')"
    )
    db.execute(
        f"INSERT INTO [{table}] (rowid, title, retrieval_header, retrieval_body) "
        "SELECT id, title, retrieval_header, retrieval_body FROM texts WHERE id IN "
        "(SELECT text_id FROM chunk_rows WHERE policy_version = ?) ORDER BY id",
        [policy_version],
    )


def drop_set_fts(db: sqlite_utils.Database, policy_version: str) -> None:
    """Drop the chunk set's FTS5 index (its shadow tables go with it)."""
    db.execute(f"DROP TABLE IF EXISTS [{set_fts_table(policy_version)}]")


def drop_orphan_set_fts(db: sqlite_utils.Database) -> None:
    """Drop the per-set indexes of sets no longer stored (after a spec replaced them all)."""
    live = {set_fts_table(version) for (version,) in db.execute("SELECT version FROM policies")}
    names = [
        name
        for (name,) in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE ? "
            "AND sql LIKE 'CREATE VIRTUAL TABLE%'",
            [SET_FTS_PREFIX + "%"],
        )
    ]
    for name in names:
        if name not in live:
            db.execute(f"DROP TABLE IF EXISTS [{name}]")
