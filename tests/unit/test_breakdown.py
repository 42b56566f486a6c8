"""One test per breakdown rule of the seed strategy (seed 000 as corrected by issue 2), on small
hand-written HTML; the guarded strategy's rules are tested in test_guards.py."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest
from lxml import html

from specbrowser.chunking.markdown import BLOCK_TAGS
from specbrowser.chunking.markdown_text import spaced_text
from specbrowser.chunking.markers import find_markers
from specbrowser.chunking.policy import ChunkPolicy
from specbrowser.chunking.rules import first_words
from specbrowser.errors import PolicyError
from tests.helpers import by_id, chunk_html


def seed(**settings) -> ChunkPolicy:
    """A policy of the seed strategy: the rules this module tests."""
    return ChunkPolicy(strategy="seed", **settings)


LONG = "lorem ipsum dolor sit amet " * 8  # 216 characters


def para(word: str, n: int = 1) -> str:
    return f"<p>{word} {LONG * n}</p>"


def table(caption: str, cells: list[str]) -> str:
    tds = "".join(f"<td>{c}</td>" for c in cells)
    return (
        f'<emu-table id="t" caption="{caption}"><figure><figcaption>{caption}</figcaption>'
        f"<table><tbody><tr>{tds}</tr></tbody></table></figure></emu-table>"
    )


def test_section_within_threshold_is_one_chunk(tmp_path):
    chunks = chunk_html(tmp_path, f'<emu-clause id="sec-a"><h1>A</h1>{para("x")}</emu-clause>')
    assert [c.id for c in chunks] == ["sec-a"]
    assert chunks[0].parent_id is None and chunks[0].depth == 0 and chunks[0].over_threshold is None
    assert chunks[0].text.startswith("# A")


def test_tags_tried_in_order_and_stop_once_within_threshold(tmp_path):
    body = (
        f'<emu-clause id="sec-a"><h1>A</h1>{table("Table 1: T", [LONG * 3])}'
        f'{para("p1")}<emu-grammar><emu-production name="G"><emu-nt>G</emu-nt>'
        f"<emu-geq>:</emu-geq><emu-rhs><emu-t>{'g ' * 100}</emu-t></emu-rhs>"
        "</emu-production></emu-grammar>"
        "</emu-clause>"
    )
    chunks = by_id(chunk_html(tmp_path, body, seed(threshold=700)))
    # the table alone brings the section under 700 characters: grammar and p are not tried
    assert set(chunks) == {"sec-a", "sec-a-emu-table-1"}
    assert chunks["sec-a"].subsections == ["sec-a-emu-table-1"]


def test_next_tag_tried_when_first_is_not_enough(tmp_path):
    body = (
        f'<emu-clause id="sec-a"><h1>A</h1>{table("Table 1: T", ["c"])}'
        f"{para('p1', 2)}{para('p2', 2)}</emu-clause>"
    )
    chunks = by_id(chunk_html(tmp_path, body, seed(threshold=500)))
    assert {"sec-a-emu-table-1", "sec-a-p-1", "sec-a-p-2"} <= set(chunks)


def test_ids_count_from_one_per_parent_and_tag(tmp_path):
    body = (
        f'<emu-clause id="sec-a"><h1>A</h1>{para("a", 2)}{para("b", 2)}{para("c", 2)}</emu-clause>'
    )
    chunks = by_id(chunk_html(tmp_path, body, seed(threshold=300)))
    assert chunks["sec-a"].subsections == ["sec-a-p-1", "sec-a-p-2", "sec-a-p-3"]
    assert all(chunks[f"sec-a-p-{n}"].breakdown_tag == "p" for n in (1, 2, 3))


def test_recursion_starts_with_the_tags_after_the_extracting_one(tmp_path):
    # a large table: extracted by emu-table, then broken down by td (emu-table is not tried again)
    body = (
        f'<emu-clause id="sec-a"><h1>A</h1>{table("Table 1: T", [LONG * 2, LONG * 2])}</emu-clause>'
    )
    chunks = by_id(chunk_html(tmp_path, body, seed(threshold=600)))
    table_chunk = chunks["sec-a-emu-table-1"]
    assert table_chunk.depth == 1 and table_chunk.parent_id == "sec-a"
    assert table_chunk.subsections == ["sec-a-emu-table-1-td-1", "sec-a-emu-table-1-td-2"]
    assert chunks["sec-a-emu-table-1-td-2"].depth == 2
    assert chunks["sec-a-emu-table-1-td-2"].parent_id == "sec-a-emu-table-1"


def test_three_levels_table_cell_paragraph(tmp_path):
    cell = para("q1", 3) + para("q2", 3)
    body = f'<emu-clause id="sec-a"><h1>A</h1>{table("Table 9: Big", [cell, "small"])}</emu-clause>'
    chunks = by_id(chunk_html(tmp_path, body, seed(threshold=900)))
    assert chunks["sec-a-emu-table-1-td-1-p-2"].depth == 3
    assert chunks["sec-a-emu-table-1-td-1-p-2"].parent_id == "sec-a-emu-table-1-td-1"


def test_only_outermost_matches_are_extracted(tmp_path):
    nested = f"<table><tr><td>{LONG}</td></tr></table>"
    body = (
        f'<emu-clause id="sec-a"><h1>A</h1><table><tr><td>outer {LONG} {nested}</td>'
        f"<td>{LONG}</td></tr></table></emu-clause>"
    )
    chunks = by_id(chunk_html(tmp_path, body, seed(threshold=300, breakdown_tags=("td",))))
    assert chunks["sec-a"].subsections == ["sec-a-td-1", "sec-a-td-2"]
    # the inner td stays inside td-1 (no td-3 at the section level)
    assert "sec-a-td-3" not in chunks
    assert chunks["sec-a-td-1"].text.count("lorem") == 16


def test_nested_match_never_extracted_twice(tmp_path):
    # p inside an extracted td is not extracted again by the section's p pass
    cell = "<p>in cell " + LONG + "</p>"
    body = (
        f'<emu-clause id="sec-a"><h1>A</h1><table><tr><td>{cell}</td></tr></table>'
        f"{para('tail', 2)}</emu-clause>"
    )
    chunks = chunk_html(tmp_path, body, seed(threshold=300))
    holding = [c.id for c in chunks if "in cell" in re.sub(r"\[Subsection[^\]]*\]", "", c.text)]
    assert len(holding) == 1


def test_marker_is_never_a_breakdown_candidate(tmp_path):
    body = (
        f'<emu-clause id="sec-a"><h1>A</h1>{"".join(para(f"w{i}") for i in range(6))}</emu-clause>'
    )
    chunks = chunk_html(tmp_path, body, seed(threshold=250))
    # no chunk consists only of a marker line (the seed extracted 763 such chunks on ECMA-262)
    for chunk in chunks:
        stripped = chunk.text
        for marker in find_markers(chunk.text):
            stripped = stripped.replace(chunk.text[marker.start : marker.end], "")
        assert stripped.strip(), chunk.id


def test_table_marker_title_comes_from_figcaption(tmp_path):
    body = (
        f'<emu-clause id="sec-a"><h1>A</h1>{table("Table 4: Widget Kinds", [LONG * 2])}'
        "</emu-clause>"
    )
    chunks = by_id(chunk_html(tmp_path, body, seed(threshold=300)))
    assert (
        '[Subsection available: title "Table 4: Widget Kinds" at sectionid: `sec-a-emu-table-1`]'
        in chunks["sec-a"].text
    )
    assert chunks["sec-a-emu-table-1"].title == "Table 4: Widget Kinds"


def test_grammar_marker_title_is_production_names(tmp_path):
    rhs = "<emu-rhs><emu-t>" + "tok " * 80 + "</emu-t></emu-rhs>"
    body = (
        f'<emu-clause id="sec-a"><h1>A</h1><emu-grammar><emu-production name="Alpha">'
        f"<emu-nt>Alpha</emu-nt><emu-geq>:</emu-geq>{rhs}</emu-production>"
        f'<emu-production name="Beta"><emu-nt>Beta</emu-nt><emu-geq>:</emu-geq>{rhs}'
        "</emu-production>"
        "</emu-grammar></emu-clause>"
    )
    chunks = by_id(chunk_html(tmp_path, body, seed(threshold=300)))
    assert chunks["sec-a-emu-grammar-1"].title == "Alpha, Beta"


def test_untitled_subsection_marker_has_no_title(tmp_path):
    body = f'<emu-clause id="sec-a"><h1>A</h1>{para("a", 2)}{para("b", 2)}</emu-clause>'
    chunks = by_id(chunk_html(tmp_path, body, seed(threshold=300)))
    assert "[Subsection available at sectionid: `sec-a-p-1`]" in chunks["sec-a"].text


def test_empty_matches_are_not_extracted(tmp_path):
    body = (
        f'<emu-clause id="sec-a"><h1>A</h1><p> </p>{para("a", 2)}<p></p>{para("b", 2)}</emu-clause>'
    )
    chunks = by_id(chunk_html(tmp_path, body, seed(threshold=300)))
    assert chunks["sec-a"].subsections == ["sec-a-p-1", "sec-a-p-2"]
    assert all(c.text.strip() for c in chunks.values())


def test_max_depth_stops_breakdown_and_flags(tmp_path):
    body = f'<emu-clause id="sec-a"><h1>A</h1>{table("Table 1: T", [para("x", 4)])}</emu-clause>'
    chunks = by_id(chunk_html(tmp_path, body, seed(threshold=300, max_depth=1)))
    assert chunks["sec-a-emu-table-1"].over_threshold == "max_depth"
    assert not [c for c in chunks.values() if c.depth > 1]


def test_max_depth_zero_keeps_the_section_whole(tmp_path):
    body = f'<emu-clause id="sec-a"><h1>A</h1>{para("a", 3)}</emu-clause>'
    chunks = chunk_html(tmp_path, body, seed(threshold=100, max_depth=0))
    assert len(chunks) == 1 and chunks[0].over_threshold == "max_depth"


def test_unsplittable_block_is_kept_whole_and_flagged(tmp_path):
    code = "x = 1;\n" * 200
    body = f'<emu-clause id="sec-a"><h1>A</h1><pre><code>{code}</code></pre></emu-clause>'
    chunks = chunk_html(tmp_path, body, seed(threshold=300))
    assert len(chunks) == 1
    assert chunks[0].over_threshold == "unsplittable"
    assert chunks[0].text.count("```") == 2


def test_subsections_follow_marker_order(tmp_path):
    body = (
        f'<emu-clause id="sec-a"><h1>A</h1>{para("first", 2)}{table("Table 1: T", ["c"])}'
        f"{para('last', 2)}</emu-clause>"
    )
    chunks = by_id(chunk_html(tmp_path, body, seed(threshold=200)))
    root = chunks["sec-a"]
    assert root.subsections == [m.target_id for m in find_markers(root.text)]
    assert root.subsections == ["sec-a-p-1", "sec-a-emu-table-1", "sec-a-p-2"]


def test_annex_and_intro_are_sections(tmp_path):
    body = (
        '<emu-intro id="sec-intro"><h1>Intro</h1><p>i</p></emu-intro>'
        '<emu-annex id="sec-annex-a"><h1><span class="secnum">Annex A <span class="annex-kind">'
        '(informative)</span></span> Extras</h1><emu-annex id="sec-annex-a-1"><h1>'
        '<span class="secnum">A.1</span> More</h1><p>m</p></emu-annex></emu-annex>'
    )
    chunks = by_id(chunk_html(tmp_path, body))
    assert set(chunks) == {"sec-intro", "sec-annex-a", "sec-annex-a-1"}
    assert chunks["sec-annex-a"].title == "Annex A (informative) Extras"
    assert chunks["sec-annex-a-1"].heading_path == ["Annex A (informative) Extras", "A.1 More"]


def test_C08_nested_section_text_is_never_repeated_in_the_parent(tmp_path):
    body = (
        '<emu-clause id="sec-parent"><h1>Parent</h1><p>Parent intro PARENTWORD.</p>'
        '<emu-clause id="sec-child"><h1>Child</h1><p>Child body <b>CHILDWORD</b> <i>here</i>.</p>'
        '<emu-clause id="sec-grandchild"><h1>Grandchild</h1><div><p>Deep <span>GRANDWORD</span></p>'
        "</div></emu-clause></emu-clause></emu-clause>"
    )
    chunks = chunk_html(tmp_path, body)
    texts = [c.text for c in chunks]
    for word in ("PARENTWORD", "CHILDWORD", "GRANDWORD"):
        assert sum(t.count(word) for t in texts) == 1, word
    parent = by_id(chunks)["sec-parent"]
    assert "CHILDWORD" not in parent.text and "GRANDWORD" not in parent.text
    assert "Deep GRANDWORD" in by_id(chunks)["sec-grandchild"].text
    assert parent.subsections == ["sec-child"]
    assert by_id(chunks)["sec-child"].subsections == ["sec-grandchild"]
    assert by_id(chunks)["sec-grandchild"].heading_path == ["Parent", "Child", "Grandchild"]


def test_C11_unsplittable_block_and_small_section(tmp_path):
    lines = "\n".join(" ".join(f"tok{i:04d}" for i in range(j, j + 10)) for j in range(1, 751, 10))
    body = (
        '<emu-clause id="sec-small"><h1>Small</h1><p>Short text SMALLWORD.</p></emu-clause>'
        f'<emu-clause id="sec-big"><h1>Big</h1><pre><code class="javascript">{lines}</code></pre>'
        "</emu-clause>"
    )
    chunks = chunk_html(tmp_path, body, seed(threshold=1000, max_depth=3))
    small = [c for c in chunks if c.section_id == "sec-small"]
    big = [c for c in chunks if c.section_id == "sec-big"]
    assert len(small) == 1
    tokens = re.findall(r"tok\d{4}", "".join(c.text for c in big))
    assert tokens == [f"tok{i:04d}" for i in range(1, 751)]
    assert all(c.text.strip() for c in chunks)
    assert all(c.text.count("```") % 2 == 0 for c in big)
    assert [c.over_threshold for c in big] == ["unsplittable"]


def test_size_is_the_length_of_the_stored_text_markers_included(tmp_path):
    body = f'<emu-clause id="sec-a"><h1>A</h1>{para("a", 2)}{para("b", 2)}</emu-clause>'
    for chunk in chunk_html(tmp_path, body, seed(threshold=300)):
        assert chunk.size == len(chunk.text)


def test_element_holding_an_earlier_marker_is_not_extracted(tmp_path):
    # tags td then emu-table: once a cell is extracted, its table holds that cell's marker and
    # stays in the section, so the cell's parent is the chunk that shows its marker
    body = f'<emu-clause id="sec-a"><h1>A</h1>{table("Table 1: T", [LONG * 2])}</emu-clause>'
    chunks = by_id(
        chunk_html(tmp_path, body, seed(threshold=100, breakdown_tags=("td", "emu-table")))
    )
    assert "sec-a-emu-table-1" not in chunks
    assert chunks["sec-a"].subsections == ["sec-a-td-1"]
    assert chunks["sec-a-td-1"].parent_id == "sec-a"


# --- custom tags: a CSS selector as a breakdown tag (issue 6's policy editor) ----------------


def test_selector_tag_extracts_its_matches_with_a_slug_id(tmp_path: Path) -> None:
    notes = "".join(f"<div class='note'><p>{'note words ' * 30}{i}</p></div>" for i in range(3))
    body = (
        f"<emu-clause id='sec-s'><h1>S</h1><p>{'plain words ' * 10}</p>{notes}"
        "<div class='other'><p>kept in place</p></div></emu-clause>"
    )
    chunks = by_id(chunk_html(tmp_path, body, seed(threshold=400, breakdown_tags=("div.note",))))
    assert [c for c in chunks if c.startswith("sec-s-")] == [
        "sec-s-div-note-1",
        "sec-s-div-note-2",
        "sec-s-div-note-3",
    ]
    assert chunks["sec-s-div-note-1"].breakdown_tag == "div.note"
    assert "kept in place" in chunks["sec-s"].text
    assert chunks["sec-s"].subsections == [
        "sec-s-div-note-1",
        "sec-s-div-note-2",
        "sec-s-div-note-3",
    ]


def test_selector_tag_takes_outermost_matches_only(tmp_path: Path) -> None:
    inner = f"<div class='box'><p>{'inner words ' * 30}</p></div>"
    body = (
        f"<emu-clause id='sec-s'><h1>S</h1><div class='box'><p>{'outer words ' * 30}</p>"
        f"{inner}</div></emu-clause>"
    )
    chunks = by_id(
        chunk_html(
            tmp_path,
            body,
            seed(threshold=200, max_depth=1, breakdown_tags=("div.box",)),
        )
    )
    assert [c for c in chunks if c != "sec-s"] == ["sec-s-div-box-1"]


@pytest.mark.parametrize(
    "tags",
    [
        ("div.note, p",),
        ("p::before",),
        ("div[",),
        ("a.b", "a-b"),
        ("p:hover",),
        ("emu-xref a:Visited",),
    ],
)
def test_bad_selector_tags_are_refused_with_one_line(tags: tuple[str, ...]) -> None:
    with pytest.raises(PolicyError) as info:
        ChunkPolicy(breakdown_tags=tags)
    assert "\n" not in str(info.value)


def test_a_quoted_state_name_is_only_text() -> None:
    """``p:hover`` matches nothing and is refused; ``[title=":hover"]`` is an attribute value."""
    assert ChunkPolicy(breakdown_tags=('div[title=":hover"]',)).breakdown_tags


def test_tag_list_keeps_selector_case_and_lowers_element_names() -> None:
    policy = ChunkPolicy.from_tag_list(5000, "EMU-TABLE, div.Note", 3)
    assert policy.breakdown_tags == ("emu-table", "div.Note")


def test_marker_ids_are_the_find_markers_targets():
    from specbrowser.chunking.markers import format_marker, marker_ids

    titled = format_marker("sec-a", 'Table 1: "x" y')
    text = "\n\n".join(
        [
            f"Intro {titled}",
            f"| {format_marker('sec-a-td-1')} |",
            "[Subsection available at sectionid: ``] " + format_marker("sec-b", "B"),
        ]
    )
    assert (
        marker_ids(text)
        == [m.target_id for m in find_markers(text)]
        == ["sec-a", "sec-a-td-1", "sec-b"]
    )
    assert marker_ids("no marker here") == find_markers("no marker here") == []


# --- the threshold range a section's tree holds for (what re-chunks copy by) ------------------


def _sizes_and_range(tmp_path, body: str, threshold: int) -> tuple[dict, tuple[int, int | None]]:
    chunks = by_id(chunk_html(tmp_path, body, seed(threshold=threshold)))
    root = next(c for c in chunks.values() if c.parent_id is None)
    assert all(c.holds_for is None for c in chunks.values() if c is not root)
    return chunks, root.holds_for


def test_a_section_that_fits_holds_for_its_size_and_up(tmp_path):
    body = f'<emu-clause id="sec-a"><h1>A</h1>{para("x")}</emu-clause>'
    chunks, holds_for = _sizes_and_range(tmp_path, body, 5000)
    assert holds_for == (chunks["sec-a"].size, None)


def test_a_broken_down_section_holds_between_the_sizes_it_compared(tmp_path):
    """At 700 the table is extracted and the rest fits: the tree holds from the larger of the
    two fitting sizes up to (not including) the whole section's size, and only there."""
    body = (
        f'<emu-clause id="sec-a"><h1>A</h1>{table("Table 1: T", [LONG * 3])}'
        f"{para('p1')}</emu-clause>"
    )
    whole = chunk_html(tmp_path, body, seed(threshold=100_000))[0].size
    chunks, holds_for = _sizes_and_range(tmp_path, body, 700)
    assert set(chunks) == {"sec-a", "sec-a-emu-table-1"}
    lo = max(chunks["sec-a"].size, chunks["sec-a-emu-table-1"].size)
    assert holds_for == (lo, whole)
    for threshold in (lo, whole - 1):
        assert _sizes_and_range(tmp_path, body, threshold) == (chunks, holds_for)
    for threshold in (lo - 1, whole):  # just outside, another tree
        assert set(_sizes_and_range(tmp_path, body, threshold)[0]) != set(chunks)


def test_an_unsplittable_section_holds_below_its_size(tmp_path):
    body = f'<emu-clause id="sec-a"><h1>A</h1><pre><code>{LONG * 3}</code></pre></emu-clause>'
    chunks, holds_for = _sizes_and_range(tmp_path, body, 200)
    assert chunks["sec-a"].over_threshold == "unsplittable"
    assert holds_for == (0, chunks["sec-a"].size)


def test_row_group_sizes_narrow_the_range(tmp_path):
    """``tr`` groups rows up to the threshold: each grouping decision is a size test too."""
    rows = "".join(f"<tr><td>row {n} {LONG}</td></tr>" for n in range(6))
    body = (
        f'<emu-clause id="sec-a"><h1>A</h1><emu-table id="t"><figure><figcaption>Table 1: T'
        f"</figcaption><table><tbody>{rows}</tbody></table></figure></emu-table></emu-clause>"
    )
    policy = seed(threshold=600, breakdown_tags=("tr",))
    chunks = by_id(chunk_html(tmp_path, body, policy))
    lo, hi = chunks["sec-a"].holds_for
    assert sum(c.layer == "table_row" for c in chunks.values()) >= 2
    assert lo <= 600 < hi
    for threshold in (lo, hi - 1):
        again = by_id(chunk_html(tmp_path, body, seed(threshold=threshold, breakdown_tags=("tr",))))
        assert [(c.id, c.text) for c in again.values()] == [(c.id, c.text) for c in chunks.values()]


def test_a_section_over_only_because_of_child_markers_is_flagged_markers(tmp_path):
    children = "".join(
        f'<emu-clause id="sec-c{n}"><h1>Child {n}</h1><p>text</p></emu-clause>' for n in range(12)
    )
    body = f'<emu-clause id="sec-a"><h1>A</h1><p>Short intro.</p>{children}</emu-clause>'
    for strategy in ("seed", "guarded"):
        policy = ChunkPolicy(threshold=300, strategy=strategy)
        root = by_id(chunk_html(tmp_path, body, policy))["sec-a"]
        assert root.size > 300 and len(find_markers(root.text)) >= 12  # seed also cuts the p
        assert root.over_threshold == "markers", strategy


def test_a_long_block_with_no_tag_left_stays_unsplittable_not_markers(tmp_path):
    body = '<emu-clause id="sec-a"><h1>A</h1><pre><code>' + "x = 1;\n" * 80 + "</code></pre>"
    body += "</emu-clause>"
    root = by_id(chunk_html(tmp_path, body, ChunkPolicy(threshold=300)))["sec-a"]
    assert root.over_threshold == "unsplittable"


def test_a_packed_group_is_named_by_its_first_and_last_member_in_its_part_label(tmp_path):
    from specbrowser.chunking.labels import part_label

    paragraphs = "".join(f"<p>Paragraph {n} " + "word " * 30 + "</p>" for n in range(12))
    body = f'<emu-clause id="sec-a"><h1>A</h1>{paragraphs}</emu-clause>'
    chunks = chunk_html(tmp_path, body, ChunkPolicy(threshold=1200))
    groups = [c for c in chunks if c.parent_id and c.id.count("-") > c.parent_id.count("-") + 2]
    assert groups, [c.id for c in chunks]
    first, last = groups[0].id.rsplit("-", 2)[1:]
    # named by its first words; without a name (no text), by its first and last member
    assert part_label(groups[0]) == groups[0].title == "Paragraph 0 " + "word " * 6 + "word…"
    assert part_label(replace(groups[0], title="")) == f"p {first}–{last}"
    single = ChunkPolicy(threshold=1200, strategy="seed")
    assert {
        part_label(replace(c, title="")) for c in chunk_html(tmp_path, body, single) if c.parent_id
    } >= {"p 1"}


def test_an_item_title_separates_its_text_from_its_nested_blocks(tmp_path):
    nested = (
        "<li>If <var>gap</var> is a Widget, then<ol><li>Let <var>width</var> be !"
        f" WidthOf(<var>gap</var>). {LONG}</li></ol></li>"
        '<li>Else,<ol><li normative-optional=""><div class="attributes-tag">Normative Optional'
        f"</div>If the gadget is a toy, then {LONG}</li></ol></li>"
    )
    body = f'<emu-clause id="sec-a"><h1>A</h1><emu-alg><ol>{nested}</ol></emu-alg></emu-clause>'
    chunks = by_id(chunk_html(tmp_path, body, seed(threshold=300, breakdown_tags=("li",))))
    titles = [chunks[s].title for s in chunks["sec-a"].subsections]
    assert titles == [
        "If gap is a Widget, then Let width be !…",
        "Else, Normative Optional If the gadget is a toy,…",
    ]


@pytest.mark.parametrize("limit", [1, 5, 11, 12, 48, 500])
def test_first_words_reads_the_start_of_the_whole_text(limit):
    """A subsection's name is cut from its text's start, words split across elements and blocks
    as in the whole text: stopping the walk early changes no name."""
    el = html.fromstring(
        "<div>  Let <var>x</var>be<b>long</b>word <ol><li>If x,</li><li>then   y.</li></ol>"
        "<p>Return <code>undefined</code>.</p>" + "<p>more words here</p>" * 40 + "</div>"
    )
    words = spaced_text(el, BLOCK_TAGS).split()
    expected = ""
    for word in words:
        longer = f"{expected} {word}" if expected else word
        if len(longer) > limit:
            expected = (expected or word[:limit]) + "…"
            break
        expected = longer
    assert first_words(el, limit) == expected
