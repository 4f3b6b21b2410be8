"""Attempt / event detail: the attempt's events as a table, the selected event decoded.

The decoded view follows the event's encoding (``viewer.content.decode_text``); `r` shows the
event exactly as recorded; attachments are decoded the same way; external content is url +
content_hash, never fetched. Long content is shown in part until `a`.
"""

from __future__ import annotations

from datetime import datetime
from typing import ClassVar

from rich.console import Group, RenderableType
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.widgets import Footer, Static

from viewer.model import spec
from viewer.model.types import Attempt, Model, Operation
from viewer.textsafe import safe, safe_block, safe_short
from viewer.tui import palette as P
from viewer.tui.base import VappMixin
from viewer.tui.messages import NoteChanged, SelectionMoved, ViewChanged
from viewer.tui.present import (
    ORDER,
    PART_CHARS,
    PREVIEW_CHARS,
    REQUESTED_HEAD,
    attempt_gap,
    copy_text,
    decode_content,
    fmt_time,
    indices,
    party_label,
    raw_json,
    requested_content,
    session_label,
    text_fields,
)


def detail_events(op: Operation, attempt: Attempt | None, model: Model) -> list[int]:
    """Rows of the detail table: the governing decision first, then the attempt's events."""
    if attempt is None:
        rows = [*op.once_decisions, *op.unassigned_events]
        return sorted(rows, key=lambda i: model.events[i].order)
    rows = []
    if attempt.decision_event is not None:
        rows.append(attempt.decision_event)
    rows.extend(attempt.events)
    return rows

#: The most characters of a recorded value the event line shows (server, tool, reason,
#: inferred).
INFO_CHARS = 500


class ContentScroll(VerticalScroll, can_focus=False):
    """Scrolled by the screen's page keys; never takes focus from the screen's bindings."""


class EventTable(Static):
    """The attempt's events; a click selects a row (line 0 is the column header)."""

    def on_click(self, event: events.Click) -> None:
        screen = self.screen
        if isinstance(screen, DetailScreen) and event.y >= 1:
            screen.select_row(event.y - 1)


class DetailScreen(VappMixin, Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", id="detail.back"),
        Binding("h,left", "event(-1)", "Event ←", id="detail.event_prev", show=False),
        Binding("l,right", "event(1)", "Event →", id="detail.event_next"),
        Binding("j,down", "attempt(1)", "Attempt ↓", id="detail.attempt_next"),
        Binding("k,up", "attempt(-1)", "Attempt ↑", id="detail.attempt_prev", show=False),
        Binding("r", "raw", "Raw", id="detail.raw"),
        Binding("a", "all", "All content", id="detail.all"),
        Binding("d", "diff", "Diff", id="detail.diff"),
        Binding("y", "copy", "Copy event", id="detail.copy"),
        Binding("n", "finding(1)", "Next finding", id="detail.next_finding", show=False),
        Binding("N", "finding(-1)", "Prev finding", id="detail.prev_finding", show=False),
        Binding("t", "time_mode", "Time", id="detail.time_mode", show=False),
        Binding("pagedown,space", "page(1)", "Page ↓", id="detail.page_down", show=False),
        Binding("pageup", "page(-1)", "Page ↑", id="detail.page_up", show=False),
    ]

    def __init__(self, raw: bool = False) -> None:
        super().__init__()
        self.raw = raw
        self.full = False
        self.part = 0
        self.row = 0

    def compose(self) -> ComposeResult:
        yield Static(id="detail-head")
        with ContentScroll(id="events-scroll"):
            yield EventTable(id="events")
        yield Static(id="event-info")
        with ContentScroll(id="content"):
            yield Static(id="content-body")
        yield Footer()

    def on_mount(self) -> None:
        self._pick_initial_row()
        self.show()

    def on_resize(self) -> None:
        """The event table's columns follow the terminal's width (``_table``)."""
        model, op = self.vapp.model, self.vapp.operation
        if model is not None and op is not None:
            self.query_one("#events", Static).update(self._table(model, op, self.vapp.attempt))

    def event_rows(self) -> list[int]:
        """The events the detail lists (indices into ``model.events``), in its order."""
        model, op = self.vapp.model, self.vapp.operation
        if model is None or op is None:
            return []
        return detail_events(op, self.vapp.attempt, model)

    def _pick_initial_row(self) -> None:
        rows = self.event_rows()
        want = self.vapp.event_sel
        self.row = rows.index(want) if want in rows else 0
        if want not in rows and rows:
            # Start at the invocation (the arguments) rather than the decision.
            attempt = self.vapp.attempt
            if attempt is not None and attempt.invocation in rows:
                self.row = rows.index(attempt.invocation)

    @property
    def event_index(self) -> int | None:
        rows = self.event_rows()
        if not rows:
            return None
        self.row = max(0, min(self.row, len(rows) - 1))
        return rows[self.row]

    # --- drawing -------------------------------------------------------------------------------
    def show(self) -> None:
        model, op, attempt = self.vapp.model, self.vapp.operation, self.vapp.attempt
        if model is None or op is None:
            return
        self.query_one("#detail-head", Static).update(self._head(model, op, attempt))
        self.query_one("#events", Static).update(self._table(model, op, attempt))
        self.call_after_refresh(self._keep_row_visible)
        idx = self.event_index
        self.vapp.event_sel = idx
        self.query_one("#event-info", Static).update(self._info(model, idx))
        self.query_one("#content-body", Static).update(self._content(model, idx))

    def _head(self, model: Model, op: Operation, attempt: Attempt | None) -> Text:
        text = Text()
        text.append(safe(op.operation_id), "bold")
        text.append(f"  {safe(op.target)}  outcome {op.outcome}")
        if attempt is not None:
            text.append(f"\nattempt {attempt.number} ({self.vapp.attempt_sel + 1} of "
                        f"{len(op.attempts)})  final ")
            text.append(f"{P.STATE_GLYPH.get(attempt.final_state or '', '-')} "
                        f"{attempt.final_state or '—'}", P.state_style(attempt.final_state))
            text.append("   decision ")
            text.append(f"{P.DECISION_GLYPH.get(attempt.decision, '?')} "
                        f"{attempt.decision or 'none observed'}",
                        P.decision_style(attempt.decision))
            if attempt.decision_life:
                text.append(f" ({attempt.decision_life}, event {attempt.decision_event})")
            if attempt.flags:
                text.append("  flags: ")
                text.append(" ".join(P.FLAG_LABEL.get(f, f) for f in sorted(attempt.flags)),
                            P.style("flag"))
            k = self.vapp.attempt_sel
            if k > 0:  # the gap since the attempt before, in words
                text.append("\n")
                text.append(attempt_gap(model, op.attempts[k - 1], attempt), P.style("context"))
        else:
            text.append("\nno attempt recorded")
        mode = "raw (as recorded)" if self.raw else "decoded"
        text.append(f"\nview: {mode} · time {self.vapp.time_mode}", P.style("dim"))
        note = self.vapp.note
        if note:  # what n / N did
            text.append("\n")
            text.append_text(note if isinstance(note, Text) else Text(note))
        return text

    def _table(self, model: Model, op: Operation, attempt: Attempt | None) -> Text:
        rows = self.event_rows()
        steps = {s.event: s for s in attempt.steps} if attempt is not None else {}
        t0 = self.vapp.t0
        # delta: from the previous event of the same attempt (a standing decision or another
        # row between them is not what the attempt waited for)
        prev_of: dict[int, datetime | None] = {}
        last: datetime | None = None
        for idx in (attempt.events if attempt is not None else ()):
            prev_of[idx] = last
            t_ev = model.events[idx].time
            last = t_ev if t_ev is not None else last
        cells = [self._cells(model, idx, steps, prev_of.get(idx), t0) for idx in rows]
        # The columns at their usual widths; on a terminal too narrow for them, each column
        # as wide as its longest cell, so a row's flags and event number are never the part
        # cut off at the right.
        widths = (12, 9, 28, 13)
        if (self.app.size.width - 3 < 2 + sum(w + 1 for w in widths) + 21
                + max((len(f" #{idx}") for idx in rows), default=0)):
            flags_w = max((len(c[4]) for c in cells), default=0)
            widths = (max([4, *(len(c[0]) for c in cells)]),
                      max([5, *(len(c[1]) for c in cells)]),
                      max([20, *(sum(len(p) for p, _ in c[3]) for c in cells)]),
                      max(5, flags_w) if flags_w else 0)
        w_time, w_delta, w_state, w_flags = widths
        text = Text()
        text.append(f"  {'time':<{w_time}} {'delta':<{w_delta}} {'event':<21} "
                    f"{'state before → after':<{w_state}} " + ("flags" if w_flags else "")
                    + "\n", P.style("dim"))
        for r, (idx, (t_text, delta, event, state, flags, gap)) in enumerate(
                zip(rows, cells, strict=True)):
            sel = r == self.row
            base = P.style("selected") if sel else None
            text.append("›" if sel else " ", base)
            text.append(" ")
            text.append(f"{t_text:<{w_time}}", base)
            text.append(" ")
            text.append(f"{delta:<{w_delta}} ")
            text.append(*event)
            used = 0
            for part, style in state:
                text.append(part, style)
                used += len(part)
            text.append(" " * max(gap, w_state + 1 - used))
            if w_flags:
                text.append(flags.ljust(w_flags), P.style("flag"))
            text.append(f" #{idx}\n", P.style("dim"))
        text.rstrip()
        return text

    def _cells(self, model: Model, idx: int, steps: dict, prev: datetime | None,
               t0: datetime | None) -> tuple[str, str, tuple[str, object],
                                             list[tuple[str, object]], str, int]:
        """One row of the event table: time, delta, event, state (parts and styles), flags,
        and the least gap after the state (a decision's words may run to the flags, as they
        always have at the usual widths)."""
        ev = model.events[idx]
        t_text = fmt_time(ev.time, self.vapp.time_mode, t0, prev)
        delta = fmt_time(ev.time, "delta", t0, prev) \
            if prev is not None and self.vapp.time_mode != ORDER else ""
        step = steps.get(idx)
        state: list[tuple[str, object]]
        if ev.type == spec.POLICY_DECISION:
            d = ev.raw.get("decision")
            d = d if isinstance(d, str) else None
            event = (f"{P.DECISION_GLYPH.get(d, '?')} {'policy-decision':<19}",
                     P.decision_style(d))
            state = [(f" {safe(d) or '?'} ({safe(ev.raw.get('policy_life'))})", None)]
            gap = 0
        else:
            gap = 1
            event = (f"{P.event_glyph(ev.type)} {fit(safe(ev.type), 19)}",
                     P.state_style(step.after if step else None))
            if step is not None:
                before = step.before or "start"
                state = [(f" {before} → ", None),
                         (f"{step.after or '?'}", P.state_style(step.after))]
            else:
                state = [(" (not replayed)", None)]
        flags = []
        if step is not None and step.late:
            flags.append("late")
        if step is not None and step.out_of_model:
            flags.append("out-of-model")
        return t_text, delta, event, state, " ".join(flags), gap

    def _info(self, model: Model, idx: int | None) -> Text:
        text = Text()
        if idx is None:
            return text
        ev = model.events[idx]
        text.append(f"event #{idx} {safe(ev.type)}", "bold")
        text.append(" · party ")
        text.append(party_label(model, ev.raw.get("party")))
        sess = indices(ev.raw.get("sessions", ev.raw.get("session")))
        if sess:
            text.append(" · sessions ")
            text.append("; ".join(session_label(model, s) for s in sess))
        if ev.type in spec.CONTENT_MEANING:
            text.append(f"\ncontent: {spec.CONTENT_MEANING[ev.type]}", P.style("dim"))
        if requested_content(ev.raw) is not None:  # README, Importing agent traffic
            text.append(" · requested: below (never run)",
                        P.style("flag"))
        # each cut to INFO_CHARS (the raw view, r, has them whole): a recorded value may be
        # of any length, and the event's content must stay on screen below
        for key in ("server", "tool", "reason"):
            if key in ev.raw:
                text.append(f" · {key} ")
                text.append(safe_short(ev.raw.get(key), INFO_CHARS))
        # what an importer inferred where the recording is silent (README, Importing agent
        # traffic): why this event is where it is, said beside it rather than in the raw view
        why = ev.raw.get("inferred")
        if isinstance(why, str):
            text.append("\ninferred: ", P.style("flag"))
            text.append(safe_short(why, INFO_CHARS))
        # what others said of it (an Invariant trace's annotations: a guardrail's or an
        # analyzer's finding, a reviewer's note), each its content
        notes = ev.raw.get("annotations")
        for note in notes[:5] if isinstance(notes, list) else ():
            said = note.get("content") if isinstance(note, dict) else None
            if isinstance(said, str):
                text.append("\nannotation: ", P.style("flag"))
                text.append(safe_short(said, INFO_CHARS))
        if isinstance(notes, list) and len(notes) > 5:
            text.append(f"\n… {len(notes) - 5} more annotation(s): r shows them all",
                        P.style("dim"))
        return text

    def _content(self, model: Model, idx: int | None) -> RenderableType:
        if idx is None:
            return Text("no events", style=P.style("dim"))
        raw = model.events[idx].raw
        if self.raw:
            return raw_json(raw)
        parts: list[RenderableType] = []
        # a refused call's decision: what the agent asked for, shown as an invocation's
        # arguments are (the importers' ``requested``; README, Importing agent traffic)
        asked = requested_content(raw)
        content = raw if asked is None else asked
        dec = decode_content(content, full=self.full, part=self.part)
        self.part = dec.part
        head = Text(REQUESTED_HEAD if asked is not None else f"content: {dec.summary}",
                    style="bold")
        if self.full and dec.parts > 1:
            note = (f"part {dec.part + 1} of {dec.parts} of {dec.full_chars} characters: "
                    "press a for the next part")
        elif dec.truncated:
            note = f"first part of {dec.full_chars} characters: press a to show all"
        else:
            note = ""
        if note:
            head.append(f"  ({note})", P.style("flag"))
        parts.append(head)
        parts.append(dec.renderable if dec.renderable is not None
                     else Text("(none)", style=P.style("dim")))
        if note:
            parts.append(Text(f"… {note}", style=P.style("flag")))
        # a string of many lines (a command's output) with its line breaks, after the JSON
        limit = PART_CHARS if self.full else PREVIEW_CHARS
        for ptr, value in text_fields(content):
            parts.append(Text(""))
            head = Text(f"{safe(ptr)} as text", style="bold")
            if len(value) > limit:
                head.append(f"  (the first {limit:,} of {len(value):,} characters)",
                            P.style("flag"))
            parts.append(head)
            parts.append(Text(safe_block(value[:limit])))
        atts = indices(raw.get("attachment"))
        for a in atts:
            parts.append(Text(""))
            if not 0 <= a < len(model.attachments) or not isinstance(model.attachments[a],
                                                                     dict):
                parts.append(Text(f"attachment {a}: out of range", style=P.style("flag")))
                continue
            att = model.attachments[a]
            head = Text(f"attachment {a}", style="bold")
            for key in ("purpose", "mediatype", "filename"):
                if key in att:
                    head.append(f" · {key} ")
                    head.append(safe(att.get(key)))
            ad = decode_content(att, full=self.full)
            head.append(f" · {ad.summary}")
            parts.append(head)
            if ad.renderable is not None:
                parts.append(ad.renderable)
        return Group(*parts)

    def _keep_row_visible(self) -> None:
        # Called after a refresh: the screen may have been dismissed by then (a key storm:
        # enter, escape), so the scroll may be gone (NoMatches '#events-scroll' before).
        try:
            sc = self.query_one("#events-scroll", ContentScroll)
        except NoMatches:
            return
        line, top, h = self.row + 1, round(sc.scroll_offset.y), sc.size.height
        if line - 1 < top:
            sc.scroll_to(y=max(0, line - 1), animate=False)
        elif line >= top + h:
            sc.scroll_to(y=line - h + 1, animate=False)

    def select_row(self, row: int) -> None:
        rows = self.event_rows()
        if 0 <= row < len(rows):
            self.row = row
            self.full = False
            self.show()

    # --- messages from the App (viewer.tui.messages) -----------------------------------------
    def on_view_changed(self, message: ViewChanged) -> None:
        if self.is_mounted:
            self.show()

    def on_note_changed(self, message: NoteChanged) -> None:
        if self.is_mounted:
            self.show()

    def on_selection_moved(self, message: SelectionMoved) -> None:
        if self.is_mounted:
            self.show()

    # --- actions -------------------------------------------------------------------------------
    def action_back(self) -> None:
        self.app.pop_screen()
        self.vapp.refresh_views()

    def action_event(self, delta: int) -> None:
        rows = self.event_rows()
        if rows:
            self.row = max(0, min(len(rows) - 1, self.row + delta))
            self.full = False
            self.show()

    def action_attempt(self, delta: int) -> None:
        if self.vapp.step_attempt(delta):
            self.vapp.set_note("")
            self._pick_initial_row()
            self.full = False
            self.show()

    def action_raw(self) -> None:
        self.raw = not self.raw
        self.show()

    def action_all(self) -> None:
        """Show all: the content part by part (``present.PART_CHARS``); again: the next part."""
        if self.full:
            self.part += 1
        else:
            self.full, self.part = True, 0
        self.show()

    def action_diff(self) -> None:
        from viewer.tui.diff import open_diff

        open_diff(self.vapp)

    def action_copy(self) -> None:
        model, idx = self.vapp.model, self.event_index
        if model is None or idx is None:
            return
        self.vapp.copy_with_fallback(copy_text(model.events[idx].raw), f"event #{idx}")

    def action_finding(self, direction: int) -> None:
        step = self.vapp.step_finding(direction)
        if step is not None:
            self._pick_initial_row()
            self.show()
        self.vapp.notify_finding(step, direction)

    def action_time_mode(self) -> None:
        self.vapp.cycle_time_mode()
        self.show()

    def action_page(self, direction: int) -> None:
        """Page the content pane (the events table follows the selected row on its own)."""
        scroll = self.query_one("#content", ContentScroll)
        if direction > 0:
            scroll.scroll_page_down(animate=False)
        else:
            scroll.scroll_page_up(animate=False)


def fit(text: str, width: int) -> str:
    return text[: width - 1] + "…" if len(text) > width else text.ljust(width)
