"""Helpers for the MCP server's tests (a plain module, as ``tests/helpers.py``): a client
session on a server in this process, every page of a fetch, pages joined back into chunks."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import anyio
from mcp import Client

from specbrowser.mcp.reader import Reader
from specbrowser.mcp.server import build_server
from specbrowser.model import Chunk

T = TypeVar("T")

BIG = "sec-big-table-clause"
"""The sample's section that its breakdown cuts deepest (a table cut into cells)."""
TABLE = f"{BIG}-emu-table-1"

TOOLS = {
    "search",
    "fetch_section_chunks",
    "check_subsections",
    "get_chunk",
    "reassemble_section",
    "outline",
    "list_specs",
    "chunk_sets",
}


def with_client(
    db: Path, script: Callable[[Client], Awaitable[T]], policy_version: str | None = None
) -> T:
    """Run ``script`` with a client connected to a server on ``db`` in this process."""

    async def run() -> T:
        reader = Reader(db, policy_version)
        try:
            async with Client(build_server(reader)) as client:
                return await script(client)
        finally:
            reader.close()

    return anyio.run(run)


def call(db: Path, tool: str, arguments: dict[str, Any], policy_version: str | None = None) -> Any:
    """One tool call; the CallToolResult."""
    return with_client(db, lambda c: c.call_tool(tool, arguments), policy_version)


def ok(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content[0].text
    assert result.content[0].type == "text" and result.content[0].text
    return result.structured_content


def fetch_all(client: Client, chunk_id: str, max_chars: int) -> Awaitable[list[dict[str, Any]]]:
    """Every page of ``fetch_section_chunks``, as the list of page chunks in order."""

    async def run() -> list[dict[str, Any]]:
        parts: list[dict[str, Any]] = []
        cursor = None
        for _ in range(10_000):
            args: dict[str, Any] = {"id": chunk_id, "max_chars": max_chars}
            if cursor:
                args["cursor"] = cursor
            page_ = ok(await client.call_tool("fetch_section_chunks", args))
            assert sum(len(c["text"]) for c in page_["chunks"]) <= max_chars
            parts += page_["chunks"]
            cursor = page_["next_cursor"]
            if cursor is None:
                return parts
        raise AssertionError("no last page")

    return run()


def joined(parts: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Page chunks joined back into whole chunks (parts of one chunk are consecutive and
    cover its text once, in order), by id, in order."""
    chunks: dict[str, dict[str, Any]] = {}
    for part in parts:
        known = chunks.get(part["id"])
        if known is None:
            assert part["text_start"] == 0, part["id"]
            chunks[part["id"]] = dict(part)
        else:
            assert known["text_end"] == part["text_start"] and known["continued"], part["id"]
            known["text"] += part["text"]
            known["text_end"], known["continued"] = part["text_end"], part["continued"]
    for chunk in chunks.values():
        assert not chunk["continued"] and len(chunk["text"]) == chunk["size"], chunk["id"]
    return chunks


def as_chunk(record: dict[str, Any]) -> Chunk:
    """A fetched chunk record as a :class:`Chunk` (what reassembly reads)."""
    return Chunk(
        id=record["id"],
        section_id=record["section_id"],
        parent_id=record["parent_id"],
        depth=record["depth"],
        layer=record["layer"],
        breakdown_tag=record["breakdown_tag"],
        title=record["title"],
        heading_path=record["heading_path"],
        text=record["text"],
        subsections=record["subsections"],
    )
