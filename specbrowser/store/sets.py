"""Chunk sets: the ingest's one write transaction, adding, activating and deleting sets, and
what ``specbrowser policies`` lists. Every function takes the :class:`SpecStore` first.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from specbrowser.chunking.policy import CONVERTER_VERSION, ChunkPolicy
from specbrowser.chunking.stats import ChunkSetStats, StatsPart
from specbrowser.errors import NotFoundError, PolicyError, SpecInputError
from specbrowser.model import (
    ORDINAL_SPAN,
    Chunk,
    Document,
    Section,
    SpecIdentity,
    Symbol,
    TocNode,
)
from specbrowser.store.chunks import CHUNK_COLUMNS, NO_CHUNK_SET  # noqa: F401  (re-exported)
from specbrowser.store.connection import CACHE_KIB
from specbrowser.store.corpus import CorpusPlace
from specbrowser.store.reuse import CopyPlan
from specbrowser.store.rows import (
    chunk_row,
    drop_unused_texts,
    insert_rows,
    section_columns,
    store_texts,
    upsert_row,
)
from specbrowser.store.schema import (  # noqa: F401  (re-exported)
    FTS_TOKENIZER,
    PAGE_SIZE,
    SCHEMA_VERSION,
    build_set_fts,
    drop_orphan_set_fts,
    drop_set_fts,
    extend_set_fts,
)
from specbrowser.types import IngestOutcome, MismatchKind

if TYPE_CHECKING:
    from specbrowser.chunking.enrich import SectionPaths
    from specbrowser.store.database import SpecStore


INGEST_CREATED: IngestOutcome = "created"
"""The database held no spec: document, sections and the first chunk set written."""
INGEST_ADDED: IngestOutcome = "added"
"""Same spec, a policy version the database did not hold: its chunk set added beside the others."""
INGEST_REPLACED_SET: IngestOutcome = "replaced_set"
"""Same spec, same policy version: that chunk set replaced, the others kept."""
INGEST_REPLACED_SPEC: IngestOutcome = "replaced_spec"
"""The same spec (:func:`specbrowser.store.corpus.same_spec`) with other bytes, or the same bytes
parsed differently: its rows replaced in every set; the other specs untouched; sets that held
only it and are not this ingest's are dropped (stale)."""
INGEST_ADDED_SPEC: IngestOutcome = "added_spec"
"""Another spec than those stored: added to the corpus, in every chunk set."""


def sections_digest(sections: list[Section]) -> str:
    """sha256 (hex) over every stored field of the sections, in order: two ingests of the same
    bytes whose parse differs (a newer parser) get different digests."""
    digest = hashlib.sha256()
    for section in sections:
        digest.update(json.dumps(vars(section), ensure_ascii=False, sort_keys=True).encode())
        digest.update(b"\n")
    return digest.hexdigest()


@dataclass
class IngestWrite:
    """An ingest's write, begun by :meth:`ChunkSets.begin_ingest`: the spec's tables
    (:meth:`write_spec`), then its chunk set (:meth:`write_chunk_set`), both in the one transaction
    :meth:`ChunkSets.begin_ingest` holds, so the spec's part can be written while the chunks are
    still being made.

    Attributes:
        outcome: what the ingest does to the database (:data:`INGEST_OUTCOMES`).
    """

    store: SpecStore
    document: Document
    sections: list[Section]
    now: str
    outcome: IngestOutcome
    known_digest: str | None = None
    steps: list[str] = field(default_factory=list)
    place: CorpusPlace | None = None
    into: str | None = None

    @property
    def digest(self) -> str:
        """:func:`sections_digest` of the sections, computed on first use (a first ingest
        needs it only when its spec's tables are written, beside the breakdown)."""
        if self.known_digest is None:
            self.known_digest = sections_digest(self.sections)
        return self.known_digest

    def write_spec(
        self, paths: SectionPaths, symbols: list[Symbol], toc: list[TocNode] | None
    ) -> None:
        """Write the document, its sections (with what their chunks share: ``paths``), the
        symbol index (``symbols``: :func:`specbrowser.formats.symbols.spec_symbols` of the
        sections) and the TOC with ``paths.mismatches``. A spec already stored with the same
        sections keeps its sections and symbols; only the sections' TOC paths and mismatches
        (this ingest's TOC may be another) are updated. A replaced spec's rows go first; the
        other specs' rows are never touched. A spec replacing itself alone in the database
        drops every vector and token count (:meth:`specbrowser.store.vectors.Vectors.forget`);
        in a corpus, once every set is written (:meth:`ChunkSets.begin_ingest`), only those of
        the texts no set holds any more (:meth:`~specbrowser.store.vectors.Vectors.drop_unused`:
        the other specs' and the unchanged texts' serve on)."""
        db = self.store.db
        shared = section_columns(paths)
        place = self.place
        assert place is not None  # begin_ingest places every ingest
        base = place.position * ORDINAL_SPAN
        if self.outcome in (INGEST_CREATED, INGEST_REPLACED_SPEC, INGEST_ADDED_SPEC):
            alone = self.store.corpus.count() == 1  # the replaced spec, if any, alone
            if place.matched is not None:
                self.store.corpus.delete_rows(place.matched.id)
                if place.matched.id != self.document.id:
                    db.execute("DELETE FROM documents WHERE id = ?", [place.matched.id])
                self._drop_stale_sets()
            insert_rows(
                db,
                "sections",
                [
                    {**vars(s), "document_id": self.document.id, **shared[s.id]}
                    for s in self.sections
                ],
            )
            self.store.symbols.replace(symbols, self.document.id, base)
            if self.outcome == INGEST_REPLACED_SPEC:
                drop_unused_texts(db)
                if alone:  # only its own vectors: the old texts are gone
                    self.store.vectors.forget()
        else:
            db.conn.executemany(
                "UPDATE sections SET toc_path = ?, mismatch = ? WHERE id = ?",
                [(v["toc_path"], v["mismatch"], k) for k, v in shared.items()],
            )
        upsert_row(
            db,
            "documents",
            {
                **asdict(self.document),
                "source_paths": json.dumps(self.document.source_paths),
                "sections_sha256": self.digest,
                "ingested_at": self.now,
                "name": place.name,
                "shortname": place.identity.shortname,
                "canonical_url": place.identity.canonical_url,
                "position": place.position,
            },
            "id",
        )
        self.store.toc.replace(toc or [], paths.mismatches, self.document.id, base)
        self.steps.append("spec")

    def _drop_stale_sets(self) -> None:
        """Drop the chunk sets that held only the replaced spec, but the one this ingest
        writes (their chunks would point at sections that are gone)."""
        db = self.store.db
        for (version,) in db.execute(
            "SELECT version FROM policies p WHERE version IS NOT ? AND NOT EXISTS "
            "(SELECT 1 FROM chunk_rows r WHERE r.policy_version = p.version)",
            [self.into],
        ).fetchall():
            db.execute("DELETE FROM policies WHERE version = ?", [version])
            drop_set_fts(db, version)

    def write_chunk_set(
        self,
        policy: ChunkPolicy,
        chunks: list[Chunk],
        stats: ChunkSetStats,
        cache_writer: Callable[[SpecStore, str], None] | None = None,
    ) -> None:
        """Write the chunk set of ``policy`` (replacing a stored one of the same version) and
        make it the active one; the kept sets' ``heading_mismatches`` become this ingest's
        (they count the same sections). ``cache_writer(store, sections_digest)``, when given,
        runs last (ingest stores its Markdown cache that way:
        :meth:`specbrowser.store.cache.MarkdownCache.save`). Call after :meth:`write_spec`."""
        if self.steps != ["spec"]:
            raise RuntimeError("write_chunk_set before write_spec")
        self.store.sets.insert(
            policy, chunks, stats, self.now, document_id=self.document.id, into=self.into
        )
        if self.outcome in (INGEST_ADDED, INGEST_REPLACED_SET) and self.store.corpus.count() == 1:
            self.store.db.execute(
                "UPDATE policies SET stats = json_set(stats, '$.heading_mismatches', "
                "json(?)) WHERE version != ?",
                [json.dumps(stats.heading_mismatches), policy.version],
            )
        if cache_writer is not None:
            cache_writer(self.store, self.digest)
        self.steps.append("chunk set")

    def write_other_set(self, version: str, policy: ChunkPolicy, chunks: list[Chunk]) -> None:
        """Write the spec's chunks (made under ``policy``, the stored set's policy for this
        spec's format) into the stored set ``version``, beside the other specs' chunks there.
        Call after :meth:`write_chunk_set`."""
        stats = ChunkSetStats()
        self.store.sets.insert(
            policy,
            chunks,
            stats,
            self.now,
            activate=False,
            document_id=self.document.id,
            into=version,
        )


NEW_DATABASE_CACHE_KIB = 2_048
"""Page cache (KiB) of an ingest into a database that holds no spec yet: pages go to the file
as they fill it, much of it while the spec's tables are written beside the breakdown, instead
of all at the commit, which is then shorter. The
exclusive lock it takes early keeps nobody out: there is nothing to read yet. Other ingests and
re-chunks keep :data:`~specbrowser.store.connection.CACHE_KIB`, so readers of a stored spec
wait only for the commit."""


@dataclass
class ChunkSetInfo:
    """One chunk set as ``specbrowser policies`` lists it.

    Attributes:
        version: the policy version it is stored under.
        settings: the policy settings as stored (:meth:`ChunkPolicy.settings` of the code that
            made it, ``converter_version`` included).
        created_at: when it was written (ISO 8601, UTC, seconds).
        active: whether it is the active set.
        chunks: its number of chunks, the document chunk included.
        over_threshold: its chunks over the threshold, counted by reason.
        stats: its statistics as stored (the quality figures: tiny chunks, marker shares,
            mostly-marker chunks; None where the code that made it did not count them).
    """

    version: str
    settings: dict[str, object]
    created_at: str
    active: bool
    chunks: int
    over_threshold: dict[str, int]
    stats: ChunkSetStats = field(default_factory=ChunkSetStats)

    @property
    def converter_version(self) -> int | None:
        """The converter version that made the set (None if the settings lack it)."""
        value = self.settings.get("converter_version")
        return int(value) if isinstance(value, (int, str)) and str(value).isdigit() else None

    @property
    def stale(self) -> bool:
        """Made by another converter version than this code's :data:`CONVERTER_VERSION`: a
        re-ingest with the same options would give other chunks."""
        return self.converter_version != CONVERTER_VERSION


class ChunkSets:
    """The chunk sets (one per policy version), the ingest write and the active set
    (``store.sets``)."""

    def __init__(self, store: SpecStore) -> None:
        self.store = store
        self.db = store.db

    def has(self, policy_version: str) -> bool:
        """Whether a chunk set of this full policy version is stored."""
        return (
            self.db.execute("SELECT 1 FROM policies WHERE version = ?", [policy_version]).fetchone()
            is not None
        )

    def settings(self, policy_version: str) -> dict[str, Any] | None:
        """The stored settings of a chunk set's policy (as its code wrote them), None when no
        such set is stored."""
        row = self.db.execute(
            "SELECT settings FROM policies WHERE version = ?", [policy_version]
        ).fetchone()
        return json.loads(row[0] or "{}") if row else None

    def set_stats(
        self,
        policy_version: str,
        stats: ChunkSetStats,
        parts: Mapping[str, tuple[str, StatsPart]] | None = None,
    ) -> None:
        """Replace the stats stored with the set ``policy_version`` (call inside a
        transaction); ``parts``, when given, are kept with them under the key ``parts``
        (document id → ``[digest of its rows, StatsPart]``: :meth:`stats_parts`), which
        :meth:`ChunkSetStats.from_dict` ignores."""
        data = stats.to_dict()
        if parts:
            data["parts"] = {
                document_id: [digest, part.to_dict()]
                for document_id, (digest, part) in parts.items()
            }
        self.db.execute(
            "UPDATE policies SET stats = ? WHERE version = ?",
            [json.dumps(data), policy_version],
        )

    def stats_parts(self, policy_version: str) -> dict[str, tuple[str, StatsPart]]:
        """Each spec's :class:`~specbrowser.chunking.stats.StatsPart` stored with the set's
        stats by :meth:`set_stats`, with the digest of the spec's rows it was counted from
        (:meth:`specbrowser.store.database.SpecStore.rows_digests`); {} when none is stored or
        they cannot be read (an older or damaged object: they are counted again)."""
        kept = (self._stored_stats(policy_version) or {}).get("parts")
        if not isinstance(kept, dict):
            return {}
        try:
            return {
                str(document_id): (str(digest), StatsPart.from_dict(part))
                for document_id, (digest, part) in kept.items()
            }
        except (ValueError, TypeError, KeyError, AttributeError):
            return {}

    def stats(self, policy_version: str) -> dict[str, Any] | None:
        """The stats recorded when a chunk set was made (:meth:`ChunkSetStats.to_dict`'s
        object, without the specs' parts :meth:`set_stats` may keep with it), None when no
        such set is stored."""
        data = self._stored_stats(policy_version)
        if data is not None:
            data.pop("parts", None)
        return data

    def _stored_stats(self, policy_version: str) -> dict[str, Any] | None:
        row = self.db.execute(
            "SELECT stats FROM policies WHERE version = ?", [policy_version]
        ).fetchone()
        return json.loads(row[0] or "{}") if row else None

    @contextmanager
    def begin_ingest(
        self,
        document: Document,
        sections: list[Section],
        policy_version: str,
        *,
        identity: SpecIdentity | None = None,
        prepare: Callable[[CorpusPlace], list[Section]] | None = None,
        into: str | None = None,
    ) -> Iterator[IngestWrite]:
        """Begin an ingest's one write transaction and say what it will do (the yielded
        :class:`IngestWrite`'s ``outcome``), for the spec ``document`` whose identity is
        ``identity`` (:func:`specbrowser.store.corpus.same_spec`):

        - the database holds no spec: ``created``;
        - it holds this spec already (same ``sha256`` of the source bytes and same
          :func:`sections_digest`): the spec's chunks of ``policy_version`` are added (a new set,
          only while the database holds this spec alone), or replace its chunks in the stored
          set of that version; the other sets stay;
        - it holds this spec with other bytes: ``replaced_spec``, only its rows replaced;
        - it holds other specs only: ``added_spec``.

        ``prepare(place)``, when given, runs first in the transaction and returns the sections
        as they will be stored (the session prefixes ids other specs have, and numbers the
        ordinals from the spec's place: :mod:`specbrowser.session.corpus`). ``into`` is the
        stored set the chunks go into (default: ``policy_version``).

        The caller writes both steps inside the ``with`` block; it commits when the block ends
        (an unfinished write is a programming error: ``RuntimeError``, rolled back). Readers see
        the old state or the new one, never half; an exception (Ctrl-C included) rolls back and
        leaves the database as it was.

        Raises:
            DatabaseError: the database is locked or cannot be written.
            SpecInputError: a new chunk set for one spec of a corpus of several (a re-chunk
                makes sets for the whole corpus).
        """
        now = datetime.now(timezone.utc).isoformat(timespec="seconds")
        into = into or policy_version
        with self.store.transaction(f"{document.title!r} with chunk set {into} (active)"):
            place = self.store.corpus.place(identity or SpecIdentity(), document.title)
            if prepare is not None:
                sections = prepare(place)
            matched = place.matched
            outcome: IngestOutcome
            digest = None  # the sections' digest only tells the same bytes parsed otherwise apart
            if matched is None:
                outcome = INGEST_CREATED if self.store.corpus.count() == 0 else INGEST_ADDED_SPEC
            elif (
                matched.sha256 != document.sha256
                or (digest := sections_digest(sections)) != matched.sections_sha256
            ):
                outcome = INGEST_REPLACED_SPEC
            elif self.has(into):
                outcome = INGEST_REPLACED_SET
            else:
                outcome = INGEST_ADDED
                if self.store.corpus.count() > 1:
                    raise SpecInputError(
                        f"{self.store.path} holds {self.store.corpus.count()} specs: a chunk set "
                        "covers them all, so a new policy is a re-chunk of the corpus "
                        f"(specbrowser rechunk {self.store.path} …), not an ingest of one spec"
                    )
            write = IngestWrite(
                self.store, document, sections, now, outcome, digest, place=place, into=into
            )
            if outcome == INGEST_CREATED:  # nobody reads a database that holds no spec yet
                self.db.execute(f"PRAGMA cache_size = -{NEW_DATABASE_CACHE_KIB}")  # constants
            try:
                yield write
                if write.steps[:2] != ["spec", "chunk set"]:
                    raise RuntimeError(f"an ingest's write ended after {write.steps or 'no step'}")
                if outcome == INGEST_REPLACED_SPEC and self.store.corpus.count() > 1:
                    self.store.vectors.drop_unused()  # the old version's texts' vectors
            finally:
                if outcome == INGEST_CREATED:
                    self.db.execute(f"PRAGMA cache_size = -{CACHE_KIB}")

    def insert(
        self,
        policy: ChunkPolicy,
        chunks: list[Chunk],
        stats: ChunkSetStats,
        now: str,
        *,
        activate: bool = True,
        copies: CopyPlan | None = None,
        document_id: str | None = None,
        into: str | None = None,
        owners: list[str] | None = None,
    ) -> int:
        """Write (or overwrite) the chunk set ``into`` (default ``policy.version``), call inside a
        transaction.

        With ``document_id`` the chunks are that spec's: only its rows of the set are replaced,
        the other specs' stay (an ingest into a corpus); a stored set keeps its policy row
        (its settings are the corpus's, ``policy`` the spec's format's form of them). Without,
        the whole set is written, ``owners`` giving each chunk's spec (a re-chunk; default: the
        database's one spec).

        With ``activate`` it becomes the active set; without, the active set stays as it was (a set
        that was active and is overwritten stays active). ``now`` is the ISO 8601 creation time.

        Only the texts no stored set has are written, then the set's FTS5 index: one ``texts`` row
        per distinct (title, text, retrieval text); every chunk gets a ``chunk_rows`` row pointing
        at its text. What the chunks share with their section (heading path, TOC path, mismatch,
        section number) is the section's (see :data:`specbrowser.store.schema.CHUNKS_VIEW`). Texts
        no set uses any more (the overwritten set's) are deleted. Returns how many texts were new.

        ``copies`` (a re-chunk's) adds the stored chunk trees it names, renumbered
        (:meth:`specbrowser.store.reuse.StoredTrees.copy`): the set is ``chunks`` plus those.
        """
        version = into or policy.version  # a hash over the settings: computed once
        was_active = (
            self.db.execute(
                "SELECT 1 FROM policies WHERE version = ? AND active = 1", [version]
            ).fetchone()
            is not None
        )
        if activate:
            self.db.execute("UPDATE policies SET active = 0")
        if document_id is None or not self.has(version):
            upsert_row(
                self.db,
                "policies",
                {
                    "version": version,
                    "settings": json.dumps(policy.settings()),
                    "created_at": now,
                    "stats": stats.to_json(),
                    "active": int(activate or was_active),
                },
                "version",
            )
        elif activate or was_active:
            self._set_active(version)
        if document_id is None:
            replaced = self.db.execute(
                "DELETE FROM chunk_rows WHERE policy_version = ?", [version]
            ).rowcount
        else:
            replaced = self.db.execute(
                "DELETE FROM chunk_rows WHERE policy_version = ? AND document_id = ?",
                [version, document_id],
            ).rowcount
        text_ids, new_texts = store_texts(self.db, chunks)
        spec_of = owners or [document_id or self._sole_document()] * len(chunks)
        insert_rows(
            self.db,
            "chunk_rows",
            [
                chunk_row(version, c, i, d or None)
                for c, i, d in zip(chunks, text_ids, spec_of, strict=True)
            ],
        )
        if copies is not None:
            self.store.trees.copy(version, copies)
        if replaced:
            drop_unused_texts(self.db)
        drop_orphan_set_fts(self.db)  # a replaced spec may have dropped sets
        if document_id is None or replaced or not extend_set_fts(self.db, version, document_id):
            build_set_fts(self.db, version)
        return new_texts

    def _sole_document(self) -> str:
        """The document id of a database of one spec ("" for none or several: a write for a
        corpus names each chunk's spec)."""
        rows = self.db.execute("SELECT id FROM documents LIMIT 2").fetchall()
        return str(rows[0][0]) if len(rows) == 1 else ""

    def rebuild_fts(self) -> None:
        """Rebuild every chunk set's FTS5 index from its rows (after a spec was removed)."""
        for (version,) in self.db.execute("SELECT version FROM policies").fetchall():
            build_set_fts(self.db, version)

    def resolve(self, version: str) -> str:
        """The full policy version that ``version`` (a full version or a unique prefix) names,
        without activating anything.

        Raises:
            NotFoundError: no chunk set has that version, or the prefix names several.
        """
        rows = (
            [
                r[0]
                for r in self.db.execute(
                    "SELECT version FROM policies WHERE substr(version, 1, ?) = ? "
                    "ORDER BY version = ? DESC, version",
                    [len(version), version, version],
                )
            ]
            if version
            else []
        )
        if rows and (rows[0] == version or len(rows) == 1):
            return str(rows[0])
        known = ", ".join(rows) if rows else "see: specbrowser policies DB"
        what = "several chunk sets start with" if rows else "no chunk set with policy version"
        raise NotFoundError(f"{what} {version!r} ({known})")

    def activate(self, version: str) -> str:
        """Make the chunk set of a policy version the active one; returns its full version.

        ``version`` is a full policy version or a prefix of exactly one.

        Raises:
            NotFoundError: no chunk set has that version (or the prefix names several).
        """
        chosen = self.resolve(version)
        with self.store.transaction(f"chunk set {chosen} made active"):
            self._set_active(chosen)
        return chosen

    def _set_active(self, version: str) -> None:
        """Make ``version`` (a full version) the one active set (inside the caller's
        transaction)."""
        self.db.execute("UPDATE policies SET active = (version = ?)", [version])

    def delete(
        self, versions: list[str], *, activate: str | None = None
    ) -> list[tuple[str, int, int]]:
        """Delete stored chunk sets other than the active one, all in one transaction: their chunk
        rows, their ``policies`` rows and FTS5 indexes, and the texts no remaining set uses.
        Embeddings and token counts stay: they are keyed by retrieval text and model, and serve
        again if a later set has the same texts. The file keeps its size until
        :meth:`specbrowser.store.SpecStore.vacuum`.

        ``versions`` are full policy versions or prefixes of exactly one each. With ``activate``
        (a version or prefix), that set is made active in the same transaction first, so the set
        active before may be deleted. Returns, per set deleted (repeats once), its full version,
        how many chunks and how many texts went.

        Raises:
            NotFoundError: a version names no chunk set (or several); nothing changes.
            PolicyError: one is the set that is (or would be made) active; nothing changes.
            DatabaseError: the database is locked or read-only; nothing changes.
        """
        active = self.resolve(activate) if activate is not None else self.store.active_version()
        chosen = list(dict.fromkeys(self.resolve(version) for version in versions))
        if active in chosen:
            why = (
                "the set --activate makes active"
                if activate is not None
                else "the active chunk set; activate another one first"
            )
            raise PolicyError(f"cannot delete {active}: it is {why}")
        deleted: list[tuple[str, int, int]] = []
        gone = ", ".join(chosen)
        with self.store.transaction(f"chunk sets deleted ({gone}; active: {active})"):
            if activate is not None:
                self._set_active(active)
            for version in chosen:
                chunks = self.db.execute(
                    "DELETE FROM chunk_rows WHERE policy_version = ?", [version]
                ).rowcount
                self.db.execute("DELETE FROM policies WHERE version = ?", [version])
                drop_set_fts(self.db, version)
                deleted.append((version, chunks, drop_unused_texts(self.db)))
        return deleted

    def section_mismatches(self) -> dict[str, MismatchKind]:
        """Section id → mismatch kind, for the sections whose parser and TOC paths disagree (as the
        ingest reconciled them; a re-chunk's stats count them: they never depend on the policy)."""
        return dict(
            self.db.execute(
                "SELECT id, mismatch FROM sections WHERE mismatch IS NOT NULL"
            ).fetchall()
        )

    def active_policy(self) -> tuple[ChunkPolicy, ChunkSetStats]:
        """The policy whose chunk set is active, and the stats recorded when it was made.

        The policy is rebuilt from its stored settings; for a stale set (made by another converter
        version) its :attr:`ChunkPolicy.version` differs from the stored one, so read the set by
        :meth:`specbrowser.store.SpecStore.active_version`, never by this policy's version.

        Raises:
            NotFoundError: no chunk set exists.
        """
        row = self.db.execute(
            "SELECT settings, stats FROM policies WHERE active = 1 LIMIT 1"
        ).fetchone()
        if row is None:
            raise NotFoundError(NO_CHUNK_SET)
        settings = json.loads(row[0])
        policy = ChunkPolicy.from_settings(settings)
        return policy, ChunkSetStats.from_json(row[1])

    def all(self) -> list[ChunkSetInfo]:
        """Every chunk set in the database, oldest first (then by version). Counts come from the
        rows alone (``chunk_rows``, not the ``chunks`` view's joins)."""
        counts = {
            r[0]: r[1]
            for r in self.db.execute(
                "SELECT policy_version, count(*) FROM chunk_rows GROUP BY policy_version"
            )
        }
        overruns: dict[str, dict[str, int]] = {}
        for version, reason, count in self.db.execute(
            "SELECT policy_version, over_threshold, count(*) FROM chunk_rows "
            "WHERE over_threshold IS NOT NULL GROUP BY policy_version, over_threshold "
            "ORDER BY count(*) DESC, over_threshold"
        ):
            overruns.setdefault(version, {})[reason] = count
        return [
            ChunkSetInfo(
                version=version,
                settings=json.loads(settings or "{}"),
                created_at=created_at or "",
                active=bool(active),
                chunks=counts.get(version, 0),
                over_threshold=overruns.get(version, {}),
                stats=ChunkSetStats.from_json(stats),
            )
            for version, settings, created_at, active, stats in self.db.execute(
                "SELECT version, settings, created_at, active, stats FROM policies "
                "ORDER BY created_at, version"
            )
        ]

    def count(self) -> int:
        """How many chunk sets (policy versions) the database holds."""
        return int(self.db.execute("SELECT count(*) FROM policies").fetchone()[0])
