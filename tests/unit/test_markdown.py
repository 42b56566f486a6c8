"""Markdown conversion rules for chunk text (the readable baseline; issue 3 completes it)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from lxml import etree

from specbrowser.chunking.markdown import _HARD_BREAK, _WS, _collapse, _join_inline, to_markdown
from specbrowser.formats.ecmarkup import MARKDOWN_ELEMENTS


def md(html: str) -> str:
    return to_markdown(
        etree.fromstring(f"<html><body><div>{html}</div></body></html>", etree.HTMLParser()).find(
            ".//div"
        ),
        elements=MARKDOWN_ELEMENTS,
    )


def test_paragraphs_are_separated_by_a_blank_line():
    assert md("<p>one</p><p>two</p>") == "one\n\ntwo"


def test_section_heading_on_top():
    assert (
        md('<h1><span class="secnum">7.1</span> Type <var>x</var></h1><p>b</p>')
        == "# 7.1 Type `x`\n\nb"
    )


def test_multipage_links_lose_the_page_name_and_only_non_ascii_escapes_are_decoded():
    html = (
        '<emu-xref href="#sec-tonumber">'
        '<a href="abstract-operations.html#sec-tonumber">ToNumber</a></emu-xref>'
        ' and <a href="#sec-%abstractfoo%-constructor">%AbstractFoo%</a>'
        ' and <a href="#%E2%84%9D">ℝ</a> and <a href="#a%2Fb">a</a>'
        ' and <a href="https://tc39.es/">x</a>'
    )
    assert md(f"<p>{html}</p>") == (
        "[ToNumber](#sec-tonumber) and [%AbstractFoo%](#sec-%abstractfoo%-constructor)"
        " and [ℝ](#ℝ) and [a](#a%2Fb) and [x](https://tc39.es/)"
    )


def test_inline_code_for_var_value_const_and_backticks_get_longer_delimiters():
    assert (
        md(
            "<p><var>a</var> <emu-val>true</emu-val> <emu-const>sync</emu-const> "
            "<code>a`b</code></p>"
        )
        == "`a` `true` `sync` ``a`b``"
    )


def test_nested_lists_one_item_per_line():
    html = (
        "<emu-alg><ol><li>Let x.</li><li>If y, then<ol><li>Return z.</li></ol></li></ol></emu-alg>"
    )
    assert md(html) == "1. Let x.\n2. If y, then\n   1. Return z."


def test_list_written_directly_inside_a_list_nests():
    assert md("<ul><li>a</li><ul><li>b</li></ul></ul>") == "- a\n  - b"


def test_table_rows_one_per_line_with_escaped_pipes():
    html = (
        "<figure><figcaption>Table 1: Ops</figcaption><table><thead><tr><th>op</th><th>x</th></tr>"
        "</thead><tbody><tr><td><code>a|b</code></td><td>y<br>z</td></tr>"
        "<tr><td colspan=2>w</td></tr>"
        "</tbody></table></figure>"
    )
    assert md(html) == ("Table 1: Ops\n\n| op | x |\n|---|---|\n| `a\\|b` | y<br>z |\n| w |  |")


def test_grammar_becomes_a_bnf_block():
    html = (
        '<emu-grammar><emu-production name="If">'
        "<emu-nt>If<emu-mods><emu-params>[Yield]</emu-params></emu-mods></emu-nt> "
        "<emu-geq>:</emu-geq> <emu-rhs><emu-t>if</emu-t> "
        '<emu-nt><a href="#prod-E">E</a></emu-nt></emu-rhs>'
        "<emu-rhs><emu-t>else</emu-t></emu-rhs></emu-production></emu-grammar>"
    )
    assert md(html) == "```bnf\nIf[Yield] :\n    if E\n    else\n```"


def test_pre_is_fenced_with_language_and_whitespace_kept():
    assert (
        md('<pre><code class="javascript">a  =  1;\n  # not a heading</code></pre>')
        == "```javascript\na  =  1;\n  # not a heading\n```"
    )


def test_note_is_a_blockquote_with_its_label():
    html = (
        '<emu-note><span class="note">Note 2</span>'
        '<div class="note-contents"><p>Careful.</p></div></emu-note>'
    )
    assert md(html) == "> **Note 2**\n>\n> Careful."


def test_section_placeholder_becomes_a_marker():
    html = '<p>a</p><sb-section-ref data-id="sec-b" data-title="1.1 B"></sb-section-ref><p>c</p>'
    assert md(html) == 'a\n\n[Subsection available: title "1.1 B" at sectionid: `sec-b`]\n\nc'


def test_whitespace_between_inline_elements_is_kept():
    assert md("<p><b>bold</b> <i>it</i>\n<span>span</span></p>") == "**bold** *it* span"


def test_example_label_and_figure_caption():
    html = (
        "<emu-example><p>use it</p></emu-example><emu-figure><figure><figcaption>Figure 1: Shapes"
        "</figcaption><p>drawing</p></figure></emu-figure>"
    )
    assert md(html) == "> **Example**\n>\n> use it\n\nFigure 1: Shapes\n\ndrawing"


def test_rowspan_and_colspan_pad_every_row():
    html = (
        "<table><tr><th>a</th><th>b</th><th>c</th></tr>"
        "<tr><td rowspan=2>x</td><td colspan=2>y</td></tr>"
        "<tr><td>z</td><td>w</td></tr></table>"
    )
    assert md(html) == "| a | b | c |\n|---|---|---|\n| x | y |  |\n|  | z | w |"


def test_block_equation_is_fenced_and_inline_equation_is_code():
    html = (
        '<emu-eqn id="e"><div>HoursPerDay = 24</div></emu-eqn><p>see <emu-eqn class="inline">'
        "𝔽(<var>x</var>)</emu-eqn></p>"
    )
    assert md(html) == "```\nHoursPerDay = 24\n```\n\nsee `𝔽(x)`"


def test_plain_pre_is_fenced_byte_for_byte():
    assert md("<pre>  a\n\n    b  </pre>") == "```\n  a\n\n    b  \n```"


def test_adjacent_code_spans_are_not_glued():
    assert md("<p><var>a</var><var>b</var></p>") == "`a` `b`"


def _code_contents(markdown: str) -> list[str]:
    """What a CommonMark reader shows inside each code span of ``markdown``."""
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark").enable("table").parse(markdown)
    return [
        child.content
        for token in tokens
        if token.children
        for child in token.children
        if child.type == "code_inline"
    ]


@pytest.mark.parametrize(
    ("html", "shown"),
    [
        ("<p>a <code> https://a.b </code> b</p>", [" https://a.b "]),
        ("<p>a <code>  https://a.b\n</code> b</p>", [" https://a.b "]),
        ("<p>a <code> x</code>y</p>", [" x"]),
        ("<p>a <code>x </code>y</p>", ["x "]),
        ("<p><code>`a </code></p>", ["`a "]),
        ("<h2>T <code> q </code></h2>", [" q "]),
        ("<table><tr><th>h</th></tr><tr><td><code> c </code></td></tr></table>", [" c "]),
    ],
)
def test_inline_code_keeps_its_leading_and_trailing_space(html, shown):
    assert _code_contents(md(html)) == shown


def test_a_line_break_in_inline_code_is_not_dropped():
    assert md("<p><code>ht<br>tps://x</code></p>") == "`ht`\n`tps://x`"
    assert md("<p><code>ht <br> tps</code></p>") == "`ht`\n`tps`"
    assert md("<p><code>ht<br>tps://x</code></p>") != md("<p><code>https://x</code></p>")
    assert md("<table><tr><th>h</th></tr><tr><td><code>a<br>b</code></td></tr></table>") == (
        "| h |\n|---|\n| `a`<br>`b` |"
    )


def test_paragraph_that_would_start_a_block_is_escaped():
    assert (
        md("<p># not heading</p><p>1. not a list</p><p>- nor this</p>")
        == "\\# not heading\n\n1\\. not a list\n\n\\- nor this"
    )


def test_markdown_config_selectors_change_roles():
    from lxml import etree as et

    from specbrowser.chunking.markdown_config import MarkdownConfig

    el = et.fromstring(
        "<html><body><div><p>x <span class='k'>kw</span> <var>v</var></p></div></body></html>",
        et.HTMLParser(),
    ).find(".//div")
    config = MarkdownConfig(inline_code=("span.k",))
    assert to_markdown(el, config) == "x `kw` v"


def test_an_element_two_roles_select_gets_the_first_in_precedence_order():
    from specbrowser.chunking.markdown import resolve_roles
    from specbrowser.chunking.markdown_config import MarkdownConfig

    el = etree.fromstring(
        "<div><pre class='x'>a</pre><pre>b</pre><code>c</code><code class='y'>d</code>"
        "<pre class='z'>e</pre></div>"
    )
    config = MarkdownConfig(
        skip=("pre.x",), code_block=("pre", "code.y"), inline_code=("code", "pre.z")
    )
    roles = {e.text: role for e, role in resolve_roles(el, config).items()}
    # skip's CSS ranks before code_block's name, code_block's CSS before inline_code's name,
    # code_block's name before inline_code's CSS
    assert roles == {
        "a": "skip",
        "b": "code_block",
        "c": "inline_code",
        "d": "code_block",
        "e": "code_block",
    }


def test_image_paths_are_the_same_for_single_page_and_multipage():
    assert (
        md('<p><img alt="Fig" src="../img/f.svg"></p>')
        == md('<p><img alt="Fig" src="img/f.svg"></p>')
        == "![Fig](img/f.svg)"
    )


def test_bikeshed_notes_and_examples_are_blockquotes():
    assert (
        md('<div class="note"><p>Mind this.</p></div><div class="example"><p>Try it.</p></div>')
        == "> **Note**\n>\n> Mind this.\n\n> **Example**\n>\n> Try it."
    )


_PIECES = st.text(
    alphabet=st.sampled_from(["a", "`", " ", "\t", "\n", "\r", "\f", "\v", "\xa0", _HARD_BREAK])
)


@pytest.mark.parametrize("space", [" ", "  ", "\t", "\n", "\r", "\f", "\v", " \n "])
def test_collapse_makes_any_run_of_ascii_whitespace_one_space(space):
    assert _collapse(f" a{space}b\xa0{space}c ") == "a b\xa0 c"


@given(_PIECES)
def test_collapse_is_one_space_per_run_of_ascii_whitespace_then_stripped(text):
    expected = _WS.sub(" ", text).strip()  # the rule; _collapse skips it where it changes nothing
    if _HARD_BREAK in expected:
        expected = expected.replace(f" {_HARD_BREAK} ", "\n").replace(_HARD_BREAK, "\n").strip("\n")
    assert _collapse(text) == expected


def _unescaped_tick_at_end(piece: str) -> bool:
    backslashes = len(piece[:-1]) - len(piece[:-1].rstrip("\\"))
    return piece.endswith("`") and backslashes % 2 == 0


@given(st.lists(_PIECES, max_size=6))
def test_join_inline_keeps_code_spans_apart_and_adds_nothing_else(parts):
    expected = "".join(
        (" " if i and part.startswith("`") and _unescaped_tick_at_end(parts[i - 1]) else "") + part
        for i, part in enumerate(parts)
    )
    assert _join_inline(parts) == expected


def test_backticks_in_text_are_escaped_so_they_quote_the_code_beside_them():
    """WHATWG quotes a header name in backticks around its code (`` `<code>Origin</code>` ``):
    the backticks are text, and a reader sees them around the code span."""
    from markdown_it import MarkdownIt

    markdown = md(
        '<p>The `<code>Origin</code>` header, not `<a href="#h"><code>HEAD</code></a>`; '
        "a lone ` stays, and <code>a`</code><code>`b</code> do not glue.</p>"
    )
    assert markdown == (
        "The \\``Origin`\\` header, not \\`[`HEAD`](#h)\\`; a lone \\` stays, and "
        "`` a` `` `` `b `` do not glue."
    )
    assert _code_contents(markdown) == ["Origin", "HEAD", "a`", "`b"]
    rendered = MarkdownIt("commonmark").render(markdown)
    assert "`<code>Origin</code>`" in rendered
    assert '`<a href="#h"><code>HEAD</code></a>`' in rendered


def test_heading_links_to_itself_or_its_section_are_written_as_text():
    html = (
        '<div data-id="section-1.3"><h3 id="name-core"><a href="#section-1.3" '
        'class="section-number selfRef">1.3. </a><a href="#name-core" '
        'class="section-name selfRef">Core Semantics</a></h3><p>See <a href="#other">x</a>.</p>'
        "</div>"
    )
    assert md(html) == "### 1.3. Core Semantics\n\nSee [x](#other)."


def test_pilcrow_self_links_are_dropped_other_pilcrows_kept():
    html = (
        '<p id="section-1-1">Text. <a href="#section-1-1" class="pilcrow">¶</a></p>'
        '<p id="b">More <a href="#section-9">¶</a></p>'
    )
    assert md(html) == "Text.\n\nMore [¶](#section-9)"


def test_bikeshed_notes_examples_and_warnings_are_labelled_quotes():
    html = (
        '<p class="note" role="note"><span class="marker">Note:</span> A note.</p>'
        '<p class="warning">Careful.</p>'
        '<div class="example" id="example-1"><a class="self-link" href="#example-1"></a>'
        "<p>An example.</p></div>"
        '<aside class="example"><p>Aside.</p></aside>'
    )
    assert md(html) == (
        "> **Note**\n>\n> A note.\n\n> **Warning**\n>\n> Careful.\n\n"
        "> **Example**\n>\n> An example.\n\n> **Example**\n>\n> Aside."
    )


def test_an_aside_is_a_quote_and_xml2rfc_notes_keep_their_label_first():
    """xml2rfc writes a note as ``<aside><p><strong>Note:</strong> …``: a quote whose label
    stays its first words (a paragraph broken out of it keeps it); any aside is set apart."""
    html = (
        '<aside id="s-1"><p id="s-1.1"><strong>Note:</strong> The fragment.</p><p>Two.</p>'
        "</aside><aside><p>Plain.</p></aside>"
    )
    assert md(html) == "> **Note:** The fragment.\n>\n> Two.\n\n> Plain."


def test_code_fence_names_the_language_not_the_renderer_class():
    assert md('<pre class="highlight"><code>x</code></pre>') == "```\nx\n```"
    assert md('<pre><code class="highlight lang-javascript">x</code></pre>') == (
        "```javascript\nx\n```"
    )
    assert md('<pre class="def highlight idl">x</pre>') == "```idl\nx\n```"
    assert md('<pre class="example highlight">x</pre>') == "```\nx\n```"
    assert md('<div class="lang-abnf sourcecode"><pre>x</pre></div>') == "```abnf\nx\n```"
    assert md('<pre><code class="javascript hljs">x</code></pre>') == "```javascript\nx\n```"


@pytest.mark.parametrize(
    ("table", "count"),
    [
        ("<thead><tr><th>a</th></tr><tr><th>b</th></tr></thead><tr><td>1</td></tr>", 2),
        ("<tr><th colspan=2>g</th></tr><tr><th>a</th><th>b</th></tr><tr><td>1</td></tr>", 2),
        ("<tr><th rowspan=2>a</th><th>b</th></tr><tr><td>1</td></tr><tr><td>2</td></tr>", 2),
        ("<tr><th>a</th></tr><tr><td>1</td></tr>", 1),
        ("<tr><td>a</td></tr><tr><td>1</td></tr>", 0),
    ],
)
def test_a_header_of_several_rows_is_read_whole(table, count):
    from specbrowser.chunking.markdown_tables import header_rows

    el = etree.fromstring(f"<table>{table}</table>", etree.HTMLParser()).find(".//table")
    assert len(header_rows(el)) == count
