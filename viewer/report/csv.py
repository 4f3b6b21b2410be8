"""CSV export: one row per attempt, for spreadsheets and quick scripting.

Each row also carries the file's provenance that a row of a spreadsheet of many files needs:
``produced_under_override`` and ``signature`` (``unsigned``, or the weakest status of every
signature of every layer, as ``--require-signature`` reads it), and ``party``: who ran the
operation (``viewer.parties``), so a sub-agent's calls are not taken for the lead agent's.

Every cell is untrusted text made safe twice: ``textsafe.safe`` escapes control, bidi and
invisible characters visibly, and a cell that a spreadsheet would read as a formula (starting
with ``=``, ``+``, ``-`` or ``@``) gets a leading ``'`` so it stays text (raw tabs and CRs,
which some spreadsheets skip before a formula, are already escaped by ``safe``). The summary
JSON is the exact export; this one is for eyes and spreadsheets.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence

from viewer.model.types import Attempt, Model, Operation
from viewer.parties import op_party, party_name
from viewer.report.summary import rfc3339, selected
from viewer.signatures import overall
from viewer.textsafe import safe

COLUMNS = (
    "operation_id", "operation", "server", "tool", "decision", "decision_life",
    "decision_event", "outcome", "attempt", "start", "end", "final_state", "states", "events",
    "late", "out_of_model", "attempt_decision", "attempt_decision_life",
    "attempt_decision_event", "escalated", "flags", "party", "produced_under_override",
    "signature",  # the file's provenance last, on every row
)
_FORMULA_START = "=+-@"


def cell(value: object) -> str:
    """One CSV cell: safe text, with a formula-looking start neutralised by a leading '."""
    if value is None:
        return ""
    kind = type(value)
    if kind is bool:
        return "true" if value else "false"
    if kind is int:
        return str(value)  # numbers (including negative ones we never emit) are not formulas
    text = safe(value)
    if text and text[0] in _FORMULA_START:
        return "'" + text
    return text


def _ints(values: Sequence[int]) -> str:
    return " ".join(str(v) for v in values)


def _row(model: Model, op: Operation, a: Attempt | None, signature: str, party: str
         ) -> list[str]:
    row: list[object] = [
        op.operation_id, op.operation, op.server, op.tool, op.decision, op.decision_life,
        op.decision_event, op.outcome,
    ]
    if a is None:
        row += [None] * 12 + [" ".join(sorted(op.flags))]
    else:
        row += [
            a.number, rfc3339(a.start), rfc3339(a.end), a.final_state,
            " > ".join(s or "" for s in a.states), _ints(a.events), _ints(a.late),
            _ints(a.out_of_model), a.decision, a.decision_life, a.decision_event, a.escalated,
            " ".join(sorted(a.flags)),
        ]
    row += [party, True if model.source.critical_override else None, signature]
    return [cell(v) for v in row]


def to_csv(model: Model, operations: Sequence[Operation] | None = None) -> str:
    """The CSV text (RFC 4180, CRLF line ends), header row first."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\r\n")
    w.writerow(COLUMNS)
    # file-level provenance on every row: the weakest status of every signature of every layer
    signature = overall(model.source) or "unsigned"
    for op in selected(model, operations):
        party = party_name(model, op_party(model, op))
        if not op.attempts:
            w.writerow(_row(model, op, None, signature, party))
        for a in op.attempts:
            w.writerow(_row(model, op, a, signature, party))
    return buf.getvalue()
