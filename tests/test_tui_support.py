"""Shared helpers for the TUI tests (no tests here).

``build`` uses the engine's ``build_model`` when it exists; until it lands, a deliberately
naive stand-in replays the draft's table from ``viewer.model.spec`` so the TUI can be exercised.
The stand-in is test scaffolding only: the TUI never derives states itself.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from viewer.load import Loaded, load_path
from viewer.model import spec
from viewer.model.types import Attempt, Event, Finding, Model, Operation, StandingDecision, Step

FIXTURES = Path(__file__).resolve().parent / "fixtures"
SMALL = FIXTURES / "tui_small.vcon.json"


def _time(v: Any) -> datetime | None:
    try:
        return datetime.fromisoformat(str(v).replace("Z", "+00:00"))
    except ValueError:
        return None


def _stub_build(loaded: Loaded) -> Model:
    vcon = loaded.vcon
    raw_events = vcon.get("events") or []
    events: list[Event] = []
    for i, r in enumerate(raw_events):
        t = r.get("type", "")
        kind = "decision" if t == spec.POLICY_DECISION else (
            "tool" if t in spec.TOOL_EVENT_SET else "context")
        att = r.get("attempt")
        sess = r.get("sessions", [])
        events.append(Event(i, t, kind, _time(r.get("time")), 0, r.get("operation_id"),
                            att if isinstance(att, int) else None, r.get("party"),
                            tuple(sess) if isinstance(sess, list) else (sess,), r))
    order = sorted(range(len(events)), key=lambda i: (events[i].time or datetime.min, i))
    events = [e._replace(order=order.index(e.index)) for e in events]
    findings: list[Finding] = []
    ops: dict[str, dict[str, Any]] = {}
    standing: list[StandingDecision] = []
    context: list[int] = []
    for i in order:
        e = events[i]
        r = e.raw
        if e.kind == "context":
            context.append(i)
        elif e.kind == "decision" and r.get("policy_life") == "standing":
            standing.append(StandingDecision(i, e.time, r.get("operation"), r.get("server"),
                                             r.get("tool"), r.get("decision"), r.get("reason"),
                                             None))
        elif e.operation_id:
            op = ops.setdefault(e.operation_id, {"att": {}, "once": [], "first": e})
            if e.kind == "decision":
                op["once"].append(i)
            else:
                op["att"].setdefault(e.attempt, []).append(i)
    operations = []
    for oid, o in ops.items():
        attempts = []
        prev_final = None
        for n in sorted(o["att"]):
            steps, state, late, oom = [], None, [], []
            for i in o["att"][n]:
                t = events[i].type
                allowed, to = spec.TOOL_TRANSITIONS[t]
                after = state if to == spec.UNCHANGED else (
                    spec.RUNNING if to == spec.RETURN_FROM_INPUT else to)
                is_late = t in spec.TOOL_RESPONSE_TYPES and state in spec.LATE_STATES
                is_oom = state not in allowed
                steps.append(Step(i, state, after, is_oom, is_late))
                if is_late:
                    late.append(i)
                    findings.append(Finding("late-response", "warning", oid, n, (i,),
                                            "late response"))
                if is_oom:
                    oom.append(i)
                state = after
            inv = next((i for i in o["att"][n] if events[i].type == "tool-invocation"), None)
            rinv = events[inv].raw if inv is not None else {}
            dec = next((d for d in reversed(o["once"]) if events[d].raw.get("attempt") == n), None)
            dval = events[dec].raw.get("decision") if dec is not None else None
            flags = set()
            if late:
                flags.add("late-response")
            if state not in spec.FINAL_STATES:
                flags.add("unterminated")
                findings.append(Finding("unterminated", "warning", oid, n, (o["att"][n][-1],),
                                        "attempt never ended"))
            if dval == "disallowed":
                flags.add("policy-violation")
                findings.append(Finding("policy-violation", "error", oid, n, (inv,),
                                        "invoked while disallowed"))
            esc = prev_final == spec.DENIED
            if esc:
                flags.add("escalation")
                findings.append(Finding("escalation", "info", oid, n, (inv,), "escalated"))
            times = [events[i].time for i in o["att"][n]]
            attempts.append(Attempt(
                n, tuple(steps), times[0], times[-1] if state in spec.FINAL_STATES else None,
                state, inv, rinv.get("server"), rinv.get("tool"), dval,
                "once" if dec is not None else None, dec, tuple(late), tuple(oom), esc,
                frozenset(flags)))
            prev_final = state
        first = attempts[0] if attempts else None
        decision_ev = events[o["once"][0]].raw if o["once"] else {}
        server = (first.server if first else None) or decision_ev.get("server")
        tool = (first.tool if first else None) or decision_ev.get("tool")
        outcome = spec.outcome_name(attempts[-1].final_state) if attempts else "not-performed"
        fl: set[str] = set()
        for a in attempts:
            fl |= a.flags
        operations.append(Operation(
            oid, "tool-invocation", server, tool, first.decision if first else None,
            first.decision_life if first else None, first.decision_event if first else None,
            outcome, tuple(attempts), tuple(o["once"]), (), o["first"].time,
            o["first"].order, max(0, len(attempts) - 1),
            any(a.escalated for a in attempts), sum(len(a.late) for a in attempts),
            frozenset(fl)))
    operations.sort(key=lambda op: op.first_order)
    return Model(loaded.source, vcon, tuple(events), tuple(order), tuple(operations),
                 tuple(standing), tuple(findings), loaded.diagnostics, tuple(context),
                 {op.operation_id: i for i, op in enumerate(operations)})


def build(loaded: Loaded) -> Model:
    """The engine's builder when present, else the test stand-in."""
    try:
        from viewer.model.build import build_model
    except ImportError:
        return _stub_build(loaded)
    return build_model(loaded)


def model_of(path: Path | str = SMALL, **kw: Any) -> Model:
    return build(load_path(str(path), **kw))
