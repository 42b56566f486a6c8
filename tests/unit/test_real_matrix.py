"""Every shared spec (``../shared/specs``, its MANIFEST.md), ingested once per module under its
format's default policy and checked as ``specbrowser check`` checks it (no U+FFFD the source
lacks, in-document links that lead to a chunk, heading paths the TOC agrees with, every section
reassembled, table rows of their header's width), and its words against the source's. Each
spec is skipped when absent. The policy matrix is ``test_real_matrix_lossless`` (another
xdist group, so the two run side by side).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from specbrowser.formats import load_spec, policy_for, resolve_inputs
from specbrowser.session.check import check_chunk_set
from specbrowser.session.ingest import ingest
from specbrowser.store import open_database
from tests.helpers import REAL_SPECS, word_coverage

pytestmark = pytest.mark.real

EXTRA_CHECKED = (
    "ecma262",
    "ecma262-multipage",
    "import-attributes",
    "fetch",
    "webauthn",
    "rfc9110",
)
"""Specs whose chunks hold at most 1% of words the pages lack (a source's structured headers
become generated paragraphs; Temporal's rendering repeats words the page spells once: 3%)."""


def _files(path: Path) -> list[Path]:
    """The pages a spec argument means, a source's imported files included."""
    files = resolve_inputs([path])
    if path.is_dir() and path.name == "source":
        files = sorted({*files, *path.rglob("*.html"), *path.rglob("*.emu")})
    return files


@pytest.fixture(scope="module")
def ingested(tmp_path_factory):
    """name → (database, ingest result), each spec ingested once under its format's policy."""
    made: dict[str, tuple[Path, object]] = {}

    def get(name: str):
        path = REAL_SPECS[name]
        if not path.exists():
            pytest.skip(f"real specs not found at {path}")
        if name not in made:
            kind = load_spec(path).document.kind
            db = tmp_path_factory.mktemp(name) / "spec.db"
            made[name] = (db, ingest([path], db, policy_for(kind)))
        return made[name]

    return get


@pytest.mark.parametrize("name", list(REAL_SPECS))
def test_check_finds_nothing_to_distrust(ingested, name):
    db, _ = ingested(name)
    with open_database(db) as store:
        report = check_chunk_set(store, store.active_version())
    found = {
        k: [f"{f.where}: {f.detail}" for f in report.findings[k]]
        for k, n in report.counts.items()
        if n
    }
    # the front matter of Bikeshed and xml2rfc (abstract, status) is in no TOC: not a mismatch
    # of the headings, which the TOC lists as they are
    paths = found.pop("heading_path", [])
    assert all("missing_from_toc" in p and "TOC ''" in p for p in paths), paths
    assert len(paths) <= 4
    dead = report.counts["dead_link"]
    assert dead <= 0.001 * max(report.links, 1), found.get("dead_link")
    found.pop("dead_link", None)
    assert found == {}


@pytest.mark.parametrize("name", list(REAL_SPECS))
def test_words_of_the_source_are_in_the_chunks(ingested, name):
    _, result = ingested(name)
    missing, extra, lost = word_coverage(result.chunks, _files(REAL_SPECS[name]))
    assert missing <= 0.001, lost.most_common(10)
    if name in EXTRA_CHECKED:
        assert extra <= 0.01
