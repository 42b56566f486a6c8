"""Two processes on one database: the command line writes while the app reads and counts;
and a database on read-only media.

The database is in write-ahead-log mode, so reads never block a writer; writes begin with the
write lock and wait for another writer's (a token-count batch, an ingest) instead of failing.
Only a writer that keeps the file to itself past the busy timeout still gets the one-line
"locked" error.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from specbrowser.cli import main
from specbrowser.session import jobs
from specbrowser.store import connection, open_database
from tests.helpers import ROOT, SAMPLE, needs_toylang

pytestmark = [needs_toylang, pytest.mark.serial]


class AppStyleLoad:
    """What the open app does to a database, in threads of this process, until stopped: the
    database watch (``data_version`` and the active set, every 20 ms, on one connection), the
    tree's reads (a set's chunks row by row, slowly), and the token count (the app's job, run
    again and again: its counts are deleted after each run)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.stop = threading.Event()
        self.errors: list[str] = []
        self.counted = 0
        self.threads = [
            threading.Thread(target=self._watch, daemon=True),
            threading.Thread(target=self._count, daemon=True),
        ]

    def __enter__(self) -> AppStyleLoad:
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join(timeout=60)

    def _watch(self) -> None:
        store = open_database(self.path)
        try:
            while not self.stop.is_set():
                store.data_version()
                store.active_version()
                for n, _chunk in enumerate(store.iter_chunks()):
                    if n % 20 == 0:
                        time.sleep(0.002)  # a busy event loop between rows: the read stays open
                time.sleep(0.02)
        except Exception as error:  # reported by the test
            self.errors.append(f"watch: {error}")
        finally:
            store.close()

    def _count(self) -> None:
        try:
            while not self.stop.is_set():
                jobs.run_count_tokens(self.path)
                self.counted += 1
                store = open_database(self.path)
                try:
                    with store.transaction("no token counts"):
                        store.db.execute("DELETE FROM token_counts")
                finally:
                    store.close()
        except Exception as error:  # reported by the test
            self.errors.append(f"count: {error}")


def one_error_line(capsys: pytest.CaptureFixture[str]) -> str:
    captured = capsys.readouterr()
    lines = [line for line in captured.err.splitlines() if line.strip()]
    assert len(lines) == 1, captured.err
    return lines[0]


def command(*args: str) -> subprocess.CompletedProcess[str]:
    """``specbrowser ARGS`` in a child process (this checkout's code, as the tests')."""
    return subprocess.run(
        [sys.executable, "-m", "specbrowser", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "SPECBROWSER_WORKERS": "1"},
        timeout=120,
    )


def test_rechunks_and_ingests_succeed_while_the_app_reads_and_counts_tokens(toylang_db):
    """Ten re-chunks, then five ingests (a new policy each: a set added), each in a child
    process, while this process reads and counts as the app does."""
    with AppStyleLoad(toylang_db) as load:
        runs = [
            command("rechunk", str(toylang_db), "--threshold", str(threshold))
            for threshold in range(300, 1300, 100)
        ]
        runs += [
            command("ingest", str(SAMPLE), "--db", str(toylang_db), "--threshold", str(threshold))
            for threshold in range(1350, 1850, 100)
        ]
    failed = [run.stderr.strip() for run in runs if run.returncode != 0]
    assert not failed, failed
    assert not load.errors, load.errors
    assert load.counted > 0  # the counting went on meanwhile
    with open_database(toylang_db) as db:
        assert db.sets.count() == 16


def test_a_read_does_not_block_a_write(toylang_db, monkeypatch):
    """A read left open on one connection (a cursor part way through the chunks) and a write
    committed on another: in the old journal mode the commit waited for the read to end."""
    monkeypatch.setattr(connection, "BUSY_TIMEOUT_S", 0.1)
    reader = open_database(toylang_db)
    rows = reader.iter_chunks()
    next(rows)  # the statement is open: its read goes on
    writer = open_database(toylang_db)
    try:
        with writer.transaction("a probe"):
            writer.tokens.set_window("probe", 1)
    finally:
        writer.close()
        rows.close()
        reader.close()
    with open_database(toylang_db) as db:
        assert db.tokens.window("probe") == 1


def test_a_closed_database_is_one_file_and_a_copy_has_every_commit(toylang_db, tmp_path):
    keeper = open_database(toylang_db)  # the app, still open
    try:
        assert keeper.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert main(["rechunk", str(toylang_db), "--threshold", "500"]) == 0
        copy = Path(shutil.copyfile(toylang_db, tmp_path / "copy.db"))  # the file alone
        with open_database(copy) as copied, open_database(toylang_db) as original:
            assert copied.active_version() == original.active_version()
            assert copied.sets.count() == 2
    finally:
        keeper.close()
    assert sorted(p.name for p in toylang_db.parent.iterdir() if "toylang" in p.name) == [
        "toylang.db"
    ]


def test_a_writer_holding_the_file_past_the_timeout_is_one_line(toylang_db, capsys, monkeypatch):
    """Another process writing with the file to itself (SQLite's exclusive locking mode, or a
    long write transaction): the command waits out the busy timeout, then says so in one
    line."""
    monkeypatch.setattr(connection, "BUSY_TIMEOUT_S", 0.2)
    hold = (
        f"import sys, {connection.DRIVER.__name__} as driver; c = driver.connect(sys.argv[1]); "
        "c.execute('BEGIN IMMEDIATE'); print('holding', flush=True); sys.stdin.read(); "
        "c.rollback()"
    )
    with subprocess.Popen(
        [sys.executable, "-c", hold, str(toylang_db)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    ) as holder:
        assert holder.stdout and holder.stdin
        assert holder.stdout.readline().strip() == "holding"
        start = time.perf_counter()
        status = main(["rechunk", str(toylang_db), "--threshold", "500"])
        waited = time.perf_counter() - start
        holder.stdin.close()
        holder.wait(timeout=10)
    assert status == 2
    assert one_error_line(capsys) == (
        f"error: {toylang_db} is locked by another process; try again when it is done"
    )
    assert 0.2 <= waited < 3
    with open_database(toylang_db) as db:
        assert db.sets.count() == 1  # nothing written


@pytest.mark.skipif(
    hasattr(os, "geteuid") and os.geteuid() == 0, reason="root writes in a read-only folder"
)
def test_a_database_in_a_folder_nobody_can_write_is_read(toylang_db):
    """A closed database is in write-ahead-log mode; where SQLite cannot make the log's index
    beside it (read-only media), it is read as immutable."""
    folder = toylang_db.parent / "media"
    folder.mkdir()
    path = Path(shutil.move(toylang_db, folder / "toylang.db"))
    folder.chmod(0o555)
    try:
        with open_database(path) as db:
            assert db.sets.count() == 1
    finally:
        folder.chmod(0o755)
