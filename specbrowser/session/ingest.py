"""Ingest: parse → chunk (:mod:`specbrowser.chunking.pipeline`) → enrich → store, all or
nothing."""

from __future__ import annotations

import contextlib
import importlib
import os
import threading
import time
from collections.abc import Callable, Sequence
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
from specbrowser.formats import ParsedSpec, check_spec_inputs, format_for_kind, load_spec
from specbrowser.formats.symbols import spec_symbols
from specbrowser.formats.toc import load_toc_file
from specbrowser.model import Chunk, Section, TocNode
from specbrowser.process import COMMITS
from specbrowser.progress import Progress
from specbrowser.session.collector import collector_paused
from specbrowser.session.corpus import (
    place_chunks,
    place_spec,
    plan_sets,
    recount_sets,
    set_holding,
)
from specbrowser.types import IngestOutcome

if TYPE_CHECKING:
    from specbrowser.store import SpecStore
    from specbrowser.store.corpus import CorpusPlace, SpecRow
    from specbrowser.store.sets import IngestWrite

STORE_MODULES = (
    "specbrowser.store",
    "specbrowser.store.cache",
    "specbrowser.search.tokens",
    "specbrowser.formats.identity",
)
"""What :func:`ingest` needs once the spec is parsed, imported while lxml parses it (the parse
releases the GIL): the store's modules and the token counter's, imports that overlap a 0.1 s
parse of ECMA-262 instead of coming after it, and the spec identity's reader, which the
parse's last step takes (sqlite-utils too, for a new file: :func:`_import_meanwhile`)."""


def _import_meanwhile(modules: tuple[str, ...], *, schema: bool = False) -> threading.Thread:
    """Start importing ``modules`` on a thread (join it before using them; an import error
    shows again when the caller imports them), and with ``schema`` sqlite-utils, which
    creating a database's schema takes (:func:`~specbrowser.store._sqlite_utils.
    load_sqlite_utils`: 30-45 ms, on the first write otherwise)."""

    def load() -> None:
        for name in modules:
            with contextlib.suppress(Exception):
                importlib.import_module(name)
        if schema:
            with contextlib.suppress(Exception):
                from specbrowser.store._sqlite_utils import load_sqlite_utils

                load_sqlite_utils()

    thread = threading.Thread(target=load, name="specbrowser-imports", daemon=True)
    thread.start()
    return thread


@dataclass
class IngestResult:
    """What an ingest did.

    Attributes:
        parsed: the parsed spec (document and sections).
        chunks: the stored chunk set: the document chunk, then the section chunks in pre-order
            (empty when the outcome is ``unchanged``: nothing was made).
        stats: :func:`compute_stats` of ``chunks`` (``unchanged``: of the spec's stored rows).
        timings: seconds per stage (``parse``, ``chunk``, ``store``, ``total``): ``chunk``
            includes writing the spec's tables (sections, symbols, TOC), done while other
            processes break sections down; ``store`` is the chunk set's write and the commit.
        outcome: what happened to the database (:data:`specbrowser.types.IngestOutcome`).
        chunk_sets: how many chunk sets the database holds afterwards.
        mismatches: disagreements between the section tree and the TOC (empty without a TOC).
        set_version: the policy version of the chunk set that holds the spec's chunks: the
            policy's own, or in a corpus the set the spec joined, whose settings are the
            corpus's (the spec is chunked with its format's form of them); "" when unknown.
    """

    parsed: ParsedSpec
    chunks: list[Chunk]
    stats: ChunkSetStats
    timings: dict[str, float]
    outcome: IngestOutcome
    chunk_sets: int = 1
    mismatches: list[Mismatch] = field(default_factory=list)
    set_version: str = ""


def _chunk_beside_spec_write(
    write: IngestWrite,
    parsed: ParsedSpec,
    policy: ChunkPolicy,
    toc: list[TocNode],
    rules: ChunkingRules,
    tokens: TokenMeasure | None,
    progress: Progress | None,
    packet: SummaryPacket | None,
    own_toc: bool,
) -> tuple[list[Chunk], ChunkSetStats, SectionPaths, dict[str, SectionMarkdown]]:
    """Break the spec down while this process writes the spec's tables (``write.write_spec``:
    heading and TOC paths, the symbol index from the elements before any breakdown, sections,
    TOC) beside the forked children (:func:`chunk_spec`'s ``meanwhile``); then finish the
    chunk set. Returns its chunks (document chunk first), statistics, the sections' paths and
    the conversions learned for the Markdown cache. ``own_toc``: ``toc`` is the document's own
    (the front matter before it need not be listed)."""
    sections = parsed.sections
    paths: SectionPaths | None = None

    def write_spec() -> None:
        nonlocal paths
        before = _before_toc(parsed) if own_toc else set()
        paths = section_paths(sections, toc, rules.section_ordinal, before)
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
    own_toc: bool,
) -> list[Chunk]:
    """The spec's finished chunks under another stored set's ``policy``: parsed again (a
    breakdown changes the parsed elements), placed as the first parse was; ``own_toc``: ``toc``
    is the document's own (its front matter before it need not be listed)."""
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
    before = _before_toc(parsed) if own_toc else set()
    apply_toc_paths(chunks, section_paths(parsed.sections, toc, rules.section_ordinal, before))
    place_chunks(chunks, place)
    return chunks


def _before_toc(parsed: ParsedSpec) -> set[str]:
    """The ids of the sections before the spec's own TOC, as they are now (a corpus may have
    renamed them). Only for the document's own TOC: an external TOC file has no place in the
    document, and every section it leaves out is reported."""
    return {s.id for s in parsed.before_toc}


class SpecLoading:
    """A spec being parsed (:func:`~specbrowser.formats.load_spec`) on a thread of its own,
    started on creation: lxml's parse releases the GIL, so it runs beside this thread's
    database writes. Only :func:`ingest_each` starts one, and only while no breakdown process
    is forked (a child forked during the parse could inherit a lock the parse holds)."""

    def __init__(self, spec_paths: Sequence[Path]) -> None:
        self._paths = list(spec_paths)
        self._parsed: ParsedSpec | None = None
        self._error: BaseException | None = None
        self._seconds = 0.0
        self._thread = threading.Thread(target=self._load, name="specbrowser-parse", daemon=True)
        self._thread.start()

    def _load(self) -> None:
        start = time.perf_counter()
        try:
            self._parsed = load_spec(self._paths)
        except BaseException as error:  # raised again in the thread that asks for the result
            self._error = error
        self._seconds = time.perf_counter() - start

    def result(self) -> tuple[ParsedSpec, float]:
        """The parsed spec and the parse's seconds, once the thread has finished.

        Raises:
            SpecInputError, SpecParseError: what the parse raised.
        """
        self._thread.join()
        if self._error is not None:
            raise self._error
        assert self._parsed is not None
        return self._parsed, self._seconds


def ingest_each(
    specs: Sequence[Sequence[Path]],
    db_path: Path,
    policy: ChunkPolicy,
    *,
    policy_for_kind: PolicyForKind | None = None,
    progress: Progress | None = None,
    ingested: Callable[[IngestResult], None] | None = None,
) -> list[IngestResult]:
    """Ingest several specs (each the paths of one spec's pages) into ``db_path``, one after
    another, as that many :func:`ingest` calls would: each spec is added to the corpus (or
    replaces itself), all or nothing for that spec, and the database afterwards is the one the
    separate calls give. In one process: the next spec is parsed on a thread
    (:class:`SpecLoading`) while the one before it is written and committed, and each spec's
    breakdowns spread over the cores (:mod:`specbrowser.chunking.parallel`).

    Every spec's inputs are checked (:func:`~specbrowser.formats.check_spec_inputs`) before
    the first is read. ``ingested`` is called with each spec's result once it is committed;
    ``progress`` gets each stage as ``spec I/N · stage`` (1-based).

    Raises:
        SpecInputError: a missing path or a file that is not HTML (nothing written); what
            :func:`ingest` raises for the spec being ingested, whose predecessors stay stored.
        DatabaseError, PolicyError: as :func:`ingest`.
    """
    check_db_path(db_path)
    for spec_paths in specs:
        check_spec_inputs(list(spec_paths))
    results: list[IngestResult] = []
    loading: SpecLoading | None = None
    try:
        for index, spec_paths in enumerate(specs):
            following = specs[index + 1] if index + 1 < len(specs) else None

            def start_next(following: Sequence[Path] | None = following) -> None:
                nonlocal loading
                if following is not None:
                    loading = SpecLoading(following)

            current, loading = loading, None
            result = ingest(
                list(spec_paths),
                db_path,
                policy,
                _numbered(progress, index + 1, len(specs)),
                policy_for_kind=policy_for_kind,
                parsed_meanwhile=current,
                breakdowns_done=start_next,
            )
            results.append(result)
            if ingested is not None:
                ingested(result)
    finally:
        if loading is not None:  # a spec failed while the next was being parsed
            with contextlib.suppress(BaseException):
                loading.result()
    return results


def _numbered(progress: Progress | None, number: int, total: int) -> Progress | None:
    """``progress`` with each stage named ``spec NUMBER/TOTAL · stage``."""
    if progress is None or total == 1:
        return progress

    def numbered(stage: str, done: int, count: int) -> None:
        progress(f"spec {number}/{total} · {stage}", done, count)

    return numbered


def _unchanged(
    db: SpecStore,
    parsed: ParsedSpec,
    held: tuple[SpecRow, str],
    timings: dict[str, float],
    start: float,
) -> IngestResult:
    """The result of an ingest that writes nothing: the stored spec ``held[0]`` has the parsed
    bytes in the set ``held[1]``, which is made the active one; its stats are the spec's own,
    read from the set's rows (``chunks`` is empty: none was made)."""
    spec, version = held
    if db.active_version() != version:
        db.sets.activate(version)
    stats = compute_stats([], db.sections.count(spec.id), db.chunk_facts(version, spec.id))
    timings["total"] = time.perf_counter() - start
    return IngestResult(
        parsed=parsed,
        chunks=[],
        stats=stats,
        timings=timings,
        outcome="unchanged",
        chunk_sets=db.sets.count(),
        set_version=version,
    )


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
    *,
    parsed_meanwhile: SpecLoading | None = None,
    breakdowns_done: Callable[[], None] | None = None,
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

    After a spec replaced itself the file is compacted (``VACUUM``). When the corpus already
    holds the parsed bytes in a chunk set of ``policy`` (:func:`set_holding`), nothing is
    written but that set made the active one: the outcome is ``unchanged`` (never with
    ``toc_file``, which changes heading paths).

    How :func:`ingest_each` chains ingests: ``parsed_meanwhile``, when given, is the spec of
    ``spec_paths`` already being parsed on a thread (joined here instead of parsing again);
    ``breakdowns_done`` is called once, when this call will fork no more breakdown processes
    (before the chunk sets are written), so that the caller may start a thread of its own.

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
    existed = db_path.exists()
    importing = _import_meanwhile(STORE_MODULES, schema=not existed)  # a new file: its schema
    try:
        external_toc = load_toc_file(toc_file) if toc_file is not None else None
        if parsed_meanwhile is None:
            parsed = load_spec(spec_paths)
            parse_seconds = time.perf_counter() - start
        else:
            parsed, parse_seconds = parsed_meanwhile.result()
    finally:  # also when the spec fails: a thread left importing would hand the next ingest
        importing.join()  # (the app's, ingest_each's) a module half imported
    # imported on the thread above while lxml parsed (STORE_MODULES); bound here
    from specbrowser.search.tokens import token_measure
    from specbrowser.store import open_database

    if policy_for_kind is not None:
        policy = policy_for_kind(parsed.document.kind)
    toc = external_toc if external_toc is not None else parsed.toc
    own_toc = external_toc is None
    timings["parse"] = parse_seconds
    rules = format_for_kind(parsed.document.kind).chunking_rules
    packet = summary_packet_for(parsed.sections, policy, rules)  # before any breakdown
    tokens = token_measure(policy, parsed.document.title, packet.global_synopsis if packet else "")
    sections = parsed.sections
    commits_before = len(COMMITS)
    try:
        db = open_database(db_path, create=True)
        try:
            held = (
                None
                if external_toc is not None
                else set_holding(db, parsed.document.sha256, policy)
            )
            if held is not None:  # these bytes are stored under this policy: nothing to write
                return _unchanged(db, parsed, held, timings, start)
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
                    write, parsed, policy, toc, rules, tokens, progress, packet, own_toc
                )
                place_chunks(chunks, places[0])
                others = {} if write.outcome == "replaced_set" else plan.others
                other_chunks = {  # broken down (forking) before anything else is written
                    version: _chunks_for(spec_paths, other, toc, places[0], rules, own_toc)
                    for version, other in others.items()
                }
                if breakdowns_done is not None:
                    breakdowns_done()
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
                for version, other in others.items():
                    write.write_other_set(version, other, other_chunks.pop(version))
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
        set_version=plan.into or policy.version,
    )
