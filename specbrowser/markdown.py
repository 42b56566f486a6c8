"""Section HTML → readable Markdown (chunk text).

One pass over the lxml tree, no re-parsing. Block elements become blocks separated by a blank
line; list items and table rows take one line each; inline elements are folded into the
paragraph around them with HTML whitespace collapsing. Rules by element (ecmarkup's names):

- ``h1``–``h6`` → ATX headings (a section's own ``h1`` gives the heading on top of its chunk).
- ``emu-xref``/``a[href]`` → ``[text](#id)``, a multipage page name dropped; absolute URLs kept.
- ``var``, ``emu-val``, ``emu-const``, ``code``, ``emu-t``, inline ``emu-eqn`` → inline code.
- ``ol``/``ul``/``emu-alg`` → numbered/bulleted lists, nested by indentation (a list written
  directly inside a list nests under the previous item).
- ``table`` → a GFM table (``|`` escaped, block content of a cell kept on one line with
  ``<br>``, ``colspan`` padded); ``figcaption`` → a paragraph above it.
- ``emu-grammar`` and bare ``emu-production`` → a ``bnf`` fenced block, one production left side
  per line and one right-hand side per indented line; unexpanded source grammar kept as written.
- ``pre`` → a fenced block with the language from its ``code`` class, text kept byte for byte.
- ``emu-note``/``emu-example`` → a blockquote starting with its label.
- ``sb-section-ref``/``sb-marker`` placeholders → "Subsection available" marker lines.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable
from urllib.parse import unquote

from lxml import etree

from specbrowser.markers import format_marker

MARKER_TAGS = frozenset({"sb-section-ref", "sb-marker"})
"""Placeholders for a child section (written by the parser) and an extracted element (written by
the breakdown); both render as a marker and are never breakdown candidates."""

_BLOCK_TAGS = frozenset({
    "p", "div", "section", "article", "header", "footer", "main", "nav", "aside", "body",
    "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "dl", "dt", "dd", "table", "thead",
    "tbody", "tfoot", "tr", "td", "th", "caption", "figure", "figcaption", "pre", "blockquote", "hr",
    "emu-alg", "emu-grammar", "emu-production", "emu-note", "emu-example", "emu-table",
    "emu-figure", "emu-clause", "emu-annex", "emu-intro", "emu-import", "emu-motivation",
    "details", "summary", *MARKER_TAGS,
})
_CODE_TAGS = frozenset({"var", "emu-val", "emu-const", "code", "emu-t", "emu-eqn", "kbd", "samp"})
_SKIP_TAGS = frozenset({"script", "style", "template", "noscript"})
_WS = re.compile(r"[ \t\n\r\f\v]+")
_HARD_BREAK = "\x00"
"""Stands for ``<br>`` until whitespace is collapsed: a newline in a paragraph, ``<br>`` in a cell."""
_MULTIPAGE_HREF = re.compile(r"^[\w.-]+\.html(#.*)$")


def to_markdown(el: etree._Element) -> str:
    """The Markdown of one element and everything in it.

    ``el`` may be a section element (its own content, child sections as placeholders) or any
    element the breakdown extracted (a table, a cell, a paragraph, a grammar). Returns text with
    blocks separated by one blank line and no leading or trailing whitespace.
    """
    out: list[str] = []
    _block(el, out)
    return "\n\n".join(b for b in out if b)


def text_of(el: etree._Element) -> str:
    """All text inside an element (its tail excluded), like lxml.html's ``text_content()``."""
    return etree.tostring(el, method="text", encoding="unicode", with_tail=False)


def has_text(el: etree._Element) -> bool:
    """Whether an element holds any non-whitespace text or a marker (else it is not extracted)."""
    if el.tag in MARKER_TAGS or next(el.iter(*MARKER_TAGS), None) is not None:
        return True
    return bool(text_of(el).strip())


# --- blocks ---------------------------------------------------------------------------------


def _block(el: etree._Element, out: list[str]) -> None:
    tag = el.tag
    if not isinstance(tag, str) or tag in _SKIP_TAGS:
        return
    handler = _BLOCK_HANDLERS.get(tag)
    if handler is not None:
        handler(el, out)
    elif tag in _BLOCK_TAGS:
        _container(el, out)
    else:
        text = _collapse(_inline(el))
        if text:
            out.append(text)


def _container(el: etree._Element, out: list[str]) -> None:
    """Children in order: runs of inline content become paragraphs, block children render."""
    buf: list[str] = [el.text or ""]
    for child in el:
        tag = child.tag
        if isinstance(tag, str) and (tag in _BLOCK_TAGS or tag in _BLOCK_HANDLERS):
            _flush(buf, out)
            _block(child, out)
            buf = []
        elif isinstance(tag, str) and tag not in _SKIP_TAGS:
            buf.append(_inline(child))
        buf.append(child.tail or "")
    _flush(buf, out)


def _flush(buf: list[str], out: list[str]) -> None:
    text = _collapse("".join(buf))
    if text:
        out.append(text)


def _collapse(text: str) -> str:
    return _WS.sub(" ", text).strip().replace(f" {_HARD_BREAK} ", "\n").replace(_HARD_BREAK, "\n")


def _heading(el: etree._Element, out: list[str]) -> None:
    text = _collapse(_inline_children(el)).replace("\n", " ")
    if text:
        out.append("#" * int(el.tag[1]) + " " + text)


def _paragraph(el: etree._Element, out: list[str]) -> None:
    if any(isinstance(c.tag, str) and c.tag in _BLOCK_TAGS for c in el):
        _container(el, out)
    else:
        text = _collapse(_inline_children(el))
        if text:
            out.append(text)


def _marker(el: etree._Element, out: list[str]) -> None:
    out.append(format_marker(el.get("data-id", ""), el.get("data-title", "")))


def _list(el: etree._Element, out: list[str]) -> None:
    out.append("\n".join(_list_lines(el)))


def _list_lines(el: etree._Element) -> list[str]:
    ordered = el.tag == "ol"
    try:
        number = int(el.get("start", "1"))
    except ValueError:
        number = 1
    lines: list[str] = []
    indent = 3 if ordered else 2
    for child in el:
        tag = child.tag
        if not isinstance(tag, str):
            continue
        if tag in ("ol", "ul"):  # a list written directly inside a list nests under the last item
            lines.extend(" " * indent + line if line else line for line in _list_lines(child))
            continue
        blocks: list[str] = []
        if tag == "li":
            _container(child, blocks)
        else:
            _block(child, blocks)
        body = "\n".join(blocks) if blocks else ""
        prefix = f"{number}. " if ordered else "- "
        number += 1 if ordered else 0
        indent = len(prefix)
        first, *rest = body.split("\n") if body else [""]
        lines.append((prefix + first).rstrip())
        lines.extend(" " * indent + line if line else line for line in rest)
    return lines


def _algorithm(el: etree._Element, out: list[str]) -> None:
    if any(isinstance(c.tag, str) and c.tag in ("ol", "ul") for c in el):
        _container(el, out)
    else:  # ecmarkup source: the steps are plain text, already a Markdown list
        text = textwrap.dedent((text_of(el) or "").strip("\n")).strip()
        if text:
            out.append(text)


def _fence(text: str, language: str = "") -> str:
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{language}\n{text}\n{ticks}"


def _pre(el: etree._Element, out: list[str]) -> None:
    code = el.find("code")
    language = ""
    for cls in ((code if code is not None else el).get("class") or "").split():
        language = cls.removeprefix("language-")
        break
    text = text_of(el).strip("\n")
    if text.strip():
        out.append(_fence(text, language))


def _grammar(el: etree._Element, out: list[str]) -> None:
    productions = [el] if el.tag == "emu-production" else list(el.iter("emu-production"))
    if productions:
        lines: list[str] = []
        for production in productions:
            lines.extend(_production_lines(production))
        text = "\n".join(lines)
    else:  # ecmarkup source: the grammar is plain text
        text = textwrap.dedent((text_of(el) or "").strip("\n")).strip()
    if text:
        out.append(_fence(text, "bnf"))


def _production_lines(production: etree._Element) -> list[str]:
    lhs, geq, one_of, rhs = "", ":", "", []
    for child in production:
        tag = child.tag
        if tag == "emu-nt" and not lhs:
            lhs = _token_text(child)
        elif tag == "emu-geq":
            geq = _token_text(child)
        elif tag == "emu-oneof":
            one_of = " one of"
        elif tag == "emu-rhs":
            rhs.append("    " + " ".join(_token_text(t) for t in child if isinstance(t.tag, str)))
    return [f"{lhs} {geq}{one_of}", *rhs]


def _token_text(el: etree._Element) -> str:
    return " ".join(text_of(el).split())


def _note(el: etree._Element, out: list[str]) -> None:
    label_el = el.find("span")
    label = _collapse(text_of(label_el)) if label_el is not None and label_el.get("class") == "note" else ""
    if not label:
        label = "Example" if el.tag == "emu-example" else "Note"
    blocks: list[str] = []
    for child in el:
        if child is label_el:
            continue
        _block(child, blocks)
    body = "\n\n".join(blocks)
    lines = [f"> **{label}**", ">"] + [f"> {line}" if line else ">" for line in body.split("\n")]
    out.append("\n".join(lines if body else lines[:1]))


def _table(el: etree._Element, out: list[str]) -> None:
    rows: list[list[str]] = []  # the first row is the GFM header row
    for tr in el.iter("tr"):
        if _owner_table(tr) is not el:
            continue
        cells: list[str] = []
        for cell in tr:
            if cell.tag in MARKER_TAGS:
                cells.append(_inline(cell))
                continue
            if cell.tag not in ("td", "th"):
                continue
            cells.append(_cell_text(cell))
            try:
                span = int(cell.get("colspan", "1"))
            except ValueError:
                span = 1
            cells.extend([""] * max(0, min(span, 100) - 1))
        if cells:
            rows.append(cells)
    caption = el.find("caption")
    if caption is not None:
        _paragraph(caption, out)
    if not rows:
        return
    width = max(len(r) for r in rows)
    rows = [r + [""] * (width - len(r)) for r in rows]
    header, body = (rows[0], rows[1:])
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(["---"] * width) + "|"]
    lines.extend("| " + " | ".join(r) + " |" for r in body)
    out.append("\n".join(lines))


def _owner_table(tr: etree._Element) -> etree._Element | None:
    for ancestor in tr.iterancestors("table"):
        return ancestor
    return None


def _cell_text(cell: etree._Element) -> str:
    blocks: list[str] = []
    _container(cell, blocks)
    text = "<br>".join(b.replace("\n", "<br>") for b in blocks)
    return text.replace("|", "\\|")


_BLOCK_HANDLERS: dict[str, Callable[[etree._Element, list[str]], None]] = {
    **{f"h{n}": _heading for n in range(1, 7)},
    "p": _paragraph, "figcaption": _paragraph, "dt": _paragraph, "summary": _paragraph,
    "ol": _list, "ul": _list, "emu-alg": _algorithm,
    "pre": _pre, "emu-grammar": _grammar, "emu-production": _grammar,
    "emu-note": _note, "emu-example": _note, "table": _table,
    "hr": lambda el, out: out.append("---"),
    **{tag: _marker for tag in MARKER_TAGS},
}


# --- inline ---------------------------------------------------------------------------------


def _inline_children(el: etree._Element) -> str:
    parts = [el.text or ""]
    for child in el:
        if isinstance(child.tag, str) and child.tag not in _SKIP_TAGS:
            parts.append(_inline(child))
        parts.append(child.tail or "")
    return "".join(parts)


def _inline(el: etree._Element) -> str:
    tag = el.tag
    if tag in _CODE_TAGS:
        return _code_span(text_of(el))
    if tag == "a":
        return _link(el)
    if tag == "br":
        return f" {_HARD_BREAK} "
    if tag in MARKER_TAGS:
        return format_marker(el.get("data-id", ""), el.get("data-title", ""))
    inner = _inline_children(el)
    if tag in ("b", "strong") and inner.strip():
        return f"**{inner.strip()}**"
    if tag in ("i", "em", "dfn") and inner.strip():
        return f"*{inner.strip()}*"
    if tag == "sup" and inner.strip():
        return f"^{inner.strip()}"
    return inner


def _code_span(text: str) -> str:
    text = " ".join(text.split())
    if not text:
        return ""
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def _link(el: etree._Element) -> str:
    text = _collapse(_inline_children(el))
    href = el.get("href") or ""
    if not text:
        return ""
    if not href:
        return text
    match = _MULTIPAGE_HREF.match(href)
    if match:
        href = match.group(1)
    elif href.startswith("./#"):
        href = href[2:]
    if href.startswith("#"):  # multipage percent-encodes anchors (#%E2%84%9D); one form for both
        href = "#" + unquote(href[1:])
    return f"[{text}]({href})"
