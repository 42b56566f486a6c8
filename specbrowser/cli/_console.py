"""The consoles every command prints to (``out`` for stdout, ``err`` for stderr) and the
progress bar of an ingest's or a re-chunk's stages."""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console

# Deferred to stage_progress, so that commands without a progress bar start without it:
# rich.progress (4 ms).

PIPED_WIDTH = 160
"""Line width when a stream is not a terminal (a pipe, a file) and ``COLUMNS`` is unset: Rich
would take 80 and cut ids and sizes in table cells (``subsections DB ID | less``)."""


_PADDED_LINE_END = re.compile(r" +(?=\n)")


class _Console(Console):
    """A Rich console whose broken pipe (``… | head``) reaches :func:`specbrowser.cli.main`,
    which ends quietly with exit status 141 like Unix tools; Rich's own handling exits with 1.

    Written to a file or a pipe, its lines end without the spaces Rich pads table titles,
    cells and captions with to the table's width: invisible on a terminal, noise in a file
    or a diff."""

    def on_broken_pipe(self) -> None:
        self.quiet = True
        raise BrokenPipeError

    def _render_buffer(self, buffer) -> str:  # Rich's hook from segments to the text written
        text = super()._render_buffer(buffer)
        return text if self.is_terminal else _PADDED_LINE_END.sub("", text)


def _console(stream, **options) -> Console:
    piped = not stream.isatty() and "COLUMNS" not in os.environ
    # emoji off: Rich would turn ``:b:`` in spec text (``a:b:c``) into an emoji, markup or not
    return _Console(highlight=False, emoji=False, width=PIPED_WIDTH if piped else None, **options)


out = _console(sys.stdout)
err = _console(sys.stderr, stderr=True)


def _no_progress(stage: str, done: int, total: int) -> None:
    """The progress callback where the console is not a terminal: nothing to show."""


@contextmanager
def stage_progress(
    first_stage: str, console: Console | None = None
) -> Iterator[Callable[[str, int, int], None]]:
    """A transient progress bar on ``console`` (default stderr; off when it is not a terminal)
    for the stages of an ingest or a re-chunk; yields their ``progress(stage, done, total)``.

    A counted stage shows "chunking sections 405/2,253" (sections done, of all). A stage with
    ``total`` 0 (parsing, loading, storing: not counted) shows its name and a pulsing bar, not
    a ``0/1`` that would read as "nothing done" for the whole stage.
    """
    console = console or err
    if not console.is_terminal:  # no bar to draw, nor Rich's progress module to import (4 ms)
        yield _no_progress
        return
    # deferred: see the module's imports
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.fields[count]}"),
        TimeElapsedColumn(),
        console=console,
        transient=True,
        disable=not console.is_terminal,
    ) as bar:
        task = bar.add_task(first_stage, total=None, count="")

        def progress(stage: str, done: int, total: int) -> None:
            if total:
                bar.update(
                    task,
                    description=f"{stage} sections",
                    completed=done,
                    total=total,
                    count=f"{done:,}/{total:,}",
                )
            else:
                bar.update(task, description=stage, completed=0, total=None, count="")

        yield progress
