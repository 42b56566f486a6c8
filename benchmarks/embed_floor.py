"""Embedding throughput against its floor: onnxruntime alone beside ``specbrowser embed``'s path.

On the same texts (``--sample`` chunks of DB's active set drawn with seed 0: what the default
model embeds of each, :meth:`~specbrowser.search.embed.Embedder.text_for`), with the same model
file (the assembled offline ``model.onnx``), tokenizer (``tokenizer.json``, cut at the model's
window, padded to the longest text of each batch), batches (sorted by token count, at most
:data:`~specbrowser.search.embed.DEFAULT_BATCH` texts and
:data:`~specbrowser.search.embed.DEFAULT_BATCH_TOKENS` padded tokens) and onnxruntime threads:

  (a) the floor: tokenize, ``InferenceSession.run``, mean pooling and L2 normalization, nothing
      else;
  (b) specbrowser: :func:`specbrowser.search.embed.embed_missing` into a copy of DB holding only
      the sample (fastembed, token counts, vec0 inserts, a commit per batch).

Each of ``--repeat`` rounds runs both, alternating which goes first; reported are texts per
second per onnxruntime thread (one per core), medians, and the ratio (b) ÷ (a) per round
(target ≥ 0.9). The vectors of (a) and (b) are compared too (cosine ≥ 0.999).

``--interleave`` runs the two batch by batch within each round instead (:func:`run_interleaved`):
on a machine whose load changes from one minute to the next, a round of one path and a round of
the other meet different loads, while two runs of the same batch back to back meet the same.

    python benchmarks/embed_floor.py DB [--sample 300] [--threads 1] [--repeat 3] [--interleave]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# After the sys.path line: the script runs from a checkout, the package need not be installed.
from specbrowser.search.embed import (  # noqa: E402
    DEFAULT_BATCH,
    DEFAULT_BATCH_TOKENS,
    Embedder,
    embed_missing,
    load_embedder,
    token_batches,
)
from specbrowser.store import open_database  # noqa: E402


def sample_database(db_path: Path, workdir: Path, size: int) -> tuple[Path, list[str]]:
    """A copy of ``db_path`` whose active set keeps ``size`` chunks drawn with seed 0, and the
    sample's distinct retrieval texts."""
    sample = workdir / "sample.db"
    shutil.copyfile(db_path, sample)
    db = open_database(sample)
    try:
        version = db.active_version()
        rows = db.db.execute(
            "SELECT id, retrieval_text FROM chunks WHERE policy_version = ? ORDER BY ordinal",
            [version],
        ).fetchall()
        chosen = sorted(random.Random(0).sample(range(len(rows)), min(size, len(rows))))
        keep = [rows[i][0] for i in chosen]
        with db.transaction("the sample"):
            db.db.execute("CREATE TEMP TABLE keep (id TEXT PRIMARY KEY)")
            db.conn.executemany("INSERT INTO keep VALUES (?)", [(i,) for i in keep])
            db.db.execute(
                "DELETE FROM chunk_rows "
                "WHERE policy_version = ? AND id NOT IN (SELECT id FROM keep)",
                [version],
            )
        texts = list(dict.fromkeys(rows[i][1] or "" for i in chosen))
    finally:
        db.close()
    return sample, texts


class Floor:
    """onnxruntime and the tokenizer on their own, set up as the embedder is."""

    def __init__(self, embedder: Embedder, threads: int) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        folder = Path(embedder.source)
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        self.session = ort.InferenceSession(
            str(folder / "model.onnx"), options, providers=["CPUExecutionProvider"]
        )
        self.inputs = {i.name for i in self.session.get_inputs()}
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.enable_truncation(embedder.max_tokens or 512)
        self.tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")

    def embed(self, texts: list[str]) -> object:
        import numpy as np

        encodings = self.tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feed = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self.inputs:
            feed["token_type_ids"] = np.zeros_like(ids)
        hidden = self.session.run(None, feed)[0]
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        return pooled / np.linalg.norm(pooled, axis=1, keepdims=True)


def run_floor(floor: Floor, embedder: Embedder, texts: list[str]) -> tuple[float, dict]:
    """Seconds for the floor over ``texts`` in the embed path's order and batches; vectors by
    text."""
    counts = embedder.count_tokens(texts)
    order = sorted(range(len(texts)), key=lambda i: (counts[i], len(texts[i])))
    window = embedder.max_tokens or max(counts, default=1)
    lengths = [min(counts[i], window) for i in order]
    vectors: dict[str, object] = {}
    start = time.perf_counter()
    for span in token_batches(lengths, DEFAULT_BATCH_TOKENS, DEFAULT_BATCH):
        batch = [texts[order[p]] for p in span]
        for text, vector in zip(batch, floor.embed(batch), strict=True):  # type: ignore[call-overload]
            vectors[text] = vector
    return time.perf_counter() - start, vectors


def run_specbrowser(sample: Path, embedder: Embedder, workdir: Path) -> tuple[float, int]:
    """Seconds of :func:`embed_missing`'s embedding loop on a fresh copy of the sample, and how
    many texts it embedded."""
    db_path = workdir / "run.db"
    shutil.copyfile(sample, db_path)
    db = open_database(db_path)
    try:
        report = embed_missing(db, embedder, db.active_version())
    finally:
        db.close()
    for leftover in workdir.glob("run.db*"):
        leftover.unlink()
    return report.seconds, report.embedded


def run_interleaved(
    sample: Path, floor: Floor, embedder: Embedder, texts: list[str], workdir: Path
) -> tuple[float, float, int]:
    """Both paths batch by batch, in one run: :func:`embed_missing` on a fresh copy of the
    sample, and after each of its batches (its progress callback) the floor on the same texts,
    so both meet the same load at each moment. Returns (the floor's seconds, specbrowser's
    seconds: its loop less the floor's runs inside it, texts embedded)."""
    counts = embedder.count_tokens(texts)
    order = sorted(range(len(texts)), key=lambda i: (counts[i], len(texts[i])))
    window = embedder.max_tokens or max(counts, default=1)
    lengths = [min(counts[i], window) for i in order]
    batches = [
        [texts[order[p]] for p in span]
        for span in token_batches(lengths, DEFAULT_BATCH_TOKENS, DEFAULT_BATCH)
    ]
    floor_seconds = [0.0]
    done = [0]

    def after_batch(stage: str, _count: int, _total: int) -> None:
        if stage != "embedding" or done[0] >= len(batches):
            return
        start = time.perf_counter()
        floor.embed(batches[done[0]])
        floor_seconds[0] += time.perf_counter() - start
        done[0] += 1

    db_path = workdir / "run.db"
    shutil.copyfile(sample, db_path)
    db = open_database(db_path)
    try:
        report = embed_missing(db, embedder, db.active_version(), progress=after_batch)
    finally:
        db.close()
    for leftover in workdir.glob("run.db*"):
        leftover.unlink()
    return floor_seconds[0], report.seconds - floor_seconds[0], report.embedded


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("db", type=Path, help="a database written by specbrowser ingest")
    parser.add_argument("--sample", type=int, default=300)
    parser.add_argument("--threads", type=int, default=1, help="onnxruntime intra-op threads")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--interleave", action="store_true", help="both paths batch by batch in each round"
    )
    args = parser.parse_args()
    import numpy as np

    workdir = Path(tempfile.mkdtemp(prefix="embed-floor-"))
    try:
        sample, texts = sample_database(args.db, workdir, args.sample)
        embedder = load_embedder(threads=args.threads)
        floor = Floor(embedder, args.threads)
        embedded = [embedder.text_for(t) for t in texts]
        floor.embed(embedded[:4])  # warm-up: the first runs allocate
        embedder.embed(embedded[:4])
        print(
            f"{os.cpu_count()} cores, load {' '.join(f'{x:.2f}' for x in os.getloadavg())}; "
            f"{len(texts)} distinct texts, window {embedder.max_tokens}, batch {DEFAULT_BATCH} / "
            f"{DEFAULT_BATCH_TOKENS} tokens, {args.threads} thread(s)"
        )
        floors, ours, ratios = [], [], []
        vectors: dict = {}
        for round_ in range(args.repeat):
            order = ["floor", "ours"] if round_ % 2 == 0 else ["ours", "floor"]
            rates = {}
            if args.interleave:
                floor_s, ours_s, count = run_interleaved(sample, floor, embedder, embedded, workdir)
                order = []
                rates = {
                    "floor": len(embedded) / floor_s / args.threads,
                    "ours": count / ours_s / args.threads,
                }
            for who in order:
                if who == "floor":
                    seconds, vectors = run_floor(floor, embedder, embedded)
                    rates[who] = len(embedded) / seconds / args.threads
                else:
                    seconds, count = run_specbrowser(sample, embedder, workdir)
                    rates[who] = count / seconds / args.threads
            floors.append(rates["floor"])
            ours.append(rates["ours"])
            ratios.append(rates["ours"] / rates["floor"])
        if not vectors:  # interleaved rounds keep none
            vectors = dict(zip(embedded[:32], floor.embed(embedded[:32]), strict=True))  # type: ignore[call-overload]
        mine = embedder.embed(embedded[:32]).vectors
        cosines = [
            float(np.dot(np.frombuffer(v, dtype="<f4"), vectors[t]))
            for v, t in zip(mine, embedded[:32], strict=True)
        ]
        for name, rates in (("(a) onnxruntime alone", floors), ("(b) specbrowser embed", ours)):
            median = statistics.median(rates)
            print(f"{name}: {median:6.2f} texts/s per core {_list(rates)}")
        print(f"ratio (b)/(a), per round: median {statistics.median(ratios):.3f} {_list(ratios)}")
        print(f"cosine (a) vs (b) over 32 texts: min {min(cosines):.5f}")
        print(f"load after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


def _list(values: list[float]) -> str:
    return "[" + ", ".join(f"{v:.2f}" for v in values) + "]"


if __name__ == "__main__":
    raise SystemExit(main())
