"""Ctrl-C tells the truth: a command interrupted before its commit says nothing changed and
the file is as it was; one interrupted after the commit says what it wrote, and the file holds
exactly that (the new chunk set, active when the message says so).

Each test runs ``tests/interrupt_driver.py`` in a child process: the real command line on the
sample spec, with SIGINT raised at many points of a run (spread over the whole run and at every
step around the commit), one run per point.
"""

from __future__ import annotations

import gc
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from specbrowser.cli import main
from specbrowser.process import (
    FIRST_FRAME_SWITCH_INTERVAL_S,
    INTERRUPTED,
    hand_over_normally,
    hand_over_quickly,
    pause_collector,
    resume_collector,
)
from specbrowser.store import open_database
from tests.helpers import ROOT, SAMPLE, needs_toylang

pytestmark = needs_toylang

COMMITTED = re.compile(r"interrupted after the commit: .*chunk set (\w+) \((active|not active)\)")


def interrupted_runs(setup: Path | None, db: Path, args: list[str], spread: int = 8) -> list[dict]:
    """The driver's lines for ``args``: the plain run first, then one per interrupt."""
    env = {**os.environ, "SPECBROWSER_WORKERS": "1"}  # no breakdown workers: one process
    command = [
        sys.executable,
        "-m",
        "tests.interrupt_driver",
        str(setup or "-"),
        str(db),
        str(spread),
    ]
    done = subprocess.run(
        [*command, "--", *args], capture_output=True, text=True, cwd=ROOT, env=env, timeout=300
    )
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def digest(path: Path) -> str | None:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.exists() else None


def check_runs(runs: list[dict], db: Path, before: str | None) -> None:
    """Each interrupted run's message against the file it left."""
    plain, *interrupted = runs
    assert plain["status"] == 0 and plain["committed_at"], plain
    said = {"nothing": 0, "committed": 0}
    for run in interrupted:
        assert run["status"] in (0, 130), run  # never a traceback: Ctrl-C escaped nothing
        if run["status"] == 0:  # the signal came after the command had finished
            continue
        left = db.with_name(f"{db.stem}-{run['at']}{db.suffix}")
        message = run["said"].strip()
        if message == INTERRUPTED:
            said["nothing"] += 1
            assert run["sha256"] == before, run  # byte for byte as it was (or still absent)
            continue
        said["committed"] += 1
        match = COMMITTED.search(message)
        assert match, run
        with open_database(left) as store:
            assert store.sets.has(match[1]), run
            assert (store.active_version() == match[1]) == (match[2] == "active"), run
    assert said["nothing"] and said["committed"], said  # both sides of the commit were hit


def test_ingest_interrupted_anywhere_into_a_new_database(tmp_path: Path) -> None:
    db = tmp_path / "new.db"
    runs = interrupted_runs(None, db, ["ingest", str(SAMPLE), "--db", str(db)])
    check_runs(runs, db, before=None)


def test_ingest_of_another_policy_interrupted_anywhere(tmp_path: Path) -> None:
    setup = tmp_path / "setup.db"
    assert main(["ingest", str(SAMPLE), "--db", str(setup)]) == 0
    db = tmp_path / "added.db"
    args = ["ingest", str(SAMPLE), "--db", str(db), "--threshold", "1500", "--tags", "p"]
    check_runs(interrupted_runs(setup, db, args), db, before=digest(setup))


def test_rechunk_interrupted_anywhere(tmp_path: Path) -> None:
    setup = tmp_path / "setup.db"
    assert main(["ingest", str(SAMPLE), "--db", str(setup)]) == 0
    db = tmp_path / "rechunked.db"
    shutil.copyfile(setup, db)
    args = ["rechunk", str(db), "--threshold", "900", "--tags", "emu-table,p"]
    check_runs(interrupted_runs(setup, db, args), db, before=digest(setup))


def test_the_start_up_pause_of_the_collector_ends_once():
    """The console script pauses the cyclic collector for its imports and the app's first
    screen; resuming turns it on again, and without a pause (tests, a program using the package)
    resuming leaves the collector as it was."""
    assert gc.isenabled()
    frozen = gc.get_freeze_count()
    resume_collector()  # no pause: nothing happens, nothing frozen
    assert gc.isenabled() and gc.get_freeze_count() == frozen
    try:
        pause_collector()
        assert not gc.isenabled()
        resume_collector()
        assert gc.isenabled() and gc.get_freeze_count() > frozen
        gc.disable()
        resume_collector()  # once only
        assert not gc.isenabled()
    finally:
        gc.unfreeze()
        gc.enable()


def test_the_start_up_switch_interval_is_put_back_once():
    """The app's start-up shortens the thread switch interval until its first frame; putting
    it back restores what it was, once, and without a shortening changes nothing."""
    before = sys.getswitchinterval()
    hand_over_normally()  # nothing shortened: nothing changes
    assert sys.getswitchinterval() == before
    try:
        hand_over_quickly()
        hand_over_quickly()  # shortened already: the interval to restore stays the first
        assert sys.getswitchinterval() == pytest.approx(FIRST_FRAME_SWITCH_INTERVAL_S)
        hand_over_normally()
        assert sys.getswitchinterval() == before
        sys.setswitchinterval(0.002)
        hand_over_normally()  # once only
        assert sys.getswitchinterval() == pytest.approx(0.002)
    finally:
        sys.setswitchinterval(before)
