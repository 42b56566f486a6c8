"""The MCP server over one specbrowser database, read-only.

:func:`build_server` registers every tool of :data:`~specbrowser.mcp.tools.TOOLS` (its input
model's fields are its input schema; its result is structured content, whose shape
:mod:`specbrowser.mcp.models` gives, plus the same as readable text) and the
``specbrowser://chunk/{id}`` resources on the official SDK's
:class:`~mcp.server.mcpserver.MCPServer`. Every read goes through a
:class:`~specbrowser.session.Session` on a worker thread (:class:`~specbrowser.mcp.reader.Reader`);
a mistake in the input (an unknown id, an empty query, a limit out of range, a bad cursor, an
argument that is no parameter) comes back as a tool error whose text is one sentence, never as
a failed server.
"""

from __future__ import annotations

import inspect
import logging
import sys
from collections.abc import Awaitable, Callable
from typing import Annotated, Any, Literal, get_type_hints
from urllib.parse import quote

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceNotFoundError, ToolError
from mcp.server.mcpserver.resources import ResourceSecurity
from mcp.server.stdio import stdio_server
from mcp.server.transport_security import TransportSecuritySettings
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from mcp_types import Resource as MCPResource
from mcp_types import Tool as MCPTool
from pydantic import BaseModel, ValidationError

from specbrowser import __version__
from specbrowser.errors import NotFoundError, SpecbrowserError
from specbrowser.mcp.pages import DEFAULT_PAGE_CHARS as DEFAULT_PAGE_CHARS
from specbrowser.mcp.reader import Reader
from specbrowser.mcp.stdio import ParseErrorReplies
from specbrowser.mcp.tools import TOOLS, Tool
from specbrowser.session import Session

SERVER_NAME = "specbrowser"

RESOURCE_PREFIX = "specbrowser://chunk/"
"""A chunk's resource URI is this prefix and its id, percent-encoded (``quote(id, safe="")``)."""

INSTRUCTIONS = """\
Tools over a specification (or a corpus of several), cut into chunks of Markdown. A chunk
whose content was too long holds marker lines `[Subsection available: title "…" at sectionid:
`ID`]` where parts were taken out (tables, grammar, cells, paragraphs, and child sections). To
read on: call check_subsections(ID) to see what a chunk's markers hold, get_chunk(ID) for one
of them, fetch_section_chunks(ID) for a chunk with all its descendants (paginated: pass
next_cursor back), or reassemble_section(ID) for the section's text with its breakdown markers
filled in. Start with search(query) or outline(); ids also accept section numbers (14.6) and
anchors.
"""

CLOSED = {"additionalProperties": False}
"""What a closed input schema adds: no argument but its properties."""

TOOLS_BY_NAME = {tool.name: tool for tool in TOOLS}

READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True)


class SpecServer(MCPServer[Any]):
    """:class:`MCPServer` with arguments that fail their schema (or are none of its parameters)
    answered in one sentence, the chunks of the top level listed as resources, and a malformed
    stdio line answered with a JSON-RPC error."""

    def __init__(self, reader: Reader) -> None:
        super().__init__(
            SERVER_NAME,
            title="specbrowser",
            description="A specification's chunk hierarchy for agents: search, fetch, check.",
            instructions=INSTRUCTIONS,
            version=__version__,
            log_level="WARNING",
        )
        self.reader = reader

    async def list_tools(self) -> list[MCPTool]:
        """The SDK's list, each input schema closed (``additionalProperties: false``) as its
        input model is: :meth:`call_tool` refuses an argument that is no parameter."""
        return [
            shown.model_copy(update={"input_schema": {**shown.input_schema, **CLOSED}})
            for shown in await super().list_tools()
        ]

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        tool = TOOLS_BY_NAME.get(name)
        if tool is not None:  # the SDK's argument model ignores names that are no parameter
            unknown = [key for key in arguments if key not in tool.input_model.model_fields]
            if unknown:
                raise ToolError(unknown_arguments_error(tool, unknown))
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                raise ToolError(argument_error(name, exc.__cause__)) from None
            raise

    async def run_stdio_async(self) -> None:
        """Serve over stdio as the SDK does, but answer each line that is not a JSON-RPC
        message with an error (:class:`~specbrowser.mcp.stdio.ParseErrorReplies`)."""
        server = self._lowlevel_server  # what the SDK's own run_stdio_async runs
        async with stdio_server() as (read_stream, write_stream):
            await server.run(
                ParseErrorReplies(read_stream, write_stream),
                write_stream,
                server.create_initialization_options(),
            )

    async def list_resources(self) -> list[MCPResource]:
        """The document chunk and the root chunks of the top-level sections, spec by spec in
        a corpus (every other chunk is reached through the template, from the markers)."""

        def roots(session: Session, version: str) -> list[MCPResource]:
            documents = {c.id: c for c in session.document_chunks(version)}
            chunks = []
            for spec in session.spec_rows():
                document = documents.get(spec.document_chunk_id)
                chunks += [document] if document else []
                chunks += session.top_level_chunks(version, spec.id)
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


def unknown_arguments_error(tool: Tool[Any, Any], unknown: list[str]) -> str:
    """One sentence naming the arguments given to ``tool`` that are none of its parameters,
    and its parameters."""
    names = ", ".join(repr(key) for key in unknown)
    plural = "s" if len(unknown) > 1 else ""
    parameters = ", ".join(tool.input_model.model_fields)
    takes = f"takes {parameters}" if parameters else "takes no arguments"
    return f"unknown argument{plural} {names} for {tool.name}, which {takes}"


def _result(model: BaseModel, text: str) -> CallToolResult:
    return CallToolResult(
        content=[TextContent(type="text", text=text)],
        structured_content=model.model_dump(mode="json"),
    )


def _error(message: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=message)], is_error=True)


def build_server(reader: Reader) -> SpecServer:
    """The server with every tool of :data:`~specbrowser.mcp.tools.TOOLS` and the chunk
    resources, reading through ``reader``."""
    server = SpecServer(reader)
    for tool in TOOLS:
        server.add_tool(
            _tool_function(tool, reader),
            name=tool.name,
            description=tool.description,
            annotations=READ_ONLY,
        )

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


def _tool_function(
    tool: Tool[Any, Any], reader: Reader
) -> Callable[..., Awaitable[CallToolResult]]:
    """``tool`` as the SDK registers a function: its keyword parameters are the fields of
    ``tool.input_model`` (the SDK derives the input schema from them and validates the arguments),
    its return annotation names ``tool.output_model`` (the output schema, which the SDK checks the
    structured content against). A call runs the handler on the reader: the result model as
    structured content and ``tool.text`` of it as readable text, or a user error as an error
    result."""

    async def call(**arguments: Any) -> CallToolResult:
        args = tool.input_model.model_validate(arguments)
        try:
            model = await reader.call(lambda session, version: tool.handler(session, version, args))
        except SpecbrowserError as exc:
            return _error(str(exc))
        return _result(model, tool.text(model))

    call.__name__ = tool.name  # the SDK names the argument model after it: f"{name}Arguments"
    call.__signature__ = _signature(tool)  # type: ignore[attr-defined]  # what inspect reads
    return call


def _signature(tool: Tool[Any, Any]) -> inspect.Signature:
    """One keyword parameter per field of the input model, with the field's annotation as
    written (``Annotated[type, Field(...)]``) and its default; returns the output model."""
    hints = get_type_hints(tool.input_model, include_extras=True)
    parameters = [
        inspect.Parameter(
            name,
            inspect.Parameter.KEYWORD_ONLY,
            default=inspect.Parameter.empty if field.is_required() else field.default,
            annotation=hints[name],
        )
        for name, field in tool.input_model.model_fields.items()
    ]
    return inspect.Signature(
        parameters, return_annotation=Annotated[CallToolResult, tool.output_model]
    )


Transport = Literal["stdio", "http"]


class _OneLine(logging.Formatter):
    """A record as one line, as specbrowser's own lines read (``warning: …``)."""

    def format(self, record: logging.LogRecord) -> str:
        line = f"{record.levelname.lower()}: {record.getMessage()}"
        if record.exc_info and record.exc_info[1] is not None:
            line += f" ({type(record.exc_info[1]).__name__}: {record.exc_info[1]})"
        return " ".join(line.split())


def log_in_one_line() -> None:
    """Send the server's warnings (the SDK's, such as a refused ``Host`` header) to stderr one
    plain line each. Called before the server is made: the SDK's constructor otherwise sets up
    Rich's handler, several lines and a timestamp a record (``logging.basicConfig`` leaves a
    root logger that has a handler as it is). A no-op when the root logger has one already."""
    if logging.getLogger().handlers:
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_OneLine())
    logging.basicConfig(level=logging.WARNING, handlers=[handler])


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
    log_in_one_line()
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
