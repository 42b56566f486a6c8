"""The browser's tree filters in the core (:mod:`specbrowser.session.filters`): which chunks
match, and which ancestors connect them to the top level, in the browser's tree order.

Databases (the shared fixtures of ``tests/conftest.py``, opened):
``sample_specs/mismatched-toc.html`` (six sections disagree with its TOC, one agrees) and
``sample_specs/toylang.html`` at an 800-character threshold (four chunks stay over it).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from specbrowser import store
from specbrowser.session import filters
from specbrowser.session.stores import chunk_stats
from specbrowser.store import SpecStore

MISMATCHED_SECTIONS = [
    "sec-gadget-parts",
    "sec-gadget-assembly",
    "sec-widgets",
    "sec-widget-sizes",
    "sec-glossary",
]
"""The sections of mismatched-toc.html whose heading path differs from its TOC's, in order."""


@pytest.fixture
def mismatch_db(mismatch_db: Path) -> SpecStore:
    """mismatched-toc.html with the default policy (the shared fixture's copy), open."""
    return store.open_database(mismatch_db)


@pytest.fixture
def toylang_db(toylang_db: Path) -> SpecStore:
    """toylang.html at an 800-character threshold (the shared fixture's copy), open."""
    return store.open_database(toylang_db)


def _expected_children(db: SpecStore, matches: list[str]) -> dict[str | None, list[str]]:
    """The filtered tree built the slow way: each match's chain of :func:`store.tree_parent_id`,
    children ordered as the parent's subsections (top level: document order)."""
    shown: set[str] = set()
    for chunk_id in matches:
        current: str | None = chunk_id
        while current is not None:
            shown.add(current)
            current = db.tree_parent_id(current)
    top = [c.id for c in db.top_level_chunks()]
    children: dict[str | None, list[str]] = {}
    for chunk_id in shown:
        children.setdefault(db.tree_parent_id(chunk_id), [])
    for parent in children:
        siblings = top if parent is None else db.chunk(parent).subsections
        children[parent] = [c for c in siblings if c in shown]
    return children


def test_mismatched_section_ids_are_the_root_chunks_in_document_order(mismatch_db) -> None:
    version = mismatch_db.active_version()
    assert filters.mismatched_section_ids(mismatch_db, version) == MISMATCHED_SECTIONS
    flagged = [
        c.id
        for c in mismatch_db.iter_chunks(version)
        if c.mismatch is not None and c.parent_id is None
    ]
    assert flagged == MISMATCHED_SECTIONS


def test_over_threshold_chunk_ids_in_ordinal_order(toylang_db) -> None:
    version = toylang_db.active_version()
    found = filters.over_threshold_chunk_ids(toylang_db, version)
    assert found == [c.id for c in toylang_db.iter_chunks(version) if c.over_threshold]
    assert found == [
        "sec-big-table-clause",
        "sec-big-table-clause-emu-table-1",
        "sec-long-prose",
        "sec-annex-statements",
    ]


def test_filtered_tree_of_mismatches_keeps_the_section_path(mismatch_db) -> None:
    filtered = filters.filtered_tree(mismatch_db, filters.MISMATCHED, mismatch_db.active_version())
    assert filtered.kind == filters.MISMATCHED
    assert filtered.matches == MISMATCHED_SECTIONS
    assert filtered.children == {
        None: ["sec-gadgets", "sec-widgets", "sec-glossary"],
        "sec-gadgets": ["sec-gadget-parts", "sec-gadget-assembly"],
        "sec-widgets": ["sec-widget-sizes"],
    }
    assert "sec-gadget-limits" not in filtered.shown


def test_filtered_tree_of_overruns_adds_the_ancestor_chain(toylang_db) -> None:
    version = toylang_db.active_version()
    filtered = filters.filtered_tree(toylang_db, filters.OVER_THRESHOLD, version)
    assert filtered.children == _expected_children(toylang_db, filtered.matches)
    assert filtered.children["sec-specification-types"] == ["sec-big-table-clause"]
    assert filtered.children["sec-big-table-clause"] == ["sec-big-table-clause-emu-table-1"]
    assert set(filtered.matches) < filtered.shown


@pytest.mark.parametrize(
    "kind, counted", [(filters.TINY, "tiny_chunks"), (filters.MARKER_HEAVY, "mostly_marker_chunks")]
)
def test_quality_filters_match_what_the_stats_count(toylang_db, kind, counted) -> None:
    version = toylang_db.active_version()
    filtered = filters.filtered_tree(toylang_db, kind, version)
    stats = chunk_stats(toylang_db, version)
    assert filtered.matches and len(filtered.matches) == getattr(stats, counted)
    assert filtered.children == _expected_children(toylang_db, filtered.matches)
    ordinals = [toylang_db.chunk(c).ordinal for c in filtered.matches]
    assert ordinals == sorted(ordinals)
    if kind == filters.TINY:
        assert all(toylang_db.chunk(c).parent_id for c in filtered.matches)


def test_filters_match_nothing_when_nothing_qualifies(mismatch_db, toylang_db) -> None:
    none_over = filters.filtered_tree(
        mismatch_db, filters.OVER_THRESHOLD, mismatch_db.active_version()
    )
    assert none_over.matches == [] and none_over.children == {} and none_over.shown == set()
    agreeing = filters.filtered_tree(toylang_db, filters.MISMATCHED, toylang_db.active_version())
    assert agreeing.matches == []


def test_unknown_filter_kind_is_a_value_error(mismatch_db) -> None:
    with pytest.raises(ValueError, match="unknown filter"):
        filters.filtered_tree(mismatch_db, "largest", mismatch_db.active_version())
