"""The finding rules: each kind of finding is one small named rule, registered here in order.

A rule says *when* a kind is found and *what its message says*; its severity, labels and filter
names live in ``spec.FINDING_TABLE`` alone. ``build.py`` runs the registries below instead of
writing findings inline. Four scopes, by what a rule needs to see:

* ``SHAPE_RULES``: what replay alone decides, per attempt of a replay shape (a sequence of
  (attempt, event type)); run once per shape and remembered, so adding one costs nothing per
  operation.
* ``OPERATION_RULES``: given an operation's replayed attempts and its once decisions.
* ``ATTEMPT_RULES``: given one attempt and the decision that governs it (policy).
* ``MODEL_RULES``: given every operation built, so a rule may look across operations; their
  findings follow the operations' own.

Within an operation, findings are ordered by attempt, then by the replay position of the first
event they name; ties keep the order of the registries above (operation, attempt, then shape
rules), and each registry's own order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Final, NamedTuple

from ..textsafe import safe
from . import spec
from .policy import Governing, later
from .replay import AttemptShape
from .types import Event, Finding, Operation

#: A shape rule's finding: (event positions in the operation's tool events, message after the
#: operation id).
ShapeFound = tuple[tuple[int, ...], str]
#: The shape key: (attempt, event type) of each tool event, by position.
ShapeKey = tuple[tuple[int | None, str], ...]


class ShapeRule(NamedTuple):
    """``check(attempt, previous attempt or None, key)``: the findings of one attempt."""

    kind: str
    check: Callable[[AttemptShape, AttemptShape | None, ShapeKey], Iterable[ShapeFound]]


class OperationRule(NamedTuple):
    """``check(attempts by number, once decisions (number, event), tool events)``: (attempt,
    event indices, message after the short operation id) for each finding."""

    kind: str
    check: Callable[[dict[int, AttemptShape], list[tuple[int, Event]], Sequence[Event]],
                    Iterable[tuple[int, tuple[int, ...], str]]]


class AttemptRule(NamedTuple):
    """``applies(governing decision)``: whether the rule finds anything about an attempt it
    governs (a function of the decision alone, so the builder remembers it per decision);
    then ``check(number, governing decision, index of its invocation or first event)``: (event
    indices, message after the short operation id)."""

    kind: str
    applies: Callable[[Governing], bool]
    check: Callable[[int, Governing, int], tuple[tuple[int, ...], str]]


class ModelRule(NamedTuple):
    """``check(operations, events)``: (operation id, attempt or None, event indices, message)
    for each finding."""

    kind: str
    check: Callable[[Sequence[Operation], Sequence[Event]],
                    Iterable[tuple[str, int | None, tuple[int, ...], str]]]


# --- Shape rules: replay alone decides them ------------------------------------------------
def out_of_model(a: AttemptShape, prev: AttemptShape | None, key: ShapeKey
                 ) -> Iterable[ShapeFound]:
    """An event that is not a transition of the draft's state model from where it arrived."""
    for step in a.steps if a.out_of_model else ():
        if step.out_of_model:
            p = step.event
            yield ((p,), f" attempt {a.number}: {safe(key[p][1])} from "
                   f"{step.before or 'the start of the attempt'} "
                   "is not a transition of the draft's state model")


def late_response(a: AttemptShape, prev: AttemptShape | None, key: ShapeKey
                  ) -> Iterable[ShapeFound]:
    """A response after the attempt ended, or after a later attempt was invoked."""
    for step in a.steps if a.late else ():
        if step.late:
            p, before = step.event, step.before
            yield ((p,), f" attempt {a.number}: {safe(key[p][1])} arrived "
                   + (f"while {before}" if before in spec.LATE_STATES
                      else "after a later attempt was invoked"))


def unterminated(a: AttemptShape, prev: AttemptShape | None, key: ShapeKey
                 ) -> Iterable[ShapeFound]:
    """An attempt whose record reaches no final state. Said as what the record holds: the call
    may still be running, may have been lost, or may have ended where nothing recorded it
    (a transcript that notes only that a call returned)."""
    if a.state not in spec.FINAL_STATES:
        yield ((a.steps[-1].event,), f" attempt {a.number} has no recorded end "
               f"(last state {a.state or 'none'})")


def retry(a: AttemptShape, prev: AttemptShape | None, key: ShapeKey) -> Iterable[ShapeFound]:
    """Every attempt after the first."""
    if a.number > 1:
        yield ((a.steps[0].event,), f": attempt {a.number} is a retry")


def escalation(a: AttemptShape, prev: AttemptShape | None, key: ShapeKey
               ) -> Iterable[ShapeFound]:
    """An attempt after one the tool denied."""
    if prev is not None and prev.state == spec.DENIED:
        yield ((a.steps[0].event,), f": attempt {a.number} retried after the tool denied "
               f"attempt {prev.number}")


def duplicate_execution_risk(a: AttemptShape, prev: AttemptShape | None, key: ShapeKey
                             ) -> Iterable[ShapeFound]:
    """An attempt that completed after a later one was invoked: the operation may have run
    twice."""
    if a.duplicate is not None:
        later_inv, completing = a.duplicate
        yield ((later_inv, completing), f": attempt {a.number} completed after attempt "
               f"{key[later_inv][0]} was invoked: the operation may have run twice")


SHAPE_RULES: Final = (
    ShapeRule("out-of-model", out_of_model),
    ShapeRule("late-response", late_response),
    ShapeRule("unterminated", unterminated),
    ShapeRule("retry", retry),
    ShapeRule("escalation", escalation),
    ShapeRule("duplicate-execution-risk", duplicate_execution_risk),
)


def shape_findings(attempts: Sequence[AttemptShape], key: ShapeKey
                   ) -> tuple[tuple[tuple[str, tuple[int, ...], str], ...], ...]:
    """Per attempt of a shape, every shape rule's findings as (kind, positions, message), in
    the registry's order."""
    out = []
    prev: AttemptShape | None = None
    for a in attempts:
        out.append(tuple((rule.kind, at, msg)
                         for rule in SHAPE_RULES for at, msg in rule.check(a, prev, key)))
        prev = a
    return tuple(out)


# --- Operation rules -------------------------------------------------------------------------
def decision_after_invocation(by_number: dict[int, AttemptShape],
                              once: list[tuple[int, Event]], tool_events: Sequence[Event]
                              ) -> Iterable[tuple[int, tuple[int, ...], str]]:
    """A once decision recorded after the tool-invocation of the attempt it governs."""
    for n, dec in once:
        a = by_number.get(n)
        if a is not None and a.invocation is not None:
            inv = tool_events[a.invocation]
            if later(dec, inv):
                yield (n, (dec.index, inv.index), f" attempt {n}: the once decision was "
                       "recorded after the tool-invocation")


OPERATION_RULES: Final = (
    OperationRule("decision-after-invocation", decision_after_invocation),
)


# --- Attempt rules: the decision that governs an attempt --------------------------------------
def standing_conflict(n: int, gov: Governing, at: int) -> tuple[tuple[int, ...], str]:
    """A tool-level and a server-level standing decision that both apply and disagree."""
    return gov.conflict or (), (f" attempt {n}: a tool-level and a server-level standing decision "
                          "both apply and disagree; the tool-level one governs")


def policy_violation(n: int, gov: Governing, at: int) -> tuple[tuple[int, ...], str]:
    """An attempt run although the decision governing it is disallowed."""
    return (gov.event, at), (f" attempt {n} was invoked although its {gov.life} decision is "
                             "disallowed")


def permission_inferred(n: int, gov: Governing, at: int) -> tuple[tuple[int, ...], str]:
    """An attempt run under permission-required, whose grant the recording does not hold."""
    return (gov.event,), f" attempt {n} ran under permission-required: the grant is not recorded"


ATTEMPT_RULES: Final = (
    AttemptRule("standing-conflict", lambda gov: gov.conflict is not None, standing_conflict),
    AttemptRule("policy-violation", lambda gov: gov.decision == "disallowed", policy_violation),
    AttemptRule("permission-inferred", lambda gov: gov.decision == "permission-required",
                permission_inferred),
)


def attempt_rules(gov: Governing) -> tuple[AttemptRule, ...]:
    """The attempt rules that find something about an attempt ``gov`` governs, in order."""
    return tuple(rule for rule in ATTEMPT_RULES if rule.applies(gov))


# --- Model rules: may look across operations ---------------------------------------------------
MODEL_RULES: Final[tuple[ModelRule, ...]] = ()


def model_findings(operations: Sequence[Operation], events: Sequence[Event]) -> list[Finding]:
    """Every model rule's findings, after the operations' own, in the registry's order."""
    sev = spec.FINDING_SEVERITY
    return [Finding(rule.kind, sev[rule.kind], op_id, n, at, msg)
            for rule in MODEL_RULES for op_id, n, at, msg in rule.check(operations, events)]


def registered_kinds() -> list[str]:
    """Every registered rule's kind, in registry order (a kind may have one rule only)."""
    return [r.kind for rules in (SHAPE_RULES, OPERATION_RULES, ATTEMPT_RULES, MODEL_RULES)
            for r in rules]
