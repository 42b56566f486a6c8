"""Which of the browser's keys do something now (``BrowserScreen.check_action``).

``n`` / ``p`` select markers, except during hit navigation, when ``n`` / ``N`` step through the
hits; Escape works only while there is a search to close or end; ``/`` and ``e`` are typed, not
run, in a focused input (their bindings have priority, and Textual does not let an input claim
``/`` before them). A key that does nothing is hidden from the footer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.widgets import Input

if TYPE_CHECKING:
    from specbrowser.tui.screens.browser import BrowserScreen

TYPED_IN_INPUT = ("search", "edit_policy")
"""Actions whose keys (``/``, ``e``) a focused input gets typed instead."""


class KeyChecks:
    """Decides, from one browser screen's state, whether an action's key is available.

    Args:
        screen: the browser screen whose search state, search bar and focus it reads.
    """

    def __init__(self, screen: BrowserScreen) -> None:
        self.screen = screen

    def available(self, action: str) -> bool:
        """Whether ``action`` runs now (and its key shows in the footer)."""
        navigating = self.screen.search.navigating
        if action in ("next_marker", "previous_marker"):
            return not navigating
        if action in ("next_hit", "previous_hit"):
            return navigating
        if action == "close_search":
            return navigating or self.screen.search_bar_shown
        if action == "cycle_search_mode":
            return self.screen.search_bar_shown
        if action == "cycle_search_spec":
            return self.screen.search_bar_shown and len(self.screen.chunk_tree.spec_roots) > 1
        return not (action in TYPED_IN_INPUT and isinstance(self.screen.focused, Input))
