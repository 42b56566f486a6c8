"""The main screen: chunk tree on the left, chunk view on the right.

The screen owns navigation: the tree's cursor decides which chunk the view shows, and every
"go to" (a followed marker, the parent key, the jump palette, the overrun filter) goes through
:meth:`BrowserScreen.go_to_chunk`, which expands the tree down to the chunk.

It also owns the tree filter (:attr:`BrowserScreen.tree_filter`): it asks the core
(:mod:`specbrowser.filters`) what a filter keeps and hands the result down to the tree.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

import sqlite_utils
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.command import Provider
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Footer, Header, Tree

from specbrowser import filters, store, store_toc
from specbrowser.errors import SpecbrowserError
from specbrowser.policy import ChunkPolicy
from specbrowser.tui.commands import FilterProvider
from specbrowser.tui.widgets.chunk_tree import ChunkTree
from specbrowser.tui.widgets.chunk_view import ChunkView

FILTER_GROUP = Binding.Group("Only ≠/⚠")
"""The two filter keys share one footer entry: the marks they keep."""

FILTER_TITLES = {
    filters.MISMATCHED: "only mismatched sections",
    filters.OVER_THRESHOLD: "only over-threshold chunks",
}
"""What each tree filter shows, as the tree's border title and in notifications."""


class BrowserScreen(Screen[None]):
    """Browse the chunk hierarchy of one database.

    Args:
        db: the open database; read only through :mod:`specbrowser.store`.
        policy: the active chunk policy (its threshold is shown against chunk sizes).
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "next_marker", "Next marker", id="next-marker"),
        Binding("p", "previous_marker", "Prev marker", id="previous-marker"),
        Binding("f", "follow_marker", "Follow", id="follow-marker"),
        Binding("u", "parent", "Parent", id="go-to-parent"),
        Binding("o", "next_over_threshold", "Next overrun", id="next-over-threshold"),
        Binding("t", "toggle_retrieval_text", "Retrieval text", id="toggle-retrieval-text"),
        Binding("m", "filter_mismatched", "Only mismatched", id="filter-mismatched",
                group=FILTER_GROUP),
        Binding("O,shift+o", "filter_over_threshold", "Only overruns", id="filter-over-threshold",
                group=FILTER_GROUP),
    ]
    COMMANDS: ClassVar[set[type[Provider] | Callable[[], type[Provider]]]] = {FilterProvider}

    def __init__(self, db: sqlite_utils.Database, policy: ChunkPolicy) -> None:
        super().__init__(id="browser")
        self.db = db
        self.policy = policy
        self.tree_filter: str | None = None
        """The tree filter on (a :data:`specbrowser.filters.FILTER_KINDS` value), or None."""

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="browser-panes"):
            yield ChunkTree(self.db, id="chunk-tree")
            yield ChunkView(id="chunk-view")
        yield Footer(compact=True)

    @property
    def chunk_tree(self) -> ChunkTree:
        """The chunk tree widget."""
        return self.query_one(ChunkTree)

    @property
    def chunk_view(self) -> ChunkView:
        """The chunk view widget."""
        return self.query_one(ChunkView)

    def on_mount(self) -> None:
        """Start on the first top-level section."""
        first = store.top_level_chunks(self.db)[:1]
        if first:
            self.go_to_chunk(first[0].id)

    def _error(self, error: SpecbrowserError | str) -> None:
        self.notify(str(error), severity="error", markup=False)

    def go_to_chunk(self, chunk_id: str) -> bool:
        """Expand the tree down to a chunk, move the cursor there and show it.

        A missing id becomes a notification (ids come from spec text and links), never an error.
        Under a tree filter, a chunk the filter hides is shown in the view while the tree cursor
        stays where it is (a notification says so).
        """
        try:
            if not self.chunk_tree.select_chunk(chunk_id):
                if self.tree_filter is None:
                    self._error(f"{chunk_id} is not in the tree")
                    return False
                store.get_chunk(self.db, chunk_id)  # a missing id is an error, not a note
                self.notify(f"{chunk_id} is hidden by the filter "
                            f"({FILTER_TITLES[self.tree_filter]}); the tree cursor stays",
                            markup=False)
            self._show(chunk_id)
        except SpecbrowserError as error:
            self._error(error)
            return False
        return True

    def _show(self, chunk_id: str) -> None:
        current = self.chunk_view.chunk
        if current is not None and current.id == chunk_id:
            return
        self.chunk_view.show_chunk(store.get_chunk(self.db, chunk_id), self.policy.threshold_chars)

    @on(Tree.NodeHighlighted, "#chunk-tree")
    def _node_highlighted(self, event: Tree.NodeHighlighted[str]) -> None:
        if event.node.data is not None:
            try:
                self._show(event.node.data)
            except SpecbrowserError as error:
                self._error(error)

    @on(ChunkView.FollowRequested)
    def _follow_requested(self, event: ChunkView.FollowRequested) -> None:
        self.go_to_chunk(event.chunk_id)

    def action_next_marker(self) -> None:
        """Select the next marker in the shown chunk."""
        if not self.chunk_view.select_marker(+1):
            self.notify("this chunk has no markers", severity="warning", markup=False)

    def action_previous_marker(self) -> None:
        """Select the previous marker in the shown chunk."""
        if not self.chunk_view.select_marker(-1):
            self.notify("this chunk has no markers", severity="warning", markup=False)

    def action_follow_marker(self) -> None:
        """Go to the chunk the selected marker points at."""
        target = self.chunk_view.selected_target
        if target is None:
            self.notify("no marker selected: press n or p first", severity="warning", markup=False)
            return
        self.go_to_chunk(target)

    def action_parent(self) -> None:
        """Go to the chunk (or enclosing section) that holds the shown chunk's marker."""
        chunk = self.chunk_view.chunk
        if chunk is None:
            return
        try:
            parent = store.tree_parent_id(self.db, chunk.id)
        except SpecbrowserError as error:
            self._error(error)
            return
        if parent is None:
            self.notify("a top-level section has no parent", severity="warning", markup=False)
            return
        self.go_to_chunk(parent)

    def action_toggle_retrieval_text(self) -> None:
        """Switch the chunk view between the content and the retrieval text (the indexed one)."""
        view = self.chunk_view
        view.show_retrieval_text = not view.show_retrieval_text

    def action_show_document(self) -> None:
        """Go to the document synopsis chunk."""
        from specbrowser.model import DOCUMENT_CHUNK_ID

        self.go_to_chunk(DOCUMENT_CHUNK_ID)

    def action_next_over_threshold(self) -> None:
        """Go to the next chunk over the threshold in document order, wrapping around."""
        after = self.chunk_view.chunk.ordinal if self.chunk_view.chunk is not None else -1
        chunk = store.next_over_threshold(self.db, after) or store.next_over_threshold(self.db, -1)
        if chunk is None:
            self.notify("no chunk is over the threshold", markup=False)
            return
        self.go_to_chunk(chunk.id)

    def action_filter_mismatched(self) -> None:
        """Toggle the tree filter that shows only sections with a heading mismatch."""
        self.toggle_tree_filter(filters.MISMATCHED)

    def action_filter_over_threshold(self) -> None:
        """Toggle the tree filter that shows only chunks over the threshold."""
        self.toggle_tree_filter(filters.OVER_THRESHOLD)

    def toggle_tree_filter(self, kind: str) -> bool:
        """Turn filter ``kind`` on (replacing another one) or, if it is on, off."""
        return self.set_tree_filter(None if self.tree_filter == kind else kind)

    def set_tree_filter(self, kind: str | None) -> bool:
        """Show only what filter ``kind`` keeps (None: the whole tree) and keep the view's chunk
        selected when the new tree shows it (else select the first match).

        A filter that matches nothing is not turned on: a notification says why, and False is
        returned.
        """
        filtered: filters.FilteredTree | None = None
        if kind is not None:
            try:
                filtered = filters.filtered_tree(self.db, kind, store.active_version(self.db))
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
        tree.border_title = (f"{FILTER_TITLES[filtered.kind]} · {len(filtered.matches)}"
                             if filtered is not None else None)
        current = self.chunk_view.chunk
        if current is not None and (filtered is None or current.id in filtered.shown):
            self.go_to_chunk(current.id)
        elif filtered is not None:
            self.go_to_chunk(filtered.matches[0])
        return True

    def _nothing_matches(self, kind: str) -> str:
        """Why filter ``kind`` has nothing to show (no TOC at all, or a TOC that agrees)."""
        if kind == filters.OVER_THRESHOLD:
            return "no chunk is over the threshold"
        if store_toc.toc_size(self.db) == 0:
            return "no mismatched sections: the document has no table of contents"
        return "no mismatched sections: every section's heading path agrees with the TOC"
