"""A refused or never-run call's what-and-why in the headless outputs: the summary JSON, the
CSV and the text summary carry its once decision's ``reason`` and, for a call that never ran,
what it asked for (the decision's ``requested``: README, *Importing agent traffic*), as the
viewer's detail and the Markdown/HTML evidence do. Recorded text, so neutralised as every
other recorded value in each output."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

import orjson
from reportkit import DEMOS, demo

from viewer.load import load_bytes
from viewer.model.build import build_model
from viewer.model.types import Model
from viewer.report.csv import to_csv
from viewer.report.summary import to_json
from viewer.report.text import to_text

CODEX = "17-codex.vcon.json"
#: op-0004 of the Codex demo: a declined escalation (event 6), never run.
REASON = ("the agent asked to run it with escalated permissions, justifying: File deletion "
          "requires write permissions to parent directory.")


def _ops(model: Model) -> dict[str, dict[str, Any]]:
    return {op["operation_id"]: op for op in json.loads(to_json(model))["operations"]}


def test_summary_json_says_what_a_refused_call_asked_for_and_why() -> None:
    recorded = json.loads((DEMOS / CODEX).read_text())["events"][6]
    ops = _ops(demo(CODEX))
    refused = ops["op-0004"]
    assert refused["decision_reason"] == REASON
    assert refused["requested"] == recorded["requested"]  # exact, as recorded
    assert refused["requested"]["arguments"]["command"] == "rm test.txt"
    # added after the members there were; an operation with no once decision gains nothing
    assert list(refused)[-2:] == ["decision_reason", "requested"]
    for ran in ("op-0001", "op-0003"):
        assert "decision_reason" not in ops[ran] and "requested" not in ops[ran]


def test_a_call_that_ran_under_a_once_decision_gives_its_reason_not_a_request() -> None:
    ops = _ops(demo("15-claude-code.vcon.json"))
    plan = next(op for op in ops.values() if op["tool"] == "ExitPlanMode")
    assert plan["attempts"] and plan["decision_life"] == "once"
    assert plan["decision_reason"] == "User has approved exiting plan mode. You can now proceed."
    assert "requested" not in plan


def _rows(model: Model) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(to_csv(model))))


def test_csv_has_the_reason_and_the_request() -> None:
    rows = {r["operation_id"]: r for r in _rows(demo(CODEX))}
    assert rows["op-0004"]["decision_reason"] == REASON
    assert json.loads(rows["op-0004"]["requested"])["arguments"]["command"] == "rm test.txt"
    assert rows["op-0001"]["decision_reason"] == rows["op-0001"]["requested"] == ""


def test_text_summary_says_what_was_refused_and_why() -> None:
    for width in (80, 200):
        text = to_text(demo(CODEX), width=width)
        flat = " ".join(text.split())
        assert "File deletion requires write permissions to parent directory." in flat, text
        assert '"command":"rm test.txt"' in flat, text
        assert "op-0004" in text.split("Once decisions", 1)[1], text


def _hostile() -> Model:
    """The Codex demo with a hostile reason and request: a formula, bidi and control
    characters, and console markup."""
    vcon = json.loads((DEMOS / CODEX).read_text())
    ev = vcon["events"][6]
    ev["reason"] = "=HYPERLINK(\"http://x\")\u202e[bold]gotcha[/bold]\x1b[31m"
    ev["requested"] = "@SUM(1)\u2066rm -rf /\u0007"
    return build_model(load_bytes(orjson.dumps(vcon), name="hostile.vcon.json"))


def test_hostile_reason_and_request_are_neutralised_in_every_output() -> None:
    model = _hostile()
    raw = to_json(model)
    op = _ops(model)["op-0004"]
    assert op["decision_reason"].startswith("=HYPERLINK") and "\u202e" in op["decision_reason"]
    assert op["requested"] == "@SUM(1)\u2066rm -rf /\u0007"  # exact once decoded
    for ch in ("\u202e", "\u2066", "\x1b", "\x07"):
        assert ch.encode() not in raw  # as JSON escapes in the bytes
    row = next(r for r in _rows(model) if r["operation_id"] == "op-0004")
    assert row["decision_reason"].startswith("'=HYPERLINK")  # the formula guard
    assert row["requested"].startswith("'@SUM")
    for width in (80, 200):
        text = to_text(model, width=width)
        assert "[bold]gotcha[/bold]" in text  # markup shown, not obeyed
        for ch in ("\u202e", "\u2066", "\x1b", "\x07"):
            assert ch not in text and ch not in "".join(row.values())
