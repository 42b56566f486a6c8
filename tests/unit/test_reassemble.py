"""Lossless breakdown: a section's chunk tree reassembles to its one-piece Markdown."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings

from specbrowser.chunking.markers import find_markers, format_marker, marker_ids
from specbrowser.chunking.policy import ChunkPolicy
from tests.helpers import SAMPLE, assert_lossless, write_spec
from tests.strategies import policies, spec_html


@settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(html=spec_html(), policy=policies)
def test_reassembly_equals_one_piece_conversion(tmp_path, html, policy):
    assert_lossless(write_spec(tmp_path, html), policy)


def test_sample_spec_is_lossless_under_several_policies():
    for policy in (
        ChunkPolicy(),
        ChunkPolicy(threshold=400),
        ChunkPolicy(threshold=300, breakdown_tags=("emu-table", "emu-grammar", "tr", "p")),
        ChunkPolicy(threshold=200, breakdown_tags=("li", "td", "p", "div"), max_depth=4),
    ):
        assert assert_lossless(SAMPLE, policy) == 38


def test_cell_subsections_come_back_as_cell_text(tmp_path):
    cell = "<p>first " + "x " * 200 + "</p><p>second | piped</p>"
    body = (
        f'<emu-clause id="sec-a"><h1>A</h1><table><tr><th>h</th></tr><tr><td>{cell}</td></tr>'
        "</table></emu-clause>"
    )
    assert (
        assert_lossless(
            write_spec(tmp_path, body), ChunkPolicy(threshold=150, breakdown_tags=("td", "p"))
        )
        == 1
    )


def test_list_item_subsections_keep_their_indentation(tmp_path):
    body = (
        '<emu-clause id="sec-a"><h1>A</h1><emu-alg><ol><li>step<ol><li>inner<figure>'
        "<figcaption>T</figcaption>"
        "<table><tr><th>a</th></tr><tr><td>"
        + "v "
        * 100
        + "</td></tr></table></figure></li></ol></li></ol>"
        "</emu-alg></emu-clause>"
    )
    assert (
        assert_lossless(
            write_spec(tmp_path, body),
            ChunkPolicy(threshold=100, breakdown_tags=("figure", "td")),
        )
        == 1
    )


def test_an_algorithm_whose_list_is_extracted_keeps_the_marker(tmp_path):
    steps = "".join(f"<li>step {n} " + "w " * 40 + "</li>" for n in range(4))
    body = (
        '<emu-clause id="sec-a"><h1>A</h1><p>In the following algorithm:</p>'
        f"<emu-alg><ol>{steps}</ol></emu-alg><p>After.</p></emu-clause>"
    )
    spec = write_spec(tmp_path, body)
    assert assert_lossless(spec, ChunkPolicy(threshold=200, breakdown_tags=("ol", "li")))
    for tags in (("emu-alg", "ol"), ("ol", "emu-alg"), ("emu-alg > ol",)):
        assert assert_lossless(spec, ChunkPolicy(threshold=200, breakdown_tags=tags))


def test_a_row_group_of_a_table_in_a_list_item_comes_back_indented(tmp_path):
    rows = "".join(f"<tr><td>`op{n}`</td><td>{'v ' * 30}</td></tr>" for n in range(8))
    body = (
        '<emu-clause id="sec-a"><h1>A</h1><emu-alg><ol><li>Let x be:<figure><table>'
        f"<tr><th>a</th><th>b</th></tr>{rows}</table></figure></li><li>Return x.</li></ol>"
        "</emu-alg></emu-clause>"
    )
    policy = ChunkPolicy(threshold=300, breakdown_tags=("tr",))
    assert assert_lossless(write_spec(tmp_path, body), policy) == 1


def test_marker_titles_with_quotes_and_backslashes_round_trip():
    for title in ['7.3 Media Type ("MIME Type")', 'a " at sectionid: `x`', "back\\slash\\"]:
        line = format_marker("sec-x", title)
        text = f"before {line} after\n{format_marker('sec-y')}"
        found = find_markers(text)
        assert [(m.target_id, m.title) for m in found] == [("sec-x", title), ("sec-y", "")]
        assert text[found[0].start : found[0].end] == line
        assert marker_ids(text) == ["sec-x", "sec-y"]
    assert format_marker("s", 'Type ("MIME")') == (
        '[Subsection available: title "Type (\\"MIME\\")" at sectionid: `s`]'
    )


def test_markers_written_before_titles_were_escaped_still_read():
    old = '[Subsection available: title "7.3 Media Type ("MIME Type")" at sectionid: `s`]'
    assert [(m.target_id, m.title) for m in find_markers(old)] == [
        ("s", '7.3 Media Type ("MIME Type")')
    ]


def test_a_note_whose_list_items_are_broken_down_comes_back_whole(tmp_path):
    words = "shares quota with the top-level traversable, as they are same origin " * 3
    inner = "".join(
        f"<li><code>https://top.example.com/f{i}</code>: {words}</li>" for i in range(4)
    )
    items = "".join(
        f"<li><code>https://top.example.com/{i}</code>, with a policy set to "
        f"<code>deferred-fetch=(self)</code><ul>{inner}</ul></li>"
        for i in range(3)
    )
    cells = "".join(f"<tr><td>a &gt; b {i}</td><td>{words}</td></tr>" for i in range(6))
    body = (
        '<emu-clause id="sec-a"><h1>A</h1><div class="note"><p>The tree:</p>'
        f"<ul>{items}</ul></div><div class='note'><table><tr><th>k &gt;</th><th>v</th></tr>"
        f"{cells}</table></div></emu-clause>"
    )
    for tags in (("li",), ("ul", "li"), ("tr",), ("td",), ("table", "tr", "ul", "li")):
        for strategy in ("seed", "guarded"):
            policy = ChunkPolicy(threshold=400, breakdown_tags=tags, strategy=strategy)
            assert_lossless(write_spec(tmp_path, body), policy)


def test_a_quoted_blank_line_is_a_blank_line_to_reassembly():
    from specbrowser.chunking.reassemble import normalize_whitespace

    assert normalize_whitespace("> - a\n>\n>   - b\n> >\n> c") == "> - a\n>   - b\n> c"


def test_an_item_of_a_list_in_a_table_cell_comes_back_indented_and_tight(tmp_path):
    """A list in a cell whose item (text, then a nested list) is extracted: the item's lines
    go back after the cell's ``<br>`` indented as the item's, its nested list tight."""
    inner = "".join(f"<li>value {n} means " + "word " * 12 + "</li>" for n in range(2))
    items = "".join(
        f"<li>Bit {n}: flag {n}. <ul>{inner}</ul></li>" if n == 1 else f"<li>Bit {n}.</li>"
        for n in range(3)
    )
    body = (
        '<emu-clause id="sec-a"><h1>A</h1><table><tr><th>name</th><th>meaning</th></tr>'
        f"<tr><td>flags</td><td><p>Flags:</p><ul>{items}</ul></td></tr></table></emu-clause>"
    )
    policy = ChunkPolicy(threshold=120, breakdown_tags=("li",), min_chars=0)
    assert assert_lossless(write_spec(tmp_path, body), policy) == 1


def test_a_blank_line_in_a_cell_is_a_blank_line_to_reassembly():
    from specbrowser.chunking.reassemble import normalize_whitespace

    assert normalize_whitespace("| a<br><br>- b  <br> <br>  - c |") == "| a<br>- b<br>  - c |"
