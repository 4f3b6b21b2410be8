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
from operator import attrgetter
from typing import Any

from viewer.model.types import Model, Operation
from viewer.parties import op_party, party_name
from viewer.report.evidence import rfc3339_column
from viewer.report.formats import PIECE_LINES
from viewer.report.summary import selected
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


#: The cell of None, and of each bool (``cell``; ``cells`` maps whole runs through them).
_EMPTY: dict[object, str] = {None: ""}
_BOOLS = {True: "true", False: "false"}


def cell(value: object) -> str:
    """One CSV cell: safe text, with a formula-looking start neutralised by a leading '."""
    if value is None:
        return _EMPTY[None]
    kind = type(value)
    if kind is bool:
        return _BOOLS[value]  # type: ignore[index]
    if kind is int:
        return str(value)  # numbers (including negative ones we never emit) are not formulas
    text = safe(value)
    if text and text[0] in _FORMULA_START:
        return "'" + text
    return text


_STR = frozenset({str})
_STR_NONE = frozenset({str, type(None)})
_INT_NONE = frozenset({int, type(None)})
_BOOL = frozenset({bool})


def cells(values: Sequence[object]) -> list[str]:
    """``[cell(v) for v in values]``, with one check of the values' strings together.

    A string that holds no character ``safe`` escapes and does not start like a formula is its
    own cell; when the strings, joined by spaces, show neither, they all stand as they are
    (checked together, not escaped one by one); else every value goes through ``cell``.
    Values that are not strings always do.
    """
    # ``cell`` of None, of an int and of a bool, made in C (map) for a run of those alone:
    # ``_EMPTY.get(v, text)`` is ``cell(None)`` for None, ``text`` for anything else
    kinds = set(map(type, values))
    if kinds <= _STR:
        texts = list(values)
    elif kinds <= _STR_NONE:
        texts = list(map(_EMPTY.get, values, values))
    elif kinds <= _INT_NONE:
        texts = list(map(_EMPTY.get, values, map(str, values)))
    elif kinds <= _BOOL:
        texts = list(map(_BOOLS.__getitem__, values))
    else:
        texts = [v if type(v) is str else cell(v) for v in values]
    block = " ".join(texts)
    if is_safe(block) and not block.startswith(_STARTS) and \
            _FORMULA_AFTER_SPACE.search(block) is None:
        return texts
    return [cell(v) for v in values]


#: A column is checked in runs of this many values: one value that needs escaping sends only
#: its run through ``cell`` one value at a time.
RUN = 256


def column(values: Sequence[object]) -> list[str]:
    """``[cell(v) for v in values]`` for one column, by ``cells`` over runs of ``RUN``."""
    if len(values) <= RUN:
        return cells(values)
    out: list[str] = []
    for i in range(0, len(values), RUN):
        out += cells(values[i:i + RUN])
    return out


def _ints(values: Sequence[int]) -> str:
    return " ".join(map(str, values))


class _NoAttempt:
    """The row of an operation without any attempt: every attempt field None (empty cells)."""

    __slots__ = ()
    number = start = end = final_state = states = events = late = out_of_model = None
    decision = decision_life = decision_event = escalated = None


_NO_ATTEMPT = _NoAttempt()


def _columns(model: Model, operations: Sequence[Operation] | None) -> list[list[str]]:
    """The cells, column by column: one row per attempt, and one for an operation without
    any. Recorded values repeat down a column (servers, tools, states), and a column is one
    kind of value, so each is checked in bulk (``column``) rather than cell by cell."""
    pairs = [(op, a) for op in selected(model, operations)
             for a in (op.attempts or (_NO_ATTEMPT,))]
    ops = [op for op, _ in pairs]
    atts = [a for _, a in pairs]
    names: dict[int | None, str] = {}
    parties = []
    for op in ops:
        p = op_party(model, op)
        name = names.get(p)
        if name is None:
            name = names[p] = party_name(model, p)
        parties.append(name)

    def of_ops(name: str) -> list[Any]:
        return list(map(attrgetter(name), ops))

    def of_attempts(name: str) -> list[Any]:
        """Each row's attempt's ``name``; None for an operation without any."""
        return list(map(attrgetter(name), atts))

    # file-level provenance on every row: the weakest status of every signature of every layer
    override, signature = cells([True if model.source.critical_override else None,
                                 overall(model.source) or "unsigned"])
    return [
        column(of_ops("operation_id")),
        column(of_ops("operation")),
        column(of_ops("server")),
        column(of_ops("tool")),
        column(of_ops("decision")),
        column(of_ops("decision_life")),
        column(of_ops("decision_event")),
        column(of_ops("outcome")),
        column(of_attempts("number")),
        column(rfc3339_column(of_attempts("start"))),
        column(rfc3339_column(of_attempts("end"))),
        column(of_attempts("final_state")),
        column([None if s is None else " > ".join([x or "" for x in s])
                for s in of_attempts("states")]),
        column([None if e is None else _ints(e) for e in of_attempts("events")]),
        column([None if e is None else _ints(e) for e in of_attempts("late")]),
        column([None if e is None else _ints(e) for e in of_attempts("out_of_model")]),
        column(of_attempts("decision")),
        column(of_attempts("decision_life")),
        column(of_attempts("decision_event")),
        column(of_attempts("escalated")),
        column([" ".join(sorted((op if a is _NO_ATTEMPT else a).flags)) for op, a in pairs]),
        column(parties),
        [override] * len(pairs),
        [signature] * len(pairs),
    ]


#: What makes csv quote a field (QUOTE_MINIMAL): the delimiter, the quote character, a line
#: break. ``safe`` has escaped every CR and LF of a cell; they are here for the check's sake.
_QUOTED_IF = (",", '"', "\r", "\n")


def _needs_quotes(text: str) -> bool:
    return any(q in text for q in _QUOTED_IF)


def _quoted(cells: list[str]) -> list[str]:
    """Each cell as the csv module writes it inside a row: written as rows of two fields (the
    second empty, so a lone empty field is never special) and split back at ",\n" (a
    quoted cell can hold a comma but never a line break)."""
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows([(c, "") for c in cells])
    return buf.getvalue().split(",\n")[:-1]


def csv_rows(columns: Sequence[list[str]]) -> str:
    """``csv.writer(lineterminator="\\r\\n").writerows(zip(*columns))`` for columns of
    cells (``cell`` output: no line break), two or more of them: a column none of whose
    cells needs quoting is joined as it is, any other column is quoted by the csv module
    (``_quoted``), and the rows are joined once."""
    lines = _row_lines(columns)
    return "\r\n".join(lines) + "\r\n" if lines else ""


def _row_lines(columns: Sequence[list[str]]) -> list[str]:
    """The rows of ``csv_rows``, each without its line end."""
    cols = [_quoted(c) if _needs_quotes(" ".join(c)) else c for c in columns]
    if not cols or not cols[0]:
        return []
    return [",".join(row) for row in zip(*cols, strict=True)]


def _header() -> str:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\r\n").writerow(COLUMNS)
    return buf.getvalue()


def to_csv(model: Model, operations: Sequence[Operation] | None = None) -> str:
    """The CSV text (RFC 4180, CRLF line ends), header row first."""
    return _header() + csv_rows(_columns(model, operations))


def csv_pieces(model: Model, operations: Sequence[Operation] | None = None
               ) -> Iterator[bytes]:
    """``to_csv`` as UTF-8 pieces: the header, then ``PIECE_LINES`` rows at a time (a big
    export is never one string, and then its UTF-8 copy as well). The rows are all made
    before the first piece is asked for, as with ``to_csv``."""
    return _pieces(_header(), _row_lines(_columns(model, operations)))


def _pieces(header: str, rows: list[str]) -> Iterator[bytes]:
    yield header.encode("utf-8", "replace")
    for i in range(0, len(rows), PIECE_LINES):
        yield ("\r\n".join(rows[i:i + PIECE_LINES]) + "\r\n").encode("utf-8", "replace")
