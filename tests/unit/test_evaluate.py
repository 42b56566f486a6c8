"""Evaluation of chunk sets (:mod:`specbrowser.session.evaluate`, ``specbrowser eval``).

Metrics are checked against values computed by hand: first on hand-made hit lists (pure), then
end to end on a four-clause spec whose words make the lexical ranking obvious.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from specbrowser.chunking.policy import ChunkPolicy
from specbrowser.cli import main
from specbrowser.errors import QueryFileError
from specbrowser.session import Session
from specbrowser.session.evaluate import (
    Retrieved,
    evaluate,
    metric_rows,
    score_query,
    summarize,
    token_scores,
    words,
)
from specbrowser.session.ingest import ingest
from specbrowser.session.query_file import EvalQuery, read_queries
from tests.helpers import SAMPLE, write_spec

# --- pure metrics ------------------------------------------------------------------------------


def test_token_scores_count_runs_of_the_excerpt_found_in_order() -> None:
    excerpt = "one two three four five six"  # 6 tokens
    # "one two three" found (a run of 3); "four five" (2) and "six" (1) are under MIN_RUN
    split = token_scores(excerpt, ["x one two three y", "four five z six"])
    assert (split.recall, split.precision, split.iou) == pytest.approx((3 / 6, 3 / 9, 3 / 12))
    whole = token_scores(excerpt, ["x one two three y", "four five six z"])
    assert (whole.recall, whole.precision, whole.iou) == pytest.approx((1.0, 6 / 9, 6 / 9))


def test_token_scores_count_a_text_retrieved_twice_twice() -> None:
    once = token_scores("alpha beta gamma", ["alpha beta gamma delta"])
    twice = token_scores("alpha beta gamma", ["alpha beta gamma delta"] * 2)
    assert (once.recall, once.precision, once.iou) == pytest.approx((1.0, 3 / 4, 3 / 4))
    assert (twice.recall, twice.precision, twice.iou) == pytest.approx((1.0, 3 / 8, 3 / 8))
    assert token_scores("alpha beta", []) == token_scores("alpha beta", [""])
    assert token_scores("alpha beta", []).iou == 0.0


def test_words_are_lower_cased_and_skip_markdown_link_targets() -> None:
    text = "The [keyword](#sec-keywords) `this`; [[Prototype]] %Array.prototype%"
    assert words(text) == ["the", "keyword", "this", "prototype", "array", "prototype"]


def test_score_query_ranks_by_chunk_or_section() -> None:
    query = EvalQuery("q", ("sec-a",))
    hits = [Retrieved("sec-x", "sec-x"), Retrieved("sec-a-p-1", "sec-a")]
    score = score_query(query, hits, (1, 2))
    assert (score.rank, score.recall, score.missed) == (2, {1: 0.0, 2: 1.0}, False)
    # a chunk id counts as itself; recall is the share of expected ids found
    query = EvalQuery("q", ("sec-a", "sec-z-li-2"))
    hits = [
        Retrieved("sec-z-li-2", "sec-z"),
        Retrieved("sec-b", "sec-b"),
        Retrieved("sec-a", "sec-a"),
    ]
    score = score_query(query, hits, (1, 3))
    assert (score.rank, score.recall) == (1, {1: 0.5, 3: 1.0})
    # a child section's chunk is not its parent's
    missed = score_query(EvalQuery("q", ("sec-a",)), [Retrieved("sec-a.1", "sec-a.1")], (1,))
    assert missed.missed and missed.rank is None and missed.ranked == ("sec-a.1",)


def test_summarize_averages_by_hand() -> None:
    queries = [EvalQuery(f"q{i}", ("sec-a",)) for i in range(4)]
    a, other = Retrieved("sec-a", "sec-a"), Retrieved("sec-b", "sec-b")
    ranked = [[a], [other, a], [other, other, a], [other]]  # ranks 1, 2, 3, none
    run = summarize(
        "v",
        "lexical",
        (5, 1, 2),
        [score_query(q, h, (1, 2, 5)) for q, h in zip(queries, ranked, strict=True)],
    )
    assert run.ks == (1, 2, 5)
    assert run.hit == pytest.approx({1: 1 / 4, 2: 2 / 4, 5: 3 / 4})
    assert run.recall == run.hit  # one expected id per query
    assert run.mrr == pytest.approx((1 + 1 / 2 + 1 / 3 + 0) / 4)
    assert run.tokens == {} and run.excerpts == 0
    assert [s.query.query for s in run.missed] == ["q3"]


# --- query files --------------------------------------------------------------------------------


def test_tsv_with_extra_columns_comments_and_several_ids(tmp_path: Path) -> None:
    path = tmp_path / "q.tsv"
    path.write_text(
        "kind\tquery\texpected\texcerpt\n"
        "# a comment\n"
        "id\tToNumber\tsec-tonumber\t\n"
        "\n"
        "q\thow\tsec-a  sec-b-p-1\tan excerpt here\n",
        encoding="utf-8",
    )
    assert read_queries(path) == [
        EvalQuery("ToNumber", ("sec-tonumber",), None, 3),
        EvalQuery("how", ("sec-a", "sec-b-p-1"), "an excerpt here", 5),
    ]


def test_jsonl_takes_an_id_or_a_list(tmp_path: Path) -> None:
    path = tmp_path / "q.jsonl"
    path.write_text(
        '{"query": "a", "expected": "sec-a"}\n\n'
        '{"query": "b", "expected": ["sec-b", "sec-c"], "excerpt": "x y"}\n',
        encoding="utf-8",
    )
    assert read_queries(path) == [
        EvalQuery("a", ("sec-a",), None, 1),
        EvalQuery("b", ("sec-b", "sec-c"), "x y", 3),
    ]


@pytest.mark.parametrize(
    "name, text, message",
    [
        ("q.tsv", "", "q.tsv: the query file is empty"),
        ("q.tsv", "query\texpected\n", "q.tsv: the query file holds no query"),
        (
            "q.tsv",
            "query\tanswer\nx\tsec-a\n",
            "q.tsv: line 1: the header line has no expected column",
        ),
        ("q.tsv", "query\texpected\nx\tsec-a\ny\n", "q.tsv: line 3: no expected id"),
        ("q.tsv", "query\texpected\n\tsec-a\n", "q.tsv: line 2: no query"),
        ("q.csv", "query,expected\nx,sec-a\n", "q.csv: line 1: not a query file"),
        (
            "q.jsonl",
            '{"query": "a", "expected": "s"}\n{oops\n',
            "q.jsonl: line 2: not a JSON object",
        ),
        ("q.jsonl", '["a", "s"]\n', "q.jsonl: line 1: not a JSON object"),
        ("q.jsonl", '{"query": "a", "expected": 3}\n', "q.jsonl: line 1: expected must be"),
        ("q.jsonl", '{"query": "a"}\n', "q.jsonl: line 1: no expected id"),
        ("gone.tsv", None, "gone.tsv: no such query file"),
    ],
)
def test_bad_query_files_name_the_file_and_line(
    tmp_path: Path, name: str, text: str | None, message: str
) -> None:
    path = tmp_path / name
    if text is not None:
        path.write_text(text, encoding="utf-8")
    with pytest.raises(QueryFileError) as caught:
        read_queries(path)
    assert str(caught.value).startswith(str(tmp_path / message.split(":")[0]))
    assert message.split(": ", 1)[1] in str(caught.value)
    assert "\n" not in str(caught.value)


# --- end to end on a tiny spec -------------------------------------------------------------------

TINY = (
    '<emu-clause id="sec-a"><h1>Alpha</h1><p>zebra apple kiwi mango</p></emu-clause>'
    '<emu-clause id="sec-b"><h1>Beta</h1><p>zebra zebra zebra zebra banana</p></emu-clause>'
    '<emu-clause id="sec-c"><h1>Gamma</h1>'
    "<p>cherry orchard grows red cherry fruit in the valley</p></emu-clause>"
)

QUERIES = (
    "query\texpected\texcerpt\n"
    "banana\tsec-b\t\n"  # line 2: rank 1
    "zebra\tsec-a\t\n"  # line 3: rank 2 (sec-b holds zebra four times)
    "kiwi\tsec-c\t\n"  # line 4: missed (kiwi is only in sec-a)
    "cherry orchard\tsec-c\tcherry orchard grows red\n"  # line 5: rank 1, excerpt found whole
)


@pytest.fixture
def tiny(tmp_path: Path) -> tuple[Path, Path]:
    db = tmp_path / "t.db"
    # no summaries: in a spec this small the document chunk's section guide repeats every
    # clause's text, and the hand-counted ranks are of the clauses alone
    ingest([write_spec(tmp_path, TINY)], db, ChunkPolicy(summaries=False))
    queries = tmp_path / "q.tsv"
    queries.write_text(QUERIES, encoding="utf-8")
    return db, queries


def test_evaluate_tiny_spec_by_hand(tiny: tuple[Path, Path]) -> None:
    db, queries = tiny
    with Session.open(db) as session:
        evaluation = evaluate(session, queries, ks=(1, 2))
        gamma = words(session.chunk("sec-c").text)
    assert [(r.mode, r.policy_version) for r in evaluation.runs] == [
        ("lexical", evaluation.runs[0].policy_version)
    ]
    assert {s.mode for s in evaluation.skipped} == {"semantic", "hybrid"}
    assert all("no embeddings" in s.reason for s in evaluation.skipped)
    run = evaluation.runs[0]
    assert [s.rank for s in run.queries] == [1, 2, None, 1]
    assert run.hit == pytest.approx({1: 2 / 4, 2: 3 / 4})
    assert run.mrr == pytest.approx((1 + 1 / 2 + 0 + 1) / 4)
    assert [s.query.line for s in run.missed] == [4]
    # the one excerpt (4 words) lies whole in sec-c's chunk, retrieved first
    assert run.excerpts == 1
    tokens = run.tokens[1]
    assert tokens.recall == 1.0
    assert tokens.precision == pytest.approx(4 / len(gamma))
    assert tokens.iou == pytest.approx(4 / len(gamma))
    labels = [label for label, _ in metric_rows(evaluation)]
    assert labels[:5] == ["hit@1", "hit@2", "recall@1", "recall@2", "MRR@2"]
    assert "token IoU@2" in labels


def test_unknown_expected_id_names_its_line(tiny: tuple[Path, Path]) -> None:
    db, queries = tiny
    queries.write_text(QUERIES + "x\tsec-nowhere\t\n", encoding="utf-8")
    with Session.open(db) as session, pytest.raises(QueryFileError) as caught:
        evaluate(session, queries)
    assert f"{queries}: line 6: 'sec-nowhere' is neither a section id nor a chunk id" in str(
        caught.value
    )


def test_cli_eval_table_missed_and_skips(tiny: tuple[Path, Path], capsys) -> None:
    db, queries = tiny
    assert main(["eval", str(db), str(queries), "--k", "1,2"]) == 0
    captured = capsys.readouterr()
    assert "4 queries from" in captured.out and "(1 with an excerpt)" in captured.out
    rows = {line.split("│")[1].strip(): line for line in captured.out.splitlines() if "│" in line}
    assert "0.500" in rows["hit@1"] and "0.750" in rows["hit@2"] and "0.625" in rows["MRR@2"]
    assert (
        "missed in the top 2" in captured.out
        and "line 4: kiwi → sec-c (got: sec-a)" in captured.out
    )
    assert captured.err.count("skipped") == 2 and "semantic" in captured.err


def test_cli_eval_json_two_sets(tiny: tuple[Path, Path], capsys) -> None:
    db, queries = tiny
    with Session.open(db) as session:
        first = session.active_version()
    assert main(["rechunk", str(db), "--threshold", "40"]) == 0
    capsys.readouterr()
    with Session.open(db) as session:
        second = session.active_version()
    args = ["eval", str(db), str(queries), "--set", first[:6], "--set", second, "--json"]
    assert main([*args, "--mode", "lexical"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert [run["set"] for run in payload["runs"]] == [first, second]
    assert payload["ks"] == [1, 5, 10] and payload["query_count"] == 4
    assert payload["runs"][0]["hit_at"] == {"1": 0.5, "5": 0.75, "10": 0.75}
    assert payload["runs"][0]["missed"][0]["line"] == 4
    assert payload["skipped"] == []


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--mode", "semantic"], "nothing to evaluate"),
        (["--k", "0"], "cut-offs must be from 1 to"),
        (["--set", "zzzz"], "zzzz"),
    ],
)
def test_cli_eval_mistakes_are_one_line(tiny: tuple[Path, Path], capsys, extra, message) -> None:
    db, queries = tiny
    try:
        status = main(["eval", str(db), str(queries), *extra])
    except SystemExit as exit:  # a usage mistake, from argparse
        status = exit.code
    assert status == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_cli_eval_bad_file_is_one_line(tiny: tuple[Path, Path], capsys) -> None:
    db, queries = tiny
    queries.write_text("query\tanswer\n", encoding="utf-8")
    assert main(["eval", str(db), str(queries)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error:") and "line 1" in err and str(queries.name) in err
    assert "\n" not in err.replace(str(queries), "")


def test_open_refuses_a_bad_query_file_before_the_app(tiny: tuple[Path, Path], capsys) -> None:
    db, queries = tiny
    queries.write_text("query\texpected\n", encoding="utf-8")
    assert main(["open", str(db), "--queries", str(queries)]) == 2
    assert "holds no query" in capsys.readouterr().err


def test_open_db_refuses_a_query_file_expecting_an_id_the_set_lacks(
    tiny: tuple[Path, Path], capsys
) -> None:
    # as eval refuses it: one line before the app, not a notification on its screen (new-user trial)
    db, queries = tiny
    queries.write_text("query\texpected\nwhere is it\tsec-nowhere\n", encoding="utf-8")
    assert main(["open", str(db), "--queries", str(queries)]) == 2
    err = capsys.readouterr().err.strip()
    assert "line 2" in err and "'sec-nowhere' is neither a section id nor a chunk id" in err
    assert len(err.splitlines()) == 1


def test_open_spec_refuses_a_bad_query_file_before_saying_where_it_opens(
    tmp_path: Path, tiny: tuple[Path, Path], capsys
) -> None:
    _db, queries = tiny
    queries.write_text("query\texpected\n", encoding="utf-8")
    argv = ["open", str(SAMPLE), "--db", str(tmp_path / "new.db"), "--queries", str(queries)]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert "holds no query" in err and len(err.splitlines()) == 1 and "ingesting" not in err


def test_open_hands_the_query_file_to_the_app(
    tiny: tuple[Path, Path], monkeypatch, terminal
) -> None:
    import specbrowser.cli.app as cli_app

    db, queries = tiny
    launched: list = []
    monkeypatch.setattr(cli_app, "_run_app", lambda *args, **kw: launched.append(kw) or 0)
    assert main(["open", str(db), "--queries", str(queries)]) == 0
    assert launched == [{"queries": queries}]


def test_a_run_that_does_not_cover_every_chunk_is_marked_in_the_table(capsys):
    """A partly embedded set's semantic column is starred, its note says why (both stdout)."""
    from dataclasses import replace

    from specbrowser.cli.eval import print_evaluation
    from specbrowser.session.evaluate import Evaluation

    query = EvalQuery(line=2, query="q", expected=("sec-x",))
    scores = [score_query(query, [Retrieved("sec-x", "sec-x")], (1, 5))]
    full = summarize("aaaa", "lexical", (1, 5), scores)
    part = replace(summarize("aaaa", "semantic", (1, 5), scores), note="65% of chunks embedded")
    print_evaluation(Evaluation("q.tsv", 1, (1, 5), [full, part], []))
    out = capsys.readouterr().out
    assert "semantic*" in out and "lexical*" not in out
    assert "* aaaa semantic: 65% of chunks embedded" in out


def test_split_queries_alternate_rows_into_two_halves() -> None:
    from specbrowser.session.query_file import EvalQuery, split_queries

    queries = [EvalQuery(f"q{i}", (f"sec-{i}",), line=i + 2) for i in range(5)]
    tune, test = split_queries(queries)
    assert [q.query for q in tune] == ["q0", "q2", "q4"]
    assert [q.query for q in test] == ["q1", "q3"]


def test_eval_split_scores_each_half_apart(toylang_db, capsys) -> None:
    import json

    from specbrowser.cli import main
    from tests.helpers import ROOT

    queries = ROOT / "sample_specs" / "toylang-queries.tsv"
    assert (
        main(["eval", str(toylang_db), str(queries), "--mode", "lexical", "--split", "--json"]) == 0
    )
    halves = json.loads(capsys.readouterr().out)["split"]
    assert list(halves) == ["tune", "test"]
    total = sum(1 for line in queries.read_text().splitlines()[1:] if line.strip())
    assert halves["tune"]["query_count"] + halves["test"]["query_count"] == total
    assert main(["eval", str(toylang_db), str(queries), "--mode", "lexical", "--split"]) == 0
    printed = capsys.readouterr().out
    assert "tune half: the odd rows" in printed and "test half: the even rows" in printed
