"""One test per guard rail of the guarded strategy (specbrowser.chunking.guards), on small
hand-written HTML; and the seed strategy reproducing the chunk sets made before the guard
rails existed, on ECMA-262."""

from __future__ import annotations

import hashlib
import re

import pytest

from specbrowser.chunking import guards
from specbrowser.chunking.markdown import to_markdown
from specbrowser.chunking.markers import MARKER_RE, find_markers, format_marker
from specbrowser.chunking.pipeline import chunk_spec
from specbrowser.chunking.policy import ChunkPolicy
from specbrowser.chunking.reassemble import normalize_whitespace, reassemble
from specbrowser.chunking.stats import compute_stats
from specbrowser.formats import load_spec
from specbrowser.formats.ecmarkup import CHUNKING_RULES, MARKDOWN_ELEMENTS
from specbrowser.model import Chunk
from tests.helpers import ECMA262, by_id, chunk_html, write_spec


def section(body: str, sid: str = "sec-a") -> str:
    return f'<emu-clause id="{sid}"><h1>A</h1>{body}</emu-clause>'


def lossless(tmp_path, body: str, policy: ChunkPolicy) -> dict[str, Chunk]:
    """The chunks of ``body`` under ``policy``, checked to reassemble to the section's Markdown
    and to have markers equal to their subsections."""
    path = write_spec(tmp_path, body)
    whole = load_spec(path)
    chunks = by_id(chunk_spec(load_spec(path), policy, rules=CHUNKING_RULES).chunks)
    for chunk in chunks.values():
        assert [m.target_id for m in find_markers(chunk.text)] == chunk.subsections
    for s in whole.sections:
        expected = to_markdown(whole.elements[s.id], policy.markdown, elements=MARKDOWN_ELEMENTS)
        assert normalize_whitespace(reassemble(s.id, chunks)) == normalize_whitespace(expected)
    return chunks


def own_text(chunk: Chunk) -> str:
    return MARKER_RE.sub("", chunk.text).strip()


def test_a_table_of_tiny_cells_is_cut_into_row_groups_not_cells(tmp_path):
    rows = "".join(
        "<tr>" + "".join(f"<td>r{r}c{c}</td>" for c in range(4)) + "</tr>" for r in range(40)
    )
    body = section(
        '<emu-table id="t"><figure><figcaption>Table 1: Tiny</figcaption>'
        f"<table><tbody>{rows}</tbody></table></figure></emu-table>"
    )
    policy = ChunkPolicy(threshold=400, breakdown_tags=("td",))
    chunks = lossless(tmp_path, body, policy)
    subs = [c for c in chunks.values() if c.parent_id is not None]
    assert subs and all(c.layer == "table_row" and c.breakdown_tag == "td" for c in subs)
    assert all(policy.min_chars <= c.size <= 400 for c in subs)
    # named by the first and last cell they hold; the table has no header row: every row is a
    # body row, each group starts with an empty header row
    assert subs[0].id == "sec-a-td-1-" + subs[0].id.rsplit("-", 1)[1]
    assert all(c.text.count("| r0c0 | r0c1 | r0c2 | r0c3 |") <= 1 for c in subs)
    assert all("|  |  |  |  |\n|---|---|---|---|" in c.text for c in subs)
    seed = by_id(chunk_html(tmp_path, body, ChunkPolicy(threshold=400, strategy="seed")))
    assert len(seed) > 100  # every cell a subsection under the seed strategy


def test_a_run_of_short_paragraphs_is_packed_and_named_by_first_and_last(tmp_path):
    paragraphs = "".join(f"<p>paragraph {i} says a few short words here.</p>" for i in range(1, 25))
    body = section(paragraphs, "sec-intro")
    policy = ChunkPolicy(threshold=500, breakdown_tags=("p",))
    chunks = lossless(tmp_path, body, policy)
    root = chunks["sec-intro"]
    assert root.subsections == ["sec-intro-p-1-11", "sec-intro-p-12-22"]
    first = chunks["sec-intro-p-1-11"]
    assert first.text.startswith("paragraph 1 says")
    assert first.text.endswith("paragraph 11 says a few short words here.")
    assert all(chunks[i].size <= 500 for i in root.subsections)
    assert "paragraph 23 says" in root.text  # 23 and 24 together are under the minimum


def test_a_short_run_at_the_end_stays_in_its_parent(tmp_path):
    paragraphs = "".join(f"<p>paragraph {i} says a few short words here.</p>" for i in range(1, 13))
    body = section(paragraphs)
    chunks = lossless(tmp_path, body, ChunkPolicy(threshold=500, breakdown_tags=("p",)))
    assert chunks["sec-a"].subsections == ["sec-a-p-1-11"]  # paragraph 12 alone is under 200
    assert "paragraph 12 says" in chunks["sec-a"].text


def sdo_case(n: int) -> str:
    return (
        f'<emu-grammar><emu-production name="Lit{n}"><emu-nt>Lit{n}</emu-nt>'
        f"<emu-geq>::</emu-geq><emu-rhs><emu-t>tok{n}</emu-t></emu-rhs></emu-production>"
        f"</emu-grammar><emu-alg><ol><li>Let value{n} be the SV of the token number {n}.</li>"
        f"<li>Return the result of applying the conversion to value{n}, in full.</li></ol>"
        "</emu-alg>"
    )


@pytest.mark.parametrize("tag", ["emu-grammar", "emu-alg"])
def test_a_grammar_and_the_algorithm_after_it_are_one_unit(tmp_path, tag):
    body = section(
        "<p>The SV of a literal is computed as follows.</p>"
        + "".join(sdo_case(n) for n in range(1, 9))
    )
    policy = ChunkPolicy(threshold=600, breakdown_tags=(tag,))
    chunks = lossless(tmp_path, body, policy)
    subs = [c for c in chunks.values() if c.parent_id == "sec-a"]
    assert subs and all(c.breakdown_tag == tag for c in subs)
    for sub in subs:  # each holds whole cases: a rule, then its algorithm
        rules = [line for line in sub.text.split("\n") if "::" in line]
        steps = [line for line in sub.text.split("\n") if line.startswith("1. Let value")]
        assert rules and len(rules) == len(steps)
    assert "tok1" not in chunks["sec-a"].text and "value1" not in chunks["sec-a"].text
    # packed cases are named by their first and last grammar (or algorithm)
    assert subs[0].id == f"sec-a-{tag}-1-{subs[0].id.rsplit('-', 1)[1]}"
    assert subs[0].title.startswith("Lit1") if tag == "emu-grammar" else True


def test_an_element_no_longer_than_its_marker_stays(tmp_path):
    body = section(
        "<p>A short sentence.</p><pre><code>" + "x = 1; " * 40 + "</code></pre>"
        "<p>" + "A long paragraph of plain words. " * 12 + "</p>"
    )
    policy = ChunkPolicy(threshold=300, breakdown_tags=("p",), min_chars=0)
    chunks = lossless(tmp_path, body, policy)
    assert "A short sentence." in chunks["sec-a"].text
    assert chunks["sec-a"].subsections == ["sec-a-p-2"]  # the long one, named by its place
    seed = by_id(chunk_html(tmp_path, body, ChunkPolicy(threshold=300, strategy="seed")))
    assert "sec-a-p-1" in seed and seed["sec-a-p-1"].size < len("[Subsection available at")


def test_an_element_under_the_minimum_stays_and_a_lower_minimum_extracts_it(tmp_path):
    middle = "<p>" + "Middle sized words. " * 8 + "</p>"  # 160 characters
    body = section(
        f"{middle}<pre><code>" + "x = 1; " * 60 + "</code></pre><p>" + "Long words. " * 30 + "</p>"
    )
    tags = ("p",)
    at_200 = lossless(tmp_path, body, ChunkPolicy(threshold=400, breakdown_tags=tags))
    assert at_200["sec-a"].subsections == ["sec-a-p-2"]
    at_100 = lossless(
        tmp_path, body, ChunkPolicy(threshold=400, breakdown_tags=tags, min_chars=100)
    )
    assert at_100["sec-a"].subsections == ["sec-a-p-1", "sec-a-p-2"]


def test_a_run_of_list_items_is_packed_and_the_numbering_goes_on(tmp_path):
    items = "".join(
        f"<li>Step {i}: do the thing numbered {i} with care.</li>" for i in range(1, 31)
    )
    body = section(f"<emu-alg><ol>{items}</ol></emu-alg>")
    chunks = lossless(tmp_path, body, ChunkPolicy(threshold=600, breakdown_tags=("li",)))
    root = chunks["sec-a"]
    assert len(root.subsections) >= 2 and all("-li-" in s for s in root.subsections)
    second = chunks[root.subsections[1]]
    first_number = int(root.subsections[1].split("-li-")[1].split("-")[0])
    assert second.text.startswith(f"{first_number}. Step {first_number}:")


def test_a_pass_that_does_not_shrink_its_parent_is_undone(tmp_path, monkeypatch):
    """With the marker check disabled, the cells' markers make the table longer: the ``td``
    pass is undone and the section stays whole (no tag left)."""
    monkeypatch.setattr(guards, "format_marker", lambda *args: "")
    cells = "".join(f"<td>c{i}</td>" for i in range(8))
    body = section(
        f'<emu-table id="t"><figure><table><tbody><tr>{cells}</tr></tbody></table></figure>'
        "</emu-table><pre><code>" + "x = 1; " * 60 + "</code></pre>"
    )
    policy = ChunkPolicy(threshold=300, breakdown_tags=("td",), min_chars=0)
    chunks = lossless(tmp_path, body, policy)
    assert list(chunks) == ["sec-a"]
    assert chunks["sec-a"].over_threshold == "unsplittable"
    assert "| c0 | c1 |" in chunks["sec-a"].text


def test_a_pass_that_saves_only_a_blank_line_is_undone(tmp_path):
    """The table's Markdown is one character longer than its marker: the blank line under its
    caption. Without the table the section's text is no shorter, so the pass is undone."""
    words = " ".join(f"w{i}" for i in range(1, 14))
    body = section(
        '<emu-table id="t1"><figure><figcaption>Table 1: cap</figcaption><table><tbody>'
        f"<tr><td>w14</td></tr><tr><td>{words}</td></tr></tbody></table></figure></emu-table>"
    )
    policy = ChunkPolicy(threshold=40, breakdown_tags=("emu-table",), min_chars=0)
    table = to_markdown(
        load_spec(write_spec(tmp_path, body)).elements["sec-a"].find(".//emu-table"),
        policy.markdown,
        elements=MARKDOWN_ELEMENTS,
    )
    assert len(table) == len(format_marker("sec-a-emu-table-1", "Table 1: cap")) + 1
    chunks = lossless(tmp_path, body, policy)
    assert list(chunks) == ["sec-a"]
    assert chunks["sec-a"].over_threshold == "unsplittable"


def test_no_guarded_chunk_grows_from_its_own_breakdown(tmp_path):
    """The table of tiny cells that the seed strategy makes longer than it was whole."""
    rows = "".join("<tr>" + "<td>x</td>" * 3 + "</tr>" for _ in range(30))
    body = section(
        f'<emu-table id="t"><figure><table><tbody>{rows}</tbody></table></figure></emu-table>'
    )
    for strategy, grows in (("seed", True), ("guarded", False)):
        policy = ChunkPolicy(threshold=200, breakdown_tags=("emu-table", "td"), strategy=strategy)
        chunks = lossless(tmp_path, body, policy)
        grew = [
            c.id
            for c in chunks.values()
            if c.subsections and len(c.text) > len(reassemble(c.id, chunks))
        ]
        assert bool(grew) == grows, strategy
        # the statistics count the same chunks from sizes and markers alone
        stats = compute_stats(list(chunks.values()), 1)
        assert stats.grown_chunks == len(grew), strategy


def test_a_packed_run_over_the_threshold_once_built_is_packed_again_in_halves(tmp_path):
    """Nested sub-steps indent their lines when built, which the members' sizes do not count:
    a run packed to fit is over the threshold once built, and is cut in two."""
    sub = "".join(f"<li>sub-step {j} of the step, said at some length</li>" for j in range(4))
    items = "".join(f"<li>Step {i}: do this.<ol>{sub}</ol></li>" for i in range(1, 13))
    body = section(f"<emu-alg><ol>{items}</ol></emu-alg>")
    policy = ChunkPolicy(threshold=1500, breakdown_tags=("li",))
    chunks = lossless(tmp_path, body, policy)
    made = [c for c in chunks.values() if c.parent_id]
    assert len(made) >= 2 and not any(c.over_threshold for c in made)
    assert all(c.size <= 1500 for c in made)


def test_strategy_and_minimum_are_settings_of_the_version():
    seed, guarded = ChunkPolicy(strategy="seed"), ChunkPolicy()
    assert guarded.settings()["strategy"] == "guarded" and guarded.settings()["min_chars"] == 200
    assert len({seed.version, guarded.version, ChunkPolicy(min_chars=100).version}) == 3
    assert ChunkPolicy.from_settings(guarded.settings()) == guarded
    legacy = {k: v for k, v in guarded.settings().items() if k not in ("strategy", "min_chars")}
    assert ChunkPolicy.from_settings(legacy).strategy == "seed"
    assert guarded.describe().endswith("· guarded, min 200") and seed.describe().endswith("· seed")


# --- ECMA-262 ---------------------------------------------------------------------------------

needs_ecma262 = pytest.mark.skipif(
    not (ECMA262 / "index.html").exists(), reason=f"real specs not found at {ECMA262}"
)

SEED_DIGESTS = {
    (5000, ("emu-table", "emu-grammar", "td", "p")): (3747, "1c3e2f9d4e3effe5"),
    (1000, ("ol", "li")): (7584, "cf03fcb2adf3430f"),
    (2000, ("emu-table", "emu-grammar", "tr", "p")): (4737, "471e29c0ef6b6c55"),
}
"""Chunk count and a digest of every chunk's id and text, in order, made by the breakdown before
it had strategies (converter version 3), as converter version 5 writes them (with the front
matter section, which came later)."""


def _digest(chunks: list[Chunk]) -> tuple[int, str]:
    digest = hashlib.sha256()
    for chunk in chunks:
        digest.update(chunk.id.encode() + b"\0" + chunk.text.encode() + b"\1")
    return len(chunks), digest.hexdigest()[:16]


@pytest.mark.real
@needs_ecma262
@pytest.mark.parametrize("settings", list(SEED_DIGESTS), ids=lambda s: f"{s[0]}-{'-'.join(s[1])}")
def test_the_seed_strategy_reproduces_the_chunk_sets_made_before_strategies(settings):
    threshold, tags = settings
    policy = ChunkPolicy(threshold=threshold, breakdown_tags=tags, strategy="seed")
    chunks = chunk_spec(load_spec(ECMA262 / "index.html"), policy, rules=CHUNKING_RULES).chunks
    assert _digest(chunks) == SEED_DIGESTS[settings]


@pytest.mark.real
@needs_ecma262
def test_the_default_strategy_on_ecma262_leaves_no_tiny_or_grown_chunk():
    """The figures README and BENCHMARKS.md give for the default policy (threshold 5000)."""
    chunks = chunk_spec(
        load_spec(ECMA262 / "index.html"), ChunkPolicy(), rules=CHUNKING_RULES
    ).chunks
    by = by_id(chunks)
    tiny = [c.id for c in chunks if c.parent_id is not None and len(own_text(c)) < 100]
    grown = [
        c.id
        for c in chunks
        if any(by[s].parent_id == c.id for s in c.subsections if s in by)
        and len(normalize_whitespace(c.text)) > len(normalize_whitespace(reassemble(c.id, by)))
    ]
    breakdown_markers = sum(
        m.end - m.start
        for c in chunks
        for m in find_markers(c.text)
        if m.target_id in by and by[m.target_id].parent_id == c.id
    )
    assert tiny == [] and grown == []
    assert breakdown_markers / sum(c.size for c in chunks) < 0.02  # 1.04 %; target ≤ 2 %
    overruns = [c for c in chunks if c.over_threshold]
    assert len(overruns) <= 15  # 6: 1 unsplittable algorithm step, 5 sections of markers
    assert sum(1 for c in overruns if c.over_threshold == "unsplittable") <= 2


def _grammar_body() -> str:
    productions = "".join(
        f'<emu-production name="P{i}"><emu-nt>P{i}</emu-nt><emu-geq>:</emu-geq>'
        f"<emu-rhs><emu-t>{'token ' * 40}</emu-t></emu-rhs></emu-production>"
        for i in range(6)
    )
    return section(f"<emu-grammar>{productions}</emu-grammar><p>{'prose ' * 60}</p>")


@pytest.mark.parametrize("strategy", ["guarded", "seed"])
def test_an_element_whose_marker_the_converter_drops_is_put_back(tmp_path, strategy, monkeypatch):
    """A grammar block renders only its productions, so a marker standing for an extracted
    production would vanish, and its subsection with it; so would any marker with a converter
    that rendered markers as nothing. The breakdown puts such elements back: the grammar stays
    whole in its section, complete."""
    policy = ChunkPolicy(
        threshold=400, breakdown_tags=("emu-production", "p"), strategy=strategy, min_chars=0
    )
    chunks = lossless(tmp_path, _grammar_body(), policy)
    assert not any("emu-production" in chunk_id for chunk_id in chunks)
    assert chunks["sec-a"].text.count("P5 :") == 1


def test_a_packed_run_of_items_is_named_with_its_blocks_apart(tmp_path):
    items = "".join(
        f"<li>Let pile be a fresh List.<ol><li>Let indent be step {i}.</li></ol></li>"
        for i in range(1, 31)
    )
    body = section(f"<emu-alg><ol>{items}</ol></emu-alg>")
    chunks = lossless(tmp_path, body, ChunkPolicy(threshold=600, breakdown_tags=("li",)))
    titles = [chunks[s].title for s in chunks["sec-a"].subsections]
    assert titles and all(t.startswith("Let pile be a fresh List. Let indent") for t in titles)


@pytest.mark.parametrize("strategy", ["seed", "guarded"])
def test_row_groups_repeat_a_header_of_several_rows_whole(tmp_path, strategy):
    head = (
        "<thead><tr><th rowspan=2>Name</th><th colspan=2>Size</th><th colspan=2>Speed</th></tr>"
        "<tr><th>min</th><th>max</th><th>min</th><th>max</th></tr></thead>"
    )
    rows = "".join(
        f"<tr><td>n{r}</td><td>a{r}</td><td>b{r}</td><td>c{r}</td><td>d{r}</td></tr>"
        for r in range(40)
    )
    body = section(
        '<emu-table id="t"><figure><figcaption>Table 1: Grouped</figcaption>'
        f"<table>{head}<tbody>{rows}</tbody></table></figure></emu-table>"
    )
    policy = ChunkPolicy(threshold=500, breakdown_tags=("tr",), strategy=strategy)
    chunks = lossless(tmp_path, body, policy)
    groups = [c for c in chunks.values() if c.layer == "table_row"]
    assert len(groups) >= 3
    header = "| Name | Size |  | Speed |  |\n|---|---|---|---|---|\n|  | min | max | min | max |"
    for group in groups:
        assert header in group.text, group.id
        rows_of = [line for line in group.text.split("\n") if line.startswith("| n")]
        assert rows_of and all(
            re.fullmatch(r"\| n(\d+) \| a\1 \| b\1 \| c\1 \| d\1 \|", r) for r in rows_of
        ), group.id
        table_lines = [line for line in group.text.split("\n") if line.startswith("|")]
        assert all(len(line.split("|")) - 2 == 5 for line in table_lines), group.id
