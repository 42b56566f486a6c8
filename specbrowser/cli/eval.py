"""``specbrowser eval``: how well chunk sets retrieve the answers of a query file."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from rich.markup import escape
from rich.table import Table
from rich.text import Text

from specbrowser.cli._console import err, out
from specbrowser.cli._options import add_db_argument
from specbrowser.errors import PolicyError
from specbrowser.session.query_file import (
    SPLIT_HALVES,
    EvalQuery,
    read_queries,
    split_queries,
)
from specbrowser.types import SEARCH_MODES

# Deferred to the functions that use them, so that `--help` (which builds every command's parser)
# and a bad argument come without them: Session (the session and store modules, 55–70 ms) and
# specbrowser.session.evaluate (difflib and the scoring, 5 ms).

MISSED_SHOWN = 3
"""Chunk ids shown for what a missed query retrieved instead (its first hits)."""


MAX_CUTOFF = 1000
"""The deepest cut-off ``--k`` takes: a search returns at most this many hits."""


def cutoffs(text: str) -> tuple[int, ...]:
    """An argparse ``type`` for ``--k``: comma-separated whole numbers from 1 to
    :data:`MAX_CUTOFF`."""
    try:
        values = tuple(int(part) for part in text.split(",") if part.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a comma-separated list of whole numbers (1,5,10)"
        ) from None
    if not values or min(values) < 1 or max(values) > MAX_CUTOFF:
        raise argparse.ArgumentTypeError(f"cut-offs must be from 1 to {MAX_CUTOFF}, got {text!r}")
    return tuple(sorted(set(values)))


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``eval`` to the subcommands."""
    p = sub.add_parser(
        "eval",
        help="score chunk sets on a query file: hit@k, recall@k, MRR, token recall/precision/IoU",
    )
    add_db_argument(p)
    p.add_argument(
        "queries",
        type=Path,
        help="TSV (header line: query, expected, optional excerpt) or JSONL with those keys",
    )
    p.add_argument(
        "--set",
        dest="sets",
        action="append",
        metavar="VERSION",
        help="a chunk set to score (a version or unique prefix; repeat for several; "
        "default: the active set)",
    )
    p.add_argument(
        "--mode",
        dest="modes",
        action="append",
        choices=SEARCH_MODES,
        help="a search mode (repeat for several; default: every mode the set can run)",
    )
    p.add_argument(
        "--k",
        type=cutoffs,
        default=(1, 5, 10),
        metavar="K,K…",
        help="cut-offs, comma-separated (default 1,5,10)",
    )
    p.add_argument(
        "--split",
        action="store_true",
        help="score the file's two halves apart (odd rows: tune, even rows: test), to choose "
        "on one and check the choice on the other",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(handler=cmd_eval)


def cmd_eval(args: argparse.Namespace) -> int:
    # deferred: see the module's imports
    from specbrowser.session import Session
    from specbrowser.session.evaluate import evaluate, evaluation_json

    queries = read_queries(args.queries)  # a bad file: one line, before opening the database
    halves: dict[str, list[EvalQuery]] = (
        dict(zip(SPLIT_HALVES, split_queries(queries), strict=True)) if args.split else {}
    )
    with Session.open(args.db) as session:
        evaluations = {
            half: evaluate(
                session,
                args.queries,
                versions=args.sets or (),
                modes=args.modes or (),
                ks=args.k,
                queries=part,
            )
            for half, part in (halves or {"": queries}).items()
        }
    first = next(iter(evaluations.values()))
    if not first.runs:
        reasons = "; ".join(dict.fromkeys(s.reason for s in first.skipped))
        raise PolicyError(f"nothing to evaluate: every mode asked for was skipped ({reasons})")
    if args.json:
        payload: dict[str, object] = (
            {"split": {h: evaluation_json(e) for h, e in evaluations.items()}}
            if halves
            else evaluation_json(first)
        )
        print(json.dumps(payload, ensure_ascii=False, indent=2))
        return 0
    for skipped in first.skipped:
        err.print(
            Text(f"skipped {skipped.mode} on chunk set {skipped.policy_version}: {skipped.reason}"),
            soft_wrap=True,
        )
    for half, evaluation in evaluations.items():
        print_evaluation(evaluation, SPLIT_LABELS.get(half, ""))
    return 0


def spec_table(evaluation) -> Table:  # evaluation: session.evaluate's
    """In a corpus: one row per spec answering queries, its query count, then per run its
    hit@k for each k and MRR, as ``0.800 / 0.950 / 0.861``."""
    ks = evaluation.ks
    heads = " / ".join([*(f"hit@{k}" for k in ks), f"MRR@{ks[-1]}"])
    table = Table(title=f"By spec ({heads})", title_justify="left")
    table.add_column("spec", no_wrap=True)
    table.add_column("queries", justify="right")
    parts = [evaluation.by_spec(run) for run in evaluation.runs]
    for run in evaluation.runs:
        table.add_column(Text(f"{run.policy_version}\n{run.mode}"), justify="right")
    for spec in parts[0]:
        cells = [
            " / ".join([*(f"{part[spec].hit[k]:.3f}" for k in ks), f"{part[spec].mrr:.3f}"])
            for part in parts
        ]
        table.add_row(Text(spec), f"{len(parts[0][spec].queries):,}", *cells)
    return table


SPLIT_LABELS = {"tune": "tune half: the odd rows", "test": "test half: the even rows"}


def print_evaluation(evaluation, label: str = "") -> None:  # evaluation: session.evaluate's
    """The metric table (one column per set and mode), then each run's missed queries; ``label``
    names the half of the file scored (``--split``)."""
    # deferred: see the module's imports
    from specbrowser.session.evaluate import metric_rows

    excerpts = evaluation.runs[0].excerpts
    title = Text(
        f"{evaluation.query_count} quer{'y' if evaluation.query_count == 1 else 'ies'} from "
        f"{evaluation.path}"
        + (f", {label}" if label else "")
        + (f" ({excerpts} with an excerpt)" if excerpts else "")
    )
    out.print(title, soft_wrap=True)
    table = Table()
    table.add_column("metric", no_wrap=True)
    for run in evaluation.runs:  # * marks a run whose note says what it does not cover
        mark = "*" if run.note else ""
        table.add_column(Text(f"{run.policy_version}\n{run.mode}{mark}"), justify="right")
    for metric, cells in metric_rows(evaluation):
        table.add_row(metric, *cells)
    out.print(table)
    for run in evaluation.runs:
        if run.note:
            out.print(Text(f"* {run.policy_version} {run.mode}: {run.note}"), soft_wrap=True)
    if evaluation.query_specs:
        out.print(spec_table(evaluation))
    top = evaluation.ks[-1]
    for run in evaluation.runs:
        missed = run.missed
        heading = f"missed in the top {top} ({run.policy_version} {run.mode}): {len(missed)}"
        out.print(f"[bold]{escape(heading)}[/]", soft_wrap=True)
        for score in missed:
            got = ", ".join(score.ranked[:MISSED_SHOWN]) or "nothing"
            out.print(
                Text(
                    f"  line {score.query.line}: {score.query.query} → "
                    f"{' '.join(score.query.expected)} (got: {got})"
                ),
                soft_wrap=True,
            )
