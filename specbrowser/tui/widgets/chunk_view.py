"""The chunk view: a header block of facts about a chunk, then its text as Markdown, or its
retrieval text as it is indexed.

Markers are rewritten into ``sb-marker:`` links before rendering (see
:mod:`specbrowser.tui.marker_links`); one of them can be *selected* (bold, ``▶``) with
:meth:`ChunkView.select_marker`, and clicking any marker asks the screen to follow it.
Spec text stays literal: Markdown is not Rich markup, and the header is built as ``Text``.

The Markdown is rendered once into lines (:mod:`specbrowser.tui.widgets.chunk_lines`); the
selected marker and search hits are spans drawn over those lines
(:mod:`specbrowser.tui.widgets.chunk_overlays`), so moving them never renders the Markdown
again. After a search jump (:meth:`ChunkView.highlight_terms`), the matched
words are highlighted (the Markdown source is never changed, so escapes, code spans and tables
stay intact) and the first one is scrolled to. A header line (:attr:`ChunkView.search_note`)
then says which hit this is.

The header and the body always show the same chunk: a chunk rendered in the UI thread is shown
with its header in one step, and a chunk the lines render later
(:meth:`~specbrowser.tui.widgets.chunk_lines.ChunkLines.show_markdown`: too large, or keys
repeating) shows a placeholder body naming it until its lines are ready.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING
from urllib.parse import unquote

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.reactive import var
from textual.widgets import Static

from specbrowser.chunking.markers import Marker, find_markers
from specbrowser.errors import SpecbrowserError
from specbrowser.model import Chunk
from specbrowser.tui.marker_links import chunk_id_from_href, rewrite_markers
from specbrowser.tui.rendered_lines import MARKER_SCHEME
from specbrowser.tui.widgets.chunk_header import format_chars, header_text, set_header
from specbrowser.tui.widgets.chunk_lines import ChunkLines
from specbrowser.tui.widgets.chunk_overlays import ScrollTo, draw_overlays, marker_text
from specbrowser.tui.widgets.plain_bodies import PlainBody
from specbrowser.tui.widgets.section_view import SectionView

if TYPE_CHECKING:
    from specbrowser.search.tokens import TokenInfo
    from specbrowser.session.browse import Boundaries
    from specbrowser.session.source import ChunkSource

PLACEHOLDER = "rendering {id} ({size} characters) …"
"""The body while a chunk's lines are being rendered."""


class ChunkView(Vertical):
    """Shows one chunk: header block (``#chunk-header``) and Markdown text (``#chunk-text``,
    a :class:`~specbrowser.tui.widgets.chunk_lines.ChunkLines`).

    The text is rendered once per chunk and width. Selecting a marker restyles its spans (bold
    on a tint, its ``⤷`` drawn as ``▶``) without rendering the Markdown again.

    With :attr:`show_retrieval_text` the body shows the chunk's retrieval text instead, as plain
    text in one widget (``#chunk-retrieval``): exactly what search and embeddings index.
    Markers can be selected and followed there too.
    """

    show_retrieval_text: var[bool] = var(False, init=False)
    """Show the retrieval text (header + content) instead of the rendered Markdown content."""

    show_section: var[bool] = var(False, init=False)
    """Show the whole section the chunk belongs to, reassembled, each chunk's span tinted and
    labelled (:class:`~specbrowser.tui.widgets.section_view.SectionView`); the shown chunk's
    spans are bold."""

    show_source: var[bool] = var(False, init=False)
    """Show the chunk's source HTML (its element, else its section's; see
    :mod:`specbrowser.session.source`) instead of its Markdown."""

    class FollowRequested(Message):
        """The user asked to go to another chunk or section (clicked a marker or ``#id`` link).

        ``anchor`` is True for an ``#id`` link: ``chunk_id`` is then the element id as written,
        to resolve in the shown chunk's spec."""

        def __init__(self, chunk_id: str, *, anchor: bool = False) -> None:
            super().__init__()
            self.chunk_id = chunk_id
            self.anchor = anchor

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.chunk: Chunk | None = None
        self.threshold = 0
        self.markers: list[Marker] = []
        self.selected_marker: int | None = None
        self.search_terms: list[str] = []
        """Words highlighted in the shown chunk (:meth:`highlight_terms`); empty: none."""
        self.search_note: Text | None = None
        """The header's last line while stepping through search hits ("hit 2/10 …")."""
        self.token_info: TokenInfo | None = None
        """The active set's token counts (:meth:`set_token_info`), or None before counting."""
        self.boundaries_for: Callable[[str], Boundaries] | None = None
        """Reassembles a section's root chunk by id with its spans (set by the screen, e.g.
        :meth:`Session.boundaries`); the section view needs it."""
        self.section = SectionView()
        """The section view's layout (:attr:`show_section`)."""
        self.source_for: Callable[[str], ChunkSource] | None = None
        """Finds a chunk's source HTML by id (set by the screen: :meth:`Session.chunk_source`)."""
        self.url_target_for: Callable[[str], str | None] | None = None
        """The chunk a web link into a spec of the database leads to, or None (set by the
        screen: :meth:`Session.url_target`); None here opens every web link in the browser."""
        self.previews_for: Callable[[list[str]], dict[str, str]] | None = None
        """Names the subsections of markers without a title (chunk id → title, the first words
        of a paragraph, cell or step: set by the screen); None shows bare markers."""
        self.source: ChunkSource | None = None
        """The source the source view shows, or None."""

    def compose(self) -> ComposeResult:
        yield Static(id="chunk-header")
        yield ChunkLines(id="chunk-text")
        yield PlainBody(id="chunk-body")

    def on_mount(self) -> None:
        """Start on the Markdown content."""
        self._sync_body()

    @property
    def lines(self) -> ChunkLines:
        """The widget showing the rendered Markdown."""
        return self.query_one(ChunkLines)

    @property
    def body(self) -> PlainBody:
        """The plain-text body (retrieval text or source HTML)."""
        return self.query_one(PlainBody)

    @property
    def rendered(self) -> bool:
        """The shown chunk's lines are on screen (not a placeholder)."""
        return self.chunk is not None and self.lines.rendered is not None

    def _sync_body(self) -> None:
        """Show the body widget of the mode on: lines (content, section view), retrieval text
        or source HTML."""
        self.lines.display = not (self.show_retrieval_text or self.show_source)
        self.body.show_body(retrieval=self.show_retrieval_text, source=self.show_source)

    def watch_show_source(self, show: bool) -> None:
        """Swap the body between the chunk's content and its source HTML."""
        if show:
            self.show_retrieval_text = False
            self.show_section = False
        self._sync_body()
        self._update_header()
        if show:
            self.body.scroll_home(animate=False)
            self._render_source()

    def _render_source(self) -> None:
        """Show the shown chunk's source HTML (:meth:`PlainBody.show_source`)."""
        if self.chunk is None or self.source_for is None:
            return
        try:
            source = self.source_for(self.chunk.id)
        except SpecbrowserError as error:
            self.notify(str(error), severity="error", markup=False)
            return
        self.source = source
        self.body.show_source(source)

    def watch_show_section(self, show: bool) -> None:
        """Swap the body between the chunk's content and its whole section with boundaries."""
        if show:
            self.show_retrieval_text = False
            self.show_source = False
        if show:
            self._show_section()
        else:
            self.section.clear()
            self._update_header()
            if self.chunk is not None:
                self.lines.show(
                    rewrite_markers(self.chunk.text, self.markers, href_prefix=MARKER_SCHEME)
                )
                self._apply_overlays(scroll="marker")

    @property
    def boundaries(self) -> Boundaries | None:
        """The section the section view shows, or None."""
        return self.section.boundaries

    def _show_section(self, relayout: bool = False, scroll: bool = True) -> None:
        """Lay out the shown chunk's section (again if ``relayout`` or another section), bold
        the chunk's spans and (``scroll``) scroll to the first one."""
        if self.chunk is None or self.boundaries_for is None:
            return
        try:
            self.section.lay_out(self.lines, self.chunk, self.boundaries_for, relayout=relayout)
        except SpecbrowserError as error:
            self.notify(str(error), severity="error", markup=False)
            return
        self._update_header()
        self.section.mark(self.lines, self.chunk.id, scroll=scroll)

    def watch_show_retrieval_text(self, show: bool) -> None:
        """Swap the body between the Markdown content and the retrieval text."""
        if show:
            self.show_section = False
            self.show_source = False
        self._sync_body()
        self._update_header()
        if show:
            if self.selected_marker is None:
                self.body.scroll_home(animate=False)
            self._render_retrieval()
        elif self.selected_marker is not None:
            self._apply_overlays(scroll="marker")

    @property
    def selected_target(self) -> str | None:
        """The id the selected marker points at, or None when no marker is selected."""
        if self.selected_marker is None:
            return None
        return self.markers[self.selected_marker].target_id

    def show_chunk(self, chunk: Chunk, threshold: int, *, defer: bool = False) -> None:
        """Show a chunk from its top, with no marker selected; header and body change together
        (a large chunk's body is a placeholder until its lines are ready). In the section view,
        the chunk's spans in its section.

        ``defer`` (keys repeating): a body that would need rendering is a placeholder until the
        keys stop (:meth:`ChunkLines.show_markdown`), so a held key renders only where it
        stops."""
        fresh = self.chunk is None  # nothing shown, or the chunk set changed under the view
        self.chunk = chunk
        self.threshold = threshold
        self.markers = find_markers(chunk.text)
        self.selected_marker = None
        self.search_terms = []
        if self.show_section:
            self._show_section(relayout=fresh)
            return
        self._update_header()
        self.lines.show_markdown(
            self.markdown_for(chunk, self.markers),
            PLACEHOLDER.format(id=chunk.id, size=format_chars(chunk.size)),
            defer=defer,
        )
        if self.show_retrieval_text:
            self._render_retrieval()
        if self.show_source:
            self._render_source()

    def markdown_for(self, chunk: Chunk, markers: list[Marker] | None = None) -> str:
        """The Markdown the view renders for ``chunk``: its text with the markers (``markers``,
        else found again) as links, untitled ones named by :attr:`previews_for`."""
        if markers is None:
            markers = find_markers(chunk.text)
        untitled = [m.target_id for m in markers if not m.title]
        previews = self.previews_for(untitled) if untitled and self.previews_for else None
        return rewrite_markers(chunk.text, markers, href_prefix=MARKER_SCHEME, previews=previews)

    def prepare(self, chunk: Chunk) -> bool:
        """Render ``chunk``'s lines ahead, into the lines' render cache, without showing them:
        showing the chunk next then takes no render. False when nothing was rendered (cached
        already, a large chunk rendered in a thread when shown, or the section view on)."""
        if self.show_section:
            return False
        return self.lines.prerender(self.markdown_for(chunk))

    @on(ChunkLines.Ready)
    def _lines_ready(self, event: ChunkLines.Ready) -> None:
        """The body rendered later is shown: draw the search hits and the selected marker."""
        event.stop()
        if self.chunk is not None:
            self._apply_overlays(scroll="search" if self.search_terms else "marker")

    @on(ChunkLines.Rerendered)
    def _rerendered(self, event: ChunkLines.Rerendered) -> None:
        event.stop()
        if self.show_section:
            self._show_section(relayout=True, scroll=False)
        else:
            self._apply_overlays(scroll=None)

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
        self._marker_selected()
        return True

    def select_marker_to(self, target_id: str) -> bool:
        """Select the (first) marker that names ``target_id``, scrolled into view: where a
        followed marker was, when ``u`` comes back to its chunk. False when no marker names it."""
        index = next((i for i, m in enumerate(self.markers) if m.target_id == target_id), None)
        if index is None:
            return False
        self.selected_marker = index
        self._marker_selected()
        return True

    def _marker_selected(self) -> None:
        self._update_header()
        if self.show_retrieval_text:
            self._render_retrieval()
        else:
            self._apply_overlays(scroll="marker")

    def _update_header(self) -> None:
        if self.chunk is not None:
            info = self.token_info
            set_header(
                self.query_one("#chunk-header", Static),
                header_text(
                    self.chunk,
                    self.threshold,
                    self.markers,
                    self.selected_marker,
                    retrieval=self.show_retrieval_text,
                    search_note=self.search_note,
                    tokens=info.counts.get(self.chunk.id) if info else None,
                    token_window=info.max_tokens if info else None,
                    source=self.show_source,
                    section_chunks=self.section.chunk_count() if self.show_section else None,
                ),
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
        one; applied when the lines are ready if they are still being rendered."""
        self.search_terms = list(terms)
        if self.show_retrieval_text:
            self._render_retrieval()
        self._apply_overlays(scroll="search" if self.search_terms else None)

    def _apply_overlays(self, scroll: ScrollTo | None) -> None:
        """Draw the search hits and the selected marker on the lines (:func:`draw_overlays`);
        scroll to the marker or the first hit only while the lines are the body shown."""
        if self.show_section:
            return
        draw_overlays(
            self.lines,
            self.search_terms,
            self.selected_marker,
            None if self.show_retrieval_text else scroll,
        )

    def marker_text(self, index: int | None = None) -> str:
        """The rendered text of marker ``index`` (default: the selected one) as drawn, its
        pieces (a label wrapped over lines) joined by spaces; "" when not shown."""
        if index is None:
            index = self.selected_marker
        return marker_text(self.lines.rendered, index, selected=index == self.selected_marker)

    def _render_retrieval(self) -> None:
        """Show the retrieval text; scroll to the selected marker or the first match."""
        if self.chunk is not None:
            self.body.show_retrieval(
                self.chunk, self.markers, self.selected_marker, self.search_terms
            )

    @on(ChunkLines.LinkClicked)
    def _link_clicked(self, event: ChunkLines.LinkClicked) -> None:
        event.stop()
        self.follow_href(event.href)

    def follow_href(self, href: str) -> None:
        """Follow a link of the text as a click does: markers and ``#id`` links ask the screen
        to follow them (an id of any element of the document leads to the chunk holding it), as
        do web links into another spec of the database (:attr:`url_target_for`); other web
        links open in the browser; a link to another document is shown as external.
        Nothing is ever opened as a file. ``href`` as written (%-escapes are undone)."""
        if href.startswith(MARKER_SCHEME):
            index = int(href[len(MARKER_SCHEME) :])
            if 0 <= index < len(self.markers):
                self.post_message(self.FollowRequested(self.markers[index].target_id))
            return
        href = unquote(href)
        target = chunk_id_from_href(href)
        if target is not None:
            self.post_message(self.FollowRequested(target))
        elif href.startswith("#") and len(href) > 1:
            self.post_message(self.FollowRequested(href[1:], anchor=True))
        elif href.startswith(("http://", "https://")) and (
            in_corpus := self.url_target_for(href) if self.url_target_for else None
        ):
            self.post_message(self.FollowRequested(in_corpus))
        elif href.startswith(("http://", "https://")):
            self.app.open_url(href)
            self.notify(f"external link, opened in the browser: {href}", markup=False)
        else:
            self.notify(
                f"external link (another document), not followed: {href}",
                markup=False,
                severity="warning",
            )
