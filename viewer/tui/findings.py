"""Every finding and diagnostic with its severity; choosing one selects it on the timeline."""

from __future__ import annotations

import re
from typing import ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Footer, Static
from textual.worker import get_current_worker

from viewer.model.spec import SEVERITY_RANK
from viewer.model.types import Diagnostic, Finding, Model
from viewer.textsafe import safe
from viewer.tui import palette as P
from viewer.tui.base import VappMixin
from viewer.tui.messages import ModelAdopted
from viewer.tui.rowlist import RowList

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


def finding_whole(f: Finding) -> Text:
    """The finding the cursor is on, whole: its row cuts the message to the screen's width."""
    text = Text()
    text.append(f"{P.SEVERITY_GLYPH[f.severity]} {f.severity} ", P.style(f"severity:{f.severity}"))
    text.append(f.kind, "bold")
    if f.operation_id:
        text.append(f" · {safe(f.operation_id)}")
        if f.attempt is not None:
            text.append(f" attempt {f.attempt}")
    if f.events:
        text.append(f" · events {', '.join(map(str, f.events))}", P.style("dim"))
    text.append("\n")
    text.append(safe(f.message))
    return text


def diagnostic_whole(d: Diagnostic) -> Text:
    """The diagnostic the cursor is on, whole."""
    text = Text()
    text.append(f"{P.SEVERITY_GLYPH[d.severity]} {d.severity} ", P.style(f"severity:{d.severity}"))
    text.append(safe(d.code), "bold")
    if d.pointer:
        text.append(f" · {safe(d.pointer)}")
    text.append("\n")
    text.append(safe(d.message))
    return text


def ordered(model: Model) -> tuple[list[int], list[int]]:
    fi = sorted(range(len(model.findings)), key=lambda i: SEVERITY_RANK[model.findings[i].severity])
    di = sorted(range(len(model.diagnostics)),
                key=lambda i: SEVERITY_RANK[model.diagnostics[i].severity])
    return fi, di


#: A list up to this many rows is built on the spot; a longer one in a thread, the screen
#: saying "building…" meanwhile (keys such as escape stay live).
BUILD_INLINE = 5000

HEADINGS = ("Findings", "Diagnostics")
Row = tuple[str, int]  # ("f", finding index) | ("d", diagnostic index) | (heading, 0)


def finding_rows(model: Model) -> list[Row]:
    """The findings screen's rows: findings then diagnostics, each by severity, with headings."""
    fi, di = ordered(model)
    rows: list[Row] = []
    if fi:
        rows.append(("Findings", 0))
        rows.extend(("f", i) for i in fi)
    if di:
        rows.append(("Diagnostics", 0))
        rows.extend(("d", i) for i in di)
    if not rows:
        rows.append(("No findings and no diagnostics.", 0))
    return rows


_last: tuple[Model, list[Row]] | None = None  # the last model's rows (``prepare``)


def prepare(model: Model) -> list[Row]:
    """``finding_rows``, kept for the last model: the App prepares them in a thread once the
    model is final, so ``f`` opens at once."""
    global _last
    last = _last
    if last is not None and last[0] is model:
        return last[1]
    rows = finding_rows(model)
    _last = (model, rows)
    return rows


class FindingsScreen(VappMixin, Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "app.pop_screen", "Back", id="findings.back"),
    ]

    rows: list[Row] | None = None  # None while building

    def compose(self) -> ComposeResult:
        yield Static(Text("building…", style="bold"), id="findings-head")
        yield RowList(id="findings")
        yield Static(id="findings-whole")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(RowList).focus()
        self.build()

    def build(self) -> None:
        """Make the rows: inline for a short list, else in a thread (the screen is up)."""
        model = self.vapp.model
        assert model is not None
        self.rows = None
        if len(model.findings) + len(model.diagnostics) <= BUILD_INLINE:
            self._show(model, prepare(model))
        else:
            self.query_one("#findings-head", Static).update(Text(
                f"building… ({len(model.findings):,} findings, "
                f"{len(model.diagnostics):,} diagnostics)", style="bold"))
            self._build_in_thread(model)

    # a description: Textual would otherwise make one from repr(model), every operation in it
    @work(thread=True, exclusive=True, group="findings", description="findings list")
    def _build_in_thread(self, model: Model) -> None:
        rows = prepare(model)
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._show, model, rows)

    def _show(self, model: Model, rows: list[Row]) -> None:
        if model is not self.vapp.model or not self.is_attached:
            return  # a later model arrived meanwhile: its own build follows
        self.rows = rows
        counts = model.counts()
        head = Text(f"{len(model.findings)} findings, {len(model.diagnostics)} diagnostics  ")
        for sev in ("error", "warning", "info"):
            head.append(f"{P.SEVERITY_GLYPH[sev]}{counts[sev]} {sev}  ", P.style(f"severity:{sev}"))
        if model.unchecked is not None:
            head.append("· checking conformance: more diagnostics may follow ", P.style("dim"))
        head.append("· enter selects it on the timeline", P.style("dim"))
        self.query_one("#findings-head", Static).update(head)

        def render(i: int) -> Text:
            kind, n = rows[i]
            if kind == "f":
                return finding_prompt(model.findings[n])
            if kind == "d":
                return diagnostic_prompt(model.diagnostics[n])
            return Text(kind, style="bold underline" if kind in HEADINGS else "")

        self.query_one(RowList).set_rows(len(rows), render,
                                         lambda i: rows[i][0] in ("f", "d"))

    def row_of(self, kind: str, index: int) -> int:
        """The row showing finding (``"f"``) or diagnostic (``"d"``) ``index``; -1 if none."""
        rows = self.rows or []
        try:
            return rows.index((kind, index))
        except ValueError:
            return -1

    def on_model_adopted(self, message: ModelAdopted) -> None:
        """The diagnostics arrived (or the rest of the operations): rebuild the list."""
        self.build()

    def on_row_list_highlighted(self, event: RowList.Highlighted) -> None:
        """Under the list, the finding or diagnostic the cursor is on, whole (wrapped)."""
        model, rows = self.vapp.model, self.rows
        text = Text()
        if model is not None and rows is not None and 0 <= event.index < len(rows):
            kind, n = rows[event.index]
            if kind == "f":
                text = finding_whole(model.findings[n])
            elif kind == "d":
                text = diagnostic_whole(model.diagnostics[n])
        self.query_one("#findings-whole", Static).update(text)

    def on_row_list_selected(self, event: RowList.Selected) -> None:
        model = self.vapp.model
        if model is None or self.rows is None:
            return
        kind, i = self.rows[event.index]
        if kind == "f":
            op_index, attempt, ev = self.vapp.finding_target(model.findings[i])
            self.vapp.finding_pos = i
        elif kind == "d":
            ev = pointer_event(model.diagnostics[i].pointer)
            op_index, attempt = None, None
            if ev is not None and ev < len(model.events):
                e = model.events[ev]
                op_index = model.by_operation.get(e.operation_id) if e.operation_id else None
                attempt = e.attempt
        else:
            return
        if op_index is None:
            self.notify("This one names no operation", markup=False)
            return
        self.app.pop_screen()
        self.vapp.select_operation(op_index, attempt, ev)
