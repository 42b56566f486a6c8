"""Messages that workers and widgets post upward to the app and screens."""

from __future__ import annotations

from pathlib import Path

from textual.message import Message


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
