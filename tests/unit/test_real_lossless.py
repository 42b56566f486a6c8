"""Lossless breakdown on every section of the real ECMA-262 (skipped without ../shared)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from specbrowser.chunking.policy import ChunkPolicy
from tests.helpers import ECMA262, REAL_POLICIES, assert_lossless

pytestmark = [
    pytest.mark.real,
    pytest.mark.skipif(
        not (ECMA262 / "index.html").exists(),
        reason=f"real specs not found at {ECMA262} (CI has ../shared beside the checkout)",
    ),
]


POLICIES = {name: policy or ChunkPolicy() for name, policy in REAL_POLICIES.items()}
"""The matrix (:data:`tests.helpers.REAL_POLICIES`), ``default`` being ecmarkup's own."""

CASES = [
    pytest.param(policy, strategy, id=f"{name}-{strategy}")
    for name, policy in POLICIES.items()
    for strategy in ("guarded", "seed")
    if (name, strategy) != ("default", "guarded")
]
"""Every policy under both strategies but the default policy under the guarded strategy: the
session's ingest of ECMA-262, whose every section ``test_real_matrix`` checks for reassembly
(``specbrowser check``)."""


@pytest.mark.parametrize(("policy", "strategy"), CASES)
def test_every_ecma262_section_reassembles_to_its_one_piece_markdown(policy, strategy):
    assert assert_lossless(ECMA262 / "index.html", replace(policy, strategy=strategy)) == 2254


def test_guarded_packed_runs_without_a_minimum_reassemble():
    """Packing alone (no minimum): every run of cells, rows, items and paragraphs packs."""
    policy = ChunkPolicy(threshold=300, breakdown_tags=("td", "li", "p"), min_chars=0)
    assert assert_lossless(ECMA262 / "index.html", policy) == 2254
