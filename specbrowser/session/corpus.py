"""A spec read into a corpus: its ids told apart from the other specs', its ordinals placed,
and the policy each stored chunk set breaks it down with.

See :mod:`specbrowser.store.corpus` for how the corpus is stored.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any, NamedTuple

from specbrowser.chunking.policy import ChunkPolicy, PolicyForKind
from specbrowser.chunking.stats import StatsPart, merge_parts, stats_part
from specbrowser.errors import PolicyError
from specbrowser.formats import format_for_kind
from specbrowser.model import (
    ORDINAL_SPAN,
    Chunk,
    ParsedSpec,
    Section,
    SpecIdentity,
    TocNode,
    prefixed,
)

if TYPE_CHECKING:  # the store is imported while the spec is parsed (session.ingest)
    from specbrowser.store import SpecStore
    from specbrowser.store.corpus import CorpusPlace, SpecRow

_DATA_ID = re.compile(r'data-id="([^"]*)"')


def place_spec(parsed: ParsedSpec, place: CorpusPlace) -> list[Section]:
    """Rename, in place, the ids of ``parsed`` that another spec of the corpus has
    (``place.taken``) to ``<name>:<id>``, and number its section ordinals from
    ``place.position * ORDINAL_SPAN``; returns its sections. The first spec of a corpus (and
    any spec whose ids no other has) keeps its ids; its element ids (link anchors) never
    change, only the section ids chunks and markers use."""
    base = place.position * ORDINAL_SPAN
    renamed = {s.id: prefixed(place.name, s.id) for s in parsed.sections if s.id in place.taken}
    if renamed:
        _rename(parsed, renamed)
    if base:
        for section in parsed.sections:
            section.ordinal += base
    return parsed.sections


def _rename(parsed: ParsedSpec, renamed: dict[str, str]) -> None:
    """Section ids (and the ``data-id`` of every placeholder and own-content element naming
    them, in the HTML and the parsed elements, and the TOC's targets) by ``renamed``."""
    import html  # deferred: only a spec placed beside others is renamed (html.entities, 1.5 ms)

    def attribute(match: re.Match[str]) -> str:
        value = html.unescape(match.group(1))
        new = renamed.get(value)
        return match.group(0) if new is None else f'data-id="{html.escape(new)}"'

    for section in parsed.sections:
        section.id = renamed.get(section.id, section.id)
        if section.parent_id is not None:
            section.parent_id = renamed.get(section.parent_id, section.parent_id)
        section.html = _DATA_ID.sub(attribute, section.html)
    elements = {}
    for section_id, element in parsed.elements.items():
        for node in element.iter():
            value = node.get("data-id")
            if value is not None and value in renamed:
                node.set("data-id", renamed[value])
        elements[renamed.get(section_id, section_id)] = element
    parsed.elements = elements
    _rename_toc(parsed.toc, renamed)


def _rename_toc(nodes: list[TocNode], renamed: dict[str, str]) -> None:
    for node in nodes:
        if node.target_id is not None:
            node.target_id = renamed.get(node.target_id, node.target_id)
        _rename_toc(node.children, renamed)


def place_chunks(chunks: list[Chunk], place: CorpusPlace) -> None:
    """Give a spec's finished chunk set (document chunk first) its place in the corpus: the
    document chunk's id (:attr:`CorpusPlace.document_chunk_id`) and ordinals from
    ``place.position * ORDINAL_SPAN``. Nothing changes for the first spec."""
    base = place.position * ORDINAL_SPAN
    if chunks and chunks[0].layer == "document":
        chunks[0].id = place.document_chunk_id
    if base:
        for chunk in chunks:
            chunk.ordinal += base


def policy_for_spec(settings: Mapping[str, Any], set_kind: str, kind: str) -> ChunkPolicy:
    """The policy a stored chunk set (``settings``, made for a spec of ``set_kind``) breaks a
    spec of ``kind`` down with: the set's own when both kinds have one format; else its
    threshold, depth, strategy, minimum and edit mode, with ``kind``'s format's Markdown
    config, and its tags when they are not ``set_kind``'s format's defaults (the user named
    them), else ``kind``'s format's defaults."""
    policy = ChunkPolicy.from_settings(settings)
    own, other = format_for_kind(set_kind), format_for_kind(kind)
    if own is other:
        return policy
    defaults = own.seed_breakdown_tags if policy.strategy == "seed" else own.breakdown_tags
    named = tuple(policy.breakdown_tags) != tuple(defaults)
    tags = policy.breakdown_tags
    if not named:
        tags = other.seed_breakdown_tags if policy.strategy == "seed" else other.breakdown_tags
    return replace(
        policy,
        breakdown_tags=tuple(tags),
        markdown=replace(other.markdown_config, edits=policy.markdown.edits),
    )


def set_holding(
    db: SpecStore,
    sha256: str,
    policy: ChunkPolicy,
    policy_for_kind: PolicyForKind | None = None,
) -> tuple[SpecRow, str] | None:
    """The stored spec whose source bytes hash to ``sha256`` and the version of the stored
    chunk set that holds it broken down with ``policy`` (with ``policy_for_kind``, the policy
    it gives for the stored spec's kind; in a corpus, the set's policy in the spec's format's
    form: :func:`policy_for_spec`; a set another converter made never counts), or None: an
    ingest of those bytes under that policy would write rows the database does not have."""
    specs = db.corpus.all()
    spec = next((s for s in specs if s.sha256 == sha256), None)
    if spec is None:
        return None
    if policy_for_kind is not None:
        policy = policy_for_kind(spec.kind)
    for info in db.sets.all():
        if info.stale:  # another converter made it: its settings rebuild today's version
            continue
        if policy_for_spec(info.settings, specs[0].kind, spec.kind).version != policy.version:
            continue
        if db.corpus.chunk_documents(info.version, [spec.document_chunk_id]):
            return spec, info.version
    return None


def recount_sets(db: SpecStore, *, alone: bool = False) -> None:
    """Store, with every chunk set of a corpus, the stats of all its chunks (every spec's):
    what an ingest that added or replaced one spec, or a removal, leaves behind, as a re-chunk
    of the corpus counts them (:func:`~specbrowser.chunking.stats.compute_stats`). Call inside
    the writing transaction. A database of one spec keeps the stats its ingest stored, unless
    ``alone`` (a removal left it so: its set's stats still count the removed spec).

    Each spec's part of the count (:func:`~specbrowser.chunking.stats.stats_part`) is kept
    with the set's stats and counted again only when the digest of its rows changed
    (:meth:`~specbrowser.store.database.SpecStore.rows_digests`), so adding a spec reads that
    spec's chunks, not the corpus's; the set's stats are the parts merged in corpus order
    (:func:`~specbrowser.chunking.stats.merge_parts`)."""
    specs = db.corpus.all()
    if len(specs) < (1 if alone else 2):
        return
    sections = db.sections.count()
    for info in db.sets.all():
        kept = db.sets.stats_parts(info.version)
        parts: dict[str, tuple[str, StatsPart]] = {}
        for spec_id, digest in db.rows_digests(info.version).items():
            held = kept.get(spec_id)
            if held is None or held[0] != digest:
                held = (digest, stats_part(db.chunk_facts(info.version, spec_id)))
            parts[spec_id] = held
        order = [spec.id for spec in specs if spec.id in parts]
        stats = merge_parts((parts[spec_id][1] for spec_id in order), sections)
        db.sets.set_stats(info.version, stats, parts if len(specs) > 1 else None)


class SetPlan(NamedTuple):
    """The chunk sets an ingest into a corpus writes.

    Attributes:
        into: the stored set the ingest's own policy is the corpus form of, or None (the
            database holds no other spec: the ingest's set is its policy's version).
        others: every other stored set, with the policy it breaks this spec down with.
    """

    into: str | None
    others: dict[str, ChunkPolicy]


def plan_sets(
    db: SpecStore, policy: ChunkPolicy, kind: str, identity: SpecIdentity, title: str
) -> SetPlan:
    """Which stored chunk set ``policy`` (for a spec of ``kind``) writes into, and what every
    other set needs. With no other spec stored, the ingest works as on a database of one spec.

    Raises:
        PolicyError: the database holds other specs and no stored set breaks a spec of this
            kind down with ``policy`` (a new set for a corpus is a re-chunk of it).
    """
    place = db.corpus.place(identity, title)
    specs = db.corpus.all()
    others_exist = any(place.matched is None or s.id != place.matched.id for s in specs)
    if not others_exist:
        return SetPlan(None, {})
    first = specs[0]
    found: str | None = None
    others: dict[str, ChunkPolicy] = {}
    for info in db.sets.all():
        spec_policy = policy_for_spec(info.settings, first.kind, kind)
        if spec_policy.version == policy.version and found is None:
            found = info.version
        else:
            others[info.version] = spec_policy
    if found is None and db.sets.count():
        raise PolicyError(
            f"{db.path} holds other specs and no chunk set of these options; ingest with the "
            "options of a stored set (see: specbrowser policies DB), then re-chunk the corpus"
        )
    return SetPlan(found, others)
