"""Connections: sqlite-vec loads where the driver can; without it everything else still works."""

from __future__ import annotations

import types

from specbrowser.cli import main
from specbrowser.store import connection, open_database
from tests.helpers import write_spec


def test_vector_extension_loads_with_the_preferred_driver(tmp_path):
    connected = connection.connect(tmp_path / "v.db")
    if connection.DRIVER.__name__ == "sqlite3" and not hasattr(
        connected.conn, "enable_load_extension"
    ):
        assert "cannot load extensions" in connected.vector_error
    else:
        assert connected.vector_error is None
        assert connected.conn.execute("select vec_version()").fetchone()[0].startswith("v")


def test_the_extension_is_the_packages_and_opening_a_database_imports_no_numpy(tmp_path):
    import importlib.util
    import subprocess
    import sys

    if importlib.util.find_spec("sqlite_vec") is None:
        assert connection.vector_extension_path() is None
        return
    import sqlite_vec

    assert str(connection.vector_extension_path()) == sqlite_vec.loadable_path()
    probe = (
        "import sys\nfrom specbrowser.store import connection\n"
        f"c = connection.connect({str(tmp_path / 'n.db')!r})\n"
        "print(c.vector_error, 'numpy' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.stdout.split() == ["None", "False"], done.stderr


def test_C22_python_without_enable_load_extension(tmp_path, monkeypatch, capsys):
    no_extensions = types.SimpleNamespace()  # like a sqlite3 built without extension loading
    assert "cannot load extensions" in connection.load_vector_extension(no_extensions)

    real_connect = connection.DRIVER.connect

    class Plain:
        """A connection whose enable_load_extension is missing (AttributeError)."""

        def __init__(self, *args, **kwargs):
            self._conn = real_connect(*args, **kwargs)

        def __getattr__(self, name):
            if name == "enable_load_extension":
                raise AttributeError(name)
            return getattr(self._conn, name)

    monkeypatch.setattr(connection.DRIVER, "connect", lambda *a, **k: Plain(*a, **k))
    spec = write_spec(
        tmp_path, '<emu-clause id="a"><h1>A</h1><p>lexical still works</p></emu-clause>'
    )
    db_path = tmp_path / "n.db"
    assert main(["ingest", str(spec), "--db", str(db_path)]) == 0
    db = open_database(db_path)
    assert "semantic search is off" in db.vector_error
    assert db.db.execute("select count(*) from chunks").fetchone()[0] == 2


def test_a_locked_database_is_reported_after_one_busy_wait_not_two(tmp_path, monkeypatch):
    """Opening waited out the busy timeout twice (10.6 s with 5 s) before it said "locked":
    connect's cache-size pragma reads the schema, waited, and its error was swallowed."""
    import time

    import pytest

    from specbrowser.errors import DatabaseError

    path = tmp_path / "db.db"
    open_database(path, create=True).close()
    monkeypatch.setattr(connection, "BUSY_TIMEOUT_S", 1.0)
    blocker = connection.DRIVER.connect(str(path))  # the same SQLite library: locks are seen
    # the file to itself: the one lock that stops reads of a database in write-ahead-log mode
    blocker.execute("PRAGMA locking_mode = EXCLUSIVE")
    blocker.execute("BEGIN EXCLUSIVE")
    try:
        start = time.perf_counter()
        with pytest.raises(DatabaseError, match="is locked by another process"):
            open_database(path)
        assert time.perf_counter() - start < 1.8  # one wait of 1 s, not two
    finally:
        blocker.rollback()
        blocker.close()
