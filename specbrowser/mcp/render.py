"""The readable text of each tool's result (the content an agent or a person reads beside the
structured content): plain text and the chunks' own Markdown, sizes in characters."""

from __future__ import annotations

import re

from specbrowser.mcp.models import (
    ChunkOut,
    ChunkSetsResult,
    FetchResult,
    GetChunkResult,
    OutlineResult,
    ReassembledResult,
    SearchHit,
    SearchResult,
    SpecsResult,
    SubsectionsResult,
)
from specbrowser.model import Chunk
from specbrowser.search.query import HIGHLIGHT_END, HIGHLIGHT_START, Hit

MARK_START, MARK_END = "«", "»"
"""Around a matched term in a snippet."""


def hit(found: Hit, chunk: Chunk | None, spec: str) -> SearchHit:
    """A search hit with the chunk's own paths (``Hit.heading_path`` is the TOC's when the
    chunk has one) and the name of its ``spec``."""
    snippet = _MARKER_ID.sub(_unmarked, " ".join(found.snippet.split()))
    return SearchHit(
        chunk_id=found.chunk_id,
        spec=spec,
        section_id=found.section_id,
        title=found.title,
        section_number=chunk.section_ordinal if chunk else "",
        layer=chunk.layer if chunk else "",
        heading_path=chunk.heading_path if chunk else found.heading_path,
        toc_path=chunk.toc_path if chunk else None,
        snippet=snippet.replace(HIGHLIGHT_START, MARK_START).replace(HIGHLIGHT_END, MARK_END),
        score=found.score,
        mode=found.mode,
    )


_MARKER_ID = re.compile(r"(sectionid: `)([^`]*)")
"""A marker's id in a snippet: FTS5 marks matched words inside it too, which would break the
id an agent copies from it."""


def _unmarked(match: re.Match[str]) -> str:
    return match.group(1) + match.group(2).replace(HIGHLIGHT_START, "").replace(HIGHLIGHT_END, "")


def _path(chunk: ChunkOut | SearchHit) -> str:
    return " › ".join(chunk.toc_path or chunk.heading_path)


def _header(chunk: ChunkOut) -> str:
    kind = chunk.breakdown_tag or chunk.layer
    over = f" · over threshold: {chunk.over_threshold}" if chunk.over_threshold else ""
    return f"{chunk.id} · depth {chunk.depth} · {kind} · {chunk.size:,} chars{over}"


def search(result: SearchResult) -> str:
    lines = [
        f"{len(result.hits)} hit{'s' if len(result.hits) != 1 else ''} for {result.query!r} "
        f"({result.mode})" + (f"; {result.coverage}" if result.coverage else "")
    ]
    for rank, h in enumerate(result.hits, start=1):
        lines += [
            f"{rank}. {h.chunk_id} · score {h.score:.4g}",
            f"   {' › '.join(h.toc_path or h.heading_path)}",
            f"   {h.snippet}",
        ]
    return "\n".join(lines)


def fetch(result: FetchResult) -> str:
    parts = []
    for chunk in result.chunks:
        span = (
            ""
            if chunk.text_start == 0 and not chunk.continued
            else f" · characters {chunk.text_start:,}–{chunk.text_end:,} of {chunk.size:,}"
            + (" (continued on the next page)" if chunk.continued else "")
        )
        parts.append(f"=== {_header(chunk)}{span} ===\n{chunk.text}")
    last = result.first_chunk + len(result.chunks)
    end = (
        f"[page: chunks {result.first_chunk + 1}–{last} of {result.total_chunks}; "
        f"more: call again with cursor {result.next_cursor}]"
        if result.next_cursor
        else f"[end: {result.total_chunks} chunks, {result.total_chars:,} characters in all]"
    )
    return "\n\n".join([*parts, end])


def subsections(result: SubsectionsResult) -> str:
    if not result.subsections:
        return f"{result.id} has no subsections."
    lines = [f"{len(result.subsections)} subsections of {result.id}:"]
    for s in result.subsections:
        over = f" · over threshold: {s.over_threshold}" if s.over_threshold else ""
        more = f" · {s.subsections} subsections" if s.subsections else ""
        title = f" · {s.title}" if s.title else ""
        lines.append(f"- {s.id} · {s.kind}{title} · {s.size:,} chars{over}{more}")
    return "\n".join(lines)


def get_chunk(result: GetChunkResult) -> str:
    chunk = result.chunk
    via = (
        "" if result.resolved_as == "chunk" else f" ({result.requested!r} as {result.resolved_as})"
    )
    if result.also_in:
        via += f" (also in {', '.join(result.also_in)})"
    return f"=== {_header(chunk)}{via} ===\n{_path(chunk)}\n\n{chunk.text}"


def reassembled(result: ReassembledResult) -> str:
    return (
        f"=== {result.id} reassembled from {_count(result.chunks, 'chunk')} · "
        f"{result.size:,} chars ===\n"
        f"{result.text}"
    )


def outline(result: OutlineResult) -> str:
    lines = []
    for s in result.sections:
        indent = "  " * s.depth
        over = f", {s.over_threshold} over threshold" if s.over_threshold else ""
        lines.append(
            f"{indent}{s.number + ' ' if s.number else ''}{s.title} [{s.section_id}] "
            f"({_count(s.chunks, 'chunk')}{over}, {_count(s.child_sections, 'child section')})"
        )
    return "\n".join(lines) or "no sections"


def specs(result: SpecsResult) -> str:
    lines = [f"{_count(len(result.specs), 'spec')} in set {result.policy_version[:12]}"]
    for s in result.specs:
        lines.append(
            f"- {s.name}: {s.title} ({s.format}); {_count(s.sections, 'section')}, "
            f"{_count(s.chunks, 'chunk')}, {s.embedded_share:.0%} embedded"
            + (f"; {s.canonical_url}" if s.canonical_url else "")
        )
    return "\n".join(lines)


def chunk_sets(result: ChunkSetsResult) -> str:
    lines = [result.document if len(result.specs) < 2 else f"specs: {', '.join(result.specs)}"]
    for s in result.sets:
        flags = ", ".join(
            f for f, on in (("active", s.active), ("served", s.served), ("stale", s.stale)) if on
        )
        over = sum(s.over_threshold.values())
        lines.append(
            f"- {s.version}: threshold {s.threshold} {s.unit}, tags {','.join(s.breakdown_tags)}, "
            f"max depth {s.max_depth}, {s.strategy}; {s.chunks:,} chunks, {over} over"
            + (f" ({flags})" if flags else "")
        )
    return "\n".join(lines)


def _count(number: int, noun: str) -> str:
    """``1 chunk``, ``2 chunks``, ``1,204 chunks``."""
    return f"{number:,} {noun}{'' if number == 1 else 's'}"
