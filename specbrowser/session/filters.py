"""What the browser's tree filters keep: the chunks that match, and the tree ancestors needed to
reach them.

Two filters: *mismatched sections* (root chunks whose parser heading path and TOC path disagree,
see :mod:`specbrowser.chunking.toc_paths`) and *over-threshold chunks* (any chunk that stayed
over the size threshold). Part of the pure core: reads the database through parameterized
queries, never imports Textual. The tree shape is the browser's: a chunk's children are its
``subsections``, in order (see :func:`specbrowser.store.tree_parent_id`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from specbrowser.store import SpecStore
from specbrowser.types import FILTER_KINDS, FilterKind

MISMATCHED: FilterKind = "mismatched"
"""Filter kind: sections whose root chunk has a heading mismatch."""

OVER_THRESHOLD: FilterKind = "over_threshold"
"""Filter kind: chunks that stayed over the threshold."""


def mismatched_section_ids(db: SpecStore, policy_version: str) -> list[str]:
    """Root chunk ids (equal to their section ids) of the sections whose parser heading path and
    TOC path disagree, in document order. Subsections carry their section's mismatch; they are
    left out, so each mismatched section counts once."""
    rows = db.db.execute(
        "SELECT id FROM chunks WHERE policy_version = ? AND parent_id IS NULL "
        "AND section_id IS NOT NULL AND mismatch IS NOT NULL ORDER BY ordinal",
        [policy_version],
    )
    return [row[0] for row in rows]


def over_threshold_chunk_ids(db: SpecStore, policy_version: str) -> list[str]:
    """Ids of the chunks that stayed over the threshold (any reason), in chunk ordinal order."""
    rows = db.db.execute(
        "SELECT id FROM chunks WHERE policy_version = ? AND over_threshold IS NOT NULL "
        "ORDER BY ordinal",
        [policy_version],
    )
    return [row[0] for row in rows]


@dataclass(frozen=True)
class FilteredTree:
    """What a filter shows.

    Attributes:
        kind: the filter kind (:data:`MISMATCHED` or :data:`OVER_THRESHOLD`).
        matches: the matching chunk ids, in chunk ordinal order.
        children: for each shown parent (None: the tree's top level), its shown children in
            tree order; every shown chunk appears exactly once, under its tree parent.
    """

    kind: FilterKind
    matches: list[str]
    children: dict[str | None, list[str]]

    @property
    def shown(self) -> set[str]:
        """Every chunk the filtered tree shows: the matches and their tree ancestors."""
        return {chunk_id for ids in self.children.values() for chunk_id in ids}


def filtered_tree(db: SpecStore, kind: FilterKind, policy_version: str) -> FilteredTree:
    """The matches of filter ``kind`` in chunk set ``policy_version``, with the ancestors that
    connect them to the top level, arranged as the browser's tree arranges them.

    Reads every chunk's id, parent and subsection list once (no text), so it stays fast on
    ECMA-262's ~3 750 chunks.

    Raises:
        ValueError: ``kind`` is not one of :data:`specbrowser.types.FILTER_KINDS`.
    """
    if kind == MISMATCHED:
        matches = mismatched_section_ids(db, policy_version)
    elif kind == OVER_THRESHOLD:
        matches = over_threshold_chunk_ids(db, policy_version)
    else:
        raise ValueError(f"unknown filter {kind!r}; expected one of {', '.join(FILTER_KINDS)}")
    parents, order = _tree_parents(db, policy_version)
    shown: set[str] = set()
    for chunk_id in matches:
        current: str | None = chunk_id
        while current is not None and current not in shown:
            shown.add(current)
            current = parents.get(current)
    children: dict[str | None, list[str]] = {}
    for chunk_id in sorted(shown, key=lambda c: order.get(c, (2, 0, 0))):
        children.setdefault(parents.get(chunk_id), []).append(chunk_id)
    return FilteredTree(kind, matches, children)


def _tree_parents(
    db: SpecStore, policy_version: str
) -> tuple[dict[str, str], dict[str, tuple[int, int, int]]]:
    """Each chunk's tree parent (as :func:`specbrowser.store.tree_parent_id` gives it, for the
    whole set at once), and a sort key per chunk: siblings in their parent's subsection order.

    A subsection's parent is its ``parent_id``; a section's root chunk sits under the first chunk
    (by ordinal) of the enclosing section that lists it, else under that section's root chunk.
    """
    section_parent = dict(db.db.execute("SELECT id, parent_id FROM sections").fetchall())
    rows = db.db.execute(
        "SELECT id, section_id, parent_id, subsections, ordinal FROM chunk_rows "  # no text needed
        "WHERE policy_version = ? ORDER BY ordinal",
        [policy_version],
    ).fetchall()
    listed_by: dict[str, list[tuple[str, str | None, int]]] = {}
    for chunk_id, section_id, _parent, subsections, _ordinal in rows:
        for index, child in enumerate(json.loads(subsections or "[]")):
            listed_by.setdefault(child, []).append((chunk_id, section_id, index))
    parents: dict[str, str] = {}
    order: dict[str, tuple[int, int, int]] = {}
    for chunk_id, section_id, parent_id, _subsections, ordinal in rows:
        listing = listed_by.get(chunk_id, [])
        position: int | None
        if parent_id is not None:
            parents[chunk_id] = parent_id
            position = next((p for c, _s, p in listing if c == parent_id), None)
        elif section_id is not None and section_parent.get(section_id) is not None:
            enclosing = section_parent[section_id]
            holder = next(((c, p) for c, s, p in listing if s == enclosing), None)
            parents[chunk_id] = holder[0] if holder else enclosing
            position = holder[1] if holder else None
        else:
            position = ordinal  # the top level: the document chunk, then sections in order
        # listed children in their parent's order; any unlisted one after them, by ordinal
        order[chunk_id] = (0, position, ordinal) if position is not None else (1, ordinal, ordinal)
    return parents, order
