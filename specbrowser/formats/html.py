"""Reading HTML bytes: encoding detection and an lxml parser that accepts ECMA-262-sized trees."""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterator
from pathlib import Path
from typing import cast

from lxml import etree

from specbrowser.errors import SpecInputError, SpecParseError

_META_CHARSET = re.compile(
    rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.IGNORECASE
)
_LOOKS_LIKE_HTML = re.compile(
    r"<\s*(!doctype|html|head|body|meta|title|div|p|h[1-6]|section|emu-[a-z]+)\b", re.IGNORECASE
)
_SNIFF_BYTES = 4096
"""How far to look for a BOM, a meta charset and HTML tags: the HTML standard's prescan uses 1024
bytes; ecmarkup puts a long <style> before nothing, so 4 KiB is a safe margin."""


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

    Raises:
        SpecInputError: unreadable, binary, or text with no HTML tag near its start.
    """
    if head is None:
        try:
            with path.open("rb") as handle:
                head = handle.read(_SNIFF_BYTES)
        except OSError as exc:
            raise SpecInputError(f"cannot read {path}: {exc.strerror or exc}") from None
    encoding = detect_encoding(head)
    if encoding == "utf-8" and b"\x00" in head:
        raise SpecInputError(f"{path} is not HTML (it looks like a binary file)")
    if not _LOOKS_LIKE_HTML.search(head.decode(encoding, errors="replace")):
        raise SpecInputError(f"{path} is not HTML (no HTML tag near its start)")
    return encoding


def read_html(path: Path) -> tuple[etree._Element, bytes]:
    """Parse one HTML file with lxml, returning the root element and the raw bytes.

    Raises:
        SpecInputError: the file cannot be read or does not look like HTML (binary, or text with
            no HTML tag near its start).
        SpecParseError: lxml could not build a tree from it.
    """
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise SpecInputError(f"cannot read {path}: {exc.strerror or exc}") from None
    encoding = check_html_head(path, data[:_SNIFF_BYTES])
    parser = etree.HTMLParser(
        encoding=encoding, huge_tree=True, remove_comments=True, remove_pis=True
    )
    try:
        root = etree.fromstring(data, parser=parser)
    except (etree.ParserError, etree.XMLSyntaxError, ValueError) as exc:
        raise SpecParseError(f"cannot parse {path} as HTML: {exc}") from None
    if root is None:
        raise SpecParseError(f"{path} holds no HTML elements")
    return root, data


def element_text(el: etree._Element) -> str:
    """The text inside ``el`` and its descendants, in document order (its own tail excluded)."""
    # lxml yields str here; lxml-stubs declares str | bytes for every text it returns.
    return "".join(cast("Iterator[str]", el.itertext()))


def parse_fragment(html: str) -> etree._Element:
    """Parse a stored section's own HTML back into one element (the section element).

    Raises:
        SpecParseError: the text holds no element.
    """
    root = etree.fromstring(f"<html><body>{html}</body></html>".encode(), parser=_FRAGMENT_PARSER)
    body = root.find("body") if root is not None else None
    if body is None or len(body) == 0:
        raise SpecParseError("stored section HTML holds no element")
    return body[0]


_FRAGMENT_PARSER = etree.HTMLParser(huge_tree=True, encoding="utf-8", collect_ids=False)
"""``collect_ids=False``: nothing looks elements up by id in a section's tree, and building the
id table costs about a sixth of the parse on ECMA-262's large sections."""
