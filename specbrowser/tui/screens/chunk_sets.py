"""The chunk sets of the database: switch the active one, or compare one with it.

A modal list over the browser, one option per stored chunk set (one per policy version): its
version, threshold, tags, max depth, chunk count and overruns, ● on the active one. Enter
dismisses with ``("activate", version)``, ``d`` with ``("diff", version)``, Escape with None;
the browser does the rest (:mod:`specbrowser.tui.screens.chunk_set_actions`).
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from specbrowser.chunking.policy import stored_threshold_label
from specbrowser.session import ChunkSetInfo, Session

ACTIVATE, DIFF = "activate", "diff"
"""What the screen asks the browser to do with the chosen set."""


def chunk_set_line(info: ChunkSetInfo) -> Text:
    """One option: ``● 1a2b3c4d5e6f  5,000 chars · 2,479 chunks · 24 over · guarded · depth 3
    · table → …`` (Text, never markup: tags may be CSS selectors with brackets). The counts
    come before the tags, so that a line cut at the screen's edge keeps them."""
    settings = info.settings
    stored_tags = settings.get("breakdown_tags")
    tag_list = stored_tags if isinstance(stored_tags, list) else []
    tags = " → ".join(str(t) for t in tag_list) or "(no tags)"
    over = sum(info.over_threshold.values())
    line = Text()
    line.append("● " if info.active else "  ", style="bold green")
    line.append(info.version, style="bold" if info.active else "")
    line.append(f"  {stored_threshold_label(settings)}")
    line.append(f" · {info.chunks:,} chunks")
    line.append(f" · {over:,} over" if over else " · none over", style="red" if over else "dim")
    if info.stale:
        line.append(" · stale", style="yellow")
    strategy = str(settings.get("strategy", "seed"))  # sets stored before strategies: seed
    if strategy != "seed":
        strategy += f", min {settings.get('min_chars', '?')}"
    line.append(f" · {strategy} · depth {settings.get('max_depth', '?')} · {tags}", style="dim")
    return line


class ChunkSetsScreen(ModalScreen[tuple[str, str] | None]):
    """Pick a chunk set: Enter activates it, ``d`` compares it with the active one.

    Args:
        session: the open database.
    """

    CSS_PATH = "chunk_sets.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss_none", "Close"),
        Binding("d", "diff", "Diff with active"),
    ]

    def __init__(self, session: Session) -> None:
        super().__init__(id="chunk-sets")
        self.sets = session.chunk_sets()

    def compose(self) -> ComposeResult:
        with Vertical(id="chunk-sets-box"):
            yield Label(
                f"Chunk sets ({len(self.sets)}) · Enter: make active · d: diff with the "
                "active set · Esc: close",
                id="chunk-sets-heading",
                markup=False,
            )
            yield OptionList(
                *[Option(chunk_set_line(s), id=s.version) for s in self.sets], id="chunk-sets-list"
            )

    def on_mount(self) -> None:
        """Highlight the active set."""
        options = self.query_one(OptionList)
        options.highlighted = next((i for i, s in enumerate(self.sets) if s.active), 0)
        options.focus()

    @on(OptionList.OptionSelected, "#chunk-sets-list")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss((ACTIVATE, str(event.option.id)))

    def action_diff(self) -> None:
        """Dismiss asking for a diff of the highlighted set against the active one."""
        options = self.query_one(OptionList)
        if options.highlighted is not None:
            self.dismiss((DIFF, self.sets[options.highlighted].version))

    def action_dismiss_none(self) -> None:
        """Close without a change."""
        self.dismiss(None)
