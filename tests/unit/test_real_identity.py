"""Speed work changes no stored byte that matters: digests of ECMA-262's databases.

The digests in ``ecma262_digests.json`` were taken from the code before the ingest and re-chunk
speed work; each test ingests (and re-chunks) the real ECMA-262 with the CLI, in process, and
compares every table a user or an agent reads, row by row in a fixed order, through plain
``sqlite3`` (not through the store, the code under test). Columns that record when or how long
(``ingested_at``, ``created_at``, the stats' timings) are left out.

A change that is meant to change chunks (a new rule, a converter fix) changes these digests
on purpose: regenerate them with ``python -m tests.unit.test_real_identity`` and say why in the
commit.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import sys
from pathlib import Path

import pytest

from specbrowser.cli import main as cli_main
from specbrowser.store.schema import set_fts_table
from tests.helpers import ECMA262

pytestmark = [
    pytest.mark.real,
    pytest.mark.skipif(
        not (ECMA262 / "index.html").exists(),
        reason=f"real specs not found at {ECMA262} (CI has ../shared beside the checkout)",
    ),
]

DIGESTS = Path(__file__).with_name("ecma262_digests.json")

SPEC_TABLES: dict[str, str] = {
    "documents": "SELECT id, title, kind, sha256, sections_sha256 FROM documents ORDER BY id",
    "sections": "SELECT * FROM sections ORDER BY ordinal, id",
    "toc_nodes": (
        "SELECT id, parent_id, depth, title, secnum, target_id, start, [end] FROM toc_nodes "
        "ORDER BY start, id"
    ),
    "mismatches": (
        "SELECT id, kind, section_id, parser_path, toc_path FROM mismatches ORDER BY id"
    ),
    "symbols": (
        "SELECT name, key, kind, rank, section_id, anchor, ordinal FROM symbols "
        "ORDER BY name, key, kind, section_id, anchor, ordinal"
    ),
    "markdown_cache": (
        "SELECT config_key, section_id, markdown, subsections, detail, converter_version "
        "FROM markdown_cache ORDER BY config_key, section_id"
    ),
}
"""Spec-level tables: query per table (every column but times and, since schema 12, the
``document_id`` of the corpus's one spec)."""

SET_TABLES: dict[str, str] = {
    "chunks": (
        "SELECT r.id, r.section_id, r.parent_id, r.subsections, r.depth, r.layer, "
        "r.breakdown_tag, r.ordinal, r.over_threshold, r.threshold_lo, r.threshold_hi, "
        "t.text_hash, t.content_hash, t.title, t.text, t.retrieval_header, t.retrieval_body, "
        "t.size FROM chunk_rows r JOIN texts t ON t.id = r.text_id "
        "WHERE r.policy_version = ? ORDER BY r.ordinal"
    ),
    "chunk_anchors": (  # schema 13 holds them in the rows; read as the table had them
        "SELECT anchor, section_id, chunk_id FROM (SELECT j.value AS anchor, r.section_id, "
        "r.id AS chunk_id, min(r.ordinal) FROM chunk_rows r, json_each(r.anchors) j "
        "WHERE r.policy_version = ? GROUP BY j.value) ORDER BY anchor, section_id"
    ),
}
"""Per chunk set: query per table, the set's policy version as parameter."""

RUNS: dict[str, list[list[str]]] = {
    "single page, default": [["ingest", "{index}"]],
    "single page, re-chunk 2000 tr": [
        ["ingest", "{index}"],
        ["rechunk", "{db}", "--threshold", "2000", "--tags", "emu-table,emu-grammar,tr,p"],
    ],
    "single page, seed 5000": [["ingest", "{index}", "--strategy", "seed"]],
    "ecmarkup source, default": [["ingest", "{source}"]],
}
"""Each run: CLI argument lists, in order, into one fresh database ``{db}``."""


def _digest(rows: list[tuple[object, ...]]) -> str:
    h = hashlib.sha256()
    for row in rows:
        h.update(json.dumps(row, default=repr, ensure_ascii=False).encode())
        h.update(b"\n")
    return h.hexdigest()[:16]


def _fts_vocabulary(db: sqlite3.Connection, version: str) -> list[tuple[object, ...]]:
    """The set's FTS5 index as (term, column, documents, occurrences) rows, through
    ``fts5vocab`` (independent of the texts' rowids)."""
    table = set_fts_table(version)
    db.execute("DROP TABLE IF EXISTS temp.vocab")
    db.execute(f"CREATE VIRTUAL TABLE temp.vocab USING fts5vocab(main, [{table}], 'col')")
    return db.execute("SELECT term, col, doc, cnt FROM temp.vocab ORDER BY term, col").fetchall()


def database_digests(path: Path) -> dict[str, str]:
    """Digest per spec-level table and per chunk-set table of every stored set, with each
    set's settings (``set <version>: settings``)."""
    db = sqlite3.connect(path)
    try:
        out = {name: _digest(db.execute(sql).fetchall()) for name, sql in SPEC_TABLES.items()}
        for version, settings in db.execute(
            "SELECT version, settings FROM policies ORDER BY version"
        ).fetchall():
            out[f"set {version}: settings"] = _digest([(settings,)])
            for name, sql in SET_TABLES.items():
                out[f"set {version}: {name}"] = _digest(db.execute(sql, (version,)).fetchall())
            out[f"set {version}: fts"] = _digest(_fts_vocabulary(db, version))
    finally:
        db.close()
    return out


def run_digests(name: str, tmp: Path) -> dict[str, str]:
    """Run one entry of :data:`RUNS` into ``tmp/<n>.db`` and digest the database."""
    db = tmp / f"{abs(hash(name))}.db"
    paths = {
        "index": str(ECMA262 / "index.html"),
        "source": str(ECMA262 / "source" / "spec.html"),
        "db": str(db),
    }
    for argv in RUNS[name]:
        args = [a.format(**paths) for a in argv]
        if args[0] == "ingest":
            args += ["--db", str(db)]
        assert cli_main(args) == 0, args
    return database_digests(db)


@pytest.mark.parametrize("name", list(RUNS))
def test_stored_databases_are_unchanged(name, tmp_path):
    expected = json.loads(DIGESTS.read_text())[name]
    got = run_digests(name, tmp_path)
    differing = sorted(k for k in expected.keys() | got.keys() if expected.get(k) != got.get(k))
    assert not differing, f"{name}: tables that differ: {differing}"


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        table = {name: run_digests(name, Path(tmp)) for name in RUNS}
    DIGESTS.write_text(json.dumps(table, indent=1, sort_keys=True) + "\n")
    print(f"wrote {DIGESTS}", file=sys.stderr)
