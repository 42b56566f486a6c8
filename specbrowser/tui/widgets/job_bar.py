"""The browser's background jobs and their progress rows: re-chunk, count tokens, embed.

The jobs themselves are the session's (:mod:`specbrowser.session.jobs`); this widget runs each
in a thread worker, touches no widget from it, and reports through messages that flow up to the
screen. A job of the same kind started again cancels the one in flight (``exclusive`` worker
groups): the worker's cancel state is the job's :class:`~specbrowser.progress.CancelToken`, so
a re-chunk rolls back its one transaction and an embedding run stops after its last committed
batch.

While a job runs, the bar shows one row per job: what it does, a progress bar and the ETA.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.timer import Timer
from textual.widgets import Label
from textual.worker import NoActiveWorker, Worker, get_current_worker

from specbrowser.chunking.policy import ChunkPolicy
from specbrowser.errors import SpecbrowserError
from specbrowser.progress import CancelToken, JobCancelled
from specbrowser.session import DB_ERRORS, jobs
from specbrowser.session.jobs import JOB_TITLES, JobKind, job_title

log = logging.getLogger(__name__)

RECHUNK: JobKind = "rechunk"
TOKENS: JobKind = "tokens"
EMBED: JobKind = "embed"

PROGRESS_SECONDS = 0.1
"""Least time between two updates of a job's progress row."""

EMBED_THREADS = 1
"""onnxruntime threads of the app's embedding job: on a 2-core machine the other core stays
with the app's event loop, so keys answer while it runs."""


BACKGROUND_NICE = 10
"""Nice value added to the thread that runs an embedding or token-count job (Linux schedules
threads on their own nice values): the app's event loop, the keys, goes first on a busy
machine. Re-chunks run in a child process and are not affected."""

NICED_JOBS: frozenset[JobKind] = frozenset({EMBED, TOKENS})
"""The jobs run on a lowered-priority thread of their own (:data:`BACKGROUND_NICE`)."""


def run_niced(job: Callable[[], object], name: str) -> object:
    """Run ``job()`` on a new thread whose priority is lowered by :data:`BACKGROUND_NICE` and
    wait for it; return its result or raise what it raised.

    A thread of its own, not the calling worker's: Textual's thread workers share a pool, and
    an unprivileged thread cannot raise its priority back. Where priorities cannot be set (not
    Linux, a sandbox) the job runs at normal priority.
    """
    with ThreadPoolExecutor(1, thread_name_prefix=name, initializer=_lower_priority) as thread:
        return thread.submit(job).result()


def _lower_priority() -> None:
    with contextlib.suppress(AttributeError, OSError):
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), BACKGROUND_NICE)


class WorkerFlag:
    """The current worker's cancel state as a :class:`~specbrowser.progress.Flag`."""

    def __init__(self, worker: Worker) -> None:
        self._worker = worker

    def set(self) -> None:
        self._worker.cancel()

    def is_set(self) -> bool:
        return self._worker.is_cancelled


class JobProgress(Message):
    """A job made progress: ``done`` of ``total`` units (sections, texts; ``total`` 0: not
    counted) of its ``stage`` ("" for a job of one stage)."""

    def __init__(self, kind: JobKind, done: int, total: int, stage: str = "") -> None:
        super().__init__()
        self.kind = kind
        self.done = done
        self.total = total
        self.stage = stage


class JobFinished(Message):
    """A job ended. ``error`` is its one-line reason when it failed, else None; ``cancelled``
    when a newer job of its kind replaced it; ``result`` is the job's own result object."""

    def __init__(
        self,
        kind: JobKind,
        *,
        result: object = None,
        error: str | None = None,
        cancelled: bool = False,
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

    def __init__(self, kind: JobKind) -> None:
        # a class, not an id: the kind's finished row may still be leaving the DOM when the
        # next job of the kind reports (two ids: the app crashed with DuplicateIds)
        super().__init__(classes=f"job-row job-{kind}")
        self.kind = kind
        # deferred: the first frame has no job row, and the progress bar's module costs 1.4 ms
        from textual.widgets import ProgressBar

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
        self._latest: dict[JobKind, JobProgress] = {}
        """Each job's latest report not shown yet."""
        self._progress_timer: Timer | None = None
        self.display = False

    # --- rows ---------------------------------------------------------------------------------

    def _row(self, kind: JobKind) -> JobRow:
        row = self._rows.get(kind)
        if row is None:
            row = self._rows[kind] = JobRow(kind)
            self.mount(row)
            self.display = True
        return row

    def starting(self, kind: JobKind) -> None:
        """Show the kind's row at once, before its worker thread reports (on a busy main loop
        that first report can come a second after Apply, with nothing on screen meanwhile)."""
        self._row(kind).update_progress(0, 0, "starting")

    def on_job_progress(self, message: JobProgress) -> None:
        """Update (or add) the job's row, at most every :data:`PROGRESS_SECONDS` (the latest
        report wins: a re-chunk reports hundreds of times a second, and each row update lays
        the screen out again); the message goes on up to the screen."""
        if message.kind not in self._rows:  # a new row shows its first report at once
            self._latest.pop(message.kind, None)
            self._row(message.kind).update_progress(message.done, message.total, message.stage)
            return
        self._latest[message.kind] = message
        if self._progress_timer is None:
            self._progress_timer = self.set_timer(PROGRESS_SECONDS, self._show_progress)

    def _show_progress(self) -> None:
        self._progress_timer = None
        latest, self._latest = self._latest, {}
        for kind, message in latest.items():
            row = self._rows.get(kind)
            if row is not None:
                row.update_progress(message.done, message.total, message.stage)

    def on_job_finished(self, message: JobFinished) -> None:
        """Remove the job's row unless a newer job of its kind runs; the message goes on up."""
        if self.running(message.kind, besides=message.worker):
            return
        self._latest.pop(message.kind, None)
        row = self._rows.pop(message.kind, None)
        if row is not None:
            row.remove()
        self.display = bool(self._rows)

    def running(self, kind: JobKind, besides: Worker | None = None) -> bool:
        """Whether a job of ``kind`` (other than ``besides``) is pending or running, not
        cancelled."""
        return any(
            w.group == kind and not w.is_cancelled and not w.is_finished
            for w in self.app.workers
            if w.node is self and w is not besides
        )

    def cancel(self, kind: JobKind) -> None:
        """Cancel the jobs of ``kind`` (their progress callback stops them)."""
        for worker in self.app.workers:
            if worker.node is self and worker.group == kind:
                worker.cancel()

    # --- jobs ---------------------------------------------------------------------------------

    def _report(self, kind: JobKind) -> jobs.Progress:
        def progress(stage: str, done: int, total: int) -> None:
            self.post_message(JobProgress(kind, done, total, stage))  # thread-safe

        return progress

    def _run(self, kind: JobKind, job: Callable[[jobs.Progress, CancelToken], object]) -> None:
        """Run ``job(progress, cancel)`` in this worker thread; post the outcome."""
        worker = get_current_worker()
        self.post_message(JobProgress(kind, 0, 0))
        try:
            cancel = CancelToken(WorkerFlag(worker))
            if kind in NICED_JOBS:
                result = run_niced(
                    lambda: job(self._report(kind), cancel), name=f"specbrowser-{kind}"
                )
            else:
                result = job(self._report(kind), cancel)
        except JobCancelled:
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
        """Re-chunk the stored sections under ``policy`` and make the set active
        (:func:`specbrowser.session.jobs.run_rechunk`, in a child process: a thread would
        starve the app's event loop of the GIL); a newer call cancels this one, and the child
        then rolls back."""
        self._run(
            RECHUNK,
            lambda progress, cancel: jobs.run_rechunk(
                self.db_path, policy, progress=progress, cancel=cancel
            ),
        )

    @work(thread=True, exclusive=True, group=TOKENS, exit_on_error=False)
    def count_tokens(self) -> None:
        """Count the tokens of the active set's texts that have none
        (:func:`specbrowser.session.jobs.run_count_tokens`); the result is the set's
        :class:`~specbrowser.search.tokens.TokenInfo`."""
        self._run(
            TOKENS,
            lambda progress, cancel: jobs.run_count_tokens(
                self.db_path, progress=progress, cancel=cancel
            ),
        )

    @work(thread=True, exclusive=True, group=EMBED, exit_on_error=False)
    def embed(self, model: str | None = None) -> None:
        """Embed the active set's texts that have no vector
        (:func:`specbrowser.session.jobs.run_embed`) on :data:`EMBED_THREADS` onnxruntime
        threads; the result is an :class:`~specbrowser.search.embed.EmbedReport`."""
        self._run(
            EMBED,
            lambda progress, cancel: jobs.run_embed(
                self.db_path,
                model=model,
                threads=EMBED_THREADS,
                progress=progress,
                cancel=cancel,
            ),
        )


def _worker_or_none() -> Worker | None:
    try:
        return get_current_worker()
    except NoActiveWorker:
        return None
