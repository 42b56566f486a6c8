"""The long operations as jobs: ingest, re-chunk, count tokens, embed.

Every front end runs them the same way. A job is a function of its inputs, a :class:`Progress`
callback and a :class:`CancelToken`; it opens its own connection from the database's path
(SQLite connections stay in the thread that opened them), so the CLI runs it in the foreground
and the app in a worker thread.

Cancelling works one way for all of them: the job's progress callback is wrapped by
:func:`checked`, which raises :class:`JobCancelled` at the next report once the token is set.
Each pipeline is written to stop there safely: an ingest or a re-chunk rolls back its one
transaction (nothing is written), an embedding or token-counting run keeps the batches it
committed. A re-chunk runs in a child process (:mod:`specbrowser.session.rechunk_process`),
which checks a token of its own the same way.

This module is light (the app imports it at start): each job imports its own modules when it
runs, and the ``# deferred`` figures say what that keeps out of the start-up.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from specbrowser.progress import CancelToken, JobCancelled, Progress, checked
from specbrowser.types import JOB_KINDS, JobKind

__all__ = [
    "JOB_KINDS",
    "JOB_TITLES",
    "CancelToken",
    "JobCancelled",
    "JobKind",
    "Progress",
    "checked",
    "job_title",
    "run_count_tokens",
    "run_embed",
    "run_ingest",
    "run_ingest_each",
    "run_rechunk",
]

if TYPE_CHECKING:
    from specbrowser.chunking.policy import ChunkPolicy, PolicyForKind
    from specbrowser.search.embed import EmbedReport
    from specbrowser.search.tokens import TokenInfo
    from specbrowser.session.ingest import IngestResult
    from specbrowser.session.rechunk import RechunkResult

JOB_TITLES: dict[JobKind, str] = {
    "ingest": "Ingesting",
    "rechunk": "Re-chunking",
    "tokens": "Counting tokens",
    "embed": "Embedding",
}
"""How a front end names a running job."""

STAGED_JOBS: frozenset[JobKind] = frozenset({"ingest", "rechunk"})
"""The jobs that report several stages worth naming (parsing, chunking, storing …); the
others report one stage, named by the job itself."""


def job_title(kind: JobKind, stage: str = "") -> str:
    """A running job's title: the job, then the stage it reports when it has several
    ("Re-chunking · storing"; the chunking stage counts sections: "Re-chunking · chunking
    sections")."""
    if not stage or kind not in STAGED_JOBS:
        return JOB_TITLES[kind]
    return f"{JOB_TITLES[kind]} · {stage}{' sections' if stage == 'chunking' else ''}"


def run_ingest(
    spec_paths: list[Path],
    db_path: Path,
    policy: ChunkPolicy,
    *,
    policy_for_kind: PolicyForKind | None = None,
    toc_file: Path | None = None,
    progress: Progress | None = None,
    cancel: CancelToken | None = None,
) -> IngestResult:
    """Parse, chunk and store a spec (:func:`specbrowser.session.ingest.ingest`): added to the
    database's corpus, or replacing itself there.

    Raises:
        JobCancelled: ``cancel`` was set; the database is as it was.
        SpecbrowserError: what the ingest raises for bad input or an unusable database.
    """
    from specbrowser.session.ingest import ingest  # deferred, as each job's modules: 14 ms

    return ingest(
        spec_paths,
        db_path,
        policy,
        checked(progress, cancel),
        toc_file=toc_file,
        policy_for_kind=policy_for_kind,
    )


def run_ingest_each(
    specs: list[list[Path]],
    db_path: Path,
    policy: ChunkPolicy,
    *,
    policy_for_kind: PolicyForKind | None = None,
    progress: Progress | None = None,
    cancel: CancelToken | None = None,
    ingested: Callable[[IngestResult], None] | None = None,
) -> list[IngestResult]:
    """Ingest several specs into the database's corpus, one after another in this process
    (:func:`specbrowser.session.ingest.ingest_each`); ``ingested`` gets each committed result.

    Raises:
        JobCancelled: ``cancel`` was set; the spec being ingested is not written, the ones
            before it stay.
        SpecbrowserError: what the ingest raises for bad input or an unusable database.
    """
    from specbrowser.session.ingest import ingest_each  # deferred, as run_ingest's

    return ingest_each(
        specs,
        db_path,
        policy,
        policy_for_kind=policy_for_kind,
        progress=checked(progress, cancel),
        ingested=ingested,
    )


def run_rechunk(
    db_path: Path,
    policy: ChunkPolicy,
    *,
    progress: Progress | None = None,
    cancel: CancelToken | None = None,
    in_subprocess: bool = True,
) -> RechunkResult:
    """Re-chunk the stored spec under ``policy`` and make the set active.

    With ``in_subprocess`` (the app's way) the work runs in a child process
    (:func:`specbrowser.session.rechunk_process.rechunk_in_subprocess`), so the caller's
    threads keep the interpreter; without, in this thread.

    Raises:
        JobCancelled: ``cancel`` was set; the database is as it was.
        SpecbrowserError: what :func:`specbrowser.session.rechunk.rechunk` raises.
    """
    if in_subprocess:
        from specbrowser.session.rechunk_process import rechunk_in_subprocess  # 20 ms

        return rechunk_in_subprocess(
            db_path,
            policy,
            progress=progress,
            cancelled=(lambda: cancel.cancelled) if cancel is not None else (lambda: False),
        )
    from specbrowser.session.rechunk import rechunk  # deferred: 21 ms
    from specbrowser.session.stores import open_store

    db = open_store(db_path)
    try:
        return rechunk(db, policy, progress=checked(progress, cancel))
    finally:
        db.close()


def run_count_tokens(
    db_path: Path,
    *,
    progress: Progress | None = None,
    cancel: CancelToken | None = None,
) -> TokenInfo | None:
    """Count the tokens of the active set's texts that have none, with the default model's
    tokenizer; the set's token counts afterwards, or None when no tokenizer is installed. Each
    batch's write waits up to :data:`~specbrowser.store.BACKGROUND_BUSY_TIMEOUT_S` for another
    connection's write (an ingest, a re-chunk).

    Raises:
        JobCancelled: ``cancel`` was set; the counts of finished batches are kept.
    """
    # deferred: the tokenizer's module (5 ms)
    from specbrowser.search.tokens import count_missing_tokens, default_token_counter, token_info
    from specbrowser.session.stores import open_store
    from specbrowser.store import BACKGROUND_BUSY_TIMEOUT_S

    counter = default_token_counter()
    if counter is None:
        return None
    db = open_store(db_path, busy_timeout_s=BACKGROUND_BUSY_TIMEOUT_S)
    try:
        version = db.active_version()
        count_missing_tokens(db, counter, version, progress=checked(progress, cancel))
        return token_info(db, version, counter.model)
    finally:
        db.close()


def run_embed(
    db_path: Path,
    *,
    model: str | None = None,
    model_dir: Path | None = None,
    threads: int | None = None,
    batch_size: int | None = None,
    limit: int | None = None,
    rebuild: bool = False,
    progress: Progress | None = None,
    cancel: CancelToken | None = None,
) -> EmbedReport:
    """Embed the active set's texts that have no vector (``model``: the stored one, else the
    default; ``model_dir``, ``threads``: see :func:`specbrowser.search.embed.load_embedder`;
    ``batch_size``, ``limit``, ``rebuild``: see :func:`specbrowser.search.embed.embed_missing`).
    Each batch's write waits up to :data:`~specbrowser.store.BACKGROUND_BUSY_TIMEOUT_S` for
    another connection's write.

    Raises:
        JobCancelled: ``cancel`` was set; the finished batches are kept.
        EmbeddingError: no vector extension, or the model cannot be loaded.
    """
    # deferred: the embedding module (13 ms)
    from specbrowser.search.embed import DEFAULT_BATCH, embed_missing, load_embedder
    from specbrowser.session.stores import open_store
    from specbrowser.store import BACKGROUND_BUSY_TIMEOUT_S

    db = open_store(db_path, busy_timeout_s=BACKGROUND_BUSY_TIMEOUT_S)
    try:
        db.vectors.require()
        version = db.active_version()
        embedder = load_embedder(model, model_dir, threads=threads)
        return embed_missing(
            db,
            embedder,
            version,
            batch_size=batch_size or DEFAULT_BATCH,
            limit=limit,
            progress=checked(progress, cancel),
            rebuild=rebuild,
        )
    finally:
        db.close()
