"""The policy advisor (``specbrowser advise``, :mod:`specbrowser.session.advise`) and its
automatic queries (:mod:`specbrowser.session.auto_queries`), on the sample spec; the ECMA-262
checks at the end skip without ../shared."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import pytest

from specbrowser.chunking.policy import ChunkPolicy
from specbrowser.cli import main
from specbrowser.formats import policy_for
from specbrowser.search.tokens import default_token_counter
from specbrowser.session import Session
from specbrowser.session import advise as advise_module
from specbrowser.session.advise import (
    Advice,
    Candidate,
    GridOptions,
    QuerySet,
    advise,
    candidate_grid,
    remove_advised,
    score,
)
from specbrowser.session.auto_queries import automatic_queries
from specbrowser.session.ingest import ingest
from specbrowser.session.query_file import read_queries
from tests.helpers import ECMA262, ROOT, SAMPLE

QUERIES = ROOT / "sample_specs" / "toylang-queries.tsv"


@pytest.fixture
def toy(ingested_db) -> Path:
    """The sample spec under its format's default policy (the advisor's default)."""
    return ingested_db(SAMPLE, ChunkPolicy(threshold=400), name="advise.db")


def _query_sets() -> list[QuerySet]:
    return [QuerySet(str(QUERIES), tuple(read_queries(QUERIES)))]


def test_score_prefers_retrieval_and_punishes_reading_and_tiny_chunks() -> None:
    assert score(0.8, 1000, 0) > score(0.7, 1000, 0)
    assert score(0.8, 1000, 0) > score(0.8, 2000, 0)
    assert score(0.8, 2000, 0) == pytest.approx(score(0.8, 1000, 0) - 0.05)
    assert score(0.8, 1000, 0) > score(0.8, 1000, 0.2)


def test_grid_starts_with_the_active_set_and_respects_the_budget(toy: Path) -> None:
    with Session.open(toy) as session:
        grid, default = candidate_grid(session, GridOptions(), window=256)
        assert grid[0].label == "active"
        assert grid[0].policy.version == session.active_version()
        assert any(c.label == "default" and c.policy == default for c in grid)
        versions = [c.policy.version for c in grid]
        assert len(set(versions)) == len(versions)
        assert {c.factor for c in grid} >= {"threshold", "strategy", "max_depth"}
        assert any(c.policy.unit == "tokens" and c.policy.threshold == 512 for c in grid)
        small, _ = candidate_grid(session, GridOptions(budget=3), window=256)
        assert len(small) == 2  # one place kept for the combined candidate


def test_grid_options_replace_their_part(toy: Path) -> None:
    options = GridOptions(
        thresholds=(300, 900),
        tag_orders=(("table", "p"),),
        strategies=("guarded",),
        max_depths=(1,),
    )
    with Session.open(toy) as session:
        grid, _default = candidate_grid(session, options, window=None)
    labels = [c.label for c in grid]
    assert "threshold 300" in labels and "threshold 900" in labels
    assert "tags table,p" in labels
    assert "max depth 1" in labels
    assert not any(c.policy.strategy == "seed" for c in grid)
    assert not any(c.policy.unit == "tokens" for c in grid)


def test_tag_variants_only_for_elements_the_spec_has(tmp_path: Path) -> None:
    spec = tmp_path / "plain.html"
    spec.write_text(
        "<html><body><h1>T</h1><h2 id='a'>A</h2>" + "<p>word " * 50 + "</p></body></html>",
        encoding="utf-8",
    )
    db = tmp_path / "plain.db"
    ingest([spec], db, policy_for("headings"))
    with Session.open(db) as session:
        grid, _default = candidate_grid(session, GridOptions(), window=None)
    assert not [c for c in grid if c.factor == "tags"]  # no tr, no algorithm, no note


def test_advise_ranks_by_score_and_recommends_without_losing_retrieval(toy: Path) -> None:
    lines: list[str] = []
    with Session.open(toy) as session:
        before = {s.version for s in session.chunk_sets()}
        advice = advise(session, _query_sets(), report=lines.append)
        assert advice.results[0] is advice.recommended
        keep = [advise_module.keeps_retrieval(r, advice.active) for r in advice.results]
        assert keep == sorted(keep, reverse=True)  # those that keep retrieval first
        for group in (True, False):
            scores = [
                r.score
                for r, k in zip(advice.results, keep, strict=True)
                if k == group and r.same_as is None
            ]
            assert scores == sorted(scores, reverse=True)
        assert [r.rank for r in advice.results] == list(range(1, len(advice.results) + 1))
        assert advice.recommended.hit5 >= advice.active.hit5
        assert advice.recommended.mrr >= advice.active.mrr
        assert advice.why
        assert len(lines) == len(advice.results)
        made = set(session.store.advice.versions())
        assert made == {r.version for r in advice.results if r.made}
        assert not made & before
        assert session.active_version() == advice.active.version  # nothing applied
        for result in advice.results:
            if result.same_as is not None:
                twin = next(r for r in advice.results if r.candidate.label == result.same_as)
                assert result.fingerprint == twin.fingerprint


def test_identical_chunks_are_scored_once(toy: Path) -> None:
    with Session.open(toy) as session:
        active, _ = session.active_policy()
        deeper = replace(active, max_depth=active.max_depth + 5)  # nothing deeper to break
        candidates = [Candidate(active, "active"), Candidate(deeper, "deeper", "max_depth")]
        advice = advise(session, _query_sets(), candidates=candidates)
    deep = next(r for r in advice.results if r.candidate.label == "deeper")
    assert deep.same_as == "active"
    assert deep.version != advice.active.version


def test_ctrl_c_keeps_the_finished_candidates(toy: Path, monkeypatch) -> None:
    calls = {"n": 0}
    real = advise_module.rechunk

    def interrupting(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(advise_module, "rechunk", interrupting)
    with Session.open(toy) as session:
        advice = advise(session, _query_sets())
        assert advice.interrupted
        assert len(advice.results) == 2
        stored = {s.version for s in session.chunk_sets()}
        assert {r.version for r in advice.results} <= stored


def test_remove_advised_keeps_the_users_sets(toy: Path) -> None:
    assert main(["rechunk", str(toy), "--threshold", "333"]) == 0  # the user's own set
    with Session.open(toy) as session:
        mine = session.active_version()
        assert main(["rechunk", str(toy), "--threshold", "400"]) == 0
        advice = advise(session, _query_sets(), options=GridOptions(budget=4))
        made = session.store.advice.versions()
        assert made
        gone = remove_advised(session)
        assert set(gone) == set(made) - {session.active_version()}
        left = {s.version for s in session.chunk_sets()}
        assert mine in left and advice.active.version in left
        assert session.store.advice.versions() == []


def test_cli_advise_json_and_apply(toy: Path, capsys) -> None:
    assert main(["advise", str(toy), "--queries", str(QUERIES), "--json", "--budget", "6"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert {"candidates", "recommended", "active", "why", "queries", "modes"} <= set(payload)
    first = payload["candidates"][0]
    assert first["rank"] == 1
    assert {"version", "settings", "scores", "quality", "cost", "score"} <= set(first)
    assert ChunkPolicy.from_settings(first["settings"]).version == first["version"]
    assert payload["queries"][str(QUERIES)]["count"] == len(read_queries(QUERIES))

    assert main(["advise", str(toy), "--queries", str(QUERIES), "--apply", "--budget", "6"]) == 0
    out = capsys.readouterr().out
    assert "applied: chunk set" in out
    with Session.open(toy) as session:
        active = session.active_version()
        assert session.store.advice.versions() in ([], [active])
        assert len(session.chunk_sets()) <= 2  # the set before, and the recommendation


def test_cli_advise_split_reports_the_held_out_half(toy: Path, capsys) -> None:
    assert main(["advise", str(toy), "--queries", str(QUERIES), "--split", "--budget", "4"]) == 0
    out = capsys.readouterr().out
    assert "held-out half, recommended" in out
    assert "★" in out


def test_cli_advise_without_queries_makes_them(toy: Path, capsys) -> None:
    assert main(["advise", str(toy), "--budget", "3"]) == 0
    captured = capsys.readouterr()
    assert "automatic queries made from the spec" in captured.err


@pytest.mark.parametrize(
    "extra",
    [
        ["--budget", "0"],
        ["--thresholds", "a,b"],
        ["--strategies", "greedy"],
        ["--modes", "fuzzy"],
        ["--tags-orders", "p;"],
    ],
)
def test_cli_advise_bad_options_are_one_line(toy: Path, extra, capsys) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["advise", str(toy), *extra])
    assert exit_.value.code == 2
    assert "Traceback" not in capsys.readouterr().err


def test_cli_advise_bad_query_file_before_opening(tmp_path: Path, capsys) -> None:
    bad = tmp_path / "bad.tsv"
    bad.write_text("nothing useful\n", encoding="utf-8")
    assert main(["advise", str(tmp_path / "missing.db"), "--queries", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "bad.tsv" in err and "missing.db" not in err


def test_automatic_queries_are_deterministic_and_do_not_copy(toy: Path) -> None:
    with Session.open(toy) as session:
        version = session.active_version()
        first = automatic_queries(session.store, version, count=20)
        again = automatic_queries(session.store, version, count=20)
        other = automatic_queries(session.store, version, count=20, seed="x")
        sections = {s for s, _t in session.section_titles()}
    assert first == again
    assert first != other
    assert first and all(set(q.expected) <= sections for q in first)
    passages = [q for q in first if q.excerpt]
    assert passages and all(q.query not in q.excerpt for q in passages)
    assert any(q.excerpt is None for q in first)  # definitions too
    assert [q.line for q in first] == list(range(1, len(first) + 1))


# --- ECMA-262 ------------------------------------------------------------------------------------


@pytest.mark.real
@pytest.mark.skipif(
    not (ECMA262 / "index.html").exists(),
    reason=f"real specs not found at {ECMA262} (CI has ../shared beside the checkout)",
)
def test_poor_policies_rank_below_the_default_on_ecma262(tmp_path: Path) -> None:
    """BENCHMARKS.md ("The policy advisor"): a 200-character seed policy and a 1,000,000
    threshold both score below the default with the automatic queries."""
    db = tmp_path / "e.db"
    ingest([ECMA262 / "index.html"], db, ChunkPolicy())
    with Session.open(db) as session:
        default, _ = session.active_policy()
        candidates = [
            Candidate(default, "active"),
            Candidate(policy_for("ecmarkup", threshold=200, strategy="seed"), "bad", "x"),
            Candidate(replace(default, threshold=1_000_000), "coarse", "x"),
        ]
        queries = automatic_queries(session.store, default.version)
        advice = advise(
            session,
            [QuerySet("auto", tuple(queries))],
            candidates=candidates,
            counter=default_token_counter(),
        )
    by_label = {r.candidate.label: r for r in advice.results}
    assert by_label["bad"].score < by_label["active"].score
    assert by_label["coarse"].score < by_label["active"].score
    assert advice.recommended is advice.active


def test_a_recommendation_on_the_pareto_front_shows_both_marks() -> None:
    # the active set of the highest retrieval is on the front; ★ alone hid that (new-user trial)
    on_front, off_front, other = (SimpleNamespace(pareto=p) for p in (True, False, True))
    results = [on_front, off_front, other]
    kept = Advice(results, on_front, on_front, "", [], ("lexical",))  # type: ignore[arg-type]
    assert [kept.mark(r) for r in results] == ["★◆", "", "◆"]  # type: ignore[arg-type]
    moved = Advice(results, off_front, on_front, "", [], ("lexical",))  # type: ignore[arg-type]
    assert [moved.mark(r) for r in results] == ["◆", "★", "◆"]  # type: ignore[arg-type]
