"""``specbrowser advise``: try chunking policies on a database's spec and recommend one."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from rich.table import Table
from rich.text import Text

from specbrowser.cli._console import err, out
from specbrowser.cli._options import add_db_argument, at_least
from specbrowser.errors import PolicyError
from specbrowser.session.query_file import read_queries, split_queries
from specbrowser.types import BREAKDOWN_STRATEGIES, SEARCH_MODES, SIZE_UNITS

# Deferred to cmd_advise, so that `--help` (which builds every command's parser) and a bad argument
# come without them: Session (the session and store modules, 55–70 ms) and the advisor.


def _numbers(text: str) -> tuple[int, ...]:
    parse = at_least(0)
    try:
        values = tuple(dict.fromkeys(parse(part.strip()) for part in text.split(",")))
    except argparse.ArgumentTypeError as exc:
        raise argparse.ArgumentTypeError(f"{text!r}: {exc}") from None
    return values


def _choices(allowed: tuple[str, ...]):
    def parse(text: str) -> tuple[str, ...]:
        values = tuple(dict.fromkeys(v.strip() for v in text.split(",") if v.strip()))
        wrong = [v for v in values if v not in allowed]
        if wrong or not values:
            raise argparse.ArgumentTypeError(
                f"{text!r}: choose from {', '.join(allowed)}, comma-separated"
            )
        return values

    parse.__name__ = "list"
    return parse


def _tag_orders(text: str) -> tuple[tuple[str, ...], ...]:
    orders = tuple(
        tuple(t.strip() for t in order.split(",") if t.strip()) for order in text.split(";")
    )
    if not orders or any(not order for order in orders):
        raise argparse.ArgumentTypeError(
            f"{text!r}: give tag orders as comma-separated tags, orders separated by ';' "
            '("emu-table,p;emu-table,tr,p")'
        )
    return orders


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``advise`` to the subcommands."""
    p = sub.add_parser(
        "advise",
        help="try chunking policies on the stored spec, score each on queries, recommend one",
    )
    add_db_argument(p)
    p.add_argument(
        "--queries",
        action="append",
        type=Path,
        metavar="FILE",
        help="a query file as eval reads it (repeat for several; default: queries made from "
        "the spec itself)",
    )
    p.add_argument("--thresholds", type=_numbers, metavar="N,N…", help="thresholds to try")
    p.add_argument("--unit", choices=SIZE_UNITS, default="chars", help="the thresholds' unit")
    p.add_argument("--tags-orders", type=_tag_orders, metavar='"A,B;C,D"', help="tag orders")
    p.add_argument(
        "--strategies",
        type=_choices(BREAKDOWN_STRATEGIES),
        metavar="S,S",
        help=f"breakdown strategies to try ({', '.join(BREAKDOWN_STRATEGIES)})",
    )
    p.add_argument("--max-depths", type=_numbers, metavar="N,N…", help="max depths to try")
    p.add_argument(
        "--modes",
        type=_choices(SEARCH_MODES),
        default=("lexical",),
        metavar="M,M",
        help="search modes to score (default lexical; semantic and hybrid embed the texts "
        "without a vector first)",
    )
    p.add_argument(
        "--budget", type=at_least(1), default=16, metavar="N", help="most candidates (16)"
    )
    p.add_argument(
        "--split",
        action="store_true",
        help="choose on the queries' odd rows, then score the choice and the active set on "
        "the even rows",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--apply", action="store_true", help="make the recommendation active")
    p.add_argument(
        "--keep",
        action="store_true",
        help="keep every candidate's chunk set (default with "
        "--apply: keep only the recommendation's)",
    )
    p.add_argument(
        "--remove",
        action="store_true",
        help="delete the chunk sets the advisor made (not the active one) and stop",
    )
    p.set_defaults(handler=cmd_advise)


def cmd_advise(args: argparse.Namespace) -> int:
    # deferred: see the module's imports
    from specbrowser.session import Session
    from specbrowser.session.advise import GridOptions, QuerySet, advise, remove_advised
    from specbrowser.session.auto_queries import AUTOMATIC_SOURCE, automatic_queries

    files = [(str(path), read_queries(path)) for path in args.queries or ()]  # before opening
    options = GridOptions(
        thresholds=args.thresholds,
        unit=args.unit,
        tag_orders=args.tags_orders,
        strategies=args.strategies,
        max_depths=args.max_depths,
        budget=args.budget,
    )
    with Session.open(args.db) as session:
        if args.remove:
            gone = remove_advised(session)
            session.compact() if gone else None
            out.print(Text(f"removed {len(gone)} chunk set(s) the advisor made"), soft_wrap=True)
            return 0
        if not files:
            made = automatic_queries(session.store, session.active_version())
            if not made:
                raise PolicyError("the spec has no prose to make queries from; give --queries")
            files = [(AUTOMATIC_SOURCE, made)]
            err.print(
                Text(
                    f"no --queries given: scoring on {len(made)} {AUTOMATIC_SOURCE} made from "
                    "the spec (passages asked in other words, and defined names)"
                ),
                soft_wrap=True,
            )
        halves = {name: split_queries(queries) for name, queries in files}
        tune = [
            QuerySet(name, tuple(halves[name][0] if args.split else queries))
            for name, queries in files
        ]
        counter = _counter()
        if counter is None:
            err.print("no tokenizer installed: tokens are estimated as characters ÷ 4")
        advice = advise(
            session,
            tune,
            options=options,
            modes=args.modes,
            report=lambda line: err.print(Text(line), soft_wrap=True),
            counter=counter,
            embedder=_embedder(session, args.modes),
        )
        held_out = None
        if args.split:
            from specbrowser.session.advise import held_out_scores  # deferred with the rest

            test = [QuerySet(name, tuple(halves[name][1])) for name, _q in files]
            held_out = held_out_scores(session, advice, test)
        applied = None
        if args.apply and not advice.interrupted:
            applied = session.activate(advice.recommended.version)
            if not args.keep:
                gone = remove_advised(session, keep=[applied])
                if gone:
                    session.compact()
    if args.json:
        print(json.dumps(_payload(advice, held_out, applied), ensure_ascii=False, indent=2))
    else:
        _print(advice, held_out, applied, args.keep or not args.apply)
    return 130 if advice.interrupted else 0


def _counter():
    from specbrowser.search.tokens import default_token_counter  # deferred: 5 ms

    return default_token_counter()


def _embedder(session, modes):
    """The embedding model when a mode needs vectors and they can be stored, else None (the
    advisor then skips those modes, saying why)."""
    if all(mode == "lexical" for mode in modes) or session.vectors_off():
        return None
    from specbrowser.search.embed import load_embedder  # deferred: onnxruntime, seconds

    return load_embedder(session.embedding_model(), None)


def _print(advice, held_out, applied, kept: bool) -> None:
    queries = ", ".join(f"{len(qs.queries)} from {qs.name}" for qs in advice.query_sets)
    out.print(
        Text(f"{len(advice.results)} candidates · {', '.join(advice.modes)} · queries: {queries}"),
        soft_wrap=True,
    )
    table = Table()
    for name, justify in (
        ("#", "right"),
        ("", "left"),
        ("candidate", "left"),
        ("version", "left"),
        ("chunks", "right"),
        ("hit@1", "right"),
        ("hit@5", "right"),
        ("MRR", "right"),
        ("tokens/hit", "right"),
        ("tiny", "right"),
        ("over window", "right"),
        ("score", "right"),
    ):
        table.add_column(name, justify=justify, no_wrap=name != "candidate")  # type: ignore[arg-type]
    for r in advice.results:
        mark = advice.mark(r)
        if r.same_as:
            cells = [f"= {r.same_as}"] + [""] * 7
        else:
            cells = [
                f"{r.stats.chunks:,}",
                f"{r.mean(lambda run: run.hit[1]):.3f}",
                f"{r.hit5:.3f}",
                f"{r.mrr:.3f}",
                f"{r.tokens_per_hit:,.0f}",
                f"{r.stats.tiny_chunks or 0:,}",
                f"{r.over_window:,}",
                f"{r.score:.3f}",
            ]
        table.add_row(str(r.rank), mark, Text(r.candidate.label), r.version[:12], *cells)
    out.print(table)
    out.print("★ recommended · ◆ on the Pareto front of retrieval against tokens per hit")
    if advice.estimated_tokens:
        out.print("tokens are estimated as characters ÷ 4 (no tokenizer installed)")
    for mode, reason in advice.skipped_modes.items():
        out.print(Text(f"{mode} not scored: {reason}"), soft_wrap=True)
    out.print(Text(advice.why), soft_wrap=True)
    best, active = advice.recommended, advice.active
    for spec, figures in best.by_spec.items():  # a corpus: the recommendation per spec
        was = active.by_spec.get(spec, figures)
        out.print(
            Text(
                f"  {spec} ({figures['queries']:.0f} queries): hit@5 {was['hit@5']:.3f} → "
                f"{figures['hit@5']:.3f}, MRR {was['mrr']:.3f} → {figures['mrr']:.3f}"
            ),
            soft_wrap=True,
        )
    if held_out:
        for label, figures in held_out.items():
            out.print(
                Text(
                    f"held-out half, {label}: hit@5 {figures['hit@5']:.3f}, MRR "
                    f"{figures['mrr']:.3f}, score {figures['score']:.3f}"
                ),
                soft_wrap=True,
            )
    if advice.interrupted:
        out.print(Text("interrupted: the table holds the candidates finished"), soft_wrap=True)
    if applied:
        out.print(Text(f"applied: chunk set {applied} is active"), soft_wrap=True)
    elif kept:
        out.print(
            Text(
                "the candidates' chunk sets are kept; apply with --apply, or remove them with: "
                "specbrowser advise DB --remove"
            ),
            soft_wrap=True,
        )


def _payload(advice, held_out, applied) -> dict[str, object]:
    from specbrowser.session.advise import advice_json  # deferred with the rest

    payload = advice_json(advice)
    if held_out is not None:
        payload["split"] = held_out
    payload["applied"] = applied
    return payload
