"""Read-only views of a database: ``show``, ``subsections``, ``stats``, ``mismatches``."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from rich.markup import escape
from rich.table import Table

from specbrowser.cli._common import out, print_summary, tokens_row
from specbrowser.types import MISMATCH_KINDS


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``show``, ``subsections``, ``stats`` and ``mismatches`` to the subcommands."""
    p = sub.add_parser("show", help="print a chunk (and with --recursive all its descendants)")
    p.add_argument("db", type=Path)
    p.add_argument("id", help="a chunk or section id, or a section number (14.6)")
    p.add_argument("--recursive", "-r", action="store_true")
    p.add_argument(
        "--retrieval-text",
        action="store_true",
        help="print the retrieval text (header + content) that search and embeddings index",
    )
    p.set_defaults(handler=cmd_show)

    p = sub.add_parser("subsections", help="list a chunk's direct subsections")
    p.add_argument("db", type=Path)
    p.add_argument("id", help="a chunk or section id, or a section number (14.6)")
    p.set_defaults(handler=cmd_subsections)

    p = sub.add_parser("stats", help="counts, sizes and overruns of the active chunk set")
    p.add_argument("db", type=Path)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(handler=cmd_stats)

    p = sub.add_parser(
        "mismatches", help="where the section tree and the table of contents disagree"
    )
    p.add_argument("db", type=Path)
    p.add_argument("--kind", choices=MISMATCH_KINDS, help="only this kind of mismatch")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(handler=cmd_mismatches)


def cmd_show(args: argparse.Namespace) -> int:
    from specbrowser.chunking.markers import size_without_markers
    from specbrowser.session import Session

    with Session.open(args.db) as session:
        chunk_id = session.chunk_id_for(args.id)
        chunks = (
            session.descendants(chunk_id) if args.recursive else iter([session.chunk(chunk_id)])
        )
        tokens = session.token_info()
        window = tokens.max_tokens if tokens else None
        for chunk in chunks:
            flag = (
                f" [red]over threshold: {chunk.over_threshold}[/]" if chunk.over_threshold else ""
            )
            count = tokens.counts.get(chunk.id) if tokens else None
            if count is not None:
                flag = f" · {count:,} tokens" + flag
                if window is not None and count > window:
                    flag += f" [yellow]embedding truncated (> {window})[/]"
            bare = size_without_markers(chunk.text)
            size = f"{chunk.size:,} chars" + (
                f" ({bare:,} without markers)" if bare != chunk.size else ""
            )
            out.rule(
                f"[bold]{escape(chunk.id)}[/] · depth {chunk.depth} · "
                f"{escape(chunk.breakdown_tag or chunk.layer)} · {size}{flag}",
                align="left",
            )
            text = chunk.retrieval_text if args.retrieval_text else chunk.text
            out.print(text, markup=False, highlight=False, soft_wrap=True)
    return 0


def cmd_subsections(args: argparse.Namespace) -> int:
    from specbrowser.session import Session

    with Session.open(args.db) as session:
        chunk = session.chunk(session.chunk_id_for(args.id))
        children = session.subsections(chunk)
        if not children:
            out.print(f"{escape(chunk.id)} has no subsections.")
            return 0
        table = Table(
            title=f"{len(children)} subsection{'s' if len(children) != 1 else ''} of "
            f"{escape(chunk.id)}",
            title_justify="left",
        )
        table.add_column("id", no_wrap=True, overflow="fold")
        for name in ("kind", "title", "chars", "over threshold"):
            table.add_column(name, justify="right" if name == "chars" else "left")
        for child in children:
            kind = child.breakdown_tag or (
                _section_kind_label(session.section(child.section_id).kind)
                if child.section_id
                else child.layer
            )
            table.add_row(
                escape(child.id),
                escape(kind),
                escape(child.title),
                f"{child.size:,}",
                escape(child.over_threshold or ""),
            )
        out.print(table)
    return 0


def _section_kind_label(kind: str) -> str:
    """A child section's kind as ``subsections`` shows it: the element that made it, as its
    format names it, else the kind itself (``heading`` for plain HTML)."""
    from specbrowser.formats import section_kind_label

    return section_kind_label(kind)


def cmd_stats(args: argparse.Namespace) -> int:
    from specbrowser.search.tokens import token_summary
    from specbrowser.session import Session

    with Session.open(args.db) as session:
        document = session.document()
        policy, _ = session.active_policy()
        version = session.active_version()
        stats = session.stats()
        tokens = token_summary(session.token_info(version))
    if args.json:
        payload = {
            "document": document.title,
            "policy": {**policy.settings(), "version": version},
            **stats.to_dict(),
            "breakdown_marker_share": _rounded(stats.breakdown_marker_share),
            "section_marker_share": _rounded(stats.section_marker_share),
            "tokens": tokens,
        }
        print(json.dumps(payload, ensure_ascii=False, indent=2))
        return 0
    print_summary(document.title, args.db, policy, stats, {}, extra_rows=[tokens_row(tokens)])
    return 0


def _rounded(share: float | None) -> float | None:
    """A share to 4 decimals (0.1 per mille: enough to compare sets), None kept."""
    return None if share is None else round(share, 4)


def cmd_mismatches(args: argparse.Namespace) -> int:
    from specbrowser.session import Session

    with Session.open(args.db) as session:
        found = session.mismatches(args.kind)
        counts = session.mismatch_counts()
        entries = session.toc_size()
    if args.json:
        print(
            json.dumps(
                {"toc_entries": entries, "counts": counts, "mismatches": [vars(m) for m in found]},
                ensure_ascii=False,
                indent=2,
            )
        )
        return 0
    if not entries:
        out.print("The document has no table of contents: heading paths are the parser's.")
        return 0
    summary = ", ".join(f"{kind}: {n:,}" for kind, n in counts.items()) or "none"
    out.print(f"{entries:,} TOC entries; mismatches: {escape(summary)}")
    if not found:
        return 0
    table = Table(show_lines=False)
    table.add_column("kind", no_wrap=True)
    table.add_column("section", overflow="fold")
    table.add_column("parser path", overflow="fold")
    table.add_column("TOC path", overflow="fold")
    for mismatch in found:
        table.add_row(
            escape(mismatch.kind),
            escape(mismatch.section_id),
            escape(" › ".join(mismatch.parser_path) or "—"),
            escape(" › ".join(mismatch.toc_path) or "—"),
        )
    out.print(table)
    return 0
