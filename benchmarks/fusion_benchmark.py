"""Fusing lexical and semantic rankings on ECMA-262: RRF, score normalisation, query routing.

Takes the vectors ``benchmarks/model_benchmark.py --save`` wrote (one per embedded text, with the
chunk each belongs to) and the database they came from; for every query of the query set it
ranks the chunks lexically (:func:`specbrowser.search.query.lexical_search`, the top 50) and
semantically (cosine over the saved vectors, the top 50, a chunk's best text), then fuses the
two lists several ways and reports hit@1, recall@5, MRR (top 10) and, per strategy, the
cut-offs k (1..10) where it finds fewer expected sections than lexical search.

    python benchmarks/fusion_benchmark.py DB VECTORS.npz [--queries FILE.json]

The ``routed`` strategy is what :func:`specbrowser.search.query.hybrid_search` does.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
QUERIES = Path(__file__).with_name("ecma262_queries.json")
POOL = 50


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("db", type=Path)
    parser.add_argument("vectors", type=Path)
    parser.add_argument("--queries", type=Path, default=QUERIES)
    parser.add_argument("--model", default="minilm-l6-int8")
    parser.add_argument("--window", type=int, default=256)
    parser.add_argument("--verbose", action="store_true", help="list the queries that moved")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from model_benchmark import Model

    from specbrowser.search import query as q
    from specbrowser.store import open_database

    db = open_database(args.db)
    chunks = {c.id: c for c in db.iter_chunks()}
    saved = np.load(args.vectors)
    vectors, owners, ids = saved["vectors"], saved["owners"], saved["ids"]
    model = Model(args.model, args.window, 2)
    queries = json.loads(args.queries.read_text())

    def semantic(text: str) -> list[q.Hit]:
        sims = vectors @ model.embed([text])[0]
        best: dict[str, float] = {}
        for i in np.argsort(-sims):
            best.setdefault(str(ids[owners[i]]), float(sims[i]))
            if len(best) >= POOL:
                break
        return [
            q.Hit(c, chunks[c].section_id, chunks[c].title, [], score, "", "semantic")
            for c, score in best.items()
        ]

    runs = []
    for item in queries:
        lexical = q.lexical_search(db, item["query"], limit=POOL)
        runs.append((item, lexical, semantic(item["query"])))

    def normalised(lexical: list[q.Hit], sem: list[q.Hit], alpha: float) -> list[q.Hit]:
        def scale(hits: list[q.Hit]) -> dict[str, float]:
            if not hits:
                return {}
            top, low = max(h.score for h in hits), min(h.score for h in hits)
            return {h.chunk_id: (h.score - low) / (top - low or 1) for h in hits}

        a, b = scale(lexical), scale(sem)
        first = {h.chunk_id: h for h in [*lexical, *sem]}
        order = sorted(first, key=lambda c: -(alpha * a.get(c, 0) + (1 - alpha) * b.get(c, 0)))
        return [first[c] for c in order]

    strategies: dict[str, Callable[[str, list[q.Hit], list[q.Hit]], list[q.Hit]]] = {
        "lexical": lambda text, lex, sem: lex,
        "semantic": lambda text, lex, sem: sem,
        "rrf 1:1": lambda text, lex, sem: q.reciprocal_rank_fusion([lex, sem], limit=POOL),
        "rrf 1:0.5": lambda text, lex, sem: q.reciprocal_rank_fusion(
            [lex, sem], limit=POOL, weights=[1.0, 0.5]
        ),
        "minmax 0.5": lambda text, lex, sem: normalised(lex, sem, 0.5),
        "minmax 0.7": lambda text, lex, sem: normalised(lex, sem, 0.7),
        "lexical then semantic": lambda text, lex, sem: q.lexical_first(lex, sem, POOL),
        "routed": lambda text, lex, sem: q.fuse(text, lex, sem, POOL),
        "routed, rrf 1:1": lambda text, lex, sem: (
            q.lexical_first(lex, sem, POOL)
            if q.is_identifier_query(text)
            else q.reciprocal_rank_fusion([lex, sem], limit=POOL)
        ),
        "routed, pin lexical 1st": lambda text, lex, sem: (
            q.lexical_first(lex, sem, POOL)
            if q.is_identifier_query(text)
            else q.lexical_first(
                lex[:1], q.reciprocal_rank_fusion([lex, sem], limit=POOL, weights=[1.0, 0.5]), POOL
            )
        ),
    }
    print(f"{len(queries)} queries; pools of {POOL}")
    print()
    print("| strategy | hit@1 | recall@5 | MRR | k where below lexical |")
    print("|---|---|---|---|---|")
    base: list[int] = []
    for name, fuse in strategies.items():
        found_at = [0] * 10
        hit1 = recall5 = mrr = 0.0
        for item, lex, sem in runs:
            sections = [h.section_id for h in fuse(item["query"], lex, sem)][:10]
            if item["expect"] in sections:
                rank = sections.index(item["expect"])
                mrr += 1 / (rank + 1)
                for k in range(rank, 10):
                    found_at[k] += 1
            hit1 += sections[:1] == [item["expect"]]
            recall5 += item["expect"] in sections[:5]
        if name == "lexical":
            base = found_at
            base_rank = {}
        for item, lex, sem in runs if args.verbose else []:
            sections = [h.section_id for h in fuse(item["query"], lex, sem)][:10]
            rank = sections.index(item["expect"]) + 1 if item["expect"] in sections else None
            if name == "lexical":
                base_rank[item["query"]] = rank
            elif rank != base_rank[item["query"]]:
                print(f"  {name}: {item['query']!r} lexical {base_rank[item['query']]} → {rank}")
        worse = [str(k + 1) for k in range(10) if found_at[k] < base[k]]
        n = len(runs)
        print(
            f"| {name} | {hit1 / n:.2f} | {recall5 / n:.2f} | {mrr / n:.2f} "
            f"| {', '.join(worse) or 'none'} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
