"""Linear cost in every dimension (issue 17): growth tests over ``bench/shapes.py``.

Each shape grows one dimension of a vCon (attempts of one operation, with and without late
answers, events of one attempt, operations, standing decisions for one tool, once decisions of
one operation, findings, diagnostics, dialogs, attachments, parties, signatures). The model and
the exports are timed (CPU, best of a few runs) at N and at 8N in one run: a linear cost grows
about 8x, a quadratic one 64x. The bound is 20x, well under 8^2 / 2 = 32, and the sizes are
chosen so that the quadratic code these tests were written against (the attempts of one
operation: every invocation visited every earlier attempt; once decisions: each attempt scanned
every decision; standing decisions: each look-up scanned the target's list) fails them.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest

from bench.shapes import SHAPES, growth
from viewer.model import spec
from viewer.model.policy import OnceIndex, StandingIndex, at_or_before, once_governing
from viewer.model.replay import replay_operation
from viewer.model.types import Event

BOUND = 20.0
#: N per shape (the test runs N and 8N): big enough that the fixed costs do not hide a square.
SIZES = {
    "attempts": 700, "attempts-late": 700, "once-decisions": 400, "standing-decisions": 400,
    "events-per-attempt": 500, "operations": 300, "findings": 300, "diagnostics": 300,
    "dialogs": 500, "attachments": 500, "parties": 300, "signatures": 300,
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_cost_grows_linearly(shape: str) -> None:
    result = growth(shape, SIZES[shape])
    for stage, (small, big, ratio) in result.items():
        if big < 0.02:  # too small to measure a ratio: a few milliseconds at 8N is linear enough
            continue
        assert ratio < BOUND, (
            f"{shape}: {stage} took {small:.3f} s at N and {big:.3f} s at 8N ({ratio:.1f}x)")


# --- the linear algorithms answer as the scans they replaced ----------------------------------

T0 = datetime(2026, 3, 1, tzinfo=UTC)


def _events(rng: random.Random, n: int, typ: str, raw: dict) -> list[Event]:
    """n events in replay order; some without a time (placed after a timed one)."""
    out, t = [], 0
    for i in range(n):
        t += rng.choice((0, 0, 1, 2))
        when = None if rng.random() < 0.2 else T0 + timedelta(seconds=t)
        out.append(Event(i, typ, "decision", when, i, None, rng.randint(1, 5), 1, (), raw))
    return out


def test_standing_lookup_matches_the_scan() -> None:
    rng = random.Random(17)
    raw = {"operation": "tool-invocation", "server": "s", "tool": "t", "decision": "allowed"}
    for _ in range(300):
        evs = _events(rng, rng.randint(1, 12), "policy-decision", raw)
        decisions = [e for e in evs if rng.random() < 0.5] or evs[:1]
        index = StandingIndex(decisions)
        key = StandingIndex.key(decisions[0])
        for when in evs:
            scan = next((d for d in reversed(decisions) if at_or_before(d, when)), None)
            assert index.in_effect(key, when) is scan


def test_once_index_matches_once_governing() -> None:
    rng = random.Random(17)
    for _ in range(300):
        once = [(rng.randint(1, 6), ev) for ev in _events(rng, rng.randint(0, 8),
                                                           "policy-decision", {})]
        index = OnceIndex(once)
        for n in range(1, 8):
            assert index.governing(n) == once_governing(once, n)


def _old_duplicates(events: list[Event]) -> list[tuple[int, int, int]]:
    """The replay's duplicate-execution watch as it was first written (every invocation visits
    every attempt), over the states the replay's steps record."""
    steps = {s.event: s for a in replay_operation(events).attempts.values() for s in a.steps}
    state: dict[int, str | None] = {}
    watch: dict[int, int] = {}
    out = []
    for ev in events:
        n = ev.attempt
        state.setdefault(n, None)
        if ev.type == "tool-invocation":
            for m, st in state.items():
                if m < n and m not in watch and st not in spec.FINAL_STATES:  # open once begun
                    watch[m] = ev.index
        before, after = steps[ev.index].before, steps[ev.index].after
        state[n] = after
        if after == spec.COMPLETED and before != spec.COMPLETED and watch.get(n, -1) >= 0:
            out.append((n, watch[n], ev.index))
            watch[n] = -1
    return out


def test_replay_duplicates_match_the_scan() -> None:
    rng = random.Random(17)
    types = ["tool-invocation", "tool-invocation", "tool-result", "tool-timeout",
             "tool-progress", "tool-failure", "tool-cancel", "tool-input",
             "tool-input-response", "tool-pending"]
    for _ in range(400):
        evs = [Event(i, rng.choice(types), "tool", T0, i, "op", rng.randint(1, 6), 1, (), {})
               for i in range(rng.randint(1, 25))]
        got = [(d.earlier, d.later_invocation, d.completing_event)
               for d in replay_operation(evs).duplicates]
        assert got == _old_duplicates(evs)
