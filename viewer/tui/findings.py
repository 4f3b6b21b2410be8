"""Every finding and diagnostic with its severity; choosing one selects it on the timeline."""

from __future__ import annotations

import re
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from viewer.model.spec import SEVERITY_RANK
from viewer.model.types import Diagnostic, Finding, Model
from viewer.textsafe import safe
from viewer.tui import palette as P
from viewer.tui.base import VappMixin

_EVENT_PTR = re.compile(r"^/events/(\d+)(?:/|$)")


def pointer_event(pointer: str) -> int | None:
    """The event index a JSON Pointer points into, if any."""
    m = _EVENT_PTR.match(pointer)
    return int(m.group(1)) if m else None


def finding_prompt(f: Finding) -> Text:
    text = Text()
    text.append(f"{P.SEVERITY_GLYPH[f.severity]} {f.severity:<7} ",
                P.style(f"severity:{f.severity}"))
    text.append(f"{f.kind:<26} ", "bold")
    where = safe(f.operation_id) if f.operation_id else "—"
    if f.attempt is not None:
        where += f" #{f.attempt}"
    text.append(f"{where:<24} ")
    text.append(safe(f.message))
    if f.events:
        text.append(f"  events {', '.join(map(str, f.events[:6]))}", P.style("dim"))
    return text


def diagnostic_prompt(d: Diagnostic) -> Text:
    text = Text()
    text.append(f"{P.SEVERITY_GLYPH[d.severity]} {d.severity:<7} ",
                P.style(f"severity:{d.severity}"))
    text.append(f"{safe(d.code):<26} ", "bold")
    text.append(f"{safe(d.pointer):<24} ")
    text.append(safe(d.message))
    return text


def ordered(model: Model) -> tuple[list[int], list[int]]:
    fi = sorted(range(len(model.findings)), key=lambda i: SEVERITY_RANK[model.findings[i].severity])
    di = sorted(range(len(model.diagnostics)),
                key=lambda i: SEVERITY_RANK[model.diagnostics[i].severity])
    return fi, di


class FindingsScreen(VappMixin, Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "app.pop_screen", "Back", id="findings.back"),
        Binding("j", "cursor(1)", "Down", id="findings.down", show=False),
        Binding("k", "cursor(-1)", "Up", id="findings.up", show=False),
    ]

    def compose(self) -> ComposeResult:
        model = self.vapp.model
        assert model is not None
        fi, di = ordered(model)
        counts = model.counts()
        head = Text(f"{len(model.findings)} findings, {len(model.diagnostics)} diagnostics  ")
        for sev in ("error", "warning", "info"):
            head.append(f"{P.SEVERITY_GLYPH[sev]}{counts[sev]} {sev}  ", P.style(f"severity:{sev}"))
        if model.unchecked is not None:
            head.append("· checking conformance: more diagnostics may follow ", P.style("dim"))
        head.append("· enter selects it on the timeline", P.style("dim"))
        yield Static(head, id="findings-head")
        options: list[Option | None] = []
        if fi:
            options.append(Option(Text("Findings", style="bold underline"), disabled=True))
            options.extend(Option(finding_prompt(model.findings[i]), id=f"f:{i}") for i in fi)
        if di:
            options.append(Option(Text("Diagnostics", style="bold underline"), disabled=True))
            options.extend(Option(diagnostic_prompt(model.diagnostics[i]), id=f"d:{i}")
                           for i in di)
        if not options:
            options.append(Option(Text("No findings and no diagnostics."), disabled=True))
        yield OptionList(*options, id="findings")
        yield Footer()

    def on_mount(self) -> None:
        ol = self.query_one(OptionList)
        ol.focus()
        ol.action_first()

    def action_cursor(self, delta: int) -> None:
        ol = self.query_one(OptionList)
        if delta > 0:
            ol.action_cursor_down()
        else:
            ol.action_cursor_up()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        model = self.vapp.model
        oid = event.option.id
        if model is None or not oid:
            return
        kind, _, num = oid.partition(":")
        i = int(num)
        if kind == "f":
            op_index, attempt, ev = self.vapp.finding_target(model.findings[i])
            self.vapp.finding_pos = i
        else:
            ev = pointer_event(model.diagnostics[i].pointer)
            op_index, attempt = None, None
            if ev is not None and ev < len(model.events):
                e = model.events[ev]
                op_index = model.by_operation.get(e.operation_id) if e.operation_id else None
                attempt = e.attempt
        if op_index is None:
            self.notify("This one names no operation", markup=False)
            return
        self.app.pop_screen()
        self.vapp.select_operation(op_index, attempt, ev)
