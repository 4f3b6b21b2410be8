"""Build the model of a loaded vCon: events, replay order, operations, findings, diagnostics.

One pass over the ``events`` array parses and validates each event; one sort gives the replay
order; each operation is then replayed on its own (``replay.py``) and its attempts governed by
policy (``policy.py``). Everything decided about the vCon is decided here, once.
"""

from __future__ import annotations

import gc
import re
from collections.abc import Iterable, Iterator
from dataclasses import replace
from itertools import islice
from operator import itemgetter, le
from typing import Any, NamedTuple

from msgspec.structs import replace as with_fields

from ..textsafe import safe, safe_short, suspicious_char
from . import spec
from .columns import TAGS, Events, unclean
from .findings import (
    OPERATION_RULES,
    AttemptRule,
    attempt_rules,
    model_findings,
    shape_findings,
)
from .policy import (
    NONE,
    Governing,
    OnceIndex,
    StandingIndex,
    decision_value,
    later,
)
from .replay import Shape, shape_of
from .times import EARLIEST, parse_time, parse_times
from .types import (
    Attempt,
    Diagnostic,
    Event,
    EventArray,
    Finding,
    Model,
    Operation,
    Step,
)
from .validate import Ctx, check_event, check_vcon

_FINAL = spec.FINAL_STATES
_SEVERITY = spec.FINDING_SEVERITY
_OPERATION_RULES = OPERATION_RULES
_OUTCOME = {state: spec.outcome_name(state) for state in spec.STATES}
_UNKNOWN = spec.UNKNOWN_OUTCOME
_NO_FLAGS: frozenset[str] = frozenset()
_NO_FLAGGED: dict[int, set[str]] = {}  # never written: an operation without once decisions
_KIND = {spec.POLICY_DECISION: "decision", **{t: "tool" for t in spec.TOOL_EVENT_TYPES}}


def _flagged(events: Events, ctx: Ctx) -> bytearray:
    """Per event, 1 when ``check_event`` may report something about it (``columns.unclean``)."""
    att = ctx.attachments
    return unclean(events, ctx.n_parties, ctx.n_sessions,
                   None if att is None else len(att))


class _OneSession(dict):
    """Session index -> the tuple of it alone, one per index, made when first asked for."""

    def __missing__(self, index: int) -> tuple[int, ...]:
        got = self[index] = (index,)
        return got


#: A Struct's class -> (its event type, its Event kind).
_TYPED = {cls: (typ, _KIND[typ]) for cls, typ in TAGS.items()}


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

        The events are read as ``columns.Events``: an event that passed its column's types is
        read from its Struct (whose types hold what the dict branch below checks of each
        member), any other from its dict. Most files also have an RFC 3339 time with an
        offset on every event: those are parsed in bulk first (``parse_times``, in C); else
        each event's time is parsed here, with a diagnostic for what is wrong with it.
        """
        evs = Events.of(self.vcon.get("events"))
        if evs is None:
            evs = Events([], [])
        structs = evs.structs
        ctx = Ctx.of(self.vcon)
        diags = self.diags
        # check_event only for the events their column does not pass (viewer/model/columns.py)
        flagged = _flagged(evs, ctx) if self.check is check_event else bytes(len(structs))
        times = None
        if structs:
            times = parse_times(evs.column("time"))
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
        tags = TAGS
        new = tuple.__new__
        one_session = _OneSession()
        check = self.check
        if times is not None and not any(flagged) and None not in structs:
            # Every event passed its column: nothing is reported, and each Event is read from
            # its Struct.
            typed = _TYPED
            for i, st, t in zip(range(len(structs)), structs, times, strict=True):
                typ, kind = typed[type(st)]
                s = st.sessions  # an index, or a non-empty array of them
                try:
                    sessions = one_session[s]
                except TypeError:  # an array (no key)
                    sessions = tuple(s)
                append(new(Event, (i, typ, kind, t, i, st.operation_id or None,
                                   st.attempt or None, st.party, sessions, evs)))
            has_lifecycle = bool(events)
        else:
            for i, st in enumerate(structs):
                ev = evs[i] if st is None else st
                if flagged[i]:
                    check(i, evs[i], ctx, diags)
                if st is not None:  # its column's types hold: read as above
                    typ = tags[type(st)]
                    kind = kinds[typ]
                    get = None
                    tv = st.time
                elif type(ev) is not dict:
                    if keys is None:
                        keys = [(e.time, j, 0) for j, e in enumerate(events)]
                    run += 1
                    in_order = False
                    keys.append((anchor[0], anchor[1], run))
                    append(new(Event, (i, "", "context", None, i, None, None, None, (), evs)))
                    continue
                else:
                    get = ev.get
                    typ = get("type")
                    if type(typ) is not str:
                        typ = ""
                    kind = kinds.get(typ, "context")
                    tv = get("time")
                if times is not None:  # parsed in bulk, none missing
                    t = times[i]
                else:
                    t, naive = parse_time(tv)
                    if t is None:
                        if tv is None:
                            diags.append(Diagnostic(
                                "missing-required", "error", f"/events/{i}",
                                f"{safe(typ) or 'event'}: time MUST be present"))
                        elif type(tv) is not str:
                            diags.append(Diagnostic(
                                "invalid-type", "error", f"/events/{i}/time",
                                f"time is {type(tv).__name__}, expected an RFC 3339 date-time "
                                "string; placed after the previous event in the array"))
                        else:
                            diags.append(Diagnostic(
                                "time-unparsable", "error", f"/events/{i}/time",
                                f"time {safe(tv)!s:.60} is not an RFC 3339 date-time; placed "
                                "after the previous event in the array"))
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
                if get is None:  # from the Struct: every value usable
                    s = st.sessions  # an index, or a non-empty array of them
                    try:
                        sessions = one_session[s]
                    except TypeError:  # an array (no key)
                        sessions = tuple(s)
                    has_lifecycle = True
                    append(new(Event, (i, typ, kind, t, i, st.operation_id or None,
                                       st.attempt or None, st.party, sessions, evs)))
                    continue
                # party, sessions, operation_id and attempt when usable (their diagnostics say
                # what is wrong otherwise)
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
                    append(new(Event, (i, typ, kind, t, i, None, None, party, sessions, evs)))
                else:
                    has_lifecycle = True
                    oid = get("operation_id")
                    if not (isinstance(oid, str) and oid):
                        oid = None
                    att = get("attempt")
                    if type(att) is not int or att < 1:
                        att = None
                    append(new(Event, (i, typ, kind, t, i, oid, att, party, sessions, evs)))
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
    as the model, and collecting during the build costs much of its time on big files.

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
    # the loader's count of keys named twice (``Loaded.key_check``), when it was put off
    if check_events and getattr(loaded, "key_check", None) is not None:
        loaded = loaded.settled()  # made now, as every check is here
    key_check = getattr(loaded, "key_check", None)
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
    # An operation is [first event, tool events, once decisions, unassigned event indices];
    # the last two () until they have one (most operations never do).
    ops: dict[str, list[Any]] = {}
    get_op = ops.get
    standing_events: list[Event] = []
    context: list[int] = []
    lives = spec.POLICY_LIVES
    # Unpacked, not read by attribute: a NamedTuple field is a descriptor call.
    for ev in (events if b.in_order else [events[i] for i in replay]):
        index, _, kind, _, _, oid, attempt, _, _, _ = ev
        if kind != "tool":
            if kind == "context":
                context.append(index)
                continue
            life = ev.get("policy_life")  # a decision
            if life not in lives:
                life = "once" if oid is not None else "standing"
            if life == "standing":
                standing_events.append(ev)
                continue
        if oid is None:
            continue
        op = get_op(oid)
        if op is None:
            op = ops[oid] = [ev, [], (), ()]
        # [first event, replayable tool events, once decisions, unassigned event indices]
        if attempt is not None and kind == "tool":  # most events
            op[1].append(ev)
            continue
        if attempt is None:
            if op[3]:
                op[3].append(index)
            else:
                op[3] = [index]
        if kind == "decision":
            if op[2]:
                op[2].append(ev)
            else:
                op[2] = [ev]

    standing = StandingIndex(standing_events)
    # the Structs of the events array every Event was read from (``Event.source``)
    array = events[0][9] if events else None
    structs = array.structs if isinstance(array, EventArray) else None
    operations: list[Operation] = []
    pairs = iter(ops.items())
    shapes = _Shapes()
    governed: dict[Governing, tuple[AttemptRule, ...]] = {}  # decision -> attempt rules it meets

    def replay_operations(n: int | None) -> None:
        for op_id, op in pairs if n is None else islice(pairs, n):
            operations.append(_operation(op_id, op, standing, events, structs, diags,
                                         findings, shapes, governed))

    def model() -> Model:
        return Model(
            source=source,
            vcon=vcon,
            events=events,
            replay=replay,
            operations=tuple(operations),
            standing=tuple(standing.records()),
            findings=(*findings, *model_findings(operations, events)),
            diagnostics=tuple(diags),
            context=tuple(context),
            # operations are in ops' order (zip stops at the last one replayed)
            by_operation=dict(zip(ops, range(len(operations)), strict=False)),
            derived_from=derived_from,
            derivation=derivation,
            unchecked=None if check_events else (b.n_given, b.n_parsed),
            key_check=key_check,
            pending_operations=len(ops) - len(operations),
        )

    if first is not None and max(first, above) < len(ops):
        replay_operations(first)
        yield model()
    replay_operations(None)
    _suspicious_identifiers(vcon, ops, standing_events, events, diags)
    yield model()


def _suspicious_identifiers(vcon: dict[str, Any], ops: dict[str, Any],
                            standing: list[Event], events: tuple[Event, ...],
                            diags: list[Diagnostic]) -> None:
    """A ``suspicious-text`` warning for each identifier that carries a control, bidi,
    default-ignorable or blank-looking character (``op-07aa`` + U+3164 reads as ``op-07aa``
    and is another id). Each distinct operation id, server and tool once, at its first event;
    party names: one regex search per distinct string, linear."""
    if not _may_be_suspicious(vcon, ops, events):
        return
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
                check(ev.get("server"), f"/events/{ev.index}/server", "server")
                check(ev.get("tool"), f"/events/{ev.index}/tool", "tool")
        for ev in op[2]:
            check(ev.get("server"), f"/events/{ev.index}/server", "server")
            check(ev.get("tool"), f"/events/{ev.index}/tool", "tool")
    for ev in standing:
        check(ev.get("server"), f"/events/{ev.index}/server", "server")
        check(ev.get("tool"), f"/events/{ev.index}/tool", "tool")
    parties = vcon.get("parties")
    if isinstance(parties, list):
        for i, p in enumerate(parties):
            if isinstance(p, dict):
                check(p.get("name"), f"/parties/{i}/name", "party name")


def _may_be_suspicious(vcon: dict[str, Any], ops: dict[str, Any],
                       events: tuple[Event, ...]) -> bool:
    """Whether any identifier ``_suspicious_identifiers`` looks at may carry a suspicious
    character: the operation ids, every event's server and tool (those it looks at among them,
    read in bulk from the Structs) and the party names, joined (by a character that is not
    one) and searched once, in C, rather than one by one. Most files have none, and then
    nothing is reported; otherwise each value is looked at, for its pointer."""
    values: list[Any] = []
    source = events[0].source if events else None
    if isinstance(source, EventArray):  # each distinct value once
        values += source.distinct("server") | source.distinct("tool")
    else:  # built by hand: each its own
        values += [ev.get(name) for ev in events for name in ("server", "tool")]
    parties = vcon.get("parties")
    if isinstance(parties, list):
        values += [p.get("name") for p in parties if isinstance(p, dict)]
    joined = "/".join([*ops, *[v for v in values if type(v) is str]])
    if joined.isascii():  # then only the ASCII ones, the controls, can be in it
        return _ASCII_SUSPICIOUS.search(joined) is not None
    return suspicious_char(joined) is not None


#: The ASCII characters ``suspicious_char`` reports: on ASCII text, a search of this small class
#: gives its answer several times faster than the search of the whole table.
_ASCII_SUSPICIOUS = re.compile(
    "[" + "".join(re.escape(chr(c)) for c in range(128) if suspicious_char(chr(c))) + "]")


def complete_checks(model: Model) -> Model:
    """``model`` with the event checks ``build_model(..., check_events=False)`` put off: the
    very model ``build_model`` builds, diagnostics in the same order (each event's check
    before its time diagnostics, all before the vCon's and the operations'). The loader's
    count of keys named twice, when put off too (``Model.key_check``), is made first: should
    it find one, the model is that of the input read anew, as ``build_model`` reads it."""
    if model.unchecked is None:
        return model
    if model.key_check is not None:
        again = model.key_check.settle()
        if again is not None:  # a key named twice: the model of the input read anew
            return build_model(again)
    enabled = gc.isenabled()
    gc.disable()
    try:
        given, parsed = model.unchecked
        evs = model.events[0].source if model.events else None
        found: list[tuple[int, int, Diagnostic]] = []
        if isinstance(evs, Events):
            ctx = Ctx.of(model.vcon)
            out: list[Diagnostic] = []
            flagged = _flagged(evs, ctx)
            for i in range(len(evs)):
                if not flagged[i]:
                    continue
                check_event(i, evs[i], ctx, out)
                if out:
                    found.extend((i, 0, d) for d in out)
                    out.clear()
        diags = model.diagnostics
        # The event loop's own diagnostics (times) all point into /events/<i>.
        found.extend((int(d.pointer.split("/")[2]), 1, d) for d in diags[given:parsed])
        found.sort(key=lambda x: (x[0], x[1]))  # stable: each list keeps its order
        merged = (*diags[:given], *(d for _, _, d in found), *diags[parsed:])
        return replace(model, diagnostics=merged, unchecked=None, key_check=None)
    finally:
        if enabled:
            gc.enable()


def _str(v: Any) -> str | None:
    return v if isinstance(v, str) else None




#: Findings replay alone decides, per attempt of a shape (``findings.SHAPE_RULES``): (kind,
#: severity, event positions, the first of them (None: none), message after the operation
#: id). The tool events are in replay order: the first position names the first of them in it.
_Static = tuple[tuple[str, str, tuple[int, ...], int | None, str], ...]


class _Plan(NamedTuple):
    """What ``_operation`` reads of one attempt of a shape, read out of it once per shape:
    (number, steps (events by position), position of its invocation, of its first event, of
    its last event when it ended in a final state, else None; late and out-of-model
    positions, final state, static findings)."""

    number: int
    steps: tuple[Step, ...]
    invocation: int | None
    first: int
    end: int | None
    late: tuple[int, ...]
    out_of_model: tuple[int, ...]
    state: str | None
    static: _Static


class _Shaped(NamedTuple):
    """A shape with what ``_operation`` reads of it: its attempts' plans, the positions of
    its tool-invocations, whether its attempt numbers have a gap, whether it has more than
    one tool-invocation, more than one attempt."""

    shape: Shape
    plans: tuple[_Plan, ...]
    invocations: tuple[int, ...]
    gap: bool
    several_invocations: bool
    several_attempts: bool


class _Shapes(dict):
    """Shape key -> ``_Shaped``, filled as shapes are met."""

    def add(self, key: tuple[tuple[int | None, str], ...], tool_events: list[Event]
            ) -> _Shaped:
        shape = shape_of(tool_events)
        attempts = shape.attempts
        plans = tuple(
            _Plan(a.number, a.steps, a.invocation, a.steps[0].event,
                  a.steps[-1].event if a.state in _FINAL else None,
                  a.late, a.out_of_model, a.state,
                  tuple((kind, _SEVERITY[kind], at, min(at, default=None), msg)
                        for kind, at, msg in fixed))
            for a, fixed in zip(attempts, shape_findings(attempts, key), strict=True))
        # attempt numbers are distinct and >= 1: a gap somewhere when the last is not their count
        gap = bool(attempts) and attempts[-1].number != len(attempts)
        got = self[key] = _Shaped(shape, plans, shape.invocations, gap,
                                  len(shape.invocations) > 1, len(plans) > 1)
        return got


#: What replay reads of each tool event, the key of its operation's ``Shape``: (Event.attempt,
#: Event.type), by position (a NamedTuple field is a descriptor call).
_KEY_OF = itemgetter(6, 1)
_INDEX_OF = itemgetter(0)
_ORDER_OF = itemgetter(4)  # Event.order
_FIRST = itemgetter(0)


def _first_order(at: tuple[int, ...], events: tuple[Event, ...]) -> int:
    """The replay position of the first of the events ``at`` (indices) names; -1 for none."""
    return min(map(_ORDER_OF, map(events.__getitem__, at)), default=-1)


def _operation(
    op_id: str,
    op: list[Any],  # [first event, tool events, once decisions or (), unassigned or ()]
    standing: StandingIndex,
    events: tuple[Event, ...],
    structs: list[Any] | None,
    diags: list[Diagnostic],
    findings: list[Finding],
    shapes: _Shapes,
    governed: dict[Governing, tuple[AttemptRule, ...]],
) -> Operation:
    """One operation: its replay (by shape), target, attempts under their decisions, and what
    is found about it."""
    tool_events: list[Event] = op[1]
    once_events: list[Event] = op[2]
    key = tuple(map(_KEY_OF, tool_events))
    shaped = shapes.get(key)
    if shaped is None:
        shaped = shapes.add(key, tool_events)
    index = list(map(_INDEX_OF, tool_events))
    sid = ""

    # Target: the first tool-invocation (replayed or not: an invocation with a bad attempt
    # number still names the tool), else the once decision (the README: How vcon-view reads
    # the drafts).
    invocations = shaped.invocations
    first_inv = tool_events[invocations[0]] if invocations else None
    src_ev = first_inv
    for i in op[3]:
        ev = events[i]
        if ev.type == "tool-invocation" and (src_ev is None or ev.order < src_ev.order):
            src_ev = ev
            break
    if src_ev is None and once_events:
        src_ev = once_events[0]
    server = tool = None
    if src_ev is not None:
        st = None if structs is None else structs[src_ev[0]]  # its Struct, when it has one
        if st is not None:  # (UNSET, for absent, is no string)
            server, tool = st.server, st.tool
            if type(server) is not str:
                server = None
            if type(tool) is not str:
                tool = None
        else:
            server, tool = _str(src_ev.get("server")), _str(src_ev.get("tool"))
    kind = "tool-invocation"
    if once_events and isinstance(once_events[0].get("operation"), str):
        kind = once_events[0].get("operation")

    if shaped.several_invocations:
        sid = safe_short(op_id)
        seen_first = False
        for p in invocations:
            inv = tool_events[p]
            if inv.attempt == 1:
                if seen_first:
                    diags.append(Diagnostic(
                        "operation-id-not-unique", "error", f"/events/{inv.index}/operation_id",
                        f"operation_id {sid} has a second attempt-1 tool-invocation: "
                        "operation_id MUST be unique among the operations in the vCon"))
                seen_first = True
            other_server = _str(inv.get("server")) != server
            if inv is not first_inv and (other_server or _str(inv.get("tool")) != tool):
                # at the member that differs (the server when both do)
                member = "server" if other_server else "tool"
                diags.append(Diagnostic(
                    "operation-target-mismatch", "error", f"/events/{inv.index}/{member}",
                    f"operation {sid}: this tool-invocation names "
                    f"{safe_short(inv.get('server'))} / {safe_short(inv.get('tool'))}, "
                    f"the first names {safe_short(server)} / {safe_short(tool)}"))

    plans = shaped.plans
    if shaped.gap:
        sid = sid or safe_short(op_id)
        # Never materialise range(1, highest): a recorded attempt may be 2**63.
        missing: list[int] = []
        prev = 0
        for a in plans:
            missing.extend(range(prev + 1, min(a.number, prev + 12 - len(missing))))
            prev = a.number
        after_gap = next(a for a in plans if a.number > missing[0])
        first_after = index[after_gap.first]
        shown = ", ".join(map(str, missing[:10])) + (", …" if len(missing) > 10 else "")
        diags.append(Diagnostic(
            "attempt-gap", "warning", f"/events/{first_after}/attempt",
            f"operation {sid}: attempt {shown} missing; attempts start "
            "at 1 and rise by one"))
    if shaped.several_attempts:
        prev_inv: Event | None = None
        for a in plans:
            if a.invocation is None:
                continue
            inv = tool_events[a.invocation]
            if prev_inv is not None and later(prev_inv, inv):
                sid = sid or safe_short(op_id)
                diags.append(Diagnostic(
                    "attempt-order", "warning", f"/events/{inv.index}/time",
                    f"operation {sid}: attempt {a.number} was invoked before attempt "
                    f"{prev_inv.attempt}"))
            prev_inv = inv

    found: list[Finding] = []
    # by attempt, then by the replay position of the first event named: each finding's key
    keys: list[tuple[int, int]] = []
    severity = _SEVERITY

    # The registered rules (viewer/model/findings.py); each attempt is flagged with the kinds
    # found about it.
    flagged = _NO_FLAGGED
    once_index = None
    if once_events:
        once = [(ev.attempt, ev) for ev in once_events if ev.attempt is not None]
        if once:
            flagged = {}
            by_number = {a.number: a for a in shaped.shape.attempts}
            for rule in _OPERATION_RULES:
                for n, at, msg in rule.check(by_number, once, tool_events):
                    sid = sid or safe_short(op_id)
                    flagged.setdefault(n, set()).add(rule.kind)
                    found.append(Finding(rule.kind, severity[rule.kind], op_id, n, at,
                                         sid + msg))
                    keys.append((n or 0, _first_order(at, events)))
            once_index = OnceIndex(once)  # numbers ascend: one pass

    attempts: list[Attempt] = []
    first_gov: Governing = NONE
    late_total = 0
    retries = 0
    any_escalated = False
    for n, steps, inv_pos, first_pos, end_pos, late_p, oom_p, final, fixed in plans:
        flags: set[str] | None = flagged.get(n)
        inv = None if inv_pos is None else tool_events[inv_pos]
        gov = NONE if once_index is None else once_index.governing(n)
        if gov is NONE:
            gov = standing.governing(kind, server, tool, inv or tool_events[first_pos])
        if not attempts:
            first_gov = gov
        rules = governed.get(gov)
        if rules is None:
            rules = governed[gov] = attempt_rules(gov)
        for rule in rules:  # most often none
            sid = sid or safe_short(op_id)
            if flags is None:
                flags = set()
            flags.add(rule.kind)
            at, msg = rule.check(n, gov, index[inv_pos if inv_pos is not None else first_pos])
            found.append(Finding(rule.kind, severity[rule.kind], op_id, n, at, sid + msg))
            keys.append((n, _first_order(at, events)))
        if fixed:
            sid = sid or safe_short(op_id)
            if flags is None:
                flags = set()
            for kind_, sev, at, first_at, msg in fixed:
                flags.add(kind_)
                found.append(Finding(kind_, sev, op_id, n, tuple([index[p] for p in at]),
                                     sid + msg))
                keys.append((n, -1 if first_at is None else tool_events[first_at][4]))
        late = tuple([index[p] for p in late_p]) if late_p else ()
        if late:
            late_total += len(late)
        escalated = flags is not None and "escalation" in flags
        if inv is None:
            a_server = a_tool = None
        elif inv is first_inv:  # the operation's target was read from it
            a_server, a_tool = server, tool
        else:
            a_server, a_tool = _str(inv.get("server")), _str(inv.get("tool"))
        attempts.append(Attempt(
            number=n,
            # the shape's steps, each with its event's index in place of its position
            steps=tuple([with_fields(s, event=index[s.event]) for s in steps]),
            start=tool_events[first_pos][3],  # Event.time
            end=None if end_pos is None else tool_events[end_pos][3],
            final_state=final,
            invocation=None if inv is None else inv[0],  # Event.index
            server=a_server,
            tool=a_tool,
            decision=gov.decision,
            decision_life=gov.life,
            decision_event=gov.event,
            late=late,
            out_of_model=tuple([index[p] for p in oom_p]) if oom_p else (),
            escalated=escalated,
            flags=frozenset(flags) if flags else _NO_FLAGS,
        ))
        if n > 1:
            retries += 1
        if escalated:
            any_escalated = True

    if attempts:
        outcome = _OUTCOME.get(final, _UNKNOWN)  # the last attempt's final state
        decision, life, dec_event = first_gov.decision, first_gov.life, first_gov.event
    else:
        last_once = once_events[-1] if once_events else None
        decision = decision_value(last_once) if last_once else None
        life = "once" if last_once else None
        dec_event = last_once.index if last_once else None
        outcome = (spec.DISALLOWED_OUTCOME if decision == "disallowed"
                   else spec.NOT_PERFORMED_OUTCOME)

    if found:
        if len(found) > 1:  # by their keys; a stable sort: ties keep the rules' order
            found = [f for _, f in sorted(zip(keys, found, strict=True), key=_FIRST)]
        findings.extend(found)
    first: Event = op[0]
    # Fifteen keywords at most: CPython passes sixteen or more through a dict it builds for
    # the call, several times slower; the two most often empty are set after, when not.
    operation = Operation(
        operation_id=op_id,
        operation=kind,
        server=server,
        tool=tool,
        decision=decision,
        decision_life=life,
        decision_event=dec_event,
        outcome=outcome,
        attempts=tuple(attempts),
        first_time=first.time,
        first_order=first.order,
        retries=retries,
        escalated=any_escalated,
        late_responses=late_total,
        flags=frozenset([f.kind for f in found]) if found else _NO_FLAGS,
    )
    if once_events or op[3]:
        operation = with_fields(
            operation,
            once_decisions=tuple([ev.index for ev in once_events]) if once_events else (),
            unassigned_events=tuple(op[3]) if op[3] else ())
    return operation
