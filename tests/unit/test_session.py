"""The application layer: Session reads, the open rules, and the jobs' progress and cancel."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from specbrowser.chunking.policy import ChunkPolicy
from specbrowser.errors import NotFoundError, SpecInputError
from specbrowser.progress import CancelToken, JobCancelled, checked
from specbrowser.session import Session, jobs, opening
from tests.helpers import SAMPLE, TOYLANG_POLICY

# --- the progress protocol and the cancel token ----------------------------------------------


def test_checked_forwards_reports_until_the_token_is_set() -> None:
    seen: list[tuple[str, int, int]] = []
    token = CancelToken()
    report = checked(lambda *call: seen.append(call), token)
    report("chunking", 1, 3)
    token.cancel()
    with pytest.raises(JobCancelled):
        report("chunking", 2, 3)
    assert seen == [("chunking", 1, 3)] and token.cancelled


def test_a_token_over_any_flag_reads_and_sets_it() -> None:
    event = threading.Event()
    token = CancelToken(event)
    assert not token.cancelled
    event.set()
    assert token.cancelled
    with pytest.raises(JobCancelled):
        token.check()


def test_checked_without_a_callback_or_token_does_nothing() -> None:
    checked(None, None)("storing", 0, 0)


# --- jobs --------------------------------------------------------------------------------------


def test_an_ingest_cancelled_midway_writes_nothing(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    token = CancelToken()
    stages: list[str] = []

    def progress(stage: str, done: int, total: int) -> None:
        stages.append(stage)
        if stage == "chunking" and done:
            token.cancel()

    with pytest.raises(JobCancelled):
        jobs.run_ingest([SAMPLE], db, ChunkPolicy(), progress=progress, cancel=token)
    assert "chunking" in stages and "storing" not in stages
    assert not db.exists()  # the database the ingest created is removed again


def test_a_cancelled_rechunk_leaves_the_sets_as_they_were(toylang_db: Path) -> None:
    token = CancelToken()

    def progress(stage: str, done: int, total: int) -> None:
        if stage == "chunking":
            token.cancel()  # the next report stops the job

    with Session.open(toylang_db) as session:
        before = [s.version for s in session.chunk_sets()]
        active = session.active_version()
    with pytest.raises(JobCancelled):
        jobs.run_rechunk(
            toylang_db,
            ChunkPolicy(threshold=400),
            progress=progress,
            cancel=token,
            in_subprocess=False,
        )
    with Session.open(toylang_db) as session:
        assert [s.version for s in session.chunk_sets()] == before
        assert session.active_version() == active


def test_a_rechunk_job_makes_the_new_set_active_and_reports_stages(toylang_db: Path) -> None:
    stages: list[str] = []
    policy = ChunkPolicy(threshold=400)
    result = jobs.run_rechunk(
        toylang_db, policy, progress=lambda stage, *_: stages.append(stage), in_subprocess=False
    )
    assert result.version == policy.version
    assert {"loading", "chunking", "storing"} <= set(stages)
    with Session.open(toylang_db) as session:
        assert session.active_version() == policy.version


def test_job_titles_name_stages_only_for_jobs_with_several() -> None:
    assert jobs.job_title("rechunk", "chunking") == "Re-chunking · chunking sections"
    assert jobs.job_title("rechunk", "storing") == "Re-chunking · storing"
    assert jobs.job_title("tokens", "counting") == "Counting tokens"
    assert jobs.job_title("embed") == "Embedding"
    assert set(jobs.JOB_TITLES) == set(jobs.JOB_KINDS)


# --- Session reads ----------------------------------------------------------------------------


def test_session_finds_a_chunk_by_id_or_by_section_number(toylang_db: Path) -> None:
    with Session.open(toylang_db) as session:
        first = next(c for c in session.top_level_chunks() if session.section(c.id).secnum)
        assert session.chunk_id_for(first.id) == first.id
        assert session.chunk_id_for(session.section(first.id).secnum) == first.id
        with pytest.raises(NotFoundError, match="no chunk or section with id or number"):
            session.chunk_id_for("no-such-thing")


def test_session_tree_parents_lead_back_to_a_top_level_section(toylang_db: Path) -> None:
    with Session.open(toylang_db) as session:
        deepest = max(
            (c for c in session.store.iter_chunks() if c.section_id), key=lambda c: c.depth
        )
        seen = [deepest.id]
        while (parent := session.tree_parent_id(seen[-1])) is not None:
            seen.append(parent)
        assert session.chunk(seen[-1]).id in {c.id for c in session.top_level_chunks()}


def test_a_reopened_session_reads_the_same_file_from_another_thread(toylang_db: Path) -> None:
    with Session.open(toylang_db) as session:
        active = session.active_version()
        found: list[str] = []

        def read() -> None:
            with session.reopen() as other:
                found.append(other.active_version())

        thread = threading.Thread(target=read)
        thread.start()
        thread.join()
        assert found == [active] and session.path == toylang_db


def test_chunk_count_of_an_unknown_version_is_zero(toylang_db: Path) -> None:
    with Session.open(toylang_db) as session:
        assert session.chunk_count() == len(list(session.store.iter_chunks()))
        assert session.chunk_count("ffffffffffff") == 0


# --- what open does with its targets ----------------------------------------------------------


def test_open_plans_a_database_as_it_is(toylang_db: Path) -> None:
    assert opening.plan_open([toylang_db], ChunkPolicy()) == opening.OpenPlan(toylang_db)


def test_open_plans_an_ingest_then_reuses_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache.db"
    monkeypatch.setattr(opening, "cache_db_for", lambda paths: cache)
    policy = TOYLANG_POLICY
    plan = opening.plan_open([SAMPLE], policy)
    assert plan == opening.OpenPlan(cache, [SAMPLE])
    jobs.run_ingest(plan.ingest or [], plan.db_path, policy)
    assert opening.plan_open([SAMPLE], policy) == opening.OpenPlan(cache)


def test_open_refuses_a_database_among_spec_files(toylang_db: Path) -> None:
    with pytest.raises(SpecInputError, match="one database, or the files of one spec"):
        opening.plan_open([SAMPLE, toylang_db], ChunkPolicy())


def test_open_keeps_a_spec_database_where_db_says(tmp_path: Path, toylang_db: Path) -> None:
    mine = tmp_path / "mine.db"
    plan = opening.plan_open([SAMPLE], TOYLANG_POLICY, db_path=mine)
    assert plan == opening.OpenPlan(mine, [SAMPLE])
    jobs.run_ingest(plan.ingest or [], plan.db_path, TOYLANG_POLICY)
    assert opening.plan_open([SAMPLE], TOYLANG_POLICY, db_path=mine) == opening.OpenPlan(mine)
    with pytest.raises(SpecInputError, match="--db"):
        opening.plan_open([toylang_db], ChunkPolicy(), db_path=mine)


def test_open_adds_a_spec_to_a_db_holding_another(tmp_path: Path) -> None:
    """--db holding another spec: the spec is ingested beside it (the corpus grows)."""
    from tests.helpers import MISMATCHED_TOC

    mine = tmp_path / "mine.db"
    jobs.run_ingest([SAMPLE], mine, TOYLANG_POLICY)
    assert opening.plan_open([MISMATCHED_TOC], TOYLANG_POLICY, db_path=mine).ingest


def test_open_never_deletes_an_unreadable_file_named_by_db(tmp_path: Path) -> None:
    from specbrowser.errors import DatabaseError

    other = tmp_path / "notes.db"
    other.write_bytes(b"not a database at all")
    with pytest.raises(DatabaseError):
        opening.plan_open([SAMPLE], ChunkPolicy(), db_path=other)
    assert other.read_bytes() == b"not a database at all"


def test_an_unreadable_cache_database_is_dropped(tmp_path: Path) -> None:
    cache = tmp_path / "cache.db"
    cache.write_bytes(b"SQLite format 3\x00" + b"\x00" * 100)  # damaged
    opening.drop_unreadable_cache(cache)
    assert not cache.exists()


@pytest.mark.parametrize("query", ["", "   ", "\t\n"])
def test_an_empty_query_is_refused_in_one_line(toylang_db: Path, query: str) -> None:
    from specbrowser.errors import PolicyError

    with Session.open(toylang_db) as session, pytest.raises(PolicyError, match="query is empty"):
        session.search(query)


@pytest.mark.parametrize(
    "flags, says", [(os.ST_RDONLY, "read-only file system"), (0, "permission denied")]
)
def test_an_unwritable_database_place_says_why(tmp_path: Path, monkeypatch, flags, says) -> None:
    """A read-only mount is named as the operating system names it elsewhere."""
    import types

    from specbrowser.errors import DatabaseError
    from specbrowser.session import ingest as ingest_module

    monkeypatch.setattr(ingest_module.os, "access", lambda path, mode: False)
    monkeypatch.setattr(
        ingest_module.os, "statvfs", lambda path: types.SimpleNamespace(f_flag=flags)
    )
    with pytest.raises(DatabaseError, match=f"cannot write .*: {says}$"):
        ingest_module.check_db_path(tmp_path / "x.db")
