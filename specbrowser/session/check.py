"""What a user should distrust in a chunk set: the checks of ``specbrowser check``.

Each check reads the stored spec and chunk set and reports what the chunks say that the spec
does not, or lose of what it does:

- ``replacement_char``: a chunk's text holds U+FFFD (the replacement character) that its
  section's stored HTML does not (a decoding fault made text the spec does not say);
- ``dead_link``: an in-document link (``#id``) whose id no element of the document has, or one
  whose element lies in no chunk of the set;
- ``heading_path``: a section whose heading path differs from the TOC's (the stored mismatches,
  ``specbrowser mismatches``);
- ``not_reassembled``: a section whose chunks do not reassemble to its Markdown (the stored
  conversion of its own HTML), under the whitespace normalisation of
  :func:`specbrowser.chunking.reassemble.normalize_whitespace`;
- ``table_columns``: a Markdown table row in a chunk with another number of cells than the
  table's header row;
- ``table_header``: a row of a table in a section's stored HTML that covers another number of
  columns (``colspan`` and ``rowspan`` counted) than the table's header: the Markdown pads
  such a row, so its values may stand under the wrong column.

Sections whose conversion is not stored (an older database) are not checked for reassembly;
the report says how many were.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Literal, get_args

from lxml import etree

from specbrowser.chunking.markdown_tables import header_rows, row_widths
from specbrowser.chunking.policy import ChunkPolicy
from specbrowser.chunking.reassemble import normalize_whitespace, reassemble
from specbrowser.errors import NotFoundError
from specbrowser.session.links import in_document_links
from specbrowser.store import SpecStore

CheckKind = Literal[
    "replacement_char",
    "dead_link",
    "heading_path",
    "not_reassembled",
    "table_columns",
    "table_header",
]
"""What a finding is about (see the module docstring)."""
CHECK_KINDS: tuple[CheckKind, ...] = get_args(CheckKind)
"""The values of :data:`CheckKind`, in report order."""

CHECK_TITLES: dict[CheckKind, str] = {
    "replacement_char": "U+FFFD the source does not have",
    "dead_link": "dead in-document links",
    "heading_path": "heading paths that differ from the TOC",
    "not_reassembled": "sections that do not reassemble",
    "table_columns": "table rows with another cell count than their header",
    "table_header": "source table rows that cover other columns than their header",
}
"""One line per kind, as the report prints it."""

SHOWN = 20
"""Findings kept per kind (the counts are whole)."""

_REPLACEMENT = "\ufffd"
_ROW = re.compile(r"^\s*\|.*\|\s*$")
_SEPARATOR = re.compile(r"^\s*\|(\s*:?-{3,}:?\s*\|)+\s*$")
_CELL_SPLIT = re.compile(r"(?<!\\)\|")


@dataclass(frozen=True)
class Finding:
    """One thing to distrust: its kind, where (a chunk or section id) and what."""

    kind: CheckKind
    where: str
    detail: str


@dataclass
class CheckReport:
    """The checks of one chunk set.

    Attributes:
        policy_version: the chunk set (full version).
        counts: kind → how many findings (all of them).
        findings: kind → the first :data:`SHOWN` findings, in document order.
        sections_reassembled: how many sections were checked for reassembly.
        links: in-document links checked (each occurrence).
    """

    policy_version: str
    counts: dict[CheckKind, int] = field(default_factory=lambda: dict.fromkeys(CHECK_KINDS, 0))
    findings: dict[CheckKind, list[Finding]] = field(
        default_factory=lambda: {kind: [] for kind in CHECK_KINDS}
    )
    sections_reassembled: int = 0
    links: int = 0

    @property
    def clean(self) -> bool:
        """Whether no check found anything."""
        return not any(self.counts.values())

    def add(self, finding: Finding) -> None:
        """Count ``finding`` and keep it when fewer than :data:`SHOWN` of its kind are kept."""
        self.counts[finding.kind] += 1
        if len(self.findings[finding.kind]) < SHOWN:
            self.findings[finding.kind].append(finding)


def check_chunk_set(store: SpecStore, policy_version: str) -> CheckReport:
    """Run every check on the chunk set ``policy_version`` (a full version).

    Raises:
        NotFoundError: no chunk set has that version.
    """
    report = CheckReport(policy_version)
    chunks = {c.id: c for c in store.iter_chunks(policy_version)}
    sections = store.sections.all(html=False)
    with_fffd = {c.section_id for c in chunks.values() if _REPLACEMENT in c.text and c.section_id}
    source = store.sections.html(sorted(with_fffd))
    for chunk in chunks.values():
        if chunk.section_id in with_fffd and _REPLACEMENT not in source.get(chunk.section_id, ""):
            count = chunk.text.count(_REPLACEMENT)
            report.add(Finding("replacement_char", chunk.id, f"{count} U+FFFD in the text"))
    _check_links(store, policy_version, chunks.values(), report)
    for mismatch in store.toc.mismatches():
        parser = " > ".join(mismatch.parser_path)
        toc = " > ".join(mismatch.toc_path)
        detail = f"{mismatch.kind}: headings {parser!r}, TOC {toc!r}"
        report.add(Finding("heading_path", mismatch.section_id, detail))
    settings = store.sets.settings(policy_version)
    if settings is None:
        raise NotFoundError(f"no chunk set with policy version {policy_version!r}")
    digest = store.sections.digest()
    markdown = ChunkPolicy.from_settings(settings).markdown
    cached = store.cache.load(digest, markdown) if digest else {}
    for section in sections:
        conversion = cached.get(section.id)
        if conversion is None or section.id not in chunks:
            continue
        report.sections_reassembled += 1
        made = normalize_whitespace(reassemble(section.id, chunks))
        expected = normalize_whitespace(conversion.markdown)
        if made != expected:
            report.add(Finding("not_reassembled", section.id, _first_difference(made, expected)))
    for chunk in chunks.values():
        for row, cells, header in _table_rows(chunk.text):
            detail = f"row {row}: {cells} cells, header {header}"
            report.add(Finding("table_columns", chunk.id, detail))
    _check_source_tables(store, [s.id for s in sections], report)
    return report


def _check_source_tables(store: SpecStore, section_ids: list[str], report: CheckReport) -> None:
    """Count the rows of each table in the sections' stored HTML whose width (columns covered,
    :func:`~specbrowser.chunking.markdown_tables.row_widths`) differs from their header's (the
    widest of its header rows, :func:`~specbrowser.chunking.markdown_tables.header_rows`)."""
    for section_id, html in store.sections.html(section_ids).items():
        if "<table" not in html:
            continue
        root = etree.fromstring(html, etree.HTMLParser())
        if root is None:
            continue
        for number, table in enumerate(root.iter("table"), start=1):
            header = header_rows(table)
            if not header:
                continue
            widths = row_widths(table)
            width = max(widths[: len(header)])
            for row, cells in enumerate(widths[len(header) :], start=len(header) + 1):
                if cells != width:
                    detail = f"table {number}, row {row}: {cells} columns, header {width}"
                    report.add(Finding("table_header", section_id, detail))


def _check_links(store: SpecStore, version: str, chunks, report: CheckReport) -> None:
    """Count the in-document links whose id the document lacks or whose element is in no
    chunk (:func:`specbrowser.session.links.in_document_links`)."""
    _total, links = in_document_links(store, version, chunks)
    report.links = len(links)
    for link in links:
        if not link.known:
            report.add(
                Finding("dead_link", link.chunk_id, f"#{link.anchor}: no element has this id")
            )
        elif link.target is None:
            report.add(
                Finding("dead_link", link.chunk_id, f"#{link.anchor}: its element is in no chunk")
            )


def _table_rows(text: str) -> Iterator[tuple[int, int, int]]:
    """``(row number, cells, header cells)`` of each Markdown table row of ``text`` whose cell
    count differs from its table's header row (1-based rows, the header row 1)."""
    lines = text.split("\n")
    index = 0
    while index + 1 < len(lines):
        if _ROW.match(lines[index]) and _SEPARATOR.match(lines[index + 1]):
            header = _cells(lines[index])
            row = 1
            index += 2
            while index < len(lines) and _ROW.match(lines[index]):
                row += 1
                cells = _cells(lines[index])
                if cells != header:
                    yield row, cells, header
                index += 1
        else:
            index += 1


def _cells(line: str) -> int:
    """The cells of one Markdown table row (escaped ``\\|`` is text, not a border)."""
    return len(_CELL_SPLIT.split(line.strip())) - 2


def _first_difference(made: str, expected: str) -> str:
    """Where the reassembled text first differs from the section's Markdown (both normalised),
    in a few words."""
    at = next(
        (i for i, (a, b) in enumerate(zip(made, expected, strict=False)) if a != b),
        min(len(made), len(expected)),
    )
    return (
        f"differs at character {at:,} ({len(made):,} reassembled, {len(expected):,} in the "
        f"section): {expected[at : at + 40]!r}"
    )
