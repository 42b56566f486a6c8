"""Re-chunk a stored spec under another policy, from its stored sections (no source file).

The result equals what ``specbrowser ingest`` stores for the same policy: the same breakdown
(:func:`specbrowser.chunking.pipeline.chunk_sections`, with the rules of the stored spec's
format), the same document chunk and retrieval texts
(:func:`specbrowser.chunking.enrich.finish_chunk_set`), the same TOC paths and mismatches
(reconciled once, at ingest, and stored with the sections, which the ``chunks`` view joins).

Only the sections whose chunk trees no stored set holds are broken down: the others' rows are
copied from a stored set (:mod:`specbrowser.store.reuse` says when a stored tree is the one the
breakdown would make; tests compare both ways on ECMA-262).

The chunk set is written in one transaction (only its texts no stored set has are new rows): an
exception (one raised by the ``progress`` callback, which is how the app cancels, included)
or Ctrl-C leaves the database as it was.

Thread use: everything lives in the call; pass a connection of the calling thread
(``store.open_database(path)`` in the worker).
"""

from __future__ import annotations

import time
from collections.abc import Container, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone

from specbrowser.chunking.breakdown import breakdown_applies
from specbrowser.chunking.enrich import finish_chunk_set
from specbrowser.chunking.markdown_cache import SectionMarkdown
from specbrowser.chunking.pipeline import chunk_sections, summary_packet_for
from specbrowser.chunking.policy import ChunkPolicy
from specbrowser.chunking.rules import ChunkingRules
from specbrowser.chunking.stats import ChunkSetStats, compute_stats
from specbrowser.chunking.summaries import SummaryPacket, html_captions, packet_sections
from specbrowser.errors import DatabaseError, NotFoundError
from specbrowser.formats import format_for_kind
from specbrowser.model import ORDINAL_SPAN, Chunk, Section
from specbrowser.progress import Progress
from specbrowser.search.tokens import token_measure
from specbrowser.session.collector import collector_paused
from specbrowser.session.corpus import policy_for_spec
from specbrowser.store import SpecStore
from specbrowser.store.reuse import CopyPlan


@dataclass
class RechunkResult:
    """What a re-chunk did.

    Attributes:
        version: the new chunk set's policy version (active unless ``activate=False``).
        previous_version: the version that was active before, or None (no set was active).
        stats: :func:`specbrowser.chunking.stats.compute_stats` of the new set (sizes in
            characters).
        timings: seconds per stage: ``load`` (sections, TOC, Markdown cache), ``chunk``
            (breakdown, document chunk, TOC paths, stats), ``store`` (the write transaction:
            the chunk rows, the new texts with their FTS5 index, and new Markdown cache rows),
            ``total``.
        already_stored: the database held a set of this policy version before the call; it is
            then only activated (its stored stats returned, ``chunk`` and ``store`` ~0), unless
            ``rebuild=True``. A policy version hashes the settings and the converter version, so
            the stored set is what a rebuild would write.
        new_texts: how many of the set's texts no stored set had (the only texts written, with
            their FTS5 entries; the others are shared).
        copied_sections: how many sections' chunk trees were copied from stored sets instead
            of being broken down (see :mod:`specbrowser.store.reuse`).
        copied_chunks: how many chunks those trees hold.
        parsed_sections: how many sections' stored HTML was parsed and run through the
            breakdown; the others were copied, or made one chunk from the Markdown cache (the
            breakdown could not change them).
    """

    version: str
    previous_version: str | None
    stats: ChunkSetStats
    timings: dict[str, float] = field(default_factory=dict)
    already_stored: bool = False
    new_texts: int = 0
    copied_sections: int = 0
    copied_chunks: int = 0
    parsed_sections: int = 0


def rechunk(
    db: SpecStore,
    policy: ChunkPolicy,
    *,
    progress: Progress | None = None,
    activate: bool = True,
    rebuild: bool = False,
    use_cache: bool = True,
    copy_stored: bool = True,
) -> RechunkResult:
    """Chunk the stored sections under ``policy`` and store the set, all or nothing.

    ``policy.threshold`` is in characters of chunk Markdown (markers included), or in tokens
    of the retrieval text (:attr:`ChunkPolicy.unit`; the default model's tokenizer counts). With
    ``activate`` the new set becomes the active one. A set of the same policy version already
    stored is only activated (see :attr:`RechunkResult.already_stored`) unless ``rebuild``.

    The Markdown cache (:mod:`specbrowser.store.cache`) spares parsing and converting sections
    again; what this call had to convert is added to it. ``use_cache=False`` neither reads nor
    writes it (benchmarks and tests compare both: the chunk sets are identical).

    ``copy_stored=False`` breaks every section down, copying no stored chunk tree (benchmarks
    and tests compare both: the chunk sets are identical).

    Raises:
        NotFoundError: the database holds no spec.
        DatabaseError: the database is locked or read-only, or its spec was replaced while the
            re-chunk ran.
        SpecParseError: a stored section's HTML holds no element (a damaged database).
        EmbeddingError: a threshold in tokens, and the tokenizer is not installed.
    """
    start = time.perf_counter()
    previous = _active_version_or_none(db)
    version = policy.version
    already = db.sets.has(version)
    if already and not rebuild:
        return _activate_stored(db, version, previous, activate, start)
    with collector_paused():
        if db.corpus.count() > 1:
            return _build_corpus(
                db, policy, progress, activate, use_cache, previous, already, start
            )
        return _build(
            db, policy, progress, activate, use_cache, copy_stored, previous, already, start
        )


def _build(
    db: SpecStore,
    policy: ChunkPolicy,
    progress: Progress | None,
    activate: bool,
    use_cache: bool,
    copy_stored: bool,
    previous: str | None,
    already: bool,
    start: float,
) -> RechunkResult:
    """The re-chunk proper (:func:`rechunk` after its checks): load, chunk, store."""
    timings: dict[str, float] = {}
    version = policy.version
    document = db.sections.document()
    if progress:
        progress("loading", 0, 0)
    digest = db.sections.digest()
    copies = db.trees.plan(policy) if copy_stored else CopyPlan({})
    sections, known = _load_sections(db, digest if use_cache else None, policy, copies.trees)
    mismatches = db.sets.section_mismatches()
    timings["load"] = time.perf_counter() - start
    mark = time.perf_counter()
    rules = format_for_kind(document.kind).chunking_rules

    def summary_packet() -> SummaryPacket | None:
        return _summary_packet(
            db, sections, known, policy, rules, digest=digest if use_cache else None
        )

    # a threshold in tokens counts the document summary: its packet comes before the breakdown;
    # else it is made while other processes break sections down
    early = policy.unit == "tokens"
    packet = summary_packet() if early else None

    def beside_breakdown() -> None:
        nonlocal packet
        if not early:
            packet = summary_packet()

    tokens = token_measure(policy, document.title, packet.global_synopsis if packet else "")
    chunked = chunk_sections(
        sections,
        policy,
        progress,
        rules=rules,
        known=known,
        learn=use_cache,
        copied=copies.counts,
        tokens=tokens,
        meanwhile=beside_breakdown,
    )
    copies.ordinals.update(chunked.copied_at)
    learned, broken_down = chunked.learned, chunked.broken_down
    chunks = finish_chunk_set(
        document,
        sections,
        chunked.chunks,
        policy.threshold,
        copied=copies.chunk_count,
        measure=tokens.count if tokens else len,
        packet=packet,
        summaries=chunked.summaries,
    )
    for chunk in chunks:  # the TOC paths are the sections' (stored); the stats count mismatches
        chunk.mismatch = mismatches.get(chunk.section_id)  # type: ignore[arg-type]
    stats = compute_stats(chunks, len(sections), db.trees.facts(copies, mismatches))
    timings["chunk"] = time.perf_counter() - mark
    mark = time.perf_counter()
    if progress:
        progress("storing", 0, 0)
    now = datetime.now(timezone.utc).isoformat(timespec="seconds")
    state = "active" if activate else "not active"
    with db.transaction(f"chunk set {version} ({state})"):
        if db.sections.digest() != digest:
            raise DatabaseError(
                "the database's spec was replaced during the re-chunk; run it again"
            )
        new_texts = db.sets.insert(
            policy,
            chunks,
            stats,
            now,
            activate=activate,
            copies=copies,
            owners=[document.id] * len(chunks),
        )
        if learned and digest:
            db.cache.save(digest, policy.markdown, learned)
    timings["store"] = time.perf_counter() - mark
    timings["total"] = time.perf_counter() - start
    return RechunkResult(
        version=version,
        previous_version=previous,
        stats=stats,
        timings=timings,
        already_stored=already,
        new_texts=new_texts,
        copied_sections=len(copies.trees),
        copied_chunks=copies.chunk_count,
        parsed_sections=len(broken_down),
    )


def _build_corpus(
    db: SpecStore,
    policy: ChunkPolicy,
    progress: Progress | None,
    activate: bool,
    use_cache: bool,
    previous: str | None,
    already: bool,
    start: float,
) -> RechunkResult:
    """The re-chunk of a corpus of several specs: each spec broken down from its stored
    sections with ``policy`` in its format's form (:func:`policy_for_spec`; the first spec's
    format is the policy's), placed as its ingest placed it, all written as one set. No stored
    tree is copied (a tree's reuse is planned over one spec's sections)."""
    timings: dict[str, float] = {"load": 0.0}
    specs = db.corpus.all()
    chunks: list[Chunk] = []
    owners: list[str] = []
    learned_by_digest: list[tuple[str, ChunkPolicy, dict[str, SectionMarkdown]]] = []
    mismatches = db.sets.section_mismatches()
    sections_total = 0
    mark = time.perf_counter()
    for spec in specs:
        document = db.sections.document_of(spec.id)
        spec_policy = policy_for_spec(policy.settings(), specs[0].kind, spec.kind)
        sections = db.sections.all(document_id=spec.id)
        sections_total += len(sections)
        known = (
            db.cache.load(spec.sections_sha256, spec_policy.markdown, [s.id for s in sections])
            if use_cache
            else {}
        )
        if known:
            db.cache.load_details(spec.sections_sha256, spec_policy.markdown, known, list(known))
        rules = format_for_kind(document.kind).chunking_rules
        packet = _summary_packet(db, sections, known, spec_policy, rules, spec.id)
        summary = packet.global_synopsis if packet else ""
        tokens = token_measure(spec_policy, document.title, summary)
        chunked = chunk_sections(
            sections,
            spec_policy,
            progress,
            rules=rules,
            known=known,
            learn=use_cache,
            tokens=tokens,
        )
        finished = finish_chunk_set(
            document,
            sections,
            chunked.chunks,
            spec_policy.threshold,
            measure=tokens.count if tokens else len,
            packet=packet,
            summaries=chunked.summaries,
        )
        base = spec.position * ORDINAL_SPAN
        finished[0].id = spec.document_chunk_id
        for chunk in finished:
            chunk.ordinal += base
            chunk.mismatch = mismatches.get(chunk.section_id)  # type: ignore[arg-type]
        chunks += finished
        owners += [spec.id] * len(finished)
        if chunked.learned:
            learned_by_digest.append((spec.sections_sha256, spec_policy, chunked.learned))
    stats = compute_stats(chunks, sections_total)
    timings["chunk"] = time.perf_counter() - mark
    mark = time.perf_counter()
    now = datetime.now(timezone.utc).isoformat(timespec="seconds")
    state = "active" if activate else "not active"
    with db.transaction(f"chunk set {policy.version} of {len(specs)} specs ({state})"):
        new_texts = db.sets.insert(policy, chunks, stats, now, activate=activate, owners=owners)
        for digest, spec_policy, learned in learned_by_digest:
            db.cache.save(digest, spec_policy.markdown, learned)
    timings["store"] = time.perf_counter() - mark
    timings["total"] = time.perf_counter() - start
    return RechunkResult(
        version=policy.version,
        previous_version=previous,
        stats=stats,
        timings=timings,
        already_stored=already,
        new_texts=new_texts,
        parsed_sections=sections_total,
    )


def _summary_packet(
    db: SpecStore,
    sections: list[Section],
    known: Mapping[str, SectionMarkdown],
    policy: ChunkPolicy,
    rules: ChunkingRules,
    document_id: str | None = None,
    *,
    digest: str | None = None,
) -> SummaryPacket | None:
    """The spec's summary packet for a policy with summaries on (None otherwise). The sections
    it reads that ``known`` lacks (those a re-chunk copies) are taken from the Markdown cache of
    the stored sections ``digest`` when given and cached there; the HTML of the rest, when the
    load did not give it, is read here. The table captions come from every stored section of
    the spec (``document_id``; None: the store's one spec)."""
    if not policy.summaries:
        return None
    needed = packet_sections(sections)
    wanted = [s.id for s in needed if s.id not in known]
    if wanted and digest:
        known = {**known, **db.cache.load(digest, policy.markdown, wanted)}
    missing = [s.id for s in needed if s.id not in known and not s.html]
    if missing:
        html = db.sections.html(missing)
        for section in sections:
            if section.id in html:
                section.html = html[section.id]
    captions = [
        caption
        for html in db.sections.html_containing("caption", document_id)
        for caption in html_captions(html)
    ]
    return summary_packet_for(sections, policy, rules, known, captions)


def _load_sections(
    db: SpecStore, digest: str | None, policy: ChunkPolicy, copied: Container[str]
) -> tuple[list[Section], dict[str, SectionMarkdown]]:
    """The stored sections and the cached conversions of those not ``copied`` (none without
    ``digest``). Of the sections not copied, only those the cache does not cover get their HTML
    read, and only those the breakdown will cut get their cached detail (under a threshold in
    tokens, every section's: its character count does not tell)."""
    sections = db.sections.all(html=False)
    chunked = [s.id for s in sections if s.id not in copied]
    known = db.cache.load(digest, policy.markdown, chunked) if digest else {}
    to_parse = [
        i
        for i in chunked
        if i not in known
        or policy.unit == "tokens"
        or breakdown_applies(len(known[i].markdown), policy)
    ]
    html = db.sections.html(to_parse)
    for section in sections:
        section.html = html.get(section.id, section.html)
    if digest:
        db.cache.load_details(digest, policy.markdown, known, to_parse)
    return sections, known


def _activate_stored(
    db: SpecStore, version: str, previous: str | None, activate: bool, start: float
) -> RechunkResult:
    """Activate the stored set of ``version`` (when asked) and report its stored stats."""
    if activate and previous != version:
        db.sets.activate(version)
    stats = ChunkSetStats.from_dict(db.sets.stats(version) or {})
    elapsed = time.perf_counter() - start
    return RechunkResult(
        version=version,
        previous_version=previous,
        stats=stats,
        timings={"load": elapsed, "chunk": 0.0, "store": 0.0, "total": elapsed},
        already_stored=True,
    )


def _active_version_or_none(db: SpecStore) -> str | None:
    try:
        return db.active_version()
    except NotFoundError:
        return None
