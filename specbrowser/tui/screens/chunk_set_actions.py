"""The browser's chunk-set loop: edit the policy, re-chunk in the background, switch and
compare chunk sets, see statistics, count tokens and embed.

:class:`ChunkSetActions` is a mixin of :class:`~specbrowser.tui.screens.browser.BrowserScreen`
(kept apart so the browser's navigation and search stay readable). The jobs run in
:class:`~specbrowser.tui.widgets.job_bar.JobBar` workers; their :class:`JobFinished` messages
come up here. When the active chunk set changes, :meth:`ChunkSetActions.chunk_set_changed`
rebuilds the tree from the database and puts the cursor back on the same chunk, or on its
section when the new set has no chunk of that id.

After a re-chunk the new set's tokens are counted. Embedding starts only when asked (``E``, or
the palette's "Embed missing chunks"; ``E`` again stops it after the batch in flight, keeping
every finished batch); search meanwhile answers from lexical results for the rest and says so.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text

from specbrowser.chunking.policy import ChunkPolicy
from specbrowser.errors import NotFoundError, SpecbrowserError
from specbrowser.search.embed import EmbedReport
from specbrowser.search.tokens import TokenInfo
from specbrowser.session import DB_ERRORS
from specbrowser.tui.screens.chunk_sets import ACTIVATE, DIFF, ChunkSetsScreen
from specbrowser.tui.screens.policy_editor import PolicyEditor
from specbrowser.tui.widgets.job_bar import EMBED, RECHUNK, TOKENS, JobBar, JobFinished

if TYPE_CHECKING:
    from specbrowser.search.query import Hit
    from specbrowser.tui.screens.browser import BrowserScreen


class ChunkSetActions:
    """Actions and job handlers of the browser screen for chunk sets (a mixin).

    Its methods take ``self: BrowserScreen`` so that their bodies are checked against the
    screen they run on; mypy wants an explicit self type to be a supertype of the class, which
    a mixin's host is not, hence the ``type: ignore[misc]`` on each.
    """

    count_tokens: bool = True
    """Whether token counts start on their own (the browser sets it)."""

    previous_version: str | None = None
    """The set that was active before the last re-chunk or switch (``d`` diffs against it)."""

    @property
    def job_bar(self: BrowserScreen) -> JobBar | None:  # type: ignore[misc]
        """The background jobs' bar (None when the screen has no database file)."""
        found = self.query(JobBar)
        return found.first() if found else None

    def start_token_count(self: BrowserScreen) -> None:  # type: ignore[misc]
        """Count the active set's tokens in the background (shown as they arrive), unless the
        screen was made with ``count_tokens=False``."""
        if self.job_bar is not None and self.count_tokens:
            self.job_bar.count_tokens()

    # --- policy editor and re-chunk -------------------------------------------------------------

    async def action_edit_policy(self: BrowserScreen) -> None:  # type: ignore[misc]
        """Open the policy editor on the active policy; Apply re-chunks. Waits until the editor
        is mounted with its threshold field focused, so that the keys typed right after ``e``
        go to that field (the binding has priority: the app waits for this action)."""
        if self.job_bar is None:
            self.notify("re-chunking needs the database file", severity="warning")
            return
        try:
            kind = self.session.document().kind
        except SpecbrowserError:
            kind = None
        await self.app.push_screen(PolicyEditor(self.policy, kind), self.apply_policy)

    def apply_policy(self: BrowserScreen, policy: ChunkPolicy | None) -> None:  # type: ignore[misc]
        """Re-chunk under ``policy`` in the background (a run in flight is cancelled)."""
        if policy is None or self.job_bar is None:
            return
        if policy.version == self.session.active_version():
            self.notify("that is the active policy already", markup=False)
            return
        self.job_bar.cancel(EMBED)  # embedding the set being replaced is wasted work
        self.job_bar.starting(RECHUNK)
        self.job_bar.rechunk(policy)

    # --- chunk sets -------------------------------------------------------------------------------

    def action_chunk_sets(self: BrowserScreen) -> None:  # type: ignore[misc]
        """List the stored chunk sets: make one active, or diff it with the active one."""
        self.app.push_screen(ChunkSetsScreen(self.session), self._chunk_set_chosen)

    def _chunk_set_chosen(self: BrowserScreen, choice: tuple[str, str] | None) -> None:  # type: ignore[misc]
        if choice is None:
            return
        what, version = choice
        if what == DIFF:
            self.action_diff(version)
        elif what == ACTIVATE:
            self.activate_set(version)

    def activate_set(self: BrowserScreen, version: str) -> None:  # type: ignore[misc]
        """Make a stored set the active one and show it."""
        before = self.session.active_version()
        if version == before:
            return
        try:
            self.session.activate(version)
        except SpecbrowserError as error:
            self._error(error)
            return
        self.previous_version = before
        self.chunk_set_changed()

    def chunk_set_changed(self: BrowserScreen) -> None:  # type: ignore[misc]
        """The active set changed: new policy, tree built again, the cursor kept on the same
        chunk (or its section), the search hits dropped (they named the old set's chunks)."""
        shown = self.chunk_view.chunk
        self.policy, _stats = self.session.active_policy()
        self.shown_version = self.session.active_version()
        self.app.sub_title = self.policy.describe()
        self.search_hits: list[Hit] = []
        self.end_hit_navigation()
        self.chunk_view.set_token_info(None)
        self.chunk_tree.truncated = set()
        self.chunk_view.chunk = None  # show the new set's text even for the same id
        # the tree again from the database, under the same filter (off if it now matches nothing)
        if self.tree_filter is None or not self.set_tree_filter(self.tree_filter):
            self.set_tree_filter(None)
        target = None
        if shown is not None:
            for candidate in (shown.id, shown.section_id):
                if candidate and self.session.chunks([candidate]):
                    target = candidate
                    break
        if target is None:
            first = self.session.top_level_chunks()[:1]
            target = first[0].id if first else None
        if target is not None:
            self.go_to_chunk(target)
        self.start_token_count()

    # --- compare and statistics -----------------------------------------------------------------

    def action_diff(self: BrowserScreen, version: str | None = None) -> None:  # type: ignore[misc]
        """Compare a set (default: the one active before the last change) with the active one."""
        from specbrowser.tui.screens.diff import DiffScreen

        other = version or self.previous_version
        active = self.session.active_version()
        if other is None or other == active:
            if len(self.session.chunk_sets()) < 2:
                self.notify("only one chunk set: edit the policy (e) to make another", markup=False)
            else:
                self.action_chunk_sets()  # pick the set to compare with
            return
        self.app.push_screen(DiffScreen(self.session, other, active), self._jump_back)

    def action_stats(self: BrowserScreen) -> None:  # type: ignore[misc]
        """The active set's statistics; choosing a listed chunk jumps to it."""
        from specbrowser.tui.screens.stats import StatsScreen

        self.app.push_screen(
            StatsScreen(self.session, None, self.policy.threshold), self._jump_back
        )

    def action_evaluate(self: BrowserScreen) -> None:  # type: ignore[misc]
        """Evaluate the active set (and the previous one) on a query file; choosing a missed
        query goes to its expected chunk. The file given to ``specbrowser open --queries`` is
        loaded at once."""
        from specbrowser.tui.screens.evaluate import EvalScreen

        queries = getattr(self.app, "queries", None)
        self.app.push_screen(
            EvalScreen(self.session, queries, self.previous_version), self._jump_back
        )

    def _jump_back(self: BrowserScreen, chunk_id: str | None) -> None:  # type: ignore[misc]
        if chunk_id:
            self.go_to_chunk(chunk_id)

    # --- embeddings -------------------------------------------------------------------------------

    def action_embed(self: BrowserScreen) -> None:  # type: ignore[misc]
        """Embed the active set's texts that have no vector, in the background; when that runs
        already, stop it (the batches it finished are kept)."""
        if self.job_bar is None:
            return
        if self.job_bar.running(EMBED):
            self.job_bar.cancel(EMBED)
            self.notify(
                "embedding stopped: the texts embedded so far are kept (E continues)",
                markup=False,
            )
            return
        stored = self._stored_model()
        self.job_bar.starting(EMBED)
        self.job_bar.embed(stored)
        self.notify(
            "embedding in the background (E stops it); search uses lexical results for what "
            "is not embedded yet",
            markup=False,
        )

    def _stored_model(self: BrowserScreen) -> str | None:  # type: ignore[misc]
        try:
            return self.session.embedding_model()
        except DB_ERRORS:
            return None

    # --- job outcomes ---------------------------------------------------------------------------

    def on_job_finished(self: BrowserScreen, message: JobFinished) -> None:  # type: ignore[misc]
        """A background job ended: show its outcome (a plain-named handler: the ``on``
        decorator does not register methods of a mixin)."""
        if message.cancelled:
            return
        if message.error is not None:
            self.notify(
                message.error,
                title=f"{message.kind} failed",
                severity="error",
                markup=False,
                timeout=15,
            )
            return
        if message.kind == RECHUNK:
            self._rechunked(message.result)
        elif message.kind == TOKENS and isinstance(message.result, TokenInfo):
            info = message.result
            self.chunk_view.set_token_info(info)
            self.chunk_tree.set_truncated(set(info.over_window))
        elif message.kind == EMBED and isinstance(message.result, EmbedReport):
            report = message.result
            self.notify(
                f"{report.embedded:,} texts embedded ({report.cached:,} were already); "
                f"{len(report.truncated_chunks):,} truncated",
                markup=False,
            )

    def _rechunked(self: BrowserScreen, result) -> None:  # type: ignore[misc]
        before = result.previous_version
        self.previous_version = before
        stats = result.stats
        try:
            old = self.session.chunk_sets()
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
        self.notify(line.plain, title="Re-chunked", markup=False, timeout=10)
        try:
            self.chunk_set_changed()
        except NotFoundError as error:
            self._error(error)
            return
