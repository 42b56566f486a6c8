"""Re-chunk speed against one lxml parse of the source, on the real ECMA-262 single page.

The database is ingested once with another policy (threshold 3000) so that every measured
policy is a new chunk set; each measurement starts from a fresh copy of it, flushed to disk
first (:func:`fresh_copy`). Three ways, each
for three policies:

- ``full``: ``use_cache=False, copy_stored=False``: every section parsed, converted and broken
  down, as an ingest does;
- ``cache``: ``copy_stored=False``: the Markdown cache (filled by the ingest) spares parsing and
  converting the sections that stay whole, and restores the others' conversions;
- ``copy`` (what ``specbrowser rechunk`` and the app do): the cache, and the chunk trees the
  stored set already has for the new policy are copied, not broken down again
  (:mod:`specbrowser.store.reuse`); the sections still to break down are spread over the cores
  (:mod:`specbrowser.chunking.parallel`);
- ``copy, 1 process``: the same with ``SPECBROWSER_WORKERS=1``, all in one process (what
  ``copy`` did before the work was spread).

``full`` and ``cache`` spread their breakdowns over the cores too.

Each run is paired with a parse (``lxml.html.parse`` of the source file, timed without freeing
the tree, which is not part of parsing) just before it, so both see the same machine: the
timings on this 2-core VM move by a third from minute to minute. Per row, medians of
``--repeat`` runs, in seconds:

- re-chunk: everything the call does (load sections, TOC and cache, plan the copies, breakdown,
  document chunk, stats, the write transaction with the FTS5 index) = ``total``;
- compute: ``load`` + ``chunk`` (no writes); store: the write transaction alone;
- ÷ parse: the median of each run's re-chunk over its paired parse;
- copied: sections whose chunk trees were copied; new texts: the set's texts the database did
  not hold (the only texts written, with their FTS5 entries).

    python benchmarks/rechunk_benchmark.py [--spec PATH] [--repeat 5] [--strategy guarded|seed]

``--strategy`` applies to the ingest of the stored set and to every measured policy.
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SPEC = ROOT.parent / "shared" / "specs" / "ecma262" / "index.html"

POLICIES: dict[str, dict[str, object]] = {
    "default (5000, emu-table,emu-grammar,td,p)": {"threshold": 5000},
    "5000, emu-table,emu-grammar,tr,p": {
        "threshold": 5000,
        "breakdown_tags": ("emu-table", "emu-grammar", "tr", "p"),
    },
    "2000, emu-table,emu-grammar,tr,p": {
        "threshold": 2000,
        "breakdown_tags": ("emu-table", "emu-grammar", "tr", "p"),
    },
    "1000, emu-table,emu-grammar,td,li,p": {
        "threshold": 1000,
        "breakdown_tags": ("emu-table", "emu-grammar", "td", "li", "p"),
    },
}
WAYS: dict[str, tuple[dict[str, bool], str]] = {  # way: rechunk's flags, SPECBROWSER_WORKERS
    "full": ({"use_cache": False, "copy_stored": False}, ""),
    "cache": ({"use_cache": True, "copy_stored": False}, ""),
    "copy, 1 process": ({"use_cache": True, "copy_stored": True}, "1"),
    "copy": ({"use_cache": True, "copy_stored": True}, ""),
}


def fresh_copy(source: Path, target: Path) -> None:
    """Copy the base database and flush the copy to disk: else the re-chunk's commit, whose
    fsync flushes the whole file, would also write out the 40 MB copy (+0.045 s measured)."""
    shutil.copyfile(source, target)
    fd = os.open(target, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def parse_seconds(spec: Path) -> float:
    """One ``lxml.html.parse`` of ``spec``; the tree is freed after the timer stops."""
    import lxml.html

    gc.collect()
    start = time.perf_counter()
    tree = lxml.html.parse(str(spec), parser=lxml.html.HTMLParser(huge_tree=True))
    elapsed = time.perf_counter() - start
    del tree
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spec", type=Path, default=DEFAULT_SPEC)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--strategy", choices=("guarded", "seed"), default="guarded")
    args = parser.parse_args()
    if not args.spec.exists():
        print(f"spec not found: {args.spec}", file=sys.stderr)
        return 2
    sys.path.insert(0, str(ROOT))
    from rich.console import Console
    from rich.table import Table

    from specbrowser.chunking.parallel import WORKERS_ENV
    from specbrowser.chunking.policy import ChunkPolicy
    from specbrowser.session.ingest import ingest
    from specbrowser.session.rechunk import rechunk
    from specbrowser.store import open_database

    table = Table(
        title=f"Re-chunk of {args.spec.name} from stored sections vs one lxml parse "
        f"(paired); medians of {args.repeat}; strategy {args.strategy}",
        title_justify="left",
    )
    for name in (
        "policy",
        "way",
        "chunks",
        "copied",
        "new texts",
        "load s",
        "chunk s",
        "store s",
        "re-chunk s",
        "parse s",
        "÷ parse",
        "compute ÷ parse",
    ):
        table.add_column(name, justify="left" if name in ("policy", "way") else "right")
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "base.db"
        ingest([args.spec], base, ChunkPolicy(threshold=3000, strategy=args.strategy))
        for label, options in POLICIES.items():
            policy = ChunkPolicy(**options, strategy=args.strategy)  # type: ignore[arg-type]
            for way, (flags, workers) in WAYS.items():
                os.environ[WORKERS_ENV] = workers
                runs, parses = [], []
                for i in range(args.repeat):
                    copy = Path(tmp) / f"run{i}.db"
                    fresh_copy(base, copy)
                    parses.append(parse_seconds(args.spec))
                    db = open_database(copy)
                    runs.append(rechunk(db, policy, **flags))
                    db.close()
                    copy.unlink()
                timing = {
                    k: statistics.median(r.timings[k] for r in runs)
                    for k in ("load", "chunk", "store", "total")
                }
                ratio = statistics.median(
                    r.timings["total"] / p for r, p in zip(runs, parses, strict=True)
                )
                compute = statistics.median(
                    (r.timings["load"] + r.timings["chunk"]) / p
                    for r, p in zip(runs, parses, strict=True)
                )
                first = runs[0]
                table.add_row(
                    label,
                    way,
                    f"{first.stats.chunks:,}",
                    f"{first.copied_sections:,}",
                    f"{first.new_texts:,}",
                    f"{timing['load']:.3f}",
                    f"{timing['chunk']:.3f}",
                    f"{timing['store']:.3f}",
                    f"{timing['total']:.3f}",
                    f"{statistics.median(parses):.3f}",
                    f"{ratio:.2f}",
                    f"{compute:.2f}",
                )
    console = Console(width=170)
    console.print(table)
    console.print(
        f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}, {platform.system()}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
