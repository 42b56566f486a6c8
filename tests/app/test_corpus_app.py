"""The app on a database of two specs (``sample_specs/widget-protocol.html``, then
``sample_specs/widget-timers.html``, whose ``intro`` is stored as ``widget-timers:intro``): one
tree root per spec, a search over every spec or one (``ctrl+o`` in the search bar), and links
followed into the right spec (an ``#id`` link in its own spec, a URL into the other spec)."""

from __future__ import annotations

from pathlib import Path

from specbrowser.session import Session
from specbrowser.tui.widgets.chunk_view import ChunkView
from specbrowser.tui.widgets.search_results import SearchBar
from tests.app.helpers import SIZE, browser_of, quiet_app, run_async, settle


def _documents(db: Path) -> dict[str, str]:
    with Session.open(db) as session:
        return {s.name: s.document_chunk_id for s in session.spec_rows()}


@run_async
async def test_the_tree_has_one_root_per_spec_with_its_sections_under_it(corpus_db) -> None:
    documents = _documents(corpus_db)
    app = quiet_app(corpus_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        tree = browser_of(app).chunk_tree
        roots = tree.root.children
        assert [n.data for n in roots] == list(documents.values())
        assert [str(n.label).split("  ")[0] for n in roots] == ["Widget Protocol", "Widget Timers"]
        timers = roots[1]
        tree.load_children(timers)
        assert [n.data for n in timers.children] == ["widget-timers:intro", "sec-timers"]
        assert browser_of(app).go_to_chunk("sec-set-timer")
        await settle(pilot)
        assert tree.cursor_node is not None and tree.cursor_node.data == "sec-set-timer"
        assert timers.is_expanded


@run_async
async def test_an_anchor_link_leads_into_its_own_spec_and_a_url_into_the_other(corpus_db):
    with Session.open(corpus_db) as session:
        session_chunk = session.locate("widget-protocol:#session").chunk_id
    app = quiet_app(corpus_db)
    opened: list[str] = []
    app.open_url = lambda url, **kw: opened.append(url)  # type: ignore[method-assign]
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = browser_of(app)
        screen.go_to_chunk("sec-set-timer")
        await settle(pilot)
        view = screen.query_one(ChunkView)
        view.follow_href("#intro")  # widget-protocol has an "intro" too: this spec's is meant
        await settle(pilot)
        assert view.chunk is not None and view.chunk.id == "widget-timers:intro"
        view.follow_href("https://example.org/widget-protocol/#session")
        await settle(pilot)
        assert view.chunk.id == session_chunk
        assert opened == []
        view.follow_href("https://timers.example.net/notes#repeat")
        await settle(pilot)
        assert opened == ["https://timers.example.net/notes#repeat"]
        screen.action_show_document()
        await settle(pilot)
        assert view.chunk.id == _documents(corpus_db)["widget-protocol"]


@run_async
async def test_ctrl_o_searches_one_spec_then_every_spec_again(corpus_db) -> None:
    app = quiet_app(corpus_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = browser_of(app)
        await pilot.press("slash", *"session", "enter")
        await settle(pilot)
        specs = {screen.session.spec_of_chunk(h.chunk_id).name for h in screen.search_hits}
        assert specs == {"widget-protocol", "widget-timers"}
        assert screen.search.scope_label() == "lexical · all specs"
        await pilot.press("ctrl+o")
        await settle(pilot)
        assert screen.search.scope_label() == "lexical · widget-protocol"
        assert screen.search_hits
        assert {screen.session.spec_of_chunk(h.chunk_id).name for h in screen.search_hits} == {
            "widget-protocol"
        }
        status = str(screen.search_bar.query_one("#search-status").render())
        assert status.startswith("lexical · widget-protocol · ")
        await pilot.press("ctrl+o", "ctrl+o")
        await settle(pilot)
        assert screen.search.spec is None
        assert len({screen.session.spec_of_chunk(h.chunk_id).name for h in screen.search_hits}) == 2


@run_async
async def test_a_database_of_one_spec_has_no_spec_roots_and_no_scope_key(toylang_db) -> None:
    app = quiet_app(toylang_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = browser_of(app)
        assert screen.chunk_tree.spec_roots == {}
        await pilot.press("slash")
        await settle(pilot)
        assert screen.query_one(SearchBar).display
        assert not screen.check_action("cycle_search_spec", ())
        assert screen.search.scope_label() == "lexical"


@run_async
async def test_a_filter_keeps_each_match_under_its_own_specs_root(corpus_db) -> None:
    documents = _documents(corpus_db)
    app = quiet_app(corpus_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = browser_of(app)
        assert screen.toggle_tree_filter("mismatched")
        await settle(pilot)
        tree = screen.chunk_tree
        roots = tree.root.children
        assert roots and all(n.data in documents.values() for n in roots)
        with Session.open(corpus_db) as session:
            for root in roots:
                spec = next(name for name, doc in documents.items() if doc == root.data)
                shown = []
                pending = list(root.children)
                while pending:
                    node = pending.pop()
                    shown.append(node.data)
                    pending.extend(node.children)
                assert shown and set(session.chunk_specs(shown).values()) == {spec}
