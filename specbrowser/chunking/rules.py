"""What the chunking library asks of a spec format, beyond the policy: :class:`ChunkingRules`.

The rules shape chunk output but are not settings of a policy (a policy version does not hash
them): each spec format supplies its own
(:attr:`specbrowser.formats.base.SpecFormat.chunking_rules`), and a spec is always chunked with
its format's rules, at ingest and at every re-chunk.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from lxml import etree

from specbrowser.chunking.labels import section_ordinal
from specbrowser.chunking.markdown import BLOCK_TAGS, HTML_ELEMENTS, MarkdownElements, text_of
from specbrowser.chunking.markdown_text import spaced_pieces

SubsectionTitle = Callable[[etree._Element, str], str]
"""``title(element, tag)``: the title a marker gives an element the breakdown extracted with
``tag`` (the element's own tag for a CSS-selector tag), or "" when it has none."""

RuleUnit = Callable[[etree._Element], list[etree._Element]]
"""``unit(element)``: the consecutive sibling elements, ``element`` among them, in document
order, that the guarded breakdown extracts together whenever it extracts ``element`` (a rule
and the algorithm that defines it); ``[element]`` when it stands alone."""

SectionOrdinal = Callable[[str], str]
"""``ordinal(secnum)``: a section number as a dotted string (``14.6.1``, ``B``) or ""."""


def caption_title(el: etree._Element) -> str:
    """The text of the first ``figcaption`` (a figure around a table), else ``caption``
    element inside ``el``, else its ``caption`` attribute; whitespace collapsed, "" if none."""
    for name in ("figcaption", "caption"):
        found = next(el.iter(name), None)
        if found is not None and text_of(found).strip():
            return " ".join(text_of(found).split())
    return " ".join((el.get("caption") or "").split())


PREVIEW_CHARS = 48
"""The longest name :func:`first_words` gives (characters, before its ``…``): enough to tell
paragraphs, cells and steps apart in a tree label."""


def first_words(
    el: etree._Element,
    limit: int = PREVIEW_CHARS,
    elements: MarkdownElements = HTML_ELEMENTS,
) -> str:
    """The element's text, whitespace collapsed, cut after the last whole word within
    ``limit`` characters with ``…`` (a first word longer than that is cut in it); "" for an
    element without text. Text of two blocks (HTML's and the format's ``elements``) is
    separated by a space: a step and its nested list read ``If x, then Let y …``, not
    ``If x, thenLet y``."""
    pieces = spaced_pieces(el, BLOCK_TAGS | elements.block_tags)
    title = ""
    for word in _leading_words(pieces, limit):
        longer = f"{title} {word}" if title else word
        if len(longer) > limit:
            return (title or word[:limit]) + "…"
        title = longer
    return title


def _leading_words(pieces: Iterator[str], limit: int) -> list[str]:
    """The whitespace-separated words of the text ``pieces`` join into, up to the first whole
    word at which the words joined by single spaces pass ``limit`` characters (all of them
    when the text is shorter): what :func:`first_words` reads, without joining the rest."""
    text = ""
    for piece in pieces:
        text += piece
        if len(text) <= limit or not text[-1].isspace():
            continue  # the last word may go on in the next piece
        words = text.split()
        if len(" ".join(words)) > limit:
            return words
    return text.split()


def html_subsection_title(el: etree._Element, tag: str) -> str:
    """Plain HTML's subsection titles: a ``figure`` or ``table`` is titled by its caption
    (:func:`caption_title`; a table in a ``figure`` by the first sentence of the figure's), a
    definition list's term (``dt``) by its first words (a group of references reads ``[ABNF] …
    [CSP]``), an element Bikeshed names an algorithm of (``div.algorithm`` with
    ``data-algorithm``, and ``data-algorithm-for``) by that name (``report timing (fetch
    controller)``); anything else has no title (its chunk is named by its first words instead:
    :func:`first_words`)."""
    if tag in ("figure", "table"):
        caption = caption_title(el)
        parent = el.getparent()
        if not caption and tag == "table" and parent is not None and parent.tag == "figure":
            # the figure's caption is the table's; its first sentence titles it (Bikeshed's
            # go on: "Authenticator data layout. The names in the Name column are …")
            first, stop, rest = caption_title(parent).partition(". ")
            caption = f"{first}." if stop and rest else first
        return caption
    if tag == "dt":
        return first_words(el)
    algorithm = " ".join((el.get("data-algorithm") or "").split())
    if algorithm:  # Bikeshed names an algorithm's div.algorithm: "report timing"
        namespace = " ".join((el.get("data-algorithm-for") or "").split())
        return f"{algorithm} ({namespace})" if namespace else algorithm
    return ""


def html_rule_unit(el: etree._Element) -> list[etree._Element]:
    """Plain HTML's rule units, found from any member, in document order:

    - a term of a definition list with its definitions: HTML's name-value group (one or more
      ``dt`` elements, then one or more ``dd``); an empty ``dd``, such as xml2rfc's
      ``<dd class="break">`` after each reference, belongs to the group before it;
    - a table with the caption of the ``figure`` it stands in (Bikeshed: ``<figure><table>…
      <figcaption>``), so that the table's chunk holds its caption;

    any other element stands alone (``[el]``). Members are sibling elements with only
    whitespace between (:func:`adjacent_sibling`)."""
    tag = el.tag
    if tag in ("dt", "dd"):
        return _definition_group(el)
    if tag in ("table", "figcaption"):
        parent = el.getparent()
        if parent is not None and parent.tag == "figure":
            pair = "figcaption" if tag == "table" else "table"
            for before in (True, False):
                other = adjacent_sibling(el, before=before)
                if other is not None and other.tag == pair:
                    return [other, el] if before else [el, other]
    return [el]


def _definition_group(el: etree._Element) -> list[etree._Element]:
    first = el
    if first.tag == "dd":  # back over the group's definitions, then over its terms
        while (node := adjacent_sibling(first, before=True)) is not None and node.tag == "dd":
            first = node
    while (node := adjacent_sibling(first, before=True)) is not None and node.tag == "dt":
        first = node
    members = [first]
    while (node := adjacent_sibling(members[-1], before=False)) is not None and (
        node.tag == "dd" or (node.tag == "dt" and members[-1].tag == "dt")
    ):
        members.append(node)  # a dt after a dd starts the next group
    return members


def adjacent_sibling(el: etree._Element, *, before: bool) -> etree._Element | None:
    """The element sibling right before (or after) ``el`` with only whitespace between them
    (comments skipped), or None."""
    if before:
        node = el.getprevious()
        while node is not None and not isinstance(node.tag, str):
            if (node.tail or "").strip():
                return None
            node = node.getprevious()
        return node if node is not None and not (node.tail or "").strip() else None
    if (el.tail or "").strip():
        return None
    node = el.getnext()
    while node is not None and not isinstance(node.tag, str):
        if (node.tail or "").strip():
            return None
        node = node.getnext()
    return node


@dataclass(frozen=True)
class ChunkingRules:
    """A spec format's hooks into the Markdown conversion, the breakdown and the finishing of a
    chunk set.

    Attributes:
        markdown_elements: the format's own elements for the converter
            (:class:`~specbrowser.chunking.markdown.MarkdownElements`).
        subsection_title: titles extracted elements (:data:`SubsectionTitle`).
        section_ordinal: turns a section's ``secnum`` into :attr:`Chunk.section_ordinal`.
        rule_unit: the elements the guarded breakdown keeps together (:data:`RuleUnit`).
    """

    markdown_elements: MarkdownElements = HTML_ELEMENTS
    subsection_title: SubsectionTitle = html_subsection_title
    section_ordinal: SectionOrdinal = section_ordinal
    rule_unit: RuleUnit = html_rule_unit


HTML_RULES = ChunkingRules()
"""The rules of plain HTML: HTML elements only, caption titles for tables and figures, terms'
titles for definitions, a term and its definitions and a table and its figure's caption
extracted together (:func:`html_rule_unit`), dotted section numbers."""
