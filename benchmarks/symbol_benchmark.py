"""Exact jumps and links on ECMA-262: identifier hit@1 per search mode, link resolution, and
the cost of the symbol index.

Identifier queries: those of ``benchmarks/ecma262_queries.json`` that name one thing (kinds
``identifier``, ``intrinsic``, ``grammar`` without extra words) plus
``benchmarks/ecma262_identifiers.json`` (aoids, productions, intrinsics, property paths, section
numbers and anchors, each with the section that defines it, read from the spec's HTML). A query
hits at 1 when the first hit's chunk belongs to the expected section. Modes that need
embeddings run only when the database has them.

Links: every in-text link of the active chunk set's texts whose target is ``#id`` with ``id``
an element of the document, and how many lead to a chunk of the set.

    python benchmarks/symbol_benchmark.py [--db ecma262.db] [--repeat 5]

Without ``--db`` the single-page ECMA-262 from ../shared/specs is ingested into a temporary file.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HERE = Path(__file__).parent
SPEC = ROOT.parent / "shared" / "specs" / "ecma262" / "index.html"


def identifier_queries() -> list[dict[str, str]]:
    """The project's one-name queries, then the identifier set."""
    project = json.loads((HERE / "ecma262_queries.json").read_text())
    named = [
        q
        for q in project
        if q["kind"] in ("identifier", "intrinsic", "grammar") and " " not in q["query"]
    ]
    return named + json.loads((HERE / "ecma262_identifiers.json").read_text())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from specbrowser.chunking.policy import ChunkPolicy
    from specbrowser.errors import SpecbrowserError
    from specbrowser.formats import load_spec
    from specbrowser.formats.symbols import spec_symbols
    from specbrowser.search.query import run_search
    from specbrowser.search.symbols import symbol_hits
    from specbrowser.session.ingest import ingest
    from specbrowser.session.links import link_report
    from specbrowser.store import open_database

    queries = identifier_queries()
    with tempfile.TemporaryDirectory() as tmp:
        db_path = args.db
        if db_path is None:
            if not SPEC.exists():
                print(f"spec not found: {SPEC}", file=sys.stderr)
                return 2
            db_path = Path(tmp) / "ecma262.db"
            ingest([SPEC], db_path, ChunkPolicy())
        db = open_database(db_path)
        version = db.active_version()
        print(f"{len(queries)} identifier queries; chunk set {version}")
        print()
        print("| mode | hit@1 | hit@1 before (no symbol step) | misses |")
        print("|---|---|---|---|")
        for mode in ("lexical", "semantic", "hybrid"):
            try:
                run_search(db, "probe", mode, limit=1)  # type: ignore[arg-type]
            except SpecbrowserError as exc:
                print(f"| {mode} | skipped: {exc} | | |")
                continue
            hits = 0
            before = 0
            misses = []
            for item in queries:
                found = run_search(db, item["query"], mode, limit=10)  # type: ignore[arg-type]
                if found and found[0].section_id == item["expect"]:
                    hits += 1
                else:
                    misses.append(item["query"])
                plain = _without_symbols(db, item["query"], mode)
                before += bool(plain) and plain[0].section_id == item["expect"]
            print(
                f"| {mode} | {hits / len(queries):.2f} ({hits}/{len(queries)}) "
                f"| {before / len(queries):.2f} | {', '.join(misses) or '–'} |"
            )
        first = sum(
            bool(found := symbol_hits(db, q["query"], policy_version=version))
            and found[0].section_id == q["expect"]
            for q in queries
        )
        print()
        print(
            f"symbol step alone (first in every mode): hit@1 {first / len(queries):.2f} "
            f"({first}/{len(queries)})"
        )
        project = json.loads((HERE / "ecma262_queries.json").read_text())
        print()
        print(f"All {len(project)} queries of ecma262_queries.json, lexical:")
        print()
        print("| ranking | hit@1 | recall@5 | MRR (top 10) |")
        print("|---|---|---|---|")
        for label, search in (
            ("without the symbol step", lambda q: _without_symbols(db, q, "lexical")),
            ("symbol hits first", lambda q: run_search(db, q, "lexical", limit=10)),
        ):
            print(
                f"| {label} | " + " | ".join(f"{v:.2f}" for v in _quality(search, project)) + " |"
            )
        latencies = []
        for item in queries:
            for _ in range(args.repeat):
                start = time.perf_counter()
                symbol_hits(db, item["query"], policy_version=version)
                latencies.append((time.perf_counter() - start) * 1000)
        latencies.sort()
        print()
        print(
            f"symbol step: p50 {statistics.median(latencies):.2f} ms, "
            f"p95 {latencies[int(0.95 * (len(latencies) - 1))]:.2f} ms per query"
        )
        start = time.perf_counter()
        report = link_report(db, version)
        seconds = time.perf_counter() - start
        print(
            f"links: {report.links:,} in chunk texts, {report.in_document:,} '#id', "
            f"{report.anchor_in_document:,} with the id in the document, {report.resolved:,} "
            f"lead to a chunk ({report.resolved_share:.2%}); "
            f"{report.links - report.in_document:,} external; {seconds:.2f} s"
        )
        if report.unresolved:
            print("unresolved: " + ", ".join(report.unresolved))
        symbols = db.db.execute("SELECT kind, count(*) FROM symbols GROUP BY kind").fetchall()
        anchors = db.db.execute(
            "SELECT count(DISTINCT j.value) FROM chunk_rows r, json_each(r.anchors) j "
            "WHERE r.policy_version = ?",
            [version],
        ).fetchone()[0]
        print(f"symbols by kind: {dict(symbols)}; anchors in subsections: {anchors:,}")
        if SPEC.exists():
            parsed = load_spec([SPEC])
            start = time.perf_counter()
            spec_symbols(parsed.sections, parsed.elements)
            print(f"symbol index from parsed elements: {time.perf_counter() - start:.2f} s")
            start = time.perf_counter()
            spec_symbols(parsed.sections)
            print(f"symbol index from stored HTML: {time.perf_counter() - start:.2f} s")
    return 0


def _quality(search, queries: list[dict[str, str]]) -> tuple[float, float, float]:
    """hit@1, recall@5 and MRR over the top 10, by section."""
    first = five = reciprocal = 0.0
    for item in queries:
        sections = [h.section_id for h in search(item["query"])][:10]
        first += sections[:1] == [item["expect"]]
        five += item["expect"] in sections[:5]
        if item["expect"] in sections:
            reciprocal += 1 / (sections.index(item["expect"]) + 1)
    n = len(queries)
    return first / n, five / n, reciprocal / n


def _without_symbols(db, query: str, mode: str) -> list:
    """The mode's ranking without the symbol step (what search gave before it)."""
    from specbrowser.search import query as search_module

    function = getattr(search_module, f"{mode}_search")
    return function(db, query, limit=10)


if __name__ == "__main__":
    raise SystemExit(main())
