"""The main screen: chunk tree on the left, chunk view on the right.

The screen owns navigation: the tree's cursor decides which chunk the view shows, and every
"go to" (a followed marker, the parent key, the jump palette, the overrun filter) goes through
:meth:`BrowserScreen.go_to_chunk`, which expands the tree down to the chunk.

It also owns the tree filter (:attr:`BrowserScreen.tree_filter`): it asks the core
(:mod:`specbrowser.session.filters`) what a filter keeps and hands the result down to the tree.

And search (``/``): the query runs in a thread worker on its own connection (SQLite
connections stay in the thread that opened them) and posts :class:`SearchFinished`; the
search bar lists the hits; choosing one goes to it through :meth:`BrowserScreen.go_to_chunk`
and starts *hit navigation*: ``n`` / ``N`` step through the hits (``n`` selects markers again
once Escape ends it).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.command import Provider
from textual.containers import Horizontal
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Footer, Header, Input, OptionList, Tree
from textual.worker import get_current_worker

from specbrowser.chunking.policy import ChunkPolicy
from specbrowser.errors import SpecbrowserError
from specbrowser.model import DOCUMENT_CHUNK_ID, Chunk
from specbrowser.search.query import Hit, searched_as_note
from specbrowser.session import DB_ERRORS, Session, filters
from specbrowser.session.links import link_hrefs
from specbrowser.tui.commands import FilterProvider, LinkProvider, SpecPalette
from specbrowser.tui.highlight import match_terms
from specbrowser.tui.messages import SearchFinished
from specbrowser.tui.registry import bindings, filter_title
from specbrowser.tui.screens.chunk_set_actions import ChunkSetActions
from specbrowser.tui.widgets.chunk_tree import ChunkTree
from specbrowser.tui.widgets.chunk_view import ChunkView
from specbrowser.tui.widgets.job_bar import JobBar
from specbrowser.tui.widgets.search_results import SearchBar, SearchResults
from specbrowser.types import SEARCH_MODES, FilterKind, SearchMode

LINK_PLACEHOLDER = "Follow a link of this chunk: type to filter…"
"""The link palette's prompt (``f`` with no marker selected)."""

LIVE_CHECK_SECONDS = 1.0
"""How often the browser asks the database whether another process changed it."""

REPEAT_SECONDS = 0.038
"""Keys closer together than this (by their own timestamps) are a key held down: terminals
repeat at most about 30 keys a second (33 ms). Separate presses, and Pilot's (two 20 ms waits
each at least), are further apart."""

PREFETCH_DELAY = 0.08
"""Seconds the tree cursor rests before the chunks a next key would show are rendered ahead
(:meth:`BrowserScreen.prefetch`): longer than the gap between repeated keys, so a held key
never waits for them."""

PREFETCH_STEP = 0.01
"""Seconds between two chunks rendered ahead, so that a key pressed meanwhile is handled after
one render at most."""

SEARCH_LIMIT = 50
"""Hits per search: a screenful or two of results, instant on ECMA-262."""


class BrowserScreen(ChunkSetActions, Screen[None]):
    """Browse the chunk hierarchy of one database.

    Args:
        db: the open database; read only through :mod:`specbrowser.store`.
        policy: the active chunk policy (its threshold is shown against chunk sizes).
    """

    BINDINGS: ClassVar[list[BindingType]] = list(bindings("browser"))
    COMMANDS: ClassVar[set[type[Provider] | Callable[[], type[Provider]]]] = {FilterProvider}

    def __init__(
        self,
        session: Session,
        policy: ChunkPolicy,
        *,
        cursor_blink: bool = True,
        count_tokens: bool = True,
    ) -> None:
        super().__init__(id="browser")
        self.count_tokens = count_tokens
        """Count the active set's tokens in the background on open and after each change."""
        self.session = session
        """The open database; workers open their own sessions on :attr:`Session.path`."""
        self.policy = policy
        self.cursor_blink = cursor_blink
        self.tree_filter: FilterKind | None = None
        self.shown_version = ""
        """The chunk set the tree and view show (the active one when last loaded)."""
        self._data_version = 0
        """The tree filter on, or None."""
        self.search_mode: SearchMode = SEARCH_MODES[0]
        self.search_query = ""
        """The query whose hits :attr:`search_hits` holds."""
        self.search_hits: list[Hit] = []
        self.hit_index: int | None = None
        """The hit shown while hit navigation is on (``n`` / ``N``), else None."""
        self._search_serial = 0
        self._prefetch_timer: Timer | None = None
        self._last_cursor_move = 0.0
        """When the tree cursor last moved, not for a go-to (``time.monotonic()``)."""
        self._going_to = False
        self._prefetch_queue: list[str] = []

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="browser-panes"):
            yield ChunkTree(self.session, id="chunk-tree")
            yield ChunkView(id="chunk-view")
        yield SearchBar(cursor_blink=self.cursor_blink, id="search-bar")
        yield JobBar(self.session.path, id="job-bar")
        yield Footer(compact=True)

    @property
    def search_bar(self) -> SearchBar:
        """The search bar (hidden until ``/``)."""
        return self.query_one(SearchBar)

    @property
    def chunk_tree(self) -> ChunkTree:
        """The chunk tree widget."""
        return self.query_one(ChunkTree)

    @property
    def chunk_view(self) -> ChunkView:
        """The chunk view widget."""
        return self.query_one(ChunkView)

    def shown_chunk(self) -> Chunk | None:
        """The chunk the view shows, or None."""
        return self.chunk_view.chunk

    def on_mount(self) -> None:
        """Start on the first top-level section, the search bar hidden."""
        self.chunk_view.boundaries_for = self.session.boundaries
        self.chunk_view.source_for = self.session.chunk_source
        self.chunk_view.previews_for = self.session.chunk_titles
        self.chunk_tree.on_cursor = self._cursor_moved
        self.search_bar.display = False
        first = self.session.top_level_chunks()[:1]
        if first:
            self.go_to_chunk(first[0].id)
        self.start_token_count()
        self.shown_version = self.session.active_version()
        self._data_version = self.session.data_version()
        self.set_interval(LIVE_CHECK_SECONDS, self.check_external_change)

    def check_external_change(self) -> None:
        """Reload in place when another process made another chunk set active (a re-chunk, an
        activation, the shown set deleted): the tree and view follow, on the same chunk (or its
        section) when the new set has it, and a notification says so. The app's own re-chunk
        reloads by itself, so nothing is checked while one runs."""
        if self.query_one(JobBar).running("rechunk"):
            return
        try:
            version = self.session.data_version()
            if version == self._data_version:
                return
            self._data_version = version
            active = self.session.active_version()
        except SpecbrowserError:
            return  # locked or mid-write: the next tick tries again
        if active == self.shown_version:
            return
        self.previous_version = self.shown_version
        self.chunk_set_changed()
        self.notify(
            f"another process made chunk set {active} active; showing it",
            title="Database changed",
            markup=False,
        )

    def _error(self, error: SpecbrowserError | str) -> None:
        self.notify(str(error), severity="error", markup=False)

    def go_to_chunk(self, chunk_id: str) -> bool:
        """Expand the tree down to a chunk, move the cursor there and show it.

        A missing id becomes a notification (ids come from spec text and links), never an error.
        Under a tree filter, a chunk the filter hides is shown in the view while the tree cursor
        stays where it is (a notification says so).
        """
        try:
            self._going_to = True  # the cursor moves for a go-to, not a key: never deferred
            try:
                selected = self.chunk_tree.select_chunk(chunk_id)
            finally:
                self._going_to = False
            if not selected:
                if self.tree_filter is None:
                    self._error(f"{chunk_id} is not in the tree")
                    return False
                self.session.chunk(chunk_id)  # a missing id is an error, not a note
                self.notify(
                    f"{chunk_id} is hidden by the filter "
                    f"({filter_title(self.tree_filter)}); the tree cursor stays",
                    markup=False,
                )
            self._show(chunk_id)
        except SpecbrowserError as error:
            self._error(error)
            return False
        return True

    def _show(self, chunk_id: str, *, repeating: bool = False) -> None:
        current = self.chunk_view.chunk
        if current is not None and current.id == chunk_id:
            return
        self.chunk_view.show_chunk(
            self.session.chunk(chunk_id), self.policy.threshold, defer=repeating
        )
        self._schedule_prefetch()

    def _schedule_prefetch(self) -> None:
        """Render ahead once the cursor has rested :data:`PREFETCH_DELAY` seconds."""
        self._prefetch_queue = []
        if self._prefetch_timer is not None:
            self._prefetch_timer.stop()
        self._prefetch_timer = self.set_timer(PREFETCH_DELAY, self.prefetch)

    def prefetch_candidates(self) -> list[str]:
        """The chunks a next key would show: the tree lines below and above the cursor, and
        the next chunk over the threshold when the shown one is (``o`` steps through them)."""
        tree = self.chunk_tree
        ids: list[str] = []
        for line in (tree.cursor_line + 1, tree.cursor_line - 1):
            node = tree.get_node_at_line(line) if line >= 0 else None
            if node is not None and node.data is not None:
                ids.append(node.data)
        shown = self.chunk_view.chunk
        if shown is not None and shown.over_threshold is not None:
            following = self.session.next_over_threshold(shown.ordinal)
            if following is not None:
                ids.append(following.id)
        return [
            chunk_id for chunk_id in dict.fromkeys(ids) if shown is None or chunk_id != shown.id
        ]

    def prefetch(self) -> None:
        """Render the next of :meth:`prefetch_candidates` into the chunk view's cache, one per
        :data:`PREFETCH_STEP`, so that Down, Up or ``o`` shows it without rendering."""
        if not self.is_current:
            return
        try:
            if not self._prefetch_queue:
                self._prefetch_queue = self.prefetch_candidates()
                if not self._prefetch_queue:
                    return
            chunk_id = self._prefetch_queue.pop(0)
            self.chunk_view.prepare(self.session.chunk(chunk_id))
        except SpecbrowserError:
            self._prefetch_queue = []  # a chunk gone (another process re-chunked): not now
            return
        if self._prefetch_queue:
            self._prefetch_timer = self.set_timer(PREFETCH_STEP, self._prefetch_more)

    def _prefetch_more(self) -> None:
        if self._prefetch_queue:
            self.prefetch()

    def _cursor_moved(self, chunk_id: str) -> None:
        """The tree's cursor moved (:attr:`ChunkTree.on_cursor`): show its chunk now; when a
        held key moved it (the tree's last keys under :data:`REPEAT_SECONDS` apart, and the
        cursor moved by a key within the last half second), a body that needs rendering waits
        until the keys stop (:meth:`ChunkView.show_chunk` ``defer``)."""
        repeating = False
        if not self._going_to:
            now = time.monotonic()
            repeating = (
                self.chunk_tree.key_gap < REPEAT_SECONDS
                and now - self._last_cursor_move < REPEAT_SECONDS + 0.5
            )
            self._last_cursor_move = now
        try:
            self._show(chunk_id, repeating=repeating)
        except SpecbrowserError as error:
            self._error(error)

    @on(Tree.NodeHighlighted, "#chunk-tree")
    def _node_highlighted(self, event: Tree.NodeHighlighted[str]) -> None:
        # shown already, unless the cursor moved before the screen was mounted; a message about
        # a node the cursor has left since (lines rebuilt under a go-to) is stale
        tree = self.chunk_tree
        if tree.moving_to is not None or event.node is not tree.cursor_node:
            return
        shown = self.chunk_view.chunk
        if event.node.data is not None and (shown is None or shown.id != event.node.data):
            self._cursor_moved(event.node.data)

    @on(ChunkView.FollowRequested)
    def _follow_requested(self, event: ChunkView.FollowRequested) -> None:
        self.go_to_id(event.chunk_id)

    def go_to_id(self, name: str) -> bool:
        """Go to the chunk ``name`` names: a chunk id (a marker's), else any name
        :meth:`Session.locate` reads (a section, the id of an element inside a section: an
        in-text link's anchor, a defined name). An unknown name is a notification."""
        try:
            located = self.session.locate(name)
        except SpecbrowserError as error:
            self._error(error)
            return False
        return self.go_to_chunk(located.chunk_id)

    def follow_link(self, href: str) -> None:
        """Follow an in-text link as a click does (:meth:`ChunkView.follow_href`)."""
        self.chunk_view.follow_href(href)

    def action_next_marker(self) -> None:
        """Select the next marker in the shown chunk."""
        if not self.chunk_view.select_marker(+1):
            self.notify("this chunk has no markers", severity="warning", markup=False)

    def action_previous_marker(self) -> None:
        """Select the previous marker in the shown chunk."""
        if not self.chunk_view.select_marker(-1):
            self.notify("this chunk has no markers", severity="warning", markup=False)

    def action_follow_marker(self) -> None:
        """Go to the chunk the selected marker points at; with no marker selected, choose one
        of the shown chunk's in-text links in a palette ("Follow a link")."""
        target = self.chunk_view.selected_target
        if target is not None:
            self.go_to_chunk(target)
            return
        chunk = self.chunk_view.chunk
        if chunk is None or not link_hrefs(chunk.text):
            self.notify(
                "no marker selected (press n or p first) and no link in this chunk",
                severity="warning",
                markup=False,
            )
            return
        self.app.push_screen(
            SpecPalette(
                providers=[LinkProvider],
                placeholder=LINK_PLACEHOLDER,
                id="--command-palette",
                cursor_blink=self.cursor_blink,
            )
        )

    def action_parent(self) -> None:
        """Go to the chunk (or enclosing section) that holds the shown chunk's marker, with that
        marker selected: after ``f``, ``u`` comes back to the marker that was followed."""
        chunk = self.chunk_view.chunk
        if chunk is None:
            return
        try:
            parent = self.session.tree_parent_id(chunk.id)
        except SpecbrowserError as error:
            self._error(error)
            return
        if parent is None:
            self.notify("a top-level section has no parent", severity="warning", markup=False)
            return
        if self.go_to_chunk(parent):
            self.chunk_view.select_marker_to(chunk.id)

    def action_toggle_retrieval_text(self) -> None:
        """Switch the chunk view between the content and the retrieval text (the indexed one)."""
        view = self.chunk_view
        view.show_retrieval_text = not view.show_retrieval_text

    def action_toggle_section_view(self) -> None:
        """Switch the chunk view between the chunk and its whole section with the chunks'
        boundaries (a click on a span goes to its chunk)."""
        view = self.chunk_view
        view.show_section = not view.show_section

    def action_toggle_source(self) -> None:
        """Switch the chunk view between the chunk and its source HTML."""
        view = self.chunk_view
        view.show_source = not view.show_source

    def action_show_document(self) -> None:
        """Go to the document synopsis chunk."""
        self.go_to_chunk(DOCUMENT_CHUNK_ID)

    def action_next_over_threshold(self) -> None:
        """Go to the next chunk over the threshold in document order, wrapping around."""
        after = self.chunk_view.chunk.ordinal if self.chunk_view.chunk is not None else -1
        chunk = self.session.next_over_threshold(after)
        if chunk is None:
            self.notify("no chunk is over the threshold", markup=False)
            return
        self.go_to_chunk(chunk.id)

    def action_toggle_filter(self, kind: FilterKind) -> None:
        """Toggle tree filter ``kind`` (the keys ``m``, ``O``, ``T`` and ``M``)."""
        self.toggle_tree_filter(kind)

    def toggle_tree_filter(self, kind: FilterKind) -> bool:
        """Turn filter ``kind`` on (replacing another one) or, if it is on, off."""
        return self.set_tree_filter(None if self.tree_filter == kind else kind)

    def set_tree_filter(self, kind: FilterKind | None) -> bool:
        """Show only what filter ``kind`` keeps (None: the whole tree) and keep the view's chunk
        selected when the new tree shows it (else select the first match).

        A filter that matches nothing is not turned on: a notification says why, and False is
        returned.
        """
        filtered: filters.FilteredTree | None = None
        if kind is not None:
            try:
                filtered = self.session.filtered_tree(kind)
            except SpecbrowserError as error:
                self._error(error)
                return False
            if not filtered.matches:
                self.notify(self._nothing_matches(kind), markup=False)
                return False
        self.tree_filter = kind
        tree = self.chunk_tree
        tree.show_filtered(filtered)
        tree.set_class(filtered is not None, "-filtered")
        tree.border_title = (
            f"{filter_title(filtered.kind)} · {len(filtered.matches):,}"
            if filtered is not None
            else None
        )
        current = self.chunk_view.chunk
        if current is not None and (filtered is None or current.id in filtered.shown):
            self.go_to_chunk(current.id)
        elif filtered is not None:
            self.go_to_chunk(filtered.matches[0])
        return True

    def _nothing_matches(self, kind: FilterKind) -> str:
        """Why filter ``kind`` has nothing to show (no TOC at all, or a TOC that agrees)."""
        if kind == filters.OVER_THRESHOLD:
            return "no chunk is over the threshold"
        if kind == filters.TINY:
            return "no tiny chunks"
        if kind == filters.MARKER_HEAVY:
            return "no chunk is mostly markers"
        if self.session.toc_size() == 0:
            return "no mismatched sections: the document has no table of contents"
        return "no mismatched sections: every section's heading path agrees with the TOC"

    # --- search -------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """``n`` / ``p`` select markers, except during hit navigation, when ``n`` / ``N`` step
        through the hits; Escape works only while there is a search to close or end; ``/`` and
        ``e`` are typed, not run, in a focused input (their bindings have priority, and Textual
        does not let an input claim ``/`` before them). Each key is hidden from the footer while
        it does nothing."""
        navigating = self.hit_index is not None
        if action in ("next_marker", "previous_marker"):
            return not navigating
        if action in ("next_hit", "previous_hit"):
            return navigating
        if action == "close_search":
            return navigating or self.search_bar.display
        if action == "cycle_search_mode":
            return self.search_bar.display
        # a focused input gets / and e typed: these two bindings have priority over it
        return not (action in ("search", "edit_policy") and isinstance(self.focused, Input))

    def vectors_off(self) -> str | None:
        """Why semantic and hybrid search cannot run (no sqlite-vec, no embeddings), or None."""
        return self.session.vectors_off()

    def action_cycle_search_mode(self) -> None:
        """ctrl+r in the search bar: the next search mode, and the query again in it. With
        embeddings unavailable the mode stays lexical and the status line says why."""
        off = self.vectors_off()
        if off is not None:
            self.search_mode = SEARCH_MODES[0]
            self.search_bar.set_status(
                Text.assemble(
                    (f"{self.search_mode} · ", "dim"), "semantic and hybrid search are off: ", off
                )
            )
            return
        self.search_mode = SEARCH_MODES[
            (SEARCH_MODES.index(self.search_mode) + 1) % len(SEARCH_MODES)
        ]
        self.start_search(self.search_bar.query_one("#search-input", Input).value)

    def action_search(self) -> None:
        """Open the search bar (with the last query and hits) and focus its input."""
        bar = self.search_bar
        bar.display = True
        search_input = bar.query_one("#search-input", Input)
        self.set_focus(search_input)  # now, not later: the next key typed goes to it
        search_input.select_all()
        self.refresh_bindings()

    def action_close_search(self) -> None:
        """Escape: close the search bar (focus back to the tree) and end hit navigation."""
        bar = self.search_bar
        if bar.display:
            bar.display = False
            self.chunk_tree.focus()
        self.end_hit_navigation()

    def end_hit_navigation(self) -> None:
        """Stop stepping through hits: ``n`` selects markers again, the highlights go."""
        if self.hit_index is not None:
            self.hit_index = None
            self.chunk_view.set_search_note(None)
            self.chunk_view.highlight_terms([])
        self.refresh_bindings()

    @on(Input.Submitted, "#search-input")
    def _search_submitted(self, event: Input.Submitted) -> None:
        """Enter in the search field: a new query is searched (the focus stays in the field);
        Enter again on the query whose hits are listed jumps to the highlighted hit."""
        event.stop()
        results = self.search_bar.query_one(SearchResults)
        if (
            event.value == self.search_query
            and self.search_hits
            and results.display
            and results.highlighted is not None
        ):
            self._jump_from_list(results.highlighted)
            return
        self.start_search(event.value)

    def start_search(self, query: str) -> None:
        """Run ``query`` in :attr:`search_mode` in a worker (the bar says so meanwhile)."""
        if not query.strip():
            self.search_bar.set_status(
                Text.assemble(
                    (f"{self.search_mode} · ", "dim"), "type words to search for, then Enter"
                )
            )
            return
        self._search_serial += 1
        self.search_bar.set_status(
            Text.assemble((f"{self.search_mode} · ", "dim"), "searching ", (query, "italic"), " …")
        )
        self._run_search(self._search_serial, query, self.search_mode)

    @work(thread=True, exclusive=True, group="search")
    def _run_search(self, serial: int, query: str, mode: SearchMode) -> None:
        """Search in a thread, on a connection of its own; post the hits, touch no widget."""
        worker = get_current_worker()
        try:
            with self.session.reopen() as session:
                hits = session.search(query, mode, limit=SEARCH_LIMIT)
                coverage = session.coverage_note(mode) if mode != SEARCH_MODES[0] else ""
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

    @on(SearchFinished)
    def _search_finished(self, message: SearchFinished) -> None:
        if message.serial != self._search_serial:
            return  # a newer search is running
        bar = self.search_bar
        if message.error is not None:
            bar.set_status(Text(message.error, style="red"))
            self._error(message.error)
            return
        self.end_hit_navigation()
        self.search_query = message.query
        self.search_hits = list(message.hits)
        bar.show_hits(message.query, message.mode, self.search_hits, message.note)
        # the focus stays where it is (the search field): ↑/↓ move the list's highlight from
        # there, Enter jumps, Tab goes into the list

    @on(OptionList.OptionSelected, "#search-results")
    def _hit_chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self._jump_from_list(event.option_index)

    def _jump_from_list(self, index: int) -> None:
        """Close the search bar, focus the tree and show hit ``index``."""
        self.search_bar.display = False
        self.chunk_tree.focus()
        self.go_to_hit(index)

    def go_to_hit(self, index: int) -> bool:
        """Show hit ``index`` of the last search (expanding the tree to it), highlight its
        matched words, and turn hit navigation on."""
        if not 0 <= index < len(self.search_hits):
            return False
        hit = self.search_hits[index]
        self.hit_index = index
        self.refresh_bindings()
        view = self.chunk_view
        shown = self.go_to_chunk(hit.chunk_id)
        if shown:
            view.highlight_terms(match_terms(self.search_query, hit.snippet))
        view.set_search_note(self._hit_note())
        return shown

    def _hit_note(self) -> Text:
        """The view header's hit line: query, mode, ``hit i/n`` and the keys."""
        assert self.hit_index is not None
        note = Text()
        note.append(f"{self.search_hits[self.hit_index].mode} search ", style="dim")
        note.append(self.search_query, style="italic")
        note.append(f"  hit {self.hit_index + 1}/{len(self.search_hits)}", style="bold")
        note.append("  (n / N next / previous, / the list, Esc ends)", style="dim")
        return note

    def action_next_hit(self) -> None:
        """Go to the next search hit, wrapping around."""
        self._step_hit(+1)

    def action_previous_hit(self) -> None:
        """Go to the previous search hit, wrapping around."""
        self._step_hit(-1)

    def _step_hit(self, step: int) -> None:
        if self.hit_index is None or not self.search_hits:
            return
        index = (self.hit_index + step) % len(self.search_hits)
        results = self.search_bar.query_one(SearchResults)
        results.highlighted = index
        self.go_to_hit(index)
