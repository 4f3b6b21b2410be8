"""`?`: every key, the filter tokens and the glyph legend (glyphs read from palette.py)."""

from __future__ import annotations

from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from viewer.model import spec
from viewer.tui import palette as P

KEYS: tuple[tuple[str, str], ...] = (
    ("j / k, ↓ / ↑", "next / previous operation (in the detail: attempt)"),
    ("h / l, ← / →", "previous / next attempt (in the detail: event)"),
    ("g / G, home / end", "first / last operation"),
    ("pgdn / pgup", "a page of operations (in the detail: page the content; space too)"),
    ("enter", "open the attempt / event detail"),
    ("escape", "back; on the timeline: clear the filter"),
    ("n / N", "next / previous finding from the selected operation (within the filter)"),
    ("f", "findings and diagnostics (enter selects one on the timeline)"),
    ("c", "context: what was said and done, operations in time order"),
    ("/", "filter (tokens below); enter applies, escape cancels"),
    ("t", "time mode: absolute, relative to the start, delta to previous"),
    ("+ / - / 0", "zoom the time axis in / out / fit (a zoom centres on the selected attempt)"),
    ("H / L, shift+← / →", "pan the zoomed time axis left / right"),
    ("d", "diff the arguments with the previous attempt"),
    ("r", "raw view of the event exactly as recorded"),
    ("a", "in the detail: show all of a long content"),
    ("y", "copy the selected operation (timeline) or event (detail)"),
    ("e", "export a report or summary (md, html, json, csv)"),
    ("ctrl+p", "command palette: go to operation, findings, export, theme"),
    ("?", "this help"),
    ("q", "quit"),
)

FILTER_TOKENS: tuple[tuple[str, str], ...] = (
    ("tool:NAME", "tool name (exact, or a glob with *)"),
    ("server:TEXT", "server name contains TEXT"),
    ("outcome:failed", "outcome; alternatives with | (completed|failed)"),
    ("decision:disallowed", "governing decision of any attempt, or none"),
    ("flag:late", "a finding, by any name in the table below (late, dup, decided-late, "
                  "late-response...); alternatives with |"),
    ("attempts:>1", "number of attempts: >, <, >=, <=, ="),
    ("id:TEXT", "operation_id contains TEXT"),
    ("free text", "matched against ids, servers, tools and content"),
)


def help_text() -> Table:
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold")
    grid.add_column()
    grid.add_row(Text("Keys", style="bold underline"), "")
    for k, v in KEYS:
        grid.add_row(k, v)
    grid.add_row("", "")
    grid.add_row(Text("Filter tokens (combine)", style="bold underline"), "")
    for k, v in FILTER_TOKENS:
        grid.add_row(k, v)
    grid.add_row("", "")
    grid.add_row(Text("Lane glyphs", style="bold underline"), "")
    for t, g in P.EVENT_GLYPH.items():
        state = spec.TOOL_TRANSITIONS[t][1]
        label = state if state in spec.STATES else "state unchanged" if state == spec.UNCHANGED \
            else "back to the state before input"
        grid.add_row(Text(g, style=P.state_style(state if state in spec.STATES else None)),
                     f"{t} → {label}")
    grid.add_row("─ / ┄", "attempt in the colour of its state / unterminated (runs on)")
    for d, g in P.DECISION_GLYPH.items():
        grid.add_row(Text(g, style=P.decision_style(d)),
                     f"policy decision {d or 'none observed'}")
    grid.add_row("underlined / reversed", "late response / out-of-model event")
    grid.add_row("bold reversed", "the selected attempt")
    grid.add_row("◆2, ·5", "marks sharing one cell: the weightiest shown, then how many")
    for k, g in P.CONTEXT_GLYPH.items():
        grid.add_row(Text(g, style=P.style("context")), f"context: {k}")
    grid.add_row("", "")
    grid.add_row(Text("Findings", style="bold underline"),
                 "row label: other names (flag: and --fail-on take them all) · severity")
    for kind in spec.FINDING_TABLE:
        other = ", ".join(spec.finding_names(kind)[1:])
        line = Text(f"{other} · " if other else "")
        line.append(kind.severity, P.style(f"severity:{kind.severity}"))
        if kind.row is None:
            line.append(" · findings screen only", P.style("dim"))
        grid.add_row(kind.label, line)
    return grid


class HelpScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,question_mark", "app.pop_screen", "Close", id="help.close"),
    ]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help"):
            yield Static(help_text())
