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
import re
from collections.abc import Iterator, Sequence

from viewer.model.types import Model, Operation
from viewer.parties import op_party, party_name
from viewer.report.summary import rfc3339, selected
from viewer.signatures import overall
from viewer.textsafe import is_safe, safe

COLUMNS = (
    "operation_id", "operation", "server", "tool", "decision", "decision_life",
    "decision_event", "outcome", "attempt", "start", "end", "final_state", "states", "events",
    "late", "out_of_model", "attempt_decision", "attempt_decision_life",
    "attempt_decision_event", "escalated", "flags", "party", "produced_under_override",
    "signature",  # the file's provenance last, on every row
)
_FORMULA_START = "=+-@"
_STARTS = tuple(_FORMULA_START)
#: A formula-looking start inside a row's strings joined by spaces: the first character of
#: any value but the first (a space inside a value can only add a false alarm).
_FORMULA_AFTER_SPACE = re.compile(f" [{re.escape(_FORMULA_START)}]")


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


def cells(values: Sequence[object]) -> list[str]:
    """``[cell(v) for v in values]``, with one check of the whole row.

    A string that holds no character ``safe`` escapes and does not start like a formula is its
    own cell; when the row's strings, joined by spaces, show neither, they all stand as they
    are (each value is checked as part of its row, not escaped cell by cell); else every value
    goes through ``cell``. Values that are not strings always do.
    """
    texts = [v if type(v) is str else cell(v) for v in values]
    row = " ".join(texts)
    if is_safe(row) and not row.startswith(_STARTS) and _FORMULA_AFTER_SPACE.search(row) is None:
        return texts
    return [cell(v) for v in values]


def _ints(values: Sequence[int]) -> str:
    return " ".join(map(str, values))


def _rows(model: Model, operations: Sequence[Operation] | None) -> Iterator[list[str]]:
    """The data rows: the operation's cells once per operation, an attempt's per attempt."""
    # file-level provenance on every row: the weakest status of every signature of every layer
    source = [True if model.source.critical_override else None,
              overall(model.source) or "unsigned"]
    names: dict[int | None, str] = {}
    no_attempt = cells([None] * 12)
    for op in selected(model, operations):
        head = cells([op.operation_id, op.operation, op.server, op.tool, op.decision,
                      op.decision_life, op.decision_event, op.outcome])
        p = op_party(model, op)
        party = names.get(p)
        if party is None:
            party = names[p] = party_name(model, p)
        tail = cells([party, *source])
        if not op.attempts:
            yield head + no_attempt + cells([" ".join(sorted(op.flags))]) + tail
        for a in op.attempts:
            yield head + cells([
                a.number, rfc3339(a.start), rfc3339(a.end), a.final_state,
                " > ".join(s or "" for s in a.states), _ints(a.events), _ints(a.late),
                _ints(a.out_of_model), a.decision, a.decision_life, a.decision_event,
                a.escalated, " ".join(sorted(a.flags)),
            ]) + tail


def to_csv(model: Model, operations: Sequence[Operation] | None = None) -> str:
    """The CSV text (RFC 4180, CRLF line ends), header row first."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\r\n")
    w.writerow(COLUMNS)
    w.writerows(_rows(model, operations))
    return buf.getvalue()
