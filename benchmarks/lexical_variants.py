"""Lexical search variants on ECMA-262: the FTS5 tokenizer and the BM25 column weights.

Each variant rebuilds the active set's FTS5 index in a copy of the database with its tokenizer,
patches the column weights of :mod:`specbrowser.search.query`, and runs
:func:`specbrowser.session.evaluate.evaluate` (what ``specbrowser eval`` runs) in lexical mode
on each query file; it prints hit@1, hit@5, hit@10 and MRR@10 per query file and kind.

    python benchmarks/lexical_variants.py --db ecma262.db QUERIES.tsv [QUERIES.tsv ...]
        [--split tune|test|all]

``--split`` evaluates one half of each file (the same halves as ``specbrowser eval --split``:
:func:`specbrowser.session.query_file.split_queries`), so variants are chosen on one half and
reported on the other.
"""

from __future__ import annotations

import argparse
import csv
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Variant:
    name: str
    tokenizer: str
    weights: tuple[float, float, float, float]


U61, PORTER = "unicode61 remove_diacritics 2", "porter unicode61 remove_diacritics 2"
VARIANTS = (
    Variant("unicode61, 2/1/1, no names", U61, (2, 1, 1, 0)),
    Variant("unicode61, names 2", U61, (2, 1, 1, 2)),
    Variant("porter, names 2", PORTER, (2, 1, 1, 2)),
    Variant("porter, names 4", PORTER, (2, 1, 1, 4)),
    Variant("porter, title 4, names 4", PORTER, (4, 1, 1, 4)),
    Variant("porter, header 2, names 4", PORTER, (2, 2, 1, 4)),
)


def main() -> None:
    sys.path.insert(0, str(ROOT))
    from specbrowser.search import query as search_query
    from specbrowser.session import Session
    from specbrowser.session.evaluate import evaluate, summarize
    from specbrowser.session.query_file import read_queries, split_queries
    from specbrowser.store import schema

    parser = argparse.ArgumentParser()
    parser.add_argument("--db", type=Path, required=True)
    parser.add_argument("queries", type=Path, nargs="+")
    parser.add_argument("--split", choices=("tune", "test", "all"), default="all")
    parser.add_argument("--variant", action="append", help="names of the variants to run")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp()) / "variant.db"
    shutil.copyfile(args.db, work)
    files = []
    for path in args.queries:
        queries = read_queries(path)
        if args.split != "all":
            first, second = split_queries(queries)
            queries = first if args.split == "tune" else second
        kinds = {
            index + 2: row.get("kind", "")
            for index, row in enumerate(csv.DictReader(path.open(encoding="utf-8"), delimiter="\t"))
        }
        files.append((path, queries, kinds))

    for variant in VARIANTS:
        if args.variant and variant.name not in args.variant:
            continue
        schema.FTS_TOKENIZER = variant.tokenizer
        search_query.TITLE_WEIGHT, search_query.HEADER_WEIGHT = variant.weights[:2]
        search_query.TEXT_WEIGHT, search_query.NAMES_WEIGHT = variant.weights[2:]
        with Session.open(work) as session:
            store = session.store
            with store.transaction():
                schema.build_set_fts(store.db, session.active_version())
        print(f"\n{variant.name}")
        with Session.open(work) as session:
            for path, queries, kinds in files:
                evaluation = evaluate(session, path, modes=["lexical"], queries=queries)
                (run,) = evaluation.runs
                for kind in sorted({kinds.get(s.query.line, "") for s in run.queries}):
                    scores = [s for s in run.queries if kinds.get(s.query.line) == kind]
                    part = summarize(run.policy_version, run.mode, run.ks, scores)
                    print(
                        f"  {path.name} {kind}: {len(scores)} queries, hit@1 {part.hit[1]:.3f}, "
                        f"hit@5 {part.hit[5]:.3f}, hit@10 {part.hit[10]:.3f}, MRR {part.mrr:.3f}"
                    )


if __name__ == "__main__":
    main()
