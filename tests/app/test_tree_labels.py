"""Tree labels too long for the pane: ids cut in the middle (start and distinctive end kept),
other labels at the end, the marks always whole; packed siblings named apart."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from rich.text import Text

from specbrowser.chunking.policy import ChunkPolicy
from specbrowser.tui.app import make_app
from specbrowser.tui.screens.browser import BrowserScreen
from specbrowser.tui.widgets.chunk_tree import (
    ELLIPSIS,
    OVER_THRESHOLD_MARK,
    TINY_MARK,
    cut_end,
    cut_middle,
    fit_label,
)
from tests.app.helpers import browser_of, quiet_app, run_async, settle
from tests.helpers import SAMPLE

LONG_ID = "sec-well-known-intrinsic-objects-emu-table-1-p-3-7"


@pytest.mark.parametrize(
    ("text", "width", "expected"),
    [
        ("sec-well-known-intrinsic-objects-p-3-7", 18, "sec-well-kn…-p-3-7"),
        (LONG_ID, 18, "sec-well-kn…-p-3-7"),
        ("short-id", 18, "short-id"),
        ("abcdefghij", 10, "abcdefghij"),
        ("abcdefghij", 9, "abcdef…ij"),
        ("abcdef", 1, "…"),
        ("abcdef", 0, ""),
    ],
)
def test_cut_middle_keeps_the_start_and_the_distinctive_end(
    text: str, width: int, expected: str
) -> None:
    cut = cut_middle(text, width)
    assert cut == expected
    assert len(cut) <= max(width, 0)


def test_cut_end_ends_in_an_ellipsis() -> None:
    assert cut_end("9.4.2.1 Widget.prototype.at", 12) == "9.4.2.1 Wid…"
    assert cut_end("short", 12) == "short"


def test_fit_label_cuts_an_id_in_the_middle_and_keeps_the_marks() -> None:
    label = Text(LONG_ID, style="italic")
    label.append(OVER_THRESHOLD_MARK, "bold red")
    label.append(TINY_MARK, "bold cyan")
    fitted = fit_label(label, 24)
    assert fitted.cell_len <= 24
    assert fitted.plain.endswith("-p-3-7" + OVER_THRESHOLD_MARK + TINY_MARK)
    assert fitted.plain.startswith("sec-well")
    assert ELLIPSIS in fitted.plain
    # styles stay on their characters: the marks keep theirs, the id its own
    assert fitted.get_style_at_offset(_console(), len(fitted) - 1).bold
    assert fitted.get_style_at_offset(_console(), 0).italic


def test_fit_label_cuts_a_title_at_its_end_and_leaves_a_fitting_label_alone() -> None:
    title = Text("9.4.2.1 Widget.prototype.at ( index )")
    assert fit_label(title, 20).plain == "9.4.2.1 Widget.prot…"
    assert fit_label(title, 80) is title


def _console():  # type: ignore[no-untyped-def]
    from rich.console import Console

    return Console(width=80)


@run_async
async def test_a_long_id_label_is_cut_in_the_middle_in_a_narrow_pane(toylang_db: Path) -> None:
    app = make_app(toylang_db, cursor_blink=False, count_tokens=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, BrowserScreen)
        tree = screen.chunk_tree
        node = tree.get_node_at_line(1)
        assert node is not None
        node.set_label(Text(LONG_ID))
        await pilot.pause()
        width = tree.scrollable_content_region.width
        assert width < len(LONG_ID)  # the pane is too narrow for the id
        line = "".join(segment.text for segment in tree.render_line(node.line)).rstrip()
        assert ELLIPSIS in line
        assert line.endswith("-p-3-7")
        assert line.lstrip().startswith("sec-well")
        assert len(line) <= width


@run_async
async def test_packed_siblings_have_distinct_labels_at_80x24(
    ingested_db: Callable[..., Path],
) -> None:
    """Under the guarded strategy cells are packed into groups (``…-td-1-3``, ``…-td-4-6``):
    each label names its group's first and last member, so siblings read apart."""
    db_path = ingested_db(SAMPLE, ChunkPolicy(threshold=300), "guarded.db")
    app = make_app(db_path, cursor_blink=False, count_tokens=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, BrowserScreen)
        table = "sec-big-table-clause-emu-table-1"
        assert screen.go_to_chunk(f"{table}-td-1-3")
        await settle(pilot)
        tree = screen.chunk_tree
        parent = tree.node_for(table)
        assert parent is not None
        cells = [node for node in parent.children if (node.data or "").startswith(f"{table}-td-")]
        assert len(cells) > 3
        labels = [node.label.plain for node in cells]
        assert labels[0].startswith("td 1–3") and labels[1].startswith("td 4–6")
        shown = [
            "".join(segment.text for segment in tree.render_line(node.line - tree.scroll_offset.y))
            for node in cells[:4]
        ]
        assert len({line.rstrip() for line in shown}) == len(shown)  # on screen, too


@run_async
async def test_a_remembered_label_width_follows_the_label_its_icon_and_the_pane(
    toylang_db: Path,
) -> None:
    """The tree remembers each label's width (Tree asks on every rebuild of its lines); a new
    label, an expanded node (another icon) or a narrower pane gives the width drawn now."""
    from rich.style import Style

    app = quiet_app(toylang_db)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        tree = browser_of(app).chunk_tree

        def drawn(node) -> int:  # type: ignore[no-untyped-def]
            return tree.render_label(node, Style.null(), Style.null()).cell_len

        node = next(n for n in tree.root.children if n.allow_expand)
        assert tree.get_label_width(node) == drawn(node)
        label = "sec-well-known-intrinsic-objects-p-3-7"  # fits the 120-column pane
        node.set_label(Text(label))
        assert tree.get_label_width(node) == drawn(node) == len(label) + 2  # the icon
        node.expand()
        await pilot.pause()
        assert tree.get_label_width(node) == drawn(node)
        await pilot.resize_terminal(60, 30)
        await settle(pilot)
        assert tree.get_label_width(node) == drawn(node) < len(label)
