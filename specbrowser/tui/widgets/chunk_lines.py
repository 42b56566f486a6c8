"""A chunk's Markdown rendered once into lines, shown by a line-API scroll view.

:class:`ChunkLines` shows :class:`~specbrowser.tui.rendered_lines.RenderedLines` with
``render_line``, building each visible line's ``Strip`` on demand and caching it (LRU);
*overlays* (the selected marker, search hits) are kept as offsets and applied when a line is
built, so moving them restyles a screenful of lines and never re-renders the Markdown.

It also decides when Markdown is rendered (:meth:`ChunkLines.show_markdown`): at once when it
is cached or small; in a thread, behind a placeholder, when it is over
:attr:`ChunkLines.large_chunk` characters; while keys repeat, only once no other Markdown
was asked for during :data:`DEFER_SECONDS`, so a held key renders only where it stops; and
before the view is laid out (the first screen), once it is, at its width.

Wide lines wrap (Rich wraps paragraphs, table cells and code blocks to the width): a grammar
production or an algorithm step is then read top to bottom like the rest of the chunk, search
hits and markers are always in view without a horizontal position to manage, and one scroll
axis serves the keyboard and the mouse alike. Nothing is clipped, so the text after the pane's
edge is reachable by scrolling down.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.cells import cell_len
from rich.console import Console
from rich.style import Style
from rich.text import Text
from textual import events, on, work
from textual.cache import LRUCache
from textual.geometry import Offset, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.timer import Timer

from specbrowser.tui.highlight import term_spans
from specbrowser.tui.rendered_lines import RenderedLines

# Deferred to the first render: specbrowser.tui.markdown_lines (Rich's Markdown, markdown-it and
# Pygments, 35-45 ms), which the first frame does without (the lines are rendered once laid out).

LINE_CACHE_SIZE = 1024
"""Strips kept per view: a few screenfuls at any scroll position."""

RENDER_CACHE_SIZE = 32
"""Rendered chunks kept per view (by Markdown and width): stepping back to a chunk seen a few
keys ago shows it without rendering it again."""

RENDER_GROUP = "chunk-lines-render"
"""Worker group of the renders of large chunks (a newer one cancels the one in flight)."""

LARGE_CHUNK = 40_000
"""Characters of Markdown above which a chunk is rendered in a thread behind a placeholder: over
twice ECMA-262's largest chunk, so every chunk of the default policy renders in the UI thread,
header and body in one step."""

QUICK_RENDER = 1_500
"""Characters of Markdown a chunk renders in a few milliseconds: shown at once even while keys
repeat."""

DEFER_SECONDS = 0.06
"""While keys repeat, Markdown that needs rendering waits until no other was asked for during
this long (about two key repeats)."""


class ChunkLines(ScrollView, can_focus=True):
    """Shows :class:`RenderedLines`, re-rendering the Markdown only when the width changes.

    :meth:`show` sets the Markdown (rendered at once, at the current width); :meth:`show_markdown`
    renders it now, in a thread or once keys stop, behind a placeholder meanwhile, and posts
    :class:`Ready` when it shows it later; :meth:`set_overlays` sets the styled spans drawn on
    top (selected marker, search hits); :meth:`placeholder` shows one dim line while the real
    lines are prepared elsewhere. A click on a link posts :class:`LinkClicked`. It takes focus
    (Tab), and then the arrow and page keys scroll it.
    """

    DEFAULT_CSS = """
    ChunkLines {
        height: 1fr;
        overflow-x: hidden;
        /* always shown: a scrollbar appearing for one chunk and not the next would lay out
           the screen again and change the width the lines are rendered at */
        overflow-y: scroll;
    }
    """

    large_chunk = LARGE_CHUNK
    """Markdown characters above which a chunk renders in a thread (:data:`LARGE_CHUNK`)."""

    quick_render = QUICK_RENDER
    """Markdown characters up to which a chunk is rendered at once while keys repeat
    (:data:`QUICK_RENDER`)."""

    class LinkClicked(Message):
        """A link of the shown text was clicked (``href`` as written in the Markdown)."""

        def __init__(self, href: str) -> None:
            super().__init__()
            self.href = href

    class Ready(Message):
        """Markdown that :meth:`show_markdown` put behind a placeholder is shown now: overlays
        need drawing."""

    class _Prepared(Message):
        """A large chunk's lines are ready (posted by the render thread)."""

        def __init__(self, serial: int, markdown: str, rendered: RenderedLines) -> None:
            super().__init__()
            self.serial = serial
            self.markdown = markdown
            self.rendered = rendered

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.markdown: str | None = None
        """The Markdown shown (None: nothing, or a placeholder)."""
        self.rendered: RenderedLines | None = None
        self._placeholder: str | None = None
        self._overlays: dict[int, list[tuple[int, int, Style]]] = {}
        self._arrows: dict[int, tuple[int, str]] = {}
        """Line → (character offset, replacement) of one character swapped when drawn."""
        self._cache: LRUCache[tuple[int, int, int, int], Strip] = LRUCache(LINE_CACHE_SIZE)
        self._renders: LRUCache[tuple[str, int], RenderedLines] = LRUCache(RENDER_CACHE_SIZE)
        self._epoch = 0
        """Bumped whenever lines or overlays change: part of every cache key."""
        self._serial = 0
        """Bumped whenever the shown lines are replaced: a render for older ones is dropped."""
        self._deferred: Timer | None = None
        """The pending render of Markdown deferred while keys repeat (:meth:`show_markdown`)."""
        self._unsized: tuple[int, str] | None = None
        """The serial and Markdown :meth:`show_markdown` was given before the view had a width:
        rendered by :meth:`on_resize` once it has one."""

    @property
    def render_width(self) -> int:
        """The width lines are rendered at: the content region less the scrollbar."""
        return max(1, self.scrollable_content_region.width)

    def show(self, markdown: str | None, rendered: RenderedLines | None = None) -> None:
        """Show ``markdown`` (rendered here unless ``rendered`` is given at the current width)
        from its top; None shows nothing."""
        if markdown is None:
            rendered = None
        elif rendered is not None and rendered.width == self.render_width:
            self._renders[(markdown, rendered.width)] = rendered
        else:
            rendered = self._render_cached(markdown)
        self._replace(markdown, rendered)

    def show_lines(self, rendered: RenderedLines, keep_scroll: bool = False) -> None:
        """Show lines laid out elsewhere (not Markdown; on a new width :class:`Rerendered` asks
        the owner for new ones), from the top unless ``keep_scroll``."""
        self._replace(None, rendered, keep_scroll=keep_scroll)

    def show_markdown(self, markdown: str, placeholder: str, *, defer: bool = False) -> None:
        """Show ``markdown`` from its top: at once when it is cached, else behind ``placeholder``
        when it is over :attr:`large_chunk` characters (rendered in a thread) or when ``defer``
        (keys repeating) and it is over :attr:`quick_render` (rendered once no other lines were
        asked for during :data:`DEFER_SECONDS`); before the view has a width (not laid out
        yet), nothing until it has one, then rendered at that width. Lines shown later post
        :class:`Ready`."""
        if self.cached(markdown) is not None:
            self.show(markdown)
        elif not self.size.width:
            self._replace(None, None)
            self._unsized = (self._serial, markdown)
        elif len(markdown) > self.large_chunk:
            self.placeholder(placeholder)
            self._render_large(self._serial, markdown, self.render_width)
        elif defer and len(markdown) > self.quick_render:
            self.placeholder(placeholder)
            serial = self._serial
            self._deferred = self.set_timer(
                DEFER_SECONDS, lambda: self._show_deferred(serial, markdown)
            )
        else:
            self.show(markdown)

    @work(thread=True, exclusive=True, group=RENDER_GROUP)
    def _render_large(self, serial: int, markdown: str, width: int) -> None:
        """Render in a thread on a console of its own; post the lines, touch no widget."""
        from specbrowser.tui.markdown_lines import render_markdown  # deferred: see the imports

        console = Console(width=width, force_terminal=True, color_system="truecolor")
        self.post_message(
            self._Prepared(serial, markdown, render_markdown(markdown, width, console))
        )

    @on(_Prepared)
    def _prepared(self, message: _Prepared) -> None:
        if message.serial != self._serial:
            return  # other lines were shown meanwhile
        self.show(message.markdown, message.rendered)
        self.post_message(self.Ready())

    def _show_deferred(self, serial: int, markdown: str) -> None:
        """The keys stopped on deferred Markdown: render and show it now."""
        self._deferred = None
        if serial != self._serial:
            return
        self.show(markdown)
        self.post_message(self.Ready())

    def cached(self, markdown: str) -> RenderedLines | None:
        """``markdown`` already rendered at the current width, or None."""
        return self._renders.get((markdown, self.render_width))

    def forget_renders(self) -> None:
        """Drop the rendered chunks kept (:data:`RENDER_CACHE_SIZE`): the next show renders."""
        self._renders.clear()

    def prerender(self, markdown: str) -> bool:
        """Render ``markdown`` at the current width into the render cache, not shown; False
        when it is cached already, over :attr:`large_chunk` characters (rendered in a thread
        when shown) or the widget has no width yet."""
        if len(markdown) > self.large_chunk:
            return False
        if not self.size.width or self.cached(markdown) is not None:
            return False
        self._render_cached(markdown)
        return True

    def _render_cached(self, markdown: str) -> RenderedLines:
        rendered = self.cached(markdown)
        if rendered is None:
            from specbrowser.tui.markdown_lines import render_markdown  # deferred: see the imports

            rendered = render_markdown(markdown, self.render_width, self.app.console)
            self._renders[(markdown, self.render_width)] = rendered
        return rendered

    def placeholder(self, message: str) -> None:
        """Show ``message`` alone (dim) until :meth:`show`."""
        self._replace(None, None, placeholder=message)

    def _replace(
        self,
        markdown: str | None,
        rendered: RenderedLines | None,
        *,
        placeholder: str | None = None,
        keep_scroll: bool = False,
    ) -> None:
        """Show ``rendered`` (of ``markdown`` when it is Markdown) or ``placeholder`` instead of
        what was shown, without its overlays, from the top unless ``keep_scroll``; a render
        still pending for what was shown is dropped."""
        self._serial += 1
        if self._deferred is not None:
            self._deferred.stop()
            self._deferred = None
        self.markdown = markdown
        self.rendered = rendered
        self._placeholder = placeholder
        self._overlays = {}
        self._arrows = {}
        self._changed()
        if not keep_scroll:
            self.scroll_to(0, 0, animate=False, immediate=True)

    def set_overlays(
        self,
        spans: list[tuple[int, int, int, Style]],
        arrows: list[tuple[int, int, str]] | None = None,
    ) -> None:
        """Draw ``spans`` (``(line, start, end, style)``, characters) on the lines and swap the
        characters ``arrows`` names (``(line, offset, replacement)``, one character each),
        replacing the previous overlays. The Markdown is not rendered again."""
        overlays: dict[int, list[tuple[int, int, Style]]] = {}
        for line, start, end, style in spans:
            overlays.setdefault(line, []).append((start, end, style))
        self._overlays = overlays
        self._arrows = {line: (offset, char) for line, offset, char in arrows or []}
        self._epoch += 1
        self._cache.clear()
        self.refresh()

    def _changed(self) -> None:
        """Repaint with new lines. Only this widget's scroll size changes, so the screen is not
        laid out again (a ``virtual_size`` assignment would lay out every widget on each chunk
        shown); showing or hiding the scrollbar still does, through its own reactive."""
        self._epoch += 1
        self._cache.clear()
        count = len(self.rendered.lines) if self.rendered is not None else 1
        size = Size(self.render_width, count)
        if size != self.virtual_size:
            self.set_reactive(ChunkLines.virtual_size, size)
            self._scroll_update(size)
        self.refresh()

    def on_resize(self, event: events.Resize) -> None:
        """Render again at the new width (overlays are dropped: the owner re-applies them);
        lines laid out elsewhere are the owner's to lay out again. Markdown given before the
        view had a width is rendered now (and posts :class:`Ready`)."""
        unsized, self._unsized = self._unsized, None
        if unsized is not None and self.size.width:
            self._show_deferred(*unsized)
            return
        if self.rendered is None or self.rendered.width == self.render_width:
            return
        if self.markdown is not None:
            self.rendered = self._render_cached(self.markdown)
            self._changed()
        self.post_message(self.Rerendered())

    class Rerendered(Message):
        """The lines were rendered again (a new width): overlays need computing again."""

    def render_line(self, y: int) -> Strip:
        """Line ``y`` of the view (scroll offset applied), from the cache when unchanged."""
        scroll_x, scroll_y = self.scroll_offset
        index = scroll_y + y
        width = self.size.width
        key = (index, scroll_x, width, self._epoch)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        strip = self._build_line(index, scroll_x, width)
        self._cache[key] = strip
        return strip

    def _build_line(self, index: int, scroll_x: int, width: int) -> Strip:
        base = self.rich_style
        if self.rendered is None:
            if index == 0 and self._placeholder:
                text = Text(self._placeholder, style="dim italic", end="")
                return Strip(list(text.render(self.app.console))).crop_extend(
                    scroll_x, scroll_x + width, base
                )
            return Strip.blank(width, base)
        if index >= len(self.rendered.lines):
            return Strip.blank(width, base)
        text = self.rendered.lines[index]
        arrow = self._arrows.get(index)
        overlays = self._overlays.get(index)
        if arrow is not None or overlays:
            text = text.copy()
            if arrow is not None:
                offset, char = arrow
                if 0 <= offset < len(text):
                    styles = text[offset : offset + 1].get_style_at_offset(self.app.console, 0)
                    text = Text.assemble(
                        text[:offset], Text(char, style=styles), text[offset + 1 :], end=""
                    )
            for start, end, style in overlays or []:
                text.stylize(style, start, end)
        segments = list(text.render(self.app.console))
        return Strip(segments).crop_extend(scroll_x, scroll_x + width, None).apply_style(base)

    def scroll_now_and_after(self, scroll: Callable[..., object], *args, **kwargs) -> None:
        """Scroll now, so that the next frame shows the place (the size is known once mounted),
        and again after that frame in case a new header height moved the lines (a no-op when
        nothing moved)."""
        if self.size.height:
            scroll(*args, **kwargs)
        self.call_after_refresh(scroll, *args, **kwargs)

    def line_count(self) -> int:
        """Lines of the shown text (0 when none)."""
        return len(self.rendered.lines) if self.rendered is not None else 0

    def link_at(self, offset: Offset) -> str | None:
        """The href of the link at ``offset`` (content coordinates, scroll applied), or None."""
        if self.rendered is None or not 0 <= offset.y < len(self.rendered.lines):
            return None
        plain = self.rendered.lines[offset.y].plain
        for start, end, href in self.rendered.links[offset.y]:
            if cell_len(plain[:start]) <= offset.x < cell_len(plain[:end]):
                return href
        return None

    def cell_offset(self, line: int, start: int) -> Offset:
        """The content offset (cells, from the text's top) of character ``start`` of ``line``."""
        assert self.rendered is not None
        return Offset(cell_len(self.rendered.lines[line].plain[:start]), line)

    def on_click(self, event: events.Click) -> None:
        """A click on a link posts :class:`LinkClicked`."""
        offset = event.get_content_offset(self)
        if offset is None:
            return
        href = self.link_at(offset + self.scroll_offset)
        if href is not None:
            event.stop()
            self.post_message(self.LinkClicked(href))

    def search_spans(self, terms: list[str]) -> list[tuple[int, int, int]]:
        """``(line, start, end)`` of every whole-word match of ``terms`` (see
        :func:`~specbrowser.tui.highlight.term_spans`), line by line (a word is never cut
        across lines: Rich wraps at spaces)."""
        if self.rendered is None or not terms:
            return []
        return [
            (number, start, end)
            for number, plain in enumerate(self.rendered.plain)
            for start, end in term_spans(plain, terms)
        ]
