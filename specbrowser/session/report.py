"""What the statistics screen shows about one chunk set, computed without any UI.

:func:`build_report` gathers, for a chunk set:
:func:`specbrowser.chunking.stats.compute_stats`' counts (the same numbers as
``specbrowser stats``), a size histogram split at the threshold, the largest chunks, the
overruns, the TOC mismatches, the chunks whose embedding was truncated, the tiny and the
mostly-marker chunks and, from the token counts (:mod:`specbrowser.search.tokens`), the chunks
over the model's window.
Entries that name chunks (:class:`ChunkEntry`) are what the screen lets the user jump to.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass, field

from specbrowser.chunking.markers import size_without_markers
from specbrowser.chunking.policy import DEFAULT_THRESHOLD_CHARS, stored_threshold
from specbrowser.chunking.stats import ChunkSetStats, compute_stats, is_mostly_markers, is_tiny
from specbrowser.chunking.toc_paths import Mismatch
from specbrowser.model import Chunk
from specbrowser.search.tokens import token_info
from specbrowser.session.export import resolve_policy_version
from specbrowser.store import SpecStore
from specbrowser.types import MismatchKind, SizeUnit

BINS_UP_TO_THRESHOLD = 8
"""Equal-width histogram bins from 0 to the threshold: enough to see the shape, few enough to
label each row."""

LARGEST_COUNT = 10
"""How many of the largest chunks the report lists."""


@dataclass(frozen=True)
class HistogramBin:
    """Chunks whose size (characters) is in ``low..high``, both inclusive; ``high`` is None for
    an open last bin. ``over`` is True for bins above the threshold."""

    low: int
    high: int | None
    count: int
    over: bool

    @property
    def label(self) -> str:
        """``"626–1,250"`` (``"7"`` for a one-value bin), or ``"> 40,000"`` for an open bin."""
        if self.high is None:
            return f"> {self.low - 1:,}"
        return f"{self.low:,}" if self.low == self.high else f"{self.low:,}–{self.high:,}"


DEFAULT_TOKEN_WINDOW = 512
"""Where the token histogram splits when the model's window is unknown: the window of
all-MiniLM-L6-v2 and most sentence-embedding models."""


def size_histogram(
    sizes: list[int], threshold: int, below: int = BINS_UP_TO_THRESHOLD
) -> list[HistogramBin]:
    """Bin chunk sizes (characters, or tokens) so that the threshold is a bin edge.

    Up to the threshold: ``below`` bins of equal width (the last ends at ``threshold``:
    a chunk of exactly the threshold is not over it). Above it, bins double in width
    (``T+1–2T``, ``2T+1–4T``, …) up to the largest size: chunk sizes have a long tail, and
    equal-width bins would need a row per threshold of it. Empty bins are kept (a gap is
    information). ``sizes`` may be empty: the bins up to the threshold, all zero.
    """
    threshold = max(1, threshold)
    parts = max(1, min(below, threshold))
    edges = [round(threshold * i / parts) for i in range(parts + 1)]
    ranges: list[tuple[int, int]] = [
        (0 if i == 0 else edges[i] + 1, edges[i + 1]) for i in range(parts)
    ]
    largest = max(sizes, default=0)
    low = threshold
    while low < largest:
        ranges.append((low + 1, low * 2))
        low *= 2
    highs = [hi for _lo, hi in ranges[:parts]]
    counts = [0] * len(ranges)
    for size in sizes:
        if size <= threshold:
            index = bisect_left(highs, size)
        else:  # (T·2^k, T·2^(k+1)] is bin parts + k
            index = parts + ((size - 1) // threshold).bit_length() - 1
        counts[index] += 1
    return [
        HistogramBin(lo, hi, n, over=i >= parts)
        for i, ((lo, hi), n) in enumerate(zip(ranges, counts, strict=True))
    ]


@dataclass(frozen=True)
class ChunkEntry:
    """One chunk named in a report list.

    Attributes:
        chunk_id: the chunk (or section root chunk) to jump to.
        size: its size in characters.
        detail: what the list says about it: the overrun reason, the mismatch kind, the token
            count ("612 tokens"), or "".
        title: the chunk's title (spec text: show it literally).
    """

    chunk_id: str
    size: int
    detail: str = ""
    title: str = ""


@dataclass
class StatsReport:
    """Everything the statistics screen shows for one chunk set.

    Attributes:
        policy_version: the chunk set's full version.
        threshold: the threshold the histogram is drawn against, in ``unit``.
        unit: what the set's threshold counts (``chars`` or ``tokens``).
        stats: :func:`specbrowser.chunking.stats.compute_stats` of the set (as ``specbrowser
            stats`` shows them).
        histogram: :func:`size_histogram` of the chunk sizes. largest: the :data:`LARGEST_COUNT`
        largest chunks, largest first. overruns: every chunk over the threshold, largest first;
        ``detail`` is the reason. toc_entries: how many TOC entries the document has (0: no TOC, so
        no mismatches). mismatch_counts: mismatches by kind
        (:meth:`specbrowser.store.toc.TocTables.mismatch_counts`). mismatched: one entry per
        mismatch whose section has a chunk in the set, document
            order; ``detail`` is the kind.
        embedding_model: the stored vectors' model, or None when the database is not embedded.
        embedded: ``(chunks with a vector, chunks)`` for that model.
        truncated: chunks whose retrieval text the tokenizer cut, most tokens first;
            ``detail`` is the full token count.
        token_model: whose tokenizer counted the set's tokens (:mod:`specbrowser.search.tokens`), or
            None when nothing was counted.
        token_window: that model's window in tokens, or None when unknown.
        tokens_counted: how many of the set's chunks have a token count.
        over_window: counted chunks over the window (the model would cut them when embedded),
            most tokens first; ``detail`` is the token count.
        token_histogram: :func:`size_histogram` of the counted chunks' tokens, split at the
            set's threshold when it is in tokens, else at the model's window (512 when
            unknown); [] when nothing was counted.
        token_split: the split of :attr:`token_histogram` in tokens (0 when it is empty).
        tiny: the tiny chunks (:func:`specbrowser.chunking.stats.is_tiny`), smallest without
            markers first; ``detail`` is that size ("12 own chars").
        marker_heavy: the chunks that are mostly markers
            (:func:`specbrowser.chunking.stats.is_mostly_markers`), highest marker share first;
            ``detail`` is the share ("93% markers").
    """

    policy_version: str
    threshold: int
    stats: ChunkSetStats
    histogram: list[HistogramBin]
    largest: list[ChunkEntry]
    overruns: list[ChunkEntry]
    toc_entries: int
    mismatch_counts: dict[MismatchKind, int]
    mismatched: list[ChunkEntry]
    embedding_model: str | None = None
    embedded: tuple[int, int] = (0, 0)
    truncated: list[ChunkEntry] = field(default_factory=list)
    token_model: str | None = None
    token_window: int | None = None
    tokens_counted: int = 0
    over_window: list[ChunkEntry] = field(default_factory=list)
    tiny: list[ChunkEntry] = field(default_factory=list)
    marker_heavy: list[ChunkEntry] = field(default_factory=list)
    unit: SizeUnit = "chars"
    token_histogram: list[HistogramBin] = field(default_factory=list)
    token_split: int = 0


def set_threshold(db: SpecStore, policy_version: str) -> tuple[int, SizeUnit]:
    """The threshold a chunk set was made with and its unit, from its stored settings
    (``(0, "chars")`` when they lack it)."""
    value, unit = stored_threshold(db.sets.settings(policy_version) or {})
    return value or 0, unit


def build_report(
    db: SpecStore, policy_version: str | None = None, threshold: int | None = None
) -> StatsReport:
    """The report of a chunk set: the active one, or a version (or unique prefix).

    ``threshold`` (characters) defaults to the set's own threshold; it moves the histogram's
    split, while :attr:`StatsReport.overruns` are the stored overrun reasons. A set whose
    threshold is in tokens splits its character histogram at the default threshold
    (:data:`DEFAULT_THRESHOLD_CHARS`, a reference) unless one is given, and its token
    histogram at its own threshold. Reads every chunk once; on
    ECMA-262 (3,747 chunks) this takes well under a second.

    Raises:
        NotFoundError: no chunk set with that version (or none at all).
    """
    version = resolve_policy_version(db, policy_version)
    own, unit = set_threshold(db, version)
    if threshold is None:
        threshold = own if unit == "chars" else DEFAULT_THRESHOLD_CHARS
    chunks = list(db.iter_chunks(version))
    sections = db.sections.count()
    by_id = {chunk.id: chunk for chunk in chunks}
    by_size = sorted(chunks, key=lambda c: (-c.size, c.ordinal))
    report = StatsReport(
        policy_version=version,
        threshold=threshold,
        unit=unit,
        stats=compute_stats(chunks, sections),
        histogram=size_histogram([c.size for c in chunks], threshold),
        largest=[_entry(c) for c in by_size[:LARGEST_COUNT]],
        overruns=[_entry(c, c.over_threshold or "") for c in by_size if c.over_threshold],
        toc_entries=db.toc.size(),
        mismatch_counts=db.toc.mismatch_counts(),
        mismatched=_mismatched(db.toc.mismatches(), by_id),
    )
    report.tiny, report.marker_heavy = _quality_entries(chunks)
    stored = db.vectors.model()
    if stored is not None:
        model = stored[0]
        report.embedding_model = model
        report.embedded = db.vectors.counts(model, version)
        cut = db.vectors.truncated_chunks(model, version)
        report.truncated = [
            _entry(by_id[cid], f"{tokens:,} tokens")
            for cid, tokens in sorted(cut.items(), key=lambda kv: (-kv[1], kv[0]))
            if cid in by_id
        ]
    else:
        report.embedded = (0, len(chunks))
    tokens = token_info(db, version)
    if tokens is not None:
        report.token_model, report.token_window = tokens.model, tokens.max_tokens
        report.tokens_counted = len(tokens.counts)
        split = own if unit == "tokens" else (tokens.max_tokens or DEFAULT_TOKEN_WINDOW)
        counted = [n for cid, n in tokens.counts.items() if cid in by_id]
        if counted:
            report.token_split = split
            report.token_histogram = size_histogram(counted, split)
        report.over_window = [
            _entry(by_id[cid], f"{n:,} tokens")
            for cid, n in sorted(tokens.over_window.items(), key=lambda kv: (-kv[1], kv[0]))
            if cid in by_id
        ]
    return report


def _quality_entries(chunks: list[Chunk]) -> tuple[list[ChunkEntry], list[ChunkEntry]]:
    """(tiny chunks, smallest own text first; mostly-marker chunks, highest share first), ties
    in set order."""
    bare = {chunk.id: size_without_markers(chunk.text) for chunk in chunks}
    tiny = sorted(
        (c for c in chunks if is_tiny(c.parent_id, bare[c.id])),
        key=lambda c: (bare[c.id], c.ordinal),
    )
    heavy = sorted(
        (c for c in chunks if is_mostly_markers(c.size, bare[c.id])),
        key=lambda c: (bare[c.id] / c.size, c.ordinal),
    )
    return (
        [_entry(c, f"{bare[c.id]:,} own chars") for c in tiny],
        [_entry(c, f"{1 - bare[c.id] / c.size:.0%} markers") for c in heavy],
    )


def _entry(chunk: Chunk, detail: str = "") -> ChunkEntry:
    return ChunkEntry(chunk_id=chunk.id, size=chunk.size, detail=detail, title=chunk.title)


def _mismatched(mismatches: list[Mismatch], by_id: dict[str, Chunk]) -> list[ChunkEntry]:
    """Mismatches whose section has a root chunk in the set (a TOC entry without a section has
    nothing to jump to)."""
    return [_entry(by_id[m.section_id], m.kind) for m in mismatches if m.section_id in by_id]
