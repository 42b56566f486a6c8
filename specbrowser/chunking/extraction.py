"""What every tag pass of the breakdown works with: the state of one section's breakdown, the
elements a tag may extract, and the markers that stand where they were.

Both strategies build on it: the seed pass (:mod:`specbrowser.chunking.breakdown`), the guarded
pass (:mod:`specbrowser.chunking.guards`) and table row groups
(:mod:`specbrowser.chunking.row_groups`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import cast

from cssselect import GenericTranslator
from lxml import etree

from specbrowser.chunking.markdown import MARKER_TAGS, BlockCache, Roles, text_of, to_markdown
from specbrowser.chunking.measure import CHARS, Sizer
from specbrowser.chunking.policy import ChunkPolicy, is_selector_tag
from specbrowser.chunking.rules import ChunkingRules
from specbrowser.model import Chunk, Section
from specbrowser.types import Layer

MARKER_TAG = "sb-marker"
"""The placeholder element the breakdown leaves where it extracted a subsection."""

REPEATED_ATTR = "data-sb-repeated"
"""Marks the caption and header row a row group repeats from its table."""


@dataclass
class Pending:
    """A subsection a tag pass made and the breakdown has yet to chunk: its element (out of its
    parent's tree, a marker in its place), chunk id, title, the tag that extracted it and the
    tags left to try on it."""

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
    as its retrieval text's ``Part:`` line gives them
    (:func:`specbrowser.chunking.labels.subsection_label`)."""


@dataclass
class BreakdownRun:
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
    pristine: str = ""
    """The section's Markdown before anything was extracted: its root chunk's first text."""

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

    def forget(self, extracted: list[Pending], el: etree._Element) -> None:
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

    def undo(self, extracted: list[Pending], el: etree._Element) -> None:
        """Put back what a tag pass extracted (and drop the cached blocks it changed)."""
        self.forget(extracted, el)
        for item in reversed(extracted):
            assert item.restore is not None, "every tag pass's subsections can be undone"
            item.restore()


def select_candidates(
    el: etree._Element, tag: str, algorithm_tags: frozenset[str] = frozenset()
) -> list[etree._Element]:
    """The outermost ``tag`` elements inside ``el`` that a pass may extract, in document order:
    not ``el``, not inside another one, not context a row group repeats, not inside the
    plain-text steps of a source algorithm (an element of the format's ``algorithm_tags``
    without a list: the converter writes its text whole, an inline grammar in a step
    included), holding no marker of an earlier pass, and holding text or a child section's
    placeholder."""
    selected: list[etree._Element] = []
    chosen: set[etree._Element] = set()
    plain = _plain_algorithms(el, algorithm_tags)
    for candidate in candidates(el, tag):
        if candidate is el or candidate.get(REPEATED_ATTR) or _inside(candidate, el, chosen):
            continue
        if plain and any(a in plain for a in candidate.iterancestors()):
            continue
        if extractable(candidate):
            selected.append(candidate)
            chosen.add(candidate)
    return selected


def _plain_algorithms(el: etree._Element, algorithm_tags: frozenset[str]) -> set[etree._Element]:
    """The algorithm elements in ``el`` (itself included) whose steps are plain text: no list
    and no marker among their children (the converter writes those as their text)."""
    if not algorithm_tags:
        return set()
    return {
        alg
        for alg in el.iter(*algorithm_tags)
        if not any(c.tag in ("ol", "ul") or c.tag in MARKER_TAGS for c in alg)
    }


def extractable(candidate: etree._Element) -> bool:
    """Whether a candidate holds no marker of an earlier pass, and holds text or a child
    section's placeholder (else it is not extracted). One walk finds both kinds of marker."""
    placeholders = {node.tag for node in candidate.iter(*MARKER_TAGS)}
    if MARKER_TAG in placeholders:
        return False
    return bool(placeholders) or bool(text_of(candidate).strip())


def holds_nothing(el: etree._Element) -> bool:
    """Whether an element has no text and no marker of either kind: it renders as nothing."""
    return next(el.iter(*MARKER_TAGS), None) is None and not text_of(el).strip()


def candidates(el: etree._Element, tag: str) -> list[etree._Element]:
    """``el`` and its descendants a breakdown tag matches, in document order: by element name,
    or for a selector tag by the compiled CSS selector."""
    if not is_selector_tag(tag):
        return list(el.iter(tag))
    found = cast("list[etree._Element]", _selector_xpath(tag)(el))  # the XPath selects nodes
    return [node for node in found if isinstance(node.tag, str)]


@lru_cache(maxsize=64)
def _selector_xpath(selector: str) -> etree.XPath:
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


def single_restore(element: etree._Element, marker: etree._Element) -> Callable[[], None]:
    """Undoes :func:`replace_with_marker`."""

    def restore() -> None:
        parent = marker.getparent()
        assert parent is not None, "a marker stands in its parent"
        element.tail = marker.tail
        parent.replace(marker, element)

    return restore


def _inside(candidate: etree._Element, root: etree._Element, chosen: set[etree._Element]) -> bool:
    """Whether an ancestor of ``candidate`` below ``root`` is chosen in this pass, or is context
    a row group repeats (its caption and header row are never extracted again)."""
    for ancestor in candidate.iterancestors():
        if ancestor is root:
            return False
        if ancestor in chosen or ancestor.get(REPEATED_ATTR):
            return True
    return False
