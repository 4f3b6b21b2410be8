"""Markdown incident report: what a reviewer pastes into a ticket.

Everything from the vCon goes through ``md()``: ``textsafe.safe`` first (no control, bidi or
invisible character, no newline that would end a table row), then a backslash before every
character that could start Markdown or HTML structure (``|`` would split a table cell, a
backtick open code, ``[`` a link, ``<`` raw HTML, ``&`` an entity that renders a bidi control).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from viewer.model import spec
from viewer.model.types import Attempt, Finding, Model, Operation
from viewer.report.summary import OVERRIDE_NOTE, rfc3339, selected, selected_findings
from viewer.signatures import SIGNATURES_SHOWN, describe, signature_details
from viewer.textsafe import safe_short

#: A report cell quotes at most this much of one recorded value.
MD_CHARS = 1000

_MD_SPECIAL = "\\`*_[]<>|~&#!{}"
_MD_TABLE = str.maketrans({c: "\\" + c for c in _MD_SPECIAL})
_HEADINGS = {"error": "Errors", "warning": "Warnings", "info": "Info"}


#: What a Markdown renderer turns into a live link without any markup (GFM autolinks): a
#: scheme followed by "://", "www.", an e-mail address. Defanged as security reports do
#: ("https[:]//", "www[.]", "a[@]b.example"), so a recorded URL reads as what it is and is
#: never one click away.
_AUTOLINK = re.compile(
    r"(?i)(?<=[a-z0-9+.-])(:)(?=//)|(?<![\w.])(www)(\.)|(?<=[\w.+-])(@)(?=[\w-]+\.)")


def _defang(m: re.Match[str]) -> str:
    if m.group(1):
        return "[:]"
    if m.group(2):
        return m.group(2) + "[.]"
    return "[@]"


def md(value: object) -> str:
    """Untrusted value as inert Markdown text (one line, no structure, no autolink), at most
    ``MD_CHARS`` characters (the summary JSON has the exact values)."""
    text = safe_short(value, MD_CHARS)
    if not text:
        return ""
    if ":" in text or "www" in text.lower() or "@" in text:
        text = _AUTOLINK.sub(_defang, text)
    return text.translate(_MD_TABLE)


def _row(cells: Iterable[str]) -> str:
    return "| " + " | ".join(c if c else " " for c in cells) + " |"


def _table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> list[str]:
    lines = [_row(header), _row("---" for _ in header)]
    lines += [_row(r) for r in rows]
    return lines


def _ints(values: Sequence[int]) -> str:
    return ", ".join(str(v) for v in values)


def _decision(value: str | None, life: str | None, event: int | None) -> str:
    if value is None and event is None:
        return "none observed"
    where = ", ".join(x for x in (md(life), f"event {event}" if event is not None else "") if x)
    return f"{md(value) or '(missing)'} ({where})" if where else md(value)


def _attempts_cell(op: Operation) -> str:
    if not op.attempts:
        return "none"
    return "; ".join(f"{a.number}: {md(a.final_state) or '-'}" for a in op.attempts)


def _form(model: Model) -> str:
    """The form and the signature status (``viewer.signatures.describe``)."""
    return md(describe(model.source))


def _signature_rows(model: Model) -> list[list[str]]:
    """One header row per signature of every signed layer (the first few of many)."""
    sigs = model.source.signatures
    rows = [["Signature", md(signature_details(g))] for g in sigs[:SIGNATURES_SHOWN]]
    if len(sigs) > SIGNATURES_SHOWN:
        rows.append(["Signature", f"… and {len(sigs) - SIGNATURES_SHOWN} more (summary JSON: "
                                  "source.signatures)"])
    return rows


def _counts(findings: Sequence[Finding], model: Model) -> str:
    by = {k: 0 for k in spec.SEVERITIES}
    for f in findings:
        by[f.severity] += 1
    for d in model.diagnostics:
        by[d.severity] += 1
    return ", ".join(f"{n} {sev}" for sev, n in by.items())


def _finding_line(f: Finding) -> str:
    where = []
    if f.operation_id is not None:
        where.append(f"operation {md(f.operation_id)}")
    if f.attempt is not None:
        where.append(f"attempt {f.attempt}")
    if f.events:
        where.append(("event " if len(f.events) == 1 else "events ") + _ints(f.events))
    loc = f" ({', '.join(where)})" if where else ""
    return f"- **{md(f.kind)}**{loc}: {md(f.message)}"


def _attempt_row(op: Operation, a: Attempt) -> list[str]:
    return [
        md(op.operation_id), str(a.number), md(rfc3339(a.start)), md(rfc3339(a.end)),
        " → ".join(md(s) for s in a.states), _ints(a.events),
        _decision(a.decision, a.decision_life, a.decision_event),
        _ints(a.late), _ints(a.out_of_model), md(" ".join(sorted(a.flags))),
    ]


def to_markdown(model: Model, operations: Sequence[Operation] | None = None) -> str:
    """The incident report as Markdown text."""
    s = model.source
    ops = selected(model, operations)
    findings = selected_findings(model, operations)
    out: list[str] = ["# vcon-view incident report", ""]
    if s.critical_override:
        out += [f"> **WARNING: {md(OVERRIDE_NOTE)}.** Unsupported critical extensions: "
                f"{md(', '.join(s.unsupported_critical)) or 'none'}.", ""]
    shown = f"{len(ops)}" if operations is None else f"{len(ops)} of {len(model.operations)}"
    out += _table(
        ["Source", ""],
        [
            ["File", md(s.file)],
            ["SHA-256", md(s.sha256)],
            ["Form", _form(model)],
            *_signature_rows(model),
            ["UUID", md(s.uuid) or "(none)"],
            ["Extensions", md(", ".join(s.extensions)) or "(none)"],
            ["Critical", md(", ".join(s.critical)) or "(none)"],
            ["Operations", shown + (f", {md(model.derivation.line())}"
                                    if model.derivation is not None else "")],
            ["Findings and diagnostics", _counts(findings, model)],
        ],
    )
    out += ["", "## Operations", ""]
    if ops:
        out += _table(
            ["#", "Operation ID", "Target", "Decision", "Attempts", "Outcome", "Flags"],
            (
                [
                    str(i), md(op.operation_id), md(op.target),
                    _decision(op.decision, op.decision_life, op.decision_event),
                    _attempts_cell(op), md(op.outcome), md(" ".join(sorted(op.flags))),
                ]
                for i, op in enumerate(ops, 1)
            ),
        )
        rows = [_attempt_row(op, a) for op in ops for a in op.attempts]
        if rows:
            out += ["", "### Attempts", ""]
            out += _table(
                ["Operation ID", "Attempt", "Start", "End", "States", "Events", "Decision",
                 "Late", "Out of model", "Flags"],
                rows,
            )
    else:
        out.append("No operations.")
    out += ["", "## Standing decisions", ""]
    if model.standing:
        out += _table(
            ["Event", "Time", "Server", "Tool", "Decision", "Reason", "Replaced by"],
            (
                [str(d.event), md(rfc3339(d.time)), md(d.server), md(d.tool) or "(all tools)",
                 md(d.decision), md(d.reason), "" if d.replaced_by is None else str(d.replaced_by)]
                for d in model.standing
            ),
        )
    else:
        out.append("None.")
    out += ["", "## Findings", ""]
    out += _grouped(findings, _finding_line)
    out += ["", "## Diagnostics", ""]
    out += _grouped(
        model.diagnostics,
        lambda d: f"- **{md(d.code)}** at {md(d.pointer) or '(document)'}: {md(d.message)}",
    )
    return "\n".join(out) + "\n"


def _grouped(items: Sequence[Any], line: Callable[[Any], str]) -> list[str]:
    """Items under one heading per severity, errors first, model order within."""
    if not items:
        return ["None."]
    out: list[str] = []
    for sev in spec.SEVERITIES:
        group = [i for i in items if i.severity == sev]
        if group:
            if out:
                out.append("")
            out += [f"### {_HEADINGS[sev]} ({len(group)})", ""]
            out += [line(i) for i in group]
    return out
