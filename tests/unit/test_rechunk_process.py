"""Re-chunking in a child process (the app's way, so its event loop keeps the GIL)."""

from __future__ import annotations

from pathlib import Path

import pytest

from specbrowser.chunking.policy import ChunkPolicy
from specbrowser.errors import DatabaseError, NotFoundError
from specbrowser.progress import JobCancelled
from specbrowser.session.ingest import ingest
from specbrowser.session.rechunk import rechunk
from specbrowser.session.rechunk_process import rechunk_in_subprocess
from specbrowser.store import open_database
from tests.helpers import SAMPLE


@pytest.fixture
def sample_db(ingested_db) -> Path:
    return ingested_db(SAMPLE, ChunkPolicy(threshold=800), "t.db")


def test_subprocess_rechunk_equals_the_in_process_one(sample_db: Path, tmp_path: Path) -> None:
    policy = ChunkPolicy(threshold=300)
    reports: list[tuple[str, int, int]] = []
    result = rechunk_in_subprocess(sample_db, policy, progress=lambda *a: reports.append(a))
    assert result.version == policy.version and result.previous_version is not None
    assert {stage for stage, _d, _t in reports} >= {"chunking"}
    db = open_database(sample_db)
    try:
        assert db.active_version() == policy.version
        theirs = [(c.id, c.text, c.retrieval_text) for c in db.iter_chunks()]
    finally:
        db.close()
    other = tmp_path / "o.db"
    ingest([SAMPLE], other, ChunkPolicy(threshold=800))
    db = open_database(other)
    try:
        rechunk(db, policy)
        assert [(c.id, c.text, c.retrieval_text) for c in db.iter_chunks()] == theirs
    finally:
        db.close()


@pytest.mark.parametrize("after_reports", [0, 1])
def test_a_cancelled_run_stops_and_leaves_the_database_as_it_was(
    sample_db: Path, after_reports: int
) -> None:
    seen: list[object] = []
    with pytest.raises(JobCancelled):
        rechunk_in_subprocess(
            sample_db,
            ChunkPolicy(threshold=300),
            progress=lambda *a: seen.append(a),
            cancelled=lambda: len(seen) >= after_reports,
        )
    db = open_database(sample_db)
    try:
        assert [s.version for s in db.sets.all()] == [ChunkPolicy(threshold=800).version]
    finally:
        db.close()


def test_the_childs_user_errors_keep_their_class(tmp_path: Path) -> None:
    with pytest.raises(DatabaseError, match="does not exist"):
        rechunk_in_subprocess(tmp_path / "missing.db", ChunkPolicy())
    empty = tmp_path / "empty.db"
    open_database(empty, create=True).close()
    with pytest.raises(NotFoundError):
        rechunk_in_subprocess(empty, ChunkPolicy())


def test_a_fork_server_that_cannot_start_falls_back_to_spawn(tmp_path, monkeypatch):
    """Where the fork server fails (its socket folder unwritable, say), the child is spawned."""
    import multiprocessing

    from specbrowser.session import rechunk_process

    path = tmp_path / "s.db"
    ingest([SAMPLE], path, ChunkPolicy())
    started: list[str] = []
    real_start = rechunk_process._start

    def start(context, db_path, policy):
        started.append(context.get_start_method())
        if context.get_start_method() != "spawn":
            raise OSError("no fork server here")
        return real_start(context, db_path, policy)

    monkeypatch.setattr(rechunk_process, "_start", start)
    monkeypatch.setattr(rechunk_process, "_context", lambda: multiprocessing.get_context("fork"))
    result = rechunk_process.rechunk_in_subprocess(path, ChunkPolicy(threshold=400))
    assert started == ["fork", "spawn"] and result.stats.chunks > 1
