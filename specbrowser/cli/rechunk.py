"""``specbrowser rechunk``: chunk a stored spec again under another policy, from its stored
sections (no source file), and show what changed against the set that was active."""

from __future__ import annotations

import argparse

from rich.text import Text

from specbrowser.cli._console import out, stage_progress
from specbrowser.cli._options import (
    add_db_argument,
    add_policy_options,
    policy_for_kind_from_args,
    policy_from_args,
    unused_tags,
)
from specbrowser.cli.diff import print_diff_summary
from specbrowser.process import keep_until_exit
from specbrowser.session.jobs import run_rechunk

# Deferred to cmd_rechunk, so that `--help` (which builds every command's parser) and a bad argument
# come without it: Session (the session and store modules, 55–70 ms).


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``rechunk`` command to the top-level parser's subcommands."""
    p = sub.add_parser(
        "rechunk",
        help="chunk a database's spec again under another policy (from "
        "its stored sections) and make that set active",
    )
    add_db_argument(p)
    add_policy_options(p)
    p.set_defaults(handler=cmd_rechunk)


def cmd_rechunk(args: argparse.Namespace) -> int:
    """Re-chunk with a progress bar on stderr, then print the diff summary against the set that
    was active (or a note when the policy's set was already stored)."""
    # deferred: see the module's imports
    from specbrowser.session import Session

    policy = policy_from_args(args)  # checks the options before the database is opened
    with Session.open(args.db) as session:
        for_kind = policy_for_kind_from_args(args)
        if for_kind is not None:
            policy = for_kind(session.document().kind)
        with stage_progress("loading") as progress:
            result = run_rechunk(session.path, policy, progress=progress, in_subprocess=False)
        timings = ", ".join(f"{k} {v:.2f} s" for k, v in result.timings.items())
        if not result.already_stored:
            sections = result.stats.sections
            line = (
                f"re-chunked: {policy.describe()} (version {result.version})\n"
                f"  time: {timings}\n"
                f"  sections parsed and broken down: {result.parsed_sections:,}, copied from "
                f"stored sets: {result.copied_sections:,}, one chunk from the cache: "
                f"{sections - result.copied_sections - result.parsed_sections:,}\n"
                f"  texts written: {result.new_texts:,} new for "
                f"{result.stats.chunks:,} chunks (their other texts were already "
                "stored)"
            )
        elif result.previous_version == result.version:
            line = f"already stored and active: {policy.describe()} (version {result.version})"
        else:
            line = f"already stored: made active: {policy.describe()} (version {result.version})"
        out.print(Text(line), soft_wrap=True, highlight=False)
        unused = unused_tags(policy, result.stats)  # a typo such as emu_table shows here
        if unused:
            out.print(
                Text(f"unused tags: {', '.join(unused)} (extracted nothing)", style="yellow"),
                soft_wrap=True,
            )
        if result.previous_version is None:
            out.print(Text("nothing to compare: no other set was active"), highlight=False)
        elif result.previous_version != result.version:
            print_diff_summary(session.diff(result.previous_version, result.version))
    keep_until_exit(result)
    return 0
