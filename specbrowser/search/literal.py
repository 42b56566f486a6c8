"""What lexical search looked for: the words of a query once the index's tokenizer dropped its
punctuation, the function words it leaves out (:data:`STOPWORDS`), and the marks around what it
found in a snippet (:data:`HIGHLIGHT_START`, :data:`HIGHLIGHT_END`).

The FTS5 index splits text at every character that is not a letter or a digit (``unicode61``,
:data:`specbrowser.store.schema.FTS_TOKENIZER`), folding case and diacritics, so
``[[Prototype]]`` is searched as ``prototype`` and ``Array.prototype.map`` as the phrase
``array prototype map``. :func:`searched_as` names those words so front ends can say so
(:func:`specbrowser.search.query.searched_as_note`); a query
that names a definition exactly is found by its name all the same
(:mod:`specbrowser.search.symbols`).
"""

from __future__ import annotations

import re
import unicodedata

_WORD = re.compile(r"[^\W_]+")
"""A run of letters and digits: what ``unicode61`` keeps as one token (``_`` separates)."""
_DROPPED = re.compile(r"[^\w\s]|_")

HIGHLIGHT_START = "\x02"
"""Opens a term the index matched in a hit's snippet (:attr:`specbrowser.search.hits.Hit.snippet`;
a control character no spec text contains)."""
HIGHLIGHT_END = "\x03"
"""Closes a term the index matched in a hit's snippet."""

STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "can",
        "do",
        "does",
        "for",
        "from",
        "how",
        "in",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "that",
        "the",
        "this",
        "to",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "with",
    ]
)
"""English function words left out of a lexical query (they match nearly every chunk and
BM25 gives them next to no weight), unless the query has no other word: ``this`` alone is
searched as it is."""


def query_words(text: str) -> list[str]:
    """The words the index matches ``text`` by: letters-and-digits runs, case folded, diacritics
    removed (as ``remove_diacritics 2`` does for Latin letters)."""
    folded = unicodedata.normalize("NFKD", text.casefold())
    plain = "".join(c for c in folded if not unicodedata.combining(c))
    return _WORD.findall(plain)


def is_searchable(text: str) -> bool:
    """Whether ``text`` has anything the index matches (:func:`query_words`): a query with no
    letter or digit is refused by every front end, as an empty one is."""
    return bool(query_words(text))


def searched_as(text: str) -> str | None:
    """The words lexical search looked for, space-separated, when ``text`` held punctuation the
    index drops (``[[Prototype]]`` → ``prototype``, ``don't`` → ``don t``); None when nothing
    was dropped (case and spacing do not count)."""
    if not _DROPPED.search(text):
        return None
    return " ".join(query_words(text))
