"""Pages of ``fetch_section_chunks``: a chunk and its descendants, cut into pages of at most
``max_chars`` characters of text, never losing or repeating a character.

A page takes whole chunks in order while their texts fit; a chunk that does not fit on an empty
page (or that would start in the page's first half) is split, after the last line that ends in
the second half of what is left of the page, else at the page's end, and its rest continues on
the next page (its parts say which characters they hold). The cursor names the chunk set, the
chunk fetched and where the next page starts, so later pages read the same set even if another
shell activates another one meanwhile.
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass

from specbrowser.errors import PolicyError
from specbrowser.model import Chunk

DEFAULT_PAGE_CHARS, MIN_PAGE_CHARS, MAX_PAGE_CHARS = 20_000, 1_000, 200_000
"""A page's size in characters of chunk text (``max_chars``): default, bounds."""


@dataclass(frozen=True)
class Cursor:
    """Where a page starts.

    Attributes:
        version: the full policy version of the set being read.
        chunk_id: the chunk fetched (the root of the walk).
        index: the 0-based position, in the walk, of the page's first chunk.
        offset: the character offset in that chunk's text where the page starts.
    """

    version: str
    chunk_id: str
    index: int
    offset: int

    def encode(self) -> str:
        """The opaque string handed to the client (URL-safe base64 of a JSON array)."""
        raw = json.dumps([self.version, self.chunk_id, self.index, self.offset])
        return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")

    @classmethod
    def decode(cls, text: str, chunk_id: str) -> Cursor:
        """Read a cursor this module made for ``chunk_id``.

        Raises:
            PolicyError: not such a cursor, or one made for another chunk.
        """
        try:
            raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
            version, root, index, offset = json.loads(raw)
            cursor = cls(str(version), str(root), int(index), int(offset))
        except (binascii.Error, ValueError, TypeError, UnicodeDecodeError):
            raise PolicyError(
                "the cursor is not one this server gave (pass next_cursor as it came, or "
                "leave it out for the first page)"
            ) from None
        if cursor.chunk_id != chunk_id or cursor.index < 0 or cursor.offset < 0:
            raise PolicyError(
                f"the cursor was given for {cursor.chunk_id!r}, not for {chunk_id!r}: pass the "
                "same id as on the first page"
            )
        return cursor


@dataclass(frozen=True)
class Part:
    """The characters ``[start, end)`` of a chunk's text that a page carries."""

    chunk: Chunk
    start: int
    end: int


def page(
    chunks: list[Chunk], index: int, offset: int, max_chars: int
) -> tuple[list[Part], int, int]:
    """The parts of ``chunks`` (the walk) on the page starting at chunk ``index``, character
    ``offset``, with at most ``max_chars`` characters of text (at least one character when any
    is left); returns them with the index and offset where the next page starts (``index ==
    len(chunks)``: none).

    Raises:
        PolicyError: ``index`` or ``offset`` beyond the walk (a cursor from a changed set).
    """
    if index > len(chunks) or (index < len(chunks) and offset > chunks[index].size):
        raise PolicyError(
            "the cursor points past the chunks (the chunk set changed?); fetch from the start"
        )
    parts: list[Part] = []
    budget = max_chars
    while index < len(chunks):
        chunk = chunks[index]
        rest = chunk.size - offset
        if rest <= budget:
            parts.append(Part(chunk, offset, chunk.size))
            budget -= rest
            index, offset = index + 1, 0
            continue
        if parts and (budget <= 0 or budget < max_chars // 2):
            break  # the chunk starts the next page rather than being cut near this page's end
        end = offset + budget
        line_end = chunk.text.rfind("\n", offset, end)
        if line_end > offset + budget // 2:
            end = line_end + 1  # cut after a whole line when one ends in the page's second half
        parts.append(Part(chunk, offset, end))
        offset = end
        break
    return parts, index, offset
