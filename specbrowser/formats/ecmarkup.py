"""ecmarkup specs (rendered single page, rendered multipage, or source) → section tree.

Sections are the ``emu-clause``, ``emu-annex`` and ``emu-intro`` elements that carry an id
(ecmarkup's clause elements). A section's own content is its element with every child section
replaced by an empty ``<sb-section-ref>`` placeholder, which the Markdown converter renders as a
"Subsection available" marker; so no text of a child section is ever part of its parent's chunks.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

from lxml import etree

from specbrowser.errors import SpecInputError, SpecParseError
from specbrowser.formats.html import check_html_head, element_text, read_html
from specbrowser.formats.toc import extract_toc
from specbrowser.model import SECTION_TAGS, Document, Section, TocNode

SECTION_REF_TAG = "sb-section-ref"
"""Placeholder element for a child section inside its parent's own HTML."""

_SECNUM_CLASS = "secnum"


@dataclass
class ParsedSpec:
    """The result of parsing: one document and its sections in document order.

    ``elements`` maps a section id to its own-content element (child sections already replaced
    by placeholders). The breakdown may mutate these elements; they are not needed afterwards.
    """

    document: Document
    sections: list[Section]
    elements: dict[str, etree._Element] = field(repr=False, default_factory=dict)
    toc: list[TocNode] = field(default_factory=list)
    """The document's own table of contents (top-level entries), or [] when it has none."""


def resolve_inputs(paths: list[Path]) -> tuple[list[Path], str | None]:
    """Expand the user's spec arguments into HTML files.

    A folder holding an ecmarkup source ``spec.html`` means that source; any other folder means all
    its ``*.html`` files (a multipage rendering). Returns the files and, for a folder, the kind
    implied by its layout (None when the files decide).

    Raises:
        SpecInputError: a path that does not exist, or a folder without HTML files.
    """
    files: list[Path] = []
    for path in paths:
        if not path.exists():
            raise SpecInputError(f"{path} does not exist")
        if path.is_dir():
            pages = sorted(p for p in path.glob("*.html") if p.is_file())
            if not pages:
                raise SpecInputError(f"{path} is a folder without .html files")
            source = path / "spec.html"
            if source in pages and _is_source(source):
                files.append(source)
            else:
                files.extend(pages)
        else:
            files.append(path)
    unique = list(dict.fromkeys(p.resolve() for p in files))
    if len(unique) != len(files):  # the same file named twice would repeat every section
        files = [next(f for f in files if f.resolve() == u) for u in unique]
    return files, None


def check_spec_inputs(paths: list[Path]) -> list[Path]:
    """Resolve the spec arguments and check each file looks like HTML, without parsing them.

    Raises:
        SpecInputError: as :func:`resolve_inputs`, or a file that is not HTML.
    """
    files, _ = resolve_inputs(paths)
    for path in files:
        check_html_head(path)
    return files


def _is_source(path: Path) -> bool:
    head = path.read_bytes()[:200_000]
    return (
        b"<emu-clause" in head and b"spec-container" not in head and b"<emu-production" not in head
    )


def load_spec(paths: list[Path] | Path) -> ParsedSpec:
    """Read a spec from a file, a multipage folder, a source folder, or a list of pages.

    Multipage pages are put in document order by the TOC menu that every page repeats; pages the
    TOC does not link come last, by name. Section ids, titles, parents and order are the same for
    the single page and the multipage rendering of one spec.

    Raises:
        SpecInputError: missing path, folder without HTML, a file that is not HTML.
        SpecParseError: HTML without any section element with an id.
    """
    if isinstance(paths, Path):
        paths = [paths]
    files, _ = resolve_inputs(paths)
    pages = [(path, *read_html(path)) for path in files]
    sha = bytes_sha256(data for _p, _r, data in pages)  # input order, as spec_sha256 reads it
    if len(pages) > 1:
        pages = _order_pages(pages)
    roots = [root for _p, root, _d in pages]
    kind = _detect_kind([data for _p, _r, data in pages])
    if kind == "ecmarkup-source":
        for path, root, _data in pages:
            _expand_imports(root, path.parent)

    toc = extract_toc(roots[0])
    title = _document_title(roots[0])  # before the parsers move headings out of the page
    sections: list[Section] = []
    elements: dict[str, etree._Element] = {}
    for path, root, _data in pages:
        _collect_sections(root, path.name, sections, elements)
    if not sections:
        from specbrowser.formats.headings import collect_heading_sections

        for path, root, _data in pages:
            collect_heading_sections(root, path.name, sections, elements)
        kind = "html-headings"
    if not sections:
        names = ", ".join(str(p) for p in files[:3])
        raise SpecParseError(
            f"no sections in {names}: neither ecmarkup clauses "
            "(emu-clause, emu-annex, emu-intro with an id) nor h1-h6 headings"
        )
    title = title or next(
        (s.title for s in sections if s.kind != "front-matter"), sections[0].title
    )
    document = Document(
        id=sha[:16], title=title, kind=kind, source_paths=[str(p) for p in files], sha256=sha
    )
    return ParsedSpec(document=document, sections=sections, elements=elements, toc=toc)


def bytes_sha256(chunks: Iterable[bytes]) -> str:
    """sha256 (hex) over byte strings in order: a spec's identity in ``Document.sha256``."""
    digest = hashlib.sha256()
    for chunk in chunks:
        digest.update(chunk)
    return digest.hexdigest()


def spec_sha256(paths: list[Path]) -> str:
    """The ``Document.sha256`` that :func:`load_spec` would give these inputs, without parsing
    (to tell whether a cached database still holds this exact spec).

    Raises:
        SpecInputError: as :func:`resolve_inputs`.
    """
    files, _ = resolve_inputs(paths)
    return bytes_sha256(path.read_bytes() for path in files)


def _detect_kind(pages: list[bytes]) -> str:
    """Rendered output has a spec container and expanded grammar; source has neither.

    A byte search (milliseconds) rather than an XPath over the tree (a third of a second).
    """
    data = pages[0]
    if not (b"spec-container" in data or b"<emu-production" in data):
        return "ecmarkup-source"
    return "ecmarkup-multipage" if len(pages) > 1 else "ecmarkup-rendered"


def _order_pages(
    pages: list[tuple[Path, etree._Element, bytes]],
) -> list[tuple[Path, etree._Element, bytes]]:
    order: dict[str, int] = {}
    for _path, root, _data in pages:
        links = cast("list[str]", root.xpath("//*[@id='menu-toc']//a/@href"))  # attribute values
        for href in links:
            page = href.split("#", 1)[0]
            page = "index.html" if page in ("", "./", ".") else page.rsplit("/", 1)[-1]
            order.setdefault(page, len(order))
        if order:
            break
    return sorted(pages, key=lambda page: (order.get(page[0].name, len(order)), page[0].name))


def _expand_imports(root: etree._Element, folder: Path) -> None:
    """Replace ecmarkup source ``<emu-import href>`` elements by the body of the imported file."""
    for imp in root.iter("emu-import"):
        href = imp.get("href")
        if not href:
            continue
        target = folder / href
        if not target.is_file():
            continue
        imported, _ = read_html(target)
        body = imported.find("body")
        for child in list(body if body is not None else imported):
            imp.append(child)


def _document_title(root: etree._Element) -> str:
    title = root.findtext(".//title")
    if title and title.strip():
        return " ".join(title.split())
    heading = cast("list[etree._Element]", root.xpath("//h1[contains(@class,'title')]"))
    if heading:
        return " ".join(element_text(heading[0]).split())
    metadata = root.find(".//pre[@class='metadata']")
    for line in (metadata.text or "").splitlines() if metadata is not None else []:
        key, _, value = line.partition(":")
        if key.strip() == "title" and value.strip():
            return value.strip()
    first_h1 = root.find(".//body//h1")  # a plain page's title heading
    return " ".join(element_text(first_h1).split()) if first_h1 is not None else ""


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
    """The (secnum, title) of a section element, from its first ``h1`` child.

    ``secnum`` is the text of ``<span class="secnum">`` (ecmarkup writes it only in rendered
    output); ``title`` is the rest of the heading with whitespace collapsed, inline code kept.
    Returns ("", "") when the section has no ``h1``.
    """
    h1 = el.find("h1")
    if h1 is None:
        return "", ""
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


_WS = re.compile(r"\s+")
