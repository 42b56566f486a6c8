"""Reading HTML bytes: encoding detection and an lxml parser that accepts ECMA-262-sized trees;
what every format shares about pages (identity hash, order, document title)."""

from __future__ import annotations

import codecs
import hashlib
import re
from collections.abc import Iterable, Iterator
from copy import deepcopy
from pathlib import Path
from typing import cast

from lxml import etree

from specbrowser.chunking.fragments import fragment_keys, fragment_target
from specbrowser.chunking.markdown_text import remove_keeping_tail
from specbrowser.errors import SpecInputError, SpecParseError
from specbrowser.formats.base import Page

_META_CHARSET = re.compile(
    rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.IGNORECASE
)
_LOOKS_LIKE_HTML = re.compile(
    r"<\s*(!doctype|html|head|body|meta|title|div|p|h[1-6]|section|[a-z][a-z0-9]*-[a-z0-9-]+)\b",
    re.IGNORECASE,
)
"""The start tag of a common HTML element, or of a custom element (a name with a hyphen, as the
HTML standard's custom elements are: a source spec's page may open with ``<emu-clause>``)."""
_SNIFF_BYTES = 4096
"""How far to look for a BOM, a meta charset and HTML tags: the HTML standard's prescan uses 1024
bytes; a rendered page may open with a long <style>, so 4 KiB is a safe margin."""


MAX_PARSE_DEPTH = 2048
"""libxml2's nesting limit with ``huge_tree``: deeper elements are dropped from the tree, so a
page that reaches it is refused (:func:`read_html`)."""


def detect_encoding(data: bytes) -> str:
    """The encoding of an HTML file: BOM first, then ``<meta charset>``, else UTF-8.

    Returns a Python codec name. An unknown meta charset falls back to UTF-8.
    """
    for bom, name in (
        (codecs.BOM_UTF8, "utf-8"),
        (codecs.BOM_UTF16_LE, "utf-16"),
        (codecs.BOM_UTF16_BE, "utf-16"),
    ):
        if data.startswith(bom):
            return name
    match = _META_CHARSET.search(data[:_SNIFF_BYTES])
    if match:
        try:
            return codecs.lookup(match.group(1).decode("ascii")).name
        except LookupError:
            pass
    return "utf-8"


def check_html_head(path: Path, head: bytes | None = None) -> str:
    """Check that a file looks like HTML from its first bytes; return its encoding.

    An HTML document starts with markup (a doctype, a comment or a tag, after any byte order
    mark and whitespace): text that starts otherwise is not one, whatever tags it quotes (a
    Markdown note about a spec's ``<link rel="canonical">`` would be read as that spec).

    Raises:
        SpecInputError: unreadable, empty (or only whitespace), binary, text that does not start
            with markup, or with no HTML tag near its start.
    """
    if head is None:
        try:
            with path.open("rb") as handle:
                head = handle.read(_SNIFF_BYTES)
        except OSError as exc:
            raise SpecInputError(f"cannot read {path}: {exc.strerror or exc}") from None
    if not head.strip():
        raise SpecInputError(f"{path} is empty")
    encoding = detect_encoding(head)
    if encoding == "utf-8" and b"\x00" in head:
        raise SpecInputError(f"{path} is not HTML (it looks like a binary file)")
    text = head.decode(encoding, errors="replace").lstrip("\ufeff \t\r\n\f")
    if not text.startswith("<"):
        first = text.split("\n", 1)[0][:40]
        raise SpecInputError(f"{path} is not HTML (it starts with {first!r}, not with a tag)")
    if not _LOOKS_LIKE_HTML.search(text):
        raise SpecInputError(f"{path} is not HTML (no HTML tag near its start)")
    return encoding


def read_html(path: Path) -> tuple[etree._Element, bytes]:
    """Parse one HTML file with lxml, returning the root element and the raw bytes.

    Raises:
        SpecInputError: the file cannot be read or does not look like HTML (binary, or text with
            no HTML tag near its start).
        SpecParseError: lxml could not build a tree from it, or it nests elements deeper than
            :data:`MAX_PARSE_DEPTH` (lxml would drop the deeper ones).
    """
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise SpecInputError(f"cannot read {path}: {exc.strerror or exc}") from None
    encoding = check_html_head(path, data[:_SNIFF_BYTES])
    parser = etree.HTMLParser(  # collect_ids=False: no id is looked up; half the parse time
        encoding=encoding, huge_tree=True, remove_comments=True, remove_pis=True, collect_ids=False
    )
    try:
        root = etree.fromstring(data, parser=parser)
    except (etree.ParserError, etree.XMLSyntaxError, ValueError) as exc:
        raise SpecParseError(f"cannot parse {path} as HTML: {exc}") from None
    if root is None:
        raise SpecParseError(f"{path} holds no HTML elements")
    too_deep = next((e for e in parser.error_log if "Excessive depth" in e.message), None)
    if too_deep is not None:  # libxml2 drops what lies deeper: refuse rather than lose text
        raise SpecParseError(
            f"{path} nests elements deeper than {MAX_PARSE_DEPTH} levels (line {too_deep.line}); "
            "specbrowser cannot read it"
        )
    return root, data


def element_text(el: etree._Element) -> str:
    """The text inside ``el`` and its descendants, in document order (its own tail excluded)."""
    # lxml yields str here; lxml-stubs declares str | bytes for every text it returns.
    return "".join(cast("Iterator[str]", el.itertext()))


def current_text(el: etree._Element) -> str:
    """:func:`element_text` without a proposal's deleted text (:func:`without_deleted`): a
    heading as it reads once the proposal is applied."""
    if el.tag == "del":
        return ""
    return element_text(without_deleted(el))


def without_deleted(el: etree._Element) -> etree._Element:
    """``el`` itself when it holds no ``del`` element, else a copy (tail dropped) with every
    ``del`` removed, their tails kept and a separator left twice written once
    (:func:`~specbrowser.chunking.markdown_text.remove_keeping_tail`)."""
    if next(el.iter("del"), None) is None:
        return el
    copy = deepcopy(el)
    copy.tail = None
    for deleted in list(copy.iter("del")):
        remove_keeping_tail(deleted)
    return copy


def bytes_sha256(chunks: Iterable[bytes]) -> str:
    """sha256 (hex) over byte strings in order: a spec's identity in ``Document.sha256``."""
    digest = hashlib.sha256()
    for chunk in chunks:
        digest.update(chunk)
    return digest.hexdigest()


def order_pages(pages: list[Page]) -> list[Page]:
    """Pages in document order: by the links of the first table-of-contents menu
    (:func:`menu_toc`) a page holds, as a multipage rendering repeats it on every page; pages it
    does not link come last, and without a menu all go by file name."""
    order: dict[str, int] = {}
    for page in pages:
        menu = menu_toc(page.root)
        order = _page_order(cast("list[str]", menu.xpath(".//a/@href"))) if menu is not None else {}
        if order:
            break
    return sorted(pages, key=lambda page: (order.get(page.path.name, len(order)), page.path.name))


def menu_toc(root: etree._Element) -> etree._Element | None:
    """ecmarkup's sidebar TOC menu, ``div#menu-toc``, or None. Walks ``div`` elements only and
    stops at the first hit, where an XPath would search the whole tree."""
    return next((d for d in root.iter("div") if d.get("id") == "menu-toc"), None)


def _page_order(links: list[str]) -> dict[str, int]:
    """Page file name → its place in document order, by a TOC menu's links (``href`` values, in
    order; a link to the same page, ``#…`` or ``./``, names ``index.html``)."""
    order: dict[str, int] = {}
    for href in links:
        name = href.split("#", 1)[0]
        name = "index.html" if name in ("", "./", ".") else name.rsplit("/", 1)[-1]
        order.setdefault(name, len(order))
    return order


class RepeatedMenus:
    """Drop the copies of a multipage rendering's TOC menu (``div#menu-toc``) that nothing reads,
    page by page as the pages are read (:meth:`add` each one).

    ecmarkup repeats the whole TOC menu on every page: ECMA-262's 39 pages hold 39 copies of its
    11,421 elements, more than half the elements read. Two copies are read: the first one read
    (:func:`order_pages` orders the pages by it) and the one on the page that menu puts first
    in document order (the document's TOC is taken from its first page); the front matter
    leaves menus out. Those two are kept, every other page's menu goes; no stored table
    changes.

    Args:
        names: the file names of the pages that will be read.
    """

    def __init__(self, names: list[str]) -> None:
        self.names = names
        self.leader: str | None = None
        """The page the first menu read puts first; None until a menu with links is read."""

    def add(self, page: Page) -> None:
        """Keep or drop ``page``'s menu (see the class docstring)."""
        if len(self.names) < 2:
            return
        menu = menu_toc(page.root)
        if menu is None:
            return
        if self.leader is None:  # the first menu read: kept, and it names the leader
            order = _page_order(cast("list[str]", menu.xpath(".//a/@href")))
            if order:
                self.leader = min(self.names, key=lambda name: (order.get(name, len(order)), name))
        elif page.path.name != self.leader:
            remove_keeping_tail(menu)


def resolve_fragment_links(pages: list[Page]) -> int:
    """Point every in-document link whose fragment holds ``%`` at the id it names, the way a
    browser finds it (:func:`~specbrowser.chunking.fragments.fragment_target` over the ids of
    all ``pages``): ``#%E2%84%9D`` becomes ``#ℝ`` when only ``ℝ`` is an id, ``#sec-%abstractfoo%``
    stays as written. In-document: ``#x``, ``./#x`` or ``page.html#x`` for one of ``pages``. A
    fragment that names no id is left as written. Returns how many hrefs changed."""
    names = {"", "./", *(page.path.name for page in pages)}
    links: list[tuple[etree._Element, str, str]] = []
    for page in pages:
        # a walk in Python: a third of the time of XPath's contains() over every element
        for el in page.root.iter(etree.Element):
            href = el.get("href")
            if href is None or "%" not in href:
                continue
            prefix, hash_, fragment = href.partition("#")
            # a fragment with one key (nothing to decode) names its id as written, or none
            if hash_ and fragment and prefix in names and len(fragment_keys(fragment)) > 1:
                links.append((el, prefix, fragment))
    if not links:
        return 0  # no link to decode: no id table built (30,000 ids in ECMA-262)
    ids = {i for page in pages for i in cast("list[str]", page.root.xpath("//@id"))}
    changed = 0
    for el, prefix, fragment in links:
        target = fragment_target(fragment, ids)
        if target is not None and target != fragment:
            el.set("href", f"{prefix}#{target}")
            changed += 1
    return changed


def document_title(root: etree._Element) -> str:
    """A page's title: ``<title>``, else an ``h1.title`` (a rendered title page), else the
    ``title:`` line of a Bikeshed-style ``pre.metadata`` block (markup in it read as text, as
    ecmarkup renders ``ECMAScript<sup>&reg;</sup> 2026 …``), else the first ``h1`` of the body;
    whitespace collapsed, "" when there is none."""
    title = root.findtext(".//title")
    if title and title.strip():
        return " ".join(title.split())
    heading = cast("list[etree._Element]", root.xpath("//h1[contains(@class,'title')]"))
    if heading:
        return " ".join(element_text(heading[0]).split())
    metadata = root.find(".//pre[@class='metadata']")
    for line in element_text(metadata).splitlines() if metadata is not None else []:
        key, _, value = line.partition(":")
        if key.strip() == "title" and value.strip():
            return " ".join(value.split())
    first_h1 = root.find(".//body//h1")  # a plain page's title heading
    return " ".join(element_text(first_h1).split()) if first_h1 is not None else ""
