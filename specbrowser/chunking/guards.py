"""The guarded strategy's tag pass: the breakdown with guard rails against tiny and growing chunks.

The seed strategy (the seed pass of :mod:`specbrowser.chunking.breakdown`) extracts every
outermost element of a tag on its own. A guarded pass over the same elements (the *candidates*:
:func:`~specbrowser.chunking.extraction.select_candidates`) instead:

1. **Rule units.** Each candidate is extracted with the siblings its spec format ties to it
   (:attr:`specbrowser.chunking.rules.ChunkingRules.rule_unit`: in ecmarkup a grammar block
   and the algorithm right after it).
2. **Packing.** Consecutive units (siblings with only whitespace between) are packed greedily,
   in order, into one subsection while the run's Markdown fits the threshold: runs of
   paragraphs or other blocks (in a ``div``), runs of list items (in a list of the parent's
   kind, numbered on from the parent's numbering). A table's cells (``td``, ``th``) are packed
   by rows, as row groups that repeat the caption and header row
   (:func:`~specbrowser.chunking.row_groups.extract_row_groups`); ``tr`` cuts row groups too.
3. **Minimum size.** A unit or packed run whose Markdown is shorter than the policy's
   ``min_chars`` is not extracted: it stays in its parent. The minimum applies to what is
   extracted: a subsection's own breakdown may leave it shorter (a table's caption and header
   with the markers of its row groups), as it may a section's root chunk.
4. **No growth.** Nor is one whose Markdown is no longer than the marker that would replace it.

The breakdown then undoes a pass that leaves its parent's Markdown no shorter, blank lines and
trailing spaces left out (:meth:`specbrowser.chunking.extraction.BreakdownRun.undo`), and tries
the next tag.

Ids stay hierarchical: the members of a pass are numbered from 1 in document order among all of
the tag's matches in the parent's working copy (``td``: the cells, ``tr``: the rows), and a
subsection is ``<parent id>-<tag slug>-<n>`` for one member, ``<parent id>-<tag slug>-<first>-
<last>`` for a packed run, a rule unit or a row group, naming its first and last member (a rule
unit extracted by the grammar pass is named by its grammar alone: ``…-emu-grammar-4``). The
threshold enters only through :meth:`~specbrowser.chunking.extraction.BreakdownRun.fits`, so
:attr:`specbrowser.model.Chunk.holds_for` stays exact.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from lxml import etree

from specbrowser.chunking.extraction import (
    MARKER_TAG,
    REPEATED_ATTR,
    BreakdownRun,
    Pending,
    candidates,
    extractable,
    holds_nothing,
    replace_with_marker,
    select_candidates,
    single_restore,
)
from specbrowser.chunking.markdown import LIST_ITEMS_ATTR, is_block, list_item_number
from specbrowser.chunking.markers import format_marker
from specbrowser.chunking.policy import is_selector_tag, tag_slug
from specbrowser.chunking.row_groups import ROW_GROUP_TAG, extract_row_groups
from specbrowser.chunking.rules import adjacent_sibling, first_words

CELL_TAGS = frozenset({"td", "th"})
"""Tags whose elements are packed by table rows."""

_TABLE_PARTS = frozenset({"table", "thead", "tbody", "tfoot", "tr"})
_LIST_ROLES = frozenset({"ordered_list", "unordered_list"})

RunKind = Literal["list", "block"]
"""How consecutive units pack: as list items in a list, or as blocks in a ``div``."""


@dataclass
class _Unit:
    """Elements extracted together: a candidate and the siblings of its rule unit."""

    members: list[etree._Element]
    first: int
    last: int
    size: int
    """Characters of the members' Markdown and their joins (the minimum counts characters)."""
    measured: int
    """The same in the threshold's unit, as a part of a chunk
    (:meth:`specbrowser.chunking.measure.Sizer.part`)."""
    title: str
    kind: RunKind | None


def guarded_pass(
    run: BreakdownRun,
    el: etree._Element,
    tag: str,
    parent_chunk_id: str,
    next_tags: tuple[str, ...],
) -> list[Pending]:
    """Extract ``tag``'s elements from ``el`` with the guard rails (see the module); the
    subsections made, in document order, each with its marker in place and undoable."""
    numbers = {node: n for n, node in enumerate(candidates(el, tag), start=1) if node is not el}
    pending: list[Pending] = []
    slug = tag_slug(tag)
    if tag == ROW_GROUP_TAG or (not is_selector_tag(tag) and tag in CELL_TAGS):
        pending += _row_groups(run, el, tag, parent_chunk_id, next_tags, numbers)
        if tag == ROW_GROUP_TAG:
            return pending
    units = _units(run, el, tag, numbers)
    for units_run in _runs(units):
        groups = _pack(run, units_run)
        while groups:
            group = groups.pop(0)
            made = _make(run, group, tag, f"{parent_chunk_id}-{slug}", next_tags)
            if made is _OVER:  # the estimate fell short: each half packs on its own
                half = len(group) // 2
                groups[:0] = [group[:half], group[half:]]
            elif made is not None:
                pending.append(made)
    return pending


def _row_groups(
    run: BreakdownRun,
    el: etree._Element,
    tag: str,
    parent_chunk_id: str,
    next_tags: tuple[str, ...],
    numbers: dict[etree._Element, int],
) -> list[Pending]:
    """Row groups of the tables holding a match of ``tag``, named by the first and last match
    in their rows."""
    prefix = f"{parent_chunk_id}-{tag_slug(tag)}"

    def name(rows: list[etree._Element]) -> str | None:
        found = [numbers[node] for row in rows for node in row.iter() if node in numbers]
        return _span_id(prefix, min(found), max(found)) if found else None

    def within(table: etree._Element) -> bool:
        return any(node in numbers for node in table.iter())

    return extract_row_groups(
        el,
        parent_chunk_id,
        next_tags,
        run,
        tag=tag,
        name=name,
        min_chars=run.policy.min_chars,
        within=within,
    )


def _span_id(prefix: str, first: int, last: int) -> str:
    return f"{prefix}-{first}" if first == last else f"{prefix}-{first}-{last}"


def _units(
    run: BreakdownRun, el: etree._Element, tag: str, numbers: dict[etree._Element, int]
) -> list[_Unit]:
    """The pass's candidates as rule units, in document order; a candidate whose unit would
    take an element already taken (or one that may not be extracted) stands alone."""
    selector = is_selector_tag(tag)
    taken: set[etree._Element] = set()
    units: list[_Unit] = []
    for candidate in select_candidates(el, tag, run.rules.markdown_elements.algorithm_tags):
        if candidate in taken:
            continue
        members = run.rules.rule_unit(candidate)
        if len(members) > 1 and not all(
            m is candidate or (m not in taken and _may_join(m)) for m in members
        ):
            members = [candidate]
        taken.update(members)
        texts = [run.markdown(m) for m in members]
        joins = 2 * (len(members) - 1)
        titles = (
            run.rules.subsection_title(m, m.tag if selector or m is not candidate else tag)
            for m in members
        )
        numbered = [numbers[m] for m in members if m in numbers]
        units.append(
            _Unit(
                members=members,
                first=numbers[candidate],
                last=max(numbered),
                size=sum(len(t) for t in texts) + joins,
                measured=sum(run.sizer.part(t) for t in texts) + run.sizer.join(joins),
                title=next((t for t in titles if t), ""),
                kind=_kind(run, members),
            )
        )
    return units


def _may_join(el: etree._Element) -> bool:
    """Whether a sibling may join a candidate's rule unit: an element with no marker of an
    earlier pass and no context a row group repeats, holding text or nothing at all (an empty
    ``dd`` after a reference joins it)."""
    if not isinstance(el.tag, str) or el.get(REPEATED_ATTR):
        return False
    return extractable(el) or holds_nothing(el)


def _kind(run: BreakdownRun, members: list[etree._Element]) -> RunKind | None:
    """How a unit packs with its neighbours: list items of a list, blocks outside tables, or
    not at all (inline content, table parts)."""
    parent = members[0].getparent()
    if parent is None:
        return None
    if all(m.tag == "li" for m in members) and _is_list(run, parent):
        return "list"
    if parent.tag in _TABLE_PARTS or _is_list(run, parent):
        return None
    elements = run.rules.markdown_elements
    if all(is_block(m, run.roles, elements) for m in members):
        return "block"
    return None


def _is_list(run: BreakdownRun, el: etree._Element) -> bool:
    role = run.roles.get(el)
    return role in _LIST_ROLES or (role is None and el.tag in ("ol", "ul"))


def _runs(units: list[_Unit]) -> list[list[_Unit]]:
    """Units split into runs that may pack: consecutive siblings of one kind."""
    runs: list[list[_Unit]] = []
    for unit in units:
        if runs:
            last = runs[-1][-1]
            if (
                unit.kind is not None
                and unit.kind == last.kind
                and adjacent_sibling(last.members[-1], before=False) is unit.members[0]
            ):
                runs[-1].append(unit)
                continue
        runs.append([unit])
    return runs


def _pack(run: BreakdownRun, units: list[_Unit]) -> list[list[_Unit]]:
    """Units packed greedily in order while a group's Markdown fits the threshold; a unit over
    the threshold alone is a group of one."""
    groups: list[list[_Unit]] = []
    size = 0
    for unit in units:
        join = run.sizer.join(1 if unit.kind == "list" else 2)
        if groups and run.fits(run.sizer.whole(size + join + unit.measured)):
            groups[-1].append(unit)
            size += join + unit.measured
        else:
            groups.append([unit])
            size = unit.measured
    return groups


_OVER = Pending(etree.Element("over"), "", "", "", ())
"""What :func:`_make` returns for a packed group of several units that is over the threshold
once built."""


def _make(
    run: BreakdownRun, group: list[_Unit], tag: str, prefix: str, next_tags: tuple[str, ...]
) -> Pending | None:
    """The subsection of a packed group, its marker in place; None when the group is under the
    minimum size or no longer than its marker (its elements stay). The members' sizes decide
    first; a group of several is then measured as built (list prefixes, joins, nested lists'
    indentation) and put back when it falls short, or when it is over the threshold: then
    :data:`_OVER` (the caller packs each half on its own)."""
    kind = group[0].kind
    size = sum(u.size for u in group) + (1 if kind == "list" else 2) * (len(group) - 1)
    chunk_id = _span_id(prefix, group[0].first, group[-1].last)
    titles = [u.title for u in group if u.title]
    title = " … ".join(dict.fromkeys([titles[0], titles[-1]])) if titles else ""
    if size < run.policy.min_chars or size <= len(format_marker(chunk_id, title)):
        return None
    members = [m for unit in group for m in unit.members]
    if len(members) == 1:
        element = members[0]
        marker = replace_with_marker(element, chunk_id, title)
        return Pending(
            element,
            chunk_id,
            title or first_words(element, elements=run.rules.markdown_elements),
            tag,
            next_tags,
            marker=marker,
            restore=single_restore(element, marker),
        )
    wrapper, marker = _wrap(run, members, chunk_id, title, kind)
    restore = _wrapped_restore(members, marker)
    text = run.markdown(wrapper)  # the sizes above estimate it: list prefixes, joins
    size = len(text)
    if size < run.policy.min_chars or size <= len(format_marker(chunk_id, title)):
        restore()
        return None
    if len(group) > 1 and not run.fits(run.sizer.size(text)):
        restore()
        run.cache.pop(wrapper, None)
        return _OVER
    name = title or first_words(wrapper, elements=run.rules.markdown_elements)
    return Pending(wrapper, chunk_id, name, tag, next_tags, marker=marker, restore=restore)


def _wrap(
    run: BreakdownRun,
    members: list[etree._Element],
    chunk_id: str,
    title: str,
    kind: RunKind | None,
) -> tuple[etree._Element, etree._Element]:
    """Move consecutive sibling ``members`` into a new element (a list like their parent for
    list items, numbered from the first one's number; else a ``div``); one marker stands where
    they were (the tail of the last stays in place). Returns the new element and the marker."""
    first, last = members[0], members[-1]
    parent = first.getparent()
    assert parent is not None, "a candidate is never the section's root"
    marker = first.makeelement(MARKER_TAG, {"data-id": chunk_id, "data-title": title})
    if kind == "list":
        attributes = {str(k): str(v) for k, v in parent.attrib.items() if k != "id"}
        wrapper = parent.makeelement(parent.tag, attributes)
        if parent in run.roles:
            run.roles[wrapper] = run.roles[parent]
        wrapper.set("start", str(list_item_number(first, run.roles)))
        marker.set(LIST_ITEMS_ATTR, str(len(members)))
    else:
        wrapper = parent.makeelement("div", {})
    first.addprevious(marker)
    marker.tail = last.tail
    last.tail = None
    for member in members:
        wrapper.append(member)
    return wrapper, marker


def _wrapped_restore(members: list[etree._Element], marker: etree._Element) -> Callable[[], None]:
    """Undoes :func:`_wrap`: the members back in place of the marker."""

    def restore() -> None:
        parent = marker.getparent()
        assert parent is not None, "a marker stands in its parent"
        for member in members:
            marker.addprevious(member)
        members[-1].tail = marker.tail
        marker.tail = None
        parent.remove(marker)

    return restore
