"""The store as the session layer opens and reads it, with what the store does not compute.

The store persists and queries what it is handed; reading a spec's symbols from section HTML
(:func:`specbrowser.formats.symbols.spec_symbols`) and counting a chunk set's statistics
(:func:`specbrowser.chunking.stats.compute_stats`) are the formats' and the chunking library's
work, done here and handed to it.
"""

from __future__ import annotations

from pathlib import Path

from specbrowser.chunking.stats import ChunkSetStats, compute_stats
from specbrowser.store import SpecStore


def open_store(
    path: Path | str, *, create: bool = False, busy_timeout_s: float | None = None
) -> SpecStore:
    """:meth:`SpecStore.open`, then the symbol index read from the stored sections when the
    database still lacks it (one upgraded from schema 7), in its own transaction.

    Raises:
        DatabaseError, NotASpecbrowserDatabase: as :meth:`SpecStore.open`.
    """
    store = SpecStore.open(path, create=create, busy_timeout_s=busy_timeout_s)
    try:
        if store.symbols.pending():
            # deferred: the formats and lxml (18 ms), only for a database upgraded from schema 7
            from specbrowser.formats.symbols import spec_symbols

            symbols = spec_symbols(store.sections.all())
            with store.transaction("the symbol index"):
                store.symbols.replace(symbols)
    except BaseException:
        store.close()
        raise
    return store


def chunk_stats(store: SpecStore, policy_version: str | None = None) -> ChunkSetStats:
    """Counts of a chunk set (the active one by default) as ``specbrowser stats`` shows them:
    sections, chunks, sizes, overruns, unresolved markers.

    Raises:
        NotFoundError: no chunk set has that version (or none is active).
    """
    return compute_stats(list(store.iter_chunks(policy_version)), store.sections.count())
