"""Which elements the Markdown converter treats as what: CSS selectors, seed 003's defaults.

Kept apart from the converter so that the policy (and its version hash) can name the settings
without importing lxml.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields


@dataclass(frozen=True)
class MarkdownConfig:
    """CSS selectors (lxml ``cssselect`` syntax) for each conversion role.

    Roles are resolved leaf to parent with this precedence: ``skip`` first, then ``grammar``,
    ``code_block``, ``table``, ``ordered_list``/``unordered_list``, ``note``, ``link``,
    ``inline_code``; an element matched by an earlier role keeps it. Elements no selector matches
    fall back to their HTML meaning (``p``, ``div``, headings …). Defaults from seed 003, plus
    ecmarkup's hidden step labels in ``skip`` and Bikeshed's ``div.note`` /
    ``div.example`` as notes.
    """

    skip: tuple[str, ...] = ("script", "style", "template", "span.list-marker")
    grammar: tuple[str, ...] = ("emu-grammar", "emu-production")
    code_block: tuple[str, ...] = ("pre", "emu-eqn:not(.inline)")
    table: tuple[str, ...] = ("table",)
    ordered_list: tuple[str, ...] = ("ol",)
    unordered_list: tuple[str, ...] = ("ul",)
    note: tuple[str, ...] = ("emu-note", "emu-example", "div.note", "div.example")
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

    def settings(self) -> dict[str, list[str]]:
        """JSON-ready form (lists of selectors per role), part of the policy version hash."""
        return {name: list(value) for name, value in asdict(self).items()}

    @classmethod
    def from_settings(cls, settings: dict[str, list[str]] | None) -> MarkdownConfig:
        """Inverse of :meth:`settings`; unknown keys are ignored, missing ones take defaults."""
        known = {f.name for f in fields(cls)}
        return cls(**{k: tuple(v) for k, v in (settings or {}).items() if k in known})
