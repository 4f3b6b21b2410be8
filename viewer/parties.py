"""Which party ran an operation, and whether it is the lead agent's or a sub-agent's.

The party of an operation is the one on its first tool event (the invocation, in practice), or,
for an operation that never ran, on its first once decision; the lead is the party of the first
operation in the file: the agent the person talks to. Any other party's operations were
delegated (a sub-agent) and carry ``PARTY_GLYPH``. The TUI and every report read it here, so a
sub-agent's call looks the same everywhere.
"""

from __future__ import annotations

from typing import Any

from viewer.glyphs import PARTY_GLYPH
from viewer.model.types import Model, Operation
from viewer.textsafe import safe


def op_party(model: Model, op: Operation) -> int | None:
    """The party index on the operation's first tool event, else on its first once decision
    (an operation that never ran); None: not recorded."""
    events = model.events
    for attempt in op.attempts:
        if attempt.steps:
            i = attempt.steps[0].event
            return events[i].party if 0 <= i < len(events) else None
    if op.once_decisions:
        i = op.once_decisions[0]
        return events[i].party if 0 <= i < len(events) else None
    return None


def lead_party(model: Model) -> int | None:
    """The lead agent's party: the first operation's. O(1)."""
    return op_party(model, model.operations[0]) if model.operations else None


def _entry(model: Model, party: int) -> dict[str, Any] | None:
    parties = model.parties
    if 0 <= party < len(parties) and isinstance(parties[party], dict):
        return parties[party]
    return None


def party_name(model: Model, party: int | None) -> str:
    """The party's name as recorded (sanitised), or ``party N`` when it has none."""
    if party is None:
        return ""
    p = _entry(model, party)
    name = p.get("name") if p is not None else None
    if isinstance(name, str) and name:
        return safe(name)
    return f"party {party}"


def party_record(model: Model, party: int | None) -> dict[str, Any] | None:
    """``{"index", "name", "role"}`` as the parties array gives them (exact, unsanitised: the
    summary JSON escapes them), a name or role that is not a string as None; None for no party."""
    if party is None:
        return None
    p = _entry(model, party) or {}
    name, role = p.get("name"), p.get("role")
    return {"index": party, "name": name if isinstance(name, str) else None,
            "role": role if isinstance(role, str) else None}


def is_delegated(model: Model, op: Operation, lead: int | None) -> bool:
    """True when another party than the lead ran ``op`` (a sub-agent's operation)."""
    party = op_party(model, op)
    return party is not None and lead is not None and party != lead


def delegated_party(model: Model, op: Operation, lead: int | None) -> int | None:
    """The sub-agent's party that ran ``op``; None for the lead agent's (or an unknown)."""
    return op_party(model, op) if is_delegated(model, op, lead) else None


def delegated_mark(model: Model, op: Operation, lead: int | None) -> str:
    """``↳ name`` (sanitised) for a sub-agent's operation, else ""."""
    if not is_delegated(model, op, lead):
        return ""
    return f"{PARTY_GLYPH} {party_name(model, op_party(model, op))}"
