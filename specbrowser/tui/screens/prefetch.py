"""Rendering ahead: the chunks a next key would show, rendered while the tree cursor rests.

:class:`Prefetcher` waits until the cursor has rested :data:`PREFETCH_DELAY` seconds, then renders
the chunks a next key would show (:meth:`Prefetcher.candidates`) into the chunk view's render
cache one at a time, :data:`PREFETCH_STEP` seconds apart, so that Down, Up or ``o`` shows its
chunk without rendering and a key pressed meanwhile waits for one render at most.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.timer import Timer

from specbrowser.errors import SpecbrowserError

if TYPE_CHECKING:
    from specbrowser.tui.screens.browser import BrowserScreen

PREFETCH_DELAY = 0.08
"""Seconds the tree cursor rests before the chunks a next key would show are rendered ahead:
longer than the gap between repeated keys, so a held key never waits for them."""

PREFETCH_STEP = 0.01
"""Seconds between two chunks rendered ahead, so that a key pressed meanwhile is handled after
one render at most."""


class Prefetcher:
    """Renders a browser screen's next chunks ahead, on the screen's timers.

    Args:
        screen: the browser screen; its candidates are rendered into its chunk view.
    """

    def __init__(self, screen: BrowserScreen) -> None:
        self.screen = screen
        self._timer: Timer | None = None
        self._queue: list[str] = []
        self._armed = False

    def arm(self) -> None:
        """Start rendering ahead (the screen calls this once its first frame is on the
        terminal: until then :meth:`schedule` does nothing, so no render ahead holds back
        the first paint), and schedule it for the chunk shown."""
        self._armed = True
        self.schedule()

    def schedule(self) -> None:
        """Render ahead once the cursor has rested :data:`PREFETCH_DELAY` seconds (a render
        ahead in progress starts over); nothing before :meth:`arm`."""
        if not self._armed:
            return
        self._queue = []
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.screen.set_timer(PREFETCH_DELAY, self.prefetch)

    def candidates(self) -> list[str]:
        """The chunks a next key would show: the tree lines below and above the cursor, and
        the next chunk over the threshold when the shown one is (``o`` steps through them)."""
        tree = self.screen.chunk_tree
        ids: list[str] = []
        for line in (tree.cursor_line + 1, tree.cursor_line - 1):
            node = tree.get_node_at_line(line) if line >= 0 else None
            if node is not None and node.data is not None:
                ids.append(node.data)
        shown = self.screen.chunk_view.chunk
        if shown is not None and shown.over_threshold is not None:
            following = self.screen.session.next_over_threshold(shown.ordinal)
            if following is not None:
                ids.append(following.id)
        return [
            chunk_id for chunk_id in dict.fromkeys(ids) if shown is None or chunk_id != shown.id
        ]

    def prefetch(self) -> None:
        """Render the next candidate into the chunk view's cache, then the one after it
        :data:`PREFETCH_STEP` seconds later."""
        screen = self.screen
        if not screen.is_current:
            return
        try:
            if not self._queue:
                self._queue = self.candidates()
                if not self._queue:
                    return
            chunk_id = self._queue.pop(0)
            screen.chunk_view.prepare(screen.session.chunk(chunk_id))
        except SpecbrowserError:
            self._queue = []  # a chunk gone (another process re-chunked): not now
            return
        if self._queue:
            self._timer = screen.set_timer(PREFETCH_STEP, self._more)

    def _more(self) -> None:
        if self._queue:
            self.prefetch()
