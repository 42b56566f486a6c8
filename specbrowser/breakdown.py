"""Recursive sequential breakdown of a section into a chunk tree (seed 000, corrected).

For one section's own-content element:

1. If its Markdown is within the policy's threshold, the section is one chunk.
2. Otherwise the breakdown tags are tried in order. For a tag, its *outermost* matches that are
   still in the working copy are extracted (never one nested in an element already extracted,
   never a marker); each one with text becomes a subsection ``<parent id>-<tag>-<n>`` (n from 1
   per parent and tag) and a marker replaces it. Tags stop as soon as the remainder fits.
3. A subsection over the threshold is broken down the same way one level deeper, starting with
   the tags *after* the one that extracted it. Nothing is broken down at ``max_depth``.
4. A chunk still over the threshold stays whole and is flagged ``max_depth`` or ``unsplittable``.

Defects of the seed's sample code avoided here, each covered by a test: querying the original
document while mutating a copy; recursion restarting from the first tag; nested matches
extracted twice; marker paragraphs extracted again; ``caption`` instead of ecmarkup's
``figcaption``; annexes and intro ignored; no overrun flag.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lxml import etree

from specbrowser.markdown import MARKER_TAGS, has_text, text_of, to_markdown
from specbrowser.model import Chunk, Section
from specbrowser.policy import ChunkPolicy

MARKER_TAG = "sb-marker"
"""The placeholder element the breakdown leaves where it extracted a subsection."""

OVER_MAX_DEPTH = "max_depth"
OVER_UNSPLITTABLE = "unsplittable"

_PRODUCTION_LHS = re.compile(r"^\s*([A-Za-z_][\w]*)\s*(?:\[[^\]]*\])?\s*:", re.MULTILINE)


@dataclass
class _Pending:
    element: etree._Element
    chunk_id: str
    title: str
    tag: str
    next_tags: tuple[str, ...]


def break_down(section: Section, element: etree._Element, policy: ChunkPolicy,
               heading_path: list[str]) -> list[Chunk]:
    """The chunk tree of one section, in pre-order (each chunk before its subsections).

    ``element`` is the section's own-content element (child sections as placeholders); it is
    mutated (extracted elements are replaced by markers), so pass a fresh one per call.
    ``heading_path`` is the display titles of the section's ancestors and itself.
    Chunk ordinals are 0-based within the returned list; the caller offsets them.
    """
    chunks: list[Chunk] = []
    _chunk(element, section, policy, heading_path, chunks, chunk_id=section.id, parent_id=None,
           depth=0, tags=policy.breakdown_tags, made_by=None, title=section.display_title)
    for ordinal, chunk in enumerate(chunks):
        chunk.ordinal = ordinal
    return chunks


def _chunk(el: etree._Element, section: Section, policy: ChunkPolicy, heading_path: list[str],
           out: list[Chunk], *, chunk_id: str, parent_id: str | None, depth: int,
           tags: tuple[str, ...], made_by: str | None, title: str) -> None:
    text = to_markdown(el)
    pending: list[_Pending] = []
    reason: str | None = None
    if len(text) > policy.threshold_chars:
        if depth >= policy.max_depth:
            reason = OVER_MAX_DEPTH
        else:
            for index, tag in enumerate(tags):
                extracted = _extract(el, tag, chunk_id, tags[index + 1:])
                if extracted:
                    pending.extend(extracted)
                    text = to_markdown(el)
                    if len(text) <= policy.threshold_chars:
                        break
            if len(text) > policy.threshold_chars:
                reason = OVER_UNSPLITTABLE
    subsections = [m.get("data-id", "") for m in el.iter(*MARKER_TAGS)]
    out.append(Chunk(
        id=chunk_id, section_id=section.id, parent_id=parent_id, depth=depth,
        layer="section" if parent_id is None else "subsection", breakdown_tag=made_by,
        title=title, heading_path=list(heading_path), text=text, over_threshold=reason,
        subsections=subsections,
    ))
    order = {chunk_id: i for i, chunk_id in enumerate(subsections)}
    for item in sorted(pending, key=lambda p: order.get(p.chunk_id, len(order))):
        _chunk(item.element, section, policy, heading_path, out, chunk_id=item.chunk_id,
               parent_id=chunk_id, depth=depth + 1, tags=item.next_tags, made_by=item.tag,
               title=item.title)


def _extract(el: etree._Element, tag: str, parent_chunk_id: str,
             next_tags: tuple[str, ...]) -> list[_Pending]:
    """Replace the outermost ``tag`` elements with text inside ``el`` by markers.

    An element that holds a marker of an earlier pass is left in place: extracting it would move
    that subsection under a chunk its id and parent do not name.
    """
    selected: list[etree._Element] = []
    chosen: set[etree._Element] = set()
    for candidate in el.iter(tag):
        if candidate is el or _inside(candidate, el, chosen):
            continue
        if next(candidate.iter(MARKER_TAG), None) is None and has_text(candidate):
            selected.append(candidate)
            chosen.add(candidate)
    pending: list[_Pending] = []
    for n, candidate in enumerate(selected, start=1):
        chunk_id = f"{parent_chunk_id}-{tag}-{n}"
        title = subsection_title(candidate, tag)
        marker = etree.Element(MARKER_TAG, {"data-id": chunk_id, "data-title": title})
        marker.tail = candidate.tail
        candidate.tail = None
        candidate.getparent().replace(candidate, marker)
        pending.append(_Pending(candidate, chunk_id, title, tag, next_tags))
    return pending


def _inside(candidate: etree._Element, root: etree._Element, chosen: set[etree._Element]) -> bool:
    """Whether an ancestor of ``candidate`` below ``root`` is already chosen in this pass."""
    for ancestor in candidate.iterancestors():
        if ancestor is root:
            return False
        if ancestor in chosen:
            return True
    return False


def subsection_title(el: etree._Element, tag: str) -> str:
    """The title a marker gives an extracted element, or "" when it has none.

    - ``emu-table`` (and ``figure``/``table``): the ``figcaption`` text ecmarkup renders
      ("Table 3: Attributes of an Object property"), else a ``caption`` element, else the
      ``caption`` attribute of the source form.
    - ``emu-grammar``: the names of its productions, in order, without repeats; in source form,
      the left-hand sides of its text.
    - anything else: "".
    """
    if tag in ("emu-table", "figure", "table"):
        for name in ("figcaption", "caption"):
            found = next(el.iter(name), None)
            if found is not None and text_of(found).strip():
                return " ".join(text_of(found).split())
        return " ".join((el.get("caption") or "").split())
    if tag == "emu-grammar":
        names = [p.get("name") or "" for p in el.iter("emu-production")]
        if not names:
            names = _PRODUCTION_LHS.findall(text_of(el) or "")
        return ", ".join(dict.fromkeys(n for n in names if n))
    return ""
