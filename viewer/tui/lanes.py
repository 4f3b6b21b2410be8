"""The lane layout of the timeline, as pure functions (no App, no widget): testable alone.

An operation's lane is a row of cells on the shared time axis. ``lane_layers`` draws it once
per operation, width and window (O(steps + width)), with what the selection needs to be laid
on top in O(width). ``place_marks`` is the one rule for marks that fall on the same cell, used
by every lane: marks keep their order, a mark may be pushed right a little to stay visible,
and when several must share a cell the one of highest precedence shows, followed by how many
share it (``◆2``, ``·5``): nothing is dropped in silence. ``ticks`` puts the ruler's ticks on
round steps (1, 2, 5 × 10ⁿ of a unit).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from math import ceil, log10
from operator import itemgetter
from typing import Final, Generic, TypeVar

from rich.style import Style

from viewer.model import spec
from viewer.model.types import Model, Operation
from viewer.tui import palette as P
from viewer.tui.present import view_span

T = TypeVar("T")

#: Precedence of a mark when several share a cell: decisions, then cancels and final states,
#: then invocations and timeouts, then the rest of the progress.
PRECEDENCE: Final[dict[str, int]] = {
    "tool-progress": 0, "tool-pending": 1, "tool-input": 1, "tool-input-response": 1,
    "tool-invocation": 2, "tool-timeout": 2,
    "tool-cancel": 3, "tool-result": 3, "tool-failure": 3, "tool-error": 3, "tool-denied": 3,
    spec.POLICY_DECISION: 4,
}
DECISION_PRECEDENCE: Final = PRECEDENCE[spec.POLICY_DECISION]
#: Cells a mark may be pushed right of its time to stay visible.
NUDGE: Final = 2

Parts = tuple[str | None, bool, bool]  # (state in effect, late, out of model) of one cell


def _secs(t: datetime | None, t0: datetime | None) -> float | None:
    if t is None or t0 is None:
        return None
    return (t - t0).total_seconds()


class Axis:
    """The shared time axis: the model's time span, and the visible window (zoom, centre)."""

    def __init__(self, model: Model) -> None:
        self.t0, self.t1 = view_span(model)  # the one origin of relative times
        self.span = max(_secs(self.t1, self.t0) or 0.0, 1e-3)
        self.ws = 0.0
        self.we = self.span

    def set_window(self, zoom: float, centre: float | None) -> None:
        """Show 1/zoom of the span around ``centre`` (seconds from t0), kept inside the span."""
        width = self.span / max(zoom, 1.0)
        c = self.span / 2 if centre is None else centre
        ws = min(max(0.0, c - width / 2), self.span - width)
        self.ws, self.we = ws, ws + width

    @property
    def centre(self) -> float:
        return (self.ws + self.we) / 2

    def secs(self, t: datetime | None) -> float | None:
        return _secs(t, self.t0)

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


@dataclass(slots=True)
class Placed(Generic[T]):
    """A cell holding one or more marks: the one of highest precedence shows, with a count."""

    x: int
    prec: int
    mark: T
    count: int = 1

    @property
    def count_label(self) -> str:
        return str(self.count) if self.count > 1 else ""


def place_marks(marks: Sequence[tuple[object, int, int, T]], w: int, nudge: int = NUDGE
                ) -> list[Placed[T]]:
    """Place ``(key, x, precedence, mark)`` on ``w`` cells (each 0 <= x < w) in the order
    given (``key`` is the caller's sort key, not read here).

    A mark never lands left of one before it. It takes its own cell when free, else the next
    free one at most ``nudge`` cells to the right; otherwise it shares the last placed cell,
    where the mark of highest precedence shows (the later on a tie) and the count grows. A
    shared cell keeps the cells after it free for its count's digits; at the end of the lane
    the last cell moves left to make room when it can. O(marks), for 100k-attempt lanes.
    """
    out: list[Placed[T]] = []
    last: Placed[T] | None = None
    need = 0  # the first cell free after the last placed one and its count's digits
    grow = 2  # the count at which the digits take one more cell
    for _, x, prec, mark in marks:
        if last is not None and x < need:
            if need - x <= nudge and need < w:
                x = need
            else:
                count = last.count = last.count + 1
                if count == grow:
                    need += 1
                    grow = 10 if grow == 2 else grow * 10
                if prec >= last.prec:
                    last.prec, last.mark = prec, mark
                continue
        last = Placed(x, prec, mark)
        out.append(last)
        need, grow = x + 1, 2
    while out and out[-1].count > 1:  # the count must fit before the lane's end
        last = out[-1]
        digits = len(last.count_label)
        if last.x + digits < w:
            break
        floor_x = out[-2].x + 1 + len(out[-2].count_label) if len(out) > 1 else 0
        if w - 1 - digits >= floor_x or len(out) == 1:
            last.x = max(floor_x, w - 1 - digits)
            break
        prev = out.pop(-2)  # no room: the cell before takes these marks too
        last.x, last.count = prev.x, prev.count + last.count
        if prev.prec > last.prec:
            last.prec, last.mark = prev.prec, prev.mark
    return out


def compose(parts: Parts, emph: Style) -> Style:
    """A cell's style: its state's colour, the selection's emphasis, then late, out-of-model."""
    state, late, oom = parts
    st = P.state_style(state) + emph
    if late:
        st += P.style("late")
    if oom:
        st += P.style("out-of-model")
    return st


@dataclass(frozen=True, slots=True)
class Lane:
    """One lane without the selection: each cell's glyph and style, the attempt that drew it
    (-1: none, a decision) and its style's parts, so the selection is laid on in O(width)."""

    chars: list[str]
    styles: list[Style]
    owners: list[int]
    parts: list[Parts]

    @property
    def plain(self) -> str:
        return "".join(self.chars)

    def with_selection(self, attempt: int, emph: Style) -> list[Style]:
        """The styles with the cells of ``attempt`` emphasised: O(width)."""
        return [compose(self.parts[x], emph) if owner == attempt else st
                for x, (owner, st) in enumerate(zip(self.owners, self.styles, strict=True))]


def lane_layers(model: Model, op: Operation, axis: Axis, w: int, only: int | None = None,
                error: bool = False) -> Lane:
    """Draw an operation's lane on ``w`` cells of the axis' window (``only``: one attempt's,
    a sub-lane; ``error``: its bars in the ``lane:error`` colour, errors are loudest).

    Each attempt is a bar from its invocation to its end, drawn by the state in effect
    (``STATE_BAR``: Running ━, Pending ┈, ...; with no final state it runs to the end of the
    record); a response after the agent gave up is joined by ``⋯``. The policy decision sits
    as its glyph before the first bar (a once decision at its own time). Marks (the events'
    glyphs, the decisions) go in replay order through ``place_marks``. Painting is
    O(steps + width): a later segment paints over an earlier one, so they are laid from the
    last, each cell once.
    """
    events = model.events
    chars = [" "] * w
    parts: list[Parts] = [(None, False, False)] * w
    owners = [-1] * w
    plain = [True] * w  # an untouched cell keeps the null style
    # (order, x, precedence, (attempt or -1, step or event index))
    marks: list[tuple[float, int, int, tuple[int, object]]] = []
    segments: list[tuple[int, int, str, Parts, int]] = []
    finals = spec.FINAL_STATES
    t0 = axis.t0
    scale = (w - 1) / (axis.we - axis.ws)
    ws = axis.ws

    def x_of(t: datetime | None) -> int | None:  # Axis.x_clamped, inlined for 100k attempts
        if t is None or t0 is None:
            return None
        pos = ((t - t0).total_seconds() - ws) * scale
        return round(min(max(pos, -1), w))

    bars, connector = P.STATE_BAR, P.LATE_CONNECTOR
    for ai, attempt in enumerate(op.attempts):
        if only is not None and ai != only:
            continue
        steps = attempt.steps
        xs = [x_of(events[s.event].time) for s in steps]
        last_k = len(steps) - 1
        for k, step in enumerate(steps):
            x0 = xs[k]
            if x0 is None:
                continue
            if 0 <= x0 < w:
                ev = events[step.event]
                marks.append((ev.order, x0, PRECEDENCE.get(ev.type, 0), (ai, step)))
            if k < last_k:
                x1 = xs[k + 1]
                fill = connector if steps[k + 1].late else bars.get(step.after, "─")
            elif step.after not in finals:
                x1, fill = w, bars.get(step.after, "┄")
            else:
                continue
            if x1 is None:
                continue
            a, b = max(0, x0 + 1), min(w, x1)
            if a < b:
                segments.append((a, b, fill, (step.after, False, False), ai))
    decisions = op.once_decisions
    if only is not None:  # a sub-lane: the once decision that governs its attempt
        governing = op.attempts[only].decision_event
        decisions = tuple(i for i in decisions if i == governing)
    for idx in decisions:
        ev = events[idx]
        x = x_of(ev.time)
        if x is not None and 0 <= x < w:
            marks.append((ev.order, x, DECISION_PRECEDENCE, (-1, idx)))
    # a decision with no event of its own on this lane (standing): its glyph before the bar
    first = op.attempts[only if only is not None else 0] if op.attempts else None
    if (first is not None and first.decision is not None and first.steps
            and first.decision_event not in decisions):
        x = x_of(events[first.steps[0].event].time)
        if x is not None and 0 <= x < w:
            marks.append((events[first.steps[0].event].order - 0.5, max(0, x - 1),
                          DECISION_PRECEDENCE, (-2, first.decision)))
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
    marks.sort(key=itemgetter(0))
    placed = place_marks(marks, w)
    null = Style.null()
    styles = [null] * w
    decided: list[tuple[int, Style]] = []
    for cell in placed:
        ai, what = cell.mark
        x = cell.x
        if ai < 0:  # a decision: not part of any attempt's selection
            if ai == -2:
                d = what if isinstance(what, str) else None
            else:
                # from its Struct: the event's dict is not decoded to draw a lane
                value = events[what].get("decision")  # type: ignore[index]
                d = value if isinstance(value, str) else None
            glyph, st = P.DECISION_GLYPH.get(d, "?"), P.decision_style(d)
            decided.append((x, st))
            chars[x], owners[x], plain[x] = glyph, -1, False
        else:
            step = what
            chars[x], owners[x], plain[x] = P.event_glyph(events[step.event].type), ai, False  # type: ignore[attr-defined]
            parts[x] = (step.after, step.late, step.out_of_model)  # type: ignore[attr-defined]
        for i, digit in enumerate(cell.count_label, 1):
            if x + i < w:
                chars[x + i], owners[x + i], plain[x + i] = digit, owners[x], False
                parts[x + i] = parts[x]
                if ai < 0:
                    decided.append((x + i, decided[-1][1]))
    marked = {c.x for c in placed}
    loud = P.style("lane:error")
    for x in range(w):
        if not plain[x]:
            styles[x] = compose(parts[x], null)
            if error and x not in marked:  # the bars, not the glyphs: those keep their state
                styles[x] = styles[x] + loud
    for x, st in decided:
        styles[x] = st
    return Lane(chars, styles, owners, parts)


def point_lane(points: Sequence[tuple[datetime | None, int, str, Style]], axis: Axis, w: int
               ) -> list[tuple[str, Style]]:
    """A lane of single marks (the context and standing-decision lanes): ``(time, precedence,
    glyph, style)`` in time order, placed by the same rule as the operations' lanes."""
    located = []
    for t, prec, glyph, st in points:
        x = axis.x(t, w)
        if x is not None:
            located.append((x, x, prec, (glyph, st)))
    located.sort(key=itemgetter(0))  # stable: equal cells keep the caller's order
    cells: list[tuple[str, Style]] = [(" ", Style.null())] * w
    for cell in place_marks(located, w):
        glyph, st = cell.mark
        cells[cell.x] = (glyph, st)
        for i, digit in enumerate(cell.count_label, 1):
            if cell.x + i < w:
                cells[cell.x + i] = (digit, st)
    return cells


# --- the ruler -----------------------------------------------------------------------------
#: (name, seconds) of the units a ruler counts in, smallest first.
UNITS: Final = (("ms", 0.001), ("s", 1.0), ("m", 60.0), ("h", 3600.0), ("d", 86400.0))


def round_steps() -> list[tuple[float, str, float]]:
    """Every tick step as (seconds, unit, unit seconds): 1, 2, 5 × 10ⁿ of each unit, each unit
    used below the next one (50 s, then 1 m)."""
    out = []
    for i, (name, size) in enumerate(UNITS):
        nxt = UNITS[i + 1][1] if i + 1 < len(UNITS) else float("inf")
        for n in range(0, 6):
            for k in (1, 2, 5):
                step = k * 10**n * size
                if step < nxt:
                    out.append((step, name, size))
    return sorted(out)


_STEPS: Final = round_steps()


def tick_step(span: float, lane_w: int, label_w: int) -> float:
    """The smallest round step whose ticks are at least ``label_w + 2`` cells apart."""
    per_cell = span / max(1, lane_w - 1)
    need = per_cell * (label_w + 2)
    for step, _unit, _size in _STEPS:
        if step >= need:
            return step
    return _STEPS[-1][0]


def _decimals(step: float) -> int:
    """Decimals a label needs to tell ticks ``step`` seconds apart."""
    return 0 if step >= 1 else max(1, ceil(-log10(step) - 1e-9))


def relative_label(s: float, step: float) -> str:
    """``+20s``, ``+1m30s``, ``+2h05m``, ``+0.25s``: as precise as the step, no more."""
    dec = _decimals(step)
    s = round(s, dec)
    sign = "-" if s < 0 else "+"
    s = abs(s)
    if s < 60:
        return f"{sign}{s:.{dec}f}s"
    m, sec = divmod(s, 60)
    secs = f"{sec:0{3 + dec if dec else 2}.{dec}f}s"
    if s < 3600:
        return f"{sign}{int(m)}m" + ("" if step >= 60 else secs)
    h, m = divmod(int(m), 60)
    if s < 86400 or step < 3600:
        return f"{sign}{h}h{m:02d}m" + ("" if step >= 60 else secs)
    d, h = divmod(h, 24)
    return f"{sign}{d}d{h:02d}h"


def absolute_label(t: datetime, step: float) -> str:
    """Wall-clock time of a tick: ``09:15``, ``09:15:20``, ``09:15:20.25``."""
    if step >= 60:
        return t.strftime("%H:%M")
    dec = _decimals(step)
    label = t.strftime("%H:%M:%S")
    if dec:
        label += f".{t.microsecond:06d}"[: 1 + dec]
    return label


@dataclass(frozen=True, slots=True)
class Tick:
    x: int
    label: str


def _ticks_at(axis: Axis, lane_w: int, absolute: bool, step: float,
              order: bool = False) -> list[Tick]:
    assert axis.t0 is not None
    span = axis.we - axis.ws
    origin = 0.0  # absolute ticks fall on round wall-clock times in the zone of t0
    if absolute:
        off = axis.t0.utcoffset() or timedelta(0)
        origin = axis.t0.timestamp() + off.total_seconds()
    first = ceil((origin + axis.ws) / step - 1e-9)
    out: list[Tick] = []
    for n in range(first, first + 10_000):
        s = n * step - origin
        if s > axis.we + 1e-9:
            break
        x = round((s - axis.ws) / span * (lane_w - 1))
        if not 0 <= x < lane_w:
            continue
        if order:  # times that give the order only (README "Importing agent traffic"): the step
            label = f"step {round(s * 1000) + 1}"
        elif absolute:
            label = absolute_label(axis.t0 + timedelta(seconds=round(s, 6)), step)
        else:
            label = relative_label(s, step)
        out.append(Tick(x, label))
    return out


def ticks(axis: Axis, lane_w: int, absolute: bool, order: bool = False) -> list[Tick]:
    """Ticks at round steps over the window, far enough apart for their labels: relative
    (``+20s`` from the first event) or wall-clock times in the recording's zone. A label that
    would be cut at the lane's end is left off (the tick stays)."""
    if axis.t0 is None or lane_w < 2:
        return []
    span = axis.we - axis.ws
    label_w = 3
    out: list[Tick] = []
    for _ in range(4):  # the labels' width depends on the step: settle it
        step = tick_step(span, lane_w, label_w)
        out = _ticks_at(axis, lane_w, absolute, step, order)
        widest = max((len(t.label) for t in out), default=0)
        if widest <= label_w:
            break
        label_w = widest
    return [t if t.x + 1 + len(t.label) <= lane_w else Tick(t.x, "") for t in out]


def ruler_cells(axis: Axis, lane_w: int, absolute: bool, order: bool = False) -> str:
    """The ruler's lane: ``┬`` at each tick, its label after it (``step 5`` when the times
    give the order only)."""
    lane = ["─"] * lane_w
    for tick in ticks(axis, lane_w, absolute, order):
        lane[tick.x] = "┬"
        for i, ch in enumerate(tick.label):
            lane[tick.x + 1 + i] = ch
    return "".join(lane)


def ruler_date(axis: Axis) -> str:
    """The date (and zone) absolute ticks are on, said once at the ruler's left; two dates
    when the window spans midnight."""
    if axis.t0 is None:
        return ""
    a = axis.t0 + timedelta(seconds=axis.ws)
    b = axis.t0 + timedelta(seconds=axis.we)
    zone = a.strftime("%z")
    zone = "UTC" if zone in ("+0000", "") else f"{zone[:3]}:{zone[3:]}"
    day = a.strftime("%Y-%m-%d")
    if b.date() != a.date():
        day += "–" + b.strftime("%m-%d")
    return f"{day} {zone}"
