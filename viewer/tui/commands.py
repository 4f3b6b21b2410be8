"""Command palette (ctrl+p): go to an operation, open screens, export; themes come from Textual.

Hits are built as ``Content`` from safe text, never from markup: Textual's ``Matcher.highlight``
parses its argument as markup, so it is not used on vCon text.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from functools import partial

from textual.command import CommandPalette, DiscoveryHit, Hit, Hits, Provider
from textual.content import Content

from viewer.textsafe import safe
from viewer.tui.base import VappMixin

MAX_HITS = 50


class GuardedPalette(CommandPalette):
    """Textual's command palette; PageUp/PageDown in a list with no room to draw (a terminal of
    4 rows or fewer, or keys faster than the list's first layout) raised KeyError inside
    Textual's OptionList (``_index_to_line`` still empty) and ended the viewer. A page key that
    cannot move does nothing."""

    def _action_command_list(self, action: str) -> None:
        with contextlib.suppress(KeyError, IndexError):
            super()._action_command_list(action)


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
                yield Hit(score, Content(name), cb, text=name, help=help_text)
        q = query.strip().lower()
        if not q:
            return
        found = 0
        for i, op in enumerate(model.operations):
            label = f"{op.operation_id} {op.target}"
            if q in label.lower():
                score = 1.0 if op.operation_id.lower().startswith(q) else 0.8
            else:
                score = matcher.match(label) * 0.7
                if score <= 0:
                    continue
            text = safe(f"Go to {label}")
            yield Hit(score, Content(text), partial(self._goto, i), text=text,
                      help=f"{op.outcome}, {len(op.attempts)} attempt(s)")
            found += 1
            if found >= MAX_HITS:
                return

    def _goto(self, op_index: int) -> None:
        from viewer.tui.timeline import TimelineScreen

        while not isinstance(self.app.screen, TimelineScreen) and len(self.app.screen_stack) > 1:
            self.app.pop_screen()
        self.vapp.select_operation(op_index)
