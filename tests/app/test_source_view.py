"""The source view (``h``): the chunk's source HTML, its element when found."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from tests.app.helpers import SIZE, at_chunk_then, browser_of, quiet_app, run_async, settle

CELL = "sec-big-table-clause-emu-table-1-td-1"


@run_async
async def test_h_shows_the_source_html_and_follows_the_selection(toylang_db: Path) -> None:
    app = quiet_app(toylang_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = browser_of(app)
        view = screen.chunk_view
        screen.go_to_chunk(CELL)
        await settle(pilot)
        await pilot.press("h")
        await settle(pilot)
        assert view.show_source and not view.lines.display
        assert view.query_one("#chunk-source", Static).display
        assert "source HTML" in str(view.query_one("#chunk-header", Static).content)
        assert view.source is not None and view.source.chunk_id == CELL and view.source.exact
        assert view.source.html.startswith("<td")
        screen.go_to_chunk("sec-big-table-clause")
        await settle(pilot)
        assert view.source.chunk_id == "sec-big-table-clause"
        await pilot.press("t")  # another body mode turns the source view off
        await settle(pilot)
        assert view.show_retrieval_text and not view.show_source
        await pilot.press("t")
        await settle(pilot)
        assert view.lines.display and view.rendered


def test_snapshot_source_view_80x24(toylang_db: Path, snap_compare) -> None:
    """A table cell's source: its <td> element, syntax-coloured, the note above it."""
    assert snap_compare(
        quiet_app(toylang_db), terminal_size=(80, 24), run_before=at_chunk_then(CELL, "h")
    )


def test_snapshot_source_view_160x50(toylang_db: Path, snap_compare) -> None:
    """The same at 160×50."""
    assert snap_compare(
        quiet_app(toylang_db), terminal_size=(160, 50), run_before=at_chunk_then(CELL, "h")
    )
