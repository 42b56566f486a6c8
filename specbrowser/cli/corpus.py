"""``specbrowser specs`` and ``specbrowser remove``: the specs a database holds, and removing
one of them (the only command that removes a spec)."""

from __future__ import annotations

import argparse
import json

from rich import box
from rich.markup import escape
from rich.table import Table

from specbrowser.cli._console import out
from specbrowser.cli._options import add_db_argument

# Deferred to the handlers, so that `--help` (which builds every command's parser) and a bad
# argument come without it: Session (the session and store modules, 55–70 ms).


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``specs`` and ``remove`` to the subcommands."""
    p = sub.add_parser(
        "specs",
        help="list the specs of a database: name, title, format, sections, chunks, embedded "
        "share, and how links between them resolve",
    )
    add_db_argument(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(handler=cmd_specs)
    p = sub.add_parser(
        "remove",
        help="remove one spec from a database, with its chunks in every chunk set (the other "
        "specs stay as they are)",
    )
    add_db_argument(p)
    p.add_argument("spec", metavar="SPEC", help="the spec's name, as `specbrowser specs` lists it")
    p.set_defaults(handler=cmd_remove)


def cmd_specs(args: argparse.Namespace) -> int:
    # deferred: see the module's imports
    from specbrowser.session import Session

    with Session.open(args.db) as session:
        specs = session.specs()
        links = session.cross_spec_links() if len(specs) > 1 else []
    if args.json:
        print(
            json.dumps(
                {
                    "specs": [
                        {
                            "name": s.spec.name,
                            "title": s.spec.title,
                            "format": s.spec.kind,
                            "shortname": s.spec.shortname,
                            "canonical_url": s.spec.canonical_url,
                            "sections": s.sections,
                            "chunks": s.chunks,
                            "embedded_share": round(s.embedded_share, 4),
                        }
                        for s in specs
                    ],
                    "cross_spec_links": [
                        {
                            "from": link.source,
                            "to": link.target,
                            "links": link.links,
                            "resolved": link.resolved,
                            "unresolved": link.unresolved,
                        }
                        for link in links
                    ],
                },
                ensure_ascii=False,
            )
        )
        return 0
    table = Table(box=box.SIMPLE_HEAD)
    for column in ("name", "title", "format", "sections", "chunks", "embedded"):
        table.add_column(column, justify="right" if column in ("sections", "chunks") else "left")
    for s in specs:
        table.add_row(
            escape(s.spec.name),
            escape(s.spec.title),
            escape(s.spec.kind),
            f"{s.sections:,}",
            f"{s.chunks:,}",
            f"{s.embedded_share:.0%}",
        )
    out.print(table)
    for link in links:
        out.print(
            f"links {escape(link.source)} → {escape(link.target)}: {link.resolved:,} of "
            f"{link.links:,} resolve",
            soft_wrap=True,
        )
    return 0


def cmd_remove(args: argparse.Namespace) -> int:
    # deferred: see the module's imports
    from specbrowser.session import Session

    with Session.open(args.db) as session:
        spec, chunks = session.remove_spec(args.spec)
        left = len(session.specs())
    out.print(
        f"removed {escape(spec.name)} ({escape(spec.title)}): {chunks:,} chunk rows; "
        f"{left} spec{'' if left == 1 else 's'} left",
        soft_wrap=True,
    )
    return 0
