"""Embeddings in the database: the cache keyed by (model, content hash), the sqlite-vec index, KNN.

Tables (:data:`specbrowser.store.schema.CACHE_TABLES`, except ``chunk_vectors``):

- ``embeddings``: one row per (model, sha256 of a chunk's retrieval text): ``dim``, ``vector``
  (float32 bytes), ``truncated`` (1 when the tokenizer cut the text) and ``tokens``
  (the full token count). Its key is ``id INTEGER PRIMARY KEY`` with a UNIQUE (model,
  content_hash): an aliased rowid survives VACUUM, so ``chunk_vectors`` can point at it.
  Re-ingesting or re-chunking embeds only texts not seen before.
- ``chunk_vectors``: a sqlite-vec ``vec0`` table, ``embedding float[dim]``, rowid =
  ``embeddings.id``: the KNN index. Made by :meth:`Vectors.prepare`, not by the schema: its column
  type holds the model's dimension, and it needs sqlite-vec loaded.
- a KNN hit maps to chunks through ``texts.content_hash`` (stored with each text, see
  :mod:`specbrowser.store`), so nothing is hashed at query time.
- ``meta`` rows ``embedding_model`` and ``embedding_dim``: the one model whose vectors the
  database holds. Another model is refused before anything is written unless the
  caller asks to rebuild, which drops the old vectors in the same transaction.

All SQL is parameterized; writes commit per batch (resumable runs).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from specbrowser.errors import EmbeddingError, VectorsUnavailable
from specbrowser.store.rows import content_hash  # noqa: F401  (re-exported: the vector key)
from specbrowser.store.schema import create_vector_index

if TYPE_CHECKING:
    from specbrowser.store.database import SpecStore
    from specbrowser.store.queries import ChunkFilter

KNN_MAX_K = 4096
"""sqlite-vec refuses ``k`` above 4096 on vec0 KNN queries (asg017/sqlite-vec#157)."""

META_MODEL = "embedding_model"
META_DIM = "embedding_dim"
META_RECIPE = "embedding_recipe"
"""What the stored vectors are of (the embedder's recipe, e.g. ``titles2+body@256``); absent
for vectors of whole retrieval texts (every database before recipes were recorded)."""


@dataclass
class MissingText:
    """A retrieval text with no embedding yet.

    Attributes:
        content_hash: sha256 of ``text``.
        text: the retrieval text (what gets embedded).
        chunk_ids: every chunk of the set with this text (usually one).
    """

    content_hash: str
    text: str
    chunk_ids: list[str] = field(default_factory=list)


def _group(rows: list[tuple[str, str, str | None]]) -> list[MissingText]:
    by_hash: dict[str, MissingText] = {}
    for chunk_id, key, text in rows:
        by_hash.setdefault(key, MissingText(key, text or "")).chunk_ids.append(chunk_id)
    return list(by_hash.values())


@dataclass
class NewEmbedding:
    """One vector to store: ``vector`` is ``dim`` float32s as bytes (little-endian)."""

    content_hash: str
    vector: bytes
    truncated: bool
    tokens: int


_IN_SET: dict[tuple[str, str, str, int, str], int] = {}
""":meth:`Vectors._embedded_in_set` results by (database file, model, chunk set, stored vectors,
chunk set fingerprint): the count only changes when vectors are added or the set is rebuilt."""


def nearest_sql(condition: str = "") -> str:
    """The KNN statement of :meth:`Vectors.nearest` (parameters: query vector, k, policy version,
    the condition's, limit). Each hit goes to its vector's texts (index on ``content_hash``), then
    to this set's rows of them (index on ``text_id``); CROSS JOIN keeps that order (through the
    ``chunks`` view SQLite scanned the whole set once per neighbour: 4x the latency). The
    condition's columns are ``chunk_rows`` columns (alias ``c``)."""
    return (
        "SELECT c.id, knn.distance FROM "
        "(SELECT rowid, distance FROM chunk_vectors WHERE embedding MATCH ? AND k = ?) knn "
        "CROSS JOIN embeddings e ON e.id = knn.rowid "
        "CROSS JOIN texts t ON t.content_hash = e.content_hash "
        "CROSS JOIN chunk_rows c ON c.text_id = t.id AND c.policy_version = ? "
        f"WHERE 1 = 1{condition} ORDER BY knn.distance, c.id LIMIT ?"
    )


class Vectors:
    """Embeddings by model and retrieval text, and the sqlite-vec KNN index (``store.vectors``)."""

    def __init__(self, store: SpecStore) -> None:
        self.store = store
        self.db = store.db

    def recipe(self) -> str:
        """The recipe of the stored vectors ("" when none was recorded)."""
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", [META_RECIPE]).fetchone()
        return str(row[0]) if row else ""

    def require(self) -> None:
        """Raise :class:`VectorsUnavailable` with the connection's one-line reason when sqlite-vec
        is not loaded."""
        reason = self.store.vector_error
        if reason:
            raise VectorsUnavailable(reason)

    def model(self) -> tuple[str, int] | None:
        """``(model name, dimension)`` of the vectors in the database, or None when it holds
        none."""
        rows = dict(
            self.db.execute(
                "SELECT key, value FROM meta WHERE key IN (?, ?)", [META_MODEL, META_DIM]
            ).fetchall()
        )
        if META_MODEL not in rows:
            return None
        return rows[META_MODEL], int(rows[META_DIM])

    def prepare(self, model: str, dim: int, *, rebuild: bool = False, recipe: str = "") -> None:
        """Make the database ready for ``model``'s ``dim``-sized vectors made by ``recipe`` (what
        is embedded of each text), or refuse.

        A database without vectors records ``model`` and ``dim`` in ``meta`` and creates the tables.
        One holding another model's vectors is refused with a message naming both models, their
        dimensions and ``--rebuild``; with ``rebuild`` the old vectors, cache rows and meta are
        dropped first. Either way in one transaction: nothing is half-written.

        Raises:
            VectorsUnavailable: sqlite-vec is not loaded.
            EmbeddingError: another model's vectors are stored and ``rebuild`` is False.
            DatabaseError: the database is locked or cannot be written.
        """
        self.require()
        if dim <= 0:
            raise EmbeddingError(f"model {model} gives vectors of dimension {dim}")
        current = self.model()
        old_recipe = self.recipe() if current is not None else recipe
        if current == (model, dim) and old_recipe == recipe:
            create_vector_index(self.db, dim)  # no-op when it exists
            return
        if current is not None and not rebuild:
            old_model, old_dim = current
            if current == (model, dim):
                raise EmbeddingError(
                    f"the database holds vectors of {model} made from "
                    f"{old_recipe or 'whole retrieval texts'}; this version embeds "
                    f"{recipe or 'whole retrieval texts'}: the two cannot be mixed; add --rebuild "
                    "to embed again (or use another database)"
                )
            raise EmbeddingError(
                f"the database holds vectors of {old_model} ({old_dim} dims); "
                f"{model} gives {dim} dims: "
                "vectors of two models cannot be mixed; add --rebuild to drop the old vectors "
                "(or use another database)"
            )
        with self.store.transaction("old embeddings dropped"):
            self.db.execute("DROP TABLE IF EXISTS chunk_vectors")
            self.db.execute("DELETE FROM embeddings")
            create_vector_index(self.db, dim)
            self.db.execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", [META_MODEL, model]
            )
            self.db.execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", [META_DIM, str(dim)]
            )
            if recipe:
                self.db.execute(
                    "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", [META_RECIPE, recipe]
                )
            else:
                self.db.execute("DELETE FROM meta WHERE key = ?", [META_RECIPE])

    def _fingerprint(self, policy_version: str) -> str:
        """What identifies a chunk set's contents: the spec's hashes, the set's creation time and
        size (the same spec and policy always give the same chunks)."""
        doc = self.db.execute("SELECT sha256, sections_sha256 FROM documents LIMIT 1").fetchone()
        created = self.db.execute(
            "SELECT created_at FROM policies WHERE version = ?", [policy_version]
        ).fetchone()
        count = self.db.execute(
            "SELECT count(*) FROM chunk_rows WHERE policy_version = ?", [policy_version]
        ).fetchone()
        return "|".join(
            str(part) for part in (*(doc or ("", "")), created[0] if created else "", count[0])
        )

    def chunk_hash_map(self, policy_version: str) -> dict[str, str]:
        """Chunk id → content hash (sha256 of the retrieval text) for a chunk set; read only."""
        return dict(
            self.db.execute(
                "SELECT id, content_hash FROM chunks WHERE policy_version = ?", [policy_version]
            ).fetchall()
        )

    def missing_texts(self, model: str, policy_version: str) -> list[MissingText]:
        """The chunk set's distinct retrieval texts that have no ``model`` embedding, chunk order.

        Raises:
            VectorsUnavailable: sqlite-vec is not loaded (the tables may not exist).
        """
        self.require()
        if self.model() is None:  # no vectors yet: every text is missing
            return _group(
                self.db.execute(
                    "SELECT id, content_hash, retrieval_text FROM chunks "
                    "WHERE policy_version = ? ORDER BY ordinal",
                    [policy_version],
                ).fetchall()
            )
        rows = self.db.execute(
            "SELECT c.id, c.content_hash, c.retrieval_text FROM chunks c "
            "LEFT JOIN embeddings e ON e.model = ? AND e.content_hash = c.content_hash "
            "WHERE c.policy_version = ? AND e.id IS NULL ORDER BY c.ordinal",
            [model, policy_version],
        ).fetchall()
        return _group(rows)

    def distinct_text_count(self, policy_version: str) -> int:
        """How many distinct retrieval texts the chunk set has."""
        return int(
            self.db.execute(
                "SELECT count(DISTINCT content_hash) FROM chunks WHERE policy_version = ?",
                [policy_version],
            ).fetchone()[0]
        )

    def forget(self) -> None:
        """Drop every stored vector, its KNN index, the token counts and the model's ``meta`` rows
        (call inside a transaction): the texts they were made from are gone (a spec replaced by
        another). Left as they are when the KNN index exists but sqlite-vec is not loaded (a
        ``vec0`` table cannot be dropped without it, and embeddings without their index rows would
        clash with the next ones)."""
        has_index = self.db.execute(
            "SELECT 1 FROM sqlite_master WHERE name = 'chunk_vectors'"
        ).fetchone()
        if has_index and self.store.vector_error is not None:
            return
        self.db.execute("DROP TABLE IF EXISTS chunk_vectors")
        self.db.execute("DELETE FROM embeddings")
        self.db.execute("DELETE FROM token_counts")
        self.db.execute(
            "DELETE FROM meta WHERE key IN (?, ?, ?)", [META_MODEL, META_DIM, META_RECIPE]
        )

    def drop_unused(self) -> int:
        """Drop the vectors (with their KNN index rows) and token counts of retrieval texts no
        chunk set holds any more (call inside a transaction): a spec of a corpus replaced by
        a new version of itself leaves its old texts' vectors behind. Returns how many vectors
        went; nothing changes (0) when the KNN index exists but sqlite-vec is not loaded."""
        has_index = self.db.execute(
            "SELECT 1 FROM sqlite_master WHERE name = 'chunk_vectors'"
        ).fetchone()
        if has_index and self.store.vector_error is not None:
            return 0
        unused = [
            int(row[0])
            for row in self.db.execute(
                "SELECT e.id FROM embeddings e WHERE NOT EXISTS "
                "(SELECT 1 FROM texts t WHERE t.content_hash = e.content_hash)"
            )
        ]
        if has_index:
            self.db.conn.executemany(
                "DELETE FROM chunk_vectors WHERE rowid = ?", [(i,) for i in unused]
            )
        self.db.conn.executemany("DELETE FROM embeddings WHERE id = ?", [(i,) for i in unused])
        self.db.execute(
            "DELETE FROM token_counts WHERE NOT EXISTS "
            "(SELECT 1 FROM texts t WHERE t.content_hash = token_counts.content_hash)"
        )
        return len(unused)

    def add(self, model: str, dim: int, items: list[NewEmbedding]) -> None:
        """Store one batch of vectors and their KNN index rows, committed as one transaction.

        Every vector's size is checked before the first write; hashes already stored are skipped.

        Raises:
            EmbeddingError: ``model``/``dim`` are not the database's (call :meth:`Vectors.prepare`
            first),
                or a vector is not ``dim * 4`` bytes.
            DatabaseError: the database is locked or cannot be written.
        """
        if self.model() != (model, dim):
            raise EmbeddingError(f"the database is not prepared for {model} ({dim} dims)")
        bad = [item.content_hash for item in items if len(item.vector) != dim * 4]
        if bad:
            raise EmbeddingError(f"model {model}: {len(bad)} vectors are not {dim} float32s")
        with self.store.transaction(f"{len(items):,} embeddings"):
            for item in items:
                cursor = self.db.execute(
                    "INSERT OR IGNORE INTO embeddings "
                    "(model, content_hash, dim, vector, truncated, tokens) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    [model, item.content_hash, dim, item.vector, int(item.truncated), item.tokens],
                )
                if cursor.rowcount:
                    self.db.execute(
                        "INSERT INTO chunk_vectors (rowid, embedding) VALUES (?, ?)",
                        [cursor.lastrowid, item.vector],
                    )

    def counts(self, model: str, policy_version: str) -> tuple[int, int]:
        """``(chunks with a vector, chunks)`` of a chunk set for ``model``; (0, n) without
        vectors."""
        total = int(
            self.db.execute(
                "SELECT count(*) FROM chunks WHERE policy_version = ?", [policy_version]
            ).fetchone()[0]
        )
        if self.store.vector_error:
            return 0, total
        done = self.db.execute(
            "SELECT count(*) FROM chunks c JOIN embeddings e "
            "ON e.model = ? AND e.content_hash = c.content_hash WHERE c.policy_version = ?",
            [model, policy_version],
        ).fetchone()[0]
        return int(done), total

    def flags(self, model: str) -> dict[str, tuple[bool, int | None]]:
        """Per retrieval-text hash that ``model`` embedded: ``(truncated, full token count)``. Read
        only, no sqlite-vec needed."""
        rows = self.db.execute(
            "SELECT content_hash, truncated, tokens FROM embeddings WHERE model = ?", [model]
        )
        return {digest: (bool(truncated), tokens) for digest, truncated, tokens in rows}

    def embedded_fraction(self, model: str, policy_version: str) -> float:
        """Share of the chunk set's chunks that have a ``model`` vector (0.0–1.0; 0.0 when
        empty)."""
        done, total = self.counts(model, policy_version)
        return done / total if total else 0.0

    def truncated_chunks(self, model: str, policy_version: str) -> dict[str, int]:
        """Chunks whose retrieval text was cut by the tokenizer when embedded:
        chunk id → full token count."""
        return {
            chunk_id: tokens
            for chunk_id, tokens in self.db.execute(
                "SELECT c.id, e.tokens FROM chunks c JOIN embeddings e "
                "ON e.model = ? AND e.content_hash = c.content_hash "
                "WHERE c.policy_version = ? AND e.truncated = 1",
                [model, policy_version],
            )
        }

    def _embedded_in_set(self, model: str, policy_version: str, stored: int) -> int:
        """How many of the ``stored`` vectors of ``model`` belong to the chunk set (distinct texts).

        The count is a join over every text of the set (~20 ms on ECMA-262, as much as the KNN and
        the query embedding together), so it is remembered until the vectors or the set change.
        """
        key = (
            str(self.store.path),
            model,
            policy_version,
            stored,
            self._fingerprint(policy_version),
        )
        if key not in _IN_SET:
            if len(_IN_SET) > 64:
                _IN_SET.clear()
            _IN_SET[key] = int(
                self.db.execute(
                    "SELECT count(DISTINCT c.content_hash) FROM chunks c JOIN embeddings e "
                    "ON e.model = ? AND e.content_hash = c.content_hash WHERE c.policy_version = ?",
                    [model, policy_version],
                ).fetchone()[0]
            )
        return _IN_SET[key]

    def nearest(
        self,
        query_vector: bytes,
        k: int,
        policy_version: str,
        *,
        where: ChunkFilter | None = None,
    ) -> list[tuple[str, float]]:
        """The ``k`` chunks of a chunk set nearest to ``query_vector``: ``(chunk id, distance)``,
        nearest first (L2 distance on the stored float32 vectors).

        The vec0 KNN runs in a subquery with ``k = ?`` (not ``LIMIT``: refused on SQLite < 3.41 and
        in joins), then joins to the chunk set. The index holds vectors of every chunk set (the
        cache), so it fetches enough extra neighbours to still give ``k`` chunks of this set; k is
        capped at :data:`KNN_MAX_K` (sqlite-vec's limit) and at what exists; ``k <= 0`` gives [].

        ``query_vector`` is ``dim`` float32s as bytes
        (:meth:`specbrowser.search.embed.Embedder.embed_query`). A non-empty ``where``
        (:class:`~specbrowser.store.queries.ChunkFilter`) restricts the chunks: the KNN then takes
        every neighbour it may (the brute-force scan costs the same) and the filter picks the ``k``
        nearest that pass.

        Raises:
            VectorsUnavailable: sqlite-vec is not loaded.
            EmbeddingError: the query vector's size is not the stored dimension.
        """
        self.require()
        current = self.model()
        if k <= 0 or current is None:
            return []
        model, dim = current
        if len(query_vector) != dim * 4:
            raise EmbeddingError(
                f"query vector has {len(query_vector) // 4} dims, the database's "
                f"{model} vectors have {dim}"
            )
        stored = int(
            self.db.execute("SELECT count(*) FROM embeddings WHERE model = ?", [model]).fetchone()[
                0
            ]
        )
        restrict = where.sql("c") if where else None
        if restrict is not None:
            fetch = min(KNN_MAX_K, stored)
        else:
            fetch = min(
                KNN_MAX_K,
                stored,
                k + (stored - self._embedded_in_set(model, policy_version, stored)),
            )
        if fetch <= 0:
            return []
        condition, params = restrict or ("", [])
        rows = self.db.execute(
            nearest_sql(condition),
            [query_vector, fetch, policy_version, *params, min(k, KNN_MAX_K)],
        ).fetchall()
        return [(chunk_id, float(distance)) for chunk_id, distance in rows]
