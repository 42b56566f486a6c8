"""Four more retrieval variants on an embedded ECMA-262 database, each against today's search.

Each variant is scored like ``specbrowser eval --split`` (hit@1, hit@5, hit@10, MRR@10 on both
halves of each query file, the symbol hits first as ``run_search`` puts them), in lexical and
hybrid mode, beside today's lexical and hybrid search:

- ``bigrams``: the lexical query also asks for each pair of adjacent content words as a phrase
  (a sequential dependence model), so a chunk holding ``derived class`` outranks one holding
  the two words apart;
- ``compounds``: each identifier's adjacent parts are indexed joined too (``ToBigInt`` →
  ``to big int tobig bigint``), so ``bigint`` or ``regexp`` in a question meets the name;
- ``link-column``: a fifth FTS5 column holds the lines of other sections that link to the
  chunk (for ``sec-towidget``, an algorithm step of another section that calls
  ``ToWidget``), at most :data:`CONTEXT_LINES` distinct lines a chunk, under several BM25 weights;
- ``link-list``: the same lines in an FTS5 index of their own, ranked apart and fused as a
  third list of the reciprocal rank fusion, under several weights;
- ``section-sum``: after the fusion a chunk also gets ``alpha`` times the fused scores of the
  other chunks of its section.

    python benchmarks/retrieval_variants.py --db EMBEDDED.db QUERIES.tsv [...]

Variants that change the index work on a copy of the database in a temporary folder.
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
import shutil
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
POOL = 50
CONTEXT_LINES = 40
"""Most distinct linking lines kept for one chunk (``link-column``, ``link-list``)."""

_LINK = re.compile(r"\[([^\]]*)\]\(#([^)\s]+)\)")


@dataclass
class Case:
    half: str
    query: object  # EvalQuery
    lexical: list
    semantic: list
    symbols: list
    extra: list


def main() -> None:
    sys.path.insert(0, str(ROOT))

    from specbrowser.chunking import identifiers
    from specbrowser.search import query as q
    from specbrowser.search.hits import Hit
    from specbrowser.search.symbols import symbol_hits, with_symbol_hits
    from specbrowser.session import Session
    from specbrowser.session.query_file import read_queries, split_queries
    from specbrowser.store import schema

    parser = argparse.ArgumentParser()
    parser.add_argument("--db", type=Path, required=True)
    parser.add_argument("queries", type=Path, nargs="+")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp())

    def rank(case: Case, hits: Sequence) -> int | None:
        hits = with_symbol_hits(case.symbols, list(hits), 10)[:10]
        expected = case.query.expected
        return next(
            (
                i
                for i, h in enumerate(hits, 1)
                if h.chunk_id in expected or h.section_id in expected
            ),
            None,
        )

    def report(name: str, cases: dict[str, list[Case]], order: Callable[[Case], Sequence]) -> None:
        cells = []
        for path, file_cases in cases.items():
            for half in ("tune", "test"):
                ranks = [rank(c, order(c)) for c in file_cases if c.half == half]
                hit = [
                    sum(r is not None and r <= k for r in ranks) / len(ranks) for k in (1, 5, 10)
                ]
                mrr = sum(1 / r for r in ranks if r) / len(ranks)
                cells.append(f"{path[:9]} {half}: " + " ".join(f"{x:.3f}" for x in [*hit, mrr]))
        print(f"{name:28} | " + " | ".join(cells), flush=True)

    def hybrid(case: Case, lexical: list | None = None) -> list:
        return q.fuse(case.query.query, lexical or case.lexical, case.semantic, POOL)

    def collect(db_path: Path, lexical: Callable | None = None) -> dict[str, list[Case]]:
        """Every query's lists from ``db_path`` (lexical by ``lexical`` when given)."""
        found: dict[str, list[Case]] = {}
        with Session.open(db_path) as session:
            store, version = session.store, session.active_version()
            for path in args.queries:
                tune, test = split_queries(read_queries(path))
                found[path.stem] = [
                    Case(
                        half,
                        query,
                        (lexical or q.lexical_search)(
                            store, query.query, limit=POOL, policy_version=version
                        ),
                        q.semantic_search(store, query.query, limit=POOL, policy_version=version),
                        symbol_hits(store, query.query, "hybrid", policy_version=version),
                        [],
                    )
                    for half, queries in (("tune", tune), ("test", test))
                    for query in queries
                ]
        return found

    def any_words(text: str) -> list[str]:
        words = [t for t in text.split() if t.casefold() not in q.STOPWORDS] or text.split()
        return [t for t in words if q._WORD.search(t)]

    def phrase(*words: str) -> str:
        return '"' + " ".join(words).replace('"', '""') + '"'

    base = collect(args.db)
    report("lexical (today)", base, lambda c: c.lexical)
    report("hybrid (today)", base, hybrid)

    # bigrams: adjacent content words as phrases beside the words
    def bigram_search(store, text, *, limit, policy_version):
        words = any_words(text)
        if not words:
            return []
        parts = [phrase(w) for w in words] + [phrase(a, b) for a, b in itertools.pairwise(words)]
        return q._run(store, " OR ".join(parts), policy_version, limit)

    bigrams = collect(args.db, bigram_search)
    report("bigrams lexical", bigrams, lambda c: c.lexical)
    report("bigrams hybrid", bigrams, hybrid)

    # compounds: identifier parts also joined pairwise in index_words
    copy = work / "compounds.db"
    shutil.copyfile(args.db, copy)
    plain_words = identifiers.identifier_words

    def compound_words(text: str) -> str:
        words = plain_words(text).split()
        pairs = [a + b for a, b in itertools.pairwise(words) if not (a.isdigit() or b.isdigit())]
        return " ".join(words + pairs)

    identifiers.identifier_words = compound_words
    with Session.open(copy) as session:
        store = session.store
        with store.transaction():
            rows = store.db.execute("SELECT id, title, retrieval_header FROM texts").fetchall()
            store.db.conn.executemany(
                "UPDATE texts SET index_words = ? WHERE id = ?",
                [(identifiers.text_index_words(t or "", h or ""), i) for i, t, h in rows],
            )
            schema.build_set_fts(store.db, session.active_version())
    identifiers.identifier_words = plain_words
    compounds = collect(copy)
    report("compounds lexical", compounds, lambda c: c.lexical)
    report("compounds hybrid", compounds, hybrid)

    # link contexts: the lines of other sections that link to a chunk
    copy = work / "links.db"
    shutil.copyfile(args.db, copy)
    with Session.open(copy) as session:
        store, version = session.store, session.active_version()
        db = store.db
        target = {
            anchor: (section, chunk)
            for anchor, section, chunk in db.execute(
                "SELECT j.value, r.section_id, r.id FROM chunk_rows r, json_each(r.anchors) j "
                "WHERE r.policy_version = ? ORDER BY r.ordinal DESC",  # the first chunk wins
                [version],
            )
        }
        rows = db.execute(
            "SELECT r.id, r.section_id, r.text_id, t.text FROM chunk_rows r "
            "JOIN texts t ON t.id = r.text_id WHERE r.policy_version = ?",
            [version],
        ).fetchall()
        for chunk_id, section_id, _, _ in rows:
            target.setdefault(chunk_id, (section_id, chunk_id))
        text_of = {chunk_id: text_id for chunk_id, _, text_id, _ in rows}
        lines: dict[int, list[str]] = {}
        for _, section_id, _, text in rows:
            for line in text.split("\n"):
                anchors = {m.group(2) for m in _LINK.finditer(line)}
                plain = re.sub(r"[`*_#>|]", " ", _LINK.sub(lambda m: m.group(1), line)).strip()
                for anchor in anchors:
                    if anchor in target and target[anchor][0] != section_id:
                        kept = lines.setdefault(text_of[target[anchor][1]], [])
                        if plain not in kept and len(kept) < CONTEXT_LINES:
                            kept.append(plain)
        with store.transaction():
            db.execute("ALTER TABLE texts ADD COLUMN link_context TEXT")
            db.conn.executemany(
                "UPDATE texts SET link_context = ? WHERE id = ?",
                [("\n".join(v), k) for k, v in lines.items()],
            )
            schema.build_set_fts(store.db, version, columns=schema.FTS_COLUMNS + ", link_context")
            db.execute(
                "CREATE VIRTUAL TABLE link_fts USING fts5(link_context, content='texts', "
                f"content_rowid='id', tokenize='{schema.FTS_TOKENIZER}')"
            )
            db.execute(
                "INSERT INTO link_fts (rowid, link_context) "
                "SELECT id, link_context FROM texts WHERE link_context IS NOT NULL"
            )
        print(f"link contexts: {len(lines)} of {len(rows)} chunks")
        chunks_of: dict[int, list[tuple[str, str]]] = {}
        for chunk_id, section_id, text_id, _ in rows:
            chunks_of.setdefault(text_id, []).append((chunk_id, section_id))

        def link_list(text: str) -> list:
            words = any_words(text)
            if not words:
                return []
            found = db.execute(
                "SELECT rowid, rank FROM link_fts WHERE link_fts MATCH ? ORDER BY rank LIMIT ?",
                [" OR ".join(phrase(w) for w in words), POOL],
            ).fetchall()
            return [
                Hit(chunk_id=c, section_id=s, title="", heading_path=[], score=-r, snippet="")
                for text_id, r in found
                for c, s in chunks_of.get(text_id, [])
            ]

        for cases in base.values():
            for case in cases:
                case.extra = link_list(case.query.query)

    plain_run = q._run
    for weight in (0.5, 1.0, 2.0):

        def weighted_run(store, query, version, limit, where=q.NO_FILTER, weight=weight):
            weights = (q.TITLE_WEIGHT, q.HEADER_WEIGHT, q.TEXT_WEIGHT, q.NAMES_WEIGHT, weight)
            rows = store.fts_search(
                query, version, limit, weights=weights, highlight=("", ""), where=where
            )
            return [
                Hit(
                    chunk_id=r.chunk_id,
                    section_id=r.section_id,
                    title=r.title,
                    heading_path=json.loads(r.toc_path or r.heading_path),
                    score=-r.rank,
                    snippet=r.snippet,
                )
                for r in rows
            ]

        q._run = weighted_run
        linked = collect(copy)
        q._run = plain_run
        report(f"link-column {weight} lexical", linked, lambda c: c.lexical)
        report(f"link-column {weight} hybrid", linked, hybrid)

    for weight in (0.2, 0.3, 0.5):

        def three(case: Case, weight: float = weight) -> list:
            if q.is_identifier_query(case.query.query):
                return hybrid(case)
            return q.reciprocal_rank_fusion(
                [case.lexical, case.semantic, case.extra],
                limit=POOL,
                weights=[1.0, q.SEMANTIC_WEIGHT, weight],
            )

        report(f"link-list {weight} hybrid", base, three)

    for alpha in (0.1, 0.25, 0.5):

        def summed(case: Case, alpha: float = alpha) -> list:
            if q.is_identifier_query(case.query.query):
                return hybrid(case)
            fused = q.reciprocal_rank_fusion(
                [case.lexical, case.semantic], limit=2 * POOL, weights=[1.0, q.SEMANTIC_WEIGHT]
            )
            total: dict[str, float] = {}
            for h in fused:
                total[h.section_id] = total.get(h.section_id, 0.0) + h.score
            return sorted(
                (
                    replace(h, score=h.score + alpha * (total[h.section_id] - h.score))
                    for h in fused
                ),
                key=lambda h: -h.score,
            )

        report(f"section-sum {alpha} hybrid", base, summed)


if __name__ == "__main__":
    main()
