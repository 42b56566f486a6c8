"""The policy advisor: try chunking policies on the stored spec, score each, recommend one.

**Candidates** (:func:`candidate_grid`) vary one setting at a time around the spec format's
default policy (the *default*), plus the active set, then one *combined* candidate that takes
each setting's best value from the first round:

- thresholds in characters: the round values of :data:`THRESHOLD_LADDER` between the median
  and 3 × the 90th percentile of the spec's section sizes (each section's characters in the
  active set), the nearest to the default first; in tokens: twice the embedding model's window;
- breakdown tags: the default's, then the default's plus table rows (``tr``), algorithms or
  notes, each only when the spec has such elements;
- the seed strategy at the default threshold; max depth 2 and 4; no breakdown (max depth 0).

Options replace a setting's values (:class:`GridOptions`); at most ``budget`` candidates are
scored, in the order above, the combined one included. A candidate whose chunks are the same
as an earlier one's (same :meth:`~specbrowser.store.advice.AdvisorSets.fingerprint`) is scored
once and listed with ``same_as``.

**Scores** of each candidate, over every query set and search mode:

- retrieval: hit@1/5/10 and MRR@10 (:mod:`specbrowser.session.evaluate`) per run, and
  ``retrieval`` = the mean over runs of (hit@5 + MRR) / 2 (0–1);
- cost: chunks, total tokens of the retrieval texts, ``read_tokens`` = the mean tokens of the
  first 5 hits of a query (what a reader or an agent gets), and ``tokens_per_hit`` =
  read_tokens / mean hit@5 (tokens read per query answered in the first 5);
- quality: tiny, mostly-marker and grown chunks and overruns by reason (the set's stats), and
  chunks over the model's window.

**Ranking**: :func:`score` = retrieval − :data:`TOKEN_COST` × log2(tokens_per_hit /
:data:`TOKEN_REFERENCE`) − :data:`TINY_COST` × (tiny chunks / chunks): a doubling of what a
reader must read per answer costs 0.05 of retrieval, and a chunk too small to be worth
retrieving costs half its share. Candidates whose mean hit@5 and MRR are both at least the
active set's rank first, then the others, each group by score (ties: the Pareto front first):
retrieval is never traded for tokens. Rank 1 is the *recommendation* (the active set itself
when nothing beats it). The candidates on the Pareto front of retrieval (higher) against
tokens per hit (lower), which no other candidate beats on both, are marked, so a user who
weighs tokens otherwise sees the trade-offs.

Token counts use the default model's tokenizer; without it, tokens are estimated as characters
÷ :data:`CHARS_PER_TOKEN` and the report says so.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from specbrowser.chunking.policy import ChunkPolicy
from specbrowser.chunking.stats import ChunkSetStats
from specbrowser.errors import PolicyError
from specbrowser.formats import policy_for
from specbrowser.session.evaluate import QueryScore, RunScores, evaluate, mode_unavailable
from specbrowser.session.query_file import EvalQuery
from specbrowser.session.rechunk import rechunk
from specbrowser.types import SearchMode

if TYPE_CHECKING:
    from specbrowser.search.embed import Embedder
    from specbrowser.search.tokens import TokenCounter
    from specbrowser.session.core import Session

DEFAULT_BUDGET = 16
"""Candidates scored by default, the active set and the combined candidate included."""

THRESHOLD_LADDER: tuple[int, ...] = (500, 1000, 1500, 2000, 3000, 4000, 5000, 8000, 12000, 20000)
"""Round thresholds in characters the grid picks from."""

THRESHOLD_CHOICES = 4
"""Thresholds in characters the grid tries besides the default's."""

TOKEN_COST = 0.05
"""Score lost per doubling of tokens per hit."""

TOKEN_REFERENCE = 1000
"""Tokens per hit at which the token cost is 0."""

TINY_COST = 0.5
"""Score lost per unit share of tiny chunks."""

CHARS_PER_TOKEN = 4
"""Characters per token when no tokenizer is installed (an English-text rule of thumb)."""

READ_HITS = 5
"""Hits a reader gets per query, for the cost figures."""

KS: tuple[int, ...] = (1, 5, 10)
"""Cut-offs scored."""

EXTRA_TAGS: tuple[tuple[str, str, str], ...] = (
    ("tr", "<tr", "table rows"),
    ("emu-alg", "<emu-alg", "algorithms"),
    ("emu-note", "<emu-note", "notes"),
    ("div.note", 'class="note', "notes"),
)
"""Breakdown tags a variant adds to the default's: ``(tag, what the stored HTML must contain
for the variant to be tried, what it breaks out)``."""


@dataclass(frozen=True)
class QuerySet:
    """Queries one candidate is scored on: ``name`` (a file path or
    :data:`~specbrowser.session.auto_queries.AUTOMATIC_SOURCE`) and the queries."""

    name: str
    queries: tuple[EvalQuery, ...]


@dataclass(frozen=True)
class Candidate:
    """A policy to try, and ``label``: how it differs from the default (``default``,
    ``active``, ``threshold 2000``, ``+ tr``, ``seed``, ``max depth 2``, ``no breakdown``,
    ``combined: …``); ``factor`` names the setting varied (``""`` for the default and the
    active set)."""

    policy: ChunkPolicy
    label: str
    factor: str = ""


@dataclass(frozen=True)
class GridOptions:
    """What replaces parts of the default grid (None: the advisor's own values).

    Attributes:
        thresholds: thresholds to try, in ``unit``.
        unit: the thresholds' unit (``chars`` or ``tokens``).
        tag_orders: breakdown tag orders to try, each a tuple of tags.
        strategies: breakdown strategies to try.
        max_depths: max depths to try.
        budget: most candidates scored (>= 1).
    """

    thresholds: tuple[int, ...] | None = None
    unit: str = "chars"
    tag_orders: tuple[tuple[str, ...], ...] | None = None
    strategies: tuple[str, ...] | None = None
    max_depths: tuple[int, ...] | None = None
    budget: int = DEFAULT_BUDGET


@dataclass
class CandidateResult:
    """One scored candidate (figures defined in the module's docstring).

    Attributes:
        candidate: what was tried.
        version: its chunk set's full policy version.
        made: True when the advisor stored the set (False: it was stored before).
        same_as: the label of an earlier candidate with the same chunks, or None.
        runs: one :class:`RunScores` per (query set, mode), query sets in the order given.
        stats: the set's stats (sizes in characters).
        tokens: total tokens of the set's retrieval texts.
        over_window: chunks over the model's window (0 without a tokenizer).
        read_tokens: mean tokens of a query's first :data:`READ_HITS` hits.
        seconds: re-chunk plus scoring time.
        fingerprint: the set's chunk fingerprint (``store.advice.fingerprint``).
        rank: 1-based place in the ranking (1 is best).
        pareto: on the Pareto front of retrieval against tokens per hit.
        by_spec: in a corpus, spec name → its ``queries`` (answered in it, over every run),
            ``hit@5`` and ``mrr`` (means over those queries); {} for one spec.
    """

    candidate: Candidate
    version: str
    made: bool
    same_as: str | None
    runs: list[RunScores]
    stats: ChunkSetStats
    tokens: int
    over_window: int
    read_tokens: float
    seconds: float
    fingerprint: str = ""
    rank: int = 0
    pareto: bool = False
    by_spec: dict[str, dict[str, float]] = field(default_factory=dict)

    def mean(self, figure: Callable[[RunScores], float]) -> float:
        """``figure`` averaged over the runs (0.0 without runs)."""
        return sum(figure(run) for run in self.runs) / len(self.runs) if self.runs else 0.0

    @property
    def hit5(self) -> float:
        return self.mean(lambda run: run.hit[5])

    @property
    def mrr(self) -> float:
        return self.mean(lambda run: run.mrr)

    @property
    def retrieval(self) -> float:
        return (self.hit5 + self.mrr) / 2

    @property
    def tokens_per_hit(self) -> float:
        return self.read_tokens / max(self.hit5, 1e-3)

    @property
    def tiny_share(self) -> float:
        return (self.stats.tiny_chunks or 0) / max(1, self.stats.chunks)

    @property
    def score(self) -> float:
        return score(self.retrieval, self.tokens_per_hit, self.tiny_share)


def score(retrieval: float, tokens_per_hit: float, tiny_share: float) -> float:
    """The advisor's one score (module docstring): higher is better."""
    cost = TOKEN_COST * math.log2(max(tokens_per_hit, 1.0) / TOKEN_REFERENCE)
    return retrieval - cost - TINY_COST * tiny_share


@dataclass
class Advice:
    """What :func:`advise` found.

    Attributes:
        results: every scored candidate, in rank order.
        recommended: the recommendation (see the module's docstring).
        active: the active set's result.
        why: one line on why the recommendation beats the active set, or that it is best.
        query_sets: the query sets scored on.
        modes: the search modes scored.
        estimated_tokens: token counts are characters ÷ :data:`CHARS_PER_TOKEN`.
        interrupted: Ctrl-C stopped the run; ``results`` are the candidates finished.
    """

    results: list[CandidateResult]
    recommended: CandidateResult
    active: CandidateResult
    why: str
    query_sets: list[QuerySet]
    modes: tuple[SearchMode, ...]
    estimated_tokens: bool = False
    interrupted: bool = False
    skipped_modes: dict[str, str] = field(default_factory=dict)

    def mark(self, result: CandidateResult) -> str:
        """A result's marks in the front ends' tables: ``★`` the recommendation, ``◆`` on the
        Pareto front, both for a recommendation on the front (the active set of the highest
        retrieval is), "" for neither."""
        return ("★" if result is self.recommended else "") + ("◆" if result.pareto else "")


Report = Callable[[str], None]
"""Receives one progress line per candidate (for stderr)."""


# --- the grid ------------------------------------------------------------------------------------


def candidate_grid(
    session: Session, options: GridOptions, window: int | None
) -> tuple[list[Candidate], ChunkPolicy]:
    """The first round's candidates (module docstring), at most ``options.budget`` - 1 (one
    place is kept for the combined candidate), and the default policy. ``window`` is the
    embedding model's window in tokens (None: unknown, no token threshold is tried).

    Raises:
        PolicyError: an option's value makes no valid policy.
    """
    kind = session.document().kind
    active, _stats = session.active_policy()
    default = policy_for(kind)
    candidates = [Candidate(active, "active")]
    if default.version != active.version:
        candidates.append(Candidate(default, "default"))

    def add(policy: ChunkPolicy, label: str, factor: str) -> None:
        if all(policy.version != c.policy.version for c in candidates):
            candidates.append(Candidate(policy, label, factor))

    if options.thresholds is not None:
        for value in options.thresholds:
            unit = options.unit
            add(
                replace(default, threshold=value, unit=unit),  # type: ignore[arg-type]
                f"threshold {value}" + (" tokens" if unit == "tokens" else ""),
                "threshold",
            )
    else:
        for value in _threshold_choices(session, default.threshold):
            add(replace(default, threshold=value), f"threshold {value}", "threshold")
        if window:
            add(
                replace(default, threshold=2 * window, unit="tokens"),
                f"threshold {2 * window} tokens",
                "threshold",
            )
    for tags in options.tag_orders or _tag_variants(session, default):
        added = [t for t in tags if t not in default.breakdown_tags]
        label = (
            "+ " + ", ".join(added)
            if added and set(default.breakdown_tags) <= set(tags)
            else ("tags " + ",".join(tags))
        )
        add(replace(default, breakdown_tags=tuple(tags)), label, "tags")
    for strategy in options.strategies or ("seed",):
        if strategy != default.strategy:
            add(
                ChunkPolicy(
                    threshold=default.threshold,
                    max_depth=default.max_depth,
                    markdown=default.markdown,
                    strategy=strategy,  # type: ignore[arg-type]
                    breakdown_tags=policy_for(kind, strategy=strategy).breakdown_tags,  # type: ignore[arg-type]
                ),
                strategy,
                "strategy",
            )
    for depth in options.max_depths or (2, 4, 0):
        if depth != default.max_depth:
            add(
                replace(default, max_depth=depth),
                "no breakdown" if depth == 0 else f"max depth {depth}",
                "max_depth",
            )
    return candidates[: max(1, options.budget - 1)], default


def _threshold_choices(session: Session, default: int) -> list[int]:
    """:data:`THRESHOLD_CHOICES` ladder values within the section-size band, nearest the
    default (in ratio) first, ascending."""
    sizes = sorted(session.store.advice.section_sizes(session.active_version()))
    if not sizes:
        return []
    low, high = sizes[len(sizes) // 2], 3 * sizes[min(len(sizes) - 1, len(sizes) * 9 // 10)]
    band = [v for v in THRESHOLD_LADDER if low <= v <= high and v != default]
    band.sort(key=lambda v: abs(math.log(v / default)))
    return sorted(band[:THRESHOLD_CHOICES])


def _tag_variants(session: Session, default: ChunkPolicy) -> list[tuple[str, ...]]:
    """The default's tags plus one more kind of element the spec has (:data:`EXTRA_TAGS`)."""
    variants: list[tuple[str, ...]] = []
    seen_what: set[str] = set()
    for tag, needle, what in EXTRA_TAGS:
        if tag in default.breakdown_tags or what in seen_what:
            continue
        if not session.store.sections.html_contains(needle):
            continue
        seen_what.add(what)
        tags = list(default.breakdown_tags)
        at = tags.index("td") + 1 if tag == "tr" and "td" in tags else len(tags)
        variants.append((*tags[:at], tag, *tags[at:]))
    return variants


def combined(results: Sequence[CandidateResult], default: ChunkPolicy) -> Candidate | None:
    """The default with each varied setting at its best-scoring value, or None when that is
    the default or a single-setting candidate already tried."""
    best: dict[str, CandidateResult] = {}
    base = next((r for r in results if r.candidate.policy.version == default.version), None)
    for result in results:
        factor = result.candidate.factor
        if factor and (factor not in best or result.score > best[factor].score):
            best[factor] = result
    winners = [r for r in best.values() if base is None or r.score > base.score]
    if len(winners) < 2:
        return None
    policy = default
    for result in winners:
        chosen = result.candidate.policy
        if result.candidate.factor == "threshold":
            policy = replace(policy, threshold=chosen.threshold, unit=chosen.unit)
        elif result.candidate.factor == "tags":
            policy = replace(policy, breakdown_tags=chosen.breakdown_tags)
        elif result.candidate.factor == "max_depth":
            policy = replace(policy, max_depth=chosen.max_depth)
        elif result.candidate.factor == "strategy":
            policy = replace(policy, strategy=chosen.strategy, breakdown_tags=chosen.breakdown_tags)
    if any(policy.version == r.candidate.policy.version for r in results):
        return None
    label = "combined: " + " · ".join(r.candidate.label for r in winners)
    return Candidate(policy, label, "combined")


# --- running it ----------------------------------------------------------------------------------


def advise(
    session: Session,
    query_sets: Sequence[QuerySet],
    *,
    options: GridOptions = GridOptions(),
    modes: Sequence[SearchMode] = ("lexical",),
    report: Report | None = None,
    counter: TokenCounter | None = None,
    embedder: Embedder | None = None,
    candidates: Sequence[Candidate] | None = None,
    stop: Callable[[], bool] | None = None,
) -> Advice:
    """Try the grid's candidates on the stored spec and rank them (module docstring).

    Each candidate's set is stored (not made active) and listed as the advisor's
    (``store.advice``), unless a set of its policy was stored before. ``counter`` counts
    tokens (None: estimated from characters). With ``embedder`` and a semantic or hybrid mode,
    each candidate's texts without a vector are embedded before it is scored (``report`` says
    how many first; the cache is by retrieval text, so texts other sets share are embedded
    once). ``candidates`` replace the grid's first round (the first must be the active set,
    labelled ``active``). Ctrl-C, or ``stop()`` returning True before a candidate, ends the
    run with the candidates finished so far (``Advice.interrupted``); their sets stay stored.
    A mode no candidate can run is left out (``Advice.skipped_modes``).

    Raises:
        PolicyError: no query, an option that makes no valid policy, a budget under 1.
        QueryFileError: an expected id the spec does not have.
    """
    if options.budget < 1:
        raise PolicyError(f"the budget must be at least 1 candidate, got {options.budget}")
    if not any(qs.queries for qs in query_sets):
        raise PolicyError("no queries to score the candidates on")
    window = counter.max_tokens if counter is not None else None
    first_round, default = candidate_grid(session, options, window)
    if candidates is not None:
        first_round = list(candidates)
    results: list[CandidateResult] = []
    skipped: dict[str, str] = {}
    interrupted = False
    try:
        for at, candidate in enumerate(first_round, start=1):
            if stop is not None and stop() and results:
                raise KeyboardInterrupt
            results.append(
                _try(
                    session,
                    candidate,
                    query_sets,
                    modes,
                    counter,
                    results,
                    skipped,
                    embedder,
                    report,
                )
            )
            _report(report, at, len(first_round), results[-1])
        extra = combined(results, default) if len(results) < options.budget else None
        if extra is not None and stop is not None and stop():
            raise KeyboardInterrupt
        if extra is not None:
            results.append(
                _try(session, extra, query_sets, modes, counter, results, skipped, embedder, report)
            )
            _report(report, len(results), len(results), results[-1])
    except KeyboardInterrupt:
        interrupted = True
        if not results:
            raise
    active = next(r for r in results if r.candidate.label == "active")
    ranked = rank(results, active)
    recommended, why = recommend(ranked, active)
    return Advice(
        results=ranked,
        recommended=recommended,
        active=active,
        why=why,
        query_sets=list(query_sets),
        modes=tuple(m for m in modes if m not in skipped),
        estimated_tokens=counter is None,
        interrupted=interrupted,
        skipped_modes=skipped,
    )


def _report(report: Report | None, at: int, total: int, result: CandidateResult) -> None:
    if report is None:
        return
    same = f" (same chunks as {result.same_as})" if result.same_as else ""
    report(
        f"[{at}/{total}] {result.candidate.label}: {result.stats.chunks:,} chunks, "
        f"retrieval {result.retrieval:.3f}, {result.tokens_per_hit:,.0f} tokens per hit, "
        f"{result.seconds:.1f} s{same}"
    )


def _try(
    session: Session,
    candidate: Candidate,
    query_sets: Sequence[QuerySet],
    modes: Sequence[SearchMode],
    counter: TokenCounter | None,
    earlier: Sequence[CandidateResult],
    skipped: dict[str, str],
    embedder: Embedder | None = None,
    report: Report | None = None,
) -> CandidateResult:
    """Re-chunk (or find) the candidate's set, embed what it needs, and score it."""
    start = time.perf_counter()
    store = session.store
    version = candidate.policy.version
    made = not store.sets.has(version)
    if made:  # listed first, so Ctrl-C after the re-chunk's commit still leaves it listed
        with store.transaction("the advisor's list of chunk sets"):
            store.advice.mark(version)
    result = rechunk(store, candidate.policy, activate=False)
    fingerprint = store.advice.fingerprint(version)
    twin = next((r for r in earlier if r.fingerprint == fingerprint), None)
    if twin is not None:
        return replace(
            twin,
            candidate=candidate,
            version=version,
            made=made,
            same_as=twin.candidate.label,
            seconds=time.perf_counter() - start,
            rank=0,
            pareto=False,
        )
    tokens = _token_counts(session, version, counter)
    if embedder is not None and any(mode != "lexical" for mode in modes):
        _embed(session, embedder, version, report)
    runs: list[RunScores] = []
    per_spec: dict[str, list[QueryScore]] = {}
    for query_set in query_sets:
        if not query_set.queries:
            continue
        for mode in modes:
            reason = mode_unavailable(session, version, mode)
            if reason is not None:
                skipped.setdefault(mode, reason)
                continue
            evaluation = evaluate(
                session,
                query_set.name,
                versions=[version],
                modes=[mode],
                ks=KS,
                queries=query_set.queries,
            )
            runs.extend(evaluation.runs)
            for run in evaluation.runs:
                for spec, part in evaluation.by_spec(run).items():
                    per_spec.setdefault(spec, []).extend(part.queries)
    reads = [
        sum(tokens.get(chunk_id, 0) for chunk_id in query.ranked[:READ_HITS])
        for run in runs
        for query in run.queries
    ]
    window = counter.max_tokens if counter is not None else None
    return CandidateResult(
        candidate=candidate,
        version=version,
        made=made,
        same_as=None,
        runs=runs,
        stats=result.stats,
        tokens=sum(tokens.values()),
        over_window=sum(1 for n in tokens.values() if window and n > window),
        read_tokens=sum(reads) / len(reads) if reads else 0.0,
        by_spec={spec: _spec_figures(scores) for spec, scores in per_spec.items()},
        seconds=time.perf_counter() - start,
        fingerprint=fingerprint,
    )


EMBED_RATE = 4.0
"""Texts embedded per second on 2 cores (BENCHMARKS.md), for the estimate said beforehand."""


def _embed(session: Session, embedder: Embedder, version: str, report: Report | None) -> None:
    """Embed the set's texts that have no vector of ``embedder``'s model, saying beforehand
    how many and about how long."""
    from specbrowser.search.embed import embed_missing  # deferred: the embedding stack

    store = session.store
    store.vectors.prepare(embedder.name, embedder.dim, recipe=embedder.recipe)
    missing = len(store.vectors.missing_texts(embedder.name, version))
    if missing and report is not None:
        report(
            f"  embedding {missing:,} texts without a vector "
            f"(about {missing / EMBED_RATE / 60:.1f} min)"
        )
    if missing:
        embed_missing(store, embedder, version)


def _token_counts(session: Session, version: str, counter: TokenCounter | None) -> dict[str, int]:
    """Chunk id → tokens of its retrieval text (counted and stored when missing), or
    characters ÷ :data:`CHARS_PER_TOKEN` without a tokenizer."""
    store = session.store
    if counter is None:
        return {
            chunk_id: max(1, len(text) // CHARS_PER_TOKEN)
            for chunk_id, _parent, text in store.chunk_texts(version)
        }
    from specbrowser.search.tokens import count_missing_tokens, token_info  # deferred: 5 ms

    count_missing_tokens(store, counter, version)
    info = token_info(store, version, counter.model)
    return info.counts if info is not None else {}


def keeps_retrieval(result: CandidateResult, active: CandidateResult) -> bool:
    """Whether ``result``'s mean hit@5 and MRR are both at least ``active``'s."""
    return result.hit5 >= active.hit5 and result.mrr >= active.mrr


def rank(results: Sequence[CandidateResult], active: CandidateResult) -> list[CandidateResult]:
    """``results`` ranked (module docstring): first the candidates that keep the ``active``
    set's retrieval (:func:`keeps_retrieval`), then the others, each group by score, with
    ``rank`` and ``pareto`` set; a candidate with the same chunks as another ranks right after
    it."""
    unique = [r for r in results if r.same_as is None]
    for result in unique:
        result.pareto = not any(
            other.retrieval >= result.retrieval
            and other.tokens_per_hit <= result.tokens_per_hit
            and (other.retrieval > result.retrieval or other.tokens_per_hit < result.tokens_per_hit)
            for other in unique
        )
    ordered = sorted(
        unique,
        key=lambda r: (not keeps_retrieval(r, active), -r.score, not r.pareto, r.candidate.label),
    )
    ranked: list[CandidateResult] = []
    for result in ordered:
        ranked.append(result)
        ranked.extend(r for r in results if r.same_as == result.candidate.label)
    for place, result in enumerate(ranked, start=1):
        result.rank = place
        if result.same_as is not None:
            result.pareto = False
    return ranked


def recommend(
    ranked: Sequence[CandidateResult], active: CandidateResult
) -> tuple[CandidateResult, str]:
    """The recommendation, rank 1 of :func:`rank`'s list, and one line saying why."""
    best = ranked[0] if ranked else active
    if best.version == active.version or best.same_as == active.candidate.label:
        return active, (
            "the active set is already best: no candidate scores higher without losing hit@5 or MRR"
        )
    read = (1 - best.tokens_per_hit / active.tokens_per_hit) * 100
    cost = f"{abs(read):.0f}% {'fewer' if read >= 0 else 'more'} tokens per hit"
    return best, (
        f"{best.candidate.label} scores {best.score:.3f} against the active set's "
        f"{active.score:.3f}: hit@5 {best.hit5:.3f} (active {active.hit5:.3f}), MRR "
        f"{best.mrr:.3f} (active {active.mrr:.3f}), {cost}"
    )


def remove_advised(session: Session, keep: Sequence[str] = ()) -> list[str]:
    """Delete the chunk sets the advisor made, except the active one and ``keep`` (full
    versions), which stop being listed as the advisor's; returns the versions deleted."""
    store = session.store
    active = session.active_version()
    spared = {active, *keep}
    doomed = [v for v in store.advice.versions() if v not in spared]
    if doomed:
        store.sets.delete(doomed)
    with store.transaction("the advisor's list of chunk sets"):
        store.advice.unmark([v for v in store.advice.versions() if v in spared])
    return doomed


def held_out_scores(
    session: Session, advice: Advice, test_sets: Sequence[QuerySet]
) -> dict[str, dict[str, float]]:
    """The recommendation's and the active set's figures on queries not used to choose
    (``--split``'s test half): ``{label: {"version", "hit@5", "mrr", "score"}}`` keyed by
    ``recommended`` and ``active`` (one key when they are the same set)."""
    figures: dict[str, dict[str, float]] = {}
    for label, result in (("recommended", advice.recommended), ("active", advice.active)):
        if label == "active" and result is advice.recommended:
            break
        runs: list[RunScores] = []
        for query_set in test_sets:
            for mode in advice.modes:
                runs.extend(
                    evaluate(
                        session,
                        query_set.name,
                        versions=[result.version],
                        modes=[mode],
                        ks=KS,
                        queries=query_set.queries,
                    ).runs
                )
        held = replace(result, runs=runs)
        figures[label] = {
            "hit@5": round(held.hit5, 4),
            "mrr": round(held.mrr, 4),
            "score": round(held.score, 4),
        }
    return figures


def _spec_figures(scores: list[QueryScore]) -> dict[str, float]:
    """``queries``, ``hit@5`` and ``mrr`` (cut at the largest k) over one spec's queries."""
    count = len(scores) or 1
    return {
        "queries": len(scores),
        "hit@5": sum(s.rank is not None and s.rank <= 5 for s in scores) / count,
        "mrr": sum(1 / s.rank for s in scores if s.rank is not None) / count,
    }


def advice_json(advice: Advice) -> dict[str, object]:
    """Every figure of ``advice`` as one JSON-ready object: ``candidates`` (rank order, each
    with ``version``, ``label``, ``settings`` as ``policies`` stores them, ``scores``,
    ``quality``, ``cost``, ``score``, ``rank``, ``pareto``, ``same_as``), ``recommended`` (a
    version), ``why``, ``queries`` (per query set: how many and where from) and ``modes``."""

    def r(value: float) -> float:
        return round(value, 4)

    def candidate(result: CandidateResult) -> dict[str, object]:
        stats = result.stats
        return {
            "version": result.version,
            "label": result.candidate.label,
            "settings": result.candidate.policy.settings(),
            "rank": result.rank,
            "pareto": result.pareto,
            "keeps_retrieval": keeps_retrieval(result, advice.active),
            "same_as": result.same_as,
            "made_by_advisor": result.made,
            "score": r(result.score),
            "scores": {
                "retrieval": r(result.retrieval),
                "hit@5": r(result.hit5),
                "mrr": r(result.mrr),
                "by_spec": {
                    spec: {key: r(value) for key, value in figures.items()}
                    for spec, figures in result.by_spec.items()
                },
                "runs": [
                    {
                        "queries": query_set.name,
                        "mode": run.mode,
                        "hit": {str(k): r(v) for k, v in run.hit.items()},
                        "recall": {str(k): r(v) for k, v in run.recall.items()},
                        "mrr": r(run.mrr),
                        "tokens": {
                            str(k): {
                                "recall": r(t.recall),
                                "precision": r(t.precision),
                                "iou": r(t.iou),
                            }
                            for k, t in run.tokens.items()
                        },
                    }
                    for query_set, run in _runs_with_sets(advice, result)
                ],
            },
            "quality": {
                "tiny": stats.tiny_chunks,
                "mostly_markers": stats.mostly_marker_chunks,
                "grown": stats.grown_chunks,
                "over_threshold": dict(stats.over_threshold),
                "over_window": result.over_window,
            },
            "cost": {
                "chunks": stats.chunks,
                "tokens": result.tokens,
                "read_tokens": r(result.read_tokens),
                "tokens_per_hit": r(result.tokens_per_hit),
                "estimated_tokens": advice.estimated_tokens,
            },
            "seconds": r(result.seconds),
        }

    return {
        "candidates": [candidate(result) for result in advice.results],
        "recommended": advice.recommended.version,
        "active": advice.active.version,
        "why": advice.why,
        "queries": {
            qs.name: {"count": len(qs.queries), "excerpts": sum(1 for q in qs.queries if q.excerpt)}
            for qs in advice.query_sets
        },
        "modes": list(advice.modes),
        "skipped_modes": advice.skipped_modes,
        "interrupted": advice.interrupted,
    }


def _runs_with_sets(advice: Advice, result: CandidateResult) -> list[tuple[QuerySet, RunScores]]:
    """Each run of ``result`` with the query set it ran on (runs are in query-set order, one
    per scored mode)."""
    modes = max(1, len(advice.modes))
    sets = [qs for qs in advice.query_sets if qs.queries]
    return [(sets[min(i // modes, len(sets) - 1)], run) for i, run in enumerate(result.runs)]
