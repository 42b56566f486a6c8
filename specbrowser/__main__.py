"""The ``specbrowser`` console script and ``python -m specbrowser``: a light entry point.

:func:`run` imports the command line (Rich, sqlite-utils, lxml: about 0.4 s) inside itself, so

- Ctrl-C during those imports ends in the usual one line and status 130, not a traceback;
- a re-chunk child that multiprocessing starts from the app imports the parent's main module
  again (its rule for ``spawn`` and fork-server children): the console script's main module
  imports only this one, not the whole command line.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import sys

EXIT_INTERRUPTED = 130
"""128 + SIGINT, as a shell reports Ctrl-C; every command's status after Ctrl-C (defined here,
the lightest module, so that this one needs no other)."""

INTERRUPTED = "interrupted; nothing was changed"
"""What every command prints after Ctrl-C."""


def run() -> int:
    """Run the command line with ``sys.argv``; returns the exit status."""
    try:
        from specbrowser.cli import main
    except KeyboardInterrupt:
        sys.stderr.write(INTERRUPTED + "\n")
        return EXIT_INTERRUPTED
    return main()


_kept: list[object] = []
_leaving = False


def keep_until_exit(value: object) -> None:
    """Let ``value`` live until the process ends, when it ends by :func:`leave` (the console
    script, ``python -m specbrowser``): a large result freed object by object costs time for
    nothing just before the exit (an ingest's lxml tree, sections and chunks: 0.13–0.2 s on
    ECMA-262). Called in process otherwise (tests, a program using the command line), a no-op:
    the value is freed as usual."""
    if _leaving:
        _kept.append(value)


def console() -> None:
    """The console script: :func:`run`, then :func:`leave` with its status. Never returns."""
    global _leaving
    _leaving = True
    leave(run())


def leave(status: int) -> None:
    """End the process with ``status`` the way the interpreter would, less its teardown: the
    atexit handlers run (logging, multiprocessing's children) and stdout and stderr are
    flushed, then ``os._exit``. What is skipped is freeing every object one by one: after an
    ingest of ECMA-262 (its lxml tree, sections and chunks) that took 0.14 s of a 1.9 s run.
    Every command closes its database and files before it returns (``with`` blocks), so nothing
    is left unwritten. Never returns."""
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed pipe: nothing more to say
            stream.flush()
    os._exit(status)


if __name__ == "__main__":  # not when a spawned child process imports this module
    console()
