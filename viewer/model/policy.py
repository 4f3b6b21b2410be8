"""Policy decisions: which decision governs an attempt (README, How vcon-view reads the drafts:
"Which decision governs an attempt").

Once decisions belong to their operation; standing decisions apply to a target, the server and
one tool or all of its tools, from their time until a later standing decision for the same
operation kind and target replaces them.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable
from typing import Any

import msgspec

from . import spec
from .times import EARLIEST
from .types import Event, StandingDecision

TargetKey = tuple[str | None, str | None, str | None]  # (operation kind, server, tool or None)


class Governing(msgspec.Struct, frozen=True):
    decision: str | None
    life: str | None  # "once" | "standing"
    event: int | None
    conflict: tuple[int, int] | None = None  # (tool-level event, server-level event) disagreeing


NONE = Governing(None, None, None)


def _str(v: object) -> str | None:
    return v if isinstance(v, str) else None


def decision_value(ev: Event) -> str | None:
    """The recorded decision when it is one of the draft's values, else None (its diagnostic
    says what was recorded)."""
    v = ev.get("decision")
    return v if v in spec.DECISIONS else None


def at_or_before(dec: Event, when: Event) -> bool:
    """The decision was in effect at ``when``: compare instants, else replay order."""
    if dec.time is not None and when.time is not None:
        return dec.time <= when.time
    return dec.order < when.order


class StandingIndex:
    """Standing decisions by target, in replay order, with their replacements."""

    def __init__(self, decisions: Iterable[Event]) -> None:
        self.by_target: dict[TargetKey, list[Event]] = {}
        #: Standing decisions with no usable target (operation or server missing or not a
        #: string, tool present but not a string): listed, but they govern and replace nothing
        #: (their diagnostics say why). A wrong-typed tool is not "all tools of the server".
        self.untargeted: list[Event] = []
        for ev in decisions:
            tool = ev.get("tool")
            if (isinstance(ev.get("operation"), str) and isinstance(ev.get("server"), str)
                    and (tool is None or isinstance(tool, str))):
                self.by_target.setdefault(self.key(ev), []).append(ev)
            else:
                self.untargeted.append(ev)
        #: (operation, server, tool) -> (time after which the answer no longer changes, or
        #: None when unknown; the answer then). See ``governing``.
        self._settled: dict[TargetKey, tuple[Any, Governing]] = {}
        #: key -> the decisions with a time and their times, those without and their replay
        #: positions, the replay positions of all (see ``in_effect``); made when first needed.
        self._split: dict[TargetKey, tuple[list[Event], list[Any], list[Event], list[int],
                                           list[int]]] = {}
        #: (tool-level decision's index or None, server-level one's) -> the answer: one
        #: ``Governing`` per pair met (see ``_answer``).
        self._answers: dict[tuple[int | None, int | None], Governing] = {}

    @staticmethod
    def key(ev: Event) -> TargetKey:
        return (_str(ev.get("operation")), _str(ev.get("server")), _str(ev.get("tool")))

    def records(self) -> list[StandingDecision]:
        """Every standing decision with ``replaced_by``, in replay order."""
        out: list[StandingDecision] = []
        for evs in (*self.by_target.values(), *([ev] for ev in self.untargeted)):
            for i, ev in enumerate(evs):
                nxt = evs[i + 1].index if i + 1 < len(evs) else None
                out.append(
                    StandingDecision(
                        event=ev.index,
                        time=ev.time,
                        operation=_str(ev.get("operation")),
                        server=_str(ev.get("server")),
                        tool=_str(ev.get("tool")),
                        decision=decision_value(ev),
                        reason=_str(ev.get("reason")),
                        replaced_by=nxt,
                        order=ev.order,
                    )
                )
        out.sort(key=lambda d: d.order)
        return out

    def in_effect(self, key: TargetKey, when: Event) -> Event | None:
        """The last standing decision for ``key`` made at or before ``when``.

        The decisions are in replay order, so those with a time have non-decreasing times and
        those without have rising replay positions: ``at_or_before`` is monotone on each of the
        two sublists, and the answer is the later (in replay order) of a binary search in each.
        Logarithmic per look-up, so many standing decisions for one target stay linear.
        """
        decisions = self.by_target.get(key)
        if not decisions:
            return None
        split = self._split.get(key)
        if split is None:
            split = self._split[key] = _split(decisions)
        timed, times, untimed, orders, all_orders = split
        best: Event | None = None
        if when.time is None:  # replay order decides for every decision
            i = bisect_left(all_orders, when.order)
            return decisions[i - 1] if i else None
        i = bisect_right(times, when.time)
        if i:
            best = timed[i - 1]
        j = bisect_left(orders, when.order)
        if j and (best is None or untimed[j - 1].order > best.order):
            best = untimed[j - 1]
        return best

    def governing(self, operation: str | None, server: str | None, tool: str | None,
                  when: Event) -> Governing:
        """Tool-level before server-level; a disagreement between them is reported."""
        if not self.by_target:
            return NONE
        # Most attempts come after every standing decision for their target: once ``when`` is
        # at or after the last decision of both look-ups, each picks its last decision and the
        # answer is that of the end of the recording, computed once per target.
        key = (operation, server, tool)
        settled = self._settled.get(key)
        if settled is None:
            settled = self._settled[key] = self._settle(operation, server, tool)
        since = settled[0]
        t = when[3]  # Event.time
        if since is not None and t is not None and since <= t:
            return settled[1]
        tool_level = self.in_effect((operation, server, tool), when) if tool is not None else None
        return self._answer(tool_level, self.in_effect((operation, server, None), when))

    def _answer(self, tool_level: Event | None, server_level: Event | None) -> Governing:
        """The decision that governs given the tool-level and the server-level standing
        decisions in effect (None: none), made once per pair."""
        pair = (None if tool_level is None else tool_level.index,
                None if server_level is None else server_level.index)
        got = self._answers.get(pair)
        if got is None:
            got = self._answers[pair] = self._decide(tool_level, server_level)
        return got

    @staticmethod
    def _decide(tool_level: Event | None, server_level: Event | None) -> Governing:
        """Tool-level before server-level; a disagreement between them is reported."""
        chosen = tool_level or server_level
        if chosen is None:
            return NONE
        conflict = None
        if (
            tool_level is not None
            and server_level is not None
            and decision_value(tool_level) != decision_value(server_level)
        ):
            conflict = (tool_level.index, server_level.index)
        return Governing(decision_value(chosen), "standing", chosen.index, conflict)


    def _settle(self, operation: str | None, server: str | None,
                tool: str | None) -> tuple[Any, Governing]:
        """(time of the last decision either look-up can pick, the answer from then on);
        (None, NONE) when a last decision has no time (``governing`` then always searches)."""
        tool_list = self.by_target.get((operation, server, tool)) if tool is not None else None
        server_list = self.by_target.get((operation, server, None))
        tool_level = tool_list[-1] if tool_list else None
        server_level = server_list[-1] if server_list else None
        since = EARLIEST
        for ev in (tool_level, server_level):
            if ev is not None:
                if ev.time is None:
                    return None, NONE
                since = max(since, ev.time)
        return since, self._answer(tool_level, server_level)


def _split(decisions: list[Event]) -> tuple[list[Event], list[Any], list[Event], list[int],
                                             list[int]]:
    timed = [ev for ev in decisions if ev.time is not None]
    untimed = [ev for ev in decisions if ev.time is None]
    return (timed, [ev.time for ev in timed], untimed, [ev.order for ev in untimed],
            [ev.order for ev in decisions])


def once_governing(once: list[tuple[int, Event]], attempt: int) -> Governing:
    """The once decision with the highest attempt not above ``attempt``; the last one wins ties.

    ``once`` holds (attempt named, decision event) in replay order.
    """
    best: tuple[int, Event] | None = None
    for n, ev in once:
        if n <= attempt and (best is None or n >= best[0]):
            best = (n, ev)
    if best is None:
        return NONE
    return Governing(decision_value(best[1]), "once", best[1].index)


class OnceIndex:
    """``once_governing`` for attempts asked in ascending order, in one pass over the decisions
    (sorted once by the attempt they name, stably, so the last of a tie stays last)."""

    def __init__(self, once: list[tuple[int, Event]]) -> None:
        self._sorted = sorted(once, key=lambda p: p[0])
        self._i = 0
        self._best: Governing = NONE

    def governing(self, attempt: int) -> Governing:
        """As ``once_governing(once, attempt)``; ``attempt`` never below the previous one."""
        items = self._sorted
        i = self._i
        last: Event | None = None
        while i < len(items) and items[i][0] <= attempt:
            last = items[i][1]
            i += 1
        if last is not None:
            self._best = Governing(decision_value(last), "once", last.index)
        self._i = i
        return self._best


def later(a: Event, b: Event) -> bool:
    """``a`` happened after ``b`` (instants when both parsed, else replay order)."""
    if a.time is not None and b.time is not None:
        return a.time > b.time
    return a.order > b.order

