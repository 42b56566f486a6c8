"""Semantic and hybrid search on a small embedded sample (skipped without the offline model)."""

from __future__ import annotations

import pytest

from specbrowser.chunking.policy import ChunkPolicy
from specbrowser.search import query as search
from specbrowser.search.embed import embed_missing
from specbrowser.search.query import hybrid_search, lexical_search, semantic_search
from specbrowser.session.ingest import ingest
from specbrowser.store import open_database
from tests.helpers import HAVE_MODEL, MODEL_MISSING, write_spec

pytestmark = pytest.mark.skipif(not HAVE_MODEL, reason=MODEL_MISSING)

TEXTS = {
    "sec-fruit": "Apples and pears are sweet fruits that grow on trees in orchards.",
    "sec-engine": "The engine burns fuel in cylinders to turn the crankshaft of a car.",
    "sec-rain": "Rain falls from clouds when water vapour condenses into droplets.",
}


@pytest.fixture
def db(tmp_path, embedder):
    body = "".join(
        f'<emu-clause id="{sid}"><h1>{sid}</h1><p>{text}</p></emu-clause>'
        for sid, text in TEXTS.items()
    )
    path = tmp_path / "h.db"
    ingest([write_spec(tmp_path, body)], path, ChunkPolicy())
    database = open_database(path)
    embed_missing(database, embedder, database.active_version())
    search._EMBEDDERS[embedder.name] = embedder  # reuse the loaded model
    return database


def test_semantic_search_finds_meaning_without_shared_words(db):
    hits = semantic_search(db, "weather precipitation", limit=3)
    assert hits[0].chunk_id == "sec-rain" and hits[0].mode == "semantic"
    assert lexical_search(db, "weather precipitation") == []


def test_hybrid_fuses_both_lists(db):
    hits = hybrid_search(db, "orchards vehicle motor", limit=4)
    ids = [h.chunk_id for h in hits]
    assert "sec-fruit" in ids and "sec-engine" in ids
    assert all(h.mode == "hybrid" for h in hits)


def test_hybrid_without_embeddings_is_lexical(tmp_path):
    spec = write_spec(tmp_path, '<emu-clause id="a"><h1>A</h1><p>lonely words</p></emu-clause>')
    path = tmp_path / "n.db"
    ingest([spec], path, ChunkPolicy())
    hits = hybrid_search(open_database(path), "lonely", limit=3)
    assert [h.chunk_id for h in hits] == ["a"] and hits[0].mode == "lexical"


def test_semantic_and_hybrid_respect_filters(db):
    from specbrowser.search.query import SearchFilter

    where = SearchFilter(section="sec-engine")
    assert [
        h.chunk_id for h in semantic_search(db, "weather precipitation", limit=3, where=where)
    ] == ["sec-engine"]
    assert [h.chunk_id for h in hybrid_search(db, "rain clouds", limit=3, where=where)] == [
        "sec-engine"
    ]
    assert semantic_search(db, "rain", limit=3, where=SearchFilter(over_threshold=True)) == []


def test_the_knn_join_goes_from_each_neighbour_to_its_rows_by_index(db):
    """Through the chunks view SQLite scanned the whole chunk set once per neighbour (4x the
    semantic latency on ECMA-262); each step must be an index lookup."""
    from specbrowser.store.vectors import nearest_sql

    plan = " | ".join(
        row[3]
        for row in db.db.execute("EXPLAIN QUERY PLAN " + nearest_sql(), [b"\0" * 16, 3, "v", 3])
    )
    assert "texts_content (content_hash=?)" in plan, plan
    assert "chunk_rows_text (text_id=? AND policy_version=?)" in plan, plan
