"""The application layer every front end shares: open a spec database, read it, search it,
compare and manage its chunk sets, and run the long jobs (:mod:`specbrowser.session.jobs`).

:class:`Session` (:mod:`specbrowser.session.core`) is what the CLI and the app hold;
:data:`DB_ERRORS` are the driver errors a front end catches where a database can change under
it (another process rewrote or removed the file).

They are loaded on first use (:func:`__getattr__`), so that importing a submodule does not
load the store (sqlite-utils and what it imports) before it is needed: an ingest imports it
while lxml parses the spec (:mod:`specbrowser.session.ingest`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from specbrowser.session.core import Session
    from specbrowser.store import ChunkSetInfo
    from specbrowser.store.connection import DB_ERRORS
    from specbrowser.store.corpus import SpecListing, SpecRow

__all__ = ["DB_ERRORS", "ChunkSetInfo", "Session", "SpecListing", "SpecRow"]


def __getattr__(name: str) -> object:
    """``Session``, ``ChunkSetInfo``, ``SpecListing``, ``SpecRow`` and ``DB_ERRORS``, imported
    when first asked for.

    Raises:
        AttributeError: any other name.
    """
    if name == "Session":
        from specbrowser.session.core import Session

        return Session
    if name == "ChunkSetInfo":
        from specbrowser.store import ChunkSetInfo

        return ChunkSetInfo
    if name in ("SpecRow", "SpecListing"):
        from specbrowser.store import corpus

        return getattr(corpus, name)
    if name == "DB_ERRORS":
        from specbrowser.store.connection import DB_ERRORS

        return DB_ERRORS
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
