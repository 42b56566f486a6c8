"""The headings format: plain heading-structured HTML (Bikeshed, ReSpec, xml2rfc, WHATWG …).

Document kind ``html-headings``. The registry tries it after the formats with their own section
elements. One :class:`Section` per heading, and per section an own-content element
(``<div class="sb-section" data-id=…>``) holding its heading and the content up to the next
section heading, each child section replaced by one ``<sb-section-ref>`` placeholder.

Rules:

- **Sections.** Every ``h1``–``h6`` in the body, in document order, starts a section, except
  headings that are not structure: inside a table of contents, inside the document's title
  block (a ``header`` or ``div.head`` child of ``body`` before any section heading: Bikeshed,
  ReSpec, W3C and WHATWG put the title and status there), the ``h1``s that come before every
  other heading when no ``h1`` comes after (the document title), a second heading of an
  ``hgroup`` (a subtitle), a heading inside content such as a table cell, list or quote (only
  structural wrappers, :data:`WRAPPER_TAGS`, are looked into), and a heading with no text at
  all. Those stay in the current section's content.
- **Levels.** Nesting follows the heading level (h2 → h4 makes the h4 a child of the h2);
  ``<section>`` wrappers never change the level. A ``<section>`` or ``<article>`` that
  opens with a heading does close that heading's section where it ends, so content after the
  wrapper goes back to the enclosing section (ReSpec and xml2rfc wrap every section this way);
  after a top-level section's wrapper, content up to the next heading stays in that section.
- **Ids.** The id of a wrapping ``<section>`` whose first heading this is (ReSpec and xml2rfc
  link their TOC and self-links there), else the heading's id, else ``h-<slug of the title>``;
  a repeat gets ``-2``, ``-3`` … so ids are unique across the spec.
- **Ids of wrappers.** A wrapper that holds a section heading is dissolved, so its id would name
  no element of any section: xml2rfc puts the anchors its links use on such wrappers
  (``<div id="resources"><section id="section-3.1">``). Each such id (other than a section's
  own) is kept as an empty ``<span id>`` where a browser lands on it: just before the first
  heading or block that follows the wrapper's start, in the section that holds it (the
  section a heading opens, when the wrapper starts with one).
- **Numbers and titles.** ``secnum`` is the text of the heading's ``.secno`` (Bikeshed, ReSpec
  ``bdi``), ``.secnum`` or ``.section-number`` (xml2rfc) element, trailing dot dropped
  (``1.2.`` → ``1.2``, as Bikeshed's own TOC writes it); the title is the rest of the heading
  text without self-links (``a.self-link``, Sphinx ``a.headerlink``) and permalink marks (a
  fragment link whose text is ``¶``, ``#`` or ``§``), whitespace collapsed.
- **Front matter.** Content before the first section heading is kept as a section
  ``front-matter`` titled "Front matter" when it holds any text (the preamble is not
  dropped).
- **Not content.** Navigation (``nav``, ``[role=navigation]``: menus and documentation
  sidebars), the TOC (``nav#toc``, ``ol.toc``/``ul.toc``/``nav.toc``, an element with id
  ``toc``/``contents``/``table-of-contents`` that holds no other heading, a heading titled
  "Table of Contents" or "Contents"), Bikeshed's MDN browser-support panels
  (``details.mdn-anno``), ``script``, ``style``, ``template`` and the ``head``.

The page tree is consumed: content elements are moved into the section elements.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeAlias

from lxml import etree

from specbrowser.chunking.markdown_config import MarkdownConfig
from specbrowser.chunking.rules import HTML_RULES
from specbrowser.formats.base import Page, ParsedSpec
from specbrowser.formats.html import element_text
from specbrowser.formats.parsing import parse_pages
from specbrowser.model import SECTION_REF_TAG, Section

KIND = "html-headings"
"""The document kind of this format."""

SEED_BREAKDOWN_TAGS: tuple[str, ...] = ("table", "pre", "ol", "ul", "p")
"""The seed strategy's default breakdown tags: whole tables, code and IDL blocks, lists,
paragraphs."""

BREAKDOWN_TAGS: tuple[str, ...] = (
    "table",
    "pre",
    "div.algorithm",
    "ol",
    "ul",
    "p",
    "li",
    "dt",
    "dl",
)
"""The guarded strategy's: whole tables and code blocks; Bikeshed's algorithms
(``div.algorithm``: the sentence that names one with its steps, titled by its name), then
lists, paragraphs and list items (a long list packed into runs); then a definition list's
terms, each with its definitions (a references section packed into runs of references), then
whole definition lists. Passes stop once a chunk fits, so a later tag changes only chunks the
earlier ones leave over the threshold."""

SUGGESTED_TAGS: tuple[str, ...] = ("tr", "li", "pre", "table", "ol", "ul", "div")
"""Tags the policy editor offers after the defaults: rows, items, blocks."""

MARKDOWN_CONFIG = MarkdownConfig()
"""The converter's default selectors (their ecmarkup selectors match nothing in plain HTML;
keeping them keeps the policy versions of stored plain-HTML chunk sets)."""

HEADING_TAGS = ("h1", "h2", "h3", "h4", "h5", "h6")

SECTION_KIND = "heading"
""":attr:`Section.kind` of a section made by a heading."""

FRONT_MATTER_ID = "front-matter"
FRONT_MATTER_TITLE = "Front matter"
FRONT_MATTER_KIND = "front-matter"
"""Id, title and kind of the section holding the content outside every section (before the
first heading; an ecmarkup rendering's text outside its clauses), in every format."""


def front_matter_section(section_id: str, html: str, source_file: str) -> Section:
    """The front-matter section: top level, ordinal 0, no number."""
    return Section(
        id=section_id,
        parent_id=None,
        ordinal=0,
        depth=0,
        kind=FRONT_MATTER_KIND,
        secnum="",
        title=FRONT_MATTER_TITLE,
        html=html,
        source_file=source_file,
    )


SECTION_ELEMENT_CLASS = "sb-section"
"""Class of the ``div`` made for each section's own content (its ``data-id`` is the section id)."""

WRAPPER_TAGS = frozenset(
    {
        "body",
        "section",
        "article",
        "main",
        "div",
        "header",
        "footer",
        "hgroup",
        "center",
        "search",
    }
)
"""Elements looked into for section headings. A heading inside anything else (a table cell, a
list item, a blockquote, a figure, ``details``, an ``aside``) is content, not structure;
navigation (``nav``, ``[role=navigation]``) is not content at all."""

CLOSING_WRAPPERS = frozenset({"section", "article"})
"""Wrappers whose end closes the section of their first heading."""

SKIP_TAGS = frozenset({"script", "style", "template", "head", "noscript"})
"""Never content."""

_MDN_PANEL_CLASS = "mdn-anno"
"""Bikeshed's MDN browser-support panel (``details.mdn-anno``): which browsers support a
feature and a link to MDN's page, placed by a script beside the definition (or left at the end
of the IDL index): MDN's data, not the spec's text."""

TOC_IDS = frozenset({"toc", "contents", "table-of-contents"})
"""Ids a table of contents goes by (Bikeshed ``nav#toc`` and ``h2#contents``, xml2rfc ``#toc``,
ReSpec ``h2#table-of-contents``)."""

TOC_TITLES = frozenset({"table of contents", "contents"})
"""Heading texts (case-insensitive) that name a table of contents."""

_SECNUM_CLASSES = frozenset({"secno", "secnum", "section-number"})
_SELF_LINK_CLASSES = frozenset({"self-link", "headerlink"})
_TITLE_BLOCK_CLASS = "head"
_SLUG_STRIP = re.compile(r"[^a-z0-9]+")
_SLUG_MAX = 60
"""Longest slug part of a generated id, in characters (long titles still give readable ids)."""


class HeadingsFormat:
    """The plain-HTML :class:`~specbrowser.formats.base.SpecFormat` (rules: module docstring)."""

    name = "headings"
    title = "plain HTML"
    kinds: tuple[str, ...] = (KIND,)
    section_description = "h1-h6 headings"
    markdown_config = MARKDOWN_CONFIG
    breakdown_tags: tuple[str, ...] = BREAKDOWN_TAGS
    seed_breakdown_tags: tuple[str, ...] = SEED_BREAKDOWN_TAGS
    suggested_tags: tuple[str, ...] = SUGGESTED_TAGS
    chunking_rules = HTML_RULES

    def entry_file(self, folder: Path) -> Path | None:
        """None: a folder of plain pages means all of them."""
        return None

    def detect(self, pages: Sequence[Page]) -> str | None:
        """``html-headings`` when any page holds an ``h1``–``h6`` element, else None."""
        for page in pages:
            if next(page.root.iter(*HEADING_TAGS), None) is not None:
                return KIND
        return None

    def parse(self, pages: Sequence[Page], kind: str, sha256: str) -> ParsedSpec:
        """Each page's sections in turn (ids unique across pages); the document's own TOC and
        title from the first page."""
        return parse_pages(pages, kind, sha256, collect_heading_sections)

    def section_kind_label(self, kind: str) -> str | None:
        """None: a heading section is listed by its kind (``heading``, ``front-matter``)."""
        return None


FORMAT = HeadingsFormat()


def collect_heading_sections(
    root: etree._Element,
    source_file: str,
    sections: list[Section],
    elements: dict[str, etree._Element],
) -> None:
    """Append the sections that ``h1``–``h6`` headings make in one page (rules: module docstring).

    ``sections`` and ``elements`` may already hold earlier pages' sections: ordinals continue
    from ``len(sections)`` and new ids avoid the ids already used. Each new section gets its
    own-content element in ``elements[section.id]`` and that element's HTML in
    :attr:`Section.html`. A page without any section heading adds nothing, not even front
    matter: it is not heading-structured.
    """
    body = root.find("body")
    if body is None:
        body = root
    scan = _Scan()
    scan.headings_in(body, top_level=True)
    boundaries = _section_headings(scan.found)
    if not boundaries:
        return
    containing = {a for h in boundaries for a in h.iterancestors()}
    events: list[_Event] = [body.text] if body.text else []
    _walk(body, boundaries, containing, events)
    used = {s.id for s in sections} | set(elements)
    # Before the builder moves anything: a wrapper's first heading changes as headings leave it.
    explicit_ids = {h: _wrapper_id(h) or (h.get("id") or "").strip() for h in boundaries}
    builder = _Builder(source_file, _Ids(used, set(explicit_ids.values()) - {""}), explicit_ids)
    for event in events:
        builder.apply(event)
    for record, element in builder.finish():
        record.ordinal = len(sections)
        record.html = etree.tostring(element, encoding="unicode", method="html")
        sections.append(record)
        elements[record.id] = element


def heading_parts(heading: etree._Element) -> tuple[str, str]:
    """The (secnum, title) of a heading element.

    ``secnum`` is the first ``.secno``/``.secnum``/``.section-number`` element's text with
    whitespace collapsed and a trailing dot dropped, or ""; ``title`` is the remaining text
    without self-links, whitespace collapsed. Either may be "".
    """
    secnum = ""
    parts: list[str] = []
    # in document order without recursion (a heading may nest deep): an element to look at,
    # or the text of a tail
    stack: list[etree._Element | str] = [heading]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            parts.append(item)
            continue
        if item is not heading:
            classes = _classes(item)
            if classes & _SECNUM_CLASSES and not secnum:
                secnum = " ".join(element_text(item).split()).rstrip(".").strip()
                continue
            if item.tag == "a" and (classes & _SELF_LINK_CLASSES or is_permalink(item)):
                continue
        parts.append(item.text or "")
        for child in reversed(item):
            stack.append(child.tail or "")
            if isinstance(child.tag, str):
                stack.append(child)
    return secnum, " ".join("".join(parts).split())


PERMALINK_TEXTS = frozenset({"", "¶", "#", "§", "🔗", "\u200b"})
"""The whole text of a heading's permalink anchor (Sphinx ``¶``, GitHub and Docusaurus ``#``)."""


def is_permalink(link: etree._Element) -> bool:
    """Whether ``link`` is a heading's permalink: a fragment link whose text is only a mark."""
    return (link.get("href") or "").startswith("#") and (
        "".join(element_text(link).split()) in PERMALINK_TEXTS
    )


def slugify(title: str) -> str:
    """``h-<title in lower case, runs of other characters as one dash>``, at most
    :data:`_SLUG_MAX` characters after the prefix; ``h-section`` for a title with no letters."""
    slug = _SLUG_STRIP.sub("-", title.lower()).strip("-")[:_SLUG_MAX].strip("-")
    return f"h-{slug or 'section'}"


# --- finding the section headings -------------------------------------------------------------


def _classes(el: etree._Element) -> set[str]:
    return set((el.get("class") or "").split())


def _is_toc_heading(heading: etree._Element) -> bool:
    return (
        heading.get("id") in TOC_IDS
        or " ".join(element_text(heading).split()).lower() in TOC_TITLES
    )


def _is_skipped(el: etree._Element) -> bool:
    """Not content at all: scripts, styles, and the table of contents (see module docstring)."""
    tag = el.tag
    if not isinstance(tag, str) or tag in SKIP_TAGS:
        return True
    if tag in HEADING_TAGS:
        return _is_toc_heading(el)
    if tag in ("ol", "ul", "nav") and "toc" in _classes(el):
        return True
    if tag == "nav" or el.get("role") == "navigation":  # a documentation sidebar, a menu
        return True
    if tag == "details" and _MDN_PANEL_CLASS in _classes(el):  # MDN's words, not the spec's
        return True
    if (tag == "nav" and el.get("id") == "toc") or el.get("id") in TOC_IDS:
        # A TOC block holds no heading but its own title; a wrapper of the whole spec that
        # happens to be called "contents" holds real headings and is looked into.
        return not any(not _is_toc_heading(h) for h in el.iter(*HEADING_TAGS))
    return False


def _is_title_block(el: etree._Element) -> bool:
    return el.tag == "header" or (el.tag == "div" and _TITLE_BLOCK_CLASS in _classes(el))


class _Scan:
    """Candidate section headings in document order (before the title-``h1`` rule)."""

    def __init__(self) -> None:
        self.found: list[etree._Element] = []

    def headings_in(self, parent: etree._Element, *, top_level: bool = False) -> None:
        # without recursion (wrappers may nest deep): per open wrapper, its children still to
        # look at and whether its next heading is the first of an hgroup
        frames: list[tuple[etree._Element, Iterator[etree._Element], list[bool]]] = [
            (parent, iter(parent), [parent.tag == "hgroup"])
        ]
        while frames:
            wrapper, children, first_in_hgroup = frames[-1]
            child = next(children, None)
            if child is None:
                frames.pop()
                continue
            if _is_skipped(child):
                continue
            if child.tag in HEADING_TAGS:
                if any(heading_parts(child)) and (first_in_hgroup[0] or wrapper.tag != "hgroup"):
                    self.found.append(child)
                    first_in_hgroup[0] = False
            elif child.tag in WRAPPER_TAGS:
                if top_level and wrapper is parent and not self.found and _is_title_block(child):
                    continue  # the title block is front matter, headings and all
                frames.append((child, iter(child), [child.tag == "hgroup"]))


def _section_headings(found: list[etree._Element]) -> set[etree._Element]:
    """The candidates minus the document-title ``h1`` headings: the leading ``h1``s when no
    ``h1`` follows and other headings do (ECMA-262 and xml2rfc write two: version or RFC
    number, then title)."""
    leading = next((i for i, h in enumerate(found) if h.tag != "h1"), len(found))
    if 0 < leading < len(found) and not any(h.tag == "h1" for h in found[leading:]):
        return set(found[leading:])
    return set(found)


# --- flattening the body into events ------------------------------------------------------


@dataclass
class _Close:
    """The end of a closing wrapper whose first section heading is :attr:`heading`."""

    heading: etree._Element


@dataclass
class _Anchor:
    """The start of a wrapper holding a section heading, with the wrapper's id."""

    id: str


_Event: TypeAlias = "etree._Element | str | _Close | _Anchor"
"""A section heading or a content block (elements), loose text, the end of a wrapper, or the
start of a wrapper with an id."""


def _walk(
    parent: etree._Element,
    boundaries: set[etree._Element],
    containing: set[etree._Element],
    events: list[_Event],
) -> None:
    """Record ``parent``'s content in document order: section headings, and the top-most
    elements holding no section heading (taken whole, their tail with them); a wrapper holding
    a section heading is looked into, its id (as an :class:`_Anchor`), own text and tail
    recorded as loose text."""
    # without recursion (wrappers may nest deep): per open wrapper, its children still to walk
    # and its first section heading
    frames: list[tuple[etree._Element, Iterator[etree._Element], etree._Element | None]] = [
        (parent, iter(parent), None)
    ]
    while frames:
        wrapper, children, first = frames[-1]
        child = next(children, None)
        if child is None:
            frames.pop()
            if wrapper is not parent:
                if (
                    wrapper.tag in CLOSING_WRAPPERS
                    and first is not None
                    and _first_heading(wrapper) is first
                ):
                    events.append(_Close(first))
                if wrapper.tail:
                    events.append(wrapper.tail)
        elif _is_skipped(child):
            if child.tail:
                events.append(child.tail)
        elif child in containing:
            wrapper_id = (child.get("id") or "").strip()
            if wrapper_id:
                events.append(_Anchor(wrapper_id))
            if child.text:
                events.append(child.text)
            first_here = next((h for h in child.iter(*HEADING_TAGS) if h in boundaries), None)
            frames.append((child, iter(child), first_here))
        else:
            events.append(child)  # a section heading, or a block taken whole


def _first_heading(el: etree._Element) -> etree._Element | None:
    return next(el.iter(*HEADING_TAGS), None)


def _wrapper_id(heading: etree._Element) -> str | None:
    """The id of the nearest ``<section>`` around ``heading`` whose first heading it is."""
    for ancestor in heading.iterancestors():
        if ancestor.tag in WRAPPER_TAGS and ancestor.tag != "section":
            continue
        if ancestor.tag != "section" or _first_heading(ancestor) is not heading:
            return None
        wrapper_id = (ancestor.get("id") or "").strip()
        if wrapper_id:
            return wrapper_id
    return None


# --- building the sections ----------------------------------------------------------------


class _Ids:
    """Unique section ids: explicit ids first come first served, generated ones avoid them."""

    def __init__(self, used: set[str], explicit: set[str]) -> None:
        self.used = used
        self.reserved = explicit - used

    def take(self, wanted: str, *, generated: bool) -> str:
        candidate, n = wanted, 1
        while candidate in self.used or (generated and candidate in self.reserved):
            n += 1
            candidate = f"{wanted}-{n}"
        self.used.add(candidate)
        self.reserved.discard(candidate)
        return candidate


def _section_element(section_id: str) -> etree._Element:
    return etree.Element("div", {"class": SECTION_ELEMENT_CLASS, "data-id": section_id})


class _Builder:
    """Turns the events into sections: a stack of open sections by heading level."""

    def __init__(
        self, source_file: str, ids: _Ids, explicit_ids: dict[etree._Element, str]
    ) -> None:
        self.source_file = source_file
        self.ids = ids
        self.explicit_ids = explicit_ids
        """Section headings mapped to the id they ask for ("" when they have none)."""
        self.front = _section_element(FRONT_MATTER_ID)
        self.records: list[tuple[Section, etree._Element]] = []
        self.stack: list[tuple[int, Section, etree._Element, etree._Element]] = []
        """Open sections: (heading level, section, own-content element, heading element)."""
        self.section_ids = {i for i in explicit_ids.values() if i}
        self.pending: list[str] = []
        """Wrapper ids waiting for the next heading or block (:class:`_Anchor`)."""

    @property
    def current(self) -> etree._Element:
        return self.stack[-1][2] if self.stack else self.front

    def apply(self, event: _Event) -> None:
        if isinstance(event, _Anchor):
            if event.id not in self.section_ids and event.id not in self.pending:
                self.pending.append(event.id)
        elif isinstance(event, str):
            if event.strip():
                self._place_pending()
            _append_text(self.current, event)
        elif isinstance(event, _Close):
            index = next(
                (i for i, entry in enumerate(self.stack) if entry[3] is event.heading), None
            )
            if index is not None:  # a top-level section stays open: what follows needs a home
                del self.stack[max(index, 1) :]
        elif event in self.explicit_ids:
            self._open(event)
            self._place_pending()
        else:
            self._place_pending()
            self.current.append(event)

    def _place_pending(self) -> None:
        """Append the waiting wrapper ids to the current section as empty ``<span id>``s."""
        for anchor in self.pending:
            self.current.append(etree.Element("span", {"id": anchor}))
        self.pending = []

    def _open(self, heading: etree._Element) -> None:
        level = int(heading.tag[1])
        while self.stack and self.stack[-1][0] >= level:
            self.stack.pop()
        parent = self.stack[-1][1] if self.stack else None
        secnum, title = heading_parts(heading)
        explicit = self.explicit_ids[heading]
        section_id = (
            self.ids.take(explicit, generated=False)
            if explicit
            else self.ids.take(slugify(title or secnum), generated=True)
        )
        section = Section(
            id=section_id,
            parent_id=parent.id if parent else None,
            ordinal=0,
            depth=parent.depth + 1 if parent else 0,
            kind=SECTION_KIND,
            secnum=secnum,
            title=title,
            html="",
            source_file=self.source_file,
        )
        if self.stack:
            self.current.append(
                etree.Element(
                    SECTION_REF_TAG, {"data-id": section.id, "data-title": section.display_title}
                )
            )
        element = _section_element(section.id)
        element.append(heading)
        self.records.append((section, element))
        self.stack.append((level, section, element, heading))

    def finish(self) -> list[tuple[Section, etree._Element]]:
        """The sections in document order, front matter first when it holds text."""
        self._place_pending()
        if element_text(self.front).strip():
            section = front_matter_section(
                self.ids.take(FRONT_MATTER_ID, generated=False), "", self.source_file
            )
            self.front.set("data-id", section.id)
            return [(section, self.front), *self.records]
        return self.records


def _append_text(parent: etree._Element, text: str) -> None:
    if len(parent):
        last = parent[-1]
        last.tail = (last.tail or "") + text
    else:
        parent.text = (parent.text or "") + text
