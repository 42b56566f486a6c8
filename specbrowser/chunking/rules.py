"""What the chunking library asks of a spec format, beyond the policy: :class:`ChunkingRules`.

The rules shape chunk output but are not settings of a policy (a policy version does not hash
them): each spec format supplies its own
(:attr:`specbrowser.formats.base.SpecFormat.chunking_rules`), and a spec is always chunked with
its format's rules, at ingest and at every re-chunk.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from lxml import etree

from specbrowser.chunking.enrich import section_ordinal
from specbrowser.chunking.markdown import HTML_ELEMENTS, MarkdownElements, text_of

SubsectionTitle = Callable[[etree._Element, str], str]
"""``title(element, tag)``: the title a marker gives an element the breakdown extracted with
``tag`` (the element's own tag for a CSS-selector tag), or "" when it has none."""

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


def html_subsection_title(el: etree._Element, tag: str) -> str:
    """Plain HTML's subsection titles: a ``figure`` or ``table`` is titled by its caption
    (:func:`caption_title`); anything else has no title."""
    if tag in ("figure", "table"):
        return caption_title(el)
    return ""


@dataclass(frozen=True)
class ChunkingRules:
    """A spec format's hooks into the Markdown conversion, the breakdown and the finishing of a
    chunk set.

    Attributes:
        markdown_elements: the format's own elements for the converter
            (:class:`~specbrowser.chunking.markdown.MarkdownElements`).
        subsection_title: titles extracted elements (:data:`SubsectionTitle`).
        section_ordinal: turns a section's ``secnum`` into :attr:`Chunk.section_ordinal`.
    """

    markdown_elements: MarkdownElements = HTML_ELEMENTS
    subsection_title: SubsectionTitle = html_subsection_title
    section_ordinal: SectionOrdinal = section_ordinal


HTML_RULES = ChunkingRules()
"""The rules of plain HTML: HTML elements only, caption titles for tables and figures, dotted
section numbers."""
