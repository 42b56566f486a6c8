"""Every shared spec (``../shared/specs``, its MANIFEST.md), under its format's default policy
(the session's one ingest, the ``real_ingested`` fixture), checked as ``specbrowser check``
checks it (no U+FFFD the source lacks, in-document links that lead to a chunk, heading paths
the TOC agrees with, every section reassembled, table rows of their header's width), and its
words against the source's (at most 0.1% missing). Each spec is skipped when absent. The rest
of the policy matrix is ``test_real_matrix_lossless``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from specbrowser.formats import resolve_inputs
from specbrowser.session.check import check_chunk_set
from specbrowser.store import open_database
from tests.helpers import REAL_SHARED, REAL_SPECS, word_coverage

pytestmark = [pytest.mark.real, REAL_SHARED]

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


@pytest.mark.parametrize("name", list(REAL_SPECS))
def test_check_finds_nothing_to_distrust(real_db, name):
    db = real_db(name)
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
def test_words_of_the_source_are_in_the_chunks(real_ingested, name):
    _, result = real_ingested(name)
    missing, extra, lost = word_coverage(result.chunks, _files(REAL_SPECS[name]))
    assert missing <= 0.001, lost.most_common(10)
    if name in EXTRA_CHECKED:
        assert extra <= 0.01


# --- what the shared ingests show of one spec or pair ----------------------------------------


def test_ecma262_keeps_every_exponent_and_optional_symbol(real_ingested):
    _, result = real_ingested("ecma262")
    text = "\n".join(c.text for c in result.chunks if c.section_id is not None)
    assert not re.search(r"[A-Za-z\]]opt\b", text)
    assert "`2^64 - 2^53 + 3`" in text and "`radix`^(k - 1)" in text
    assert text.count("^") == 57 + 168  # carets in the source text, and non-ordinal <sup>s


def test_ecma262_source_numbers_equal_the_rendered_ones(real_ingested):
    rendered = {s.id: s.secnum for s in real_ingested("ecma262")[1].parsed.sections}
    source = {s.id: s.secnum for s in real_ingested("ecma262-source")[1].parsed.sections}
    assert len(source) == 2253  # the rendering adds the copyright annex
    assert all(rendered[i] == n for i, n in source.items())


PAIRS = {"ecma262": 0.99, "temporal": 0.99, "import-attributes": 0.96}
"""Share of a source's section titles that must equal its rendering's. The proposal is rendered
by ecmarkup 16, which titles its annex ``A Sample host integration`` where later versions (and
the source's numbering) write ``Annex A (informative)``: 25 of 26."""


@pytest.mark.parametrize(("name", "share"), PAIRS.items(), ids=list(PAIRS))
def test_source_and_rendered_give_the_same_section_titles(real_ingested, name, share):
    rendered = {s.id: s.display_title for s in real_ingested(name)[1].parsed.sections}
    parsed = real_ingested(f"{name}-source")[1].parsed
    source = {s.id: s.display_title for s in parsed.sections}
    shared = [i for i in source if i in rendered]
    same = sum(source[i] == rendered[i] for i in shared)
    assert len(shared) >= len(rendered) - 1  # the rendering adds its copyright annex
    differ = [(source[i], rendered[i]) for i in shared if source[i] != rendered[i]]
    assert same / len(shared) >= share, differ[:5]
    headers = [
        el
        for el in parsed.elements.values()
        for dl in el.iter("dl")
        if "header" in (dl.get("class") or "")
    ]
    assert headers == []  # every structured header rendered
