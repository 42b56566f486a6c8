"""Stats, diff, eval and the advisor report a corpus per spec and in total (issue 30, item 3),
on the tests' two-spec sample corpus (``corpus_db``); a database of one spec reports as
before."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from specbrowser.cli import main
from specbrowser.session import Session

QUERIES = (
    "kind\tquery\texpected\texcerpt\n"
    "name\tHELLO message\thello\t\n"
    "name\tframing of messages\tframing\t\n"
    "name\tset a timer\tsec-set-timer\t\n"
)
"""Two queries answered in the Widget Protocol, one in Widget Timers."""


@pytest.fixture
def queries(tmp_path: Path) -> Path:
    path = tmp_path / "q.tsv"
    path.write_text(QUERIES, encoding="utf-8")
    return path


def test_stats_by_spec_add_up_to_the_sets_counts(corpus_db, capsys) -> None:
    assert main(["stats", str(corpus_db), "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    parts = payload["by_spec"]
    assert [p["spec"] for p in parts] == ["widget-protocol", "widget-timers"]
    assert sum(p["sections"] for p in parts) == payload["sections"]
    assert sum(p["chunks"] for p in parts) == payload["chunks"]
    assert sum(p["total_chars"] for p in parts) == payload["total_chars"]
    with Session.open(corpus_db) as session:
        listed = {s.spec.name: (s.sections, s.chunks) for s in session.specs()}
    assert {p["spec"]: (p["sections"], p["chunks"]) for p in parts} == listed

    assert main(["stats", str(corpus_db)]) == 0
    text = capsys.readouterr().out
    assert "a corpus of 2 specs (widget-protocol, widget-timers)" in text
    assert "By spec" in text and "widget-timers" in text


def test_a_single_spec_reports_no_spec_rows(toylang_db, capsys) -> None:
    assert main(["stats", str(toylang_db), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["by_spec"] == []
    assert main(["stats", str(toylang_db)]) == 0
    assert "By spec" not in capsys.readouterr().out


def test_diff_counts_each_specs_changes(corpus_db, capsys) -> None:
    with Session.open(corpus_db) as session:
        before = session.active_version()
    assert main(["rechunk", str(corpus_db), "--threshold", "300"]) == 0
    capsys.readouterr()
    with Session.open(corpus_db) as session:
        after = session.active_version()
        diff = session.diff(before, after)
        chunks = {s.spec.name: s.chunks for s in session.specs()}
    assert [s.spec for s in diff.by_spec] == ["widget-protocol", "widget-timers"]
    assert {s.spec: s.chunks.after for s in diff.by_spec} == chunks
    assert sum(s.added for s in diff.by_spec) == diff.summary.added
    assert sum(s.sections_changed for s in diff.by_spec) == diff.summary.sections_changed
    for side in ("before", "after"):  # unchanged sections' overruns count too
        assert sum(getattr(s.overruns, side) for s in diff.by_spec) == sum(
            getattr(c, side) for c in diff.summary.overruns.values()
        )
    assert main(["diff", str(corpus_db), before, after, "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["by_spec"]) == 2
    assert main(["diff", str(corpus_db), before, after]) == 0
    assert "By spec" in capsys.readouterr().out


def test_eval_scores_the_queries_each_spec_answers(corpus_db, queries, capsys) -> None:
    assert main(["eval", str(corpus_db), str(queries), "--mode", "lexical", "--json"]) == 0
    (run,) = json.loads(capsys.readouterr().out)["runs"]
    by_spec = run["by_spec"]
    assert {spec: part["query_count"] for spec, part in by_spec.items()} == {
        "widget-protocol": 2,
        "widget-timers": 1,
    }
    weighted = sum(part["hit_at"]["5"] * part["query_count"] for part in by_spec.values()) / 3
    assert weighted == pytest.approx(run["hit_at"]["5"], abs=1e-3)
    assert main(["eval", str(corpus_db), str(queries), "--mode", "lexical"]) == 0
    assert "By spec (hit@1 / hit@5 / hit@10 / MRR@10)" in capsys.readouterr().out


def test_the_advisor_reports_the_recommendation_per_spec(corpus_db, queries, capsys) -> None:
    args = ["advise", str(corpus_db), "--queries", str(queries), "--modes", "lexical"]
    assert main([*args, "--budget", "3", "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    for candidate in payload["candidates"]:
        if candidate["same_as"] is None:
            by_spec = candidate["scores"]["by_spec"]
            assert {s: f["queries"] for s, f in by_spec.items()} == {
                "widget-protocol": 2,
                "widget-timers": 1,
            }
    assert main([*args, "--budget", "3"]) == 0
    assert "widget-timers (1 queries): hit@5" in capsys.readouterr().out
