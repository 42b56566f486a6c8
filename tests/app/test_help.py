"""The help screen (? and F1): every binding of the app and the browser, by group."""

from __future__ import annotations

from pathlib import Path

from textual.binding import Binding
from textual.widgets import Static

from specbrowser.tui.app import SpecBrowserApp, make_app
from specbrowser.tui.screens.browser import BrowserScreen
from specbrowser.tui.screens.help import GROUPS, HelpScreen, help_rows, key_label
from tests.app.helpers import run_async

ALL_BINDINGS = [*SpecBrowserApp.BINDINGS, *BrowserScreen.BINDINGS]


def test_every_binding_with_a_description_is_a_row_in_a_known_group():
    rows = help_rows(ALL_BINDINGS)
    described = [b for b in ALL_BINDINGS if isinstance(b, Binding) and b.description]
    assert [(keys, text) for _g, keys, text in rows] == [
        (key_label(b.key), b.description)
        for b in sorted(
            described,
            key=lambda b: next(
                (i for i, (_n, ids) in enumerate(GROUPS) if b.id in ids), len(GROUPS)
            ),
        )
    ]
    assert {group for group, _k, _t in rows} <= {name for name, _ids in GROUPS}, (
        "a binding has no group: add its id to GROUPS"
    )


def test_key_labels_read_as_typed():
    assert key_label("N,shift+n") == "N"
    assert key_label("g,ctrl+g") == "g / ctrl+g"
    assert key_label("question_mark,f1") == "? / f1"
    assert key_label("slash") == "/"


@run_async
async def test_question_mark_opens_the_help_and_escape_closes_it(toylang_db: Path) -> None:
    app = make_app(toylang_db, cursor_blink=False, count_tokens=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        assert app.screen.rows == help_rows(ALL_BINDINGS)
        assert app.screen.query_one(Static).size.height > 20  # the whole list, scrollable
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, BrowserScreen)
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)


def test_snapshot_help_screen_at_80x24(toylang_db: Path, snap_compare) -> None:
    async def run_before(pilot) -> None:
        await pilot.pause()
        await pilot.press("question_mark")
        await pilot.pause()

    assert snap_compare(
        make_app(toylang_db, cursor_blink=False, count_tokens=False),
        terminal_size=(80, 24),
        run_before=run_before,
    )


def test_snapshot_help_screen_at_160x50(toylang_db: Path, snap_compare) -> None:
    async def run_before(pilot) -> None:
        await pilot.pause()
        await pilot.press("question_mark")
        await pilot.pause()

    assert snap_compare(
        make_app(toylang_db, cursor_blink=False, count_tokens=False),
        terminal_size=(160, 50),
        run_before=run_before,
    )
