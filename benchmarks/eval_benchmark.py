"""Evaluation of ECMA-262 chunk sets with the shipped query set, per set and per query kind.

Runs :func:`specbrowser.session.evaluate.evaluate` (what ``specbrowser eval`` runs) on the
default chunk set and on the sets of the extra thresholds given, in the modes asked for, and
prints hit@k, recall@k, MRR and the token metrics, then hit@1 / hit@5 / MRR by the query file's
``kind`` column (identifier, token, question) and the wall time of each run.

    python benchmarks/eval_benchmark.py [--db ecma262.db] [--threshold 2000 ...] [--mode lexical]

Without ``--db`` the single-page ECMA-262 from ../shared/specs is ingested into a temporary
file; each ``--threshold`` adds a set by re-chunking (the default set stays active).
"""

from __future__ import annotations

import argparse
import csv
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
QUERIES = Path(__file__).with_name("ecma262-queries.tsv")
SPEC = ROOT.parent / "shared" / "specs" / "ecma262" / "index.html"


def main() -> None:
    sys.path.insert(0, str(ROOT))
    from dataclasses import replace

    from specbrowser.chunking.policy import ChunkPolicy
    from specbrowser.session import Session
    from specbrowser.session.evaluate import evaluate, metric_rows, summarize
    from specbrowser.session.ingest import ingest
    from specbrowser.session.jobs import run_rechunk
    from specbrowser.session.query_file import read_queries

    parser = argparse.ArgumentParser()
    parser.add_argument("--db", type=Path)
    parser.add_argument("--threshold", type=int, action="append", default=[])
    parser.add_argument("--mode", action="append", default=[])
    args = parser.parse_args()

    db = args.db
    if db is None:
        db = Path(tempfile.mkdtemp()) / "ecma262.db"
        ingest([SPEC], db, ChunkPolicy())
    with Session.open(db) as session:
        default = session.active_version()
        policy = session.active_policy()[0]
    versions = [default]
    for threshold in args.threshold:
        result = run_rechunk(db, replace(policy, threshold=threshold), in_subprocess=False)
        versions.append(result.version)
    with Session.open(db) as session:
        session.activate(default)
    kinds = {
        index + 2: row.get("kind", "")
        for index, row in enumerate(csv.DictReader(QUERIES.open(encoding="utf-8"), delimiter="\t"))
    }
    queries = read_queries(QUERIES)
    with Session.open(db) as session:
        for version in versions:
            start = time.perf_counter()
            evaluation = evaluate(
                session, QUERIES, versions=[version], modes=args.mode or (), queries=queries
            )
            seconds = time.perf_counter() - start
            for skipped in evaluation.skipped:
                print(f"skipped {skipped.mode} on {version}: {skipped.reason}")
            print(f"\nset {version}: {seconds:.1f} s for {len(evaluation.runs)} run(s)")
            print("| metric | " + " | ".join(r.mode for r in evaluation.runs) + " |")
            print("|---|" + "---|" * len(evaluation.runs))
            for metric, cells in metric_rows(evaluation):
                print(f"| {metric} | " + " | ".join(cells) + " |")
            for run in evaluation.runs:
                print(f"\n{run.mode}, by kind: kind, queries, hit@1, hit@5, MRR")
                for kind in ("identifier", "token", "question"):
                    scores = [s for s in run.queries if kinds.get(s.query.line) == kind]
                    part = summarize(version, run.mode, run.ks, scores)
                    print(
                        f"  {kind}: {len(scores)}, {part.hit[1]:.3f}, {part.hit[5]:.3f}, "
                        f"{part.mrr:.3f}"
                    )
                print(f"  missed in the top 10: {', '.join(str(s.query.line) for s in run.missed)}")


if __name__ == "__main__":
    main()
