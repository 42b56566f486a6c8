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


def _policy(threshold: int, *tags: str) -> ChunkPolicy:
    return ChunkPolicy(threshold_chars=threshold, breakdown_tags=tags)


@pytest.mark.parametrize(
    "policy",
    [
        ChunkPolicy(),
        _policy(2000, "emu-table", "emu-grammar", "tr", "p"),
        _policy(1000, "ol", "li"),
        _policy(400, "emu-alg", "ol", "li", "p"),
        _policy(1500, "emu-note", "emu-alg", "ol", "p"),
        _policy(500, "tr", "p"),
        _policy(800, "emu-alg > ol", "div", "td", "pre"),
    ],
    ids=[
        "default",
        "tr-2000",
        "ol-li-1000",
        "alg-ol-li-p-400",
        "note-alg-ol-p-1500",
        "tr-p-500",
        "selector-div-td-pre-800",
    ],
)
def test_every_ecma262_section_reassembles_to_its_one_piece_markdown(policy):
    assert assert_lossless(ECMA262 / "index.html", policy) == 2253
