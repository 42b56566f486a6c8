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

- *frames* (on by default, ``--no-frames`` skips them): per key, from the moment the key event
  is posted the way a terminal driver posts it until the end of the first screen update
  (compositor frame, its terminal encoding included) that shows the key's outcome: Down / Up
  the chunk under the tree cursor with its body; ``n`` / ``p`` the next / previous marker
  selected *and scrolled into view*; ``o`` the next chunk over the threshold, body and tree
  cursor. No Pilot sleeps are in these figures (Pilot's ``press`` + ``pause`` sleep at least
  three 20 ms windows, and more while the app uses CPU); keys are ``--gap`` ms apart, as
  distinct presses. ``--during rechunk`` times them while a re-chunk runs in the app (started
  through the browser's Apply callback, :meth:`BrowserScreen.apply_policy`, on a copy of the
  database, one new threshold after another so a job is always running), ``--during embed``
  while the app's embedding job runs (``E``; on a copy of the database). Keys that land
  after a job ended are timed again once the next one runs; the tree is reset after each
  re-chunk (it is rebuilt).
- *held Down*: ``--keys`` Down keys 1/30 s apart (a terminal's key repeat), sent from a
  thread of their own as a terminal driver's input thread sends them, without waiting for the
  app: per key, until a frame's header shows its chunk or a later one; and from the last
  key until a frame shows the last chunk's body.

Selections clear the view's render cache first (when it has one), so each is a first visit.

"Body on screen" is the chunk view's own readiness flag (``rendered``; ``_rendered`` in
checkouts before the line view), checked after each ``pilot.pause()``.
With ``--package DIR`` the app is imported from another checkout (e.g. an export of an older
commit), so both are measured by the same script.

    python benchmarks/chunk_view_latency.py DB [--repeat 5] [--keys 30] [--start ID]
        [--package DIR] [--no-pilot] [--no-frames] [--gap MS] [--during rechunk|embed]
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


async def measure(
    db: Path,
    repeat: int,
    keys: int,
    start: str,
    *,
    pilot_keys: bool = True,
    frames: bool = True,
    gap: float = 0.15,
    during: str | None = None,
) -> dict[str, object]:
    from specbrowser.tui.app import make_app

    app = make_app(db, cursor_blink=False, count_tokens=False)
    results: dict[str, object] = {}
    async with app.run_test(size=(120, 40)) as pilot:
        while type(app.screen).__name__ != "BrowserScreen" or app.screen.chunk_view.chunk is None:
            await pilot.pause(0.01)
        screen = app.screen
        view = screen.chunk_view
        sizes = _chunk_sizes(app.session)
        if during is None:
            await _selections(pilot, screen, sizes, repeat, results)
        if pilot_keys and during is None:
            await _pilot_keys(pilot, screen, sizes, keys, start, results)
        if frames:
            clock = FrameClock(app, screen)
            if during is None:
                await _frame_selections(pilot, clock, screen, sizes, repeat, results)
            await _frame_keys(pilot, clock, screen, sizes, keys, start, gap, during, results)
        del view
    return results


def _selection_targets(sizes: dict[str, int]) -> tuple[str, list[tuple[str, str]]]:
    """The chunk to start each selection from (the smallest over 200 characters), and the
    chunks selected: the largest and the one closest to 5,000 characters, labelled."""
    largest = max(sizes, key=sizes.__getitem__)
    near_5k = min(sizes, key=lambda c: abs(sizes[c] - 5000))
    small = min((c for c in sizes if sizes[c] > 200), key=sizes.__getitem__)
    return small, [("largest", largest), ("5k", near_5k)]


async def _selections(pilot, screen, sizes, repeat: int, results: dict[str, object]) -> None:
    """*select*: the largest chunk and the one closest to 5,000 characters, first visits."""
    view = screen.chunk_view
    small, targets = _selection_targets(sizes)
    for label, chunk_id in targets:
        times = []
        for _ in range(repeat):
            screen.go_to_chunk(small)
            await _until_ready(pilot, view, small)
            _forget_renders(view)  # every selection renders afresh, as a first visit does
            began = time.perf_counter()
            screen.go_to_chunk(chunk_id)
            await _until_ready(pilot, view, chunk_id)
            times.append((time.perf_counter() - began) * 1000)
        results[f"select {label}"] = (chunk_id, sizes[chunk_id], times)


def _forget_renders(view) -> None:
    """Empty the view's render cache (and its chunks rendered ahead), when it has one."""
    lines = getattr(view, "lines", None)
    if lines is None:
        return
    if hasattr(lines, "forget_renders"):
        lines.forget_renders()
    elif getattr(lines, "_renders", None) is not None:
        lines._renders.clear()


async def _frame_selections(pilot, clock, screen, sizes, repeat: int, results) -> None:
    """*select* timed to the frame: from ``go_to_chunk`` to the end of the first frame that
    shows the chunk's body, render cache emptied before each."""
    view = screen.chunk_view
    small, targets = _selection_targets(sizes)
    for label, chunk_id in targets:
        times = []
        for _ in range(repeat):
            screen.go_to_chunk(small)
            await _until_ready(pilot, view, small)
            await pilot.pause(0.2)  # anything rendered ahead is done, then forgotten
            _forget_renders(view)
            clock.done = None
            clock.pending = lambda chunk_id=chunk_id: _ready(view, chunk_id)
            began = time.perf_counter()
            screen.go_to_chunk(chunk_id)
            while clock.done is None:
                await asyncio.sleep(0.001)
            times.append((clock.done - began) * 1000)
        results[f"frame select {label}"] = (chunk_id, sizes[chunk_id], times)


async def _start_at(pilot, screen, start: str, expand: bool) -> None:
    """Show ``start`` with the tree focused on it (expanded when ``expand``)."""
    view = screen.chunk_view
    screen.go_to_chunk(start)
    await _until_ready(pilot, view, start)
    tree = screen.chunk_tree
    if expand and tree.cursor_node is not None and tree.cursor_node.data == start:
        tree.cursor_node.expand()
    tree.focus()
    await pilot.pause()


async def _pilot_keys(pilot, screen, sizes, keys: int, start: str, results) -> None:
    """*keys* as Pilot measures them: press, then pause until the view shows the chunk."""
    view = screen.chunk_view
    await _start_at(pilot, screen, start, expand=False)
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


class FrameClock:
    """Times screen updates of the browser screen.

    Before each update the clock asks :attr:`pending` (a predicate on the app's state); the end
    of the first update that began with it true is :attr:`done`. Each update is also encoded as
    the terminal driver encodes it (the headless driver skips that), so its cost is counted.
    """

    def __init__(self, app, screen) -> None:
        self.pending = None
        self.done: float | None = None
        self.log: list[tuple[float, str | None, bool]] | None = None
        """Each frame's end, the chunk it showed and whether with its body (when a list)."""
        timer = screen._update_timer
        original = timer._callback

        view = screen.chunk_view

        def tick() -> None:
            hit = self.pending is not None and self.pending()
            shown = view.chunk.id if view.chunk is not None else None
            rendered = _ready(view, shown) if shown is not None else False
            original()
            if hit:
                self.done = time.perf_counter()
                self.pending = None
            if self.log is not None:
                self.log.append((time.perf_counter(), shown, rendered))

        timer._callback = tick
        display = app._display

        def encode(on_screen, renderable) -> None:
            display(on_screen, renderable)
            if renderable is not None and hasattr(renderable, "render_segments"):
                renderable.render_segments(app.console)

        app._display = encode

    async def time_key(self, app, key: str, shown, timeout: float = 20.0) -> float | None:
        """Post ``key`` as a terminal driver does; milliseconds until a frame shows ``shown()``
        (None when none did within ``timeout`` seconds)."""
        from textual import events

        self.done = None
        self.pending = shown
        began = time.perf_counter()
        event = events.Key(key, key if len(key) == 1 else None)
        event.set_sender(app)
        app._driver.send_message(event)
        while self.done is None:
            if time.perf_counter() - began > timeout:
                self.pending = None
                return None
            await asyncio.sleep(0.001)
        return (self.done - began) * 1000


def _down_up_shown(screen, before_line: int):
    tree = screen.chunk_tree
    view = screen.chunk_view

    def shown() -> bool:
        node = tree.cursor_node
        return (
            tree.cursor_line != before_line
            and node is not None
            and view.chunk is not None
            and view.chunk.id == node.data
            and _ready(view, node.data)
        )

    return shown


def _marker_shown(screen, index: int):
    view = screen.chunk_view

    def shown() -> bool:
        if view.selected_marker != index:
            return False
        rendered = view.lines.rendered
        spans = rendered.markers.get(index, []) if rendered is not None else []
        if not spans:
            return True
        top = view.lines.scroll_offset.y
        return top <= spans[0][0] < top + view.lines.scrollable_content_region.height

    return shown


def _chunk_shown(screen, chunk_id: str):
    view = screen.chunk_view
    tree = screen.chunk_tree

    def shown() -> bool:
        node = tree.cursor_node
        return _ready(view, chunk_id) and node is not None and node.data == chunk_id

    return shown


async def _held_down(pilot, clock, screen, presses: int, interval: float, results) -> None:
    """Down held: ``presses`` keys ``interval`` seconds apart, not waiting for the app. Per key,
    the time until a frame shows its chunk (or a later key's) in the header; then from the last
    key until a frame shows the last chunk's body."""
    from textual import events

    app = screen.app
    tree = screen.chunk_tree
    first = tree.cursor_line
    order = {}
    for step in range(1, presses + 1):
        node = tree.get_node_at_line(first + step)
        if node is None:
            presses = step - 1
            break
        order[node.data] = step
    clock.log = []
    sent: list[float] = []

    def repeat() -> None:  # a terminal driver's input thread, reading a held key
        began = time.perf_counter()
        for step in range(presses):
            time.sleep(max(0.0, began + step * interval - time.perf_counter()))
            event = events.Key("down", None)
            event.set_sender(app)
            sent.append(time.perf_counter())
            app._driver.send_message(event)

    import threading

    sender = threading.Thread(target=repeat, daemon=True)
    sender.start()
    while sender.is_alive():
        await asyncio.sleep(0.005)
    last = next(chunk for chunk, step in order.items() if step == presses)
    deadline = time.perf_counter() + 10
    while time.perf_counter() < deadline and not any(
        shown == last and rendered for _t, shown, rendered in clock.log
    ):
        await asyncio.sleep(0.005)
    frames, clock.log = clock.log, None
    header = []
    for step, at in enumerate(sent, start=1):
        shown_at = next(
            (t for t, shown, _r in frames if t >= at and order.get(shown, 0) >= step), None
        )
        if shown_at is not None:
            header.append((shown_at - at) * 1000)
    body = next((t for t, shown, rendered in frames if shown == last and rendered), None)
    results[f"held down ({1 / interval:.0f}/s), header per key"] = ([], header)
    if body is not None:
        results["held down, last key to its body"] = ([], [(body - sent[-1]) * 1000])


class _Jobs:
    """Keeps a background job running in the app while keys are timed (``--during``)."""

    def __init__(self, screen, kind: str) -> None:
        self.screen = screen
        self.kind = kind
        self.started = 0

    def running(self) -> bool:
        bar = self.screen.job_bar
        return bar is not None and bar.running(self.kind)

    async def ensure(self, pilot, start: str) -> None:
        """Start a job unless one runs; after a re-chunk's reload, back to ``start``."""
        if self.running():
            return
        from dataclasses import replace

        if self.started:
            await pilot.pause(0.3)  # the finished re-chunk's reload
        screen = self.screen
        if self.kind == "rechunk":
            policy = screen.policy
            screen.apply_policy(replace(policy, threshold=policy.threshold + 37))
        else:
            screen.action_embed()
        self.started += 1
        deadline = time.perf_counter() + 10
        while not self.running() and time.perf_counter() < deadline:
            await pilot.pause(0.01)
        await _start_at(pilot, screen, start, expand=True)
        await pilot.pause(0.2)  # the job past its start-up


async def _frame_keys(
    pilot, clock, screen, sizes, keys: int, start: str, gap: float, during, results
) -> None:
    """Down, Up, n, p and o timed to the frame that shows their outcome."""
    app = screen.app
    tree = screen.chunk_tree
    view = screen.chunk_view
    jobs = _Jobs(screen, during) if during else None
    suffix = f" during {during}" if during else ""
    await _start_at(pilot, screen, start, expand=True)
    for key in ("down", "up", "n", "p", "o"):
        times: list[float] = []
        shown_sizes: list[int] = []
        if key in ("n", "o"):
            await _start_at(pilot, screen, start, expand=True)
        attempts = 0
        while len(times) < keys and attempts < keys * 4:
            attempts += 1
            if jobs is not None:
                await jobs.ensure(pilot, start)
            if key in ("down", "up"):
                shown = _down_up_shown(screen, tree.cursor_line)
            elif key in ("n", "p"):
                count = len(view.markers)
                current = view.selected_marker
                if current is None:
                    index = 0 if key == "n" else count - 1
                else:
                    index = (current + (1 if key == "n" else -1)) % count
                shown = _marker_shown(screen, index)
            else:
                after = view.chunk.ordinal if view.chunk is not None else -1
                target = app.session.next_over_threshold(after)
                if target is None:
                    break
                shown = _chunk_shown(screen, target.id)
            version = screen.shown_version
            elapsed = await clock.time_key(app, key, shown, timeout=20 if jobs is None else 3)
            if elapsed is None:
                if jobs is None or version == screen.shown_version:
                    raise TimeoutError(f"{key}: no frame showed its outcome")
                continue  # a re-chunk's reload replaced the chunk set under the key
            if jobs is None or (jobs.running() and version == screen.shown_version):
                times.append(elapsed)
                if view.chunk is not None:
                    shown_sizes.append(view.chunk.size)
            await asyncio.sleep(gap)
        results[f"frame {key}{suffix}"] = (shown_sizes, times)
    if jobs is None:
        await _start_at(pilot, screen, start, expand=True)
        await pilot.pause(0.3)
        _forget_renders(view)
        await _held_down(pilot, clock, screen, keys, 1 / 30, results)
    if jobs is not None:
        results[f"jobs started ({during})"] = jobs.started
        bar = screen.job_bar
        if bar is not None:
            bar.cancel(during)


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
    parser.add_argument("--no-pilot", action="store_true", help="skip the Pilot-timed keys")
    parser.add_argument("--no-frames", action="store_true", help="skip the frame-timed keys")
    parser.add_argument("--gap", type=float, default=150, help="ms between frame-timed keys")
    parser.add_argument("--during", choices=("rechunk", "embed"), help="time keys during a job")
    args = parser.parse_args()
    if args.package is not None:
        sys.path.insert(0, str(args.package.resolve()))
    print(f"{platform.platform()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    db = args.db
    if args.during is not None:  # the job writes: work on a copy
        import shutil
        import tempfile

        db = Path(tempfile.mkdtemp(prefix="chunk-view-latency-")) / args.db.name
        shutil.copyfile(args.db, db)
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    results = asyncio.run(
        measure(
            db,
            args.repeat,
            args.keys,
            args.start,
            pilot_keys=not args.no_pilot,
            frames=not args.no_frames,
            gap=args.gap / 1000,
            during=args.during,
        )
    )
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for name, value in results.items():
        if isinstance(value, int):
            print(f"{name}: {value}")
        elif name.startswith(("select", "frame select")):
            chunk_id, size, times = value  # type: ignore[misc]
            print(
                f"{name}: {chunk_id} ({size:,} chars): median {statistics.median(times):.0f} ms "
                f"(runs {', '.join(f'{t:.0f}' for t in times)})"
            )
        else:
            shown, times = value  # type: ignore[misc]
            if not times:
                print(f"{name}: no presses timed")
                continue
            over = f" over chunks of {min(shown):,}–{max(shown):,} chars" if shown else ""
            print(
                f"{name}: {len(times)} presses{over}: p50 {_percentile(times, 0.5):.0f} ms, "
                f"p95 {_percentile(times, 0.95):.0f} ms, max {max(times):.0f} ms"
            )


if __name__ == "__main__":
    main()
