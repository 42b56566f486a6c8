"""The chunk view's section view (``b``): a chunk's whole section laid out on the chunk lines,
each chunk's span tinted and labelled (:mod:`specbrowser.tui.section_lines`), the shown chunk's
spans bold.

:class:`SectionView` keeps the section laid out and where each chunk's spans are, so that
showing another chunk of the same section only moves the bold spans; the chunk view owns the
mode and the header.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from rich.style import Style
from textual.geometry import Region

from specbrowser.model import Chunk
from specbrowser.tui.section_lines import boundary_lines
from specbrowser.tui.widgets.chunk_lines import ChunkLines

if TYPE_CHECKING:
    from specbrowser.session.browse import Boundaries

CHUNK_STYLE = "bold underline"
"""The shown chunk's spans in the section view."""


class SectionView:
    """The section shown on a :class:`ChunkLines` and its chunks' places on the lines."""

    def __init__(self) -> None:
        self.boundaries: Boundaries | None = None
        """The section laid out, or None while the section view is off."""
        self.places: dict[str, list[tuple[int, int, int]]] = {}
        """Chunk id → its ``(line, start, end)`` spans in the laid-out section."""

    def chunk_count(self) -> int | None:
        """Chunks with a span in the section shown (None when none is)."""
        if self.boundaries is None:
            return None
        return len({span.chunk_id for span in self.boundaries.spans})

    def lay_out(
        self,
        lines: ChunkLines,
        chunk: Chunk,
        boundaries_for: Callable[[str], Boundaries],
        *,
        relayout: bool = False,
    ) -> None:
        """Show ``chunk``'s section on ``lines`` unless it is shown already (again if
        ``relayout``: a new width or another chunk set), keeping the scroll position when it is
        the same section. ``boundaries_for`` reassembles a section by its root chunk's id.

        Raises:
            SpecbrowserError: from ``boundaries_for`` (the section cannot be read).
        """
        root = chunk.section_id or chunk.id
        same = self.boundaries is not None and self.boundaries.chunk_id == root
        if same and not relayout:
            return
        boundaries = boundaries_for(root)
        rendered, self.places = boundary_lines(boundaries, lines.render_width)
        self.boundaries = boundaries
        lines.show_lines(rendered, keep_scroll=same)

    def mark(self, lines: ChunkLines, chunk_id: str, *, scroll: bool = True) -> None:
        """Draw chunk ``chunk_id``'s spans bold (:data:`CHUNK_STYLE`) and (``scroll``) scroll
        its first one to the top."""
        places = self.places.get(chunk_id, [])
        style = Style.parse(CHUNK_STYLE)
        lines.set_overlays([(line, start, end, style) for line, start, end in places])
        if places and scroll:
            lines.scroll_now_and_after(
                lines.scroll_to_region,
                Region(0, places[0][0], 1, 1),
                animate=False,
                immediate=True,
                top=True,
            )

    def clear(self) -> None:
        """The section view is off: nothing is laid out."""
        self.boundaries = None
