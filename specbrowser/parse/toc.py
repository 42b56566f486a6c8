"""A document's own table of contents → TocNode tree. (In progress.)"""

from __future__ import annotations

from lxml import etree

from specbrowser.model import TocNode


def extract_toc(root: etree._Element) -> list[TocNode]:
    """The document's TOC (not written yet)."""
    return []
