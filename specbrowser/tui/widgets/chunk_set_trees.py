"""Two chunk trees side by side: one section's chunks in chunk set A and in chunk set B.

Each node shows the chunk's id (a subsection's after its parent's), its size in characters and
a ⚠ when it stayed over the threshold, marked as added (only in B), removed (only in A),
changed (other text) or reflagged (same text, another overrun reason) against the other set. A
section's chunks are few (at most a few hundred in ECMA-262), so both trees are built whole and
expanded.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from specbrowser.session.diff import ChunkBrief, SectionDiff

OVER_MARK = " ⚠"
"""Suffix of a chunk that stayed over the threshold (as in the browser's tree)."""

CHANGE_MARKS: dict[str, tuple[str, str]] = {
    "added": ("+ ", "bold green"),
    "removed": ("− ", "bold red"),
    "changed": ("~ ", "bold yellow"),
    "reflagged": ("⚑ ", "bold yellow"),
}
"""Prefix and style of a chunk by how it differs from the other set; unchanged chunks get
two spaces so ids line up."""


def legend() -> Text:
    """One line explaining the marks of :func:`brief_label` (and of the diff screen's list)."""
    text = Text()
    for change, (prefix, style) in CHANGE_MARKS.items():
        text.append(prefix.strip(), style)
        text.append(
            f" {change}"
            + (" (same text, other overrun reason)" if change == "reflagged" else "")
            + "  "
        )
    text.append(OVER_MARK.strip(), "bold red")
    text.append(" over the threshold · ch: characters")
    return text


def brief_label(chunk: ChunkBrief, change: str | None) -> Text:
    """A node label, never markup: ``<mark> <id>  <size> ch ⚠``.

    A root chunk shows its full id (the section id); a subsection the part of its id after its
    parent's (``table-1``, ``td-3``), the tree giving the rest. ``change`` is a key of
    :data:`CHANGE_MARKS`, or None for a chunk equal in both sets.
    """
    prefix, style = CHANGE_MARKS.get(change or "", ("  ", ""))
    label = Text(prefix, style=style)
    parent = f"{chunk.parent_id}-" if chunk.parent_id else ""
    label.append(
        chunk.id.removeprefix(parent) if parent and chunk.id.startswith(parent) else chunk.id
    )
    label.append(f"  {chunk.size:,} ch", style="dim")
    if chunk.over_threshold is not None:
        label.append(OVER_MARK, "bold red")
    return label


def chunk_changes(section: SectionDiff | None, side: str) -> dict[str, str]:
    """chunk id → how it changed, for the chunks of one side (``"a"`` or ``"b"``) of a section."""
    if section is None:
        return {}
    changes = {chunk_id: "changed" for chunk_id in section.changed}
    changes.update({chunk_id: "reflagged" for chunk_id in section.reflagged})
    if side == "a":
        changes.update({chunk_id: "removed" for chunk_id in section.removed})
    else:
        changes.update({chunk_id: "added" for chunk_id in section.added})
    return changes


class SetTree(Tree[str]):
    """One side's chunk tree; ``node.data`` holds the chunk id.

    Enter posts :class:`SetTree.ChunkChosen` (the screen jumps there); a click only moves the
    cursor (Tree's own Enter and click both "select", which would leave the screen on a click).
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "choose", "Jump to chunk", id="diff-choose-chunk"),
    ]

    class ChunkChosen(Message):
        """Enter on a node: ``chunk_id`` is its chunk."""

        def __init__(self, chunk_id: str) -> None:
            super().__init__()
            self.chunk_id = chunk_id

    def action_choose(self) -> None:
        """Post :class:`ChunkChosen` for the node under the cursor (nothing on a placeholder)."""
        node = self.cursor_node
        if node is not None and node.data is not None:
            self.post_message(self.ChunkChosen(node.data))

    def show_chunks(self, chunks: list[ChunkBrief], changes: dict[str, str]) -> None:
        """Replace the tree with ``chunks`` (one section's, in pre-order), nested by parent,
        children in the order of their markers, all expanded; the cursor on the first chunk."""
        self.clear()
        by_id = {c.id: c for c in chunks}
        roots = [c for c in chunks if c.parent_id is None or c.parent_id not in by_id]

        def add(parent: TreeNode[str], chunk: ChunkBrief) -> None:
            children = [
                by_id[i] for i in chunk.subsections if i in by_id and by_id[i].parent_id == chunk.id
            ]
            label = brief_label(chunk, changes.get(chunk.id))
            if not children:
                parent.add_leaf(label, data=chunk.id)
                return
            node = parent.add(label, data=chunk.id, expand=True)
            for child in children:
                add(node, child)

        for root in roots:
            add(self.root, root)
        if not chunks:
            self.root.add_leaf(Text("(no chunks in this set)", style="dim italic"))
        self.cursor_line = 0


class ChunkSetTrees(Horizontal):
    """Set A's tree on the left, set B's on the right, for one section at a time.

    Args:
        id: the widget id; the trees get ``<id>-a`` and ``<id>-b``.
    """

    def __init__(self, *, id: str = "diff-trees") -> None:
        super().__init__(id=id)

    def compose(self) -> ComposeResult:
        for side in ("a", "b"):
            tree: SetTree = SetTree(Text(""), id=f"{self.id}-{side}", classes="diff-set-tree")
            tree.show_root = False
            tree.auto_expand = False  # a click moves the cursor; it never folds the tree
            yield tree

    def set_tree(self, side: str) -> SetTree:
        """The tree of side ``"a"`` or ``"b"``."""
        return self.query_one(f"#{self.id}-{side}", SetTree)

    def show_section(
        self,
        chunks_a: list[ChunkBrief],
        chunks_b: list[ChunkBrief],
        section: SectionDiff | None,
        versions: tuple[str, str],
    ) -> None:
        """Show one section's chunks in both sets; ``versions`` (policy versions, hex digits:
        never markup) title the two trees."""
        for side, chunks, version in (("a", chunks_a, versions[0]), ("b", chunks_b, versions[1])):
            tree = self.set_tree(side)
            count = f"{len(chunks)} chunk" + ("" if len(chunks) == 1 else "s")
            tree.border_title = f"{side.upper()} {version} · {count}"
            tree.show_chunks(chunks, chunk_changes(section, side))
