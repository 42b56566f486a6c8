"""The shapes of the tools' structured results (each tool's ``outputSchema``).

Pydantic models, because the MCP SDK derives a tool's output schema from its return type and
validates the structured content against it. Sizes are characters (code points) of the chunk's
Markdown, markers included unless the field says otherwise; the README's "Connecting an
agent" lists every tool with these shapes.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from specbrowser.chunking.markers import size_without_markers
from specbrowser.model import Chunk


class ChunkOut(BaseModel):
    """One chunk with its place in the tree and its Markdown (markers left in place)."""

    id: str
    spec: str = Field(description="the name of the spec holding it (list_specs)")
    section_id: str | None = Field(description="None for the document chunk")
    parent_id: str | None = Field(description="the chunk it was extracted from; None for a root")
    layer: str = Field(description="section, subsection, table_row or document")
    depth: int = Field(description="0 for a section's root chunk")
    breakdown_tag: str | None = Field(description="the tag that extracted it; None for a root")
    title: str
    section_number: str = Field(description="dotted section number (14.6.1, B.1); '' if none")
    heading_path: list[str] = Field(description="the parser's section titles, top level first")
    toc_path: list[str] | None = Field(description="the TOC's path; None when the TOC has none")
    size: int = Field(description="characters of its text, markers included")
    size_without_markers: int
    over_threshold: str | None = Field(description="why it stayed over the threshold, or None")
    subsections: list[str] = Field(description="ids its markers name, in text order")
    text: str = Field(description="Markdown with 'Subsection available' marker lines")

    @classmethod
    def of(cls, chunk: Chunk, spec: str) -> ChunkOut:
        return cls(
            id=chunk.id,
            spec=spec,
            section_id=chunk.section_id,
            parent_id=chunk.parent_id,
            layer=chunk.layer,
            depth=chunk.depth,
            breakdown_tag=chunk.breakdown_tag,
            title=chunk.title,
            section_number=chunk.section_ordinal,
            heading_path=chunk.heading_path,
            toc_path=chunk.toc_path,
            size=chunk.size,
            size_without_markers=size_without_markers(chunk.text),
            over_threshold=chunk.over_threshold,
            subsections=chunk.subsections,
            text=chunk.text,
        )


class SearchHit(BaseModel):
    """One search hit, best first."""

    chunk_id: str
    spec: str = Field(description="the name of the spec holding it (list_specs)")
    section_id: str | None
    title: str
    section_number: str
    layer: str
    heading_path: list[str] = Field(description="the parser's section titles")
    toc_path: list[str] | None = Field(description="the TOC's path; None when the TOC has none")
    snippet: str = Field(description="text around the match (matched terms between « and »)")
    score: float = Field(description="higher is better: BM25, minus L2 distance, or RRF sum")
    mode: str = Field(description="lexical, semantic or hybrid: how this hit was found")


class SearchResult(BaseModel):
    query: str
    mode: str
    policy_version: str
    coverage: str = Field(description="what semantic search covered; '' when all is embedded")
    hits: list[SearchHit]


class PageChunk(ChunkOut):
    """A chunk of a fetched page; a chunk longer than a page comes in parts."""

    text_start: int = Field(description="offset in characters of this part of the text")
    text_end: int = Field(description="end offset (exclusive); equals size when complete")
    continued: bool = Field(description="the rest of this chunk's text is on the next page")


class FetchResult(BaseModel):
    id: str = Field(description="the chunk fetched (with all its descendants)")
    policy_version: str
    total_chunks: int = Field(description="the chunk and all its descendants")
    total_chars: int = Field(description="characters of all their texts")
    first_chunk: int = Field(description="0-based index of this page's first chunk")
    chunks: list[PageChunk]
    next_cursor: str | None = Field(description="pass it back for the next page; None: done")


class SubsectionOut(BaseModel):
    id: str
    kind: str = Field(description="breakdown tag (emu-table, td, p …) or section element")
    is_section: bool = Field(description="a child section (True) or a breakdown subsection")
    title: str
    layer: str
    size: int
    size_without_markers: int
    over_threshold: str | None
    subsections: int = Field(description="how many subsections it has in turn")


class SubsectionsResult(BaseModel):
    id: str
    title: str
    policy_version: str
    subsections: list[SubsectionOut]


class GetChunkResult(BaseModel):
    requested: str
    resolved_as: str = Field(
        description="chunk, section (id or number), anchor, or symbol (a name the spec defines)"
    )
    also_in: list[str] = Field(
        default_factory=list,
        description="for an anchor given without its spec: the other specs with an element of "
        "that id (the first spec's is returned; NAME:#anchor names another)",
    )
    policy_version: str
    chunk: ChunkOut


class ReassembledResult(BaseModel):
    id: str
    section_id: str | None
    title: str
    policy_version: str
    size: int
    chunks: int = Field(description="chunks put together (1: never broken down)")
    child_sections: list[str] = Field(description="child sections whose markers stay")
    text: str


class OutlineEntryOut(BaseModel):
    section_id: str
    number: str
    title: str
    depth: int = Field(description="0 for a top-level section")
    heading_path: list[str]
    toc_path: list[str] | None
    mismatch: str | None = Field(description="how the parser's and the TOC's paths differ")
    child_sections: int
    chunks: int = Field(description="chunks its own text makes in this set")
    size: int = Field(description="its root chunk's characters")
    over_threshold: int = Field(description="its chunks still over the threshold")


class OutlineResult(BaseModel):
    root: str | None
    depth: int | None
    policy_version: str
    sections: list[OutlineEntryOut]


class SpecOut(BaseModel):
    name: str = Field(description="its handle: what the tools' spec argument takes")
    title: str
    format: str
    shortname: str | None
    canonical_url: str | None
    sections: int
    chunks: int = Field(description="its chunks in the set served, the document chunk included")
    embedded_share: float = Field(description="of those, the share with an embedding")


class SpecsResult(BaseModel):
    policy_version: str
    specs: list[SpecOut] = Field(description="in corpus order (the first spec keeps bare ids)")


class ChunkSetOut(BaseModel):
    version: str
    active: bool = Field(description="the set specbrowser's other commands read")
    served: bool = Field(description="the set this server's tools read")
    created_at: str
    threshold: int | None
    unit: str = Field(description="what the threshold counts: chars or tokens")
    breakdown_tags: list[str]
    max_depth: int | None
    strategy: str | None
    min_chars: int | None
    chunks: int
    over_threshold: dict[str, int]
    tiny_chunks: int | None = Field(
        description="subsections with under 100 characters of their own text (None: not counted)"
    )
    grown_chunks: int | None = Field(
        description="chunks longer than before their own breakdown (None: not counted)"
    )
    breakdown_marker_share: float | None = Field(
        description="breakdown markers' characters / all characters (None: not counted)"
    )
    stale: bool = Field(description="made by another converter version")


class ChunkSetsResult(BaseModel):
    document: str = Field(description="the first spec's title (the database's only one, often)")
    specs: list[str] = Field(description="every spec's name, in corpus order (see list_specs)")
    served: str
    sets: list[ChunkSetOut]
