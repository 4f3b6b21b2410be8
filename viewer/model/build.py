"""Build the model of a loaded vCon: events, replay order, operations, findings, diagnostics.

One pass over the ``events`` array parses and validates each event; one sort gives the replay
order; each operation is then replayed on its own (``replay.py``) and its attempts governed by
policy (``policy.py``). Everything decided about the vCon is decided here, once.
"""

from __future__ import annotations

import gc
from collections.abc import Iterable, Iterator
from dataclasses import replace
from datetime import datetime
from itertools import islice, repeat
from operator import le
from typing import Any

from ..textsafe import safe, safe_short, suspicious_char
from . import spec
from .policy import (
    NONE,
    Governing,
    OnceIndex,
    StandingIndex,
    decision_value,
    later,
    once_governing,
)
from .replay import (  # the draft's transition table as the replay loops read it
    _FINAL,
    _INPUT_RETURN,
    _LATE_STATES,
    _RESPONSES,
    _RETURN,
    _RUNNING,
    _TRANSITIONS,
    _UNCHANGED,
    replay_operation,
)
from .times import EARLIEST, RFC3339, parse_time, parse_times
from .types import (
    Attempt,
    Diagnostic,
    Event,
    Finding,
    Model,
    Operation,
    Step,
)
from .validate import Ctx, check_event, check_vcon

_TOOL = spec.TOOL_EVENT_SET
_SEVERITY = spec.FINDING_SEVERITY
_OUTCOME = {state: spec.outcome_name(state) for state in spec.STATES}
_NO_FLAGS: frozenset[str] = frozenset()
_KIND = {spec.POLICY_DECISION: "decision", **{t: "tool" for t in spec.TOOL_EVENT_TYPES}}


def _uint(v: Any) -> int | None:
    return v if type(v) is int and v >= 0 else None


def _attempt(v: Any) -> int | None:
    return v if type(v) is int and v >= 1 else None


def _sessions(ev: dict[str, Any]) -> tuple[int, ...]:
    v = ev.get("sessions")
    if v is None:
        v = ev.get("session")
    if type(v) is int:
        return (v,) if v >= 0 else ()
    if isinstance(v, list):
        return tuple(x for x in v if type(x) is int and x >= 0)
    return ()


def _op_id(v: Any) -> str | None:
    return v if isinstance(v, str) and v else None


def _no_check(index: int, ev: Any, ctx: Ctx, out: list[Diagnostic]) -> None:
    """``check_event`` put off (``build_model(..., check_events=False)``)."""


class _Builder:
    def __init__(self, vcon: dict[str, Any], diagnostics: Iterable[Diagnostic],
                 check_events: bool = True) -> None:
        self.vcon = vcon
        self.diags: list[Diagnostic] = list(diagnostics)
        self.findings: list[Finding] = []
        self.check = check_event if check_events else _no_check
        self.n_given = len(self.diags)  # the loader's (and lifter's) diagnostics come first
        self.n_parsed = self.n_given  # ... then those of the event loop, up to here

    # -- events -------------------------------------------------------------------------------
    def parse_events(self) -> tuple[Event, ...]:
        """Parse and validate every event; order them for replay.

        Most files list events in time order. Each Event is built once, assuming its replay
        position is its index; only when the array is out of time order are they rebuilt with
        the sorted positions.

        Most files also have an RFC 3339 time with an offset on every event: those are parsed
        in bulk first (``parse_times``, ~5x faster than one by one); else each event's time is
        parsed here, with a diagnostic for what is wrong with it.
        """
        raw = self.vcon.get("events")
        if not isinstance(raw, list):
            raw = []
        ctx = Ctx.of(self.vcon)
        diags = self.diags
        times = None
        if raw and set(map(type, raw)) == {dict}:
            times = parse_times(list(map(dict.get, raw, repeat("time"))))
        # Replay keys (time, index, run) are only needed once the array is found out of time
        # order; until then they are (events[j].time, j, 0) and are filled in at that point.
        # With every time parsed in bulk, the order is known before the loop.
        keys: list[tuple[Any, int, int]] | None = None
        in_order = True
        if times is not None and not all(map(le, times, islice(times, 1, None))):
            in_order = False
            keys = [(t, j, 0) for j, t in enumerate(times)]
        events: list[Event] = []
        append = events.append
        anchor: tuple[Any, int] = (EARLIEST, -1)
        run = 0
        has_lifecycle = False
        last_t = EARLIEST
        kinds = _KIND
        fromiso = datetime.fromisoformat
        rfc3339 = RFC3339
        new = tuple.__new__
        one_session: dict[int, tuple[int, ...]] = {}
        check = self.check
        for i, ev in enumerate(raw):
            check(i, ev, ctx, diags)
            if type(ev) is not dict:
                if keys is None:
                    keys = [(e.time, j, 0) for j, e in enumerate(events)]
                run += 1
                in_order = False
                keys.append((anchor[0], anchor[1], run))
                append(new(Event, (i, "", "context", None, i, None, None, None, (), ev)))
                continue
            get = ev.get
            typ = get("type")
            if type(typ) is not str:
                typ = ""
            kind = kinds.get(typ, "context")
            if times is not None:  # parsed in bulk, none missing
                t = times[i]
            else:
                tv = get("time")
                # parse_time, inlined for the common case: a plain string with a zone offset.
                t = None
                if type(tv) is str and rfc3339(tv) is not None:
                    try:
                        t = fromiso(tv)
                    except ValueError:
                        t = None
                    if t is not None and t.tzinfo is None:
                        t = None
                if t is None:
                    t, naive = parse_time(tv)
                else:
                    naive = False
                if t is None:
                    if tv is None:
                        diags.append(Diagnostic(
                            "missing-required", "error", f"/events/{i}",
                            f"{safe(typ) or 'event'}: time MUST be present"))
                    elif type(tv) is not str:
                        diags.append(Diagnostic(
                            "invalid-type", "error", f"/events/{i}/time",
                            f"time is {type(tv).__name__}, expected an RFC 3339 date-time string; "
                            "placed after the previous event in the array"))
                    else:
                        diags.append(Diagnostic(
                            "time-unparsable", "error", f"/events/{i}/time",
                            f"time {safe(tv)!s:.60} is not an RFC 3339 date-time; placed after the "
                            "previous event in the array"))
                    if keys is None:
                        keys = [(e.time, j, 0) for j, e in enumerate(events)]
                    run += 1
                    in_order = False
                    keys.append((anchor[0], anchor[1], run))
                else:
                    if naive:
                        diags.append(Diagnostic(
                            "time-no-offset", "warning", f"/events/{i}/time",
                            f"time {safe(tv)} has no zone offset; read as UTC"))
                    if in_order:
                        if t < last_t:
                            in_order = False
                            keys = [(e.time, j, 0) for j, e in enumerate(events)]
                        last_t = t
                    anchor = (t, i)
                    run = 0
                    if keys is not None:
                        keys.append((t, i, 0))
            # _uint(party), _sessions(ev), _op_id and _attempt, inlined.
            party = get("party")
            if type(party) is not int or party < 0:
                party = None
            sv = get("sessions")
            if sv is None:
                sv = get("session")
            if type(sv) is int:
                sessions = one_session.get(sv)
                if sessions is None:
                    sessions = one_session[sv] = (sv,) if sv >= 0 else ()
            elif isinstance(sv, list):
                sessions = tuple(x for x in sv if type(x) is int and x >= 0)
            else:
                sessions = ()
            if kind == "context":
                append(new(Event, (i, typ, kind, t, i, None, None, party, sessions, ev)))
            else:
                has_lifecycle = True
                oid = get("operation_id")
                if not (isinstance(oid, str) and oid):
                    oid = None
                att = get("attempt")
                if type(att) is not int or att < 1:
                    att = None
                append(new(Event, (i, typ, kind, t, i, oid, att, party, sessions, ev)))
        self.n_parsed = len(diags)
        check_vcon(self.vcon, has_lifecycle, diags)
        if in_order:  # (t, i, 0) keys with t non-decreasing: replay order is array order
            self.replay_order = tuple(range(len(events)))
            self.in_order = True
            return tuple(events)
        assert keys is not None
        order = sorted(range(len(keys)), key=keys.__getitem__)
        for p, i in enumerate(order):
            events[i] = events[i]._replace(order=p)
        self.replay_order = tuple(order)
        self.in_order = False
        return tuple(events)


def build_model(loaded: Any, *, check_events: bool = True) -> Model:
    """The model of a loaded vCon (``viewer.load.Loaded``). Pure: reads, never writes.

    The collector is paused while building: the model is many small objects that live as long
    as the model, and collecting during the build costs up to 3x on big files.

    ``check_events=False`` puts off the conformance check of each event (a fifth of the build
    on a big file; replay does not need it): the model's ``unchecked`` is then set, and
    ``complete_checks`` returns the model ``build_model`` would have built. The viewer draws
    the timeline first and checks after.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        *_, model = _stages(loaded, check_events, None)
        return model
    finally:
        if enabled:
            gc.enable()


def build_stages(loaded: Any, *, first: int, above: int = 0) -> Iterator[Model]:
    """The viewer's way to a model: first the model of the first ``first`` operations (its
    ``pending_operations`` says how many more there are), then the whole model; both with the
    event checks put off (``complete_checks``). A file of no more than ``first`` (or
    ``above``) operations gives the whole model at once.

    Operations replay independently of each other, so the operations, findings and
    diagnostics of the first model are those the whole model starts with. The caller pauses
    the collector (as ``build_model`` does) until the last model is taken.
    """
    return _stages(loaded, False, first, above)


def _stages(loaded: Any, check_events: bool, first: int | None, above: int = 0
            ) -> Iterator[Model]:
    vcon, diagnostics = loaded.vcon, loaded.diagnostics
    # Imported and lifted vCons (viewer.pipeline) arrive with their derivation.
    derived_from = getattr(loaded, "derived_from", ())
    derivation = getattr(loaded, "derivation", None)
    source = loaded.source
    b = _Builder(vcon, diagnostics, check_events)
    events = b.parse_events()
    replay = b.replay_order
    diags = b.diags
    findings = b.findings

    # Group lifecycle events by operation, in replay order.
    # An operation is (first event, tool events, once decisions, unassigned event indices).
    ops: dict[str, tuple[Event, list[Event], list[Event], list[int]]] = {}
    get_op = ops.get
    standing_events: list[Event] = []
    context: list[int] = []
    lives = spec.POLICY_LIVES
    # Unpacked, not read by attribute: a NamedTuple field is a descriptor call.
    for ev in (events if b.in_order else [events[i] for i in replay]):
        index, _, kind, _, _, oid, attempt, _, _, raw = ev
        if kind == "context":
            context.append(index)
            continue
        if kind == "decision":
            life = raw.get("policy_life")
            if life not in lives:
                life = "once" if oid is not None else "standing"
            if life == "standing":
                standing_events.append(ev)
                continue
        if oid is None:
            continue
        op = get_op(oid)
        if op is None:
            op = ops[oid] = (ev, [], [], [])
        # (first event, replayable tool events, once decisions, unassigned event indices)
        if attempt is None:
            op[3].append(index)
        if kind == "decision":
            op[2].append(ev)
        elif attempt is not None:
            op[1].append(ev)

    standing = StandingIndex(standing_events)
    operations: list[Operation] = []
    fast = _fast_operation
    pairs = iter(ops.items())

    def replay_operations(n: int | None) -> None:
        for op_id, op in pairs if n is None else islice(pairs, n):
            o = fast(op_id, op, standing, events, findings)
            if o is None:
                o = _operation(op_id, op, standing, events, diags, findings)
            operations.append(o)

    def model() -> Model:
        return Model(
            source=source,
            vcon=vcon,
            events=events,
            replay=replay,
            operations=tuple(operations),
            standing=tuple(standing.records()),
            findings=tuple(findings),
            diagnostics=tuple(diags),
            context=tuple(context),
            # operations are in ops' order (zip stops at the last one replayed)
            by_operation=dict(zip(ops, range(len(operations)), strict=False)),
            derived_from=derived_from,
            derivation=derivation,
            unchecked=None if check_events else (b.n_given, b.n_parsed),
            pending_operations=len(ops) - len(operations),
        )

    if first is not None and max(first, above) < len(ops):
        replay_operations(first)
        yield model()
    replay_operations(None)
    _suspicious_identifiers(vcon, ops, standing_events, diags)
    yield model()


def _suspicious_identifiers(vcon: dict[str, Any], ops: dict[str, Any],
                            standing: list[Event], diags: list[Diagnostic]) -> None:
    """A ``suspicious-text`` warning for each identifier that carries a control, bidi,
    default-ignorable or blank-looking character (``op-07aa`` + U+3164 reads as ``op-07aa``
    and is another id). Each distinct operation id, server and tool once, at its first event;
    party names: one regex search per distinct string, linear."""
    seen: set[str] = set()

    def check(value: Any, ptr: str, what: str) -> None:
        if not isinstance(value, str) or value in seen:
            return
        seen.add(value)
        cp = suspicious_char(value)
        if cp is not None:
            diags.append(Diagnostic(
                "suspicious-text", "warning", ptr,
                f"{what} {safe(value)[:80]} carries {cp}, a character that does not show as "
                "itself: it may read as another identifier"))

    for oid, op in ops.items():
        first: Event = op[0]
        check(oid, f"/events/{first.index}/operation_id", "operation_id")
        for ev in (*op[1][:1], *[e for e in op[1][1:] if e.type == "tool-invocation"]):
            if ev.type == "tool-invocation":
                check(ev.raw.get("server"), f"/events/{ev.index}/server", "server")
                check(ev.raw.get("tool"), f"/events/{ev.index}/tool", "tool")
        for ev in op[2]:
            check(ev.raw.get("server"), f"/events/{ev.index}/server", "server")
            check(ev.raw.get("tool"), f"/events/{ev.index}/tool", "tool")
    for ev in standing:
        check(ev.raw.get("server"), f"/events/{ev.index}/server", "server")
        check(ev.raw.get("tool"), f"/events/{ev.index}/tool", "tool")
    parties = vcon.get("parties")
    if isinstance(parties, list):
        for i, p in enumerate(parties):
            if isinstance(p, dict):
                check(p.get("name"), f"/parties/{i}/name", "party name")


def complete_checks(model: Model) -> Model:
    """``model`` with the event checks ``build_model(..., check_events=False)`` put off: the
    very model ``build_model`` builds, diagnostics in the same order (each event's check
    before its time diagnostics, all before the vCon's and the operations')."""
    if model.unchecked is None:
        return model
    enabled = gc.isenabled()
    gc.disable()
    try:
        given, parsed = model.unchecked
        raw = model.vcon.get("events")
        found: list[tuple[int, int, Diagnostic]] = []
        if isinstance(raw, list):
            ctx = Ctx.of(model.vcon)
            out: list[Diagnostic] = []
            for i, ev in enumerate(raw):
                check_event(i, ev, ctx, out)
                if out:
                    found.extend((i, 0, d) for d in out)
                    out.clear()
        diags = model.diagnostics
        # The event loop's own diagnostics (times) all point into /events/<i>.
        found.extend((int(d.pointer.split("/")[2]), 1, d) for d in diags[given:parsed])
        found.sort(key=lambda x: (x[0], x[1]))  # stable: each list keeps its order
        merged = (*diags[:given], *(d for _, _, d in found), *diags[parsed:])
        return replace(model, diagnostics=merged, unchecked=None)
    finally:
        if enabled:
            gc.enable()


def _str(v: Any) -> str | None:
    return v if isinstance(v, str) else None




def _fast_operation(
    op_id: str,
    op: tuple[Event, list[Event], list[Event], list[int]],
    standing: StandingIndex,
    events: tuple[Event, ...],
    findings: list[Finding],
) -> Operation | None:
    """``_operation`` for the common operation, or None to take the general path.

    Common: no unassigned event, one attempt numbered 1 whose first event is
    its only tool-invocation, and every step in the draft's model. Then there is no target
    mismatch, no attempt gap or order, no duplicate, no out-of-model step, no retry or
    escalation, and a response is late only while timed out or cancel-requested: what is left of
    ``_operation`` is the replay, the governing standing decision, late responses and whether
    the attempt ended. The result is the same Operation, field for field.
    """
    if op[3]:
        return None
    tool_events: list[Event] = op[1]
    if not tool_events:
        return None
    inv = tool_events[0]
    if inv.type != "tool-invocation" or inv.attempt != 1:
        return None
    new = tuple.__new__
    transitions = _TRANSITIONS
    steps: list[Step] = []
    append = steps.append
    state: str | None = None
    input_from: str | None = None
    late: list[tuple[int, str, str | None]] | None = None  # (event, type, state it came in)
    for ev in tool_events:
        typ = ev.type
        if ev.attempt != 1 or (typ == "tool-invocation" and ev is not inv):
            return None
        allowed_from, to = transitions[typ]
        if state not in allowed_from:
            return None
        is_late = typ in _RESPONSES and state in _LATE_STATES
        if is_late:
            if late is None:
                late = []
            late.append((ev.index, typ, state))
        if to == _UNCHANGED:
            after = state
        elif to == _RETURN:
            after = input_from or _RUNNING
            input_from = None
        else:
            after = to
        if typ == "tool-input":
            input_from = state if state in _INPUT_RETURN else None
        append(new(Step, (ev.index, state, after, False, is_late)))
        state = after

    raw = inv.raw
    server = raw.get("server")
    if not isinstance(server, str):
        server = None
    tool = raw.get("tool")
    if not isinstance(tool, str):
        tool = None
    once_events = op[2]
    kind = "tool-invocation"
    after_inv: list[Event] = []  # once decisions for attempt 1 recorded after its invocation
    gov = NONE
    if once_events:  # every one names an attempt (op[3], the unassigned, is empty)
        k = once_events[0].raw.get("operation")
        if isinstance(k, str):
            kind = k
        once = [(ev.attempt or 0, ev) for ev in once_events]
        after_inv = [dec for n, dec in once if n == 1 and later(dec, inv)]
        gov = once_governing(once, 1)
    if gov is NONE:
        gov = standing.governing(kind, server, tool, inv)
    final = state
    op_flags = flags = _NO_FLAGS
    if gov is NONE and final in _FINAL and late is None and not after_inv:  # nothing to find
        found: list[Finding] = []
    else:
        flag_set: set[str] = set()
        found = [
            Finding("decision-after-invocation", _SEVERITY["decision-after-invocation"], op_id,
                    1, (dec.index, inv.index), safe_short(op_id)
                    + " attempt 1: the once decision was recorded after the tool-invocation")
            for dec in after_inv
        ]

        def add(kind_: str, evs: tuple[int, ...], msg: str) -> None:
            flag_set.add(kind_)
            found.append(Finding(kind_, _SEVERITY[kind_], op_id, 1, evs, safe_short(op_id) + msg))

        if gov.conflict is not None:
            add("standing-conflict", tuple(gov.conflict),
                " attempt 1: a tool-level and a server-level standing decision both "
                "apply and disagree; the tool-level one governs")
        if gov.decision == "disallowed":
            add("policy-violation", (gov.event, inv.index),
                f" attempt 1 was invoked although its {gov.life} decision is disallowed")
        elif gov.decision == "permission-required":
            add("permission-inferred", (gov.event,),
                " attempt 1 ran under permission-required: the grant is not recorded")
        for index, typ, before in late or ():
            add("late-response", (index,), f" attempt 1: {safe(typ)} arrived while {before}")
        if final not in _FINAL:
            add("unterminated", (steps[-1][0],),
                f" attempt 1 never ended (last state {final or 'none'})")
        if after_inv:
            flag_set.add("decision-after-invocation")
        op_flags = flags = frozenset(flag_set) if flag_set else _NO_FLAGS
    attempt = new(Attempt, (
        1, tuple(steps), inv.time, tool_events[-1].time if final in _FINAL else None, final,
        inv.index, server, tool, gov.decision, gov.life, gov.event,
        tuple([e[0] for e in late]) if late else (), (), False, flags,
    ))
    if found:
        if len(found) > 1:  # by the replay position of the first event named (as _operation)
            found.sort(key=lambda f: min((events[e].order for e in f.events), default=-1))
        findings.extend(found)
    first: Event = op[0]
    return new(Operation, (
        op_id, kind, server, tool, gov.decision, gov.life, gov.event,
        _OUTCOME.get(final, spec.UNKNOWN_OUTCOME), (attempt,),
        tuple([ev.index for ev in once_events]) if once_events else (), (), first.time,
        first.order, 0, False, len(late) if late else 0, op_flags,
    ))


def _operation(
    op_id: str,
    op: tuple[Event, list[Event], list[Event], list[int]],
    standing: StandingIndex,
    events: tuple[Event, ...],
    diags: list[Diagnostic],
    findings: list[Finding],
) -> Operation:
    new = tuple.__new__
    sid = safe_short(op_id)
    tool_events: list[Event] = op[1]
    once_events: list[Event] = op[2]
    run = replay_operation(tool_events)

    # Target: the first tool-invocation (replayed or not: an invocation with a bad attempt
    # number still names the tool), else the once decision (INTERPRETATION 3).
    first_inv = run.invocations[0] if run.invocations else None
    src_ev = first_inv
    for i in op[3]:
        ev = events[i]
        if ev.type == "tool-invocation" and (src_ev is None or ev.order < src_ev.order):
            src_ev = ev
            break
    src = src_ev.raw if src_ev is not None else (once_events[0].raw if once_events else {})
    server, tool = _str(src.get("server")), _str(src.get("tool"))
    kind = "tool-invocation"
    if once_events and isinstance(once_events[0].raw.get("operation"), str):
        kind = once_events[0].raw["operation"]

    seen_first = False
    for inv in run.invocations if len(run.invocations) > 1 else ():
        if inv.attempt == 1:
            if seen_first:
                diags.append(Diagnostic(
                    "operation-id-not-unique", "error", f"/events/{inv.index}/operation_id",
                    f"operation_id {sid} has a second attempt-1 tool-invocation: operation_id "
                    "MUST be unique among the operations in the vCon"))
            seen_first = True
        if inv is not first_inv and (
            _str(inv.raw.get("server")) != server or _str(inv.raw.get("tool")) != tool
        ):
            diags.append(Diagnostic(
                "operation-target-mismatch", "error", f"/events/{inv.index}",
                f"operation {sid}: this tool-invocation names "
                f"{safe_short(inv.raw.get('server'))} / {safe_short(inv.raw.get('tool'))}, "
                f"the first names {safe_short(server)} / {safe_short(tool)}"))

    numbers = sorted(run.attempts)
    if numbers and numbers[-1] != len(numbers):  # distinct and >= 1: a gap somewhere
        # Never materialise range(1, highest): a recorded attempt may be 2**63.
        missing: list[int] = []
        prev = 0
        for n in numbers:
            missing.extend(range(prev + 1, min(n, prev + 12 - len(missing))))
            prev = n
        first_after = run.attempts[min(n for n in numbers if n > missing[0])].steps[0].event
        shown = ", ".join(map(str, missing[:10])) + (", …" if len(missing) > 10 else "")
        diags.append(Diagnostic(
            "attempt-gap", "warning", f"/events/{first_after}/attempt",
            f"operation {sid}: attempt {shown} missing; attempts start "
            "at 1 and rise by one"))
    prev_inv: Event | None = None
    for n in numbers if len(numbers) > 1 else ():
        inv = run.attempts[n].invocation
        if inv is None:
            continue
        if prev_inv is not None and later(prev_inv, inv):
            diags.append(Diagnostic(
                "attempt-order", "warning", f"/events/{inv.index}/time",
                f"operation {sid}: attempt {n} was invoked before attempt {prev_inv.attempt}"))
        prev_inv = inv

    once = [(ev.attempt, ev) for ev in once_events if ev.attempt is not None]

    op_kinds: set[str] = set()
    found: list[Finding] = []

    def add(kind_: str, attempt: int | None, evs: Iterable[int], msg: str) -> None:
        op_kinds.add(kind_)
        found.append(Finding(kind_, _SEVERITY[kind_], op_id, attempt, tuple(evs), msg))

    # decision-after-invocation
    decided_late: set[int] = set()
    for n, dec in once:
        a = run.attempts.get(n)
        if a is not None and a.invocation is not None and later(dec, a.invocation):
            decided_late.add(n)
            add("decision-after-invocation", n, (dec.index, a.invocation.index),
                f"{sid} attempt {n}: the once decision was recorded after the tool-invocation")

    attempts: list[Attempt] = []
    first_gov: Governing = NONE
    prev_final: str | None = None
    prev_number = 0
    late_total = 0
    retries = 0
    any_escalated = False
    dup_by_attempt = {d.earlier: d for d in run.duplicates} if run.duplicates else {}
    once_index = OnceIndex(once)  # numbers ascend: one pass over the once decisions
    for n in numbers:
        a = run.attempts[n]
        flags: set[str] = {"decision-after-invocation"} if n in decided_late else set()
        when = a.invocation or events[a.steps[0].event]
        gov = once_index.governing(n)
        if gov is NONE:
            gov = standing.governing(kind, server, tool, when)
            if gov.conflict is not None:
                flags.add("standing-conflict")
                add("standing-conflict", n, gov.conflict,
                    f"{sid} attempt {n}: a tool-level and a server-level standing decision both "
                    "apply and disagree; the tool-level one governs")
        if n == numbers[0]:
            first_gov = gov
        if gov.decision == "disallowed":
            flags.add("policy-violation")
            add("policy-violation", n,
                (gov.event, a.invocation.index if a.invocation else a.steps[0].event),
                f"{sid} attempt {n} was invoked although its {gov.life} decision is disallowed")
        elif gov.decision == "permission-required":
            flags.add("permission-inferred")
            add("permission-inferred", n, (gov.event,),
                f"{sid} attempt {n} ran under permission-required: the grant is not recorded")
        late = tuple(a.late)
        oom = tuple(a.out_of_model)
        for s in a.steps if late or oom else ():
            if s.out_of_model:
                add("out-of-model", n, (s.event,),
                    f"{sid} attempt {n}: {safe(events[s.event].type)} from "
                    f"{s.before or 'the start of the attempt'} is not a transition of the "
                    "draft's state model")
            if s.late:
                add("late-response", n, (s.event,),
                    f"{sid} attempt {n}: {safe(events[s.event].type)} arrived "
                    + (f"while {s.before}" if s.before in spec.LATE_STATES
                       else "after a later attempt was invoked"))
        late_total += len(late)
        if oom:
            flags.add("out-of-model")
        if late:
            flags.add("late-response")
        final = a.state
        if final not in spec.FINAL_STATES:
            flags.add("unterminated")
            add("unterminated", n, (a.steps[-1].event,),
                f"{sid} attempt {n} never ended (last state {final or 'none'})")
        if n > 1:
            flags.add("retry")
            add("retry", n, (a.steps[0].event,), f"{sid}: attempt {n} is a retry")
        escalated = prev_final == spec.DENIED
        if escalated:
            flags.add("escalation")
            add("escalation", n, (a.steps[0].event,),
                f"{sid}: attempt {n} retried after the tool denied attempt {prev_number}")
        d = dup_by_attempt.get(n)
        if d is not None:
            flags.add("duplicate-execution-risk")
            add("duplicate-execution-risk", n, (d.later_invocation, d.completing_event),
                f"{sid}: attempt {n} completed after attempt "
                f"{events[d.later_invocation].attempt} was invoked: the operation may have run "
                "twice")
        inv = a.invocation
        steps = a.steps
        if inv is None:
            a_server = a_tool = None
        elif inv is first_inv:  # the operation's target was read from it
            a_server, a_tool = server, tool
        else:
            a_server, a_tool = _str(inv.raw.get("server")), _str(inv.raw.get("tool"))
        attempts.append(new(Attempt, (
            n, tuple(steps), events[steps[0][0]].time,
            events[steps[-1][0]].time if final in _FINAL else None, final,
            inv.index if inv else None, a_server, a_tool,
            gov.decision, gov.life, gov.event, late, oom, escalated,
            frozenset(flags) if flags else _NO_FLAGS,
        )))
        if n > 1:
            retries += 1
        if escalated:
            any_escalated = True
        prev_final = final
        prev_number = n

    if attempts:
        outcome = _OUTCOME.get(attempts[-1].final_state, spec.UNKNOWN_OUTCOME)
        decision, life, dec_event = first_gov.decision, first_gov.life, first_gov.event
    else:
        last_once = once_events[-1] if once_events else None
        decision = decision_value(last_once) if last_once else None
        life = "once" if last_once else None
        dec_event = last_once.index if last_once else None
        outcome = (spec.DISALLOWED_OUTCOME if decision == "disallowed"
                   else spec.NOT_PERFORMED_OUTCOME)

    if found:
        if len(found) > 1:  # by attempt, then by the replay position of the first event named
            found.sort(key=lambda f: (f.attempt or 0,
                                      min((events[e].order for e in f.events), default=-1)))
        findings.extend(found)
    first: Event = op[0]
    return new(Operation, (
        op_id, kind, server, tool, decision, life, dec_event, outcome, tuple(attempts),
        tuple([ev.index for ev in once_events]) if once_events else (),
        tuple(op[3]), first.time,
        first.order, retries, any_escalated, late_total,
        frozenset(op_kinds) if op_kinds else _NO_FLAGS,
    ))
