"""ecmarkup's clause headers: where a clause's ``h1`` is, and its *structured headers* rendered
as ecmarkup renders them.

A structured header is a typed signature in the ``h1`` followed by a ``<dl class="header">``::

    <h1>
      ToWidget (
        _argument_: a Gadget,
      ): either a normal completion containing a Widget or a throw completion
    </h1>
    <dl class="header"><dt>description</dt><dd>It makes a Widget of _argument_.</dd></dl>

ecmarkup (``src/Clause.ts``, ``src/header-parser.ts``) renders the heading with the parameter
names only, ``ToWidget ( _argument_ )`` (a syntax-directed operation's without its parameter
list), and replaces the ``dl`` by a generated paragraph: "The abstract operation ToWidget takes
argument _argument_ (a Gadget) and returns either … . It makes …. It performs the
following steps when called:". :func:`render_structured_headers` does the same to
a source tree, so source and rendered spec read alike. A header it cannot parse is left as
written, as ecmarkup leaves it.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field

from lxml import etree

SECTION_TAGS = ("emu-clause", "emu-annex", "emu-intro")
"""The clause elements whose first ``h1`` is their heading."""

AOID_TYPES = frozenset(
    {
        "abstract operation",
        "sdo",
        "syntax-directed operation",
        "host-defined abstract operation",
        "implementation-defined abstract operation",
        "numeric method",
    }
)
"""Clause types whose structured header names an abstract operation (ecmarkup gives the clause
that name as its ``aoid``)."""

_WRAPPER = re.compile(r"^<(ins|del|mark) *>\s*", re.IGNORECASE)
_PREFIX = re.compile(r"^(?:Static|Runtime) Semantics:\s*", re.IGNORECASE)
_NAME = re.compile(r"^[^(\s]+\s*")
_OPEN = re.compile(r"^\( *")
_CLOSE = re.compile(r"^\)\s*")
_OPTIONAL_WORD = re.compile(r"^optional *", re.IGNORECASE)
_PARAM_NAME = re.compile(r"^[A-Za-z0-9_]+ *")
_COLONS = re.compile(r"^:+ *")
_TYPE_LINE = re.compile(r"^[^\n]+\n\s*")
_OPTIONAL_OPEN = re.compile(r"^\[(\s*,)?\s*")
_SIMPLE_NAME = re.compile(r"^([A-Za-z0-9_]+)\s*")
_SIMPLE_AFTER = re.compile(r"^((\s*\])+|,)\s*")
_RETURN_COLON = re.compile(r"^: *")
_EDIT_TAG = re.compile(r"<(/?)(ins|del|mark)\b[^>]*>", re.IGNORECASE)


def clause_header(section: etree._Element) -> etree._Element | None:
    """A clause's heading as ecmarkup finds it: its first element child, past ``del`` elements,
    empty ``span``s (ecmarkup's old ids) and, in rendered output, the tag ecmarkup puts before
    the heading (``div.attributes-tag``: "Normative Optional", "Legacy"), and inside an ``ins``
    around it (a proposal's new heading:
    ``<del class="block"><h1>old</h1></del><ins class="block"><h1>new</h1></ins>``); None
    unless that is an ``h1``."""
    header = next((child for child in section if not _before_header(child)), None)
    if header is not None and header.tag == "ins":
        header = next((c for c in header if isinstance(c.tag, str)), None)
    return header if header is not None and header.tag == "h1" else None


_TAG_CLASSES = frozenset({"attributes-tag", "normative-optional-tag"})
"""Classes of the ``div`` ecmarkup renders before a clause's heading (its attributes)."""


def _before_header(child: etree._Element) -> bool:
    """Whether a clause's child comes before its heading (see :func:`clause_header`)."""
    tag = child.tag
    if not isinstance(tag, str) or tag == "del":
        return True
    if tag == "span" and len(child) == 0:
        return True
    return tag == "div" and bool(_TAG_CLASSES & set((child.get("class") or "").split()))


@dataclass
class _Param:
    name: str
    type: str | None
    wrapper: str | None


@dataclass
class _Header:
    """A parsed signature: ``Static Semantics: Name ( a, [ b ] ): Type``."""

    name: str
    prefix: str = ""
    wrapper: str | None = None
    params: list[_Param] = field(default_factory=list)
    optional: list[_Param] = field(default_factory=list)
    returns: str | None = None


def parse_header(inner_html: str) -> _Header | None:
    """The signature in a header's inner HTML, or None when it does not parse (then ecmarkup
    leaves the header as written). Multi-line headers (a line break right after ``(``) give
    each parameter's type; single-line ones only names, ``[ , optional ]`` included."""
    text = inner_html.lstrip()
    header = _Header(name="")
    if match := _WRAPPER.match(text):
        header.wrapper = match.group(1).lower()
        text = text[match.end() :]
    if match := _PREFIX.match(text):
        header.prefix = match.group(0).rstrip()
        text = text[match.end() :]
    match = _NAME.match(text)
    if not match:
        return None
    header.name, text = match.group(0).rstrip(), text[match.end() :]
    if not text:
        return header
    if not (match := _OPEN.match(text)):
        return None
    text = text[match.end() :]
    rest = _multi_line_params(text, header) if text.startswith("\n") else _params(text, header)
    if rest is None:
        return None
    if match := _RETURN_COLON.match(rest):
        rest = rest[match.end() :]
        value = _return_type(rest).strip()
        header.returns = value if value and value != "unknown" else None
    return header


def _return_type(rest: str) -> str:
    """A header's return type: the first line of ``rest`` up to the closing tag of an edit that
    wraps the whole header (``<ins>F ( ): a List</ins>``); edits inside it kept whole (``a List
    of <del>Strings</del><ins>Records</ins>``)."""
    line = rest.split("\n", 1)[0]
    open_edits: list[str] = []
    for match in _EDIT_TAG.finditer(line):
        name = match.group(2).lower()
        if not match.group(1):
            open_edits.append(name)
        elif open_edits and open_edits[-1] == name:
            open_edits.pop()
        else:
            return line[: match.start()]
    return line


def _multi_line_params(text: str, header: _Header) -> str | None:
    """Parse ``name: type,`` lines up to ``)`` into ``header``; the text after, or None."""
    text = text.lstrip()
    while True:
        if match := _CLOSE.match(text):
            return text[match.end() :]
        wrapper = None
        if match := _WRAPPER.match(text):
            wrapper, text = match.group(1).lower(), text[match.end() :]
        optional = bool(match := _OPTIONAL_WORD.match(text))
        if match:
            text = text[match.end() :]
        if not (match := _PARAM_NAME.match(text)):
            return None
        name, text = match.group(0).rstrip(), text[match.end() :]
        if not (match := _COLONS.match(text)):
            return None
        text = text[match.end() :]
        if not (match := _TYPE_LINE.match(text)):
            return None
        param_type, text = match.group(0).rstrip(), text[match.end() :]
        if wrapper and param_type.endswith(f"</{wrapper}>"):
            param_type = param_type[: -len(f"</{wrapper}>")]
        param_type = param_type.removesuffix(",")
        param = _Param(name, None if param_type == "unknown" else param_type, wrapper)
        (header.optional if optional else header.params).append(param)


def _params(text: str, header: _Header) -> str | None:
    """Parse ``a, b [ , c ]`` up to ``)`` into ``header``; the text after, or None."""
    optional = False
    while True:
        if match := _CLOSE.match(text):
            return text[match.end() :]
        if match := _OPTIONAL_OPEN.match(text):
            optional, text = True, text[match.end() :]
        if not (match := _SIMPLE_NAME.match(text)):
            return None
        param = _Param(match.group(1), None, None)
        text = text[match.end() :]
        (header.optional if optional else header.params).append(param)
        if match := _SIMPLE_AFTER.match(text):
            text = text[match.end() :]


def _wrapped(html: str, wrapper: str | None) -> str:
    return f"<{wrapper}>{html}</{wrapper}>" if wrapper else html


def heading_html(header: _Header, *, sdo: bool = False) -> str:
    """The heading ecmarkup renders: ``Name ( a, b [ , c ] )``, the prefix kept; a
    syntax-directed operation's (``sdo``) without the parameter list."""
    names = "(" + ",".join(" " + _wrapped(p.name, p.wrapper) for p in header.params)
    for i, param in enumerate(header.optional):
        names += " [ " + (", " if i > 0 or header.params else "") + _wrapped(param.name, None)
    names += " ]" * len(header.optional) + " )"
    text = " ".join(filter(None, [header.prefix, header.name, "" if sdo else names]))
    return _wrapped(text, header.wrapper)


def _english_list(items: list[str]) -> str:
    if len(items) <= 2:
        return " and ".join(items)
    return ", ".join(items[:-1]) + ", and " + items[-1]


def params_phrase(header: _Header) -> str:
    """``argument _x_ (a Number) and optional arguments _y_ and _z_``, or ``no arguments``."""

    def typed(p: _Param) -> str:
        return _wrapped(p.name + (f" ({p.type})" if p.type else ""), p.wrapper)

    parts = []
    if header.params:
        word = "argument" if len(header.params) == 1 else "arguments"
        parts.append(f"{word} {_english_list([typed(p) for p in header.params])}")
    if header.optional:
        word = "argument" if len(header.optional) == 1 else "arguments"
        parts.append(f"optional {word} {_english_list([typed(p) for p in header.optional])}")
    return " and ".join(parts) or "no arguments"


def render_structured_headers(root: etree._Element) -> int:
    """Render every structured header under ``root`` (a source tree) in place: the heading as
    ecmarkup renders it, the ``dl.header`` replaced by the generated paragraph(s), and the
    clause's ``aoid`` set to the operation's name for the :data:`AOID_TYPES` (unless it has
    one). Returns how many headers were rendered."""
    done = 0
    for section in list(root.iter(*SECTION_TAGS)):
        h1 = clause_header(section)
        if h1 is None:
            continue
        parent = h1.getparent()
        surrogate = parent if parent is not None and parent is not section else h1
        dl = _next_element(surrogate, skip=("del",))
        if dl is None or dl.tag != "dl" or "header" not in (dl.get("class") or "").split():
            continue
        header = parse_header(_inner_html(h1))
        clause_type = (section.get("type") or "").strip().lower()
        sdo = clause_type in ("sdo", "syntax-directed operation")
        if header is not None:
            _set_inner_html(h1, heading_html(header, sdo=sdo))
            if clause_type in AOID_TYPES and not section.get("aoid"):
                section.set("aoid", header.name)
        _replace_header_list(dl, clause_type, header, sdo=sdo)
        done += 1
    return done


def _replace_header_list(
    dl: etree._Element, clause_type: str, header: _Header | None, *, sdo: bool
) -> None:
    """Put the paragraph(s) ecmarkup generates from ``dl`` in its place."""
    entries = _entries(dl)
    name = header.name if header is not None else "UNKNOWN"
    params = params_phrase(header) if header is not None else "UNPARSEABLE ARGUMENTS"
    para = etree.Element("p")
    if clause_type in ("internal method", "concrete method"):
        _append_html(para, f"The {name} {clause_type} of ")
        owner = entries.get("for")
        if owner is not None:
            _append_children(para, owner)
    elif clause_type in ("abstract operation", "numeric method"):
        _append_html(para, f"The abstract operation {name}")
    elif clause_type in (
        "host-defined abstract operation",
        "implementation-defined abstract operation",
    ):
        _append_html(para, f"The {clause_type} {name}")
    elif sdo:
        _append_html(para, f"The syntax-directed operation {name}")
    returns = header.returns if header is not None else None
    _append_html(para, f" takes {params}" + (f" and returns {returns}" if returns else "") + ".")
    paras = [para]
    description = entries.get("description")
    if description is not None:
        if not (description.text or "").strip() and all(
            isinstance(c.tag, str) and not (c.tail or "").strip() for c in description
        ):
            paras.extend(c for c in description if isinstance(c.tag, str))
        else:
            _append_html(para, " ")
            _append_children(para, description)
    following = _next_element(dl, skip=(), notes=True)
    relevant = _relevant(following)
    wanted = "emu-grammar" if sdo else "emu-alg"
    if (
        following is not None
        and relevant is not None
        and relevant.tag == wanted
        and (sdo or relevant.get("replaces-step") is None)
    ):
        sentence = (
            "It is defined piecewise over the following productions:"
            if sdo
            else "It performs the following steps when called:"
        )
        if len(paras) > 1 or following is not _next_element(dl, skip=()):
            after = etree.Element("p")
            after.text = sentence
            after.tail = dl.tail
            following.addprevious(after)
        else:
            _append_html(para, " " + sentence)
    for extra in paras:
        extra.tail = "\n"
        dl.addprevious(extra)
    paras[-1].tail = dl.tail
    parent = dl.getparent()
    if parent is not None:
        parent.remove(dl)


def _entries(dl: etree._Element) -> dict[str, etree._Element]:
    """``dt`` text (lower case) → its ``dd``, the first of each."""
    found: dict[str, etree._Element] = {}
    children = [c for c in dl if isinstance(c.tag, str)]
    for dt, dd in zip(children[::2], children[1::2], strict=False):
        if dt.tag == "dt" and dd.tag == "dd":
            found.setdefault(" ".join("".join(map(str, dt.itertext())).split()).lower(), dd)
    return found


def _relevant(el: etree._Element | None) -> etree._Element | None:
    """``el``, or for an ``ins``/``del`` its first element child (ecmarkup's look through an
    edit)."""
    if el is not None and el.tag in ("ins", "del"):
        return next((c for c in el if isinstance(c.tag, str)), el)
    return el


def _next_element(
    el: etree._Element, *, skip: tuple[str, ...], notes: bool = False
) -> etree._Element | None:
    """The next element sibling of ``el`` past the tags ``skip`` (and, with ``notes``, past
    notes, an edit around a note included)."""
    for sibling in el.itersiblings():
        if not isinstance(sibling.tag, str) or sibling.tag in skip:
            continue
        relevant = _relevant(sibling)
        if notes and relevant is not None and relevant.tag == "emu-note":
            continue
        return sibling
    return None


def _inner_html(el: etree._Element) -> str:
    return (el.text or "") + "".join(
        etree.tostring(c, encoding="unicode", method="html") for c in el
    )


def _set_inner_html(el: etree._Element, html: str) -> None:
    for child in list(el):
        el.remove(child)
    el.text = None
    _append_html(el, html)


def _append_html(parent: etree._Element, html: str) -> None:
    """Append the text and elements of the HTML fragment ``html`` to ``parent``'s content."""
    fragment = etree.fromstring(f"<div>{html}</div>", etree.HTMLParser())
    holder = fragment.find(".//div")
    if holder is not None:
        _append_children(parent, holder, move=True)


def _append_children(parent: etree._Element, source: etree._Element, *, move: bool = False) -> None:
    """Append ``source``'s text and children (moved, or copied when ``move`` is False) to the
    end of ``parent``'s content."""
    _append_text(parent, source.text or "")
    for child in list(source):
        parent.append(child if move else copy.deepcopy(child))


def _append_text(parent: etree._Element, text: str) -> None:
    if not text:
        return
    if len(parent):
        parent[-1].tail = (parent[-1].tail or "") + text
    else:
        parent.text = (parent.text or "") + text
