"""The browser's tree filter (``m``, ``O``, ``T``, ``M`` and the palette's "Filter" commands).

:class:`TreeFilter` asks the core (:mod:`specbrowser.session.filters`) what a filter keeps, hands
the result down to the chunk tree (:meth:`ChunkTree.show_filtered`), titles the tree's border
with the filter and its count, and keeps the view's chunk selected when the filtered tree shows
it (else it goes to the first match). A filter that matches nothing is not turned on.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from specbrowser.errors import SpecbrowserError
from specbrowser.session import filters
from specbrowser.tui.registry import filter_title
from specbrowser.types import FilterKind

if TYPE_CHECKING:
    from specbrowser.tui.screens.browser import BrowserScreen


class TreeFilter:
    """The tree filter of one browser screen.

    Args:
        screen: the browser screen whose session, tree and view it drives.
    """

    def __init__(self, screen: BrowserScreen) -> None:
        self.screen = screen
        self.kind: FilterKind | None = None
        """The filter on, or None."""

    def toggle(self, kind: FilterKind) -> bool:
        """Turn filter ``kind`` on (replacing another one) or, if it is on, off."""
        return self.apply(None if self.kind == kind else kind)

    def reapply(self) -> None:
        """Filter the tree again from the database (another chunk set is shown): the same
        filter, or none if it now matches nothing."""
        if self.kind is None or not self.apply(self.kind):
            self.apply(None)

    def apply(self, kind: FilterKind | None) -> bool:
        """Show only what filter ``kind`` keeps (None: the whole tree) and keep the view's chunk
        selected when the new tree shows it (else select the first match).

        A filter that matches nothing is not turned on: a notification says why, and False is
        returned.
        """
        screen = self.screen
        filtered: filters.FilteredTree | None = None
        if kind is not None:
            try:
                filtered = screen.session.filtered_tree(kind)
            except SpecbrowserError as error:
                screen.show_error(error)
                return False
            if not filtered.matches:
                screen.notify(self.nothing_matches(kind), markup=False)
                return False
        self.kind = kind
        tree = screen.chunk_tree
        tree.show_filtered(filtered)
        tree.set_class(filtered is not None, "-filtered")
        tree.border_title = (
            f"{filter_title(filtered.kind)} · {len(filtered.matches):,}"
            if filtered is not None
            else None
        )
        current = screen.chunk_view.chunk
        if current is not None and (filtered is None or current.id in filtered.shown):
            screen.go_to_chunk(current.id)
        elif filtered is not None:
            screen.go_to_chunk(filtered.matches[0])
        return True

    def nothing_matches(self, kind: FilterKind) -> str:
        """Why filter ``kind`` has nothing to show (no TOC at all, or a TOC that agrees)."""
        if kind == filters.OVER_THRESHOLD:
            return "no chunk is over the threshold"
        if kind == filters.TINY:
            return "no tiny chunks"
        if kind == filters.MARKER_HEAVY:
            return "no chunk is mostly markers"
        if self.screen.session.toc_size() == 0:
            return "no mismatched sections: the document has no table of contents"
        return "no mismatched sections: every section's heading path agrees with the TOC"
