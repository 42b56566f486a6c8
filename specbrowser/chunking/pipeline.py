"""Sections in, chunk set out: the breakdown of a whole spec, which ingest and re-chunk share.

:func:`chunk_spec` chunks a freshly parsed spec (its elements); :func:`chunk_sections` chunks
stored sections from their own HTML, without the source files. Both return a
:class:`ChunkingResult`; :func:`specbrowser.chunking.enrich.finish_chunk_set` then adds the
document chunk and retrieval texts.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from lxml import etree

from specbrowser.chunking.breakdown import SectionBreakdown, break_down, whole_section_chunk
from specbrowser.chunking.markdown import resolve_roles, to_markdown
from specbrowser.chunking.markdown_cache import SectionMarkdown, capture, restore
from specbrowser.chunking.measure import CHARS, Sizer, TokenMeasure
from specbrowser.chunking.parallel import split_map
from specbrowser.chunking.policy import ChunkPolicy
from specbrowser.chunking.rules import ChunkingRules
from specbrowser.chunking.summaries import SummaryPacket, html_captions, lead, spec_packet
from specbrowser.errors import PolicyError, SpecParseError
from specbrowser.model import DOCUMENT_CHUNK_ID, Chunk, ParsedSpec, Section
from specbrowser.progress import Progress


@dataclass
class ChunkingResult:
    """What chunking a spec's sections made.

    Attributes:
        chunks: the section chunks in pre-order, ordinals from 1 (0 is the document chunk's);
            copied sections' chunks are not among them but keep their places in the ordinals.
        learned: section id → the conversion made for the Markdown cache
            (:func:`specbrowser.chunking.markdown_cache.capture`); empty unless asked to learn.
        copied_at: section id → first ordinal, for each section named as copied.
        broken_down: ids of the sections whose elements went through the breakdown (the others
            were copied, or made one chunk from the cache without a parse), in document order.
        summaries: root chunk id → the summary of its section's Markdown
            (:func:`~specbrowser.chunking.summaries.lead`), for the sections broken down under a
            policy with summaries on (computed beside the breakdown, in whichever process broke
            the section down; what :func:`~specbrowser.chunking.enrich.finish_chunk_set` takes
            as ``summaries``).
    """

    chunks: list[Chunk]
    learned: dict[str, SectionMarkdown] = field(default_factory=dict)
    copied_at: dict[str, int] = field(default_factory=dict)
    broken_down: list[str] = field(default_factory=list)
    summaries: dict[str, str] = field(default_factory=dict)


def chunk_spec(
    parsed: ParsedSpec,
    policy: ChunkPolicy,
    progress: Progress | None = None,
    *,
    rules: ChunkingRules,
    learn: bool = False,
    tokens: TokenMeasure | None = None,
    meanwhile: Callable[[], None] | None = None,
) -> ChunkingResult:
    """Break every section of a parsed spec into chunks, in document order.

    Consumes ``parsed.elements`` (the breakdown mutates them). ``rules`` are the spec format's
    (:attr:`specbrowser.formats.base.SpecFormat.chunking_rules`). With ``learn`` the result's
    :attr:`~ChunkingResult.learned` holds each section's conversion for the Markdown cache.
    ``tokens`` counts a threshold in tokens (required when ``policy.unit`` is ``tokens``).
    ``meanwhile()`` runs once in this process while other processes break sections down, with
    ``parsed.elements`` not yet changed (see :func:`specbrowser.chunking.parallel.split_map`).

    Raises:
        SpecParseError: a section has the id reserved for the document chunk.
        PolicyError: a threshold in tokens without ``tokens``.
    """
    return _chunk_sections(
        parsed.sections,
        parsed.elements.__getitem__,
        policy,
        progress,
        rules,
        learn=learn,
        tokens=tokens,
        meanwhile=meanwhile,
    )


def chunk_sections(
    sections: list[Section],
    policy: ChunkPolicy,
    progress: Progress | None = None,
    *,
    rules: ChunkingRules,
    known: Mapping[str, SectionMarkdown] | None = None,
    learn: bool = False,
    copied: Mapping[str, int] | None = None,
    tokens: TokenMeasure | None = None,
    meanwhile: Callable[[], None] | None = None,
) -> ChunkingResult:
    """Break sections into chunks from their stored own HTML: no source file needed.

    Each section's :attr:`Section.html` is parsed back (:func:`parse_fragment`) and broken down
    exactly as :func:`chunk_spec` does at ingest, so the result equals the stored section chunks
    (tests check this on the sample spec and on ECMA-262). ``sections`` must be in document
    order with parents before children, as stored; ``rules`` are the spec format's.

    ``known`` (section id → its cached conversion under ``policy.markdown``) saves work with
    the same result: a section whose cached Markdown the breakdown cannot change is not parsed
    at all (:func:`whole_section_chunk`), and one with cached detail is parsed but not
    converted again (:func:`specbrowser.chunking.markdown_cache.restore`). The html of a section
    that ``known`` covers that way may be "". With ``learn`` the result's
    :attr:`~ChunkingResult.learned` holds the conversions made here that ``known`` lacked.

    ``copied`` (section id → chunk count) names sections whose chunk trees the caller copies
    from a stored set: they are not chunked, but their chunks keep their places in the
    ordinals (:attr:`~ChunkingResult.copied_at`). ``tokens`` counts a threshold in tokens, as
    for :func:`chunk_spec`. ``meanwhile()`` runs once in this process while other processes
    break sections down (see :func:`specbrowser.chunking.parallel.split_map`).

    The sections to break down are spread over the cores
    (:func:`specbrowser.chunking.parallel.split_map`).

    Raises:
        SpecParseError: a section's stored HTML holds no element, or a section has the id
            reserved for the document chunk.
        PolicyError: a threshold in tokens without ``tokens``.
    """
    html = {section.id: section.html for section in sections}
    return _chunk_sections(
        sections,
        lambda section_id: parse_fragment(html[section_id]),
        policy,
        progress,
        rules,
        known=known,
        learn=learn,
        copied=copied,
        tokens=tokens,
        meanwhile=meanwhile,
    )


def parse_fragment(html: str) -> etree._Element:
    """Parse a stored section's own HTML back into one element (the section element).

    Raises:
        SpecParseError: the text holds no element.
    """
    root = etree.fromstring(f"<html><body>{html}</body></html>".encode(), parser=_FRAGMENT_PARSER)
    body = root.find("body") if root is not None else None
    if body is None or len(body) == 0:
        raise SpecParseError("stored section HTML holds no element")
    return body[0]


_FRAGMENT_PARSER = etree.HTMLParser(huge_tree=True, encoding="utf-8", collect_ids=False)
"""``collect_ids=False``: nothing looks elements up by id in a section's tree, and building the
id table costs about a sixth of the parse on ECMA-262's large sections."""


def _chunk_sections(
    sections: list[Section],
    element_for: Callable[[str], etree._Element],
    policy: ChunkPolicy,
    progress: Progress | None,
    rules: ChunkingRules,
    *,
    known: Mapping[str, SectionMarkdown] | None = None,
    learn: bool = False,
    copied: Mapping[str, int] | None = None,
    tokens: TokenMeasure | None = None,
    meanwhile: Callable[[], None] | None = None,
) -> ChunkingResult:
    """Chunk every section not ``copied``: first the ones the cache makes whole (no parse),
    then the rest, spread over the cores (:func:`specbrowser.chunking.parallel.split_map`,
    weighted by their HTML's length); ordinals are given in document order at the end."""
    if policy.unit == "tokens" and tokens is None:
        raise PolicyError("a threshold in tokens needs the embedding model's tokenizer")
    by_id = {section.id: section for section in sections}
    copied = copied or {}
    result = ChunkingResult(chunks=[])
    done: dict[str, list[Chunk]] = {}
    to_break: list[tuple[Section, list[str], Sizer]] = []
    for section in sections:
        if section.id == DOCUMENT_CHUNK_ID:
            raise SpecParseError(
                f"a section has the id {DOCUMENT_CHUNK_ID!r}, which specbrowser "
                "reserves for the document chunk"
            )
        if section.id in copied:
            continue
        heading_path = _heading_path(section, by_id)
        sizer = tokens.sizer(heading_path) if tokens is not None else CHARS
        whole = _whole_from_cache(section, policy, heading_path, known, sizer)
        if whole is not None:
            done[section.id] = [whole]
        else:
            to_break.append((section, heading_path, sizer))
    total, quick = len(sections), len(sections) - len(to_break)
    result.broken_down.extend(section.id for section, _, _ in to_break)

    def report(n: int, of: int) -> None:
        if progress and (n % 10 == 0 or n == of):
            progress("chunking", quick + len(to_break) * n // of, total)

    def chunk_one(
        item: tuple[Section, list[str], Sizer],
    ) -> tuple[list[Chunk], SectionMarkdown | None, str | None]:
        section, heading_path, sizer = item
        (chunks, markdown), conversion = _section_chunks(
            section, element_for, policy, rules, heading_path, known, learn, sizer
        )
        return chunks, conversion, lead(markdown) if policy.summaries else None

    if progress:
        progress("chunking", quick, total)
    broken = split_map(
        chunk_one,
        to_break,
        [len(section.html) for section, _, _ in to_break],
        report,
        meanwhile=meanwhile,
    )
    for (section, _, _), (chunks, conversion, summary) in zip(to_break, broken, strict=True):
        done[section.id] = chunks
        if conversion is not None and learn:
            result.learned[section.id] = conversion
        if summary is not None:
            result.summaries[chunks[0].id] = summary
    if progress and not to_break:
        progress("chunking", total, total)
    ordinal = 1  # 0 is the document chunk's
    for section in sections:
        if section.id in copied:
            result.copied_at[section.id] = ordinal
            ordinal += copied[section.id]
            continue
        number = rules.section_ordinal(section.secnum)
        for chunk in done[section.id]:
            chunk.ordinal = ordinal
            chunk.section_ordinal = number
            result.chunks.append(chunk)
            ordinal += 1
    return result


def _heading_path(section: Section, by_id: Mapping[str, Section]) -> list[str]:
    """The display titles of the section's ancestors and itself, top-level first (walked up
    only for the sections that are chunked: a re-chunk copies most)."""
    path = [section.display_title]
    parent = by_id.get(section.parent_id) if section.parent_id else None
    while parent is not None:
        path.append(parent.display_title)
        parent = by_id.get(parent.parent_id) if parent.parent_id else None
    path.reverse()
    return path


def _whole_from_cache(
    section: Section,
    policy: ChunkPolicy,
    heading_path: list[str],
    known: Mapping[str, SectionMarkdown] | None,
    sizer: Sizer,
) -> Chunk | None:
    """The section's one chunk from its cached conversion, when the breakdown cannot change it
    (:func:`whole_section_chunk`); None when it must be broken down (or is not cached)."""
    cached = known.get(section.id) if known else None
    if cached is None:
        return None
    return whole_section_chunk(
        section, cached.markdown, cached.subsections, policy, heading_path, sizer
    )


def _section_chunks(
    section: Section,
    element_for: Callable[[str], etree._Element],
    policy: ChunkPolicy,
    rules: ChunkingRules,
    heading_path: list[str],
    known: Mapping[str, SectionMarkdown] | None,
    learn: bool,
    sizer: Sizer,
) -> tuple[SectionBreakdown, SectionMarkdown | None]:
    """One section's breakdown from its element (see :func:`chunk_sections`), and with
    ``learn`` the conversion to add to the Markdown cache (None when there is nothing new: the
    cached detail served, or the cache holds the section without detail)."""
    cached = known.get(section.id) if known else None
    element = element_for(section.id)
    restored = restore(element, cached.detail) if cached is not None and cached.detail else None
    conversion: SectionMarkdown | None = None
    if restored is not None:
        roles, cache = restored
    else:
        roles, cache = resolve_roles(element, policy.markdown), {}
        # learn what is new, or a detail that restore refused (a short section keeps none)
        if learn and (cached is None or cached.detail is not None):
            markdown = to_markdown(element, policy.markdown, roles, cache, rules.markdown_elements)
            conversion = capture(element, roles, cache, markdown)
    made = break_down(
        section, element, policy, heading_path, rules=rules, roles=roles, cache=cache, sizer=sizer
    )
    return made, conversion


def summary_packet_for(
    sections: Sequence[Section],
    policy: ChunkPolicy,
    rules: ChunkingRules,
    known: Mapping[str, SectionMarkdown] | None = None,
    captions: Sequence[str] | None = None,
) -> SummaryPacket | None:
    """The spec's summary packet (:func:`specbrowser.chunking.summaries.spec_packet`) for a
    policy with summaries on, else None: the few sections it reads are converted from their
    own HTML under ``policy.markdown`` (or taken from ``known``, the Markdown cache: a section
    of :func:`~specbrowser.chunking.summaries.packet_sections` needs one or the other), and the
    table captions are ``captions`` or, when None, read from every section's HTML."""
    if not policy.summaries:
        return None

    def markdown_of(section: Section) -> str:
        cached = known.get(section.id) if known else None
        if cached is not None:
            return cached.markdown
        if not section.html:
            return ""
        return to_markdown(
            parse_fragment(section.html), policy.markdown, elements=rules.markdown_elements
        )

    if captions is None:
        captions = [c for section in sections for c in html_captions(section.html)]
    return spec_packet(sections, markdown_of, captions)
