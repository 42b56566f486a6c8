"""Re-chunking from stored sections (specbrowser.session.rechunk), its cache and
``specbrowser rechunk``."""

from __future__ import annotations

import gc
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from specbrowser import store
from specbrowser.chunking import parallel as workers
from specbrowser.chunking import pipeline
from specbrowser.chunking.policy import ChunkPolicy
from specbrowser.cli import main
from specbrowser.errors import NotFoundError
from specbrowser.session.ingest import ingest
from specbrowser.session.rechunk import rechunk
from specbrowser.session.stores import chunk_stats
from tests.helpers import ECMA262, SAMPLE, set_fts_in_sync, write_spec

SMALL = ChunkPolicy(threshold=400)
ROW_GROUPS = ChunkPolicy(threshold=300, breakdown_tags=("emu-table", "tr", "li", "p"))


def _snapshot(db) -> tuple:
    """Everything a re-chunk may change: policies (without creation time) and every chunk row."""
    policies = db.db.execute(
        "SELECT version, settings, stats, active FROM policies ORDER BY version"
    ).fetchall()
    chunks = db.db.execute("SELECT * FROM chunks ORDER BY policy_version, ordinal").fetchall()
    return policies, chunks


@pytest.fixture
def sample_db(tmp_path):
    path = tmp_path / "sample.db"
    ingest([SAMPLE], path, ChunkPolicy())
    db = store.open_database(path)
    yield db
    db.close()


@pytest.mark.parametrize("policy", [SMALL, ROW_GROUPS, ChunkPolicy(threshold=800, max_depth=1)])
def test_rechunk_equals_what_ingest_stores_for_the_same_policy(tmp_path, sample_db, policy):
    ingest([SAMPLE], tmp_path / "direct.db", policy)
    direct = store.open_database(tmp_path / "direct.db")
    result = rechunk(sample_db, policy)
    assert result.version == policy.version == sample_db.active_version()
    assert result.previous_version == ChunkPolicy().version
    assert not result.already_stored
    assert list(sample_db.iter_chunks()) == list(direct.iter_chunks())
    assert result.stats == chunk_stats(direct)
    assert set(result.timings) == {"load", "chunk", "store", "total"}


def test_rechunk_without_activate_keeps_the_active_set(sample_db):
    result = rechunk(sample_db, SMALL, activate=False)
    assert sample_db.active_version() == result.previous_version == ChunkPolicy().version
    assert sample_db.sets.count() == 2
    assert chunk_stats(sample_db, result.version) == result.stats


def test_a_stored_policy_is_only_activated_unless_rebuild(sample_db):
    rechunk(sample_db, SMALL)
    before = _snapshot(sample_db)
    again = rechunk(sample_db, ChunkPolicy())
    assert again.already_stored and again.previous_version == SMALL.version
    assert sample_db.active_version() == ChunkPolicy().version
    assert again.stats == chunk_stats(sample_db)
    rebuilt = rechunk(sample_db, SMALL, rebuild=True)
    assert rebuilt.already_stored and rebuilt.timings["chunk"] > 0
    assert _snapshot(sample_db)[1] == before[1]


@pytest.mark.parametrize("stage", ["loading", "chunking", "storing"])
def test_an_exception_from_progress_leaves_the_database_as_it_was(sample_db, stage):
    before = _snapshot(sample_db)

    def cancel(at: str, done: int, total: int) -> None:
        if at == stage:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        rechunk(sample_db, SMALL, progress=cancel)
    assert _snapshot(sample_db) == before
    assert gc.isenabled()  # the collector, paused during the re-chunk, is back


def test_the_garbage_collector_is_paused_during_the_rechunk_only(sample_db):
    seen: list[bool] = []
    result = rechunk(sample_db, SMALL, progress=lambda *_: seen.append(gc.isenabled()))
    assert seen and not any(seen) and gc.isenabled()
    assert 0 < result.new_texts <= result.stats.chunks
    gc.disable()
    try:  # a caller that had it off keeps it off
        rechunk(sample_db, ChunkPolicy(threshold=300))
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_rechunk_of_an_empty_database_is_a_user_error(tmp_path):
    db = store.open_database(tmp_path / "empty.db", create=True)
    with pytest.raises(NotFoundError, match="holds no spec"):
        rechunk(db, SMALL)


def test_rechunk_of_hand_written_html(tmp_path):
    long_p = "<p>" + "word " * 120 + "</p>"
    spec = write_spec(tmp_path, f"<emu-clause id='sec-a'><h1>A</h1>{long_p}{long_p}</emu-clause>")
    ingest([spec], tmp_path / "t.db", ChunkPolicy())
    db = store.open_database(tmp_path / "t.db")
    result = rechunk(db, ChunkPolicy(threshold=700))
    ids = [c.id for c in db.iter_chunks()]
    assert ids == ["specbrowser:document", "sec-a", "sec-a-p-1", "sec-a-p-2"]
    assert result.stats.chunks == 4


# --- the Markdown cache: cached and uncached re-chunks are identical ----------------------------

CACHE_POLICIES = [
    ChunkPolicy(),
    SMALL,
    ROW_GROUPS,
    ChunkPolicy(threshold=150, breakdown_tags=("emu-grammar", "td", "li", "p")),
    ChunkPolicy(threshold=300, max_depth=0),
    ChunkPolicy(threshold=300, breakdown_tags=()),
]


def _chunk_rows(db, version: str) -> list[tuple]:
    return db.db.execute(
        "SELECT * FROM chunks WHERE policy_version = ? ORDER BY ordinal", [version]
    ).fetchall()


@pytest.mark.parametrize("policy", CACHE_POLICIES, ids=lambda p: p.describe())
def test_cached_and_uncached_rechunks_store_identical_chunk_sets(tmp_path, policy):
    for name in ("cached", "uncached"):
        ingest([SAMPLE], tmp_path / f"{name}.db", ChunkPolicy(threshold=2000))
    cached, uncached = (store.open_database(tmp_path / f"{n}.db") for n in ("cached", "uncached"))
    assert cached.db.execute("SELECT count(*) FROM markdown_cache").fetchone()[0] == 38
    with_cache = rechunk(cached, policy, rebuild=True)
    without = rechunk(uncached, policy, rebuild=True, use_cache=False, copy_stored=False)
    assert _chunk_rows(cached, policy.version) == _chunk_rows(uncached, policy.version)
    assert with_cache.stats == without.stats


def test_a_cold_cache_is_filled_by_the_rechunk_and_gives_the_same_set(sample_db):
    with sample_db.db.atomic():
        sample_db.db.execute("DELETE FROM markdown_cache")
    first = rechunk(sample_db, SMALL)
    assert sample_db.db.execute("SELECT count(*) FROM markdown_cache").fetchone()[0] > 0
    rows = _chunk_rows(sample_db, SMALL.version)
    again = rechunk(sample_db, SMALL, rebuild=True)
    assert _chunk_rows(sample_db, SMALL.version) == rows and again.stats == first.stats


def test_cached_detail_that_does_not_match_the_tree_is_ignored(sample_db):
    expected = _chunk_rows(sample_db, ChunkPolicy().version)
    with sample_db.db.atomic():  # a detail recorded for another tree: restore must refuse it
        details = sample_db.db.execute(
            "SELECT section_id, detail FROM markdown_cache WHERE detail IS NOT NULL"
        ).fetchall()
        assert details
        for section_id, _ in details:
            sample_db.db.execute(
                "UPDATE markdown_cache SET detail = ? WHERE section_id = ?",
                [details[0][1], section_id],
            )
    rechunk(sample_db, ChunkPolicy(), rebuild=True)
    assert _chunk_rows(sample_db, ChunkPolicy().version) == expected


@pytest.mark.parametrize(
    "detail",
    [
        b'{"tags":["p"],"nodes":3}\x1e',  # an older layout: keys missing (a KeyError before)
        b'{"tags":["p"],"nodes":1,"block_at":[7],"block_tag":["p"],"blocks":[1]}\x1ex',
        b'["not", "a", "dict"]\x1e',
        b"\xff\xfe",
    ],
)
def test_cached_detail_of_another_layout_is_ignored(sample_db, detail):
    expected = _chunk_rows(sample_db, ChunkPolicy().version)
    with sample_db.db.atomic():
        sample_db.db.execute(
            "UPDATE markdown_cache SET detail = ? WHERE detail IS NOT NULL", [detail]
        )
    rechunk(sample_db, ChunkPolicy(), rebuild=True)
    assert _chunk_rows(sample_db, ChunkPolicy().version) == expected


def test_cache_rows_are_keyed_by_the_converter_version(sample_db, monkeypatch):
    from specbrowser.store import cache as store_cache

    digest = sample_db.db.execute("SELECT sections_sha256 FROM documents").fetchone()[0]
    assert len(sample_db.cache.load(digest, SMALL.markdown)) == 38
    monkeypatch.setattr(store_cache, "CONVERTER_VERSION", 999)
    assert sample_db.cache.load(digest, SMALL.markdown) == {}
    with sample_db.db.atomic():
        sample_db.cache.drop_stale(digest)
    monkeypatch.undo()
    assert sample_db.cache.load(digest, SMALL.markdown) == {}


def test_cache_rows_of_a_replaced_spec_are_dropped_and_another_spec_s_kept(tmp_path):
    path = tmp_path / "c.db"
    first = write_spec(tmp_path, "<emu-clause id='sec-x'><h1>X</h1><p>x</p></emu-clause>")
    ingest([first], path, ChunkPolicy())
    other = write_spec(
        tmp_path, "<emu-clause id='sec-y'><h1>Y</h1><p>y</p></emu-clause>", "other.html"
    )
    other.write_text(other.read_text().replace("Test spec", "Other spec"))
    ingest([other], path, ChunkPolicy())  # another spec: both specs' rows kept
    first.write_text(first.read_text().replace("<p>x</p>", "<p>x2</p>"))
    ingest([first], path, ChunkPolicy())  # the first spec replaced: its old rows go
    with store.open_database(path) as db:
        rows = db.db.execute("SELECT DISTINCT sections_sha256 FROM markdown_cache").fetchall()
        assert sorted(rows) == sorted(db.db.execute("SELECT sections_sha256 FROM documents"))
        assert sorted(db.db.execute("SELECT section_id FROM markdown_cache")) == [
            ("sec-x",),
            ("sec-y",),
        ]


def test_a_nearby_threshold_copies_broken_down_trees_and_equals_a_full_rechunk(tmp_path):
    """The sample spec at 400, then 420: most sections (broken down or not) make the same tree,
    and are copied; the set is the one breaking every section down gives."""
    path = tmp_path / "s.db"
    ingest([SAMPLE], path, ChunkPolicy(threshold=400))
    db = store.open_database(path)
    policy = ChunkPolicy(threshold=420)
    copied = rechunk(db, policy)
    rows = _chunk_rows(db, policy.version)
    full = rechunk(db, policy, rebuild=True, copy_stored=False)
    assert _chunk_rows(db, policy.version) == rows and copied.stats == full.stats
    assert copied.copied_sections > 30 and copied.copied_chunks > copied.copied_sections + 20
    assert full.copied_sections == 0 and copied.new_texts < len(rows) // 4


def test_the_summary_packet_of_copied_sections_comes_from_the_cache(tmp_path, monkeypatch):
    """Sections a re-chunk copies are not parsed for the summary packet: their Markdown is the
    cache's, and the set equals the one that reads their HTML (``use_cache=False``)."""
    path = tmp_path / "s.db"
    ingest([SAMPLE], path, ChunkPolicy(threshold=400))
    db = store.open_database(path)
    policy = ChunkPolicy(threshold=420)
    converted: list[str] = []
    real = pipeline.parse_fragment
    monkeypatch.setattr(
        pipeline, "parse_fragment", lambda html: converted.append(html) or real(html)
    )
    copied = rechunk(db, policy)
    assert copied.copied_sections > 30
    assert len(converted) == copied.parsed_sections  # the breakdown's parses, no more
    rows = _chunk_rows(db, policy.version)
    rechunk(db, policy, rebuild=True, use_cache=False)
    assert _chunk_rows(db, policy.version) == rows


def test_a_stored_set_whose_stats_never_counted_markers_is_no_copy_source(tmp_path):
    path = tmp_path / "s.db"
    ingest([SAMPLE], path, ChunkPolicy(threshold=400))
    db = store.open_database(path)
    with db.db.atomic():
        db.db.execute("UPDATE policies SET stats = json_remove(stats, '$.marker_mismatches')")
    copied = rechunk(db, ChunkPolicy(threshold=420))
    assert copied.copied_sections == 0 and copied.stats.marker_mismatches == 0


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    threshold=st.integers(min_value=40, max_value=3000),
    tags=st.lists(
        st.sampled_from(["emu-table", "emu-grammar", "td", "tr", "li", "p", "emu-alg"]),
        unique=True,
        max_size=5,
    ),
    max_depth=st.integers(min_value=0, max_value=4),
)
def test_property_cached_rechunk_equals_uncached(tmp_path_factory, threshold, tags, max_depth):
    """Every example adds its set to one database, so later ones copy trees from earlier sets
    of other thresholds, tags and depths: the set must equal breaking every section down."""
    path = _cached_sample(tmp_path_factory)
    policy = ChunkPolicy(threshold=threshold, breakdown_tags=tuple(tags), max_depth=max_depth)
    db = store.open_database(path)
    try:
        cached = rechunk(db, policy, rebuild=True, activate=False)
        rows = _chunk_rows(db, policy.version)
        uncached = rechunk(
            db, policy, rebuild=True, activate=False, use_cache=False, copy_stored=False
        )
        assert _chunk_rows(db, policy.version) == rows
        assert cached.stats == uncached.stats and uncached.copied_sections == 0
    finally:
        db.close()


_SAMPLE_DB: dict[str, object] = {}


def _cached_sample(tmp_path_factory):
    """One sample database for every hypothesis example (its cache filled by the ingest)."""
    if "path" not in _SAMPLE_DB:
        path = tmp_path_factory.mktemp("property") / "sample.db"
        ingest([SAMPLE], path, ChunkPolicy())
        _SAMPLE_DB["path"] = path
    return _SAMPLE_DB["path"]


# --- specbrowser rechunk ---------------------------------------------------------------------


@pytest.fixture
def sample_path(tmp_path):
    path = tmp_path / "cli.db"
    ingest([SAMPLE], path, ChunkPolicy())
    return path


def _section_counts(output: str) -> tuple[int, ...]:
    counts = re.search(
        r"sections parsed and broken down: (\d+), copied from stored sets: "
        r"(\d+), one chunk from the cache: (\d+)$",
        output,
        re.MULTILINE,
    )
    assert counts, output
    return tuple(map(int, counts.groups()))


def test_cli_rechunk_prints_the_diff_against_the_previous_set(sample_path, capsys):
    assert main(["rechunk", str(sample_path), "--threshold", "400"]) == 0
    output = capsys.readouterr().out
    assert "re-chunked" in output and SMALL.version in output and ChunkPolicy().version in output
    assert re.search(
        r"^  time: load [\d.]+ s, chunk [\d.]+ s, store [\d.]+ s, total [\d.]+ s$",
        output,
        re.MULTILINE,
    )
    assert "chunks" in output and "sections changed" in output
    assert re.search(r"texts written: \d+ new for \d+ chunks", output)
    db = store.open_database(sample_path)
    sections = chunk_stats(db).sections
    parsed, copied, whole = _section_counts(output)
    assert parsed > 0 and copied > 0 and parsed + copied + whole == sections
    assert db.active_version() == SMALL.version
    # at max depth 0 nothing is cut: the sections no set lends are one chunk from the cache
    assert main(["rechunk", str(sample_path), "--threshold", "400", "--max-depth", "0"]) == 0
    parsed, copied, whole = _section_counts(capsys.readouterr().out)
    assert parsed == 0 and whole > 0 and copied + whole == sections


def test_cli_rechunk_names_tags_that_extracted_nothing(sample_path, capsys):
    assert main(["rechunk", str(sample_path), "--threshold", "400", "--tags", "emu_table,p"]) == 0
    assert "unused tags: emu_table (extracted nothing)" in capsys.readouterr().out
    # with max depth 0 no tag is tried: that is not a typo to warn about
    assert main(["rechunk", str(sample_path), "--threshold", "400", "--max-depth", "0"]) == 0
    output = capsys.readouterr().out
    assert "over threshold: max_depth" in output and "unused tags" not in output
    # the default tags are the format's, no typo: a spec without li or emu-production is fine
    assert main(["ingest", str(SAMPLE), "--db", str(sample_path.with_name("d.db"))]) == 0
    assert "unused tags" not in capsys.readouterr().out


def test_cli_rechunk_of_a_stored_policy_only_activates_it(sample_path, capsys):
    assert main(["rechunk", str(sample_path), "--threshold", "400"]) == 0
    capsys.readouterr()
    assert main(["rechunk", str(sample_path)]) == 0
    output = capsys.readouterr().out
    assert "already stored: made active" in output and "sections changed" in output
    assert store.open_database(sample_path).active_version() == ChunkPolicy().version
    assert main(["rechunk", str(sample_path)]) == 0  # once more: it is the active set already
    output = capsys.readouterr().out
    assert "already stored and active" in output and "made active" not in output
    assert "load" not in output and "sections changed" not in output


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--tags", ","], "names no breakdown tag"),
        (["--tags", "emu-table,emu-table"], "repeat"),
        (["--tags", ""], "names no breakdown tag"),
        (["--tags", " , "], "names no breakdown tag"),
    ],
)
def test_cli_rechunk_user_mistakes_end_in_one_red_line(sample_path, capsys, argv, message):
    assert main(["rechunk", str(sample_path), *argv]) == 2
    captured = capsys.readouterr()
    lines = [line for line in captured.err.splitlines() if line.strip()]
    assert len(lines) == 1 and message in lines[0] and "Traceback" not in captured.err


def test_cli_rechunk_of_a_missing_database_is_a_user_error(tmp_path, capsys):
    assert main(["rechunk", str(tmp_path / "none.db")]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_cli_rechunk_interrupted_exits_130_and_changes_nothing(sample_path, monkeypatch, capsys):
    db = store.open_database(sample_path)
    before = _snapshot(db)

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(store.sets.ChunkSets, "insert", interrupted)
    assert main(["rechunk", str(sample_path), "--threshold", "400"]) == 130
    assert _snapshot(db) == before


# --- the real ECMA-262 (skipped without ../shared) -----------------------------------------------

REAL_POLICIES = [
    ChunkPolicy(threshold=2000, breakdown_tags=("emu-table", "emu-grammar", "tr", "p")),
    ChunkPolicy(threshold=1000, breakdown_tags=("emu-table", "emu-grammar", "td", "li", "p")),
]
needs_ecma262 = pytest.mark.skipif(
    not (ECMA262 / "index.html").exists(),
    reason=f"real specs not found at {ECMA262} (CI has ../shared beside the checkout)",
)


@pytest.fixture(scope="module")
def ecma262_db(tmp_path_factory):
    path = tmp_path_factory.mktemp("ecma-rechunk") / "ecma262.db"
    ingest([ECMA262 / "index.html"], path, ChunkPolicy())
    db = store.open_database(path)
    yield db
    db.close()


@pytest.mark.real
@needs_ecma262
def test_real_rechunk_from_the_cache_equals_the_ingest(ecma262_db):
    version = ChunkPolicy().version
    stored = _chunk_rows(ecma262_db, version)
    stats = chunk_stats(ecma262_db)
    result = rechunk(ecma262_db, ChunkPolicy(), rebuild=True)
    assert result.already_stored and result.previous_version == version
    assert _chunk_rows(ecma262_db, version) == stored
    assert result.stats == stats and stats.chunks == len(stored) > 2253


@pytest.mark.real
@needs_ecma262
@pytest.mark.parametrize("policy", REAL_POLICIES, ids=lambda p: p.describe())
def test_real_cached_and_uncached_rechunks_are_identical(ecma262_db, policy):
    cached = rechunk(ecma262_db, policy, activate=False)
    rows = _chunk_rows(ecma262_db, policy.version)
    uncached = rechunk(
        ecma262_db, policy, activate=False, rebuild=True, use_cache=False, copy_stored=False
    )
    assert _chunk_rows(ecma262_db, policy.version) == rows
    assert cached.stats == uncached.stats and cached.stats.unresolved_markers == 0
    # other tags: only the sections that are one chunk within both thresholds are copied
    assert cached.copied_sections == cached.copied_chunks > 1000  # 1,848 and 1,315
    assert uncached.copied_sections == 0
    assert cached.timings["chunk"] < uncached.timings["chunk"]
    # schema 5 on the real spec: the new set shares the default set's unchanged texts, a rebuild
    # of the same set writes none, and no text is left unused or unindexed
    assert 0 < cached.new_texts < cached.stats.chunks and uncached.new_texts == 0
    db = ecma262_db
    assert (
        db.db.execute("SELECT count(*) FROM texts").fetchone()[0]
        == db.db.execute("SELECT count(DISTINCT text_id) FROM chunk_rows").fetchone()[0]
    )
    assert all(indexed == used for indexed, used in set_fts_in_sync(db).values())


@pytest.mark.real
@needs_ecma262
def test_real_rechunk_copies_broken_down_trees_that_a_new_threshold_keeps(ecma262_db):
    """The default tags at 6000 against the stored default set (5000): many of the sections
    it broke down are cut the same way at 6000, and are copied rather than cut again (fewer
    under the guarded strategy than under the seed's, as packing tests more sizes against the
    threshold)."""
    policy = ChunkPolicy(threshold=6000)
    copied = rechunk(ecma262_db, policy, activate=False)
    rows = _chunk_rows(ecma262_db, policy.version)
    full = rechunk(ecma262_db, policy, activate=False, rebuild=True, copy_stored=False)
    assert _chunk_rows(ecma262_db, policy.version) == rows and copied.stats == full.stats
    broken_down = copied.copied_chunks - copied.copied_sections
    assert broken_down > 100 and copied.copied_sections > 2150  # measured after the merge
    assert copied.new_texts < 150 and full.new_texts == 0


@pytest.mark.real
@needs_ecma262
def test_real_rechunk_split_over_processes_equals_one_process(ecma262_db, monkeypatch):
    """Every section broken down (no cache, no copies) by forked workers, then by this
    process alone: the same rows and stats."""
    policy = REAL_POLICIES[0]
    forks: list[int] = []
    fork = workers._fork
    monkeypatch.setattr(workers, "usable_cores", lambda: 2)  # split even on a 1-core runner
    monkeypatch.setattr(workers, "_fork", lambda *args: forks.append(1) or fork(*args))
    split = rechunk(
        ecma262_db, policy, activate=False, rebuild=True, use_cache=False, copy_stored=False
    )
    rows = _chunk_rows(ecma262_db, policy.version)
    assert forks and split.parsed_sections == 2254
    monkeypatch.setenv(workers.WORKERS_ENV, "1")
    alone = rechunk(
        ecma262_db, policy, activate=False, rebuild=True, use_cache=False, copy_stored=False
    )
    assert len(forks) == 1 and _chunk_rows(ecma262_db, policy.version) == rows
    assert alone.stats == split.stats


def test_a_database_without_the_cache_table_gets_it_from_the_rechunk(tmp_path, sample_db):
    """A schema-6 file that never cached a conversion gets the table when upgraded, and the
    re-chunk fills it."""
    with sample_db.db.atomic():
        sample_db.db.execute("DROP TABLE markdown_cache")
        sample_db.db.execute("UPDATE meta SET value = '6' WHERE key = 'schema_version'")
    sample_db.close()
    sample_db = store.open_database(tmp_path / "sample.db")
    first = rechunk(sample_db, SMALL)  # copied trees are not converted, so not cached
    assert 0 < first.copied_sections < 38
    assert (
        sample_db.db.execute("SELECT count(*) FROM markdown_cache").fetchone()[0]
        == 38 - first.copied_sections
    )
    rows = _chunk_rows(sample_db, SMALL.version)
    again = rechunk(sample_db, SMALL, rebuild=True)
    assert _chunk_rows(sample_db, SMALL.version) == rows and again.stats == first.stats


def test_cli_rechunk_without_tags_takes_the_default_tags_of_the_stored_spec_kind(tmp_path):
    from specbrowser.formats.headings import BREAKDOWN_TAGS as PLAIN_HTML_BREAKDOWN_TAGS

    path = tmp_path / "plain.db"
    ingest([SAMPLE.parent / "widget-protocol.html"], path, ChunkPolicy(breakdown_tags=("p",)))
    assert main(["rechunk", str(path), "--threshold", "300"]) == 0
    policy, _ = store.open_database(path).sets.active_policy()
    assert policy.breakdown_tags == PLAIN_HTML_BREAKDOWN_TAGS and policy.threshold == 300
    assert main(["rechunk", str(path), "--threshold", "300", "--tags", "li,p"]) == 0
    assert store.open_database(path).sets.active_policy()[0].breakdown_tags == ("li", "p")


def test_a_source_set_that_changed_meanwhile_rolls_the_rechunk_back(sample_db, monkeypatch):
    """The copies are planned before the write transaction; if a source set lost rows in
    between, the re-chunk must not store a set with chunks missing."""
    from specbrowser.errors import DatabaseError
    from specbrowser.store.reuse import StoredTrees

    planned = StoredTrees.plan

    def plan_then_lose_a_row(trees, policy):
        plan = planned(trees, policy)
        with trees.db.atomic():
            trees.db.execute(
                "DELETE FROM chunk_rows WHERE policy_version = ? AND id = ?",
                [ChunkPolicy().version, next(iter(plan.trees))],
            )
        return plan

    monkeypatch.setattr(StoredTrees, "plan", plan_then_lose_a_row)
    with pytest.raises(DatabaseError, match="changed during the re-chunk"):
        rechunk(sample_db, SMALL)
    assert sample_db.sets.count() == 1 and sample_db.active_version() == ChunkPolicy().version
