"""A chunk's source HTML, to audit the conversion: the section's stored HTML, or for a breakdown
subsection the element it was cut from, when it can be found.

The element is found by content, not by replaying the breakdown: among the section's elements
that the subsection's breakdown tag selects, the one whose words (``\\w+`` runs of its text)
agree longest with the subsection's own words, from the start. A match of at least
:data:`MIN_WORDS` words (or all of a shorter subsection's words) counts; otherwise the section's
HTML is returned and :attr:`ChunkSource.exact` is False.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from specbrowser.chunking.markers import find_markers
from specbrowser.chunking.policy import is_selector_tag
from specbrowser.store import SpecStore

if TYPE_CHECKING:
    from lxml import etree

# Deferred to the functions that parse HTML, so that the app starts without it: lxml.html
# (about 40 ms of imports; the session imports this module at start).

MIN_WORDS = 8
"""Words from the start that must agree for an element to count as a subsection's source."""

_WORDS = re.compile(r"\w+")


@dataclass(frozen=True)
class ChunkSource:
    """Where a chunk's text comes from.

    Attributes:
        chunk_id, section_id: the chunk and its section.
        html: the element's HTML (``exact``) or the whole section's stored HTML.
        exact: True when ``html`` is the chunk's own element (a section root chunk is its
            section: always exact).
        note: one line saying which of the two ``html`` is.
    """

    chunk_id: str
    section_id: str
    html: str
    exact: bool
    note: str


def chunk_source(db: SpecStore, chunk_id: str, version: str) -> ChunkSource:
    """The source HTML of a chunk (see the module docstring).

    Raises:
        NotFoundError: no chunk with that id, or its section is gone.
    """
    chunk = db.chunk(chunk_id, version)
    section_id = chunk.section_id or chunk.id
    section = db.sections.get(section_id)
    if chunk.parent_id is None or not chunk.breakdown_tag:
        return ChunkSource(chunk.id, section_id, section.html, True, f"section {section_id}")
    number = re.search(r"-(\d+)$", chunk.id)
    element = find_element(
        section.html, chunk.breakdown_tag, chunk.text, int(number.group(1)) if number else 1
    )
    if element is None:
        return ChunkSource(
            chunk.id,
            section_id,
            section.html,
            False,
            f"the <{chunk.breakdown_tag}> element was not found: section {section_id} shown",
        )
    from lxml import etree  # deferred: see the module's imports

    source = etree.tostring(element, encoding="unicode", method="html", with_tail=False)
    return ChunkSource(
        chunk.id, section_id, source, True, f"<{chunk.breakdown_tag}> in section {section_id}"
    )


def _words(text: str) -> list[str]:
    return [word.casefold() for word in _WORDS.findall(text)]


_FENCE = re.compile(r"^[ \t>]*(?:```|~~~)[^\n]*$", re.MULTILINE)
"""A code fence line with its info string (``bnf``): not text of the element."""

_LINK_TARGET = re.compile(r"\]\((?:[^()\s]|\([^()\s]*\))*\)")
"""The ``(target)`` of a Markdown link: not text of the element."""


def find_element(
    section_html: str, tag: str, chunk_text: str, number: int = 1
) -> etree._Element | None:
    """The element of ``section_html`` selected by breakdown tag ``tag`` (an element name or a
    CSS selector) whose text agrees longest with ``chunk_text`` (markers, link targets and
    code fence lines left out), or None when none agrees on enough words (:data:`MIN_WORDS`).
    Ties (short cells with the same words) go to the candidate nearest to the ``number``-th
    (1-based: the subsection id's last number)."""
    own = chunk_text
    for marker in reversed(find_markers(chunk_text)):
        own = own[: marker.start] + " " + own[marker.end :]
    wanted = _words(_FENCE.sub("", _LINK_TARGET.sub("]", own)))
    if not wanted:
        return None
    from lxml import etree, html  # deferred: see the module's imports

    root = html.fragment_fromstring(section_html, create_parent="div")
    if is_selector_tag(tag):
        # deferred: cssselect, only to find a chunk's source element by its tag
        from lxml.cssselect import CSSSelector

        selected = CSSSelector(tag)(root)
        assert isinstance(selected, list), "a CSS selector selects elements"
        candidates = [el for el in selected if isinstance(el, etree._Element)]
    else:
        candidates = list(root.iter(tag))
    best: tuple[tuple[int, int, int], etree._Element] | None = None
    for index, candidate in enumerate(candidates):
        found = _words("".join(str(piece) for piece in candidate.itertext()))
        agree = 0
        for a, b in zip(wanted, found, strict=False):
            if a != b:
                break
            agree += 1
        score = (agree, -abs(len(found) - len(wanted)), -abs(index - (number - 1)))
        if best is None or score > best[0]:
            best = (score, candidate)
    if best is None or best[0][0] < min(MIN_WORDS, len(wanted)):
        return None
    return best[1]
