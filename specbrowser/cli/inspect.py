"""Read-only views of a database: ``show``, ``subsections``, ``stats``, ``mismatches``."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from rich.markup import escape
from rich.table import Table

from specbrowser.chunking.toc_paths import MISMATCH_KINDS
from specbrowser.cli._common import out, print_summary


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
    from specbrowser.search.tokens import token_info
    from specbrowser.store import active_version, get_chunk, iter_descendants, open_database

    db = open_database(args.db)
    try:
        chunk_id = _chunk_id(db, args.id)
        chunks = (
            iter_descendants(db, chunk_id) if args.recursive else iter([get_chunk(db, chunk_id)])
        )
        tokens = token_info(db, active_version(db))
        for chunk in chunks:
            flag = (
                f" [red]over threshold: {chunk.over_threshold}[/]" if chunk.over_threshold else ""
            )
            count = tokens.counts.get(chunk.id) if tokens else None
            if count is not None:
                flag = f" · {count:,} tokens" + flag
                if tokens.max_tokens is not None and count > tokens.max_tokens:
                    flag += f" [yellow]embedding truncated (> {tokens.max_tokens})[/]"
            out.rule(
                f"[bold]{escape(chunk.id)}[/] · depth {chunk.depth} · "
                f"{escape(chunk.breakdown_tag or chunk.layer)} · {chunk.size:,} chars{flag}",
                align="left",
            )
            text = chunk.retrieval_text if args.retrieval_text else chunk.text
            out.print(text, markup=False, highlight=False, soft_wrap=True)
    finally:
        db.close()
    return 0


def cmd_subsections(args: argparse.Namespace) -> int:
    from specbrowser.store import get_chunk, get_section, open_database, subsections_of

    db = open_database(args.db)
    try:
        chunk = get_chunk(db, _chunk_id(db, args.id))
        children = subsections_of(db, chunk)
        if not children:
            out.print(f"{escape(chunk.id)} has no subsections.")
            return 0
        table = Table(
            title=f"{len(children)} subsections of {escape(chunk.id)}", title_justify="left"
        )
        table.add_column("id", no_wrap=True, overflow="fold")
        for name in ("kind", "title", "chars", "over threshold"):
            table.add_column(name, justify="right" if name == "chars" else "left")
        for child in children:
            kind = child.breakdown_tag or (
                _section_kind_label(get_section(db, child.section_id).kind)
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
    finally:
        db.close()
    return 0


def _chunk_id(db, text: str) -> str:
    """``text`` when a chunk of the active set has that id, else the id of the section whose
    number it is (``14.6``).

    Raises:
        NotFoundError: neither (the message names the chunk id).
    """
    from specbrowser.errors import NotFoundError
    from specbrowser.store import get_chunk, resolve_section

    try:
        return get_chunk(db, text).id
    except NotFoundError:
        try:
            return resolve_section(db, text)
        except NotFoundError:
            raise NotFoundError(f"no chunk or section with id or number {text!r}") from None


def _section_kind_label(kind: str) -> str:
    """A child section's kind as ``subsections`` shows it: the element that made it, as its
    format names it, else the kind itself (``heading`` for plain HTML)."""
    from specbrowser.formats import section_kind_label

    return section_kind_label(kind)


def cmd_stats(args: argparse.Namespace) -> int:
    from specbrowser.search.tokens import token_info, token_summary
    from specbrowser.store import (
        active_policy,
        active_version,
        chunk_stats,
        get_document,
        open_database,
    )

    db = open_database(args.db)
    try:
        document = get_document(db)
        policy, _ = active_policy(db)
        version = active_version(db)
        stats = chunk_stats(db)
        stats["tokens"] = token_summary(token_info(db, version))
    finally:
        db.close()
    if args.json:
        payload = {
            "document": document.title,
            "policy": {**policy.settings(), "version": version},
            **stats,
        }
        print(json.dumps(payload, ensure_ascii=False, indent=2))
        return 0
    print_summary(document.title, args.db, policy, stats, {})
    return 0


def cmd_mismatches(args: argparse.Namespace) -> int:
    from specbrowser.store import open_database
    from specbrowser.store.toc import list_mismatches, mismatch_counts, toc_size

    db = open_database(args.db)
    try:
        found = list_mismatches(db, args.kind)
        counts = mismatch_counts(db)
        entries = toc_size(db)
    finally:
        db.close()
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
