"""The main screen: chunk tree on the left, chunk view on the right.

The screen mediates between its widgets, which post messages up to it. It owns navigation: the
tree's cursor decides which chunk the view shows, and every "go to" (a followed marker, the
parent key, the jump palette, the overrun filter, a search hit) goes through
:meth:`BrowserScreen.go_to_chunk`, which expands the tree down to the chunk.

Its keys come from :mod:`specbrowser.tui.registry`. Helpers hold the rest, each one concern:
:class:`~specbrowser.tui.screens.search_flow.SearchFlow` the search and hit navigation,
:class:`~specbrowser.tui.screens.chunk_set_actions.ChunkSetLoop` the chunk sets and background
jobs, :class:`~specbrowser.tui.screens.prefetch.Prefetcher` rendering ahead,
:class:`~specbrowser.tui.screens.marker_navigation.MarkerNavigation` the marker keys,
:class:`~specbrowser.tui.screens.tree_filter.TreeFilter` the tree filter,
:class:`~specbrowser.tui.screens.key_checks.KeyChecks` which keys are available, and
:class:`~specbrowser.tui.screens.key_repeat.KeyRepeat` whether a held key moved the cursor.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar

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
from specbrowser.process import release_after_first_frame
from specbrowser.session import Session, SpecRow
from specbrowser.tui.commands import FilterProvider
from specbrowser.tui.messages import SearchFinished
from specbrowser.tui.registry import bindings, filter_title
from specbrowser.tui.screens.chunk_set_actions import ChunkSetLoop
from specbrowser.tui.screens.key_checks import KeyChecks
from specbrowser.tui.screens.key_repeat import KeyRepeat
from specbrowser.tui.screens.marker_navigation import MarkerNavigation
from specbrowser.tui.screens.prefetch import Prefetcher
from specbrowser.tui.screens.search_flow import SearchFlow
from specbrowser.tui.screens.tree_filter import TreeFilter
from specbrowser.tui.widgets.chunk_tree import ChunkTree
from specbrowser.tui.widgets.chunk_view import ChunkView
from specbrowser.tui.widgets.job_bar import JobBar, JobFinished
from specbrowser.types import FilterKind, SearchMode

if TYPE_CHECKING:
    from specbrowser.search.hits import Hit
    from specbrowser.tui.widgets.search_results import SearchBar

LIVE_CHECK_SECONDS = 1.0
"""How often the browser asks the database whether another process changed it."""

SEARCH_LIMIT = 50
"""Hits per search: a screenful or two of results, instant on ECMA-262."""


class BrowserScreen(Screen[None]):
    """Browse the chunk hierarchy of one database.

    Args:
        session: the open database, read only through the session layer.
        policy: the active chunk policy (its threshold is shown against chunk sizes).
        cursor_blink: whether the inputs' cursors blink (tests turn it off).
        count_tokens: count the active set's tokens in the background.
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
        self.shown_version = ""
        """The chunk set the tree and view show (the active one when last loaded)."""
        self.search = SearchFlow(self, SEARCH_LIMIT)
        """The search and hit navigation (``/``, ``n`` / ``N``)."""
        self.chunk_sets = ChunkSetLoop(self)
        """The chunk sets and background jobs (``e``, ``c``, ``d``, ``s``, ``v``, ``E``)."""
        self.prefetcher = Prefetcher(self)
        self.filtering = TreeFilter(self)
        """The tree filter (``m``, ``O``, ``T``, ``M``)."""
        self.key_checks = KeyChecks(self)
        self.marker_navigation = MarkerNavigation(self)
        """The marker keys (``n``, ``p``, ``f``, ``u``)."""
        self.key_repeat = KeyRepeat()

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="browser-panes"):
            yield ChunkTree(self.session, id="chunk-tree")
            yield ChunkView(id="chunk-view")
        # the search bar is mounted after the first paint (_after_first_paint): hidden until
        # ``/``, its input and result list cost the first frame 20-30 ms of CSS and mounting
        yield JobBar(self.session.path, id="job-bar")
        yield Footer(compact=True)

    @property
    def search_bar(self) -> SearchBar:
        """The search bar (hidden until ``/``), mounted now if the first paint has not come
        yet (:meth:`_mount_search_bar`)."""
        return self._mount_search_bar()

    @property
    def search_bar_shown(self) -> bool:
        """Whether the search bar is open (False before it is mounted)."""
        bars = self.query("#search-bar")
        return bool(bars) and bars.first().display

    def _mount_search_bar(self) -> SearchBar:
        """The search bar; the first call mounts it, hidden, between the panes and the job
        bar."""
        # deferred: the search bar's module (its list and the search's, 2 ms) comes after the
        # first frame, as the bar does
        from specbrowser.tui.widgets.search_results import SearchBar

        bars = self.query(SearchBar)
        if bars:
            return bars.first()
        bar = SearchBar(cursor_blink=self.cursor_blink, id="search-bar")
        bar.display = False
        self.mount(bar, before=self.query_one(JobBar))
        return bar

    @property
    def chunk_tree(self) -> ChunkTree:
        """The chunk tree widget."""
        return self.query_one(ChunkTree)

    @property
    def chunk_view(self) -> ChunkView:
        """The chunk view widget."""
        return self.query_one(ChunkView)

    @property
    def tree_filter(self) -> FilterKind | None:
        """The tree filter on, or None."""
        return self.filtering.kind

    @property
    def job_bar(self) -> JobBar | None:
        """The background jobs' bar (None when the screen has no database file)."""
        return self.chunk_sets.job_bar

    @property
    def previous_version(self) -> str | None:
        """The set active before the last re-chunk or switch (``d`` diffs against it)."""
        return self.chunk_sets.previous_version

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
        self.chunk_view.url_target_for = self._url_target
        self.chunk_tree.on_cursor = self._cursor_moved
        first = self.session.top_level_chunks()[:1]
        if first:
            self.go_to_chunk(first[0].id)
        self.shown_version = self.session.active_version()
        self.call_after_refresh(self._after_first_paint)

    def _after_first_paint(self) -> None:
        """What the first screen does not need, started once it is on the terminal (on two
        cores its threads and child processes would hold the paint back): the search bar,
        rendering ahead, the token count, the database watch, and the fork server that
        re-chunks start from; and the garbage collector and the thread switch interval the
        command line set for the start-up
        (:func:`~specbrowser.process.release_after_first_frame`)."""
        # deferred: multiprocessing (3 ms), which the first frame does not need
        from specbrowser.session import rechunk_process

        self._mount_search_bar()
        release_after_first_frame()
        self.prefetcher.arm()
        self.chunk_sets.start_token_count()
        self.chunk_sets.watch_database(LIVE_CHECK_SECONDS)
        rechunk_process.prepare()

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
            with self.key_repeat.going_to():  # the cursor moves for a go-to: never deferred
                selected = self.chunk_tree.select_chunk(chunk_id)
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

    def _cursor_moved(self, chunk_id: str) -> None:
        """The tree's cursor moved (:attr:`ChunkTree.on_cursor`): show its chunk now; when a
        held key moved it (:meth:`KeyRepeat.held`), a body that needs rendering waits until the
        keys stop (:meth:`ChunkView.show_chunk` ``defer``)."""
        repeating = self.key_repeat.held(self.chunk_tree.key_gap)
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
        if event.anchor:
            self.go_to_anchor(event.chunk_id)
        else:
            self.go_to_id(event.chunk_id)

    def _url_target(self, url: str) -> str | None:
        """The chunk a web link into a spec of the database leads to, or None."""
        try:
            located = self.session.url_target(url)
        except SpecbrowserError:
            return None
        return located.chunk_id if located is not None else None

    def shown_spec(self) -> SpecRow | None:
        """The spec of the shown chunk when the database holds several, else None."""
        chunk = self.chunk_view.chunk
        if chunk is None or not self.chunk_tree.spec_roots:
            return None
        try:
            return self.session.spec_of_chunk(chunk.id)
        except SpecbrowserError:
            return None

    def go_to_anchor(self, anchor: str) -> bool:
        """Go to the chunk holding the element ``anchor`` (an in-text ``#id`` link's) of the
        shown chunk's spec; with one spec, or when that spec has no such element, as
        :meth:`go_to_id` reads it."""
        spec = self.shown_spec()
        if spec is not None:
            found = self.session.link_targets([anchor], document_id=spec.id).get(anchor)
            if found is not None:
                return self.go_to_chunk(found)
        return self.go_to_id(anchor)

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
        self.marker_navigation.step(+1)

    def action_previous_marker(self) -> None:
        """Select the previous marker in the shown chunk."""
        self.marker_navigation.step(-1)

    def action_follow_marker(self) -> None:
        """Follow the selected marker, or pick an in-text link (:meth:`MarkerNavigation.follow`)."""
        self.marker_navigation.follow()

    def action_parent(self) -> None:
        """Go up to the chunk holding the shown chunk's marker (:meth:`MarkerNavigation.parent`)."""
        self.marker_navigation.parent()

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
        """Go to the document synopsis chunk (the shown chunk's spec's, in a corpus)."""
        spec = self.shown_spec()
        self.go_to_chunk(spec.document_chunk_id if spec is not None else DOCUMENT_CHUNK_ID)

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
        """Turn filter ``kind`` on (replacing another one) or, if it is on, off
        (:meth:`TreeFilter.toggle`)."""
        return self.filtering.toggle(kind)

    # --- keys that depend on the state ----------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Whether ``action``'s key does something now (:meth:`KeyChecks.available`); a key
        that does not is hidden from the footer."""
        return self.key_checks.available(action)

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

    def action_cycle_search_spec(self) -> None:
        """ctrl+o in the search bar (several specs): search the next spec, or all of them."""
        self.search.cycle_spec()

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

    def action_advise(self) -> None:
        """Run the policy advisor on this database; apply a candidate from its table."""
        self.chunk_sets.advise()

    def action_embed(self) -> None:
        """Embed the texts that have no vector in the background, or stop that."""
        self.chunk_sets.embed()

    @on(JobFinished)
    def _job_finished(self, message: JobFinished) -> None:
        self.chunk_sets.job_finished(message)
