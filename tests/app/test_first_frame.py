"""The first frame comes first: what the first screen does not need starts once it is painted."""

from __future__ import annotations

import pytest

from specbrowser.session import rechunk_process
from specbrowser.tui.app import make_app
from specbrowser.tui.screens.browser import BrowserScreen
from specbrowser.tui.screens.chunk_set_actions import ChunkSetLoop
from specbrowser.tui.widgets.job_bar import JobBar
from tests.app.helpers import SIZE, run_async, settle


@run_async
async def test_token_count_watch_and_fork_server_start_after_the_first_paint(
    toylang_db, monkeypatch: pytest.MonkeyPatch
) -> None:
    from textual._compositor import Compositor

    started: list[str] = []
    painted: list[bool] = []  # whether a browser frame was rendered, at each start-up call
    browser_frames: list[int] = []
    render_update = Compositor.render_update

    def counted_render(self, *args, **kwargs):
        update = render_update(self, *args, **kwargs)
        if isinstance(app.screen, BrowserScreen):
            browser_frames.append(1)
        return update

    def recorder(name: str, original):
        def record(*args, **kwargs):
            painted.append(bool(browser_frames))
            started.append(name)
            return original(*args, **kwargs)

        return record

    monkeypatch.setattr(Compositor, "render_update", counted_render)
    monkeypatch.setattr(JobBar, "count_tokens", recorder("tokens", JobBar.count_tokens))
    monkeypatch.setattr(
        ChunkSetLoop, "watch_database", recorder("watch", ChunkSetLoop.watch_database)
    )
    monkeypatch.setattr(rechunk_process, "prepare", recorder("fork server", lambda: None))
    app = make_app(toylang_db, cursor_blink=False, count_tokens=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert sorted(started) == ["fork server", "tokens", "watch"]
        assert all(painted), list(zip(started, painted, strict=True))


@run_async
async def test_the_browsers_first_frame_is_not_thrown_away(toylang_db, monkeypatch) -> None:
    """Textual discards frames rendered while the app mounts (a batch): the browser, pushed
    from inside it, rendered its first frame for nothing, then again."""
    from textual._compositor import Compositor

    discarded: list[bool] = []  # per browser frame: rendered inside a batch
    render_update = Compositor.render_update

    def counted_render(self, *args, **kwargs):
        if isinstance(app.screen, BrowserScreen):
            discarded.append(app._batch_count > 0)
        return render_update(self, *args, **kwargs)

    monkeypatch.setattr(Compositor, "render_update", counted_render)
    app = make_app(toylang_db, cursor_blink=False, count_tokens=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert discarded and not any(discarded), discarded


@run_async
async def test_the_first_chunk_renders_once_at_the_views_width(toylang_db, monkeypatch) -> None:
    """The chunk view is laid out after the browser's mount: the first chunk waits for its
    width (rendered at a width of one cell, then again, it cost two renders before the
    first frame)."""
    from specbrowser.tui import markdown_lines
    from specbrowser.tui.widgets.chunk_lines import ChunkLines

    renders: list[tuple[str, int]] = []
    render_markdown = markdown_lines.render_markdown

    def counted(markdown, width, console):
        renders.append((markdown, width))
        return render_markdown(markdown, width, console)

    monkeypatch.setattr(markdown_lines, "render_markdown", counted)
    app = make_app(toylang_db, cursor_blink=False, count_tokens=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        lines = app.screen.query_one(ChunkLines)
        assert lines.rendered is not None and lines.markdown is not None
        widths = [width for markdown, width in renders if markdown == lines.markdown]
        assert widths == [lines.render_width], widths  # the others: rendering ahead


@run_async
async def test_the_search_bar_is_mounted_after_the_first_paint(toylang_db, monkeypatch) -> None:
    """The hidden search bar (an input and a result list: 20-30 ms of CSS and mounting on
    ECMA-262) is not in the first frame; once painted, it is there, hidden, before the job
    bar, and ``/`` opens it."""
    from textual._compositor import Compositor

    from specbrowser.tui.widgets.search_results import SearchBar

    in_first_frame: list[bool] = []
    render_update = Compositor.render_update

    def counted_render(self, *args, **kwargs):
        if isinstance(app.screen, BrowserScreen) and not in_first_frame:
            in_first_frame.append(bool(app.screen.query(SearchBar)))
        return render_update(self, *args, **kwargs)

    monkeypatch.setattr(Compositor, "render_update", counted_render)
    app = make_app(toylang_db, cursor_blink=False, count_tokens=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert in_first_frame == [False]
        bar = screen.query_one(SearchBar)
        assert not bar.display and not screen.search_bar_shown
        children = list(screen.children)
        assert children.index(bar) == children.index(screen.query_one(JobBar)) - 1
        await pilot.press("slash")
        await settle(pilot)
        assert screen.search_bar_shown and app.focused is bar.query_one("#search-input")


@run_async
async def test_slash_before_the_search_bar_is_mounted_opens_it(toylang_db) -> None:
    """A ``/`` that comes before the bar is mounted mounts it and opens it once its input is
    there (no error)."""
    from specbrowser.tui.widgets.search_results import SearchBar

    app = make_app(toylang_db, cursor_blink=False, count_tokens=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        await screen.query_one(SearchBar).remove()  # as before the first paint
        assert not screen.search_bar_shown
        screen.search.open()
        await settle(pilot)
        assert screen.search_bar_shown and app.focused is screen.search_bar.query_one(
            "#search-input"
        )


@run_async
async def test_a_go_to_right_after_the_first_chunk_is_shown_stays(toylang_db) -> None:
    """The first screen's cursor move waits for a refresh; a go-to made before that refresh
    (a key or a jump in the first frames) moved the cursor, and the left-over move then took
    the cursor and the view back to the first chunk (found by benchmarks/chunk_view_latency)."""
    from specbrowser.session import Session

    with Session.open(toylang_db) as session:
        target = session.descendants(session.top_level_chunks()[-1].id)
        deepest = max(target, key=lambda c: c.depth)
    app = make_app(toylang_db, cursor_blink=False, count_tokens=False)
    async with app.run_test(size=SIZE) as pilot:
        while not isinstance(app.screen, BrowserScreen) or app.screen.chunk_view.chunk is None:
            await pilot.pause(0.005)
        screen = app.screen
        assert screen.go_to_chunk(deepest.id)
        await settle(pilot)
        assert screen.chunk_view.chunk is not None and screen.chunk_view.chunk.id == deepest.id
        cursor = screen.chunk_tree.cursor_node
        assert cursor is not None and cursor.data == deepest.id
