"""The ``specbrowser`` command line: one entry point, one subcommand per job.

Each command module registers its commands (``register(sub)``) and handles them; ``_console``,
``_options`` and ``_summary`` hold what several of them share. Commands that do not open the app
never import Textual. Every user mistake ends in one red line on stderr and exit status 2; Ctrl-C
ends in one line saying what, if anything, was committed, and exit status 130.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import re
import sys
from collections.abc import Sequence
from typing import NoReturn

from rich.markup import escape

from specbrowser import __version__
from specbrowser.chunking.parallel import check_environment
from specbrowser.cli._console import err
from specbrowser.errors import SpecbrowserError
from specbrowser.process import COMMITS, EXIT_INTERRUPTED, EXIT_USER_ERROR, interrupted_message

EXIT_BROKEN_PIPE = 141
"""Exit status when stdout's reader closed early: 128 + SIGPIPE, as a shell reports it."""

COMMAND_MODULES: dict[str, tuple[str, ...]] = {
    "ingest": ("ingest",),
    "corpus": ("specs", "remove"),
    "app": ("open", "demo"),
    "inspect": ("show", "subsections", "stats", "mismatches"),
    "check": ("check",),
    "policies": ("policies",),
    "rechunk": ("rechunk",),
    "diff": ("diff",),
    "export": ("export",),
    "search": ("search", "embed"),
    "agent": ("mcp",),
    "eval": ("eval",),
    "advise": ("advise",),
}
"""The modules of :mod:`specbrowser.cli` whose ``register`` adds subcommands, in ``--help``
order, each with the commands it adds: a command's parser imports only its own module (for
``open``, 15–20 ms of the other commands' imports saved before the app's first frame)."""


class _Parser(argparse.ArgumentParser):
    """argparse, with a usage mistake (an unknown choice, a value that is not a number, a
    missing argument) as one red line naming ``--help`` instead of the usage block."""

    def error(self, message: str) -> NoReturn:
        if re.search(r"required: .*\bquery\b", message):  # argparse read a query -x as an option
            message += (
                " (a query that starts with - goes after -- and any options: "
                "search DB --limit 5 -- -x)"
            )
        err.print(
            f"[red]error:[/] {escape(message)} (see: {escape(self.prog)} --help)", soft_wrap=True
        )
        raise SystemExit(EXIT_USER_ERROR)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The top-level parser with every subcommand, or with only the subcommands of the module
    that adds ``command`` (:data:`COMMAND_MODULES`; every subcommand when no module adds it), which
    parses that command's arguments the same; each sets ``handler`` to its function."""
    parser = _Parser(
        prog="specbrowser",
        description="See and fix how a long specification is cut into chunks for retrieval.",
    )
    parser.add_argument("--version", action="version", version=f"specbrowser {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    names = [name for name, commands in COMMAND_MODULES.items() if command in commands]
    for name in names or COMMAND_MODULES:
        importlib.import_module(f"{__name__}.{name}").register(sub)
    return parser


class _NoticeHandler(logging.Handler):
    """specbrowser's INFO records (a database upgrade) as one dim line on stderr."""

    def emit(self, record: logging.LogRecord) -> None:
        err.print(f"[dim]{escape(record.getMessage())}[/]", soft_wrap=True)


def _show_notices() -> None:
    logger = logging.getLogger("specbrowser")
    if not any(isinstance(h, _NoticeHandler) for h in logger.handlers):
        logger.addHandler(_NoticeHandler())
        logger.setLevel(logging.INFO)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    commits_before = len(COMMITS)
    try:
        _show_notices()
        argv = sys.argv[1:] if argv is None else list(argv)
        if not argv:  # no command: the commands, as --help lists them
            build_parser().print_help()
            return 0
        args = build_parser(argv[0]).parse_args(argv)
        check_environment()  # a bad SPECBROWSER_WORKERS now, not after a parse
        return args.handler(args)
    except SpecbrowserError as exc:
        err.print(f"[red]error:[/] {escape(str(exc))}", soft_wrap=True)
        return EXIT_USER_ERROR
    except KeyboardInterrupt:
        message = interrupted_message(COMMITS[commits_before:])
        err.print(f"[yellow]{escape(message)}[/]", soft_wrap=True)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # the reader went away (`… | head`): stop quietly, as Unix tools do
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # so the interpreter's final flush cannot fail
        return EXIT_BROKEN_PIPE
