"""The vocabulary of specbrowser: the closed sets of words that chunks, statistics, searches,
filters, ingests and exports are described with.

Each word set is a ``Literal`` type (for annotations: mypy checks every value written) and a
tuple of its values in their documented order (for ``argparse`` choices, validation and
loops), derived from the type so the two never drift apart. The explanation texts every front
end shows for overrun reasons and mismatch kinds live here too, beside the words they explain.

Part of the pure core: imports nothing but ``typing``, so any module can use it.
"""

from __future__ import annotations

from typing import Literal, get_args

Layer = Literal["document", "section", "subsection", "table_row"]
"""What a chunk is (:attr:`specbrowser.model.Chunk.layer`): the one synopsis chunk of a chunk
set, a section's root chunk, a subsection a breakdown tag extracted, or a row group of a table."""
LAYERS: tuple[Layer, ...] = get_args(Layer)
"""The values of :data:`Layer`, in that order."""

OverrunReason = Literal["max_depth", "unsplittable", "markers"]
"""Why a chunk stayed over the threshold (:attr:`specbrowser.model.Chunk.over_threshold`):
it is at the policy's max depth; no breakdown tag left could bring it under the threshold; or
no tag could, and its own text (markers left out) fits: its markers put it over (a section
that is a heading and dozens of child-section markers)."""
OVERRUN_REASONS: tuple[OverrunReason, ...] = get_args(OverrunReason)
"""The values of :data:`OverrunReason`, in that order."""

OVERRUN_EXPLANATIONS: dict[OverrunReason, str] = {
    "max_depth": "at the policy's max depth, so not broken down further",
    "unsplittable": "the breakdown tags left cannot bring it under the threshold",
    "markers": "over only because of its markers: its own text fits the threshold",
}
"""One line explaining each :data:`OverrunReason`, for a reader who sees only the word."""

BreakdownStrategy = Literal["guarded", "seed"]
"""How the breakdown extracts the elements of a tag
(:attr:`specbrowser.chunking.policy.ChunkPolicy.strategy`): ``guarded`` with the guard rails (no
growth, packing, rule units, minimum size; :mod:`specbrowser.chunking.guards`), ``seed`` every
outermost element of a tag with text on its own (no packing, minimum or growth check)."""
BREAKDOWN_STRATEGIES: tuple[BreakdownStrategy, ...] = get_args(BreakdownStrategy)
"""The values of :data:`BreakdownStrategy`; the first is the default."""

SizeUnit = Literal["chars", "tokens"]
"""What a chunk policy's threshold counts: ``chars`` (characters of the chunk's Markdown,
markers included) or ``tokens`` (tokens of the chunk's retrieval text, by the default embedding
model's tokenizer, special tokens included: what the model's window counts)."""

SIZE_UNITS: tuple[SizeUnit, ...] = get_args(SizeUnit)
"""The values of :data:`SizeUnit`; the first is the default."""

EditMode = Literal["current", "marked"]
"""How the Markdown converter renders a proposal's ``<del>``/``<ins>`` edits
(:attr:`specbrowser.chunking.markdown_config.MarkdownConfig.edits`): ``current`` the text as it
reads after the proposal (deleted text and fully deleted list items dropped, inserted text
kept), ``marked`` both, deleted text as ``~~deleted~~`` and inserted text as ``++inserted++``."""
EDIT_MODES: tuple[EditMode, ...] = get_args(EditMode)
"""The values of :data:`EditMode`; the first is the default."""

MismatchKind = Literal[
    "missing_from_toc",
    "title_differs",
    "depth_differs",
    "ancestor_differs",
    "toc_entry_without_section",
]
"""How a section's parser heading path and its table-of-contents path disagree
(:attr:`specbrowser.chunking.toc_paths.Mismatch.kind`, :attr:`specbrowser.model.Chunk.mismatch`).
The last kind belongs to a TOC entry, never to a section or chunk."""
MISMATCH_KINDS: tuple[MismatchKind, ...] = get_args(MismatchKind)
"""The values of :data:`MismatchKind`, in the order a section is tested for them (first wins:
see :func:`specbrowser.chunking.toc_paths.classify_mismatches`)."""

MISMATCH_EXPLANATIONS: dict[MismatchKind, str] = {
    "missing_from_toc": "no TOC entry links to this section",
    "title_differs": "its TOC entry has another title",
    "depth_differs": "the TOC nests it at another depth",
    "ancestor_differs": "the TOC puts it under another heading",
    "toc_entry_without_section": "a TOC entry links to no section",
}
"""One line explaining each :data:`MismatchKind`, for a reader who sees only the word."""

SearchMode = Literal["lexical", "semantic", "hybrid"]
"""How a search ranks chunks: FTS5 BM25, embedding distance, or reciprocal rank fusion of the
two (see :mod:`specbrowser.search.query`)."""
SEARCH_MODES: tuple[SearchMode, ...] = get_args(SearchMode)
"""The values of :data:`SearchMode`; the first is the default of every front end."""

FilterKind = Literal["mismatched", "over_threshold", "tiny", "marker_heavy"]
"""A tree filter (:func:`specbrowser.session.filters.filtered_tree`): sections whose heading
paths disagree with the TOC, chunks that stayed over the threshold, tiny chunks (made by the
breakdown, little text of their own) or chunks that are mostly markers."""
FILTER_KINDS: tuple[FilterKind, ...] = get_args(FilterKind)
"""The values of :data:`FilterKind`, in that order."""

IngestOutcome = Literal[
    "created", "added", "replaced_set", "replaced_spec", "added_spec", "unchanged"
]
"""What an ingest did to the database (:meth:`specbrowser.store.sets.ChunkSets.begin_ingest`):
created it, added a chunk set beside the others, replaced the spec's chunks in the set of the
same policy version, replaced the spec itself (the same spec with new bytes: only its rows),
added another spec to the corpus, or nothing (the same bytes are stored under the policy:
:func:`specbrowser.session.corpus.set_holding`)."""
INGEST_OUTCOMES: tuple[IngestOutcome, ...] = get_args(IngestOutcome)
"""The values of :data:`IngestOutcome`, in that order."""

ExportFormat = Literal["jsonl", "parquet"]
"""A file format :func:`specbrowser.session.export.export_chunk_set` writes."""
EXPORT_FORMATS: tuple[ExportFormat, ...] = get_args(ExportFormat)
"""The values of :data:`ExportFormat`; the first is the default."""

ContentKind = Literal["retrieval", "text"]
"""What an exported record's ``page_content`` holds: the retrieval text (header and Markdown,
as search and embeddings index it) or the chunk's bare Markdown."""
CONTENT_KINDS: tuple[ContentKind, ...] = get_args(ContentKind)
"""The values of :data:`ContentKind`; the first is the default."""

JobKind = Literal["ingest", "rechunk", "tokens", "embed"]
"""A long operation every front end runs the same way (:mod:`specbrowser.session.jobs`); the app
also uses it as the job's worker group."""
JOB_KINDS: tuple[JobKind, ...] = get_args(JobKind)
"""The values of :data:`JobKind`, in that order."""

SymbolKind = Literal["aoid", "production", "dfn", "title", "stub", "id", "oldid"]
"""What made a symbol (:mod:`specbrowser.formats.symbols`), in the order a name's definitions
rank: an abstract operation's clause before a production, a defined term (``%TypedArray%`` is
defined by a ``dfn`` in its intrinsic object's section, and titles the constructor's), a title,
the title of a stub that only points elsewhere (``Array ( . . . )``: "See 23.1.1"), an element
id."""
SYMBOL_KINDS: tuple[SymbolKind, ...] = get_args(SymbolKind)
"""The values of :data:`SymbolKind`, best-ranked first."""
