"""`c`: the conversation and core events interleaved with the operations, in time order.

A reviewer reads what the person asked, then what the agent did about it; choosing an
operation line selects it on the timeline.
"""

from __future__ import annotations

from datetime import datetime
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from viewer.model.times import EARLIEST
from viewer.model.types import Model
from viewer.textsafe import safe
from viewer.tui import palette as P
from viewer.tui.base import VappMixin
from viewer.tui.present import dialog_text, dialog_time, fmt_time, party_label


def _is_agent(model: Model, index: object) -> bool:
    """A party recorded with role "agent" (imported sessions mark their agents so)."""
    ps = model.parties
    return (isinstance(index, int) and not isinstance(index, bool) and 0 <= index < len(ps)
            and isinstance(ps[index], dict) and ps[index].get("role") == "agent")


def transcript(model: Model) -> list[tuple[datetime | None, int, str, int]]:
    """(time, order, kind, index) for dialog turns, context events and operations."""
    rows: list[tuple[datetime | None, int, str, int]] = []
    for i, d in enumerate(model.dialog):
        rows.append((dialog_time(d), -1, "dialog", i))
    for i in model.context:
        rows.append((model.events[i].time, model.events[i].order, "event", i))
    for i, op in enumerate(model.operations):
        rows.append((op.first_time, op.first_order, "operation", i))
    # By the instant (offsets kept: 10:00+01:00 is before 09:30Z), untimed rows last.
    rows.sort(key=lambda r: (r[0] is None, r[0] or EARLIEST, r[1]))
    return rows


class ContextScreen(VappMixin, Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,c", "app.pop_screen", "Back", id="context.back"),
        Binding("j", "cursor(1)", "Down", id="context.down", show=False),
        Binding("k", "cursor(-1)", "Up", id="context.up", show=False),
    ]

    def compose(self) -> ComposeResult:
        model = self.vapp.model
        assert model is not None
        t0 = self.vapp.t0
        yield Static(Text(f"{len(model.dialog)} dialog turns, {len(model.context)} core events, "
                          f"{len(model.operations)} operations in time order · enter on an "
                          "operation selects it"), id="context-head")
        options: list[Option] = []
        self._op_option: dict[int, int] = {}
        for t, _, kind, i in transcript(model):
            text = Text(f"{fmt_time(t, self.vapp.time_mode, t0, None):<12} ", P.style("dim"))
            if kind == "dialog":
                d = model.dialog[i]
                who = ""
                if isinstance(d, dict) and isinstance(d.get("parties"), list) and d["parties"]:
                    who = party_label(model, d["parties"][0])
                    if len(d["parties"]) == 2 and all(_is_agent(model, p) for p in d["parties"]):
                        who += " → " + party_label(model, d["parties"][1])  # agent to agent
                text.append(f"{P.CONTEXT_GLYPH['dialog']} {who}: ", P.style("context"))
                text.append(dialog_text(d, 300))
                options.append(Option(text, id=f"d:{i}"))
            elif kind == "event":
                e = model.events[i]
                text.append(f"{P.CONTEXT_GLYPH.get(e.type, P.UNKNOWN_GLYPH)} {safe(e.type)} ",
                            P.style("context"))
                text.append(party_label(model, e.raw.get("party")))
                options.append(Option(text, id=f"e:{i}"))
            else:
                op = model.operations[i]
                text.append(f"  {P.DECISION_GLYPH.get(op.decision, '?')} ",
                            P.decision_style(op.decision))
                text.append(safe(op.operation_id), "bold")
                text.append(f" {safe(op.target)} → {op.outcome}")
                if op.flags:
                    text.append("  " + " ".join(P.FLAG_LABEL.get(f, f) for f in sorted(op.flags)
                                                if f in P.FLAG_LABEL), P.style("flag"))
                self._op_option[i] = len(options)
                options.append(Option(text, id=f"o:{i}"))
        yield OptionList(*options, id="context")
        yield Footer()

    def on_mount(self) -> None:
        ol = self.query_one(OptionList)
        ol.focus()
        op = self.vapp.operation
        if op is not None and self.vapp.model is not None:
            idx = self.vapp.model.by_operation.get(op.operation_id)
            if idx is not None and idx in self._op_option:
                ol.highlighted = self._op_option[idx]

    def action_cursor(self, delta: int) -> None:
        ol = self.query_one(OptionList)
        (ol.action_cursor_down if delta > 0 else ol.action_cursor_up)()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        kind, _, num = (event.option.id or "").partition(":")
        if kind != "o":
            return
        self.app.pop_screen()
        self.vapp.select_operation(int(num))
