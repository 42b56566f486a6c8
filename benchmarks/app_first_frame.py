"""Time to the app's first useful frame on a real database, as whole processes.

Each run starts a fresh interpreter that imports the app (:func:`specbrowser.tui.app.make_app`),
opens the database headless (Textual's ``run_test``, 120×40) and stops the clock when the
browser screen shows its first chunk; the time counts from before the import, so imports,
opening the database, building the tree's top level and rendering the first chunk are in it
(interpreter start-up is not). Token counting in the background is off, as in the tests.

With ``--compare DIR`` each run is paired with a run of the package in ``DIR`` (another
checkout, e.g. a worktree of an older commit), alternating, so both see the same machine; the
ratio is per pair. ``--compare-db`` gives the other checkout its own database (one it wrote:
a newer schema is upgraded in place when opened, which an older checkout cannot read).
Medians of ``--repeat`` runs, in seconds.

    python benchmarks/app_first_frame.py DB [--repeat 5] [--compare DIR [--compare-db DB]]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = """
import time
start = time.perf_counter()
import asyncio, sys
from pathlib import Path
from specbrowser.tui.app import make_app

async def main() -> float:
    app = make_app(Path(sys.argv[1]), cursor_blink=False, count_tokens=False)
    async with app.run_test(size=(120, 40)) as pilot:
        while True:
            screen = app.screen
            if type(screen).__name__ == "BrowserScreen" and screen.chunk_view.chunk is not None:
                await pilot.pause()
                return time.perf_counter() - start
            await pilot.pause(0.01)

print(asyncio.run(main()))
"""


def first_frame(db: Path, package_root: Path) -> float:
    """Seconds to the first chunk on screen, importing specbrowser from ``package_root``."""
    env = {**os.environ, "PYTHONPATH": str(package_root)}
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(db)],
        env=env,
        check=True,
        capture_output=True,
        text=True,
        cwd=package_root,
    )
    return float(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("db", type=Path, help="a database written by specbrowser ingest")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--compare", type=Path, help="another checkout to pair each run with")
    parser.add_argument(
        "--compare-db",
        type=Path,
        help="the database the other checkout opens (default: DB; give one it wrote when the "
        "two read different schemas)",
    )
    args = parser.parse_args()
    print(f"{platform.platform()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    here, there, ratios = [], [], []
    for _ in range(args.repeat):
        if args.compare is not None:
            there.append(first_frame(args.compare_db or args.db, args.compare.resolve()))
        here.append(first_frame(args.db, ROOT))
        if args.compare is not None:
            ratios.append(here[-1] / there[-1])
    print(f"first frame, this checkout: median {statistics.median(here):.3f} s ({here})")
    if args.compare is not None:
        print(f"first frame, {args.compare}: median {statistics.median(there):.3f} s ({there})")
        print(f"ratio this ÷ other, median of pairs: {statistics.median(ratios):.3f}")


if __name__ == "__main__":
    main()
