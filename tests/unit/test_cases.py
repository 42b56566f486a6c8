"""The conversion and breakdown cases of ``shared/cases/cases.md``, one test per case id.

The inputs are written out here (the cases file is not read at test time), so the tests run on a
fresh clone without ``../shared``.
"""

from __future__ import annotations

import re

from markdown_it import MarkdownIt

from specbrowser.chunking.markers import MARKER_RE
from specbrowser.chunking.policy import ChunkPolicy
from tests.helpers import assert_lossless, by_id, chunk_html, write_spec

GFM = MarkdownIt("commonmark", {"html": False}).enable("table")


def tokens(markdown: str):
    return GFM.parse(markdown)


def test_C01_algorithm_steps_are_numbered_once(tmp_path):
    body = """<emu-clause id="sec-c01"><h1>Counting</h1>
<emu-alg><ol>
  <li><span aria-hidden="true" class="list-marker">1. </span>Let <var>n</var> be 0.</li>
  <li><span aria-hidden="true" class="list-marker">2. </span>Repeat, while <var>n</var> &lt; 3,<ol>
      <li><span aria-hidden="true" class="list-marker">a. </span>Set <var>n</var> to <var>n</var> + 1.</li>
      <li><span aria-hidden="true" class="list-marker">b. </span>NOTE: This step is informative.</li>
    </ol></li>
  <li><span aria-hidden="true" class="list-marker">3. </span>Return <var>n</var>.</li>
</ol></emu-alg>
</emu-clause>"""  # noqa: E501 (ecmarkup's output, verbatim)
    (chunk,) = chunk_html(tmp_path, body)
    assert not re.search(r"^\s*(\d+|[a-z]+)\.\s+(\d+|[a-z]+)\.\s", chunk.text, re.MULTILINE)
    assert chunk.text.count("Let `n` be 0.") == 1
    assert "`n` \\< 3" in chunk.text  # shown as "n < 3"
    lists = [t for t in tokens(chunk.text) if t.type == "ordered_list_open"]
    assert len(lists) == 2
    items = [t for t in tokens(chunk.text) if t.type == "list_item_open"]
    assert [t.level for t in items].count(min(t.level for t in items)) == 3
    assert re.search(r"^ {3,}1\. Set", chunk.text, re.MULTILINE)


def test_C02_grammar_and_code_blocks_hold_no_links(tmp_path):
    body = """<emu-clause id="sec-c02"><h1>Widget Bindings</h1>
<emu-grammar type="definition"><emu-production name="WidgetBinding" params="In, Yield, Await" id="prod-WidgetBinding">
  <emu-nt params="In, Yield, Await"><a href="#prod-WidgetBinding">WidgetBinding</a><emu-mods><emu-params>[In, Yield, Await]</emu-params></emu-mods></emu-nt> <emu-geq>:</emu-geq>
  <emu-rhs a="c02aa"><emu-nt><a href="gadgets.html#prod-GadgetName">GadgetName</a><emu-mods><emu-params>[?Yield, ?Await]</emu-params></emu-mods></emu-nt> <emu-nt optional=""><a href="#prod-Gizmo">Gizmo</a><emu-mods><emu-params>[?In, ?Yield, ?Await]</emu-params><emu-opt>opt</emu-opt></emu-mods></emu-nt></emu-rhs>
  <emu-rhs a="c02bb"><emu-gann>[lookahead ∉ { <emu-t>gadget</emu-t> }]</emu-gann> <emu-nt><a href="#prod-GadgetShape">GadgetShape</a></emu-nt> <emu-nt><a href="#prod-Gizmo">Gizmo</a></emu-nt></emu-rhs>
</emu-production></emu-grammar>
<pre><code class="javascript">let x = <a href="#sec-foo">foo</a>();
</code></pre>
</emu-clause>"""  # noqa: E501 (ecmarkup's output, names invented)
    (chunk,) = chunk_html(tmp_path, body)
    fence = re.search(r"```bnf\n(.*?)\n```", chunk.text, re.DOTALL)
    assert fence
    inside = fence.group(1)
    assert "](" not in inside and "<a" not in inside
    lines = inside.split("\n")
    assert lines[0] == "WidgetBinding[In, Yield, Await] :"
    assert len(lines) == 3
    # the optional mark as ecmarkup source writes it, so "Gizmo" stays a word of its own
    assert "GadgetName[?Yield, ?Await] Gizmo[?In, ?Yield, ?Await]?" in lines[1]
    assert "[lookahead ∉ { gadget }] GadgetShape Gizmo" in lines[2]
    assert "```javascript\nlet x = foo();\n```" in chunk.text


def test_C03_inline_code_has_no_escapes_and_handles_backticks(tmp_path):
    body = """<emu-clause id="sec-c03"><h1>Inline code</h1>
<p>If <var>kind</var> is <emu-const>key+value</emu-const>, return <emu-val>"*default*"</emu-val>.
The <code>__proto__</code> key differs from <code>`${x}`</code> and from <code>`</code>.</p>
</emu-clause>"""
    (chunk,) = chunk_html(tmp_path, body)
    for span in (
        "`kind`",
        "`key+value`",
        '`"*default*"`',
        "`__proto__`",
        "`` `${x}` ``",
        "`` ` ``",
    ):
        assert span in chunk.text, span
    code = [t.content for t in tokens(chunk.text)[4].children if t.type == "code_inline"]
    assert code == ["kind", "key+value", '"*default*"', "__proto__", "`${x}`", "`"]


def test_C05_list_directly_inside_a_list_nests_under_the_previous_item(tmp_path):
    body = """<emu-clause id="sec-c05"><h1>Lists</h1>
<ul>
  <li>alpha</li>
  <li>beta</li>
  <ul><li>gamma</li><li>delta</li></ul>
  <li>epsilon</li>
</ul>
<ol><li>one<ol><li>one-a</li><li>one-b<ol><li>one-b-i</li></ol></li></ol></li><li>two</li></ol>
</emu-clause>"""
    (chunk,) = chunk_html(tmp_path, body)
    assert "- alpha\n- beta\n  - gamma\n  - delta\n- epsilon" in chunk.text
    assert "1. one\n   1. one-a\n   2. one-b\n      1. one-b-i\n2. two" in chunk.text
    for word in ("alpha", "beta", "gamma", "delta", "epsilon", "one-a", "one-b-i", "two"):
        assert len(re.findall(rf"\b{word}\b", chunk.text)) == 1
    levels = {t.content: t.level for t in GFM.parse(chunk.text) if t.type == "inline"}
    assert levels["gamma"] > levels["beta"] and levels["one-b-i"] > levels["one-b"] > levels["one"]


def test_C06_pipes_in_cells_are_escaped_inside_code_too(tmp_path):
    body = """<emu-clause id="sec-c06"><h1>Operators</h1>
<emu-table id="table-c06" caption="Binary operators"><figure><figcaption
  >Table 1: Binary operators</figcaption>
<table><thead><tr><th>Syntax</th><th>Meaning</th></tr></thead>
<tbody>
<tr><td><code>a || b</code></td><td>logical OR of <var>a</var> | <var>b</var></td></tr>
<tr><td><emu-val>"|"</emu-val></td><td>the vertical line</td></tr>
</tbody></table></figure></emu-table>
</emu-clause>"""
    (chunk,) = chunk_html(tmp_path, body)
    rows = [line for line in chunk.text.split("\n") if line.startswith("|")]
    assert len(rows) == 4
    assert all(len(re.split(r"(?<!\\)\|", r)) == 4 for r in rows)  # 2 cells each
    assert "`a \\|\\| b`" in chunk.text and '`"\\|"`' in chunk.text
    cells = [t for t in tokens(chunk.text) if t.type == "inline"]
    rendered = [c.content for c in cells]
    # rendered (GFM unescapes the pipes of a cell before parsing code spans)
    assert {"`a || b`", '`"|"`', "logical OR of `a` | `b`"} <= set(rendered)
    assert chunk.text.count("Table 1: Binary operators") == 1


def test_C07_block_content_and_br_stay_in_one_row_line(tmp_path):
    body = """<emu-clause id="sec-c07"><h1>Record fields</h1>
<emu-table id="table-c07" caption="Fields"><figure><figcaption>Table 2: Fields</figcaption>
<table><thead><tr><th>Field Name</th><th>Value</th><th>Meaning</th></tr></thead>
<tbody>
<tr><td>[[Target]]</td><td>an Object</td><td><p>First PARAONE.</p>
<p>Second PARATWO.</p></td></tr>
<tr><td>[[Kind]]</td><td><emu-const>key</emu-const><br><emu-const>value</emu-const></td><td
  >Line one<br>
line two</td></tr>
</tbody></table></figure></emu-table>
</emu-clause>"""
    (chunk,) = chunk_html(tmp_path, body)
    rows = [line for line in chunk.text.split("\n") if line.startswith("|")]
    assert len(rows) == 4
    assert all(len(re.split(r"(?<!\\)\|", r)) == 5 for r in rows)
    assert any("PARAONE" in r and "PARATWO" in r for r in rows)
    assert "| [[Target]] |" in chunk.text


def test_C08_nested_sections_never_repeat_parent_text(tmp_path):
    body = (
        '<emu-clause id="sec-parent"><h1>Parent</h1><p>Parent intro PARENTWORD.</p>'
        '<emu-clause id="sec-child"><h1>Child</h1><p>Child body <b>CHILDWORD</b> <i>here</i>.</p>'
        '<emu-clause id="sec-grandchild"><h1>Grandchild</h1><div><p>Deep <span>GRANDWORD</span></p>'
        "</div></emu-clause></emu-clause></emu-clause>"
    )
    chunks = chunk_html(tmp_path, body, ChunkPolicy(threshold=30))
    for word in ("PARENTWORD", "CHILDWORD", "GRANDWORD"):
        assert sum(c.text.count(word) for c in chunks) == 1
    assert all("CHILDWORD" not in c.text for c in chunks if c.section_id == "sec-parent")


def test_C11_unsplittable_block_is_whole_flagged_and_small_section_untouched(tmp_path):
    lines = "\n".join(" ".join(f"tok{i:04d}" for i in range(j, j + 10)) for j in range(1, 751, 10))
    body = (
        '<emu-clause id="sec-small"><h1>Small</h1><p>Short text SMALLWORD.</p></emu-clause>'
        f'<emu-clause id="sec-big"><h1>Big</h1><pre><code class="javascript">{lines}</code></pre>'
        "</emu-clause>"
    )
    chunks = chunk_html(tmp_path, body, ChunkPolicy(threshold=1000, max_depth=3))
    assert len([c for c in chunks if c.section_id == "sec-small"]) == 1
    big = [c for c in chunks if c.section_id == "sec-big"]
    assert re.findall(r"tok\d{4}", "".join(c.text for c in big)) == [
        f"tok{i:04d}" for i in range(1, 751)
    ]
    assert [c.over_threshold for c in big] == ["unsplittable"]
    assert big[0].text.count("```") == 2


def c12_body() -> str:
    rows = "\n".join(
        f"<tr><td>[[Field{i:02d}]]</td><td>an integer</td><td>Meaning of field {i:02d} "
        f"ROW{i:02d}END</td></tr>"
        for i in range(1, 41)
    )
    return (
        '<emu-clause id="sec-c12"><h1>Big record</h1>'
        '<emu-table id="table-c12" caption="Big record fields">'
        "<figure><figcaption>Table 3: Big record fields</figcaption>"
        "<table><thead><tr><th>Field Name</th><th>Value</th><th>Meaning</th></tr></thead>"
        f"<tbody>\n{rows}\n</tbody></table></figure></emu-table>"
        "</emu-clause>"
    )


def test_C12_row_groups_repeat_caption_and_header_and_never_cut_a_row(tmp_path):
    policy = ChunkPolicy(threshold=800, breakdown_tags=("emu-table", "emu-grammar", "tr", "p"))
    chunks = chunk_html(tmp_path, c12_body(), policy)
    groups = [c for c in chunks if c.layer == "table_row"]
    assert len(groups) >= 2
    header = "| Field Name | Value | Meaning |"
    for group in groups:
        table_lines = [line for line in group.text.split("\n") if line.startswith("|")]
        assert table_lines[0] == header and table_lines[1] == "|---|---|---|"
        assert group.text.startswith("Table 3: Big record fields")
        assert group.size <= 800 or group.over_threshold
    all_text = "\n".join(MARKER_RE.sub("", c.text) for c in chunks)
    for i in range(1, 41):
        assert all_text.count(f"ROW{i:02d}END") == 1
        (line,) = [x for x in all_text.split("\n") if f"ROW{i:02d}END" in x]
        assert f"[[Field{i:02d}]]" in line and len(re.split(r"(?<!\\)\|", line)) == 5
    assert all(c.size <= 800 for c in chunks if not c.over_threshold)
    table_chunk = by_id(chunks)["sec-c12-emu-table-1"]
    assert table_chunk.subsections == [g.id for g in groups]
    assert groups[0].title == "Table 3: Big record fields, rows 1–" + groups[0].title.split("–")[1]


def test_C12_table_row_group_marker_row_becomes_the_rows(tmp_path):
    policy = ChunkPolicy(threshold=800, breakdown_tags=("emu-table", "tr"))
    assert assert_lossless(write_spec(tmp_path, c12_body()), policy) == 1


def test_C18_hash_lines_inside_code_are_not_headings(tmp_path):
    body = """<emu-clause id="sec-c18"><h1>Hash lines</h1>
<pre># not a heading
  indented   spacing kept
</pre>
<pre><code class="javascript">class C {
#x = 1;
}
</code></pre>
<p>After PREWORD.</p>
</emu-clause>"""
    (chunk,) = chunk_html(tmp_path, body)
    assert "```\n# not a heading\n  indented   spacing kept\n```" in chunk.text
    assert "```javascript\nclass C {\n#x = 1;\n}\n```" in chunk.text
    headings = [t for t in tokens(chunk.text) if t.type == "heading_open"]
    assert len(headings) == 1
    assert "PREWORD" in chunk.text


def test_C24_escaped_tags_and_ampersands_show_literally(tmp_path):
    body = (
        '<emu-clause id="sec-c24"><h1>Escapes</h1><p>The &lt;template&gt; element; if <var>a</var> '
        "&lt; <var>b</var> &amp;&amp; <var>c</var> &gt; 0. Also &amp;lt; stays.</p></emu-clause>"
    )
    (chunk,) = chunk_html(tmp_path, body)
    assert "\\<template>" in chunk.text
    parsed = tokens(chunk.text)
    assert not [t for t in parsed if t.type.startswith("html")]
    inline = [t for t in parsed if t.type == "inline"][-1]
    shown = "".join(c.content for c in inline.children)
    assert shown == "The <template> element; if a < b && c > 0. Also &lt; stays."
