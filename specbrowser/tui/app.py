"""The specbrowser app: opens (or first ingests) a database and pushes the browser screen.

:func:`make_app` is the one way to build it, for the CLI and the tests alike.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.app import App, SystemCommand
from textual.binding import BindingType
from textual.command import CommandPalette
from textual.screen import Screen
from textual.widgets import Footer, Header, Static
from textual.worker import get_current_worker

from specbrowser.chunking.policy import ChunkPolicy, PolicyForKind
from specbrowser.errors import SpecbrowserError
from specbrowser.process import hand_over_normally
from specbrowser.progress import CancelToken, JobCancelled
from specbrowser.session import Session, jobs
from specbrowser.tui.commands import JumpProvider, PaletteJumpProvider, SpecPalette
from specbrowser.tui.messages import IngestFailed, IngestFinished, IngestProgress
from specbrowser.tui.registry import Scope, bindings, palette_commands
from specbrowser.tui.screens.browser import BrowserScreen
from specbrowser.tui.widgets.job_bar import WorkerFlag

if TYPE_CHECKING:
    from specbrowser.tui.screens.progress import ProgressScreen

# Deferred to their first use, so that the first frame comes without them: the ingest's
# progress screen (its progress bar, 3 ms) and the help screen.

JUMP_PLACEHOLDER = "Jump to section: id, number or title…"


class SpecBrowserApp(App[None]):
    """Browse the chunk tree of an ingested spec.

    Args:
        db_path: the database to open; with ``ingest_spec``, the database to ingest into.
        ingest_spec: spec files (or a folder) to ingest first, in a thread worker, behind a
            progress screen; None to open ``db_path`` as it is.
        policy: the chunk policy for that ingest (default :class:`ChunkPolicy()`).
        policy_for_kind: replaces ``policy`` once the spec's kind is known (see
            :func:`specbrowser.session.ingest.ingest`); None keeps ``policy``.
        cursor_blink: False turns off input cursor blinking (tests, snapshots).
        count_tokens: count the active set's tokens in the background on open (False: only
            on request, for tests and snapshots that must not change while they run).
        queries: an evaluation query file the evaluation screen (``v``) loads at once.
    """

    CSS_PATH = "app.tcss"
    TITLE = "specbrowser"
    COMMANDS = App.COMMANDS | {PaletteJumpProvider}
    BINDINGS: ClassVar[list[BindingType]] = list(bindings("app"))

    def __init__(
        self,
        db_path: Path,
        *,
        ingest_spec: Sequence[Path] | None = None,
        policy: ChunkPolicy | None = None,
        policy_for_kind: PolicyForKind | None = None,
        cursor_blink: bool = True,
        count_tokens: bool = True,
        queries: Path | None = None,
    ) -> None:
        super().__init__()
        self.queries = queries
        """The query file the evaluation screen loads at once (``open --queries``), or None."""
        self.count_tokens = count_tokens
        self.db_path = Path(db_path)
        self.ingest_spec = [Path(p) for p in ingest_spec] if ingest_spec else None
        self.policy = policy or ChunkPolicy()
        self.policy_for_kind = policy_for_kind
        self.ingest_failed = False
        """Set when the in-app ingest failed; the CLI then exits with status 2."""
        self.cursor_blink = cursor_blink
        self.session: Session | None = None
        """The open database (None until opened)."""
        self.progress_screen: ProgressScreen | None = None
        """The in-app ingest's progress screen (None when no ingest ran)."""

    def on_mount(self) -> None:
        """Open the database, or start the ingest first. The database is opened once the mount
        is over (``call_later``): Textual discards the frames rendered while the app mounts, so
        a browser pushed from here rendered its first frame twice before one was shown."""
        if self.ingest_spec:
            # the ingest thread gets the usual switch interval: the start-up's short one
            # (hand_over_quickly) made its seconds of work hand the GIL over 10 times as often
            hand_over_normally()
            from specbrowser.tui.screens.progress import ProgressScreen  # deferred: see imports

            self.progress_screen = ProgressScreen([p.name for p in self.ingest_spec])
            self.push_screen(self.progress_screen)
            self._ingest()
        else:
            self.call_later(self.open_database, self.db_path)

    def on_unmount(self) -> None:
        """Close the database connection."""
        if self.session is not None:
            self.session.close()

    def open_database(self, db_path: Path) -> bool:
        """Open a database and show the browser; errors become a notification.

        Returns False (and stays on the current screen) when the database cannot be read.
        """
        try:
            session = Session.open(db_path)
            try:
                title = session.title()
                policy, _stats = session.active_policy()
            except BaseException:
                session.close()
                raise
        except SpecbrowserError as error:
            self.notify(
                str(error), title="Cannot open database", severity="error", markup=False, timeout=30
            )
            self._show_message(f"Cannot open {db_path}:\n{error}")
            return False
        self.session = session
        self.title = title
        self.sub_title = policy.describe()
        browser = BrowserScreen(
            session,
            policy,
            cursor_blink=self.cursor_blink,
            count_tokens=self.count_tokens,
        )
        progress = self.progress_screen
        if progress is not None and progress in self.screen_stack:
            while self.screen is not progress:  # e.g. a palette opened meanwhile
                self.pop_screen()
            self.switch_screen(browser)
        else:
            self.push_screen(browser)
        return True

    def _show_message(self, text: str) -> None:
        """Show ``text`` on the base screen, the screen under every other, seen only when no
        database could be opened. It composes nothing until then: its header, message and
        footer would cost the first frame 5 ms of mounting under the browser screen."""
        base = self.screen_stack[0]
        messages = base.query("#app-message")
        if messages:
            messages.first(Static).update(text)
        else:
            base.mount_all([Header(), Static(text, id="app-message", markup=False), Footer()])

    @work(thread=True, exclusive=True, group="ingest")
    def _ingest(self) -> None:
        """Run the session's ingest job in a thread; report through messages, never touching
        widgets. Quitting the app cancels the worker, and with it the job (nothing is
        written)."""
        assert self.ingest_spec is not None

        def progress(stage: str, done: int, total: int) -> None:
            self.post_message(IngestProgress(stage, done, total))  # thread-safe

        try:
            jobs.run_ingest(
                self.ingest_spec,
                self.db_path,
                self.policy,
                policy_for_kind=self.policy_for_kind,
                progress=progress,
                cancel=CancelToken(WorkerFlag(get_current_worker())),
            )
        except JobCancelled:
            return
        except SpecbrowserError as error:
            self.ingest_failed = True
            self.post_message(IngestFailed(str(error)))
            return
        self.post_message(IngestFinished(self.db_path))

    @on(IngestProgress)
    def _ingest_progress(self, message: IngestProgress) -> None:
        if self.progress_screen is not None and self.screen is self.progress_screen:
            self.progress_screen.set_progress(message.stage, message.done, message.total)

    @on(IngestFinished)
    def _ingest_finished(self, message: IngestFinished) -> None:
        self.open_database(message.db_path)

    @on(IngestFailed)
    def _ingest_failed(self, message: IngestFailed) -> None:
        self.notify(
            message.error, title="Ingest failed", severity="error", markup=False, timeout=30
        )
        if self.progress_screen is not None and self.screen is self.progress_screen:
            self.progress_screen.show_error(message.error)

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        """Textual's system commands, then the registry's palette commands: the app's, and on
        the browser screen the browser's (:func:`~specbrowser.tui.registry.palette_commands`)."""
        yield from super().get_system_commands(screen)
        targets: list[tuple[Scope, object]] = [("app", self)]
        if isinstance(screen, BrowserScreen):
            targets.append(("browser", screen))
        for scope, target in targets:
            for command in palette_commands(scope):
                assert command.palette is not None
                yield SystemCommand(
                    command.palette, command.palette_line, getattr(target, command.method)
                )

    def _palette_open(self) -> bool:
        return any(isinstance(screen, CommandPalette) for screen in self.screen_stack)

    def action_command_palette(self) -> None:
        """The full command palette (system commands and jump to section)."""
        if self.use_command_palette and not self._palette_open():
            self.push_screen(SpecPalette(id="--command-palette", cursor_blink=self.cursor_blink))

    def action_help(self) -> None:
        """The help screen: every key of the app and the browser, by group."""
        from specbrowser.tui.screens.help import HelpScreen  # deferred: see the imports

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen([*bindings("app"), *bindings("browser")]))

    def action_jump(self) -> None:
        """A palette with only "Jump to section"."""
        if isinstance(self.screen, BrowserScreen) and not self._palette_open():
            self.push_screen(
                SpecPalette(
                    providers=[JumpProvider],
                    placeholder=JUMP_PLACEHOLDER,
                    id="--command-palette",
                    cursor_blink=self.cursor_blink,
                )
            )


def make_app(
    db_path: Path | None = None,
    *,
    ingest_spec: Sequence[Path] | None = None,
    cache_db: Path | None = None,
    policy: ChunkPolicy | None = None,
    policy_for_kind: PolicyForKind | None = None,
    cursor_blink: bool = True,
    count_tokens: bool = True,
    queries: Path | None = None,
) -> SpecBrowserApp:
    """Build the app (used by the CLI and the tests).

    Browse an existing database: ``make_app(db_path)``. Ingest a spec first, in the app, with
    a progress screen: ``make_app(ingest_spec=[spec], cache_db=path, policy=policy)`` (the
    spec is stored in ``cache_db``, or in ``db_path`` when ``cache_db`` is not given).

    Raises:
        ValueError: no database path at all.
    """
    target = cache_db if ingest_spec and cache_db is not None else db_path
    if target is None:
        raise ValueError("make_app needs db_path, or ingest_spec with cache_db")
    return SpecBrowserApp(
        Path(target),
        ingest_spec=ingest_spec,
        policy=policy,
        policy_for_kind=policy_for_kind,
        cursor_blink=cursor_blink,
        count_tokens=count_tokens,
        queries=queries,
    )
