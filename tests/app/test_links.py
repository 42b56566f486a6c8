"""Links, exact jumps and search notes in the app: an in-text link leads to the chunk holding its
anchor (a click, or ``f`` with no marker selected and the link chosen), the jump palette (``g``)
takes any name ``show`` takes, and a query whose punctuation was dropped says so."""

from __future__ import annotations

from pathlib import Path

from textual.command import CommandList, CommandPalette

from specbrowser.session import Session
from specbrowser.tui.commands import JumpProvider, LinkProvider
from specbrowser.tui.widgets.chunk_view import ChunkView
from tests.app.helpers import SIZE, at_chunk_then, browser_of, quiet_app, run_async, settle

LINKED = "sec-repeat-statement"
"""A chunk of the sample spec with four in-text links."""

ANCHOR = "prod-BehaviourDeclaration"
"""An anchor of the sample spec that lies in a subsection at the toylang_db threshold."""


@run_async
async def test_a_clicked_link_goes_to_the_chunk_holding_its_anchor(toylang_db: Path) -> None:
    with Session.open(toylang_db) as session:
        holder = session.locate(ANCHOR).chunk_id
    assert holder != session_section(toylang_db, ANCHOR)
    app = quiet_app(toylang_db)
    opened: list[str] = []
    app.open_url = lambda url, **kw: opened.append(url)  # type: ignore[method-assign]
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = browser_of(app).query_one(ChunkView)
        view.follow_href(f"#{ANCHOR}")
        await settle(pilot)
        assert browser_of(app).query_one(ChunkView).chunk.id == holder
        view.follow_href("https://example.invalid/y")
        await settle(pilot)
        messages = [n.message for n in app._notifications]
        assert opened == ["https://example.invalid/y"]
        assert any(m.startswith("external link") for m in messages)
        assert not any("no chunk" in m for m in messages)


def session_section(db: Path, anchor: str) -> str | None:
    with Session.open(db) as session:
        return session.locate(anchor).section_id


@run_async
async def test_f_without_a_marker_lists_the_links_and_follows_one(toylang_db: Path) -> None:
    with Session.open(toylang_db) as session:
        chunk_with_link, href, holder = _link_into_a_subsection(session)
    app = quiet_app(toylang_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = browser_of(app)
        screen.go_to_chunk(chunk_with_link)
        await settle(pilot)
        await pilot.press("f")
        await settle(pilot)
        assert CommandPalette.is_open(app)
        provider = LinkProvider(screen)
        links = [hit async for hit in provider.discover()]
        chosen = next(h for h in links if h.text == href)
        assert chosen.help == f"→ {holder}"
        await pilot.press("escape")
        await settle(pilot)
        chosen.command()
        await settle(pilot)
        assert screen.query_one(ChunkView).chunk.id == holder


@run_async
async def test_the_link_palette_names_each_link_and_its_destination_once(
    toylang_db: Path,
) -> None:
    """At 80×24, ``f`` with no marker selected: one hit per link, the link on its line and
    where it leads (once) under it."""
    app = quiet_app(toylang_db)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = browser_of(app)
        screen.go_to_chunk(LINKED)
        await settle(pilot)
        await pilot.press("f")
        await settle(pilot)
        assert CommandPalette.is_open(app)
        hits = [str(option.prompt) for option in app.screen.query_one(CommandList).options]
        hrefs = ["#prod-Stmt", "#prod-Expr", "#sec-toboolean", "#sec-long-prose"]
        assert [hit.split("\n")[0] for hit in hits] == hrefs
        for hit in hits:
            line, where = hit.split("\n")
            assert where.startswith("→ ") and where not in line
        with Session.open(toylang_db) as session:
            holder = session.locate("prod-Stmt").chunk_id
        assert hits[0] == f"#prod-Stmt\n→ {holder}"


def test_snapshot_link_palette_80x24(toylang_db: Path, snap_compare) -> None:
    """The link palette at 80×24 on a chunk with four links: each listed once, its
    destination under it."""
    assert snap_compare(
        quiet_app(toylang_db), terminal_size=(80, 24), run_before=at_chunk_then(LINKED, "f")
    )


def _link_into_a_subsection(session: Session) -> tuple[str, str, str]:
    """``(chunk id, href, chunk the link leads to)`` of an in-text link of the active set
    whose anchor lies in a subsection (not its section's root chunk)."""
    from specbrowser.session.links import href_anchor, link_hrefs

    for chunk in session.store.iter_chunks(session.active_version()):
        for href in link_hrefs(chunk.text):
            anchor = href_anchor(href)
            if anchor is None:
                continue
            located = session.locate(anchor)
            if located.chunk_id != located.section_id:
                return chunk.id, href, located.chunk_id
    raise AssertionError("no link leads into a subsection")


@run_async
async def test_jump_palette_takes_defined_names_and_anchors(toylang_db: Path) -> None:
    with Session.open(toylang_db) as session:
        holder = session.locate(ANCHOR).chunk_id
    app = quiet_app(toylang_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        provider = JumpProvider(browser_of(app))
        for name, chunk_id in (
            ("ToWidget", "sec-towidget"),
            (f"#{ANCHOR}", holder),
            (ANCHOR, holder),
        ):
            hits = [hit async for hit in provider.search(name)]
            assert hits[0].score == 1.0 and hits[0].help.startswith(f"Jump to {chunk_id}")
        hits[0].command()
        await settle(pilot)
        assert browser_of(app).query_one(ChunkView).chunk.id == holder


@run_async
async def test_the_search_bar_says_when_punctuation_was_dropped(toylang_db: Path) -> None:
    from textual.widgets import Static

    app = quiet_app(toylang_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("slash")
        await settle(pilot)
        await pilot.press(*"[[widget]]", "enter")
        await settle(pilot)
        status = str(browser_of(app).query_one("#search-status", Static).content)
        assert 'searched as "widget" (punctuation is not indexed)' in status
