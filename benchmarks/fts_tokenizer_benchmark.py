"""FTS5 tokenizer candidates on ECMA-262: recall@5, MRR, latency, index size and build time.

Issue 5 asks for a tokenizer that finds spec tokens (``[[Prototype]]``, ``%TypedArray%``,
``@@iterator``, ``Array.prototype.map``, ``ToNumber``, ``for-in``). This script ingests the
single-page ECMA-262 once with the default policy (or takes ``--db``), then for each candidate
copies the database, drops ``texts_fts`` and its triggers and recreates them exactly as
``specbrowser.store`` does (same columns, FTS5, triggers) except for the tokenizer, rebuilds the
index, and runs the lexical search (:func:`specbrowser.search.query.lexical_search`, unchanged) over

* the 32 queries of ``benchmarks/ecma262_queries.json`` (recall@5, MRR, latency), and
* the six spec tokens of ``benchmarks/ecma262_spec_tokens.json`` (found in the top 5 or not).

A last row, :data:`CONTROL`, keeps the current tokenizer but drops Markdown link targets from the
copy's retrieval texts, to separate tokenizer effects from anchor words (see BENCHMARKS.md).

Latency: every round runs every query once on every candidate (candidate order rotated per
round, so a burst of load on this shared machine does not land on one candidate); a query's
latency is its median over the rounds, and p50/p95 are taken over those per-query medians.
Index size is the bytes of the FTS5 shadow tables (``dbstat``); build time is the median of
``--builds`` full ``rebuild`` runs of the index from the ``texts`` table.

    python benchmarks/fts_tokenizer_benchmark.py [--db ecma262.db] [--rounds 7] [--builds 3]
        [--markdown] [--keep DIR] [--candidate "unicode61 tokenchars '%'" ...]

Without ``--db`` the spec from ../shared/specs is ingested into a temporary folder under /tmp.
``--markdown`` prints the tables as Markdown (for BENCHMARKS.md).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from rich import box
from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parent.parent
QUERIES = Path(__file__).with_name("ecma262_queries.json")
SPEC_TOKENS = Path(__file__).with_name("ecma262_spec_tokens.json")
SPEC = ROOT.parent / "shared" / "specs" / "ecma262" / "index.html"
K = 5
LIMIT = 10
FTS_TABLE = "texts_fts"
SHADOW_TABLES = tuple(
    f"{FTS_TABLE}_{suffix}" for suffix in ("data", "idx", "content", "docsize", "config")
)
TRIGGERS = {"texts_ai", "texts_ad", "texts_au"}
PROBES = ("object", "prototype", "Array.prototype", "TypedArray", "for")
"""Queries whose match counts show what keeping punctuation in tokens costs: with ``.`` a
tokenchar, ``value.`` at a sentence's end and ``Array.prototype.map`` no longer match ``value``
or ``Array.prototype``; with ``[`` one, Markdown links ``[ordinary objects](#…)`` hide their
first word."""

# (label, tokenize argument). The first must be store.FTS_TOKENIZER (checked at start).
CANDIDATES: list[tuple[str, str]] = [
    ("current: unicode61", "unicode61 remove_diacritics 2"),
    ("unicode61 + tokenchars .[]%@-_", "unicode61 remove_diacritics 2 tokenchars '.[]%@-_'"),
    ("unicode61 + tokenchars []%@", "unicode61 remove_diacritics 2 tokenchars '[]%@'"),
    ("unicode61 + tokenchars -", "unicode61 remove_diacritics 2 tokenchars '-'"),
    ("unicode61 + tokenchars %-", "unicode61 remove_diacritics 2 tokenchars '%-'"),
    ("porter unicode61", "porter unicode61 remove_diacritics 2"),
    ("trigram", "trigram"),
]
CONTROL = "control: current, link targets dropped"
"""Not a tokenizer: the current one over retrieval texts whose Markdown link targets
``](#sec-…)`` are removed (the database copy only), to see how much of a tokenchars ``-`` gain
comes from no longer splitting anchors like ``#sec-object-type`` into indexed words."""
LINK_TARGET = re.compile(r"\]\(#[^)\s]*\)")


@dataclass
class Candidate:
    label: str
    tokenize: str
    path: Path
    db: object = None
    build_s: float = 0.0
    create_s: float = 0.0
    index_bytes: int = 0
    terms: int = 0
    probes: dict[str, int] = field(default_factory=dict)  # probe query -> chunks matching all terms
    ranks: dict[str, int | None] = field(
        default_factory=dict
    )  # query -> rank of expected (1-based)
    latencies: dict[str, list[float]] = field(default_factory=dict)  # query -> ms per round


def expected_rank(hits: list, expect: str) -> int | None:
    sections = [h.section_id for h in hits]
    return sections.index(expect) + 1 if expect in sections else None


def prepare(candidate: Candidate, base: Path, builds: int) -> None:
    """Copy ``base``, recreate the FTS table with the candidate tokenizer, time rebuilds and
    measure."""
    from specbrowser.store import FTS_TOKENIZER, open_database

    shutil.copyfile(base, candidate.path)
    db = open_database(candidate.path)
    table = db.db.table("texts")
    old_sql = db.db.execute("SELECT sql FROM sqlite_master WHERE name = ?", [FTS_TABLE]).fetchone()[
        0
    ]
    columns = [row[1] for row in db.db.execute(f"PRAGMA table_info({FTS_TABLE})").fetchall()]
    start = time.perf_counter()
    table.disable_fts()  # drops the triggers too, so the control's rewrite below skips them
    if candidate.label == CONTROL:
        rows = db.db.execute("SELECT rowid, retrieval_body FROM texts").fetchall()
        with db.atomic():
            for rowid, text in rows:
                if text and LINK_TARGET.search(text):
                    db.db.execute(
                        "UPDATE texts SET retrieval_body = ? WHERE rowid = ?",
                        [LINK_TARGET.sub("]", text), rowid],
                    )
    # mirror store._create_schema: same columns, FTS5, triggers; only the tokenizer differs
    table.enable_fts(columns, fts_version="FTS5", tokenize=candidate.tokenize, create_triggers=True)
    candidate.create_s = time.perf_counter() - start
    new_sql = db.db.execute("SELECT sql FROM sqlite_master WHERE name = ?", [FTS_TABLE]).fetchone()[
        0
    ]
    expected_sql = old_sql.replace(
        f"tokenize={db.quote(FTS_TOKENIZER)}", f"tokenize={db.quote(candidate.tokenize)}"
    )
    if new_sql != expected_sql:
        raise SystemExit(
            f"{candidate.label}: recreated FTS table differs from store.py's:\n{new_sql}"
        )
    triggers = {
        row[0] for row in db.db.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")
    }
    if not triggers >= TRIGGERS:
        raise SystemExit(f"{candidate.label}: triggers missing: {sorted(TRIGGERS - triggers)}")
    timings = []
    for _ in range(builds):
        start = time.perf_counter()
        table.rebuild_fts()
        timings.append(time.perf_counter() - start)
    candidate.build_s = statistics.median(timings)
    with db.atomic():
        db.db.execute(f"INSERT INTO {FTS_TABLE}({FTS_TABLE}) VALUES('integrity-check')")
    marks = ", ".join("?" for _ in SHADOW_TABLES)
    candidate.index_bytes = db.db.execute(
        f"SELECT COALESCE(SUM(pgsize), 0) FROM dbstat WHERE name IN ({marks})", list(SHADOW_TABLES)
    ).fetchone()[0]
    db.db.execute(f"CREATE VIRTUAL TABLE temp.fts_vocab USING fts5vocab(main, {FTS_TABLE}, row)")
    candidate.terms = db.db.execute("SELECT COUNT(*) FROM temp.fts_vocab").fetchone()[0]
    db.db.execute("DROP TABLE temp.fts_vocab")
    candidate.db = db


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[int(fraction * (len(ordered) - 1))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--db", type=Path, help="an ingested ECMA-262 database (read, never written)"
    )
    parser.add_argument("--rounds", type=int, default=7, help="latency rounds (median per query)")
    parser.add_argument(
        "--builds", type=int, default=3, help="index rebuilds per candidate (median)"
    )
    parser.add_argument("--markdown", action="store_true", help="print the tables as Markdown")
    parser.add_argument("--keep", type=Path, help="keep the candidate databases in this folder")
    parser.add_argument(
        "--candidate",
        action="append",
        default=[],
        metavar="TOKENIZE",
        help="also measure this tokenize= argument (repeatable)",
    )
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from specbrowser.chunking.policy import ChunkPolicy
    from specbrowser.search.query import lexical_search, literal_query
    from specbrowser.session.ingest import ingest
    from specbrowser.store import FTS_TOKENIZER

    if CANDIDATES[0][1] != FTS_TOKENIZER:
        raise SystemExit(f"first candidate must be store.FTS_TOKENIZER ({FTS_TOKENIZER!r})")
    console = Console(width=400 if args.markdown else 200, markup=False, highlight=False)
    table_box = box.MARKDOWN if args.markdown else box.SIMPLE_HEAVY
    queries = json.loads(QUERIES.read_text())
    tokens = json.loads(SPEC_TOKENS.read_text())
    every = queries + [t for t in tokens if t["query"] not in {q["query"] for q in queries}]
    expect = {q["query"]: q["expect"] for q in queries + tokens}
    load_before = os.getloadavg()

    with tempfile.TemporaryDirectory(prefix="fts-tokenizers-", dir="/tmp") as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        base = args.db
        if base is None:
            if not SPEC.exists():
                print(f"spec not found: {SPEC}", file=sys.stderr)
                return 2
            base = Path(tmp) / "ecma262.db"
            start = time.perf_counter()
            ingest([SPEC], base, ChunkPolicy())
            console.print(f"ingested {SPEC.name} in {time.perf_counter() - start:.1f} s")
        candidates = [
            Candidate(label, tokenize, folder / f"candidate{i}.db")
            for i, (label, tokenize) in enumerate(
                CANDIDATES
                + [(extra, extra) for extra in args.candidate]
                + [(CONTROL, FTS_TOKENIZER)]
            )
        ]
        for candidate in candidates:
            prepare(candidate, base, args.builds)
            for item in every:  # ranks are deterministic: one run each
                hits = lexical_search(candidate.db, item["query"], limit=LIMIT)
                candidate.ranks[item["query"]] = expected_rank(hits, expect[item["query"]])
                candidate.latencies[item["query"]] = []
            for probe in PROBES:
                candidate.probes[probe] = candidate.db.db.execute(
                    f"SELECT COUNT(*) FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH ?",
                    [literal_query(probe)],
                ).fetchone()[0]
            console.print(
                f"built {candidate.label}: {candidate.build_s:.2f} s, "
                f"{candidate.index_bytes / 1e6:.1f} MB"
            )
        for round_index in range(args.rounds):
            shift = round_index % len(candidates)
            for candidate in candidates[shift:] + candidates[:shift]:
                for item in every:
                    start = time.perf_counter()
                    lexical_search(candidate.db, item["query"], limit=LIMIT)
                    candidate.latencies[item["query"]].append((time.perf_counter() - start) * 1000)
        load_after = os.getloadavg()

        console.print(
            f"{len(queries)} queries (recall@{K}, MRR over the top {LIMIT}) + {len(tokens)} "
            f"spec tokens; latency: median of {args.rounds} interleaved rounds per query, "
            f"p50/p95 over the {len(queries)} queries; {os.cpu_count()} CPUs, load average "
            f"{load_before[0]:.1f} before, {load_after[0]:.1f} after"
        )
        summary = Table(box=table_box, title=None if args.markdown else "FTS5 tokenizers")
        for name in (
            "tokenizer",
            "tokenize=",
            f"recall@{K}",
            "MRR",
            "p50 (ms)",
            "p95 (ms)",
            "index (MB)",
            "terms",
            "build (s)",
            f"spec tokens in top {K}",
        ):
            summary.add_column(name, justify="left" if name.startswith("tokeniz") else "right")
        for c in candidates:
            ranks = [c.ranks[q["query"]] for q in queries]
            recall = sum(1 for r in ranks if r is not None and r <= K) / len(queries)
            mrr = sum(1 / r for r in ranks if r is not None) / len(queries)
            medians = [statistics.median(c.latencies[q["query"]]) for q in queries]
            found = sum(1 for t in tokens if (r := c.ranks[t["query"]]) is not None and r <= K)
            summary.add_row(
                c.label,
                f"`{c.tokenize}`",
                f"{recall:.2f}",
                f"{mrr:.2f}",
                f"{statistics.median(medians):.1f}",
                f"{percentile(medians, 0.95):.1f}",
                f"{c.index_bytes / 1e6:.1f}",
                f"{c.terms:,}",
                f"{c.build_s:.2f}",
                f"{found}/{len(tokens)}",
            )
        console.print(summary)

        kinds = list(dict.fromkeys(q["kind"] for q in queries))
        by_kind = Table(box=table_box, title=None if args.markdown else f"recall@{K} by query kind")
        by_kind.add_column("tokenizer")
        for kind in kinds:
            count = sum(1 for q in queries if q["kind"] == kind)
            by_kind.add_column(f"{kind} ({count})", justify="right")
        for c in candidates:
            cells = []
            for kind in kinds:
                group = [q for q in queries if q["kind"] == kind]
                hit = sum(1 for q in group if (r := c.ranks[q["query"]]) is not None and r <= K)
                cells.append(f"{hit}/{len(group)}")
            by_kind.add_row(c.label, *cells)
        console.print(by_kind)

        spec = Table(
            box=table_box,
            title=None
            if args.markdown
            else f"spec tokens: rank of the expected section (– = not in the top {LIMIT})",
        )
        spec.add_column("tokenizer")
        for t in tokens:
            spec.add_column(f"`{t['query']}`", justify="right")
        for c in candidates:
            spec.add_row(
                c.label,
                *[str(r) if (r := c.ranks[t["query"]]) is not None else "–" for t in tokens],
            )
        console.print(spec)

        matched = Table(
            box=table_box,
            title=None
            if args.markdown
            else "chunks matching a probe query (every term; one chunk set)",
        )
        matched.add_column("tokenizer")
        for probe in PROBES:
            matched.add_column(f"`{probe}`", justify="right")
        for c in candidates:
            matched.add_row(c.label, *[f"{c.probes[probe]:,}" for probe in PROBES])
        console.print(matched)

        current = candidates[0]
        for c in candidates[1:]:

            def top(cand: Candidate, query: str) -> bool:
                return (r := cand.ranks[query]) is not None and r <= K

            gained = [
                q["query"] for q in every if top(c, q["query"]) and not top(current, q["query"])
            ]
            lost = [
                q["query"] for q in every if top(current, q["query"]) and not top(c, q["query"])
            ]
            console.print(f"{c.label} vs current: gains {gained or 'none'}; loses {lost or 'none'}")
        for c in candidates:
            c.db.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
