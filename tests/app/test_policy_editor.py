"""The policy editor at 80×24: the fields scroll, the validation line and the buttons stay in
sight, and Tab reaches every control, each in view when it has the focus."""

from __future__ import annotations

from pathlib import Path

from textual.widget import Widget
from textual.widgets import Button, Collapsible, Input

from specbrowser.tui.screens.policy_editor import PolicyEditor
from tests.app.helpers import quiet_app, run_async, settle


def in_sight(editor: PolicyEditor, widget: Widget) -> bool:
    """Whether all of ``widget`` shows: inside the screen, and inside the scrolling body when it
    is one of the fields."""
    body = editor.query_one("#policy-body")
    shown = body.region if body in widget.ancestors else editor.region
    return widget.region.height > 0 and shown.contains_region(widget.region)


async def open_editor(pilot) -> PolicyEditor:
    await settle(pilot)
    await pilot.press("e")
    await settle(pilot)
    editor = pilot.app.screen
    assert isinstance(editor, PolicyEditor)
    return editor


@run_async
async def test_editor_fits_80x24_and_tab_reaches_every_control(toylang_db: Path) -> None:
    app = quiet_app(toylang_db)
    async with app.run_test(size=(80, 24)) as pilot:
        editor = await open_editor(pilot)
        for selector in ("#policy-status", "#policy-apply", "#policy-cancel"):
            assert in_sight(editor, editor.query_one(selector)), selector
        assert "version" in str(editor.query_one("#policy-status").render())
        editor.query_one("#policy-markdown", Collapsible).collapsed = False  # the selectors
        await settle(pilot)
        chain = editor.focus_chain
        ids = [widget.id for widget in chain]
        assert ids[-2:] == ["policy-apply", "policy-cancel"]  # the buttons come last
        inputs = {widget.id for widget in editor.query(Input)}
        assert inputs <= set(ids)  # every field, the Markdown selectors too
        chain[-1].focus()  # Cancel, then Tab: round to the top (expanding scrolled down)
        await pilot.press("tab")
        await settle(pilot)
        reached = []
        for _ in chain:
            focused = app.focused
            assert focused is not None
            assert in_sight(editor, focused), focused
            for selector in ("#policy-status", "#policy-apply", "#policy-cancel"):
                assert in_sight(editor, editor.query_one(selector)), selector
            reached.append(focused)
            await pilot.press("tab")
            await settle(pilot)
        assert reached == chain
        assert app.focused is chain[0]  # round again


@run_async
async def test_editor_status_stays_in_sight_when_it_wraps(toylang_db: Path) -> None:
    app = quiet_app(toylang_db)
    async with app.run_test(size=(80, 24)) as pilot:
        editor = await open_editor(pilot)
        editor.query_one("#policy-md-skip", Input).value = "div[" + "x" * 150
        await settle(pilot)
        status = editor.query_one("#policy-status")
        assert status.region.height >= 2  # the reason, wrapped
        assert editor.query_one("#policy-apply", Button).disabled
        for widget in (status, editor.query_one("#policy-cancel")):
            assert in_sight(editor, widget)


def test_snapshot_policy_editor_80x24(toylang_db: Path, snap_compare) -> None:
    """The editor at 80×24: the numbers and the tags in the scrolling body, the policy summary
    and Apply / Cancel under it."""

    async def run_before(pilot) -> None:
        await open_editor(pilot)

    assert snap_compare(quiet_app(toylang_db), terminal_size=(80, 24), run_before=run_before)
