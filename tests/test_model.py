"""The model: the rules of the README's *How vcon-view reads the drafts*, and every transition
of both state tables."""

from __future__ import annotations

import pytest
from msgspec.structs import fields, replace

from tests.modelkit import codes, kinds, model_of, once, standing, t, tool
from viewer.model import spec

# --- The draft's Tool Invocation State Transitions, transcribed again here on purpose ----------
# (a second reading of the draft, to check the table in spec.py)
ACTIVE = {"Running", "Pending", "Input Required", "Timed Out", "Cancel Requested"}
DRAFT_TABLE = {
    "tool-invocation": ({None}, "Running"),
    "tool-pending": ({"Running"}, "Pending"),
    "tool-progress": ({"Running", "Pending", "Timed Out", "Cancel Requested"}, "="),
    "tool-input": ({"Running", "Pending"}, "Input Required"),
    "tool-input-response": ({"Input Required"}, "return"),
    "tool-timeout": ({"Running", "Pending", "Input Required"}, "Timed Out"),
    "tool-cancel": ({"Running", "Pending", "Input Required", "Timed Out"}, "Cancel Requested"),
    "tool-result": (ACTIVE, "Completed"),
    "tool-failure": (ACTIVE, "Failed"),
    "tool-error": (ACTIVE, "Errored"),
    "tool-denied": (ACTIVE, "Denied"),
}
REACH = {
    None: [],
    "Running": ["tool-invocation"],
    "Pending": ["tool-invocation", "tool-pending"],
    "Input Required": ["tool-invocation", "tool-input"],
    "Timed Out": ["tool-invocation", "tool-timeout"],
    "Cancel Requested": ["tool-invocation", "tool-cancel"],
    "Completed": ["tool-invocation", "tool-result"],
    "Failed": ["tool-invocation", "tool-failure"],
    "Errored": ["tool-invocation", "tool-error"],
    "Denied": ["tool-invocation", "tool-denied"],
}


def test_spec_table_matches_the_draft() -> None:
    for typ, (allowed, _to) in DRAFT_TABLE.items():
        assert set(spec.TOOL_TRANSITIONS[typ][0]) == allowed, typ
    assert set(spec.TOOL_TRANSITIONS) == set(DRAFT_TABLE)


@pytest.mark.parametrize("from_state", list(REACH))
@pytest.mark.parametrize("typ", list(DRAFT_TABLE))
def test_every_tool_transition(from_state: str | None, typ: str) -> None:
    evs = [tool(x, i) for i, x in enumerate(REACH[from_state])]
    evs.append(tool(typ, 10))
    m = model_of(evs)
    (op,) = m.operations
    (a,) = op.attempts
    last = a.steps[-1]
    allowed, to = DRAFT_TABLE[typ]
    assert last.before == from_state
    assert last.out_of_model == (from_state not in allowed)
    if to == "=":
        expected = from_state
    elif to == "return":
        expected = "Running"  # input requested from Running (REACH) or unknown
    else:
        expected = to
    assert last.after == expected  # applied even when out of model
    assert ("out-of-model" in a.flags) == last.out_of_model


def test_input_response_returns_to_pending() -> None:
    m = model_of([tool("tool-invocation", 0), tool("tool-pending", 1), tool("tool-input", 2),
                  tool("tool-input-response", 3), tool("tool-result", 4)])
    assert m.operations[0].attempts[0].states == (
        "Running", "Pending", "Input Required", "Pending", "Completed")
    assert m.findings == ()


def test_progress_in_input_required_is_out_of_model() -> None:
    m = model_of([tool("tool-invocation", 0), tool("tool-input", 1), tool("tool-progress", 2)])
    step = m.operations[0].attempts[0].steps[-1]
    assert step.out_of_model and step.after == "Input Required"


def test_second_invocation_in_one_attempt_is_out_of_model() -> None:
    m = model_of([tool("tool-invocation", 0), tool("tool-invocation", 1),
                  tool("tool-result", 2)])
    a = m.operations[0].attempts[0]
    assert a.out_of_model == (1,)
    assert a.final_state == "Completed"


# --- Policy Decision State Model ------------------------------------------------------------
@pytest.mark.parametrize(
    ("decision", "performed", "finding"),
    [
        ("allowed", True, None),
        ("permission-required", True, "permission-inferred"),
        ("disallowed", True, "policy-violation"),
        ("allowed", False, None),
        ("permission-required", False, None),
        ("disallowed", False, None),
    ],
)
def test_policy_decision_transitions(decision: str, performed: bool, finding: str | None) -> None:
    evs = [once(0, decision)]
    if performed:
        evs += [tool("tool-invocation", 1), tool("tool-result", 2)]
    m = model_of(evs)
    (op,) = m.operations
    assert op.decision == decision and op.decision_life == "once" and op.decision_event == 0
    if performed:
        assert op.outcome == "completed"
        assert [k for k, _, _ in kinds(m)] == ([finding] if finding else [])
    else:
        assert op.attempts == ()
        assert op.outcome == ("disallowed" if decision == "disallowed" else "not-performed")
        assert m.findings == ()


def test_policy_violation_is_an_error_finding() -> None:
    m = model_of([once(0, "disallowed"), tool("tool-invocation", 1), tool("tool-result", 2)])
    (f,) = m.findings
    assert (f.kind, f.severity, f.events) == ("policy-violation", "error", (0, 1))


# --- Section 2: order -----------------------------------------------------------------------
def test_replay_is_by_time_not_array_order() -> None:
    m = model_of([tool("tool-result", 2), tool("tool-invocation", 0), tool("tool-progress", 1)])
    assert m.replay == (1, 2, 0)
    assert m.operations[0].attempts[0].events == (1, 2, 0)
    assert m.findings == ()


def test_equal_times_keep_array_order() -> None:
    m = model_of([tool("tool-invocation", 1), tool("tool-result", 1)])
    assert m.replay == (0, 1)


def test_times_compared_as_instants_not_strings() -> None:
    a = tool("tool-invocation", 0, time="2026-03-01T10:00:00+01:00")  # 09:00Z
    b = tool("tool-result", 0, time="2026-03-01T09:30:00Z")
    m = model_of([b, a])
    assert m.replay == (1, 0)


def test_unparsable_time_goes_after_previous_array_event() -> None:
    evs = [tool("tool-invocation", 0), tool("tool-progress", 5), tool("tool-progress", 0),
           tool("tool-result", 9)]
    evs[2]["time"] = "yesterday"
    m = model_of(evs)
    assert m.replay == (0, 1, 2, 3)
    assert "time-unparsable" in codes(m)
    d = next(d for d in m.diagnostics if d.code == "time-unparsable")
    assert (d.severity, d.pointer) == ("error", "/events/2/time")


def test_unparsable_time_first_when_nothing_before() -> None:
    evs = [tool("tool-progress", 0, time=12), tool("tool-invocation", 1)]
    m = model_of(evs)
    assert m.replay == (0, 1)


def test_naive_time_is_utc_with_warning() -> None:
    m = model_of([tool("tool-invocation", 0, time="2026-03-01T09:00:05"),
                  tool("tool-result", 1, time="2026-03-01T09:00:06Z")])
    d = next(d for d in m.diagnostics if d.code == "time-no-offset")
    assert (d.severity, d.pointer) == ("warning", "/events/0/time")
    assert m.operations[0].attempts[0].start.utcoffset().total_seconds() == 0


def test_session_singular_is_accepted() -> None:
    ev = tool("tool-invocation", 0)
    del ev["sessions"]
    ev["session"] = 0
    m = model_of([ev])
    assert m.events[0].sessions == (0,)
    assert not [d for d in m.diagnostics if "sessions" in d.message or "session" in d.pointer]


def test_context_events_are_kept_not_errors() -> None:
    evs = [{"type": "join", "time": t(0), "session": 0, "party": 0},
           {"type": "keydown", "time": t(1), "session": 0, "party": 0, "button": "1"},
           {"type": "x-custom", "time": t(2)},
           tool("tool-invocation", 3), tool("tool-result", 4)]
    m = model_of(evs)
    assert m.context == (0, 1, 2)
    assert [e.kind for e in m.events] == ["context"] * 3 + ["tool"] * 2
    assert not [d for d in m.diagnostics if d.severity == "error"]


# --- Section 3: operations and attempts -------------------------------------------------------
def test_target_from_first_invocation_else_once_decision() -> None:
    m = model_of([once(0, "disallowed", op="op-2", server="srv", tool="wipe"),
                  tool("tool-invocation", 1, tool="lookup"), tool("tool-result", 2)])
    ops = {o.operation_id: o for o in m.operations}
    assert (ops["op-1"].server, ops["op-1"].tool) == (tool("tool-invocation", 0)["server"],
                                                     "lookup")
    assert (ops["op-2"].server, ops["op-2"].tool) == ("srv", "wipe")


def test_target_mismatch_on_later_attempt() -> None:
    m = model_of([tool("tool-invocation", 0), tool("tool-error", 1),
                  tool("tool-invocation", 2, attempt=2, tool="other"),
                  tool("tool-result", 3, attempt=2)])
    d = next(d for d in m.diagnostics if d.code == "operation-target-mismatch")
    assert (d.severity, d.pointer) == ("error", "/events/2/tool")  # at the member that differs


def test_target_mismatch_points_at_the_server_when_both_differ() -> None:
    m = model_of([tool("tool-invocation", 0), tool("tool-error", 1),
                  tool("tool-invocation", 2, attempt=2, server="other", tool="x"),
                  tool("tool-result", 3, attempt=2)])
    d = next(d for d in m.diagnostics if d.code == "operation-target-mismatch")
    assert d.pointer == "/events/2/server"


def test_two_attempt_one_invocations_not_unique() -> None:
    m = model_of([tool("tool-invocation", 0), tool("tool-result", 1),
                  tool("tool-invocation", 2), tool("tool-result", 3)])
    d = next(d for d in m.diagnostics if d.code == "operation-id-not-unique")
    assert (d.severity, d.pointer) == ("error", "/events/2/operation_id")


def test_bad_attempt_is_unassigned() -> None:
    m = model_of([tool("tool-invocation", 0), tool("tool-result", 1),
                  tool("tool-progress", 2, attempt=0), tool("tool-progress", 3, attempt="2")])
    (op,) = m.operations
    assert op.unassigned_events == (2, 3)
    assert [a.number for a in op.attempts] == [1]


def test_no_operation_id_belongs_to_no_operation() -> None:
    ev = tool("tool-result", 1)
    del ev["operation_id"]
    m = model_of([tool("tool-invocation", 0), ev])
    assert m.operations[0].attempts[0].events == (0,)
    assert any(d.code == "missing-required" and d.pointer == "/events/1" for d in m.diagnostics)


def test_attempt_gap_and_order_warnings() -> None:
    m = model_of([tool("tool-invocation", 5), tool("tool-error", 6),
                  tool("tool-invocation", 1, attempt=3), tool("tool-result", 2, attempt=3)])
    gap = next(d for d in m.diagnostics if d.code == "attempt-gap")
    order = next(d for d in m.diagnostics if d.code == "attempt-order")
    assert gap.severity == order.severity == "warning"
    assert order.pointer == "/events/2/time"


def test_last_attempt_is_highest_number() -> None:
    m = model_of([tool("tool-invocation", 0, attempt=2), tool("tool-result", 1, attempt=2),
                  tool("tool-invocation", 2), tool("tool-failure", 3)])
    (op,) = m.operations
    assert [a.number for a in op.attempts] == [1, 2]
    assert op.outcome == "completed"


# --- Section 4: decisions ----------------------------------------------------------------------
def test_decision_after_invocation() -> None:
    m = model_of([tool("tool-invocation", 0), once(1, "allowed"), tool("tool-result", 2)])
    assert ("decision-after-invocation", "op-1", 1) in kinds(m)


def test_once_highest_attempt_not_above() -> None:
    m = model_of([once(0, "allowed"), tool("tool-invocation", 1), tool("tool-denied", 2),
                  once(3, "disallowed", attempt=3),
                  tool("tool-invocation", 4, attempt=2), tool("tool-result", 5, attempt=2)])
    a1, a2 = m.operations[0].attempts
    assert (a1.decision, a1.decision_event) == ("allowed", 0)
    assert (a2.decision, a2.decision_event) == ("allowed", 0)


def test_several_once_same_attempt_last_governs() -> None:
    m = model_of([once(0, "disallowed"), once(1, "allowed"), tool("tool-invocation", 2),
                  tool("tool-result", 3)])
    assert m.operations[0].attempts[0].decision_event == 1
    assert "policy-violation" not in [k for k, _, _ in kinds(m)]


def test_standing_applies_at_or_after_and_replacement() -> None:
    m = model_of([
        standing(0, "allowed"),
        tool("tool-invocation", 1, op="a"), tool("tool-result", 2, op="a"),
        standing(3, "disallowed"),
        tool("tool-invocation", 3, op="b"), tool("tool-result", 4, op="b"),
    ])
    ops = {o.operation_id: o for o in m.operations}
    assert (ops["a"].decision, ops["a"].decision_life, ops["a"].decision_event) == (
        "allowed", "standing", 0)
    # at the same instant as the replacement: the replacement applies
    assert ops["b"].decision == "disallowed"
    assert [(s.event, s.replaced_by) for s in m.standing] == [(0, 3), (3, None)]
    assert ("policy-violation", "b", 1) in kinds(m)


def test_tool_level_before_server_level_and_conflict() -> None:
    m = model_of([standing(0, "allowed"), standing(1, "disallowed", "wipe"),
                  tool("tool-invocation", 2, tool="wipe"), tool("tool-result", 3)])
    (op,) = m.operations
    assert (op.decision, op.decision_event) == ("disallowed", 1)
    conflict = [f for f in m.findings if f.kind == "standing-conflict"]
    assert len(conflict) == 1 and conflict[0].events == (1, 0)
    assert conflict[0].severity == "info"


def test_server_level_never_replaces_tool_level() -> None:
    m = model_of([standing(0, "allowed", "x"), standing(1, "disallowed"),
                  standing(2, "allowed", "x")])
    assert [(s.event, s.replaced_by) for s in m.standing] == [(0, 2), (1, None), (2, None)]


def test_standing_for_other_server_does_not_apply() -> None:
    m = model_of([standing(0, "disallowed", server="https://other.example"),
                  tool("tool-invocation", 1), tool("tool-result", 2)])
    assert m.operations[0].decision is None
    assert m.findings == ()


def test_standing_with_operation_id_stays_standing() -> None:
    m = model_of([standing(0, "allowed", operation_id="op-1"), tool("tool-invocation", 1),
                  tool("tool-result", 2)])
    assert len(m.standing) == 1
    assert m.operations[0].decision_life == "standing"
    assert any(d.code == "forbidden-parameter" and d.pointer == "/events/0/operation_id"
               for d in m.diagnostics)


def test_permission_required_standing_inferred() -> None:
    m = model_of([standing(0, "permission-required", "lookup"), tool("tool-invocation", 1),
                  tool("tool-result", 2)])
    assert kinds(m) == [("permission-inferred", "op-1", 1)]


# --- Section 5: lateness, unterminated, duplicates, escalation ------------------------------------
def test_late_after_timeout_and_cancel() -> None:
    m = model_of([tool("tool-invocation", 0), tool("tool-timeout", 1), tool("tool-progress", 2),
                  tool("tool-cancel", 3), tool("tool-result", 4)])
    a = m.operations[0].attempts[0]
    assert a.late == (2, 4)
    assert m.operations[0].late_responses == 2
    assert a.final_state == "Completed"


def test_agent_sent_events_are_never_late() -> None:
    m = model_of([tool("tool-invocation", 0), tool("tool-timeout", 1), tool("tool-cancel", 2),
                  tool("tool-invocation", 3, attempt=2), tool("tool-cancel", 4)])
    assert all(not a.late for a in m.operations[0].attempts)


def test_late_after_higher_attempt_invoked_and_duplicate_risk() -> None:
    m = model_of([tool("tool-invocation", 0), tool("tool-timeout", 30),
                  tool("tool-invocation", 31, attempt=2), tool("tool-result", 32, attempt=2),
                  tool("tool-result", 40)])
    op = m.operations[0]
    a1, a2 = op.attempts
    assert a1.late == (4,) and a2.late == ()
    dup = [f for f in m.findings if f.kind == "duplicate-execution-risk"]
    assert len(dup) == 1 and dup[0].attempt == 1 and dup[0].events == (2, 4)
    assert dup[0].severity == "warning"
    assert op.retries == 1 and ("retry", "op-1", 2) in kinds(m)


def test_late_only_after_the_higher_invocation() -> None:
    # attempt 1's result arrives before attempt 2 is invoked: not late
    m = model_of([tool("tool-invocation", 0), tool("tool-failure", 1),
                  tool("tool-invocation", 2, attempt=2), tool("tool-result", 3, attempt=2)])
    assert all(not a.late for a in m.operations[0].attempts)
    assert "duplicate-execution-risk" not in [f.kind for f in m.findings]


def test_attempt_without_invocation_is_open_for_duplicate_risk() -> None:
    """Attempt 1's invocation has no attempt number: its progress still shows it running, so
    its result after attempt 2 was invoked is a duplicate-execution risk (as it counts as
    run for policy)."""
    inv = tool("tool-invocation", 0)
    del inv["attempt"]
    m = model_of([inv, tool("tool-progress", 1), tool("tool-invocation", 2, attempt=2),
                  tool("tool-result", 3), tool("tool-result", 4, attempt=2)])
    dup = [f for f in m.findings if f.kind == "duplicate-execution-risk"]
    assert [(f.attempt, f.events) for f in dup] == [(1, (2, 3))]


def test_no_duplicate_risk_when_earlier_never_completes() -> None:
    m = model_of([tool("tool-invocation", 0), tool("tool-timeout", 1),
                  tool("tool-invocation", 2, attempt=2), tool("tool-result", 3, attempt=2),
                  tool("tool-failure", 4)])
    assert "duplicate-execution-risk" not in [f.kind for f in m.findings]


def test_unterminated() -> None:
    m = model_of([tool("tool-invocation", 0), tool("tool-pending", 1), tool("tool-progress", 2)])
    a = m.operations[0].attempts[0]
    assert a.final_state == "Pending" and a.end is None
    assert m.operations[0].outcome == "pending"
    assert kinds(m) == [("unterminated", "op-1", 1)]


def test_escalation_after_denied() -> None:
    m = model_of([tool("tool-invocation", 0), tool("tool-denied", 1),
                  tool("tool-invocation", 2, attempt=2), tool("tool-result", 3, attempt=2)])
    op = m.operations[0]
    assert op.escalated and op.attempts[1].escalated and not op.attempts[0].escalated
    assert ("escalation", "op-1", 2) in kinds(m)
    f = next(f for f in m.findings if f.kind == "escalation")
    assert f.severity == "info"


def test_escalation_uses_final_state_at_end_of_replay() -> None:
    # attempt 1 timed out, attempt 2 invoked, then attempt 1's late denial: still an escalation
    m = model_of([tool("tool-invocation", 0), tool("tool-timeout", 1),
                  tool("tool-invocation", 2, attempt=2), tool("tool-denied", 3),
                  tool("tool-result", 4, attempt=2)])
    assert m.operations[0].attempts[1].escalated


def test_start_end_final_state() -> None:
    m = model_of([tool("tool-invocation", 0), tool("tool-result", 2.5)])
    a = m.operations[0].attempts[0]
    assert a.start.isoformat() == "2026-03-01T09:00:00+00:00"
    assert a.end.isoformat() == "2026-03-01T09:00:02.500000+00:00"
    assert a.final_state == "Completed"


# --- Section 6: outcome -------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("seq", "outcome"),
    [
        (["tool-invocation", "tool-result"], "completed"),
        (["tool-invocation", "tool-failure"], "failed"),
        (["tool-invocation", "tool-error"], "errored"),
        (["tool-invocation", "tool-denied"], "denied"),
        (["tool-invocation"], "running"),
        (["tool-invocation", "tool-pending"], "pending"),
        (["tool-invocation", "tool-input"], "input-required"),
        (["tool-invocation", "tool-timeout"], "timed-out"),
        (["tool-invocation", "tool-cancel"], "cancel-requested"),
    ],
)
def test_outcomes(seq: list[str], outcome: str) -> None:
    m = model_of([tool(x, i) for i, x in enumerate(seq)])
    assert m.operations[0].outcome == outcome


def test_operations_ordered_by_first_event() -> None:
    m = model_of([tool("tool-invocation", 5, op="late"), tool("tool-invocation", 1, op="early"),
                  once(0, "allowed", op="first")])
    assert [o.operation_id for o in m.operations] == ["first", "early", "late"]
    assert m.by_operation == {"first": 0, "early": 1, "late": 2}


def test_every_emitted_code_is_a_stable_documented_one() -> None:
    """Codes never appear that spec.DIAGNOSTIC_CODES (the stable list) does not name."""
    from pathlib import Path

    from viewer.load import LoadError
    from viewer.model.build import build_model
    from viewer.pipeline import open_path

    root = Path(__file__).resolve().parent
    files = [*(root.parent / "demo_vcons").glob("*.vcon.json*"),
             *(root / "fixtures").rglob("*.json"), *(root / "fixtures").rglob("*.vcon")]
    seen: set[str] = set()
    for f in files:
        try:
            m = build_model(open_path(str(f), ignore_critical=True))
        except LoadError:
            continue
        seen |= {d.code for d in m.diagnostics}
    assert "derived-events" in seen and "missing-required" in seen
    assert seen <= set(spec.DIAGNOSTIC_CODES), seen - set(spec.DIAGNOSTIC_CODES)


# --- fixes from review: strict RFC 3339, untargeted standing decisions, unassigned invocations
@pytest.mark.parametrize("value", [
    "2026-03-01T09:00Z", "2026-W09-7T09:00:01Z", "2026-03-01T09:00:01+0100",
    "2026-03-01T09:00:01+01", "2026-03-01T09:00:01,5Z", "2026-03-01T09:00:01 Z", "2026-03-01",
])
def test_times_that_are_not_rfc3339_are_unparsable(value: str) -> None:
    m = model_of([tool("tool-invocation", 0, time=value)])
    assert m.events[0].time is None
    assert "time-unparsable" in codes(m)


@pytest.mark.parametrize("value", [
    "2026-03-01T09:00:01Z", "2026-03-01t09:00:01z", "2026-03-01T09:00:01.5+01:00",
    "2026-03-01 09:00:01Z",
])
def test_rfc3339_forms_parse(value: str) -> None:
    m = model_of([tool("tool-invocation", 0, time=value)])
    assert m.events[0].time is not None
    assert not {"time-unparsable", "time-no-offset"} & set(codes(m))


def test_leap_second_is_accepted_and_ordered() -> None:
    m = model_of([tool("tool-result", 0, time="2016-12-31T23:59:60Z"),
                  tool("tool-invocation", 0, time="2016-12-31T23:59:59.5Z")])
    assert m.replay == (1, 0)
    assert "time-unparsable" not in codes(m)


def test_non_string_time_is_invalid_type() -> None:
    m = model_of([tool("tool-invocation", 0, time=1234567890)])
    d = next(d for d in m.diagnostics if d.pointer == "/events/0/time")
    assert (d.code, d.severity) == ("invalid-type", "error")


@pytest.mark.parametrize("bad", [{"tool": 5}, {"server": None}, {"server": 7}])
def test_standing_without_usable_target_governs_and_replaces_nothing(bad: dict) -> None:
    ev = standing(1, "disallowed", **bad)
    if bad.get("server", "") is None:
        del ev["server"]
    m = model_of([standing(0, "allowed"), ev, tool("tool-invocation", 2, tool="other"),
                  tool("tool-result", 3)])
    (op,) = m.operations
    assert (op.decision, op.decision_event) == ("allowed", 0)
    assert [(s.event, s.replaced_by) for s in m.standing] == [(0, None), (1, None)]
    assert "policy-violation" not in [k for k, _, _ in kinds(m)]


def test_missing_servers_do_not_match() -> None:
    dec = standing(0, "disallowed")
    del dec["server"]
    inv = tool("tool-invocation", 1)
    del inv["server"]
    m = model_of([dec, inv, tool("tool-result", 2)])
    assert m.operations[0].decision is None
    assert m.findings == ()


def test_target_from_an_unassigned_invocation() -> None:
    m = model_of([tool("tool-invocation", 1, attempt=0, tool="wipe"),
                  tool("tool-result", 2, attempt=0)])
    (op,) = m.operations
    assert (op.tool, op.unassigned_events, op.attempts) == ("wipe", (0, 1), ())


def test_escalation_message_names_the_previous_attempt() -> None:
    m = model_of([tool("tool-invocation", 0), tool("tool-denied", 1),
                  tool("tool-invocation", 2, attempt=3), tool("tool-result", 3, attempt=3)])
    f = next(f for f in m.findings if f.kind == "escalation")
    assert "denied attempt 1" in f.message


def test_steps_attempts_and_operations_are_built_and_read_by_field_name() -> None:
    """Issue 16: a field added in the middle of Step, Attempt or Operation must not shift
    another silently, so none of them can be built by position, indexed or unpacked."""
    m = model_of([tool("tool-invocation", 0), tool("tool-result", 1)])
    op = m.operations[0]
    for obj in (op, op.attempts[0], op.attempts[0].steps[0]):
        cls = type(obj)
        values = {f.name: getattr(obj, f.name) for f in fields(cls)}
        assert cls(**values) == obj
        with pytest.raises(TypeError):
            cls(*values.values())
        with pytest.raises(TypeError):
            obj[0]  # type: ignore[index]
        with pytest.raises(TypeError):
            iter(obj)  # type: ignore[call-overload]


from hypothesis import HealthCheck, given, settings  # noqa: E402

from tests import strategies as S  # noqa: E402


def _model_tuple(m):  # everything but frozenset iteration order
    return ([replace(o, flags=sorted(o.flags),
                     attempts=tuple(replace(a, flags=sorted(a.flags)) for a in o.attempts))
             for o in m.operations], m.findings, m.diagnostics, m.standing)


def test_time_span_is_first_and_last_timed_event() -> None:
    evs = [tool("tool-result", 9), tool("tool-invocation", 2), tool("tool-progress", 5)]
    evs[2]["time"] = "later"
    m = model_of(evs)
    assert m.time_span() == (m.events[1].time, m.events[0].time)
    times = [e.time for e in m.events if e.time is not None]
    assert m.time_span() == (min(times), max(times))
    assert model_of([]).time_span() == (None, None)


# --- times parsed in bulk (parse_times) give the very model of times parsed one by one ----------
from hypothesis import strategies as st  # noqa: E402

_TIME_ALPHABET = "0123456789-:T.+Z ,tz\u0663W\n"
_TIME_BASES = ["2026-01-01T00:00:00Z", "2026-01-01T00:00:00.123Z", "2026-01-01T00:00:00+01:00",
               "2026-01-01T00:00:00.123456-05:30", "2026-01-01 00:00:00.1234567Z"]


@st.composite
def _near_times(draw: st.DrawFn) -> str:
    s = list(draw(st.sampled_from(_TIME_BASES)))
    for _ in range(draw(st.integers(0, 3))):
        pos = draw(st.integers(0, len(s)))
        op = draw(st.sampled_from(["set", "insert", "delete"]))
        ch = draw(st.sampled_from(_TIME_ALPHABET))
        if op == "insert":
            s.insert(pos, ch)
        elif pos < len(s):
            if op == "set":
                s[pos] = ch
            else:
                del s[pos]
    return "".join(s)


def _one_by_one(value: str):
    from datetime import datetime

    from viewer.model.times import RFC3339

    if RFC3339(value) is None:
        return None
    try:
        dt = datetime.fromisoformat(value)
    except ValueError:
        return None
    return dt if dt.tzinfo is not None else None


@settings(max_examples=3000, deadline=None)
@given(_near_times())
def test_parse_times_accepts_only_what_the_regex_and_fromisoformat_accept(value: str) -> None:
    from viewer.model.times import parse_times

    bulk = parse_times([value])
    one = _one_by_one(value)
    if bulk is None:  # declined: the caller parses one by one (allowed, never wrong)
        return
    assert one is not None and bulk == [one], value


@settings(max_examples=300, deadline=None)
@given(st.lists(_near_times(), min_size=1, max_size=6))
def test_parse_times_all_or_nothing(values: list[str]) -> None:
    from viewer.model.times import parse_times

    each = [_one_by_one(v) for v in values]
    bulk = parse_times(values)
    if bulk is not None:
        assert bulk == each
    if None in each:
        assert bulk is None


def test_parse_times_declines_odd_values() -> None:
    from viewer.model.times import parse_times

    ok = "2026-01-01T00:00:00Z"
    assert parse_times([ok, ok]) is not None
    for bad in (None, 5, "2026-01-01T00:00:00", "2026-01-01T00:00:00.Z", "2026-W01-1T00:00:00Z",
                "2026-01-01T00:00:00,5Z", "2026-01-01T00:00:00+0100", "\ud800", ok + "\n" + ok,
                "2026-01-01T00:00:60Z", "2026-01-01T00:00:00.1234567t-05:30"):
        assert parse_times([ok, bad]) is None, bad
    assert parse_times([]) is None


def _general_loop_model(loaded):
    from viewer.model import build

    original = build.parse_times
    build.parse_times = lambda values: None
    try:
        return build.build_model(loaded)
    finally:
        build.parse_times = original


def _sorted_doc(doc: dict) -> dict:
    """``doc`` with its events in time order where their times parse (the common case: no sort)."""
    from viewer.model.times import parse_time

    evs = doc.get("events")
    if isinstance(evs, list):
        def key(e):
            t = parse_time(e.get("time") if isinstance(e, dict) else None)[0]
            return (t is None, t.timestamp() if t else 0)
        doc = {**doc, "events": sorted(evs, key=key)}
    return doc


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(S.vcon_doc())
def test_bulk_times_equal_one_by_one(doc: dict) -> None:
    from viewer.load import LoadError, load_bytes
    from viewer.model import build

    for d in (doc, _sorted_doc(doc)):  # out of order (keys and a sort) and in order
        try:
            loaded = load_bytes(S.dumps(d))
        except LoadError:
            return
        timed = build.build_model(loaded)
        general = _general_loop_model(loaded)
        assert timed.events == general.events
        assert timed.replay == general.replay
        assert _model_tuple(timed) == _model_tuple(general)


def test_bulk_times_equal_one_by_one_on_every_demo() -> None:
    from pathlib import Path

    from viewer.load import load_path
    from viewer.model import build

    used = 0
    original = build.parse_times

    def counting(values):
        nonlocal used
        times = original(values)
        used += times is not None
        return times

    for f in sorted((Path(__file__).resolve().parent.parent / "demo_vcons").glob("*.vcon.json*")):
        loaded = load_path(str(f))
        build.parse_times = counting
        try:
            timed = build.build_model(loaded)
        finally:
            build.parse_times = original
        general = _general_loop_model(loaded)
        assert timed.events == general.events, f.name
        assert _model_tuple(timed) == _model_tuple(general), f.name
    assert used >= 10  # most demos are clean and in order


# --- checks put off (the viewer draws first, checks after) give the very same model -------------
def _full_tuple(m):
    return (m.events, m.replay, _model_tuple(m), m.diagnostics, m.context, m.by_operation,
            m.derived_from, m.unchecked)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(S.vcon_doc())
def test_checks_put_off_then_completed_equal_the_full_build(doc: dict) -> None:
    from viewer.load import LoadError, load_bytes
    from viewer.model import build

    try:
        loaded = load_bytes(S.dumps(doc))
    except LoadError:
        return
    full = build.build_model(loaded)
    first = build.build_model(loaded, check_events=False)
    assert first.unchecked is not None and full.unchecked is None
    assert _model_tuple(first)[:2] == _model_tuple(full)[:2]  # operations and findings already
    assert set(first.diagnostics) <= set(full.diagnostics)
    assert _full_tuple(build.complete_checks(first)) == _full_tuple(full)
    assert build.complete_checks(full) is full


def test_checks_put_off_on_every_demo_and_fixture() -> None:
    from pathlib import Path

    from viewer.load import LoadError
    from viewer.model import build
    from viewer.pipeline import open_path

    root = Path(__file__).resolve().parent
    files = sorted((root.parent / "demo_vcons").glob("*.vcon.json*"))
    files += sorted(p for p in (root / "fixtures").rglob("*.json") if p.is_file())
    checked = with_event_diags = 0
    for f in files:
        try:
            loaded = open_path(str(f))  # lifted where the file needs it, as the viewer opens it
        except LoadError:
            continue
        full = build.build_model(loaded)
        first = build.build_model(loaded, check_events=False)
        assert _full_tuple(build.complete_checks(first)) == _full_tuple(full), f.name
        checked += 1
        with_event_diags += len(first.diagnostics) < len(full.diagnostics)
    assert checked > 20 and with_event_diags >= 3


# --- the viewer's stages: the first operations, then all of them ---------------------------------
def _check_stages(loaded, first: int) -> int:
    from viewer.model import build

    full = build.build_model(loaded)
    stages = list(build.build_stages(loaded, first=first))
    last = stages[-1]
    assert last.pending_operations == 0 and last.unchecked is not None
    assert _full_tuple(build.complete_checks(last)) == _full_tuple(full)
    n = len(full.operations)
    if n <= first:
        assert len(stages) == 1
        return 0
    assert len(stages) == 2
    part = stages[0]
    assert part.operations == full.operations[:first]
    assert part.pending_operations == n - first
    assert part.findings == full.findings[: len(part.findings)]
    assert {f.operation_id for f in part.findings} <= {o.operation_id for o in part.operations}
    assert part.findings == tuple(f for f in full.findings
                                  if f.operation_id in part.by_operation)
    assert part.diagnostics == last.diagnostics[: len(part.diagnostics)]
    assert part.by_operation == {o.operation_id: i for i, o in enumerate(part.operations)}
    assert part.events is last.events and part.standing == last.standing
    return 1


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(S.vcon_doc(), st.integers(1, 5))
def test_stages_first_operations_then_all(doc: dict, first: int) -> None:
    from viewer.load import LoadError, load_bytes

    try:
        loaded = load_bytes(S.dumps(doc))
    except LoadError:
        return
    _check_stages(loaded, first)


def test_stages_on_every_demo() -> None:
    from pathlib import Path

    from viewer.load import load_path

    split = 0
    for f in sorted((Path(__file__).resolve().parent.parent / "demo_vcons").glob("*.vcon.json*")):
        for first in (1, 3, 1000):
            split += _check_stages(load_path(str(f)), first)
    assert split >= 15  # (16 demos; most have more than 3 operations)


def test_stages_when_later_operations_interleave_the_first() -> None:
    """The first operations' events come after later operations have started: a later
    operation's once decision before its invocation, a standing decision late in the file
    (it governs the first operations too), a context event naming an operation, an
    operation's retry near the end, and the events out of time order in the array."""
    import orjson

    from tests.modelkit import vcon
    from viewer.load import load_bytes

    evs = []
    for n in range(8):
        op = f"op-{n}"
        if n % 3 == 2:
            evs.append(once(10 * n, "allow", op=op))
        evs += [tool("tool-invocation", 10 * n + 1, op=op),
                tool("tool-result", 10 * n + 2, op=op)]
    evs.append(standing(3, "deny", "lookup"))
    evs.append(standing(95, "allow", "lookup"))
    evs.append({"type": "note", "time": "2026-01-05T08:01:30Z", "operation_id": "op-1"})
    evs += [tool("tool-invocation", 97, op="op-0", attempt=2),
            tool("tool-result", 98, op="op-0", attempt=2)]
    for shuffled in (evs, evs[::-1]):
        loaded = load_bytes(orjson.dumps(vcon(shuffled)))
        for first in (1, 2, 3, 5):
            assert _check_stages(loaded, first)


def test_stages_only_above_a_size() -> None:
    from pathlib import Path

    from viewer.load import load_path
    from viewer.model import build

    root = Path(__file__).resolve().parent.parent
    loaded = load_path(str(root / "demo_vcons" / "tour.vcon.json"))
    n = len(build.build_model(loaded).operations)
    assert len(list(build.build_stages(loaded, first=2, above=n))) == 1
    assert len(list(build.build_stages(loaded, first=2, above=n - 1))) == 2
