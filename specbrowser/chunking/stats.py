"""Chunk-set statistics shared by ``ingest``, ``rechunk``, ``stats`` and the app header."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import NamedTuple

from specbrowser.chunking.markers import marker_ids
from specbrowser.model import Chunk
from specbrowser.types import Layer, MismatchKind, OverrunReason


class ChunkFacts(NamedTuple):
    """What the statistics count of one chunk (a :class:`Chunk`, or a stored row a re-chunk
    copies: :func:`specbrowser.store.reuse.stored_facts`). Sizes in characters.

    ``targets`` are the ids of the markers in the chunk's text, ``subsections`` the ids the chunk
    names; ``ordinal`` is its place in the set (the counts list ties in that order).
    """

    id: str
    parent_id: str | None
    depth: int
    layer: Layer
    breakdown_tag: str | None
    over_threshold: OverrunReason | None
    size: int
    mismatch: MismatchKind | None
    targets: list[str]
    subsections: list[str]
    ordinal: int


def chunk_facts(chunk: Chunk) -> ChunkFacts:
    """The :class:`ChunkFacts` of a chunk (its markers read from its text)."""
    return ChunkFacts(
        chunk.id,
        chunk.parent_id,
        chunk.depth,
        chunk.layer,
        chunk.breakdown_tag,
        chunk.over_threshold,
        chunk.size,
        chunk.mismatch,
        marker_ids(chunk.text),
        chunk.subsections,
        chunk.ordinal,
    )


def compute_stats(
    chunks: list[Chunk], section_count: int, stored: Iterable[ChunkFacts] = ()
) -> dict[str, object]:
    """Counts over one chunk set: ``chunks`` plus, for a re-chunk that copies stored chunk
    trees, their ``stored`` facts. Sizes are in characters.

    Returns a JSON-ready dict: ``sections``, ``chunks`` (the document chunk included),
    ``by_depth``, ``by_layer``, ``by_tag`` (a chunk no tag made counts as ``(<layer>)``), ``sizes``
    (min, median, p90, max, mean), ``over_threshold`` (count per reason), ``largest`` (id and
    size), ``unresolved_markers`` (markers naming no chunk; should be 0) and
    ``marker_mismatches`` (chunks whose markers differ from their stored subsections; should be 0)
    and ``heading_mismatches`` (sections whose parser and TOC heading paths disagree, by kind).
    """
    facts = [*map(chunk_facts, chunks), *stored]
    facts.sort(key=lambda f: f.ordinal)  # counts list ties in set order, however facts came
    ids = {f.id for f in facts}
    sizes = sorted(f.size for f in facts)
    unresolved = 0
    mismatched = 0
    for fact in facts:
        targets = fact.targets
        if targets:
            unresolved += sum(1 for t in targets if t not in ids)
        mismatched += targets != fact.subsections
    largest = max(facts, key=lambda f: f.size, default=None)

    def at(fraction: float) -> int:
        return sizes[min(len(sizes) - 1, int(fraction * len(sizes)))] if sizes else 0

    return {
        "sections": section_count,
        "chunks": len(facts),
        "by_depth": {str(k): v for k, v in sorted(Counter(f.depth for f in facts).items())},
        "by_layer": _by_count(f.layer for f in facts),
        "by_tag": _by_count(f.breakdown_tag or f"({f.layer})" for f in facts),
        "sizes": {
            "min": at(0),
            "median": at(0.5),
            "p90": at(0.9),
            "max": sizes[-1] if sizes else 0,
            "mean": round(sum(sizes) / len(sizes)) if sizes else 0,
        },
        "over_threshold": _by_count(f.over_threshold for f in facts if f.over_threshold),
        "largest": {"id": largest.id, "size": largest.size} if largest else None,
        "unresolved_markers": unresolved,
        "marker_mismatches": mismatched,
        "heading_mismatches": _by_count(
            f.mismatch for f in facts if f.mismatch and f.parent_id is None
        ),
    }


def _by_count(values: Iterable[str]) -> dict[str, int]:
    """Count per value, most common first (ties in order of first appearance)."""
    return dict(Counter(values).most_common())
