"""The section view (``b``): a chunk's whole section reassembled, each chunk's span tinted with
its id and size in the gutter; a click on a span selects its chunk in the tree."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from specbrowser.tui.app import SpecBrowserApp
from specbrowser.tui.section_lines import gutter_width
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


@run_async
async def test_section_view_wraps_at_word_boundaries_at_80x24(toylang_db: Path) -> None:
    """Each screen line is the next piece of its source line, and a source line breaks between
    two lines only at a space (or inside a word wider than the body)."""
    app = quiet_app(toylang_db)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = browser_of(app)
        screen.go_to_chunk("sec-long-prose")
        await settle(pilot)
        await pilot.press("b")
        await settle(pilot)
        view = screen.chunk_view
        assert view.boundaries is not None and view.lines.rendered is not None
        text = view.boundaries.text
        gutter = gutter_width(view.lines.render_width)
        body_width = view.lines.render_width - gutter
        position, breaks = 0, 0
        for line in view.lines.rendered.plain:
            piece = line[gutter:]
            assert text.startswith(piece, position)
            position += len(piece)
            if position < len(text) and text[position] == "\n":
                position += 1
                continue
            if position == len(text):
                break
            breaks += 1
            word_start = max(text.rfind(" ", 0, position), text.rfind("\n", 0, position)) + 1
            ends = (text.find(" ", position), text.find("\n", position), len(text))
            word_end = min(end for end in ends if end >= 0)
            assert (
                piece[-1:].isspace()
                or text[position].isspace()
                or word_end - word_start > body_width
            ), (piece, text[position : position + 20])
        assert position == len(text) and breaks > 10


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
