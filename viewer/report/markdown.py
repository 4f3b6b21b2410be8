"""Markdown incident report: what a reviewer pastes into a ticket.

Everything from the vCon goes through ``md()``: ``textsafe.safe`` first (no control, bidi or
invisible character, no newline that would end a table row), then a backslash before every
character that could start Markdown or HTML structure (``|`` would split a table cell, a
backtick open code, ``[`` a link, ``<`` raw HTML, ``&`` an entity that renders a bidi control).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace
from itertools import islice
from operator import attrgetter
from typing import Any, NamedTuple

from viewer.glyphs import PARTY_GLYPH
from viewer.model import spec
from viewer.model.types import Finding, Model, Operation
from viewer.parties import delegated_mark, lead_party
from viewer.report.evidence import (
    DECISION,
    HOST_NOTE,
    NO_ARGUMENTS,
    NO_FINAL,
    NO_TURN,
    SCOPE,
    Cells,
    Evidence,
    Note,
    OperationEvidence,
    Quote,
    decision_cells,
    each_once,
    evidence,
    per_key,
    quote_lines,
    standing_reason,
    time_texts,
)
from viewer.report.formats import ReportOptions, line_pieces
from viewer.report.summary import selected, selected_findings
from viewer.textsafe import is_safe, safe, safe_short

#: A report cell quotes at most this much of one recorded value.
MD_CHARS = 1000

#: Markdown structure characters: ``backslash`` puts a backslash before each.
MD_SPECIAL = "\\`*_[]<>|~&#!{}"
#: (character, its escape), the backslash first: escaping it first means the backslashes the
#: later replacements add are never escaped again.
_MD_ESCAPES = tuple((c, "\\" + c) for c in sorted(MD_SPECIAL, key=lambda c: c != "\\"))
_HEADINGS = {"error": "Errors", "warning": "Warnings", "info": "Info"}


#: What a Markdown renderer turns into a live link without any markup (GFM autolinks): a
#: scheme followed by "://", "www.", an e-mail address. Defanged as security reports do
#: ("https[:]//", "www[.]", "a[@]b.example"), so a recorded URL reads as what it is and is
#: never one click away.
#: (The lookahead first says where any of them can start, which lets the regex engine skip to
#: those characters instead of trying the three at every position.)
_AUTOLINK = re.compile(
    r"(?i)(?=[:w@])"
    r"(?:(?<=[a-z0-9+.-])(:)(?=//)|(?<![\w.])(www)(\.)|(?<=[\w.+-])(@)(?=[\w-]+\.))")


def _defang(m: re.Match[str]) -> str:
    if m.group(1):
        return "[:]"
    if m.group(2):
        return m.group(2) + "[.]"
    return "[@]"


def md(value: object, limit: int = MD_CHARS) -> str:
    """Untrusted value as inert Markdown text (one line, no structure, no autolink), at most
    ``limit`` characters (the summary JSON has the exact values)."""
    text = safe_short(value, limit)
    return _markup(text) if text else ""


def _markup(text: str) -> str:
    """``md``'s steps after ``safe``: autolinks defanged (``_unlink``), then a backslash before
    each Markdown character (``backslash``). Each step works within a line (nothing it
    looks for spans a line break), so on safe values joined by line breaks it gives what it
    gives on each (``md_each``)."""
    return backslash(_unlink(text))


def _may_link(text: str) -> bool:
    """False when ``_AUTOLINK`` cannot match in ``text``."""
    # (the scheme alternative needs "://": a bare ":" of a time or a JSON object never
    # starts an autolink, and skipping the regex for it halves the cost of a big report)
    return "://" in text or "@" in text or _www(text)


def _www(text: str) -> bool:
    """Whether ``text`` holds "www" in any case. (Only "W" lowers to "w", so a text without
    one is not lowered: a copy of every quote, time and id saved.)"""
    return "www" in text or ("W" in text and "www" in text.lower())


def _unlink(text: str) -> str:
    """Every autolink of ``text`` defanged (``_AUTOLINK``)."""
    return _AUTOLINK.sub(_defang, text) if _may_link(text) else text


def backslash(text: str) -> str:
    """A backslash before every character of ``MD_SPECIAL`` in ``text``: one C-level
    ``str.replace`` per character present (a regex substitution calls back into Python for
    each match, ten times slower on a quoted JSON document); ``text`` itself when none is."""
    for c, escaped in _MD_ESCAPES:
        if c in text:
            text = text.replace(c, escaped)
    return text


def inert(text: str) -> bool:
    """True when no step of ``md`` changes ``text`` (given it is within the limit): no
    character ``safe`` escapes, nothing that starts an autolink, no Markdown character. Checked
    on several values joined by spaces, it is true only when it is true of each: a space is
    none of these, and breaks "://" and "www"."""
    return (is_safe(text) and "://" not in text and "@" not in text
            and not _www(text) and not any(map(text.__contains__, MD_SPECIAL)))


#: A column is checked in runs of this many values: one value that needs escaping sends only
#: its run through ``md`` one value at a time.
RUN = 256


def md_column(values: Sequence[object], once: Callable[[object], str]) -> list[str]:
    """``[once(v) for v in values]``, ``once`` being ``md`` at its default limit (or
    ``each_once(md)``): the strings of each run of ``RUN`` values are checked together
    (``inert`` on them joined by spaces, and their lengths), so a column of ids or times that
    needs no escaping is not escaped value by value. Values that are not strings always go
    through ``once``."""
    out: list[str] = []
    for i in range(0, len(values), RUN):
        run = values[i:i + RUN]
        texts = [v if type(v) is str else once(v) for v in run]
        if max(map(len, texts), default=0) <= MD_CHARS and inert(" ".join(texts)):
            out += texts
        else:
            out += [once(v) for v in run]
    return out


def md_each(texts: Sequence[str], limit: int | None = None) -> list[str]:
    """``[md(t, limit) for t in texts]`` for strings that are mostly distinct (quotes, times,
    sentences: no memo); ``limit`` None: each escaped whole (``md_whole``). In runs of
    ``RUN``: when a run's strings are within the limit and, joined by spaces, hold nothing
    ``safe`` escapes (so none holds a line break), they are joined by line breaks, marked up
    at once (``_markup``) and split again; any other run goes value by value."""
    out: list[str] = []
    for i in range(0, len(texts), RUN):
        run = texts[i:i + RUN]
        if (limit is None or max(map(len, run)) <= limit) and is_safe(" ".join(run)):
            text = "\n".join(run)
            if _may_link(text):  # the regex on the values that need it, not on all of them
                text = "\n".join(map(_unlink, run))
            out += backslash(text).split("\n")
        elif limit is None:
            out += list(map(md_whole, run))
        else:
            out += [md(t, limit) for t in run]
    return out


def md_whole(text: str) -> str:
    """``md`` of a value already cut to the report's length: escaped whole (its escapes, six
    characters for a bidi control, never cut it again short of that length)."""
    return _markup(safe(text)) if text else ""


def _row(cells: Iterable[str]) -> str:
    return "| " + " | ".join([c if c else " " for c in cells]) + " |"


def _table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> list[str]:
    lines = [_row(header), _row("---" for _ in header)]
    lines += [_row(r) for r in rows]
    return lines


def _ints(values: Sequence[int]) -> str:
    return ", ".join(map(str, values))


def _decision(value: str | None, value_md: str, life_md: str, event: int | None) -> str:
    """The decision cell from the decision (to tell "none" from "missing"), it and its life
    through ``md``, and its event."""
    if value is None and event is None:
        return "none observed"
    where = ", ".join(x for x in (life_md, f"event {event}" if event is not None else "") if x)
    return f"{value_md or '(missing)'} ({where})" if where else value_md


def _attempts_cells(m: Callable[[object], str], ops: Sequence[Operation]) -> list[str]:
    """Each operation's attempts in one cell: '1: Failed; 2: Completed' ('-' for an attempt
    without a state), 'none' without any. Every attempt's part is made in one go (its final
    state through ``md`` column-wise), then each operation takes its own."""
    counts = [len(op.attempts) for op in ops]
    atts = [a for op in ops for a in op.attempts]
    parts = iter(list(map("{}: {}".format, map(_NUMBER, atts),
                          [s or "-" for s in md_column(list(map(_FINAL_STATE, atts)), m)])))
    return [next(parts) if n == 1 else "; ".join(islice(parts, n)) if n else "none"
            for n in counts]


_NUMBER = attrgetter("number")
_FINAL_STATE = attrgetter("final_state")
_LATE = attrgetter("late")
_OUT_OF_MODEL = attrgetter("out_of_model")


def _finding_lines(m: Callable[[object], str], findings: Sequence[Finding],
                   anchors: dict[str, int] | None = None) -> list[str]:
    """One line per finding; the operation ids and messages (each nearly always distinct)
    are marked up column by column (``md_column``)."""
    ids = md_column([f.operation_id for f in findings], m)
    messages = md_column([f.message for f in findings], m)
    return [_finding_line(m, f, op_md, message, anchors)
            for f, op_md, message in zip(findings, ids, messages, strict=True)]


def _finding_line(m: Callable[[object], str], f: Finding, op_md: str, message: str,
                  anchors: dict[str, int] | None = None) -> str:
    """``op_md``, ``message``: its operation id and message through ``md``."""
    where = []
    if f.operation_id is not None:
        where.append(f"operation {op_md}")
    if f.attempt is not None:
        where.append(f"attempt {f.attempt}")
    if f.events:
        where.append(("event " if len(f.events) == 1 else "events ") + _ints(f.events))
    loc = f" ({', '.join(where)})" if where else ""
    pos = anchors.get(f.operation_id) if anchors and f.operation_id is not None else None
    link = f" → {_link(pos)}" if pos is not None else ""
    return f"- **{m(f.kind)}**{loc}: {message}{link}"


def _anchor(position: int) -> str:
    """The heading of an operation's evidence section; its slug (``operation-N``) is made of
    our own words only, so a link to it never depends on recorded text."""
    return f"Operation {position}"


def _link(position: int) -> str:
    return f"[evidence](#operation-{position})"


def _op_id(m: Callable[[object], str], op_md: str, mark: str) -> str:
    """The id (``op_md``: through ``md``), then `` ↳ name`` when a sub-agent (not the lead
    agent) ran it (``mark``: ``delegated_mark``)."""
    return op_md + (f" {m(mark)}" if mark else "")


def _column_table(header: Sequence[str], columns: Sequence[Sequence[str]]) -> list[str]:
    """``_table`` of the rows the columns make (cells already escaped): an empty cell is a
    space, as ``_row`` has it, then each row is one join."""
    cols = [[c if c else " " for c in col] if "" in col else col for col in columns]
    return [_row(header), _row("---" for _ in header),
            *map("| {} |".format, map(" | ".join, zip(*cols, strict=True)))]


def _decisions(m: Callable[[object], str],
               rows: Sequence[tuple[str | None, str | None, int | None]]) -> list[str]:
    """``_decision`` of each (decision, life, event): a report has a few distinct ones (the
    values, and the standing decisions that govern many attempts), each made once
    (``decision_cells``)."""
    return decision_cells(rows, lambda k: _decision(k[0], m(k[0]), m(k[1]), k[2]))


def _flags(m: Callable[[object], str], flags: Any) -> str:
    return m(" ".join(sorted(flags)))


def _states(m: Callable[[object], str], states: Sequence[object]) -> str:
    return " → ".join([m(s) for s in states])


class _OpCells(NamedTuple):
    """Each operation's cells through ``md``, by position in the report's operations: made
    once for the operations table and the operation's evidence section."""

    ids: list[str]
    targets: list[str]
    outcomes: list[str]
    flags: list[str]


def _op_cells(m: Callable[[object], str], ops: Sequence[Operation]) -> _OpCells:
    return _OpCells(
        md_column([op.operation_id for op in ops], m),
        _targets(m, ops),
        md_column([op.outcome for op in ops], m),
        per_key([op.flags for op in ops], lambda f: _flags(m, f)))


_SERVER_TOOL = attrgetter("server", "tool")


def _targets(m: Callable[[object], str], ops: Sequence[Operation]) -> list[str]:
    """Each operation's target through ``md``: a report has a few (server, tool) pairs, each
    target made once, from an operation that has it (``Operation.target``)."""
    keys = list(map(_SERVER_TOOL, ops))
    try:
        having = dict(zip(keys, ops, strict=True))
    except TypeError:  # unhashable: a model built by hand
        having = {}
    if not having or not all(v is None or type(v) is str for key in having for v in key):
        # (True and 1 are equal keys, and written otherwise: a model built by hand)
        return md_column([op.target for op in ops], m)
    return per_key(keys, lambda k: m(having[k].target))


def _operations_table(m: Callable[[object], str], ops: Sequence[Operation], cells: _OpCells,
                      marks: Sequence[str]) -> list[str]:
    """The operations table, built column by column (``md_column``); ``cells``: the
    operations' cells (``_op_cells``), ``marks``: each one's ``delegated_mark``."""
    return _column_table(
        ["#", "Operation ID", "Target", "Decision", "Attempts", "Outcome", "Flags"],
        [
            [str(i) for i in range(1, len(ops) + 1)],
            [_op_id(m, op_md, mark) for op_md, mark in zip(cells.ids, marks, strict=True)],
            cells.targets,
            _decisions(m, list(map(DECISION, ops))),
            _attempts_cells(m, ops),
            cells.outcomes,
            cells.flags,
        ],
    )


def _attempts_table(m: Callable[[object], str], model: Model, ops: Sequence[Operation],
                    ids: Sequence[str]
                    ) -> list[str]:
    """The attempts table, built column by column (``md_column``): ids and times are
    different on every row, so checking them in bulk is what saves the most. ``ids``: each
    operation's id through ``md``."""
    pairs = [(op_md, a) for op, op_md in zip(ops, ids, strict=True) for a in op.attempts]
    if not pairs:
        return []
    atts = [a for _, a in pairs]
    return ["", "### Attempts", "", *_column_table(
        ["Operation ID", "Attempt", "Start", "End", "States", "Events", "Decision", "Late",
         "Out of model", "Flags"],
        [
            [op_md for op_md, _ in pairs],
            list(map(str, map(_NUMBER, atts))),
            md_column(time_texts(model, [a.start for a in atts]), m),
            md_column(time_texts(model, [a.end for a in atts]), m),
            per_key([a.states for a in atts], lambda s: _states(m, s)),
            [", ".join([str(s.event) for s in a.steps]) for a in atts],  # _ints(a.events)
            _decisions(m, list(map(DECISION, atts))),
            [_ints(e) if e else "" for e in map(_LATE, atts)],
            [_ints(e) if e else "" for e in map(_OUT_OF_MODEL, atts)],
            per_key([a.flags for a in atts], lambda f: _flags(m, f)),
        ])]


def to_markdown(model: Model, operations: Sequence[Operation] | None = None,
                options: ReportOptions | None = None) -> str:
    """The incident report as Markdown text: provenance, operations, attempts, standing
    decisions, findings (each linked to its operation's evidence), diagnostics, evidence."""
    return "\n".join(markdown_lines(model, operations, options))


def markdown_pieces(model: Model, options: ReportOptions | None = None) -> Iterator[bytes]:
    """``to_markdown(model, None, options)`` as UTF-8 pieces (``formats.line_pieces``)."""
    return line_pieces(markdown_lines(model, None, options))


def markdown_lines(model: Model, operations: Sequence[Operation] | None = None,
                   options: ReportOptions | None = None) -> list[str]:
    """The lines of ``to_markdown``, the last one empty (the text ends with a line break)."""
    opts = options or ReportOptions()
    if operations is not None:
        opts = replace(opts, operations=operations)
    ev = evidence(model, opts)
    ops = selected(model, opts.operations)
    findings = selected_findings(model, opts.operations)
    m = each_once(md)  # a report repeats tools, servers, states and decisions by the thousand
    out: list[str] = ["# vcon-view incident report", ""]
    s = model.source
    if ev.provenance.override_note:
        out += [f"> **WARNING: {m(ev.provenance.override_note)}.** Unsupported critical "
                f"extensions: {m(', '.join(s.unsupported_critical)) or 'none'}.", ""]
    out += _table(["Provenance", ""], ([label, m(value)] for label, value in ev.provenance.rows))
    out += ["", "## Operations", ""]
    cells = _op_cells(m, ops)  # for the tables and the evidence
    ids = cells.ids
    if ops:
        lead = lead_party(model)
        marks = [delegated_mark(model, op, lead) for op in ops]
        if any(marks):
            out += [f"{PARTY_GLYPH} name: an operation run by another party than the lead agent "
                    "(a sub-agent).", ""]
        if any(op.server == spec.HOST_SERVER for op in ops):
            out += [md(HOST_NOTE), ""]
        out += _operations_table(m, ops, cells, marks)
        out += _attempts_table(m, model, ops, ids)
    else:
        out.append("No operations.")
    out += ["", "## Standing decisions", ""]
    if model.standing:
        # a step on the importers' synthetic clock, as every other time (``time_texts``)
        when = time_texts(model, [d.time for d in model.standing])
        out += _table(
            ["Event", "Time", "Server", "Tool", "Decision", "Reason", "Replaced by"],
            (
                [str(d.event), m(w), m(d.server), m(d.tool) or "(all tools)",
                 m(d.decision), m(standing_reason(model, d)),
                 "" if d.replaced_by is None else str(d.replaced_by)]
                for d, w in zip(model.standing, when, strict=True)
            ),
        )
    else:
        out.append("None.")
    out += ["", "## Findings", ""]
    out += _grouped(findings, _finding_lines(m, findings, ev.anchors))
    out += ["", "## Diagnostics", ""]
    out += _grouped(
        model.diagnostics,
        [f"- **{m(d.code)}** at {m(d.pointer) or '(document)'}: {m(d.message)}"
         for d in model.diagnostics],
    )
    out += ["", "## Evidence", ""]
    out += _evidence(m, model, ev, opts, cells)
    out.append("")  # the final line break
    return out


def _evidence(m: Callable[[object], str], model: Model, ev: Evidence, opts: ReportOptions,
              ops: _OpCells) -> list[str]:
    """``ops``: the cells of each operation of the report (``_op_cells``), in table order (an
    operation's evidence has its position there)."""
    if opts.evidence == "none":
        return ["Not quoted (--evidence none)."]
    out = [f"For {SCOPE[opts.evidence]}: the dialog turn before it, each attempt's "
           "arguments and final content decoded as the viewer shows them (one line, JSON "
           f"compact, a line break as ⏎), each cut at {opts.max_chars:,} characters, and the "
           "gaps in time."]
    if not ev.operations:
        out += ["", "No operation has a finding." if opts.evidence == "findings"
                else "No operations."]
    # The values that differ from one operation to the next (quotes, turns, gaps, times) are
    # marked up column by column (``md_each``, ``md_column``), then laid out in order.
    oes = ev.operations
    limit = opts.max_chars
    cells = Cells.of(
        oes, texts=md_each, gaps=lambda v: md_each(v, MD_CHARS),
        times=lambda v: md_column(v, m), quotes=lambda q: _quote_lines(q, limit),
        states=lambda x: _states(m, x), decisions=lambda d: _decisions(m, d),
        when=lambda ts: time_texts(model, ts))
    turns: dict[int, str] = {}  # each turn's lead, by dialog index: operations share turns
    for oe in oes:
        out += ["", *_operation_evidence(m, oe, limit, cells, ops, turns)]
    return out


def _quote_lines(quotes: Sequence[Quote], limit: int) -> list[str]:
    """'- lead: text' of each quote, on one line (``Quote.line``), cut at ``limit``."""
    lines = quote_lines(quotes, limit)
    leads = md_each([q.lead(full, limit) for q, (_, full) in zip(quotes, lines, strict=True)],
                    4 * limit)
    texts = md_each([text for text, _ in lines])
    return [f"- {lead}: {text}" + _note_lines(q.notes, limit) if q.notes else
            f"- {lead}: {text}" for q, lead, text in zip(quotes, leads, texts, strict=True)]


def _note_lines(notes: Sequence[Note], limit: int) -> str:
    """Each note on its own line after the one it belongs to (a newline first), or ''."""
    return "".join(f"\n- {md(n.lead(limit), 4 * limit)}: {md_whole(n.text)}"
                   for n in notes)


def _operation_evidence(m: Callable[[object], str], oe: OperationEvidence, limit: int,
                        cells: Cells, ops: _OpCells, turns: dict[int, str]) -> list[str]:
    """``ops``: the operations' cells (``_op_cells``); ``turns``: the turns' leads made so
    far (a turn's lead is the same in every section that quotes it)."""
    op = oe.operation
    at = oe.position - 1
    op_md = ops.ids[at]
    out = [f"### {_anchor(oe.position)}", ""]
    head = f"**{op_md}** · {ops.targets[at]} · outcome {ops.outcomes[at]}"
    if oe.party:
        head += f" · {m(oe.party)}"
    if op.flags:
        head += f" · flags {ops.flags[at]}"
    out += [head, ""]
    if oe.findings:
        out.append("- Findings: " + "; ".join([f"{m(f.kind)} ({m(f.severity)})"
                                               for f in oe.findings]))
    t = oe.turn
    if t is not None:
        lead = turns.get(t.index)
        if lead is None:
            who = f"{m(t.speaker)}: " if t.speaker else ""
            lead = turns[t.index] = f"- {m(t.lead(limit))}: {who}"
        out.append(lead + next(cells.said))
    else:
        out.append(f"- {NO_TURN}")
    gaps = cells.gaps
    out += [f"- {next(gaps)}" for _ in oe.gaps]
    if oe.requested is not None:
        out.append(next(cells.quotes))
    if not op.attempts and op.decision is not None:  # never ran: the decision its notes are of
        out.append(f"- Decision: {_decisions(m, [DECISION(op)])[0]}")
    if oe.decided:
        out += _note_lines(oe.decided, limit)[1:].split("\n")
    for ae in oe.attempts:
        a = ae.attempt
        states = next(cells.states) or "no events"
        out += ["", f"#### {op_md} attempt {a.number}: {states}", ""]
        out.append(f"- Decision: {next(cells.decisions)}"
                   + (f" · flags {m(' '.join(sorted(a.flags)))}" if a.flags else "")
                   + (_note_lines(ae.decided, limit) if ae.decided else ""))
        start, end = next(cells.starts), next(cells.ends)
        out.append(f"- Started {start or 'time unknown'}, "
                   + (f"ended {end}" if a.end else "did not end"))
        for q, missing in ((ae.invocation, NO_ARGUMENTS), (ae.final, NO_FINAL)):
            out.append(next(cells.quotes) if q is not None else f"- {missing}")
        if ae.between:
            out += _note_lines(ae.between, limit)[1:].split("\n")
    return out


def _grouped(items: Sequence[Any], lines: Sequence[str]) -> list[str]:
    """Items (``lines``: the line of each) under one heading per severity, errors first, model
    order within."""
    if not items:
        return ["None."]
    out: list[str] = []
    for sev in spec.SEVERITIES:
        group = [line for i, line in zip(items, lines, strict=True) if i.severity == sev]
        if group:
            if out:
                out.append("")
            out += [f"### {_HEADINGS[sev]} ({len(group)})", ""]
            out += group
    return out
