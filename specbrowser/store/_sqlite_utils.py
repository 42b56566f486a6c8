"""Load sqlite-utils without the numpy and pandas imports it makes when they are installed.

sqlite-utils imports numpy and pandas, when present, only to map their scalar types to column
types for tables it creates from Python values. specbrowser never hands it such values (its
rows hold str, int, float and bytes), and the imports would cost every command's start (numpy
is installed with fastembed; pandas is heavier still). While sqlite-utils loads,
the two are hidden (a ``None`` entry in ``sys.modules`` makes their import raise ImportError,
which sqlite-utils expects); afterwards they import as usual (fastembed imports numpy).
:class:`specbrowser.store.sqldb.SqlDatabase` loads sqlite-utils through
:func:`load_sqlite_utils` when it first needs it.
"""

from __future__ import annotations

import sys
from types import ModuleType

OPTIONAL_IMPORTS = ("numpy", "pandas")
"""What sqlite-utils imports only for its type mappings."""


def load_sqlite_utils() -> ModuleType:
    """The ``sqlite_utils`` module, imported (once) with :data:`OPTIONAL_IMPORTS` hidden unless
    already loaded."""
    if "sqlite_utils" in sys.modules:
        return sys.modules["sqlite_utils"]
    hidden = [name for name in OPTIONAL_IMPORTS if name not in sys.modules]
    for name in hidden:
        sys.modules[name] = None  # type: ignore[assignment]
    try:
        import sqlite_utils
    finally:
        for name in hidden:
            if sys.modules.get(name, 0) is None:
                del sys.modules[name]
    return sqlite_utils
