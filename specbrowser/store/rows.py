"""Rows as the store writes them: content-addressed texts, chunk rows, section columns.

A text (title, Markdown, retrieval text) is stored once, whatever the chunk sets that have it;
:func:`store_texts` gives each chunk its text's id and writes only the new ones. Everything here
runs inside the caller's transaction; tables are constants, values are parameters.
"""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING

from specbrowser.chunking.identifiers import text_index_words
from specbrowser.chunking.labels import split_retrieval_text
from specbrowser.model import Chunk
from specbrowser.store.sqldb import SqlDatabase

if TYPE_CHECKING:
    from specbrowser.chunking.enrich import SectionPaths


def content_hash(text: str) -> str:
    """sha256 (hex) of a retrieval text: the key of embeddings and token counts, with the model
    name (:mod:`specbrowser.store.vectors`, :mod:`specbrowser.search.tokens`)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def text_hash(chunk: Chunk) -> str:
    """The key of a chunk's ``texts`` row: sha256 (hex) over its title, text and retrieval
    text (two chunks share a row only when all three are equal)."""
    digest = hashlib.sha256(chunk.title.encode())
    for part in (chunk.text, chunk.retrieval_text):
        digest.update(b"\0")
        digest.update(part.encode())
    return digest.hexdigest()


def store_texts(db: SqlDatabase, chunks: list[Chunk]) -> tuple[list[int], int]:
    """The ``texts.id`` of each chunk (in order), and how many texts were new: those are
    inserted (call inside a transaction), with ids one past the largest, in chunk order."""
    next_id = int(db.execute("SELECT coalesce(max(id), 0) FROM texts").fetchone()[0]) + 1
    keys = [text_hash(chunk) for chunk in chunks]
    known = _text_ids(db, keys, next_id - 1)
    new_rows: list[dict[str, object]] = []
    ids: list[int] = []
    for chunk, key in zip(chunks, keys, strict=True):
        text_id = known.get(key)
        if text_id is None:
            text_id = known[key] = next_id
            next_id += 1
            new_rows.append(
                {
                    "id": text_id,
                    "text_hash": key,
                    "content_hash": content_hash(chunk.retrieval_text),
                    "title": chunk.title,
                    "text": chunk.text,
                    **(parts := _retrieval_parts(chunk.retrieval_text)),
                    "size": chunk.size,
                    "index_words": text_index_words(chunk.title, parts["retrieval_header"]),
                }
            )
        ids.append(text_id)
    insert_rows(db, "texts", new_rows)
    return ids, len(new_rows)


def _text_ids(db: SqlDatabase, keys: list[str], largest_id: int) -> dict[str, int]:
    """The stored ``texts.id`` of those of ``keys`` that are stored. Reads every stored hash
    when ``keys`` are many against the stored texts (one scan beats many lookups there), else looks
    them up by index."""
    if len(keys) * 4 > largest_id:
        return dict(db.execute("SELECT text_hash, id FROM texts").fetchall())
    return dict(
        select_in(
            db, "SELECT text_hash, id FROM texts WHERE text_hash IN", [], list(dict.fromkeys(keys))
        )
    )


IN_BATCH = 500
"""Values per ``IN (...)`` list: well under SQLite's bound-parameter limit."""


def select_in(db: SqlDatabase, sql: str, params: list[object], values: list[str]) -> list[tuple]:
    """The rows of ``sql`` (a constant of specbrowser's ending in ``IN``) for every one of
    ``values``: run once per :data:`IN_BATCH` values, each run's placeholders appended in
    parentheses and bound after ``params``."""
    rows: list[tuple] = []
    for start in range(0, len(values), IN_BATCH):
        batch = values[start : start + IN_BATCH]
        rows += db.execute(f"{sql} ({','.join('?' * len(batch))})", [*params, *batch]).fetchall()
    return rows


def _retrieval_parts(retrieval_text: str) -> dict[str, str]:
    """The ``retrieval_header`` and ``retrieval_body`` columns (stored apart so FTS5 snippets
    come from the body; the ``chunks`` view joins them back into ``retrieval_text``)."""
    header, body = split_retrieval_text(retrieval_text)
    return {"retrieval_header": header, "retrieval_body": body}


def drop_unused_texts(db: SqlDatabase) -> int:
    """Delete the texts no chunk set uses (the sets that indexed them are gone with their FTS5
    indexes); returns how many. Call inside a transaction, after chunk rows were deleted."""
    return db.execute("DELETE FROM texts WHERE id NOT IN (SELECT text_id FROM chunk_rows)").rowcount


MAX_SQL_VARIABLES = 32766
"""SQLite's bound-parameter limit since 3.32 (sqlean bundles a newer SQLite)."""


def insert_rows(db: SqlDatabase, table: str, rows: list[dict[str, object]]) -> None:
    """Insert rows (all with the same keys) in as few statements as the parameter limit allows.

    Why not ``insert_all``: it caps a statement at 999 parameters (52 chunk rows) and builds
    each statement in Python; one statement per 32,766 values is prepared a few times instead of
    hundreds. ``table`` is a constant of specbrowser's, never input.
    """
    if not rows:
        return
    columns = list(rows[0])
    per_statement = max(1, MAX_SQL_VARIABLES // len(columns))
    one_row = "(" + ", ".join("?" * len(columns)) + ")"
    head = f"INSERT INTO [{table}] ({', '.join(f'[{c}]' for c in columns)}) VALUES "
    for start in range(0, len(rows), per_statement):
        batch = rows[start : start + per_statement]
        db.execute(
            head + ", ".join([one_row] * len(batch)), [row[c] for row in batch for c in columns]
        )


def upsert_row(db: SqlDatabase, table: str, row: dict[str, object], pk: str) -> None:
    """Insert ``row``, or update those of its columns on the row with its ``pk`` value, as
    sqlite-utils' ``upsert`` does, in one statement (``INSERT … ON CONFLICT DO UPDATE``,
    SQLite 3.24+): a command that writes one such row does not import sqlite-utils for it
    (35-45 ms). ``table``, ``pk`` and the keys are constants of specbrowser's, never input.
    """
    columns = list(row)
    updates = ", ".join(f"[{c}] = excluded.[{c}]" for c in columns if c != pk)
    on_conflict = f"DO UPDATE SET {updates}" if updates else "DO NOTHING"  # the key alone
    db.execute(
        f"INSERT INTO [{table}] ({', '.join(f'[{c}]' for c in columns)}) "
        f"VALUES ({', '.join('?' * len(columns))}) ON CONFLICT([{pk}]) {on_conflict}",
        list(row.values()),
    )


_to_json = json.JSONEncoder(ensure_ascii=False).encode
_json_string = json.encoder.encode_basestring


def json_strings(values: list[str]) -> str:
    """``json.dumps(values, ensure_ascii=False)`` for a list of strings (ids, titles), the same
    text at a fraction of the cost (a chunk row's subsections, a section's paths)."""
    return "[" + ", ".join(map(_json_string, values)) + "]"


def chunk_row(
    policy_version: str, chunk: Chunk, text_id: int, document_id: str | None = None
) -> dict[str, object]:
    """The ``chunk_rows`` row of a chunk of set ``policy_version`` whose text is ``text_id``,
    of the spec ``document_id``. A subsection's row holds its :attr:`Chunk.anchors` (a JSON list,
    ``[]`` for none); a section's root row and the document chunk's hold NULL there (an id no
    subsection holds is in its section's root chunk)."""
    subsections = chunk.subsections
    lo, hi = chunk.holds_for or (None, None)
    return {
        "policy_version": policy_version,
        "id": chunk.id,
        "section_id": chunk.section_id,
        "parent_id": chunk.parent_id,
        "subsections": json_strings(subsections)
        if all(type(v) is str for v in subsections)
        else _to_json(subsections),
        "depth": chunk.depth,
        "layer": chunk.layer,
        "breakdown_tag": chunk.breakdown_tag,
        "ordinal": chunk.ordinal,
        "over_threshold": chunk.over_threshold,
        "text_id": text_id,
        "threshold_lo": lo,
        "threshold_hi": hi,
        "document_id": document_id,
        "anchors": json_strings(chunk.anchors)
        if chunk.parent_id is not None and chunk.section_id is not None
        else None,
    }


def section_columns(paths: SectionPaths) -> dict[str, dict[str, object]]:
    """What every chunk of a section shares, as ``sections`` columns by section id: the
    parser's heading path, the TOC path, the mismatch kind, the section number (JSON lists as
    text)."""
    return {
        section_id: {
            "heading_path": json_strings(heading),
            "toc_path": json_strings(paths.toc[section_id]) if section_id in paths.toc else None,
            "mismatch": paths.kinds.get(section_id),
            "section_ordinal": paths.ordinal.get(section_id, ""),
        }
        for section_id, heading in paths.heading.items()
    }
