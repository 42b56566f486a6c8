"""Spec formats: HTML in, section tree out, behind one :class:`SpecFormat` seam.

:data:`FORMATS` is the registry, in the order formats are tried. :func:`load_spec` reads a spec
file or folder once, asks the formats in turn (:meth:`SpecFormat.detect`, then
:meth:`SpecFormat.parse`) and returns the first :class:`ParsedSpec` with sections.
:func:`format_for_kind` gives a stored document's format back (its defaults and chunking
rules), for re-chunks and front ends.

Adding a format: one module with a ``FORMAT`` object (see :mod:`specbrowser.formats.base`) and
one line in :data:`FORMATS`.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from specbrowser.chunking.policy import (
    DEFAULT_MAX_DEPTH,
    DEFAULT_MIN_CHARS,
    DEFAULT_STRATEGY,
    DEFAULT_THRESHOLD_CHARS,
    ChunkPolicy,
)
from specbrowser.errors import SpecInputError, SpecParseError
from specbrowser.formats import ecmarkup, headings
from specbrowser.formats.base import Page, ParsedSpec, SpecFormat
from specbrowser.formats.html import (
    RepeatedMenus,
    bytes_sha256,
    check_html_head,
    order_pages,
    read_html,
    resolve_fragment_links,
)
from specbrowser.types import EDIT_MODES, BreakdownStrategy, EditMode, SizeUnit

FORMATS: tuple[SpecFormat, ...] = (
    ecmarkup.FORMAT,
    headings.FORMAT,
)
"""Every format, in the order they are tried: formats with section elements of their own before
plain headings, which nearly any HTML has."""

DEFAULT_FORMAT: SpecFormat = FORMATS[0]
"""The format whose defaults :class:`~specbrowser.chunking.policy.ChunkPolicy` has, used for a
document of no or an unknown kind."""

__all__ = [
    "DEFAULT_FORMAT",
    "FORMATS",
    "Page",
    "ParsedSpec",
    "SpecFormat",
    "check_spec_inputs",
    "detect",
    "format_for_kind",
    "load_spec",
    "policy_for",
    "resolve_inputs",
    "section_kind_label",
    "spec_sha256",
]


def format_for_kind(kind: str | None) -> SpecFormat:
    """The format that produces documents of ``kind`` (:attr:`Document.kind`);
    :data:`DEFAULT_FORMAT` for None or a kind no format produces."""
    return next((f for f in FORMATS if kind in f.kinds), DEFAULT_FORMAT)


def policy_for(
    kind: str | None,
    threshold: int = DEFAULT_THRESHOLD_CHARS,
    tags: str | None = None,
    max_depth: int = DEFAULT_MAX_DEPTH,
    *,
    strategy: BreakdownStrategy = DEFAULT_STRATEGY,
    min_chars: int = DEFAULT_MIN_CHARS,
    unit: SizeUnit = "chars",
    edits: EditMode = EDIT_MODES[0],
) -> ChunkPolicy:
    """The policy for a document of ``kind`` from command-line style settings: ``tags`` as typed
    (comma-separated), else the kind's format's default tags for the strategy; that format's
    Markdown config, with the edit mode ``edits``.

    Raises:
        PolicyError: as :meth:`ChunkPolicy.from_tag_list`.
    """
    spec_format = format_for_kind(kind)
    return ChunkPolicy.from_tag_list(
        threshold,
        tags,
        max_depth,
        markdown=replace(spec_format.markdown_config, edits=edits),
        default_tags=(
            spec_format.seed_breakdown_tags if strategy == "seed" else spec_format.breakdown_tags
        ),
        strategy=strategy,
        min_chars=min_chars,
        unit=unit,
    )


def section_kind_label(kind: str) -> str:
    """How a section of :attr:`Section.kind` ``kind`` is named in listings: the element that
    made it when a format says so (``emu-clause``), else the kind itself (``heading``)."""
    return next((label for f in FORMATS if (label := f.section_kind_label(kind))), kind)


def resolve_inputs(paths: list[Path]) -> list[Path]:
    """Expand the user's spec arguments into HTML files, in the order given.

    A folder for which a format names an entry file (an ecmarkup source's ``spec.html`` or
    ``spec.emu``) means that file; any other folder means all its ``*.html`` files (a multipage
    rendering), by name.
    A file named twice counts once.

    Raises:
        SpecInputError: a path that does not exist, or a folder without HTML files.
    """
    files: list[Path] = []
    for path in paths:
        if not path.exists():
            raise SpecInputError(f"{path} does not exist")
        if path.is_dir():
            entry = next((e for f in FORMATS if (e := f.entry_file(path)) is not None), None)
            if entry is not None:
                files.append(entry)
                continue
            pages = sorted(p for p in path.glob("*.html") if p.is_file())
            if not pages:
                raise SpecInputError(
                    f"{path} is a folder without .html files (nor an ecmarkup source's "
                    "spec.html or spec.emu)"
                )
            files.extend(pages)
        else:
            files.append(path)
    unique = list(dict.fromkeys(p.resolve() for p in files))
    if len(unique) != len(files):  # the same file named twice would repeat every section
        files = [next(f for f in files if f.resolve() == u) for u in unique]
    return files


def check_spec_inputs(paths: list[Path]) -> list[Path]:
    """Resolve the spec arguments and check each file looks like HTML, without parsing them.

    Raises:
        SpecInputError: as :func:`resolve_inputs`, or a file that is not HTML.
    """
    files = resolve_inputs(paths)
    for path in files:
        check_html_head(path)
    return files


def spec_sha256(paths: list[Path]) -> str:
    """The ``Document.sha256`` that :func:`load_spec` would give these inputs, without parsing
    (to tell whether a cached database still holds this exact spec).

    Raises:
        SpecInputError: as :func:`resolve_inputs`.
    """
    return bytes_sha256(path.read_bytes() for path in resolve_inputs(paths))


def _read_pages(paths: list[Path] | Path) -> list[Page]:
    """The input pages read and parsed, in the order given, without the copies of a multipage
    rendering's TOC menu that nothing reads (:class:`~specbrowser.formats.html.RepeatedMenus`)."""
    files = resolve_inputs([paths] if isinstance(paths, Path) else paths)
    menus = RepeatedMenus([path.name for path in files])
    pages = []
    for path in files:
        pages.append(Page(path, *read_html(path)))
        menus.add(pages[-1])
    return pages


def _candidates(pages: list[Page]) -> list[tuple[SpecFormat, str]]:
    """The formats that claim ``pages`` (in document order), with the kind each names."""
    return [(f, kind) for f in FORMATS if (kind := f.detect(pages)) is not None]


def detect(paths: list[Path] | Path) -> SpecFormat:
    """The format :func:`load_spec` would try first on these inputs (a cheap look at the
    parsed pages, no sections collected).

    Raises:
        SpecInputError: as :func:`resolve_inputs`, or a file that is not HTML.
        SpecParseError: a file lxml cannot parse, or no format claims the pages.
    """
    pages = _read_pages(paths)
    found = _candidates(order_pages(pages) if len(pages) > 1 else pages)
    if not found:
        raise _no_sections(pages)
    return found[0][0]


def load_spec(paths: list[Path] | Path) -> ParsedSpec:
    """Read a spec from a file, a multipage folder, a source folder, or a list of pages.

    Several pages are put in document order (:func:`specbrowser.formats.html.order_pages`);
    ``Document.sha256`` hashes them in the order given, as :func:`spec_sha256` does, and
    ``Document.source_paths`` lists them in that order. The first format (registry order) that
    claims the pages and finds sections in them gives the result; when none does, pages that
    hold ecmarkup elements are read as ecmarkup without clauses (their content one front
    matter section: :func:`~specbrowser.formats.ecmarkup.fragment_kind`). A document without
    a title of its own takes its first section's (other than front matter).
    Links whose fragment holds a ``%`` escape are pointed at the id they name first
    (:func:`specbrowser.formats.html.resolve_fragment_links`).

    Raises:
        SpecInputError: missing path, folder without HTML, a file that is not HTML.
        SpecParseError: a file lxml cannot parse, or no format finds a section.
    """
    pages, ordered = _prepared(paths)
    sha = bytes_sha256(page.data for page in pages)
    candidates = _candidates(ordered)
    for spec_format, kind in candidates:
        parsed = spec_format.parse(ordered, kind, sha)
        if parsed.sections:
            return _finished(parsed, pages, ordered)
    fragment = ecmarkup.fragment_kind(ordered)
    if fragment is not None:
        if candidates:  # their parses consumed the pages: read them again
            pages, ordered = _prepared(paths)
        parsed = ecmarkup.FORMAT.parse(ordered, fragment, sha)
        if parsed.sections:
            return _finished(parsed, pages, ordered)
    raise _no_sections(pages)


def _prepared(paths: list[Path] | Path) -> tuple[list[Page], list[Page]]:
    """The pages read (:func:`_read_pages`) with their ``%``-escaped links resolved, in the
    order given and in document order."""
    pages = _read_pages(paths)
    resolve_fragment_links(pages)
    return pages, order_pages(pages) if len(pages) > 1 else pages


def _finished(parsed: ParsedSpec, pages: list[Page], ordered: list[Page]) -> ParsedSpec:
    """``parsed`` with its document's source paths, its identity (read from the first page in
    document order, ``ordered``) and, when it has none, its title (its first section's other
    than front matter, else the first section's)."""
    document = parsed.document
    document.source_paths = [str(page.path) for page in pages]
    document.title = document.title or next(
        (s.title for s in parsed.sections if s.kind != headings.FRONT_MATTER_KIND),
        parsed.sections[0].title,
    )
    # deferred: only a parse needs it (2 ms of every other command's start-up); an ingest
    # imports it while lxml parses (specbrowser.session.ingest.STORE_MODULES)
    from specbrowser.formats.identity import spec_identity

    parsed.identity = spec_identity(ordered[0].data)
    return parsed


def _no_sections(pages: list[Page]) -> SpecParseError:
    names = ", ".join(str(page.path) for page in pages[:3])
    kinds = " nor ".join(f.section_description for f in FORMATS)
    return SpecParseError(f"no sections in {names}: neither {kinds}")
