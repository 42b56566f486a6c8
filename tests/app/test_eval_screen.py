"""The evaluation screen (:class:`EvalScreen`, key ``v``) on the sample spec with the shipped
``sample_specs/toylang-queries.tsv``.

The database holds two chunk sets: the fixture's (800 characters, active) and one at 400
characters, so the screen compares two sets. Two of the sample's queries are punctuation only
(``#{``, ``::``) and no lexical search finds them: the missed list is never empty. The snapshot
is stored under ``snapshots/test_eval_screen/``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import DataTable, OptionList

from specbrowser.cli import main
from specbrowser.session import Session
from specbrowser.tui.app import make_app
from specbrowser.tui.screens.browser import BrowserScreen
from specbrowser.tui.screens.evaluate import EvalScreen
from tests.app.helpers import SIZE, run_async, settle
from tests.helpers import ROOT, SAMPLE

QUERIES = ROOT / "sample_specs" / "toylang-queries.tsv"
SNAPSHOT_SIZE = (120, 36)

pytestmark = pytest.mark.skipif(not SAMPLE.is_file(), reason="sample_specs/toylang.html absent")


@pytest.fixture
def two_sets(toylang_db: Path) -> tuple[Path, str, str]:
    """The sample database with a second set at 400 characters; the first stays active."""
    with Session.open(toylang_db) as session:
        first = session.active_version()
    assert main(["rechunk", str(toylang_db), "--threshold", "400"]) == 0
    with Session.open(toylang_db) as session:
        second = session.active_version()
        session.activate(first)
    return toylang_db, first, second


async def open_eval(pilot) -> EvalScreen:
    """Wait for the browser, press ``v``, wait for the evaluation."""
    await settle(pilot)
    await pilot.press("v")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, EvalScreen)
    return screen


@run_async
async def test_v_shows_both_sets_and_enter_on_a_missed_query_jumps(two_sets) -> None:
    db, first, second = two_sets
    app = make_app(db, cursor_blink=False, count_tokens=False, queries=QUERIES)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        commands = [c.title for c in app.get_system_commands(app.screen)]
        assert "Evaluate chunk sets" in commands
        screen = await open_eval(pilot)
        evaluation = screen.evaluation
        assert evaluation is not None and evaluation.query_count == 22
        assert [(r.policy_version, r.mode) for r in evaluation.runs] == [
            (first, "lexical"),
            (second, "lexical"),
        ]
        table = screen.query_one("#eval-table", DataTable)
        assert table.row_count == 16 and len(table.columns) == 3
        assert str(table.get_row("hit@1")[1]) == f"{evaluation.runs[0].hit[1]:.3f}"
        missed = screen.query_one("#eval-missed", OptionList)
        first_missed = evaluation.runs[0].missed[0]
        assert first_missed.query.query == "#{"
        assert screen.targets[missed.get_option_at_index(missed.highlighted).id] == "sec-tokens"
        missed.focus()
        await pilot.press("enter")
        await settle(pilot)
        browser = app.screen
        assert isinstance(browser, BrowserScreen)
        assert browser.chunk_view.chunk is not None
        assert browser.chunk_view.chunk.id == "sec-tokens"


@run_async
async def test_a_typed_path_runs_and_a_bad_file_says_why(two_sets, tmp_path) -> None:
    db, first, _second = two_sets
    bad = tmp_path / "bad.tsv"
    bad.write_text("query\tanswer\nx\tsec-scope\n", encoding="utf-8")
    app = make_app(db, cursor_blink=False, count_tokens=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_eval(pilot)
        assert screen.evaluation is None  # nothing given: waits for a path
        await pilot.click("#eval-path")
        await pilot.press(*str(bad), "enter")
        await settle(pilot)
        summary = str(screen.query_one("#eval-summary").render())
        assert "line 1" in summary and "no expected column" in summary
        screen.query_one("#eval-path").value = str(QUERIES)
        await pilot.click("#eval-path")
        await pilot.press("enter")
        await settle(pilot)
        assert screen.evaluation is not None and screen.evaluation.runs[0].policy_version == first
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, BrowserScreen)


def test_snapshot_eval_screen(two_sets, snap_compare, monkeypatch) -> None:
    """The sample's 22 queries on both sets: the metric table (hit@k, recall@k, MRR, token
    metrics) and the missed queries, the first highlighted."""
    db, _first, _second = two_sets
    monkeypatch.chdir(ROOT)  # a relative path: the same input text on every machine

    async def run_before(pilot) -> None:
        await open_eval(pilot)
        pilot.app.screen.query_one("#eval-missed").focus()
        await pilot.pause()

    assert snap_compare(
        make_app(
            db,
            cursor_blink=False,
            count_tokens=False,
            queries=Path("sample_specs/toylang-queries.tsv"),
        ),
        terminal_size=SNAPSHOT_SIZE,
        run_before=run_before,
    )


def test_snapshot_eval_screen_80x24(two_sets, snap_compare, monkeypatch) -> None:
    """The same at 80×24: the path field keeps most of the width, the table and the missed
    queries below it."""
    db, _first, _second = two_sets
    monkeypatch.chdir(ROOT)

    async def run_before(pilot) -> None:
        await open_eval(pilot)
        pilot.app.screen.query_one("#eval-missed").focus()
        await pilot.pause()

    assert snap_compare(
        make_app(
            db,
            cursor_blink=False,
            count_tokens=False,
            queries=Path("sample_specs/toylang-queries.tsv"),
        ),
        terminal_size=(80, 24),
        run_before=run_before,
    )
