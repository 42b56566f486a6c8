"""TOC sources: ecmarkup's menu (single page = multipage), nav#toc/ol.toc, and the external file."""

from __future__ import annotations

import json

import pytest
from lxml import etree

from specbrowser.errors import SpecInputError
from specbrowser.formats import load_spec
from specbrowser.formats.toc import extract_toc, load_toc_file
from specbrowser.model import TocNode
from tests.helpers import ECMA262, ROOT, SAMPLE, SAMPLE_MULTIPAGE


def root_of(html: str) -> etree._Element:
    return etree.fromstring(html, etree.HTMLParser())


def test_ecmarkup_menu_titles_numbers_targets_and_nesting():
    root = root_of(
        '<div id="menu-toc"><ol class="toc"><li><span class="item-toggle">+</span>'
        '<a href="#sec-a" title="Static Semantics: Alpha"><span class="secnum">1</span> SS: Alpha'
        "</a>"
        '<ol class="toc"><li><a href="other.html#sec-%E2%84%9D" title="Beta">'
        '<span class="secnum">1.1</span> Beta</a></li>'
        '</ol></li><li><a href="./#sec-intro" title="Intro">Intro</a></li></ol></div>'
    )
    assert extract_toc(root) == [
        TocNode(
            "Static Semantics: Alpha",
            "1",
            "sec-a",
            children=[TocNode("Beta", "1.1", "sec-%E2%84%9D")],
        ),
        TocNode("Intro", "", "sec-intro"),
    ]


def test_plain_nav_toc_with_secno_and_wrapper_items():
    root = root_of(
        '<nav id="toc"><h2>Table of Contents</h2><ol class="toc"><li><a href="#intro">'
        '<span class="secno">1.</span> <span class="content">Intro</span></a><ol class="toc">'
        '<li><a href="#s1"><span class="secno">1.1</span> Section One</a></li></ol></li>'
        '<li><ol><li><a href="#x">Wrapped</a></li></ol></li></ol></nav>'
    )
    assert extract_toc(root) == [
        TocNode("Intro", "1", "intro", children=[TocNode("Section One", "1.1", "s1")]),
        TocNode("", children=[TocNode("Wrapped", "", "x")]),
    ]


def test_no_toc_gives_an_empty_list():
    assert extract_toc(root_of("<body><h1>x</h1><ol><li>not a toc</li></ol></body>")) == []


@pytest.mark.skipif(not SAMPLE.exists(), reason="sample spec missing")
def test_sample_single_page_and_multipage_give_the_same_toc():
    single, multi = load_spec(SAMPLE).toc, load_spec(SAMPLE_MULTIPAGE).toc
    assert single and single == multi


@pytest.mark.real
@pytest.mark.skipif(not (ECMA262 / "index.html").exists(), reason="real specs not found")
def test_ecma262_single_page_and_multipage_give_the_same_toc():
    single = extract_toc(
        etree.parse(str(ECMA262 / "index.html"), etree.HTMLParser(huge_tree=True)).getroot()
    )
    multi = extract_toc(
        etree.parse(
            str(ECMA262 / "multipage" / "scope.html"), etree.HTMLParser(huge_tree=True)
        ).getroot()
    )

    def count(nodes):
        return sum(1 + count(n.children) for n in nodes)

    assert single == multi and count(single) == 2253


def test_external_toc_file(tmp_path):
    path = tmp_path / "toc.json"
    path.write_text(
        json.dumps(
            [
                {"title": "A", "start": 0, "children": [{"title": "A1", "start": 1, "end": 2}]},
                {"title": "", "children": [{"title": "B", "start": 3}]},
            ]
        )
    )
    assert load_toc_file(path) == [
        TocNode("A", start=0, children=[TocNode("A1", start=1, end=2)]),
        TocNode("", children=[TocNode("B", start=3)]),
    ]


@pytest.mark.parametrize(
    "content, message",
    [
        ("{not json", "is not JSON"),
        ('{"title": "x"}', "must be a list"),
        ('[{"start": 1}]', 'entry [0] needs a string "title"'),
        ('[{"title": "a", "children": [{"title": "b", "start": -1}]}]', "start of [0].children[0]"),
        ('[{"title": "a", "start": 5, "end": 2}]', "end of [0] is before its start"),
    ],
)
def test_external_toc_file_errors_name_the_entry(tmp_path, content, message):
    path = tmp_path / "toc.json"
    path.write_text(content)
    with pytest.raises(SpecInputError, match=message.replace("[", r"\[").replace("]", r"\]")):
        load_toc_file(path)


def test_schema_is_valid_json_and_describes_the_format():
    schema = json.loads((ROOT / "schemas" / "toc.schema.json").read_text())
    entry = schema["$defs"]["entry"]
    assert entry["required"] == ["title"]
    assert set(entry["properties"]) == {"title", "secnum", "start", "end", "children"}


def test_xml2rfc_entry_with_number_and_title_linked_apart():
    root = root_of(
        '<div id="toc"><nav class="toc"><ul class="toc"><li><p>'
        '<a href="#section-1" class="xref">1</a>.  <a href="#name-intro" class="xref">Intro</a>'
        '</p><ul class="toc"><li><p><a href="#section-1.1">1.1</a>.  <a href="#name-p">Purpose</a>'
        '</p></li></ul></li><li><p><a href="#appendix-A">Appendix A</a>.  '
        '<a href="#name-abnf">Collected ABNF</a></p></li><li><p><a href="#appendix-D"></a>'
        '<a href="#name-ack">Acknowledgements</a></p></li></ul></nav></div>'
    )
    assert extract_toc(root) == [
        TocNode("Intro", "1", "section-1", children=[TocNode("Purpose", "1.1", "section-1.1")]),
        TocNode("Collected ABNF", "Appendix A", "appendix-A"),
        TocNode("Acknowledgements", "", "appendix-D"),
    ]


def test_an_edited_entry_writes_out_ecmarkups_abbreviated_prefix():
    root = etree.fromstring(
        '<div id="menu-toc"><ol class="toc"><li><a href="#sec-w" title="Static Semantics: W">'
        '<span class="secnum">16.2.2.2</span> <ins>SS: W</ins></a></li><li><a href="#sec-r">'
        '<span class="secnum">1</span> <del>Old</del>RS: Evaluation</a></li></ol></div>',
        etree.HTMLParser(),
    )
    assert [e.title for e in extract_toc(root)] == [
        "Static Semantics: W",
        "Runtime Semantics: Evaluation",
    ]
