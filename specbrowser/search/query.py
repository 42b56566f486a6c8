"""Search over the active chunk set: lexical (FTS5, BM25), semantic (embeddings in sqlite-vec)
and hybrid (the two fused by query type: :func:`fuse`).

Anything a user types is searched literally and never raises: each whitespace
token becomes an FTS5 string (inner ``"`` doubled), so ``Array.prototype.map``, ``%TypedArray%``,
``[[Prototype]]``, ``for-in``, ``C++``, ``don't`` and ``AND`` are text, not syntax. Tokens with
no letter or digit are dropped (they would be empty phrases). A chunk matches when it holds
any of the tokens (function words left out), ranked by BM25 over its title, retrieval header,
body and the words inside the identifiers of its title and heading path
(:data:`~specbrowser.store.schema.FTS_COLUMNS`). The index uses FTS5's ``porter`` stemmer over
its ``unicode61`` tokenizer: ``Array.prototype.map`` is the phrase ``array prototype map``,
case and diacritics are folded and ``converted`` meets ``convert``; see README "Search".

Advanced mode passes the query to FTS5 as written (phrases, ``*`` prefixes, ``AND``/``OR``/
``NEAR``) and falls back to the literal search when FTS5 cannot parse it.
"""

from __future__ import annotations

import json
import re
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace

from specbrowser.errors import EmbeddingError, SpecbrowserError
from specbrowser.search import literal
from specbrowser.search.hits import NO_FILTER, Hit, SearchFilter
from specbrowser.search.literal import HIGHLIGHT_END, HIGHLIGHT_START, STOPWORDS
from specbrowser.search.symbols import symbol_hits, with_symbol_hits
from specbrowser.store import SpecStore
from specbrowser.store.connection import DB_ERRORS
from specbrowser.types import SearchMode

TITLE_WEIGHT, HEADER_WEIGHT, TEXT_WEIGHT, NAMES_WEIGHT = 2.0, 1.0, 1.0, 4.0
"""BM25 column weights (:data:`specbrowser.store.schema.FTS_COLUMNS`): a term in a chunk's title
counts twice a term in its retrieval header (document, heading path, part) or body (the
Markdown), and so does a word inside an identifier of its title or heading path (``array`` in
``IsArray``); snippets come from the body."""

_WORD = re.compile(r"\w")


def literal_query(text: str) -> str | None:
    """The FTS5 query that searches ``text`` literally, or None when it has no searchable token.

    Each whitespace token is wrapped in double quotes, its own double quotes doubled, so the
    user's ``Array.prototype.map`` becomes one FTS5 string that matches the phrase
    ``array prototype map``.
    """
    tokens = [t for t in text.split() if _WORD.search(t)]
    if not tokens:
        return None
    return " ".join('"' + t.replace('"', '""') + '"' for t in tokens)


def searched_as(text: str, mode: SearchMode = "lexical", advanced: bool = False) -> str | None:
    """The words lexical search actually looks for in ``text`` when the index drops some of
    what was typed (:func:`specbrowser.search.literal.searched_as`: ``[[Prototype]]`` →
    ``prototype``, ``Array.prototype.map`` → ``array prototype map``); None when nothing was
    dropped, for a semantic search (the model reads the text as typed) and for an advanced
    query (FTS5 syntax: the user's own)."""
    if mode == "semantic" or advanced:
        return None
    return literal.searched_as(text)


def searched_as_note(text: str, mode: SearchMode = "lexical", advanced: bool = False) -> str:
    """One line saying what :func:`searched_as` dropped, or ""."""
    words = searched_as(text, mode, advanced)
    if words is None:
        return ""
    if not words:
        return "the query has no letters or digits to search for"
    return f'searched as "{words}" (punctuation is not indexed)'


def lexical_search(
    db: SpecStore,
    text: str,
    *,
    limit: int = 20,
    advanced: bool = False,
    policy_version: str | None = None,
    where: SearchFilter = NO_FILTER,
) -> list[Hit]:
    """Chunks of the active (or given) chunk set matching ``text``, best first (BM25), within
    the filter ``where``: one FTS5 query for any of the query's words (its function words,
    :data:`STOPWORDS`, left out unless it has no other), so the hits are one BM25 ranking and a
    chunk holding more of the words, and rarer ones, ranks higher.

    Never raises on what a user types: with ``advanced`` an FTS5 parse error falls back to the
    literal search; a literal query cannot fail to parse.
    """
    version = policy_version or db.active_version()
    if advanced and text.strip():
        try:
            return _run(db, text, version, limit, where)
        except DB_ERRORS:
            pass  # not valid FTS5 syntax: search it literally instead
    words = [t for t in text.split() if t.casefold() not in STOPWORDS] or text.split()
    query = literal_query(" ".join(words))
    if query is None:
        return []
    return _run(db, query.replace('" "', '" OR "'), version, limit, where)


def _run(
    db: SpecStore, query: str, version: str, limit: int, where: SearchFilter = NO_FILTER
) -> list[Hit]:
    rows = db.fts_search(
        query,
        version,
        limit,
        weights=(TITLE_WEIGHT, HEADER_WEIGHT, TEXT_WEIGHT, NAMES_WEIGHT),
        highlight=(HIGHLIGHT_START, HIGHLIGHT_END),
        where=where,
    )
    return [
        Hit(
            chunk_id=r.chunk_id,
            section_id=r.section_id,
            title=r.title,
            heading_path=json.loads(r.toc_path) if r.toc_path else json.loads(r.heading_path),
            score=-r.rank,
            snippet=r.snippet,
        )
        for r in rows
    ]


RRF_K = 5
"""Reciprocal rank fusion's constant: a hit at rank r of a list scores weight/(RRF_K + r). The
usual 60 (Cormack et al. 2009) flattens the head of each list; 5 keeps a list's first hits
apart, which a question's best lexical hit needs (``benchmarks/fusion_variants.py``,
BENCHMARKS.md "Fusion")."""


SEMANTIC_WEIGHT = 0.6
"""Weight of the semantic list in the reciprocal rank fusion of a question in words (lexical
weighs 1): with :data:`RRF_K`, the variant that is never below the better of lexical and
semantic search at any k = 1…10 on the tuning halves of both ECMA-262 query files, with the
best mean MRR among those (``benchmarks/fusion_variants.py``, BENCHMARKS.md "Fusion")."""


def reciprocal_rank_fusion(
    ranked: list[list[Hit]], limit: int = 20, k: int = RRF_K, weights: list[float] | None = None
) -> list[Hit]:
    """Merge ranked hit lists into one: each chunk scores the sum of ``weight / (k + rank)`` over
    the lists it appears in (rank from 1; weights default to 1); ties keep the order of first
    appearance. The fused hit keeps the first list's snippet and title and gets
    ``mode="hybrid"``."""
    scores: dict[str, float] = {}
    first: dict[str, Hit] = {}
    for index, hits in enumerate(ranked):
        weight = weights[index] if weights else 1.0
        for rank, hit in enumerate(hits, start=1):
            scores[hit.chunk_id] = scores.get(hit.chunk_id, 0.0) + weight / (k + rank)
            first.setdefault(hit.chunk_id, hit)
    order = sorted(scores, key=lambda chunk_id: -scores[chunk_id])
    return [replace(first[c], score=scores[c], mode="hybrid") for c in order[:limit]]


_EMBEDDERS: dict[str, object] = {}
"""Loaded query embedders by model name: loading takes a second, a query a few milliseconds."""


QUERY_THREADS = 1
"""onnxruntime threads for embedding queries (see :func:`query_embedder`)."""


def query_embedder(model: str):  # -> specbrowser.search.embed.Embedder
    """The embedder for ``model`` (the database's), loaded once per process.

    It runs onnxruntime on one thread: a query is one short text, which threads synchronising
    would embed more slowly than one (BENCHMARKS.md).

    Raises:
        EmbeddingError: the model cannot be loaded (offline files missing, …).
    """
    if model not in _EMBEDDERS:
        # deferred: the embedding stack (5 ms of imports before onnxruntime), for a first query
        from specbrowser.search.embed import load_embedder

        _EMBEDDERS[model] = load_embedder(model, threads=QUERY_THREADS)
    return _EMBEDDERS[model]


def semantic_search(
    db: SpecStore,
    text: str,
    *,
    limit: int = 20,
    policy_version: str | None = None,
    where: SearchFilter = NO_FILTER,
    vector: Future[bytes] | None = None,
) -> list[Hit]:
    """Chunks nearest to ``text`` by embedding (the database's model), best first, within the
    filter ``where``; ``vector`` is the query's embedding when it is being made already
    (:func:`hybrid_search`).

    Only embedded chunks can be found (see ``specbrowser embed``); an empty query gives [].

    Raises:
        VectorsUnavailable: sqlite-vec is not loaded in this Python.
        EmbeddingError: the database holds no embeddings, or the model cannot be loaded.
    """
    db.vectors.require()
    if not text.strip():
        return []
    current = db.vectors.model()
    if current is None:
        raise EmbeddingError("the database holds no embeddings yet (run: specbrowser embed DB)")
    version = policy_version or db.active_version()
    query = vector.result() if vector else query_embedder(current[0]).embed_query(text)
    found = db.vectors.nearest(query, limit, version, where=where)
    chunks = {c.id: c for c in db.chunks([chunk_id for chunk_id, _ in found], version)}
    return [
        Hit(
            chunk_id=c.id,
            section_id=c.section_id,
            title=c.title,
            heading_path=c.toc_path or c.heading_path,
            score=-distance,
            snippet=" ".join(c.text.split())[:200],
            mode="semantic",
        )
        for chunk_id, distance in found
        if (c := chunks.get(chunk_id)) is not None
    ]


HYBRID_POOL = 50
"""Hits taken from each of the lexical and semantic lists before fusing them. Fused from the top
``2 × limit`` only, a chunk's score would change with ``--limit``."""

_IDENTIFIER_MARK = re.compile(r"[a-z][A-Z]|[A-Z]{2}|[.%@:_\[\]()]|\d")
"""Inside a token, what names a spec thing rather than a word: camelCase (``ToNumber``), two
capitals (``HTML``, ``AO``), punctuation of spec notation (``Array.prototype.map``,
``[[Prototype]]``, ``%TypedArray%``, ``@@iterator``, ``::``), a digit (``ES2015``, ``7.1.4``)."""


def is_identifier_query(text: str) -> bool:
    """Whether ``text`` names things (identifiers, spec tokens) rather than asks in words: one
    token, or only tokens with an :data:`_IDENTIFIER_MARK`."""
    tokens = text.split()
    if not tokens:
        return False
    return len(tokens) == 1 or all(_IDENTIFIER_MARK.search(token) for token in tokens)


def lexical_first(lexical: list[Hit], semantic: list[Hit], limit: int) -> list[Hit]:
    """The lexical hits in their order, then the semantic hits they lack (at the same cut-off
    this finds everything the lexical list finds), each with ``mode="hybrid"``."""
    seen = {hit.chunk_id for hit in lexical}
    merged = [*lexical, *(hit for hit in semantic if hit.chunk_id not in seen)]
    return [
        replace(hit, score=len(merged) - rank, mode="hybrid")
        for rank, hit in enumerate(merged[:limit])
    ]


def fuse(text: str, lexical: list[Hit], semantic: list[Hit], limit: int) -> list[Hit]:
    """Hybrid ranking of one query from its lexical and semantic lists, by query type:

    - a query that names things (:func:`is_identifier_query`) keeps the lexical order and gets
      the semantic hits after it (:func:`lexical_first`): an exact name is what BM25 finds,
      and the embedding of a lone identifier ranks look-alikes (``Math.pow`` for
      ``ToNumber``);
    - a question in words gets reciprocal rank fusion with the semantic list weighted
      :data:`SEMANTIC_WEIGHT`.

    Chosen over RRF alone and min-max score normalisation with
    ``benchmarks/fusion_benchmark.py`` (BENCHMARKS.md "Fusion"). Symbol hits (a defined name),
    when the index has them, go before both lists (see :func:`hybrid_search`).
    """
    if not semantic:
        return [replace(hit, mode="hybrid") for hit in lexical[:limit]]
    if is_identifier_query(text):
        return lexical_first(lexical, semantic, limit)
    return reciprocal_rank_fusion([lexical, semantic], limit=limit, weights=[1.0, SEMANTIC_WEIGHT])


def hybrid_search(
    db: SpecStore,
    text: str,
    *,
    limit: int = 20,
    policy_version: str | None = None,
    where: SearchFilter = NO_FILTER,
) -> list[Hit]:
    """Lexical and semantic hits fused by :func:`fuse` (routing by query type).

    Each list holds the :data:`HYBRID_POOL` best hits (more when ``limit`` asks for more than
    half of that), so a chunk's fused score and rank do not depend on ``limit``. Chunks not
    embedded yet still come through the lexical list. When semantic search cannot run (no
    sqlite-vec, no embeddings), this is the lexical search.
    """
    pool = max(HYBRID_POOL, 2 * limit)
    vector = _embedding_meanwhile(db, text)
    lexical = lexical_search(db, text, limit=pool, policy_version=policy_version, where=where)
    try:
        semantic = semantic_search(
            db, text, limit=pool, policy_version=policy_version, where=where, vector=vector
        )
    except SpecbrowserError:
        return lexical[:limit]
    return fuse(text, lexical, semantic, limit)


_QUERY_VECTORS = ThreadPoolExecutor(max_workers=1, thread_name_prefix="specbrowser-query")
"""The thread that embeds a hybrid query while the lexical search runs (onnxruntime and SQLite
both release the GIL): on the six-spec corpus, hybrid p50 is about the semantic half's rather
than the sum of both (BENCHMARKS.md, the corpus section)."""


def _embedding_meanwhile(db: SpecStore, text: str) -> Future[bytes] | None:
    """The query's embedding under the database's model, started on :data:`_QUERY_VECTORS`;
    None when semantic search cannot run (it then says why itself). Its error, if any (a model
    that cannot be loaded), comes out of ``result()``."""
    if db.vector_error or not text.strip():
        return None
    try:
        current = db.vectors.model()
    except DB_ERRORS:
        return None
    if current is None:
        return None
    return _QUERY_VECTORS.submit(lambda: query_embedder(current[0]).embed_query(text))


def run_search(
    db: SpecStore,
    text: str,
    mode: SearchMode = "lexical",
    *,
    limit: int = 20,
    advanced: bool = False,
    policy_version: str | None = None,
    where: SearchFilter = NO_FILTER,
) -> list[Hit]:
    """The chunks a query names as a whole (:func:`specbrowser.search.symbols.symbol_hits`: a
    defined name, a section number, an anchor) first, then :func:`lexical_search`,
    :func:`semantic_search` or :func:`hybrid_search`, after checking the filter ``where``.

    Raises:
        ValueError: an unknown mode.
        NotFoundError, PolicyError: the filter names no section, or an unknown layer.
        VectorsUnavailable, EmbeddingError: ``semantic`` without sqlite-vec or embeddings.
    """
    where.check(db)
    symbols = symbol_hits(db, text, mode, policy_version=policy_version, where=where)
    if mode == "lexical":
        ranked = lexical_search(
            db, text, limit=limit, advanced=advanced, policy_version=policy_version, where=where
        )
    elif mode == "semantic":
        ranked = semantic_search(db, text, limit=limit, policy_version=policy_version, where=where)
    elif mode == "hybrid":
        ranked = hybrid_search(db, text, limit=limit, policy_version=policy_version, where=where)
    else:
        raise ValueError(f"unknown search mode {mode!r}")
    return with_symbol_hits(symbols, ranked, limit)


def coverage_note(
    db: SpecStore, policy_version: str | None = None, mode: SearchMode = "hybrid"
) -> str:
    """One line on what semantic search covers in ``mode``: why it is off, or the embedded
    fraction (hybrid finds the rest lexically; semantic cannot find it); "" when all is
    embedded."""
    vector_error = db.vector_error
    if vector_error:
        return f"lexical results only: {vector_error}"
    current = db.vectors.model()
    if current is None:
        return "lexical results only: no embeddings yet (run: specbrowser embed DB)"
    fraction = db.vectors.embedded_fraction(current[0], policy_version or db.active_version())
    if fraction < 1:
        rest = (
            "semantic search cannot find the rest"
            if mode == "semantic"
            else "the rest are found by lexical search only"
        )
        return (
            f"{fraction:.0%} of chunks embedded ({current[0]}); {rest} (run: specbrowser embed DB)"
        )
    return ""
