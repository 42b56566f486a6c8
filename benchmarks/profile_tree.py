"""A text flame graph of one specbrowser command: cProfile's call tree, widest calls first.

Runs the command in this process under cProfile with ``SPECBROWSER_WORKERS=1`` (all the work in
one process, where cProfile sees it; the command's real run spreads the breakdown over the
cores), then prints the call tree from the command's handler down: each line a function with its
cumulative seconds and share of the command, children at least ``--min`` of it, to ``--depth``
levels. cProfile slows Python code about twofold; the shares, not the seconds, are what to read.

    python benchmarks/profile_tree.py [--depth 5] [--min 0.02] -- ingest SPEC --db /tmp/x.db
    python benchmarks/profile_tree.py -- rechunk /tmp/x.db --threshold 2000 --tags emu-table,tr

``--package DIR`` profiles another checkout (a ``git worktree`` of an older commit).
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

Key = tuple[str, int, str]


_package = ROOT
"""The checkout profiled (:func:`main` sets it): its path is left out of the names."""


def _name(key: Key) -> str:
    path, line, func = key
    if path == "~":
        return func
    for prefix in (str(_package) + os.sep, sys.prefix + os.sep):
        if path.startswith(prefix):
            path = path[len(prefix) :]
    return f"{path.split('site-packages' + os.sep)[-1]}:{line}({func})"


def print_tree(stats: pstats.Stats, root: Key, depth: int, share: float) -> None:
    """Print the call tree under ``root``: children by cumulative time, those under
    ``share`` of the root left out, ``depth`` levels. A child's time is what the parent's
    calls to it took (cProfile's caller records), so recursion does not count twice."""
    raw = stats.stats  # type: ignore[attr-defined]
    callees: dict[Key, list[tuple[Key, float]]] = {}
    for callee, (_cc, _nc, _tt, _ct, callers) in raw.items():
        for caller, (_c1, _c2, _t, cumulative) in callers.items():
            callees.setdefault(caller, []).append((callee, cumulative))
    total = raw[root][3]

    def walk(key: Key, seconds: float, level: int, seen: frozenset[Key]) -> None:
        bar = "█" * max(1, round(40 * seconds / total))
        print(f"{'  ' * level}{seconds:6.3f} s {100 * seconds / total:5.1f}% {bar} {_name(key)}")
        if level >= depth:
            return
        children = sorted(callees.get(key, []), key=lambda kv: -kv[1])
        for child, child_seconds in children:
            if child_seconds >= share * total and child not in seen:
                walk(child, child_seconds, level + 1, seen | {child})

    walk(root, total, 0, frozenset({root}))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=5)
    parser.add_argument("--min", type=float, default=0.02, help="least share of the command")
    parser.add_argument("--package", type=Path, default=ROOT, help="checkout to profile")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- then the command's args")
    args = parser.parse_args()
    argv = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not argv:
        parser.error("give the command after --, e.g. -- ingest SPEC --db /tmp/x.db")
    os.environ["SPECBROWSER_WORKERS"] = "1"
    global _package
    _package = args.package.resolve()
    sys.path.insert(0, str(_package))
    from specbrowser.cli import main as cli_main

    profile = cProfile.Profile()
    profile.enable()
    status = cli_main(argv)
    profile.disable()
    stats = pstats.Stats(profile)
    handler = f"cmd_{argv[0]}"
    roots = [k for k in stats.stats if k[2] == handler]  # type: ignore[attr-defined]
    if not roots:
        print(f"no function {handler} in the profile", file=sys.stderr)
        return 2
    print(f"specbrowser {' '.join(argv)} (exit {status}), one process, under cProfile")
    print_tree(stats, roots[0], args.depth, args.min)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
