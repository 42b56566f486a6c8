"""Markers → Markdown links, so the chunk view can highlight and follow them.

Pure string functions (no Textual): the chunk view renders :func:`rewrite_markers` output to
lines (:mod:`specbrowser.tui.widgets.chunk_lines`) and maps clicked hrefs back with
:func:`chunk_id_from_href`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from urllib.parse import quote

from specbrowser.chunking.markers import Marker, find_markers

CHUNK_SCHEME = "sb-chunk:"
"""Scheme of the links that stand for markers; never a URL a browser or the file system opens."""

MARKER_ARROW = "⤷"
"""Prefix of a marker link that is not selected."""

SELECTED_ARROW = "▶"
"""Replaces :data:`MARKER_ARROW` in the rendered text of the selected marker (also bold)."""

_ASCII_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")
"""CommonMark lets a backslash escape any ASCII punctuation character, and nothing else."""


def escape_markdown(text: str) -> str:
    """Backslash-escape every ASCII punctuation character, so Markdown (and GFM tables) show
    ``text`` literally."""
    return _ASCII_PUNCTUATION.sub(r"\\\1", text)


def chunk_href(chunk_id: str) -> str:
    """The link target for a chunk id; every character outside ``A-Za-z0-9_.-~`` is %-quoted."""
    return CHUNK_SCHEME + quote(chunk_id, safe="")


def chunk_id_from_href(href: str) -> str | None:
    """The chunk id of an already unquoted ``sb-chunk:`` href (``Markdown.LinkClicked.href``
    is unquoted by Textual), or None for any other link."""
    if href.startswith(CHUNK_SCHEME):
        return href[len(CHUNK_SCHEME) :] or None
    return None


def marker_label(marker: Marker, preview: str = "") -> str:
    """The marker's text without its brackets and backticks, as shown in the link; a marker
    without a title is followed by ``preview`` (its subsection's first words) after ``·``, which
    the stored text does not hold."""
    if marker.title:
        return f'Subsection available: title "{marker.title}" at sectionid: {marker.target_id}'
    label = f"Subsection available at sectionid: {marker.target_id}"
    return f"{label} · {preview}" if preview else label


def marker_link(marker: Marker, href: str | None = None, preview: str = "") -> str:
    """The Markdown link that replaces one marker: ``⤷`` and its label (:func:`marker_label`),
    escaped; it points at ``href`` (default: :func:`chunk_href` of its target)."""
    target = href if href is not None else chunk_href(marker.target_id)
    return f"[{MARKER_ARROW} {escape_markdown(marker_label(marker, preview))}]({target})"


def rewrite_markers(
    text: str,
    markers: list[Marker] | None = None,
    href_prefix: str | None = None,
    previews: Mapping[str, str] | None = None,
) -> str:
    """``text`` with every marker turned into a link (``markers``: ``find_markers(text)``), and
    the ``<br>`` line breaks of table cells shown as a space: the view's Markdown parser shows
    raw HTML literally. With ``href_prefix``, marker k (0-based) links to ``href_prefix + k``
    instead of its target, so each marker's link is told apart from the others. ``previews``
    (target id → the subsection's first words) follow the markers that have no title.

    Markers never span lines, so line numbers stay those of ``text``.
    """
    if markers is None:
        markers = find_markers(text)
    parts: list[str] = []
    position = 0
    for index, marker in enumerate(markers):
        parts.append(text[position : marker.start])
        href = f"{href_prefix}{index}" if href_prefix is not None else None
        preview = previews.get(marker.target_id, "") if previews else ""
        parts.append(marker_link(marker, href, preview))
        position = marker.end
    parts.append(text[position:])
    return _CELL_BREAK.sub(" ", "".join(parts))


_CELL_BREAK = re.compile(r"(?<!\\)<br>")
