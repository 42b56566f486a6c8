"""``specbrowser check``: what a user should distrust in a chunk set, with exit status 1 when
anything is found (for CI jobs that ingest their specs)."""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict

from rich.markup import escape
from rich.text import Text

from specbrowser.cli._console import out
from specbrowser.cli._options import add_db_argument

EXIT_FOUND = 1
"""Exit status when a check found something (2 stays a user mistake)."""

# Deferred to the command, so that `--help` (which builds every command's parser) and a bad argument
# come without it: Session (the session and store modules, 55–70 ms).


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``check`` to the subcommands."""
    p = sub.add_parser(
        "check",
        help="report what to distrust in a chunk set (U+FFFD, dead links, heading paths, "
        "reassembly, table rows); exit 1 when anything is found",
    )
    add_db_argument(p)
    p.add_argument(
        "--set",
        dest="version",
        metavar="VERSION",
        help="the chunk set to check (a version or unique prefix; default: the active set)",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(handler=cmd_check)


def cmd_check(args: argparse.Namespace) -> int:
    """Run every check; print the counts and the first findings of each kind."""
    # deferred: see the module's imports
    from specbrowser.session import Session
    from specbrowser.session.check import CHECK_KINDS, CHECK_TITLES

    with Session.open(args.db) as session:
        report = session.check(args.version)
    status = 0 if report.clean else EXIT_FOUND
    if args.json:
        payload = {
            "policy_version": report.policy_version,
            "clean": report.clean,
            "counts": report.counts,
            "sections_reassembled": report.sections_reassembled,
            "links": report.links,
            "findings": {k: [asdict(f) for f in v] for k, v in report.findings.items()},
        }
        print(json.dumps(payload, ensure_ascii=False, indent=2))
        return status
    out.print(
        Text(
            f"chunk set {report.policy_version}: {report.links:,} in-document links and "
            f"{report.sections_reassembled:,} sections' reassembly checked"
        ),
        soft_wrap=True,
    )
    for kind in CHECK_KINDS:
        count = report.counts[kind]
        mark = "[green]ok[/]" if not count else f"[red]{count:,}[/]"
        out.print(f"{mark}  {escape(CHECK_TITLES[kind])}", soft_wrap=True)
        for finding in report.findings[kind]:
            out.print(Text(f"    {finding.where}: {finding.detail}"), soft_wrap=True)
        if count > len(report.findings[kind]):
            out.print(Text(f"    … and {count - len(report.findings[kind]):,} more"), style="dim")
    return status
