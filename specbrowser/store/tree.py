"""The browser's chunk tree: which chunk each chunk sits under, for one chunk or a whole set.

A chunk's children in the tree are its ``subsections``, in order. So a subsection's tree parent
is its ``parent_id``; a section's root chunk sits under the first chunk (by ordinal) of the
enclosing section whose subsections list it (usually that section's root chunk, but a marker
may have moved into a breakdown subsection), else under the enclosing section's root chunk; the
document chunk and the top-level sections have none. :func:`tree_parent` is that rule, once;
:class:`TreeQueries` feeds it one chunk's rows or a whole set's.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, NamedTuple

from specbrowser.errors import NotFoundError
from specbrowser.store.sqldb import SqlDatabase

Listing = tuple[str, "str | None", int]
"""A chunk that lists another in its subsections: ``(its id, its section id, position)``."""


def tree_parent(
    parent_id: str | None, enclosing_section: str | None, listings: list[Listing]
) -> tuple[str | None, int | None]:
    """The tree parent of a chunk and its position in that parent's subsections (None when the
    parent does not list it, or it has no parent).

    ``parent_id`` is the chunk's, ``enclosing_section`` its section's parent section (None for a
    top-level section or the document chunk), ``listings`` every chunk listing it, by ordinal.
    """
    if parent_id is not None:
        return parent_id, next((p for c, _s, p in listings if c == parent_id), None)
    if enclosing_section is not None:
        holder = next(((c, p) for c, s, p in listings if s == enclosing_section), None)
        return (holder[0], holder[1]) if holder else (enclosing_section, None)
    return None, None


class TreeParents(NamedTuple):
    """The tree shape of one chunk set.

    Attributes:
        parents: chunk id → its tree parent (chunks at the top level are left out).
        order: chunk id → a sort key that puts siblings in their parent's subsection order
            (any child its parent does not list after the listed ones, by ordinal).
    """

    parents: dict[str, str]
    order: dict[str, tuple[int, int, int]]


class TreeQueries:
    """:class:`~specbrowser.store.SpecStore` methods for the tree."""

    db: SqlDatabase

    if TYPE_CHECKING:

        def active_version(self) -> str: ...  # SpecStore's (ChunkReads)

    def tree_parents(self, policy_version: str) -> TreeParents:
        """Every chunk's tree parent in the set (full version), reading no text."""
        section_parent = dict(self.db.execute("SELECT id, parent_id FROM sections").fetchall())
        rows = self.db.execute(
            "SELECT id, section_id, parent_id, subsections, ordinal FROM chunk_rows "
            "WHERE policy_version = ? ORDER BY ordinal",
            [policy_version],
        ).fetchall()
        listed_by: dict[str, list[Listing]] = {}
        for chunk_id, section_id, _parent, subsections, _ordinal in rows:
            for index, child in enumerate(json.loads(subsections or "[]")):
                listed_by.setdefault(child, []).append((chunk_id, section_id, index))
        parents: dict[str, str] = {}
        order: dict[str, tuple[int, int, int]] = {}
        for chunk_id, section_id, parent_id, _subsections, ordinal in rows:
            enclosing = section_parent.get(section_id) if section_id is not None else None
            parent, position = tree_parent(parent_id, enclosing, listed_by.get(chunk_id, []))
            if parent is not None:
                parents[chunk_id] = parent
            elif position is None:
                position = ordinal  # the top level: the document chunk, then sections in order
            order[chunk_id] = (
                (0, position, ordinal) if position is not None else (1, ordinal, ordinal)
            )
        return TreeParents(parents, order)

    def tree_parent_id(self, chunk_id: str, policy_version: str | None = None) -> str | None:
        """The chunk whose ``subsections`` list ``chunk_id`` in the set (full version; the active
        one by default): its parent in the browser's tree, None for a top-level section and for
        the document chunk (the rule: :func:`tree_parent`).

        Raises:
            NotFoundError: no chunk with that id.
        """
        row = self.db.execute(
            "SELECT r.parent_id, s.parent_id FROM chunk_rows r "
            "LEFT JOIN sections s ON s.id = r.section_id "
            "WHERE r.policy_version = ? AND r.id = ?",
            [policy_version or self.active_version(), chunk_id],
        ).fetchone()
        if row is None:
            raise NotFoundError(f"no chunk or section with id {chunk_id!r}")
        parent_id, enclosing = row
        listings: list[Listing] = []
        if parent_id is None and enclosing is not None:
            listings = [
                (c, s, int(p))
                for c, s, p in self.db.execute(
                    "SELECT c.id, c.section_id, j.key "
                    "FROM chunk_rows c, json_each(c.subsections) j "
                    "WHERE c.policy_version = ? AND c.section_id = ? AND j.value = ? "
                    "ORDER BY c.ordinal",
                    [policy_version, enclosing, chunk_id],
                )
            ]
        return tree_parent(parent_id, enclosing, listings)[0]
