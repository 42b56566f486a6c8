"""What keeps keys fast: the view follows the tree cursor in the key's own step, go-tos move the
cursor at once, the chunks a next key would show are rendered ahead, and background jobs run on
a lowered-priority thread."""

from __future__ import annotations

import os
import threading
import types
from pathlib import Path

import pytest
from textual import events

from specbrowser.tui.widgets.job_bar import BACKGROUND_NICE, run_niced
from tests.app.helpers import SIZE, browser_of, quiet_app, run_async, settle


@run_async
async def test_the_view_follows_the_cursor_in_the_same_step(toylang_db: Path) -> None:
    app = quiet_app(toylang_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = browser_of(app)
        tree = screen.chunk_tree
        for _ in range(3):
            tree.action_cursor_down()
            # no message round trip, no frame in between: header and body are the cursor's
            node = tree.cursor_node
            assert node is not None
            assert screen.chunk_view.chunk is not None
            assert screen.chunk_view.chunk.id == node.data
            assert screen.chunk_view.rendered


@run_async
async def test_go_to_moves_the_cursor_at_once_and_never_shows_the_old_chunk(
    toylang_db: Path,
) -> None:
    app = quiet_app(toylang_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = browser_of(app)
        view = screen.chunk_view
        top = app.session.top_level_chunks()
        deep = next(
            chunk
            for section in top
            for chunk in app.session.descendants(section.id)
            if chunk.parent_id is not None
        )
        shown: list[str] = []
        original = view.show_chunk

        def recording(chunk, threshold, **options):  # type: ignore[no-untyped-def]
            shown.append(chunk.id)
            original(chunk, threshold, **options)

        view.show_chunk = recording  # type: ignore[method-assign]
        assert screen.go_to_chunk(deep.id)
        node = screen.chunk_tree.cursor_node
        assert node is not None and node.data == deep.id  # before any refresh
        await settle(pilot)
        assert shown == [deep.id]  # the lines rebuilt under the go-to re-showed nothing
        assert view.chunk is not None and view.chunk.id == deep.id


@run_async
async def test_the_next_and_previous_chunks_are_rendered_ahead(toylang_db: Path) -> None:
    app = quiet_app(toylang_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = browser_of(app)
        tree = screen.chunk_tree
        tree.action_cursor_down()
        tree.action_cursor_down()
        await pilot.pause(0.2)  # the cursor rests: the neighbours render
        await settle(pilot)
        view = screen.chunk_view
        candidates = screen.prefetcher.candidates()
        assert len(candidates) >= 2
        for chunk_id in candidates[:2]:
            markdown = view.markdown_for(app.session.chunk(chunk_id))
            assert view.lines.cached(markdown) is not None
        below = tree.get_node_at_line(tree.cursor_line + 1)
        assert below is not None and below.data == candidates[0]


@pytest.mark.skipif(not hasattr(os, "getpriority"), reason="no thread priorities here")
def test_a_niced_job_returns_its_result_on_a_lower_priority_thread() -> None:
    seen: dict[str, int] = {}

    def job() -> str:
        seen["thread"] = threading.get_native_id()
        seen["nice"] = os.getpriority(os.PRIO_PROCESS, seen["thread"])
        return "done"

    before = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    assert run_niced(job, "test-job") == "done"
    assert seen["thread"] != threading.get_native_id()
    assert seen["nice"] == min(19, before + BACKGROUND_NICE)
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == before


def test_a_niced_job_raises_what_it_raised() -> None:
    def job() -> None:
        raise ValueError("boom")

    with pytest.raises(ValueError, match="boom"):
        run_niced(job, "test-job")


@run_async
async def test_repeating_keys_defer_the_body_and_the_header_never_disagrees(
    toylang_db: Path,
) -> None:
    app = quiet_app(toylang_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = browser_of(app)
        screen.prefetcher.candidates = lambda: []  # type: ignore[method-assign]
        view = screen.chunk_view
        view.lines.forget_renders()
        view.lines.quick_render = 0  # every body needs rendering
        shown: list[tuple[str, bool, bool, str]] = []
        original = view.show_chunk

        def recording(chunk, threshold, **options):  # type: ignore[no-untyped-def]
            original(chunk, threshold, **options)
            placeholder = view.lines._placeholder or ""
            shown.append((chunk.id, options.get("defer", False), view.rendered, placeholder))

        view.show_chunk = recording  # type: ignore[method-assign]
        await pilot.press("down")  # a first press: its body at once
        assert shown[0][1:3] == (False, True)
        for _ in range(4):  # then the key held: four keys read microseconds apart
            app.post_message(events.Key("down", None))
        await pilot.pause(0.3)  # the keys stop: the body of where they stopped
        await settle(pilot)
        held = shown[1:]
        assert len(held) == 4
        assert sum(deferred for _id, deferred, _r, _p in held) >= 2
        for chunk_id, deferred, rendered, placeholder in held:
            # the header never names a chunk whose body is not shown: the body is the chunk's,
            # or a placeholder naming it
            assert rendered != deferred
            assert not deferred or chunk_id in placeholder
        node = screen.chunk_tree.cursor_node
        assert node is not None and view.chunk is not None and view.chunk.id == node.data
        assert node.data == shown[-1][0]
        assert view.rendered and view.lines.markdown == view.markdown_for(view.chunk)


@run_async
async def test_keys_pressed_one_by_one_show_each_body_at_once(toylang_db: Path) -> None:
    app = quiet_app(toylang_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = browser_of(app)
        view = screen.chunk_view
        view.lines.forget_renders()
        view.lines.quick_render = 0
        for _ in range(3):
            await pilot.press("down")  # Pilot's presses are 40 ms apart or more
            node = screen.chunk_tree.cursor_node
            assert node is not None and view.chunk is not None and view.chunk.id == node.data
            assert view.rendered


@run_async
async def test_job_progress_rows_show_the_latest_report_a_few_times_a_second() -> None:
    from textual.app import App, ComposeResult
    from textual.widgets import ProgressBar

    from specbrowser.tui.widgets.job_bar import JobBar, JobProgress

    class Jobs(App[None]):
        def compose(self) -> ComposeResult:
            yield JobBar(Path("unused.db"))

    app = Jobs()
    async with app.run_test() as pilot:
        jobs = app.query_one(JobBar)
        jobs.on_job_progress(JobProgress("tokens", 0, 100))  # a new row: shown at once
        await pilot.pause()
        bar = jobs.query_one(ProgressBar)
        assert bar.progress == 0
        for done in range(1, 51):  # a burst of reports: no row update per report
            jobs.on_job_progress(JobProgress("tokens", done, 100))
        assert bar.progress == 0
        await pilot.pause(0.3)
        assert bar.progress == 50  # the latest one, once the interval has passed


def test_nothing_is_rendered_ahead_before_the_first_paint() -> None:
    """The screen arms its prefetcher once its first frame is on the terminal: a schedule
    before that sets no timer, so no render ahead competes with the first paint."""
    from specbrowser.tui.screens.prefetch import PREFETCH_DELAY, Prefetcher

    timers: list[float] = []

    class Screen:
        def set_timer(self, delay, callback):
            timers.append(delay)
            return types.SimpleNamespace(stop=lambda: None)

    prefetcher = Prefetcher(Screen())  # type: ignore[arg-type]
    prefetcher.schedule()
    assert timers == []
    prefetcher.arm()
    prefetcher.schedule()
    assert timers == [PREFETCH_DELAY, PREFETCH_DELAY]
