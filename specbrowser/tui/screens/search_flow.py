"""The browser's search (``/``) and hit navigation, for the browser screen to delegate to.

The search bar runs the query in a thread worker (:meth:`SearchBar.run_search`) and posts
:class:`~specbrowser.tui.messages.SearchFinished`; the screen hands it to
:meth:`SearchFlow.finished`, which lists the hits in the bar. Choosing one goes to it through
:meth:`BrowserScreen.go_to_chunk` and starts *hit navigation*: ``n`` / ``N`` step through the
hits, the view highlights the matched words and its header says which hit this is, until
Escape ends it (``n`` then selects markers again). In a database of several specs the search
covers all of them, or one (``ctrl+o`` in the bar steps through them:
:meth:`SearchFlow.cycle_spec`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.widgets import Input

from specbrowser.session import SpecRow
from specbrowser.tui.highlight import match_terms
from specbrowser.tui.messages import SearchFinished
from specbrowser.types import SEARCH_MODES, SearchMode

if TYPE_CHECKING:
    from specbrowser.search.hits import Hit
    from specbrowser.tui.screens.browser import BrowserScreen


class SearchFlow:
    """The search state of one browser screen and what changes it.

    Args:
        screen: the browser screen whose search bar, tree and view it drives.
        limit: hits per search.
    """

    def __init__(self, screen: BrowserScreen, limit: int) -> None:
        self.screen = screen
        self.limit = limit
        self.mode: SearchMode = SEARCH_MODES[0]
        self.spec: SpecRow | None = None
        """The spec the search covers, or None for the whole database (every spec)."""
        self.query = ""
        """The query whose hits :attr:`hits` holds."""
        self.hits: list[Hit] = []
        self.hit_index: int | None = None
        """The hit shown while hit navigation is on (``n`` / ``N``), else None."""
        self._serial = 0
        """Bumped by every search started: the results of an older one are dropped."""

    @property
    def navigating(self) -> bool:
        """Hit navigation is on: ``n`` / ``N`` step through the hits."""
        return self.hit_index is not None

    def _input(self) -> Input:
        return self.screen.search_bar.query_one("#search-input", Input)

    def scope_label(self) -> str:
        """The mode, and in a corpus the spec searched (``all specs`` or its name), as the
        status line starts: ``lexical`` or ``lexical · fetch``."""
        if self.spec is not None:
            return f"{self.mode} · {self.spec.name}"
        if len(self.screen.chunk_tree.spec_roots) > 1:
            return f"{self.mode} · all specs"
        return self.mode

    def _status(self, *parts: str | tuple[str, str]) -> None:
        """The bar's status line: the mode and scope (dim), then ``parts``."""
        self.screen.search_bar.set_status(
            Text.assemble((f"{self.scope_label()} · ", "dim"), *parts)
        )

    def open(self) -> None:
        """Open the search bar (with the last query and hits) and focus its input."""
        bar = self.screen.search_bar
        if not bar.query("#search-input"):  # mounted just now: its input comes with the refresh
            self.screen.call_after_refresh(self.open)
            return
        bar.display = True
        search_input = self._input()
        self.screen.set_focus(search_input)  # now, not later: the next key typed goes to it
        search_input.select_all()
        self.screen.refresh_bindings()

    def close(self) -> None:
        """Close the search bar (focus back to the tree) and end hit navigation."""
        bar = self.screen.search_bar
        if bar.display:
            bar.display = False
            self.screen.chunk_tree.focus()
        self.end_hit_navigation()

    def end_hit_navigation(self) -> None:
        """Stop stepping through hits: ``n`` selects markers again, the highlights go."""
        if self.hit_index is not None:
            self.hit_index = None
            self.screen.chunk_view.set_search_note(None)
            self.screen.chunk_view.highlight_terms([])
        self.screen.refresh_bindings()

    def reset(self) -> None:
        """Forget the hits (they named the chunks of a chunk set no longer shown)."""
        self.hits = []
        self.end_hit_navigation()

    def cycle_mode(self) -> None:
        """The next search mode, and the query again in it. With embeddings unavailable the
        mode stays lexical and the status line says why."""
        off = self.screen.vectors_off()
        if off is not None:
            self.mode = SEARCH_MODES[0]
            self._status("semantic and hybrid search are off: ", off)
            return
        self.mode = SEARCH_MODES[(SEARCH_MODES.index(self.mode) + 1) % len(SEARCH_MODES)]
        self.start(self._input().value)

    def cycle_spec(self) -> None:
        """The next scope (every spec, then each spec in corpus order, then every spec
        again), and the query again in it; the status line names it."""
        specs = list(self.screen.chunk_tree.spec_roots.values())
        if len(specs) < 2:
            return
        order: list[SpecRow | None] = [None, *specs]
        now = next((i for i, s in enumerate(order) if s == self.spec), 0)
        self.spec = order[(now + 1) % len(order)]
        query = self._input().value
        if query.strip():
            self.start(query)
        else:
            self._status("searching here; type words, then Enter")

    def submitted(self, value: str) -> None:
        """Enter in the search field: a new query is searched (the focus stays in the field);
        Enter again on the query whose hits are listed jumps to the highlighted hit."""
        results = self.screen.search_bar.results
        if (
            value == self.query
            and self.hits
            and results.display
            and results.highlighted is not None
        ):
            self.jump_from_list(results.highlighted)
            return
        self.start(value)

    def start(self, query: str) -> None:
        """Run ``query`` in :attr:`mode` in the bar's worker (the bar says so meanwhile)."""
        if not query.strip():
            self._status("type words to search for, then Enter")
            return
        self._serial += 1
        self._status("searching ", (query, "italic"), " …")
        self.screen.search_bar.run_search(
            self.screen.session,
            self._serial,
            query,
            self.mode,
            self.limit,
            self.spec.id if self.spec is not None else None,
        )

    def finished(self, message: SearchFinished) -> None:
        """A search ended: list its hits, or say why it failed (a stale search is dropped)."""
        if message.serial != self._serial:
            return  # a newer search is running
        bar = self.screen.search_bar
        if message.error is not None:
            bar.set_status(Text(message.error, style="red"))
            self.screen.show_error(message.error)
            return
        self.end_hit_navigation()
        self.query = message.query
        self.hits = list(message.hits)
        bar.show_hits(message.query, self.scope_label(), self.hits, message.note)
        # the focus stays where it is (the search field): ↑/↓ move the list's highlight from
        # there, Enter jumps, Tab goes into the list

    def jump_from_list(self, index: int) -> None:
        """Close the search bar, focus the tree and show hit ``index``."""
        self.screen.search_bar.display = False
        self.screen.chunk_tree.focus()
        self.go_to_hit(index)

    def go_to_hit(self, index: int) -> bool:
        """Show hit ``index`` of the last search (expanding the tree to it), highlight its
        matched words, and turn hit navigation on."""
        if not 0 <= index < len(self.hits):
            return False
        hit = self.hits[index]
        self.hit_index = index
        self.screen.refresh_bindings()
        view = self.screen.chunk_view
        shown = self.screen.go_to_chunk(hit.chunk_id)
        if shown:
            view.highlight_terms(match_terms(self.query, hit.snippet))
        view.set_search_note(self.hit_note())
        return shown

    def hit_note(self) -> Text:
        """The view header's hit line: query, mode, ``hit i/n`` and the keys."""
        assert self.hit_index is not None
        note = Text()
        note.append(f"{self.hits[self.hit_index].mode} search ", style="dim")
        note.append(self.query, style="italic")
        note.append(f"  hit {self.hit_index + 1}/{len(self.hits)}", style="bold")
        note.append("  (n / N next / previous, / the list, Esc ends)", style="dim")
        return note

    def step(self, step: int) -> None:
        """Go to the next (``step=1``) or previous (``-1``) hit, wrapping around."""
        if self.hit_index is None or not self.hits:
            return
        index = (self.hit_index + step) % len(self.hits)
        self.screen.search_bar.results.highlighted = index
        self.go_to_hit(index)
