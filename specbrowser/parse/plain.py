"""Plain heading-structured HTML (Bikeshed, ReSpec, xml2rfc …) → section tree. (In progress.)"""

from __future__ import annotations

from lxml import etree

from specbrowser.model import Section


def collect_heading_sections(root: etree._Element, source_file: str, sections: list[Section],
                             elements: dict[str, etree._Element]) -> None:
    """Append the sections that ``h1``–``h6`` headings make in one page (not written yet)."""
    return None
