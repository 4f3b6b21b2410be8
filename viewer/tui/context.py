"""`c`: the conversation and core events interleaved with the operations, in time order.

A reviewer reads what the person asked, then what the agent did about it; choosing an
operation line selects it on the timeline; choosing a turn shows all of it.
"""

from __future__ import annotations

from datetime import datetime
from typing import ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static
from textual.worker import get_current_worker

from viewer.content import decode_text
from viewer.model.times import EARLIEST
from viewer.model.types import Model
from viewer.textsafe import safe, safe_block
from viewer.tui import palette as P
from viewer.tui.base import VappMixin
from viewer.tui.present import PART_CHARS, dialog_text, dialog_time, fmt_time, party_label
from viewer.tui.rowlist import RowList


def _is_agent(model: Model, index: object) -> bool:
    """A party recorded with role "agent" (imported sessions mark their agents so)."""
    ps = model.parties
    return (isinstance(index, int) and not isinstance(index, bool) and 0 <= index < len(ps)
            and isinstance(ps[index], dict) and ps[index].get("role") == "agent")


_agents: tuple[Model | None, bool] = (None, False)


def _several_agents(model: Model) -> bool:
    """Whether the turns from parties that are not agents go to more than one agent (the
    traces of an Invariant file; not a main agent with sub-agents, which the user does not
    address): then each such turn names its agent. Worked out once per model."""
    global _agents
    if _agents[0] is not model:
        asked: set[int] = set()
        for d in model.dialog:
            ps = d.get("parties") if isinstance(d, dict) else None
            if (isinstance(ps, list) and len(ps) == 2 and not _is_agent(model, ps[0])
                    and _is_agent(model, ps[1])):
                asked.add(ps[1])
                if len(asked) > 1:
                    break
        _agents = (model, len(asked) > 1)
    return _agents[1]


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


#: A transcript up to this many rows is built on the spot; a longer one in a thread.
BUILD_INLINE = 5000


class ContextScreen(VappMixin, Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,c", "app.pop_screen", "Back", id="context.back"),
    ]

    rows: list[tuple[datetime | None, int, str, int]] | None = None  # None while building
    op_row: dict[int, int]  # operation index -> its row

    def compose(self) -> ComposeResult:
        yield Static(Text("building…", style="bold"), id="context-head")
        yield RowList(id="context")
        yield Static(id="context-whole")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(RowList).focus()
        model = self.vapp.model
        assert model is not None
        self.op_row = {}
        size = len(model.dialog) + len(model.context) + len(model.operations)
        if size <= BUILD_INLINE:
            self._show(model, *prepare(model))
        else:
            self.query_one("#context-head", Static).update(Text(
                f"building… ({size:,} lines in time order)", style="bold"))
            self._build_in_thread(model)

    # a description: Textual would otherwise make one from repr(model), every operation in it
    @work(thread=True, exclusive=True, group="context", description="context transcript")
    def _build_in_thread(self, model: Model) -> None:
        built = prepare(model)
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._show, model, *built)

    def _show(self, model: Model, rows: list[tuple[datetime | None, int, str, int]],
              op_row: dict[int, int]) -> None:
        if not self.is_attached:
            return
        self.rows, self.op_row = rows, op_row
        self.query_one("#context-head", Static).update(Text(
            f"{len(model.dialog)} dialog turns, {len(model.context)} core events, "
            f"{len(model.operations)} operations in time order · enter on an operation "
            "selects it, on a turn shows all of it"))
        t0, mode = self.vapp.t0, self.vapp.time_mode

        def render(k: int) -> Text:
            return context_line(model, rows[k], mode, t0)

        cursor = 0
        op = self.vapp.operation
        if op is not None:
            idx = model.by_operation.get(op.operation_id)
            cursor = op_row.get(idx, 0) if idx is not None else 0
        self.query_one(RowList).set_rows(len(rows), render, cursor=cursor)

    def on_row_list_highlighted(self, event: RowList.Highlighted) -> None:
        """Under the list, the line the cursor is on, whole (wrapped): a turn's row is cut to
        the screen's width, and what the person asked is what the reviewer reads first."""
        model, rows = self.vapp.model, self.rows
        text = Text()
        if model is not None and rows is not None and 0 <= event.index < len(rows):
            row = rows[event.index]
            if row[2] == "dialog":
                text = context_line(model, row, self.vapp.time_mode, self.vapp.t0, 0)
                text.append_text(turn_whole(model.dialog[row[3]]))
            else:
                text = context_line(model, row, self.vapp.time_mode, self.vapp.t0)
        self.query_one("#context-whole", Static).update(text)

    def on_row_list_selected(self, event: RowList.Selected) -> None:
        if self.rows is None:
            return
        row = self.rows[event.index]
        _, _, kind, i = row
        if kind == "dialog":  # all of the turn, to scroll (under the list: what fits)
            model = self.vapp.model
            assert model is not None
            text = context_line(model, row, self.vapp.time_mode, self.vapp.t0, 0)
            text.append_text(turn_whole(model.dialog[i], TURN_ALL))
            self.app.push_screen(TurnScreen(text))
            return
        if kind != "operation":
            return
        self.app.pop_screen()
        self.vapp.select_operation(i)


Built = tuple[list[tuple[datetime | None, int, str, int]], dict[int, int]]
_last: tuple[Model, Built] | None = None  # the last model's rows (``prepare``)


def prepare(model: Model) -> Built:
    """The transcript and each operation's row, kept for the last model: the App prepares
    them in a thread once the model is final, so ``c`` opens at once (and again at once)."""
    global _last
    last = _last
    if last is not None and last[0] is model:
        return last[1]
    rows = transcript(model)
    built = rows, {i: k for k, (_, _, kind, i) in enumerate(rows) if kind == "operation"}
    _last = (model, built)
    return built


#: How much of a turn the line under the context list shows (a row shows the first 300).
WHOLE = 4000


#: How much of a turn ``enter`` shows (the detail's "show all" part).
TURN_ALL = PART_CHARS


def turn_whole(d: object, limit: int = WHOLE) -> Text:
    """What a dialog turn says, decoded, with its line breaks (made safe as block text), up to
    ``limit`` characters: its row joins paragraphs with ⏎ on one line."""
    if not isinstance(d, dict):
        return Text(dialog_text(d, limit))
    dec = decode_text(d)
    if dec.kind not in ("text", "json"):
        return Text(dialog_text(d, limit))
    said = dec.text.replace("\r\n", "\n")
    text = Text("\n" + safe_block(said[:limit]))
    if len(said) > limit:
        text.append(f"\n… (the first {limit:,} of {len(said):,} characters)", P.style("dim"))
    return text


class TurnScreen(VappMixin, Screen[None]):
    """`enter` on a turn in the context: all of it, to scroll; escape goes back."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "app.pop_screen", "Back", id="turn.back"),
    ]

    def __init__(self, text: Text) -> None:
        super().__init__()
        self._text = text

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="turn-scroll"):
            yield Static(self._text, id="turn")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#turn-scroll").focus()


def context_line(model: Model, row: tuple[datetime | None, int, str, int], mode: str,
                 t0: datetime | None, limit: int = 300) -> Text:
    """One transcript line: its time, then the turn, the core event or the operation."""
    t, _, kind, i = row
    text = Text(f"{fmt_time(t, mode, t0, None):<12} ", P.style("dim"))
    if kind == "dialog":
        d = model.dialog[i]
        who = ""
        if isinstance(d, dict) and isinstance(d.get("parties"), list) and d["parties"]:
            ps = d["parties"]
            who = party_label(model, ps[0])
            # the listener too when it is an agent and the speaker does not say which: agent to
            # agent, or a turn to one of the several agents the user addresses
            if len(ps) == 2 and _is_agent(model, ps[1]) and (
                    _is_agent(model, ps[0]) or _several_agents(model)):
                who += " → " + party_label(model, ps[1])
        text.append(f"{P.CONTEXT_GLYPH['dialog']} {who}: ", P.style("context"))
        text.append(dialog_text(d, limit))
    elif kind == "event":
        e = model.events[i]
        text.append(f"{P.CONTEXT_GLYPH.get(e.type, P.UNKNOWN_GLYPH)} {safe(e.type)} ",
                    P.style("context"))
        text.append(party_label(model, e.raw.get("party")))
    else:
        op = model.operations[i]
        text.append(f"  {P.DECISION_GLYPH.get(op.decision, '?')} ",
                    P.decision_style(op.decision))
        text.append(safe(op.operation_id), "bold")
        text.append(f" {safe(op.target)} → {op.outcome}")
        if op.flags:
            text.append("  " + " ".join(P.FLAG_LABEL.get(f, f) for f in sorted(op.flags)
                                        if f in P.FLAG_LABEL), P.style("flag"))
    return text
