"""The browser's marker keys: ``n`` / ``p`` select a marker of the shown chunk, ``f`` follows it
(or, with none selected, offers the chunk's in-text links in a palette), ``u`` goes up to the
chunk holding the shown chunk's marker with that marker selected, so that after ``f``, ``u``
comes back to the marker that was followed.

:class:`MarkerNavigation` does this for
:class:`~specbrowser.tui.screens.browser.BrowserScreen`, whose actions delegate to it; every go
to passes through :meth:`BrowserScreen.go_to_chunk`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from specbrowser.errors import SpecbrowserError
from specbrowser.session.links import link_hrefs
from specbrowser.tui.commands import LinkProvider, SpecPalette

if TYPE_CHECKING:
    from specbrowser.tui.screens.browser import BrowserScreen

LINK_PLACEHOLDER = "Follow a link of this chunk: type to filter…"
"""The link palette's prompt (``f`` with no marker selected)."""


class MarkerNavigation:
    """The marker keys of one browser screen.

    Args:
        screen: the browser screen whose view, session and palette it drives.
    """

    def __init__(self, screen: BrowserScreen) -> None:
        self.screen = screen

    def step(self, step: int) -> None:
        """Select the next (``step=1``) or previous (``-1``) marker of the shown chunk."""
        if not self.screen.chunk_view.select_marker(step):
            self.screen.notify("this chunk has no markers", severity="warning", markup=False)

    def follow(self) -> None:
        """Go to the chunk the selected marker points at; with no marker selected, choose one
        of the shown chunk's in-text links in a palette ("Follow a link")."""
        screen = self.screen
        target = screen.chunk_view.selected_target
        if target is not None:
            screen.go_to_chunk(target)
            return
        chunk = screen.chunk_view.chunk
        if chunk is None or not link_hrefs(chunk.text):
            screen.notify(
                "no marker selected (press n or p first) and no link in this chunk",
                severity="warning",
                markup=False,
            )
            return
        screen.app.push_screen(
            SpecPalette(
                providers=[LinkProvider],
                placeholder=LINK_PLACEHOLDER,
                id="--command-palette",
                cursor_blink=screen.cursor_blink,
            )
        )

    def parent(self) -> None:
        """Go to the chunk (or enclosing section) that holds the shown chunk's marker, with that
        marker selected."""
        screen = self.screen
        chunk = screen.chunk_view.chunk
        if chunk is None:
            return
        try:
            parent = screen.session.tree_parent_id(chunk.id)
        except SpecbrowserError as error:
            screen.show_error(error)
            return
        if parent is None:
            screen.notify("a top-level section has no parent", severity="warning", markup=False)
            return
        if screen.go_to_chunk(parent):
            screen.chunk_view.select_marker_to(chunk.id)
