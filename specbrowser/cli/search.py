"""``specbrowser search`` and ``specbrowser embed``."""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from rich.markup import escape
from rich.table import Table
from rich.text import Text

from specbrowser.cli._console import err, out
from specbrowser.cli._options import add_db_argument, at_least
from specbrowser.process import EXIT_INTERRUPTED
from specbrowser.session.jobs import run_embed
from specbrowser.types import LAYERS, SEARCH_MODES, SearchMode

# Deferred to the commands that use them, so that `--help` (which builds every command's parser) and
# a bad argument come without them: Session and specbrowser.search.query (the session and store
# modules, 55–70 ms), rich.progress (4 ms).

SCORE_DECIMALS: dict[SearchMode, int] = {"lexical": 2, "semantic": 3, "hybrid": 4}
"""Decimals a score is printed with, per mode: BM25 (units), minus an L2 distance (under 2),
an RRF sum (hundredths). Fixed per mode, so that a column's scores line up (``3.00`` beside
``3.01``, not ``3``)."""


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``search`` and ``embed`` to the subcommands."""
    p = sub.add_parser(
        "search",
        help="search the active chunk set (lexical by default, or semantic or hybrid); never "
        "errors on odd input",
    )
    add_db_argument(p)
    p.add_argument(
        "query",
        nargs="+",
        help="words to find, taken literally (Array.prototype.map, [[Prototype]] …)",
    )
    p.add_argument(
        "--limit", type=at_least(1), default=10, metavar="N", help="at most N hits (default 10)"
    )
    p.add_argument(
        "--fts",
        action="store_true",
        help=(
            "advanced: FTS5 syntax (phrases, prefix*, AND/OR/NEAR); literal when it does not parse"
        ),
    )
    p.add_argument(
        "--mode",
        choices=SEARCH_MODES,
        default=SEARCH_MODES[0],
        help="lexical (FTS5, default), semantic (embeddings; run `specbrowser embed` "
        "first) or hybrid (reciprocal rank fusion of both)",
    )
    p.add_argument(
        "--section",
        metavar="ID",
        help="only chunks of this section and of the sections below it (a section id, "
        "or its number: 14.6, B.1)",
    )
    p.add_argument("--layer", choices=LAYERS, help="only chunks of this layer")
    p.add_argument(
        "--spec",
        metavar="NAME",
        help="only chunks of this spec of the database (its name, as `specbrowser specs` "
        "lists it); default: the whole corpus",
    )
    p.add_argument(
        "--over-threshold", action="store_true", help="only chunks still over the threshold"
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(handler=cmd_search)

    p = sub.add_parser(
        "embed", help="embed the active chunk set's texts that have no vector yet (resumable)"
    )
    add_db_argument(p)
    which = p.add_mutually_exclusive_group()
    which.add_argument(
        "--model",
        metavar="NAME",
        help="a fastembed model name (default: sentence-transformers/all-MiniLM-L6-v2, "
        "offline; other names may need the network)",
    )
    which.add_argument(
        "--model-dir",
        type=Path,
        metavar="DIR",
        help="a folder holding model.onnx and its tokenizer files, used as is",
    )
    p.add_argument(
        "--batch", type=at_least(1), default=32, metavar="N", help="texts per batch (default 32)"
    )
    p.add_argument(
        "--limit",
        type=at_least(1),
        metavar="N",
        help="embed at most N texts this run (shortest first)",
    )
    p.add_argument(
        "--threads", type=at_least(1), metavar="N", help="onnxruntime threads (default: its own)"
    )
    p.add_argument(
        "--rebuild",
        action="store_true",
        help="drop the vectors of another model stored in DB first (else refused)",
    )
    p.set_defaults(handler=cmd_embed)


def cmd_search(args: argparse.Namespace) -> int:
    # deferred: see the module's imports
    from specbrowser.search.query import (
        HIGHLIGHT_END,
        HIGHLIGHT_START,
        SearchFilter,
        searched_as,
        searched_as_note,
    )
    from specbrowser.session import Session

    query = " ".join(args.query)
    with Session.open(args.db) as session:
        section = session.resolve_section(args.section) if args.section else None
        spec = session.spec(args.spec).id if args.spec else None
        where = SearchFilter(
            section=section,
            layer=args.layer,
            over_threshold=args.over_threshold,
            document_id=spec,
        )
        hits = session.search(query, args.mode, limit=args.limit, advanced=args.fts, where=where)
        note = session.coverage_note(args.mode) if args.mode != "lexical" else ""
    dropped = searched_as_note(query, args.mode, args.fts)
    if not args.json:
        for line in (dropped, note):
            if line:
                err.print(Text(line), soft_wrap=True)
    if args.json:
        payload = [
            {
                **vars(h),
                "snippet": h.snippet.replace(HIGHLIGHT_START, "").replace(HIGHLIGHT_END, ""),
            }
            for h in hits
        ]
        print(
            json.dumps(
                {
                    "query": query,
                    "searched_as": searched_as(query, args.mode, args.fts),
                    "mode": args.mode,
                    "coverage": note,
                    "hits": payload,
                },
                ensure_ascii=False,
                indent=2,
            )
        )
        return 0
    if not hits:
        within = " within the filter" if where else ""
        out.print(Text(f"no chunk matches {query}{within}"))
        return 0
    noun = "hit" if len(hits) == 1 else "hits"
    table = Table(
        title=Text(f"{len(hits)} {noun} for {query}"), title_justify="left", show_lines=True
    )
    table.add_column("score", justify="right", no_wrap=True)
    table.add_column("chunk", overflow="fold")
    table.add_column("snippet", overflow="fold")
    for hit in hits:
        snippet = Text()
        for index, part in enumerate(
            hit.snippet.replace(HIGHLIGHT_END, HIGHLIGHT_START).split(HIGHLIGHT_START)
        ):
            snippet.append(part.replace("\n", " "), style="bold yellow" if index % 2 else "")
        table.add_row(
            f"{hit.score:.{SCORE_DECIMALS.get(hit.mode, 3)}f}",
            Text(f"{hit.chunk_id}\n{' › '.join(hit.heading_path)}"),
            snippet,
        )
    out.print(table)
    return 0


def cmd_embed(args: argparse.Namespace) -> int:
    """Embed what is missing, batch by batch (each committed); Ctrl-C keeps finished batches."""
    # deferred: see the module's imports
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    done = [0]
    start = time.perf_counter()
    try:
        with Progress(
            TextColumn("embedding"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=err,
            transient=True,
            disable=not err.is_terminal,
        ) as bar:
            task = bar.add_task("embedding", total=None)

            def progress(_stage: str, count: int, total: int) -> None:
                done[0] = count
                bar.update(task, completed=count, total=total)

            report = run_embed(
                args.db,
                model=args.model,
                model_dir=args.model_dir,
                threads=args.threads,
                batch_size=args.batch,
                limit=args.limit,
                rebuild=args.rebuild,
                progress=progress,
            )
    except KeyboardInterrupt:
        err.print(
            f"[yellow]interrupted; {done[0]:,} texts embedded in "
            f"{time.perf_counter() - start:.1f} s are kept (run again to continue)[/]",
            soft_wrap=True,
        )
        return EXIT_INTERRUPTED
    rate = f", {report.texts_per_second:.1f} texts/s" if report.embedded else ""
    out.print(
        f"{escape(report.model)} ({report.dim} dims, {escape(report.source)}): "
        f"{report.embedded:,} texts embedded in {report.seconds:.1f} s{rate}; "
        f"{report.cached:,} of {report.total_texts:,} were already embedded",
        soft_wrap=True,
    )
    left = report.total_texts - report.cached - report.embedded
    if left:
        out.print(f"{left:,} texts still missing (run again)")
    if report.truncated_chunks:
        shown = ", ".join(report.truncated_chunks[:5])
        more = " …" if len(report.truncated_chunks) > 5 else ""
        out.print(
            f"[yellow]truncated: {len(report.truncated_chunks):,} chunks over the model's "
            f"{report.max_tokens} tokens[/] ({escape(shown)}{more})",
            soft_wrap=True,
        )
    else:
        out.print("truncated: none")
    return 0
