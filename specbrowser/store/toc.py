"""The document's table of contents and the mismatches found against it, in the database.

Kept apart from :mod:`specbrowser.store` (chunks and policies); the same rules hold: every query
is parameterized, writes happen inside the caller's transaction.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from typing import TYPE_CHECKING

from specbrowser.model import TocNode
from specbrowser.store.rows import insert_rows
from specbrowser.types import MismatchKind

if TYPE_CHECKING:
    from specbrowser.chunking.toc_paths import Mismatch
    from specbrowser.store.database import SpecStore


def _toc_rows(
    toc: list[TocNode], document_id: str | None = None, base: int = 0
) -> Iterator[dict[str, object]]:
    counter = base
    stack: list[tuple[TocNode, int | None, int]] = [(n, None, 0) for n in reversed(toc)]
    while stack:
        node, parent, depth = stack.pop()
        row_id = counter
        counter += 1
        yield {
            "id": row_id,
            "parent_id": parent,
            "depth": depth,
            "title": node.title,
            "secnum": node.secnum,
            "target_id": node.target_id,
            "start": node.start,
            "end": node.end,
            "document_id": document_id,
        }
        stack.extend((child, row_id, depth + 1) for child in reversed(node.children))


class TocTables:
    """The stored TOC and its mismatches with the section tree (``store.toc``)."""

    def __init__(self, store: SpecStore) -> None:
        self.store = store
        self.db = store.db

    def replace(
        self,
        toc: list[TocNode],
        mismatches: list[Mismatch],
        document_id: str | None = None,
        base: int = 0,
    ) -> None:
        """Replace the stored TOC and mismatches of the spec ``document_id`` (None: of every
        spec), their row ids numbered from ``base`` (call inside a transaction)."""
        for table in ("toc_nodes", "mismatches"):
            self.db.execute(
                f"DELETE FROM [{table}] WHERE ? IS NULL OR document_id = ?",  # constants
                [document_id, document_id],
            )
        insert_rows(self.db, "toc_nodes", list(_toc_rows(toc, document_id, base)))
        insert_rows(
            self.db,
            "mismatches",
            [
                {
                    "id": base + i,
                    "kind": m.kind,
                    "section_id": m.section_id,
                    "parser_path": json.dumps(m.parser_path, ensure_ascii=False),
                    "toc_path": json.dumps(m.toc_path, ensure_ascii=False),
                    "document_id": document_id,
                }
                for i, m in enumerate(mismatches)
            ],
        )

    def load(self) -> list[TocNode]:
        """The stored TOC as a tree (top-level nodes)."""
        nodes: dict[int, TocNode] = {}
        roots: list[TocNode] = []
        for row_id, parent, title, secnum, target, start, end in self.db.execute(
            "SELECT id, parent_id, title, secnum, target_id, start, [end] FROM toc_nodes "
            "ORDER BY id"
        ):
            node = TocNode(title=title, secnum=secnum or "", target_id=target, start=start, end=end)
            nodes[row_id] = node
            (roots if parent is None else nodes[parent].children).append(node)
        return roots

    def mismatches(self, kind: MismatchKind | None = None) -> list[Mismatch]:
        """The stored mismatches in document order, all or of one ``kind``."""
        # deferred: the TOC reconciliation (2 ms), which opening a database does not need
        from specbrowser.chunking.toc_paths import Mismatch

        query = "SELECT kind, section_id, parser_path, toc_path FROM mismatches"
        args: list[object] = []
        if kind:
            query += " WHERE kind = ?"
            args.append(kind)
        return [
            Mismatch(k, s, json.loads(p), json.loads(t))
            for k, s, p, t in self.db.execute(query + " ORDER BY id", args)
        ]

    def mismatch_counts(self) -> dict[MismatchKind, int]:
        """How many mismatches of each kind (kinds with none are left out)."""
        return dict(
            Counter(k for (k,) in self.db.execute("SELECT kind FROM mismatches")).most_common()
        )

    def size(self) -> int:
        """How many TOC entries are stored (0: the document had no TOC)."""
        return int(self.db.execute("SELECT count(*) FROM toc_nodes").fetchone()[0])
