"""Token counts in the database (what :mod:`specbrowser.search.tokens` counts).

Table ``token_counts (model, content_hash, tokens)`` (part of the schema): keyed by the sha256 of
a retrieval text like the embedding cache, so a re-chunk counts only new texts; a chunk finds
its count through its text's stored ``content_hash``. The ``meta`` row ``token_window:<model>``
keeps the model's window. All SQL is parameterized.
"""

from __future__ import annotations

from collections.abc import Iterable

from specbrowser.store.sqldb import SqlDatabase

_META_WINDOW = "token_window:"


class TokenCounts:
    """Token counts by model and retrieval text, and each model's window (``store.tokens``)."""

    def __init__(self, db: SqlDatabase) -> None:
        self.db = db

    def set_window(self, model: str, max_tokens: int | None) -> None:
        """Record ``model``'s window in tokens (None: unknown); call inside a transaction."""
        self.db.execute(
            "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
            [_META_WINDOW + model, "" if max_tokens is None else str(max_tokens)],
        )

    def window(self, model: str) -> int | None:
        """``model``'s window in tokens as recorded, None when unknown."""
        row = self.db.execute(
            "SELECT value FROM meta WHERE key = ?", [_META_WINDOW + model]
        ).fetchone()
        return int(row[0]) if row and row[0] else None

    def texts_without_counts(self, model: str, policy_version: str) -> list[tuple[str, str]]:
        """The chunk set's distinct retrieval texts with no ``model`` count: ``(content hash,
        text)`` pairs."""
        return [
            (digest, text)
            for digest, text in self.db.execute(
                "SELECT c.content_hash, min(c.retrieval_text) FROM chunks c "
                "LEFT JOIN token_counts t ON t.model = ? AND t.content_hash = c.content_hash "
                "WHERE c.policy_version = ? AND t.content_hash IS NULL GROUP BY c.content_hash",
                [model, policy_version],
            )
        ]

    def add(self, model: str, counts: Iterable[tuple[str, int]]) -> None:
        """Store ``(content hash, tokens)`` counts of ``model`` (counts already stored are
        kept); call inside a transaction."""
        self.db.conn.executemany(
            "INSERT OR IGNORE INTO token_counts (model, content_hash, tokens) VALUES (?, ?, ?)",
            [(model, digest, tokens) for digest, tokens in counts],
        )

    def counts(self, model: str) -> dict[str, int]:
        """Content hash → token count, of every text ``model`` counted."""
        return dict(
            self.db.execute(
                "SELECT content_hash, tokens FROM token_counts WHERE model = ?", [model]
            ).fetchall()
        )

    def recorded(self) -> bool:
        """Whether tokens were ever counted in this database (a window recorded or a count
        stored), whatever the model."""
        return (
            self.db.execute(
                "SELECT 1 FROM meta WHERE key LIKE ? UNION ALL SELECT 1 FROM token_counts LIMIT 1",
                [_META_WINDOW + "%"],
            ).fetchone()
            is not None
        )

    def model(self) -> str | None:
        """A model with stored counts (the first stored), None when nothing was counted."""
        row = self.db.execute("SELECT model FROM token_counts LIMIT 1").fetchone()
        return row[0] if row else None
