"""The chunk policy: what the breakdown does, and a stable version hash of it."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from specbrowser.chunking.markdown_config import MarkdownConfig
from specbrowser.errors import PolicyError
from specbrowser.types import BREAKDOWN_STRATEGIES, SIZE_UNITS, BreakdownStrategy, SizeUnit

CONVERTER_VERSION = 9
"""Bumped whenever the Markdown converter, the breakdown or the retrieval text changes its
output, so that a policy version names a reproducible chunk set (the policy's settings hold it:
:meth:`ChunkPolicy.settings`). A threshold in tokens adds settings; it changes no version of a
policy in characters."""

DEFAULT_THRESHOLD_CHARS = 5000
"""The default threshold, in characters: a section whose Markdown is longer is broken down."""

SEED_BREAKDOWN_TAGS: tuple[str, ...] = ("emu-table", "emu-grammar", "td", "p")
"""The seed strategy's default tags, tried in this order: whole tables, grammar, cells,
paragraphs. These are ECMA-262's (ecmarkup element names)."""

DEFAULT_BREAKDOWN_TAGS: tuple[str, ...] = (*SEED_BREAKDOWN_TAGS, "li", "emu-production")
"""The guarded strategy's default tags: the seed strategy's, then list items (algorithm steps,
packed into runs of steps) and grammar productions (packed into runs; the grammar summaries of an
annex are productions with no ``emu-grammar`` around them). A :class:`ChunkPolicy` built
without naming its tags gets its strategy's default (these, or :data:`SEED_BREAKDOWN_TAGS`):
the ecmarkup format's default policy, which stored policy versions and the tests hash. Each
format's own defaults: :attr:`specbrowser.formats.base.SpecFormat.breakdown_tags`."""

MAX_THRESHOLD = 1_000_000_000
"""The largest threshold a policy takes (stored in SQLite integers; far beyond any spec)."""

DEFAULT_MAX_DEPTH = 3
"""The default deepest chunk depth: section (0) > table (1) > cell (2) > paragraph (3)."""

DEFAULT_STRATEGY: BreakdownStrategy = BREAKDOWN_STRATEGIES[0]
"""``guarded``: the breakdown with its guard rails (:mod:`specbrowser.chunking.guards`)."""

DEFAULT_MIN_CHARS = 200
"""The guarded strategy's minimum chunk size in characters: an element (or packed run) whose
Markdown is shorter stays in its parent. About two sentences of prose, or a short algorithm."""

_TAG_RE = re.compile(r"^[a-z][a-z0-9-]*$")


@dataclass(frozen=True)
class ChunkPolicy:
    """How sections are broken into chunks.

    Attributes:
        threshold: a chunk longer than this many :attr:`unit` is broken down further. >= 1.
            In characters: of the chunk's Markdown text, markers included (Unicode code
            points, i.e. ``len(text)``). In tokens: of the chunk's retrieval text (its Markdown
            under the header lines of :func:`specbrowser.chunking.labels.retrieval_text`), as
            the embedding model's tokenizer counts them; the chunking is then given that count
            (:class:`specbrowser.chunking.pipeline.SizeMeasure`).
        unit: ``chars`` (the default) or ``tokens`` (:data:`specbrowser.types.SizeUnit`).
        breakdown_tags: tried in order (not given: the strategy's default,
            :data:`DEFAULT_BREAKDOWN_TAGS` or :data:`SEED_BREAKDOWN_TAGS`): lower-case HTML
            element names, or a CSS
            selector as a custom tag (``div.note``; :func:`tag_slug` gives its id part).
        max_depth: deepest chunk depth that may exist; depth 0 is the section's root chunk, so
            with 3 a chunk at depth 3 is never broken down.
        markdown: the converter's selectors (see :class:`MarkdownConfig`).
        strategy: how a tag's elements are extracted (:data:`BreakdownStrategy`): ``guarded``
            (the default) with the guard rails of :mod:`specbrowser.chunking.guards`, ``seed``
            every element on its own.
        min_chars: the guarded strategy's minimum chunk size in characters (>= 0): nothing
            shorter is extracted. The seed strategy has no minimum and ignores it.
        summaries: whether retrieval texts carry the extractive ``Document summary:`` and
            ``Section summary:`` lines and the document chunk the summary packet
            (:mod:`specbrowser.chunking.summaries`, seed 001); on by default.

    Raises:
        PolicyError: on a threshold < 1, a negative max depth or minimum, an unknown strategy,
            an empty, repeated or malformed tag (neither an element name nor one CSS selector).
    """

    threshold: int = DEFAULT_THRESHOLD_CHARS
    breakdown_tags: tuple[str, ...] = field(default=DEFAULT_BREAKDOWN_TAGS)
    max_depth: int = DEFAULT_MAX_DEPTH
    markdown: MarkdownConfig = field(default_factory=MarkdownConfig)
    strategy: BreakdownStrategy = DEFAULT_STRATEGY
    min_chars: int = DEFAULT_MIN_CHARS
    unit: SizeUnit = SIZE_UNITS[0]
    summaries: bool = True

    def __post_init__(self) -> None:
        if self.unit not in SIZE_UNITS:
            raise PolicyError(
                f"unknown threshold unit {self.unit!r}; choose one of {', '.join(SIZE_UNITS)}"
            )
        if not isinstance(self.threshold, int) or not 1 <= self.threshold <= MAX_THRESHOLD:
            raise PolicyError(
                f"threshold must be a whole number of {self.unit} from 1 to "
                f"{MAX_THRESHOLD:,}, got {self.threshold!r}"
            )
        if not isinstance(self.max_depth, int) or self.max_depth < 0:
            raise PolicyError(f"max depth must be a whole number >= 0, got {self.max_depth!r}")
        if self.strategy not in BREAKDOWN_STRATEGIES:
            raise PolicyError(
                f"unknown breakdown strategy {self.strategy!r}; "
                f"choose one of {', '.join(BREAKDOWN_STRATEGIES)}"
            )
        if not isinstance(self.min_chars, int) or self.min_chars < 0:
            raise PolicyError(
                f"minimum size must be a whole number of characters >= 0, got {self.min_chars!r}"
            )
        if self.strategy == "seed":  # no minimum: every seed policy of the same tags, threshold
            # and depth is one chunk set (one version), whatever minimum was typed
            object.__setattr__(self, "min_chars", DEFAULT_MIN_CHARS)
            if self.breakdown_tags is DEFAULT_BREAKDOWN_TAGS:  # no tags named: the seed's
                object.__setattr__(self, "breakdown_tags", SEED_BREAKDOWN_TAGS)
        tags = tuple(self.breakdown_tags)
        object.__setattr__(self, "breakdown_tags", tags)
        for tag in tags:
            if not _TAG_RE.match(tag):
                check_selector_tag(tag)
        if len(set(tags)) != len(tags):
            raise PolicyError(f"breakdown tags repeat a tag: {','.join(tags)}")
        slugs = [tag_slug(tag) for tag in tags]
        if len(set(slugs)) != len(slugs):
            raise PolicyError(
                f"two breakdown tags give the same subsection id part: {','.join(tags)}"
            )

    @classmethod
    def from_tag_list(
        cls,
        threshold: int,
        tags: str | None,
        max_depth: int,
        markdown: MarkdownConfig | None = None,
        default_tags: tuple[str, ...] | None = None,
        *,
        strategy: BreakdownStrategy = DEFAULT_STRATEGY,
        min_chars: int = DEFAULT_MIN_CHARS,
        unit: SizeUnit = SIZE_UNITS[0],
    ) -> ChunkPolicy:
        """Build a policy from a comma-separated tag list as typed on the command line.

        ``tags=None`` (the user typed no ``--tags``) takes ``default_tags`` (a spec format's for
        the strategy, :func:`specbrowser.formats.policy_for`), else the strategy's default.

        Raises:
            PolicyError: ``tags`` names no tag (``''``, ``','``: an empty shell variable, most
                likely; "no breakdown" is max depth 0), or a tag is malformed or repeated.
        """
        parsed = (
            (DEFAULT_BREAKDOWN_TAGS if default_tags is None else tuple(default_tags))
            if tags is None
            else tuple(_normal_tag(t) for t in tags.split(",") if t.strip())
        )
        if tags is not None and not parsed:
            raise PolicyError(
                f"the tag list {tags!r} names no breakdown tag; give at least one "
                "(for no breakdown at all, set max depth 0)"
            )
        return cls(
            threshold=threshold,
            breakdown_tags=parsed,
            max_depth=max_depth,
            markdown=markdown or MarkdownConfig(),
            strategy=strategy,
            min_chars=min_chars,
            unit=unit,
        )

    def settings(self) -> dict[str, object]:
        """The settings as a JSON-ready dict, including the converter version. The threshold is
        ``threshold_chars`` or ``threshold_tokens`` by its unit (so a policy in characters has
        the settings, and the version, it had before tokens were a unit)."""
        settings: dict[str, object] = {
            f"threshold_{self.unit}": self.threshold,
            "breakdown_tags": list(self.breakdown_tags),
            "max_depth": self.max_depth,
            "markdown": self.markdown.settings(),
            "strategy": self.strategy,
            "min_chars": self.min_chars,
            "converter_version": CONVERTER_VERSION,
        }
        if not self.summaries:  # named only when off: the default's version stays as it was
            settings["summaries"] = False
        return settings

    @classmethod
    def from_settings(cls, settings: Mapping[str, Any]) -> ChunkPolicy:
        """Inverse of :meth:`settings` (the converter version is not part of the policy);
        ``settings`` is decoded JSON, so its values are converted here. Settings without a
        ``strategy`` key are the seed strategy's (stored sets made before it was a setting)."""
        threshold, unit = stored_threshold(settings)
        if threshold is None:
            raise KeyError("threshold_chars")
        return cls(
            threshold=threshold,
            unit=unit,
            breakdown_tags=tuple(settings["breakdown_tags"]),
            max_depth=int(settings["max_depth"]),
            markdown=MarkdownConfig.from_settings(settings.get("markdown")),
            strategy=settings.get("strategy", "seed"),
            min_chars=int(settings.get("min_chars", DEFAULT_MIN_CHARS)),
            summaries=bool(settings.get("summaries", True)),
        )

    @property
    def version(self) -> str:
        """A short stable hash (12 hex digits) of the canonical JSON of :meth:`settings`."""
        canonical = json.dumps(self.settings(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(canonical.encode()).hexdigest()[:12]

    def describe(self) -> str:
        """One line for headers and summaries:
        ``threshold 5000 · table → … · max depth 3 · guarded, min 200`` (``· seed``); a
        threshold in tokens reads ``threshold 512 tokens``; a proposal's edits shown marked add
        ``· edits marked`` (the default, ``current``, is not named)."""
        tags = " → ".join(self.breakdown_tags) or "(no tags)"
        edits = "" if self.markdown.edits == "current" else f" · edits {self.markdown.edits}"
        summaries = "" if self.summaries else " · no summaries"
        return (
            f"threshold {self.threshold_label} · {tags} · max depth {self.max_depth} · "
            f"{self.strategy_label}{edits}{summaries}"
        )

    @property
    def threshold_label(self) -> str:
        """``5000`` (characters, the default unit) or ``512 tokens``."""
        return str(self.threshold) if self.unit == "chars" else f"{self.threshold} tokens"

    @property
    def strategy_label(self) -> str:
        """``guarded, min 200`` or ``seed`` (which has no minimum)."""
        if self.strategy == "seed":
            return "seed"
        return f"{self.strategy}, min {self.min_chars}"


def stored_threshold(settings: Mapping[str, object]) -> tuple[int | None, SizeUnit]:
    """A stored set's threshold and its unit, from its settings (:meth:`ChunkPolicy.settings`
    writes ``threshold_chars`` or ``threshold_tokens``); ``(None, "chars")`` when they lack it."""
    for unit in SIZE_UNITS:
        value = settings.get(f"threshold_{unit}")
        if isinstance(value, int):
            return value, unit
    return None, "chars"


def stored_threshold_label(settings: Mapping[str, object]) -> str:
    """A stored set's threshold with its unit (:func:`stored_threshold`): ``5,000 chars``,
    ``512 tokens``, or ``? chars`` when the settings lack it."""
    value, unit = stored_threshold(settings)
    return (
        f"{'?' if value is None else f'{value:,}'} {unit.removesuffix('s') if value == 1 else unit}"
    )


_QUOTED = re.compile(r"""("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')""")


def _normal_tag(typed: str) -> str:
    """An element name in lower case; a CSS selector as typed (class names are case-sensitive)
    but with each run of whitespace outside quotes as one space, so that ``div  >  ol``
    and ``div > ol`` are one tag and one policy version."""
    typed = typed.strip()
    if _TAG_RE.match(typed.lower()):
        return typed.lower()
    parts = _QUOTED.split(typed)  # odd indexes: quoted strings, kept as typed
    return "".join(part if i % 2 else re.sub(r"\s+", " ", part) for i, part in enumerate(parts))


def is_selector_tag(tag: str) -> bool:
    """Whether a breakdown tag is a CSS selector (``div.note``, ``div > ol``) rather than a
    plain element name (``table``, ``p``)."""
    return not _TAG_RE.match(tag)


def tag_slug(tag: str) -> str:
    """The part of a subsection id a breakdown tag gives (``<parent id>-<slug>-<n>``): the tag
    itself for an element name; for a CSS selector its letters and digits joined by ``-``
    (``div.note`` → ``div-note``, ``div > ol`` → ``div-ol``)."""
    if _TAG_RE.match(tag):
        return tag
    return re.sub(r"[^a-z0-9]+", "-", tag.lower()).strip("-") or "sel"


_STATE_PSEUDO_CLASS = re.compile(
    r":(?:link|visited|hover|active|focus|target|enabled|disabled|checked)\b", re.IGNORECASE
)
"""Pseudo-classes that cssselect's translator makes match nothing: states of a live page."""


def check_selector_tag(tag: str) -> None:
    """Check a custom breakdown tag given as one CSS selector (cssselect syntax, as the Markdown
    roles use).

    Raises:
        PolicyError: not a selector cssselect can parse, a selector list (commas separate tags
            on the command line), one with pseudo-elements, or one with a pseudo-class of a
            live page's state (``:hover``, ``:checked`` …), which matches nothing.
    """
    # cssselect here, not at the top: 4.5 ms of the command line's start-up (67 ms), which
    # imports this module; a command that neither chunks nor checks a selector never loads it
    import cssselect

    if "," in tag:
        raise PolicyError(f"breakdown tag {tag!r}: one selector per tag (commas separate tags)")
    try:
        parsed = cssselect.parse(tag)
    except cssselect.SelectorError as exc:
        raise PolicyError(
            f"breakdown tag {tag!r} is neither an element name (like table or p) "
            f"nor a CSS selector: {exc}"
        ) from None
    if len(parsed) != 1 or parsed[0].pseudo_element is not None:
        raise PolicyError(f"breakdown tag {tag!r}: one selector, without pseudo-elements")
    state = _STATE_PSEUDO_CLASS.search(" ".join(_QUOTED.split(tag)[::2]))
    if state:
        raise PolicyError(
            f"breakdown tag {tag!r}: {state.group(0)} is a browser state, which no "
            "element of a document has: it would match nothing"
        )


PolicyForKind = Callable[[str], ChunkPolicy]
"""``policy_for_kind(document_kind)``: the policy to chunk a spec of that kind with, decided
once the spec is parsed. The CLI passes one when the user typed no ``--tags``, so each kind gets
its own default tags while the user's ``--tags`` always win."""
