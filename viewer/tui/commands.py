"""Command palette (ctrl+p): go to an operation, open screens, export; themes come from Textual.

Hits are built as ``Content`` from safe text, never from markup: Textual's ``Matcher.highlight``
parses its argument as markup, so it is not used on vCon text.
"""

from __future__ import annotations

import contextlib
from bisect import bisect_right
from collections.abc import Callable
from functools import partial

from textual import on
from textual.command import CommandPalette, DiscoveryHit, Hit, Hits, Provider
from textual.content import Content
from textual.widgets import Input
from textual.worker import Worker, WorkerState

from viewer.model.types import Model
from viewer.textsafe import safe
from viewer.tui.base import VappMixin

MAX_HITS = 50
#: The palette's order (Textual shows the highest score first; its fuzzy scores are not
#: bounded by 1): an operation whose id starts with the text typed, then a screen command, then
#: an operation whose id or target holds the text, then fuzzy matches of operations.
ID_PREFIX = 3000.0
COMMAND = 2000.0
HOLDS = 1000.0
FUZZY_TOP = 999.0


class GuardedPalette(CommandPalette):
    """Textual's command palette, with two guards.

    PageUp/PageDown in a list with no room to draw (a terminal of 4 rows or fewer, or keys
    faster than the list's first layout) raised KeyError inside Textual's OptionList
    (``_index_to_line`` still empty) and ended the viewer: a page key that cannot move does
    nothing. And an ``enter`` typed while the hits of the last keystroke are still being
    gathered chose from the list of the keystroke before: it now waits for the new hits.
    """

    _enter_pending = False

    def _action_command_list(self, action: str) -> None:
        with contextlib.suppress(KeyError, IndexError):
            super()._action_command_list(action)

    def _gathering(self) -> bool:
        return any(w.group == self._GATHER_COMMANDS_GROUP and not w.is_finished
                   for w in self.workers)

    @on(Input.Submitted)
    def _enter_after_the_search(self, event: Input.Submitted) -> None:
        if self._gathering():
            event.stop()
            event.prevent_default()  # not Textual's handler: it would choose a stale hit
            self._enter_pending = True

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if (self._enter_pending and event.worker.group == self._GATHER_COMMANDS_GROUP
                and event.state == WorkerState.SUCCESS and not self._gathering()):
            self._enter_pending = False
            self._select_or_command()


#: The operations' labels in one lower-cased string per model (``_index``): a query is one
#: ``str.find`` loop in C, not a Python pass over every operation.
_prepared: tuple[Model, str, list[int]] | None = None
#: Fuzzy matching of operations (a pass in Python per operation) only up to this many.
FUZZY_MAX = 2000


def prepare(model: Model) -> None:
    """Build the index of ``model`` now (the App does, in a thread, once the model is final)."""
    _index(model)


def _index(model: Model) -> tuple[str, list[int]]:
    """The labels of ``model``'s operations joined by newlines, and where each starts."""
    global _prepared
    if _prepared is None or _prepared[0] is not model:
        labels = [f"{op.operation_id} {op.target}".lower().replace("\n", " ")
                  for op in model.operations]
        starts, at = [], 0
        for label in labels:
            starts.append(at)
            at += len(label) + 1
        _prepared = (model, "\n".join(labels), starts)
    return _prepared[1], _prepared[2]


def operation_hits(model: Model, query: str, limit: int = MAX_HITS) -> list[int]:
    """The first ``limit`` operations (model order) whose id or target contains ``query``."""
    q = query.strip().lower()
    if not q or "\n" in q:
        return []
    text, starts = _index(model)
    found: list[int] = []
    at = text.find(q)
    while at >= 0 and len(found) < limit:
        i = bisect_right(starts, at) - 1
        found.append(i)
        nxt = starts[i + 1] if i + 1 < len(starts) else len(text)
        at = text.find(q, nxt)
    return found


class VconCommands(VappMixin, Provider):
    def _screen_commands(self) -> list[tuple[str, Callable[[], object], str]]:
        from viewer.tui.timeline import TimelineScreen

        def timeline_action(name: str) -> Callable[[], object]:
            def run() -> None:
                for screen in reversed(self.app.screen_stack):
                    if isinstance(screen, TimelineScreen):
                        while self.app.screen is not screen:
                            self.app.pop_screen()
                        getattr(screen, f"action_{name}")()
                        return

            return run

        return [
            ("Findings and diagnostics", timeline_action("findings"), "every finding (f)"),
            ("Context and conversation", timeline_action("context"), "time order (c)"),
            ("Export summary", timeline_action("export"), "md, json or csv (e)"),
            ("Filter operations", timeline_action("filter"), "tokens and free text (/)"),
            ("Cycle time mode", timeline_action("time_mode"), "absolute, relative, delta (t)"),
            ("Fit time axis", timeline_action("fit"), "zoom to the whole record (0)"),
            ("Help", self.vapp.action_help, "keys, filter tokens, glyphs (?)"),
        ]

    async def startup(self) -> None:
        """Prepare the operations' index as the palette opens, in a thread: the palette is
        drawn meanwhile, and the first query finds it ready."""
        import asyncio

        if self.vapp.model is not None:
            await asyncio.to_thread(_index, self.vapp.model)

    async def discover(self) -> Hits:
        if self.vapp.model is None:
            return
        for name, cb, help_text in self._screen_commands():
            yield DiscoveryHit(name, cb, help=help_text)

    async def search(self, query: str) -> Hits:
        app = self.vapp
        model = app.model
        if model is None:
            return
        matcher = self.matcher(query)
        for name, cb, help_text in self._screen_commands():
            score = matcher.match(name)
            if score > 0:
                yield Hit(COMMAND + score, Content(name), cb, text=name, help=help_text)
        q = query.strip().lower()
        if not q:
            return
        hits = operation_hits(model, q)
        for i in hits:
            op = model.operations[i]
            yield self._hit(i, ID_PREFIX if op.operation_id.lower().startswith(q) else HOLDS)
        if len(hits) >= MAX_HITS or len(model.operations) > FUZZY_MAX:
            return
        seen = set(hits)
        for i, op in enumerate(model.operations):
            if i in seen:
                continue
            score = min(matcher.match(f"{op.operation_id} {op.target}"), FUZZY_TOP)
            if score > 0:
                yield self._hit(i, score)
                seen.add(i)
                if len(seen) >= MAX_HITS:
                    return

    def _hit(self, i: int, score: float) -> Hit:
        op = self.vapp.model.operations[i]  # type: ignore[union-attr]
        text = safe(f"Go to {op.operation_id} {op.target}")
        return Hit(score, Content(text), partial(self._goto, i), text=text,
                   help=f"{op.outcome}, {len(op.attempts)} attempt(s)")

    def _goto(self, op_index: int) -> None:
        from viewer.tui.timeline import TimelineScreen

        while not isinstance(self.app.screen, TimelineScreen) and len(self.app.screen_stack) > 1:
            self.app.pop_screen()
        self.vapp.select_operation(op_index)
