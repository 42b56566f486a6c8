"""fastembed model resolution, offline by default, and the resumable "embed what is missing" run.

The default model's files come from :mod:`specbrowser.search.model_files`; ``--model NAME``
(any fastembed model; may need the network) and ``--model-dir DIR`` (used as is) override it.

fastembed is imported only when a model is loaded: importing this module (or the CLI) stays
cheap. The tokenizer cuts texts longer than the model's window (512 tokens for this model);
:meth:`Embedder.embed` counts every text's tokens without truncation and flags the cut ones
:func:`embed_missing` returns the truncated chunk ids and logs each one at INFO (the
CLI prints the count and the first few: ECMA-262 has hundreds).
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from specbrowser.chunking.labels import PATH_SEPARATOR, split_retrieval_text
from specbrowser.errors import EmbeddingError
from specbrowser.progress import Progress
from specbrowser.search.model_files import (
    DEFAULT_MODEL,
    assemble_default_model,
    default_cache_root,
    install_hint,
)
from specbrowser.search.tokens import TokenCounter, count_missing_tokens
from specbrowser.store import SpecStore
from specbrowser.store import vectors as store_vectors

log = logging.getLogger(__name__)

DEFAULT_BATCH = 32
"""Texts per ONNX run and per committed batch: big enough to amortize a call, small enough that
an interrupted run loses little and length-sorted batches pad little."""

EMBED_TITLES = 2
"""How many heading-path titles, from the end, head an :func:`embedding_text`."""

EMBED_WINDOW = 256
"""Tokens (special tokens included) the default model embeds of a text: all-MiniLM-L6-v2 was
trained on texts of at most 256 word pieces (its model card; sentence-transformers cuts there),
though its tokenizer allows 512; it retrieves better than the 512-token window in less time and
memory (attention grows with the square of the length; ``benchmarks/model_benchmark.py``,
BENCHMARKS.md "Semantic search")."""

EMBED_RECIPE = f"titles{EMBED_TITLES}+body@{EMBED_WINDOW}"
"""What the default model's vectors are of (:func:`embedding_text`, :data:`EMBED_WINDOW`):
recorded with the vectors, so that vectors made another way are never mixed with these."""

DEFAULT_BATCH_TOKENS = 4096
"""Padded tokens per ONNX run (texts × the longest text's tokens, after the window's cut):
memory follows tokens, not texts (16 texts of 256 tokens, or 4 of 1,024); twice as many
roughly doubles the peak memory of ``specbrowser embed`` (BENCHMARKS.md "Semantic search")."""


def embedding_text(retrieval_text: str) -> str:
    """What the default model embeds for a chunk: one short title line, then the chunk's body.

    The title line is the last :data:`EMBED_TITLES` titles of the retrieval text's
    ``Section:`` path joined by `` > `` and, for a breakdown subsection, its ``Part:`` label
    after `` | ``; the body is the retrieval text's body (after its ``Content:`` line). The
    ``Document:`` line and the rest of the path are left out: tokens that every chunk of a
    section shares; hybrid search retrieves better with it than with the whole retrieval text in
    the same window (BENCHMARKS.md "Semantic search"). A text without a header
    (the document chunk's has only ``Document:``) keeps its body, or is returned as is.
    """
    header, body = split_retrieval_text(retrieval_text)
    if not header:
        return retrieval_text
    title, part = "", ""
    for line in header.splitlines():
        if line.startswith("Section: "):
            title = PATH_SEPARATOR.join(
                line[len("Section: ") :].split(PATH_SEPARATOR)[-EMBED_TITLES:]
            )
        elif line.startswith("Part: "):
            part = line[len("Part: ") :]
    head = " | ".join(piece for piece in (title, part) if piece)
    return f"{head}\n{body}" if head else body


def token_batches(lengths: Sequence[int], budget: int, max_texts: int) -> list[range]:
    """Cut texts sorted by ``lengths`` (tokens, ascending) into consecutive batches whose padded
    size (texts × the batch's longest) stays within ``budget`` tokens and that hold at most
    ``max_texts`` texts; a text longer than the budget gets a batch of its own.
    Returns index ranges into ``lengths``."""
    batches: list[range] = []
    first = 0
    for index, length in enumerate(lengths):
        size = index - first + 1
        if index > first and (size * max(length, 1) > budget or size > max_texts):
            batches.append(range(first, index))
            first = index
    if first < len(lengths):
        batches.append(range(first, len(lengths)))
    return batches


def check_model_dir(model: str, folder: Path) -> None:
    """Fail fast when a local model folder lacks the files fastembed needs.

    Raises:
        EmbeddingError: naming the model, the folder and the missing files.
    """
    if not folder.is_dir():
        raise EmbeddingError(f"model {model}: folder {folder} does not exist")
    missing = [
        name
        for name in ("model.onnx", "tokenizer.json", "config.json")
        if not (folder / name).is_file()
    ]
    if missing:
        raise EmbeddingError(f"model {model}: folder {folder} lacks {', '.join(missing)}")


@dataclass
class EmbeddedTexts:
    """The result of embedding a list of texts, in input order.

    Attributes:
        vectors: one float32 vector per text, as raw bytes (``dim * 4`` bytes, little-endian:
            what sqlite-vec's ``float[dim]`` columns take).
        tokens: each text's token count with special tokens, before truncation.
        truncated: whether the tokenizer cut the text to the model's window (tokens > max).
    """

    vectors: list[bytes]
    tokens: list[int]
    truncated: list[bool]


@dataclass
class Embedder:
    """A loaded fastembed model and what the store needs to know about it.

    Attributes:
        name: the model name recorded in the database (fastembed's name).
        dim: vector dimension (from a probe embedding, not a table).
        max_tokens: the tokenizer's truncation length (the model's window), or None if unknown.
        model: the ``fastembed.TextEmbedding``.
        source: where the files came from (a folder, or "fastembed cache").
        recipe: what the vectors are of: :data:`EMBED_RECIPE` for the default model (each
            chunk's :func:`embedding_text`, cut at :data:`EMBED_WINDOW` tokens), "" for another
            model (the retrieval text, cut at the model's own window).
    """

    name: str
    dim: int
    max_tokens: int | None
    model: Any
    source: str
    _counter: Any = field(default=None, repr=False)
    recipe: str = ""
    token_window: int | None = None
    """The tokenizer's own window (``model_max_length``), what token counts are checked
    against; None: :attr:`max_tokens`."""

    def text_for(self, retrieval_text: str) -> str:
        """What this model embeds of a chunk's retrieval text (see :attr:`recipe`)."""
        return embedding_text(retrieval_text) if self.recipe else retrieval_text

    def embed(self, texts: Sequence[str], tokens: Sequence[int] | None = None) -> EmbeddedTexts:
        """Embed ``texts`` in one fastembed batch; flag truncation from ``tokens``,
        their token counts when already known, else counted here."""
        tokens = list(tokens) if tokens is not None else self.count_tokens(texts)
        vectors = [
            vector.astype("<f4").tobytes()
            for vector in self.model.embed(list(texts), batch_size=max(1, len(texts)))
        ]
        limit = self.max_tokens
        return EmbeddedTexts(vectors, tokens, [limit is not None and n > limit for n in tokens])

    def embed_query(self, text: str) -> bytes:
        """One query vector as float32 bytes (fastembed's ``query_embed``: the model's query
        prefix, if it has one)."""
        return next(iter(self.model.query_embed(text))).astype("<f4").tobytes()

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        """Token counts (special tokens included) without truncation; 0s when the tokenizer is
        not reachable."""
        if self._counter is None:
            return [0] * len(texts)
        return [len(encoding.ids) for encoding in self._counter.encode_batch(list(texts))]

    def token_counter(self) -> TokenCounter | None:
        """This model's tokenizer as a :class:`~specbrowser.search.tokens.TokenCounter`, or None."""
        if self._counter is None:
            return None
        window = self.token_window or self.max_tokens
        return TokenCounter(model=self.name, max_tokens=window, _tokenizer=self._counter)


def load_embedder(
    model: str | None = None,
    model_dir: Path | None = None,
    threads: int | None = None,
    cache_root: Path | None = None,
) -> Embedder:
    """Load an embedding model.

    - neither given: the default model from the assembled offline folder
      (:func:`assemble_default_model`), ``HF_HUB_OFFLINE=1``;
    - ``model_dir``: that folder as is (``model`` names which fastembed model it holds, default
      :data:`DEFAULT_MODEL`), ``HF_HUB_OFFLINE=1``;
    - ``model`` only: fastembed's own resolution into ``<cache>/fastembed`` (may download).

    ``threads`` goes to onnxruntime's intra-op thread count (None: its default).

    Raises:
        EmbeddingError: fastembed is not installed, files are missing, the name is unknown, or
            loading failed; the message names the model and the folder.
    """
    name = model or DEFAULT_MODEL
    cache_root = cache_root or default_cache_root()
    kwargs: dict[str, Any] = {}
    folder: Path | None
    if model_dir is not None:
        folder = Path(model_dir)
        check_model_dir(name, folder)
    elif model is None or model == DEFAULT_MODEL:
        folder = assemble_default_model(cache_root)
    else:
        folder = None
    if folder is not None:
        os.environ["HF_HUB_OFFLINE"] = "1"  # a local folder never needs the network
        kwargs["specific_model_path"] = str(folder)
    else:
        kwargs["cache_dir"] = str(cache_root / "fastembed")
    try:
        # deferred: fastembed with onnxruntime and numpy (0.5 s) only where a model is loaded
        from fastembed import TextEmbedding
    except ImportError:
        raise EmbeddingError(f"fastembed is not installed ({install_hint()})") from None
    where = str(folder) if folder is not None else str(cache_root / "fastembed")
    if folder is None:
        _check_named_model(TextEmbedding, name, threads, kwargs["cache_dir"])
    try:
        text_model = TextEmbedding(model_name=name, threads=threads, **kwargs)
        probe = next(iter(text_model.embed(["dimension probe"])))
    except Exception as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise EmbeddingError(f"model {name} could not be loaded from {where}: {first}") from None
    tokenizer = getattr(getattr(text_model, "model", None), "tokenizer", None)
    max_tokens, counter = None, None
    recipe = EMBED_RECIPE if name == DEFAULT_MODEL else ""
    if tokenizer is not None:
        # deferred: the tokenizers package (14 ms) only where a model is loaded
        from tokenizers import Tokenizer

        max_tokens = (tokenizer.truncation or {}).get("max_length")
        counter = Tokenizer.from_str(tokenizer.to_str())
        counter.no_truncation()
        counter.no_padding()
    token_window = max_tokens
    if recipe and tokenizer is not None:
        max_tokens = min(max_tokens or EMBED_WINDOW, EMBED_WINDOW)
        tokenizer.enable_truncation(max_tokens)
    return Embedder(
        name=name,
        dim=int(probe.shape[0]),
        max_tokens=max_tokens,
        model=text_model,
        source=where,
        _counter=counter,
        recipe=recipe,
        token_window=token_window,
    )


HUB_HOST = "huggingface.co"
"""Where fastembed downloads named models from (its first source)."""

_PROXY_VARIABLES = (
    "HTTPS_PROXY",
    "https_proxy",
    "HTTP_PROXY",
    "http_proxy",
    "ALL_PROXY",
    "all_proxy",
)


def hub_reachable(timeout_s: float = 3.0) -> bool:
    """Whether a TCP connection to :data:`HUB_HOST` opens within ``timeout_s`` seconds. True
    when a proxy is configured (only the download can tell then)."""
    if any(os.environ.get(name) for name in _PROXY_VARIABLES):
        return True
    try:
        socket.create_connection((HUB_HOST, 443), timeout=timeout_s).close()
    except OSError:
        return False
    return True


@contextlib.contextmanager
def _fastembed_log_muted() -> Iterator[None]:
    """Silence fastembed's loguru messages (an expected cache miss logs ERROR lines)."""
    try:
        # deferred: loguru (50 ms), fastembed's logger, only where a model is loaded
        from loguru import logger
    except ImportError:
        yield
        return
    logger.disable("fastembed")
    try:
        yield
    finally:
        logger.enable("fastembed")


def _check_named_model(text_embedding: Any, name: str, threads: int | None, cache_dir: str) -> None:
    """Fail within seconds, not fastembed's ~40 s of download retries, for a ``--model NAME``
    that is unknown, or neither cached nor downloadable (no network).

    Raises:
        EmbeddingError: the name is not a fastembed model, or it is not in ``cache_dir`` and
            :data:`HUB_HOST` cannot be reached.
    """
    known = {entry["model"].lower() for entry in text_embedding.list_supported_models()}
    if name.lower() not in known:
        raise EmbeddingError(
            f"{name} is not a fastembed model name (see "
            "fastembed.TextEmbedding.list_supported_models()); or pass --model-dir"
        )
    try:  # cached already? (never touches the network; fastembed's own log lines muted)
        with _fastembed_log_muted():
            text_embedding(
                model_name=name, threads=threads, cache_dir=cache_dir, local_files_only=True
            )
        return
    except Exception as exc:
        log.debug("model %s not cached: %s", name, exc)
    if not hub_reachable():
        raise EmbeddingError(
            f"model {name} is not in {cache_dir} and {HUB_HOST} cannot be "
            "reached to download it; connect to the network, or pass --model-dir "
            "DIR with its files"
        )


# --- the run: embed what is missing ----------------------------------------------------------


@dataclass
class EmbedReport:
    """What :func:`embed_missing` did.

    Attributes:
        model: the model name.
        total_texts: distinct retrieval texts in the chunk set.
        cached: of those, already embedded before this run.
        embedded: embedded and committed by this run.
        truncated_chunks: ids of the chunks whose text this run embedded truncated.
        seconds: wall time of the embedding loop (model loading excluded).
        dim: the model's vector dimension.
        source: where the model's files came from (:attr:`Embedder.source`).
        max_tokens: the model's token window (:attr:`Embedder.max_tokens`), or None.
    """

    model: str
    total_texts: int
    cached: int
    embedded: int = 0
    truncated_chunks: list[str] = field(default_factory=list)
    seconds: float = 0.0
    dim: int = 0
    source: str = ""
    max_tokens: int | None = None

    @property
    def texts_per_second(self) -> float:
        return self.embedded / self.seconds if self.seconds > 0 else 0.0


def embed_missing(
    db: SpecStore,
    embedder: Embedder,
    policy_version: str,
    batch_size: int = DEFAULT_BATCH,
    limit: int | None = None,
    progress: Progress | None = None,
    rebuild: bool = False,
    batch_tokens: int | None = None,
) -> EmbedReport:
    """Embed the chunk set's retrieval texts that have no vector for this model yet.

    Each text becomes what the model embeds (:meth:`Embedder.text_for`) and is counted in
    tokens; texts are sorted by that count so each batch holds texts of similar length, and a
    batch holds at most ``batch_size`` texts and ``batch_tokens`` padded tokens (default
    :data:`DEFAULT_BATCH_TOKENS`; counts cut at the model's window), so memory stays bounded
    whatever the lengths. Each batch is committed on its own, so an interrupted run (Ctrl-C
    included) keeps every finished batch and the next run continues from there. ``limit`` caps
    how many texts this run embeds (shortest first).

    Raises:
        VectorsUnavailable: sqlite-vec is not loaded.
        EmbeddingError: the database holds vectors of another model, dimension or recipe,
            unless ``rebuild``, which drops them first; checked before anything is written.
    """
    db.vectors.prepare(embedder.name, embedder.dim, rebuild=rebuild, recipe=embedder.recipe)
    counter = embedder.token_counter()
    if counter is not None:  # every chunk's token count first (seconds), then the slow part
        count_missing_tokens(db, counter, policy_version)
    pending = db.vectors.missing_texts(embedder.name, policy_version)
    total = db.vectors.distinct_text_count(policy_version)
    report = EmbedReport(
        embedder.name,
        total_texts=total,
        cached=total - len(pending),
        dim=embedder.dim,
        source=embedder.source,
        max_tokens=embedder.max_tokens,
    )
    texts = [embedder.text_for(item.text) for item in pending]
    counts = embedder.count_tokens(texts) if texts else []
    if counter is None:  # no tokenizer: characters / 4 as the length estimate
        counts = [len(text) // 4 + 2 for text in texts]
    order = sorted(range(len(pending)), key=lambda i: (counts[i], len(texts[i])))
    if limit is not None:
        order = order[: max(0, limit)]
    window = embedder.max_tokens or max(counts, default=1)
    lengths = [min(counts[i], window) for i in order]
    start = time.perf_counter()
    try:
        for span in token_batches(lengths, batch_tokens or DEFAULT_BATCH_TOKENS, batch_size):
            batch = [order[position] for position in span]
            result = embedder.embed([texts[i] for i in batch], [counts[i] for i in batch])
            db.vectors.add(
                embedder.name,
                embedder.dim,
                [
                    store_vectors.NewEmbedding(pending[i].content_hash, vector, cut, tokens)
                    for i, vector, cut, tokens in zip(
                        batch, result.vectors, result.truncated, result.tokens, strict=True
                    )
                ],
            )
            for i, cut, tokens in zip(batch, result.truncated, result.tokens, strict=True):
                if cut:
                    report.truncated_chunks.extend(pending[i].chunk_ids)
                    log.debug(  # the summary counts them; one line each only when debugging
                        "embedding truncated: %s (%d tokens > %s)",
                        ", ".join(pending[i].chunk_ids),
                        tokens,
                        embedder.max_tokens,
                    )
            report.embedded += len(batch)
            if progress:
                progress("embedding", report.embedded, len(order))
    finally:
        report.seconds = time.perf_counter() - start
    return report
