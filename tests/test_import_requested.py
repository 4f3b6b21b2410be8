"""A call the host refused or never ran is an operation with a once policy-decision and no
tool-invocation; the draft allows no content on a decision and records the arguments only in
an invocation. The importers write what the agent asked for on that decision, as the
non-draft member ``requested`` (README, *Importing agent traffic*): the same shape as the
importer's invocation content, only when the recording holds the arguments, never on a
decision whose call then ran."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from viewer.importers import claude_code, codex, copilot, gemini, otlp
from viewer.importers.common import Events
from viewer.model.build import build_model
from viewer.pipeline import open_bytes

FIX = Path(__file__).resolve().parent / "fixtures"
DMUX = FIX / "agents" / "claude-code-transcript" / "dmux__logs_chat.json"
ESCALATION = FIX / "agents" / "codex-rollout" / "agent-history__codex_with_escalation.jsonl"


def requested(vcon: dict[str, Any]) -> dict[str, Any]:
    """operation id -> the ``requested`` of its decision."""
    return {e["operation_id"]: e["requested"] for e in vcon["events"] if "requested" in e}


def only_on_unrun_once_decisions(vcon: dict[str, Any]) -> None:
    ran = {(e["operation_id"], e["attempt"]) for e in vcon["events"]
           if e["type"] == "tool-invocation"}
    for e in vcon["events"]:
        if "requested" in e:
            assert e["type"] == "policy-decision" and e["policy_life"] == "once"
            assert (e["operation_id"], e["attempt"]) not in ran
            assert "body" not in e  # the draft's content X on a decision stays true


def test_claude_code_a_declined_prompt_says_what_was_asked() -> None:
    vcon, _ = claude_code.convert(DMUX.read_bytes(), source_name="chat.json")
    req = requested(vcon)
    assert list(req) == ["op-0050"]
    assert req["op-0050"]["tool_use_id"] == "toolu_014UEZLiBKrLPtqAtah8gFDn"
    assert req["op-0050"]["input"]["command"].startswith(
        "gh repo view applab-nl/dmux --json owner,nameWithOwner")
    only_on_unrun_once_decisions(vcon)


def _cc(*lines: dict[str, Any]) -> bytes:
    return b"\n".join(orjson.dumps(x) for x in lines) + b"\n"


def _turn(i: int, role: str, content: list[dict[str, Any]]) -> dict[str, Any]:
    return {"type": role, "uuid": f"u{i}", "parentUuid": f"u{i - 1}" if i else None,
            "sessionId": "s", "timestamp": f"2026-03-01T10:00:0{i}.000Z",
            "message": {"role": role, "content": content}}


def test_claude_code_sibling_calls_and_a_call_without_input() -> None:
    """Siblings of a failed parallel call never ran: their arguments are on their decision.
    A refused call whose tool_use has no input gets none (never invented)."""
    data = _cc(
        _turn(0, "user", [{"type": "text", "text": "go"}]),
        _turn(1, "assistant", [
            {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "false"}},
            {"type": "tool_use", "id": "t2", "name": "Read", "input": {"file_path": "/a"}},
            {"type": "tool_use", "id": "t3", "name": "Write"}]),
        _turn(2, "user", [
            {"type": "tool_result", "tool_use_id": "t1", "is_error": True,
             "content": "Exit code 1"},
            {"type": "tool_result", "tool_use_id": "t2", "is_error": True,
             "content": "<tool_use_error>Sibling tool call errored</tool_use_error>"},
            {"type": "tool_result", "tool_use_id": "t3", "is_error": True,
             "content": "<tool_use_error>Sibling tool call errored</tool_use_error>"}]))
    vcon, _ = claude_code.convert(data)
    assert requested(vcon) == {"op-0002": {"tool_use_id": "t2",
                                           "input": {"file_path": "/a"}}}
    only_on_unrun_once_decisions(vcon)


def test_codex_declined_escalations_say_which_command() -> None:
    vcon, _ = codex.convert(ESCALATION.read_bytes(), source_name="rollout.jsonl")
    req = requested(vcon)
    assert sorted(req) == ["op-0002", "op-0004"]
    assert req["op-0002"]["call_id"] == "call_esc_002"
    assert req["op-0002"]["arguments"]["command"] == "printf 'Goodbye World\n' > test.txt"
    assert req["op-0004"]["arguments"]["command"] == "rm test.txt"
    only_on_unrun_once_decisions(vcon)


def _gemini_session(*calls: dict[str, Any]) -> bytes:
    return json.dumps({"sessionId": "s", "projectHash": "h",
                       "startTime": "2026-02-01T10:00:00Z", "messages": [
                           {"id": "g", "timestamp": "2026-02-01T10:00:01Z", "type": "gemini",
                            "content": "", "toolCalls": list(calls)}]}).encode()


def _gtc(cid: str, status: str, error: str | None, **kw: Any) -> dict[str, Any]:
    resp = {"error": error} if error else {"output": "ok"}
    d = {"id": cid, "name": "run_shell_command", "args": {"command": f"echo {cid}"},
         "status": status, "timestamp": "2026-02-01T10:00:02Z",
         "result": [{"functionResponse": {"id": cid, "name": "run_shell_command",
                                          "response": resp}}]}
    d.update(kw)
    return d


def test_gemini_refusals_say_what_was_asked() -> None:
    data = _gemini_session(
        _gtc("a", "error", "Tool execution denied by policy."),
        _gtc("b", "cancelled", "[Operation Cancelled] Reason: User did not allow tool call"),
        _gtc("c", "success", None),
        {k: v for k, v in _gtc("d", "error", "Tool execution denied by policy.").items()
         if k != "args"})
    vcon, _ = gemini.convert(data)
    assert requested(vcon) == {"op-0001": {"id": "a", "args": {"command": "echo a"}},
                               "op-0002": {"id": "b", "args": {"command": "echo b"}}}
    only_on_unrun_once_decisions(vcon)


def test_gemini_telemetry_rejection_says_what_was_asked() -> None:
    rec = {"resource": {"attributes": {"service.name": "gemini-cli"}},
           "hrTime": [1767261600, 0], "attributes": {
               "event.name": "gemini_cli.tool_call", "event.timestamp": "2026-01-01T10:00:03Z",
               "function_name": "run_shell_command", "function_args": '{"command":"rm -rf /"}',
               "duration_ms": 0, "success": False, "decision": "reject"}}
    vcon, _ = gemini.convert((json.dumps(rec, indent=2) + "\n").encode())
    (req,) = requested(vcon).values()
    assert "rm -rf /" in json.dumps(req)
    only_on_unrun_once_decisions(vcon)


def _cp(typ: str, data: dict[str, Any], s: int) -> dict[str, Any]:
    return {"type": typ, "data": data, "id": f"e{s}", "parentId": None,
            "timestamp": f"2026-03-01T10:00:{s:02d}.000Z"}


def test_copilot_rejection_and_hook_denial_say_what_was_asked() -> None:
    data = b"\n".join(orjson.dumps(r) for r in [
        _cp("session.start", {"sessionId": "s", "version": 1, "producer": "copilot-agent",
                              "copilotVersion": "1.0.11", "startTime": "x"}, 0),
        _cp("tool.execution_start", {"toolCallId": "c1", "toolName": "bash",
                                     "arguments": {"command": "git push -f"}}, 1),
        _cp("tool.execution_complete", {"toolCallId": "c1", "success": False, "error": {
            "message": "The user rejected this tool call.", "code": "rejected"}}, 2),
        _cp("hook.start", {"hookInvocationId": "h1", "hookType": "preToolUse", "input": {
            "toolCalls": [{"id": "c9", "name": "web_fetch",
                           "args": '{"url": "https://x"}'}]}}, 3),
        _cp("hook.end", {"hookInvocationId": "h1", "hookType": "preToolUse", "success": True,
                         "output": {"permissionDecision": "deny",
                                    "permissionDecisionReason": "nope"}}, 4),
    ]) + b"\n"
    vcon, _ = copilot.convert(data)
    req = requested(vcon)
    assert req["op-0001"] == {"toolCallId": "c1", "arguments": {"command": "git push -f"}}
    (hook,) = [v for k, v in req.items() if k != "op-0001"]
    assert "https://x" in json.dumps(hook) and hook.get("toolCallId") != ""
    only_on_unrun_once_decisions(vcon)


def test_otlp_gemini_rejection_says_what_was_asked_and_claude_logs_do_not_invent() -> None:
    vcon, _ = otlp.convert((FIX / "otlp" / "gemini_cli_tool_calls.otlp.jsonl").read_bytes())
    assert requested(vcon) == {"op-0002": {"arguments": {"command": "rm -rf build"},
                                           "prompt_id": "p-1"}}
    only_on_unrun_once_decisions(vcon)
    # Claude Code's tool_decision logs name the tool, not its input: nothing to say
    vcon, _ = otlp.convert((FIX / "otlp" / "claude_code_logs.otlp.jsonl").read_bytes())
    assert requested(vcon) == {}


def test_the_rule_keys_on_the_attempt_and_skips_calls_that_ran() -> None:
    t = datetime(2026, 1, 1, tzinfo=UTC)
    ev = Events(party=0)
    for op, att in (("op-1", 1), ("op-2", 1), ("op-2", 2)):
        ev.add("policy-decision", t, op, att, "x", decision="permission-required",
               policy_life="once", operation="tool-invocation")
        ev.asked(op, att, {"args": [op, att]})
    ev.add("tool-invocation", t, "op-2", 1, "x", body={"args": ["op-2", 1]})
    ev.asked("op-3", 1, None)
    ev.add("policy-decision", t, "op-3", 1, "x", decision="disallowed", policy_life="once",
           operation="tool-invocation")
    assert ev.requested() == 2
    assert [e.get("requested") for e in ev.events] == [
        {"args": ["op-1", 1]}, None, {"args": ["op-2", 2]}, None, None]


def test_check_does_not_report_the_member() -> None:
    """``requested`` is a member the draft does not define, as ``inferred``: no diagnostic
    about it (the same diagnostics with and without it)."""
    vcon, _ = claude_code.convert(DMUX.read_bytes(), source_name="chat.json")
    bare = json.loads(json.dumps(vcon))
    for e in bare["events"]:
        e.pop("requested", None)
    assert bare != vcon

    def diags(v: dict[str, Any]) -> list[tuple[str, str, str]]:
        m = build_model(open_bytes(orjson.dumps(v), name="v.vcon.json"))
        return sorted((d.severity, d.code, d.message) for d in m.diagnostics)

    with_it = diags(vcon)
    assert with_it == diags(bare)
    assert not any("requested" in msg for _, _, msg in with_it)


def test_reports_quote_what_a_refused_call_asked_for() -> None:
    """With ``--evidence all`` the Markdown and HTML reports quote a refused call's
    ``requested`` in its operation's evidence, as they quote an attempt's arguments."""
    from reportkit import demo, opts

    from viewer.report.html import to_html
    from viewer.report.markdown import to_markdown

    m = demo("17-codex.vcon.json")
    md = to_markdown(m, None, opts(evidence="all"))
    section = md.split("### Operation 4\n", 1)[1].split("\n### ", 1)[0]
    assert "Requested (not run) (event" in section and "rm test.txt" in section, section
    page = to_html(m, opts(evidence="all"))
    assert "Requested (not run) (event" in page and "rm test.txt" in page
    # an operation that ran quotes its arguments as before, and nothing is requested there
    ran = md.split("### Operation 1\n", 1)[1].split("\n### ", 1)[0]
    assert "Requested" not in ran and "Arguments (event" in ran
