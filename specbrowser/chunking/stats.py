"""Chunk-set statistics shared by ``ingest``, ``rechunk``, ``stats`` and the app header.

:func:`compute_stats` counts a chunk set into a :class:`ChunkSetStats`, which the store keeps
as JSON in ``policies.stats`` (:meth:`ChunkSetStats.to_json`) and reads back with
:meth:`ChunkSetStats.from_json`.
"""

from __future__ import annotations

import heapq
import json
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, NamedTuple

from specbrowser.chunking.markers import marker_sizes
from specbrowser.model import Chunk
from specbrowser.types import Layer, MismatchKind, OverrunReason

TINY_CHARS = 100
"""A chunk the breakdown made (one with a parent chunk) is *tiny* when its text without markers
is shorter than this many characters: too little text to be worth retrieving on its own. Section
roots are never counted: one that holds only a heading and child-section markers is the
structure of the spec, not a breakdown's leftover."""

MOSTLY_MARKERS_SHARE = 0.8
"""A chunk is *mostly markers* when its markers are at least this share of its characters: a
reader (or a retriever) of it gets little besides pointers elsewhere."""


class ChunkFacts(NamedTuple):
    """What the statistics count of one chunk (a :class:`Chunk`, or a stored row a re-chunk
    copies: :meth:`specbrowser.store.reuse.StoredTrees.facts`). Sizes in characters.

    ``targets`` are the ids of the markers in the chunk's text, ``subsections`` the ids the chunk
    names; ``ordinal`` is its place in the set (the counts list ties in that order);
    ``marker_sizes`` is ``(target id, characters)`` of every marker in the text, in order (a
    stored chunk may leave ``targets`` empty when its markers were checked before, but never
    ``marker_sizes``).
    """

    id: str
    parent_id: str | None
    depth: int
    layer: Layer
    breakdown_tag: str | None
    over_threshold: OverrunReason | None
    size: int
    mismatch: MismatchKind | None
    targets: list[str]
    subsections: list[str]
    ordinal: int
    marker_sizes: list[tuple[str, int]]


def is_tiny(parent_id: str | None, size_without_markers: int) -> bool:
    """Whether a chunk is tiny: made by the breakdown (it has a parent) and under
    :data:`TINY_CHARS` characters without its markers."""
    return parent_id is not None and size_without_markers < TINY_CHARS


def is_mostly_markers(size: int, size_without_markers: int) -> bool:
    """Whether a chunk of ``size`` characters is mostly markers: they make at least
    :data:`MOSTLY_MARKERS_SHARE` of it (an empty chunk is not)."""
    return size > 0 and size - size_without_markers >= MOSTLY_MARKERS_SHARE * size


def chunk_facts(chunk: Chunk) -> ChunkFacts:
    """The :class:`ChunkFacts` of a chunk (its markers read from its text)."""
    sizes = marker_sizes(chunk.text)
    return ChunkFacts(
        chunk.id,
        chunk.parent_id,
        chunk.depth,
        chunk.layer,
        chunk.breakdown_tag,
        chunk.over_threshold,
        chunk.size,
        chunk.mismatch,
        [target for target, _ in sizes],
        chunk.subsections,
        chunk.ordinal,
        sizes,
    )


@dataclass(frozen=True)
class SizeStats:
    """Chunk sizes over a chunk set, in characters; all 0 for an empty set."""

    min: int = 0
    median: int = 0
    p90: int = 0
    max: int = 0
    mean: int = 0


@dataclass(frozen=True)
class LargestChunk:
    """The largest chunk of a chunk set: its id and size in characters."""

    id: str
    size: int


@dataclass(frozen=True)
class ChunkSetStats:
    """Counts over one chunk set (:func:`compute_stats`). Sizes are in characters.

    Count dicts list the most common key first (ties in chunk set order) and leave out keys
    with no chunk.

    Attributes:
        sections: sections in the document.
        chunks: chunks in the set, the document chunk included.
        by_depth: chunks per depth, shallowest first.
        by_layer: chunks per layer.
        by_tag: chunks per breakdown tag; a chunk no tag made counts as ``(<layer>)``.
        sizes: min, median, p90, max and mean size.
        over_threshold: chunks that stayed over the threshold, per reason.
        largest: the largest chunk (the first of equal ones), or None for an empty set.
        unresolved_markers: markers naming no chunk of the set, plus listed subsections whose
            marker is missing from their parent's text (0 in a sound set); None when stored
            statistics did not count them.
        marker_mismatches: chunks whose markers differ from their stored subsections (0 in a
            sound set); None when stored statistics did not count them.
        heading_mismatches: sections whose parser and TOC heading paths disagree, per kind.
        total_chars: characters of all chunks, markers included.
        breakdown_marker_chars: characters of the markers that name a chunk with a parent
            (one the breakdown extracted).
        section_marker_chars: characters of the other markers: those naming a child section's
            root chunk, which the section tree requires.
        tiny_chunks: chunks with a parent whose text without markers is under
            :data:`TINY_CHARS` characters.
        mostly_marker_chunks: chunks whose markers are at least :data:`MOSTLY_MARKERS_SHARE`
            of their characters.
        sizes_without_markers: min, median, p90, max and mean size, each chunk's markers not
            counted.
        grown_chunks: chunks longer than their own Markdown before their breakdown: whose
            breakdown markers are longer than the text they stand for (each subsection's own
            text with its breakdown markers replaced in turn, :func:`pristine_sizes`).

    The last seven are None in statistics stored before they were counted.

    Stored as the JSON object of :meth:`to_dict` (keys as the attribute names, ``by_depth``
    keys as strings); :meth:`from_dict` reads any such object back, filling keys an older
    object lacks with empty values and ignoring keys it does not know.
    """

    sections: int = 0
    chunks: int = 0
    by_depth: dict[int, int] = field(default_factory=dict)
    by_layer: dict[Layer, int] = field(default_factory=dict)
    by_tag: dict[str, int] = field(default_factory=dict)
    sizes: SizeStats = field(default_factory=SizeStats)
    over_threshold: dict[OverrunReason, int] = field(default_factory=dict)
    largest: LargestChunk | None = None
    unresolved_markers: int | None = None
    marker_mismatches: int | None = None
    heading_mismatches: dict[MismatchKind, int] = field(default_factory=dict)
    total_chars: int | None = None
    breakdown_marker_chars: int | None = None
    section_marker_chars: int | None = None
    tiny_chunks: int | None = None
    mostly_marker_chunks: int | None = None
    sizes_without_markers: SizeStats | None = None
    grown_chunks: int | None = None

    @property
    def breakdown_marker_share(self) -> float | None:
        """Breakdown-marker characters / all chunk characters (0 for an empty set; None when
        not counted)."""
        return _share(self.breakdown_marker_chars, self.total_chars)

    @property
    def section_marker_share(self) -> float | None:
        """Child-section-marker characters / all chunk characters (0 for an empty set; None
        when not counted)."""
        return _share(self.section_marker_chars, self.total_chars)

    @property
    def markers_sound(self) -> bool:
        """Whether every marker was counted and resolves to the chunk's own subsections."""
        return self.unresolved_markers == 0 and self.marker_mismatches == 0

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready dict: attribute names as keys, in order; nested objects as dicts."""
        data = asdict(self)
        data["by_depth"] = {str(depth): count for depth, count in self.by_depth.items()}
        return data

    def to_json(self) -> str:
        """:meth:`to_dict` as JSON text, as ``policies.stats`` stores it."""
        return json.dumps(self.to_dict())

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ChunkSetStats:
        """Read a :meth:`to_dict` object (or an older one lacking some keys) back.

        Raises:
            ValueError, TypeError, KeyError: a value of the wrong shape.
        """
        sizes = data.get("sizes") or {}
        largest = data.get("largest")
        bare = data.get("sizes_without_markers")
        return cls(
            sections=int(data.get("sections", 0)),
            chunks=int(data.get("chunks", 0)),
            by_depth={int(k): int(v) for k, v in (data.get("by_depth") or {}).items()},
            by_layer=dict(data.get("by_layer") or {}),
            by_tag=dict(data.get("by_tag") or {}),
            sizes=_size_stats(sizes),
            over_threshold=dict(data.get("over_threshold") or {}),
            largest=LargestChunk(str(largest["id"]), int(largest["size"])) if largest else None,
            unresolved_markers=_count_or_none(data.get("unresolved_markers")),
            marker_mismatches=_count_or_none(data.get("marker_mismatches")),
            heading_mismatches=dict(data.get("heading_mismatches") or {}),
            total_chars=_count_or_none(data.get("total_chars")),
            breakdown_marker_chars=_count_or_none(data.get("breakdown_marker_chars")),
            section_marker_chars=_count_or_none(data.get("section_marker_chars")),
            tiny_chunks=_count_or_none(data.get("tiny_chunks")),
            mostly_marker_chunks=_count_or_none(data.get("mostly_marker_chunks")),
            sizes_without_markers=None if bare is None else _size_stats(bare),
            grown_chunks=_count_or_none(data.get("grown_chunks")),
        )

    @classmethod
    def from_json(cls, text: str | None) -> ChunkSetStats:
        """Read ``policies.stats`` (JSON text; None or "" read as ``{}``) back.

        Raises:
            ValueError: not JSON, or not a JSON object; as :meth:`from_dict` for its values.
        """
        data = json.loads(text) if text else {}
        if not isinstance(data, dict):
            raise ValueError(f"chunk set statistics must be a JSON object, not {text!r}")
        return cls.from_dict(data)


_SIZE_KEYS = frozenset(SizeStats.__dataclass_fields__)


def _count_or_none(value: Any) -> int | None:
    return None if value is None else int(value)


def _size_stats(data: Mapping[str, Any]) -> SizeStats:
    return SizeStats(**{k: int(v) for k, v in data.items() if k in _SIZE_KEYS})


def _share(part: int | None, whole: int | None) -> float | None:
    if part is None or whole is None:
        return None
    return part / whole if whole else 0.0


def size_stats(sizes: list[int]) -> SizeStats:
    """Min, median, p90, max and mean of ``sizes`` (sorted ascending; all 0 when empty)."""
    if not sizes:
        return SizeStats()

    def at(fraction: float) -> int:
        return sizes[min(len(sizes) - 1, int(fraction * len(sizes)))]

    return SizeStats(
        min=sizes[0],
        median=at(0.5),
        p90=at(0.9),
        max=sizes[-1],
        mean=round(sum(sizes) / len(sizes)),
    )


def compute_stats(
    chunks: list[Chunk], section_count: int, stored: Iterable[ChunkFacts] = ()
) -> ChunkSetStats:
    """Counts over one chunk set: ``chunks`` plus, for a re-chunk that copies stored chunk
    trees, their ``stored`` facts; ``section_count`` is the document's number of sections.
    See :class:`ChunkSetStats` for what is counted. A marker naming a chunk with a parent is a
    breakdown marker; any other (a child section's root chunk, or an id the set lacks) a
    child-section marker. A chunk's text without markers is its size minus its markers'
    characters."""
    return merge_parts([stats_part([*map(chunk_facts, chunks), *stored])], section_count)


@dataclass(frozen=True)
class StatsPart:
    """What :func:`compute_stats` counts of some of a set's chunks (one spec's, in a corpus),
    in a form that adds up: :func:`merge_parts` makes a set's statistics from its parts
    without reading their chunks again. Sizes in characters; each count dict keeps its keys in
    order of first appearance (the order the set's counts list ties in), ``sizes`` and
    ``bare_sizes`` (without markers) are ascending; ``largest`` is ``(id, size)`` of the first
    of the largest chunks. Stored as the JSON object of :meth:`to_dict`."""

    chunks: int = 0
    depth: dict[int, int] = field(default_factory=dict)
    layer: dict[str, int] = field(default_factory=dict)
    tag: dict[str, int] = field(default_factory=dict)
    over: dict[str, int] = field(default_factory=dict)
    heading: dict[str, int] = field(default_factory=dict)
    sizes: list[int] = field(default_factory=list)
    bare_sizes: list[int] = field(default_factory=list)
    largest: tuple[str, int] | None = None
    unresolved: int = 0
    mismatched: int = 0
    breakdown_chars: int = 0
    section_chars: int = 0
    tiny: int = 0
    mostly: int = 0
    grown: int = 0

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready dict (``depth`` keys as strings, ``largest`` as a list); its lists
        and dicts are the part's own, not copies (``dataclasses.asdict`` would copy every
        size: most of a corpus recount's time)."""
        data = {name: getattr(self, name) for name in self.__dataclass_fields__}
        data["depth"] = {str(depth): count for depth, count in self.depth.items()}
        data["largest"] = list(self.largest) if self.largest else None
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> StatsPart:
        """Read a :meth:`to_dict` object back.

        Raises:
            ValueError, TypeError, KeyError: a value of the wrong shape.
        """
        largest = data["largest"]
        return cls(
            chunks=int(data["chunks"]),
            depth={int(k): int(v) for k, v in data["depth"].items()},
            layer={str(k): int(v) for k, v in data["layer"].items()},
            tag={str(k): int(v) for k, v in data["tag"].items()},
            over={str(k): int(v) for k, v in data["over"].items()},
            heading={str(k): int(v) for k, v in data["heading"].items()},
            sizes=[int(n) for n in data["sizes"]],
            bare_sizes=[int(n) for n in data["bare_sizes"]],
            largest=(str(largest[0]), int(largest[1])) if largest else None,
            **{
                key: int(data[key])
                for key in (
                    "unresolved",
                    "mismatched",
                    "breakdown_chars",
                    "section_chars",
                    "tiny",
                    "mostly",
                    "grown",
                )
            },
        )


def stats_part(facts: Iterable[ChunkFacts]) -> StatsPart:
    """The :class:`StatsPart` of these chunks' facts (in any order: they are sorted by
    ordinal). Markers are resolved among these chunks only: a part is a whole spec, whose
    markers name its own chunks."""
    ordered = sorted(facts, key=lambda f: f.ordinal)
    ids = {f.id for f in ordered}
    unresolved = mismatched = 0
    for fact in ordered:
        targets = fact.targets
        if targets:
            unresolved += sum(1 for t in targets if t not in ids)
        if fact.subsections:  # the reverse: a listed subsection whose marker is not in the text
            unresolved += len(set(fact.subsections).difference(targets))
        mismatched += targets != fact.subsections
    largest = max(ordered, key=lambda f: f.size, default=None)
    extracted = {f.id for f in ordered if f.parent_id is not None}
    breakdown_chars = section_chars = tiny = mostly = 0
    bare_sizes: list[int] = []
    for fact in ordered:
        marker_chars = 0
        for target, chars in fact.marker_sizes:
            marker_chars += chars
            if target in extracted:
                breakdown_chars += chars
            else:
                section_chars += chars
        bare = fact.size - marker_chars
        bare_sizes.append(bare)
        tiny += is_tiny(fact.parent_id, bare)
        mostly += is_mostly_markers(fact.size, bare)
    pristine = pristine_sizes(ordered, extracted)
    return StatsPart(
        chunks=len(ordered),
        depth=dict(Counter(f.depth for f in ordered)),
        layer=dict(Counter(f.layer for f in ordered)),
        tag=dict(Counter(f.breakdown_tag or f"({f.layer})" for f in ordered)),
        over=dict(Counter(f.over_threshold for f in ordered if f.over_threshold)),
        heading=dict(Counter(f.mismatch for f in ordered if f.mismatch and f.parent_id is None)),
        sizes=sorted(f.size for f in ordered),
        bare_sizes=sorted(bare_sizes),
        largest=(largest.id, largest.size) if largest else None,
        unresolved=unresolved,
        mismatched=mismatched,
        breakdown_chars=breakdown_chars,
        section_chars=section_chars,
        tiny=tiny,
        mostly=mostly,
        grown=sum(1 for f in ordered if f.size > pristine[f.id]),
    )


def merge_parts(parts: Iterable[StatsPart], section_count: int) -> ChunkSetStats:
    """A set's statistics from its parts, in set order (a corpus's specs in corpus order):
    what :func:`compute_stats` gives over all their chunks when no marker of one part names a
    chunk of another."""
    chunks = unresolved = mismatched = breakdown = section = tiny = mostly = grown = 0
    counts: dict[str, Counter[Any]] = {
        name: Counter() for name in ("depth", "layer", "tag", "over", "heading")
    }
    sizes: list[list[int]] = []
    bare: list[list[int]] = []
    largest: tuple[str, int] | None = None
    for part in parts:
        chunks += part.chunks
        unresolved += part.unresolved
        mismatched += part.mismatched
        breakdown += part.breakdown_chars
        section += part.section_chars
        tiny += part.tiny
        mostly += part.mostly
        grown += part.grown
        for name, counter in counts.items():
            counter.update(getattr(part, name))  # keys keep their first appearance
        sizes.append(part.sizes)
        bare.append(part.bare_sizes)
        if part.largest is not None and (largest is None or part.largest[1] > largest[1]):
            largest = part.largest
    all_sizes = list(heapq.merge(*sizes))
    return ChunkSetStats(
        sections=section_count,
        chunks=chunks,
        by_depth=dict(sorted(counts["depth"].items())),
        by_layer=dict(counts["layer"].most_common()),
        by_tag=dict(counts["tag"].most_common()),
        sizes=size_stats(all_sizes),
        over_threshold=dict(counts["over"].most_common()),
        largest=LargestChunk(*largest) if largest else None,
        unresolved_markers=unresolved,
        marker_mismatches=mismatched,
        heading_mismatches=dict(counts["heading"].most_common()),
        total_chars=sum(all_sizes),
        breakdown_marker_chars=breakdown,
        section_marker_chars=section,
        tiny_chunks=tiny,
        mostly_marker_chunks=mostly,
        sizes_without_markers=size_stats(list(heapq.merge(*bare))),
        grown_chunks=grown,
    )


def pristine_sizes(facts: list[ChunkFacts], extracted: set[str]) -> dict[str, int]:
    """Each chunk's size before its own breakdown, in characters: its size less its breakdown
    markers (those naming a chunk in ``extracted``: the chunks with a parent), plus the pristine
    size of each subsection they name. ``facts`` in set order (pre-order: a chunk before its
    subsections). Blank lines around a marker stand for those around the element it replaced,
    so the figure is exact up to whitespace that the reassembly normalises."""
    pristine: dict[str, int] = {}
    for fact in reversed(facts):  # subsections before the chunks that name them
        size = fact.size
        for target, chars in fact.marker_sizes:
            if target in extracted and target in pristine:
                size += pristine[target] - chars
        pristine[fact.id] = size
    return pristine


def quality_line(stats: ChunkSetStats) -> str:
    """The quality figures of a stored set in one line: ``0 tiny · 0 grown · markers 0.9% ·
    12 mostly markers`` (breakdown markers' share of all characters); ``-`` for a figure the
    code that made the set did not count."""
    share = stats.breakdown_marker_share
    tiny = "-" if stats.tiny_chunks is None else f"{stats.tiny_chunks:,}"
    grown = "-" if stats.grown_chunks is None else f"{stats.grown_chunks:,}"
    mostly = "-" if stats.mostly_marker_chunks is None else f"{stats.mostly_marker_chunks:,}"
    markers = "-" if share is None else f"{share:.1%}"
    return f"{tiny} tiny · {grown} grown · markers {markers} · {mostly} mostly markers"
