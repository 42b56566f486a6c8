"""The database schema: its version, every table, the ``chunks`` view, and the named migrations
that upgrade a database of schema 4 to 7 in place.

See :mod:`specbrowser.store` for what the tables hold and how they are written.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from specbrowser.chunking.identifiers import text_index_words
from specbrowser.model import Chunk
from specbrowser.store.rows import chunk_row, insert_rows, store_texts
from specbrowser.store.sqldb import SqlDatabase

APP_ID = "specbrowser"

log = logging.getLogger("specbrowser")
"""Where an upgrade is reported (level INFO); the command line prints it as one line."""

SCHEMA_VERSION = 13
"""Stored in ``meta``; describes every table of the file. A database of version 4 to 12 is
upgraded when opened (:data:`MIGRATIONS`); any other version is refused with a clear message.
2: several chunk sets per database; chunks gained ``retrieval_text``, ``section_ordinal`` and
the document chunk; documents gained ``sections_sha256``.
3: the document's TOC (``toc_nodes``) and its ``mismatches``; chunks gained ``toc_path`` and
``mismatch``.
4: ``chunks_fts``, an FTS5 index over each chunk's title and retrieval text, kept in sync by
triggers on every insert, update and delete.
5: texts stored once (``texts``, content-addressed by ``text_hash``) and shared by the chunk
sets that have them, so a re-chunk writes only the texts no set had; ``chunk_rows`` hold each
set's structure; ``sections`` hold what every chunk of a section shares (heading path, TOC path,
mismatch, section number); ``chunks`` is a view joining the three; ``texts_fts`` (title,
retrieval header, retrieval body: snippets come from the body) replaces ``chunks_fts``;
``chunk_hashes`` is gone (``texts.content_hash`` is the embedding key).
6: a section's root row in ``chunk_rows`` holds ``threshold_lo`` and ``threshold_hi``, the
thresholds under which the section's chunk tree is the same
(:attr:`specbrowser.model.Chunk.holds_for`), so a re-chunk copies the trees a stored set
already has; the ``sections_outline`` index lists the sections without reading their HTML.
7: the caches that were created on first use are part of the schema: ``markdown_cache`` (each
section's Markdown conversion, :mod:`specbrowser.store.cache`), ``embeddings`` (vectors by
model and retrieval text, :mod:`specbrowser.store.vectors`) and ``token_counts``
(:mod:`specbrowser.store.tokens`). Only ``chunk_vectors``, the sqlite-vec index, is still made
on first use: its column type holds the embedding model's dimension.
8: the symbol index (``symbols``: what the spec defines, by name) and each chunk set's anchor
map (``chunk_anchors``: the element ids that lie in a subsection), see
:mod:`specbrowser.store.symbols`. The migration indexes the stored sections; sets made before
it have no anchor map (their anchors are found by comparing texts).
9: each chunk set has its own FTS5 index (``set_fts_<hash>``, external content over ``texts``,
:func:`build_set_fts`), so a set's BM25 statistics count only its own texts and
storing another set leaves its scores as they were.
10: ``texts_fts`` and its triggers are gone: every set searches its own index since 9, so the
shared one was written on every insert and never read.
11: ``texts.index_words``, the words inside the identifiers of a text's title and header
(:func:`specbrowser.chunking.identifiers.identifier_words`), a fourth column of every set's
FTS5 index (:data:`FTS_COLUMNS`), which is rebuilt with :data:`FTS_TOKENIZER`.
12: a corpus (:mod:`specbrowser.store.corpus`): ``documents`` gained ``name`` (the spec's handle
and id prefix), ``shortname`` and ``canonical_url`` (its identity) and ``position`` (its place in
the corpus); ``chunk_rows``, ``symbols``, ``toc_nodes``, ``mismatches`` and ``chunk_anchors``
gained ``document_id``, the spec they belong to (``chunk_anchors`` is keyed by it).
13: ``chunk_anchors`` is gone: a subsection's row in ``chunk_rows`` holds its own anchors
(``anchors``, a JSON list of the element ids its part of the section holds), so a chunk set's
anchor map is written with its rows and copied with them (a table of its own was a row and two
index entries per id: 2.8 MB and some 60 ms of each ECMA-262 re-chunk)."""

FTS_TOKENIZER = "porter unicode61 remove_diacritics 2"
"""FTS5's Unicode word tokenizer, folding case and diacritics. Spec tokens such as
``Array.prototype.map`` or ``[[Prototype]]`` are split at punctuation and matched as phrases (see
:mod:`specbrowser.search.query`). Chosen over ``tokenchars``, ``porter`` and ``trigram`` variants by
``benchmarks/fts_tokenizer_benchmark.py`` (BENCHMARKS.md "FTS5 tokenizer")."""

FTS_COLUMNS = "title, retrieval_header, retrieval_body, index_words"
"""The ``texts`` columns each chunk set's FTS5 index holds, in order (BM25 weights and
``snippet`` column numbers follow it): the chunk's title, its retrieval header and body, and the
words inside the identifiers of its title and header (``index_words``,
:func:`specbrowser.chunking.identifiers.identifier_words`)."""

CHUNKS_VIEW = """
SELECT r.policy_version, r.id, r.section_id, r.parent_id, r.subsections, r.depth, r.layer,
       r.breakdown_tag, t.title, coalesce(s.heading_path, '[]') AS heading_path, t.text, t.size,
       r.over_threshold, r.ordinal, coalesce(s.section_ordinal, '') AS section_ordinal,
       t.retrieval_header || t.retrieval_body AS retrieval_text, s.toc_path, s.mismatch,
       r.text_id, t.content_hash, r.threshold_lo, r.threshold_hi, r.document_id
FROM chunk_rows r JOIN texts t ON t.id = r.text_id LEFT JOIN sections s ON s.id = r.section_id
"""
"""The ``chunks`` view: one row per chunk of every set, with the columns a chunk had before
schema 5 (what readers select and filter on), plus ``text_id``, ``content_hash`` (sha256 of
the retrieval text: the key of embeddings and token counts), a root row's threshold range and
the ``document_id`` of the spec the chunk belongs to.
Writes go to ``chunk_rows`` and ``texts`` (:meth:`specbrowser.store.sets.ChunkSets.insert`)."""


PAGE_SIZE = 16_384
"""Bytes per database page of a new file (and of one rebuilt by ``VACUUM``): most of a
specbrowser database is text of several KB per row (sections' HTML, chunk texts, cached
conversions), which 4 KB pages (SQLite's default) spread over chains of overflow pages and
write one ``pwrite`` each; larger pages make ingests and re-chunks faster for a file a few per
cent larger (BENCHMARKS.md)."""


def create_schema(db: SqlDatabase) -> None:
    """Create every table of an empty database, in one transaction, with pages of
    :data:`PAGE_SIZE` bytes."""
    db.execute(f"PRAGMA page_size = {PAGE_SIZE}")  # a constant; takes effect on an empty file
    with db.atomic():
        db.table("meta").create({"key": str, "value": str}, pk="key")
        db.table("meta").insert_all(
            [
                {"key": "app", "value": APP_ID},
                {"key": "schema_version", "value": str(SCHEMA_VERSION)},
            ]
        )
        db.table("documents").create(
            {
                "id": str,
                "title": str,
                "kind": str,
                "source_paths": str,
                "sha256": str,
                "sections_sha256": str,
                "ingested_at": str,
                "name": str,
                "shortname": str,
                "canonical_url": str,
                "position": int,
            },
            pk="id",
        )
        db.table("documents").create_index(["name"], index_name="documents_name", unique=True)
        db.table("sections").create(
            {
                "id": str,
                "document_id": str,
                "parent_id": str,
                "ordinal": int,
                "depth": int,
                "kind": str,
                "secnum": str,
                "title": str,
                "html": str,
                "source_file": str,
                "heading_path": str,
                "toc_path": str,
                "mismatch": str,
                "section_ordinal": str,
            },
            pk="id",
        )
        db.table("sections").create_index(["parent_id"], index_name="sections_parent")
        create_sections_outline(db)
        db.table("policies").create(
            {
                "version": str,
                "settings": str,
                "created_at": str,
                "stats": str,
                "active": int,
            },
            pk="version",
        )
        create_chunk_tables(db)
        create_toc_tables(db)
        create_cache_tables(db)
        create_symbol_tables(db)


SYMBOLS_PENDING = "symbols_pending"
"""The ``meta`` key that says the symbol index still has to be read from the stored sections
(set by the schema-8 migration, removed by
:meth:`specbrowser.store.symbols.SymbolIndex.replace`)."""


OUTLINE_COLUMNS = ("ordinal", "id", "parent_id", "depth", "kind", "secnum", "title", "source_file")
"""The ``sections`` columns every section listing reads (all but the HTML and the shared paths)."""


def create_sections_outline(db: SqlDatabase) -> None:
    """The ``sections_outline`` index: the sections in document order with
    :data:`OUTLINE_COLUMNS`, so listing them reads the index, not the rows with their HTML (each
    a page or more), in every re-chunk."""
    db.execute("DROP INDEX IF EXISTS sections_ordinal")  # schema 5's, which this one covers
    db.table("sections").create_index(
        list(OUTLINE_COLUMNS), index_name="sections_outline", if_not_exists=True
    )


def create_chunk_tables(db: SqlDatabase) -> None:
    """``texts``, ``chunk_rows`` and the ``chunks`` view (each set's FTS5 index is made with
    the set, :func:`build_set_fts`)."""
    db.table("texts").create(
        {
            "id": int,
            "text_hash": str,
            "content_hash": str,
            "title": str,
            "text": str,
            "retrieval_header": str,
            "retrieval_body": str,
            "size": int,
            "index_words": str,
        },
        pk="id",
        not_null={"text_hash", "content_hash"},
    )
    db.table("texts").create_index(["text_hash"], index_name="texts_hash", unique=True)
    db.table("texts").create_index(["content_hash"], index_name="texts_content")
    db.table("chunk_rows").create(
        {
            "policy_version": str,
            "id": str,
            "section_id": str,
            "parent_id": str,
            "subsections": str,
            "depth": int,
            "layer": str,
            "breakdown_tag": str,
            "ordinal": int,
            "over_threshold": str,
            "text_id": int,
            "threshold_lo": int,
            "threshold_hi": int,
            "document_id": str,
            "anchors": str,
        },
        pk=("policy_version", "id"),
    )
    for columns, name in (
        (["policy_version", "section_id"], "chunk_rows_section"),
        (["policy_version", "parent_id"], "chunk_rows_parent"),
        (["policy_version", "ordinal"], "chunk_rows_ordinal"),
        (["text_id", "policy_version"], "chunk_rows_text"),
        (["policy_version", "document_id", "ordinal"], "chunk_rows_document"),
    ):
        db.table("chunk_rows").create_index(columns, index_name=name)
    db.create_view("chunks", CHUNKS_VIEW)


def create_toc_tables(db: SqlDatabase) -> None:
    """``toc_nodes`` (the TOC flattened in pre-order) and ``mismatches`` (one row per
    disagreement, document order)."""
    db.table("toc_nodes").create(
        {
            "id": int,
            "parent_id": int,
            "depth": int,
            "title": str,
            "secnum": str,
            "target_id": str,
            "start": int,
            "end": int,
            "document_id": str,
        },
        pk="id",
    )
    db.table("toc_nodes").create_index(["target_id"], index_name="toc_nodes_target")
    db.table("mismatches").create(
        {
            "id": int,
            "kind": str,
            "section_id": str,
            "parser_path": str,
            "toc_path": str,
            "document_id": str,
        },
        pk="id",
    )
    db.table("mismatches").create_index(["kind"], index_name="mismatches_kind")


CHUNK_ANCHORS_TABLE = """CREATE TABLE IF NOT EXISTS chunk_anchors (
    policy_version TEXT NOT NULL,
    document_id TEXT NOT NULL,
    anchor TEXT NOT NULL,
    section_id TEXT NOT NULL,
    chunk_id TEXT NOT NULL,
    PRIMARY KEY (policy_version, document_id, anchor)
) WITHOUT ROWID"""
"""Schemas 8 to 12's anchor map (one row per id of a subsection), made and rebuilt by their
migrations and folded into ``chunk_rows.anchors`` by :func:`_anchors_in_rows`."""

_CHUNK_ANCHORS_12 = (
    CHUNK_ANCHORS_TABLE,
    "CREATE INDEX IF NOT EXISTS chunk_anchors_section ON chunk_anchors "
    "(policy_version, section_id)",
)

SYMBOL_TABLES = (
    """CREATE TABLE IF NOT EXISTS symbols (
    name TEXT NOT NULL,
    key TEXT NOT NULL,
    kind TEXT NOT NULL,
    rank INTEGER NOT NULL,
    section_id TEXT NOT NULL,
    anchor TEXT,
    ordinal INTEGER NOT NULL,
    document_id TEXT
)""",
    "CREATE INDEX IF NOT EXISTS symbols_name ON symbols (name, rank, ordinal)",
    "CREATE INDEX IF NOT EXISTS symbols_key ON symbols (key, rank, ordinal)",
)
"""``symbols``: ``name`` as written, ``key`` its casefolded form (a query typed in another case
still finds it), ``rank`` the kind's place in :data:`~specbrowser.types.SYMBOL_KINDS`
(0: an abstract operation), ``ordinal`` the row's place in the corpus's order, ``document_id``
the spec that defines it (an anchor is one spec's: every lookup names the spec)."""


def create_symbol_tables(db: SqlDatabase) -> None:
    """``symbols`` with its indexes (:data:`SYMBOL_TABLES`)."""
    for statement in SYMBOL_TABLES:
        db.execute(statement)


CACHE_TABLES = (
    """CREATE TABLE IF NOT EXISTS markdown_cache (
    sections_sha256 TEXT NOT NULL,
    config_key TEXT NOT NULL,
    section_id TEXT NOT NULL,
    markdown TEXT NOT NULL,
    subsections TEXT NOT NULL,
    detail BLOB,
    converter_version INTEGER NOT NULL,
    PRIMARY KEY (sections_sha256, config_key, section_id)
)""",
    """CREATE TABLE IF NOT EXISTS embeddings (
    id INTEGER PRIMARY KEY,
    model TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    dim INTEGER NOT NULL,
    vector BLOB NOT NULL,
    truncated INTEGER NOT NULL DEFAULT 0,
    tokens INTEGER,
    UNIQUE (model, content_hash)
)""",
    """CREATE TABLE IF NOT EXISTS token_counts (
    model TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    tokens INTEGER NOT NULL,
    PRIMARY KEY (model, content_hash)
) WITHOUT ROWID""",
)
"""The caches keyed by what they cache, so losing or sharing them is safe:

- ``markdown_cache``: one section's conversion under one Markdown config, keyed by the stored
  sections' digest, the config key and the section id (:mod:`specbrowser.store.cache`);
- ``embeddings``: one vector per (model, sha256 of a retrieval text), with its dimension,
  whether the tokenizer cut the text and its full token count; ``id`` is an aliased rowid
  (it survives VACUUM), the rowid of the text's ``chunk_vectors`` row
  (:mod:`specbrowser.store.vectors`);
- ``token_counts``: a retrieval text's token count under one model
  (:mod:`specbrowser.store.tokens`).

``IF NOT EXISTS``: a schema-6 file may hold them already, made on first use with the same
statements."""


def create_cache_tables(db: SqlDatabase) -> None:
    """``markdown_cache``, ``embeddings`` and ``token_counts`` (:data:`CACHE_TABLES`)."""
    for statement in CACHE_TABLES:
        db.execute(statement)


def _threshold_ranges(db: SqlDatabase) -> None:
    """5 → 6: root rows gain their threshold range. It is known without the breakdown only for
    a section that is one chunk within the threshold (from its size up); the others stay NULL,
    so a re-chunk breaks them down again rather than copy them. The sections gain the
    ``sections_outline`` index."""
    columns = {row[1] for row in db.execute("PRAGMA table_info(chunk_rows)")}
    for column in ("threshold_lo", "threshold_hi"):
        if column not in columns:  # made by 4 → 5 already
            db.execute(f"ALTER TABLE chunk_rows ADD COLUMN [{column}] INTEGER")  # constants
    db.execute("DROP VIEW chunks")
    db.create_view("chunks", CHUNKS_VIEW)
    _whole_section_ranges(db)
    create_sections_outline(db)


def _caches_in_schema(db: SqlDatabase) -> None:
    """6 → 7: the caches made on first use become part of the schema (rows already cached are
    kept)."""
    create_cache_tables(db)


def _symbol_index(db: SqlDatabase) -> None:
    """7 → 8: the symbol index and the (empty) anchor maps. The index is read from the stored
    sections' HTML, which is the formats' work, not the store's: the migration marks it
    pending in ``meta`` (:data:`SYMBOLS_PENDING`), and whoever opens the database fills it
    (:func:`specbrowser.session.stores.open_store`)."""
    create_symbol_tables(db)
    for statement in _CHUNK_ANCHORS_12:
        db.execute(statement)
    db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, '1')", [SYMBOLS_PENDING])


def _whole_section_ranges(db: SqlDatabase) -> None:
    """Set the threshold range of every root row whose section is one chunk within the
    threshold (no over-threshold flag, no chunk extracted from it): from its size up."""
    db.execute(
        "UPDATE chunk_rows "
        "SET threshold_lo = (SELECT size FROM texts WHERE id = chunk_rows.text_id) "
        "WHERE id = section_id AND parent_id IS NULL AND over_threshold IS NULL "
        "AND NOT EXISTS (SELECT 1 FROM chunk_rows c "
        "WHERE c.policy_version = chunk_rows.policy_version AND c.parent_id = chunk_rows.id)"
    )


def _texts_from_chunks(db: SqlDatabase) -> None:
    """4 → 5: every set's chunks move to ``chunk_rows`` and ``texts`` (texts shared by sets
    stored once); the sections take their heading path, TOC path, mismatch and number from the
    active set's root chunks (a TOC is the database's, not a set's); ``chunks_fts``,
    ``chunk_hashes`` and ``chunk_hash_sets`` are dropped. About a second per ECMA-262 set."""
    for column in ("heading_path", "toc_path", "mismatch", "section_ordinal"):
        db.execute(f"ALTER TABLE sections ADD COLUMN [{column}] TEXT")  # constants
    db.execute(
        "UPDATE sections SET heading_path = c.heading_path, toc_path = c.toc_path, "
        "mismatch = c.mismatch, section_ordinal = c.section_ordinal FROM chunks c "
        "WHERE c.id = sections.id AND c.policy_version = (SELECT version FROM policies "
        "ORDER BY active DESC, created_at DESC LIMIT 1)"
    )
    rows = db.execute(
        "SELECT policy_version, id, section_id, parent_id, subsections, depth, layer, "
        "breakdown_tag, title, text, over_threshold, ordinal, retrieval_text FROM chunks "
        "ORDER BY policy_version, ordinal"
    ).fetchall()
    for name in ("chunks_ai", "chunks_ad", "chunks_au"):
        db.execute(f"DROP TRIGGER IF EXISTS [{name}]")
    for name in ("chunks_fts", "chunks", "chunk_hashes", "chunk_hash_sets"):
        db.execute(f"DROP TABLE IF EXISTS [{name}]")
    create_chunk_tables(db)
    by_version: dict[str, list[Chunk]] = {}
    for (
        version_,
        chunk_id,
        section_id,
        parent_id,
        subsections,
        depth,
        layer,
        tag,
        title,
        text,
        over,
        ordinal,
        retrieval,
    ) in rows:
        by_version.setdefault(version_, []).append(
            Chunk(
                id=chunk_id,
                section_id=section_id,
                parent_id=parent_id,
                depth=depth,
                layer=layer,
                breakdown_tag=tag,
                title=title or "",
                heading_path=[],
                text=text or "",
                over_threshold=over,
                subsections=json.loads(subsections or "[]"),
                ordinal=ordinal,
                retrieval_text=retrieval or "",
            )
        )
    for version_, chunks in by_version.items():
        text_ids, _new = store_texts(db, chunks)
        insert_rows(
            db,
            "chunk_rows",
            [chunk_row(version_, c, i) for c, i in zip(chunks, text_ids, strict=True)],
        )


def _fts_per_set(db: SqlDatabase) -> None:
    """8 → 9: an FTS5 index of its own for every stored chunk set (about a second per
    ECMA-262 set), of the three columns ``texts`` then had."""
    for (version_,) in db.execute("SELECT version FROM policies").fetchall():
        build_set_fts(db, version_, columns="title, retrieval_header, retrieval_body")


def _no_shared_fts(db: SqlDatabase) -> None:
    """9 → 10: drop ``texts_fts`` and its triggers (each set has its own index since 9)."""
    for name in ("texts_ai", "texts_ad", "texts_au"):
        db.execute(f"DROP TRIGGER IF EXISTS [{name}]")  # names are constants
    db.execute("DROP TABLE IF EXISTS texts_fts")


def _index_words(db: SqlDatabase) -> None:
    """10 → 11: ``texts.index_words`` for every stored text, and every set's FTS5 index rebuilt
    with it (:data:`FTS_COLUMNS`, :data:`FTS_TOKENIZER`). A ``texts`` table made by an earlier
    migration of the same upgrade has the column already (it is made as it is now)."""
    if "index_words" not in db.table("texts").columns_dict:
        db.execute("ALTER TABLE texts ADD COLUMN index_words TEXT")
    db.conn.executemany(
        "UPDATE texts SET index_words = ? WHERE id = ?",
        [
            (text_index_words(title, header), text_id)
            for text_id, title, header in db.execute(
                "SELECT id, title, retrieval_header FROM texts WHERE index_words IS NULL"
            ).fetchall()
        ],
    )
    for (version_,) in db.execute("SELECT version FROM policies").fetchall():
        build_set_fts(db, version_)


def _corpus(db: SqlDatabase) -> None:
    """11 → 12: the tables of one spec become a corpus's. The stored spec (at most one) gets
    position 0 and a name from its title (:func:`specbrowser.store.corpus.spec_name`; its
    shortname and canonical URL are read at its next ingest); every row of ``chunk_rows``,
    ``symbols``, ``toc_nodes``, ``mismatches`` and ``chunk_anchors`` gets its ``document_id``
    (``chunk_anchors`` is rebuilt: its key gains the column). Ids, ordinals and texts are
    kept, so an upgraded database reads as before."""
    # deferred: corpus imports this module
    from specbrowser.store.corpus import spec_name

    for column, kind in (
        ("name", "TEXT"),
        ("shortname", "TEXT"),
        ("canonical_url", "TEXT"),
        ("position", "INTEGER"),
    ):
        if column not in db.table("documents").columns_dict:
            db.execute(f"ALTER TABLE documents ADD COLUMN [{column}] {kind}")  # constants
    row = db.execute("SELECT id, title FROM documents ORDER BY rowid LIMIT 1").fetchone()
    document_id = row[0] if row else None
    if row is not None:
        db.execute(
            "UPDATE documents SET name = ?, position = 0 WHERE id = ?",
            [spec_name(None, row[1], set()), document_id],
        )
    db.execute("CREATE UNIQUE INDEX IF NOT EXISTS documents_name ON documents (name)")
    for table in ("chunk_rows", "symbols", "toc_nodes", "mismatches"):
        if "document_id" not in db.table(table).columns_dict:
            db.execute(f"ALTER TABLE [{table}] ADD COLUMN document_id TEXT")  # constants
        db.execute(f"UPDATE [{table}] SET document_id = ?", [document_id])  # constants
    db.execute(
        "CREATE INDEX IF NOT EXISTS chunk_rows_document ON chunk_rows "
        "(policy_version, document_id, ordinal)"
    )
    db.execute("DROP VIEW IF EXISTS chunks")
    db.create_view("chunks", CHUNKS_VIEW)
    db.execute("ALTER TABLE chunk_anchors RENAME TO chunk_anchors_11")
    db.execute("DROP INDEX IF EXISTS chunk_anchors_section")
    for statement in _CHUNK_ANCHORS_12:
        db.execute(statement)
    db.execute(
        "INSERT INTO chunk_anchors (policy_version, document_id, anchor, section_id, chunk_id) "
        "SELECT policy_version, ?, anchor, section_id, chunk_id FROM chunk_anchors_11",
        [document_id or ""],
    )
    db.execute("DROP TABLE chunk_anchors_11")


def _anchors_in_rows(db: SqlDatabase) -> None:
    """12 → 13: each set's anchor rows move into its subsections' ``chunk_rows.anchors``, and
    ``chunk_anchors`` is dropped. A set that recorded anchors (it has anchor rows) gets a list on
    every subsection row, ``[]`` for one without ids; a set that did not (made before schema 8)
    keeps NULL there, so it still reads as having no anchor map
    (:meth:`specbrowser.store.symbols.SymbolIndex.has_anchor_map`)."""
    if "anchors" not in db.table("chunk_rows").columns_dict:
        db.execute("ALTER TABLE chunk_rows ADD COLUMN anchors TEXT")
    db.execute(
        "UPDATE chunk_rows SET anchors = CASE WHEN policy_version IN "
        "(SELECT DISTINCT policy_version FROM chunk_anchors) THEN "
        "coalesce((SELECT json_group_array(a.anchor) FROM chunk_anchors a "
        "WHERE a.policy_version = chunk_rows.policy_version AND a.chunk_id = chunk_rows.id), "
        "'[]') END WHERE parent_id IS NOT NULL"
    )
    db.execute("DROP TABLE chunk_anchors")


class Migration(NamedTuple):
    """One schema upgrade: from ``version - 1`` to ``version``, by ``apply`` (inside the
    transaction that also records ``version`` in ``meta``)."""

    version: int
    name: str
    apply: Callable[[SqlDatabase], None]


MIGRATIONS: tuple[Migration, ...] = (
    Migration(5, "texts_shared_by_sets", _texts_from_chunks),
    Migration(6, "threshold_ranges", _threshold_ranges),
    Migration(7, "caches_in_schema", _caches_in_schema),
    Migration(8, "symbol_index", _symbol_index),
    Migration(9, "fts_per_set", _fts_per_set),
    Migration(10, "no_shared_fts", _no_shared_fts),
    Migration(11, "index_words", _index_words),
    Migration(12, "corpus", _corpus),
    Migration(13, "anchors_in_rows", _anchors_in_rows),
)
"""Every upgrade, in order; the last one's version is :data:`SCHEMA_VERSION`. A database of
schema ``v`` gets those above ``v``, each in its own transaction (an interrupted upgrade leaves a
database of the last version reached, which the next open continues from)."""

OLDEST_UPGRADABLE = MIGRATIONS[0].version - 1
"""The oldest schema :func:`migrate` upgrades (older ones are refused)."""


def migrate(db: SqlDatabase, version: int, path: Path) -> bool:
    """Upgrade a database of schema ``version`` to :data:`SCHEMA_VERSION` by the
    :data:`MIGRATIONS` above it; False when there is no upgrade from that version (the caller
    refuses the database). Every chunk set, cached conversion, embedding and token count is
    kept. Reported once, on :data:`log`.

    Raises:
        sqlite3.Error (sqlean's): the database cannot be written (the caller turns it into a
            one-line DatabaseError); the migration that failed changed nothing.
    """
    if not OLDEST_UPGRADABLE <= version < SCHEMA_VERSION:
        return False
    for migration in MIGRATIONS:
        if migration.version <= version:
            continue
        with db.atomic():
            current = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
            if current and int(current[0]) >= migration.version:  # another process did it
                continue
            migration.apply(db)
            db.execute(
                "UPDATE meta SET value = ? WHERE key = ?",
                [str(migration.version), "schema_version"],
            )
    log.info(
        "%s was upgraded from schema %d to %d (every chunk set, embedding and token count "
        "kept); older specbrowser versions no longer open it",
        path,
        version,
        SCHEMA_VERSION,
    )
    return True


# Each chunk set's FTS5 index.
#
# One FTS5 index per chunk set, so that a set's BM25 ranking counts only its own texts.
#
# ``texts`` holds each distinct text once, shared by the sets that have it; an index over all of
# them would give BM25 statistics (document count, average length, each term's
# document frequency) over every stored set, so storing a second set would change the first set's
# scores. Each set therefore gets its own *external-content* FTS5 table over ``texts``
# (``content='texts'``: the index only, the text is read from ``texts`` for snippets), holding the
# rows of the texts the set uses, built when the set is written and dropped with it.
#
# Table names come from the policy version (:func:`set_fts_table`), never from input text.

SET_FTS_PREFIX = "set_fts_"
"""Start of every per-set FTS5 table's name."""


def set_fts_table(policy_version: str) -> str:
    """The FTS5 table name of a chunk set: the prefix and the first 16 hex digits of the
    version's sha1 (only ``[a-z0-9_]``, so safe to put into SQL)."""
    return SET_FTS_PREFIX + hashlib.sha1(policy_version.encode()).hexdigest()[:16]


def build_set_fts(db: SqlDatabase, policy_version: str, columns: str = FTS_COLUMNS) -> None:
    """(Re)build the chunk set's FTS5 index from its chunk rows (call inside a transaction), of
    ``texts``' ``columns`` (:data:`FTS_COLUMNS`; a migration names the columns of its time)."""
    table = set_fts_table(policy_version)
    db.execute(f"DROP TABLE IF EXISTS [{table}]")
    db.execute(
        f"CREATE VIRTUAL TABLE [{table}] USING fts5({columns}, "  # constants, never input
        f"content='texts', content_rowid='id', tokenize='{FTS_TOKENIZER}')"
    )
    values = columns.replace("retrieval_header", _INDEXED_HEADER)
    db.execute(
        f"INSERT INTO [{table}] (rowid, {columns}) "
        f"SELECT id, {values} FROM texts WHERE id IN "
        "(SELECT text_id FROM chunk_rows WHERE policy_version = ?) ORDER BY id",
        [policy_version],
    )


def extend_set_fts(db: SqlDatabase, policy_version: str, document_id: str) -> bool:
    """Add to the chunk set's FTS5 index the texts of spec ``document_id``'s rows that no other
    spec's rows of the set use (so not indexed yet): what an ingest that *added* a spec to a
    corpus needs, without re-reading every other spec's texts as :func:`build_set_fts` does.
    BM25's statistics are the index's own, so the result is the index a rebuild makes. Call
    inside a transaction, after the spec's rows are written; returns False (nothing done) when
    the set has no index yet, or when its index is not exactly the texts of the other specs'
    rows (a spec replacing itself dropped rows the index still holds): then rebuild it."""
    table = set_fts_table(policy_version)
    if not db.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", [table]
    ).fetchone():
        return False
    others = "SELECT DISTINCT text_id FROM chunk_rows WHERE policy_version = ? AND document_id != ?"
    indexed, stray = db.execute(
        f"SELECT count(*), count(*) FILTER (WHERE id NOT IN ({others})) FROM [{table}_docsize]",
        [policy_version, document_id],
    ).fetchone()
    (expected,) = db.execute(
        f"SELECT count(*) FROM ({others})", [policy_version, document_id]
    ).fetchone()
    if stray or indexed != expected:
        return False
    values = FTS_COLUMNS.replace("retrieval_header", _INDEXED_HEADER)
    db.execute(
        f"INSERT INTO [{table}] (rowid, {FTS_COLUMNS}) "  # constants, never input
        f"SELECT id, {values} FROM texts WHERE id IN "
        "(SELECT text_id FROM chunk_rows WHERE policy_version = ? AND document_id = ? "
        "EXCEPT SELECT text_id FROM chunk_rows WHERE policy_version = ? AND document_id != ?) "
        "ORDER BY id",
        [policy_version, document_id, policy_version, document_id],
    )
    return True


_INDEXED_HEADER = (
    "CASE WHEN retrieval_header LIKE 'Document summary: %' "
    "THEN substr(retrieval_header, instr(retrieval_header, char(10)) + 1) "
    "ELSE retrieval_header END"
)
"""What the index holds of a retrieval header: all of it but a first ``Document summary:`` line
(:mod:`specbrowser.chunking.summaries`). Every chunk of a spec shares that line, so BM25 gains
nothing from it, and in a spec of a few sections it would make every chunk match the words of
its first sentence. Snippets come from the body column, so the index may leave it out of the
external content's header."""


def drop_set_fts(db: SqlDatabase, policy_version: str) -> None:
    """Drop the chunk set's FTS5 index (its shadow tables go with it)."""
    db.execute(f"DROP TABLE IF EXISTS [{set_fts_table(policy_version)}]")


def drop_orphan_set_fts(db: SqlDatabase) -> None:
    """Drop the per-set indexes of sets no longer stored (after a spec replaced them all)."""
    live = {set_fts_table(version) for (version,) in db.execute("SELECT version FROM policies")}
    names = [
        name
        for (name,) in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE ? "
            "AND sql LIKE 'CREATE VIRTUAL TABLE%'",
            [SET_FTS_PREFIX + "%"],
        )
    ]
    for name in names:
        if name not in live:
            db.execute(f"DROP TABLE IF EXISTS [{name}]")


def create_vector_index(db: SqlDatabase, dim: int) -> None:
    """The ``chunk_vectors`` KNN index (sqlite-vec's ``vec0``) for ``dim``-sized vectors, when
    missing. Made on first use, not with the schema: a vec0 column's type holds the dimension,
    which the embedding model gives."""
    # dim is an int; vec0 takes no parameter for the column type
    db.execute(
        f"CREATE VIRTUAL TABLE IF NOT EXISTS chunk_vectors USING vec0(embedding float[{int(dim)}])"
    )
