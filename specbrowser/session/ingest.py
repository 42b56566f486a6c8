"""Ingest: parse → chunk (:mod:`specbrowser.chunking.pipeline`) → enrich → store, all or
nothing."""

from __future__ import annotations

import contextlib
import importlib
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from specbrowser.chunking.enrich import (
    SectionPaths,
    apply_toc_paths,
    finish_chunk_set,
    section_paths,
)
from specbrowser.chunking.markdown_cache import SectionMarkdown
from specbrowser.chunking.measure import TokenMeasure
from specbrowser.chunking.pipeline import chunk_spec, summary_packet_for
from specbrowser.chunking.policy import ChunkPolicy, PolicyForKind
from specbrowser.chunking.rules import ChunkingRules
from specbrowser.chunking.stats import ChunkSetStats, compute_stats
from specbrowser.chunking.summaries import SummaryPacket
from specbrowser.chunking.toc_paths import Mismatch
from specbrowser.errors import DatabaseError
from specbrowser.formats import ParsedSpec, format_for_kind, load_spec
from specbrowser.formats.symbols import spec_symbols
from specbrowser.formats.toc import load_toc_file
from specbrowser.model import Chunk, Section, TocNode
from specbrowser.process import COMMITS
from specbrowser.progress import Progress
from specbrowser.session.collector import collector_paused
from specbrowser.session.corpus import place_chunks, place_spec, plan_sets, recount_sets
from specbrowser.types import IngestOutcome

if TYPE_CHECKING:
    from specbrowser.store.corpus import CorpusPlace
    from specbrowser.store.sets import IngestWrite

STORE_MODULES = ("specbrowser.store", "specbrowser.store.cache", "specbrowser.search.tokens")
"""What :func:`ingest` needs once the spec is parsed, imported while lxml parses it (the parse
releases the GIL): sqlite-utils and the store's modules, about 0.1 s of imports that overlap a
0.1 s parse of ECMA-262 instead of coming before it."""


def _import_meanwhile(modules: tuple[str, ...]) -> threading.Thread:
    """Start importing ``modules`` on a thread (join it before using them; an import error
    shows again when the caller imports them)."""

    def load() -> None:
        for name in modules:
            with contextlib.suppress(Exception):
                importlib.import_module(name)

    thread = threading.Thread(target=load, name="specbrowser-imports", daemon=True)
    thread.start()
    return thread


@dataclass
class IngestResult:
    """What an ingest did.

    Attributes:
        parsed: the parsed spec (document and sections).
        chunks: the stored chunk set: the document chunk, then the section chunks in pre-order.
        stats: :func:`compute_stats` of ``chunks``.
        timings: seconds per stage (``parse``, ``chunk``, ``store``, ``total``): ``chunk``
            includes writing the spec's tables (sections, symbols, TOC), done while other
            processes break sections down; ``store`` is the chunk set's write and the commit.
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


def _chunk_beside_spec_write(
    write: IngestWrite,
    parsed: ParsedSpec,
    policy: ChunkPolicy,
    toc: list[TocNode],
    rules: ChunkingRules,
    tokens: TokenMeasure | None,
    progress: Progress | None,
    packet: SummaryPacket | None,
) -> tuple[list[Chunk], ChunkSetStats, SectionPaths, dict[str, SectionMarkdown]]:
    """Break the spec down while this process writes the spec's tables (``write.write_spec``:
    heading and TOC paths, the symbol index from the elements before any breakdown, sections,
    TOC) beside the forked children (:func:`chunk_spec`'s ``meanwhile``); then finish the
    chunk set. Returns its chunks (document chunk first), statistics, the sections' paths and
    the conversions learned for the Markdown cache."""
    sections = parsed.sections
    paths: SectionPaths | None = None

    def write_spec() -> None:
        nonlocal paths
        paths = section_paths(sections, toc, rules.section_ordinal)
        write.write_spec(paths, spec_symbols(sections, parsed.elements), toc)

    chunked = chunk_spec(
        parsed, policy, progress, rules=rules, learn=True, tokens=tokens, meanwhile=write_spec
    )
    assert paths is not None  # meanwhile runs once, always
    chunks = finish_chunk_set(
        parsed.document,
        sections,
        chunked.chunks,
        policy.threshold,
        measure=tokens.count if tokens else len,
        packet=packet,
        summaries=chunked.summaries,
    )
    apply_toc_paths(chunks, paths)
    return chunks, compute_stats(chunks, len(sections)), paths, chunked.learned


def _chunks_for(
    spec_paths: list[Path],
    policy: ChunkPolicy,
    toc: list[TocNode],
    place: CorpusPlace,
    rules: ChunkingRules,
) -> list[Chunk]:
    """The spec's finished chunks under another stored set's ``policy``: parsed again (a
    breakdown changes the parsed elements), placed as the first parse was."""
    parsed = load_spec(spec_paths)
    place_spec(parsed, place)
    from specbrowser.search.tokens import token_measure  # deferred: imported by ingest() first

    packet = summary_packet_for(parsed.sections, policy, rules)
    tokens = token_measure(policy, parsed.document.title, packet.global_synopsis if packet else "")
    chunked = chunk_spec(parsed, policy, None, rules=rules, tokens=tokens)
    chunks = finish_chunk_set(
        parsed.document,
        parsed.sections,
        chunked.chunks,
        policy.threshold,
        measure=tokens.count if tokens else len,
        packet=packet,
    )
    apply_toc_paths(chunks, section_paths(parsed.sections, toc, rules.section_ordinal))
    place_chunks(chunks, place)
    return chunks


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
        raise DatabaseError(f"cannot write {db_path}: {_why_not_writable(target)}")


def _why_not_writable(path: Path) -> str:
    """``read-only file system`` when ``path`` lies on one (as the operating system words it
    elsewhere), else ``permission denied``."""
    try:
        read_only = bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    except (AttributeError, OSError):  # no statvfs (Windows), or it failed: say the usual
        read_only = False
    return "read-only file system" if read_only else "permission denied"


@collector_paused()
def ingest(
    spec_paths: list[Path],
    db_path: Path,
    policy: ChunkPolicy,
    progress: Progress | None = None,
    toc_file: Path | None = None,
    policy_for_kind: PolicyForKind | None = None,
) -> IngestResult:
    """Parse a spec, chunk it under ``policy`` and store the chunk set in ``db_path``.

    The database holds a corpus (:mod:`specbrowser.store.corpus`): another spec is added to it,
    the same spec (by identity, :func:`specbrowser.store.corpus.same_spec`) with new bytes
    replaces only itself, and the other specs are never touched. With the spec alone in the
    database, a new policy's set is added beside the others (same bytes) as before; with other
    specs, the spec goes into every stored set, each breaking it down with its policy for the
    spec's format (:func:`specbrowser.session.corpus.policy_for_spec`). The set written becomes
    the active one. See :meth:`specbrowser.store.sets.ChunkSets.begin_ingest`.

    Heading paths are reconciled with ``toc_file`` (an external TOC, see
    :func:`specbrowser.formats.toc.load_toc_file`) when given, else with the document's own TOC.

    ``policy_for_kind``, when given, replaces ``policy`` once the spec is parsed and its kind
    known: how the CLI gives each kind its default breakdown tags (:data:`PolicyForKind`).

    After a spec replaced itself the file is compacted (``VACUUM``).

    All or nothing: on any error or Ctrl-C before the commit the database is left as it was, and
    a database file this call created is removed; after the commit (a replacement's ``VACUUM``,
    closing) the new chunk set stays, recorded in :data:`specbrowser.process.COMMITS`. The cyclic
    garbage collector is paused meanwhile (:func:`~specbrowser.session.collector.collector_paused`).

    Raises:
        SpecInputError, SpecParseError: bad spec input or TOC file; a new policy for one spec
            of a corpus of several.
        PolicyError: the options match no chunk set of a corpus holding other specs.
        DatabaseError: unusable database path (checked before parsing).
    """
    check_db_path(db_path)
    timings: dict[str, float] = {}
    start = time.perf_counter()
    importing = _import_meanwhile(STORE_MODULES)
    external_toc = load_toc_file(toc_file) if toc_file is not None else None
    parsed = load_spec(spec_paths)
    importing.join()
    # imported on the thread above while lxml parsed (STORE_MODULES); bound here
    from specbrowser.search.tokens import token_measure
    from specbrowser.store import open_database

    if policy_for_kind is not None:
        policy = policy_for_kind(parsed.document.kind)
    toc = external_toc if external_toc is not None else parsed.toc
    timings["parse"] = time.perf_counter() - start
    rules = format_for_kind(parsed.document.kind).chunking_rules
    packet = summary_packet_for(parsed.sections, policy, rules)  # before any breakdown
    tokens = token_measure(policy, parsed.document.title, packet.global_synopsis if packet else "")
    existed = db_path.exists()
    sections = parsed.sections
    commits_before = len(COMMITS)
    try:
        db = open_database(db_path, create=True)
        try:
            plan = plan_sets(
                db, policy, parsed.document.kind, parsed.identity, parsed.document.title
            )
            places: list[CorpusPlace] = []

            def prepare(place: CorpusPlace) -> list[Section]:
                places.append(place)
                return place_spec(parsed, place)

            with db.sets.begin_ingest(
                parsed.document,
                sections,
                policy.version,
                identity=parsed.identity,
                prepare=prepare,
                into=plan.into,
            ) as write:
                mark = time.perf_counter()
                chunks, stats, paths, learned = _chunk_beside_spec_write(
                    write, parsed, policy, toc, rules, tokens, progress, packet
                )
                place_chunks(chunks, places[0])
                timings["chunk"] = time.perf_counter() - mark
                mark = time.perf_counter()
                if progress:
                    progress("storing", 0, 0)
                write.write_chunk_set(
                    policy,
                    chunks,
                    stats,
                    cache_writer=lambda db, digest: db.cache.save(digest, policy.markdown, learned),
                )
                if write.outcome != "replaced_set":
                    for version, other in plan.others.items():
                        write.write_other_set(
                            version, other, _chunks_for(spec_paths, other, toc, places[0], rules)
                        )
                recount_sets(db)
            outcome = write.outcome
            if outcome == "replaced_spec":
                db.vacuum()  # the old spec's pages back to the file system
            chunk_sets = db.sets.count()
        finally:
            db.close()
    except BaseException:
        if not existed and len(COMMITS) == commits_before:  # nothing of this call was committed
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
        mismatches=paths.mismatches,
    )
