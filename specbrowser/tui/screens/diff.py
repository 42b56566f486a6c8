"""The diff screen: what changed between two chunk sets of the open database.

The summary sits at the top, the changed sections below it (most changed first; ``s`` switches
to document order), and under them the selected section's chunks in set A and set B side by
side (:class:`~specbrowser.tui.widgets.chunk_set_trees.ChunkSetTrees`). The screen is a
``Screen[str | None]``: ``j`` (or Enter on a tree node) dismisses it with a chunk id (the
tree's node) or a section id (the list's row) for the browser to jump to; Escape with None.

Computing the diff is too slow for the UI thread on ECMA-262's sets, so it runs in a thread
worker on its own connection (SQLite connections stay in the thread that opened them) and posts
:class:`DiffScreen.DiffReady`; the section trees are read on the screen's connection, a few
indexed rows at a time.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static
from textual.worker import get_current_worker

from specbrowser.errors import SpecbrowserError
from specbrowser.session import Session
from specbrowser.session.diff import Change, ChunkSetDiff, SectionDiff
from specbrowser.tui.widgets.chunk_set_trees import ChunkSetTrees, SetTree, legend

SECTION_COLUMNS = ("added", "removed", "changed", "overruns", "largest (ch)", "section")
"""Columns of the changed-section list: counts of chunks, overruns and the largest chunk's
size in characters as ``A → B``, then the section's title (last: long titles run off the right
edge, never the numbers)."""


def _arrow(before: int, after: int) -> str:
    return f"{before:,}" if before == after else f"{before:,} → {after:,}"


def summary_text(diff: ChunkSetDiff) -> Text:
    """The diff's totals in six lines (spec text literal, never markup): the two policies,
    the chunk counts, overruns and sizes, then the quality figures (two lines)."""
    summary = diff.summary
    text = Text()
    for side, version, policy in (
        ("A", diff.version_a, diff.policy_a),
        ("B", diff.version_b, diff.policy_b),
    ):
        text.append(f"{side} {version}  ", style="bold")
        text.append(f"{policy}\n")
    sections = summary.sections_changed + summary.sections_unchanged
    text.append(
        f"chunks {_arrow(summary.chunks.before, summary.chunks.after)} · sections changed "
        f"{summary.sections_changed:,} of {sections:,} · added {summary.added:,}, removed "
        f"{summary.removed:,}, changed {summary.changed:,}"
        + (f", reflagged {summary.reflagged:,}" if summary.reflagged else "")
        + "\n"
    )
    overruns = (
        ", ".join(f"{reason} {_arrow(c.before, c.after)}" for reason, c in summary.overruns.items())
        or "none"
    )
    sizes = [value[1] if value else 0 for value in (summary.largest.before, summary.largest.after)]
    truncated = (
        "no embeddings"
        if summary.truncated is None
        else _arrow(summary.truncated.before, summary.truncated.after)
    )
    text.append(
        f"over threshold: {overruns} · largest chunk {_arrow(*sizes)} ch · "
        f"embedding-truncated: {truncated}\n"
    )
    shares = (
        f"{name} {change.before:.1%}"
        + ("" if f"{change.before:.1%}" == f"{change.after:.1%}" else f" → {change.after:.1%}")
        for name, change in (
            ("breakdown", summary.breakdown_marker_share),
            ("child sections", summary.section_marker_share),
        )
    )
    text.append(
        f"tiny chunks {_arrow(*_pair(summary.tiny_chunks))} · grown "
        f"{_arrow(*_pair(summary.grown_chunks))} · mostly markers "
        f"{_arrow(*_pair(summary.mostly_marker_chunks))} · median without markers "
        f"{_arrow(*_pair(summary.median_without_markers))} ch\n"
        f"markers, share of all characters: {', '.join(shares)}"
    )
    return text


def _pair(change: Change[int]) -> tuple[int, int]:
    return change.before, change.after


def section_cells(section: SectionDiff) -> tuple[Text, ...]:
    """One row of the changed-section list (see :data:`SECTION_COLUMNS`)."""
    changed = f"{len(section.changed):,}" + (
        f" ⚑{len(section.reflagged)}" if section.reflagged else ""
    )
    return (
        Text(f"{len(section.added):,}", justify="right"),
        Text(f"{len(section.removed):,}", justify="right"),
        Text(changed, justify="right"),
        Text(_arrow(section.overruns.before, section.overruns.after), justify="right"),
        Text(_arrow(section.largest.before, section.largest.after), justify="right"),
        Text(section.title or section.section_id),
    )


class DiffScreen(Screen[str | None]):
    """Compare chunk set ``version_a`` with ``version_b`` (full versions or unique prefixes).

    Dismisses with the id to jump to (a chunk id from a tree, or the highlighted section's id),
    or None (Escape). An unknown version is shown as an error; Escape still leaves.

    Args:
        session: the open database (the screen reads section trees through it; the diff
            itself is computed on a session of its own in a worker).
        version_a, version_b: the chunk sets to compare.
    """

    CSS_PATH = "diff.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Back", id="diff-close"),
        Binding("j", "jump", "Jump to", id="diff-jump"),
        Binding("s", "toggle_order", "Order", id="diff-order"),
    ]

    class DiffReady(Message):
        """The worker computed the diff."""

        def __init__(self, diff: ChunkSetDiff) -> None:
            super().__init__()
            self.diff = diff

    class DiffFailed(Message):
        """The worker could not compute the diff (``error`` is one line for the user)."""

        def __init__(self, error: str) -> None:
            super().__init__()
            self.error = error

    def __init__(self, session: Session, version_a: str, version_b: str) -> None:
        super().__init__(id="diff")
        self.session = session
        self.version_a = version_a
        self.version_b = version_b
        self.diff: ChunkSetDiff | None = None
        """The computed diff, once :class:`DiffReady` arrived."""
        self.document_order = False
        """Whether the list is in document order (else most changed first)."""
        self.section_id: str | None = None
        """The section whose trees are shown."""

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(Text("Comparing chunk sets…"), id="diff-summary")
        table: DataTable[object] = DataTable(
            id="diff-sections", cursor_type="row", zebra_stripes=True
        )
        yield table
        yield ChunkSetTrees(id="diff-trees")
        yield Static(legend(), id="diff-legend")
        yield Footer(compact=True)

    @property
    def section_table(self) -> DataTable[object]:
        """The list of changed sections (row keys are section ids)."""
        return self.query_one("#diff-sections", DataTable)

    @property
    def trees(self) -> ChunkSetTrees:
        """The side-by-side trees."""
        return self.query_one(ChunkSetTrees)

    def on_mount(self) -> None:
        """Set up the list's columns and start computing the diff."""
        self.section_table.add_columns(*SECTION_COLUMNS)
        self._compute()

    @work(thread=True, exclusive=True, group="diff")
    def _compute(self) -> None:
        """Compute the diff on a connection of this thread; report by message, never touching
        widgets."""
        worker = get_current_worker()
        try:
            with self.session.reopen() as session:
                diff = session.diff(self.version_a, self.version_b)
        except SpecbrowserError as error:
            if not worker.is_cancelled:
                self.post_message(self.DiffFailed(str(error)))
            return
        if not worker.is_cancelled:
            self.post_message(self.DiffReady(diff))

    @on(DiffReady)
    def _diff_ready(self, message: DiffReady) -> None:
        self.diff = message.diff
        self.query_one("#diff-summary", Static).update(summary_text(message.diff))
        self._fill_table()
        if not message.diff.sections:
            self.notify("the two chunk sets hold the same chunks", markup=False)

    @on(DiffFailed)
    def _diff_failed(self, message: DiffFailed) -> None:
        self.query_one("#diff-summary", Static).update(Text(message.error, style="bold red"))
        self.notify(message.error, title="Cannot compare", severity="error", markup=False)

    def _fill_table(self) -> None:
        """(Re)fill the list in the current order; keep the highlighted section if any."""
        assert self.diff is not None
        table = self.section_table
        keep = self.section_id
        table.clear()
        sections = self.diff.sections if self.document_order else self.diff.top_sections()
        for section in sections:
            table.add_row(*section_cells(section), key=section.section_id)
        if not sections:
            return
        index = next((i for i, s in enumerate(sections) if s.section_id == keep), 0)
        table.move_cursor(row=index)
        self.show_section(sections[index].section_id)

    def show_section(self, section_id: str) -> None:
        """Show one section's chunks of both sets in the trees."""
        if self.diff is None or section_id == self.section_id:
            return
        self.section_id = section_id
        versions = (self.diff.version_a, self.diff.version_b)
        self.trees.show_section(
            self.session.section_briefs(versions[0], section_id),
            self.session.section_briefs(versions[1], section_id),
            self.diff.section(section_id),
            versions,
        )

    @on(DataTable.RowHighlighted, "#diff-sections")
    def _row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.row_key.value is not None:
            self.show_section(event.row_key.value)

    @on(DataTable.RowSelected, "#diff-sections")
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        """Enter on a section: into set B's tree."""
        if event.row_key.value is not None:
            self.show_section(event.row_key.value)
            self.trees.set_tree("b").focus()

    @on(SetTree.ChunkChosen)
    def _chunk_chosen(self, event: SetTree.ChunkChosen) -> None:
        """Enter on a tree node: jump to that chunk."""
        self.dismiss(event.chunk_id)

    def action_jump(self) -> None:
        """Dismiss with the focused tree's chunk id, else the highlighted section's id."""
        focused = self.focused
        if (
            isinstance(focused, SetTree)
            and focused.cursor_node is not None
            and focused.cursor_node.data is not None
        ):
            self.dismiss(focused.cursor_node.data)
        elif self.section_id is not None:
            self.dismiss(self.section_id)
        else:
            self.notify("no section to jump to", severity="warning", markup=False)

    def action_toggle_order(self) -> None:
        """Switch the list between most changed first and document order."""
        if self.diff is None:
            return
        self.document_order = not self.document_order
        self._fill_table()
        self.notify(
            "document order" if self.document_order else "most changed first",
            markup=False,
            timeout=2,
        )

    def action_close(self) -> None:
        """Leave without a jump."""
        self.dismiss(None)
