"""``specbrowser open`` and ``specbrowser demo``: the app, on a database or a cached ingest."""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from specbrowser.chunking.policy import ChunkPolicy, PolicyForKind
from specbrowser.cli._console import err
from specbrowser.cli._options import (
    add_policy_options,
    given_policy_options,
    policy_for_kind_from_args,
    policy_from_args,
)
from specbrowser.errors import NoTerminalError, SpecInputError
from specbrowser.process import EXIT_USER_ERROR, hold_for_first_frame, release_after_first_frame
from specbrowser.session import opening

# Deferred, so that other commands start without them: the app to _run_app (Textual, 0.25 s),
# importlib.resources to sample_spec_path (4 ms). Deferred so that the app's first frame comes
# without them: the ingest summary (Rich's tables, 1.5 ms) and the ingest job to cmd_demo, the
# query file's reader and the evaluation's id check to cmd_open's --queries.


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``open`` and ``demo`` to the top-level parser's subcommands."""
    p = sub.add_parser(
        "open", help="browse a database (or a spec, ingested into the cache) in the app"
    )
    p.add_argument(
        "target",
        nargs="+",
        type=Path,
        metavar="DB_OR_SPEC",
        help="a database written by specbrowser ingest, or a spec (.html files, a multipage "
        "or an ecmarkup source folder) to ingest first",
    )
    p.add_argument(
        "--db",
        type=Path,
        metavar="PATH",
        help="for a spec: keep its database at PATH (default: the user cache folder)",
    )
    add_policy_options(p)
    p.add_argument(
        "--queries",
        type=Path,
        metavar="FILE",
        help="a query file (as for `specbrowser eval`) the evaluation screen (v) loads at once",
    )
    p.set_defaults(handler=cmd_open)

    p = sub.add_parser("demo", help="ingest the bundled sample spec and open it")
    p.add_argument("--no-open", action="store_true", help="only ingest; print the database path")
    p.set_defaults(handler=cmd_demo)


def has_terminal() -> bool:
    """Whether standard input and standard error are terminals: the app reads keys from the
    one and draws on the other (Textual draws on stderr, so stdout may be redirected)."""
    return all(stream is not None and stream.isatty() for stream in (sys.__stdin__, sys.__stderr__))


def require_terminal(command: str) -> None:
    """Refuse to start the app without a terminal, where Textual would write escape codes into
    a pipe and spin on an input that never answers.

    Raises:
        NoTerminalError: :func:`has_terminal` is false.
    """
    if not has_terminal():
        raise NoTerminalError(
            f"{command} needs a terminal (its standard input and error are not one); "
            "without one, read the database with specbrowser show, search or stats"
        )


def cmd_open(args: argparse.Namespace) -> int:
    given = given_policy_options(args)
    if given or not opening.names_one_database(args.target):
        policy, for_kind = policy_from_args(args), policy_for_kind_from_args(args)
    else:  # a database as it is: no policy is read, nor the formats that give one (25 ms)
        policy, for_kind = ChunkPolicy(), None
    plan = opening.plan_open(args.target, policy, for_kind, args.db)
    if plan.db_path == args.target[0] and given:
        rechunk = shlex.join(["specbrowser", "rechunk", str(plan.db_path)])
        raise SpecInputError(
            "open DB shows the database's active chunk set and takes no policy options; make "
            f"that policy's set active first (re-chunking only if it is not stored): "
            f"{rechunk} {' '.join(given)}"
        )
    extra = {}
    if args.queries is not None:  # a bad file: one line now, not a notification later
        _check_queries(args.queries, plan.db_path if plan.ingest is None else None)
        extra["queries"] = args.queries
    require_terminal("open")  # after the arguments' own mistakes, before the first line
    if plan.db_path != args.target[0]:  # a spec: say where its database is (and stays)
        state = "ingesting into" if plan.ingest is not None else "opening"
        err.print(f"{state} {plan.db_path}", markup=False, highlight=False)
    if plan.ingest is None:
        return _run_app(plan.db_path, None, None, **extra)
    return _run_app(plan.db_path, plan.ingest, policy, for_kind, **extra)


def _check_queries(path: Path, db_path: Path | None) -> None:
    """Refuse a query file the evaluation screen would refuse: one it cannot read, or, for a
    database opened as it is (``db_path``), one expecting an id its active chunk set lacks (a
    spec ingested first is checked when its screen loads the file).

    Raises:
        QueryFileError: as :func:`~specbrowser.session.query_file.read_queries` and
            :func:`~specbrowser.session.evaluate.check_query_ids`.
    """
    # deferred: see the module's imports
    from specbrowser.session.query_file import read_queries

    queries = read_queries(path)
    if db_path is None:
        return
    from specbrowser.session import Session
    from specbrowser.session.evaluate import check_query_ids

    with Session.open(db_path) as session:
        check_query_ids(session, path, queries, session.active_version())


def _run_app(
    db_path: Path,
    spec: list[Path] | None,
    policy: ChunkPolicy | None,
    policy_for_kind: PolicyForKind | None = None,
    queries: Path | None = None,
) -> int:
    hold_for_first_frame()  # until the first screen is painted (the browser releases it)
    try:
        # deferred: see the module's imports
        from specbrowser.tui.app import make_app

        app = make_app(
            db_path,
            ingest_spec=spec,
            policy=policy,
            policy_for_kind=policy_for_kind,
            queries=queries,
        )
        app.run()
    finally:
        release_after_first_frame()  # an app that ended before its first screen
    return app.return_code or (EXIT_USER_ERROR if getattr(app, "ingest_failed", False) else 0)


def sample_spec_path() -> Path:
    """The bundled sample spec: ``toylang.html`` of the ``specbrowser.sample_specs`` package (an
    install ships the top-level ``sample_specs/`` folder as that package); from a source checkout
    run without installing it, ``sample_specs/`` beside the package.

    Raises:
        SpecInputError: the file is missing, or the package is not a folder on disk (a zip).
    """
    # deferred: see the module's imports
    from importlib.resources import files

    try:
        path = files("specbrowser.sample_specs") / "toylang.html"
    except ModuleNotFoundError:
        path = Path(__file__).resolve().parents[2] / "sample_specs" / "toylang.html"
    if not isinstance(path, Path) or not path.is_file():
        raise SpecInputError(f"the bundled sample spec is missing ({path}); reinstall specbrowser")
    return path


def cmd_demo(args: argparse.Namespace) -> int:
    if not args.no_open:
        require_terminal("demo")
    spec = [sample_spec_path()]
    policy = ChunkPolicy()
    db_path = opening.cache_db_for(spec)
    if args.no_open:
        # deferred: see the module's imports
        from specbrowser.cli._summary import (
            outcome_line,
            print_summary,
            toc_entries_without_section,
        )
        from specbrowser.session.jobs import run_ingest

        opening.drop_unreadable_cache(db_path)
        result = run_ingest(spec, db_path, policy)
        print_summary(
            result.parsed.document.title,
            db_path,
            policy,
            result.stats,
            result.timings,
            outcome_line(result.outcome, result.chunk_sets),
            toc_entries_without_section=toc_entries_without_section(result.mismatches),
            set_version=result.set_version,
        )
        return 0
    opening.drop_unreadable_cache(db_path)
    cached = opening.use_cache(db_path, spec, policy)
    state = "opening" if cached else "ingesting into"  # as open SPEC says where it is
    err.print(f"{state} {db_path}", markup=False, highlight=False)
    if cached:
        return _run_app(db_path, None, None)
    return _run_app(db_path, spec, policy)
