"""How the breakdown measures a text against the threshold, in the policy's unit.

In characters (the default unit) a chunk's size is ``len`` of its Markdown, markers included:
:data:`CHARS`. In tokens it is what the embedding model's window counts: the tokens of the
chunk's retrieval text (:func:`specbrowser.chunking.labels.retrieval_text`), special tokens
included. The breakdown sees the chunk's Markdown, not the retrieval text, so a section's
:class:`Sizer` adds the tokens of the header lines the section's chunks get (``Document:``,
``Section:``, ``Content:``) and, for a subsection, of its ``Part:`` line
(:meth:`Sizer.for_part`); while a tag pass weighs subsections not yet named, it allows
:data:`PART_LINE_TOKENS` for the name (:meth:`Sizer.for_children`). The chunking library does
not tokenize: the caller hands it a :class:`TokenMeasure` (the session builds one from the
embedding model's tokenizer).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from specbrowser.chunking.labels import part_line, retrieval_header

SECTION_SUMMARY_TOKENS = 72
"""Tokens allowed for a ``Section summary:`` line while a section is broken down under a
threshold in tokens: its label and a summary of at most
:data:`~specbrowser.chunking.summaries.SECTION_SUMMARY_CHARS` characters (English prose runs
about 4 characters per WordPiece token; identifiers and symbols run shorter)."""

PART_LINE_TOKENS = 40
"""Tokens allowed for the name a subsection adds to its ``Part:`` line (``… > rows 12–40``)
while a tag pass weighs it, before it is named. The names of ECMA-262's subsections are 2–60
tokens (a grammar block is titled by its nonterminals), most under 20."""


@dataclass(frozen=True)
class Sizer:
    """Sizes in the threshold's unit.

    Attributes:
        measure: the size of one text: ``len`` (characters), or a token count with the special
            tokens a tokenizer adds to every text.
        overhead: what every chunk of the section adds to its Markdown's size (tokens of the
            retrieval header; 0 in characters).
        specials: what ``measure`` gives an empty text (a tokenizer's ``[CLS] [SEP]``: 2; 0 in
            characters): counted once per chunk, not once per part.
        joins: whether the newlines that join parts count (characters: yes; a tokenizer makes
            no token of a newline).
    """

    measure: Callable[[str], int] = len
    overhead: int = 0
    specials: int = 0
    joins: bool = True
    header: int = 0
    """Tokens of the section's header lines without a ``Part:`` line (0 in characters)."""

    def for_part(self, part_path: list[str]) -> Sizer:
        """The sizer of the chunk named by ``part_path`` (:func:`~specbrowser.chunking.enrich.
        part_label` of each subsection from the section's root chunk, excluded, down to it;
        [] for the root chunk): its ``Part:`` line counted. Itself in characters."""
        if self.joins:
            return self
        part = self.measure(part_line(part_path) + "\n") - self.specials if part_path else 0
        return replace(self, overhead=self.header + part)

    def for_children(self, part_path: list[str]) -> Sizer:
        """The sizer of subsections a tag pass makes under the chunk named by ``part_path``,
        before they are named: :data:`PART_LINE_TOKENS` allowed for each one's name."""
        if self.joins:
            return self
        return replace(
            self,
            overhead=self.for_part([*part_path, ""]).overhead + PART_LINE_TOKENS,
        )

    def size(self, text: str) -> int:
        """The size of a chunk whose Markdown is ``text``."""
        return self.measure(text) + self.overhead

    def part(self, text: str) -> int:
        """The size ``text`` adds as one part of a chunk (its special tokens not counted)."""
        return self.measure(text) - self.specials

    def whole(self, parts: int) -> int:
        """The size of a chunk made of parts whose :meth:`part` sizes (and joins) sum to
        ``parts``."""
        return parts + self.specials + self.overhead

    def join(self, newlines: int) -> int:
        """What ``newlines`` newlines between parts add: themselves in characters, 0 in tokens."""
        return newlines if self.joins else 0


CHARS = Sizer()
"""The default unit's sizer: characters, no overhead."""


@dataclass(frozen=True)
class TokenMeasure:
    """A tokenizer, for a threshold in tokens.

    Attributes:
        count: tokens of one text, special tokens included (no truncation).
        document_title: the title the retrieval header's ``Document:`` line names.
        document_summary: the ``Document summary:`` line's text ("" when the policy has no
            summaries).
        section_summary_tokens: tokens allowed for the ``Section summary:`` line, which is
            known only once the section is broken down (0 without summaries).
    """

    count: Callable[[str], int]
    document_title: str
    document_summary: str = ""
    section_summary_tokens: int = 0

    def sizer(self, heading_path: list[str]) -> Sizer:
        """The sizer of a section's root chunk: the header tokens of a chunk under
        ``heading_path`` (its section's, top-level first), the section summary's allowance
        included; :meth:`Sizer.for_part` gives its subsections'."""
        header = retrieval_header(self.document_title, heading_path, [], self.document_summary)
        specials = self.count("")
        overhead = self.count(header) - specials + self.section_summary_tokens
        return Sizer(self.count, overhead=overhead, specials=specials, joins=False, header=overhead)
