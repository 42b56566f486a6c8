"""The advisor's bookkeeping (``store.advice``): which chunk sets it made, and the figures it
reads from stored sets.

The sets the advisor made are listed in the ``meta`` row ``advisor_sets`` (a JSON array of full
policy versions, in the order they were made), so that one command removes them and nothing
else is mistaken for them; a set the user made, or one that was stored before the advisor made
a candidate of the same policy, is never listed. All SQL is parameterized.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence

from specbrowser.store.sqldb import SqlDatabase

_META_KEY = "advisor_sets"


class AdvisorSets:
    """The chunk sets made by ``specbrowser advise`` and the figures it compares sets by."""

    def __init__(self, db: SqlDatabase) -> None:
        self.db = db

    def versions(self) -> list[str]:
        """Full versions of the stored sets the advisor made, oldest first (a listed set that
        was deleted since is left out)."""
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", [_META_KEY]).fetchone()
        listed = json.loads(row[0]) if row and row[0] else []
        stored = {v for (v,) in self.db.execute("SELECT version FROM policies")}
        return [v for v in listed if v in stored]

    def mark(self, version: str) -> None:
        """List ``version`` as made by the advisor; call inside a transaction."""
        self._write([*[v for v in self.versions() if v != version], version])

    def unmark(self, versions: list[str]) -> None:
        """Stop listing ``versions`` (kept sets become the user's); call inside a transaction."""
        gone = set(versions)
        self._write([v for v in self.versions() if v not in gone])

    def _write(self, versions: list[str]) -> None:
        self.db.execute(
            "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
            [_META_KEY, json.dumps(versions)],
        )

    def fingerprint(self, policy_version: str) -> str:
        """A sha256 (16 hex digits) of the set's chunks: each chunk's id, parent and text, in
        order. Two policies whose chunks are the same have the same fingerprint."""
        digest = hashlib.sha256()
        for chunk_id, parent, text_id in self.db.execute(
            "SELECT r.id, coalesce(r.parent_id, ''), t.text_hash FROM chunk_rows r "
            "JOIN texts t ON t.id = r.text_id WHERE r.policy_version = ? ORDER BY r.ordinal",
            [policy_version],
        ):
            digest.update(f"{chunk_id}\0{parent}\0{text_id}\n".encode())
        return digest.hexdigest()[:16]

    def section_sizes(self, policy_version: str) -> list[int]:
        """Each section's size in the set: the characters of its chunks' texts (markers
        included), one value per section, unsorted."""
        return [
            int(size)
            for (size,) in self.db.execute(
                "SELECT sum(t.size) FROM chunk_rows r JOIN texts t ON t.id = r.text_id "
                "WHERE r.policy_version = ? AND r.section_id IS NOT NULL GROUP BY r.section_id",
                [policy_version],
            )
        ]

    def definitions(self, kinds: Sequence[str]) -> list[tuple[str, str]]:
        """Every name of the symbol kinds ``kinds`` with its defining section, ``(name, section
        id)``, in document order; a name defined more than once (under any kind) is listed only
        at its best-ranked, first definition, and only when that one is of ``kinds``."""
        marks = ", ".join("?" * len(kinds))
        return [
            (name, section_id)
            for name, section_id in self.db.execute(
                f"SELECT name, section_id FROM symbols s WHERE kind IN ({marks}) "  # marks only
                "AND NOT EXISTS (SELECT 1 FROM symbols o WHERE o.key = s.key "
                "AND (o.rank, o.ordinal) < (s.rank, s.ordinal)) ORDER BY ordinal",
                list(kinds),
            )
        ]
