"""Whole-process ingest and re-chunk against the lxml floor, in alternating pairs.

Each pair runs the floor (a fresh interpreter: ``lxml.html`` parse of the spec with
``huge_tree=True``, then ``text_content()``) and the command, one right after the other, so both
see the same machine; the ratio is taken per pair and the table gives the median over the pairs
(and the medians of the walls, and the largest peak RSS of each side), and beside it the CPU
seconds (user + system, the breakdown's worker processes included) and their ratio per pair: on
a machine shared with other work, a command spread over two processes waits for a core more
than the one-process floor does, so its wall ratio grows with the load and its CPU ratio far
less. Every command writes a
fresh database: ``ingest`` into a new file, ``rechunk`` into a new copy of one database ingested
before the pairs with the default policy (copied and flushed before the pair starts, so the copy
is not timed). Nothing is cached between runs but what the operating system caches for every
process alike (the spec file, the interpreter, the packages) and Python's bytecode of the
package, as an installed package has it: one untimed run before the pairs writes it, and
``PYTHONDONTWRITEBYTECODE`` is left out of the processes' environment (set, every run would
compile the package's modules again: about 0.05 s).

    python benchmarks/paired_benchmark.py ingest  [--pairs 5] [--spec PATH] [--package DIR]
    python benchmarks/paired_benchmark.py rechunk [--pairs 5] [--threshold 2000]
        [--tags emu-table,emu-grammar,tr,p]

``--spec`` is a spec file or a multipage spec's folder (the floor then parses each of its
``.html`` files, in one process), or the name of a spec of ``../shared/specs``
(:data:`SHARED_SPECS`: ``fetch``, ``rfc9110``, ``temporal-source`` …), or ``all`` for each of
them in turn; it may be given several times (one table per spec).

``--package DIR`` runs the command from another checkout (its ``specbrowser`` on
``PYTHONPATH``), e.g. a ``git worktree`` of an older commit, for before/after tables.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SPECS_FOLDER = ROOT.parent / "shared" / "specs"
DEFAULT_SPEC = SPECS_FOLDER / "ecma262" / "index.html"

SHARED_SPECS: dict[str, Path] = {
    "ecma262": DEFAULT_SPEC,
    "ecma262-multipage": SPECS_FOLDER / "ecma262" / "multipage",
    "ecma262-source": SPECS_FOLDER / "ecma262" / "source",
    "import-attributes": SPECS_FOLDER / "proposal-import-attributes" / "index.html",
    "import-attributes-source": SPECS_FOLDER / "proposal-import-attributes" / "source",
    "temporal": SPECS_FOLDER / "proposal-temporal" / "index.html",
    "temporal-source": SPECS_FOLDER / "proposal-temporal" / "source",
    "fetch": SPECS_FOLDER / "whatwg-fetch" / "index.html",
    "webauthn": SPECS_FOLDER / "webauthn" / "index.html",
    "rfc9110": SPECS_FOLDER / "rfc9110" / "index.html",
}
"""The specs of ``../shared/specs`` (its MANIFEST.md) by the names ``--spec`` takes."""

FLOOR = (
    "import sys, lxml.html\n"
    "parser = lxml.html.HTMLParser(huge_tree=True)\n"
    "for path in sys.argv[1:]:\n"
    "    root = lxml.html.fromstring(open(path, 'rb').read(), parser=parser)\n"
    "    text = root.text_content()\n"
)
"""The floor's program: every file named on its command line parsed and its text taken."""


def spec_files(spec: Path) -> list[Path]:
    """The HTML files the floor parses: the spec file, or every ``.html`` file of a spec folder
    (a multipage spec: what ``specbrowser ingest FOLDER`` reads), in name order; for an
    ecmarkup source folder (a ``spec.html`` or ``spec.emu``), every file below it."""
    if spec.is_dir():
        if (spec / "spec.html").is_file() or (spec / "spec.emu").is_file():
            return sorted([*spec.rglob("*.html"), *spec.rglob("*.emu")])
        return sorted(spec.glob("*.html"))
    return [spec]


def run(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float, float]:
    """Run one process to its end in ``cwd`` (not the checkout: ``python -m`` puts the working
    folder first on the path, which would shadow ``--package``); (wall seconds, its own peak
    RSS in MB, CPU seconds: user + system of it and of the children it waited for, the
    breakdown's workers). Raises ``SystemExit`` with its stderr when it fails."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        argv, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    stderr = proc.stderr.read().decode() if proc.stderr else ""
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(argv)} failed:\n{stderr}")
    return wall, usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime  # maxrss: KiB


def flushed_copy(source: Path, target: Path) -> None:
    """Copy a database and flush it, so the command's own fsync does not write the copy."""
    shutil.copyfile(source, target)
    with open(target, "rb+") as handle:
        os.fsync(handle.fileno())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=("ingest", "rechunk"))
    parser.add_argument("--spec", action="append", help="path, shared spec name, or all")
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--package", type=Path, default=ROOT, help="checkout to run")
    parser.add_argument("--threshold", default="2000", help="rechunk: --threshold")
    parser.add_argument("--tags", default="emu-table,emu-grammar,tr,p", help="rechunk: --tags")
    args = parser.parse_args()
    specs: list[Path] = []
    for given in args.spec or [str(DEFAULT_SPEC)]:
        specs += (
            list(SHARED_SPECS.values())
            if given == "all"
            else [SHARED_SPECS.get(given, Path(given))]
        )
    for spec in specs:
        if not spec.exists():
            print(f"spec not found: {spec}", file=sys.stderr)
            return 2
    for index, spec in enumerate(specs):
        if index:
            print()
        status = bench(args, spec.resolve())  # the processes run in a temporary folder
        if status:
            return status
    return 0


def bench(args: argparse.Namespace, spec: Path) -> int:
    """Run the pairs for one spec and print its table; 2 when the spec has no HTML file."""
    args.spec = spec
    files = spec_files(args.spec)
    if not files:
        print(f"no .html file in {args.spec}", file=sys.stderr)
        return 2
    env = {**os.environ, "PYTHONPATH": str(args.package.resolve())}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed package has its bytecode cached
    cli = [sys.executable, "-m", "specbrowser"]
    floor_walls, walls, ratios, floor_peaks, peaks = [], [], [], [], []
    floor_cpus, cpus, cpu_ratios = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "base.db"
        run([*cli, "ingest", str(args.spec), "--db", str(base)], env, Path(tmp))  # warm-up
        if args.command == "rechunk":  # and the re-chunk's own modules, on a copy
            flushed_copy(base, Path(tmp) / "warm.db")
            run(
                [*cli, "rechunk", str(Path(tmp) / "warm.db"), "--threshold", "1999"], env, Path(tmp)
            )
        for i in range(args.pairs):
            db = Path(tmp) / f"run{i}.db"
            if args.command == "ingest":
                argv = [*cli, "ingest", str(args.spec), "--db", str(db)]
            else:
                flushed_copy(base, db)
                argv = [*cli, "rechunk", str(db), "--threshold", args.threshold]
                argv += ["--tags", args.tags]
            floor_wall, floor_peak, floor_cpu = run(
                [sys.executable, "-c", FLOOR, *map(str, files)], env, Path(tmp)
            )
            wall, peak, cpu = run(argv, env, Path(tmp))
            floor_cpus.append(floor_cpu)
            cpus.append(cpu)
            cpu_ratios.append(cpu / floor_cpu)
            floor_walls.append(floor_wall)
            walls.append(wall)
            ratios.append(wall / floor_wall)
            floor_peaks.append(floor_peak)
            peaks.append(peak)
            db.unlink()
            print(
                f"pair {i + 1}: floor {floor_wall:.2f} s, {args.command} {wall:.2f} s, "
                f"{wall / floor_wall:.2f}x, peak {peak:.0f} MB",
                file=sys.stderr,
            )
    load = os.getloadavg()[0]
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}, load average {load:.1f}; package {args.package}"
    )
    what = "ingest" if args.command == "ingest" else f"rechunk {args.threshold}/{args.tags}"
    size = sum(path.stat().st_size for path in files) / 1e6
    name = (
        args.spec.relative_to(SPECS_FOLDER.resolve())
        if args.spec.is_relative_to(SPECS_FOLDER.resolve())
        else args.spec.name
    )
    print(f"spec: {name} ({len(files)} file(s), {size:.1f} MB), {args.pairs} pairs")
    print()
    print(
        "| measure | median wall (s) | ratio to floor, median of pairs (min–max) | peak RSS (MB) "
        "| median CPU (s) | CPU ratio, median |"
    )
    print("|---|---:|---:|---:|---:|---:|")
    print(
        f"| floor: lxml parse + text_content() | {statistics.median(floor_walls):.2f} | "
        f"1.0x | {max(floor_peaks):.0f} | {statistics.median(floor_cpus):.2f} | 1.0x |"
    )
    print(
        f"| specbrowser {what} | {statistics.median(walls):.2f} | "
        f"**{statistics.median(ratios):.2f}x** ({min(ratios):.2f}–{max(ratios):.2f}) | "
        f"{max(peaks):.0f} | {statistics.median(cpus):.2f} | "
        f"{statistics.median(cpu_ratios):.2f}x |"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
