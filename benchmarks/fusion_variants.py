"""Hybrid fusion variants on an embedded ECMA-262 database, against lexical and semantic alone.

For every query of the given files it takes the product's lexical and semantic rankings (the
top 50 each: :func:`specbrowser.search.query.lexical_search`, ``semantic_search``) and the
symbol hits once, fuses them several ways (the symbol hits first, as ``run_search`` does), and
prints hit@k for k = 1…10 and MRR@10 per file and variant, with the cut-offs where a variant
finds less than the better of lexical and semantic (``loses at``).

    python benchmarks/fusion_variants.py --db EMBEDDED.db QUERIES.tsv [...] [--split tune|test]

The database needs embeddings of its active set (``specbrowser embed DB``).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
POOL = 50
KS = range(1, 11)


def main() -> None:
    sys.path.insert(0, str(ROOT))
    from specbrowser.search import query as q
    from specbrowser.search.symbols import symbol_hits, with_symbol_hits
    from specbrowser.session import Session
    from specbrowser.session.query_file import read_queries, split_queries

    parser = argparse.ArgumentParser()
    parser.add_argument("--db", type=Path, required=True)
    parser.add_argument("queries", type=Path, nargs="+")
    parser.add_argument("--split", choices=("tune", "test", "all"), default="all")
    args = parser.parse_args()

    def rrf(weight: float, k: int = q.RRF_K) -> Callable:
        def fused(text: str, lex: list, sem: list) -> list:
            if q.is_identifier_query(text):
                return q.lexical_first(lex, sem, POOL)
            return q.reciprocal_rank_fusion([lex, sem], limit=POOL, k=k, weights=[1.0, weight])

        return fused

    def lexical_top(weight: float, keep: int) -> Callable:
        """RRF, but the first ``keep`` lexical hits stay in front."""

        def fused(text: str, lex: list, sem: list) -> list:
            if q.is_identifier_query(text):
                return q.lexical_first(lex, sem, POOL)
            head = lex[:keep]
            seen = {h.chunk_id for h in head}
            rest = q.reciprocal_rank_fusion([lex, sem], limit=POOL, weights=[1.0, weight])
            return head + [h for h in rest if h.chunk_id not in seen]

        return fused

    variants: dict[str, Callable] = {
        "lexical": lambda text, lex, sem: lex,
        "semantic": lambda text, lex, sem: sem,
        "routed, RRF 1:1 (before)": rrf(1.0),
        "routed, RRF 1:0.7": rrf(0.7),
        "routed, RRF 1:0.5": rrf(0.5),
        **{
            f"routed, RRF 1:{w}, k {k}": rrf(w, k)
            for w in (0.3, 0.4, 0.5, 0.6, 0.8)
            for k in (5, 10, 20, 30)
        },
        "lexical top 1, then RRF 1:1": lexical_top(1.0, 1),
        "lexical top 1, then RRF 1:0.7": lexical_top(0.7, 1),
    }
    with Session.open(args.db) as session:
        store = session.store
        version = session.active_version()
        for path in args.queries:
            queries = read_queries(path)
            if args.split != "all":
                tune, test = split_queries(queries)
                queries = tune if args.split == "tune" else test
            lists = []
            for query in queries:
                lex = q.lexical_search(store, query.query, limit=POOL, policy_version=version)
                sem = q.semantic_search(store, query.query, limit=POOL, policy_version=version)
                symbols = symbol_hits(store, query.query, "hybrid", policy_version=version)
                lists.append((query, lex, sem, symbols))
            print(f"\n{path.name} ({args.split}, {len(queries)} queries)")
            results = {}
            for name, fuse in variants.items():
                ranks = []
                for query, lex, sem, symbols in lists:
                    hits = with_symbol_hits(symbols, fuse(query.query, lex, sem), POOL)
                    rank = next(
                        (
                            i
                            for i, h in enumerate(hits[:10], 1)
                            if h.chunk_id in query.expected or h.section_id in query.expected
                        ),
                        None,
                    )
                    ranks.append(rank)
                hit = {k: sum(r is not None and r <= k for r in ranks) / len(ranks) for k in KS}
                mrr = sum(1 / r for r in ranks if r) / len(ranks)
                results[name] = hit
                loses = []
                if "semantic" in results:
                    best = {k: max(results["lexical"][k], results["semantic"][k]) for k in KS}
                    loses = [k for k in KS if hit[k] < best[k] - 1e-9]
                cells = " ".join(f"{hit[k]:.3f}" for k in (1, 3, 5, 10))
                print(f"  {name:34} hit@1/3/5/10 {cells}  MRR {mrr:.3f}  loses at {loses or '-'}")


if __name__ == "__main__":
    main()
