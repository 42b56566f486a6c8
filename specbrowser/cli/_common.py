"""What every command shares: the consoles, exit statuses, policy options and the summary table."""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from specbrowser.chunking.policy import (
    DEFAULT_MAX_DEPTH,
    DEFAULT_MIN_CHARS,
    DEFAULT_STRATEGY,
    DEFAULT_THRESHOLD_CHARS,
    ChunkPolicy,
    PolicyForKind,
)
from specbrowser.process import (  # noqa: F401 - re-exported
    EXIT_INTERRUPTED,
    EXIT_USER_ERROR,
    INTERRUPTED,
    keep_until_exit,
)
from specbrowser.types import BREAKDOWN_STRATEGIES, EDIT_MODES, SIZE_UNITS, IngestOutcome

if TYPE_CHECKING:
    from specbrowser.chunking.stats import ChunkSetStats


PIPED_WIDTH = 160
"""Line width when a stream is not a terminal (a pipe, a file) and ``COLUMNS`` is unset: Rich
would take 80, which cut ids and sizes in table cells (``subsections DB ID | less``)."""


_PADDED_LINE_END = re.compile(r" +(?=\n)")


class _Console(Console):
    """A Rich console whose broken pipe (``… | head``) reaches :func:`specbrowser.cli.main`,
    which ends quietly with exit status 141 like Unix tools; Rich's own handling exits with 1.

    Written to a file or a pipe, its lines end without the spaces Rich pads table titles,
    cells and captions with to the table's width: invisible on a terminal, noise in a file
    or a diff."""

    def on_broken_pipe(self) -> None:
        self.quiet = True
        raise BrokenPipeError

    def _render_buffer(self, buffer) -> str:  # Rich's hook from segments to the text written
        text = super()._render_buffer(buffer)
        return text if self.is_terminal else _PADDED_LINE_END.sub("", text)


def _console(stream, **options) -> Console:
    piped = not stream.isatty() and "COLUMNS" not in os.environ
    return _Console(highlight=False, width=PIPED_WIDTH if piped else None, **options)


out = _console(sys.stdout)
err = _console(sys.stderr, stderr=True)


@contextmanager
def stage_progress(
    first_stage: str, console: Console | None = None
) -> Iterator[Callable[[str, int, int], None]]:
    """A transient progress bar on ``console`` (default stderr; off when it is not a terminal)
    for the stages of an ingest or a re-chunk; yields their ``progress(stage, done, total)``.

    A counted stage shows "chunking sections 405/2,253" (sections done, of all). A stage with
    ``total`` 0 (parsing, loading, storing: not counted) shows its name and a pulsing bar, not
    a ``0/1`` that would read as "nothing done" for the whole stage.
    """
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    console = console or err
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.fields[count]}"),
        TimeElapsedColumn(),
        console=console,
        transient=True,
        disable=not console.is_terminal,
    ) as bar:
        task = bar.add_task(first_stage, total=None, count="")

        def progress(stage: str, done: int, total: int) -> None:
            if total:
                bar.update(
                    task,
                    description=f"{stage} sections",
                    completed=done,
                    total=total,
                    count=f"{done:,}/{total:,}",
                )
            else:
                bar.update(task, description=stage, completed=0, total=None, count="")

        yield progress


MAX_WHOLE = 1_000_000_000
"""The largest number an option takes (a threshold, a limit, a cut-off): far beyond any spec,
and well inside SQLite's integers."""


def at_least(minimum: int):
    """An argparse ``type`` for a whole number from ``minimum`` to :data:`MAX_WHOLE`: anything
    else is a usage error (one line, exit status 2)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, got {value}")
        if value > MAX_WHOLE:
            raise argparse.ArgumentTypeError(f"must be at most {MAX_WHOLE:,}, got {value}")
        return value

    parse.__name__ = f"number >= {minimum}"
    return parse


def add_policy_options(p: argparse.ArgumentParser) -> None:
    """``--threshold N`` (in ``--unit`` chars or tokens), ``--tags A,B,C`` (breakdown tags in
    order), ``--max-depth N``, ``--strategy guarded|seed``, ``--min-chars N``,
    ``--edits current|marked``."""
    p.add_argument(
        "--threshold",
        type=at_least(1),
        default=DEFAULT_THRESHOLD_CHARS,
        metavar="N",
        help=f"break down chunks longer than N (--unit; default {DEFAULT_THRESHOLD_CHARS} chars)",
    )
    p.add_argument(
        "--unit",
        choices=SIZE_UNITS,
        default=SIZE_UNITS[0],
        help="what --threshold counts: characters of a chunk's Markdown, or tokens of its "
        "retrieval text by the embedding model's tokenizer (the window it embeds; "
        "default chars)",
    )
    tags = p.add_argument(
        "--tags",
        default=None,
        metavar="A,B,C",
        help="breakdown tags in order: element names or CSS selectors (default %(format_tags)s)",
    )
    tags.format_tags = _FormatTags()  # type: ignore[attr-defined]
    p.add_argument(
        "--max-depth",
        type=at_least(0),
        default=DEFAULT_MAX_DEPTH,
        metavar="N",
        help=f"deepest subsection level (default {DEFAULT_MAX_DEPTH})",
    )
    p.add_argument(
        "--strategy",
        choices=BREAKDOWN_STRATEGIES,
        default=DEFAULT_STRATEGY,
        help="guarded: pack runs, keep rule units, no chunk under --min-chars or growing "
        "from its breakdown; seed: every element of a tag on its own "
        f"(default {DEFAULT_STRATEGY})",
    )
    p.add_argument(
        "--min-chars",
        type=at_least(0),
        default=DEFAULT_MIN_CHARS,
        metavar="N",
        help=f"guarded strategy: no chunk shorter than N characters (default {DEFAULT_MIN_CHARS})",
    )
    p.add_argument(
        "--edits",
        choices=EDIT_MODES,
        default=EDIT_MODES[0],
        help="a proposal's <del>/<ins>: current drops deleted text, marked keeps both as "
        f"~~deleted~~ and ++inserted++ (default {EDIT_MODES[0]})",
    )


def unused_tags(policy: ChunkPolicy, stats: ChunkSetStats) -> list[str]:
    """The breakdown tags that extracted nothing although some chunk stayed over the
    threshold after every tag was tried on it (``unsplittable``, ``markers``): a typo such as
    ``emu_table``, or a tag the spec does not use. [] when nothing was left unsplittable (with
    max depth 0, say, no tag was tried at all), and for a format's own default tags (a spec
    that has no ``li`` to break down is no mistake of the user's)."""
    from specbrowser.formats import FORMATS

    if not any(stats.over_threshold.get(reason) for reason in ("unsplittable", "markers")):
        return []
    tags = tuple(policy.breakdown_tags)
    if any(tags in (tuple(f.breakdown_tags), tuple(f.seed_breakdown_tags)) for f in FORMATS):
        return []
    return [tag for tag in tags if tag not in stats.by_tag]


class _FormatTags:
    """The ``--tags`` help's defaults, per spec format (``emu-table,…; for plain HTML specs
    table,…``): formatted only when help is shown, so that building the parser does not import
    the formats (and lxml)."""

    def __str__(self) -> str:
        from specbrowser.formats import DEFAULT_FORMAT, FORMATS

        parts = [",".join(DEFAULT_FORMAT.breakdown_tags)]
        parts += [
            f"for {f.title} specs {','.join(f.breakdown_tags)}"
            for f in FORMATS
            if f is not DEFAULT_FORMAT
        ]
        return "; ".join(parts)


def policy_from_args(args: argparse.Namespace) -> ChunkPolicy:
    """The policy the policy options give, for a spec of no known kind yet (the default
    format's tags for the strategy when ``--tags`` is not given)."""
    return _policy(args, None, args.tags)


def policy_for_kind_from_args(args: argparse.Namespace) -> PolicyForKind | None:
    """None when the user typed ``--tags`` (their order wins for every kind of spec); else the
    hook that gives the parsed spec's kind its format's default tags
    (:func:`specbrowser.formats.policy_for`)."""
    if args.tags is not None:
        return None
    return lambda kind: _policy(args, kind, None)


def _policy(args: argparse.Namespace, kind: str | None, tags: str | None) -> ChunkPolicy:
    """:func:`specbrowser.formats.policy_for` with the options' settings.

    Raises:
        PolicyError: as :meth:`ChunkPolicy.from_tag_list`.
    """
    from specbrowser.formats import policy_for

    return policy_for(
        kind,
        args.threshold,
        tags,
        args.max_depth,
        strategy=args.strategy,
        min_chars=args.min_chars,
        unit=args.unit,
        edits=args.edits,
    )


def outcome_line(
    outcome: IngestOutcome, chunk_sets: int, sizes: tuple[int, int] | None = None
) -> str:
    """What the ingest did to the database, for the summary's ``chunk sets`` row; ``sizes``
    (bytes of the file before and after) tell a replaced spec's compaction."""
    done: dict[IngestOutcome, str] = {
        "created": "new database",
        "added": "added beside the other policies' sets",
        "replaced_set": "replaced this policy's set",
        "replaced_spec": "another spec: old sets dropped",
    }
    line = f"{done.get(outcome, outcome)}; {chunk_sets} in the database, this one active"
    if outcome == "replaced_spec" and sizes is not None:
        line += f"; file compacted: {sizes[0] / 1e6:,.1f} MB → {sizes[1] / 1e6:,.1f} MB"
    return line


def print_summary(
    title: str,
    db: Path,
    policy: ChunkPolicy,
    stats: ChunkSetStats,
    timings: dict[str, float],
    outcome: str = "",
    *,
    extra_rows: Sequence[tuple[str, str]] = (),
) -> None:
    """Print a chunk set's statistics (:func:`specbrowser.session.stores.chunk_stats`) as a
    two-column Rich table; ``extra_rows`` (name, Rich markup) come after the counts, before
    unused tags and timings."""
    table = Table(
        title=f"{escape(title)} → {escape(str(db))}", show_header=False, title_justify="left"
    )
    table.add_column(style="bold", no_wrap=True)
    table.add_column(overflow="fold")
    sizes = stats.sizes
    overruns = stats.over_threshold
    largest = stats.largest
    rows = [
        ("policy", f"{escape(policy.describe())} (version {policy.version})"),
        *([("chunk sets", escape(outcome))] if outcome else []),
        ("sections", f"{stats.sections:,}"),
        (
            "chunks",
            f"{stats.chunks:,}  by depth "
            + ", ".join(f"{k}: {v:,}" for k, v in stats.by_depth.items()),
        ),
        ("by layer", ", ".join(f"{escape(k)}: {v:,}" for k, v in stats.by_layer.items()) or "-"),
        ("by tag", ", ".join(f"{escape(k)}: {v:,}" for k, v in stats.by_tag.items()) or "-"),
        (
            "sizes (chars)",
            f"median {sizes.median:,}, p90 {sizes.p90:,}, max {sizes.max:,}",
        ),
        *quality_rows(stats),
        (
            "largest chunk",
            escape(f"{largest.id} ({largest.size:,} chars)") if largest else "-",
        ),
        ("over threshold", ", ".join(f"{k}: {v:,}" for k, v in overruns.items()) or "none"),
        ("unresolved markers", str(stats.unresolved_markers)),
        (
            "TOC mismatches",
            ", ".join(f"{k}: {v:,}" for k, v in stats.heading_mismatches.items()) or "none",
        ),
        *extra_rows,
    ]
    unused = unused_tags(policy, stats)
    if unused:
        rows.append(("unused tags", escape(", ".join(unused)) + " (extracted nothing)"))
    if timings:
        rows.append(("time", ", ".join(f"{k} {v:.2f} s" for k, v in timings.items())))
    for name, value in rows:
        style = "yellow" if name == "over threshold" and overruns else ""
        table.add_row(name, f"[{style}]{value}[/]" if style else value)
    out.print(table)


def percent(share: float) -> str:
    """A share as a percentage with one decimal: ``0.0471`` → ``"4.7%"``."""
    return f"{share:.1%}"


def quality_rows(stats: ChunkSetStats) -> list[tuple[str, str]]:
    """The summary's rows for the quality figures (sizes without markers, tiny chunks, marker
    shares, mostly-marker chunks); "not counted" for statistics stored before them."""
    from specbrowser.chunking.stats import MOSTLY_MARKERS_SHARE, TINY_CHARS

    bare = stats.sizes_without_markers
    tiny = stats.tiny_chunks
    breakdown, child = stats.breakdown_marker_share, stats.section_marker_share
    mostly = stats.mostly_marker_chunks
    if bare is None or tiny is None or breakdown is None or child is None or mostly is None:
        return [("quality", "not counted in the stored statistics (specbrowser stats counts them)")]
    made = sum(count for depth, count in stats.by_depth.items() if depth > 0)
    of_chunks = f" of the {made:,} chunks" if made else ""
    return [
        (
            "without markers",
            f"min {bare.min:,}, median {bare.median:,}, p90 {bare.p90:,}, max {bare.max:,}",
        ),
        (
            "tiny chunks",
            f"{tiny:,}{of_chunks} the breakdown made (under {TINY_CHARS:,} chars without markers)"
            if made
            else "none: the breakdown made no chunk",
        ),
        (
            "marker share",
            f"breakdown {percent(breakdown)}, child sections {percent(child)} "
            f"of {stats.total_chars or 0:,} chars",
        ),
        (
            "mostly markers",
            f"{mostly:,} chunks (markers ≥ {MOSTLY_MARKERS_SHARE:.0%} of their chars)",
        ),
        (
            "grown",
            "not counted"
            if stats.grown_chunks is None
            else f"{stats.grown_chunks:,} chunks longer than before their own breakdown",
        ),
    ]


def tokens_row(tokens: dict[str, Any] | None) -> tuple[str, str]:
    """The summary's ``tokens`` row for :func:`specbrowser.search.tokens.token_summary`'s
    dict, or for None (nothing counted yet)."""
    if not tokens:
        return ("tokens", "not counted (stats --count-tokens or specbrowser embed counts them)")
    window = (
        f"over the {tokens['window']}-token window: {tokens['over_window']:,}"
        if tokens["window"]
        else "window unknown"
    )
    counted = f"{tokens['counted']:,} of {tokens['chunks']:,} counted, {escape(tokens['model'])}"
    sizes = f"median {tokens['median']:,}, p90 {tokens.get('p90', 0):,}, max {tokens['max']:,}"
    return ("tokens", f"{sizes}; {window} ({counted})")
