"""OrderedInput: an Input's own editing keys keep their place among the characters typed with
them (Textual runs them only after the key bubbled up to the app: Textualize/textual#6605)."""

from __future__ import annotations

import pytest
from textual import events
from textual.app import App, ComposeResult

from specbrowser.tui.widgets.ordered_input import OrderedInput
from tests.app.helpers import run_async

CHARACTERS = {"backspace": "\x7f", "left": None, "home": None, "end": None}


class OneInput(App[None]):
    def compose(self) -> ComposeResult:
        yield OrderedInput("5000", type="integer", id="field")


async def burst(keys: list[str]) -> str:
    """The field's value after ``keys`` arrive in one burst (posted without waiting, as a
    terminal delivers keys read together), the field focused with its value selected."""
    app = OneInput()
    async with app.run_test() as pilot:
        await pilot.pause()
        for key in keys:
            app.post_message(events.Key(key, CHARACTERS.get(key, key)))
        await pilot.pause()
        await pilot.pause()
        return app.query_one(OrderedInput).value


@pytest.mark.parametrize(
    "keys, value",
    [
        (["backspace", "2"], "2"),  # the selection deleted, then 2 typed: it left ""
        (["end", "backspace", "2"], "5002"),
        (["backspace", "2", "0", "backspace", "1"], "21"),
        (["home", "9"], "95000"),
    ],
)
def test_keys_in_one_burst_apply_in_order(keys: list[str], value: str) -> None:
    @run_async
    async def check() -> None:
        assert await burst(keys) == value

    check()
