"""Parsing rules: inputs, encodings, section tree fields, own content, kinds, bad input."""

from __future__ import annotations

import codecs

import pytest

from specbrowser.errors import SpecInputError, SpecParseError
from specbrowser.formats import _read_pages, load_spec
from specbrowser.formats.html import detect_encoding
from tests.helpers import SAMPLE, SAMPLE_MULTIPAGE, write_spec


def test_section_fields_secnum_apart_from_title_inline_code_kept(tmp_path):
    spec = write_spec(
        tmp_path,
        '<emu-clause id="sec-tonum"><h1><span class="secnum">7.1.4</span> '
        "ToNumber ( <var>argument</var> )</h1><p>x</p></emu-clause>",
    )
    (section,) = load_spec(spec).sections
    assert (section.id, section.secnum, section.title) == (
        "sec-tonum",
        "7.1.4",
        "ToNumber ( argument )",
    )
    assert section.display_title == "7.1.4 ToNumber ( argument )"
    assert (section.kind, section.parent_id, section.depth, section.ordinal) == (
        "clause",
        None,
        0,
        0,
    )
    assert section.source_file == "spec.html"


def test_parent_depth_and_document_order(tmp_path):
    spec = write_spec(
        tmp_path,
        '<emu-intro id="i"><h1>I</h1></emu-intro>'
        '<emu-clause id="a"><h1>A</h1><emu-clause id="a1"><h1>A1</h1>'
        '<emu-clause id="a1x"><h1>X</h1></emu-clause></emu-clause></emu-clause>'
        '<emu-annex id="z"><h1>Z</h1></emu-annex>',
    )
    sections = load_spec(spec).sections
    assert [(s.id, s.parent_id, s.depth, s.ordinal, s.kind) for s in sections] == [
        ("i", None, 0, 0, "intro"),
        ("a", None, 0, 1, "clause"),
        ("a1", "a", 1, 2, "clause"),
        ("a1x", "a1", 2, 3, "clause"),
        ("z", None, 0, 4, "annex"),
    ]


def test_section_without_id_is_content_of_its_parent(tmp_path):
    spec = write_spec(
        tmp_path,
        '<emu-clause id="a"><h1>A</h1><emu-clause><h1>Anon</h1><p>ANONWORD</p>'
        '<emu-clause id="deep"><h1>Deep</h1></emu-clause></emu-clause></emu-clause>',
    )
    parsed = load_spec(spec)
    assert [(s.id, s.parent_id) for s in parsed.sections] == [("a", None), ("deep", "a")]
    assert "ANONWORD" in parsed.sections[0].html


def test_own_html_replaces_child_sections_with_placeholders(tmp_path):
    spec = write_spec(
        tmp_path,
        '<emu-clause id="a"><h1>A</h1><p>before</p><emu-clause id="b">'
        '<h1><span class="secnum">1.1</span> B</h1><p>CHILD</p></emu-clause>'
        "<p>after</p></emu-clause>",
    )
    parent = load_spec(spec).sections[0]
    assert "CHILD" not in parent.html
    assert 'data-id="b"' in parent.html and 'data-title="1.1 B"' in parent.html
    assert (
        parent.html.index("before") < parent.html.index('data-id="b"') < parent.html.index("after")
    )


def test_encoding_from_bom_meta_or_default():
    assert detect_encoding(codecs.BOM_UTF8 + b"<html>") == "utf-8"
    assert detect_encoding(b'<meta charset="iso-8859-1"><p>') == "iso8859-1"
    assert detect_encoding(b"<html><p>plain") == "utf-8"
    assert detect_encoding(b'<meta charset="no-such-codec">') == "utf-8"


def test_latin1_spec_decodes(tmp_path):
    path = tmp_path / "latin.html"
    path.write_bytes(
        '<html><head><meta charset="iso-8859-1"></head><body><emu-clause id="a">'
        "<h1>Caf\xe9</h1></emu-clause></body></html>".encode("latin-1")
    )
    assert load_spec(path).sections[0].title == "Café"


def test_deep_trees_parse(tmp_path):
    body = "<div>" * 400 + "deep" + "</div>" * 400
    spec = write_spec(tmp_path, f'<emu-clause id="a"><h1>A</h1>{body}</emu-clause>')
    assert "deep" in load_spec(spec).sections[0].html


def test_detects_rendered_and_source(tmp_path):
    rendered = write_spec(tmp_path, '<emu-clause id="a"><h1>A</h1></emu-clause>')
    assert load_spec(rendered).document.kind == "ecmarkup-rendered"
    source_dir = tmp_path / "src"
    source_dir.mkdir()
    (source_dir / "spec.html").write_text(
        '<!DOCTYPE html>\n<meta charset="utf-8">\n<pre class=metadata>\ntitle: Toy Source\n</pre>\n'
        '<emu-clause id="a">\n<h1>A</h1>\n<emu-alg>\n  1. Let _x_ be 1.\n</emu-alg>\n'
        '<emu-import href="table.html"></emu-import>\n</emu-clause>\n'
    )
    (source_dir / "table.html").write_text(
        '<emu-table id="t" caption="Imported"><table><tr><td>IMPORTED</td></tr></table></emu-table>'
    )
    parsed = load_spec(source_dir)
    assert parsed.document.kind == "ecmarkup-source"
    assert parsed.document.title == "Toy Source"
    assert parsed.document.source_paths == [str(source_dir / "spec.html")]
    front, clause = parsed.sections
    assert "IMPORTED" in clause.html and clause.ordinal == 1
    assert front.kind == "front-matter" and "title: Toy Source" in front.html  # the metadata


@pytest.mark.skipif(not SAMPLE.exists(), reason="sample spec missing")
def test_multipage_and_single_page_give_the_same_sections():
    single = load_spec(SAMPLE)
    multi = load_spec(SAMPLE_MULTIPAGE)
    assert multi.document.kind == "ecmarkup-multipage"
    key = [(s.id, s.title, s.secnum, s.parent_id, s.ordinal) for s in single.sections]
    assert key == [(s.id, s.title, s.secnum, s.parent_id, s.ordinal) for s in multi.sections]


def _menu_page(path, name, names, clause):
    """A multipage page: the TOC menu linking ``names`` in that order, then one clause."""
    links = "".join(
        f'<li><a href="{n}#sec-{n[:-5]}" title="{n[:-5]}">{n[:-5]}</a></li>' for n in names
    )
    path.joinpath(name).write_text(
        f'<html><body><div id="menu"><div id="menu-toc"><ol class="toc">{links}</ol></div></div>'
        f'<div id="spec-container">{clause}</div></body></html>'
    )


def test_multipage_menus_are_read_once_and_order_and_toc_are_kept(tmp_path):
    names = ["index.html", "b.html", "a.html"]  # document order: not the file names' order
    for n in names:
        _menu_page(
            tmp_path,
            n,
            names,
            f'<emu-clause id="sec-{n[:-5]}"><h1>{n[:-5]}</h1><p>text</p></emu-clause>',
        )
    pages = _read_pages(tmp_path)  # read in name order: a, b, index
    with_menu = [p.path.name for p in pages if p.root.xpath("//*[@id='menu-toc']")]
    assert with_menu == ["a.html", "index.html"]  # the first read, and the first in order
    parsed = load_spec(tmp_path)
    assert [s.id for s in parsed.sections] == ["sec-index", "sec-b", "sec-a"]
    assert [n.title for n in parsed.toc] == ["index", "b", "a"]


def test_a_single_page_keeps_its_menu(tmp_path):
    _menu_page(
        tmp_path, "index.html", ["index.html"], '<emu-clause id="sec-x"><h1>X</h1></emu-clause>'
    )
    (page,) = _read_pages(tmp_path / "index.html")
    assert page.root.xpath("//*[@id='menu-toc']")


def test_missing_path(tmp_path):
    with pytest.raises(SpecInputError, match="does not exist"):
        load_spec(tmp_path / "nope.html")


def test_folder_without_html(tmp_path):
    (tmp_path / "notes.txt").write_text("hi")
    with pytest.raises(SpecInputError, match=r"without \.html"):
        load_spec(tmp_path)


def test_text_file_is_not_html(tmp_path):
    path = tmp_path / "readme.html"
    path.write_text("just some words, no tags at all\n" * 10)
    with pytest.raises(SpecInputError, match="is not HTML"):
        load_spec(path)


def test_text_quoting_tags_is_not_html(tmp_path):
    """A Markdown note that quotes a spec's tags is text, not that spec: an HTML document
    starts with markup."""
    path = tmp_path / "notes.md"
    path.write_text(
        "# Notes on the spec\n\nIt writes `<h2>` headings and "
        '`<link rel="canonical" href="https://base.example/std/">` in its head.\n'
    )
    with pytest.raises(SpecInputError, match=r"is not HTML \(it starts with '# Notes on the"):
        load_spec(path)


def test_a_page_may_start_with_a_byte_order_mark_and_whitespace(tmp_path):
    path = tmp_path / "page.html"
    path.write_bytes(b"\xef\xbb\xbf \n<!-- generated -->\n<h1 id='a'>A</h1><p>Text.</p>")
    assert [s.id for s in load_spec(path).sections] == ["a"]


@pytest.mark.parametrize("content", ["", "  \n\n"])
def test_an_empty_file_is_said_to_be_empty(tmp_path, content):
    path = tmp_path / "page.html"
    path.write_text(content)
    with pytest.raises(SpecInputError, match=r"page\.html is empty$"):
        load_spec(path)


def test_binary_file_is_not_html(tmp_path):
    path = tmp_path / "image.html"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00" + bytes(range(256)) * 4)
    with pytest.raises(SpecInputError, match="is not HTML"):
        load_spec(path)


def test_html_without_sections(tmp_path):
    path = tmp_path / "page.html"
    path.write_text("<html><body><p>no sections</p></body></html>")
    with pytest.raises(SpecParseError, match=r"no sections in .*nor h1-h6 headings"):
        load_spec(path)


def test_broken_html_is_recovered(tmp_path):
    spec = write_spec(
        tmp_path,
        '<emu-clause id="a"><h1>A</h1><p>unclosed <b>bold<table><tr><td>cell'
        "</emu-clause><emu-clause id='b'><h1>B</h1></emu-clause>",
    )
    assert [s.id for s in load_spec(spec).sections] == ["a", "b"]


def test_repeated_section_id_names_the_files(tmp_path):
    first = write_spec(tmp_path, '<emu-clause id="a"><h1>A</h1></emu-clause>', "one.html")
    second = write_spec(tmp_path, '<emu-clause id="a"><h1>A</h1></emu-clause>', "two.html")
    with pytest.raises(SpecParseError, match=r"'a' appears twice \(in one.html and two.html\)"):
        load_spec([first, second])


def test_the_same_file_named_twice_is_read_once(tmp_path):
    spec = write_spec(tmp_path, '<emu-clause id="a"><h1>A</h1></emu-clause>')
    assert [s.id for s in load_spec([spec, spec]).sections] == ["a"]


@pytest.mark.skipif(not SAMPLE.exists(), reason="sample spec missing")
def test_spec_sha256_matches_what_load_spec_stores_for_multipage():
    from specbrowser.formats import spec_sha256

    # pages are reordered by the TOC after hashing; the cache check must agree with the ingest
    assert spec_sha256([SAMPLE_MULTIPAGE]) == load_spec(SAMPLE_MULTIPAGE).document.sha256
    assert spec_sha256([SAMPLE]) == load_spec(SAMPLE).document.sha256
