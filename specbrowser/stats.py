"""Chunk-set statistics shared by ``ingest``, ``stats`` and the app header."""

from __future__ import annotations

from collections import Counter

from specbrowser.markers import marker_ids
from specbrowser.model import Chunk


def compute_stats(chunks: list[Chunk], section_count: int) -> dict[str, object]:
    """Counts over one chunk set. Sizes are in characters.

    Returns a JSON-ready dict: ``sections``, ``chunks`` (the document chunk included),
    ``by_depth``, ``by_layer``, ``by_tag`` (a chunk no tag made counts as ``(<layer>)``), ``sizes``
    (min, median, p90, max, mean), ``over_threshold`` (count per reason), ``largest`` (id and
    size), ``unresolved_markers`` (markers naming no chunk; should be 0) and
    ``marker_mismatches`` (chunks whose markers differ from their stored subsections; should be 0)
    and ``heading_mismatches`` (sections whose parser and TOC heading paths disagree, by kind).
    """
    ids = {c.id for c in chunks}
    sizes = sorted(c.size for c in chunks)
    unresolved = 0
    mismatched = 0
    for chunk in chunks:
        targets = marker_ids(chunk.text)
        if targets:
            unresolved += sum(1 for t in targets if t not in ids)
        mismatched += targets != chunk.subsections
    largest = max(chunks, key=lambda c: c.size, default=None)

    def at(fraction: float) -> int:
        return sizes[min(len(sizes) - 1, int(fraction * len(sizes)))] if sizes else 0

    return {
        "sections": section_count,
        "chunks": len(chunks),
        "by_depth": {str(k): v for k, v in sorted(Counter(c.depth for c in chunks).items())},
        "by_layer": dict(Counter(c.layer for c in chunks).most_common()),
        "by_tag": dict(Counter(c.breakdown_tag or f"({c.layer})" for c in chunks).most_common()),
        "sizes": {"min": at(0), "median": at(0.5), "p90": at(0.9), "max": sizes[-1] if sizes else 0,
                  "mean": round(sum(sizes) / len(sizes)) if sizes else 0},
        "over_threshold": dict(Counter(c.over_threshold for c in chunks if c.over_threshold).most_common()),
        "largest": {"id": largest.id, "size": largest.size} if largest else None,
        "unresolved_markers": unresolved,
        "marker_mismatches": mismatched,
        "heading_mismatches": dict(Counter(c.mismatch for c in chunks
                                           if c.mismatch and c.parent_id is None).most_common()),
    }
