"""A chunk's text as screen lines, with no widget: :class:`RenderedLines` keeps each line as a
Rich ``Text`` and the link spans on it (markers and in-text links) as character offsets.

:func:`specbrowser.tui.markdown_lines.render_markdown` makes them from Markdown (Rich's Markdown
and markdown-it, imported only there), :mod:`specbrowser.tui.section_lines` from a section's
Markdown source.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rich.text import Text

MARKER_SCHEME = "sb-marker:"
"""Link scheme of the k-th marker of the shown chunk (``sb-marker:3``), in the Markdown the
view renders; never shown or opened (the view maps it back to the marker)."""


@dataclass
class RenderedLines:
    """Text rendered at one width.

    ``lines``: one Rich ``Text`` per screen line (no newline). ``links``: per line, the
    ``(start, end, href)`` character spans of links. ``markers``: marker index → its
    ``(line, start, end)`` spans in document order (a marker wrapped over lines, or one in a
    table cell, has several).
    """

    width: int
    lines: list[Text]
    links: list[list[tuple[int, int, str]]]
    markers: dict[int, list[tuple[int, int, int]]] = field(default_factory=dict)

    @property
    def plain(self) -> list[str]:
        """Each line's plain text."""
        return [line.plain for line in self.lines]
