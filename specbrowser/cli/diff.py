"""``specbrowser diff``: compare two chunk sets of a database (what a policy change did).

:func:`print_diff_summary` is also what ``specbrowser rechunk`` prints after a re-chunk.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable
from typing import TYPE_CHECKING

from rich import box
from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text

from specbrowser.cli._console import out
from specbrowser.cli._options import add_db_argument, at_least
from specbrowser.cli._summary import percent
from specbrowser.errors import PolicyError

if TYPE_CHECKING:
    from specbrowser.session.diff import Change, ChunkSetDiff, DiffSummary, SectionDiff

# Deferred to the functions that use them, so that `--help` (which builds every command's parser)
# and a bad argument come without them: Session and specbrowser.session.diff (the session and store
# modules, 55–70 ms).

DEFAULT_LIMIT = 20
"""Changed sections listed without ``--limit``/``--all``: a screenful, the largest changes."""


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``diff`` to the subcommands."""
    p = sub.add_parser("diff", help="compare two chunk sets (policy versions) of a database")
    add_db_argument(p)
    p.add_argument(
        "version_a", metavar="VERSION_A", help="policy version (or a unique prefix) of set A"
    )
    p.add_argument(
        "version_b", metavar="VERSION_B", help="policy version (or a unique prefix) of set B"
    )
    p.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object (the same sections as the tables)",
    )
    shown = p.add_mutually_exclusive_group()
    shown.add_argument(
        "--limit",
        type=at_least(0),
        default=DEFAULT_LIMIT,
        metavar="N",
        help=f"list the N most changed sections (default {DEFAULT_LIMIT})",
    )
    shown.add_argument("--all", action="store_true", help="list every changed section")
    p.set_defaults(handler=cmd_diff)


def cmd_diff(args: argparse.Namespace) -> int:
    # deferred: see the module's imports
    from specbrowser.session import Session

    if args.limit < 0:
        raise PolicyError(f"--limit must be 0 or more, not {args.limit}")
    with Session.open(args.db) as session:
        diff = session.diff(args.version_a, args.version_b)
    if args.json:  # the same sections as the tables: most changed first, --limit or --all
        print(diff.to_json(limit=None if args.all else args.limit, ranked=True))
        return 0
    print_diff_summary(diff)
    limit = None if args.all else args.limit
    if not diff.sections:  # an empty table would only repeat its legend
        out.print(Text("changed sections: none"), highlight=False)
    elif limit != 0:
        out.print(section_table(diff, limit))
    return 0


def _arrow(change: Change[int]) -> str:
    """``before → after`` with thousands separators, or the one value when it did not change."""
    if not change.changed:
        return f"{change.before:,}"
    return f"{change.before:,} → {change.after:,}"


def _delta(change: Change[int]) -> Text:
    """The signed difference, green when it went down and red when up (less is better for
    overruns and sizes; the caller passes no style for neutral counts)."""
    delta = change.after - change.before
    if not delta:
        return Text("")
    return Text(f"{delta:+,}", style="red" if delta > 0 else "green")


def print_diff_summary(diff: ChunkSetDiff, console: Console | None = None) -> None:
    """Print the totals of a diff: the two policies, then a table of set A against set B (chunk
    counts, overruns by reason, the largest chunk's size in characters, the quality figures:
    tiny chunks, mostly-marker chunks, marker shares, median size without markers; embedding
    truncation), then the sections changed, the chunks added / removed / changed and the
    largest chunks' ids. Spec text (chunk ids, policies) is printed literally, never as markup.

    ``console`` defaults to the CLI's stdout console.
    """
    console = console or out
    summary = diff.summary
    for side, version, policy in (
        ("A", diff.version_a, diff.policy_a),
        ("B", diff.version_b, diff.policy_b),
    ):
        line = Text.assemble((f"{side} ", "bold"), (version, "bold"), "  ", policy)
        console.print(line, soft_wrap=True, highlight=False)
    table = Table(box=box.SIMPLE_HEAD, padding=(0, 1, 0, 0))
    table.add_column("", style="bold", no_wrap=True)
    table.add_column("A", justify="right", no_wrap=True)
    table.add_column("B", justify="right", no_wrap=True)
    table.add_column("change", justify="right", no_wrap=True)
    table.add_row(
        "chunks",
        f"{summary.chunks.before:,}",
        f"{summary.chunks.after:,}",
        Text(f"{summary.chunks.after - summary.chunks.before:+,}"),
    )
    # deferred: see the module's imports
    from specbrowser.session.diff import Change

    overruns: Iterable[tuple[str, Change[int]]] = summary.overruns.items() or [
        ("(none)", Change(0, 0))
    ]
    for reason, change in overruns:
        table.add_row(
            Text(f"over threshold: {reason}"),
            f"{change.before:,}",
            f"{change.after:,}",
            _delta(change),
        )
    sizes = Change(
        *(value[1] if value else 0 for value in (summary.largest.before, summary.largest.after))
    )
    table.add_row("largest chunk (chars)", f"{sizes.before:,}", f"{sizes.after:,}", _delta(sizes))
    _quality_rows(table, summary)
    if summary.truncated is None or summary.embedded is None:
        table.add_row("embedding-truncated", "-", "-", "")
    else:
        table.add_row(
            "embedded",
            f"{summary.embedded.before:,}",
            f"{summary.embedded.after:,}",
            Text(f"{summary.embedded.after - summary.embedded.before:+,}"),
        )
        table.add_row(
            "embedding-truncated",
            f"{summary.truncated.before:,}",
            f"{summary.truncated.after:,}",
            _delta(summary.truncated),
        )
    console.print(table)
    sections = summary.sections_changed + summary.sections_unchanged
    notes = [
        f"sections changed: {summary.sections_changed:,} of {sections:,}",
        f"chunks added {summary.added:,}, removed {summary.removed:,}, changed {summary.changed:,}"
        + (
            f", reflagged {summary.reflagged:,} (same text, another overrun reason)"
            if summary.reflagged
            else ""
        ),
        *(
            f"largest chunk in {side}: {value[0]}"
            for side, value in (("A", summary.largest.before), ("B", summary.largest.after))
            if value
        ),
        (
            "embeddings: none in the database"
            if summary.embedding_model is None
            else f"embeddings: {summary.embedding_model} "
            "(only embedded chunks can count as truncated)"
        ),
    ]
    for note in notes:
        console.print(Text(note), soft_wrap=True, highlight=False)
    if diff.by_spec:
        console.print(spec_table(diff))


def spec_table(diff: ChunkSetDiff) -> Table:
    """In a corpus, one row per spec: its chunks and overruns A → B, its sections changed and
    its chunks added, removed, changed and reflagged."""
    table = Table(title="By spec", title_justify="left", box=box.SIMPLE_HEAD)
    table.add_column("spec", no_wrap=True)
    for head in ("chunks", "overruns", "sections changed", "added", "removed", "changed"):
        table.add_column(head, justify="right", no_wrap=True)
    for spec in diff.by_spec:
        table.add_row(
            Text(spec.spec),
            _arrow(spec.chunks),
            _arrow(spec.overruns),
            f"{spec.sections_changed:,}",
            f"{spec.added:,}",
            f"{spec.removed:,}",
            f"{spec.changed + spec.reflagged:,}",
        )
    return table


def _quality_rows(table: Table, summary: DiffSummary) -> None:
    """The quality figures A → B: tiny, grown and mostly-marker chunks (fewer is better), the marker
    shares in percent (the change in percentage points; less is better) and the median size
    without markers (neutral)."""
    for name, change in (
        ("tiny chunks", summary.tiny_chunks),
        ("grown chunks", summary.grown_chunks),
        ("mostly markers", summary.mostly_marker_chunks),
    ):
        table.add_row(name, f"{change.before:,}", f"{change.after:,}", _delta(change))
    for name, share in (
        ("breakdown markers", summary.breakdown_marker_share),
        ("child-section markers", summary.section_marker_share),
    ):
        points = round((share.after - share.before) * 100, 1)
        table.add_row(
            f"{name} (% of chars)",
            percent(share.before),
            percent(share.after),
            Text(f"{points:+.1f} pt", style="red" if points > 0 else "green") if points else "",
        )
    median = summary.median_without_markers
    table.add_row(
        "median without markers (chars)",
        f"{median.before:,}",
        f"{median.after:,}",
        Text(f"{median.after - median.before:+,}") if median.changed else "",
    )


def section_row(section: SectionDiff) -> tuple[RenderableType, str, str, str, str, str]:
    """One changed section as table cells: title over id (the title cut to the column, the id
    folded whole: it is what ``specbrowser show`` takes), added, removed, changed, overruns
    A → B, largest chunk A → B (characters)."""
    name: RenderableType = Text(section.section_id, overflow="fold")
    if section.title:
        name = Group(
            Text(section.title, no_wrap=True, overflow="ellipsis"),
            Text(section.section_id, style="dim", overflow="fold"),
        )
    changed = f"{len(section.changed):,}" + (
        f" (+{len(section.reflagged)} ⚑)" if section.reflagged else ""
    )
    return (
        name,
        f"{len(section.added):,}",
        f"{len(section.removed):,}",
        changed,
        _arrow(section.overruns),
        _arrow(section.largest),
    )


def section_table(diff: ChunkSetDiff, limit: int | None) -> Table:
    """The most changed sections (all with ``limit`` None) as a Rich table, most changed first."""
    shown = diff.top_sections(limit)
    total = len(diff.sections)
    caption = (
        "overruns: chunks over the threshold, A → B · "
        "largest: the largest chunk's characters, A → B"
    )
    if any(s.reflagged for s in shown):
        caption += "\n⚑ reflagged: same text, another overrun reason"
    table = Table(
        title=f"changed sections: {len(shown):,} of {total:,}, most changed first",
        title_justify="left",
        box=box.SIMPLE_HEAD,
        padding=(0, 1, 0, 0),
        caption=caption,
        caption_justify="left",
    )
    table.add_column("section", overflow="fold", ratio=1)
    table.add_column("added", justify="right", no_wrap=True)
    table.add_column("removed", justify="right", no_wrap=True)
    table.add_column("changed", justify="right", no_wrap=True)
    table.add_column("overruns", justify="right", no_wrap=True)
    table.add_column("largest", justify="right", no_wrap=True)
    for section in shown:
        table.add_row(*section_row(section))
    return table
