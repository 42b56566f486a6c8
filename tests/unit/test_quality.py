"""The quality figures of a chunk set (:func:`specbrowser.chunking.stats.compute_stats`):
tiny chunks, marker shares, mostly-marker chunks and sizes without markers, on hand-written
chunk lists."""

from __future__ import annotations

import json

from specbrowser.chunking.markers import format_marker
from specbrowser.chunking.stats import (
    MOSTLY_MARKERS_SHARE,
    TINY_CHARS,
    ChunkSetStats,
    compute_stats,
)
from specbrowser.model import Chunk


def chunk(chunk_id: str, text: str, parent_id: str | None = None, ordinal: int = 0) -> Chunk:
    return Chunk(
        id=chunk_id,
        section_id=chunk_id.split("-p-")[0],
        parent_id=parent_id,
        depth=0 if parent_id is None else 1,
        layer="section" if parent_id is None else "subsection",
        breakdown_tag=None if parent_id is None else "p",
        title="",
        heading_path=[],
        text=text,
        subsections=[],
        ordinal=ordinal,
    )


CHILD = format_marker("sec-b", "2 B")
PIECE = format_marker("sec-a-p-1")
PIECE2 = format_marker("sec-a-p-2")


def sample() -> list[Chunk]:
    """sec-a: heading, a paragraph, two breakdown markers and a child-section marker;
    sec-a-p-1 a tiny piece, sec-a-p-2 a large one; sec-b a structural root."""
    return [
        chunk("sec-a", f"# 1 A\n\n{'x' * 150}\n\n{PIECE}\n\n{PIECE2}\n\n{CHILD}", ordinal=0),
        chunk("sec-a-p-1", "y" * (TINY_CHARS - 1), "sec-a", 1),
        chunk("sec-a-p-2", "z" * TINY_CHARS, "sec-a", 2),
        chunk("sec-b", f"# 2 B\n\n{format_marker('sec-c', '2.1 C')}", ordinal=3),
        chunk("sec-c", "w" * 10, ordinal=4),
    ]


def test_tiny_counts_only_chunks_with_a_parent_under_tiny_chars():
    stats = compute_stats(sample(), 3)
    assert stats.tiny_chunks == 1  # sec-a-p-1; sec-c and the structural sec-b are roots


def test_markers_split_into_breakdown_and_child_section_characters():
    chunks = sample()
    stats = compute_stats(chunks, 3)
    section_marker = format_marker("sec-c", "2.1 C")
    assert stats.total_chars == sum(c.size for c in chunks)
    assert stats.breakdown_marker_chars == len(PIECE) + len(PIECE2)
    assert stats.section_marker_chars == len(CHILD) + len(section_marker)
    assert stats.breakdown_marker_share == stats.breakdown_marker_chars / stats.total_chars


def test_mostly_markers_at_the_share():
    stats = compute_stats(sample(), 3)
    heading = len("# 2 B\n\n")
    marker = len(format_marker("sec-c", "2.1 C"))
    assert marker / (marker + heading) >= MOSTLY_MARKERS_SHARE
    assert stats.mostly_marker_chunks == 1  # sec-b; sec-a has 150 characters of its own


def test_sizes_without_markers_leave_the_marker_characters_out():
    chunks = sample()
    stats = compute_stats(chunks, 3)
    bare = sorted(
        [
            chunks[0].size - len(PIECE) - len(PIECE2) - len(CHILD),
            TINY_CHARS - 1,
            TINY_CHARS,
            len("# 2 B\n\n"),
            10,
        ]
    )
    assert stats.sizes_without_markers is not None
    assert (stats.sizes_without_markers.min, stats.sizes_without_markers.max) == (
        bare[0],
        bare[-1],
    )
    assert stats.sizes_without_markers.median == bare[2]
    assert stats.sizes.max == chunks[0].size > bare[-1]


def test_an_empty_set_has_zero_figures():
    stats = compute_stats([], 0)
    assert (stats.tiny_chunks, stats.mostly_marker_chunks, stats.total_chars) == (0, 0, 0)
    assert stats.breakdown_marker_share == stats.section_marker_share == 0.0


def test_figures_round_trip_through_the_stored_json():
    stats = compute_stats(sample(), 3)
    data = json.loads(stats.to_json())
    assert data["tiny_chunks"] == 1 and data["sizes_without_markers"]["min"] == 7
    assert ChunkSetStats.from_json(stats.to_json()) == stats
