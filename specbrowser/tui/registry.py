"""The app's commands, each declared once: key, action, footer label, help group, palette entry.

Everything that lists the app's commands reads :data:`COMMANDS`: the ``BINDINGS`` of the app and
of the browser screen (:func:`bindings`), the help screen's groups (:data:`HELP_GROUPS`), the
command palette (:func:`palette_commands` for the system commands, :func:`filter_commands` for
the tree filters) and the README's key table (``tests/unit/test_docs.py`` checks it against
:data:`COMMANDS` both ways). A new key is one :class:`Command` here and one README row.
"""

from __future__ import annotations

from typing import Literal, NamedTuple

from textual.binding import Binding

from specbrowser.chunking.stats import MOSTLY_MARKERS_SHARE, TINY_CHARS
from specbrowser.session import filters
from specbrowser.types import FilterKind

Scope = Literal["app", "browser"]
"""Whose action a command runs: the app's, or the browser screen's (active on that screen)."""

HelpGroup = Literal["Move", "Search", "Show only", "Chunk sets", "View", "App"]

HELP_GROUPS: tuple[HelpGroup, ...] = ("Move", "Search", "Show only", "Chunk sets", "View", "App")
"""The help screen's groups, in the order it lists them."""

FILTER_GROUP = Binding.Group("Only ≠/⚠")
"""The two filter keys share one footer entry: the marks they keep."""

MARKER_GROUP = Binding.Group("Markers")
"""``n`` and ``p`` share one footer entry (room for every key in 120 columns)."""

HIT_GROUP = Binding.Group("Hits")
"""``n`` and ``N`` during hit navigation (``p`` is off until Escape ends it)."""

KEY_HINTS = {"question_mark": "?", "slash": "/", "f1": "F1"}
"""Textual key names as a palette help line writes them."""


class Command(NamedTuple):
    """One command of the app: a key binding, a palette entry, or both.

    ``key`` is Textual's key list (``"N,shift+n"``), None for a palette-only command;
    ``textual_key`` marks a key Textual binds itself (``ctrl+p``), listed on the help screen but
    not bound again. ``label`` is the footer's and the help screen's text; ``group`` the help
    screen's group (None: listed after the groups). ``palette`` names the command in the command
    palette, ``palette_help`` is its help line there (the key is added to it); a tree filter
    command (``filter``) says in ``palette_help`` what the filter shows.
    """

    id: str
    scope: Scope
    action: str
    key: str | None = None
    label: str = ""
    group: HelpGroup | None = None
    palette: str | None = None
    palette_help: str = ""
    filter: FilterKind | None = None
    show: bool = True
    priority: bool = False
    footer_group: Binding.Group | None = None
    textual_key: bool = False

    def binding(self) -> Binding:
        """The command's key binding (its id is the command's)."""
        assert self.key is not None, f"{self.id} has no key"
        return Binding(
            self.key,
            self.action,
            self.label,
            show=self.show,
            priority=self.priority,
            id=self.id,
            group=self.footer_group,
        )

    @property
    def key_hint(self) -> str:
        """The keys as the palette's help line names them: ``"E,shift+e"`` → ``"E"``,
        ``"question_mark,f1"`` → ``"? or F1"``; "" without a key."""
        if self.key is None:
            return ""
        shown: list[str] = []
        for key in self.key.split(","):
            key = key.strip()
            if key.startswith("shift+") and len(key) == 7 and key[-1].upper() in shown:
                continue
            shown.append(KEY_HINTS.get(key, key))
        return " or ".join(shown)

    @property
    def method(self) -> str:
        """The name of the method that runs the command (``action_`` and the action's name)."""
        return "action_" + self.action.partition("(")[0]

    @property
    def palette_line(self) -> str:
        """The palette's help line: :attr:`palette_help`, then the keys in parentheses."""
        return f"{self.palette_help} ({self.key_hint})" if self.key else self.palette_help

    @property
    def filter_title(self) -> str:
        """What a filter command shows, as the tree's border title: ``"only tiny chunks"``."""
        assert self.palette is not None
        return self.palette[0].lower() + self.palette[1:]


COMMANDS: tuple[Command, ...] = (
    # --- the app (every screen) ---
    Command("jump-to-section", "app", "jump", "g,ctrl+g", "Jump", "Move"),
    Command(
        "help",
        "app",
        "help",
        "question_mark,f1",
        "Help",
        "App",
        palette="Help: keys",
        palette_help="Every key, by group",
    ),
    Command("quit", "app", "quit", "q", "Quit", "App"),
    Command(
        "command-palette",
        "app",
        "command_palette",
        "ctrl+p",
        "command palette: commands, then sections and chunks",
        textual_key=True,
    ),
    # --- the browser screen ---
    # priority: "/" and "e" run when their key arrives, before the keys typed after them are
    # routed (else those went to the tree: "/ q" quit); a focused input consuming the key
    # (typing "/" or "e" in the search bar) takes it first all the same
    Command("search", "browser", "search", "slash", "Search", "Search", priority=True),
    # during hit navigation n and N step through the search hits (see check_action)
    Command("next-hit", "browser", "next_hit", "n", "Next hit", "Search", footer_group=HIT_GROUP),
    Command(
        "previous-hit",
        "browser",
        "previous_hit",
        "N,shift+n",
        "Prev hit",
        "Search",
        footer_group=HIT_GROUP,
    ),
    Command(
        "next-marker",
        "browser",
        "next_marker",
        "n",
        "Next marker",
        "Move",
        footer_group=MARKER_GROUP,
    ),
    Command(
        "previous-marker",
        "browser",
        "previous_marker",
        "p",
        "Prev marker",
        "Move",
        footer_group=MARKER_GROUP,
    ),
    Command("follow-marker", "browser", "follow_marker", "f", "Follow", "Move"),
    # the footer fits 80 columns: these and the rest below are on the help screen (?)
    Command("go-to-parent", "browser", "parent", "u", "Parent", "Move", show=False),
    Command(
        "next-over-threshold",
        "browser",
        "next_over_threshold",
        "o",
        "Overrun",
        "Move",
        show=False,
    ),
    Command(
        "toggle-retrieval-text",
        "browser",
        "toggle_retrieval_text",
        "t",
        "Retrieval",
        "View",
        palette="Toggle retrieval text",
        palette_help="Show the chunk's retrieval text (what search and embeddings index), "
        "or its content",
        show=False,
    ),
    Command(
        "toggle-section-view",
        "browser",
        "toggle_section_view",
        "b",
        "Boundaries",
        "View",
        show=False,
    ),
    Command("toggle-source", "browser", "toggle_source", "h", "Source HTML", "View", show=False),
    Command(
        "show-document",
        "browser",
        "show_document",
        palette="Document synopsis",
        palette_help="Go to the document chunk: title, kind and top-level outline",
    ),
    Command(
        "filter-mismatched",
        "browser",
        f"toggle_filter('{filters.MISMATCHED}')",
        "m",
        "Only mismatched",
        "Show only",
        palette="Only mismatched sections",
        palette_help="the sections whose parser heading path differs from the TOC's",
        filter=filters.MISMATCHED,
        show=False,
        footer_group=FILTER_GROUP,
    ),
    Command(
        "filter-over-threshold",
        "browser",
        f"toggle_filter('{filters.OVER_THRESHOLD}')",
        "O,shift+o",
        "Only overruns",
        "Show only",
        palette="Only over-threshold chunks",
        palette_help="the chunks that stayed over the threshold",
        filter=filters.OVER_THRESHOLD,
        show=False,
        footer_group=FILTER_GROUP,
    ),
    Command(
        "filter-tiny",
        "browser",
        f"toggle_filter('{filters.TINY}')",
        "T,shift+t",
        "Only tiny",
        "Show only",
        palette="Only tiny chunks",
        palette_help=f"the chunks the breakdown made with under {TINY_CHARS} characters "
        "besides markers",
        filter=filters.TINY,
        show=False,
    ),
    Command(
        "filter-marker-heavy",
        "browser",
        f"toggle_filter('{filters.MARKER_HEAVY}')",
        "M,shift+m",
        "Only marker-heavy",
        "Show only",
        palette="Only mostly-marker chunks",
        palette_help=f"the chunks whose markers are at least {MOSTLY_MARKERS_SHARE:.0%} of "
        "their characters",
        filter=filters.MARKER_HEAVY,
        show=False,
    ),
    Command(
        "edit-policy",
        "browser",
        "edit_policy",
        "e",
        "Policy",
        "Chunk sets",
        palette="Edit chunk policy",
        palette_help="Threshold, breakdown tags, max depth, Markdown selectors; "
        "Apply re-chunks in the background",
        priority=True,
    ),
    Command(
        "stats",
        "browser",
        "stats",
        "s",
        "Stats",
        "Chunk sets",
        palette="Statistics",
        palette_help="Sizes, depths, tags, layers, overruns, mismatches, truncated",
    ),
    Command(
        "evaluate",
        "browser",
        "evaluate",
        "v",
        "Evaluate",
        "Chunk sets",
        palette="Evaluate chunk sets",
        palette_help="Score the active set and another on a query file: hit@k, recall@k, MRR, "
        "token IoU; open a missed query's answer",
        show=False,
    ),
    Command(
        "advisor",
        "browser",
        "advise",
        "A,shift+a",
        "Advisor",
        "Chunk sets",
        palette="Advise a chunking policy",
        palette_help="Try policies on this spec, score each on the queries, apply the best",
        show=False,
    ),
    Command(
        "chunk-sets",
        "browser",
        "chunk_sets",
        "c",
        "Chunk sets",
        "Chunk sets",
        palette="Chunk sets",
        palette_help="Switch the active chunk set, or diff one with it",
        show=False,
    ),
    Command(
        "diff-sets",
        "browser",
        "diff",
        "d",
        "Diff sets",
        "Chunk sets",
        palette="Diff chunk sets",
        palette_help="Compare the previous chunk set with the active one",
        show=False,
    ),
    Command(
        "embed",
        "browser",
        "embed",
        "E,shift+e",
        "Embed",
        "Chunk sets",
        palette="Embed missing chunks",
        palette_help="Embed the texts that have no vector, in the background",
        show=False,
    ),
    Command(
        "close-search", "browser", "close_search", "escape", "End search", "Search", show=False
    ),
    Command(
        "search-mode",
        "browser",
        "cycle_search_mode",
        "ctrl+r",
        "Search mode",
        "Search",
        show=False,
    ),
    Command(
        "search-spec",
        "browser",
        "cycle_search_spec",
        "ctrl+o",
        "Search which spec",
        "Search",
        show=False,
    ),
)
"""Every command of the app, the app's first; within a scope, in the order the footer and the
help screen list them."""


def bindings(scope: Scope) -> list[Binding]:
    """The key bindings of ``scope``'s commands, in :data:`COMMANDS` order (keys Textual binds
    itself left out)."""
    return [
        command.binding()
        for command in COMMANDS
        if command.scope == scope and command.key is not None and not command.textual_key
    ]


def palette_commands(scope: Scope) -> list[Command]:
    """``scope``'s commands that the palette lists among its system commands (the tree filters
    have a provider of their own: :func:`filter_commands`)."""
    return [c for c in COMMANDS if c.scope == scope and c.palette and c.filter is None]


def filter_commands() -> list[Command]:
    """The tree filter commands, in :data:`COMMANDS` order."""
    return [c for c in COMMANDS if c.filter is not None]


def filter_title(kind: FilterKind) -> str:
    """What tree filter ``kind`` shows (``"only tiny chunks"``): the tree's border title and
    the notifications' wording."""
    return next(c.filter_title for c in COMMANDS if c.filter == kind)
