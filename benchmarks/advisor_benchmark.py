"""How the advisor's automatic queries rank candidates against hand-written query sets.

Runs the advisor's default grid plus two obviously poor candidates (the seed strategy at 200
characters, and a threshold of 1,000,000) on a database, scoring every candidate once with the
hand-written query files and once with the automatic queries, and prints: each candidate's
score under both, the Spearman rank correlation of the two scores across candidates (and of
retrieval alone), and where the poor candidates rank against the default.

    python benchmarks/advisor_benchmark.py e.db --queries benchmarks/ecma262-questions.tsv \\
        --queries benchmarks/ecma262-queries.tsv [--json]
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import replace
from pathlib import Path

from specbrowser.formats import policy_for
from specbrowser.search.tokens import default_token_counter
from specbrowser.session import Session
from specbrowser.session.advise import Candidate, GridOptions, QuerySet, advise, candidate_grid
from specbrowser.session.auto_queries import AUTOMATIC_SOURCE, automatic_queries
from specbrowser.session.query_file import read_queries


def spearman(a: list[float], b: list[float]) -> float:
    """Spearman's rank correlation (average ranks for ties)."""

    def ranks(values: list[float]) -> list[float]:
        order = sorted(range(len(values)), key=lambda i: values[i])
        out = [0.0] * len(values)
        i = 0
        while i < len(order):
            j = i
            while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
                j += 1
            for k in range(i, j + 1):
                out[order[k]] = (i + j) / 2 + 1
            i = j + 1
        return out

    ra, rb = ranks(a), ranks(b)
    n = len(a)
    ma, mb = sum(ra) / n, sum(rb) / n
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb, strict=True))
    va = sum((x - ma) ** 2 for x in ra) ** 0.5
    vb = sum((y - mb) ** 2 for y in rb) ** 0.5
    return cov / (va * vb) if va and vb else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("db", type=Path)
    parser.add_argument("--queries", action="append", type=Path, required=True)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    counter = default_token_counter()
    with Session.open(args.db) as session:
        kind = session.document().kind
        grid, default = candidate_grid(
            session, GridOptions(budget=64), counter.max_tokens if counter else None
        )
        bad = Candidate(policy_for(kind, threshold=200, strategy="seed"), "bad: seed 200", "x")
        coarse = Candidate(replace(default, threshold=1_000_000), "coarse: 1,000,000", "x")
        if all(c.label != "default" for c in grid):
            grid.insert(1, Candidate(default, "default"))
        grid += [bad, coarse]
        hand = [QuerySet(str(p), tuple(read_queries(p))) for p in args.queries]
        auto = [
            QuerySet(
                AUTOMATIC_SOURCE, tuple(automatic_queries(session.store, session.active_version()))
            )
        ]
        runs = {}
        for name, sets in (("hand", hand), ("auto", auto)):
            start = time.perf_counter()
            advice = advise(session, sets, candidates=grid, counter=counter)
            runs[name] = (advice, time.perf_counter() - start)
    by_label = {
        name: {r.candidate.label: r for r in advice.results} for name, (advice, _s) in runs.items()
    }
    labels = [c.label for c in grid if by_label["hand"][c.label].same_as is None]
    hand_scores = [by_label["hand"][label].score for label in labels]
    auto_scores = [by_label["auto"][label].score for label in labels]
    hand_ret = [by_label["hand"][label].retrieval for label in labels]
    auto_ret = [by_label["auto"][label].retrieval for label in labels]
    result = {
        "candidates": [
            {
                "label": label,
                "hand_score": round(by_label["hand"][label].score, 4),
                "auto_score": round(by_label["auto"][label].score, 4),
                "hand_rank": by_label["hand"][label].rank,
                "auto_rank": by_label["auto"][label].rank,
                "hand_retrieval": round(by_label["hand"][label].retrieval, 4),
                "auto_retrieval": round(by_label["auto"][label].retrieval, 4),
            }
            for label in labels
        ],
        "spearman_score": round(spearman(hand_scores, auto_scores), 3),
        "spearman_retrieval": round(spearman(hand_ret, auto_ret), 3),
        "seconds": {name: round(s, 1) for name, (_a, s) in runs.items()},
        "recommended": {name: a.recommended.candidate.label for name, (a, _s) in runs.items()},
    }
    for name in ("hand", "auto"):
        ranks = by_label[name]
        base = ranks["default"].score if "default" in ranks else ranks["active"].score
        result[f"{name}_poor_below_default"] = all(
            ranks[label].score < base for label in (bad.label, coarse.label)
        )
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"{'candidate':32} {'hand':>7} {'auto':>7}  ranks")
    for row in result["candidates"]:
        print(
            f"{row['label'][:32]:32} {row['hand_score']:7.3f} {row['auto_score']:7.3f}  "
            f"{row['hand_rank']:>2} {row['auto_rank']:>2}"
        )
    for key in (
        "spearman_score",
        "spearman_retrieval",
        "seconds",
        "recommended",
        "hand_poor_below_default",
        "auto_poor_below_default",
    ):
        print(f"{key}: {result[key]}")


if __name__ == "__main__":
    main()
