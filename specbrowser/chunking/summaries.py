"""Extractive summaries: the document summary, each section's summary, the document chunk's
summary packet (the chunking design, ../shared/seeds/001, "Document Chunk" and "Extractive
Summary Source").

Everything is taken from the spec's own words, never generated:

- a **section summary** is the leading sentence of the section's own prose (its Markdown with
  markers, headings, lists, code, tables and notes left out: :func:`iter_prose_blocks`), a
  second one when the first is shorter than :data:`SHORT_SENTENCE`, at most
  :data:`SECTION_SUMMARY_CHARS` characters;
- the **document summary** (the packet's ``global_synopsis``) is the summary of the spec's
  abstract, scope or introduction (the first section titled as in :data:`INTRO_TITLES`, in that
  order of preference), else of the first section with prose;
- the packet's ``overview_summary`` is the first :data:`OVERVIEW_SENTENCES` sentences of the
  overview or introduction; its ``retrieval_lenses`` are the overview, a table summary (the
  spec's table captions) and a section guide (each top-level section with its summary).

*Orphan* sections (:func:`is_orphan`: a TOC, an index, back matter such as a bibliography,
colophon or copyright notice, or an id ending ``_orphans``) are never a source.

Pure functions over Markdown and model objects; units are characters of Markdown after
:func:`plain_text` (links reduced to their text, code spans and emphasis to their words).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from specbrowser.chunking.markers import MARKER_START, without_markers
from specbrowser.model import Section

SECTION_SUMMARY_CHARS = 240
"""Longest section summary, in characters; a longer sentence is cut at a word and ends in …."""

DOCUMENT_SUMMARY_CHARS = 300
"""Longest document summary, in characters."""

SHORT_SENTENCE = 60
"""A first sentence shorter than this many characters is followed by the next one."""

OVERVIEW_SENTENCES = 4
"""Sentences of the packet's overview summary."""

OVERVIEW_CHARS = 600
"""Longest overview summary, in characters."""

INTRO_TITLES: tuple[str, ...] = ("abstract", "scope", "introduction", "overview", "summary")
"""Titles (case-folded, section number removed) of the sections a document summary is taken
from, best first."""

OVERVIEW_TITLES: tuple[str, ...] = ("overview", "introduction", "abstract", "scope")
"""Titles of the sections the overview summary is taken from, best first."""

_ORPHAN_TITLE = re.compile(
    r"^(?:(?:table of )?contents|index(?: of .*)?|bibliography|references|"
    r"(?:normative|informative) references|colophon|copyright.*|acknowledge?ments|"
    r"authors?'? addresses|property index|ipr policy|conformance requirements? index)$",
    re.IGNORECASE,
)
_NUMBER = re.compile(r"^\s*(?:annex\s+)?(?:[A-Z]|\d+)(?:\.\d+)*\.?\s+", re.IGNORECASE)
_LINK = re.compile(r"!?\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\([^)]*\)")
"""A link or an image, ``[text](target)``: its text may hold brackets one deep (Bikeshed's
``[[INFRA]](#biblio-infra)``) and an image (a logo linked to its site:
``[![WHATWG](logo.svg)](https://whatwg.org/)``), reduced by a second pass. A link reads as its
text; an image as nothing (a reader sees a picture, not its alternative text: Bikeshed's
tracking-vector icon says "(This is a tracking vector.)")."""
_NESTED_LINKS = 3
"""Passes of :data:`_LINK` at most: an image in a link takes two."""
_REF = re.compile(r"(?<!\[)\[([^\[\]]+)\](?![\](])")
_CODE = re.compile(r"`+([^`]*)`+")
_EMPHASIS = re.compile(r"(\*\*|__|\*|~~|\+\+)(?=\S)(.+?)(?<=\S)\1")
_EMPHASIS_MARKS = re.compile(r"[*_~+]")
_ESCAPE = re.compile(r"\\([\\`*_\[\]<>#+\-.!|~])")
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[A-Z0-9\"'(`*])")
_STEPS = re.compile(r"\bthe following steps\b|:$", re.IGNORECASE)
"""A sentence that only announces what follows (an algorithm's ``… performs the following steps
when called:``): never a summary."""
_BOILERPLATE = re.compile(r"^(?:this|the following) section is (?:non-|not )normative\.?$", re.I)
"""A sentence Bikeshed and ReSpec specs open an informative section with ("This section is not
normative."): it says nothing of the spec, so the overview leaves it out. A section summary
keeps it: it is that section's own first sentence, and what follows it may be a fragment
(ECMA-262's automatic-semicolon-insertion examples go on after a code block)."""
_LIST_ITEM = re.compile(r"^(?:\d+\.|[-*+])\s")
_LOWER = re.compile(r"[a-z]")
_TABLE_CAPTION = re.compile(r"^(?:\*\*)?(Table\s+[\w.-]+\s*[:.—–-]\s*.+?)(?:\*\*)?$")


def is_orphan(section: Section) -> bool:
    """Whether a section is no summary source: a TOC, an index or back matter (by its title, as
    :data:`_ORPHAN_TITLE` lists them), or an id ending ``_orphans``."""
    if section.id.endswith("_orphans"):
        return True
    return bool(_ORPHAN_TITLE.match(_NUMBER.sub("", section.title).strip()))


def plain_text(markdown: str) -> str:
    """Markdown as the words a reader sees: links and references reduced to their text, code
    spans, emphasis and edit marks to their words, backslash escapes undone, whitespace
    collapsed."""
    escaped: list[str] = []

    def hold(match: re.Match[str]) -> str:  # an escaped character is text, never markup
        escaped.append(match.group(1))
        return f"\ue000{len(escaped) - 1}\ue001"

    # each pattern runs only on text holding the character it cannot match without
    text = _ESCAPE.sub(hold, markdown) if "\\" in markdown else markdown
    if "[" in text:  # before the links: a link's own text keeps its brackets ([[INFRA]])
        text = _REF.sub(r"\1", text)
    for _ in range(_NESTED_LINKS):
        if "](" not in text:
            break
        text = _LINK.sub(_link_text, text)
    if "`" in text:
        text = _CODE.sub(r"\1", text)
    if _EMPHASIS_MARKS.search(text):
        for _ in range(2):  # nested emphasis
            text = _EMPHASIS.sub(r"\2", text)
    if escaped:
        text = re.sub("\ue000(\\d+)\ue001", lambda m: escaped[int(m.group(1))], text)
    return " ".join(text.split())


def _link_text(match: re.Match[str]) -> str:
    return "" if match.group(0).startswith("!") else match.group(1)


def prose_blocks(markdown: str) -> list[str]:
    """The blocks of a chunk's Markdown that are running prose, as :func:`plain_text`: not
    headings, lists, tables, code, quotes (notes, examples) or subsection markers."""
    return list(iter_prose_blocks(markdown))


def iter_prose_blocks(markdown: str) -> Iterator[str]:
    """:func:`prose_blocks` one at a time, each read only when asked for (:func:`lead` stops
    at the first block with a sentence).

    A prose block is a run of lines at the left margin, markers taken out. A blank line ends
    it, and so does any other line: an indented one (a list item's own paragraphs, indented
    code), a list item, a heading, a table row, a quote (notes, examples), HTML, an image, a
    line a marker filled, or a fenced code block. So a block never reaches into a list or a
    note, and the blank lines a section's reassembled Markdown adds or drops there
    (:func:`~specbrowser.chunking.reassemble.normalize_whitespace`) do not change its blocks:
    a section has one summary under every policy.
    """
    block: list[str] = []
    fence = ""
    for line in [*markdown.split("\n"), ""]:  # the blank line at the end ends the last block
        if fence:  # inside a fenced code block, until its closing fence
            if line.lstrip().startswith(fence):
                fence = ""
            continue
        if MARKER_START in line:
            line = without_markers(line)
        if _is_prose_line(line):
            block.append(line)
            continue
        if line.lstrip().startswith(_FENCES):
            fence = line.lstrip()[:3]
        if block:
            text = plain_text("\n".join(block))
            block = []
            if len(text) >= 20 and _LOWER.search(text):
                yield text


_FENCES = ("```", "~~~")


def _is_prose_line(line: str) -> bool:
    """Whether a line may be part of a prose block (:func:`iter_prose_blocks`)."""
    return (
        bool(line)
        and not line[0].isspace()
        and not line.startswith(("#", "|", ">", "<", "![", *_FENCES))
        and not _LIST_ITEM.match(line)
    )


def sentences(text: str) -> list[str]:
    """``text`` split into sentences (at ``.``, ``!`` or ``?`` followed by a capital, a digit
    or an opening quote)."""
    return [s.strip() for s in _SENTENCE_END.split(text) if s.strip()]


def _clip(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    cut = text[: limit - 1].rsplit(" ", 1)[0].rstrip(",;:")
    return cut + "…"


def lead(markdown: str, limit: int = SECTION_SUMMARY_CHARS) -> str:
    """The leading sentence of ``markdown``'s first prose block (two when the first is shorter
    than :data:`SHORT_SENTENCE`), at most ``limit`` characters; "" without prose. A sentence
    that announces what follows (:data:`_STEPS`) is skipped."""
    for block in iter_prose_blocks(markdown):
        found = [s for s in sentences(block) if not _STEPS.search(s)]
        if not found:
            continue
        text = found[0]
        if len(text) < SHORT_SENTENCE and len(found) > 1:
            text = f"{text} {found[1]}"
        return _clip(text, limit)
    return ""


@dataclass(frozen=True)
class SummaryPacket:
    """The document chunk's summary packet (seed 001's ``summary_packet``).

    Attributes:
        global_synopsis: the document summary ("" when the spec has no prose).
        overview_summary: the overview's first sentences ("" without one).
        tables: the table summary lens: the spec's table captions, in document order.
        section_guide: the section guide lens: ``(title, summary)`` of each top-level section
            that is not an orphan ("" when it has no prose of its own).
    """

    global_synopsis: str = ""
    overview_summary: str = ""
    tables: tuple[str, ...] = ()
    section_guide: tuple[tuple[str, str], ...] = field(default_factory=tuple)

    def lenses(self) -> dict[str, object]:
        """``retrieval_lenses`` as JSON-ready data: ``overview``, ``table_summary``,
        ``section_guide``."""
        return {
            "overview": self.overview_summary,
            "table_summary": list(self.tables),
            "section_guide": [{"title": t, "summary": s} for t, s in self.section_guide],
        }


def section_summaries(sections: Sequence[Section], root_texts: Mapping[str, str]) -> dict[str, str]:
    """Section id → its summary (:func:`lead` of its root chunk's Markdown, ``root_texts``), for
    the sections that are not orphans and have prose."""
    summaries: dict[str, str] = {}
    for section in sections:
        if is_orphan(section):
            continue
        summary = lead(root_texts.get(section.id, ""))
        if summary:
            summaries[section.id] = summary
    return summaries


def _by_title(sections: Sequence[Section], titles: Iterable[str]) -> list[Section]:
    """Sections whose title (section number removed, case-folded) is one of ``titles``, the
    shallowest first (the spec's own introduction before a chapter's "9.1 Overview"), then in
    the titles' order of preference, then document order."""
    keyed = [(_NUMBER.sub("", s.title).strip().casefold(), s) for s in sections]
    found: list[Section] = []
    for title in titles:
        found.extend(s for key, s in keyed if key == title and s not in found)
    return sorted(found, key=lambda s: s.depth)


def summary_packet(
    sections: Sequence[Section], root_texts: Mapping[str, str], summaries: Mapping[str, str]
) -> SummaryPacket:
    """The summary packet of a spec (module docstring) from its sections, each section's root
    chunk Markdown (``root_texts``) and :func:`section_summaries`."""
    sources = [s for s in sections if not is_orphan(s)]
    synopsis = ""
    for section in [*_by_title(sources, INTRO_TITLES), *sources]:
        synopsis = lead(root_texts.get(section.id, ""), DOCUMENT_SUMMARY_CHARS)
        if synopsis:
            break
    overview = ""
    for section in _by_title(sources, OVERVIEW_TITLES):
        found = [
            s
            for b in prose_blocks(root_texts.get(section.id, ""))
            for s in sentences(b)
            if not _BOILERPLATE.match(s)
        ]
        if found:
            overview = _clip(" ".join(found[:OVERVIEW_SENTENCES]), OVERVIEW_CHARS)
            break
    tables: list[str] = []
    for section in sources:
        for line in root_texts.get(section.id, "").splitlines():
            match = _TABLE_CAPTION.match(line.strip())
            if match:
                tables.append(plain_text(match.group(1)))
    guide = tuple(
        (section.display_title, summaries.get(section.id, ""))
        for section in sources
        if section.parent_id is None
    )
    return SummaryPacket(synopsis, overview, tuple(dict.fromkeys(tables)), guide)


_CAPTION_HTML = re.compile(r"<(figcaption|caption)\b[^>]*>(.*?)</\1>", re.IGNORECASE | re.DOTALL)
_TAG = re.compile(r"<[^>]+>")


def html_captions(html: str) -> list[str]:
    """The table and figure captions of a section's HTML (``<caption>``, ``<figcaption>``) as
    plain text, in order; only those that name a table (``Table 3: …``) are kept."""
    found: list[str] = []
    for _tag, inner in _CAPTION_HTML.findall(html):
        text = " ".join(_TAG.sub("", inner).split())
        text = text.replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")
        if _TABLE_CAPTION.match(text):
            found.append(text)
    return found


def packet_sections(sections: Sequence[Section]) -> list[Section]:
    """The sections whose Markdown :func:`spec_packet` reads: the abstract, scope, introduction
    or overview candidates and the top-level sections that are not orphans."""
    sources = [s for s in sections if not is_orphan(s)]
    wanted = [*_by_title(sources, INTRO_TITLES), *(s for s in sources if s.parent_id is None)]
    return list({s.id: s for s in wanted}.values())


def spec_packet(
    sections: Sequence[Section],
    markdown_of: Callable[[Section], str],
    captions: Sequence[str],
) -> SummaryPacket:
    """The spec's :class:`SummaryPacket`, reading the Markdown of only the sections it needs
    (the abstract, scope, introduction or overview candidates and the top-level sections, by
    ``markdown_of``, each a section's own pristine Markdown); ``captions`` are the spec's table
    captions (:func:`html_captions` of every section), in document order."""
    sources = [s for s in sections if not is_orphan(s)]
    texts: dict[str, str] = {}
    for section in packet_sections(sections):
        if section.id not in texts:
            texts[section.id] = markdown_of(section)
    summaries = section_summaries([s for s in sources if s.id in texts], texts)
    packet = summary_packet([s for s in sources if s.id in texts], texts, summaries)
    return SummaryPacket(
        packet.global_synopsis,
        packet.overview_summary,
        tuple(dict.fromkeys(captions)),
        packet.section_guide,
    )
