"""Replay one operation's tool events through the draft's tool invocation state model.

Every event is applied and kept, in replay (time) order, even where the draft's table does not
allow it from the current state: such an event is marked out-of-model with the state it came
from, because a vCon records what was observed (README: "Replay"). Lateness and
duplicate-execution risk need the attempts side by side, so one operation is replayed at once.
"""

from __future__ import annotations

from collections.abc import Sequence
from heapq import heappop, heappush

import msgspec
from msgspec.structs import replace

from . import spec
from .types import Event, Step


class AttemptRun(msgspec.Struct):
    """Mutable replay state of one attempt; frozen into an ``Attempt`` by the builder."""

    number: int
    state: str | None = None
    input_from: str | None = None
    steps: list[Step] = msgspec.field(default_factory=list)
    invocation: Event | None = None
    late: list[int] = msgspec.field(default_factory=list)
    out_of_model: list[int] = msgspec.field(default_factory=list)


class DuplicateRisk(msgspec.Struct):
    earlier: int  # attempt number that completed after a later attempt was invoked
    later_invocation: int  # event index
    completing_event: int  # event index


class OperationRun(msgspec.Struct):
    attempts: dict[int, AttemptRun]
    duplicates: list[DuplicateRisk]
    invocations: list[Event]  # every tool-invocation, replay order


_TRANSITIONS = spec.TOOL_TRANSITIONS
_UNCHANGED = spec.UNCHANGED
_RETURN = spec.RETURN_FROM_INPUT
_RESPONSES = spec.TOOL_RESPONSE_TYPES
_LATE_STATES = spec.LATE_STATES
_INPUT_RETURN = spec.INPUT_RETURN_STATES
_FINAL = spec.FINAL_STATES
_COMPLETED = spec.COMPLETED
_RUNNING = spec.RUNNING


def replay_operation(events: Sequence[Event]) -> OperationRun:
    """Replay the tool events (with a usable attempt number) of one operation, in replay order.

    The transition of each event is the draft's table (``spec.TOOL_TRANSITIONS``); this loop is
    the hot path of the model, so it is written out rather than split into calls.
    """
    attempts: dict[int, AttemptRun] = {}
    duplicates: list[DuplicateRisk] = []
    invocations: list[Event] = []
    highest_invoked = 0
    watch: dict[int, int] = {}  # earlier attempt -> later invocation seen while it was active
    # Attempts started and not final, not yet in ``watch``: a set for membership and a min-heap
    # (stale entries dropped when popped) so that an invocation visits only the attempts below
    # it that it puts in ``watch``: linear in the events, not in attempts x invocations.
    active: set[int] = set()
    heap: list[int] = []
    for ev in events:
        n = ev.attempt
        assert n is not None
        run = attempts.get(n)
        if run is None:
            run = attempts[n] = AttemptRun(n)
        typ = ev.type
        before = run.state
        if typ == "tool-invocation":
            invocations.append(ev)
            if run.invocation is None:
                run.invocation = ev
            while heap and heap[0] < n:
                m = heappop(heap)
                if m in active:
                    active.discard(m)
                    watch[m] = ev.index
        allowed_from, to = _TRANSITIONS[typ]
        if to == _UNCHANGED:
            after = before
        elif to == _RETURN:
            after = run.input_from or _RUNNING
            run.input_from = None
        else:
            after = to
        if typ == "tool-input":
            run.input_from = before if before in _INPUT_RETURN else None
        late = typ in _RESPONSES and (before in _LATE_STATES or highest_invoked > n)
        oom = before not in allowed_from
        run.state = after
        if n not in watch:
            # Open until final: an attempt whose first events are not its tool-invocation
            # (progress with no state yet) has run as far as anyone knows, as for policy.
            if after not in _FINAL:
                if n not in active:
                    active.add(n)
                    heappush(heap, n)
            elif n in active:
                active.discard(n)
        run.steps.append(Step(event=ev.index, before=before, after=after, out_of_model=oom,
                              late=late))
        if late:
            run.late.append(ev.index)
        if oom:
            run.out_of_model.append(ev.index)
        if typ == "tool-invocation" and n > highest_invoked:
            highest_invoked = n
        if after == _COMPLETED and before != _COMPLETED:
            later_invocation = watch.get(n, -1)
            if later_invocation >= 0:
                duplicates.append(DuplicateRisk(n, later_invocation, ev.index))
                watch[n] = -1  # reported: once per attempt
    return OperationRun(attempts, duplicates, invocations)


class AttemptShape(msgspec.Struct, frozen=True):
    """One attempt of a ``Shape``: its replay, events named by their position among the
    operation's tool events."""

    number: int
    steps: tuple[Step, ...]  # ``event``: the position of the event, not its index
    state: str | None  # the state it ended in
    invocation: int | None  # position of its first tool-invocation
    late: tuple[int, ...]  # positions
    out_of_model: tuple[int, ...]
    duplicate: tuple[int, int] | None  # (later invocation, completing event) positions


class Shape(msgspec.Struct, frozen=True):
    """``replay_operation``'s answer for every operation whose tool events have one sequence
    of (attempt, type): replay reads nothing else, so the builder replays each sequence once
    and reuses the answer (a generated file of 88,000 operations has a few dozen)."""

    attempts: tuple[AttemptShape, ...]  # by attempt number
    invocations: tuple[int, ...]  # positions of every tool-invocation, replay order


def shape_of(events: Sequence[Event]) -> Shape:
    """The ``Shape`` of ``events`` (as ``replay_operation`` takes them), by replaying them."""
    run = replay_operation(events)
    pos = {ev.index: p for p, ev in enumerate(events)}
    dups = {d.earlier: (pos[d.later_invocation], pos[d.completing_event])
            for d in run.duplicates}
    attempts = tuple(
        AttemptShape(
            number=n,
            steps=tuple(replace(s, event=pos[s.event]) for s in a.steps),
            state=a.state,
            invocation=None if a.invocation is None else pos[a.invocation.index],
            late=tuple(pos[i] for i in a.late),
            out_of_model=tuple(pos[i] for i in a.out_of_model),
            duplicate=dups.get(n),
        )
        for n, a in sorted(run.attempts.items())
    )
    return Shape(attempts, tuple(pos[ev.index] for ev in run.invocations))
