"""The main screen: chunk tree on the left, chunk view on the right.

The screen mediates between its widgets, which post messages up to it. It owns navigation: the
tree's cursor decides which chunk the view shows, and every "go to" (a followed marker, the
parent key, the jump palette, the overrun filter, a search hit) goes through
:meth:`BrowserScreen.go_to_chunk`, which expands the tree down to the chunk. It also owns the
tree filter (:attr:`BrowserScreen.tree_filter`): it asks the core
(:mod:`specbrowser.session.filters`) what a filter keeps and hands the result down to the tree.

Its keys come from :mod:`specbrowser.tui.registry`. Three helpers hold the rest, each one
concern: :class:`~specbrowser.tui.screens.search_flow.SearchFlow` the search and hit
navigation, :class:`~specbrowser.tui.screens.chunk_set_actions.ChunkSetLoop` the chunk sets and
background jobs, :class:`~specbrowser.tui.screens.prefetch.Prefetcher` rendering ahead.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.command import Provider
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Footer, Header, Input, OptionList, Tree

from specbrowser.chunking.policy import ChunkPolicy
from specbrowser.errors import SpecbrowserError
from specbrowser.model import DOCUMENT_CHUNK_ID, Chunk
from specbrowser.search.query import Hit
from specbrowser.session import Session, filters
from specbrowser.session.links import link_hrefs
from specbrowser.tui.commands import FilterProvider, LinkProvider, SpecPalette
from specbrowser.tui.messages import SearchFinished
from specbrowser.tui.registry import bindings, filter_title
from specbrowser.tui.screens.chunk_set_actions import ChunkSetLoop
from specbrowser.tui.screens.prefetch import Prefetcher
from specbrowser.tui.screens.search_flow import SearchFlow
from specbrowser.tui.widgets.chunk_tree import ChunkTree
from specbrowser.tui.widgets.chunk_view import ChunkView
from specbrowser.tui.widgets.job_bar import JobBar, JobFinished
from specbrowser.tui.widgets.search_results import SearchBar
from specbrowser.types import FilterKind, SearchMode

LINK_PLACEHOLDER = "Follow a link of this chunk: type to filter…"
"""The link palette's prompt (``f`` with no marker selected)."""

LIVE_CHECK_SECONDS = 1.0
"""How often the browser asks the database whether another process changed it."""

REPEAT_SECONDS = 0.038
"""Keys closer together than this (by their own timestamps) are a key held down: terminals
repeat at most about 30 keys a second (33 ms). Separate presses, and Pilot's (two 20 ms waits
each at least), are further apart."""

SEARCH_LIMIT = 50
"""Hits per search: a screenful or two of results, instant on ECMA-262."""


class BrowserScreen(Screen[None]):
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
        """The tree filter on, or None."""
        self.shown_version = ""
        """The chunk set the tree and view show (the active one when last loaded)."""
        self._last_cursor_move = 0.0
        """When the tree cursor last moved, not for a go-to (``time.monotonic()``)."""
        self._going_to = False
        self.search = SearchFlow(self, SEARCH_LIMIT)
        """The search and hit navigation (``/``, ``n`` / ``N``)."""
        self.chunk_sets = ChunkSetLoop(self)
        """The chunk sets and background jobs (``e``, ``c``, ``d``, ``s``, ``v``, ``E``)."""
        self.prefetcher = Prefetcher(self)

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

    @property
    def job_bar(self) -> JobBar | None:
        """The background jobs' bar (None when the screen has no database file)."""
        return self.chunk_sets.job_bar

    @property
    def previous_version(self) -> str | None:
        """The set active before the last re-chunk or switch (``d`` diffs against it)."""
        return self.chunk_sets.previous_version

    @previous_version.setter
    def previous_version(self, version: str | None) -> None:
        self.chunk_sets.previous_version = version

    @property
    def search_mode(self) -> SearchMode:
        """The mode the next search runs in (``ctrl+r`` in the bar changes it)."""
        return self.search.mode

    @property
    def search_query(self) -> str:
        """The query whose hits :attr:`search_hits` holds."""
        return self.search.query

    @property
    def search_hits(self) -> list[Hit]:
        """The hits of the last search."""
        return self.search.hits

    @property
    def hit_index(self) -> int | None:
        """The hit shown while hit navigation is on (``n`` / ``N``), else None."""
        return self.search.hit_index

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
        self.chunk_sets.start_token_count()
        self.shown_version = self.session.active_version()
        self.chunk_sets.watch_database(LIVE_CHECK_SECONDS)

    def show_error(self, error: SpecbrowserError | str) -> None:
        """An error as a notification (never a traceback)."""
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
                    self.show_error(f"{chunk_id} is not in the tree")
                    return False
                self.session.chunk(chunk_id)  # a missing id is an error, not a note
                self.notify(
                    f"{chunk_id} is hidden by the filter "
                    f"({filter_title(self.tree_filter)}); the tree cursor stays",
                    markup=False,
                )
            self._show(chunk_id)
        except SpecbrowserError as error:
            self.show_error(error)
            return False
        return True

    def _show(self, chunk_id: str, *, repeating: bool = False) -> None:
        current = self.chunk_view.chunk
        if current is not None and current.id == chunk_id:
            return
        self.chunk_view.show_chunk(
            self.session.chunk(chunk_id), self.policy.threshold, defer=repeating
        )
        self.prefetcher.schedule()

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
            self.show_error(error)

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
            self.show_error(error)
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
            self.show_error(error)
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
                self.show_error(error)
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

    # --- keys that depend on the state ----------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """``n`` / ``p`` select markers, except during hit navigation, when ``n`` / ``N`` step
        through the hits; Escape works only while there is a search to close or end; ``/`` and
        ``e`` are typed, not run, in a focused input (their bindings have priority, and Textual
        does not let an input claim ``/`` before them). Each key is hidden from the footer while
        it does nothing."""
        navigating = self.search.navigating
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

    # --- search (SearchFlow) ---------------------------------------------------------------------

    def vectors_off(self) -> str | None:
        """Why semantic and hybrid search cannot run (no sqlite-vec, no embeddings), or None."""
        return self.session.vectors_off()

    def action_search(self) -> None:
        """Open the search bar (with the last query and hits) and focus its input."""
        self.search.open()

    def action_close_search(self) -> None:
        """Escape: close the search bar (focus back to the tree) and end hit navigation."""
        self.search.close()

    def action_cycle_search_mode(self) -> None:
        """ctrl+r in the search bar: the next search mode, and the query again in it."""
        self.search.cycle_mode()

    def action_next_hit(self) -> None:
        """Go to the next search hit, wrapping around."""
        self.search.step(+1)

    def action_previous_hit(self) -> None:
        """Go to the previous search hit, wrapping around."""
        self.search.step(-1)

    @on(Input.Submitted, "#search-input")
    def _search_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.search.submitted(event.value)

    @on(SearchFinished)
    def _search_finished(self, message: SearchFinished) -> None:
        self.search.finished(message)

    @on(OptionList.OptionSelected, "#search-results")
    def _hit_chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.search.jump_from_list(event.option_index)

    # --- chunk sets and jobs (ChunkSetLoop) ------------------------------------------------------

    async def action_edit_policy(self) -> None:
        """Open the policy editor on the active policy; Apply re-chunks (the binding has
        priority: the app waits until the editor's threshold field has the focus)."""
        await self.chunk_sets.edit_policy()

    def apply_policy(self, policy: ChunkPolicy | None) -> None:
        """Re-chunk under ``policy`` in the background (a run in flight is cancelled)."""
        self.chunk_sets.apply_policy(policy)

    def action_chunk_sets(self) -> None:
        """List the stored chunk sets: make one active, or diff it with the active one."""
        self.chunk_sets.chunk_sets()

    def action_diff(self, version: str | None = None) -> None:
        """Compare a set (default: the one active before the last change) with the active one."""
        self.chunk_sets.diff(version)

    def action_stats(self) -> None:
        """The active set's statistics; choosing a listed chunk jumps to it."""
        self.chunk_sets.stats()

    def action_evaluate(self) -> None:
        """Evaluate the active set (and the previous one) on a query file."""
        self.chunk_sets.evaluate()

    def action_embed(self) -> None:
        """Embed the texts that have no vector in the background, or stop that."""
        self.chunk_sets.embed()

    @on(JobFinished)
    def _job_finished(self, message: JobFinished) -> None:
        self.chunk_sets.job_finished(message)
