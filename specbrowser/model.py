"""Core data types: plain dataclasses shared by parsing, breakdown, storage and the app."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from lxml import etree

from specbrowser.types import Layer, MismatchKind, OverrunReason, SymbolKind

DOCUMENT_CHUNK_ID = "specbrowser:document"
"""Id of the document (synopsis) chunk of every chunk set. Section ids are the spec's element
ids (or ids a format makes up) and subsection ids end in ``-<tag>-<n>``; ingest refuses a spec
with a section of this id, so it never collides. The colon survives markers (backtick-delimited)
and app links (%-quoted)."""

ORDINAL_SPAN = 100_000_000
"""Ordinals per spec of a corpus: the spec at position ``p`` numbers its sections and chunks
from ``p * ORDINAL_SPAN`` (the first spec from 0, as a database of one spec always did)."""

PREFIX_SEPARATOR = ":"
"""Between a spec's name and an id of it (``import-attributes:sec-intro``)."""


def prefixed(name: str, item_id: str) -> str:
    """``<name>:<id>``: how a spec's id is stored when another spec of the corpus has it
    already (:mod:`specbrowser.store.corpus`)."""
    return f"{name}{PREFIX_SEPARATOR}{item_id}"


SECTION_REF_TAG = "sb-section-ref"
"""Placeholder element for a child section inside its parent's own HTML (every format writes it;
the Markdown converter renders it as a "Subsection available" marker)."""


@dataclass
class Document:
    """One ingested spec.

    Attributes:
        id: a short stable id (the sha256 prefix of the inputs).
        title: the document title (``<title>``, else the first heading).
        kind: the spec format's name for what was read (one of a format's
            :attr:`~specbrowser.formats.base.SpecFormat.kinds`; ``html-headings`` for plain HTML).
        source_paths: the files read, in document order.
        sha256: hash over the raw bytes of all source files, in order.
    """

    id: str
    title: str
    kind: str
    source_paths: list[str]
    sha256: str


@dataclass
class Section:
    """One section of a spec, as its format found it (a clause element, a heading …).

    Attributes:
        id: the element id exactly as written.
        parent_id: the id of the nearest enclosing section, or None at top level.
        ordinal: 0-based position in document order over all sections.
        depth: 0 for a top-level section.
        kind: what made the section, named by its format (``clause``, ``annex``, ``heading`` …).
        secnum: the section number as the spec writes it (``14.6.1``, ``Annex A (informative)``)
            or "".
        title: the heading text without the section number, inline code text kept.
        html: the section's own HTML: its element with every child section replaced by an empty
            ``<sb-section-ref data-id=… data-title=…>`` placeholder.
        source_file: base name of the file the section came from.
    """

    id: str
    parent_id: str | None
    ordinal: int
    depth: int
    kind: str
    secnum: str
    title: str
    html: str
    source_file: str

    @property
    def display_title(self) -> str:
        """``secnum title`` as shown in markers, tree labels and heading paths."""
        return f"{self.secnum} {self.title}".strip()


@dataclass
class TocNode:
    """One entry of a table of contents (the document's own, or an external ``--toc`` file).

    Attributes:
        title: the entry's heading text without its section number.
        secnum: the entry's section number ("14.6", "A.1") or "".
        target_id: the section id an HTML TOC link points at (its fragment), or None.
        start: first position the entry covers, or None when unknown. For HTML the reconciler
            sets it from ``target_id`` (the target section's ordinal); an external TOC gives
            it (page numbers for paginated sources, or section ordinals).
        end: last position covered (inclusive), or None for open-ended (see
            :func:`specbrowser.chunking.toc_paths.build_heading_paths`).
        children: nested entries, in order.
    """

    title: str
    secnum: str = ""
    target_id: str | None = None
    start: int | None = None
    end: int | None = None
    children: list[TocNode] = field(default_factory=list)

    @property
    def display_title(self) -> str:
        """``secnum title`` as a path element."""
        return f"{self.secnum} {self.title}".strip()


@dataclass
class Chunk:
    """One piece of a section's text, as stored and as shown.

    Attributes:
        id: the section id for a section's root chunk; ``<parent chunk id>-<tag>-<n>`` for a
            subsection (seed strategy: n counts from 1 per parent and tag; guarded strategy:
            n is the member's place among the tag's matches, and a packed run, rule unit or row
            group is ``<parent chunk id>-<tag>-<first>-<last>``, see
            :mod:`specbrowser.chunking.guards`).
        section_id: the section this chunk belongs to; None for the document chunk.
        parent_id: the chunk this one was extracted from; None for a section's root chunk.
        subsections: ids of the chunks whose markers appear in :attr:`text`, in text order
            (breakdown subsections and child sections' root chunks alike).
        depth: 0 for a root chunk, parent depth + 1 for a subsection.
        layer: ``section`` for a root chunk, ``subsection`` for an extracted one, ``table_row``
            for a row group of a table, ``document`` for the one synopsis chunk of a chunk set
            (:data:`specbrowser.types.Layer`).
        breakdown_tag: the tag that extracted this chunk; None for a root chunk.
        title: the section's display title, or the subsection's title (table caption, grammar
            production names; the marker standing for it carries this title), else its first
            words (a paragraph, a cell, a step: :func:`specbrowser.chunking.rules.first_words`;
            not in the marker, which stays short), or "" when it has no text.
        heading_path: display titles of the sections from the top-level section down to this
            chunk's section.
        text: Markdown, markers included.
        size: ``len(text)`` in characters (code points): the threshold's default unit.
        over_threshold: None, or why the chunk stayed over the threshold: ``max_depth`` (no
            breakdown below the policy's max depth) or ``unsplittable`` (no remaining tag matched);
            see :data:`specbrowser.types.OverrunReason`.
        ordinal: 0-based position among all chunks of the chunk set in pre-order: the document
            chunk is 0, then sections in document order, each chunk before its subsections.
        section_ordinal: the section number as a dotted string (``14.6.1``, ``B.1.2``; an
            annex's letter, ``B``), or "" for an unnumbered section and the document chunk;
            subsections carry their section's.
        retrieval_text: what text search and embeddings index: a short header (document title,
            heading path, part) then :attr:`text`; see :mod:`specbrowser.chunking.enrich`.
        toc_path: the canonical heading path from the document's TOC (see
            :func:`specbrowser.chunking.toc_paths.build_heading_paths`), or None when the TOC
            gives none (then :attr:`heading_path`, the parser's, is the one to use).
        mismatch: how the section's parser path and TOC path disagree (a
            :data:`specbrowser.types.MismatchKind` other than ``toc_entry_without_section``,
            which only a TOC entry has), or None.
        holds_for: on a section's root chunk, the thresholds ``(lo, hi)`` (in the policy's
            unit: characters, or tokens) for
            which the breakdown makes this same chunk tree of the section: ``lo <= threshold <
            hi`` (``hi`` None: no upper bound), the other settings equal (see
            :mod:`specbrowser.chunking.breakdown`). With ``hi`` None the section is one chunk
            that fits, whatever the tags and depth. None on other chunks and when unknown.
        anchors: on a subsection, the element ids its own part of its section holds (not those
            of its subsections, which hold their own), in document order, as the breakdown found
            them; [] on a section's root chunk (an id no subsection holds is in it: the store
            records subsections' ids only) and when not recorded (a chunk read back from the
            store). Not compared: it follows from the section and the chunk's place in it.
    """

    id: str
    section_id: str | None
    parent_id: str | None
    depth: int
    layer: Layer
    breakdown_tag: str | None
    title: str
    heading_path: list[str]
    text: str
    over_threshold: OverrunReason | None = None
    subsections: list[str] = field(default_factory=list)
    ordinal: int = 0
    section_ordinal: str = ""
    retrieval_text: str = ""
    toc_path: list[str] | None = None
    mismatch: MismatchKind | None = None
    holds_for: tuple[int, int | None] | None = None
    anchors: list[str] = field(default_factory=list, compare=False, repr=False)

    @property
    def size(self) -> int:
        """Length of :attr:`text` in characters."""
        return len(self.text)


class SpecIdentity(NamedTuple):
    """What tells one spec from another in a corpus (:mod:`specbrowser.formats.identity` reads
    it; :func:`specbrowser.store.corpus.same_spec` compares it).

    Attributes:
        canonical_url: the spec's own URL, ending in ``/`` or a file name, without fragment
            (``https://tc39.es/ecma262/``), or None when the spec does not say.
        shortname: the spec's short name as it writes it (``ECMA-262``, ``fetch``), or None.
    """

    canonical_url: str | None = None
    shortname: str | None = None


@dataclass
class ParsedSpec:
    """The result of parsing a spec (:func:`specbrowser.formats.load_spec`): one document and
    its sections in document order.

    ``elements`` maps a section id to its own-content element (child sections already replaced
    by placeholders). The breakdown may mutate these elements; they are not needed afterwards.
    """

    document: Document
    sections: list[Section]
    elements: dict[str, etree._Element] = field(repr=False, default_factory=dict)
    toc: list[TocNode] = field(default_factory=list)
    """The document's own table of contents (top-level entries), or [] when it has none."""
    identity: SpecIdentity = field(default_factory=SpecIdentity)
    """The spec's canonical URL and shortname, as far as its first page says."""
    before_toc: list[Section] = field(default_factory=list)
    """The sections whose element comes before the document's own TOC on the first page: front
    matter such as an abstract or a status section, which a TOC does not list (the
    reconciler reports none of them missing from it)."""


class Symbol(NamedTuple):
    """One name the spec defines (:mod:`specbrowser.formats.symbols` reads them). A named
    tuple, not a frozen dataclass: a spec has tens of thousands (ECMA-262: 35,717), and a
    frozen dataclass's creation and hash cost 2-3 µs each in Python.

    Attributes:
        name: the name as the spec writes it (whitespace collapsed).
        kind: what made it (:data:`~specbrowser.types.SymbolKind`).
        section_id: the section whose own HTML defines it.
        anchor: the id of the defining element when it has one (for ``id`` and ``oldid``
            symbols, the element id that holds the name: the name itself, or for an ``oldid``
            the element's current id), else None (the section itself).
    """

    name: str
    kind: SymbolKind
    section_id: str
    anchor: str | None = None
