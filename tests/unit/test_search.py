"""Lexical search (FTS5): literal queries that never raise (C13, C14), BM25 order, sync."""

from __future__ import annotations

import json

import pytest

from specbrowser.chunking.policy import ChunkPolicy
from specbrowser.cli import main
from specbrowser.errors import NotFoundError, PolicyError
from specbrowser.search.query import (
    HIGHLIGHT_START,
    SearchFilter,
    lexical_search,
    literal_query,
    run_search,
)
from specbrowser.session.ingest import ingest
from specbrowser.store import open_database
from tests.helpers import set_fts_in_sync, write_spec


def spec_of(tmp_path, texts: list[str], *, summaries: bool = False):
    """A spec of one clause per text. Without summaries by default: in a spec of a few
    top-level clauses the document chunk's section guide repeats every clause's text, so it
    would match every query these tests make (test_summaries_stay_out_of_the_index covers
    them)."""
    body = "".join(
        f'<emu-clause id="sec-{i}"><h1>Clause {i}</h1><p>{t}</p></emu-clause>'
        for i, t in enumerate(texts)
    )
    path = tmp_path / "s.db"
    ingest([write_spec(tmp_path, body)], path, ChunkPolicy(summaries=summaries))
    return open_database(path)


def test_summaries_stay_out_of_the_index_but_not_the_retrieval_text(tmp_path):
    """The Document summary line, which every chunk shares, is not indexed: a word found only
    there matches the section it was taken from (and the document chunk's summary), not every
    chunk; a section's own summary line is indexed with its chunks."""
    db = spec_of(
        tmp_path,
        ["This specification defines the zanzibar widget protocol.", "Widgets rotate slowly."],
        summaries=True,
    )
    header = db.db.execute("SELECT retrieval_text FROM chunks WHERE id = 'sec-1'").fetchone()[0]
    assert header.startswith("Document summary: This specification defines the zanzibar")
    assert "Section summary: Widgets rotate slowly." in header
    hits = {h.chunk_id for h in lexical_search(db, "zanzibar")}
    assert "sec-0" in hits and "sec-1" not in hits


C13_TEXTS = [
    "Array.prototype.map calls the callback",
    "the [[Prototype]] internal slot",
    "%TypedArray%.prototype",
    "for-in statement",
    "ToString ( argument )",
    "Symbol.iterator method @@iterator",
    "C++ style",
    "BindingIdentifier : Identifier",
]


@pytest.mark.parametrize(
    "query, expected",
    [
        ("Array.prototype.map", "sec-0"),
        ("[[Prototype]]", "sec-1"),
        ("%TypedArray%", "sec-2"),
        ("for-in", "sec-3"),
        ("ToString(", "sec-4"),
        ("@@iterator", "sec-5"),
        ("C++", "sec-6"),
        ("BindingIdentifier ::", "sec-7"),
    ],
)
def test_C13_spec_punctuation_is_searched_literally(tmp_path, query, expected):
    db = spec_of(tmp_path, C13_TEXTS)
    hits = [h.chunk_id for h in lexical_search(db, query)]
    assert expected in hits
    if query != "[[Prototype]]":  # "prototype" is in three texts; the rest are unique
        assert hits == [expected]


@pytest.mark.parametrize(
    "query, expected",
    [
        ("NOT", ["sec-0"]),
        ("AND", None),
        ("OR", None),
        ("don't", ["sec-1"]),
        ('foo"bar', []),
        ('"unterminated', []),
        ("*", []),
        ("(", []),
        ("?", []),
        ("x AND", None),
        ("-band", []),
        ("ToPrimitive and ToNumber", ["sec-2"]),
        ("", []),
        ("   ", []),
    ],
)
def test_C14_quotes_apostrophes_and_operator_words_never_raise(tmp_path, query, expected):
    db = spec_of(tmp_path, ["do not use it", "don't panic", "ToPrimitive and ToNumber are called"])
    for advanced in (False, True):
        hits = [h.chunk_id for h in lexical_search(db, query, advanced=advanced)]
        if expected is not None:
            assert hits == expected, (query, advanced)


def test_advanced_syntax_works_and_falls_back_to_literal(tmp_path):
    db = spec_of(tmp_path, ["alpha beta gamma", "alphabet soup", "beta only"])
    assert {h.chunk_id for h in lexical_search(db, "alpha*", advanced=True)} == {"sec-0", "sec-1"}
    assert [h.chunk_id for h in lexical_search(db, "alpha OR soup", advanced=True)] != []
    # unbalanced parenthesis: not FTS5 syntax, so literal: finds "beta" texts, never an error
    assert {h.chunk_id for h in lexical_search(db, "(beta", advanced=True)} == {"sec-0", "sec-2"}


def test_bm25_prefers_title_and_density_and_snippets_mark_terms(tmp_path):
    db = spec_of(tmp_path, ["widget widget widget", "one widget among many other words here"])
    hits = lexical_search(db, "widget")
    assert [h.chunk_id for h in hits] == ["sec-0", "sec-1"]
    assert hits[0].score > hits[1].score
    assert HIGHLIGHT_START + "widget" in hits[0].snippet.lower()


def test_fts_stays_in_sync_with_chunks_on_reingest_and_new_chunk_sets(tmp_path):
    spec = write_spec(tmp_path, '<emu-clause id="a"><h1>A</h1><p>OLDWORD</p></emu-clause>')
    path = tmp_path / "s.db"
    ingest([spec], path, ChunkPolicy())
    ingest([spec], path, ChunkPolicy(threshold=10))  # a second chunk set
    db = open_database(path)
    texts = db.db.execute("SELECT count(DISTINCT text_id) FROM chunk_rows").fetchone()[0]
    assert all(indexed == used for indexed, used in set_fts_in_sync(db).values())
    assert len(set_fts_in_sync(db)) == 2
    assert db.db.execute("SELECT count(*) FROM texts").fetchone()[0] == texts
    spec.write_text(spec.read_text().replace("OLDWORD", "NEWWORD"))
    ingest([spec], path, ChunkPolicy())  # another spec: everything replaced
    db = open_database(path)
    assert lexical_search(db, "OLDWORD") == []
    assert [h.chunk_id for h in lexical_search(db, "NEWWORD")] == ["a"]
    ((indexed, used),) = set_fts_in_sync(db).values()
    assert (
        indexed
        == used
        == db.db.execute("SELECT count(*) FROM texts").fetchone()[0]
        == db.db.execute("SELECT count(DISTINCT text_id) FROM chunk_rows").fetchone()[0]
    )


def test_literal_query_quotes_every_token():
    assert literal_query('a.b "c') == '"a.b" """c"'
    assert literal_query("*** --") is None


def test_search_command(tmp_path, capsys):
    db = spec_of(tmp_path, C13_TEXTS)
    db.close()
    path = str(tmp_path / "s.db")
    capsys.readouterr()
    assert main(["search", path, "%TypedArray%", "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert [h["chunk_id"] for h in payload["hits"]] == ["sec-2"]
    assert main(["search", path, "[bold]", '"']) == 0  # Rich markup and quotes stay text
    assert "no chunk matches [bold]" in capsys.readouterr().out


def test_reciprocal_rank_fusion_sums_reciprocal_ranks():
    from specbrowser.search.query import Hit, reciprocal_rank_fusion

    def hits(*ids):
        return [Hit(i, i, i, [], 0.0, "") for i in ids]

    fused = reciprocal_rank_fusion([hits("a", "b", "c"), hits("c", "a", "d")], k=60)
    assert [h.chunk_id for h in fused] == ["a", "c", "b", "d"]
    assert fused[0].score == 1 / 61 + 1 / 62 and fused[0].mode == "hybrid"
    assert [h.chunk_id for h in reciprocal_rank_fusion([hits("x"), []], limit=1)] == ["x"]
    weighted = reciprocal_rank_fusion([hits("a", "b"), hits("b", "a")], weights=[1.0, 0.5])
    assert [h.chunk_id for h in weighted] == ["a", "b"]  # the heavier list's order wins a tie


def test_search_modes_without_embeddings_say_so_and_fall_back(tmp_path, capsys):
    db = spec_of(tmp_path, C13_TEXTS)
    db.close()
    path = str(tmp_path / "s.db")
    capsys.readouterr()
    assert main(["search", path, "C++", "--mode", "hybrid"]) == 0
    captured = capsys.readouterr()
    assert "lexical results only" in captured.err and "sec-6" in captured.out
    assert main(["search", path, "C++", "--mode", "semantic"]) == 2
    assert "holds no embeddings yet" in capsys.readouterr().err


# --- filters: a section subtree, a layer, over-threshold only (issue 5) ----------------------

NESTED = (
    '<emu-clause id="sec-a"><h1>A</h1><p>needle in a</p>'
    '<emu-clause id="sec-a-1"><h1>A1</h1><p>needle in a1 ' + "filler words " * 40 + "</p>"
    "<p>needle again " + "more filler " * 40 + "</p></emu-clause></emu-clause>"
    '<emu-clause id="sec-b"><h1>B</h1><p>needle in b</p></emu-clause>'
)


@pytest.fixture
def nested_db(tmp_path):
    path = tmp_path / "n.db"
    ingest([write_spec(tmp_path, NESTED)], path, ChunkPolicy(threshold=400, max_depth=0))
    return open_database(path)


def test_filter_by_section_subtree_layer_and_overrun(nested_db):
    def ids(**kw):
        return {h.chunk_id for h in run_search(nested_db, "needle", where=SearchFilter(**kw))}

    assert ids() == {"sec-a", "sec-a-1", "sec-b"}
    assert ids(section="sec-a") == {"sec-a", "sec-a-1"}  # the section and the ones below it
    assert ids(section="sec-a-1") == {"sec-a-1"}
    assert ids(over_threshold=True) == {"sec-a-1"}  # max depth 0: it stays over
    assert ids(layer="section") == {"sec-a", "sec-a-1", "sec-b"}
    assert ids(layer="subsection") == set()
    assert ids(section="sec-b", over_threshold=True) == set()


def test_filter_naming_nothing_is_a_one_line_error(nested_db, capsys):
    with pytest.raises(NotFoundError):
        run_search(nested_db, "needle", where=SearchFilter(section="sec-nope"))
    with pytest.raises(PolicyError):
        run_search(nested_db, "needle", where=SearchFilter(layer="paragraph"))


def test_cli_search_filters(tmp_path, capsys):
    path = tmp_path / "n.db"
    ingest([write_spec(tmp_path, NESTED)], path, ChunkPolicy(threshold=400, max_depth=0))
    assert (
        main(["search", str(path), "needle", "--section", "sec-a", "--over-threshold", "--json"])
        == 0
    )
    assert [h["chunk_id"] for h in json.loads(capsys.readouterr().out)["hits"]] == ["sec-a-1"]
    assert main(["search", str(path), "needle", "--section", "nope"]) == 2
    assert "no section with id or number 'nope'" in capsys.readouterr().err


def test_cli_limit_must_be_positive_and_json_says_what_semantic_covers(tmp_path, capsys):
    path = tmp_path / "n.db"
    ingest([write_spec(tmp_path, NESTED)], path, ChunkPolicy())
    with pytest.raises(SystemExit) as info:
        main(["search", str(path), "needle", "--limit", "0"])
    assert info.value.code == 2
    assert main(["search", str(path), "needle", "--mode", "hybrid", "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["mode"] == "hybrid" and "lexical" in payload["coverage"]


NUMBERED = (
    '<emu-clause id="sec-x"><h1><span class="secnum">14</span> X</h1><p>needle x</p>'
    '<emu-clause id="sec-x-y"><h1><span class="secnum">14.6</span> Y</h1><p>needle y</p>'
    "</emu-clause></emu-clause>"
    '<emu-annex id="sec-annex"><h1><span class="secnum">Annex B</span> (normative) Z</h1>'
    '<p>needle z</p><emu-annex id="sec-annex-1"><h1><span class="secnum">B.1</span> W</h1>'
    "<p>needle w</p></emu-annex></emu-annex>"
)


def test_a_section_is_named_by_its_id_or_its_number(tmp_path, capsys):
    from specbrowser.store import open_database

    path = tmp_path / "n.db"
    ingest([write_spec(tmp_path, NUMBERED)], path, ChunkPolicy())
    db = open_database(path)
    assert [
        db.sections.resolve(t) for t in ("sec-x-y", "14.6", "14.6.", "14", "Annex B", "B.1")
    ] == ["sec-x-y", "sec-x-y", "sec-x-y", "sec-x", "sec-annex", "sec-annex-1"]
    for text in ("14.7", "C", "", "sec-nope"):
        with pytest.raises(NotFoundError, match="no section with id or number"):
            db.sections.resolve(text)
    assert main(["search", str(path), "needle", "--section", "14", "--json"]) == 0
    assert {h["chunk_id"] for h in json.loads(capsys.readouterr().out)["hits"]} == {
        "sec-x",
        "sec-x-y",
    }
    assert main(["show", str(path), "B.1"]) == 0
    assert "needle w" in capsys.readouterr().out
    assert main(["show", str(path), "B.7"]) == 2
    assert "no chunk or section with id or number 'B.7'" in capsys.readouterr().err


def test_hybrid_fuses_the_same_pool_whatever_the_limit(monkeypatch):
    """A chunk third in both lists beats one first in the lexical list only; fused from the top
    ``2 × limit`` hits, ``limit=1`` missed it and ranked the other first."""
    from specbrowser.search import query as search

    def ranked(ids: list[str]):
        def run(db, text, *, limit, **kw):
            return [
                search.Hit(
                    chunk_id=i, section_id=i, title=i, heading_path=[], score=0.0, snippet=""
                )
                for i in ids
            ][:limit]

        return run

    monkeypatch.setattr(search, "lexical_search", ranked(["y", "a", "x", "b"]))
    monkeypatch.setattr(search, "semantic_search", ranked(["c", "d", "x", "e"]))
    monkeypatch.setattr(search, "_embedding_meanwhile", lambda db, text: None)  # no database
    for query, top in (("a question in words", "x"), ("q", "y")):  # fused; lexical first
        full = [(h.chunk_id, h.score) for h in search.hybrid_search(None, query, limit=5)]
        assert full[0][0] == top
        for limit in (1, 2, 3):
            assert [
                (h.chunk_id, h.score) for h in search.hybrid_search(None, query, limit=limit)
            ] == full[:limit]


def test_snippets_come_from_the_chunk_text_not_the_retrieval_header(tmp_path):
    """The header (document, heading path, part) is indexed but never the snippet: it used to
    be, when a query word was in a section title (``… > Clause 1 Content: …``)."""
    db = spec_of(
        tmp_path, ["a paragraph that mentions the clause only once, at the very end: Clause"]
    )
    hits = lexical_search(db, "clause")
    assert hits and all("Content:" not in h.snippet and "Section:" not in h.snippet for h in hits)
    stored = db.db.execute("SELECT retrieval_header, retrieval_body FROM texts").fetchall()
    assert all(
        header.endswith("Content:\n") and header.startswith("Document:") for header, _body in stored
    )
    assert {r for r in db.db.execute("SELECT retrieval_text FROM chunks").fetchall()} == {
        (header + body,) for header, body in stored
    }


def test_bm25_of_a_set_does_not_change_when_another_set_is_stored(tmp_path):
    body = "".join(
        f'<emu-clause id="sec-{i}"><h1>Clause {i}</h1>'
        + "".join(f"<p>{word} paragraph {i}.{j} of filler words here.</p>" for j in range(4))
        + "</emu-clause>"
        for i, word in enumerate(["widget", "gadget widget", "sprocket", "widget widget"])
    )
    spec = write_spec(tmp_path, body)
    path = tmp_path / "s.db"
    ingest([spec], path, ChunkPolicy(summaries=False))  # as spec_of: no guide to match
    db = open_database(path)
    first = db.active_version()
    before = [(h.chunk_id, h.score) for h in lexical_search(db, "widget paragraph")]
    db.close()
    ingest(
        [spec],
        path,
        ChunkPolicy(threshold=60, breakdown_tags=("p",), min_chars=0, summaries=False),
    )  # many small chunks
    db = open_database(path)
    assert db.active_version() != first
    after = [
        (h.chunk_id, h.score) for h in lexical_search(db, "widget paragraph", policy_version=first)
    ]
    assert after == before
    second = lexical_search(db, "widget paragraph")
    assert second and all("." in h.chunk_id or h.chunk_id.startswith("sec-") for h in second)


@pytest.mark.parametrize(
    "query, expected",
    [
        ("[[Prototype]]", "prototype"),
        ("Array.prototype.map", "array prototype map"),
        ("%TypedArray%", "typedarray"),
        ("ToNumber", None),
        ("what does typeof return", None),
    ],
)
def test_searched_as_says_which_words_were_searched(query, expected):
    from specbrowser.search.query import searched_as, searched_as_note

    assert searched_as(query) == expected
    assert searched_as(query, "semantic") is None and searched_as(query, advanced=True) is None
    assert bool(searched_as_note(query)) == (expected is not None)


def test_cli_search_says_punctuation_was_dropped(tmp_path, capsys):
    db = spec_of(tmp_path, C13_TEXTS)
    db.close()
    assert main(["search", str(tmp_path / "s.db"), "[[Prototype]]"]) == 0
    captured = capsys.readouterr()
    assert 'searched as "prototype" (punctuation is not indexed)' in captured.err
    assert main(["search", str(tmp_path / "s.db"), "[[Prototype]]", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["searched_as"] == "prototype"
    assert main(["search", str(tmp_path / "s.db"), "Clause"]) == 0
    assert "searched as" not in capsys.readouterr().err


@pytest.mark.parametrize(
    "text, identifier",
    [
        ("ToNumber", True),
        ("Array.prototype.map", True),
        ("[[Prototype]] %TypedArray%", True),
        ("hoisting", True),
        ("what does typeof return", False),
        ("ToNumber of a string", False),
        ("", False),
    ],
)
def test_identifier_queries_are_told_from_questions(text, identifier):
    from specbrowser.search.query import is_identifier_query

    assert is_identifier_query(text) is identifier


def test_fuse_keeps_the_lexical_order_for_names_and_fuses_questions():
    from specbrowser.search.query import Hit, fuse

    def hits(*ids, mode="lexical"):
        return [Hit(i, i, i, [], 1.0 / (n + 1), "", mode) for n, i in enumerate(ids)]

    lexical, semantic = hits("a", "b", "c"), hits("x", "c", "b", "y", mode="semantic")
    named = fuse("ToNumber", lexical, semantic, 10)
    assert [h.chunk_id for h in named] == ["a", "b", "c", "x", "y"]
    assert all(h.mode == "hybrid" for h in named)
    assert [h.score for h in named] == sorted((h.score for h in named), reverse=True)
    asked = [h.chunk_id for h in fuse("how is a number converted", lexical, semantic, 10)]
    assert set(asked[:2]) == {"b", "c"} and set(asked) == {"a", "b", "c", "x", "y"}
    assert [h.chunk_id for h in fuse("ToNumber", lexical, [], 2)] == ["a", "b"]


def test_a_hybrid_searchs_query_embedding_made_meanwhile_is_the_same(monkeypatch) -> None:
    """hybrid_search embeds the query on a thread while the lexical search runs; semantic search
    uses that vector, which is the one it would make itself."""
    from specbrowser.search import query as search

    made: list[str] = []

    class Embedder:
        def embed_query(self, text: str) -> bytes:
            made.append(text)
            return b"v:" + text.encode()

    seen: list[bytes | None] = []

    def semantic(db, text, *, limit, vector=None, **kw):
        seen.append(vector.result() if vector else None)
        return []

    class Vectors:
        def model(self):
            return ("m", 3)

    class Db:
        vector_error = None
        vectors = Vectors()

    monkeypatch.setattr(search, "query_embedder", lambda model: Embedder())
    monkeypatch.setattr(search, "lexical_search", lambda db, text, **kw: [])
    monkeypatch.setattr(search, "semantic_search", semantic)
    search.hybrid_search(Db(), "how is a value compared", limit=5)
    assert made == ["how is a value compared"] and seen == [b"v:how is a value compared"]
    assert search._embedding_meanwhile(Db(), "   ") is None  # nothing to embed
