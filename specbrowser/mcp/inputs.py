"""The tools' arguments: a model per parameter list, whose fields are a tool's parameters.

Each field's annotation (type, bounds, description) and default become one keyword parameter of
the function :func:`specbrowser.mcp.server.build_server` registers with the SDK, which derives
the tool's ``inputSchema`` from those parameters and validates every call's arguments against
them; the handler then gets the arguments as this model. The models have no docstrings, so
that each one's JSON schema is the tool's input schema but for its title; an argument that is no
field is refused (``additionalProperties: false``).
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from specbrowser.mcp.pages import DEFAULT_PAGE_CHARS, MAX_PAGE_CHARS, MIN_PAGE_CHARS
from specbrowser.types import Layer, SearchMode

MAX_LIMIT = 100
"""Most search hits one call returns."""

ChunkName = Annotated[str, Field(description="chunk id, section number (14.6) or anchor")]
"""The ``id`` parameter of the tools that read one chunk and what is below it."""


class Arguments(BaseModel):
    # No docstring: pydantic would take it as every subclass's schema description.
    model_config = ConfigDict(extra="forbid")


class SearchInput(Arguments):
    query: Annotated[str, Field(description="words to find, taken literally")]
    mode: Annotated[
        SearchMode,
        Field(
            description="hybrid (default: lexical and semantic fused; lexical alone when "
            "the database has no embeddings), lexical (FTS5, BM25) or semantic"
        ),
    ] = "hybrid"
    limit: Annotated[int, Field(ge=1, le=MAX_LIMIT, description="most hits")] = 10
    section: Annotated[
        str | None,
        Field(description="only this section and the sections below it (id or number)"),
    ] = None
    layer: Annotated[Layer | None, Field(description="only chunks of this layer")] = None
    spec: Annotated[
        str | None,
        Field(description="only chunks of this spec (its name, list_specs); none: every spec"),
    ] = None


class FetchInput(Arguments):
    id: ChunkName
    max_chars: Annotated[
        int,
        Field(
            ge=MIN_PAGE_CHARS,
            le=MAX_PAGE_CHARS,
            description="most characters of chunk text per page",
        ),
    ] = DEFAULT_PAGE_CHARS
    cursor: Annotated[
        str | None, Field(description="next_cursor of the previous page; none: first page")
    ] = None


class ChunkInput(Arguments):
    id: ChunkName


class GetChunkInput(Arguments):
    id: Annotated[
        str,
        Field(
            description="a chunk id, a section number (14.6, B.1, Annex B) or any anchor "
            "(an element id inside a section, e.g. prod-IfStatement)"
        ),
    ]


class OutlineInput(Arguments):
    id: Annotated[str | None, Field(description="a section id or number; none: the whole spec")] = (
        None
    )
    depth: Annotated[
        int | None,
        Field(
            ge=1,
            le=20,
            description="levels of sections below the one named (1: its child "
            "sections); for the whole spec, 1 gives the top-level sections",
        ),
    ] = 1
    spec: Annotated[
        str | None,
        Field(
            description="only the sections of this spec (its name, list_specs); none: every spec"
        ),
    ] = None


class NoInput(Arguments):
    pass
