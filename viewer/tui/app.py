"""The vcon-view Textual application: one App, a loading screen, then the timeline.

``make_app`` builds the App for both the CLI and the tests (posting's pattern); ``run`` is what
``vcon-view FILE`` calls. The App owns the shared view state (model, filtered operations,
selection, time mode, zoom) so every screen presents the same selection; the model itself is
immutable and is the only place that decides states, lateness and findings.
"""

from __future__ import annotations

import gc
import sys
import threading
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import work
from textual.app import App
from textual.binding import Binding, BindingType
from textual.reactive import reactive
from textual.worker import get_current_worker

from viewer.load import Loaded, LoadError
from viewer.model.types import Attempt, Finding, Model, Operation
from viewer.pipeline import open_bytes, open_path
from viewer.textsafe import safe
from viewer.tui import state
from viewer.tui.filter import Filter, FilterError, Matcher, parse_filter
from viewer.tui.messages import ModelAdopted, NoteChanged, SelectionMoved, ViewChanged
from viewer.tui.present import ORDER, TIME_MODES, order_only, view_span

if TYPE_CHECKING:
    from viewer.signatures import TrustStore

Builder = Callable[[Loaded], Model]

#: Above this many operations the filter runs in a thread, on enter rather than as you type.
BIG_MODEL = 20000
#: In a file of more than ``STAGED_ABOVE`` operations, the first ``FIRST_OPERATIONS`` (more
#: than a screenful) are replayed before the timeline is first drawn, and the rest while it
#: is on screen (``build_stages``). Below that the whole replay takes a blink.
FIRST_OPERATIONS = 400
STAGED_ABOVE = 20000
#: Above this many operations the lists of ``f`` and ``c`` and the palette's index are built
#: in a thread as soon as the model is final (``_prepare``); below, they take a blink.
PREPARE_ABOVE = 5000


def _default_builder(loaded: Loaded) -> Model:
    """The model with the per-event conformance checks put off: the timeline needs only the
    replay, so it is drawn first and the checks run after (``VconViewApp._check``)."""
    from viewer.model.build import build_model

    return build_model(loaded, check_events=False)


class VconViewApp(App[int]):
    """Interactive review of the tool operations recorded in one vCon."""

    CSS_PATH = "app.tcss"
    TITLE = "vcon-view"
    ENABLE_COMMAND_PALETTE = True

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "quit", "Quit", id="app.quit"),
        Binding("question_mark", "help", "Help", id="app.help"),
    ]

    time_mode: reactive[str] = reactive("relative", init=False)
    zoom: reactive[float] = reactive(1.0, init=False)

    def __init__(
        self,
        path: str,
        *,
        ignore_critical: bool = False,
        theme: str | None = None,
        model: Model | None = None,
        builder: Builder | None = None,
        user_config: bool = False,
        data: bytes | None = None,
        goto: str | None = None,
        trust: TrustStore | None = None,
    ) -> None:
        """``user_config`` (the CLI) reads the saved theme and user theme files from the config
        dir and remembers a theme switch there; without it (tests) only the bundled themes are
        used. ``data``: the bytes of ``path`` when already read (stdin). ``trust``: ``--trust``'s
        anchors. ``goto``: the operation to select first (an operation_id, or the start of one).
        """
        super().__init__()
        from viewer.tui import themes
        from viewer.tui.commands import VconCommands

        self.COMMANDS = App.COMMANDS | {VconCommands}
        self.path = path
        self._data = data  # the input already read (stdin, before the terminal took its place)
        self.ignore_critical = ignore_critical
        self.trust = trust  # --trust: the anchors signatures are verified against
        self._user_config = user_config
        self._remember_theme = False  # set once the start-up theme is applied
        dirs = [themes.bundled_dir()] + ([themes.user_themes_dir()] if user_config else [])
        self.theme_set = themes.load_themes(dirs)
        for vt in self.theme_set.themes.values():
            self.register_theme(vt.theme)
        self._theme_name = theme or (themes.saved_theme() if user_config else None)
        self.theme_messages = list(self.theme_set.errors)
        if self._theme_name and self._theme_name not in self.available_themes:
            self.theme_messages.append(
                f"Unknown theme {self._theme_name!r}; using {themes.DEFAULT_THEME!r} "
                f"(available: {', '.join(sorted(self.available_themes))})")
            self._theme_name = None
        self._builder = builder or _default_builder
        self.model: Model | None = model
        self.matcher: Matcher | None = None
        self.filter: Filter = Filter()
        self.shown: Sequence[int] = ()
        self.sel = 0  # position in `visible`
        self.attempt_sel = 0  # index into the selected operation's attempts
        self.event_sel: int | None = None  # event index chosen for the detail screen
        self.finding_pos = -1
        self._finding_order: tuple[Model, list[tuple[int, int]]] | None = None
        self.load_error: LoadError | None = None
        self._totals: tuple[int, dict[str, int]] | None = None
        self._t0: tuple[Model, datetime | None] | None = None
        #: One line in the status line saying what the last key did (``n``, a pan, --goto),
        #: in place of a toast over the lanes; cleared when the selection moves.
        self.note: str | Text = ""
        self.goto: str | None = goto  # --goto OPERATION_ID, applied once the model is shown
        #: The export dialog's last (format, scope), offered again next time.
        self.export_choice: tuple[str, str] = ("md", "")

    # --- start-up -----------------------------------------------------------------------------
    def on_mount(self) -> None:
        from viewer.tui.themes import DEFAULT_THEME

        self.theme = self._theme_name or DEFAULT_THEME
        self._apply_palette()
        self.theme_changed_signal.subscribe(self, lambda _theme: self._apply_palette())
        self._remember_theme = self._user_config
        for message in self.theme_messages:
            self.notify(message, title="Theme", severity="warning", markup=False, timeout=12)
        if self.model is not None:
            self._show_model(self.model)
            return
        from viewer.tui.loading import LoadingScreen

        self.push_screen(LoadingScreen(self.path))
        self._load()

    @work(thread=True, exclusive=True, group="load")
    def _load(self) -> None:
        """Parse and build off the event loop; the loading screen is already drawn."""
        worker = get_current_worker()
        self.call_from_thread(self._progress, 1, "reading and parsing")
        # The parse and the build make millions of long-lived objects: with the collector on,
        # they take several times longer (README, *Performance*: how big files open).
        gc_was_enabled = gc.isenabled()
        gc.disable()
        # The loading screen needs little: let the worker keep the GIL longer between switches.
        switch = sys.getswitchinterval()
        sys.setswitchinterval(0.05)
        try:
            data, self._data = self._data, None
            if data is None:
                loaded = open_path(self.path, ignore_critical=self.ignore_critical,
                                   trust=self.trust, defer_key_check=True)
            else:
                loaded = open_bytes(data, name=self.path, ignore_critical=self.ignore_critical,
                                    trust=self.trust, defer_key_check=True)
                del data
            if worker.is_cancelled:
                return
            self.call_from_thread(self._progress, 2, "replaying events")
            stages = None
            if self._builder is _default_builder:
                from viewer.model.build import build_stages

                stages = build_stages(loaded, first=FIRST_OPERATIONS, above=STAGED_ABOVE)
                model = next(stages)
            else:
                model = self._builder(loaded)
            if worker.is_cancelled:
                return
            self.call_from_thread(self._progress, 3, "drawing")
            drawn = threading.Event()
            self.call_from_thread(self._show_model, model, drawn)
            if stages is not None and model.pending_operations:
                # The first operations are on screen: replay the rest once the frame is out,
                # switching often enough that the timeline stays live meanwhile.
                sys.setswitchinterval(switch)
                drawn.wait(10)
                model = next(stages)
                if not worker.is_cancelled:
                    self.call_from_thread(self._adopt, model)
        except LoadError as exc:
            self.call_from_thread(self._show_load_error, exc)
            return
        finally:
            sys.setswitchinterval(switch)
            if gc_was_enabled:
                gc.freeze()  # first: the millions of new objects never become gen0 work
                gc.enable()

    def _progress(self, step: int, label: str) -> None:
        from viewer.tui.loading import LoadingScreen

        if isinstance(self.screen, LoadingScreen):
            self.screen.step(step, label)

    def _show_load_error(self, exc: LoadError) -> None:
        from viewer.tui.loading import LoadErrorScreen

        self.load_error = exc
        self.push_screen(LoadErrorScreen(exc), callback=lambda _: self.exit(exc.exit_code,
                                                                            return_code=exc.exit_code))

    def _show_model(self, model: Model, drawn: threading.Event | None = None) -> None:
        from viewer.tui.loading import LoadingScreen
        from viewer.tui.timeline import TimelineScreen

        self.model = model
        if order_only(model):  # no time was recorded: every screen counts steps
            self.set_reactive(VconViewApp.time_mode, ORDER)
        self.matcher = Matcher(model)
        self.shown = range(len(model.operations))
        if self.goto is not None:
            self._apply_goto(final=not model.pending_operations)
        gc.freeze()  # the model lives for the whole session: keep the collector off it
        if isinstance(self.screen, LoadingScreen):
            self.switch_screen(TimelineScreen())
        else:
            self.push_screen(TimelineScreen())
        if drawn is not None:
            self.call_after_refresh(drawn.set)
        if model.unchecked is not None and not model.pending_operations:
            self.call_after_refresh(self._check)  # once the timeline is on screen

    @work(thread=True, exclusive=True, group="check")
    def _check(self) -> None:
        """Add the conformance checks the first model put off, off the event loop."""
        from viewer.model.build import complete_checks

        model = self.model
        if model is None or model.unchecked is None:
            return
        if model.pending_operations:
            return  # checks run on the whole model (``_adopt`` starts them)
        checked = complete_checks(model)
        if not get_current_worker().is_cancelled:
            self.call_from_thread(self._adopt, checked)

    def checked_model(self) -> Model | None:
        """The model with every operation and diagnostic (checked now if the worker has not
        finished), or None while operations are still replaying: what exports must use."""
        assert self.model is not None
        if self.model.pending_operations:
            return None
        if self.model.unchecked is not None:
            from viewer.model.build import complete_checks

            self._adopt(complete_checks(self.model))
        return self.model

    def _adopt(self, new: Model) -> None:
        """Show a later stage of the model being shown: the rest of the operations replayed
        (the first ones unchanged), or the diagnostics complete. Anything else is ignored."""
        old = self.model
        if old is None:
            return
        # Read anew by the loader's put-off count of keys named twice (``Model.key_check``):
        # the same operations (the typed pass keeps a key's last value, as orjson does) as new
        # objects, and every diagnostic.
        anew = (new.vcon is not old.vcon and old.key_check is not None
                and new.unchecked is None and not new.pending_operations
                and len(new.operations) == len(old.operations))
        if new.vcon is not old.vcon and not anew:
            return
        grew = new.pending_operations < old.pending_operations
        if grew:
            if old.operations and new.operations[0] is not old.operations[0]:
                return
        elif not anew and not (old.unchecked is not None and new.unchecked is None
                               and new.operations is old.operations):
            return
        self.model = new
        self._totals = None
        if anew:
            self.set_note("a key is named twice in one object: see the diagnostics")
        if grew or anew:
            self.matcher = Matcher(new)
            if grew and self.goto is not None:  # the id may be among the operations replayed last
                self.shown = range(len(new.operations))
                self._apply_goto(final=not new.pending_operations)
            if self.filter.empty:
                self.shown = range(len(new.operations))
                self.refresh_views()
            else:  # the filter now runs over every operation
                self.apply_filter(self.filter.text, background=True)
        elif self.matcher is not None:
            self.matcher.model = new
        for screen in self.screen_stack:
            screen.post_message(ModelAdopted(new))
        if new.unchecked is not None and not new.pending_operations:
            self.call_after_refresh(self._check)
        elif new.unchecked is None and not new.pending_operations \
                and len(new.operations) > PREPARE_ABOVE:
            self._prepare()

    @work(thread=True, exclusive=True, group="prepare", description="prepare the lists")
    def _prepare(self) -> None:
        """Build the findings list, the context transcript and the palette's index of the
        final model in a thread, so ``f``, ``c`` and a palette query find them ready."""
        from viewer.tui import commands, context, findings

        model, worker = self.model, get_current_worker()
        for step in (findings.prepare, context.prepare, commands.prepare):
            if worker.is_cancelled or model is None or model is not self.model:
                return
            step(model)
        gc.freeze()  # the lists live as long as the model: out of the collector's way too

    def _apply_goto(self, final: bool) -> None:
        """Select the operation --goto names: its exact id, else the one id it begins. An id
        the file does not have opens the file all the same, and the status line says so."""
        assert self.model is not None and self.goto is not None
        want = self.goto
        index = self.model.by_operation.get(want)
        if index is None:
            hits = [i for i, op in enumerate(self.model.operations)
                    if op.operation_id.startswith(want)][:2]
            index = hits[0] if len(hits) == 1 else None
        if index is not None:
            self.goto = None
            self.sel, self.attempt_sel, self.event_sel = index, 0, None
            self.set_note("")
        elif final:
            self.goto = None
            self.set_note(Text(f"--goto: no operation {safe(want)!r} in this file "
                               "(showing the first)", style="bold"))

    def set_note(self, note: str | Text) -> None:
        """Say what the last key did in the status line (the timeline shows it)."""
        self.note = note

    def totals(self) -> tuple[int, dict[str, int]]:
        """Attempt count and findings by severity, computed once per model."""
        if self._totals is None:
            assert self.model is not None
            self._totals = (sum(len(op.attempts) for op in self.model.operations),
                            self.model.counts(diagnostics=False))
        return self._totals

    @property
    def t0(self) -> datetime | None:
        """The origin of relative times on every screen: the start of ``view_span`` (events
        and dialog turns), the same as the timeline's axis. Cached per model."""
        model = self.model
        if model is None:
            return None
        if self._t0 is None or self._t0[0] is not model:
            self._t0 = (model, view_span(model)[0])
        return self._t0[1]

    def _apply_palette(self) -> None:
        """Give the palette of the current theme to every widget (row caches are dropped).

        Also runs on Textual's theme-changed signal, which comes after the new CSS is applied, so
        the timeline's cached rows and base style are rebuilt on the new background.
        """
        from viewer.tui import palette, present, themes

        palette.set_palette(themes.palette_for(self.theme_set.themes, self.theme,
                                               self.current_theme.dark))
        present.syntax_theme = "ansi_dark" if self.current_theme.dark else "ansi_light"
        self.refresh_views()

    def watch_theme(self, name: str) -> None:
        """A live switch (command palette): remember it in the user's config."""
        if self._remember_theme:
            from viewer.tui.themes import save_theme

            save_theme(name)  # False when the config dir is not writable: keep going

    def on_unmount(self) -> None:
        gc.unfreeze()

    # --- shared selection ------------------------------------------------------------------------
    @property
    def operation(self) -> Operation | None:
        if self.model is None or not self.shown:
            return None
        self.sel = state.clamp(self.sel, len(self.shown))
        return self.model.operations[self.shown[self.sel]]

    @property
    def attempt(self) -> Attempt | None:
        op = self.operation
        if op is None or not op.attempts:
            return None
        self.attempt_sel = state.clamp(self.attempt_sel, len(op.attempts))
        return op.attempts[self.attempt_sel]

    def step_attempt(self, delta: int) -> bool:
        """Move the attempt selection by ``delta`` within the operation; True when it moved."""
        op = self.operation
        if op is None or not op.attempts:
            return False
        new = state.stepped(self.attempt_sel, delta, len(op.attempts))
        if new == self.attempt_sel:
            return False
        self.attempt_sel = new
        self.event_sel = None
        return True

    def select_operation(self, op_index: int, attempt: int | None = None,
                         event: int | None = None) -> bool:
        """Select a model operation (by model index); clears a filter that hides it."""
        if self.model is None:
            return False
        k = state.position_of(self.shown, op_index)
        if k is None:
            self.apply_filter("")
            k = op_index
            self.notify("Filter cleared: the operation chosen was hidden by it", markup=False)
        self.sel = k
        op = self.model.operations[op_index]
        self.attempt_sel = 0
        if attempt is not None:
            for i, a in enumerate(op.attempts):
                if a.number == attempt:
                    self.attempt_sel = i
        self.event_sel = event
        for screen in self.screen_stack:
            screen.post_message(SelectionMoved())
        return True

    def apply_filter(self, text: str, *, background: bool = False) -> str | None:
        """Set the filter; returns an error message for an unreadable filter.

        With ``background`` on a big model the matching runs in a thread (free text reads every
        operation's content) and the result is shown when it is ready.
        """
        if self.model is None or self.matcher is None:
            return None
        try:
            f = parse_filter(text)
        except FilterError as exc:
            return str(exc)
        if background and len(self.model.operations) > BIG_MODEL and not f.empty:
            self.notify("Filtering…", markup=False, timeout=2)
            self._filter_in_thread(f)
            return None
        self._set_filter(f, self.matcher.select(f))
        return None

    @work(thread=True, exclusive=True, group="filter")
    def _filter_in_thread(self, f: Filter) -> None:
        worker = get_current_worker()
        assert self.matcher is not None
        shown = self.matcher.select(f, stop=lambda: worker.is_cancelled)
        if not worker.is_cancelled:
            self.call_from_thread(self._set_filter, f, shown)

    def _set_filter(self, f: Filter, shown: Sequence[int]) -> None:
        current = self.shown[self.sel] if self.shown else None
        self.filter = f
        self.shown = shown
        self.sel = 0
        if current is not None:
            self.sel = state.position_of(shown, current) or 0
        self.attempt_sel = 0
        self.refresh_views()

    def refresh_views(self) -> None:
        """Tell every screen the view changed (filter, selection, zoom, time mode, theme):
        each redraws what shows it (``ViewChanged``)."""
        for screen in self.screen_stack:
            screen.post_message(ViewChanged())

    # --- findings navigation ------------------------------------------------------------------
    def finding_target(self, f: Finding) -> tuple[int | None, int | None, int | None]:
        """(operation index, attempt number, event index) a finding points at."""
        assert self.model is not None
        return state.finding_target(self.model, f)

    def finding_order(self) -> list[tuple[int, int]]:
        """(operation index, finding index) of the findings ``n`` visits, in timeline order
        (``state.in_reach``: under a filter, those of the operations shown)."""
        model = self.model
        if model is None:
            return []
        cached = self._finding_order
        if cached is None or cached[0] is not model:
            cached = self._finding_order = (model, state.finding_order(model))
        return state.in_reach(cached[1], None if self.filter.empty else self.shown)

    def step_finding(self, direction: int) -> tuple[Finding, int, int, bool] | None:
        """Select the next (1) or previous (-1) finding (``state.step_finding``).

        Returns (finding, its place in the order, how many, whether it wrapped around), or None
        when there is none (under a filter: none among the operations shown).
        """
        model = self.model
        if model is None:
            return None
        current = self.shown[self.sel] if self.shown else None
        step = state.step_finding(self.finding_order(), len(model.operations), current,
                                  self.finding_pos, direction)
        if step is None:
            return None
        self.finding_pos = step.finding
        f = model.findings[step.finding]
        target, attempt, event = self.finding_target(f)
        if target is not None:
            self.select_operation(target, attempt, event)
        return f, step.place, step.total, step.wrapped

    def notify_finding(self, step: tuple[Finding, int, int, bool] | None, direction: int
                       ) -> None:
        """Say where ``n``/``N`` went, in the status line (a toast covered the lanes): its
        place among the findings in reach, a wrap, its severity, kind and message."""
        from viewer.tui import palette as P

        filtered = not self.filter.empty
        note = Text()
        if step is None:
            note.append("No findings among the operations shown (escape clears the filter)"
                        if filtered else "No findings", P.style("dim"))
        else:
            f, k, n, wrapped = step
            where = " in the filter" if filtered else ""
            wrap = "" if not wrapped else " (from the top)" if direction > 0 else \
                " (from the end)"
            note.append(f"finding {k + 1}/{n}{where}{wrap} ")
            note.append(f"{P.SEVERITY_GLYPH.get(f.severity, '')} {f.severity} {f.kind}",
                        P.style(f"severity:{f.severity}"))
            note.append(": " + safe(f.message))
        self.set_note(note)
        self.present_note()

    def present_note(self) -> None:
        """Tell the screens the note changed; those with a place for it show it."""
        for screen in self.screen_stack:
            screen.post_message(NoteChanged())

    # --- actions -------------------------------------------------------------------------------
    def action_command_palette(self) -> None:
        """Textual's palette, with page up/down guarded (``GuardedPalette``)."""
        from viewer.tui.commands import GuardedPalette

        if self.use_command_palette and not GuardedPalette.is_open(self):
            self.push_screen(GuardedPalette(id="--command-palette"))

    def action_help(self) -> None:
        from viewer.tui.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    def watch_time_mode(self) -> None:
        self.refresh_views()

    def watch_zoom(self) -> None:
        self.refresh_views()

    def cycle_time_mode(self) -> str:
        if order_only(self.model):
            self.time_mode = ORDER
            return ORDER
        self.time_mode = TIME_MODES[(TIME_MODES.index(self.time_mode) + 1) % len(TIME_MODES)]
        return self.time_mode

    def copy_with_fallback(self, text: str, what: str) -> str:
        """pyperclip first; the terminal's OSC 52 when there is no clipboard. Says which."""
        try:
            import pyperclip

            pyperclip.copy(text)
            how = "system clipboard"
        except Exception:  # pyperclip raises its own errors, or anything on odd platforms
            self.copy_to_clipboard(text)
            how = "terminal clipboard (OSC 52)"
        self.notify(f"Copied {what} to the {how}", title="Copy", markup=False)
        return how


#: The one factory for the CLI and the tests (posting's pattern): the App's own class, so its
#: keywords are written once, in ``VconViewApp.__init__``.
make_app = VconViewApp


def run(path: str, *, ignore_critical: bool = False, theme: str | None = None,
        data: bytes | None = None, trust: TrustStore | None = None,
        goto: str | None = None, fast_exit: bool = False) -> int:
    """Run the viewer on ``path`` (``data``: its bytes, already read); returns the exit status
    (2/3 for files it could not open).

    ``fast_exit``: the caller ends the process with ``os._exit`` as soon as this returns
    (``cli._finish``), so quitting waits neither for worker threads still checking or
    filtering (asyncio's default executor is not shut down) nor for Textual's input thread
    to notice the exit (``QuickQuitDriver``); the terminal is restored before this returns.
    """
    import asyncio

    app = make_app(path, ignore_critical=ignore_critical, theme=theme, user_config=True,
                   data=data, trust=trust, goto=goto)
    for message in app.theme_messages:  # also shown in the TUI; here they outlive the screen
        print(f"vcon-view: {message}", file=sys.stderr)
    if not fast_exit:
        result: Any = app.run()
    else:
        app.driver_class = quick_quit_driver(app.driver_class)
        result = app.run(loop=asyncio.new_event_loop())
    if app.return_code:
        return app.return_code
    return result if isinstance(result, int) else 0


def quick_quit_driver(base: type[Any]) -> type[Any]:
    """``base`` (Textual's terminal driver) with an input thread that is told to stop and not
    waited for: it sleeps in ``select`` twice, a timeout each, before it sees the exit, which
    was most of what a quit took in the App (README, *Performance*). Only for a process that
    ends with ``os._exit`` once the App returns. Drivers without that thread are returned as
    they are."""
    from textual.drivers.linux_driver import LinuxDriver

    if not (isinstance(base, type) and issubclass(base, LinuxDriver)):
        return base

    class QuickQuitDriver(base):  # type: ignore[misc, valid-type]
        def disable_input(self) -> None:
            import contextlib
            import signal
            import termios

            if self.exit_event.is_set():
                return
            with contextlib.suppress(Exception):  # as LinuxDriver's: never fails a quit
                signal.signal(signal.SIGWINCH, signal.SIG_DFL)
                self._disable_mouse_support()
                self.exit_event.set()  # kept set: the thread ends at its next wake-up
                with contextlib.suppress(termios.error):
                    termios.tcflush(self.fileno, termios.TCIFLUSH)

    return QuickQuitDriver
