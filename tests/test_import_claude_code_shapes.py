"""vcon-view import claude-code: record shapes Claude Code writes that the corpus samples do not
show. Each fixture is built by hand from the shape as its producer defines it (the source is
named at each test); the expectation is what a reviewer should see, written before the fix.
"""

from __future__ import annotations

import json
from typing import Any

from viewer.importers import claude_code as cc
from viewer.load import load_bytes
from viewer.model.build import build_model
from viewer.model.types import Model


def conv(lines: list[Any]) -> tuple[dict[str, Any], Any, Model]:
    data = b"\n".join(json.dumps(x).encode() for x in lines)
    vcon, rep = cc.convert(data, source_name="t.jsonl")
    return vcon, rep, build_model(load_bytes(json.dumps(vcon).encode(), name="imported"))


def no_errors(m: Model) -> None:
    assert [d for d in m.diagnostics if d.severity == "error"] == []


def ops(m: Model) -> list[tuple[str | None, str | None, str, str | None, set[str]]]:
    return [(o.server, o.tool, o.outcome, o.decision, set(o.flags)) for o in m.operations]


def _t(i: int) -> str:
    return f"2026-03-01T10:00:{i:02d}.000Z"


def asst(i: int, *blocks: dict[str, Any], mid: str = "msg_1") -> dict[str, Any]:
    return {"type": "assistant", "uuid": f"a{i}", "sessionId": "s", "timestamp": _t(i),
            "message": {"id": mid, "role": "assistant", "content": list(blocks)}}


def tool_use(tid: str, name: str, inp: Any = None) -> dict[str, Any]:
    return {"type": "tool_use", "id": tid, "name": name, "input": inp or {}}


def result(i: int, tid: str, content: Any, is_error: bool | None = None) -> dict[str, Any]:
    b: dict[str, Any] = {"type": "tool_result", "tool_use_id": tid, "content": content}
    if is_error is not None:
        b["is_error"] = is_error
    return {"type": "user", "uuid": f"u{i}", "sessionId": "s", "timestamp": _t(i),
            "message": {"role": "user", "content": [b]}}


def prompt(i: int, text: str, mode: str | None = None) -> dict[str, Any]:
    r: dict[str, Any] = {"type": "user", "uuid": f"p{i}", "sessionId": "s", "timestamp": _t(i),
                         "message": {"role": "user", "content": text}}
    if mode:
        r["permissionMode"] = mode
    return r


# --- server tools: server_tool_use / *_tool_result --------------------------------------------
# The Messages API's server tools (web_search, web_fetch, code execution, tool search) are run
# by the API itself: the model's turn holds a `server_tool_use` block {id: srvtoolu_…, name,
# input} and the result as a `<tool>_tool_result` block {tool_use_id, content} in the same
# assistant message; an error is content {type: "<tool>_tool_result_error", error_code}
# (Anthropic's web search tool docs). Claude Code writes one line per content block, with the
# same message.id, so the use and its result are on different lines.


def test_server_tool_use_is_an_operation_ended_by_its_result_block() -> None:
    """Reviewer: one operation, web_search on server 'anthropic' (the API ran it, not Claude
    Code's host), completed at the result's line, with the query as its input; the message's
    text stays a dialog. Before: the call was dropped (0 operations)."""
    _, rep, m = conv([
        prompt(0, "what's new in python 3.14?"),
        asst(1, {"type": "text", "text": "Searching."}),
        asst(2, {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search",
                 "input": {"query": "python 3.14"}}),
        asst(3, {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1",
                 "content": [{"type": "web_search_result", "url": "https://python.org",
                              "title": "Python"}]}),
        asst(4, {"type": "text", "text": "It adds t-strings."}),
    ])
    no_errors(m)
    assert ops(m) == [("anthropic", "web_search", "completed", None, set())]
    inv = next(e.raw for e in m.events if e.type == "tool-invocation")
    assert inv["body"]["input"] == {"query": "python 3.14"}
    assert inv["time"] == _t(2)
    end = next(e.raw for e in m.events if e.type == "tool-result")
    assert end["time"] == _t(3)
    assert rep.unmapped == 0


def test_server_tool_error_result_is_a_failure_and_mcp_style_names_stay() -> None:
    """Reviewer: a web search the API answered with web_search_tool_result_error (error_code
    max_uses_exceeded) failed; a code-execution result with return_code 1 failed too; a
    server_tool_use with no result stays open."""
    _, _, m = conv([
        asst(1, {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search",
                 "input": {"query": "x"}},
             {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1",
              "content": {"type": "web_search_tool_result_error",
                          "error_code": "max_uses_exceeded"}}),
        asst(2, {"type": "server_tool_use", "id": "srvtoolu_2", "name": "bash_code_execution",
                 "input": {"command": "false"}}, mid="msg_2"),
        asst(3, {"type": "bash_code_execution_tool_result", "tool_use_id": "srvtoolu_2",
                 "content": {"type": "bash_code_execution_result", "stdout": "", "stderr": "",
                             "return_code": 1}}, mid="msg_2"),
        asst(4, {"type": "server_tool_use", "id": "srvtoolu_3", "name": "web_fetch",
                 "input": {"url": "https://e.com"}}, mid="msg_3"),
    ])
    no_errors(m)
    assert [(o[0], o[1], o[2]) for o in ops(m)] == [
        ("anthropic", "web_search", "failed"),
        ("anthropic", "bash_code_execution", "failed"),
        ("anthropic", "web_fetch", "running")]


def test_server_tools_get_no_permission_mode_decision() -> None:
    """permissionMode decisions are Claude Code's own permission system, which never sees a
    server tool's call: the server tool has no decision (none observed), the Bash call keeps
    its mode's."""
    _, _, m = conv([
        prompt(0, "go", mode="default"),
        asst(1, tool_use("toolu_1", "Bash", {"command": "ls"})),
        result(2, "toolu_1", "a"),
        asst(3, {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search",
                 "input": {"query": "x"}}, mid="msg_2"),
        asst(4, {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1",
                 "content": []}, mid="msg_2"),
    ])
    no_errors(m)
    assert ops(m) == [("!host", "Bash", "completed", "permission-required",
                       {"permission-inferred"}),
                      ("anthropic", "web_search", "completed", None, set())]


def test_api_mcp_connector_blocks_are_calls_on_their_server() -> None:
    """The API's MCP connector writes `mcp_tool_use` {id, name, server_name, input} and
    `mcp_tool_result` {tool_use_id, is_error, content} (Anthropic's MCP connector docs).
    Reviewer: one call of tool 'search' on server 'docs', failed (is_error true)."""
    _, rep, m = conv([
        asst(1, {"type": "mcp_tool_use", "id": "mcptoolu_1", "name": "search",
                 "server_name": "docs", "input": {"q": "x"}}),
        asst(2, {"type": "mcp_tool_result", "tool_use_id": "mcptoolu_1", "is_error": True,
                 "content": [{"type": "text", "text": "boom"}]}),
    ])
    no_errors(m)
    assert ops(m) == [("docs", "search", "failed", None, set())]
    assert rep.unmapped == 0
    # a server_name that is the draft's name for the agent's own host names no MCP server
    _, _, m = conv([asst(1, {"type": "mcp_tool_use", "id": "mcptoolu_1", "name": "search",
                             "server_name": "!host", "input": {}})])
    assert [o.server for o in m.operations] == ["unknown-mcp-server"]


# --- permission decisions a hook made ---------------------------------------------------------
# When a PermissionRequest hook answers a permission request with allow or deny, Claude Code
# writes an `attachment` line {type: "hook_permission_decision", decision, toolUseID,
# hookEvent} before the call runs (Claude Code's toolExecution: "Add message if permission was
# granted/denied by PermissionRequest hook"); a deny answers the call with the hook's message,
# by default "Permission denied by PermissionRequest hook".


def hook_decision(i: int, tid: str, decision: str) -> dict[str, Any]:
    return {"type": "attachment", "uuid": f"h{i}", "sessionId": "s", "timestamp": _t(i),
            "attachment": {"type": "hook_permission_decision", "decision": decision,
                           "toolUseID": tid, "hookEvent": "PermissionRequest"}}


def test_hook_allow_is_the_calls_once_decision() -> None:
    """Reviewer: under permissionMode default a Bash call asks; here the PermissionRequest
    hook allowed it, so its decision is a once 'allowed' by the hook (not the mode's
    permission-required with 'the grant is not recorded': the grant is recorded), and the
    call starts at that decision. Before: permission-required, flagged permission-inferred."""
    _, rep, m = conv([prompt(0, "go", mode="default"),
                      asst(1, tool_use("toolu_1", "Bash", {"command": "make"})),
                      hook_decision(2, "toolu_1", "allow"),
                      result(3, "toolu_1", "built")])
    no_errors(m)
    assert ops(m) == [("!host", "Bash", "completed", "allowed", set())]
    o = m.operations[0]
    assert o.decision_life == "once"
    dec = next(e.raw for e in m.events if e.type == "policy-decision" and
               e.raw.get("policy_life") == "once")
    assert dec["time"] == _t(2) and "PermissionRequest hook" in dec["inferred"]
    inv = next(e.raw for e in m.events if e.type == "tool-invocation")
    assert inv["time"] == _t(2)
    assert rep.unmapped == 0


def test_hook_deny_is_a_refusal_not_a_failure() -> None:
    """Reviewer: the hook refused the call: a once 'disallowed' decision at the hook's time,
    the message as its reason, and no invocation (it never ran). Before: the error result
    made it a tool-failure, as if the command had run and failed. The default message alone
    (no attachment line, e.g. an older copy) is read the same way."""
    text = "Permission denied by PermissionRequest hook"
    _, _, m = conv([prompt(0, "go", mode="default"),
                    asst(1, tool_use("toolu_1", "Bash", {"command": "rm -rf /"})),
                    hook_decision(2, "toolu_1", "deny"),
                    result(3, "toolu_1", text, True),
                    asst(4, tool_use("toolu_2", "Bash", {"command": "rm -rf ~"}), mid="m2"),
                    result(5, "toolu_2", text, True)])
    no_errors(m)
    assert [(o.tool, o.outcome, o.decision, o.decision_life, o.attempts)
            for o in m.operations] == [("Bash", "disallowed", "disallowed", "once", ())] * 2
    dec = [e.raw for e in m.events if e.type == "policy-decision"
           and e.raw.get("policy_life") == "once"]
    assert dec[0]["time"] == _t(2) and dec[0]["reason"] == text
    assert "hook" in dec[1]["inferred"]


def test_a_hooks_recorded_event_name_is_not_a_warning_of_its_own() -> None:
    """The warnings count each rule that fired, in the project's words: a recorded value
    (hookEvent) is not written into them, so a file cannot add a warning line per value.
    Its name stays in the decision's inferred member, a JSON value."""
    odd = "Perm\u202eissionRequest" + "x" * 60
    lines: list[Any] = [prompt(0, "go", mode="default")]
    for i, event in enumerate(("PermissionRequest", odd, odd + "y")):
        tid = f"toolu_{i}"
        dec = hook_decision(3 * i + 2, tid, "allow")
        dec["attachment"]["hookEvent"] = event
        lines += [asst(3 * i + 1, tool_use(tid, "Bash", {"command": f"make {i}"}), mid=f"m{i}"),
                  dec, result(3 * i + 3, tid, "built")]
    vcon, rep, m = conv(lines)
    no_errors(m)
    fired = [w for w in rep.warnings if "hook_permission_decision" in w]
    assert len(fired) == 1 and "3x" in fired[0], rep.warnings
    assert not any("\u202e" in w or "xxxx" in w for w in rep.warnings)
    said = [e["inferred"] for e in vcon["events"] if "hook answered" in e.get("inferred", "")]
    assert len(said) == 3 and "\u202e" in said[1]  # as recorded, in a JSON value


def test_hook_deny_with_no_result_line_is_still_a_refusal() -> None:
    _, _, m = conv([asst(1, tool_use("toolu_1", "Bash", {"command": "x"})),
                    hook_decision(2, "toolu_1", "deny")])
    no_errors(m)
    o = m.operations[0]
    assert (o.outcome, o.decision, o.attempts) == ("disallowed", "disallowed", ())


# --- hook payload logs: permission events -------------------------------------------------
# Claude Code's hooks reference: every payload carries the common fields session_id,
# transcript_path, cwd, permission_mode, hook_event_name. PreToolUse {tool_name, tool_input,
# tool_use_id} fires before the permission check; PermissionRequest {tool_name, tool_input,
# permission_suggestions} when Claude Code asks for permission (no tool_use_id); PermissionDenied
# {tool_name, tool_input, tool_use_id, reason} when the auto-mode classifier refuses the call;
# PostToolUse {.., tool_response} after it succeeded.


def hk(i: int, event: str, tid: str | None = None, **kw: Any) -> dict[str, Any]:
    r: dict[str, Any] = {"session_id": "s", "transcript_path": "/p/s.jsonl", "cwd": "/w",
                         "hook_event_name": event, "timestamp": _t(i), **kw}
    if tid is not None:
        r["tool_use_id"] = tid
    return r


RM = {"command": "rm -rf build"}


def test_hook_log_permission_request_is_a_once_permission_required() -> None:
    """Reviewer: the Bash call asked (PermissionRequest), then ran (PostToolUse): a once
    permission-required decision at the request, the run after it (the grant itself is not
    in the log: permission-inferred). Before: no decision at all."""
    _, rep, m = conv([hk(1, "PreToolUse", "toolu_1", tool_name="Bash", tool_input=RM),
                      hk(2, "PermissionRequest", tool_name="Bash", tool_input=RM,
                         permission_suggestions=[]),
                      hk(3, "PostToolUse", "toolu_1", tool_name="Bash", tool_input=RM,
                         tool_response={"stdout": "", "stderr": "", "interrupted": False})])
    no_errors(m)
    assert ops(m) == [("!host", "Bash", "completed", "permission-required",
                       {"permission-inferred"})]
    assert m.operations[0].decision_life == "once"
    inv = next(e.raw for e in m.events if e.type == "tool-invocation")
    assert inv["time"] == _t(2)
    assert rep.unmapped == 0 and rep.mapped == 3


def test_hook_log_permission_denied_is_a_refusal_without_invocation() -> None:
    """Reviewer: the auto-mode classifier refused the call (PermissionDenied): a once
    'disallowed' decision with the recorded reason, and no invocation. Before: the call was
    shown running (invoked at its PreToolUse) and the denial counted as ignored."""
    _, _, m = conv([hk(1, "PreToolUse", "toolu_1", tool_name="Bash", tool_input=RM,
                       permission_mode="auto"),
                    hk(2, "PermissionDenied", "toolu_1", tool_name="Bash", tool_input=RM,
                       reason="Auto mode denied: command targets a path outside the project",
                       permission_mode="auto")])
    no_errors(m)
    o = m.operations[0]
    assert (o.tool, o.outcome, o.decision, o.decision_life, o.attempts) == (
        "Bash", "disallowed", "disallowed", "once", ())
    dec = next(e.raw for e in m.events if e.type == "policy-decision"
               and e.raw.get("policy_life") == "once")
    assert dec["reason"].startswith("Auto mode denied")


def test_hook_log_permission_mode_is_a_standing_decision() -> None:
    """permission_mode in the payloads is the session's permission mode, read as the
    transcript's permissionMode is: bypassPermissions allows every call."""
    _, _, m = conv([hk(1, "UserPromptSubmit", prompt="go", permission_mode="bypassPermissions"),
                    hk(2, "PreToolUse", "toolu_1", tool_name="Bash", tool_input=RM,
                       permission_mode="bypassPermissions"),
                    hk(3, "PostToolUse", "toolu_1", tool_name="Bash", tool_input=RM,
                       tool_response={"stdout": ""}, permission_mode="bypassPermissions")])
    no_errors(m)
    assert ops(m) == [("!host", "Bash", "completed", "allowed", set())]


def test_a_permission_request_log_alone_is_read() -> None:
    """A log of PermissionRequest payloads only (a hooks-mastery style permission_request.json)
    records calls Claude Code asked to make: it is read, not refused as a log without tool
    calls; whether each was approved is not in it (said). Nothing in it says the call started:
    no tool-invocation is made up for it (it was: 'Running', and a finding that it 'ran under
    permission-required'); the decision carries what was asked (``requested``)."""
    vcon, rep, m = conv([hk(1, "PermissionRequest", tool_name="Bash", tool_input=RM)])
    no_errors(m)
    assert [(o.tool, o.decision, o.outcome) for o in m.operations] == [
        ("Bash", "permission-required", "not-performed")]
    assert not [e for e in vcon["events"] if e["type"] == "tool-invocation"]
    assert not m.findings
    dec = next(e for e in vcon["events"] if e.get("policy_life") == "once")
    assert dec["requested"]["input"] == RM
    assert rep.mapped == 1
    assert any("asked for permission (PermissionRequest)" in w and "not recorded" in w
               for w in rep.warnings)


def test_hook_log_permission_notification_marks_the_open_call_asked() -> None:
    """A log holding every hook event (one JSONL) has the Notification Claude Code sends when
    it shows a permission prompt: "Claude needs your permission to use <tool>" (the tool's
    display name; an MCP tool's is "<server> - <Title> (MCP)"). Reviewer: the open Bash call
    it names asked (once permission-required at the notification, then ran); the MCP call of
    server github it names asked too; a notification naming no open call changes nothing."""
    gh = {"repo": "x"}
    _, rep, m = conv([
        hk(1, "PreToolUse", "toolu_1", tool_name="Bash", tool_input=RM),
        hk(2, "Notification", message="Claude needs your permission to use Bash",
           notification_type="permission_prompt"),
        hk(3, "PostToolUse", "toolu_1", tool_name="Bash", tool_input=RM,
           tool_response={"stdout": ""}),
        hk(4, "PreToolUse", "toolu_2", tool_name="mcp__github__list_issues", tool_input=gh),
        hk(5, "Notification",
           message="Claude needs your permission to use github - List issues (MCP)"),
        hk(6, "PostToolUse", "toolu_2", tool_name="mcp__github__list_issues", tool_input=gh,
           tool_response=[{"type": "text", "text": "[]"}]),
        hk(7, "Notification", message="Claude needs your permission to use Write"),
        hk(8, "Notification", message="Claude is waiting for your input")])
    no_errors(m)
    assert ops(m) == [("!host", "Bash", "completed", "permission-required",
                       {"permission-inferred"}),
                      ("github", "list_issues", "completed", "permission-required",
                       {"permission-inferred"})]
    assert rep.unmapped == 0


def test_hook_log_post_tool_batch() -> None:
    """PostToolBatch {tool_calls: [{tool_name, tool_input, tool_use_id, tool_response}]} fires
    once a batch of parallel calls ended (Claude Code's hook events); each call also fired its
    PostToolUse. Reviewer: in a log of PostToolBatch payloads alone, each listed call
    completed; in a log that has the PostToolUse too, each call is one operation, not two.
    Before: the batch was ignored (a batch-only log refused as holding no tool call)."""
    a, b = {"command": "ls"}, {"file_path": "/a"}
    batch = hk(5, "PostToolBatch", tool_calls=[
        {"tool_name": "Bash", "tool_input": a, "tool_use_id": "toolu_1", "tool_response": "x"},
        {"tool_name": "Read", "tool_input": b, "tool_use_id": "toolu_2", "tool_response": "y"}])
    _, rep, m = conv([batch])
    no_errors(m)
    assert [(o[1], o[2]) for o in ops(m)] == [("Bash", "completed"), ("Read", "completed")]
    assert rep.mapped == 1
    _, _, m = conv([hk(1, "PreToolUse", "toolu_1", tool_name="Bash", tool_input=a),
                    hk(2, "PreToolUse", "toolu_2", tool_name="Read", tool_input=b),
                    hk(3, "PostToolUse", "toolu_1", tool_name="Bash", tool_input=a,
                       tool_response="x"),
                    hk(4, "PostToolUse", "toolu_2", tool_name="Read", tool_input=b,
                       tool_response="y"), batch])
    no_errors(m)
    assert [(o[1], o[2]) for o in ops(m)] == [("Bash", "completed"), ("Read", "completed")]


# --- ExitPlanMode: the user approves the plan ---------------------------------------------
# ExitPlanMode "inherently requests user approval of your plan" (its tool description, Claude
# Code 2.1.x); the approval answers the call: "User has approved your plan. You can now start
# coding." or, in 2.1.x, "User has approved exiting plan mode. You can now proceed."
# (ExitPlanModeV2Tool). A real hook log (asp2131/cka-buddy logs/permission_request.json, Claude
# Code 2.1.x, permission_mode plan) holds a PermissionRequest payload for ExitPlanMode: it is
# asked about, not one of the tools Claude Code never asks about. The real transcript
# spotter__subagent.jsonl shows the call at 21:59:19.841 and the approval at 22:01:10.248.

PLAN_OK = "User has approved exiting plan mode. You can now proceed."


def test_exit_plan_mode_approval_is_the_users_once_decision() -> None:
    """Reviewer: the plan was shown and the user approved it: a once 'allowed' decision at the
    approval (the answer quoted), the call starting there (not two minutes of 'running' while
    the user read the plan). Before: no decision of its own, the standing 'allowed' with the
    words 'ExitPlanMode is read-only, never asked about', and the wait shown as the run."""
    _, rep, m = conv([prompt(0, "plan it", mode="plan"),
                      asst(1, tool_use("t1", "ExitPlanMode", {})),
                      result(9, "t1", PLAN_OK)])
    no_errors(m)
    o = m.operations[0]
    assert (o.tool, o.outcome, o.decision, o.decision_life) == (
        "ExitPlanMode", "completed", "allowed", "once")
    dec = next(e.raw for e in m.events if e.type == "policy-decision"
               and e.raw.get("policy_life") == "once")
    assert dec["reason"] == PLAN_OK and "approved the plan" in dec["inferred"]
    inv = next(e.raw for e in m.events if e.type == "tool-invocation")
    assert inv["time"] == _t(9)
    std = {s.tool: (s.decision, s.reason) for s in m.standing}
    assert std["ExitPlanMode"][0] == "permission-required"
    assert "never asked" not in (std["ExitPlanMode"][1] or "")
    assert rep.unmapped == 0


def test_exit_plan_mode_is_not_called_never_asked_in_a_hook_log() -> None:
    """Reviewer of a PermissionRequest log under permission_mode plan: the standing decision
    must not say ExitPlanMode is 'never asked about' beside the payload that shows it asked.
    Before: standing 'allowed', 'ExitPlanMode is read-only, never asked about'."""
    _, _, m = conv([hk(1, "PermissionRequest", tool_name="ExitPlanMode",
                       tool_input={"plan": "# p"}, permission_mode="plan")])
    no_errors(m)
    std = {s.tool: (s.decision, s.reason) for s in m.standing}
    assert std["ExitPlanMode"][0] == "permission-required"
    assert "never asked" not in (std["ExitPlanMode"][1] or "")
    assert [(o.tool, o.decision) for o in m.operations] == [
        ("ExitPlanMode", "permission-required")]


def test_enter_plan_mode_is_not_called_never_asked() -> None:
    """EnterPlanMode's own description (Claude Code 2.0.51 on): "This tool REQUIRES user approval
    - they must consent to entering plan mode". Reviewer: under permissionMode default its
    standing decision asks (permission-required, the consent not recorded), not 'allowed,
    EnterPlanMode is read-only, never asked about'. Before: the latter."""
    _, _, m = conv([prompt(0, "go", mode="default"),
                    asst(1, tool_use("t1", "EnterPlanMode", {})),
                    result(2, "t1", "Entered plan mode. You should now focus on exploring.")])
    no_errors(m)
    std = {s.tool: (s.decision, s.reason) for s in m.standing if s.time.second == 0}
    assert std["EnterPlanMode"][0] == "permission-required"
    assert "never asked" not in (std["EnterPlanMode"][1] or "")
    assert "consent" in (std["EnterPlanMode"][1] or "")


# --- records before the first timestamp -------------------------------------------------------
# Claude Code 2.1.x opens a session file with untimed state lines ({"type":"last-prompt",..},
# {"type":"permission-mode","permissionMode":"auto","sessionId":..}: no timestamp) before the
# first timed record (seen in a real 2.1.146 chat.json, jim-at-jibba/harness-lab logs/chat.json).


def test_an_untimed_permission_mode_line_first_takes_the_first_recorded_time() -> None:
    """Reviewer: the session ran on 2026-03-01; its standing decisions (from the leading
    permission-mode line) must not be dated 1970-01-01T00:00:00Z. The mode held from the start
    of the session, so they take the first recorded time. Before: every standing decision at
    1970-01-01T00:00:00Z, half a century before the calls it governs."""
    _, rep, m = conv([{"type": "last-prompt", "leafUuid": "x", "sessionId": "s"},
                      {"type": "permission-mode", "permissionMode": "auto", "sessionId": "s"},
                      prompt(3, "go"),
                      asst(4, tool_use("t1", "Bash", {"command": "ls"})),
                      result(5, "t1", "a.txt")])
    no_errors(m)
    assert m.standing and all(s.time is not None and s.time.year == 2026 for s in m.standing)
    assert {s.time.isoformat() for s in m.standing} == {"2026-03-01T10:00:03+00:00"}
    assert not any(e.raw["time"].startswith("1970") for e in m.events)
    assert ops(m) == [("!host", "Bash", "completed", "permission-required",
                       {"permission-inferred"})]
    assert any("first recorded time" in w for w in rep.lines())


# --- a PreToolUse hook that rewrote the call's input ----------------------------------------
# Claude Code's hooks reference: a PreToolUse hook's hookSpecificOutput.updatedInput replaces
# the tool's input before it runs. The transcript keeps the model's tool_use input and writes
# the hook's stdout in a hook_success attachment (real 2.1.146 session, jim-at-jibba/harness-lab
# logs/chat.json: `rtk hook claude` rewrote `ls -la && cat package.json` into `rtk ls -la &&
# rtk read package.json`, and the result is rtk's listing).


def pre_hook(i: int, tid: str, stdout: str, event: str = "PreToolUse") -> dict[str, Any]:
    return {"type": "attachment", "uuid": f"h{i}", "sessionId": "s", "timestamp": _t(i),
            "attachment": {"type": "hook_success", "hookName": f"{event}:Bash",
                           "toolUseID": tid, "hookEvent": event, "content": "",
                           "stdout": stdout, "stderr": "", "exitCode": 0,
                           "command": "rtk hook claude", "durationMs": 17}}


def test_a_pre_tool_use_hook_rewrite_shows_the_input_that_ran() -> None:
    """Reviewer: the command that ran was the hook's (`rtk read package.json`), not only the
    model's (`cat package.json`): the arguments show both, named, and the invocation says a
    hook replaced the input. Before: only the model's command, the rewrite nowhere."""
    new = {"command": "rtk ls -la && rtk read package.json", "description": "List"}
    out = json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
                                             "permissionDecisionReason": "RTK auto-rewrite",
                                             "updatedInput": new}}) + "\n"
    vcon, rep, m = conv([prompt(0, "go", mode="auto"),
                         asst(1, tool_use("t1", "Bash", {"command": "ls -la && cat package.json",
                                                         "description": "List"})),
                         pre_hook(2, "t1", out),
                         pre_hook(3, "t1", '{"hookSpecificOutput":{"hookEventName":"PreToolUse",'
                                           '"additionalContext":"tip"}}\n'),
                         result(4, "t1", "Exit code 1\nlogs/", True),
                         asst(5, tool_use("t2", "Bash", {"command": "pwd"}), mid="m2"),
                         pre_hook(6, "t2", "not json"),
                         result(7, "t2", "/w")])
    no_errors(m)
    assert [(o.tool, o.outcome) for o in m.operations] == [("Bash", "failed"),
                                                           ("Bash", "completed")]
    inv = [e for e in vcon["events"] if e["type"] == "tool-invocation"]
    body = json.loads(inv[0]["body"]) if isinstance(inv[0]["body"], str) else inv[0]["body"]
    assert body["input"]["command"] == "ls -la && cat package.json"
    assert body["updated_input"] == new
    assert "rtk hook claude" in body["updated_by"]
    assert "updatedInput" in inv[0]["inferred"] and "updated_input" in inv[0]["inferred"]
    body2 = json.loads(inv[1]["body"]) if isinstance(inv[1]["body"], str) else inv[1]["body"]
    assert "updated_input" not in body2 and "inferred" not in inv[1]
    assert rep.unmapped == 0


def test_hook_log_permission_notification_without_a_tool_name() -> None:
    """Claude Code 2.1.x words the permission prompt's Notification without the tool: message
    "Claude needs your permission", notification_type "permission_prompt" (a real 2.1.146
    notification.json, jim-at-jibba/harness-lab logs/notification.json). Reviewer: when exactly
    one call of the log is open, it is the call that asked (once permission-required at the
    notification), as with the older wording that named the tool. Before: the notification was
    ignored and the call read as never asked. With two calls open, which one asked is not said:
    nothing changes; 'waiting for your input' (idle_prompt) changes nothing either."""
    _, rep, m = conv([
        hk(1, "PreToolUse", "toolu_1", tool_name="Bash", tool_input=RM, permission_mode="default"),
        hk(2, "Notification", message="Claude needs your permission",
           notification_type="permission_prompt"),
        hk(3, "PostToolUse", "toolu_1", tool_name="Bash", tool_input=RM,
           tool_response={"stdout": ""}),
        hk(4, "Notification", message="Claude is waiting for your input",
           notification_type="idle_prompt"),
        hk(5, "PreToolUse", "toolu_2", tool_name="Bash", tool_input={"command": "a"}),
        hk(6, "PreToolUse", "toolu_3", tool_name="Bash", tool_input={"command": "b"}),
        hk(7, "Notification", message="Claude needs your permission",
           notification_type="permission_prompt"),
        hk(8, "PostToolUse", "toolu_2", tool_name="Bash", tool_input={"command": "a"},
           tool_response={"stdout": ""}),
        hk(9, "PostToolUse", "toolu_3", tool_name="Bash", tool_input={"command": "b"},
           tool_response={"stdout": ""})])
    no_errors(m)
    asked = [o for o in m.operations if o.decision_life == "once"]
    assert [(o.tool, o.decision) for o in asked] == [("Bash", "permission-required")]
    dec = next(e.raw for e in m.events if e.type == "policy-decision"
               and e.raw.get("policy_life") == "once")
    assert dec["time"] == _t(2) and dec["operation_id"] == m.operations[0].operation_id
    assert [o.decision_life for o in m.operations[1:]] == ["standing", "standing"]
    assert rep.unmapped == 0


def test_a_toolless_permission_notification_is_not_pinned_on_a_call_that_never_asks() -> None:
    """The rule above takes the one open call as the one that asked. A Read never asks
    (NEVER_ASKS): when the only open call is a Read (the prompted call's own PreToolUse not in
    the log, e.g. a matcher that logs only some tools, or a sub-agent's read running beside
    it), the prompt was for some other call. Reviewer: the Read is not shown asked (before: a
    once permission-required at the notification, its start moved to it)."""
    rd = {"file_path": "/w/a.py"}
    _, _rep, m = conv([
        hk(1, "PreToolUse", "toolu_1", tool_name="Read", tool_input=rd, permission_mode="default"),
        hk(2, "Notification", message="Claude needs your permission",
           notification_type="permission_prompt"),
        hk(3, "PostToolUse", "toolu_1", tool_name="Read", tool_input=rd,
           tool_response={"file": {}})])
    no_errors(m)
    assert [(o.tool, o.decision, o.decision_life) for o in m.operations] == [
        ("Read", "allowed", "standing")]
    inv = next(e.raw for e in m.events if e.type == "tool-invocation")
    assert inv["time"] == _t(1)


def test_tool_search_is_not_called_a_permission_prompt() -> None:
    """Claude Code 2.1.69 on loads deferred tools' schemas through its ToolSearch tool (a real
    2.1.96 session, pookNast/loopkit logs/chat.json: ToolSearch {query: "select:WebFetch"},
    result a tool_reference block). It reads nothing of the user's and never prompts (Claude
    Code's tools reference lists no permission for it, nor for ListMcpResourcesTool). Reviewer:
    under permissionMode acceptEdits ToolSearch is allowed unasked, with no finding that its
    grant is not recorded; WebFetch still asks. Before: ToolSearch 'asks unless an allow rule
    covers it', flagged permission-inferred."""
    _, _, m = conv([prompt(0, "digest this article", mode="acceptEdits"),
                    asst(1, tool_use("t1", "ToolSearch", {"query": "select:WebFetch",
                                                          "max_results": 1})),
                    result(2, "t1", [{"type": "tool_reference", "tool_name": "WebFetch"}]),
                    asst(3, tool_use("t2", "WebFetch", {"url": "https://x.com/a"}), mid="m2"),
                    result(4, "t2", "Request failed with status code 402", True),
                    asst(5, tool_use("t3", "ListMcpResourcesTool", {}), mid="m3"),
                    result(6, "t3", "[]")])
    no_errors(m)
    assert ops(m) == [("!host", "ToolSearch", "completed", "allowed", set()),
                      ("!host", "WebFetch", "failed", "permission-required",
                       {"permission-inferred"}),
                      ("!host", "ListMcpResourcesTool", "completed", "allowed", set())]


def test_task_list_tools_never_ask_like_todo_write() -> None:
    """Claude Code 2.1.x's to-do list is the Task tools (TaskCreate, TaskGet, TaskList,
    TaskUpdate: 'the replacement Task tools' for TodoWrite, Claude's Agent SDK todo-tracking
    page; listed as deferred tools in a real 2.1.146 session, jim-at-jibba/harness-lab). They
    edit the session's task list, as TodoWrite did, and never prompt. Reviewer: under
    permissionMode default they are allowed unasked, as TodoWrite is. Before: each 'asks unless
    an allow rule covers it' with a permission-inferred finding."""
    _, _, m = conv([prompt(0, "plan it", mode="default"),
                    asst(1, tool_use("t1", "TaskCreate", {"subject": "a", "description": "b"})),
                    result(2, "t1", "Task #1 created successfully: a"),
                    asst(3, tool_use("t2", "TaskUpdate", {"taskId": "1", "status": "completed"}),
                         mid="m2"),
                    result(4, "t2", "Updated task #1 status"),
                    asst(5, tool_use("t3", "TaskList", {}), mid="m3"),
                    result(6, "t3", "#1 [completed] a"),
                    asst(7, tool_use("t4", "TaskGet", {"taskId": "1"}), mid="m4"),
                    result(8, "t4", "Task #1: a")])
    no_errors(m)
    assert [(o.tool, o.decision, set(o.flags)) for o in m.operations] == [
        (t, "allowed", set()) for t in ("TaskCreate", "TaskUpdate", "TaskList", "TaskGet")]


def test_auto_mode_reason_names_the_classifier_not_a_prompt() -> None:
    """Under permissionMode auto Claude Code shows no permission prompt for a Bash call: its
    auto-mode classifier decides (a real 2.1.146 session, jim-at-jibba/harness-lab: 4 Bash calls
    refused 'by the Claude Code auto mode classifier', the others ran with no prompt recorded).
    Reviewer: the standing decision's reason says the classifier decides and its approvals are
    not recorded, not that Bash 'asks' (which reads as a prompt the user answered). Before:
    'permissionMode auto: Bash asks unless an allow rule covers it'."""
    _, _, m = conv([prompt(0, "go", mode="auto"),
                    asst(1, tool_use("t1", "Bash", {"command": "ls"})),
                    result(2, "t1", "a.txt"),
                    asst(3, tool_use("t2", "Read", {"file_path": "/a"}), mid="m2"),
                    result(4, "t2", "x")])
    no_errors(m)
    std = {s.tool: (s.decision, s.reason or "") for s in m.standing}
    assert std["Bash"][0] == "permission-required"
    assert "classifier" in std["Bash"][1] and " asks " not in std["Bash"][1]
    assert std["Read"][0] == "allowed"
    _, _, m = conv([prompt(0, "go", mode="auto"),
                    asst(1, tool_use("t1", "Write", {"file_path": "/w/a", "content": "x"})),
                    result(2, "t1", "File created successfully at: /w/a")])
    why = next(s.reason or "" for s in m.standing if s.tool == "Write")
    assert "working directory run unasked" in why and "classifier" in why


def test_ask_user_question_is_a_question_not_a_permission() -> None:
    """AskUserQuestion puts a choice to the user: a directive request, which the draft keeps
    apart from permission (PD-6, 'a clarifying choice put to a person'). Reviewer: the call runs
    while the question is open and its result is the answer; its standing decision says it is
    a question to the user, not that it is 'read-only'; the answer is no permission grant."""
    q = {"questions": [{"question": "Which rig?", "options": [{"label": "spotter"}]}]}
    vcon, _, m = conv([prompt(0, "set it up", "default"),
                       asst(1, tool_use("toolu_q", "AskUserQuestion", q)),
                       result(60, "toolu_q", 'User has answered your questions: "Which rig?"='
                                             '"spotter".')])
    no_errors(m)
    op = m.operations[0]
    assert (op.tool, op.outcome, op.decision_life) == ("AskUserQuestion", "completed", "standing")
    assert not [e for e in vcon["events"] if e.get("policy_life") == "once"]
    a = op.attempts[0]
    assert a.start == m.events[a.steps[0].event].time and (a.end - a.start).total_seconds() > 58
    standing = next(e for e in vcon["events"] if e.get("policy_life") == "standing"
                    and e.get("tool") == "AskUserQuestion")
    assert standing["decision"] == "allowed"
    assert "question to the user" in standing["reason"] and "read-only" not in standing["reason"]
