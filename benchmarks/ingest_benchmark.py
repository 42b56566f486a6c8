"""Ingest speed and memory against the lxml floor, on the real ECMA-262 single page.

Times, in one run, as whole processes (median of ``--repeat`` runs):
  (a) the floor: ``lxml.html`` parse + ``text_content()`` of the single page;
  (b) ``specbrowser ingest`` of the same file into a fresh database (no embeddings);
and prints both, their ratio, and each process's peak RSS; then the same two in one process
(no interpreter start-up or imports), and the stage timings of the last ingest.

    python benchmarks/ingest_benchmark.py [--spec PATH] [--repeat 3] [--strategy guarded|seed]
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SPEC = ROOT.parent / "shared" / "specs" / "ecma262" / "index.html"

FLOOR = """
import sys, lxml.html
parser = lxml.html.HTMLParser(huge_tree=True)
root = lxml.html.fromstring(open(sys.argv[1], 'rb').read(), parser=parser)
text = root.text_content()
"""


def run(argv: list[str]) -> tuple[float, float]:
    """Run a process; return (wall seconds, peak RSS in MB of that process)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    # ru_maxrss of children is the max over all children so far (KiB on Linux)
    return wall, max(peak, before) / 1024


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spec", type=Path, default=DEFAULT_SPEC)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--strategy", choices=("guarded", "seed"), default="guarded")
    args = parser.parse_args()
    if not args.spec.exists():
        print(f"spec not found: {args.spec}", file=sys.stderr)
        return 2
    floor_times, ingest_times = [], []
    floor_peak = ingest_peak = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        # floor first, so the children's max RSS after it is the floor's own peak
        for _ in range(args.repeat):
            wall, floor_peak = run([sys.executable, "-c", FLOOR, str(args.spec)])
            floor_times.append(wall)
        for i in range(args.repeat):
            db = Path(tmp) / f"bench{i}.db"
            wall, ingest_peak = run(
                [
                    *(sys.executable, "-m", "specbrowser", "ingest", str(args.spec)),
                    *("--db", str(db), "--strategy", args.strategy),
                ]
            )
            ingest_times.append(wall)

        sys.path.insert(0, str(ROOT))
        import lxml.html

        from specbrowser.chunking.policy import ChunkPolicy
        from specbrowser.session.ingest import ingest

        in_floor, in_ingest = [], []
        for i in range(args.repeat):
            start = time.perf_counter()
            root = lxml.html.fromstring(
                args.spec.read_bytes(), parser=lxml.html.HTMLParser(huge_tree=True)
            )
            root.text_content()
            in_floor.append(time.perf_counter() - start)
            del root
            policy = ChunkPolicy(strategy=args.strategy)
            result = ingest([args.spec], Path(tmp) / f"stages{i}.db", policy)
            in_ingest.append(result.timings["total"])

    floor, full = statistics.median(floor_times), statistics.median(ingest_times)
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    )
    print(
        f"spec: {args.spec} ({args.spec.stat().st_size / 1e6:.1f} MB), median of {args.repeat}, "
        f"strategy {args.strategy}"
    )
    print()
    print("| measure | wall (s) | peak RSS (MB) |")
    print("|---|---|---|")
    print(f"| (a) floor: lxml parse + text_content() | {floor:.2f} | {floor_peak:.0f} |")
    print(f"| (b) specbrowser ingest (whole process) | {full:.2f} | {ingest_peak:.0f} |")
    print(f"| ratio (b)/(a) | {full / floor:.1f}x | |")
    inf, ini = statistics.median(in_floor), statistics.median(in_ingest)
    print(f"| (a) in-process: parse + text_content() | {inf:.2f} | |")
    print(f"| (b) in-process: ingest() | {ini:.2f} | |")
    print(f"| ratio in-process (b)/(a) | {ini / inf:.1f}x | |")
    print()
    stages = ", ".join(f"{k} {v:.2f} s" for k, v in result.timings.items())
    print(f"in-process stages of one ingest: {stages}")
    print(
        f"sections {result.stats.sections}, chunks {result.stats.chunks}, "
        f"over threshold {result.stats.over_threshold}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
