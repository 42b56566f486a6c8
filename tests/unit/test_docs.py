"""The README documents every command, every option and every key.

Commands and options come from the CLI's argparse parser (each subcommand needs its own
``### `specbrowser NAME …``` section holding each of its options); keys come from the
``BINDINGS`` of the app and of every screen and widget class in :mod:`specbrowser.tui`. The
browser's keys (and the app's) belong in the README's key table; the keys of a screen opened
from the browser belong in the table row of the key that opens it. A binding with several keys
(``"N,shift+n"``) is documented when one of them is.

The key table and the app's command registry (:data:`specbrowser.tui.registry.COMMANDS`) agree
both ways: every registry key is in the table, and every key a row of the table starts with is
a registry key.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import pkgutil
import re

import pytest
from textual.binding import Binding
from textual.dom import DOMNode

import specbrowser.tui
from specbrowser.cli import build_parser
from specbrowser.tui.registry import COMMANDS as APP_COMMANDS
from specbrowser.tui.registry import Command
from tests.helpers import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")

# --- commands and options --------------------------------------------------------------------


def _commands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    (sub,) = (a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


COMMANDS = _commands()
HEADINGS = list(re.finditer(r"^#{1,3} .*$", README, re.MULTILINE))


def command_section(name: str) -> str | None:
    """The README text from the first heading that names ``specbrowser NAME`` to the next
    heading, or None if no heading names it."""
    for i, heading in enumerate(HEADINGS):
        if re.search(rf"`specbrowser {re.escape(name)}(?![\w-])", heading.group(0)):
            end = HEADINGS[i + 1].start() if i + 1 < len(HEADINGS) else len(README)
            return README[heading.start() : end]
    return None


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_command_has_a_readme_section(name: str) -> None:
    assert command_section(name), f"README.md has no '### `specbrowser {name} …`' section"


OPTIONS = [
    (name, action.option_strings)
    for name, parser in COMMANDS.items()
    for action in parser._actions
    if action.option_strings and not isinstance(action, argparse._HelpAction)
]


@pytest.mark.parametrize(
    "name, option_strings", OPTIONS, ids=[f"{n} {max(o, key=len)}" for n, o in OPTIONS]
)
def test_every_option_is_in_its_command_s_section(name: str, option_strings: list[str]) -> None:
    section = command_section(name) or ""
    assert any(
        re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", section) for option in option_strings
    ), f"the README section of `specbrowser {name}` does not mention {' / '.join(option_strings)}"


# --- key bindings ------------------------------------------------------------------------------


def _bindings() -> list[tuple[str, Binding]]:
    """(class name, binding) for each binding a class in specbrowser.tui declares itself."""
    found = []
    for info in pkgutil.walk_packages(specbrowser.tui.__path__, "specbrowser.tui."):
        module = importlib.import_module(info.name)
        for cls_name, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ != module.__name__ or not issubclass(cls, DOMNode):
                continue
            for binding in cls.__dict__.get("BINDINGS", []):
                found.append(
                    (cls_name, binding if isinstance(binding, Binding) else Binding(*binding))
                )
    return found


BINDINGS = _bindings()

KEY_TABLE = re.search(r"^\| key \| action \|\n((?:\|.*\n)+)", README, re.MULTILINE)
"""The browser's key table (header ``| key | action |``): one row per key, the key in the first
cell."""

OPENED_BY = {
    "PolicyEditor": "e",
    "ChunkSetsScreen": "c",
    "DiffScreen": "d",
    "SetTree": "d",
    "StatsScreen": "s",
    "EvalScreen": "v",
    "AdvisorScreen": "A",
    "HelpScreen": "?",
    "SearchBar": "/",
}
"""The browser key that opens each screen (or the screen holding each widget) with bindings of
its own: the README documents its keys in that key's table row."""

IN_THE_TABLE = {"SpecBrowserApp", "BrowserScreen"}
"""Classes whose keys belong anywhere in the key table."""

KEY_NAMES = {
    "slash": "/",
    "question_mark": "?",
    "left_square_bracket": "[",
    "right_square_bracket": "]",
    "up": "↑",
    "down": "↓",
}
"""Textual key names shown as the character the README writes."""

KEY_WORDS = {
    "escape": "Escape",
    "enter": "Enter",
    "space": "Space",
    "tab": "Tab",
    "f1": "F1",
}
"""Keys the README names in prose, unquoted."""


def key_is_documented(key: str, text: str) -> bool:
    """Whether ``text`` mentions ``key`` (a Textual key such as ``ctrl+up`` or ``escape``): as
    a word for the keys in :data:`KEY_WORDS`, else in backticks as the README writes it
    (`` `ctrl+↑` ``, `` `/` ``)."""
    if key in KEY_WORDS:
        return re.search(rf"\b{KEY_WORDS[key]}\b", text) is not None
    *modifiers, last = key.split("+")
    return f"`{'+'.join([*modifiers, KEY_NAMES.get(last, last)])}`" in text


def table_row(key: str) -> str:
    """The key table's row whose first cell holds `` `key` ``, or ""."""
    assert KEY_TABLE, "README.md lost its key table (a table headed '| key | action |')"
    for row in KEY_TABLE.group(1).splitlines():
        if f"`{key}`" in row.split("|")[1]:
            return row
    return ""


def test_the_key_table_is_found() -> None:
    assert KEY_TABLE and table_row("q"), "README.md lost its key table or its `q` row"


@pytest.mark.parametrize(
    "owner, binding", BINDINGS, ids=[f"{owner} {b.key} {b.action}" for owner, b in BINDINGS]
)
def test_every_key_binding_is_in_the_readme(owner: str, binding: Binding) -> None:
    if owner in IN_THE_TABLE:
        text, where = (KEY_TABLE.group(1) if KEY_TABLE else ""), "the key table"
    else:
        assert owner in OPENED_BY, (
            f"{owner} has key bindings: document them in README.md and say in OPENED_BY which "
            "browser key's row holds them"
        )
        text, where = table_row(OPENED_BY[owner]), f"the key table's `{OPENED_BY[owner]}` row"
    keys = binding.key.split(",")
    assert any(key_is_documented(key.strip(), text) for key in keys), (
        f"{owner}: {binding.key} ({binding.action}, {binding.description!r}) is not in {where} "
        "of README.md"
    )


# --- the key table against the command registry -------------------------------------------------

README_KEYS = {written: key for key, written in KEY_NAMES.items()} | {
    word: key for key, word in KEY_WORDS.items()
}
"""The README's spelling of a key (``/``, ``F1``) → Textual's key name."""


def table_row_keys() -> list[str]:
    """The keys the key table's rows start with (their first cell), as Textual names them:
    every key in backticks there, and the keys named in words (``F1``)."""
    assert KEY_TABLE, "README.md lost its key table (a table headed '| key | action |')"
    keys: list[str] = []
    for row in KEY_TABLE.group(1).splitlines():
        cell = row.split("|")[1]
        written = re.findall(r"`([^`]+)`", cell)
        written += [word for word in KEY_WORDS.values() if re.search(rf"\b{word}\b", cell)]
        for key in written:
            *modifiers, last = key.split("+")
            keys.append("+".join([*modifiers, README_KEYS.get(last, last)]))
    return keys


KEYED_COMMANDS = [command for command in APP_COMMANDS if command.key is not None]


@pytest.mark.parametrize("command", KEYED_COMMANDS, ids=[c.id for c in KEYED_COMMANDS])
def test_every_registry_key_is_in_the_key_table(command: Command) -> None:
    assert command.key is not None
    table = KEY_TABLE.group(1) if KEY_TABLE else ""
    assert any(key_is_documented(key.strip(), table) for key in command.key.split(",")), (
        f"the registry's {command.id} ({command.key}) is not in the key table of README.md"
    )


def test_every_key_of_the_key_table_is_in_the_registry() -> None:
    registry_keys = {
        key.strip() for command in KEYED_COMMANDS for key in (command.key or "").split(",")
    }
    keys = table_row_keys()
    assert "q" in keys and "slash" in keys, "the key table's first cells were not read"
    missing = [key for key in keys if key not in registry_keys]
    assert not missing, (
        f"README.md's key table has rows for keys no command in specbrowser.tui.registry "
        f"binds: {missing}"
    )
