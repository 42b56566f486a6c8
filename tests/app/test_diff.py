"""Comparing two chunk sets: the core (specbrowser.session.diff), ``specbrowser diff`` and the
DiffScreen.

The small spec below is ingested twice into one database, both with the seed strategy: set A
with the default threshold (5000: every section one chunk) and set B at threshold 200. Its
numbers, worked out by hand from the breakdown rules (README, "How chunks are made"):

- ``sec-small`` (22 characters) and ``sec-child`` are one chunk under both policies: unchanged.
- ``sec-big`` is one chunk in A. In B it is over 200: ``emu-table`` extracts the table (no
  grammar), ``td`` has nothing left outside the extracted table, then ``p`` extracts both
  paragraphs; the root, now headings and three markers (and the marker of ``sec-child``), is
  still over 200 with no tag left, though its own text (the headings) fits: only its markers
  put it over, ``markers``. So 3 chunks added, the root changed, 0 → 1 overrun.
- ``sec-code`` is one ``pre`` of 240 characters, no breakdown tag in it: the same 258-character
  chunk in both sets (``# 3 Code``, a blank line, and the fence lines: 8 + 2 + 4 + 240 + 4), over
  200 in B only, with no marker: *reflagged* (same text, 0 → 1 overrun, ``unsplittable``).
- Totals: chunks 5 → 8 (document chunk included), 2 sections changed of 4, added 3, removed 0,
  changed 1, reflagged 1, ``unsplittable`` 0 → 1, ``markers`` 0 → 1.
"""

from __future__ import annotations

import asyncio
import functools
import json
from collections.abc import Callable, Coroutine
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from textual.widgets import DataTable, Static

from specbrowser import store
from specbrowser.chunking.policy import ChunkPolicy
from specbrowser.cli import main
from specbrowser.cli.diff import print_diff_summary
from specbrowser.errors import NotFoundError
from specbrowser.session.diff import Change, diff_chunk_sets
from specbrowser.session.ingest import ingest
from specbrowser.session.stores import chunk_stats
from specbrowser.store import vectors as store_vectors
from specbrowser.tui.app import make_app
from specbrowser.tui.screens.diff import DiffScreen
from specbrowser.tui.widgets.chunk_set_trees import ChunkSetTrees
from tests.helpers import ECMA262, write_spec

SIZE = (120, 36)

BODY = f"""
<emu-clause id="sec-small"><h1><span class="secnum">1</span> Small</h1><p>Short text.</p
></emu-clause>
<emu-clause id="sec-big"><h1><span class="secnum">2</span> Big [bold]</h1>
<p>{"Alpha " * 25}</p>
<emu-table id="table-1"><figure><figcaption>Table 1: Cells</figcaption><table>
<tr><th>Name</th><th>Value</th></tr><tr><td>one</td><td>{"gamma " * 10}</td></tr></table></figure
></emu-table>
<p>{"Beta " * 30}</p>
<emu-clause id="sec-child"><h1><span class="secnum">2.1</span> Child</h1><p>Child text.</p
></emu-clause>
</emu-clause>
<emu-clause id="sec-code"><h1><span class="secnum">3</span> Code</h1><pre><code
>{"x = 1;  " * 30}</code></pre></emu-clause>
"""
"""Four sections; ``Big [bold]`` checks that spec text is never read as Rich markup."""

CODE_SIZE = 8 + 2 + 4 + 240 + 4
"""``sec-code``'s chunk: heading, blank line, opening fence line, the pre's text, closing fence."""


@pytest.fixture
def two_sets(tmp_path: Path) -> tuple[Path, str, str]:
    """(database, version of set A = default policy, version of set B = threshold 200); B active."""
    spec = write_spec(tmp_path, BODY)
    db_path = tmp_path / "diff.db"
    policy_a, policy_b = (  # no summaries: the hand counts are of the section chunks' texts
        ChunkPolicy(strategy="seed", summaries=False),
        ChunkPolicy(threshold=200, strategy="seed", summaries=False),
    )
    ingest([spec], db_path, policy_a)
    ingest([spec], db_path, policy_b)
    return db_path, policy_a.version, policy_b.version


def sizes(db_path: Path, version: str) -> dict[str, int]:
    db = store.open_database(db_path)
    try:
        return {c.id: c.size for c in db.iter_chunks(version)}
    finally:
        db.close()


def run_async(test: Callable[..., Coroutine[Any, Any, None]]) -> Callable[..., None]:
    """Run an async test in its own event loop (no pytest-asyncio / anyio plugin needed)."""

    @functools.wraps(test)
    def wrapper(*args: Any, **kwargs: Any) -> None:
        asyncio.run(test(*args, **kwargs))

    return wrapper


# --- the core ---------------------------------------------------------------------------------


def test_diff_numbers_match_the_hand_count(two_sets) -> None:
    db_path, a, b = two_sets
    db = store.open_database(db_path)
    diff = diff_chunk_sets(db, a, b)
    summary = diff.summary
    assert (diff.version_a, diff.version_b) == (a, b)
    assert diff.policy_b == ChunkPolicy(threshold=200, strategy="seed", summaries=False).describe()
    assert summary.chunks == Change(5, 8)
    assert (summary.sections_changed, summary.sections_unchanged) == (2, 2)
    assert (summary.added, summary.removed, summary.changed, summary.reflagged) == (3, 0, 1, 1)
    assert summary.overruns == {"unsplittable": Change(0, 1), "markers": Change(0, 1)}
    assert summary.truncated is None and summary.embedded is None
    assert summary.embedding_model is None

    big, code = diff.sections
    assert [s.section_id for s in diff.sections] == ["sec-big", "sec-code"]  # document order
    assert big.title == "2 Big [bold]"
    assert big.added == ["sec-big-p-1", "sec-big-emu-table-1", "sec-big-p-2"]
    assert (big.removed, big.changed, big.reflagged) == ([], ["sec-big"], [])
    assert big.chunks == Change(1, 4) and big.overruns == Change(0, 1)
    size_a, size_b = sizes(db_path, a), sizes(db_path, b)
    assert big.largest == Change(size_a["sec-big"], size_b["sec-big"])
    assert size_b["sec-big"] == max(size_b[i] for i in size_b if i.startswith("sec-big"))
    assert (code.added, code.removed, code.changed, code.reflagged) == ([], [], [], ["sec-code"])
    assert code.overruns == Change(0, 1)
    assert code.largest == Change(CODE_SIZE, CODE_SIZE)
    assert summary.largest == Change(("sec-big", size_a["sec-big"]), ("sec-big", size_b["sec-big"]))
    assert [s.section_id for s in diff.top_sections(1)] == ["sec-big"]  # magnitude 4 before 1


def test_chunk_count_change_is_added_minus_removed(two_sets) -> None:
    db_path, a, b = two_sets
    diff = diff_chunk_sets(store.open_database(db_path), b, a)
    summary = diff.summary
    assert summary.chunks.after - summary.chunks.before == summary.added - summary.removed


def test_reversed_diff_swaps_added_and_removed(two_sets) -> None:
    db_path, a, b = two_sets
    db = store.open_database(db_path)
    forward, backward = diff_chunk_sets(db, a, b), diff_chunk_sets(db, b, a)
    assert backward.summary.chunks == Change(8, 5)
    assert (backward.summary.added, backward.summary.removed) == (0, 3)
    assert backward.sections[0].removed == forward.sections[0].added
    assert backward.summary.overruns == {"unsplittable": Change(1, 0), "markers": Change(1, 0)}


def test_a_set_against_itself_has_no_changes(two_sets) -> None:
    db_path, a, _ = two_sets
    diff = diff_chunk_sets(store.open_database(db_path), a, a)
    assert diff.sections == []
    assert (diff.summary.sections_changed, diff.summary.sections_unchanged) == (0, 4)


def test_prefixes_resolve_without_activating(two_sets) -> None:
    db_path, a, b = two_sets
    db = store.open_database(db_path)
    assert db.sets.resolve(a[:4]) == a
    diff = diff_chunk_sets(db, a[:4], b[:5])
    assert (diff.version_a, diff.version_b) == (a, b)
    assert db.active_version() == b


@pytest.mark.parametrize("version", ["ffffffff", ""])
def test_unknown_version_is_not_found(two_sets, version: str) -> None:
    db_path, a, _ = two_sets
    with pytest.raises(NotFoundError, match="no chunk set with policy version") as caught:
        diff_chunk_sets(store.open_database(db_path), a, version)
    assert "\n" not in str(caught.value)


def test_truncated_counts_come_from_the_stored_model(two_sets) -> None:
    """Every chunk of both sets embedded with a fake 4-dimension model; the retrieval texts of
    sec-code (the same in both sets) and of set A's sec-big marked as cut by the tokenizer."""
    db_path, a, b = two_sets
    db = store.open_database(db_path)
    if db.vector_error:
        pytest.skip(db.vector_error)
    db.vectors.prepare("fake-model", 4)
    texts = {c.retrieval_text for v in (a, b) for c in db.iter_chunks(v)}
    cut = {c.retrieval_text for c in db.iter_chunks(a) if c.id in ("sec-code", "sec-big")}
    db.vectors.add(
        "fake-model",
        4,
        [
            store_vectors.NewEmbedding(
                store_vectors.content_hash(text), bytes(16), text in cut, 600
            )
            for text in texts
        ],
    )
    summary = diff_chunk_sets(db, a, b).summary
    assert summary.embedding_model == "fake-model"
    assert summary.embedded == Change(5, 8)
    assert summary.truncated == Change(2, 1)


def test_json_form_holds_summary_and_sections(two_sets) -> None:
    db_path, a, b = two_sets
    data = json.loads(diff_chunk_sets(store.open_database(db_path), a, b).to_json())
    assert data["version_a"] == a and data["version_b"] == b
    assert data["summary"]["chunks"] == {"before": 5, "after": 8}
    assert data["summary"]["overruns"] == {
        "unsplittable": {"before": 0, "after": 1},
        "markers": {"before": 0, "after": 1},
    }
    assert data["summary"]["largest"]["after"]["id"] == "sec-big"
    assert data["summary"]["truncated"] is None
    assert [s["section_id"] for s in data["sections"]] == ["sec-big", "sec-code"]
    assert data["sections"][1]["reflagged"] == ["sec-code"]
    assert data["sections"][1]["largest"] == {"before": CODE_SIZE, "after": CODE_SIZE}


# --- the command ------------------------------------------------------------------------------


def one_error_line(capsys) -> str:
    captured = capsys.readouterr()
    lines = [line for line in captured.err.splitlines() if line.strip()]
    assert len(lines) == 1, captured.err
    assert "Traceback" not in captured.err
    return lines[0]


def test_cli_prints_summary_then_sections(two_sets, capsys) -> None:
    db_path, a, b = two_sets
    assert main(["diff", str(db_path), a[:6], b[:6]]) == 0
    output = capsys.readouterr().out
    assert f"A {a}  threshold 5000" in output and f"B {b}  threshold 200" in output
    assert "sections changed: 2 of 4" in output
    assert "chunks added 3, removed 0, changed 1, reflagged 1" in output
    assert "over threshold: unsplittable" in output
    assert "2 Big [bold]" in output  # literal: not swallowed as markup
    assert output.index("2 Big [bold]") < output.index("3 Code")  # most changed first


def test_cli_limit_and_all(two_sets, capsys) -> None:
    db_path, a, b = two_sets
    assert main(["diff", str(db_path), a, b, "--limit", "1"]) == 0
    output = capsys.readouterr().out
    assert "changed sections: 1 of 2" in output and "3 Code" not in output
    assert main(["diff", str(db_path), a, b, "--limit", "0"]) == 0
    assert "changed sections" not in capsys.readouterr().out
    assert main(["diff", str(db_path), a, b, "--all"]) == 0
    assert "changed sections: 2 of 2" in capsys.readouterr().out


def test_cli_diff_of_a_set_with_itself_says_none_changed_without_a_table(two_sets, capsys) -> None:
    # the table's legend alone under an empty table read as noise (new-user trial)
    db_path, a, _b = two_sets
    assert main(["diff", str(db_path), a, a]) == 0
    output = capsys.readouterr().out
    assert "changed sections: none" in output and "overruns: chunks over" not in output


def test_cli_json(two_sets, capsys) -> None:
    db_path, a, b = two_sets
    assert main(["diff", str(db_path), a, b, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["summary"]["added"] == 3
    assert data["sections"][0]["title"] == "2 Big [bold]"


def test_cli_unknown_version_is_one_red_line(two_sets, capsys) -> None:
    db_path, a, _ = two_sets
    assert main(["diff", str(db_path), a, "nope"]) == 2
    assert "no chunk set with policy version 'nope'" in one_error_line(capsys)


def test_cli_bad_database_is_one_red_line(tmp_path, capsys) -> None:
    not_a_db = tmp_path / "notes.db"
    not_a_db.write_text("not sqlite", encoding="utf-8")
    assert main(["diff", str(not_a_db), "a", "b"]) == 2
    assert "not a SQLite database" in one_error_line(capsys)
    assert main(["diff", str(tmp_path / "missing.db"), "a", "b"]) == 2
    assert "does not exist" in one_error_line(capsys)


def test_print_diff_summary_on_a_given_console(two_sets) -> None:
    """What ``specbrowser rechunk`` calls: the summary alone, on the console it is given."""
    db_path, a, b = two_sets
    buffer = StringIO()
    print_diff_summary(
        diff_chunk_sets(store.open_database(db_path), a, b),
        Console(file=buffer, width=100, color_system=None),
    )
    text = buffer.getvalue()
    assert "sections changed: 2 of 4" in text
    assert "largest chunk in B: sec-big" in text
    assert "changed sections" not in text  # the section list is the diff command's own


def test_quality_figures_before_and_after_are_each_sets_stats(two_sets) -> None:
    db_path, a, b = two_sets
    db = store.open_database(db_path)
    stats_a, stats_b = chunk_stats(db, a), chunk_stats(db, b)
    summary = diff_chunk_sets(db, a, b).summary
    assert summary.tiny_chunks == Change(stats_a.tiny_chunks, stats_b.tiny_chunks)
    assert summary.breakdown_marker_share == Change(
        stats_a.breakdown_marker_share, stats_b.breakdown_marker_share
    )
    assert summary.breakdown_marker_share.before == 0.0 < summary.breakdown_marker_share.after
    assert stats_b.sizes_without_markers is not None
    assert summary.median_without_markers.after == stats_b.sizes_without_markers.median
    with db.transaction():  # stats stored before the figures existed are counted again
        db.db.execute("UPDATE policies SET stats = json_remove(stats, '$.tiny_chunks')")
    assert diff_chunk_sets(db, a, b).summary == summary


def test_cli_summary_shows_the_quality_figures(two_sets, capsys) -> None:
    db_path, a, b = two_sets
    assert main(["diff", str(db_path), a[:6], b[:6], "--limit", "0"]) == 0
    output = capsys.readouterr().out
    for row in ("tiny chunks", "mostly markers", "breakdown markers (% of chars)"):
        assert row in output
    assert "0.0%" in output and "median without markers (chars)" in output


# --- the screen -------------------------------------------------------------------------------


async def settle(pilot) -> None:
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def tree_ids(screen: DiffScreen, side: str) -> list[str]:
    """The chunk ids a tree shows, in display order (every node is expanded)."""
    tree = screen.query_one(ChunkSetTrees).set_tree(side)
    ids: list[str] = []

    def walk(node) -> None:
        for child in node.children:
            if child.data is not None:
                ids.append(child.data)
            walk(child)

    walk(tree.root)
    return ids


async def open_diff(pilot, a: str, b: str, results: list) -> DiffScreen:
    await settle(pilot)
    screen = DiffScreen(pilot.app.session, a, b)
    pilot.app.push_screen(screen, results.append)
    await settle(pilot)
    return screen


@run_async
async def test_screen_shows_summary_sections_and_trees(two_sets) -> None:
    db_path, a, b = two_sets
    app = make_app(db_path, cursor_blink=False, count_tokens=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_diff(pilot, a, b, [])
        summary = str(screen.query_one("#diff-summary", Static).content)
        assert "sections changed 2 of 4" in summary
        assert "unsplittable 0 → 1" in summary and "markers 0 → 1" in summary
        quality = diff_chunk_sets(app.session.store, a, b).summary
        assert quality.tiny_chunks == Change(0, 0) and quality.mostly_marker_chunks == Change(0, 1)
        assert "tiny chunks 0 · grown 0 · mostly markers 0 → 1 · median without markers" in summary
        assert "markers, share of all characters: breakdown 0.0% → " in summary
        table = screen.query_one("#diff-sections", DataTable)
        assert [row.value for row in table.rows] == ["sec-big", "sec-code"]
        assert screen.section_id == "sec-big"
        assert tree_ids(screen, "a") == ["sec-big"]
        assert tree_ids(screen, "b") == [
            "sec-big",
            "sec-big-p-1",
            "sec-big-emu-table-1",
            "sec-big-p-2",
        ]
        labels = [str(n.label) for n in screen.trees.set_tree("b").root.children[0].children]
        assert labels[0].startswith("+ p-1  ")
        assert str(screen.trees.set_tree("b").root.children[0].label).endswith(" ch ⚠")


@run_async
async def test_selecting_a_section_shows_its_two_trees(two_sets) -> None:
    db_path, a, b = two_sets
    app = make_app(db_path, cursor_blink=False, count_tokens=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_diff(pilot, a, b, [])
        await pilot.press("down")
        assert screen.section_id == "sec-code"
        assert tree_ids(screen, "a") == tree_ids(screen, "b") == ["sec-code"]
        assert str(screen.trees.set_tree("b").root.children[0].label).startswith("⚑ sec-code")


@run_async
async def test_enter_on_a_tree_node_dismisses_with_its_chunk_id(two_sets) -> None:
    db_path, a, b = two_sets
    app = make_app(db_path, cursor_blink=False, count_tokens=False)
    results: list = []
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_diff(pilot, a, b, results)
        await pilot.press("enter")  # on the sec-big row: into set B's tree
        assert app.focused is screen.trees.set_tree("b")
        await pilot.press("down", "down", "enter")
        await settle(pilot)
        assert results == ["sec-big-emu-table-1"]
        assert app.screen is not screen


@run_async
async def test_a_click_on_a_tree_node_only_moves_the_cursor(two_sets) -> None:
    db_path, a, b = two_sets
    app = make_app(db_path, cursor_blink=False, count_tokens=False)
    results: list = []
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_diff(pilot, a, b, results)
        tree = screen.trees.set_tree("b")
        await pilot.click(tree, offset=(8, 2))  # the second node (border row, then sec-big)
        await settle(pilot)
        assert app.screen is screen and results == []
        assert tree.cursor_node is not None and tree.cursor_node.data == "sec-big-p-1"
        await pilot.press("j")
        await settle(pilot)
        assert results == ["sec-big-p-1"]


@run_async
async def test_j_dismisses_with_the_section_and_escape_with_none(two_sets) -> None:
    db_path, a, b = two_sets
    app = make_app(db_path, cursor_blink=False, count_tokens=False)
    results: list = []
    async with app.run_test(size=SIZE) as pilot:
        await open_diff(pilot, a, b, results)
        await pilot.press("down", "j")
        await settle(pilot)
        await open_diff(pilot, a, b, results)
        await pilot.press("escape")
        await settle(pilot)
        assert results == ["sec-code", None]


@run_async
async def test_s_switches_the_list_to_document_order(two_sets) -> None:
    db_path, a, b = two_sets
    app = make_app(db_path, cursor_blink=False, count_tokens=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_diff(pilot, b, a, [])  # reversed: sec-big still most changed
        table = screen.query_one("#diff-sections", DataTable)
        await pilot.press("down")
        await pilot.press("s")
        assert screen.document_order
        assert [row.value for row in table.rows] == ["sec-big", "sec-code"]
        assert screen.section_id == "sec-code"  # the highlighted section is kept


@run_async
async def test_unknown_version_is_shown_not_raised(two_sets) -> None:
    db_path, a, _ = two_sets
    app = make_app(db_path, cursor_blink=False, count_tokens=False)
    results: list = []
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_diff(pilot, a, "nope", results)
        assert "no chunk set with policy version 'nope'" in str(
            screen.query_one("#diff-summary", Static).content
        )
        await pilot.press("j", "escape")
        await settle(pilot)
        assert results == [None]


def test_snapshot_diff_screen(two_sets, snap_compare) -> None:
    """The diff of the small spec, sec-big selected, set B's tree focused on its table."""
    db_path, a, b = two_sets

    async def run_before(pilot) -> None:
        await open_diff(pilot, a, b, [])
        await pilot.press("enter", "down", "down")
        await settle(pilot)

    assert snap_compare(
        make_app(db_path, cursor_blink=False, count_tokens=False),
        terminal_size=SIZE,
        run_before=run_before,
    )


# --- the real ECMA-262 ------------------------------------------------------------------------


@pytest.mark.real
@pytest.mark.skipif(
    not (ECMA262 / "index.html").exists(), reason=f"real specs not found at {ECMA262}"
)
def test_ecma262_default_against_threshold_2000_with_tr(tmp_path) -> None:
    """Two ingests (~4 s each), one diff: its totals agree with what ``policies`` counts."""
    db_path = tmp_path / "ecma262.db"
    policy_a = ChunkPolicy(strategy="seed")
    policy_b = ChunkPolicy.from_tag_list(2000, "emu-table,emu-grammar,tr,p", 3, strategy="seed")
    ingest([ECMA262 / "index.html"], db_path, policy_a)
    ingest([ECMA262 / "index.html"], db_path, policy_b)
    db = store.open_database(db_path)
    sets = {s.version: s for s in db.sets.all()}
    diff = diff_chunk_sets(db, policy_a.version, policy_b.version)
    summary = diff.summary
    assert summary.chunks == Change(sets[policy_a.version].chunks, sets[policy_b.version].chunks)
    assert summary.chunks.after - summary.chunks.before == summary.added - summary.removed
    for reason, change in summary.overruns.items():
        assert change == Change(
            sets[policy_a.version].over_threshold.get(reason, 0),
            sets[policy_b.version].over_threshold.get(reason, 0),
        )
    assert summary.sections_changed + summary.sections_unchanged == 2254
    assert summary.sections_changed == len(diff.sections) > 0
    assert any(chunk_id.split("-")[-2] == "tr" for s in diff.sections for chunk_id in s.added)
    assert summary.largest.before is not None and summary.largest.after is not None
    assert summary.largest.after[1] < summary.largest.before[1]  # tr splits the big tables
