"""The app notices a chunk set made active by another process and shows it in place."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from specbrowser.session import Session, jobs
from specbrowser.tui.app import make_app
from specbrowser.tui.screens.browser import LIVE_CHECK_SECONDS, BrowserScreen
from tests.app.helpers import run_async
from tests.helpers import TOYLANG_POLICY


@run_async
async def test_a_rechunk_from_another_shell_is_shown_within_a_second(toylang_db: Path) -> None:
    app = make_app(toylang_db, cursor_blink=False, count_tokens=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        browser = app.screen
        assert isinstance(browser, BrowserScreen)
        before = browser.shown_version
        browser.go_to_chunk("sec-big-table-clause")
        await pilot.pause()
        # another process: its own connection, its own transaction
        result = jobs.run_rechunk(
            toylang_db, replace(TOYLANG_POLICY, threshold=3000), in_subprocess=False
        )
        await pilot.pause(LIVE_CHECK_SECONDS + 0.5)
        assert browser.shown_version == result.version != before
        assert browser.previous_version == before
        assert browser.chunk_view.chunk is not None
        assert browser.chunk_view.chunk.id == "sec-big-table-clause"  # the same place
        with Session.open(toylang_db) as session:
            assert session.active_version() == result.version
        # nothing changed since: no second reload
        shown = browser.chunk_view.chunk
        await pilot.pause(LIVE_CHECK_SECONDS + 0.2)
        assert browser.chunk_view.chunk is shown
