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
import zlib
from dataclasses import dataclass

from lxml import etree

from specbrowser.markdown import MARKER_TAGS, BlockCache, Roles

DETAIL_MIN_CHARS = 500
"""Sections with shorter Markdown keep no detail: below this threshold a policy is unusual, and
converting such a section again costs little. ECMA-262: 1,564 of 2,253 sections have detail,
about 1.7 MB compressed."""


@dataclass
class SectionMarkdown:
    """One section's conversion, as stored.

    Attributes:
        markdown: the pristine section's Markdown (characters; what ``to_markdown`` returns).
        subsections: the ids its markers name, in order (a root chunk's ``subsections``).
        detail: :func:`capture`'s compressed roles and blocks, or None (short section, or not
            loaded).
    """

    markdown: str
    subsections: list[str]
    detail: bytes | None = None


def capture(element: etree._Element, roles: Roles, cache: BlockCache, markdown: str) -> SectionMarkdown:
    """Record a section's conversion right after ``to_markdown(element, config, roles, cache)``
    and before anything changes the tree (the breakdown does): the keys of ``roles`` and
    ``cache`` must be elements of ``element``'s pristine subtree."""
    subsections = [m.get("data-id", "") for m in element.iter(*MARKER_TAGS)]
    detail = None
    if len(markdown) >= DETAIL_MIN_CHARS:
        index = {node: i for i, node in enumerate(element.iter())}
        payload = {
            "nodes": len(index),
            "roles": [[index[node], role] for node, role in roles.items() if node in index],
            "blocks": [[index[node], node.tag, blocks] for node, blocks in cache.items()
                       if node in index],
        }
        detail = zlib.compress(json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
                               .encode(), 1)
    return SectionMarkdown(markdown, subsections, detail)


def restore(element: etree._Element, detail: bytes) -> tuple[Roles, BlockCache] | None:
    """The roles and block cache :func:`capture` recorded, keyed by the elements of
    ``element`` (a fresh parse of the same section HTML); None when the tree does not match
    (another element count, or a cached block on an element of another tag)."""
    payload = json.loads(zlib.decompress(detail))
    nodes = list(element.iter())
    if len(nodes) != payload["nodes"]:
        return None
    cache: BlockCache = {}
    for i, tag, blocks in payload["blocks"]:
        node = nodes[i]
        if node.tag != tag:
            return None
        cache[node] = blocks
    roles: Roles = {nodes[i]: role for i, role in payload["roles"]}
    return roles, cache
