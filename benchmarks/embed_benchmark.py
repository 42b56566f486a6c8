"""Embedding throughput: specbrowser's embed path against bare fastembed, on ECMA-262 chunks.

In one run, on the same fixed sample of retrieval texts (``--sample`` chunks drawn with a fixed
seed from the default-policy chunk set of ECMA-262):

  (a) fastembed directly: ``TextEmbedding.embed(texts, batch_size=B)`` in chunk order;
  (b) specbrowser: :func:`specbrowser.search.embed.embed_missing` into a database whose chunk set is
      that sample (token counting, length-sorted batches, vec0 inserts, a commit per batch);

then prints texts/s for both, their ratio (target ≥ 0.9), the time extrapolated to every
distinct text of the chunk set, and (a) again with each ``--threads`` setting (onnxruntime
intra-op threads) to see whether a thread setting helps, and once more with the tokenizer cutting
at 256 tokens (sentence-transformers' window for this model) instead of fastembed's 512.

    python benchmarks/embed_benchmark.py [--spec PATH] [--sample 300] [--batch 32] [--threads 1,2,4]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DEFAULT_SPEC = ROOT.parent / "shared" / "specs" / "ecma262" / "index.html"

# After the sys.path line: the script runs from a checkout, the package need not be installed.
from specbrowser.chunking.policy import ChunkPolicy  # noqa: E402
from specbrowser.search.embed import embed_missing, load_embedder  # noqa: E402
from specbrowser.search.model_files import DEFAULT_MODEL  # noqa: E402
from specbrowser.session.ingest import ingest  # noqa: E402
from specbrowser.store import open_database  # noqa: E402
from specbrowser.store.vectors import content_hash  # noqa: E402


def sample_database(spec: Path, workdir: Path, size: int) -> tuple[Path, list[str], int]:
    """Ingest ``spec`` (default policy), then keep ``size`` chunks drawn with seed 0 in a copy.

    Returns (the sample database, the sample's retrieval texts in chunk order, distinct texts of
    the full chunk set).
    """
    full = workdir / "full.db"
    ingest([spec], full, ChunkPolicy())
    sample = workdir / "sample.db"
    shutil.copyfile(full, sample)
    db = open_database(sample)
    try:
        version = db.active_version()
        rows = db.db.execute(
            "SELECT id, retrieval_text FROM chunks WHERE policy_version = ? ORDER BY ordinal",
            [version],
        ).fetchall()
        distinct = len({content_hash(text or "") for _, text in rows})
        chosen = sorted(random.Random(0).sample(range(len(rows)), min(size, len(rows))))
        keep = [rows[i][0] for i in chosen]
        with db.atomic():
            db.db.execute("CREATE TEMP TABLE keep (id TEXT PRIMARY KEY)")
            db.conn.executemany("INSERT INTO keep VALUES (?)", [(i,) for i in keep])
            db.db.execute(
                "DELETE FROM chunk_rows "
                "WHERE policy_version = ? AND id NOT IN (SELECT id FROM keep)",
                [version],
            )
        texts = [rows[i][1] or "" for i in chosen]
    finally:
        db.close()
    return sample, texts, distinct


def time_fastembed(model: object, texts: list[str], batch: int) -> float:
    start = time.perf_counter()
    for _ in model.embed(texts, batch_size=batch):  # type: ignore[attr-defined]
        pass
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spec", type=Path, default=DEFAULT_SPEC)
    parser.add_argument("--sample", type=int, default=300)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument(
        "--threads", default="1,2", help="comma-separated onnxruntime thread counts"
    )
    args = parser.parse_args()
    if not args.spec.exists():
        print(f"spec not found: {args.spec}", file=sys.stderr)
        return 2
    workdir = Path(tempfile.mkdtemp(prefix="embed-bench-"))
    try:
        sample_db, texts, distinct = sample_database(args.spec, workdir, args.sample)
        unique = len(set(texts))
        chars = sorted(len(t) for t in texts)
        print(
            f"{DEFAULT_MODEL}, {os.cpu_count()} CPUs; sample: {len(texts)} chunks "
            f"({unique} distinct texts), chars median {chars[len(chars) // 2]:,}, "
            f"max {chars[-1]:,}; full chunk set: {distinct:,} distinct texts; batch {args.batch}"
        )
        embedder = load_embedder()
        embedder.embed(texts[:4])  # warm-up: first ONNX runs allocate
        direct = time_fastembed(embedder.model, texts, args.batch)
        db = open_database(sample_db)
        try:
            report = embed_missing(db, embedder, db.active_version(), batch_size=args.batch)
        finally:
            db.close()
        ours = report.seconds
        direct_rate, ours_rate = len(texts) / direct, report.embedded / ours
        print(f"(a) fastembed directly      {direct:7.1f} s  {direct_rate:6.1f} texts/s")
        print(
            f"(b) specbrowser embed path  {ours:7.1f} s  {ours_rate:6.1f} texts/s "
            f"({report.embedded} texts, {len(report.truncated_chunks)} chunks truncated)"
        )
        print(f"ratio (b)/(a) throughput: {ours_rate / direct_rate:.2f} (target >= 0.9)")
        print(
            f"extrapolated, all {distinct:,} texts: (a) {distinct / direct_rate / 60:.1f} min, "
            f"(b) {distinct / ours_rate / 60:.1f} min"
        )
        ordered = sorted(texts, key=len)
        sorted_direct = time_fastembed(embedder.model, ordered, args.batch)
        print(
            "(a') fastembed directly, texts sorted by length: "
            f"{len(texts) / sorted_direct:.1f} texts/s"
        )
        for threads in (int(t) for t in args.threads.split(",") if t.strip()):
            threaded = load_embedder(threads=threads)
            threaded.embed(texts[:4])
            seconds = time_fastembed(threaded.model, ordered, args.batch)
            print(f"(a') threads={threads}: {len(texts) / seconds:.1f} texts/s")
        # sentence-transformers runs this model with max_seq_length 256; fastembed cuts at 512
        embedder.model.model.tokenizer.enable_truncation(256)
        seconds = time_fastembed(embedder.model, ordered, args.batch)
        print(f"(a') sorted, cut at 256 tokens instead of 512: {len(texts) / seconds:.1f} texts/s")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
