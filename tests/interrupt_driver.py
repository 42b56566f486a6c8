"""Run one specbrowser command again and again in this process, raising SIGINT at a chosen
event of each run (a Python call, return or C call, counted by ``sys.setprofile``), and print
one JSON line per run: the event, the exit status and what the command said on stderr.

Run by ``tests/unit/test_interrupts.py`` in a child process (its own signal handlers and
profile hook, apart from pytest's):

    python -m tests.interrupt_driver SETUP DB SPREAD -- ARGS

SETUP is a database file copied to DB (the database ARGS name) before each run (``-`` for
none: DB is removed first). Two runs without a signal come first (the second one's line, with
``at`` null, gives the events a run takes and the event of its first commit); then one run per
event: SPREAD events spread evenly over the run, every event within six of the commit, and two
just before the end (the last few events are run()'s own return, outside its try). Each run
leaves a copy of the database as ``DB-EVENT.db``.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import sys
import tempfile
from pathlib import Path

from specbrowser.__main__ import run
from specbrowser.process import COMMITS


def run_once(args: list[str], db: Path, setup: str, at: int | None) -> dict[str, object]:
    """One run of the console script's :func:`~specbrowser.__main__.run` with ``args``; SIGINT
    at event ``at`` (None: never). Stderr is read from file descriptor 2, where the command's
    console writes; a status of -1 means Ctrl-C escaped the command line."""
    db.unlink(missing_ok=True)
    if setup != "-":
        shutil.copyfile(setup, db)
    events = 0
    committed_at: list[int] = []
    commits = len(COMMITS)

    def hook(_frame: object, _event: str, _arg: object) -> None:
        nonlocal events
        events += 1
        if at is not None and events == at:
            signal.raise_signal(signal.SIGINT)
        if not committed_at and len(COMMITS) > commits:
            committed_at.append(events)

    saved = os.dup(2)
    with tempfile.TemporaryFile() as captured:
        os.dup2(captured.fileno(), 2)
        sys.argv = ["specbrowser", *args]
        sys.setprofile(hook)
        try:
            status = run()
        except KeyboardInterrupt:  # raised outside main's own handler (before or after it)
            status = -1
        finally:
            sys.setprofile(None)
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
        captured.seek(0)
        said = captured.read().decode("utf-8", "replace")
    return {"at": at, "status": status, "said": said, "events": events,
            "committed_at": committed_at[0] if committed_at else None}  # fmt: skip


def driver(argv: list[str]) -> None:
    """See the module's docstring."""
    setup, db_name, spread, _dashes, *args = argv
    # Python's own Ctrl-C handler, whatever this process inherited (a shell's background job
    # starts with SIGINT ignored, and then Python installs none)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    db = Path(db_name)
    report = os.fdopen(os.dup(1), "w")
    quiet = os.open(os.devnull, os.O_WRONLY)
    os.dup2(quiet, 1)  # the command's own output
    run_once(args, db, setup, None)  # the first run imports and fills caches: more events
    counted = run_once(args, db, setup, None)
    total, commit = int(counted["events"]), int(counted["committed_at"] or 0)
    points = {5 + total * i // int(spread) for i in range(int(spread))}
    points |= {commit + d for d in range(-6, 7)} | {total - d for d in (20, 80)}
    print(json.dumps(counted), file=report, flush=True)
    # events 1-4 are run()'s own call before its try: no Python code can catch a signal there
    for at in sorted(p for p in points if p > 4):
        result = run_once(args, db, setup, at)
        result["sha256"] = _digest(db)
        print(json.dumps(result), file=report, flush=True)
        if db.exists():  # what the run left, for the test to read
            shutil.copyfile(db, db.with_name(f"{db.stem}-{at}{db.suffix}"))


def _digest(path: Path) -> str | None:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.exists() else None


if __name__ == "__main__":
    driver(sys.argv[1:])
