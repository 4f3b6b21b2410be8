"""vcon-view import gemini: Gemini CLI sessions (JSON, JSONL) and the telemetry outfile.

The expectations for the corpus samples were written from the raw files (what a reviewer
should see), then checked against the importer.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from viewer.cli import main
from viewer.importers import gemini
from viewer.importers.formats import ImportInputError, detect, sample
from viewer.model.build import build_model
from viewer.model.types import Model
from viewer.pipeline import open_bytes

ROOT = Path(__file__).resolve().parent.parent
FIX = ROOT / "tests" / "fixtures" / "agents" / "gemini-cli"
ERR = FIX / "agent-history__gemini_with_tool_error.jsonl"
V040 = FIX / "agent-sessions__gemini_jsonl_v040.jsonl"
SMALL = FIX / "agent-sessions__gemini_small.json"
RESULTS = FIX / "agentsview__gemini_tool_calls_with_results.json"


def model_of(data: bytes) -> Model:
    return build_model(open_bytes(data, name="gemini-test"))


def errors(m: Model) -> list[Any]:
    return [d for d in m.diagnostics if d.severity == "error"]


def ops(m: Model) -> dict[str, tuple[str | None, str | None, str, str | None, list[str]]]:
    return {o.operation_id: (o.server, o.tool, o.outcome, o.decision, sorted(o.flags))
            for o in m.operations}


def session(*calls: dict[str, Any], extra: list[dict[str, Any]] | None = None) -> bytes:
    msgs: list[dict[str, Any]] = [{"id": "u", "timestamp": "2026-02-01T10:00:00Z",
                                   "type": "user", "content": "go"}]
    msgs += extra or []
    msgs.append({"id": "g", "timestamp": "2026-02-01T10:00:01Z", "type": "gemini",
                 "content": "", "toolCalls": list(calls)})
    return json.dumps({"sessionId": "s", "projectHash": "h",
                       "startTime": "2026-02-01T10:00:00Z", "messages": msgs}).encode()


def tc(cid: str, name: str, status: str, response: dict[str, Any] | None = None,
       **kw: Any) -> dict[str, Any]:
    d = {"id": cid, "name": name, "args": {"x": 1}, "status": status,
         "timestamp": "2026-02-01T10:00:02Z",
         "result": [{"functionResponse": {"id": cid, "name": name,
                                          "response": response or {"output": "ok"}}}]}
    d.update(kw)
    return d


# --- the corpus samples -----------------------------------------------------------------------


def test_tool_error_sample_by_hand() -> None:
    """agent-history: edit_file succeeded; the second edit_file has status error and a tool
    result ('0 occurrences found'): it ran and failed; read_file succeeded; the retried
    edit_file (a new call, new id) succeeded. Built-in tools, no decisions recorded."""
    m = model_of(ERR.read_bytes())
    assert ops(m) == {
        "op-0001": ("!host", "edit_file", "completed", None, []),
        "op-0002": ("!host", "edit_file", "failed", None, []),
        "op-0003": ("!host", "read_file", "completed", None, []),
        "op-0004": ("!host", "edit_file", "completed", None, []),
    }
    assert m.findings == () and errors(m) == []
    inv = [e for e in m.vcon["events"] if e["type"] == "tool-invocation"]
    assert inv[0]["body"]["id"] == "edit_file-001"  # Gemini's call id is content
    # the call's own timestamp (15:00:08) is before its message's (15:00:10): both events
    # take the call's time, nothing is moved
    assert inv[0]["time"] == "2025-12-06T15:00:08.000Z"


def test_jsonl_v040_sample_by_hand() -> None:
    """agent-sessions 0.40 JSONL: metadata line, user message, a $set, a gemini message with
    one run_shell_command (success), a final gemini message: one operation, completed; the
    invocation at the message time 21:39:35.125, the result at the call's 21:39:35.364."""
    data = V040.read_bytes()
    _, rep = gemini.convert(data)
    m = model_of(data)
    assert ops(m) == {"op-0001": ("!host", "run_shell_command", "completed", None, [])}
    evs = m.vcon["events"]
    assert [e["time"] for e in evs] == ["2026-04-29T21:39:35.125Z", "2026-04-29T21:39:35.364Z"]
    assert rep.mapped == 3 and rep.unmapped == 0  # the call's message, the prompt, the answer
    assert rep.mapped + sum(rep.ignored.values()) == 5
    assert errors(m) == []


def test_small_json_sample_has_no_tool_call() -> None:
    """agent-sessions single-file JSON: a user 'Hello' and a gemini 'Hi!': no operation."""
    _, rep = gemini.convert(SMALL.read_bytes())
    m = model_of(SMALL.read_bytes())
    assert m.operations == () and errors(m) == []
    # both messages are conversation turns: dialogs, counted as mapped
    assert rep.ignored == {} and rep.mapped == 2
    assert [(d["parties"][0], d["body"]) for d in m.vcon["dialog"]] == [(1, "Hello"), (0, "Hi!")]


def test_results_sample_by_hand() -> None:
    """agentsview: one gemini message with read_file and run_command, both success, no call
    timestamps: both take the message's time."""
    m = model_of(RESULTS.read_bytes())
    assert ops(m) == {"op-0001": ("!host", "read_file", "completed", None, []),
                      "op-0002": ("!host", "run_command", "completed", None, [])}
    assert {e["time"] for e in m.vcon["events"]} == {"2024-01-01T10:00:05.000Z"}
    assert errors(m) == []


def test_samples_are_detected() -> None:
    for f in (ERR, V040, SMALL, RESULTS):
        fmt = detect(f.read_bytes())
        assert fmt is not None and fmt.name == "gemini", f


# --- mapping rules ----------------------------------------------------------------------------


def test_refusals_errors_and_cancels() -> None:
    data = session(
        tc("a", "run_shell_command", "error", {"error": "Tool execution denied by policy."}),
        tc("b", "write_file", "cancelled", {"error": "[Operation Cancelled] Reason: User did "
                                                     "not allow tool call"}),
        tc("c", "run_shell_command", "cancelled", {"error": "[Operation Cancelled] Reason: "
                                                            "User cancelled tool execution."}),
        tc("d", "frobnicate", "error", {"error": 'Tool "frobnicate" not found in registry.'}),
        tc("e", "run_shell_command", "error", {"error": "Command timed out after 120s"}),
        tc("f", "read_file", "executing"))
    m = model_of(data)
    assert ops(m) == {
        "op-0001": ("!host", "run_shell_command", "disallowed", "disallowed", []),
        "op-0002": ("!host", "write_file", "not-performed", "permission-required", []),
        "op-0003": ("!host", "run_shell_command", "cancel-requested", None, ["unterminated"]),
        "op-0004": ("!host", "frobnicate", "errored", None, []),
        "op-0005": ("!host", "run_shell_command", "timed-out", None, ["unterminated"]),
        "op-0006": ("!host", "read_file", "running", None, ["unterminated"]),
    }
    evs = m.vcon["events"]
    refused = [e for e in evs if e["type"] == "policy-decision"]
    assert refused[0]["reason"] == "Tool execution denied by policy."
    assert "policy engine" in refused[0]["inferred"]
    assert not [e for e in evs if e["type"] == "tool-invocation"
                and e["operation_id"] in ("op-0001", "op-0002")]
    assert errors(m) == []


def test_mcp_tools() -> None:
    data = session(tc("a", "create_issue", "success", displayName="create_issue (github MCP "
                                                                   "Server)"),
                   tc("b", "jira__search", "success"),
                   tc("c", "list", "success", serverName="files"))
    assert [(o.server, o.tool) for o in model_of(data).operations] == [
        ("github", "create_issue"), ("jira", "search"), ("files", "list")]


def test_jsonl_message_versions_and_rewind() -> None:
    meta = {"sessionId": "s", "projectHash": "h", "startTime": "2026-02-01T10:00:00Z"}
    g1 = {"id": "g", "timestamp": "2026-02-01T10:00:01Z", "type": "gemini", "content": "",
          "toolCalls": [tc("a", "ls", "executing")]}
    g2 = {**g1, "toolCalls": [tc("a", "ls", "success"), tc("b", "cat", "success")]}
    data = b"\n".join(json.dumps(r).encode() for r in (
        meta, g1, {"$set": {"lastUpdated": "x"}}, g2, {"$rewindTo": "zzz"},
        {"weird": True})) + b"\nnot json\n"
    _, rep = gemini.convert(data)
    m = model_of(data)
    assert ops(m) == {"op-0001": ("!host", "ls", "completed", None, []),
                      "op-0002": ("!host", "cat", "completed", None, [])}
    assert rep.ignored["earlier version of a message (superseded)"] == 1
    assert rep.unmapped == 2 and any("rewound" in w for w in rep.warnings)
    assert rep.mapped + sum(rep.ignored.values()) + rep.unmapped == 7  # seven lines


def _tele(*recs: dict[str, Any]) -> bytes:
    return "".join(json.dumps(r, indent=2) + "\n" for r in recs).encode()


def _log(name: str, ts: str, **attrs: Any) -> dict[str, Any]:
    return {"resource": {"attributes": {"service.name": "gemini-cli"}},
            "hrTime": [1767261600, 0], "attributes": {"event.name": name,
                                                       "event.timestamp": ts, **attrs},
            "_body": "x"}


def test_telemetry_outfile() -> None:
    data = _tele(
        _log("gemini_cli.config", "2026-01-01T10:00:00Z", approval_mode="default"),
        _log("gemini_cli.user_prompt", "2026-01-01T10:00:01Z", prompt="hi"),
        _log("gemini_cli.tool_call", "2026-01-01T10:00:02Z", function_name="read_file",
             function_args='{"path":"a"}', duration_ms=3, success=True,
             decision="auto_accept"),
        _log("gemini_cli.tool_call", "2026-01-01T10:00:03Z", function_name="run_shell_command",
             function_args='{"command":"rm -rf /"}', duration_ms=0, success=False,
             decision="reject"),
        _log("gemini_cli.tool_call", "2026-01-01T10:00:04Z", function_name="write_file",
             function_args="{}", duration_ms=9, success=False, decision="accept",
             error="disk full", error_type="unhandled_exception"),
        _log("gemini_cli.tool_call", "2026-01-01T10:00:05Z", function_name="search",
             function_args="{}", duration_ms=9, success=True, tool_type="mcp",
             mcp_server_name="web"),
        {"name": "span", "spanContext": {}})
    _, rep = gemini.convert(data)
    m = model_of(data)
    assert ops(m) == {
        # auto_accept is Gemini's log of a confirmation answered "always allow": asked
        "op-0001": ("!host", "read_file", "completed", "permission-required",
                    ["permission-inferred"]),
        "op-0002": ("!host", "run_shell_command", "not-performed", "permission-required", []),
        "op-0003": ("!host", "write_file", "failed", "permission-required",
                    ["permission-inferred"]),
        # the approval mode is written for the built-in tools (!host) only
        "op-0004": ("web", "search", "completed", None, []),
    }
    assert [s.decision for s in m.standing] == ["permission-required"]
    assert rep.mapped == 5 and rep.ignored == {"gemini_cli.user_prompt": 1,
                                               "span or metric": 1}
    assert errors(m) == []
    one = json.dumps(_log("gemini_cli.tool_call", "2026-01-01T10:00:02Z",
                          function_name="ls", success=True)).encode()
    assert detect(one).name == "gemini"


def test_sniffer_leaves_otlp_and_others() -> None:
    assert not gemini.sniff(sample(json.dumps({"resourceSpans": []}).encode()))
    assert not gemini.sniff(sample(json.dumps({"resourceLogs": [], "sessionId": "x",
                                               "messages": []}).encode()))
    assert not gemini.sniff(sample(b'{"type":"session_meta","payload":{}}\n'))
    assert not gemini.sniff(sample(json.dumps({"vcon": "0.4.0"}).encode()))
    with pytest.raises(ImportInputError):
        gemini.convert(b"junk\n")


JUNK = st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=20),
                 st.dictionaries(st.sampled_from(["id", "type", "toolCalls", "timestamp",
                                                  "status", "name", "$set", "$rewindTo"]),
                                 st.one_of(st.none(), st.text(max_size=10), st.integers(),
                                           st.sampled_from(["gemini", "user", "error"]),
                                           st.lists(st.dictionaries(
                                               st.sampled_from(["name", "status", "id",
                                                                "result", "timestamp"]),
                                               st.one_of(st.text(max_size=8),
                                                         st.integers())), max_size=2)),
                                 max_size=5))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(JUNK, max_size=6), st.integers(min_value=0, max_value=10))
def test_junk_never_crashes(junk: list[Any], at: int) -> None:
    lines = ERR.read_bytes().split(b"\n")
    at = min(at, len(lines))
    mixed = lines[:at] + [json.dumps(j).encode() for j in junk] + lines[at:]
    try:
        vcon, _ = gemini.convert(b"\n".join(mixed))
    except ImportInputError:
        return
    assert isinstance(vcon["events"], list)


@settings(max_examples=30, deadline=None)
@given(JUNK)
def test_junk_tool_calls_in_a_session_never_crash(junk: Any) -> None:
    doc = json.loads(session(tc("a", "ls", "success")))
    doc["messages"][1]["toolCalls"].append(junk)
    with contextlib.suppress(ImportInputError):
        gemini.convert(json.dumps(doc).encode())


def test_cli_import_and_summary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "g.vcon.json"
    assert main(["import", "gemini", str(ERR), "-o", str(out)]) == 0
    v = json.loads(out.read_text())
    assert v["events"] and v["attachments"][0]["purpose"] == "import-provenance"
    capsys.readouterr()
    assert main(["summary", str(ERR), "--format", "json"]) == 0
    assert "op-0004" in capsys.readouterr().out


def test_telemetry_start_and_end_times() -> None:
    data = _tele(_log("gemini_cli.tool_call", "2026-01-01T10:00:09Z", function_name="ls",
                      success=True, start_time=1767261600000, end_time=1767261602500,
                      duration_ms=2500))
    evs = model_of(data).vcon["events"]
    assert [e["time"] for e in evs] == ["2026-01-01T10:00:00.000Z", "2026-01-01T10:00:02.500Z"]


def test_telemetry_outfile_cut_short() -> None:
    whole = _tele(_log("gemini_cli.tool_call", "2026-01-01T10:00:02Z", function_name="ls",
                       success=True),
                  _log("gemini_cli.tool_call", "2026-01-01T10:00:03Z", function_name="cat",
                       success=True))
    _, rep = gemini.convert(whole[:-40])
    assert rep.mapped == 1 and rep.unmapped == 1


def _shell(cid: str, output: str) -> dict[str, Any]:
    return tc(cid, "run_shell_command", "success", {"output": output})


def test_shell_command_that_exited_non_zero_is_a_failure_not_a_success() -> None:
    """Gemini CLI's run_shell_command returns normally when the command fails: the session
    says status "success" and the answer to the model ends with 'Exit Code: N' (shell.ts).
    Before, such a call (failed tests, a missing file) was shown as completed."""
    m = model_of(session(
        _shell("ok", "Output: a.txt\nProcess Group PGID: 41"),
        _shell("bad", "Output: 1 failed, 3 passed\nExit Code: 1\nProcess Group PGID: 42"),
        _shell("sig", "Output: (empty)\nSignal: 9\nProcess Group PGID: 43"),
        _shell("slow", "Command was automatically cancelled because it exceeded the timeout "
                       "of 5.0 minutes without output. There was no output before it was "
                       "cancelled."),
        _shell("echo", "Output: the log says\nExit Code: 1\nthen more\nProcess Group PGID: 44"),
        tc("rf", "read_file", "success", {"output": "Exit Code: 1"})))
    assert errors(m) == []
    ids = {e.raw["operation_id"]: e.raw["body"]["id"] for e in m.events
           if e.raw.get("type") == "tool-invocation"}
    got = {ids[o.operation_id]: o.outcome for o in m.operations}
    assert got == {"ok": "completed", "bad": "failed", "sig": "failed", "slow": "timed-out",
                   "echo": "completed", "rf": "completed"}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=200), st.integers(min_value=-255, max_value=255))
def test_shell_exit_code_decides_whatever_the_output(out: str, code: int) -> None:
    """Property: whatever the command printed, the trailing Exit Code line decides (0 or no
    line: completed; any other code: failed)."""
    assume(gemini.SHELL_TAIL.search("Output: " + out) is None)  # it cannot end like one
    tail = f"\nExit Code: {code}" if code else ""
    m = model_of(session(_shell("c", f"Output: {out}{tail}\nProcess Group PGID: 7")))
    assert [o.outcome for o in m.operations] == ["failed" if code else "completed"]


def test_message_content_as_one_part_and_rewritten_history() -> None:
    """chatRecordingTypes.ts: a message's ``content`` is a PartListUnion, so one part object
    alone (``{"text": ...}``) is a prompt too. chatRecordingService.ts: updateMessagesFromHistory
    writes ``{"$set": {"messages": [...]}}``, the whole history as Gemini rebuilt it (the setup
    context it bootstraps a chat with, a compression summary), with new ids for the turns it made
    up. By hand: the user's one-part prompt "list it" is a dialog; the rewritten history's
    made-up user turn ("This is the Gemini CLI. ...") and model turn ("Got it.") are not words
    the user or the model said then: no dialog; a message already written as its own line is not
    read again from the $set; the one tool call is op-0001, completed."""
    meta = {"sessionId": "s", "projectHash": "h", "startTime": "2026-02-01T10:00:00Z"}
    u = {"id": "u1", "timestamp": "2026-02-01T10:00:01Z", "type": "user",
         "content": {"text": "list it"}}
    g = {"id": "g1", "timestamp": "2026-02-01T10:00:02Z", "type": "gemini", "content": "",
         "toolCalls": [tc("a", "ls", "success")]}
    setup = {"id": "x1", "timestamp": "2026-02-01T10:00:03Z", "type": "user",
             "content": [{"text": "This is the Gemini CLI. We are setting up the context."}]}
    ack = {"id": "x2", "timestamp": "2026-02-01T10:00:03Z", "type": "gemini",
           "content": [{"text": "Got it."}]}
    data = b"\n".join(json.dumps(r).encode() for r in (
        meta, u, g, {"$set": {"messages": [setup, ack, u, g],
                              "lastUpdated": "2026-02-01T10:00:03Z"}})) + b"\n"
    vcon, rep = gemini.convert(data)
    assert [d["body"] for d in vcon["dialog"]] == ["list it"]
    assert [d["start"] for d in vcon["dialog"]] == ["2026-02-01T10:00:01.000Z"]
    m = model_of(data)
    assert ops(m) == {"op-0001": ("!host", "ls", "completed", None, [])}
    assert rep.ignored["message text from a rewritten history ($set messages)"] == 2


def _fr(cid: str | None, name: str, **response: Any) -> dict[str, Any]:
    fr: dict[str, Any] = {"name": name, "response": response}
    if cid:
        fr["id"] = cid
    return {"functionResponse": fr}


def _fc(cid: str | None, name: str, **args: Any) -> dict[str, Any]:
    fc: dict[str, Any] = {"name": name, "args": args}
    if cid:
        fc["id"] = cid
    return {"functionCall": fc}


#: A ``/chat save`` checkpoint (``~/.gemini/tmp/<hash>/checkpoint-<tag>.json``): the model's
#: history as @google/genai Content (``{role: user|model, parts}``; a call is a functionCall
#: part, its answer a functionResponse part of the next user Content). Gemini CLI answers a
#: failed call with ``response: {error: ...}`` and a cancelled one with "[Operation Cancelled]
#: Reason: ..."; shell.ts's answer ends with its Exit Code line. Made by hand in that shape.
CHECKPOINT = [
    {"role": "user", "parts": [{"text": "list files and run the tests"}]},
    {"role": "model", "parts": [{"text": "thinking about it", "thought": True},
                                {"text": "I'll look."}, _fc("c1", "list_directory", path="."),
                                _fc("c2", "run_shell_command", command="pytest")]},
    {"role": "user", "parts": [
        _fr("c1", "list_directory", output="a.py\nb.py"),
        _fr("c2", "run_shell_command", output="Output: 1 failed\nExit Code: 1")]},
    {"role": "model", "parts": [_fc("c3", "write_file", file_path="a.py"),
                                _fc("c4", "replace", file_path="b.py"),
                                _fc(None, "read_file", absolute_path="/w/a.py"),
                                _fc("c6", "glob", pattern="*")]},
    {"role": "user", "parts": [
        _fr("c3", "write_file",
            error="[Operation Cancelled] Reason: User did not allow tool call"),
        _fr("c4", "replace", error="Tool execution denied by policy."),
        _fr(None, "read_file", output="print(1)")]},
    {"role": "model", "parts": [{"text": "Done."}]},
]


@pytest.mark.parametrize("doc", [CHECKPOINT, {"history": CHECKPOINT, "authType": "x"}])
def test_chat_checkpoint_by_hand(doc: Any) -> None:
    """What a reviewer should see, by hand: list_directory completed; run_shell_command
    failed (Exit Code 1); write_file declined at its confirmation ("did not allow"): a once
    permission-required decision, not run; replace refused by policy: disallowed, not run;
    read_file (no ids: answered by name) completed; glob never answered: left open,
    unterminated. Dialogs: the prompt, "I'll look." and "Done." (the thought is not one).
    No times: order only. Both the bare list and {history: [...]} forms."""
    data = json.dumps(doc).encode()
    assert detect(data).name == "gemini"
    m = model_of(data)
    assert errors(m) == []
    assert ops(m) == {
        "op-0001": ("!host", "list_directory", "completed", None, []),
        "op-0002": ("!host", "run_shell_command", "failed", None, []),
        "op-0003": ("!host", "write_file", "not-performed", "permission-required", []),
        "op-0004": ("!host", "replace", "disallowed", "disallowed", []),
        "op-0005": ("!host", "read_file", "completed", None, []),
        "op-0006": ("!host", "glob", "running", None, ["unterminated"]),
    }
    vcon, rep = gemini.convert(data)
    assert [d["body"] for d in vcon["dialog"]] == ["list files and run the tests", "I'll look.",
                                                   "Done."]
    assert rep.times == "order-only" and rep.mapped == 6 and rep.unmapped == 0
    inv = next(e for e in vcon["events"] if e["type"] == "tool-invocation")
    assert inv["body"] == {"id": "c1", "args": {"path": "."}}


def _sj(t: int, typ: str, **kw: Any) -> dict[str, Any]:
    return {"type": typ, "timestamp": f"2026-01-10T10:00:{t:02d}.000Z", **kw}


def test_stream_json_by_hand() -> None:
    """``gemini -p --output-format stream-json`` (packages/core/src/output/types.ts): init
    {session_id, model}, message {role, content, delta}, tool_use {tool_name, tool_id,
    parameters}, tool_result {tool_id, status success|error, output, error {type, message}},
    error, result. It was refused. What a reviewer should see, by hand: list_directory
    completed (01 -> 02); run_shell_command failed (its display "Command exited with code: 1",
    status success); replace refused by policy (error type policy_violation): a disallowed
    decision, not run; github/search (mcp_github_search) failed (mcp_tool_error: it ran);
    foo errored (not in the registry: it could not run); glob never answered: left open. The
    prompt and the assistant's two deltas ("Do", "ne.") joined as one reply "Done.". The cut
    last line is not mapped; init and result are ignored."""
    lines = [
        _sj(0, "init", session_id="s-1", model="gemini-2.5-pro"),
        _sj(0, "message", role="user", content="tidy up"),
        _sj(1, "tool_use", tool_name="list_directory", tool_id="t1", parameters={"path": "."}),
        _sj(2, "tool_result", tool_id="t1", status="success", output="a.py"),
        _sj(3, "tool_use", tool_name="run_shell_command", tool_id="t2",
            parameters={"command": "false"}),
        _sj(4, "tool_result", tool_id="t2", status="success",
            output="Command exited with code: 1"),
        _sj(5, "tool_use", tool_name="replace", tool_id="t3", parameters={}),
        _sj(6, "tool_result", tool_id="t3", status="error",
            error={"type": "policy_violation", "message": "Tool execution denied by policy."}),
        _sj(7, "tool_use", tool_name="mcp_github_search", tool_id="t4", parameters={"q": "x"}),
        _sj(8, "tool_result", tool_id="t4", status="error",
            error={"type": "mcp_tool_error", "message": "timed out talking to GitHub"}),
        _sj(9, "tool_use", tool_name="foo", tool_id="t5", parameters={}),
        _sj(10, "tool_result", tool_id="t5", status="error",
            error={"type": "tool_not_registered", "message": 'Tool "foo" not found in registry.'}),
        _sj(11, "message", role="assistant", content="Do", delta=True),
        _sj(12, "message", role="assistant", content="ne.", delta=True),
        _sj(13, "tool_use", tool_name="glob", tool_id="t6", parameters={"pattern": "*"}),
        _sj(14, "result", status="success", stats={"tool_calls": 6}),
    ]
    data = "\n".join(json.dumps(x) for x in lines).encode() + b'\n{"type":"tool_res'
    assert detect(data).name == "gemini"
    m = model_of(data)
    assert errors(m) == []
    assert ops(m) == {
        "op-0001": ("!host", "list_directory", "completed", None, []),
        "op-0002": ("!host", "run_shell_command", "failed", None, []),
        "op-0003": ("!host", "replace", "disallowed", "disallowed", []),
        "op-0004": ("github", "search", "failed", None, []),
        "op-0005": ("!host", "foo", "errored", None, []),
        "op-0006": ("!host", "glob", "running", None, ["unterminated"]),
    }
    vcon, rep = gemini.convert(data)
    assert [d["body"] for d in vcon["dialog"]] == ["tidy up", "Done."]
    assert vcon["parties"][0]["meta"] == {"gemini_session_id": "s-1"}
    inv = vcon["events"][0]
    assert (inv["time"], inv["body"]) == ("2026-01-10T10:00:01.000Z",
                                          {"id": "t1", "args": {"path": "."}})
    assert vcon["events"][1]["time"] == "2026-01-10T10:00:02.000Z"
    assert (rep.mapped, rep.ignored, rep.unmapped) == (14, {"init": 1, "result": 1}, 1)


def test_stream_json_shell_display_of_a_timeout_or_cancel() -> None:
    """tools/shell.ts (gemini-cli-core 0.61.0, Apache-2.0): the display of a command stopped at
    its timeout or cancelled by the user is "Command was automatically cancelled because it
    exceeded the timeout of N minutes without output." or "Command cancelled by user.", followed
    by "\n\nOutput before cancellation:\n..." when it printed something; stream-json's
    tool_result carries that display with status success. Reviewer: t1 timed out, t2 (it had
    printed) cancelled, t3 completed. Before: t1 and t2 completed."""
    timeout = ("Command was automatically cancelled because it exceeded the timeout of 5.0 "
               "minutes without output.")
    lines = [
        _sj(1, "tool_use", tool_name="run_shell_command", tool_id="t1",
            parameters={"command": "sleep 999"}),
        _sj(2, "tool_result", tool_id="t1", status="success", output=timeout),
        _sj(3, "tool_use", tool_name="run_shell_command", tool_id="t2",
            parameters={"command": "make"}),
        _sj(4, "tool_result", tool_id="t2", status="success",
            output="Command cancelled by user.\n\nOutput before cancellation:\ncc -c a.c"),
        _sj(5, "tool_use", tool_name="run_shell_command", tool_id="t3",
            parameters={"command": "ls"}),
        _sj(6, "tool_result", tool_id="t3", status="success", output="a.py"),
    ]
    m = model_of("\n".join(json.dumps(x) for x in lines).encode() + b"\n")
    assert errors(m) == []
    assert [v[2] for v in ops(m).values()] == ["timed-out", "cancel-requested", "completed"]


def test_stream_json_shell_output_that_starts_with_the_hosts_words_is_output() -> None:
    """A command that printed anything has its output as the display: only the display as
    shell.ts writes it (the message alone, or followed by "\n\nOutput before cancellation:\n")
    is the host's. Reviewer: `cat gemini.log` whose log begins with those words, and a script
    printing them with more on the line, completed. Before: cancelled, timed out."""
    outs = ["Command cancelled by user.\nretrying with --force\ndone",
            "Command cancelled by user. Nothing to undo.",
            "Command was automatically cancelled because it exceeded the timeout of 5.0 "
            "minutes without output.\n[gemini] retried: ok"]
    lines = []
    for i, out in enumerate(outs):
        lines += [_sj(2 * i + 1, "tool_use", tool_name="run_shell_command", tool_id=f"t{i}",
                      parameters={"command": "cat gemini.log"}),
                  _sj(2 * i + 2, "tool_result", tool_id=f"t{i}", status="success", output=out)]
    m = model_of("\n".join(json.dumps(x) for x in lines).encode() + b"\n")
    assert errors(m) == []
    assert [v[2] for v in ops(m).values()] == ["completed"] * 3


def test_stream_json_is_not_claude_or_cursor_stream() -> None:
    claude = b'{"type":"system","subtype":"init","session_id":"s","model":"m","tools":[]}\n'
    assert not gemini.sniff(sample(claude))
    cursor = (b'{"type":"tool_call","subtype":"started","call_id":"c","tool_call":'
              b'{"readToolCall":{"args":{}}},"session_id":"s"}\n')
    assert not gemini.sniff(sample(cursor))


def test_calls_cancelled_in_the_queue_did_not_run() -> None:
    """scheduler.ts: when the user answers a confirmation with cancel, the call is cancelled
    "User denied execution." and every call still queued behind it is cancelled "User
    cancelled operation" (state-manager.ts writes "[Operation Cancelled] Reason: <reason>"):
    those never ran. A call cancelled while it ran says "Operation cancelled". By hand:
    write_file declined (permission-required, not run); replace, queued behind it, also
    declined and not run (it was shown invoked and cancelled); run_shell_command cancelled
    while running (invoked, then cancelled)."""
    def cancelled(cid: str, name: str, reason: str) -> dict[str, Any]:
        return tc(cid, name, "cancelled", {"error": f"[Operation Cancelled] Reason: {reason}"})
    m = model_of(session(cancelled("a", "write_file", "User denied execution."),
                         cancelled("b", "replace", "User cancelled operation"),
                         cancelled("c", "run_shell_command", "Operation cancelled")))
    assert errors(m) == []
    assert ops(m) == {
        "op-0001": ("!host", "write_file", "not-performed", "permission-required", []),
        "op-0002": ("!host", "replace", "not-performed", "permission-required", []),
        "op-0003": ("!host", "run_shell_command", "cancel-requested", None, ["unterminated"]),
    }


def test_plan_mode_and_non_interactive_refusals_did_not_run() -> None:
    """scheduler/policy.ts: in plan mode a tool other than the read and search tools is
    refused "You are in Plan Mode - adjust your prompt to only use read and search tools.";
    a call the policy would ask about in a non-interactive run fails with 'Tool execution for
    "X" requires user confirmation, which is not supported in non-interactive mode.'. Neither
    ran (both were shown as the tool failing). By hand: write_file and run_shell_command
    disallowed, not run, the recorded text as reason; read_file, a real failure, failed."""
    plan = "You are in Plan Mode - adjust your prompt to only use read and search tools."
    ask = ('Tool execution for "Shell" requires user confirmation, which is not supported in '
           "non-interactive mode.")
    data = session(tc("a", "write_file", "error", {"error": plan}),
                   tc("b", "run_shell_command", "error", {"error": ask}),
                   tc("c", "read_file", "error", {"error": "File not found: /x"}))
    m = model_of(data)
    assert errors(m) == []
    assert ops(m) == {
        "op-0001": ("!host", "write_file", "disallowed", "disallowed", []),
        "op-0002": ("!host", "run_shell_command", "disallowed", "disallowed", []),
        "op-0003": ("!host", "read_file", "failed", None, []),
    }
    vcon, _ = gemini.convert(data)
    assert [e["reason"] for e in vcon["events"] if e["type"] == "policy-decision"] == [plan, ask]
    # the same texts in the stream-json and the telemetry outfile
    sj = "\n".join(json.dumps(x) for x in (
        _sj(1, "tool_use", tool_name="write_file", tool_id="t1", parameters={}),
        _sj(2, "tool_result", tool_id="t1", status="error",
            error={"type": "stop_execution", "message": plan}))).encode()
    assert ops(model_of(sj))["op-0001"][2:4] == ("disallowed", "disallowed")
    tele = _tele(_log("gemini_cli.tool_call", "2026-01-01T10:00:02Z", function_name="Shell",
                      function_args="{}", success=False, error=ask))
    assert ops(model_of(tele))["op-0001"][2:4] == ("disallowed", "disallowed")


def test_a_subagent_that_failed_is_a_failure_not_a_result() -> None:
    """agents/local-invocation.ts: when a sub-agent (generalist, codebase_investigator, ...)
    fails, Gemini answers the model "Subagent 'NAME' failed. Error: ..." with the progress
    display (``isSubagentProgress``, ``state: "error"``) and leaves out the error on purpose, so
    the session says status success. Shape as in a real 0.3x session quoted publicly (a
    generalist call that ended "You have exhausted your daily quota on this model"). By hand:
    the generalist call ran and failed; cli_help, which finished, completed."""
    failed = tc("a", "generalist", "success", {
        "output": "Subagent 'generalist' failed. Error: You have exhausted your daily quota on "
                  "this model."},
        resultDisplay={"isSubagentProgress": True, "agentName": "generalist",
                       "recentActivity": [{"id": "x", "type": "thought",
                                           "content": "Error: TerminalQuotaError: quota",
                                           "status": "error"}],
                       "state": "error"})
    fine = tc("b", "cli_help", "success", {"output": "Subagent 'cli_help' finished.\n"
                                                     "Termination Reason: GOAL\nResult:\nok"},
              resultDisplay={"isSubagentProgress": True, "agentName": "cli_help",
                             "recentActivity": [], "state": "completed"})
    # older versions kept the error: status error, a failure as before
    older = tc("c", "codebase_investigator", "error", {"error": "boom"},
               resultDisplay="Subagent Failed: codebase_investigator\nError: boom")
    m = model_of(session(failed, fine, older))
    assert errors(m) == []
    assert ops(m) == {
        "op-0001": ("!host", "generalist", "failed", None, []),
        "op-0002": ("!host", "cli_help", "completed", None, []),
        "op-0003": ("!host", "codebase_investigator", "failed", None, []),
    }


def test_a_subagent_that_ended_short_of_its_goal_says_so() -> None:
    """agents/local-executor.ts and local-invocation.ts (google/gemini-cli-core 0.61.0 on npm,
    Apache-2.0): a sub-agent that stopped at its time or turn limit, on an error or without
    calling complete_task, and whose recovery turn did not finish, is answered "Subagent 'NAME'
    finished.\nTermination Reason: TIMEOUT|MAX_TURNS|ERROR|ERROR_NO_COMPLETE_TASK_CALL|
    ABORTED\nResult:\n..." with status success. A real session export shows "Subagent
    'cli_help' finished.\nTermination Reason: TIMEOUT\nResult:\nAgent timed out after 3
    minutes."; other real sessions call sub-agents through `invoke_agent` with
    args.agent_name (its answer names the sub-agent, not invoke_agent). Reviewer: cli_help timed
    out; generalist hit its turn limit (failed); codebase_investigator reached its GOAL
    (completed); the invoke_agent call's sub-agent failed ("Subagent 'generalist' failed")
    and its other invoke_agent call was aborted (cancelled). Before: all completed."""
    def sub(cid: str, name: str, text: str, args: dict[str, Any] | None = None) -> Any:
        c = tc(cid, name, "success", {"output": text})
        if args is not None:
            c["args"] = args
        return c
    m = model_of(session(
        sub("a", "cli_help", "Subagent 'cli_help' finished.\nTermination Reason: TIMEOUT\n"
                             "Result:\nAgent timed out after 3 minutes."),
        sub("b", "generalist", "Subagent 'generalist' finished.\nTermination Reason: "
                               "MAX_TURNS\nResult:\nAgent reached max turns limit (15)."),
        sub("c", "codebase_investigator", "Subagent 'codebase_investigator' finished.\n"
                                          "Termination Reason: GOAL\nResult:\n{}"),
        sub("d", "invoke_agent", "Subagent 'generalist' failed. Error: quota exhausted",
            {"prompt": "fix it", "agent_name": "generalist"}),
        sub("e", "invoke_agent", "Subagent 'generalist' finished.\nTermination Reason: "
                                 "ABORTED\nResult:\nAgent execution was terminated before "
                                 "completion.", {"prompt": "go", "agent_name": "generalist"}),
    ))
    assert errors(m) == []
    assert [v[2] for v in ops(m).values()] == [
        "timed-out", "failed", "completed", "failed", "cancel-requested"]


def test_a_shell_answer_wrapped_as_untrusted_context_still_gives_the_exit_code() -> None:
    """Gemini CLI (tools/shell.ts, utils/textUtils.ts wrapUntrusted; gemini-cli-core 0.61.0 on
    npm, Apache-2.0) wraps run_shell_command's answer to the model in "<untrusted_context>\n
    ... \n</untrusted_context>" (an inner closing tag is escaped), the status still success
    for a command that exited non-zero. Real session records quoted by several public parsers
    (2026): "<untrusted_context>\nOutput: make: *** No rule to make target 'lint'.  Stop.\nExit
    Code: 2\nProcess Group PGID: 4242\n</untrusted_context>". Reviewer: make lint failed
    (exit 2); git commit completed; the command stopped at its timeout timed out; the one the
    user cancelled before it started was cancelled; a read_file whose file holds such a
    wrapped text completed (it is the file's text). Before: all completed."""
    def sh(cid: str, out: str, name: str = "run_shell_command") -> Any:
        return tc(cid, name, "success", {"output": out})
    w = "<untrusted_context>\n{}\n</untrusted_context>".format
    m = model_of(session(
        sh("a", w("Output: make: *** No rule to make target 'lint'.  Stop.\nExit Code: 2\n"
                  "Process Group PGID: 4242")),
        sh("b", w("Output: [main abc1234] fix bug")),
        sh("c", w("Command was automatically cancelled because it exceeded the timeout of 5.0 "
                  "minutes without output. There was no output before it was cancelled.")),
        sh("d", w("Command was cancelled by user before it could start.")),
        sh("e", w("Output: x\nExit Code: 1\nProcess Group PGID: 1"), name="read_file"),
    ))
    assert errors(m) == []
    assert [v[2] for v in ops(m).values()] == [
        "failed", "completed", "timed-out", "cancel-requested", "completed"]


def test_telemetry_says_a_shell_commands_exit_code_in_its_metadata() -> None:
    """telemetry/types.ts ToolCallEvent (gemini-cli-core 0.61.0, Apache-2.0): `success` is
    the call's status, so a run_shell_command that exited non-zero is success true; its
    response data ({exitCode, isError: true}, tools/shell.ts) is the record's `metadata`
    attribute, a JSON text, when prompts are logged. Reviewer: `make lint` (exitCode 2) ran
    and failed; `ls` completed; a write_file whose metadata holds only diff counts completed.
    Before: all completed."""
    meta = json.dumps({"exitCode": 2, "isError": True}, indent=2)
    m = model_of(_tele(
        _log("gemini_cli.tool_call", "2026-01-01T10:00:02Z", function_name="run_shell_command",
             function_args='{"command": "make lint"}', success=True, metadata=meta),
        _log("gemini_cli.tool_call", "2026-01-01T10:00:03Z", function_name="run_shell_command",
             function_args='{"command": "ls"}', success=True),
        _log("gemini_cli.tool_call", "2026-01-01T10:00:04Z", function_name="write_file",
             success=True, metadata=json.dumps({"model_added_lines": 3}))))
    assert errors(m) == []
    assert [v[2] for v in ops(m).values()] == ["failed", "completed", "completed"]


def test_an_otlp_export_of_gemini_telemetry_reads_the_exit_code_alike() -> None:
    """The same tool_call record exported as OTLP/JSON (the OTLP importer reads it): the rule
    is the Gemini importer's. Reviewer: `make lint` (metadata exitCode 2) failed."""
    def kv(k: str, v: Any) -> dict[str, Any]:
        return {"key": k, "value": {"boolValue": v} if isinstance(v, bool) else
                {"stringValue": v}}
    rec = {"timeUnixNano": "1772442002000000000", "body": {"stringValue": "Tool call"},
           "attributes": [kv("event.name", "gemini_cli.tool_call"),
                          kv("event.timestamp", "2026-03-02T09:00:02.000Z"),
                          kv("function_name", "run_shell_command"),
                          kv("function_args", '{"command": "make lint"}'),
                          kv("success", True),
                          kv("metadata", json.dumps({"exitCode": 2, "isError": True}))]}
    doc = {"resourceLogs": [{"resource": {"attributes": [kv("service.name", "gemini-cli")]},
                             "scopeLogs": [{"scope": {"name": "gemini-cli"},
                                            "logRecords": [rec]}]}]}
    m = model_of(json.dumps(doc).encode())
    assert errors(m) == []
    assert [(o.tool, o.outcome) for o in m.operations] == [("run_shell_command", "failed")]


def test_a_tools_output_quoting_a_subagent_failure_is_the_tools_output() -> None:
    """The sub-agent's failure line names the sub-agent (the call's own tool); read_file of a
    log holding that line, or an MCP tool quoting it, returned text. By hand: both completed,
    as they did before sub-agent failures were read."""
    line = {"output": "Subagent 'generalist' failed. Error: You have exhausted your quota."}
    m = model_of(session(tc("a", "read_file", "success", line),
                         tc("b", "mcp_logs_tail", "success", line)))
    assert [o[2] for o in ops(m).values()] == ["completed", "completed"]


def test_shell_answer_with_escaped_newlines_still_gives_the_exit_code() -> None:
    """agent-sessions__gemini_large.json (jazzyalex/agent-sessions, a Gemini session fixture):
    its run_shell_command answers are written with the two characters backslash-n where the
    lines break ("Command: ls /non-existent-directory\\\\nDirectory: /tmp\\\\n...\\\\nExit Code:
    1\\\\nSignal: 0..."). By hand: printf succeeded (Exit Code 0); ls of a missing directory
    ran and failed (Exit Code 1; it was shown completed). The "info" and "model" records are
    not tool traffic."""
    m = model_of((FIX / "agent-sessions__gemini_large.json").read_bytes())
    assert errors(m) == []
    assert ops(m) == {
        "op-0001": ("!host", "run_shell_command", "completed", None, []),
        "op-0002": ("!host", "run_shell_command", "failed", None, []),
    }
    # an answer with real line breaks that shows the characters \n in its output is read as
    # written: only its last lines decide
    out = "Command: echo 'a\\\\nExit Code: 1'\nDirectory: /\nOutput: a\\nExit Code: 1\n" \
          "Error: (none)\nExit Code: 0\nSignal: (none)\nBackground PIDs: (none)\n" \
          "Process Group PGID: (none)"
    m = model_of(session(tc("a", "run_shell_command", "success", {"output": out})))
    assert ops(m)["op-0001"][2] == "completed"


def test_a_before_tool_hook_block_is_a_refusal() -> None:
    """gemini-cli packages/core/src/core/coreToolHookTriggers.ts (and the scheduler's
    evaluateBeforeToolHook): a BeforeTool hook that blocks the call answers "Tool execution
    blocked: <reason>" (the display; the error may hold the bare reason), one that stops the
    agent "Agent execution stopped by hook: <reason>"; the tool is not run. Reviewer: both
    calls were refused by a hook (disallowed, the hook's words quoted), neither ran. Before:
    each was a tool that ran and failed."""
    data = session(
        tc("a", "run_shell_command", "error", {"error": "no rm -rf here"},
           resultDisplay="Tool execution blocked: no rm -rf here"),
        tc("b", "write_file", "error",
           {"error": "Agent execution stopped by hook: session budget spent"}))
    m = model_of(data)
    assert ops(m) == {
        "op-0001": ("!host", "run_shell_command", "disallowed", "disallowed", []),
        "op-0002": ("!host", "write_file", "disallowed", "disallowed", []),
    }
    evs = m.vcon["events"]
    assert not [e for e in evs if e["type"] == "tool-invocation"]
    dec = [e for e in evs if e["type"] == "policy-decision"]
    assert [d["reason"] for d in dec] == ["Tool execution blocked: no rm -rf here",
                                          "Agent execution stopped by hook: session budget spent"]
    assert all("hook" in d["inferred"] for d in dec)
    assert errors(m) == []


def test_a_deeply_nested_event_name_is_no_telemetry_and_no_crash() -> None:
    """The red-team mutation run (bench/fuzz_long.py --mutate, seed 77, case 678): a record
    whose attributes' event.name is 1,000 nested arrays. Before: format detection wrote the
    value as text to test its prefix, and the CLI said 'internal error: RecursionError'; now
    the file is refused as no format, as any other unrecognised JSON."""
    from viewer.load import LoadError

    deep = "[" * 1000 + "]" * 1000
    data = ('{"attributes":{"session.id":"s1","event.name":' + deep + '}}').encode()
    with pytest.raises(LoadError):
        open_bytes(data, name="t.json")

