"""Compare two chunk sets of one database: what a policy change did to each section's chunks.

Chunks are matched by id (ids are stable across policies: a section's root chunk is the section
id, a subsection ``<parent>-<tag>-<n>``), so a chunk is *added* (only in set B), *removed* (only
in set A), *changed* (in both, different text) or *reflagged* (in both, same text, another
overrun reason: the threshold moved but nothing could be cut). Sizes are in characters, the unit
of the threshold. The document (synopsis) chunk belongs to no section: it counts in the chunk
totals only.

Pure core: reads the database through the store, never imports Textual.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Generic, TypeVar

from specbrowser.chunking.policy import ChunkPolicy
from specbrowser.chunking.stats import ChunkSetStats
from specbrowser.session.stores import chunk_stats
from specbrowser.store import SpecStore
from specbrowser.store.queries import ChunkBrief, ChunkSize
from specbrowser.types import OverrunReason

T = TypeVar("T")


@dataclass(frozen=True)
class Change(Generic[T]):
    """One quantity in set A (``before``) and set B (``after``)."""

    before: T
    after: T

    @property
    def changed(self) -> bool:
        """Whether the two values differ."""
        return self.before != self.after


@dataclass
class SectionDiff:
    """How one section's chunks differ between set A and set B.

    Attributes:
        section_id: the section's id.
        title: its display title (``secnum title``).
        ordinal: its position in document order (0-based).
        added: ids of its chunks only in set B, in B's order.
        removed: ids of its chunks only in set A, in A's order.
        changed: ids in both sets whose text differs, in A's order.
        reflagged: ids in both sets with the same text but another overrun reason, in A's order.
        chunks: its chunk count in A → B.
        overruns: its chunks over the threshold (any reason) in A → B.
        largest: its largest chunk's size in characters in A → B (0 when it has no chunk).
    """

    section_id: str
    title: str
    ordinal: int
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    reflagged: list[str] = field(default_factory=list)
    chunks: Change[int] = field(default_factory=lambda: Change(0, 0))
    overruns: Change[int] = field(default_factory=lambda: Change(0, 0))
    largest: Change[int] = field(default_factory=lambda: Change(0, 0))

    @property
    def is_changed(self) -> bool:
        """Whether any of its chunks was added, removed, changed or reflagged."""
        return bool(self.added or self.removed or self.changed or self.reflagged)

    @property
    def magnitude(self) -> int:
        """How much it changed: chunks added + removed + changed + reflagged (the sort key of
        "top N" lists, ties broken by the largest chunk's size change)."""
        return len(self.added) + len(self.removed) + len(self.changed) + len(self.reflagged)


@dataclass
class DiffSummary:
    """Totals over the two chunk sets.

    Attributes:
        chunks: chunk count in A → B (the document chunk included, as ``policies`` counts).
        sections_changed: sections with at least one added, removed, changed or reflagged chunk.
        sections_unchanged: the other sections.
        added, removed, changed, reflagged: chunk counts summed over the sections.
        overruns: chunks over the threshold by reason (``unsplittable``, ``max_depth``) in A → B;
            a reason absent from one set counts 0 there.
        truncated: chunks whose retrieval text the embedding model cut (its window is shorter),
            in A → B, for the model whose vectors the database holds; None when it holds no
            embeddings. Only chunks embedded so far can count (see ``embedded``).
        embedded: chunks that have a vector of that model in A → B; None without embeddings.
        embedding_model: that model's name, or None.
        largest: the largest chunk in A → B as ``(chunk id, size in characters)``; None for an
            empty set.
        tiny_chunks: chunks the breakdown made whose text without markers is under
            :data:`~specbrowser.chunking.stats.TINY_CHARS` characters, in A → B.
        mostly_marker_chunks: chunks that are mostly markers, in A → B.
        grown_chunks: chunks longer than before their own breakdown, in A → B.
        breakdown_marker_share: breakdown-marker characters / all chunk characters, A → B.
        section_marker_share: child-section-marker characters / all chunk characters, A → B.
        median_without_markers: the median chunk size without markers (characters), A → B.

    The quality figures (the last six) are each set's stored statistics, counted again from
    its chunks when they were stored before these figures existed (see
    :class:`~specbrowser.chunking.stats.ChunkSetStats`).
    """

    chunks: Change[int]
    sections_changed: int
    sections_unchanged: int
    added: int
    removed: int
    changed: int
    reflagged: int
    overruns: dict[OverrunReason, Change[int]]
    truncated: Change[int] | None
    embedded: Change[int] | None
    embedding_model: str | None
    largest: Change[tuple[str, int] | None]
    tiny_chunks: Change[int] = field(default_factory=lambda: Change(0, 0))
    mostly_marker_chunks: Change[int] = field(default_factory=lambda: Change(0, 0))
    breakdown_marker_share: Change[float] = field(default_factory=lambda: Change(0.0, 0.0))
    section_marker_share: Change[float] = field(default_factory=lambda: Change(0.0, 0.0))
    median_without_markers: Change[int] = field(default_factory=lambda: Change(0, 0))
    grown_chunks: Change[int] = field(default_factory=lambda: Change(0, 0))


@dataclass
class SpecDiff:
    """What changed in one spec of a corpus between set A and set B.

    Attributes:
        spec: the spec's name.
        chunks: its chunk count in A → B (its document chunk included, as ``specs`` counts).
        sections_changed: its sections with an added, removed, changed or reflagged chunk.
        added, removed, changed, reflagged: chunk counts over those sections, as in
            :class:`DiffSummary`.
        overruns: its chunks over the threshold (any reason) in A → B.
    """

    spec: str
    chunks: Change[int] = field(default_factory=lambda: Change(0, 0))
    sections_changed: int = 0
    added: int = 0
    removed: int = 0
    changed: int = 0
    reflagged: int = 0
    overruns: Change[int] = field(default_factory=lambda: Change(0, 0))


@dataclass
class ChunkSetDiff:
    """The comparison of chunk set A with chunk set B of one database.

    Attributes:
        version_a, version_b: the full policy versions compared.
        policy_a, policy_b: each set's policy in one line (:meth:`ChunkPolicy.describe`).
        summary: the totals.
        sections: the changed sections only, in document order (see
            :attr:`DiffSummary.sections_unchanged` for how many were not).
        by_spec: in a corpus, each spec's figures, in corpus order; [] for one spec.
    """

    version_a: str
    version_b: str
    policy_a: str
    policy_b: str
    summary: DiffSummary
    sections: list[SectionDiff]
    by_spec: list[SpecDiff] = field(default_factory=list)

    def top_sections(self, limit: int | None = None) -> list[SectionDiff]:
        """The changed sections by :attr:`SectionDiff.magnitude`, largest first (then by the size
        change of their largest chunk, then document order); all of them when ``limit`` is None."""
        ranked = sorted(
            self.sections,
            key=lambda s: (-s.magnitude, -abs(s.largest.after - s.largest.before), s.ordinal),
        )
        return ranked if limit is None else ranked[:limit]

    def section(self, section_id: str) -> SectionDiff | None:
        """The diff of one changed section, or None when it did not change (or does not exist)."""
        return next((s for s in self.sections if s.section_id == section_id), None)

    def to_dict(self, limit: int | None = None, *, ranked: bool = False) -> dict[str, object]:
        """A JSON-ready dict: every :class:`Change` as ``{"before": …, "after": …}`` (marker
        shares rounded to 4 decimals), a largest chunk as ``{"id": …, "size": …}``; sections in
        document order, or with ``ranked`` as :meth:`top_sections` orders them; at most
        ``limit`` of them (None: all), with ``sections_changed`` giving how many there are in
        all."""
        sections = self.top_sections() if ranked else self.sections
        summary = asdict(self.summary)
        summary["largest"] = {
            side: ({"id": value[0], "size": value[1]} if value else None)
            for side, value in summary["largest"].items()
        }
        for share in ("breakdown_marker_share", "section_marker_share"):  # as stats --json
            summary[share] = {side: round(value, 4) for side, value in summary[share].items()}
        return {
            "version_a": self.version_a,
            "version_b": self.version_b,
            "policy_a": self.policy_a,
            "policy_b": self.policy_b,
            "summary": summary,
            "sections_changed": len(self.sections),
            "sections": [asdict(s) for s in (sections if limit is None else sections[:limit])],
            "by_spec": [asdict(s) for s in self.by_spec],
        }

    def to_json(
        self, indent: int | None = 2, limit: int | None = None, *, ranked: bool = False
    ) -> str:
        """:meth:`to_dict` as JSON text (spec text kept as is, not ASCII-escaped)."""
        return json.dumps(self.to_dict(limit, ranked=ranked), ensure_ascii=False, indent=indent)


# --- reading ------------------------------------------------------------------------------------


def section_chunks(db: SpecStore, policy_version: str, section_id: str) -> list[ChunkBrief]:
    """The chunks of one section in one chunk set (full version), in pre-order (the root chunk
    first; child sections' chunks are not included)."""
    return db.chunk_briefs(policy_version, section_id)


def _policy_line(db: SpecStore, version: str) -> str:
    settings = db.sets.settings(version)
    try:
        return ChunkPolicy.from_settings(settings).describe()  # type: ignore[arg-type]
    except (TypeError, KeyError, ValueError, AttributeError):  # settings an older specbrowser wrote
        return json.dumps(settings) if settings is not None else ""


def set_stats(db: SpecStore, version: str) -> ChunkSetStats:
    """A chunk set's stored statistics; counted again from its chunks when they lack the quality
    figures (stored by an older specbrowser)."""
    stats = ChunkSetStats.from_dict(db.sets.stats(version) or {})
    if stats.grown_chunks is None or stats.sizes_without_markers is None:
        stats = chunk_stats(db, version)
    return stats


def _embedding_counts(
    db: SpecStore, versions: tuple[str, str]
) -> tuple[str | None, Change[int] | None, Change[int] | None]:
    """(model, truncated A → B, embedded A → B); Nones when the database holds no vectors."""
    stored = db.vectors.model()
    if stored is None:
        return None, None, None
    model = stored[0]
    truncated = [len(db.vectors.truncated_chunks(model, v)) for v in versions]
    embedded = [db.vectors.counts(model, v)[0] for v in versions]
    return model, Change(*truncated), Change(*embedded)


# --- comparing ----------------------------------------------------------------------------------


def diff_chunk_sets(db: SpecStore, version_a: str, version_b: str) -> ChunkSetDiff:
    """Compare chunk set A (``version_a``) with chunk set B (``version_b``) of one database.

    Versions are full policy versions or unique prefixes
    (:meth:`specbrowser.store.sets.ChunkSets.resolve`); the active set is not changed. Reads both
    sets once (about 0.04 s for two ECMA-262 sets); writes nothing.

    Raises:
        NotFoundError: a version names no chunk set (or several).
    """
    full_a, full_b = db.sets.resolve(version_a), db.sets.resolve(version_b)
    sizes_a, sizes_b = db.chunk_sizes(full_a), db.chunk_sizes(full_b)
    text_changed = db.text_changed_ids(full_a, full_b)
    by_id_a = {c.id: c for c in sizes_a}
    by_id_b = {c.id: c for c in sizes_b}

    per_section: dict[str, tuple[list[ChunkSize], list[ChunkSize]]] = {}
    for side, sizes in ((0, sizes_a), (1, sizes_b)):
        for chunk in sizes:
            if chunk.section_id is not None:
                per_section.setdefault(chunk.section_id, ([], []))[side].append(chunk)

    spec_of = db.sections.spec_names() if db.corpus.count() > 1 else {}
    by_spec = {spec.name: SpecDiff(spec.name) for spec in db.corpus.all()} if spec_of else {}
    changed_sections: list[SectionDiff] = []
    unchanged = 0
    for section_id, title, ordinal in db.sections.order():
        in_a, in_b = per_section.get(section_id, ([], []))
        if in_a == in_b and text_changed.isdisjoint(c.id for c in in_a):
            # the same chunks, sizes and flags, no text changed (most sections of a re-chunk):
            # nothing added, removed, changed or reflagged; counted without a SectionDiff
            unchanged += 1
            if spec_of:
                overruns = sum(c.over_threshold is not None for c in in_a)
                _count_into(by_spec[spec_of[section_id]], Change(overruns, overruns))
            continue
        section = SectionDiff(
            section_id=section_id,
            title=title,
            ordinal=ordinal,
            added=[c.id for c in in_b if c.id not in by_id_a],
            removed=[c.id for c in in_a if c.id not in by_id_b],
            changed=[c.id for c in in_a if c.id in text_changed],
            reflagged=[
                c.id
                for c in in_a
                if c.id in by_id_b
                and c.id not in text_changed
                and c.over_threshold != by_id_b[c.id].over_threshold
            ],
            chunks=Change(len(in_a), len(in_b)),
            overruns=Change(
                sum(c.over_threshold is not None for c in in_a),
                sum(c.over_threshold is not None for c in in_b),
            ),
            largest=Change(
                max((c.size for c in in_a), default=0), max((c.size for c in in_b), default=0)
            ),
        )
        if section.is_changed:
            changed_sections.append(section)
        else:
            unchanged += 1
        if spec_of:
            _count_into(by_spec[spec_of[section_id]], section.overruns, section)

    reasons_a = Counter(c.over_threshold for c in sizes_a if c.over_threshold)
    reasons_b = Counter(c.over_threshold for c in sizes_b if c.over_threshold)
    reasons = sorted(
        reasons_a.keys() | reasons_b.keys(), key=lambda r: (-max(reasons_a[r], reasons_b[r]), r)
    )
    model, truncated, embedded = _embedding_counts(db, (full_a, full_b))
    stats_a, stats_b = set_stats(db, full_a), set_stats(db, full_b)
    summary = DiffSummary(
        chunks=Change(len(sizes_a), len(sizes_b)),
        sections_changed=len(changed_sections),
        sections_unchanged=unchanged,
        added=sum(len(s.added) for s in changed_sections),
        removed=sum(len(s.removed) for s in changed_sections),
        changed=sum(len(s.changed) for s in changed_sections),
        reflagged=sum(len(s.reflagged) for s in changed_sections),
        overruns={r: Change(reasons_a[r], reasons_b[r]) for r in reasons},
        truncated=truncated,
        embedded=embedded,
        embedding_model=model,
        largest=Change(_largest(sizes_a), _largest(sizes_b)),
        tiny_chunks=Change(stats_a.tiny_chunks or 0, stats_b.tiny_chunks or 0),
        grown_chunks=Change(stats_a.grown_chunks or 0, stats_b.grown_chunks or 0),
        mostly_marker_chunks=Change(
            stats_a.mostly_marker_chunks or 0, stats_b.mostly_marker_chunks or 0
        ),
        breakdown_marker_share=Change(
            stats_a.breakdown_marker_share or 0.0, stats_b.breakdown_marker_share or 0.0
        ),
        section_marker_share=Change(
            stats_a.section_marker_share or 0.0, stats_b.section_marker_share or 0.0
        ),
        median_without_markers=Change(
            *(
                s.sizes_without_markers.median if s.sizes_without_markers else 0
                for s in (stats_a, stats_b)
            )
        ),
    )
    return ChunkSetDiff(
        version_a=full_a,
        version_b=full_b,
        policy_a=_policy_line(db, full_a),
        policy_b=_policy_line(db, full_b),
        summary=summary,
        sections=changed_sections,
        by_spec=_with_chunk_counts(db, list(by_spec.values()), full_a, full_b),
    )


def _with_chunk_counts(
    db: SpecStore, specs: list[SpecDiff], version_a: str, version_b: str
) -> list[SpecDiff]:
    """``specs`` with their chunk counts in A → B as the corpus listing counts them."""
    if not specs:
        return specs
    counts = [
        {listing.spec.name: listing.chunks for listing in db.corpus.listing(version, None)}
        for version in (version_a, version_b)
    ]
    for spec in specs:
        spec.chunks = Change(counts[0].get(spec.spec, 0), counts[1].get(spec.spec, 0))
    return specs


def _count_into(spec: SpecDiff, overruns: Change[int], section: SectionDiff | None = None) -> None:
    """Add one section's figures to its spec's: its ``overruns`` (A → B), and with ``section``
    (None for an unchanged one) its changes."""
    spec.overruns = Change(
        spec.overruns.before + overruns.before, spec.overruns.after + overruns.after
    )
    if section is not None and section.is_changed:
        spec.sections_changed += 1
        spec.added += len(section.added)
        spec.removed += len(section.removed)
        spec.changed += len(section.changed)
        spec.reflagged += len(section.reflagged)


def _largest(sizes: list[ChunkSize]) -> tuple[str, int] | None:
    """``(id, size)`` of the largest chunk (the first in order on a tie), or None."""
    largest = max(sizes, key=lambda c: c.size, default=None)
    return (largest.id, largest.size) if largest else None
