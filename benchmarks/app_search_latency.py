"""How soon the app shows search results after Enter, driven with Pilot on a real database.

Opens the app headless (``run_test``, 120×40, token counting off), opens the search bar (``/``),
types each query, and measures from the Enter key until the result list holds the hits (checked
after each ``pilot.pause()``): per mode, p50 / p95 / max in milliseconds over the queries of
``--queries`` (a TSV or JSONL query file as ``specbrowser eval`` reads; its first ``--limit``
queries). The harness alone (a key nothing is bound to, one frame) is measured too, so the
figure can be read net of Pilot.

    python benchmarks/app_search_latency.py DB [--queries FILE] [--limit 30]
        [--modes lexical,hybrid]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _summary(values: list[float]) -> str:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
    return f"p50 {statistics.median(ordered):.0f} · p95 {p95:.0f} · max {ordered[-1]:.0f}"


async def measure(db: Path, queries: list[str], modes: list[str]) -> dict[str, list[float]]:
    sys.path.insert(0, str(ROOT))
    from textual.widgets import Input

    from specbrowser.tui.app import make_app
    from specbrowser.tui.widgets.search_results import SearchResults

    app = make_app(db, cursor_blink=False, count_tokens=False)
    timings: dict[str, list[float]] = {"harness": []}
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        for _ in range(10):
            start = time.perf_counter()
            await pilot.press("f24")
            await pilot.pause()
            timings["harness"].append((time.perf_counter() - start) * 1000)
        for mode in modes:
            timings[mode] = []
            browser = app.screen
            browser.search_mode = mode  # type: ignore[attr-defined]
            for query in queries:
                await pilot.press("slash")
                await pilot.pause()
                bar = browser.query_one("#search-bar").query_one(Input)
                bar.value = query  # type: ignore[attr-defined]
                results = browser.query_one(SearchResults)
                results.clear_options()
                start = time.perf_counter()
                await pilot.press("enter")
                while results.option_count == 0 and time.perf_counter() - start < 5:
                    await pilot.pause()
                timings[mode].append((time.perf_counter() - start) * 1000)
                await pilot.press("escape")
                await pilot.pause()
    return timings


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("db", type=Path)
    parser.add_argument("--queries", type=Path, default=ROOT / "benchmarks" / "ecma262-queries.tsv")
    parser.add_argument("--limit", type=int, default=30)
    parser.add_argument("--modes", default="lexical,hybrid")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from specbrowser.session.query_file import read_queries

    queries = [q.query for q in read_queries(args.queries)][: args.limit]
    timings = asyncio.run(measure(args.db, queries, args.modes.split(",")))
    for name, values in timings.items():
        print(f"{name:8} {_summary(values)} ms ({len(values)} runs)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
