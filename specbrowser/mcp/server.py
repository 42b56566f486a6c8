"""The MCP server: seed 000's agent tools over one specbrowser database, read-only.

:func:`build_server` registers the tools (typed input schemas; each result is structured
content, whose shape :mod:`specbrowser.mcp.models` gives, plus the same as readable text) and
the ``specbrowser://chunk/{id}`` resources on the official SDK's
:class:`~mcp.server.mcpserver.MCPServer`. Every read goes through a
:class:`~specbrowser.session.Session` on a worker thread (:class:`~specbrowser.mcp.reader.Reader`);
a mistake in the input (an unknown id, an empty query, a limit out of range, a bad cursor)
comes back as a tool error whose text is one sentence, never as a failed server.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import Annotated, Any, Literal
from urllib.parse import quote

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceNotFoundError, ToolError
from mcp.server.mcpserver.resources import ResourceSecurity
from mcp.server.transport_security import TransportSecuritySettings
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from mcp_types import Resource as MCPResource
from pydantic import BaseModel, Field, ValidationError

from specbrowser import __version__
from specbrowser.chunking.policy import stored_threshold
from specbrowser.errors import NotFoundError, SpecbrowserError
from specbrowser.mcp import render
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
    SubsectionOut,
    SubsectionsResult,
)
from specbrowser.mcp.pages import Cursor, page
from specbrowser.mcp.reader import Reader
from specbrowser.search.query import SearchFilter
from specbrowser.session import ChunkSetInfo, Session
from specbrowser.types import Layer, SearchMode

SERVER_NAME = "specbrowser"

RESOURCE_PREFIX = "specbrowser://chunk/"
"""A chunk's resource URI is this prefix and its id, percent-encoded (``quote(id, safe="")``)."""

MAX_LIMIT = 100
"""Most search hits one call returns."""

DEFAULT_PAGE_CHARS, MIN_PAGE_CHARS, MAX_PAGE_CHARS = 20_000, 1_000, 200_000
"""``fetch_section_chunks`` page size in characters of chunk text: default, bounds."""

INSTRUCTIONS = """\
Tools over one specification, cut into chunks of Markdown. A chunk whose content was too long
holds marker lines `[Subsection available: title "…" at sectionid: `ID`]` where parts were
taken out (tables, grammar, cells, paragraphs, and child sections). To read on: call
check_subsections(ID) to see what a chunk's markers hold, get_chunk(ID) for one of them,
fetch_section_chunks(ID) for a chunk with all its descendants (paginated: pass next_cursor
back), or reassemble_section(ID) for the section's text with its breakdown markers filled in.
Start with search(query) or outline(); ids also accept section numbers (14.6) and anchors.
"""

READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True)


class SpecServer(MCPServer[Any]):
    """:class:`MCPServer` with arguments that fail their schema answered in one sentence, and
    the chunks of the top level listed as resources."""

    def __init__(self, reader: Reader) -> None:
        super().__init__(
            SERVER_NAME,
            title="specbrowser",
            description="A specification's chunk hierarchy for agents (seed 000's tools).",
            instructions=INSTRUCTIONS,
            version=__version__,
            log_level="WARNING",
        )
        self.reader = reader

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                raise ToolError(argument_error(name, exc.__cause__)) from None
            raise

    async def list_resources(self) -> list[MCPResource]:
        """The document chunk and the root chunks of the top-level sections (every other chunk
        is reached through the template, from the markers)."""

        def roots(session: Session, version: str) -> list[MCPResource]:
            document = session.document_chunk(version)
            chunks = [document] if document else []
            chunks += session.top_level_chunks(version)
            return [
                MCPResource(
                    uri=RESOURCE_PREFIX + quote(c.id, safe=""),
                    name=c.id,
                    title=c.title or c.id,
                    mime_type="text/markdown",
                )
                for c in chunks
            ]

        try:
            return [*await super().list_resources(), *await self.reader.call(roots)]
        except SpecbrowserError:
            return []


def argument_error(tool: str, error: ValidationError) -> str:
    """One sentence for the first argument of ``tool`` that failed its schema."""
    first = error.errors()[0]
    where = ".".join(str(part) for part in first["loc"]) or "arguments"
    if first["type"] == "missing":
        return f"{tool} needs the argument {where!r}"
    got = first.get("input")
    shown = repr(got) if len(repr(got)) <= 40 else repr(got)[:37] + "…"
    return f"invalid argument {where!r} for {tool}: {first['msg'].lower()} (got {shown})"


def _result(model: BaseModel, text: str) -> CallToolResult:
    return CallToolResult(
        content=[TextContent(type="text", text=text)],
        structured_content=model.model_dump(mode="json"),
    )


def _error(message: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=message)], is_error=True)


async def _answer(
    reader: Reader,
    work: Callable[[Session, str], BaseModel],
    text: Callable[[Any], str],
) -> CallToolResult:
    """Run ``work`` on the reader; its model as structured content and ``text(model)`` as
    readable text, or a user error as an error result."""
    try:
        model = await reader.call(work)
    except SpecbrowserError as exc:
        return _error(str(exc))
    return _result(model, text(model))


def build_server(reader: Reader) -> SpecServer:
    """The server with every tool and the chunk resources, reading through ``reader``."""
    server = SpecServer(reader)
    for tool in _tools(reader):
        description = " ".join(inspect.cleandoc(tool.__doc__ or "").split())
        server.add_tool(tool, description=description, annotations=READ_ONLY)

    async def chunk_resource(id: str) -> str:
        def read(session: Session, version: str) -> str:
            return session.chunk(id, version).text

        try:
            return await reader.call(read)
        except NotFoundError as exc:
            raise ResourceNotFoundError(str(exc)) from None

    server.resource(
        RESOURCE_PREFIX + "{id}",
        name="chunk",
        title="A chunk's Markdown",
        description="The Markdown of one chunk (markers included) by chunk id, percent-encoded.",
        mime_type="text/markdown",
        security=ResourceSecurity(exempt_params={"id"}),  # ids are not paths: none is opened
    )(chunk_resource)
    return server


def _tools(reader: Reader) -> list[Callable[..., Awaitable[CallToolResult]]]:
    """The tool functions; their signatures are the input schemas, their docstrings the
    descriptions an agent reads."""

    async def search(
        query: Annotated[str, Field(description="words to find, taken literally")],
        mode: Annotated[
            SearchMode,
            Field(
                description="hybrid (default: lexical and semantic fused; lexical alone when "
                "the database has no embeddings), lexical (FTS5, BM25) or semantic"
            ),
        ] = "hybrid",
        limit: Annotated[int, Field(ge=1, le=MAX_LIMIT, description="most hits")] = 10,
        section: Annotated[
            str | None,
            Field(description="only this section and the sections below it (id or number)"),
        ] = None,
        layer: Annotated[Layer | None, Field(description="only chunks of this layer")] = None,
    ) -> Annotated[CallToolResult, SearchResult]:
        """Search the specification's chunks, best first, ranked as `specbrowser search`
        ranks them. Each hit names a chunk id to pass to get_chunk, check_subsections or
        fetch_section_chunks."""

        def work(session: Session, version: str) -> SearchResult:
            where = SearchFilter(
                section=session.resolve_section(section) if section else None, layer=layer
            )
            hits = session.search(query, mode, limit=limit, where=where, policy_version=version)
            chunks = {c.id: c for c in session.chunks([h.chunk_id for h in hits], version)}
            note = session.coverage_note(mode, version) if mode != "lexical" else ""
            return SearchResult(
                query=query,
                mode=mode,
                policy_version=version,
                coverage=note,
                hits=[render.hit(h, chunks.get(h.chunk_id)) for h in hits],
            )

        return await _answer(reader, work, render.search)

    async def fetch_section_chunks(
        id: Annotated[str, Field(description="chunk id, section number (14.6) or anchor")],
        max_chars: Annotated[
            int,
            Field(
                ge=MIN_PAGE_CHARS,
                le=MAX_PAGE_CHARS,
                description="most characters of chunk text per page",
            ),
        ] = DEFAULT_PAGE_CHARS,
        cursor: Annotated[
            str | None, Field(description="next_cursor of the previous page; none: first page")
        ] = None,
    ) -> Annotated[CallToolResult, FetchResult]:
        """Fetch a chunk and all its descendants (breakdown subsections and child sections,
        recursively) in document order, each with its markers left in place: seed 000's
        recursive fetch. Long results come in pages: while next_cursor is set, call again with
        it. A chunk longer than a page is split across pages (text_start/text_end/continued)."""

        def work(session: Session, version: str) -> FetchResult:
            if cursor:
                start = Cursor.decode(cursor, id)
                version = start.version
                try:
                    session.resolve_version(version)
                except NotFoundError:
                    raise NotFoundError(
                        "the chunk set of this cursor was deleted; fetch again from the start"
                    ) from None
                chunk_id = session.locate(id, version).chunk_id
            else:
                chunk_id = session.locate(id, version).chunk_id
                start = Cursor(version, id, 0, 0)
            walk = list(session.descendants(chunk_id, version))
            parts, index, offset = page(walk, start.index, start.offset, max_chars)
            done = index >= len(walk)
            return FetchResult(
                id=chunk_id,
                policy_version=version,
                total_chunks=len(walk),
                total_chars=sum(c.size for c in walk),
                first_chunk=start.index,
                chunks=[
                    PageChunk(
                        **ChunkOut.of(p.chunk).model_dump(exclude={"text"}),
                        text=p.chunk.text[p.start : p.end],
                        text_start=p.start,
                        text_end=p.end,
                        continued=p.end < p.chunk.size,
                    )
                    for p in parts
                ],
                next_cursor=None if done else Cursor(version, id, index, offset).encode(),
            )

        return await _answer(reader, work, render.fetch)

    async def check_subsections(
        id: Annotated[str, Field(description="chunk id, section number (14.6) or anchor")],
    ) -> Annotated[CallToolResult, SubsectionsResult]:
        """List a chunk's direct subsections (what its markers name, in order): kind (the
        breakdown tag that made it, or the section element), title, size in characters and
        whether it stayed over the threshold: seed 000's check."""

        def work(session: Session, version: str) -> SubsectionsResult:
            chunk = session.chunk(session.locate(id, version).chunk_id, version)
            return SubsectionsResult(
                id=chunk.id,
                title=chunk.title,
                policy_version=version,
                subsections=[
                    SubsectionOut(**vars(info)) for info in session.subsection_info(chunk, version)
                ],
            )

        return await _answer(reader, work, render.subsections)

    async def get_chunk(
        id: Annotated[
            str,
            Field(
                description="a chunk id, a section number (14.6, B.1, Annex B) or any anchor "
                "(an element id inside a section, e.g. prod-IfStatement)"
            ),
        ],
    ) -> Annotated[CallToolResult, GetChunkResult]:
        """One chunk: its Markdown (with its markers), title, heading and TOC paths, size,
        layer and subsections."""

        def work(session: Session, version: str) -> GetChunkResult:
            located = session.locate(id, version)
            return GetChunkResult(
                requested=id,
                resolved_as=located.resolved_as,
                policy_version=version,
                chunk=ChunkOut.of(session.chunk(located.chunk_id, version)),
            )

        return await _answer(reader, work, render.get_chunk)

    async def reassemble_section(
        id: Annotated[str, Field(description="chunk id, section number (14.6) or anchor")],
    ) -> Annotated[CallToolResult, ReassembledResult]:
        """A section's (or subsection's) whole text: every breakdown marker replaced by the
        subsection's content, recursively. Child sections' markers stay (they are sections of
        their own: reassemble them by their ids)."""

        def work(session: Session, version: str) -> ReassembledResult:
            done = session.reassembled(session.locate(id, version).chunk_id, version)
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

        return await _answer(reader, work, render.reassembled)

    async def outline(
        id: Annotated[
            str | None, Field(description="a section id or number; none: the whole spec")
        ] = None,
        depth: Annotated[
            int | None,
            Field(
                ge=1,
                le=20,
                description="levels of sections below the one named (1: its child "
                "sections); for the whole spec, 1 gives the top-level sections",
            ),
        ] = 1,
    ) -> Annotated[CallToolResult, OutlineResult]:
        """The section tree: each section's number, title, TOC path, child sections, and how
        many chunks its own text makes (and how many stayed over the threshold)."""

        def work(session: Session, version: str) -> OutlineResult:
            root = session.resolve_section(id) if id else None
            entries = session.outline(root, depth, version)
            return OutlineResult(
                root=root,
                depth=depth,
                policy_version=version,
                sections=[OutlineEntryOut(**vars(e)) for e in entries],
            )

        return await _answer(reader, work, render.outline)

    async def chunk_sets() -> Annotated[CallToolResult, ChunkSetsResult]:
        """The database's chunk sets (one per chunk policy): settings, chunk counts, chunks
        over the threshold by reason, which one is active and which one this server reads."""

        def work(session: Session, version: str) -> ChunkSetsResult:
            return ChunkSetsResult(
                document=session.document().title,
                served=version,
                sets=[_chunk_set(info, version) for info in session.chunk_sets()],
            )

        return await _answer(reader, work, render.chunk_sets)

    return [
        search,
        fetch_section_chunks,
        check_subsections,
        get_chunk,
        reassemble_section,
        outline,
        chunk_sets,
    ]


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


Transport = Literal["stdio", "http"]


def serve(
    reader: Reader,
    *,
    transport: Transport = "stdio",
    host: str = "127.0.0.1",
    port: int = 8000,
    loopback: bool = True,
) -> None:
    """Run the server until its input ends (stdio) or it is interrupted (HTTP at
    ``http://HOST:PORT/mcp``); closes the reader's sessions on the way out.

    On a ``loopback`` host, HTTP requests whose ``Host`` or ``Origin`` header names anything
    but a loopback address are refused (DNS rebinding: a web page must not reach the server
    through a name of its own); on another host (``--allow-remote``) nothing is checked.
    """
    server = build_server(reader)
    named = f"[{host}]" if ":" in host else host
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=loopback,
        allowed_hosts=[f"{named}:*", "127.0.0.1:*", "localhost:*", "[::1]:*"],
        allowed_origins=[
            f"http://{named}:*",
            "http://127.0.0.1:*",
            "http://localhost:*",
            "http://[::1]:*",
        ],
    )
    try:
        if transport == "stdio":
            anyio.run(server.run_stdio_async)
        else:
            anyio.run(
                lambda: server.run_streamable_http_async(
                    host=host, port=port, transport_security=security
                )
            )
    finally:
        reader.close()
