"""What a spec defines, read from its sections' own HTML: the symbol index.

A *symbol* is a name the spec gives something, mapped to the section that defines it:

- ``aoid``: an ecmarkup abstract operation (``<emu-clause aoid="ToNumber">``; any element
  carrying ``aoid`` but ``emu-xref``, which only refers to one);
- ``production``: a grammar production's defining occurrence, the ``emu-production`` whose id is
  ``prod-<name>`` exactly (ecmarkup gives that id to the one definition; the copies in the
  grammar summary, Annex B and the notation examples get other ids, ``prod-annexB-<name>``,
  ``prod-grammar-notation-<name>``, or none);
- ``title``: a section's title (without its number), and the leading name of a title that names
  one thing, ``Array.prototype.map`` from ``Array.prototype.map ( callbackfn [ , thisArg ] )``,
  ``%ThrowTypeError%`` from ``%ThrowTypeError% ( )``, ``Symbol.iterator``, ``Map.prototype.size``
  from an accessor's ``get Map.prototype.size`` (``set …`` likewise);
- ``stub``: the same for a *stub*, a section whose own text is only a pointer to the section
  that defines the name (a numbered title such as ``4.2 Widget ( . . . )`` whose text is
  "See 9.1.", or "See 16."): it ranks below every title, so the name
  goes to its definition and to the stub only when nothing else defines it;
- ``dfn``: a defined term (``<dfn>``: its text and its ``variants``), intrinsics such as
  ``%Array%`` included;
- ``id``: any element id in the section's own HTML (the section's own id, tables, steps,
  productions, figures …), ecmarkup's ``oldids`` included (rendered as empty ``<span id>``);
- ``oldid``: an old id named in an ``oldids`` attribute that no element carries (ecmarkup source
  files), resolved to the element that keeps it.

Pure functions over :class:`~specbrowser.model.Section` (their stored HTML) or parsed elements:
no I/O. Section numbers are not symbols here: the sections table holds them
(:meth:`specbrowser.store.sections.Sections.resolve`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from itertools import islice

from lxml import etree

from specbrowser.model import SECTION_REF_TAG, Section, Symbol
from specbrowser.types import SymbolKind

PRODUCTION_ID_PREFIX = "prod-"
"""ecmarkup's id of a production's defining occurrence: ``prod-`` and the production name."""

_SPACES = re.compile(r"\s+")
_LEADING_NAME = re.compile(r"^[%\w$@.\[\]\-]+$")
"""A title's leading name: one token of name characters (``Array.prototype.map``,
``%TypedArray%.prototype.set``, ``Symbol.iterator``, ``get-prototype`` is allowed too), spaces
inside brackets removed first (``Array.prototype[%Symbol.iterator%]``)."""


_ACCESSOR = re.compile(r"^[gs]et\s+")
"""The ``get ``/``set `` an accessor property's section title starts with."""

_STUB_TEXT = re.compile(r"^See\s+\S+(?:\s+\S+){0,2}\s*\.?$")
"""The whole own text (heading aside) of a stub section: ``See 9.1.``, ``See 16.``"""

_STUB_MAX_CHARS = 200
"""Longer own text (whitespace included) is no stub: a cheap test before the pattern."""

_STUB_MAX_ELEMENTS = 16
"""A section element holding more elements is no stub (ECMA-262's hold 6: the clause, its
``h1`` and number, a ``p``, an ``emu-xref`` and its ``a``): tested first, as it reads no text."""


def title_name(title: str) -> str | None:
    """The leading name of a section title that names one thing (the text before its
    parameter list, brackets' inner spaces removed, an accessor's ``get ``/``set `` dropped), or
    None when that is prose: ``Array.prototype.map ( callbackfn )`` → ``Array.prototype.map``,
    ``get Map.prototype.count`` → ``Map.prototype.count``, ``The Array Constructor`` → None."""
    head = _ACCESSOR.sub("", title.split(" (", 1)[0].strip())
    head = re.sub(r"\s*([\[\]])\s*", r"\1", head)
    if len(head) < 2 or not _LEADING_NAME.match(head) or not re.search(r"[A-Za-z]", head):
        return None
    return head


def element_symbols(section_id: str, element: etree._Element) -> Iterator[Symbol]:
    """The symbols one section's own-content element defines, in document order (child
    sections are placeholders, so each element counts for one section only)."""
    for el in element.iter(etree.Element):  # elements only: no comment or entity
        tag = el.tag
        names = el.keys()  # most elements have no attribute: one call tells
        if (not names and tag != "dfn") or tag == SECTION_REF_TAG:
            continue
        element_id = el.get("id") if "id" in names else None
        if element_id:
            yield Symbol(element_id, "id", section_id, element_id)
        if "aoid" in names and tag != "emu-xref":
            aoid = el.get("aoid")
            if aoid:
                yield Symbol(aoid.strip(), "aoid", section_id, element_id)
        if tag == "emu-production" and element_id:
            name = el.get("name") or ""
            if element_id == PRODUCTION_ID_PREFIX + name:  # not prod-annexB-…, prod-grammar-…
                yield Symbol(name, "production", section_id, element_id)
        if tag == "dfn":
            term = _SPACES.sub(" ", "".join(str(t) for t in el.itertext())).strip()
            variants = [v.strip() for v in (el.get("variants") or "").split(",")]
            for name in dict.fromkeys([term, *variants]):
                if name:
                    yield Symbol(name, "dfn", section_id, element_id)
        if "oldids" in names and element_id:
            for name in (el.get("oldids") or "").split(","):
                if name.strip():
                    yield Symbol(name.strip(), "oldid", section_id, element_id)


def section_symbols(section: Section, element: etree._Element | None = None) -> list[Symbol]:
    """Every symbol of one section: its id, its title's leading name and its title, then what
    its own HTML defines
    (``element``, or :attr:`Section.html` parsed when not given), duplicates dropped.

    A section whose HTML does not parse gives its title's name and its own id only.
    """
    found: list[Symbol] = [Symbol(section.id, "id", section.id, section.id)]
    if element is None and section.html:
        element = parse_section_html(section.html)
    kind: SymbolKind = "stub" if element is not None and is_stub(element) else "title"
    name = title_name(section.title)
    if name:
        found.append(Symbol(name, kind, section.id))
    title = _SPACES.sub(" ", section.title).strip()
    if title and title != name:
        found.append(Symbol(title, kind, section.id))
    if element is not None:
        found.extend(element_symbols(section.id, element))
    ids = {s.name for s in found if s.kind == "id"}
    unique = dict.fromkeys(
        s
        for s in found
        if not (s.kind == "oldid" and s.name in ids)  # rendered as an id too
    )
    return list(unique)


def is_stub(element: etree._Element) -> bool:
    """Whether a section's own-content element is a stub: no child section, a link, and besides
    its first heading only a "See …" of at most four words (see the module docstring)."""
    if len(list(islice(element.iter(), _STUB_MAX_ELEMENTS + 1))) > _STUB_MAX_ELEMENTS:
        return False
    if next(element.iter(SECTION_REF_TAG), None) is not None:
        return False
    if next(element.iter("a", "emu-xref"), None) is None:
        return False
    text = "".join(map(str, element.itertext()))
    heading = next(element.iter("h1", "h2", "h3", "h4", "h5", "h6"), None)
    if heading is not None:
        text = text.replace("".join(map(str, heading.itertext())), "", 1)
    return len(text) < _STUB_MAX_CHARS and bool(_STUB_TEXT.match(" ".join(text.split())))


def parse_section_html(html: str) -> etree._Element | None:
    """A stored section's own HTML parsed (lxml's HTML parser, as the formats wrote it), or
    None when it holds no element."""
    # lxml.html here, not at the top: 3 ms of the start-up of every command that opens a
    # database (specbrowser.store.sets imports this module); only a symbol index made from
    # stored sections parses their HTML
    import lxml.html

    try:
        return lxml.html.fromstring(html)
    except (etree.ParserError, ValueError, TypeError):
        return None


def spec_symbols(
    sections: Iterable[Section], elements: dict[str, etree._Element] | None = None
) -> list[Symbol]:
    """The symbol index of a spec: :func:`section_symbols` of every section in document order
    (``elements``: own-content elements by section id, when already parsed and not yet changed
    by a breakdown; the others are parsed from their HTML)."""
    found: list[Symbol] = []
    for section in sections:
        found.extend(section_symbols(section, (elements or {}).get(section.id)))
    return found
