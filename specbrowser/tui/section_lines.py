"""A reassembled section as screen lines, each chunk's span tinted, its id and size in a gutter.

Pure (Rich ``Text`` only): :func:`boundary_lines` lays out
:class:`~specbrowser.session.browse.Boundaries` for the chunk view's section view. The text is
the section's Markdown *source*, not rendered: a span boundary can fall inside a table row or
a list item, and only the source shows exactly where the breakdown cut it. Lines wrap at
word boundaries (:func:`wrap_cells`), each screen line a contiguous piece of its source line, so
character offsets map to lines one to one and every character is shown.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.cells import cell_len, chop_cells
from rich.text import Text

from specbrowser.tui.marker_links import chunk_href
from specbrowser.tui.rendered_lines import RenderedLines

if TYPE_CHECKING:
    from specbrowser.session.browse import Boundaries, ChunkSpan

SPAN_STYLES = ("on #1f3550", "on #4a3418")
"""Background tints of alternate spans (blue, amber): two neighbours never share one."""

GUTTER_STYLES = ("bold #9ec5ff on #1f3550", "bold #ffcf8a on #4a3418")
"""The gutter label of a span, in its span's colours."""

_SEP = " |\n"
"""Table punctuation and spaces: a span of only these gets no gutter label."""

GUTTER_MAX = 30
"""The gutter's widest (cells); a third of the width on narrow panes."""


def gutter_width(width: int) -> int:
    """Cells of the gutter at ``width``: a third of it, at most :data:`GUTTER_MAX`, at least 8."""
    return max(8, min(GUTTER_MAX, width // 3))


def cut_middle(text: str, width: int) -> str:
    """``text`` in at most ``width`` cells, cut in the middle with ``…`` (ids share prefixes)."""
    if cell_len(text) <= width:
        return text
    if width <= 1:
        return "…"[:width]
    head = (width - 1) // 2
    tail = width - 1 - head
    return text[:head] + "…" + (text[-tail:] if tail else "")


def wrap_cells(line: str, width: int) -> list[str]:
    """``line`` in contiguous pieces of at most ``width`` cells that join back to it, each
    broken after its last space (the space ends the piece, the next starts with a word), or
    within a word only when the word is wider than the room. A word that ends at the width
    starts the next piece too (its space would not fit), unless it is the piece's only word:
    then the space starts the next piece.

    ``wrap_cells("replace replacement", 12) == ["replace ", "replacement"]``.
    """
    width = max(1, width)
    pieces: list[str] = []
    start = 0
    while cell_len(line[start : start + width + 1]) > width:
        window = chop_cells(line[start : start + width], width)[0]  # never wider than width
        end = start + len(window)
        # break after the window's last space: the word cut by the window's end (or ending
        # at it, its space not fitting) starts the next piece
        space = max(window.rfind(" "), window.rfind("\t"))
        if space >= 0:
            end = start + space + 1
        pieces.append(line[start:end])
        start = end
    pieces.append(line[start:])
    return pieces


def span_label(span: ChunkSpan, width: int) -> str:
    """``id size`` for the gutter, the id cut in the middle to fit ``width`` cells."""
    size = f" {span.size:,}"
    return cut_middle(span.chunk_id, max(1, width - len(size) - 1)) + size


def boundary_lines(
    boundaries: Boundaries, width: int
) -> tuple[RenderedLines, dict[str, list[tuple[int, int, int]]]]:
    """Lay ``boundaries`` out at ``width`` cells (gutter included).

    Returns the lines (each span's characters link to ``sb-chunk:`` its chunk, the gutter label
    too) and, per chunk id, its ``(line, start, end)`` character spans on the lines, in order.
    """
    gutter = gutter_width(width)
    body = max(1, width - gutter)
    text = boundaries.text
    spans = boundaries.spans
    lines: list[Text] = []
    links: list[list[tuple[int, int, str]]] = []
    places: dict[str, list[tuple[int, int, int]]] = {}
    first = 0  # the first span that may still show
    labelled = -1  # the last span whose label the gutter showed
    position = 0
    for source_line in text.split("\n"):
        pieces = wrap_cells(source_line, body)
        for number, piece in enumerate(pieces):
            start, end = position, position + len(piece)
            # the newline after a source line is the last piece's (a span may start on it)
            reach = end + 1 if number == len(pieces) - 1 else end
            while first < len(spans) - 1 and spans[first].end <= start:
                first += 1
            starting = [
                index
                for index in range(max(first, labelled + 1), len(spans))
                if spans[index].start < reach
            ]
            line = Text(end="", no_wrap=True)
            if starting:
                labelled = starting[-1]
                # a table's own pipes between its cells are not worth a label
                starting = [i for i in starting if text[spans[i].start : spans[i].end].strip(_SEP)]
            if starting:
                shown = starting[0]
                extra = f" +{len(starting) - 1}" if len(starting) > 1 else ""
                label = span_label(spans[shown], gutter - 1 - len(extra)) + extra
            else:
                shown = first
                label = "▌"
            line.append(label.ljust(gutter - 1), GUTTER_STYLES[shown % 2])
            line.append(" ")
            line_links = [(0, gutter - 1, chunk_href(spans[shown].chunk_id))]
            for index in range(first, len(spans)):
                span = spans[index]
                if span.start >= end:
                    break
                lo, hi = max(start, span.start), min(end, span.end)
                if hi <= lo:
                    continue
                line.append(text[lo:hi], SPAN_STYLES[index % 2])
                at = gutter + lo - start
                line_links.append((at, at + hi - lo, chunk_href(span.chunk_id)))
                places.setdefault(span.chunk_id, []).append((len(lines), at, at + hi - lo))
            lines.append(line)
            links.append(line_links)
            position = end
        position += 1  # the newline
    return RenderedLines(width, lines, links), places
