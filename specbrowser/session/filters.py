"""What the browser's tree filters keep: the chunks that match, and the tree ancestors needed to
reach them.

Four filters: *mismatched sections* (root chunks whose parser heading path and TOC path
disagree, see :mod:`specbrowser.chunking.toc_paths`), *over-threshold chunks* (any chunk that
stayed over the size threshold), *tiny chunks* and *mostly-marker chunks* (as the chunk set's
statistics count them: :func:`specbrowser.chunking.stats.is_tiny`,
:func:`specbrowser.chunking.stats.is_mostly_markers`). Part of the pure core: reads the
database through the store, never imports Textual. The tree shape is the browser's: a chunk's
children are its ``subsections``, in order (see :mod:`specbrowser.store.tree`).
"""

from __future__ import annotations

from typing import NamedTuple

from specbrowser.chunking.markers import size_without_markers
from specbrowser.chunking.stats import is_mostly_markers, is_tiny
from specbrowser.store import SpecStore
from specbrowser.types import FILTER_KINDS, FilterKind

MISMATCHED: FilterKind = "mismatched"
"""Filter kind: sections whose root chunk has a heading mismatch."""

OVER_THRESHOLD: FilterKind = "over_threshold"
"""Filter kind: chunks that stayed over the threshold."""

TINY: FilterKind = "tiny"
"""Filter kind: chunks the breakdown made with little text of their own."""

MARKER_HEAVY: FilterKind = "marker_heavy"
"""Filter kind: chunks that are mostly markers."""


def mismatched_section_ids(db: SpecStore, policy_version: str) -> list[str]:
    """Root chunk ids (equal to their section ids) of the sections whose parser heading path and
    TOC path disagree, in document order. Subsections carry their section's mismatch; they are
    left out, so each mismatched section counts once."""
    return db.mismatched_root_ids(policy_version)


def over_threshold_chunk_ids(db: SpecStore, policy_version: str) -> list[str]:
    """Ids of the chunks that stayed over the threshold (any reason), in chunk ordinal order."""
    return db.over_threshold_ids(policy_version)


def quality_chunk_ids(db: SpecStore, kind: FilterKind, policy_version: str) -> list[str]:
    """Ids of the tiny (``kind`` :data:`TINY`) or the mostly-marker (:data:`MARKER_HEAVY`)
    chunks, in chunk ordinal order. Reads every chunk's text once."""
    found: list[str] = []
    for chunk_id, parent_id, text in db.chunk_texts(policy_version):
        bare = size_without_markers(text)
        if is_tiny(parent_id, bare) if kind == TINY else is_mostly_markers(len(text), bare):
            found.append(chunk_id)
    return found


class FilteredTree(NamedTuple):
    """What a filter shows.

    Attributes:
        kind: the filter kind (:data:`specbrowser.types.FILTER_KINDS`).
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

    Reads every chunk's id, parent and subsection list once (no text; the tiny and mostly-marker
    filters read the texts too), so it stays fast on ECMA-262's ~3 750 chunks.

    Raises:
        ValueError: ``kind`` is not one of :data:`specbrowser.types.FILTER_KINDS`.
    """
    if kind == MISMATCHED:
        matches = mismatched_section_ids(db, policy_version)
    elif kind == OVER_THRESHOLD:
        matches = over_threshold_chunk_ids(db, policy_version)
    elif kind in (TINY, MARKER_HEAVY):
        matches = quality_chunk_ids(db, kind, policy_version)
    else:
        raise ValueError(f"unknown filter {kind!r}; expected one of {', '.join(FILTER_KINDS)}")
    tree = db.tree_parents(policy_version)
    parents, order = tree.parents, tree.order
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
