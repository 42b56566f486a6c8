"""An ``Input`` whose own editing keys keep their place among the characters typed with them.

Textual (8.2) inserts a typed character in the focused ``Input`` at once, but runs a key the
``Input`` binds itself (backspace, delete, arrows, home and end, ctrl+w …) only after the key
event has bubbled up to the app. Keys that arrive together (fast typing, keystrokes sent in one
burst, an SSH link that clumps them, a busy event loop) are then applied out of order: "⌫ 2" on
a selected "5000" leaves "" instead of "2". This class runs the ``Input``'s own keys in their
place among the typed characters (the fix proposed upstream for Textualize/textual#6605, in
pull request #6631); it is not needed on a Textual that runs these keys in order.
"""

from __future__ import annotations

from textual import events
from textual.widgets import Input


class OrderedInput(Input):
    """An :class:`~textual.widgets.Input` that runs its own non-priority key bindings when the
    key reaches it, in order with typed characters, instead of after the event bubbled up."""

    async def _on_key(self, event: events.Key) -> None:
        for binding in self._bindings.key_to_bindings.get(event.key, ()):
            if not binding.priority and await self.app.run_action(binding.action, self):
                event.stop()
                event.prevent_default()  # neither Input's handler nor the app's binding check
                return
