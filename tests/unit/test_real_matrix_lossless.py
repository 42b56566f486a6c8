"""Every shared spec's sections reassemble from their chunks under the policy matrix
(:data:`tests.helpers.REAL_POLICIES`), each spec parsed once per module; skipped when absent.

Budget (CI has 2 cores): ECMA-262's single page has the whole matrix under both strategies in
``test_real_lossless``, and its multipage chunks equal its single page's
(``test_real_ecma262``): neither is repeated here. Every spec's default policy under the
guarded strategy is the session's ingest, whose every section ``test_real_matrix`` checks for
reassembly (``specbrowser check``): not repeated either. ECMA-262's source gets the default
policy under the seed strategy (whose extraction of a step's inline grammar once broke it) and
one cheap policy; the other specs the default policy under the seed strategy and three cheap
ones under the guarded strategy; the two small proposal renderings the whole matrix.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from specbrowser.formats import load_spec, policy_for
from tests.helpers import REAL_POLICIES, REAL_SPECS, assert_lossless_parsed

pytestmark = pytest.mark.real

CHEAP = ("tr-p-500", "ol-li-1000", "alg-ol-li-p-400")
"""The policies every spec but the two ECMA-262 renderings runs besides its default."""

SMALL = ("import-attributes", "import-attributes-source")
"""Specs small enough for the whole matrix."""


def _matrix() -> list[tuple[str, str, str]]:
    cases = []
    for name in REAL_SPECS:
        if name in ("ecma262", "ecma262-multipage"):
            continue
        cases.append((name, "default", "seed"))
        if name == "ecma262-source":
            cases.append((name, "tr-p-500", "guarded"))
            continue
        policies = [p for p in REAL_POLICIES if p != "default"] if name in SMALL else CHEAP
        cases += [(name, policy, "guarded") for policy in policies]
    return cases


@pytest.fixture(scope="module")
def parsed_specs():
    """name → the spec parsed once (each test chunks a copy)."""
    cache: dict[str, object] = {}

    def get(name: str):
        path = REAL_SPECS[name]
        if not path.exists():
            pytest.skip(f"real specs not found at {path}")
        if name not in cache:
            cache[name] = load_spec(path)
        return cache[name]

    return get


@pytest.mark.parametrize(
    ("name", "policy", "strategy"), [pytest.param(*c, id="-".join(c)) for c in _matrix()]
)
def test_every_section_reassembles(parsed_specs, name, policy, strategy):
    parsed = parsed_specs(name)
    chosen = REAL_POLICIES[policy] or policy_for(parsed.document.kind)
    count = assert_lossless_parsed(parsed, replace(chosen, strategy=strategy))
    assert count == len(parsed.sections)
