"""Shared pytest configuration.

Sections are kept apart by owner; add new fixtures in their own section.
"""

from __future__ import annotations

from pathlib import Path

import pytest_textual_snapshot

ROOT = Path(__file__).resolve().parent.parent

# --- app tests (tests/test_app.py): snapshot location ----------------------------------------
# STYLE.md: snapshots live under the top-level snapshots/ folder, one folder per test module,
# instead of pytest-textual-snapshot's default tests/__snapshots__/.


def _snapshot_dirname(cls: type, *, test_location: object) -> str:
    return str(ROOT / "snapshots" / test_location.basename)  # type: ignore[attr-defined]


pytest_textual_snapshot.SVGImageExtension.dirname = classmethod(_snapshot_dirname)  # type: ignore[method-assign,assignment]
