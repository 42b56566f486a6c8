"""The ingest progress screen, shown while ``specbrowser open SPEC`` parses and chunks a spec."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Footer, Header, Label, ProgressBar, Static

STAGE_LABELS = {"chunking": "Chunking sections", "storing": "Storing chunks"}
"""Friendly names of the stages :func:`specbrowser.session.ingest.ingest` reports."""


class ProgressScreen(Screen[None]):
    """A progress bar for the ingest worker; the app feeds it through :meth:`set_progress`.

    Args:
        spec_names: the spec file names, shown above the bar.
    """

    def __init__(self, spec_names: list[str]) -> None:
        super().__init__(id="progress")
        self._spec_names = spec_names

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical(id="progress-box"):
            yield Label(
                f"Ingesting {', '.join(self._spec_names)}", id="progress-title", markup=False
            )
            yield Label("Parsing…", id="progress-stage", markup=False)
            yield ProgressBar(id="progress-bar", show_eta=False)
            yield Static("", id="progress-error", markup=False)
        yield Footer()

    def set_progress(self, stage: str, done: int, total: int) -> None:
        """Show ``done`` of ``total`` for a stage (a pulsing bar when ``total`` is 0: the stage
        is not counted)."""
        label = STAGE_LABELS.get(stage, stage)
        self.query_one("#progress-stage", Label).update(
            f"{label} ({done:,}/{total:,})" if total else f"{label}…"
        )
        self.query_one("#progress-bar", ProgressBar).update(total=total or None, progress=done)

    def show_error(self, message: str) -> None:
        """Show why the ingest stopped; the user quits or fixes the input and retries."""
        self.query_one("#progress-stage", Label).update("Ingest failed")
        self.query_one("#progress-bar", ProgressBar).display = False
        self.query_one("#progress-error", Static).update(message)
