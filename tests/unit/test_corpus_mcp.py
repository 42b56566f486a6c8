"""The MCP tools on a corpus (the tests' two-spec database, ``corpus_db``): ``list_specs``,
a ``spec`` argument on ``search`` and ``outline``, and every chunk record naming its spec."""

from __future__ import annotations

from tests.mcp_helpers import call, ok


def test_list_specs_names_each_spec_in_corpus_order(corpus_db) -> None:
    result = ok(call(corpus_db, "list_specs", {}))
    assert [s["name"] for s in result["specs"]] == ["widget-protocol", "widget-timers"]
    protocol, timers = result["specs"]
    assert protocol["canonical_url"] == "https://example.org/widget-protocol/"
    assert timers["format"] == "ecmarkup-rendered" and timers["sections"] == 4
    assert timers["chunks"] == 5 and timers["embedded_share"] == 0.0


def test_search_covers_every_spec_or_the_one_named(corpus_db) -> None:
    everywhere = ok(call(corpus_db, "search", {"query": "session", "mode": "lexical"}))
    assert {h["spec"] for h in everywhere["hits"]} == {"widget-protocol", "widget-timers"}
    one = ok(
        call(corpus_db, "search", {"query": "session", "mode": "lexical", "spec": "widget-timers"})
    )
    assert one["hits"] and {h["spec"] for h in one["hits"]} == {"widget-timers"}


def test_an_unknown_spec_is_one_sentence_naming_the_specs(corpus_db) -> None:
    result = call(corpus_db, "search", {"query": "session", "spec": "nope"})
    assert result.is_error
    assert "no spec named 'nope'" in result.content[0].text
    assert "widget-protocol, widget-timers" in result.content[0].text


def test_chunk_records_carry_their_spec(corpus_db) -> None:
    got = ok(call(corpus_db, "get_chunk", {"id": "widget-timers:intro"}))
    assert got["chunk"]["spec"] == "widget-timers"
    assert ok(call(corpus_db, "get_chunk", {"id": "intro"}))["chunk"]["spec"] == "widget-protocol"
    fetched = ok(call(corpus_db, "fetch_section_chunks", {"id": "sec-timers"}))
    assert {c["spec"] for c in fetched["chunks"]} == {"widget-timers"}


def test_outline_of_one_spec_lists_only_its_sections(corpus_db) -> None:
    timers = ok(call(corpus_db, "outline", {"spec": "widget-timers"}))
    assert [s["section_id"] for s in timers["sections"]] == ["widget-timers:intro", "sec-timers"]
    every = ok(call(corpus_db, "outline", {}))
    assert "intro" in [s["section_id"] for s in every["sections"]]
    assert len(every["sections"]) > len(timers["sections"])


def test_chunk_sets_names_every_spec_of_the_corpus(corpus_db) -> None:
    result = call(corpus_db, "chunk_sets", {})
    assert ok(result)["specs"] == ["widget-protocol", "widget-timers"]
    assert result.content[0].text.startswith("specs: widget-protocol, widget-timers")
