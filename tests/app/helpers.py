"""Helpers for the app tests (a plain module: app test modules import it, never each other):
the terminal size they run at, an async test runner, and a wait for the app to settle."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Coroutine
from typing import Any

SIZE = (120, 40)
"""The terminal size (columns, rows) the app tests run at."""


def run_async(test: Callable[..., Coroutine[Any, Any, None]]) -> Callable[..., None]:
    """Run an async test in its own event loop (no pytest-asyncio / anyio plugin needed)."""

    @functools.wraps(test)
    def wrapper(*args: Any, **kwargs: Any) -> None:
        asyncio.run(test(*args, **kwargs))

    return wrapper


async def settle(pilot) -> None:
    """Wait until workers (renders, palette searches, ingest) are done and the screen is idle."""
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
