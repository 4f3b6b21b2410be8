"""vcon-view import otlp: OpenTelemetry span dumps, OTLP/JSON exports and the coding agents'
tool log events -> tool-invocation events.

The expectations for the real samples were written by hand from the raw files, before the
importer was run on them (see SAMPLES).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from viewer.cli import main
from viewer.importers import formats
from viewer.importers.otlp import claude_tool_decisions, convert
from viewer.load import load_bytes
from viewer.model.build import build_model
from viewer.model.types import Model
from viewer.pipeline import open_bytes
from viewer.report.summary import dumps

ROOT = Path(__file__).resolve().parent.parent
FIX = ROOT / "tests" / "fixtures"
AGENTS = FIX / "agents" / "otel-genai"

# What a reviewer should see, read off the raw files by hand (before running the importer):
# (operation id, server, tool, outcome, decision, finding kinds), in time order.
#
# any-agent__OPENAI_trace.json: a {"spans": [...], "final_output": ...} dump, six spans of one
# trace. invoke_agent [any_agent] is the parent of all (context); three call_llm spans (the
# model) are ignored; two execute_tool spans are the tool calls, both status ok with
# gen_ai.tool.args and gen_ai.output recorded:
#   get_current_time {"timezone": "America/New_York"} -> {"timezone": ..., "datetime":
#   "2025-09-16T08:43:13-04:00", "is_dst": true}; then write_file {"text": "2025"} -> {}.
# No decision is recorded anywhere (a span dump has none): decision None, no finding.
#
# any-agent__LANGCHAIN_trace.json: the same task under LangChain: seven spans, four call_llm,
# one invoke_agent, the same two execute_tool spans (write_file's output is "null").
SAMPLES: dict[str, list[tuple[str, str, str, str, str | None, list[str]]]] = {
    "any-agent__OPENAI_trace.json": [
        ("op-0001", "!host", "get_current_time", "completed", None, []),
        ("op-0002", "!host", "write_file", "completed", None, []),
    ],
    "any-agent__LANGCHAIN_trace.json": [
        ("op-0001", "!host", "get_current_time", "completed", None, []),
        ("op-0002", "!host", "write_file", "completed", None, []),
    ],
}
#: Spans each sample has that are not tool calls, by kind (counted as ignored, not unmapped).
SAMPLE_IGNORED = {
    "any-agent__OPENAI_trace.json": {"call_llm span": 3, "invoke_agent span": 1},
    "any-agent__LANGCHAIN_trace.json": {"call_llm span": 4, "invoke_agent span": 1},
}

# The hand-written fixtures (tests/fixtures/otlp, see SOURCES.md), expectations written from
# the documented meaning of each record before the importer was run:
#
# claude_code_logs.otlp.jsonl (collector file exporter, Claude Code logs + a metrics line + a
# truncated line): Read decided by config (standing allowed) then ran; Bash asked and approved
# once (user_temporary) and its result says success false; Write refused by the user at the
# prompt (user_reject: not run); Edit refused by a hook; github's create_issue (tool_name
# "mcp_tool", names in tool_parameters) approved for good (user_permanent) and ran; WebFetch's
# prompt dismissed (user_abort) with no call open: not run.
# mcp_tool_spans.otlp.json (one OTLP/JSON document): get-weather as an MCP client span and the
# server span it caused (same jsonrpc id 3): one operation; get-forecast a JSON-RPC error
# (-32602, no result); book-flight isError result (error.type tool_error); lookup_airport
# error.type timeout; write_report an exception event; send_email never ended.
# gemini_cli_tool_calls.otlp.jsonl: read_file accepted at the prompt and ran; run_shell_command
# rejected (never ran); write_file auto_accept ("always allow"); postgres query failed.
# codex_tool_logs.otlp.jsonl: shell approved by config then ran; shell denied by the user;
# apply_patch approved for the session by the user, then ran.
# console_spans.txt (Python ConsoleSpanExporter, pretty JSON one after another): fetch_sales
# ok with its result; render_chart status ERROR with an exception event (ValueError) and no
# result: the tool's own code raised, it failed.
HAND: dict[str, list[tuple[str, str, str, str, str | None, list[str]]]] = {
    "claude_code_logs.otlp.jsonl": [
        ("op-0001", "!host", "Read", "completed", "allowed", []),
        ("op-0002", "!host", "Bash", "failed", "permission-required", ["permission-inferred"]),
        ("op-0003", "!host", "Write", "not-performed", "permission-required", []),
        ("op-0004", "!host", "Edit", "disallowed", "disallowed", []),
        ("op-0005", "github", "create_issue", "completed", "allowed", []),
        ("op-0006", "!host", "WebFetch", "not-performed", "permission-required", []),
    ],
    "mcp_tool_spans.otlp.json": [
        ("op-0001", "weather.example.com:443", "get-weather", "completed", None, []),
        ("op-0002", "weather.example.com:443", "get-forecast", "errored", None, []),
        ("op-0003", "weather.example.com:443", "book-flight", "failed", None, []),
        ("op-0004", "!host", "lookup_airport", "timed-out", None, ["unterminated"]),
        ("op-0005", "!host", "write_report", "failed", None, []),
        ("op-0006", "!host", "send_email", "running", None, ["unterminated"]),
    ],
    "gemini_cli_tool_calls.otlp.jsonl": [
        ("op-0001", "!host", "read_file", "completed", "permission-required",
         ["permission-inferred"]),
        ("op-0002", "!host", "run_shell_command", "not-performed", "permission-required", []),
        ("op-0003", "!host", "write_file", "completed", "permission-required",
         ["permission-inferred"]),
        ("op-0004", "postgres", "query", "failed", None, []),
    ],
    "codex_tool_logs.otlp.jsonl": [
        ("op-0001", "!host", "shell", "completed", "allowed", []),
        ("op-0002", "!host", "shell", "not-performed", "permission-required", []),
        ("op-0003", "!host", "apply_patch", "completed", "permission-required",
         ["permission-inferred"]),
    ],
    "console_spans.txt": [
        ("op-0001", "!host", "fetch_sales", "completed", None, []),
        ("op-0002", "!host", "render_chart", "failed", None, []),
    ],
}
HAND_COUNTS = {  # (mapped, ignored by kind, unmapped)
    "claude_code_logs.otlp.jsonl": (9, {"claude_code.user_prompt log": 1,
                                         "claude_code.api_request log": 1, "metric": 2}, 1),
    "mcp_tool_spans.otlp.json": (7, {"invoke_agent span": 1, "chat span": 1}, 0),
    "gemini_cli_tool_calls.otlp.jsonl": (4, {"gemini_cli.user_prompt log": 1}, 0),
    "codex_tool_logs.otlp.jsonl": (5, {"codex.api_request log": 1}, 0),
    "console_spans.txt": (2, {"invoke_agent span": 1}, 0),
}
HANDS = FIX / "otlp"


# --- helpers ------------------------------------------------------------------------------------

CREATED = "2026-04-01T00:00:00.000Z"


def imported(data: bytes) -> tuple[dict[str, Any], Any, Model]:
    vcon, rep = convert(data, source_name="t", created=CREATED)
    m = build_model(load_bytes(dumps(vcon), name="imported"))
    return vcon, rep, m


def seen(m: Model) -> list[tuple[str, str | None, str | None, str, str | None, list[str]]]:
    kinds: dict[str, set[str]] = {}
    for f in m.findings:
        if f.operation_id:
            kinds.setdefault(f.operation_id, set()).add(f.kind)
    return [(o.operation_id, o.server, o.tool, o.outcome, o.decision,
             sorted(kinds.get(o.operation_id, ()))) for o in m.operations]


def errors(m: Model) -> list[Any]:
    return [d for d in m.diagnostics if d.severity == "error"]


def otlp_logs(*records: dict[str, Any], service: str = "claude-code") -> bytes:
    return json.dumps({"resourceLogs": [{
        "resource": {"attributes": [{"key": "service.name", "value": {"stringValue": service}}]},
        "scopeLogs": [{"scope": {"name": "x"}, "logRecords": list(records)}]}]}).encode()


def attrs(d: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for k, v in d.items():
        key = "boolValue" if isinstance(v, bool) else "intValue" if isinstance(v, int) \
            else "stringValue"
        out.append({"key": k, "value": {key: str(v) if key == "intValue" else v}})
    return out


def cc(name: str, t: float, **a: Any) -> dict[str, Any]:
    """A Claude Code event record as its OTLP log exporter writes it."""
    return {"timeUnixNano": str(int((1772442000 + t) * 1e9)),
            "body": {"stringValue": f"claude_code.{name}"},
            "attributes": attrs({"event.name": name, **a})}


def sdk_span(name: str, sid: int, start: str, end: str | None, **a: Any) -> dict[str, Any]:
    s: dict[str, Any] = {"name": name, "context": {"trace_id": 7, "span_id": sid},
                         "parent_id": None, "start_time": start, "attributes": a,
                         "status": {"status_code": "UNSET"}}
    if end is not None:
        s["end_time"] = end
    return s


# --- the real samples and the hand-written fixtures ------------------------------------------


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_real_samples_show_what_was_read_by_hand(name: str) -> None:
    data = (AGENTS / name).read_bytes()
    vcon, rep, m = imported(data)
    assert seen(m) == SAMPLES[name]
    assert errors(m) == []
    assert rep.ignored == SAMPLE_IGNORED[name]
    assert rep.unmapped == 0 and rep.times == "recorded"
    # the arguments and the ids are kept in the invocation's content
    inv = next(e for e in vcon["events"] if e["type"] == "tool-invocation")
    assert inv["body"]["arguments"] == {"timezone": "America/New_York"}
    assert len(inv["body"]["trace_id"]) == 32 and len(inv["body"]["span_id"]) == 16
    # the 128-bit integer trace id is read exactly (orjson would round it to a float)
    raw = json.loads(data)["spans"][1]["context"]["trace_id"]
    assert inv["body"]["trace_id"] == format(raw, "032x")
    # any-agent's gen_ai.output is the result
    res = next(e for e in vcon["events"] if e["type"] == "tool-result")
    assert res["body"]["timezone"] == "America/New_York"
    assert vcon["parties"][0]["name"] == "any_agent"


@pytest.mark.parametrize("name", sorted(HAND))
def test_hand_written_fixtures(name: str) -> None:
    vcon, rep, m = imported((HANDS / name).read_bytes())
    assert seen(m) == HAND[name]
    assert [d.code for d in m.diagnostics if d.severity in ("error", "warning")] == []
    mapped, ignored, unmapped = HAND_COUNTS[name]
    assert (rep.mapped, rep.ignored, rep.unmapped) == (mapped, ignored, unmapped)
    # every record is counted once: mapped, ignored by kind or unmapped
    prov = vcon["attachments"][0]["body"]
    assert prov["source"]["records"] == mapped + sum(ignored.values()) + unmapped


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_samples_open_directly(name: str) -> None:
    loaded = open_bytes((AGENTS / name).read_bytes(), name=name)
    m = build_model(loaded)
    assert [o.tool for o in m.operations] == ["get_current_time", "write_file"]


@pytest.mark.parametrize("name", sorted(HAND))
def test_fixtures_are_recognised_by_content(name: str) -> None:
    fmt = formats.detect((HANDS / name).read_bytes())
    assert fmt is not None and fmt.name == "otlp"


def test_not_claimed_by_otlp() -> None:
    """MCP transcripts and vCons are not OpenTelemetry."""
    from viewer.importers.otlp import sniff
    mcp = (FIX / "import_2025_flow.jsonl").read_bytes()
    assert not sniff(formats.sample(mcp))
    assert not sniff(formats.sample((FIX / "tui_small.vcon.json").read_bytes()))
    assert not sniff(formats.sample(b'{"a": 1}\n{"b": 2}\n'))
    # a name and a start time alone (a calendar, a build log) are not spans
    assert not sniff(formats.sample(b'[{"name": "standup", "start_time": "2026-03-02T09:00Z",'
                                    b' "context": {"room": 4}}]'))


# --- mapping rules ---------------------------------------------------------------------------


def test_claude_decisions_by_source() -> None:
    vcon, rep, _m = imported((HANDS / "claude_code_logs.otlp.jsonl").read_bytes())
    decisions = [e for e in vcon["events"] if e["type"] == "policy-decision"]
    standing = [e for e in decisions if e["policy_life"] == "standing"]
    assert [(e["server"], e["tool"], e["decision"]) for e in standing] == [
        ("!host", "Read", "allowed"), ("github", "create_issue", "allowed")]
    for e in standing:
        assert "operation_id" not in e and "attempt" not in e and "body" not in e
    once = [e for e in decisions if e["policy_life"] == "once"]
    assert all(e["attempt"] == 1 and e["operation"] == "tool-invocation" for e in once)
    assert all(e["inferred"] for e in decisions)
    hook = next(e for e in once if e["tool"] == "Edit")
    assert hook["reason"] == "hook" and hook["decision"] == "disallowed"
    # a refused call has no tool-invocation
    assert not [e for e in vcon["events"] if e["type"] == "tool-invocation"
                and e["tool"] in ("Write", "Edit", "WebFetch")]
    # the result log (time - duration_ms, time) and the tool_use_id in the invocation
    bash = [e for e in vcon["events"] if e.get("operation_id") == "op-0002"]
    assert [e["type"] for e in bash] == ["policy-decision", "tool-invocation", "tool-failure"]
    assert bash[1]["time"] == "2026-03-02T09:00:03.200Z" and bash[2]["time"] == \
        "2026-03-02T09:00:09.500Z"
    assert bash[1]["body"]["tool_call_id"] == "toolu_02B"
    assert bash[2]["body"]["error_type"] == "ShellError"
    assert rep.examples == ["line 5: not JSON"]


def test_mcp_client_and_server_span_are_one_operation() -> None:
    vcon, _, m = imported((HANDS / "mcp_tool_spans.otlp.json").read_bytes())
    op = m.operations[0]
    assert op.tool == "get-weather" and [list(a.states) for a in op.attempts] == [
        ["Running", "Completed"]]
    inv = vcon["events"][op.attempts[0].invocation]
    assert inv["body"]["jsonrpc_request_id"] == "3"
    assert inv["body"]["merged_span_ids"] == ["d1b2c3d4e5f60711"]
    assert inv["body"]["arguments"] == {"location": "San Francisco", "date": "2025-10-01"}
    # a span without an end time has no end event: it is shown running
    send = m.operations[5]
    assert [list(a.states) for a in send.attempts] == [["Running"]]


def test_server_span_alone_names_its_service() -> None:
    doc = json.loads((HANDS / "mcp_tool_spans.otlp.json").read_text())
    doc["resourceSpans"] = doc["resourceSpans"][1:]  # only the MCP server's own span
    _, _, m = imported(json.dumps(doc).encode())
    assert seen(m) == [("op-0001", "weather-mcp-server", "get-weather", "completed", None, [])]


def test_tool_result_log_of_a_traced_call_is_not_a_second_operation() -> None:
    span = {"resourceSpans": [{"resource": {}, "scopeSpans": [{"spans": [{
        "traceId": "01" * 16, "spanId": "02" * 8, "name": "claude_code.tool",
        "startTimeUnixNano": "1772442001000000000", "endTimeUnixNano": "1772442002000000000",
        "attributes": attrs({"span.type": "tool", "tool_name": "Read",
                             "tool_use_id": "toolu_9", "file_path": "/r/a.py"})}, {
        "traceId": "01" * 16, "spanId": "03" * 8, "parentSpanId": "02" * 8,
        "name": "claude_code.tool.blocked_on_user",
        "startTimeUnixNano": "1772442001000000000", "endTimeUnixNano": "1772442001500000000",
        "attributes": attrs({"decision": "accept", "source": "user_temporary"})}, {
        "traceId": "01" * 16, "spanId": "04" * 8, "parentSpanId": "02" * 8,
        "name": "claude_code.tool.execution",
        "startTimeUnixNano": "1772442001500000000", "endTimeUnixNano": "1772442002000000000",
        "attributes": attrs({"success": "false", "error": "ENOENT"})}]}]}]}
    logs = json.loads(otlp_logs(cc("tool_result", 2.0, tool_name="Read", tool_use_id="toolu_9",
                                   success="false", duration_ms="500")))
    data = json.dumps(span).encode() + b"\n" + json.dumps(logs).encode() + b"\n"
    vcon, rep, m = imported(data)
    assert seen(m) == [("op-0001", "!host", "Read", "failed", "permission-required",
                        ["permission-inferred"])]
    assert rep.ignored == {"claude_code.tool_result log (the call is also a span)": 1}
    inv = next(e for e in vcon["events"] if e["type"] == "tool-invocation")
    assert inv["time"] == "2026-03-02T09:00:01.500Z"  # the execution child's start
    assert inv["body"]["parameters"] == {"file_path": "/r/a.py"}
    assert inv["body"]["tool_call_id"] == "toolu_9"
    assert rep.mapped == 3
    assert errors(m) == []


def test_user_abort_cancels_the_open_call() -> None:
    span = {"resourceSpans": [{"resource": {}, "scopeSpans": [{"spans": [{
        "traceId": "01" * 16, "spanId": "02" * 8, "name": "execute_tool Bash",
        "startTimeUnixNano": "1772442001000000000",
        "attributes": attrs({"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "Bash",
                             "gen_ai.tool.call.id": "toolu_7"})}]}]}]}
    logs = otlp_logs(cc("tool_decision", 3.0, tool_name="Bash", tool_use_id="toolu_7",
                        decision="reject", source="user_abort"))
    vcon, _, m = imported(json.dumps(span).encode() + b"\n" + logs + b"\n")
    assert [e["type"] for e in vcon["events"]] == ["tool-invocation", "tool-cancel"]
    assert m.operations[0].outcome == "cancel-requested"
    assert errors(m) == []


def test_decision_and_result_join_by_tool_name_in_order_without_ids() -> None:
    data = otlp_logs(
        cc("tool_decision", 1.0, tool_name="Bash", decision="accept", source="user_temporary"),
        cc("tool_decision", 1.1, tool_name="Read", decision="accept", source="config"),
        cc("tool_result", 2.0, tool_name="Read", success="true", duration_ms="100"),
        cc("tool_result", 3.0, tool_name="Bash", success="true", duration_ms="1000"),
    )
    _vcon, _, m = imported(data)
    # op ids follow the first event of each call: the Bash decision comes first
    assert seen(m) == [
        ("op-0001", "!host", "Bash", "completed", "permission-required",
         ["permission-inferred"]),
        ("op-0002", "!host", "Read", "completed", "allowed", []),
    ]
    assert errors(m) == []


def test_result_without_a_decision_record_takes_its_decision_source() -> None:
    data = otlp_logs(cc("tool_result", 2.0, tool_name="Glob", tool_use_id="t1", success="true",
                        duration_ms="5", decision_type="accept", decision_source="config"))
    vcon, _, m = imported(data)
    assert seen(m) == [("op-0001", "!host", "Glob", "completed", "allowed", [])]
    assert m.operations[0].decision_life == "standing"
    dec = next(e for e in vcon["events"] if e["type"] == "policy-decision")
    assert dec["policy_life"] == "standing" and "config" in dec["inferred"]


def test_hook_accept_is_once_allowed() -> None:
    data = otlp_logs(
        cc("tool_decision", 1.0, tool_name="Bash", tool_use_id="a", decision="accept",
           source="hook"),
        cc("tool_result", 2.0, tool_name="Bash", tool_use_id="a", success="true",
           duration_ms="10"))
    vcon, _, m = imported(data)
    assert seen(m) == [("op-0001", "!host", "Bash", "completed", "allowed", [])]
    assert m.operations[0].decision_life == "once"
    dec = vcon["events"][0]
    assert dec["reason"] == "hook" and dec["policy_life"] == "once"


def test_sdk_jsonl_spans_with_integer_ids_and_iso_times() -> None:
    lines = [
        sdk_span("execute_tool a", 1, "2026-03-02T09:00:00Z", "2026-03-02T09:00:01Z",
                 **{"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "a"}),
        sdk_span("execute_tool mcp__fs__read", 2, "2026-03-02T09:00:02Z", None,
                 **{"gen_ai.operation.name": "execute_tool",
                    "gen_ai.tool.name": "mcp__fs__read"}),
    ]
    data = b"\n".join(json.dumps(x).encode() for x in lines) + b"\n"
    assert formats.detect(data) is not None and formats.detect(data).name == "otlp"
    vcon, _, m = imported(data)
    assert seen(m) == [("op-0001", "!host", "a", "completed", None, []),
                       ("op-0002", "fs", "read", "running", None, ["unterminated"])]
    inv = vcon["events"][0]
    assert inv["body"]["trace_id"] == "0" * 31 + "7" and inv["body"]["span_id"] == "0" * 15 + "1"


def test_missing_times_take_the_previous_record_and_say_so() -> None:
    lines = [
        sdk_span("execute_tool a", 1, "2026-03-02T09:00:00Z", "2026-03-02T09:00:01Z",
                 **{"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "a"}),
        {**sdk_span("execute_tool b", 2, "x", None, **{
            "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "b"}),
         "start_time": None},
    ]
    _, rep, m = imported(json.dumps(lines).encode())
    assert rep.times == "partial"
    assert m.operations[1].attempts[0].start == datetime(2026, 3, 2, 9, tzinfo=UTC)


def test_unknown_records_are_counted_never_fatal() -> None:
    data = (AGENTS / "any-agent__OPENAI_trace.json").read_bytes()
    doc = json.loads(data)
    doc["spans"] += [17, {"hello": "world"}, {"name": "execute_tool x", "context": "bad",
                                              "start_time": [], "attributes": []}]
    _, rep, m = imported(json.dumps(doc).encode())
    # the third names no tool in its attributes: a span, but not a tool call
    assert rep.unmapped == 2 and len(m.operations) == 2
    assert rep.ignored["span (no GenAI or MCP operation)"] == 1
    assert errors(m) == []


def test_nothing_readable_is_one_line_error() -> None:
    with pytest.raises(formats.ImportInputError):
        convert(b"hello\nworld\n", source_name="t")
    with pytest.raises(formats.ImportInputError):
        convert(b'{"vcon": "0.4.0"}', source_name="t")


# --- claude_tool_decisions -------------------------------------------------------------------


def test_claude_tool_decisions() -> None:
    got = claude_tool_decisions((HANDS / "claude_code_logs.otlp.jsonl").read_bytes())
    assert [set(d) for d in got] == [{"tool_use_id", "tool_name", "source", "decision",
                                      "time"}] * 6
    assert [(d["tool_use_id"], d["tool_name"], d["source"], d["decision"]) for d in got] == [
        ("toolu_01A", "Read", "config", "accept"),
        ("toolu_02B", "Bash", "user_temporary", "accept"),
        ("toolu_03C", "Write", "user_reject", "reject"),
        ("toolu_04D", "Edit", "hook", "reject"),
        ("toolu_05E", "mcp_tool", "user_permanent", "accept"),
        ("toolu_06F", "WebFetch", "user_abort", "reject"),
    ]
    assert got[0]["time"] == datetime(2026, 3, 2, 9, 0, 1, 300000, tzinfo=UTC)
    assert all(d["time"].tzinfo is not None for d in got)
    # absent attributes are None; other events and other agents are left out
    data = otlp_logs(cc("tool_decision", 1.0), cc("tool_result", 2.0, tool_name="Read"),
                     {"timeUnixNano": "1", "attributes": attrs({
                         "event.name": "codex.tool_decision", "tool_name": "shell"})})
    assert claude_tool_decisions(data) == [{
        "tool_use_id": None, "tool_name": None, "source": None, "decision": None,
        "time": datetime(2026, 3, 2, 9, 0, 1, tzinfo=UTC)}]
    assert claude_tool_decisions((AGENTS / "any-agent__OPENAI_trace.json").read_bytes()) == []


# --- robustness and the command line ---------------------------------------------------------

_JUNK = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda c: st.lists(c, max_size=4) | st.dictionaries(
        st.sampled_from(["name", "attributes", "spans", "resourceSpans", "resourceLogs",
                         "scopeSpans", "logRecords", "context", "start_time", "status",
                         "events", "body", "timeUnixNano", "key", "value", "x"]), c,
        max_size=5),
    max_leaves=12)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_JUNK, max_size=6), st.integers(min_value=0, max_value=6))
def test_junk_never_crashes(junk: list[Any], at: int) -> None:
    base = (HANDS / "claude_code_logs.otlp.jsonl").read_bytes().splitlines()
    lines = base[:at] + [json.dumps(j).encode() for j in junk] + base[at:]
    try:
        vcon, rep = convert(b"\n".join(lines), source_name="t")
    except formats.ImportInputError:
        return
    m = build_model(load_bytes(dumps(vcon), name="x"))  # the writer's own serialiser
    assert errors(m) == []
    prov = vcon["attachments"][0]["body"]
    assert prov["source"]["records"] == rep.mapped + sum(rep.ignored.values()) + rep.unmapped


@settings(max_examples=40, deadline=None)
@given(_JUNK)
def test_junk_spans_in_a_dump_never_crash(junk: Any) -> None:
    doc = json.loads((AGENTS / "any-agent__OPENAI_trace.json").read_text())
    doc["spans"].append(junk)
    doc["spans"].append({"name": "execute_tool x", "context": {"span_id": 5},
                         "attributes": {"gen_ai.operation.name": "execute_tool",
                                        "gen_ai.tool.name": junk}, "start_time": junk})
    vcon, _rep = convert(json.dumps(doc).encode(), source_name="t")
    m = build_model(load_bytes(dumps(vcon), name="x"))
    assert errors(m) == []


def test_deep_and_huge_values_are_written() -> None:
    deep: Any = {"a": 1}
    for _ in range(300):
        deep = {"x": deep}
    span = sdk_span("execute_tool t", 3, "2026-03-02T09:00:00Z", "2026-03-02T09:00:01Z", **{
        "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "t",
        "gen_ai.tool.call.arguments": deep, "gen_ai.tool.call.result": 10**30})
    vcon, _rep = convert(json.dumps([span]).encode(), source_name="t")
    m = build_model(load_bytes(dumps(vcon), name="x"))
    assert m.operations[0].outcome == "completed"
    assert vcon["events"][1]["body"] == str(10**30)


def test_cli_import_and_summary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = AGENTS / "any-agent__OPENAI_trace.json"
    out = tmp_path / "o.vcon.json"
    assert main(["import", "otlp", str(src), "-o", str(out)]) == 0
    vcon = json.loads(out.read_text())
    assert [e["type"] for e in vcon["events"]].count("tool-invocation") == 2
    capsys.readouterr()
    assert main(["summary", str(src), "--format", "json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert len(summary["operations"]) == 2
    # the pretty-printed concatenated form is read by import otlp
    out2 = tmp_path / "c.vcon.json"
    assert main(["import", "otlp", str(HANDS / "console_spans.txt"), "-o", str(out2)]) == 0


def test_gemini_outfile_is_left_to_the_gemini_importer() -> None:
    from viewer.importers.otlp import sniff
    rec = {"hrTime": [1772442002, 0], "attributes": {"event.name": "gemini_cli.tool_call",
                                                      "function_name": "glob"}, "_body": "x"}
    one = json.dumps(rec, indent=2).encode()
    assert not sniff(formats.sample(one))
    assert not sniff(formats.sample(one + b"\n" + one))


def test_gemini_outfile_records_one_after_another() -> None:
    """Gemini CLI's telemetry outfile: each ReadableLogRecord pretty-printed, one after
    another (hrTime, plain attributes, _body)."""
    rec = {"hrTime": [1772442002, 0], "hrTimeObserved": [1772442002, 0],
           "resource": {"_rawAttributes": [["service.name", "gemini-cli"]]},
           "instrumentationScope": {"name": "gemini-cli"},
           "attributes": {"event.name": "gemini_cli.tool_call", "function_name": "glob",
                          "function_args": "{\"pattern\": \"*.py\"}", "duration_ms": 12,
                          "success": True, "prompt_id": "p1", "tool_type": "native"},
           "_body": "Tool call: glob. Success: true. Duration: 12ms."}
    other = {**rec, "attributes": {"event.name": "gemini_cli.api_request", "model": "m"},
             "_body": "API request"}
    data = (json.dumps(rec, indent=2) + "\n" + json.dumps(other, indent=2) + "\n").encode()
    vcon, rep, m = imported(data)
    assert seen(m) == [("op-0001", "!host", "glob", "completed", None, [])]
    assert vcon["events"][0]["time"] == "2026-03-02T09:00:01.988Z"  # time - duration_ms
    assert vcon["events"][0]["body"]["arguments"] == {"pattern": "*.py"}
    assert rep.ignored == {"gemini_cli.api_request log": 1}


def test_otlp_encodings_base64_ids_enum_names_and_numbers() -> None:
    import base64
    tid = base64.b64encode(bytes.fromhex("5b8aa5a2d2c872e8321cf37308d69df2")).decode()
    sid = base64.b64encode(bytes.fromhex("051581bf3cb55c13")).decode()
    doc = {"resourceSpans": [{"resource": {"attributes": []}, "scopeSpans": [{"spans": [{
        "traceId": tid, "spanId": sid, "name": "execute_tool x", "kind": "SPAN_KIND_INTERNAL",
        "startTimeUnixNano": 1772442000000000000, "endTimeUnixNano": "1772442000500000000",
        "status": {"code": "STATUS_CODE_ERROR", "message": "boom"},
        "attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}},
                       {"key": "gen_ai.tool.name", "value": {"stringValue": "x"}},
                       {"key": "n", "value": {"intValue": 5}},
                       {"key": "gen_ai.tool.call.arguments", "value": {"kvlistValue": {
                           "values": [{"key": "q", "value": {"arrayValue": {"values": [
                               {"intValue": "1"}, {"doubleValue": 2.5},
                               {"boolValue": True}]}}}]}}}]}]}]}]}
    vcon, _, m = imported(json.dumps(doc).encode())
    assert seen(m) == [("op-0001", "!host", "x", "errored", None, [])]
    inv = vcon["events"][0]["body"]
    assert inv["trace_id"] == "5b8aa5a2d2c872e8321cf37308d69df2"
    assert inv["span_id"] == "051581bf3cb55c13"
    assert inv["arguments"] == {"q": [1, 2.5, True]}
    assert vcon["events"][1]["body"] == {"message": "boom"}


def test_log_call_does_not_start_before_its_decision() -> None:
    """time - duration_ms is whole milliseconds: a start it puts before the recorded decision
    is moved to the decision (no decision-after-invocation from rounding)."""
    data = otlp_logs(
        cc("tool_decision", 1.004, tool_name="Bash", tool_use_id="a", decision="accept",
           source="user_temporary"),
        cc("tool_result", 2.0, tool_name="Bash", tool_use_id="a", success="true",
           duration_ms="1000"))
    vcon, _, m = imported(data)
    assert seen(m) == [("op-0001", "!host", "Bash", "completed", "permission-required",
                        ["permission-inferred"])]
    assert [e["time"] for e in vcon["events"]][:2] == ["2026-03-02T09:00:01.004Z"] * 2


def test_server_of_a_tool_span() -> None:
    def one(**a: Any) -> str | None:
        span = sdk_span("execute_tool t", 1, "2026-03-02T09:00:00Z", "2026-03-02T09:00:01Z",
                        **{"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "t", **a})
        _, _, m = imported(json.dumps([span]).encode())
        return m.operations[0].server

    assert one() == "!host"
    # a function tool that called a web service is still the host's tool
    assert one(**{"url.full": "https://api.example.com/x", "server.address": "db"}) == "!host"
    assert one(**{"mcp.method.name": "tools/call", "url.full": "https://m.example/mcp"}) == \
        "https://m.example/mcp"
    assert one(**{"mcp.session.id": "s", "server.address": "m.example"}) == "m.example"
    assert one(**{"mcp.method.name": "tools/call"}) == "unknown-mcp-server"


def test_spans_without_any_time_keep_their_order() -> None:
    spans = [{"name": f"execute_tool {t}", "span_id": i, "attributes": {
        "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": t}}
        for i, t in enumerate(["a", "b"], 1)]
    vcon, rep, m = imported(json.dumps(spans).encode())
    assert rep.times == "order-only"
    assert [o.tool for o in m.operations] == ["a", "b"]
    assert [e["time"] for e in vcon["events"]] == ["1970-01-01T00:00:00.000Z",
                                                   "1970-01-01T00:00:00.001Z"]
    assert errors(m) == []


def test_codex_values_in_either_spelling() -> None:
    """Codex writes its ReviewDecision and source through Display: accept
    approvedforsession / approved_for_session and Config / config alike."""
    recs = [{"timeUnixNano": str(1772442001 * 10**9), "attributes": attrs({
        "event.name": "codex.tool_decision", "tool_name": "shell", "call_id": "c1",
        "decision": "approvedforsession", "source": "User"})},
        {"timeUnixNano": str(1772442002 * 10**9), "attributes": attrs({
            "event.name": "codex.tool_result", "tool_name": "shell", "call_id": "c1",
            "duration_ms": "10", "success": "true", "output": "ok"})}]
    vcon, _, m = imported(otlp_logs(*recs, service="codex_cli_rs"))
    assert seen(m) == [("op-0001", "!host", "shell", "completed", "permission-required",
                        ["permission-inferred"])]
    assert [e.get("policy_life") for e in vcon["events"]][:2] == ["once", "standing"]


def test_any_agent_tool_error_is_a_failure_with_its_output() -> None:
    """any-agent marks a tool whose output reads 'Error calling tool: ...' with status ERROR
    (description = the output): the tool answered with an error, so tool-failure."""
    doc = json.loads((AGENTS / "any-agent__OPENAI_trace.json").read_text())
    span = doc["spans"][3]  # execute_tool write_file
    span["status"] = {"status_code": "error",
                      "description": "Error calling tool: disk full"}
    span["attributes"]["gen_ai.output"] = "Error calling tool: disk full"
    vcon, _, m = imported(json.dumps(doc).encode())
    assert [(o.tool, o.outcome) for o in m.operations] == [
        ("get_current_time", "completed"), ("write_file", "failed")]
    fail = next(e for e in vcon["events"] if e["type"] == "tool-failure")
    assert fail["body"] == {"message": "Error calling tool: disk full",
                            "result": "Error calling tool: disk full"}


def test_claude_code_import_reads_decisions_through_claude_tool_decisions(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """import claude-code FILE --otel LOGS: the Claude Code importer gets the decisions from
    claude_tool_decisions (none of these ids is in this transcript: counted, not joined)."""
    out = tmp_path / "cc.vcon.json"
    transcript = FIX / "agents" / "claude-code-transcript" / "spotter__short.jsonl"
    code = main(["import", "claude-code", str(transcript), "--otel",
                 str(HANDS / "claude_code_logs.otlp.jsonl"), "-o", str(out)])
    assert code == 0 and out.exists()
    assert "6 OTel tool_decision event(s)" in capsys.readouterr().err


def _chat(sid: str, start: int, end: int, **a: Any) -> dict[str, Any]:
    """A chat span as the GenAI conventions write it (times in seconds after 08:00:00)."""
    base = 1767600000
    return {"traceId": "5b8efff798038103d269b633813fc60c", "spanId": sid, "name": "chat m",
            "kind": 3, "startTimeUnixNano": str((base + start) * 10**9),
            "endTimeUnixNano": str((base + end) * 10**9),
            "attributes": attrs({"gen_ai.operation.name": "chat", **a}), "status": {}}


def test_calls_asked_and_answered_in_chat_messages_are_operations() -> None:
    """Instrumentations that trace only the model (no execute_tool span) still record a tool
    call whole: the model's answer asks for it (gen_ai.output.messages, a ToolCallRequestPart
    {type: tool_call, id, name, arguments}), and the next request carries its answer
    (gen_ai.input.messages, a tool message with a ToolCallResponsePart {type:
    tool_call_response, id, response}); every later request repeats the history. The older
    events say the same as log records: gen_ai.choice (message.tool_calls[].function) and
    gen_ai.tool.message ({id, content}). Those calls were dropped (a warning said the recording
    did not say whether they ran). What a reviewer should see, by hand:
      op-0001 !host/get_weather {location: Paris}: invoked 08:00:01 (span 1 ends: the model
        asked), tool-result "rainy, 57F" at 08:00:03 (span 2 starts: the answer was sent),
        both with `inferred`; span 3 repeats the history: no second operation;
      op-0002 !host/lookup {q: x} from the log events: invoked 08:00:10, result "42" 08:00:11;
      send_mail (asked in span 3, never answered): no operation, the warning names it;
      get_time has an execute_tool span (call_t) and an answer: one operation, from its span,
      with no `inferred`."""
    msgs_out = [{"role": "assistant", "parts": [
        {"type": "tool_call", "id": "call_w", "name": "get_weather",
         "arguments": {"location": "Paris"}},
        {"type": "tool_call", "id": "call_t", "name": "get_time", "arguments": {}}],
        "finish_reason": "tool_call"}]
    history = [{"role": "user", "parts": [{"type": "text", "content": "weather?"}]},
               *msgs_out,
               {"role": "tool", "parts": [{"type": "tool_call_response", "id": "call_w",
                                           "response": "rainy, 57F"}]},
               {"role": "tool", "parts": [{"type": "tool_call_response", "id": "call_t",
                                           "response": "noon"}]}]
    spans = [
        _chat("a000000000000001", 0, 1, **{"gen_ai.output.messages": json.dumps(msgs_out)}),
        _chat("a000000000000002", 3, 4, **{"gen_ai.input.messages": json.dumps(history)}),
        _chat("a000000000000003", 5, 6, **{
            "gen_ai.input.messages": json.dumps(history),
            "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": [
                {"type": "tool_call", "id": "call_m", "name": "send_mail",
                 "arguments": {}}]}])}),
        {**_chat("a000000000000004", 2, 3, **{"gen_ai.operation.name": "execute_tool",
                                              "gen_ai.tool.name": "get_time",
                                              "gen_ai.tool.call.id": "call_t"}),
         "name": "execute_tool get_time"},
    ]
    logs = [
        {"timeUnixNano": str((1767600000 + 10) * 10**9),
         "attributes": attrs({"event.name": "gen_ai.choice"}),
         "body": {"kvlistValue": {"values": [
             {"key": "index", "value": {"intValue": "0"}},
             {"key": "message", "value": {"kvlistValue": {"values": [
                 {"key": "role", "value": {"stringValue": "assistant"}},
                 {"key": "tool_calls", "value": {"arrayValue": {"values": [{"kvlistValue": {
                     "values": [
                         {"key": "id", "value": {"stringValue": "call_l"}},
                         {"key": "type", "value": {"stringValue": "function"}},
                         {"key": "function", "value": {"kvlistValue": {"values": [
                             {"key": "name", "value": {"stringValue": "lookup"}},
                             {"key": "arguments", "value": {"stringValue": '{"q": "x"}'}}]}}},
                     ]}}]}}}]}}}]}}},
        {"timeUnixNano": str((1767600000 + 11) * 10**9),
         "attributes": attrs({"event.name": "gen_ai.tool.message"}),
         "body": {"kvlistValue": {"values": [
             {"key": "content", "value": {"stringValue": "42"}},
             {"key": "id", "value": {"stringValue": "call_l"}}]}}},
    ]
    data = json.dumps({
        "resourceSpans": [{"resource": {"attributes": attrs({"service.name": "agent"})},
                           "scopeSpans": [{"scope": {"name": "x"}, "spans": spans}]}],
        "resourceLogs": [{"resource": {"attributes": attrs({"service.name": "agent"})},
                          "scopeLogs": [{"scope": {"name": "x"}, "logRecords": logs}]}],
    }).encode()
    vcon, rep, m = imported(data)
    assert errors(m) == []
    assert [(o.tool, o.outcome) for o in m.operations] == [
        ("get_weather", "completed"), ("get_time", "completed"), ("lookup", "completed")]
    ev = [(e["type"], e["time"][11:19], e.get("tool"), e.get("body"), "inferred" in e)
          for e in vcon["events"]]
    assert ev[0] == ("tool-invocation", "08:00:01", "get_weather",
                     {"arguments": {"location": "Paris"}, "tool_call_id": "call_w"}, True)
    assert ("tool-result", "08:00:03", None, "rainy, 57F", True) in ev
    assert ("tool-invocation", "08:00:10", "lookup",
            {"arguments": {"q": "x"}, "tool_call_id": "call_l"}, True) in ev
    assert ("tool-result", "08:00:11", None, "42", True) in ev
    time_inv = next(e for e in vcon["events"] if e.get("tool") == "get_time")
    assert "inferred" not in time_inv
    assert any("('send_mail')" in w for w in rep.warnings)
    # the asking and the answering records are mapped; span 3 only repeats them
    assert rep.mapped == 5 and rep.ignored == {"chat span": 1}


def test_an_answered_call_a_tool_span_records_without_its_id_is_not_shown_twice() -> None:
    """A framework's execute_tool span may not carry the call id the model's messages use.
    By hand: get_weather asked (call_w) and answered in the chat messages, and one
    execute_tool get_weather span with no call id: one operation, the span's."""
    out = [{"role": "assistant", "parts": [{"type": "tool_call", "id": "call_w",
                                             "name": "get_weather", "arguments": {}}]}]
    back = [*out, {"role": "tool", "parts": [{"type": "tool_call_response", "id": "call_w",
                                               "response": "sun"}]}]
    spans = [_chat("a000000000000001", 0, 1, **{"gen_ai.output.messages": json.dumps(out)}),
             {**_chat("a000000000000002", 1, 2, **{"gen_ai.operation.name": "execute_tool",
                                                   "gen_ai.tool.name": "get_weather"}),
              "name": "execute_tool get_weather"},
             _chat("a000000000000003", 3, 4, **{"gen_ai.input.messages": json.dumps(back)})]
    data = json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}).encode()
    vcon, rep, m = imported(data)
    assert [(o.tool, o.outcome) for o in m.operations] == [("get_weather", "completed")]
    assert not any("inferred" in e for e in vcon["events"])
    assert not any("asked for" in w for w in rep.warnings)


def test_older_tool_attribute_names_and_the_tool_exception_event() -> None:
    """Instrumentations written before gen_ai.tool.call.arguments / .result named them
    gen_ai.tool.input / gen_ai.tool.output (Sentry's SDK, for one); the GenAI conventions'
    own event for a tool that raised is gen_ai.execute_tool.exception. By hand: get_weather
    completed with its arguments {"city": "Paris"} and result "sunny" (they were left out);
    parse raised ValueError (the event, no span status): the tool's own code raised, so it
    ran and failed (tool-failure, "failed"), the exception in its content (it was shown
    completed, then errored)."""
    spans = [
        {**_chat("a000000000000001", 0, 1, **{
            "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_weather",
            "gen_ai.tool.input": '{"city": "Paris"}', "gen_ai.tool.output": "sunny"}),
         "name": "execute_tool get_weather"},
        {**_chat("a000000000000002", 2, 3, **{
            "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "parse"}),
         "name": "execute_tool parse",
         "events": [{"name": "gen_ai.execute_tool.exception",
                     "timeUnixNano": str((1767600000 + 3) * 10**9),
                     "attributes": attrs({"exception.type": "ValueError",
                                          "exception.message": "bad input"})}]},
    ]
    data = json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}).encode()
    vcon, _rep, m = imported(data)
    assert errors(m) == []
    assert [(o.tool, o.outcome) for o in m.operations] == [("get_weather", "completed"),
                                                           ("parse", "failed")]
    ev = vcon["events"]
    assert ev[0]["body"]["arguments"] == {"city": "Paris"} and ev[1]["body"] == "sunny"
    assert ev[3]["type"] == "tool-failure"
    assert ev[3]["body"]["exception"]["exception.type"] == "ValueError"


def _raised(sid: str, start: int, tool: str, etype: str | None, *, event: bool = True,
            **a: Any) -> dict[str, Any]:
    """An execute_tool span whose tool call ended in an exception, as the OpenTelemetry
    Python SDK's Span.record_exception and the GenAI conventions write it: status ERROR with
    the message, error.type the exception's class, an 'exception' event {exception.type:
    type(e).__name__, exception.message} (e.g. strands telemetry/tracer.py _end_span:
    set_status(ERROR, str(error)); record_exception(error)). No result."""
    span = {**_chat(sid, start, start + 1, **{"gen_ai.operation.name": "execute_tool",
                                              "gen_ai.tool.name": tool, **a}),
            "name": f"execute_tool {tool}", "status": {"code": 2, "message": "boom"}}
    if etype is not None:
        span["attributes"] += attrs({"error.type": etype})
        if event:
            span["events"] = [{"name": "exception",
                               "timeUnixNano": str((1767600000 + start + 1) * 10**9),
                               "attributes": attrs({"exception.type": etype.rsplit(".")[-1],
                                                    "exception.message": "boom"})}]
    return span


def test_a_tool_that_raised_failed_a_call_refused_before_it_ran_errored() -> None:
    """The draft: tool-failure, 'the tool performed or attempted the operation and reported
    an error'; tool-error, 'the request failed at the protocol level (e.g. an unknown tool or
    invalid arguments)'. A local tool's execute_tool span (status ERROR, error.type and an
    exception event naming the exception, no result) says the tool's own code raised: it
    ran and failed. Before, every such span was a tool-error ('errored'). By hand:
    read_csv raised FileNotFoundError (error.type builtins.FileNotFoundError): failed;
    charge raised ValueError, recorded as its exception event only: failed; add's
    arguments were refused (pydantic_core._pydantic_core.ValidationError: its schema
    checked them before the function ran): errored; lookup's call was refused by the
    OpenAI Agents SDK (ModelBehaviorError: invalid JSON input, or a tool not found):
    errored; so is weather's, refused by the Vercel AI SDK (vercel/ai packages/ai errors:
    the JavaScript name AI_InvalidToolInputError, 'Invalid input for tool ...'), and
    convert's, by Semantic Kernel (microsoft/semantic-kernel python/semantic_kernel/
    functions/kernel_function_from_method.py gather_function_parameters: a required
    argument missing or not parseable raises FunctionExecutionException before the method
    runs; kernel_function.py _handle_exception: error.type type(e).__name__); ping
    status ERROR alone (no error.type, no exception event: the span does not say whether
    the tool ran): errored, as before; the MCP tools/call span answered with JSON-RPC
    -32602 (the protocol's error) and one that raised McpError: errored, as before."""
    mcp = {"mcp.method.name": "tools/call", "server.address": "files.example.com",
           "server.port": 443}
    spans = [
        _raised("b000000000000001", 0, "read_csv", "builtins.FileNotFoundError"),
        {**_raised("b000000000000002", 2, "charge", None),
         "events": [{"name": "exception", "timeUnixNano": str((1767600000 + 3) * 10**9),
                     "attributes": attrs({"exception.type": "ValueError",
                                          "exception.message": "card declined"})}]},
        _raised("b000000000000003", 4, "add", "pydantic_core._pydantic_core.ValidationError"),
        _raised("b000000000000004", 6, "lookup", "agents.exceptions.ModelBehaviorError"),
        _raised("b000000000000008", 14, "weather", "AI_InvalidToolInputError"),
        _raised("b000000000000009", 16, "convert", "FunctionExecutionException"),
        _raised("b000000000000005", 8, "ping", None),
        _raised("b000000000000006", 10, "read", "-32602", event=False, **mcp),
        _raised("b000000000000007", 12, "write", "mcp.shared.exceptions.McpError", **mcp),
    ]
    data = json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}).encode()
    vcon, _rep, m = imported(data)
    assert [(o.server, o.tool, o.outcome) for o in m.operations] == [
        ("!host", "read_csv", "failed"), ("!host", "charge", "failed"),
        ("!host", "add", "errored"), ("!host", "lookup", "errored"),
        ("!host", "ping", "errored"), ("files.example.com:443", "read", "errored"),
        ("files.example.com:443", "write", "errored"), ("!host", "weather", "errored"),
        ("!host", "convert", "errored")]
    ends = [e for e in vcon["events"] if e["type"] != "tool-invocation"]
    assert [e["type"] for e in ends] == ["tool-failure", "tool-failure"] + ["tool-error"] * 7
    assert ends[0]["body"]["error_type"] == "builtins.FileNotFoundError"
    assert ends[1]["body"]["exception"]["exception.type"] == "ValueError"
    assert errors(m) == []


def test_smolagents_arguments_refused_errored_its_tools_exception_failed() -> None:
    """smolagents (huggingface/smolagents src/smolagents/agents.py @ 00663986…, Apache-2.0,
    MultiStepAgent.execute_tool_call): the tool's arguments are checked by
    validate_tool_arguments before the tool is called, and a ValueError / TypeError there is
    raised as AgentToolCallError (other versions also raise it for a tool not found): the call
    was refused before the tool ran. AgentToolExecutionError wraps the tool's own exception
    ("Error executing tool ...") but is also what an unknown tool name raises, so the class
    alone does not say the tool did not run: it stays a tool-failure. A span around the call
    records either as the OpenTelemetry SDK's record_exception does (error.type the class's
    qualified name, an exception event of type(e).__qualname__). By hand: search's
    arguments refused (smolagents.utils.AgentToolCallError): errored (before: failed);
    fetch raised inside the tool (AgentToolExecutionError): failed, as before."""
    spans = [_raised("c000000000000001", 0, "search", "smolagents.utils.AgentToolCallError"),
             _raised("c000000000000002", 2, "fetch",
                     "smolagents.utils.AgentToolExecutionError")]
    data = json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}).encode()
    _vcon, _rep, m = imported(data)
    assert [(o.tool, o.outcome) for o in m.operations] == [
        ("search", "errored"), ("fetch", "failed")]
    assert errors(m) == []


def test_any_agent_model_requests_without_tool_spans_are_named() -> None:
    """any-agent__LLAMA_INDEX_trace.json (a real integration-test run, mozilla-ai/any-agent):
    four spans, three call_llm and invoke_agent, and no execute_tool span. By hand: the first
    call_llm's output (any-agent's older ``genai.output``, LlamaIndex's message with
    ``additional_kwargs.tool_calls``) asks for get_current_time {"timezone":
    "America/New_York"} (call_zJg5…), the second for write_file {"text": "2025"}
    (call_14BV…); the last answers "… I have written this value to a file.". No span records
    either call running and no later request carries an answer: no operation, and the import
    names both (it said "the recording has no tool call")."""
    _, rep, m = imported((AGENTS / "any-agent__LLAMA_INDEX_trace.json").read_bytes())
    assert m.operations == () and errors(m) == []
    assert rep.ignored == {"call_llm span": 3, "invoke_agent span": 1}
    said = " | ".join(rep.warnings)
    assert "2 tool call(s) the model asked for ('get_current_time', 'write_file')" in said
    assert "has no tool call" not in said
    # the other any-agent output shapes of a model's request: the OpenAI list (AGNO, with
    # ids), any-agent's own {"tool.name", "tool.args"} (smolagents, LangChain) and TinyAgent's
    # {"name", "arguments"}
    for output in ('[{"id": "call_a", "type": "function", "function": {"name": "get_time", '
                   '"arguments": "{}"}}]',
                   '[{"tool.name": "get_time", "tool.args": "{}"}]',
                   '[{"name": "get_time", "arguments": "{}"}]'):  # TinyAgent
        doc = json.loads((AGENTS / "any-agent__LLAMA_INDEX_trace.json").read_bytes())
        doc["spans"][0]["attributes"]["genai.output"] = output
        _, rep, _ = imported(json.dumps(doc).encode())
        assert any("('get_time', 'write_file')" in w for w in rep.warnings), rep.warnings
    # a model request that a tool span records is not named (the real samples)
    for name in SAMPLES:
        _, rep, _ = imported((AGENTS / name).read_bytes())
        assert not any("asked for" in w for w in rep.warnings)


def test_any_agent_older_genai_output_is_the_tool_result() -> None:
    """any-agent's traces of May 2025 (AGNO_trace.json, LLAMA_INDEX_trace.json at
    0020b6a7…) name the output ``genai.output``: an execute_tool span's result is kept as the
    newer ``gen_ai.output`` is (AGNO's get_current_time answered {"timezone": ...,
    "datetime": "2025-05-21T07:18:06-04:00", ...}; it was dropped)."""
    doc = json.loads((AGENTS / "any-agent__OPENAI_trace.json").read_bytes())
    for sp in doc["spans"]:
        a = sp["attributes"]
        if "gen_ai.output" in a:
            a["genai.output"] = a.pop("gen_ai.output")
    vcon, _, m = imported(json.dumps(doc).encode())
    assert [o.outcome for o in m.operations] == ["completed", "completed"]
    res = next(e for e in vcon["events"] if e["type"] == "tool-result")
    assert res["body"]["timezone"] == "America/New_York"


def test_tool_span_without_arguments_takes_them_from_the_models_request() -> None:
    """any-agent's AGNO trace (mozilla-ai/any-agent tests/assets/AGNO_trace.json @ 0020b6a7…,
    a real integration-test run): its execute_tool spans carry gen_ai.tool.call.id and the
    output but no gen_ai.tool.args; the arguments are in the call_llm span just before, whose
    genai.output is the OpenAI tool_calls list with the same id (write_file {"text":
    "2025"}). A reviewer saw write_file invoked with no arguments at all (only ids): what was
    written was in the file but not shown. By hand: each invocation has the arguments the
    model asked for under that call id, and says where they come from."""
    doc = json.loads((AGENTS / "any-agent__OPENAI_trace.json").read_bytes())
    tools = [sp for sp in doc["spans"] if sp["attributes"].get("gen_ai.operation.name")
             == "execute_tool"]
    llm = [sp for sp in doc["spans"] if sp["attributes"].get("gen_ai.operation.name")
           == "call_llm"]
    for i, (sp, args) in enumerate(zip(tools, ('{"timezone":"America/New_York"}',
                                               '{"text":"2025"}'), strict=True)):
        a = sp["attributes"]
        a.pop("gen_ai.tool.args", None)
        a["gen_ai.tool.call.id"] = f"call_{i}"
        llm[i]["attributes"]["gen_ai.output"] = json.dumps([{
            "id": f"call_{i}", "type": "function",
            "function": {"name": a["gen_ai.tool.name"], "arguments": args}}])
    vcon, _, m = imported(json.dumps(doc).encode())
    assert [(o.tool, o.outcome) for o in m.operations] == [
        ("get_current_time", "completed"), ("write_file", "completed")]
    inv = [e for e in vcon["events"] if e["type"] == "tool-invocation"]
    assert [e["body"]["arguments"] for e in inv] == [{"timezone": "America/New_York"},
                                                     {"text": "2025"}]
    assert all("model" in e["inferred"] and "call id" in e["inferred"] for e in inv)
    assert errors(m) == []
    # a span that records its own arguments keeps them, and says nothing is inferred
    vcon, _, _ = imported((AGENTS / "any-agent__OPENAI_trace.json").read_bytes())
    inv = [e for e in vcon["events"] if e["type"] == "tool-invocation"]
    assert inv[1]["body"]["arguments"] == {"text": "2025"}
    assert not any("inferred" in e for e in inv)


def _maf_span(name: str, sid: str, end: str | None, attrs_: dict[str, Any]) -> dict[str, Any]:
    """A span as Microsoft Agent Framework's sample printed it (ConsoleSpanExporter form)."""
    return {"name": name, "context": {"trace_id": "0x4ae695eb4bb65a49273c6751bfa1fea4",
                                      "span_id": sid, "trace_state": "[]"},
            "kind": "SpanKind.INTERNAL", "parent_id": "0xbc84bbd8a51ca633",
            "start_time": "2026-03-01T20:47:19.503489Z", "end_time": end,
            "status": {"status_code": "UNSET"}, "attributes": attrs_, "events": [],
            "links": [], "resource": {"attributes": {"service.name": "python-ai-engine"}}}


def test_a_span_printed_twice_is_one_call() -> None:
    """Josh-Weston/microsoft-agent-framework-samples traces.jsonl @ e595bd1c… (a real run of
    Microsoft Agent Framework, pretty-printed spans one after another) prints every span twice
    under the same trace and span id: some twice identical (execute_tool get_weather,
    call_aqzx…), some first with end_time null and then ended (the chat spans). A reviewer saw
    two get_weather calls where the agent made one, and with a start-only copy a phantom
    "running, unterminated" call. By hand: one operation per (trace id, span id), from its
    most complete copy (the ended one), and the import says copies were dropped."""
    tool = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_weather",
            "gen_ai.tool.call.id": "call_aqzxlDKuD2zwZGDD1WsgggZJ",
            "gen_ai.tool.type": "function"}
    ended = _maf_span("execute_tool get_weather", "0x79f9c23f2223c786",
                      "2026-03-01T20:47:19.503532Z", tool)
    started = {**ended, "end_time": None}
    other = _maf_span("execute_tool get_weather", "0x79f9c23f2223c787",
                      "2026-03-01T20:47:19.603532Z", {**tool, "gen_ai.tool.call.id": "c2"})
    for copies in ([ended, ended], [started, ended], [ended, started]):
        text = "\n\n".join(json.dumps(s, indent=4) for s in [*copies, other]) + "\n"
        _, rep, m = imported(text.encode())
        assert [(o.tool, o.outcome) for o in m.operations] == [
            ("get_weather", "completed"), ("get_weather", "completed")], copies
        assert [f.kind for f in m.findings] == []
        assert rep.ignored == {"duplicate span copy (same trace and span id)": 1}
        assert any("1 span(s) recorded more than once" in w for w in rep.warnings)
        assert errors(m) == []


def test_two_different_spans_under_one_span_id_are_both_shown() -> None:
    """The dedup above reads copies of one span as one. Two spans that share a trace and span
    id but not their name and start (a buggy or hand-made exporter reusing an id) are two
    recorded calls, not copies: neither may vanish. Reviewer: before, `rm` (start 19.50)
    disappeared behind a later `ls` with the same ids, leaving one call and an info line."""
    rm = _maf_span("execute_tool rm", "0x79f9c23f2223c786", "2026-03-01T20:47:19.503532Z",
                   {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "rm"})
    ls = {**_maf_span("execute_tool ls", "0x79f9c23f2223c786", "2026-03-01T20:47:29.503532Z",
                      {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "ls"}),
          "start_time": "2026-03-01T20:47:29.403489Z"}
    text = "\n\n".join(json.dumps(s, indent=4) for s in [rm, ls]) + "\n"
    _, rep, m = imported(text.encode())
    assert [(o.tool, o.outcome) for o in m.operations] == [("rm", "completed"),
                                                          ("ls", "completed")]
    assert "duplicate span copy (same trace and span id)" not in rep.ignored


def _pyd_tool(deferral: str | None, *, v2: bool, span_id: int = 5, start: int = 4,
              end: int = 6, result: Any = None) -> dict[str, Any]:
    """A pydantic-ai tool span as its own tests snapshot it (pydantic/pydantic-ai
    tests/test_logfire.py, test_deferral_*: Logfire's exported_spans_as_dict), with the
    status those tests name (version 2: ERROR with an exception event; version 5: UNSET)."""
    a: dict[str, Any] = {"gen_ai.tool.name": "my_tool",
                         "gen_ai.tool.call.id": "pyd_ai_tool_call_id__my_tool",
                         "logfire.msg": "running tool: my_tool", "logfire.span_type": "span"}
    a["tool_arguments" if v2 else "gen_ai.tool.call.arguments"] = {"x": 0}
    if result is not None:
        a["tool_response" if v2 else "gen_ai.tool.call.result"] = result
    span: dict[str, Any] = {
        "name": "running tool" if v2 else "execute_tool my_tool",
        "context": {"trace_id": 1, "span_id": span_id, "is_remote": False},
        "parent": {"trace_id": 1, "span_id": 1, "is_remote": False},
        "start_time": start * 10**9, "end_time": end * 10**9, "attributes": a}
    if deferral:
        a["pydantic_ai.tool.deferral.name"] = deferral
        a["pydantic_ai.tool.deferral.metadata"] = {"task_id": "task-123"}
        if v2:
            span["status"] = {"status_code": "ERROR"}
            span["events"] = [{"name": "exception", "timestamp": 5 * 10**9, "attributes": {
                "exception.type": f"pydantic_ai.exceptions.{deferral}",
                "exception.message": "", "exception.escaped": "True"}}]
    return span


def test_pydantic_ai_deferred_tool_calls_are_not_results_or_errors() -> None:
    """pydantic-ai marks a tool call that was deferred rather than executed with
    pydantic_ai.tool.deferral.name: ApprovalRequired (the tool asked for approval) or
    CallDeferred (it is to be run outside the agent). Its own tests (pydantic/pydantic-ai
    tests/test_logfire.py, test_deferral_call_deferred_v2/v5, test_deferral_approval_required_
    v2/v5) show the span: version 2 ends it ERROR with an exception event, version 5 leaves it
    UNSET with no result. Before, a reviewer saw the v2 calls as 'errored' (the tool did not
    fail) and the v5 calls as 'completed' (nothing ran to completion). By hand:
      ApprovalRequired: a permission-required decision when it was deferred, no run (what
        was asked, {x: 0}, kept); approved and resumed (a later span, same call id, that ran):
        the same operation, decision then the run and its result;
      CallDeferred: invoked, then tool-pending when deferred (to be completed later, outside
        the agent; no result in the trace), saying why."""
    for v2 in (True, False):
        _, _, m = imported(json.dumps([_pyd_tool("ApprovalRequired", v2=v2)]).encode())
        assert [(o.tool, o.decision, o.outcome) for o in m.operations] == [
            ("my_tool", "permission-required", m.operations[0].outcome)]
        assert m.operations[0].outcome not in ("completed", "errored", "failed")
        assert errors(m) == []
        vcon, _, m = imported(json.dumps([_pyd_tool("CallDeferred", v2=v2)]).encode())
        types = [e["type"] for e in vcon["events"]]
        assert types == ["tool-invocation", "tool-pending"], (v2, types)
        assert "CallDeferred" in vcon["events"][1]["inferred"]
        assert vcon["events"][1]["body"] == {"deferral": "CallDeferred",
                                             "metadata": {"task_id": "task-123"}}
        assert vcon["events"][0]["body"]["arguments"] == {"x": 0}
        assert m.operations[0].outcome not in ("completed", "errored", "failed")
        # approved, then resumed: the second span of the same call ran and answered
        spans = [_pyd_tool("ApprovalRequired", v2=v2),
                 _pyd_tool(None, v2=v2, span_id=9, start=8, end=9, result=1)]
        vcon, _, m = imported(json.dumps(spans).encode())
        assert [(o.tool, o.decision, o.outcome) for o in m.operations] == [
            ("my_tool", "permission-required", "completed")]
        assert [e["type"] for e in vcon["events"]] == [
            "policy-decision", "tool-invocation", "tool-result"]
        assert errors(m) == []


def test_pydantic_ai_invalid_arguments_are_an_error_before_the_tool_ran() -> None:
    """pydantic-ai's span for a tool call whose arguments failed validation (pydantic/
    pydantic-ai capabilities/instrumentation.py on_tool_validate_error; tests/test_logfire.py
    test_tool_argument_validation_failure_emits_span): execute_tool, logfire.msg 'invalid
    tool call: double', pydantic_ai.tool.failure_stage 'validation' ("the tool never ran"),
    status ERROR, an exception event and the retry prompt sent to the model as the result;
    the model's corrected call is a second span that ran. Before, a reviewer saw the first as
    'failed' (tool-failure: the tool attempted it and reported an error). By hand: a
    tool-error (the request was refused before the tool: the retry prompt as its detail),
    then the second call completed with 4."""
    bad = _pyd_tool(None, v2=False, span_id=5, start=4, end=5,
                    result="1 validation error: x: int_parsing\n\nFix the errors and try again.")
    bad["attributes"].update({"logfire.msg": "invalid tool call: double",
                              "pydantic_ai.tool.failure_stage": "validation",
                              "gen_ai.tool.call.arguments": {"x": "bad"}})
    bad["status"] = {"status_code": "ERROR"}
    bad["events"] = [{"name": "exception", "timestamp": 5 * 10**9, "attributes": {
        "exception.type": "pydantic_core._pydantic_core.ValidationError"}}]
    good = _pyd_tool(None, v2=False, span_id=7, start=6, end=7, result="4")
    good["attributes"]["gen_ai.tool.call.id"] = "call_2"
    vcon, _, m = imported(json.dumps([bad, good]).encode())
    assert [e["type"] for e in vcon["events"]] == [
        "tool-invocation", "tool-error", "tool-invocation", "tool-result"]
    err = vcon["events"][1]
    assert "validation" in err["inferred"]
    assert "int_parsing" in json.dumps(err["body"])
    assert [o.outcome for o in m.operations][1] == "completed"
    assert errors(m) == []


def _agents_fn(span_id: str, start: int, end: int, **a: Any) -> dict[str, Any]:
    """Logfire's span of an OpenAI Agents SDK function tool (logfire.instrument_openai_agents:
    'Function: {name}', the SDK's FunctionSpanData as attributes), as OTLP/JSON."""
    base = 1741608580
    return {"traceId": "0" * 31 + "1", "spanId": span_id, "parentSpanId": "0000000000000003",
            "name": "Function: {name}", "kind": 1,
            "startTimeUnixNano": str((base + start) * 10**9),
            "endTimeUnixNano": str((base + end) * 10**9),
            "attributes": attrs({"logfire.msg_template": "Function: {name}",
                                 "logfire.span_type": "span", "gen_ai.system": "openai",
                                 "mcp_data": "null", **a}), "status": {}}


def test_logfire_openai_agents_function_spans_are_tool_calls() -> None:
    """pydantic/logfire tests/otel_integrations/test_openai_agents.py @ 0892cadd… (the
    producer's own snapshot): the OpenAI Agents SDK's function tool call is a span 'Function:
    {name}' with attributes name 'random_number', input '{}', output '4', mcp_data 'null',
    gen_ai.system 'openai' and no gen_ai.operation.name. The SDK records a tool that raised as
    the span's error {message: 'Error running tool (non-fatal)', data: {tool_name, error}}
    (openai-agents function_schema / tool.py) with the message the model got as the output,
    and 'Tool execution cancelled' for a cancelled one; an MCP tool's mcp_data names its
    server. Before, a reviewer saw 'No operations' and 'the recording has no tool call'. By
    hand: random_number {} -> 4 completed; fetch_page {url} failed with the SDK's error and
    the output the model got; slow cancelled; github's create_issue on server 'github'."""
    spans = [
        _agents_fn("0000000000000007", 0, 1, name="random_number", input="{}", output="4"),
        _agents_fn("0000000000000008", 2, 3, name="fetch_page", input='{"url": "http://x"}',
                   output="An error occurred while running the tool. Error: 404",
                   error=json.dumps({"message": "Error running tool (non-fatal)",
                                     "data": {"tool_name": "fetch_page", "error": "404"}})),
        _agents_fn("0000000000000009", 4, 5, name="slow", input="{}",
                   error=json.dumps({"message": "Tool execution cancelled", "data": None})),
        _agents_fn("000000000000000a", 6, 7, name="create_issue", input='{"title": "t"}',
                   output='{"number": 7}', mcp_data=json.dumps({"server": "github"})),
    ]
    data = json.dumps({"resourceSpans": [{"resource": {"attributes": attrs(
        {"service.name": "agents-app"})}, "scopeSpans": [{"scope": {"name": "x"},
                                                         "spans": spans}]}]}).encode()
    vcon, rep, m = imported(data)
    assert [(o.server, o.tool, o.outcome) for o in m.operations] == [
        ("!host", "random_number", "completed"), ("!host", "fetch_page", "failed"),
        ("!host", "slow", "cancel-requested"), ("github", "create_issue", "completed")]
    ev = vcon["events"]
    assert ev[0]["body"]["arguments"] == {} and ev[1]["body"] == "4"
    assert ev[2]["body"]["arguments"] == {"url": "http://x"}
    assert ev[3]["type"] == "tool-failure"
    assert ev[3]["body"]["error"]["data"]["error"] == "404"
    assert ev[3]["body"]["result"].startswith("An error occurred")
    assert rep.mapped == 4 and errors(m) == []
    assert not any("no tool call" in w for w in rep.warnings)


def test_openai_agents_native_span_export_is_read_not_taken_for_mcp() -> None:
    """The OpenAI Agents SDK's own trace records (Span.export(): {object: 'trace.span', id,
    trace_id, parent_id, started_at, ended_at, span_data: {type, ...}, error}, and {object:
    'trace'}; openai/openai-agents-python src/agents/tracing/spans.py, what its
    ConsoleSpanExporter and file processors write, one per line or a batch list per line).
    Before, such a file was taken for an MCP JSON-RPC transcript: 'no tools/call request',
    'No operations', order-only times. By hand: get_weather {city: Paris} -> rainy
    completed 10:00:01-10:00:02; fetch failed with the SDK's error; the agent and trace
    records are context."""
    recs: list[Any] = [
        {"object": "trace", "id": "trace_abc", "workflow_name": "Agent workflow"},
        {"object": "trace.span", "id": "span_fn1", "trace_id": "trace_abc",
         "parent_id": "span_ag", "started_at": "2026-05-31T10:00:01.000000+00:00",
         "ended_at": "2026-05-31T10:00:02.000000+00:00",
         "span_data": {"type": "function", "name": "get_weather",
                       "input": '{"city":"Paris"}', "output": "rainy", "mcp_data": None},
         "error": None},
        {"object": "trace.span", "id": "span_fn2", "trace_id": "trace_abc",
         "parent_id": "span_ag", "started_at": "2026-05-31T10:00:03.000000+00:00",
         "ended_at": "2026-05-31T10:00:04.000000+00:00",
         "span_data": {"type": "function", "name": "fetch", "input": "{}",
                       "output": "An error occurred", "mcp_data": None},
         "error": {"message": "Error running tool (non-fatal)",
                   "data": {"tool_name": "fetch", "error": "boom"}}},
        {"object": "trace.span", "id": "span_ag", "trace_id": "trace_abc", "parent_id": None,
         "started_at": "2026-05-31T10:00:00.000000+00:00",
         "ended_at": "2026-05-31T10:00:05.000000+00:00",
         "span_data": {"type": "agent", "name": "Assistant", "tools": ["get_weather"]},
         "error": None}]
    for data in ("\n".join(json.dumps(r) for r in recs) + "\n",
                 json.dumps(recs[:2]) + "\n" + json.dumps(recs[2:]) + "\n"):
        assert formats.detect(data.encode()).name == "otlp"
        vcon, rep, m = imported(data.encode())
        assert [(o.tool, o.outcome) for o in m.operations] == [
            ("get_weather", "completed"), ("fetch", "failed")]
        ev = vcon["events"]
        assert ev[0]["time"] == "2026-05-31T10:00:01.000Z"
        assert ev[0]["body"]["arguments"] == {"city": "Paris"} and ev[1]["body"] == "rainy"
        assert ev[3]["body"]["error"]["data"]["error"] == "boom"
        assert rep.times == "recorded" and errors(m) == []


def test_openai_agents_arguments_refused_before_the_tool_ran_are_tool_errors() -> None:
    """openai/openai-agents-python src/agents/tool.py @ 036ea357…: a function tool's
    arguments are parsed and checked before the function runs; bad JSON raises
    ModelBehaviorError('Invalid JSON input for tool {name}: {input}') from the
    JSONDecodeError, a schema mismatch ModelBehaviorError('Invalid JSON input for tool
    {name}: {ValidationError}'); the default failure handler then sets the span's error
    {message: 'Error running tool' for the JSON decode error (data.error the decode
    error's text) or 'Error running tool (non-fatal)', data: {tool_name, error}} and the
    model is told 'An error occurred while parsing tool arguments...'. Before, both were
    tool-failures ('failed': as if the tool had run). By hand: add with bad JSON: errored;
    add with a wrong type: errored; fetch whose code raised (data.error '404'): failed."""
    def rec(sid: str, start: int, name: str, inp: str, out: str, msg: str,
            err: str) -> dict[str, Any]:
        return {"object": "trace.span", "id": sid, "trace_id": "trace_abc",
                "parent_id": None, "started_at": f"2026-05-31T10:00:0{start}.000000+00:00",
                "ended_at": f"2026-05-31T10:00:0{start + 1}.000000+00:00",
                "span_data": {"type": "function", "name": name, "input": inp, "output": out,
                              "mcp_data": None},
                "error": {"message": msg, "data": {"tool_name": name, "error": err}}}
    recs = [
        rec("span_1", 1, "add", '{"a": 1,', "An error occurred while parsing tool arguments."
            " Please try again with valid JSON. Error: Expecting property name enclosed in "
            "double quotes: line 1 column 9 (char 8)", "Error running tool",
            "Expecting property name enclosed in double quotes: line 1 column 9 (char 8)"),
        rec("span_2", 3, "add", '{"a": "x"}', "An error occurred while running the tool. "
            "Please try again. Error: Invalid JSON input for tool add: 1 validation error for "
            "add_args", "Error running tool (non-fatal)",
            "Invalid JSON input for tool add: 1 validation error for add_args"),
        rec("span_3", 5, "fetch", "{}", "An error occurred while running the tool. Please "
            "try again. Error: 404", "Error running tool (non-fatal)", "404"),
    ]
    vcon, _rep, m = imported(("\n".join(json.dumps(r) for r in recs) + "\n").encode())
    assert [(o.tool, o.outcome) for o in m.operations] == [
        ("add", "errored"), ("add", "errored"), ("fetch", "failed")]
    ends = [e for e in vcon["events"] if e["type"] != "tool-invocation"]
    assert [e["type"] for e in ends] == ["tool-error", "tool-error", "tool-failure"]
    assert ends[0]["body"]["result"].startswith("An error occurred while parsing")
    assert errors(m) == []


def _adk(sid: str, name: str, start: int, end: int, status: int = 0, **a: Any) -> dict[str, Any]:
    """A Google ADK span as OTLP/JSON (google/adk-python src/google/adk/telemetry/tracing.py:
    trace_tool_call, trace_merged_tool_calls)."""
    base = 1767600000
    return {"traceId": "5b8efff798038103d269b633813fc60d", "spanId": sid,
            "parentSpanId": "00000000000000aa", "name": name, "kind": 1,
            "startTimeUnixNano": str((base + start) * 10**9),
            "endTimeUnixNano": str((base + end) * 10**9),
            "attributes": attrs(a), "status": {"code": status} if status else {}}


def test_google_adk_tool_spans_arguments_results_and_merged_span() -> None:
    """Google ADK (google/adk-python src/google/adk/telemetry/tracing.py @ 0798a74d…) writes
    each tool call as execute_tool {name} with gen_ai.tool.name and gen_ai.tool.call.id (the
    literal '<not specified>' when there is no response event), the arguments as
    gcp.vertex.agent.tool_call_args and the response as gcp.vertex.agent.tool_response (a
    non-dict wrapped as {"result": ...}; {"result": "<not specified>"} when none); and, when
    calls ran in parallel, one more span 'execute_tool (merged)' (gen_ai.tool.name '(merged
    tools)', tool_call_args 'N/A', call id = the merged event's id) that exists only for the
    dev UI's event lookup (functions.py). Before, a reviewer saw each call with no arguments
    and no result, and an extra '(merged tools)' operation that never ran. By hand:
    get_weather {city: Paris} -> {report: sunny}; get_time {tz: CET} -> {result: 10:00};
    nothing for the merged span; lookup with a tool error (error.type, status ERROR) and its
    response {error: ...}: failed."""
    spans = [
        _adk("0000000000000001", "execute_tool get_weather", 1, 2, **{
            "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_weather",
            "gen_ai.tool.type": "FunctionTool", "gen_ai.tool.call.id": "adk-1",
            "gcp.vertex.agent.llm_request": "{}", "gcp.vertex.agent.llm_response": "{}",
            "gcp.vertex.agent.tool_call_args": '{"city": "Paris"}',
            "gcp.vertex.agent.tool_response": '{"report": "sunny"}'}),
        _adk("0000000000000002", "execute_tool get_time", 1, 2, **{
            "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_time",
            "gen_ai.tool.call.id": "<not specified>",
            "gcp.vertex.agent.tool_call_args": '{"tz": "CET"}',
            "gcp.vertex.agent.tool_response": '{"result": "10:00"}'}),
        _adk("0000000000000003", "execute_tool (merged)", 2, 2, **{
            "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "(merged tools)",
            "gen_ai.tool.description": "(merged tools)", "gen_ai.tool.call.id": "ev-9",
            "gcp.vertex.agent.tool_call_args": "N/A", "gcp.vertex.agent.event_id": "ev-9",
            "gcp.vertex.agent.tool_response": '{"id": "ev-9", "content": {}}'}),
        _adk("0000000000000004", "execute_tool lookup", 3, 4, status=2, **{
            "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "lookup",
            "gen_ai.tool.call.id": "adk-4", "error.type": "ValueError",
            "gcp.vertex.agent.tool_call_args": '{"q": "x"}',
            "gcp.vertex.agent.tool_response": '{"error": "no such key"}'}),
    ]
    data = json.dumps({"resourceSpans": [{"resource": {"attributes": attrs(
        {"service.name": "adk-app"})}, "scopeSpans": [{"scope": {"name": "gcp.vertex.agent"},
                                                      "spans": spans}]}]}).encode()
    vcon, rep, m = imported(data)
    assert [(o.tool, o.outcome) for o in m.operations] == [
        ("get_weather", "completed"), ("get_time", "completed"), ("lookup", "failed")]
    inv = [e for e in vcon["events"] if e["type"] == "tool-invocation"]
    assert [e["body"]["arguments"] for e in inv] == [{"city": "Paris"}, {"tz": "CET"},
                                                     {"q": "x"}]
    assert "tool_call_id" not in inv[1]["body"]  # '<not specified>' is no id
    res = [e for e in vcon["events"] if e["type"] in ("tool-result", "tool-failure")]
    assert res[0]["body"] == {"report": "sunny"}
    assert "no such key" in json.dumps(res[2]["body"])
    assert rep.ignored.get("execute_tool (merged) span") == 1
    assert errors(m) == []


def test_strands_latest_conventions_tool_span_events_give_arguments_and_result() -> None:
    """Strands Agents (strands-agents/sdk-python src/strands/telemetry/tracer.py @ 006ad58f…,
    start_tool_call_span / end_tool_call_span) under the latest GenAI conventions
    (OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental) puts a tool call's arguments in
    a 'gen_ai.client.inference.operation.details' event's gen_ai.input.messages ([{role:
    tool, parts: [{type: tool_call, name, id, arguments}]}]) and its result in another's
    gen_ai.output.messages ([{role: tool, parts: [{type: tool_call_response, id,
    response}]}]), with gen_ai.tool.status. Before, a reviewer saw the call with no arguments
    and no result (and a failed one's error text nowhere). By hand: calculator {expr: 1/0}
    failed with its response [{text: 'division by zero'}]; echo {m: hi} -> [{text: hi}]."""
    def span(sid: str, name: str, tid: str, args: Any, resp: Any, status: str,
             start: int) -> dict[str, Any]:
        base = 1767600000
        ev = "gen_ai.client.inference.operation.details"
        return {
            "traceId": "5b8efff798038103d269b633813fc60e", "spanId": sid,
            "name": f"execute_tool {name}", "kind": 1,
            "startTimeUnixNano": str((base + start) * 10**9),
            "endTimeUnixNano": str((base + start + 1) * 10**9),
            "attributes": attrs({"gen_ai.operation.name": "execute_tool",
                                 "gen_ai.provider.name": "strands-agents",
                                 "gen_ai.tool.name": name, "gen_ai.tool.call.id": tid,
                                 "gen_ai.tool.status": status}),
            "events": [
                {"timeUnixNano": str((base + start) * 10**9), "name": ev,
                 "attributes": attrs({"gen_ai.input.messages": json.dumps([{
                     "role": "tool", "parts": [{"type": "tool_call", "name": name,
                                                "id": tid, "arguments": args}]}])})},
                {"timeUnixNano": str((base + start + 1) * 10**9), "name": ev,
                 "attributes": attrs({"gen_ai.output.messages": json.dumps([{
                     "role": "tool", "parts": [{"type": "tool_call_response", "id": tid,
                                                "response": resp}]}])})}],
            "status": {}}
    spans = [span("0000000000000001", "calculator", "tooluse_1", {"expr": "1/0"},
                  [{"text": "division by zero"}], "error", 1),
             span("0000000000000002", "echo", "tooluse_2", {"m": "hi"}, [{"text": "hi"}],
                  "success", 3)]
    data = json.dumps({"resourceSpans": [{"resource": {"attributes": attrs(
        {"service.name": "strands-agents"})}, "scopeSpans": [{"scope": {"name": "x"},
                                                             "spans": spans}]}]}).encode()
    vcon, _, m = imported(data)
    assert [(o.tool, o.outcome) for o in m.operations] == [
        ("calculator", "failed"), ("echo", "completed")]
    ev = vcon["events"]
    assert ev[0]["body"]["arguments"] == {"expr": "1/0"}
    assert ev[1]["type"] == "tool-failure" and ev[1]["body"] == [{"text": "division by zero"}]
    assert ev[2]["body"]["arguments"] == {"m": "hi"} and ev[3]["body"] == [{"text": "hi"}]
    assert errors(m) == []


def test_strands_unknown_tool_is_a_tool_error() -> None:
    """Strands Agents (strands-agents/sdk-python, Apache-2.0; src/strands/tools/executors/
    _executor.py @ 040733bc…, ToolExecutor._stream): a tool name not in the registry is
    never run; the executor writes the result {status: error, content: [{text: 'Unknown
    tool: <name>'}]}, and _stream_with_trace ends the execute_tool span it opened with it
    (telemetry/tracer.py end_tool_call_span: gen_ai.tool.status 'error', a gen_ai.choice
    event whose message is the content; the span's own status OK). By the draft that is a
    tool-error (the request failed before any tool ran), not the tool's failure. Before, it
    was 'failed'. By hand: ghost (not registered): errored, with the text as its detail;
    lookup, whose own error result happens to read 'Unknown tool: ghost' (not its own name):
    failed, as any tool's error result."""
    base = 1767600000

    def span(sid: str, name: str, text: str, start: int) -> dict[str, Any]:
        return {
            "traceId": "5b8efff798038103d269b633813fc60e", "spanId": sid,
            "name": f"execute_tool {name}", "kind": 1,
            "startTimeUnixNano": str((base + start) * 10**9),
            "endTimeUnixNano": str((base + start + 1) * 10**9),
            "attributes": attrs({"gen_ai.operation.name": "execute_tool",
                                 "gen_ai.system": "strands-agents",
                                 "gen_ai.tool.name": name, "gen_ai.tool.call.id": f"t{sid}",
                                 "gen_ai.tool.status": "error"}),
            "events": [
                {"timeUnixNano": str((base + start) * 10**9), "name": "gen_ai.tool.message",
                 "attributes": attrs({"role": "tool", "content": "{}", "id": f"t{sid}"})},
                {"timeUnixNano": str((base + start + 1) * 10**9), "name": "gen_ai.choice",
                 "attributes": attrs({"message": json.dumps([{"text": text}]),
                                      "id": f"t{sid}"})}],
            "status": {"code": 1}}
    spans = [span("0000000000000001", "ghost", "Unknown tool: ghost", 1),
             span("0000000000000002", "lookup", "Unknown tool: ghost", 3)]
    data = json.dumps({"resourceSpans": [{"resource": {"attributes": attrs(
        {"service.name": "strands-agents"})}, "scopeSpans": [{"scope": {"name": "x"},
                                                             "spans": spans}]}]}).encode()
    vcon, _, m = imported(data)
    assert [(o.tool, o.outcome) for o in m.operations] == [
        ("ghost", "errored"), ("lookup", "failed")]
    ends = [e for e in vcon["events"] if e["type"] != "tool-invocation"]
    assert ends[0]["type"] == "tool-error"
    assert "Unknown tool: ghost" in json.dumps(ends[0]["body"])
    assert errors(m) == []


def test_a_tool_spans_own_messages_give_arguments_only_when_they_are_this_calls() -> None:
    """The rule above takes a tool span's arguments / result from its own gen_ai.input /
    output.messages, "the part of this call id when there are several". A span with no call id
    whose messages hold several calls (rm then ls), or a span whose id matches none of several
    id-less parts, does not say which is its own: none is shown, rather than the first
    (before: the ls span showed rm's {path: /} as its arguments)."""
    base = 1767600000

    def span(sid: str, tid: str | None, msgs: Any) -> dict[str, Any]:
        a = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "ls",
             "gen_ai.input.messages": json.dumps(msgs)}
        if tid:
            a["gen_ai.tool.call.id"] = tid
        return {"traceId": "5b8efff798038103d269b633813fc60e", "spanId": sid,
                "name": "execute_tool ls", "kind": 1,
                "startTimeUnixNano": str(base * 10**9),
                "endTimeUnixNano": str((base + 1) * 10**9),
                "attributes": attrs(a), "status": {}}

    two = [{"role": "assistant", "parts": [
        {"type": "tool_call", "name": "rm", "id": "c1", "arguments": {"path": "/"}},
        {"type": "tool_call", "name": "ls", "id": "c2", "arguments": {"path": "."}}]}]
    anon = [{"role": "assistant", "parts": [
        {"type": "tool_call", "name": "rm", "arguments": {"path": "/"}},
        {"type": "tool_call", "name": "ls", "arguments": {"path": "."}}]}]
    spans = [span("0000000000000001", None, two), span("0000000000000002", "c9", anon),
             span("0000000000000003", "c2", two)]
    data = json.dumps({"resourceSpans": [{"resource": {}, "scopeSpans": [
        {"scope": {"name": "x"}, "spans": spans}]}]}).encode()
    vcon, _, _m = imported(data)
    inv = [e for e in vcon["events"] if e["type"] == "tool-invocation"]
    assert [(e.get("body") or {}).get("arguments") for e in inv] == [None, None, {"path": "."}]


def test_phoenix_rest_span_pages_are_read() -> None:
    """Arize Phoenix's REST API (Arize-ai/phoenix src/phoenix/server/api/routers/v1/spans.py
    @ 00a4d747…): GET /v1/projects/{p}/spans answers {data: [Span], next_cursor}, each Span
    {name, context: {trace_id, span_id}, span_kind, parent_id, start_time, end_time (ISO),
    status_code 'OK'|'ERROR'|'UNSET', status_message, attributes (flattened; the
    openinference.span.kind attribute is popped into span_kind), events}; GET
    .../spans/otlpv1 answers {data: [OtlpSpan], next_cursor} in the protobuf field names
    (trace_id, span_id, parent_span_id, start_time_unix_nano, attributes [{key, value:
    {string_value}}], status {code}). Both list the newest span first. Before, either file
    was refused ('not a recording vcon-view imports'). By hand: get_weather {city: Paris} ->
    rainy at 12:00:01-12:00:02; lookup status ERROR 'boom' with no output: in the span page
    its exception event names ValueError (the tool's code raised): failed; the otlpv1 page
    keeps no events, status ERROR alone does not say whether the tool ran: errored; the
    agent span is context."""
    trace = "a1b2c3d4e5f6a1b2c3d4e5f6a1b2c3d4"
    span = [
        {"id": "U3BhbjoxMw==", "name": "lookup",
         "context": {"trace_id": trace, "span_id": "1a2b3c4d5e6f7a8d"}, "span_kind": "TOOL",
         "parent_id": "1a2b3c4d5e6f7a8b", "start_time": "2025-06-01T12:00:02.500000+00:00",
         "end_time": "2025-06-01T12:00:02.700000+00:00", "status_code": "ERROR",
         "status_message": "boom", "attributes": {"tool.name": "lookup",
                                                   "input.value": '{"q": "x"}'},
         "events": [{"name": "exception", "timestamp": "2025-06-01T12:00:02.600000+00:00",
                     "attributes": {"exception.type": "ValueError",
                                    "exception.message": "boom"}}]},
        {"id": "U3BhbjoxMg==", "name": "get_weather",
         "context": {"trace_id": trace, "span_id": "1a2b3c4d5e6f7a8c"}, "span_kind": "TOOL",
         "parent_id": "1a2b3c4d5e6f7a8b", "start_time": "2025-06-01T12:00:01+00:00",
         "end_time": "2025-06-01T12:00:02+00:00", "status_code": "OK", "status_message": "",
         "attributes": {"tool.name": "get_weather", "input.value": '{"city": "Paris"}',
                        "input.mime_type": "application/json", "output.value": "rainy"},
         "events": []},
        {"id": "U3BhbjoxMQ==", "name": "agent",
         "context": {"trace_id": trace, "span_id": "1a2b3c4d5e6f7a8b"}, "span_kind": "AGENT",
         "parent_id": None, "start_time": "2025-06-01T12:00:00+00:00",
         "end_time": "2025-06-01T12:00:03+00:00", "status_code": "OK", "status_message": "",
         "attributes": {"input.value": "weather?"}, "events": []}]
    def kv(d: dict[str, Any]) -> list[dict[str, Any]]:
        return [{"key": k, "value": {"string_value": v}} for k, v in d.items()]
    otlpv1 = [
        {"trace_id": trace, "span_id": "1a2b3c4d5e6f7a8c", "parent_span_id": "1a2b3c4d5e6f7a8b",
         "name": "get_weather", "start_time_unix_nano": 1748779201000000000,
         "end_time_unix_nano": 1748779202000000000,
         "attributes": kv({"openinference.span.kind": "TOOL", "tool.name": "get_weather",
                           "input.value": '{"city": "Paris"}', "output.value": "rainy"}),
         "events": None, "status": {"code": 1, "message": None}},
        {"trace_id": trace, "span_id": "1a2b3c4d5e6f7a8d", "parent_span_id": "1a2b3c4d5e6f7a8b",
         "name": "lookup", "start_time_unix_nano": 1748779202500000000,
         "end_time_unix_nano": 1748779202700000000,
         "attributes": kv({"openinference.span.kind": "TOOL", "tool.name": "lookup",
                           "input.value": '{"q": "x"}'}),
         "events": None, "status": {"code": 2, "message": "boom"}}]
    for page, lookup in (({"data": span, "next_cursor": None}, "failed"),
                         ({"data": otlpv1, "next_cursor": None}, "errored")):
        data = json.dumps(page).encode()
        assert formats.detect(data).name == "otlp"
        vcon, rep, m = imported(data)
        assert [(o.tool, o.outcome) for o in m.operations] == [
            ("get_weather", "completed"), ("lookup", lookup)]
        ev = vcon["events"]
        assert ev[0]["time"] == "2025-06-01T12:00:01.000Z" and ev[1]["body"] == "rainy"
        assert ev[0]["body"]["arguments"] == {"city": "Paris"}
        assert rep.times == "recorded" and errors(m) == []


def test_langfuse_tool_observations_as_spans_and_as_api_pages() -> None:
    """Langfuse. Its SDK v3 is OpenTelemetry: @observe(as_type="tool") spans carry
    langfuse.observation.type 'tool', langfuse.observation.input / .output, and on an error
    langfuse.observation.level 'ERROR' with langfuse.observation.status_message (the
    attribute names of langfuse/_client/attributes.py, LangfuseOtelSpanAttributes, and of
    packages/shared/src/server/otel/attributes.ts). Its public API pages observations as {data:
    [{id, traceId, type 'TOOL'|'SPAN'|'GENERATION'..., name, startTime, endTime, input,
    output, level, statusMessage, parentObservationId, metadata}], meta}. Before, the spans
    gave no operation ('the recording has no tool call') and an API page was refused (or,
    once Phoenix pages were read, read as spans with no tool call). By hand: search {q: x}
    -> ['a'] completed; fetch {url} level ERROR 'timeout' with no output: errored."""
    def span(sid: str, name: str, start: int, end: int, **a: Any) -> dict[str, Any]:
        base = 1767600000
        return {"traceId": "5b8efff798038103d269b633813fc60f", "spanId": sid, "name": name,
                "kind": 1, "startTimeUnixNano": str((base + start) * 10**9),
                "endTimeUnixNano": str((base + end) * 10**9), "attributes": attrs(a),
                "status": {}}
    spans = [
        span("0000000000000001", "search", 1, 2, **{
            "langfuse.observation.type": "tool", "langfuse.observation.input": '{"q": "x"}',
            "langfuse.observation.output": '["a"]'}),
        span("0000000000000002", "fetch", 3, 4, **{
            "langfuse.observation.type": "tool",
            "langfuse.observation.input": '{"url": "http://x"}',
            "langfuse.observation.level": "ERROR",
            "langfuse.observation.status_message": "timeout"}),
        span("0000000000000003", "plan", 0, 5, **{"langfuse.observation.type": "span"})]
    otlp = json.dumps({"resourceSpans": [{"resource": {"attributes": attrs(
        {"service.name": "app"})}, "scopeSpans": [{"scope": {"name": "langfuse-sdk"},
                                                  "spans": spans}]}]}).encode()
    page = json.dumps({"data": [
        {"id": "0000000000000002", "traceId": "5b8efff798038103d269b633813fc60f",
         "type": "TOOL", "name": "fetch", "startTime": "2026-01-05T08:00:03.000Z",
         "endTime": "2026-01-05T08:00:04.000Z", "input": {"url": "http://x"}, "output": None,
         "level": "ERROR", "statusMessage": "timeout",
         "parentObservationId": "0000000000000003", "metadata": {}},
        {"id": "0000000000000001", "traceId": "5b8efff798038103d269b633813fc60f",
         "type": "TOOL", "name": "search", "startTime": "2026-01-05T08:00:01.000Z",
         "endTime": "2026-01-05T08:00:02.000Z", "input": {"q": "x"}, "output": ["a"],
         "level": "DEFAULT", "statusMessage": None,
         "parentObservationId": "0000000000000003", "metadata": {}},
        {"id": "0000000000000003", "traceId": "5b8efff798038103d269b633813fc60f",
         "type": "SPAN", "name": "plan", "startTime": "2026-01-05T08:00:00.000Z",
         "endTime": "2026-01-05T08:00:05.000Z", "input": None, "output": None,
         "level": "DEFAULT", "statusMessage": None, "parentObservationId": None,
         "metadata": {}}], "meta": {"page": 1, "limit": 50, "totalItems": 3,
                                    "totalPages": 1}}).encode()
    for data in (otlp, page):
        assert formats.detect(data).name == "otlp"
        vcon, _, m = imported(data)
        assert [(o.tool, o.outcome) for o in m.operations] == [
            ("search", "completed"), ("fetch", "errored")], data[:40]
        ev = vcon["events"]
        assert ev[0]["time"] == "2026-01-05T08:00:01.000Z"
        assert ev[0]["body"]["arguments"] == {"q": "x"} and ev[1]["body"] == ["a"]
        assert ev[3]["body"]["message"] == "timeout"
        assert errors(m) == []


def test_any_agent_agno_real_trace_shows_the_arguments_the_model_asked_for() -> None:
    """The real AGNO trace (mozilla-ai/any-agent tests/assets/AGNO_trace.json @ 0020b6a7…,
    Apache-2.0; see tests/fixtures/SOURCES.md), read by hand: call_llm asks get_current_time
    {"timezone": "America/New_York"} (call_npcc…), execute_tool get_current_time returns the
    time JSON at 11:18:06.213-.217; call_llm asks write_file {"text": "2025"} (call_Qkpi…),
    execute_tool write_file returns "None" at 11:18:07.082-.084. Neither tool span records
    its arguments: they come from the model's request under the same call id."""
    vcon, rep, m = imported((AGENTS / "any-agent__AGNO_trace.json").read_bytes())
    assert [(o.tool, o.outcome) for o in m.operations] == [
        ("get_current_time", "completed"), ("write_file", "completed")]
    inv = [e for e in vcon["events"] if e["type"] == "tool-invocation"]
    assert [e["body"]["arguments"] for e in inv] == [{"timezone": "America/New_York"},
                                                     {"text": "2025"}]
    assert [e["time"] for e in inv] == ["2025-05-21T11:18:06.213Z", "2025-05-21T11:18:07.082Z"]
    assert rep.ignored == {"call_llm span": 3, "invoke_agent span": 1}
    assert errors(m) == []


def test_mastra_mcp_tool_call_spans_name_their_mcp_server() -> None:
    """Mastra's OpenTelemetry exporter (mastra-ai/mastra observability/otel-exporter/src/
    gen-ai-semantics.ts @ 087c72fa…) writes every tool call as execute_tool with
    gen_ai.tool.name, gen_ai.tool.call.arguments / .result and mastra.span.type; an MCP tool
    call has mastra.span.type 'mcp_tool_call' and its MCP server's name in server.address,
    and no mcp.* attribute. Before, a reviewer saw the MCP call on '!host' ('a tool built into
    the agent'), its server dropped. By hand: github/create_issue {title: t} -> {number: 7} on
    the MCP server 'github'; a plain tool_call weather stays on !host."""
    def span(sid: str, name: str, kind: str, **a: Any) -> dict[str, Any]:
        base = 1767600000
        return {"traceId": "5b8efff798038103d269b633813fc610", "spanId": sid,
                "name": f"execute_tool {name}", "kind": 1,
                "startTimeUnixNano": str((base + int(sid[-1])) * 10**9),
                "endTimeUnixNano": str((base + int(sid[-1]) + 1) * 10**9),
                "attributes": attrs({"gen_ai.operation.name": "execute_tool",
                                     "mastra.span.type": kind, "gen_ai.tool.name": name,
                                     **a}), "status": {}}
    spans = [span("0000000000000001", "create_issue", "mcp_tool_call", **{
                 "server.address": "github", "gen_ai.tool.call.id": "c1",
                 "gen_ai.tool.call.arguments": '{"title": "t"}',
                 "gen_ai.tool.call.result": '{"number": 7}'}),
             span("0000000000000003", "weather", "tool_call", **{
                 "gen_ai.tool.call.id": "c2", "gen_ai.tool.call.arguments": "{}",
                 "gen_ai.tool.call.result": '"sunny"'})]
    data = json.dumps({"resourceSpans": [{"resource": {"attributes": attrs(
        {"service.name": "mastra"})}, "scopeSpans": [{"scope": {"name": "mastra"},
                                                     "spans": spans}]}]}).encode()
    _, _, m = imported(data)
    assert [(o.server, o.tool, o.outcome) for o in m.operations] == [
        ("github", "create_issue", "completed"), ("!host", "weather", "completed")]
    assert errors(m) == []


LANGSMITH = FIX / "agents" / "langsmith"
TRACE_ID = "01a24a36-7a9a-7527-abae-7cabc7b73cc3"  # the chain run's id, as written


def test_langsmith_runs_written_by_langchain_are_tool_operations() -> None:
    """LangSmith runs (langchain-ai/langsmith-sdk python/langsmith/schemas.py Run: id, name,
    run_type 'tool'|'llm'|'chain'..., inputs, outputs, error, start_time, end_time,
    trace_id, parent_run_id, dotted_order, extra, events, status). The fixture is what
    langchain-core 1.8.3's tracer records for a LangSmith run (see SOURCES.md), one run per
    line. Before, it was read as spans with no tool call. By hand: chain 'agent' and llm
    'GenericFakeChatModel' (which asks for get_weather call_w1 and delete_file call_d2) are
    context; tool get_weather {city: Paris} (extra.tool_call_id call_w1) ->
    'rainy in Paris' (its ToolMessage's content, status success) at 07:16:54.044050 to
    .044351; tool delete_file {path: /etc/passwd} (call_d2) raised PermissionError: error
    text 'PermissionError('refused: /etc/passwd')Traceback ...', outputs {}, ended
    .045232: the tool's own code raised, so it ran and failed (no result): failed."""
    data = (LANGSMITH / "langchain-core__tool_runs.jsonl").read_bytes()
    assert formats.detect(data).name == "otlp"
    vcon, rep, m = imported(data)
    assert seen(m) == [("op-0001", "!host", "get_weather", "completed", None, []),
                       ("op-0002", "!host", "delete_file", "failed", None, [])]
    ev = vcon["events"]
    assert [(e["type"], e["time"]) for e in ev] == [
        ("tool-invocation", "2026-12-06T07:16:54.044Z"),
        ("tool-result", "2026-12-06T07:16:54.044Z"),
        ("tool-invocation", "2026-12-06T07:16:54.044Z"),
        ("tool-failure", "2026-12-06T07:16:54.045Z")]
    assert ev[0]["body"]["arguments"] == {"city": "Paris"}
    assert ev[0]["body"]["tool_call_id"] == "call_w1"
    assert ev[0]["body"]["trace_id"] == TRACE_ID
    assert ev[1]["body"] == "rainy in Paris"
    assert ev[2]["body"]["arguments"] == {"path": "/etc/passwd"}
    assert ev[2]["body"]["tool_call_id"] == "call_d2"
    assert ev[3]["body"]["error_type"] == "PermissionError"
    assert ev[3]["body"]["message"].startswith("PermissionError('refused: /etc/passwd')")
    assert rep.ignored == {"chain run": 1, "llm run": 1}
    assert rep.times == "recorded" and errors(m) == []


def _ls_run(rid: str, name: str, run_type: str, start: str, end: str | None,
            **kw: Any) -> dict[str, Any]:
    """A run as LangSmith's API gives it (GET /runs/{id}, POST /runs/query): naive UTC
    times, status, the ids as UUIDs."""
    return {"id": rid, "name": name, "run_type": run_type, "start_time": start,
            "end_time": end, "inputs": kw.pop("inputs", {}), "outputs": kw.pop("outputs", None),
            "error": kw.pop("error", None), "extra": kw.pop("extra", {"metadata": {}}),
            "events": [], "trace_id": "0b5d9575-bec3-4256-b43a-05893b8b8440",
            "parent_run_id": kw.pop("parent", "0b5d9575-bec3-4256-b43a-05893b8b8440"),
            "dotted_order": f"20250601T120000000000Z0b5d9575.{rid}",
            "status": kw.pop("status", "success" if end else "pending"),
            "session_id": "1ffd059c-17ea-40a8-8aef-70fd0307db82", "tags": [], **kw}


LS_RUNS = [
    _ls_run("0b5d9575-bec3-4256-b43a-05893b8b8440", "LangGraph", "chain",
            "2025-06-01T12:00:00", "2025-06-01T12:00:09", parent=None,
            inputs={"messages": [{"role": "user", "content": "go"}]}),
    _ls_run("11111111-0000-4000-8000-000000000001", "ChatOpenAI", "llm",
            "2025-06-01T12:00:00.100000", "2025-06-01T12:00:00.900000",
            outputs={"generations": [[{"message": {"kwargs": {"tool_calls": [
                {"id": "call_1", "name": "search", "args": {"q": "x"}}]}}}]]}),
    # langchain-core before 0.3: inputs {"input": input_str}, the ToolMessage serialized
    _ls_run("11111111-0000-4000-8000-000000000002", "search", "tool",
            "2025-06-01T12:00:01", "2025-06-01T12:00:02",
            inputs={"input": '{"q": "x"}'},
            outputs={"output": {"lc": 1, "type": "constructor",
                                "id": ["langchain", "schema", "messages", "ToolMessage"],
                                "kwargs": {"content": '["a", "b"]', "type": "tool",
                                           "tool_call_id": "call_1", "status": "success"}}},
            extra={"metadata": {"langgraph_node": "tools"}, "tool_call_id": "call_1"}),
    # the tool answered with an error ToolMessage (status error): it ran and failed
    _ls_run("11111111-0000-4000-8000-000000000003", "fetch", "tool",
            "2025-06-01T12:00:03", "2025-06-01T12:00:04", inputs={"url": "http://x"},
            outputs={"output": {"content": "Error: 404", "type": "tool",
                                "tool_call_id": "call_2", "status": "error"}}),
    # raised TimeoutError: error text, no output
    _ls_run("11111111-0000-4000-8000-000000000004", "slow", "tool",
            "2025-06-01T12:00:05", "2025-06-01T12:00:06", inputs={"n": 1},
            error="TimeoutError('took too long')\n\nTraceback (most recent call last): ...",
            status="error"),
    # an MCP tool (Claude-style name) still running: no end
    _ls_run("11111111-0000-4000-8000-000000000005", "mcp__github__create_issue", "tool",
            "2025-06-01T12:00:07", None, inputs={"title": "t"}),
]


@pytest.mark.parametrize("shape", ["jsonl", "list", "page", "tree"])
def test_langsmith_api_runs_in_every_shape(shape: str) -> None:
    """LangSmith's runs as its API and SDK give them: client.list_runs written one run per
    line or as a JSON list, POST /runs/query's page {runs: [...], cursors}, and a root run
    with its child_runs (client.read_run(load_child_runs=True)). By hand: LangGraph (chain)
    and ChatOpenAI (llm, asking for search call_1) are context; search {q: x} (its input
    string, JSON) -> ['a', 'b'] at 12:00:01-02 completed; fetch answered an error
    ToolMessage 'Error: 404': failed (it ran); slow raised TimeoutError: timed-out;
    github/create_issue never ended: running, on the MCP server 'github'. Times have no zone
    (LangSmith's API writes UTC): read as UTC, and said so."""
    if shape == "jsonl":
        data = "\n".join(json.dumps(r) for r in LS_RUNS).encode()
    elif shape == "list":
        data = json.dumps(LS_RUNS, indent=2).encode()
    elif shape == "page":
        data = json.dumps({"runs": LS_RUNS[::-1], "cursors": {"next": None}}).encode()
    else:
        data = json.dumps({**LS_RUNS[0], "child_runs": LS_RUNS[1:]}).encode()
    assert formats.detect(data).name == "otlp"
    vcon, rep, m = imported(data)
    assert [(o.server, o.tool, o.outcome) for o in m.operations] == [
        ("!host", "search", "completed"), ("!host", "fetch", "failed"),
        ("!host", "slow", "timed-out"), ("github", "create_issue", "running")]
    ev = vcon["events"]
    assert ev[0]["time"] == "2025-06-01T12:00:01.000Z"
    assert ev[0]["body"]["arguments"] == {"q": "x"}
    assert ev[0]["body"]["tool_call_id"] == "call_1"
    assert ev[1]["body"] == ["a", "b"]
    assert ev[3]["type"] == "tool-failure" and ev[3]["body"] == "Error: 404"
    assert ev[3]["time"] == "2025-06-01T12:00:04.000Z"
    assert ev[2]["body"]["tool_call_id"] == "call_2"  # from its ToolMessage
    assert ev[5]["type"] == "tool-timeout" and ev[5]["body"]["error_type"] == "TimeoutError"
    assert ev[6]["type"] == "tool-invocation" and ev[6]["body"]["arguments"] == {"title": "t"}
    assert len(ev) == 7
    assert rep.ignored == {"chain run": 1, "llm run": 1}
    assert any("read as UTC" in w for w in rep.warnings)
    assert errors(m) == []


def test_langsmith_lookalikes_are_not_runs() -> None:
    """Only a run with its id, name, run_type and start time is read as a LangSmith run: a
    JSON object with a run_type alone is not one (nor sniffed as OpenTelemetry)."""
    data = json.dumps([{"run_type": "tool", "name": "x", "inputs": {}}] * 3).encode()
    det = formats.detect(data)
    assert det is None or det.name != "otlp"


def test_langsmith_runs_with_json_text_fields_and_epoch_times() -> None:
    """Runs whose inputs, outputs and extra are JSON text (a bulk export's Parquet rows
    turned into JSONL keep them as strings) and whose times are epoch milliseconds (the JS
    SDK's RunCreate, langsmith-sdk js/src/schemas.ts: start_time 'string | number'). By hand:
    shell {cmd: ls} -> 'a.txt' (call c9) at 2025-06-01T12:00:01Z-02Z; shell {cmd: sleep
    99} (its input a whole LangChain ToolCall {type: tool_call, id c10, name, args}, as a
    traced function handed the call records it) ended 12:00:04Z with error
    'CancelledError()' and no output: a tool-cancel."""
    runs = [
        {"id": "r1", "name": "shell", "run_type": "tool", "start_time": 1748779201000,
         "end_time": 1748779202000, "inputs": '{"cmd": "ls"}',
         "outputs": '{"output": "a.txt"}', "extra": '{"metadata": {"tool_call_id": "c9"}}',
         "error": None, "trace_id": "t1", "parent_run_id": None},
        {"id": "r2", "name": "shell", "run_type": "tool", "start_time": 1748779203000,
         "end_time": 1748779204000, "outputs": None,
         "inputs": {"input": {"type": "tool_call", "id": "c10", "name": "shell",
                              "args": {"cmd": "sleep 99"}}},
         "extra": None, "error": "CancelledError()", "trace_id": "t1",
         "parent_run_id": None}]
    data = "\n".join(json.dumps(r) for r in runs).encode()
    assert formats.detect(data).name == "otlp"
    vcon, rep, m = imported(data)
    ev = vcon["events"]
    assert [(e["type"], e["time"]) for e in ev] == [
        ("tool-invocation", "2025-06-01T12:00:01.000Z"),
        ("tool-result", "2025-06-01T12:00:02.000Z"),
        ("tool-invocation", "2025-06-01T12:00:03.000Z"),
        ("tool-cancel", "2025-06-01T12:00:04.000Z")]
    assert ev[0]["body"]["arguments"] == {"cmd": "ls"}
    assert ev[0]["body"]["tool_call_id"] == "c9" and ev[1]["body"] == "a.txt"
    assert ev[3]["body"]["error_type"] == "CancelledError"
    assert ev[2]["body"]["arguments"] == {"cmd": "sleep 99"}  # a ToolCall traced whole
    assert ev[2]["body"]["tool_call_id"] == "c10"
    assert not any("read as UTC" in w for w in rep.warnings)
    assert errors(m) == []


def test_langsmith_runs_are_claimed_by_otlp_alone() -> None:
    """Every registered importer's sniffer is asked: only otlp claims LangSmith runs (the MCP
    importer read a run's id and error as a JSON-RPC error response, and the file was
    ambiguous); the neighbours keep theirs (a JSON-RPC error response, a Langfuse page, an
    OpenAI Agents span record)."""
    fixture = (LANGSMITH / "langchain-core__tool_runs.jsonl").read_bytes()
    page = json.dumps({"runs": LS_RUNS, "cursors": {}}).encode()
    for data in (fixture, page, json.dumps(LS_RUNS).encode()):
        smp = formats.sample(data)
        assert [f.name for f in formats.formats() if f.sniff(smp)] == ["otlp"]
    rpc = b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "x"}}\n' \
        b'{"id": 1, "error": {"code": -32602, "message": "bad"}}\n'
    assert formats.detect(rpc).name == "mcp"
    agents = json.dumps({"object": "trace.span", "id": "span_1", "trace_id": "trace_1",
                         "parent_id": None, "started_at": "2025-06-01T12:00:00Z",
                         "ended_at": "2025-06-01T12:00:01Z", "error": None,
                         "span_data": {"type": "function", "name": "f", "input": "{}",
                                       "output": "1"}}).encode()
    _, _, m = imported(agents)
    assert [(o.tool, o.outcome) for o in m.operations] == [("f", "completed")]


def test_langsmith_error_with_an_output_is_a_failure() -> None:
    """A tool run with an error and an output recorded (a traceable tool that set both):
    it ran and failed, a tool-failure carrying both; status 'error' alone (no error text)
    with no output is a tool-error."""
    runs = [_ls_run("22222222-0000-4000-8000-000000000001", "grep", "tool",
                    "2025-06-01T12:00:01Z", "2025-06-01T12:00:02Z", inputs={"p": "x"},
                    outputs={"output": "partial"}, error="ValueError('bad pattern')",
                    status="error"),
            _ls_run("22222222-0000-4000-8000-000000000002", "grep", "tool",
                    "2025-06-01T12:00:03Z", "2025-06-01T12:00:04Z", status="error")]
    vcon, _, m = imported("\n".join(json.dumps(r) for r in runs).encode())
    assert [e["type"] for e in vcon["events"]] == [
        "tool-invocation", "tool-failure", "tool-invocation", "tool-error"]
    body = vcon["events"][1]["body"]
    assert body["result"] == "partial" and body["error_type"] == "ValueError"
    assert [o.outcome for o in m.operations] == ["failed", "errored"] and errors(m) == []


def test_langsmith_tool_that_raised_failed_arguments_refused_errored() -> None:
    """langchain-ai/langchain libs/core/langchain_core/tools/base.py BaseTool.run: the
    input is checked against the tool's args schema (pydantic) before the function runs; a
    ValidationError (handle_validation_error unset) and anything the function raises
    (ToolException with handle_tool_error unset, any other exception) go to on_tool_error,
    and the tracer writes repr(error) then the traceback (tracers/base.py
    _get_stacktrace). Before, every errored tool run without output was a tool-error. By
    hand: search raised ToolException: failed; add's arguments refused (pydantic's
    ValidationError, whose repr is its message '1 validation error for add'; the
    traceback's last line names the class): errored."""
    tb = 'Traceback (most recent call last):\n\n\n  File "x.py", line 1, in run\n\n\n'
    runs = [_ls_run("33333333-0000-4000-8000-000000000001", "search", "tool",
                    "2025-06-01T12:00:01Z", "2025-06-01T12:00:02Z", inputs={"q": "x"},
                    error="ToolException('index offline')" + tb
                    + "langchain_core.tools.base.ToolException: index offline",
                    status="error"),
            _ls_run("33333333-0000-4000-8000-000000000002", "add", "tool",
                    "2025-06-01T12:00:03Z", "2025-06-01T12:00:04Z", inputs={"a": "x"},
                    error="1 validation error for add\na\n  Input should be a valid integer"
                    + tb + "pydantic_core._pydantic_core.ValidationError: 1 validation "
                    "error for add\na\n  Input should be a valid integer", status="error")]
    vcon, _, m = imported("\n".join(json.dumps(r) for r in runs).encode())
    assert [e["type"] for e in vcon["events"]] == [
        "tool-invocation", "tool-failure", "tool-invocation", "tool-error"]
    assert vcon["events"][1]["body"]["error_type"] == "ToolException"
    assert vcon["events"][3]["body"]["error_type"] == "ValidationError"
    assert [o.outcome for o in m.operations] == ["failed", "errored"] and errors(m) == []


@pytest.mark.parametrize(("records", "title", "article"), [
    # langchain-core's tracer through the langsmith serializer (the fixture)
    ((FIX / "agents" / "langsmith" / "langchain-core__tool_runs.jsonl").read_bytes(),
     "LangSmith run export", "a"),
    # Arize Phoenix's REST page of spans
    (json.dumps({"data": [{
        "name": "lookup", "context": {"trace_id": "a1" * 16, "span_id": "1a" * 8},
        "span_kind": "TOOL", "parent_id": None, "start_time": "2025-06-01T12:00:01+00:00",
        "end_time": "2025-06-01T12:00:02+00:00", "status_code": "OK", "status_message": "",
        "attributes": {"tool.name": "lookup", "input.value": "{}", "output.value": "ok"},
        "events": []}], "next_cursor": None}).encode(), "Arize Phoenix span export", "an"),
])
def test_a_tracing_products_own_export_is_named_as_such(records: bytes, title: str,
                                                         article: str) -> None:
    """A LangSmith or Phoenix export is no OTLP export: the header and the 'is ..., not a
    vCon' line said 'an OpenTelemetry (OTLP) export'."""
    loaded = open_bytes(records, name="export.json")
    assert loaded.derivation is not None and loaded.derivation.title == title
    first = next(d for d in loaded.diagnostics if d.code == "derived-events")
    assert f"is {article} {title}, not a vCon" in first.message
    # a real OTLP document keeps the format's title
    otlp = open_bytes((FIX / "agents" / "otel-genai").glob("*.json").__next__().read_bytes(),
                      name="trace.json")
    assert otlp.derivation is not None and otlp.derivation.title == "OpenTelemetry (OTLP) export"


# --- Semantic Kernel: the app's own function invocations are not the agent's tool calls -------

#: The scopes Semantic Kernel's Python package writes its spans under (module tracers,
#: ``trace.get_tracer(__name__)``): kernel_function.py for every KernelFunction invocation,
#: the model diagnostics decorators for the chat call.
_SK_FUNCTION = "semantic_kernel.functions.kernel_function"
_SK_MODEL = "semantic_kernel.utils.telemetry.model_diagnostics.decorators"


def _sk_span(name: str, sid: str, parent: str | None, t0: int, t1: int,
             **a: Any) -> dict[str, Any]:
    s = {"traceId": "5b8aa5a2d2c872e8321cf37308d69df2", "spanId": sid, "name": name,
         "kind": 1, "startTimeUnixNano": str(1772442000_000_000_000 + t0 * 1_000_000),
         "endTimeUnixNano": str(1772442000_000_000_000 + t1 * 1_000_000),
         "attributes": attrs(a), "status": {}}
    if parent:
        s["parentSpanId"] = parent
    return s


def _sk_trace() -> bytes:
    """An app on Semantic Kernel (Python) with its diagnostics on, in the shape its source
    writes (microsoft/semantic-kernel, MIT: functions/kernel_function.py wraps every
    KernelFunction.invoke in utils/telemetry/model_diagnostics/function_tracer.py's span,
    ``execute_tool {plugin-function}`` with gen_ai.operation.name execute_tool and
    gen_ai.tool.name, gen_ai.tool.call.id only when the invocation's metadata has an "id";
    kernel.py's _inner_auto_function_invoke_handler passes the model's FunctionCallContent as
    that metadata, kernel.invoke passes none). The app invokes its prompt function
    ``WeatherApp-chat`` (the chat call runs inside it), the model asks for
    ``Weather-get_forecast`` (call_Qq7…, auto function calling), then the app calls its
    native ``Time-today`` itself. Names, ids and times are written here."""
    fn, mdl = [], []
    fn.append(_sk_span("execute_tool WeatherApp-chat", "a1a1a1a1a1a1a1a1", None, 0, 2400, **{
        "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "WeatherApp-chat",
        "gen_ai.tool.call.arguments": '{"input": "Will it rain in Oslo?"}',
        "gen_ai.tool.call.result": "Yes, take an umbrella."}))
    mdl.append(_sk_span("chat.completions gpt-4o", "b2b2b2b2b2b2b2b2", "a1a1a1a1a1a1a1a1",
                        10, 900, **{"gen_ai.operation.name": "chat.completions",
                                    "gen_ai.system": "openai",
                                    "gen_ai.request.model": "gpt-4o"}))
    fn.append(_sk_span("execute_tool Weather-get_forecast", "c3c3c3c3c3c3c3c3",
                       "a1a1a1a1a1a1a1a1", 910, 1300, **{
                           "gen_ai.operation.name": "execute_tool",
                           "gen_ai.tool.name": "Weather-get_forecast",
                           "gen_ai.tool.call.id": "call_Qq7mJ2vX",
                           "gen_ai.tool.description": "Gets the forecast for a city",
                           "gen_ai.tool.call.arguments": '{"city": "Oslo"}',
                           "gen_ai.tool.call.result": "rain, 9C"}))
    mdl.append(_sk_span("chat.completions gpt-4o", "d4d4d4d4d4d4d4d4", "a1a1a1a1a1a1a1a1",
                        1310, 2390, **{"gen_ai.operation.name": "chat.completions",
                                       "gen_ai.system": "openai",
                                       "gen_ai.request.model": "gpt-4o"}))
    fn.append(_sk_span("execute_tool Time-today", "e5e5e5e5e5e5e5e5", None, 2500, 2502, **{
        "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "Time-today",
        "gen_ai.tool.call.result": "2026-03-02"}))
    return json.dumps({"resourceSpans": [{
        "resource": {"attributes": attrs({"service.name": "weather-app"})},
        "scopeSpans": [{"scope": {"name": _SK_FUNCTION}, "spans": fn},
                       {"scope": {"name": _SK_MODEL}, "spans": mdl}]}]}).encode()


def test_semantic_kernel_app_invocations_are_not_tool_calls() -> None:
    """Semantic Kernel writes an execute_tool span for every KernelFunction invocation,
    the app's own included (its prompt function, around the chat call, and a native function
    it called itself). Before: three operations, two of them calls the agent never made. A
    reviewer should see one: Weather-get_forecast, the model's call (its call id), completed
    with its result; the app's two invocations are counted as ignored and named in a
    warning."""
    vcon, rep, m = imported(_sk_trace())
    assert errors(m) == []
    assert [(o.tool, o.outcome) for o in m.operations] == [("Weather-get_forecast",
                                                            "completed")]
    inv = next(e for e in vcon["events"] if e["type"] == "tool-invocation")
    assert "call_Qq7mJ2vX" in json.dumps(inv)
    assert rep.ignored.get("Semantic Kernel function the app invoked (no tool call id)") == 2
    assert any("WeatherApp-chat" in w and "Time-today" in w for w in rep.warnings)


def test_semantic_kernel_scope_is_what_tells_an_app_invocation() -> None:
    """The same execute_tool span without a call id from another library (no Semantic
    Kernel scope) is still a tool call, as before."""
    doc = json.loads(_sk_trace())
    for ss in doc["resourceSpans"][0]["scopeSpans"]:
        ss["scope"]["name"] = "my.app"
    _, _, m = imported(json.dumps(doc).encode())
    assert [o.tool for o in m.operations] == [
        "WeatherApp-chat", "Weather-get_forecast", "Time-today"]


def test_semantic_kernel_without_any_call_id_keeps_the_models_calls() -> None:
    """Semantic Kernel's Ollama connector makes the model's FunctionCallContent without an id,
    so no span has a call id. The prompt function the app invoked still encloses the model
    call (ignored); the function that ran after the model answered, under the same parent,
    is the model's call and stays an operation; a function the app called alone, which
    nothing tells apart, stays a tool call and a warning says so."""
    doc = json.loads(_sk_trace())
    for ss in doc["resourceSpans"][0]["scopeSpans"]:
        for sp in ss["spans"]:
            sp["attributes"] = [a for a in sp["attributes"] if a["key"] != "gen_ai.tool.call.id"]
    _, rep, m = imported(json.dumps(doc).encode())
    assert [o.tool for o in m.operations] == ["Weather-get_forecast", "Time-today"]
    assert rep.ignored.get("Semantic Kernel function the app invoked (no tool call id)") == 1
    assert any("Time-today" in w and "does not say" in w for w in rep.warnings)


#: CrewAI's text for a tool that raised on its last attempt (crewAIInc/crewAI, MIT;
#: lib/crewai/src/crewai/translations/en.json @ 71a18910… errors.tool_usage_exception, as
#: ToolUsage._use builds it in tools/tool_usage.py @ 020cf9b5…: "\n{message}.\nMoving on then. …")
_CREWAI_FAILED = (
    "\nI encountered an error while trying to use the tool. This was the error: "
    "HTTPError('503 Service Unavailable').\n Tool search_web accepts these inputs: Tool Name: "
    "search_web\nTool Arguments: {'query': {'description': None, 'type': 'str'}}\nTool "
    "Description: Search the web.\nMoving on then. Decide if you need a tool or can provide "
    "the final answer. Use one at a time.")


def test_crewai_tool_that_raised_is_a_failure_though_its_span_says_ok() -> None:
    """OpenInference's CrewAI instrumentation (Arize-ai/openinference, Apache-2.0;
    python/instrumentation/openinference-instrumentation-crewai/src/openinference/
    instrumentation/crewai/__init__.py and _wrappers.py @ 23d0985a…, _ToolUseWrapper) wraps
    ToolUsage._use in a TOOL span (scope openinference.instrumentation.crewai, name
    '{tool}._use', tool.name, input.value) that is ERROR only when _use raises, else OK with
    what it returned as output.value. CrewAI's _use (tools/tool_usage.py @ 020cf9b5…) catches
    the tool's exception, retries through use() (a nested _use span), and on the last attempt
    returns the tool_usage_exception text instead of raising: both spans end OK with that
    text. Before, the call was 'completed'. By hand: search_web failed with that text as its
    failure content (one operation, the retry nested in it); fetch, whose own output quotes the
    words later on, completed; the same text at the start of another library's span is that
    tool's output (completed)."""
    base = 1767600000

    def span(sid: str, parent: str | None, tool: str, out: str, start: int,
             end: int) -> dict[str, Any]:
        return {"traceId": "6c1e0a3b9f1d4e2a8b7c6d5e4f3a2b1c", "spanId": sid,
                **({"parentSpanId": parent} if parent else {}),
                "name": f"{tool}._use", "kind": 1,
                "startTimeUnixNano": str((base + start) * 10**9),
                "endTimeUnixNano": str((base + end) * 10**9),
                "attributes": attrs({
                    "openinference.span.kind": "TOOL", "tool.name": tool,
                    "input.value": json.dumps({"tool_string": f"Action: {tool}",
                                               "tool": f"<CrewStructuredTool {tool}>",
                                               "calling": f"tool_name='{tool}'"}),
                    "output.value": out, "output.mime_type": "text/plain"}),
                "status": {"code": 1}}
    quoted = "Page text: I encountered an error while trying to use the tool. This was the error:"
    crew = [span("0000000000000001", None, "search_web", _CREWAI_FAILED, 1, 4),
            span("0000000000000002", "0000000000000001", "search_web", _CREWAI_FAILED, 2, 4),
            span("0000000000000003", None, "fetch", quoted, 5, 6)]
    other = [span("0000000000000004", None, "echo", _CREWAI_FAILED, 7, 8)]
    data = json.dumps({"resourceSpans": [{"resource": {"attributes": attrs(
        {"service.name": "crew"})}, "scopeSpans": [
            {"scope": {"name": "openinference.instrumentation.crewai"}, "spans": crew},
            {"scope": {"name": "my.app"}, "spans": other}]}]}).encode()
    vcon, _, m = imported(data)
    assert [(o.tool, o.outcome) for o in m.operations] == [
        ("search_web", "failed"), ("fetch", "completed"), ("echo", "completed")]
    ends = [e for e in vcon["events"] if e["type"] != "tool-invocation"]
    assert ends[0]["type"] == "tool-failure" and ends[0]["body"] == _CREWAI_FAILED
    assert errors(m) == []
