"""``specbrowser rechunk``: registered here; the command is being written (issue 6)."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    """Add this module's commands to the top-level parser's subcommands (none yet)."""
