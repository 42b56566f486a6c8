"""Background jobs of the browser and their progress rows: re-chunk, count tokens, embed.

Each job runs in a thread worker on a connection of its own (SQLite connections stay in the
thread that opened them), touches no widget, and reports through messages that flow up to the
screen. A job of the same kind started again cancels the one in flight (``exclusive`` worker
groups): the cancelled worker's progress callback raises, so a re-chunk rolls back its one
transaction and an embedding run stops after its last committed batch.

While a job runs, the bar shows one row per job: what it does, a progress bar and the ETA.
"""

from __future__ import annotations

import logging
from pathlib import Path

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Label, ProgressBar
from textual.worker import NoActiveWorker, Worker, get_current_worker

from specbrowser import store
from specbrowser.chunking.policy import ChunkPolicy
from specbrowser.errors import SpecbrowserError
from specbrowser.session import rechunk_process
from specbrowser.session.rechunk_process import RechunkCancelled
from specbrowser.store.connection import DB_ERRORS

log = logging.getLogger(__name__)

RECHUNK, TOKENS, EMBED = "rechunk", "tokens", "embed"
"""Job kinds, also their worker group names."""

JOB_TITLES = {RECHUNK: "Re-chunking", TOKENS: "Counting tokens", EMBED: "Embedding"}


def job_title(kind: str, stage: str = "") -> str:
    """A job row's title: the job, then the stage it reports, if any ("Re-chunking · storing";
    the chunking stage counts sections: "Re-chunking · chunking sections")."""
    if not stage:
        return JOB_TITLES[kind]
    return f"{JOB_TITLES[kind]} · {stage}{' sections' if stage == 'chunking' else ''}"


class JobCancelled(Exception):
    """Raised inside a job's progress callback when its worker was cancelled."""


class JobProgress(Message):
    """A job made progress: ``done`` of ``total`` units (sections, texts; ``total`` 0: not
    counted) of its ``stage`` ("" for a job of one stage)."""

    def __init__(self, kind: str, done: int, total: int, stage: str = "") -> None:
        super().__init__()
        self.kind = kind
        self.done = done
        self.total = total
        self.stage = stage


class JobFinished(Message):
    """A job ended. ``error`` is its one-line reason when it failed, else None; ``cancelled``
    when a newer job of its kind replaced it; ``result`` is the job's own result object."""

    def __init__(
        self, kind: str, *, result: object = None, error: str | None = None, cancelled: bool = False
    ) -> None:
        super().__init__()
        self.worker = _worker_or_none()
        """The worker that posted this (it may still be running when the message arrives)."""
        self.kind = kind
        self.result = result
        self.error = error
        self.cancelled = cancelled


class JobRow(Horizontal):
    """One running job: its title and a progress bar with ETA."""

    def __init__(self, kind: str) -> None:
        # a class, not an id: the kind's finished row may still be leaving the DOM when the
        # next job of the kind reports (two ids: the app crashed with DuplicateIds)
        super().__init__(classes=f"job-row job-{kind}")
        self.kind = kind
        self._title = Label(JOB_TITLES[kind], classes="job-title", markup=False)
        self._bar = ProgressBar(classes="job-progress", show_eta=True)

    def compose(self) -> ComposeResult:
        yield self._title
        yield self._bar

    def update_progress(self, done: int, total: int, stage: str = "") -> None:
        """Show ``done`` of ``total`` (a pulsing bar when ``total`` is 0: not counted) and the
        job's ``stage``, if it reports stages (:func:`job_title`)."""
        self._title.update(Text(job_title(self.kind, stage)))
        self._bar.update(total=total or None, progress=done)


class JobBar(Vertical):
    """The browser's background jobs and their progress rows (hidden when nothing runs).

    Args:
        db_path: the database file the jobs open on their own connections.
    """

    def __init__(self, db_path: Path, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.db_path = Path(db_path)
        self._rows: dict[str, JobRow] = {}
        self.display = False

    # --- rows ---------------------------------------------------------------------------------

    def _row(self, kind: str) -> JobRow:
        row = self._rows.get(kind)
        if row is None:
            row = self._rows[kind] = JobRow(kind)
            self.mount(row)
            self.display = True
        return row

    def starting(self, kind: str) -> None:
        """Show the kind's row at once, before its worker thread reports (on a busy main loop
        that first report came up to 1.4 s after Apply, with nothing on screen meanwhile)."""
        self._row(kind).update_progress(0, 0, "starting")

    def on_job_progress(self, message: JobProgress) -> None:
        """Update (or add) the job's row; the message goes on up to the screen."""
        self._row(message.kind).update_progress(message.done, message.total, message.stage)

    def on_job_finished(self, message: JobFinished) -> None:
        """Remove the job's row unless a newer job of its kind runs; the message goes on up."""
        if self.running(message.kind, besides=message.worker):
            return
        row = self._rows.pop(message.kind, None)
        if row is not None:
            row.remove()
        self.display = bool(self._rows)

    def running(self, kind: str, besides: Worker | None = None) -> bool:
        """Whether a job of ``kind`` (other than ``besides``) is pending or running, not
        cancelled."""
        return any(
            w.group == kind and not w.is_cancelled and not w.is_finished
            for w in self.app.workers
            if w.node is self and w is not besides
        )

    def cancel(self, kind: str) -> None:
        """Cancel the jobs of ``kind`` (their progress callback stops them)."""
        for worker in self.app.workers:
            if worker.node is self and worker.group == kind:
                worker.cancel()

    # --- jobs ---------------------------------------------------------------------------------

    def _progress(self, kind: str):
        worker = get_current_worker()

        def progress(*args: str | int) -> None:
            if worker.is_cancelled:
                raise JobCancelled
            done, total = int(args[-2]), int(args[-1])  # (stage, done, total) or (done, total)
            stage = str(args[0]) if len(args) == 3 else ""
            self.post_message(JobProgress(kind, done, total, stage))

        return progress

    def _run(self, kind: str, job, *, connect: bool = True) -> None:
        """Run ``job(db, progress)`` on a fresh connection (``job(progress)`` without
        ``connect``); post the outcome."""
        worker = get_current_worker()
        self.post_message(JobProgress(kind, 0, 0))
        try:
            if not connect:
                result = job(self._progress(kind))
            else:
                db = store.open_database(self.db_path)
                try:
                    result = job(db, self._progress(kind))
                finally:
                    db.close()
        except (JobCancelled, RechunkCancelled):
            self.post_message(JobFinished(kind, cancelled=True))
            return
        except SpecbrowserError as error:
            self.post_message(JobFinished(kind, error=str(error)))
            return
        except DB_ERRORS as error:  # the file changed or vanished under us: never a traceback
            self.post_message(
                JobFinished(kind, error=f"{JOB_TITLES[kind].lower()} failed: {error}")
            )
            return
        except Exception as error:  # a bug: say so in one line, never fail silently
            log.exception("%s job failed", kind)
            self.post_message(
                JobFinished(
                    kind,
                    error=f"{JOB_TITLES[kind].lower()} failed "
                    f"unexpectedly: {type(error).__name__}: {error}",
                )
            )
            return
        if worker.is_cancelled:
            self.post_message(JobFinished(kind, cancelled=True))
        else:
            self.post_message(JobFinished(kind, result=result))

    @work(thread=True, exclusive=True, group=RECHUNK, exit_on_error=False)
    def rechunk(self, policy: ChunkPolicy) -> None:
        """Re-chunk the stored sections under ``policy`` and make the set active, in a child
        process (:mod:`specbrowser.session.rechunk_process`: a thread would starve the app's event
        loop of the GIL); a newer call cancels this one, and the child then rolls back."""
        worker = get_current_worker()

        def job(progress):
            return rechunk_process.rechunk_in_subprocess(
                self.db_path, policy, progress=progress, cancelled=lambda: worker.is_cancelled
            )

        self._run(RECHUNK, job, connect=False)

    @work(thread=True, exclusive=True, group=TOKENS, exit_on_error=False)
    def count_tokens(self) -> None:
        """Count the tokens of the active set's texts that have none (the default model's
        tokenizer); the result is the set's :class:`~specbrowser.search.tokens.TokenInfo`."""
        from specbrowser.search.tokens import (
            count_missing_tokens,
            default_token_counter,
            token_info,
        )

        def job(db, progress):
            counter = default_token_counter()
            if counter is None:
                return None
            version = store.active_version(db)
            count_missing_tokens(db, counter, version, progress=progress)
            return token_info(db, version, counter.model)

        self._run(TOKENS, job)

    @work(thread=True, exclusive=True, group=EMBED, exit_on_error=False)
    def embed(self, model: str | None = None) -> None:
        """Embed the active set's texts that have no vector (``model``: the stored one, else
        the default); the result is an :class:`~specbrowser.search.embed.EmbedReport`."""
        from specbrowser.search.embed import embed_missing, load_embedder
        from specbrowser.store.vectors import require_vectors

        def job(db, progress):
            require_vectors(db)
            embedder = load_embedder(model)
            return embed_missing(db, embedder, store.active_version(db), progress=progress)

        self._run(EMBED, job)


def _worker_or_none() -> Worker | None:
    try:
        return get_current_worker()
    except NoActiveWorker:
        return None
