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
from typing import NamedTuple

from specbrowser.chunking.fragments import fragment_keys
from specbrowser.model import Chunk
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
    """The anchor an in-document link names (``#id``: its fragment as written, which
    :func:`link_targets` resolves as a browser does), or None for a link to another document
    (a URL, another file)."""
    if href.startswith("#") and len(href) > 1:
        return href[1:]
    return None


def link_targets(
    db: SpecStore, anchors: Iterable[str], version: str, document_id: str | None = None
) -> dict[str, str]:
    """Anchor → the chunk of the set ``version`` holding the element the anchor names, for each
    of ``anchors`` that names an id of the document ``document_id`` (None: of any spec of the
    corpus, the first in corpus order): the anchor as written, else its percent-decoded form (a
    browser's order, :func:`~specbrowser.chunking.fragments.fragment_keys`). A set without an
    anchor map (made before they were recorded) resolves each anchor on its own by comparing
    texts (slower)."""
    keys = {anchor: fragment_keys(anchor) for anchor in anchors}
    wanted = list(dict.fromkeys(key for found in keys.values() for key in found))
    if db.symbols.has_anchor_map(version):
        held = db.symbols.anchor_chunks(version, wanted, document_id)
        return _by_anchor(keys, held)
    # deferred: the browse module (14 ms), only for a set made before anchor maps
    from specbrowser.session.browse import anchor_chunk

    found: dict[str, str] = {}
    for key in wanted:
        located = anchor_chunk(db, key, version, document_id)
        if located is not None:
            found[key] = located[1]
    return _by_anchor(keys, found)


def _by_anchor(keys: dict[str, tuple[str, ...]], held: dict[str, str]) -> dict[str, str]:
    """Anchor → the chunk of the first of its keys that ``held`` (key → chunk) has."""
    found: dict[str, str] = {}
    for anchor, candidates in keys.items():
        chunk = next((held[key] for key in candidates if key in held), None)
        if chunk is not None:
            found[anchor] = chunk
    return found


class LinkReport(NamedTuple):
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


class InDocumentLink(NamedTuple):
    """One ``#id`` link in a chunk's text (one per occurrence).

    Attributes:
        chunk_id: the chunk whose text holds the link.
        anchor: the fragment as written.
        known: whether an element of the document has that id (as written or decoded).
        target: the chunk of the set holding that element, or None (unknown id, or an element
            in no chunk of the set).
    """

    chunk_id: str
    anchor: str
    known: bool
    target: str | None


def in_document_links(
    db: SpecStore, version: str, chunks: Iterable[Chunk]
) -> tuple[int, list[InDocumentLink]]:
    """How many links ``chunks`` (of the set ``version``) hold in all, and each ``#id`` link
    among them resolved (:func:`link_targets`), in text order."""
    found: list[tuple[str, str]] = []
    links = 0
    for chunk in chunks:
        hrefs = [_unbracket(m.group(1)) for m in _LINK.finditer(chunk.text)]
        links += len(hrefs)
        found += [(chunk.id, a) for a in map(href_anchor, hrefs) if a is not None]
    anchors = {a for _, a in found}
    targets = link_targets(db, anchors, version)
    existing = {c.id for c in db.chunks(sorted(set(targets.values())), version)}
    known = {
        a: a in targets or any(db.symbols.anchor_section(k) is not None for k in fragment_keys(a))
        for a in anchors
    }
    resolved = [
        InDocumentLink(chunk_id, a, known[a], t if (t := targets.get(a)) in existing else None)
        for chunk_id, a in found
    ]
    return links, resolved


def link_report(db: SpecStore, version: str) -> LinkReport:
    """Count and resolve every in-text link of the chunk set ``version``; an anchor of the
    document counts as resolved when the chunk it leads to is a chunk of the set."""
    links, found = in_document_links(db, version, db.iter_chunks(version))
    in_document = [link for link in found if link.known]
    resolved = [link for link in in_document if link.target is not None]
    missing = list(dict.fromkeys(link.anchor for link in in_document if link.target is None))
    return LinkReport(links, len(found), len(in_document), len(resolved), missing[:20])


def _unbracket(href: str) -> str:
    """A link target without the angle brackets the converter puts around odd ones."""
    if href.startswith("<"):
        return href[1:-1].replace("%3C", "<").replace("%3E", ">")
    return href


class CrossSpecLinks(NamedTuple):
    """The links from one spec of a corpus into another (counted per occurrence).

    Attributes:
        source, target: the two specs' names.
        links: the links of ``source``'s chunk texts whose URL points into ``target``
            (:meth:`specbrowser.store.corpus.Corpus.spec_of_url`).
        resolved: of those, the ones whose fragment is an element of ``target`` held by a chunk
            of the set.
        unresolved: up to 20 fragments that lead to no chunk.
    """

    source: str
    target: str
    links: int
    resolved: int
    unresolved: list[str]


def cross_spec_links(db: SpecStore, version: str) -> list[CrossSpecLinks]:
    """Every pair of specs of the corpus with links from one into the other, resolved in the
    set ``version`` as ``show DB URL#id`` resolves them; pairs in corpus order."""
    # deferred: the formats package (about 40 ms of imports), only for a URL
    from specbrowser.formats.identity import url_aliases

    specs = db.corpus.all()
    by_url: dict[str, tuple[str, str] | None] = {}
    target: tuple[str, str] | None
    pairs: dict[tuple[str, str], list[str]] = {}
    for spec in specs:
        for chunk in db.iter_chunks(version, spec.id):
            for href in link_hrefs(chunk.text):
                if "://" not in href or "#" not in href:
                    continue
                if href not in by_url:
                    found = db.corpus.spec_of_url(href, url_aliases)
                    by_url[href] = (found[0].id, found[1]) if found else None
                target = by_url[href]
                if target is not None and target[0] != spec.id:
                    pairs.setdefault((spec.id, target[0]), []).append(target[1])
    names = {s.id: s.name for s in specs}
    report: list[CrossSpecLinks] = []
    for (source, into), anchors in pairs.items():
        held = db.symbols.anchor_chunks(
            version, list(dict.fromkeys(k for a in anchors for k in fragment_keys(a))), into
        )
        resolved = [a for a in anchors if any(k in held for k in fragment_keys(a))]
        missing = list(
            dict.fromkeys(a for a in anchors if not any(k in held for k in fragment_keys(a)))
        )
        report.append(
            CrossSpecLinks(names[source], names[into], len(anchors), len(resolved), missing[:20])
        )
    return report
