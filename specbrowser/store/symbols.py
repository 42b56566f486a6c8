"""The symbol index and each chunk set's anchor map: what a name or a link target resolves to.

- ``symbols``: one row per name the spec defines (:mod:`specbrowser.formats.symbols`), with its
  kind, defining section and anchor (the defining element's id, when it has one). Written with
  the sections (ingest; after the schema-8 migration, by whoever opens the database); a
  re-chunk keeps it (it depends on the document, not on a chunk set).
- each chunk set's anchor map: the element ids that lie in a *subsection* of their section (a
  chunk the breakdown extracted), held by that subsection's row (``chunk_rows.anchors``, a JSON
  list: the ids the breakdown found in the chunk's part of the section, :attr:`Chunk.anchors`).
  An id no subsection of its section holds lies in the section's root chunk; an id a subsection
  and a later one both hold (a spec that repeats an id) is the first one's. Written, copied and
  deleted with the set's rows.

Every statement is parameterized; writes happen inside the caller's transaction.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import NamedTuple

from specbrowser.model import Symbol
from specbrowser.store.queries import ChunkFilter
from specbrowser.store.rows import insert_rows, select_in
from specbrowser.store.schema import SYMBOLS_PENDING
from specbrowser.store.sqldb import SqlDatabase
from specbrowser.types import SYMBOL_KINDS

_RANK = {kind: rank for rank, kind in enumerate(SYMBOL_KINDS)}


class SymbolRow(NamedTuple):
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


_EMPTY_CALL = re.compile(r"\s*(\S.*?)\s*\(\s*\)\s*")
"""A name called with an empty argument list: ``fetch()``, ``ToNumber ( )``."""


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

    def find(self, name: str, *, limit: int = 20) -> list[SymbolRow]:
        """The definitions of ``name``, best first (kind rank, then document order): exact matches,
        or when there is none, matches in any case (casefolded). A call written with empty
        parentheses (``fetch()``, ``Array.prototype.map ( )``) then names the definitions of that
        name with any parameter list (``fetch(input, init)``, ``Array.prototype.map ( callback
        … )``), else of the bare name. [] for a name nothing defines."""
        for column, value in (("name", name), ("key", name.casefold())):
            rows = self.db.execute(
                # the column name is one of two constants
                f"SELECT name, kind, section_id, anchor FROM symbols WHERE {column} = ? "
                "ORDER BY rank, ordinal LIMIT ?",
                [value, limit],
            ).fetchall()
            if rows:
                return [SymbolRow(*row) for row in rows]
        call = _EMPTY_CALL.fullmatch(name)
        if call is None:
            return []
        bare = call.group(1).casefold()
        prefix = bare.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        rows = self.db.execute(
            "SELECT name, kind, section_id, anchor FROM symbols WHERE key LIKE ? ESCAPE '\\' "
            "OR key LIKE ? ESCAPE '\\' ORDER BY rank, ordinal LIMIT ?",
            [f"{prefix}(%", f"{prefix} (%", limit],
        ).fetchall()
        return [SymbolRow(*row) for row in rows] or self.find(bare, limit=limit)

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
        section_of: dict[str, str] = {}  # the first in corpus order where specs share an id
        for _, name, section_id in sorted(
            select_in(
                self.db,
                "SELECT ordinal, name, section_id FROM symbols WHERE kind = 'id' "
                "AND (? IS NULL OR document_id = ?) AND name IN",
                [document_id, document_id],
                wanted,
            )
        ):
            section_of.setdefault(name, section_id)
        rows = select_in(
            self.db,
            "SELECT ordinal, section_id, id, anchors FROM chunk_rows WHERE policy_version = ? "
            "AND anchors IS NOT NULL AND anchors != '[]' AND section_id IN",
            [version],
            sorted(set(section_of.values())),
        )
        held = self._held(row[1:] for row in sorted(rows))
        return {a: held.get((section_of[a], a), section_of[a]) for a in wanted if a in section_of}

    def anchor_map(self, version: str, document_id: str | None = None) -> dict[str, str]:
        """Every element id of the spec ``document_id`` (None: of every spec, the first spec's
        element where two share an id) → the chunk of the set ``version`` holding it."""
        held = self._held(
            self.db.execute(
                "SELECT section_id, id, anchors FROM chunk_rows WHERE policy_version = ? "
                "AND (? IS NULL OR document_id = ?) AND anchors IS NOT NULL AND anchors != '[]' "
                "ORDER BY ordinal",
                [version, document_id, document_id],
            ).fetchall()
        )
        found: dict[str, str] = {}
        for name, section_id in self.db.execute(
            "SELECT name, section_id FROM symbols WHERE kind = 'id' "
            "AND (? IS NULL OR document_id = ?) ORDER BY ordinal",
            [document_id, document_id],
        ):
            found.setdefault(name, held.get((section_id, name), section_id))
        return found

    @staticmethod
    def _held(rows: Iterable[tuple[str, str, str]]) -> dict[tuple[str, str], str]:
        """(section id, anchor) → the subsection holding the anchor, from ``chunk_rows`` rows of
        one set as (section id, chunk id, anchors JSON) in the set's order (by ordinal, within a
        section at least): the first where two hold it."""
        held: dict[tuple[str, str], str] = {}
        for section_id, chunk_id, anchors_json in rows:
            for anchor in json.loads(anchors_json):
                held.setdefault((section_id, anchor), chunk_id)
        return held

    def has_anchor_map(self, version: str) -> bool:
        """Whether the set ``version`` recorded where its anchors lie: every subsection row holds
        its list (no subsection at all: every anchor is in its section's root chunk). False for
        a set made before anchors were recorded (the caller then falls back on comparing
        texts)."""
        return not self.db.execute(
            "SELECT 1 FROM chunk_rows WHERE policy_version = ? AND parent_id IS NOT NULL "
            "AND anchors IS NULL LIMIT 1",
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
