"""Time to the app's first frame on a real database, as a user waits for it: whole processes in
a pseudo-terminal, paired with a bare Textual app started the same way.

Each pair runs ``python -m specbrowser open DB`` and a Textual app that shows one line
(:data:`BARE_APP`), alternating which goes first, each in a pty of 120×40 as a terminal would
run it; the clock starts before the process is spawned and stops when the pty output, escape
sequences stripped, holds the pair's marker: ``--marker`` (a tree label of the spec's first
section: the tree is painted; the default suits ECMA-262) for specbrowser, the bare app's one
line for it. Interpreter start-up, imports, opening the database, the first screen and the
terminal's output are all in it. Bytecode is compiled first (``python -m compileall``: a
machine that sets ``PYTHONDONTWRITEBYTECODE`` would otherwise compile specbrowser on every run).
Each specbrowser run opens a fresh copy of ``DB`` (so a database without token counts has the
app count them in the background, as on a first open). The app then gets ``q`` (the bare one
ctrl+q) and a few seconds to close its database.

Reported: each run's seconds, and the ratio specbrowser ÷ bare per pair with its median (the
target is ≤ 1.5). ``--compare DIR`` runs the specbrowser of another checkout (e.g. an export
of an older commit) as a third member of each pair, for before/after on one machine.

    python benchmarks/app_first_frame.py DB [--pairs 7] [--marker TEXT] [--compare DIR]
"""

from __future__ import annotations

import argparse
import fcntl
import os
import platform
import pty
import re
import select
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

BARE_LINE = "bare textual app: one line"
BARE_APP = f"""
from textual.app import App
from textual.widgets import Static


class Bare(App):
    def compose(self):
        yield Static({BARE_LINE!r})


Bare().run()
"""

ESCAPES = re.compile(
    rb"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[PX^_][^\x1b]*\x1b\\|.)"
)
"""CSI, OSC, DCS/APC and two-byte escape sequences: what a terminal does not print."""

SIZE = (40, 120)
"""The pty's rows and columns."""

TIMEOUT_S = 60.0


def time_to_marker(command: list[str], marker: str, cwd: Path, quit_key: bytes) -> float:
    """Seconds from spawning ``command`` in a new pty until its printed text holds ``marker``;
    then the process is sent ``quit_key`` and waited for (killed after 10 s).

    Raises:
        RuntimeError: the marker did not appear within :data:`TIMEOUT_S` (the output's tail
            is in the message).
    """
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", *SIZE, 0, 0))
    env = {**os.environ, "TERM": "xterm-256color", "PYTHONPATH": str(cwd)}
    env.pop("TEXTUAL", None)
    start = time.perf_counter()
    child = subprocess.Popen(
        command, stdin=slave, stdout=slave, stderr=slave, cwd=cwd, env=env, start_new_session=True
    )
    os.close(slave)
    raw, text, needle = b"", b"", marker.encode()
    elapsed: float | None = None
    try:
        while time.perf_counter() - start < TIMEOUT_S:
            ready, _, _ = select.select([master], [], [], 0.5)
            if not ready:
                continue
            try:
                data = os.read(master, 1 << 16)
            except OSError:  # the child closed the pty
                break
            raw += data
            text = ESCAPES.sub(b"", raw)
            if needle in text:
                elapsed = time.perf_counter() - start
                break
        if elapsed is None:
            raise RuntimeError(f"{marker!r} not seen; output ended {text[-300:]!r}")
        os.write(master, quit_key)
        _drain_until_exit(master, child)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        os.close(master)
    return elapsed


def _drain_until_exit(master: int, child: subprocess.Popen[bytes]) -> None:
    """Read the pty (a child blocks on a full one) until the child exits or 10 s pass."""
    deadline = time.perf_counter() + 10
    while child.poll() is None and time.perf_counter() < deadline:
        ready, _, _ = select.select([master], [], [], 0.1)
        if ready:
            try:
                os.read(master, 1 << 16)
            except OSError:
                break


def compile_bytecode(*folders: Path) -> None:
    """Write the ``.pyc`` files of ``folders`` (as an install does for site-packages)."""
    for folder in folders:
        subprocess.run(
            [sys.executable, "-m", "compileall", "-q", str(folder)],
            check=True,
            env={k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("db", type=Path, help="a database written by specbrowser ingest")
    parser.add_argument("--pairs", type=int, default=7)
    parser.add_argument(
        "--marker",
        default="Scope",
        help="text the painted tree shows (default: ECMA-262's first section's title)",
    )
    parser.add_argument("--compare", type=Path, help="another checkout to run in each pair")
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="first-frame-"))
    db = scratch / "e.db"
    checkouts = [ROOT] + ([args.compare.resolve()] if args.compare else [])
    compile_bytecode(*(c / "specbrowser" for c in checkouts))
    print(f"{platform.platform()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    bare_cmd = [sys.executable, "-c", BARE_APP]
    app_cmd = [sys.executable, "-m", "specbrowser", "open", str(db)]
    runs: dict[str, list[float]] = {"bare": [], **{str(c): [] for c in checkouts}}
    for pair in range(args.pairs):
        members: list[tuple[str, list[str], str, Path, bytes]] = [
            ("bare", bare_cmd, BARE_LINE, ROOT, b"\x11")
        ] + [(str(c), app_cmd, args.marker, c, b"q") for c in checkouts]
        if pair % 2:
            members.reverse()
        for name, command, marker, cwd, quit_key in members:
            for leftover in scratch.iterdir():
                leftover.unlink()
            shutil.copyfile(args.db, db)
            runs[name].append(time_to_marker(command, marker, cwd, quit_key))
    shutil.rmtree(scratch)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    bare = runs.pop("bare")
    print(f"bare Textual app: median {statistics.median(bare):.3f} s {_list(bare)}")
    for name, seconds in runs.items():
        ratios = [s / b for s, b in zip(seconds, bare, strict=True)]
        print(
            f"specbrowser open ({name}): median {statistics.median(seconds):.3f} s {_list(seconds)}"
        )
        print(f"  ratio to bare, per pair: median {statistics.median(ratios):.2f} {_list(ratios)}")


def _list(values: list[float]) -> str:
    return "[" + ", ".join(f"{v:.2f}" for v in values) + "]"


if __name__ == "__main__":
    main()
