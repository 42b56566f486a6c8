"""Reads of chunk sets, sections and policies that the session layer and search build on:
filter matches, the rows a diff compares, what an export adds to each chunk, policy settings
and stats, full-text search. Every statement is parameterized; nothing here writes.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from specbrowser.store.rows import select_in
from specbrowser.store.schema import set_fts_table
from specbrowser.store.sqldb import SqlDatabase
from specbrowser.types import OverrunReason

"""The FTS5 index over every stored text (``texts``: each distinct text once, whatever the sets
sharing it); a hit becomes the chunks of the searched set that have the text."""


class ChunkBrief(NamedTuple):
    """What the diff keeps of a chunk (no text): enough for labels and the side-by-side trees.

    Attributes:
        id: the chunk id.
        section_id: its section (None for the document chunk).
        parent_id: the chunk it was extracted from; None for a section's root chunk.
        subsections: ids of the chunks whose markers its text holds, in text order.
        depth: 0 for a root chunk.
        breakdown_tag: the tag that extracted it; None for a root chunk.
        title: its title ("" when it has none).
        size: its text's length in characters.
        over_threshold: None, or why it stayed over the threshold (``unsplittable``, ``max_depth``).
        ordinal: its position in its chunk set (pre-order).
    """

    id: str
    section_id: str | None
    parent_id: str | None
    subsections: tuple[str, ...]
    depth: int
    breakdown_tag: str | None
    title: str
    size: int
    over_threshold: OverrunReason | None
    ordinal: int


_BRIEF_COLUMNS = (
    "id, section_id, parent_id, subsections, depth, breakdown_tag, title, "
    "size, over_threshold, ordinal"
)


def _brief(row: Sequence[Any]) -> ChunkBrief:
    (chunk_id, section_id, parent_id, subsections, depth, tag, title, size, over, ordinal) = row
    return ChunkBrief(
        id=chunk_id,
        section_id=section_id,
        parent_id=parent_id,
        subsections=tuple(json.loads(subsections or "[]")),
        depth=depth,
        breakdown_tag=tag,
        title=title or "",
        size=size or 0,
        over_threshold=over,
        ordinal=ordinal,
    )


class ChunkSize(NamedTuple):
    """What a chunk set comparison counts of a chunk (:meth:`SetQueries.chunk_sizes`)."""

    id: str
    section_id: str | None
    size: int
    over_threshold: OverrunReason | None


@dataclass(frozen=True)
class ChunkFilter:
    """Optional restrictions of a chunk query; each one narrows the chunks, in SQL.

    Attributes:
        section: a section id: only chunks of that section and of its descendant sections.
        layer: only chunks of this layer (:data:`specbrowser.model.LAYERS`).
        over_threshold: only chunks still over the threshold (any reason).
        document_id: only chunks of this spec of the corpus.
    """

    section: str | None = None
    layer: str | None = None
    over_threshold: bool = False
    document_id: str | None = None

    def sql(self, alias: str = "c") -> tuple[str, list[object]]:
        """``(" AND …", params)`` restricting the chunk row ``alias``; ("", []) for no filter."""
        parts: list[str] = []
        params: list[object] = []
        if self.section:
            parts.append(
                f"{alias}.section_id IN (WITH RECURSIVE subtree(id) AS (SELECT ? UNION "
                "ALL SELECT s.id FROM sections s JOIN subtree ON s.parent_id = subtree.id) "
                "SELECT id FROM subtree)"
            )
            params.append(self.section)
        if self.layer:
            parts.append(f"{alias}.layer = ?")
            params.append(self.layer)
        if self.over_threshold:
            parts.append(f"{alias}.over_threshold IS NOT NULL")
        if self.document_id:
            parts.append(f"{alias}.document_id = ?")
            params.append(self.document_id)
        return "".join(f" AND {part}" for part in parts), params

    def __bool__(self) -> bool:
        return bool(self.section or self.layer or self.over_threshold or self.document_id)


FILTER_TEXTS_FACTOR = 8
"""A filtered full-text search first ranks this many texts per hit asked for, and filters
their chunks; only when too few pass does it rank every match (:meth:`SetQueries.fts_search`)."""


class FtsRow(NamedTuple):
    """One full-text match: a chunk of the searched set and how well it matched.

    Attributes:
        chunk_id, section_id, title: which chunk.
        heading_path: its heading path as stored (JSON list text).
        toc_path: its TOC path (JSON list text), or None.
        rank: FTS5's BM25 rank (lower is better).
        snippet: the highlighted snippet of the matching body.
    """

    chunk_id: str
    section_id: str | None
    title: str
    heading_path: str
    toc_path: str | None
    rank: float
    snippet: str


class _FtsSearch(NamedTuple):
    """One full-text search of :meth:`SetQueries.fts_search`: the set's index ``table``, the
    FTS5 ``query``, the set's ``version``, the column ``weights``, the ``highlight`` marks and
    a filter's SQL (``restrict``, :meth:`ChunkFilter.sql`) with its ``params``."""

    table: str
    query: str
    version: str
    weights: tuple[float, float, float, float]
    highlight: tuple[str, str]
    restrict: str
    params: list[object]


class SetQueries:
    """:class:`~specbrowser.store.SpecStore` methods reading a chunk set's chunks: counts, ids,
    texts, briefs, sizes and full-text search."""

    db: SqlDatabase

    # --- chunks ------------------------------------------------------------------------------

    def chunk_count(self, policy_version: str | None = None) -> int:
        """How many chunks a set has; of every stored set together when ``policy_version`` is
        None."""
        if policy_version is None:
            return int(self.db.execute("SELECT count(*) FROM chunk_rows").fetchone()[0])
        return int(
            self.db.execute(
                "SELECT count(*) FROM chunk_rows WHERE policy_version = ?", [policy_version]
            ).fetchone()[0]
        )

    def mismatched_root_ids(self, policy_version: str) -> list[str]:
        """Root chunk ids (equal to their section ids) of the sections whose parser heading
        path and TOC path disagree, in document order (subsections, which carry their
        section's mismatch, are left out)."""
        rows = self.db.execute(
            "SELECT id FROM chunks WHERE policy_version = ? AND parent_id IS NULL "
            "AND section_id IS NOT NULL AND mismatch IS NOT NULL ORDER BY ordinal",
            [policy_version],
        )
        return [row[0] for row in rows]

    def over_threshold_ids(self, policy_version: str) -> list[str]:
        """Ids of the chunks that stayed over the threshold (any reason), in ordinal order."""
        rows = self.db.execute(
            "SELECT id FROM chunk_rows WHERE policy_version = ? AND over_threshold IS NOT NULL "
            "ORDER BY ordinal",
            [policy_version],
        )
        return [row[0] for row in rows]

    def chunk_texts(self, policy_version: str) -> list[tuple[str, str | None, str]]:
        """``(id, parent id, text)`` of every chunk of a set, in ordinal order."""
        rows = self.db.execute(
            "SELECT r.id, r.parent_id, t.text FROM chunk_rows r JOIN texts t ON t.id = r.text_id "
            "WHERE r.policy_version = ? ORDER BY r.ordinal",
            [policy_version],
        )
        return [(chunk_id, parent_id, text or "") for chunk_id, parent_id, text in rows]

    def chunk_briefs(self, policy_version: str, section_id: str | None = None) -> list[ChunkBrief]:
        """A set's chunks without their text, in ordinal order: all, or one section's (its
        root chunk first; child sections' chunks are not included)."""
        sql = f"SELECT {_BRIEF_COLUMNS} FROM chunks WHERE policy_version = ?"
        params: list[object] = [policy_version]
        if section_id is not None:
            sql += " AND section_id = ?"
            params.append(section_id)
        return [_brief(row) for row in self.db.execute(sql + " ORDER BY ordinal", params)]

    def chunk_sizes(self, policy_version: str) -> list[ChunkSize]:
        """A set's chunks as :class:`ChunkSize` rows, in ordinal order: what a comparison of
        two sets counts, read from the rows and texts alone (no view, no JSON: a third of
        :meth:`chunk_briefs`' time on ECMA-262)."""
        return [
            ChunkSize(*row)
            for row in self.db.execute(
                "SELECT r.id, r.section_id, coalesce(t.size, 0), r.over_threshold "
                "FROM chunk_rows r JOIN texts t ON t.id = r.text_id "
                "WHERE r.policy_version = ? ORDER BY r.ordinal",
                [policy_version],
            )
        ]

    def text_changed_ids(self, version_a: str, version_b: str) -> set[str]:
        """Ids of the chunks in both sets whose text differs (compared in SQLite, where the
        texts stay: two chunks with one stored text are equal without reading it)."""
        return {
            row[0]
            for row in self.db.execute(
                "SELECT a.id FROM chunk_rows a "
                "JOIN chunk_rows b ON b.policy_version = ? AND b.id = a.id "
                "JOIN texts ta ON ta.id = a.text_id JOIN texts tb ON tb.id = b.text_id "
                "WHERE a.policy_version = ? AND a.text_id != b.text_id AND ta.text IS NOT tb.text",
                [version_b, version_a],
            )
        }

    def fts_search(
        self,
        query: str,
        policy_version: str,
        limit: int,
        *,
        weights: tuple[float, float, float, float],
        highlight: tuple[str, str],
        where: ChunkFilter | None = None,
    ) -> list[FtsRow]:
        """The set's chunks whose text matches the FTS5 ``query``, best first (BM25 with column
        ``weights`` for :data:`~specbrowser.store.schema.FTS_COLUMNS`, statistics of this set only:
        its own index, :func:`specbrowser.store.schema.build_set_fts`), at most ``limit`` (at least
        1); each with a snippet of up to 16 tokens of the body, matches between the ``highlight``
        marks.

        Raises:
            sqlite3.Error (the driver's): ``query`` is not valid FTS5 syntax.
        """
        restrict, params = where.sql("c") if where else ("", [])
        search = _FtsSearch(
            set_fts_table(policy_version),
            query,
            policy_version,
            weights,
            highlight,
            restrict,
            params,
        )
        if not restrict:
            return self._fts_ranked(search, limit)
        # a filter: the best texts first, and the whole join only when too few of their chunks
        # pass it (any chunk that passes beyond them ranks below every one found)
        found = self._fts_ranked(search, FILTER_TEXTS_FACTOR * max(1, limit), cut=False)
        if len(found) >= max(1, limit):
            return found[: max(1, limit)]
        return self._fts_joined(search, limit)

    def _fts_joined(self, search: _FtsSearch, limit: int) -> list[FtsRow]:
        """:meth:`fts_search` as one join of the index with the ``chunks`` view: SQLite ranks
        and snips every match before the limit."""
        fts = search.table
        rows = self.db.execute(
            f"SELECT c.id, c.section_id, c.title, c.heading_path, c.toc_path, "
            f"bm25({fts}, ?, ?, ?, ?) AS rank, "
            f"snippet({fts}, 2, ?, ?, '…', 16) "
            f"FROM {fts} JOIN chunks c ON c.text_id = {fts}.rowid "
            f"WHERE {fts} MATCH ? AND c.policy_version = ?{search.restrict} "
            "ORDER BY rank LIMIT ?",
            [
                *search.weights,
                *search.highlight,
                search.query,
                search.version,
                *search.params,
                max(1, limit),
            ],
        ).fetchall()
        return [FtsRow(*row) for row in rows]

    def _fts_ranked(self, search: _FtsSearch, limit: int, *, cut: bool = True) -> list[FtsRow]:
        """:meth:`fts_search`'s ranking by FTS5 itself: it ranks its own rows (``rank MATCH``
        with the weights), stops after ``limit`` texts and makes snippets of those only, where a
        join with the ``chunks`` view sorts and snips every match (p50 of 511 queries at limit
        50 on ECMA-262: 6.2 ms against 10.1 ms, the same hits). Then each text's chunks of the
        set, in id order, narrowed by the search's filter; a text two chunks share gives both, so
        the first ``limit`` chunks are the same. ``cut`` False keeps every chunk of the
        ``limit`` texts."""
        fts = search.table
        ranking = "bm25(" + ", ".join(repr(float(w)) for w in search.weights) + ")"
        texts = self.db.execute(
            f"SELECT rowid, rank, snippet({fts}, 2, ?, ?, '…', 16) FROM {fts} "
            f"WHERE {fts} MATCH ? AND rank MATCH ? ORDER BY rank LIMIT ?",
            [*search.highlight, search.query, ranking, max(1, limit)],
        ).fetchall()
        chunks: dict[int, list[tuple]] = {}
        for row in select_in(
            self.db,
            "SELECT text_id, id, section_id, title, heading_path, toc_path FROM chunks c "
            f"WHERE policy_version = ?{search.restrict} AND text_id IN",  # restrict: our SQL
            [search.version, *search.params],
            [str(text_id) for text_id, _, _ in texts],
        ):
            chunks.setdefault(int(row[0]), []).append(row)
        found = [
            FtsRow(chunk_id, section_id, title, heading_path, toc_path, rank, snippet)
            for text_id, rank, snippet in texts
            for _, chunk_id, section_id, title, heading_path, toc_path in sorted(
                chunks.get(int(text_id), []), key=lambda row: row[1]
            )
        ]
        return found[: max(1, limit)] if cut else found
