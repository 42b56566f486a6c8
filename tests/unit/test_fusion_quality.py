"""Hybrid search is never worse than lexical on the shipped sample query set, at any cut-off,
with the real offline model (sample_specs/toylang-queries.tsv over the sample spec, every
chunk embedded: a few seconds)."""

from __future__ import annotations

import pytest

from specbrowser.chunking.policy import ChunkPolicy
from specbrowser.cli import main
from specbrowser.session import Session
from specbrowser.session.evaluate import evaluate
from tests.helpers import HAVE_MODEL, MODEL_MISSING, ROOT, SAMPLE

QUERIES = ROOT / "sample_specs" / "toylang-queries.tsv"


@pytest.mark.skipif(not HAVE_MODEL, reason=MODEL_MISSING)
def test_hybrid_is_never_below_lexical_on_the_sample_queries(ingested_db, capsys) -> None:
    db = ingested_db(SAMPLE, ChunkPolicy())
    assert main(["embed", str(db)]) == 0, capsys.readouterr().err
    with Session.open(db) as session:
        result = evaluate(session, QUERIES, modes=("lexical", "hybrid"), ks=(1, 3, 5, 10))
    runs = {run.mode: run for run in result.runs}
    assert set(runs) == {"lexical", "hybrid"}, result.skipped
    lexical, hybrid = runs["lexical"], runs["hybrid"]
    for k in lexical.ks:
        assert hybrid.hit[k] >= lexical.hit[k], (k, hybrid.hit, lexical.hit)
        assert hybrid.recall[k] >= lexical.recall[k], (k, hybrid.recall, lexical.recall)
    assert hybrid.mrr >= lexical.mrr
