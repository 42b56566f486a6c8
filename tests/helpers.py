"""Shared helpers for the tests: chunk a small HTML string, find the real specs."""

from __future__ import annotations

import os
from pathlib import Path

from specbrowser.chunking.pipeline import chunk_spec
from specbrowser.chunking.policy import ChunkPolicy
from specbrowser.formats import load_spec
from specbrowser.formats.ecmarkup import CHUNKING_RULES
from specbrowser.model import Chunk

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample_specs" / "toylang.html"
SAMPLE_MULTIPAGE = ROOT / "sample_specs" / "toylang-multipage"
SHARED_SPECS = Path(os.environ.get("SPECBROWSER_SHARED", ROOT.parent / "shared")) / "specs"
ECMA262 = SHARED_SPECS / "ecma262"


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
