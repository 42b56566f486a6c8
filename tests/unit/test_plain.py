"""The plain heading-structured HTML parser (specbrowser/parse/plain.py): case C10, one test per
rule, the widget-protocol sample, and the per-kind default breakdown tags.

Inputs are written out here (the cases file is not read at test time).
"""

from __future__ import annotations

import copy
import re
from pathlib import Path

import pytest
from lxml import etree

from specbrowser import cli
from specbrowser.chunking.pipeline import chunk_spec
from specbrowser.chunking.policy import DEFAULT_BREAKDOWN_TAGS, SEED_BREAKDOWN_TAGS, ChunkPolicy
from specbrowser.chunking.rules import HTML_RULES, html_rule_unit
from specbrowser.errors import SpecParseError
from specbrowser.formats import ParsedSpec, format_for_kind, load_spec, policy_for
from specbrowser.formats.ecmarkup import rule_unit as ecmarkup_rule_unit
from specbrowser.formats.headings import BREAKDOWN_TAGS as PLAIN_HTML_BREAKDOWN_TAGS
from specbrowser.formats.headings import FRONT_MATTER_ID, slugify
from specbrowser.model import Section
from specbrowser.session.ingest import ingest
from specbrowser.session.links import link_targets
from specbrowser.store import open_database
from tests.helpers import ROOT, assert_lossless_parsed

WIDGET_SAMPLE = ROOT / "sample_specs" / "widget-protocol.html"


def write_plain(
    tmp_path: Path, body: str, name: str = "plain.html", title: str = "Plain spec"
) -> Path:
    """Write ``body`` into a minimal HTML page (no ecmarkup elements) and return its path."""
    path = tmp_path / name
    head = f"<title>{title}</title>" if title else ""
    path.write_text(
        f"<!doctype html><html><head><meta charset='utf-8'>{head}</head><body>{body}</body></html>",
        encoding="utf-8",
    )
    return path


def parse_plain(tmp_path: Path, body: str, **kwargs: str) -> ParsedSpec:
    return load_spec(write_plain(tmp_path, body, **kwargs))


def outline(parsed: ParsedSpec) -> list[tuple[str, str | None, int, str]]:
    """(id, parent id, depth, display title) per section, in order."""
    return [(s.id, s.parent_id, s.depth, s.display_title) for s in parsed.sections]


def own_words(parsed: ParsedSpec) -> dict[str, str]:
    """Each section's own text (from its stored HTML), whitespace collapsed."""
    return {s.id: " ".join(re.sub(r"<[^>]+>", " ", s.html).split()) for s in parsed.sections}


# --- C10 ----------------------------------------------------------------------------------------

C10_BODY = """
<p>Status: draft PREAMBLEWORD.</p>
<h2 id="intro"><span class="secno">1. </span><span class="content">Intro</span><a class="self-link"
  href="#intro"></a></h2>
<p>Intro text INTROWORD.</p>
<h3 id="s1"><span class="secno">1.1. </span><span class="content">Section One</span><a
  class="self-link" href="#s1"></a></h3>
<p>One text ONEWORD.</p>
<h4 id="s1a"><span class="secno">1.1.1. </span>Detail</h4>
<p>Detail text DETAILWORD.</p>
<h3 id="s2"><span class="secno">1.2. </span>Section Two</h3>
<p>Two text TWOWORD.</p>
<section><h3 id="s3"><span class="secno">1.3. </span>Section Three</h3><p>Three text THREEWORD.</p
></section>
"""


def test_C10_parent_heading_kept_in_paths_and_preamble_kept(tmp_path):
    path = tmp_path / "c10.html"
    path.write_text(f"<body>{C10_BODY}</body>\n", encoding="utf-8")  # exactly the case: no <head>
    parsed = load_spec(path)
    assert parsed.document.kind == "html-headings"
    titles = {s.id: s.title for s in parsed.sections}
    tree = [(titles[s.id], titles.get(s.parent_id or "")) for s in parsed.sections]
    assert tree == [
        ("Front matter", None),
        ("Intro", None),
        ("Section One", "Intro"),
        ("Detail", "Section One"),
        ("Section Two", "Intro"),
        ("Section Three", "Intro"),
    ]

    policy = policy_for(parsed.document.kind, 5000, None, 3)
    chunks = chunk_spec(parsed, policy, rules=HTML_RULES).chunks

    def holding(word: str) -> list:
        return [c for c in chunks if word in c.text]

    def path_titles(chunk) -> list[str]:
        return [re.sub(r"^[\d.]+ ", "", label) for label in chunk.heading_path]

    (two,) = holding("TWOWORD")
    assert path_titles(two) == ["Intro", "Section Two"]
    assert two.heading_path == ["1 Intro", "1.2 Section Two"]
    (detail,) = holding("DETAILWORD")
    assert path_titles(detail) == ["Intro", "Section One", "Detail"]
    (three,) = holding("THREEWORD")
    assert path_titles(three) == ["Intro", "Section Three"]  # the <section> wrapper: same level
    (intro,) = holding("INTROWORD")
    assert intro.id == "intro"
    (preamble,) = holding("PREAMBLEWORD")
    assert preamble.section_id == FRONT_MATTER_ID and preamble.heading_path == ["Front matter"]

    labels = (
        [s.display_title for s in parsed.sections]
        + [c.title for c in chunks]
        + [label for c in chunks for label in c.heading_path]
        + re.findall(r'title "([^"]*)"', "".join(c.text for c in chunks))
    )
    assert set(labels) == {
        "Front matter",
        "1 Intro",
        "1.1 Section One",
        "1.1.1 Detail",
        "1.2 Section Two",
        "1.3 Section Three",
    }
    assert not any(stray in c.text for c in chunks for stray in ("](#", "§", "¶", "self-link"))


# --- sections and levels ----------------------------------------------------------------------


def test_every_heading_level_makes_a_section_nested_by_level(tmp_path):
    parsed = parse_plain(
        tmp_path,
        "<h1 id=a>A</h1><h2 id=b>B</h2><h3 id=c>C</h3><h1 id=d>D</h1>"
        "<h2 id=e>E</h2><h6 id=f>F</h6><h5 id=g>G</h5>",
    )
    assert outline(parsed) == [
        ("a", None, 0, "A"),
        ("b", "a", 1, "B"),
        ("c", "b", 2, "C"),
        ("d", None, 0, "D"),
        ("e", "d", 1, "E"),
        ("f", "e", 2, "F"),
        ("g", "e", 2, "G"),
    ]
    assert [s.ordinal for s in parsed.sections] == list(range(7))
    assert {s.kind for s in parsed.sections} == {"heading"}


def test_skipped_levels_nest_under_the_nearest_higher_heading(tmp_path):
    parsed = parse_plain(
        tmp_path,
        "<h2 id=a>A</h2><h4 id=b>B</h4><p>bb</p><h3 id=c>C</h3><h4 id=d>D</h4><h2 id=e>E</h2>",
    )
    assert outline(parsed) == [
        ("a", None, 0, "A"),
        ("b", "a", 1, "B"),
        ("c", "a", 1, "C"),
        ("d", "c", 2, "D"),
        ("e", None, 0, "E"),
    ]


def test_section_wrappers_do_not_change_the_level(tmp_path):
    parsed = parse_plain(
        tmp_path,
        """
<main><section><h2 id=a>A</h2><p>aa</p>
  <section><section><h3 id=b>B</h3><p>bb</p></section></section>
  <div><h3 id=c>C</h3><p>cc</p></div>
</section><article><h2 id=d>D</h2><p>dd</p></article></main>""",
    )
    assert outline(parsed) == [
        ("a", None, 0, "A"),
        ("b", "a", 1, "B"),
        ("c", "a", 1, "C"),
        ("d", None, 0, "D"),
    ]
    words = own_words(parsed)
    assert "aa" in words["a"] and "bb" not in words["a"] and "cc" not in words["a"]
    assert "cc" in words["c"] and "dd" in words["d"]


def test_the_end_of_a_section_wrapper_closes_its_section(tmp_path):
    parsed = parse_plain(
        tmp_path,
        """
<section id=a><h2>A</h2><p>first AWORD</p>
  <section id=b><h3>B</h3><p>BWORD</p></section>
  <p>after B, still A: LATEAWORD</p>
</section>
<h3 id=flat>Flat</h3><p>FLATWORD</p><p>more FLATWORD2</p>""",
    )
    words = own_words(parsed)
    assert "LATEAWORD" in words["a"] and "LATEAWORD" not in words["b"]
    assert "FLATWORD2" in words["flat"]  # without a wrapper a section runs to the next heading


def test_own_content_is_the_heading_and_blocks_up_to_the_next_heading(tmp_path):
    parsed = parse_plain(
        tmp_path,
        """
<h2 id=a>A</h2>loose A text<p>p1</p><div class=note><p>noteword</p></div>
<div><p>in wrapper</p><h3 id=b>B</h3>wrapper text B<p>p2</p></div>tail after wrapper
<h2 id=c>C</h2><table><tr><td>cell</td></tr></table>""",
    )
    element = parsed.elements["a"]
    assert element.tag == "div" and element.get("class") == "sb-section"
    assert element.get("data-id") == "a" and element[0].tag == "h2"
    words = own_words(parsed)
    assert words["a"].startswith("A loose A text p1 noteword in wrapper")
    assert words["b"] == "B wrapper text B p2 tail after wrapper"
    assert words["c"] == "C cell"
    for section in parsed.sections:
        html = parsed.elements[section.id]
        assert section.html.startswith(f'<div class="sb-section" data-id="{section.id}">')
        assert [h for h in html.iter("h1", "h2", "h3", "h4", "h5", "h6")] == [html[0]]


def test_child_sections_become_placeholders_at_their_position(tmp_path):
    parsed = parse_plain(
        tmp_path,
        "<h2 id=a><span class=secno>2. </span>A</h2><p>before</p>"
        "<h3 id=b><span class=secno>2.1. </span>B</h3><p>bee</p>"
        "<h4 id=c>C</h4><h3 id=d>D</h3>",
    )
    refs = [
        (r.get("data-id"), r.get("data-title")) for r in parsed.elements["a"].iter("sb-section-ref")
    ]
    assert refs == [("b", "2.1 B"), ("d", "D")]  # c is b's child, not a's
    assert [r.get("data-id") for r in parsed.elements["b"].iter("sb-section-ref")] == ["c"]
    assert "before" in own_words(parsed)["a"] and "bee" not in own_words(parsed)["a"]


def test_no_text_is_lost_or_repeated(tmp_path):
    words = [f"W{n}" for n in range(12)]
    body = (
        f"<p>{words[0]}</p><div><h2 id=a>A</h2><p>{words[1]}</p>{words[2]}"
        f"<section><h3 id=b>B</h3><ul><li>{words[3]}</li></ul></section>{words[4]}</div>"
        f"<h2 id=c>C</h2><pre>{words[5]}</pre><table><tr><td>{words[6]}</td></tr></table>"
        f"<article><p>{words[7]}</p><h4 id=d>D</h4>{words[8]}<p>{words[9]}</p></article>"
        f"<blockquote><h3>Quoted</h3><p>{words[10]}</p></blockquote>{words[11]}"
    )
    parsed = parse_plain(tmp_path, body)
    text = " ".join(own_words(parsed).values())
    for word in words:
        assert re.findall(rf"\b{word}\b", text) == [word], word


# --- ids --------------------------------------------------------------------------------------


def test_id_from_wrapping_section_then_heading_then_slug(tmp_path):
    parsed = parse_plain(
        tmp_path,
        """
<section id=sec-wrap><div class=header-wrapper><h2 id=x-wrap>Wrapped</h2>
  <a class=self-link href="#sec-wrap"></a></div><p>w</p></section>
<section><h2 id=head-id>Heading id</h2></section>
<p>between</p>
<section id=outer><p>x</p><h2 id=second>Second</h2><h3 id=third>Third</h3><h2>Fourth one!</h2
></section>
<h2>Plain   Title: with *symbols*</h2>""",
    )
    assert [s.id for s in parsed.sections] == [
        "sec-wrap",
        "head-id",
        "outer",
        "third",
        "h-fourth-one",
        "h-plain-title-with-symbols",
    ]
    # after a top-level wrapper, and a wrapper's content before its heading: document order
    assert own_words(parsed)["head-id"] == "Heading id between x"


def test_a_wrapper_id_lands_where_a_browser_does(tmp_path):
    """xml2rfc's anchors sit on a ``div`` around a ``section``: the id goes to the section the
    wrapper opens with, or to the section holding the wrapper's first block."""
    parsed = parse_plain(
        tmp_path,
        """
<section id=section-1><h2>1. One</h2><p>one</p>
<div id=resources><section id=section-1.1><h3>1.1. Resources</h3><p>r</p></section></div>
<div id=lead><p>LEADWORD</p><section id=section-1.2><h3>1.2. Two</h3></section></div>
<div id=section-1.3><section id=section-1.3><h3>1.3. Three</h3></section></div>
</section>""",
    )
    ids = {s.id: re.findall(r' id="([^"]+)"', s.html) for s in parsed.sections}
    assert "resources" in ids["section-1.1"] and "resources" not in ids["section-1"]
    assert "lead" in ids["section-1"] and "LEADWORD" in own_words(parsed)["section-1"]
    assert "section-1.3" not in ids["section-1.3"]  # a section's own id is not repeated
    assert own_words(parsed)["section-1.1"] == "1.1. Resources r"


def test_a_link_to_a_wrapper_id_leads_to_its_section(tmp_path):
    body = (
        '<section id=s1><h2>1. A</h2><p>See <a href="#res">resources</a>.</p></section>'
        "<div id=res><section id=s2><h2>2. Resources</h2><p>r</p></section></div>"
    )
    path = tmp_path / "plain.db"
    ingest([write_plain(tmp_path, body)], path, policy_for("html-headings"))
    with open_database(path) as db:
        assert link_targets(db, ["res"], db.active_version()) == {"res": "s2"}


def test_repeated_titles_get_numbered_slugs_that_avoid_explicit_ids(tmp_path):
    parsed = parse_plain(
        tmp_path,
        "<h2>Notes</h2><h2>Notes</h2><h2 id=h-notes-3>Other</h2>"
        "<h2>Notes</h2><h2>Ünïcode — Notes</h2>",
    )
    assert [s.id for s in parsed.sections] == [
        "h-notes",
        "h-notes-2",
        "h-notes-3",
        "h-notes-4",
        "h-n-code-notes",
    ]


def test_generated_ids_are_stable(tmp_path):
    body = "<h2>Alpha</h2><h3>Beta</h3><h2>Alpha</h2>"
    first = [s.id for s in parse_plain(tmp_path, body, name="one.html").sections]
    again = [s.id for s in parse_plain(tmp_path, body, name="two.html").sections]
    assert first == again == ["h-alpha", "h-beta", "h-alpha-2"]


def test_duplicate_explicit_ids_are_made_unique(tmp_path):
    parsed = parse_plain(
        tmp_path,
        "<h2 id=dup>One</h2><h2 id=dup>Two</h2><h2 id=front-matter>F</h2><p>x</p>",
        title="",
    )
    assert [s.id for s in parsed.sections] == ["dup", "dup-2", "front-matter"]
    assert len(parsed.elements) == 3


def test_slugify():
    assert slugify("The HELLO message") == "h-the-hello-message"
    assert slugify("…") == "h-section"
    assert len(slugify("word " * 40)) <= 2 + 60


# --- numbers and titles -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("heading", "secnum", "title"),
    [
        (
            (
                '<span class="secno">1.2. </span><span class="content">Bikeshed</span>'
                '<a class="self-link" href="#x"></a>'
            ),
            "1.2",
            "Bikeshed",
        ),
        ('<bdi class="secno">3.1 </bdi>ReSpec', "3.1", "ReSpec"),
        ('<span class="secnum">A.1</span> Secnum', "A.1", "Secnum"),
        (
            (
                '<a href="#section-2" class="section-number selfRef">2. </a>'
                '<a href="#name-x" class="section-name selfRef">xml2rfc</a>'
            ),
            "2",
            "xml2rfc",
        ),
        ('<span class="secno">Appendix B. </span>Extra', "Appendix B", "Extra"),
        (
            'No number <code>here</code>\n  at all<a class="self-link" href="#y">§</a>',
            "",
            "No number here at all",
        ),
    ],
)
def test_secnum_and_title(tmp_path, heading, secnum, title):
    (section,) = parse_plain(tmp_path, f"<h2 id=x>{heading}</h2>").sections
    assert (section.secnum, section.title) == (secnum, title)


def test_empty_headings_are_content_not_sections(tmp_path):
    parsed = parse_plain(
        tmp_path,
        "<h2 id=a>A</h2><h3 id=empty></h3><h3><a class=self-link "
        "href='#z'></a> </h3><p>still A</p><h3 id=n><span class=secno>4.</span></h3>",
    )
    assert outline(parsed) == [("a", None, 0, "A"), ("n", "a", 1, "4")]
    assert "still A" in own_words(parsed)["a"]


def test_headings_inside_content_are_not_sections(tmp_path):
    parsed = parse_plain(
        tmp_path,
        """<h2 id=a>A</h2>
<table><tr><td><h3>In a cell</h3></td></tr></table><blockquote><h3>Quoted</h3></blockquote>
<ul><li><h4>In a list</h4></li></ul><hgroup><h2 id=b>B</h2><h3>B's subtitle</h3></hgroup>""",
    )
    assert outline(parsed) == [("a", None, 0, "A"), ("b", None, 0, "B")]
    assert "In a cell" in own_words(parsed)["a"] and "subtitle" in own_words(parsed)["b"]


# --- front matter ------------------------------------------------------------------------------


def test_front_matter_kept_when_it_has_text(tmp_path):
    parsed = parse_plain(tmp_path, "Loose PREWORD<div><p>status</p></div><h2 id=a>A</h2>")
    front = parsed.sections[0]
    assert (front.id, front.title, front.kind, front.depth, front.parent_id, front.ordinal) == (
        "front-matter",
        "Front matter",
        "front-matter",
        0,
        None,
        0,
    )
    assert own_words(parsed)["front-matter"] == "Loose PREWORD status"
    assert parsed.sections[1].ordinal == 1


def test_no_front_matter_without_text(tmp_path):
    parsed = parse_plain(
        tmp_path, "  <div> <img src=x.png> </div><script>var s = 1;</script><h2 id=a>A</h2>"
    )
    assert [s.id for s in parsed.sections] == ["a"]


def test_title_block_and_title_h1s_go_to_front_matter(tmp_path):
    bikeshed = parse_plain(
        tmp_path,
        """<div class="head"><h1 id=title>Widget Spec</h1>
<h2 id=profile-and-date>Editor's Draft, 1 May 2026</h2><dl><dt>Editor</dt><dd>Someone</dd></dl
></div>
<h2 id=abstract>Abstract</h2><p>abs</p><h2 id=intro>Intro</h2>""",
        name="b.html",
        title="",
    )
    assert [s.id for s in bikeshed.sections] == ["front-matter", "abstract", "intro"]
    assert "Editor's Draft" in own_words(bikeshed)["front-matter"]
    assert bikeshed.document.title == "Widget Spec"

    lone_h1 = parse_plain(
        tmp_path, "<h1>Title Here</h1><p>intro</p><h2>One</h2><h3>Two</h3>", name="h.html", title=""
    )
    assert outline(lone_h1) == [
        ("front-matter", None, 0, "Front matter"),
        ("h-one", None, 0, "One"),
        ("h-two", "h-one", 1, "Two"),
    ]
    assert lone_h1.document.title == "Title Here"

    xml2rfc = parse_plain(
        tmp_path,
        "<h1 id=rfcnum>RFC 9999</h1><h1 id=title>Widgets</h1>"
        "<section id=section-1><h2>1. Intro</h2></section>",
        name="x.html",
    )
    assert [s.id for s in xml2rfc.sections] == ["front-matter", "section-1"]

    parts = parse_plain(tmp_path, "<h1>P1</h1><h2>S</h2><h1>P2</h1>", name="t.html")
    assert [s.id for s in parts.sections] == ["h-p1", "h-s", "h-p2"]  # h1s used as parts
    only_h1s = parse_plain(tmp_path, "<h1>P1</h1><h1>P2</h1>", name="o.html")
    assert [s.id for s in only_h1s.sections] == ["h-p1", "h-p2"]


def test_document_title_is_never_front_matter(tmp_path):
    parsed = parse_plain(tmp_path, "<p>pre</p><h2>First Heading</h2>", title="")
    assert parsed.document.title == "First Heading"


# --- not content -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "toc",
    [
        # Bikeshed
        (
            '<nav data-fill-with="table-of-contents" id="toc">'
            '<h2 class="no-num no-toc" id="contents">Table of Contents</h2>'
            '<ol class="toc"><li><a href="#a">TOCWORD</a></li></ol></nav>'
        ),
        # WHATWG: a bare heading and list
        (
            '<h2 class="no-num no-toc" id="contents">Table of contents</h2>'
            '<ol class="toc"><li><a href="#a">TOCWORD</a></li></ol>'
        ),
        # ReSpec
        (
            '<nav id="toc"><h2 class="introductory" id="table-of-contents">Table of Contents</h2>'
            '<ol class="toc"><li class="tocline"><a class="tocxref" href="#a">TOCWORD</a></li></ol>'
            "</nav>"
        ),
        # xml2rfc
        (
            '<div id="toc"><section id="section-toc.1"><h2 id="name-table-of-contents">'
            '<a href="#name-table-of-contents" class="section-name selfRef">Table of Contents</a>'
            "</h2>"
            '<nav class="toc"><ul class="compact toc ulBare"><li><a href="#a">TOCWORD</a></li></ul>'
            "</nav>"
            "</section></div>"
        ),
        # a plain list, no heading
        '<ul class="toc"><li><a href="#a">TOCWORD</a></li></ul>',
    ],
)
def test_the_table_of_contents_is_not_content(tmp_path, toc):
    parsed = parse_plain(tmp_path, f"<p>status</p>{toc}<h2 id=a>A</h2><p>aa</p>")
    assert [s.id for s in parsed.sections] == ["front-matter", "a"]
    assert not any("TOCWORD" in s.html or "Table of" in s.html for s in parsed.sections)
    assert parsed.toc == [] or parsed.toc[0].target_id == "a"  # the TOC itself is still read


def test_a_spec_wrapper_named_contents_is_still_read(tmp_path):
    parsed = parse_plain(tmp_path, "<div id=contents><h2 id=a>A</h2><p>aa</p></div>")
    assert [s.id for s in parsed.sections] == ["a"]


def test_scripts_and_styles_are_not_content(tmp_path):
    parsed = parse_plain(
        tmp_path,
        "<h2 id=a>A</h2><script>SCRIPTWORD()</script>"
        "<style>.STYLEWORD{}</style><template><p>TPLWORD</p></template>"
        "<p>kept</p>after script",
    )
    assert own_words(parsed)["a"] == "A kept after script"


def test_mdn_browser_support_panels_are_not_content(tmp_path):
    """Bikeshed's MDN panels are MDN's data (a new user's trial: 56 lines of "✔MDN" in Fetch's
    IDL index); a ``details`` of the spec's own stays."""
    panel = (
        '<details class="mdn-anno unpositioned" data-anno-for="x"><summary><b>✔</b>'
        "<span>MDN</span></summary><div class=feature><p><a href='https://developer.mozilla"
        ".org/x'>API/Thing</a></p><p>In all current engines.</p></div></details>"
    )
    parsed = parse_plain(
        tmp_path,
        f"<h2 id=idl>IDL Index</h2><pre>interface Thing {{}};</pre>{panel}{panel}"
        "<details><summary>More</summary><p>own words</p></details>after",
    )
    assert own_words(parsed)["idl"] == "IDL Index interface Thing {}; More own words after"


def test_pages_of_one_spec_get_unique_ids_and_continuing_ordinals(tmp_path):
    folder = tmp_path / "multi"
    folder.mkdir()
    write_plain(folder, "<p>nav 1</p><h2 id=a>A</h2><h2>Notes</h2>", name="1.html")
    write_plain(folder, "<p>nav 2</p><h2 id=a>A again</h2><h2>Notes</h2>", name="2.html")
    parsed = load_spec(folder)
    assert [(s.id, s.ordinal, s.source_file) for s in parsed.sections] == [
        ("front-matter", 0, "1.html"),
        ("a", 1, "1.html"),
        ("h-notes", 2, "1.html"),
        ("front-matter-2", 3, "2.html"),
        ("a-2", 4, "2.html"),
        ("h-notes-2", 5, "2.html"),
    ]
    assert parsed.elements["front-matter-2"].get("data-id") == "front-matter-2"


def test_a_page_without_headings_is_not_a_plain_spec(tmp_path):
    with pytest.raises(SpecParseError, match="no sections"):
        parse_plain(tmp_path, "<p>just text</p><h2>Table of Contents</h2><h3> </h3><p>more</p>")


def test_ecmarkup_specs_still_use_the_ecmarkup_parser(tmp_path):
    path = write_plain(
        tmp_path,
        "<div id=spec-container><emu-clause id=sec-a><h1>A</h1>"
        "<h2>Not a section</h2></emu-clause></div>",
    )
    parsed = load_spec(path)
    assert [(s.id, s.kind) for s in parsed.sections] == [("sec-a", "clause")]


# --- the widget-protocol sample ---------------------------------------------------------------


def test_widget_protocol_sample_sections():
    parsed = load_spec(WIDGET_SAMPLE)
    sections: dict[str, Section] = {s.id: s for s in parsed.sections}
    assert parsed.document.kind == "html-headings"
    assert parsed.document.title == "Widget Protocol"
    assert len(parsed.sections) == 31
    assert max(s.depth for s in parsed.sections) == 2
    assert parsed.sections[0].id == "front-matter"
    assert "Mira Okonkwo" in sections["front-matter"].html
    assert [s.id for s in parsed.sections if s.parent_id == "messages"] == [
        "framing",
        "hello",
        "update",
        "close",
    ]  # 4.4 follows the wrapped 4.3 at its level
    assert (sections["partial-updates"].secnum, sections["partial-updates"].parent_id) == (
        "4.3.1",
        "update",
    )
    assert sections["appendix-examples"].secnum == "Appendix A"
    assert not any("Table of Contents" in s.html for s in parsed.sections)

    # every TOC entry targets a section
    def targets(nodes):
        for node in nodes:
            yield node.target_id
            yield from targets(node.children)

    toc_targets = list(targets(parsed.toc))
    assert len(toc_targets) == 27 and set(toc_targets) <= set(sections)
    # the abstract and status precede the TOC; the acknowledgments (no-toc) follow it
    assert [s.id for s in parsed.before_toc] == ["abstract", "sotd"]


def test_widget_protocol_sample_plain_defaults_keep_tables_whole():
    parsed = load_spec(WIDGET_SAMPLE)
    policy = ChunkPolicy(breakdown_tags=PLAIN_HTML_BREAKDOWN_TAGS)
    chunks = chunk_spec(parsed, policy, rules=HTML_RULES).chunks
    assert len(chunks) == 32
    (table,) = [c for c in chunks if c.depth > 0]
    assert (table.id, table.breakdown_tag, table.title) == (
        "errors-table-1",
        "table",
        "Error codes",
    )
    assert not any(c.over_threshold for c in chunks)


# --- definition lists --------------------------------------------------------------------------


def test_a_term_and_its_definitions_are_one_rule_unit():
    dl = etree.fromstring(
        "<dl><dt>a</dt><dt>b</dt> <dd>x</dd><!-- c --><dd>y</dd><dt>c</dt><dd>z</dd>"
        "<dd class='break'/><p>p</p><dd>lone</dd></dl>"
    )
    nodes = {(el.text or el.get("class")): el for el in dl}

    def unit(name: str, rule_unit=html_rule_unit) -> list[str]:
        return [el.text or el.get("class") for el in rule_unit(nodes[name])]

    # two terms share two definitions; found from any member
    assert unit("a") == unit("b") == unit("x") == unit("y") == ["a", "b", "x", "y"]
    # a term after a definition starts the next group; an empty definition joins it
    assert unit("c") == unit("break") == ["c", "z", "break"]
    assert unit("p") == ["p"] and unit("lone") == ["lone"]  # text between: no group
    assert unit("y", ecmarkup_rule_unit) == ["a", "b", "x", "y"]  # ecmarkup's rules too


def _references(count: int) -> str:
    """A references section as xml2rfc writes one: a term with an id, its definition, and an
    empty ``dd.break`` after each."""
    entries = "".join(
        f'<dt id="R{n}">[R{n}]</dt><dd>Author {n}, "A document numbered {n} about '
        f'protocols and their many interesting details, revisited", RFC {9000 + n}, '
        f'<a href="https://example.org/rfc{n}">https://example.org/rfc{n}</a>.</dd>'
        '<dd class="break"></dd>'
        for n in range(1, count + 1)
    )
    return f'<h2 id="refs">References</h2><dl class="references">{entries}</dl>'


def test_a_references_section_is_packed_into_runs_of_references(tmp_path):
    parsed = parse_plain(tmp_path, "<h2 id='intro'>Intro</h2><p>Text.</p>" + _references(40))
    policy = policy_for("html-headings", 2000)
    chunks = chunk_spec(copy.deepcopy(parsed), policy, rules=HTML_RULES).chunks
    root = next(c for c in chunks if c.id == "refs")
    runs = [c for c in chunks if c.parent_id == "refs"]
    assert root.over_threshold is None and root.subsections == [c.id for c in runs]
    assert len(runs) > 2 and {c.breakdown_tag for c in runs} == {"dt"}
    assert all(len(c.text) <= 2000 and c.over_threshold is None for c in runs)
    covered = []
    for run in runs:  # ids and titles name the first and last reference of the run
        first, last = map(int, re.fullmatch(r"refs-dt-(\d+)-(\d+)", run.id).groups())
        assert run.title == f"[R{first}] … [R{last}]"
        for n in range(first, last + 1):  # each term with its definition
            assert f"[R{n}]\n\nAuthor {n}," in run.text
        covered += range(first, last + 1)
    assert covered == list(range(1, 41))
    assert assert_lossless_parsed(parsed, policy) == 2


def test_definition_passes_leave_a_section_the_earlier_passes_fit(tmp_path):
    body = "<h2 id='s'>S</h2>" + "<p>A paragraph of some length, repeated here.</p>" * 60
    body += "<dl><dt>term</dt><dd>A definition long enough to be worth a chunk of its own, "
    body += "if a pass took it out of its section, which none needs to.</dd></dl>" * 3
    parsed = parse_plain(tmp_path, body)
    chunks = chunk_spec(parsed, policy_for("html-headings", 2000), rules=HTML_RULES).chunks
    assert {c.breakdown_tag for c in chunks if c.depth} == {"p"}


def test_a_bikeshed_algorithm_is_extracted_whole_and_titled_by_its_name(tmp_path):
    """The sentence that names an algorithm stays with its steps (a new user's trial: the
    steps were extracted alone, "Part: Assert: controller's …", naming nothing)."""
    steps = "".join(
        f"<li><p>Do step {n} of the work, carefully and in order.</p>" for n in range(12)
    )
    algorithm = (
        '<div class="algorithm" data-algorithm="report timing" data-algorithm-for="controller">'
        f"<p>To <dfn>report timing</dfn> for a controller, run these steps:</p><ol>{steps}</ol>"
        "</div>"
    )
    body = "<h2 id='s'>S</h2>" + "<p>Words before the algorithm, of some length.</p>" * 40
    parsed = parse_plain(tmp_path, body + algorithm + "<p>After.</p>")
    policy = policy_for("html-headings", 1500)
    chunks = chunk_spec(copy.deepcopy(parsed), policy, rules=HTML_RULES).chunks
    (made,) = [c for c in chunks if c.breakdown_tag == "div.algorithm"]
    assert made.title == "report timing (controller)"
    assert made.text.startswith("To *report timing* for a controller, run these steps:\n\n1. Do")
    assert assert_lossless_parsed(parsed, policy) == 1


def test_a_table_in_a_figure_is_extracted_with_its_caption_and_titled_by_it(tmp_path):
    """From a new user's trial: Bikeshed's ``<figure><table>…<figcaption>`` lost its caption to
    the parent, as a loose paragraph after the table's marker, and the table had no title."""
    rows = "".join(
        f"<tr><td>name {n}</td><td>a value of some length, {n}</td></tr>" for n in range(30)
    )
    body = (
        "<h2 id='s'>S</h2><p>The layout follows.</p>"
        f"<figure id='fig'><table><tr><th>Name</th><th>Value</th></tr>{rows}</table>"
        "<figcaption>Data layout. The names are for reference only.</figcaption></figure>"
        + "<p>Words after the figure, of some length to be cut.</p>"
        * 30
    )
    parsed = parse_plain(tmp_path, body)
    policy = policy_for("html-headings", 1500)
    chunks = chunk_spec(copy.deepcopy(parsed), policy, rules=HTML_RULES).chunks
    (table,) = [c for c in chunks if c.breakdown_tag == "table"]
    assert table.title == "Data layout."
    assert table.text.rstrip().endswith("Data layout. The names are for reference only.")
    root = next(c for c in chunks if c.id == "s")
    assert "Data layout" not in root.text.replace(f'title "{table.title}"', "")
    assert assert_lossless_parsed(parsed, policy) == 1


# --- default breakdown tags per kind ---------------------------------------------------------


def test_default_tags_depend_on_the_kind():
    assert (
        format_for_kind("html-headings").breakdown_tags
        == PLAIN_HTML_BREAKDOWN_TAGS
        == ("table", "pre", "div.algorithm", "ol", "ul", "p", "li", "dt", "dl")
    )
    assert format_for_kind("html-headings").seed_breakdown_tags == ("table", "pre", "ol", "ul", "p")
    assert policy_for("html-headings", strategy="seed").breakdown_tags[-1] == "p"
    assert ChunkPolicy(strategy="seed").breakdown_tags == SEED_BREAKDOWN_TAGS
    assert ChunkPolicy.from_tag_list(100, None, 2, strategy="seed").breakdown_tags == (
        SEED_BREAKDOWN_TAGS
    )
    assert (
        format_for_kind("ecmarkup-rendered").breakdown_tags
        == format_for_kind(None).breakdown_tags
        == DEFAULT_BREAKDOWN_TAGS
    )
    assert policy_for("html-headings", 100, None, 2).breakdown_tags == PLAIN_HTML_BREAKDOWN_TAGS
    assert policy_for("html-headings", 100, "td,p", 2).breakdown_tags == (
        "td",
        "p",
    )
    assert ChunkPolicy.from_tag_list(100, None, 2).breakdown_tags == DEFAULT_BREAKDOWN_TAGS


def test_ingest_policy_for_kind_hook(tmp_path):
    db_path = tmp_path / "w.db"
    result = ingest(
        [WIDGET_SAMPLE],
        db_path,
        ChunkPolicy(),
        policy_for_kind=lambda kind: policy_for(kind, 5000, None, 3),
    )
    db = open_database(db_path)
    try:
        assert db.sets.active_policy()[0].breakdown_tags == PLAIN_HTML_BREAKDOWN_TAGS
        assert db.sections.document().kind == "html-headings"
    finally:
        db.close()
    assert len(result.chunks) == 33  # the document chunk and the 32 section chunks


def test_cli_ingest_uses_plain_defaults_unless_tags_are_given(tmp_path, capsys):
    db_path = tmp_path / "w.db"
    assert cli.main(["ingest", str(WIDGET_SAMPLE), "--db", str(db_path)]) == 0
    printed = " ".join(capsys.readouterr().out.replace("│", " ").split())
    assert "table → pre → div.algorithm → ol → ul → p" in printed
    db = open_database(db_path)
    try:
        assert db.sets.active_policy()[0].breakdown_tags == PLAIN_HTML_BREAKDOWN_TAGS
        assert db.chunk("errors-table-1").breakdown_tag == "table"
    finally:
        db.close()

    assert cli.main(["ingest", str(WIDGET_SAMPLE), "--db", str(db_path), "--tags", "td,p"]) == 0
    assert "td → p" in capsys.readouterr().out
    db = open_database(db_path)
    try:
        assert db.sets.active_policy()[0].breakdown_tags == ("td", "p")
    finally:
        db.close()


def test_cli_ingest_keeps_ecmarkup_defaults_for_ecmarkup(tmp_path):
    db_path = tmp_path / "t.db"
    assert (
        cli.main(["ingest", str(ROOT / "sample_specs" / "toylang.html"), "--db", str(db_path)]) == 0
    )
    db = open_database(db_path)
    try:
        assert db.sets.active_policy()[0].breakdown_tags == DEFAULT_BREAKDOWN_TAGS
    finally:
        db.close()


def test_open_spec_uses_the_kind_defaults_in_app_and_from_the_cache(
    tmp_path, monkeypatch, terminal
):
    launched: list[tuple] = []
    from specbrowser.session import opening

    monkeypatch.setattr(opening, "cache_db_for", lambda paths: tmp_path / "cache.db")
    monkeypatch.setattr(cli.app, "_run_app", lambda *args: launched.append(args) or 0)
    assert cli.main(["open", str(WIDGET_SAMPLE)]) == 0
    db_path, spec, policy, for_kind = launched[-1]
    assert (
        spec == [WIDGET_SAMPLE]
        and for_kind("html-headings").breakdown_tags == PLAIN_HTML_BREAKDOWN_TAGS
    )

    ingest(spec, db_path, policy, policy_for_kind=for_kind)  # what the app's worker runs
    assert cli.main(["open", str(WIDGET_SAMPLE)]) == 0
    assert launched[-1] == (db_path, None, None)  # the cached plain-defaults set is reused

    assert cli.main(["open", str(WIDGET_SAMPLE), "--tags", "p"]) == 0
    _db, spec, policy, for_kind = launched[-1]
    assert spec == [WIDGET_SAMPLE] and policy.breakdown_tags == ("p",) and for_kind is None
