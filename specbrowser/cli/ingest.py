"""``specbrowser ingest``: parse a spec, chunk it, store it (and with ``--embed`` embed it)."""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import TYPE_CHECKING

from rich.markup import escape

from specbrowser.cli._console import out, stage_progress
from specbrowser.cli._options import add_policy_options, policy_for_kind_from_args, policy_from_args
from specbrowser.cli._summary import outcome_line, print_summary, toc_entries_without_section
from specbrowser.cli.search import cmd_embed
from specbrowser.errors import SpecInputError
from specbrowser.process import keep_until_exit
from specbrowser.session.jobs import run_ingest, run_ingest_each

if TYPE_CHECKING:
    from specbrowser.chunking.policy import ChunkPolicy, PolicyForKind
    from specbrowser.session.ingest import IngestResult


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``ingest`` command to the top-level parser's subcommands."""
    p = sub.add_parser("ingest", help="parse a spec, chunk it and store it in a database")
    p.add_argument(
        "spec",
        nargs="+",
        type=Path,
        metavar="SPEC",
        help="a spec .html file, a multipage folder, or an ecmarkup source folder; several "
        "are the pages of one spec, or with --each several specs",
    )
    p.add_argument(
        "--each",
        action="store_true",
        help="each SPEC is a spec of its own, added to the database's corpus one after another "
        "in one process (the next parsed while the one before is stored), as that many "
        "ingest commands would",
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
    if args.each:
        if args.toc is not None:
            raise SpecInputError("--toc names one spec's TOC: ingest that spec on its own")
        _ingest_each(args, policy, for_kind)
    else:
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
        _print_ingest(args.db, policy, for_kind, result, size)
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


def _print_ingest(
    db: Path,
    policy: ChunkPolicy,
    for_kind: PolicyForKind | None,
    result: IngestResult,
    size_before: int,
) -> None:
    """One spec's summary table (its kind's policy when ``for_kind`` gives one), or for an
    ingest that wrote nothing one line saying so; the result is kept until the process exits
    (:func:`keep_until_exit`)."""
    keep_until_exit(result)
    if result.outcome == "unchanged":
        out.print(
            escape(
                f"{result.parsed.document.title} → {db}: unchanged (these bytes are stored "
                "under this policy, in the chunk set now active); nothing written"
            )
        )
        return
    if for_kind is not None:
        policy = for_kind(result.parsed.document.kind)
    print_summary(
        result.parsed.document.title,
        db,
        policy,
        result.stats,
        result.timings,
        outcome_line(result.outcome, result.chunk_sets, (size_before, db.stat().st_size)),
        toc_entries_without_section=toc_entries_without_section(result.mismatches),
        set_version=result.set_version,
    )


def _ingest_each(
    args: argparse.Namespace, policy: ChunkPolicy, for_kind: PolicyForKind | None
) -> None:
    """``ingest --each``: every SPEC a spec of its own
    (:func:`specbrowser.session.jobs.run_ingest_each`); once the progress bar is gone, each
    stored spec's summary, then a line for them all. A spec that fails stops the command:
    the specs stored before it keep their chunks and get their summaries.

    Raises:
        SpecbrowserError: what the ingest of a spec raises.
    """
    start = time.perf_counter()
    sizes = [args.db.stat().st_size if args.db.is_file() else 0]
    results: list[IngestResult] = []

    def ingested(result: IngestResult) -> None:
        results.append(result)
        sizes.append(args.db.stat().st_size)

    try:
        with stage_progress("parsing") as progress:
            run_ingest_each(
                [[path] for path in args.spec],
                args.db,
                policy,
                policy_for_kind=for_kind,
                progress=progress,
                ingested=ingested,
            )
    finally:
        for result, size in zip(results, sizes, strict=False):
            _print_ingest(args.db, policy, for_kind, result, size)
    seconds = time.perf_counter() - start
    skipped = sum(result.outcome == "unchanged" for result in results)
    line = f"{len(results)} specs ingested into {args.db} in {seconds:.2f} s"
    if skipped:
        line = (
            line.replace(" ingested", "")
            + f": {len(results) - skipped} written, {skipped} unchanged"
        )
    out.print(escape(line))
