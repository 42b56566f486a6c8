"""The seam every spec format plugs into: the :class:`SpecFormat` protocol and what it parses.

A format turns the pages of one spec (HTML files, read once by the registry,
:mod:`specbrowser.formats`) into a :class:`ParsedSpec`: a :class:`Document`, its sections in
document order, and each section's own-content element, child sections replaced by an empty
``<sb-section-ref>`` placeholder (:data:`specbrowser.model.SECTION_REF_TAG`). The rest of the
project (chunking, store, search, front ends) sees only that shape and the format's defaults.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable

from lxml import etree

from specbrowser.chunking.markdown_config import MarkdownConfig
from specbrowser.chunking.rules import ChunkingRules
from specbrowser.model import ParsedSpec

__all__ = ["Page", "ParsedSpec", "SpecFormat"]


@dataclass
class Page:
    """One HTML file of a spec, read and parsed (:func:`specbrowser.formats.html.read_html`).

    Attributes:
        path: the file as resolved from the user's arguments.
        root: the lxml root element; parsing a spec consumes it (sections move out of it).
        data: the file's raw bytes (the spec's identity hashes them, see ``Document.sha256``).
    """

    path: Path
    root: etree._Element
    data: bytes


@runtime_checkable
class SpecFormat(Protocol):
    """One spec format: how to recognise it, parse it, and chunk it by default.

    A format is a module-level object registered in :data:`specbrowser.formats.FORMATS`. The
    registry reads the input pages once and asks each format in registry order; the first whose
    :meth:`detect` names a kind and whose :meth:`parse` finds sections wins.
    """

    name: str
    """Registry key, short and stable (``ecmarkup``, ``headings``)."""

    title: str
    """How help texts name the format's specs ("for plain HTML specs")."""

    kinds: tuple[str, ...]
    """The :attr:`Document.kind` values this format produces (stored in databases: stable)."""

    section_description: str
    """What makes a section, for the "no sections" error (``h1-h6 headings``)."""

    markdown_config: MarkdownConfig
    """The Markdown converter's selectors a policy for this format starts from."""

    breakdown_tags: tuple[str, ...]
    """Default breakdown tags of the guarded strategy, in the order they are tried (when the
    user names none)."""

    seed_breakdown_tags: tuple[str, ...]
    """Default breakdown tags of the seed strategy (which extracts every element of a tag on its
    own, so no tag whose elements are small, like list items)."""

    suggested_tags: tuple[str, ...]
    """Further tags worth offering in a tag picker (the policy editor), after the defaults."""

    chunking_rules: ChunkingRules
    """The format's hooks for the chunking library: subsection titles, section ordinals."""

    def entry_file(self, folder: Path) -> Path | None:
        """The one file that stands for a whole folder argument (a source's entry page), or
        None when the folder means all its ``*.html`` pages. Reads at most a file's head."""
        ...

    def detect(self, pages: Sequence[Page]) -> str | None:
        """The document kind when this format may read ``pages``, else None. Looks only (no
        mutation), and cheaply: it runs on every input before any parse."""
        ...

    def parse(self, pages: Sequence[Page], kind: str, sha256: str) -> ParsedSpec:
        """The spec in ``pages`` (in document order) as a :class:`ParsedSpec` of document
        ``kind`` and identity ``sha256`` (hex digest of the pages' bytes in input order).

        Consumes the pages' trees. The document's title is the pages' own, or ""; the registry
        fills in ``Document.source_paths`` and a missing title. Returns a spec with no sections
        when the pages hold none in this format (the registry then asks the next format, with
        the trees as this call left them).

        Raises:
            SpecParseError: malformed input in this format (a section id used twice).
        """
        ...

    def section_kind_label(self, kind: str) -> str | None:
        """How a section of :attr:`Section.kind` ``kind`` is named in listings (the element
        that made it), or None when this format did not make that kind."""
        ...
