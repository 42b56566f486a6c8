"""Text-level helpers of the Markdown converter (:mod:`specbrowser.chunking.markdown`): an
element's text, with superscripts and subscripts kept (``math_text``), and a proposal's deleted
text removed from a tree (``drop_deleted``)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from lxml import etree

from specbrowser.model import SECTION_REF_TAG

MARKER_TAGS = frozenset({SECTION_REF_TAG, "sb-marker"})
"""Placeholders for a child section (written by the parser) and an extracted element (written by
the breakdown); both render as a marker and are never breakdown candidates."""

EDIT_TAGS = ("del", "ins")
"""HTML's edit elements, as a proposal marks the text it deletes and inserts."""

_ORDINAL_SUFFIX = re.compile(r"^(?:st|nd|rd|th)$")
_ONE_WORD = re.compile(r"^[\w.′]+$")
_CODE_SPAN = re.compile(r"`([^`]*)`")


def text_of(el: etree._Element) -> str:
    """All text inside an element (its tail excluded), like lxml.html's ``text_content()``."""
    return etree.tostring(el, method="text", encoding="unicode", with_tail=False)


def spaced_text(el: etree._Element, block_tags: frozenset[str]) -> str:
    """All text inside ``el`` (its tail excluded), like :func:`text_of` but with a space where
    an element of ``block_tags`` or a ``<br>`` starts or ends, so that text from two blocks
    (an algorithm step and its nested list, a label ``div`` and the step after it) never
    glues into one word. Comments' text is left out, as :func:`text_of` leaves it."""
    return "".join(spaced_pieces(el, block_tags))


def spaced_pieces(el: etree._Element, block_tags: frozenset[str]) -> Iterator[str]:
    """The pieces of :func:`spaced_text` in document order, produced as the walk reaches them:
    a caller that needs only the text's start (:func:`~specbrowser.chunking.rules.first_words`)
    stops early instead of walking a whole wrapper."""
    stack: list[tuple[etree._Element, bool]] = [(el, False)]
    while stack:  # pre-order without recursion: (element, its end is due now)
        node, end = stack.pop()
        tag = node.tag
        boundary = isinstance(tag, str) and (tag in block_tags or tag == "br")
        if end:
            if boundary:
                yield " "
            if node is not el and node.tail:
                yield node.tail
            continue
        stack.append((node, True))
        if isinstance(tag, str):
            if boundary:
                yield " "
            if node.text:
                yield node.text
            stack.extend((child, False) for child in reversed(node))


def drop_deleted(el: etree._Element) -> int:
    """Remove a proposal's deleted text from ``el`` in place: every ``del`` element (its tail
    text kept), and every list item that held text and holds none once its deletions are gone
    (a deleted algorithm step: the steps after it are numbered on). Text in ``aria-hidden``
    elements (ecmarkup's step labels) does not count as text. Returns how many ``del`` elements
    were removed."""
    deleted = [d for d in el.iter("del") if d is not el]
    if not deleted:
        return 0
    items = [li for li in el.iter("li") if _visible_text(li).strip()]
    for edit in deleted:
        if edit.getparent() is not None:  # not inside another deletion already removed
            remove_keeping_tail(edit)
    for item in items:
        if not _visible_text(item).strip() and next(item.iter(*MARKER_TAGS), None) is None:
            remove_keeping_tail(item)
    return len(deleted)


def _visible_text(el: etree._Element) -> str:
    """The text in ``el`` outside ``aria-hidden`` elements, in no particular order (for an
    emptiness test)."""
    hidden = {n for h in el.iter() if h.get("aria-hidden") == "true" for n in h.iter()}
    parts: list[str] = []
    for node in el.iter():
        if node not in hidden and isinstance(node.tag, str):
            parts.append(node.text or "")
        if node is not el and node.getparent() not in hidden:
            parts.append(node.tail or "")
    return "".join(parts)


def remove_keeping_tail(el: etree._Element) -> None:
    """Remove ``el``, its tail text joined to the text before it. A list separator the removal
    leaves stranded goes too: ``a, <del>b</del>, c`` → ``a, c``, ``(<del>a</del>, b)`` →
    ``(b)``, ``(a, <del>b</del>)`` → ``(a)``."""
    parent = el.getparent()
    if parent is None:
        return
    tail = el.tail or ""
    previous = el.getprevious()
    before = (previous.tail if previous is not None else parent.text) or ""
    if tail.lstrip().startswith(",") and (
        before.rstrip().endswith((",", "(", "[")) or (previous is None and not before.strip())
    ):
        tail = tail.lstrip()[1:]
    elif before.rstrip().endswith(",") and tail.lstrip().startswith((")", "]")):
        before = before.rstrip()[:-1]
        if previous is not None:
            previous.tail = before
        else:
            parent.text = before
    if tail:
        if previous is not None:
            previous.tail = (previous.tail or "") + tail
        else:
            parent.text = (parent.text or "") + tail
    parent.remove(el)


def math_text(
    el: etree._Element,
    replace: dict[str, str] | None = None,
    script: Callable[[str], str] | None = None,
) -> str:
    """The text inside ``el`` (its tail excluded), each ``sup`` as ``^`` and ``sub`` as ``_``
    with grouping (:func:`script_text`; ``script`` rewrites a script's own text first) and each
    element named in ``replace`` as the given text."""
    if len(el) == 0:
        return el.text or ""
    parts: list[str] = []
    stack: list[tuple[etree._Element, bool]] = [(el, False)]
    while stack:  # pre-order without recursion: (element, its tail is due now)
        node, tail = stack.pop()
        if tail:
            parts.append(node.tail or "")
            continue
        if node is not el:
            stack.append((node, True))
        tag = node.tag
        if not isinstance(tag, str):
            continue
        if replace and tag in replace:
            parts.append(replace[tag])
        elif tag in ("sup", "sub") and node is not el:
            inner = " ".join(math_text(node, replace, script).split())
            parts.append(script_text(tag, script(inner) if script else inner))
        else:
            parts.append(node.text or "")
            stack.extend((child, False) for child in reversed(node))
    return "".join(parts)


def markdown_math_text(el: etree._Element) -> str:
    """The text inside ``el`` (its tail excluded) when that text is Markdown already (an
    ecmarkup source algorithm's steps): as :func:`math_text`, a code span inside a script
    written as its text, as a rendered script's code reads (``*+0*<sub>𝔽</sub>`` after the
    source shorthand is `` `+0`_𝔽 ``, ``2<sup>`n` - 1</sup>`` is ``2^(n - 1)``)."""
    return math_text(el, script=_unwrap_code_spans)


def _unwrap_code_spans(text: str) -> str:
    return _CODE_SPAN.sub(r"\1", text)


def script_text(tag: str, text: str) -> str:
    """A superscript (``tag`` ``sup``) as ``^text``, a subscript as ``_text``, in parentheses
    unless ``text`` is one word; an ordinal suffix (``st``, ``nd``, ``rd``, ``th``) as is."""
    if not text:
        return ""
    if tag == "sup" and _ORDINAL_SUFFIX.match(text):
        return text
    grouped = text if _ONE_WORD.match(text) else f"({text})"
    return ("^" if tag == "sup" else "_") + grouped
