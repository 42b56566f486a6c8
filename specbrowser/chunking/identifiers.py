"""The words inside a spec's identifiers, for the full-text index.

A spec names what it defines with identifiers that spell words: ``IsArray``,
``GetPrototypeFromConstructor``, ``[[GetPrototypeOf]]``, ``%TypedArray%``, ``ToUint8Clamp``,
``LengthOfArrayLike``. FTS5's ``unicode61`` tokenizer splits text at punctuation
(``Array.prototype.flat`` is three tokens, ``snake_case`` two) but keeps a CamelCase identifier
whole, so a question in words (``check whether a value is an array``) never meets the word
``array`` inside ``IsArray``. :func:`identifier_words` gives those words: each identifier of a
text that has two or more CamelCase parts (or letters and digits), as its parts in lower case.
The identifiers themselves stay indexed as written in the other columns.
"""

from __future__ import annotations

import re

from specbrowser.chunking.labels import PATH_SEPARATOR

_IDENTIFIER = re.compile(r"[A-Za-z][A-Za-z0-9]*")
"""A run of letters and digits starting with a letter (punctuation, ``%``, brackets, dots and
underscores end it: ``unicode61`` splits there already)."""

_PART = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
"""One part of an identifier: an acronym before a capitalised word (``HTML`` in ``HTMLDDA``…),
a capitalised or lower-case word, an all-capitals run, a number."""


def identifier_parts(identifier: str) -> list[str]:
    """The parts of one identifier, in order: ``GetPrototypeFromConstructor`` → ``Get``,
    ``Prototype``, ``From``, ``Constructor``; ``ToUint8Clamp`` → ``To``, ``Uint``, ``8``,
    ``Clamp``; ``IsHTMLDDA`` → ``Is``, ``HTMLDDA``; ``value`` → ``value``."""
    return _PART.findall(identifier)


def identifier_words(text: str) -> str:
    """The words inside the identifiers of ``text`` that have more than one part, lower case,
    space-separated, each identifier's words once in order of first appearance (``""`` when
    none has): ``IsArray ( argument )`` → ``is array``; ``%TypedArray%.prototype.set`` →
    ``typed array``; ``[[GetPrototypeOf]] ( )`` → ``get prototype of``."""
    seen: set[str] = set()
    words: list[str] = []
    for identifier in _IDENTIFIER.findall(text):
        if identifier in seen:
            continue
        seen.add(identifier)
        found = _WORDS_OF.get(identifier)
        if found is None:
            parts = identifier_parts(identifier)
            found = _WORDS_OF[identifier] = " ".join(parts).lower() if len(parts) > 1 else ""
        if found:
            words.append(found)
    return " ".join(words)


_WORDS_OF: dict[str, str] = {}
"""Each identifier met so far → its words (``""`` for one of a single part): a spec's chunks
repeat their sections' identifiers in every header, and the same names recur across sections.
It holds at most the distinct identifiers of the specs this process read."""


def text_index_words(title: str, retrieval_header: str) -> str:
    """What the full-text index holds as a text's ``index_words``: the last
    :data:`PATH_TITLES` titles of its heading path (the ``Section:`` line of the retrieval
    header; the title when it has none), then :func:`identifier_words` of its title and of the
    header's ``Section:`` and ``Part:`` lines (the ``Document:`` line, which every chunk
    shares, is left out)."""
    lines = [
        line.split(": ", 1)[1]
        for line in retrieval_header.splitlines()
        if line.startswith(("Section: ", "Part: ")) and ": " in line
    ]
    section = next((line.split(": ", 1)[1] for line in retrieval_header.splitlines()
                    if line.startswith("Section: ")), title)  # fmt: skip
    path = section.split(PATH_SEPARATOR)[-PATH_TITLES:] if PATH_TITLES else []
    heading = " ".join(_SECTION_NUMBER.sub("", t) for t in path)
    return " ".join(w for w in (heading, identifier_words("\n".join([title, *lines]))) if w)


PATH_TITLES = 2
"""How many titles, from the end of a chunk's heading path, its ``index_words`` repeat: its own
section's title and its parent's (``The switch Statement``, ``Runtime Semantics: Evaluation``),
so a question naming both meets them in one short column."""

_SECTION_NUMBER = re.compile(r"^\s*(?:[A-Z]|\d+)(?:\.\d+)*\.?\s+")
