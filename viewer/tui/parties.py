"""Which party ran an operation, and whether it is the lead agent's or a sub-agent's.

The party of an operation is the one on its first tool event (the invocation, in practice);
the lead is the party of the first operation in the file: the agent the person talks to.
Any other party's operations were delegated (a sub-agent) and carry ``PARTY_GLYPH``.
"""

from __future__ import annotations

from viewer.model.types import Model, Operation
from viewer.textsafe import safe


def op_party(model: Model, op: Operation) -> int | None:
    """The party index on the operation's first tool event (None: not recorded)."""
    for attempt in op.attempts:
        if attempt.steps:
            return model.events[attempt.steps[0].event].party
    return None


def lead_party(model: Model) -> int | None:
    """The lead agent's party: the first operation's. O(1)."""
    return op_party(model, model.operations[0]) if model.operations else None


def party_name(model: Model, party: int | None) -> str:
    """The party's name as recorded (sanitised), or ``party N`` when it has none."""
    if party is None:
        return ""
    parties = model.parties
    if 0 <= party < len(parties) and isinstance(parties[party], dict):
        name = parties[party].get("name")
        if isinstance(name, str) and name:
            return safe(name)
    return f"party {party}"


def is_delegated(model: Model, op: Operation, lead: int | None) -> bool:
    """True when another party than the lead ran ``op`` (a sub-agent's operation)."""
    party = op_party(model, op)
    return party is not None and lead is not None and party != lead
