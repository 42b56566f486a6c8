"""Recursive sequential breakdown of a section into a chunk tree (seed 000, corrected).

For one section's own-content element:

1. If its Markdown is within the policy's threshold, the section is one chunk.
2. Otherwise the breakdown tags are tried in order. For a tag, its *outermost* matches that are
   still in the working copy are extracted (never one nested in an element already extracted,
   never a marker). Under the seed strategy each one with text becomes a subsection
   ``<parent id>-<tag>-<n>`` (n from 1 per parent and tag) and a marker replaces it; the
   guarded strategy packs, keeps rule units, and skips tiny and growing ones
   (:mod:`specbrowser.chunking.guards`), and undoes a tag that leaves the remainder no
   smaller. Tags stop as soon as the remainder fits.
3. A subsection over the threshold is broken down the same way one level deeper, starting with
   the tags *after* the one that extracted it. Nothing is broken down at ``max_depth``.
4. A chunk still over the threshold stays whole and is flagged ``max_depth``, ``unsplittable``,
   or ``markers`` when its own text (markers left out) fits and only its markers put it over.

The threshold enters only through "does a Markdown of n characters fit" (n <= threshold). Every
such test goes through :meth:`_Breakdown.fits`, which records the range of thresholds for which
each test comes out the same (:attr:`specbrowser.model.Chunk.holds_for`): under any threshold in
that range the section's chunk tree is the same, so a re-chunk may copy it from a stored set
instead of breaking the section down again (:mod:`specbrowser.session.rechunk`).

Defects of the seed's sample code avoided here, each covered by a test: querying the original
document while mutating a copy; recursion restarting from the first tag; nested matches
extracted twice; marker paragraphs extracted again; ``caption`` instead of a figure's
``figcaption``; annexes and introductions ignored; no overrun flag.

Subsection titles are the spec format's (:class:`specbrowser.chunking.rules.ChunkingRules`).
"""

from __future__ import annotations

from collections.abc import Callable
from copy import deepcopy
from dataclasses import dataclass, field
from functools import lru_cache
from typing import cast

from lxml import etree

from specbrowser.chunking.enrich import subsection_label
from specbrowser.chunking.markdown import (
    COLUMNS_ATTR,
    MARKER_TAGS,
    BlockCache,
    Roles,
    has_header_row,
    own_rows,
    resolve_roles,
    text_of,
    to_markdown,
)
from specbrowser.chunking.markers import format_marker, marker_ids, without_markers
from specbrowser.chunking.measure import CHARS, Sizer
from specbrowser.chunking.policy import ChunkPolicy, is_selector_tag, tag_slug
from specbrowser.chunking.reassemble import normalize_whitespace
from specbrowser.chunking.rules import ChunkingRules, SubsectionTitle, first_words
from specbrowser.model import Chunk, Section
from specbrowser.types import Layer, OverrunReason

MARKER_TAG = "sb-marker"
"""The placeholder element the breakdown leaves where it extracted a subsection."""

OVER_MAX_DEPTH: OverrunReason = "max_depth"
OVER_UNSPLITTABLE: OverrunReason = "unsplittable"
OVER_MARKERS: OverrunReason = "markers"


@dataclass
class _Pending:
    element: etree._Element
    chunk_id: str
    title: str
    tag: str
    next_tags: tuple[str, ...]
    layer: Layer = "subsection"
    marker: etree._Element | None = None
    """The marker that stands for the element in its parent's tree (None for the section)."""
    restore: Callable[[], None] | None = None
    """Puts the extracted content back where the marker stands (the guarded strategy undoes a
    tag pass that did not make its parent smaller); None when it cannot be undone."""
    part_path: list[str] = field(default_factory=list)
    """The names of the subsections from the section's root chunk (excluded) down to this one,
    as its retrieval text's ``Part:`` line gives them (:func:`subsection_label`)."""


def break_down(
    section: Section,
    element: etree._Element,
    policy: ChunkPolicy,
    heading_path: list[str],
    *,
    rules: ChunkingRules,
    roles: Roles | None = None,
    cache: BlockCache | None = None,
    sizer: Sizer = CHARS,
) -> list[Chunk]:
    """The chunk tree of one section, in pre-order (each chunk before its subsections).

    ``element`` is the section's own-content element (child sections as placeholders); it is
    mutated (extracted elements are replaced by markers), so pass a fresh one per call.
    ``heading_path`` is the display titles of the section's ancestors and itself; ``rules``
    are the spec format's (subsection titles). Chunk ordinals are 0-based within the returned
    list; the caller offsets them.
    ``roles`` (:func:`resolve_roles` of ``element``) and ``cache`` (blocks of the pristine
    ``element``) may be passed when already known: the breakdown takes them over and changes
    them; the chunks are the same (see :mod:`specbrowser.chunking.markdown_cache`).
    ``sizer`` measures texts in the policy's unit (:mod:`specbrowser.chunking.measure`).
    """
    if roles is None:
        roles = resolve_roles(element, policy.markdown)
    run = _Breakdown(
        section,
        policy,
        roles,
        heading_path,
        rules,
        cache={} if cache is None else cache,
        sizer=sizer,
    )
    run.chunk(
        _Pending(
            element, section.id, section.display_title, "", policy.breakdown_tags, layer="section"
        ),
        parent_id=None,
        depth=0,
    )
    for ordinal, chunk in enumerate(run.out):
        chunk.ordinal = ordinal
    run.out[0].holds_for = (run.fit_max, run.overflow_min)
    return run.out


def breakdown_applies(size: int, policy: ChunkPolicy) -> bool:
    """Whether the breakdown may cut a section whose pristine Markdown has ``size`` (in the
    policy's unit): over the threshold, with a depth and a tag left to cut it."""
    return size > policy.threshold and policy.max_depth > 0 and bool(policy.breakdown_tags)


def whole_section_chunk(
    section: Section,
    markdown: str,
    subsections: list[str],
    policy: ChunkPolicy,
    heading_path: list[str],
    sizer: Sizer = CHARS,
) -> Chunk | None:
    """The one chunk :func:`break_down` makes of a section whose pristine Markdown is
    ``markdown`` (with markers naming ``subsections``) when the breakdown cannot change it:
    it fits the threshold, or it may not be cut (``max_depth`` 0, or no breakdown tags). None
    when the breakdown must run on the section's element. Sizes by ``sizer``, as
    :func:`break_down`'s."""
    size = sizer.size(markdown)
    if breakdown_applies(size, policy):
        return None
    reason: OverrunReason | None = None
    holds_for: tuple[int, int | None] = (size, None)
    if size > policy.threshold and policy.max_depth <= 0:
        reason, holds_for = OVER_MAX_DEPTH, (0, size)
    elif size > policy.threshold:  # no tag to try: as break_down flags it
        bare = sizer.size(without_markers(markdown))
        if bare <= policy.threshold:
            reason, holds_for = OVER_MARKERS, (bare, size)
        else:
            reason, holds_for = OVER_UNSPLITTABLE, (0, bare)
    return Chunk(
        id=section.id,
        section_id=section.id,
        parent_id=None,
        depth=0,
        layer="section",
        breakdown_tag=None,
        title=section.display_title,
        heading_path=list(heading_path),
        text=markdown,
        over_threshold=reason,
        subsections=list(subsections),
        holds_for=holds_for,
    )


@dataclass
class _Breakdown:
    """One section's breakdown: the settings shared by every level, and the chunks so far."""

    section: Section
    policy: ChunkPolicy
    roles: Roles
    heading_path: list[str]
    rules: ChunkingRules
    out: list[Chunk] = field(default_factory=list)
    cache: BlockCache = field(default_factory=dict)
    sizer: Sizer = CHARS
    """Sizes in the policy's unit; every size :meth:`fits` is given comes from a sizer
    derived from it. While a chunk's tag passes run, it is that chunk's
    :meth:`~Sizer.for_children` (a pass weighs the subsections it would make)."""
    fit_max: int = 0
    """The largest size :meth:`fits` found within the threshold (0: none)."""
    overflow_min: int | None = None
    """The smallest size :meth:`fits` found over the threshold (None: none)."""

    def fits(self, size: int) -> bool:
        """Whether a chunk of ``size`` (the policy's unit, by :attr:`sizer`) fits the threshold.
        Every threshold test of the breakdown is this call, so that thresholds from
        :attr:`fit_max` up to (not including) :attr:`overflow_min` give every test the same
        outcome: the same chunk tree."""
        if size <= self.policy.threshold:
            self.fit_max = max(self.fit_max, size)
            return True
        if self.overflow_min is None or size < self.overflow_min:
            self.overflow_min = size
        return False

    def markdown(self, el: etree._Element) -> str:
        return to_markdown(
            el, self.policy.markdown, self.roles, self.cache, self.rules.markdown_elements
        )

    def forget(self, extracted: list[_Pending], el: etree._Element) -> None:
        """Drop the cached blocks of every element whose subtree an extraction changed: the
        ancestors of each new marker (up to ``el``), and ``el`` itself."""
        changed = {el}
        for item in extracted:
            assert item.marker is not None, "an extracted element leaves a marker"
            for ancestor in item.marker.iterancestors():
                if ancestor in changed:
                    break  # and so are the ones above it, up to el
                changed.add(ancestor)
        for element in changed:
            self.cache.pop(element, None)

    def tag_pass(
        self, el: etree._Element, tag: str, chunk_id: str, next_tags: tuple[str, ...]
    ) -> list[_Pending]:
        """Extract ``tag``'s elements from ``el`` under the policy's strategy; the subsections
        made, their markers in place."""
        if self.policy.strategy != "seed":
            from specbrowser.chunking.guards import guarded_pass  # guards builds on this module

            return guarded_pass(self, el, tag, chunk_id, next_tags)
        if tag == ROW_GROUP_TAG:
            return extract_row_groups(el, chunk_id, next_tags, self)
        return _extract(el, tag, chunk_id, next_tags, self.rules.subsection_title)

    def undo(self, extracted: list[_Pending], el: etree._Element) -> None:
        """Put back what a tag pass extracted (and drop the cached blocks it changed)."""
        self.forget(extracted, el)
        for item in reversed(extracted):
            assert item.restore is not None, "every tag pass's subsections can be undone"
            item.restore()

    def chunk(self, item: _Pending, *, parent_id: str | None, depth: int) -> None:
        el = item.element
        text = self.markdown(el)
        pending: list[_Pending] = []
        reason: OverrunReason | None = None
        section_sizer = self.sizer
        sizer = section_sizer.for_part(item.part_path)
        self.sizer = section_sizer.for_children(item.part_path)
        if not self.fits(sizer.size(text)):
            if depth >= self.policy.max_depth:
                reason = OVER_MAX_DEPTH
            else:
                for index, tag in enumerate(item.next_tags):
                    rest = item.next_tags[index + 1 :]
                    extracted = self.tag_pass(el, tag, item.chunk_id, rest)
                    if not extracted:
                        continue
                    self.forget(extracted, el)
                    remainder = self.markdown(el)
                    shown = set(marker_ids(remainder))
                    if any(p.chunk_id not in shown for p in extracted):
                        # a marker the converter does not render (inside a grammar block, say)
                        # would lose its subsection: those elements are put back
                        self.undo([p for p in extracted if p.chunk_id not in shown], el)
                        extracted = [p for p in extracted if p.chunk_id in shown]
                        if not extracted:
                            continue
                        remainder = self.markdown(el)
                    if self.policy.strategy != "seed" and not _shorter(remainder, text):
                        self.undo(extracted, el)  # no smaller: the next tag is tried
                        continue
                    pending.extend(extracted)
                    text = remainder
                    if self.fits(sizer.size(text)):
                        break
                else:  # no tag brought the text within the threshold
                    mostly_markers = self.fits(sizer.size(without_markers(text)))
                    reason = OVER_MARKERS if mostly_markers else OVER_UNSPLITTABLE
        subsections = [m.get("data-id", "") for m in el.iter(*MARKER_TAGS)]
        anchors = element_ids(el) if parent_id is not None else []  # see Chunk.anchors
        self.out.append(
            Chunk(
                id=item.chunk_id,
                section_id=self.section.id,
                parent_id=parent_id,
                depth=depth,
                layer=item.layer,
                breakdown_tag=item.tag or None,
                title=item.title,
                heading_path=list(self.heading_path),
                text=text,
                over_threshold=reason,
                subsections=subsections,
                anchors=anchors,
            )
        )
        self.sizer = section_sizer
        order = {chunk_id: i for i, chunk_id in enumerate(subsections)}
        for sub in sorted(pending, key=lambda p: order.get(p.chunk_id, len(order))):
            if not sizer.joins:  # in tokens: its Part: line counts
                label = subsection_label(sub.tag or None, sub.title, sub.chunk_id, item.chunk_id)
                sub.part_path = [*item.part_path, label]
            self.chunk(sub, parent_id=item.chunk_id, depth=depth + 1)


def _shorter(remainder: str, text: str) -> bool:
    """Whether ``remainder`` is shorter than ``text`` in characters, blank lines and trailing
    spaces left out (:func:`~specbrowser.chunking.reassemble.normalize_whitespace`): a marker
    that stands for a block with a blank line inside (a table under its caption, a grammar and
    its algorithm) saves that line even when the marker is as long as the block's text."""
    return len(normalize_whitespace(remainder)) < len(normalize_whitespace(text))


def element_ids(el: etree._Element) -> list[str]:
    """The ids of ``el`` and the elements in it, in document order, except inside the caption
    and header row a row group repeats from its table (the table's chunk holds those). Markers
    and placeholders are empty, so what was extracted is not counted."""
    found: list[str] = []
    skip: etree._Element | None = None
    for node in el.iter(etree.Element):  # elements only, not comments
        if skip is not None:
            if any(a is skip for a in node.iterancestors()):
                continue
            skip = None
        if node.get(REPEATED_ATTR):
            skip = node
            continue
        element_id = node.get("id")
        if element_id:
            found.append(element_id)
    return found


def _extract(
    el: etree._Element,
    tag: str,
    parent_chunk_id: str,
    next_tags: tuple[str, ...],
    subsection_title: SubsectionTitle,
) -> list[_Pending]:
    """Replace the outermost ``tag`` elements with text inside ``el`` by markers, each titled
    by ``subsection_title``.

    An element that holds a marker of an earlier pass is left in place: extracting it would move
    that subsection under a chunk its id and parent do not name.
    """
    selected = select_candidates(el, tag)
    pending: list[_Pending] = []
    slug, selector = tag_slug(tag), is_selector_tag(tag)
    for n, candidate in enumerate(selected, start=1):
        chunk_id = f"{parent_chunk_id}-{slug}-{n}"
        title = subsection_title(candidate, candidate.tag if selector else tag)
        marker = replace_with_marker(candidate, chunk_id, title)
        title = title or first_words(candidate)  # the chunk's name; the marker keeps it short
        restore = single_restore(candidate, marker)
        pending.append(
            _Pending(candidate, chunk_id, title, tag, next_tags, marker=marker, restore=restore)
        )
    return pending


def single_restore(element: etree._Element, marker: etree._Element) -> Callable[[], None]:
    """Undoes :func:`~specbrowser.chunking.breakdown.replace_with_marker`."""

    def restore() -> None:
        parent = marker.getparent()
        assert parent is not None, "a marker stands in its parent"
        element.tail = marker.tail
        parent.replace(marker, element)

    return restore


def select_candidates(el: etree._Element, tag: str) -> list[etree._Element]:
    """The outermost ``tag`` elements inside ``el`` that a pass may extract, in document order:
    not ``el``, not inside another one, not context a row group repeats, holding no marker of
    an earlier pass, and holding text or a child section's placeholder."""
    selected: list[etree._Element] = []
    chosen: set[etree._Element] = set()
    for candidate in candidates(el, tag):
        if candidate is el or candidate.get(REPEATED_ATTR) or _inside(candidate, el, chosen):
            continue
        if _extractable(candidate):
            selected.append(candidate)
            chosen.add(candidate)
    return selected


def _extractable(candidate: etree._Element) -> bool:
    """Whether a candidate holds no marker of an earlier pass, and holds text or a child
    section's placeholder (else it is not extracted). One walk finds both kinds of marker."""
    placeholders = {node.tag for node in candidate.iter(*MARKER_TAGS)}
    if MARKER_TAG in placeholders:
        return False
    return bool(placeholders) or bool(text_of(candidate).strip())


def candidates(el: etree._Element, tag: str) -> list[etree._Element]:
    """``el`` and its descendants a breakdown tag matches, in document order: by element name,
    or for a selector tag by the compiled CSS selector."""
    if not is_selector_tag(tag):
        return list(el.iter(tag))
    found = cast("list[etree._Element]", _selector_xpath(tag)(el))  # the XPath selects nodes
    return [node for node in found if isinstance(node.tag, str)]


@lru_cache(maxsize=64)
def _selector_xpath(selector: str) -> etree.XPath:
    from cssselect import GenericTranslator

    return etree.XPath(GenericTranslator().css_to_xpath(selector))


def replace_with_marker(el: etree._Element, chunk_id: str, title: str) -> etree._Element:
    """Put a marker where ``el`` stands (its tail stays in place) and detach ``el``."""
    # makeelement: a new element in the same document, about twice as fast as etree.Element
    marker = el.makeelement(MARKER_TAG, {"data-id": chunk_id, "data-title": title})
    for span in ("colspan", "rowspan"):  # a table cell's marker keeps the cell's place in the grid
        value = el.get(span)
        if value:
            marker.set(span, value)
    marker.tail = el.tail
    el.tail = None
    parent = el.getparent()
    assert parent is not None, "a candidate is never the section's root"
    parent.replace(el, marker)
    return marker


REPEATED_ATTR = "data-sb-repeated"
"""Marks the caption and header row a row group repeats from its table."""

ROW_GROUP_TAG = "tr"
"""The breakdown tag that splits a large table into row groups (seed 001's table-row chunks)."""


RowGroupName = Callable[[list[etree._Element]], "str | None"]
"""``name(rows)``: the chunk id of a row group holding ``rows``, or None to leave them."""


def extract_row_groups(
    el: etree._Element,
    parent_chunk_id: str,
    next_tags: tuple[str, ...],
    run: _Breakdown,
    *,
    tag: str = ROW_GROUP_TAG,
    name: RowGroupName | None = None,
    min_chars: int = 0,
    within: Callable[[etree._Element], bool] | None = None,
) -> list[_Pending]:
    """Split each outermost table in ``el`` whose Markdown is over the threshold into row groups.

    Body rows are grouped greedily, in order, so that each group's Markdown (caption, header row,
    delimiter, its rows) fits the threshold; a row that alone is over stays a group of one. A
    row is never cut. Each group becomes a ``table_row`` chunk ``<parent>-tr-<n>`` that repeats
    the caption and the header row (a table without one: none); in the table, one marker row
    stands where the group's rows were. Tables holding an earlier marker are left alone; a
    rowspan that crosses two groups is not repeated in the second.

    The guarded strategy (:mod:`specbrowser.chunking.guards`) passes the ``tag`` that cuts
    (``td`` packs a table's cells by rows), ``name`` for the ids, ``min_chars`` (a group whose
    Markdown is shorter, or no longer than its marker, is not made: its rows stay in the table)
    and ``within`` (only the tables it accepts are split); each group can then be undone.
    """
    pending: list[_Pending] = []
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
        header_at = next(i for i, line in enumerate(lines) if line.startswith("|"))
        columns = str(lines[header_at + 1].count("---"))
        columns_before = table.get(COLUMNS_ATTR)
        row_lines = lines[header_at + 2 :]
        caption = _caption_of(table)
        fixed, fixed_chars = (
            (sizer.part(run.markdown(caption)) + sizer.join(2) if caption is not None else 0)
            + sizer.part(lines[header_at])
            + sizer.part(lines[header_at + 1])
            + sizer.join(2),
            (len(run.markdown(caption)) + 2 if caption is not None else 0)
            + len(lines[header_at])
            + len(lines[header_at + 1])
            + 2,
        )
        header = rows[0] if has_header_row(table) else None  # else every row is a body row
        body = rows[1:] if header is not None else rows
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
                _Pending(
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
    header: etree._Element | None,
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
    if header is not None:
        etree.SubElement(table, "thead", {REPEATED_ATTR: "1"}).append(deepcopy(header))
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


def _inside(candidate: etree._Element, root: etree._Element, chosen: set[etree._Element]) -> bool:
    """Whether an ancestor of ``candidate`` below ``root`` is chosen in this pass, or is context
    a row group repeats (its caption and header row are never extracted again)."""
    for ancestor in candidate.iterancestors():
        if ancestor is root:
            return False
        if ancestor in chosen or ancestor.get(REPEATED_ATTR):
            return True
    return False
