"""The browser's chunk-set loop: edit the policy, re-chunk in the background, switch and
compare chunk sets, see statistics, count tokens and embed.

:class:`ChunkSetLoop` does this for :class:`~specbrowser.tui.screens.browser.BrowserScreen`,
whose actions and :class:`JobFinished` handler delegate to it. The jobs run in
:class:`~specbrowser.tui.widgets.job_bar.JobBar` workers; their :class:`JobFinished` messages
come up to the screen. When the active chunk set changes, :meth:`ChunkSetLoop.changed`
rebuilds the tree from the database and puts the cursor back on the same chunk, or on its
section when the new set has no chunk of that id. It also watches the database for a chunk set
that another process made active (:meth:`ChunkSetLoop.check_database`) and shows it in place.

After a re-chunk the new set's tokens are counted. Embedding starts only when asked (``E``, or
the palette's "Embed missing chunks"; ``E`` again stops it after the batch in flight, keeping
every finished batch); search meanwhile answers from lexical results for the rest and says so.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeGuard

from rich.text import Text

from specbrowser.chunking.policy import ChunkPolicy
from specbrowser.errors import NotFoundError, SpecbrowserError
from specbrowser.session import DB_ERRORS
from specbrowser.tui.screens.chunk_sets import ACTIVATE, DIFF, ChunkSetsScreen
from specbrowser.tui.widgets.job_bar import EMBED, RECHUNK, TOKENS, JobBar, JobFinished

if TYPE_CHECKING:
    from specbrowser.search.embed import EmbedReport
    from specbrowser.search.tokens import TokenInfo
    from specbrowser.tui.screens.browser import BrowserScreen


class ChunkSetLoop:
    """The chunk-set actions and job outcomes of one browser screen.

    Args:
        screen: the browser screen whose session, tree, view and job bar it drives.
    """

    def __init__(self, screen: BrowserScreen) -> None:
        self.screen = screen
        self.previous_version: str | None = None
        """The set that was active before the last re-chunk or switch (``d`` diffs against
        it)."""
        self._data_version = 0
        """The database's ``PRAGMA data_version`` when last checked (:meth:`check_database`)."""

    @property
    def job_bar(self) -> JobBar | None:
        """The background jobs' bar (None when the screen has no database file)."""
        found = self.screen.query(JobBar)
        return found.first() if found else None

    def start_token_count(self) -> None:
        """Count the active set's tokens in the background (shown as they arrive), unless the
        screen was made with ``count_tokens=False``."""
        if self.job_bar is not None and self.screen.count_tokens:
            self.job_bar.count_tokens()

    # --- another process --------------------------------------------------------------------------

    def watch_database(self, seconds: float) -> None:
        """Check every ``seconds`` whether another process changed the database
        (:meth:`check_database`)."""
        self._data_version = self.screen.session.data_version()
        self.screen.set_interval(seconds, self.check_database)

    def check_database(self) -> None:
        """Reload in place when another process made another chunk set active (a re-chunk, an
        activation, the shown set deleted): the tree and view follow, on the same chunk (or its
        section) when the new set has it, and a notification says so. The app's own re-chunk
        reloads by itself, so nothing is checked while one runs."""
        if self.job_bar is not None and self.job_bar.running(RECHUNK):
            return
        screen = self.screen
        try:
            version = screen.session.data_version()
            if version == self._data_version:
                return
            self._data_version = version
            active = screen.session.active_version()
        except SpecbrowserError:
            return  # locked or mid-write: the next tick tries again
        if active == screen.shown_version:
            return
        self.previous_version = screen.shown_version
        self.changed()
        screen.notify(
            f"another process made chunk set {active} active; showing it",
            title="Database changed",
            markup=False,
        )

    # --- policy editor and re-chunk -------------------------------------------------------------

    async def edit_policy(self) -> None:
        """Open the policy editor on the active policy; Apply re-chunks. Waits until the editor
        is mounted with its threshold field focused, so that the keys typed right after ``e``
        go to that field (the binding has priority: the app waits for this action)."""
        if self.job_bar is None:
            self.screen.notify("re-chunking needs the database file", severity="warning")
            return
        try:
            kind = self.screen.session.document().kind
        except SpecbrowserError:
            kind = None
        # deferred: the editor's widgets, cssselect and the formats (20-25 ms) are not on the
        # first screen
        from specbrowser.tui.screens.policy_editor import PolicyEditor

        await self.screen.app.push_screen(PolicyEditor(self.screen.policy, kind), self.apply_policy)

    def apply_policy(self, policy: ChunkPolicy | None) -> None:
        """Re-chunk under ``policy`` in the background (a run in flight is cancelled)."""
        if policy is None or self.job_bar is None:
            return
        if policy.version == self.screen.session.active_version():
            self.screen.notify("that is the active policy already", markup=False)
            return
        self.job_bar.cancel(EMBED)  # embedding the set being replaced is wasted work
        self.job_bar.starting(RECHUNK)
        self.job_bar.rechunk(policy)

    # --- chunk sets -------------------------------------------------------------------------------

    def chunk_sets(self) -> None:
        """List the stored chunk sets: make one active, or diff it with the active one."""
        self.screen.app.push_screen(ChunkSetsScreen(self.screen.session), self._chunk_set_chosen)

    def _chunk_set_chosen(self, choice: tuple[str, str] | None) -> None:
        if choice is None:
            return
        what, version = choice
        if what == DIFF:
            self.diff(version)
        elif what == ACTIVATE:
            self.activate_set(version)

    def activate_set(self, version: str) -> None:
        """Make a stored set the active one and show it."""
        before = self.screen.session.active_version()
        if version == before:
            return
        try:
            self.screen.session.activate(version)
        except SpecbrowserError as error:
            self.screen.show_error(error)
            return
        self.previous_version = before
        self.changed()

    def changed(self) -> None:
        """The active set changed: new policy, tree built again, the cursor kept on the same
        chunk (or its section), the search hits dropped (they named the old set's chunks)."""
        screen, session = self.screen, self.screen.session
        shown = screen.chunk_view.chunk
        screen.policy, _stats = session.active_policy()
        screen.shown_version = session.active_version()
        screen.app.sub_title = screen.policy.describe()
        screen.search.reset()
        screen.chunk_view.set_token_info(None)
        screen.chunk_tree.truncated = set()
        screen.chunk_view.chunk = None  # show the new set's text even for the same id
        # the tree again from the database, under the same filter (off if it now matches nothing)
        screen.filtering.reapply()
        target = None
        if shown is not None:
            for candidate in (shown.id, shown.section_id):
                if candidate and session.chunks([candidate]):
                    target = candidate
                    break
        if target is None:
            first = session.top_level_chunks()[:1]
            target = first[0].id if first else None
        if target is not None:
            screen.go_to_chunk(target)
        self.start_token_count()

    # --- compare and statistics -----------------------------------------------------------------

    def diff(self, version: str | None = None) -> None:
        """Compare a set (default: the one active before the last change) with the active one."""
        # deferred, as in stats() and evaluate(): these three screens and the session modules
        # they load (diff, report, evaluate) cost about 40 ms of the app's start-up
        # (python -X importtime), paid only when one of them is opened
        from specbrowser.tui.screens.diff import DiffScreen

        other = version or self.previous_version
        active = self.screen.session.active_version()
        if other is None or other == active:
            if len(self.screen.session.chunk_sets()) < 2:
                self.screen.notify(
                    "only one chunk set: edit the policy (e) to make another", markup=False
                )
            else:
                self.chunk_sets()  # pick the set to compare with
            return
        self.screen.app.push_screen(DiffScreen(self.screen.session, other, active), self._jump_back)

    def stats(self) -> None:
        """The active set's statistics; choosing a listed chunk jumps to it."""
        from specbrowser.tui.screens.stats import StatsScreen  # deferred: see diff()

        self.screen.app.push_screen(
            StatsScreen(self.screen.session, None, self.screen.policy.threshold), self._jump_back
        )

    def evaluate(self) -> None:
        """Evaluate the active set (and the previous one) on a query file; choosing a missed
        query goes to its expected chunk. The file given to ``specbrowser open --queries`` is
        loaded at once."""
        from specbrowser.tui.screens.evaluate import EvalScreen  # deferred: see diff()

        queries = getattr(self.screen.app, "queries", None)
        self.screen.app.push_screen(
            EvalScreen(self.screen.session, queries, self.previous_version), self._jump_back
        )

    def advise(self) -> None:
        """The advisor screen on the open database, with ``open --queries``' file (else the
        automatic queries); a candidate it applies becomes the active set."""
        from specbrowser.tui.screens.advisor import AdvisorScreen  # deferred: see diff()

        queries = getattr(self.screen.app, "queries", None)
        self.screen.app.push_screen(
            AdvisorScreen(self.screen.session, queries), self._advisor_chose
        )

    def _advisor_chose(self, choice: tuple[str, str] | None) -> None:
        from specbrowser.tui.screens.advisor import APPLY, JUMP  # deferred with the screen

        if choice is None:
            return
        what, target = choice
        if what == APPLY:
            self.activate_set(target)
        elif what == JUMP:
            self.screen.go_to_chunk(target)

    def _jump_back(self, chunk_id: str | None) -> None:
        if chunk_id:
            self.screen.go_to_chunk(chunk_id)

    # --- embeddings -------------------------------------------------------------------------------

    def embed(self) -> None:
        """Embed the active set's texts that have no vector, in the background; when that runs
        already, stop it (the batches it finished are kept)."""
        if self.job_bar is None:
            return
        if self.job_bar.running(EMBED):
            self.job_bar.cancel(EMBED)
            self.screen.notify(
                "embedding stopped: the texts embedded so far are kept (E continues)",
                markup=False,
            )
            return
        stored = self._stored_model()
        self.job_bar.starting(EMBED)
        self.job_bar.embed(stored)
        self.screen.notify(
            "embedding in the background (E stops it); search uses lexical results for what "
            "is not embedded yet",
            markup=False,
        )

    def _stored_model(self) -> str | None:
        try:
            return self.screen.session.embedding_model()
        except DB_ERRORS:
            return None

    # --- job outcomes ---------------------------------------------------------------------------

    def job_finished(self, message: JobFinished) -> None:
        """A background job ended: show its outcome."""
        if message.cancelled:
            return
        if message.error is not None:
            self.screen.notify(
                message.error,
                title=f"{message.kind} failed",
                severity="error",
                markup=False,
                timeout=15,
            )
            return
        if message.kind == RECHUNK:
            self._rechunked(message.result)
        elif message.kind == TOKENS and _is_token_info(message.result):
            info = message.result
            self.screen.chunk_view.set_token_info(info)
            self.screen.chunk_tree.set_truncated(set(info.over_window))
        elif message.kind == EMBED and _is_embed_report(message.result):
            report = message.result
            self.screen.notify(
                f"{report.embedded:,} texts embedded ({report.cached:,} were already); "
                f"{len(report.truncated_chunks):,} truncated",
                markup=False,
            )

    def _rechunked(self, result) -> None:
        before = result.previous_version
        self.previous_version = before
        stats = result.stats
        try:
            old = self.screen.session.chunk_sets()
        except DB_ERRORS:
            old = []
        previous = next((s for s in old if s.version == before), None)
        over_after = sum(stats.over_threshold.values())
        line = Text(
            f"chunk set {result.version}: {stats.chunks:,} chunks, "
            f"{over_after:,} over the threshold"
        )
        if previous is not None:
            line.append(
                f" (before: {previous.chunks:,} chunks, "
                f"{sum(previous.over_threshold.values()):,} over) · d: diff"
            )
        if result.already_stored:
            line.append(" · stored already: switched to it")
        elif result.copied_sections:
            line.append(
                f" · {result.copied_sections:,} of {stats.sections:,} sections "
                f"copied from stored sets, {result.parsed_sections:,} broken down"
            )
        self.screen.notify(line.plain, title="Re-chunked", markup=False, timeout=10)
        try:
            self.changed()
        except NotFoundError as error:
            self.screen.show_error(error)
            return


def _is_token_info(result: object) -> TypeGuard[TokenInfo]:
    """Whether ``result`` is a token count's result (the token module is imported by the job
    that made it; not before the first frame)."""
    from specbrowser.search.tokens import TokenInfo

    return isinstance(result, TokenInfo)


def _is_embed_report(result: object) -> TypeGuard[EmbedReport]:
    """Whether ``result`` is an embedding job's report (the embedding module is imported by
    the job that made it; not before the first frame)."""
    from specbrowser.search.embed import EmbedReport

    return isinstance(result, EmbedReport)
