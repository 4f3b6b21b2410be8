"""The finding registry (viewer/model/findings.py) and the one table of kinds agree: each kind in
``spec.FINDING_TABLE`` has exactly one registered rule, and every rule's kind is in the table,
so a finding's severity and names always come from the table."""

from __future__ import annotations

from collections import Counter

from viewer.model import findings, spec
from viewer.model.build import build_model
from viewer.model.types import Model


def test_every_table_kind_has_exactly_one_rule() -> None:
    counts = Counter(findings.registered_kinds())
    assert {k.name: counts[k.name] for k in spec.FINDING_TABLE} == {
        k.name: 1 for k in spec.FINDING_TABLE}


def test_every_rule_kind_is_in_the_table() -> None:
    table = {k.name for k in spec.FINDING_TABLE}
    assert set(findings.registered_kinds()) <= table
    assert len(findings.registered_kinds()) == len(table)


def test_rules_are_named_functions_with_a_docstring() -> None:
    for rules in (findings.SHAPE_RULES, findings.OPERATION_RULES, findings.ATTEMPT_RULES,
                  findings.MODEL_RULES):
        for rule in rules:
            assert rule.check.__name__ == rule.kind.replace("-", "_")
            assert rule.check.__doc__


def _vcon(events: list[dict]) -> dict:
    return {"vcon": "0.3.0", "uuid": "018f0000-0000-8000-8000-000000000000",
            "created_at": "2026-01-05T08:00:00Z", "parties": [{"name": "a"}],
            "events": events}


class _Loaded:
    def __init__(self, vcon: dict) -> None:
        self.vcon, self.diagnostics, self.source = vcon, (), "t.json"


def test_severity_comes_from_the_table() -> None:
    ev = {"type": "tool-invocation", "time": "2026-01-05T08:00:00Z", "operation_id": "op1",
          "attempt": 1, "server": "s", "tool": "t", "party": 0}
    model: Model = build_model(_Loaded(_vcon([ev])))
    assert model.findings, "an attempt that never ended is a finding"
    for f in model.findings:
        assert f.severity == spec.FINDING_SEVERITY[f.kind]


def test_a_model_rule_sees_every_operation_and_its_findings_come_last(monkeypatch) -> None:
    def cross(operations, events):
        """One finding naming how many operations the rule saw."""
        yield (operations[-1].operation_id, None, (), f"saw {len(operations)}")

    evs = [{"type": "tool-invocation", "time": f"2026-01-05T08:00:0{i}Z",
            "operation_id": f"op{i}", "attempt": 1, "server": "s", "tool": "t", "party": 0}
           for i in range(2)]
    monkeypatch.setattr(findings, "MODEL_RULES", (findings.ModelRule("retry", cross),))
    model = build_model(_Loaded(_vcon(evs)))
    last = model.findings[-1]
    assert (last.kind, last.operation_id, last.message) == ("retry", "op1", "saw 2")
    assert last.severity == spec.FINDING_SEVERITY["retry"]


def test_one_severity_count_on_the_model() -> None:
    ev = {"type": "tool-invocation", "time": "2026-01-05T08:00:00Z", "operation_id": "op1",
          "attempt": 2, "server": "s", "tool": "t", "party": 0}
    model = build_model(_Loaded(_vcon([ev])))
    expected = {"error": 0, "warning": 0, "info": 0}
    for item in (*model.findings, *model.diagnostics):
        expected[item.severity] += 1
    assert model.counts() == expected
    assert list(model.counts()) == list(spec.SEVERITIES)
    only = model.counts(diagnostics=False)
    assert sum(only.values()) == len(model.findings)
    assert model.counts(())["warning"] == sum(d.severity == "warning" for d in model.diagnostics)
