"""Reading chunks: one, some, a set's, a chunk's subsections and descendants.

The :class:`ChunkReads` methods of :class:`~specbrowser.store.SpecStore`; ``policy_version``
None means the active chunk set. Every statement is parameterized.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

from specbrowser.chunking.markers import MARKER_START, marker_sizes
from specbrowser.chunking.stats import ChunkFacts
from specbrowser.errors import NotFoundError
from specbrowser.model import Chunk
from specbrowser.store.rows import select_in
from specbrowser.store.sqldb import SqlDatabase

NO_CHUNK_SET = "the database holds no chunk set (run: specbrowser ingest SPEC --db FILE)"
"""What :meth:`ChunkReads.active_version` says when the database holds no chunk set."""


def row_to_chunk(row: Sequence[Any]) -> Chunk:
    """A :class:`Chunk` from a row of :data:`CHUNK_COLUMNS`."""
    (
        chunk_id,
        section_id,
        parent_id,
        subsections,
        depth,
        layer,
        tag,
        title,
        heading_path,
        text,
        over,
        ordinal,
        section_ordinal,
        retrieval_text,
        toc_path,
        mismatch,
        lo,
        hi,
    ) = row
    return Chunk(
        id=chunk_id,
        section_id=section_id,
        parent_id=parent_id,
        depth=depth,
        layer=layer,
        breakdown_tag=tag,
        title=title,
        heading_path=json.loads(heading_path),
        text=text,
        over_threshold=over,
        subsections=json.loads(subsections),
        ordinal=ordinal,
        section_ordinal=section_ordinal or "",
        retrieval_text=retrieval_text or "",
        toc_path=json.loads(toc_path) if toc_path else None,
        mismatch=mismatch,
        holds_for=None if lo is None else (lo, hi),
    )


CHUNK_COLUMNS = (
    "id",
    "section_id",
    "parent_id",
    "subsections",
    "depth",
    "layer",
    "breakdown_tag",
    "title",
    "heading_path",
    "text",
    "over_threshold",
    "ordinal",
    "section_ordinal",
    "retrieval_text",
    "toc_path",
    "mismatch",
    "threshold_lo",
    "threshold_hi",
)
"""The ``chunks`` view's columns a :class:`Chunk` is read from, in :func:`row_to_chunk`'s order."""
_COLUMNS = ", ".join(CHUNK_COLUMNS)


class ChunkReads:
    """:class:`~specbrowser.store.SpecStore` methods reading chunks."""

    db: SqlDatabase

    def active_version(self) -> str:
        """The stored policy version (12 hex digits) of the active chunk set.

        Raises:
            NotFoundError: no chunk set exists.
        """
        row = self.db.execute("SELECT version FROM policies WHERE active = 1 LIMIT 1").fetchone()
        if row is None:
            raise NotFoundError(NO_CHUNK_SET)
        return str(row[0])

    def _version(self, policy_version: str | None) -> str:
        return policy_version or self.active_version()

    def chunk(self, chunk_id: str, policy_version: str | None = None) -> Chunk:
        """One chunk of the active (or given) chunk set.

        Raises:
            NotFoundError: no chunk with that id.
        """
        row = self.db.execute(
            f"SELECT {_COLUMNS} FROM chunks WHERE policy_version = ? AND id = ?",
            [self._version(policy_version), chunk_id],
        ).fetchone()
        if row is None:
            raise NotFoundError(f"no chunk or section with id {chunk_id!r}")
        return row_to_chunk(row)

    def chunks(self, chunk_ids: list[str], policy_version: str | None = None) -> list[Chunk]:
        """Chunks by id, in the order of ``chunk_ids``; ids that do not exist are left out."""
        rows = select_in(
            self.db,
            f"SELECT {_COLUMNS} FROM chunks WHERE policy_version = ? AND id IN",
            [self._version(policy_version)],
            chunk_ids,
        )
        found = {chunk.id: chunk for chunk in map(row_to_chunk, rows)}
        return [found[i] for i in chunk_ids if i in found]

    def chunk_titles(
        self, chunk_ids: list[str], policy_version: str | None = None
    ) -> dict[str, str]:
        """Chunk id → title for those of ``chunk_ids`` that exist and have a title; reads the
        titles only, not the texts."""
        rows = select_in(
            self.db,
            "SELECT r.id, t.title FROM chunk_rows r JOIN texts t ON t.id = r.text_id "
            "WHERE r.policy_version = ? AND t.title != '' AND r.id IN",
            [self._version(policy_version)],
            chunk_ids,
        )
        return {str(chunk_id): str(title) for chunk_id, title in rows}

    def document_chunks(self, policy_version: str | None = None) -> list[Chunk]:
        """The document (synopsis) chunk of every spec in the active (or given) chunk set, in
        corpus order."""
        rows = self.db.execute(
            f"SELECT {_COLUMNS} FROM chunks WHERE policy_version = ? AND layer = ? "
            "ORDER BY ordinal",
            [self._version(policy_version), "document"],
        ).fetchall()
        return [row_to_chunk(r) for r in rows]

    def document_chunk(self, policy_version: str | None = None) -> Chunk | None:
        """The document (synopsis) chunk of the active (or given) chunk set (of its first spec),
        or None if it has none."""
        row = self.db.execute(
            f"SELECT {_COLUMNS} FROM chunks WHERE policy_version = ? AND layer = ? "
            "ORDER BY ordinal LIMIT 1",
            [self._version(policy_version), "document"],
        ).fetchone()
        return row_to_chunk(row) if row else None

    def top_level_chunks(
        self, policy_version: str | None = None, document_id: str | None = None
    ) -> list[Chunk]:
        """The root chunks of the top-level sections, in document order (never the document
        chunk, which has no section); of one spec of the corpus with ``document_id``, else of
        every spec, in corpus order."""
        # from the few top-level sections to their root chunks (by section): left to itself,
        # the planner reads every root chunk of the set first (ECMA-262: 2,200 rows, 1.4 ms
        # against 0.2; the app's first screen asks twice)
        rows = self.db.execute(
            f"SELECT {', '.join('c.' + c for c in CHUNK_COLUMNS)} FROM sections s "
            "CROSS JOIN chunks c ON c.section_id = s.id "
            "WHERE c.policy_version = ? AND +c.parent_id IS NULL AND s.parent_id IS NULL "
            "AND (? IS NULL OR c.document_id = ?) ORDER BY s.ordinal",
            [self._version(policy_version), document_id, document_id],
        ).fetchall()
        return [row_to_chunk(r) for r in rows]

    def subsections(self, chunk: Chunk, policy_version: str | None = None) -> list[Chunk]:
        """The direct subsections of a chunk, in the order their markers appear in its text."""
        return self.chunks(chunk.subsections, policy_version)

    def descendants(self, chunk_id: str, policy_version: str | None = None) -> Iterator[Chunk]:
        """A chunk and all its descendants in pre-order.

        Raises:
            NotFoundError: no chunk with that id.
        """
        version = self._version(policy_version)
        stack = [self.chunk(chunk_id, version)]
        seen: set[str] = set()
        while stack:
            chunk = stack.pop()
            if chunk.id in seen:
                continue
            seen.add(chunk.id)
            yield chunk
            stack.extend(reversed(self.chunks(chunk.subsections, version)))

    def iter_chunks(
        self, policy_version: str | None = None, document_id: str | None = None
    ) -> Iterator[Chunk]:
        """Every chunk of the active (or given) chunk set, of one spec (``document_id``) or of
        all, in chunk ordinal order (spec by spec, :mod:`specbrowser.store.corpus`)."""
        if document_id is None:
            rows = self.db.execute(
                f"SELECT {_COLUMNS} FROM chunks WHERE policy_version = ? ORDER BY ordinal",
                [self._version(policy_version)],
            )
        else:
            rows = self.db.execute(
                f"SELECT {_COLUMNS} FROM chunks WHERE policy_version = ? AND document_id = ? "
                "ORDER BY ordinal",
                [self._version(policy_version), document_id],
            )
        for row in rows:
            yield row_to_chunk(row)

    def chunk_facts(self, policy_version: str, document_id: str | None = None) -> list[ChunkFacts]:
        """What :func:`specbrowser.chunking.stats.compute_stats` counts of every chunk of the set
        ``policy_version`` (of one spec with ``document_id``), read from the rows without making
        :class:`Chunk` objects (no heading or TOC paths, no retrieval texts): recounting a
        corpus's set after an ingest, and its per-spec counts, read only this."""
        spec = "" if document_id is None else " AND r.document_id = ?"
        facts: list[ChunkFacts] = []
        for row in self.db.execute(
            "SELECT r.id, r.parent_id, r.depth, r.layer, r.breakdown_tag, r.over_threshold, "
            "t.size, s.mismatch, r.subsections, r.ordinal, "
            "CASE WHEN instr(t.text, ?) THEN t.text ELSE '' END FROM chunk_rows r "
            "JOIN texts t ON t.id = r.text_id LEFT JOIN sections s ON s.id = r.section_id "
            "WHERE r.policy_version = ?" + spec,
            [MARKER_START, policy_version] + ([] if document_id is None else [document_id]),
        ):  # id … mismatch: ChunkFacts' first eight; a text without a marker is not read out
            subsections, ordinal, text = row[8:]
            sizes = marker_sizes(text)
            targets = [target for target, _ in sizes]
            listed = json.loads(subsections) if subsections != "[]" else []
            facts.append(ChunkFacts._make([*row[:8], targets, listed, ordinal, sizes]))
        return facts

    def rows_digests(self, policy_version: str) -> dict[str, str]:
        """Document id → a digest of that spec's chunk rows in the set ``policy_version``
        (how many, their ordinals and texts, their over-threshold flags, and its sections'
        heading mismatches): what a :class:`~specbrowser.chunking.stats.StatsPart` was counted
        from, so a stored part whose digest still matches counts the same chunks."""
        mismatched = dict(
            self.db.execute(
                "SELECT document_id, count(*) || ':' || group_concat(mismatch) FROM sections "
                "WHERE mismatch IS NOT NULL GROUP BY document_id"
            ).fetchall()
        )
        return {
            str(document_id): f"{count}:{ordinals}:{texts}:{over}:{mismatched.get(document_id, '')}"
            for document_id, count, ordinals, texts, over in self.db.execute(
                "SELECT document_id, count(*), total(ordinal), total(text_id), "
                "count(over_threshold) FROM chunk_rows WHERE policy_version = ? "
                "GROUP BY document_id",
                [policy_version],
            )
        }

    def next_over_threshold(
        self, after_ordinal: int, policy_version: str | None = None
    ) -> Chunk | None:
        """The first chunk over the threshold whose ordinal is greater than ``after_ordinal``.

        Pass -1 to start from the beginning; None when there is no such chunk (callers wrap
        around).
        """
        row = self.db.execute(
            f"SELECT {_COLUMNS} FROM chunks WHERE policy_version = ? AND ordinal > ? "
            "AND over_threshold IS NOT NULL ORDER BY ordinal LIMIT 1",
            [self._version(policy_version), after_ordinal],
        ).fetchone()
        return row_to_chunk(row) if row else None
