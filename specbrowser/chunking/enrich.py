"""What a chunk set gets after the breakdown: section ordinals, the document chunk, retrieval text.

Pure functions over model objects (no lxml, no database), so ingest and a later re-chunk from
stored sections finish a chunk set the same way. The names and the retrieval text's layout are
those of :mod:`specbrowser.chunking.labels`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from specbrowser.chunking.labels import (
    DOCUMENT_LAYER,
    part_label,
    retrieval_text,
)
from specbrowser.chunking.reassemble import reassemble
from specbrowser.chunking.summaries import SummaryPacket, is_orphan, lead
from specbrowser.model import DOCUMENT_CHUNK_ID, Chunk, Document, Section, TocNode
from specbrowser.types import MismatchKind

if TYPE_CHECKING:
    from specbrowser.chunking.toc_paths import Mismatch

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<])|&(?=#?\w+;)")


def escape_inline(text: str) -> str:
    """Backslash-escape what would change the rendering of plain spec text in a Markdown list
    item (emphasis, code, links, HTML, entities)."""
    return _MARKDOWN_SPECIAL.sub(lambda m: "\\" + (m.group(1) or "&"), text)


def synopsis(
    document: Document,
    sections: list[Section],
    chunk_count: int,
    packet: SummaryPacket | None = None,
) -> str:
    """The document chunk's Markdown: title, the summary packet when given (``Summary:``, an
    ``Overview:``, the ``Tables:`` the spec captions), kind and counts, then the top-level
    outline, each entry with its section summary (the packet's section guide).

    ``chunk_count`` counts the whole chunk set, the document chunk included.
    """
    top_level = [s for s in sections if s.parent_id is None]
    guide = dict(packet.section_guide) if packet is not None else {}
    lines = [f"# {escape_inline(document.title)}", ""]
    if packet is not None:
        if packet.global_synopsis:
            lines += [f"Summary: {escape_inline(packet.global_synopsis)}", ""]
        if packet.overview_summary and packet.overview_summary != packet.global_synopsis:
            lines += ["Overview:", "", escape_inline(packet.overview_summary), ""]
        if packet.tables:
            lines += ["Tables:", "", *(f"- {escape_inline(t)}" for t in packet.tables), ""]
    lines += [
        (
            f"Kind: {document.kind}. {len(sections)} sections, {len(top_level)} at top level, "
            f"in {chunk_count} chunks (this synopsis included)."
        ),
        "",
        "Outline:",
        "",
    ]
    for section in top_level:
        title, summary = section.display_title, guide.get(section.display_title, "")
        entry = f"- {escape_inline(title)}"
        lines.append(f"{entry}: {escape_inline(summary)}" if summary else entry)
    return "\n".join(lines)


def document_chunk(
    document: Document,
    sections: list[Section],
    chunk_count: int,
    threshold: int,
    measure: Callable[[str], int] = len,
    packet: SummaryPacket | None = None,
) -> Chunk:
    """The one ``document`` chunk of a chunk set (id :data:`DOCUMENT_CHUNK_ID`); its text is
    :func:`synopsis` (with the summary packet when given).

    It has no section, no parent, no subsections (its outline holds no markers, so it is never
    part of the marker tree) and depth 0. It is never broken down and never flagged over the
    threshold: it is a synopsis made whole by design (with the summary packet it often exceeds
    a section threshold, and a flag on every set would be noise; its size in tokens is still
    counted against the model's window). ``threshold`` and ``measure`` are accepted for the
    callers that size every chunk alike.
    """
    text = synopsis(document, sections, chunk_count, packet)
    return Chunk(
        id=DOCUMENT_CHUNK_ID,
        section_id=None,
        parent_id=None,
        depth=0,
        layer=DOCUMENT_LAYER,
        breakdown_tag=None,
        title=document.title,
        heading_path=[],
        text=text,
        over_threshold=None,
    )


def finish_chunk_set(
    document: Document,
    sections: list[Section],
    chunks: list[Chunk],
    threshold: int,
    copied: int = 0,
    measure: Callable[[str], int] = len,
    packet: SummaryPacket | None = None,
    summaries: Mapping[str, str] | None = None,
) -> list[Chunk]:
    """The stored chunk set: the document chunk (ordinal 0) then ``chunks`` (the section
    chunks in pre-order, ordinals from 1), every one with its :attr:`Chunk.retrieval_text`.
    ``copied`` counts the section chunks a re-chunk copies from a stored set besides ``chunks``
    (the document chunk gives the set's total). ``measure`` sizes the document chunk against
    ``threshold`` (:func:`document_chunk`).

    With ``packet`` (the spec's :class:`~specbrowser.chunking.summaries.SummaryPacket`; a
    policy with summaries on), every retrieval text gets the ``Document summary:`` line and
    each section's chunks its ``Section summary:`` (:func:`section_summary_of` of the section's
    chunks), and the document chunk the packet. ``summaries`` (root chunk id → that summary,
    computed beside the breakdown: :attr:`specbrowser.chunking.pipeline.ChunkingResult.summaries`)
    spares computing those it holds again.

    ``chunks`` are changed in place (retrieval text) and returned in the new list.
    """
    doc = document_chunk(document, sections, len(chunks) + copied + 1, threshold, measure, packet)
    doc.ordinal = 0
    summary = packet.global_synopsis if packet is not None else ""
    doc.retrieval_text = retrieval_text(document.title, doc, [], summary)
    by_id = {chunk.id: chunk for chunk in chunks} if packet is not None else {}
    orphans = {section.id for section in sections if is_orphan(section)}
    labels: dict[str, list[str]] = {}
    section_summary = ""
    for chunk in chunks:
        if chunk.parent_id is None and packet is not None:  # a section's root: its summary
            orphan = chunk.section_id in orphans
            if orphan:
                section_summary = ""
            elif summaries is not None and chunk.id in summaries:
                section_summary = summaries[chunk.id]
            else:
                section_summary = section_summary_of(chunk.id, by_id)
        path = [*labels.get(chunk.parent_id, []), part_label(chunk)] if chunk.parent_id else []
        labels[chunk.id] = path
        chunk.retrieval_text = retrieval_text(document.title, chunk, path, summary, section_summary)
    return [doc, *chunks]


def section_summary_of(root_id: str, chunks: Mapping[str, Chunk]) -> str:
    """The summary of the section whose root chunk is ``root_id``: :func:`~specbrowser.chunking.
    summaries.lead` of the section's Markdown put back together from its chunks, "" for a
    section without prose. The same as ``lead`` of the section's Markdown before the breakdown
    (what :func:`~specbrowser.chunking.pipeline.chunk_sections` reads), so the same under every
    policy: the blank lines reassembly may change are all where prose blocks end anyway."""
    try:
        markdown = reassemble(root_id, chunks)
    except KeyError:  # a subsection not among ``chunks``: its root's own text
        markdown = chunks[root_id].text
    return lead(markdown)


def section_chunks(chunks: Iterable[Chunk]) -> list[Chunk]:
    """The chunks of a set without its document chunk (what :func:`finish_chunk_set` adds)."""
    return [c for c in chunks if c.layer != DOCUMENT_LAYER]


@dataclass
class SectionPaths:
    """What every chunk of a section shares, known from the sections and the TOC alone (before
    any breakdown): :func:`section_paths`.

    Attributes:
        heading: the parser's heading path of each section id (display titles, top-level
            first): what its chunks' :attr:`Chunk.heading_path` is.
        from_toc: whether a TOC was given (without one the fields below are empty).
        toc: the TOC's path of each section id the TOC places; absent ids keep the parser's.
        kinds: the mismatch kind of each section id that has one (every kind but
            ``toc_entry_without_section``, which names no section).
        mismatches: every mismatch found, sections in document order, then TOC entries
            without a section (:func:`specbrowser.chunking.toc_paths.classify_mismatches`).
        ordinal: the section number of each section id as the chunks carry it
            (:attr:`Chunk.section_ordinal`).
    """

    heading: dict[str, list[str]]
    from_toc: bool = False
    toc: dict[str, list[str]] = field(default_factory=dict)
    kinds: dict[str, MismatchKind] = field(default_factory=dict)
    mismatches: list[Mismatch] = field(default_factory=list)
    ordinal: dict[str, str] = field(default_factory=dict)


def section_paths(
    sections: list[Section],
    toc: list[TocNode],
    section_ordinal: Callable[[str], str] | None = None,
    before_toc: Collection[str] = frozenset(),
) -> SectionPaths:
    """The heading paths, TOC paths and mismatches of ``sections`` against ``toc`` (an empty
    ``toc``: parser paths only, no mismatch), and each section's number by ``section_ordinal``
    (the format's :attr:`specbrowser.chunking.rules.ChunkingRules.section_ordinal`; None: "").
    ``before_toc``: the ids of the sections before the document's own TOC, which it need not
    list (:attr:`specbrowser.model.ParsedSpec.before_toc`)."""
    heading: dict[str, list[str]] = {}
    for section in sections:
        parent = heading.get(section.parent_id, []) if section.parent_id else []
        heading[section.id] = [*parent, section.display_title]
    ordinal = {s.id: section_ordinal(s.secnum) if section_ordinal else "" for s in sections}
    if not toc:
        return SectionPaths(heading, ordinal=ordinal)
    # deferred: only reconciling a TOC needs it, not a re-chunk (which reads the stored paths)
    from specbrowser.chunking.toc_paths import build_heading_paths, classify_mismatches

    toc_paths = build_heading_paths(sections, toc)
    mismatches = classify_mismatches(sections, toc, heading, toc_paths, before_toc)
    kinds: dict[str, MismatchKind] = {
        m.section_id: m.kind for m in mismatches if m.kind != "toc_entry_without_section"
    }
    return SectionPaths(heading, True, toc_paths, kinds, mismatches, ordinal)


def apply_toc_paths(chunks: Iterable[Chunk], paths: SectionPaths) -> None:
    """Set each section chunk's :attr:`Chunk.toc_path` and :attr:`Chunk.mismatch` from
    ``paths`` (subsections take their section's); a ``paths`` made without a TOC changes
    nothing."""
    if not paths.from_toc:
        return
    for chunk in chunks:
        if chunk.section_id is not None:
            path = paths.toc.get(chunk.section_id)
            chunk.toc_path = list(path) if path is not None else None
            chunk.mismatch = paths.kinds.get(chunk.section_id)
