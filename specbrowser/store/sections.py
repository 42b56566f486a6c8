"""The stored spec: its document row and its sections (by id, by number, by title, in order)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, NamedTuple

from specbrowser.chunking.labels import section_ordinal
from specbrowser.errors import NotFoundError
from specbrowser.model import Document, Section
from specbrowser.store.chunks import CHUNK_COLUMNS, NO_CHUNK_SET  # noqa: F401  (re-exported)
from specbrowser.store.rows import (
    select_in,
)
from specbrowser.store.schema import (  # noqa: F401  (re-exported)
    FTS_TOKENIZER,
    SCHEMA_VERSION,
)

if TYPE_CHECKING:
    from specbrowser.store.database import SpecStore


class OutlineRow(NamedTuple):
    """One section as an outline lists it (no HTML).

    Attributes:
        id, parent_id, depth: the section and its place in the tree (depth 0: top level).
        secnum, title: as :class:`~specbrowser.model.Section` holds them.
        heading_path: the parser's path of display titles, top-level section first.
        toc_path: the TOC's path (None when the TOC gives none).
        mismatch: how the two disagree (a :data:`~specbrowser.types.MismatchKind`), or None.
    """

    id: str
    parent_id: str | None
    depth: int
    secnum: str
    title: str
    heading_path: list[str]
    toc_path: list[str] | None
    mismatch: str | None


class Sections:
    """The document and its sections (``store.sections``)."""

    def __init__(self, store: SpecStore) -> None:
        self.store = store
        self.db = store.db

    def digest(self) -> str | None:
        """The stored spec's sections digest (:func:`specbrowser.store.sets.sections_digest`), None
        when the database holds no spec."""
        row = self.db.execute(
            "SELECT sections_sha256 FROM documents ORDER BY position, rowid LIMIT 1"
        ).fetchone()
        return row[0] if row else None

    def count(self, document_id: str | None = None) -> int:
        """How many sections the stored specs have (the spec ``document_id``: it alone)."""
        return int(
            self.db.execute(
                "SELECT count(*) FROM sections WHERE ? IS NULL OR document_id = ?",
                [document_id, document_id],
            ).fetchone()[0]
        )

    def exists(self, section_id: str) -> bool:
        """Whether a section has this id."""
        return (
            self.db.execute("SELECT 1 FROM sections WHERE id = ?", [section_id]).fetchone()
            is not None
        )

    def order(self) -> list[tuple[str, str, int]]:
        """Every section as ``(id, display title, ordinal)``, in document order."""
        return [
            (r[0], r[1], r[2])
            for r in self.db.execute(
                "SELECT id, trim(secnum || ' ' || title), ordinal FROM sections ORDER BY ordinal"
            )
        ]

    def spec_names(self) -> dict[str, str]:
        """Section id → the name of the spec it belongs to (:mod:`specbrowser.store.corpus`)."""
        return dict(
            self.db.execute(
                "SELECT s.id, d.name FROM sections s JOIN documents d ON d.id = s.document_id"
            ).fetchall()
        )

    def source_files(self) -> dict[str, str]:
        """Section id → the source file it came from."""
        return dict(self.db.execute("SELECT id, source_file FROM sections").fetchall())

    def first_source_file(self, document_id: str | None = None) -> str:
        """The source file of the first section (of the spec ``document_id`` when given; ""
        when there is none)."""
        row = self.db.execute(
            "SELECT source_file FROM sections WHERE (? IS NULL OR document_id = ?) "
            "ORDER BY ordinal LIMIT 1",
            [document_id, document_id],
        ).fetchone()
        return row[0] if row else ""

    def document_of(self, document_id: str) -> Document:
        """The stored spec whose document id is ``document_id``.

        Raises:
            NotFoundError: no such spec.
        """
        row = self.db.execute(
            "SELECT id, title, kind, source_paths, sha256 FROM documents WHERE id = ?",
            [document_id],
        ).fetchone()
        if row is None:
            raise NotFoundError(f"no spec with document id {document_id!r}")
        return Document(
            id=row[0], title=row[1], kind=row[2], source_paths=json.loads(row[3]), sha256=row[4]
        )

    def document(self) -> Document:
        """The spec held by this database (the first of a corpus).

        Raises:
            NotFoundError: the database holds no spec yet.
        """
        row = self.db.execute(
            "SELECT id, title, kind, source_paths, sha256 FROM documents "
            "ORDER BY position, rowid LIMIT 1"
        ).fetchone()
        if row is None:
            raise NotFoundError(
                "the database holds no spec yet (run: specbrowser ingest SPEC --db FILE)"
            )
        return Document(
            id=row[0], title=row[1], kind=row[2], source_paths=json.loads(row[3]), sha256=row[4]
        )

    def get(self, section_id: str) -> Section:
        """One section row.

        Raises:
            NotFoundError: no section with that id.
        """
        row = self.db.execute(
            "SELECT id, parent_id, ordinal, depth, kind, secnum, title, html, source_file "
            "FROM sections WHERE id = ?",
            [section_id],
        ).fetchone()
        if row is None:
            raise NotFoundError(f"no section with id {section_id!r}")
        return Section(*row)

    def all(self, *, html: bool = True, document_id: str | None = None) -> list[Section]:
        """Every stored section (of the spec ``document_id``, None: of the corpus) in document
        order (parents before children): the input of a re-chunk
        (:func:`specbrowser.session.ingest.chunk_sections`). With ``html=False`` each
        :attr:`Section.html` is "" (read it where needed with :meth:`Sections.html`)."""
        html_column = "html" if html else "''"  # a constant either way, never input
        # without the HTML, the sections_outline index covers the query
        rows = self.db.execute(
            "SELECT id, parent_id, ordinal, depth, kind, secnum, title, "
            f"{html_column}, source_file FROM sections "
            "WHERE ? IS NULL OR document_id = ? ORDER BY ordinal",
            [document_id, document_id],
        )
        return [Section(*row) for row in rows]

    def html(self, section_ids: list[str]) -> dict[str, str]:
        """The stored own HTML of the given sections (ids that do not exist are left out)."""
        return dict(
            select_in(self.db, "SELECT id, html FROM sections WHERE id IN", [], section_ids)
        )

    def html_contains(self, needle: str) -> bool:
        """Whether any stored section's own HTML contains ``needle`` (a literal substring)."""
        return (
            self.db.execute(
                "SELECT 1 FROM sections WHERE instr(html, ?) > 0 LIMIT 1", [needle]
            ).fetchone()
            is not None
        )

    def html_containing(self, needle: str, document_id: str | None = None) -> list[str]:
        """The own HTML of the sections (of the spec ``document_id``, None: of the corpus) that
        contain ``needle`` (a literal substring), in document order."""
        return [
            html
            for (html,) in self.db.execute(
                "SELECT html FROM sections WHERE (? IS NULL OR document_id = ?) "
                "AND instr(html, ?) > 0 ORDER BY ordinal",
                [document_id, document_id, needle],
            )
        ]

    def resolve(self, text: str, document_id: str | None = None) -> str:
        """The id of the section that ``text`` names: its id, else its number as the spec prints it
        (``14.6``, ``14.6.``, ``B.1.2``, ``Annex B``; matched against the stored section number,
        :func:`specbrowser.chunking.labels.section_ordinal`), the first in document order; with
        ``document_id``, in that spec only.

        Raises:
            NotFoundError: no section has that id or number.
        """
        found = self.numbered(text, document_id)
        if not found:
            raise NotFoundError(f"no section with id or number {text!r}")
        return found[0][0]

    def numbered(self, text: str, document_id: str | None = None) -> list[tuple[str, str]]:
        """``(section id, document id)`` of the section whose id is ``text``, else of every
        section whose number it is (see :meth:`resolve`), in corpus and document order; with
        ``document_id``, of that spec only. A corpus's specs may share numbers (each has a 2.2).
        """
        in_spec = "" if document_id is None else " AND document_id = ?"
        spec: list[object] = [] if document_id is None else [document_id]
        row = self.db.execute(
            f"SELECT id, document_id FROM sections WHERE id = ?{in_spec}", [text, *spec]
        ).fetchone()
        if row:
            return [(str(row[0]), str(row[1]))]
        number = section_ordinal(text.strip())
        if not number:
            return []
        rows = self.db.execute(
            f"SELECT id, document_id FROM sections WHERE section_ordinal = ?{in_spec} "
            "ORDER BY ordinal",
            [number, *spec],
        ).fetchall()
        return [(str(r[0]), str(r[1])) for r in rows]

    def find(self, query: str, limit: int = 50) -> list[tuple[str, str]]:
        """Sections whose id, number or title contains ``query`` (case-insensitive, literal).

        Returns ``(section id, display title)`` pairs, exact id matches first, then document order.
        """
        pattern = "%" + query.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        rows = self.db.execute(
            "SELECT id, trim(secnum || ' ' || title) FROM sections "
            "WHERE id LIKE ? ESCAPE '\\' OR title LIKE ? ESCAPE '\\' "
            "OR (secnum || ' ' || title) LIKE ? ESCAPE '\\' "
            "ORDER BY (id = ?) DESC, ordinal LIMIT ?",
            [pattern, pattern, pattern, query, limit],
        ).fetchall()
        return [(r[0], r[1]) for r in rows]

    def titles(self) -> list[tuple[str, str]]:
        """Every section as ``(section id, display title)``, in document order (the fuzzy jump
        list)."""
        rows = self.db.execute(
            "SELECT id, trim(secnum || ' ' || title) FROM sections ORDER BY ordinal"
        )
        return [(r[0], r[1]) for r in rows]

    def with_anchor(self, anchor: str) -> str | None:
        """The id of the section whose own HTML holds an element with the id ``anchor`` (a table,
        a grammar production, a term's definition …), the last in document order when several
        do; None when none does.

        The attribute is looked for literally (``instr``, not ``LIKE``) as lxml writes it: ``
        id="…"`` with ``&`` (and in XML output ``<``, ``>``) escaped and ``"`` as ``&quot;``, or ``
        id='…'`` when the value holds a ``"``."""
        amp = anchor.replace("&", "&amp;")
        values = {amp, amp.replace("<", "&lt;").replace(">", "&gt;")}
        needles = sorted(
            {f' id="{v.replace(chr(34), "&quot;")}"' for v in values}
            | {f" id='{v}'" for v in values}
        )
        row = self.db.execute(
            "SELECT id FROM sections WHERE "
            + " OR ".join(["instr(html, ?) > 0"] * len(needles))  # a count, never input
            + " ORDER BY ordinal DESC LIMIT 1",
            needles,
        ).fetchone()
        return str(row[0]) if row else None

    def outline(self, document_id: str | None = None) -> list[OutlineRow]:
        """Every section (of the spec ``document_id`` only, when given) with its heading path,
        TOC path and mismatch, in document order."""
        rows = self.db.execute(
            "SELECT id, parent_id, depth, secnum, title, heading_path, toc_path, mismatch "
            "FROM sections WHERE (? IS NULL OR document_id = ?) ORDER BY ordinal",
            [document_id, document_id],
        )
        return [
            OutlineRow(
                id=r[0],
                parent_id=r[1],
                depth=r[2],
                secnum=r[3] or "",
                title=r[4] or "",
                heading_path=json.loads(r[5]) if r[5] else [],
                toc_path=json.loads(r[6]) if r[6] else None,
                mismatch=r[7],
            )
            for r in rows
        ]
