"""Evaluation query files: queries paired with the ids that answer them.

A query file is TSV with a header line (columns ``query`` and ``expected``, optional
``excerpt``; other columns, such as ``kind``, are ignored), or JSONL with the same keys.
``expected`` holds one or more ids separated by whitespace (a JSON list in JSONL), each a
section id or a chunk id. :mod:`specbrowser.session.evaluate` scores chunk sets on them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, get_args

from specbrowser.errors import QueryFileError

_WORD = re.compile(r"\w")


@dataclass(frozen=True)
class EvalQuery:
    """One query of a query file.

    Attributes:
        query: the text searched.
        expected: the ids that answer it (section or chunk ids), at least one.
        excerpt: a passage of the answer, for the token metrics; None without one.
        line: the query's 1-based line in the file.
    """

    query: str
    expected: tuple[str, ...]
    excerpt: str | None = None
    line: int = 0


def read_queries(path: Path | str) -> list[EvalQuery]:
    """The queries of a TSV or JSONL query file (see the module docstring).

    The format comes from the suffix (``.jsonl``/``.json``: JSONL, ``.tsv``/``.txt``: TSV), else
    from the first line (``{`` starts JSONL, a tab makes TSV). Blank lines and, in TSV, lines
    starting with ``#`` are skipped.

    Raises:
        QueryFileError: the file is missing or unreadable, holds no query, is neither format, or
            a line lacks ``query`` or ``expected`` (the message names the file and line).
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise QueryFileError(f"{path}: no such query file") from None
    except (OSError, UnicodeDecodeError) as error:
        raise QueryFileError(f"{path}: cannot read the query file ({error})") from None
    lines = text.splitlines()
    first = next((line for line in lines if line.strip()), None)
    if first is None:
        raise QueryFileError(f"{path}: the query file is empty")
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".json") or (
        suffix not in (".tsv", ".txt") and first.lstrip()[:1] == "{"
    ):
        queries = _read_jsonl(path, lines)
    elif suffix in (".tsv", ".txt") or "\t" in first:
        queries = _read_tsv(path, lines)
    else:
        raise QueryFileError(
            f"{path}: line 1: not a query file (TSV with a header line naming the query and "
            "expected columns, or JSONL with those keys)"
        )
    if not queries:
        raise QueryFileError(f"{path}: the query file holds no query, only its header")
    return queries


def _read_tsv(path: Path, lines: list[str]) -> list[EvalQuery]:
    header_at = next(i for i, line in enumerate(lines) if line.strip())
    columns = [c.strip().lower() for c in lines[header_at].split("\t")]
    missing = [name for name in ("query", "expected") if name not in columns]
    if missing:
        raise QueryFileError(
            f"{path}: line {header_at + 1}: the header line has no {' or '.join(missing)} column "
            f"(tab-separated; found: {', '.join(repr(c) for c in columns)})"
        )
    at: dict[str, int] = {
        name: columns.index(name) for name in ("query", "expected", "excerpt") if name in columns
    }
    queries: list[EvalQuery] = []
    for index in range(header_at + 1, len(lines)):
        line = lines[index]
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        cells = line.split("\t")

        def cell(name: str, cells: list[str] = cells) -> str:
            position = at.get(name)
            return cells[position].strip() if position is not None and position < len(cells) else ""

        queries.append(
            _query(path, index + 1, cell("query"), cell("expected").split(), cell("excerpt"))
        )
    return queries


def _read_jsonl(path: Path, lines: list[str]) -> list[EvalQuery]:
    queries: list[EvalQuery] = []
    for index, line in enumerate(lines):
        if not line.strip():
            continue
        where = f"{path}: line {index + 1}"
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            raise QueryFileError(f"{where}: not a JSON object ({error.msg})") from None
        if not isinstance(record, dict):
            raise QueryFileError(f"{where}: not a JSON object")
        expected = record.get("expected", "")
        if isinstance(expected, str):
            ids = expected.split()
        elif isinstance(expected, list) and all(isinstance(e, str) for e in expected):
            ids = [e.strip() for e in expected if e.strip()]
        else:
            raise QueryFileError(f"{where}: expected must be an id or a list of ids")
        query, excerpt = record.get("query", ""), record.get("excerpt") or ""
        if not isinstance(query, str) or not isinstance(excerpt, str):
            raise QueryFileError(f"{where}: query and excerpt must be strings")
        queries.append(_query(path, index + 1, query.strip(), ids, excerpt.strip()))
    return queries


def _query(path: Path, line: int, query: str, expected: list[str], excerpt: str) -> EvalQuery:
    if not query:
        raise QueryFileError(f"{path}: line {line}: no query")
    if not expected:
        raise QueryFileError(f"{path}: line {line}: no expected id")
    if excerpt and not _WORD.search(excerpt):
        raise QueryFileError(f"{path}: line {line}: the excerpt has no word")
    return EvalQuery(query, tuple(expected), excerpt or None, line)


def check_expected(
    path: Path | str, queries: Sequence[EvalQuery], known: Callable[[str], bool], what: str
) -> None:
    """Refuse an expected id ``known`` does not accept (``what`` names where it was looked up:
    ``chunk set 1a2b3c``).

    Raises:
        QueryFileError: the first unknown id, with its file and line.
    """
    for query in queries:
        for expected in query.expected:
            if not known(expected):
                raise QueryFileError(
                    f"{path}: line {query.line}: {expected!r} is neither a section id nor a "
                    f"chunk id of {what}"
                )


SplitHalf = Literal["tune", "test"]
"""A half of a query file (:func:`split_queries`): the one a choice is made on (``tune``) and the
one it is reported on (``test``)."""
SPLIT_HALVES: tuple[SplitHalf, ...] = get_args(SplitHalf)
"""The halves in the order :func:`split_queries` returns them."""


def split_queries(queries: Sequence[EvalQuery]) -> tuple[list[EvalQuery], list[EvalQuery]]:
    """The two halves of a query file, ``(tune, test)``: the queries at odd positions (1st,
    3rd, …) and at even ones, so that each half has about the same mix of kinds as the file
    (files are usually grouped by kind) and the split does not change from run to run."""
    return list(queries[0::2]), list(queries[1::2])
