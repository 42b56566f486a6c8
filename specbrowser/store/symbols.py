"""The symbol index and each chunk set's anchor map: what a name or a link target resolves to.

- ``symbols``: one row per name the spec defines (:mod:`specbrowser.formats.symbols`), with its
  kind, defining section and anchor (the defining element's id, when it has one). Written with
  the sections (ingest; after the schema-8 migration, by whoever opens the database); a
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

from specbrowser.model import Chunk, Symbol
from specbrowser.store.queries import ChunkFilter
from specbrowser.store.rows import insert_rows, select_in
from specbrowser.store.schema import SYMBOLS_PENDING
from specbrowser.store.sqldb import SqlDatabase
from specbrowser.types import SYMBOL_KINDS

_RANK = {kind: rank for rank, kind in enumerate(SYMBOL_KINDS)}


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


class SymbolIndex:
    """The symbol index and the chunk sets' anchor maps of one database (``store.symbols``).

    Every statement is parameterized; writes happen inside the caller's transaction.
    """

    def __init__(self, db: SqlDatabase) -> None:
        self.db = db

    def pending(self) -> bool:
        """Whether the index still has to be read from the stored sections (a database
        upgraded from schema 7: :data:`~specbrowser.store.schema.SYMBOLS_PENDING`)."""
        return bool(
            self.db.execute("SELECT 1 FROM meta WHERE key = ?", [SYMBOLS_PENDING]).fetchone()
        )

    def replace(
        self, symbols: Iterable[Symbol], document_id: str | None = None, ordinal_base: int = 0
    ) -> int:
        """Replace the symbol index of the spec ``document_id`` (None: the whole index) by
        ``symbols`` (document order, numbered from ``ordinal_base``); returns the row count."""
        if document_id is None:
            self.db.execute("DELETE FROM symbols")
        else:
            self.db.execute("DELETE FROM symbols WHERE document_id = ?", [document_id])
        rows: list[dict[str, object]] = [
            {
                "name": s.name,
                "key": s.name.casefold(),
                "kind": s.kind,
                "rank": _RANK[s.kind],
                "section_id": s.section_id,
                "anchor": s.anchor,
                "ordinal": ordinal_base + ordinal,
                "document_id": document_id,
            }
            for ordinal, s in enumerate(symbols)
        ]
        insert_rows(self.db, "symbols", rows)
        self.db.execute("DELETE FROM meta WHERE key = ?", [SYMBOLS_PENDING])
        return len(rows)

    def add_chunk_anchors(
        self, version: str, chunks: Sequence[Chunk], document_id: str | None = None
    ) -> None:
        """Record where the anchors of the spec ``document_id`` lie in the set ``version``: each
        id a subsection's part of its section holds (:attr:`Chunk.anchors` of chunks with a
        parent). An id held twice (a spec that repeats an id) keeps its first chunk."""
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
                            "document_id": document_id or "",
                            "anchor": anchor,
                            "section_id": chunk.section_id,
                            "chunk_id": chunk.id,
                        }
                    )
        insert_rows(self.db, "chunk_anchors", rows)

    def copy_chunk_anchors(self, version: str, source: str, sections: list[str]):
        """Copy the anchor rows of ``sections`` from the set ``source`` into the set ``version``
        (the chunk trees a re-chunk copies keep their ids, so their anchors lie where they did).

        The sections are an ``IN`` list, not a join: joined, SQLite searched the source set's rows
        once per section (0.67 s for ECMA-262's 2,254 against 6 ms)."""
        self.db.execute(
            "INSERT OR IGNORE INTO chunk_anchors "
            "(policy_version, document_id, anchor, section_id, chunk_id) "
            "SELECT ?, a.document_id, a.anchor, a.section_id, a.chunk_id FROM chunk_anchors a "
            "WHERE a.policy_version = ? AND a.section_id IN (SELECT value FROM json_each(?))",
            [version, source, json.dumps(sections)],
        )

    def delete_chunk_anchors(
        self, version: str | None = None, document_id: str | None = None
    ) -> None:
        """Delete the anchor rows of the set ``version`` (None: of every set), of the spec
        ``document_id`` (None: of every spec)."""
        self.db.execute(
            "DELETE FROM chunk_anchors WHERE (? IS NULL OR policy_version = ?) "
            "AND (? IS NULL OR document_id = ?)",
            [version, version, document_id, document_id],
        )

    def find(self, name: str, *, limit: int = 20) -> list[SymbolRow]:
        """The definitions of ``name``, best first (kind rank, then document order): exact matches,
        or when there is none, matches in any case (casefolded). [] for a name nothing defines."""
        for column, value in (("name", name), ("key", name.casefold())):
            rows = self.db.execute(
                # the column name is one of two constants
                f"SELECT name, kind, section_id, anchor FROM symbols WHERE {column} = ? "
                "ORDER BY rank, ordinal LIMIT ?",
                [value, limit],
            ).fetchall()
            if rows:
                return [SymbolRow(*row) for row in rows]
        return []

    def anchor_section(self, anchor: str, document_id: str | None = None) -> str | None:
        """The section whose own HTML holds an element with the id ``anchor`` (the first in
        document order when the spec repeats an id), in the spec ``document_id`` (None: in
        any, the first spec's first), or None."""
        row = self.db.execute(
            "SELECT section_id FROM symbols WHERE name = ? AND kind = 'id' "
            "AND (? IS NULL OR document_id = ?) ORDER BY ordinal LIMIT 1",
            [anchor, document_id, document_id],
        ).fetchone()
        return str(row[0]) if row else None

    def anchor_specs(self, anchor: str) -> list[str]:
        """The ids of the specs (documents) with an element whose id is ``anchor``, in corpus
        order (the order their ingests added them)."""
        rows = self.db.execute(
            "SELECT DISTINCT s.document_id FROM symbols s JOIN documents d ON d.id = s.document_id "
            "WHERE s.name = ? AND s.kind = 'id' ORDER BY d.position",
            [anchor],
        ).fetchall()
        return [str(row[0]) for row in rows]

    def anchor_chunks(
        self, version: str, anchors: list[str], document_id: str | None = None
    ) -> dict[str, str]:
        """Anchor → chunk id of the set ``version`` for each of ``anchors`` that is an element id
        of the spec ``document_id`` (None: of any spec, the first in corpus order): the
        subsection that holds it, else its section's root chunk. Anchors the spec does not hold
        are left out."""
        if not anchors:
            return {}
        wanted = list(dict.fromkeys(anchors))
        sections: dict[str, tuple[int, str, str]] = {}
        for name, section_id, ordinal, owner in select_in(
            self.db,
            "SELECT name, section_id, ordinal, document_id FROM symbols WHERE kind = 'id' "
            "AND (? IS NULL OR document_id = ?) AND name IN",
            [document_id, document_id],
            wanted,
        ):
            if name not in sections or ordinal < sections[name][0]:
                sections[name] = (ordinal, section_id, owner or "")
        held = {
            (anchor, owner): chunk_id
            for anchor, owner, chunk_id in select_in(
                self.db,
                "SELECT anchor, document_id, chunk_id FROM chunk_anchors "
                "WHERE policy_version = ? AND anchor IN",
                [version],
                wanted,
            )
        }
        return {a: held.get((a, sections[a][2]), sections[a][1]) for a in wanted if a in sections}

    def anchor_map(self, version: str, document_id: str | None = None) -> dict[str, str]:
        """Every element id of the spec ``document_id`` (None: of every spec, the first spec's
        element where two share an id) → the chunk of the set ``version`` holding it."""
        held = dict(
            self.db.execute(
                "SELECT anchor, chunk_id FROM chunk_anchors WHERE policy_version = ? "
                "AND (? IS NULL OR document_id = ?) ORDER BY (SELECT d.position FROM "
                "documents d WHERE d.id = chunk_anchors.document_id) DESC",  # the first wins
                [version, document_id, document_id],
            ).fetchall()
        )
        found: dict[str, str] = {}
        for name, section_id in self.db.execute(
            "SELECT name, section_id FROM symbols WHERE kind = 'id' "
            "AND (? IS NULL OR document_id = ?) ORDER BY ordinal",
            [document_id, document_id],
        ):
            found.setdefault(name, held.get(name, section_id))
        return found

    def has_anchor_map(self, version: str) -> bool:
        """Whether the set ``version`` recorded where its anchors lie: it has anchor rows, or no
        subsection at all (every anchor is then in its section's root chunk). False for a set made
        before anchors were recorded (the caller then falls back on comparing texts)."""
        if self.db.execute(
            "SELECT 1 FROM chunk_anchors WHERE policy_version = ? LIMIT 1", [version]
        ).fetchone():
            return True
        return not self.db.execute(
            "SELECT 1 FROM chunk_rows WHERE policy_version = ? AND parent_id IS NOT NULL LIMIT 1",
            [version],
        ).fetchone()

    def count(self) -> int:
        """How many rows the symbol index has (0: a spec with no ids, or an empty database)."""
        return int(self.db.execute("SELECT count(*) FROM symbols").fetchone()[0])

    def chunks_within(self, version: str, chunk_ids: list[str], where: ChunkFilter) -> set[str]:
        """Those of ``chunk_ids`` that are chunks of the set ``version`` and pass ``where``."""
        if not chunk_ids:
            return set()
        restrict, params = where.sql("c")
        return {
            str(row[0])
            for row in self.db.execute(
                "SELECT c.id FROM json_each(?) j CROSS JOIN chunk_rows c "
                f"ON c.policy_version = ? AND c.id = j.value{restrict}",  # built from constants
                [json.dumps(chunk_ids), version, *params],
            )
        }
