"""A tree filter turned on from a scrolled tree, at 80×24: the filtered tree opens at its top,
the first match's parents in sight above it (not one row down, the parent under the header)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from specbrowser.chunking.policy import ChunkPolicy
from specbrowser.tui.app import SpecBrowserApp
from tests.app.helpers import browser_of, quiet_app, run_async, settle
from tests.helpers import SAMPLE

POLICY = ChunkPolicy(threshold=500, strategy="seed")
"""Overruns enough for a filtered tree taller than the 80×24 pane, the first one a section
under a top-level one (line 1)."""

DEEP = "sec-big-table-clause-emu-table-1-td-17"
"""A chunk far down the expanded tree, not over the threshold: showing it scrolls the tree."""


def over_db(ingested_db: Callable[..., Path]) -> Path:
    return ingested_db(SAMPLE, POLICY, "over.db")


async def scroll_then_filter(pilot) -> None:
    await settle(pilot)
    screen = browser_of(pilot.app)
    assert screen.go_to_chunk(DEEP)
    await settle(pilot)
    assert screen.chunk_tree.scroll_offset.y > 1  # scrolled: the bug needs an old offset
    await pilot.press("O")
    await settle(pilot)


def tree_rows(app: SpecBrowserApp, count: int) -> list[str]:
    tree = browser_of(app).chunk_tree
    return ["".join(s.text for s in tree.render_line(y)).rstrip() for y in range(count)]


@run_async
async def test_the_over_threshold_filter_opens_with_the_first_match_parent_in_sight(
    ingested_db: Callable[..., Path],
) -> None:
    app = quiet_app(over_db(ingested_db))
    async with app.run_test(size=(80, 24)) as pilot:
        await scroll_then_filter(pilot)
        screen = browser_of(app)
        tree = screen.chunk_tree
        filtered = tree.filtered
        assert filtered is not None and screen.tree_filter == "over_threshold"
        assert tree.last_line + 1 > tree.scrollable_content_region.height  # taller than the pane
        node = tree.cursor_node
        assert node is not None and node.data == filtered.matches[0]
        assert node.parent is not None and node.parent.data is not None  # a nested match
        assert tree.scroll_offset.y <= node.parent.line  # its parent in sight
        assert tree.scroll_offset.y == 0
        assert str(node.parent.label.plain) in tree_rows(app, 1)[0]


def test_snapshot_over_threshold_filter_from_a_scrolled_tree_80x24(
    ingested_db: Callable[..., Path], snap_compare
) -> None:
    """O on a scrolled tree at 80×24: the filter's title over the tree, the first overrun
    under its top-level section, both in sight."""
    assert snap_compare(
        quiet_app(over_db(ingested_db)), terminal_size=(80, 24), run_before=scroll_then_filter
    )
