"""The application layer every front end shares: open a spec database, read it, search it,
compare and manage its chunk sets, and run the long jobs (:mod:`specbrowser.session.jobs`).

:class:`Session` (:mod:`specbrowser.session.core`) is what the CLI and the app hold;
:data:`DB_ERRORS` are the driver errors a front end catches where a database can change under
it (another process rewrote or removed the file).
"""

from specbrowser.session.core import Session
from specbrowser.store import ChunkSetInfo
from specbrowser.store.connection import DB_ERRORS

__all__ = ["DB_ERRORS", "ChunkSetInfo", "Session"]
