"""How fast the chunk view shows a chunk's body, driven with Pilot on a real database.

Opens the app headless (Textual's ``run_test``, 120×40, token counting off as in the tests) and
measures, in milliseconds:

- *select*: from asking the browser to go to a chunk (:meth:`BrowserScreen.go_to_chunk`, what
  a followed marker, the jump palette or a search hit does) until its body is on screen (its
  lines rendered, a frame taken), for the largest chunk of the active set and for the chunk
  closest to 5,000 characters; the median of ``--repeat`` selections, each after showing a
  small chunk;
- *keys*: per Down (then Up) key in the tree, from the key press until the view shows the
  chunk under the tree cursor, body included; ``--keys`` presses each way starting at
  ``--start``, p50 / p95 / max (Up revisits the chunks Down showed: a view that keeps
  rendered chunks shows them again without rendering); and the same for a key nothing is
  bound to, which measures the harness (Pilot's key delivery and one frame) alone.

Selections clear the view's render cache first (when it has one), so each is a first visit.

"Body on screen" is the chunk view's own readiness flag (``rendered``; ``_rendered`` in
checkouts before the line view), checked after each ``pilot.pause()``.
With ``--package DIR`` the app is imported from another checkout (e.g. an export of an older
commit), so both are measured by the same script.

    python benchmarks/chunk_view_latency.py DB [--repeat 5] [--keys 30] [--start ID]
        [--package DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import statistics
import sys
import time
from pathlib import Path

DEFAULT_START = "sec-properties-of-the-array-prototype-object"
"""A run of sibling sections of 1–5k characters each (Array.prototype's methods)."""


def _ready(view, chunk_id: str) -> bool:
    """The view shows ``chunk_id`` with its body rendered."""
    if view.chunk is None or view.chunk.id != chunk_id:
        return False
    flag = getattr(type(view), "rendered", None)
    return bool(view.rendered if isinstance(flag, property) else view._rendered)


async def _until_ready(pilot, view, chunk_id: str, timeout: float = 30.0) -> None:
    deadline = time.perf_counter() + timeout
    await pilot.pause()
    while not _ready(view, chunk_id):
        if time.perf_counter() > deadline:
            raise TimeoutError(chunk_id)
        await pilot.pause(0.002)


async def measure(db: Path, repeat: int, keys: int, start: str) -> dict[str, object]:
    from specbrowser.tui.app import make_app

    app = make_app(db, cursor_blink=False, count_tokens=False)
    results: dict[str, object] = {}
    async with app.run_test(size=(120, 40)) as pilot:
        while type(app.screen).__name__ != "BrowserScreen" or app.screen.chunk_view.chunk is None:
            await pilot.pause(0.01)
        screen = app.screen
        view = screen.chunk_view
        sizes = _chunk_sizes(app.session)
        largest = max(sizes, key=sizes.__getitem__)
        near_5k = min(sizes, key=lambda c: abs(sizes[c] - 5000))
        small = min((c for c in sizes if sizes[c] > 200), key=sizes.__getitem__)
        for label, chunk_id in (("largest", largest), ("5k", near_5k)):
            times = []
            for _ in range(repeat):
                screen.go_to_chunk(small)
                await _until_ready(pilot, view, small)
                renders = getattr(view.lines, "_renders", None) if hasattr(view, "lines") else None
                if renders is not None:
                    renders.clear()  # every selection renders afresh, as a first visit does
                began = time.perf_counter()
                screen.go_to_chunk(chunk_id)
                await _until_ready(pilot, view, chunk_id)
                times.append((time.perf_counter() - began) * 1000)
            results[f"select {label}"] = (chunk_id, sizes[chunk_id], times)
        screen.go_to_chunk(start)
        await _until_ready(pilot, view, start)
        screen.chunk_tree.focus()
        await pilot.pause()
        times = []
        for _ in range(keys):  # a key no binding takes: what Pilot and a frame cost alone
            began = time.perf_counter()
            await pilot.press("z")
            await pilot.pause()
            times.append((time.perf_counter() - began) * 1000)
        results["key z (unbound: harness overhead)"] = ([], times)
        for key in ("down", "up"):
            times = []
            shown = []
            for _ in range(keys):
                began = time.perf_counter()
                await pilot.press(key)
                node = screen.chunk_tree.cursor_node
                target = node.data if node is not None else None
                if target is not None:
                    await _until_ready(pilot, view, target)
                    shown.append(sizes.get(target, 0))
                times.append((time.perf_counter() - began) * 1000)
            results[f"key {key}"] = (shown, times)
    return results


def _chunk_sizes(session) -> dict[str, int]:
    """Every chunk of the active set by id → size (characters)."""
    sizes: dict[str, int] = {}
    for top in session.top_level_chunks():
        for chunk in session.descendants(top.id):
            sizes[chunk.id] = chunk.size
    return sizes


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("db", type=Path, help="a database written by specbrowser ingest")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--keys", type=int, default=30)
    parser.add_argument("--start", default=DEFAULT_START)
    parser.add_argument("--package", type=Path, help="import specbrowser from this checkout")
    args = parser.parse_args()
    if args.package is not None:
        sys.path.insert(0, str(args.package.resolve()))
    print(f"{platform.platform()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    results = asyncio.run(measure(args.db, args.repeat, args.keys, args.start))
    for name, value in results.items():
        if name.startswith("select"):
            chunk_id, size, times = value  # type: ignore[misc]
            print(
                f"{name}: {chunk_id} ({size:,} chars): median {statistics.median(times):.0f} ms "
                f"(runs {', '.join(f'{t:.0f}' for t in times)})"
            )
        else:
            shown, times = value  # type: ignore[misc]
            print(
                f"{name}: {len(times)} presses over chunks of {min(shown, default=0):,}–"
                f"{max(shown, default=0):,} chars: p50 {_percentile(times, 0.5):.0f} ms, "
                f"p95 {_percentile(times, 0.95):.0f} ms, max {max(times):.0f} ms"
            )


if __name__ == "__main__":
    main()
