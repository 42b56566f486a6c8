"""The parse every spec format shares (:func:`parse_pages`), apart from the seam
(:mod:`specbrowser.formats.base`) so that the seam imports no reader."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from lxml import etree

from specbrowser.formats.base import Page
from specbrowser.formats.html import document_title
from specbrowser.formats.stylesheet import separate_boxes
from specbrowser.formats.toc import read_toc
from specbrowser.model import Document, ParsedSpec, Section

SectionCollector = Callable[[etree._Element, str, list[Section], dict[str, etree._Element]], None]
"""``collect(root, source_file, sections, elements)``: append one page's sections (in document
order, ordinals continuing from those already in ``sections``) and their detached elements."""


def parse_pages(
    pages: Sequence[Page], kind: str, sha256: str, collect: SectionCollector
) -> ParsedSpec:
    """The :meth:`~specbrowser.formats.base.SpecFormat.parse` every format shares: the
    document's own TOC and title from the first page (read before the sections are moved out of
    it), then each page's sections in turn by ``collect``; first, on every page, the words its
    own stylesheet lays out in separate boxes are kept apart
    (:func:`~specbrowser.formats.stylesheet.separate_boxes`)."""
    for page in pages:
        separate_boxes(page.root)
    toc, before = read_toc(pages[0].root)
    title = document_title(pages[0].root)
    sections: list[Section] = []
    elements: dict[str, etree._Element] = {}
    for page in pages:
        collect(page.root, page.path.name, sections, elements)
    document = Document(id=sha256[:16], title=title, kind=kind, source_paths=[], sha256=sha256)
    return ParsedSpec(
        document=document,
        sections=sections,
        elements=elements,
        toc=toc,
        before_toc=[s for s in sections if s.id in before],
    )
