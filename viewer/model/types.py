"""The immutable model of one vCon: what the TUI and every export present.

Events are NamedTuples (cheap to build by the hundred thousand); replay steps, attempts,
operations, diagnostics, findings, standing decisions and derivations frozen msgspec Structs:
a Struct is built by field name in C (a NamedTuple's keyword ``__new__`` is a Python call, a
frozen dataclass sets each field through object.__setattr__) and its fields are slot reads.
Steps, attempts and operations are ``kw_only`` and, being no tuples, cannot be indexed or
unpacked: no code depends on the order of their fields (issue 16).
The rest are frozen, slotted dataclasses. Nothing here is mutated after ``build_model``
returns, so the TUI and the exports share one model without copying. String values are exactly
as recorded (not sanitised): presenters pass them through ``viewer.textsafe`` before showing
them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal, NamedTuple

import msgspec
from msgspec import UNSET

Severity = Literal["error", "warning", "info"]
EventKind = Literal["decision", "tool", "context"]


_NO_FIELD = object()


class EventArray:
    """What an ``events`` array read by the model is (``columns.Events``): ``array[i]`` the
    event as recorded; ``structs[i]`` its column's Struct (None when it has none), whose
    fields hold its members (``UNSET`` when absent)."""

    __slots__ = ()
    structs: list[Any]

    def column(self, name: str) -> list[Any]:
        """Member ``name`` of every event, as ``Event.get`` reads it."""
        raise NotImplementedError

    def distinct(self, name: str) -> frozenset[Any]:
        """The distinct values (those that can be in a set) of member ``name``."""
        raise NotImplementedError

    def read_values(self, indices: Iterable[int]) -> None:
        """Decode at once the values of the events at ``indices`` that ``array[i]`` would
        decode one at a time (the same values, kept)."""

    def whole(self, i: int) -> bool:
        """True when ``structs[i]`` is the whole event (its column allows no other member):
        a member it has no field for is absent."""
        return False


class Event(NamedTuple):
    """One Event Object, by its index in the top-level ``events`` array."""

    index: int
    type: str  # "" when the recorded type is missing or not a string
    kind: EventKind  # decision (policy-decision), tool (the eleven), context (anything else)
    time: datetime | None  # aware (UTC assumed when the record had no offset); None: unparsable
    order: int  # position in replay order
    operation_id: str | None  # None when missing or unusable
    attempt: int | None  # None when missing or not an integer >= 1
    party: int | None
    sessions: tuple[int, ...]
    #: The ``events`` array it was read from (``EventArray``: ``columns.Events``, which decodes
    #: an event's dict only when it is asked for); its value itself when built by hand.
    source: Any

    @property
    def raw(self) -> Any:
        """The Event Object as recorded (a dict, or whatever the array holds); never modify."""
        s = self[9]
        return s[self[0]] if isinstance(s, EventArray) else s

    def get(self, name: str) -> Any:
        """The member ``name`` as ``raw.get`` reads it (None when absent or ``raw`` is no
        object), from its column's Struct when it has one, so that no dict is decoded."""
        s = self[9]
        if isinstance(s, EventArray):
            st = s.structs[self[0]]
            if st is not None:
                v = getattr(st, name, _NO_FIELD) if name != "type" else self[1]
                if v is not _NO_FIELD:
                    return None if v is UNSET else v
                if s.whole(self[0]):  # no such member: no value to decode for it
                    return None
            s = s[self[0]]  # no Struct, or no field of it: the value
        return s.get(name) if type(s) is dict else None


class Step(msgspec.Struct, frozen=True, gc=False, kw_only=True):
    """One event replayed in an attempt's state model. (``gc=False``: the model's most
    numerous object holds no container that could lead back to it.)"""

    event: int  # event index
    before: str | None  # state before (None: the attempt had not started)
    after: str | None  # state after
    out_of_model: bool  # the draft's table does not allow this transition from `before`
    late: bool  # a tool response after the agent stopped waiting or moved on


class Diagnostic(msgspec.Struct, frozen=True):
    """A conformance problem in the input, pointing into it with a JSON Pointer."""

    code: str
    severity: Severity
    pointer: str
    message: str


class Finding(msgspec.Struct, frozen=True):
    """Something a reviewer should look at, derived by replay (README: "Late responses...")."""

    kind: str
    severity: Severity
    operation_id: str | None
    attempt: int | None
    events: tuple[int, ...]
    message: str


class StandingDecision(msgspec.Struct, frozen=True):
    """A policy-decision with policy_life "standing"."""

    event: int
    time: datetime | None
    operation: str | None
    server: str | None
    tool: str | None  # None: all tools of the server
    decision: str | None
    reason: str | None
    replaced_by: int | None  # event index of the next standing decision for the same target
    order: int = 0  # replay position


class Attempt(msgspec.Struct, frozen=True, gc=False, kw_only=True):
    """One attempt of an operation, replayed: built once per attempt, by the hundred thousand,
    and never changed (nothing in it leads back to it: ``gc=False``)."""

    number: int
    steps: tuple[Step, ...]  # replay order
    start: datetime | None
    end: datetime | None  # time of the last event when final_state is final, else None
    final_state: str | None
    invocation: int | None  # event index of its (first) tool-invocation
    server: str | None  # as named by its tool-invocation
    tool: str | None
    decision: str | None  # governing decision value
    decision_life: str | None  # "once" | "standing" | None
    decision_event: int | None
    late: tuple[int, ...]
    out_of_model: tuple[int, ...]
    escalated: bool  # its predecessor ended Denied
    flags: frozenset[str]  # finding kinds attached to this attempt

    @property
    def events(self) -> tuple[int, ...]:
        return tuple([s.event for s in self.steps])

    @property
    def states(self) -> tuple[str | None, ...]:
        return tuple([s.after for s in self.steps])


class Operation(msgspec.Struct, frozen=True, gc=False, kw_only=True):
    """Every event of one operation_id, and what replay decided about it."""

    operation_id: str
    operation: str  # kind: "tool-invocation"
    server: str | None
    tool: str | None
    decision: str | None  # governing the first attempt (no attempt: its once decision)
    decision_life: str | None
    decision_event: int | None
    outcome: str  # README: "Outcome"
    attempts: tuple[Attempt, ...]  # by attempt number
    once_decisions: tuple[int, ...] = ()  # event indices, replay order
    unassigned_events: tuple[int, ...] = ()
    first_time: datetime | None
    first_order: int  # replay position of its first event
    retries: int
    escalated: bool
    late_responses: int
    flags: frozenset[str]  # finding kinds on the operation or any of its attempts

    @property
    def target(self) -> str:
        return f"{self.server or '?'} / {self.tool or '*'}"


@dataclass(frozen=True, slots=True)
class Signature:
    """One JWS signature of one signed layer: its headers and what verifying it found
    (``viewer.signatures``). ``verified`` is one of ``spec.SIGNATURE_STATUSES``; strings taken
    from the certificates (``subject``, ``chain``, ``anchor``) are as recorded, not sanitised."""

    alg: str | None
    kid: str | None
    x5c: int  # number of certificates in the chain
    x5u: str | None
    uuid: str | None
    layer: int = 1  # 1: the outermost signed layer
    index: int = 0  # position in the layer's ``signatures`` array
    verified: str = "unverifiable"  # verified | valid-signature-untrusted | invalid | unverifiable
    reason: str | None = None  # why not verified (None when verified)
    subject: str | None = None  # the x5c leaf's subject (RFC 4514)
    chain: tuple[str, ...] = ()  # subjects of the x5c certificates, leaf first
    anchor: str | None = None  # subject of the trust anchor the chain reached
    checked_at: datetime | None = None  # the time the certificates' dates were checked at
    time_source: str | None = None  # where that time came from (see viewer.signatures)

    @property
    def status(self) -> str:
        """The verification status (the same as ``verified``)."""
        return self.verified


@dataclass(frozen=True, slots=True)
class Source:
    """Where the vCon came from and in which form."""

    file: str  # path as given, or "-" for stdin
    sha256: str  # of the bytes read (before any gunzip)
    size: int
    form: Literal["unsigned", "signed", "encrypted"]
    gzip: bool
    uuid: str | None
    extensions: tuple[str, ...]
    critical: tuple[str, ...]
    unsupported_critical: tuple[str, ...]
    critical_override: bool  # produced under --ignore-critical
    signatures: tuple[Signature, ...] = ()
    signed_layers: int = 0


class Derivation(msgspec.Struct, frozen=True):
    """How the operations shown were derived when the file's own events are not
    tool-invocation events: lifted from a pre-draft vCon shape, or imported from an agent
    recording (a Claude Code transcript, an OTLP export, ...). Every view says so."""

    format: str  # "vcon-mcp-proxy", "claude-code", "otlp", ...: what was read
    title: str  # for people: "vcon-mcp-proxy dialogs", "Claude Code transcript"
    objects: int  # input objects read (dialogs, lines, records)
    unit: str  # what ``objects`` counts: "dialogs", "lines", "records", "spans"
    mapped: int  # objects that produced or affected events
    ignored: int  # objects that are not tool traffic (counted, not shown)
    unmapped: int  # objects that could not be mapped
    times: str = "recorded"  # recorded | partial | order-only (synthetic times)

    def line(self) -> str:
        """One line for headers: 'derived from 64 dialogs (vcon-mcp-proxy) · 3 not mapped'."""
        unit = self.unit[:-1] if self.objects == 1 and self.unit.endswith("s") else self.unit
        out = f"derived from {self.objects:,} {unit} ({self.title})"
        if self.unmapped:
            out += f" · {self.unmapped:,} not mapped"
        if self.times == "order-only":
            out += " · times are order only"
        elif self.times == "partial":
            out += " · some times inferred"
        return out


@dataclass(frozen=True, slots=True)
class Model:
    source: Source
    vcon: dict[str, Any]  # the unwrapped vCon as parsed; never modify
    events: tuple[Event, ...]  # array order
    replay: tuple[int, ...]  # event indices in replay order
    operations: tuple[Operation, ...]  # by first event time
    standing: tuple[StandingDecision, ...]  # replay order
    findings: tuple[Finding, ...]
    diagnostics: tuple[Diagnostic, ...]
    context: tuple[int, ...]  # indices of non-lifecycle events, replay order
    by_operation: dict[str, int] = field(default_factory=dict)  # operation_id -> operations idx
    #: JSON Pointers of the objects the events were derived from (lifting, viewer.importers);
    #: () when the events are the file's own. When set, ``vcon`` is a derived copy.
    derived_from: tuple[str, ...] = ()
    #: What was derived from what, when ``derived_from`` is set (None for the file's own events).
    derivation: Derivation | None = None
    #: Set while the per-event conformance checks are put off (``build.build_model`` with
    #: ``check_events=False``): ``diagnostics`` then lacks them; ``build.complete_checks``
    #: adds them. (Where the event loop's diagnostics start and end in ``diagnostics``.)
    unchecked: tuple[int, int] | None = None
    #: The loader's duplicate-key count, when it was put off with the event checks
    #: (``viewer.load.KeyCheck``: the viewer's way in); ``build.complete_checks`` makes it.
    key_check: Any = None
    #: Operations still to replay: set only in the first model of ``build.build_stages``,
    #: which holds the first operations (the viewer shows them while the rest replay).
    pending_operations: int = 0

    def operation(self, operation_id: str) -> Operation | None:
        i = self.by_operation.get(operation_id)
        return None if i is None else self.operations[i]

    @property
    def parties(self) -> list[Any]:
        v = self.vcon.get("parties")
        return v if isinstance(v, list) else []

    @property
    def attachments(self) -> list[Any]:
        v = self.vcon.get("attachments")
        return v if isinstance(v, list) else []

    @property
    def sessions(self) -> list[Any]:
        v = self.vcon.get("sessions")
        if not isinstance(v, list):
            v = self.vcon.get("session")
        return v if isinstance(v, list) else []

    @property
    def dialog(self) -> list[Any]:
        v = self.vcon.get("dialog")
        return v if isinstance(v, list) else []

    def read_raw(self, indices: Iterable[int]) -> None:
        """Decode at once what ``Event.raw`` reads of the events at ``indices`` (the same
        values, kept): for a reader about to quote many of them."""
        array = self.events[0][9] if self.events else None
        if isinstance(array, EventArray):
            array.read_values(indices)

    def time_span(self) -> tuple[datetime | None, datetime | None]:
        """The earliest and latest event times. Replay order sorts the parsed times, so these
        are the first and last timed events in it: no walk over every event."""
        events = self.events
        first = next((events[i].time for i in self.replay if events[i].time is not None), None)
        last = next((events[i].time for i in reversed(self.replay)
                     if events[i].time is not None), None)
        return first, last

    def counts(self, findings: Iterable[Finding] | None = None, *,
               diagnostics: bool = True) -> dict[str, int]:
        """The one count by severity, most serious first: the model's findings (or those given,
        such as the ones a report selects) and, unless ``diagnostics`` is false, its
        diagnostics. Headers, reports, the summary and the fleet tables all read it."""
        out = {"error": 0, "warning": 0, "info": 0}
        for f in self.findings if findings is None else findings:
            out[f.severity] += 1
        if diagnostics:
            for d in self.diagnostics:
                out[d.severity] += 1
        return out
