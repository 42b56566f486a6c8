"""``specbrowser export``: a chunk set as LangChain-shaped records in JSON Lines or Parquet.

The records and formats are :mod:`specbrowser.session.export`'s; this module parses the
options, shows a progress bar on stderr for large sets and prints one summary line.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.markup import escape

from specbrowser.cli._console import err, out
from specbrowser.cli._options import add_db_argument
from specbrowser.types import CONTENT_KINDS, EXPORT_FORMATS

# Deferred to cmd_export, so that `--help` (which builds every command's parser) and a bad argument
# come without them: Session and specbrowser.session.export (the session and store modules, 55–70
# ms; pyarrow is loaded only for Parquet) and rich.progress (4 ms).

PROGRESS_MIN_RECORDS = 2000
"""The fewest records for which the export shows a progress bar: a smaller set is written
before a bar would tell anything."""


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``export`` to the subcommands."""
    p = sub.add_parser(
        "export",
        help="write a chunk set as LangChain Document records (JSON Lines or Parquet)",
        description="One record per chunk of the chunk set: {id, page_content, metadata, type}. "
        "page_content is the retrieval text (header + Markdown) unless --content text.",
    )
    add_db_argument(p)
    p.add_argument(
        "--policy",
        metavar="VERSION",
        help="the chunk set's policy version or a unique prefix (default: the active "
        "set; the active set is not changed)",
    )
    p.add_argument(
        "--format",
        choices=EXPORT_FORMATS,
        required=True,
        help="jsonl: one JSON object per line (UTF-8); parquet: needs pyarrow "
        "(pip install 'specbrowser[export]')",
    )
    p.add_argument(
        "--content",
        choices=CONTENT_KINDS,
        default=CONTENT_KINDS[0],
        help="page_content: the retrieval text, as search and embeddings index it "
        "(default), or the chunk's bare Markdown",
    )
    p.add_argument(
        "-o",
        "--output",
        type=Path,
        required=True,
        metavar="FILE",
        help="the file to write (replaced atomically when complete), or - for "
        "standard output (the summary line then goes to standard error)",
    )
    p.set_defaults(handler=cmd_export)


def cmd_export(args: argparse.Namespace) -> int:
    # deferred: see the module's imports
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    from specbrowser.session import Session
    from specbrowser.session.export import check_output_path, is_stream, require_pyarrow

    check_output_path(args.output)  # the cheap mistakes first, before the progress bar starts
    if args.format == "parquet":
        require_pyarrow()
    with Session.open(args.db) as session:
        total = session.chunk_count(args.policy)
        with Progress(
            "[progress.description]{task.description}",
            BarColumn(),
            MofNCompleteColumn(),
            TimeRemainingColumn(),
            console=err,
            transient=True,
            disable=total < PROGRESS_MIN_RECORDS or not err.is_terminal,
        ) as bar:
            task = bar.add_task("exporting", total=None)
            result = session.export(
                args.output,
                format=args.format,
                policy_version=args.policy,
                content=args.content,
                progress=lambda _stage, done, of: bar.update(task, completed=done, total=of),
            )
    content = "retrieval text" if args.content == "retrieval" else "chunk Markdown"
    console = err if is_stream(args.output) else out  # standard output may be the records
    console.print(
        f"{result.records:,} records (page_content: {content}) of chunk set "
        f"{escape(result.policy_version)} → {escape(str(result.path))} "
        f"({result.size_bytes / 1e6:.1f} MB, {result.seconds:.2f} s)",
        soft_wrap=True,
    )
    return 0
