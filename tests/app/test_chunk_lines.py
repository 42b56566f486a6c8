"""The chunk view's line rendering: Markdown rendered once into lines, overlays drawn on top, wide
lines wrapped (their end reachable), and a header that never names a chunk the body does not
show."""

from __future__ import annotations

import re
from pathlib import Path

from rich.console import Console

from specbrowser.tui.markdown_lines import render_markdown
from specbrowser.tui.marker_links import rewrite_markers
from specbrowser.tui.rendered_lines import MARKER_SCHEME
from tests.app.helpers import browser_of, quiet_app, run_async, settle

NARROW = (80, 24)


def test_a_wide_code_line_wraps_and_keeps_every_character() -> None:
    line = " ".join(f"Token{n}" for n in range(60))  # about 470 characters
    rendered = render_markdown(f"```\n{line}\n```\n", 40, Console(width=40))
    assert len(rendered.lines) > 10
    assert all(text.cell_len <= 40 for text in rendered.lines)
    joined = "".join(text.plain for text in rendered.lines)
    assert re.sub(r"\s+", "", joined) == re.sub(r"\s+", "", line)


def test_markers_are_found_in_table_cells_by_their_own_link() -> None:
    text = (
        "| a | b |\n|---|---|\n"
        "| [Subsection available at sectionid: `x-td-1`] "
        "| [Subsection available at sectionid: `x-td-2`] |\n"
    )
    markdown = rewrite_markers(text, href_prefix=MARKER_SCHEME)
    rendered = render_markdown(markdown, 30, Console(width=30))
    assert sorted(rendered.markers) == [0, 1]
    for index, spans in rendered.markers.items():
        pieces = "".join(rendered.lines[line].plain[start:end] for line, start, end in spans)
        assert pieces.replace(" ", "").endswith(f"x-td-{index + 1}")


@run_async
async def test_header_and_body_never_disagree_while_a_large_chunk_loads(toylang_db: Path) -> None:
    app = quiet_app(toylang_db)
    async with app.run_test(size=NARROW) as pilot:
        await settle(pilot)
        screen = browser_of(app)
        view = screen.chunk_view
        view.lines.large_chunk = 10  # every chunk renders in a thread behind a placeholder
        screen.prefetcher.candidates = lambda: []  # type: ignore[method-assign]
        view.lines.forget_renders()  # nothing rendered ahead: every chunk is a first visit
        ids = [c.id for c in app.session.top_level_chunks()][1:5]  # [0] is shown
        for chunk_id in ids:
            screen.go_to_chunk(chunk_id)
            assert view.chunk is not None and view.chunk.id == chunk_id
            # the body is the placeholder for this chunk, never the previous chunk's lines
            assert view.lines.rendered is None and view.lines.markdown is None
            assert chunk_id in (view.lines._placeholder or "")
            await pilot.pause()
            shown = view.lines.markdown
            expected = rewrite_markers(view.chunk.text, view.markers, href_prefix=MARKER_SCHEME)
            assert shown is None or shown == expected
        await settle(pilot)
        assert view.chunk.id == ids[-1] and view.rendered
        assert view.lines.markdown == rewrite_markers(
            view.chunk.text, view.markers, href_prefix=MARKER_SCHEME
        )


@run_async
async def test_a_wide_grammar_line_end_is_reachable_at_80_columns(toylang_db: Path) -> None:
    app = quiet_app(toylang_db)
    async with app.run_test(size=NARROW) as pilot:
        await settle(pilot)
        screen = browser_of(app)
        width = 0
        widest = ("", "")
        for top in app.session.top_level_chunks():
            for chunk in app.session.descendants(top.id):
                for block in re.findall(r"```[^\n]*\n(.*?)```", chunk.text, flags=re.DOTALL):
                    for line in block.splitlines():
                        if len(line) > len(widest[1]):
                            widest = (chunk.id, line)
        chunk_id, line = widest
        screen.go_to_chunk(chunk_id)
        await settle(pilot)
        lines = screen.chunk_view.lines
        width = lines.render_width
        assert len(line) > width, "the sample has a code line wider than the pane"
        assert lines.rendered is not None
        assert all(text.cell_len <= width for text in lines.rendered.lines)
        joined = re.sub(r"\s+", "", "".join(lines.rendered.plain))
        assert re.sub(r"\s+", "", line) in joined
        lines.scroll_end(animate=False, immediate=True)
        await pilot.pause()
        assert lines.scroll_y == lines.max_scroll_y


@run_async
async def test_the_body_takes_focus_and_scrolls_with_keys(toylang_db: Path) -> None:
    app = quiet_app(toylang_db)
    async with app.run_test(size=NARROW) as pilot:
        await settle(pilot)
        screen = browser_of(app)
        screen.go_to_chunk("sec-big-table-clause-emu-table-1")
        await settle(pilot)
        lines = screen.chunk_view.lines
        assert lines.max_scroll_y > 0
        lines.focus()
        await pilot.press("pagedown")
        await settle(pilot)
        assert lines.scroll_y > 0
