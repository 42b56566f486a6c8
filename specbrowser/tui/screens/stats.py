"""The statistics screen: how a chunk set is cut, at a glance, and a way into its problem chunks.

Left, charts: the chunk-size histogram with the threshold drawn between the bins under and over
it, the quality figures (tiny and mostly-marker chunks, marker shares, sizes without markers),
then the counts by depth, breakdown tag, layer, overrun reason and TOC mismatch kind, then
what the embeddings cover. Right, one list of the chunks worth a look: the overruns, the largest
chunks, the embedding-truncated chunks, the mismatched sections, the tiny chunks and the
mostly-marker chunks. Enter on one dismisses the
screen with its chunk id (the browser then goes to it); Escape dismisses with None.

The charts are plain Rich text (:class:`~specbrowser.tui.widgets.bar_chart.BarChart`):
horizontal block-character bars, a labelled row per bin, exact to 1/8 cell, with the threshold
as a captioned rule and the bins over it in the error colour.

The report is computed by :func:`specbrowser.session.report.build_report` (pure core) when the
screen mounts, on the app's connection, without a worker (it is quick enough on ECMA-262 not
to need one).
Spec text (ids, titles, tags) is shown as ``Text``, never parsed as markup.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar, TypeVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Header, Label, OptionList, Static
from textual.widgets.option_list import Option

from specbrowser.chunking.stats import MOSTLY_MARKERS_SHARE, TINY_CHARS, ChunkSetStats
from specbrowser.errors import SpecbrowserError
from specbrowser.session import Session
from specbrowser.session.report import ChunkEntry, HistogramBin, StatsReport
from specbrowser.tui.widgets.bar_chart import BarChart, BarRow

LIST_LIMIT = 200
"""Entries per list at most (a set with thousands of overruns stays quick to show); a last
line says how many more there are."""

SIZE_WIDTH = 7
"""Columns of the size in a list row: up to 999,999 characters."""

ID_INDENT = SIZE_WIDTH + 2
"""Where the lines of an id folded over more than one line start: under the detail column."""

MIN_ID_WIDTH = 12
"""Cells of an id a list row's first line keeps at least: with less room after the size and
the detail, the id starts on the next line."""


def fold_id(chunk_id: str, first: int, rest: int) -> list[str]:
    """``chunk_id`` in pieces of at most ``first`` cells, then ``rest`` cells each, broken
    after a hyphen where one falls in the piece (else within a word): every character kept,
    in order, so ids that differ anywhere still differ on screen.

    ``fold_id("sec-properties-of-the-date-prototype-object", 15, 29)
    == ["sec-properties-", "of-the-date-prototype-object"]``.
    """
    pieces: list[str] = []
    rest_of_id = chunk_id
    room = max(1, first)
    while len(rest_of_id) > room:
        cut = rest_of_id.rfind("-", 0, room) + 1 or room
        pieces.append(rest_of_id[:cut])
        rest_of_id = rest_of_id[cut:]
        room = max(1, rest)
    pieces.append(rest_of_id)
    return pieces


def histogram_rows(bins: list[HistogramBin], rule: str) -> list[BarRow]:
    """The histogram as bar rows, ``rule`` (``threshold 5,000 chars``) as a rule between the
    last bin under the split and the first over it (after the last bin when nothing is over)."""
    rows = [BarRow(b.label, b.count, alert=b.over) for b in bins if not b.over]
    rows.append(BarRow(rule, rule=True))
    rows.extend(BarRow(b.label, b.count, alert=True) for b in bins if b.over)
    return rows


def token_rule(report: StatsReport) -> str:
    """The token histogram's rule: the set's threshold in tokens, else the model's window."""
    if report.unit == "tokens":
        return f"threshold {report.token_split:,} tokens"
    known = report.token_window is not None
    return f"{'window' if known else 'window (assumed)'} {report.token_split:,} tokens"


def quality_rows(stats: ChunkSetStats) -> list[BarRow]:
    """Bar rows for the tiny and the mostly-marker chunks; [] when the stats did not count
    them."""
    if stats.tiny_chunks is None or stats.mostly_marker_chunks is None:
        return []
    return [
        BarRow(f"tiny (< {TINY_CHARS} own chars)", stats.tiny_chunks, alert=True),
        BarRow("grown from their breakdown", stats.grown_chunks or 0, alert=True),
        BarRow(
            f"mostly markers (≥ {MOSTLY_MARKERS_SHARE:.0%})", stats.mostly_marker_chunks, alert=True
        ),
    ]


def marker_lines(stats: ChunkSetStats) -> str:
    """The marker shares of all chunk characters, then the sizes without markers."""
    breakdown, child = stats.breakdown_marker_share, stats.section_marker_share
    bare = stats.sizes_without_markers
    if breakdown is None or child is None or bare is None:
        return "markers: not counted"
    return (
        f"markers: breakdown {breakdown:.1%}, child sections {child:.1%} "
        f"of {stats.total_chars or 0:,} chars\n"
        f"sizes without markers: min {bare.min:,}, median {bare.median:,}, "
        f"p90 {bare.p90:,}, max {bare.max:,}"
    )


_Key = TypeVar("_Key", bound=str | int)


def count_rows(
    counts: Mapping[_Key, int], *, alert: bool = False, prefix: str = ""
) -> list[BarRow]:
    """One bar row per key of ``counts`` (in its order)."""
    return [BarRow(f"{prefix}{key}", int(value), alert=alert) for key, value in counts.items()]


def entry_prompt(entry: ChunkEntry, detail_width: int = 0, width: int = 0) -> Text:
    """A list row: size, what is wrong (reason, kind, tokens; padded to ``detail_width`` so the
    ids line up), chunk id and title, all literal. With ``width`` (cells, 0: any), an id too
    long for the row folds onto further lines (:func:`fold_id`, from :data:`ID_INDENT`), whole:
    ids that differ only in their middle stay apart. The title follows the id and ends in an
    ellipsis."""
    row = Text(no_wrap=True, overflow="ellipsis")
    row.append(f"{entry.size:,}".rjust(SIZE_WIDTH), style="bold")
    row.append("  ")
    if entry.detail or detail_width:
        row.append(entry.detail.ljust(detail_width), style="yellow")
        row.append("  ")
    chunk_id = entry.chunk_id
    pieces = [chunk_id]
    if width and len(row) + len(chunk_id) > width:
        beside = width - len(row)  # the room left on the first line
        if beside < MIN_ID_WIDTH:  # too little: the id starts on the next line
            row.rstrip()
            pieces = ["", *fold_id(chunk_id, width - ID_INDENT, width - ID_INDENT)]
        else:
            pieces = fold_id(chunk_id, beside, width - ID_INDENT)
    row.append(pieces[0], style="bold")
    for piece in pieces[1:]:
        row.append("\n" + " " * ID_INDENT)
        row.append(piece, style="bold")
    if entry.title and entry.title != entry.chunk_id:
        row.append("  ")
        row.append(entry.title, style="italic dim")
    return row


class StatsScreen(Screen[str | None]):
    """Statistics of one chunk set; dismissed with a chunk id to go to, or None.

    Args:
        db: the open database (read through :mod:`specbrowser.session.report`).
        policy_version: the chunk set (a version or unique prefix); None for the active one.
        threshold: the threshold to draw (characters); None for the set's own.
    """

    CSS_PATH = "stats.tcss"
    AUTO_FOCUS = "#stats-chunks"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", id="stats-back"),
    ]

    def __init__(
        self,
        session: Session,
        policy_version: str | None = None,
        threshold: int | None = None,
    ) -> None:
        super().__init__(id="stats")
        self.session = session
        self.policy_version = policy_version
        self.threshold = threshold
        self.report: StatsReport | None = None
        """The report shown (None until mounted, or when it could not be built)."""
        self.targets: dict[str, str] = {}
        """Option id → the chunk id that choosing it dismisses with."""
        self._list_width = -1
        """The list's width (cells) when it was last filled: ids are folded to it."""

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("", id="stats-summary", markup=False)
        with Horizontal(id="stats-panes"):
            with VerticalScroll(id="stats-charts"):
                yield Label("Chunk sizes (characters)", classes="stats-heading")
                yield BarChart(id="stats-histogram")
                yield Label("Chunk sizes (tokens of the retrieval text)", classes="stats-heading")
                yield BarChart(id="stats-token-histogram")
                yield Label("Quality", classes="stats-heading")
                yield BarChart(id="stats-quality")
                yield Static("", id="stats-markers", markup=False)
                for chart_id, heading in (
                    ("stats-depth", "Chunks by depth"),
                    ("stats-tags", "Chunks by breakdown tag"),
                    ("stats-layers", "Chunks by layer"),
                    ("stats-overruns", "Over the threshold, by reason"),
                    ("stats-mismatches", "TOC mismatches, by kind"),
                ):
                    yield Label(heading, classes="stats-heading")
                    yield BarChart(id=chart_id)
                yield Label("Embeddings", classes="stats-heading")
                yield Static("", id="stats-embeddings", markup=False)
            with Vertical(id="stats-lists"):
                yield Label("Chunks to look at · Enter: go to it", classes="stats-heading")
                yield OptionList(id="stats-chunks")
        yield Footer()

    def on_mount(self) -> None:
        """Build the report and fill the charts and the list (an error becomes a notification)."""
        try:
            report = self.session.report(self.policy_version, self.threshold)
        except SpecbrowserError as error:
            self.notify(str(error), title="No statistics", severity="error", markup=False)
            self.query_one("#stats-summary", Static).update(f"No statistics: {error}")
            return
        self.show_report(report)
        self.call_after_refresh(self._refit_list)

    def show_report(self, report: StatsReport) -> None:
        """Show ``report``: summary line, charts, embedding line and the chunk list."""
        self.report = report
        stats = report.stats
        sizes = stats.sizes
        threshold_text = (
            f"{report.token_split:,} tokens"
            if report.unit == "tokens" and report.token_split
            else f"{report.threshold:,} {report.unit}"
        )
        chars_rule = (
            f"threshold {report.threshold:,} chars"
            if report.unit == "chars"
            else f"reference {report.threshold:,} chars"
        )
        self.sub_title = f"Statistics · chunk set {report.policy_version}"
        self.query_one("#stats-summary", Static).update(
            f"Chunk set {report.policy_version} · threshold {threshold_text} · "
            f"{stats.chunks:,} chunks in {stats.sections:,} sections · sizes median "
            f"{sizes.median:,}, p90 {sizes.p90:,}, max {sizes.max:,} · "
            f"unresolved markers {stats.unresolved_markers}"
        )
        charts = {
            "stats-histogram": histogram_rows(report.histogram, chars_rule),
            "stats-token-histogram": (
                histogram_rows(report.token_histogram, token_rule(report))
                if report.token_histogram
                else []
            ),
            "stats-quality": quality_rows(stats),
            "stats-depth": count_rows(stats.by_depth, prefix="depth "),
            "stats-tags": count_rows(stats.by_tag),
            "stats-layers": count_rows(stats.by_layer),
            "stats-overruns": count_rows(stats.over_threshold, alert=True),
            "stats-mismatches": count_rows(report.mismatch_counts, alert=True),
        }
        for chart_id, rows in charts.items():
            self.query_one(f"#{chart_id}", BarChart).rows = tuple(rows)
        self.query_one("#stats-overruns", BarChart).empty = "none"
        self.query_one("#stats-mismatches", BarChart).empty = (
            "none: every heading path agrees with the TOC"
            if report.toc_entries
            else "no table of contents: heading paths are the parser's"
        )
        self.query_one("#stats-quality", BarChart).empty = "not counted"
        self.query_one(
            "#stats-token-histogram", BarChart
        ).empty = "not counted yet (the app counts in the background; specbrowser embed counts too)"
        self.query_one("#stats-markers", Static).update(marker_lines(stats))
        self.query_one("#stats-embeddings", Static).update(_embedding_line(report))
        self._fill_list(report)

    def _fill_list(self, report: StatsReport) -> None:
        groups: list[tuple[str, list[ChunkEntry], str]] = [
            (
                f"Over the threshold · {len(report.overruns):,}",
                report.overruns,
                "none: every chunk fits",
            ),
            (f"Largest chunks · top {len(report.largest)}", report.largest, "no chunks"),
            (
                f"Embedding truncated · {len(report.truncated):,}",
                report.truncated,
                "none" if report.embedding_model else "not embedded",
            ),
            (
                f"Mismatched sections · {len(report.mismatched):,}",
                report.mismatched,
                "none" if report.toc_entries else "no table of contents",
            ),
        ]
        groups += [
            (
                f"Tiny chunks · {len(report.tiny):,} (under {TINY_CHARS} chars without markers)",
                report.tiny,
                "none",
            ),
            (
                f"Mostly markers · {len(report.marker_heavy):,}",
                report.marker_heavy,
                "none",
            ),
        ]
        if report.embedding_model is None and report.token_model is not None:
            heading = f"Over the model's window (not embedded yet) · {len(report.over_window):,}"
            groups.insert(3, (heading, report.over_window, "none"))
        chunk_list = self.query_one("#stats-chunks", OptionList)
        row_width = max(0, chunk_list.scrollable_content_region.width - 2)  # 0 before layout
        self._list_width = chunk_list.scrollable_content_region.width
        options: list[Option | None] = []
        self.targets = {}
        for index, (heading, entries, empty) in enumerate(groups):
            if index:
                options.append(None)
            options.append(Option(Text(heading, style="bold"), disabled=True))
            if not entries:
                options.append(Option(Text(f"  {empty}", style="dim"), disabled=True))
            detail_width = max((len(entry.detail) for entry in entries[:LIST_LIMIT]), default=0)
            for entry in entries[:LIST_LIMIT]:
                option_id = f"chunk-{len(self.targets)}"
                self.targets[option_id] = entry.chunk_id
                options.append(Option(entry_prompt(entry, detail_width, row_width), id=option_id))
            if len(entries) > LIST_LIMIT:
                options.append(
                    Option(
                        Text(f"  … and {len(entries) - LIST_LIMIT:,} more", style="dim"),
                        disabled=True,
                    )
                )
        chunk_list.clear_options()
        chunk_list.add_options(options)
        first = next(
            (i for i, option in enumerate(chunk_list.options) if not option.disabled), None
        )
        chunk_list.highlighted = first

    def on_resize(self) -> None:
        """Fold the list's ids to its new width once it is laid out."""
        self.call_after_refresh(self._refit_list)

    def _refit_list(self) -> None:
        """Fill the list again when its width changed since it was filled (ids folded to it)."""
        report = self.report
        chunk_list = self.query_one("#stats-chunks", OptionList)
        if report is None or chunk_list.scrollable_content_region.width == self._list_width:
            return
        highlighted = chunk_list.highlighted
        self._fill_list(report)
        if highlighted is not None and highlighted < chunk_list.option_count:
            chunk_list.highlighted = highlighted

    @on(OptionList.OptionSelected, "#stats-chunks")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        chunk_id = self.targets.get(event.option_id or "")
        if chunk_id is not None:
            self.dismiss(chunk_id)

    def action_back(self) -> None:
        """Escape: back to the browser, nowhere to go."""
        self.dismiss(None)


def _embedding_line(report: StatsReport) -> str:
    """What the embeddings cover, then what the token counts say (when anything was counted)."""
    done, total = report.embedded
    if report.embedding_model is None:
        line = "not embedded (run: specbrowser embed DB)"
    else:
        line = (
            f"{report.embedding_model}: {done:,} of {total:,} chunks embedded; "
            f"{len(report.truncated):,} truncated (text cut by the tokenizer)"
        )
    if report.token_model is not None:
        window = (
            f"{report.token_window:,}-token window" if report.token_window else "window unknown"
        )
        line += (
            f"\ntokens counted for {report.tokens_counted:,} of {total:,} chunks "
            f"({report.token_model}, {window}): {len(report.over_window):,} over it"
        )
    return line
