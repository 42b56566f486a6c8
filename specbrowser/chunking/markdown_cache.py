"""What a re-chunk can reuse of a section's Markdown conversion, in a form that can be stored.

The Markdown of an element depends only on the element and the :class:`MarkdownConfig`, never on
the chunk policy's threshold or tags. So the first conversion of each pristine section element
(at ingest, or at a re-chunk that had to convert it) is kept as a :class:`SectionMarkdown`:

- ``markdown``: the section's one-piece Markdown and ``subsections`` (its markers' ids). A
  section whose Markdown fits the threshold is one chunk with exactly that text: a re-chunk
  builds it without parsing the section's HTML.
- ``detail`` (sections of at least :data:`DETAIL_MIN_CHARS`): the roles the converter resolved
  and the rendered blocks of every element (:data:`specbrowser.chunking.markdown.BlockCache`), each
  keyed by the element's position in a pre-order walk (``element.iter(*tags)``) of the parsed
  section. A section the breakdown must cut is still parsed, but neither its roles nor its
  blocks are computed again: :func:`restore` hands the breakdown the state it would have after
  its first conversion, so the result is byte-identical (tests compare cached and uncached).

Pure: no database (see :mod:`specbrowser.store.cache`), no shared state.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from itertools import chain

from lxml import etree

from specbrowser.chunking.markdown import MARKER_TAGS, BlockCache, Roles
from specbrowser.chunking.markdown_text import drop_deleted

DETAIL_MIN_CHARS = 500
"""Sections with shorter Markdown keep no detail: below this threshold a policy is unusual, and
converting such a section again costs little."""


@dataclass
class SectionMarkdown:
    """One section's conversion, as stored.

    Attributes:
        markdown: the pristine section's Markdown (characters; what ``to_markdown`` returns).
        subsections: the ids its markers name, in order (a root chunk's ``subsections``).
        detail: :func:`capture`'s roles and blocks (UTF-8), or None (short section, or not
            loaded).
    """

    markdown: str
    subsections: list[str]
    detail: bytes | None = None


def capture(
    element: etree._Element, roles: Roles, cache: BlockCache, markdown: str
) -> SectionMarkdown:
    """Record a section's conversion right after ``to_markdown(element, config, roles, cache)``
    and before anything changes the tree (the breakdown does): the keys of ``roles`` and
    ``cache`` must be elements of ``element``'s pristine subtree.

    The detail is a small JSON header, :data:`_HEAD_END`, then every cached block joined by
    :data:`_BLOCK_SEP`. The header holds the tags walked, their element count, and parallel
    lists: each role element's position and role (an index into the role names; by position, so
    the detail does not depend on the order roles were found in), each cached
    element's position, tag and block count. A position counts the elements of
    ``element.iter(*tags)`` over only the tags that have a role or a cached block (a third of
    the elements have neither). Built with C-level maps, no per-element Python loop and no JSON
    string escaping, so an ingest pays little for it. A section whose text holds either
    separator keeps no detail.
    """
    markers = [m.get("data-id", "") for m in element.iter(*MARKER_TAGS)]
    if len(markdown) < DETAIL_MIN_CHARS or _BLOCK_SEP in markdown or _HEAD_END in markdown:
        return SectionMarkdown(markdown, markers)
    tags = sorted({node.tag for node in roles} | {node.tag for node in cache})
    nodes = list(element.iter(*tags))
    position = dict(zip(nodes, range(len(nodes)), strict=True))
    role_names = sorted(set(roles.values()))
    role_code = {name: code for code, name in enumerate(role_names)}
    role_at = sorted(
        zip(
            map(position.__getitem__, roles),
            map(role_code.__getitem__, roles.values()),
            strict=True,
        )
    )
    head = json.dumps(
        {
            "tags": tags,
            "nodes": len(nodes),
            "role_names": role_names,
            "role_at": [at for at, _ in role_at],
            "role": [code for _, code in role_at],
            "block_at": list(map(position.__getitem__, cache)),
            "block_tag": [node.tag for node in cache],
            "blocks": list(map(len, cache.values())),
        },
        separators=(",", ":"),
    )
    body = _BLOCK_SEP.join(chain.from_iterable(cache.values()))
    return SectionMarkdown(markdown, markers, (head + _HEAD_END + body).encode())


_HEAD_END = "\x1e"
"""Ends the detail's JSON header (JSON escapes control characters, so none stands in it)."""
_BLOCK_SEP = "\x1f"
"""Separates the blocks of a detail: ASCII unit separator, a control character no spec text
holds (a section whose Markdown does keeps no detail; every block is part of that Markdown)."""


def restore(element: etree._Element, detail: bytes) -> tuple[Roles, BlockCache] | None:
    """The roles and block cache :func:`capture` recorded, keyed by the elements of
    ``element`` (a fresh parse of the same section HTML); None when the detail cannot be read
    or does not match the tree (another count of the walked elements, a cached block on an
    element of another tag, another number of blocks). A detail of a conversion with ``current``
    edits (no ``deleted`` role) first drops the deleted text from ``element``, as
    :func:`~specbrowser.chunking.markdown.resolve_roles` did before it was captured."""
    try:
        head, _, body = detail.decode().partition(_HEAD_END)
        payload = json.loads(head)
        if "deleted" not in payload["role_names"]:  # converted with current edits: the tree
            drop_deleted(element)  # was walked without its deleted text (resolve_roles)
        nodes = list(element.iter(*payload["tags"]))
        if len(nodes) != payload["nodes"]:
            return None
        cached = list(map(nodes.__getitem__, payload["block_at"]))
        if [node.tag for node in cached] != payload["block_tag"]:
            return None
        counts = payload["blocks"]
        texts = body.split(_BLOCK_SEP) if any(counts) else []
        if len(texts) != sum(counts):
            return None
        cache: BlockCache = {}
        at = 0
        for node, count in zip(cached, counts, strict=True):
            cache[node] = texts[at : at + count]
            at += count
        roles: Roles = dict(
            zip(
                map(nodes.__getitem__, payload["role_at"]),
                map(payload["role_names"].__getitem__, payload["role"]),
                strict=True,
            )
        )
    except (ValueError, KeyError, IndexError, TypeError, AttributeError):
        return None  # not UTF-8, not JSON, or another layout: not a detail this code wrote
    return roles, cache
