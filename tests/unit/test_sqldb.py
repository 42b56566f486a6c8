"""``SqlDatabase.execute`` keeps sqlite-utils' transaction rules (the store relied on them when
it held a ``sqlite_utils.Database``): a write outside a transaction commits at once, a failed
one leaves no transaction open, a write inside one is left to it."""

from __future__ import annotations

import sqlite3

import pytest

from specbrowser.store.sqldb import SqlDatabase, first_keyword


@pytest.fixture
def two(tmp_path):
    """A SqlDatabase on a file with one table, and a second plain connection to read it."""
    path = tmp_path / "t.db"
    db = SqlDatabase(sqlite3.connect(path))
    db.execute("CREATE TABLE t (a INTEGER PRIMARY KEY)")
    other = sqlite3.connect(path)
    yield db, other
    other.close()
    db.close()


def test_a_write_outside_a_transaction_commits_at_once(two):
    db, other = two
    db.execute("INSERT INTO t (a) VALUES (?)", [1])
    assert not db.conn.in_transaction
    assert other.execute("SELECT a FROM t").fetchall() == [(1,)]


def test_a_failed_write_leaves_no_transaction_open(two):
    db, other = two
    db.execute("INSERT INTO t (a) VALUES (1)")
    with pytest.raises(sqlite3.IntegrityError):
        db.execute("INSERT INTO t (a) VALUES (1)")
    assert not db.conn.in_transaction
    db.execute("INSERT INTO t (a) VALUES (2)")  # not captured by a dangling transaction
    assert other.execute("SELECT a FROM t ORDER BY a").fetchall() == [(1,), (2,)]


def test_a_write_inside_a_transaction_is_left_to_it(two):
    db, other = two
    db.execute("BEGIN")
    db.execute("INSERT INTO t (a) VALUES (3)")
    assert db.conn.in_transaction
    assert other.execute("SELECT a FROM t").fetchall() == []
    db.rollback()
    assert db.execute("SELECT a FROM t").fetchall() == []


def test_a_savepoint_through_sqlite_utils_nests_in_the_transaction(two):
    db, other = two
    db.execute("BEGIN")
    with db.atomic():
        db.execute("INSERT INTO t (a) VALUES (4)")
    assert db.conn.in_transaction  # the savepoint released, the outer transaction still open
    db.execute("COMMIT")
    assert other.execute("SELECT a FROM t").fetchall() == [(4,)]


@pytest.mark.parametrize(
    ("sql", "keyword"),
    [
        ("select 1", "SELECT"),
        ("  \n\tBEGIN IMMEDIATE", "BEGIN"),
        ("-- a note\nCOMMIT", "COMMIT"),
        ("/* x */ savepoint s1", "SAVEPOINT"),
        ("\ufeff;RELEASE s1", "RELEASE"),
        ("-- only a comment", ""),
        ("/* unclosed", ""),
        ("", ""),
    ],
)
def test_first_keyword_skips_what_the_driver_skips(sql, keyword):
    assert first_keyword(sql) == keyword
