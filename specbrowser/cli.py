"""The ``specbrowser`` command line: one entry point, one subcommand per job.

Commands that do not open the app never import Textual (start-up time). Every user mistake ends
in one red line on stderr and exit status 2; Ctrl-C ends with status 130 and changes nothing.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from specbrowser import __version__
from specbrowser.errors import SpecbrowserError, SpecInputError
from specbrowser.headings import MISMATCH_KINDS
from specbrowser.policy import (
    CONVERTER_VERSION,
    DEFAULT_MAX_DEPTH,
    DEFAULT_THRESHOLD_CHARS,
    PLAIN_HTML_BREAKDOWN_TAGS,
    ChunkPolicy,
    PolicyForKind,
)

EXIT_USER_ERROR = 2
EXIT_INTERRUPTED = 130

out = Console(highlight=False)
err = Console(stderr=True, highlight=False)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="specbrowser",
        description="See and fix how a long specification is cut into chunks for retrieval.")
    parser.add_argument("--version", action="version", version=f"specbrowser {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def policy_options(p: argparse.ArgumentParser) -> None:
        p.add_argument("--threshold", type=int, default=DEFAULT_THRESHOLD_CHARS, metavar="N",
                       help=f"break down chunks longer than N characters (default {DEFAULT_THRESHOLD_CHARS})")
        p.add_argument("--tags", default=None, metavar="A,B,C",
                       help="breakdown tags in order (default emu-table,emu-grammar,td,p; for "
                            f"plain HTML specs {','.join(PLAIN_HTML_BREAKDOWN_TAGS)})")
        p.add_argument("--max-depth", type=int, default=DEFAULT_MAX_DEPTH, metavar="N",
                       help=f"deepest subsection level (default {DEFAULT_MAX_DEPTH})")

    p = sub.add_parser("ingest", help="parse a spec, chunk it and store it in a database")
    p.add_argument("spec", nargs="+", type=Path, metavar="SPEC",
                   help="a spec .html file, a multipage folder, or an ecmarkup source folder")
    p.add_argument("--db", type=Path, required=True,
                   help="the SQLite file to write: adds this policy's chunk set when it holds the "
                        "same spec, else replaces it")
    p.add_argument("--toc", type=Path, metavar="FILE",
                   help="an external TOC (JSON, schemas/toc.schema.json) to reconcile heading "
                        "paths with, instead of the document's own")
    p.add_argument("--embed", action="store_true",
                   help="then embed the new chunk set with the default model (slow: see "
                        "`specbrowser embed`); without it ingest never waits for embeddings")
    policy_options(p)

    p = sub.add_parser("open", help="browse a database (or a spec, ingested into the cache) in the app")
    p.add_argument("target", nargs="+", type=Path, metavar="DB_OR_SPEC")
    policy_options(p)

    p = sub.add_parser("demo", help="ingest the bundled sample spec and open it")
    p.add_argument("--no-open", action="store_true", help="only ingest; print the database path")

    p = sub.add_parser("show", help="print a chunk (and with --recursive all its descendants)")
    p.add_argument("db", type=Path)
    p.add_argument("id", help="a chunk or section id")
    p.add_argument("--recursive", "-r", action="store_true")
    p.add_argument("--retrieval-text", action="store_true",
                   help="print the retrieval text (header + content) that search and embeddings index")

    p = sub.add_parser("subsections", help="list a chunk's direct subsections")
    p.add_argument("db", type=Path)
    p.add_argument("id", help="a chunk or section id")

    p = sub.add_parser("stats", help="counts, sizes and overruns of the active chunk set")
    p.add_argument("db", type=Path)
    p.add_argument("--json", action="store_true", help="print one JSON object")

    p = sub.add_parser("search", help="search the active chunk set (lexical, BM25); never errors on odd input")
    p.add_argument("db", type=Path)
    p.add_argument("query", nargs="+", help="words to find, taken literally (Array.prototype.map, [[Prototype]] …)")
    p.add_argument("--limit", type=int, default=10, metavar="N", help="at most N hits (default 10)")
    p.add_argument("--fts", action="store_true",
                   help="advanced: FTS5 syntax (phrases, prefix*, AND/OR/NEAR); literal when it does not parse")
    p.add_argument("--mode", choices=("lexical", "semantic", "hybrid"), default="lexical",
                   help="lexical (FTS5, default), semantic (embeddings; run `specbrowser embed` "
                        "first) or hybrid (reciprocal rank fusion of both)")
    p.add_argument("--json", action="store_true", help="print one JSON object")

    p = sub.add_parser("mismatches", help="where the section tree and the table of contents disagree")
    p.add_argument("db", type=Path)
    p.add_argument("--kind", choices=MISMATCH_KINDS, help="only this kind of mismatch")
    p.add_argument("--json", action="store_true", help="print one JSON object")

    p = sub.add_parser("policies", help="list the chunk sets (one per policy version); switch the active one")
    p.add_argument("db", type=Path)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--activate", metavar="VERSION",
                   help="make this policy version's chunk set the active one (a unique prefix will do)")

    p = sub.add_parser("embed", help="embed the active chunk set's texts that have no vector yet (resumable)")
    p.add_argument("db", type=Path)
    which = p.add_mutually_exclusive_group()
    which.add_argument("--model", metavar="NAME",
                       help="a fastembed model name (default: sentence-transformers/all-MiniLM-L6-v2, "
                            "offline; other names may need the network)")
    which.add_argument("--model-dir", type=Path, metavar="DIR",
                       help="a folder holding model.onnx and its tokenizer files, used as is")
    p.add_argument("--batch", type=int, default=32, metavar="N", help="texts per batch (default 32)")
    p.add_argument("--limit", type=int, metavar="N", help="embed at most N texts this run (shortest first)")
    p.add_argument("--threads", type=int, metavar="N", help="onnxruntime threads (default: its own)")
    p.add_argument("--rebuild", action="store_true",
                   help="drop the vectors of another model stored in DB first (else refused)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    args = _parser().parse_args(argv)
    try:
        return _COMMANDS[args.command](args)
    except SpecbrowserError as exc:
        err.print(f"[red]error:[/] {escape(str(exc))}", soft_wrap=True)
        return EXIT_USER_ERROR
    except KeyboardInterrupt:
        err.print("[yellow]interrupted; nothing was changed[/]", soft_wrap=True)
        return EXIT_INTERRUPTED


def _policy(args: argparse.Namespace) -> ChunkPolicy:
    return ChunkPolicy.from_tag_list(args.threshold, args.tags, args.max_depth)


def _policy_for_kind(args: argparse.Namespace) -> PolicyForKind | None:
    """None when the user typed ``--tags`` (their order wins for every kind of spec); else the
    hook that gives the parsed spec's kind its default tags (issue 4: plain HTML specs)."""
    if args.tags is not None:
        return None
    return lambda kind: ChunkPolicy.from_tag_list(args.threshold, None, args.max_depth, kind=kind)


# --- ingest ---------------------------------------------------------------------------------


def cmd_ingest(args: argparse.Namespace) -> int:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from specbrowser.ingest import ingest

    policy, for_kind = _policy(args), _policy_for_kind(args)
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=err, transient=True, disable=not err.is_terminal) as bar:
        task = bar.add_task("parsing", total=None)

        def progress(stage: str, done: int, total: int) -> None:
            bar.update(task, description=f"{stage} sections", completed=done, total=total)

        result = ingest(args.spec, args.db, policy, progress, toc_file=args.toc,
                        policy_for_kind=for_kind)
    if for_kind is not None:
        policy = for_kind(result.parsed.document.kind)
    _print_summary(result.parsed.document.title, args.db, policy, result.stats, result.timings,
                   _outcome_line(result.outcome, result.chunk_sets))
    if args.embed:  # the ingest is stored; embedding is its own resumable step
        return cmd_embed(argparse.Namespace(db=args.db, model=None, model_dir=None, batch=32,
                                            limit=None, threads=None, rebuild=False))
    return 0


def _outcome_line(outcome: str, chunk_sets: int) -> str:
    """What the ingest did to the database, for the summary's ``chunk sets`` row."""
    from specbrowser import store

    done = {
        store.INGEST_CREATED: "new database",
        store.INGEST_ADDED: "added beside the other policies' sets",
        store.INGEST_REPLACED_SET: "replaced this policy's set",
        store.INGEST_REPLACED_SPEC: "another spec: old sets dropped",
    }.get(outcome, outcome)
    return f"{done}; {chunk_sets} in the database, this one active"


def _print_summary(title: str, db: Path, policy: ChunkPolicy, stats: dict, timings: dict[str, float],
                   outcome: str = "") -> None:
    table = Table(title=f"{escape(title)} → {escape(str(db))}", show_header=False, title_justify="left")
    table.add_column(style="bold", no_wrap=True)
    table.add_column(overflow="fold")
    sizes = stats["sizes"]
    overruns = stats["over_threshold"] or {}
    rows = [
        ("policy", f"{escape(policy.describe())} (version {policy.version})"),
        *([("chunk sets", escape(outcome))] if outcome else []),
        ("sections", f"{stats['sections']:,}"),
        ("chunks", f"{stats['chunks']:,}  by depth " + ", ".join(f"{k}: {v:,}" for k, v in stats["by_depth"].items())),
        ("sizes (chars)", f"median {sizes['median']:,}, p90 {sizes['p90']:,}, max {sizes['max']:,}"),
        ("largest chunk", escape(f"{stats['largest']['id']} ({stats['largest']['size']:,} chars)") if stats["largest"] else "-"),
        ("over threshold", ", ".join(f"{k}: {v}" for k, v in overruns.items()) or "none"),
        ("unresolved markers", str(stats["unresolved_markers"])),
        ("TOC mismatches", ", ".join(f"{k}: {v:,}" for k, v in (stats.get("heading_mismatches") or {}).items())
         or "none"),
    ]
    unused = [tag for tag in policy.breakdown_tags if tag not in stats.get("by_tag", {})]
    if unused and stats.get("over_threshold"):
        rows.append(("unused tags", escape(", ".join(unused)) + " (extracted nothing)"))
    if timings:
        rows.append(("time", ", ".join(f"{k} {v:.2f} s" for k, v in timings.items())))
    for name, value in rows:
        style = "yellow" if name == "over threshold" and overruns else ""
        table.add_row(name, f"[{style}]{value}[/]" if style else value)
    out.print(table)


# --- open / demo ----------------------------------------------------------------------------


def _cache_db_for(spec_paths: list[Path]) -> Path:
    """The cache database for a spec: one file per set of resolved input paths."""
    import platformdirs

    key = "\n".join(str(p.resolve()) for p in spec_paths)
    folder = Path(platformdirs.user_cache_dir("specbrowser"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder / f"spec-{hashlib.sha256(key.encode()).hexdigest()[:16]}.db"


def _drop_unreadable_cache(db_path: Path) -> None:
    """Delete a cache database this specbrowser cannot read (an older schema, a damaged file),
    so that an ingest can create it afresh. Only for the cache folder, which is specbrowser's own."""
    from specbrowser.errors import NotASpecbrowserDatabase
    from specbrowser.store import open_database

    if not db_path.exists():
        return
    try:
        open_database(db_path).close()
    except NotASpecbrowserDatabase:
        db_path.unlink(missing_ok=True)


def _use_cache(db_path: Path, spec_paths: list[Path], policy: ChunkPolicy,
               policy_for_kind: PolicyForKind | None = None) -> bool:
    """Whether the cache database can be opened as it is for this spec and policy.

    True when it holds this exact spec (same bytes) and a chunk set of ``policy``'s version
    (with ``policy_for_kind``, of the policy it gives for the stored spec's kind), which is then
    made the active one; False means: ingest first (which adds the set).
    """
    from specbrowser.parse.ecmarkup import spec_sha256
    from specbrowser.store import activate_chunk_set, get_document, list_chunk_sets, open_database

    _drop_unreadable_cache(db_path)
    if not db_path.exists():
        return False
    try:
        db = open_database(db_path)
        try:
            document = get_document(db)
            if document.sha256 != spec_sha256(spec_paths):
                return False
            if policy_for_kind is not None:
                policy = policy_for_kind(document.kind)
            if not any(s.version == policy.version for s in list_chunk_sets(db)):
                return False
            activate_chunk_set(db, policy.version)
            return True
        finally:
            db.close()
    except SpecbrowserError:
        return False


def _is_database(path: Path) -> bool:
    if not path.is_file():
        return False
    with path.open("rb") as handle:
        return handle.read(16) == b"SQLite format 3\x00"


def cmd_open(args: argparse.Namespace) -> int:
    from specbrowser.store import open_database

    targets: list[Path] = args.target
    if len(targets) == 1 and _is_database(targets[0]):
        open_database(targets[0]).close()  # a bad database fails here, before the screen changes
        return _run_app(targets[0], None, None)
    if any(_is_database(path) for path in targets):
        raise SpecInputError("open takes one database, or the files of one spec")
    from specbrowser.parse.ecmarkup import check_spec_inputs

    check_spec_inputs(targets)  # a wrong path fails here, before the app takes the screen
    policy, for_kind = _policy(args), _policy_for_kind(args)
    db_path = _cache_db_for(targets)
    if _use_cache(db_path, targets, policy, for_kind):
        return _run_app(db_path, None, None)
    return _run_app(db_path, targets, policy, for_kind)


def _run_app(db_path: Path, spec: list[Path] | None, policy: ChunkPolicy | None,
             policy_for_kind: PolicyForKind | None = None) -> int:
    from specbrowser.tui.app import make_app

    app = make_app(db_path, ingest_spec=spec, policy=policy, policy_for_kind=policy_for_kind)
    app.run()
    return app.return_code or (EXIT_USER_ERROR if getattr(app, "ingest_failed", False) else 0)


def sample_spec_path() -> Path:
    """The bundled sample spec (``sample_specs/toylang.html`` beside the package)."""
    path = Path(__file__).resolve().parent.parent / "sample_specs" / "toylang.html"
    if not path.is_file():
        raise SpecInputError(f"the bundled sample spec is missing ({path}); install from a clone")
    return path


def cmd_demo(args: argparse.Namespace) -> int:
    spec = [sample_spec_path()]
    policy = ChunkPolicy()
    db_path = _cache_db_for(spec)
    if args.no_open:
        from specbrowser.ingest import ingest

        _drop_unreadable_cache(db_path)
        result = ingest(spec, db_path, policy)
        _print_summary(result.parsed.document.title, db_path, policy, result.stats, result.timings,
                       _outcome_line(result.outcome, result.chunk_sets))
        return 0
    if _use_cache(db_path, spec, policy):
        return _run_app(db_path, None, None)
    return _run_app(db_path, spec, policy)


# --- show / subsections / stats -------------------------------------------------------------


def cmd_show(args: argparse.Namespace) -> int:
    from specbrowser.store import get_chunk, iter_descendants, open_database

    db = open_database(args.db)
    try:
        chunks = iter_descendants(db, args.id) if args.recursive else iter([get_chunk(db, args.id)])
        for chunk in chunks:
            flag = f" [red]over threshold: {chunk.over_threshold}[/]" if chunk.over_threshold else ""
            out.rule(f"[bold]{escape(chunk.id)}[/] · depth {chunk.depth} · "
                     f"{escape(chunk.breakdown_tag or chunk.layer)} · {chunk.size:,} chars{flag}",
                     align="left")
            text = chunk.retrieval_text if args.retrieval_text else chunk.text
            out.print(text, markup=False, highlight=False, soft_wrap=True)
    finally:
        db.close()
    return 0


def cmd_subsections(args: argparse.Namespace) -> int:
    from specbrowser.store import get_chunk, get_section, open_database, subsections_of

    db = open_database(args.db)
    try:
        chunk = get_chunk(db, args.id)
        children = subsections_of(db, chunk)
        if not children:
            out.print(f"{escape(chunk.id)} has no subsections.")
            return 0
        table = Table(title=f"{len(children)} subsections of {escape(chunk.id)}", title_justify="left")
        table.add_column("id", no_wrap=True, overflow="fold")
        for name in ("kind", "title", "chars", "over threshold"):
            table.add_column(name, justify="right" if name == "chars" else "left")
        for child in children:
            kind = child.breakdown_tag or (_section_kind_label(get_section(db, child.section_id).kind)
                                           if child.section_id else child.layer)
            table.add_row(escape(child.id), escape(kind), escape(child.title), f"{child.size:,}",
                          escape(child.over_threshold or ""))
        out.print(table)
    finally:
        db.close()
    return 0


def _section_kind_label(kind: str) -> str:
    """A child section's kind as ``subsections`` shows it: the ecmarkup element that made it
    (``emu-clause`` …), else the kind itself (``heading`` for plain HTML)."""
    from specbrowser.model import SECTION_TAGS

    return next((tag for tag, name in SECTION_TAGS.items() if name == kind), kind)


def cmd_stats(args: argparse.Namespace) -> int:
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
    finally:
        db.close()
    if args.json:
        payload = {"document": document.title, "policy": {**policy.settings(), "version": version},
                   **stats}
        print(json.dumps(payload, ensure_ascii=False, indent=2))
        return 0
    _print_summary(document.title, args.db, policy, stats, {})
    return 0


# --- policies -------------------------------------------------------------------------------


def cmd_policies(args: argparse.Namespace) -> int:
    from specbrowser.store import activate_chunk_set, get_document, list_chunk_sets, open_database

    db = open_database(args.db)
    try:
        document = get_document(db)
        activated = activate_chunk_set(db, args.activate) if args.activate is not None else None
        sets = list_chunk_sets(db)
    finally:
        db.close()
    if args.json:
        print(json.dumps({
            "document": document.title, "converter_version": CONVERTER_VERSION,
            "policies": [{"version": s.version, "active": s.active, "stale": s.stale,
                          "converter_version": s.converter_version, "created_at": s.created_at,
                          "chunks": s.chunks, "over_threshold": s.over_threshold,
                          "settings": s.settings} for s in sets],
        }, ensure_ascii=False, indent=2))
        return 0
    if activated is not None:
        chosen = next(s for s in sets if s.version == activated)
        note = (f" [yellow](stale: made by converter version {chosen.converter_version}, this "
                f"specbrowser writes {CONVERTER_VERSION})[/]" if chosen.stale else "")
        out.print(f"active chunk set: {escape(activated)}{note}", soft_wrap=True)
    out.print(_policies_table(document.title, sets))
    return 0


def _policies_table(title: str, sets: list) -> Table:
    """The chunk sets as a Rich table that fits 80 columns; spec and policy text never markup."""
    from rich import box

    table = Table(title=f"{escape(title)}: {len(sets)} chunk set{'s' if len(sets) != 1 else ''}",
                  title_justify="left", box=box.SIMPLE_HEAD, padding=(0, 1, 0, 0),
                  caption=f"● active set · stale: made by another converter version than this "
                          f"specbrowser's ({CONVERTER_VERSION})", caption_justify="left")
    table.add_column("", no_wrap=True)
    table.add_column("version", no_wrap=True)
    table.add_column("chars", justify="right", no_wrap=True)
    table.add_column("tags", min_width=12, overflow="fold")
    table.add_column("depth", justify="right", no_wrap=True)
    table.add_column("created (UTC)", min_width=10)
    table.add_column("chunks", justify="right", no_wrap=True)
    table.add_column("over threshold", min_width=13, overflow="fold")
    for chunk_set in sets:
        settings = chunk_set.settings
        threshold = settings.get("threshold_chars")
        tags = ", ".join(str(t) for t in settings.get("breakdown_tags") or []) or "(none)"
        overruns = "\n".join(f"{reason} {n:,}" for reason, n in chunk_set.over_threshold.items())
        created = chunk_set.created_at.replace("T", " ").removesuffix("+00:00")
        version = escape(chunk_set.version)
        table.add_row(
            "[bold green]●[/]" if chunk_set.active else "",
            (f"[bold]{version}[/]" if chunk_set.active else version)
            + ("\n[yellow]stale[/]" if chunk_set.stale else ""),
            f"{threshold:,}" if isinstance(threshold, int) else escape(str(threshold)),
            escape(tags),
            escape(str(settings.get("max_depth", "?"))),
            escape(created),
            f"{chunk_set.chunks:,}",
            escape(overruns) or "none",
        )
    return table


def cmd_search(args: argparse.Namespace) -> int:
    from rich.text import Text

    from specbrowser.search import HIGHLIGHT_END, HIGHLIGHT_START, coverage_note, run_search
    from specbrowser.store import open_database

    query = " ".join(args.query)
    db = open_database(args.db)
    try:
        hits = run_search(db, query, args.mode, limit=args.limit, advanced=args.fts)
        note = coverage_note(db) if args.mode != "lexical" else ""
    finally:
        db.close()
    if note and not args.json:
        err.print(Text(note), soft_wrap=True)
    if args.json:
        payload = [{**vars(h), "snippet": h.snippet.replace(HIGHLIGHT_START, "").replace(HIGHLIGHT_END, "")}
                   for h in hits]
        print(json.dumps({"query": query, "hits": payload}, ensure_ascii=False, indent=2))
        return 0
    if not hits:
        out.print(Text(f"no chunk matches {query}"))
        return 0
    table = Table(title=Text(f"{len(hits)} hits for {query}"), title_justify="left", show_lines=True)
    table.add_column("score", justify="right", no_wrap=True)
    table.add_column("chunk", overflow="fold")
    table.add_column("snippet", overflow="fold")
    for hit in hits:
        snippet = Text()
        for index, part in enumerate(hit.snippet.replace(HIGHLIGHT_END, HIGHLIGHT_START).split(HIGHLIGHT_START)):
            snippet.append(part.replace("\n", " "), style="bold yellow" if index % 2 else "")
        table.add_row(f"{hit.score:.3g}", Text(f"{hit.chunk_id}\n{' › '.join(hit.heading_path)}"), snippet)
    out.print(table)
    return 0


def cmd_mismatches(args: argparse.Namespace) -> int:
    from specbrowser.store import open_database
    from specbrowser.store_toc import list_mismatches, mismatch_counts, toc_size

    db = open_database(args.db)
    try:
        found = list_mismatches(db, args.kind)
        counts = mismatch_counts(db)
        entries = toc_size(db)
    finally:
        db.close()
    if args.json:
        print(json.dumps({"toc_entries": entries, "counts": counts,
                          "mismatches": [vars(m) for m in found]}, ensure_ascii=False, indent=2))
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
        table.add_row(escape(mismatch.kind), escape(mismatch.section_id),
                      escape(" › ".join(mismatch.parser_path) or "—"),
                      escape(" › ".join(mismatch.toc_path) or "—"))
    out.print(table)
    return 0


# --- embed ----------------------------------------------------------------------------------


def cmd_embed(args: argparse.Namespace) -> int:
    """Embed what is missing, batch by batch (each committed); Ctrl-C keeps finished batches."""
    import time

    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    from specbrowser.embed import embed_missing, load_embedder
    from specbrowser.store import active_version, open_database
    from specbrowser.store_vectors import require_vectors

    if args.batch < 1:
        raise SpecInputError("--batch must be at least 1")
    db = open_database(args.db)
    done = [0]
    start = time.perf_counter()
    try:
        require_vectors(db)
        version = active_version(db)
        embedder = load_embedder(args.model, args.model_dir, threads=args.threads)
        with Progress(TextColumn("embedding"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                      TextColumn("ETA"), TimeRemainingColumn(), console=err, transient=True,
                      disable=not err.is_terminal) as bar:
            task = bar.add_task("embedding", total=None)

            def progress(count: int, total: int) -> None:
                done[0] = count
                bar.update(task, completed=count, total=total)

            report = embed_missing(db, embedder, version, batch_size=args.batch, limit=args.limit,
                                   progress=progress, rebuild=args.rebuild)
    except KeyboardInterrupt:
        err.print(f"[yellow]interrupted; {done[0]:,} texts embedded in "
                  f"{time.perf_counter() - start:.1f} s are kept (run again to continue)[/]",
                  soft_wrap=True)
        return EXIT_INTERRUPTED
    finally:
        db.close()
    rate = f", {report.texts_per_second:.1f} texts/s" if report.embedded else ""
    out.print(f"{escape(report.model)} ({embedder.dim} dims, {escape(embedder.source)}): "
              f"{report.embedded:,} texts embedded in {report.seconds:.1f} s{rate}; "
              f"{report.cached:,} of {report.total_texts:,} were already embedded", soft_wrap=True)
    left = report.total_texts - report.cached - report.embedded
    if left:
        out.print(f"{left:,} texts still missing (run again)")
    if report.truncated_chunks:
        shown = ", ".join(report.truncated_chunks[:5])
        more = " …" if len(report.truncated_chunks) > 5 else ""
        out.print(f"[yellow]truncated: {len(report.truncated_chunks):,} chunks over the model's "
                  f"{embedder.max_tokens} tokens[/] ({escape(shown)}{more})", soft_wrap=True)
    else:
        out.print("truncated: none")
    return 0


_COMMANDS = {
    "ingest": cmd_ingest, "open": cmd_open, "demo": cmd_demo, "show": cmd_show,
    "subsections": cmd_subsections, "stats": cmd_stats, "policies": cmd_policies,
    "mismatches": cmd_mismatches, "search": cmd_search, "embed": cmd_embed,
}
