"""Exceptions the core raises for user mistakes.

Every exception here carries a message fit to show a user as one line; the CLI prints it in red
and exits with status 2, the app shows it as a notification. Anything else is a bug.
"""

from __future__ import annotations


class SpecbrowserError(Exception):
    """Base class: a problem caused by the input or the environment, not by a bug."""


def error_class(name: str) -> type[SpecbrowserError]:
    """The class of this module called ``name`` (as a child process reports an error it raised,
    by class name and message), or :class:`SpecbrowserError` for an unknown name."""
    found = globals().get(name)
    return found if isinstance(found, type) and issubclass(found, SpecbrowserError) \
        else SpecbrowserError


class SpecInputError(SpecbrowserError):
    """The spec path is missing, empty, or not HTML."""


class SpecParseError(SpecbrowserError):
    """The spec is HTML but holds nothing specbrowser can read as sections."""


class DatabaseError(SpecbrowserError):
    """The database path is unusable: a folder, not writable, locked, or not SQLite."""


class NotASpecbrowserDatabase(DatabaseError):
    """The file is SQLite but was not written by specbrowser (or by a newer schema)."""


class NotFoundError(SpecbrowserError):
    """A chunk or section id that does not exist in the database."""


class PolicyError(SpecbrowserError):
    """A chunk policy setting is out of range (threshold, tags, max depth)."""


class EmbeddingError(SpecbrowserError):
    """An embedding model cannot be loaded (files missing, unknown name, no network), or its
    vectors do not fit the database (another model or dimension is stored there: case C26)."""


class VectorsUnavailable(EmbeddingError):
    """sqlite-vec is not loaded in this connection, so vectors can be neither stored nor searched
    (case C22); the one-line reason comes from :func:`specbrowser.connection.connect`."""
