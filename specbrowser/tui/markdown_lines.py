"""Markdown rendered into screen lines, with no widget: the chunk view's text, kept as offsets.

:func:`render_markdown` turns Markdown into
:class:`~specbrowser.tui.rendered_lines.RenderedLines` with Rich (one call per chunk and width):
each line is a Rich ``Text``, and the link spans on it (markers and in-text links) are kept as
character offsets. Pure: safe to call in a thread with a console of its own.

Rich's Markdown, markdown-it and Pygments (which Rich's Markdown imports for code blocks) load
with this module; the chunk view imports it when it first renders a chunk, after the app's
first frame.
"""

from __future__ import annotations

from typing import ClassVar

from markdown_it import MarkdownIt
from rich.console import Console, JustifyMethod
from rich.markdown import Markdown as RichMarkdown
from rich.markdown import MarkdownElement, TableDataElement
from rich.text import Text

from specbrowser.tui.rendered_lines import MARKER_SCHEME, RenderedLines


class _FoldingCell(TableDataElement):
    """A table cell whose long words (ids) fold onto the next line instead of ending in an
    ellipsis: a marker's whole target id stays readable in a narrow column."""

    def __init__(self, justify: JustifyMethod) -> None:
        super().__init__(justify)
        self.content.overflow = "fold"


class _SpecMarkdown(RichMarkdown):
    """Rich's Markdown with folding table cells."""

    elements: ClassVar[dict[str, type[MarkdownElement]]] = {
        **RichMarkdown.elements,
        "td_open": _FoldingCell,
        "th_open": _FoldingCell,
    }


def markdown_parser() -> MarkdownIt:
    """The "gfm-like" parser with raw HTML off: spec text such as ``<tag>`` is shown as
    written."""
    return MarkdownIt("gfm-like", {"html": False})


def render_markdown(markdown: str, width: int, console: Console) -> RenderedLines:
    """Render ``markdown`` with Rich at ``width`` cells into lines, links found by their style.

    Links are Rich ``Style.link`` values (the href as written); a ``sb-marker:k`` link is
    recorded in :attr:`RenderedLines.markers` under ``k``. Pure: the console only measures.
    """
    renderable = _SpecMarkdown("", hyperlinks=True)
    renderable.markup = markdown
    renderable.parsed = markdown_parser().parse(markdown)
    width = max(1, width)
    segment_lines = console.render_lines(renderable, console.options.update_width(width), pad=False)
    lines: list[Text] = []
    links: list[list[tuple[int, int, str]]] = []
    markers: dict[int, list[tuple[int, int, int]]] = {}
    for number, segments in enumerate(segment_lines):
        text = Text(end="", no_wrap=True)
        spans: list[tuple[int, int, str]] = []
        for segment in segments:
            if segment.control:
                continue
            start = len(text)
            style = segment.style
            text.append(segment.text, style)
            href = style.link if style is not None else None
            if href:
                if spans and spans[-1][2] == href and spans[-1][1] == start:
                    spans[-1] = (spans[-1][0], len(text), href)
                else:
                    spans.append((start, len(text), href))
        lines.append(text)
        links.append(spans)
        for start, end, href in spans:
            if href.startswith(MARKER_SCHEME):
                index = int(href[len(MARKER_SCHEME) :])
                markers.setdefault(index, []).append((number, start, end))
    return RenderedLines(width, lines, links, markers)
