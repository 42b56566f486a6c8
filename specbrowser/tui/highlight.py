"""Search hits as styled text: snippets with their matched terms, and where those terms occur in a
chunk's text.

Pure functions (Rich ``Text`` only, no Textual). Spec text is never parsed as markup: a snippet is
split on :data:`~specbrowser.search.literal.HIGHLIGHT_START` /
:data:`~specbrowser.search.literal.HIGHLIGHT_END` and each piece appended as plain text.

Which words to highlight in the chunk view: the words FTS5 marked in the snippet, plus the
query's own words. FTS5's ``unicode61`` tokenizer splits on everything but letters and digits, so
``Array.prototype.map`` matched the words ``array``, ``prototype`` and ``map``; they are found
again in the chunk's text as whole words, case-insensitively (diacritics folding is not redone:
a word FTS5 matched only through folding is marked in the snippet but may be missed in the view).
"""

from __future__ import annotations

import re

from rich.text import Text

from specbrowser.search.literal import HIGHLIGHT_END, HIGHLIGHT_START
from specbrowser.search.literal import STOPWORDS as SEARCH_STOPWORDS

SNIPPET_MATCH_STYLE = "bold reverse"
"""A matched term in a results-list snippet."""

_WORDS = re.compile(r"\w+")
_SPACES = re.compile(r"\s+")
"""Whitespace runs, newlines included: a snippet is shown on one line."""


def snippet_text(snippet: str, match_style: str = SNIPPET_MATCH_STYLE) -> Text:
    """A hit's snippet as ``Text``: the marked terms styled ``match_style``, every whitespace
    run (newlines included) as one space.

    Unbalanced marks (a snippet cut inside a term) style up to the end, never raise.
    """
    text = Text()
    inside = False
    for piece in re.split(f"([{HIGHLIGHT_START}{HIGHLIGHT_END}])", snippet):
        if piece == HIGHLIGHT_START:
            inside = True
        elif piece == HIGHLIGHT_END:
            inside = False
        elif piece:
            text.append(_SPACES.sub(" ", piece), style=match_style if inside else "")
    return text


def snippet_terms(snippet: str) -> list[str]:
    """The words FTS5 marked in a snippet, in order, without repeats (case-folded)."""
    marked = re.findall(f"{HIGHLIGHT_START}(.*?){HIGHLIGHT_END}", snippet, flags=re.DOTALL)
    return _unique(word for term in marked for word in _WORDS.findall(term))


STOPWORDS = SEARCH_STOPWORDS | {"has", "have", "i", "if", "not", "was", "will"}
"""English function words left out of the query words highlighted in the view (the search
layer's, which its any-word fill leaves out, and a few more): a semantic hit
has no FTS5 marks, and "how does the … work" would light up every "the" of the chunk."""


def match_terms(query: str, snippet: str = "") -> list[str]:
    """The words to highlight for a hit: its snippet's marked words, then the query's words
    other than :data:`STOPWORDS` (all of them when the query is only stopwords; a spec token
    such as ``for-in`` keeps all its words), case-folded, no repeats. ``[bold]`` gives
    ``bold``; ``"`` gives nothing."""
    words = _WORDS.findall(query)
    content = [
        word
        for token in query.split()
        for word in _WORDS.findall(token)
        if len(_WORDS.findall(token)) > 1 or word.casefold() not in STOPWORDS
    ]
    return _unique([*snippet_terms(snippet), *(content or words)])


def term_spans(text: str, terms: list[str]) -> list[tuple[int, int]]:
    """``(start, end)`` of every whole-word, case-insensitive occurrence of ``terms`` in
    ``text``, in order, not overlapping (longer terms win at the same place)."""
    if not terms:
        return []
    alternatives = "|".join(re.escape(t) for t in sorted(terms, key=len, reverse=True))
    pattern = re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)", re.IGNORECASE)
    return [m.span() for m in pattern.finditer(text)]


def _unique(words) -> list[str]:
    seen: dict[str, None] = {}
    for word in words:
        seen.setdefault(word.casefold(), None)
    return list(seen)
