"""App tests for the chunk-set loop (issue 6) and the app's token/embedding jobs (issue 5):
the policy editor, re-chunking in a worker (cancel on re-apply, keys handled meanwhile),
switching sets, token counts and the ✂ flag, and embedding in the background.
"""

from __future__ import annotations

import re
import threading
import time
from dataclasses import replace
from pathlib import Path

import pytest
from textual import events
from textual.app import App, ComposeResult
from textual.widgets import Button, Input, Label, SelectionList, Static

from specbrowser import store
from specbrowser.chunking.policy import CONVERTER_VERSION, ChunkPolicy
from specbrowser.progress import JobCancelled as RechunkCancelled
from specbrowser.search.model_files import tokenizer_folder
from specbrowser.session import rechunk_process
from specbrowser.session.ingest import ingest
from specbrowser.tui.app import make_app
from specbrowser.tui.screens.browser import BrowserScreen
from specbrowser.tui.screens.chunk_sets import ChunkSetsScreen, chunk_set_line
from specbrowser.tui.screens.policy_editor import PolicyEditor
from specbrowser.tui.widgets.chunk_tree import TRUNCATED_MARK
from specbrowser.tui.widgets.job_bar import JobBar, JobFinished, JobProgress, job_title
from tests.app.helpers import SIZE, run_async, settle
from tests.helpers import HAVE_MODEL, MODEL_MISSING, TOYLANG_POLICY, needs_toylang, write_spec
from tests.helpers import SAMPLE as TOYLANG
from tests.helpers import TOYLANG_THRESHOLD as THRESHOLD

needs_tokenizer = pytest.mark.skipif(tokenizer_folder() is None, reason=MODEL_MISSING)
needs_model = pytest.mark.skipif(not HAVE_MODEL, reason=MODEL_MISSING)


def browser(app) -> BrowserScreen:
    screen = app.screen
    assert isinstance(screen, BrowserScreen)
    return screen


async def wait_until(pilot, condition, timeout: float = 20.0) -> None:
    """Pause until ``condition()`` holds (workers run in threads)."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        await pilot.pause(0.05)


async def apply_threshold(pilot, value: str) -> None:
    await pilot.press("e")
    await pilot.pause()
    editor = pilot.app.screen
    assert isinstance(editor, PolicyEditor)
    editor.query_one("#policy-threshold", Input).value = value
    await pilot.pause()
    await pilot.press("ctrl+s")
    await pilot.pause()


@pytest.mark.serial
@needs_toylang
@run_async
async def test_apply_new_threshold_rechunks_keeps_section_and_changes_tree(
    toylang_db: Path,
) -> None:
    app = make_app(toylang_db, cursor_blink=False, count_tokens=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = browser(app)
        assert screen.go_to_chunk("sec-notational-conventions")
        await settle(pilot)
        before_sets = app.session.store.sets.all()
        before_chunks = before_sets[0].chunks
        await apply_threshold(pilot, "300")
        await settle(pilot)
        await wait_until(pilot, lambda: screen.policy.threshold == 300)
        await settle(pilot)
        sets = {s.version: s for s in app.session.store.sets.all()}
        active = app.session.store.active_version()
        assert len(sets) == 2 and active == replace(TOYLANG_POLICY, threshold=300).version
        assert sets[active].chunks > before_chunks
        assert screen.chunk_view.chunk.id == "sec-notational-conventions"
        assert screen.chunk_tree.cursor_node.data == "sec-notational-conventions"
        assert "threshold 300" in app.sub_title
        assert screen.previous_version == before_sets[0].version
        # the tree shows the new set: a section that is now split has subsection children
        root = app.session.store.chunk("sec-notational-conventions")
        assert screen.chunk_tree.node_for(root.id).allow_expand == bool(root.subsections)
        # the notification counts the sections copied and those broken down
        note = next(n.message for n in app._notifications if n.title == "Re-chunked")
        found = re.search(
            r"(\d+) of (\d+) sections copied from stored sets, (\d+) broken down", note
        )
        assert found, note
        copied, sections, parsed = map(int, found.groups())
        assert 0 < copied < sections and 0 < parsed <= sections - copied


def test_a_chunk_set_line_puts_its_counts_before_its_tags() -> None:
    """The list cuts long lines at its edge: it cut the counts (new-user trial at 160 columns)."""
    info = store.ChunkSetInfo(
        version="c0ad579c645c",
        active=True,
        created_at="",
        chunks=4734,
        over_threshold={"unsplittable": 254},
        settings={
            "threshold_chars": 2000,
            "max_depth": 3,
            "breakdown_tags": ["emu-table", "emu-grammar", "tr", "p"],
            "converter_version": CONVERTER_VERSION,
        },
    )
    assert str(chunk_set_line(info)) == (
        "● c0ad579c645c  2,000 chars · 4,734 chunks · 254 over · "
        "seed · depth 3 · emu-table → emu-grammar → tr → p"
    )  # settings stored without a strategy are the seed strategy's
    guarded = store.ChunkSetInfo(
        **{**vars(info), "settings": {**info.settings, "strategy": "guarded"}}
    )
    assert " · guarded, min ? · depth 3 · " in str(chunk_set_line(guarded))


def job_row_title(jobs: JobBar) -> str:
    return str(jobs.query_one(".job-rechunk .job-title", Label).content)


def test_a_job_row_names_the_stage_the_job_reports() -> None:
    """It read "Re-chunking chunking" and "Counting tokens texts"."""
    assert job_title("rechunk", "storing") == "Re-chunking · storing"
    assert job_title("rechunk", "chunking") == "Re-chunking · chunking sections"
    assert job_title("embed") == "Embedding"


@run_async
async def test_a_job_that_reports_while_its_kind_s_finished_row_leaves_gets_a_new_row() -> None:
    """The app crashed with DuplicateIds when a token count started again in the tick its
    previous row was removed (a new-user trial, after two re-chunks in a row)."""

    class Jobs(App[None]):
        def compose(self) -> ComposeResult:
            yield JobBar(Path("unused.db"))

    app = Jobs()
    async with app.run_test() as pilot:
        jobs = app.query_one(JobBar)
        jobs.on_job_progress(JobProgress("tokens", 0, 0))
        await pilot.pause()
        jobs.on_job_finished(JobFinished("tokens"))
        jobs.on_job_progress(JobProgress("tokens", 1, 2))
        await pilot.pause()
        rows = list(jobs.query(".job-tokens"))
        assert len(rows) == 1 and jobs.display


def slow_rechunk(release: threading.Event, calls: list[int]):
    """A stand-in for :func:`specbrowser.session.rechunk_process.rechunk_in_subprocess` that reports
    progress until ``release`` is set (then runs the real one, in its child process): a run
    that lasts as long as the test wants, and stops when cancelled."""
    real = rechunk_process.rechunk_in_subprocess

    def run(db_path, policy, *, progress=None, cancelled=lambda: False):
        calls.append(policy.threshold)
        done = 0
        while not release.is_set():
            if cancelled():
                raise RechunkCancelled
            done += 1
            if progress:
                progress("chunking", done % 100, 100)
            time.sleep(0.01)
        return real(db_path, policy, progress=progress, cancelled=cancelled)

    return run


@pytest.fixture
def slow_runs(monkeypatch: pytest.MonkeyPatch) -> tuple[threading.Event, list[int]]:
    """Re-chunks that last until the returned event is set; the list gets each run's threshold."""
    release, calls = threading.Event(), []
    monkeypatch.setattr(rechunk_process, "rechunk_in_subprocess", slow_rechunk(release, calls))
    return release, calls


@needs_toylang
@run_async
async def test_apply_shows_the_rechunk_row_before_its_worker_reports(
    toylang_db: Path, monkeypatch
) -> None:
    """On ECMA-262 the first report came up to 1.4 s after Apply, the screen unchanged."""
    monkeypatch.setattr(JobBar, "rechunk", lambda self, policy: None)  # a worker that never reports
    app = make_app(toylang_db, cursor_blink=False, count_tokens=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await apply_threshold(pilot, "300")
        jobs = browser(app).query_one(JobBar)
        assert jobs.display and job_row_title(jobs) == "Re-chunking · starting"


@pytest.mark.serial
@needs_toylang
@run_async
async def test_keys_are_handled_while_a_rechunk_runs(toylang_db: Path, slow_runs) -> None:
    release, calls = slow_runs
    app = make_app(toylang_db, cursor_blink=False, count_tokens=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = browser(app)
        await apply_threshold(pilot, "300")
        await wait_until(pilot, lambda: bool(calls))
        jobs = screen.query_one(JobBar)
        assert jobs.running("rechunk") and jobs.display
        await wait_until(pilot, lambda: "sections" in job_row_title(jobs))
        assert job_row_title(jobs) == "Re-chunking · chunking sections"
        first = screen.chunk_view.chunk.id
        await pilot.press("down")
        await wait_until(pilot, lambda: screen.chunk_view.chunk.id != first)
        await pilot.press("t")
        await pilot.pause()
        assert screen.chunk_view.show_retrieval_text
        assert jobs.running("rechunk")  # all of that happened during the run
        release.set()
        await wait_until(pilot, lambda: screen.policy.threshold == 300)
        await settle(pilot)
        assert not jobs.display


@pytest.mark.serial
@needs_toylang
@run_async
async def test_applying_again_cancels_the_run_in_flight(toylang_db: Path, slow_runs) -> None:
    release, calls = slow_runs
    app = make_app(toylang_db, cursor_blink=False, count_tokens=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = browser(app)
        await apply_threshold(pilot, "300")
        await wait_until(pilot, lambda: calls == [300])
        await apply_threshold(pilot, "500")
        await wait_until(pilot, lambda: calls == [300, 500])
        release.set()
        await wait_until(pilot, lambda: screen.policy.threshold == 500)
        await settle(pilot)
        versions = {s.version for s in app.session.store.sets.all()}
        # the editor keeps the fixture's strategy: only the threshold changes
        made, dropped = (replace(TOYLANG_POLICY, threshold=t).version for t in (500, 300))
        assert made in versions
        assert dropped not in versions  # rolled back
        assert app.session.store.active_version() == made


@needs_toylang
@run_async
async def test_editor_edits_the_strategy_and_minimum(toylang_db: Path) -> None:
    app = make_app(toylang_db, cursor_blink=False, count_tokens=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await pilot.pause()
        editor = app.screen
        assert isinstance(editor, PolicyEditor)
        strategy = editor.query_one("#policy-strategy", Input)
        assert strategy.value == "seed"  # the fixture's policy
        strategy.value = "greedy"
        await pilot.pause()
        assert editor.query_one("#policy-apply", Button).disabled
        assert "unknown breakdown strategy" in str(editor.query_one("#policy-status").render())
        strategy.value = "guarded"
        editor.query_one("#policy-min-chars", Input).value = "120"
        await pilot.pause()
        assert not editor.query_one("#policy-apply", Button).disabled
        policy = editor.build_policy()
        assert (policy.strategy, policy.min_chars) == ("guarded", 120)
        assert "guarded, min 120" in str(editor.query_one("#policy-status").render())


@needs_toylang
@run_async
async def test_editor_refuses_bad_values_and_edits_tags(toylang_db: Path) -> None:
    app = make_app(toylang_db, cursor_blink=False, count_tokens=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await pilot.pause()
        editor = app.screen
        assert isinstance(editor, PolicyEditor)
        status = editor.query_one("#policy-status", Static)
        editor.query_one("#policy-threshold", Input).value = "0"
        await pilot.pause()
        assert editor.query_one("#policy-apply", Button).disabled
        assert "threshold" in str(status.render())
        assert editor.query_one("#policy-threshold", Input).has_class("-invalid")
        editor.query_one("#policy-threshold", Input).value = "1200"
        await pilot.pause()
        assert not editor.query_one("#policy-apply", Button).disabled
        new_tag = editor.query_one("#policy-new-tag", Input)
        new_tag.focus()
        new_tag.value = "div[oops"
        await pilot.press("enter")
        assert "div[oops" in str(status.render())
        new_tag.value = "div.note"
        await pilot.press("enter")
        await pilot.pause()
        tags = editor.query_one("#policy-tags", SelectionList)
        tags.focus()
        tags.highlighted = 4  # div.note: added after the enabled tags
        await pilot.press("left_square_bracket")
        await pilot.pause()
        policy = editor.build_policy()
        assert policy.threshold == 1200
        assert policy.breakdown_tags == ("emu-table", "emu-grammar", "td", "div.note", "p")
        assert str(tags.get_option_at_index(3).prompt) == "div.note"
        await pilot.press("space")  # div.note off
        await pilot.pause()
        assert "div.note" not in editor.build_policy().breakdown_tags
        assert str(tags.get_option_at_index(3).prompt) == "div.note  off"  # readable without colour
        # offered, not in the policy: the guarded strategy's further default tags first
        assert str(tags.get_option_at_index(5).prompt) == "li  off"
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, BrowserScreen)
        assert len(app.session.store.sets.all()) == 1  # cancelled: nothing re-chunked


@needs_toylang
@run_async
async def test_switch_chunk_sets_from_the_list(toylang_db: Path) -> None:
    ingest([TOYLANG], toylang_db, ChunkPolicy(threshold=300))  # now active
    app = make_app(toylang_db, cursor_blink=False, count_tokens=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = browser(app)
        await pilot.press("c")
        await pilot.pause()
        assert isinstance(app.screen, ChunkSetsScreen)
        await pilot.press("up")  # the older set, at 800
        await pilot.press("enter")
        await settle(pilot)
        assert app.session.store.active_version() == TOYLANG_POLICY.version
        assert screen.policy.threshold == THRESHOLD
        assert screen.previous_version == ChunkPolicy(threshold=300).version


@pytest.mark.serial
@needs_tokenizer
@run_async
async def test_token_counts_and_truncated_mark_arrive_in_the_background(tmp_path: Path) -> None:
    words = " ".join(f"word{i}" for i in range(700))
    spec = write_spec(
        tmp_path,
        "<emu-clause id='sec-a'><h1>Short</h1><p>tiny</p></emu-clause>"
        f"<emu-clause id='sec-long'><h1>Long</h1><p>{words}</p></emu-clause>",
    )
    db_path = tmp_path / "t.db"
    ingest([spec], db_path, ChunkPolicy(threshold=100_000))
    app = make_app(db_path, cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = browser(app)
        await wait_until(pilot, lambda: screen.chunk_view.token_info is not None)
        await settle(pilot)
        assert screen.chunk_tree.truncated == {"sec-long"}
        assert str(screen.chunk_tree.node_for("sec-long").label).endswith(TRUNCATED_MARK)
        assert not str(screen.chunk_tree.node_for("sec-a").label).endswith(TRUNCATED_MARK)
        screen.go_to_chunk("sec-long")
        await settle(pilot)
        header = str(screen.chunk_view.query_one("#chunk-header", Static).render())
        assert "tokens" in header and "embedding truncated" in header


@pytest.mark.serial
@needs_model
@run_async
async def test_embed_runs_in_the_background_and_search_says_what_is_covered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    spec = write_spec(
        tmp_path,
        "".join(
            f"<emu-clause id='sec-{i}'><h1>Part {i}</h1><p>Text of part {i}.</p></emu-clause>"
            for i in range(3)
        ),
    )
    db_path = tmp_path / "t.db"
    ingest([spec], db_path, ChunkPolicy())
    app = make_app(db_path, cursor_blink=False, count_tokens=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert browser(app).vectors_off() is not None
        await pilot.press("E")
        await wait_until(pilot, lambda: app.session.store.vectors.model() is not None, 120)
        await wait_until(pilot, lambda: not browser(app).query_one(JobBar).running("embed"), 120)
        version = app.session.store.active_version()
        assert (
            app.session.store.vectors.embedded_fraction(
                app.session.store.vectors.model()[0], version
            )
            == 1.0
        )
        assert browser(app).vectors_off() is None


@pytest.mark.serial
@needs_model
@run_async
async def test_embedding_starts_only_when_asked_and_e_again_cancels_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from specbrowser.search import embed as embed_module

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(embed_module, "DEFAULT_BATCH_TOKENS", 1)  # one text per batch
    real_embed = embed_module.Embedder.embed

    def slow_embed(self, texts, tokens=None):
        time.sleep(0.3)
        return real_embed(self, texts, tokens)

    monkeypatch.setattr(embed_module.Embedder, "embed", slow_embed)
    spec = write_spec(
        tmp_path,
        "".join(
            f"<emu-clause id='sec-{i}'><h1>Part {i}</h1><p>Text of part {i}.</p></emu-clause>"
            for i in range(30)
        ),
    )
    db_path = tmp_path / "t.db"
    ingest([spec], db_path, ChunkPolicy())
    app = make_app(db_path, cursor_blink=False, count_tokens=False)

    def version() -> str:
        return app.session.store.active_version()

    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        bar = browser(app).query_one(JobBar)
        assert not bar.running("embed") and not bar.display  # nothing starts by itself
        await pilot.press("E")
        await wait_until(pilot, lambda: bool(bar.query(".job-embed")), 30)
        assert bar.display and bar.running("embed")
        model = embed_module.DEFAULT_MODEL
        await wait_until(
            pilot,
            lambda: app.session.store.vectors.counts(model, version())[0] > 0,
            60,
        )
        start = time.monotonic()
        await pilot.press("E")  # stop
        await wait_until(pilot, lambda: not bar.running("embed"), 30)
        await wait_until(pilot, lambda: not bar.display, 10)
        assert time.monotonic() - start < 10
        done, total = app.session.store.vectors.counts(model, version())
        assert 0 < done < total  # the finished batches are kept, the rest is not embedded
        await pilot.press("j")  # keys still work
        await settle(pilot)


@needs_toylang
@run_async
async def test_an_unexpected_failure_in_a_job_is_shown_not_swallowed(
    toylang_db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(db_path, policy, **kwargs):
        raise KeyError("block_at")

    monkeypatch.setattr(rechunk_process, "rechunk_in_subprocess", broken)
    app = make_app(toylang_db, cursor_blink=False, count_tokens=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await apply_threshold(pilot, "300")
        await settle(pilot)
        messages = [n.message for n in app._notifications]
        assert any("re-chunking failed unexpectedly: KeyError" in m for m in messages)
        assert not browser(app).query_one(JobBar).display
        assert browser(app).policy.threshold == THRESHOLD


@needs_toylang
@run_async
async def test_chunks_asked_for_during_a_render_end_on_the_last_one(toylang_db: Path) -> None:
    """Chunks asked for faster than any render finishes: the view ends on the last one,
    header and lines alike."""

    app = make_app(toylang_db, cursor_blink=False, count_tokens=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = browser(app)
        ids = [c.id for c in app.session.store.top_level_chunks()]
        for chunk_id in ids * 2:  # faster than any render finishes
            screen.chunk_view.show_chunk(app.session.store.chunk(chunk_id), THRESHOLD)
        await settle(pilot)
        view = screen.chunk_view
        assert view.chunk.id == ids[-1] and view.rendered
        source = view.lines.markdown
        assert source.startswith(view.chunk.text[:20].split("\n")[0][:10])


KEY_CHARACTERS = {"backspace": "\x7f", "end": None, "slash": "/"}


async def type_burst(pilot, keys: list[str]) -> None:
    """Post ``keys`` to the app without waiting between them, as a terminal delivers keys it
    read together (fast typing, a paste of keystrokes, a link that clumps them)."""
    for key in keys:
        pilot.app.post_message(events.Key(key, KEY_CHARACTERS.get(key, key)))
    await settle(pilot)


def after_burst(db_path: Path, keys: list[str], field: str) -> tuple[object, str]:
    """The screen on top (False if the app quit) and the value of input ``field`` after
    ``keys`` arrive in one burst on a freshly opened app."""
    seen: list[tuple[object, str]] = []

    @run_async
    async def run() -> None:
        app = make_app(db_path, cursor_blink=False, count_tokens=False)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await type_burst(pilot, keys)
            seen.append((app.is_running and app.screen, app.screen.query_one(field, Input).value))

    run()
    return seen[0]


@needs_toylang
@pytest.mark.parametrize(
    "keys, value",
    [
        (["e", "backspace", "2", "0", "0", "0"], "2000"),
        (["e", "1", "2", "3", "4"], "1234"),  # the typing replaces the selected value
        (["e", "end", "backspace", "backspace", "9", "9"], "899"),
    ],
)
def test_keys_typed_right_after_e_go_to_the_threshold_in_order(toylang_db: Path, keys, value):
    """They went to the tree while the editor was being mounted: the threshold came out empty
    or cut (new-user trial)."""
    screen, typed = after_burst(toylang_db, keys, "#policy-threshold")
    assert isinstance(screen, PolicyEditor) and typed == value


@needs_toylang
@pytest.mark.parametrize(
    "keys, query", [(["slash", "s"], "s"), (["slash", "q"], "q"), (["slash", "m", "a", "p"], "map")]
)
def test_keys_typed_right_after_slash_go_to_the_search_bar(toylang_db: Path, keys, query):
    """They reached the tree's bindings first: "/ s" opened the statistics, "/ q" quit."""
    screen, typed = after_burst(toylang_db, keys, "#search-input")
    assert isinstance(screen, BrowserScreen) and typed == query
