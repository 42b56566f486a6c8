"""Table row groups: a large table cut into groups of whole rows, each repeating the table's
caption and header row, for the ``tr`` breakdown tag and the guarded strategy's cell tags."""

from __future__ import annotations

from collections.abc import Callable
from copy import deepcopy

from lxml import etree

from specbrowser.chunking.extraction import MARKER_TAG, REPEATED_ATTR, BreakdownRun, Pending
from specbrowser.chunking.markdown import COLUMNS_ATTR, own_rows, resolve_roles, text_of
from specbrowser.chunking.markdown_tables import header_rows
from specbrowser.chunking.markers import format_marker

ROW_GROUP_TAG = "tr"
"""The breakdown tag that splits a large table into row groups (``table_row`` chunks)."""


RowGroupName = Callable[[list[etree._Element]], "str | None"]
"""``name(rows)``: the chunk id of a row group holding ``rows``, or None to leave them."""


def extract_row_groups(
    el: etree._Element,
    parent_chunk_id: str,
    next_tags: tuple[str, ...],
    run: BreakdownRun,
    *,
    tag: str = ROW_GROUP_TAG,
    name: RowGroupName | None = None,
    min_chars: int = 0,
    within: Callable[[etree._Element], bool] | None = None,
) -> list[Pending]:
    """Split each outermost table in ``el`` whose Markdown is over the threshold into row groups.

    Body rows are grouped greedily, in order, so that each group's Markdown (caption, header
    rows, delimiter, its rows) fits the threshold; a row that alone is over stays a group of one.
    A row is never cut. Each group becomes a ``table_row`` chunk ``<parent>-tr-<n>`` that repeats
    the caption and every header row (:func:`~specbrowser.chunking.markdown_tables.header_rows`:
    a grouped header of several rows whole, so every group has the table's columns; a table
    without a header: none); in the table, one marker row
    stands where the group's rows were. Tables holding an earlier marker are left alone; a
    rowspan that crosses two groups is not repeated in the second.

    The guarded strategy (:mod:`specbrowser.chunking.guards`) passes the ``tag`` that cuts
    (``td`` packs a table's cells by rows), ``name`` for the ids, ``min_chars`` (a group whose
    Markdown is shorter, or no longer than its marker, is not made: its rows stay in the table)
    and ``within`` (only the tables it accepts are split); each group can then be undone.
    """
    pending: list[Pending] = []
    tables = [
        t for t in el.iter("table") if not any(a.tag == "table" for a in _ancestors_below(t, el))
    ]
    for table in tables:
        rows = own_rows(table)
        if len(rows) < 2 or next(table.iter(MARKER_TAG), None) is not None:
            continue
        if within is not None and not within(table):
            continue
        lines = run.markdown(table).split("\n")
        sizer = run.sizer
        if run.fits(sizer.whole(sum(sizer.part(line) + sizer.join(1) for line in lines))):
            continue
        header = header_rows(table)  # [] : every row is a body row
        body = rows[len(header) :]
        if not body:
            continue
        header_at = next(i for i, line in enumerate(lines) if line.startswith("|"))
        columns = str(lines[header_at + 1].count("---"))
        columns_before = table.get(COLUMNS_ATTR)
        # the header's first row is the GFM header; its further rows are the first body lines
        body_at = header_at + 2 + max(0, len(header) - 1)
        header_lines = lines[header_at:body_at]
        row_lines = lines[body_at:]
        caption = _caption_of(table)
        fixed, fixed_chars = (
            (sizer.part(run.markdown(caption)) + sizer.join(2) if caption is not None else 0)
            + sum(sizer.part(line) for line in header_lines)
            + sizer.join(len(header_lines)),
            (len(run.markdown(caption)) + 2 if caption is not None else 0)
            + sum(len(line) + 1 for line in header_lines),
        )
        groups: list[list[int]] = []
        sizes: list[int] = []  # in characters, for the minimum
        size, chars = fixed, fixed_chars
        for block in _rowspan_blocks(body):
            length = sum(sizer.part(row_lines[i]) + sizer.join(1) for i in block)
            length_chars = sum(len(row_lines[i]) + 1 for i in block)
            if groups and run.fits(sizer.whole(size + length)):
                groups[-1].extend(block)
                size += length
                chars += length_chars
            else:
                groups.append(list(block))
                size, chars = fixed + length, fixed_chars + length_chars
                sizes.append(0)
            sizes[-1] = chars
        caption_text = " ".join(text_of(caption).split()) if caption is not None else ""
        made = 0
        for group, group_size in zip(groups, sizes, strict=True):
            first, last = group[0] + 1, group[-1] + 1
            span = f"row {first}" if first == last else f"rows {first}–{last}"
            title = f"{caption_text}, {span}" if caption_text else span
            if name is None:
                chunk_id = f"{parent_chunk_id}-{ROW_GROUP_TAG}-{len(pending) + 1}"
            else:
                named = name([body[i] for i in group])
                if named is None or group_size <= min_chars:  # one newline less than counted
                    continue
                chunk_id = named
            if not made:
                table.set(COLUMNS_ATTR, columns)  # marker rows must not narrow the table
            group_el, marker = _group_element(
                caption, header, [body[i] for i in group], chunk_id, title
            )
            group_table = group_el.find("table")
            group_body = group_table.find("tbody") if group_table is not None else None
            assert group_table is not None and group_body is not None, "figure > table > tbody"
            group_table.set(COLUMNS_ATTR, columns)
            for element, role in resolve_roles(group_el, run.policy.markdown).items():
                run.roles.setdefault(element, role)
            restore = _row_group_restore(
                marker, group_body, table, columns_before if not made else columns
            )
            if name is not None:  # the group's own Markdown decides, not the estimate
                size = len(run.markdown(group_el))
                if size < min_chars or size <= len(format_marker(chunk_id, title)) + 4:
                    restore()
                    continue
            made += 1
            pending.append(
                Pending(
                    group_el,
                    chunk_id,
                    title,
                    tag,
                    next_tags,
                    layer="table_row",
                    marker=marker,
                    restore=restore,
                )
            )
    return pending


def _row_group_restore(
    marker: etree._Element, body: etree._Element, table: etree._Element, columns: str | None
) -> Callable[[], None]:
    """Undoes :func:`_group_element`: the rows of the group's ``body`` back in place of the
    marker row, and the table's column count as it was before this group (None: unset)."""

    def restore() -> None:
        marker_row = marker.getparent()
        assert marker_row is not None, "a row group's marker stands in its marker row"
        for row in list(body):
            marker_row.addprevious(row)
        parent = marker_row.getparent()
        assert parent is not None, "a marker row stands in its table"
        parent.remove(marker_row)
        if columns is None:
            if COLUMNS_ATTR in table.attrib:
                del table.attrib[COLUMNS_ATTR]
        else:
            table.set(COLUMNS_ATTR, columns)

    return restore


def _rowspan_blocks(rows: list[etree._Element]) -> list[range]:
    """Consecutive row indexes that a ``rowspan`` ties together; a group never splits one."""
    blocks: list[range] = []
    start = 0
    while start < len(rows):
        end = start
        index = start
        while index <= end:
            spans = [int(span) for c in rows[index] if (span := c.get("rowspan") or "").isdigit()]
            end = min(len(rows) - 1, max([end, *(index + s - 1 for s in spans)]))
            index += 1
        blocks.append(range(start, end + 1))
        start = end + 1
    return blocks


def _group_element(
    caption: etree._Element | None,
    header: list[etree._Element],
    rows: list[etree._Element],
    chunk_id: str,
    title: str,
) -> tuple[etree._Element, etree._Element]:
    """Move ``rows`` into a new figure (caption and header row copied); leave a marker row.
    Returns the figure and the marker."""
    marker_row = etree.Element("tr")
    marker = etree.SubElement(marker_row, MARKER_TAG, {"data-id": chunk_id, "data-title": title})
    rows[0].addprevious(marker_row)
    figure = etree.Element("figure")
    if caption is not None:
        copied = deepcopy(caption)
        copied.tail = None
        copied.set(REPEATED_ATTR, "1")
        figure.append(copied)
    table = etree.SubElement(figure, "table")
    if header:
        thead = etree.SubElement(table, "thead", {REPEATED_ATTR: "1"})
        for row in header:
            copied = deepcopy(row)
            copied.tail = None
            thead.append(copied)
    tbody = etree.SubElement(table, "tbody")
    for row in rows:
        tbody.append(row)  # moves the row out of the original table
    return figure, marker


def _caption_of(table: etree._Element) -> etree._Element | None:
    """The ``figcaption`` of the figure around a table, else the table's ``caption``."""
    parent = table.getparent()
    if parent is not None and parent.tag == "figure":
        found = parent.find("figcaption")
        if found is not None:
            return found
    return table.find("caption")


def _ancestors_below(el: etree._Element, root: etree._Element) -> list[etree._Element]:
    found = []
    for ancestor in el.iterancestors():
        if ancestor is root:
            break
        found.append(ancestor)
    return found
