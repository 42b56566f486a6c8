"""App tests: drive the Textual app with Pilot on databases built from the sample spec.

Every test gets its own copy of a database ingested once per session (the ``toylang_db`` and
``mismatch_db`` fixtures of ``tests/conftest.py``: toylang at an 800-character threshold, so
there are breakdown subsections and chunks that stay over the threshold; mismatched-toc for the
heading mismatches). Snapshots are stored under the top-level ``snapshots/`` folder (see
``conftest.py``).
"""

from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from rich.style import Style
from textual.binding import Binding
from textual.command import CommandPalette
from textual.content import Content
from textual.widgets import Input, Label, ProgressBar, Static

from specbrowser import store
from specbrowser.chunking.markers import find_markers
from specbrowser.chunking.policy import ChunkPolicy
from specbrowser.model import DOCUMENT_CHUNK_ID, Chunk
from specbrowser.search.query import HIGHLIGHT_END, HIGHLIGHT_START, Hit
from specbrowser.session import filters
from specbrowser.session.ingest import ingest
from specbrowser.tui.app import SpecBrowserApp, make_app
from specbrowser.tui.commands import FilterProvider, JumpProvider
from specbrowser.tui.highlight import match_terms, snippet_text, term_spans
from specbrowser.tui.marker_links import (
    chunk_href,
    chunk_id_from_href,
    escape_markdown,
    rewrite_markers,
)
from specbrowser.tui.screens.browser import BrowserScreen
from specbrowser.tui.screens.progress import ProgressScreen
from specbrowser.tui.widgets.chunk_header import heading_lines
from specbrowser.tui.widgets.chunk_tree import MARKER_HEAVY_MARK, TINY_MARK, ChunkTree, chunk_label
from specbrowser.tui.widgets.chunk_view import ChunkView
from specbrowser.tui.widgets.plain_bodies import SEARCH_MATCH_STYLE
from specbrowser.tui.widgets.search_results import SearchResults, hit_row
from tests.app.helpers import SIZE, browser_of, quiet_app, run_async, settle
from tests.helpers import MISMATCHED_TOC, ROOT, TOYLANG_POLICY, needs_toylang
from tests.helpers import SAMPLE as TOYLANG

SNAPSHOT_SIZE = (120, 36)
needs_mismatched_toc = pytest.mark.skipif(
    not MISMATCHED_TOC.is_file(), reason="sample_specs/mismatched-toc.html absent"
)


MARKUP_SPEC = """<!doctype html><html><head><title>Markup [bold] Spec [/]</title></head><body>
<emu-clause id="sec-markup"><h1><span class="secnum">1</span> Title [bold]x[/] [red]</h1>
<p>Body with [bold]not bold[/] and [link=https://example.invalid]y[/link] and [/].</p>
<emu-clause id="sec-markup-child"><h1><span class="secnum">1.1</span> Child [i]</h1>
<p>Child text.</p></emu-clause></emu-clause></body></html>
"""


@pytest.fixture
def markup_db(tmp_path: Path) -> Path:
    """A tiny spec whose titles and text look like Rich markup."""
    spec = tmp_path / "markup.html"
    spec.write_text(MARKUP_SPEC, encoding="utf-8")
    db_path = tmp_path / "markup.db"
    ingest([spec], db_path, ChunkPolicy())
    return db_path


def header_plain(app: SpecBrowserApp) -> str:
    header = browser_of(app).query_one("#chunk-header", Static).content
    return str(header)


def rendered_plain(app: SpecBrowserApp) -> str:
    """All text the chunk view's lines show, in order."""
    rendered = browser_of(app).chunk_view.lines.rendered
    return "\n".join(rendered.plain) if rendered is not None else ""


def cursor_id(app: SpecBrowserApp) -> str | None:
    node = browser_of(app).query_one(ChunkTree).cursor_node
    return node.data if node is not None else None


# --- the browser ------------------------------------------------------------------------------


@run_async
async def test_tree_shows_top_level_sections(toylang_db: Path) -> None:
    app = quiet_app(toylang_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        db = store.open_database(toylang_db)
        expected = ["Document synopsis", *(c.title for c in db.top_level_chunks())]
        tree = browser_of(app).query_one(ChunkTree)
        assert [str(n.label) for n in tree.root.children] == expected
        assert tree.root.children[0].data == DOCUMENT_CHUNK_ID
        assert app.title == "Toylang Language Specification"
        assert app.sub_title == TOYLANG_POLICY.describe()
        assert cursor_id(app) == "front-matter"  # the title block, before the first section
        assert browser_of(app).query_one(ChunkView).chunk.id == "front-matter"


@run_async
async def test_expanding_a_node_adds_its_children_lazily(toylang_db: Path) -> None:
    app = quiet_app(toylang_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        tree = browser_of(app).query_one(ChunkTree)
        node = tree.node_for("sec-notational-conventions")
        assert node is not None and not node.children
        assert tree.node_for("sec-grammar-notation") is None
        tree.move_cursor(node)
        await pilot.press("space")
        await settle(pilot)
        assert node.is_expanded
        assert [n.data for n in node.children] == [
            "sec-grammar-notation",
            "sec-algorithm-conventions",
        ]
        assert [str(n.label) for n in node.children] == [
            "2.1 Grammar Notation ⇢",  # a heading, a line and three child-section markers
            "2.2 Algorithm Conventions",
        ]
        grandchild = tree.node_for("sec-algorithm-conventions")
        assert grandchild is not None and not grandchild.children


@run_async
async def test_selecting_a_chunk_shows_its_header_and_text(toylang_db: Path) -> None:
    app = quiet_app(toylang_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert browser_of(app).go_to_chunk("sec-literal-markup-p-1")
        await settle(pilot)
        assert cursor_id(app) == "sec-literal-markup-p-1"
        header = header_plain(app)
        assert header.splitlines()[0] == "sec-literal-markup-p-1"
        assert "parent sec-literal-markup" in header and "tag p" in header
        assert "/ 800 chars" in header and "without markers" not in header  # it has none
        assert "2 Notational Conventions › 2.2 Algorithm Conventions › 2.2.2" in header
        assert "Some Toylang diagnostics use a bracketed notation" in rendered_plain(app)
        label = browser_of(app).query_one(ChunkTree).cursor_node.label
        assert str(label) == "p 1: Some Toylang diagnostics use a bracketed…"


@run_async
async def test_next_marker_then_follow_goes_to_its_target(toylang_db: Path) -> None:
    app = quiet_app(toylang_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        browser_of(app).go_to_chunk("sec-notational-conventions")
        await settle(pilot)
        header = header_plain(app)
        assert "marker –/2" in header
        chunk = app.session.chunk("sec-notational-conventions")
        bare = chunk.size - sum(
            len(m) for m in re.findall(r"\[Subsection available[^\]]*\]", chunk.text)
        )
        assert f"{chunk.size:,} / 800 chars ({bare:,} without markers)" in header
        await pilot.press("n")
        await settle(pilot)
        view = browser_of(app).query_one(ChunkView)
        assert view.selected_target == "sec-grammar-notation"
        assert "marker 1/2 → sec-grammar-notation" in header_plain(app)
        assert view.marker_text().startswith('▶ Subsection available: title "2.1 Grammar Notation"')
        await pilot.press("n", "p", "f")
        await settle(pilot)
        assert view.chunk.id == "sec-grammar-notation"
        assert cursor_id(app) == "sec-grammar-notation"
        await pilot.press("u")
        await settle(pilot)
        assert view.chunk.id == "sec-notational-conventions"
        assert cursor_id(app) == "sec-notational-conventions"
        # back on the marker that was followed, not at the top
        assert view.selected_target == "sec-grammar-notation"
        assert "marker 1/2 → sec-grammar-notation" in header_plain(app)
        await pilot.press("n", "f")  # the second marker this time
        await settle(pilot)
        second = view.chunk.id
        await pilot.press("u")
        await settle(pilot)
        assert view.selected_target == second != "sec-grammar-notation"


@run_async
async def test_markers_without_a_title_show_their_subsections_first_words(
    toylang_db: Path,
) -> None:
    """The view names what an untitled marker (a paragraph, a cell) holds; the chunk's stored
    text keeps the bare marker."""
    app = quiet_app(toylang_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        browser_of(app).go_to_chunk("sec-big-table-clause")
        await settle(pilot)
        view = browser_of(app).query_one(ChunkView)
        first = view.marker_text(0)
        title = app.session.chunk("sec-big-table-clause-p-1").title
        assert title and first.endswith(f"sec-big-table-clause-p-1 · {title}")
        assert title not in view.chunk.text
        assert view.marker_text(2).startswith('⤷ Subsection available: title "BehaviourDeclaration')


@run_async
async def test_markers_in_table_cells_are_selected_in_order(toylang_db: Path) -> None:
    app = quiet_app(toylang_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        browser_of(app).go_to_chunk("sec-big-table-clause-emu-table-1")
        await settle(pilot)
        view = browser_of(app).query_one(ChunkView)
        assert len(view.markers) > 3
        for index, marker in enumerate(view.markers):
            await pilot.press("n")
            await settle(pilot)
            plain = view.marker_text()
            assert plain.count("▶") == 1 and "⤷" not in plain
            # a label wrapped in its cell comes back with a space at each line break
            bare = plain.replace(" ", "").split("·")[0]  # the preview after · is the view's
            assert bare.endswith(f"sectionid:{marker.target_id}"), (index, plain)
        await pilot.press("n")
        await settle(pilot)
        assert view.selected_marker == 0


@run_async
async def test_clicking_a_marker_follows_it(toylang_db: Path) -> None:
    app = quiet_app(toylang_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        browser_of(app).go_to_chunk("sec-notational-conventions")
        await settle(pilot)
        view = browser_of(app).chunk_view
        index = next(
            k
            for k in range(len(view.markers))
            if view.marker_text(k).startswith('⤷ Subsection available: title "2.2')
        )
        line, start, _ = view.lines.rendered.markers[index][0]
        at = view.lines.cell_offset(line, start) - view.lines.scroll_offset
        gutter = view.lines.styles.gutter  # padding and the rule over the body
        await pilot.click(view.lines, offset=(at.x + gutter.left + 3, at.y + gutter.top))
        await settle(pilot)
        assert browser_of(app).query_one(ChunkView).chunk.id == "sec-algorithm-conventions"
        assert cursor_id(app) == "sec-algorithm-conventions"


@run_async
async def test_section_links_follow_and_other_links_do_not(toylang_db: Path) -> None:
    app = quiet_app(toylang_db)
    opened: list[str] = []
    app.open_url = lambda url, **kw: opened.append(url)  # type: ignore[method-assign]
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = browser_of(app).chunk_view
        for href in ("#sec-widget-type", "https://example.invalid/x", "other.html", "#no-such-id"):
            view.follow_href(href)
            await settle(pilot)
        assert browser_of(app).query_one(ChunkView).chunk.id == "sec-widget-type"
        assert opened == ["https://example.invalid/x"]
        messages = [n.message for n in app._notifications]
        assert any("external" in m and "other.html" in m for m in messages)
        assert any("no-such-id" in m for m in messages)


@run_async
async def test_over_threshold_chunk_shows_the_reason(toylang_db: Path) -> None:
    app = quiet_app(toylang_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("o")
        await settle(pilot)
        db = store.open_database(toylang_db)
        first = db.next_over_threshold(-1)
        view = browser_of(app).query_one(ChunkView)
        assert view.chunk.id == first.id == cursor_id(app)
        assert f"over threshold: {first.over_threshold}" in header_plain(app)
        assert str(browser_of(app).query_one(ChunkTree).cursor_node.label).endswith(" ⚠")
        await pilot.press("o")
        await settle(pilot)
        assert view.chunk.id == db.next_over_threshold(first.ordinal).id


@run_async
async def test_markup_like_spec_text_is_shown_literally(markup_db: Path) -> None:
    app = quiet_app(markup_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.title == "Markup [bold] Spec [/]"
        tree = browser_of(app).query_one(ChunkTree)
        assert str(tree.root.children[1].label) == "1 Title [bold]x[/] [red]"
        text = rendered_plain(app)
        assert "[bold]not bold[/]" in text and "[/]." in text
        browser_of(app).go_to_chunk("sec-markup-child")
        await settle(pilot)
        assert "Child [i]" in header_plain(app)
        assert str(tree.cursor_node.label) == "1.1 Child [i]"


@run_async
async def test_jump_palette_goes_to_the_chosen_section(toylang_db: Path) -> None:
    app = quiet_app(toylang_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("g")
        await settle(pilot)
        assert CommandPalette.is_open(app)
        await pilot.press(*"literal markup")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert not CommandPalette.is_open(app)
        assert browser_of(app).query_one(ChunkView).chunk.id == "sec-literal-markup"
        assert cursor_id(app) == "sec-literal-markup"


@run_async
async def test_jump_provider_matches_ids_titles_and_fuzzy(toylang_db: Path) -> None:
    app = quiet_app(toylang_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        provider = JumpProvider(browser_of(app))
        exact = [hit async for hit in provider.search("sec-scope")]
        assert exact[0].help == "Jump to sec-scope" and exact[0].score == 1.0
        by_number = [hit async for hit in provider.search("4.2")]  # 4.2.1 and 4.2.2 match too
        assert [h.score == 1.0 for h in by_number[:3]] == [True, False, False]
        assert by_number[0].help == "Jump to sec-specification-types"
        for spelled, section_id in (
            ("4.2.", "sec-specification-types"),
            ("Annex A", "sec-annex-grammar-summary"),
            ("A.1", "sec-annex-lexical-grammar"),
        ):  # as the CLI takes them
            hits = [hit async for hit in provider.search(spelled)]
            assert (hits[0].score, hits[0].help) == (1.0, f"Jump to {section_id}")
            assert all(0 < h.score < 1.0 for h in hits[1:])
        fuzzy = [hit async for hit in provider.search("ltrlmrkp")]
        assert "Jump to sec-literal-markup" in [h.help for h in fuzzy]
        discovered = [hit async for hit in provider.discover()]
        assert [h.text for h in discovered][:3] == ["Front matter", "Introduction", "1 Scope"]
        exact[0].command()
        await settle(pilot)
        assert cursor_id(app) == "sec-scope"


def retrieval_plain(app: SpecBrowserApp) -> str:
    widget = browser_of(app).query_one("#chunk-retrieval", Static)
    return widget.content.plain if isinstance(widget.content, Content) else str(widget.content)


@run_async
async def test_header_shows_layer_and_section_ordinal(toylang_db: Path) -> None:
    app = quiet_app(toylang_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        browser_of(app).go_to_chunk("sec-literal-markup-p-1")
        await settle(pilot)
        line = header_plain(app).splitlines()[1]
        assert line == "subsection · §\u00a02.2.2 · depth 1 · tag p · parent sec-literal-markup"
        browser_of(app).go_to_chunk("sec-intro")
        await settle(pilot)
        line = header_plain(app).splitlines()[1]
        assert line == "section · §\u00a0— · depth 0 · tag — · parent — (section root)"


@run_async
async def test_document_synopsis_is_the_first_node_and_shows_the_outline(toylang_db: Path) -> None:
    app = quiet_app(toylang_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        tree = browser_of(app).query_one(ChunkTree)
        tree.move_cursor(tree.root.children[0])
        await settle(pilot)
        view = browser_of(app).query_one(ChunkView)
        assert view.chunk.id == DOCUMENT_CHUNK_ID
        assert header_plain(app).splitlines()[1].endswith("· parent — (document)")
        assert header_plain(app).splitlines()[1].startswith("document · ")
        text = rendered_plain(app)
        assert "Toylang Language Specification" in text and "2 Notational Conventions" in text
        await pilot.press("u")
        await settle(pilot)
        assert view.chunk.id == DOCUMENT_CHUNK_ID  # no parent: a warning, no move
        await pilot.press("down")
        await settle(pilot)
        assert view.chunk.id == "front-matter"


@run_async
async def test_t_toggles_the_retrieval_text_and_back(toylang_db: Path) -> None:
    app = quiet_app(toylang_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        browser_of(app).go_to_chunk("sec-literal-markup-p-1")
        await settle(pilot)
        view = browser_of(app).query_one(ChunkView)
        markdown = view.lines
        retrieval = browser_of(app).query_one("#chunk-body")
        assert markdown.display and not retrieval.display
        await pilot.press("t")
        await settle(pilot)
        assert view.show_retrieval_text and retrieval.display and not markdown.display
        assert retrieval_plain(app) == view.chunk.retrieval_text
        assert retrieval_plain(app).startswith("Document summary: This Standard describes Toylang")
        assert (
            "\nDocument: Toylang Language Specification\nSection: 2 Notational Conventions > "
            in retrieval_plain(app)
        )
        assert "\nPart: Some Toylang diagnostics use a bracketed…\nContent:\n" in retrieval_plain(
            app
        )
        assert "retrieval text" in header_plain(app).splitlines()[0]
        # the mode stays while moving to other chunks
        browser_of(app).go_to_chunk("sec-scope")
        await settle(pilot)
        assert (
            retrieval_plain(app)
            == store.open_database(toylang_db).chunk("sec-scope").retrieval_text
        )
        await pilot.press("t")
        await settle(pilot)
        assert not view.show_retrieval_text and markdown.display and not retrieval.display
        assert "retrieval text" not in header_plain(app).splitlines()[0]
        assert "This Standard describes Toylang" in rendered_plain(app)


@run_async
async def test_markers_select_and_follow_in_the_retrieval_text(toylang_db: Path) -> None:
    app = quiet_app(toylang_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        browser_of(app).go_to_chunk("sec-notational-conventions")
        await settle(pilot)
        await pilot.press("t", "n", "n")
        await settle(pilot)
        view = browser_of(app).query_one(ChunkView)
        assert view.selected_target == "sec-algorithm-conventions"
        content = browser_of(app).query_one("#chunk-retrieval", Static).content
        assert isinstance(content, Content)
        start = content.plain.index('[Subsection available: title "2.2')
        styles = [str(span.style) for span in content.spans if span.start == start]
        assert styles == ["bold reverse"]
        await pilot.press("f")
        await settle(pilot)
        assert view.chunk.id == "sec-algorithm-conventions"
        assert view.show_retrieval_text


@run_async
async def test_palette_commands_toggle_retrieval_text_and_show_the_synopsis(
    toylang_db: Path,
) -> None:
    app = quiet_app(toylang_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        titles = [c.title for c in app.get_system_commands(browser_of(app))]
        assert "Toggle retrieval text" in titles and "Document synopsis" in titles
        await pilot.press("ctrl+p")
        await settle(pilot)
        await pilot.press(*"toggle retrieval")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert not CommandPalette.is_open(app)
        assert browser_of(app).query_one(ChunkView).show_retrieval_text
        await pilot.press("ctrl+p")
        await settle(pilot)
        await pilot.press(*"document synopsis")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert browser_of(app).query_one(ChunkView).chunk.id == DOCUMENT_CHUNK_ID
        assert cursor_id(app) == DOCUMENT_CHUNK_ID


def test_retrieval_binding_is_on_the_help_screen() -> None:
    from specbrowser.tui.screens.help import help_rows

    binding = next(
        b for b in BrowserScreen.BINDINGS if getattr(b, "id", None) == "toggle-retrieval-text"
    )
    assert binding.key == "t"
    assert ("View", "t", "Retrieval") in help_rows(BrowserScreen.BINDINGS)


# --- heading mismatches and tree filters -------------------------------------------------------

MISMATCHED_SECTIONS = {
    "sec-gadget-parts",
    "sec-gadget-assembly",
    "sec-widgets",
    "sec-widget-sizes",
    "sec-glossary",
}
"""The sections of mismatched-toc.html whose heading path differs from its TOC's."""


def tree_shape(tree: ChunkTree) -> dict[str | None, list[str]]:
    """Every built node's children by chunk id (None: the top level), as the tree shows them."""
    shape: dict[str | None, list[str]] = {}
    pending = [tree.root]
    while pending:
        node = pending.pop()
        if node.children:
            shape[node.data] = [child.data for child in node.children]
            pending.extend(node.children)
    return shape


def all_nodes(tree: ChunkTree) -> list:
    """Every built node below the root, in pre-order."""
    found, pending = [], list(reversed(tree.root.children))
    while pending:
        node = pending.pop()
        found.append(node)
        pending.extend(reversed(node.children))
    return found


def test_labels_mark_mismatched_sections_and_overruns_with_their_own_styles() -> None:
    section = Chunk(
        id="sec-x",
        section_id="sec-x",
        parent_id=None,
        depth=0,
        layer="section",
        breakdown_tag=None,
        title="1 X [bold]",
        heading_path=["1 X [bold]"],
        text="",
        over_threshold="unsplittable",
        mismatch="title_differs",
    )
    label = chunk_label(section)
    assert label.plain == "1 X [bold] ⚠ ≠"
    styles = {label.plain[s.start : s.end]: str(s.style) for s in label.spans}
    assert styles[" ⚠"] == "bold red" and styles[" ≠"] == "bold yellow"
    # a subsection carries its section's mismatch, but only the section is marked
    part = Chunk(
        id="sec-x-p-1",
        section_id="sec-x",
        parent_id="sec-x",
        depth=1,
        layer="subsection",
        breakdown_tag="p",
        title="",
        heading_path=["1 X [bold]"],
        text="A paragraph of the section, long enough not to be tiny: " + "words " * 10,
        mismatch="title_differs",
    )
    assert chunk_label(part).plain == "p 1"
    assert chunk_label(replace(part, text="Short.")).plain == "p 1 ∘"
    assert str(chunk_label(part, context=True).spans[-1].style) == "dim"


def test_heading_lines_one_path_when_equal_two_with_the_kind_when_not() -> None:
    chunk = Chunk(
        id="sec-b",
        section_id="sec-b",
        parent_id=None,
        depth=0,
        layer="section",
        breakdown_tag=None,
        title="2.1 B",
        heading_path=["2 A", "2.1 B"],
        text="",
        toc_path=["2 A", "2.1 B"],
    )
    assert heading_lines(chunk).plain == "2 A › 2.1 B"
    chunk.toc_path = None
    assert heading_lines(chunk).plain == "2 A › 2.1 B"
    chunk.toc_path, chunk.mismatch = ["2 C", "2.1 B"], "ancestor_differs"
    assert heading_lines(chunk).plain.splitlines() == [
        "parser: 2 A › 2.1 B",
        "TOC:    2 C › 2.1 B   ≠ ancestor_differs  the TOC puts it under another heading",
    ]


@run_async
async def test_mismatched_sections_are_marked_in_the_tree(mismatch_db: Path) -> None:
    app = quiet_app(mismatch_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        tree = browser_of(app).query_one(ChunkTree)
        assert [str(n.label) for n in tree.root.children] == [
            "Document synopsis",
            "1 Gadgets",
            "2 Widgets ≠",
            "3 Glossary ≠",
        ]
        for section_id in ("sec-gadgets", "sec-widgets"):
            node = tree.node_for(section_id)
            tree.move_cursor(node)
            await pilot.press("space")
            await settle(pilot)
        assert [str(n.label) for n in tree.node_for("sec-gadgets").children] == [
            "1.1 Gadget Parts ≠",
            "1.2 Gadget Limits",
            "1.3 Gadget Assembly ≠",
        ]
        marked = {n.data for n in all_nodes(tree) if str(n.label).endswith(" ≠")}
        assert marked == MISMATCHED_SECTIONS
        assert len(all_nodes(tree)) == 8  # the document chunk and all seven sections are built


@run_async
async def test_header_shows_both_paths_for_a_mismatched_chunk_and_one_otherwise(
    mismatch_db: Path,
) -> None:
    app = quiet_app(mismatch_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        browser_of(app).go_to_chunk("sec-widget-sizes")
        await settle(pilot)
        lines = header_plain(app).splitlines()
        assert lines[3] == "parser: 2 Widgets › 2.1 Widget Sizes"
        assert lines[4].startswith("TOC:    2 Doohickeys › 2.1 Widget Sizes   ≠ ancestor_differs ")
        assert lines[5] == "no markers"
        browser_of(app).go_to_chunk("sec-gadget-parts")
        await settle(pilot)
        assert "≠ title_differs" in header_plain(app)
        assert "TOC:    1 Gadgets › 1.1 Gadget Components" in header_plain(app)
        browser_of(app).go_to_chunk("sec-gadget-limits")  # its paths agree
        await settle(pilot)
        lines = header_plain(app).splitlines()
        assert lines[3] == "1 Gadgets › 1.2 Gadget Limits"
        assert lines[4] == "no markers"
        assert "parser:" not in header_plain(app) and "TOC:" not in header_plain(app)


@run_async
async def test_mismatch_filter_shows_only_mismatched_sections_and_toggles_back(
    mismatch_db: Path,
) -> None:
    app = quiet_app(mismatch_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        tree = browser_of(app).query_one(ChunkTree)
        whole = [str(n.label) for n in tree.root.children]
        await pilot.press("m")
        await settle(pilot)
        assert browser_of(app).tree_filter == filters.MISMATCHED
        assert tree_shape(tree) == {
            None: ["sec-gadgets", "sec-widgets", "sec-glossary"],
            "sec-gadgets": ["sec-gadget-parts", "sec-gadget-assembly"],
            "sec-widgets": ["sec-widget-sizes"],
        }
        assert {n.data for n in all_nodes(tree)} == MISMATCHED_SECTIONS | {"sec-gadgets"}
        assert all(n.is_expanded for n in all_nodes(tree) if n.children)
        assert tree.border_title == "only mismatched sections · 5"
        assert cursor_id(app) == "sec-gadgets"  # the chunk shown before, still shown
        await pilot.press("down", "down", "down")
        await settle(pilot)
        assert cursor_id(app) == "sec-widgets"
        assert browser_of(app).query_one(ChunkView).chunk.id == "sec-widgets"
        await pilot.press("m")
        await settle(pilot)
        assert browser_of(app).tree_filter is None and tree.border_title is None
        assert [str(n.label) for n in tree.root.children] == whole
        assert tree.node_for("sec-widget-sizes") is None  # lazy again: nothing below is built
        assert not tree.node_for("sec-gadgets").is_expanded
        assert cursor_id(app) == "sec-widgets"


@run_async
async def test_over_threshold_filter_shows_overruns_and_their_ancestors(toylang_db: Path) -> None:
    app = quiet_app(toylang_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        tree = browser_of(app).query_one(ChunkTree)
        whole = [str(n.label) for n in tree.root.children]
        await pilot.press("O")
        await settle(pilot)
        assert browser_of(app).tree_filter == filters.OVER_THRESHOLD
        assert tree_shape(tree) == {
            None: ["sec-data-types-and-values", "sec-statements", "sec-annex-grammar-summary"],
            "sec-data-types-and-values": ["sec-specification-types"],
            "sec-specification-types": ["sec-big-table-clause"],
            "sec-big-table-clause": ["sec-big-table-clause-emu-table-1"],
            "sec-statements": ["sec-long-prose"],
            "sec-annex-grammar-summary": ["sec-annex-statements"],
        }
        db = store.open_database(toylang_db)
        over = {c.id for c in db.iter_chunks() if c.over_threshold}
        for node in all_nodes(tree):
            assert (" ⚠" in str(node.label)) == (node.data in over), node.data
            dimmed = any(str(span.style) == "dim" for span in node.label.spans)
            assert dimmed == (node.data not in over), node.data
        assert all(n.is_expanded for n in all_nodes(tree) if n.children)
        assert tree.border_title == "only over-threshold chunks · 4"
        # sec-intro (shown before) is hidden: the cursor goes to the first overrun
        assert cursor_id(app) == "sec-big-table-clause"
        assert browser_of(app).query_one(ChunkView).chunk.id == "sec-big-table-clause"
        await pilot.press("o")  # next overrun, inside the filtered tree
        await settle(pilot)
        assert cursor_id(app) == "sec-big-table-clause-emu-table-1"
        await pilot.press("O")
        await settle(pilot)
        assert browser_of(app).tree_filter is None
        assert [str(n.label) for n in tree.root.children] == whole
        assert cursor_id(app) == "sec-big-table-clause-emu-table-1"
        assert tree.node_for("sec-long-prose") is None


@run_async
async def test_filters_switch_refuse_to_match_nothing_and_keep_hidden_chunks_viewable(
    toylang_db: Path,
) -> None:
    app = quiet_app(toylang_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("m")  # toylang's TOC agrees with its sections
        await settle(pilot)
        assert browser_of(app).tree_filter is None
        assert any(
            "every section's heading path agrees with the TOC" in n.message
            for n in app._notifications
        )
        await pilot.press("O")
        await settle(pilot)
        assert browser_of(app).tree_filter == filters.OVER_THRESHOLD
        assert browser_of(app).go_to_chunk("sec-scope")  # hidden by the filter: shown all the same
        await settle(pilot)
        assert browser_of(app).query_one(ChunkView).chunk.id == "sec-scope"
        assert cursor_id(app) == "sec-big-table-clause"
        assert any("sec-scope is hidden by the filter" in n.message for n in app._notifications)
        assert not browser_of(app).go_to_chunk("no-such-chunk")


@run_async
async def test_palette_commands_toggle_the_filters(mismatch_db: Path) -> None:
    app = quiet_app(mismatch_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        provider = FilterProvider(browser_of(app))
        discovered = [hit async for hit in provider.discover()]
        assert [h.text for h in discovered] == [
            "Only mismatched sections",
            "Only over-threshold chunks",
            "Only tiny chunks",
            "Only mostly-marker chunks",
        ]
        assert discovered[0].help.endswith("(m)") and discovered[1].help.endswith("(O)")
        assert discovered[2].help.endswith("(T)") and discovered[3].help.endswith("(M)")
        await pilot.press("ctrl+p")
        await settle(pilot)
        await pilot.press(*"only mismatched")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert not CommandPalette.is_open(app)
        assert browser_of(app).tree_filter == filters.MISMATCHED
        helps = [hit.help async for hit in provider.discover()]
        assert helps[0].startswith("On: run again")
        await pilot.press("ctrl+p")
        await settle(pilot)
        await pilot.press(*"only mismatched")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert browser_of(app).tree_filter is None


@run_async
async def test_tiny_and_marker_heavy_filters_show_their_chunks(toylang_db: Path) -> None:
    app = quiet_app(toylang_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        tree = browser_of(app).query_one(ChunkTree)
        version = app.session.active_version()
        for key, kind, title in (
            ("T", filters.TINY, "only tiny chunks"),
            ("M", filters.MARKER_HEAVY, "only mostly-marker chunks"),
        ):
            await pilot.press(key)
            await settle(pilot)
            assert browser_of(app).tree_filter == kind
            filtered = filters.filtered_tree(app.session.store, kind, version)
            assert tree.border_title == f"{title} · {len(filtered.matches)}"
            assert tree_shape(tree) == filtered.children
            assert cursor_id(app) in filtered.shown
        await pilot.press("M")
        await settle(pilot)
        assert browser_of(app).tree_filter is None


@run_async
async def test_tiny_and_marker_heavy_chunks_carry_their_badges_in_the_tree(
    toylang_db: Path,
) -> None:
    """Every chunk the T and M filters match shows ∘ and ⇢ in its tree label, and no other."""
    app = quiet_app(toylang_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        tree = browser_of(app).query_one(ChunkTree)
        version = app.session.active_version()
        for key, kind, mark in (
            ("T", filters.TINY, TINY_MARK),
            ("M", filters.MARKER_HEAVY, MARKER_HEAVY_MARK),
        ):
            await pilot.press(key)
            await settle(pilot)
            matches = filters.filtered_tree(app.session.store, kind, version).matches
            assert matches, f"the sample spec has {kind} chunks"
            for chunk_id, node in tree._chunk_nodes.items():
                assert (mark in node.label.plain) == (chunk_id in matches), chunk_id
            await pilot.press(key)
            await settle(pilot)


def test_filter_bindings_are_on_the_help_screen() -> None:
    bindings = {b.id: b for b in BrowserScreen.BINDINGS if isinstance(b, Binding)}
    assert bindings["filter-mismatched"].key == "m"
    assert bindings["filter-over-threshold"].key.split(",")[0] == "O"
    # the footer fits 80 columns: the filters are on the help screen (?) instead
    assert not bindings["filter-mismatched"].show and not bindings["filter-over-threshold"].show
    from specbrowser.tui.screens.help import help_rows

    described = {text for _group, _keys, text in help_rows(BrowserScreen.BINDINGS)}
    assert {"Only mismatched", "Only overruns"} <= described


# --- search (/) ---------------------------------------------------------------------------------


async def search_for(pilot, query: str) -> None:
    """Open the search bar, type ``query`` and run it; wait for the worker."""
    await pilot.press("slash")
    await settle(pilot)
    await pilot.press(*query)
    await pilot.press("enter")
    await settle(pilot)


def search_status(app: SpecBrowserApp) -> str:
    return str(browser_of(app).query_one("#search-status", Static).content)


def highlighted_words(app: SpecBrowserApp) -> list[str]:
    """The words the chunk view shows in the search match style, in document order."""
    lines = browser_of(app).chunk_view.lines
    if lines.rendered is None:
        return []
    match = Style.parse(SEARCH_MATCH_STYLE)
    return [
        lines.rendered.lines[line].plain[start:end]
        for line in sorted(lines._overlays)
        for start, end, style in lines._overlays[line]
        if style == match
    ]


@run_async
async def test_search_lists_hits_and_enter_jumps_to_the_first(toylang_db: Path) -> None:
    app = quiet_app(toylang_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("slash")
        await settle(pilot)
        assert isinstance(app.focused, Input) and app.focused.id == "search-input"
        await pilot.press(*"persist", "enter")  # letters bound on the screen (p, t) are typed
        await settle(pilot)
        screen = browser_of(app)
        expected = lexical_search_hits(toylang_db, "persist")
        assert [h.chunk_id for h in screen.search_hits] == [h.chunk_id for h in expected]
        assert search_status(app).startswith(f"lexical · {len(expected)} hits for persist")
        results = screen.query_one(SearchResults)
        assert results.option_count == len(expected)
        assert isinstance(app.focused, Input) and app.focused.id == "search-input"
        first_row = results.get_option_at_index(0).prompt
        assert expected[0].chunk_id in str(first_row) and "lexical" in str(first_row)
        await pilot.press("enter")
        await settle(pilot)
        assert not screen.search_bar.display and app.focused is screen.chunk_tree
        view = screen.chunk_view
        assert view.chunk.id == cursor_id(app) == expected[0].chunk_id
        assert screen.hit_index == 0
        assert (
            header_plain(app)
            .splitlines()[-1]
            .startswith(f"lexical search persist  hit 1/{len(expected)}")
        )
        assert view.search_terms == ["persist"]
        assert highlighted_words(app)
        assert all(w.casefold() == "persist" for w in highlighted_words(app))


@run_async
async def test_focus_stays_in_the_search_field_and_dropped_punctuation_is_said(
    toylang_db: Path,
) -> None:
    app = quiet_app(toylang_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await search_for(pilot, "[[widget]]")
        screen = browser_of(app)
        assert screen.search_hits
        assert isinstance(app.focused, Input) and app.focused.id == "search-input"
        assert 'searched as "widget" (punctuation is not indexed)' in search_status(app)
        results = screen.query_one(SearchResults)
        assert results.highlighted == 0
        await pilot.press("down")
        await settle(pilot)
        assert results.highlighted == 1 and app.focused.id == "search-input"
        await pilot.press("x")  # still typing in the field
        assert screen.query_one("#search-input", Input).value == "[[widget]]x"
        await pilot.press("backspace", "enter")  # the same query again: jump to the highlight
        await settle(pilot)
        assert screen.chunk_view.chunk.id == screen.search_hits[1].chunk_id
        assert app.focused is screen.chunk_tree


def lexical_search_hits(db_path: Path, query: str) -> list[Hit]:
    from specbrowser.search.query import lexical_search
    from specbrowser.tui.screens.browser import SEARCH_LIMIT

    db = store.open_database(db_path)
    try:
        return lexical_search(db, query, limit=SEARCH_LIMIT)
    finally:
        db.close()


@run_async
async def test_n_and_shift_n_step_through_hits_then_escape_restores_markers(
    toylang_db: Path,
) -> None:
    app = quiet_app(toylang_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        expected = [h.chunk_id for h in lexical_search_hits(toylang_db, "widget")]
        assert len(expected) > 3
        await search_for(pilot, "widget")
        await pilot.press("down", "enter")  # the second hit
        await settle(pilot)
        screen, view = browser_of(app), browser_of(app).chunk_view
        assert view.chunk.id == cursor_id(app) == expected[1]
        footer_keys = {b.binding.id for b in screen.active_bindings.values()}
        assert {"next-hit", "previous-hit", "search"} <= footer_keys
        assert "next-marker" not in footer_keys and "previous-marker" not in footer_keys
        await pilot.press("n")
        await settle(pilot)
        assert view.chunk.id == cursor_id(app) == expected[2]
        assert f"hit 3/{len(expected)}" in header_plain(app)
        await pilot.press("N", "N", "N")  # back past the first: wraps to the last
        await settle(pilot)
        assert view.chunk.id == cursor_id(app) == expected[-1]
        assert screen.query_one(SearchResults).highlighted == len(expected) - 1
        await pilot.press("escape")
        await settle(pilot)
        assert screen.hit_index is None and "hit " not in header_plain(app)
        assert not highlighted_words(app)
        footer_keys = {b.binding.id for b in screen.active_bindings.values()}
        assert "next-marker" in footer_keys and "next-hit" not in footer_keys
        screen.go_to_chunk("sec-notational-conventions")
        await settle(pilot)
        await pilot.press("n")  # selects markers again
        await settle(pilot)
        assert view.chunk.id == "sec-notational-conventions"
        assert view.selected_target == "sec-grammar-notation"


@run_async
async def test_escape_in_the_search_bar_closes_it_and_focuses_the_tree(toylang_db: Path) -> None:
    app = quiet_app(toylang_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await search_for(pilot, "gadget")
        screen = browser_of(app)
        assert screen.search_bar.display and screen.search_hits
        await pilot.press("escape")
        await settle(pilot)
        assert not screen.search_bar.display and app.focused is screen.chunk_tree
        assert screen.hit_index is None
        assert cursor_id(app) == "front-matter"  # nothing chosen: no move
        await pilot.press("slash")  # reopens with the last query and hits
        await settle(pilot)
        assert screen.query_one("#search-input", Input).value == "gadget"
        assert screen.query_one(SearchResults).option_count == len(screen.search_hits)


@run_async
async def test_hits_are_highlighted_in_the_retrieval_text_too(toylang_db: Path) -> None:
    app = quiet_app(toylang_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await search_for(pilot, "SlotList")
        screen = browser_of(app)
        assert [h.chunk_id for h in screen.search_hits] == [
            "sec-widget-literals",
            "sec-annex-statements",
        ]
        await pilot.press("enter", "t")
        await settle(pilot)
        widget = screen.query_one("#chunk-retrieval", Static)
        spans = [
            widget.content.plain[s.start : s.end]
            for s in widget.content.spans
            if str(s.style) == SEARCH_MATCH_STYLE
        ]
        assert spans and set(spans) == {"SlotList"}
        await pilot.press("n")  # next hit, still in the retrieval text
        await settle(pilot)
        assert screen.chunk_view.chunk.id == "sec-annex-statements"
        assert screen.chunk_view.show_retrieval_text
        assert any(str(s.style) == SEARCH_MATCH_STYLE for s in widget.content.spans)
        await pilot.press("t")  # back to the Markdown: highlighted there as well
        await settle(pilot)
        assert set(highlighted_words(app)) == {"SlotList"}


@pytest.mark.serial
@run_async
async def test_search_runs_in_a_worker_and_a_newer_search_wins(
    toylang_db: Path, monkeypatch
) -> None:
    import threading

    from specbrowser.session import Session

    release = threading.Event()
    real_search = Session.search

    def held_search(session, query, mode="lexical", **kwargs):
        if query == "slow":
            release.wait(10)  # held until the test has used the UI meanwhile
        return real_search(session, query, mode, **kwargs)

    monkeypatch.setattr(Session, "search", held_search)
    app = quiet_app(toylang_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"slow", "enter")
        await pilot.pause()
        screen = browser_of(app)
        assert "searching" in search_status(app)
        await pilot.press("ctrl+u", *"gadget", "enter")  # the UI answers while "slow" runs
        await pilot.pause()
        release.set()
        await settle(pilot)
        assert search_status(app).startswith("lexical · ")
        assert "for gadget" in search_status(app)  # the older, slower search was dropped
        assert screen.search_query == "gadget" and screen.search_hits


@run_async
async def test_mode_key_stays_lexical_without_embeddings_and_says_why(toylang_db: Path) -> None:
    app = quiet_app(toylang_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await search_for(pilot, "gadget")
        await pilot.press("ctrl+r")
        await settle(pilot)
        screen = browser_of(app)
        assert screen.search_mode == "lexical"
        assert search_status(app).startswith("lexical · semantic and hybrid search are off: ")


@run_async
async def test_mode_key_cycles_modes_and_searches_again(toylang_db: Path, monkeypatch) -> None:
    from specbrowser.session import Session

    real_search = Session.search

    def fake_semantic(session, query, mode="lexical", **kwargs):
        if mode != "semantic":
            return real_search(session, query, mode, **kwargs)
        return [Hit("sec-scope", "sec-scope", "1 Scope", ["1 Scope"], 0.5, "", "semantic")]

    monkeypatch.setattr(Session, "search", fake_semantic)
    monkeypatch.setattr(BrowserScreen, "vectors_off", lambda self: None)
    app = quiet_app(toylang_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await search_for(pilot, "gadget")
        await pilot.press("ctrl+r")
        await settle(pilot)
        screen = browser_of(app)
        assert screen.search_mode == "semantic"
        assert search_status(app).startswith("semantic · 1 hit for gadget")
        assert "no embeddings yet" in search_status(app)  # the core's coverage note
        await pilot.press("enter")
        await settle(pilot)
        assert cursor_id(app) == "sec-scope"
        assert "semantic search gadget  hit 1/1" in header_plain(app)


@pytest.mark.parametrize(
    "query", ["[bold]", '"', "C++", "[/]", '"unbalanced', "AND OR NOT", "%%%", "*"]
)
@run_async
async def test_odd_queries_never_raise(toylang_db: Path, query: str) -> None:
    app = quiet_app(toylang_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await search_for(pilot, query)
        screen = browser_of(app)
        status = search_status(app)
        assert status.startswith("lexical · ")
        assert query in status  # shown literally, never as markup
        assert not any(n.severity == "error" for n in app._notifications)
        if not screen.search_hits:
            assert "no hits" in status
            assert not screen.query_one(SearchResults).display
            await pilot.press("n")  # no hit navigation: n is the marker key
            await settle(pilot)
            assert screen.hit_index is None


@run_async
async def test_markup_like_query_finds_literal_text_and_highlights_it(markup_db: Path) -> None:
    app = quiet_app(markup_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await search_for(pilot, "[bold]not bold[/]")
        screen = browser_of(app)
        assert screen.search_hits and "no hits" not in search_status(app)
        assert screen.search_hits[0].chunk_id == "sec-markup"
        await pilot.press("enter")
        await settle(pilot)
        assert screen.chunk_view.chunk.id == screen.search_hits[0].chunk_id
        assert "[bold]not bold[/]" in rendered_plain(app)  # the text itself is unchanged
        assert "bold" in [w.casefold() for w in highlighted_words(app)]


def test_snippets_and_terms_are_literal_text() -> None:
    snippet = f"…a {HIGHLIGHT_START}[bold]{HIGHLIGHT_END} x\n{HIGHLIGHT_START}C++{HIGHLIGHT_END}…"
    text = snippet_text(snippet)
    assert text.plain == "…a [bold] x C++…"
    assert [text.plain[s.start : s.end] for s in text.spans] == ["[bold]", "C++"]
    assert snippet_text(f"cut {HIGHLIGHT_START}off").plain == "cut off"  # unbalanced: no error
    assert match_terms("Array.prototype.map C++", snippet) == [
        "bold",
        "c",
        "array",
        "prototype",
        "map",
    ]
    assert match_terms('"') == []
    # a semantic hit has no marks: the question's function words are not highlighted
    assert match_terms("How does the for-in statement work?") == ["for", "in", "statement", "work"]
    assert match_terms("the of") == ["the", "of"]  # only stopwords: the user meant them
    text = "ToNumber(x) and tonumber, not ToNumbers; Array.prototype.map"
    assert [text[s:e] for s, e in term_spans(text, ["tonumber", "map"])] == [
        "ToNumber",
        "tonumber",
        "map",
    ]
    hit = Hit("sec-x", "sec-x", "T [i]", ["1 A [b]", "1.1 B"], 1.5, "x", "lexical")
    row = hit_row(hit)
    assert "sec-x" in row.plain and "1 A [b] › 1.1 B › T [i]" in row.plain


# --- opening, errors, ingest ----------------------------------------------------------------


@run_async
async def test_missing_database_is_a_notification_not_a_traceback(tmp_path: Path) -> None:
    app = quiet_app(tmp_path / "missing.db")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert not isinstance(app.screen, BrowserScreen)
        assert any("does not exist" in n.message for n in app._notifications)
        assert "does not exist" in str(app.query_one("#app-message", Static).content)


@run_async
async def test_not_a_specbrowser_database_is_a_notification(tmp_path: Path) -> None:
    other = tmp_path / "other.db"
    other.write_bytes(b"not sqlite at all, just bytes" * 100)
    app = quiet_app(other)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert not isinstance(app.screen, BrowserScreen)
        assert any("not a" in n.message for n in app._notifications)


@pytest.mark.serial
@run_async
async def test_ingest_runs_in_a_worker_then_shows_the_browser(tmp_path: Path, monkeypatch) -> None:
    if not TOYLANG.is_file():
        pytest.skip("sample_specs/toylang.html absent")
    import threading

    import specbrowser.session.ingest

    release = threading.Event()
    real_ingest = specbrowser.session.ingest.ingest

    def held_ingest(*args, **kwargs):
        release.wait(10)  # the worker waits until the test has seen the progress screen
        return real_ingest(*args, **kwargs)

    monkeypatch.setattr(specbrowser.session.ingest, "ingest", held_ingest)
    cache = tmp_path / "cache.db"
    app = make_app(
        ingest_spec=[TOYLANG],
        cache_db=cache,
        policy=TOYLANG_POLICY,
        cursor_blink=False,
    )
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, ProgressScreen)
        release.set()
        await settle(pilot)
        assert isinstance(app.screen, BrowserScreen)
        assert app.title == "Toylang Language Specification"
        assert cache.is_file()
        assert cursor_id(app) == "front-matter"


@pytest.mark.serial
@run_async
async def test_the_ingest_progress_screen_says_when_the_chunks_are_stored(
    tmp_path: Path, monkeypatch
) -> None:
    """It showed "Chunking sections (22/22)" through the whole write, the bar full."""
    if not TOYLANG.is_file():
        pytest.skip("sample_specs/toylang.html absent")
    import threading

    from specbrowser.store.sets import IngestWrite

    release = threading.Event()
    real_store = IngestWrite.write_chunk_set

    def held_store(*args, **kwargs):
        release.wait(10)  # the worker waits in the store stage until the test has looked
        return real_store(*args, **kwargs)

    monkeypatch.setattr(IngestWrite, "write_chunk_set", held_store)
    app = make_app(
        ingest_spec=[TOYLANG],
        cache_db=tmp_path / "cache.db",
        policy=TOYLANG_POLICY,
        cursor_blink=False,
    )
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(100):
            await pilot.pause(0.05)
            label = str(app.screen.query_one("#progress-stage", Label).content)
            if label.startswith("Storing"):
                break
        try:
            assert label == "Storing chunks…"
            assert app.screen.query_one("#progress-bar", ProgressBar).total is None  # pulsing
        finally:
            release.set()
        await settle(pilot)
        assert isinstance(app.screen, BrowserScreen)


@run_async
async def test_failed_ingest_shows_the_error_on_the_progress_screen(tmp_path: Path) -> None:
    empty = tmp_path / "empty.html"
    empty.write_text("", encoding="utf-8")
    app = make_app(tmp_path / "cache.db", ingest_spec=[empty], cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, ProgressScreen)
        error = str(app.screen.query_one("#progress-error", Static).content)
        assert error and any(n.severity == "error" for n in app._notifications)
        assert app.ingest_failed  # the CLI turns this into exit status 2


def test_make_app_needs_a_database_path() -> None:
    with pytest.raises(ValueError):
        make_app()


def test_bindings_have_ids() -> None:
    for binding in [*SpecBrowserApp.BINDINGS, *BrowserScreen.BINDINGS]:
        assert binding.id, binding


def test_core_modules_do_not_import_textual() -> None:
    code = (
        "import sys, specbrowser.session.ingest, specbrowser.store, specbrowser.session.filters, "
        "specbrowser.cli; "
        "sys.exit(any(m == 'textual' or m.startswith('textual.') for m in sys.modules))"
    )
    assert subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=False).returncode == 0


# --- marker links (pure) ------------------------------------------------------------------------


def test_marker_links_round_trip_the_document_chunk_id() -> None:
    from urllib.parse import unquote

    assert chunk_id_from_href(unquote(chunk_href(DOCUMENT_CHUNK_ID))) == DOCUMENT_CHUNK_ID
    text = f"[Subsection available at sectionid: `{DOCUMENT_CHUNK_ID}`]"
    assert [m.target_id for m in find_markers(text)] == [DOCUMENT_CHUNK_ID]


def test_marker_links_round_trip_ids_with_url_characters() -> None:
    odd = "sec-a%b.c[1]@x(y)"
    text = f'x\n[Subsection available: title "T [bold] | *u*" at sectionid: `{odd}`]\n'
    rewritten = rewrite_markers(text)
    assert rewritten.startswith("x\n[⤷ Subsection available\\: title ")
    assert rewritten.count("\n") == text.count("\n")
    assert f"]({chunk_href(odd)})" in rewritten
    # Textual unquotes the href before LinkClicked; the id comes back exactly
    from urllib.parse import unquote

    assert chunk_id_from_href(unquote(chunk_href(odd))) == odd
    assert chunk_id_from_href("https://example.invalid") is None
    assert escape_markdown("[a]|`b`") == "\\[a\\]\\|\\`b\\`"


# --- snapshots ----------------------------------------------------------------------------------


def _run_before(chunk_id: str, *keys: str):
    async def run_before(pilot) -> None:
        await settle(pilot)
        browser_of(pilot.app).go_to_chunk(chunk_id)
        await settle(pilot)
        if keys:
            await pilot.press(*keys)
            await settle(pilot)

    return run_before


@needs_toylang
def test_snapshot_tree_and_view_with_selected_marker(toylang_db: Path, snap_compare) -> None:
    """Tree expanded down to 2.2 Algorithm Conventions; its second marker is selected."""
    assert snap_compare(
        quiet_app(toylang_db),
        terminal_size=SNAPSHOT_SIZE,
        run_before=_run_before("sec-algorithm-conventions", "n", "n"),
    )


@needs_toylang
def test_snapshot_over_threshold_chunk(toylang_db: Path, snap_compare) -> None:
    """An unsplittable table: red size, highlighted reason, ⚠ in the tree."""
    assert snap_compare(
        quiet_app(toylang_db),
        terminal_size=SNAPSHOT_SIZE,
        run_before=_run_before("sec-big-table-clause-emu-table-1"),
    )


@needs_toylang
def test_snapshot_jump_palette_with_query(toylang_db: Path, snap_compare) -> None:
    """The jump palette (g) with "gram" typed: substring hits, highlighted."""
    assert snap_compare(
        quiet_app(toylang_db),
        terminal_size=SNAPSHOT_SIZE,
        run_before=_run_before("sec-intro", "g", *"gram"),
    )


@needs_toylang
def test_snapshot_retrieval_text(toylang_db: Path, snap_compare) -> None:
    """A paragraph subsection shown as its retrieval text (t): header lines, then the content;
    the header badge says so, and the tree starts with the document synopsis."""
    assert snap_compare(
        quiet_app(toylang_db),
        terminal_size=SNAPSHOT_SIZE,
        run_before=_run_before("sec-literal-markup-p-1", "t"),
    )


@needs_mismatched_toc
def test_snapshot_mismatch_filter_with_both_paths(mismatch_db: Path, snap_compare) -> None:
    """The mismatch filter (m) on: only the six mismatched sections, expanded, ≠ in each label,
    the filter named in the tree's border; 2.1 Widget Sizes is selected and its header shows the
    parser path, the TOC path and the kind (ancestor_differs)."""

    async def run_before(pilot) -> None:
        await settle(pilot)
        await pilot.press("m")
        await settle(pilot)
        browser_of(pilot.app).go_to_chunk("sec-widget-sizes")
        await settle(pilot)

    assert snap_compare(quiet_app(mismatch_db), terminal_size=SNAPSHOT_SIZE, run_before=run_before)


@needs_toylang
def test_snapshot_search_results(toylang_db: Path, snap_compare) -> None:
    """The search bar (/) after "persist": the status line (mode, hit count), then one two-line
    row per hit: score, mode, chunk id and heading path, then the snippet with [[Persist]]
    highlighted; the first row is highlighted and the list has the focus."""

    async def run_before(pilot) -> None:
        await settle(pilot)
        await search_for(pilot, "persist")

    assert snap_compare(quiet_app(toylang_db), terminal_size=SNAPSHOT_SIZE, run_before=run_before)


@needs_toylang
def test_snapshot_over_threshold_filter(toylang_db: Path, snap_compare) -> None:
    """The over-threshold filter (O) on: the four overruns with ⚠ and their dimmed ancestors,
    expanded; the cursor on the first overrun (the section shown before is filtered out)."""
    assert snap_compare(
        quiet_app(toylang_db), terminal_size=SNAPSHOT_SIZE, run_before=_run_before("sec-intro", "O")
    )
