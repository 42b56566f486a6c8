"""Queries made from the spec itself, for scoring chunk sets when the user has written none.

Two kinds, drawn deterministically (the same database gives the same queries) and spread over
the whole spec:

- **passages**: a span of one to three consecutive prose blocks of a section (paragraphs or
  list items of at least :data:`MIN_PASSAGE_CHARS` characters, never code, tables, headings or
  subsection markers) is the excerpt; the query is its :data:`QUERY_WORDS` most distinctive
  words (highest inverse section frequency; identifiers split into their words, as a person
  asking in words would write ``is array`` for ``IsArray``), in the passage's order. So the
  query shares words with the passage but never copies it: what a reader who half remembers a
  passage types. The expected id is the section.
- **definitions**: a name the spec defines (an abstract operation, a grammar production, a
  term; :data:`DEFINITION_KINDS` of the symbol index) asked in words (its identifier words, or
  the term as written); the expected id is the defining section.

:data:`PASSAGE_SHARE` of the queries are passages. ``specbrowser advise`` uses them when no
query file is given; BENCHMARKS.md shows how their ranking of candidates agrees with
hand-written query sets on ECMA-262.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections import defaultdict
from collections.abc import Callable
from typing import TypeVar

from specbrowser.chunking.identifiers import identifier_parts
from specbrowser.chunking.markers import without_markers
from specbrowser.search.literal import STOPWORDS
from specbrowser.session.query_file import EvalQuery
from specbrowser.store import SpecStore

AUTO_QUERY_COUNT = 150
"""How many queries are made by default (fewer when the spec has fewer eligible passages)."""

PASSAGE_SHARE = 2 / 3
"""The share of passage queries; the rest ask for definitions."""

QUERY_WORDS = 5
"""Words in a passage query."""

MIN_PASSAGE_CHARS = 80
"""Shortest prose block that can make (part of) a passage, in characters."""

MAX_PASSAGE_CHARS = 700
"""A passage stops growing past this many characters."""

DEFINITION_KINDS = ("aoid", "production", "dfn")
"""Symbol kinds asked for as definitions (see :data:`specbrowser.types.SYMBOL_KINDS`)."""

AUTOMATIC_SOURCE = "automatic queries"
"""What the queries' file is called in messages and reports."""

_T = TypeVar("_T")
_LINK_TARGET = re.compile(r"\]\([^)\s]*\)")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*")
_ITEM = re.compile(r"^\s*(?:\d+\.|[-*+])\s+")
_ALGORITHM_WORDS = frozenset(
    {"let", "then", "else", "return", "set", "perform", "assert", "throw", "true", "false"}
)


def automatic_queries(
    store: SpecStore, policy_version: str, *, count: int = AUTO_QUERY_COUNT, seed: str = ""
) -> list[EvalQuery]:
    """About ``count`` queries made from the spec's text in the chunk set ``policy_version``
    (any set: passages are read from the chunks of each section, markers removed) and from its
    symbol index. ``seed`` draws another sample. Queries are numbered 1… in ``line``; an empty
    list when the spec has no prose."""
    sections: dict[str, list[str]] = defaultdict(list)
    for chunk in store.iter_chunks(policy_version):
        if chunk.section_id:
            sections[chunk.section_id].extend(_prose_blocks(chunk.text))
    frequency: dict[str, int] = defaultdict(int)
    for blocks in sections.values():
        for word in {w for block in blocks for w in _words(block)}:
            frequency[word] += 1
    total = max(1, len(sections))

    def rarity(word: str) -> float:
        return math.log(total / frequency.get(word, 1))

    passages = _passages(sections, seed)
    wanted = round(count * PASSAGE_SHARE)
    queries: list[EvalQuery] = []
    for section_id, excerpt in passages:
        words = list(dict.fromkeys(_words(excerpt)))
        if len(words) < QUERY_WORDS:
            continue
        chosen = set(sorted(words, key=lambda w: (-rarity(w), w))[:QUERY_WORDS])
        query = " ".join(w for w in words if w in chosen)
        queries.append(EvalQuery(query, (section_id,), excerpt))
        if len(queries) >= wanted:
            break
    known = set(sections)
    names = [
        (name, section_id)
        for name, section_id in store.advice.definitions(DEFINITION_KINDS)
        if section_id in known
    ]
    for name, section_id in _sample(names, count - len(queries), seed, key=lambda n: n[0]):
        asked = " ".join(part.lower() for part in identifier_parts(name)) or name
        queries.append(EvalQuery(asked, (section_id,)))
    return [
        EvalQuery(q.query, q.expected, q.excerpt, line) for line, q in enumerate(queries, start=1)
    ]


def _prose_blocks(text: str) -> list[str]:
    """The blocks of a chunk's Markdown that read as prose (see the module's docstring)."""
    blocks: list[str] = []
    for block in re.split(r"\n\s*\n", without_markers(text)):
        block = block.strip()
        if (
            len(block) < MIN_PASSAGE_CHARS
            or block.startswith(("#", "|", "```", ">", "    "))
            or "```" in block
        ):
            continue
        blocks.append(block)
    return blocks


def _words(text: str) -> list[str]:
    """Content words of a block, lower case: identifiers split into their parts, link targets,
    stopwords, algorithm keywords and words under three letters left out."""
    words: list[str] = []
    for token in _WORD.findall(_ITEM.sub("", _LINK_TARGET.sub("]", text))):
        for part in identifier_parts(token) or [token]:
            word = part.lower()
            if len(word) >= 3 and word not in STOPWORDS and word not in _ALGORITHM_WORDS:
                words.append(word)
    return words


def _passages(sections: dict[str, list[str]], seed: str) -> list[tuple[str, str]]:
    """One passage per section that has prose, ``(section id, excerpt)``, in a deterministic
    shuffled order (so the first N spread over the spec): one to three consecutive blocks from a
    drawn start, stopping past :data:`MAX_PASSAGE_CHARS`."""
    chosen: list[tuple[str, str]] = []
    for section_id in _sample(list(sections), len(sections), seed, key=lambda s: s):
        blocks = sections[section_id]
        if not blocks:
            continue
        draw = _draw(seed, section_id)
        start = draw % len(blocks)
        span = [blocks[start]]
        for block in blocks[start + 1 : start + 1 + draw // 7 % 3]:
            if sum(len(b) for b in span) > MAX_PASSAGE_CHARS:
                break
            span.append(block)
        chosen.append((section_id, "\n\n".join(span)))
    return chosen


def _sample(items: list[_T], count: int, seed: str, *, key: Callable[[_T], str]) -> list[_T]:
    """``count`` of ``items`` in a deterministic shuffled order (by a hash of ``key(item)``)."""
    return sorted(items, key=lambda item: _draw(seed, key(item)))[: max(0, count)]


def _draw(seed: str, text: str) -> int:
    return int.from_bytes(hashlib.sha256(f"{seed}\0{text}".encode()).digest()[:8], "big")
