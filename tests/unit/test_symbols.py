"""The symbol index, anchor maps and in-text links: what a spec defines found by name, every
link of the document led to the chunk holding its anchor, in show, search, export and re-chunk.
Small hand-written specs, and the sample spec."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import replace
from pathlib import Path

import lxml.html
import pytest

from specbrowser import store
from specbrowser.chunking.policy import ChunkPolicy
from specbrowser.cli import main
from specbrowser.errors import NotFoundError
from specbrowser.formats.symbols import element_symbols, title_name
from specbrowser.search import query as search_query
from specbrowser.search.query import Hit, run_search
from specbrowser.search.symbols import query_names, symbol_hits
from specbrowser.session import Session
from specbrowser.session.ingest import ingest
from specbrowser.session.links import href_anchor, link_hrefs, link_report
from specbrowser.session.rechunk import rechunk
from tests.helpers import SAMPLE, TOYLANG_POLICY, write_spec

LONG = " ".join(f"Sentence {n} of a paragraph long enough to be cut out." for n in range(8))

BODY = f"""
<emu-clause id="sec-tothing" type="abstract operation" aoid="ToThing">
  <h1><span class="secnum">1</span> ToThing ( value )</h1>
  <p>The abstract operation ToThing converts a value. See <a href="#sec-gadgets">gadgets</a>,
  <a href="#term-gizmo">gizmo</a>, <a href="#sec-old-name">the old name</a> and
  <a href="https://example.invalid/x">the web</a>.</p>
</emu-clause>
<emu-clause id="sec-gadgets" oldids="sec-old-name">
  <span id="sec-old-name"></span>
  <h1><span class="secnum">2</span> Gadget.prototype.spin ( [ speed ] )</h1>
  <p>{LONG}</p>
  <p>A <dfn id="term-gizmo" variants="gizmos">gizmo</dfn> is {LONG}</p>
  <emu-grammar type="definition"><emu-production name="Spin" id="prod-Spin">
    <emu-nt>Spin</emu-nt> <emu-geq>:</emu-geq> <emu-rhs>spin</emu-rhs></emu-production>
  </emu-grammar>
  <p>Uses <emu-xref aoid="ToThing"><a href="#sec-tothing">ToThing</a></emu-xref> and
  <a href="#prod-Spin">Spin</a>. {LONG}</p>
  <emu-clause id="sec-notation"><h1><span class="secnum">2.1</span> Notation</h1>
    <emu-production name="Spin" id="prod-grammar-notation-Spin"><emu-nt>Spin</emu-nt>
    </emu-production>
    <p>The <dfn>%Gadget%</dfn> intrinsic.</p>
  </emu-clause>
</emu-clause>
"""

POLICY = ChunkPolicy(threshold=600, min_chars=100)
ANCHOR_ROWS = (
    "SELECT j.value, r.id FROM chunk_rows r, json_each(r.anchors) j "
    "WHERE r.policy_version = ? ORDER BY 1"
)
"""A set's anchor map as (anchor, chunk id) rows."""


@pytest.fixture
def spec_db(tmp_path: Path) -> Path:
    path = tmp_path / "s.db"
    ingest([write_spec(tmp_path, BODY)], path, POLICY)
    return path


# --- the index ----------------------------------------------------------------------------------


def test_title_name_is_the_leading_name_of_a_title_that_names_one_thing() -> None:
    assert title_name("Array.prototype.map ( callbackfn [ , thisArg ] )") == "Array.prototype.map"
    assert title_name("%ThrowTypeError% ( )") == "%ThrowTypeError%"
    assert title_name("Array.prototype [ %Symbol.iterator% ] ( )") == (
        "Array.prototype[%Symbol.iterator%]"
    )
    assert title_name("Symbol.iterator") == "Symbol.iterator"
    assert title_name("The Array Constructor") is None
    assert title_name("1") is None


def test_element_symbols_read_aoids_productions_terms_ids_and_old_ids() -> None:
    element = lxml.html.fromstring(
        '<emu-clause id="c" aoid="Op" oldids="old-c"><span id="old-c"></span>'
        '<emu-xref aoid="Other">Other</emu-xref>'
        '<emu-production name="P" id="prod-P"></emu-production>'
        '<emu-production name="P" id="prod-annexB-P"></emu-production>'
        '<dfn id="t" variants="terms">term</dfn><dfn>%X%</dfn></emu-clause>'
    )
    found = {(s.kind, s.name, s.anchor) for s in element_symbols("c", element)}
    assert ("aoid", "Op", "c") in found and not any(s[1] == "Other" for s in found)
    assert ("production", "P", "prod-P") in found
    assert ("production", "P", "prod-annexB-P") not in found  # an id only
    assert ("id", "prod-annexB-P", "prod-annexB-P") in found
    assert {("dfn", "term", "t"), ("dfn", "terms", "t"), ("dfn", "%X%", None)} <= found
    assert ("oldid", "old-c", "c") in found and ("id", "old-c", "old-c") in found


def test_ingest_stores_the_symbol_index_and_a_rechunk_keeps_it(spec_db: Path) -> None:
    with store.open_database(spec_db) as db:
        kinds = {k for (k,) in db.db.execute("SELECT DISTINCT kind FROM symbols")}
        assert kinds == {"aoid", "production", "dfn", "title", "id"}
        before = db.db.execute("SELECT * FROM symbols ORDER BY ordinal").fetchall()
        assert [s.section_id for s in db.symbols.find("ToThing")] == ["sec-tothing"] * 2
        assert db.symbols.find("Spin")[0].anchor == "prod-Spin"
        assert db.symbols.find("tothing")[0].name == "ToThing"  # any case
        assert db.symbols.find("nothing-of-the-kind") == []
        rechunk(db, replace(POLICY, threshold=400))
        assert db.db.execute("SELECT * FROM symbols ORDER BY ordinal").fetchall() == before


def test_a_call_with_empty_parentheses_names_the_definition_with_any_parameters(
    spec_db: Path,
) -> None:
    """From a new user's trial: ``fetch()`` named nothing where ``fetch(input, init)`` did."""
    with store.open_database(spec_db) as db:
        assert db.symbols.find("Gadget.prototype.spin()")[0].section_id == "sec-gadgets"
        assert db.symbols.find("gadget.prototype.spin ( )")[0].section_id == "sec-gadgets"
        assert db.symbols.find("ToThing()")[0].section_id == "sec-tothing"  # its title
        assert db.symbols.find("ToThing ()")[0].section_id == "sec-tothing"
        assert db.symbols.find("()") == [] and db.symbols.find("Nothing()") == []


# --- anchors and names resolved to chunks ---------------------------------------------------------


def test_every_anchor_resolves_to_the_chunk_holding_its_element(spec_db: Path) -> None:
    with Session.open(spec_db) as session:
        gizmo = session.locate("#term-gizmo")
        assert gizmo.resolved_as == "anchor" and gizmo.section_id == "sec-gadgets"
        assert gizmo.chunk_id != "sec-gadgets"  # a paragraph the breakdown took out
        assert "is Sentence 0" in session.chunk(gizmo.chunk_id).text
        assert session.locate("term-gizmo") == gizmo
        spin = session.locate("prod-Spin")
        assert "spin" in session.chunk(spin.chunk_id).text
        assert session.locate("sec-old-name").chunk_id == "sec-gadgets"  # an old id


def test_a_defined_name_resolves_to_its_definition(spec_db: Path) -> None:
    with Session.open(spec_db) as session:
        assert session.locate("ToThing").chunk_id == "sec-tothing"
        assert session.locate("ToThing").symbol_kind == "aoid"
        assert session.locate("Gadget.prototype.spin").chunk_id == "sec-gadgets"
        assert session.locate("gizmos").chunk_id == session.locate("#term-gizmo").chunk_id
        assert session.locate("Spin").chunk_id == session.locate("prod-Spin").chunk_id
        assert session.locate("%Gadget%").chunk_id == "sec-notation"
        assert session.chunk_id_for("2.1") == "sec-notation"


def test_an_unknown_name_is_one_clear_line(spec_db: Path, capsys) -> None:
    with Session.open(spec_db) as session, pytest.raises(NotFoundError) as raised:
        session.chunk_id_for("NoSuchThing")
    assert "\n" not in str(raised.value) and "'NoSuchThing'" in str(raised.value)
    assert main(["show", str(spec_db), "#no-such-anchor"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "#no-such-anchor" in err


def test_show_takes_an_anchor_and_a_defined_name(spec_db: Path, capsys) -> None:
    with Session.open(spec_db) as session:
        gizmo = session.locate("#term-gizmo").chunk_id
    assert main(["show", str(spec_db), "#term-gizmo", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert (shown["chunks"][0]["id"], shown["resolved_as"]) == (gizmo, "anchor")
    assert main(["show", str(spec_db), "ToThing"]) == 0
    said = capsys.readouterr()
    assert "sec-tothing" in said.out and "read as" not in said.out  # stdout is the text alone
    assert said.err.strip() == "ToThing read as symbol (aoid): sec-tothing"
    assert main(["show", str(spec_db), "sec-tothing"]) == 0
    assert capsys.readouterr().err == ""  # a chunk id needs no word on how it was read


def test_a_rechunk_records_anchors_as_an_ingest_of_the_same_policy_does(
    spec_db: Path, tmp_path: Path
) -> None:
    other = replace(POLICY, threshold=400)
    with store.open_database(spec_db) as db:
        rechunk(db, other)
        rechunk(db, POLICY)  # copies its trees back from the stored sets
        copied = db.db.execute(
            ANCHOR_ROWS,
            [other.version],
        ).fetchall()
    fresh = tmp_path / "fresh.db"
    ingest([tmp_path / "spec.html"], fresh, other)
    with store.open_database(fresh) as db:
        assert (
            copied
            == db.db.execute(
                ANCHOR_ROWS,
                [other.version],
            ).fetchall()
        )
    assert copied


def test_deleting_a_set_deletes_its_anchor_map(spec_db: Path) -> None:
    other = replace(POLICY, threshold=400)
    with store.open_database(spec_db) as db:
        rechunk(db, other, activate=False)
        db.sets.delete([other.version])
        versions = {
            v
            for (v,) in db.db.execute(
                "SELECT DISTINCT policy_version FROM chunk_rows WHERE anchors IS NOT NULL"
            )
        }
        assert versions == {POLICY.version}
        assert db.symbols.has_anchor_map(POLICY.version)


# --- links ------------------------------------------------------------------------------------


def test_link_hrefs_and_anchors() -> None:
    text = "[a](#x) [b](<#odd id>) [c](https://e.invalid/) [a again](#x) [d](#%E2%84%9D)"
    assert link_hrefs(text) == ["#x", "#odd id", "https://e.invalid/", "#%E2%84%9D"]
    assert href_anchor("#%E2%84%9D") == "%E2%84%9D" and href_anchor("https://e.invalid/") is None


def test_every_in_document_link_of_the_sample_spec_resolves(toylang_db: Path) -> None:
    with store.open_database(toylang_db) as db:
        report = link_report(db, db.active_version())
    assert report.anchor_in_document > 30  # grammar blocks are fenced: no links there
    assert report.resolved == report.anchor_in_document and report.unresolved == []


def test_export_gives_each_link_the_chunk_it_leads_to(spec_db: Path) -> None:
    from specbrowser.session.export import iter_records

    with store.open_database(spec_db) as db:
        records = {r["id"]: r["metadata"] for r in iter_records(db, db.active_version())}
        gizmo = Session(db).locate("#term-gizmo").chunk_id
    links = {link["href"]: link["chunk_id"] for link in records["sec-tothing"]["links"]}
    assert links["#sec-gadgets"] == "sec-gadgets"
    assert links["#term-gizmo"] == gizmo
    assert links["#sec-old-name"] == "sec-gadgets"
    assert links["https://example.invalid/x"] is None  # external


# --- search -----------------------------------------------------------------------------------


def test_query_names_drop_a_hash_and_a_parameter_list() -> None:
    assert query_names(" ToThing ( value ) ") == ["ToThing ( value )", "ToThing"]
    assert query_names("#x") == ["#x", "x"]


@pytest.mark.parametrize("query", ["ToThing", "tothing", "ToThing()", "1", "#sec-tothing"])
def test_a_defined_name_ranks_its_section_first_lexically(spec_db: Path, query: str) -> None:
    with store.open_database(spec_db) as db:
        hits = run_search(db, query, "lexical", limit=5)
    assert hits[0].chunk_id == "sec-tothing"
    assert len({h.chunk_id for h in hits}) == len(hits)  # the symbol hit is not repeated
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_symbol_hits_come_first_in_every_mode(spec_db: Path, monkeypatch) -> None:
    fake = [Hit("sec-notation", "sec-notation", "Notation", [], -0.5, "", "semantic")]
    monkeypatch.setattr(search_query, "semantic_search", lambda *a, **k: list(fake))
    monkeypatch.setattr(search_query, "hybrid_search", lambda *a, **k: list(fake))
    with store.open_database(spec_db) as db:
        for mode in ("semantic", "hybrid"):
            hits = run_search(db, "Gadget.prototype.spin", mode, limit=5)  # type: ignore[arg-type]
            assert [h.chunk_id for h in hits] == ["sec-gadgets", "sec-notation"]
            assert hits[0].mode == mode and hits[0].score > hits[1].score


def test_symbol_hits_keep_to_the_filter(spec_db: Path) -> None:
    with store.open_database(spec_db) as db:
        where = search_query.SearchFilter(section="sec-gadgets")
        assert symbol_hits(db, "ToThing", where=where) == []
        spin = symbol_hits(db, "Spin", where=where)
        assert spin[0].chunk_id == "sec-gadgets" and "\x02Spin\x03" in spin[0].snippet
        assert symbol_hits(db, "how are gadgets spun") == []


# --- an older database --------------------------------------------------------------------------


def test_a_schema_7_database_gets_its_symbol_index_when_opened(spec_db: Path) -> None:
    with store.open_database(spec_db) as db:
        gizmo = Session(db).locate("#term-gizmo").chunk_id
    conn = sqlite3.connect(spec_db)
    conn.execute("DROP TABLE symbols")
    conn.execute("UPDATE chunk_rows SET anchors = NULL")  # schema 7 had no anchor map
    conn.execute("UPDATE meta SET value = '7' WHERE key = 'schema_version'")
    conn.commit()
    conn.close()
    with Session.open(spec_db) as session:
        assert session.locate("ToThing").chunk_id == "sec-tothing"
        # no anchor map for the old set: the chunk is found by comparing texts
        assert session.locate("#term-gizmo").chunk_id == gizmo


def test_the_sample_spec_anchor_in_a_subsection(toylang_db: Path) -> None:
    with Session.open(toylang_db) as session:
        located = session.locate("prod-BehaviourDeclaration")
        assert located.chunk_id != located.section_id
        assert "BehaviourDeclaration" in session.chunk(located.chunk_id).text
    assert SAMPLE.is_file() and TOYLANG_POLICY.threshold == 800


def test_a_rechunk_does_not_copy_cut_trees_from_a_set_without_an_anchor_map(
    spec_db: Path,
) -> None:
    with store.open_database(spec_db) as db:
        gizmo = Session(db).locate("#term-gizmo").chunk_id
        db.db.execute("UPDATE chunk_rows SET anchors = NULL")  # a set made before anchor maps
        db.db.conn.commit()
        made = rechunk(db, replace(POLICY, threshold=601))  # the same trees, another version
        assert made.copied_sections == 2  # the two sections that are one chunk
        assert Session(db).locate("#term-gizmo").chunk_id == gizmo


def test_a_title_names_its_section_unless_many_sections_share_it(tmp_path: Path) -> None:
    body = "".join(
        f'<emu-clause id="sec-{n}"><h1><span class="secnum">{n}</span> Topic {n}</h1>'
        f'<emu-clause id="sec-{n}-errors"><h1><span class="secnum">{n}.1</span> '
        "Static Semantics: Early Errors</h1><p>Errors.</p></emu-clause></emu-clause>"
        for n in range(1, 6)
    )
    path = tmp_path / "t.db"
    ingest([write_spec(tmp_path, body)], path, POLICY)
    with store.open_database(path) as db:
        assert symbol_hits(db, "Topic 3")[0].chunk_id == "sec-3"
        assert symbol_hits(db, "topic 3")[0].chunk_id == "sec-3"
        assert symbol_hits(db, "Static Semantics: Early Errors") == []  # five places


# --- dropped punctuation ------------------------------------------------------------------------


def test_searched_as_names_the_words_left_once_punctuation_is_dropped() -> None:
    from specbrowser.search.literal import searched_as
    from specbrowser.search.query import searched_as_note

    assert searched_as("[[Prototype]]") == "prototype"
    assert searched_as("Array.prototype.map") == "array prototype map"
    assert searched_as("don't") == "don t"
    assert searched_as("Crème  brûlée") is None  # case, accents and spacing do not count
    assert (
        searched_as_note("[[Prototype]]") == 'searched as "prototype" (punctuation is not indexed)'
    )
    assert searched_as_note("plain words") == ""
    assert searched_as_note("[[ ]]") == "the query has no letters or digits to search for"


def test_the_cli_says_when_punctuation_was_dropped(spec_db: Path, capsys) -> None:
    assert main(["search", str(spec_db), "[[gizmo]]"]) == 0
    assert 'searched as "gizmo"' in capsys.readouterr().err
    assert main(["search", str(spec_db), "[[gizmo]]", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["searched_as"] == "gizmo"
    assert main(["search", str(spec_db), "gizmo", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["searched_as"] is None
    assert main(["search", str(spec_db), "[[gizmo]]", "--fts"]) == 0
    assert "searched as" not in capsys.readouterr().err  # FTS5 syntax is the user's own


@pytest.mark.parametrize("shared_by, ambiguous", [(3, False), (4, True)])
def test_a_title_many_sections_share_names_none_of_them(tmp_path, capsys, shared_by, ambiguous):
    """As in search: a name whose best definitions lie in more than three sections (ECMA-262's
    "Static Semantics: Early Errors") is one line, exit 2, listing some; up to three, the first."""
    from specbrowser.errors import AmbiguousNameError

    body = "".join(
        f'<emu-clause id="sec-c{n}"><h1>Clause {n}</h1>'
        f'<emu-clause id="sec-c{n}-ee"><h1>Early Errors</h1><p>Rule {n}.</p></emu-clause>'
        "</emu-clause>"
        for n in range(shared_by)
    )
    path = tmp_path / "ee.db"
    ingest([write_spec(tmp_path, body)], path, POLICY)
    with Session.open(path) as session:
        if ambiguous:
            with pytest.raises(AmbiguousNameError, match=r"names 4 sections \(sec-c0-ee, "):
                session.name_to_chunk("Early Errors")
        else:
            assert session.name_to_chunk("Early Errors").chunk_id == "sec-c0-ee"
    assert main(["show", str(path), "Early Errors"]) == (2 if ambiguous else 0)
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and ("section's number or id" in err[0]) is ambiguous


# --- stubs and accessors ------------------------------------------------------------------------

STUB_AND_ACCESSORS = """
<emu-clause id="sec-global"><h1><span class="secnum">1</span> Constructor Properties</h1>
  <emu-clause id="sec-global-map"><h1><span class="secnum">1.1</span> Map ( . . . )</h1>
    <p>See <emu-xref href="#sec-map-constructor"><a href="#sec-map-constructor">2.1</a></emu-xref>.
    </p></emu-clause>
  <emu-clause id="sec-global-weakmap"><h1><span class="secnum">1.2</span> WeakMap ( . . . )</h1>
    <p>See <a href="#nowhere">3</a>.</p></emu-clause>
</emu-clause>
<emu-clause id="sec-map-objects"><h1><span class="secnum">2</span> Map Objects</h1>
  <emu-clause id="sec-map-constructor"><h1><span class="secnum">2.1</span> Map ( [ iterable ] )</h1>
    <p>The Map constructor creates a Map.</p></emu-clause>
  <emu-clause id="sec-get-map.prototype.count">
    <h1><span class="secnum">2.2</span> get Map.prototype.count</h1>
    <p>Map.prototype.count reads how many entries it holds.</p></emu-clause>
  <emu-clause id="sec-set-map.prototype.weight">
    <h1><span class="secnum">2.3</span> set Map.prototype.weight</h1>
    <p>A setter.</p></emu-clause>
</emu-clause>
"""


def test_a_name_defined_by_a_stub_goes_to_its_definition(tmp_path: Path) -> None:
    path = tmp_path / "stub.db"
    ingest([write_spec(tmp_path, STUB_AND_ACCESSORS)], path, POLICY)
    with store.open_database(path) as db:
        assert [h.chunk_id for h in symbol_hits(db, "Map")] == ["sec-map-constructor"]
        # a name only a stub defines still names the stub
        assert [h.chunk_id for h in symbol_hits(db, "WeakMap")] == ["sec-global-weakmap"]


def test_an_accessor_is_found_without_get_or_set(tmp_path: Path) -> None:
    path = tmp_path / "acc.db"
    ingest([write_spec(tmp_path, STUB_AND_ACCESSORS)], path, POLICY)
    with store.open_database(path) as db:
        for query, section in [
            ("Map.prototype.count", "sec-get-map.prototype.count"),
            ("get Map.prototype.count", "sec-get-map.prototype.count"),
            ("Map.prototype.weight", "sec-set-map.prototype.weight"),
        ]:
            assert symbol_hits(db, query)[0].chunk_id == section, query
    assert title_name("get Map.prototype.count") == "Map.prototype.count"
    assert title_name("set Object.prototype.__proto__") == "Object.prototype.__proto__"
    assert title_name("get a value") is None
