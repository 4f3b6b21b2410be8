"""vcon-view import copilot: GitHub Copilot CLI ``events.jsonl`` -> tool-invocation events.

The per-sample expectations (SAMPLES) were written by hand from the raw files before the
importer was run on them; the rule tests use small inputs written here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from viewer.cli import main
from viewer.importers import formats
from viewer.importers.copilot import convert
from viewer.importers.formats import ImportInputError, sample
from viewer.model.build import build_model
from viewer.model.types import Model
from viewer.pipeline import open_bytes

ROOT = Path(__file__).resolve().parent.parent
FIX = ROOT / "tests" / "fixtures" / "agents" / "copilot-cli"
SMALL = FIX / "agent-sessions__copilot_small.jsonl"
EVENTS = FIX / "agent-sessions__copilot_events.jsonl"
T = "[trimmed for fixture]"


def model_of(data: bytes, name: str = "events.jsonl") -> Model:
    return build_model(open_bytes(data, name=name))


def no_errors(m: Model) -> None:
    assert [d for d in m.diagnostics if d.severity == "error"] == []


def ops(m: Model) -> list[tuple[str, str | None, str | None, str, str | None, list[str]]]:
    return [(o.operation_id, o.server, o.tool, o.outcome, o.decision, sorted(o.flags))
            for o in m.operations]


# --- the corpus samples, by hand ----------------------------------------------------------------
#
# agent-sessions__copilot_events.jsonl (8 lines): one turn. The assistant asks for bash {"command":
# "ls"} (call_1, line 4); tool.execution_start (line 5) and tool.execution_complete success:true
# (line 6) -> one operation, built-in bash, completed. Nothing denied, no finding. Mapped: lines
# 5 and 6, and the conversation: the user's "List the files" (line 2) and the answer (line 8) are
# dialogs. Ignored by kind: session.start, turn start/end, the assistant.message with no text
# (line 4). All times recorded.
#
# agent-sessions__copilot_small.jsonl (32 lines, trimmed by its authors: from line 17 on every
# id, name and timestamp is "[trimmed for fixture]"):
#   line 10/11: shell {"command":"ls"} (call-1) starts and completes success:true
#       -> op-0001 !host/shell completed.
#   line 17: a tool.execution_complete (success:false) for a call whose start and request are not
#       in the file -> nothing to hang it on: unmapped (counted, with an example).
#   line 18: subagent.started for tool call T (the sub-agent's name is trimmed).
#   line 20/21: the sub-agent's call (parentToolCallId T) starts and completes success:false
#       with a result (the tool ran and reported failure) -> op-0002 failed, on the sub-agent's
#       party.
#   line 25/26: the assistant requests T again (toolRequests) and a completion success:false
#       follows with no tool.execution_start -> op-0003: its invocation is the request (line 25,
#       the time of that message), then tool-failure -> failed.
#   line 27: abort, but no call is open then -> ignored (nothing to cancel).
#   line 32: a last request that never ran -> no operation (a request is not an execution).
#   hook.start (line 5) is a postToolUse hook: it blocks nothing -> ignored.
#   Times: lines 17-32 have no readable timestamp: they take 21:32:20.000Z (line 16), times
#   "partial". Mapped 12 (10, 11, 20, 21, 25, 26; and the conversation: lines 7, 9, 12, 19, 30,
#   32 are messages with text, dialogs; line 25's text too), unmapped 1 (17), ignored 19.
SAMPLES: dict[str, dict[str, Any]] = {
    EVENTS.name: {
        "ops": [("op-0001", "!host", "bash", "completed", None, [])],
        "mapped": 4, "ignored": 4, "unmapped": 0, "times": "recorded",
    },
    SMALL.name: {
        "ops": [
            ("op-0001", "!host", "shell", "completed", None, []),
            ("op-0002", "!host", T, "failed", None, []),
            ("op-0003", "!host", T, "failed", None, []),
        ],
        "mapped": 12, "ignored": 19, "unmapped": 1, "times": "partial",
    },
}


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_corpus_sample_reads_as_written_by_hand(name: str) -> None:
    data = (FIX / name).read_bytes()
    exp = SAMPLES[name]
    m = model_of(data, name)
    no_errors(m)
    assert ops(m) == exp["ops"]
    assert m.findings == () or all(f.kind != "policy-violation" for f in m.findings)
    _, rep = convert(data, source_name=name)
    assert (rep.mapped, sum(rep.ignored.values()), rep.unmapped) == (
        exp["mapped"], exp["ignored"], exp["unmapped"])
    assert rep.times == exp["times"]
    assert rep.mapped + sum(rep.ignored.values()) + rep.unmapped == len(data.splitlines())


def test_small_sample_details() -> None:
    vcon, rep = convert(SMALL.read_bytes(), source_name=SMALL.name)
    inv = [e for e in vcon["events"] if e["type"] == "tool-invocation"]
    # the toolCallId is kept in the content, never used as the operation id
    assert inv[0]["body"] == {"toolCallId": "call-1", "arguments": {"command": "ls"}}
    assert {e["operation_id"] for e in vcon["events"]} == {"op-0001", "op-0002", "op-0003"}
    # op-0002 is the sub-agent's: its own party, named by subagent.started
    sub = [e for e in vcon["events"] if e["operation_id"] == "op-0002"]
    assert {e["party"] for e in sub} == {1}
    assert vcon["parties"][1]["role"] == "agent"
    # op-0003's invocation comes from the request (line 25) and carries its (string) arguments
    op3 = [e for e in vcon["events"] if e["operation_id"] == "op-0003"]
    assert [e["type"] for e in op3] == ["tool-invocation", "tool-failure"]
    assert op3[0]["body"]["toolCallId"] == T
    assert rep.examples and rep.examples[0].startswith("line 17:")
    assert all(e["time"] == "2025-12-18T21:32:20.000Z" for e in op3)
    prov = vcon["attachments"][0]["body"]
    assert prov["events"][-1]["from"] == "line 26"


# --- the mapping rules, on small inputs ---------------------------------------------------------

def rec(typ: str, data: dict[str, Any], t: str | None, i: int = 0) -> dict[str, Any]:
    r: dict[str, Any] = {"type": typ, "data": data, "id": f"e{i}", "parentId": None}
    if t is not None:
        r["timestamp"] = t
    return r


def jsonl(*recs: dict[str, Any] | str) -> bytes:
    return b"\n".join(r.encode() if isinstance(r, str) else orjson.dumps(r) for r in recs) + b"\n"


def ts(s: int) -> str:
    return f"2026-03-01T10:00:{s:02d}.000Z"


START = rec("session.start", {"sessionId": "s", "version": 1, "producer": "copilot-agent",
                              "copilotVersion": "1.0.11", "startTime": ts(0)}, ts(0))


def start(cid: str, name: str, s: int, **extra: Any) -> dict[str, Any]:
    return rec("tool.execution_start", {"toolCallId": cid, "toolName": name,
                                        "arguments": {"x": 1}, **extra}, ts(s))


def complete(cid: str, s: int, **data: Any) -> dict[str, Any]:
    return rec("tool.execution_complete", {"toolCallId": cid, **data}, ts(s))


def run(*recs: dict[str, Any] | str) -> tuple[dict[str, Any], Any, Model]:
    data = jsonl(*recs)
    vcon, rep = convert(data, source_name="t.jsonl")
    m = model_of(data)
    no_errors(m)
    return vcon, rep, m


def test_success_failure_error() -> None:
    vcon, rep, m = run(
        START,
        start("c1", "view", 1), complete("c1", 2, success=True, result={"content": "ok"}),
        start("c2", "edit", 3),
        complete("c2", 4, success=False, result={"content": "no match"},
                 error={"message": "No match found", "code": "failure"}),
        start("c3", "bash", 5), complete("c3", 6, success=False,
                                         error={"message": "Tool crashed", "code": "error"}),
    )
    assert [(o.tool, o.outcome) for o in m.operations] == [
        ("view", "completed"), ("edit", "failed"), ("bash", "errored")]
    assert rep.mapped == 6 and rep.ignored == {"session.start": 1}
    res = next(e for e in vcon["events"] if e["type"] == "tool-result")
    assert res["body"] == {"toolCallId": "c1", "result": {"content": "ok"}}


def test_user_rejection_is_one_decision_without_invocation() -> None:
    msg = "The user rejected this tool call. User feedback: not on main"
    vcon, rep, m = run(
        START, start("c1", "bash", 1),
        complete("c1", 2, success=False, error={"message": msg, "code": "rejected"}),
    )
    assert [e["type"] for e in vcon["events"]] == ["policy-decision"]
    d = vcon["events"][0]
    assert (d["decision"], d["policy_life"], d["operation"]) == (
        "disallowed", "once", "tool-invocation")
    assert d["reason"] == msg and "rejected" in d["inferred"]
    assert (d["server"], d["tool"], d["attempt"]) == ("!host", "bash", 1)
    assert "body" not in d and d["time"] == ts(2)
    assert [(o.tool, o.decision, o.outcome) for o in m.operations] == [
        ("bash", "disallowed", "disallowed")]
    assert rep.mapped == 2


def test_abort_before_a_refusal_cancels_nothing() -> None:
    vcon, rep, _ = run(
        START, start("c1", "bash", 1), rec("abort", {"reason": "user initiated"}, ts(2)),
        complete("c1", 3, success=False, error={"message": "The user rejected this tool call.",
                                                "code": "rejected"}),
    )
    assert [e["type"] for e in vcon["events"]] == ["policy-decision"]
    assert rep.ignored == {"session.start": 1, "abort (no call running)": 1}


def test_policy_and_hook_denials() -> None:
    hook_msg = "Denied by preToolUse hook: force-push is blocked"
    vcon, rep, m = run(
        START,
        start("c1", "bash", 1),
        complete("c1", 2, success=False, error={
            "message": "Permission denied and could not request permission from user",
            "code": "denied"}),
        rec("assistant.message", {"content": "", "toolRequests": [
            {"toolCallId": "c2", "name": "bash", "arguments": {"command": "git push -f"}}]},
            ts(3)),
        complete("c2", 4, success=False, error={"message": hook_msg, "code": "denied"}),
        # a denial of a call whose tool is recorded nowhere: nothing to name, counted unmapped
        complete("c3", 5, success=False, error={"message": hook_msg, "code": "denied"}),
    )
    decs = [e for e in vcon["events"] if e["type"] == "policy-decision"]
    assert len(decs) == 2 and not [e for e in vcon["events"] if e["type"] != "policy-decision"]
    assert "could not be asked" in decs[0]["inferred"]
    assert decs[1]["reason"] == hook_msg and "preToolUse hook" in decs[1]["inferred"]
    assert decs[1]["tool"] == "bash" and decs[1]["time"] == ts(4)
    assert [o.outcome for o in m.operations] == ["disallowed", "disallowed"]
    assert rep.mapped == 4 and rep.unmapped == 1


def test_a_result_type_denied_is_a_refusal() -> None:
    vcon, _, _ = run(START, start("c1", "bash", 1), complete("c1", 2, success=False, result={
        "resultType": "denied", "textResultForLlm": "Denied by preToolUse hook: no"}))
    assert [(e["type"], e["reason"]) for e in vcon["events"]] == [
        ("policy-decision", "Denied by preToolUse hook: no")]


def test_a_shell_permission_error_is_a_failure_not_a_denial() -> None:
    _, _, m = run(START, start("c1", "bash", 1), complete(
        "c1", 2, success=False, result={"content": "rm: /x: Permission denied"}))
    assert [(o.outcome, o.decision) for o in m.operations] == [("failed", None)]


def test_hook_end_deny_gives_the_hooks_reason_once() -> None:
    hook_in = {"hookInvocationId": "h1", "hookType": "preToolUse",
               "input": {"toolName": "bash", "toolArgs": {"command": "git push -f"}}}
    hook_out = {"hookInvocationId": "h1", "hookType": "preToolUse", "success": True,
                "output": {"permissionDecision": "deny",
                           "permissionDecisionReason": "force push is not allowed"}}
    vcon, rep, m = run(
        START, rec("hook.start", hook_in, ts(1)), rec("hook.end", hook_out, ts(2)),
        start("c1", "bash", 3),
        complete("c1", 4, success=False, error={
            "message": "Denied by preToolUse hook: force push is not allowed", "code": "denied"}),
    )
    decs = [e for e in vcon["events"] if e["type"] == "policy-decision"]
    assert len(decs) == 1 and len(vcon["events"]) == 1
    assert decs[0]["reason"] == "force push is not allowed"
    assert decs[0]["tool"] == "bash" and "preToolUse hook" in decs[0]["inferred"]
    assert decs[0]["time"] == ts(2)  # when the hook decided
    assert [o.outcome for o in m.operations] == ["disallowed"]
    assert rep.mapped == 3 and rep.ignored == {"session.start": 1, "hook.start": 1}


def test_hook_deny_after_the_start_gates_that_call() -> None:
    hook_in = {"hookInvocationId": "h1", "hookType": "preToolUse",
               "input": {"toolCalls": [{"id": "c1", "name": "bash", "args": "{}"}]}}
    hook_out = {"hookInvocationId": "h1", "hookType": "preToolUse", "success": True,
                "output": {"permissionDecision": "deny", "permissionDecisionReason": "no"}}
    vcon, _, m = run(
        START, start("c1", "bash", 1), rec("hook.start", hook_in, ts(2)),
        rec("hook.end", hook_out, ts(3)),
        complete("c1", 4, success=False, error={"message": "Denied by preToolUse hook: no",
                                                "code": "denied"}),
        start("c2", "bash", 5), complete("c2", 6, success=True),
    )
    assert [(e["type"], e["operation_id"]) for e in vcon["events"]] == [
        ("policy-decision", "op-0001"), ("tool-invocation", "op-0002"),
        ("tool-result", "op-0002")]
    assert [(o.outcome, o.decision) for o in m.operations] == [
        ("disallowed", "disallowed"), ("completed", None)]


def test_a_deny_the_host_ignored_is_a_policy_violation() -> None:
    hook_out = {"hookInvocationId": "h1", "hookType": "preToolUse", "success": True,
                "output": {"decision": "deny", "reason": "blocked"}}
    hook_in = {"hookInvocationId": "h1", "hookType": "preToolUse",
               "input": {"toolName": "edit", "toolArgs": {}}}
    _, _, m = run(START, rec("hook.start", hook_in, ts(1)), rec("hook.end", hook_out, ts(2)),
                  start("c1", "edit", 3), complete("c1", 4, success=True))
    assert [(o.outcome, o.decision, sorted(o.flags)) for o in m.operations] == [
        ("completed", "disallowed", ["policy-violation"])]


def test_hook_deny_with_no_call_recorded_stands_alone() -> None:
    hook_out = {"hookInvocationId": "h1", "hookType": "preToolUse", "success": True,
                "output": {"permissionDecision": "deny", "permissionDecisionReason": "nope"}}
    hook_in = {"hookInvocationId": "h1", "hookType": "preToolUse",
               "input": {"toolCalls": [{"id": "c9", "name": "web_fetch", "args": "{}"}]}}
    vcon, _, m = run(START, rec("hook.start", hook_in, ts(1)), rec("hook.end", hook_out, ts(2)))
    assert [(e["type"], e["tool"], e["reason"]) for e in vcon["events"]] == [
        ("policy-decision", "web_fetch", "nope")]
    assert [o.outcome for o in m.operations] == ["disallowed"]


def test_a_recorded_permission_denial_is_one_decision() -> None:
    req = {"requestId": "p1", "permissionRequest": {
        "kind": "shell", "toolCallId": "c1", "fullCommandText": "rm -rf build",
        "intention": "clean"}}
    msg = "The user rejected this tool call. User feedback: keep build"
    vcon, rep, m = run(
        START, start("c1", "bash", 1), rec("permission.requested", req, ts(2)),
        rec("permission.completed", {"requestId": "p1",
                                     "result": {"kind": "denied-interactively-by-user"}}, ts(3)),
        complete("c1", 4, success=False, error={"message": msg, "code": "rejected"}),
        rec("permission.requested", {"requestId": "p2", "permissionRequest": {
            "kind": "shell", "toolCallId": "c2"}}, ts(5)),
        rec("permission.completed", {"requestId": "p2", "result": {"kind": "approved"}}, ts(6)),
        start("c2", "bash", 7), complete("c2", 8, success=True),
    )
    decs = [e for e in vcon["events"] if e["type"] == "policy-decision"]
    assert [(d["operation_id"], d["time"], d["decision"], d["reason"]) for d in decs] == [
        # the user's words, at the time the prompt was answered
        ("op-0001", ts(3), "disallowed", msg),
        # the recorded approval is the draft's permission-required, at the prompt's time
        ("op-0002", ts(5), "permission-required", "approved at the permission prompt (approved)"),
    ]
    assert "denied-interactively-by-user" in decs[0]["inferred"]
    assert [(o.outcome, o.decision, sorted(o.flags)) for o in m.operations] == [
        ("disallowed", "disallowed", []), ("completed", "permission-required",
                                           ["permission-inferred"])]
    # the denied prompt's request stays ignored (its decision is at the answer's time); the
    # approved prompt's request and answer both make its decision
    assert rep.ignored == {"session.start": 1, "permission.requested": 1}
    assert rep.mapped == 7


def test_a_call_with_no_recorded_prompt_has_no_decision() -> None:
    vcon, _, _ = run(START, start("c1", "bash", 1), complete("c1", 2, success=True))
    assert [e["type"] for e in vcon["events"]] == ["tool-invocation", "tool-result"]


# --- recorded permission prompts: hand-written events.jsonl lines, as Copilot writes them ------

L_START = ('{"type":"session.start","data":{"sessionId":"s1","copilotVersion":"1.0.90"},'
           '"id":"e0","timestamp":"2026-03-01T10:00:00.000Z","parentId":null}')


def line(typ: str, data: str, s: int, n: int) -> str:
    return (f'{{"type":"{typ}","data":{data},"id":"e{n}",'
            f'"timestamp":"2026-03-01T10:00:{s:02d}.000Z","parentId":"e{n - 1}"}}')


def asked(rid: str, cid: str, s: int, n: int, kind: str = "shell") -> str:
    return line("permission.requested", f'{{"requestId":"{rid}","permissionRequest":'
                f'{{"kind":"{kind}","toolCallId":"{cid}","intention":"x"}}}}', s, n)


def answered(rid: str, result: str, s: int, n: int, extra: str = "") -> str:
    return line("permission.completed", f'{{"requestId":"{rid}","result":{result}{extra}}}', s, n)


def started(cid: str, tool: str, s: int, n: int, extra: str = "") -> str:
    return line("tool.execution_start", f'{{"toolCallId":"{cid}","toolName":"{tool}",'
                f'"arguments":{{"command":"ls"}}{extra}}}', s, n)


def ok(cid: str, s: int, n: int) -> str:
    return line("tool.execution_complete", f'{{"toolCallId":"{cid}","success":true,'
                '"result":{"content":"done"}}', s, n)


def decisions(vcon: dict[str, Any]) -> list[dict[str, Any]]:
    return [e for e in vcon["events"] if e["type"] == "policy-decision"]


def test_an_approval_asked_before_the_start_is_permission_required_then_the_call() -> None:
    vcon, rep, m = run(
        L_START,
        asked("p1", "c1", 1, 1),
        answered("p1", '{"kind":"approved"}', 2, 2, ',"decisionSource":"human_response"'),
        started("c1", "bash", 3, 3), ok("c1", 4, 4),
    )
    assert [(e["type"], e["time"]) for e in vcon["events"]] == [
        ("policy-decision", ts(1)), ("tool-invocation", ts(3)), ("tool-result", ts(4))]
    d = decisions(vcon)[0]
    assert (d["decision"], d["policy_life"], d["operation"], d["operation_id"], d["attempt"],
            d["server"], d["tool"]) == (
        "permission-required", "once", "tool-invocation", "op-0001", 1, "!host", "bash")
    assert d["reason"] == "approved by the user (approved)"
    assert "permission.requested" in d["inferred"] and "body" not in d
    # the model: permission-required, then the invocation; the grant is not a draft event,
    # so it notes permission-inferred (info), nothing worse
    assert ops(m) == [("op-0001", "!host", "bash", "completed", "permission-required",
                       ["permission-inferred"])]
    assert [(f.kind, f.severity) for f in m.findings] == [("permission-inferred", "info")]
    assert rep.mapped == 4 and rep.ignored == {"session.start": 1}


def test_a_call_approved_after_its_start_runs_at_the_approval() -> None:
    # Copilot writes tool.execution_start, then asks: the call ran once approved. Its
    # invocation takes the approval's recorded time (no time is made up or moved past
    # another record), so the decision precedes the run, and the event says why.
    vcon, rep, m = run(
        L_START, started("c1", "bash", 1, 1), asked("p1", "c1", 2, 2),
        answered("p1", '{"kind":"approved"}', 3, 3), ok("c1", 4, 4),
    )
    assert [(e["type"], e["time"]) for e in vcon["events"]] == [
        ("policy-decision", ts(2)), ("tool-invocation", ts(3)), ("tool-result", ts(4))]
    assert "ran once approved" in vcon["events"][1]["inferred"]
    assert decisions(vcon)[0]["reason"] == "approved at the permission prompt (approved)"
    assert ops(m) == [("op-0001", "!host", "bash", "completed", "permission-required",
                       ["permission-inferred"])]
    assert sorted((f.kind, f.severity) for f in m.findings) == [
        ("permission-inferred", "info")]
    assert rep.mapped == 4


def test_an_answer_without_its_prompt_is_placed_at_the_answer() -> None:
    vcon, _, m = run(
        L_START, started("c1", "edit", 1, 1),
        line("permission.completed", '{"requestId":"p9","toolCallId":"c1",'
             '"result":{"kind":"approved"}}', 2, 2),
        ok("c1", 3, 3),
    )
    d = decisions(vcon)[0]
    assert (d["time"], d["operation_id"], d["tool"]) == (ts(2), "op-0001", "edit")
    assert "the prompt itself is not in the file" in d["inferred"]
    assert [o.decision for o in m.operations] == ["permission-required"]


def test_approved_for_session_of_some_commands_writes_no_standing_decision() -> None:
    # a shell approval for the session covers the listed commands only ("git"): the draft's
    # target is a tool, so no standing decision for all of bash is written
    vcon, _, m = run(
        L_START, started("c1", "bash", 1, 1), asked("p1", "c1", 2, 2),
        answered("p1", '{"kind":"approved-for-session","approval":{"kind":"commands",'
                 '"commandIdentifiers":["git"]}}', 3, 3, ',"decisionSource":"human_response"'),
        ok("c1", 4, 4),
        started("c2", "bash", 5, 5), ok("c2", 6, 6),
    )
    decs = decisions(vcon)
    assert [(d["policy_life"], d["decision"], d["reason"]) for d in decs] == [
        ("once", "permission-required",
         "approved by the user for the rest of the session (approved-for-session)")]
    assert [(o.decision, o.outcome) for o in m.operations] == [
        ("permission-required", "completed"), (None, "completed")]


def test_approved_for_session_of_file_writes_is_a_standing_decision_for_that_tool() -> None:
    vcon, rep, m = run(
        L_START,
        started("c0", "edit", 1, 1), ok("c0", 2, 2),  # before the approval: not covered
        started("c1", "edit", 3, 3), asked("p1", "c1", 4, 4, "write"),
        answered("p1", '{"kind":"approved-for-session","approval":{"kind":"write"}}', 5, 5),
        ok("c1", 6, 6),
        started("c2", "edit", 7, 7), ok("c2", 8, 8),  # no prompt: the standing decision
        started("c3", "view", 9, 9), ok("c3", 10, 10),  # another tool: not named
    )
    st_ = [d for d in decisions(vcon) if d["policy_life"] == "standing"]
    assert len(st_) == 1
    s0 = st_[0]
    assert (s0["time"], s0["decision"], s0["server"], s0["tool"]) == (
        ts(5), "allowed", "!host", "edit")  # from the answer's time on
    assert "operation_id" not in s0 and "attempt" not in s0
    assert s0["reason"].startswith("approved at the permission prompt for the rest of the "
                                   "session (approved-for-session): every file write")
    assert '"write" approval' in s0["inferred"]
    assert [(o.tool, o.decision, o.outcome, sorted(o.flags)) for o in m.operations] == [
        ("edit", None, "completed", []),
        ("edit", "permission-required", "completed", ["permission-inferred"]),
        ("edit", "allowed", "completed", []),
        ("view", None, "completed", []),
    ]
    assert rep.mapped == 10 and rep.unmapped == 0


def test_approved_for_location_of_an_mcp_server_covers_its_tools() -> None:
    mcp = ',"mcpServerName":"jira","mcpToolName":"get_issue"'
    vcon, _, m = run(
        L_START, asked("p1", "c1", 1, 1, "mcp"),
        answered("p1", '{"kind":"approved-for-location","locationKey":"/home/u/proj",'
                 '"approval":{"kind":"mcp","serverName":"jira","toolName":null}}', 2, 2),
        started("c1", "jira-get_issue", 3, 3, mcp), ok("c1", 4, 4),
        started("c2", "jira-get_issue", 5, 5, mcp), ok("c2", 6, 6),
    )
    once, standing = decisions(vcon)
    assert once["reason"] == ("approved at the permission prompt for this location "
                              "(/home/u/proj) (approved-for-location)")
    assert (standing["server"], "tool" in standing, standing["time"]) == ("jira", False, ts(2))
    assert standing["reason"].endswith("every tool of the MCP server jira")
    assert "later sessions" in standing["inferred"]
    assert [(o.server, o.tool, o.decision, sorted(o.flags)) for o in m.operations] == [
        ("jira", "get_issue", "permission-required", ["permission-inferred"]),
        ("jira", "get_issue", "allowed", [])]


def test_a_session_approval_of_an_mcp_tool_with_no_call_recorded_still_stands() -> None:
    vcon, rep, m = run(
        L_START,
        answered("p1", '{"kind":"approved-for-session","approval":{"kind":"mcp",'
                 '"serverName":"jira","toolName":"get_issue"}}', 1, 1, ',"toolCallId":"c9"'),
        answered("p2", '{"kind":"approved"}', 2, 2, ',"toolCallId":"c8"'),
        started("c1", "jira-get_issue", 3, 3,
                ',"mcpServerName":"jira","mcpToolName":"get_issue"'), ok("c1", 4, 4),
    )
    assert [(d["policy_life"], d["server"], d["tool"]) for d in decisions(vcon)] == [
        ("standing", "jira", "get_issue")]
    assert [(o.operation_id, o.decision) for o in m.operations] == [("op-0001", "allowed")]
    # the plain approval of a call that never ran decides nothing: counted as ignored
    assert rep.ignored == {"session.start": 1,
                           "permission.completed (approved, no tool call recorded)": 1}
    assert rep.mapped == 3


def test_denied_prompts_before_and_after_the_start_stay_disallowed() -> None:
    rejected = ('{"toolCallId":"%s","success":false,"error":{"message":'
                '"The user rejected this tool call.","code":"rejected"}}')
    vcon, rep, m = run(
        L_START,
        asked("p1", "c1", 1, 1),
        answered("p1", '{"kind":"denied-interactively-by-user","feedback":"no"}', 2, 2),
        started("c1", "bash", 3, 3),
        line("tool.execution_complete", rejected % "c1", 4, 4),
        started("c2", "bash", 5, 5), asked("p2", "c2", 6, 6),
        answered("p2", '{"kind":"denied-interactively-by-user"}', 7, 7),
        line("tool.execution_complete", rejected % "c2", 8, 8),
    )
    assert [(e["type"], e["operation_id"], e["decision"], e["time"])
            for e in vcon["events"]] == [
        ("policy-decision", "op-0001", "disallowed", ts(2)),
        ("policy-decision", "op-0002", "disallowed", ts(7))]
    assert ops(m) == [("op-0001", "!host", "bash", "disallowed", "disallowed", []),
                      ("op-0002", "!host", "bash", "disallowed", "disallowed", [])]
    assert rep.ignored == {"session.start": 1, "permission.requested": 2}


def test_an_approved_call_the_host_then_refused_keeps_the_refusal() -> None:
    vcon, _, m = run(
        L_START, started("c1", "bash", 1, 1), asked("p1", "c1", 2, 2),
        answered("p1", '{"kind":"approved"}', 3, 3),
        line("tool.execution_complete", '{"toolCallId":"c1","success":false,"error":'
             '{"message":"Denied by preToolUse hook: no","code":"denied"}}', 4, 4),
    )
    assert [(d["decision"], d["time"]) for d in decisions(vcon)] == [("disallowed", ts(4))]
    assert [(o.outcome, o.decision) for o in m.operations] == [("disallowed", "disallowed")]


def test_abort_cancels_open_calls_and_a_late_completion_is_kept() -> None:
    vcon, rep, m = run(
        START, start("c1", "bash", 1), start("c2", "view", 2),
        complete("c2", 3, success=True),
        rec("abort", {"reason": "user initiated"}, ts(4)),
        complete("c1", 5, success=False, error={"message": "aborted", "code": "failure"}),
    )
    cancels = [e for e in vcon["events"] if e["type"] == "tool-cancel"]
    assert [(e["operation_id"], e["body"]) for e in cancels] == [
        ("op-0001", {"reason": "user initiated"})]
    o1 = m.operations[0]
    assert "late-response" in o1.flags
    assert rep.mapped == 5


def test_mcp_tools_name_their_server() -> None:
    vcon, _, m = run(
        START,
        start("c1", "github-list_issues", 1, mcpServerName="github", mcpToolName="list_issues"),
        complete("c1", 2, success=True),
        rec("session.mcp_servers_loaded", {"servers": [{"name": "my-db", "status": "connected"}]},
            ts(3)),
        start("c2", "my-db-query", 4), complete("c2", 5, success=True),
        start("c3", "github-mcp-server-get_me", 6), complete("c3", 7, success=True),
        start("c4", "report_intent", 8), complete("c4", 9, success=True),
    )
    assert [(o.server, o.tool) for o in m.operations] == [
        ("github", "list_issues"), ("my-db", "query"), ("github-mcp-server", "get_me"),
        ("!host", "report_intent")]
    inv = [e for e in vcon["events"] if e["type"] == "tool-invocation"]
    assert inv[1]["body"]["toolName"] == "my-db-query"


def test_times_are_never_invented_or_reordered() -> None:
    vcon, rep, _ = run(
        START, start("c1", "bash", 5),
        rec("tool.execution_complete", {"toolCallId": "c1", "success": True}, None),
        start("c2", "bash", 3), complete("c2", 4, success=True),
    )
    times = [e["time"] for e in vcon["events"]]
    assert times == [ts(5), ts(5), ts(3), ts(4)]  # kept in input order, the gap filled
    assert rep.times == "partial"
    assert any("earlier than" in w for w in rep.warnings)


def test_no_timestamps_at_all_is_order_only() -> None:
    data = jsonl(rec("tool.execution_start", {"toolCallId": "a", "toolName": "bash"}, None),
                 rec("tool.execution_complete", {"toolCallId": "a", "success": True}, None))
    vcon, rep = convert(data)
    assert rep.times == "order-only"
    assert [e["time"] for e in vcon["events"]] == [
        "1970-01-01T00:00:00.000Z", "1970-01-01T00:00:00.001Z"]


def test_unknown_types_and_broken_lines_are_counted() -> None:
    _, rep, m = run(
        START, "not json", "[1, 2]", '{"type": 5}',
        rec("session.some_future_thing", {}, ts(1)),
        rec("brand_new_kind", {}, ts(1)),
        start("c1", "bash", 2),
        complete("c1", 3, success=True),
        rec("tool.execution_complete", {"toolCallId": "zz"}, ts(4)),
        rec("tool.execution_start", {"toolCallId": 7}, ts(5)),
    )
    assert rep.mapped == 2
    assert rep.ignored == {"session.start": 1, "session.some_future_thing": 1}
    assert rep.unmapped == 6
    assert len(m.operations) == 1


def test_reused_call_id_starts_a_new_operation() -> None:
    _, rep, m = run(START, start("c1", "bash", 1), start("c1", "bash", 2),
                    complete("c1", 3, success=True))
    assert [o.outcome for o in m.operations] == ["running", "completed"]
    assert any("started twice" in w for w in rep.warnings)


def test_bad_whole_input() -> None:
    with pytest.raises(ImportInputError):
        convert(b"")
    with pytest.raises(ImportInputError):
        convert(b"hello\nworld\n")


# --- recognising the format ---------------------------------------------------------------------

def test_sniff_claims_copilot_and_nothing_else() -> None:
    assert formats.detect(EVENTS.read_bytes()).name == "copilot"
    assert formats.detect(SMALL.read_bytes()).name == "copilot"
    one = jsonl(start("c1", "bash", 1))  # a single line is one JSON document
    assert formats.detect(one).name == "copilot"
    claude = jsonl({"type": "user", "message": {"role": "user", "content": "hi"},
                    "uuid": "u1", "sessionId": "s", "timestamp": ts(1)})
    codex = jsonl({"timestamp": ts(1), "type": "session_meta", "payload": {"id": "x"}})
    mcp = jsonl({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {}})
    from viewer.importers.copilot import sniff
    for other in (claude, codex, mcp, b'{"vcon": "0.4.0", "uuid": "x"}'):
        assert sniff(sample(other)) is False


# --- robustness ---------------------------------------------------------------------------------

JUNK = st.one_of(
    st.binary(max_size=40),
    st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
                 lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=6), c,
                                                                    max_size=3),
                 max_leaves=8).map(lambda v: json.dumps(v).encode()),
    st.fixed_dictionaries({
        "type": st.sampled_from(["tool.execution_start", "tool.execution_complete", "abort",
                                 "hook.end", "hook.start", "assistant.message", "x"]),
        "data": st.one_of(st.none(), st.integers(), st.dictionaries(
            st.sampled_from(["toolCallId", "toolName", "success", "error", "result", "output",
                             "toolRequests", "arguments", "hookType", "input",
                             "parentToolCallId"]),
            st.one_of(st.none(), st.booleans(), st.text(max_size=5), st.integers(),
                      st.lists(st.dictionaries(st.text(max_size=4), st.text(max_size=4)))),
            max_size=5)),
        "timestamp": st.one_of(st.none(), st.text(max_size=6), st.integers(), st.just(ts(9))),
    }).map(lambda d: json.dumps(d).encode()),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(JUNK, max_size=8), st.integers(min_value=0, max_value=8))
def test_junk_never_crashes(junk: list[bytes], at: int) -> None:
    lines = EVENTS.read_bytes().splitlines()
    lines[at:at] = [j.replace(b"\n", b" ") for j in junk]
    data = b"\n".join(lines)
    try:
        vcon, rep = convert(data)
    except ImportInputError:
        return
    n = sum(1 for ln in data.split(b"\n") if ln.strip())
    assert rep.mapped + sum(rep.ignored.values()) + rep.unmapped == n
    m = build_model(open_bytes(orjson.dumps(vcon), name="x.vcon.json"))
    assert [d for d in m.diagnostics if d.severity == "error"] == []


# --- the CLI ------------------------------------------------------------------------------------

def test_cli_import_and_direct_summary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out.vcon.json"
    assert main(["import", "copilot", str(SMALL), "-o", str(out), "-q"]) == 0
    vcon = json.loads(out.read_text())
    assert vcon["vcon"] == "0.4.0" and len(vcon["events"]) == 6
    capsys.readouterr()
    assert main(["summary", str(EVENTS), "--format", "json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert [op["tool"] for op in summary["operations"]] == ["bash"]
    assert main(["check", str(out), "--format", "json"]) == 0


def test_a_shell_command_that_exited_non_zero_is_a_failure() -> None:
    """Copilot's bash tool completes with success: true when the command fails; the result
    text ends '<exited with exit code N>' (its session exports show these as ✅). Before, a
    failed build or test run was shown as completed."""
    vcon, _rep, m = run(
        START,
        start("c1", "bash", 1),
        complete("c1", 2, success=True, result={
            "content": "ok\n<exited with exit code 0>",
            "detailedContent": "ok\n<exited with exit code 0>"}),
        start("c2", "bash", 3),
        complete("c2", 4, success=True, result={
            "content": "1 failing\n<exited with exit code 1>",
            "detailedContent": "1 failing\n<exited with exit code 1>"}),
        start("c3", "bash", 5),
        complete("c3", 6, success=True, result={
            "content": "log: <exited with exit code 2> was printed, then fine"}),
    )
    assert [(o.tool, o.outcome) for o in m.operations] == [
        ("bash", "completed"), ("bash", "failed"), ("bash", "completed")]
    fail = next(e for e in vcon["events"] if e["type"] == "tool-failure")
    assert "exit code 1" in fail["inferred"]
    assert fail["body"]["result"]["content"].startswith("1 failing")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=120), st.integers(min_value=-3, max_value=255))
def test_the_trailing_exit_mark_decides_whatever_the_output(out: str, code: int) -> None:
    """Property: a success completion is a failure exactly when its text ends with a non-zero
    '<exited with exit code N>' mark, whatever the command printed before it."""
    text = f"{out.replace('<exited', '<e')}\n<exited with exit code {code}>"
    _vcon, _rep, m = run(START, start("c", "bash", 1),
                         complete("c", 2, success=True, result={"content": text}))
    assert [o.outcome for o in m.operations] == ["completed" if code == 0 else "failed"]


def test_a_terminal_content_exit_code_decides_a_shell_result() -> None:
    """The session event schema (copilot-sdk session-events: ToolExecutionCompleteResult)
    gives a result structured ``contents`` too; a ``terminal`` block carries the command's
    ``exitCode``. By hand: c1 exitCode 0 -> completed; c2 success true, exitCode 1 and no
    text mark -> failed (the command failed), its `inferred` naming the exitCode; c3 the
    terminal block says 0 while the text says 3: the structured field wins -> completed; c4 a
    text block only, with an exitCode key it does not define -> completed."""
    def res(text: str, *blocks: dict[str, Any]) -> dict[str, Any]:
        return {"content": text, "contents": list(blocks)}
    vcon, _rep, m = run(
        START,
        start("c1", "bash", 1),
        complete("c1", 2, success=True,
                 result=res("ok", {"type": "terminal", "text": "ok", "exitCode": 0})),
        start("c2", "bash", 3),
        complete("c2", 4, success=True, result=res(
            "1 failing", {"type": "terminal", "text": "1 failing", "exitCode": 1,
                          "cwd": "/w"})),
        start("c3", "bash", 5),
        complete("c3", 6, success=True, result=res(
            "x\n<exited with exit code 3>", {"type": "terminal", "text": "x", "exitCode": 0})),
        start("c4", "view", 7),
        complete("c4", 8, success=True,
                 result=res("x", {"type": "text", "text": "x", "exitCode": 9})),
    )
    assert [(o.tool, o.outcome) for o in m.operations] == [
        ("bash", "completed"), ("bash", "failed"), ("bash", "completed"), ("view", "completed")]
    fail = next(e for e in vcon["events"] if e["type"] == "tool-failure")
    assert "exitCode 1" in fail["inferred"]


def test_newer_shell_results_say_the_exit_code_in_their_own_words() -> None:
    """Copilot CLI 1.0.x (2026) ends a shell result '<shellId: S completed with exit code N>'
    (real session exports and events.jsonl lines quoted in public repositories show '✅ bash'
    over '... <shellId: 2 completed with exit code 1>'), writes the deprecated ``terminal`` block
    as a ``shell_exit`` block {shellId, exitCode, outputPreview} and records the exit code on the
    completion as ``shellExecution: {exitCode}`` ("Process exit code reported by the shell
    driver"; github/copilot-sdk 1.0.14 session-events.d.ts, MIT), also when the result itself is
    stripped (a real line: ``"shellExecution":{"exitCode":0},"success":true,"result":
    "[REDACTED]"``). All say success: true. By hand: c1 `go vet` exit 1 by its text mark ->
    failed; c2 `make test` exit 2 by shell_exit and shellExecution -> failed; c3 exit 0 ->
    completed; c4 result stripped, shellExecution exit 1 -> failed; c5 text mark 0 but
    shellExecution 1: the driver's structured code wins -> failed; c6 a command that printed
    the mark in the middle of its output and ended without one -> completed. Before: all
    completed."""
    vcon, _rep, m = run(
        START,
        start("c1", "bash", 1),
        complete("c1", 2, success=True, result={
            "content": "pattern ./...: directory prefix . does not contain main module\n"
                       "<shellId: 0 completed with exit code 1>"}),
        start("c2", "bash", 3),
        complete("c2", 4, success=True, shellExecution={"exitCode": 2}, result={
            "content": "FAIL\n", "contents": [{"type": "shell_exit", "shellId": "1",
                                              "exitCode": 2, "outputPreview": "FAIL\n"}]}),
        start("c3", "bash", 5),
        complete("c3", 6, success=True, shellExecution={"exitCode": 0}, result={
            "content": "a\n<shellId: 2 completed with exit code 0>"}),
        start("c4", "bash", 7),
        complete("c4", 8, success=True, shellExecution={"exitCode": 1}, result="[REDACTED]"),
        start("c5", "bash", 9),
        complete("c5", 10, success=True, shellExecution={"exitCode": 1}, result={
            "content": "x\n<shellId: 3 completed with exit code 0>"}),
        start("c6", "bash", 11),
        complete("c6", 12, success=True, result={
            "content": "<shellId: 9 completed with exit code 4> was logged; all fine"}),
    )
    assert [(o.tool, o.outcome) for o in m.operations] == [
        ("bash", "failed"), ("bash", "failed"), ("bash", "completed"), ("bash", "failed"),
        ("bash", "failed"), ("bash", "completed")]
    fails = [e for e in vcon["events"] if e["type"] == "tool-failure"]
    assert "exit code 1" in fails[0]["inferred"] and "exitCode 2" in fails[1]["inferred"]
    assert fails[2]["body"]["result"] == "[REDACTED]"


def test_a_tool_the_user_asked_for_says_so() -> None:
    """The session event schema: tool.user_requested {toolCallId, toolName, arguments} is a
    tool the user invoked by hand, and its tool.execution_complete says isUserRequested. The
    draft puts tool events on the agent's party (the host sent the request), so by hand: u1
    bash completed on the agent's party, its invocation content saying isUserRequested true;
    the tool.user_requested line mapped (it names who asked); u2, requested and completed
    with no start, is invoked from the request, also saying so; the agent's own a1 does not."""
    vcon, rep, m = run(
        START,
        rec("tool.user_requested", {"toolCallId": "u1", "toolName": "bash",
                                    "arguments": {"command": "git status"}}, ts(1)),
        start("u1", "bash", 2),
        complete("u1", 3, success=True, isUserRequested=True, result={"content": "clean"}),
        rec("tool.user_requested", {"toolCallId": "u2", "toolName": "view",
                                    "arguments": {"path": "a"}}, ts(4)),
        complete("u2", 5, success=True, result={"content": "x"}),
        start("a1", "bash", 6),
        complete("a1", 7, success=True, result={"content": "ok"}),
    )
    assert [(o.tool, o.outcome) for o in m.operations] == [
        ("bash", "completed"), ("view", "completed"), ("bash", "completed")]
    inv = [e for e in vcon["events"] if e["type"] == "tool-invocation"]
    assert [e["body"].get("isUserRequested") for e in inv] == [True, True, None]
    assert {e["party"] for e in vcon["events"]} == {0}
    assert rep.mapped == 7 and rep.unmapped == 0  # every line but session.start


#: A permission round captured from a live Copilot CLI 1.0.62 session (quoted byte for byte in
#: a public test, pixtuoid's copilot decoder test): the user pressed Reject at the prompt for
#: `cat /etc/hostname`.
REAL_ASK = (
    '{"type":"permission.requested","data":{"requestId":"954afe31-559a-4afc-9eb6-13e30cf48aea",'
    '"permissionRequest":{"kind":"shell","toolCallId":"call_nf1RvU9GxssNg2g7WtPgHqQ4",'
    '"fullCommandText":"cat /etc/hostname","intention":"Show system hostname","commands":'
    '[{"identifier":"cat","readOnly":true}],"possiblePaths":["/etc/hostname"],"possibleUrls":'
    '[],"hasWriteFileRedirection":false,"canOfferSessionApproval":true},"promptRequest":'
    '{"kind":"path","accessKind":"shell","paths":["/etc/hostname"],"toolCallId":'
    '"call_nf1RvU9GxssNg2g7WtPgHqQ4"}},"id":"5240af45-3ad2-4bf7-bc37-83c329c9c2ea",'
    '"timestamp":"2026-06-14T21:38:40.507Z","parentId":"cb3c0a03-3f84-451c-bac6-843f0632ba9f"}')
REAL_REJECT = (
    '{"type":"permission.completed","data":{"requestId":"954afe31-559a-4afc-9eb6-13e30cf48aea",'
    '"toolCallId":"call_nf1RvU9GxssNg2g7WtPgHqQ4","result":{"kind":'
    '"denied-interactively-by-user"}},"id":"60dae716-c76c-45e2-84e1-c3248ce3790c",'
    '"timestamp":"2026-06-14T21:38:43.086Z","parentId":"5240af45-3ad2-4bf7-bc37-83c329c9c2ea"}')


def test_a_call_rejected_at_the_prompt_never_ran_even_without_its_completion() -> None:
    """The real rejection above, in a session that ends before any completion of the call
    (a file cut short, or an older Copilot that wrote none). By hand: bash `cat
    /etc/hostname` was refused by the user (once disallowed, reason
    denied-interactively-by-user) and never ran. With the start Copilot writes before it asks,
    it was shown invoked and running, with a policy-violation error (invoked although
    disallowed); with only the model's request, the call was dropped and the answer counted as
    "a preToolUse denial that names no tool"."""
    start = ('{"type":"session.start","data":{"sessionId":"sess","version":1,"producer":'
             '"copilot-agent","copilotVersion":"1.0.62","startTime":"2026-06-14T21:38:30.000Z"}'
             ',"id":"a","timestamp":"2026-06-14T21:38:30.000Z","parentId":null}')
    request = ('{"type":"assistant.message","data":{"messageId":"m1","content":"","toolRequests"'
               ':[{"toolCallId":"call_nf1RvU9GxssNg2g7WtPgHqQ4","name":"bash","arguments":'
               '{"command":"cat /etc/hostname","description":"Show system hostname"}}]},"id":'
               '"cb3c0a03-3f84-451c-bac6-843f0632ba9f","timestamp":"2026-06-14T21:38:40.000Z",'
               '"parentId":"a"}')
    run = ('{"type":"tool.execution_start","data":{"toolCallId":"call_nf1RvU9GxssNg2g7WtPgHqQ4"'
           ',"toolName":"bash","arguments":{"command":"cat /etc/hostname","description":'
           '"Show system hostname"}},"id":"s1","timestamp":"2026-06-14T21:38:40.100Z",'
           '"parentId":"cb3c0a03-3f84-451c-bac6-843f0632ba9f"}')
    abort = ('{"type":"abort","data":{"reason":"user_initiated"},"id":"ab","timestamp":'
             '"2026-06-14T21:38:44.000Z","parentId":"60dae716-c76c-45e2-84e1-c3248ce3790c"}')
    for lines in ([start, request, run, REAL_ASK, REAL_REJECT],
                  [start, request, run, REAL_ASK, REAL_REJECT, abort],  # not cancelled: not run
                  [start, request, REAL_ASK, REAL_REJECT]):
        data = ("\n".join(lines) + "\n").encode()
        m = model_of(data)
        no_errors(m)
        assert ops(m) == [("op-0001", "!host", "bash", "disallowed", "disallowed", [])]
        assert m.findings == ()
        vcon, rep = convert(data)
        dec = [e for e in vcon["events"] if e["type"] == "policy-decision"]
        assert [(d["reason"], d["time"]) for d in dec] == [
            ("denied-interactively-by-user", "2026-06-14T21:38:43.086Z")]
        assert [e["type"] for e in vcon["events"]] == ["policy-decision"]
        assert rep.unmapped == 0


def test_copilot_1_0_76_model_call_events_are_context_not_unmapped() -> None:
    """Copilot CLI 1.0.76 writes ``model.call_start`` (ephemeral) before each model request
    (a real events.jsonl of 2026-07-30, github/copilot-sdk work, quoted in a public session
    export). It was counted as 'not mapped: unknown event type', which reads as lost data;
    it is a model event, ignored by type like the other namespaces. The tool call beside it
    is unchanged: skill {skill: ...} completed."""
    _, rep, m = run(
        rec("assistant.turn_start", {"turnId": "0"}, ts(0)),
        rec("model.call_start", {"turnId": "0", "model": "claude-sonnet-4.6"}, ts(1)),
        start("c1", "skill", 2, arguments={"skill": "shepherd"}),
        complete("c1", 3, success=True, result={"content": "Skill loaded"}))
    assert rep.unmapped == 0
    assert rep.ignored.get("model.call_start") == 1
    assert [(o.tool, o.outcome) for o in m.operations] == [("skill", "completed")]


def test_newer_copilot_event_namespaces_are_known_not_unmapped() -> None:
    """github-copilot-sdk 1.0.27 (PyPI, MIT; generated/session_events.py SessionEventType)
    lists event types in namespaces the importer did not know: ``agent.interrupted``
    (metadata of work the user interrupted; the ``abort`` event still cancels the calls),
    ``sandbox.decision`` (what the process sandbox was configured to do), ``tool.shell_output``,
    ``human_response.recorded``, ``tool_search.activated``, ``mcp_app.tool_call_complete``
    (ephemeral), ``workflow.*``, ``prompt_cache_break``. A real 2026-09 events.jsonl also ends
    with a bare ``result`` line. They were counted 'not mapped: unknown event type', which
    reads as lost data; they are Copilot's own, ignored by type. The call beside them is
    unchanged: bash cancelled by the abort."""
    _, rep, m = run(
        START,
        start("c1", "bash", 1),
        rec("agent.interrupted", {"activity": "tool_call", "elapsedMs": 900, "turn": 1,
                                  "toolCallIds": ["c1"], "toolNames": ["bash"]}, ts(2)),
        rec("abort", {"reason": "user_initiated"}, ts(2)),
        rec("sandbox.decision", {"kind": "applied"}, ts(3)),
        rec("human_response.recorded", {}, ts(3)),
        rec("tool_search.activated", {}, ts(3)),
        rec("prompt_cache_break", {}, ts(3)),
        rec("workflow.run_started", {}, ts(3)))
    assert rep.unmapped == 0, rep.examples
    assert rep.ignored.get("agent.interrupted") == 1
    assert [(o.tool, o.outcome) for o in m.operations] == [("bash", "cancel-requested")]
