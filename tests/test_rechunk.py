"""Re-chunking from stored sections (specbrowser.rechunk), its cache and ``specbrowser rechunk``."""

from __future__ import annotations

import pytest

from specbrowser import store
from specbrowser.errors import NotFoundError
from specbrowser.ingest import ingest
from specbrowser.policy import ChunkPolicy
from specbrowser.rechunk import rechunk
from tests.helpers import SAMPLE, write_spec

SMALL = ChunkPolicy(threshold_chars=400)
ROW_GROUPS = ChunkPolicy(threshold_chars=300, breakdown_tags=("emu-table", "tr", "li", "p"))


def _snapshot(db) -> tuple:
    """Everything a re-chunk may change: policies (without creation time) and every chunk row."""
    policies = db.execute("SELECT version, settings, stats, active FROM policies ORDER BY version").fetchall()
    chunks = db.execute("SELECT * FROM chunks ORDER BY policy_version, ordinal").fetchall()
    return policies, chunks


@pytest.fixture
def sample_db(tmp_path):
    path = tmp_path / "sample.db"
    ingest([SAMPLE], path, ChunkPolicy())
    db = store.open_database(path)
    yield db
    db.close()


@pytest.mark.parametrize("policy", [SMALL, ROW_GROUPS, ChunkPolicy(threshold_chars=800, max_depth=1)])
def test_rechunk_equals_what_ingest_stores_for_the_same_policy(tmp_path, sample_db, policy):
    ingest([SAMPLE], tmp_path / "direct.db", policy)
    direct = store.open_database(tmp_path / "direct.db")
    result = rechunk(sample_db, policy)
    assert result.version == policy.version == store.active_version(sample_db)
    assert result.previous_version == ChunkPolicy().version
    assert not result.already_stored
    assert list(store.iter_chunks(sample_db)) == list(store.iter_chunks(direct))
    assert result.stats == store.chunk_stats(direct)
    assert set(result.timings) == {"load", "chunk", "store", "total"}


def test_rechunk_without_activate_keeps_the_active_set(sample_db):
    result = rechunk(sample_db, SMALL, activate=False)
    assert store.active_version(sample_db) == result.previous_version == ChunkPolicy().version
    assert store.count_chunk_sets(sample_db) == 2
    assert store.chunk_stats(sample_db, result.version) == result.stats


def test_a_stored_policy_is_only_activated_unless_rebuild(sample_db):
    rechunk(sample_db, SMALL)
    before = _snapshot(sample_db)
    again = rechunk(sample_db, ChunkPolicy())
    assert again.already_stored and again.previous_version == SMALL.version
    assert store.active_version(sample_db) == ChunkPolicy().version
    assert again.stats == store.chunk_stats(sample_db)
    rebuilt = rechunk(sample_db, SMALL, rebuild=True)
    assert rebuilt.already_stored and rebuilt.timings["chunk"] > 0
    assert _snapshot(sample_db)[1] == before[1]


@pytest.mark.parametrize("stage", ["loading", "chunking", "storing"])
def test_an_exception_from_progress_leaves_the_database_as_it_was(sample_db, stage):
    before = _snapshot(sample_db)

    def cancel(at: str, done: int, total: int) -> None:
        if at == stage:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        rechunk(sample_db, SMALL, progress=cancel)
    assert _snapshot(sample_db) == before


def test_rechunk_of_an_empty_database_is_a_user_error(tmp_path):
    db = store.open_database(tmp_path / "empty.db", create=True)
    with pytest.raises(NotFoundError, match="holds no spec"):
        rechunk(db, SMALL)


def test_rechunk_of_hand_written_html(tmp_path):
    long_p = "<p>" + "word " * 120 + "</p>"
    spec = write_spec(tmp_path, f"<emu-clause id='sec-a'><h1>A</h1>{long_p}{long_p}</emu-clause>")
    ingest([spec], tmp_path / "t.db", ChunkPolicy())
    db = store.open_database(tmp_path / "t.db")
    result = rechunk(db, ChunkPolicy(threshold_chars=700))
    ids = [c.id for c in store.iter_chunks(db)]
    assert ids == ["specbrowser:document", "sec-a", "sec-a-p-1", "sec-a-p-2"]
    assert result.stats["chunks"] == 4
