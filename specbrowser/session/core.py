"""The application layer: one open spec database, as every front end reads and changes it.

The CLI, the app (and any later front end: an agent server, a web view) hold a
:class:`Session` and call its methods; they never reach the store directly. A session reads the
active chunk set unless a method is given a ``policy_version`` (a full version; see
:meth:`Session.resolve_version` for prefixes). The long operations are jobs that open their own
connections from :attr:`Session.path` (:mod:`specbrowser.session.jobs`).

A session's connection stays in the thread that opened it (SQLite's rule): a worker thread
calls :meth:`Session.reopen` and closes what it gets.

Each method that needs one of the larger session or search modules (browse, diff, export,
report, source, query, tokens) imports it when first called: a command pays the start-up of
the ones it uses (the ``# deferred`` figures, measured with bytecode cached), not of all of them.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

from specbrowser.chunking.policy import ChunkPolicy
from specbrowser.chunking.stats import ChunkSetStats, compute_stats
from specbrowser.errors import AmbiguousNameError, NotFoundError, PolicyError
from specbrowser.model import Chunk, Document, Section
from specbrowser.progress import Progress
from specbrowser.search.literal import is_searchable
from specbrowser.session.filters import filtered_tree
from specbrowser.session.links import CrossSpecLinks, cross_spec_links, link_targets
from specbrowser.session.stores import chunk_stats, open_store
from specbrowser.store import ChunkSetInfo, SpecStore
from specbrowser.store.connection import DB_ERRORS
from specbrowser.store.corpus import SpecListing, SpecRow
from specbrowser.types import ContentKind, ExportFormat, FilterKind, MismatchKind, SearchMode

if TYPE_CHECKING:
    from specbrowser.chunking.toc_paths import Mismatch
    from specbrowser.search.query import Hit, SearchFilter
    from specbrowser.search.tokens import TokenInfo
    from specbrowser.session.browse import (
        Boundaries,
        Located,
        OutlineEntry,
        Reassembled,
        SubsectionInfo,
    )
    from specbrowser.session.check import CheckReport
    from specbrowser.session.diff import ChunkBrief, ChunkSetDiff
    from specbrowser.session.export import ExportResult
    from specbrowser.session.filters import FilteredTree
    from specbrowser.session.report import StatsReport
    from specbrowser.session.source import ChunkSource


class Session:
    """One open specbrowser database.

    Use :meth:`open`; close it with :meth:`close` or a ``with`` block.

    Args:
        store: the open store (:meth:`open` makes it).
    """

    def __init__(self, store: SpecStore) -> None:
        self._db = store

    @property
    def store(self) -> SpecStore:
        """The store under this session, for tests and tools below the front ends (the CLI and
        the app use the session's methods)."""
        return self._db

    # --- life ---------------------------------------------------------------------------------

    @classmethod
    def open(cls, path: Path | str, *, create: bool = False) -> Session:
        """Open the database at ``path`` (created when ``create`` and the file is new).

        Raises:
            DatabaseError: missing file (without ``create``), a folder, not SQLite, locked, or
                not writable.
            NotASpecbrowserDatabase: a SQLite file specbrowser did not write, or a newer schema.
        """
        return cls(open_store(path, create=create))

    @property
    def path(self) -> Path:
        """The database file."""
        return self._db.path

    def reopen(self) -> Session:
        """A new session on the same file, for another thread (close it there)."""
        return Session(self._db.reopen())

    def close(self) -> None:
        """Close the connection."""
        self._db.close()

    def __enter__(self) -> Session:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    # --- the spec and its chunk sets ---------------------------------------------------------

    def document(self) -> Document:
        """The spec held by the database.

        Raises:
            NotFoundError: the database holds no spec yet.
        """
        return self._db.sections.document()

    def title(self) -> str:
        """The database's title as listings show it: its spec's title, or for a corpus "a
        corpus of 3 specs (fetch, webauthn, rfc9110)", by the specs' names in corpus order.

        Raises:
            NotFoundError: the database holds no spec yet.
        """
        specs = self._db.corpus.all()
        if len(specs) > 1:
            return f"a corpus of {len(specs)} specs ({', '.join(s.name for s in specs)})"
        return self.document().title

    def data_version(self) -> int:
        """A number that changes whenever another connection commits to the database
        (:meth:`SpecStore.data_version`): how a front end notices a re-chunk, an activation or a
        delete made from another shell.

        Raises:
            DatabaseError: the database cannot be read.
        """
        return self._db.data_version()

    def active_policy(self) -> tuple[ChunkPolicy, ChunkSetStats]:
        """The active set's policy and the stats stored with it (see
        :meth:`specbrowser.store.sets.ChunkSets.active_policy`)."""
        return self._db.sets.active_policy()

    def active_version(self) -> str:
        """The active chunk set's policy version.

        Raises:
            NotFoundError: no chunk set exists.
        """
        return self._db.active_version()

    def chunk_sets(self) -> list[ChunkSetInfo]:
        """Every chunk set, oldest first."""
        return self._db.sets.all()

    def check(self, policy_version: str | None = None) -> CheckReport:
        """What to distrust in the active set, or the set ``policy_version`` (a full version or
        unique prefix): :func:`specbrowser.session.check.check_chunk_set`.

        Raises:
            NotFoundError: no chunk set has that version (or the prefix names several).
        """
        from specbrowser.session.check import check_chunk_set  # deferred: 1 ms, its command

        version = self.resolve_version(policy_version) if policy_version else self.active_version()
        return check_chunk_set(self._db, version)

    def resolve_version(self, version: str) -> str:
        """The full policy version a full version or unique prefix names.

        Raises:
            NotFoundError: none, or several.
        """
        return self._db.sets.resolve(version)

    def activate(self, version: str) -> str:
        """Make a chunk set the active one; returns its full version.

        Raises:
            NotFoundError: no set has that version (or the prefix names several).
            DatabaseError: the database is locked or read-only.
        """
        return self._db.sets.activate(version)

    def delete_chunk_sets(
        self, versions: list[str], *, activate: str | None = None
    ) -> list[tuple[str, int, int]]:
        """Delete chunk sets other than the active one, in one transaction
        (:meth:`specbrowser.store.sets.ChunkSets.delete`: ``(version, chunks, texts)`` per set
        deleted); the file keeps its size until :meth:`compact`."""
        return self._db.sets.delete(versions, activate=activate)

    def compact(self) -> None:
        """Give the pages deleted sets left back to the file system (SQLite ``VACUUM``)."""
        self._db.vacuum()

    def chunk_count(self, policy_version: str | None = None) -> int:
        """How many chunks a chunk set (a full version or unique prefix; the active one by
        default) holds, the document chunk included; 0 when no set has that version."""

        try:
            version = self.resolve_version(policy_version) if policy_version else None
            return self._db.chunk_count(version or self.active_version())
        except NotFoundError:
            return 0

    def stats(self, policy_version: str | None = None) -> ChunkSetStats:
        """Counts, sizes and overruns of a chunk set
        (:func:`specbrowser.session.stores.chunk_stats`)."""
        return chunk_stats(self._db, policy_version)

    def report(
        self, policy_version: str | None = None, threshold: int | None = None
    ) -> StatsReport:
        """The statistics report of a chunk set
        (:func:`specbrowser.session.report.build_report`)."""
        from specbrowser.session.report import build_report  # deferred: 15 ms

        return build_report(self._db, policy_version, threshold)

    def diff(self, version_a: str, version_b: str) -> ChunkSetDiff:
        """Compare two chunk sets (:func:`specbrowser.session.diff.diff_chunk_sets`)."""
        from specbrowser.session.diff import diff_chunk_sets  # deferred: 7 ms

        return diff_chunk_sets(self._db, version_a, version_b)

    def section_briefs(self, policy_version: str, section_id: str) -> list[ChunkBrief]:
        """One section's chunks in a set, as the diff shows them."""
        from specbrowser.session.diff import section_chunks  # deferred: 7 ms

        return section_chunks(self._db, policy_version, section_id)

    def export(
        self,
        path: Path | str,
        *,
        format: ExportFormat = "jsonl",
        policy_version: str | None = None,
        content: ContentKind = "retrieval",
        progress: Progress | None = None,
    ) -> ExportResult:
        """Write a chunk set's records (:func:`specbrowser.session.export.export_chunk_set`)."""
        from specbrowser.session.export import export_chunk_set  # deferred: 9 ms

        return export_chunk_set(
            self._db,
            path,
            format=format,
            policy_version=policy_version,
            content=content,
            progress=progress,
        )

    # --- chunks and sections ------------------------------------------------------------------

    def chunk(self, chunk_id: str, policy_version: str | None = None) -> Chunk:
        """One chunk.

        Raises:
            NotFoundError: no chunk with that id.
        """
        return self._db.chunk(chunk_id, policy_version)

    def chunk_titles(
        self, chunk_ids: list[str], policy_version: str | None = None
    ) -> dict[str, str]:
        """Chunk id → title for those of ``chunk_ids`` in the set that have one (missing ids and
        empty titles left out): what a marker's preview shows. Texts are not read."""
        return self._db.chunk_titles(chunk_ids, policy_version)

    def chunks(self, chunk_ids: list[str], policy_version: str | None = None) -> list[Chunk]:
        """Chunks by id, in the order given; unknown ids are left out."""
        return self._db.chunks(chunk_ids, policy_version)

    def chunk_id_for(self, text: str) -> str:
        """The chunk of the active set that ``text`` names (:meth:`name_to_chunk`).

        Raises:
            NotFoundError: nothing by that name (the message names what was asked for).
        """
        return self.name_to_chunk(text).chunk_id

    def name_to_chunk(self, text: str) -> Located:
        """The chunk of the active set that ``text`` names, and how it was read: a chunk id, a
        section id or number (``14.6``), an element id (``#anchor`` or ``anchor``: the chunk
        holding the element) or a name the spec defines (an aoid, a production, a term, a
        title's leading name), as :meth:`locate` reads it.

        Raises:
            NotFoundError: none of these (the message names what was asked for).
        """

        try:
            return self.locate(text)
        except AmbiguousNameError:
            raise
        except NotFoundError:
            raise NotFoundError(
                f"no chunk or section with id or number {text!r}, nor an anchor or a name "
                "the spec defines (aoid, production, term, title)"
            ) from None

    def link_targets(
        self,
        anchors: list[str],
        policy_version: str | None = None,
        document_id: str | None = None,
    ) -> dict[str, str]:
        """Anchor → the chunk of the active (or given) set that holds the element with that id,
        for each of ``anchors`` the spec ``document_id`` holds (None: any spec, the first in
        corpus order; others are left out): where an in-text link ``[…](#anchor)`` of that
        spec leads (:mod:`specbrowser.session.links`)."""

        return link_targets(self._db, anchors, policy_version or self.active_version(), document_id)

    def url_target(self, url: str, policy_version: str | None = None) -> Located | None:
        """The chunk a URL into a spec of the corpus leads to (its canonical URL or an alias,
        then ``#anchor``: :meth:`locate`'s rule), or None when the URL points into no spec of
        the corpus or that spec has no element with the fragment's id."""
        from specbrowser.session.browse import spec_url_target  # deferred: 14 ms

        return spec_url_target(self._db, url, policy_version or self.active_version())

    def document_chunk(self, policy_version: str | None = None) -> Chunk | None:
        """The active (or given) set's document (synopsis) chunk, or None."""
        return self._db.document_chunk(policy_version)

    def document_chunks(self, policy_version: str | None = None) -> list[Chunk]:
        """The document chunk of every spec in the active (or given) set, in corpus order."""
        return self._db.document_chunks(policy_version)

    def top_level_chunks(
        self, policy_version: str | None = None, document_id: str | None = None
    ) -> list[Chunk]:
        """The root chunks of the top-level sections, in document order: of the spec
        ``document_id``, else of every spec in corpus order."""
        return self._db.top_level_chunks(policy_version, document_id)

    def spec_of_chunk(self, chunk_id: str, policy_version: str | None = None) -> SpecRow | None:
        """The spec of the corpus holding a chunk of the active (or given) set, or None (no
        such chunk)."""
        return self._db.corpus.of_chunk(policy_version or self.active_version(), chunk_id)

    def subsections(self, chunk: Chunk, policy_version: str | None = None) -> list[Chunk]:
        """A chunk's direct subsections, in marker order."""
        return self._db.subsections(chunk, policy_version)

    def descendants(self, chunk_id: str, policy_version: str | None = None) -> Iterator[Chunk]:
        """A chunk and all its descendants in pre-order.

        Raises:
            NotFoundError: no chunk with that id.
        """
        return self._db.descendants(chunk_id, policy_version)

    def locate(self, name: str, policy_version: str | None = None) -> Located:
        """The chunk a chunk id, section id, section number (``14.6``) or anchor (an element id
        inside a section) names (:func:`specbrowser.session.browse.locate`).

        Raises:
            NotFoundError: none of these.
        """
        from specbrowser.session.browse import locate  # deferred: 14 ms

        return locate(self._db, name, policy_version or self.active_version())

    def subsection_info(
        self, chunk: Chunk, policy_version: str | None = None
    ) -> list[SubsectionInfo]:
        """A chunk's direct subsections with their kind and sizes
        (:func:`specbrowser.session.browse.subsection_info`)."""
        from specbrowser.session.browse import subsection_info  # deferred: 14 ms

        return subsection_info(self._db, chunk, policy_version or self.active_version())

    def reassembled(self, chunk_id: str, policy_version: str | None = None) -> Reassembled:
        """A chunk's text with its breakdown subsections put back in place of their markers
        (:func:`specbrowser.session.browse.reassembled`).

        Raises:
            NotFoundError: no chunk with that id.
        """
        from specbrowser.session.browse import reassembled  # deferred: 14 ms

        return reassembled(self._db, chunk_id, policy_version or self.active_version())

    def chunk_source(self, chunk_id: str, policy_version: str | None = None) -> ChunkSource:
        """A chunk's source HTML: its element when found, else its section's
        (:func:`specbrowser.session.source.chunk_source`).

        Raises:
            NotFoundError: no chunk with that id.
        """
        from specbrowser.session.source import chunk_source  # deferred: 7 ms

        return chunk_source(self._db, chunk_id, policy_version or self.active_version())

    def boundaries(self, chunk_id: str, policy_version: str | None = None) -> Boundaries:
        """A chunk reassembled with the span of every chunk it is made of
        (:func:`specbrowser.session.browse.boundaries`).

        Raises:
            NotFoundError: no chunk with that id.
        """
        from specbrowser.session.browse import boundaries  # deferred: 14 ms

        return boundaries(self._db, chunk_id, policy_version or self.active_version())

    def outline(
        self,
        root: str | None = None,
        depth: int | None = None,
        policy_version: str | None = None,
        *,
        document_id: str | None = None,
    ) -> list[OutlineEntry]:
        """The section tree under ``root`` with TOC paths and chunk counts, of the spec
        ``document_id`` only when given (:func:`specbrowser.session.browse.outline`).

        Raises:
            NotFoundError: no section with the id ``root``.
        """
        from specbrowser.session.browse import outline  # deferred: 14 ms

        return outline(self._db, policy_version or self.active_version(), root, depth, document_id)

    def tree_parent_id(self, chunk_id: str) -> str | None:
        """The chunk whose subsections list ``chunk_id``
        (:meth:`specbrowser.store.SpecStore.tree_parent_id`)."""
        return self._db.tree_parent_id(chunk_id, self._db.active_version())

    def next_over_threshold(self, after_ordinal: int) -> Chunk | None:
        """The first chunk over the threshold after ``after_ordinal``, wrapping around; None
        when no chunk is over."""
        return self._db.next_over_threshold(after_ordinal) or self._db.next_over_threshold(-1)

    def section(self, section_id: str) -> Section:
        """One section.

        Raises:
            NotFoundError: no section with that id.
        """
        return self._db.sections.get(section_id)

    def resolve_section(self, text: str) -> str:
        """The id of the section ``text`` names by id or number (``14.6``, ``Annex B``).

        Raises:
            NotFoundError: no such section.
        """
        return self._db.sections.resolve(text)

    def find_sections(self, query: str, limit: int = 50) -> list[tuple[str, str]]:
        """``(section id, display title)`` of the sections whose id, number or title holds
        ``query`` (case-insensitive, literal)."""
        return self._db.sections.find(query, limit)

    def section_titles(self) -> list[tuple[str, str]]:
        """Every section as ``(section id, display title)``, in document order."""
        return self._db.sections.titles()

    def filtered_tree(self, kind: FilterKind) -> FilteredTree:
        """The active set's tree cut down to one filter (:mod:`specbrowser.session.filters`)."""

        return filtered_tree(self._db, kind, self.active_version())

    # --- the TOC ------------------------------------------------------------------------------

    def toc_size(self) -> int:
        """How many TOC entries the document has (0: no TOC)."""
        return self._db.toc.size()

    def mismatches(self, kind: MismatchKind | None = None) -> list[Mismatch]:
        """Where the section tree and the TOC disagree (one kind, or all)."""
        return self._db.toc.mismatches(kind)

    def mismatch_counts(self) -> dict[MismatchKind, int]:
        """Mismatches counted by kind."""
        return self._db.toc.mismatch_counts()

    # --- search, embeddings, tokens -----------------------------------------------------------

    def search(
        self,
        text: str,
        mode: SearchMode = "lexical",
        *,
        limit: int = 20,
        advanced: bool = False,
        where: SearchFilter | None = None,
        policy_version: str | None = None,
    ) -> list[Hit]:
        """Search the active set, or the set ``policy_version`` (a full version)
        (:func:`specbrowser.search.query.run_search`).

        Raises:
            PolicyError: an empty query or one with no letter or digit, or a filter naming
                nothing.
            EmbeddingError: semantic or hybrid search cannot run.
        """
        from specbrowser.search.query import NO_FILTER, run_search  # deferred: 15 ms

        if not text.strip():
            raise PolicyError("nothing to search for: the query is empty")
        if not is_searchable(text):
            raise PolicyError(
                f"nothing to search for: {text.strip()!r} has no letter or digit (punctuation "
                "is not indexed)"
            )
        return run_search(
            self._db,
            text,
            mode,
            limit=limit,
            advanced=advanced,
            policy_version=policy_version,
            where=where or NO_FILTER,
        )

    def coverage_note(self, mode: SearchMode, policy_version: str | None = None) -> str:
        """One line on what semantic search covers in ``mode`` ("" when all is embedded)."""
        from specbrowser.search.query import coverage_note  # deferred: 15 ms

        return coverage_note(self._db, policy_version, mode=mode)

    @property
    def vector_error(self) -> str | None:
        """Why this connection cannot run vector search (no sqlite-vec), or None."""
        return self._db.vector_error

    def vectors_off(self) -> str | None:
        """Why semantic and hybrid search cannot run (no sqlite-vec, no embeddings), or None."""
        if self.vector_error:
            return self.vector_error
        try:
            if self._db.vectors.model() is None:
                return "no embeddings yet (run: specbrowser embed DB)"
        except DB_ERRORS as error:
            return f"cannot read the embeddings ({error})"
        return None

    # --- the corpus -----------------------------------------------------------------------------

    def specs(self, policy_version: str | None = None) -> list[SpecListing]:
        """Every spec of the database with its sections and, in the active (or given) set, its
        chunks and how many of them have a vector under the stored model
        (:class:`SpecListing`)."""
        version = policy_version
        if version is None:
            try:
                version = self.active_version()
            except NotFoundError:
                version = None
        return self._db.corpus.listing(version, self.embedding_model())

    def stats_by_spec(
        self, policy_version: str | None = None
    ) -> list[tuple[SpecListing, ChunkSetStats]]:
        """Each spec's own counts in the active (or given) set, in corpus order
        (:func:`~specbrowser.chunking.stats.compute_stats` over its chunks and sections); [] for
        a database of one spec, whose counts are :meth:`stats`'."""
        version = self.resolve_version(policy_version) if policy_version else self.active_version()
        listings = self.specs(version)
        if len(listings) < 2:
            return []
        facts = self._db.chunk_facts
        return [(s, compute_stats([], s.sections, facts(version, s.spec.id))) for s in listings]

    def chunk_specs(
        self, chunk_ids: list[str], policy_version: str | None = None
    ) -> dict[str, str]:
        """Chunk id → the name of its spec, for those of ``chunk_ids`` in the active (or given)
        set (others left out)."""
        return self._db.corpus.chunk_documents(policy_version or self.active_version(), chunk_ids)

    def spec_rows(self) -> list[SpecRow]:
        """Every spec of the database, in corpus order (no counts: cheaper than :meth:`specs`)."""
        return self._db.corpus.all()

    def spec(self, name: str) -> SpecRow:
        """The spec ``name`` names (its name, shortname or title, any case).

        Raises:
            NotFoundError: none; the message lists the names.
        """
        return self._db.corpus.get(name)

    def remove_spec(self, name: str) -> tuple[SpecRow, int]:
        """Remove the spec named ``name`` (exactly as :meth:`specs` lists it) from every chunk
        set, whose stored stats are counted again without it; returns it and how many chunk
        rows went. The file is compacted afterwards.

        Raises:
            NotFoundError: no spec has that name.
            DatabaseError: the database is locked or read-only; nothing changes.
        """
        from specbrowser.session.corpus import recount_sets  # deferred: 2 ms

        removed = self._db.corpus.remove(name, then=lambda: recount_sets(self._db, alone=True))
        self._db.vacuum()
        return removed

    def cross_spec_links(self, policy_version: str | None = None) -> list[CrossSpecLinks]:
        """How the links from one spec into another resolve, per pair (:func:`cross_spec_links`)."""
        return cross_spec_links(self._db, policy_version or self.active_version())

    def embedding_model(self) -> str | None:
        """The model the stored embeddings were made with, or None."""
        stored = self._db.vectors.model()
        return stored[0] if stored else None

    def token_info(self, policy_version: str | None = None) -> TokenInfo | None:
        """The stored token counts of a chunk set, or None when never counted."""
        from specbrowser.search.tokens import token_info  # deferred: 5 ms

        return token_info(self._db, policy_version or self.active_version())
