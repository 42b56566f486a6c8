"""The MCP server on the real ECMA-262 (skipped when ../shared is absent).

``fetch_section_chunks`` of any section returns exactly the section's content: every chunk of
its walk once, every marker naming a fetched chunk, and the fetched breakdown tree reassembling
to ``reassemble_section``'s text. Checked for every section on the pages the tool builds
(:func:`specbrowser.mcp.pages.page` over the walk, the cheap way), and through a real client
session for the ten sections whose own text is largest.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from mcp import Client

from specbrowser.chunking.markers import marker_ids
from specbrowser.chunking.reassemble import reassemble
from specbrowser.mcp.pages import page
from specbrowser.mcp.server import DEFAULT_PAGE_CHARS
from specbrowser.model import Chunk
from specbrowser.session import Session
from tests.helpers import ECMA262, REAL_SHARED
from tests.mcp_helpers import TOOLS, as_chunk, fetch_all, joined, ok, with_client

pytestmark = [
    pytest.mark.real,
    REAL_SHARED,
    pytest.mark.skipif(
        not (ECMA262 / "index.html").exists(),
        reason=f"real specs not found at {ECMA262} (CI has ../shared beside the checkout)",
    ),
]


@pytest.fixture(scope="module")
def ecma_db(real_db):
    """The session's ECMA-262 ingest under the default policy, this module's copy."""
    return real_db("ecma262")


def _walk(chunks: dict[str, Chunk], root: str) -> list[Chunk]:
    """A chunk and its descendants in pre-order (as ``Session.descendants`` walks them)."""
    found, stack = [], [chunks[root]]
    while stack:
        chunk = stack.pop()
        found.append(chunk)
        stack.extend(reversed([chunks[i] for i in chunk.subsections]))
    return found


def _own_tree(chunks: dict[str, Chunk], root: str) -> dict[str, Chunk]:
    return {
        c.id: c
        for c in _walk(chunks, root)
        if c.section_id == chunks[root].section_id and (c.id == root or c.parent_id is not None)
    }


def test_every_section_s_pages_hold_its_content_once(ecma_db):
    session = Session.open(ecma_db)
    chunks = {c.id: c for c in session.store.iter_chunks()}
    sections = [row[0] for row in session.section_titles()]
    assert len(sections) == 2254  # with the front matter
    for section_id in sections:
        walk = _walk(chunks, section_id)
        fetched: dict[str, str] = {}
        index, offset = 0, 0
        while index < len(walk):
            parts, index, offset = page(walk, index, offset, DEFAULT_PAGE_CHARS)
            assert sum(p.end - p.start for p in parts) <= DEFAULT_PAGE_CHARS
            for part in parts:
                fetched[part.chunk.id] = (
                    fetched.get(part.chunk.id, "") + part.chunk.text[part.start : part.end]
                )
        assert list(fetched) == [c.id for c in walk], section_id
        assert all(fetched[c.id] == c.text for c in walk), section_id
        for text in fetched.values():
            assert set(marker_ids(text)) <= set(fetched), section_id
        own = {i: replace(chunks[i], text=fetched[i]) for i in _own_tree(chunks, section_id)}
        text = reassemble(section_id, own)
        assert text == session.reassembled(section_id).text, section_id
        assert all(chunks[i].parent_id is None for i in marker_ids(text)), section_id


def test_ten_largest_sections_fetched_through_a_client_session(ecma_db):
    with Session.open(ecma_db) as session:
        chunks = {c.id: c for c in session.store.iter_chunks()}
        sections = [row[0] for row in session.section_titles()]
    size = {s: sum(c.size for c in _own_tree(chunks, s).values()) for s in sections}
    largest = sorted(sections, key=lambda s: -size[s])[:10]

    async def script(client: Client) -> list[tuple[str, list[dict[str, Any]], dict[str, Any]]]:
        found = []
        for section_id in largest:
            parts = await fetch_all(client, section_id, DEFAULT_PAGE_CHARS)
            whole = ok(await client.call_tool("reassemble_section", {"id": section_id}))
            found.append((section_id, parts, whole))
        return found

    for section_id, parts, whole in with_client(ecma_db, script):
        fetched = joined(parts)
        assert list(fetched) == [c.id for c in _walk(chunks, section_id)], section_id
        for record in fetched.values():
            assert set(marker_ids(record["text"])) <= set(fetched), section_id
        own = {i: as_chunk(r) for i, r in fetched.items() if i in _own_tree(chunks, section_id)}
        assert reassemble(section_id, own) == whole["text"], section_id
        assert whole["chunks"] == len(own) > 1


def test_an_agent_session_on_ecma262(ecma_db):
    """The closing transcript: list the tools, search, check a broken-down section's
    subsections, fetch it recursively, read a chunk by number and by anchor."""

    async def script(client: Client) -> dict[str, Any]:
        tools = await client.list_tools()
        hits = ok(await client.call_tool("search", {"query": "if statement", "section": "14.6"}))
        subs = ok(await client.call_tool("check_subsections", {"id": "sec-if-statement"}))
        fetched = await fetch_all(client, "sec-if-statement", DEFAULT_PAGE_CHARS)
        number = ok(await client.call_tool("get_chunk", {"id": "14.6"}))
        anchor = ok(await client.call_tool("get_chunk", {"id": "prod-IfStatement"}))
        outline = ok(await client.call_tool("outline", {"id": "14", "depth": 1}))
        return {
            "tools": {t.name for t in tools.tools},
            "hits": hits,
            "subs": subs,
            "fetched": fetched,
            "number": number,
            "anchor": anchor,
            "outline": outline,
        }

    seen = with_client(ecma_db, script)
    assert seen["tools"] == TOOLS
    assert seen["hits"]["hits"]
    assert {h["section_id"] for h in seen["hits"]["hits"]} <= {
        "sec-if-statement",
        "sec-if-statement-static-semantics-early-errors",
        "sec-if-statement-runtime-semantics-evaluation",
    }
    assert seen["subs"]["subsections"]
    assert joined(seen["fetched"])["sec-if-statement"]["section_number"] == "14.6"
    assert seen["number"]["chunk"]["id"] == "sec-if-statement"
    assert seen["anchor"]["resolved_as"] == "anchor"
    assert seen["anchor"]["chunk"]["section_id"] == "sec-if-statement"
    assert any(s["section_id"] == "sec-if-statement" for s in seen["outline"]["sections"])
