"""Helpers for the app tests (a plain module: app test modules import it, never each other):
the terminal size they run at, an async test runner, a wait for the app to settle, and a quiet
app on a database with its browser screen."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from specbrowser.tui.app import SpecBrowserApp
    from specbrowser.tui.screens.browser import BrowserScreen

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


def quiet_app(db_path: Path) -> SpecBrowserApp:
    """The app on a database, without a blinking cursor or background token counts."""
    from specbrowser.tui.app import make_app

    return make_app(db_path, cursor_blink=False, count_tokens=False)


def browser_of(app: SpecBrowserApp) -> BrowserScreen:
    """The app's current screen, asserted to be the browser."""
    from specbrowser.tui.screens.browser import BrowserScreen

    screen = app.screen
    assert isinstance(screen, BrowserScreen)
    return screen


def at_chunk_then(chunk_id: str, *keys: str):
    """A snapshot's ``run_before``: settle, go to ``chunk_id``, press ``keys``, settle."""

    async def run_before(pilot) -> None:
        await settle(pilot)
        browser_of(pilot.app).go_to_chunk(chunk_id)
        await settle(pilot)
        await pilot.press(*keys)
        await settle(pilot)

    return run_before
