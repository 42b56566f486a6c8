"""The symbol index and link resolution on the real ECMA-262 (skipped without ../shared): every
in-document link leads to a chunk, anchors lie where their element's text is, identifier queries
find their definition first."""

from __future__ import annotations

import json
import re

import lxml.html
import pytest

from specbrowser.search.query import run_search
from specbrowser.session import Session
from specbrowser.session.links import link_report
from specbrowser.store import open_database
from tests.helpers import ECMA262, REAL_SHARED, ROOT

pytestmark = [
    pytest.mark.real,
    REAL_SHARED,
    pytest.mark.skipif(
        not (ECMA262 / "index.html").exists(),
        reason=f"real specs not found at {ECMA262} (CI has ../shared beside the checkout)",
    ),
]

_NOT_ALNUM = re.compile(r"[\W_]+")
_LINK_TARGET = re.compile(r"\]\((?:<[^>]*>|[^)\s]*)\)")


@pytest.fixture(scope="module")
def ecma_db(real_db):
    """The session's ECMA-262 ingest under the default policy, this module's copy."""
    return real_db("ecma262")


def _identifier_queries() -> list[dict[str, str]]:
    project = json.loads((ROOT / "benchmarks" / "ecma262_queries.json").read_text())
    named = [
        q
        for q in project
        if q["kind"] in ("identifier", "intrinsic", "grammar") and " " not in q["query"]
    ]
    return named + json.loads((ROOT / "benchmarks" / "ecma262_identifiers.json").read_text())


def test_at_least_99_percent_of_in_document_links_lead_to_a_chunk(ecma_db):
    with open_database(ecma_db) as db:
        report = link_report(db, db.active_version())
    assert report.anchor_in_document > 19_000  # 20,165 in the default set
    assert report.resolved_share >= 0.99, report.unresolved


def test_an_anchor_lies_in_the_chunk_that_holds_its_element_text(ecma_db):
    """Every anchor of a table, a production or a term recorded in a subsection: the start
    of its element's text (letters and digits) is in that chunk's text."""
    with open_database(ecma_db) as db:
        version = db.active_version()
        rows = db.db.execute(
            "SELECT j.value, r.id, s.html FROM chunk_rows r, json_each(r.anchors) j "
            "JOIN sections s ON s.id = r.section_id WHERE r.policy_version = ? "
            "AND (j.value LIKE 'table-%' OR j.value LIKE 'prod-%' OR j.value IN "
            "(SELECT anchor FROM symbols WHERE kind = 'dfn'))",
            [version],
        ).fetchall()
        texts = {
            c.id: _NOT_ALNUM.sub("", _LINK_TARGET.sub("]", c.text)).casefold()
            for c in db.chunks(sorted({r[1] for r in rows}), version)
        }
    assert len(rows) > 300
    parsed: dict[str, lxml.html.HtmlElement] = {}
    checked = 0
    for anchor, chunk_id, html in rows:
        root = parsed.setdefault(html, lxml.html.fromstring(html))
        element = next(e for e in root.iter() if e.get("id") == anchor)
        for opt in element.iter("emu-opt"):  # the chunk writes "X?" where the HTML has "Xopt"
            opt.text = ""
        start = _NOT_ALNUM.sub("", element.text_content()).casefold()[:30]
        if len(start) < 10:
            continue
        checked += 1
        assert start in texts[chunk_id], (anchor, chunk_id)
    assert checked > 300


def test_old_ids_and_definitions_resolve(ecma_db):
    with Session.open(ecma_db) as session:
        assert session.locate("#sec-returnifabrupt").chunk_id == (
            "sec-shorthands-for-unwrapping-completion-records"
        )
        assert session.locate("ToNumber").chunk_id == "sec-tonumber"
        assert session.locate("%Array%").section_id == "sec-array-constructor"
        assert session.locate("IfStatement").section_id == "sec-if-statement"


@pytest.mark.parametrize("mode", ["lexical", "hybrid"])
def test_identifier_queries_find_their_definition_first(ecma_db, mode):
    queries = _identifier_queries()
    with open_database(ecma_db) as db:
        firsts = [run_search(db, q["query"], mode, limit=5) for q in queries]
    hits = [
        bool(f) and f[0].section_id == q["expect"] for f, q in zip(firsts, queries, strict=True)
    ]
    missed = [q["query"] for q, hit in zip(queries, hits, strict=True) if not hit]
    assert sum(hits) / len(queries) >= 0.95, missed
