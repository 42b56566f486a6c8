"""The section view (``b``): a chunk's whole section reassembled, each chunk's span tinted with
its id and size in the gutter; a click on a span selects its chunk in the tree."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from specbrowser.tui.app import SpecBrowserApp
from specbrowser.tui.widgets.chunk_tree import ChunkTree
from tests.app.helpers import SIZE, at_chunk_then, browser_of, quiet_app, run_async, settle

TABLE = "sec-big-table-clause-emu-table-1"
"""A table broken into cells at the toylang_db threshold."""


def _cursor_id(app: SpecBrowserApp) -> str | None:
    node = browser_of(app).query_one(ChunkTree).cursor_node
    return node.data if node is not None else None


@run_async
async def test_b_shows_the_section_with_spans_and_a_click_selects_a_chunk(
    toylang_db: Path,
) -> None:
    app = quiet_app(toylang_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = browser_of(app)
        screen.go_to_chunk(TABLE)
        await settle(pilot)
        await pilot.press("b")
        await settle(pilot)
        view = screen.chunk_view
        assert view.show_section and view.boundaries is not None
        assert view.boundaries.chunk_id == "sec-big-table-clause"
        header = str(view.query_one("#chunk-header", Static).content)
        chunks = len({span.chunk_id for span in view.boundaries.spans})
        assert f"section view · {chunks} chunks" in header and chunks > 3
        places = view.section.places
        assert places[TABLE]
        bold = {line for line, *_ in places[TABLE]}
        assert bold <= set(view.lines._overlays)  # the shown chunk's spans are drawn bold
        other = next(
            span.chunk_id for span in view.boundaries.spans if span.chunk_id.endswith("-td-2")
        )
        line, start, _ = places[other][0]
        view.lines.scroll_to(y=line, animate=False, immediate=True)
        await pilot.pause()
        at = view.lines.cell_offset(line, start) - view.lines.scroll_offset
        gutter = view.lines.styles.gutter  # the left padding, the rule over the body
        await pilot.click(view.lines, offset=(at.x + gutter.left, at.y + gutter.top))
        await settle(pilot)
        assert view.chunk.id == other and _cursor_id(app) == other
        assert view.show_section and view.boundaries.chunk_id == "sec-big-table-clause"
        assert {line for line, *_ in places[other]} <= set(view.lines._overlays)
        await pilot.press("b")
        await settle(pilot)
        assert not view.show_section and view.rendered and view.lines.markdown is not None


@run_async
async def test_retrieval_text_and_section_view_take_turns(toylang_db: Path) -> None:
    app = quiet_app(toylang_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = browser_of(app).chunk_view
        await pilot.press("b")
        await settle(pilot)
        assert view.show_section
        await pilot.press("t")
        await settle(pilot)
        assert view.show_retrieval_text and not view.show_section
        await pilot.press("b")
        await settle(pilot)
        assert view.show_section and not view.show_retrieval_text


def test_snapshot_section_view_80x24(toylang_db: Path, snap_compare) -> None:
    """The table's section at 80×24: the gutter names each cell chunk, its size, tinted."""
    assert snap_compare(
        quiet_app(toylang_db), terminal_size=(80, 24), run_before=at_chunk_then(TABLE, "b")
    )


def test_snapshot_section_view_160x50(toylang_db: Path, snap_compare) -> None:
    """The same at 160×50: the whole table in view, the table chunk's own spans bold."""
    assert snap_compare(
        quiet_app(toylang_db), terminal_size=(160, 50), run_before=at_chunk_then(TABLE, "b")
    )
