"""The "Subsection available" marker: the one place that writes and reads it.

A marker line stands in a chunk's text where a subsection (a child section, or an element the
breakdown extracted) was taken out. Format::

    [Subsection available: title "<title>" at sectionid: `<id>`]
    [Subsection available at sectionid: `<id>`]          (no title)

In ``<title>`` a ``"`` or ``\\`` is escaped with a backslash (``Media Type (\\"MIME Type\\")``),
so the title's quotes never end it; :func:`find_markers` reads back exactly what
:func:`format_marker` wrote (and a marker written before titles were escaped, up to its
`` at sectionid:``).
"""

from __future__ import annotations

import re
from typing import NamedTuple

MARKER_RE = re.compile(
    r'\[Subsection available(?:: title "(?P<title>(?:\\[^\n]|[^\\\n])*?)")? at sectionid: '
    r"`(?P<id>[^`]+)`\]"
)
"""Finds markers anywhere in a text (a marker may sit inside a table cell)."""

MARKER_START = "[Subsection available"
"""How every marker starts: a plain substring test skips the regex on texts without one (most
chunks)."""


class Marker(NamedTuple):
    """A marker found in a text: target id, title ("" when none) and its [start, end) offsets
    in characters (0-based)."""

    target_id: str
    title: str
    start: int
    end: int


def format_marker(target_id: str, title: str = "") -> str:
    """The marker line for a subsection; newlines and runs of spaces in the title collapse, and
    its ``"`` and ``\\`` are escaped with a backslash."""
    title = " ".join(title.split())
    if title:
        title = title.replace("\\", "\\\\").replace('"', '\\"')
        return f'[Subsection available: title "{title}" at sectionid: `{target_id}`]'
    return f"[Subsection available at sectionid: `{target_id}`]"


def find_markers(text: str) -> list[Marker]:
    """All markers in ``text`` in order of appearance."""
    if MARKER_START not in text:
        return []
    return [
        Marker(m.group("id"), _unescape(m.group("title") or ""), m.start(), m.end())
        for m in MARKER_RE.finditer(text)
    ]


_ESCAPED = re.compile(r"\\(.)")


def _unescape(title: str) -> str:
    """A marker's title as given to :func:`format_marker` (its backslash escapes undone)."""
    return _ESCAPED.sub(r"\1", title) if "\\" in title else title


def marker_ids(text: str) -> list[str]:
    """The target ids of the markers in ``text`` in order of appearance: the ``target_id`` of
    each :func:`find_markers` item, without building the :class:`Marker` objects."""
    if MARKER_START not in text:
        return []
    return [target_id for _title, target_id in MARKER_RE.findall(text)]


def marker_sizes(text: str) -> list[tuple[str, int]]:
    """``(target id, characters)`` of every marker in ``text``, in order (the ``target_id`` and
    span of each :func:`find_markers` item, without building them or unescaping titles)."""
    if MARKER_START not in text:
        return []
    return [(m.group("id"), m.end() - m.start()) for m in MARKER_RE.finditer(text)]


def without_markers(text: str) -> str:
    """``text`` with its markers taken out: the chunk's own text."""
    return MARKER_RE.sub("", text) if MARKER_START in text else text


def size_without_markers(text: str) -> int:
    """``len(text)`` less its markers' characters: the chunk's own text, in characters."""
    return len(text) - sum(chars for _target, chars in marker_sizes(text))
