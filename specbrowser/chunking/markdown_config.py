"""Which elements the Markdown converter treats as what: CSS selectors and their defaults.

Kept apart from the converter so that the policy (and its version hash) can name the settings
without importing lxml.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

from specbrowser.types import EDIT_MODES, EditMode


@dataclass(frozen=True)
class MarkdownConfig:
    """CSS selectors (lxml ``cssselect`` syntax) for each conversion role.

    Roles are resolved leaf to parent with this precedence: ``skip`` first, then ``grammar``,
    ``code_block``, ``table``, ``ordered_list``/``unordered_list``, ``note``, ``link``,
    ``inline_code``; an element matched by an earlier role keeps it. Elements no selector matches
    fall back to their HTML meaning (``p``, ``div``, headings …). The defaults are plain HTML's
    and ecmarkup's elements for each role, ecmarkup's hidden step labels
    (``span.list-marker``) in ``skip``, and Bikeshed's notes, examples and warnings (``p.note``,
    ``div.example``, ``p.warning`` …) as notes.

    ``edits`` is not a selector: how a proposal's ``<del>``/``<ins>`` render
    (:data:`~specbrowser.types.EditMode`), ``current`` by default.
    """

    skip: tuple[str, ...] = ("script", "style", "template", "span.list-marker")
    grammar: tuple[str, ...] = ("emu-grammar", "emu-production")
    code_block: tuple[str, ...] = ("pre", "emu-eqn:not(.inline)")
    table: tuple[str, ...] = ("table",)
    ordered_list: tuple[str, ...] = ("ol",)
    unordered_list: tuple[str, ...] = ("ul",)
    note: tuple[str, ...] = (
        "emu-note",
        "emu-example",
        "div.note",
        "div.example",
        "p.note",
        "p.example",
        "p.warning",
        "div.warning",
        "aside.note",
        "aside.example",
    )
    link: tuple[str, ...] = ("a[href]",)
    inline_code: tuple[str, ...] = (
        "var",
        "emu-val",
        "emu-const",
        "code",
        "emu-eqn.inline",
        "emu-t",
        "kbd",
        "samp",
    )
    edits: EditMode = EDIT_MODES[0]

    def with_selectors(self, selectors: dict[str, tuple[str, ...]]) -> MarkdownConfig:
        """A copy with the selectors of the roles named in ``selectors`` replaced."""
        return replace(self, **selectors)  # type: ignore[arg-type]

    def settings(self) -> dict[str, list[str] | str]:
        """JSON-ready form (lists of selectors per role, the edit mode as its word), part of the
        policy version hash."""
        return {
            f.name: value if isinstance(value := getattr(self, f.name), str) else list(value)
            for f in fields(self)
        }

    @classmethod
    def from_settings(cls, settings: dict[str, list[str] | str] | None) -> MarkdownConfig:
        """Inverse of :meth:`settings`; unknown keys are ignored, missing ones take defaults, an
        unknown edit mode takes the default."""
        known = {f.name for f in fields(cls)}
        values: dict[str, object] = {}
        for key, value in (settings or {}).items():
            if key == "edits":
                values[key] = value if value in EDIT_MODES else EDIT_MODES[0]
            elif key in known:
                values[key] = tuple(value)
        return cls(**values)  # type: ignore[arg-type]
