"""The Markdown cache in the database: each section's conversion, reused by re-chunks.

One table, ``markdown_cache`` (:data:`specbrowser.store.schema.CACHE_TABLES`). A row is one
section's :class:`~specbrowser.chunking.markdown_cache.SectionMarkdown` under one Markdown
config, keyed by

- ``sections_sha256``: :func:`specbrowser.store.sections_digest` of the stored sections, so rows
  of a replaced spec (or of a newer parser's sections) are never read; writes drop them;
- ``config_key``: :func:`config_key`, a hash of the :class:`MarkdownConfig` settings and
  :data:`CONVERTER_VERSION`, so another converter never reads an old conversion;
- ``section_id``.

Ingest fills it (the conversions happen anyway), a re-chunk reads it and adds what it had to
convert. Losing it only costs time. Queries are parameterized; writes happen inside the
caller's transaction.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from specbrowser.chunking.markdown_config import MarkdownConfig
from specbrowser.chunking.policy import CONVERTER_VERSION
from specbrowser.store.rows import select_in

if TYPE_CHECKING:
    from specbrowser.chunking.markdown_cache import SectionMarkdown
    from specbrowser.store.database import SpecStore

# Deferred to MarkdownCache.load: specbrowser.chunking.markdown_cache, which brings the converter
# and lxml (about 30 ms of imports): the app opens the store without converting anything.

TABLE = "markdown_cache"

CACHE_FORMAT = 2
"""The layout of a cached detail (:func:`specbrowser.chunking.markdown_cache.capture`); bumped
when it changes, so rows of another layout are never read (they are dropped like another
converter's)."""


def config_key(config: MarkdownConfig) -> str:
    """12 hex digits naming a Markdown config under this code's converter version and cache
    format."""
    canonical = json.dumps(
        {
            "markdown": config.settings(),
            "converter_version": CONVERTER_VERSION,
            "cache_format": CACHE_FORMAT,
        },
        sort_keys=True,
        separators=(",", ":"),
    )
    return hashlib.sha256(canonical.encode()).hexdigest()[:12]


class MarkdownCache:
    """Each section's cached Markdown conversion (``store.cache``)."""

    def __init__(self, store: SpecStore) -> None:
        self.store = store
        self.db = store.db

    def load(
        self,
        digest: str,
        config: MarkdownConfig,
        section_ids: Iterable[str] | None = None,
    ) -> dict[str, SectionMarkdown]:
        """Every cached section (section id → conversion, ``detail`` not loaded) for the stored
        sections of ``digest`` under ``config``, or only those of ``section_ids``; {} when nothing
        is cached."""
        select = (
            f"SELECT section_id, markdown, subsections FROM [{TABLE}] "
            "WHERE sections_sha256 = ? AND config_key = ?"
        )
        params: list[object] = [digest, config_key(config)]
        rows = (
            self.db.execute(select, params).fetchall()
            if section_ids is None
            else select_in(self.db, select + " AND section_id IN", params, list(section_ids))
        )
        from specbrowser.chunking.markdown_cache import SectionMarkdown  # deferred: see above

        return {
            section_id: SectionMarkdown(markdown, json.loads(subsections))
            for section_id, markdown, subsections in rows
        }

    def load_details(
        self,
        digest: str,
        config: MarkdownConfig,
        cached: Mapping[str, SectionMarkdown],
        section_ids: Iterable[str],
    ) -> None:
        """Fill in the ``detail`` of the ``cached`` conversions of ``section_ids`` (those that
        have one)."""
        ids = [i for i in section_ids if i in cached]
        for section_id, detail in select_in(
            self.db,
            f"SELECT section_id, detail FROM [{TABLE}] WHERE sections_sha256 = ? AND "
            "config_key = ? AND detail IS NOT NULL AND section_id IN",
            [digest, config_key(config)],
            ids,
        ):
            cached[section_id].detail = detail

    def save(
        self,
        digest: str,
        config: MarkdownConfig,
        learned: Mapping[str, SectionMarkdown],
    ) -> None:
        """Store conversions of the sections of ``digest`` (call inside a transaction); rows of
        sections digests no stored spec has (a replaced spec's) or of other converter versions
        are dropped first."""
        self.drop_stale(digest)
        if not learned:
            return
        key = config_key(config)
        self.db.conn.executemany(
            f"INSERT OR REPLACE INTO [{TABLE}] (sections_sha256, config_key, section_id, markdown, "
            "subsections, detail, converter_version) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    digest,
                    key,
                    section_id,
                    memo.markdown,
                    json.dumps(memo.subsections, ensure_ascii=False),
                    memo.detail,
                    CONVERTER_VERSION,
                )
                for section_id, memo in learned.items()
            ],
        )

    def drop_stale(self, digest: str) -> None:
        """Delete cached rows of a sections digest that is neither ``digest`` nor a stored
        spec's, or of another converter version (call inside a transaction)."""
        self.db.execute(
            f"DELETE FROM [{TABLE}] WHERE (sections_sha256 != ? AND sections_sha256 NOT IN "
            "(SELECT sections_sha256 FROM documents WHERE sections_sha256 IS NOT NULL)) "
            "OR converter_version != ?",
            [digest, CONVERTER_VERSION],
        )
