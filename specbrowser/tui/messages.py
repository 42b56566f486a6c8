"""Messages that workers and widgets post upward to the app and screens."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from textual.message import Message

from specbrowser.types import SearchMode

if TYPE_CHECKING:
    from specbrowser.search.query import Hit


class IngestProgress(Message):
    """The ingest worker made progress: ``done`` of ``total`` units of ``stage``."""

    def __init__(self, stage: str, done: int, total: int) -> None:
        super().__init__()
        self.stage = stage
        self.done = done
        self.total = total


class IngestFinished(Message):
    """The ingest worker stored the spec in ``db_path``; the app can open it."""

    def __init__(self, db_path: Path) -> None:
        super().__init__()
        self.db_path = db_path


class IngestFailed(Message):
    """The ingest worker stopped on a user-facing error (a ``SpecbrowserError``)."""

    def __init__(self, error: str) -> None:
        super().__init__()
        self.error = error


class SearchFinished(Message):
    """The search worker's hits (best first) for ``query`` in ``mode``, or the one-line
    ``error`` that stopped it; ``serial`` tells the screen whether a newer search has started
    since; ``note`` says what semantic search covers (empty when all is embedded)."""

    def __init__(
        self,
        serial: int,
        query: str,
        mode: SearchMode,
        hits: list[Hit],
        error: str | None = None,
        note: str = "",
    ) -> None:
        super().__init__()
        self.serial = serial
        self.query = query
        self.mode = mode
        self.hits = hits
        self.error = error
        self.note = note
