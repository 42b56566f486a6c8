"""The help screen (``?``, F1): every key of the app, by group, read from the bindings themselves.

The rows come from the bindings the screen is given (the app's and the browser's, both built
from :data:`specbrowser.tui.registry.COMMANDS`), so the screen never drifts from what the keys
do: each shows up in its registry group (:data:`GROUPS`, by binding id) or under "More"; the
keys Textual binds itself (``ctrl+p``) come last.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from specbrowser.tui.registry import COMMANDS, HELP_GROUPS

GROUPS: tuple[tuple[str, frozenset[str]], ...] = tuple(
    (group, frozenset(c.id for c in COMMANDS if c.group == group)) for group in HELP_GROUPS
)
"""Binding ids by group, in the order the screen lists them (from the registry's groups); other
bindings go under "More"."""

UNGROUPED = tuple(c for c in COMMANDS if c.group is None and c.key is not None)
"""Commands listed after the groups, without a heading (the keys Textual binds itself)."""

KEY_NAMES = {
    "slash": "/",
    "question_mark": "?",
    "escape": "Esc",
    "enter": "Enter",
    "tab": "Tab",
    "shift+tab": "Shift+Tab",
}


def key_label(keys: str) -> str:
    """A binding's keys as typed: ``"N,shift+n"`` → ``"N"``, ``"g,ctrl+g"`` → ``"g / ctrl+g"``;
    a ``shift+x`` spelling of a capital letter already listed is dropped."""
    shown: list[str] = []
    for key in keys.split(","):
        key = key.strip()
        if key.startswith("shift+") and len(key) == 7 and key[-1].upper() in shown:
            continue
        shown.append(KEY_NAMES.get(key, key))
    return " / ".join(shown)


def help_rows(bindings: Iterable[BindingType]) -> list[tuple[str, str, str]]:
    """``(group, keys, description)`` for every binding with a description, groups in
    :data:`GROUPS` order (then "More"), bindings in their declared order within a group."""
    order = {name: i for i, (name, _ids) in enumerate(GROUPS)}
    rows: list[tuple[int, int, tuple[str, str, str]]] = []
    for index, binding in enumerate(bindings):
        if not isinstance(binding, Binding) or not binding.description:
            continue
        group = next((name for name, ids in GROUPS if binding.id in ids), "More")
        rows.append(
            (
                order.get(group, len(order)),
                index,
                (group, key_label(binding.key), binding.description),
            )
        )
    return [row for _g, _i, row in sorted(rows, key=lambda r: (r[0], r[1]))]


class HelpScreen(ModalScreen[None]):
    """Every key by group; Escape, ``q``, ``?`` or F1 closes it.

    Args:
        bindings: the bindings to list (the app's and its screens').
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,question_mark,f1", "dismiss_help", "Close", show=False),
    ]
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    #help-box {
        width: 76; max-width: 100%; height: auto; max-height: 100%;
        border: round $accent; background: $surface; padding: 0 1;
    }
    """

    def __init__(self, bindings: Iterable[BindingType]) -> None:
        super().__init__(id="help")
        self.rows = help_rows(bindings)

    def compose(self) -> ComposeResult:
        table = Table.grid(padding=(0, 2))
        table.add_column(style="bold", no_wrap=True)
        table.add_column()
        group = None
        for name, keys, description in self.rows:
            if name != group:
                if group is not None:
                    table.add_row("", "")
                table.add_row(Text(name, style="bold underline"), "")
                group = name
            table.add_row(Text(keys), Text(description))
        table.add_row("", "")
        for command in UNGROUPED:
            assert command.key is not None
            table.add_row(Text(key_label(command.key)), Text(command.label))
        with VerticalScroll(id="help-box") as box:
            box.border_title = "Keys · Esc closes"
            yield Static(table)

    def action_dismiss_help(self) -> None:
        self.dismiss(None)
