"""The policy editor: threshold and its unit, breakdown tag order, max depth, strategy, minimum
size and Markdown selectors.

A modal screen over the browser. It edits a copy of the active :class:`ChunkPolicy` and
dismisses with the new policy (Apply, ``ctrl+s``) or None (Escape); the browser then re-chunks
in the background. Every field is checked as the user types, with the reason shown under the
form: the policy's own validation (:class:`ChunkPolicy` raises :class:`PolicyError`) is the
one source of the rules, so the editor never accepts what the command line would refuse.

Tags: the list holds the policy's tags in order (checked) and a few common others
(unchecked). Space toggles a tag, ``ctrl+up`` / ``ctrl+down`` (or ``[`` / ``]``) move the
highlighted one, and the input below adds an element name or a CSS selector as a custom tag.
"""

from __future__ import annotations

from typing import ClassVar

import cssselect
from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.validation import Number
from textual.widgets import Button, Collapsible, Input, Label, SelectionList, Static
from textual.widgets.selection_list import Selection

from specbrowser.chunking.markdown_config import MarkdownConfig
from specbrowser.chunking.policy import ChunkPolicy
from specbrowser.errors import PolicyError
from specbrowser.formats import format_for_kind
from specbrowser.tui.widgets.ordered_input import OrderedInput
from specbrowser.types import BREAKDOWN_STRATEGIES, SIZE_UNITS

MARKDOWN_ROLES: tuple[tuple[str, str], ...] = (
    ("skip", "Skip (dropped)"),
    ("note", "Notes (quoted)"),
    ("code_block", "Code blocks"),
    ("grammar", "Grammar"),
    ("inline_code", "Inline code"),
)
"""The Markdown roles the editor exposes (comma-separated CSS selectors each): the ones that
change chunk text on real specs. The others keep the policy's values."""


class FormBody(VerticalScroll, can_focus=False):
    """The editor's fields, scrolled between the heading and the footer when the terminal is
    too short for them all. Not a tab stop of its own: Tab moves through the fields and
    scrolls each into view."""


class PolicyEditor(ModalScreen[ChunkPolicy | None]):
    """Edit a chunk policy; dismiss with the new policy, or None when cancelled.

    Args:
        policy: the policy to start from (the active one).
        kind: the spec's document kind: its format's default and suggested tags are offered
            unchecked beside the policy's own.
    """

    CSS_PATH = "policy_editor.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel"),
        Binding("ctrl+s", "apply", "Apply", priority=True),
        Binding("ctrl+up,left_square_bracket", "move(-1)", "Tag up", show=False),
        Binding("ctrl+down,right_square_bracket", "move(1)", "Tag down", show=False),
    ]

    def __init__(self, policy: ChunkPolicy, kind: str | None = None) -> None:
        super().__init__(id="policy-editor")
        self.policy = policy
        spec_format = format_for_kind(kind)
        offered = (*spec_format.breakdown_tags, *spec_format.suggested_tags)
        others = [t for t in offered if t not in policy.breakdown_tags]
        self._tags: list[tuple[str, bool]] = [(t, True) for t in policy.breakdown_tags]
        self._tags += [(t, False) for t in dict.fromkeys(others)]

    def compose(self) -> ComposeResult:
        with Vertical(id="policy-box"):
            yield Label("Chunk policy", id="policy-heading")
            with FormBody(id="policy-body"):
                yield from self._fields()
            with Vertical(id="policy-footer"):
                yield Static("", id="policy-status")
                with Horizontal(id="policy-buttons"):
                    yield Button("Apply", variant="primary", id="policy-apply")
                    yield Button("Cancel", id="policy-cancel")

    def _fields(self) -> ComposeResult:
        """The fields the body scrolls: the numbers, the tags, the Markdown selectors."""
        with Grid(id="policy-numbers"):
            yield Label("Threshold")
            yield OrderedInput(
                str(self.policy.threshold),
                type="integer",
                id="policy-threshold",
                validators=[Number(minimum=1)],
            )
            yield Label("Max depth")
            yield OrderedInput(
                str(self.policy.max_depth),
                type="integer",
                id="policy-max-depth",
                validators=[Number(minimum=0)],
            )
            yield Label("Strategy")
            yield OrderedInput(
                self.policy.strategy,
                id="policy-strategy",
                placeholder=" or ".join(BREAKDOWN_STRATEGIES),
            )
            yield Label("Min size")
            yield OrderedInput(
                str(self.policy.min_chars),
                type="integer",
                id="policy-min-chars",
                validators=[Number(minimum=0)],
            )
            yield Label("Unit")
            yield OrderedInput(
                self.policy.unit, id="policy-unit", placeholder=" or ".join(SIZE_UNITS)
            )
        yield Label(
            "Breakdown tags, tried in order (space: on/off · [ ] or ctrl+↑↓: move)",
            classes="policy-label",
        )
        yield SelectionList[str](*self._selections(), id="policy-tags")
        yield OrderedInput(
            placeholder="add a tag: element name or CSS selector (div.note), Enter",
            id="policy-new-tag",
        )
        with Collapsible(title="Markdown selectors", id="policy-markdown"):
            for role, title in MARKDOWN_ROLES:
                yield Label(title, classes="policy-label")
                yield OrderedInput(
                    ", ".join(getattr(self.policy.markdown, role)), id=f"policy-md-{role}"
                )

    def on_mount(self) -> None:
        """Focus the threshold (at once: keys typed right after ``e`` go to it); show the policy
        the form holds. The fields blink their cursors as the app's do (not in tests and
        snapshots, whose app turns blinking off)."""
        blink = getattr(self.app, "cursor_blink", True)
        for field in self.query(Input):
            field.cursor_blink = blink
        self.set_focus(self.query_one("#policy-threshold", Input))
        self._check()

    def on_resize(self, _event: events.Resize) -> None:
        self._fit_body()

    def _fit_body(self) -> None:
        """Cap the body's height so that the heading, the body and the footer (the status
        line, which wraps, and the buttons) fit the screen: the body scrolls, the footer stays
        in sight. Runs when the screen resizes and after the status line changes; does nothing
        once the editor is closing (a refresh queued before Apply can run after it)."""
        if not self.is_attached or not self.query("#policy-footer"):
            return
        box = self.query_one("#policy-box")
        body = self.query_one("#policy-body")
        footer = self.query_one("#policy-footer")
        around = footer.region.bottom - box.content_region.y - body.outer_size.height
        room = self.size.height - box.styles.gutter.height - around
        body.styles.max_height = max(room, 3)

    # --- tags ---------------------------------------------------------------------------------

    def _selections(self) -> list[Selection[str]]:
        return [Selection(tag_prompt(tag, on), tag, on) for tag, on in self._tags]

    def _sync_checks(self) -> None:
        """Read the checked state back from the list (Space toggles it there)."""
        chosen = set(self.query_one("#policy-tags", SelectionList).selected)
        self._tags = [(tag, tag in chosen) for tag, _on in self._tags]

    def _rebuild(self, highlight: int) -> None:
        tags = self.query_one("#policy-tags", SelectionList)
        tags.clear_options()
        tags.add_options(self._selections())
        tags.highlighted = highlight
        self._check()

    def action_move(self, step: int) -> None:
        """Move the highlighted tag up (-1) or down (+1) in the order."""
        tags = self.query_one("#policy-tags", SelectionList)
        index = tags.highlighted
        if index is None or not 0 <= index + step < len(self._tags):
            return
        self._sync_checks()
        self._tags[index], self._tags[index + step] = self._tags[index + step], self._tags[index]
        self._rebuild(index + step)

    @on(Input.Submitted, "#policy-new-tag")
    def _add_tag(self, event: Input.Submitted) -> None:
        event.stop()
        typed = event.value.strip()
        if not typed:
            return
        try:
            tag = ChunkPolicy.from_tag_list(1, typed, 0).breakdown_tags
        except PolicyError as error:
            self._status(str(error), error=True)
            return
        if len(tag) != 1:
            self._status("add one tag at a time", error=True)
            return
        self._sync_checks()
        if tag[0] in [t for t, _on in self._tags]:
            self._status(f"{tag[0]} is in the list already", error=True)
            return
        enabled = sum(1 for _t, on in self._tags if on)
        self._tags.insert(enabled, (tag[0], True))  # after the enabled tags: tried last
        event.input.value = ""
        self._rebuild(enabled)

    @on(SelectionList.SelectedChanged, "#policy-tags")
    def _toggled(self) -> None:
        """Say "off" beside each tag Space turned off (the toggle differs only by colour)."""
        was = dict(self._tags)
        self._sync_checks()
        tags = self.query_one("#policy-tags", SelectionList)
        for index, (tag, enabled) in enumerate(self._tags):
            if was.get(tag) != enabled:
                tags.replace_option_prompt_at_index(index, tag_prompt(tag, enabled))
        self._check()

    @on(Input.Changed)
    def _changed(self) -> None:
        self._check()

    # --- the policy ---------------------------------------------------------------------------

    def build_policy(self) -> ChunkPolicy:
        """The policy the form describes.

        Raises:
            PolicyError: a field does not make a valid policy (the message says which).
        """
        self._sync_checks()
        threshold = self._number("#policy-threshold", "threshold")
        max_depth = self._number("#policy-max-depth", "max depth")
        min_chars = self._number("#policy-min-chars", "min size")
        strategy = self.query_one("#policy-strategy", Input).value.strip().lower()
        unit = self.query_one("#policy-unit", Input).value.strip().lower()
        markdown = self.policy.markdown.with_selectors(
            {
                role: tuple(
                    s.strip()
                    for s in self.query_one(f"#policy-md-{role}", Input).value.split(",")
                    if s.strip()
                )
                for role, _title in MARKDOWN_ROLES
            }
        )
        _check_selectors(markdown)
        return ChunkPolicy(
            threshold=threshold,
            max_depth=max_depth,
            markdown=markdown,
            breakdown_tags=tuple(tag for tag, on in self._tags if on),
            strategy=strategy,  # type: ignore[arg-type]  # ChunkPolicy checks it
            min_chars=min_chars,
            unit=unit,  # type: ignore[arg-type]  # ChunkPolicy checks it
        )

    def _number(self, selector: str, name: str) -> int:
        value = self.query_one(selector, Input).value.strip()
        try:
            return int(value)
        except ValueError:
            raise PolicyError(f"{name} must be a whole number, got {value!r}") from None

    def _check(self) -> ChunkPolicy | None:
        """Validate the form; show the resulting policy or the reason it is not one."""
        try:
            policy = self.build_policy()
        except PolicyError as error:
            self._status(str(error), error=True)
            self.query_one("#policy-apply", Button).disabled = True
            return None
        same = policy.version == self.policy.version
        self._status(
            f"{policy.describe()} · version {policy.version}"
            + (" (the active policy)" if same else "")
        )
        self.query_one("#policy-apply", Button).disabled = False
        return policy

    def _status(self, message: str, *, error: bool = False) -> None:
        status = self.query_one("#policy-status", Static)
        status.update(Text(message, style="bold red" if error else ""))
        status.set_class(error, "-error")
        self.call_after_refresh(self._fit_body)  # the status may wrap to more or fewer lines

    @on(Button.Pressed, "#policy-apply")
    def action_apply(self) -> None:
        """Dismiss with the new policy when the form is valid."""
        policy = self._check()
        if policy is not None:
            self.dismiss(policy)

    @on(Button.Pressed, "#policy-cancel")
    def action_cancel(self) -> None:
        """Dismiss with None: nothing changes."""
        self.dismiss(None)


def tag_prompt(tag: str, on: bool) -> Text:
    """A tag's line in the list: the tag, and "off" (dim) when it is not tried, so that the
    state reads without colour too (the list's toggle differs only by colour)."""
    return Text(tag) if on else Text.assemble(tag, ("  off", "dim"))


def _check_selectors(markdown: MarkdownConfig) -> None:
    """Raise :class:`PolicyError` naming the first Markdown selector cssselect cannot parse."""
    for role, _title in MARKDOWN_ROLES:
        for selector in getattr(markdown, role):
            try:
                cssselect.parse(selector)
            except cssselect.SelectorError as exc:
                raise PolicyError(f"Markdown {role} selector {selector!r}: {exc}") from None
