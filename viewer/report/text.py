"""Terminal summary (``summary --format text``) as Rich renderables.

Rich parses console markup in plain ``str`` arguments, so a tool output holding
``[@click=app.quit]`` or ``[link=...]`` would become live markup. Every value from the vCon is
therefore wrapped as ``Text(safe(value))`` (a Text is never parsed as markup), and styles are
passed as parameters, never spelled inside strings built from vCon data.
"""

from __future__ import annotations

import io
from collections.abc import Sequence

from rich.console import Console, Group, RenderableType
from rich.padding import Padding
from rich.text import Text

from viewer.model import spec
from viewer.model.types import Finding, Model, Operation
from viewer.parties import delegated_mark, lead_party
from viewer.report.evidence import standing_reason, time_texts
from viewer.report.summary import (
    OVERRIDE_NOTE,
    decision_reason,
    requested,
    selected,
    selected_findings,
)
from viewer.report.texttable import Col, WordTable
from viewer.signatures import SIGNATURES_SHOWN, describe, signature_details
from viewer.textsafe import safe, safe_short

SEVERITY_STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}
#: Signature statuses (``spec.SIGNATURE_STATUSES``) as colours.
STATUS_STYLE = {"verified": "green", "valid-signature-untrusted": "yellow", "invalid": "bold red",
                "unverifiable": "yellow"}
OUTCOME_STYLE = {
    "completed": "green", "failed": "red", "errored": "red", "denied": "magenta",
    "disallowed": "bold red", "not-performed": "dim",
}


def t(value: object, style: str = "") -> Text:
    """Untrusted value as a Text: escaped, never markup."""
    return Text(safe(value), style=style)


def _decision(value: str | None, life: str | None, event: int | None) -> Text:
    if value is None and event is None:
        return Text("none observed", style="dim")
    out = t(value or "(missing)", "bold red" if value == "disallowed" else "")
    extra = ", ".join(x for x in (safe(life), f"ev {event}" if event is not None else "") if x)
    if extra:
        out.append(f"\n({extra})", style="dim")
    return out


def _target(server: str | None, tool: str | None) -> Text:
    out = t(server if server is not None else "?")
    out.append("\n")
    out.append_text(t(tool) if tool is not None else Text("(all tools)", style="dim"))
    return out


def _attempts(op: Operation) -> Text:
    if not op.attempts:
        return Text("none", style="dim")
    out = Text()
    for i, a in enumerate(op.attempts):
        if i:
            out.append("\n")
        out.append(f"{a.number}: ")
        out.append_text(t(a.final_state or "-"))
        if a.late:
            out.append(f" late {len(a.late)}", style="yellow")
        if a.out_of_model:
            out.append(f" oom {len(a.out_of_model)}", style="yellow")
    return out


def _signature_rows(model: Model) -> list[tuple[str, Text]]:
    """One row per signature of every signed layer (the first few of many), by status colour."""
    sigs = model.source.signatures
    rows = [("Signature", t(signature_details(g), STATUS_STYLE.get(g.verified, "")))
            for g in sigs[:SIGNATURES_SHOWN]]
    if len(sigs) > SIGNATURES_SHOWN:
        rows.append(("Signature", Text(f"… and {len(sigs) - SIGNATURES_SHOWN} more (summary "
                                       "JSON: source.signatures)", style="dim")))
    return rows


def _header(model: Model, ops: Sequence[Operation], findings: Sequence[Finding]) -> Text:
    s = model.source
    out = Text()
    if s.critical_override:
        out.append(f"WARNING: {OVERRIDE_NOTE}\n", style="bold white on red")
    rows: list[tuple[str, str | Text]] = [
        ("File", s.file),
        ("SHA-256", s.sha256),
        ("Form", describe(s)),
        *_signature_rows(model),
        ("UUID", s.uuid or "(none)"),
        ("Extensions", ", ".join(s.extensions) or "(none)"),
    ]
    if s.critical:
        rows.append(("Critical", ", ".join(s.critical)))
    shown = str(len(ops))
    if len(ops) != len(model.operations):
        shown += f" of {len(model.operations)}"
    rows.append(("Operations", shown))
    for label, value in rows:
        out.append(f"{label + ':':<12}", style="bold")
        out.append_text(value if isinstance(value, Text) else t(value))
        if label == "Operations" and model.derivation is not None:  # not the file's events
            out.append(", ")
            out.append_text(t(model.derivation.line(), "yellow"))
        out.append("\n")
    by = model.counts(findings)
    out.append(f"{'Counts:':<12}", style="bold")
    for i, sev in enumerate(spec.SEVERITIES):
        if i:
            out.append(", ")
        out.append(f"{by[sev]} {sev}", style=SEVERITY_STYLE[sev] if by[sev] else "dim")
    return out


#: Operations in the text table: a terminal overview, not the record (Rich draws each row, so
#: a table of every operation of a big file takes minutes). The other formats list every one.
TABLE_MAX = 500
#: Findings and diagnostics listed in the text, likewise (severity order: errors come first).
LIST_MAX = 2000


def _op_id(model: Model, op: Operation, lead: int | None) -> Text:
    """The id, and under it ``↳ name`` when a sub-agent (not the lead agent) ran it."""
    out = t(op.operation_id)
    mark = delegated_mark(model, op, lead)
    if mark:
        out.append("\n")
        out.append_text(t(mark, "dim"))
    return out


#: The operations table's columns: ids and targets are identifiers (they may fold), the rest
#: words; on a narrow terminal outcome and flags, then decision and attempts, share a column.
_OP_COLS = (Col("#", justify="right"), Col("Operation ID", folds=True),
            Col("Server / tool", folds=True), Col("Decision"), Col("Attempts"), Col("Outcome"),
            Col("Flags"))
_OP_MERGES = (("Outcome", "Flags"), ("Decision", "Attempts"))
#: The standing decisions': a time is one word, a reason free text (a long word in it folds);
#: event and time, decision and its replacement share a column when narrow.
_STANDING_COLS = (Col("Event"), Col("Time"), Col("Target", folds=True), Col("Decision"),
                  Col("Reason", folds=True), Col("Replaced by"))
_STANDING_MERGES = (("Event", "Time"), ("Decision", "Replaced by"))


def _operations_table(model: Model, ops: Sequence[Operation]) -> WordTable:
    table = WordTable("Operations", _OP_COLS, merges=_OP_MERGES)
    lead = lead_party(model)
    for i, op in enumerate(ops, 1):
        table.add_row(
            Text(str(i)),
            _op_id(model, op, lead),
            _target(op.server, op.tool),
            _decision(op.decision, op.decision_life, op.decision_event),
            _attempts(op),
            t(op.outcome, OUTCOME_STYLE.get(op.outcome, "yellow")),
            Text("\n").join(t(f) for f in sorted(op.flags)),
        )
    return table


#: How much of a call's ``requested`` the text quotes: an overview (``--format json`` or
#: ``csv`` has it whole, Markdown and HTML up to ``--max-chars``).
REQUESTED_CHARS = 300


def _once_decisions(model: Model, ops: Sequence[Operation]) -> list[RenderableType]:
    """Each operation's once decision that says why (its ``reason``) or what a call that never
    ran asked for (``requested``), as the summary JSON has them: the id and decision, then
    those values indented (a wrapped line keeps the indent). ``ops``: the table's rows."""
    out: list[RenderableType] = []
    for op in ops:
        if not op.once_decisions:
            continue
        reason, asked = decision_reason(model, op), requested(model, op)
        if reason is None and asked is None:
            continue
        head = t(op.operation_id, "bold")
        head.append(" ")
        head.append_text(t(op.decision or "(missing)",
                           "bold red" if op.decision == "disallowed" else ""))
        head.append(f" (once, ev {op.decision_event})", style="dim")
        body = Text()
        if reason is not None:
            body.append("reason ", style="dim")
            body.append_text(t(reason))
        if asked is not None:
            if reason is not None:
                body.append("\n")
            body.append("requested (not run) ", style="dim")
            body.append_text(t(safe_short(asked, REQUESTED_CHARS)))
        out.append(Group(head, Padding(body, (0, 0, 0, 2), expand=False)))
    return out


def _finding(f: Finding) -> Text:
    out = Text()
    out.append(f"{f.severity:<8}", style=SEVERITY_STYLE.get(f.severity, ""))
    out.append_text(t(f.kind, "bold"))
    where = []
    if f.operation_id is not None:
        where.append(f"op {safe_short(f.operation_id)}")
    if f.attempt is not None:
        where.append(f"attempt {f.attempt}")
    if f.events:
        where.append("ev " + ",".join(map(str, f.events)))
    if where:
        out.append(" [")
        out.append_text(t(" ".join(where)))
        out.append("]")
    out.append(" ")
    out.append_text(t(f.message))
    return out


def render_text(model: Model, operations: Sequence[Operation] | None = None) -> RenderableType:
    """Header, operations table, standing decisions, findings and diagnostics as one Group."""
    ops = selected(model, operations)
    findings = selected_findings(model, operations)
    parts: list[RenderableType] = [_header(model, ops, findings), Text()]
    if ops:
        parts.append(_operations_table(model, ops[:TABLE_MAX]))
        if len(ops) > TABLE_MAX:
            parts.append(Text(
                f"… and {len(ops) - TABLE_MAX:,} more operations: the text table shows the first "
                f"{TABLE_MAX:,} (about 2 ms a row to draw); --format md, csv or json list all "
                "of them.", style="yellow"))
    else:
        parts.append(Text("No operations.", style="dim"))
    said = _once_decisions(model, ops[:TABLE_MAX])  # what the table's rows were refused for
    if said:
        parts += [Text(), Text("Once decisions", style="bold underline"), *said]
    if model.standing:
        table = WordTable("Standing decisions", _STANDING_COLS, merges=_STANDING_MERGES)
        # a step on the importers' synthetic clock, as the other reports say it
        when = time_texts(model, [d.time for d in model.standing])
        for d, w in zip(model.standing, when, strict=True):
            table.add_row(
                Text(str(d.event)), t(w),
                _target(d.server, d.tool),
                t(d.decision, "bold red" if d.decision == "disallowed" else ""),
                t(standing_reason(model, d)),
                Text("" if d.replaced_by is None else str(d.replaced_by)),
            )
        parts += [Text(), table]
    parts += [Text(), Text("Findings", style="bold underline")]
    ordered = sorted(findings, key=lambda f: spec.SEVERITY_RANK.get(f.severity, 9))
    parts += [_finding(f) for f in ordered[:LIST_MAX]] or [Text("none", style="dim")]
    if len(ordered) > LIST_MAX:
        parts.append(_more(len(ordered), "findings"))
    parts += [Text(), Text("Diagnostics", style="bold underline")]
    diags = sorted(model.diagnostics, key=lambda d: spec.SEVERITY_RANK.get(d.severity, 9))
    for d in diags[:LIST_MAX]:
        line = Text()
        line.append(f"{d.severity:<8}", style=SEVERITY_STYLE.get(d.severity, ""))
        line.append_text(t(d.code, "bold"))
        line.append(" ")
        line.append_text(t(d.pointer or "(document)", "dim"))  # as Markdown and HTML
        line.append(" ")
        line.append_text(t(d.message))
        parts.append(line)
    if not diags:
        parts.append(Text("none", style="dim"))
    elif len(diags) > LIST_MAX:
        parts.append(_more(len(diags), "diagnostics"))
    return Group(*parts)


def _more(n: int, what: str) -> Text:
    return Text(f"… and {n - LIST_MAX:,} more {what} (the text lists the first {LIST_MAX:,}, "
                "errors first); --format md or json, or `check`, list all of them.",
                style="yellow")


def to_text(model: Model, operations: Sequence[Operation] | None = None, *,
            width: int = 120) -> str:
    """Plain text (no colour, no escapes) of ``render_text``, for files and tests."""
    console = Console(file=io.StringIO(), width=width, color_system=None, force_terminal=False,
                      record=True, legacy_windows=False, emoji=False, highlight=False)
    console.print(render_text(model, operations))
    return console.export_text(styles=False)
