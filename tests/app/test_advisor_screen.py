"""The advisor screen (:class:`AdvisorScreen`, key ``A``) on the sample spec with the shipped
``sample_specs/toylang-queries.tsv``: the candidates fill the table, Escape stops a run, ``a``
applies the highlighted candidate and the browser shows the new set."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from textual.widgets import DataTable

from specbrowser.session import Session
from specbrowser.tui.app import make_app
from specbrowser.tui.screens.advisor import AdvisorScreen
from specbrowser.tui.screens.browser import BrowserScreen
from tests.app.helpers import SIZE, run_async, settle
from tests.helpers import ROOT, SAMPLE

QUERIES = ROOT / "sample_specs" / "toylang-queries.tsv"

pytestmark = pytest.mark.skipif(not SAMPLE.is_file(), reason="sample_specs/toylang.html absent")


async def finished(pilot, screen: AdvisorScreen, timeout: float = 60) -> None:
    """Wait until the advisor's worker has reported its advice."""
    for _ in range(int(timeout / 0.1)):
        if screen.advice is not None and not screen.running:
            return
        await asyncio.sleep(0.1)
        await pilot.pause()
    raise AssertionError("the advisor did not finish")


@run_async
async def test_advisor_fills_the_table_sorts_and_applies(toylang_db: Path) -> None:
    app = make_app(toylang_db, cursor_blink=False, count_tokens=False, queries=QUERIES)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        commands = [c.title for c in app.get_system_commands(app.screen)]
        assert "Advise a chunking policy" in commands
        before = app.screen.session.active_version()
        await pilot.press("A")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, AdvisorScreen)
        await finished(pilot, screen)
        assert screen.advice is not None
        table = screen.query_one("#advisor-table", DataTable)
        assert table.row_count == len(screen.advice.results) >= 3
        assert str(table.get_row_at(0)[2]) == screen.advice.results[0].candidate.label
        screen._sort(DataTable.HeaderSelected(table, table.columns["tokens"].key, 6, "x"))
        firsts = [r for r in screen.advice.results if r.same_as is None]
        cheapest = min(firsts, key=lambda r: r.tokens_per_hit)
        assert str(table.get_row_at(0)[2]) == cheapest.candidate.label
        other = next(r for r in firsts if r.version != before)
        table.move_cursor(row=table.get_row_index(other.version))
        await pilot.press("a")
        await settle(pilot)
        assert isinstance(app.screen, BrowserScreen)
        assert app.screen.session.active_version() == other.version
        assert app.screen.chunk_view.chunk is not None
    with Session.open(toylang_db) as session:
        assert session.active_version() == other.version


@run_async
async def test_escape_stops_the_run_and_keeps_what_finished(toylang_db: Path) -> None:
    app = make_app(toylang_db, cursor_blink=False, count_tokens=False, queries=QUERIES)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("A")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, AdvisorScreen)
        await pilot.press("escape")  # stop
        await finished(pilot, screen)
        assert screen.advice is not None
        assert len(screen.advice.results) >= 1
        await pilot.press("escape")  # back
        await settle(pilot)
        assert isinstance(app.screen, BrowserScreen)
