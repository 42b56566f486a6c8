"""``specbrowser ingest``: parse a spec, chunk it, store it (and with ``--embed`` embed it)."""

from __future__ import annotations

import argparse
from pathlib import Path

from specbrowser.cli._console import stage_progress
from specbrowser.cli._options import add_policy_options, policy_for_kind_from_args, policy_from_args
from specbrowser.cli._summary import outcome_line, print_summary, toc_entries_without_section
from specbrowser.cli.search import cmd_embed
from specbrowser.process import keep_until_exit
from specbrowser.session.jobs import run_ingest


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``ingest`` command to the top-level parser's subcommands."""
    p = sub.add_parser("ingest", help="parse a spec, chunk it and store it in a database")
    p.add_argument(
        "spec",
        nargs="+",
        type=Path,
        metavar="SPEC",
        help="a spec .html file, a multipage folder, or an ecmarkup source folder",
    )
    p.add_argument(
        "--db",
        type=Path,
        required=True,
        help="the SQLite file to write: the spec is added to the specs it holds, or replaces "
        "itself there when it comes with new bytes (see `specbrowser specs`); other specs "
        "are never touched",
    )
    p.add_argument(
        "--toc",
        type=Path,
        metavar="FILE",
        help="an external TOC (JSON, schemas/toc.schema.json) to reconcile heading "
        "paths with, instead of the document's own",
    )
    p.add_argument(
        "--embed",
        action="store_true",
        help="then embed the new chunk set with the default model (slow: see "
        "`specbrowser embed`); without it ingest never waits for embeddings",
    )
    add_policy_options(p)
    p.set_defaults(handler=cmd_ingest)


def cmd_ingest(args: argparse.Namespace) -> int:
    policy, for_kind = policy_from_args(args), policy_for_kind_from_args(args)
    size = args.db.stat().st_size if args.db.is_file() else 0
    with stage_progress("parsing") as progress:
        result = run_ingest(
            args.spec,
            args.db,
            policy,
            toc_file=args.toc,
            policy_for_kind=for_kind,
            progress=progress,
        )
    if for_kind is not None:
        policy = for_kind(result.parsed.document.kind)
    print_summary(
        result.parsed.document.title,
        args.db,
        policy,
        result.stats,
        result.timings,
        outcome_line(result.outcome, result.chunk_sets, (size, args.db.stat().st_size)),
        toc_entries_without_section=toc_entries_without_section(result.mismatches),
    )
    keep_until_exit(result)
    if args.embed:  # the ingest is stored; embedding is its own resumable step
        return cmd_embed(
            argparse.Namespace(
                db=args.db,
                model=None,
                model_dir=None,
                batch=32,
                limit=None,
                threads=None,
                rebuild=False,
            )
        )
    return 0
