"""The viewer's selection and finding navigation as plain functions over a model: no App, no
Textual, so they are tested on their own. The App holds the values (``sel``, ``attempt_sel``,
``finding_pos``...) and calls these to change them.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from typing import NamedTuple

from viewer.model.types import Finding, Model

#: (operation index, finding index); findings that name no operation sort last, under the
#: index ``len(model.operations)``.
OrderEntry = tuple[int, int]


class Step(NamedTuple):
    """Where ``n``/``N`` went: the finding's index, its place in the order, how many findings
    are in reach, whether the step wrapped around."""

    finding: int
    place: int
    total: int
    wrapped: bool


def finding_target(model: Model, f: Finding) -> tuple[int | None, int | None, int | None]:
    """(operation index, attempt number, event index) a finding points at: its operation, or
    the operation of its first event."""
    op_index = model.by_operation.get(f.operation_id) if f.operation_id else None
    event = f.events[0] if f.events else None
    if op_index is None and event is not None and 0 <= event < len(model.events):
        oid = model.events[event].operation_id
        op_index = model.by_operation.get(oid) if oid else None
    return op_index, f.attempt, event


def finding_order(model: Model) -> list[OrderEntry]:
    """Every finding in timeline order (by operation, then as the model lists them)."""
    last = len(model.operations)
    return sorted((last if t is None else t, i) for i, t in enumerate(
        finding_target(model, f)[0] for f in model.findings))


def in_reach(order: list[OrderEntry], shown: Sequence[int] | None) -> list[OrderEntry]:
    """The findings ``n`` visits: under a filter (``shown``), only those of the operations
    shown; without one (None), every one, those that name no operation too."""
    if shown is None:
        return order
    keep = set(shown)
    return [(o, i) for o, i in order if o in keep]


def step_finding(order: list[OrderEntry], operations: int, current: int | None,
                 last_visited: int, direction: int) -> Step | None:
    """The next (1) or previous (-1) finding from where the user is, as an editor's "next
    match": after the finding last visited while its operation is still the selected one
    (``current``, a model index), else from the selected operation on (its own findings
    first). None when ``order`` is empty."""
    if not order:
        return None
    on = next((k for k, (_, i) in enumerate(order) if i == last_visited), None) \
        if last_visited >= 0 else None
    if on is not None and current is not None and order[on][0] not in (current, operations):
        on = None  # the user moved on since: step from the selected operation instead
    if on is not None:
        k = on + direction
    elif current is None:
        k = 0 if direction > 0 else len(order) - 1
    elif direction > 0:
        k = bisect_left(order, (current, -1))  # the selected operation's first finding
    else:
        k = bisect_left(order, (current + 1, -1)) - 1  # ... or the last one before it
    wrapped = not 0 <= k < len(order)
    k %= len(order)
    return Step(order[k][1], k, len(order), wrapped)


def position_of(shown: Sequence[int], op_index: int) -> int | None:
    """Where operation ``op_index`` is among those shown (model order), or None if hidden."""
    k = bisect_left(shown, op_index)
    return k if k < len(shown) and shown[k] == op_index else None


def clamp(value: int, count: int) -> int:
    """``value`` kept within ``0..count-1`` (0 when there is nothing)."""
    return max(0, min(value, count - 1))


def stepped(value: int, delta: int, count: int) -> int:
    """``value`` moved by ``delta`` and kept within ``0..count-1``."""
    return clamp(value + delta, count)
