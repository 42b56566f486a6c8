"""Python's cyclic garbage collector, paused around the long jobs that allocate much and leave
no cycles (:func:`collector_paused`)."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off for the duration (process-wide; restored after, as
    it was, on errors too).

    An ingest or a re-chunk allocates some 100,000 short-lived objects (chunks, lxml element
    proxies, rows) that reference counting frees; the collections their allocation triggers
    each walk every live object and find next to nothing, a tenth of a re-chunk's time.
    Whatever cycles the call leaves are collected after it.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
