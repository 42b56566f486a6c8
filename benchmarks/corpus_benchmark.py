"""A corpus against its specs' own databases: time, identity, links and search (issue 30).

Each round ingests every spec into a database of its own and, one ``ingest`` after another,
into one corpus database: whole processes (``python -m specbrowser``), bytecode compiled first,
a spec's two ingests back to back (in turn which goes first) so both see the same load; the
ratio is the corpus's total over the single databases' total, per round; and one ``ingest
--each`` of all the specs into a database of its own (its ratio: its seconds over the single
databases' total). Then, on the last round's databases:

- **each**: the ``--each`` database's digest against the corpus database's (the same rows);

- **identity**: each spec's chunks in the corpus against its own database's (same order, same
  texts and retrieval texts; an id may differ only by the ``NAME:`` prefix a collision gives);
- **re-ingest**: each spec ingested into the corpus again, unchanged: the chunk rows, texts and
  stored stats must not change;
- **links**: the links from one spec into another, per pair, and how many resolve to a chunk
  (``specbrowser specs``' figures);
- **search**: p50 and p95 in process over the query files' queries and each spec's section
  titles, lexical always, semantic and hybrid when the corpus database has vectors (``--embed``
  embeds it first: slow, about the sum of the specs' embedding times).

    python benchmarks/corpus_benchmark.py [--rounds 3] [--spec NAME …] [--workdir DIR] [--embed]
        [--json]

``--spec`` takes the names of ``benchmarks/paired_benchmark.py`` (default: ECMA-262, Temporal,
import-attributes, Fetch, RFC 9110, WebAuthn, in that order). Needs ../shared/specs.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from paired_benchmark import ROOT, SHARED_SPECS

DEFAULT_SPECS = ["ecma262", "temporal", "import-attributes", "fetch", "rfc9110", "webauthn"]
QUERY_FILES = [
    Path(__file__).with_name("ecma262-queries.tsv"),
    Path(__file__).with_name("ecma262-questions.tsv"),
]


def ingest(spec: Path | list[Path], db: Path) -> float:
    """Seconds of one whole ``specbrowser ingest`` process (its output discarded); a list of
    specs is one ``ingest --each`` of them all.

    Raises:
        SystemExit: the ingest failed (its stderr printed).
    """
    specs = [str(s) for s in spec] if isinstance(spec, list) else [str(spec)]
    each = ["--each"] if isinstance(spec, list) else []
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "specbrowser", "ingest", *specs, *each, "--db", str(db)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    elapsed = time.perf_counter() - start
    if done.returncode:
        sys.exit(f"ingest {spec} failed: {done.stderr.strip()}")
    return elapsed


def remove_db(path: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


def run_round(
    names: list[str], work: Path, number: int
) -> tuple[dict[str, float], dict[str, float], float]:
    """One round: each spec into its own database and into ``work/corpus.db`` (fresh for the
    round, filled in ``names`` order), the two ingests of a spec back to back, the single one
    first in even rounds and second in odd ones, so a change of load falls on both; and one
    ``ingest --each`` of them all into ``work/each.db``, first in even rounds, last in odd
    ones. Returns the single ingests' seconds, the corpus ingests', and the ``--each``'s."""
    single: dict[str, float] = {}
    corpus: dict[str, float] = {}
    remove_db(work / "corpus.db")
    remove_db(work / "each.db")
    specs = [SHARED_SPECS[name] for name in names]
    each = ingest(specs, work / "each.db") if number % 2 == 0 else 0.0
    for name in names:
        db = work / f"{name}.db"
        remove_db(db)
        if number % 2 == 0:
            single[name] = ingest(SHARED_SPECS[name], db)
            corpus[name] = ingest(SHARED_SPECS[name], work / "corpus.db")
        else:
            corpus[name] = ingest(SHARED_SPECS[name], work / "corpus.db")
            single[name] = ingest(SHARED_SPECS[name], db)
    if number % 2:
        each = ingest(specs, work / "each.db")
    return single, corpus, each


def spec_chunks(db_path: Path) -> dict[str, list[tuple[str, str, str]]]:
    """Spec name → its chunks of the active set as ``(id, text, retrieval text)``, in order."""
    from specbrowser import store

    with store.open_database(db_path) as db:
        version = db.active_version()
        return {
            spec.name: [(c.id, c.text, c.retrieval_text) for c in db.iter_chunks(version, spec.id)]
            for spec in db.corpus.all()
        }


def _unprefixed(text: str, name: str) -> str:
    """``text`` with the ``NAME:`` prefix taken off the ids it names: link targets
    (``](#NAME:id``) and markers' section ids (`` `NAME:id` ``)."""
    return text.replace(f"(#{name}:", "(#").replace(f"`{name}:", "`")


def identity(names: list[str], work: Path) -> dict[str, dict[str, int]]:
    """Per spec: chunks, chunks whose texts differ other than by the ``NAME:`` prefix of the
    ids they name (markers, links), those differing by it only, ids differing other than by
    the prefix, and ids prefixed."""
    corpus = spec_chunks(work / "corpus.db")
    report: dict[str, dict[str, int]] = {}
    for name in names:
        (own_name, own), *_ = spec_chunks(work / f"{name}.db").items()
        theirs = corpus[own_name]
        differ = sum(
            a[1:] != tuple(_unprefixed(t, own_name) for t in b[1:])
            for a, b in zip(own, theirs, strict=False)
        )
        by_prefix = sum(a[1:] != b[1:] for a, b in zip(own, theirs, strict=False)) - differ
        ids = sum(
            a[0] != b[0] and b[0] != f"{own_name}:{a[0]}" for a, b in zip(own, theirs, strict=False)
        )
        prefixed = sum(a[0] != b[0] for a, b in zip(own, theirs, strict=False))
        report[own_name] = {
            "chunks": len(own),
            "corpus_chunks": len(theirs),
            "texts_differ": differ + abs(len(own) - len(theirs)),
            "texts_differ_by_id_prefix_only": by_prefix,
            "ids_differ": ids,
            "ids_prefixed": prefixed,
        }
    return report


def corpus_digest(db_path: Path) -> str:
    """sha256 over the chunk rows, texts and stored stats of every set (what an unchanged
    re-ingest must leave as it was)."""
    import sqlean

    con = sqlean.connect(str(db_path))
    try:
        digest = hashlib.sha256()
        for sql in (
            "SELECT policy_version, id, document_id, ordinal, text_id, subsections "
            "FROM chunk_rows ORDER BY policy_version, document_id, ordinal",
            "SELECT id, content_hash FROM texts ORDER BY id",
            "SELECT version, settings, stats, active FROM policies ORDER BY version",
            "SELECT id, name, sha256, position FROM documents ORDER BY id",
        ):
            for row in con.execute(sql):
                digest.update(repr(row).encode())
        return digest.hexdigest()
    finally:
        con.close()


def reingest(names: list[str], work: Path) -> dict[str, object]:
    """Each spec ingested again, unchanged, into the corpus: seconds and whether it changed."""
    before = corpus_digest(work / "corpus.db")
    seconds = {name: round(ingest(SHARED_SPECS[name], work / "corpus.db"), 2) for name in names}
    return {"seconds": seconds, "unchanged": corpus_digest(work / "corpus.db") == before}


def links(work: Path) -> list[dict[str, object]]:
    """The cross-spec link table of the corpus (``specbrowser specs``' figures)."""
    from specbrowser.session import Session

    with Session.open(work / "corpus.db") as session:
        return [
            {
                "source": pair.source,
                "target": pair.target,
                "links": pair.links,
                "resolved": pair.resolved,
                "share": round(pair.resolved / pair.links, 4) if pair.links else None,
                "unresolved": pair.unresolved[:5],
            }
            for pair in session.cross_spec_links()
        ]


def queries(db_path: Path, per_spec: int = 40) -> list[str]:
    """The query files' queries plus up to ``per_spec`` section titles of each spec."""
    from specbrowser import store
    from specbrowser.session.query_file import read_queries

    texts = [query.query for path in QUERY_FILES for query in read_queries(path)]

    with store.open_database(db_path) as db:
        for spec in db.corpus.all():
            titles = [
                c.title for c in db.iter_chunks(None, spec.id) if c.layer == "section" and c.title
            ]
            step = max(1, len(titles) // per_spec)
            texts.extend(titles[::step][:per_spec])
    return texts


def search_latency(db_path: Path, repeat: int = 3) -> dict[str, dict[str, float]]:
    """p50/p95 in ms per mode (semantic and hybrid only with vectors), after one warm-up."""
    from specbrowser.errors import EmbeddingError, PolicyError
    from specbrowser.session import Session

    texts = queries(db_path)
    report: dict[str, dict[str, float]] = {}
    with Session.open(db_path) as session:
        for mode in ("lexical", "semantic", "hybrid"):
            try:
                session.search(texts[0], mode)  # type: ignore[arg-type]
                if mode != "lexical" and session.vectors_off():
                    raise EmbeddingError(session.vectors_off() or "")
            except EmbeddingError as error:
                report[mode] = {"skipped": str(error)}  # type: ignore[dict-item]
                continue
            times: list[float] = []
            for text in texts:
                for _ in range(repeat):
                    start = time.perf_counter()
                    try:
                        session.search(text, mode)  # type: ignore[arg-type]
                    except PolicyError:
                        break
                    times.append((time.perf_counter() - start) * 1000)
            times.sort()
            report[mode] = {
                "queries": len(texts),
                "p50_ms": round(statistics.median(times), 2),
                "p95_ms": round(times[int(0.95 * len(times))], 2),
            }
    return report


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--spec", action="append", choices=sorted(SHARED_SPECS))
    parser.add_argument("--workdir", type=Path, help="keep the databases here")
    parser.add_argument("--embed", action="store_true", help="embed the corpus for hybrid")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    names = args.spec or DEFAULT_SPECS
    missing = [n for n in names if not SHARED_SPECS[n].exists()]
    if missing:
        sys.exit(f"not found (needs ../shared/specs): {', '.join(missing)}")
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(ROOT / "specbrowser")], check=True
    )
    work = args.workdir or Path(tempfile.mkdtemp(prefix="corpus-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    rounds = []
    for number in range(args.rounds):
        single, corpus, each = run_round(names, work, number)
        ratio = sum(corpus.values()) / sum(single.values())
        each_ratio = each / sum(single.values())
        rounds.append(
            {
                "single": single,
                "corpus": corpus,
                "each": each,
                "ratio": ratio,
                "each_ratio": each_ratio,
            }
        )
        print(
            f"round {number + 1}: single {sum(single.values()):.2f} s, corpus "
            f"{sum(corpus.values()):.2f} s, ratio {ratio:.3f}; --each {each:.2f} s, ratio "
            f"{each_ratio:.3f}; load {os.getloadavg()[0]:.1f}",
            file=sys.stderr,
        )
    result: dict[str, object] = {
        "specs": names,
        "rounds": rounds,
        "ratio_median": round(statistics.median(r["ratio"] for r in rounds), 3),  # type: ignore[misc]
        "each_ratio_median": round(statistics.median(r["each_ratio"] for r in rounds), 3),  # type: ignore[misc]
        "each_same_as_corpus": corpus_digest(work / "each.db") == corpus_digest(work / "corpus.db"),
        "per_spec_median": {
            name: {
                "single": round(statistics.median(r["single"][name] for r in rounds), 2),  # type: ignore[index]
                "corpus": round(statistics.median(r["corpus"][name] for r in rounds), 2),  # type: ignore[index]
            }
            for name in names
        },
        "identity": identity(names, work),
        "reingest": reingest(names, work),
        "links": links(work),
    }
    if args.embed:
        subprocess.run(
            [sys.executable, "-m", "specbrowser", "embed", str(work / "corpus.db")], check=True
        )
    result["search"] = search_latency(work / "corpus.db")
    result["corpus_mb"] = round((work / "corpus.db").stat().st_size / 1e6, 1)
    result["load_after"] = round(os.getloadavg()[0], 1)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(json.dumps({k: v for k, v in result.items() if k != "rounds"}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
