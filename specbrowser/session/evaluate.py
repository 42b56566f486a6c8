"""Evaluate how well a chunk set retrieves: a query file run through the session's search.

A *query file* (:mod:`specbrowser.session.query_file`) pairs queries with the ids that answer
them, each a section id or a chunk id.

A retrieved chunk *matches* an expected id when it is that chunk, or belongs to that section
(its ``section_id``; chunks of the sections below it do not count). For each query and each
cut-off k (:func:`score_query`):

- hit@k: 1 when a chunk among the first k matches an expected id, else 0;
- recall@k: the share of the expected ids that some chunk among the first k matches (with one
  expected id, the same as hit@k);
- reciprocal rank: 1 / the 1-based rank of the first matching chunk within the largest k, else 0
  (averaged: MRR, cut at the largest k).

With an excerpt (a passage copied from the answering section), the token-level metrics of
Chroma's chunking evaluation (Smith and Troynikov, "Evaluating Chunking Strategies for
Retrieval", Chroma, 2024), over the texts of the first k chunks (:func:`token_scores`):
recall = |E ∩ R| / |E|, precision = |E ∩ R| / |R|, IoU = |E ∩ R| / (|E| + |R| - |E ∩ R|),
where E are the excerpt's tokens, R the retrieved chunks' tokens (every chunk's counted, so a
text retrieved twice counts twice) and E ∩ R the excerpt tokens found in order in a retrieved
text, in runs of at least :data:`MIN_RUN` (:func:`covered_tokens`). Tokens here are words
(:func:`words`): runs of letters, digits and ``_``, lower-cased (``[[Prototype]]`` is
``prototype``), not a model's tokens.

Averages are over all queries; the token metrics over the queries with an excerpt.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from difflib import SequenceMatcher
from pathlib import Path
from typing import TYPE_CHECKING

from specbrowser.errors import NotFoundError, PolicyError
from specbrowser.search.literal import is_searchable
from specbrowser.session.query_file import EvalQuery, check_expected, read_queries
from specbrowser.types import SEARCH_MODES, SearchMode

if TYPE_CHECKING:
    from specbrowser.session.core import Session

DEFAULT_KS: tuple[int, ...] = (1, 5, 10)
"""The cut-offs reported when none are given."""

MIN_RUN = 3
"""Fewest consecutive excerpt tokens that count as found in a retrieved text (fewer would match
stray common words such as "the"); an excerpt shorter than this must be found whole."""

_WORD = re.compile(r"\w+")
_LINK_TARGET = re.compile(r"\]\([^)\s]*\)")


def words(text: str) -> list[str]:
    """``text``'s tokens for the token metrics: runs of ``\\w`` characters, lower-cased, after
    dropping Markdown link targets (the ``(#sec-keywords)`` of ``[keyword](#sec-keywords)``: an
    address, not text the reader sees)."""
    return _WORD.findall(_LINK_TARGET.sub("]", text).lower())


# --- scores --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Retrieved:
    """One retrieved chunk, as the scores need it: its id, its section and its text."""

    chunk_id: str
    section_id: str | None
    text: str = ""


@dataclass(frozen=True)
class TokenScores:
    """Token-level recall, precision and IoU (0–1) of retrieved texts against an excerpt."""

    recall: float
    precision: float
    iou: float


@dataclass(frozen=True)
class QueryScore:
    """How one query fared in one run.

    Attributes:
        query: the query.
        ranked: the retrieved chunk ids, best first (at most the largest k).
        rank: 1-based rank of the first chunk matching an expected id; None when none does.
        recall: k → share of expected ids matched within the first k.
        tokens: k → token scores, when the query has an excerpt; else empty.
    """

    query: EvalQuery
    ranked: tuple[str, ...]
    rank: int | None
    recall: dict[int, float]
    tokens: dict[int, TokenScores] = field(default_factory=dict)

    @property
    def missed(self) -> bool:
        """No expected id among the retrieved chunks (the first largest-k)."""
        return self.rank is None


def matches(hit: Retrieved, expected: str) -> bool:
    """Whether ``hit`` is the chunk ``expected``, or belongs to the section ``expected``."""
    return hit.chunk_id == expected or hit.section_id == expected


def covered_tokens(excerpt: Sequence[str], texts: Sequence[Sequence[str]]) -> int:
    """How many of the excerpt's tokens (by position) lie in runs of at least :data:`MIN_RUN`
    consecutive tokens (the whole excerpt when shorter) found, in order, in one of ``texts``."""
    if not excerpt:
        return 0
    least = min(MIN_RUN, len(excerpt))
    found: set[int] = set()
    for text in texts:
        matcher = SequenceMatcher(None, excerpt, text, autojunk=False)
        for block in matcher.get_matching_blocks():
            if block.size >= least:
                found.update(range(block.a, block.a + block.size))
    return len(found)


def token_scores(excerpt: str, texts: Sequence[str]) -> TokenScores:
    """Chroma's token recall, precision and IoU of ``texts`` (the retrieved chunks' texts)
    against ``excerpt`` (see the module docstring); all 0 when nothing was retrieved."""
    wanted = words(excerpt)
    retrieved = [words(text) for text in texts]
    total = sum(len(tokens) for tokens in retrieved)
    both = covered_tokens(wanted, retrieved)
    union = len(wanted) + total - both
    return TokenScores(
        recall=both / len(wanted) if wanted else 0.0,
        precision=both / total if total else 0.0,
        iou=both / union if union else 0.0,
    )


def score_query(query: EvalQuery, hits: Sequence[Retrieved], ks: Sequence[int]) -> QueryScore:
    """Score one query's hits (best first) at each cut-off in ``ks``."""
    top = max(ks)
    hits = list(hits[:top])
    rank = next(
        (i + 1 for i, hit in enumerate(hits) if any(matches(hit, e) for e in query.expected)),
        None,
    )
    recall = {
        k: sum(any(matches(h, e) for h in hits[:k]) for e in query.expected) / len(query.expected)
        for k in ks
    }
    tokens = (
        {k: token_scores(query.excerpt, [h.text for h in hits[:k]]) for k in ks}
        if query.excerpt
        else {}
    )
    return QueryScore(query, tuple(h.chunk_id for h in hits), rank, recall, tokens)


@dataclass(frozen=True)
class RunScores:
    """The scores of one chunk set in one search mode, averaged over the queries.

    Attributes:
        policy_version: the chunk set (full version).
        mode: the search mode.
        ks: the cut-offs, ascending.
        hit, recall: k → mean hit@k, mean recall@k (0–1).
        mrr: mean reciprocal rank, cut at the largest k.
        tokens: k → mean token scores over the queries with an excerpt (empty: none has one).
        excerpts: how many queries have an excerpt.
        queries: each query's score, in file order.
        note: what semantic search covers in this set ("" when all of it, or lexical).
    """

    policy_version: str
    mode: SearchMode
    ks: tuple[int, ...]
    hit: dict[int, float]
    recall: dict[int, float]
    mrr: float
    tokens: dict[int, TokenScores]
    excerpts: int
    queries: list[QueryScore]
    note: str = ""

    @property
    def missed(self) -> list[QueryScore]:
        """The queries with no expected id in the first largest-k hits."""
        return [q for q in self.queries if q.missed]


def summarize(
    policy_version: str, mode: SearchMode, ks: Sequence[int], scores: list[QueryScore]
) -> RunScores:
    """Average per-query scores into one run's scores."""
    ks = tuple(sorted(set(ks)))
    count = len(scores) or 1
    with_excerpt = [s for s in scores if s.tokens]

    def mean_tokens(k: int) -> TokenScores:
        n = len(with_excerpt)
        return TokenScores(
            recall=sum(s.tokens[k].recall for s in with_excerpt) / n,
            precision=sum(s.tokens[k].precision for s in with_excerpt) / n,
            iou=sum(s.tokens[k].iou for s in with_excerpt) / n,
        )

    return RunScores(
        policy_version=policy_version,
        mode=mode,
        ks=ks,
        hit={k: sum(s.rank is not None and s.rank <= k for s in scores) / count for k in ks},
        recall={k: sum(s.recall[k] for s in scores) / count for k in ks},
        mrr=sum(1 / s.rank for s in scores if s.rank is not None) / count,
        tokens={k: mean_tokens(k) for k in ks} if with_excerpt else {},
        excerpts=len(with_excerpt),
        queries=scores,
    )


# --- running it through a session ----------------------------------------------------------------


@dataclass(frozen=True)
class Skipped:
    """A (set, mode) run left out, and why (one line)."""

    policy_version: str
    mode: SearchMode
    reason: str


@dataclass(frozen=True)
class Evaluation:
    """An evaluation: every (set, mode) run, sets in the order given, modes in
    :data:`~specbrowser.types.SEARCH_MODES` order, and the runs left out; in a corpus,
    ``query_specs`` names the spec that answers each query (file order), else it is empty."""

    path: str
    query_count: int
    ks: tuple[int, ...]
    runs: list[RunScores]
    skipped: list[Skipped]
    query_specs: tuple[str, ...] = ()

    def by_spec(self, run: RunScores) -> dict[str, RunScores]:
        """In a corpus, ``run``'s scores over the queries answered in each spec (the spec of a
        query's first expected id, :attr:`query_specs`), specs in the order their first query
        comes; {} for a database of one spec."""
        if not self.query_specs:
            return {}
        groups: dict[str, list[QueryScore]] = {}
        for spec, score in zip(self.query_specs, run.queries, strict=True):
            groups.setdefault(spec, []).append(score)
        return {
            spec: summarize(run.policy_version, run.mode, run.ks, scores)
            for spec, scores in groups.items()
        }


def mode_unavailable(session: Session, policy_version: str, mode: SearchMode) -> str | None:
    """Why ``mode`` cannot run on the set ``policy_version`` (a full version), or None.

    Semantic and hybrid search need sqlite-vec and embeddings of that set (hybrid without them
    would be lexical search under another name).
    """
    if mode == "lexical":
        return None
    off = session.vectors_off()
    if off:
        return off

    model = session.embedding_model()
    if model is None or session.store.vectors.embedded_fraction(model, policy_version) == 0:
        return (
            f"no embeddings of chunk set {policy_version} "
            "(activate it, then run: specbrowser embed DB)"
        )
    return None


def check_query_ids(
    session: Session, path: Path | str, queries: Sequence[EvalQuery], version: str
) -> None:
    """Refuse a query file whose expected ids are not all section ids or chunk ids of the chunk
    set ``version`` (a full version).

    Raises:
        QueryFileError: the first unknown id, with its file and line.
    """

    def known(name: str) -> bool:
        if session.chunks([name], version):
            return True
        try:
            session.section(name)
        except NotFoundError:
            return False
        return True

    check_expected(path, queries, known, f"chunk set {version}")


def evaluate(
    session: Session,
    path: Path | str,
    *,
    versions: Sequence[str] = (),
    modes: Sequence[SearchMode] = (),
    ks: Sequence[int] = DEFAULT_KS,
    queries: Sequence[EvalQuery] | None = None,
) -> Evaluation:
    """Run the query file ``path`` through :meth:`Session.search` on each chunk set of
    ``versions`` (full versions or unique prefixes; default the active set) in each mode of
    ``modes`` (default: every mode); a mode a set cannot run is skipped (:class:`Skipped`).

    ``queries`` are the file's queries when already read (else :func:`read_queries`).

    Raises:
        QueryFileError: a bad query file, or an expected id unknown to a set.
        NotFoundError: a version names no set (or several).
        PolicyError: a cut-off under 1.
    """
    if not ks or min(ks) < 1:
        raise PolicyError("cut-offs (k) must be whole numbers of at least 1")
    ks = tuple(sorted(set(ks)))
    queries = list(queries) if queries is not None else read_queries(path)
    resolved = [session.resolve_version(v) for v in versions] or [session.active_version()]
    resolved = list(dict.fromkeys(resolved))
    wanted_modes = [m for m in SEARCH_MODES if m in (modes or SEARCH_MODES)]
    runs: list[RunScores] = []
    skipped: list[Skipped] = []
    for version in resolved:
        check_query_ids(session, path, queries, version)
        texts: dict[str, str] = {}
        for mode in wanted_modes:
            reason = mode_unavailable(session, version, mode)
            if reason is not None:
                skipped.append(Skipped(version, mode, reason))
                continue
            scores = [
                score_query(query, _retrieve(session, query, mode, version, max(ks), texts), ks)
                for query in queries
            ]
            run = summarize(version, mode, ks, scores)
            if mode != "lexical":
                run = replace(run, note=session.coverage_note(mode, version))
            runs.append(run)
    return Evaluation(
        str(path), len(queries), ks, runs, skipped, _query_specs(session, queries, resolved[0])
    )


def _query_specs(session: Session, queries: Sequence[EvalQuery], version: str) -> tuple[str, ...]:
    """The name of the spec holding each query's first expected id (a chunk, or a section whose
    root chunk has its id) in the set ``version``, or ``"?"``; () unless the database holds
    several specs."""
    if len(session.spec_rows()) < 2:
        return ()
    firsts = [query.expected[0] for query in queries]
    spec_of = session.chunk_specs(list(dict.fromkeys(firsts)), version)
    return tuple(spec_of.get(first, "?") for first in firsts)


def _retrieve(
    session: Session,
    query: EvalQuery,
    mode: SearchMode,
    version: str,
    limit: int,
    texts: dict[str, str],
) -> list[Retrieved]:
    """The query's hits as :class:`Retrieved`, with chunk texts when it has an excerpt
    (``texts`` caches them by chunk id, for one set); none for a query with no letter or digit
    (a search refuses it: nothing is indexed of it), which then counts as a miss."""
    if not is_searchable(query.query):
        return []
    hits = session.search(query.query, mode, limit=limit, policy_version=version)
    if query.excerpt:
        missing = [h.chunk_id for h in hits if h.chunk_id not in texts]
        for chunk in session.chunks(missing, version):
            texts[chunk.id] = chunk.text
    return [Retrieved(h.chunk_id, h.section_id, texts.get(h.chunk_id, "")) for h in hits]


def evaluation_json(evaluation: Evaluation) -> dict[str, object]:
    """The evaluation as one JSON-ready object (metrics rounded to 4 decimals; ks as strings)."""

    def r(value: float) -> float:
        return round(value, 4)

    return {
        "queries": evaluation.path,
        "query_count": evaluation.query_count,
        "ks": list(evaluation.ks),
        "runs": [
            {
                "set": run.policy_version,
                "mode": run.mode,
                "hit_at": {str(k): r(v) for k, v in run.hit.items()},
                "recall_at": {str(k): r(v) for k, v in run.recall.items()},
                "mrr": r(run.mrr),
                "excerpts": run.excerpts,
                "tokens_at": {
                    str(k): {"recall": r(t.recall), "precision": r(t.precision), "iou": r(t.iou)}
                    for k, t in run.tokens.items()
                },
                "coverage": run.note,
                "by_spec": {
                    spec: {
                        "query_count": len(part.queries),
                        "hit_at": {str(k): r(v) for k, v in part.hit.items()},
                        "mrr": r(part.mrr),
                    }
                    for spec, part in evaluation.by_spec(run).items()
                },
                "missed": [
                    {
                        "line": q.query.line,
                        "query": q.query.query,
                        "expected": list(q.query.expected),
                        "top": list(q.ranked[:3]),
                    }
                    for q in run.missed
                ],
            }
            for run in evaluation.runs
        ],
        "skipped": [
            {"set": s.policy_version, "mode": s.mode, "reason": s.reason}
            for s in evaluation.skipped
        ],
    }


def metric_rows(evaluation: Evaluation) -> list[tuple[str, list[str]]]:
    """The comparison table as ``(metric, one cell per run)`` rows, cells with 3 decimals:
    hit@k and recall@k per k, MRR, then (when a query has an excerpt) token recall, precision
    and IoU per k. Both front ends print these rows."""
    runs, ks = evaluation.runs, evaluation.ks
    rows: list[tuple[str, list[str]]] = []
    rows += [(f"hit@{k}", [f"{run.hit[k]:.3f}" for run in runs]) for k in ks]
    rows += [(f"recall@{k}", [f"{run.recall[k]:.3f}" for run in runs]) for k in ks]
    rows.append((f"MRR@{ks[-1]}", [f"{run.mrr:.3f}" for run in runs]))
    if any(run.tokens for run in runs):
        for name in ("recall", "precision", "iou"):
            label = "IoU" if name == "iou" else name
            for k in ks:
                rows.append(
                    (
                        f"token {label}@{k}",
                        [
                            f"{getattr(run.tokens[k], name):.3f}" if run.tokens else "–"
                            for run in runs
                        ],
                    )
                )
    return rows
