"""The chunk view's plain-text bodies: the retrieval text (key ``t``) and the source HTML (``h``).

Both are ``Static`` widgets in one scroll container, :class:`PlainBody` (the chunk view's
``#chunk-body``), which shows the one the view asks for and scrolls to the selected marker or
the first search match. Spec text stays literal: the retrieval text
is a ``Content`` styled at offsets and the HTML a ``Syntax`` or ``Text``, never parsed as markup.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Group
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from specbrowser.chunking.markers import Marker
from specbrowser.model import Chunk
from specbrowser.tui.highlight import term_spans

if TYPE_CHECKING:
    from specbrowser.session.source import ChunkSource

SEARCH_MATCH_STYLE = "bold black on yellow"
"""A matched search term in the view (Markdown and retrieval text)."""

RETRIEVAL_MARKER_STYLE = "underline"
"""Markers in the retrieval text view (plain text: no links, so they are underlined)."""

RETRIEVAL_SELECTED_STYLE = "bold reverse"
"""The selected marker in the retrieval text view."""

NO_RETRIEVAL_TEXT = "(this chunk set stores no retrieval text)"

SOURCE_HIGHLIGHT_LIMIT = 100_000
"""Characters of HTML above which the source is shown without syntax colours (fast)."""


class RetrievalText(Static):
    """A chunk's retrieval text, exactly what search and embeddings index: markers underlined,
    the selected one reversed, search terms marked."""

    def show(
        self, chunk: Chunk, markers: list[Marker], selected: int | None, terms: list[str]
    ) -> str | None:
        """Show ``chunk``'s retrieval text; return the text before the place to scroll to (the
        selected marker, else the first search match in the chunk's own text), or None.

        The retrieval text ends with the chunk text, so marker offsets shift by the header's
        length.
        """
        plain = chunk.retrieval_text or NO_RETRIEVAL_TEXT
        shift = len(plain) - len(chunk.text) if plain.endswith(chunk.text) else None
        content = Content(plain)
        matches = term_spans(plain, terms)
        for start, end in matches:
            content = content.stylize(SEARCH_MATCH_STYLE, start, end)
        selected_start: int | None = None
        for index, marker in enumerate(markers if shift is not None else []):
            start, end = marker.start + shift, marker.end + shift  # type: ignore[operator]
            chosen = index == selected
            content = content.stylize(
                RETRIEVAL_SELECTED_STYLE if chosen else RETRIEVAL_MARKER_STYLE, start, end
            )
            if chosen:
                selected_start = start
        self.update(content)
        if selected_start is None and matches:
            # the first match in the content (the retrieval header repeats titles)
            in_content = [s for s, _ in matches if shift is None or s >= shift] or [matches[0][0]]
            selected_start = in_content[0]
        return plain[:selected_start] if selected_start is not None else None

    def line_of(self, before: str) -> int:
        """The line (from this widget's top, wrapped as it wraps) holding the end of
        ``before``."""
        return len(Content(before).wrap(max(1, self.content_region.width))) - 1 if before else 0


class SourceText(Static):
    """A chunk's source HTML under a line naming it, syntax-coloured up to
    :data:`SOURCE_HIGHLIGHT_LIMIT` characters."""

    def show(self, source: ChunkSource) -> None:
        """Show ``source`` (its note dim when exact, yellow when it is the section's)."""
        from rich.syntax import Syntax  # deferred: Pygments (15-20 ms), for the source view only

        note = Text(source.note, style="dim italic" if source.exact else "bold yellow")
        body = (
            Syntax(source.html, "html", word_wrap=True, theme="monokai")
            if len(source.html) <= SOURCE_HIGHLIGHT_LIMIT
            else Text(source.html)
        )
        self.update(Group(note, Text(""), body))


class PlainBody(VerticalScroll):
    """The chunk view's plain-text body: :class:`RetrievalText` (``#chunk-retrieval``) or
    :class:`SourceText` (``#chunk-source``), one shown at a time, in one scroll container."""

    def compose(self) -> ComposeResult:
        yield RetrievalText(id="chunk-retrieval", markup=False)
        yield SourceText(id="chunk-source", markup=False)

    def show_body(self, *, retrieval: bool, source: bool) -> None:
        """Show the retrieval text, the source HTML, or (both False) neither."""
        self.display = retrieval or source
        self.query_one(RetrievalText).display = retrieval
        self.query_one(SourceText).display = source

    def show_retrieval(
        self, chunk: Chunk, markers: list[Marker], selected: int | None, terms: list[str]
    ) -> None:
        """Show ``chunk``'s retrieval text (:meth:`RetrievalText.show`) and scroll, once it is
        laid out, to the selected marker or the first match."""
        before = self.query_one(RetrievalText).show(chunk, markers, selected, terms)
        if before is not None:
            self.call_after_refresh(self._scroll_to_end_of, before)

    def show_source(self, source: ChunkSource) -> None:
        """Show ``source`` (:meth:`SourceText.show`)."""
        self.query_one(SourceText).show(source)

    def _scroll_to_end_of(self, before: str) -> None:
        """Scroll so that the line holding the end of ``before`` is near the top."""
        widget = self.query_one(RetrievalText)
        self.scroll_to(
            y=max(0, widget.virtual_region.y + widget.line_of(before) - 2), animate=False
        )
