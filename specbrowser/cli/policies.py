"""``specbrowser policies``: list the stored chunk sets, switch the active one, delete others."""

from __future__ import annotations

import argparse
import json

from rich import box
from rich.markup import escape
from rich.table import Table

from specbrowser.chunking.policy import CONVERTER_VERSION, stored_threshold_label
from specbrowser.chunking.stats import quality_line
from specbrowser.cli._console import err, out
from specbrowser.cli._options import add_db_argument

# Deferred to cmd_policies, so that `--help` (which builds every command's parser) and a bad
# argument come without it: Session (the session and store modules, 55–70 ms).


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``policies`` to the subcommands."""
    p = sub.add_parser(
        "policies",
        help="list the chunk sets (one per policy version); switch the active one; delete others",
    )
    add_db_argument(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument(
        "--activate",
        metavar="VERSION",
        help="make this policy version's chunk set the active one (a unique prefix will do)",
    )
    p.add_argument(
        "--delete",
        metavar="VERSION",
        action="append",
        default=[],
        help="delete this policy version's chunk set (not the active one; a unique "
        "prefix will do; repeat for several), then compact the file",
    )
    p.set_defaults(handler=cmd_policies)


def cmd_policies(args: argparse.Namespace) -> int:
    # deferred: see the module's imports
    from specbrowser.session import Session

    with Session.open(args.db) as session:
        document = session.document()
        title = session.title()
        activated, deleted = None, []
        if args.delete:  # with --activate, both in one transaction: all or nothing
            said = err if args.json else out  # stdout stays one JSON object
            size = args.db.stat().st_size
            deleted = session.delete_chunk_sets(args.delete, activate=args.activate)
            activated = session.active_version() if args.activate is not None else None
            for version, chunks, texts in deleted:
                said.print(
                    f"deleted chunk set {escape(version)}: {chunks:,} chunks, {texts:,} "
                    "texts no other set used",
                    soft_wrap=True,
                )
            session.compact()  # said after the deletions: they stand if the file cannot shrink
            said.print(
                f"database: {size / 1e6:,.1f} MB → {args.db.stat().st_size / 1e6:,.1f} MB",
                soft_wrap=True,
            )
        elif args.activate is not None:
            activated = session.activate(args.activate)
        sets = session.chunk_sets()
    if args.json:
        print(
            json.dumps(
                {
                    "document": document.title,
                    "converter_version": CONVERTER_VERSION,
                    "policies": [
                        {
                            "version": s.version,
                            "active": s.active,
                            "stale": s.stale,
                            "converter_version": s.converter_version,
                            "created_at": s.created_at,
                            "chunks": s.chunks,
                            "over_threshold": s.over_threshold,
                            "quality": {
                                "tiny_chunks": s.stats.tiny_chunks,
                                "breakdown_marker_share": s.stats.breakdown_marker_share,
                                "mostly_marker_chunks": s.stats.mostly_marker_chunks,
                            },
                            "settings": s.settings,
                        }
                        for s in sets
                    ],
                    **(
                        {
                            "deleted": [
                                {"version": version, "chunks": chunks, "texts": texts}
                                for version, chunks, texts in deleted
                            ]
                        }
                        if deleted
                        else {}
                    ),
                },
                ensure_ascii=False,
                indent=2,
            )
        )
        return 0
    if activated is not None:
        chosen = next(s for s in sets if s.version == activated)
        note = (
            f" [yellow](stale: made by converter version {chosen.converter_version}, this "
            f"specbrowser writes {CONVERTER_VERSION})[/]"
            if chosen.stale
            else ""
        )
        out.print(f"active chunk set: {escape(activated)}{note}", soft_wrap=True)
    out.print(_policies_table(title, sets))
    return 0


def _policies_table(title: str, sets: list) -> Table:
    """The chunk sets as a Rich table that fits 80 columns; spec and policy text never markup."""
    table = Table(
        title=f"{escape(title)}: {len(sets)} chunk set{'s' if len(sets) != 1 else ''}",
        title_justify="left",
        box=box.SIMPLE_HEAD,
        padding=(0, 1, 0, 0),
        caption="● active set"
        + (
            f" · stale: made by another converter version than this specbrowser's "
            f"({CONVERTER_VERSION})"
            if any(s.stale for s in sets)
            else ""
        ),
        caption_justify="left",
    )
    table.add_column("", no_wrap=True)
    table.add_column("version", no_wrap=True)
    table.add_column("threshold", justify="right", no_wrap=True)
    table.add_column("tags · strategy", min_width=12, overflow="fold")
    table.add_column("depth", justify="right", no_wrap=True)
    table.add_column("created (UTC)", min_width=10)
    table.add_column("chunks", justify="right", no_wrap=True)
    table.add_column("over threshold", min_width=13, overflow="fold")
    table.add_column("quality", min_width=12, overflow="fold")
    for chunk_set in sets:
        settings = chunk_set.settings
        tags = ", ".join(str(t) for t in settings.get("breakdown_tags") or []) or "(none)"
        strategy = str(settings.get("strategy", "seed"))
        if strategy != "seed":
            strategy += f", min {settings.get('min_chars', '?')}"
        overruns = "\n".join(f"{reason} {n:,}" for reason, n in chunk_set.over_threshold.items())
        created = chunk_set.created_at.replace("T", " ").removesuffix("+00:00")
        version = escape(chunk_set.version)
        table.add_row(
            "[bold green]●[/]" if chunk_set.active else "",
            (f"[bold]{version}[/]" if chunk_set.active else version)
            + ("\n[yellow]stale[/]" if chunk_set.stale else ""),
            escape(stored_threshold_label(settings)),
            f"{escape(tags)}\n[dim]{escape(strategy)}[/]",
            escape(str(settings.get("max_depth", "?"))),
            escape(created),
            f"{chunk_set.chunks:,}",
            escape(overruns) or "none",
            escape(quality_line(chunk_set.stats).replace(" · ", "\n")),
        )
    return table
