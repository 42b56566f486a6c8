"""The pipeline: parse → Markdown → breakdown → enrich → store, all or nothing.

:func:`chunk_sections` runs the same breakdown from stored sections, without the source files.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from lxml import etree

from specbrowser.chunking.breakdown import break_down, whole_section_chunk
from specbrowser.chunking.enrich import add_heading_paths, finish_chunk_set, section_ordinal
from specbrowser.chunking.markdown import resolve_roles, to_markdown
from specbrowser.chunking.markdown_cache import SectionMarkdown, capture, restore
from specbrowser.chunking.parallel import split_map
from specbrowser.chunking.policy import ChunkPolicy, PolicyForKind
from specbrowser.chunking.stats import ChunkSetStats, compute_stats
from specbrowser.chunking.toc_paths import Mismatch
from specbrowser.errors import DatabaseError, SpecParseError
from specbrowser.formats import ParsedSpec, load_spec
from specbrowser.formats.html import parse_fragment
from specbrowser.formats.toc import load_toc_file
from specbrowser.model import DOCUMENT_CHUNK_ID, Chunk, Section
from specbrowser.progress import Progress
from specbrowser.store import count_chunk_sets, open_database, store_ingest
from specbrowser.store.cache import save_markdown
from specbrowser.types import IngestOutcome


@dataclass
class IngestResult:
    """What an ingest did.

    Attributes:
        parsed: the parsed spec (document and sections).
        chunks: the stored chunk set: the document chunk, then the section chunks in pre-order.
        stats: :func:`compute_stats` of ``chunks``.
        timings: seconds per stage (``parse``, ``chunk``, ``store``, ``total``).
        outcome: what happened to the database (:data:`specbrowser.types.IngestOutcome`).
        chunk_sets: how many chunk sets the database holds afterwards.
        mismatches: disagreements between the section tree and the TOC (empty without a TOC).
    """

    parsed: ParsedSpec
    chunks: list[Chunk]
    stats: ChunkSetStats
    timings: dict[str, float]
    outcome: IngestOutcome
    chunk_sets: int = 1
    mismatches: list[Mismatch] = field(default_factory=list)


def chunk_spec(
    parsed: ParsedSpec,
    policy: ChunkPolicy,
    progress: Progress | None = None,
    learned: dict[str, SectionMarkdown] | None = None,
) -> list[Chunk]:
    """Break every section of a parsed spec into chunks, in document order (the section chunks
    of a chunk set; :func:`specbrowser.chunking.enrich.finish_chunk_set` adds the document chunk).

    Consumes ``parsed.elements`` (the breakdown mutates them). Ordinals count from 1 in
    pre-order (0 is the document chunk's). ``learned``, when given, receives each section's
    conversion (:func:`specbrowser.chunking.markdown_cache.capture`) for the Markdown cache.
    """
    return _chunk_sections(
        parsed.sections, parsed.elements.__getitem__, policy, progress, learned=learned
    )


def chunk_sections(
    sections: list[Section],
    policy: ChunkPolicy,
    progress: Progress | None = None,
    *,
    known: Mapping[str, SectionMarkdown] | None = None,
    learned: dict[str, SectionMarkdown] | None = None,
    copied: Mapping[str, int] | None = None,
    copied_at: dict[str, int] | None = None,
    broken_down: list[str] | None = None,
) -> list[Chunk]:
    """Break sections into chunks from their stored own HTML: no source file needed.

    Each section's :attr:`Section.html` is parsed back (:func:`parse_fragment`) and broken down
    exactly as :func:`chunk_spec` does at ingest, so the result equals the stored section chunks
    (tests check this on the sample spec and on ECMA-262). ``sections`` must be in document
    order with parents before children, as stored.

    ``known`` (section id → its cached conversion under ``policy.markdown``) saves work with
    the same result: a section whose cached Markdown the breakdown cannot change is not parsed
    at all (:func:`whole_section_chunk`), and one with cached detail is parsed but not
    converted again (:func:`specbrowser.chunking.markdown_cache.restore`). The html of a
    section that ``known`` covers that way may be "". ``learned`` receives the conversions made
    here that ``known`` lacked.

    ``copied`` (section id → chunk count) names sections whose chunk trees the caller copies
    from a stored set (:mod:`specbrowser.store.reuse`): they are not chunked, but their chunks
    keep their places in the ordinals, and ``copied_at`` receives each one's first ordinal.
    ``broken_down`` receives the ids of the sections whose elements went through the breakdown
    (the others were copied, or made one chunk from the cache without a parse).

    The sections to break down are spread over the cores
    (:func:`specbrowser.chunking.parallel.split_map`).

    Raises:
        SpecParseError: a section's stored HTML holds no element.
    """
    html = {section.id: section.html for section in sections}
    return _chunk_sections(
        sections,
        lambda section_id: parse_fragment(html[section_id]),
        policy,
        progress,
        known=known,
        learned=learned,
        copied=copied,
        copied_at=copied_at,
        broken_down=broken_down,
    )


def _chunk_sections(
    sections: list[Section],
    element_for: Callable[[str], etree._Element],
    policy: ChunkPolicy,
    progress: Progress | None,
    *,
    known: Mapping[str, SectionMarkdown] | None = None,
    learned: dict[str, SectionMarkdown] | None = None,
    copied: Mapping[str, int] | None = None,
    copied_at: dict[str, int] | None = None,
    broken_down: list[str] | None = None,
) -> list[Chunk]:
    """Chunk every section not ``copied``: first the ones the cache makes whole (no parse),
    then the rest, spread over the cores (:func:`specbrowser.chunking.parallel.split_map`,
    weighted by their HTML's length); ordinals are given in document order at the end."""
    by_id = {section.id: section for section in sections}
    copied = copied or {}
    done: dict[str, list[Chunk]] = {}
    to_break: list[tuple[Section, list[str]]] = []
    for section in sections:
        if section.id == DOCUMENT_CHUNK_ID:
            raise SpecParseError(
                f"a section has the id {DOCUMENT_CHUNK_ID!r}, which specbrowser "
                "reserves for the document chunk"
            )
        if section.id in copied:
            continue
        heading_path = _heading_path(section, by_id)
        whole = _whole_from_cache(section, policy, heading_path, known)
        if whole is not None:
            done[section.id] = [whole]
        else:
            to_break.append((section, heading_path))
    total, quick = len(sections), len(sections) - len(to_break)
    if broken_down is not None:
        broken_down.extend(section.id for section, _ in to_break)

    def report(n: int, of: int) -> None:
        if progress and (n % 10 == 0 or n == of):
            progress("chunking", quick + len(to_break) * n // of, total)

    def chunk_one(item: tuple[Section, list[str]]) -> tuple[list[Chunk], SectionMarkdown | None]:
        section, heading_path = item
        return _section_chunks(
            section, element_for, policy, heading_path, known, learned is not None
        )

    if progress:
        progress("chunking", quick, total)
    broken = split_map(chunk_one, to_break, [len(section.html) for section, _ in to_break], report)
    for (section, _), (chunks, conversion) in zip(to_break, broken, strict=True):
        done[section.id] = chunks
        if conversion is not None and learned is not None:
            learned[section.id] = conversion
    if progress and not to_break:
        progress("chunking", total, total)
    out: list[Chunk] = []
    ordinal = 1  # 0 is the document chunk's
    for section in sections:
        if section.id in copied:
            if copied_at is not None:
                copied_at[section.id] = ordinal
            ordinal += copied[section.id]
            continue
        number = section_ordinal(section.secnum)
        for chunk in done[section.id]:
            chunk.ordinal = ordinal
            chunk.section_ordinal = number
            out.append(chunk)
            ordinal += 1
    return out


def _heading_path(section: Section, by_id: Mapping[str, Section]) -> list[str]:
    """The display titles of the section's ancestors and itself, top-level first (walked up
    only for the sections that are chunked: a re-chunk copies most)."""
    path = [section.display_title]
    parent = by_id.get(section.parent_id) if section.parent_id else None
    while parent is not None:
        path.append(parent.display_title)
        parent = by_id.get(parent.parent_id) if parent.parent_id else None
    path.reverse()
    return path


def _whole_from_cache(
    section: Section,
    policy: ChunkPolicy,
    heading_path: list[str],
    known: Mapping[str, SectionMarkdown] | None,
) -> Chunk | None:
    """The section's one chunk from its cached conversion, when the breakdown cannot change it
    (:func:`whole_section_chunk`); None when it must be broken down (or is not cached)."""
    cached = known.get(section.id) if known else None
    if cached is None:
        return None
    return whole_section_chunk(section, cached.markdown, cached.subsections, policy, heading_path)


def _section_chunks(
    section: Section,
    element_for: Callable[[str], etree._Element],
    policy: ChunkPolicy,
    heading_path: list[str],
    known: Mapping[str, SectionMarkdown] | None,
    learn: bool,
) -> tuple[list[Chunk], SectionMarkdown | None]:
    """One section's chunks, broken down from its element (see :func:`chunk_sections`), and
    with ``learn`` the conversion to add to the Markdown cache (None when there is nothing new:
    the cached detail served, or the cache holds the section without detail)."""
    cached = known.get(section.id) if known else None
    element = element_for(section.id)
    restored = restore(element, cached.detail) if cached is not None and cached.detail else None
    conversion: SectionMarkdown | None = None
    if restored is not None:
        roles, cache = restored
    else:
        roles, cache = resolve_roles(element, policy.markdown), {}
        # learn what is new, or a detail that restore refused (a short section keeps none)
        if learn and (cached is None or cached.detail is not None):
            markdown = to_markdown(element, policy.markdown, roles, cache)
            conversion = capture(element, roles, cache, markdown)
    return break_down(section, element, policy, heading_path, roles=roles, cache=cache), conversion


def check_db_path(db_path: Path) -> None:
    """Fail early, before a long parse, on a database path that cannot work.

    Raises:
        DatabaseError: a folder, a missing parent folder, or an unwritable location.
    """
    if db_path.is_dir():
        raise DatabaseError(f"{db_path} is a folder, not a database file")
    parent = db_path.parent if str(db_path.parent) else Path(".")
    if not parent.is_dir():
        raise DatabaseError(f"cannot create {db_path}: folder {parent} does not exist")
    target = db_path if db_path.exists() else parent
    if not os.access(target, os.W_OK):
        raise DatabaseError(f"cannot write {db_path}: permission denied")


def ingest(
    spec_paths: list[Path],
    db_path: Path,
    policy: ChunkPolicy,
    progress: Progress | None = None,
    toc_file: Path | None = None,
    policy_for_kind: PolicyForKind | None = None,
) -> IngestResult:
    """Parse a spec, chunk it under ``policy`` and store the chunk set in ``db_path``.

    The new set becomes the active one. With the spec already in the database (same bytes,
    same parse), the set is added beside the other policies' sets, or replaces the set of the
    same policy version; a different spec replaces everything (old sets would be stale against
    its sections). See :func:`specbrowser.store.store_ingest`.

    Heading paths are reconciled with ``toc_file`` (an external TOC, see
    :func:`specbrowser.formats.toc.load_toc_file`) when given, else with the document's own TOC.

    ``policy_for_kind``, when given, replaces ``policy`` once the spec is parsed and its kind
    known: how the CLI gives each kind its default breakdown tags (:data:`PolicyForKind`).

    All or nothing: on any error or Ctrl-C the database is left as it was, and a database file
    this call created is removed.

    Raises:
        SpecInputError, SpecParseError: bad spec input or TOC file.
        DatabaseError: unusable database path (checked before parsing).
    """
    check_db_path(db_path)
    timings: dict[str, float] = {}
    start = time.perf_counter()
    external_toc = load_toc_file(toc_file) if toc_file is not None else None
    parsed = load_spec(spec_paths)
    if policy_for_kind is not None:
        policy = policy_for_kind(parsed.document.kind)
    toc = external_toc if external_toc is not None else parsed.toc
    timings["parse"] = time.perf_counter() - start
    sections = list(parsed.sections)
    mark = time.perf_counter()
    learned: dict[str, SectionMarkdown] = {}
    chunks = finish_chunk_set(
        parsed.document,
        sections,
        chunk_spec(parsed, policy, progress, learned),
        policy.threshold_chars,
    )
    mismatches = add_heading_paths(chunks, sections, toc)
    timings["chunk"] = time.perf_counter() - mark
    stats = compute_stats(chunks, len(sections))
    mark = time.perf_counter()
    if progress:
        progress("storing", 0, 0)
    existed = db_path.exists()
    try:
        db = open_database(db_path, create=True)
        try:
            outcome = store_ingest(
                db,
                parsed.document,
                sections,
                policy,
                chunks,
                stats,
                toc,
                mismatches,
                cache_writer=lambda db, digest: save_markdown(db, digest, policy.markdown, learned),
            )
            chunk_sets = count_chunk_sets(db)
        finally:
            db.close()
    except BaseException:
        if not existed:
            db_path.unlink(missing_ok=True)
        raise
    timings["store"] = time.perf_counter() - mark
    timings["total"] = time.perf_counter() - start
    return IngestResult(
        parsed=parsed,
        chunks=chunks,
        stats=stats,
        timings=timings,
        outcome=outcome,
        chunk_sets=chunk_sets,
        mismatches=mismatches,
    )
