"""``specbrowser export`` and :mod:`specbrowser.session.export`: LangChain-shaped records in JSON
Lines and Parquet, read back and compared with the chunk set they came from.

The sample spec is ingested at a 300-character threshold (subsections and overruns exist), and
again at 600 for a second chunk set, so ``--policy`` has something to choose.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from specbrowser.chunking.policy import ChunkPolicy
from specbrowser.cli import main
from specbrowser.errors import NotFoundError
from specbrowser.session import export
from specbrowser.session.ingest import ingest
from specbrowser.store import open_database
from tests.helpers import ECMA262, SAMPLE

THRESHOLD = 300
LANGCHAIN_FIELDS = {"id", "page_content", "metadata", "type"}
"""``langchain_core.documents.Document``'s fields: ``Document(**record)`` must accept a record."""

pytestmark = pytest.mark.skipif(not SAMPLE.is_file(), reason="sample_specs/toylang.html absent")


@pytest.fixture
def two_sets(tmp_path: Path) -> tuple[Path, str, str]:
    """toylang at 600 then 300 characters: two chunk sets, the 300 one active.
    Returns (database, active version, other version)."""
    db_path = tmp_path / "t.db"
    ingest([SAMPLE], db_path, ChunkPolicy(threshold=600))
    other = ChunkPolicy(threshold=600).version
    ingest([SAMPLE], db_path, ChunkPolicy(threshold=THRESHOLD))
    return db_path, ChunkPolicy(threshold=THRESHOLD).version, other


def read_jsonl(path: Path) -> list[dict]:
    raw = path.read_bytes()
    assert raw.endswith(b"\n")
    return [json.loads(line) for line in raw.decode("utf-8").splitlines()]


def chunks_of(db_path: Path, version: str | None = None) -> list:
    db = open_database(db_path)
    try:
        return list(db.iter_chunks(version))
    finally:
        db.close()


def test_jsonl_round_trip_one_record_per_chunk_in_langchain_shape(two_sets, tmp_path, capsys):
    db_path, active, _ = two_sets
    out = tmp_path / "chunks.jsonl"
    assert main(["export", str(db_path), "--format", "jsonl", "-o", str(out)]) == 0
    assert (
        f"records (page_content: retrieval text) of chunk set {active}" in capsys.readouterr().out
    )
    records = read_jsonl(out)
    chunks = chunks_of(db_path)
    assert len(records) == len(chunks) > 10
    for record, chunk in zip(records, chunks, strict=True):
        assert set(record) == LANGCHAIN_FIELDS and record["type"] == "Document"
        assert record["id"] == chunk.id and record["page_content"] == chunk.retrieval_text
        meta = record["metadata"]
        assert list(meta) == list(export.METADATA_FIELDS)
        assert meta["chunk_id"] == chunk.id and meta["size"] == len(chunk.text)
        assert (
            meta["subsections"] == chunk.subsections and meta["heading_path"] == chunk.heading_path
        )
        assert meta["over_threshold"] == chunk.over_threshold and meta["layer"] == chunk.layer
        assert meta["policy_version"] == active and meta["content"] == "retrieval"
        assert meta["document_title"] == "Toylang Language Specification"
        assert meta["embedding_truncated"] is None and meta["token_count"] is None  # not embedded
    by_id = {r["id"]: r["metadata"] for r in records}
    assert any(m["over_threshold"] for m in by_id.values())
    assert any(m["layer"] == "subsection" and m["parent_id"] for m in by_id.values())
    assert by_id["specbrowser:document"]["section_id"] is None


def test_jsonl_keeps_non_ascii_as_utf8(two_sets, tmp_path):
    db_path, _, _ = two_sets
    out = tmp_path / "chunks.jsonl"
    export_result = _export(db_path, out, content="text")
    raw = out.read_text(encoding="utf-8")
    assert "“" in raw and "\\u201c" not in raw  # ensure_ascii=False
    assert export_result.records == len(raw.splitlines())
    records = read_jsonl(out)
    assert [r["page_content"] for r in records] == [c.text for c in chunks_of(db_path)]
    assert {r["metadata"]["content"] for r in records} == {"text"}


def _export(db_path: Path, out: Path, **options) -> export.ExportResult:
    db = open_database(db_path)
    try:
        return export.export_chunk_set(db, out, **options)
    finally:
        db.close()


@pytest.mark.parametrize("fmt", ["jsonl", "parquet"])
def test_progress_reports_records_up_to_the_total(two_sets, tmp_path, monkeypatch, fmt):
    if fmt == "parquet":
        pytest.importorskip("pyarrow")
    monkeypatch.setattr(export, "PARQUET_BATCH", 50)
    monkeypatch.setattr(export, "PROGRESS_EVERY", 50)
    db_path, _, _ = two_sets
    calls: list[tuple[int, int]] = []
    result = _export(
        db_path,
        tmp_path / f"c.{fmt}",
        format=fmt,
        progress=lambda _stage, done, total: calls.append((done, total)),
    )
    assert len(calls) >= 2 and calls[-1] == (result.records, result.records)
    assert [done for done, _ in calls] == sorted(done for done, _ in calls)


def test_parquet_round_trip_equals_the_jsonl_records(two_sets, tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    db_path, active, _ = two_sets
    jsonl, parquet = tmp_path / "c.jsonl", tmp_path / "c.parquet"
    assert main(["export", str(db_path), "--format", "jsonl", "-o", str(jsonl)]) == 0
    assert main(["export", str(db_path), "--format", "parquet", "-o", str(parquet)]) == 0
    table = pq.read_table(parquet)
    assert table.column_names == ["id", "page_content", "metadata", "type"]
    assert table.num_rows == len(chunks_of(db_path))
    assert table.to_pylist() == read_jsonl(jsonl)
    assert table.schema.metadata[b"specbrowser.policy_version"] == active.encode()
    layers = table.column("metadata").combine_chunks().field("layer").to_pylist()
    assert "subsection" in layers


def test_policy_prefix_exports_that_set_without_activating_it(two_sets, tmp_path):
    db_path, active, other = two_sets
    out = tmp_path / "other.jsonl"
    assert (
        main(["export", str(db_path), "--policy", other[:5], "--format", "jsonl", "-o", str(out)])
        == 0
    )
    records = read_jsonl(out)
    assert len(records) == len(chunks_of(db_path, other)) != len(chunks_of(db_path, active))
    assert {r["metadata"]["policy_version"] for r in records} == {other}
    db = open_database(db_path)
    try:
        assert db.active_version() == active
    finally:
        db.close()


def test_unknown_policy_version_is_one_error_line_and_no_file(two_sets, tmp_path, capsys):
    db_path, _, _ = two_sets
    out = tmp_path / "x.jsonl"
    assert (
        main(["export", str(db_path), "--policy", "zzzz", "--format", "jsonl", "-o", str(out)]) == 2
    )
    assert "no chunk set with policy version 'zzzz'" in capsys.readouterr().err
    assert not out.exists() and list(tmp_path.glob(".x.jsonl*")) == []
    db = open_database(db_path)
    try:
        with pytest.raises(NotFoundError):
            export.resolve_policy_version(db, "zzzz")
        assert export.resolve_policy_version(db, None) == db.active_version()
        active = db.active_version()
        with db.db.atomic():  # a second version sharing the active one's first 3 digits
            db.db.execute(
                "INSERT INTO policies (version, settings, created_at, stats, active) "
                "VALUES (?, '{}', '', '{}', 0)",
                [active[:3] + "z" * 9],
            )
        with pytest.raises(NotFoundError, match="several chunk sets start with"):
            export.resolve_policy_version(db, active[:3])
        assert export.resolve_policy_version(db, active[:4]) == active
    finally:
        db.close()


def test_folder_missing_folder_or_the_database_as_output_is_refused(two_sets, tmp_path, capsys):
    db_path, _, _ = two_sets
    assert main(["export", str(db_path), "--format", "jsonl", "-o", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "is a folder" in err and "Traceback" not in err
    missing = tmp_path / "nowhere" / "x.jsonl"
    assert main(["export", str(db_path), "--format", "jsonl", "-o", str(missing)]) == 2
    assert "does not exist" in capsys.readouterr().err
    size = db_path.stat().st_size
    assert main(["export", str(db_path), "--format", "jsonl", "-o", str(db_path)]) == 2
    assert "is the database itself" in capsys.readouterr().err
    assert db_path.stat().st_size == size and open_database(db_path).close() is None


@pytest.mark.parametrize(
    "fail_at, error",
    [
        ("mkstemp", PermissionError(13, "Permission denied")),  # a folder it may not write in
        ("fsync", OSError(28, "No space left on device")),  # a disk that filled up
    ],
)
def test_an_output_that_cannot_be_written_is_one_error_line_and_leaves_nothing(
    two_sets, tmp_path, capsys, monkeypatch, fail_at, error
):
    """``-o /proc/x.jsonl`` printed a FileNotFoundError traceback (a new-user trial)."""
    db_path, _, _ = two_sets

    def fail(*args, **kwargs):
        raise error

    monkeypatch.setattr(export.tempfile if fail_at == "mkstemp" else export.os, fail_at, fail)
    out = tmp_path / "c.jsonl"
    assert main(["export", str(db_path), "--format", "jsonl", "-o", str(out)]) == 2
    lines = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert lines == [f"error: cannot write {out}: {error.strerror}"]
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(("c.", ".c"))] == []


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full on this system")
def test_a_full_device_as_output_is_one_error_line(two_sets, capsys):
    db_path, _, _ = two_sets
    assert main(["export", str(db_path), "--format", "jsonl", "-o", "/dev/full"]) == 2
    lines = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert lines == ["error: cannot write /dev/full: No space left on device"]


def test_missing_pyarrow_says_how_to_install_it(two_sets, tmp_path, capsys, monkeypatch):
    db_path, _, _ = two_sets
    for name in ("pyarrow", "pyarrow.parquet"):
        monkeypatch.setitem(sys.modules, name, None)  # import raises ImportError
    out = tmp_path / "c.parquet"
    assert main(["export", str(db_path), "--format", "parquet", "-o", str(out)]) == 2
    lines = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert len(lines) == 1 and "pip install 'specbrowser[export]'" in lines[0]
    assert not out.exists()


def test_failure_mid_write_leaves_no_file_and_keeps_the_old_one(two_sets, tmp_path, monkeypatch):
    db_path, _, _ = two_sets
    out = tmp_path / "c.jsonl"
    calls = []

    def failing_progress(_stage: str, done: int, total: int) -> None:
        calls.append(done)
        raise KeyboardInterrupt  # Ctrl-C after the first records were written

    monkeypatch.setattr(export, "PROGRESS_EVERY", 3)
    with pytest.raises(KeyboardInterrupt):
        _export(db_path, out, progress=failing_progress)
    assert (
        calls == [3] and list(tmp_path.glob("*.jsonl*")) == [] and list(tmp_path.glob(".c*")) == []
    )
    out.write_text("old export\n", encoding="utf-8")
    with pytest.raises(KeyboardInterrupt):
        _export(db_path, out, progress=failing_progress)
    assert out.read_text(encoding="utf-8") == "old export\n"
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def test_embedding_fields_come_from_the_stored_vectors(two_sets, tmp_path):
    """A fake model's vectors for two chunks, one truncated, and a token count for a third: the
    export reports them and leaves the other chunks None; nothing needs sqlite-vec to read them."""
    from specbrowser.search import tokens
    from specbrowser.store import vectors as store_vectors

    db_path, active, _ = two_sets
    db = open_database(db_path)
    try:
        if db.vector_error:
            pytest.skip(db.vector_error)
        first, second, third = list(db.iter_chunks())[1:4]
        db.vectors.prepare("fake-model", 2)
        db.vectors.add(
            "fake-model",
            2,
            [
                store_vectors.NewEmbedding(
                    store_vectors.content_hash(first.retrieval_text),
                    b"\0" * 8,
                    truncated=True,
                    tokens=900,
                ),
                store_vectors.NewEmbedding(
                    store_vectors.content_hash(second.retrieval_text),
                    b"\0" * 8,
                    truncated=False,
                    tokens=40,
                ),
            ],
        )
        with db.db.atomic():  # counted by the tokenizer (specbrowser.search.tokens), never embedded
            tokens.store_counts(
                db, "fake-model", {store_vectors.content_hash(third.retrieval_text): 77}
            )
        records = {r["id"]: r["metadata"] for r in export.iter_records(db, active)}
    finally:
        db.close()
    assert (records[first.id]["embedding_truncated"], records[first.id]["token_count"]) == (
        True,
        900,
    )
    assert (records[second.id]["embedding_truncated"], records[second.id]["token_count"]) == (
        False,
        40,
    )
    assert {m["embedding_model"] for m in records.values()} == {"fake-model"}
    assert (
        records[third.id]["embedding_truncated"],
        records[third.id]["token_count"],
        records[third.id]["token_model"],
    ) == (None, 77, "fake-model")
    others = [m for i, m in records.items() if i not in (first.id, second.id, third.id)]
    assert all(
        m["embedding_truncated"] is None and m["token_count"] is None and m["token_model"] is None
        for m in others
    )


@pytest.mark.real
@pytest.mark.skipif(
    not (ECMA262 / "index.html").exists(),
    reason=f"real specs not found at {ECMA262} (CI has ../shared beside the checkout)",
)
def test_real_ecma262_default_set_exports_every_chunk(tmp_path):
    db_path = tmp_path / "ecma262.db"
    ingest([ECMA262 / "index.html"], db_path, ChunkPolicy())
    out = tmp_path / "ecma262.jsonl"
    result = _export(db_path, out)
    db = open_database(db_path)
    try:
        expected = db.db.execute(
            "SELECT count(*) FROM chunks WHERE policy_version = ?", [db.active_version()]
        ).fetchone()[0]
    finally:
        db.close()
    assert result.records == expected == sum(1 for _ in out.open(encoding="utf-8")) > 2000


def test_export_to_standard_output_streams_the_records_and_says_so_on_stderr(two_sets, capsys):
    db_path, active, _other = two_sets
    assert main(["export", str(db_path), "--format", "jsonl", "-o", "-"]) == 0
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    assert len(lines) == len(list(open_database(db_path).iter_chunks(active)))
    assert all(set(json.loads(line)) == LANGCHAIN_FIELDS for line in lines)
    assert "records (page_content" in captured.err and "records (page_content" not in captured.out


def test_a_link_or_a_fifo_as_output_is_written_into_never_replaced(two_sets, tmp_path):
    """``-o /dev/stdout`` renamed a regular file over the device link (found by a trial)."""
    import os
    import threading

    db = open_database(two_sets[0])
    target = tmp_path / "target.jsonl"
    target.write_text("old")
    link = tmp_path / "link.jsonl"
    link.symlink_to(target)
    result = export.export_chunk_set(db, link, format="jsonl")
    assert link.is_symlink() and target.read_text().count("\n") == result.records
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    result = export.export_chunk_set(db, fifo, format="jsonl")
    reader.join(timeout=30)
    assert fifo.is_fifo() and len(received[0]) == result.size_bytes > 0
