"""The pipeline: parse → Markdown → breakdown → store, all or nothing."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from specbrowser.breakdown import break_down
from specbrowser.errors import DatabaseError
from specbrowser.model import Chunk
from specbrowser.parse import ParsedSpec, load_spec
from specbrowser.policy import ChunkPolicy
from specbrowser.stats import compute_stats
from specbrowser.store import open_database, replace_spec

Progress = Callable[[str, int, int], None]
"""``progress(stage, done, total)``: called as sections are chunked (stage "chunking")."""


@dataclass
class IngestResult:
    """What an ingest did: the parsed spec, its chunks, their stats, and seconds per stage."""

    parsed: ParsedSpec
    chunks: list[Chunk]
    stats: dict[str, object]
    timings: dict[str, float]


def chunk_spec(parsed: ParsedSpec, policy: ChunkPolicy, progress: Progress | None = None) -> list[Chunk]:
    """Break every section of a parsed spec into chunks, in document order.

    Consumes ``parsed.elements`` (the breakdown mutates them). Chunk ordinals run over the whole
    document, 0-based.
    """
    paths: dict[str, list[str]] = {}
    chunks: list[Chunk] = []
    total = len(parsed.sections)
    for done, section in enumerate(parsed.sections, start=1):
        parent_path = paths.get(section.parent_id, []) if section.parent_id else []
        paths[section.id] = [*parent_path, section.display_title]
        for chunk in break_down(section, parsed.elements[section.id], policy, paths[section.id]):
            chunk.ordinal = len(chunks)
            chunks.append(chunk)
        if progress and (done % 50 == 0 or done == total):
            progress("chunking", done, total)
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
    import os

    target = db_path if db_path.exists() else parent
    if not os.access(target, os.W_OK):
        raise DatabaseError(f"cannot write {db_path}: permission denied")


def ingest(spec_paths: list[Path], db_path: Path, policy: ChunkPolicy,
           progress: Progress | None = None) -> IngestResult:
    """Parse a spec, chunk it under ``policy`` and store it in ``db_path``, replacing what was there.

    All or nothing: on any error or Ctrl-C the database is left as it was, and a database file
    this call created is removed.

    Raises:
        SpecInputError, SpecParseError: bad spec input.
        DatabaseError: unusable database path (checked before parsing).
    """
    check_db_path(db_path)
    timings: dict[str, float] = {}
    start = time.perf_counter()
    parsed = load_spec(spec_paths)
    timings["parse"] = time.perf_counter() - start
    sections = list(parsed.sections)
    mark = time.perf_counter()
    chunks = chunk_spec(parsed, policy, progress)
    timings["chunk"] = time.perf_counter() - mark
    stats = compute_stats(chunks, len(sections))
    mark = time.perf_counter()
    existed = db_path.exists()
    try:
        db = open_database(db_path, create=True)
        try:
            replace_spec(db, parsed.document, sections, policy, chunks, stats)
        finally:
            db.close()
    except BaseException:
        if not existed:
            db_path.unlink(missing_ok=True)
        raise
    timings["store"] = time.perf_counter() - mark
    timings["total"] = time.perf_counter() - start
    return IngestResult(parsed=parsed, chunks=chunks, stats=stats, timings=timings)
