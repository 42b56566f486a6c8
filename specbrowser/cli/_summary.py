"""The summary table of a chunk set's statistics that ``ingest``, ``demo --no-open`` and
``stats`` print, and its rows."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.markup import escape
from rich.table import Table

from specbrowser.chunking.policy import ChunkPolicy
from specbrowser.chunking.stats import MOSTLY_MARKERS_SHARE, TINY_CHARS
from specbrowser.cli._console import out
from specbrowser.cli._options import unused_tags
from specbrowser.types import IngestOutcome, MismatchKind

if TYPE_CHECKING:
    from specbrowser.chunking.stats import ChunkSetStats
    from specbrowser.chunking.toc_paths import Mismatch


def outcome_line(
    outcome: IngestOutcome, chunk_sets: int, sizes: tuple[int, int] | None = None
) -> str:
    """What the ingest did to the database, for the summary's ``chunk sets`` row; ``sizes``
    (bytes of the file before and after) tell a replaced spec's compaction."""
    done: dict[IngestOutcome, str] = {
        "created": "new database",
        "added": "added beside the other policies' sets",
        "replaced_set": "replaced this policy's set",
        "replaced_spec": "the same spec with new bytes: its old chunks replaced",
        "added_spec": "a spec added to the corpus",
        "unchanged": "unchanged: these bytes are stored under this policy; nothing written",
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
    toc_entries_without_section: int = 0,
    set_version: str = "",
) -> None:
    """Print a chunk set's statistics (:func:`specbrowser.session.stores.chunk_stats`) as a
    two-column Rich table; ``extra_rows`` (name, Rich markup) come after the counts, before
    unused tags and timings. The TOC row counts the sections' mismatches by kind and then
    ``toc_entries_without_section``, which name no section, so the stats cannot hold them
    (an ingest knows them: :func:`toc_entries_without_section`). ``set_version`` names the
    chunk set that holds the chunks when it is not ``policy``'s own (a corpus's set, whose
    settings ``policy`` is this spec's format's form of)."""
    table = Table(
        title=f"{escape(title)} → {escape(str(db))}", show_header=False, title_justify="left"
    )
    table.add_column(style="bold", no_wrap=True)
    table.add_column(overflow="fold")
    sizes = stats.sizes
    overruns = stats.over_threshold
    largest = stats.largest
    rows = [
        (
            "policy",
            f"{escape(policy.describe())} (version {policy.version})"
            if set_version in ("", policy.version)
            else f"{escape(policy.describe())} (in the corpus's chunk set {set_version})",
        ),
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
        ("TOC mismatches", toc_mismatches(stats, toc_entries_without_section)),
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


def toc_mismatches(stats: ChunkSetStats, entries_without_section: int) -> str:
    """The summary's TOC row: every mismatch kind found, with its count; "none" without any."""
    counts: dict[MismatchKind, int] = dict(stats.heading_mismatches)
    if entries_without_section:
        counts["toc_entry_without_section"] = entries_without_section
    return ", ".join(f"{k}: {v:,}" for k, v in counts.items()) or "none"


def toc_entries_without_section(mismatches: Sequence[Mismatch]) -> int:
    """How many of an ingest's mismatches are TOC entries that link to no section."""
    return sum(m.kind == "toc_entry_without_section" for m in mismatches)


def percent(share: float) -> str:
    """A share as a percentage with one decimal: ``0.0471`` → ``"4.7%"``."""
    return f"{share:.1%}"


def quality_rows(stats: ChunkSetStats) -> list[tuple[str, str]]:
    """The summary's rows for the quality figures (sizes without markers, tiny chunks, marker
    shares, mostly-marker chunks); "not counted" for statistics stored before them."""
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
