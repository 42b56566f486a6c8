"""Recursive sequential breakdown of a section into a chunk tree.

For one section's own-content element:

1. If its Markdown is within the policy's threshold, the section is one chunk.
2. Otherwise the breakdown tags are tried in order. For a tag, its *outermost* matches that are
   still in the working copy are extracted (never one nested in an element already extracted,
   never a marker). Under the seed strategy each one with text becomes a subsection
   ``<parent id>-<tag>-<n>`` (n from 1 per parent and tag) and a marker replaces it; the
   guarded strategy packs, keeps rule units, and skips tiny and growing ones
   (:mod:`specbrowser.chunking.guards`), and undoes a tag that leaves the remainder no
   shorter (blank lines aside). Tags stop as soon as the remainder fits.
3. A subsection over the threshold is broken down the same way one level deeper, starting with
   the tags *after* the one that extracted it. Nothing is broken down at ``max_depth``.
4. A chunk still over the threshold stays whole and is flagged ``max_depth``, ``unsplittable``,
   or ``markers`` when its own text (markers left out) fits and only its markers put it over.

The threshold enters only through "does a Markdown of n characters fit" (n <= threshold). Every
such test goes through :meth:`~specbrowser.chunking.extraction.BreakdownRun.fits`, which records
the range of thresholds for which each test comes out the same
(:attr:`specbrowser.model.Chunk.holds_for`): under any threshold in that range the section's
chunk tree is the same, so a re-chunk may copy it from a stored set instead of breaking the
section down again (:mod:`specbrowser.session.rechunk`).

Subsection titles are the spec format's (:class:`specbrowser.chunking.rules.ChunkingRules`).
"""

from __future__ import annotations

from typing import NamedTuple

from lxml import etree

from specbrowser.chunking.extraction import (
    REPEATED_ATTR,
    BreakdownRun,
    Pending,
    replace_with_marker,
    select_candidates,
    single_restore,
)
from specbrowser.chunking.guards import guarded_pass
from specbrowser.chunking.labels import subsection_label
from specbrowser.chunking.markdown import MARKER_TAGS, BlockCache, Roles, resolve_roles
from specbrowser.chunking.markers import marker_ids, without_markers
from specbrowser.chunking.measure import CHARS, Sizer
from specbrowser.chunking.policy import ChunkPolicy, is_selector_tag, tag_slug
from specbrowser.chunking.reassemble import normalize_whitespace
from specbrowser.chunking.row_groups import ROW_GROUP_TAG, extract_row_groups
from specbrowser.chunking.rules import ChunkingRules, first_words
from specbrowser.model import Chunk, Section
from specbrowser.types import OverrunReason

OVER_MAX_DEPTH: OverrunReason = "max_depth"
OVER_UNSPLITTABLE: OverrunReason = "unsplittable"
OVER_MARKERS: OverrunReason = "markers"


def break_down(
    section: Section,
    element: etree._Element,
    policy: ChunkPolicy,
    heading_path: list[str],
    *,
    rules: ChunkingRules,
    roles: Roles | None = None,
    cache: BlockCache | None = None,
    sizer: Sizer = CHARS,
) -> SectionBreakdown:
    """The chunk tree of one section, in pre-order (each chunk before its subsections), and the
    section's Markdown before the breakdown (what :func:`whole_section_chunk` would be given).

    ``element`` is the section's own-content element (child sections as placeholders); it is
    mutated (extracted elements are replaced by markers), so pass a fresh one per call.
    ``heading_path`` is the display titles of the section's ancestors and itself; ``rules``
    are the spec format's (subsection titles). Chunk ordinals are 0-based within the returned
    list; the caller offsets them.
    ``roles`` (:func:`resolve_roles` of ``element``) and ``cache`` (blocks of the pristine
    ``element``) may be passed when already known: the breakdown takes them over and changes
    them; the chunks are the same (see :mod:`specbrowser.chunking.markdown_cache`).
    ``sizer`` measures texts in the policy's unit (:mod:`specbrowser.chunking.measure`).
    """
    if roles is None:
        roles = resolve_roles(element, policy.markdown)
    run = _Breakdown(
        section,
        policy,
        roles,
        heading_path,
        rules,
        cache={} if cache is None else cache,
        sizer=sizer,
    )
    run.chunk(
        Pending(
            element, section.id, section.display_title, "", policy.breakdown_tags, layer="section"
        ),
        parent_id=None,
        depth=0,
    )
    for ordinal, chunk in enumerate(run.out):
        chunk.ordinal = ordinal
    run.out[0].holds_for = (run.fit_max, run.overflow_min)
    return SectionBreakdown(run.out, run.pristine)


class SectionBreakdown(NamedTuple):
    """What :func:`break_down` makes of a section: its ``chunks`` in pre-order, and its
    ``markdown`` before anything was extracted (the summaries read it)."""

    chunks: list[Chunk]
    markdown: str


def breakdown_applies(size: int, policy: ChunkPolicy) -> bool:
    """Whether the breakdown may cut a section whose pristine Markdown has ``size`` (in the
    policy's unit): over the threshold, with a depth and a tag left to cut it."""
    return size > policy.threshold and policy.max_depth > 0 and bool(policy.breakdown_tags)


def whole_section_chunk(
    section: Section,
    markdown: str,
    subsections: list[str],
    policy: ChunkPolicy,
    heading_path: list[str],
    sizer: Sizer = CHARS,
) -> Chunk | None:
    """The one chunk :func:`break_down` makes of a section whose pristine Markdown is
    ``markdown`` (with markers naming ``subsections``) when the breakdown cannot change it:
    it fits the threshold, or it may not be cut (``max_depth`` 0, or no breakdown tags). None
    when the breakdown must run on the section's element. Sizes by ``sizer``, as
    :func:`break_down`'s."""
    size = sizer.size(markdown)
    if breakdown_applies(size, policy):
        return None
    reason: OverrunReason | None = None
    holds_for: tuple[int, int | None] = (size, None)
    if size > policy.threshold and policy.max_depth <= 0:
        reason, holds_for = OVER_MAX_DEPTH, (0, size)
    elif size > policy.threshold:  # no tag to try: as break_down flags it
        bare = sizer.size(without_markers(markdown))
        if bare <= policy.threshold:
            reason, holds_for = OVER_MARKERS, (bare, size)
        else:
            reason, holds_for = OVER_UNSPLITTABLE, (0, bare)
    return Chunk(
        id=section.id,
        section_id=section.id,
        parent_id=None,
        depth=0,
        layer="section",
        breakdown_tag=None,
        title=section.display_title,
        heading_path=list(heading_path),
        text=markdown,
        over_threshold=reason,
        subsections=list(subsections),
        holds_for=holds_for,
    )


class _Breakdown(BreakdownRun):
    """The recursion over one section's chunk tree: a tag pass per tag, then each subsection
    one level deeper."""

    def tag_pass(
        self, el: etree._Element, tag: str, chunk_id: str, next_tags: tuple[str, ...]
    ) -> list[Pending]:
        """Extract ``tag``'s elements from ``el`` under the policy's strategy; the subsections
        made, their markers in place."""
        if self.policy.strategy != "seed":
            return guarded_pass(self, el, tag, chunk_id, next_tags)
        if tag == ROW_GROUP_TAG:
            return extract_row_groups(el, chunk_id, next_tags, self)
        return _extract(el, tag, chunk_id, next_tags, self.rules)

    def chunk(self, item: Pending, *, parent_id: str | None, depth: int) -> None:
        el = item.element
        text = self.markdown(el)
        if parent_id is None:
            self.pristine = text
        pending: list[Pending] = []
        reason: OverrunReason | None = None
        section_sizer = self.sizer
        sizer = section_sizer.for_part(item.part_path)
        self.sizer = section_sizer.for_children(item.part_path)
        if not self.fits(sizer.size(text)):
            if depth >= self.policy.max_depth:
                reason = OVER_MAX_DEPTH
            else:
                for index, tag in enumerate(item.next_tags):
                    rest = item.next_tags[index + 1 :]
                    extracted = self.tag_pass(el, tag, item.chunk_id, rest)
                    if not extracted:
                        continue
                    self.forget(extracted, el)
                    remainder = self.markdown(el)
                    shown = set(marker_ids(remainder))
                    if any(p.chunk_id not in shown for p in extracted):
                        # a marker the converter does not render (inside a grammar block, say)
                        # would lose its subsection: those elements are put back
                        self.undo([p for p in extracted if p.chunk_id not in shown], el)
                        extracted = [p for p in extracted if p.chunk_id in shown]
                        if not extracted:
                            continue
                        remainder = self.markdown(el)
                    if self.policy.strategy != "seed" and not _shorter(remainder, text):
                        self.undo(extracted, el)  # no smaller: the next tag is tried
                        continue
                    pending.extend(extracted)
                    text = remainder
                    if self.fits(sizer.size(text)):
                        break
                else:  # no tag brought the text within the threshold
                    mostly_markers = self.fits(sizer.size(without_markers(text)))
                    reason = OVER_MARKERS if mostly_markers else OVER_UNSPLITTABLE
        subsections = [m.get("data-id", "") for m in el.iter(*MARKER_TAGS)]
        anchors = element_ids(el) if parent_id is not None else []  # see Chunk.anchors
        self.out.append(
            Chunk(
                id=item.chunk_id,
                section_id=self.section.id,
                parent_id=parent_id,
                depth=depth,
                layer=item.layer,
                breakdown_tag=item.tag or None,
                title=item.title,
                heading_path=list(self.heading_path),
                text=text,
                over_threshold=reason,
                subsections=subsections,
                anchors=anchors,
            )
        )
        self.sizer = section_sizer
        order = {chunk_id: i for i, chunk_id in enumerate(subsections)}
        for sub in sorted(pending, key=lambda p: order.get(p.chunk_id, len(order))):
            if not sizer.joins:  # in tokens: its Part: line counts
                label = subsection_label(sub.tag or None, sub.title, sub.chunk_id, item.chunk_id)
                sub.part_path = [*item.part_path, label]
            self.chunk(sub, parent_id=item.chunk_id, depth=depth + 1)


def _shorter(remainder: str, text: str) -> bool:
    """Whether ``remainder`` is shorter than ``text`` in characters, blank lines and trailing
    spaces left out (:func:`~specbrowser.chunking.reassemble.normalize_whitespace`): a marker
    that stands for a block with a blank line inside (a table under its caption, a grammar and
    its algorithm) saves that line even when the marker is as long as the block's text."""
    return len(normalize_whitespace(remainder)) < len(normalize_whitespace(text))


def element_ids(el: etree._Element) -> list[str]:
    """The ids of ``el`` and the elements in it, in document order, except inside the caption
    and header row a row group repeats from its table (the table's chunk holds those). Markers
    and placeholders are empty, so what was extracted is not counted."""
    found: list[str] = []
    skip: etree._Element | None = None
    for node in el.iter(etree.Element):  # elements only, not comments
        if skip is not None:
            if any(a is skip for a in node.iterancestors()):
                continue
            skip = None
        if node.get(REPEATED_ATTR):
            skip = node
            continue
        element_id = node.get("id")
        if element_id:
            found.append(element_id)
    return found


def _extract(
    el: etree._Element,
    tag: str,
    parent_chunk_id: str,
    next_tags: tuple[str, ...],
    rules: ChunkingRules,
) -> list[Pending]:
    """Replace the outermost ``tag`` elements with text inside ``el`` by markers, each titled
    by the format's subsection title (its chunk, when that is "", by its first words).

    An element that holds a marker of an earlier pass is left in place: extracting it would move
    that subsection under a chunk its id and parent do not name.
    """
    selected = select_candidates(el, tag, rules.markdown_elements.algorithm_tags)
    pending: list[Pending] = []
    slug, selector = tag_slug(tag), is_selector_tag(tag)
    for n, candidate in enumerate(selected, start=1):
        chunk_id = f"{parent_chunk_id}-{slug}-{n}"
        title = rules.subsection_title(candidate, candidate.tag if selector else tag)
        marker = replace_with_marker(candidate, chunk_id, title)
        # the chunk's name; the marker keeps it short
        title = title or first_words(candidate, elements=rules.markdown_elements)
        restore = single_restore(candidate, marker)
        pending.append(
            Pending(candidate, chunk_id, title, tag, next_tags, marker=marker, restore=restore)
        )
    return pending
