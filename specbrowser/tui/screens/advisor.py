"""The advisor screen: ``specbrowser advise`` on the open database, in the background.

The candidates fill a table as they finish (click a column header to sort by it; ★ marks the
recommendation, ◆ the Pareto front) and a plot of retrieval against tokens per hit, with the
Pareto front drawn as a line (textual-plotext). Enter on a candidate opens its diff against the
active set; ``a`` makes the highlighted candidate active (the screen dismisses with
``("apply", version)`` and the browser rebuilds its tree on the same chunk). Escape stops a run
(the finished candidates stay stored) or closes the screen.

The queries are the file given to ``open --queries``, else the automatic queries of
:mod:`specbrowser.session.auto_queries`. The advisor runs on its own connection in a thread
worker and reports by messages; spec text and paths are shown as ``Text``, never markup.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static
from textual.worker import get_current_worker
from textual_plotext import PlotextPlot

from specbrowser.errors import SpecbrowserError
from specbrowser.session import Session
from specbrowser.session.advise import Advice, CandidateResult, QuerySet, advise
from specbrowser.session.auto_queries import AUTOMATIC_SOURCE, automatic_queries
from specbrowser.session.query_file import read_queries

APPLY = "apply"
"""The first item of the screen's result when a candidate is to be made active."""

JUMP = "jump"
"""… when a chunk chosen in a candidate's diff is to be shown."""

COLUMNS: tuple[tuple[str, str], ...] = (
    ("rank", "#"),
    ("mark", ""),
    ("label", "candidate"),
    ("chunks", "chunks"),
    ("hit5", "hit@5"),
    ("mrr", "MRR"),
    ("tokens", "tokens/hit"),
    ("tiny", "tiny"),
    ("score", "score"),
)
"""The table's columns: (key, header)."""

_SORT_KEYS = {
    "rank": lambda r: r.rank,
    "label": lambda r: r.candidate.label,
    "chunks": lambda r: r.stats.chunks,
    "hit5": lambda r: -r.hit5,
    "mrr": lambda r: -r.mrr,
    "tokens": lambda r: r.tokens_per_hit,
    "tiny": lambda r: r.stats.tiny_chunks or 0,
    "score": lambda r: -r.score,
}
"""How a header click orders the rows (best first where a figure has a better end)."""


class AdvisorScreen(Screen[tuple[str, str] | None]):
    """Run the advisor and show its candidates.

    Args:
        session: the open database (the advisor runs on a session of its own).
        queries: the query file to score on; None for the automatic queries.
    """

    CSS_PATH = "advisor.tcss"
    AUTO_FOCUS = "#advisor-table"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Stop / Back", id="advisor-back"),
        Binding("a", "apply", "Apply", id="advisor-apply"),
        Binding("enter", "diff", "Diff", id="advisor-diff", show=True),
    ]

    class Progressed(Message):
        """One candidate finished (``line`` says which, with its figures)."""

        def __init__(self, line: str) -> None:
            super().__init__()
            self.line = line

    class Finished(Message):
        """The advisor ended (``advice`` holds every finished candidate)."""

        def __init__(self, advice: Advice) -> None:
            super().__init__()
            self.advice = advice

    class Failed(Message):
        """The advisor could not run (``error`` is one line for the user)."""

        def __init__(self, error: str) -> None:
            super().__init__()
            self.error = error

    def __init__(self, session: Session, queries: Path | str | None = None) -> None:
        super().__init__(id="advisor")
        self.session = session
        self.queries = str(queries) if queries else ""
        self.advice: Advice | None = None
        self.sort_by = "rank"
        self.running = False

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(Text("Starting the advisor…", style="italic"), id="advisor-status")
        table: DataTable[Text] = DataTable(
            id="advisor-table", cursor_type="row", zebra_stripes=True
        )
        yield table
        yield PlotextPlot(id="advisor-plot")
        yield Static(Text(""), id="advisor-why")
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = "Advisor · chunk set " + self.session.active_version()
        table = self.query_one("#advisor-table", DataTable)
        for key, header in COLUMNS:
            table.add_column(header, key=key)
        self.running = True
        self._run(Path(self.queries).expanduser() if self.queries else None)

    @work(thread=True, exclusive=True, group="advisor")
    def _run(self, path: Path | None) -> None:
        """The advisor on this thread's connection; reports by messages only."""
        worker = get_current_worker()
        try:
            from specbrowser.search.tokens import default_token_counter  # deferred: 5 ms

            with self.session.reopen() as session:
                if path is not None:
                    query_set = QuerySet(str(path), tuple(read_queries(path)))
                else:
                    made = automatic_queries(session.store, session.active_version())
                    query_set = QuerySet(AUTOMATIC_SOURCE, tuple(made))
                advice = advise(
                    session,
                    [query_set],
                    report=lambda line: (self.post_message(self.Progressed(line)), None)[1],
                    counter=default_token_counter(),
                    stop=lambda: worker.is_cancelled,
                )
        except SpecbrowserError as error:
            self.post_message(self.Failed(str(error)))
            return
        self.post_message(self.Finished(advice))

    @on(Progressed)
    def _progressed(self, message: Progressed) -> None:
        self.query_one("#advisor-status", Static).update(Text(message.line, style="italic"))

    @on(Finished)
    def _finished(self, message: Finished) -> None:
        self.running = False
        self.advice = message.advice
        queries = ", ".join(f"{len(q.queries)} from {q.name}" for q in message.advice.query_sets)
        status = f"{len(message.advice.results)} candidates · lexical · queries: {queries}"
        if message.advice.interrupted:
            status += " · stopped: the finished candidates"
        self.query_one("#advisor-status", Static).update(Text(status))
        self.query_one("#advisor-why", Static).update(Text(message.advice.why))
        self._fill_table()
        self._draw_plot()

    @on(Failed)
    def _failed(self, message: Failed) -> None:
        self.running = False
        self.query_one("#advisor-status", Static).update(Text(message.error, style="bold red"))
        self.notify(message.error, title="Cannot advise", severity="error", markup=False)

    def _fill_table(self) -> None:
        assert self.advice is not None
        table = self.query_one("#advisor-table", DataTable)
        table.clear()
        rows = sorted(self.advice.results, key=_SORT_KEYS.get(self.sort_by, _SORT_KEYS["rank"]))
        for r in rows:
            mark = self.advice.mark(r)
            if r.same_as:
                figures = [Text(f"= {r.same_as}", style="dim")] + [Text("")] * 5
            else:
                figures = [
                    Text(f"{r.stats.chunks:,}", justify="right"),
                    Text(f"{r.hit5:.3f}", justify="right"),
                    Text(f"{r.mrr:.3f}", justify="right"),
                    Text(f"{r.tokens_per_hit:,.0f}", justify="right"),
                    Text(f"{r.stats.tiny_chunks or 0:,}", justify="right"),
                    Text(f"{r.score:.3f}", justify="right"),
                ]
            table.add_row(
                Text(str(r.rank), justify="right"),
                Text(mark),
                Text(r.candidate.label),
                *figures,
                key=r.version,
            )

    def _draw_plot(self) -> None:
        assert self.advice is not None
        plot = self.query_one("#advisor-plot", PlotextPlot)
        plt = plot.plt
        plt.clear_data()
        plt.clear_figure()
        scored = [r for r in self.advice.results if r.same_as is None]
        plt.scatter([r.tokens_per_hit for r in scored], [r.retrieval for r in scored], marker="dot")
        front = sorted((r for r in scored if r.pareto), key=lambda r: r.tokens_per_hit)
        if front:
            plt.plot([r.tokens_per_hit for r in front], [r.retrieval for r in front])
        best = self.advice.recommended
        plt.scatter([best.tokens_per_hit], [best.retrieval], marker="★")
        plt.title("retrieval ((hit@5 + MRR) / 2) against tokens per hit")
        plt.xlabel("tokens per hit")
        plot.refresh()

    @on(DataTable.HeaderSelected, "#advisor-table")
    def _sort(self, event: DataTable.HeaderSelected) -> None:
        self.sort_by = str(event.column_key.value)
        if self.advice is not None:
            self._fill_table()

    def highlighted(self) -> CandidateResult | None:
        """The candidate under the table's cursor, or None."""
        if self.advice is None:
            return None
        table = self.query_one("#advisor-table", DataTable)
        if table.row_count == 0:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        return next((r for r in self.advice.results if r.version == key), None)

    def action_apply(self) -> None:
        """Make the highlighted candidate's set active and go back to the browser."""
        chosen = self.highlighted()
        if chosen is None:
            self.notify("no candidate yet", markup=False)
            return
        self.dismiss((APPLY, chosen.version))

    def action_diff(self) -> None:
        """Compare the highlighted candidate's set with the active one."""
        chosen = self.highlighted()
        if chosen is None:
            return
        active = self.session.active_version()
        if chosen.version == active:
            self.notify("that is the active set", markup=False)
            return
        from specbrowser.tui.screens.diff import DiffScreen  # deferred, as the browser does

        self.app.push_screen(DiffScreen(self.session, chosen.version, active), self._jumped)

    def _jumped(self, chunk_id: str | None) -> None:
        if chunk_id:
            self.dismiss((JUMP, chunk_id))

    def action_back(self) -> None:
        """Stop a run (its finished candidates are shown), else close the screen."""
        if self.running:
            self.workers.cancel_group(self, "advisor")
            self.query_one("#advisor-status", Static).update(
                Text("stopping after the candidate being scored…", style="italic")
            )
            return
        self.dismiss(None)
