"""What reading an ecmarkup *source* (``spec.html``/``spec.emu``, not rendered) takes beyond the
rendered form: its ``<emu-import>`` files pulled in, ecmarkdown's shorthand written as rendered
text reads, and section numbers computed as ecmarkup computes them when it renders."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

from lxml import etree

from specbrowser.chunking.markdown import code_span
from specbrowser.formats.ecmarkup_headers import clause_header
from specbrowser.formats.html import read_html


def expand_imports(root: etree._Element, folder: Path) -> None:
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


SECTION_ELEMENTS = ("emu-clause", "emu-annex", "emu-intro")
"""The elements ecmarkup numbers (the intro never)."""


def number_sections(root: etree._Element) -> None:
    """Write into each section heading of a source the number ecmarkup renders there, as a
    ``<span class="secnum">`` at the start of its ``h1`` (as in rendered output), in place.

    As ecmarkup numbers: top-level clauses 1, 2, … and annexes ``Annex A (informative)``,
    ``Annex B (normative)`` … (``normative`` attribute), counted apart; below, clauses and
    annexes together under their parent's number (``14.6``, ``A.1``); a ``number`` attribute
    sets a clause's number and the next siblings count on from it; the intro, ``back-matter``
    annexes and whatever lies below an unnumbered section get none. A heading that already
    holds a number keeps it.
    """
    numbers: dict[etree._Element, str] = {}
    counters: dict[tuple[etree._Element | None, str], int] = {}
    for el in root.iter(*SECTION_ELEMENTS):
        parent = next(el.iterancestors(*SECTION_ELEMENTS), None)
        parent_number = numbers.get(parent, "") if parent is not None else None
        if el.tag == "emu-intro" or parent_number == "":
            numbers[el] = ""
            continue
        if el.tag == "emu-annex" and el.get("back-matter") is not None:
            numbers[el] = ""
            continue
        top_annex = parent is None and el.tag == "emu-annex"
        key = (parent, el.tag if parent is None else "child")
        number = counters.get(key, 0) + 1
        given = el.get("number", "")
        if given.isdigit() and not top_annex:
            number = int(given)
        counters[key] = number
        if top_annex:
            kind = "normative" if el.get("normative") is not None else "informative"
            numbers[el] = f"Annex {_annex_letter(number)} ({kind})"
        elif parent_number is None:
            numbers[el] = str(number)
        else:
            prefix = (
                parent_number.split()[1] if parent_number.startswith("Annex ") else parent_number
            )
            numbers[el] = f"{prefix}.{number}"
        _write_number(el, numbers[el])


def _write_number(section: etree._Element, number: str) -> None:
    h1 = clause_header(section)
    if h1 is None or any("secnum" in (c.get("class") or "").split() for c in h1.iter("span")):
        return
    span = etree.Element("span", {"class": "secnum"})
    span.text = number
    span.tail = " " + (h1.text or "").lstrip()
    h1.text = None
    h1.insert(0, span)


_SHORTHAND = re.compile(
    r"(?<![\w\\`])_(?P<var>[A-Za-z$][\w$]*)_(?![\w`])"
    r"|(?<![\w*\\`])\*(?P<value>[^\s*](?:[^*\n]*[^\s*])?)\*(?![\w*`])"
    r"|(?<![\w~\\`])~(?P<const>[\w+-]+)~(?![\w~`])"
    r"|\|(?P<nt>[A-Z][A-Za-z0-9]*)(?P<params>\[[^\]|\n]*\])?(?P<opt>_opt)?\|"
    r"|(?<![\w`\\])`(?P<code>[^`\n]+)`(?![\w`])"
)
"""ecmarkdown's inline shorthand in source text: ``_var_``, ``*value*``, ``~const~``,
``|Nonterminal[params]_opt|`` and `` `code` ``."""

_SHORTHAND_TAGS = {"var": "var", "value": "emu-val", "const": "emu-const", "code": "code"}
"""The element ecmarkup renders for each kind of inline shorthand."""

_NO_SHORTHAND = frozenset(
    {"pre", "code", "emu-grammar", "emu-production", "script", "style", "emu-biblio"}
)


_BARE = frozenset({"h1", "h2", "h3", "h4", "h5", "h6", "emu-eqn"})
"""Where shorthand is written as bare words: headings (titles) and equations (fenced as code)."""


def expand_shorthand(root: etree._Element) -> None:
    """Write ecmarkdown's shorthand in the text of an ecmarkup source as a rendered spec has it:
    ``_x_``, ``*x*``, ``~x~`` and `` `x` `` become the elements ecmarkup renders (``var``,
    ``emu-val``, ``emu-const``, ``code``), ``|X|`` the word ``X`` (``|X_opt|`` ``X?``). In
    headings, ``caption`` attributes and equations they are bare words, so that titles and
    equations read as rendered ones. In an algorithm (``emu-alg``), whose source text the
    converter keeps as written (it is already a Markdown list), they are written as code spans
    in the text (`` `x` ``). Grammar and code are left as written."""
    stack: list[tuple[etree._Element, Mode]] = [(root, "elements")]
    while stack:
        el, mode = stack.pop()
        if not isinstance(el.tag, str) or el.tag in _NO_SHORTHAND:
            continue
        if el.tag in _BARE:
            mode = "bare"
        elif el.tag == _ALGORITHM and mode == "elements":
            mode = "spans"
        caption = el.get("caption")
        if caption:  # a source table's caption (it titles the table's chunk)
            el.set("caption", _bare(caption))
        children = list(el)
        if el.text:
            el.text, made = _expanded(el, el.text, mode)
            for offset, code in enumerate(made):
                el.insert(offset, code)
        for child in children:
            if child.tail:
                child.tail, made = _expanded(el, child.tail, mode)
                for code in reversed(made):
                    child.addnext(code)  # right after child (its tail stays before): last first
            stack.append((child, mode))


Mode = Literal["elements", "spans", "bare"]
"""How :func:`expand_shorthand` writes shorthand: as elements, as code spans in the text, or as
bare words."""

_ALGORITHM = "emu-alg"


def _code_span(match: re.Match[str]) -> str:
    if match.group("code"):  # already a code span
        return match.group(0)
    if match.group("nt"):
        return _bare_word(match)
    return code_span(_bare_word(match))


def _bare(text: str) -> str:
    """``text`` with its shorthand as bare words."""
    return _SHORTHAND.sub(_bare_word, text) if any(m in text for m in "_*~|`") else text


def _bare_word(match: re.Match[str]) -> str:
    if match.group("nt"):
        return (
            match.group("nt") + (match.group("params") or "") + ("?" if match.group("opt") else "")
        )
    return next(match.group(kind) for kind in _SHORTHAND_TAGS if match.group(kind))


def _expanded(parent: etree._Element, text: str, mode: Mode) -> tuple[str, list[etree._Element]]:
    """``text`` up to its first inline shorthand, and an element for each (its tail the text up
    to the next), made in ``parent``'s document; for the other modes (:data:`Mode`) the whole
    text, and no element."""
    if not any(mark in text for mark in "_*~|`"):
        return text, []
    if mode == "bare":
        return _bare(text), []
    if mode == "spans":
        return _SHORTHAND.sub(_code_span, text), []
    lead = ""
    made: list[etree._Element] = []
    at = 0
    for match in _SHORTHAND.finditer(text):
        between = text[at : match.start()]
        at = match.end()
        kind = next((k for k in _SHORTHAND_TAGS if match.group(k)), None)
        if kind is None:  # a nonterminal: its bare name, in the text
            between += _bare_word(match)
            word = None
        else:
            word = parent.makeelement(_SHORTHAND_TAGS[kind], {})
            word.text = match.group(kind)
        if made:
            made[-1].tail = (made[-1].tail or "") + between
        else:
            lead += between
        if word is not None:
            made.append(word)
    rest = text[at:]
    if made:
        made[-1].tail = (made[-1].tail or "") + rest
    else:
        lead += rest
    return lead, made


_STEP = re.compile(r"(?m)^([ \t]*)(?:(\d+)\.|([*-]))(?=[ \t])")
"""A step at the start of a line of an algorithm's ecmarkdown: its indentation, then an ordered
item's number (ecmarkdown writes ``1.`` for every step: the renderer numbers them) or an
unordered item's ``*``/``-``."""


def number_steps(root: etree._Element) -> None:
    """Number the ordered steps of every ``emu-alg`` in an ecmarkup source as the rendered spec
    lists them: 1, 2, 3 at each depth of indentation, from 1 again under each step and after
    an unordered list at the same depth. Only numbers at the start of a line change; the text
    may be split by inline elements (``ins``, ``emu-xref``), so the pieces are read in document
    order as one text."""
    for alg in root.iter("emu-alg"):
        steps = _StepNumbers()
        for owner, attribute in _text_pieces(alg):
            text = getattr(owner, attribute)
            if text:
                setattr(owner, attribute, steps.number(text))


class _StepNumbers:
    """The running step numbers of one algorithm, read a text piece at a time."""

    def __init__(self) -> None:
        self.levels: list[tuple[int, int]] = []
        """(indentation, last number) of each open list, the outermost first."""
        self.line_start: str | None = ""
        """The blanks since the last newline while the line holds nothing else, so that a piece
        starting there starts a line (an element that holds a whole step, ``<ins>1. …</ins>``);
        None once the line holds text (a piece then continues it)."""

    def number(self, text: str) -> str:
        """``text`` with its steps' numbers written."""
        numbered = _STEP.sub(self._step, text)
        _, newline, last = text.rpartition("\n")
        if newline:
            self.line_start = last if not last.strip() else None
        elif self.line_start is not None:
            self.line_start = self.line_start + last if not last.strip() else None
        return numbered

    def _step(self, match: re.Match[str]) -> str:
        indent_text = match.group(1)
        if match.start() == 0:  # where the piece starts: a line start only if the line was blank
            if self.line_start is None:
                return match.group(0)
            indent_text = self.line_start + indent_text
        indent = len(indent_text.expandtabs(4))
        while self.levels and self.levels[-1][0] > indent:
            self.levels.pop()
        here = bool(self.levels) and self.levels[-1][0] == indent
        # an unordered item: an ordered list at its depth starts again after it
        number = 0 if match.group(3) else (self.levels[-1][1] + 1 if here else 1)
        if here:
            self.levels[-1] = (indent, number)
        else:
            self.levels.append((indent, number))
        return match.group(0) if match.group(3) else f"{match.group(1)}{number}."


def _text_pieces(el: etree._Element) -> list[tuple[etree._Element, str]]:
    """``(element, "text" | "tail")`` of every text piece inside ``el``, in document order."""
    pieces: list[tuple[etree._Element, str]] = [(el, "text")]
    for child in el:
        if isinstance(child.tag, str):
            pieces += _text_pieces(child)
        pieces.append((child, "tail"))
    return pieces


def _annex_letter(number: int) -> str:
    """1 → A, 26 → Z, 27 → AA (spreadsheet style)."""
    letters = ""
    while number > 0:
        number, rest = divmod(number - 1, 26)
        letters = chr(ord("A") + rest) + letters
    return letters
