"""Where each chunk lies in its reassembled section (the section view's spans), and how the
section view lays them out."""

from __future__ import annotations

from pathlib import Path

from rich.cells import cell_len

from specbrowser.session import Session
from specbrowser.tui.section_lines import boundary_lines, cut_middle, gutter_width, wrap_cells


def _all_sections(session: Session) -> list[str]:
    return [chunk.id for chunk in session.top_level_chunks()] + [
        chunk.id
        for top in session.top_level_chunks()
        for chunk in session.descendants(top.id)
        if chunk.parent_id is None
    ]


def test_spans_cover_the_reassembled_text_and_name_every_chunk(toylang_db: Path) -> None:
    with Session.open(toylang_db) as session:
        for section in _all_sections(session):
            whole = session.reassembled(section)
            bounds = session.boundaries(section)
            assert bounds.text == whole.text
            ends = [0] + [span.end for span in bounds.spans]
            assert [span.start for span in bounds.spans] == ends[:-1]  # no gap, no overlap
            assert ends[-1] == len(bounds.text)
            assert len({span.chunk_id for span in bounds.spans}) == whole.chunks


def test_a_subsection_span_holds_the_subsection_text(toylang_db: Path) -> None:
    with Session.open(toylang_db) as session:
        bounds = session.boundaries("sec-algorithm-conventions")
        for span in bounds.spans:
            chunk = session.chunk(span.chunk_id)
            piece = bounds.text[span.start : span.end]
            if chunk.parent_id is not None and not chunk.subsections:
                assert piece.strip() == chunk.text.strip()  # a leaf paragraph comes back whole


def test_section_lines_show_every_character_once(toylang_db: Path) -> None:
    with Session.open(toylang_db) as session:
        bounds = session.boundaries("sec-big-table-clause")
    for width in (40, 80, 160):
        rendered, places = boundary_lines(bounds, width)
        gutter = gutter_width(width)
        body = "".join(line.plain[gutter:] for line in rendered.lines)
        assert body == bounds.text.replace("\n", "")
        assert all(line.cell_len <= width for line in rendered.lines)
        assert set(places) == {span.chunk_id for span in bounds.spans}


def test_ids_are_cut_in_the_middle() -> None:
    cut = cut_middle("sec-well-known-intrinsic-objects-emu-table-1-td-5", 16)
    assert cut == "sec-wel…e-1-td-5" and len(cut) == 16  # the distinct end is kept
    assert cut_middle("short", 16) == "short"


def test_section_lines_wrap_at_word_boundaries() -> None:
    assert wrap_cells("replace replacement", 12) == ["replace ", "replacement"]
    assert wrap_cells("the text encoded here", 12) == ["the text ", "encoded here"]
    assert wrap_cells("abc def", 3) == ["abc", " ", "def"]  # a word filling the width
    assert wrap_cells("abcdefgh", 3) == ["abc", "def", "gh"]  # wider than the width: cut
    assert wrap_cells("", 5) == [""]
    for line, width in (("word " * 30, 7), ("日本語の テキスト です", 5), ("a  b   c", 2)):
        pieces = wrap_cells(line, width)
        assert "".join(pieces) == line
        assert all(cell_len(piece) <= width for piece in pieces)
