"""vcon-view import codex: Codex CLI rollouts and codex exec --json.

The expectations for the corpus samples were written from the raw files (what a reviewer
should see), then checked against the importer.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from viewer.cli import main
from viewer.importers import codex
from viewer.importers.formats import ImportInputError, detect
from viewer.model.build import build_model
from viewer.model.types import Model
from viewer.pipeline import open_bytes

ROOT = Path(__file__).resolve().parent.parent
FIX = ROOT / "tests" / "fixtures" / "agents" / "codex-rollout"
ESC = FIX / "agent-history__codex_with_escalation.jsonl"
SMALL = FIX / "agent-sessions__codex_small.jsonl"
SHARED_ID = FIX / "agentsview__codex_function_calls.jsonl"


def model_of(data: bytes) -> Model:
    return build_model(open_bytes(data, name="codex-test"))


def errors(m: Model) -> list[Any]:
    return [d for d in m.diagnostics if d.severity == "error"]


def ops(m: Model) -> dict[str, tuple[str | None, str | None, str, str | None, list[str]]]:
    return {o.operation_id: (o.server, o.tool, o.outcome, o.decision, sorted(o.flags))
            for o in m.operations}


def jl(*recs: dict[str, Any]) -> bytes:
    return b"\n".join(json.dumps(r).encode() for r in recs) + b"\n"


T0 = "2026-03-01T10:00:%02d.000Z"


def line(sec: int, typ: str, payload: dict[str, Any]) -> dict[str, Any]:
    return {"timestamp": T0 % sec, "type": typ, "payload": payload}


def call(sec: int, cid: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return line(sec, "response_item", {"type": "function_call", "name": name,
                                       "arguments": json.dumps(args), "call_id": cid})


def output(sec: int, cid: str, out: Any) -> dict[str, Any]:
    return line(sec, "response_item", {"type": "function_call_output", "call_id": cid,
                                       "output": out})


def ctx(sec: int, policy: str, sandbox: str = "workspace-write") -> dict[str, Any]:
    return line(sec, "turn_context", {"approval_policy": policy,
                                      "sandbox_policy": {"type": sandbox}})


META = line(0, "session_meta", {"id": "s-1", "cli_version": "0.77.0"})


# --- the corpus samples -----------------------------------------------------------------------


def test_escalation_sample_by_hand() -> None:
    """agent-history's escalation rollout, read by hand: turn_context approval_policy
    on-request (a standing permission-required for !host); call_esc_001 echo > test.txt ran
    (empty output); call_esc_002 asked for require_escalated, no output, the user changed
    their mind (next user message): Codex asked and it was not approved -> permission-required
    once, no invocation, not performed; call_esc_003 cat ran; call_esc_004 rm asked for
    escalation, then turn_aborted (user_cancelled) at the prompt -> not performed. The two
    calls that ran did so under the standing permission-required: permission-inferred."""
    m = model_of(ESC.read_bytes())
    assert ops(m) == {
        "op-0001": ("!host", "shell", "completed", "permission-required",
                    ["permission-inferred"]),
        "op-0002": ("!host", "shell", "not-performed", "permission-required", []),
        "op-0003": ("!host", "shell", "completed", "permission-required",
                    ["permission-inferred"]),
        "op-0004": ("!host", "shell", "not-performed", "permission-required", []),
    }
    assert [o.decision_life for o in m.operations] == ["standing", "once", "standing", "once"]
    assert [s.decision for s in m.standing] == ["permission-required"]
    assert {f.kind for f in m.findings} == {"permission-inferred"}
    assert errors(m) == []
    vcon = json.loads(m.vcon) if isinstance(m.vcon, str) else m.vcon
    evs = vcon["events"]
    # the host's call id is content, never the operation id
    inv = [e for e in evs if e["type"] == "tool-invocation"]
    assert inv[0]["body"]["call_id"] == "call_esc_001" and inv[0]["operation_id"] == "op-0001"
    refused = [e for e in evs if e["type"] == "policy-decision" and e["policy_life"] == "once"]
    assert [e["operation_id"] for e in refused] == ["op-0002", "op-0004"]
    assert "the next user message" in refused[0]["inferred"]
    assert "user_cancelled" in refused[1]["inferred"]
    assert refused[0]["reason"].startswith("the agent asked to run it with escalated "
                                           "permissions, justifying: Need to write to test.txt")
    assert not any(e["type"] == "tool-invocation" and e["operation_id"] in ("op-0002",
                                                                         "op-0004")
                   for e in evs)


def test_shared_call_id_sample_by_hand() -> None:
    """agentsview: two function_calls share call_id call_test (shell_command, apply_patch),
    no arguments, no outputs: two operations, both open (unterminated), and a warning."""
    _, rep = codex.convert(SHARED_ID.read_bytes(), source_name="x")
    assert any("call id" in w for w in rep.warnings)
    m = model_of(SHARED_ID.read_bytes())
    assert ops(m) == {
        "op-0001": ("!host", "shell_command", "running", None, ["unterminated"]),
        "op-0002": ("!host", "apply_patch", "running", None, ["unterminated"]),
    }
    assert errors(m) == []
    # the user's message is a dialog now (mapped), no longer an ignored response item
    assert rep.unmapped == 0 and rep.ignored == {"session metadata": 1}


def test_small_sample_by_hand() -> None:
    """agent-sessions' schema-coverage fixture (many sessions, trimmed ids and times):
    call-1 (custom_tool_call shell) is still open when the turn is aborted (line 20), its
    output comes after (line 21): cancelled, then a late result; call-2 shell ran; the
    tool_search and web_search calls ran; the MCP call call-5 is server example, tool
    example_tool (from mcp_tool_call_end alone); call-6 apply_patch succeeded; the MCP call
    with result Err errored; the dynamic tool call with success false failed. approval_policy
    never -> a standing allowed. The trimmed times make times partial."""
    data = SMALL.read_bytes()
    _, rep = codex.convert(data, source_name="small")
    m = model_of(data)
    o = ops(m)
    assert o["op-0001"] == ("!host", "shell", "completed", "allowed", ["late-response"])
    assert o["op-0002"] == ("!host", "shell", "completed", "allowed", [])
    assert o["op-0003"][1:3] == ("tool_search", "completed")
    assert o["op-0004"][1:3] == ("web_search", "completed")
    assert o["op-0005"] == ("example", "example_tool", "completed", None, [])
    assert o["op-0006"][1:3] == ("apply_patch", "completed")
    assert o["op-0007"][2] == "errored"  # mcp_tool_call_end result Err
    outcomes = [v[2] for v in o.values()]
    assert outcomes.count("failed") == 1  # dynamic_tool_call_response success false
    assert len(o) == 21
    assert [s.decision for s in m.standing] == ["allowed"]
    assert rep.times == "partial"
    assert any("session_meta" in w for w in rep.warnings)
    assert errors(m) == []
    # every line counted once
    n = sum(1 for ln in data.split(b"\n") if ln.strip())
    assert rep.mapped + sum(rep.ignored.values()) + rep.unmapped == n


def test_samples_are_detected() -> None:
    for f in (ESC, SMALL, SHARED_ID):
        fmt = detect(f.read_bytes())
        assert fmt is not None and fmt.name == "codex"


# --- mapping rules ----------------------------------------------------------------------------


def test_sandbox_denial_then_escalated_rerun_is_attempt_2() -> None:
    data = jl(META, ctx(1, "on-request"),
              call(2, "c1", "shell", {"command": ["touch", "/etc/x"]}),
              output(3, "c1", json.dumps({"output": "touch: /etc/x: Operation not permitted",
                                          "metadata": {"exit_code": 1}})),
              call(4, "c2", "shell", {"command": ["touch", "/etc/x"],
                                      "sandbox_permissions": "require_escalated",
                                      "justification": "needs /etc"}),
              output(5, "c2", json.dumps({"output": "", "metadata": {"exit_code": 0}})))
    m = model_of(data)
    assert len(m.operations) == 1
    op = m.operations[0]
    assert [a.final_state for a in op.attempts] == ["Failed", "Completed"]
    assert op.outcome == "completed" and "retry" in op.flags
    vcon = m.vcon
    dec = [e for e in vcon["events"] if e["type"] == "policy-decision"
           and e.get("policy_life") == "once"]
    assert len(dec) == 1 and dec[0]["attempt"] == 2
    # the reason is the policy's (the draft); the agent's plea is said to be the agent's
    assert dec[0]["decision"] == "permission-required"
    assert dec[0]["reason"] == ("the agent asked to run it with escalated permissions, "
                                "justifying: needs /etc")
    inv2 = [e for e in vcon["events"] if e["type"] == "tool-invocation"][1]
    assert "re-run with escalated permissions" in inv2["inferred"]
    assert errors(m) == []


def test_user_rejected_output_is_a_refusal_without_invocation() -> None:
    data = jl(META, ctx(1, "untrusted"), call(2, "c1", "shell", {"command": ["rm", "-rf", "x"]}),
              line(3, "event_msg", {"type": "exec_approval_request", "call_id": "c1",
                                    "command": ["rm", "-rf", "x"], "reason": "deletes"}),
              output(4, "c1", "exec command rejected by user"))
    m = model_of(data)
    assert ops(m) == {"op-0001": ("!host", "shell", "not-performed", "permission-required",
                                  [])}
    assert not [e for e in m.vcon["events"] if e["type"] == "tool-invocation"]
    assert errors(m) == []


def test_approved_prompt_is_permission_required_then_the_run() -> None:
    data = jl(META, ctx(1, "untrusted"), call(2, "c1", "shell", {"command": ["ls"]}),
              line(3, "event_msg", {"type": "exec_approval_request", "call_id": "c1",
                                    "command": ["ls"], "reason": "why"}),
              line(4, "event_msg", {"type": "exec_command_end", "call_id": "c1",
                                    "exit_code": 0, "aggregated_output": "a\n"}),
              output(5, "c1", "a\n"))
    m = model_of(data)
    assert ops(m)["op-0001"][2:4] == ("completed", "permission-required")
    assert m.operations[0].decision_life == "once"
    assert errors(m) == []


def test_policy_never_rejects_escalation_request() -> None:
    data = jl(META, ctx(1, "never"),
              call(2, "c1", "shell", {"command": ["x"], "with_escalated_permissions": True}),
              output(3, "c1", "approval policy is Never; reject command — you should not ask "
                              "for escalated permissions if the approval policy is Never"))
    m = model_of(data)
    assert ops(m)["op-0001"][2:4] == ("disallowed", "disallowed")
    assert [s.decision for s in m.standing] == ["allowed"]
    assert errors(m) == []


def test_policy_changes_are_standing_decisions() -> None:
    data = jl(META, ctx(1, "never"), ctx(2, "never"), ctx(3, "on-request"),
              call(4, "c1", "shell", {"command": ["ls"]}), output(5, "c1", "ok"))
    m = model_of(data)
    assert [s.decision for s in m.standing] == ["allowed", "permission-required"]
    assert ops(m)["op-0001"] == ("!host", "shell", "completed", "permission-required",
                                 ["permission-inferred"])


def test_outcomes_from_outputs_and_end_events() -> None:
    data = jl(META,
              call(1, "a", "shell", {"command": ["false"]}),
              line(2, "event_msg", {"type": "exec_command_end", "call_id": "a", "exit_code": 1,
                                    "stderr": "boom"}),
              output(3, "a", "Exit code: 1\nWall time: 0.1 seconds\nOutput:\nboom"),
              call(4, "b", "shell", {"command": ["sleep", "99"]}),
              output(5, "b", "command timed out after 10000 milliseconds"),
              call(6, "c", "shell", "not json"),
              output(7, "c", "failed to parse function arguments: expected value"),
              call(8, "d", "mcp__fs__read", {"path": "/x"}),
              line(9, "event_msg", {"type": "mcp_tool_call_end", "call_id": "d",
                                    "invocation": {"server": "fs", "tool": "read"},
                                    "result": {"Ok": {"content": [], "isError": True}}}),
              call(10, "e", "apply_patch", {"input": "*** Begin Patch"}),
              line(11, "event_msg", {"type": "patch_apply_end", "call_id": "e",
                                     "success": True}),
              output(12, "e", "Success."),
              call(13, "f", "shell", {"command": ["yes"]}),
              line(14, "event_msg", {"type": "turn_aborted", "reason": "interrupted"}))
    m = model_of(data)
    assert ops(m) == {
        "op-0001": ("!host", "shell", "failed", None, []),
        "op-0002": ("!host", "shell", "timed-out", None, ["unterminated"]),
        "op-0003": ("!host", "shell", "errored", None, []),
        "op-0004": ("fs", "read", "failed", None, []),
        "op-0005": ("!host", "apply_patch", "completed", None, []),
        "op-0006": ("!host", "shell", "cancel-requested", None, ["unterminated"]),
    }
    assert errors(m) == []


@pytest.mark.parametrize("out", [
    [{"type": "input_text", "text": "Tool call was cancelled because of safety risks: none"}],
    {"content": [{"type": "text", "text": "MCP tool call blocked by app configuration"}],
     "isError": False},
    {"content": [{"type": "text", "text": "This action was rejected due to unacceptable risk. "
                                          "Reason: the server's own guardrail"}]},
    [{"type": "input_text", "text": "user rejected MCP tool call"}],
])
def test_an_mcp_servers_content_in_codex_words_is_its_answer(out: Any) -> None:
    """Codex writes its refusal of an MCP call (mcp_tool_call.rs notify_mcp_tool_call_skip,
    its reviewer's answer) as the output's plain text; content items or a CallToolResult are
    the server's answer, whatever their words. Reviewer: the call completed. Before: refused,
    never run."""
    m = model_of(jl(META, call(1, "d", "mcp__fs__read", {"path": "/x"}), output(2, "d", out)))
    assert [v[2:4] for v in ops(m).values()] == [("completed", None)]


def test_exec_json_output() -> None:
    data = jl({"type": "thread.started", "thread_id": "t"}, {"type": "turn.started"},
              {"type": "item.started", "item": {"id": "i1", "type": "command_execution",
                                                "command": "ls", "status": "in_progress"}},
              {"type": "item.completed", "item": {"id": "i1", "type": "command_execution",
                                                  "command": "ls", "exit_code": 0,
                                                  "status": "completed"}},
              {"type": "item.completed", "item": {"id": "i2", "type": "mcp_tool_call",
                                                  "server": "gh", "tool": "issues",
                                                  "status": "failed",
                                                  "error": {"message": "down"}}},
              {"type": "item.completed", "item": {"id": "i3", "type": "file_change",
                                                  "changes": [], "status": "failed"}},
              {"type": "item.completed", "item": {"id": "i4", "type": "agent_message",
                                                  "text": "done"}},
              {"type": "turn.completed", "usage": {}})
    assert detect(data).name == "codex"
    vcon, rep = codex.convert(data)
    assert rep.times == "order-only"
    # the agent's answer is a dialog (exec --json does not record the prompt)
    assert [(d["body"], d["parties"]) for d in vcon["dialog"]] == [("done", [0, 1])]
    m = model_of(data)
    assert ops(m) == {
        "op-0001": ("!host", "shell", "completed", None, []),
        "op-0002": ("gh", "issues", "errored", None, []),
        "op-0003": ("!host", "apply_patch", "failed", None, []),
    }
    assert errors(m) == []


def test_unknown_and_broken_lines_are_counted() -> None:
    data = jl(META, line(1, "brand_new_kind", {"x": 1}),
              line(2, "event_msg", {"type": "future_event"}),
              line(3, "response_item", {"type": "future_item"}), {"no": "type"}) \
        + b"not json\n[1,2]\n"
    _, rep = codex.convert(data)
    assert rep.unmapped == 6 and rep.ignored == {"session metadata": 1}


def test_repeated_lines_are_flagged() -> None:
    c = call(1, "c1", "shell", {"command": ["ls"]})
    o = output(2, "c1", "ok")
    data = jl(META, c, o, c, o)
    _, rep = codex.convert(data)
    assert any("repeat earlier lines" in w for w in rep.warnings)
    assert len(model_of(data).operations) == 1


def test_bare_items_rollout_and_nothing_readable() -> None:
    data = jl({"id": "s", "timestamp": "2025-05-01T00:00:00Z", "instructions": None},
              {"type": "message", "role": "user", "content": []},
              {"type": "function_call", "name": "shell", "arguments": "{\"command\":[\"ls\"]}",
               "call_id": "c"},
              {"type": "function_call_output", "call_id": "c", "output": "{\"output\":\"x\","
                                                                          "\"metadata\":"
                                                                          "{\"exit_code\":0}}"},
              {"record_type": "state"})
    assert detect(data).name == "codex"
    _, rep = codex.convert(data)
    assert rep.times == "partial"
    assert ops(model_of(data))["op-0001"][2] == "completed"
    with pytest.raises(ImportInputError):
        codex.convert(b"junk\n")


def test_sniffer_leaves_other_formats() -> None:
    from viewer.importers.formats import sample
    assert not codex.sniff(sample(jl({"type": "user", "message": {}}, {"type": "assistant"})))
    assert not codex.sniff(sample(json.dumps({"resourceSpans": []}).encode()))
    assert not codex.sniff(sample(jl({"jsonrpc": "2.0", "method": "tools/call", "id": 1})))


JUNK = st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=20),
                 st.lists(st.integers(), max_size=3),
                 st.dictionaries(st.sampled_from(["type", "payload", "call_id", "timestamp",
                                                  "output", "name", "arguments", "item"]),
                                 st.one_of(st.none(), st.text(max_size=10), st.integers(),
                                           st.sampled_from(["event_msg", "response_item",
                                                            "function_call", "turn_context",
                                                            "exec_command_end"]),
                                           st.dictionaries(st.text(max_size=5),
                                                           st.integers(), max_size=2)),
                                 max_size=5))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(JUNK, max_size=6), st.integers(min_value=0, max_value=12))
def test_junk_never_crashes(junk: list[Any], at: int) -> None:
    lines = ESC.read_bytes().split(b"\n")
    at = min(at, len(lines))
    mixed = lines[:at] + [json.dumps(j).encode() for j in junk] + lines[at:]
    try:
        vcon, _ = codex.convert(b"\n".join(mixed))
    except ImportInputError:
        return
    assert vcon["events"] is not None


def test_cli_import_and_summary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "esc.vcon.json"
    assert main(["import", "codex", str(ESC), "-o", str(out)]) == 0
    v = json.loads(out.read_text())
    assert v["events"] and v["attachments"][0]["purpose"] == "import-provenance"
    capsys.readouterr()
    assert main(["summary", str(ESC), "--format", "json"]) == 0
    assert "op-0004" in capsys.readouterr().out


def test_mcp_names_flat_and_namespaced() -> None:
    data = jl(META, call(1, "a", "mcp__github__create_issue", {}), output(2, "a", "ok"),
              line(3, "response_item", {"type": "function_call", "namespace": "mcp__lanes",
                                        "name": "register_lane", "arguments": "{}",
                                        "call_id": "b"}), output(4, "b", "ok"),
              call(5, "c", "update_plan", {}), output(6, "c", "ok"))
    assert [(o.server, o.tool) for o in model_of(data).operations] == [
        ("github", "create_issue"), ("lanes", "register_lane"), ("!host", "update_plan")]


@pytest.mark.parametrize("text", [
    "`rm -rf /` rejected: policy forbids commands starting with `rm`",
    "`curl x` rejected: blocked by policy",
    "approval required by policy, but AskForApproval is set to Never",
])
def test_exec_policy_refusals_are_disallowed(text: str) -> None:
    data = jl(META, ctx(1, "never"), call(2, "c1", "shell", {"command": ["x"]}),
              output(3, "c1", text))
    m = model_of(data)
    assert ops(m)["op-0001"][2:4] == ("disallowed", "disallowed")
    dec = next(e for e in m.vcon["events"] if e.get("policy_life") == "once")
    assert dec["reason"] == text and "policy rejected" in dec["inferred"]


def test_exec_command_output_exit_code_after_header_lines() -> None:
    text = ("Chunk ID: 1a2b\nWall time: 0.0123 seconds\nProcess exited with code 2\n"
            "Original token count: 3\nOutput:\nls: x: No such file or directory\n")
    data = jl(META, call(1, "c1", "exec_command", {"cmd": "ls x"}), output(2, "c1", text),
              call(3, "c2", "exec_command", {"cmd": "ls"}),
              output(4, "c2", text.replace("code 2", "code 0")))
    assert [o.outcome for o in model_of(data).operations] == ["failed", "completed"]


def test_aborted_output_and_old_sandbox_text() -> None:
    data = jl(META, call(1, "a", "shell", {"command": ["sleep", "9"]}),
              line(2, "event_msg", {"type": "turn_aborted", "reason": "interrupted"}),
              output(3, "a", "aborted"),
              call(4, "b", "shell", {"command": ["sleep", "9"]}), output(5, "b", "aborted"),
              call(6, "c", "shell", {"command": ["touch", "/x"]}),
              output(7, "c", "failed in sandbox Seatbelt with execution error: Denied"))
    m = model_of(data)
    assert [o.outcome for o in m.operations] == ["cancel-requested", "cancel-requested",
                                                 "failed"]
    assert [e["type"] for e in m.vcon["events"]].count("tool-cancel") == 2


def test_approval_request_reason_codex_own_words_or_the_agents() -> None:
    """exec_approval_request's reason is Codex's when it differs from the call's
    justification (e.g. a retry without the sandbox), the agent's words when it repeats it."""
    esc = {"command": ["touch", "/etc/x"], "sandbox_permissions": "require_escalated",
           "justification": "needs /etc"}
    for asked, want in (("needs /etc", "the agent asked to run it with escalated permissions, "
                                       "justifying: needs /etc"),
                        ("command failed; retry without sandbox?",
                         "command failed; retry without sandbox?")):
        data = jl(META, ctx(1, "untrusted"), call(2, "c1", "shell", esc),
                  line(3, "event_msg", {"type": "exec_approval_request", "call_id": "c1",
                                        "command": ["touch", "/etc/x"], "reason": asked}),
                  line(4, "event_msg", {"type": "exec_command_end", "call_id": "c1",
                                        "exit_code": 0, "aggregated_output": ""}),
                  output(5, "c1", ""))
        dec = [e for e in model_of(data).vcon["events"] if e["type"] == "policy-decision"
               and e.get("policy_life") == "once"]
        assert [d["reason"] for d in dec] == [want]
