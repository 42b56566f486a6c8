"""The spec format registry: detection, the order formats are tried in, kinds and defaults.

Each test writes a small HTML page by hand and checks one rule of :mod:`specbrowser.formats`.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from specbrowser.chunking.markdown_config import MarkdownConfig
from specbrowser.chunking.pipeline import chunk_spec
from specbrowser.chunking.policy import ChunkPolicy
from specbrowser.chunking.rules import HTML_RULES
from specbrowser.errors import SpecInputError, SpecParseError
from specbrowser.formats import (
    DEFAULT_FORMAT,
    FORMATS,
    check_spec_inputs,
    detect,
    ecmarkup,
    format_for_kind,
    headings,
    load_spec,
    policy_for,
    resolve_inputs,
    section_kind_label,
)
from specbrowser.formats.base import SpecFormat
from tests.helpers import ECMA262

RENDERED_CLAUSE = (
    "<!doctype html><html><head><title>T</title></head><body><div id='spec-container'>"
    "<emu-clause id='sec-a'><h1><span class='secnum'>1</span> A</h1><p>x</p></emu-clause>"
    "</div></body></html>"
)
SOURCE_CLAUSE = "<!doctype html><emu-clause id='sec-a'><h1>A</h1><p>x</p></emu-clause>"
PLAIN = "<!doctype html><html><body><h2 id='one'>One</h2><p>x</p></body></html>"


def page(tmp_path: Path, html: str, name: str = "spec.html") -> Path:
    path = tmp_path / name
    path.write_text(html, encoding="utf-8")
    return path


def test_every_format_satisfies_the_protocol_and_kinds_are_unique():
    kinds = [kind for f in FORMATS for kind in f.kinds]
    assert len(kinds) == len(set(kinds))
    assert len({f.name for f in FORMATS}) == len(FORMATS)
    for spec_format in FORMATS:
        assert isinstance(spec_format, SpecFormat)  # every member present
        assert isinstance(spec_format.markdown_config, MarkdownConfig)
        ChunkPolicy(breakdown_tags=spec_format.breakdown_tags)  # valid tags


def test_rendered_page_with_a_clause_is_ecmarkup_rendered(tmp_path):
    path = page(tmp_path, RENDERED_CLAUSE)
    assert detect(path) is ecmarkup.FORMAT
    assert load_spec(path).document.kind == "ecmarkup-rendered"


def test_page_without_spec_container_or_grammar_is_ecmarkup_source(tmp_path):
    assert load_spec(page(tmp_path, SOURCE_CLAUSE)).document.kind == "ecmarkup-source"


def test_several_rendered_pages_are_ecmarkup_multipage(tmp_path):
    first = page(tmp_path, RENDERED_CLAUSE, "a.html")
    second = page(tmp_path, RENDERED_CLAUSE.replace("sec-a", "sec-b"), "b.html")
    assert load_spec([first, second]).document.kind == "ecmarkup-multipage"


def test_clause_without_an_id_does_not_make_ecmarkup(tmp_path):
    html = "<!doctype html><body><emu-clause><p>x</p></emu-clause><h2 id='b'>B</h2></body>"
    path = page(tmp_path, html)
    assert detect(path) is headings.FORMAT
    assert load_spec(path).document.kind == "html-headings"


def test_plain_headings_page_is_html_headings(tmp_path):
    path = page(tmp_path, PLAIN)
    assert detect(path) is headings.FORMAT
    parsed = load_spec(path)
    assert parsed.document.kind == "html-headings"
    assert [s.id for s in parsed.sections] == ["one"]


def test_ecmarkup_is_tried_before_headings(tmp_path):
    html = RENDERED_CLAUSE.replace("<p>x</p>", "<h2 id='h'>Heading</h2><p>x</p>")
    assert [s.id for s in load_spec(page(tmp_path, html)).sections] == ["sec-a"]
    assert FORMATS.index(ecmarkup.FORMAT) < FORMATS.index(headings.FORMAT)


def test_source_import_is_claimed_and_expanded(tmp_path):
    page(
        tmp_path,
        "<emu-clause id='sec-imported'><h1>Imported</h1><p>x</p></emu-clause>",
        "part.html",
    )
    path = page(tmp_path, "<!doctype html><emu-import href='part.html'></emu-import>")
    assert detect(path) is ecmarkup.FORMAT
    parsed = load_spec(path)
    assert parsed.document.kind == "ecmarkup-source"
    assert [s.id for s in parsed.sections] == ["sec-imported"]


def test_source_title_is_the_metadata_title_with_its_markup_read_as_text(tmp_path):
    """ecmarkup's source names the spec in ``pre.metadata``; its ``<sup>&reg;</sup>`` and
    ``&nbsp;`` read as the rendered spec's ``<title>`` does, not cut at the first tag."""
    path = page(
        tmp_path,
        "<!doctype html><pre class=metadata>\n  title: ECMAScript<sup>&reg;</sup> 2026 "
        "Language&nbsp;Specification\n  shortname: ECMA-262\n</pre>" + SOURCE_CLAUSE[15:],
    )
    assert load_spec(path).document.title == "ECMAScript® 2026 Language Specification"


@pytest.mark.real
def test_ecma262_source_folder_is_titled_as_the_rendered_spec():
    from specbrowser.formats.html import document_title, read_html

    if not (ECMA262 / "source" / "spec.html").is_file():
        pytest.skip("ECMA-262 absent")
    titles = [
        document_title(read_html(path)[0])
        for path in (ECMA262 / "source" / "spec.html", ECMA262 / "index.html")
    ]
    assert titles[0] == titles[1] == "ECMAScript® 2026 Language Specification"


def test_no_format_finds_sections_names_every_format(tmp_path):
    path = page(tmp_path, "<!doctype html><html><body><p>only text</p></body></html>")
    with pytest.raises(SpecParseError) as raised:
        detect(path)
    message = str(raised.value)
    assert all(f.section_description in message for f in FORMATS)
    with pytest.raises(SpecParseError, match="no sections"):
        load_spec(path)


def test_headings_only_in_a_toc_find_no_sections(tmp_path):
    html = "<!doctype html><body><nav id='toc'><h2>Contents</h2><ol><li>x</li></ol></nav></body>"
    path = page(tmp_path, html)
    assert detect(path) is headings.FORMAT  # it claims the page, its parse finds nothing
    with pytest.raises(SpecParseError, match="no sections"):
        load_spec(path)


def test_source_folder_means_its_entry_file(tmp_path):
    page(tmp_path, SOURCE_CLAUSE)
    page(tmp_path, "<p>part</p>", "other.html")
    assert resolve_inputs([tmp_path]) == [tmp_path / "spec.html"]


def test_rendered_folder_means_all_its_pages_by_name(tmp_path):
    page(tmp_path, RENDERED_CLAUSE, "b.html")
    page(tmp_path, RENDERED_CLAUSE, "a.html")
    assert [p.name for p in resolve_inputs([tmp_path])] == ["a.html", "b.html"]


def test_check_spec_inputs_refuses_a_file_that_is_not_html(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("just words, no markup", encoding="utf-8")
    with pytest.raises(SpecInputError, match="not HTML"):
        check_spec_inputs([path])


def test_format_for_kind_maps_every_kind_and_defaults_to_ecmarkup():
    for spec_format in FORMATS:
        for kind in spec_format.kinds:
            assert format_for_kind(kind) is spec_format
    assert format_for_kind(None) is DEFAULT_FORMAT is ecmarkup.FORMAT
    assert format_for_kind("no-such-kind") is DEFAULT_FORMAT


def test_default_format_defaults_are_the_policy_defaults():
    """``ChunkPolicy()`` is the default format's policy: stored policy versions hash it."""
    assert policy_for(None).version == ChunkPolicy().version
    assert policy_for("html-headings").breakdown_tags == headings.BREAKDOWN_TAGS
    assert policy_for("html-headings", tags="td,p").breakdown_tags == ("td", "p")


def test_section_kind_label_names_the_element_or_keeps_the_kind():
    assert section_kind_label("clause") == "emu-clause"
    assert section_kind_label("annex") == "emu-annex"
    assert section_kind_label("heading") == "heading"


def test_chunking_imports_no_format_and_no_outer_layer():
    """Formats may import chunking types, never the reverse; chunking knows no store or UI."""
    code = (
        "import sys, specbrowser.chunking.pipeline, specbrowser.chunking.rules;"
        "print([m for m in sys.modules if m.startswith(('specbrowser.formats', "
        "'specbrowser.store', 'specbrowser.session', 'specbrowser.search', 'specbrowser.cli', "
        "'specbrowser.tui', 'textual', 'rich'))])"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_a_page_opening_with_a_custom_element_looks_like_html(tmp_path):
    path = page(tmp_path, "<emu-clause id='a'><h1>A</h1></emu-clause>", "part.html")
    assert check_spec_inputs([path]) == [path]


def test_source_folder_of_emu_files_means_its_spec_emu(tmp_path):
    page(tmp_path, SOURCE_CLAUSE, "spec.emu")
    page(tmp_path, "<p>part</p>", "part.emu")
    assert resolve_inputs([tmp_path]) == [tmp_path / "spec.emu"]
    assert load_spec([tmp_path]).document.kind == "ecmarkup-source"


def test_folder_without_html_or_source_entry_is_refused(tmp_path):
    (tmp_path / "notes.txt").write_text("nothing")
    with pytest.raises(SpecInputError, match=r"folder without \.html files"):
        resolve_inputs([tmp_path])


def test_an_ecmarkup_page_without_clauses_is_one_front_matter_section(tmp_path):
    html = (
        "<!doctype html><html><body><div id='spec-container'><p>Intro of a fragment.</p>"
        "<emu-alg><ol><li>Let <var>x</var> be 1.</li><li>Return <var>x</var>.</li></ol>"
        "</emu-alg></div></body></html>"
    )
    parsed = load_spec(page(tmp_path, html))
    assert parsed.document.kind == ecmarkup.RENDERED
    (section,) = parsed.sections
    assert section.kind == headings.FRONT_MATTER_KIND
    (chunk,) = chunk_spec(parsed, ChunkPolicy(), rules=ecmarkup.CHUNKING_RULES).chunks
    assert chunk.text.endswith("Intro of a fragment.\n\n1. Let `x` be 1.\n2. Return `x`.")


def test_a_page_with_headings_and_an_ecmarkup_element_is_read_by_its_headings(tmp_path):
    html = (
        "<!doctype html><html><body><h2 id='a'>A</h2><p>Before.</p><emu-table id='t'>"
        "<figure><figcaption>Table 1: T</figcaption><table><thead><tr><th>k</th><th>v</th>"
        "</tr></thead><tbody><tr><td>a</td><td>1</td></tr></tbody></table></figure>"
        "</emu-table><p>After.</p></body></html>"
    )
    parsed = load_spec(page(tmp_path, html))
    assert parsed.document.kind == headings.KIND and [s.id for s in parsed.sections] == ["a"]
    (chunk,) = chunk_spec(parsed, ChunkPolicy(), rules=HTML_RULES).chunks
    assert "Before.\n\nTable 1: T\n\n| k | v |\n|---|---|\n| a | 1 |\n\nAfter." in chunk.text
