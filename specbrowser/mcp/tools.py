"""The MCP tools, each declared once in :data:`TOOLS`: name, description, argument model, result
model, handler, and the readable text of a result.

A handler is a plain function of the worker thread's :class:`~specbrowser.session.Session`, the
full policy version of the chunk set it reads, and its validated arguments; it returns its result
model, or raises a :class:`~specbrowser.errors.SpecbrowserError` for a mistake in the input (an
unknown id, an empty query, a bad cursor), which the server sends back as a tool error.
:func:`specbrowser.mcp.server.build_server` registers every tool with the SDK.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pydantic import BaseModel

from specbrowser.chunking.policy import stored_threshold
from specbrowser.errors import NotFoundError
from specbrowser.mcp import render
from specbrowser.mcp.inputs import (
    ChunkInput,
    FetchInput,
    GetChunkInput,
    NoInput,
    OutlineInput,
    SearchInput,
)
from specbrowser.mcp.models import (
    ChunkOut,
    ChunkSetOut,
    ChunkSetsResult,
    FetchResult,
    GetChunkResult,
    OutlineEntryOut,
    OutlineResult,
    PageChunk,
    ReassembledResult,
    SearchResult,
    SpecOut,
    SpecsResult,
    SubsectionOut,
    SubsectionsResult,
)
from specbrowser.mcp.pages import Cursor, Part, page
from specbrowser.search.query import SearchFilter
from specbrowser.session import ChunkSetInfo, Session

In = TypeVar("In", bound=BaseModel)
Out = TypeVar("Out", bound=BaseModel)


@dataclass(frozen=True)
class Tool(Generic[In, Out]):
    """One MCP tool as a client sees it, and the code that answers it.

    Attributes:
        name: what a client calls.
        description: what an agent reads about it, one line.
        input_model: its arguments; each field is a property of its ``inputSchema``.
        output_model: its structured result; the model's schema is its ``outputSchema``.
        handler: the answer, from the thread's session, the full policy version read and the
            arguments.
        text: the readable text sent beside the structured result.
    """

    name: str
    description: str
    input_model: type[In]
    output_model: type[Out]
    handler: Callable[[Session, str, In], Out]
    text: Callable[[Out], str]


def search(session: Session, version: str, args: SearchInput) -> SearchResult:
    where = SearchFilter(
        section=session.resolve_section(args.section) if args.section else None,
        layer=args.layer,
        document_id=session.spec(args.spec).id if args.spec else None,
    )
    hits = session.search(
        args.query, args.mode, limit=args.limit, where=where, policy_version=version
    )
    ids = [h.chunk_id for h in hits]
    chunks = {c.id: c for c in session.chunks(ids, version)}
    specs = session.chunk_specs(ids, version)
    return SearchResult(
        query=args.query,
        mode=args.mode,
        policy_version=version,
        coverage=session.coverage_note(args.mode, version) if args.mode != "lexical" else "",
        hits=[render.hit(h, chunks.get(h.chunk_id), specs.get(h.chunk_id, "")) for h in hits],
    )


def fetch_section_chunks(session: Session, version: str, args: FetchInput) -> FetchResult:
    start = _page_start(session, version, args)
    chunk_id = session.locate(args.id, start.version).chunk_id
    walk = list(session.descendants(chunk_id, start.version))
    parts, index, offset = page(walk, start.index, start.offset, args.max_chars)
    specs = session.chunk_specs(list(dict.fromkeys(p.chunk.id for p in parts)), start.version)
    done = index >= len(walk)
    return FetchResult(
        id=chunk_id,
        policy_version=start.version,
        total_chunks=len(walk),
        total_chars=sum(c.size for c in walk),
        first_chunk=start.index,
        chunks=[_page_chunk(p, specs.get(p.chunk.id, "")) for p in parts],
        next_cursor=None if done else Cursor(start.version, args.id, index, offset).encode(),
    )


def _page_start(session: Session, version: str, args: FetchInput) -> Cursor:
    """Where the page starts: the first page of ``version``, or where the cursor says, in the
    chunk set the cursor names (so later pages read the set the first one did)."""
    if not args.cursor:
        return Cursor(version, args.id, 0, 0)
    start = Cursor.decode(args.cursor, args.id)
    try:
        session.resolve_version(start.version)
    except NotFoundError:
        raise NotFoundError(
            "the chunk set of this cursor was deleted; fetch again from the start"
        ) from None
    return start


def _page_chunk(part: Part, spec: str) -> PageChunk:
    chunk = part.chunk
    return PageChunk(
        **ChunkOut.of(chunk, spec).model_dump(exclude={"text"}),
        text=chunk.text[part.start : part.end],
        text_start=part.start,
        text_end=part.end,
        continued=part.end < chunk.size,
    )


def check_subsections(session: Session, version: str, args: ChunkInput) -> SubsectionsResult:
    chunk = session.chunk(session.locate(args.id, version).chunk_id, version)
    return SubsectionsResult(
        id=chunk.id,
        title=chunk.title,
        policy_version=version,
        subsections=[
            SubsectionOut(**vars(info)) for info in session.subsection_info(chunk, version)
        ],
    )


def get_chunk(session: Session, version: str, args: GetChunkInput) -> GetChunkResult:
    located = session.locate(args.id, version)
    spec = session.chunk_specs([located.chunk_id], version).get(located.chunk_id, "")
    return GetChunkResult(
        requested=args.id,
        resolved_as=located.resolved_as,
        also_in=list(located.also_in),
        policy_version=version,
        chunk=ChunkOut.of(session.chunk(located.chunk_id, version), spec),
    )


def reassemble_section(session: Session, version: str, args: ChunkInput) -> ReassembledResult:
    done = session.reassembled(session.locate(args.id, version).chunk_id, version)
    return ReassembledResult(
        id=done.chunk_id,
        section_id=done.section_id,
        title=done.title,
        policy_version=version,
        size=len(done.text),
        chunks=done.chunks,
        child_sections=done.child_sections,
        text=done.text,
    )


def outline(session: Session, version: str, args: OutlineInput) -> OutlineResult:
    root = session.resolve_section(args.id) if args.id else None
    spec = session.spec(args.spec).id if args.spec else None
    entries = session.outline(root, args.depth, version, document_id=spec)
    return OutlineResult(
        root=root,
        depth=args.depth,
        policy_version=version,
        sections=[OutlineEntryOut(**vars(e)) for e in entries],
    )


def list_specs(session: Session, version: str, args: NoInput) -> SpecsResult:
    return SpecsResult(
        policy_version=version,
        specs=[
            SpecOut(
                name=s.spec.name,
                title=s.spec.title,
                format=s.spec.kind,
                shortname=s.spec.shortname,
                canonical_url=s.spec.canonical_url,
                sections=s.sections,
                chunks=s.chunks,
                embedded_share=round(s.embedded_share, 4),
            )
            for s in session.specs(version)
        ],
    )


def chunk_sets(session: Session, version: str, args: NoInput) -> ChunkSetsResult:
    return ChunkSetsResult(
        document=session.document().title,
        specs=[spec.name for spec in session.spec_rows()],
        served=version,
        sets=[_chunk_set(info, version) for info in session.chunk_sets()],
    )


def _chunk_set(info: ChunkSetInfo, served: str) -> ChunkSetOut:
    settings = info.settings

    def number(key: str) -> int | None:
        value = settings.get(key)
        return int(value) if isinstance(value, int) else None

    tags = settings.get("breakdown_tags")
    strategy = settings.get("strategy")
    threshold, unit = stored_threshold(settings)
    return ChunkSetOut(
        version=info.version,
        active=info.active,
        served=info.version == served,
        created_at=info.created_at,
        threshold=threshold,
        unit=unit,
        breakdown_tags=[str(t) for t in tags] if isinstance(tags, list) else [],
        max_depth=number("max_depth"),
        strategy=str(strategy) if strategy is not None else None,
        min_chars=number("min_chars"),
        chunks=info.chunks,
        over_threshold=info.over_threshold,
        tiny_chunks=info.stats.tiny_chunks,
        grown_chunks=info.stats.grown_chunks,
        breakdown_marker_share=info.stats.breakdown_marker_share,
        stale=info.stale,
    )


TOOLS: tuple[Tool[Any, Any], ...] = (
    Tool(
        name="search",
        description=(
            "Search the specification's chunks, best first, ranked as `specbrowser search` ranks "
            "them. Each hit names a chunk id to pass to get_chunk, check_subsections or "
            "fetch_section_chunks."
        ),
        input_model=SearchInput,
        output_model=SearchResult,
        handler=search,
        text=render.search,
    ),
    Tool(
        name="fetch_section_chunks",
        description=(
            "Fetch a chunk and all its descendants (breakdown subsections and child sections, "
            "recursively) in document order, each with its markers left in place. Long results "
            "come in pages: while next_cursor is set, call again with it. A chunk longer than a "
            "page is split across pages (text_start/text_end/continued)."
        ),
        input_model=FetchInput,
        output_model=FetchResult,
        handler=fetch_section_chunks,
        text=render.fetch,
    ),
    Tool(
        name="check_subsections",
        description=(
            "List a chunk's direct subsections (what its markers name, in order): kind (the "
            "breakdown tag that made it, or the section element), title, size in characters and "
            "whether it stayed over the threshold."
        ),
        input_model=ChunkInput,
        output_model=SubsectionsResult,
        handler=check_subsections,
        text=render.subsections,
    ),
    Tool(
        name="get_chunk",
        description=(
            "One chunk: its Markdown (with its markers), title, heading and TOC paths, size, "
            "layer and subsections."
        ),
        input_model=GetChunkInput,
        output_model=GetChunkResult,
        handler=get_chunk,
        text=render.get_chunk,
    ),
    Tool(
        name="reassemble_section",
        description=(
            "A section's (or subsection's) whole text: every breakdown marker replaced by the "
            "subsection's content, recursively. Child sections' markers stay (they are sections "
            "of their own: reassemble them by their ids)."
        ),
        input_model=ChunkInput,
        output_model=ReassembledResult,
        handler=reassemble_section,
        text=render.reassembled,
    ),
    Tool(
        name="outline",
        description=(
            "The section tree: each section's number, title, TOC path, child sections, and how "
            "many chunks its own text makes (and how many stayed over the threshold)."
        ),
        input_model=OutlineInput,
        output_model=OutlineResult,
        handler=outline,
        text=render.outline,
    ),
    Tool(
        name="list_specs",
        description=(
            "The specs the database holds (a corpus), in order: name (what the spec argument "
            "of search and outline takes; a later spec's ids that another spec has are "
            "NAME:ID), title, format, canonical URL, sections, chunks and embedded share."
        ),
        input_model=NoInput,
        output_model=SpecsResult,
        handler=list_specs,
        text=render.specs,
    ),
    Tool(
        name="chunk_sets",
        description=(
            "The database's chunk sets (one per chunk policy): settings, chunk counts, chunks "
            "over the threshold by reason, which one is active and which one this server reads."
        ),
        input_model=NoInput,
        output_model=ChunkSetsResult,
        handler=chunk_sets,
        text=render.chunk_sets,
    ),
)
"""Every tool the server lists, in the order it lists them."""
