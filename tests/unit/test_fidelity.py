"""Faithful conversion of what specs hold besides prose: a proposal's edits, math, optional
grammar symbols, header-less tables, deep nesting."""

from __future__ import annotations

import pytest
from lxml import etree

from specbrowser import store
from specbrowser.chunking.markdown import MAX_NESTING, resolve_roles, to_markdown
from specbrowser.chunking.markdown_config import MarkdownConfig
from specbrowser.chunking.markdown_text import drop_deleted
from specbrowser.chunking.pipeline import chunk_spec
from specbrowser.chunking.policy import ChunkPolicy
from specbrowser.chunking.rules import HTML_RULES
from specbrowser.cli import main
from specbrowser.formats import load_spec
from specbrowser.formats.ecmarkup import CHUNKING_RULES, MARKDOWN_ELEMENTS, heading_of
from specbrowser.formats.html import current_text
from specbrowser.formats.toc import extract_toc
from specbrowser.session.ingest import ingest
from specbrowser.session.rechunk import rechunk
from tests.helpers import ECMA262, assert_lossless, chunk_html, write_spec

MARKED = MarkdownConfig(edits="marked")


def element(html: str) -> etree._Element:
    root = etree.fromstring(f"<html><body><div>{html}</div></body></html>", etree.HTMLParser())
    found = root.find(".//div")
    assert found is not None
    return found


def md(html: str, config: MarkdownConfig | None = None) -> str:
    return to_markdown(element(html), config or MarkdownConfig(), elements=MARKDOWN_ELEMENTS)


# --- a proposal's <del> and <ins> ------------------------------------------------------------

EDITED_STEPS = (
    "<emu-alg><ol>"
    "<li><del>Let <var>old</var> be 1.</del></li>"
    '<li><span aria-hidden="true" class="list-marker">2. </span><del>Gone too.</del></li>'
    "<li>Let <del>x</del><ins>y</ins> be 2.</li>"
    "<li>Return <var>y</var>.</li>"
    "</ol></emu-alg>"
)


def test_current_edits_drop_deleted_text_and_fully_deleted_steps():
    text = md(EDITED_STEPS)
    assert text == "1. Let y be 2.\n2. Return `y`."
    assert "old" not in text and "Gone" not in text


def test_marked_edits_keep_both_marked():
    text = md(EDITED_STEPS, MARKED)
    assert "1. ~~Let `old` be 1.~~" in text
    assert "3. Let ~~x~~++y++ be 2." in text
    assert "4. Return `y`." in text


def test_a_marked_edit_keeps_the_space_at_its_boundary_outside_its_marks():
    html = "<h1>Let<del> and Const</del><ins>, Const, and Using</ins> Declarations</h1>"
    assert md(html, MARKED) == "# Let ~~and Const~~++, Const, and Using++ Declarations"
    assert md("<p>a<ins> b </ins>c <b> d</b>e</p>", MARKED) == "a ++b++ c **d**e"


def test_a_marked_edit_inside_grammar_parameters_is_marked():
    params = "<emu-mods><emu-params>[<ins>+UnicodeSetsMode, </ins>~N]</emu-params></emu-mods>"
    html = (
        f'<emu-grammar><emu-production name="Pattern"><emu-nt>Pattern{params}</emu-nt> '
        "<emu-geq>::</emu-geq> <emu-rhs><emu-nt>Disjunction<emu-mods><emu-params>"
        "[<ins>+UnicodeSetsMode</ins>, ~N]</emu-params></emu-mods></emu-nt>"
        "<emu-nt optional>Tail<emu-mods><emu-opt>opt</emu-opt></emu-mods></emu-nt>"
        "</emu-rhs></emu-production></emu-grammar>"
    )
    assert md(html, MARKED) == (
        "```bnf\nPattern[+++UnicodeSetsMode,++ ~N] ::\n"
        "    Disjunction[+++UnicodeSetsMode++, ~N] Tail?\n```"
    )
    assert md(html) == (
        "```bnf\nPattern[+UnicodeSetsMode, ~N] ::\n    Disjunction[+UnicodeSetsMode, ~N] Tail?\n```"
    )


def test_an_edit_holding_blocks_is_a_block():
    html = "<p>before</p><ins><p>NEWPARA one.</p><p>two</p></ins><del><p>OLDPARA</p></del>"
    assert md(html) == "before\n\nNEWPARA one.\n\ntwo"
    marked = md(html, MARKED)
    assert "> **Inserted**\n>\n> NEWPARA one.\n>\n> two" in marked
    assert "> **Deleted**\n>\n> OLDPARA" in marked


def test_a_deleted_argument_leaves_one_separator():
    html = "<h1>Host ( <var>a</var>, <del><var>b</var></del>, <ins><var>c</var></ins> )</h1>"
    assert md(html) == "# Host ( `a`, `c` )"


def test_drop_deleted_counts_and_is_idempotent():
    el = element("<p>a <del>b</del> c <del>d</del></p>")
    assert drop_deleted(el) == 2 and drop_deleted(el) == 0
    assert to_markdown(el) == "a c"


def test_resolve_roles_gives_edits_roles_only_when_marked():
    el = element("<p><del>x</del><ins>y</ins></p>")
    roles = resolve_roles(el, MARKED)
    assert sorted(roles.values()) == ["deleted", "inserted"]


def test_edit_mode_is_part_of_the_policy_version():
    current = ChunkPolicy()
    marked = ChunkPolicy(markdown=MARKED)
    assert current.version != marked.version
    assert ChunkPolicy.from_settings(marked.settings()) == marked
    assert MarkdownConfig.from_settings({"edits": "bogus"}).edits == "current"


def test_heading_and_toc_titles_read_as_after_the_proposal():
    h1 = (
        '<emu-clause id="sec-h"><h1><span class="secnum">16.2.1.8</span> Host ( '
        "<var>referrer</var>, <del><var>specifier</var></del>, <ins><var>moduleRequest</var></ins>"
        " )</h1></emu-clause>"
    )
    clause = etree.fromstring(h1, etree.HTMLParser()).find(".//emu-clause")
    assert clause is not None
    assert heading_of(clause) == ("16.2.1.8", "Host ( referrer, moduleRequest )")
    root = etree.fromstring(
        '<div id="menu-toc"><ol class="toc"><li><a href="#sec-h" title="Host ( referrer, '
        'specifier, moduleRequest )"><span class="secnum">16.2.1.8</span> Host ( '
        "<var>referrer</var>, <del><var>specifier</var></del>, <ins><var>moduleRequest</var>"
        "</ins> )</a></li></ol></div>",
        etree.HTMLParser(),
    )
    (entry,) = extract_toc(root)
    assert entry.title == "Host ( referrer, moduleRequest )"
    assert current_text(element("<del>x</del>")) == ""


def test_a_section_edited_by_a_proposal_is_titled_by_its_new_words(tmp_path):
    body = (
        '<emu-clause id="sec-e"><h1><span class="secnum">1</span> <del>Old</del><ins>New</ins>'
        " Name</h1><p>Text <del>OLDWORD</del><ins>NEWWORD</ins>.</p></emu-clause>"
    )
    (chunk,) = chunk_html(tmp_path, body)
    assert chunk.title == "1 New Name" and chunk.heading_path == ["1 New Name"]
    assert "OLDWORD" not in chunk.text and "NEWWORD" in chunk.text


# --- math ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("html", "expected"),
    [
        (
            '<emu-eqn class="inline">2<sup>64</sup> - 2<sup>53</sup> + 3</emu-eqn>',
            "`2^64 - 2^53 + 3`",
        ),
        ("<var>radix</var><sup><var>k</var> - 1</sup>", "`radix`^(k - 1)"),
        ("2<sup><var>shift</var></sup>", "2^shift"),
        ("the n<sup>th</sup> element", "the nth element"),
        ("+0<sub>𝔽</sub> and <b>cf<sub>1</sub></b>", "+0_𝔽 and **cf_1**"),
        ("<code>x<sup>2</sup></code>", "`x^2`"),
        ("2<sup>-<var>y</var></sup>", "2^(-y)"),
    ],
)
def test_superscripts_and_subscripts_keep_their_place(html, expected):
    assert md(f"<p>{html}</p>") == expected


def test_a_source_algorithm_writes_its_scripts_as_a_rendered_one_does():
    """ecmarkup source: the steps are Markdown text (the shorthand already code spans), their
    ``sup``/``sub`` elements; a code span inside a script reads as its text."""
    steps = (
        "\n    1. If `x` is *null*, return `+0`<sub>𝔽</sub>.\n"
        "    1. Return 2<sup>`n` - 1</sup> + n<sup>th</sup> + 2<sup>x<sup>2</sup></sup>.\n  "
    )
    assert md(f"<emu-alg>{steps}</emu-alg>") == (
        "1. If `x` is *null*, return `+0`_𝔽.\n1. Return 2^(n - 1) + nth + 2^(x^2)."
    )


def test_block_equation_keeps_exponents():
    assert md("<emu-eqn>x = 2<sup>53</sup></emu-eqn>") == "```\nx = 2^53\n```"


# --- grammar ---------------------------------------------------------------------------------


def test_optional_symbol_is_a_word_of_its_own():
    html = (
        '<emu-grammar><emu-production name="A"><emu-nt>A</emu-nt> <emu-geq>:</emu-geq>'
        "<emu-rhs><emu-nt>Elision</emu-nt> <emu-nt optional><a>Initializer</a><emu-mods>"
        "<emu-opt>opt</emu-opt></emu-mods></emu-nt></emu-rhs></emu-production></emu-grammar>"
    )
    assert md(html) == "```bnf\nA :\n    Elision Initializer?\n```"
    prose = "<p>an <emu-nt>Elision<emu-mods><emu-opt>opt</emu-opt></emu-mods></emu-nt> here</p>"
    assert md(prose) == "an Elision? here"


# --- tables ----------------------------------------------------------------------------------


def test_a_table_without_a_header_row_gets_an_empty_one():
    text = md("<table><tr><td>a</td><td>b</td></tr><tr><td>c</td><td>d</td></tr></table>")
    assert text == "|  |  |\n|---|---|\n| a | b |\n| c | d |"


@pytest.mark.parametrize(
    "head",
    ["<thead><tr><td>h1</td><td>h2</td></tr></thead>", "<tr><th>h1</th><th>h2</th></tr>"],
)
def test_a_thead_or_th_row_is_the_header(head):
    text = md(f"<table>{head}<tr><td>a</td><td>b</td></tr></table>")
    assert text.split("\n")[0] == "| h1 | h2 |"


# --- deep nesting ----------------------------------------------------------------------------


@pytest.mark.parametrize("tag", ["div", "span"])
def test_2000_nested_elements_convert_without_recursion_error(tag):
    html = f"<{tag}>" * 2000 + "DEEPWORD" + f"</{tag}>" * 2000
    root = etree.fromstring(
        f"<html><body><p>top</p>{html}</body></html>", etree.HTMLParser(huge_tree=True)
    )
    body = root.find("body")
    assert body is not None
    assert to_markdown(body) == "top\n\nDEEPWORD"


def test_nesting_below_the_limit_keeps_its_formatting():
    html = "<div>" * (MAX_NESTING - 10) + "<b>bold</b>" + "</div>" * (MAX_NESTING - 10)
    assert md(html) == "**bold**"


def test_ingest_of_1000_nested_elements_succeeds(tmp_path):
    body = '<emu-clause id="sec-deep"><h1>Deep</h1>' + "<div>" * 1000 + "DEEPWORD"
    body += "</div>" * 1000 + "</emu-clause>"
    (chunk,) = chunk_html(tmp_path, body)
    assert "DEEPWORD" in chunk.text


def test_a_page_deeper_than_the_parser_reads_is_one_error_line(tmp_path, capsys):
    body = '<emu-clause id="sec-deep"><h1>Deep</h1>' + "<div>" * 2100 + "x"
    spec = write_spec(tmp_path, body + "</div>" * 2100 + "</emu-clause>")
    assert main(["ingest", str(spec), "--db", str(tmp_path / "d.db")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "deeper than 2048 levels" in err[0]
    with pytest.raises(Exception, match="deeper than"):
        load_spec(spec)


def test_cached_and_uncached_rechunks_of_an_edited_section_agree(tmp_path):
    inner = "".join(
        f"<li>Inner step {j} has words enough to be a long step.</li>" for j in range(8)
    )
    steps = "".join(
        f"<li>Let <del>OLDSTEP{i}</del>new{i} be:<ol>{inner}</ol></li>" for i in range(6)
    )
    body = f'<emu-clause id="sec-p"><h1>P</h1><emu-alg><ol>{steps}</ol></emu-alg></emu-clause>'
    spec = write_spec(tmp_path, body)
    for name in ("cached", "uncached"):
        ingest([spec], tmp_path / f"{name}.db", ChunkPolicy(threshold=5000))
    cached, uncached = (store.open_database(tmp_path / f"{n}.db") for n in ("cached", "uncached"))
    small = ChunkPolicy(threshold=300, breakdown_tags=("li", "ol"), strategy="seed")
    rechunk(cached, small, rebuild=True)
    rechunk(uncached, small, rebuild=True, use_cache=False, copy_stored=False)
    query = "SELECT id, text FROM chunks WHERE policy_version = ? ORDER BY ordinal"
    rows = cached.db.execute(query, [small.version]).fetchall()
    assert rows == uncached.db.execute(query, [small.version]).fetchall()
    assert len(rows) > 1
    assert not any("OLDSTEP" in text for _, text in rows)


GRAMMAR_EDIT = (
    '<emu-grammar><emu-production name="W"><emu-nt>W</emu-nt> <emu-geq>:</emu-geq>'
    "<emu-rhs><emu-nt>A</emu-nt></emu-rhs><ins><emu-rhs><emu-nt>NEWRHS</emu-nt></emu-rhs></ins>"
    "<del><emu-rhs><emu-nt>OLDRHS</emu-nt></emu-rhs></del></emu-production></emu-grammar>"
    '<emu-grammar><del><emu-production name="G"><emu-nt>G</emu-nt> <emu-geq>:</emu-geq>'
    "<emu-rhs><emu-nt>GONE</emu-nt></emu-rhs></emu-production></del></emu-grammar>"
)


def test_right_hand_sides_inside_an_edit_are_kept_or_dropped():
    assert md(GRAMMAR_EDIT) == "```bnf\nW :\n    A\n    NEWRHS\n```"


def test_marked_grammar_edits_start_their_lines_with_plus_or_minus():
    text = md(GRAMMAR_EDIT, MARKED)
    assert "W :\n    A\n+   NEWRHS\n-   OLDRHS\n```" in text
    assert "-G :\n-   GONE" in text


# --- front matter ----------------------------------------------------------------------------


def test_content_outside_every_section_is_a_front_matter_section(tmp_path):
    body = (
        '<h1 class="version">Stage 3 Draft / TITLEWORD</h1><p>Intro PREAMBLEWORD.</p>'
        '<emu-clause id="sec-a"><h1>A</h1><p>AWORD</p></emu-clause>'
        "<div>Between TAILWORD<script>SCRIPTWORD</script></div>"
    )
    parsed = load_spec(write_spec(tmp_path, body))
    front, clause = parsed.sections
    assert (front.id, front.kind, front.ordinal, front.parent_id) == (
        "front-matter",
        "front-matter",
        0,
        None,
    )
    assert (clause.id, clause.ordinal) == ("sec-a", 1)
    chunks = {c.section_id: c for c in chunk_html(tmp_path, body) if c.parent_id is None}
    text = chunks["front-matter"].text
    assert "TITLEWORD" in text and "PREAMBLEWORD" in text and "TAILWORD" in text
    assert "SCRIPTWORD" not in text and "AWORD" not in text and "Subsection" not in text
    assert chunks["sec-a"].text.count("AWORD") == 1


def test_no_front_matter_without_text_outside_the_sections(tmp_path):
    parsed = load_spec(write_spec(tmp_path, '<emu-clause id="a"><h1>A</h1></emu-clause>\n'))
    assert [s.id for s in parsed.sections] == ["a"]


def test_the_menu_is_not_front_matter(tmp_path):
    spec = tmp_path / "spec.html"
    spec.write_text(
        "<html><body><div id='menu'><div id='menu-toc'><ol class='toc'><li>"
        "<a href='#a' title='A'>A</a></li></ol></div></div><div id='spec-container'>"
        "<emu-clause id='a'><h1>A</h1><p>x</p></emu-clause></div></body></html>"
    )
    assert [s.id for s in load_spec(spec).sections] == ["a"]


# --- ecmarkup source -------------------------------------------------------------------------

SOURCE = (
    "<!DOCTYPE html>\n<meta charset='utf-8'>\n<pre class=metadata>\ntitle: Toy\n</pre>\n"
    '<emu-intro id="sec-intro"><h1>Intro</h1></emu-intro>\n'
    '<emu-clause id="sec-one"><h1>One</h1>\n'
    '<emu-clause id="sec-one-a"><h1>One A</h1></emu-clause>\n'
    '<emu-clause id="sec-one-b"><h1>Op ( _arg_ )</h1>\n'
    "<p>Let _x_ be *true*, ~sync~ or |Statement_opt|; keep snake_case and 2 * 3 * 4.</p>\n"
    '<emu-alg>\n  1. Let _n_ be |Expression[?In]|.\n  1. Return *"a b"*.\n</emu-alg>\n'
    "<emu-grammar>A : B _C_</emu-grammar>\n"
    "</emu-clause></emu-clause>\n"
    '<emu-clause id="sec-thirteen" number="13"><h1>Thirteen</h1></emu-clause>\n'
    '<emu-clause id="sec-fourteen"><h1>Fourteen</h1></emu-clause>\n'
    '<emu-annex id="sec-annex-a"><h1>First</h1>'
    '<emu-annex id="sec-annex-a1"><h1>Sub</h1></emu-annex></emu-annex>\n'
    '<emu-annex id="sec-annex-b" normative><h1>Second</h1></emu-annex>\n'
    '<emu-annex id="sec-bibliography" back-matter><h1>Bibliography</h1></emu-annex>\n'
)


def test_source_sections_are_numbered_as_ecmarkup_renders_them(tmp_path):
    (tmp_path / "spec.emu").write_text(SOURCE)  # a folder holding only spec.emu
    parsed = load_spec(tmp_path)
    assert parsed.document.kind == "ecmarkup-source"
    numbers = {s.id: s.secnum for s in parsed.sections}
    assert numbers == {
        "front-matter": "",
        "sec-intro": "",
        "sec-one": "1",
        "sec-one-a": "1.1",
        "sec-one-b": "1.2",
        "sec-thirteen": "13",
        "sec-fourteen": "14",
        "sec-annex-a": "Annex A (informative)",
        "sec-annex-a1": "A.1",
        "sec-annex-b": "Annex B (normative)",
        "sec-bibliography": "",
    }


def test_source_shorthand_reads_as_rendered_text(tmp_path):
    (tmp_path / "spec.emu").write_text(SOURCE)
    parsed = load_spec(tmp_path)
    assert {s.id: s.title for s in parsed.sections}["sec-one-b"] == "Op ( arg )"
    chunks = chunk_spec(parsed, ChunkPolicy(), rules=CHUNKING_RULES).chunks
    text = next(c.text for c in chunks if c.id == "sec-one-b")
    assert "Let `x` be `true`, `sync` or Statement?; keep snake_case and 2 * 3 * 4." in text
    assert '1. Let `n` be Expression[?In].\n2. Return `"a b"`.' in text  # numbered as rendered
    assert "A : B _C_" in text  # grammar as written


# --- plain HTML ------------------------------------------------------------------------------


def plain(tmp_path, body: str):
    path = tmp_path / "plain.html"
    path.write_text(
        "<!doctype html><html><head><meta charset='utf-8'><title>Plain</title></head>"
        f"<body>{body}</body></html>",
        encoding="utf-8",
    )
    parsed = load_spec(path)
    return parsed, chunk_spec(parsed, ChunkPolicy(), rules=HTML_RULES).chunks


def test_sphinx_and_github_permalinks_leave_headings(tmp_path):
    body = (
        '<section id="intro"><h2>Intro<a class="headerlink" href="#intro" title="Permalink">¶</a>'
        '</h2><p>one</p></section><h2 id="two"><a href="#two" class="anchor">#</a> Two</h2>'
        "<p>two</p>"
    )
    parsed, chunks = plain(tmp_path, body)
    assert [s.title for s in parsed.sections] == ["Intro", "Two"]
    texts = {c.section_id: c.text for c in chunks if c.parent_id is None}
    assert texts["intro"].startswith("## Intro\n") and "¶" not in texts["intro"]
    assert texts["two"].startswith("## Two\n")


def test_mdbook_heading_links_are_written_as_text(tmp_path):
    body = '<h1 id="guide"><a class="header" href="#guide">The Guide</a></h1><p>text</p>'
    parsed, chunks = plain(tmp_path, body)
    assert parsed.sections[0].title == "The Guide"
    assert chunks[-1].text == "# The Guide\n\ntext"


def test_navigation_sidebars_make_no_sections_and_asides_are_content(tmp_path):
    body = (
        '<nav id="sidebar"><h2>Chapters</h2><ol><li><a href="#a">A</a></li></ol></nav>'
        '<div class="sphinxsidebar" role="navigation"><h3>Navigation</h3><p>NAVWORD</p></div>'
        '<h1 id="a">A</h1><p>text</p><aside><h4>Aside title</h4><p>ASIDEWORD</p></aside>'
    )
    parsed, chunks = plain(tmp_path, body)
    assert [s.id for s in parsed.sections] == ["a"]
    text = next(c.text for c in chunks if c.section_id == "a")
    assert "ASIDEWORD" in text and "NAVWORD" not in text and "Chapters" not in text


def test_cli_edits_option_chooses_the_mode(tmp_path, capsys):
    spec = write_spec(
        tmp_path,
        '<emu-clause id="sec-e"><h1>E</h1><p>A <del>OLD</del><ins>NEW</ins>.</p></emu-clause>',
    )
    for mode, expected in (("current", "A NEW."), ("marked", "A ~~OLD~~++NEW++.")):
        db = tmp_path / f"{mode}.db"
        assert main(["ingest", str(spec), "--db", str(db), "--edits", mode]) == 0
        chunk = store.open_database(db).chunk("sec-e")
        assert chunk.text.endswith(expected)
    with pytest.raises(SystemExit) as exited:
        main(["ingest", str(spec), "--db", str(tmp_path / "x.db"), "--edits", "bogus"])
    assert exited.value.code == 2


@pytest.mark.parametrize("tag", ["div", "span"])
def test_plain_html_nested_2000_deep_parses_without_recursion_error(tmp_path, tag):
    deep = f"<{tag}>" * 2000 + '<h3 id="b">B</h3>DEEPWORD' + f"</{tag}>" * 2000
    parsed, chunks = plain(tmp_path, f'<h2 id="a">A</h2>{deep}')
    texts = [c.text for c in chunks if c.section_id is not None]
    assert sum(t.count("DEEPWORD") for t in texts) == 1
    if tag == "div":  # a heading in wrappers is a section; in a span it is content
        assert [s.id for s in parsed.sections] == ["a", "b"]


# --- real input ------------------------------------------------------------------------------

PROPOSAL = ECMA262.parent / "proposal-import-attributes" / "index.html"
needs_proposal = pytest.mark.skipif(
    not PROPOSAL.exists(), reason=f"real specs not found at {PROPOSAL.parent}"
)


@pytest.mark.real
@needs_proposal
def test_the_proposal_reads_as_after_it_and_loses_no_words():
    chunks = {
        c.id: c for c in chunk_spec(load_spec(PROPOSAL), ChunkPolicy(), rules=CHUNKING_RULES).chunks
    }
    host = chunks["sec-HostLoadImportedModule"]
    assert "specifier" not in host.title and "moduleRequest" in host.title
    assert "specifier" not in host.text.split("\n")[0]
    evaluation = chunks["sec-import-call-runtime-semantics-evaluation"].text
    assert "GetActiveScriptOrModule" not in evaluation  # the nine deleted steps
    # its words: test_real_matrix (import-attributes)


@pytest.mark.real
@needs_proposal
@pytest.mark.parametrize("edits", ["current", "marked"])
@pytest.mark.parametrize("tags", [("emu-table", "emu-grammar", "td", "p"), ("emu-alg", "ol", "li")])
def test_the_proposal_breaks_down_losslessly_in_both_edit_modes(edits, tags):
    policy = ChunkPolicy(threshold=300, breakdown_tags=tags, markdown=MarkdownConfig(edits=edits))
    assert assert_lossless(PROPOSAL, policy) == 26


@pytest.mark.parametrize(
    ("html", "expected"),
    [
        ("f ( <var>a</var>, <del><var>b</var></del>, <var>c</var> )", "f ( `a`, `c` )"),
        ("f ( <del><var>a</var></del>, <var>b</var> )", "f ( `b` )"),
        ("f ( <var>a</var>, <del><var>b</var></del> )", "f ( `a` )"),
        ("<del>Gone</del>, kept", "kept"),
    ],
)
def test_a_deletion_strands_no_separator(html, expected):
    assert md(f"<p>{html}</p>") == expected
