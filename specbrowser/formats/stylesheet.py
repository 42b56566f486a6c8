"""Words a page's own stylesheet lays out in separate boxes stay separate words.

A generated panel may write its text as adjacent elements with nothing between them and let its
``<style>`` lay them out: Bikeshed's MDN browser-support panels write each browser as
``<span><span>Firefox</span><span>60+</span></span>``, rows (``display: table``) of two cells
(``display: table-cell``), so a reader sees "Firefox 60+" on a line of its own, while the bare
HTML reads ``Firefox60+Safari13+…``. :func:`separate_boxes` puts one space where such a box
starts or ends between two characters that are not whitespace: whitespace between block or table
boxes renders as nothing, so the page reads as before and its words as the reader sees them.

Rules:

- The stylesheet is the page's ``<style>`` elements (a linked stylesheet is not read); comments
  are dropped; a rule's last ``display`` declaration decides; at-rules are not selectors (the
  rules inside ``@media`` count as written).
- A box is an element a rule's selector matches with a ``display`` of :data:`BOX_DISPLAYS`
  (``none`` hides nothing here: a panel hidden until a script places it is text of the page).
  Selectors lxml's ``cssselect`` cannot evaluate (pseudo-elements, ``:hover``) match nothing.
- Inside ``pre`` and ``textarea``, where whitespace shows, nothing is added.
"""

from __future__ import annotations

import re
from typing import cast

from cssselect import SelectorError
from cssselect.xpath import ExpressionError
from lxml import etree
from lxml.cssselect import CSSSelector

BOX_DISPLAYS = frozenset(
    {
        "block",
        "inline-block",
        "flow-root",
        "list-item",
        "table",
        "inline-table",
        "table-row",
        "table-cell",
        "table-caption",
        "flex",
        "inline-flex",
        "grid",
        "inline-grid",
    }
)
"""``display`` values that make an element a box of its own."""

_COMMENT = re.compile(r"/\*.*?\*/", re.DOTALL)
_RULE = re.compile(r"([^{}]+)\{([^{}]*)\}")
_DISPLAY = re.compile(r"(?<![\w-])display\s*:\s*([\w-]+)", re.IGNORECASE)
_KEEPS_WHITESPACE = frozenset({"pre", "textarea"})


def box_selectors(root: etree._Element) -> list[CSSSelector]:
    """The selectors of ``root``'s ``<style>`` rules that display elements as boxes
    (:data:`BOX_DISPLAYS`), compiled; those ``cssselect`` cannot evaluate left out."""
    css = "\n".join(style.text or "" for style in root.iter("style"))
    if "display" not in css:
        return []
    selectors: list[CSSSelector] = []
    for selector_text, declarations in _RULE.findall(_COMMENT.sub("", css)):
        displays = _DISPLAY.findall(declarations)
        if not displays or displays[-1].lower() not in BOX_DISPLAYS:
            continue
        for selector in selector_text.split(","):
            selector = selector.strip()
            if not selector or selector.startswith("@"):
                continue
            try:
                selectors.append(CSSSelector(selector))
            except (SelectorError, ExpressionError):  # ::before, :hover …: no element to match
                continue
    return selectors


def separate_boxes(root: etree._Element) -> int:
    """Put a space where a box of ``root``'s own stylesheet (:func:`box_selectors`) starts or
    ends between two characters that are not whitespace, in place; returns how many spaces were
    put."""
    boxes: set[etree._Element] = set()
    for selector in box_selectors(root):
        found = cast("list[etree._Element]", selector(root))  # CSS selects elements
        boxes.update(el for el in found if isinstance(el.tag, str))
    added = 0
    for box in boxes:
        if any(a.tag in _KEEPS_WHITESPACE for a in box.iterancestors()):
            continue
        text = _text_of(box)
        if not text.strip():
            continue
        if not text[0].isspace():
            added += _space_before(box)
        if not text[-1].isspace():
            added += _space_after(box)
    return added


def _text_of(el: etree._Element) -> str:
    return etree.tostring(el, method="text", encoding="unicode", with_tail=False)


def _space_before(box: etree._Element) -> int:
    """A space before ``box`` when the text before it, in its parent, ends with a character that
    is not whitespace (1), else nothing (0)."""
    previous = box.getprevious()
    parent = box.getparent()
    if previous is None:
        if parent is None or not parent.text or parent.text[-1].isspace():
            return 0
        parent.text += " "
        return 1
    if previous.tail:
        if previous.tail[-1].isspace():
            return 0
        previous.tail += " "
        return 1
    before = _text_of(previous)
    if not before or before[-1].isspace():
        return 0
    previous.tail = " "
    return 1


def _space_after(box: etree._Element) -> int:
    """A space after ``box`` when what follows it in its parent starts with a character that is
    not whitespace (1), else nothing (0)."""
    tail = box.tail
    if tail:
        if tail[0].isspace():
            return 0
        box.tail = " " + tail
        return 1
    following = box.getnext()
    if following is None:
        return 0
    after = _text_of(following)
    if not after or after[0].isspace():
        return 0
    box.tail = " "
    return 1
