"""Every SQL statement of the package lives in ``specbrowser/store/``.

Scans the package's source outside the store for calls that run SQL (``.execute(``,
``.executemany(``, ``.executescript(``, sqlite-utils' ``.query(``), for the sqlite-utils
database itself (``.atomic(``, ``.table_names(``, ``.conn``, ``db["table"]``) and for string
literals that
read like SQL (SELECT … FROM, INSERT INTO, UPDATE … SET, DELETE FROM, CREATE TABLE/INDEX/VIEW,
DROP TABLE, PRAGMA). Textual's DOM ``query(`` on a widget or app is not SQL and is allowed.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import specbrowser

PACKAGE = Path(specbrowser.__file__).parent
STORE = PACKAGE / "store"

SQL_CALLS = {"execute", "executemany", "executescript"}
"""Methods that run SQL whatever the receiver."""

DATABASE_CALLS = {"atomic", "table_names", "create_view", "enable_fts", "rows_where"}
"""sqlite-utils ``Database``/``Table`` methods: the store's to call (a write goes through
``SpecStore.transaction``)."""

SQL_TEXT = re.compile(
    r"\bSELECT\b[\s\S]+\bFROM\b|\bINSERT\s+(OR\s+\w+\s+)?INTO\b|\bUPDATE\s+\w+\s+SET\b"
    r"|\bDELETE\s+FROM\b|\bCREATE\s+(VIRTUAL\s+|TEMP\s+)?(TABLE|INDEX|VIEW|TRIGGER)\b"
    r"|\bDROP\s+(TABLE|INDEX|VIEW|TRIGGER)\b|\bPRAGMA\s+\w+",
)
"""SQL keywords as a statement uses them (upper case, as specbrowser writes SQL; prose such as
"select a chunk from the list" is lower case)."""


def _outside_store() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if STORE not in p.parents)


def _docstrings(tree: ast.AST) -> set[int]:
    """ids of the string constants that are docstrings (prose, never run)."""
    found: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list):
            for statement in body:
                if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
                    found.add(id(statement.value))
    return found


def _is_sqlite_utils_query(call: ast.Call) -> bool:
    """``x.query("…")`` with a string first argument: sqlite-utils' ``Database.query`` (Textual's
    ``query`` takes a selector too, but on ``self``/widgets; SQL text is caught either way)."""
    func = call.func
    return (
        isinstance(func, ast.Attribute)
        and func.attr == "query"
        and bool(call.args)
        and isinstance(call.args[0], (ast.Constant, ast.JoinedStr))
        and SQL_TEXT.search(ast.unparse(call.args[0])) is not None
    )


def sql_outside_store() -> list[str]:
    """``file:line: what`` for every SQL call or SQL-looking string outside the store."""
    problems: list[str] = []
    for path in _outside_store():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        docstrings = _docstrings(tree)
        where = path.relative_to(PACKAGE.parent)
        in_fstrings = {
            id(part)
            for node in ast.walk(tree)
            if isinstance(node, ast.JoinedStr)
            for part in node.values
        }
        found: list[tuple[int, str]] = []
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                if node.func.attr in SQL_CALLS | DATABASE_CALLS:
                    found.append((node.lineno, f".{node.func.attr}("))
                elif _is_sqlite_utils_query(node):
                    found.append((node.lineno, ".query( with SQL"))
            elif isinstance(node, ast.Attribute) and node.attr == "conn":
                found.append((node.lineno, "a connection used directly (.conn)"))
            elif isinstance(node, ast.Subscript) and _is_table_lookup(node):
                found.append((node.lineno, "a table looked up by name"))
            elif isinstance(node, (ast.Constant, ast.JoinedStr)) and id(node) not in in_fstrings:
                text = _text(node)
                if text is not None and id(node) not in docstrings and SQL_TEXT.search(text):
                    found.append((node.lineno, f"SQL in a string: {text[:60]!r}"))
        problems += [f"{where}:{line}: {what}" for line, what in sorted(found)]
    return problems


def _text(node: ast.Constant | ast.JoinedStr) -> str | None:
    """A string literal's text (an f-string's with ``{…}`` for each placeholder), else None."""
    if isinstance(node, ast.JoinedStr):
        return "".join(
            part.value if isinstance(part, ast.Constant) else "{…}" for part in node.values
        )
    return node.value if isinstance(node.value, str) else None


def _is_table_lookup(node: ast.Subscript) -> bool:
    """``db["table"]`` (sqlite-utils' table by name) on something called ``db``."""
    return (
        isinstance(node.value, (ast.Name, ast.Attribute))
        and ast.unparse(node.value).split(".")[-1] == "db"
        and isinstance(node.slice, ast.Constant)
        and isinstance(node.slice.value, str)
    )


def test_no_sql_outside_the_store() -> None:
    problems = sql_outside_store()
    assert not problems, "SQL outside specbrowser/store/:\n" + "\n".join(problems)


def test_the_scan_finds_sql(tmp_path: Path, monkeypatch) -> None:
    """The scan itself: each kind of SQL is reported by line; docstrings, the store and
    Textual's ``query`` are not."""
    package = tmp_path / "specbrowser"
    (package / "store").mkdir(parents=True)
    (package / "store" / "ok.py").write_text('db.execute("SELECT 1 FROM t")\n')
    lines = [
        '"""SELECT a FROM b in a docstring is prose."""',
        'db.execute("x")',
        'rows = "SELECT id FROM chunks"',
        "store.db.conn.executemany(q, [])",
        'n = db["sections"].count',
        'self.query("#id")',
        'sql = f"SELECT {columns} FROM chunks"',
        "with db.atomic():",
        "    pass",
    ]
    (package / "session.py").write_text("\n".join(lines) + "\n")
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", package)
    monkeypatch.setattr(sys.modules[__name__], "STORE", package / "store")
    found = {line.split(": ", 1)[0] for line in sql_outside_store()}
    assert found == {f"specbrowser/session.py:{n}" for n in (2, 3, 4, 5, 7, 8)}
