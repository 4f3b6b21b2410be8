"""CSV export: one row per attempt, for spreadsheets and quick scripting.

Each row also carries the file's provenance that a row of a spreadsheet of many files needs:
``produced_under_override`` and ``signature`` (``unsigned``, or the weakest status of every
signature of every layer, as ``--require-signature`` reads it), and ``party``: who ran the
operation (``viewer.parties``), so a sub-agent's calls are not taken for the lead agent's,
then ``decision_reason`` and ``requested``: what a refused or never-run call asked for and why,
as the summary JSON has them (compact JSON for a recorded object).

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
from collections.abc import Iterable, Iterator, Sequence
from itertools import chain, repeat
from operator import attrgetter
from typing import Any

from viewer.model.types import Model, Operation
from viewer.parties import op_party, party_name
from viewer.report.evidence import time_texts
from viewer.report.formats import PIECE_LINES
from viewer.report.summary import decision_reason, requested, selected
from viewer.signatures import overall
from viewer.textsafe import is_safe, safe

COLUMNS = (
    "operation_id", "operation", "server", "tool", "decision", "decision_life",
    "decision_event", "outcome", "attempt", "start", "end", "final_state", "states", "events",
    "late", "out_of_model", "attempt_decision", "attempt_decision_life",
    "attempt_decision_event", "escalated", "flags", "party",
    # why the operation's once decision was made, and what a call that never ran asked for
    # (``summary.decision_reason``, ``summary.requested``)
    "decision_reason", "requested",
    "produced_under_override", "signature",  # the file's provenance last, on every row
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
    texts = _texts(values)
    return texts if _inert(" ".join(texts)) else [cell(v) for v in values]


#: ``cell`` of None and of each bool, for a run of those alone.
_BOOL_NONE_CELLS = {**_EMPTY, **_BOOLS}
_BOOL_NONE = frozenset({bool, type(None)})


def _texts(values: Sequence[object]) -> list[str]:
    """Each value's cell if it is a string that needs nothing (the value itself), None, an int
    or a bool; any other value through ``cell``."""
    # ``cell`` of None, of an int and of a bool, made in C (map) for a run of those alone:
    # ``_EMPTY.get(v, text)`` is ``cell(None)`` for None, ``text`` for anything else
    kinds = set(map(type, values))
    if kinds <= _STR:
        return list(values)  # type: ignore[arg-type]
    if kinds <= _STR_NONE:
        return list(map(_EMPTY.get, values, values))  # type: ignore[arg-type]
    if kinds <= _INT_NONE:
        return list(map(_EMPTY.get, values, map(str, values)))  # type: ignore[arg-type]
    if kinds <= _BOOL_NONE:  # (True and False are 1 and 0 to a dict: bools and None only)
        return list(map(_BOOL_NONE_CELLS.__getitem__, values))  # type: ignore[arg-type]
    return [v if type(v) is str else cell(v) for v in values]


def _inert(block: str) -> bool:
    """True when no string of the values joined by spaces in ``block`` holds a character
    ``safe`` escapes or starts like a formula (a space inside a value can only add a false
    alarm)."""
    return is_safe(block) and not block.startswith(_STARTS) and \
        _FORMULA_AFTER_SPACE.search(block) is None


#: A column is checked in runs of this many values: one value that needs escaping sends only
#: its run through ``cell`` one value at a time.
RUN = 256


def column(values: Sequence[object]) -> list[str]:
    """``[cell(v) for v in values]`` for one column: checked whole (``cells``' check), and
    when that fails, by ``cells`` over runs of ``RUN``."""
    return _column(values)[0]


def _column(values: Sequence[object]) -> tuple[list[str], str | None]:
    """``column(values)``, and the cells joined by spaces when they were checked whole (the
    check passed), else None."""
    try:  # strings alone, or strings and None: joined without a look at each one's type
        try:
            block = " ".join(values)  # type: ignore[arg-type]
            texts = list(values)  # type: ignore[arg-type]
        except TypeError:
            texts = list(map(_EMPTY.get, values, values))  # type: ignore[arg-type]
            block = " ".join(texts)
    except TypeError:  # another type (or one no dict can hold)
        texts = _texts(values)
        block = " ".join(texts)
    if _inert(block):
        return texts, block
    if len(values) <= RUN:
        return [cell(v) for v in values], None
    out: list[str] = []
    for i in range(0, len(values), RUN):
        out += cells(values[i:i + RUN])
    return out, None


def _written(values: Sequence[object]) -> list[str]:
    """The column's cells (``column``) as the csv module writes them (``_quoted_column``)."""
    texts, block = _column(values)
    if block is not None and not _needs_quotes(block):
        return texts
    return _quoted_column(texts)


class _NoAttempt:
    """The row of an operation without any attempt: every attempt field None or empty (an
    empty cell either way); its flags are the operation's (``_columns``)."""

    __slots__ = ()
    number = start = end = final_state = None
    decision = decision_life = decision_event = escalated = flags = None
    steps = late = out_of_model = ()


_NO_ATTEMPT = _NoAttempt()
_ONLY_NO_ATTEMPT = (_NO_ATTEMPT,)
_ATTEMPTS = attrgetter("attempts")
#: The columns of the operation, then of the attempt (its states and events in between).
_OP_FIELDS = ("operation_id", "operation", "server", "tool", "decision", "decision_life",
              "decision_event", "outcome")


def _ints(values: Sequence[int]) -> str:
    return " ".join(map(str, values))


def _columns(model: Model, operations: Sequence[Operation] | None) -> list[list[str]]:
    """Each row in three parts, written (cells quoted where the csv module quotes them): the
    operation's columns, the attempt's, and the operation's party, its decision's reason and
    request, with the file's provenance.
    One row per attempt, and one for an operation without any; the operation's parts are
    made once per operation and repeated on each of its rows. Each part is built column by
    column: recorded values repeat down a column (servers, tools, states), and a column is one
    kind of value, so each is checked whole (``column``) rather than cell by cell."""
    ops = selected(model, operations)
    counts = [len(a) or 1 for a in map(_ATTEMPTS, ops)]
    atts = list(chain.from_iterable([op.attempts or _ONLY_NO_ATTEMPT for op in ops]))
    # each row's operation (by position), unless every operation has one row
    row_op = None if len(atts) == len(ops) else \
        list(chain.from_iterable(map(repeat, range(len(ops)), counts)))

    def spread(values: list[Any]) -> list[Any]:
        return values if row_op is None else list(map(values.__getitem__, row_op))

    def field(name: str, items: Sequence[Any]) -> list[Any]:
        return list(map(attrgetter(name), items))

    names: dict[int | None, str] = {}
    parties = []
    for op in ops:
        p = op_party(model, op)
        name = names.get(p)
        if name is None:
            name = names[p] = party_name(model, p)
        parties.append(name)
    flags = field("flags", atts)
    if None in flags:  # an operation without attempts: its own flags
        op_flags = spread(field("flags", ops))
        flags = [o if f is None else f for f, o in zip(flags, op_flags, strict=True)]
    try:  # each distinct set of flags written once
        flag_text = {f: " ".join(sorted(f)) for f in dict.fromkeys(flags)}
        flag_texts = list(map(flag_text.__getitem__, flags))
    except TypeError:  # unhashable: a model built by hand
        flag_texts = [" ".join(sorted(f)) for f in flags]
    # file-level provenance on every row: the weakest status of every signature of every layer
    provenance = ",".join(_quoted_column(cells([
        True if model.source.critical_override else None,
        overall(model.source) or "unsigned"])))
    heads = _joined_rows([_written(field(name, ops)) for name in _OP_FIELDS])
    middles = _joined_rows([
        _written(field("number", atts)),
        # as every report shows them: RFC 3339, or steps when the times give the order only
        _written(time_texts(model, field("start", atts))),
        _written(time_texts(model, field("end", atts))),
        _written(field("final_state", atts)),
        _written([" > ".join([s.after or "" for s in a.steps]) for a in atts]),
        _written([" ".join([str(s.event) for s in a.steps]) for a in atts]),
        _written([_ints(e) if e else "" for e in field("late", atts)]),
        _written([_ints(e) if e else "" for e in field("out_of_model", atts)]),
        _written(field("decision", atts)),
        _written(field("decision_life", atts)),
        _written(field("decision_event", atts)),
        _written(field("escalated", atts)),
        _written(flag_texts),
    ])
    tails = list(map(",".join, zip(_written(parties), _said(model, ops), repeat(provenance))))
    return [spread(heads), middles, spread(tails)]


def _said(model: Model, ops: Sequence[Operation]) -> Iterable[str]:
    """Each operation's ``decision_reason`` and ``requested`` cells, written and joined by a
    comma. Most operations have no once decision: two empty cells, with nothing read or
    checked for them."""
    once = [i for i, op in enumerate(ops) if op.once_decisions]
    if not once:
        return repeat(",")
    said = [","] * len(ops)
    chosen = [ops[i] for i in once]
    reasons = _written([decision_reason(model, op) for op in chosen])
    asked = _written([requested(model, op) for op in chosen])
    for i, cells in zip(once, map(",".join, zip(reasons, asked, strict=True)), strict=True):
        said[i] = cells
    return said


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
    return _joined_rows([_quoted_column(c) for c in columns])


def _quoted_column(cells: list[str]) -> list[str]:
    """A column of cells as the csv module writes them: as they are when none needs quoting
    (``_needs_quotes``), else each through ``_quoted``. A column that repeats its cells is
    quoted once per distinct cell."""
    if not _needs_quotes(" ".join(cells)):
        return cells
    distinct = list(dict.fromkeys(cells))
    if len(distinct) == len(cells):
        return _quoted(cells)
    made = dict(zip(distinct, _quoted(distinct), strict=True))
    return list(map(made.__getitem__, cells))


def _joined_rows(columns: Sequence[list[str]]) -> list[str]:
    """Each row of the columns (cells as written, quoted where needed) joined by commas."""
    if not columns or not columns[0]:
        return []
    return list(map(",".join, zip(*columns, strict=True)))


def _header() -> str:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\r\n").writerow(COLUMNS)
    return buf.getvalue()


def to_csv(model: Model, operations: Sequence[Operation] | None = None) -> str:
    """The CSV text (RFC 4180, CRLF line ends), header row first."""
    rows = _joined_rows(_columns(model, operations))
    return _header() + ("\r\n".join(rows) + "\r\n" if rows else "")


def csv_pieces(model: Model, operations: Sequence[Operation] | None = None
               ) -> Iterator[bytes]:
    """``to_csv`` as UTF-8 pieces: the header, then ``PIECE_LINES`` rows at a time (a big
    export is never one string, and then its UTF-8 copy as well). The rows are all made
    before the first piece is asked for, as with ``to_csv``."""
    return _pieces(_header(), _joined_rows(_columns(model, operations)))


def _pieces(header: str, rows: list[str]) -> Iterator[bytes]:
    yield header.encode("utf-8", "replace")
    for i in range(0, len(rows), PIECE_LINES):
        yield ("\r\n".join(rows[i:i + PIECE_LINES]) + "\r\n").encode("utf-8", "replace")
