"""The evidence a report carries, as plain data the Markdown and HTML renderers share.

``provenance`` says which file the report describes (name, size, sha256, form, signatures),
which vcon-view made it, when, and with which options. ``evidence`` gives, per operation
(those with a finding; all with ``--evidence all``; none with ``--evidence none``), each
attempt's invocation arguments and final content decoded as the viewer decodes them
(``viewer.content``), the dialog turn just before the operation, and the gaps between attempts
and between a timeout and a late answer in words. Nothing here is escaped for a format: the
renderers cut each quote to ``ReportOptions.max_chars`` with ``Quote.block``/``Quote.line``
and escape it their own way. Pure: no rich, no textual.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from itertools import chain, pairwise
from operator import attrgetter
from typing import Any

import msgspec
import orjson

from viewer import __version__, jsonenc
from viewer.content import (
    DecodedText,
    decode_text,
    dialog_text,
    dialog_time,
    one_line,
    one_lines,
    order_only,
    requested_content,
    step_number,
    texts,
    turn_before,
    turn_speaker,
    view_span,
)
from viewer.model import spec
from viewer.model.types import (
    Attempt,
    Event,
    Finding,
    Model,
    Operation,
    Source,
    StandingDecision,
)
from viewer.parties import delegated_mark, delegated_party, lead_party
from viewer.report.formats import ReportOptions
from viewer.report.summary import (
    OVERRIDE_NOTE,
    requested_event,
    rfc3339,
    selected,
    selected_findings,
)
from viewer.signatures import SIGNATURES_SHOWN, describe, signature_details
from viewer.textsafe import safe

#: Event types whose content is an attempt's final answer, and what a report calls it.
FINAL_NAME = {"tool-result": "Result", "tool-failure": "Failure", "tool-error": "Error",
              "tool-denied": "Denial"}
FINAL_TYPES = tuple(FINAL_NAME)
#: What the reports say when a piece of evidence is not in the record.
NO_TURN = "Dialog turn before it: none recorded."
NO_ARGUMENTS = "Arguments: no tool-invocation recorded."
#: What the draft's server value for the host (``!host``) means, said under the operations of a
#: report that has one (README, *Importing agent traffic*: built-in tools are server ``!host``).
HOST_NOTE = ("!host: a tool built into the agent (its shell, file edits, web search...), "
             "not one of an MCP server.")
#: What a report calls a refused call's ``requested`` (README, *Importing agent traffic*).
REQUESTED = "Requested (not run)"
NO_FINAL = "Final content: no result, failure, error or denial recorded."
SCOPE = {"findings": "the operations with a finding", "all": "every operation"}


def each_once(escape: Callable[[object], str]) -> Callable[[object], str]:
    """``escape`` (a renderer's pure per-value rule: ``md``, ``h``) computed once per distinct
    string: a report quotes the same tools, servers, states and decisions again and again (the
    88k-operation bench file: 2 million Markdown cells, 415 thousand distinct values). Other
    values (None, numbers) go to ``escape`` every time, so ``True`` and ``1`` never share an
    entry. The memo lives as long as the function returned: make one per report."""
    memo: dict[str, str] = {}
    get = memo.get

    def once(value: object) -> str:
        if type(value) is not str:
            return escape(value)
        out = get(value)
        if out is None:
            out = memo[value] = escape(value)
        return out

    return once


#: A column of times is written in runs of this many values (``rfc3339_column``).
RUN = 256
_TZINFO = attrgetter("tzinfo")
_UTC_ONLY = {UTC}


def rfc3339_column(times: Sequence[datetime | None]) -> list[str | None]:
    """``[rfc3339(t) for t in times]``: a report's column of attempt starts or ends, a
    hundred thousand distinct times. A run of datetimes (None set aside) whose zone is UTC
    (as the model's times are) is written by orjson in C, as one JSON array, RFC 3339 with
    "Z" as ``rfc3339`` writes UTC (not ``datetime.isoformat`` value by value); the one
    difference from ``rfc3339`` is made on that text: a fraction that is whole milliseconds
    is written with six digits ending "000", ``rfc3339`` writes three. Any other run (another
    zone, naive times, another type) goes through ``rfc3339`` value by value."""
    out: list[str | None] = []
    for i in range(0, len(times), RUN):
        run = times[i:i + RUN]
        if None in run:
            present = [t for t in run if t is not None]
            texts = iter(rfc3339_column(present))
            out += [None if t is None else next(texts) for t in run]
            continue
        if run and set(map(type, run)) == _DATETIME and set(map(_TZINFO, run)) == _UTC_ONLY:
            text = orjson.dumps(run, option=orjson.OPT_UTC_Z).decode()
            if text.count('Z"') == len(run):
                out += text.replace('000Z"', 'Z"')[2:-2].split('","')
                continue
        out += map(rfc3339, run)
    return out


def time_texts(model: Model, times: Sequence[datetime | None]) -> list[str | None]:
    """A report's column of times: RFC 3339 (``rfc3339_column``), or "step N" counted from the
    start of ``view_span`` when the recording's times give the order only (``order_only``:
    the importers' synthetic clock, never a time anything happened), as the viewer shows them."""
    if not order_only(model):
        return rfc3339_column(times)
    t0 = view_span(model)[0]
    return [None if t is None or t0 is None else f"step {step_number(t, t0)}" for t in times]


_DATETIME = {datetime}


def per_key(keys: Iterable[Any], make: Callable[[Any], str]) -> list[str]:
    """``[make(k) for k in keys]``, ``make`` (pure) called once per distinct key: each key a
    tuple or frozenset (a row's decision, an attempt's states, its flags). A key is kept only
    when it holds nothing but str and None, which no value of another type is equal to (True
    and 1.0 are equal to 1, and are written otherwise); any other key, or one no dict can hold,
    is made every time."""
    keys = keys if isinstance(keys, list) else list(keys)
    try:
        distinct = list(dict.fromkeys(keys))
    except TypeError:  # unhashable: a model built by hand
        distinct = None
    if distinct is not None and all(all(map(_plain, key)) for key in distinct):
        # every key plain (the usual case): each distinct one made once, then looked up in C
        made = {key: make(key) for key in distinct}
        return list(map(made.__getitem__, keys))
    memo: dict[Any, str] = {}
    out: list[str] = []
    for key in keys:
        try:
            cell = memo[key]
        except KeyError:
            cell = make(key)
            if all(map(_plain, key)):
                memo[key] = cell
        except TypeError:  # unhashable: a model built by hand
            cell = make(key)
        out.append(cell)
    return out


#: (decision, life, event) of an operation or an attempt, read in C.
DECISION = attrgetter("decision", "decision_life", "decision_event")
_KEEP_NONE: dict[object, None] = {None: None}


def decision_keys(rows: Sequence[tuple[Any, Any, Any]]) -> list[tuple[Any, Any, Any]]:
    """Each (decision, life, event) with the event as written (``str``, as an f-string
    writes an int; None kept): a key ``per_key`` keeps, holding only str and None. Made
    column-wise in C; an event no dict can hold (a model built by hand) row by row."""
    if not rows:
        return []
    values, lives, events = zip(*rows, strict=True)
    try:
        return list(zip(values, lives, map(_KEEP_NONE.get, events, map(str, events)),
                        strict=True))
    except TypeError:
        return [(value, life, None if event is None else str(event))
                for value, life, event in rows]


_DECISION_TYPES = frozenset({str, int, type(None)})


def decision_cells(rows: Sequence[tuple[Any, Any, Any]],
                   make: Callable[[tuple[Any, Any, Any]], str]) -> list[str]:
    """``per_key(decision_keys(rows), make)``: each distinct (decision, life, event) made
    once. When every member of every row is a str, an int or None (no bool, no float: such
    rows are equal only when written alike), the rows are their own keys, with no text made
    of each event first; any other row set goes through ``decision_keys``. (The members of
    every row are looked at, not only of the distinct ones: ``(0, 0, False)`` is equal to
    ``(0, 0, 0)`` and would hide behind it.)"""
    try:
        distinct = dict.fromkeys(rows)
    except TypeError:  # unhashable: a model built by hand
        distinct = None
    if distinct is None or not _DECISION_TYPES.issuperset(
            map(type, chain.from_iterable(rows))):
        return per_key(decision_keys(rows), make)
    made = {key: make(key) for key in distinct}
    return list(map(made.__getitem__, rows))


def _plain(value: object) -> bool:
    return value is None or type(value) is str


def cut_note(full: int, limit: int) -> str:
    """' (first 2,000 of 12,518 characters)' for a quote cut at ``limit``, else ''."""
    return f" (first {limit:,} of {full:,} characters)" if full > limit else ""


def signature_status(source: Source) -> str:
    """The form and the signature status in one line (``viewer.signatures.describe``):
    'signed, 1 layer: valid-signature-untrusted (CN=..., RS256)', 'unsigned'."""
    return describe(source)


def signature_rows(source: Source) -> list[tuple[str, str]]:
    """One provenance row per signature of every signed layer (the first few of many)."""
    sigs = source.signatures
    rows = [("Signature", signature_details(g)) for g in sigs[:SIGNATURES_SHOWN]]
    if len(sigs) > SIGNATURES_SHOWN:
        rows.append(("Signature", f"… and {len(sigs) - SIGNATURES_SHOWN} more (summary JSON: "
                                  "source.signatures)"))
    return rows


class Provenance(msgspec.Struct, frozen=True, gc=False):
    """What the report describes and how it was made: (label, value) rows, values not yet
    escaped, and the override note when the report was made under --ignore-critical."""

    rows: tuple[tuple[str, str], ...]
    override_note: str | None
    sha256: str


def counts(findings: Sequence[Finding], model: Model) -> str:
    """'1 error, 7 warning, 5 info': the findings reported and the file's diagnostics."""
    by = model.counts(findings)
    return ", ".join(f"{n} {sev}" for sev, n in by.items())


def provenance(model: Model, opts: ReportOptions) -> Provenance:
    s = model.source
    ops = selected(model, opts.operations)
    shown = (f"{len(ops)}" if opts.operations is None
             else f"{len(ops)} of {len(model.operations)} (a selection)")
    if model.derivation is not None:
        shown += f", {model.derivation.line()}"
    evidence = {
        "findings": "for the operations with a finding",
        "all": "for every operation",
        "none": "none quoted",
    }[opts.evidence]
    rows = [
        ("File", s.file),
        ("Size", f"{s.size:,} bytes"),
        ("SHA-256", s.sha256),
        ("Form", signature_status(s)),
        *signature_rows(s),
        ("UUID", s.uuid or "(none)"),
        ("Extensions", ", ".join(s.extensions) or "(none)"),
        ("Critical", ", ".join(s.critical) or "(none)"),
        ("Operations", shown),
        ("Findings and diagnostics", counts(selected_findings(model, opts.operations), model)),
        ("Made by", f"vcon-view {__version__} ({opts.made_by})"),
        ("Made at", rfc3339(opts.when()) or "?"),
        ("Options", " ".join(opts.command) or "(defaults)"),
        ("Evidence", evidence if opts.evidence == "none" else
         f"{evidence}; each value quoted up to {opts.max_chars:,} characters"),
    ]
    note = OVERRIDE_NOTE if s.critical_override else None
    return Provenance(tuple(rows), note, s.sha256)


# --- quotes ------------------------------------------------------------------------------------


class Quote(msgspec.Struct, frozen=True, gc=False):
    """One event's content as decoded by the viewer, with where it came from. (A Struct, as
    ``AttemptEvidence`` and ``OperationEvidence``: a report makes them by the ten thousand, and
    a frozen dataclass takes ten times as long to make; none holds anything that leads back to
    it, so the collector need not track them.)"""

    event: int
    event_type: str
    decoded: DecodedText
    late: bool = False
    notes: tuple[Note, ...] = ()  # what is said about the event beside its content

    @property
    def label(self) -> str:
        return self.decoded.label

    @property
    def name(self) -> str:
        """'Arguments' for an invocation, 'Requested (not run)' for what a refused call asked
        for (its decision's ``requested``), else the kind of answer ('Result', 'Failure'...)."""
        if self.event_type == "tool-invocation":
            return "Arguments"
        if self.event_type == spec.POLICY_DECISION:
            return REQUESTED
        return FINAL_NAME.get(self.event_type, "Answer")

    def lead(self, full: int, limit: int) -> str:
        """'Result (event 17, tool-result, late; json, application/json)' and the cut note;
        not yet escaped (the label and type are recorded text)."""
        late = ", late" if self.late else ""
        # an empty recorded value is said, not left as nothing after the colon
        empty = "; empty" if full == 0 and self.decoded.kind != "none" else ""
        return (f"{self.name} (event {self.event}, {self.event_type}{late}; {self.label}{empty})"
                + cut_note(full, limit))

    def block(self, limit: int) -> tuple[str, int]:
        """(the text as the viewer lays it out, cut to ``limit`` characters; its full length).
        Not yet safe: pass it through ``textsafe.safe_block``."""
        text = self.decoded.text
        return text[:limit], len(text)

    def line(self, limit: int) -> tuple[str, int]:
        """(the text on one line, cut to ``limit``; its full length). Not yet safe."""
        text = self.decoded.one_line()
        return text[:limit], len(text)


def quote_lines(quotes: Sequence[Quote], limit: int) -> list[tuple[str, int]]:
    """``[q.line(limit) for q in quotes]``, the lines made together (``one_lines``)."""
    return [(text[:limit], len(text)) for text in one_lines([q.decoded for q in quotes])]


def quote_blocks(quotes: Sequence[Quote], limit: int) -> list[tuple[str, int]]:
    """``[q.block(limit) for q in quotes]``, the texts laid out together (``texts``)."""
    return [(text[:limit], len(text)) for text in texts([q.decoded for q in quotes])]


#: What a report calls what is said about an event beside its content, as the viewer's detail
#: shows it: who decided and why (``reason``), what the importer inferred where the recording is
#: silent (``inferred``; README, *Importing agent traffic*), and a trace's annotations.
NOTE_LABELS = (("reason", "Reason"), ("inferred", "Inferred by the importer"))
ANNOTATION = "Annotation"


class Note(msgspec.Struct, frozen=True, gc=False):
    """One thing said about an event: 'Reason (event 21)' and its words."""

    event: int
    label: str
    text: str  # one line (a line break as ⏎), cut to the report's quote length; not yet safe
    chars: int  # its full length

    def lead(self, limit: int) -> str:
        return f"{self.label} (event {self.event})" + cut_note(self.chars, limit)


def _note(index: int, label: str, value: object, limit: int) -> Note:
    # a recorded value of any depth or size: jsonenc.dumps writes what orjson cannot
    text = one_line(value if isinstance(value, str) else jsonenc.dumps(value).decode())
    return Note(index, label, text[:limit], len(text))


def event_notes(model: Model, index: int | None, limit: int) -> tuple[Note, ...]:
    """What the event at ``index`` says about itself besides its content (``NOTE_LABELS``, then
    each annotation's ``content``), each cut at ``limit``."""
    if index is None or not 0 <= index < len(model.events):
        return ()
    return _notes(index, model.events[index].raw, limit)


_NOTE_KEYS = frozenset([*(key for key, _ in NOTE_LABELS), "annotations"])


def _notes(index: int, raw: Any, limit: int) -> tuple[Note, ...]:
    """``event_notes`` of the event at ``index``, its value ``raw`` (read once by the caller)."""
    if type(raw) is dict and _NOTE_KEYS.isdisjoint(raw):  # most events: nothing said
        return ()
    out = [_note(index, label, raw[key], limit) for key, label in NOTE_LABELS
           if raw.get(key) not in (None, "")]
    said = raw.get("annotations")
    for a in said if isinstance(said, list) else ():
        content = a.get("content") if isinstance(a, dict) else None
        if content not in (None, ""):
            out.append(_note(index, ANNOTATION, content, limit))
    return tuple(out)


def standing_reason(model: Model, d: StandingDecision) -> str:
    """A standing decision's reason, and what the importer inferred of it (``inferred``: a
    Codex approval_policy read as a standing decision) after ' · ', not yet escaped; an
    inference in the reason's own words (Claude Code's permissionMode rules) is said once, as
    '(inferred by the importer)'."""
    raw = model.events[d.event].raw if 0 <= d.event < len(model.events) else {}
    why = raw.get("inferred")
    said = "" if d.reason is None else d.reason if isinstance(d.reason, str) else safe(d.reason)
    if isinstance(why, str) and why:
        if why == said:
            said += " (inferred by the importer)"
        else:
            said += (" · " if said else "") + f"inferred by the importer: {why}"
    return said


def _quote(model: Model, index: int | None, late: bool = False,
           limit: int = 0) -> Quote | None:
    if index is None or not 0 <= index < len(model.events):
        return None
    ev = model.events[index]
    raw = ev.raw
    return Quote(index, ev.type, decode_text(raw), late, _notes(index, raw, limit))


# --- per operation -----------------------------------------------------------------------------


class Turn(msgspec.Struct, frozen=True, gc=False):
    """The dialog turn just before an operation (what the agent was asked)."""

    index: int
    time: str | None
    speaker: str  # safe
    text: str  # safe, one line, cut to the report's quote length
    chars: int  # its full length

    def lead(self, limit: int) -> str:
        """'Dialog turn before it (dialog 3, 2026-04-02T09:00:18.797Z)' and the cut note."""
        return (f"Dialog turn before it (dialog {self.index}, {self.time or 'time unknown'})"
                + cut_note(self.chars, limit))


class AttemptEvidence(msgspec.Struct, frozen=True, gc=False):
    number: int
    attempt: Attempt
    invocation: Quote | None  # the arguments
    final: Quote | None  # the last result, failure, error or denial
    decided: tuple[Note, ...] = ()  # its once decision's reason and what was inferred of it
    between: tuple[Note, ...] = ()  # what is said of its other events (a cancel, a progress)


class OperationEvidence(msgspec.Struct, frozen=True, gc=False):
    position: int  # 1-based position in the report's operations table: the section's anchor
    operation: Operation
    findings: tuple[Finding, ...]
    turn: Turn | None
    attempts: tuple[AttemptEvidence, ...]
    gaps: tuple[str, ...]  # sentences, already safe
    party: str = ""  # "↳ name" (safe) when a sub-agent, not the lead agent, ran it
    requested: Quote | None = None  # what a call that never ran asked for (its decision's)
    decided: tuple[Note, ...] = ()  # a call that never ran: why (its once decision's notes)


class Evidence(msgspec.Struct, frozen=True, gc=False):
    provenance: Provenance
    operations: tuple[OperationEvidence, ...]
    #: operation_id -> position, for every operation with a section (findings link there)
    anchors: dict[str, int]


def duration(seconds: float) -> str:
    """A gap in words: '250 ms', '15.5 s', '2 min 3 s', '1 h 4 min'."""
    s = abs(seconds)
    if s < 1:
        out = f"{s * 1000:.0f} ms"
    elif s < 60:
        out = f"{s:.1f} s".replace(".0 s", " s")
    elif s < 3600:
        out = f"{int(s // 60)} min {s % 60:.0f} s"
    else:
        out = f"{int(s // 3600)} h {int(s % 3600 // 60)} min"
    return ("minus " if seconds < 0 else "") + out


def _gap(a: datetime | None, b: datetime | None) -> str | None:
    if a is None or b is None:
        return None
    return duration((b - a).total_seconds())


def _event(model: Model, index: int | None) -> Event | None:
    """The event at ``index``, or None (a model built by hand may name events it lacks)."""
    if index is None or not 0 <= index < len(model.events):
        return None
    return model.events[index]


def _final_event(events: Sequence[Event], a: Attempt) -> tuple[int, bool] | None:
    n = len(events)
    for step in reversed(a.steps):
        i = step.event
        if 0 <= i < n and events[i].type in FINAL_TYPES:  # (``_event``, inline)
            return i, step.late
    return None


def _state_at(model: Model, a: Attempt, order: int) -> str | None:
    """The state ``a`` was in just before the event at replay position ``order``."""
    state = None
    events = model.events
    n = len(events)
    for step in a.steps:
        i = step.event
        if not 0 <= i < n or events[i].order >= order:  # (``_event``, inline)
            break
        state = step.after
    return state


def gaps(model: Model, op: Operation) -> list[str]:
    """The time between attempts, and between a timeout (or cancel) and a late answer."""
    out: list[str] = []
    atts = op.attempts
    for prev, a in pairwise(atts):
        first = _event(model, a.steps[0].event) if a.steps else None
        if first is None:
            continue
        since = _gap(prev.start, first.time)
        line = f"Attempt {a.number} started"
        line += f" {since} after attempt {prev.number} started" if since else \
            f" after attempt {prev.number} (time unknown)"
        then = _state_at(model, prev, first.order)
        if prev.end is not None and then in spec.FINAL_STATES:
            after_end = _gap(prev.end, first.time)
            if after_end:
                line += f" and {after_end} after it ended {safe(prev.final_state)}"
        elif then is not None:
            line += f", while attempt {prev.number} was still {safe(then)}"
        out.append(line + ".")
    starts: list[tuple[int, int, Event]] = []
    orders: list[int] | None = None  # made at the first late answer (most operations have none)
    events = model.events
    n = len(events)
    for a in atts:
        if not any(map(_LATE_STEP, a.steps)):  # no late answer (most): only timeouts to say
            for i in map(_STEP_EVENT, a.steps):
                if 0 <= i < n and events[i].type == "tool-timeout":
                    line = _timed_out(a, events[i])
                    if line:
                        out.append(line)
            continue
        entered: dict[str, Event] = {}
        for step in a.steps:
            i = step.event
            if not 0 <= i < n:  # (``_event``, inline: every step of every quoted attempt)
                continue
            e = events[i]
            if step.late:
                if orders is None:
                    starts = sorted((f.order, b.number, f) for b in atts
                                    if b.steps and (f := _event(model, b.steps[0].event))
                                    is not None)
                    orders = [o for o, _, _ in starts]
                out.append(_late(a, step.before, e, entered.get(step.before or ""),
                                 _invoked_before(starts, orders, a.number, e.order)))
            if step.after != step.before and step.after is not None:
                entered[step.after] = e
            if e.type == "tool-timeout":
                line = _timed_out(a, e)
                if line:
                    out.append(line)
    return out


_LATE_STEP = attrgetter("late")
_STEP_EVENT = attrgetter("event")


def _timed_out(a: Attempt, e: Event) -> str | None:
    """The timeout ``e`` of ``a`` in words, when the time between is known."""
    g = _gap(a.start, e.time)
    return f"Attempt {a.number} timed out (event {e.index}) {g} after it was invoked." \
        if g else None


def _invoked_before(starts: list[tuple[int, int, Event]], orders: list[int], number: int,
                    order: int) -> tuple[int, Event] | None:
    """The later attempt (by number) invoked last before replay position ``order``: a binary
    search, then a short walk back (bounded: a late answer costs the same at any retry count)."""
    k = bisect_left(orders, order)
    for o, n, f in reversed(starts[max(0, k - 64):k]):
        if n > number and o < order:
            return n, f
    return None


def _late(a: Attempt, before: str | None, e: Event, ref: Event | None,
          later: tuple[int, Event] | None) -> str:
    """One late answer in words: how long after the attempt stopped waiting (timed out,
    cancel requested) it came, and after which later attempt's invocation."""
    line = f"Attempt {a.number}'s {safe(e.type)} (event {e.index}) came"
    if ref is not None:
        g = _gap(ref.time, e.time)
        line += f"{' ' + g if g else ''} after the attempt became {safe(before)} " \
                f"(event {ref.index})"
    else:
        line += " late"
    if later is not None:
        number, f = later
        g = _gap(f.time, e.time)
        line += f", {g + ' ' if g else ''}after attempt {number} was invoked"
    return line + ": a late answer."


def _turn(model: Model, op: Operation, limit: int,
          made: dict[int, Turn] | None = None, lead: int | None = None) -> Turn | None:
    """The turn before ``op`` (a sub-agent's: its launcher's prompt); ``made``: the turns made
    so far, by dialog index (operations in a row often follow the same request); ``lead``:
    the lead agent's party."""
    i = turn_before(model, op.first_time, delegated_party(model, op, lead))
    if i is None:
        return None
    if made is not None:
        t = made.get(i)
        if t is None:
            t = made[i] = _turn_at(model, i, limit)
        return t
    return _turn_at(model, i, limit)


def _speaker(model: Model, d: Any) -> str:
    """Who said a turn, for a report: 'Dana (party 0, customer)', 'user (party 1)' when the
    role repeats the name, 'party 3' when it has none; '' when the turn names no party. The
    index is said as a party's, not left before the name where it read as a count."""
    if not isinstance(d, dict) or not isinstance(d.get("parties"), list) or not d["parties"]:
        return ""
    index = d.get("originator", d["parties"][0])
    parties = model.parties
    if (type(index) is not int or not 0 <= index < len(parties)
            or not isinstance(parties[index], dict)):
        return turn_speaker(model, d)  # not a party of the file: as the viewer says it
    p = parties[index]
    name = p.get("name") or p.get("tel") or p.get("mailto") or p.get("uuid") or ""
    role = p.get("role")
    said = f"party {index}" + (f", {safe(role)}" if role and role != name else "")
    return f"{safe(name)} ({said})" if name else said


def _turn_at(model: Model, i: int, limit: int) -> Turn:
    d = model.dialog[i]
    body = d.get("body") if isinstance(d, dict) else None
    text = dialog_text(d, limit)
    chars = len(body) if isinstance(body, str) and d.get("encoding") != "base64url" \
        else len(text)
    when = d.get("start") if isinstance(d, dict) else None
    if isinstance(when, str) and order_only(model):
        # the importers' synthetic clock: a step, as the attempts' times (``time_texts``)
        when = time_texts(model, [dialog_time(d)])[0]
    return Turn(i, safe(when) if isinstance(when, str) else None, _speaker(model, d), text,
                max(chars, len(text)))


def operation_evidence(model: Model, op: Operation, position: int,
                       findings: Sequence[Finding], opts: ReportOptions,
                       turns: dict[int, Turn] | None = None, lead: int | None = -1
                       ) -> OperationEvidence:
    """``turns``: the dialog turns already made for this report (``_turn``); ``lead``: the
    lead agent's party (``lead_party``), -1: not yet known."""
    attempts = []
    limit = opts.max_chars
    events = model.events
    for a in op.attempts:
        fin = _final_event(events, a)
        invocation = a.invocation
        final = fin[0] if fin is not None else None
        between: list[Note] = []  # what its other events say (a cancel's reason...)
        for i in map(_STEP_EVENT, a.steps):
            if i != invocation and i != final:
                between += event_notes(model, i, limit)
        attempts.append(AttemptEvidence(
            a.number, a, _quote(model, invocation, limit=limit),
            _quote(model, final, fin[1], limit) if fin is not None else None,
            event_notes(model, a.decision_event, limit) if a.decision_life == "once" else (),
            tuple(between)))
    asked = None
    decided: tuple[Note, ...] = ()
    if lead == -1:
        lead = lead_party(model)
    if not op.attempts:  # refused, never run: what it asked for, when the importer kept it
        idx = requested_event(model, op)
        content = None if idx is None else requested_content(model.events[idx].raw)
        if content is not None:
            asked = Quote(idx, spec.POLICY_DECISION, decode_text(content))
            decided = event_notes(model, idx, limit)
        else:
            decided = event_notes(model, op.decision_event, limit)
    return OperationEvidence(position, op, tuple(findings),
                             _turn(model, op, opts.max_chars, turns, lead),
                             tuple(attempts), tuple(gaps(model, op)),
                             delegated_mark(model, op, lead), asked, decided)


def _quoted(ops: Iterable[Operation]) -> Iterator[int]:
    """The events whose values ``operation_evidence`` of ``ops`` may read (each attempt's
    steps and decision, each operation's decisions)."""
    for op in ops:
        for a in op.attempts:
            yield from map(_STEP_EVENT, a.steps)
            if a.decision_event is not None:
                yield a.decision_event
        yield from op.once_decisions
        if op.decision_event is not None:
            yield op.decision_event


def evidence(model: Model, opts: ReportOptions) -> Evidence:
    """Provenance and the per-operation evidence the options ask for."""
    ops = selected(model, opts.operations)
    by_op: dict[str, list[Finding]] = {}
    for f in selected_findings(model, opts.operations):
        if f.operation_id is not None:
            by_op.setdefault(f.operation_id, []).append(f)
    out: list[OperationEvidence] = []
    turns: dict[int, Turn] = {}
    lead = lead_party(model)
    if opts.evidence != "none":
        shown = [(pos, op, found) for pos, op in enumerate(ops, 1)
                 if (found := by_op.get(op.operation_id, ())) or opts.evidence == "all"]
        model.read_raw(_quoted(op for _, op, _ in shown))  # their values at once
        for pos, op, found in shown:
            out.append(operation_evidence(model, op, pos, found, opts, turns, lead))
    anchors = {e.operation.operation_id: e.position for e in out}
    return Evidence(provenance(model, opts), tuple(out), anchors)


@dataclass(frozen=True, slots=True)
class Cells:
    """A report's evidence values, already marked up or escaped, in the order its
    ``_operation_evidence`` takes them (the Markdown and the HTML report each fill one)."""

    said: Iterator[str]  # what each turn before an operation says
    gaps: Iterator[str]
    starts: Iterator[str]  # each attempt's start and end
    ends: Iterator[str]
    quotes: Iterator[Any]  # each quote: its Markdown line, or its HTML lead and block
    states: Iterator[str]  # each attempt's states, and its decision
    decisions: Iterator[str]

    @classmethod
    def of(cls, operations: Sequence[OperationEvidence], *,
           texts: Callable[[list[str]], Iterable[str]],
           gaps: Callable[[list[str]], Iterable[str]],
           times: Callable[[list[str | None]], Iterable[str]],
           quotes: Callable[[list[Quote]], Iterable[Any]],
           when: Callable[[list[datetime | None]], list[str | None]] = rfc3339_column,
           states: Callable[[Any], str],
           decisions: Callable[[list[tuple[Any, Any, Any]]], Iterable[str]]) -> Cells:
        """The cells of ``operations``, each column gathered here once and marked up by the
        report's function for it (a column at a time: ``md_each``, ``h_each``...)."""
        atts = [ae for oe in operations for ae in oe.attempts]
        return cls(
            said=iter(texts([oe.turn.text for oe in operations if oe.turn is not None])),
            gaps=iter(gaps([g for oe in operations for g in oe.gaps])),
            starts=iter(times(when([ae.attempt.start for ae in atts]))),
            ends=iter(times(when([ae.attempt.end for ae in atts]))),
            quotes=iter(quotes([q for oe in operations
                                for q in (oe.requested, *(x for ae in oe.attempts
                                                          for x in (ae.invocation, ae.final)))
                                if q is not None])),
            states=iter(per_key([ae.attempt.states for ae in atts], states)),
            decisions=iter(decisions(list(map(DECISION, [ae.attempt for ae in atts])))))
