"""Mismatches end to end: ingest (own TOC or --toc file), stored paths, the `mismatches` command."""

from __future__ import annotations

import json

import pytest

from specbrowser.cli import main
from specbrowser.store import open_database
from tests.helpers import ROOT, write_spec

MISMATCHED = ROOT / "sample_specs" / "mismatched-toc.html"

EXPECTED = {  # "1 Gadgets" maps to its own entry (its link), not to a child entry's range
    "sec-gadget-parts": "title_differs",
    "sec-gadget-assembly": "depth_differs",
    "sec-widgets": "title_differs",
    "sec-widget-sizes": "ancestor_differs",
    "sec-glossary": "missing_from_toc",
    "sec-removed-chapter": "toc_entry_without_section",
}


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "m.db"
    assert main(["ingest", str(MISMATCHED), "--db", str(path)]) == 0
    return path


def test_sample_shows_every_kind(db, capsys):
    capsys.readouterr()
    assert main(["mismatches", str(db), "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert {m["section_id"]: m["kind"] for m in payload["mismatches"]} == EXPECTED
    assert payload["toc_entries"] == 7


def test_chunks_carry_both_paths_and_the_kind(db):
    database = open_database(db)
    chunk = database.chunk("sec-widget-sizes")
    assert chunk.heading_path == ["2 Widgets", "2.1 Widget Sizes"]
    assert chunk.toc_path == ["2 Doohickeys", "2.1 Widget Sizes"]
    assert chunk.mismatch == "ancestor_differs"
    limits = database.chunk("sec-gadget-limits")
    assert limits.toc_path == limits.heading_path and limits.mismatch is None
    gadgets = database.chunk("sec-gadgets")
    assert gadgets.toc_path == ["1 Gadgets"] and gadgets.mismatch is None
    # missing from the TOC: no path borrowed from "2.1 Widget Sizes" before it
    glossary = database.chunk("sec-glossary")
    assert glossary.toc_path is None and glossary.mismatch == "missing_from_toc"


def test_kind_filter_and_table(db, capsys):
    capsys.readouterr()
    assert main(["mismatches", str(db), "--kind", "title_differs"]) == 0
    output = capsys.readouterr().out
    assert "sec-gadget-parts" in output and "sec-widgets" in output and "sec-glossary" not in output
    assert main(["stats", str(db), "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["heading_mismatches"] == {
        "depth_differs": 1,
        "title_differs": 2,
        "ancestor_differs": 1,
        "missing_from_toc": 1,
    }


def test_a_spec_without_toc_has_no_mismatches(tmp_path, capsys):
    spec = write_spec(tmp_path, '<emu-clause id="a"><h1>A</h1><p>x</p></emu-clause>')
    path = tmp_path / "n.db"
    assert main(["ingest", str(spec), "--db", str(path)]) == 0
    capsys.readouterr()
    assert main(["mismatches", str(path)]) == 0
    assert "no table of contents" in capsys.readouterr().out
    assert open_database(path).chunk("a").toc_path is None


def test_external_toc_file_replaces_the_documents_own(tmp_path, capsys):
    toc = tmp_path / "toc.json"
    # ordinals: 0 gadgets, 1 parts, 2 limits, 3 assembly, 4 widgets, 5 sizes, 6 glossary
    toc.write_text(
        json.dumps(
            [
                {
                    "title": "Gadgets",
                    "secnum": "1",
                    "start": 0,
                    "children": [
                        {"title": "Gadget Parts", "secnum": "1.1", "start": 1},
                        {"title": "Gadget Limits", "secnum": "1.2", "start": 2},
                        {"title": "Gadget Assembly", "secnum": "1.3", "start": 3},
                    ],
                },
                {
                    "title": "Widgets",
                    "secnum": "2",
                    "start": 4,
                    "children": [{"title": "Widget Sizes", "secnum": "2.1", "start": 5}],
                },
                {"title": "Glossary", "secnum": "3", "start": 6},
            ]
        )
    )
    path = tmp_path / "t.db"
    assert main(["ingest", str(MISMATCHED), "--db", str(path), "--toc", str(toc)]) == 0
    capsys.readouterr()
    assert main(["mismatches", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["mismatches"] == []


def test_a_reingest_with_another_toc_updates_every_sets_mismatch_counts(db, tmp_path, capsys):
    toc = tmp_path / "toc.json"  # agrees with the sections but for one title (and so a path)
    toc.write_text(
        json.dumps(
            [
                {
                    "title": "Gadgets",
                    "secnum": "1",
                    "start": 0,
                    "children": [
                        {"title": "Gadget Parts", "secnum": "1.1", "start": 1},
                        {"title": "Gadget Limits", "secnum": "1.2", "start": 2},
                        {"title": "Gadget Assembly", "secnum": "1.3", "start": 3},
                    ],
                },
                {
                    "title": "Doohickeys",
                    "secnum": "2",
                    "start": 4,
                    "children": [{"title": "Widget Sizes", "secnum": "2.1", "start": 5}],
                },
                {"title": "Glossary", "secnum": "3", "start": 6},
            ]
        )
    )
    assert (
        main(["ingest", str(MISMATCHED), "--db", str(db), "--toc", str(toc), "--threshold", "300"])
        == 0
    )
    database = open_database(db)
    counts = {
        row[0]: json.loads(row[1])["heading_mismatches"]
        for row in database.db.execute("SELECT version, stats FROM policies")
    }
    assert len(counts) == 2  # the first set (own TOC) was kept beside the new one
    assert list(counts.values()) == [{"title_differs": 1, "ancestor_differs": 1}] * 2
    capsys.readouterr()
    assert main(["mismatches", str(db), "--json"]) == 0
    assert {
        m["section_id"]: m["kind"] for m in json.loads(capsys.readouterr().out)["mismatches"]
    } == {"sec-widgets": "title_differs", "sec-widget-sizes": "ancestor_differs"}


def test_bad_toc_file_is_one_line_and_nothing_written(tmp_path, capsys):
    toc = tmp_path / "toc.json"
    toc.write_text('[{"start": 1}]')
    path = tmp_path / "t.db"
    assert main(["ingest", str(MISMATCHED), "--db", str(path), "--toc", str(toc)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and 'needs a string "title"' in err[0]
    assert not path.exists()


FRONT_MATTER_PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>Plain</title></head>
<body>
<section id="abstract"><h2>Abstract</h2><p>What this is.</p></section>
<section id="status"><h2>Status of this document</h2><p>A draft.</p></section>
<nav id="toc"><h2>Table of Contents</h2><ol>
<li><a href="#intro">1 Introduction</a></li><li><a href="#terms">2 Terms</a></li></ol></nav>
<section id="intro"><h2>1 Introduction</h2><p>In.</p></section>
<section id="terms"><h2>2 Terms</h2><p>Words.</p></section>
<section id="extra"><h2>3 Extra</h2><p>Not listed.</p></section>
</body></html>"""


def test_front_matter_before_the_toc_is_not_missing_from_it(tmp_path, capsys):
    # Bikeshed's abstract and status, xml2rfc's boilerplate: sections a TOC placed after them
    # does not list; a section after the TOC that it leaves out still is (new-user trial)
    page = tmp_path / "plain.html"
    page.write_text(FRONT_MATTER_PAGE, encoding="utf-8")
    path = tmp_path / "p.db"
    assert main(["ingest", str(page), "--db", str(path)]) == 0
    capsys.readouterr()
    assert main(["mismatches", str(path), "--json"]) == 0
    found = json.loads(capsys.readouterr().out)["mismatches"]
    assert [(m["section_id"], m["kind"]) for m in found] == [("extra", "missing_from_toc")]


def test_an_external_toc_reports_the_front_matter_it_leaves_out(tmp_path, capsys):
    page = tmp_path / "plain.html"
    page.write_text(FRONT_MATTER_PAGE, encoding="utf-8")
    toc = tmp_path / "toc.json"
    # ordinals: 0 abstract, 1 status, 2 intro, 3 terms, 4 extra
    toc.write_text(json.dumps([{"title": "Introduction", "secnum": "1", "start": 2, "end": 4}]))
    path = tmp_path / "p.db"
    assert main(["ingest", str(page), "--db", str(path), "--toc", str(toc)]) == 0
    capsys.readouterr()
    assert main(["mismatches", str(path), "--json"]) == 0
    found = {m["section_id"] for m in json.loads(capsys.readouterr().out)["mismatches"]}
    assert {"abstract", "status"} <= found
