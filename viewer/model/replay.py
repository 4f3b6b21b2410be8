"""Replay one operation's tool events through the draft's tool invocation state model.

Every event is applied and kept, in replay (time) order, even where the draft's table does not
allow it from the current state: such an event is marked out-of-model with the state it came
from, because a vCon records what was observed (INTERPRETATION 5). Lateness and
duplicate-execution risk need the attempts side by side, so one operation is replayed at once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from . import spec
from .types import Event, Step


@dataclass(slots=True)
class AttemptRun:
    """Mutable replay state of one attempt; frozen into an ``Attempt`` by the builder."""

    number: int
    state: str | None = None
    input_from: str | None = None
    steps: list[Step] = field(default_factory=list)
    invocation: Event | None = None
    completing_event: int | None = None


@dataclass(slots=True)
class DuplicateRisk:
    earlier: int  # attempt number that completed after a later attempt was invoked
    later_invocation: int  # event index
    completing_event: int  # event index


@dataclass(slots=True)
class OperationRun:
    attempts: dict[int, AttemptRun]
    duplicates: list[DuplicateRisk]
    invocations: list[Event]  # every tool-invocation, replay order


def step(run: AttemptRun, ev: Event, moved_on: bool) -> Step:
    """Apply one event to its attempt; ``moved_on``: a higher attempt was already invoked."""
    before = run.state
    allowed_from, to = spec.TOOL_TRANSITIONS[ev.type]
    in_model = before in allowed_from
    if to == spec.UNCHANGED:
        after = before
    elif to == spec.RETURN_FROM_INPUT:
        after = run.input_from or spec.RUNNING
        run.input_from = None
    else:
        after = to
    if ev.type == "tool-input":
        run.input_from = before if before in spec.INPUT_RETURN_STATES else None
    elif ev.type == "tool-invocation" and run.invocation is None:
        run.invocation = ev
    late = ev.type in spec.TOOL_RESPONSE_TYPES and (before in spec.LATE_STATES or moved_on)
    run.state = after
    s = Step(ev.index, before, after, not in_model, late)
    run.steps.append(s)
    return s


def replay_operation(events: Sequence[Event]) -> OperationRun:
    """Replay the tool events (with a usable attempt number) of one operation, in replay order."""
    attempts: dict[int, AttemptRun] = {}
    duplicates: list[DuplicateRisk] = []
    invocations: list[Event] = []
    highest_invoked = 0
    watch: dict[int, int] = {}  # earlier attempt -> later invocation seen while it was active
    reported: set[int] = set()
    for ev in events:
        n = ev.attempt
        assert n is not None
        run = attempts.get(n)
        if run is None:
            run = attempts[n] = AttemptRun(n)
        if ev.type == "tool-invocation":
            invocations.append(ev)
            for m, other in attempts.items():
                if (
                    m < n
                    and m not in watch
                    and other.state is not None
                    and other.state not in spec.FINAL_STATES
                ):
                    watch[m] = ev.index
        s = step(run, ev, moved_on=highest_invoked > n)
        if ev.type == "tool-invocation" and n > highest_invoked:
            highest_invoked = n
        if (
            s.after == spec.COMPLETED
            and s.before != spec.COMPLETED
            and n in watch
            and n not in reported
        ):
            reported.add(n)
            duplicates.append(DuplicateRisk(n, watch[n], ev.index))
    return OperationRun(attempts, duplicates, invocations)
