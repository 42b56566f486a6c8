"""ecmarkup source reads as ecmarkup renders it: structured headers, clause headings inside a
proposal's edits, subscripts in plain-text algorithms, code in headings. On the real sources,
the same section titles as their rendered single pages: ``test_real_matrix``."""

from __future__ import annotations

from pathlib import Path

import pytest

from specbrowser.chunking.pipeline import chunk_spec
from specbrowser.chunking.policy import ChunkPolicy
from specbrowser.formats import load_spec
from specbrowser.formats.ecmarkup import CHUNKING_RULES
from specbrowser.formats.ecmarkup_headers import parse_header
from specbrowser.formats.symbols import spec_symbols
from tests.helpers import assert_lossless, write_spec

TO_WIDGET = """
<emu-clause id="sec-towidget" type="abstract operation">
  <h1>
    ToWidget (
      _argument_: a Widget,
      optional _hint_: a String,
    ): either a normal completion containing a Gadget or a throw completion
  </h1>
  <dl class="header">
    <dt>description</dt>
    <dd>It turns _argument_ into a Gadget.</dd>
    <dt>skip return checks</dt>
    <dd>true</dd>
  </dl>
  <emu-alg>
    1. If _argument_ is *null*, return *+0*<sub>𝔽</sub>.
    1. Return 2<sup>_n_ - 1</sup>.
  </emu-alg>
</emu-clause>
"""


def source_spec(tmp_path: Path, body: str):
    """``body`` as the ``spec.emu`` of a source folder, parsed, and its chunks by id."""
    (tmp_path / "spec.emu").write_text(f"<!doctype html><meta charset='utf-8'>{body}")
    parsed = load_spec(tmp_path)
    assert parsed.document.kind == "ecmarkup-source"
    chunks = chunk_spec(parsed, ChunkPolicy(), rules=CHUNKING_RULES).chunks
    return parsed, {c.id: c for c in chunks}


def test_a_structured_header_reads_as_its_rendered_heading_and_paragraph(tmp_path):
    parsed, chunks = source_spec(tmp_path, TO_WIDGET)
    (section,) = [s for s in parsed.sections if s.id == "sec-towidget"]
    assert section.title == "ToWidget ( argument [ , hint ] )"
    text = chunks["sec-towidget"].text
    assert text.startswith("# 1 ToWidget ( argument [ , hint ] )\n\n")
    assert (
        "The abstract operation ToWidget takes argument `argument` (a Widget)"
        " and optional argument `hint` (a String) and returns either a normal completion "
        "containing a Gadget or a throw completion. It turns `argument` into a "
        "Gadget. It performs the following steps when called:\n\n1. If"
    ) in text
    assert "description" not in text and "skip return checks" not in text
    assert "true" not in text


def test_a_structured_header_names_its_operation_as_the_clause_aoid(tmp_path):
    parsed, _ = source_spec(tmp_path, TO_WIDGET)
    aoids = [s for s in spec_symbols(parsed.sections, parsed.elements) if s.kind == "aoid"]
    assert [(s.name, s.section_id) for s in aoids] == [("ToWidget", "sec-towidget")]


def test_a_subscript_in_a_source_algorithm_keeps_its_mark(tmp_path):
    _, chunks = source_spec(tmp_path, TO_WIDGET)
    text = chunks["sec-towidget"].text
    assert "return `+0`_𝔽." in text and "Return 2^(n - 1)." in text


def gizmo_text(tmp_path: Path, steps: str) -> str:
    """The chunk text of a source abstract operation ``Gizmo`` whose ``emu-alg`` holds ``steps``
    (ecmarkdown lines, indented by four spaces and two per level below)."""
    body = f"""
<emu-clause id="sec-gizmo" type="abstract operation">
  <h1>Gizmo ( _a_ )</h1>
  <emu-alg>
{steps}  </emu-alg>
</emu-clause>
"""
    return source_spec(tmp_path, body)[1]["sec-gizmo"].text


def test_source_steps_are_numbered_as_the_rendered_algorithm_lists_them(tmp_path):
    # ecmarkdown writes 1. for every step; the rendered spec numbers them (new-user trial)
    text = gizmo_text(
        tmp_path,
        "    1. Let _b_ be _a_.\n"
        "    1. If _b_ is *true*, then\n"
        "      1. Let _c_ be <ins>Frob(_b_)</ins>.\n"
        "      1. Return _c_.\n"
        "    1. Let _d_ be Wibble(_b_) 1.\n"
        "    1. Return _d_.\n",
    )
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    steps = [line.split(" ", 1)[0] for line in lines if line[0].isdigit()]
    assert steps == ["1.", "2.", "1.", "2.", "3.", "4."]
    assert "Wibble(`b`) 1." in text  # a number inside a step stays


def test_nested_source_steps_nest_as_commonmark_reads_them(tmp_path):
    """ecmarkdown indents a nested step by two spaces; CommonMark nests an item under ``5. `` only
    when indented to its text (three spaces; four under ``10. ``): else it is one more step of
    the outer list (a new user's trial: 522 of 1,856 ECMA-262 source chunks read flat)."""
    from markdown_it import MarkdownIt

    text = gizmo_text(
        tmp_path,
        "".join(f"    1. Let _x{n}_ be {n}.\n" for n in range(9))
        + "    1. If _b_ is *true*, then\n"
        "      1. Let _c_ be 1.\n"
        "      1. If _c_ is 1, then\n"
        "        1. Return _c_.\n"
        "    1. Return *false*.\n",
    )
    assert "10. If `b` is `true`, then\n    1. Let `c` be 1.\n    2. If `c` is 1, then\n" in text
    assert "\n       1. Return `c`.\n11. Return `false`." in text
    tokens = MarkdownIt("commonmark").parse(text)
    depths = [t.level for t in tokens if t.type == "ordered_list_open"]
    assert len(depths) == 3 and depths == sorted(depths)  # three lists, each inside the last


def test_shorthand_outside_algorithms_becomes_the_elements_ecmarkup_renders(tmp_path):
    """``_x_``, ``*x*``, ``~x~`` and `` `x` `` in prose become ``var``, ``emu-val``,
    ``emu-const`` and ``code``; a backtick of the text itself stays text (escaped)."""
    body = """
<emu-clause id="sec-kinds">
  <h1>Kinds of _x_</h1>
  <p>Let _x_ be *true*, ~key+value~ or `a*b`; a lone \u0060 stays, |Statement| too.</p>
</emu-clause>
"""
    parsed, chunks = source_spec(tmp_path, body)
    element = parsed.elements["sec-kinds"]
    assert [(el.tag, el.text) for el in element.iter("var", "emu-val", "emu-const", "code")] == [
        ("var", "x"),
        ("emu-val", "true"),
        ("emu-const", "key+value"),
        ("code", "a*b"),
    ]
    text = chunks["sec-kinds"].text
    assert "# 1 Kinds of x\n\n" in text  # a heading reads bare, as its title
    assert "Let `x` be `true`, `key+value` or `a*b`; a lone \\` stays, Statement too." in text


def test_a_step_an_insertion_holds_whole_is_numbered_in_its_place(tmp_path):
    # a proposal's source wraps a whole new step in <ins>: it starts a line all the same
    text = gizmo_text(
        tmp_path,
        "    1. Let _b_ be _a_.\n    <ins>1. Let _e_ be _b_.</ins>\n    1. Return _b_.\n",
    )
    assert "1. Let `b` be `a`." in text and "2. Let `e` be `b`." in text
    assert "3. Return `b`." in text


def test_a_syntax_directed_operation_is_headed_without_its_parameters(tmp_path):
    body = """
<emu-clause id="sec-bn" type="sdo">
  <h1>Static Semantics: GadgetNames ( ): a List of Gadgets</h1>
  <dl class="header"></dl>
  <emu-grammar>A : B</emu-grammar>
  <emu-alg>1. Return a new empty List.</emu-alg>
</emu-clause>"""
    parsed, chunks = source_spec(tmp_path, body)
    assert parsed.sections[-1].title == "Static Semantics: GadgetNames"
    assert (
        "The syntax-directed operation GadgetNames takes no arguments and returns a List of "
        "Gadgets. It is defined piecewise over the following productions:"
    ) in chunks["sec-bn"].text


def test_a_method_header_names_what_it_is_for_and_a_paragraph_description_stands_apart(
    tmp_path,
):
    body = """
<emu-clause id="sec-m" type="concrete method">
  <h1>
    HasGadget (
      _N_: a String,
    ): a Boolean
  </h1>
  <dl class="header">
    <dt>for</dt><dd>a Gadget Record _rec_</dd>
    <dt>description</dt><dd><p>First part.</p><p>Second part.</p></dd>
  </dl>
  <emu-note><p>A note.</p></emu-note>
  <emu-alg>1. Return *true*.</emu-alg>
</emu-clause>"""
    parsed, chunks = source_spec(tmp_path, body)
    assert parsed.sections[-1].title == "HasGadget ( N )"
    text = chunks["sec-m"].text
    assert (
        "The HasGadget concrete method of a Gadget Record `rec` takes "
        "argument `N` (a String) and returns a Boolean.\n\nFirst part.\n\nSecond part."
    ) in text
    assert text.index("> A note.") < text.index("It performs the following steps when called:")


def test_a_header_without_a_parameter_list_gets_an_empty_one(tmp_path):
    """ecmarkup prints every parsed header's parameter list, an empty one too (but a
    syntax-directed operation's)."""
    body = (
        '<emu-clause id="sec-f" type="abstract operation"><h1>Runtime Semantics: Evaluation</h1>'
        '<dl class="header"></dl><p>Text.</p></emu-clause>'
    )
    parsed, chunks = source_spec(tmp_path, body)
    assert parsed.sections[-1].title == "Runtime Semantics: Evaluation ( )"
    assert "It performs" not in chunks["sec-f"].text  # no algorithm follows


def test_a_return_type_keeps_the_edits_inside_it_and_drops_a_wrapping_one():
    inside = parse_header("F ( ): a List of <del>Strings</del><ins>Records</ins>")
    assert inside is not None and inside.returns == "a List of <del>Strings</del><ins>Records</ins>"
    wrapped = parse_header("<ins>F ( ): a List</ins>")
    assert wrapped is not None and wrapped.returns == "a List"


def test_a_header_that_does_not_parse_is_left_as_written():
    assert parse_header("( no name first )") is None
    assert parse_header("F (\n  _a_ without a type\n)") is None
    header = parse_header("F (\n  _a_: unknown,\n): unknown")
    assert header is not None and header.params[0].type is None and header.returns is None


def test_code_in_a_source_heading_reads_as_its_text(tmp_path):
    body = '<emu-clause id="sec-if"><h1>The `if` Statement</h1><p>Uses `if`.</p></emu-clause>'
    parsed, chunks = source_spec(tmp_path, body)
    assert parsed.sections[-1].title == "The if Statement"
    assert "Uses `if`." in chunks["sec-if"].text


@pytest.mark.parametrize("where", ["source", "rendered"])
def test_a_heading_replaced_by_a_proposal_titles_its_clause(tmp_path, where):
    secnum = '<span class="secnum">1</span> ' if where == "rendered" else ""
    body = (
        '<emu-clause id="sec-new"><span id="old-id"></span>'
        '<del class="block"><h1>OldName ( x )</h1></del>'
        f'<ins class="block"><h1>{secnum}NewName ( x )</h1></ins><p>Body.</p></emu-clause>'
    )
    if where == "rendered":  # with the tag ecmarkup renders before the heading
        tag = '<div class="attributes-tag"><a href="#sec-conformance">Legacy</a></div>'
        parsed = load_spec(write_spec(tmp_path, body.replace("<span", tag + "<span", 1)))
    else:
        parsed, _ = source_spec(tmp_path, body)
    section = parsed.sections[-1]
    assert (section.secnum, section.title) == ("1", "NewName ( x )")


@pytest.mark.parametrize("strategy", ["seed", "guarded"])
def test_a_grammar_inside_a_source_algorithm_step_stays_in_its_text(tmp_path, strategy):
    """A source algorithm's steps are text the converter keeps whole: an inline grammar in a
    step is never extracted from it, so the section reassembles."""
    steps = "".join(f"    1. Let _x{n}_ be {'word ' * 12}.\n" for n in range(6))
    body = (
        '<emu-clause id="sec-m"><h1>M</h1><emu-alg>\n'
        "    1. Let _list_ be an instance of the production"
        " <emu-grammar>FormalParameters : [empty]</emu-grammar>.\n"
        f"{steps}  </emu-alg></emu-clause>"
    )
    (tmp_path / "spec.emu").write_text(f"<!doctype html><meta charset='utf-8'>{body}")
    policy = ChunkPolicy(
        threshold=100, breakdown_tags=("emu-grammar",), strategy=strategy, min_chars=0
    )
    assert assert_lossless(tmp_path, policy) == 1
    parsed = load_spec(tmp_path)
    (chunk,) = chunk_spec(parsed, policy, rules=CHUNKING_RULES).chunks[-1:]
    assert "production FormalParameters : [empty]." in chunk.text
