"""The ``specbrowser`` console script and ``python -m specbrowser``: a light entry point.

:func:`run` imports the command line (Rich, sqlite-utils, lxml: about 0.4 s) inside itself, so

- Ctrl-C during those imports ends in the usual one line and status 130, not a traceback;
- a re-chunk child that multiprocessing starts from the app imports the parent's main module
  again (its rule for ``spawn`` and fork-server children): the console script's main module
  imports only this one and :mod:`specbrowser.process`, not the whole command line.
"""

from __future__ import annotations

import sys

from specbrowser.process import (
    COMMITS,
    EXIT_INTERRUPTED,
    exit_quickly_from_now,
    interrupted_message,
    leave,
    pause_collector,
    resume_collector,
)


def run() -> int:
    """Run the command line with ``sys.argv``; returns the exit status. Ctrl-C outside a
    command's own handling (during the imports, or around the command) ends in the same one
    line as inside it, saying what was committed if anything was."""
    commits_before = len(COMMITS)
    try:
        pause_collector()  # the imports' objects live until the exit: nothing to collect
        try:
            # deferred: the command line's imports (about 0.4 s) stay out of a re-chunk child
            from specbrowser.cli import main
        finally:
            resume_collector()  # Ctrl-C during the imports too
        return main()
    except KeyboardInterrupt:
        sys.stderr.write(interrupted_message(COMMITS[commits_before:]) + "\n")
        return EXIT_INTERRUPTED


def console() -> None:
    """The console script: :func:`run`, then :func:`~specbrowser.process.leave` with its status.
    Never returns."""
    exit_quickly_from_now()
    leave(run())


if __name__ == "__main__":  # not when a spawned child process imports this module
    console()
