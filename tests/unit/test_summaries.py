"""Extractive summaries (:mod:`specbrowser.chunking.summaries`), one rule per test, on small
hand-written Markdown."""

from __future__ import annotations

from specbrowser.chunking.enrich import section_summary_of
from specbrowser.chunking.pipeline import chunk_spec
from specbrowser.chunking.summaries import (
    SECTION_SUMMARY_CHARS,
    is_orphan,
    lead,
    plain_text,
    section_summaries,
    summary_packet,
)
from specbrowser.formats import format_for_kind, load_spec, policy_for
from specbrowser.model import Section
from tests.helpers import SAMPLE


def _section(sid: str, title: str, parent: str | None = None, secnum: str = "") -> Section:
    return Section(
        id=sid,
        parent_id=parent,
        depth=0 if parent is None else 1,
        ordinal=0,
        kind="heading",
        secnum=secnum,
        title=title,
        html="",
        source_file="spec.html",
    )


def test_plain_text_keeps_the_words_a_reader_sees() -> None:
    text = "See [ToNumber](#sec-tonumber) and `argument`, **bold** \\*star\\* [[Get]]."
    assert plain_text(text) == "See ToNumber and argument, bold *star* [[Get]]."


def test_plain_text_reads_each_kind_of_markup_alone_and_plain_text_as_it_is() -> None:
    assert plain_text("a [link](#x) b") == "a link b"
    assert plain_text("a `code` b") == "a code b"
    assert plain_text("a *em* __strong__ ~~del~~ ++ins++ b") == "a em strong del ins b"
    assert plain_text("a [ref] b") == "a ref b"
    assert plain_text("a \\_ b") == "a _ b"
    assert plain_text("  plain   words\nonly ") == "plain words only"


def test_plain_text_keeps_a_bracketed_reference_link_as_the_reader_sees_it() -> None:
    # Bikeshed's biblio references: the link text holds brackets, the target is an anchor
    text = "This specification depends on the Infra Standard. [[INFRA]](#biblio-infra)"
    assert plain_text(text) == "This specification depends on the Infra Standard. [INFRA]"
    assert plain_text("[a [b] c](#x) and [d](#y)") == "a b c and d"


def test_plain_text_reads_an_image_and_a_linked_image_as_nothing() -> None:
    # a logo linked to its site, as WHATWG standards open; Bikeshed's tracking-vector icon
    text = "[![WHATWG](https://example.org/logo.svg)](https://example.org/) Living Standard"
    assert plain_text(text) == "Living Standard"
    icon = "[![(This is a tracking vector.)](tv.svg)](https://example.org/#tv) To *resolve* it"
    assert plain_text(icon) == "To resolve it"
    assert plain_text("a ![chart](c.png) b") == "a b"


def test_a_section_summary_holds_no_link_target() -> None:
    markdown = (
        "# 2 Infrastructure\n\nThis spec depends on the Base Standard. [[BASE]](#biblio-base)"
    )
    assert lead(markdown) == "This spec depends on the Base Standard. [BASE]"


def test_lead_is_the_first_sentence_of_the_first_prose_block() -> None:
    markdown = (
        "# 7.1 ToNumber\n\n[Subsection available at sectionid: `x`]\n\n"
        "```js\ncode();\n```\n\n1. Let a be 1.\n\n"
        "The abstract operation converts any value of the language to a Number. It is used "
        "widely.\n\nMore text."
    )
    assert (
        lead(markdown) == "The abstract operation converts any value of the language to a Number."
    )


def test_a_short_first_sentence_takes_the_next() -> None:
    assert lead("It is short. The second sentence says more.\n") == (
        "It is short. The second sentence says more."
    )


def test_an_announcing_sentence_is_skipped() -> None:
    assert lead("This method performs the following steps when called:\n\n1. Return 1.") == ""
    assert lead("It returns a String. It performs the following steps when called:") == (
        "It returns a String."
    )


def test_a_long_sentence_is_cut_at_a_word() -> None:
    summary = lead("word " * 200 + ".")
    assert len(summary) <= SECTION_SUMMARY_CHARS and summary.endswith("…")
    assert " wor…" not in summary


def test_notes_tables_and_images_are_not_prose() -> None:
    markdown = "> **Note**\n>\n> A note.\n\n| a | b |\n|---|---|\n\n![logo](x.png)\n"
    assert lead(markdown) == ""


def test_a_list_ends_the_paragraph_it_follows_and_its_own_paragraphs_are_not_prose() -> None:
    markdown = (
        "There are two kinds of code, seen as follows in each program text\n"
        "- *Global code* is text of a Script.\n"
        "- *Eval code* is text given to eval.\n\n"
        "  In addition, the text referred to above is parsed in the list item.\n\n"
        "A program holds one or more kinds of code."
    )
    assert lead(markdown) == "There are two kinds of code, seen as follows in each program text"
    assert lead(markdown.replace("seen as follows in each program text", "as follows:")) == (
        "A program holds one or more kinds of code."
    )  # the announcing sentence skipped, and nothing of the list


def test_a_fenced_block_is_not_prose_even_across_blank_lines() -> None:
    markdown = (
        "```webidl\n[Exposed=Window]\n\ninterface Thing {\n  readonly attribute long size;\n};\n"
        "```\n\nA Thing object has an associated size, a number of bytes."
    )
    assert lead(markdown) == "A Thing object has an associated size, a number of bytes."


def test_a_section_has_one_summary_under_every_policy(tmp_path) -> None:
    """A section whose list items are extracted reassembles with other blank lines inside the
    list; its summary is still that of its Markdown before the breakdown."""
    items = "".join(
        f"<li><p>Item {n} names one kind of thing the section lists, with words enough "
        f"to be worth a chunk.</p><p>A paragraph of item {n} goes on about it.</p></li>"
        for n in range(12)
    )
    body = (
        "<h2 id='kinds'>Kinds</h2><p>There are twelve kinds, listed below:</p>"
        f"<ul>{items}</ul><p>Each kind is named once in a program.</p>"
    )
    path = tmp_path / "kinds.html"
    path.write_text(f"<!doctype html><title>Kinds</title><body>{body}</body>", encoding="utf-8")
    summaries = set()
    for threshold, tags in ((5000, None), (400, "li"), (300, "p"), (200, "ul,li,p")):
        parsed = load_spec(path)
        policy = policy_for(parsed.document.kind, threshold, tags)
        result = chunk_spec(
            parsed, policy, rules=format_for_kind(parsed.document.kind).chunking_rules
        )
        by_id = {chunk.id: chunk for chunk in result.chunks}
        made = result.summaries.get("kinds", section_summary_of("kinds", by_id))
        assert made == section_summary_of("kinds", by_id)
        summaries.add(made)
    assert summaries == {"Each kind is named once in a program."}


def test_orphans_are_tocs_indexes_and_back_matter() -> None:
    for title in (
        "Table of Contents",
        "Index",
        "B Bibliography",
        "Colophon",
        "Copyright & Software License",
        "Acknowledgments",
        "References",
    ):
        assert is_orphan(_section("x", title)), title
    assert is_orphan(_section("idx_orphans", "Anything"))
    assert not is_orphan(_section("s", "Scope"))


def test_orphans_have_no_summary_and_are_no_source() -> None:
    sections = [
        _section("abs", "Abstract"),
        _section("intro", "Introduction"),
        _section("index", "Index"),
    ]
    roots = {
        "abs": "This specification defines widgets for the web.",
        "intro": "Widgets are old. They were made in 1990 by a guild of makers.",
        "index": "Everything is listed here in order, one term after the other.",
    }
    summaries = section_summaries(sections, roots)
    assert "index" not in summaries
    packet = summary_packet(sections, roots, summaries)
    assert packet.global_synopsis == "This specification defines widgets for the web."
    assert packet.overview_summary.startswith("Widgets are old.")
    assert [t for t, _s in packet.section_guide] == ["Abstract", "Introduction"]


def test_the_document_summary_prefers_abstract_then_scope() -> None:
    sections = [_section("a", "1 Intro stuff"), _section("s", "2 Scope")]
    roots = {"a": "First words of the first section here.", "s": "This standard defines X."}
    packet = summary_packet(sections, roots, section_summaries(sections, roots))
    assert packet.global_synopsis == "This standard defines X."


def test_the_overview_is_the_specs_own_not_a_chapters_and_skips_the_informative_note() -> None:
    """From a new user's trial: RFC 9110's overview came from "9.1 Overview" (of its methods),
    not its introduction; WebAuthn's opened with "This section is not normative."."""
    sections = [
        _section("intro", "1 Introduction"),
        _section("methods", "9 Methods"),
        _section("m-overview", "9.1 Overview", parent="methods", secnum="9.1"),
    ]
    roots = {
        "intro": "This section is not normative. HTTP is a protocol. It moves bytes.",
        "methods": "Methods are verbs of requests.",
        "m-overview": "The request method token is the primary source of request semantics.",
    }
    packet = summary_packet(sections, roots, section_summaries(sections, roots))
    assert packet.overview_summary == "HTTP is a protocol. It moves bytes."


def test_table_captions_make_the_table_lens() -> None:
    sections = [_section("t", "Types")]
    roots = {"t": "Types are listed.\n\nTable 3: [Attributes](#x) of a property\n\n| a |\n|---|\n"}
    packet = summary_packet(sections, roots, section_summaries(sections, roots))
    assert packet.tables == ("Table 3: Attributes of a property",)
    assert packet.lenses()["table_summary"] == ["Table 3: Attributes of a property"]


def test_summaries_made_beside_the_breakdown_are_those_of_the_whole_set() -> None:
    """Each section's summary, computed in the process that broke the section down from its
    own chunks, is what :func:`section_summary_of` reads from the whole set."""
    parsed = load_spec(SAMPLE)
    policy = policy_for(parsed.document.kind)
    rules = format_for_kind(parsed.document.kind).chunking_rules
    result = chunk_spec(parsed, policy, rules=rules)
    by_id = {chunk.id: chunk for chunk in result.chunks}
    roots = [chunk.id for chunk in result.chunks if chunk.parent_id is None]
    assert sorted(result.summaries) == sorted(roots)
    assert any(result.summaries.values())
    assert all(result.summaries[root] == section_summary_of(root, by_id) for root in roots)
