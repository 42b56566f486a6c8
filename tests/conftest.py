"""Shared pytest configuration and fixtures.

Sections are kept apart by owner; add new fixtures in their own section. Helpers that are not
fixtures live in the plain modules ``tests/helpers.py`` and ``tests/strategies.py``: test
modules import those, never each other.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
import pytest_textual_snapshot
from hypothesis import settings

from specbrowser.chunking.policy import ChunkPolicy
from specbrowser.formats import policy_for
from specbrowser.session.ingest import ingest
from tests.helpers import (
    HAVE_MODEL,
    MISMATCHED_TOC,
    MODEL_MISSING,
    REAL_SPECS,
    SAMPLE,
    SHARED_SPECS,
    TOYLANG_POLICY,
)

if TYPE_CHECKING:
    from specbrowser.search.embed import Embedder

ROOT = Path(__file__).resolve().parent.parent

# --- app tests (tests/test_app.py): snapshot location ----------------------------------------
# STYLE.md: snapshots live under the top-level snapshots/ folder, one folder per test module,
# instead of pytest-textual-snapshot's default tests/__snapshots__/.


def _snapshot_dirname(cls: type, *, test_location: object) -> str:
    return str(ROOT / "snapshots" / test_location.basename)  # type: ignore[attr-defined]


pytest_textual_snapshot.SVGImageExtension.dirname = classmethod(_snapshot_dirname)  # type: ignore[method-assign,assignment]


# --- hypothesis: random examples locally, the same examples on every CI run -----------------
# CI sets CI (to "true"): each test draws the same examples on every run, so a failure there
# shows again on a rerun of the same commit; no example database is kept between runs, and a
# failure prints the blob that reproduces it (@reproduce_failure). Locally each run draws new
# examples and first replays the failures it saved (.hypothesis/). Both start from hypothesis's
# "default" profile (hypothesis may already have loaded its own "ci" one when CI is set);
# --hypothesis-profile picks either one.
_DEFAULT = settings.get_profile("default")
settings.register_profile("ci", parent=_DEFAULT, derandomize=True, database=None, print_blob=True)
settings.register_profile("dev", parent=_DEFAULT)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


# --- the real specs: say up front whether their tests run ------------------------------------


def pytest_report_header(config: object) -> str:
    """One header line: where the real specs were looked for, and whether they were found (their
    tests skip without them, each with the reason; ``-rs`` lists the skips)."""
    if (SHARED_SPECS / "ecma262" / "index.html").exists():
        return f"real specs: {SHARED_SPECS} (the ECMA-262 tests run)"
    return (
        f"real specs: not found at {SHARED_SPECS}: the ECMA-262 tests will be skipped "
        "(set SPECBROWSER_SHARED to the folder that holds specs/)"
    )


# --- pytest-xdist: tests that must share a worker ---------------------------------------------


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Group tests for ``--dist loadgroup`` (pyproject.toml): each xdist group runs on one worker.

    - ``serial``: all in the group "serial", so they run one after another, never two at once;
    - ``real``: one group per module, so a module's ECMA-262 tests share its one ingest (a
      module-scoped fixture) instead of each worker building it again; a module that names
      its own group keeps it (:data:`tests.helpers.REAL_SHARED`: its modules share the
      session's ingests of the shared specs, :func:`real_ingested`).

    Runs before xdist's own hook, which reads the groups.
    """
    for item in items:
        if item.get_closest_marker("serial"):
            item.add_marker(pytest.mark.xdist_group("serial"))
        if item.get_closest_marker("real") and not item.get_closest_marker("xdist_group"):
            item.add_marker(pytest.mark.xdist_group(f"real-{item.module.__name__}"))


# --- the shared specs: one ingest per spec per session -----------------------------------------


@pytest.fixture(scope="session")
def real_ingested(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], tuple[Path, object]]:
    """A factory: ``real_ingested(name)`` → (database, :class:`IngestResult`) of the shared spec
    ``name`` (:data:`tests.helpers.REAL_SPECS`) under its format's default policy, ingested once
    per session; skips when the spec is absent. The database is shared: a test that writes
    copies it first (:func:`real_db`)."""
    made: dict[str, tuple[Path, object]] = {}

    def get(name: str) -> tuple[Path, object]:
        path = REAL_SPECS[name]
        if not path.exists():
            pytest.skip(f"real specs not found at {path}")
        if name not in made:
            db = tmp_path_factory.mktemp(f"real-{name}") / "spec.db"
            made[name] = (db, ingest([path], db, ChunkPolicy(), policy_for_kind=policy_for))
        return made[name]

    return get


@pytest.fixture(scope="module")
def real_db(
    real_ingested: Callable[[str], tuple[Path, object]], tmp_path_factory: pytest.TempPathFactory
) -> Callable[[str], Path]:
    """A factory: ``real_db(name)`` → this module's own copy of :func:`real_ingested`'s
    database of ``name`` (made on first use), which the module may write to."""
    copies: dict[str, Path] = {}

    def get(name: str) -> Path:
        if name not in copies:
            template, _ = real_ingested(name)
            copies[name] = tmp_path_factory.mktemp(f"copy-{name}") / "spec.db"
            shutil.copyfile(template, copies[name])
        return copies[name]

    return get


# --- sample databases: ingested once per session, copied per test ----------------------------

IngestedDb = Callable[..., Path]
"""``ingested_db(spec, policy, name=None) -> Path``: see :func:`ingested_db`."""


@pytest.fixture(scope="session")
def _ingested_templates() -> dict[tuple[Path, str], Path]:
    """The databases ingested so far in this session (each xdist worker has its own), by
    (resolved spec path, policy version)."""
    return {}


@pytest.fixture
def ingested_db(
    _ingested_templates: dict[tuple[Path, str], Path],
    tmp_path_factory: pytest.TempPathFactory,
    tmp_path: Path,
) -> IngestedDb:
    """A factory: ``ingested_db(spec, policy, name=None)`` returns a fresh copy, in this test's
    ``tmp_path`` (named ``name``, default ``<spec stem>.db``), of the database that ``ingest``
    makes of the one spec file ``spec`` under ``policy``.

    The ingest runs once per session for each (spec, policy); each test gets its own copy of
    the file, so it may write to it. Skips the test when ``spec`` is absent.
    """

    def copy(spec: Path, policy: ChunkPolicy, name: str | None = None) -> Path:
        if not spec.is_file():
            pytest.skip(f"{spec.relative_to(ROOT) if spec.is_relative_to(ROOT) else spec} absent")
        key = (spec.resolve(), policy.version)
        template = _ingested_templates.get(key)
        if template is None:
            folder = tmp_path_factory.mktemp("ingested")
            template = folder / f"{spec.stem}.db"
            ingest([spec], template, policy)
            leftovers = sorted(p.name for p in folder.iterdir() if p != template)
            assert not leftovers, f"a database copy would miss {leftovers}"
            _ingested_templates[key] = template
        path = tmp_path / (name or f"{spec.stem}.db")
        shutil.copyfile(template, path)
        return path

    return copy


@pytest.fixture
def toylang_db(ingested_db: IngestedDb) -> Path:
    """``sample_specs/toylang.html`` at an 800-character threshold (breakdown subsections, and
    chunks that stay over the threshold), a fresh copy per test."""
    return ingested_db(SAMPLE, TOYLANG_POLICY)


@pytest.fixture
def mismatch_db(ingested_db: IngestedDb) -> Path:
    """``sample_specs/mismatched-toc.html`` (every kind of heading mismatch) under the default
    policy, a fresh copy per test."""
    return ingested_db(MISMATCHED_TOC, ChunkPolicy())


@pytest.fixture
def terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """``open`` and ``demo`` as if run in a terminal, for tests that replace the app itself
    (under pytest, standard input is no terminal, and the commands refuse to start without)."""
    import specbrowser.cli.app as cli_app

    monkeypatch.setattr(cli_app, "has_terminal", lambda: True)


# --- a corpus: two small specs in one database ----------------------------------------------

CORPUS_SPECS = (SAMPLE.parent / "widget-protocol.html", SAMPLE.parent / "widget-timers.html")
"""The two-spec corpus of the tests, in ingest order: the Widget Protocol, then Widget Timers
(whose ``intro`` is stored as ``widget-timers:intro``; see ``sample_specs/README.md``)."""


@pytest.fixture(scope="session")
def _corpus_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("corpus") / "corpus.db"
    for spec in CORPUS_SPECS:
        ingest([spec], path, ChunkPolicy())
    return path


@pytest.fixture
def corpus_db(_corpus_template: Path, tmp_path: Path) -> Path:
    """:data:`CORPUS_SPECS` ingested one after the other under the default policy, a fresh
    copy per test."""
    path = tmp_path / "corpus.db"
    shutil.copyfile(_corpus_template, path)
    return path


# --- the offline embedding model: loaded once per module -------------------------------------


@pytest.fixture(scope="module")
def cache_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An empty cache folder for the module's embedder (the model is assembled into it)."""
    return tmp_path_factory.mktemp("cache")


@pytest.fixture(scope="module")
def embedder(cache_root: Path) -> Embedder:
    """The default offline model, loaded into ``cache_root``; skips without its packages."""
    if not HAVE_MODEL:
        pytest.skip(MODEL_MISSING)
    from specbrowser.search.embed import load_embedder

    return load_embedder(cache_root=cache_root)
