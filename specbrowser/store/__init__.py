"""The SQLite file, and every SQL statement of specbrowser: :class:`SpecStore` (open one with
:func:`open_database`), the writes of ingest and chunk-set management, and the reads of sections
and chunk sets. Modules: ``database`` (SpecStore), ``schema`` (tables, named migrations),
``sets`` (ingest's write, chunk sets), ``sections`` (the document and its sections),
``chunks``/``queries``/``tree``/``tokens`` (SpecStore's query methods), ``vectors`` (embeddings,
KNN), ``cache`` (Markdown cache), ``reuse`` (chunk trees a re-chunk copies), ``symbols`` (the
symbol index and each set's anchor map), ``toc``, ``rows``
(row building), ``connection`` (the driver, sqlite-vec, one-line errors).

One database holds one spec: its document row, its sections (own HTML kept, so re-chunking never
needs the source; and what all chunks of a section share: heading path, TOC path, mismatch,
number), the policies it was chunked with, and one chunk set per policy version, one of them
active (the one commands and the app read unless told otherwise). A set is its ``chunk_rows``;
their texts are ``texts`` rows shared by every set that has them; readers use the ``chunks``
view (:mod:`specbrowser.store.schema`). All SQL is parameterized; ids are data and never become
part of a statement.
"""

from __future__ import annotations

from collections.abc import Iterator

import specbrowser.store._sqlite_utils  # noqa: F401  (first: loads sqlite-utils, see there)
from specbrowser.model import Chunk
from specbrowser.store.chunks import CHUNK_COLUMNS, NO_CHUNK_SET
from specbrowser.store.database import SpecStore
from specbrowser.store.schema import FTS_TOKENIZER, PAGE_SIZE, SCHEMA_VERSION
from specbrowser.store.sections import (
    find_sections,
    get_document,
    get_section,
    list_sections,
    resolve_section,
    section_html,
    section_titles,
)
from specbrowser.store.sets import (
    INGEST_ADDED,
    INGEST_CREATED,
    INGEST_REPLACED_SET,
    INGEST_REPLACED_SPEC,
    ChunkSetInfo,
    activate_chunk_set,
    active_policy,
    begin_ingest,
    count_chunk_sets,
    delete_chunk_sets,
    insert_chunk_set,
    list_chunk_sets,
    resolve_version,
    section_mismatches,
    sections_digest,
    vacuum,
)

__all__ = [
    "CHUNK_COLUMNS",
    "FTS_TOKENIZER",
    "INGEST_ADDED",
    "INGEST_CREATED",
    "INGEST_REPLACED_SET",
    "INGEST_REPLACED_SPEC",
    "NO_CHUNK_SET",
    "PAGE_SIZE",
    "SCHEMA_VERSION",
    "ChunkSetInfo",
    "SpecStore",
    "activate_chunk_set",
    "active_policy",
    "active_version",
    "begin_ingest",
    "count_chunk_sets",
    "delete_chunk_sets",
    "document_chunk",
    "find_sections",
    "get_chunk",
    "get_chunks",
    "get_document",
    "get_section",
    "insert_chunk_set",
    "iter_chunks",
    "iter_descendants",
    "list_chunk_sets",
    "list_sections",
    "next_over_threshold",
    "open_database",
    "resolve_section",
    "resolve_version",
    "section_html",
    "section_mismatches",
    "section_titles",
    "sections_digest",
    "subsections_of",
    "top_level_chunks",
    "tree_parent_id",
    "vacuum",
]

open_database = SpecStore.open
"""The same as :meth:`SpecStore.open`."""


def active_version(store: SpecStore) -> str:
    """:meth:`SpecStore.active_version`."""
    return store.active_version()


def get_chunk(store: SpecStore, chunk_id: str, policy_version: str | None = None) -> Chunk:
    """:meth:`SpecStore.chunk`."""
    return store.chunk(chunk_id, policy_version)


def get_chunks(
    store: SpecStore, chunk_ids: list[str], policy_version: str | None = None
) -> list[Chunk]:
    """:meth:`SpecStore.chunks`."""
    return store.chunks(chunk_ids, policy_version)


def document_chunk(store: SpecStore, policy_version: str | None = None) -> Chunk | None:
    """:meth:`SpecStore.document_chunk`."""
    return store.document_chunk(policy_version)


def top_level_chunks(store: SpecStore, policy_version: str | None = None) -> list[Chunk]:
    """:meth:`SpecStore.top_level_chunks`."""
    return store.top_level_chunks(policy_version)


def subsections_of(
    store: SpecStore, chunk: Chunk, policy_version: str | None = None
) -> list[Chunk]:
    """:meth:`SpecStore.subsections`."""
    return store.subsections(chunk, policy_version)


def iter_descendants(
    store: SpecStore, chunk_id: str, policy_version: str | None = None
) -> Iterator[Chunk]:
    """:meth:`SpecStore.descendants`."""
    return store.descendants(chunk_id, policy_version)


def iter_chunks(store: SpecStore, policy_version: str | None = None) -> Iterator[Chunk]:
    """:meth:`SpecStore.iter_chunks`."""
    return store.iter_chunks(policy_version)


def next_over_threshold(
    store: SpecStore, after_ordinal: int, policy_version: str | None = None
) -> Chunk | None:
    """:meth:`SpecStore.next_over_threshold`."""
    return store.next_over_threshold(after_ordinal, policy_version)


def _version(store: SpecStore, policy_version: str | None) -> str:
    return policy_version or store.active_version()


def tree_parent_id(
    store: SpecStore, chunk_id: str, policy_version: str | None = None
) -> str | None:
    """The chunk whose ``subsections`` list ``chunk_id``: its parent in the browser's tree, None
    for a top-level section and for the document chunk (the rule:
    :func:`specbrowser.store.tree.tree_parent`).

    Raises:
        NotFoundError: no chunk with that id.
    """
    return store.tree_parent_id(chunk_id, _version(store, policy_version))
