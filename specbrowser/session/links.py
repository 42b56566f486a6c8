"""In-text links of chunk texts: where each leads in a chunk set.

The Markdown converter writes a spec's links as ``[text](#id)`` (``[text](<#id>)`` when the id
holds spaces or parentheses; a multipage page name dropped), and links to other documents as
they are (``https://…``, ``other.html#x``). An ``#id`` link whose id is an element of the
document leads to the chunk holding that element
(:func:`specbrowser.session.browse.anchor_chunk`); any other link is *external*.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import unquote

from specbrowser.store import SpecStore

_LINK = re.compile(r"\]\((<[^>\n]*>|[^)\s]+)\)")
"""The target of a Markdown inline link: ``](target)`` or ``](<target>)``."""


def link_hrefs(text: str) -> list[str]:
    """The link targets of a chunk's Markdown, in text order, each once (angle brackets
    removed, ``%3C``/``%3E`` put back as the converter escaped them)."""
    found: dict[str, None] = {}
    for match in _LINK.finditer(text):
        found.setdefault(_unbracket(match.group(1)), None)
    return list(found)


def href_anchor(href: str) -> str | None:
    """The element id an in-document link names (``#id``, percent-decoded), or None for a link
    to another document (a URL, another file)."""
    if href.startswith("#") and len(href) > 1:
        return unquote(href[1:])
    return None


def link_targets(db: SpecStore, anchors: Iterable[str], version: str) -> dict[str, str]:
    """Anchor → the chunk of the set ``version`` holding the element with that id, for each of
    ``anchors`` the document holds. A set without an anchor map (made before they were
    recorded) resolves each anchor on its own by comparing texts (slower)."""
    wanted = list(dict.fromkeys(anchors))
    if db.symbols.has_anchor_map(version):
        return db.symbols.anchor_chunks(version, wanted)
    # deferred: the browse module (14 ms), only for a set made before anchor maps
    from specbrowser.session.browse import anchor_chunk

    found: dict[str, str] = {}
    for anchor in wanted:
        held = anchor_chunk(db, anchor, version)
        if held is not None:
            found[anchor] = held[1]
    return found


@dataclass(frozen=True)
class LinkReport:
    """How a chunk set's in-text links resolve (counted per occurrence in chunk texts).

    Attributes:
        links: every link of every chunk text.
        in_document: those of the form ``#id`` (the others are external).
        anchor_in_document: of those, the ones whose id is an element of the document.
        resolved: of those, the ones that lead to a chunk of the set.
        unresolved: up to 20 anchors of the document that lead to no chunk.
    """

    links: int
    in_document: int
    anchor_in_document: int
    resolved: int
    unresolved: list[str]

    @property
    def resolved_share(self) -> float:
        """``resolved / anchor_in_document`` (1.0 when there is none)."""
        return self.resolved / self.anchor_in_document if self.anchor_in_document else 1.0


def link_report(db: SpecStore, version: str) -> LinkReport:
    """Count and resolve every in-text link of the chunk set ``version``; an anchor of the
    document counts as resolved when the chunk it leads to is a chunk of the set."""
    anchors: list[str] = []
    links = 0
    for chunk in db.iter_chunks(version):
        hrefs = [_unbracket(m.group(1)) for m in _LINK.finditer(chunk.text)]
        links += len(hrefs)
        anchors += [a for a in map(href_anchor, hrefs) if a is not None]
    targets = link_targets(db, anchors, version)
    existing = {c.id for c in db.chunks(sorted(set(targets.values())), version)}
    known = {a: a in targets or db.symbols.anchor_section(a) is not None for a in set(anchors)}
    in_document = [a for a in anchors if known[a]]
    resolved = [a for a in in_document if targets.get(a) in existing]
    missing = list(dict.fromkeys(a for a in in_document if targets.get(a) not in existing))
    return LinkReport(links, len(anchors), len(in_document), len(resolved), missing[:20])


def _unbracket(href: str) -> str:
    """A link target without the angle brackets the converter puts around odd ones."""
    if href.startswith("<"):
        return href[1:-1].replace("%3C", "<").replace("%3E", ">")
    return href
