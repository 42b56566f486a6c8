"""The chunk tree: the document synopsis, the top-level sections, and under every chunk its
subsections, built lazily. A database holding several specs (a corpus) shows one root per spec
(its document chunk, labelled with the spec's title and name) with that spec's top-level
sections under it.

ECMA-262 has about 2 250 sections and 3 750 chunks; a node's children are read from the
database and added only when the node first expands, so opening the app and expanding a node
stay instant whatever the spec's size.

A filter (:meth:`ChunkTree.show_filtered`) replaces that with only the matching chunks and the
ancestors that lead to them (a :class:`~specbrowser.session.filters.FilteredTree`), all expanded.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from rich.console import Console
from rich.style import Style
from rich.text import Text
from textual import events
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from specbrowser.chunking.labels import DOCUMENT_LAYER, DOCUMENT_TREE_LABEL, subsection_label
from specbrowser.chunking.markers import size_without_markers
from specbrowser.chunking.stats import is_mostly_markers, is_tiny
from specbrowser.model import Chunk
from specbrowser.session import Session, SpecRow
from specbrowser.session.filters import FilteredTree

if TYPE_CHECKING:
    from typing_extensions import Self

OVER_THRESHOLD_MARK = " ⚠"
"""Suffix of the label of a chunk that stayed over the threshold."""

OVER_THRESHOLD_STYLE = "bold red"
"""Style of that suffix; the label text itself is styled :data:`OVER_LABEL_STYLE`."""

OVER_LABEL_STYLE = "italic"

MISMATCH_MARK = " ≠"
"""Suffix of the label of a section whose parser heading path and TOC path disagree."""

MISMATCH_STYLE = "bold yellow"
"""Style of that suffix."""

TRUNCATED_MARK = " ✂"
"""Suffix of the label of a chunk over the embedding model's token window."""

TRUNCATED_STYLE = "bold magenta"

TINY_MARK = " ∘"
"""Suffix of the label of a tiny chunk (:func:`specbrowser.chunking.stats.is_tiny`): a
subsection with too little text of its own to be worth retrieving."""

TINY_STYLE = "bold cyan"

MARKER_HEAVY_MARK = " ⇢"
"""Suffix of the label of a chunk that is mostly markers
(:func:`specbrowser.chunking.stats.is_mostly_markers`): it mostly points elsewhere."""

MARKER_HEAVY_STYLE = "bold blue"

CONTEXT_STYLE = "dim"
"""Added to the labels a filter shows only as ancestors of a match."""


ELLIPSIS = "…"
"""Stands for the characters a label too long for the pane leaves out."""

_ID_LIKE = re.compile(r"^\S*[-_.]\S*[-_.]\S*$")
"""A word made like an id (two separators or more, no space): ``sec-well-known-…-p-3-7``."""

_MARKS = (OVER_THRESHOLD_MARK, TRUNCATED_MARK, TINY_MARK, MARKER_HEAVY_MARK, MISMATCH_MARK)


def cut_middle(text: str, width: int) -> str:
    """``text`` in at most ``width`` characters: whole when it fits, else its start, ``…`` and
    its end, the end about a third of the room and starting at a separator (``-``, ``_``,
    ``.``, space) when one is a character away, so an id keeps its distinctive tail:
    ``cut_middle("sec-well-known-intrinsic-objects-p-3-7", 18) == "sec-well-kn…-p-3-7"``.
    A width under 2 leaves ``…`` (or nothing at 0)."""
    if len(text) <= width:
        return text
    if width < 2:
        return ELLIPSIS[:width]
    room = width - 1
    tail = max(1, room // 3)
    start = len(text) - tail
    if tail < room - 1 and text[start - 1 : start] in ("-", "_", ".", " "):
        tail += 1
    return text[: room - tail] + ELLIPSIS + text[len(text) - tail :]


def cut_end(text: str, width: int) -> str:
    """``text`` in at most ``width`` characters, its end replaced by ``…`` when too long."""
    if len(text) <= width:
        return text
    return text[: max(0, width - 1)] + ELLIPSIS[: max(0, min(1, width))]


def fit_label(label: Text, width: int) -> Text:
    """A tree label cut to ``width`` cells, styles kept: the trailing marks (⚠ ✂ ∘ ⇢ ≠) stay
    whole; the text before them is cut in the middle when it ends in an id-like word (its
    distinctive end kept, :func:`cut_middle`), else at its end (:func:`cut_end`). A label
    that fits, or a pane too narrow for any text, is returned as it is."""
    if label.cell_len <= width:
        return label
    plain = label.plain
    main_end = len(plain)
    while True:
        mark = next((m for m in _MARKS if plain[:main_end].endswith(m)), None)
        if mark is None:
            break
        main_end -= len(mark)
    room = width - (len(plain) - main_end)
    if room < 2:
        return label
    main = plain[:main_end]
    words = main.split()
    cut = cut_middle if words and _ID_LIKE.match(words[-1]) else cut_end
    short = cut(main, room)
    head = short.index(ELLIPSIS) if ELLIPSIS in short else len(short)
    tail = len(short) - head - 1
    result = label[:head]
    result.append(ELLIPSIS, style=label.get_style_at_offset(_CONSOLE, max(0, head - 1)))
    if tail > 0:
        result.append_text(label[main_end - tail : main_end])
    result.append_text(label[main_end:])
    return result


_CONSOLE = Console(width=80)
"""Only to read a label's style at an offset (:meth:`Text.get_style_at_offset` wants one)."""


def chunk_label(chunk: Chunk, *, context: bool = False, truncated: bool = False) -> Text:
    """A tree label as a Rich ``Text`` (never markup, so spec text like ``[bold]`` is literal).

    The document chunk shows "Document synopsis"; root chunks ``secnum title``; subsections
    ``<tag> <n>: <title>`` or ``<tag> <n>`` without a title, n the id's part after its
    parent's and tag's (:func:`~specbrowser.chunking.labels.subsection_label`: ``p 3`` for
    ``sec-x-p-3``, ``li 1–27`` for the packed group ``sec-x-li-1-27``, so siblings differ).
    Chunks over the threshold get a red ⚠; a section's root chunk with a heading mismatch a
    yellow ≠ (subsections carry their section's mismatch but are not marked: the section is);
    chunks the embedding model would cut (``truncated``) a magenta ✂; tiny chunks a cyan ∘ and
    chunks that are mostly markers a blue ⇢ (the quality filters ``T`` and ``M`` list them).
    ``context`` dims the label of a node a filter shows only to reach a match.
    """
    if chunk.layer == DOCUMENT_LAYER:
        text = DOCUMENT_TREE_LABEL
    elif chunk.breakdown_tag is None:
        text = chunk.title or chunk.id
    else:
        text = subsection_label(chunk.breakdown_tag, "", chunk.id, chunk.parent_id)
        if chunk.title:
            text += f": {chunk.title}"
    label = Text(" ".join(text.split()))
    if chunk.over_threshold is not None:
        label.stylize(OVER_LABEL_STYLE)
        label.append(OVER_THRESHOLD_MARK, OVER_THRESHOLD_STYLE)
    if truncated:
        label.append(TRUNCATED_MARK, TRUNCATED_STYLE)
    bare = size_without_markers(chunk.text)
    if is_tiny(chunk.parent_id, bare):
        label.append(TINY_MARK, TINY_STYLE)
    if is_mostly_markers(chunk.size, bare):
        label.append(MARKER_HEAVY_MARK, MARKER_HEAVY_STYLE)
    if chunk.mismatch is not None and chunk.parent_id is None and chunk.section_id is not None:
        label.append(MISMATCH_MARK, MISMATCH_STYLE)
    if context:
        label.stylize(CONTEXT_STYLE)
    return label


def spec_label(spec: SpecRow) -> Text:
    """The label of a spec's root in a corpus tree: its title, then its name (dim)."""
    label = Text(" ".join(spec.title.split()) or spec.name, style="bold")
    label.append(f"  {spec.name}", style="dim")
    return label


class ChunkTree(Tree[str]):
    """A ``Tree`` whose nodes hold chunk ids in ``node.data``; children load on first expand.

    Args:
        session: the open database.
        label: the (hidden) root label, e.g. the document title.
    """

    on_cursor: Callable[[str], None] | None = None
    """Called with the chunk id under the cursor as soon as the cursor moves, in the same step
    as the key that moved it (the ``NodeHighlighted`` message comes later, after a frame has
    been drawn): the screen shows the chunk in the frame that shows the cursor."""

    def __init__(self, session: Session, label: str = "", *, id: str | None = None) -> None:
        self._label_widths: dict[int, tuple[object, bool, bool, int, int]] = {}
        """Node id → (label, expandable, expanded, room, cells): :meth:`get_label_width`'s
        answers, each good while the first four stay the same (set first: Tree's own
        initialisation asks for a width)."""
        super().__init__(Text(label), id=id)
        self.show_root = False
        self._session = session
        self._chunk_nodes: dict[str, TreeNode[str]] = {}
        self._moving_to: TreeNode[str] | None = None
        """The node :meth:`select_chunk` moves the cursor to after the next refresh."""
        self.key_gap = float("inf")
        """Seconds between the last two keys this tree received, by the keys' own timestamps
        (when the terminal driver read them, not when the app got to them)."""
        self._last_key_time = float("-inf")
        self._loaded_nodes: set[int] = set()
        self.filtered: FilteredTree | None = None
        """The filter the tree shows, or None for the whole (lazy) tree."""
        self.truncated: set[str] = set()
        """Ids of the chunks marked ✂ (over the embedding model's token window)."""
        self.spec_roots: dict[str, SpecRow] = {}
        """Document chunk id → its spec, for the roots of a corpus tree ({} with one spec)."""

    def on_mount(self) -> None:
        """Build the top level of the whole tree."""
        self._build_top_level()

    def render_label(self, node: TreeNode[str], base_style: Style, style: Style) -> Text:
        """The node's label (Tree's), cut to what the pane shows at the node's depth
        (:func:`fit_label`): an id keeps its start and its distinctive end."""
        label = super().render_label(node, base_style, style)
        room = self._label_room(node)
        return label if room is None else fit_label(label, room)

    def _label_room(self, node: TreeNode[str]) -> int | None:
        """The cells a node's label is cut to: the pane's width less the guides of the node's
        depth; None before the pane has a width (labels whole)."""
        width = self.scrollable_content_region.width
        if width <= 0:
            return None
        depth = 0
        parent = node.parent
        while parent is not None and parent is not self.root:
            depth += 1
            parent = parent.parent
        return width - depth * self.guide_depth

    def get_label_width(self, node: TreeNode[str]) -> int:
        """Cells of the node's label as :meth:`render_label` draws it (Tree's answer),
        remembered until the label, its expand icon or its room change. Tree asks for every
        line's width each time it rebuilds its lines (three times for the top level before
        the first frame, and on every expand), and drawing the label is most of the cost."""
        room = self._label_room(node)
        room_key = -1 if room is None else room
        known = self._label_widths.get(node.id)
        if (
            known is not None
            and known[0] is node.label
            and known[1:4] == (node.allow_expand, node.is_expanded, room_key)
        ):
            return known[4]
        cells = super().get_label_width(node)
        self._label_widths[node.id] = (
            node.label,
            node.allow_expand,
            node.is_expanded,
            room_key,
            cells,
        )
        return cells

    def clear(self) -> Self:
        """Remove every node (Tree's), and the label widths remembered for them."""
        self._label_widths.clear()
        return super().clear()

    async def handle_key(self, event: events.Key) -> bool:
        """Note when keys arrive (:attr:`key_gap`), then Tree's own handling; the bindings
        (Down, Up, …) run after this, as the key bubbles up."""
        self.key_gap = event.time - self._last_key_time
        self._last_key_time = event.time
        return await super().handle_key(event)

    @property
    def moving_to(self) -> TreeNode[str] | None:
        """The node :meth:`select_chunk` will move the cursor to after the next refresh, or
        None: until then, a cursor on another node is only the old place."""
        return self._moving_to

    def watch_cursor_line(self, previous_line: int, line: int) -> None:
        """Tree's own cursor handling, then :attr:`on_cursor` with the new node's chunk id."""
        super().watch_cursor_line(previous_line, line)
        node = self.cursor_node
        if self.on_cursor is None or previous_line == line or node is None or node.data is None:
            return
        if self._moving_to is not None and node is not self._moving_to:
            return  # lines rebuilt under a pending select_chunk: the target is shown already
        self.on_cursor(node.data)

    def _build_top_level(self) -> None:
        """Add the document synopsis, then the top-level sections (only them); in a corpus,
        one root per spec instead (:attr:`spec_roots`), its sections loaded on expand."""
        specs = self._session.spec_rows()
        self.spec_roots = {}
        if len(specs) > 1:
            held = {c.id for c in self._session.document_chunks()}
            for spec in specs:
                if spec.document_chunk_id not in held:
                    continue
                self.spec_roots[spec.document_chunk_id] = spec
                self._chunk_nodes[spec.document_chunk_id] = self.root.add(
                    spec_label(spec), data=spec.document_chunk_id, allow_expand=True
                )
        else:
            document = self._session.document_chunk()
            self._add_chunk_nodes(
                self.root, [*([document] if document else []), *self._session.top_level_chunks()]
            )
        self._loaded_nodes.add(self.root.id)

    def node_for(self, chunk_id: str) -> TreeNode[str] | None:
        """The node of a chunk if it has been built, else None."""
        return self._chunk_nodes.get(chunk_id)

    def _add_chunk_nodes(self, parent: TreeNode[str], chunks: list[Chunk]) -> None:
        for chunk in chunks:
            node = parent.add(
                chunk_label(chunk, truncated=chunk.id in self.truncated),
                data=chunk.id,
                allow_expand=bool(chunk.subsections),
            )
            self._chunk_nodes[chunk.id] = node

    def show_filtered(self, filtered: FilteredTree | None) -> None:
        """Show only a filter's matches and their ancestors, expanded; None restores the whole
        tree (lazy again, collapsed to the top level).

        The new tree starts at its top: the old scroll offset, kept, would stop the cursor's
        move to the first match with the match on the top line and its parents hidden above
        it. The cursor is left for the caller to place (:meth:`select_chunk`).
        """
        self.clear()
        self.scroll_to(0, 0, animate=False, immediate=True)
        self._chunk_nodes.clear()
        self._loaded_nodes.clear()
        self._moving_to = None
        self.filtered = filtered
        if filtered is None:
            self._build_top_level()
            return
        matches = set(filtered.matches)
        chunks = {c.id: c for c in self._session.chunks(sorted(filtered.shown))}
        pending = self._filtered_roots(filtered.children.get(None, []))
        while pending:
            parent, child_ids = pending.pop()
            self._loaded_nodes.add(parent.id)  # its children are fixed: no lazy load on expand
            for child_id in child_ids:
                chunk = chunks.get(child_id)
                if chunk is None:
                    continue
                has_children = bool(filtered.children.get(child_id))
                node = parent.add(
                    chunk_label(
                        chunk, context=child_id not in matches, truncated=chunk.id in self.truncated
                    ),
                    data=chunk.id,
                    allow_expand=has_children,
                    expand=has_children,
                )
                self._chunk_nodes[chunk.id] = node
                if has_children:
                    pending.append((node, filtered.children[child_id]))

    def _filtered_roots(self, top: list[str]) -> list[tuple[TreeNode[str], list[str]]]:
        """Where a filter's top-level chunks ``top`` go: under the tree's root, or in a corpus
        under their spec's root (added here, expanded; a spec without a shown chunk gets none,
        and a spec's document chunk among ``top`` is its root itself). Returns each parent
        node with the ids to add under it."""
        specs = self._session.spec_rows() if self.spec_roots else []
        if len(specs) < 2 or not top:
            return [(self.root, top)]
        owner = self._session.chunk_specs(top)
        placed: list[tuple[TreeNode[str], list[str]]] = []
        for spec in specs:
            own = [c for c in top if owner.get(c) == spec.name and c != spec.document_chunk_id]
            if not own and spec.document_chunk_id not in top:
                continue
            node = self.root.add(
                spec_label(spec), data=spec.document_chunk_id, allow_expand=bool(own), expand=True
            )
            self._chunk_nodes[spec.document_chunk_id] = node
            placed.append((node, own))
        return placed

    def set_truncated(self, chunk_ids: set[str]) -> None:
        """Mark these chunks ✂ (and only these), in the nodes built so far and to come."""
        changed = self.truncated ^ chunk_ids
        self.truncated = set(chunk_ids)
        built = [cid for cid in changed if cid in self._chunk_nodes and cid not in self.spec_roots]
        for chunk in self._session.chunks(built) if built else []:
            node = self._chunk_nodes[chunk.id]
            context = self.filtered is not None and chunk.id not in set(self.filtered.matches)
            node.set_label(
                chunk_label(chunk, context=context, truncated=chunk.id in self.truncated)
            )

    def load_children(self, node: TreeNode[str]) -> None:
        """Add a node's children from the database, once."""
        if node.id in self._loaded_nodes or node.data is None:
            return
        self._loaded_nodes.add(node.id)
        spec = self.spec_roots.get(node.data)
        if spec is not None:
            self._add_chunk_nodes(node, self._session.top_level_chunks(document_id=spec.id))
            return
        chunk = self._session.chunk(node.data)
        self._add_chunk_nodes(node, self._session.subsections(chunk))

    def on_tree_node_expanded(self, event: Tree.NodeExpanded[str]) -> None:
        """Build the children of a node the first time it expands."""
        if event.node.tree is self:
            self.load_children(event.node)

    def select_chunk(self, chunk_id: str) -> bool:
        """Expand the ancestors of a chunk (loading them lazily) and move the cursor to it.

        The cursor moves at once when the tree is on screen (else after the next refresh, when
        its lines include the new nodes); the usual ``NodeHighlighted`` message follows.

        Under a filter, only chunks the filter shows can be selected (False for others).

        Raises:
            NotFoundError: no chunk with that id.
        """
        if self.filtered is not None:
            target = self._chunk_nodes.get(chunk_id)
            if target is None:
                return False
            self._move_soon(target)
            return True
        chain = [chunk_id]
        parent = self._session.tree_parent_id(chunk_id)
        while parent is not None:
            chain.append(parent)
            parent = self._session.tree_parent_id(parent)
        if self.spec_roots and chain[-1] not in self.spec_roots:
            spec = self._session.spec_of_chunk(chain[-1])
            if spec is not None:
                chain.append(spec.document_chunk_id)
        for ancestor_id in reversed(chain[1:]):
            node = self._chunk_nodes.get(ancestor_id)
            if node is None:
                return False
            self.load_children(node)
            if not node.is_expanded:
                node.expand()
        target = self._chunk_nodes.get(chunk_id)
        if target is None:
            return False
        self._move_soon(target)
        return True

    def _move_soon(self, node: TreeNode[str]) -> None:
        """Move the cursor to ``node`` now when the tree is on screen (its lines are built again
        first, so the cursor lands in the same frame as the view's new chunk), else after the
        next refresh."""
        self._moving_to = node
        if self.is_mounted and self.size.height:
            self.get_node_at_line(0)  # builds the lines now when nodes were added or expanded
            if self.get_node_at_line(node.line) is node:
                self._move_to(node)
                return
        self.call_after_refresh(self._move_to, node)

    def _move_to(self, node: TreeNode[str]) -> None:
        if self._moving_to is not node:
            # a later select_chunk asked for another node (moved to at once, or pending): a
            # move left over from before it (the first screen's, after its refresh) would
            # take the cursor, and the view, back
            return
        self._moving_to = None
        # Nodes added above the cursor can leave cursor_line unchanged while its node changed;
        # reset it first so the cursor node and the NodeHighlighted message stay right.
        if self.cursor_node is not node and self.cursor_line == node.line:
            self.cursor_line = -1
        self.move_cursor(node)
