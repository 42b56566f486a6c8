"""The corpus: the specs a database holds, side by side (``store.corpus``).

Each spec is a ``documents`` row with its ``name`` (its handle in commands and the prefix that
tells its ids apart), its identity (``canonical_url``, ``shortname``, ``title``:
:func:`same_spec`) and its ``position`` (the order of the corpus). Its sections, chunk rows,
symbols, TOC rows, mismatches and anchor rows carry its ``document_id``.

Section and chunk ids are unique in the database: the first spec keeps its ids; a later spec's
id that another spec already has is stored as ``<name>:<id>`` (:func:`prefixed`), and
:meth:`Corpus.resolve_id` takes either form (``ecma-262:sec-intro`` names ECMA-262's
``sec-intro``). Ordinals are unique too: a spec's sections and chunks are numbered from
``position * ORDINAL_SPAN`` (:data:`specbrowser.model.ORDINAL_SPAN`).

Every statement is parameterized; writes happen inside the caller's transaction.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

from specbrowser.errors import NotFoundError
from specbrowser.model import (
    DOCUMENT_CHUNK_ID,
    PREFIX_SEPARATOR,
    SpecIdentity,
    prefixed,
)
from specbrowser.store.rows import drop_unused_texts
from specbrowser.store.schema import drop_orphan_set_fts

if TYPE_CHECKING:
    from specbrowser.store.database import SpecStore


def spec_name(shortname: str | None, title: str, taken: set[str]) -> str:
    """A spec's handle: its shortname, else its title, in lower case with every run of other
    characters than letters and digits made one ``-`` (``ECMA-262`` → ``ecma-262``, ``Import
    Attributes`` → ``import-attributes``), made unique against ``taken`` by ``-2``, ``-3`` …"""
    base = re.sub(r"[^a-z0-9]+", "-", (shortname or title).casefold()).strip("-") or "spec"
    name, n = base, 1
    while name in taken:
        n += 1
        name = f"{base}-{n}"
    return name


def same_spec(stored: SpecRow, identity: SpecIdentity, title: str) -> bool:
    """Whether a spec read now (``identity``, ``title``) is the stored one: by canonical URL
    when both have one, else by shortname (any case) when both have one, else by title."""
    if stored.canonical_url and identity.canonical_url:
        return stored.canonical_url.rstrip("/") == identity.canonical_url.rstrip("/")
    if stored.shortname and identity.shortname:
        return stored.shortname.casefold() == identity.shortname.casefold()
    return stored.title == title


class SpecRow(NamedTuple):
    """One spec of the corpus as stored.

    Attributes:
        id: the document id (:attr:`specbrowser.model.Document.id`).
        name: its handle and id prefix (:func:`spec_name`).
        title, kind: as :class:`~specbrowser.model.Document` holds them.
        shortname, canonical_url: its identity (None where the spec does not say).
        position: its place in the corpus (0: the first spec stored).
        sha256: of its source bytes; ``sections_sha256``: of its stored sections.
    """

    id: str
    name: str
    title: str
    kind: str
    shortname: str | None
    canonical_url: str | None
    position: int
    sha256: str
    sections_sha256: str

    @property
    def document_chunk_id(self) -> str:
        """The id of its document chunk: :data:`DOCUMENT_CHUNK_ID` for the first spec, else
        the id prefixed with its name."""
        return DOCUMENT_CHUNK_ID if self.position == 0 else prefixed(self.name, DOCUMENT_CHUNK_ID)


class SpecListing(NamedTuple):
    """One line of ``specbrowser specs``: a spec and what the active set holds of it.

    Attributes:
        spec: the stored spec.
        sections: its sections.
        chunks: its chunks in the active set (document chunk included).
        embedded: of those, how many have a vector under the database's model.
    """

    spec: SpecRow
    sections: int
    chunks: int
    embedded: int

    @property
    def embedded_share(self) -> float:
        """``embedded / chunks`` (0.0 without chunks)."""
        return self.embedded / self.chunks if self.chunks else 0.0


_SPEC_COLUMNS = "id, name, title, kind, shortname, canonical_url, position, sha256, sections_sha256"


class Corpus:
    """The specs of one database (``store.corpus``)."""

    def __init__(self, store: SpecStore) -> None:
        self.store = store
        self.db = store.db

    def all(self) -> list[SpecRow]:
        """Every stored spec, in corpus order."""
        return [
            SpecRow(*row)
            for row in self.db.execute(
                f"SELECT {_SPEC_COLUMNS} FROM documents ORDER BY position, rowid"  # constants
            )
        ]

    def count(self) -> int:
        """How many specs the database holds."""
        return int(self.db.execute("SELECT count(*) FROM documents").fetchone()[0])

    def get(self, name: str) -> SpecRow:
        """The spec named ``name`` (its name, else its shortname or title in any case).

        Raises:
            NotFoundError: no spec has that name; the message lists the names.
        """
        specs = self.all()
        wanted = name.casefold()
        for spec in specs:
            if spec.name == name:
                return spec
        for spec in specs:
            if wanted in (spec.name, (spec.shortname or "").casefold(), spec.title.casefold()):
                return spec
        known = ", ".join(s.name for s in specs) or "none: the database holds no spec"
        raise NotFoundError(f"no spec named {name!r} (specs: {known})")

    def of_document(self, document_id: str) -> SpecRow | None:
        """The spec whose document id is ``document_id``, or None."""
        row = self.db.execute(
            f"SELECT {_SPEC_COLUMNS} FROM documents WHERE id = ?",  # constants
            [document_id],
        ).fetchone()
        return SpecRow(*row) if row else None

    def matching(self, identity: SpecIdentity, title: str) -> SpecRow | None:
        """The stored spec that is the spec read now (:func:`same_spec`), or None."""
        return next((s for s in self.all() if same_spec(s, identity, title)), None)

    def place(self, identity: SpecIdentity, title: str) -> CorpusPlace:
        """Where a spec read now (``identity``, ``title``) goes: the stored spec it is, with
        its name and position, else a new name and the next position; and the ids it must not
        repeat."""
        matched = self.matching(identity, title)
        if matched is not None:
            return CorpusPlace(
                matched,
                matched.name,
                matched.position,
                identity,
                frozenset(self.other_ids(matched.id)),
            )
        return CorpusPlace(
            None,
            spec_name(identity.shortname, title, self.names()),
            self.next_position(),
            identity,
            frozenset(self.other_ids(None)),
        )

    def other_ids(self, document_id: str | None) -> set[str]:
        """The section ids of every spec but ``document_id`` (with their document chunks'
        ids): what a spec's ids must not repeat."""
        ids = {
            str(row[0])
            for row in self.db.execute(
                "SELECT id FROM sections WHERE document_id IS NOT ?", [document_id]
            )
        }
        ids |= {s.document_chunk_id for s in self.all() if s.id != document_id}
        return ids

    def next_position(self) -> int:
        """The position a spec added now takes (one past the last)."""
        row = self.db.execute("SELECT max(position) FROM documents").fetchone()
        return 0 if row[0] is None else int(row[0]) + 1

    def names(self) -> set[str]:
        """Every stored spec's name."""
        return {str(r[0]) for r in self.db.execute("SELECT name FROM documents")}

    def delete_rows(self, document_id: str) -> None:
        """Delete everything of one spec: its sections, its chunk rows in every set, its
        symbols, TOC and mismatches, and the texts no set uses any more (call
        inside a transaction; the ``documents`` row stays, for the caller to update or
        delete). Embeddings stay: they are keyed by text and model."""
        for table in ("sections",):
            self.db.execute(f"DELETE FROM [{table}] WHERE document_id = ?", [document_id])
        for table in ("chunk_rows", "symbols", "toc_nodes", "mismatches"):
            self.db.execute(f"DELETE FROM [{table}] WHERE document_id = ?", [document_id])

    def remove(self, name: str, then: Callable[[], None] | None = None) -> tuple[SpecRow, int]:
        """Remove the spec named exactly ``name`` (its name as ``specbrowser specs`` lists it)
        with its chunks in every set, in one transaction; every set's FTS5 index is rebuilt
        without its texts, and ``then`` runs last in the same transaction (the session
        recounts the sets' stats there). Returns the spec and how many chunk rows went. The
        chunk sets stay (empty when it was the last spec).

        Raises:
            NotFoundError: no spec has exactly that name.
            DatabaseError: the database is locked or read-only; nothing changes.
        """
        spec = next((s for s in self.all() if s.name == name), None)
        if spec is None:
            known = ", ".join(s.name for s in self.all()) or "none"
            raise NotFoundError(f"no spec named {name!r} (specs: {known}; see: specbrowser specs)")
        with self.store.transaction(f"spec {name!r} removed"):
            (chunks,) = self.db.execute(
                "SELECT count(*) FROM chunk_rows WHERE document_id = ?", [spec.id]
            ).fetchone()
            self.delete_rows(spec.id)
            self.db.execute("DELETE FROM documents WHERE id = ?", [spec.id])
            drop_unused_texts(self.db)
            self.store.sets.rebuild_fts()
            drop_orphan_set_fts(self.db)
            if then is not None:
                then()
        return spec, int(chunks)

    def resolve_id(self, text: str, version: str) -> str | None:
        """The stored chunk id that ``text`` names in the set ``version``: ``text`` itself when
        a chunk has it, else for ``<name>:<id>`` the chunk ``<id>`` or ``<name>:<id>`` of that
        spec; None when neither is a chunk."""
        if self._chunk_exists(text, version):
            return text
        name, sep, rest = text.partition(PREFIX_SEPARATOR)
        if not sep or not rest:
            return None
        spec = next((s for s in self.all() if s.name == name), None)
        if spec is None:
            return None
        for candidate in (rest, prefixed(name, rest)):
            row = self.db.execute(
                "SELECT 1 FROM chunk_rows WHERE policy_version = ? AND id = ? AND document_id IS ?",
                [version, candidate, spec.id],
            ).fetchone()
            if row:
                return candidate
        return None

    def _chunk_exists(self, chunk_id: str, version: str) -> bool:
        return (
            self.db.execute(
                "SELECT 1 FROM chunk_rows WHERE policy_version = ? AND id = ?", [version, chunk_id]
            ).fetchone()
            is not None
        )

    def listing(self, version: str | None, model: str | None) -> list[SpecListing]:
        """Every spec with its section count and, in the set ``version`` (None: no set), its
        chunk count and how many of those have a ``model`` vector."""
        sections = dict(
            self.db.execute("SELECT document_id, count(*) FROM sections GROUP BY document_id")
        )
        chunks: dict[str, int] = {}
        embedded: dict[str, int] = {}
        if version is not None:
            chunks = dict(
                self.db.execute(
                    "SELECT document_id, count(*) FROM chunk_rows WHERE policy_version = ? "
                    "GROUP BY document_id",
                    [version],
                )
            )
            if model is not None and self.db["embeddings"].exists():
                embedded = dict(
                    self.db.execute(
                        "SELECT r.document_id, count(*) FROM chunk_rows r "
                        "JOIN texts t ON t.id = r.text_id JOIN embeddings e "
                        "ON e.content_hash = t.content_hash AND e.model = ? "
                        "WHERE r.policy_version = ? GROUP BY r.document_id",
                        [model, version],
                    )
                )
        return [
            SpecListing(
                spec, sections.get(spec.id, 0), chunks.get(spec.id, 0), embedded.get(spec.id, 0)
            )
            for spec in self.all()
        ]

    def of_chunk(self, version: str, chunk_id: str) -> SpecRow | None:
        """The spec holding the chunk ``chunk_id`` of the set ``version``, or None (no such
        chunk)."""
        row = self.db.execute(
            f"SELECT {', '.join('d.' + c for c in _SPEC_COLUMNS.split(', '))} "  # constants
            "FROM chunk_rows r JOIN documents d ON d.id = r.document_id "
            "WHERE r.policy_version = ? AND r.id = ?",
            [version, chunk_id],
        ).fetchone()
        return SpecRow(*row) if row else None

    def chunk_documents(self, version: str, chunk_ids: list[str]) -> dict[str, str]:
        """Chunk id → the name of its spec, for those of ``chunk_ids`` in the set ``version``."""
        if not chunk_ids:
            return {}
        return {
            str(chunk_id): str(name)
            for chunk_id, name in self.db.execute(
                "SELECT r.id, d.name FROM json_each(?) j JOIN chunk_rows r "
                "ON r.policy_version = ? AND r.id = j.value JOIN documents d "
                "ON d.id = r.document_id",
                [json.dumps(chunk_ids), version],
            )
        }

    def spec_of_url(
        self, url: str, url_aliases: Callable[[str], list[str]]
    ) -> tuple[SpecRow, str] | None:
        """The spec a URL points into, with the URL's fragment: the spec whose canonical URL
        (or an alias of it: ``url_aliases(canonical_url)``, the formats' rule,
        :func:`specbrowser.formats.identity.url_aliases`) starts the URL, the longest first; a
        multipage page name after it is ignored (``…/ecma262/multipage/x.html#sec-y`` is
        ECMA-262's ``sec-y``). None without a fragment or a matching spec."""
        base, sep, fragment = url.partition("#")
        if not sep or not fragment:
            return None
        best: tuple[int, SpecRow] | None = None
        for spec in self.all():
            if not spec.canonical_url:
                continue
            for alias in url_aliases(spec.canonical_url):
                stem = alias.rstrip("/")
                if (base in (stem, alias) or base.startswith(stem + "/")) and (
                    best is None or len(stem) > best[0]
                ):
                    best = (len(stem), spec)
        return (best[1], fragment) if best else None


class CorpusPlace(NamedTuple):
    """Where a spec read now goes in the corpus (:meth:`Corpus.place`).

    Attributes:
        matched: the stored spec it is (:func:`same_spec`), or None for another spec.
        name: its name (the matched spec's, else a new one, :func:`spec_name`).
        position: its position (the matched spec's, else one past the last).
        identity: its identity as read now.
        taken: the ids of the other specs' sections and document chunks (its own ids among
            them are stored prefixed, :func:`prefixed`).
    """

    matched: SpecRow | None
    name: str
    position: int
    identity: SpecIdentity
    taken: frozenset[str]

    @property
    def document_chunk_id(self) -> str:
        """The id its document chunk takes."""
        return DOCUMENT_CHUNK_ID if self.position == 0 else prefixed(self.name, DOCUMENT_CHUNK_ID)
