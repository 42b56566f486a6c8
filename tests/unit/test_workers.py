"""Breakdown spread over processes (specbrowser.chunking.parallel): same results, errors and
interrupts handled, no child left behind."""

from __future__ import annotations

import os
import sys
import threading
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from specbrowser.chunking import parallel as workers
from specbrowser.chunking.policy import ChunkPolicy
from specbrowser.errors import PolicyError, SpecParseError
from specbrowser.session.ingest import ingest
from specbrowser.session.rechunk import rechunk
from tests.helpers import SAMPLE

linux_only = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="work is split over forked processes on Linux only"
)


@pytest.fixture
def always_split(monkeypatch):
    """Split any job over two processes, however small and whatever the core count."""
    monkeypatch.setattr(workers, "MIN_WEIGHT", 0)
    monkeypatch.setattr(workers, "usable_cores", lambda: 2)


@pytest.fixture
def forked(monkeypatch) -> list[int]:
    """The pids of the children split_map forks during the test."""
    pids: list[int] = []
    fork = workers._fork

    def recording(*args):
        pid, fd = fork(*args)
        pids.append(pid)
        return pid, fd

    monkeypatch.setattr(workers, "_fork", recording)
    return pids


def _all_reaped(pids: list[int]) -> bool:
    """Every child has been waited for (no zombie, none running)."""
    for pid in pids:
        try:
            os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            continue
        return False
    return bool(pids)


PARENT = os.getpid()


def _pid_of_item(item: int) -> tuple[int, int]:
    time.sleep(0.005)  # long enough for the child to take some items too
    return item * item, os.getpid()


@linux_only
def test_split_map_returns_results_in_item_order_from_two_processes(always_split, forked):
    seen: list[tuple[int, int]] = []
    results = workers.split_map(
        _pid_of_item, list(range(40)), list(range(40)), lambda n, of: seen.append((n, of))
    )
    assert [square for square, _ in results] == [i * i for i in range(40)]
    pids = {pid for _, pid in results}
    assert os.getpid() in pids and len(pids) == 2  # some items were computed elsewhere
    taken = [n for n, _ in seen]
    assert taken == sorted(taken) and taken[-1] == 40 and {of for _, of in seen} == {40}
    assert _all_reaped(forked)


@pytest.mark.parametrize("split", [True, False], ids=["two processes", "this process"])
def test_meanwhile_runs_once_here_before_this_process_takes_an_item(monkeypatch, split):
    if split:
        if not sys.platform.startswith("linux"):
            pytest.skip("work is split over forked processes on Linux only")
        monkeypatch.setattr(workers, "MIN_WEIGHT", 0)
        monkeypatch.setattr(workers, "usable_cores", lambda: 2)
    items = [[i] for i in range(30)]
    events: list[str] = []

    def meanwhile() -> None:
        time.sleep(0.05)  # the child (when there is one) takes items meanwhile
        events.append(f"meanwhile {os.getpid()} saw {sum(len(i) for i in items)}")

    def func(item: list[int]) -> tuple[int, int]:
        events.append(f"item {os.getpid()}")  # seen here only for this process's items
        item.append(0)  # items change as they are computed
        return item[0], os.getpid()

    results = workers.split_map(func, items, [1] * 30, meanwhile=meanwhile)
    assert [r for r, _ in results] == list(range(30))
    assert events[0] == f"meanwhile {os.getpid()} saw 30"  # first, once, on unchanged items
    assert [e for e in events if e.startswith("meanwhile")] == events[:1]
    elsewhere = {pid for _, pid in results} - {os.getpid()}
    assert bool(elsewhere) is split  # the child took items while this process was busy


def test_small_jobs_and_one_core_stay_in_this_process(monkeypatch):
    assert workers.worker_count(workers.MIN_WEIGHT - 1) == 1
    monkeypatch.setattr(workers, "usable_cores", lambda: 1)
    assert workers.worker_count(10**9) == 1
    results = workers.split_map(_pid_of_item, [1, 2, 3], [10**9] * 3)
    assert {pid for _, pid in results} == {os.getpid()}


@pytest.mark.parametrize("value, expected", [("1", 1), ("2", 2), (" 3 ", 3), ("", 4)])
def test_the_environment_caps_the_process_count(monkeypatch, value, expected):
    monkeypatch.setattr(workers, "usable_cores", lambda: 64)
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setenv(workers.WORKERS_ENV, value)
    assert workers.worker_count(10**9) == expected


@pytest.mark.parametrize("value", ["0", "two", "-1", "1.5", "²", "٣", "+2", "1_0"])
def test_a_bad_process_count_in_the_environment_is_one_clear_error(monkeypatch, value):
    monkeypatch.setenv(workers.WORKERS_ENV, value)
    with pytest.raises(PolicyError, match="SPECBROWSER_WORKERS must be a whole number from 1"):
        workers.worker_count(10)


def test_the_cli_checks_the_process_count_before_any_work(tmp_path, monkeypatch, capsys):
    from specbrowser.cli import main

    monkeypatch.setenv(workers.WORKERS_ENV, "²")
    db = tmp_path / "never.db"
    assert main(["ingest", str(SAMPLE), "--db", str(db)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "SPECBROWSER_WORKERS must be a whole number from 1" in err[0]
    assert not db.exists()


@linux_only
def test_a_child_dies_with_its_parent(tmp_path):
    """A parent killed outright (SIGKILL runs no cleanup) takes its busy workers with it."""
    import signal
    import subprocess

    script = tmp_path / "parent.py"
    pids = tmp_path / "pids"
    script.write_text(f"""
import os, time
from specbrowser.chunking import parallel as workers
workers.MIN_WEIGHT = 0
workers.usable_cores = lambda: 2
fork = workers._fork
def recording(*args):
    pid, fd = fork(*args)
    open({str(pids)!r}, "w").write(str(pid))
    return pid, fd
workers._fork = recording
workers.split_map(lambda item: time.sleep(60), [1, 2], [1, 1])
""")
    parent = subprocess.Popen([sys.executable, str(script)])
    deadline = time.monotonic() + 20
    while not (pids.exists() and pids.read_text()) and time.monotonic() < deadline:
        time.sleep(0.05)
    child = int(pids.read_text())
    time.sleep(0.2)  # the child is past its setup, sleeping in its item
    parent.send_signal(signal.SIGKILL)
    parent.wait()
    deadline = time.monotonic() + 5
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    try:
        assert not _alive(child)
    finally:
        if _alive(child):
            os.kill(child, signal.SIGKILL)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(") ")[1][0] != "Z"  # a zombie is dead, not yet reaped
    except FileNotFoundError:
        return False


@linux_only
def test_a_call_from_another_thread_stays_in_this_process(always_split):
    found: list[list[tuple[int, int]]] = []
    thread = threading.Thread(
        target=lambda: found.append(workers.split_map(_pid_of_item, [1, 2, 3], [1, 1, 1]))
    )
    thread.start()
    thread.join()
    assert {pid for _, pid in found[0]} == {os.getpid()}


def test_worker_count_is_capped(monkeypatch):
    monkeypatch.setattr(workers, "usable_cores", lambda: 64)
    expected = workers.MAX_WORKERS if sys.platform.startswith("linux") else 1
    assert workers.worker_count(10**9) == expected


def _fail_in_child(kind: str):
    def func(item: int) -> int:
        time.sleep(0.005)
        if os.getpid() != PARENT:
            if kind == "user":
                raise SpecParseError(f"item {item} cannot be read")
            if kind == "crash":
                raise ValueError("boom")
            os._exit(3)
        return item

    return func


@linux_only
@pytest.mark.parametrize(
    "kind, error, message",
    [
        ("user", SpecParseError, r"item \d+ cannot be read"),  # its class and message
        ("crash", RuntimeError, "ValueError: boom"),  # named
        ("die", RuntimeError, "ended without a whole result"),
    ],
)
def test_a_failing_child_is_reported_here(always_split, forked, kind, error, message):
    with pytest.raises(error, match=message):
        workers.split_map(_fail_in_child(kind), list(range(40)), [1] * 40)
    assert _all_reaped(forked)


@linux_only
def test_an_error_here_kills_and_reaps_the_children(always_split, forked):
    def slow_there_failing_here(item: int) -> int:
        if os.getpid() == PARENT:
            raise KeyboardInterrupt  # Ctrl-C in this process
        time.sleep(30)
        return item

    started = time.perf_counter()
    with pytest.raises(KeyboardInterrupt):
        workers.split_map(slow_there_failing_here, list(range(4)), [1] * 4)
    assert time.perf_counter() - started < 10  # the child was not waited for
    assert _all_reaped(forked)


@linux_only
def test_a_queue_the_pipe_cannot_hold_runs_here(always_split, monkeypatch):
    monkeypatch.setattr(workers, "_queue", lambda order: None)
    results = workers.split_map(_pid_of_item, list(range(5)), [1] * 5)
    assert {pid for _, pid in results} == {os.getpid()}


def _chunk_rows(db, version: str) -> list[tuple]:
    return list(
        db.db.execute("SELECT * FROM chunks WHERE policy_version = ? ORDER BY ordinal", [version])
    )


@linux_only
@pytest.mark.parametrize(
    "policy",
    [
        ChunkPolicy(threshold=400),
        ChunkPolicy(threshold=150, breakdown_tags=("emu-grammar", "tr", "li", "p")),
    ],
    ids=lambda p: p.describe(),
)
def test_split_ingests_and_rechunks_equal_single_process_ones(
    tmp_path, monkeypatch, forked, policy
):
    alone, split = tmp_path / "alone.db", tmp_path / "split.db"
    ingest([SAMPLE], alone, policy)
    monkeypatch.setattr(workers, "MIN_WEIGHT", 0)
    monkeypatch.setattr(workers, "usable_cores", lambda: 2)
    ingest([SAMPLE], split, policy)
    from specbrowser.store import open_database

    a, b = open_database(alone), open_database(split)
    try:
        assert _chunk_rows(a, policy.version) == _chunk_rows(b, policy.version)
        assert list(a.db.execute("SELECT * FROM markdown_cache ORDER BY section_id")) == list(
            b.db.execute("SELECT * FROM markdown_cache ORDER BY section_id")
        )
        other = ChunkPolicy(
            threshold=policy.threshold + 97, breakdown_tags=("emu-table", "li", "p")
        )
        rechunk(b, other, copy_stored=False)
        monkeypatch.setattr(workers, "MIN_WEIGHT", 10**12)
        rechunk(a, other, copy_stored=False)
        assert _chunk_rows(a, other.version) == _chunk_rows(b, other.version)
    finally:
        a.close()
        b.close()
    assert _all_reaped(forked)


def test_the_pipeline_imports_without_the_linux_only_modules():
    """Windows has neither fcntl nor termios: the pipeline must still import (and run in one
    process there)."""
    import subprocess

    probe = (
        "import sys; sys.modules['fcntl'] = sys.modules['termios'] = None; "
        "import specbrowser.session.ingest, specbrowser.session.rechunk"
    )
    subprocess.run([sys.executable, "-c", probe], check=True)


def _square(item: int) -> int:
    return item * item


@linux_only
@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.integers(min_value=-(10**6), max_value=10**6), max_size=80),
    st.integers(min_value=2, max_value=4),
    st.data(),
)
def test_property_split_map_is_map_whatever_the_weights_and_process_count(items, processes, data):
    weights = data.draw(
        st.lists(
            st.integers(min_value=0, max_value=10**6), min_size=len(items), max_size=len(items)
        )
    )
    seen: list[int] = []
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(workers, "MIN_WEIGHT", 0)
        patch.setattr(workers, "usable_cores", lambda: processes)
        results = workers.split_map(_square, items, weights, lambda n, of: seen.append(n))
    assert results == [_square(item) for item in items]
    assert seen == sorted(seen) and all(1 <= n <= len(items) for n in seen)


@linux_only
def test_ctrl_c_during_a_fork_interrupts_the_run_and_reaps_the_child(always_split, monkeypatch):
    import signal

    pids: list[int] = []
    fork = workers._fork

    def interrupted_fork(*args):
        pid, fd = fork(*args)
        pids.append(pid)
        signal.raise_signal(signal.SIGINT)  # as if it came while the child was being made
        return pid, fd

    monkeypatch.setattr(workers, "_fork", interrupted_fork)
    # Python's own Ctrl-C handler, whatever the test process inherited (a background job
    # starts with SIGINT ignored)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            workers.split_map(_pid_of_item, list(range(20)), [1] * 20)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert _all_reaped(pids)  # the child was known when the interrupt was raised
