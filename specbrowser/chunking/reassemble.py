"""Lossless check: rebuild a section's Markdown from its chunk tree.

Each marker of a subsection is replaced by the subsection's own reassembled text, fitted to where
the marker stands:

- in a table row (a line starting with ``|``): a ``table_row`` group's marker row becomes the
  group's rows (the caption and header rows it repeats are dropped), indented as the marker
  row is (a table inside a list item); any other subsection (a
  cell, an item of a list in a cell) is written as cell text
  (:func:`specbrowser.chunking.gfm.to_cell`), its lines after the first indented as the
  cell's line continues (a list item's);
- elsewhere: the first line goes where the marker was, following lines are indented like the
  marker's line continues (list indentation kept, ``>`` of quotes kept).

Markers of child sections stay: a section's Markdown never includes its child sections.
The result equals :func:`specbrowser.chunking.markdown.to_markdown` of the whole section up to
:func:`normalize_whitespace`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from specbrowser.chunking.gfm import to_cell
from specbrowser.chunking.markers import find_markers
from specbrowser.model import Chunk

_DELIMITER_ROW = re.compile(r"^\|(?:-+\|)+$")


def reassemble(
    chunk_id: str,
    chunks: Mapping[str, Chunk],
    wrap: Callable[[str, str], str] | None = None,
) -> str:
    """The Markdown of a chunk with all its breakdown subsections put back, recursively.

    ``wrap(subsection_id, text)``, when given, rewrites each subsection's text once it is
    fitted to its marker's place (a cell, rows, a block), before it goes in: what
    :func:`reassemble_spans` uses to learn where each piece lands.

    Raises:
        KeyError: ``chunk_id`` or a subsection it names is not in ``chunks``.
    """
    chunk = chunks[chunk_id]
    text = chunk.text
    for marker in reversed(find_markers(text)):
        target = chunks.get(marker.target_id)
        if target is None or target.parent_id != chunk.id:
            continue  # a child section (or an unknown id): the marker stays
        sub = reassemble(target.id, chunks, wrap)
        line_start = text.rfind("\n", 0, marker.start) + 1
        line_end = text.find("\n", marker.end)
        line_end = len(text) if line_end == -1 else line_end
        before = text[line_start : marker.start]
        if before.lstrip(" >").startswith("|"):
            if target.layer == "table_row":  # the rows, indented as the marker row is
                indent = before[: len(before) - len(before.lstrip(" >"))]
                above = _rows_above(text, line_start, indent)
                rows = "\n".join(indent + row for row in _group_rows(sub, above))
                if wrap is not None:
                    rows = wrap(target.id, rows)
                text = text[:line_start] + rows + text[line_end:]
                continue
            sub = to_cell(_continued(sub, _cell_continuation(before)))
        else:
            sub = _continued(sub, "".join(c if c in " >" else " " for c in before))
        if wrap is not None:
            sub = wrap(target.id, sub)
        text = text[: marker.start] + sub + text[marker.end :]
    return text


_OPEN = "\U000f0000"
"""Opens a subsection's piece while :func:`reassemble_spans` runs (a private-use character,
never in spec text); the next character is ``_OPEN`` + 1 + the subsection's index (below
65,534 subsections per chunk tree: the next code points end at :data:`_CLOSE`)."""
_CLOSE = "\U000fffff"
"""Closes the innermost open piece."""


def reassemble_spans(
    chunk_id: str, chunks: Mapping[str, Chunk]
) -> tuple[str, list[tuple[str, int, int]]]:
    """:func:`reassemble` of ``chunk_id``, and which chunk each part of the result comes from.

    Returns the text and its ``(chunk id, start, end)`` runs (character offsets, end excluded),
    in order, covering the text without gaps: the parts of a chunk's own text (and the
    caption and header rows a row group repeats are the parent's) belong to that chunk, each
    subsection's put-back text to the subsection, recursively.

    Raises:
        KeyError: as :func:`reassemble`.
    """
    ids: list[str] = []

    def wrap(sub_id: str, text: str) -> str:
        ids.append(sub_id)
        return f"{_OPEN}{chr(ord(_OPEN) + len(ids))}{text}{_CLOSE}"

    marked = reassemble(chunk_id, chunks, wrap)
    out: list[str] = []
    runs: list[tuple[str, int, int]] = []
    stack = [chunk_id]
    run_start = 0
    position = 0
    index = 0
    while index < len(marked):
        char = marked[index]
        if char in (_OPEN, _CLOSE):
            if position > run_start:
                runs.append((stack[-1], run_start, position))
            run_start = position
            if char == _OPEN:
                stack.append(ids[ord(marked[index + 1]) - ord(_OPEN) - 1])
                index += 2
                continue
            stack.pop()
        else:
            out.append(char)
            position += 1
        index += 1
    if position > run_start:
        runs.append((stack[-1], run_start, position))
    return "".join(out), runs


def _group_rows(group_text: str, above: list[str]) -> list[str]:
    """The body rows of a row-group chunk: the lines after its first delimiter row, less the
    further header rows it repeats (a header of several rows: its rows after the first, which
    the table in the parent holds right after its delimiter, ``above``)."""
    lines = group_text.split("\n")
    for index, line in enumerate(lines):
        if _DELIMITER_ROW.match(line):
            rows = lines[index + 1 :]
            repeated = 0
            while repeated < min(len(rows), len(above)) and rows[repeated] == above[repeated]:
                repeated += 1
            return rows[repeated:]
    return lines


def _rows_above(text: str, line_start: int, indent: str) -> list[str]:
    """The rows (``indent`` removed) of the table that the line at ``line_start`` of ``text``
    stands in, from its delimiter row to that line (excluded); [] when there is none."""
    rows: list[str] = []
    end = line_start - 1
    while end > 0:
        start = text.rfind("\n", 0, end) + 1
        line = text[start:end]
        if not line.startswith(indent) or not line[len(indent) :].startswith("|"):
            return []
        row = line[len(indent) :]
        if _DELIMITER_ROW.match(row):
            return rows[::-1]
        rows.append(row)
        end = start - 1
    return []


def normalize_whitespace(text: str) -> str:
    """The normalisation under which reassembly is exact: trailing spaces on each line and blank
    lines are dropped, a quote's blank lines (only ``>`` and spaces) too (a list item's blocks
    may be joined tightly in one place and loosely in another, in a note as anywhere), and the
    same inside a table row's cells, whose lines ``<br>`` separates; nothing else changes. A
    paragraph of ``>`` alone is escaped (``\\>``), so no such line is text, and ``<br>`` in cell
    text is only a line break (:func:`~specbrowser.chunking.gfm.to_cell`; text's own ``<``
    is escaped)."""
    return "\n".join(
        _CELL_BLANK_LINES.sub("<br>", line) if "<br>" in line else line
        for line in (line.rstrip() for line in text.split("\n") if line.strip(" \t>"))
    )


_CELL_BLANK_LINES = re.compile(r"[ \t]*<br>(?:[ \t>]*<br>)*")
"""In a table row: a cell's line break with the trailing spaces before it and the blank lines
after it (:func:`normalize_whitespace`)."""


def _cell_continuation(before: str) -> str:
    """How the lines of a subsection put back inside a table cell continue: the list
    indentation (``>`` of quotes kept) of the cell line the marker stands on, when it stands
    after a list item's mark in that line (a list in a cell, one item extracted); else ""."""
    line = re.split(r"<br>|(?<!\\)\| ", before)[-1]
    return "".join(c if c in " >" else " " for c in line) if line.strip(" >") else ""


def _continued(text: str, continuation: str) -> str:
    """``text`` with each line after the first prefixed by ``continuation`` (blank lines as its
    ``>`` only)."""
    if "\n" not in text:
        return text
    first, *rest = text.split("\n")
    return "\n".join(
        [first, *((continuation + line) if line else continuation.rstrip() for line in rest)]
    )
