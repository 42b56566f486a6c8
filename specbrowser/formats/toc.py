"""A document's table of contents → :class:`TocNode` tree; also the external ``--toc`` file.

Sources, in order of preference:

- ecmarkup's sidebar menu: ``#menu-toc > ol.toc`` of ``li > a[href][title] > span.secnum`` and
  nested ``ol.toc`` (every multipage page repeats it; links carry page names);
- plain HTML (Bikeshed, ReSpec …): ``nav#toc`` holding a list, else the first ``ol.toc`` /
  ``ul.toc`` list, with ``span.secno`` numbers;
- an external JSON file (:func:`load_toc_file`), as an LLM-built TOC would give.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from lxml import etree

from specbrowser.errors import SpecInputError
from specbrowser.formats.html import element_text, menu_toc, without_deleted
from specbrowser.model import TocNode

_NUMBER_CLASSES = frozenset({"secnum", "secno"})
_BARE_NUMBER = re.compile(r"(?:(?:Appendix\s+)?(?:[0-9]+|[A-Z])(?:\.[0-9]+)*\.?)?")
"""A link text that is only a section number (``1.2``, ``A.1.``, ``Appendix A``) or empty (an
unnumbered appendix): xml2rfc's TOC links the number and the title apart
(``<a href="#section-1">1</a>. <a …>Introduction</a>``)."""


def extract_toc(root: etree._Element) -> list[TocNode]:
    """The document's own TOC as top-level nodes, or [] when it has none.

    Each entry's title is the link's ``title`` attribute when present (ecmarkup writes the full
    heading there, its link text abbreviates "Static Semantics" to "SS"), else (and when a
    proposal's ``del``/``ins`` edit the link) the link text without its number and deleted
    words, a leading ``SS:`` or ``RS:`` written out; ``target_id`` is the link's fragment as
    written (the reconciler finds the id it names:
    :func:`specbrowser.chunking.toc_paths.resolve_toc_starts`), the page name of a multipage
    link dropped. An entry whose first link is only a section number and a second link follows
    (xml2rfc) takes that number as its number and the second link's text as its title. A list
    item without a link is an empty-title wrapper entry.
    """
    return read_toc(root)[0]


def read_toc(root: etree._Element) -> tuple[list[TocNode], set[str]]:
    """The document's own TOC (:func:`extract_toc`) and the ids of the elements before it in
    document order (an abstract, a status section: what a TOC placed after them does not
    list); ``([], set())`` without a TOC."""
    found = _toc_list(root)
    if found is None:
        return [], set()
    return _entries(found), _ids_before(root, found)


def _ids_before(root: etree._Element, found: etree._Element) -> set[str]:
    ids: set[str] = set()
    for el in root.iter(etree.Element):
        if el is found:
            return ids
        if (element_id := el.get("id")) is not None:
            ids.add(element_id)
    return set()  # the list was not under root: nothing is known to come before it


def _toc_list(root: etree._Element) -> etree._Element | None:
    """The TOC's outer list. Walks elements of one tag at a time and stops at the first hit,
    where an XPath would search the whole tree."""
    menu = menu_toc(root)
    if menu is not None and menu.find("ol") is not None:
        return menu.find("ol")
    nav = next((n for n in root.iter("nav") if n.get("id") == "toc"), None)
    if nav is not None:
        found = next(nav.iter("ol", "ul"), None)
        if found is not None:
            return found
    return next(
        (lst for lst in root.iter("ol", "ul") if "toc" in (lst.get("class") or "").split()), None
    )


def _entries(list_el: etree._Element) -> list[TocNode]:
    nodes: list[TocNode] = []
    for item in list_el:
        if item.tag != "li":
            continue
        links = [a for a in item.iter("a") if _own(a, item)]
        link = links[0] if links else None
        children = [n for sub in item if sub.tag in ("ol", "ul") for n in _entries(sub)]
        if link is None:
            nodes.append(TocNode(title="", children=children))
            continue
        number = " ".join(element_text(link).split())
        if len(links) > 1 and _BARE_NUMBER.fullmatch(number):  # number and title linked apart
            title = " ".join(element_text(links[1]).split())
            nodes.append(TocNode(title, number.rstrip("."), _fragment(link), children=children))
            continue
        edited = next(link.iter("del", "ins"), None) is not None  # a proposal's edit: the
        # title attribute runs deleted and inserted words together; the text drops the deleted
        title_attr = None if edited else link.get("title")
        link = without_deleted(link)
        secnum = ""
        parts = [link.text or ""]
        for child in link:
            classes = set((child.get("class") or "").split())
            text = element_text(child)
            if classes & _NUMBER_CLASSES and not secnum:
                secnum = " ".join(text.split()).rstrip(".")
            else:
                parts.append(text)
            parts.append(child.tail or "")
        title = " ".join((title_attr or _unabbreviated("".join(parts))).split())
        nodes.append(
            TocNode(title=title, secnum=secnum, target_id=_fragment(link), children=children)
        )
    return nodes


_ABBREVIATED = re.compile(r"^(\s*)(SS|RS):")
_UNABBREVIATED = {"SS": "Static Semantics:", "RS": "Runtime Semantics:"}


def _unabbreviated(text: str) -> str:
    """A TOC link text with ecmarkup's abbreviations of its heading's prefix written out
    (``SS:`` → ``Static Semantics:``, ``RS:`` → ``Runtime Semantics:``, as ecmarkup's
    ``Toc.ts`` shortens them)."""
    return _ABBREVIATED.sub(lambda m: m.group(1) + _UNABBREVIATED[m.group(2)], text, count=1)


def _fragment(link: etree._Element) -> str | None:
    """A TOC link's fragment as written, or None without one."""
    href = link.get("href") or ""
    return href.split("#", 1)[1] or None if "#" in href else None


def _own(link: etree._Element, item: etree._Element) -> bool:
    """Whether a link belongs to this list item, not to a nested list inside it."""
    for ancestor in link.iterancestors():
        if ancestor is item:
            return True
        if ancestor.tag in ("ol", "ul"):
            return False
    return False


def load_toc_file(path: Path) -> list[TocNode]:
    """Read an external TOC: JSON, a list of ``{title, start?, end?, secnum?, children?}``.

    ``start``/``end`` are 0-based section ordinals, ``end`` inclusive; an entry without ``end``
    is open-ended, one without ``start`` covers no section itself (its children may). The
    format is ``schemas/toc.schema.json``.

    Raises:
        SpecInputError: unreadable file, invalid JSON, or an entry of the wrong shape (the
            message names the entry's place, e.g. ``[2].children[0]``).
    """
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise SpecInputError(f"cannot read TOC file {path}: {exc.strerror or exc}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise SpecInputError(f"TOC file {path} is not JSON: {exc}") from None
    return _nodes_from_json(data, path, "")


def _nodes_from_json(data: object, path: Path, where: str) -> list[TocNode]:
    if not isinstance(data, list):
        raise SpecInputError(
            f"TOC file {path}: {where or 'the top level'} must be a list of entries"
        )
    nodes = []
    for index, entry in enumerate(data):
        place = f"{where}[{index}]"
        if not isinstance(entry, dict) or not isinstance(entry.get("title"), str):
            raise SpecInputError(f'TOC file {path}: entry {place} needs a string "title"')
        start, end = entry.get("start"), entry.get("end")
        for name, value in (("start", start), ("end", end)):
            if value is not None and (
                not isinstance(value, int) or isinstance(value, bool) or value < 0
            ):
                raise SpecInputError(
                    f"TOC file {path}: {name} of {place} must be a whole number >= 0"
                )
        if start is not None and end is not None and end < start:
            raise SpecInputError(f"TOC file {path}: end of {place} is before its start")
        children = _nodes_from_json(entry.get("children", []), path, f"{place}.children")
        nodes.append(
            TocNode(
                title=" ".join(entry["title"].split()),
                secnum=str(entry.get("secnum", "")),
                start=start,
                end=end,
                children=children,
            )
        )
    return nodes
