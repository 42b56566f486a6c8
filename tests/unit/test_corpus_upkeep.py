"""What an ingest into a corpus leaves behind: the chunk sets' stored stats count every spec,
and a spec replacing itself drops the vectors of the texts no set holds any more (the other
specs' and its unchanged texts' stay). The tests' two-spec sample corpus (``corpus_db``)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from specbrowser import store
from specbrowser.chunking.policy import ChunkPolicy
from specbrowser.session import Session
from specbrowser.session.ingest import ingest
from tests.conftest import CORPUS_SPECS


def test_a_sets_stored_stats_count_every_spec_of_the_corpus(corpus_db) -> None:
    with Session.open(corpus_db) as session:
        _, stored = session.active_policy()
        assert stored.chunks == session.chunk_count() == sum(s.chunks for s in session.specs())
        assert stored.sections == sum(s.sections for s in session.specs())


def test_a_spec_replacing_itself_drops_only_its_old_texts_vectors(corpus_db, tmp_path) -> None:
    from specbrowser.store import vectors as store_vectors

    with store.open_database(corpus_db) as db:
        if db.vector_error:
            pytest.skip(db.vector_error)
        texts = {c.id: c.retrieval_text for c in db.iter_chunks()}
        db.vectors.prepare("fake-model", 2)
        db.vectors.add(
            "fake-model",
            2,
            [
                store_vectors.NewEmbedding(store_vectors.content_hash(t), b"\0" * 8, False, 9)
                for t in set(texts.values())
            ],
        )
    timers = tmp_path / "widget-timers.html"
    shutil.copyfile(CORPUS_SPECS[1], timers)
    timers.write_text(
        timers.read_text(encoding="utf-8").replace("whole milliseconds", "whole seconds"),
        encoding="utf-8",
    )
    result = ingest([timers], corpus_db, ChunkPolicy())
    assert result.outcome == store.INGEST_REPLACED_SPEC
    with store.open_database(corpus_db) as db:
        now = {c.id: c.retrieval_text for c in db.iter_chunks()}
        stored = {
            str(h) for (h,) in db.db.execute("SELECT content_hash FROM embeddings").fetchall()
        }
        knn = db.db.execute("SELECT count(*) FROM chunk_vectors").fetchone()[0]
    changed = {i for i in now if now[i] != texts.get(i)}
    # the one section whose text changed, and the document chunk whose section guide quotes it
    assert changed - {"widget-timers:specbrowser:document"} == {"sec-timers"}
    kept = {store_vectors.content_hash(now[i]) for i in now if i not in changed}
    assert stored == kept and knn == len(kept)
    assert store_vectors.content_hash(texts["sec-timers"]) not in stored


@pytest.mark.parametrize("replaced", [False, True], ids=["added", "replaced"])
def test_an_ingests_index_rows_are_those_a_rebuild_makes(corpus_db, tmp_path, replaced) -> None:
    """An ingest that adds a spec extends the set's FTS5 index with that spec's texts only
    (:func:`specbrowser.store.schema.extend_set_fts`), one that replaces a spec rebuilds it; a
    full rebuild afterwards gives the same rows and the same BM25 ranking."""
    from specbrowser.store.schema import build_set_fts, set_fts_table

    if replaced:  # Widget Timers again, with new bytes: it replaces itself
        changed = tmp_path / CORPUS_SPECS[1].name
        html = CORPUS_SPECS[1].read_text(encoding="utf-8")
        changed.write_text(html.replace("whole milliseconds", "whole seconds"), encoding="utf-8")
        assert ingest([changed], corpus_db, ChunkPolicy()).outcome == "replaced_spec"

    def ranked(db: store.SpecStore, table: str) -> list[tuple[int, float]]:
        rows = db.db.execute(
            f"SELECT rowid, round(bm25([{table}]), 9) FROM [{table}] WHERE [{table}] MATCH ? "
            "ORDER BY rank, rowid",
            ["section OR spec OR value"],
        )
        return [(int(rowid), float(score)) for rowid, score in rows]

    with store.open_database(corpus_db) as db:
        version = db.active_version()
        table = set_fts_table(version)
        size = db.db.execute(f"SELECT count(*) FROM [{table}_docsize]").fetchone()[0]
        extended = ranked(db, table)
        with db.transaction("rebuild"):
            build_set_fts(db.db, version)
        assert db.db.execute(f"SELECT count(*) FROM [{table}_docsize]").fetchone()[0] == size
        assert ranked(db, table) == extended != []


def test_a_sets_recounted_stats_are_a_full_count(corpus_db) -> None:
    """The stats an ingest into a corpus stores (read from the rows' facts) are those of
    counting every chunk of the set."""
    from specbrowser.chunking.stats import compute_stats

    with store.open_database(corpus_db) as db:
        version = db.active_version()
        full = compute_stats(list(db.iter_chunks(version)), db.sections.count())
        assert db.sets.stats(version) == full.to_dict()


SAMPLES = Path(__file__).parents[2] / "sample_specs"


def _full_count(db_path: Path) -> tuple[dict, dict]:
    from specbrowser.chunking.stats import compute_stats

    with store.open_database(db_path) as db:
        version = db.active_version()
        full = compute_stats(list(db.iter_chunks(version)), db.sections.count())
        return db.sets.stats(version) or {}, full.to_dict()


def test_stored_stats_stay_a_full_count_as_specs_come_change_and_go(tmp_path, monkeypatch):
    """Each spec's part of a set's stats is kept and counted again only when its rows change:
    the stored stats equal a full count after every add, a replacement and a removal, and an
    added spec is the only one whose chunks are read."""
    from specbrowser.formats import policy_for
    from specbrowser.session import corpus

    def policy(kind=None):
        return policy_for(kind, 300, None, 3)

    db_path = tmp_path / "c.db"
    widget = tmp_path / "widget-protocol.html"
    shutil.copyfile(SAMPLES / "widget-protocol.html", widget)
    counted: list[int] = []
    real_part = corpus.stats_part

    def stats_part(facts):
        part = real_part(facts)
        counted.append(part.chunks)
        return part

    monkeypatch.setattr(corpus, "stats_part", stats_part)
    for name in ("toylang.html", "widget-timers.html", "mismatched-toc.html"):
        ingest([SAMPLES / name], db_path, policy(), policy_for_kind=policy)
        stored, full = _full_count(db_path)
        assert stored == full
    counted.clear()
    added = ingest([widget], db_path, policy(), policy_for_kind=policy)
    assert counted == [len(added.chunks)]  # the new spec's chunks only
    assert _full_count(db_path)[0] == _full_count(db_path)[1]
    widget.write_text(widget.read_text().replace("provider", "supplier", 3), encoding="utf-8")
    assert ingest([widget], db_path, policy(), policy_for_kind=policy).outcome == "replaced_spec"
    stored, full = _full_count(db_path)
    assert stored == full
    with Session.open(db_path) as session:
        session.remove_spec("widget-timers")
    stored, full = _full_count(db_path)
    assert stored == full and stored["chunks"] == full["chunks"]
