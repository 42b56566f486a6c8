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


# --- the real specs: say up front whether their tests run ------------------------------------


def pytest_report_header(config: object) -> str:
    """One header line: where the real specs were looked for, and whether they were found (their
    tests skip without them, each with the reason; ``-rs`` lists the skips)."""
    from tests.helpers import SHARED_SPECS

    if (SHARED_SPECS / "ecma262" / "index.html").exists():
        return f"real specs: {SHARED_SPECS} (the ECMA-262 tests run)"
    return (
        f"real specs: not found at {SHARED_SPECS}: the ECMA-262 tests will be skipped "
        "(set SPECBROWSER_SHARED to the folder that holds specs/)"
    )
