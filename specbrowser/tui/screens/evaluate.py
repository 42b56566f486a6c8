"""The evaluation screen: how well the active chunk set, and another one, retrieve the answers of
a query file (:mod:`specbrowser.session.evaluate`, as ``specbrowser eval`` prints it).

At the top, the query file's path (Enter runs the evaluation) and the set to compare with the
active one; below, the metric table (one column per set and search mode, the same rows as the
CLI's) and the missed queries of every run. Enter on a missed query dismisses the screen with
the query's first expected id (a section or chunk id) for the browser to go to; Escape
dismisses with None.

The evaluation runs the whole query file through the search in a thread worker on its own
connection (SQLite connections stay in the thread that opened them; a semantic mode loads the
model) and posts :class:`EvalScreen.EvalReady` or :class:`EvalScreen.EvalFailed`. Query text,
ids and paths are shown as ``Text``, never parsed as markup.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Input, Label, OptionList, Select, Static
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from specbrowser.chunking.policy import stored_threshold_label
from specbrowser.errors import SpecbrowserError
from specbrowser.session import Session
from specbrowser.session.evaluate import Evaluation, evaluate, metric_rows
from specbrowser.session.query_file import read_queries

NO_OTHER = "none"
"""The set selector's value for "the active set only"."""


class EvalScreen(Screen[str | None]):
    """Evaluate the active chunk set, and optionally another, on a query file.

    Dismisses with the expected id of the chosen missed query, or None (Escape).

    Args:
        session: the open database (the evaluation runs on a session of its own in a worker).
        queries: the query file to load at once; None to wait for a path to be typed.
        other: the set to compare with (a full version); None for the active set only.
    """

    CSS_PATH = "evaluate.tcss"
    AUTO_FOCUS = "#eval-path"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", id="eval-back"),
    ]

    class EvalReady(Message):
        """The worker scored the query file."""

        def __init__(self, evaluation: Evaluation) -> None:
            super().__init__()
            self.evaluation = evaluation

    class EvalFailed(Message):
        """The worker could not evaluate (``error`` is one line for the user)."""

        def __init__(self, error: str) -> None:
            super().__init__()
            self.error = error

    def __init__(
        self, session: Session, queries: Path | str | None = None, other: str | None = None
    ) -> None:
        super().__init__(id="evaluate")
        self.session = session
        self.queries = str(queries) if queries else ""
        self.active = session.active_version()
        self.others = [s for s in session.chunk_sets() if s.version != self.active]
        known = {s.version for s in self.others}
        self.other = other if other in known else (self.others[0].version if self.others else None)
        self.evaluation: Evaluation | None = None
        """The evaluation shown (None until one finished)."""
        self.targets: dict[str, str] = {}
        """Option id → the id choosing that missed query dismisses with."""

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="eval-inputs"):
            yield Input(
                self.queries,
                placeholder="query file (TSV or JSONL): Enter to evaluate",
                id="eval-path",
            )
            options = [
                (
                    f"{s.version} · {stored_threshold_label(s.settings)} · {s.chunks:,} chunks",
                    s.version,
                )
                for s in self.others
            ]
            yield Select(
                [*options, ("active set only", NO_OTHER)],
                value=self.other or NO_OTHER,
                allow_blank=False,
                id="eval-other",
            )
        yield Static(Text("Type a query file's path and press Enter."), id="eval-summary")
        table: DataTable[str] = DataTable(id="eval-table", cursor_type="row", zebra_stripes=True)
        yield table
        yield Label("Missed queries · Enter: open the expected chunk", classes="eval-heading")
        yield OptionList(id="eval-missed")
        yield Footer()

    def on_mount(self) -> None:
        """Start at once when a query file was given. The path field blinks its cursor as the
        app's inputs do."""
        self.query_one("#eval-path", Input).cursor_blink = getattr(self.app, "cursor_blink", True)
        self.sub_title = f"Evaluation · chunk set {self.active}"
        if self.queries:
            self.run_evaluation()

    @on(Input.Submitted, "#eval-path")
    def _path_submitted(self, event: Input.Submitted) -> None:
        self.queries = event.value.strip()
        self.run_evaluation()

    @on(Select.Changed, "#eval-other")
    def _other_changed(self, event: Select.Changed) -> None:
        other = None if event.value == NO_OTHER else str(event.value)
        if other != self.other:
            self.other = other
            if self.queries:
                self.run_evaluation()

    def run_evaluation(self) -> None:
        """Evaluate :attr:`queries` on the active set (and :attr:`other`) in the background."""
        if not self.queries:
            self.notify("type a query file's path first", severity="warning", markup=False)
            return
        self.query_one("#eval-summary", Static).update(
            Text(f"Evaluating {self.queries}…", style="italic")
        )
        versions = [self.active] + ([self.other] if self.other else [])
        self._evaluate(Path(self.queries).expanduser(), versions)

    @work(thread=True, exclusive=True, group="evaluate")
    def _evaluate(self, path: Path, versions: list[str]) -> None:
        """Score the file on a connection of this thread; report by message, never touching
        widgets."""
        worker = get_current_worker()
        try:
            queries = read_queries(path)
            with self.session.reopen() as session:
                evaluation = evaluate(session, path, versions=versions, queries=queries)
        except SpecbrowserError as error:
            if not worker.is_cancelled:
                self.post_message(self.EvalFailed(str(error)))
            return
        if not worker.is_cancelled:
            self.post_message(self.EvalReady(evaluation))

    @on(EvalReady)
    def _ready(self, message: EvalReady) -> None:
        self.show_evaluation(message.evaluation)

    @on(EvalFailed)
    def _failed(self, message: EvalFailed) -> None:
        self.query_one("#eval-summary", Static).update(Text(message.error, style="bold red"))
        self.notify(message.error, title="Cannot evaluate", severity="error", markup=False)

    def show_evaluation(self, evaluation: Evaluation) -> None:
        """Show ``evaluation``: summary, metric table and the missed queries."""
        self.evaluation = evaluation
        excerpts = evaluation.runs[0].excerpts if evaluation.runs else 0
        summary = Text(f"{evaluation.query_count} queries from {Path(evaluation.path).name}")
        if excerpts:
            summary.append(f" ({excerpts} with an excerpt)")
        reasons: dict[str, list[str]] = {}
        for skipped in evaluation.skipped:  # one line per reason: "no embeddings" is common
            modes = reasons.setdefault(skipped.reason, [])
            if skipped.mode not in modes:
                modes.append(skipped.mode)
        for reason, modes in reasons.items():
            summary.append(f"\nskipped {' and '.join(modes)}: {reason}", style="dim")
        for run in evaluation.runs:
            if run.note:
                summary.append(f"\n{run.policy_version} {run.mode}: {run.note}", style="dim")
        self.query_one("#eval-summary", Static).update(summary)
        table = self.query_one("#eval-table", DataTable)
        table.clear(columns=True)
        table.add_column("metric", key="metric")
        for index, run in enumerate(evaluation.runs):
            label = f"{run.policy_version} {run.mode}"
            if run.policy_version == self.active:
                label += " ●"
            table.add_column(label, key=f"run-{index}")
        for metric, cells in metric_rows(evaluation):
            table.add_row(metric, *(Text(c, justify="right") for c in cells), key=metric)
        self._fill_missed(evaluation)

    def _fill_missed(self, evaluation: Evaluation) -> None:
        options: list[Option | None] = []
        self.targets = {}
        top = evaluation.ks[-1] if evaluation.ks else 0
        for index, run in enumerate(evaluation.runs):
            if index:
                options.append(None)
            heading = f"{run.policy_version} {run.mode} · {len(run.missed)} missed in the top {top}"
            options.append(Option(Text(heading, style="bold"), disabled=True))
            if not run.missed:
                options.append(Option(Text("  none", style="dim"), disabled=True))
            for score in run.missed:
                option_id = f"missed-{len(self.targets)}"
                self.targets[option_id] = score.query.expected[0]
                row = Text(no_wrap=True, overflow="ellipsis")
                row.append(f"line {score.query.line:>4}  ", style="dim")
                row.append(score.query.query, style="bold")
                row.append(f"  → {' '.join(score.query.expected)}")
                row.append(f"  (got {score.ranked[0] if score.ranked else 'nothing'})", style="dim")
                options.append(Option(row, id=option_id))
        missed = self.query_one("#eval-missed", OptionList)
        missed.clear_options()
        missed.add_options(options)
        missed.highlighted = next(
            (i for i, option in enumerate(missed.options) if not option.disabled), None
        )

    @on(OptionList.OptionSelected, "#eval-missed")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        target = self.targets.get(event.option_id or "")
        if target is not None:
            self.dismiss(target)

    def action_back(self) -> None:
        """Escape: back to the browser, nowhere to go."""
        self.dismiss(None)
