"""Re-chunk speed against one lxml parse of the source, on the real ECMA-262 single page.

In one run: (a) the floor, ``lxml.html.parse`` of the source file; (b) ``specbrowser.rechunk``
from the stored sections for three policies, each without the Markdown cache (``off``:
``use_cache=False``, every section parsed and converted, nothing cached), with a cold cache (the
``markdown_cache`` rows deleted: the re-chunk converts every section and fills the cache) and a
warm one (filled by the ingest). The database is ingested once with another policy (threshold
3000) so that every measured policy is a new chunk set; each measurement starts from a fresh
copy of it. Medians of ``--repeat`` runs, in seconds, with the ratio to the parse:

- re-chunk: everything the call does (load sections, TOC and cache, breakdown, document chunk,
  heading paths, stats, the write transaction with the FTS5 index) = ``total``;
- compute: ``load`` + ``chunk`` (no writes); store: the write transaction alone;
- new texts: the set's texts the database did not hold (schema 5 shares texts between sets, so
  only these are written with their FTS5 entries; the base set, threshold 3000, shares many).

    python benchmarks/rechunk_benchmark.py [--spec PATH] [--repeat 5]
"""

from __future__ import annotations

import argparse
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
    "default (5000, emu-table,emu-grammar,td,p)": {"threshold_chars": 5000},
    "2000, emu-table,emu-grammar,tr,p": {
        "threshold_chars": 2000, "breakdown_tags": ("emu-table", "emu-grammar", "tr", "p")},
    "1000, emu-table,emu-grammar,td,li,p": {
        "threshold_chars": 1000, "breakdown_tags": ("emu-table", "emu-grammar", "td", "li", "p")},
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spec", type=Path, default=DEFAULT_SPEC)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    if not args.spec.exists():
        print(f"spec not found: {args.spec}", file=sys.stderr)
        return 2
    sys.path.insert(0, str(ROOT))
    import lxml.html
    from rich.console import Console
    from rich.table import Table

    from specbrowser.ingest import ingest
    from specbrowser.policy import ChunkPolicy
    from specbrowser.rechunk import rechunk
    from specbrowser.store import open_database

    parses = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        lxml.html.parse(str(args.spec), parser=lxml.html.HTMLParser(huge_tree=True))
        parses.append(time.perf_counter() - start)
    parse = statistics.median(parses)

    table = Table(title=f"Re-chunk of {args.spec.name} from stored sections vs one lxml parse "
                        f"({parse:.3f} s); median of {args.repeat}", title_justify="left")
    for name in ("policy", "cache", "chunks", "new texts", "load s", "chunk s", "store s",
                 "re-chunk s", "÷ parse", "compute ÷ parse"):
        table.add_column(name, justify="left" if name in ("policy", "cache") else "right")
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "base.db"
        ingest([args.spec], base, ChunkPolicy(threshold_chars=3000))
        for label, options in POLICIES.items():
            policy = ChunkPolicy(**options)  # type: ignore[arg-type]
            for cache in ("off", "cold", "warm"):
                runs = []
                for i in range(args.repeat):
                    copy = Path(tmp) / f"run{i}.db"
                    shutil.copyfile(base, copy)
                    db = open_database(copy)
                    if cache == "cold":
                        with db.atomic():
                            db.execute("DELETE FROM markdown_cache")
                    result = rechunk(db, policy, use_cache=cache != "off")
                    db.close()
                    copy.unlink()
                    runs.append(result)
                timing = {k: statistics.median(r.timings[k] for r in runs)
                          for k in ("load", "chunk", "store", "total")}
                compute = statistics.median(r.timings["load"] + r.timings["chunk"] for r in runs)
                table.add_row(label, cache, f"{runs[0].stats['chunks']:,}", f"{runs[0].new_texts:,}",
                              f"{timing['load']:.3f}",
                              f"{timing['chunk']:.3f}", f"{timing['store']:.3f}",
                              f"{timing['total']:.3f}", f"{timing['total'] / parse:.2f}",
                              f"{compute / parse:.2f}")
    console = Console(width=150)
    console.print(table)
    console.print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
                  f"Python {platform.python_version()}, {platform.system()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
