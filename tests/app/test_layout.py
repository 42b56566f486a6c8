"""The browser at 80×24 and 160×50, and a focus you can see: the focused pane's edge (the tree's
right edge, the rule over the chunk body) in the accent colour."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input

from tests.app.helpers import at_chunk_then, browser_of, quiet_app, run_async, settle

TABLE = "sec-big-table-clause-emu-table-1"
"""A chunk of markers (one per table cell): the selected marker shows on it."""


@run_async
async def test_the_focused_pane_has_the_accent_edge(toylang_db: Path) -> None:
    app = quiet_app(toylang_db)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = browser_of(app)
        tree = screen.chunk_tree
        body = screen.chunk_view.lines

        def edges() -> tuple[object, object]:
            return tree.styles.border_right[1], body.styles.border_top[1]

        assert app.focused is tree
        accent, dim = edges()  # the accent colour, and the colour of an unfocused edge
        assert accent != dim
        await pilot.press("tab")
        await pilot.pause()
        assert app.focused is body
        assert edges() == (dim, accent)
        await pilot.press("slash")
        await pilot.pause()
        assert isinstance(app.focused, Input)  # the search input: its own focus border
        assert edges() == (dim, dim)


def test_snapshot_chunk_view_80x24(toylang_db: Path, snap_compare) -> None:
    """The table chunk at 80×24 with its second marker selected: tree labels cut to the pane,
    title and footer whole, the tree's edge in the accent colour (it has the focus)."""
    assert snap_compare(
        quiet_app(toylang_db), terminal_size=(80, 24), run_before=at_chunk_then(TABLE, "n", "n")
    )


def test_snapshot_chunk_view_focused_80x24(toylang_db: Path, snap_compare) -> None:
    """The same with the focus on the chunk body (Tab): the rule over the body is the accent
    colour, the tree's edge dim."""
    assert snap_compare(
        quiet_app(toylang_db), terminal_size=(80, 24), run_before=at_chunk_then(TABLE, "n", "tab")
    )


def test_snapshot_chunk_view_160x50(toylang_db: Path, snap_compare) -> None:
    """The table chunk at 160×50, its second marker selected."""
    assert snap_compare(
        quiet_app(toylang_db), terminal_size=(160, 50), run_before=at_chunk_then(TABLE, "n", "n")
    )
