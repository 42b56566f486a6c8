"""The search bar of the browser screen: a query input, a status line and the results list.

The bar runs a search when the screen asks (:meth:`SearchBar.run_search`: a thread worker on a
connection of its own, since SQLite connections stay in the thread that opened them) and posts
:class:`~specbrowser.tui.messages.SearchFinished` up to the screen, which hands the hits back
with :meth:`SearchBar.show_hits`; choosing a result posts ``OptionList.OptionSelected`` from
``#search-results``, whose ``option_index`` is the hit's index in :attr:`SearchBar.hits`.

Every row is built as ``Text`` from spec text (titles, paths, snippets), never parsed as markup.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Input, OptionList, Static
from textual.worker import get_current_worker

from specbrowser.errors import SpecbrowserError
from specbrowser.search.literal import is_searchable
from specbrowser.search.query import Hit, SearchFilter, searched_as_note
from specbrowser.session import DB_ERRORS, Session
from specbrowser.tui.highlight import snippet_text
from specbrowser.tui.messages import SearchFinished
from specbrowser.tui.widgets.ordered_input import OrderedInput
from specbrowser.types import SEARCH_MODES, SearchMode

PATH_SEPARATOR = " › "
"""Between the titles of a hit's heading path (as in the chunk view's header)."""

SEARCH_PLACEHOLDER = (
    "Search the chunk texts (literal: [[Prototype]], C++, for-in …); Enter searches, "
    "ctrl+r changes the mode"
)


SCORE_WIDTH = 8
"""Columns of the score; the snippet line is indented past it."""


def format_score(score: float) -> str:
    """A score in :data:`SCORE_WIDTH` columns: two decimals, or an exponent for the tiny BM25
    scores of a word most chunks hold (``1.9e-06``)."""
    text = f"{score:.2f}" if score == 0 or abs(score) >= 0.01 else f"{score:.1e}"
    return text.rjust(SCORE_WIDTH)


def hit_row(hit: Hit) -> Text:
    """One results-list row: score, mode, chunk id and heading path on the first line, the
    snippet (matched terms highlighted) on the second (the list cuts both to its width)."""
    row = Text()
    row.append(format_score(hit.score), style="bold")
    row.append(f" {hit.mode} ", style="dim")
    row.append(hit.chunk_id, style="bold")
    row.append("  ")
    row.append(PATH_SEPARATOR.join(hit.heading_path) or hit.title, style="italic")
    if hit.title and hit.heading_path and hit.title != hit.heading_path[-1]:
        row.append(PATH_SEPARATOR)
        row.append(hit.title)
    row.append("\n" + " " * SCORE_WIDTH + " ")
    row.append_text(snippet_text(hit.snippet))
    return row


class SearchResults(OptionList):
    """The hits of one search, one two-line option each, best first."""

    def show_hits(self, hits: list[Hit]) -> None:
        """Replace the options with ``hits`` and highlight the first."""
        self.clear_options()
        self.add_options([hit_row(hit) for hit in hits])
        self.highlighted = 0 if hits else None


class SearchBar(Vertical):
    """The query input (``#search-input``), a status line (``#search-status``: mode, hit
    count, errors) and the results (``#search-results``). Hidden until ``/``.

    The focus stays in the input after a search; there ↑/↓ move the results' highlight (the
    bar's bindings: the list handles them itself once focused, e.g. after Tab).

    Args:
        cursor_blink: False turns off the input cursor's blink (tests, snapshots).
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("down", "move_highlight(1)", "Next hit", show=False),
        Binding("up", "move_highlight(-1)", "Previous hit", show=False),
    ]

    def __init__(self, *, cursor_blink: bool = True, id: str | None = None) -> None:
        super().__init__(id=id)
        self._cursor_blink = cursor_blink
        self.hits: list[Hit] = []
        """The hits the list shows, in its order."""

    def compose(self) -> ComposeResult:
        yield OrderedInput(placeholder=SEARCH_PLACEHOLDER, compact=True, id="search-input")
        yield Static(id="search-status", markup=False)
        yield SearchResults(id="search-results")

    @property
    def results(self) -> SearchResults:
        """The result list (``#search-results``)."""
        return self.query_one(SearchResults)

    def on_mount(self) -> None:
        """Apply the cursor blink setting; nothing to list yet."""
        self.query_one("#search-input", Input).cursor_blink = self._cursor_blink
        self.query_one(SearchResults).display = False

    def action_move_highlight(self, step: int) -> None:
        """Move the results' highlight by ``step`` (from the input; clamped to the list)."""
        results = self.query_one(SearchResults)
        if not results.display or not results.option_count:
            return
        current = results.highlighted if results.highlighted is not None else -1
        results.highlighted = max(0, min(results.option_count - 1, current + step))

    def set_status(self, status: Text | str) -> None:
        """Show one status line (a string is shown literally)."""
        self.query_one("#search-status", Static).update(
            Text(status) if isinstance(status, str) else status
        )

    def show_hits(self, query: str, scope: str, hits: list[Hit], note: str = "") -> None:
        """List ``hits`` of ``query`` and say how many after ``scope`` (the mode, and in a
        corpus the spec searched), then ``note`` (what semantic search covers); "no hits" hides
        the list."""
        self.hits = list(hits)
        results = self.query_one(SearchResults)
        results.show_hits(self.hits)
        results.display = bool(hits)
        status = Text()
        status.append(f"{scope} · ", style="dim")
        if hits:
            status.append(f"{len(hits)} hit{'s' if len(hits) != 1 else ''}", style="bold")
            status.append(" for ")
            status.append(query, style="italic")
            if note:
                status.append(f"  {note}", style="yellow")
            status.append(
                "  (↑/↓ choose, Enter jumps, then n / N next / previous hit; Esc closes)",
                style="dim",
            )
        else:
            status.append("no hits", style="bold")
            status.append(" for ")
            status.append(query, style="italic")
            if note:
                status.append(f"  {note}", style="yellow")
        self.set_status(status)

    @work(thread=True, exclusive=True, group="search")
    def run_search(
        self,
        session: Session,
        serial: int,
        query: str,
        mode: SearchMode,
        limit: int,
        document_id: str | None = None,
    ) -> None:
        """Search in a thread, on a connection of its own (``session`` reopened), the spec
        ``document_id`` only (None: every spec); post the hits as :class:`SearchFinished`
        numbered ``serial``, touch no widget."""
        worker = get_current_worker()
        if not is_searchable(query):  # nothing is indexed of it: no hits, one note
            note = searched_as_note(query) or "the query has no letters or digits to search for"
            self.post_message(SearchFinished(serial, query, mode, [], note=note))
            return
        try:
            with session.reopen() as own:
                where = SearchFilter(document_id=document_id) if document_id else None
                hits = own.search(query, mode, limit=limit, where=where)
                coverage = own.coverage_note(mode) if mode != SEARCH_MODES[0] else ""
            note = "  ".join(line for line in (searched_as_note(query, mode), coverage) if line)
        except SpecbrowserError as error:
            self.post_message(SearchFinished(serial, query, mode, [], error=str(error)))
            return
        except DB_ERRORS as error:  # e.g. the file changed under us; never a traceback
            self.post_message(
                SearchFinished(serial, query, mode, [], error=f"search failed: {error}")
            )
            return
        if not worker.is_cancelled:
            self.post_message(SearchFinished(serial, query, mode, hits, note=note))
