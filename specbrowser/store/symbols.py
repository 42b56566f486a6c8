"""The symbol index and each chunk set's anchor map: what a name or a link target resolves to.

- ``symbols``: one row per name the spec defines (:mod:`specbrowser.formats.symbols`), with its
  kind, defining section and anchor (the defining element's id, when it has one). Written with
  the sections (ingest) and made from the stored sections' HTML by the schema-8 migration; a
  re-chunk keeps it (it depends on the document, not on a chunk set).
- ``chunk_anchors``: per chunk set, each element id that lies in a *subsection* of its section
  (a chunk the breakdown extracted), with that chunk. An id in the document that has no row
  here lies in its section's root chunk. Written with the set's chunk rows (the breakdown
  records the ids each chunk's part of the section holds, :attr:`Chunk.anchors`), copied with
  the chunk trees a re-chunk copies, deleted with the set.

Every statement is parameterized; writes happen inside the caller's transaction.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import sqlite_utils

from specbrowser.formats.symbols import SYMBOL_KINDS, Symbol, spec_symbols
from specbrowser.model import Chunk, Section
from specbrowser.store.queries import ChunkFilter
from specbrowser.store.rows import insert_rows, select_in

SYMBOL_TABLES = (
    """CREATE TABLE IF NOT EXISTS symbols (
    name TEXT NOT NULL,
    key TEXT NOT NULL,
    kind TEXT NOT NULL,
    rank INTEGER NOT NULL,
    section_id TEXT NOT NULL,
    anchor TEXT,
    ordinal INTEGER NOT NULL
)""",
    "CREATE INDEX IF NOT EXISTS symbols_name ON symbols (name, rank, ordinal)",
    "CREATE INDEX IF NOT EXISTS symbols_key ON symbols (key, rank, ordinal)",
    """CREATE TABLE IF NOT EXISTS chunk_anchors (
    policy_version TEXT NOT NULL,
    anchor TEXT NOT NULL,
    section_id TEXT NOT NULL,
    chunk_id TEXT NOT NULL,
    PRIMARY KEY (policy_version, anchor)
) WITHOUT ROWID""",
    "CREATE INDEX IF NOT EXISTS chunk_anchors_section ON chunk_anchors "
    "(policy_version, section_id)",
)
"""``symbols``: ``name`` as written, ``key`` its casefolded form (a query typed in another case
still finds it), ``rank`` the kind's place in :data:`~specbrowser.formats.symbols.SYMBOL_KINDS`
(0: an abstract operation), ``ordinal`` the row's place in document order. ``chunk_anchors``:
see the module docstring."""

_RANK = {kind: rank for rank, kind in enumerate(SYMBOL_KINDS)}


def create_symbol_tables(db: sqlite_utils.Database) -> None:
    """``symbols`` and ``chunk_anchors`` with their indexes (:data:`SYMBOL_TABLES`)."""
    for statement in SYMBOL_TABLES:
        db.execute(statement)


def replace_symbols(db: sqlite_utils.Database, symbols: Iterable[Symbol]) -> int:
    """Replace the whole symbol index by ``symbols`` (document order); returns the row count."""
    db.execute("DELETE FROM symbols")
    rows: list[dict[str, object]] = [
        {
            "name": s.name,
            "key": s.name.casefold(),
            "kind": s.kind,
            "rank": _RANK[s.kind],
            "section_id": s.section_id,
            "anchor": s.anchor,
            "ordinal": ordinal,
        }
        for ordinal, s in enumerate(symbols)
    ]
    insert_rows(db, "symbols", rows)
    return len(rows)


def index_stored_sections(db: sqlite_utils.Database) -> int:
    """Make the symbol index from the stored sections' HTML (the schema-8 migration; about a
    second for ECMA-262's 2,253 sections); returns the row count."""
    sections = [
        Section(*row)
        for row in db.execute(
            "SELECT id, parent_id, ordinal, depth, kind, secnum, title, html, source_file "
            "FROM sections ORDER BY ordinal"
        )
    ]
    return replace_symbols(db, spec_symbols(sections))


def insert_chunk_anchors(db: sqlite_utils.Database, version: str, chunks: Sequence[Chunk]) -> None:
    """Record where the anchors of the set ``version`` lie: each id a subsection's part of its
    section holds (:attr:`Chunk.anchors` of chunks with a parent). An id held twice (a spec
    that repeats an id) keeps its first chunk."""
    seen: set[str] = set()
    rows: list[dict[str, object]] = []
    for chunk in chunks:
        if chunk.parent_id is None or chunk.section_id is None:
            continue
        for anchor in chunk.anchors:
            if anchor not in seen:
                seen.add(anchor)
                rows.append(
                    {
                        "policy_version": version,
                        "anchor": anchor,
                        "section_id": chunk.section_id,
                        "chunk_id": chunk.id,
                    }
                )
    insert_rows(db, "chunk_anchors", rows)


def copy_chunk_anchors(db: sqlite_utils.Database, version: str, source: str, sections: list[str]):
    """Copy the anchor rows of ``sections`` from the set ``source`` into the set ``version``
    (the chunk trees a re-chunk copies keep their ids, so their anchors lie where they did).

    The sections are an ``IN`` list, not a join: joined, SQLite searched the source set's rows
    once per section (0.67 s for ECMA-262's 2,254 against 6 ms)."""
    db.execute(
        "INSERT OR IGNORE INTO chunk_anchors (policy_version, anchor, section_id, chunk_id) "
        "SELECT ?, a.anchor, a.section_id, a.chunk_id FROM chunk_anchors a "
        "WHERE a.policy_version = ? AND a.section_id IN (SELECT value FROM json_each(?))",
        [version, source, json.dumps(sections)],
    )


def delete_chunk_anchors(db: sqlite_utils.Database, version: str | None = None) -> None:
    """Delete the anchor rows of the set ``version`` (None: of every set)."""
    if version is None:
        db.execute("DELETE FROM chunk_anchors")
    else:
        db.execute("DELETE FROM chunk_anchors WHERE policy_version = ?", [version])


@dataclass(frozen=True)
class SymbolRow:
    """One row of the symbol index (:class:`~specbrowser.formats.symbols.Symbol` as stored).

    Attributes:
        name: the name as the spec writes it.
        kind: one of :data:`~specbrowser.formats.symbols.SYMBOL_KINDS`.
        section_id: the defining section.
        anchor: the defining element's id, or None.
    """

    name: str
    kind: str
    section_id: str
    anchor: str | None


def find_symbols(db: sqlite_utils.Database, name: str, *, limit: int = 20) -> list[SymbolRow]:
    """The definitions of ``name``, best first (kind rank, then document order): exact matches,
    or when there is none, matches in any case (casefolded). [] for a name nothing defines."""
    for column, value in (("name", name), ("key", name.casefold())):
        rows = db.execute(
            f"SELECT name, kind, section_id, anchor FROM symbols WHERE {column} = ? "  # constant
            "ORDER BY rank, ordinal LIMIT ?",
            [value, limit],
        ).fetchall()
        if rows:
            return [SymbolRow(*row) for row in rows]
    return []


def anchor_section(db: sqlite_utils.Database, anchor: str) -> str | None:
    """The section whose own HTML holds an element with the id ``anchor`` (the first in
    document order when the spec repeats an id), or None."""
    row = db.execute(
        "SELECT section_id FROM symbols WHERE name = ? AND kind = 'id' ORDER BY ordinal LIMIT 1",
        [anchor],
    ).fetchone()
    return str(row[0]) if row else None


def anchor_chunks(db: sqlite_utils.Database, version: str, anchors: list[str]) -> dict[str, str]:
    """Anchor → chunk id of the set ``version`` for each of ``anchors`` that is an element id
    of the document: the subsection that holds it, else its section's root chunk. Anchors the
    document does not hold are left out."""
    if not anchors:
        return {}
    wanted = list(dict.fromkeys(anchors))
    sections: dict[str, tuple[int, str]] = {}
    for name, section_id, ordinal in select_in(
        db,
        "SELECT name, section_id, ordinal FROM symbols WHERE kind = 'id' AND name IN",
        [],
        wanted,
    ):
        if name not in sections or ordinal < sections[name][0]:
            sections[name] = (ordinal, section_id)
    held = dict(
        select_in(
            db,
            "SELECT anchor, chunk_id FROM chunk_anchors WHERE policy_version = ? AND anchor IN",
            [version],
            wanted,
        )
    )
    return {a: held.get(a, sections[a][1]) for a in wanted if a in sections}


def anchor_map(db: sqlite_utils.Database, version: str) -> dict[str, str]:
    """Every element id of the document → the chunk of the set ``version`` holding it."""
    held = dict(
        db.execute(
            "SELECT anchor, chunk_id FROM chunk_anchors WHERE policy_version = ?", [version]
        ).fetchall()
    )
    found: dict[str, str] = {}
    for name, section_id in db.execute(
        "SELECT name, section_id FROM symbols WHERE kind = 'id' ORDER BY ordinal"
    ):
        found.setdefault(name, held.get(name, section_id))
    return found


def has_anchor_map(db: sqlite_utils.Database, version: str) -> bool:
    """Whether the set ``version`` recorded where its anchors lie: it has anchor rows, or no
    subsection at all (every anchor is then in its section's root chunk). False for a set made
    before anchors were recorded (the caller then falls back on comparing texts)."""
    if db.execute(
        "SELECT 1 FROM chunk_anchors WHERE policy_version = ? LIMIT 1", [version]
    ).fetchone():
        return True
    return not db.execute(
        "SELECT 1 FROM chunk_rows WHERE policy_version = ? AND parent_id IS NOT NULL LIMIT 1",
        [version],
    ).fetchone()


def symbol_count(db: sqlite_utils.Database) -> int:
    """How many rows the symbol index has (0: a spec with no ids, or an empty database)."""
    return int(db.execute("SELECT count(*) FROM symbols").fetchone()[0])


def chunks_within(
    db: sqlite_utils.Database, version: str, chunk_ids: list[str], where: ChunkFilter
) -> set[str]:
    """Those of ``chunk_ids`` that are chunks of the set ``version`` and pass ``where``."""
    if not chunk_ids:
        return set()
    restrict, params = where.sql("c")
    return {
        str(row[0])
        for row in db.execute(
            "SELECT c.id FROM json_each(?) j CROSS JOIN chunk_rows c "
            f"ON c.policy_version = ? AND c.id = j.value{restrict}",  # built from constants
            [json.dumps(chunk_ids), version, *params],
        )
    }
