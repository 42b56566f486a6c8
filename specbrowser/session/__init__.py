"""The application layer every front end shares: open a spec database, read it, search it,
compare and manage its chunk sets, and run the long jobs (:mod:`specbrowser.session.jobs`).

:class:`Session` (:mod:`specbrowser.session.core`) is what the CLI and the app hold.
"""

from specbrowser.session.core import Session

__all__ = ["Session"]
