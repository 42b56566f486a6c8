"""Search quality and latency on ECMA-262: recall@5, MRR and p50/p95 per mode.

The query set is ``benchmarks/ecma262_queries.json``: identifiers, internal slots, well-known
intrinsics, grammar names and natural-language questions, each with the section id it should
find. A hit counts when its chunk belongs to that section. Modes that need embeddings run only
when the database has them.

    python benchmarks/search_benchmark.py [--db ecma262.db] [--repeat 5]

Without ``--db`` the single-page ECMA-262 from ../shared/specs is ingested into a temporary file.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
QUERIES = Path(__file__).with_name("ecma262_queries.json")
SPEC = ROOT.parent / "shared" / "specs" / "ecma262" / "index.html"
K = 5


def evaluate(search: Callable[[str], list], queries: list[dict], repeat: int) -> dict[str, float]:
    """recall@K, MRR (first relevant hit in the top 10) and latency percentiles in ms."""
    found, first, reciprocal, latencies = 0, 0, 0.0, []
    for item in queries:
        for _ in range(repeat):
            start = time.perf_counter()
            hits = search(item["query"])
            latencies.append((time.perf_counter() - start) * 1000)
        sections = [h.section_id for h in hits]
        first += sections[:1] == [item["expect"]]
        if item["expect"] in sections[:K]:
            found += 1
        if item["expect"] in sections[:10]:
            reciprocal += 1 / (sections.index(item["expect"]) + 1)
    latencies.sort()
    return {
        "hit@1": first / len(queries),
        "recall@5": found / len(queries),
        "mrr": reciprocal / len(queries),
        "p50_ms": statistics.median(latencies),
        "p95_ms": latencies[int(0.95 * (len(latencies) - 1))],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--queries", type=Path, default=QUERIES)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from specbrowser.chunking.policy import ChunkPolicy
    from specbrowser.search import query as search_module
    from specbrowser.session.ingest import ingest
    from specbrowser.store import open_database

    queries = json.loads(args.queries.read_text())
    with tempfile.TemporaryDirectory() as tmp:
        db_path = args.db
        if db_path is None:
            if not SPEC.exists():
                print(f"spec not found: {SPEC}", file=sys.stderr)
                return 2
            db_path = Path(tmp) / "ecma262.db"
            ingest([SPEC], db_path, ChunkPolicy())
        db = open_database(db_path)
        modes: dict[str, Callable[[str], list]] = {
            "lexical": lambda q: search_module.lexical_search(db, q, limit=10),
        }
        for mode in ("semantic", "hybrid"):
            function = getattr(search_module, f"{mode}_search", None)
            if function is not None:
                try:
                    function(db, "probe", limit=1)
                except Exception as exc:
                    print(f"{mode}: skipped ({exc})")
                    continue
                modes[mode] = lambda q, f=function: f(db, q, limit=10)
        print(f"{len(queries)} queries, top {K}, latency over {args.repeat} runs each")
        print()
        print("| mode | hit@1 | recall@5 | MRR | p50 (ms) | p95 (ms) |")
        print("|---|---|---|---|---|---|")
        for mode, search in modes.items():
            r = evaluate(search, queries, args.repeat)
            print(
                f"| {mode} | {r['hit@1']:.2f} | {r['recall@5']:.2f} | {r['mrr']:.2f} "
                f"| {r['p50_ms']:.1f} | {r['p95_ms']:.1f} |"
            )
        misses = [
            q
            for q in queries
            if q["expect"] not in [h.section_id for h in modes["lexical"](q["query"])][:K]
        ]
        print()
        print("lexical misses: " + "; ".join(f"{q['query']!r} → {q['expect']}" for q in misses))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
