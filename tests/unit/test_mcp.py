"""The MCP server (``specbrowser mcp``): every tool through a real MCP client session.

The SDK's client is paired with the server in this process (``mcp.Client`` given the server
object: the same request handling, without a transport); ``test_mcp_transports.py`` runs the
command itself over stdio and HTTP. The sample spec is ``toylang_db`` (threshold 800, seed
strategy: tables cut into cells).
"""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any
from urllib.parse import quote

import pytest
from mcp import Client

from specbrowser.chunking.markers import marker_ids
from specbrowser.chunking.reassemble import reassemble
from specbrowser.cli import main
from specbrowser.mcp.pages import Cursor, page
from specbrowser.model import DOCUMENT_CHUNK_ID
from specbrowser.search.query import SearchFilter
from specbrowser.session import Session
from tests.mcp_helpers import BIG, TABLE, TOOLS, as_chunk, call, fetch_all, joined, ok, with_client

# --- the tools -------------------------------------------------------------------------------


def test_every_tool_is_listed_with_input_and_output_schemas(toylang_db):
    async def script(client: Client) -> Any:
        return await client.list_tools()

    tools = {t.name: t for t in with_client(toylang_db, script).tools}
    assert set(tools) == TOOLS
    for tool in tools.values():
        assert tool.description and tool.output_schema, tool.name
        assert "  " not in tool.description and "\n" not in tool.description
        assert tool.annotations and tool.annotations.read_only_hint
    search = tools["search"].input_schema
    assert search["required"] == ["query"]
    assert search["properties"]["limit"]["maximum"] == 100
    assert set(search["properties"]) == {"query", "mode", "limit", "section", "layer", "spec"}


def test_search_ranks_as_the_cli_and_names_paths(toylang_db):
    found = ok(call(toylang_db, "search", {"query": "widget slot", "mode": "lexical", "limit": 5}))
    with Session.open(toylang_db) as session:
        expected = session.search("widget slot", "lexical", limit=5)
    assert [h["chunk_id"] for h in found["hits"]] == [h.chunk_id for h in expected]
    assert [h["score"] for h in found["hits"]] == pytest.approx([h.score for h in expected])
    first = found["hits"][0]
    assert first["heading_path"] and first["toc_path"] and "«" in first["snippet"]
    assert found["mode"] == "lexical" and found["coverage"] == ""


def test_search_filters_by_section_number_and_layer(toylang_db):
    found = ok(
        call(toylang_db, "search", {"query": "widget", "section": "4", "layer": "subsection"})
    )
    with Session.open(toylang_db) as session:
        inside = {c.id for c in session.descendants("sec-data-types-and-values")}
    assert found["hits"] and all(h["chunk_id"] in inside for h in found["hits"])
    assert {h["layer"] for h in found["hits"]} == {"subsection"}


def test_hybrid_without_embeddings_is_lexical_and_says_so(toylang_db):
    found = ok(call(toylang_db, "search", {"query": "widget"}))
    with Session.open(toylang_db) as session:
        lexical = [h.chunk_id for h in session.search("widget", "lexical", limit=10)]
    assert [h["chunk_id"] for h in found["hits"]] == lexical
    assert found["mode"] == "hybrid" and "lexical results only" in found["coverage"]
    semantic = call(toylang_db, "search", {"query": "widget", "mode": "semantic"})
    assert semantic.is_error and "embeddings" in semantic.content[0].text


@pytest.mark.parametrize(
    "name, chunk_id, resolved_as",
    [
        (TABLE, TABLE, "chunk"),
        ("4.2.2", BIG, "section"),
        ("sec-data-types-and-values", "sec-data-types-and-values", "chunk"),
        ("prod-BehaviourDeclaration", f"{BIG}-emu-grammar-1", "anchor"),
        (DOCUMENT_CHUNK_ID, DOCUMENT_CHUNK_ID, "chunk"),
    ],
)
def test_get_chunk_takes_an_id_a_number_or_an_anchor(toylang_db, name, chunk_id, resolved_as):
    found = ok(call(toylang_db, "get_chunk", {"id": name}))
    assert found["chunk"]["id"] == chunk_id and found["resolved_as"] == resolved_as
    assert marker_ids(found["chunk"]["text"]) == found["chunk"]["subsections"]


def test_check_subsections_gives_kind_title_size_and_overrun(toylang_db):
    found = ok(call(toylang_db, "check_subsections", {"id": BIG}))
    with Session.open(toylang_db) as session:
        root = session.chunk(BIG)
        children = {c.id: c for c in session.subsections(root)}
    assert [s["id"] for s in found["subsections"]] == root.subsections
    for sub in found["subsections"]:
        child = children[sub["id"]]
        assert sub["kind"] == child.breakdown_tag and not sub["is_section"]
        assert (sub["size"], sub["over_threshold"]) == (child.size, child.over_threshold)
    sections = ok(call(toylang_db, "check_subsections", {"id": "2"}))["subsections"]
    assert {s["kind"] for s in sections} == {"emu-clause"} and all(
        s["is_section"] for s in sections
    )
    leaf = ok(call(toylang_db, "check_subsections", {"id": f"{TABLE}-td-1"}))
    assert leaf["subsections"] == []


@pytest.mark.parametrize("max_chars", [1_000, 4_000, 200_000])
def test_fetch_section_chunks_pages_hold_every_character_once(toylang_db, max_chars):
    parts = with_client(toylang_db, lambda c: fetch_all(c, "sec-data-types-and-values", max_chars))
    chunks = joined(parts)
    with Session.open(toylang_db) as session:
        walk = list(session.descendants("sec-data-types-and-values"))
        expected = session.reassembled(BIG).text
    assert list(chunks) == [c.id for c in walk]
    assert [c["text"] for c in chunks.values()] == [c.text for c in walk]
    for chunk in chunks.values():  # every marker names a fetched chunk
        assert set(marker_ids(chunk["text"])) <= set(chunks), chunk["id"]
    assert reassemble(BIG, {i: as_chunk(c) for i, c in chunks.items()}) == expected


def test_a_page_cuts_only_a_chunk_longer_than_what_is_left(toylang_db):
    with Session.open(toylang_db) as session:
        walk = list(session.descendants(BIG))
    parts, index, offset = page(walk, 0, 0, 1_000)
    cut = parts[0].end
    assert len(parts) == 1 and parts[0].start == 0 and 500 < cut <= 1_000 < walk[0].size
    assert walk[0].text[cut - 1] == "\n" and (index, offset) == (0, cut)  # after a whole line
    parts, index, offset = page(walk, 0, cut, 100_000)
    assert parts[0].start == cut and index == len(walk) and offset == 0


def test_reassemble_section_puts_every_breakdown_marker_back(toylang_db):
    found = ok(call(toylang_db, "reassemble_section", {"id": "4.2.2"}))
    assert found["id"] == BIG and found["chunks"] > 10
    assert "Subsection available" not in found["text"]
    with Session.open(toylang_db) as session:
        assert found["text"] == session.reassembled(BIG).text
    parent = ok(call(toylang_db, "reassemble_section", {"id": "2"}))
    assert parent["child_sections"] == ["sec-grammar-notation", "sec-algorithm-conventions"]


def test_outline_gives_the_tree_with_toc_paths(toylang_db):
    top = ok(call(toylang_db, "outline", {}))["sections"]
    assert [s["depth"] for s in top] == [0] * 9 and top[4]["number"] == "3"  # front matter first
    under = ok(call(toylang_db, "outline", {"id": "4", "depth": 5}))["sections"]
    assert under[0]["section_id"] == "sec-data-types-and-values"
    big = next(s for s in under if s["section_id"] == BIG)
    assert big["toc_path"][-1].startswith("4.2.2") and big["chunks"] > 10
    assert big["over_threshold"] >= 1


def test_chunk_sets_and_a_server_pinned_to_another_set(toylang_db, capsys):
    with Session.open(toylang_db) as session:
        first = session.active_version()
    assert main(["rechunk", str(toylang_db), "--threshold", "3000"]) == 0
    capsys.readouterr()
    sets = ok(call(toylang_db, "chunk_sets", {}))
    assert len(sets["sets"]) == 2 and sets["served"] != first
    pinned = ok(call(toylang_db, "chunk_sets", {}, policy_version=first[:6]))
    assert pinned["served"] == first
    served = next(s for s in pinned["sets"] if s["served"])
    assert not served["active"] and (served["threshold"], served["unit"]) == (800, "chars")
    found = ok(call(toylang_db, "get_chunk", {"id": TABLE}, policy_version=first))
    assert found["policy_version"] == first  # the active set at 3000 has no such cell table


def test_chunks_are_resources(toylang_db):
    async def script(client: Client) -> Any:
        listed = await client.list_resources()
        document = await client.read_resource(
            "specbrowser://chunk/" + quote(DOCUMENT_CHUNK_ID, safe="")
        )
        cell = await client.read_resource(f"specbrowser://chunk/{TABLE}-td-3")
        try:
            await client.read_resource("specbrowser://chunk/sec-nope")
        except Exception as error:  # the SDK raises the server's error
            missing = str(error)
        return listed, document, cell, missing

    listed, document, cell, missing = with_client(toylang_db, script)
    uris = [r.uri for r in listed.resources]
    assert uris[0] == "specbrowser://chunk/specbrowser%3Adocument" and len(uris) == 10
    assert document.contents[0].text.startswith("# Toylang")
    assert cell.contents[0].mime_type == "text/markdown" and cell.contents[0].text
    assert "sec-nope" in missing


# --- bad input: one sentence, and the server goes on -------------------------------------------


@pytest.mark.parametrize(
    "tool, arguments, expected",
    [
        ("get_chunk", {"id": "sec-nope"}, "no chunk, section, section number or anchor"),
        ("get_chunk", {"id": "  "}, "no id given"),
        ("get_chunk", {}, "get_chunk needs the argument 'id'"),
        ("search", {"query": "   "}, "the query is empty"),
        ("search", {"query": "x", "limit": 0}, "invalid argument 'limit' for search"),
        ("search", {"query": "x", "limit": 101}, "less than or equal to 100"),
        ("search", {"query": "x", "mode": "fuzzy"}, "invalid argument 'mode'"),
        ("search", {"query": "x", "section": "99.9"}, "no section with id or number"),
        ("fetch_section_chunks", {"id": BIG, "cursor": "not-a-cursor"}, "the cursor is not"),
        ("fetch_section_chunks", {"id": BIG, "max_chars": 10}, "invalid argument 'max_chars'"),
        ("check_subsections", {"id": "sec-nope"}, "no chunk, section"),
        ("reassemble_section", {"id": "sec-nope"}, "no chunk, section"),
        ("outline", {"id": "sec-nope"}, "no section with id or number"),
        ("outline", {"depth": 0}, "invalid argument 'depth'"),
        ("chunk_sets", {"unexpected": 1}, "unknown argument 'unexpected' for chunk_sets"),
        ("search", {"query": "x", "lim": 1, "q": 2}, "unknown arguments 'lim', 'q' for search"),
        ("no_such_tool", {}, "no_such_tool"),
    ],
)
def test_bad_input_is_one_sentence_and_the_server_goes_on(toylang_db, tool, arguments, expected):
    async def script(client: Client) -> tuple[Any, Any]:
        return await client.call_tool(tool, arguments), await client.call_tool("chunk_sets", {})

    bad, after = with_client(toylang_db, script)
    text = bad.content[0].text
    assert bad.is_error and expected in text and "\n" not in text and "Traceback" not in text
    ok(after)


def test_a_cursor_for_another_chunk_is_refused(toylang_db):
    async def script(client: Client) -> Any:
        first = ok(await client.call_tool("fetch_section_chunks", {"id": BIG, "max_chars": 1_000}))
        return await client.call_tool(
            "fetch_section_chunks", {"id": "sec-intro", "cursor": first["next_cursor"]}
        )

    refused = with_client(toylang_db, script)
    assert refused.is_error and "not for 'sec-intro'" in refused.content[0].text


# --- the database changing under the server --------------------------------------------------


def test_a_set_activated_from_another_shell_is_read_at_the_next_call(toylang_db, capsys):
    async def script(client: Client) -> tuple[str, str]:
        before = ok(await client.call_tool("chunk_sets", {}))["served"]
        assert main(["rechunk", str(toylang_db), "--threshold", "3000"]) == 0
        after = ok(await client.call_tool("chunk_sets", {}))["served"]
        return before, after

    before, after = with_client(toylang_db, script)
    capsys.readouterr()
    assert before != after


def test_a_database_replaced_under_the_server_is_opened_again(toylang_db, ingested_db, tmp_path):
    from specbrowser.chunking.policy import ChunkPolicy
    from tests.helpers import MISMATCHED_TOC

    other = ingested_db(MISMATCHED_TOC, ChunkPolicy(), name="other.db")

    async def script(client: Client) -> tuple[str, str]:
        before = ok(await client.call_tool("chunk_sets", {}))["document"]
        os.replace(other, toylang_db)  # as a re-ingest into a new file renamed over it would
        after = ok(await client.call_tool("chunk_sets", {}))["document"]
        return before, after

    before, after = with_client(toylang_db, script)
    assert before != after


def test_a_locked_database_is_one_sentence_then_read_again(toylang_db, monkeypatch):
    import specbrowser.store.connection as connection

    monkeypatch.setattr(connection, "BUSY_TIMEOUT_S", 0.05)
    # another process (POSIX locks do not stop a connection of the same process) with the file
    # to itself: the one lock that stops reads in write-ahead-log mode, taken before the
    # server's workers open it (once they have it open, nothing can take it)
    hold = (
        "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); "
        "c.execute('PRAGMA locking_mode = EXCLUSIVE'); c.execute('BEGIN EXCLUSIVE'); "
        "print('locked', flush=True); sys.stdin.read(); c.rollback()"
    )

    async def script(client: Client) -> tuple[Any, Any]:
        with subprocess.Popen(
            [sys.executable, "-c", hold, str(toylang_db)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        ) as holder:
            assert holder.stdout and holder.stdin
            assert holder.stdout.readline().strip() == "locked"
            locked = await client.call_tool("get_chunk", {"id": "sec-intro"})
            holder.stdin.close()
            holder.wait(timeout=10)
        return locked, await client.call_tool("get_chunk", {"id": "sec-intro"})

    locked, after = with_client(toylang_db, script)
    assert locked.is_error and "locked by another process" in locked.content[0].text
    ok(after)


def test_search_filter_is_the_cli_s(toylang_db):
    with Session.open(toylang_db) as session:
        where = SearchFilter(section="sec-data-types-and-values", layer="subsection")
        hits = session.search("widget", "lexical", limit=5, where=where)
    found = ok(
        call(
            toylang_db,
            "search",
            {
                "query": "widget",
                "section": "4",
                "layer": "subsection",
                "mode": "lexical",
                "limit": 5,
            },
        )
    )
    assert [h["chunk_id"] for h in found["hits"]] == [h.chunk_id for h in hits]


def test_cursor_round_trip():
    cursor = Cursor("abc", "sec-%x@[1]", 3, 17)
    assert Cursor.decode(cursor.encode(), "sec-%x@[1]") == cursor


def test_semantic_search_through_the_server(tmp_path, embedder):
    from specbrowser.chunking.policy import ChunkPolicy
    from specbrowser.search import query as search_module
    from specbrowser.search.embed import embed_missing
    from specbrowser.session.ingest import ingest
    from specbrowser.store import open_database
    from tests.helpers import write_spec

    texts = {
        "sec-fruit": "Apples and pears are sweet fruits that grow on trees in orchards.",
        "sec-rain": "Rain falls from clouds when water vapour condenses into droplets.",
    }
    body = "".join(
        f'<emu-clause id="{sid}"><h1>{sid}</h1><p>{text}</p></emu-clause>'
        for sid, text in texts.items()
    )
    path = tmp_path / "e.db"
    ingest([write_spec(tmp_path, body)], path, ChunkPolicy())
    with open_database(path) as database:
        embed_missing(database, embedder, database.active_version())
    search_module._EMBEDDERS[embedder.name] = embedder  # the loaded model, not a second load
    found = ok(call(path, "search", {"query": "weather precipitation", "mode": "semantic"}))
    assert found["hits"][0]["chunk_id"] == "sec-rain" and found["hits"][0]["mode"] == "semantic"
    fused = ok(call(path, "search", {"query": "weather precipitation"}))
    assert fused["hits"][0]["chunk_id"] == "sec-rain" and fused["coverage"] == ""


def test_odd_queries_are_searched_literally(toylang_db):
    queries = ["[[Prototype]]", "%TypedArray%", "AND", "C++", 'a"b', "NEAR("]

    async def script(client: Client) -> list[Any]:
        return [await client.call_tool("search", {"query": q, "mode": "lexical"}) for q in queries]

    for query, result in zip(queries, with_client(toylang_db, script), strict=True):
        assert not result.is_error, (query, result.content[0].text)


def test_a_query_of_punctuation_only_is_a_tool_error_naming_it(toylang_db):
    async def script(client: Client) -> Any:
        return await client.call_tool("search", {"query": " *** ", "mode": "lexical"})

    result = with_client(toylang_db, script)
    assert result.is_error
    assert "'***' has no letter or digit" in result.content[0].text
