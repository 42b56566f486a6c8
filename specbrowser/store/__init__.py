"""The SQLite file, and every SQL statement of specbrowser: :class:`SpecStore` (open one with
:meth:`SpecStore.open`) and its named parts, in the manner of sqlite-utils' ``Database`` and
its tables.

- ``SpecStore`` itself (``database``): the connection, its transaction, ``vacuum``, and the
  reads of a set's chunks (``chunk``, ``chunks``, ``iter_chunks``, counts, sizes, full-text
  search, the browser's tree: ``chunks``, ``queries``, ``tree``);
- ``store.sections`` (``sections``): the documents and their sections;
- ``store.corpus`` (``corpus``): the specs of the database, their names, identity, ids, removal;
- ``store.sets`` (``sets``): the chunk sets, the ingest's one write, the active set;
- ``store.toc`` (``toc``): the TOC and its mismatches;
- ``store.symbols`` (``symbols``): the symbol index and each set's anchor map;
- ``store.trees`` (``reuse``): the chunk trees a re-chunk copies;
- ``store.cache`` (``cache``): each section's cached Markdown conversion;
- ``store.vectors`` (``vectors``): embeddings and the KNN index;
- ``store.tokens`` (``tokens``): token counts by model and retrieval text.

Every table, index and migration is in ``schema``; ``rows`` builds rows, ``connection`` opens
the driver with sqlite-vec and turns driver errors into one line.

One database holds a corpus of specs (:mod:`specbrowser.store.corpus`), each with its
document row and its sections (own HTML kept, so re-chunking never needs the source; and what
all chunks of a section share: heading path, TOC path, mismatch, number); the policies the
corpus was chunked with; and one chunk set per policy version spanning every spec, one of them
active (the one commands and the app read unless told otherwise). A set is its ``chunk_rows``;
their texts are ``texts`` rows shared by every set that has them; readers use the ``chunks``
view (:mod:`specbrowser.store.schema`). All SQL is parameterized; ids are data and never become
part of a statement. The store persists and queries what it is handed: it reads nothing from
HTML and computes no statistics (:mod:`specbrowser.session.stores` does, with the formats and
the chunking library).
"""

from __future__ import annotations

from specbrowser.store.chunks import CHUNK_COLUMNS, NO_CHUNK_SET
from specbrowser.store.connection import BACKGROUND_BUSY_TIMEOUT_S
from specbrowser.store.database import SpecStore
from specbrowser.store.schema import FTS_TOKENIZER, PAGE_SIZE, SCHEMA_VERSION
from specbrowser.store.sets import (
    INGEST_ADDED,
    INGEST_CREATED,
    INGEST_REPLACED_SET,
    INGEST_REPLACED_SPEC,
    ChunkSetInfo,
    sections_digest,
)

__all__ = [
    "BACKGROUND_BUSY_TIMEOUT_S",
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
    "open_database",
    "sections_digest",
]

open_database = SpecStore.open
"""The same as :meth:`SpecStore.open`."""
