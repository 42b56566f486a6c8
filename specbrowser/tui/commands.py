"""Command palette pieces: the "Jump to section" provider, the tree filter commands (from
:mod:`specbrowser.tui.registry`), the "Follow a link" provider, and a palette with cursor blink
control.

Section ids and titles are spec text: hits are built as ``Content`` (never parsed as markup;
Textual's own ``Matcher.highlight`` parses markup, so it is not used).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from textual.command import CommandInput, CommandPalette, DiscoveryHit, Hit, Hits, Provider
from textual.content import Content
from textual.fuzzy import FuzzySearch

from specbrowser.errors import NotFoundError
from specbrowser.session.links import href_anchor, link_hrefs
from specbrowser.tui.registry import filter_commands

if TYPE_CHECKING:
    from specbrowser.model import Chunk
    from specbrowser.session import Session, SpecRow
    from specbrowser.session.browse import Located
    from specbrowser.types import FilterKind

SEARCH_LIMIT = 40
"""Hits per query: enough to scroll through, few enough to stay instant on ECMA-262."""

DISCOVER_LIMIT = 40
"""Top-level sections offered before anything is typed."""

HIGHLIGHT_STYLE = "bold underline"


@runtime_checkable
class Navigator(Protocol):
    """What the providers need of the screen the palette was opened on (the browser screen,
    :class:`~specbrowser.tui.screens.browser.BrowserScreen`): the providers depend on this, not
    on the screen, which registers them. Any other screen gets no commands."""

    session: Session

    @property
    def tree_filter(self) -> FilterKind | None:
        """The tree filter on, or None."""
        ...

    def go_to_chunk(self, chunk_id: str) -> bool:
        """Expand the tree down to a chunk and show it; False when it cannot be shown."""
        ...

    def toggle_tree_filter(self, kind: FilterKind) -> bool:
        """Turn tree filter ``kind`` on, or off when it is on."""
        ...

    def follow_link(self, href: str) -> None:
        """Follow an in-text link of the shown chunk as a click does."""
        ...

    def shown_chunk(self) -> Chunk | None:
        """The chunk the view shows, or None."""
        ...

    def shown_spec(self) -> SpecRow | None:
        """The shown chunk's spec when the database holds several, else None."""
        ...


def _highlight(candidate: str, offsets: list[int] | range) -> Content:
    content = Content(candidate)
    for offset in offsets:
        if 0 <= offset < len(candidate) and not candidate[offset].isspace():
            content = content.stylize(HIGHLIGHT_STYLE, offset, offset + 1)
    return content


def _unit(score: float) -> float:
    """A fuzzy score (``FuzzySearch`` gives 0 and up, 17.8 for a close title match, whatever
    ``Matcher.match`` says) squashed into [0, 1), its order kept: hits are ranked exact id or
    number (1.0), then substring matches (0.5–0.95), then fuzzy ones (under 0.45)."""
    return score / (1.0 + score) if score > 0 else 0.0


def _substring_offsets(query: str, candidate: str) -> range:
    start = candidate.lower().find(query.lower())
    return range(start, start + len(query)) if start >= 0 and query else range(0)


def _fuzzy_matches(
    query: str, sections: list[tuple[str, str]], skip: set[str], limit: int
) -> list[tuple[float, str, str, list[int]]]:
    """Fuzzy matches over ``title id``, best first (run in a thread: over every section of a
    spec the size of ECMA-262, too slow for the UI thread)."""
    fuzzy = FuzzySearch()
    found: list[tuple[float, str, str, list[int]]] = []
    for section_id, title in sections:
        if section_id in skip:
            continue
        score, offsets = fuzzy.match(query, f"{title}  {section_id}")
        if score:
            found.append((score, section_id, title, list(offsets)))
    found.sort(key=lambda item: -item[0])
    return found[:limit]


class JumpProvider(Provider):
    """ "Jump to section": the chunk any name names (:meth:`Session.locate`: a chunk id, a
    section id or number such as ``14.6`` or ``Annex B``, an element id with or without ``#``,
    a name the spec defines such as ``ToNumber`` or ``%Array%``) on top, then substring matches from
    :meth:`Session.find_sections`, then fuzzy matches over every section id and title to fill up
    the list (scores: see :func:`_unit`)."""

    def _browser(self) -> Navigator | None:
        """The browser screen the palette was opened on; other screens get no hits."""
        return self.screen if isinstance(self.screen, Navigator) else None

    async def discover(self) -> Hits:
        """The first top-level sections, before anything is typed."""
        browser = self._browser()
        if browser is None:
            return
        for chunk in browser.session.top_level_chunks()[:DISCOVER_LIMIT]:
            yield DiscoveryHit(
                Content(f"{chunk.title}  {chunk.id}"),
                partial(browser.go_to_chunk, chunk.id),
                text=chunk.title,
                help=f"Jump to {chunk.id}",
            )

    async def search(self, query: str) -> Hits:
        """Sections whose id, number or title contain the query, then fuzzy matches."""
        browser = self._browser()
        query = query.strip()
        if browser is None or not query:
            return
        matcher = self.matcher(query)
        seen: set[str] = set()
        try:  # any name show takes (a chunk id, 14.6, Annex B, #anchor, ToNumber): the top hit
            located: Located | None = browser.session.locate(query)
        except NotFoundError:
            located = None
        if located is not None:
            seen.add(located.chunk_id)
            chunk = browser.session.chunk(located.chunk_id)
            title = chunk.title or chunk.id
            candidate = f"{title}  {chunk.id}"
            how = (
                f" ({located.symbol_kind or located.resolved_as} {query})"
                if located.resolved_as in ("anchor", "symbol")
                else ""
            )
            yield Hit(
                1.0,
                _highlight(candidate, _substring_offsets(query, candidate)),
                partial(browser.go_to_chunk, chunk.id),
                text=title,
                help=f"Jump to {chunk.id}{how}",
            )
        for section_id, title in browser.session.find_sections(query, limit=SEARCH_LIMIT):
            if section_id in seen:
                continue
            seen.add(section_id)
            candidate = f"{title}  {section_id}"
            yield Hit(
                0.5 + 0.45 * _unit(matcher.match(candidate)),
                _highlight(candidate, _substring_offsets(query, candidate)),
                partial(browser.go_to_chunk, section_id),
                text=title,
                help=f"Jump to {section_id}",
            )
        if len(seen) >= SEARCH_LIMIT:
            return
        sections = browser.session.section_titles()
        fuzzy = await asyncio.to_thread(
            _fuzzy_matches, query, sections, seen, SEARCH_LIMIT - len(seen)
        )
        for score, section_id, title, offsets in fuzzy:
            yield Hit(
                0.45 * _unit(score),
                _highlight(f"{title}  {section_id}", offsets),
                partial(browser.go_to_chunk, section_id),
                text=title,
                help=f"Jump to {section_id}",
            )


class PaletteJumpProvider(JumpProvider):
    """:class:`JumpProvider` in the full command palette (``ctrl+p``): it answers typed queries
    but lists nothing before one is typed, so the palette opens on its commands, not on the
    spec's sections (``g`` opens the palette of sections)."""

    async def discover(self) -> Hits:
        """Nothing: the commands come first."""
        return
        yield  # an async generator that yields nothing


class FilterProvider(Provider):
    """The browser screen's tree filters (``BrowserScreen.COMMANDS``; the registry's
    :func:`~specbrowser.tui.registry.filter_commands`): each command toggles its filter, as its
    key does; the help line says whether it is on."""

    def _commands(self) -> list[tuple[str, Callable[[], object], str]]:
        """``(name, callback, help)`` of each filter command; none off the browser screen."""
        browser = self.screen
        if not isinstance(browser, Navigator):
            return []
        found: list[tuple[str, Callable[[], object], str]] = []
        for command in filter_commands():
            assert command.palette is not None and command.filter is not None
            state = (
                "On: run again to show the whole tree"
                if browser.tree_filter == command.filter
                else f"Show only {command.palette_help}, and the way to them"
            )
            found.append(
                (
                    command.palette,
                    partial(browser.toggle_tree_filter, command.filter),
                    f"{state} ({command.key_hint})",
                )
            )
        return found

    async def discover(self) -> Hits:
        """Both filter commands, before anything is typed."""
        for name, callback, help_text in self._commands():
            yield DiscoveryHit(Content(name), callback, text=name, help=help_text)

    async def search(self, query: str) -> Hits:
        """The filter commands whose name fuzzily matches the query."""
        fuzzy = FuzzySearch()
        for name, callback, help_text in self._commands():
            score, offsets = fuzzy.match(query, name)
            if score:
                yield Hit(
                    score, _highlight(name, list(offsets)), callback, text=name, help=help_text
                )


class LinkProvider(Provider):
    """ "Follow a link": the in-text links of the shown chunk, each once, with where it leads
    as the hit's help line (the chunk holding its anchor, :meth:`Session.link_targets`, or
    *external* for a link to another document). Choosing one follows it as a click does."""

    def _links(self) -> list[tuple[str, str, Callable[[], object]]]:
        """``(href, where it leads, callback)`` per link of the shown chunk, in text order."""
        browser = self.screen
        chunk = browser.shown_chunk() if isinstance(browser, Navigator) else None
        if chunk is None or not isinstance(browser, Navigator):
            return []
        hrefs = link_hrefs(chunk.text)
        anchors = {h: href_anchor(h) for h in hrefs}
        spec = browser.shown_spec()
        targets = browser.session.link_targets(
            [a for a in anchors.values() if a], document_id=spec.id if spec else None
        )
        found: list[tuple[str, str, Callable[[], object]]] = []
        for href, anchor in anchors.items():
            target = targets.get(anchor) if anchor else None
            if anchor is None and "://" in href:
                located = browser.session.url_target(href)
                target = located.chunk_id if located is not None else None
            where = (
                f"→ {target}"
                if target
                else "external"
                if anchor is None
                else "no element of this id in the document"
            )
            found.append((href, where, partial(browser.follow_link, href)))
        return found

    async def discover(self) -> Hits:
        """Every link of the shown chunk: the link on the hit's line, where it leads under it."""
        for href, where, callback in self._links():
            yield DiscoveryHit(Content(href), callback, text=href, help=where)

    async def search(self, query: str) -> Hits:
        """The links whose target or destination fuzzily matches the query (the link's own
        characters highlighted)."""
        fuzzy = FuzzySearch()
        for href, where, callback in self._links():
            score, offsets = fuzzy.match(query, f"{href}  {where}")
            if score:
                yield Hit(score, _highlight(href, list(offsets)), callback, text=href, help=where)


class SpecPalette(CommandPalette):
    """The command palette, with the input cursor's blink under the app's control (tests and
    snapshots turn it off so screenshots are deterministic)."""

    def __init__(self, *args, cursor_blink: bool = True, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._cursor_blink = cursor_blink

    def on_mount(self) -> None:
        """Apply the cursor blink setting to the palette's input."""
        self.query_one(CommandInput).cursor_blink = self._cursor_blink
