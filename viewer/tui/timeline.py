"""The main screen, a waterfall: one row per operation with its lane on a shared time axis,
and one sub-lane per attempt for the operations unfolded (``viewer.tui.rows``).

``TimelineView`` is a Line-API ``ScrollView`` (toolong's pattern): only visible rows are
rendered, each rendered row is cached by everything that changes its look, so 100k operations
scroll as fast as ten. Three fixed rows sit on top: the ruler, the context lane (what the person
said, join/keydown) and the standing-decision lane. Under the rows: the status line and the
detail pane (``viewer.tui.pane``).
"""

from __future__ import annotations

import contextlib
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

from viewer.content import dialog_time
from viewer.model import spec
from viewer.model.types import Attempt, Model, Operation, Source
from viewer.textsafe import safe
from viewer.tui import lanes
from viewer.tui import palette as P
from viewer.tui.base import VappMixin
from viewer.tui.filter import FilterError, in_progress, parse_filter
from viewer.tui.lanes import Axis, _secs, point_lane, ruler_cells, ruler_date
from viewer.tui.messages import ModelAdopted, NoteChanged, SelectionMoved, ViewChanged
from viewer.tui.pane import DetailPane
from viewer.tui.parties import delegated_party, is_delegated, lead_party
from viewer.tui.present import (
    ORDER,
    attempt_gap,
    fmt_secs,
    fmt_time,
    order_only,
    provenance_line,
    said_before,
)
from viewer.tui.rows import (
    COLUMN_KEYS,
    Columns,
    RowPlan,
    columns,
    default_expanded,
    fit,
    flag_glyph,
    server_label,
    target_label,
    toggled,
)

if TYPE_CHECKING:
    from viewer.tui.app import VconViewApp

BIG_MODEL = 20000  # as viewer.tui.app.BIG_MODEL: live filtering only below this

FIXED_ROWS = 3
_OUTCOME_STATE = {spec.outcome_name(s): s for s in spec.STATES}
NARROW_FOOTER = 140  # below this width the footer leaves out the command palette's ^p
#: Below this width the header says the same in fewer words (the uuid's start, the findings by
#: glyph), so that at 80 × 24 the list keeps its rows.
NARROW_HEADER = 100
#: Finding kinds of each severity: an operation with an error one is drawn loudest.
ERROR_KINDS = frozenset(k for k, sev in spec.FINDING_SEVERITY.items() if sev == "error")
WARNING_KINDS = frozenset(k for k, sev in spec.FINDING_SEVERITY.items() if sev == "warning")
__all__ = ["Columns", "TimelineScreen", "TimelineView", "columns", "fit", "short_target"]


def short_target(op: Operation) -> str:
    """'tool @ host/path': the tool first (it is what differs), the server without scheme."""
    return f"{op.tool or '*'} @ {server_label(op.server)}"


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
        self._points: LRUCache[tuple, tuple] = LRUCache(maxsize=4)  # the context lane's marks
        self.axis: Axis | None = None
        self._generation = 0
        self._base_style: Style | None = None
        self._pan: float | None = None  # the window's centre after H/L; None: the selection's
        self._zoom_seen = 1.0
        self.hidden: set[str] = set()  # columns hidden with keys 1–8 (rows.HIDEABLE)
        self._expanded: list[int] = []  # operations shown with their attempts' sub-lanes
        self._expanded_model: object = None
        self._lead: int | None = None
        self._id_len = 7
        self._delegated = False  # some operation was run by a sub-agent: the party column
        self.plan = RowPlan((), (), lambda _i: 0)

    def on_mount(self) -> None:
        model = self.vapp.model
        if model is not None:
            self.axis = Axis(model)
        self.reset()

    def reset(self) -> None:
        """The filter, zoom or palette changed: drop caches, resize, keep the selection seen."""
        self._generation += 1
        self._cache.clear()  # (the lanes stay: keyed by all they are drawn from, see _lane)
        self._base_style = None
        self._plan()
        self.virtual_size = Size(self.lane_width(), len(self.plan) + FIXED_ROWS)
        self._update_window()
        self.ensure_visible()
        self.refresh()

    def _plan(self) -> None:
        """Lay the rows out again: the shown operations and the expanded ones' sub-lanes."""
        model = self.vapp.model
        if model is None:
            self.plan = RowPlan((), (), lambda _i: 0)
            return
        if self._expanded_model is not model.operations:  # more replayed (not: checked)
            self._expanded_model = model.operations
            self._survey(model)
        ops = model.operations
        self.plan = RowPlan(self.vapp.shown, self._expanded, lambda i: len(ops[i].attempts))

    def _survey(self, model: Model) -> None:
        """What the layout needs from all operations: which start unfolded, the longest id,
        whether a sub-agent ran any. A pass over every operation touches each for the first
        time, which is slow on a big file (README, Performance), so above ``BIG_MODEL``
        operations start folded (``space`` unfolds one), the id width is read from the first
        ``BIG_MODEL`` and the party column is looked for only when the file names more than
        two parties."""
        ops = model.operations
        big = len(ops) > BIG_MODEL
        self._expanded = [] if big else default_expanded(ops)
        self._lead = lead = lead_party(model)
        sample = ops[:BIG_MODEL] if big else ops
        self._id_len = max((len(o.operation_id) for o in sample), default=7)
        self._delegated = (not big or len(model.parties) > 2) and any(
            is_delegated(model, o, lead) for o in ops)

    def toggle_expanded(self) -> bool:
        """Unfold or fold the selected operation's sub-lanes; False: one attempt or none."""
        model, op = self.vapp.model, self.vapp.operation
        if model is None or op is None or len(op.attempts) < 2:
            return False
        self._expanded = toggled(self._expanded, self.vapp.shown[self.vapp.sel])
        self._plan()  # rows are cached by operation and sub-lane, not position: they stay
        self.virtual_size = Size(self.lane_width(), len(self.plan) + FIXED_ROWS)
        self.ensure_visible()
        self.refresh()
        return True

    def columns(self, width: int) -> Columns:
        """The row layout at ``width``: wide or not by the view's own width (a scrollbar
        does not make a wide terminal narrow)."""
        return columns(width, self.hidden, self._id_len, self.size.width, self._delegated)

    def is_expanded(self) -> bool:
        return self.plan.is_expanded(self.vapp.sel)

    def toggle_column(self, name: str) -> bool:
        """Hide or show a column; True when it is now hidden."""
        if name in self.hidden:
            self.hidden.discard(name)
        else:
            self.hidden.add(name)
        self._generation += 1
        self._cache.clear()
        self.refresh()
        return name in self.hidden

    def _update_window(self) -> None:
        if self.axis is None:
            return
        if self.vapp.zoom != self._zoom_seen:  # a zoom centres on the selection again
            self._zoom_seen, self._pan = self.vapp.zoom, None
        centre = self._pan if self._pan is not None else self.focus_time()
        self.axis.set_window(self.vapp.zoom, centre)

    def focus_time(self) -> float | None:
        """Where a zoom centres (seconds from t0): the selected attempt, whole when it fits
        the window, else from its start; the operation's first time without an attempt."""
        axis, op, attempt = self.axis, self.vapp.operation, self.vapp.attempt
        if axis is None or op is None:
            return None
        if attempt is None or attempt.start is None:
            return _secs(op.first_time, axis.t0)
        start = _secs(attempt.start, axis.t0)
        times = [self.vapp.model.events[s.event].time for s in attempt.steps]  # type: ignore[union-attr]
        end = max((_secs(t, axis.t0) for t in times if t is not None), default=start)
        assert start is not None and end is not None
        width = axis.span / max(self.vapp.zoom, 1.0)
        if end - start <= width * 0.9:
            return (start + end) / 2
        return start + width * 0.4  # a long attempt: its start a tenth in from the left

    def pan(self, direction: int) -> bool:
        """Move the window a quarter of its width; False when it cannot move (whole span)."""
        axis = self.axis
        if axis is None:
            return False
        before = axis.ws
        self._pan = axis.centre + direction * (axis.we - axis.ws) / 4
        axis.set_window(self.vapp.zoom, self._pan)
        self._pan = axis.centre  # kept inside the span
        if axis.ws == before:
            return False
        self._generation += 1
        self.refresh()
        return True

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._base_style = None
        self._cache.clear()
        self._lanes.clear()

    def on_resize(self) -> None:
        self.virtual_size = Size(self.lane_width(), len(self.plan) + FIXED_ROWS)
        self.ensure_visible()

    def lane_width(self) -> int:
        """The width rows are drawn at: the view less a vertical scrollbar's, so no lane ever
        runs under the scrollbar (its last cells held the latest marks)."""
        return self.scrollable_content_region.width

    def ensure_visible(self) -> None:
        # the rows under the fixed ones, less any scrollbar's (scrollable_content_region)
        body = max(1, self.scrollable_content_region.height - FIXED_ROWS)
        first = self.plan.row_of(self.vapp.sel)  # the operation's row, and its attempt's
        last = self.plan.row_of(self.vapp.sel, self.vapp.attempt_sel)
        top = round(self.scroll_offset.y)
        if last - first >= body:  # more sub-lanes than fit: the selected attempt's shows
            first = last
        if first < top:
            self.scroll_to(y=first, animate=False, immediate=True)
        elif last >= top + body:
            self.scroll_to(y=last - body + 1, animate=False, immediate=True)

    def selection_moved(self) -> None:
        self._pan = None  # the window follows the selection again
        if self.vapp.zoom > 1.0:
            self._generation += 1
            self._update_window()
        self.ensure_visible()
        self.refresh()

    # --- rendering -----------------------------------------------------------------------------
    def render_line(self, y: int) -> Strip:
        width = self.lane_width()
        model = self.vapp.model
        base = self._base_style
        if base is None:
            base = self._base_style = self.rich_style
        if model is None or self.axis is None or width <= 0:
            return Strip.blank(width, base)
        cols = self.columns(width)
        if y < FIXED_ROWS:
            key = ("fixed", y, width, self.axis.ws, self.axis.we, self.vapp.time_mode,
                   self._generation, len(self.vapp.shown))
            strip = self._cache.get(key)
            if strip is None:
                text = (self._ruler, self._context_lane, self._standing_lane)[y](model, cols)
                strip = self._strip(text, width, base)
                self._cache[key] = strip
            return strip
        row = round(self.scroll_offset.y) + y - FIXED_ROWS
        if row >= len(self.plan):
            return Strip.blank(width, base)
        pos, sub = self.plan.at(row)
        if pos >= len(self.vapp.shown):
            return Strip.blank(width, base)
        selected = pos == self.vapp.sel
        op_index = self.vapp.shown[pos]
        prev_index = self.vapp.shown[pos - 1] if pos > 0 else None
        key = (op_index, prev_index, sub, width, self.axis.ws, self.axis.we,
               self.vapp.time_mode, selected, self.vapp.attempt_sel if selected else -1,
               self._generation)
        strip = self._cache.get(key)
        if strip is None:
            if sub < 0:
                text = self._op_row(model, op_index, prev_index, cols, selected)
                band = selected
            else:
                band = selected and sub == self.vapp.attempt_sel
                text = self._sub_row(model, op_index, sub, cols, band)
            strip = self._strip(text, width, base, band)
            self._cache[key] = strip
        return strip

    def _strip(self, text: Text, width: int, base: Style, band: bool = False) -> Strip:
        """A row cut to the width; the selected row on the ``selected-row`` band, full width
        (under the row's own styles)."""
        segments = list(text.render(self.app.console))
        if band:
            base = base + P.style("selected-row")
        return Strip(segments).crop_extend(0, width, base).apply_style(base).simplify()

    def _left_header(self, cols: Columns, label: str) -> Text:
        text = Text(" " + fit(label, cols.lane_x - 2) + " ", style=P.style("dim"))
        return text

    def _ruler(self, model: Model, cols: Columns) -> Text:  # cached per window (render_line)
        axis = self.axis
        assert axis is not None
        head = " " + fit("operation" if cols.id_w >= 9 else "op", cols.id_w) + " "
        for w, label in ((cols.party_w, "p"), (cols.target_w, "tool @ server"),
                         (cols.time_w, "start"), (cols.decision_w, "d"),
                         (cols.attempts_w, "  n"), (cols.outcome_w, "outcome"),
                         (cols.flags_w, "flags")):
            if w:
                head += fit(label, w) + " "
        text = Text(fit(head, cols.lane_x), style=P.style("dim"))
        if self.vapp.time_mode == "absolute" and axis.t0 is not None:
            date = ruler_date(axis)  # the date once; the ticks say the time of day
            keep = max(0, cols.lane_x - len(date) - 2)  # the headings it covers matter less
            text = Text(fit(text.plain[:keep].rstrip(), keep + 1) + fit(date, cols.lane_x - keep
                                                                        - 1), style=P.style("dim"))
        text.append(ruler_cells(axis, cols.lane_w, self.vapp.time_mode == "absolute",
                                order=self.vapp.time_mode == ORDER), style=P.style("ruler"))
        return text

    def _context_lane(self, model: Model, cols: Columns) -> Text:
        text = self._left_header(cols, f"context: {len(model.dialog)} dialog, "
                                       f"{len(model.context)} events")
        assert self.axis is not None
        key = ("context", id(model), P.epoch())
        points = self._points.get(key)
        if points is None or points[0] is not model:  # once per model, not per zoom step
            st = P.style("context")
            pts = [(dialog_time(d), 1, P.CONTEXT_GLYPH["dialog"], st) for d in model.dialog]
            pts += [(model.events[i].time, 0,
                     P.CONTEXT_GLYPH.get(model.events[i].type, P.UNKNOWN_GLYPH), st)
                    for i in model.context]
            points = self._points[key] = (model, pts)
        for ch, style in point_lane(points[1], self.axis, cols.lane_w):
            text.append(ch, style)
        return text

    def _standing_lane(self, model: Model, cols: Columns) -> Text:
        text = self._left_header(cols, f"standing decisions: {len(model.standing)}")
        assert self.axis is not None
        points = [(sd.time, 4, P.DECISION_GLYPH.get(sd.decision, "?"),
                   P.decision_style(sd.decision)) for sd in model.standing]
        for ch, style in point_lane(points, self.axis, cols.lane_w):
            text.append(ch, style)
        return text

    def _op_row(self, model: Model, op_index: int, prev_index: int | None, cols: Columns,
                selected: bool) -> Text:
        op = model.operations[op_index]
        prev = model.operations[prev_index] if prev_index is not None else None
        text = Text()
        loud = ("severity:error" if op.flags & ERROR_KINDS else
                "severity:warning" if op.flags & WARNING_KINDS else None)
        id_style = P.style(loud) if loud else Style.null()  # errors loudest, warnings next
        if selected:
            id_style += P.style("selected")
        text.append("›" if selected else " ", P.style("selected") if selected else Style.null())
        text.append(fit(safe(op.operation_id), cols.id_w), id_style)
        text.append(" ")
        if cols.party_w:
            delegated = is_delegated(model, op, self._lead)
            text.append(P.PARTY_GLYPH if delegated else " ", P.style("party"))
            text.append(" ")
        if cols.target_w:
            label = target_label(op, prev)
            if label.startswith("│"):
                text.append(fit(safe(label), cols.target_w), P.style("dim"))
            else:
                tool = safe(op.tool or "*")
                full = fit(safe(label), cols.target_w)
                text.append(full[: len(tool)])
                text.append(full[len(tool):], P.style("server"))
            text.append(" ")
        if cols.time_w:
            pt = prev.first_time if prev is not None else None
            label = fmt_time(op.first_time, self.vapp.time_mode, self.axis.t0 if self.axis
                             else None, pt)
            text.append(fit(label, cols.time_w), P.style("dim"))
            text.append(" ")
        if cols.decision_w:
            text.append(P.DECISION_GLYPH.get(op.decision, "?"), P.decision_style(op.decision))
            text.append(" ")
        if cols.attempts_w:
            text.append(f"{len(op.attempts):>3} ")
        if cols.outcome_w:
            state = _OUTCOME_STATE.get(op.outcome)
            glyph = P.STATE_GLYPH.get(state, "-") if state else (
                "◆" if op.outcome == "disallowed" else "-")
            ostyle = P.state_style(state) if state else P.decision_style(
                "disallowed" if op.outcome == "disallowed" else None)
            label = f"{glyph} {op.outcome}" if cols.outcome_word else glyph
            text.append(fit(label, cols.outcome_w), ostyle)
            text.append(" ")
        if cols.flags_w:
            text.append_text(self._flags(op, cols))
            text.append(" ")
        text.append_text(self.lane(model, op, cols, selected))
        return text

    def _sub_row(self, model: Model, op_index: int, sub: int, cols: Columns,
                 selected: bool) -> Text:
        """One attempt's sub-lane: ``└ #2 0.5s after #1`` (the gap), then its bar alone."""
        op = model.operations[op_index]
        attempt = op.attempts[sub]
        label = f"└ #{attempt.number}"
        if sub > 0 and cols.gap:
            gap = _gap(model, op.attempts[sub - 1], attempt)
            if gap:
                label += f" {gap} after #{op.attempts[sub - 1].number}"
        text = Text(" " + fit(" " * min(cols.id_w, 3) + label, cols.lane_x - 2) + " ",
                    style="bold" if selected else P.style("dim"))
        text.append_text(self.lane(model, op, cols, selected, only=sub))
        return text

    def _flags(self, op: Operation, cols: Columns) -> Text:
        """The flag glyph column (``viol+``); the status line names them all."""
        first = next((k for k in P.FLAG_ORDER if k in op.flags), None)
        label = flag_glyph(op.flags, P.FLAG_ORDER, P.FLAG_SHORT, cols.flags_w)
        return Text(label, P.style(f"flag:{first}") or P.style("flag") if first else "")

    def lane(self, model: Model, op: Operation, cols: Columns, selected: bool,
             only: int | None = None) -> Text:
        """The operation's lane (``only``: one attempt's sub-lane): the cached picture, with
        the selected attempt's cells emphasised on top (O(width) per key, whatever the
        attempt count)."""
        axis = self.axis
        assert axis is not None
        w = cols.lane_w
        # Everything the picture is drawn from: the operation (immutable; its flags give the
        # error colour), the sub-lane, the width, the window and its origin, the palette. Not
        # the view's generation: a time-mode change or a filter redraws rows, not lanes.
        key = (id(op), only, w, axis.t0, axis.ws, axis.we, P.epoch())
        cached = self._lanes.get(key)
        if cached is None or cached[0] is not op:  # (an id may be reused by a later object)
            lane = lanes.lane_layers(model, op, axis, w, only, bool(op.flags & ERROR_KINDS))
            cached = self._lanes[key] = (op, lane, _runs(lane.chars, lane.styles))
        _op, lane, text = cached
        if selected:
            return _runs(lane.chars,
                         lane.with_selection(self.vapp.attempt_sel, P.style("selected-attempt")))
        return text.copy()

    # --- mouse ---------------------------------------------------------------------------------
    def on_click(self, event: events.Click) -> None:
        if event.y < FIXED_ROWS:
            return
        row = round(self.scroll_offset.y) + event.y - FIXED_ROWS
        if not 0 <= row < len(self.plan):
            return
        pos, sub = self.plan.at(row)
        same = pos == self.vapp.sel
        self.vapp.sel = pos
        cols = self.columns(self.lane_width())
        op = self.vapp.operation
        if op is not None and sub >= 0:  # a sub-lane: its attempt
            self.vapp.attempt_sel = min(sub, len(op.attempts) - 1)
        elif op is not None and event.x >= cols.lane_x and self.axis is not None:
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



def signature_text(src: Source) -> Text:
    """What the header says of the file's form and signature, in one place: the form, and for
    a signed vCon how its signatures verified (viewer/signatures.py: ``verified``,
    ``valid-signature-untrusted``, ``unverifiable``, ``invalid``), never a bare "signed" that
    reads as if it were checked."""
    text = Text(src.form)
    if src.signed_layers:  # verified or not, and by whom: the first thing an auditor asks
        from viewer.signatures import overall, short_status

        text.append(": ")
        text.append(short_status(src), P.signature_style(overall(src)))
    return text


def _runs(chars: list[str], styles: list[Style]) -> Text:
    """A lane's cells as Text, one span per run of cells in the same style (a lane is mostly
    a few runs: appending cell by cell was most of a zoom's redraw)."""
    text = Text()
    start, style = 0, styles[0] if styles else None
    for x, st in enumerate(styles):
        if st is not style:
            text.append("".join(chars[start:x]), style)
            start, style = x, st
    if chars:
        text.append("".join(chars[start:]), style)
    return text


class InfoHeader(Static):
    """File, form, uuid, counts, extensions; a banner for overrides and error diagnostics."""

    def present(self, app: VconViewApp, extra: str = "") -> None:
        model = app.model
        if model is None:
            return
        src = model.source
        name = src.file.rsplit("/", 1)[-1] if src.file != "-" else "stdin"
        narrow = self.app.size.width < NARROW_HEADER
        text = Text()
        if src.critical_override:
            text.append(
                f" CRITICAL OVERRIDE: unsupported critical extension(s) "
                f"{', '.join(safe(c) for c in src.unsupported_critical) or '?'} ignored "
                "(--ignore-critical) ", P.style("banner"))
            text.append("\n")
        errors = model.counts(())["error"]  # error diagnostics
        if errors:
            text.append(f" {errors} ERROR DIAGNOSTIC{'S' if errors != 1 else ''}: this vCon does "
                        "not conform; press f to see them ", P.style("banner"))
            text.append("\n")
        text.append(safe(name), "bold")
        text.append(" · ")
        text.append_text(signature_text(src))
        if src.gzip:
            text.append(" (gzip)")
        uuid = safe(src.uuid) if src.uuid else "—"
        text.append(f" · uuid {uuid[:8] + '…' if narrow and len(uuid) > 9 else uuid}")
        exts = ", ".join(safe(x) for x in src.extensions)
        text.append(f" · {exts or 'no extensions'}" if narrow else
                    f" · extensions: {exts or 'none'}")
        text.append("\n")
        if model.derivation is not None:  # one line: the operations are not the file's events
            d = model.derivation
            text.append(safe(d.line()),
                        P.style("severity:warning" if d.unmapped else "context"))
            text.append("\n")
        prov = provenance_line(model, narrow)
        if prov:  # a vCon `vcon-view import` wrote: what from, and whether times were recorded
            text.append(prov, P.style("context"))
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
            text.append(f"{P.SEVERITY_GLYPH[sev]}{counts[sev]}{' ' if narrow else f' {sev}  '}",
                        P.style(f"severity:{sev}") if counts[sev] else P.style("dim"))
        if model.unchecked is None:
            text.append(f"· diagnostics {len(model.diagnostics)}")
        else:
            text.append("· diagnostics: checking…", P.style("dim"))
        text.append(f" · {app.time_mode} ×{app.zoom:g}" if narrow else
                    f" · time {app.time_mode} · zoom ×{app.zoom:g}", P.style("dim"))
        if extra:
            text.append(" · " + extra)
        self.update(text)


class StatusLine(Static):
    """The selected operation and attempt in words, and what the person said just before."""

    DEFAULT_CSS = """
    StatusLine { text-wrap: nowrap; text-overflow: ellipsis; }
    """

    def present(self, app: VconViewApp) -> None:
        model, op, attempt = app.model, app.operation, app.attempt
        # one row per line, cut with an ellipsis: a long first line (the flags) must not
        # wrap over the second (the gap, the note), which says what the last key did
        text = Text(no_wrap=True, overflow="ellipsis")
        if model is None or op is None:
            text.append("no operation matches" if model and model.operations else
                        "no tool operations in this vCon", P.style("dim"))
            if app.note:
                text.append("\n")
                text.append_text(app.note if isinstance(app.note, Text) else Text(app.note))
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
        if op.flags:  # the row shows the most serious one: here, all of them
            text.append(" · ")
            for i, kind in enumerate(k for k in P.FLAG_ORDER if k in op.flags):
                text.append(", " if i else "")
                text.append(P.FLAG_LABEL[kind], P.style(f"flag:{kind}") or P.style("flag"))
        said = said_before(model, op.first_time,
                           delegated_party(model, op, lead_party(model)))
        if app.note:  # what the last key did (n/N, pan, --goto): in place of the toast
            text.append("\n")
            text.append_text(app.note if isinstance(app.note, Text) else Text(app.note))
        elif attempt is not None and app.attempt_sel > 0:  # a retry: how long after, in words
            text.append("\n")
            text.append(attempt_gap(model, op.attempts[app.attempt_sel - 1], attempt),
                        P.style("context"))
        elif said:
            text.append("\n")
            text.append("asked before: ", P.style("context"))
            text.append(said)
        self.update(text, layout=False)


def _gap(model: Model, prev: Attempt, cur: Attempt) -> str:
    """How long after the earlier attempt gave up (timed out, was cancelled) or ended the
    later one was invoked (``0.5s``); "" without times."""
    if cur.start is None or order_only(model):
        return ""
    events = model.events
    ended = [events[s.event].time for s in prev.steps
             if events[s.event].time is not None and not s.late]
    ended = [t for t in ended if t is not None and t <= cur.start]
    if not ended:
        return ""
    return fmt_secs((cur.start - max(ended)).total_seconds()).replace(" ", "")


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
        Binding("H,shift+left", "pan(-1)", "Pan ←", id="timeline.pan_left", show=False),
        Binding("L,shift+right", "pan(1)", "Pan →", id="timeline.pan_right", show=False),
        Binding("d", "diff", "Diff", id="timeline.diff"),
        Binding("y", "copy", "Copy", id="timeline.copy"),
        Binding("e", "export", "Export", id="timeline.export"),
        Binding("space", "toggle_attempts", "Sub-lanes", id="timeline.toggle_attempts"),
        *[Binding(k, f"toggle_column('{name}')", f"Hide {name}", id=f"timeline.hide_{name}",
                  show=False) for k, name in COLUMN_KEYS.items()],
    ]

    def compose(self) -> ComposeResult:
        yield InfoHeader(id="info-header")
        with Vertical(id="timeline-body"):
            yield TimelineView(id="timeline")
            yield StatusLine(id="status")
            yield DetailPane(id="pane")
        yield FilterInput(placeholder="filter: tool:NAME server:TEXT outcome:failed "
                          "decision:disallowed flag:late attempts:>1 party:NAME free text",
                          id="filter")
        yield Footer()

    def on_resize(self, event: events.Resize) -> None:
        # Narrow: the footer's keys get the room (the palette's ^p is garbled when squeezed,
        # and ? Help comes first); ctrl+p still works and the help lists it.
        self.query_one(Footer).show_command_palette = event.size.width >= NARROW_FOOTER
        self.query_one(InfoHeader).present(self.vapp)  # its words follow the width
        pane = self.query_one(DetailPane)
        pane.fit_screen(event.size.height)  # short: the rows get it all
        pane.present(self.vapp)

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
        self.query_one(DetailPane).present(self.vapp)

    def present_header(self) -> None:
        """Redraw the header alone (the diagnostics arrived)."""
        try:
            self.query_one(InfoHeader).present(self.vapp)
        except NoMatches:  # not composed yet: on_mount presents it
            return

    def _moved(self) -> None:
        self.vapp.set_note("")  # a note says what the last key did: this one moved on
        self.query_one(TimelineView).selection_moved()
        self.query_one(StatusLine).present(self.vapp)
        self.query_one(DetailPane).present(self.vapp)

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

    def action_toggle_attempts(self) -> None:
        """space: the selected operation's attempts on sub-lanes of their own, or folded."""
        view = self.query_one(TimelineView)
        if view.toggle_expanded():
            self.vapp.set_note("attempts on sub-lanes (space folds them)" if view.is_expanded()
                               else "attempts folded into one lane (space unfolds them)")
        else:
            self.vapp.set_note("one attempt: no sub-lanes to show")
        self.query_one(StatusLine).present(self.vapp)

    def action_toggle_column(self, name: str) -> None:
        """1–8: hide a column (every one but the id), to give the time axis its room."""
        hidden = self.query_one(TimelineView).toggle_column(name)
        key = next(k for k, n in COLUMN_KEYS.items() if n == name)
        self.vapp.set_note(f"column {name} hidden ({key} shows it)" if hidden
                           else f"column {name} shown")
        self.query_one(StatusLine).present(self.vapp)

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
        try:
            parse_filter(event.value)
            err = None
        except FilterError as exc:
            err = str(exc)
        # live on small files (enter on big ones); a token still being typed, or one the filter
        # cannot read, leaves the last good result on screen
        if (err is None and model is not None and len(model.operations) <= BIG_MODEL
                and not in_progress(event.value)):
            self.vapp.apply_filter(event.value)
        # what is wrong so far, on the line's lower border (as Text: never read as markup)
        event.input.border_subtitle = Text(err, style="bold") if err else ""

    def action_clear_filter(self) -> None:
        if not self.vapp.filter.empty:
            self.vapp.apply_filter("")
            self.notify("Filter cleared", markup=False, timeout=2)

    def action_time_mode(self) -> None:
        mode = self.vapp.cycle_time_mode()
        if mode == ORDER:
            self.notify("Time: order only (the recording has no times; events are counted in "
                        "steps)", markup=False, timeout=4)
            return
        self.notify(f"Time: {mode}", markup=False, timeout=2)

    def action_zoom(self, factor: float) -> None:
        self.vapp.zoom = min(4096.0, max(1.0, self.vapp.zoom * factor))

    def action_fit(self) -> None:
        self.vapp.zoom = 1.0

    def action_pan(self, direction: int) -> None:
        view = self.query_one(TimelineView)
        if not view.pan(direction):
            self.vapp.set_note("the whole record is in view: zoom in (+) to pan"
                               if self.vapp.zoom <= 1 else
                               "at the " + ("start" if direction < 0 else "end") + " of the record")
        else:
            self.vapp.set_note("")
        self.query_one(StatusLine).present(self.vapp)

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

    # --- messages from the App (viewer.tui.messages) ---------------------------------------
    def on_model_adopted(self, message: ModelAdopted) -> None:
        self.present_header()

    def on_view_changed(self, message: ViewChanged) -> None:
        self.refresh_all()

    def on_note_changed(self, message: NoteChanged) -> None:
        with contextlib.suppress(NoMatches):  # not composed yet: on_mount presents it
            self.query_one(StatusLine).present(self.vapp)

    def on_selection_moved(self, message: SelectionMoved) -> None:
        with contextlib.suppress(NoMatches):  # not composed yet: on_mount draws it
            self.query_one(TimelineView).selection_moved()
            self.query_one(StatusLine).present(self.vapp)
            self.query_one(DetailPane).present(self.vapp)
