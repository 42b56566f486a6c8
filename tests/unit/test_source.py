"""A chunk's source HTML: the element a subsection was cut from, found by its words."""

from __future__ import annotations

from pathlib import Path

from specbrowser.session import Session
from specbrowser.session.source import find_element

SECTION = """<emu-clause id="sec-a"><h1>A</h1>
<p>First paragraph with enough words to be told apart from the others here.</p>
<table><tr><td><code>Array</code></td><td><code>Array</code></td></tr></table>
<p>Second paragraph, with a <a href="#x">link</a> and more words to compare by.</p>
<emu-grammar>Thing ::\n  Other Thing</emu-grammar>
</emu-clause>"""


def test_a_paragraph_is_found_by_its_words_and_link_targets_are_ignored() -> None:
    text = "Second paragraph, with a [link](#x) and more words to compare by."
    element = find_element(SECTION, "p", text)
    assert element is not None and "".join(element.itertext()).startswith("Second paragraph")


def test_a_fenced_grammar_is_found_without_its_fence_line() -> None:
    element = find_element(SECTION, "emu-grammar", "```bnf\nThing ::\n    Other Thing\n```")
    assert element is not None and element.tag == "emu-grammar"


def test_equal_cells_go_to_the_numbered_one() -> None:
    cells = [find_element(SECTION, "td", "`Array`", number) for number in (1, 2)]
    assert cells[0] is not None and cells[1] is not None and cells[0] is not cells[1]


def test_text_found_nowhere_gives_none() -> None:
    assert find_element(SECTION, "p", "Words that appear in no paragraph of the section.") is None


def test_chunk_sources_of_the_sample(toylang_db: Path) -> None:
    with Session.open(toylang_db) as session:
        root = session.chunk_source("sec-big-table-clause")
        assert root.exact and root.html == session.section("sec-big-table-clause").html
        cell = session.chunk_source("sec-big-table-clause-emu-table-1-td-1")
        assert cell.exact and cell.html.startswith("<td")
        assert "Assemble" in cell.html
