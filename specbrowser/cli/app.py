"""``specbrowser open`` and ``specbrowser demo``: the app, on a database or a cached ingest."""

from __future__ import annotations

import argparse
import hashlib
from pathlib import Path

from specbrowser.chunking.policy import ChunkPolicy, PolicyForKind
from specbrowser.cli._common import (
    EXIT_USER_ERROR,
    add_policy_options,
    outcome_line,
    policy_for_kind_from_args,
    policy_from_args,
    print_summary,
)
from specbrowser.errors import SpecbrowserError, SpecInputError


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``open`` and ``demo`` to the top-level parser's subcommands."""
    p = sub.add_parser(
        "open", help="browse a database (or a spec, ingested into the cache) in the app"
    )
    p.add_argument("target", nargs="+", type=Path, metavar="DB_OR_SPEC")
    add_policy_options(p)
    p.set_defaults(handler=cmd_open)

    p = sub.add_parser("demo", help="ingest the bundled sample spec and open it")
    p.add_argument("--no-open", action="store_true", help="only ingest; print the database path")
    p.set_defaults(handler=cmd_demo)


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


def _use_cache(
    db_path: Path,
    spec_paths: list[Path],
    policy: ChunkPolicy,
    policy_for_kind: PolicyForKind | None = None,
) -> bool:
    """Whether the cache database can be opened as it is for this spec and policy.

    True when it holds this exact spec (same bytes) and a chunk set of ``policy``'s version
    (with ``policy_for_kind``, of the policy it gives for the stored spec's kind), which is then
    made the active one; False means: ingest first (which adds the set).
    """
    from specbrowser.formats.ecmarkup import spec_sha256
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


DATABASE_SUFFIXES = (".db", ".sqlite", ".sqlite3")
"""A target with one of these names is taken for a database even when it is not one (missing, or
another kind of file): it gets the database's error, not "is not HTML"."""


def _is_database(path: Path) -> bool:
    if not path.is_file():
        return False
    with path.open("rb") as handle:
        return handle.read(16) == b"SQLite format 3\x00"


def cmd_open(args: argparse.Namespace) -> int:
    from specbrowser.store import open_database

    targets: list[Path] = args.target
    if len(targets) == 1 and (
        _is_database(targets[0]) or targets[0].suffix.lower() in DATABASE_SUFFIXES
    ):
        open_database(targets[0]).close()  # a bad database fails here, before the screen changes
        return _run_app(targets[0], None, None)
    if any(_is_database(path) for path in targets):
        raise SpecInputError("open takes one database, or the files of one spec")
    from specbrowser.formats.ecmarkup import check_spec_inputs

    check_spec_inputs(targets)  # a wrong path fails here, before the app takes the screen
    policy, for_kind = policy_from_args(args), policy_for_kind_from_args(args)
    db_path = _cache_db_for(targets)
    if _use_cache(db_path, targets, policy, for_kind):
        return _run_app(db_path, None, None)
    return _run_app(db_path, targets, policy, for_kind)


def _run_app(
    db_path: Path,
    spec: list[Path] | None,
    policy: ChunkPolicy | None,
    policy_for_kind: PolicyForKind | None = None,
) -> int:
    from specbrowser.tui.app import make_app

    app = make_app(db_path, ingest_spec=spec, policy=policy, policy_for_kind=policy_for_kind)
    app.run()
    return app.return_code or (EXIT_USER_ERROR if getattr(app, "ingest_failed", False) else 0)


def sample_spec_path() -> Path:
    """The bundled sample spec: ``toylang.html`` of the ``specbrowser.sample_specs`` package (an
    install ships the top-level ``sample_specs/`` folder as that package); from a source checkout
    run without installing it, ``sample_specs/`` beside the package.

    Raises:
        SpecInputError: the file is missing, or the package is not a folder on disk (a zip).
    """
    from importlib.resources import files

    try:
        path = files("specbrowser.sample_specs") / "toylang.html"
    except ModuleNotFoundError:
        path = Path(__file__).resolve().parents[2] / "sample_specs" / "toylang.html"
    if not isinstance(path, Path) or not path.is_file():
        raise SpecInputError(f"the bundled sample spec is missing ({path}); reinstall specbrowser")
    return path


def cmd_demo(args: argparse.Namespace) -> int:
    spec = [sample_spec_path()]
    policy = ChunkPolicy()
    db_path = _cache_db_for(spec)
    if args.no_open:
        from specbrowser.session.ingest import ingest

        _drop_unreadable_cache(db_path)
        result = ingest(spec, db_path, policy)
        print_summary(
            result.parsed.document.title,
            db_path,
            policy,
            result.stats,
            result.timings,
            outcome_line(result.outcome, result.chunk_sets),
        )
        return 0
    if _use_cache(db_path, spec, policy):
        return _run_app(db_path, None, None)
    return _run_app(db_path, spec, policy)
