"""Invariants of the breakdown on generated ecmarkup-shaped HTML (hypothesis).

- every text fragment of a section appears in exactly one chunk (nothing lost, nothing doubled;
  markers, which repeat titles, are left out of the count);
- every marker resolves: a breakdown marker to a chunk whose parent is the marker's chunk, a
  child-section marker to that section's root chunk, whose section's parent is the marker's
  chunk's section;
- chunk ids are unique, and each chunk's stored subsections equal its markers in order.
"""

from __future__ import annotations

import re
from dataclasses import replace

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from specbrowser.chunking.markers import MARKER_RE, find_markers
from specbrowser.chunking.pipeline import chunk_spec
from specbrowser.chunking.policy import ChunkPolicy
from specbrowser.chunking.reassemble import normalize_whitespace, reassemble
from specbrowser.formats import load_spec
from specbrowser.formats.ecmarkup import CHUNKING_RULES
from tests.helpers import write_spec
from tests.strategies import policies, spec_html

WORD = re.compile(r"\bw\d+\b")


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(html=spec_html(), policy=policies)
def test_breakdown_invariants(tmp_path, html, policy):
    source_words = WORD.findall(html)
    parsed = load_spec(write_spec(tmp_path, html))
    section_parent = {s.id: s.parent_id for s in parsed.sections}
    chunks = chunk_spec(parsed, policy, rules=CHUNKING_RULES).chunks
    chunk_by_id = {c.id: c for c in chunks}
    assert len(chunk_by_id) == len(chunks), "chunk ids are unique"

    # every fragment exactly once over all chunks (markers removed: they repeat titles; a table
    # row group repeats its table's caption and header row above its delimiter row)
    seen: list[str] = []
    for chunk in chunks:
        text = MARKER_RE.sub("", chunk.text)
        if chunk.layer == "table_row":
            text = text[re.search(r"^\|(?:-+\|)+$", text, re.MULTILINE).end() :]
        seen.extend(WORD.findall(text))
    assert sorted(seen) == sorted(source_words)

    for chunk in chunks:
        assert [m.target_id for m in find_markers(chunk.text)] == chunk.subsections
        for target_id in chunk.subsections:
            target = chunk_by_id[target_id]
            if target.parent_id is not None:
                assert target.parent_id == chunk.id
                assert target.depth == chunk.depth + 1
                assert target.section_id == chunk.section_id
            else:  # a child section's root chunk
                assert section_parent[target.section_id] == chunk.section_id
                assert target.heading_path[:-1] == chunk.heading_path
        if chunk.over_threshold is None:
            assert chunk.size <= policy.threshold
        else:
            assert chunk.size > policy.threshold
        assert chunk.depth <= policy.max_depth


def _trees(chunks) -> dict[str, list[tuple]]:
    """Each section's chunk tree, as everything a chunk holds but its ordinal in the set."""
    trees: dict[str, list[tuple]] = {}
    for c in chunks:
        trees.setdefault(c.section_id, []).append(
            (
                c.id,
                c.parent_id,
                c.depth,
                c.layer,
                c.breakdown_tag,
                c.title,
                c.text,
                c.over_threshold,
                tuple(c.subsections),
                c.holds_for,
            )
        )
    return trees


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(html=spec_html(), policy=policies, data=st.data())
def test_a_section_tree_is_the_same_under_every_threshold_of_its_range(
    tmp_path, html, policy, data
):
    """The rule re-chunks copy stored trees by (specbrowser.store.reuse): under any threshold in
    a root chunk's ``holds_for`` range, the other settings equal, the section's tree is the same."""
    path = write_spec(tmp_path, html)
    first = _trees(chunk_spec(load_spec(path), policy, rules=CHUNKING_RULES).chunks)
    section_id = data.draw(st.sampled_from(sorted(first)))
    lo, hi = first[section_id][0][-1]
    other = data.draw(st.integers(max(lo, 1), (hi - 1) if hi is not None else lo + 2000))
    again = _trees(
        chunk_spec(
            load_spec(path),
            replace(policy, threshold=other),
            rules=CHUNKING_RULES,
        ).chunks
    )
    assert again[section_id] == first[section_id]


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(html=spec_html(), policy=policies, min_chars=st.sampled_from([0, 10, 50, 200]))
# found by hypothesis: the table's Markdown is one character longer than its marker, that
# character the blank line under the caption, so the section's text was no shorter without it
@example(
    html=(
        '<emu-clause id="sec-0"><h1>Title sec-0</h1><emu-table id="t1"><figure>'
        "<figcaption>Table 1: cap</figcaption><table><tbody><tr><td>w14</td></tr>"
        "<tr><td>w1 w2 w3 w4 w5 w6 w7 w8 w9 w10 w11 w12 w13</td></tr></tbody></table>"
        "</figure></emu-table></emu-clause>"
    ),
    policy=ChunkPolicy(threshold=40, breakdown_tags=("emu-table",), max_depth=1),
    min_chars=0,
)
# the same with a rule unit: the blank line joins the grammar and the algorithm after it
@example(
    html=(
        '<emu-clause id="sec-0"><h1>Title sec-0</h1><emu-grammar><emu-production name="Prod0">'
        "<emu-nt>Prod0</emu-nt><emu-geq>:</emu-geq><emu-rhs><emu-t>w15</emu-t></emu-rhs>"
        "</emu-production></emu-grammar><emu-alg><ol><li>w2 w3 w4 w5 w6 w7 w8 w9 w10 w11 w12"
        " w13 w14</li></ol></emu-alg></emu-clause>"
    ),
    policy=ChunkPolicy(threshold=40, breakdown_tags=("emu-grammar",), max_depth=1),
    min_chars=0,
)
def test_guarded_chunks_reach_the_minimum_and_never_grow(tmp_path, html, policy, min_chars):
    """Under the guarded strategy every extracted chunk without a breakdown of its own is at
    least ``min_chars`` long, and every chunk with one is shorter than before it."""
    policy = replace(policy, strategy="guarded", min_chars=min_chars)
    chunks = chunk_spec(load_spec(write_spec(tmp_path, html)), policy, rules=CHUNKING_RULES).chunks
    by = {c.id: c for c in chunks}
    for chunk in chunks:
        broken = any(s in by and by[s].parent_id == chunk.id for s in chunk.subsections)
        if broken:
            before = normalize_whitespace(reassemble(chunk.id, by))
            assert len(normalize_whitespace(chunk.text)) < len(before), chunk.id
        elif chunk.parent_id is not None:
            assert chunk.size >= min_chars, chunk.id
