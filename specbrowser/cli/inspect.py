"""Read-only views of a database: ``show``, ``subsections``, ``stats``, ``mismatches``."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING

from rich.markup import escape
from rich.table import Table

from specbrowser.chunking.markers import size_without_markers
from specbrowser.cli._console import err, out
from specbrowser.cli._options import add_db_argument
from specbrowser.cli._summary import print_summary, tokens_row
from specbrowser.errors import EmbeddingError
from specbrowser.model import Chunk
from specbrowser.session.jobs import run_count_tokens
from specbrowser.types import MISMATCH_KINDS

if TYPE_CHECKING:
    from specbrowser.chunking.stats import ChunkSetStats
    from specbrowser.session import SpecListing

# Deferred to the commands that use them, so that `--help` (which builds every command's parser) and
# a bad argument come without them: Session and specbrowser.search.tokens (the session and store
# modules, 55–70 ms); specbrowser.search.model_files (platformdirs, 3 ms) for stats --count-tokens
# without a tokenizer.


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``show``, ``subsections``, ``stats`` and ``mismatches`` to the subcommands."""
    p = sub.add_parser("show", help="print a chunk (and with --recursive all its descendants)")
    add_db_argument(p)
    p.add_argument(
        "id",
        help="a chunk or section id, a section number (14.6), an anchor (#id) or a name the "
        "spec defines (an abstract operation, a production, a term)",
    )
    p.add_argument(
        "--recursive", "-r", action="store_true", help="also print every descendant chunk"
    )
    p.add_argument(
        "--retrieval-text",
        action="store_true",
        help="print the retrieval text (header + content) that search and embeddings index",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(handler=cmd_show)

    p = sub.add_parser("subsections", help="list a chunk's direct subsections")
    add_db_argument(p)
    p.add_argument(
        "id",
        help="a chunk or section id, a section number (14.6), an anchor (#id) or a name the "
        "spec defines (an abstract operation, a production, a term)",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(handler=cmd_subsections)

    p = sub.add_parser("stats", help="counts, sizes and overruns of the active chunk set")
    add_db_argument(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument(
        "--count-tokens",
        action="store_true",
        help="first count the tokens of chunks not counted yet, with the embedding model's "
        "tokenizer (a few seconds; stored)",
    )
    p.set_defaults(handler=cmd_stats)

    p = sub.add_parser(
        "mismatches", help="where the section tree and the table of contents disagree"
    )
    add_db_argument(p)
    p.add_argument("--kind", choices=MISMATCH_KINDS, help="only this kind of mismatch")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(handler=cmd_mismatches)


def cmd_show(args: argparse.Namespace) -> int:
    # deferred: see the module's imports
    from specbrowser.session import Session

    with Session.open(args.db) as session:
        located = session.name_to_chunk(args.id)
        chunk_id = located.chunk_id
        chunks = (
            session.descendants(chunk_id) if args.recursive else iter([session.chunk(chunk_id)])
        )
        tokens = session.token_info()
        window = tokens.max_tokens if tokens else None
        if args.json:
            records = [
                _chunk_record(c, tokens.counts.get(c.id) if tokens else None, args.retrieval_text)
                for c in chunks
            ]
            payload = {
                "requested": args.id,
                "resolved_as": located.resolved_as,
                "policy_version": session.active_version(),
                "chunks": records,
            }
            print(json.dumps(payload, ensure_ascii=False, indent=2))
            return 0
        if located.resolved_as != "chunk":  # said apart, so the text on stdout stays as is
            kind = f" ({located.symbol_kind})" if located.symbol_kind else ""
            named = (
                f"NAME:{args.id.strip()}"
                if located.resolved_as == "section"
                else f"NAME:#{args.id.strip().lstrip('#')}"
            )
            also = (
                f" (the first spec's; also in {', '.join(located.also_in)}: name one as {named})"
                if located.also_in
                else ""
            )
            err.print(
                f"[dim]{escape(args.id)} read as {located.resolved_as}{kind}: "
                f"{escape(chunk_id)}{escape(also)}[/]",
                soft_wrap=True,
                highlight=False,
            )
        for chunk in chunks:
            bare = size_without_markers(chunk.text)
            facts = [
                f"{chunk.size:,} chars"
                + (f" ({bare:,} without markers)" if bare != chunk.size else "")
            ]
            count = tokens.counts.get(chunk.id) if tokens else None
            if count is not None:
                facts.append(f"{count:,} tokens")
            if chunk.over_threshold:
                facts.append(f"[red]over threshold: {chunk.over_threshold}[/]")
            if count is not None and window is not None and count > window:
                facts.append(f"[yellow]embedding truncated (> {window})[/]")
            out.rule(
                f"[bold]{escape(chunk.id)}[/] · depth {chunk.depth} · "
                f"{escape(chunk.breakdown_tag or chunk.layer)} · {' · '.join(facts)}",
                align="left",
            )
            text = chunk.retrieval_text if args.retrieval_text else chunk.text
            out.print(text, markup=False, highlight=False, soft_wrap=True)
    return 0


def _chunk_record(chunk: Chunk, tokens: int | None, retrieval_text: bool) -> dict[str, object]:
    """A chunk as ``show --json`` prints it: the fields of the MCP server's ``get_chunk`` (README
    "Connecting an agent"), the token count when counted, the retrieval text when asked for."""
    record: dict[str, object] = {
        "id": chunk.id,
        "section_id": chunk.section_id,
        "parent_id": chunk.parent_id,
        "layer": chunk.layer,
        "depth": chunk.depth,
        "breakdown_tag": chunk.breakdown_tag,
        "title": chunk.title,
        "section_number": chunk.section_ordinal,
        "heading_path": chunk.heading_path,
        "toc_path": chunk.toc_path,
        "size": chunk.size,
        "size_without_markers": size_without_markers(chunk.text),
        "over_threshold": chunk.over_threshold,
        "subsections": chunk.subsections,
        "tokens": tokens,
        "text": chunk.text,
    }
    if retrieval_text:
        record["retrieval_text"] = chunk.retrieval_text
    return record


def cmd_subsections(args: argparse.Namespace) -> int:
    # deferred: see the module's imports
    from specbrowser.session import Session

    with Session.open(args.db) as session:
        chunk = session.chunk(session.chunk_id_for(args.id))
        children = session.subsection_info(chunk)
        if args.json:
            payload = {
                "id": chunk.id,
                "title": chunk.title,
                "policy_version": session.active_version(),
                "subsections": [vars(child) for child in children],
            }
            print(json.dumps(payload, ensure_ascii=False, indent=2))
            return 0
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
            table.add_row(
                escape(child.id),
                escape(child.kind),
                escape(child.title),
                f"{child.size:,}",
                escape(child.over_threshold or ""),
            )
        out.print(table)
    return 0


def cmd_stats(args: argparse.Namespace) -> int:
    # deferred: see the module's imports
    from specbrowser.search.tokens import token_summary
    from specbrowser.session import Session

    if args.count_tokens:
        # deferred: see the module's imports
        from specbrowser.search.model_files import TOKENIZER_HINT

        if run_count_tokens(args.db) is None:
            raise EmbeddingError(f"no tokenizer to count with: {TOKENIZER_HINT}")
    with Session.open(args.db) as session:
        document = session.document()
        title = session.title()
        policy, _ = session.active_policy()
        version = session.active_version()
        stats = session.stats()
        by_spec = session.stats_by_spec(version)
        tokens = token_summary(session.token_info(version))
    if args.json:
        payload = {
            "document": document.title,
            "policy": {**policy.settings(), "version": version},
            **_stats_json(stats),
            "tokens": tokens,
            "by_spec": [
                {"spec": listing.spec.name, "title": listing.spec.title, **_stats_json(counts)}
                for listing, counts in by_spec
            ],
        }
        print(json.dumps(payload, ensure_ascii=False, indent=2))
        return 0
    print_summary(title, args.db, policy, stats, {}, extra_rows=[tokens_row(tokens)])
    if by_spec:
        out.print(spec_stats_table(by_spec))
    return 0


def _stats_json(stats: ChunkSetStats) -> dict[str, object]:
    """A set's (or one spec's) counts as ``stats --json`` prints them."""
    return {
        **stats.to_dict(),
        "breakdown_marker_share": _rounded(stats.breakdown_marker_share),
        "section_marker_share": _rounded(stats.section_marker_share),
    }


def spec_stats_table(by_spec: list[tuple[SpecListing, ChunkSetStats]]) -> Table:
    """One row per spec of a corpus: its sections, chunks, sizes (characters), chunks over the
    threshold, tiny and mostly-marker chunks, unresolved markers and heading-path mismatches;
    then the totals of the counts (sizes are per spec only: the set's are above)."""
    table = Table(title="By spec", title_justify="left")
    table.add_column("spec", no_wrap=True)
    heads = (
        "sections",
        "chunks",
        "median",
        "p90",
        "max",
        "over",
        "tiny",
        "unresolved",
        "mismatches",
    )
    for head in heads:
        table.add_column(head, justify="right")

    def counts(stats: ChunkSetStats) -> list[int]:
        return [
            stats.sections,
            stats.chunks,
            sum(stats.over_threshold.values()),
            stats.tiny_chunks or 0,
            stats.unresolved_markers or 0,
            sum(stats.heading_mismatches.values()),
        ]

    total = [0] * 6
    for listing, stats in by_spec:
        row = counts(stats)
        total = [a + b for a, b in zip(total, row, strict=True)]
        sizes = stats.sizes
        table.add_row(
            escape(listing.spec.name),
            f"{row[0]:,}",
            f"{row[1]:,}",
            f"{sizes.median:,}",
            f"{sizes.p90:,}",
            f"{sizes.max:,}",
            *(f"{n:,}" for n in row[2:]),
        )
    table.add_row(
        "all", f"{total[0]:,}", f"{total[1]:,}", "", "", "", *(f"{n:,}" for n in total[2:])
    )
    return table


def _rounded(share: float | None) -> float | None:
    """A share to 4 decimals (0.1 per mille: enough to compare sets), None kept."""
    return None if share is None else round(share, 4)


def cmd_mismatches(args: argparse.Namespace) -> int:
    # deferred: see the module's imports
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
