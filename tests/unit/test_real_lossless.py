"""Lossless breakdown on every section of the real ECMA-262 (skipped without ../shared)."""

from __future__ import annotations

import pytest

from specbrowser.chunking.policy import ChunkPolicy
from tests.helpers import ECMA262, assert_lossless

pytestmark = [
    pytest.mark.real,
    pytest.mark.skipif(
        not (ECMA262 / "index.html").exists(),
        reason=f"real specs not found at {ECMA262} (CI has ../shared beside the checkout)",
    ),
]


@pytest.mark.parametrize(
    "policy",
    [
        ChunkPolicy(),
        ChunkPolicy(threshold_chars=2000, breakdown_tags=("emu-table", "emu-grammar", "tr", "p")),
    ],
    ids=["default", "tr-2000"],
)
def test_every_ecma262_section_reassembles_to_its_one_piece_markdown(policy):
    assert assert_lossless(ECMA262 / "index.html", policy) == 2253
