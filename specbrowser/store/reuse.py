"""Chunk trees a re-chunk copies from stored sets instead of breaking sections down again.

A section's chunk tree depends on the threshold only through "does a Markdown of n characters
fit", and each stored root row keeps the range of thresholds under which every such test comes
out the same (``threshold_lo <= threshold < threshold_hi``, see
:attr:`specbrowser.model.Chunk.holds_for`). So under a new policy a section's tree is the one a
stored set already holds when

- the set was made by this converter (:data:`~specbrowser.chunking.policy.CONVERTER_VERSION`)
  with the same Markdown settings, and its stats found every marker of its texts in their
  subsections;
- the new threshold is in the root row's range;
- and either the set has the same breakdown tags, max depth, strategy and minimum size, or
  the section is one chunk within the threshold there (``threshold_hi`` NULL), which none of
  those changes (a section that fits is one chunk under either strategy);
- and the tree is one chunk, or the set recorded where its anchors lie
  (:meth:`specbrowser.store.symbols.SymbolIndex.has_anchor_map`), so that they are copied too.

The copied rows are the same rows with new ordinals; their texts (and the texts' FTS5 entries,
embeddings and token counts) are the stored ones. Queries are parameterized; writes happen
inside the caller's transaction.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

from specbrowser.chunking.markers import marker_sizes
from specbrowser.chunking.policy import CONVERTER_VERSION, ChunkPolicy
from specbrowser.chunking.stats import ChunkFacts, ChunkSetStats
from specbrowser.errors import DatabaseError
from specbrowser.types import MismatchKind

if TYPE_CHECKING:
    from specbrowser.store.database import SpecStore

_ROW_COLUMNS = (
    "policy_version, id, section_id, parent_id, subsections, depth, layer, "
    "breakdown_tag, ordinal, over_threshold, text_id, threshold_lo, threshold_hi, document_id, "
    "anchors"
)


class StoredTree(NamedTuple):
    """A section's chunk tree in a stored set, which a new policy makes again.

    Attributes:
        source: the stored set's policy version.
        first_ordinal: the ordinal of the section's root chunk in that set (its chunks follow it
            in pre-order, so they are ``first_ordinal`` to ``first_ordinal + chunks - 1``).
        chunks: how many chunks the tree has (1 for a section that is one chunk).
    """

    source: str
    first_ordinal: int
    chunks: int


@dataclass
class CopyPlan:
    """The stored chunk trees a re-chunk copies, and where they go in the new set.

    Attributes:
        trees: section id → the stored tree to copy (:meth:`StoredTrees.plan`).
        ordinals: section id → the first ordinal of its chunks in the new set (filled by
            :func:`specbrowser.session.ingest.chunk_sections` as it passes the section).
    """

    trees: dict[str, StoredTree]
    ordinals: dict[str, int] = field(default_factory=dict)

    @property
    def counts(self) -> dict[str, int]:
        """Section id → how many chunks its copied tree has."""
        return {section_id: tree.chunks for section_id, tree in self.trees.items()}

    @property
    def chunk_count(self) -> int:
        """How many chunks are copied."""
        return sum(tree.chunks for tree in self.trees.values())


def _compatible(settings: dict[str, object], stats: ChunkSetStats, policy: ChunkPolicy) -> bool:
    """Whether a stored set's texts are what this code makes under ``policy``'s Markdown
    settings, threshold unit and summaries (the retrieval texts' summary lines), with every
    marker of its texts in its subsections."""
    return (
        settings.get("converter_version") == CONVERTER_VERSION
        and settings.get("markdown") == policy.markdown.settings()
        and bool(settings.get("summaries", True)) == policy.summaries
        and f"threshold_{policy.unit}" in settings  # sizes and ranges in the same unit
        and stats.markers_sound
    )


def _deltas(plan: CopyPlan) -> dict[str, dict[str, int]]:
    """Source version → {section id: new first ordinal − stored first ordinal}."""
    by_source: dict[str, dict[str, int]] = {}
    for section_id, tree in plan.trees.items():
        by_source.setdefault(tree.source, {})[section_id] = (
            plan.ordinals[section_id] - tree.first_ordinal
        )
    return by_source


class StoredTrees:
    """The chunk trees a re-chunk can copy from stored sets (``store.trees``)."""

    def __init__(self, store: SpecStore) -> None:
        self.store = store
        self.db = store.db

    def plan(self, policy: ChunkPolicy) -> CopyPlan:
        """Every section for which a stored set holds the chunk tree that breaking it down under
        ``policy`` would make again (see the module's rules). A set of ``policy.version`` itself is
        never a source (a rebuild makes it again). Sources are tried active set first, then newest
        first. An empty plan when no stored set qualifies."""
        same_cut: dict[str, bool] = {}
        for version, settings_json, stats_json in self.db.execute(
            "SELECT version, settings, stats FROM policies WHERE version != ? "
            "ORDER BY active DESC, created_at DESC, version",
            [policy.version],
        ):
            settings = json.loads(settings_json or "{}")
            if _compatible(settings, ChunkSetStats.from_json(stats_json), policy):
                same_cut[version] = (
                    settings.get("breakdown_tags") == list(policy.breakdown_tags)
                    and settings.get("max_depth") == policy.max_depth
                    and settings.get("strategy") == policy.strategy
                    and settings.get("min_chars") == policy.min_chars
                )
        threshold = policy.threshold
        found: dict[str, StoredTree] = {}
        for version, cut in same_cut.items():
            # a set made before anchor maps were recorded lends only trees of one chunk (their
            # anchors all lie in the root): the others would come without their anchors
            mapped = self.store.symbols.has_anchor_map(version)
            # a root row's range holds for the whole tree; its chunks are counted per section
            rows = self.db.execute(
                "SELECT r.section_id, r.ordinal, n.count FROM chunk_rows r "
                "JOIN (SELECT section_id, "
                "count(*) AS count FROM chunk_rows WHERE policy_version = ? GROUP BY section_id) n "
                "ON n.section_id = r.section_id WHERE r.policy_version = ? AND r.id = r.section_id "
                "AND r.parent_id IS NULL AND r.threshold_lo <= ? AND "
                + (
                    "(r.threshold_hi IS NULL OR r.threshold_hi > ?)"
                    if cut
                    else "r.threshold_hi IS NULL"
                ),
                [version, version, threshold, threshold] if cut else [version, version, threshold],
            )
            for section_id, ordinal, count in rows:
                if section_id not in found and (mapped or count == 1):
                    found[section_id] = StoredTree(version, ordinal, count)
        return CopyPlan(found)

    def facts(self, plan: CopyPlan, mismatches: Mapping[str, MismatchKind]) -> list[ChunkFacts]:
        """What :func:`specbrowser.chunking.stats.compute_stats` counts of the chunks ``plan``
        copies, as they will be in the new set (``mismatches``: each section's heading-path mismatch
        kind).

        Their markers are not read again: their source set's stats found every marker resolved and
        equal to its chunk's subsections (:meth:`StoredTrees.plan` takes no other source), and what
        they name is in the new set too: chunks of the same copied tree, or child sections' root
        chunks, which every set has. So each copied chunk adds nothing to the marker counts. Their
        texts are read for the markers' sizes only (the quality figures: marker shares, tiny
        chunks)."""
        facts: list[ChunkFacts] = []
        checked: list[str] = []  # no marker left to count (see above); shared, never changed
        for source, deltas in _deltas(plan).items():
            for (
                chunk_id,
                section_id,
                parent_id,
                depth,
                layer,
                tag,
                over,
                size,
                ordinal,
                text,
            ) in self.db.execute(
                "SELECT r.id, r.section_id, r.parent_id, r.depth, r.layer, r.breakdown_tag, "
                "r.over_threshold, t.size, r.ordinal + j.value, t.text "
                "FROM json_each(?) j CROSS JOIN chunk_rows r ON r.policy_version = ? "
                "AND r.section_id = j.key CROSS JOIN texts t ON t.id = r.text_id",
                [json.dumps(deltas), source],
            ):
                facts.append(
                    ChunkFacts(
                        chunk_id,
                        parent_id,
                        depth,
                        layer,
                        tag,
                        over,
                        size,
                        mismatches.get(section_id),
                        checked,
                        checked,
                        ordinal,
                        marker_sizes(text),
                    )
                )
        return facts

    def copy(self, version: str, plan: CopyPlan) -> int:
        """Insert the rows of the trees ``plan`` copies into the set ``version``, each section's
        chunks renumbered from its new first ordinal, with their anchors
        (:mod:`specbrowser.store.symbols`); returns how many chunk rows. Call inside a
        transaction, after the set's old rows were deleted.

        Raises:
            DatabaseError: the stored trees are not what ``plan`` found (another process changed
                a source set since): the caller's transaction must roll back.
        """
        copied = 0
        for source, deltas in _deltas(plan).items():
            copied += self.db.execute(
                f"INSERT INTO chunk_rows ({_ROW_COLUMNS}) "
                "SELECT ?, r.id, r.section_id, r.parent_id, "
                "r.subsections, r.depth, r.layer, r.breakdown_tag, r.ordinal + j.value, "
                "r.over_threshold, r.text_id, r.threshold_lo, r.threshold_hi, r.document_id, "
                "r.anchors FROM json_each(?) j CROSS JOIN chunk_rows r ON r.policy_version = ? "
                "AND r.section_id = j.key",
                [version, json.dumps(deltas), source],
            ).rowcount
        if copied != plan.chunk_count:
            raise DatabaseError(
                f"a stored chunk set changed during the re-chunk ({copied:,} chunks "
                f"copied of {plan.chunk_count:,}); run it again"
            )
        return copied
