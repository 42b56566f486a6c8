"""Token counts of every chunk, with the embedding model's own tokenizer.

The threshold counts characters; the embedding model counts tokens and silently cuts a text
longer than its window (512 tokens for all-MiniLM-L6-v2). So every chunk's retrieval text gets
its token count, and a chunk over the window is flagged *before* anything is embedded.

Counting uses the model's ``tokenizer.json`` through the ``tokenizers`` library (no fastembed,
no ONNX): the default model's file comes from an installed package
(:func:`specbrowser.search.model_files.tokenizer_folder`), the window from its
``tokenizer_config.json`` (``model_max_length``, the value fastembed truncates at).
Counting a large spec's texts takes seconds, too slow to run inside every ingest, so it runs
after one: ``specbrowser embed`` counts first, and the app counts in a
background worker when it opens a chunk set that has no counts.

The counts are stored per model and retrieval text (:mod:`specbrowser.store.tokens`), so a
re-chunk counts only new texts; reading them never hashes nor writes.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from specbrowser.chunking.measure import SECTION_SUMMARY_TOKENS, TokenMeasure
from specbrowser.chunking.policy import ChunkPolicy
from specbrowser.errors import EmbeddingError
from specbrowser.progress import Progress
from specbrowser.search.model_files import DEFAULT_MODEL, TOKENIZER_HINT, tokenizer_folder
from specbrowser.store import SpecStore

COUNT_BATCH = 256
"""Texts per ``encode_batch`` call and per committed batch."""


@dataclass
class TokenCounter:
    """A model's tokenizer, counting tokens without truncation.

    Attributes:
        model: the model name the counts are stored under.
        max_tokens: the model's window in tokens (texts above it are cut when embedded), or None.
    """

    model: str
    max_tokens: int | None
    _tokenizer: Any = field(repr=False)

    def count(self, texts: Sequence[str]) -> list[int]:
        """Token counts (special tokens included) of ``texts``, in order."""
        if not texts:
            return []
        return [len(encoding.ids) for encoding in self._tokenizer.encode_batch(list(texts))]

    def count_one(self, text: str) -> int:
        """The token count (special tokens included) of one text."""
        return len(self._tokenizer.encode(text).ids)

    def measure(self, document_title: str) -> TokenMeasure:
        """What the chunking needs for a threshold in tokens of this model, for a document of
        that title (its retrieval texts' ``Document:`` line). Counts are cached per text: the
        breakdown measures an element again after each tag pass that leaves it."""
        return TokenMeasure(lru_cache(maxsize=8192)(self.count_one), document_title)


def load_token_counter(folder: Path, model: str) -> TokenCounter:
    """A counter from a model folder holding ``tokenizer.json`` (and ``tokenizer_config.json``
    for the window).

    Raises:
        EmbeddingError: the ``tokenizers`` library is missing or the file cannot be read.
    """
    try:
        # deferred: the tokenizers package (14 ms) only where texts are counted
        from tokenizers import Tokenizer
    except ImportError:
        raise EmbeddingError(
            "the tokenizers library is not installed (pip install 'specbrowser[embed]')"
        ) from None
    try:
        tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    except Exception as exc:
        raise EmbeddingError(f"cannot read {folder / 'tokenizer.json'}: {exc}") from None
    tokenizer.no_truncation()
    tokenizer.no_padding()
    window = None
    config = folder / "tokenizer_config.json"
    if config.is_file():
        try:
            window = int(json.loads(config.read_text(encoding="utf-8")).get("model_max_length"))
        except (ValueError, TypeError, OSError):
            window = None
    if window is not None and window > 100_000:  # transformers' "no limit" sentinel
        window = None
    return TokenCounter(model=model, max_tokens=window, _tokenizer=tokenizer)


def default_token_counter() -> TokenCounter | None:
    """The default embedding model's counter, or None when its tokenizer package is not
    installed (counting is then skipped; nothing fails)."""
    folder = tokenizer_folder()
    if folder is None:
        return None
    try:
        return load_token_counter(folder, DEFAULT_MODEL)
    except EmbeddingError:
        return None


def require_token_counter() -> TokenCounter:
    """The default embedding model's counter, for a threshold in tokens.

    Raises:
        EmbeddingError: its tokenizer package is not installed (with the install command).
    """
    counter = default_token_counter()
    if counter is None:
        raise EmbeddingError(
            "a threshold in tokens counts with the embedding model's tokenizer, which is not "
            f"installed: {TOKENIZER_HINT}"
        )
    return counter


def token_measure(
    policy: ChunkPolicy, document_title: str, document_summary: str = ""
) -> TokenMeasure | None:
    """The chunking's :class:`TokenMeasure` for a policy with a threshold in tokens (the
    default model's tokenizer), None for one in characters. With summaries on, the header
    counts ``document_summary`` and allows
    :data:`~specbrowser.chunking.measure.SECTION_SUMMARY_TOKENS` for the section summary.

    Raises:
        EmbeddingError: a threshold in tokens, and the tokenizer is not installed.
    """
    if policy.unit != "tokens":
        return None
    measure = require_token_counter().measure(document_title)
    if not policy.summaries:
        return measure
    return replace(
        measure,
        document_summary=document_summary,
        section_summary_tokens=SECTION_SUMMARY_TOKENS,
    )


def count_missing_tokens(
    db: SpecStore,
    counter: TokenCounter,
    policy_version: str,
    progress: Progress | None = None,
) -> int:
    """Count and store the tokens of the chunk set's texts that have no count for this model.

    Each batch of :data:`COUNT_BATCH` texts is committed on its own (an interrupted run keeps
    what it finished). ``progress("counting", done, total)`` is called after each batch, in
    texts; it may raise to stop the run. Returns how many texts were counted.
    """
    with db.transaction("the token window"):
        db.tokens.set_window(counter.model, counter.max_tokens)
    items = db.tokens.texts_without_counts(counter.model, policy_version)
    for first in range(0, len(items), COUNT_BATCH):
        batch = items[first : first + COUNT_BATCH]
        counts = counter.count([text for _digest, text in batch])
        with db.transaction(f"token counts of {len(batch):,} texts"):
            db.tokens.add(
                counter.model,
                [(digest, n) for (digest, _text), n in zip(batch, counts, strict=True)],
            )
        if progress:
            progress("counting", first + len(batch), len(items))
    return len(items)


def store_counts(db: SpecStore, model: str, counts: dict[str, int]) -> None:
    """Store token counts already known (``content hash → tokens``, e.g. from an embedding run);
    the caller commits."""
    db.tokens.add(model, counts.items())


@dataclass
class TokenInfo:
    """Token counts of one chunk set.

    Attributes:
        model: whose tokenizer counted.
        max_tokens: that model's window, or None when unknown.
        counts: chunk id → token count, for the chunks counted so far.
        total_chunks: chunks in the set.
    """

    model: str
    max_tokens: int | None
    counts: dict[str, int]
    total_chunks: int

    @property
    def over_window(self) -> dict[str, int]:
        """Chunks whose text the model would cut (tokens > window): id → token count."""
        if self.max_tokens is None:
            return {}
        return {cid: n for cid, n in self.counts.items() if n > self.max_tokens}

    @property
    def complete(self) -> bool:
        """Whether every chunk of the set has a count."""
        return len(self.counts) >= self.total_chunks


def token_info(db: SpecStore, policy_version: str, model: str | None = None) -> TokenInfo | None:
    """The stored token counts of a chunk set, or None when nothing was ever counted.

    ``model`` defaults to the model of the stored vectors, else the one model with counts.
    """
    if not db.tokens.recorded():
        return None
    if model is None:
        stored = db.vectors.model()
        model = stored[0] if stored else db.tokens.model()
    if model is None:
        return None
    window = db.tokens.window(model)
    hashes = db.vectors.chunk_hash_map(policy_version)
    by_hash = db.tokens.counts(model)
    counts = {chunk_id: by_hash[digest] for chunk_id, digest in hashes.items() if digest in by_hash}
    return TokenInfo(model=model, max_tokens=window, counts=counts, total_chunks=len(hashes))


def token_summary(info: TokenInfo | None) -> dict[str, object] | None:
    """A JSON-ready summary of :func:`token_info` for ``stats``: ``model``, ``window``,
    ``counted``/``chunks``, ``median``/``p90``/``max`` tokens and ``over_window`` (chunks the
    model cuts)."""
    if info is None:
        return None
    values = sorted(info.counts.values())
    return {
        "model": info.model,
        "window": info.max_tokens,
        "counted": len(values),
        "chunks": info.total_chunks,
        "median": values[len(values) // 2] if values else 0,
        "p90": values[min(len(values) - 1, len(values) * 9 // 10)] if values else 0,
        "max": values[-1] if values else 0,
        "over_window": len(info.over_window),
    }
