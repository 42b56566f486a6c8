"""A link's fragment names the id a browser finds for it: as written first, then decoded."""

from __future__ import annotations

from specbrowser.chunking.fragments import (
    decode_non_ascii,
    decoded_fragment,
    fragment_keys,
    fragment_target,
)
from specbrowser.chunking.toc_paths import resolve_toc_starts
from specbrowser.model import Section, TocNode
from tests.helpers import chunk_html

CLAUSES = (
    '<emu-clause id="sec-%abstractfoo%-constructor"><h1><span class="secnum">1</span> '
    "The %AbstractFoo% Constructor</h1><p>See "
    '<a href="#sec-%abstractfoo%-constructor">%AbstractFoo%</a>, '
    '<a href="#%E2%84%9D">ℝ</a> and <a href="#ref-for-multipart%2Fform-data">x</a>.</p>'
    '<p id="ℝ">Reals.</p><p id="ref-for-multipart%2Fform-data">Parts.</p></emu-clause>'
)


def test_fragment_keys_are_as_written_then_decoded():
    assert fragment_keys("sec-%abstractfoo%") == ("sec-%abstractfoo%",)  # %ab is no UTF-8
    assert fragment_keys("%E2%84%9D") == ("%E2%84%9D", "ℝ")
    assert fragment_keys("plain") == ("plain",)
    assert decoded_fragment("a%2Fb") == "a/b" and decoded_fragment("%zz") is None


def test_fragment_target_prefers_the_id_as_written():
    assert fragment_target("a%2Fb", {"a%2Fb", "a/b"}) == "a%2Fb"
    assert fragment_target("a%2Fb", {"a/b"}) == "a/b"
    assert fragment_target("%E2%84%9D", {"x"}) is None


def test_link_fragments_with_percent_name_the_id_a_browser_finds(tmp_path):
    text = chunk_html(tmp_path, CLAUSES)[0].text
    assert "[%AbstractFoo%](#sec-%abstractfoo%-constructor)" in text
    assert "[ℝ](#ℝ)" in text  # only the decoded form is an id
    assert "[x](#ref-for-multipart%2Fform-data)" in text  # the id as written wins
    assert "\ufffd" not in text


def test_toc_target_with_percent_resolves_as_written_then_decoded():
    sections = [
        Section("sec-%abstractfoo%", None, 0, 0, "clause", "1", "Foo", "", "a.html"),
        Section("ℝ", None, 1, 0, "clause", "2", "Reals", "", "a.html"),
    ]
    toc = [TocNode("Foo", "1", "sec-%abstractfoo%"), TocNode("Reals", "2", "%E2%84%9D")]
    resolved = resolve_toc_starts(toc, sections)
    assert [(n.target_id, n.start) for n in resolved] == [("sec-%abstractfoo%", 0), ("ℝ", 1)]


def test_decode_non_ascii_undoes_only_lxml_escapes():
    assert decode_non_ascii("%E2%84%9D-%F0%9D%94%BD") == "ℝ-𝔽"
    assert decode_non_ascii("sec-%abstractfoo%-x") == "sec-%abstractfoo%-x"
    assert decode_non_ascii("a%2Fb%20c") == "a%2Fb%20c"
