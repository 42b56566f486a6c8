"""What the chunk view draws over its rendered lines: the search hits and the selected marker.

:func:`draw_overlays` hands them to :meth:`ChunkLines.set_overlays` as styled character spans
(and the selected marker's ``⤷`` swapped for ``▶``), then scrolls to the marker or the first
hit; the Markdown is never rendered again. Where a marker is comes from
:attr:`RenderedLines.markers`, where a hit is from :meth:`ChunkLines.search_spans`.
"""

from __future__ import annotations

from typing import Literal

from rich.style import Style
from textual.geometry import Region

from specbrowser.tui.marker_links import MARKER_ARROW, SELECTED_ARROW
from specbrowser.tui.rendered_lines import RenderedLines
from specbrowser.tui.widgets.chunk_lines import ChunkLines
from specbrowser.tui.widgets.plain_bodies import SEARCH_MATCH_STYLE

SELECTED_STYLE = "bold on #2f3f5f"
"""Added to the selected marker's rendered text, on top of the link style."""

ScrollTo = Literal["marker", "search"]
"""Where :func:`draw_overlays` scrolls: the selected marker or the first search hit."""


def marker_spans(rendered: RenderedLines | None, index: int | None) -> list[tuple[int, int, int]]:
    """``(line, start, end)`` spans of marker ``index`` in ``rendered`` (none when either is
    None)."""
    if index is None or rendered is None:
        return []
    return rendered.markers.get(index, [])


def marker_text(rendered: RenderedLines | None, index: int | None, *, selected: bool) -> str:
    """The rendered text of marker ``index`` as drawn (``▶`` when ``selected``), its pieces (a
    label wrapped over lines) joined by spaces; "" when not shown."""
    pieces = [
        rendered.lines[line].plain[start:end]
        for line, start, end in marker_spans(rendered, index)
        if rendered is not None
    ]
    text = " ".join(piece.strip() for piece in pieces)
    if selected and text.startswith(MARKER_ARROW):
        text = SELECTED_ARROW + text[len(MARKER_ARROW) :]
    return text


def draw_overlays(
    lines: ChunkLines, terms: list[str], selected: int | None, scroll: ScrollTo | None
) -> None:
    """Draw the whole-word matches of ``terms`` and marker ``selected`` on ``lines`` (nothing
    while they show no rendered lines), then scroll to the marker (``"marker"``) or the first
    match (``"search"``) when there is one."""
    rendered = lines.rendered
    if rendered is None:
        return
    hit_style = Style.parse(SEARCH_MATCH_STYLE)
    hits = lines.search_spans(terms)
    spans = [(line, start, end, hit_style) for line, start, end in hits]
    arrows: list[tuple[int, int, str]] = []
    places = marker_spans(rendered, selected)
    if places:
        chosen = Style.parse(SELECTED_STYLE)
        spans += [(line, start, end, chosen) for line, start, end in places]
        line, start, _ = places[0]
        if rendered.lines[line].plain[start : start + 1] == MARKER_ARROW:
            arrows.append((line, start, SELECTED_ARROW))
    lines.set_overlays(spans, arrows)
    if scroll == "marker" and places:
        line, start, _ = places[0]
        top = lines.cell_offset(line, start)
        region = Region(0, top.y, 1, places[-1][0] - top.y + 1)
        lines.scroll_now_and_after(
            lines.scroll_to_region, region, animate=False, immediate=True, force=True
        )
    elif scroll == "search" and hits:
        lines.scroll_now_and_after(
            lines.scroll_to, y=max(0, hits[0][0] - 1), animate=False, immediate=True
        )
