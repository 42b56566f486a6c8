"""Symbol hits: a query that names something the spec defines finds its definition first.

:func:`symbol_hits` reads the whole query as a name: a chunk id, a section id or number
(``14.6``, ``Annex B``), an element id (``#prod-IfStatement``), or a name in the symbol index
(:mod:`specbrowser.formats.symbols`: an aoid such as ``ToNumber``, a production such as
``IfStatement``, a term or intrinsic such as ``%Array%``, a title's leading name such as
``Array.prototype.map``, a section title), exactly, then in any case, then without a trailing
parameter list
(``ToNumber ( argument )``, ``Promise.all()``). Its hits go before every search mode's own
ranking (:func:`with_symbol_hits`), so a defined name ranks its defining section's root chunk
first in lexical, semantic and hybrid search alike.
"""

from __future__ import annotations

import re
from dataclasses import replace

from specbrowser.errors import NotFoundError
from specbrowser.search.hits import NO_FILTER, Hit, SearchFilter
from specbrowser.search.literal import HIGHLIGHT_END, HIGHLIGHT_START
from specbrowser.store import SpecStore
from specbrowser.store.symbols import SymbolRow
from specbrowser.types import SearchMode

MAX_DEFINITIONS = 3
"""The most sections a name's best-ranked definitions may lie in for it to name a place (an
aoid is defined once, a term in a few places at most). A name defined in more (a title such as
``Static Semantics: Early Errors``, repeated in hundreds of sections) names none: the mode's
own ranking decides."""

POINTS_AT_ANCHOR = frozenset({"production", "dfn", "id", "oldid"})
"""Symbol kinds whose defining element's chunk follows the section's root chunk (when the
section is broken down and the element lies in a subsection)."""

SYMBOL_STEP = 1e-6
"""How far above the best ranked score a symbol hit scores, per place, relative to that score."""

_PARAMETERS = re.compile(r"\s*\(.*\)\s*$")
_SNIPPET_CHARS = 200


def query_names(text: str) -> list[str]:
    """The names a query may be, most literal first: as typed (trimmed), without a leading
    ``#``, without a trailing parameter list."""
    name = text.strip()
    names = [name]
    if name.startswith("#") and len(name) > 1:
        names.append(name[1:])
    bare = _PARAMETERS.sub("", name)
    if bare and bare != name:
        names.append(bare)
    return list(dict.fromkeys(n for n in names if n))


DEFINITIONS_READ = 20
"""The most definitions of one name read (enough to tell a name of a few places from one of
many)."""


def definitions(db: SpecStore, name: str) -> tuple[list[SymbolRow], list[str]]:
    """The definitions of ``name``, best first (:func:`find_symbols`, at most
    :data:`DEFINITIONS_READ`), and the sections its best-ranked kind of definition lies in, in
    that order: a name whose sections are more than :data:`MAX_DEFINITIONS` names no one
    place."""
    symbols = db.symbols.find(name, limit=DEFINITIONS_READ)
    best = [s for s in symbols if s.kind == symbols[0].kind] if symbols else []
    return symbols, list(dict.fromkeys(s.section_id for s in best))


def symbol_chunks(db: SpecStore, text: str, version: str) -> list[tuple[str, str, str]]:
    """``(chunk id, kind, name)`` of the chunks a query names, best first (see the module
    docstring): the kind of name it matched (``chunk``, ``section``, or a
    :data:`~specbrowser.formats.symbols.SymbolKind`) and the name as the spec writes it; []
    when it names nothing."""
    found: dict[str, tuple[str, str]] = {}
    for name in query_names(text):
        if db.chunks([name], version):
            found.setdefault(name, ("chunk", name))
        if " " not in name or name.startswith("Annex "):  # "A realm" is no annex
            try:
                section_id = db.sections.resolve(name)
            except NotFoundError:
                pass
            else:
                found.setdefault(section_id, ("section", name))
        symbols, sections = definitions(db, name)
        if len(sections) > MAX_DEFINITIONS:  # "Static Semantics: Early Errors": no one place
            symbols, sections = [], []
        held = db.symbols.anchor_chunks(
            version,
            [s.anchor for s in symbols if s.anchor and s.kind in POINTS_AT_ANCHOR],
        )
        for symbol in symbols:
            if symbol.section_id not in sections:
                continue
            found.setdefault(symbol.section_id, (symbol.kind, symbol.name))
            chunk_id = held.get(symbol.anchor or "")
            if chunk_id:
                found.setdefault(chunk_id, (symbol.kind, symbol.name))
        if found:
            break
    return [(chunk_id, kind, name) for chunk_id, (kind, name) in found.items()]


def symbol_hits(
    db: SpecStore,
    text: str,
    mode: SearchMode = "lexical",
    *,
    policy_version: str | None = None,
    where: SearchFilter = NO_FILTER,
) -> list[Hit]:
    """The chunks of the active (or given) set that ``text`` names as a whole (see the module
    docstring), best first, within the filter ``where``, as hits of ``mode`` with a score of 0
    (:func:`with_symbol_hits` gives them their place); each snippet starts with the kind of name
    matched and the name, marked (``aoid \x02ToNumber\x03 · …``). [] for a query that names
    nothing."""
    version = policy_version or db.active_version()
    named = symbol_chunks(db, text, version)
    if not named:
        return []
    allowed = db.symbols.chunks_within(version, [c for c, _, _ in named], where)
    chunks = {c.id: c for c in db.chunks([c for c, _, _ in named if c in allowed], version)}
    hits = []
    for chunk_id, kind, name in named:
        chunk = chunks.get(chunk_id)
        if chunk is None:
            continue
        body = " ".join(chunk.text.split())[:_SNIPPET_CHARS]
        hits.append(
            Hit(
                chunk_id=chunk.id,
                section_id=chunk.section_id,
                title=chunk.title,
                heading_path=chunk.toc_path or chunk.heading_path,
                score=0.0,
                snippet=f"{kind} {HIGHLIGHT_START}{name}{HIGHLIGHT_END} · {body}",
                mode=mode,
            )
        )
    return hits


def with_symbol_hits(symbols: list[Hit], ranked: list[Hit], limit: int) -> list[Hit]:
    """``symbols`` first, then ``ranked`` without them, ``limit`` in all. A symbol hit scores
    just above the best ranked hit, in the mode's own units (the best score plus one
    :data:`SYMBOL_STEP` of it per place from the end of the symbol hits), so the list stays
    ordered by score and a semantic list keeps scores of minus a distance."""
    if not symbols:
        return ranked[:limit]
    seen = {h.chunk_id for h in symbols}
    rest = [h for h in ranked if h.chunk_id not in seen]
    top = max((h.score for h in ranked), default=0.0)
    step = SYMBOL_STEP * max(1.0, abs(top))
    scored = [
        replace(h, score=top + (len(symbols) - index) * step) for index, h in enumerate(symbols)
    ]
    return (scored + rest)[:limit]
