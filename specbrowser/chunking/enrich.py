"""What a chunk set gets after the breakdown: section ordinals, the document chunk, retrieval text.

Pure functions over model objects (no lxml, no database), so ingest and a later re-chunk from
stored sections finish a chunk set the same way. The retrieval text is a few ``Key: value``
header lines, then ``Content:`` and the chunk's Markdown::

    Document summary: This Standard defines the Toylang language.   (policy summaries on)
    Document: Toylang Language Specification
    Section: 14 ECMAScript Language: Statements and Declarations > 14.6 The if Statement
    Section summary: The if statement runs one of two statements.   (when the section has one)
    Part: Table 3: Well-known Symbols > td 4          (only for a breakdown subsection)
    Content:
    <the chunk's text, in-document link targets dropped>

The two summary lines are the extractive summaries of :mod:`specbrowser.chunking.summaries`
(the chunking design, seed 001): the spec's (its abstract, scope or introduction) and the
section's lead sentence, which a breakdown subsection shares with its section.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from specbrowser.chunking.policy import tag_slug
from specbrowser.chunking.reassemble import reassemble
from specbrowser.chunking.summaries import SummaryPacket, is_orphan, lead
from specbrowser.chunking.toc_paths import Mismatch, build_heading_paths, classify_mismatches
from specbrowser.model import DOCUMENT_CHUNK_ID, Chunk, Document, Section, TocNode
from specbrowser.types import Layer, MismatchKind

DOCUMENT_LAYER: Layer = "document"
DOCUMENT_TREE_LABEL = "Document synopsis"
"""How the app labels the document chunk (first node of the tree)."""

PATH_SEPARATOR = " > "
"""Joins heading-path titles and part labels in the retrieval header."""

_ORDINAL_TOKEN = re.compile(r"(?:[A-Z]|\d+)(?:\.\d+)*")
"""A section number: ``14``, ``14.6.1``, an annex letter ``B`` or ``B.1.2``."""

_TRAILING_NUMBER = re.compile(r"-(\d+)$")
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<])|&(?=#?\w+;)")


def section_ordinal(secnum: str) -> str:
    """The section number as a dotted string, from a section's ``secnum`` as specs write it
    (the default :attr:`specbrowser.chunking.rules.ChunkingRules.section_ordinal`; the store
    reads typed section numbers with it too).

    ``"14.6.1"`` → ``"14.6.1"``; ``"Annex B (normative)"`` → ``"B"``; ``"B.1.2"`` → ``"B.1.2"``;
    a trailing dot is dropped (``"3."`` → ``"3"``); anything else (``""``, ``"Introduction"``)
    → ``""``.
    """
    tokens = secnum.split()
    if len(tokens) >= 2 and tokens[0] == "Annex":
        tokens = tokens[1:]
    if not tokens:
        return ""
    token = tokens[0].rstrip(".")
    return token if _ORDINAL_TOKEN.fullmatch(token) else ""


def part_label(chunk: Chunk) -> str:
    """A subsection's name in a path: its title, else ``<tag> <n>`` (n: the id's trailing
    number, as in ``sec-x-p-3`` → ``p 3``; a packed group's first and last member, as in
    ``sec-x-p-3-7`` → ``p 3–7``); "" for a root chunk."""
    return subsection_label(chunk.breakdown_tag, chunk.title, chunk.id, chunk.parent_id)


def subsection_label(
    breakdown_tag: str | None, title: str, chunk_id: str, parent_id: str | None
) -> str:
    """:func:`part_label` of a chunk with these attributes (the breakdown names a subsection
    before it makes the chunk)."""
    if breakdown_tag is None:
        return ""
    if title.strip():
        return " ".join(title.split())
    prefix = f"{parent_id}-{tag_slug(breakdown_tag)}-"
    if parent_id and chunk_id.startswith(prefix):  # <parent>-<tag slug>-<n>[-<m>]
        members = chunk_id[len(prefix) :].split("-")
        if all(m.isdigit() for m in members):
            return f"{breakdown_tag} {'–'.join(members)}"
    match = _TRAILING_NUMBER.search(chunk_id)
    return f"{breakdown_tag} {match.group(1)}" if match else breakdown_tag


def retrieval_text(
    document_title: str,
    chunk: Chunk,
    part_path: list[str],
    document_summary: str = "",
    section_summary: str = "",
) -> str:
    """The header lines then ``Content:`` and the chunk's text (see the module docstring).

    ``part_path`` is the :func:`part_label` of each subsection from the section's root chunk
    (excluded) down to ``chunk``; empty for a root chunk, which gets no ``Part:`` line. The
    document chunk gets only the ``Document summary:`` and ``Document:`` lines.
    """
    header = retrieval_header(
        document_title, chunk.heading_path, part_path, document_summary, section_summary
    )
    return header + drop_link_targets(chunk.text)


def retrieval_header(
    document_title: str,
    heading_path: list[str],
    part_path: list[str],
    document_summary: str = "",
    section_summary: str = "",
) -> str:
    """A retrieval text's header: ``Document summary:`` (when given), ``Document:``,
    ``Section:`` (when ``heading_path``), ``Section summary:`` (when given), ``Part:`` (when
    ``part_path``: :func:`part_line`) and the ``Content:`` line."""
    lines = [f"Document summary: {document_summary}"] if document_summary else []
    lines.append(f"Document: {document_title}")
    if heading_path:
        lines.append(f"Section: {PATH_SEPARATOR.join(heading_path)}")
    if section_summary:
        lines.append(f"Section summary: {section_summary}")
    if part_path:
        lines.append(part_line(part_path))
    return "\n".join(lines) + CONTENT_LINE


def part_line(part_path: list[str]) -> str:
    """The ``Part:`` line of a subsection named by ``part_path`` (no newline)."""
    return f"Part: {PATH_SEPARATOR.join(part_path)}"


CONTENT_LINE = "\nContent:\n"
"""The line that ends a retrieval text's header; the chunk's text follows it."""


def split_retrieval_text(text: str) -> tuple[str, str]:
    """``(header, body)`` of a retrieval text: the header up to and including its ``Content:``
    line, then the chunk's text as indexed (link targets dropped). A text without that line is
    all body. ``header + body == text``."""
    header, found, body = text.partition(CONTENT_LINE)
    return (header + found, body) if found else ("", text)


_LINK_TARGET = re.compile(r"\]\(#[^()\s]*\)")
"""A Markdown link's ``]`` and the in-document target right after it, ``(#anchor)``. Matched with
its ``]`` (put back by the substitution) rather than behind a look-behind: a pattern that starts
with literal text lets the regex engine skip ahead to where it may match."""


def drop_link_targets(markdown: str) -> str:
    """``[ToNumber](#sec-tonumber)`` → ``[ToNumber]``: in-document link targets removed.

    Anchors are ids, not words; ECMA-262's chunks hold about 20,000 of them, and indexed they
    let a chunk that merely links to ``sec-object-type`` outrank the section itself (the query
    set of benchmarks/fts_tokenizer_benchmark.py; BENCHMARKS.md, "FTS5 tokenizer").
    The chunk's own text keeps its links; markers (``at sectionid: `…`]``) are untouched.
    """
    return _LINK_TARGET.sub("]", markdown) if "](#" in markdown else markdown


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
    summaries.lead` of the section's Markdown put back together from its chunks (so the same
    under every policy), "" for a section without prose."""
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
) -> SectionPaths:
    """The heading paths, TOC paths and mismatches of ``sections`` against ``toc`` (an empty
    ``toc``: parser paths only, no mismatch), and each section's number by ``section_ordinal``
    (the format's :attr:`specbrowser.chunking.rules.ChunkingRules.section_ordinal`; None: "")."""
    heading: dict[str, list[str]] = {}
    for section in sections:
        parent = heading.get(section.parent_id, []) if section.parent_id else []
        heading[section.id] = [*parent, section.display_title]
    ordinal = {s.id: section_ordinal(s.secnum) if section_ordinal else "" for s in sections}
    if not toc:
        return SectionPaths(heading, ordinal=ordinal)
    toc_paths = build_heading_paths(sections, toc)
    mismatches = classify_mismatches(sections, toc, heading, toc_paths)
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
