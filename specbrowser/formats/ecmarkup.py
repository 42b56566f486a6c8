"""The ecmarkup format: rendered single page, rendered multipage, or source → section tree.

Sections are the ``emu-clause``, ``emu-annex`` and ``emu-intro`` elements that carry an id
(ecmarkup's clause elements). A section's own content is its element with every child section
replaced by an empty ``<sb-section-ref>`` placeholder, which the Markdown converter renders as a
"Subsection available" marker; so no text of a child section is ever part of its parent's chunks.

Content outside every section (the title block, "About this Specification", a proposal's
status line; in source, the metadata block; all of a page that has no clause) is kept as a
section ``front-matter`` of kind ``front-matter``, ordinal 0, titled "Front matter", when it
holds any text: from the spec
container of each rendered page (the sidebar menu and TOC are not content), from the body in
source; ``script``, ``style``, ``template``, ``link`` and ``meta`` left out.

Document kinds: ``ecmarkup-rendered`` (one rendered page), ``ecmarkup-multipage`` (a folder or
list of rendered pages) and ``ecmarkup-source`` (the ``spec.html`` that ecmarkup renders, its
``<emu-import>`` files expanded in place, its structured headers rendered
(:mod:`specbrowser.formats.ecmarkup_headers`), its shorthand written as rendered text reads, and
its sections numbered as ecmarkup numbers them: :mod:`specbrowser.formats.ecmarkup_source`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from lxml import etree

from specbrowser.chunking.markdown import GrammarElements, MarkdownElements, text_of
from specbrowser.chunking.markdown_config import MarkdownConfig
from specbrowser.chunking.markdown_text import remove_keeping_tail
from specbrowser.chunking.policy import DEFAULT_BREAKDOWN_TAGS, SEED_BREAKDOWN_TAGS
from specbrowser.chunking.rules import (
    ChunkingRules,
    adjacent_sibling,
    caption_title,
    html_rule_unit,
    html_subsection_title,
)
from specbrowser.errors import SpecParseError
from specbrowser.formats.base import Page, ParsedSpec
from specbrowser.formats.ecmarkup_headers import clause_header, render_structured_headers
from specbrowser.formats.ecmarkup_source import (
    expand_imports,
    expand_shorthand,
    number_sections,
    number_steps,
)
from specbrowser.formats.headings import FRONT_MATTER_ID, front_matter_section
from specbrowser.formats.html import element_text, without_deleted
from specbrowser.formats.parsing import parse_pages
from specbrowser.model import SECTION_REF_TAG, Section

RENDERED = "ecmarkup-rendered"
MULTIPAGE = "ecmarkup-multipage"
SOURCE = "ecmarkup-source"
KINDS = (RENDERED, MULTIPAGE, SOURCE)
"""The document kinds of this format."""

SECTION_TAGS: dict[str, str] = {"emu-clause": "clause", "emu-annex": "annex", "emu-intro": "intro"}
"""ecmarkup elements that make a section, mapped to the section kind stored for them."""

BREAKDOWN_TAGS: tuple[str, ...] = DEFAULT_BREAKDOWN_TAGS
"""Whole tables, grammar, cells, paragraphs, algorithm steps, productions:
:class:`ChunkPolicy`'s own defaults, which are ECMA-262's (so a policy built without a format
is this format's); the seed strategy's are :data:`SEED_BREAKDOWN_TAGS`, the first four."""

SUGGESTED_TAGS: tuple[str, ...] = (
    "tr",
    "li",
    "emu-alg",
    "emu-note",
    "pre",
    "table",
    "ol",
    "ul",
    "div",
)
"""Tags the policy editor offers after the defaults: rows, items, algorithms, notes, blocks."""

MARKDOWN_CONFIG = MarkdownConfig()
"""The converter's default selectors, which name ecmarkup's grammar, notes and inline code."""

_SECNUM_CLASS = "secnum"
_PRODUCTION_LHS = re.compile(r"^\s*([A-Za-z_][\w]*)\s*(?:\[[^\]]*\])?\s*:", re.MULTILINE)


def subsection_title(el: etree._Element, tag: str) -> str:
    """The title a marker gives an extracted element, or "" when it has none.

    - ``emu-table``: the ``figcaption`` text ecmarkup renders ("Table 3: The fields of a
      Widget"), else a ``caption`` element, else the ``caption`` attribute of the
      source form (:func:`~specbrowser.chunking.rules.caption_title`).
    - ``emu-grammar``: the names of its productions, in order, without repeats; in source form,
      the left-hand sides of its text. ``emu-production``: its name.
    - anything else: as plain HTML (:func:`~specbrowser.chunking.rules.html_subsection_title`:
      a ``figure`` or ``table`` by its caption, else "").
    """
    if tag == "emu-table":
        return caption_title(el)
    if tag in ("emu-grammar", "emu-production"):
        names = [p.get("name") or "" for p in el.iter("emu-production")]
        if not names:
            names = _PRODUCTION_LHS.findall(text_of(el) or "")
        return ", ".join(dict.fromkeys(n for n in names if n))
    return html_subsection_title(el, tag)


MARKDOWN_ELEMENTS = MarkdownElements(
    block_tags=frozenset(
        {
            "emu-alg",
            "emu-grammar",
            "emu-production",
            "emu-note",
            "emu-example",
            "emu-table",
            "emu-figure",
            "emu-clause",
            "emu-annex",
            "emu-intro",
            "emu-import",
        }
    ),
    algorithm_tags=frozenset({"emu-alg"}),
    example_tags=frozenset({"emu-example"}),
    grammar=GrammarElements(
        production="emu-production",
        nonterminal="emu-nt",
        geq="emu-geq",
        one_of="emu-oneof",
        rhs="emu-rhs",
        optional="emu-opt",
    ),
)
"""ecmarkup's elements for the Markdown converter: its block elements, algorithms (``emu-alg``,
plain text steps in source), examples, and expanded grammar productions."""


def rule_unit(el: etree._Element) -> list[etree._Element]:
    """A grammar block and the algorithm right after it (the shape of every case of a
    syntax-directed operation: ``emu-grammar`` then ``emu-alg``, only whitespace between) are
    one unit, whichever of the two is extracted; a definition list's terms and definitions are
    one as in plain HTML (:func:`~specbrowser.chunking.rules.html_rule_unit`)."""
    if el.tag == "emu-grammar":
        after = adjacent_sibling(el, before=False)
        if after is not None and after.tag == "emu-alg":
            return [el, after]
    elif el.tag == "emu-alg":
        before = adjacent_sibling(el, before=True)
        if before is not None and before.tag == "emu-grammar":
            return [before, el]
    return html_rule_unit(el)


CHUNKING_RULES = ChunkingRules(
    markdown_elements=MARKDOWN_ELEMENTS, subsection_title=subsection_title, rule_unit=rule_unit
)
"""ecmarkup's elements, grammar and table titles, grammar + algorithm rule units; section
numbers as ecmarkup writes them (``Annex B``)."""


class EcmarkupFormat:
    """The ecmarkup :class:`~specbrowser.formats.base.SpecFormat`."""

    name = "ecmarkup"
    title = "ecmarkup"
    kinds: tuple[str, ...] = KINDS
    section_description = "ecmarkup clauses (emu-clause, emu-annex, emu-intro with an id)"
    markdown_config = MARKDOWN_CONFIG
    breakdown_tags: tuple[str, ...] = BREAKDOWN_TAGS
    seed_breakdown_tags: tuple[str, ...] = SEED_BREAKDOWN_TAGS
    suggested_tags: tuple[str, ...] = SUGGESTED_TAGS
    chunking_rules = CHUNKING_RULES

    def entry_file(self, folder: Path) -> Path | None:
        """A folder's ``spec.html`` or ``spec.emu`` (ecmarkup's two names for a source's main
        file) when it is ecmarkup source: a source folder means that file, its imports expanded;
        the other files are imported parts."""
        for name in SOURCE_ENTRY_NAMES:
            source = folder / name
            if source.is_file() and _is_source(source):
                return source
        return None

    def detect(self, pages: Sequence[Page]) -> str | None:
        """The kind when any page holds a section element with an id or, in source, an
        ``emu-import`` (its file may hold the sections); else None. The first page decides
        rendered or source by a search of its bytes, not of its tree: rendered output has a
        spec container and expanded grammar, source has neither. (A page of ecmarkup without
        clauses is claimed only when no format finds sections: :func:`fragment_kind`.)"""
        kind = _kind([page.data for page in pages])
        tags = (*SECTION_TAGS, "emu-import") if kind == SOURCE else tuple(SECTION_TAGS)
        for page in pages:
            if any(
                el.get("id", "").strip() or el.tag == "emu-import" for el in page.root.iter(*tags)
            ):
                return kind
        return None

    def parse(self, pages: Sequence[Page], kind: str, sha256: str) -> ParsedSpec:
        """Section ids, titles, parents and order are the same for the single page and the
        multipage rendering of one spec (the registry puts pages in document order).

        Raises:
            SpecParseError: a section id used twice.
        """
        if kind == SOURCE:
            for page in pages:
                expand_imports(page.root, page.path.parent)
                render_structured_headers(page.root)
                expand_shorthand(page.root)
                number_sections(page.root)
                number_steps(page.root)
        parsed = parse_pages(pages, kind, sha256, _collect_sections)
        _add_front_matter(parsed, pages)
        return parsed

    def section_kind_label(self, kind: str) -> str | None:
        """The element that made a section of this kind (``clause`` → ``emu-clause``)."""
        return next((tag for tag, name in SECTION_TAGS.items() if name == kind), None)


FORMAT = EcmarkupFormat()


def fragment_kind(pages: Sequence[Page]) -> str | None:
    """The kind of pages that hold ecmarkup elements (an ``emu-`` element) but perhaps no
    clause, as :meth:`EcmarkupFormat.detect` tells it; None when they hold none. The registry
    parses such pages with this format when no format finds sections in them: their content
    becomes the front matter section."""
    if any(b"<emu-" in page.data for page in pages):
        return _kind([page.data for page in pages])
    return None


SOURCE_ENTRY_NAMES = ("spec.html", "spec.emu")
"""The names of an ecmarkup source's main file, in the order they are looked for."""


def _is_source(path: Path) -> bool:
    head = path.read_bytes()[:200_000]
    return (
        b"<emu-clause" in head and b"spec-container" not in head and b"<emu-production" not in head
    )


def _kind(pages: list[bytes]) -> str:
    data = pages[0]
    if not (b"spec-container" in data or b"<emu-production" in data):
        return SOURCE
    return MULTIPAGE if len(pages) > 1 else RENDERED


_NOT_CONTENT_TAGS = frozenset({"script", "style", "template", "link", "meta", "noscript"})
_NOT_CONTENT_IDS = frozenset({"menu", "menu-toc", "menu-toggle", "menu-spacer", "shortcuts-help"})


def _add_front_matter(parsed: ParsedSpec, pages: Sequence[Page]) -> None:
    """Put the content the pages hold outside every section (their sections already moved out,
    placeholders left) into a front-matter section at ordinal 0, the other ordinals shifted by
    one; nothing when that content holds no text."""
    front = etree.Element("div", {"class": "sb-front-matter"})
    for page in pages:
        root = page.root
        container = next((d for d in root.iter("div") if d.get("id") == "spec-container"), None)
        if container is None:
            container = root.find("body")
        if container is None:
            container = root
        _move_content(container, front)
    if not " ".join(element_text(front).split()):
        return
    taken = {s.id for s in parsed.sections}
    section_id, n = FRONT_MATTER_ID, 1
    while section_id in taken:
        n += 1
        section_id = f"{FRONT_MATTER_ID}-{n}"
    front.set("id", section_id)
    for section in parsed.sections:
        section.ordinal += 1
    section = front_matter_section(  # its id numbered on (-2, -3 …) when a section has it
        section_id,
        etree.tostring(front, encoding="unicode", method="html", with_tail=False),
        pages[0].path.name,
    )
    parsed.sections.insert(0, section)
    parsed.elements[section_id] = front


def _move_content(container: etree._Element, front: etree._Element) -> None:
    """Move ``container``'s text and children into ``front``, leaving out what is not content
    and every section placeholder (a front matter that named the sections would give them a
    parent they do not have)."""
    if container.text and container.text.strip():
        _append_text(front, container.text)
    for child in list(container):
        tail = child.tail
        if _is_content(child):
            for inner in list(child.iter(SECTION_REF_TAG, *_NOT_CONTENT_TAGS)):
                if inner is not child:
                    remove_keeping_tail(inner)
            child.tail = None
            front.append(child)
        if tail and tail.strip():
            _append_text(front, tail)


def _is_content(el: etree._Element) -> bool:
    return (
        isinstance(el.tag, str)
        and el.tag not in _NOT_CONTENT_TAGS
        and el.tag != SECTION_REF_TAG
        and el.get("id") not in _NOT_CONTENT_IDS
    )


def _append_text(parent: etree._Element, text: str) -> None:
    if len(parent):
        parent[-1].tail = (parent[-1].tail or "") + text
    else:
        parent.text = (parent.text or "") + text


def _collect_sections(
    root: etree._Element,
    source_file: str,
    sections: list[Section],
    elements: dict[str, etree._Element],
) -> None:
    """Append this page's sections and own-content elements (see module docstring)."""
    found = [el for el in root.iter(*SECTION_TAGS) if el.get("id", "").strip()]
    records: dict[etree._Element, Section] = {}
    for el in found:
        parent_el = next((a for a in el.iterancestors(*SECTION_TAGS) if a in records), None)
        parent = records[parent_el] if parent_el is not None else None
        secnum, title = heading_of(el)
        section_id = el.get("id", "")
        section = Section(
            id=section_id,
            parent_id=parent.id if parent else None,
            ordinal=len(sections),
            depth=parent.depth + 1 if parent else 0,
            kind=SECTION_TAGS[el.tag],
            secnum=secnum,
            title=title or section_id,
            html="",
            source_file=source_file,
        )
        records[el] = section
        sections.append(section)
    # Deepest-last first: when a section is reached, its child sections are already placeholders.
    for el in reversed(found):
        section = records[el]
        section.html = etree.tostring(el, encoding="unicode", method="html", with_tail=False)
        parent_el = el.getparent()
        ref = etree.Element(
            SECTION_REF_TAG, {"data-id": section.id, "data-title": section.display_title}
        )
        ref.tail = el.tail
        el.tail = None
        if parent_el is not None:
            parent_el.replace(el, ref)
        elements[section.id] = el
    if len(elements) != len(sections):
        files_of: dict[str, list[str]] = {}
        for section in sections:
            files_of.setdefault(section.id, []).append(section.source_file)
        section_id, files = next((i, f) for i, f in files_of.items() if len(f) > 1)
        raise SpecParseError(
            f"section id {section_id!r} appears twice (in {' and '.join(dict.fromkeys(files))})"
        )


def heading_of(el: etree._Element) -> tuple[str, str]:
    """The (secnum, title) of a section element, from its heading
    (:func:`~specbrowser.formats.ecmarkup_headers.clause_header`: its first ``h1`` child, or
    the ``h1`` of a proposal's ``ins`` that replaces a deleted one).

    ``secnum`` is the text of ``<span class="secnum">`` (ecmarkup writes it only in rendered
    output); ``title`` is the rest of the heading with whitespace collapsed, inline code kept,
    a proposal's deleted words (``del``) left out
    (:func:`~specbrowser.formats.html.without_deleted`).
    Returns ("", "") when the section has no ``h1``.
    """
    h1 = clause_header(el)
    if h1 is None:
        return "", ""
    h1 = without_deleted(h1)
    secnum = ""
    parts = [h1.text or ""]
    for child in h1:
        classes = (child.get("class") or "").split() if isinstance(child.tag, str) else []
        if _SECNUM_CLASS in classes and not secnum:
            secnum = " ".join(element_text(child).split())
        elif isinstance(child.tag, str):
            parts.append(element_text(child))
        parts.append(child.tail or "")
    return secnum, " ".join("".join(parts).split())
