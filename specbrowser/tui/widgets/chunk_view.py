"""The chunk view: a header block of facts about a chunk, then its text as Markdown, or its
retrieval text as it is indexed.

Markers are rewritten into ``sb-chunk:`` links before rendering (see
:mod:`specbrowser.tui.marker_links`); one of them can be *selected* (bold, ``▶``) with
:meth:`ChunkView.select_marker`, and clicking any marker asks the screen to follow it.
Spec text stays literal: Markdown is not Rich markup, and the header is built as ``Text``.

After a search jump (:meth:`ChunkView.highlight_terms`), the matched words are highlighted in
the rendered blocks (``Content`` spans added after rendering: the Markdown source is never
changed, so escapes, code spans and tables stay intact) and the first one is scrolled to.
A header line (:attr:`ChunkView.search_note`) then says which hit this is.
"""

from __future__ import annotations

from markdown_it import MarkdownIt
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.reactive import var
from textual.widgets import Markdown, Static
from textual.widgets.markdown import MarkdownBlock

from specbrowser.chunking.markers import Marker, find_markers
from specbrowser.model import Chunk
from specbrowser.search.tokens import TokenInfo
from specbrowser.tui.highlight import term_spans
from specbrowser.tui.marker_links import (
    MARKER_ARROW,
    RENDERED_MARKER_PREFIX,
    SELECTED_ARROW,
    chunk_id_from_href,
    marker_label,
    rewrite_markers,
)
from specbrowser.types import MISMATCH_EXPLANATIONS, OVERRUN_EXPLANATIONS, MismatchKind

MISMATCH_BADGE_STYLE = "bold black on yellow"
"""The mismatch kind badge; yellow like the tree's ≠ mark."""

TRUNCATED_BADGE_STYLE = "bold white on dark_magenta"
"""The embedding-truncated badge; magenta like the tree's ✂ mark."""

PATH_SEPARATOR = " › "
"""Between the titles of a heading path."""

SELECTED_STYLE = "bold"
"""Added to the selected marker's rendered text, on top of the link style."""

RETRIEVAL_MARKER_STYLE = "underline"
"""Markers in the retrieval text view (plain text: no links, so they are underlined)."""

RETRIEVAL_SELECTED_STYLE = "bold reverse"
"""The selected marker in the retrieval text view."""

RETRIEVAL_MODE_LABEL = " retrieval text "
"""Shown after the chunk id while the view shows the retrieval text (key ``t``)."""

SEARCH_MATCH_STYLE = "bold black on yellow"
"""A matched search term in the view (Markdown and retrieval text)."""

RENDER_GROUP = "chunk-view-render"
"""Worker group of the Markdown render loop (one at a time; never cancelled mid-update)."""


def markdown_parser() -> MarkdownIt:
    """Textual's default "gfm-like" parser with raw HTML off: spec text such as ``<tag>`` is
    shown as written (the widget would silently drop HTML tokens)."""
    return MarkdownIt("gfm-like", {"html": False})


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
) -> Text:
    """The header block of a chunk as Rich ``Text`` (spec text stays literal).

    Lines: id (and the retrieval-text badge when ``retrieval``); layer, section number, depth,
    tag and parent; size against the threshold (and, when it has markers, its size without
    them) and overrun reason, then the token count (when
    counted) and the embedding-truncated badge when it is over ``token_window``; heading path
    (two lines, ``parser:`` and ``TOC:``, when the TOC's path differs; see
    :func:`heading_lines`); markers;
    then ``search_note`` when a search's hits are being stepped through.
    """
    text = Text()
    text.append(chunk.id, style="bold")
    if retrieval:
        text.append("  ")
        text.append(RETRIEVAL_MODE_LABEL, style="bold reverse")
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
            text.append_text(_mismatch_badge(chunk.mismatch))
        return text
    text.append("parser: ", style="dim")
    text.append(parser_path, style="italic")
    text.append("\n")
    text.append("TOC:    ", style="dim")
    text.append(PATH_SEPARATOR.join(chunk.toc_path) or "—", style="italic")
    if chunk.mismatch:
        text.append("  ")
        text.append_text(_mismatch_badge(chunk.mismatch))
    return text


def _mismatch_badge(kind: MismatchKind) -> Text:
    """``≠ kind`` as a badge, then its explanation when the kind is known."""
    badge = Text()
    badge.append(f" ≠ {kind} ", style=MISMATCH_BADGE_STYLE)
    explanation = MISMATCH_EXPLANATIONS.get(kind)
    if explanation:
        badge.append(f" {explanation}", style="yellow")
    return badge


class ChunkView(Vertical):
    """Shows one chunk: header block (``#chunk-header``) and Markdown text (``#chunk-text``).

    The text is rendered once per chunk. Selecting a marker does not re-render it (a large
    chunk is hundreds of widgets and takes seconds): the rendered widget holding the marker gets
    the class ``selected-marker`` and its ``⤷`` becomes a bold ``▶``.

    With :attr:`show_retrieval_text` the body shows the chunk's retrieval text instead, as plain
    text in one widget (``#chunk-retrieval``): exactly what search and embeddings index.
    Markers can be selected and followed there too.
    """

    show_retrieval_text: var[bool] = var(False, init=False)
    """Show the retrieval text (header + content) instead of the rendered Markdown content."""

    class FollowRequested(Message):
        """The user asked to go to another chunk or section (clicked a marker or ``#id`` link)."""

        def __init__(self, chunk_id: str) -> None:
            super().__init__()
            self.chunk_id = chunk_id

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.chunk: Chunk | None = None
        self.threshold = 0
        self.markers: list[Marker] = []
        self.selected_marker: int | None = None
        self._rendered = False
        self._rendering = False
        """A render loop runs (:meth:`_render_text`)."""
        self._render_wanted = False
        """The shown chunk changed since the render in flight started: render again."""
        self._highlight: tuple[Static, Content] | None = None
        self.search_terms: list[str] = []
        """Words highlighted in the shown chunk (:meth:`highlight_terms`); empty: none."""
        self.search_note: Text | None = None
        """The header's last line while stepping through search hits ("hit 2/10 …")."""
        self.token_info: TokenInfo | None = None
        """The active set's token counts (:meth:`set_token_info`), or None before counting."""

    def compose(self) -> ComposeResult:
        yield Static(id="chunk-header")
        with VerticalScroll(id="chunk-body"):
            yield Markdown(id="chunk-text", open_links=False, parser_factory=markdown_parser)
            yield Static(id="chunk-retrieval", markup=False)

    def on_mount(self) -> None:
        """Start on the Markdown content."""
        self.query_one("#chunk-retrieval", Static).display = False

    def watch_show_retrieval_text(self, show: bool) -> None:
        """Swap the body between the Markdown content and the retrieval text."""
        self.query_one("#chunk-text", Markdown).display = not show
        self.query_one("#chunk-retrieval", Static).display = show
        self._update_header()
        if show:
            if self.selected_marker is None:
                self.query_one("#chunk-body", VerticalScroll).scroll_home(animate=False)
            self._render_retrieval()
        elif self._rendered and self.selected_marker is not None:
            self._show_selection()

    @property
    def selected_target(self) -> str | None:
        """The id the selected marker points at, or None when no marker is selected."""
        if self.selected_marker is None:
            return None
        return self.markers[self.selected_marker].target_id

    def show_chunk(self, chunk: Chunk, threshold: int) -> None:
        """Show a chunk from its top, with no marker selected."""
        self.chunk = chunk
        self.threshold = threshold
        self.markers = find_markers(chunk.text)
        self.selected_marker = None
        self._highlight = None
        self._rendered = False
        self.search_terms = []
        self._update_header()
        self.query_one("#chunk-body", VerticalScroll).scroll_home(animate=False)
        self._render_text()
        if self.show_retrieval_text:
            self._render_retrieval()

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
        if self.show_retrieval_text:
            self._render_retrieval()
        elif self._rendered:
            self._show_selection()
        return True

    def _update_header(self) -> None:
        if self.chunk is not None:
            info = self.token_info
            self.query_one("#chunk-header", Static).update(
                header_text(
                    self.chunk,
                    self.threshold,
                    self.markers,
                    self.selected_marker,
                    retrieval=self.show_retrieval_text,
                    search_note=self.search_note,
                    tokens=info.counts.get(self.chunk.id) if info else None,
                    token_window=info.max_tokens if info else None,
                )
            )

    def set_token_info(self, info: TokenInfo | None) -> None:
        """Show token counts (and the truncated badge) from ``info`` in the header."""
        self.token_info = info
        self._update_header()

    def set_search_note(self, note: Text | None) -> None:
        """Show ``note`` as the header's last line (None removes it)."""
        self.search_note = note
        self._update_header()

    def highlight_terms(self, terms: list[str]) -> None:
        """Highlight ``terms`` (whole words, any case) in the shown chunk and scroll to the first
        one; applied when the render finishes if it is still running."""
        previous, self.search_terms = self.search_terms, list(terms)
        if self.show_retrieval_text:
            self._render_retrieval()
        if not self._rendered:
            return  # the render in flight applies them
        if previous and previous != self.search_terms:  # other words marked: render afresh
            self._rendered = False
            self._highlight = None
            self._render_text()
        else:
            self._show_search_terms()

    def _render_retrieval(self) -> None:
        """Show the retrieval text, markers underlined, the selected one reversed and scrolled to.

        The retrieval text ends with the chunk text, so marker offsets shift by the header's
        length.
        """
        if self.chunk is None:
            return
        plain = self.chunk.retrieval_text or "(this chunk set stores no retrieval text)"
        shift = len(plain) - len(self.chunk.text) if plain.endswith(self.chunk.text) else None
        content = Content(plain)
        matches = term_spans(plain, self.search_terms)
        for start, end in matches:
            content = content.stylize(SEARCH_MATCH_STYLE, start, end)
        selected_start: int | None = None
        for index, marker in enumerate(self.markers if shift is not None else []):
            start, end = marker.start + shift, marker.end + shift  # type: ignore[operator]
            chosen = index == self.selected_marker
            content = content.stylize(
                RETRIEVAL_SELECTED_STYLE if chosen else RETRIEVAL_MARKER_STYLE, start, end
            )
            if chosen:
                selected_start = start
        widget = self.query_one("#chunk-retrieval", Static)
        widget.update(content)
        if selected_start is None and matches:
            # the first match in the content (the retrieval header repeats titles)
            in_content = [s for s, _ in matches if shift is None or s >= shift] or [matches[0][0]]
            selected_start = in_content[0]
        if selected_start is not None:
            self.call_after_refresh(self._scroll_retrieval_to, plain[:selected_start])

    def _scroll_retrieval_to(self, before: str) -> None:
        """Scroll the body so the line holding the end of ``before`` (text wrapped as the
        retrieval widget wraps it) is near the top."""
        widget = self.query_one("#chunk-retrieval", Static)
        line = len(Content(before).wrap(max(1, widget.content_region.width))) - 1 if before else 0
        self.query_one("#chunk-body", VerticalScroll).scroll_to(
            y=max(0, widget.virtual_region.y + line - 2), animate=False
        )

    def _render_text(self) -> None:
        """Render the shown chunk's Markdown, after the render in flight if there is one.

        Renders are never cancelled: cancelling ``Markdown.update`` while it removes the old
        blocks left them half-closed and hung the app (seen stepping through search hits on
        ECMA-262). So one render runs at a time, and a chunk asked for meanwhile is rendered
        next; chunks passed over in between are never rendered at all.
        """
        self._render_wanted = True
        if not self._rendering:
            self._rendering = True
            self._render_loop()

    @work(group=RENDER_GROUP)
    async def _render_loop(self) -> None:
        try:
            while self._render_wanted and self.chunk is not None:
                self._render_wanted = False
                markdown = rewrite_markers(self.chunk.text, self.markers)
                await self.query_one("#chunk-text", Markdown).update(markdown)
                if self._render_wanted:
                    continue  # another chunk (or the same, afresh) was asked for meanwhile
                self._rendered = True
                if self.search_terms:
                    self._show_search_terms()
                if self.selected_marker is not None:
                    self._show_selection()
        finally:
            self._rendering = False

    def _show_search_terms(self) -> None:
        """Add :data:`SEARCH_MATCH_STYLE` spans on :attr:`search_terms` in every rendered block
        (table cells included) and scroll to the first block that has one."""
        first: Static | None = None
        for widget in self.query_one("#chunk-text", Markdown).query(Static):
            content = widget.content
            if not isinstance(content, Content) or not content.plain:
                continue
            spans = term_spans(content.plain, self.search_terms)
            if not spans:
                continue
            for start, end in spans:
                content = content.stylize(SEARCH_MATCH_STYLE, start, end)
            self._set_content(widget, content)
            if first is None:
                first = widget
        if first is not None and not self.show_retrieval_text:
            body = self.query_one("#chunk-body", VerticalScroll)
            self.call_after_refresh(body.scroll_to_widget, first, animate=False, top=True)

    def _find_rendered_marker(self, index: int) -> tuple[Static, int] | None:
        """The rendered widget showing marker ``index`` and the offset of its arrow.

        Widgets come in document order, so the k-th rendered marker prefix is marker k.
        """
        seen = 0
        for widget in self.query_one("#chunk-text", Markdown).query(Static):
            content = widget.content
            if not isinstance(content, Content):
                continue
            offset = content.plain.find(RENDERED_MARKER_PREFIX)
            while offset >= 0:
                if seen == index:
                    return widget, offset
                seen += 1
                offset = content.plain.find(RENDERED_MARKER_PREFIX, offset + 1)
        return None

    def _show_selection(self) -> None:
        """Move the ``selected-marker`` highlight to the selected marker and scroll to it."""
        if self._highlight is not None:
            previous, previous_content = self._highlight
            self._set_content(previous, previous_content)
            previous.remove_class("selected-marker")
            self._highlight = None
        if self.selected_marker is None:
            return
        found = self._find_rendered_marker(self.selected_marker)
        if found is None:
            return
        widget, offset = found
        original = widget.content
        assert isinstance(original, Content)
        label_end = (
            offset + len(MARKER_ARROW) + 1 + len(marker_label(self.markers[self.selected_marker]))
        )
        plain = original.plain
        selected = Content(
            plain[:offset] + SELECTED_ARROW + plain[offset + len(MARKER_ARROW) :],
            spans=list(original.spans),
        ).stylize(SELECTED_STYLE, offset, label_end)
        self._set_content(widget, selected)
        widget.add_class("selected-marker")
        self._highlight = (widget, original)
        if not self.show_retrieval_text:  # the Markdown is hidden behind the retrieval text
            body = self.query_one("#chunk-body", VerticalScroll)
            self.call_after_refresh(body.scroll_to_widget, widget, animate=False)

    @staticmethod
    def _set_content(widget: Static, content: Content) -> None:
        if isinstance(widget, MarkdownBlock):
            widget.set_content(content)
        else:
            widget.update(content)

    @on(Markdown.LinkClicked)
    def _link_clicked(self, event: Markdown.LinkClicked) -> None:
        """Markers and ``#id`` links ask the screen to follow them (an id of any element of
        the document leads to the chunk holding it); web links open in the browser; a link to
        another document is shown as external. Nothing is ever opened as a file."""
        event.stop()
        href = event.href
        target = chunk_id_from_href(href)
        if target is None and href.startswith("#") and len(href) > 1:
            target = href[1:]
        if target is not None:
            self.post_message(self.FollowRequested(target))
        elif href.startswith(("http://", "https://")):
            self.app.open_url(href)
            self.notify(f"external link, opened in the browser: {href}", markup=False)
        else:
            self.notify(
                f"external link (another document), not followed: {href}",
                markup=False,
                severity="warning",
            )
