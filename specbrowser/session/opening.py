"""What ``open`` does with its targets: a database as it is, or a spec through its cache
database in the user cache folder.

The rules, for every front end: one database file opens as it is (a bad one fails before any
screen changes); spec files map to one cache database per set of resolved input paths, reused
while it holds the same spec bytes and a chunk set of the asked policy (which is then made the
active one); otherwise the spec is ingested into it first (adding a set beside the others). A
cache database this specbrowser cannot read (an older schema, a damaged file) is deleted: the
cache folder is specbrowser's own.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from specbrowser.chunking.policy import ChunkPolicy, PolicyForKind
from specbrowser.errors import (
    NotASpecbrowserDatabase,
    SpecbrowserError,
    SpecInputError,
)

if TYPE_CHECKING:
    from specbrowser.store.corpus import SpecRow

DATABASE_SUFFIXES = (".db", ".sqlite", ".sqlite3")
"""A target with one of these names is taken for a database even when it is not one (missing,
or another kind of file): it gets the database's error, not "is not HTML"."""


class OpenPlan(NamedTuple):
    """How to open a target.

    Attributes:
        db_path: the database to open (after the ingest, if any).
        ingest: the spec files to ingest into ``db_path`` first, or None to open it as it is.
    """

    db_path: Path
    ingest: list[Path] | None = None


def is_database(path: Path) -> bool:
    """Whether ``path`` is a SQLite file (by its header)."""
    if not path.is_file():
        return False
    with path.open("rb") as handle:
        return handle.read(16) == b"SQLite format 3\x00"


def names_one_database(targets: list[Path]) -> bool:
    """Whether ``targets`` is one database (a SQLite file, or a name with one of
    :data:`DATABASE_SUFFIXES`), which :func:`plan_open` opens as it is."""
    return len(targets) == 1 and (
        is_database(targets[0]) or targets[0].suffix.lower() in DATABASE_SUFFIXES
    )


def plan_open(
    targets: list[Path],
    policy: ChunkPolicy,
    policy_for_kind: PolicyForKind | None = None,
    db_path: Path | None = None,
) -> OpenPlan:
    """The plan for ``specbrowser open TARGET...`` (see the module docstring). ``db_path``
    (``--db``) keeps a spec's database there instead of in the cache folder; it is never
    deleted, even when it cannot be read (that is an error instead).

    Raises:
        SpecInputError: a database among several targets, ``db_path`` with a database target,
            or spec paths that cannot be read.
        DatabaseError, NotASpecbrowserDatabase: one database target (or ``db_path``) that
            cannot be opened.
    """
    from specbrowser.session.core import Session  # deferred: the session and store (55-70 ms)

    if names_one_database(targets):
        if db_path is not None:
            raise SpecInputError("--db names where a spec's database goes; open DB takes none")
        Session.open(targets[0]).close()  # a bad database fails here, before the screen changes
        return OpenPlan(targets[0])
    if any(is_database(path) for path in targets):
        raise SpecInputError("open takes one database, or the files of one spec")
    # deferred to a spec's targets: the formats and lxml (18 ms), which open DB does not need
    from specbrowser.formats import check_spec_inputs

    check_spec_inputs(targets)  # a wrong path fails here, before the app takes the screen
    if db_path is not None:
        if db_path.exists():  # not a specbrowser database: one line, the file kept
            Session.open(db_path).close()  # another spec there stays: this one joins it
    else:
        db_path = cache_db_for(targets)
        drop_unreadable_cache(db_path)
    if use_cache(db_path, targets, policy, policy_for_kind):
        return OpenPlan(db_path)
    return OpenPlan(db_path, list(targets))


def cache_db_for(spec_paths: list[Path]) -> Path:
    """The cache database for a spec: one file per set of resolved input paths, in the user
    cache folder (created if missing)."""
    key = "\n".join(str(p.resolve()) for p in spec_paths)
    import platformdirs  # deferred: opening a database needs no cache folder (1.5 ms)

    folder = Path(platformdirs.user_cache_dir("specbrowser"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder / f"spec-{hashlib.sha256(key.encode()).hexdigest()[:16]}.db"


def drop_unreadable_cache(db_path: Path) -> None:
    """Delete a cache database this specbrowser cannot read (an older schema, a damaged file),
    so that an ingest can create it afresh. Only for the cache folder, which is specbrowser's."""
    from specbrowser.session.core import Session  # deferred: the session and store (55-70 ms)

    if not db_path.exists():
        return
    try:
        Session.open(db_path).close()
    except NotASpecbrowserDatabase:
        db_path.unlink(missing_ok=True)


def use_cache(
    db_path: Path,
    spec_paths: list[Path],
    policy: ChunkPolicy,
    policy_for_kind: PolicyForKind | None = None,
) -> bool:
    """Whether the cache database can be opened as it is for this spec and policy
    (:func:`stored_spec`, which makes the set active); False means: ingest first (which adds
    the set)."""
    return stored_spec(db_path, spec_paths, policy, policy_for_kind) is not None


def stored_spec(
    db_path: Path,
    spec_paths: list[Path],
    policy: ChunkPolicy,
    policy_for_kind: PolicyForKind | None = None,
) -> SpecRow | None:
    """The spec of the database's corpus with this exact spec's bytes
    (:func:`~specbrowser.formats.spec_sha256`, no parse), when a stored chunk set holds it
    broken down with the policy (:func:`~specbrowser.session.corpus.set_holding`); that set
    is then made the active one. None when any of these fails (no such file, another
    database, other bytes, no such set): an ingest would write.
    """
    if not is_database(db_path):  # before the imports: an ingest into a new file needs none
        return None
    from specbrowser.formats import spec_sha256  # deferred: the formats, lxml (18 ms)
    from specbrowser.session.core import Session  # deferred: the session and store (55-70 ms)
    from specbrowser.session.corpus import set_holding  # deferred with the store

    try:
        sha = spec_sha256(spec_paths)
        with Session.open(db_path) as session:
            held = set_holding(session.store, sha, policy, policy_for_kind)
            if held is None:
                return None
            spec, version = held
            if session.active_version() != version:
                session.activate(version)
            return spec
    except SpecbrowserError:
        return None
