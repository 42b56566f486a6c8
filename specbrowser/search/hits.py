"""What a search returns and how it can be narrowed: :class:`Hit`, :class:`SearchFilter`.

Shared by every search mode (:mod:`specbrowser.search.query`) and by the definitions a name
brings forward (:mod:`specbrowser.search.symbols`).
"""

from __future__ import annotations

from dataclasses import dataclass

from specbrowser.errors import NotFoundError, PolicyError
from specbrowser.store import SpecStore
from specbrowser.store.queries import ChunkFilter
from specbrowser.types import LAYERS, SearchMode


@dataclass(frozen=True)
class Hit:
    """One search result.

    Attributes:
        chunk_id, section_id, title: which chunk.
        heading_path: the chunk's path of section titles (TOC path when it has one).
        score: higher is better; for lexical hits, minus FTS5's BM25 rank.
        snippet: up to 16 tokens around the match, matched terms between
            :data:`~specbrowser.search.literal.HIGHLIGHT_START` and
            :data:`~specbrowser.search.literal.HIGHLIGHT_END`.
        mode: ``lexical`` (``semantic`` and ``hybrid`` come with embeddings).
    """

    chunk_id: str
    section_id: str | None
    title: str
    heading_path: list[str]
    score: float
    snippet: str
    mode: SearchMode = "lexical"


@dataclass(frozen=True)
class SearchFilter(ChunkFilter):
    """Optional restrictions of a search; each one narrows the hits, in SQL
    (:class:`specbrowser.store.queries.ChunkFilter`: ``section``, ``layer``,
    ``over_threshold``).
    """

    def check(self, db: SpecStore) -> None:
        """Refuse a filter that names what does not exist.

        Raises:
            NotFoundError: no section with that id.
            PolicyError: a layer that is not one of :data:`specbrowser.types.LAYERS`.
        """
        if self.section and not db.sections.exists(self.section):
            raise NotFoundError(f"no section with id {self.section!r} to search in")
        if self.layer and self.layer not in LAYERS:
            raise PolicyError(f"unknown layer {self.layer!r} (one of {', '.join(LAYERS)})")


NO_FILTER = SearchFilter()
