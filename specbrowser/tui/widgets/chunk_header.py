"""The chunk view's header block: the facts about a chunk as Rich ``Text``.

Pure functions (Rich ``Text`` only) but :func:`set_header`, which shows a header in its
``Static``. Spec text stays literal: the header is built as ``Text``, never parsed as markup.
"""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from specbrowser.chunking.markers import Marker
from specbrowser.model import Chunk
from specbrowser.types import MISMATCH_EXPLANATIONS, OVERRUN_EXPLANATIONS, MismatchKind

MISMATCH_BADGE_STYLE = "bold black on yellow"
"""The mismatch kind badge; yellow like the tree's ≠ mark."""

TRUNCATED_BADGE_STYLE = "bold white on dark_magenta"
"""The embedding-truncated badge; magenta like the tree's ✂ mark."""

PATH_SEPARATOR = " › "
"""Between the titles of a heading path."""

RETRIEVAL_MODE_LABEL = " retrieval text "
"""Shown after the chunk id while the view shows the retrieval text (key ``t``)."""


def format_chars(count: int) -> str:
    """``1234`` → ``"1,234"``: thousands separated by commas, as everywhere else (the CLI, the
    statistics screen, notifications)."""
    return f"{count:,}"


def header_text(
    chunk: Chunk,
    threshold: int,
    markers: list[Marker],
    selected: int | None,
    retrieval: bool = False,
    search_note: Text | None = None,
    tokens: int | None = None,
    token_window: int | None = None,
    section_chunks: int | None = None,
    source: bool = False,
) -> Text:
    """The header block of a chunk as Rich ``Text`` (spec text stays literal).

    Lines: id (and the retrieval-text badge when ``retrieval``); layer, section number, depth,
    tag and parent; size against the threshold (and, when it has markers, its size without
    them) and overrun reason, then the token count (when
    counted) and the embedding-truncated badge when it is over ``token_window``; heading path
    (two lines, ``parser:`` and ``TOC:``, when the TOC's path differs; see
    :func:`heading_lines`); markers;
    then ``search_note`` when a search's hits are being stepped through. ``section_chunks``
    (the section view is on) adds a badge with the number of chunks the section is made of;
    ``source`` a badge saying the body is the source HTML.
    """
    text = Text()
    text.append(chunk.id, style="bold")
    if retrieval:
        text.append("  ")
        text.append(RETRIEVAL_MODE_LABEL, style="bold reverse")
    if source:
        text.append("  ")
        text.append(" source HTML ", style="bold reverse")
    if section_chunks is not None:
        text.append("  ")
        text.append(
            f" section view · {section_chunks} chunk{'s' if section_chunks != 1 else ''} ",
            style="bold reverse",
        )
    text.append("\n")
    text.append(chunk.layer, style="bold")
    text.append(" · §\u00a0", style="dim")  # no-break space: keep the number with its sign
    text.append(chunk.section_ordinal or "—")
    text.append(" · depth ", style="dim")
    text.append(str(chunk.depth))
    text.append(" · tag ", style="dim")
    text.append(chunk.breakdown_tag or "—")
    text.append(" · parent ", style="dim")  # last: a long parent id wraps, nothing else does
    root = "— (document)" if chunk.layer == "document" else "— (section root)"
    text.append(chunk.parent_id or root)
    text.append("\n")
    over = chunk.size > threshold
    text.append(
        f"{format_chars(chunk.size)} / {format_chars(threshold)} chars",
        style="bold red" if over else "",
    )
    if markers:
        bare = chunk.size - sum(marker.end - marker.start for marker in markers)
        text.append(f" ({format_chars(bare)} without markers)", style="dim")
    if chunk.over_threshold:
        reason = OVERRUN_EXPLANATIONS.get(chunk.over_threshold, "")
        text.append("  ")
        text.append(f" over threshold: {chunk.over_threshold} ", style="bold white on dark_red")
        if reason:
            text.append(f" {reason}", style="red")
    if tokens is not None:
        text.append(" · ", style="dim")
        text.append(f"{format_chars(tokens)} tokens")
        if token_window is not None and tokens > token_window:
            text.append("  ")
            text.append(
                f" embedding truncated: > {format_chars(token_window)} tokens ",
                style=TRUNCATED_BADGE_STYLE,
            )
    text.append("\n")
    text.append_text(heading_lines(chunk))
    text.append("\n")
    if not markers:
        text.append("no markers", style="dim")
    elif selected is None:
        text.append(f"marker –/{len(markers)}", style="dim")
        text.append(
            "  (Esc, then n / p select)"
            if search_note is not None
            else "  (n / p select, f follows)",
            style="dim",
        )
    else:
        text.append(f"marker {selected + 1}/{len(markers)}", style="bold")
        text.append(" → ")
        text.append(markers[selected].target_id)
    if search_note is not None:
        text.append("\n")
        text.append_text(search_note)
    return text


def heading_lines(chunk: Chunk) -> Text:
    """The chunk's heading path as header lines (no trailing newline).

    One line, the parser's path, when the TOC gives no path or the same one. When they differ,
    two: ``parser: A › B`` and ``TOC:    A › C``, the second followed by the mismatch kind and
    its explanation (the kind is the section's; a difference the classifier accepts, such as
    whitespace or case, shows both paths with no kind).
    """
    parser_path = PATH_SEPARATOR.join(chunk.heading_path) or chunk.title
    text = Text()
    if chunk.toc_path is None or chunk.toc_path == chunk.heading_path:
        text.append(parser_path, style="italic")
        if chunk.mismatch:
            text.append("  ")
            text.append_text(mismatch_badge(chunk.mismatch))
        return text
    text.append("parser: ", style="dim")
    text.append(parser_path, style="italic")
    text.append("\n")
    text.append("TOC:    ", style="dim")
    text.append(PATH_SEPARATOR.join(chunk.toc_path) or "—", style="italic")
    if chunk.mismatch:
        text.append("  ")
        text.append_text(mismatch_badge(chunk.mismatch))
    return text


def mismatch_badge(kind: MismatchKind) -> Text:
    """``≠ kind`` as a badge, then its explanation when the kind is known."""
    badge = Text()
    badge.append(f" ≠ {kind} ", style=MISMATCH_BADGE_STYLE)
    explanation = MISMATCH_EXPLANATIONS.get(kind)
    if explanation:
        badge.append(f" {explanation}", style="yellow")
    return badge


def set_header(header: Static, text: Text) -> None:
    """Show ``text`` in the header, laying the screen out again only when the header's height
    changes: most chunks' headers wrap to the same number of lines, and a layout of every
    widget on each key is the larger part of a frame."""
    header.update(text, layout=False)
    region = header.content_region
    if not region.width or header.get_content_height(region.size, region.size, region.width) != (
        region.height
    ):
        header.refresh(layout=True)
