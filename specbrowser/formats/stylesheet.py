"""Words a page's own stylesheet lays out in separate boxes stay separate words.

A generated panel may write its text as adjacent elements with nothing between them and let its
``<style>`` lay them out: Bikeshed's MDN browser-support panels (which the headings format
leaves out, :mod:`specbrowser.formats.headings`, but other generators copy) write each browser as
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
from typing import Literal, NamedTuple

from cssselect import SelectorError, parse
from cssselect.parser import Class, CombinedSelector, Element, Hash, Tree
from cssselect.xpath import ExpressionError
from lxml import etree
from lxml.cssselect import CSSSelector, LxmlTranslator

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


class BoxSelector(NamedTuple):
    """One selector of a box rule, as a test of a single element.

    Attributes:
        css: the selector as written.
        match: an XPath test of the element it is called with (``self::*[…]``: the selector's
            compounds from right to left, through reverse axes for its combinators); a non-empty
            result means the element matches.
        key: what the selector's last compound names, the most telling first: ``("id", …)``,
            ``("class", …)`` (one of its class names) or ``("tag", …)``; None when it names
            none of them (``*``, an attribute or a pseudo-class alone). An element without its
            key cannot match.
    """

    css: str
    match: etree.XPath
    key: tuple[Literal["id", "class", "tag"], str] | None


_REVERSE_AXES = {
    " ": "ancestor::*",
    ">": "parent::*",
    "+": "preceding-sibling::*[1]",
    "~": "preceding-sibling::*",
}
"""Each CSS combinator as the XPath axis from the right compound back to the left one."""

_TRANSLATOR = LxmlTranslator()
"""The translator :class:`lxml.cssselect.CSSSelector` uses by default."""


def _match_condition(tree: Tree) -> str | None:
    """An XPath condition that holds for the element a parsed selector matches, read against
    that element (None: every element matches)."""
    if isinstance(tree, CombinedSelector):
        axis = _REVERSE_AXES[tree.combinator]
        left = _match_condition(tree.selector)
        if left is not None:
            axis = f"{axis}[{left}]"
        right = _match_condition(tree.subselector)
        return axis if right is None else f"({right}) and {axis}"
    expression = _TRANSLATOR.xpath(tree)
    if expression.path:
        raise ExpressionError(f"no single-element test for {tree!r}")
    expression.add_name_test()
    return expression.condition or None


def _key(tree: Tree) -> tuple[Literal["id", "class", "tag"], str] | None:
    """:attr:`BoxSelector.key` of a parsed selector."""
    if isinstance(tree, CombinedSelector):
        tree = tree.subselector
    found: dict[str, str] = {}
    while not isinstance(tree, Element):
        if isinstance(tree, Hash):
            found["id"] = tree.id
        elif isinstance(tree, Class):
            found["class"] = tree.class_name
        tree = tree.selector
    if tree.namespace is None and tree.element not in (None, "*"):
        found["tag"] = tree.element
    if "id" in found:
        return "id", found["id"]
    if "class" in found:
        return "class", found["class"]
    if "tag" in found:
        return "tag", found["tag"]
    return None


def box_selector(text: str) -> BoxSelector | None:
    """``text`` as a :class:`BoxSelector`; None for what ``cssselect`` cannot evaluate
    (pseudo-elements, ``:hover``: no element to match)."""
    try:
        CSSSelector(text)  # what the stylesheet's selectors are held to
        (parsed,) = parse(text)
        condition = _match_condition(parsed.parsed_tree)
        key = _key(parsed.parsed_tree)
    except (SelectorError, ExpressionError, ValueError):
        return None
    match = etree.XPath(f"self::*[{condition}]" if condition else "self::*")
    return BoxSelector(text, match, key)


def box_selectors(root: etree._Element) -> list[BoxSelector]:
    """The selectors of ``root``'s ``<style>`` rules that display elements as boxes
    (:data:`BOX_DISPLAYS`), compiled; those ``cssselect`` cannot evaluate left out."""
    css = "\n".join(style.text or "" for style in root.iter("style"))
    if "display" not in css:
        return []
    selectors: list[BoxSelector] = []
    for selector_text, declarations in _RULE.findall(_COMMENT.sub("", css)):
        displays = _DISPLAY.findall(declarations)
        if not displays or displays[-1].lower() not in BOX_DISPLAYS:
            continue
        for selector in selector_text.split(","):
            selector = selector.strip()
            if not selector or selector.startswith("@"):
                continue
            compiled = box_selector(selector)
            if compiled is not None:
                selectors.append(compiled)
    return selectors


def find_boxes(root: etree._Element, selectors: list[BoxSelector]) -> list[etree._Element]:
    """The elements of ``root`` (itself included) that any of ``selectors`` matches, in
    document order, each once. One walk over the elements (over those of the selectors'
    element names alone, when every key is a name): a selector's XPath test runs only on the
    elements that have its key (on every element for a selector without one)."""
    if not selectors:
        return []
    by_id: dict[str, list[BoxSelector]] = {}
    by_class: dict[str, list[BoxSelector]] = {}
    by_tag: dict[str, list[BoxSelector]] = {}
    every: list[BoxSelector] = []
    for selector in selectors:
        if selector.key is None:
            every.append(selector)
        else:
            kind, name = selector.key
            group = by_id if kind == "id" else by_class if kind == "class" else by_tag
            group.setdefault(name, []).append(selector)
    if not (by_id or by_class or every):
        elements = root.iter(*by_tag) if by_tag else iter(())
        return [el for el in elements if any(s.match(el) for s in by_tag[el.tag])]
    boxes: list[etree._Element] = []
    for el in root.iter(etree.Element):
        tests = every
        if by_tag and (named := by_tag.get(el.tag)):
            tests = tests + named
        if by_id and (ident := el.get("id")) is not None and ident in by_id:
            tests = tests + by_id[ident]
        if by_class and (names := el.get("class")):
            for name in names.split():
                if name in by_class:
                    tests = tests + by_class[name]
        if tests and any(s.match(el) for s in tests):
            boxes.append(el)
    return boxes


def separate_boxes(root: etree._Element) -> int:
    """Put a space where a box of ``root``'s own stylesheet (:func:`box_selectors`) starts or
    ends between two characters that are not whitespace, in place; returns how many spaces were
    put."""
    added = 0
    for box in find_boxes(root, box_selectors(root)):
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
