"""Which role each element gets (``resolve_roles``): the one walk over element names and simple
selectors selects exactly what each selector's own ``cssselect`` XPath selects."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import etree
from lxml.cssselect import CSSSelector

from specbrowser.chunking.markdown import _ROLE_ORDER, DEFAULT_CONFIG, _selectors, resolve_roles
from specbrowser.chunking.markdown_config import MarkdownConfig


def reference_roles(el: etree._Element, config: MarkdownConfig) -> dict[etree._Element, str]:
    """Each selector evaluated on its own with ``cssselect``; an element keeps the first role in
    precedence order that selects it (edits left to ``resolve_roles``: none in these trees)."""
    roles: dict[etree._Element, str] = {}
    for role in _ROLE_ORDER:
        for text in getattr(config, role):
            for match in CSSSelector(text)(el):
                roles.setdefault(match, role)
    return roles


def by_text(roles: dict[etree._Element, str]) -> dict[str, str]:
    return {str(el.get("data-n")): role for el, role in roles.items()}


def tree(html: str) -> etree._Element:
    return etree.fromstring(f"<div data-n='root'>{html}</div>")


def test_the_default_selectors_are_all_found_in_one_walk():
    compiled = _selectors(DEFAULT_CONFIG)
    assert compiled.css == ()  # every default selector is a name or a simple selector
    assert set(compiled.simple) >= {"span", "emu-eqn", "a", "div", "p"}


def test_class_attribute_and_negated_class_selectors():
    el = tree(
        "<span data-n='1' class='list-marker'/><span data-n='2' class='x list-marker\ty'/>"
        "<span data-n='3' class='list-markers'/><a data-n='4' href=''/><a data-n='5'/>"
        "<emu-eqn data-n='6'/><emu-eqn data-n='7' class='inline'/>"
        "<div data-n='8' class='note'/><p data-n='9' class='example warning'/>"
    )
    assert by_text(resolve_roles(el)) == {
        "1": "skip",
        "2": "skip",
        "4": "link",
        "6": "code_block",
        "7": "inline_code",
        "8": "note",
        "9": "note",
    }


def test_a_name_and_a_simple_selector_on_one_element_take_the_first_role_in_precedence():
    config = replace(DEFAULT_CONFIG, skip=("code.hidden",), inline_code=("code",))
    el = tree("<code data-n='1' class='hidden'/><code data-n='2'/>")
    assert by_text(resolve_roles(el, config)) == {"1": "skip", "2": "inline_code"}
    config = replace(DEFAULT_CONFIG, skip=("code",), inline_code=("code.shown",))
    el = tree("<code data-n='1' class='shown'/>")
    assert by_text(resolve_roles(el, config)) == {"1": "skip"}


def test_other_selectors_still_go_through_cssselect():
    config = replace(DEFAULT_CONFIG, note=("section > p", "#n1", "[data-k=v]", ".loose"))
    compiled = _selectors(config)
    assert [role for _, role, _ in compiled.css] == ["note"]
    el = tree(
        "<section><p data-n='1'/></section><p data-n='2'/><b data-n='3' id='n1'/>"
        "<i data-n='4' data-k='v'/><u data-n='5' class='loose'/>"
    )
    assert by_text(resolve_roles(el, config)) == by_text(reference_roles(el, config))
    assert set(by_text(resolve_roles(el, config))) == {"1", "3", "4", "5"}


TAGS = ["p", "div", "span", "a", "code", "emu-eqn", "aside", "b"]
CLASSES = ["note", "example", "inline", "list-marker", "x"]
SPACES = [" ", "\t", "\n", "  ", "\u00a0", "\f"]  # XPath splits at the first four only


@st.composite
def elements(draw: st.DrawFn, depth: int = 0) -> str:
    tag = draw(st.sampled_from(TAGS))
    attributes = ""
    names = draw(st.lists(st.sampled_from(CLASSES), max_size=3))
    if names or draw(st.booleans()):
        glue = draw(st.sampled_from(SPACES))
        attributes += f' class="{draw(st.sampled_from(["", " "]))}{glue.join(names)}"'
    if draw(st.booleans()):
        attributes += ' href="#x"'
    children = draw(st.lists(elements(depth + 1), max_size=3)) if depth < 3 else []
    return f"<{tag}{attributes}>{''.join(children)}</{tag}>"


SELECTORS = st.lists(
    st.sampled_from(
        ["p.note", "div.example", "span.x", "a[href]", "code", "emu-eqn:not(.inline)",
         "emu-eqn.inline", "aside.note.example", "b[href]", "span:not(.x)", "div p.x", "b"]
    ),
    max_size=3,
)  # fmt: skip


@settings(max_examples=150, deadline=None)
@given(
    html=st.lists(elements(), min_size=1, max_size=4),
    skip=SELECTORS,
    note=SELECTORS,
    link=SELECTORS,
    inline_code=SELECTORS,
)
def test_roles_are_those_of_each_selector_evaluated_alone(html, skip, note, link, inline_code):
    config = replace(
        DEFAULT_CONFIG,
        skip=tuple(skip),
        note=tuple(note),
        link=tuple(link),
        inline_code=tuple(inline_code),
    )
    el = etree.fromstring(f"<div>{''.join(html)}</div>", etree.HTMLParser()).find(".//div")
    for n, node in enumerate(el.iter()):
        node.set("data-n", str(n))
    assert by_text(resolve_roles(el, config)) == by_text(reference_roles(el, config))
