"""Section HTML → Markdown (chunk text), configured by a :class:`MarkdownConfig` of selectors.

One pass over the lxml tree. The config's CSS selectors give elements a role (grammar, code
block, table, list, note, link, inline code, skip); other elements keep their HTML meaning.
Block elements become blocks separated by one blank line; list items and table rows take one
line each; inline content is folded into its paragraph with HTML whitespace collapsing.

A spec format adds the element names of its own vocabulary (:class:`MarkdownElements`: block
elements, algorithm steps, examples, grammar productions); the examples below use ecmarkup's.

Rules:

- links: ``[text](#id)``; a multipage page name is dropped (``abstract-operations.html#x`` →
  ``#x``); a fragment as written but for escaped non-ASCII, which is decoded
  (``#%E2%84%9D`` → ``#ℝ``, as lxml writes stored HTML; ``%ab`` in an ecmarkup id and ``%2F``
  stay: :func:`~specbrowser.chunking.fragments.decode_non_ascii`; a spec format points a link
  at the id it names before conversion); absolute URLs kept as written, a space as ``%20``.
  In a heading, a permalink mark (``¶``, ``#``) is dropped and a link to a fragment that
  holds the whole heading is written as its text.
- inline code (``var``, ``emu-val``, ``emu-const``, ``code``, inline ``emu-eqn``): raw text, never
  escaped, whitespace collapsed as HTML shows it (a leading or trailing space kept); a
  delimiter longer than any backtick run inside, padded when the code starts or ends with a
  backtick or with spaces on both sides (CommonMark strips one); a ``<br>`` inside ends one
  span and starts the next on a new line; two adjacent code spans get a space between them.
- code blocks: ``pre`` fenced with the language its classes name (:func:`code_language`: a
  ``lang-``/``language-`` class, else the first class that is not a renderer's), text byte
  for byte;
  block ``emu-eqn`` fenced; no links or Markdown inside fences.
- grammar: a ``bnf`` fence, one line per production left side with its parameters and ``:``,
  ``::`` or ``:::`` (plus ``one of``), one indented line per right-hand side in source order,
  ``opt`` markers, lookahead and other annotations, ``but not`` as written; unexpanded
  source grammar kept as written.
- lists: ``1.``/``-`` items, nested lists indented by the width of their parent's marker; a
  list written directly inside a list nests under the previous item; ecmarkup's hidden
  step labels are skipped so steps are numbered once.
- tables: GFM, caption above as a paragraph; ``|`` escaped everywhere (inside code too);
  blocks and ``<br>`` in a cell kept on one line joined by ``<br>``; ``colspan``/``rowspan``
  padded so every row has the same number of cells.
- notes, examples and warnings: a blockquote starting with the label (``Note``, ``Note 2``,
  ``Example``, ``Warning``); any other ``aside`` (content set apart) is a blockquote of its
  blocks: xml2rfc's notes (``<aside><p><strong>Note:</strong> …``) keep their bold label as
  their first words, so a paragraph broken out of one keeps it too.
- text: ``<`` and entity-like ``&`` escaped so they show literally; a paragraph that
  would start a heading, list or quote is escaped at its start.
- edits (a proposal's ``del``/``ins``, :attr:`MarkdownConfig.edits`): ``current`` drops
  deleted text (and a list item that holds nothing else) before anything is converted and keeps
  inserted text as plain text; ``marked`` writes ``~~deleted~~`` and ``++inserted++``, inside
  grammar symbols too (a nonterminal's parameters), with the spaces at an edit's edges outside
  its marks, as for ``**bold**`` and ``*emphasis*`` (an edit that holds blocks: a blockquote
  labelled "Deleted"/"Inserted").
- math: ``sup`` as ``^`` and ``sub`` as ``_``, grouped in parentheses unless one word
  (``2^64``, ``radix^(k - 1)``, ``0_𝔽``), in prose and inside code spans and equations, and in a
  source algorithm's plain-text steps (a code span inside the script as its text); an ordinal
  suffix (``n<sup>th</sup>``) stays glued.
- grammar's optional mark (``opt``) as ``?`` after its symbol (``Initializer?``), as ecmarkup's
  source grammar writes it.
- a custom element the format does not know (an ``emu-table`` in a plain HTML page) that holds
  a block is a block container, as a browser shows it; else it is inline.
- nesting deeper than :data:`MAX_NESTING` elements: the deeper content as plain text.
- placeholders ``sb-section-ref``/``sb-marker``: "Subsection available" marker lines.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable
from functools import lru_cache
from typing import NamedTuple, cast

from cssselect import SelectorError
from cssselect import parse as css_parse
from cssselect.parser import Attrib as CssAttrib
from cssselect.parser import Class as CssClass
from cssselect.parser import Element as CssElement
from cssselect.parser import Negation as CssNegation
from lxml import etree
from lxml.cssselect import CSSSelector

from specbrowser.chunking.fragments import decode_non_ascii
from specbrowser.chunking.gfm import to_cell
from specbrowser.chunking.markdown_config import MarkdownConfig
from specbrowser.chunking.markdown_tables import (
    cell_span,
    fill_carried,
    format_table,
    has_header_row,
    own_rows,
)
from specbrowser.chunking.markdown_text import (
    EDIT_TAGS,
    MARKER_TAGS,
    drop_deleted,
    markdown_math_text,
    math_text,
    script_text,
    text_of,
)
from specbrowser.chunking.markers import format_marker

DEFAULT_CONFIG = MarkdownConfig()

LIST_ITEMS_ATTR = "data-items"
"""On a marker standing in a list for a run of the list's items (the guarded breakdown packs
them): how many items. The marker renders on a line of its own, without an item prefix, and
the items after it keep their numbers."""

BLOCK_TAGS = frozenset(
    {
        "p",
        "div",
        "section",
        "article",
        "header",
        "footer",
        "main",
        "nav",
        "aside",
        "body",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "ul",
        "ol",
        "li",
        "dl",
        "dt",
        "dd",
        "table",
        "thead",
        "tbody",
        "tfoot",
        "tr",
        "td",
        "th",
        "caption",
        "figure",
        "figcaption",
        "pre",
        "blockquote",
        "hr",
        "details",
        "summary",
        *MARKER_TAGS,
    }
)
"""HTML elements that start a block of their own when they stand among inline content (a
format adds its own: :attr:`MarkdownElements.block_tags`)."""


class GrammarElements(NamedTuple):
    """The element names of an expanded grammar production: one production holds its left-hand
    nonterminal, its ``:``/``::``/``:::`` sign, an optional "one of", and right-hand sides;
    ``optional`` is the mark of an optional symbol ("" when the format has none)."""

    production: str
    nonterminal: str
    geq: str
    one_of: str
    rhs: str
    optional: str = ""


class MarkdownElements(NamedTuple):
    """A spec format's own element names, which the converter needs beyond the roles of a
    :class:`MarkdownConfig`. Not part of a policy: a format's fixed vocabulary
    (:attr:`specbrowser.chunking.rules.ChunkingRules.markdown_elements`).

    Attributes:
        block_tags: elements that start a block (besides :data:`BLOCK_TAGS`).
        algorithm_tags: algorithm containers: their list renders as a list, and without one
            (source form) their text is already a Markdown list, kept as written.
        example_tags: notes labelled "Example" when they carry no label of their own.
        grammar: the production elements a ``grammar`` role element holds when expanded; None
            when the format has none (grammar text is then kept as written).
    """

    block_tags: frozenset[str] = frozenset()
    algorithm_tags: frozenset[str] = frozenset()
    example_tags: frozenset[str] = frozenset()
    grammar: GrammarElements | None = None


HTML_ELEMENTS = MarkdownElements()
"""Plain HTML: no elements beyond HTML's own."""

COLUMNS_ATTR = "data-sb-columns"
"""Set by the ``tr`` breakdown on a split table and its row groups: the column count of the whole
table, so every part is padded as the whole was."""

_LIST_ROLES = ("ordered_list", "unordered_list")

_BLOCK_ROLES = frozenset(
    {"grammar", "code_block", "table", "ordered_list", "unordered_list", "note"}
)
_ROLE_ORDER = (
    "skip",
    "grammar",
    "code_block",
    "table",
    "ordered_list",
    "unordered_list",
    "note",
    "link",
    "inline_code",
)
_ROLE_RANK = {role: rank for rank, role in enumerate(_ROLE_ORDER)}
"""A role's place in :data:`_ROLE_ORDER` (0 ranks first)."""
MAX_NESTING = 100
"""How many elements deep the converter walks with its rules; below that depth an element's
content is written as its plain text (words kept, formatting dropped), so that no input nests
the converter past Python's recursion limit. ECMA-262 nests at most about 30 deep."""

_EDIT_LABELS = {"deleted": ("~~", "Deleted"), "inserted": ("++", "Inserted")}
_NOT_LANGUAGES = frozenset(
    {"highlight", "hljs", "def", "example", "sourcecode", "prettyprint", "notranslate",
     "line-numbers", "extract", "code", "source", "snippet", "literal-block", "railroad"}
)  # fmt: skip
"""Classes that code blocks carry for their renderer, not their language."""
_NO_LANGUAGE = frozenset({"nohighlight", "no-highlight", "plaintext"})
"""Classes that say a code block has no language to name."""
_NOTE_LABEL_CLASSES = frozenset({"note", "marker"})
"""A note's own label: ecmarkup's ``<span class="note">Note 2</span>``, Bikeshed's
``<span class="marker">Note:</span>``."""
_PERMALINK_TEXTS = frozenset({"", "¶", "#", "§", "🔗", "\u200b"})
_WS = re.compile(r"[ \t\n\r\f\v]+")
_HARD_BREAK = "\x00"
"""Stands for ``<br>`` until whitespace is collapsed: a newline in a paragraph, ``<br>`` in a
cell."""
_CODE_PAD = "\x01"
"""Stands for the space that pads a code span (:func:`code_span`) until whitespace is
collapsed, so that collapsing never merges it with the span's own leading or trailing space."""
_HTML_SPACE = " \t\n\r\f"
_MULTIPAGE_HREF = re.compile(r"^[\w.%-]+\.html(#.*)$")
_NEEDS_ANGLE_BRACKETS = re.compile(r"[ ()<>]")
_ESCAPE_TEXT = re.compile(r"\\(?=[!-/:-@\[-`{-~])|<|&(?=#?\w+;)|`")
_BLOCK_START = re.compile(r"^(?:#{1,6}(?:\s|$)|[-+*](?:\s|$)|>|=+\s*$|\d{1,9}[.)](?:\s|$))")
_BLOCK_START_MARKS = frozenset("#-+*>=")
"""The first characters :data:`_BLOCK_START` can match besides a decimal digit (``\\d``:
:meth:`str.isdecimal`)."""
_BACKTICKS = re.compile(r"`+")

Roles = dict[etree._Element, str]


_TAG_NAME = re.compile(r"[A-Za-z][\w-]*")

_XPATH_SPACE = re.compile(r"[ \t\n\r]+")
"""What XPath's ``normalize-space`` counts as space: where ``cssselect``'s class test splits a
``class`` attribute into names."""


class _SimpleSelector(NamedTuple):
    """A selector of one element name with classes, attributes present and negated classes
    (``span.list-marker``, ``a[href]``, ``emu-eqn:not(.inline)``), tested in Python during the
    one walk :func:`resolve_roles` makes over its element names. It matches what ``cssselect``'s
    XPath for it selects."""

    rank: int
    role: str
    classes: frozenset[str]
    not_classes: frozenset[str]
    attributes: tuple[str, ...]

    def matches(self, el: etree._Element, names: frozenset[str]) -> bool:
        """Whether ``el`` matches, ``names`` being its class names."""
        for name in self.attributes:
            if el.get(name) is None:
                return False
        return self.classes <= names and names.isdisjoint(self.not_classes)


def class_names(el: etree._Element) -> frozenset[str]:
    """The names in ``el``'s ``class`` attribute, split as ``cssselect``'s XPath splits them."""
    value = el.get("class")
    return frozenset(_XPATH_SPACE.split(value)) if value else _NO_NAMES


_NO_NAMES: frozenset[str] = frozenset()


def _simple_selector(text: str, rank: int, role: str) -> tuple[str, _SimpleSelector] | None:
    """``text`` as an element name and a :class:`_SimpleSelector`, or None when it is not of
    that form (another combinator, an id, an attribute value, any element name)."""
    try:
        (parsed,) = css_parse(text)
    except (SelectorError, ValueError):
        return None
    if parsed.pseudo_element is not None:
        return None
    tree = parsed.parsed_tree
    classes: set[str] = set()
    not_classes: set[str] = set()
    attributes: list[str] = []
    while not isinstance(tree, CssElement):
        if isinstance(tree, CssClass):
            classes.add(tree.class_name)
        elif isinstance(tree, CssAttrib) and tree.operator == "exists" and not tree.namespace:
            attributes.append(tree.attrib)
        elif (
            isinstance(tree, CssNegation)
            and isinstance(tree.subselector, CssClass)
            and isinstance(tree.subselector.selector, CssElement)
            and tree.subselector.selector.element in (None, "*")
        ):
            not_classes.add(tree.subselector.class_name)
        else:
            return None
        tree = tree.selector
    if tree.namespace is not None or not tree.element or not _TAG_NAME.fullmatch(tree.element):
        return None
    selector = _SimpleSelector(
        rank, role, frozenset(classes), frozenset(not_classes), tuple(attributes)
    )
    return tree.element, selector


class _RoleSelectors(NamedTuple):
    """A config's selectors, compiled for :func:`resolve_roles`.

    Attributes:
        by_name: per element name among the selectors, the first role (in precedence order)
            that names it.
        simple: per element name, the :class:`_SimpleSelector` s of that name, in precedence
            order.
        css: per role with selectors of other forms, in precedence order: its rank, the role
            and one compiled selector for those.
        class_tags: the element names in ``simple`` with a selector that tests classes (an
            element of any other name needs no class names read).
    """

    by_name: dict[str, str]
    simple: dict[str, tuple[_SimpleSelector, ...]]
    css: tuple[tuple[int, str, CSSSelector], ...]
    class_tags: frozenset[str]


@lru_cache(maxsize=16)
def _selectors(config: MarkdownConfig) -> _RoleSelectors:
    """The config's roles as :class:`_RoleSelectors`: the bare element names and the simple
    selectors apart, as one ``iter`` over their names (libxml2's own walk) finds what their
    XPath would in a walk each, and one selector per role for the rest."""
    by_name: dict[str, str] = {}
    simple: dict[str, list[_SimpleSelector]] = {}
    css: list[tuple[int, str, CSSSelector]] = []
    for rank, role in enumerate(_ROLE_ORDER):
        others: list[str] = []
        for text in getattr(config, role):
            if _TAG_NAME.fullmatch(text):
                by_name.setdefault(text, role)
            elif (found := _simple_selector(text, rank, role)) is not None:
                simple.setdefault(found[0], []).append(found[1])
            else:
                others.append(text)
        if others:
            css.append((rank, role, CSSSelector(", ".join(others))))
    class_tags = frozenset(
        tag for tag, tests in simple.items() if any(t.classes or t.not_classes for t in tests)
    )
    return _RoleSelectors(by_name, {k: tuple(v) for k, v in simple.items()}, tuple(css), class_tags)


def resolve_roles(el: etree._Element, config: MarkdownConfig = DEFAULT_CONFIG) -> Roles:
    """The role of every element under ``el`` (itself included) that a selector matches; an
    element several roles select gets the first of them in precedence order
    (:data:`_ROLE_ORDER`: ``skip`` first, ``inline_code`` last).

    Applies the config's edit mode to the tree first: with ``current`` edits, deleted text is
    removed from ``el`` (:func:`drop_deleted`), so that no later step (the breakdown included)
    sees it; with ``marked`` edits, ``del``/``ins`` get the roles ``deleted``/``inserted``.

    Element names and simple selectors (:class:`_SimpleSelector`) are found in one walk over
    their names; other selectors walk the tree once per role (ECMA-262's 2,254 sections: 80-90 ms
    against 100-130 ms with a walk per selector).

    The breakdown computes this once per section and passes it to every :func:`to_markdown` of
    that section's elements.
    """
    if config.edits == "current":
        drop_deleted(el)
    compiled = _selectors(config)
    by_name, simple, class_tags = compiled.by_name, compiled.simple, compiled.class_tags
    roles: Roles = {}
    if by_name or simple:  # (no name at all: iter() would walk every element)
        for match in el.iter(*by_name, *simple):
            tag = match.tag
            role = by_name.get(tag)
            tests = simple.get(tag)
            if tests:
                names = class_names(match) if tag in class_tags else _NO_NAMES
                for test in tests:  # in precedence order: the first that matches ranks first
                    if role is not None and _ROLE_RANK[role] <= test.rank:
                        break
                    if test.matches(match, names):
                        role = test.role
                        break
            if role is not None:
                roles[match] = role
    for rank, role, selector in compiled.css:
        for match in cast("list[etree._Element]", selector(el)):  # CSS selects elements
            held = roles.get(match)
            if held is None or _ROLE_RANK[held] > rank:
                roles[match] = role
    if config.edits == "marked":
        for edit in el.iter(*EDIT_TAGS):
            roles.setdefault(edit, "deleted" if edit.tag == "del" else "inserted")
    return roles


BlockCache = dict[etree._Element, list[str]]
"""Rendered blocks per element. Valid while the element's subtree is unchanged: whoever edits a
tree drops the entries of the edited element and all its ancestors (see the breakdown)."""


def to_markdown(
    el: etree._Element,
    config: MarkdownConfig = DEFAULT_CONFIG,
    roles: Roles | None = None,
    cache: BlockCache | None = None,
    elements: MarkdownElements = HTML_ELEMENTS,
) -> str:
    """The Markdown of one element and everything in it.

    ``el`` may be a section element (its own content, child sections as placeholders) or any
    element the breakdown extracted (a table, a cell, a paragraph, a grammar). Returns text with
    blocks separated by one blank line and no leading or trailing whitespace. ``roles`` from
    :func:`resolve_roles` on ``el`` or an ancestor may be passed to save resolving them again;
    a ``cache`` kept across calls on the same tree saves rendering unchanged blocks again (with
    the same ``elements``, the spec format's vocabulary).
    """
    return "\n\n".join(to_blocks(el, config, roles, cache, elements))


def to_blocks(
    el: etree._Element,
    config: MarkdownConfig = DEFAULT_CONFIG,
    roles: Roles | None = None,
    cache: BlockCache | None = None,
    elements: MarkdownElements = HTML_ELEMENTS,
) -> list[str]:
    """The Markdown blocks of one element, in order (what :func:`to_markdown` joins)."""
    out: list[str] = []
    roles = resolve_roles(el, config) if roles is None else roles
    _Converter(roles, cache, elements).block(el, out)
    return [b for b in out if b]


def list_item_number(item: etree._Element, roles: Roles) -> int:
    """The number :func:`to_markdown` gives the list item ``item`` in its parent list (counted
    from the list's ``start``, item markers included); 1 when it has no parent."""
    parent = item.getparent()
    if parent is None:
        return 1
    try:
        number = int(parent.get("start", "1"))
    except ValueError:
        number = 1
    for child in parent:
        if child is item:
            break
        if not isinstance(child.tag, str) or roles.get(child) in ("skip", *_LIST_ROLES):
            continue
        items = child.get(LIST_ITEMS_ATTR) if child.tag in MARKER_TAGS else None
        number += int(items) if items else 1
    return number


def is_block(el: etree._Element, roles: Roles, elements: MarkdownElements = HTML_ELEMENTS) -> bool:
    """Whether the converter renders ``el`` as a block of its own (not inline content)."""
    return _Converter(roles, None, elements).is_block(el)


def escape_text(text: str) -> str:
    """Escape plain text so Markdown shows it literally: a backslash before punctuation, ``<``
    (no raw HTML), ``&`` that would read as an entity, and a backtick, which would pair with
    another into a code span (WHATWG quotes a header name in backticks around its code:
    `` `<code>Origin</code>` `` reads ``\\``Origin`\\```). Brackets stay (``[[Target]]``)."""
    if "\\" in text or "<" in text or "&" in text or "`" in text:
        return _ESCAPE_TEXT.sub(_backslash, text)
    return text


def _backslash(match: re.Match[str]) -> str:
    return "\\" + match.group(0)


_ITEM_LINE = re.compile(r"([ \t]*)(\d+[.)]|[-*+])([ \t]+|$)")


def nest_steps(text: str) -> str:
    """An algorithm's steps as written in source (ecmarkdown indents a nested step by two
    spaces) with each nested step indented to its parent's text, as CommonMark nests a list
    (under ``10. `` by four spaces): else a step under ``5.`` would read as one more step of
    the outer list. Other lines move with the step they continue; blank lines stay blank."""
    lines = text.split("\n")
    if not any(line[:1] in (" ", "\t") for line in lines):
        return text
    # (source indentation, source text column, written text column) of each open item
    open_items: list[tuple[int, int, int]] = []
    out: list[str] = []
    for line in lines:
        if not line.strip():
            out.append("")
            continue
        body = line.lstrip(" \t")
        indent = len(line[: len(line) - len(body)].expandtabs(4))
        while open_items and open_items[-1][0] >= indent:  # items this line is not inside
            open_items.pop()
        item = _ITEM_LINE.match(line)
        if item:
            parent = open_items[-1][2] if open_items else 0
            marker = item.group(2)
            open_items.append((indent, indent + len(marker) + 1, parent + len(marker) + 1))
            out.append(" " * parent + body)
        elif open_items:
            source_column, column = open_items[-1][1], open_items[-1][2]
            out.append(" " * (column + max(0, indent - source_column)) + body)
        else:
            out.append(line)
    return "\n".join(out)


def fence(text: str, language: str = "") -> str:
    """A fenced code block longer than any backtick run inside ``text``."""
    longest = max((len(m) for m in _BACKTICKS.findall(text)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{language}\n{text}\n{ticks}"


def code_language(code_classes: str, pre_classes: str, parent_classes: str = "") -> str:
    """The language a code block's classes name ("" for none), from the ``class`` attributes
    of its ``code``, its ``pre`` and the ``pre``'s parent, in that order: a ``language-x`` or
    ``lang-x`` class (highlight.js, Prism, Bikeshed, xml2rfc's ``div.lang-abnf``) anywhere
    first, else the ``code``'s or ``pre``'s first class that is not a renderer's own
    (:data:`_NOT_LANGUAGES`: ``highlight``, ``def``, ``example``, ``hljs`` …)."""
    for classes in (code_classes, pre_classes, parent_classes):
        for name in classes.split():
            prefix, dash, language = name.partition("-")
            if dash and prefix in ("language", "lang") and language:
                return language
    for classes in (code_classes, pre_classes):
        for name in classes.split():
            if name.lower() in _NO_LANGUAGE:
                return ""
            if name.lower() not in _NOT_LANGUAGES:
                return name
    return ""


def code_span(text: str, pad: str = " ") -> str:
    """An inline code span for ``text``, or "" for text that is only whitespace.

    Whitespace collapses as HTML collapses it, each run one space, a leading or trailing run
    kept: ``<code> https://a.b </code>`` shows its spaces. CommonMark strips one space from
    each side of a span's content that begins and ends with one, and a backtick at either end
    would join the delimiter: then the content is padded with one ``pad`` character on each
    side (the converter passes a stand-in that survives its whitespace collapsing)."""
    words = text.split()
    if not words:
        return ""
    if len(words) == 1 and len(words[0]) == len(text) and "`" not in text:  # one plain word
        return f"`{text}`"
    lead = " " if text[0] in _HTML_SPACE else ""
    trail = " " if text[-1] in _HTML_SPACE else ""
    text = lead + " ".join(words) + trail
    longest = max(map(len, _BACKTICKS.findall(text))) if "`" in text else 0
    ticks = "`" * (longest + 1)
    if (lead and trail) or text[0] == "`" or text[-1] == "`":
        return f"{ticks}{pad}{text}{pad}{ticks}"
    return f"{ticks}{text}{ticks}"


class _Converter:
    """Walks one element tree with the roles resolved for it."""

    __slots__ = ("block_tags", "cache", "depth", "elements", "inline_tags", "roles", "tag_handlers")

    def __init__(self, roles: Roles, cache: BlockCache | None, elements: MarkdownElements) -> None:
        self.roles = roles
        self.cache = cache
        self.elements = elements
        self.block_tags, self.tag_handlers, self.inline_tags = _vocabulary(elements)
        self.depth = 0
        """How many :meth:`block`/:meth:`inline` calls are open (see :data:`MAX_NESTING`)."""

    # --- blocks -----------------------------------------------------------------------------

    def block(self, el: etree._Element, out: list[str]) -> None:
        """``el``'s blocks appended to ``out``: from the block cache when it holds them, else
        rendered (and cached); below :data:`MAX_NESTING` as one paragraph of its text."""
        if self.depth >= MAX_NESTING:
            self.paragraph_of(escape_text(text_of(el)), out)
            return
        cache = self.cache
        if cache is not None:
            cached = cache.get(el)
            if cached is not None:
                out.extend(cached)
                return
        start = len(out)
        self.depth += 1
        try:
            self._block(el, out)
        finally:
            self.depth -= 1
        if cache is not None:
            cache[el] = out[start:]

    def contained(self, el: etree._Element, out: list[str]) -> None:
        """:meth:`container` of a list item or table cell, through the block cache when the
        element has no role (then its :meth:`block` is exactly its container)."""
        if self.cache is None or el in self.roles:
            self.container(el, out)
        else:
            self.block(el, out)

    def _block(self, el: etree._Element, out: list[str]) -> None:
        tag = el.tag
        if not isinstance(tag, str):
            return
        role = self.roles.get(el)
        if role is not None:
            if role == "skip":
                return
            handler = _ROLE_HANDLERS.get(role)
            if handler is not None:
                handler(self, el, out)
                return
        if tag in EDIT_TAGS and self.is_block(el):
            self.edit_block(el, out)
            return
        if tag == "aside" and role is None:  # set apart: xml2rfc's notes (**Note:** first)
            blocks: list[str] = []
            self.container(el, blocks)
            out.append(_quote(blocks))
            return
        handler = self.tag_handlers.get(tag)
        if handler is not None:
            handler(self, el, out)
        elif tag in self.block_tags or (role is None and "-" in tag and self.holds_block(el)):
            self.container(el, out)
        else:
            self.paragraph_of(self.inline(el, tag, role), out)

    def is_block(self, el: etree._Element) -> bool:
        tag = el.tag
        return isinstance(tag, str) and self.is_block_as(el, tag, self.roles.get(el))

    def is_block_as(self, el: etree._Element, tag: str, role: str | None) -> bool:
        """:meth:`is_block` of an element whose tag and role the caller has read."""
        if role is not None and role not in _EDIT_LABELS:
            return role in _BLOCK_ROLES
        if tag in EDIT_TAGS:  # an edit is a block when it holds one
            return self.depth < MAX_NESTING and any(self.is_block(c) for c in el)
        if tag in self.block_tags:
            return True
        return "-" in tag and role is None and self.holds_block(el)

    def holds_block(self, el: etree._Element) -> bool:
        """Whether a custom element the format does not know (``emu-table`` in a plain HTML
        page) holds a block, itself or through other such elements: then it is a block, as a
        browser shows the table inside it."""
        stack = [el]
        while stack:
            for child in stack.pop():
                tag = child.tag
                if not isinstance(tag, str):
                    continue
                role = self.roles.get(child)
                if role in _BLOCK_ROLES or (role is None and tag in self.block_tags):
                    return True
                if role is None and "-" in tag:
                    stack.append(child)
        return False

    def edit_block(self, el: etree._Element, out: list[str]) -> None:
        """An edit holding blocks: its blocks, in a blockquote labelled by the edit when
        marked."""
        role = self.roles.get(el)
        if role not in _EDIT_LABELS:
            self.container(el, out)
            return
        blocks: list[str] = []
        self.container(el, blocks)
        out.append(_labelled_quote(_EDIT_LABELS[role][1], blocks))

    def container(self, el: etree._Element, out: list[str]) -> None:
        """Children in order: runs of inline content become paragraphs, block children render."""
        text = el.text  # lxml makes a new str on each read of .text or .tail: read once
        buf: list[str] = [escape_text(text)] if text else []
        roles = self.roles
        for child in el:
            tag = child.tag
            if isinstance(tag, str):  # not a comment
                role = roles.get(child)
                if self.is_block_as(child, tag, role):
                    self.paragraph_of(_join_inline(buf), out)
                    buf = []
                    self.block(child, out)
                elif role != "skip":
                    buf.append(self.inline(child, tag, role))
            tail = child.tail
            if tail:
                buf.append(escape_text(tail))
        self.paragraph_of(_join_inline(buf), out)

    @staticmethod
    def paragraph_of(text: str, out: list[str]) -> None:
        text = _collapse(text)
        if text:
            first = text[0]
            if (first in _BLOCK_START_MARKS or first.isdecimal()) and _BLOCK_START.match(text):
                text = _escape_block_start(text)
            out.append(text)

    def heading(self, el: etree._Element, out: list[str]) -> None:
        self.unlink_heading(el)
        text = _collapse(self.inline_children(el)).replace("\n", " ")
        if text:
            out.append("#" * int(el.tag[1]) + " " + text)

    def unlink_heading(self, el: etree._Element) -> None:
        """A heading's own anchors are no links: a permalink mark (a fragment link whose text
        is only ``¶``, ``#``, ``§`` …: Sphinx, GitHub, Bikeshed) is dropped, and a fragment link
        to the heading itself or its section (:func:`_own_ids`: xml2rfc's ``selfRef`` number and
        name) or holding the whole heading text (mdBook's ``a.header``) is written as its
        text."""
        whole = " ".join(text_of(el).split())
        own = _own_ids(el, heading=True)
        for link in el.iter("a"):
            href = link.get("href") or ""
            if not href.startswith("#") or self.roles.get(link) not in (None, "link"):
                continue
            text = " ".join(text_of(link).split())
            if "".join(text.split()) in _PERMALINK_TEXTS:
                self.roles[link] = "skip"
            elif text == whole or href[1:] in own:
                self.roles[link] = "unlinked"

    def paragraph(self, el: etree._Element, out: list[str]) -> None:
        self.container(el, out)

    def marker(self, el: etree._Element, out: list[str]) -> None:
        out.append(format_marker(el.get("data-id", ""), el.get("data-title", "")))

    def hr(self, el: etree._Element, out: list[str]) -> None:
        out.append("---")

    def list_(self, el: etree._Element, out: list[str]) -> None:
        lines = self.list_lines(el)
        if lines:
            out.append("\n".join(lines))

    def list_lines(self, el: etree._Element) -> list[str]:
        ordered = self.roles.get(el) == "ordered_list" or (el.tag == "ol" and el not in self.roles)
        try:
            number = int(el.get("start", "1"))
        except ValueError:
            number = 1
        lines: list[str] = []
        pad = "   " if ordered else "  "  # the width of the previous item's marker
        roles = self.roles
        for child in el:
            tag = child.tag
            if not isinstance(tag, str):
                continue
            role = roles.get(child)
            if role == "skip":
                continue
            items = child.get(LIST_ITEMS_ATTR) if tag in MARKER_TAGS else None
            if items:  # the marker of a run of items: on a line of its own, numbering goes on
                self.marker(child, lines)
                number += int(items)
                continue
            if role in _LIST_ROLES:  # a list directly inside a list
                lines.extend(pad + line if line else line for line in self.list_lines(child))
                continue
            blocks: list[str] = []
            if tag == "li":
                self.contained(child, blocks)
            else:
                self.block(child, blocks)
            prefix = f"{number}. " if ordered else "- "
            number += 1
            pad = " " * len(prefix)
            first, *rest = _join_item_blocks(blocks).split("\n")
            lines.append((prefix + first).rstrip())
            if rest:
                lines.extend([pad + line if line else line for line in rest])
        return lines

    def algorithm(self, el: etree._Element, out: list[str]) -> None:
        """A rendered algorithm (its list, or the marker of an extracted list) as blocks; the
        source form (steps as plain text, already a Markdown list) as its text, its ``sup`` and
        ``sub`` written as in a rendered one (:func:`markdown_math_text`)."""
        if any(
            self.roles.get(c) in ("ordered_list", "unordered_list") or c.tag in MARKER_TAGS
            for c in el
        ):
            self.container(el, out)
        else:  # source form: the steps are plain text, already a Markdown list
            text = textwrap.dedent(markdown_math_text(el).strip("\n")).strip()
            if text:
                out.append(nest_steps(text))

    def code_block(self, el: etree._Element, out: list[str]) -> None:
        language = ""
        if el.tag == "pre":
            code = el.find("code")
            parent = el.getparent()
            language = code_language(
                "" if code is None else code.get("class") or "",
                el.get("class") or "",
                "" if parent is None else parent.get("class") or "",
            )
            text = text_of(el).strip("\n")
        elif any(self.is_block(child) for child in el):  # a block equation: a line per block
            text = "\n".join(
                filter(None, (" ".join(math_text(c).split()) for c in el if isinstance(c.tag, str)))
            )
        else:
            text = " ".join(math_text(el).split())
        if text.strip():
            out.append(fence(text, language))

    def grammar(self, el: etree._Element, out: list[str]) -> None:
        names = self.elements.grammar
        productions = []
        if names is not None:
            tag = names.production
            productions = [el] if el.tag == tag else list(el.iter(tag))
        if names is not None and productions:
            lines: list[str] = []
            for production in productions:
                lines.extend(self.production_lines(production, names))
            text = "\n".join(lines)
        else:  # source form: the grammar is plain text
            text = textwrap.dedent(text_of(el).strip("\n")).strip()
        if text:
            out.append(fence(text, "bnf"))

    def production_lines(self, production: etree._Element, names: GrammarElements) -> list[str]:
        """One production: its left-hand side line, then one indented line per right-hand side
        (those a proposal's edit wraps included). With marked edits, a line an edit wraps starts
        with ``+`` (inserted) or ``-`` (deleted) in place of its first space, and an edited
        symbol inside a line is written ``++x++`` or ``~~x~~``."""
        lhs, geq, one_of, rhs = "", ":", "", []
        production_mark = self.edit_mark(production)
        children = [c for c in production if isinstance(c.tag, str)]
        while children:
            child = children.pop(0)
            tag = child.tag
            if tag in EDIT_TAGS:  # an edit wrapping whole right-hand sides
                children[:0] = [c for c in child if isinstance(c.tag, str)]
            elif tag == names.nonterminal and not lhs:
                lhs = self.token_text(child, names)
            elif tag == names.geq:
                geq = self.token_text(child, names)
            elif tag == names.one_of:
                one_of = " one of"
            elif tag == names.rhs:
                tokens = [self.grammar_token(t, names) for t in child if isinstance(t.tag, str)]
                if child.text and child.text.strip():
                    tokens.insert(0, " ".join(child.text.split()))
                mark = self.edit_mark(child, production) or production_mark
                rhs.append(f"{mark or ' '}   " + " ".join(t for t in tokens if t))
        return [f"{production_mark}{lhs} {geq}{one_of}", *rhs]

    def grammar_token(self, el: etree._Element, names: GrammarElements) -> str:
        """A grammar symbol's text on one line (:meth:`token_text`), the whole of it marked
        when it is a marked edit itself."""
        text = self.token_text(el, names)
        role = self.roles.get(el)
        if role in _EDIT_LABELS and text:
            return f"{_EDIT_LABELS[role][0]}{text}{_EDIT_LABELS[role][0]}"
        return text

    def token_text(self, el: etree._Element, names: GrammarElements) -> str:
        """A grammar symbol's text on one line, its optional mark as ``?``; a marked edit
        inside it (a proposal's ``<ins>+Pattern</ins>`` among a nonterminal's parameters)
        written ``++x++`` or ``~~x~~``."""
        edits = len(el) and [
            e for e in el.iter(*EDIT_TAGS) if e is not el and self.roles.get(e) in _EDIT_LABELS
        ]
        if not edits:
            return _token_text(el, names.optional)
        return " ".join(self.marked_text(el, names.optional).split())

    def marked_text(self, el: etree._Element, optional: str) -> str:
        """The text inside ``el`` with its marked edits delimited (their edge spaces outside
        the marks) and ``optional`` elements as ``?``."""
        parts = [el.text or ""]
        for child in el:
            tag = child.tag
            if isinstance(tag, str):
                if optional and tag == optional:
                    parts.append("?")
                elif tag in _SCRIPT_TAGS:
                    parts.append(script_text(tag, " ".join(math_text(child).split())))
                else:
                    inner = self.marked_text(child, optional)
                    role = self.roles.get(child)
                    if role in _EDIT_LABELS and inner.strip():
                        inner = _delimited(inner, _EDIT_LABELS[role][0])
                    parts.append(inner)
            parts.append(child.tail or "")
        return "".join(parts)

    def edit_mark(self, el: etree._Element, stop: etree._Element | None = None) -> str:
        """``+``/``-`` when ``el`` or an ancestor below ``stop`` is a marked insertion or
        deletion (the nearest decides), else ""."""
        for node in (el, *el.iterancestors()):
            if node is stop:
                break
            role = self.roles.get(node)
            if role in _EDIT_LABELS:
                return "+" if role == "inserted" else "-"
        return ""

    def note(self, el: etree._Element, out: list[str]) -> None:
        """A labelled blockquote: the label of its own (ecmarkup's ``span.note``, Bikeshed's
        ``span.marker``, a trailing colon dropped), else ``Example`` for an example, ``Warning``
        for a warning, ``Note`` for anything else."""
        label_el = el.find("span")
        label = ""
        if label_el is not None and _NOTE_LABEL_CLASSES & set(
            (label_el.get("class") or "").split()
        ):
            label = _collapse(text_of(label_el)).removesuffix(":").strip()
            self.roles[label_el] = "skip"
        classes = set((el.get("class") or "").split())
        if not label:
            if el.tag in self.elements.example_tags or "example" in classes:
                label = "Example"
            else:
                label = "Warning" if "warning" in classes else "Note"
        blocks: list[str] = []
        self.container(el, blocks)
        out.append(_labelled_quote(label, blocks))

    def table(self, el: etree._Element, out: list[str]) -> None:
        caption = el.find("caption")
        if caption is not None:
            self.container(caption, out)
        rows = self.table_rows(el)
        if rows:
            columns = el.get(COLUMNS_ATTR, "")
            header = has_header_row(el)
            out.append(format_table(rows, int(columns) if columns.isdigit() else 0, header=header))

    def table_rows(self, el: etree._Element) -> list[list[str]]:
        """The table's rows as cell texts, padded for colspan and rowspan."""
        rows: list[list[str]] = []
        carry: dict[int, int] = {}  # column -> rows still covered by a rowspan from above
        for tr in own_rows(el):
            cells: list[str] = []
            for cell in tr:
                tag = cell.tag
                if tag in MARKER_TAGS:  # an extracted cell keeps its spans on its marker
                    text = format_marker(cell.get("data-id", ""), cell.get("data-title", ""))
                elif tag in ("td", "th"):
                    blocks: list[str] = []
                    self.contained(cell, blocks)
                    text = to_cell("\n\n".join(blocks))
                else:
                    continue
                fill_carried(cells, carry)
                start = len(cells)
                cells.append(text)
                colspan, rowspan = cell_span(cell, "colspan"), cell_span(cell, "rowspan")
                cells.extend([""] * (colspan - 1))
                if rowspan > 1:
                    for column in range(start, start + colspan):
                        carry[column] = rowspan - 1
            while any(v > 0 for c, v in carry.items() if c >= len(cells)):
                if carry.get(len(cells), 0) > 0:
                    carry[len(cells)] -= 1
                cells.append("")
            if cells:
                rows.append(cells)
        return rows

    # --- inline -----------------------------------------------------------------------------

    def inline_children(self, el: etree._Element) -> str:
        text = el.text  # read once (see container)
        parts = [escape_text(text)] if text else []
        roles = self.roles
        for child in el:
            tag = child.tag
            if isinstance(tag, str) and (role := roles.get(child)) != "skip":
                parts.append(self.inline(child, tag, role))
            tail = child.tail
            if tail:
                parts.append(escape_text(tail))
        return _join_inline(parts)

    def inline(self, el: etree._Element, tag: str, role: str | None) -> str:
        """``el`` (its tag and role as the caller read them) as inline Markdown; below
        :data:`MAX_NESTING` as its escaped text."""
        if self.depth >= MAX_NESTING:
            return escape_text(text_of(el))
        if role == "inline_code":  # converts nothing inside: no depth to count
            return self.inline_code(el)
        self.depth += 1
        try:
            if role is None and tag not in self.inline_tags:  # a wrapper (emu-xref, span)
                return self.inline_children(el)
            if role == "link":
                return self.link(el)
            if role == "skip":
                return ""
            if tag == "br":
                return f" {_HARD_BREAK} "
            if tag in MARKER_TAGS:
                return format_marker(el.get("data-id", ""), el.get("data-title", ""))
            if role in _BLOCK_ROLES:  # a block inside inline content: keep its text, on one line
                blocks: list[str] = []
                self.block(el, blocks)
                return " ".join(" ".join(b.split("\n")) for b in blocks)
            if tag in _SCRIPT_TAGS:
                return script_text(tag, escape_text(" ".join(math_text(el).split())))
            grammar = self.elements.grammar
            if grammar is not None and grammar.optional and tag == grammar.optional:
                return "?"  # an optional symbol's mark, outside a production too
            inner = self.inline_children(el)
            if role in _EDIT_LABELS and inner.strip():
                return _delimited(inner, _EDIT_LABELS[role][0])
            if tag in _STRONG_TAGS and inner.strip():
                return _delimited(inner, "**")
            if tag in _EMPHASIS_TAGS and inner.strip():
                return _delimited(inner, "*")
            if tag == "img":  # multipage pages sit one folder down: "../img/x.svg" is "img/x.svg"
                src = re.sub(r"^(?:\.\.?/)+", "", el.get("src") or "")
                return f"![{escape_text(el.get('alt') or '')}]({src})"
            return inner
        finally:
            self.depth -= 1

    def inline_code(self, el: etree._Element) -> str:
        """A code span; a ``<br>`` inside ends one span and starts another on the next line
        (whitespace beside the break collapses away, as HTML renders it)."""
        if not len(el):  # most code has no child
            return code_span(el.text or "", _CODE_PAD)
        if next(el.iter("br"), None) is None:
            return code_span(math_text(el), _CODE_PAD)
        pieces = math_text(el, {"br": _HARD_BREAK}).split(_HARD_BREAK)
        last = len(pieces) - 1
        spans: list[str] = []
        for index, piece in enumerate(pieces):
            if index > 0:
                piece = piece.lstrip(_HTML_SPACE)
            if index < last:
                piece = piece.rstrip(_HTML_SPACE)
            span = code_span(piece, _CODE_PAD)
            if span:
                spans.append(span)
        return f" {_HARD_BREAK} ".join(spans)

    def link(self, el: etree._Element) -> str:
        text = _collapse(self.inline_children(el)).replace("\n", " ")
        href = el.get("href") or ""
        if not text:
            return ""
        if not href:
            return text
        if text in _PERMALINK_TEXTS and href[0] == "#" and href[1:] in _own_ids(el):
            return ""  # a self-link's mark (xml2rfc's pilcrow: <p id=x>… <a href=#x>¶</a>)
        if href[0] != "#":
            match = _MULTIPAGE_HREF.match(href)
            if match:
                href = match.group(1)
            elif href.startswith("./#"):
                href = href[2:]
        if href[0] == "#" and "%" in href:  # lxml's serializer escapes non-ASCII (#%E2%84%9D)
            href = "#" + decode_non_ascii(href[1:])
        href = href.replace(" ", "%20")  # as lxml writes it in stored HTML (mailto: links)
        if _NEEDS_ANGLE_BRACKETS.search(href):
            href = "<" + href.replace("<", "%3C").replace(">", "%3E") + ">"
        return f"[{text}]({href})"


_ROLE_HANDLERS: dict[str, Callable[[_Converter, etree._Element, list[str]], None]] = {
    "grammar": _Converter.grammar,
    "code_block": _Converter.code_block,
    "table": _Converter.table,
    "ordered_list": _Converter.list_,
    "unordered_list": _Converter.list_,
    "note": _Converter.note,
}
_TAG_HANDLERS: dict[str, Callable[[_Converter, etree._Element, list[str]], None]] = {
    **{f"h{n}": _Converter.heading for n in range(1, 7)},
    "p": _Converter.paragraph,
    "hr": _Converter.hr,
    **{tag: _Converter.marker for tag in MARKER_TAGS},
}


_SCRIPT_TAGS = frozenset({"sup", "sub"})
_STRONG_TAGS = frozenset({"b", "strong"})
_EMPHASIS_TAGS = frozenset({"i", "em", "dfn"})
_INLINE_RULE_TAGS = frozenset({"br", "img"}) | _SCRIPT_TAGS | _STRONG_TAGS | _EMPHASIS_TAGS
"""Elements with an inline rule of their own (:meth:`_Converter.inline`: the tags its rules
test) besides the markers and a format's optional mark; any other element without a role is
written as its content."""


@lru_cache(maxsize=8)
def _vocabulary(
    elements: MarkdownElements,
) -> tuple[
    frozenset[str],
    dict[str, Callable[[_Converter, etree._Element, list[str]], None]],
    frozenset[str],
]:
    """The block tags, tag handlers and inline rule tags (:data:`_INLINE_RULE_TAGS`) with a
    format's elements added (once per format)."""
    handlers = dict(_TAG_HANDLERS)
    handlers.update({tag: _Converter.algorithm for tag in elements.algorithm_tags})
    optional = elements.grammar.optional if elements.grammar is not None else ""
    inline_tags = _INLINE_RULE_TAGS | MARKER_TAGS | ({optional} if optional else set())
    return BLOCK_TAGS | elements.block_tags, handlers, inline_tags


def _labelled_quote(label: str, blocks: list[str]) -> str:
    """A blockquote opening with ``label`` in bold (a note, an example, an edit), then
    ``blocks`` after a quoted blank line."""
    if not blocks:
        return f"> **{label}**"
    return f"> **{label}**\n>\n" + _quote(blocks)


def _quote(blocks: list[str]) -> str:
    """``blocks`` as one blockquote."""
    return "\n".join(f"> {line}" if line else ">" for line in "\n\n".join(blocks).split("\n"))


def _own_ids(el: etree._Element, *, heading: bool = False) -> set[str]:
    """The ids (``id``, or ``data-id``: the section a section's HTML stands for) that address
    ``el`` and the block it stands in: for a heading, its own and its parent's (its section);
    for anything else, its own and its nearest ancestor's that has one. Never further, so an
    element converted inside the whole document and the same element parsed back from its
    section's stored HTML see the same ids."""
    if heading:
        nodes = [el, el.getparent()]
    else:
        nodes = [el, next((a for a in el.iterancestors() if a.get("id") or a.get("data-id")), None)]
    return {
        value
        for node in nodes
        if node is not None
        for name in ("id", "data-id")
        if (value := node.get(name))
    }


def _join_item_blocks(blocks: list[str]) -> str:
    """A list item's blocks: a nested list follows its text on the next line (tight), other
    blocks after a blank line."""
    if not blocks:
        return ""
    parts = [blocks[0]]
    for block in blocks[1:]:
        parts.append("\n" if _is_list_block(block) else "\n\n")
        parts.append(block)
    return "".join(parts)


def _is_list_block(block: str) -> bool:
    return block.startswith("- ") or bool(re.match(r"\d+\. ", block))


def _join_inline(parts: list[str]) -> str:
    """Concatenate inline pieces, keeping two code spans from gluing into one."""
    if len(parts) == 1:
        return parts[0]
    joined = "".join(parts)
    if len(parts) < 2 or "``" not in joined:  # no piece ends and the next starts with "`"
        return joined
    out = [parts[0]]
    for part in parts[1:]:
        if part and part[0] == "`" and _ends_in_backtick_run(out[-1]):
            out.append(" ")
        out.append(part)
    return "".join(out)


def _ends_in_backtick_run(piece: str) -> bool:
    """Whether ``piece`` ends with a backtick that is not escaped (an even number of
    backslashes before it): one a code span after it would glue to."""
    if not piece or piece[-1] != "`":
        return False
    before = piece[:-1]
    return (len(before) - len(before.rstrip("\\"))) % 2 == 0


def _delimited(inner: str, mark: str) -> str:
    """``inner`` between two ``mark`` delimiters (emphasis, an edit), the whitespace at its
    edges kept outside them: ``Let<del> and Const</del>`` is ``Let ~~and Const~~``, not
    ``Let~~and Const~~``."""
    text = inner.strip(_HTML_SPACE)
    lead = " " if inner[0] in _HTML_SPACE else ""
    trail = " " if inner[-1] in _HTML_SPACE else ""
    return f"{lead}{mark}{text}{mark}{trail}"


def _collapse(text: str) -> str:
    """``text`` with each run of ASCII whitespace one space, then stripped; a ``<br>``'s mark
    becomes a newline. Most texts hold only single spaces (ECMA-262: 40,737 of 46,971), which
    the substitution would leave as they are: they skip it; whitespace alone (what stands
    between two blocks) is "" at once."""
    if not text or text.isspace():
        return ""
    if "  " in text or "\n" in text or "\t" in text or "\r" in text or "\f" in text or "\v" in text:
        text = _WS.sub(" ", text)
    text = text.strip()
    if _HARD_BREAK in text:
        text = text.replace(f" {_HARD_BREAK} ", "\n").replace(_HARD_BREAK, "\n").strip("\n")
    if _CODE_PAD in text:
        text = text.replace(_CODE_PAD, " ")
    return text


def _escape_block_start(text: str) -> str:
    match = re.match(r"\d{1,9}(?=[.)])", text)
    if match:
        return text[: match.end()] + "\\" + text[match.end() :]
    return "\\" + text


def _token_text(el: etree._Element, optional: str = "") -> str:
    """A grammar symbol's text on one line, its optional mark (``optional`` elements) as
    ``?``."""
    if optional and next(el.iter(optional), None) is not None:
        return " ".join(math_text(el, {optional: "?"}).split())
    return " ".join(text_of(el).split())
