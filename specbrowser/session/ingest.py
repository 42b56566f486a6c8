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
from specbrowser.chunking.pipeline import chunk_spec
from specbrowser.chunking.policy import ChunkPolicy, PolicyForKind
from specbrowser.chunking.rules import ChunkingRules
from specbrowser.chunking.stats import ChunkSetStats, compute_stats
from specbrowser.chunking.toc_paths import Mismatch
from specbrowser.errors import DatabaseError
from specbrowser.formats import ParsedSpec, format_for_kind, load_spec
from specbrowser.formats.symbols import spec_symbols
from specbrowser.formats.toc import load_toc_file
from specbrowser.model import Chunk, TocNode
from specbrowser.process import COMMITS
from specbrowser.progress import Progress
from specbrowser.session.collector import collector_paused
from specbrowser.types import IngestOutcome

if TYPE_CHECKING:
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
    )
    apply_toc_paths(chunks, paths)
    return chunks, compute_stats(chunks, len(sections)), paths, chunked.learned


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
    replace_spec: bool = True,
) -> IngestResult:
    """Parse a spec, chunk it under ``policy`` and store the chunk set in ``db_path``.

    The new set becomes the active one. With the spec already in the database (same bytes,
    same parse), the set is added beside the other policies' sets, or replaces the set of the
    same policy version; a different spec replaces everything (old sets would be stale against
    its sections). See :meth:`specbrowser.store.sets.ChunkSets.begin_ingest`.

    Heading paths are reconciled with ``toc_file`` (an external TOC, see
    :func:`specbrowser.formats.toc.load_toc_file`) when given, else with the document's own TOC.

    ``policy_for_kind``, when given, replaces ``policy`` once the spec is parsed and its kind
    known: how the CLI gives each kind its default breakdown tags (:data:`PolicyForKind`).

    With ``replace_spec`` False a database holding another spec is refused (the CLI's default:
    its ``--replace`` sets it); after a replacement the file is compacted (``VACUUM``).

    All or nothing: on any error or Ctrl-C before the commit the database is left as it was, and
    a database file this call created is removed; after the commit (a replacement's ``VACUUM``,
    closing) the new chunk set stays, recorded in :data:`specbrowser.process.COMMITS`. The cyclic
    garbage collector is paused meanwhile (:func:`~specbrowser.session.collector.collector_paused`).

    Raises:
        SpecInputError, SpecParseError: bad spec input or TOC file.
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
    sections = list(parsed.sections)
    rules = format_for_kind(parsed.document.kind).chunking_rules
    tokens = token_measure(policy, parsed.document.title)
    existed = db_path.exists()
    commits_before = len(COMMITS)
    try:
        db = open_database(db_path, create=True)
        try:
            with db.sets.begin_ingest(
                parsed.document, sections, policy.version, replace_spec=replace_spec
            ) as write:
                mark = time.perf_counter()
                chunks, stats, paths, learned = _chunk_beside_spec_write(
                    write, parsed, policy, toc, rules, tokens, progress
                )
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
