"""Fuzzing the engine and the exports with generated vCons (issue 6).

Properties, each over valid, near-valid and wild vCons (``tests/strategies.py``):

* load + model + every export never raise (a ``LoadError`` is the only allowed refusal);
* every export is free of raw control, bidi and invisible characters;
* each injected problem becomes a diagnostic at the right JSON Pointer;
* the model is deterministic, and with distinct times it does not depend on the order of the
  ``events`` array (modulo the renumbering of event indices).

The long run for releases is ``bench/fuzz_long.py`` (same properties, many more cases).
"""

from __future__ import annotations

import copy
import os
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, Phase, assume, given, settings
from hypothesis import strategies as st

from tests import strategies as S
from viewer.load import LoadError, load_bytes
from viewer.model import spec
from viewer.model.build import build_model
from viewer.model.types import EventArray, Model
from viewer.report.csv import to_csv
from viewer.report.markdown import to_markdown
from viewer.report.summary import summary_dict, to_json
from viewer.report.text import to_text
from viewer.textsafe import UNSAFE_TABLE

# VCON_FUZZ_NOSHRINK=1 skips shrinking (fast feedback while developing).
_PHASES = tuple(Phase) if not os.environ.get("VCON_FUZZ_NOSHRINK") else tuple(
    p for p in Phase if p not in (Phase.shrink, Phase.explain))
FUZZ = settings(
    max_examples=80, deadline=None, phases=_PHASES,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                           HealthCheck.filter_too_much],
)

_UNSAFE = frozenset(chr(c) for c in UNSAFE_TABLE)


def _unsafe_chars(text: str, allow: str = "\n") -> set[str]:
    return {c for c in set(text) & _UNSAFE if c not in allow}


def run_all(data: bytes) -> Model | None:
    """Load, build and run every export; None when the loader refused the input."""
    try:
        loaded = load_bytes(data, name="fuzz.vcon.json")
    except LoadError as e:
        assert e.exit_code in (2, 3)
        assert "\n" not in e.message and _unsafe_chars(e.message) == set()
        return None
    model = build_model(loaded)
    check_exports(model)
    return model


def check_exports(model: Model) -> None:
    js = to_json(model)
    doc = orjson.loads(js)
    assert doc["format"] == "vcon-view-summary/1"
    assert _unsafe_chars(js.decode("utf-8")) == set()
    md = to_markdown(model)
    assert _unsafe_chars(md) == set()
    csv = to_csv(model)
    assert _unsafe_chars(csv.replace("\r\n", "\n")) == set()
    assert len(csv.splitlines()) == 1 + sum(max(1, len(o.attempts)) for o in model.operations)
    txt = to_text(model)
    assert _unsafe_chars(txt) == set()
    if model.operations:  # the TUI's filtered export: a subset
        half = model.operations[: max(1, len(model.operations) // 2)]
        sub = summary_dict(model, half)
        assert [o["operation_id"] for o in sub["operations"]] == [o.operation_id for o in half]
        to_markdown(model, half)
        to_csv(model, half)
        to_text(model, half)
    from viewer.report.check import check_lines

    for line in check_lines(model):
        assert "\n" not in line and _unsafe_chars(line) == set()


def structural_invariants(model: Model, raw_events: Any) -> None:
    """What must hold of any model, however broken the input."""
    # the loader's events array (EventArray), or a list when built from values
    n = len(raw_events) if isinstance(raw_events, (list, EventArray)) else 0
    assert len(model.events) == n
    assert sorted(model.replay) == list(range(n))
    assert [model.events[i].order for i in model.replay] == list(range(n))
    seen: list[int] = []
    for op in model.operations:
        for a in op.attempts:
            assert a.steps, "an attempt exists only with at least one tool event"
            for s in a.steps:
                ev = model.events[s.event]
                assert ev.kind == "tool" and ev.operation_id == op.operation_id
                assert ev.attempt == a.number
            seen += a.events
        for i in op.unassigned_events:
            assert model.events[i].attempt is None
        if op.attempts and op.attempts[-1].final_state is None:
            # The last attempt never reached a state (e.g. only tool-progress): the
            # interpretation names no outcome for this; the model says "unknown" (reported).
            assert op.outcome == "unknown"
        else:
            assert op.outcome in {
                *(spec.outcome_name(s) for s in spec.STATES), "disallowed", "not-performed"}
    assert len(seen) == len(set(seen)), "an event replayed in two attempts"
    replayed = {e.index for e in model.events if e.kind == "tool" and e.operation_id is not None
                and e.attempt is not None}
    assert set(seen) == replayed
    for f in model.findings:
        assert f.kind in spec.FINDING_SEVERITY and f.severity == spec.FINDING_SEVERITY[f.kind]
        assert all(0 <= e < n for e in f.events)
    for d in model.diagnostics:
        assert d.severity in spec.SEVERITIES
        assert d.pointer == "" or d.pointer.startswith("/")
        assert "\n" not in d.message


# --- never raise, safe exports, structural invariants -------------------------------------------


@FUZZ
@given(S.vcon_doc())
def test_any_vcon_loads_builds_and_exports(doc: dict[str, Any]) -> None:
    model = run_all(S.dumps(doc))
    if model is not None:
        structural_invariants(model, model.vcon.get("events"))


@settings(FUZZ, max_examples=60)
@given(st.binary(max_size=300) | S.vcon_bytes("wild").map(lambda b: b[: len(b) // 2]))
def test_truncated_and_random_bytes_are_refused_in_one_line(data: bytes) -> None:
    run_all(data)  # a crashed proxy's partial file: refused (LoadError) or loaded, never raised


@settings(FUZZ, max_examples=40)
@given(S.vcon_doc("wild"))
def test_model_is_deterministic(doc: dict[str, Any]) -> None:
    data = S.dumps(doc)
    try:
        a = build_model(load_bytes(data))
    except LoadError:
        return
    b = build_model(load_bytes(data))
    assert to_json(a) == to_json(b)
    assert to_markdown(a) == to_markdown(b)
    assert to_csv(a) == to_csv(b)


# --- every problem becomes a diagnostic ----------------------------------------------------------


def _pointers(model: Model, code: str) -> set[str]:
    return {d.pointer for d in model.diagnostics if d.code == code}


@FUZZ
@given(S.vcon_doc("wild"))
def test_each_problem_is_a_diagnostic(doc: dict[str, Any]) -> None:
    """Checked against the raw input, independently of the validator's own logic."""
    try:
        model = build_model(load_bytes(S.dumps(doc)))
    except LoadError:
        return
    doc = model.vcon  # the parsed input: Raw values are real JSON here
    events = doc.get("events")
    if not isinstance(events, (list, EventArray)):  # the loader's array, or a list
        if events is not None:
            assert "/events" in _pointers(model, "invalid-structure")
        assert model.events == ()
        return
    parties = doc.get("parties")
    n_parties = len(parties) if isinstance(parties, list) else None
    all_ptrs = {d.pointer for d in model.diagnostics}
    for i, ev in enumerate(events):
        base = f"/events/{i}"
        if not isinstance(ev, dict):
            assert base in _pointers(model, "invalid-type")
            continue
        typ = ev.get("type")
        if not isinstance(typ, str):
            assert base in all_ptrs or f"{base}/type" in all_ptrs
            continue
        tv = ev.get("time")
        if typ in spec.LIFECYCLE_EVENT_SET or tv is not None:
            if tv is None:
                assert base in _pointers(model, "missing-required")
            elif model.events[i].time is None:  # a wrong type, or a string not RFC 3339
                code = "time-unparsable" if isinstance(tv, str) else "invalid-type"
                assert f"{base}/time" in _pointers(model, code)
        if typ not in spec.LIFECYCLE_EVENT_SET:
            assert i in model.context
            continue
        party = ev.get("party")
        if party is None:
            assert base in _pointers(model, "missing-required")
        elif type(party) is not int:
            assert f"{base}/party" in _pointers(model, "invalid-type")
        elif party < 0 or party > 2**53 - 1:
            assert f"{base}/party" in _pointers(model, "invalid-value")
        elif n_parties is not None and party >= n_parties:
            assert f"{base}/party" in _pointers(model, "index-out-of-range")
        if typ == spec.POLICY_DECISION:
            d = ev.get("decision")
            if d is not None and d not in spec.DECISIONS:
                assert f"{base}/decision" in all_ptrs
        else:
            att = ev.get("attempt")
            if att is None:
                assert base in _pointers(model, "missing-required")
                if isinstance(ev.get("operation_id"), str) and ev["operation_id"]:
                    op = model.operation(ev["operation_id"])
                    assert op is not None and i in op.unassigned_events
            elif type(att) is not int or att < 1:
                assert f"{base}/attempt" in all_ptrs
            for p in ("decision", "policy_life", "reason", "operation"):
                if ev.get(p) is not None:
                    assert f"{base}/{p}" in _pointers(model, "forbidden-parameter")
            if ev.get("body") is not None and ev.get("url") is not None:
                assert base in _pointers(model, "content-body-and-url")
            enc = ev.get("encoding")
            if enc is not None and enc not in spec.ENCODINGS:
                assert f"{base}/encoding" in all_ptrs


@settings(FUZZ, max_examples=40)
@given(S.vcon_doc("valid"))
def test_valid_vcons_have_no_error_diagnostics(doc: dict[str, Any]) -> None:
    model = build_model(load_bytes(S.dumps(doc)))
    structural_invariants(model, doc["events"])
    errors = [d for d in model.diagnostics if d.severity == "error"
              and d.code not in ("operation-id-not-unique", "operation-target-mismatch")]
    assert errors == []


@settings(FUZZ, max_examples=40)
@given(S.vcon_doc("valid"), st.integers(0, 2**16))
def test_reused_operation_id_is_reported(doc: dict[str, Any], seed: int) -> None:
    """Two attempt-1 tool-invocations with one operation_id: operation-id-not-unique."""
    inv = [e for e in doc["events"] if e["type"] == "tool-invocation" and e["attempt"] == 1]
    assume(inv)
    dup = copy.deepcopy(inv[seed % len(inv)])
    dup["attempt"] = 1
    dup["time"] = S.time_text(20_000, "z")
    doc["events"].append(dup)
    model = build_model(load_bytes(S.dumps(doc)))
    firsts = [i for i, e in enumerate(doc["events"]) if e["type"] == "tool-invocation"
              and e["operation_id"] == dup["operation_id"] and e["attempt"] == 1]
    assert len(firsts) >= 2
    ptrs = _pointers(model, "operation-id-not-unique")
    # every attempt-1 invocation after the first in replay order is reported
    by_order = sorted(firsts, key=lambda i: model.events[i].order)
    assert {f"/events/{i}/operation_id" for i in by_order[1:]} <= ptrs


# --- replay does not depend on the array order ---------------------------------------------------


def _canonical(model: Model) -> dict[str, Any]:
    """The summary with every event index replaced by its replay position, diagnostics sorted."""
    order = [e.order for e in model.events]

    def ev(i: int | None) -> int | None:
        return None if i is None else order[i]

    doc = summary_dict(model)
    doc.pop("source")
    for op in doc["operations"]:
        op["decision_event"] = ev(op["decision_event"])
        op["unassigned_events"] = sorted(ev(i) for i in op["unassigned_events"])
        op["once_decisions"] = [ev(i) for i in op["once_decisions"]]
        for a in op["attempts"]:
            a["decision_event"] = ev(a["decision_event"])
            for k in ("events", "late", "out_of_model"):
                a[k] = [ev(i) for i in a[k]]
    for d in doc["standing_decisions"]:
        d["event"], d["replaced_by"] = ev(d["event"]), ev(d["replaced_by"])
    for f in doc["findings"]:
        f["events"] = [ev(i) for i in f["events"]]
    diags = []
    for d in doc["diagnostics"]:
        p = d["pointer"]
        if p.startswith("/events/"):
            head, _, rest = p[len("/events/"):].partition("/")
            p = f"/events/@{order[int(head)]}" + (f"/{rest}" if rest else "")
        diags.append((d["code"], d["severity"], p, d["message"]))
    doc["diagnostics"] = sorted(diags)
    return doc


@settings(FUZZ, max_examples=80)
@given(S.distinct_time_events(), st.randoms(use_true_random=False))
def test_replay_is_independent_of_array_order(events: list[dict[str, Any]], rnd: Any) -> None:
    from tests.modelkit import vcon

    shuffled = list(events)
    rnd.shuffle(shuffled)
    a = build_model(load_bytes(S.dumps(vcon(events))))
    b = build_model(load_bytes(S.dumps(vcon(shuffled))))
    assert _canonical(a) == _canonical(b)


# --- a few hand-picked shapes the strategies reach only rarely -----------------------------------


# A value of an event sits at nesting level 3 (vCon, events, event): 1021 more levels is the
# deepest orjson accepts (1024); one more and the file is refused in one line.
@pytest.mark.parametrize("depth", [255, 256, 999, 1000, 1021])
@pytest.mark.parametrize("where", ["body", "server", "time", "operation_id", "attempt", "reason"])
def test_deep_values_in_every_place(depth: int, where: str) -> None:
    from tests.modelkit import tool, vcon

    ev = tool("tool-invocation", 0)
    ev2 = tool("tool-invocation", 1, attempt=2)
    for e in (ev, ev2):
        e[where] = S.deep(depth)
    model = run_all(S.dumps(vcon([ev, ev2])))
    assert model is not None
    assert len(model.events) == 2


@pytest.mark.parametrize("value", [2**53, 2**63, 2**64 - 1, 10**30, -(2**63), 1e308])
def test_huge_numbers_are_diagnosed(value: int | float) -> None:
    from tests.modelkit import tool, vcon

    ev = tool("tool-invocation", 0, party=value, attempt=value)
    model = run_all(S.dumps(vcon([ev])))
    assert model is not None
    assert "/events/0/party" in {d.pointer for d in model.diagnostics}


@pytest.mark.parametrize("attempt", [10**9, 2**63, 2**64 - 1])
def test_huge_attempt_number_gap_is_reported_without_materialising(attempt: int) -> None:
    """Found by fuzzing: the attempt-gap check built list(range(1, attempt + 1))."""
    from tests.modelkit import tool, vcon

    evs = [tool("tool-invocation", 0), tool("tool-invocation", 1, attempt=attempt)]
    model = run_all(S.dumps(vcon(evs)))
    assert model is not None
    gap = [d for d in model.diagnostics if d.code == "attempt-gap"]
    assert len(gap) == 1 and gap[0].pointer == "/events/1/attempt"
    assert "attempt 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, … missing" in gap[0].message
    assert len(gap[0].message) < 200


@pytest.mark.parametrize("typ", [[], {}, ["tool-result"], {"a": 1}, 7, None, True])
def test_unhashable_or_wrong_event_type_is_a_diagnostic(typ: Any) -> None:
    """Found by fuzzing: a list as an event's type crashed the pre-draft lifting check."""
    from tests.modelkit import tool, vcon

    evs = [tool("tool-invocation", 0), {"type": typ, "time": "2026-03-01T09:00:01Z"}]
    model = run_all(S.dumps(vcon(evs)))
    assert model is not None
    where = {(d.code, d.pointer) for d in model.diagnostics}
    expected = ("missing-required", "/events/1") if typ is None else (
        "invalid-type", "/events/1/type")
    assert expected in where
    assert 1 in model.context


def test_one_level_too_deep_is_refused_in_one_line() -> None:
    from tests.modelkit import tool, vcon

    ev = tool("tool-result", 0, body=S.deep(1022))
    with pytest.raises(LoadError) as exc:
        load_bytes(S.dumps(vcon([ev])), name="deep.json")
    assert exc.value.exit_code == 2
    assert exc.value.message.startswith("deep.json: not JSON")
    assert "\n" not in exc.value.message
