"""What an agent reads of a chunk set: any name resolved to a chunk, a chunk's direct
subsections with their kind, a section's breakdown tree reassembled, the section outline.

Seed 000 designs these reads for an agent: it meets a "Subsection available" marker, checks a
chunk's subsections, fetches a whole section recursively. The functions take the open
:class:`~specbrowser.store.SpecStore` and a full policy version; :class:`Session` wraps them
(``Session.locate``, ``Session.subsection_info``, ``Session.reassembled``,
``Session.outline``). Sizes are characters (code points), markers included unless named
otherwise.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

from specbrowser.chunking.markers import marker_ids, size_without_markers
from specbrowser.chunking.reassemble import reassemble, reassemble_spans
from specbrowser.errors import AmbiguousNameError, NotFoundError
from specbrowser.model import Chunk
from specbrowser.search.symbols import (
    DEFINITIONS_READ,
    MAX_DEFINITIONS,
    POINTS_AT_ANCHOR,
    definitions,
)
from specbrowser.store import SpecStore
from specbrowser.types import Layer, OverrunReason

ResolvedAs = Literal["chunk", "section", "anchor", "symbol"]
"""How :func:`locate` read a name: a chunk id of the set, a section id or number (``14.6``,
``Annex B``), the id of an element inside a section (``prod-IfStatement``, ``table-1``, an old id
ecmarkup keeps), or a name the spec defines (an aoid, a production, a term, a title's leading
name: :mod:`specbrowser.formats.symbols`)."""

ANCHOR_PROBE_CHARS = 60
"""Letters and digits from each end of an anchored element's text looked for in the section's
chunks (enough to tell most blocks apart, short enough for a chunk to hold them whole)."""

_NOT_ALNUM = re.compile(r"[\W_]+")


@dataclass(frozen=True)
class Located:
    """A name resolved to a chunk of a set.

    Attributes:
        chunk_id: the chunk.
        resolved_as: how the name was read (:data:`ResolvedAs`).
        section_id: for an anchor or a symbol, the section whose own HTML holds it; else the
            chunk's section (None for the document chunk).
        symbol_kind: for a symbol, its kind (``aoid``, ``production``, ``dfn``, ``title``,
            ``oldid``); else None.
        also_in: for an anchor or a section number given without its spec, the names of the
            other specs of the corpus that have an element of that id (``NAME:#anchor`` names
            one of them) or a section of that number (``NAME:2.2``), in corpus order; else
            empty.
    """

    chunk_id: str
    resolved_as: ResolvedAs
    section_id: str | None
    symbol_kind: str | None = None
    also_in: tuple[str, ...] = ()


def locate(db: SpecStore, name: str, version: str) -> Located:
    """The chunk ``name`` names in the set ``version``, tried in this order: a chunk id; a
    spec-prefixed chunk id (``ecma-262:sec-intro``,
    :meth:`~specbrowser.store.corpus.Corpus.resolve_id`); a URL into a spec of the corpus
    (``https://tc39.es/ecma262/#sec-intro``) or ``<spec>:#anchor`` (the chunk holding that
    spec's element); ``<spec>:<section number or id>``; a section id or number (its root chunk,
    the first spec's when several have it); an element id of the document,
    with or without a leading ``#`` (the chunk holding the element: :func:`anchor_chunk`); a
    name the spec defines (:meth:`specbrowser.store.symbols.SymbolIndex.find`: exact, then in
    any case; the best-ranked definition's root chunk, or for a production, term or old id the
    chunk holding it). A name whose best-ranked definitions lie in more than
    :data:`~specbrowser.search.symbols.MAX_DEFINITIONS` sections names none (search's rule).

    Raises:
        AmbiguousNameError: such a name (the message lists some of its sections).
        NotFoundError: none of these (one line naming what was asked for).
    """
    name = name.strip()
    if not name:
        raise NotFoundError(
            "no id given: pass a chunk id, a section number (14.6), an anchor or a defined name"
        )
    found = db.chunks([name], version)
    if found:
        return Located(name, "chunk", found[0].section_id)
    corpus_id = db.corpus.resolve_id(name, version)
    if corpus_id is not None:
        return Located(corpus_id, "chunk", db.chunk(corpus_id, version).section_id)
    in_spec = _spec_anchor(db, name)
    if in_spec is not None:
        held = anchor_chunk(db, in_spec[1], version, in_spec[0])
        if held is None:
            raise NotFoundError(f"{name!r}: no element with the id {in_spec[1]!r} in that spec")
        return Located(held[1], "anchor", held[0])
    numbered = _spec_section(db, name) or db.sections.numbered(name)
    if numbered:
        section_id = numbered[0][0]
        return Located(section_id, "section", section_id, also_in=_other_specs_of(db, numbered))
    anchor = name[1:] if name.startswith("#") and len(name) > 1 else name
    held = anchor_chunk(db, anchor, version)
    if held is not None:
        return Located(held[1], "anchor", held[0], also_in=_other_specs_with(db, anchor))
    symbols, sections = definitions(db, anchor)
    if len(sections) > MAX_DEFINITIONS:  # "Static Semantics: Early Errors": no one place
        more = "+" if len(symbols) == DEFINITIONS_READ else ""
        raise AmbiguousNameError(
            f"{name!r} names {len(sections)}{more} sections ({', '.join(sections[:3])}, …): "
            "pass the section's number or id"
        )
    for symbol in symbols:
        if not db.chunks([symbol.section_id], version):
            continue
        chunk_id = symbol.section_id
        if symbol.anchor and symbol.kind in POINTS_AT_ANCHOR:
            chunk_id = (anchor_chunk(db, symbol.anchor, version) or (None, chunk_id))[1]
        return Located(chunk_id, "symbol", symbol.section_id, symbol.kind)
    raise NotFoundError(
        f"no chunk, section, section number or anchor {name!r} in this chunk set, "
        "nor a name it defines (aoid, production, term, title)"
    )


def _spec_section(db: SpecStore, name: str) -> list[tuple[str, str]]:
    """For ``<spec name>:<section id or number>`` (``webauthn:2.2``), that spec's section as
    :meth:`~specbrowser.store.sections.Sections.numbered` gives it; else []."""
    spec_name, sep, rest = name.partition(":")
    if not sep or not rest or rest.startswith("#"):
        return []
    spec = next((s for s in db.corpus.all() if s.name == spec_name), None)
    return db.sections.numbered(rest, spec.id)[:1] if spec is not None else []


def _other_specs_of(db: SpecStore, sections: list[tuple[str, str]]) -> tuple[str, ...]:
    """The names of the specs after the first that hold one of ``sections`` (``(section id,
    document id)``, the first spec's first): a number given without its spec is the first's."""
    return _names_after_first(db, list(dict.fromkeys(spec_id for _, spec_id in sections)))


def _other_specs_with(db: SpecStore, anchor: str) -> tuple[str, ...]:
    """The names of the specs after the first (corpus order) that have an element with the id
    ``anchor``: an anchor given without its spec is the first's (:func:`anchor_chunk`)."""
    return _names_after_first(db, db.symbols.anchor_specs(anchor))


def _names_after_first(db: SpecStore, holders: list[str]) -> tuple[str, ...]:
    """The corpus names of the spec ids ``holders`` (distinct, in corpus order) but the first."""
    if len(holders) < 2:
        return ()
    names = {spec.id: spec.name for spec in db.corpus.all()}
    return tuple(names.get(spec_id, spec_id) for spec_id in holders[1:])


def spec_url_target(db: SpecStore, url: str, version: str) -> Located | None:
    """The chunk of the set ``version`` a URL into a spec of the corpus leads to
    (:func:`_spec_anchor`), or None: no spec of the corpus at that URL, or no element with the
    fragment's id in it."""
    if "://" not in url:
        return None
    in_spec = _spec_anchor(db, url)
    if in_spec is None:
        return None
    held = anchor_chunk(db, in_spec[1], version, in_spec[0])
    return Located(held[1], "anchor", held[0]) if held is not None else None


def _spec_anchor(db: SpecStore, name: str) -> tuple[str, str] | None:
    """``(document id, anchor)`` when ``name`` is a URL into a spec of the corpus (its
    canonical URL or an alias, then ``#anchor``: :meth:`Corpus.spec_of_url
    <specbrowser.store.corpus.Corpus.spec_of_url>`) or ``<spec name>:#anchor``; else None."""
    if "://" in name:
        # deferred: the formats package (about 40 ms of imports), only for a URL
        from specbrowser.formats.identity import url_aliases

        found = db.corpus.spec_of_url(name, url_aliases)
        return (found[0].id, found[1]) if found else None
    spec_name, sep, rest = name.partition(":#")
    if sep and rest:
        spec = next((s for s in db.corpus.all() if s.name == spec_name), None)
        if spec is not None:
            return spec.id, rest
    return None


def anchor_chunk(
    db: SpecStore, anchor: str, version: str, document_id: str | None = None
) -> tuple[str, str] | None:
    """``(section id, chunk id)`` of the element with the id ``anchor`` in the set ``version``,
    in the spec ``document_id`` (None: in any, the first of the corpus first): the subsection
    holding it by the set's anchor map, else its section's root chunk; None when the spec has
    no element of that id. A set made before anchor maps were recorded
    (:meth:`specbrowser.store.symbols.SymbolIndex.has_anchor_map`) finds the chunk by comparing
    texts."""
    section_id = db.symbols.anchor_section(anchor, document_id)
    if section_id is None and db.symbols.count() == 0:  # no index: a spec without ids
        section_id = db.sections.with_anchor(anchor)
    if section_id is None:
        return None
    if not db.chunks([section_id], version):
        return None
    if db.symbols.has_anchor_map(version):
        held = db.symbols.anchor_chunks(version, [anchor], document_id)
        return section_id, held.get(anchor, section_id)
    return section_id, _chunk_holding(db, section_id, anchor, version)


def _chunk_holding(db: SpecStore, section_id: str, anchor: str, version: str) -> str:
    """The chunk of the section's breakdown tree that holds the anchored element's text: of
    the chunks holding its start, those holding its end too, then the deepest (letters and
    digits compared, so Markdown syntax does not count); the section's root chunk when none
    does or the element has no text."""
    # deferred: lxml's tree and HTML parser (15 ms), only to find an anchor by its text
    import lxml.etree
    import lxml.html

    try:
        root = lxml.html.fromstring(db.sections.get(section_id).html)
    except (ValueError, TypeError, lxml.etree.ParserError):  # fall back to the section
        return section_id
    element = next((e for e in root.iter() if e.get("id") == anchor), None)
    if element is None:
        return section_id
    letters = _NOT_ALNUM.sub("", "".join(str(t) for t in element.itertext())).casefold()
    start, end = letters[:ANCHOR_PROBE_CHARS], letters[-ANCHOR_PROBE_CHARS:]
    if not letters:
        return section_id
    found: list[tuple[bool, int, int, str]] = []
    for chunk in breakdown_tree(db, section_id, version):
        text = _NOT_ALNUM.sub("", chunk.text).casefold()
        if start in text:
            found.append((end in text, chunk.depth, -len(found), chunk.id))  # ties: the first
    return max(found)[3] if found else section_id


def breakdown_tree(db: SpecStore, chunk_id: str, version: str) -> Iterator[Chunk]:
    """A chunk and the subsections its breakdown made, recursively, in pre-order (child
    sections' chunks left out: they are sections of their own).

    Raises:
        NotFoundError: no chunk with that id.
    """
    stack = [db.chunk(chunk_id, version)]
    while stack:
        chunk = stack.pop()
        yield chunk
        own = [c for c in db.chunks(chunk.subsections, version) if c.parent_id == chunk.id]
        stack.extend(reversed(own))


@dataclass(frozen=True)
class Reassembled:
    """A chunk's text with every breakdown marker replaced by the subsection's content.

    Attributes:
        chunk_id, section_id, title: the chunk reassembled.
        text: the Markdown, as the whole section (or element) converts in one piece, up to
            blank lines and trailing spaces; child sections' markers stay in place.
        chunks: how many chunks it was put together from (1: the chunk was never broken down).
        child_sections: the ids of the child sections whose markers stay, in text order.
    """

    chunk_id: str
    section_id: str | None
    title: str
    text: str
    chunks: int
    child_sections: list[str]


def reassembled(db: SpecStore, chunk_id: str, version: str) -> Reassembled:
    """:func:`specbrowser.chunking.reassemble.reassemble` of a chunk over its breakdown tree.

    Raises:
        NotFoundError: no chunk with that id.
    """
    tree = {c.id: c for c in breakdown_tree(db, chunk_id, version)}
    text = reassemble(chunk_id, tree)
    root = tree[chunk_id]
    return Reassembled(
        chunk_id=chunk_id,
        section_id=root.section_id,
        title=root.title,
        text=text,
        chunks=len(tree),
        child_sections=marker_ids(text),
    )


@dataclass(frozen=True)
class ChunkSpan:
    """Where one chunk's text lies in a reassembled section (character offsets, end excluded).

    A chunk whose text is split by its own subsections has several spans; ``size`` is the
    chunk's whole size (markers included), as the tree and the header show it.
    """

    chunk_id: str
    start: int
    end: int
    size: int


@dataclass(frozen=True)
class Boundaries:
    """A section reassembled (as :func:`reassembled`) with the chunk each part comes from.

    Attributes:
        chunk_id: the chunk reassembled (a section's root chunk, normally).
        text: the Markdown, equal to :attr:`Reassembled.text`.
        spans: runs covering ``text`` in order, without gaps.
    """

    chunk_id: str
    text: str
    spans: list[ChunkSpan]


def boundaries(db: SpecStore, chunk_id: str, version: str) -> Boundaries:
    """The chunk's breakdown tree put back together, and where each chunk's text lies in it
    (:func:`specbrowser.chunking.reassemble.reassemble_spans`).

    Raises:
        NotFoundError: no chunk with that id.
    """
    tree = {c.id: c for c in breakdown_tree(db, chunk_id, version)}
    text, runs = reassemble_spans(chunk_id, tree)
    spans = [ChunkSpan(cid, start, end, tree[cid].size) for cid, start, end in runs]
    return Boundaries(chunk_id=chunk_id, text=text, spans=spans)


@dataclass(frozen=True)
class SubsectionInfo:
    """One direct subsection of a chunk, as ``specbrowser subsections`` lists it.

    Attributes:
        id: the subsection's chunk id.
        kind: the breakdown tag that made it, or for a child section the element that made
            it as its format names it (``emu-clause``; ``heading`` for plain HTML).
        is_section: a child section's root chunk (True) or a breakdown subsection.
        title: its title ("" when it has none).
        layer: its :data:`~specbrowser.types.Layer`.
        size: its text in characters, markers included.
        size_without_markers: the same less its own markers.
        over_threshold: None, or why it stayed over the threshold.
        subsections: how many subsections it has in turn.
    """

    id: str
    kind: str
    is_section: bool
    title: str
    layer: Layer
    size: int
    size_without_markers: int
    over_threshold: OverrunReason | None
    subsections: int


def subsection_info(db: SpecStore, chunk: Chunk, version: str) -> list[SubsectionInfo]:
    """The direct subsections of ``chunk`` in marker order."""
    # deferred: the formats and lxml (18 ms), only for a section's kind
    from specbrowser.formats import section_kind_label

    found = []
    for child in db.chunks(chunk.subsections, version):
        is_section = child.parent_id is None and child.section_id is not None
        if child.breakdown_tag:
            kind = child.breakdown_tag
        elif child.section_id:
            kind = section_kind_label(db.sections.get(child.section_id).kind)
        else:
            kind = child.layer
        found.append(
            SubsectionInfo(
                id=child.id,
                kind=kind,
                is_section=is_section,
                title=child.title,
                layer=child.layer,
                size=child.size,
                size_without_markers=size_without_markers(child.text),
                over_threshold=child.over_threshold,
                subsections=len(child.subsections),
            )
        )
    return found


@dataclass(frozen=True)
class OutlineEntry:
    """One section of the outline.

    Attributes:
        section_id: the section (its root chunk has the same id).
        number: its section number as printed (``14.6``, ``Annex B``; "" when unnumbered).
        title: its title without the number.
        depth: 0 for a top-level section.
        heading_path: the parser's path of display titles, top-level section first.
        toc_path: the TOC's path (None when the TOC gives none; then ``heading_path`` stands).
        mismatch: how the two disagree, or None.
        child_sections: how many sections it holds directly.
        chunks: how many chunks of the set its own text makes (1: not broken down).
        size: its root chunk's size in characters, markers included.
        over_threshold: how many of its own chunks stayed over the threshold.
    """

    section_id: str
    number: str
    title: str
    depth: int
    heading_path: list[str]
    toc_path: list[str] | None
    mismatch: str | None
    child_sections: int
    chunks: int
    size: int
    over_threshold: int


def outline(
    db: SpecStore,
    version: str,
    root: str | None = None,
    depth: int | None = None,
    document_id: str | None = None,
) -> list[OutlineEntry]:
    """The sections under ``root`` (a section id; None: the whole spec, every spec of a
    corpus in corpus order) down to ``depth`` levels below it (1: its child sections only;
    None: all), in document order; ``root`` itself comes first. ``document_id`` keeps the
    sections of that spec only.

    Raises:
        NotFoundError: no section with the id ``root`` (in that spec).
    """
    rows = db.sections.outline(document_id)
    children: dict[str | None, int] = {}
    for row in rows:
        children[row.parent_id] = children.get(row.parent_id, 0) + 1
    briefs = db.chunk_briefs(version)
    counts: dict[str, list[int]] = {}
    sizes: dict[str, int] = {}
    for brief in briefs:
        if brief.section_id is None:
            continue
        count = counts.setdefault(brief.section_id, [0, 0])
        count[0] += 1
        count[1] += brief.over_threshold is not None
        if brief.parent_id is None:
            sizes[brief.section_id] = brief.size
    if root is not None and not any(row.id == root for row in rows):
        raise NotFoundError(f"no section with id {root!r}")
    levels: dict[str, int] = {}  # section id -> levels below the root
    entries = []
    for row in rows:
        if root is None:
            level = row.depth + 1
        elif row.id == root:
            level = 0
        elif row.parent_id is not None and row.parent_id in levels:
            level = levels[row.parent_id] + 1
        else:
            continue
        levels[row.id] = level
        if depth is not None and level > depth:
            continue
        own = counts.get(row.id, [0, 0])
        entries.append(
            OutlineEntry(
                section_id=row.id,
                number=row.secnum,
                title=row.title,
                depth=row.depth,
                heading_path=row.heading_path,
                toc_path=row.toc_path,
                mismatch=row.mismatch,
                child_sections=children.get(row.id, 0),
                chunks=own[0],
                size=sizes.get(row.id, 0),
                over_threshold=own[1],
            )
        )
    return entries
