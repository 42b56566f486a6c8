"""The chunk view: a header block of facts about a chunk, then its text as Markdown.

Markers are rewritten into ``sb-chunk:`` links before rendering (see
:mod:`specbrowser.tui.marker_links`); one of them can be *selected* (bold, ``▶``) with
:meth:`ChunkView.select_marker`, and clicking any marker asks the screen to follow it.
"""

from __future__ import annotations

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Markdown, Static
from textual.widgets.markdown import MarkdownBlock

from specbrowser.markers import Marker, find_markers
from specbrowser.model import Chunk
from specbrowser.tui.marker_links import chunk_id_from_href, marker_line, rewrite_markers

OVER_THRESHOLD_REASONS = {
    "max_depth": "at the policy's max depth, so not broken down further",
    "unsplittable": "no breakdown tag matched inside it",
}
"""One-line explanations of :attr:`Chunk.over_threshold` values, shown in the header."""

RENDER_GROUP = "chunk-view-render"
"""Worker group of the Markdown render; exclusive, so a newer chunk cancels a render in flight."""


def format_chars(count: int) -> str:
    """``1234`` → ``"1 234"``: thousands separated by spaces, as in the size line."""
    return f"{count:,}".replace(",", " ")


def header_text(chunk: Chunk, threshold_chars: int, markers: list[Marker],
                selected: int | None) -> Text:
    """The header block of a chunk as Rich ``Text`` (spec text stays literal)."""
    text = Text()
    text.append(chunk.id, style="bold")
    text.append("\n")
    text.append("parent ", style="dim")
    text.append(chunk.parent_id or "— (section root)")
    text.append(" · depth ", style="dim")
    text.append(str(chunk.depth))
    text.append(" · tag ", style="dim")
    text.append(chunk.breakdown_tag or "—")
    text.append(" · size ", style="dim")
    over = chunk.size > threshold_chars
    text.append(f"{format_chars(chunk.size)} / {format_chars(threshold_chars)} chars",
                style="bold red" if over else "")
    if chunk.over_threshold:
        reason = OVER_THRESHOLD_REASONS.get(chunk.over_threshold, "")
        text.append("\n")
        text.append(f" over threshold: {chunk.over_threshold} ", style="bold white on dark_red")
        if reason:
            text.append(f" {reason}", style="red")
    text.append("\n")
    text.append(" › ".join(chunk.heading_path) or chunk.title, style="italic")
    text.append("\n")
    if not markers:
        text.append("no markers", style="dim")
    elif selected is None:
        text.append(f"marker –/{len(markers)}", style="dim")
        text.append("  (n / p select, f follows)", style="dim")
    else:
        text.append(f"marker {selected + 1}/{len(markers)}", style="bold")
        text.append(" → ")
        text.append(markers[selected].target_id)
    return text


class ChunkView(Vertical):
    """Shows one chunk: header block (``#chunk-header``) and Markdown text (``#chunk-text``)."""

    class FollowRequested(Message):
        """The user asked to go to another chunk or section (clicked a marker or ``#id`` link)."""

        def __init__(self, chunk_id: str) -> None:
            super().__init__()
            self.chunk_id = chunk_id

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.chunk: Chunk | None = None
        self.threshold_chars = 0
        self.markers: list[Marker] = []
        self.selected_marker: int | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="chunk-header")
        with VerticalScroll(id="chunk-body"):
            yield Markdown(id="chunk-text", open_links=False)

    @property
    def selected_target(self) -> str | None:
        """The id the selected marker points at, or None when no marker is selected."""
        if self.selected_marker is None:
            return None
        return self.markers[self.selected_marker].target_id

    def show_chunk(self, chunk: Chunk, threshold_chars: int) -> None:
        """Show a chunk from its top, with no marker selected."""
        self.chunk = chunk
        self.threshold_chars = threshold_chars
        self.markers = find_markers(chunk.text)
        self.selected_marker = None
        self._update_header()
        self.query_one("#chunk-body", VerticalScroll).scroll_home(animate=False)
        self._render_text(scroll_to_marker=False)

    def select_marker(self, step: int) -> bool:
        """Select the next (``step=1``) or previous (``-1``) marker, wrapping around.

        Returns False when the chunk has no markers.
        """
        if not self.markers:
            return False
        if self.selected_marker is None:
            self.selected_marker = 0 if step > 0 else len(self.markers) - 1
        else:
            self.selected_marker = (self.selected_marker + step) % len(self.markers)
        self._update_header()
        self._render_text(scroll_to_marker=True)
        return True

    def _update_header(self) -> None:
        if self.chunk is not None:
            self.query_one("#chunk-header", Static).update(
                header_text(self.chunk, self.threshold_chars, self.markers, self.selected_marker))

    @work(exclusive=True, group=RENDER_GROUP)
    async def _render_text(self, scroll_to_marker: bool) -> None:
        if self.chunk is None:
            return
        markdown = self.query_one("#chunk-text", Markdown)
        await markdown.update(rewrite_markers(self.chunk.text, self.selected_marker, self.markers))
        if scroll_to_marker and self.selected_marker is not None:
            line = marker_line(self.chunk.text, self.markers[self.selected_marker])
            block = self._block_at_line(markdown, line)
            if block is not None:
                body = self.query_one("#chunk-body", VerticalScroll)
                self.call_after_refresh(body.scroll_to_widget, block, animate=False)

    @staticmethod
    def _block_at_line(markdown: Markdown, line: int) -> MarkdownBlock | None:
        """The innermost rendered block whose source lines include ``line`` (0-based)."""
        best: MarkdownBlock | None = None
        for block in markdown.query(MarkdownBlock):
            start, end = block.source_range
            if start <= line < end and (
                    best is None or end - start <= best.source_range[1] - best.source_range[0]):
                best = block
        return best

    @on(Markdown.LinkClicked)
    def _link_clicked(self, event: Markdown.LinkClicked) -> None:
        """Markers and ``#id`` links go to that chunk; web links open in the browser; nothing
        is ever opened as a file."""
        event.stop()
        href = event.href
        target = chunk_id_from_href(href)
        if target is None and href.startswith("#") and len(href) > 1:
            target = href[1:]
        if target is not None:
            self.post_message(self.FollowRequested(target))
        elif href.startswith(("http://", "https://")):
            self.app.open_url(href)
        else:
            self.notify(f"not followed: {href}", markup=False, severity="warning")
