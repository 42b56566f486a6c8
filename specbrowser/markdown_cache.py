"""What a re-chunk can reuse of a section's Markdown conversion, in a form that can be stored.

The Markdown of an element depends only on the element and the :class:`MarkdownConfig`, never on
the chunk policy's threshold or tags. So the first conversion of each pristine section element
(at ingest, or at a re-chunk that had to convert it) is kept as a :class:`SectionMarkdown`:

- ``markdown``: the section's one-piece Markdown and ``subsections`` (its markers' ids). A
  section whose Markdown fits the threshold is one chunk with exactly that text: a re-chunk
  builds it without parsing the section's HTML.
- ``detail`` (sections of at least :data:`DETAIL_MIN_CHARS`): the roles the converter resolved
  and the rendered blocks of every element (:data:`specbrowser.markdown.BlockCache`), each
  keyed by the element's position in the pre-order walk (``element.iter()``) of the parsed
  section. A section the breakdown must cut is still parsed, but neither its roles nor its
  blocks are computed again: :func:`restore` hands the breakdown the state it would have after
  its first conversion, so the result is byte-identical (tests compare cached and uncached).

Pure: no database (see :mod:`specbrowser.store_cache`), no shared state.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from lxml import etree

from specbrowser.markdown import MARKER_TAGS, BlockCache, Roles

DETAIL_MIN_CHARS = 500
"""Sections with shorter Markdown keep no detail: below this threshold a policy is unusual, and
converting such a section again costs little. ECMA-262: 1,564 of 2,253 sections have detail,
about 10 MB (nested blocks repeat their children's text; not compressed: zlib would add a tenth
to the ingest time)."""


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


def capture(element: etree._Element, roles: Roles, cache: BlockCache,
            markdown: str) -> SectionMarkdown:
    """Record a section's conversion right after ``to_markdown(element, config, roles, cache)``
    and before anything changes the tree (the breakdown does): the keys of ``roles`` and
    ``cache`` must be elements of ``element``'s pristine subtree.

    The detail is a small JSON header (the tags walked; their element count; per role the
    positions of its elements; per cached element its position, tag and block count),
    :data:`_HEAD_END`, then every block joined by :data:`_BLOCK_SEP`. Positions count the
    elements of ``element.iter(*tags)``, over only the tags that have a role, a cached block or
    a marker (a third of the elements have none): one filtered pass and no JSON string
    escaping, so an ingest pays little for it. A section whose text holds either separator
    keeps no detail.
    """
    if len(markdown) < DETAIL_MIN_CHARS or _BLOCK_SEP in markdown or _HEAD_END in markdown:
        markers = [m.get("data-id", "") for m in element.iter(*MARKER_TAGS)]
        return SectionMarkdown(markdown, markers)
    tags = sorted({node.tag for node in roles} | {node.tag for node in cache} | MARKER_TAGS)
    subsections: list[str] = []
    by_role: dict[str, list[int]] = {}
    entries: list[tuple[int, str, int]] = []
    texts: list[str] = []
    count = 0
    for count, node in enumerate(element.iter(*tags), start=1):
        if node.tag in MARKER_TAGS:
            subsections.append(node.get("data-id", ""))
        role = roles.get(node)
        if role is not None:
            by_role.setdefault(role, []).append(count - 1)
        blocks = cache.get(node)
        if blocks is not None:
            entries.append((count - 1, node.tag, len(blocks)))
            texts.extend(blocks)
    head = json.dumps({"tags": tags, "nodes": count, "roles": by_role, "blocks": entries},
                      separators=(",", ":"))
    detail = (head + _HEAD_END + _BLOCK_SEP.join(texts)).encode()
    return SectionMarkdown(markdown, subsections, detail)


_HEAD_END = "\x1e"
"""Ends the detail's JSON header (JSON escapes control characters, so none stands in it)."""
_BLOCK_SEP = "\x1f"
"""Separates the blocks of a detail: ASCII unit separator, a control character no spec text
holds (a section whose Markdown does keeps no detail; every block is part of that Markdown)."""


def restore(element: etree._Element, detail: bytes) -> tuple[Roles, BlockCache] | None:
    """The roles and block cache :func:`capture` recorded, keyed by the elements of
    ``element`` (a fresh parse of the same section HTML); None when the detail cannot be read
    or does not match the tree (another count of the walked elements, a cached block on an
    element of another tag, another number of blocks)."""
    try:
        head, _, body = detail.decode().partition(_HEAD_END)
        payload = json.loads(head)
    except ValueError:  # not UTF-8 or not JSON: not a detail this code wrote
        return None
    nodes = list(element.iter(*payload["tags"]))
    if len(nodes) != payload["nodes"]:
        return None
    entries = payload["blocks"]
    texts = body.split(_BLOCK_SEP) if any(n for _, _, n in entries) else []
    cache: BlockCache = {}
    at = 0
    for i, tag, n in entries:
        node = nodes[i]
        if node.tag != tag:
            return None
        cache[node] = texts[at:at + n]
        at += n
    if at != len(texts):
        return None
    roles: Roles = {nodes[i]: role for role, positions in payload["roles"].items()
                    for i in positions}
    return roles, cache
