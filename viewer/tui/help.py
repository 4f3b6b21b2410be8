"""`?`: every key (read from the BINDINGS), the filter tokens and the glyph legend (glyphs
read from palette.py)."""

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
from viewer.tui.rows import COLUMN_KEYS

#: What a key does, in words, by its binding's id: the keys themselves are read from the
#: screens' BINDINGS (``key_rows``), so the help cannot name a key that does something
#: else. A binding without an entry here is listed with its footer label.
ABOUT: dict[str, str] = {
    "timeline.down": "next operation",
    "timeline.up": "previous operation",
    "timeline.attempt_prev": "previous attempt",
    "timeline.attempt_next": "next attempt",
    "timeline.page_down": "a page of operations down",
    "timeline.page_up": "a page of operations up",
    "timeline.first": "first operation",
    "timeline.last": "last operation",
    "timeline.detail": "open the attempt / event detail",
    "timeline.raw": "raw view of the event exactly as recorded",
    "timeline.next_finding": "next finding from the selected operation (within the filter)",
    "timeline.prev_finding": "previous finding",
    "timeline.findings": "findings and diagnostics (enter selects one on the timeline)",
    "timeline.context": "context: what was said and done, operations in time order",
    "timeline.filter": "filter (tokens below); enter applies, escape cancels",
    "timeline.clear_filter": "clear the filter",
    "timeline.time_mode": "time mode: absolute, relative to the start, delta to previous",
    "timeline.zoom_in": "zoom the time axis in (centred on the selected attempt)",
    "timeline.zoom_out": "zoom the time axis out",
    "timeline.fit": "fit the time axis to the whole record",
    "timeline.pan_left": "pan the zoomed time axis left",
    "timeline.pan_right": "pan the zoomed time axis right",
    "timeline.diff": "diff the arguments with the previous attempt",
    "timeline.copy": "copy the selected operation",
    "timeline.export": "export a report or summary (md, html, json, csv)",
    "timeline.help": "this help",
    "timeline.toggle_attempts": "fold / unfold the selected operation's attempts (sub-lanes)",
    **{f"timeline.hide_{name}": f"hide / show the {name} column"
       for name in COLUMN_KEYS.values()},
    "detail.back": "back to the timeline",
    "detail.event_prev": "previous event",
    "detail.event_next": "next event",
    "detail.attempt_next": "next attempt",
    "detail.attempt_prev": "previous attempt",
    "detail.raw": "raw view of the event exactly as recorded",
    "detail.all": "show all of a long content (again: the next part)",
    "detail.diff": "diff the arguments with the previous attempt",
    "detail.copy": "copy the selected event",
    "detail.next_finding": "next finding",
    "detail.prev_finding": "previous finding",
    "detail.time_mode": "time mode",
    "detail.page_down": "page the content down",
    "detail.page_up": "page the content up",
    "rowlist.down": "next line",
    "rowlist.up": "previous line",
    "rowlist.page_down": "a page down",
    "rowlist.page_up": "a page up",
    "rowlist.first": "first line",
    "rowlist.last": "last line",
    "rowlist.select": "select it on the timeline",
    "export.cancel": "cancel (in the file name: back to the keys)",
    "export.close": "close the dialog (the viewer stays)",
    "export.write": "write the file (from anywhere in the dialog)",
    "export.scope_all": "scope: all operations",
    "export.scope_filtered": "scope: the operations the filter shows",
    "export.scope_selected": "scope: the selected operation",
    "app.quit": "quit",
    "app.help": "this help",
}

#: How a key is written in the help (Textual's names otherwise).
KEY_NAMES: dict[str, str] = {
    "down": "↓", "up": "↑", "left": "←", "right": "→", "shift+left": "shift+←",
    "shift+right": "shift+→", "question_mark": "?", "slash": "/", "plus": "+",
    "equals_sign": "=", "minus": "-", "pagedown": "pgdn", "pageup": "pgup",
}


def key_label(keys: str) -> str:
    """A binding's keys as the help writes them: ``"j,down"`` -> ``"j / ↓"``."""
    return " / ".join(KEY_NAMES.get(k.strip(), k.strip()) for k in keys.split(","))


def key_rows() -> list[tuple[str, list[tuple[str, str]]]]:
    """(section, [(keys, what they do)]) from the screens' and the App's BINDINGS."""
    from textual.binding import Binding

    from viewer.tui.app import VconViewApp
    from viewer.tui.detail import DetailScreen
    from viewer.tui.export import ExportScreen, format_keys
    from viewer.tui.rowlist import RowList
    from viewer.tui.timeline import TimelineScreen

    sections: list[tuple[str, list[tuple[str, str]]]] = []
    for title, owner in (("Timeline", TimelineScreen), ("Detail (enter)", DetailScreen),
                         ("Findings (f) and context (c)", RowList),
                         ("Export (e)", ExportScreen), ("Everywhere", VconViewApp)):
        rows = [(key_label(b.key), ABOUT.get(b.id or "", b.description))
                for b in owner.BINDINGS if isinstance(b, Binding)
                and not (owner is not VconViewApp and b.action.startswith("app.help"))]
        if owner is ExportScreen:
            rows[1:1] = [(" / ".join(format_keys()),
                          "format: " + ", ".join(format_keys().values()))]
            rows.append(("tab", "edit the file name"))
        if owner is VconViewApp:
            rows.append(("ctrl+p", "command palette: go to operation, findings, export, theme"))
        sections.append((title, rows))
    return sections


FILTER_TOKENS: tuple[tuple[str, str], ...] = (
    ("tool:NAME", "tool name (exact, or a glob with *)"),
    ("server:TEXT", "server name contains TEXT"),
    ("outcome:failed", "outcome; alternatives with | (completed|failed)"),
    ("decision:disallowed", "governing decision of any attempt, or none"),
    ("flag:late", "a finding, by any name in the table below (late, dup, decided-late, "
                  "late-response...); alternatives with |"),
    ("attempts:>1", "number of attempts: >, <, >=, <=, ="),
    ("id:TEXT", "operation_id contains TEXT"),
    ("party:NAME", "run by a party whose name contains NAME, or by its index (a sub-agent's "
                   "work)"),
    ("free text", "matched against ids, servers, tools and content"),
)


def help_text() -> Table:
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold")
    grid.add_column()
    for title, rows in key_rows():
        grid.add_row(Text(f"Keys: {title}", style="bold underline"), "")
        for k, v in rows:
            grid.add_row(k, v)
        grid.add_row("", "")
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
