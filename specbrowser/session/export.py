"""Export a chunk set as LangChain-shaped documents: JSON Lines or Parquet (pure core, no UI).

One record per chunk of the chosen chunk set (the active one unless a policy version, or a
unique prefix of one, is given; resolving it never changes which set is active), in the shape of
``langchain_core.documents.Document`` (fields ``id``, ``page_content``, ``metadata``, ``type``),
so ``Document(**record)`` loads a record as is; langchain is not imported here::

    {"id": "sec-if-statement",
     "page_content": "Document: …\\nSection: …\\nContent:\\n…",
     "metadata": {"chunk_id": "sec-if-statement", "section_id": "sec-if-statement", …},
     "type": "Document"}

``page_content`` is the chunk's **retrieval text** by default (a header naming the document,
heading path and part, then the Markdown: what specbrowser's search and embeddings index, so a
vector store built from the export sees what the app measured, truncation included); with
``content="text"`` it is the bare chunk Markdown (when the pipeline adds its own header from the
metadata). ``metadata["content"]`` records which. The metadata keys are :data:`METADATA_FIELDS`.

Formats:

- ``jsonl``: UTF-8, one JSON object per line, non-ASCII kept as is (``ensure_ascii=False``).
- ``parquet`` (needs pyarrow: ``pip install 'specbrowser[export]'``): columns ``id``,
  ``page_content``, ``metadata`` (a **struct** column with the typed fields of
  :data:`PARQUET_METADATA_TYPE`, so DuckDB/Polars filter on ``metadata.layer`` and pandas reads
  a dict per row) and ``type``. ``pyarrow.parquet.read_table(path).to_pylist()`` gives the same
  records as the JSONL lines; ``pandas.read_parquet`` gives a dict per row too, with the list
  fields as numpy arrays (pydantic's ``Document`` accepts them; ``to_pylist`` gives plain lists).
  Checked with langchain-core 1.x: ``Document(**record)`` loads every JSONL line and Parquet
  row. The file's key-value metadata holds ``specbrowser.*`` keys (policy version, document
  title, content kind).

Files are written atomically: a temporary file in the output's folder, renamed over the output
once complete; any failure (Ctrl-C included) removes it and leaves an existing output untouched.
A symbolic link is followed (its target is replaced, the link kept). Standard output (``-``) and
an existing output that is not a regular file (``/dev/stdout``, a FIFO, a terminal) are streams:
the records are built in memory and written to it once complete, never renamed over it (that
would replace ``/dev/stdout`` itself).
"""

from __future__ import annotations

import io
import json
import os
import stat
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from specbrowser import __version__
from specbrowser.errors import SpecbrowserError
from specbrowser.model import Chunk
from specbrowser.progress import Progress
from specbrowser.search.tokens import token_info
from specbrowser.session.links import href_anchor, link_hrefs, link_targets
from specbrowser.store import SpecStore
from specbrowser.store.corpus import SpecRow
from specbrowser.types import CONTENT_KINDS, EXPORT_FORMATS, ContentKind, ExportFormat

PYARROW_HINT = "parquet export needs pyarrow: pip install 'specbrowser[export]'"
"""The one-line message when pyarrow is missing."""

PROGRESS_EVERY = 500
"""Records between two progress calls: often enough for a smooth bar, rare enough to be free."""

METADATA_FIELDS = (
    "chunk_id",
    "section_id",
    "parent_id",
    "subsections",
    "title",
    "heading_path",
    "toc_path",
    "mismatch",
    "layer",
    "depth",
    "breakdown_tag",
    "size",
    "over_threshold",
    "ordinal",
    "section_ordinal",
    "embedding_truncated",
    "token_count",
    "token_model",
    "embedding_model",
    "policy_version",
    "document_title",
    "spec",
    "source",
    "content",
    "links",
)
"""Keys of every record's ``metadata``, in order:

- ``chunk_id``, ``section_id`` (None for the document chunk), ``parent_id`` (None for a root
  chunk), ``subsections`` (ids whose markers the text holds, in order), ``title``;
- ``heading_path`` (the parser's section titles, top down), ``toc_path`` (the TOC's, or None when
  the TOC gives none), ``mismatch`` (how the two differ, or None);
- ``layer``, ``depth`` (0 for a root chunk), ``breakdown_tag`` (None for a root chunk);
- ``size``: characters (code points) of the chunk Markdown, markers included (the threshold's
  unit, whatever ``content`` is); ``over_threshold``: None, ``max_depth`` or ``unsplittable``;
- ``ordinal`` (pre-order position in the set), ``section_ordinal`` (``14.6.1``, ``B.2``, "");
- ``embedding_truncated``: True when the stored model's tokenizer cut the retrieval text, None
  when the chunk has no vector; ``embedding_model``: the vectors' model, or None without them;
- ``token_count``: the retrieval text's full token count
  (:func:`specbrowser.search.tokens.token_info`, else the embedding run's count), None when
  never counted; ``token_model``: whose tokenizer;
- ``policy_version`` (full), ``document_title`` (the chunk's spec's title), ``spec`` (its
  spec's name, :mod:`specbrowser.store.corpus`), ``source`` (``<file>#<section id>``: the
  section's anchor in the spec file; the spec's first file alone for its document chunk),
  ``content`` (``retrieval`` or ``text``: what ``page_content`` holds);
- ``links``: the chunk text's links, each once in text order, as ``{"href", "chunk_id"}``: for
  ``#id`` naming an element of the chunk's spec, the chunk of this set that holds it
  (:mod:`specbrowser.session.links`); in a database of several specs, for a URL into another
  spec of it (:meth:`~specbrowser.store.corpus.Corpus.spec_of_url`), the chunk holding its
  fragment's element there; None for any other link (external) or an id the spec lacks.
"""


class ExportError(SpecbrowserError):
    """The export cannot be written: a folder as output, a missing folder, pyarrow missing."""


@dataclass
class ExportResult:
    """What :func:`export_chunk_set` wrote.

    Attributes:
        path: the output file (``-`` for standard output).
        format: ``jsonl`` or ``parquet``.
        policy_version: the exported chunk set's full version.
        records: how many records (= chunks in the set, the document chunk included).
        size_bytes: how many bytes were written.
        seconds: wall time of the export.
    """

    path: Path
    format: ExportFormat
    policy_version: str
    records: int
    size_bytes: int
    seconds: float


def resolve_policy_version(db: SpecStore, version: str | None) -> str:
    """The full policy version a user's ``--policy`` names; the active one when None or "".

    ``version`` is a full version or a prefix of exactly one. The active set is not changed.

    Raises:
        NotFoundError: no chunk set at all, or none (or several) with that version or prefix.
    """
    if not version:
        return db.active_version()
    return db.sets.resolve(version)


def embedding_info(
    db: SpecStore,
) -> tuple[str | None, dict[str, tuple[bool, int | None]]]:
    """The stored embedding model and, per retrieval-text hash, ``(truncated, token count)``.

    Read only (no sqlite-vec needed, nothing written): ``(None, {})`` when the database holds no
    vectors. Keys are content hashes (sha256 of a retrieval text, the ``chunks`` view's
    ``content_hash``).
    """
    current = db.vectors.model()
    if current is None:
        return None, {}
    model = current[0]
    return model, db.vectors.flags(model)


def iter_records(
    db: SpecStore, policy_version: str, content: ContentKind = "retrieval"
) -> Iterator[dict[str, Any]]:
    """The chunk set's records in chunk ordinal order: ``{"id", "page_content", "metadata",
    "type": "Document"}`` with the metadata of :data:`METADATA_FIELDS`.

    ``policy_version`` must be a full stored version (see :func:`resolve_policy_version`).

    Raises:
        ValueError: ``content`` is not one of :data:`specbrowser.types.CONTENT_KINDS`.
    """
    if content not in CONTENT_KINDS:
        raise ValueError(f"content must be one of {CONTENT_KINDS}, not {content!r}")
    source_files = db.sections.source_files()
    specs = db.corpus.all()
    model, embedded = embedding_info(db)
    hashes = db.vectors.chunk_hash_map(policy_version) if embedded else {}
    tokens = token_info(db, policy_version)
    token_counts = tokens.counts if tokens else {}
    token_model = tokens.model if tokens else None
    targets: _LinkTargets | None = None
    first_file = ""
    urls = _UrlTargets(db, policy_version) if len(specs) > 1 else None
    for spec, chunk in _spec_chunks(db, policy_version, specs):
        if targets is None or spec.id != targets.document_id:
            targets = _LinkTargets(db, policy_version, spec.id, urls)
            first_file = db.sections.first_source_file(spec.id)
        vector = embedded.get(hashes.get(chunk.id, "")) if embedded else None
        token_count = token_counts.get(chunk.id, vector[1] if vector else None)
        source = (
            f"{source_files.get(chunk.section_id, '')}#{chunk.section_id}"
            if chunk.section_id
            else first_file
        )
        metadata = {
            "chunk_id": chunk.id,
            "section_id": chunk.section_id,
            "parent_id": chunk.parent_id,
            "subsections": chunk.subsections,
            "title": chunk.title,
            "heading_path": chunk.heading_path,
            "toc_path": chunk.toc_path,
            "mismatch": chunk.mismatch,
            "layer": chunk.layer,
            "depth": chunk.depth,
            "breakdown_tag": chunk.breakdown_tag,
            "size": chunk.size,
            "over_threshold": chunk.over_threshold,
            "ordinal": chunk.ordinal,
            "section_ordinal": chunk.section_ordinal,
            "embedding_truncated": vector[0] if vector else None,
            "token_count": token_count,
            "token_model": (token_model if chunk.id in token_counts else model)
            if token_count is not None
            else None,
            "embedding_model": model,
            "policy_version": policy_version,
            "document_title": spec.title,
            "spec": spec.name,
            "source": source,
            "content": content,
            "links": targets.of(chunk.text),
        }
        yield {
            "id": chunk.id,
            "page_content": chunk.retrieval_text if content == "retrieval" else chunk.text,
            "metadata": metadata,
            "type": "Document",
        }


def _spec_chunks(
    db: SpecStore, version: str, specs: list[SpecRow]
) -> Iterator[tuple[SpecRow, Chunk]]:
    """Every chunk of the set ``version`` with its spec, spec by spec in corpus order (chunk
    ordinal order)."""
    for spec in specs:
        for chunk in db.iter_chunks(version, spec.id):
            yield spec, chunk


class _LinkTargets:
    """Where one spec's in-text links lead in a set: its anchor map read once (a set without
    one resolves each chunk's anchors as it comes,
    :func:`specbrowser.session.links.link_targets`), and URLs into the other specs
    (``urls``; None: not resolved)."""

    def __init__(
        self, db: SpecStore, version: str, document_id: str, urls: _UrlTargets | None
    ) -> None:
        self.db, self.version, self.document_id, self.urls = db, version, document_id, urls
        symbols = db.symbols
        self.known = (
            symbols.anchor_map(version, document_id) if symbols.has_anchor_map(version) else None
        )

    def of(self, text: str) -> list[dict[str, str | None]]:
        """``{"href", "chunk_id"}`` for each link of ``text`` (see :data:`METADATA_FIELDS`)."""
        hrefs = link_hrefs(text)
        anchors = {h: href_anchor(h) for h in hrefs}
        known = self.known
        if known is None:
            known = link_targets(
                self.db, [a for a in anchors.values() if a], self.version, self.document_id
            )
        return [
            {
                "href": h,
                "chunk_id": known.get(a)
                if a is not None
                else self.urls.target(h, self.document_id)
                if self.urls is not None
                else None,
            }
            for h, a in anchors.items()
        ]


class _UrlTargets:
    """Where URLs into the specs of a corpus lead in a set, each URL resolved once."""

    def __init__(self, db: SpecStore, version: str) -> None:
        self.db, self.version = db, version
        self.found: dict[str, tuple[str, str | None]] = {}

    def target(self, href: str, source_id: str) -> str | None:
        """The chunk a link ``href`` of the spec ``source_id`` leads to when it is a URL into
        another spec of the corpus, else None."""
        if "://" not in href or "#" not in href:
            return None
        if href not in self.found:
            # deferred: the formats package (about 40 ms of imports), only for a corpus
            from specbrowser.formats.identity import url_aliases

            spec = self.db.corpus.spec_of_url(href, url_aliases)
            if spec is None:
                self.found[href] = ("", None)
            else:
                held = link_targets(self.db, [spec[1]], self.version, spec[0].id)
                self.found[href] = (spec[0].id, held.get(spec[1]))
        owner, chunk = self.found[href]
        return chunk if owner and owner != source_id else None


def check_output_path(path: Path) -> None:
    """Refuse an output that cannot be written whole.

    Raises:
        ExportError: ``path`` is a folder, or its folder does not exist.
    """
    if path.is_dir():
        raise ExportError(f"{path} is a folder; give a file name for the export")
    if not path.parent.is_dir():
        raise ExportError(f"cannot write {path}: folder {path.parent} does not exist")


def require_pyarrow() -> None:
    """Raise :class:`ExportError` with :data:`PYARROW_HINT` when pyarrow cannot be imported."""
    try:
        import pyarrow.parquet  # noqa: F401  (deferred: pyarrow, only to write Parquet)
    except ImportError:
        raise ExportError(PYARROW_HINT) from None


def export_chunk_set(
    db: SpecStore,
    path: Path | str,
    *,
    format: ExportFormat = "jsonl",
    policy_version: str | None = None,
    content: ContentKind = "retrieval",
    progress: Progress | None = None,
) -> ExportResult:
    """Write every chunk of a chunk set to ``path`` as ``format`` records (see the module doc).

    ``policy_version`` is a full version or unique prefix (None: the active set). Atomic: the
    records go to a temporary file beside ``path``, renamed over it at the end; on any error or
    Ctrl-C the temporary file is removed and ``path`` is as it was. ``-`` (standard output) and
    non-regular files are written in place once complete (:func:`is_stream`).

    Raises:
        ExportError: ``path`` is a folder, in a missing folder, the database file itself, or
            cannot be written (permission, a full disk: nothing is left behind); parquet
            without pyarrow.
        NotFoundError: no chunk set with that version (or an ambiguous prefix).
        ValueError: an unknown ``format`` or ``content``.
    """
    if format not in EXPORT_FORMATS:
        raise ValueError(f"format must be one of {EXPORT_FORMATS}, not {format!r}")
    if content not in CONTENT_KINDS:
        raise ValueError(f"content must be one of {CONTENT_KINDS}, not {content!r}")
    path = Path(path)
    check_output_path(path)
    if path.exists() and path.samefile(db.path):
        raise ExportError(f"{path} is the database itself; give another file name for the export")
    if format == "parquet":
        require_pyarrow()
    version = resolve_policy_version(db, policy_version)
    total = db.chunk_count(version)
    start = time.perf_counter()
    records = iter_records(db, version, content)
    writer = _write_jsonl if format == "jsonl" else _write_parquet
    file_metadata = {
        "specbrowser.version": __version__,
        "specbrowser.policy_version": version,
        "specbrowser.document_title": db.sections.document().title,
        "specbrowser.specs": ",".join(spec.name for spec in db.corpus.all()),
        "specbrowser.content": content,
    }
    output = _stream_output(path) if is_stream(path) else _atomic_output(path.resolve())
    try:
        with output as handle:
            count = writer(handle, records, total, progress, file_metadata)
    except BrokenPipeError:
        raise  # a reader that stopped early: the command line ends quietly (status 141)
    except OSError as exc:  # an unwritable folder (/proc, /sys), a full disk, …
        raise ExportError(f"cannot write {path}: {exc.strerror or exc}") from None
    return ExportResult(
        path=path,
        format=format,
        policy_version=version,
        records=count,
        size_bytes=output.size,
        seconds=time.perf_counter() - start,
    )


def is_stream(path: Path) -> bool:
    """Whether ``path`` is standard output (``-``) or an existing file that is not a regular
    one (``/dev/stdout``, a FIFO, a terminal), which an export writes into instead of replacing."""
    if str(path) == "-":
        return True
    try:
        return not stat.S_ISREG(path.stat().st_mode)  # follows links: /dev/stdout → a pipe
    except OSError:
        return False


class _stream_output:
    """Context manager: an in-memory buffer, written to the stream (standard output for ``-``)
    on success only; ``size`` is the bytes written."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.buffer = io.BytesIO()
        self.size = 0

    def __enter__(self) -> IO[bytes]:
        return self.buffer

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        if exc_type is not None:
            return
        data = self.buffer.getvalue()
        if str(self.path) == "-":
            sys.stdout.buffer.write(data)
            sys.stdout.buffer.flush()
        else:
            with open(self.path, "wb") as stream:
                stream.write(data)
        self.size = len(data)


class _atomic_output:
    """Context manager: a binary temp file beside ``path``, renamed to ``path`` on success and
    removed on any exception."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.handle: IO[bytes] | None = None
        self.temp_name = ""
        self.size = 0

    def __enter__(self) -> IO[bytes]:
        fd, self.temp_name = tempfile.mkstemp(
            dir=self.path.parent, prefix=f".{self.path.name}.", suffix=".tmp"
        )
        self.handle = os.fdopen(fd, "wb")
        os.chmod(self.temp_name, _file_mode(self.path))  # mkstemp makes it 0600
        return self.handle

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        assert self.handle is not None
        try:
            if exc_type is None:
                self.handle.flush()
                os.fsync(self.handle.fileno())
            self.handle.close()
            if exc_type is None:
                os.replace(self.temp_name, self.path)
                self.size = self.path.stat().st_size
        finally:
            if os.path.exists(self.temp_name):
                os.unlink(self.temp_name)


def _file_mode(path: Path) -> int:
    """The mode the output gets: an existing output's, else what ``open`` would give (0666
    less the umask)."""
    try:
        return path.stat().st_mode & 0o777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def _write_jsonl(
    handle: IO[bytes],
    records: Iterator[dict[str, Any]],
    total: int,
    progress: Progress | None,
    file_metadata: dict[str, str],
) -> int:
    count = 0
    for record in records:
        handle.write(json.dumps(record, ensure_ascii=False).encode("utf-8"))
        handle.write(b"\n")
        count += 1
        if progress is not None and count % PROGRESS_EVERY == 0:
            progress("exporting", count, total)
    if progress is not None:
        progress("exporting", count, total)
    return count


PARQUET_BATCH = 1000
"""Records per Parquet row group batch: bounded memory on large sets."""


def parquet_schema() -> Any:
    """The Parquet file's ``pyarrow.Schema`` (needs pyarrow): ``id``, ``page_content``,
    ``metadata`` (struct of :data:`METADATA_FIELDS`, typed, nullable) and ``type``."""
    import pyarrow as pa  # deferred: pyarrow, only to write Parquet

    text, strings, integer = pa.string(), pa.list_(pa.string()), pa.int64()
    types = {
        "subsections": strings,
        "heading_path": strings,
        "toc_path": strings,
        "depth": integer,
        "size": integer,
        "ordinal": integer,
        "token_count": integer,
        "embedding_truncated": pa.bool_(),
    }
    types["links"] = pa.list_(pa.struct([pa.field("href", text), pa.field("chunk_id", text)]))
    metadata = pa.struct([pa.field(name, types.get(name, text)) for name in METADATA_FIELDS])
    return pa.schema(
        [
            pa.field("id", text),
            pa.field("page_content", text),
            pa.field("metadata", metadata),
            pa.field("type", text),
        ]
    )


def _write_parquet(
    handle: IO[bytes],
    records: Iterator[dict[str, Any]],
    total: int,
    progress: Progress | None,
    file_metadata: dict[str, str],
) -> int:
    import pyarrow as pa  # deferred: pyarrow, only to write Parquet
    import pyarrow.parquet as pq

    schema = parquet_schema().with_metadata(file_metadata)
    count = 0
    with pq.ParquetWriter(handle, schema, compression="zstd") as writer:
        batch: list[dict[str, Any]] = []
        for record in records:
            batch.append(record)
            if len(batch) == PARQUET_BATCH:
                writer.write_batch(pa.RecordBatch.from_pylist(batch, schema=schema))
                count += len(batch)
                batch = []
                if progress is not None:
                    progress("exporting", count, total)
        if batch or count == 0:
            writer.write_batch(pa.RecordBatch.from_pylist(batch, schema=schema))
            count += len(batch)
    if progress is not None:
        progress("exporting", count, total)
    return count
