"""GFM table helpers of the Markdown converter (:mod:`specbrowser.chunking.markdown`): rows of a
table, colspan/rowspan padding, the table's lines."""

from __future__ import annotations

from lxml import etree

_MARKERS = ("sb-section-ref", "sb-marker")
"""The converter's placeholder elements (:data:`specbrowser.chunking.markdown.MARKER_TAGS`), which
may stand for an extracted cell."""


def format_table(rows: list[list[str]], min_columns: int = 0, *, header: bool = True) -> str:
    """GFM table lines from cell texts; the first row is the header (with ``header=False`` an
    empty header row comes first and every row is a body row), short rows are padded to the
    widest row (or ``min_columns``)."""
    width = max(min_columns, *(len(r) for r in rows))
    rows = [r + [""] * (width - len(r)) for r in rows]
    if not header:
        rows = [[""] * width, *rows]
    lines = ["| " + " | ".join(rows[0]) + " |", "|" + "|".join(["---"] * width) + "|"]
    lines.extend("| " + " | ".join(r) + " |" for r in rows[1:])
    return "\n".join(lines)


def own_rows(table: etree._Element) -> list[etree._Element]:
    """The ``tr`` of this table (not of tables nested in its cells), in order."""
    rows: list[etree._Element] = []
    for child in table:
        if child.tag == "tr":
            rows.append(child)
        elif child.tag in ("thead", "tbody", "tfoot"):
            rows.extend(r for r in child if r.tag == "tr")
    return rows


def fill_carried(cells: list[str], carry: dict[int, int]) -> None:
    """Append an empty cell for each column a rowspan from an earlier row still covers."""
    while carry.get(len(cells), 0) > 0:
        carry[len(cells)] -= 1
        cells.append("")


def cell_span(cell: etree._Element, name: str) -> int:
    """A cell's ``colspan`` or ``rowspan`` (``name``) as a count from 1 to 100 (1 when absent or
    not a number)."""
    try:
        return max(1, min(int(cell.get(name, "1")), 100))
    except ValueError:
        return 1


def has_header_row(table: etree._Element) -> bool:
    """Whether a table's first row is a header: it stands in ``thead``, or all its cells are
    ``th``. A table without one gets an empty header row in Markdown (GFM needs one)."""
    rows = own_rows(table)
    if not rows:
        return True
    first = rows[0]
    parent = first.getparent()
    if parent is not None and parent.tag == "thead":
        return True
    return _all_th(first)


def header_rows(table: etree._Element) -> list[etree._Element]:
    """The rows of a table's header, in order; [] when it has none (:func:`has_header_row`).

    The rows in ``thead``, else the leading rows whose cells are all ``th``; then as many rows
    more as a ``rowspan`` from those reaches into (a header cell spanning the first body row
    keeps that row with the header). A grouped header (a first row of ``colspan`` groups, a
    second of the columns) is thus whole.
    """
    rows = own_rows(table)
    if not rows or not has_header_row(table):
        return []
    first_parent = rows[0].getparent()
    if first_parent is not None and first_parent.tag == "thead":
        count = sum(1 for row in rows if row.getparent() is first_parent)
    else:
        count = 1
        while count < len(rows) and _all_th(rows[count]):
            count += 1
    index = 0
    while index < count:
        for cell in rows[index]:
            if cell.tag in ("td", "th") or cell.tag in _MARKERS:
                count = max(count, min(len(rows), index + cell_span(cell, "rowspan")))
        index += 1
    return rows[:count]


def _all_th(row: etree._Element) -> bool:
    cells = [c for c in row if c.tag in ("td", "th") or c.tag in _MARKERS]
    return bool(cells) and all(c.tag == "th" for c in cells)


def row_widths(table: etree._Element) -> list[int]:
    """How many columns each row of a table covers, in order: its cells' ``colspan`` summed,
    plus the columns a ``rowspan`` from a row above still covers (what a browser lays out)."""
    widths: list[int] = []
    carry: dict[int, int] = {}  # column -> rows still covered by a rowspan from above
    for row in own_rows(table):
        column = 0
        for cell in row:
            if not (cell.tag in ("td", "th") or cell.tag in _MARKERS):
                continue
            while carry.get(column, 0) > 0:
                carry[column] -= 1
                column += 1
            colspan, rowspan = cell_span(cell, "colspan"), cell_span(cell, "rowspan")
            if rowspan > 1:
                for spanned in range(column, column + colspan):
                    carry[spanned] = rowspan - 1
            column += colspan
        for spanned in [c for c, rows in carry.items() if c >= column and rows > 0]:
            carry[spanned] -= 1
            column = max(column, spanned + 1)
        widths.append(column)
    return widths
