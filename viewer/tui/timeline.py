"""The main screen: one row per operation with its lane on a shared time axis.

``TimelineView`` is a Line-API ``ScrollView`` (toolong's pattern): only visible rows are
rendered, each rendered row is cached by everything that changes its look, so 100k operations
scroll as fast as ten. Three fixed rows sit on top: the ruler, the context lane (what the person
said, join/keydown) and the standing-decision lane.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, ClassVar

from rich.style import Style
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.containers import Vertical
from textual.css.query import NoMatches
from textual.geometry import Size
from textual.screen import Screen
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widgets import Footer, Input, Static

from viewer.model import spec
from viewer.model.types import Model, Operation, Step
from viewer.textsafe import safe
from viewer.tui import palette as P
from viewer.tui.base import VappMixin
from viewer.tui.filter import FilterError, parse_filter
from viewer.tui.present import dialog_text, dialog_time, fmt_delta, fmt_time

if TYPE_CHECKING:
    from viewer.tui.app import VconViewApp

BIG_MODEL = 20000  # as viewer.tui.app.BIG_MODEL: live filtering only below this

FIXED_ROWS = 3
_OUTCOME_STATE = {spec.outcome_name(s): s for s in spec.STATES}
# Glyph precedence when two marks fall on one cell and cannot be pushed apart: final states win
# over progress.
_PRIORITY = {"tool-progress": 0, "tool-pending": 1, "tool-input": 1, "tool-input-response": 1,
             "tool-invocation": 2, "tool-timeout": 2, "tool-cancel": 2, "tool-result": 3,
             "tool-failure": 3, "tool-error": 3, "tool-denied": 3}
_NUDGE = 2  # cells a mark may be pushed right of its time to stay visible
NARROW_FOOTER = 140  # below this width the footer leaves out the command palette's ^p


@dataclass(frozen=True, slots=True)
class Columns:
    """Where each part of a row goes at a given width."""

    id_w: int
    target_w: int
    time_w: int
    outcome_w: int
    flags_w: int
    lane_x: int
    lane_w: int
    short_flags: bool


def columns(width: int) -> Columns:
    if width >= 160:
        id_w, target_w, time_w, outcome_w, flags_w, short = 18, 26, 11, 15, 22, False
    elif width >= 110:
        id_w, target_w, time_w, outcome_w, flags_w, short = 14, 18, 0, 13, 13, True
    else:
        id_w, target_w, time_w, outcome_w, flags_w, short = 10, 12, 0, 12, 8, True
    # marker id target [time] decision attempts outcome flags
    left = 1 + id_w + 1 + target_w + 1 + (time_w + 1 if time_w else 0) + 2 + 4 + outcome_w + 1
    left += flags_w + 1
    lane_w = max(8, width - left)
    return Columns(id_w, target_w, time_w, outcome_w, flags_w, left, lane_w, short)


def fit(text: str, width: int) -> str:
    """Truncate to ``width`` cells with an ellipsis, pad to exactly ``width``."""
    if width <= 0:
        return ""
    if len(text) > width:
        return text[: width - 1] + "…"
    return text.ljust(width)


def short_target(op: Operation) -> str:
    """'tool @ host/path': the tool first (it is what differs), the server without scheme."""
    server = op.server or "?"
    for scheme in ("https://", "http://", "wss://", "ws://"):
        if server.startswith(scheme):
            server = server[len(scheme):]
            break
    return f"{op.tool or '*'} @ {server}"


def _secs(t: datetime | None, t0: datetime | None) -> float | None:
    if t is None or t0 is None:
        return None
    return (t - t0).total_seconds()


class Axis:
    """The shared time axis: model time span, and the visible window given zoom and centre."""

    def __init__(self, model: Model) -> None:
        times = [t for t in model.time_span() if t is not None]
        for d in model.dialog:
            t = dialog_time(d)
            if t is not None:
                times.append(t)
        self.t0: datetime | None = min(times) if times else None
        self.t1: datetime | None = max(times) if times else None
        self.span = max(_secs(self.t1, self.t0) or 0.0, 1e-3)
        self.ws = 0.0
        self.we = self.span

    def set_window(self, zoom: float, centre: float | None) -> None:
        width = self.span / max(zoom, 1.0)
        c = self.span / 2 if centre is None else centre
        ws = min(max(0.0, c - width / 2), self.span - width)
        self.ws, self.we = ws, ws + width

    def x(self, t: datetime | None, lane_w: int) -> int | None:
        s = _secs(t, self.t0)
        if s is None or s < self.ws - 1e-9 or s > self.we + 1e-9:
            return None
        return round((s - self.ws) / (self.we - self.ws) * (lane_w - 1))

    def x_clamped(self, t: datetime | None, lane_w: int) -> int | None:
        s = _secs(t, self.t0)
        if s is None:
            return None
        pos = (s - self.ws) / (self.we - self.ws) * (lane_w - 1)
        return round(min(max(pos, -1), lane_w))


class TimelineView(VappMixin, ScrollView, can_focus=True, inherit_bindings=False):
    """Operations × time, drawn line by line."""

    DEFAULT_CSS = """
    TimelineView { height: 1fr; overflow-x: hidden; }
    """

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self._cache: LRUCache[tuple, Strip] = LRUCache(maxsize=2000)
        # Each lane's picture without the selection, so moving between attempts of an
        # operation with 100k attempts repaints in O(width), not O(attempts).
        self._lanes: LRUCache[tuple, tuple] = LRUCache(maxsize=2000)
        self.axis: Axis | None = None
        self._generation = 0
        self._base_style: Style | None = None

    def on_mount(self) -> None:
        model = self.vapp.model
        if model is not None:
            self.axis = Axis(model)
        self.reset()

    def reset(self) -> None:
        """The filter, zoom or palette changed: drop caches, resize, keep the selection seen."""
        self._generation += 1
        self._cache.clear()
        self._lanes.clear()
        self._base_style = None
        self.virtual_size = Size(self.size.width, len(self.vapp.shown) + FIXED_ROWS)
        self._update_window()
        self.ensure_visible()
        self.refresh()

    def _update_window(self) -> None:
        if self.axis is None:
            return
        op = self.vapp.operation
        centre = _secs(op.first_time, self.axis.t0) if op is not None else None
        self.axis.set_window(self.vapp.zoom, centre)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._base_style = None
        self._cache.clear()
        self._lanes.clear()

    def on_resize(self) -> None:
        self.virtual_size = Size(self.size.width, len(self.vapp.shown) + FIXED_ROWS)
        self.ensure_visible()

    def ensure_visible(self) -> None:
        # the rows under the fixed ones, less any scrollbar's (scrollable_content_region)
        body = max(1, self.scrollable_content_region.height - FIXED_ROWS)
        sel = self.vapp.sel
        top = round(self.scroll_offset.y)
        if sel < top:
            self.scroll_to(y=sel, animate=False, immediate=True)
        elif sel >= top + body:
            self.scroll_to(y=sel - body + 1, animate=False, immediate=True)

    def selection_moved(self) -> None:
        if self.vapp.zoom > 1.0:
            self._generation += 1
            self._update_window()
        self.ensure_visible()
        self.refresh()

    # --- rendering -----------------------------------------------------------------------------
    def render_line(self, y: int) -> Strip:
        width = self.size.width
        model = self.vapp.model
        base = self._base_style
        if base is None:
            base = self._base_style = self.rich_style
        if model is None or self.axis is None or width <= 0:
            return Strip.blank(width, base)
        cols = columns(width)
        if y < FIXED_ROWS:
            key = ("fixed", y, width, self.axis.ws, self.axis.we, self.vapp.time_mode,
                   self._generation, len(self.vapp.shown))
            strip = self._cache.get(key)
            if strip is None:
                text = (self._ruler, self._context_lane, self._standing_lane)[y](model, cols)
                strip = self._strip(text, width, base)
                self._cache[key] = strip
            return strip
        pos = round(self.scroll_offset.y) + y - FIXED_ROWS
        if pos >= len(self.vapp.shown):
            return Strip.blank(width, base)
        selected = pos == self.vapp.sel
        op_index = self.vapp.shown[pos]
        prev_index = self.vapp.shown[pos - 1] if pos > 0 else None
        key = (op_index, prev_index, width, self.axis.ws, self.axis.we, self.vapp.time_mode,
               selected, self.vapp.attempt_sel if selected else -1, self._generation)
        strip = self._cache.get(key)
        if strip is None:
            text = self._op_row(model, op_index, prev_index, cols, selected)
            strip = self._strip(text, width, base)
            self._cache[key] = strip
        return strip

    def _strip(self, text: Text, width: int, base: Style) -> Strip:
        segments = list(text.render(self.app.console))
        return Strip(segments).crop_extend(0, width, base).apply_style(base).simplify()

    def _left_header(self, cols: Columns, label: str) -> Text:
        text = Text(" " + fit(label, cols.lane_x - 2) + " ", style=P.style("dim"))
        return text

    def _ruler(self, model: Model, cols: Columns) -> Text:
        axis = self.axis
        assert axis is not None
        head = " " + fit("operation", cols.id_w) + " " + fit("tool @ server", cols.target_w) + " "
        if cols.time_w:
            head += fit("start", cols.time_w) + " "
        head += "d   n " + fit("outcome", cols.outcome_w) + " " + fit("flags", cols.flags_w) + " "
        text = Text(fit(head, cols.lane_x), style=P.style("dim"))
        lane = ["─"] * cols.lane_w
        tick_every = 14
        for x in range(0, cols.lane_w, tick_every):
            s = axis.ws + (axis.we - axis.ws) * x / max(1, cols.lane_w - 1)
            label = self._tick_label(s)
            lane[x] = "┬"
            for i, ch in enumerate(label):
                if x + 1 + i < cols.lane_w and i < tick_every - 2:
                    lane[x + 1 + i] = ch
        text.append("".join(lane), style=P.style("ruler"))
        return text

    def _tick_label(self, s: float) -> str:
        axis = self.axis
        assert axis is not None
        if axis.t0 is None:  # no event has a parsable time: an axis without labels
            return ""
        if self.vapp.time_mode == "absolute":
            from datetime import timedelta

            t = axis.t0 + timedelta(seconds=s)
            return t.strftime("%H:%M:%S")
        return fmt_delta(s).replace(".000s", "s")

    def _context_lane(self, model: Model, cols: Columns) -> Text:
        text = self._left_header(cols, f"context: {len(model.dialog)} dialog, "
                                       f"{len(model.context)} events")
        lane: list[tuple[str, Style]] = [(" ", Style.null())] * cols.lane_w
        assert self.axis is not None
        st = P.style("context")
        for d in model.dialog:
            x = self.axis.x(dialog_time(d), cols.lane_w)
            if x is not None:
                lane[x] = (P.CONTEXT_GLYPH["dialog"], st)
        for i in model.context:
            e = model.events[i]
            x = self.axis.x(e.time, cols.lane_w)
            if x is not None:
                lane[x] = (P.CONTEXT_GLYPH.get(e.type, P.UNKNOWN_GLYPH), st)
        for ch, style in lane:
            text.append(ch, style)
        return text

    def _standing_lane(self, model: Model, cols: Columns) -> Text:
        text = self._left_header(cols, f"standing decisions: {len(model.standing)}")
        lane: list[tuple[str, Style]] = [(" ", Style.null())] * cols.lane_w
        assert self.axis is not None
        for sd in model.standing:
            x = self.axis.x(sd.time, cols.lane_w)
            if x is not None:
                lane[x] = (P.DECISION_GLYPH.get(sd.decision, "?"), P.decision_style(sd.decision))
        for ch, style in lane:
            text.append(ch, style)
        return text

    def _op_row(self, model: Model, op_index: int, prev_index: int | None, cols: Columns,
                selected: bool) -> Text:
        op = model.operations[op_index]
        text = Text()
        sel_style = P.style("selected") if selected else Style.null()
        text.append("›" if selected else " ", sel_style)
        text.append(fit(safe(op.operation_id), cols.id_w), sel_style)
        text.append(" ")
        text.append(fit(safe(short_target(op)), cols.target_w))
        text.append(" ")
        if cols.time_w:
            prev = model.operations[prev_index].first_time if prev_index is not None else None
            label = fmt_time(op.first_time, self.vapp.time_mode, self.axis.t0 if self.axis
                             else None, prev)
            text.append(fit(label, cols.time_w), P.style("dim"))
            text.append(" ")
        text.append(P.DECISION_GLYPH.get(op.decision, "?"), P.decision_style(op.decision))
        text.append(" ")
        text.append(f"{len(op.attempts):>3} ")
        state = _OUTCOME_STATE.get(op.outcome)
        glyph = P.STATE_GLYPH.get(state, "◆" if op.outcome == "disallowed" else "-") \
            if state else ("◆" if op.outcome == "disallowed" else "-")
        ostyle = P.state_style(state) if state else P.decision_style(
            "disallowed" if op.outcome == "disallowed" else None)
        text.append(fit(f"{glyph} {op.outcome}", cols.outcome_w), ostyle)
        text.append(" ")
        text.append_text(self._flags(op, cols))
        text.append(" ")
        text.append_text(self._lane(model, op, cols, selected))
        return text

    def _flags(self, op: Operation, cols: Columns) -> Text:
        labels = P.FLAG_SHORT if cols.short_flags else P.FLAG_LABEL
        text = Text()
        for kind in P.FLAG_ORDER:
            if kind in op.flags:
                if text:
                    text.append(" ")
                text.append(labels[kind], P.style(f"flag:{kind}") or P.style("flag"))
        if text.cell_len > cols.flags_w:
            text.truncate(cols.flags_w - 1)
            text.append("…")
        text.pad_right(cols.flags_w - text.cell_len)
        return text

    def _lane(self, model: Model, op: Operation, cols: Columns, selected: bool) -> Text:
        """The operation's lane: the cached picture of all its attempts, with the selected
        attempt's cells emphasised on top (O(width) per key, whatever the attempt count)."""
        axis = self.axis
        assert axis is not None
        w = cols.lane_w
        key = (id(op), w, axis.ws, axis.we, self._generation)
        cached = self._lanes.get(key)
        if cached is None or cached[0] is not op:  # (an id may be reused by a later object)
            cached = self._lanes[key] = (op, _lane_layers(model, op, axis, w))
        chars, styles, owners, parts = cached[1]
        if selected:
            sel = self.vapp.attempt_sel
            emph = P.style("selected-attempt")
            styles = [
                _compose(parts[x], emph) if owner == sel else st
                for x, (owner, st) in enumerate(zip(owners, styles, strict=True))
            ]
        text = Text()
        for ch, st in zip(chars, styles, strict=True):
            text.append(ch, st)
        return text

    # --- mouse ---------------------------------------------------------------------------------
    def on_click(self, event: events.Click) -> None:
        if event.y < FIXED_ROWS:
            return
        pos = round(self.scroll_offset.y) + event.y - FIXED_ROWS
        if not 0 <= pos < len(self.vapp.shown):
            return
        same = pos == self.vapp.sel
        self.vapp.sel = pos
        cols = columns(self.size.width)
        op = self.vapp.operation
        if op is not None and event.x >= cols.lane_x and self.axis is not None:
            model = self.vapp.model
            assert model is not None
            lx = event.x - cols.lane_x
            best, best_d = 0, None
            for ai, a in enumerate(op.attempts):
                xs = [self.axis.x_clamped(model.events[i].time, cols.lane_w) for i in a.events]
                xs = [x for x in xs if x is not None]
                if not xs:
                    continue
                d = 0 if min(xs) <= lx <= max(xs) else min(abs(lx - min(xs)), abs(lx - max(xs)))
                if best_d is None or d < best_d:
                    best, best_d = ai, d
            self.vapp.attempt_sel = best
        elif not same:
            self.vapp.attempt_sel = 0
        self.screen.refresh_all()  # type: ignore[attr-defined]
        if same and event.chain >= 2:
            self.screen.action_open_detail()  # type: ignore[attr-defined]



_Parts = tuple[str | None, bool, bool]  # (state in effect, late, out of model) of one cell


def _compose(parts: _Parts, emph: Style) -> Style:
    """A cell's style: its state's colour, the selection's emphasis, then late, out-of-model."""
    state, late, oom = parts
    st = P.state_style(state) + emph
    if late:
        st += P.style("late")
    if oom:
        st += P.style("out-of-model")
    return st


def _lane_layers(model: Model, op: Operation, axis: Axis, w: int,
                 ) -> tuple[list[str], list[Style], list[int], list[_Parts]]:
    """One lane without the selection: each cell's glyph, style, the attempt that drew it
    (-1: none or a decision) and its style's parts, so the selection is laid on in O(w).

    Segments between an attempt's events take the colour of the state in effect; marks go in
    replay order, each pushed right past the one before when they share a cell (at most
    _NUDGE cells, so a mark stays near its time): order is kept and a timeout next to a
    retry's invocation stays visible on a narrow lane. Beyond that a mark shares the latest
    cell and precedence decides which shows; a mark never lands left of one that came before
    it. Once decisions go just before the attempt they govern.
    """
    events = model.events
    chars = [" "] * w
    parts: list[_Parts] = [(None, False, False)] * w
    owners = [-1] * w
    prio = [-1] * w
    plain = [True] * w  # an untouched cell keeps the null style
    marks: list[tuple[int, int, int, Step]] = []
    # Segments as (first cell, end cell, fill, parts, attempt); a later segment paints over an
    # earlier one, so they are laid from the last, each cell painted once (``free`` skips
    # painted cells): O(steps + width) where painting every segment was O(steps x width).
    segments: list[tuple[int, int, str, _Parts, int]] = []
    finals = spec.FINAL_STATES
    t0 = axis.t0
    scale = (w - 1) / (axis.we - axis.ws)
    ws = axis.ws

    def x_of(t: datetime | None) -> int | None:  # Axis.x_clamped, inlined for 100k attempts
        if t is None or t0 is None:
            return None
        pos = ((t - t0).total_seconds() - ws) * scale
        return round(min(max(pos, -1), w))

    for ai, attempt in enumerate(op.attempts):
        steps = attempt.steps
        xs = [x_of(events[s.event].time) for s in steps]
        last_k = len(steps) - 1
        for k, step in enumerate(steps):
            x0 = xs[k]
            if x0 is None:
                continue
            if 0 <= x0 < w:
                marks.append((events[step.event].order, x0, ai, step))
            if k < last_k:
                x1, fill = xs[k + 1], "─"
            elif step.after not in finals:
                x1, fill = w, "┄"  # unterminated: runs off to the end of the record
            else:
                continue
            if x1 is None:
                continue
            a, b = max(0, x0 + 1), min(w, x1)
            if a < b:
                segments.append((a, b, fill, (step.after, False, False), ai))
    free = list(range(w + 1))  # free[x]: the first unpainted cell at or after x (w: none)

    def first_free(x: int) -> int:
        root = x
        while free[root] != root:
            root = free[root]
        while free[x] != root:  # path compression
            free[x], x = root, free[x]
        return root

    for a, b, fill, cell, ai in reversed(segments):
        x = first_free(a)
        while x < b:
            chars[x], parts[x], owners[x], plain[x] = fill, cell, ai, False
            free[x] = x + 1
            x = first_free(x + 1)
    marks.sort(key=lambda m: m[0])
    last = -1
    shown: list[tuple[int, Step] | None] = [None] * w  # the mark that shows in each cell
    for _, x, ai, step in marks:
        p = _PRIORITY.get(events[step.event].type, 0)
        if x <= last:  # never left of a later mark: its cell, or pushed past it
            x = last + 1 if last + 1 < w and last + 1 - x <= _NUDGE else last
        if p < prio[x]:
            continue
        prio[x], shown[x] = p, (ai, step)
        if x > last:
            last = x
    for x, mark in enumerate(shown):
        if mark is not None:
            ai, step = mark
            chars[x], owners[x], plain[x] = P.event_glyph(events[step.event].type), ai, False
            parts[x] = (step.after, step.late, step.out_of_model)
    null = Style.null()
    styles = [null if plain[x] else _compose(parts[x], null) for x in range(w)]
    for idx in op.once_decisions:
        ev = events[idx]
        x = axis.x(ev.time, w)
        if x is None:
            continue
        if prio[x] >= 0 and x > 0 and prio[x - 1] < 0:
            x -= 1
        decision = ev.raw.get("decision")
        d = decision if isinstance(decision, str) else None
        chars[x], styles[x], prio[x], owners[x] = (
            P.DECISION_GLYPH.get(d, "?"), P.decision_style(d), 5, -1)
    return chars, styles, owners, parts


class InfoHeader(Static):
    """File, form, uuid, counts, extensions; a banner for overrides and error diagnostics."""

    def present(self, app: VconViewApp, extra: str = "") -> None:
        model = app.model
        if model is None:
            return
        src = model.source
        name = src.file.rsplit("/", 1)[-1] if src.file != "-" else "stdin"
        text = Text()
        if src.critical_override:
            text.append(
                f" CRITICAL OVERRIDE: unsupported critical extension(s) "
                f"{', '.join(safe(c) for c in src.unsupported_critical) or '?'} ignored "
                "(--ignore-critical) ", P.style("banner"))
            text.append("\n")
        errors = sum(1 for d in model.diagnostics if d.severity == "error")
        if errors:
            text.append(f" {errors} ERROR DIAGNOSTIC{'S' if errors != 1 else ''}: this vCon does "
                        "not conform; press f to see them ", P.style("banner"))
            text.append("\n")
        text.append(safe(name), "bold")
        text.append(f" · {src.form}" + (" (gzip)" if src.gzip else ""))
        if src.signed_layers:  # verified or not, and by whom: the first thing an auditor asks
            from viewer.signatures import overall, short_status

            text.append(": ")
            text.append(short_status(src), P.signature_style(overall(src)))
        text.append(f" · uuid {safe(src.uuid) if src.uuid else '—'}")
        text.append(" · extensions: " + (", ".join(safe(x) for x in src.extensions) or "none"))
        text.append("\n")
        if model.derivation is not None:  # one line: the operations are not the file's events
            d = model.derivation
            text.append(safe(d.line()),
                        P.style("severity:warning" if d.unmapped else "context"))
            text.append("\n")
        n_ops = len(model.operations)
        n_att, counts = app.totals()
        if model.pending_operations:
            text.append(f"first {n_ops:,} of {n_ops + model.pending_operations:,} operations "
                        "shown, replaying the rest… ", P.style("dim"))
        elif app.filter.empty:
            text.append(f"{n_ops} operations")
        else:
            text.append(f"{len(app.shown)} of {n_ops} operations match ", P.style("match"))
            text.append(f"/{safe(app.filter.text)}", P.style("match"))
        # attempts and findings are the file's (the filter narrows the rows, not the counts)
        text.append(f" · {'in the file: ' if not app.filter.empty else ''}{n_att} attempts"
                    " · findings ")
        for sev in spec.SEVERITIES:
            text.append(f"{P.SEVERITY_GLYPH[sev]}{counts[sev]} {sev}  ",
                        P.style(f"severity:{sev}") if counts[sev] else P.style("dim"))
        if model.unchecked is None:
            text.append(f"· diagnostics {len(model.diagnostics)}")
        else:
            text.append("· diagnostics: checking…", P.style("dim"))
        text.append(f" · time {app.time_mode} · zoom ×{app.zoom:g}", P.style("dim"))
        if extra:
            text.append(" · " + extra)
        self.update(text)


class StatusLine(Static):
    """The selected operation and attempt in words, and what the person said just before."""

    def present(self, app: VconViewApp) -> None:
        model, op, attempt = app.model, app.operation, app.attempt
        text = Text()
        if model is None or op is None:
            text.append("no operation matches" if model and model.operations else
                        "no tool operations in this vCon", P.style("dim"))
            self.update(text)
            return
        text.append(safe(op.operation_id), "bold")
        text.append(" ")
        if attempt is not None:
            text.append(f"attempt {attempt.number} ({app.attempt_sel + 1}/{len(op.attempts)}): ")
            text.append(" → ".join(s or "start" for s in attempt.states) or "no events")
            dec = attempt.decision or "no decision observed"
            text.append(f" · {dec}", P.decision_style(attempt.decision))
            if attempt.decision_life:
                text.append(f" ({attempt.decision_life})")
        else:
            text.append(f"no attempt · {op.outcome}")
        said = _said_before(model, op.first_time)
        if said:
            text.append("\n")
            text.append("asked before: ", P.style("context"))
            text.append(said)
        self.update(text, layout=False)


_TURNS: dict[int, tuple[list[datetime], list[int]]] = {}


def _turns(model: Model) -> tuple[list[datetime], list[int]]:
    """Dialog turn times, sorted, computed once per model (keyed by identity)."""
    cached = _TURNS.get(id(model))
    if cached is None:
        turns = sorted((dt, i) for i, d in enumerate(model.dialog)
                       if (dt := dialog_time(d)) is not None)
        cached = ([dt for dt, _ in turns], [i for _, i in turns])
        _TURNS.clear()
        _TURNS[id(model)] = cached
    return cached


def _said_before(model: Model, t: datetime | None) -> str:
    """The last dialog turn at or before ``t`` (the request the agent was acting on): the last
    one from a party that is not an agent (role "agent", as imported sessions mark theirs: the
    agent's own narration is not what it was asked), else the last turn."""
    if t is None:
        return ""
    times, idx = _turns(model)
    k = bisect_right(times, t)
    if k == 0:
        return ""
    from viewer.tui.present import party_label

    def by_agent(d: object) -> bool:
        if not isinstance(d, dict):
            return False
        ps = d.get("parties")
        who = d.get("originator", ps[0] if isinstance(ps, list) and ps else None)
        parties = model.parties
        return (isinstance(who, int) and not isinstance(who, bool) and 0 <= who < len(parties)
                and isinstance(parties[who], dict) and parties[who].get("role") == "agent")

    d = model.dialog[idx[k - 1]]
    for j in range(k - 1, max(-1, k - 200), -1):  # bounded: a long narration falls back
        if not by_agent(model.dialog[idx[j]]):
            d = model.dialog[idx[j]]
            break
    who = ""
    if isinstance(d, dict) and isinstance(d.get("parties"), list) and d["parties"]:
        first = d.get("originator", d["parties"][0])
        who = party_label(model, first) + ": "
    return who + dialog_text(d, 160)


class FilterInput(Input):
    """The `/` filter line. Escape cancels; enter applies."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel filter", id="filter.cancel"),
    ]

    def action_cancel(self) -> None:
        self.screen.close_filter(apply=False)  # type: ignore[attr-defined]


class TimelineScreen(VappMixin, Screen[None]):
    """Operations on a time axis; the hub every other screen returns to."""

    BINDINGS: ClassVar[list[BindingType]] = [
        # Help first: on a narrow terminal the footer shows only what fits, from the left.
        Binding("question_mark", "app.help", "Help", id="timeline.help"),
        Binding("j,down", "move(1)", "Op ↓", id="timeline.down"),
        Binding("k,up", "move(-1)", "Op ↑", id="timeline.up", show=False),
        Binding("h,left", "attempt(-1)", "Attempt ←", id="timeline.attempt_prev", show=False),
        Binding("l,right", "attempt(1)", "Attempt →", id="timeline.attempt_next"),
        Binding("pagedown", "move(20)", "Page ↓", id="timeline.page_down", show=False),
        Binding("pageup", "move(-20)", "Page ↑", id="timeline.page_up", show=False),
        Binding("home,g", "goto(0)", "First", id="timeline.first", show=False),
        Binding("end,G", "goto(-1)", "Last", id="timeline.last", show=False),
        Binding("enter", "open_detail", "Detail", id="timeline.detail"),
        Binding("r", "open_raw", "Raw", id="timeline.raw", show=False),
        Binding("n", "finding(1)", "Next finding", id="timeline.next_finding"),
        Binding("N", "finding(-1)", "Prev finding", id="timeline.prev_finding", show=False),
        Binding("f", "findings", "Findings", id="timeline.findings"),
        Binding("c", "context", "Context", id="timeline.context", show=False),
        Binding("slash", "filter", "Filter", id="timeline.filter"),
        Binding("escape", "clear_filter", "Clear filter", id="timeline.clear_filter",
                show=False),
        Binding("t", "time_mode", "Time", id="timeline.time_mode"),
        Binding("plus,equals_sign", "zoom(2)", "Zoom +", id="timeline.zoom_in", show=False),
        Binding("minus", "zoom(0.5)", "Zoom -", id="timeline.zoom_out", show=False),
        Binding("0", "fit", "Fit", id="timeline.fit", show=False),
        Binding("d", "diff", "Diff", id="timeline.diff"),
        Binding("y", "copy", "Copy", id="timeline.copy"),
        Binding("e", "export", "Export", id="timeline.export"),
    ]

    def compose(self) -> ComposeResult:
        yield InfoHeader(id="info-header")
        with Vertical(id="timeline-body"):
            yield TimelineView(id="timeline")
            yield StatusLine(id="status")
        yield FilterInput(placeholder="filter: tool:NAME server:TEXT outcome:failed "
                          "decision:disallowed flag:late attempts:>1 free text", id="filter")
        yield Footer()

    def on_resize(self, event: events.Resize) -> None:
        # Narrow: the footer's keys get the room (the palette's ^p is garbled when squeezed,
        # and ? Help comes first); ctrl+p still works and the help lists it.
        self.query_one(Footer).show_command_palette = event.size.width >= NARROW_FOOTER

    def on_mount(self) -> None:
        self.query_one("#filter").display = False
        self.query_one(TimelineView).focus()
        self.refresh_all()

    def refresh_all(self) -> None:
        """Redraw after any change to the shared selection, filter, zoom or time mode."""
        try:
            view = self.query_one(TimelineView)
        except NoMatches:  # not composed yet
            return
        view.reset()
        self.query_one(InfoHeader).present(self.vapp)
        self.query_one(StatusLine).present(self.vapp)

    def present_header(self) -> None:
        """Redraw the header alone (the diagnostics arrived)."""
        try:
            self.query_one(InfoHeader).present(self.vapp)
        except NoMatches:  # not composed yet: on_mount presents it
            return

    def _moved(self) -> None:
        self.query_one(TimelineView).selection_moved()
        self.query_one(StatusLine).present(self.vapp)

    # --- actions -------------------------------------------------------------------------------
    def action_move(self, delta: int) -> None:
        n = len(self.vapp.shown)
        if not n:
            return
        new = max(0, min(n - 1, self.vapp.sel + delta))
        if new != self.vapp.sel:
            self.vapp.sel = new
            self.vapp.attempt_sel = 0
            self.vapp.event_sel = None
            self._moved()

    def action_goto(self, pos: int) -> None:
        n = len(self.vapp.shown)
        if n:
            self.action_move((n - 1 if pos < 0 else pos) - self.vapp.sel)

    def action_attempt(self, delta: int) -> None:
        if self.vapp.step_attempt(delta):
            self._moved()

    def action_open_detail(self, raw: bool = False) -> None:
        if self.vapp.operation is None:
            self.notify("No operation selected", markup=False)
            return
        from viewer.tui.detail import DetailScreen

        self.app.push_screen(DetailScreen(raw=raw))

    def action_open_raw(self) -> None:
        self.action_open_detail(raw=True)

    def action_finding(self, direction: int) -> None:
        self.vapp.notify_finding(self.vapp.step_finding(direction), direction)

    def action_findings(self) -> None:
        from viewer.tui.findings import FindingsScreen

        self.app.push_screen(FindingsScreen())

    def action_context(self) -> None:
        from viewer.tui.context import ContextScreen

        self.app.push_screen(ContextScreen())

    _filter_before = ""  # the filter in effect when `/` opened the line: escape returns to it

    def action_filter(self) -> None:
        box = self.query_one(FilterInput)
        self._filter_before = self.vapp.filter.text
        box.display = True
        box.value = self.vapp.filter.text
        box.focus()

    def close_filter(self, apply: bool) -> None:
        box = self.query_one(FilterInput)
        if apply:
            err = self.vapp.apply_filter(box.value, background=True)
            if err:
                self.notify(err, title="Filter", severity="error", markup=False)
                return
        elif self.vapp.filter.text != self._filter_before:  # undo what live filtering applied
            self.vapp.apply_filter(self._filter_before)
        box.border_subtitle = ""
        box.display = False
        self.query_one(TimelineView).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.close_filter(apply=True)

    def on_input_changed(self, event: Input.Changed) -> None:
        model = self.vapp.model
        if model is not None and len(model.operations) <= BIG_MODEL:
            err = self.vapp.apply_filter(event.value)  # live on small files; enter on big ones
        else:
            try:
                parse_filter(event.value)
                err = None
            except FilterError as exc:
                err = str(exc)
        # what is wrong so far, on the line's lower border (as Text: never read as markup)
        event.input.border_subtitle = Text(err, style="bold") if err else ""

    def action_clear_filter(self) -> None:
        if not self.vapp.filter.empty:
            self.vapp.apply_filter("")
            self.notify("Filter cleared", markup=False, timeout=2)

    def action_time_mode(self) -> None:
        mode = self.vapp.cycle_time_mode()
        self.notify(f"Time: {mode}", markup=False, timeout=2)

    def action_zoom(self, factor: float) -> None:
        self.vapp.zoom = min(4096.0, max(1.0, self.vapp.zoom * factor))

    def action_fit(self) -> None:
        self.vapp.zoom = 1.0

    def action_diff(self) -> None:
        from viewer.tui.diff import open_diff

        open_diff(self.vapp)

    def action_copy(self) -> None:
        from viewer.tui.present import copy_text, op_events

        op, model = self.vapp.operation, self.vapp.model
        if op is None or model is None:
            return
        raw = [model.events[i].raw for i in sorted(op_events(op),
                                                   key=lambda i: model.events[i].order)]
        self.vapp.copy_with_fallback(copy_text(raw), f"operation {safe(op.operation_id)} "
                                                     f"({len(raw)} events)")

    def action_export(self) -> None:
        from viewer.tui.export import ExportScreen

        model = self.vapp.model
        if model is not None and model.pending_operations:
            self.notify(f"Still replaying {model.pending_operations:,} operations: export when "
                        "loading is done.", title="Export", markup=False, timeout=4)
            return
        self.app.push_screen(ExportScreen())
