"""The detail pane under the timeline (k9s / sngrep style): the selected attempt's events,
each with its time, glyph, type and the state before → after, so the screen's lower half
says what happened without a key. ``enter`` still opens the full detail.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from rich.text import Text
from textual.widgets import Static

from viewer.content import compact_json, decode_text, safe_line
from viewer.model import spec
from viewer.textsafe import safe
from viewer.tui import palette as P
from viewer.tui.present import ORDER, fmt_delta, fmt_time, requested_content

if TYPE_CHECKING:
    from viewer.tui.app import VconViewApp

PANE_ROWS = 7  # its border, a title and up to five events
#: The most characters of an event's content a pane row shows (the row is cut at the width).
PREVIEW: Final = 160
#: Content longer than this is not decoded for the pane (enter shows it): a key stays cheap.
PREVIEW_SOURCE: Final = 65_536
#: The events whose content a pane row shows: what starts an attempt (the invocation) and what
#: ends it (an answer), read from the draft's transition table.
SAID: Final = frozenset(t for t, (frm, to) in spec.TOOL_TRANSITIONS.items()
                        if spec.START in frm or to in spec.FINAL_STATES)
SHORT_PANE_ROWS = 4  # on a terminal under TALL rows: the list keeps most of the height
TALL = 36
MIN_SCREEN_ROWS = 21  # on a terminal of 20 rows or fewer the pane is left out


def pane_text(app: VconViewApp, rows: int = PANE_ROWS) -> Text:
    """The pane's lines for the app's selection: O(events shown), not O(attempts)."""
    model, op, attempt = app.model, app.operation, app.attempt
    text = Text(no_wrap=True, overflow="ellipsis")
    if model is None or op is None:
        return text
    if attempt is None:
        text.append(f"{safe(op.operation_id)}: no attempt · {op.outcome}", P.style("dim"))
        # what stopped it, as recorded: each decision on it and its reason
        said = op.once_decisions or ((op.decision_event,) if op.decision_event is not None
                                     else ())
        lines = max(1, rows - 1)
        for idx in said[:lines]:
            raw = model.events[idx].raw
            d = raw.get("decision")
            d = d if isinstance(d, str) else None
            text.append("\n")
            text.append(f"{P.DECISION_GLYPH.get(d, '?')} {safe(d) or '?'}", P.decision_style(d))
            text.append(f" ({safe(raw.get('policy_life'))})")
            if raw.get("reason") is not None:
                text.append(" · reason ")
                text.append(safe(raw.get("reason")))
        # and what the agent asked for, when the importer kept it (README, Importing agent
        # traffic): one line, the rest in the detail
        asked = next((a for a in (requested_content(model.events[i].raw) for i in said)
                      if a is not None), None)
        line = preview(asked) if asked is not None and len(said[:lines]) < lines else None
        if line:  # the arguments rather than the call's id, as for an invocation
            text.append("\n")
            text.append("requested (not run) ", P.style("flag"))
            text.append(line)
        return text
    events = model.events
    steps = attempt.steps
    n = len(steps)
    text.append(f"{safe(op.operation_id)} attempt {attempt.number}: {n} event"
                f"{'' if n == 1 else 's'}", "bold")
    text.append("  enter: full detail · space: sub-lanes", P.style("dim"))
    start = attempt.start
    body = max(1, rows - 1)
    shown = steps if len(steps) <= body else steps[: body - 1]
    for step in shown:
        ev = events[step.event]
        text.append("\n")
        if ev.time is not None and app.time_mode == ORDER:  # no durations: the step
            text.append(fmt_time(ev.time, ORDER, app.t0, None).rjust(10), P.style("dim"))
        elif ev.time is not None and start is not None:
            text.append(fmt_delta((ev.time - start).total_seconds()).rjust(10), P.style("dim"))
        else:
            text.append("?".rjust(10), P.style("dim"))
        text.append(" ")
        text.append(P.event_glyph(ev.type), P.state_style(step.after))
        text.append(" ")
        text.append(safe(ev.type or "?").ljust(20))
        text.append(f"{step.before or 'start'} → {step.after or '?'}",
                    P.state_style(step.after))
        if step.late:
            text.append("  late", P.style("late") + P.style("flag"))
        if step.out_of_model:
            text.append("  out of model", P.style("flag"))
        said = preview(ev.raw) if ev.type in SAID else None
        if said:
            text.append("  ")
            text.append(said, P.style("dim"))
    if len(shown) < len(steps):
        text.append("\n")
        text.append(f"{'':>10} … {len(steps) - len(shown)} more (enter)", P.style("dim"))
    return text


class DetailPane(Static):
    """Present ``pane_text`` for the selection; a fixed height (set on resize only), so
    updating it never lays out the screen again (a key's cost stays O(width))."""

    DEFAULT_CSS = f"""
    DetailPane {{ height: {PANE_ROWS}; padding: 0 1; border-top: solid $primary 30%;
                  text-wrap: nowrap; text-overflow: ellipsis; }}
    """

    def fit_screen(self, height: int) -> None:
        """Left out on a short terminal, smaller on a middling one."""
        self.display = height >= MIN_SCREEN_ROWS
        self.styles.height = PANE_ROWS if height >= TALL else SHORT_PANE_ROWS

    _shown: tuple[object, ...] = ()

    def present(self, app: VconViewApp) -> None:
        if not self.display:
            return
        rows = int((self.styles.height.value if self.styles.height else PANE_ROWS) - 1)
        # the same attempt at the same size: nothing to redraw (a pan, a note, a zoom)
        op = app.shown[app.sel] if app.shown and app.sel < len(app.shown) else None
        key = (id(app.model), op, app.attempt_sel, rows, app.theme)
        if key == self._shown:
            return
        self._shown = key
        self.update(pane_text(app, rows), layout=False)


def preview(raw: Any) -> str | None:
    """What an invocation asked or an answer said, on one line and made safe: the tool's
    arguments (an MCP request's ``params.arguments``, an import's ``arguments`` / ``input``),
    the text parts of an MCP result (else an import's ``content``), or the content decoded as
    the detail shows it; None when there is none or it is too long to decode for a pane."""
    if not isinstance(raw, dict) or "body" not in raw:
        return None
    body = raw.get("body")
    if isinstance(body, str) and len(body) > PREVIEW_SOURCE:
        return None
    dec = decode_text(raw)
    value = dec.value if dec.kind == "json" else None
    if isinstance(value, dict):
        params = value.get("params") if "jsonrpc" in value else value
        if isinstance(params, dict):
            for key in ("arguments", "input", "args"):
                if key in params:
                    return compact_json(params[key])[:PREVIEW]
        result = value.get("result") if "jsonrpc" in value else value
        parts = result.get("content") if isinstance(result, dict) else None
        if isinstance(parts, list):
            texts = [p.get("text") for p in parts if isinstance(p, dict)]
            if any(isinstance(t, str) for t in texts):
                return safe_line(" ".join(t for t in texts if isinstance(t, str)), PREVIEW)
        if isinstance(parts, str):
            return safe_line(parts, PREVIEW)
    return safe_line(dec.one_line(), PREVIEW)
