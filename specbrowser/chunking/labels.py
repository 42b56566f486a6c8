"""The names a chunk set gives and the layout of a retrieval text: section ordinals, part
labels, the header lines. Pure functions over strings and model objects, light to import (no
summaries, TOC or reassembly): the store, the app's tree and the breakdown name chunks with them
before or without finishing a chunk set (:mod:`specbrowser.chunking.enrich`).

A retrieval text is a few ``Key: value`` header lines, then ``Content:`` and the chunk's
Markdown::

    Document summary: This Standard defines the Toylang language.   (policy summaries on)
    Document: Toylang Language Specification
    Section: 4 Statements > 4.2 The when Statement
    Section summary: The when statement runs one of two statements.   (when the section has one)
    Part: Table 3: Well-known Symbols > td 4          (only for a breakdown subsection)
    Content:
    <the chunk's text, in-document link targets dropped>

The two summary lines are the extractive summaries of :mod:`specbrowser.chunking.summaries`
(the chunking design, seed 001): the spec's (its abstract, scope or introduction) and the
section's lead sentence, which a breakdown subsection shares with its section.
"""

from __future__ import annotations

import re

from specbrowser.chunking.policy import tag_slug
from specbrowser.model import Chunk
from specbrowser.types import Layer

DOCUMENT_LAYER: Layer = "document"
DOCUMENT_TREE_LABEL = "Document synopsis"
"""How the app labels the document chunk (first node of the tree)."""

PATH_SEPARATOR = " > "
"""Joins heading-path titles and part labels in the retrieval header."""

_ORDINAL_TOKEN = re.compile(r"(?:[A-Z]|\d+)(?:\.\d+)*")
"""A section number: ``14``, ``14.6.1``, an annex letter ``B`` or ``B.1.2``."""

_TRAILING_NUMBER = re.compile(r"-(\d+)$")


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
