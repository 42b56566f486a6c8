"""Section tree × table of contents → canonical heading paths, and where the two disagree.

:func:`build_heading_paths` maps each section to a TOC entry: the entry that links to the
section's id first (a TOC's links name their sections, whatever order the TOC lists them in);
for entries without a usable link (an external TOC file, a plain HTML TOC whose links name no
section) range containment: the deepest entry that contains a section wins, and a
section no entry contains takes the entry it overlaps most. Positions are 0-based section
ordinals: a section covers its own ordinal through its last descendant's; a TOC node covers its
start (given, or its link target's ordinal) through its end (given, else the position before
the least sibling start after its own, in whatever order the siblings are listed, else its
parent's end, else the document's last position).
:func:`classify_mismatches` names, for each section, how the parser's path and the TOC's differ.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from specbrowser.chunking.fragments import fragment_target
from specbrowser.model import Section, TocNode
from specbrowser.types import MismatchKind


class _Entry(NamedTuple):
    """A TOC node with its resolved inclusive range and its path of titles."""

    node: TocNode
    path: tuple[str, ...]
    depth: int
    start: int
    end: int
    linked: bool = False
    """The node links to a section: it maps to that section only, never by range."""


@dataclass
class _Span:
    """A TOC node as searched: its entry (None for a wrapper or a node without range), its
    children, and the positions its whole subtree touches (to skip subtrees quickly)."""

    entry: _Entry | None
    children: list[_Span]
    low: int
    high: int


def section_ranges(sections: list[Section]) -> dict[str, tuple[int, int]]:
    """Each section's (first, last) position: its ordinal and its last descendant's ordinal."""
    last = {s.id: s.ordinal for s in sections}
    parent = {s.id: s.parent_id for s in sections}
    for section in sorted(sections, key=lambda s: -s.ordinal):  # children before parents
        up = parent[section.id]
        if up is not None and up in last:
            last[up] = max(last[up], last[section.id])
    return {s.id: (s.ordinal, last[s.id]) for s in sections}


def resolve_toc_starts(toc: list[TocNode], sections: list[Section]) -> list[TocNode]:
    """Copies of the TOC nodes with ``target_id`` the section id it names, as a browser finds
    a fragment's target (as written first, then percent-decoded:
    :func:`~specbrowser.chunking.fragments.fragment_target`), and ``start`` set from it (the
    target section's ordinal) where no start was given. Entries whose target does not exist
    keep their ``target_id`` as written and no start."""
    ordinal = {s.id: s.ordinal for s in sections}

    def copy(node: TocNode) -> TocNode:
        start, target_id = node.start, node.target_id
        if target_id is not None:
            target_id = fragment_target(target_id, ordinal) or target_id
            if start is None:
                start = ordinal.get(target_id)
        return TocNode(
            node.title,
            node.secnum,
            target_id,
            start,
            node.end,
            [copy(c) for c in node.children],
        )

    return [copy(n) for n in toc]


def build_heading_paths(sections: list[Section], toc: list[TocNode]) -> dict[str, list[str]]:
    """The canonical heading path (TOC display titles, root first) of each section.

    Pure: neither argument is changed, and every returned list is a fresh copy. A section that
    a node links to (``target_id``; the first such node in TOC order) takes that node's path.
    Any other section maps to the best node *without* a usable link whose range overlaps its
    own: one that contains it beats one that only overlaps; among containing nodes the deeper
    wins, then the tighter range; among overlapping ones the larger overlap wins, then the
    deeper node, then the tighter range; then the earlier start. Empty-title wrapper nodes are
    left out of paths (their children keep the right ancestry). Sections no node links to or
    overlaps (a section missing from a linked TOC borrows no neighbour's path), and all
    sections when ``toc`` is empty, are absent: callers fall back to the parser's path.
    """
    if not sections or not toc:
        return {}
    document_end = max(s.ordinal for s in sections)
    ids = {s.id for s in sections}
    spans = _spans(resolve_toc_starts(toc, sections), (), 0, None, document_end, ids)
    if not spans:
        return {}
    linked: dict[str, tuple[str, ...]] = {}
    for entry in _entries(spans):
        if entry.linked and entry.node.target_id is not None:
            linked.setdefault(entry.node.target_id, entry.path)
    result: dict[str, list[str]] = {}
    for section_id, (first, last) in section_ranges(sections).items():
        path = linked.get(section_id)
        if path is None:
            best = _best_entry(_overlapping(spans, first, last), first, last)
            path = best.path if best is not None else None
        if path is not None:
            result[section_id] = list(path)
    return result


def _entries(spans: list[_Span]) -> Iterator[_Entry]:
    """Every entry of the search tree, in TOC order."""
    for span in spans:
        if span.entry is not None:
            yield span.entry
        yield from _entries(span.children)


def _overlapping(spans: list[_Span], first: int, last: int) -> Iterator[_Entry]:
    for span in spans:
        if span.high < first or span.low > last:
            continue
        entry = span.entry
        if entry is not None and not entry.linked and entry.start <= last and entry.end >= first:
            yield entry
        yield from _overlapping(span.children, first, last)


def _spans(
    nodes: list[TocNode],
    path: tuple[str, ...],
    depth: int,
    parent_end: int | None,
    document_end: int,
    section_ids: set[str],
) -> list[_Span]:
    """Resolve each node's range (see the module docstring) and build the search tree; an
    entry whose ``target_id`` is one of ``section_ids`` is marked linked."""
    starts = [n.start for n in nodes]
    spans: list[_Span] = []
    for index, node in enumerate(nodes):
        own_path = (*path, node.display_title) if node.title else path
        end = node.end
        if end is None:
            following = _next_start(starts, index)
            if following is not None:
                end = following - 1
            elif parent_end is not None:
                end = parent_end
            else:
                end = document_end
        if parent_end is not None:
            end = min(end, parent_end)  # an open-ended last child never leaks past its parent
        start = node.start
        has_range = start is not None and end >= start
        linked = node.target_id in section_ids
        entry = (
            _Entry(node, own_path, depth, start, max(start, end), linked)
            if start is not None and (has_range or linked) and node.title
            else None
        )
        children = _spans(
            node.children,
            own_path,
            depth + 1 if node.title else depth,
            end if has_range else parent_end,
            document_end,
            section_ids,
        )
        lows = [c.low for c in children] + ([entry.start] if entry else [])
        highs = [c.high for c in children] + ([entry.end] if entry else [])
        if lows:
            spans.append(_Span(entry, children, min(lows), max(highs)))
    return spans


def _next_start(starts: list[int | None], index: int) -> int | None:
    """The start that ends sibling ``index``'s range: the least sibling start after its own,
    whatever order the TOC lists the siblings in (an external TOC may list them otherwise than
    the headings); for a node without a start, the next start listed."""
    own = starts[index]
    if own is None:
        return next((s for s in starts[index + 1 :] if s is not None), None)
    return min((s for s in starts if s is not None and s > own), default=None)


def _best_entry(entries: Iterable[_Entry], first: int, last: int) -> _Entry | None:
    best: tuple[object, ...] | None = None
    chosen = None
    for entry in entries:
        overlap = min(last, entry.end) - max(first, entry.start) + 1
        if overlap <= 0:
            continue
        contains = entry.start <= first and last <= entry.end
        tighter = -(entry.end - entry.start)
        key = (
            (True, entry.depth, 0, tighter, -entry.start)
            if contains
            else (False, overlap, entry.depth, tighter, -entry.start)
        )
        if best is None or key > best:
            best, chosen = key, entry
    return chosen


# --- mismatches -----------------------------------------------------------------------------

_PARAMETERS = re.compile(r"\s*\(.*\)\s*$")
_LEADING_NUMBER = re.compile(
    r"^\s*(?:Annex\s+[A-Z](?:\s*\([^)]*\))?|[0-9]+(?:\.[0-9]+)*\.?|[A-Z](?:\.[0-9]+)+\.?)\s+(?=\S)"
)
_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u00a0": " "})


@lru_cache(maxsize=65536)
def normalize_title(title: str, secnum: str = "") -> str:
    """A title as compared across the two maps: Unicode NFKC, quotes and no-break spaces made
    plain, a leading section number (``secnum`` or any ``1.2.3``/``A.1``-style number) and a
    trailing parameter list (``ToNumber ( argument )`` → ``tonumber``) removed, whitespace
    collapsed, case folded."""
    text = unicodedata.normalize("NFKC", title).translate(_QUOTES).strip()
    if secnum and text.startswith(secnum):
        text = text[len(secnum) :]
    text = _LEADING_NUMBER.sub("", text)
    text = _PARAMETERS.sub("", text)
    return " ".join(text.split()).casefold()


@dataclass(frozen=True)
class Mismatch:
    """One disagreement: its kind (see :data:`specbrowser.types.MISMATCH_KINDS`), the section
    (or, for ``toc_entry_without_section``, the TOC entry's target id or title), and both paths."""

    kind: MismatchKind
    section_id: str
    parser_path: list[str]
    toc_path: list[str]


def classify_mismatches(
    sections: list[Section],
    toc: list[TocNode],
    parser_paths: dict[str, list[str]],
    toc_paths: dict[str, list[str]],
    before_toc: Collection[str] = frozenset(),
) -> list[Mismatch]:
    """Every disagreement between the section tree and the TOC, sections in document order,
    then TOC entries without a section. Nothing is reported when ``toc`` is empty, nor a
    section of ``before_toc`` (ids of the sections before the TOC in the document: front matter
    such as an abstract or a status section, which the TOC does not list by design) that it
    does not list.

    A section is tested in :data:`specbrowser.types.MISMATCH_KINDS` order and gets the first
    kind that applies: ``missing_from_toc`` (no titled entry links to or starts at it, or no
    entry covers it: its TOC path is empty, as for an entry whose range ends before it starts),
    ``title_differs`` (its own entry's normalised title differs), ``depth_differs`` (the two
    paths have different lengths), ``ancestor_differs`` (same length, an ancestor's normalised
    title differs).
    """
    if not toc:
        return []
    resolved = resolve_toc_starts(toc, sections)
    own_entry: dict[int, TocNode] = {}
    orphans: list[TocNode] = []
    for node in _walk(resolved):
        if node.start is not None and node.title:  # an empty-title wrapper is no one's entry
            own_entry.setdefault(node.start, node)
        elif node.title and node.target_id is not None:
            orphans.append(node)
    found: list[Mismatch] = []
    for section in sections:
        if section.kind == "front-matter":
            continue  # text before the first heading: not a heading a TOC could list
        parser_path = parser_paths.get(section.id, [section.display_title])
        toc_path = toc_paths.get(section.id, [])
        entry = own_entry.get(section.ordinal)
        kind: MismatchKind | None = None
        if entry is None or not toc_path:
            if section.id in before_toc:
                continue
            kind = "missing_from_toc"
        elif normalize_title(entry.title, entry.secnum) != normalize_title(
            section.title, section.secnum
        ):
            kind = "title_differs"
        elif len(toc_path) != len(parser_path):
            kind = "depth_differs"
        elif [normalize_title(t) for t in toc_path] != [normalize_title(t) for t in parser_path]:
            kind = "ancestor_differs"
        if kind:
            found.append(Mismatch(kind, section.id, list(parser_path), list(toc_path)))
    for node in orphans:
        found.append(
            Mismatch(
                "toc_entry_without_section", node.target_id or node.title, [], [node.display_title]
            )
        )
    return found


def _walk(nodes: list[TocNode]) -> Iterator[TocNode]:
    for node in nodes:
        yield node
        yield from _walk(node.children)
