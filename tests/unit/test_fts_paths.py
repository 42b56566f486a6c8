"""Full-text search ranks in FTS5 itself (``SetQueries._fts_ranked``) and, with a filter, joins
every match (``SetQueries._fts_joined``) only when the best texts' chunks are too few: the
hits, scores and snippets are the join's."""

from __future__ import annotations

import pytest

from specbrowser import store
from specbrowser.search import query as search_query
from specbrowser.search.hits import SearchFilter
from specbrowser.search.literal import HIGHLIGHT_END, HIGHLIGHT_START
from specbrowser.store.queries import _FtsSearch
from specbrowser.store.schema import set_fts_table

QUERIES = ["widget", "session OR message", "timer OR delay OR milliseconds", "revision"]
WEIGHTS = (
    search_query.TITLE_WEIGHT,
    search_query.HEADER_WEIGHT,
    search_query.TEXT_WEIGHT,
    search_query.NAMES_WEIGHT,
)


@pytest.mark.parametrize("limit", [1, 3, 50])
def test_ranked_and_filtered_searches_equal_the_join(corpus_db, limit) -> None:
    marks = (HIGHLIGHT_START, HIGHLIGHT_END)
    with store.open_database(corpus_db) as db:
        version = db.active_version()
        fts = set_fts_table(version)
        filters = [SearchFilter()]
        filters += [SearchFilter(document_id=spec.id) for spec in db.corpus.all()]
        filters += [SearchFilter(layer="section"), SearchFilter(section="messages")]
        for text in QUERIES:
            for where in filters:
                restrict, params = where.sql("c")
                search = _FtsSearch(fts, text, version, WEIGHTS, marks, restrict, params)
                joined = db._fts_joined(search, limit)
                found = db.fts_search(
                    text, version, limit, weights=WEIGHTS, highlight=marks, where=where
                )
                assert joined, (text, where)
                assert found == joined, (text, where)
