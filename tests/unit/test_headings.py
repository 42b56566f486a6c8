"""Seed 004's ten reconciliation behaviours, title normalisation, and mismatch classification."""

from __future__ import annotations

import copy
from dataclasses import replace

from specbrowser.chunking.toc_paths import build_heading_paths, classify_mismatches, normalize_title
from specbrowser.model import Section, TocNode


def sections(*specs: tuple[str, str | None]) -> list[Section]:
    """Sections from (id, parent id) pairs in document order; titles are the ids."""
    depth: dict[str | None, int] = {None: -1}
    out = []
    for ordinal, (sid, parent) in enumerate(specs):
        depth[sid] = depth[parent] + 1
        out.append(
            Section(
                id=sid,
                parent_id=parent,
                ordinal=ordinal,
                depth=depth[sid],
                kind="clause",
                secnum="",
                title=sid,
                html="",
                source_file="x.html",
            )
        )
    return out


def node(
    title: str, start: int | None = None, end: int | None = None, *children: TocNode
) -> TocNode:
    return TocNode(title=title, start=start, end=end, children=list(children))


# 0 a, 1 a1, 2 a1x, 3 a2, 4 b, 5 b1
TREE = sections(("a", None), ("a1", "a"), ("a1x", "a1"), ("a2", "a"), ("b", None), ("b1", "b"))


def test_deepest_containing_node_wins():
    toc = [node("A", 0, None, node("A1", 1, None, node("A1x", 2)), node("A2", 3)), node("B", 4)]
    paths = build_heading_paths(TREE, toc)
    assert paths["a1x"] == ["A", "A1", "A1x"]
    assert paths["a1"] == ["A", "A1"]
    assert paths["a2"] == ["A", "A2"]
    assert paths["b1"] == ["B"]  # no deeper node: the containing top-level one


def test_open_ended_last_child_is_bounded_by_its_parent():
    # A covers 0..3 (B starts at 4); its last child A2 is open-ended and must stop at 3
    toc = [node("A", 0, None, node("A1", 1), node("A2", 3)), node("B", 4, 5)]
    paths = build_heading_paths(TREE, toc)
    assert paths["b"] == ["B"] and paths["b1"] == ["B"]
    assert paths["a2"] == ["A", "A2"]


def test_top_level_only_sections():
    flat = sections(("x", None), ("y", None), ("z", None))
    paths = build_heading_paths(flat, [node("X", 0), node("Y", 1), node("Z", 2)])
    assert paths == {"x": ["X"], "y": ["Y"], "z": ["Z"]}


def test_straddling_section_lands_on_the_common_parent_else_best_overlap():
    # section a (0..3) straddles A1 (0..1) and A2 (2..3): their parent P contains it
    toc = [node("P", 0, 5, node("A1", 0, 1), node("A2", 2, 3))]
    assert build_heading_paths(TREE, toc)["a"] == ["P"]
    # without a containing node the larger overlap wins:
    # a (0..3) overlaps X (0..2) by 3, Y (3..5) by 1
    toc = [node("X", 0, 2), node("Y", 3, 5)]
    assert build_heading_paths(TREE, toc)["a"] == ["X"]


def test_section_without_range_is_skipped():
    # a TOC that covers nothing before position 4: sections 0..3 have no overlapping node
    paths = build_heading_paths(TREE, [node("B", 4, 5)])
    assert set(paths) == {"b", "b1"}


def test_empty_toc_degrades_to_no_paths():
    assert build_heading_paths(TREE, []) == {}
    assert classify_mismatches(TREE, [], {}, {}) == []


def test_no_sections_gives_no_paths():
    assert build_heading_paths([], [node("A", 0)]) == {}


def test_out_of_range_toc_nodes_match_nothing():
    paths = build_heading_paths(TREE, [node("Far", 40, 50)])
    assert paths == {}


def test_empty_title_wrapper_is_skipped_and_children_keep_ancestry():
    toc = [node("A", 0, 3, node("", None, None, node("A1", 1, 2), node("A2", 3)))]
    paths = build_heading_paths(TREE, toc)
    assert paths["a1x"] == ["A", "A1"]
    assert paths["a2"] == ["A", "A2"]


def test_results_are_defensive_copies_and_inputs_untouched():
    toc = [node("A", 0, None, node("A1", 1))]
    before = copy.deepcopy(toc)
    paths = build_heading_paths(TREE, toc)
    paths["a1"].append("mutated")
    assert build_heading_paths(TREE, toc)["a1"] == ["A", "A1"]
    assert toc == before
    assert paths["a"] is not paths["a2"]


def test_linked_entries_map_their_targets_and_lend_no_path():
    toc = [
        TocNode(
            "A",
            target_id="a",
            children=[TocNode("A1", target_id="a1"), TocNode("A2", target_id="a2")],
        ),
        TocNode("B", target_id="b"),
    ]
    paths = build_heading_paths(TREE, toc)
    assert paths == {"a": ["A"], "a1": ["A", "A1"], "a2": ["A", "A2"], "b": ["B"]}
    # a1x and b1 have no entry: no path borrowed from a neighbour or a parent


def test_a_link_decides_before_ranges_when_the_toc_order_differs():
    # the TOC lists b's entry first and a2 before a1 (an entry moved): links still decide
    toc = [
        TocNode("B", target_id="b", children=[TocNode("B1", target_id="b1")]),
        TocNode(
            "A",
            target_id="a",
            children=[
                TocNode("A2", target_id="a2"),
                TocNode("A1", target_id="a1", children=[TocNode("A1x", target_id="a1x")]),
            ],
        ),
    ]
    paths = build_heading_paths(TREE, toc)
    assert paths == {
        "a": ["A"],
        "a1": ["A", "A1"],
        "a1x": ["A", "A1", "A1x"],
        "a2": ["A", "A2"],
        "b": ["B"],
        "b1": ["B", "B1"],
    }


def test_a_straddling_section_takes_the_largest_overlap_not_the_deepest_entry():
    # a (0..3) overlaps X (0..2) by 3 and Y (3..5) and its child Y1 (3..3) by 1 each
    toc = [node("X", 0, 2), node("Y", 3, 5, node("Y1", 3, 3))]
    assert build_heading_paths(TREE, toc)["a"] == ["X"]


def test_a_linked_section_missing_from_the_toc_borrows_no_ranged_path():
    # b1 has no entry; the range of the unlinked entry "Old" stops before it
    toc = [TocNode("A", target_id="a"), TocNode("B", target_id="b"), node("Old", 0, 0)]
    paths = build_heading_paths(TREE, toc)
    assert "b1" not in paths and "a1" not in paths and paths["b"] == ["B"]


def test_title_normalisation():
    assert normalize_title("14.6 The  if Statement") == normalize_title("The if statement")
    assert normalize_title("ToNumber ( argument )") == normalize_title("ToNumber")
    assert normalize_title("Annex A (informative) Grammar Summary") == "grammar summary"
    assert normalize_title("A.1 Lexical Grammar") == "lexical grammar"
    assert normalize_title("A Note") == "a note"
    assert normalize_title("It\u2019s\u00a0here") == "it's here"


def classify(secs, toc):
    parser = {}
    for s in secs:
        parser[s.id] = (parser[s.parent_id] if s.parent_id else []) + [s.display_title]
    return {
        m.section_id: m.kind
        for m in classify_mismatches(secs, toc, parser, build_heading_paths(secs, toc))
    }


def test_each_mismatch_kind():
    secs = sections(("a", None), ("a1", "a"), ("a2", "a"), ("b", None), ("b1", "b"), ("c", None))
    toc = [
        TocNode(
            "a",
            target_id="a",
            children=[
                TocNode("A-one renamed", target_id="a1"),  # title differs
            ],
        ),
        TocNode("a2", target_id="a2"),  # a2 shown at top level: depth differs
        TocNode("b", target_id="b", children=[TocNode("b1", target_id="b1")]),
        TocNode("ghost", target_id="sec-ghost"),  # entry without section
    ]  # c: missing from TOC
    kinds = classify(secs, toc)
    # a: its entry links to it, so its path is its own entry's, whatever the entries around
    assert kinds == {
        "a1": "title_differs",
        "a2": "depth_differs",
        "c": "missing_from_toc",
        "sec-ghost": "toc_entry_without_section",
    }


def test_ancestor_differs():
    secs = sections(("a", None), ("a1", "a"), ("b", None))
    toc = [
        TocNode("Alpha", target_id="a", children=[TocNode("a1", target_id="a1")]),
        TocNode("b", target_id="b"),
    ]
    # a's own title differs; a1 has the same depth and title but its ancestor is named otherwise
    assert classify(secs, toc) == {"a": "title_differs", "a1": "ancestor_differs"}


# --- an external TOC (ranges, no links) --------------------------------------------------------


def titled(*specs: tuple[str, str | None]) -> list[Section]:
    """Sections whose titles are their ids upper-cased (as a TOC would title them)."""
    return [replace(s, title=s.id.upper()) for s in sections(*specs)]


def test_siblings_listed_out_of_order_give_no_false_mismatch():
    # 0 a, 1 a1, 2 a2, 3 b: the TOC lists b before a, and a2 before a1
    secs = titled(("a", None), ("a1", "a"), ("a2", "a"), ("b", None))
    toc = [node("B", 3), node("A", 0, None, node("A2", 2), node("A1", 1))]
    paths = build_heading_paths(secs, toc)
    assert paths == {"a": ["A"], "a1": ["A", "A1"], "a2": ["A", "A2"], "b": ["B"]}
    assert classify(secs, toc) == {}


def test_an_empty_title_wrapper_entry_gives_no_mismatch():
    secs = titled(("a", None), ("a1", "a"), ("b", None))
    toc = [node("", 0, None, node("A", 0, None, node("A1", 1)), node("B", 2))]
    assert classify(secs, toc) == {}


def test_a_section_the_toc_does_not_cover_is_missing_not_of_another_depth():
    # the TOC covers a and its first child only; a2 and b lie outside every entry's range
    secs = titled(("a", None), ("a1", "a"), ("a2", "a"), ("b", None))
    toc = [node("A", 0, 1, node("A1", 1, 1)), node("A2", 2, 1)]  # A2 ends before it starts
    kinds = classify(secs, toc)
    assert kinds == {"a2": "missing_from_toc", "b": "missing_from_toc"}
