"""The options that give a chunk policy (``--threshold``, ``--tags``, …), the policy they give,
and the argparse ``type`` for whole numbers that every command's number options use."""

from __future__ import annotations

import argparse
import shlex
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from specbrowser.chunking.policy import (
    DEFAULT_MAX_DEPTH,
    DEFAULT_MIN_CHARS,
    DEFAULT_STRATEGY,
    DEFAULT_THRESHOLD_CHARS,
    ChunkPolicy,
    PolicyForKind,
)
from specbrowser.types import BREAKDOWN_STRATEGIES, EDIT_MODES, SIZE_UNITS

if TYPE_CHECKING:
    from specbrowser.chunking.stats import ChunkSetStats

# Deferred to the functions that read the formats, so that building the parser, which every
# command does, loads no lxml: specbrowser.formats (19 ms).


MAX_WHOLE = 1_000_000_000
"""The largest number an option takes (a threshold, a limit, a cut-off): far beyond any spec,
and well inside SQLite's integers."""


def at_least(minimum: int):
    """An argparse ``type`` for a whole number from ``minimum`` to :data:`MAX_WHOLE`: anything
    else is a usage error (one line, exit status 2)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, got {value}")
        if value > MAX_WHOLE:
            raise argparse.ArgumentTypeError(f"must be at most {MAX_WHOLE:,}, got {value}")
        return value

    parse.__name__ = f"number >= {minimum}"
    return parse


GIVEN = "policy_options_given"
"""The namespace attribute where :class:`_Given` records the policy options typed."""


def _record(namespace: argparse.Namespace, dest: str, typed: str) -> None:
    """Record that the option ``dest`` was typed, as ``typed`` (:func:`given_policy_options`)."""
    given = dict(getattr(namespace, GIVEN, None) or {})
    given[dest] = typed
    setattr(namespace, GIVEN, given)


class _Given(argparse.Action):
    """Store the value, as argparse's default action does, and record the option as typed
    (a default is never recorded): :func:`given_policy_options` reads them back."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        setattr(namespace, self.dest, values)
        _record(namespace, self.dest, f"{option_string} {shlex.quote(str(values))}")


class _GivenOff(argparse.Action):
    """A flag that turns a setting off (stores False), recorded as typed like :class:`_Given`."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=True, **kwargs)

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        setattr(namespace, self.dest, False)
        _record(namespace, self.dest, str(option_string))


def given_policy_options(args: argparse.Namespace) -> list[str]:
    """The policy options typed on the command line, each as ``--option value`` (quoted for a
    shell), in the order typed; [] when every one is its default."""
    return list((getattr(args, GIVEN, None) or {}).values())


DB_HELP = "a database written by specbrowser ingest"
"""The help of every command's ``DB`` argument."""


def add_db_argument(p: argparse.ArgumentParser) -> None:
    """Add the positional ``DB`` (a :class:`~pathlib.Path`) that most commands read."""
    p.add_argument("db", type=Path, metavar="DB", help=DB_HELP)


def add_policy_options(p: argparse.ArgumentParser) -> None:
    """``--threshold N`` (in ``--unit`` chars or tokens), ``--tags A,B,C`` (breakdown tags in
    order), ``--max-depth N``, ``--strategy guarded|seed``, ``--min-chars N``,
    ``--edits current|marked``, ``--no-summaries``; :func:`given_policy_options` says which
    were typed."""
    p.set_defaults(**{GIVEN: {}})
    p.add_argument(
        "--threshold",
        action=_Given,
        type=at_least(1),
        default=DEFAULT_THRESHOLD_CHARS,
        metavar="N",
        help=f"break down chunks longer than N (--unit; default {DEFAULT_THRESHOLD_CHARS} chars)",
    )
    p.add_argument(
        "--unit",
        action=_Given,
        choices=SIZE_UNITS,
        default=SIZE_UNITS[0],
        help="what --threshold counts: characters of a chunk's Markdown, or tokens of its "
        "retrieval text by the embedding model's tokenizer (the window it embeds; "
        "default chars)",
    )
    tags = p.add_argument(
        "--tags",
        action=_Given,
        default=None,
        metavar="A,B,C",
        help="breakdown tags in order: element names or CSS selectors (default %(format_tags)s)",
    )
    tags.format_tags = _FormatTags()  # type: ignore[attr-defined]
    p.add_argument(
        "--max-depth",
        action=_Given,
        type=at_least(0),
        default=DEFAULT_MAX_DEPTH,
        metavar="N",
        help=f"deepest subsection level (default {DEFAULT_MAX_DEPTH})",
    )
    p.add_argument(
        "--strategy",
        action=_Given,
        choices=BREAKDOWN_STRATEGIES,
        default=DEFAULT_STRATEGY,
        help="guarded: pack runs, keep rule units, no chunk under --min-chars or growing "
        "from its breakdown; seed: every element of a tag on its own "
        f"(default {DEFAULT_STRATEGY})",
    )
    p.add_argument(
        "--min-chars",
        action=_Given,
        type=at_least(0),
        default=DEFAULT_MIN_CHARS,
        metavar="N",
        help=f"guarded strategy: no chunk shorter than N characters (default {DEFAULT_MIN_CHARS})",
    )
    p.add_argument(
        "--edits",
        action=_Given,
        choices=EDIT_MODES,
        default=EDIT_MODES[0],
        help="a proposal's <del>/<ins>: current drops deleted text, marked keeps both as "
        f"~~deleted~~ and ++inserted++ (default {EDIT_MODES[0]})",
    )
    p.add_argument(
        "--no-summaries",
        dest="summaries",
        action=_GivenOff,
        help="leave the extractive Document summary / Section summary lines out of retrieval "
        "texts, and the summary packet out of the document chunk (default: on)",
    )


class _FormatTags:
    """The ``--tags`` help's defaults, per spec format (``emu-table,…; for plain HTML specs
    table,…``): formatted only when help is shown, so that building the parser does not import
    the formats (and lxml)."""

    def __str__(self) -> str:
        # deferred: see the module's imports
        from specbrowser.formats import DEFAULT_FORMAT, FORMATS

        parts = [",".join(DEFAULT_FORMAT.breakdown_tags)]
        parts += [
            f"for {f.title} specs {','.join(f.breakdown_tags)}"
            for f in FORMATS
            if f is not DEFAULT_FORMAT
        ]
        return "; ".join(parts)


def policy_from_args(args: argparse.Namespace) -> ChunkPolicy:
    """The policy the policy options give, for a spec of no known kind yet (the default
    format's tags for the strategy when ``--tags`` is not given)."""
    return _policy(args, None, args.tags)


def policy_for_kind_from_args(args: argparse.Namespace) -> PolicyForKind | None:
    """None when the user typed ``--tags`` (their order wins for every kind of spec); else the
    hook that gives the parsed spec's kind its format's default tags
    (:func:`specbrowser.formats.policy_for`)."""
    if args.tags is not None:
        return None
    return lambda kind: _policy(args, kind, None)


def _policy(args: argparse.Namespace, kind: str | None, tags: str | None) -> ChunkPolicy:
    """:func:`specbrowser.formats.policy_for` with the options' settings.

    Raises:
        PolicyError: as :meth:`ChunkPolicy.from_tag_list`.
    """
    # deferred: see the module's imports
    from specbrowser.formats import policy_for

    policy = policy_for(
        kind,
        args.threshold,
        tags,
        args.max_depth,
        strategy=args.strategy,
        min_chars=args.min_chars,
        unit=args.unit,
        edits=args.edits,
    )
    return policy if getattr(args, "summaries", True) else replace(policy, summaries=False)


def unused_tags(policy: ChunkPolicy, stats: ChunkSetStats) -> list[str]:
    """The breakdown tags that extracted nothing although some chunk stayed over the
    threshold after every tag was tried on it (``unsplittable``, ``markers``): a typo such as
    ``emu_table``, or a tag the spec does not use. [] when nothing was left unsplittable (with
    max depth 0, say, no tag was tried at all), and for a format's own default tags (a spec
    that has no ``li`` to break down is no mistake of the user's)."""
    # deferred: see the module's imports
    from specbrowser.formats import FORMATS

    if not any(stats.over_threshold.get(reason) for reason in ("unsplittable", "markers")):
        return []
    tags = tuple(policy.breakdown_tags)
    if any(tags in (tuple(f.breakdown_tags), tuple(f.seed_breakdown_tags)) for f in FORMATS):
        return []
    return [tag for tag in tags if tag not in stats.by_tag]
