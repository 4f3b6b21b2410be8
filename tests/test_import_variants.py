"""Importers on other versions of each agent's recording than the corpus samples.

Each input's shape comes from the agent's own public source (tests/fixtures/SOURCES.md,
section variants/); what a reviewer should see is written in each test before the check.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from viewer.importers import claude_code, codex, cursor, gemini, otlp
from viewer.importers.formats import ImportInputError, detect
from viewer.model.build import build_model
from viewer.model.types import Model
from viewer.pipeline import open_bytes

FIX = Path(__file__).resolve().parent / "fixtures" / "variants"


def model_of(data: bytes, name: str = "variant") -> Model:
    return build_model(open_bytes(data, name=name))


def outcomes(m: Model) -> list[tuple[str | None, str | None, str, str | None]]:
    return [(o.server, o.tool, o.outcome, o.decision) for o in m.operations]


def jl(*recs: dict[str, Any]) -> bytes:
    return b"\n".join(json.dumps(r).encode() for r in recs) + b"\n"


# --- Codex ------------------------------------------------------------------------------------


def test_codex_mcp_output_items_keep_is_error_and_err() -> None:
    """Codex 0.2x wrote an MCP call's result only as its function_call_output: the
    CallToolResult as JSON text, or ``err: …`` when the call got no result. A reviewer sees:
    isError true failed, the request error errored, isError false completed, the declined
    approval question a refusal (never run)."""
    m = model_of((FIX / "codex_mcp_outputs_0.2x.jsonl").read_bytes())
    assert outcomes(m) == [
        ("github", "get_issue", "failed", None),
        ("github", "get_issue", "errored", None),
        ("github", "get_issue", "completed", None),
        ("codex_apps", "send_mail", "not-performed", "permission-required"),
    ]
    assert not [e for e in m.vcon["events"] if e.get("type") == "tool-invocation"
                and e["operation_id"] == "op-0004"]


def test_codex_mcp_output_without_is_error_says_so() -> None:
    """Newer Codex writes an MCP result's content alone (isError kept only in
    mcp_tool_call_end, which some versions do not persist): 'completed' is all the file
    says, and the import warns that the tool may have reported an error."""
    meta = {"timestamp": "2025-10-01T10:00:00Z", "type": "session_meta",
            "payload": {"id": "s", "cli_version": "0.46.0"}}
    callr = {"timestamp": "2025-10-01T10:00:01Z", "type": "response_item",
             "payload": {"type": "function_call", "name": "mcp__fs__read",
                         "arguments": "{}", "call_id": "c1"}}
    out = {"timestamp": "2025-10-01T10:00:02Z", "type": "response_item",
           "payload": {"type": "function_call_output", "call_id": "c1",
                       "output": '[{"type":"text","text":"no such file"}]'}}
    _, rep = codex.convert(jl(meta, callr, out))
    assert any("isError" in w for w in rep.warnings)
    end = {"timestamp": "2025-10-01T10:00:02Z", "type": "event_msg",
           "payload": {"type": "mcp_tool_call_end", "call_id": "c1",
                       "invocation": {"server": "fs", "tool": "read"},
                       "result": {"Ok": {"content": [], "isError": True}}}}
    _, rep = codex.convert(jl(meta, callr, end, out))
    assert not any("isError" in w for w in rep.warnings)
    assert outcomes(model_of(jl(meta, callr, end, out))) == [("fs", "read", "failed", None)]


# --- Gemini CLI -------------------------------------------------------------------------------


def test_gemini_mcp_prefixed_names() -> None:
    """Newer Gemini CLI names an MCP tool mcp_<server>_<tool> (displayName '<tool> (<server>
    MCP Server)'); older ones <server>__<tool>. A reviewer sees server github, tool get_issue
    for both, and for a name with no displayName Gemini's own split (first '_'), with a
    warning that a server name with '_' would be cut short."""
    data = (FIX / "gemini_mcp_prefixed_names.json").read_bytes()
    assert [(s, t) for s, t, _, _ in outcomes(model_of(data))] == [
        ("github", "get_issue"), ("my", "srv_do_it"), ("github", "get_issue")]
    _, rep = gemini.convert(data)
    assert any("mcp_<server>_<tool>" in w for w in rep.warnings)


# --- OpenTelemetry GenAI ----------------------------------------------------------------------


def test_otel_openllmetry_tool_spans_are_operations() -> None:
    """OpenLLMetry (Traceloop SDK) marks a tool span traceloop.span.kind=tool and names it
    traceloop.entity.name; they were dropped (no operation). A reviewer sees get_weather
    completed with its input and output, and fail_tool (status ERROR, no output) errored."""
    m = model_of((FIX / "otel_openllmetry_tool_spans.otlp.json").read_bytes())
    assert outcomes(m) == [("!host", "get_weather", "completed", None),
                           ("!host", "fail_tool", "errored", None)]
    inv = next(e for e in m.vcon["events"] if e["type"] == "tool-invocation")
    assert '"city"' in json.dumps(inv)


def test_otel_tool_calls_only_in_messages_are_reported() -> None:
    """Older OpenLLMetry (gen_ai.completion.<i>.tool_calls.<j>.*) and the newer
    gen_ai.output.messages record the calls the model asked for; without a tool span, and
    without an answer in a later request, the recording does not say whether they ran. A
    reviewer sees no invented operation, and a warning naming the calls left out; a call whose
    execute_tool span names its id is shown and not counted. In the first file the next
    request carries get_weather's answer (gen_ai.prompt.2, role tool, tool_call_id call_1,
    "12C"): it ran, so it is shown, invoked when asked (the first span's end, 08:00:02) and
    answered at the next request (its start, 08:00:05), each event saying why in `inferred`."""
    data = (FIX / "otel_completion_tool_calls_only.otlp.json").read_bytes()
    vcon, rep = otlp.convert(data)
    assert not any("asked for" in w for w in rep.warnings)
    # ... and the import says, where the reviewer reads the warnings, that its times and outcome
    # are read from the model's messages, not recorded by the tool
    assert any(w.startswith("1 tool call(s) ('get_weather') are recorded only in the model's "
                            "messages") and "whether it failed" in w for w in rep.warnings)
    assert outcomes(model_of(data)) == [("!host", "get_weather", "completed", None)]
    assert [(e["type"], e["time"], e.get("body"), "inferred" in e) for e in vcon["events"]] == [
        ("tool-invocation", "2026-01-05T08:00:02.000Z",
         {"arguments": {"city": "Paris"}, "tool_call_id": "call_1"}, True),
        ("tool-result", "2026-01-05T08:00:05.000Z", "12C", True)]
    data = (FIX / "otel_output_messages_one_unrun.otlp.json").read_bytes()
    assert outcomes(model_of(data)) == [("!host", "get_weather", "completed", None)]
    _, rep = otlp.convert(data)
    assert any("1 tool call(s) the model asked for ('send_mail')" in w for w in rep.warnings)


# --- Cursor -----------------------------------------------------------------------------------


def test_cursor_agent_stream_json_is_cursor_not_claude_code() -> None:
    """cursor-agent's stream-json has Claude Code's system/user/assistant shapes, so it was read
    as a Claude Code transcript with no operation: its tool_call events were dropped. A
    reviewer sees a Cursor import with the read completed and the shell command (exitCode 1)
    failed, at the timestamp_ms times."""
    data = (FIX / "cursor_agent_stream.jsonl").read_bytes()
    fmt = detect(data)
    assert fmt is not None and fmt.name == "cursor"
    m = model_of(data)
    assert outcomes(m) == [("!host", "read", "completed", None),
                           ("!host", "shell", "failed", None)]
    assert m.operations[0].attempts[0].start == datetime(2026, 2, 11, 15, 24, 9, 274000, UTC)


def test_cursor_agent_stream_unknown_result_is_left_open_and_said() -> None:
    """A completion whose result is not one vcon-view reads is not guessed: the call stays
    open and the import names the result kind. (This test used 'rejected', which is now
    read: see test_cursor_agent_stream_rejected_call_did_not_run; 'stillRunning' says the
    work goes on, so the call stays open.)"""
    rec = {"type": "tool_call", "subtype": "completed", "call_id": "c1", "session_id": "s",
           "tool_call": {"shellToolCall": {"args": {"command": "rm x"},
                                           "result": {"stillRunning": {}}}}}
    vcon, rep = cursor.convert(jl(rec))
    assert any("'stillRunning'" in w for w in rep.warnings)
    assert [e["type"] for e in vcon["events"]] == ["tool-invocation"]


def test_cursor_agent_stream_rejected_call_did_not_run() -> None:
    """cursor-agent's stream-json writes a refused call as its completed line with result
    {rejected: {command, workingDirectory, reason, isReadonly}} (shell) or {rejected: {reason,
    isReadonly}} (MCP): the call did not run (several public adapters of cursor-agent read it
    so, one from a captured run without --force: a headless run refuses what its permissions
    do not allow, and the model goes on). Before, a reviewer saw 'rm old_auth.py' still
    running, unterminated, and only a warning that 'rejected' was not read. By hand: op-0001
    rm old_auth.py refused (a once decision, no invocation, what was asked kept as
    requested); op-0002 read x.py completed; shell timeout timed out; edit fileNotFound
    failed; mcp toolNotFound errored."""
    def rec(sub: str, cid: str, kind: str, args: dict[str, Any], result: Any = None,
            ms: int = 0) -> dict[str, Any]:
        inner: dict[str, Any] = {"args": args}
        if result is not None:
            inner["result"] = result
        return {"type": "tool_call", "subtype": sub, "call_id": cid, "timestamp_ms": ms,
                "tool_call": {kind: inner}, "session_id": "s1"}
    lines = [
        {"type": "system", "subtype": "init", "session_id": "s1"},
        rec("started", "c1", "shellToolCall", {"command": "rm old_auth.py"}, ms=1_000),
        rec("completed", "c1", "shellToolCall", {"command": "rm old_auth.py"},
            {"rejected": {"command": "rm old_auth.py", "workingDirectory": "/r",
                          "reason": "", "isReadonly": False}}, ms=1_100),
        rec("started", "c2", "readToolCall", {"path": "x.py"}, ms=2_000),
        rec("completed", "c2", "readToolCall", {"path": "x.py"},
            {"success": {"content": "ok"}}, ms=2_100),
        rec("started", "c3", "shellToolCall", {"command": "sleep 999"}, ms=3_000),
        rec("completed", "c3", "shellToolCall", {"command": "sleep 999"},
            {"timeout": {"command": "sleep 999", "timeoutMs": 30000}}, ms=33_000),
        rec("started", "c4", "editToolCall", {"path": "gone.py"}, ms=34_000),
        rec("completed", "c4", "editToolCall", {"path": "gone.py"},
            {"fileNotFound": {"path": "gone.py"}}, ms=34_100),
        rec("started", "c5", "mcpToolCall", {"providerIdentifier": "gh", "toolName": "nope",
                                              "args": {}}, ms=35_000),
        rec("completed", "c5", "mcpToolCall", {"providerIdentifier": "gh", "toolName": "nope",
                                                "args": {}},
            {"toolNotFound": {"name": "nope"}}, ms=35_100),
    ]
    vcon, rep = cursor.convert(jl(*lines))
    m = model_of(jl(*lines))
    assert [(o.tool, o.outcome, o.decision) for o in m.operations] == [
        ("shell", "disallowed", "disallowed"), ("read", "completed", None),
        ("shell", "timed-out", None), ("edit", "failed", None), ("nope", "errored", None)]
    refused = vcon["events"][0]
    assert refused["type"] == "policy-decision" and refused["policy_life"] == "once"
    assert refused["requested"]["arguments"] == {"command": "rm old_auth.py"}
    assert "rejected" in refused["inferred"]
    assert not any("not read" in w for w in rep.warnings)
    assert [d for d in m.diagnostics if d.severity == "error"] == []


def test_gemini_2025_shell_output_exit_code_and_signal() -> None:
    """Gemini CLI of 2025 answered every shell command with all of Command/Directory/Output/
    Error/Exit Code/Signal/... lines ('(none)' when unset), and kept status 'success' for a
    command that failed: only the newer 'Output: ...' form was read, so these showed as
    completed. A reviewer sees exit code 1 failed, exit code 0 completed (an 'Exit Code: 1'
    inside the output does not count), signal 15 failed, and a spawn error (Error line, no
    exit code) errored."""
    m = model_of((FIX / "gemini_shell_output_2025.json").read_bytes())
    assert [o for _, _, o, _ in outcomes(m)] == ["failed", "completed", "failed", "errored"]


def test_codex_protocol_events_are_recognised_and_name_the_mcp_server() -> None:
    """Codex's {id, msg} protocol events (codex proto, the first codex exec --json) were read
    only by 'import codex', not recognised when opened, and the first McpToolCallBeginEvent
    (server/tool/arguments on the event, no 'invocation') put the MCP call on !host. A reviewer
    sees the shell command failed (exit 1), gh/get errored (Err), gh/get failed (isError),
    and the command still awaiting approval open, in order only (no times)."""
    data = (FIX / "codex_protocol_events_2025.jsonl").read_bytes()
    fmt = detect(data)
    assert fmt is not None and fmt.name == "codex"
    assert outcomes(model_of(data)) == [
        ("!host", "shell", "failed", None),
        ("gh", "get", "errored", None),
        ("gh", "get", "failed", None),
        ("!host", "shell", "running", "permission-required"),
    ]


def test_otel_vercel_ai_sdk_tool_spans_are_operations() -> None:
    """The Vercel AI SDK's ai.toolCall spans (before it also wrote execute_tool) were dropped.
    A reviewer sees weather completed with its id, arguments and result, search (it threw)
    failed (its exception, JavaScript's Error, is the tool's own: it ran), and a warning for
    'book', which the model asked for and no span shows ran."""
    data = (FIX / "otel_vercel_ai_sdk_tool_spans.otlp.json").read_bytes()
    m = model_of(data)
    assert outcomes(m) == [("!host", "weather", "completed", None),
                           ("!host", "search", "failed", None)]
    inv = next(e for e in m.vcon["events"] if e["type"] == "tool-invocation")
    assert "call_a" in json.dumps(inv)
    _, rep = otlp.convert(data)
    assert any("('book')" in w for w in rep.warnings)


def test_otel_livekit_function_tool_spans_are_operations() -> None:
    """LiveKit Agents (livekit/agents voice/generation.py, `function_tool` span;
    telemetry/trace_types.py) records each tool it runs as a span `function_tool` with
    lk.function_tool.name / .arguments / .output / .is_error; 1.0-1.2 write nothing else, so
    the calls were dropped and a reviewer saw an agent that called nothing. By hand:
    lookup_weather {location: Tokyo} -> "sunny with a temperature of 70 degrees." at
    12:00:01.1-1.9, completed; book_table {party: 4} raised (is_error, the model told "An
    internal error occurred") at 12:00:02.0-2.5, failed. The newest versions add
    execute_tool / gen_ai.tool.call.id (error.type tool_error when is_error) but keep the
    arguments and output in lk.pii.function_tool.* only (gen_ai content capture is opt-in):
    the same calls with their call ids, arguments and outputs."""
    data = (FIX / "otel_livekit_function_tool_spans.otlp.json").read_bytes()
    m = model_of(data)
    assert outcomes(m) == [("!host", "lookup_weather", "completed", None),
                           ("!host", "book_table", "failed", None)]
    ev = [(e["type"], e["time"], e.get("body")) for e in m.vcon["events"]]
    assert [(t, when[11:23]) for t, when, _ in ev] == [
        ("tool-invocation", "12:00:01.100"), ("tool-result", "12:00:01.900"),
        ("tool-invocation", "12:00:02.000"), ("tool-failure", "12:00:02.500")]
    assert ev[0][2]["arguments"] == {"location": "Tokyo"}
    assert ev[1][2] == "sunny with a temperature of 70 degrees."
    assert ev[2][2]["arguments"] == {"party": 4}
    assert "An internal error occurred" in json.dumps(ev[3][2])
    data = (FIX / "otel_livekit_gen_ai_function_tool_spans.otlp.json").read_bytes()
    m = model_of(data)
    assert outcomes(m) == [("!host", "lookup_weather", "completed", None),
                           ("!host", "book_table", "failed", None)]
    ev = [(e["type"], e.get("body")) for e in m.vcon["events"]]
    assert ev[0][1]["arguments"] == {"location": "Tokyo"} and ev[0][1]["tool_call_id"] == "call_abc"
    assert ev[1] == ("tool-result", "sunny")
    assert ev[2][1]["arguments"] == {"party": 4}
    assert ev[3][0] == "tool-failure" and "no table for 4 tonight" in json.dumps(ev[3][1])


def test_otel_jaeger_and_zipkin_exports_of_genai_spans_are_read() -> None:
    """A trace saved from Jaeger (its query API / UI JSON: {data: [{traceID, spans,
    processes}]}, spans with operationName, references, startTime/duration in microseconds,
    tags and logs as [{key, type, value}]; jaegertracing/jaeger
    model/converter/json/fixtures/ui_01.json) was refused as no known format, and Zipkin v2
    JSON (opentelemetry-exporter-zipkin's v2 encoder: tags a plain object of strings,
    otel.status_code / error for the status, an event as an annotation {"name": {attrs}})
    was read as spans without attributes or times: 'No operations', times order only. By hand,
    both record, from 12:00:00 (2026-01-01 UTC): get_weather {location: Tokyo} 01.1-01.9 ->
    "sunny, 21C", completed; book_table {party: 4} 02.0-02.5, status ERROR, ValueError "no
    table for 4" and no result: its code raised, so it ran and failed; the Zipkin file also
    an MCP tools/call lookup on docs.example.com:443, 03.0-03.3, completed. The agent and
    chat spans are context."""
    m = model_of((FIX / "otel_jaeger_api_trace.json").read_bytes(), name="trace.json")
    assert outcomes(m) == [("!host", "get_weather", "completed", None),
                           ("!host", "book_table", "failed", None)]
    ev = [(e["type"], e["time"][11:23], e.get("body")) for e in m.vcon["events"]]
    assert [x[:2] for x in ev] == [("tool-invocation", "12:00:01.100"),
                                   ("tool-result", "12:00:01.900"),
                                   ("tool-invocation", "12:00:02.000"),
                                   ("tool-failure", "12:00:02.500")]
    assert ev[0][2]["arguments"] == {"location": "Tokyo"} and ev[1][2] == "sunny, 21C"
    assert ev[3][2]["message"] == "no table for 4"
    assert ev[3][2]["exception"]["exception.type"] == "ValueError"
    trace = json.loads((FIX / "otel_jaeger_api_trace.json").read_bytes())["data"][0]
    assert outcomes(model_of(json.dumps(trace).encode())) == outcomes(m)  # one bare trace
    m = model_of((FIX / "otel_zipkin_v2_spans.json").read_bytes(), name="spans.json")
    assert outcomes(m) == [("!host", "get_weather", "completed", None),
                           ("!host", "book_table", "failed", None),
                           ("docs.example.com:443", "lookup", "completed", None)]
    ev = [(e["type"], e["time"][11:23], e.get("body")) for e in m.vcon["events"]]
    assert [x[:2] for x in ev] == [("tool-invocation", "12:00:01.100"),
                                   ("tool-result", "12:00:01.900"),
                                   ("tool-invocation", "12:00:02.000"),
                                   ("tool-failure", "12:00:02.500"),
                                   ("tool-invocation", "12:00:03.000"),
                                   ("tool-result", "12:00:03.300")]
    assert ev[0][2]["arguments"] == {"location": "Tokyo"} and ev[1][2] == "sunny, 21C"
    assert ev[3][2]["message"] == "no table for 4"
    assert ev[3][2]["exception"]["exception.type"] == "ValueError"
    loaded = open_bytes((FIX / "otel_zipkin_v2_spans.json").read_bytes(), name="spans.json")
    assert loaded.derivation is not None and loaded.derivation.title == "Zipkin span export"
    assert detect((FIX / "otel_jaeger_api_trace.json").read_bytes()).name == "otlp"


def test_otel_openllmetry_mcp_client_and_server_spans_are_one_mcp_call_each() -> None:
    """OpenLLMetry's MCP instrumentation (traceloop/openllmetry
    opentelemetry-instrumentation-mcp instrumentation.py, fastmcp_instrumentation.py; scope
    opentelemetry.instrumentation.mcp) writes a client span '{tool}.tool' (traceloop tool
    span, input {tool_name, arguments}, output {result, is_error}; status ERROR and an
    error.type named after an HTTP status found in the text when the result isError) and, in
    a FastMCP server, 'mcp.server' (workflow '{server}.mcp') around a second '{tool}.tool'.
    With both in one trace a reviewer saw get_forecast twice, both calls as the host's own
    tools, the arguments inside the request's {tool_name, arguments}, and get_alerts, whose
    tool answered isError "Upstream returned 504 Gateway Timeout...", as a timeout with its
    answer dropped. By hand: get_forecast on the MCP server weather {latitude: 37.7,
    longitude: -122.4} 12:00:01.0-1.5 -> "Tonight: clear, 12C", completed, once; get_alerts
    {state: XX} (no server span, the server unnamed) 12:00:02.0-2.2, failed with the tool's
    answer."""
    data = (FIX / "otel_openllmetry_mcp_client_server.otlp.json").read_bytes()
    vcon, _ = otlp.convert(data)
    m = model_of(data)
    assert outcomes(m) == [("weather", "get_forecast", "completed", None),
                           (otlp.UNKNOWN_MCP, "get_alerts", "failed", None)]
    ev = [(e["type"], e["time"][11:23], e.get("body")) for e in vcon["events"]]
    assert [x[:2] for x in ev] == [("tool-invocation", "12:00:01.000"),
                                   ("tool-result", "12:00:01.500"),
                                   ("tool-invocation", "12:00:02.000"),
                                   ("tool-failure", "12:00:02.200")]
    assert ev[0][2]["arguments"] == {"latitude": 37.7, "longitude": -122.4}
    assert ev[0][2]["merged_span_ids"] == ["5000000000000002"]
    assert ev[1][2] == {"result": "Tonight: clear, 12C"}
    assert ev[2][2]["arguments"] == {"state": "XX"}
    assert "504 Gateway Timeout" in json.dumps(ev[3][2])


def test_otel_genai_event_logs_tool_calls_are_reported() -> None:
    """The GenAI events as log records (the older gen_ai.choice with tool_calls, the newer
    gen_ai.client.inference.operation.details with gen_ai.output.messages) say what the model
    asked for, not what ran: no operation, and a warning naming both calls."""
    _, rep = otlp.convert((FIX / "otel_genai_event_logs.otlp.json").read_bytes())
    assert any("2 tool call(s) the model asked for ('get_weather', 'lookup')" in w
               for w in rep.warnings)


def test_gemini_mcp_tool_error_is_the_tool_failing_whatever_it_says() -> None:
    """An MCP tool that returns isError makes Gemini answer "MCP tool '<tool>' reported tool
    error ... with response: <the tool's own text>". The tool's words ("denied by policy",
    "timed out") were read as Gemini's, so the call showed as refused by Gemini's policy
    (never run). A reviewer sees it ran and failed; a built-in tool not in the registry still
    errored."""
    m = model_of((FIX / "gemini_mcp_tool_error.json").read_bytes())
    assert outcomes(m) == [("github", "get_issue", "failed", None),
                           ("!host", "run_shell_command", "errored", None)]


def test_codex_policy_words_in_a_commands_output_are_not_a_refusal() -> None:
    """"blocked by policy" was looked for anywhere in an output, so a curl that ran and exited
    22 (its server said "blocked by policy") showed as refused by Codex, never run; so did an
    MCP tool saying it. A reviewer sees the command failed (exit 22) and both MCP calls
    completed (with the warning that the output item keeps no isError)."""
    m = model_of((FIX / "codex_policy_words_in_output.jsonl").read_bytes())
    assert outcomes(m) == [("!host", "shell", "failed", None),
                           ("proxy", "fetch", "completed", None),
                           ("proxy", "fetch", "completed", None)]


# --- Copilot CLI ------------------------------------------------------------------------------


def test_copilot_failure_whose_message_says_denied_is_a_failure() -> None:
    """An MCP tool that ran and failed (error code failure) with its own message "Denied by
    organization SSO policy ..." was read as Copilot refusing the call (disallowed, never run)
    from the message's first words. A reviewer sees github/get_issue failed."""
    m = model_of((FIX / "copilot_mcp_failure_says_denied.jsonl").read_bytes())
    assert outcomes(m) == [("github", "get_issue", "failed", None)]


def test_codex_typescript_rollout_is_read() -> None:
    """The TypeScript Codex CLI (spring 2025) saved one JSON document per session
    ({session, items}); it was refused. A reviewer sees npm test failed (exit code 1) and ls
    completed, at the file's one time, with a warning that the items carry no times."""
    data = (FIX / "codex_ts_rollout_2025.json").read_bytes()
    fmt = detect(data)
    assert fmt is not None and fmt.name == "codex"
    assert outcomes(model_of(data)) == [("!host", "shell", "failed", None),
                                        ("!host", "shell", "completed", None)]
    _, rep = codex.convert(data)
    assert any("TypeScript Codex CLI rollout" in w for w in rep.warnings)


def test_otel_tool_result_without_success_says_so() -> None:
    """A claude_code.tool_result log event with no success attribute (or one that is neither
    true nor false) was shown as completed with nothing said: the import now warns."""
    rec = {"resourceLogs": [{"resource": {"attributes": []}, "scopeLogs": [{"scope": {
        "name": "com.anthropic.claude_code.events"}, "logRecords": [{
            "timeUnixNano": "1767600000000000000",
            "body": {"stringValue": "claude_code.tool_result"},
            "attributes": [{"key": "tool_name", "value": {"stringValue": "Bash"}},
                           {"key": "duration_ms", "value": {"stringValue": "120"}}]}]}]}]}
    _, rep = otlp.convert(jl(rec))
    assert any("neither success true nor false" in w for w in rep.warnings)


# --- Claude Code hook logs --------------------------------------------------------------------


def test_other_agents_hook_payloads_are_refused_by_name() -> None:
    """Gemini CLI's hook payloads have Claude Code's shape, so a BeforeTool/AfterTool log was
    refused as a Claude Code hook log that 'records no tool call'. It is refused, but saying
    whose hooks they are and which session to import instead."""
    with pytest.raises(ImportInputError, match="hook payloads of Gemini CLI"):
        claude_code.convert((FIX / "gemini_hook_payloads.json").read_bytes())


def test_otel_file_with_two_agent_sessions_says_so() -> None:
    """A collector's file holds every session it received; they were put in one vCon with
    nothing said. A reviewer sees both calls (one completed, one failed) and a warning that
    two sessions are in one vCon."""
    data = (FIX / "otel_claude_code_two_sessions.otlp.jsonl").read_bytes()
    assert [o for _, _, o, _ in outcomes(model_of(data))] == ["completed", "failed"]
    _, rep = otlp.convert(data)
    assert any("2 agent sessions" in w for w in rep.warnings)


def test_gemini_telemetry_mcp_tool_error_is_a_failure() -> None:
    """The same in the telemetry outfile: a gemini_cli.tool_call with error_type
    mcp_tool_error whose error quotes the tool saying "denied by policy" was shown as refused
    by Gemini's policy. A reviewer sees the approved call (auto_accept) ran and failed."""
    m = model_of((FIX / "gemini_telemetry_mcp_tool_error.json").read_bytes())
    assert outcomes(m) == [("github", "get_issue", "failed", "permission-required")]


def test_gemini_session_with_a_system_message_is_recognised() -> None:
    """An early ChatRecordingService wrote 'system' messages; the sniffer allowed only the
    later types, so such a session was refused. A reviewer sees its list_directory call
    completed."""
    data = (FIX / "gemini_session_system_message_2025.json").read_bytes()
    fmt = detect(data)
    assert fmt is not None and fmt.name == "gemini"
    assert outcomes(model_of(data)) == [("!host", "list_directory", "completed", None)]


def test_otel_with_protobuf_field_names_is_read() -> None:
    """OTLP/JSON written with the protobuf field names (resource_spans, start_time_unix_nano,
    string_value) was refused; every protobuf JSON reader takes both spellings. A reviewer
    sees the same two calls as in the lowerCamelCase file."""
    data = (FIX / "otel_proto_field_names.otlp.json").read_bytes()
    same = (FIX / "otel_vercel_ai_sdk_tool_spans.otlp.json").read_bytes()
    assert outcomes(model_of(data)) == outcomes(model_of(same))
    assert len(model_of(data).operations) == 2


def test_otel_same_request_in_nested_llm_spans_is_not_a_missing_call() -> None:
    """A framework span and the client span inside it both record the model's tool call;
    the one tool span (no call id) shows it ran. A reviewer sees get_weather completed and no
    warning of a call the recording does not show."""
    data = (FIX / "otel_openllmetry_nested_llm_spans.otlp.json").read_bytes()
    assert outcomes(model_of(data)) == [("!host", "get_weather", "completed", None)]
    _, rep = otlp.convert(data)
    assert not any("asked for" in w for w in rep.warnings)


def test_otel_mcp_span_named_by_mcp_tool_name() -> None:
    """MCP instrumentations that predate gen_ai.tool.name (Sentry's MCP server integration
    and others) name the tool mcp.tool.name; with a span name that does not end in it, the
    call was recorded as 'unknown-tool'. A reviewer sees the tool's name."""
    span = {"traceId": "8b8efff798038103d269b633813fc60c", "spanId": "a100000000000001",
            "name": "mcp.server", "kind": 2, "startTimeUnixNano": "1767600000000000000",
            "endTimeUnixNano": "1767600001000000000", "status": {},
            "attributes": [{"key": "mcp.method.name", "value": {"stringValue": "tools/call"}},
                           {"key": "mcp.tool.name", "value": {"stringValue": "get_weather"}},
                           {"key": "mcp.session.id", "value": {"stringValue": "s1"}}]}
    doc = {"resourceSpans": [{"resource": {"attributes": [
        {"key": "service.name", "value": {"stringValue": "weather-mcp"}}]},
        "scopeSpans": [{"scope": {"name": "x"}, "spans": [span]}]}]}
    assert [t for _, t, _, _ in outcomes(model_of(jl(doc)))] == ["get_weather"]


def test_cursor_agent_stream_rejected_reason_is_bounded() -> None:
    """A rejected call's reason is the recording's text: like every importer's refusal reason
    (Claude Code's, Codex's: 2,000 characters) it is kept bounded, not copied whole into the
    decision (a 1 MB reason made a 1 MB policy-decision reason)."""
    lines = [{"type": "tool_call", "subtype": "started", "call_id": "c1", "timestamp_ms": 1,
              "tool_call": {"shellToolCall": {"args": {"command": "rm x"}}}},
             {"type": "tool_call", "subtype": "completed", "call_id": "c1", "timestamp_ms": 2,
              "tool_call": {"shellToolCall": {"args": {"command": "rm x"}, "result": {
                  "rejected": {"reason": "no " * 400_000}}}}}]
    vcon, _rep = cursor.convert(jl(*lines))
    refused = vcon["events"][0]
    assert refused["type"] == "policy-decision"
    assert refused["reason"].startswith("no no ") and len(refused["reason"]) <= 2000


def test_otel_jaeger_export_keeps_the_instrumentation_scope_of_its_spans() -> None:
    """Jaeger and Zipkin carry a span's instrumentation scope as the tags otel.scope.name (or
    the older otel.library.name) that the OTLP translation adds: an OpenLLMetry MCP client
    span exported through Jaeger was a call of the host's own tool, read from an OTLP file the
    same span is an MCP call. By hand: get_alerts {state: XX} on an MCP server the trace does
    not name."""
    def t(k: str, v: Any) -> dict[str, Any]:
        return {"key": k, "type": "string", "value": v}
    span = {"traceID": "ab" * 16, "spanID": "cd" * 8, "operationName": "get_alerts.tool",
            "references": [], "startTime": 1767268802000000, "duration": 200000,
            "tags": [t("traceloop.span.kind", "tool"), t("traceloop.entity.name", "get_alerts"),
                     t("traceloop.entity.input",
                       json.dumps({"tool_name": "get_alerts", "arguments": {"state": "XX"}})),
                     t("otel.scope.name", "opentelemetry.instrumentation.mcp")],
            "logs": [], "processID": "p1"}
    data = json.dumps({"data": [{"traceID": "ab" * 16, "spans": [span], "processes": {
        "p1": {"serviceName": "agent", "tags": []}}}]}).encode()
    m = model_of(data, name="trace.json")
    assert outcomes(m) == [(otlp.UNKNOWN_MCP, "get_alerts", "completed", None)]
    inv = next(e for e in m.vcon["events"] if e["type"] == "tool-invocation")
    assert inv["body"]["arguments"] == {"state": "XX"}
