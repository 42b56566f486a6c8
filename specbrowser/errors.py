"""Exceptions the core raises for user mistakes.

Every exception here carries a message fit to show a user as one line; the CLI prints it in red
and exits with status 2, the app shows it as a notification. Anything else is a bug.
"""

from __future__ import annotations

from typing import NoReturn, cast


class SpecbrowserError(Exception):
    """Base class: a problem caused by the input or the environment, not by a bug."""


def error_report(error: BaseException) -> tuple[str, object]:
    """How a child process reports an exception to its parent, picklable whatever the exception
    holds: ``("error", (class name, message))`` for a :class:`SpecbrowserError`, else
    ``("crash", "ClassName: message")``. :func:`raise_reported` raises it again."""
    if isinstance(error, SpecbrowserError):
        return "error", (type(error).__name__, str(error))
    return "crash", f"{type(error).__name__}: {error}"


def raise_reported(kind: str, payload: object, process: str) -> NoReturn:
    """Raise in the parent what :func:`error_report` reported from the child ``process`` (a
    name for messages, e.g. "the re-chunk process").

    Raises:
        SpecbrowserError: of the class the child named (this module's; else the base class),
            with its message, for an ``error`` report.
        RuntimeError: ``"<process> failed: <payload>"`` for anything else.
    """
    if kind == "error":
        name, message = cast("tuple[str, str]", payload)  # as error_report builds it
        found = globals().get(name)
        cls = (
            found
            if isinstance(found, type) and issubclass(found, SpecbrowserError)
            else SpecbrowserError
        )
        raise cls(message)
    raise RuntimeError(f"{process} failed: {payload}")


class SpecInputError(SpecbrowserError):
    """The spec path is missing, empty, or not HTML."""


class NoTerminalError(SpecbrowserError):
    """The app was asked for where there is no terminal to draw it on and read keys from."""


class QueryFileError(SpecbrowserError):
    """An evaluation query file that cannot be read: missing, empty, neither TSV nor JSONL, a
    missing column or key, or an expected id the database does not hold (the message names the
    file and the line)."""


class SpecParseError(SpecbrowserError):
    """The spec is HTML but holds nothing specbrowser can read as sections."""


class DatabaseError(SpecbrowserError):
    """The database path is unusable: a folder, not writable, locked, or not SQLite."""


class NotASpecbrowserDatabase(DatabaseError):
    """The file is SQLite but was not written by specbrowser (or by a newer schema)."""


class NotFoundError(SpecbrowserError):
    """A chunk or section id that does not exist in the database."""


class AmbiguousNameError(NotFoundError):
    """A name the spec defines in too many sections to name one place (a title that dozens of
    sections share); the message lists some of them."""


class PolicyError(SpecbrowserError):
    """A chunk policy setting is out of range (threshold, tags, max depth)."""


class EmbeddingError(SpecbrowserError):
    """An embedding model cannot be loaded (files missing, unknown name, no network), or its
    vectors do not fit the database (another model or dimension is stored there)."""


class VectorsUnavailable(EmbeddingError):
    """sqlite-vec is not loaded in this connection, so vectors can be neither stored nor searched
    ; the one-line reason comes from :func:`specbrowser.store.connection.connect`."""
