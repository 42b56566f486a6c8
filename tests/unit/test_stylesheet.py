"""Words a page's own stylesheet lays out in separate boxes stay separate words
(:mod:`specbrowser.formats.stylesheet`), one test per rule, on hand-written HTML."""

from __future__ import annotations

from lxml import etree
from lxml.cssselect import CSSSelector

from specbrowser.chunking.pipeline import chunk_spec
from specbrowser.chunking.rules import HTML_RULES
from specbrowser.formats import load_spec, policy_for
from specbrowser.formats.stylesheet import box_selector, find_boxes, separate_boxes
from tests.unit.test_plain import write_plain

SUPPORT_STYLE = """<style>
/* a comment { display: block } */
.support > span { padding: 0; display: block; display: table; }
.support > span > span { display: table-cell; }
.support > span::before { display: table-cell; content: ''; }
.support:hover { display: block; }
@media (prefers-color-scheme: dark) { .gone { color: red; } }
.hidden { display: none; }
</style>"""

SUPPORT = (
    '<div class="support"><span class="firefox"><span>Firefox</span><span>60+</span></span>'
    '<span class="ie"><span>IE</span><span>None</span></span></div>'
)


def text_after(html: str) -> str:
    root = etree.fromstring(f"<html><head>{SUPPORT_STYLE}</head><body>{html}</body></html>",
                            etree.HTMLParser())  # fmt: skip
    separate_boxes(root)
    body = root.find("body")
    assert body is not None
    return etree.tostring(body, method="text", encoding="unicode")


def test_table_rows_and_cells_of_the_stylesheet_read_as_separate_words():
    assert text_after(SUPPORT) == "Firefox 60+ IE None"


def test_boxes_already_apart_and_inline_elements_are_left_as_they_are():
    spaced = '<div class="support"><span>\n<span>Firefox</span> <span>60+</span></span></div>'
    assert text_after(spaced) == "\nFirefox 60+"
    assert text_after("<p><span>Fire</span><span>fox</span></p>") == "Firefox"


def test_display_none_hides_nothing_and_pseudo_elements_match_nothing():
    assert text_after('<p>a<span class="hidden">b</span>c</p>') == "abc"


def test_whitespace_is_never_added_inside_pre():
    code = f"<pre>{SUPPORT}</pre>"
    assert text_after(code) == "Firefox60+IENone"


def test_a_support_panel_of_a_plain_page_reads_browser_and_version_apart(tmp_path):
    body = f"{SUPPORT_STYLE}<h2 id='a'>A</h2><details><summary>MDN</summary>{SUPPORT}</details>"
    parsed = load_spec(write_plain(tmp_path, body))
    (chunk,) = chunk_spec(parsed, policy_for(parsed.document.kind), rules=HTML_RULES).chunks[-1:]
    assert "Firefox 60+ IE None" in chunk.text


MATCHING = """<html><head></head><body>
<div id="a" class="row  wide"><em>x</em><span class="cell">1</span><span class="cell x">2</span>
  <p><em class="cell">deep</em></p></div>
<div class="rowish"><em>y</em><b title="t">b</b><i>i</i><span class="cell">3</span></div>
<section><span class="row">r</span></section></body></html>"""

SELECTORS = [
    "#a > em",
    "#a em",
    ".row > .cell",
    ".row .cell",
    ".cell.x",
    "em + span",
    "em ~ span",
    "b + i",
    "div",
    "*",
    "[title]",
    "span:first-child",
    "span:not(.x)",
    "section > .row",
    "div > :nth-child(2)",
    "p em.cell",
]


def test_boxes_found_in_one_walk_are_the_elements_each_selector_selects():
    root = etree.fromstring(MATCHING, etree.HTMLParser())
    for css in SELECTORS:
        selector = box_selector(css)
        assert selector is not None, css
        expected = [el for el in CSSSelector(css)(root) if isinstance(el.tag, str)]
        assert find_boxes(root, [selector]) == expected, css
    everything = [s for css in SELECTORS if (s := box_selector(css)) is not None]
    union = {el for css in SELECTORS for el in CSSSelector(css)(root)}
    found = find_boxes(root, everything)
    assert set(found) == union and len(found) == len(union)
    assert found == [el for el in root.iter() if el in union]  # document order
