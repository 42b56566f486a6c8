"""Telling a held key from separate presses, for the browser's tree cursor.

While a key is held, the chunk view defers bodies that need rendering
(:meth:`ChunkView.show_chunk` ``defer``) so that only the chunk where the keys stop is rendered.
:class:`KeyRepeat` decides, from the tree's gap between its last two keys
(:attr:`ChunkTree.key_gap`) and the time since the cursor last moved, whether a cursor move
came from a held key. Moves made for a go-to are never a held key.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

REPEAT_SECONDS = 0.038
"""Keys closer together than this (by their own timestamps) are a key held down: terminals
repeat at most about 30 keys a second (33 ms). Separate presses, and Pilot's (two 20 ms waits
each at least), are further apart."""

RECENT_SECONDS = REPEAT_SECONDS + 0.5
"""A held key also needs the cursor to have moved by a key within this long."""


class KeyRepeat:
    """Tells cursor moves of a held key from the rest."""

    def __init__(self) -> None:
        self._last_move = 0.0
        """When the cursor last moved by a key (``time.monotonic()``)."""
        self._going_to = False

    @contextmanager
    def going_to(self) -> Iterator[None]:
        """Cursor moves inside this block are a go-to's: never a held key, and not counted."""
        self._going_to = True
        try:
            yield
        finally:
            self._going_to = False

    def held(self, key_gap: float) -> bool:
        """The cursor moved: True when a held key moved it (``key_gap``, the seconds between
        the tree's last two keys, under :data:`REPEAT_SECONDS`, and the cursor moved by a key
        within :data:`RECENT_SECONDS`)."""
        if self._going_to:
            return False
        now = time.monotonic()
        repeating = key_gap < REPEAT_SECONDS and now - self._last_move < RECENT_SECONDS
        self._last_move = now
        return repeating
