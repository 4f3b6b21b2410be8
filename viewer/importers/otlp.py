"""OpenTelemetry recordings -> tool-invocation events.

Inputs (recognised by content): OTLP/JSON as the collector's file exporter writes it (one
``{"resourceSpans"|"resourceLogs"|"resourceMetrics": ...}`` object per line, kinds mixed) or
one such document; SDK span dumps (a JSON array or JSONL of spans whose attributes are a plain
object, ids hex or integers, times nanoseconds or ISO strings): the any-agent trace files
(``{"spans": [...]}``) and the Python SDK ConsoleSpanExporter shape (``context.trace_id``,
``start_time``, ``status.status_code``). ``import otlp`` also reads concatenated pretty-printed
objects (what ConsoleSpanExporter and Gemini CLI's telemetry outfile write). Also read as spans:
the OpenAI Agents SDK's own trace records (``{object: "trace.span", span_data, error}``), Arize
Phoenix's REST span pages (``{data: [span], next_cursor}``, its Span model or OtlpSpan) and
Langfuse's observations (``{data: [observation], meta}`` or a trace's ``observations``), and
LangSmith's runs (``{id, name, run_type, inputs, outputs, error, start_time, end_time, trace_id,
parent_run_id, extra}`` one per line or in a list, a ``{runs: [...]}`` page, ``child_runs``).
Jaeger's JSON (``{data: [{traceID, spans, processes}]}``) and Zipkin v2 JSON are read as the spans
they were translated from. A span written more than once (same trace and span id) is read once,
from its most complete copy.

Spans (GenAI and MCP semantic conventions):

* an ``execute_tool`` span (``gen_ai.operation.name``), an MCP ``tools/call`` span
  (``mcp.method.name``), Claude Code's ``claude_code.tool`` span, an OpenInference TOOL span, a
  Langfuse tool observation, a LangSmith tool run, an OpenAI Agents function span (Logfire's
  ``Function: {name}``) or a LiveKit ``function_tool`` span is one operation (Google ADK's
  ``execute_tool (merged)`` is not: it only groups calls): tool-invocation at its start (server:
  the MCP server from ``url.full`` / ``server.address``, else ``!host``; tool
  ``gen_ai.tool.name``; content the arguments with the call id and the span and trace ids), and at
  its end tool-result (status OK or unset), tool-failure (``error.type`` ``tool_error``, an
  ``isError`` result, or an error with a result recorded), tool-timeout / tool-cancel
  (``error.type`` says so); an error with no result is a tool-failure when a local tool's span
  names the exception its code raised, else a tool-error (refused before it ran, an MCP
  protocol error, or the span names no class: see README's OpenTelemetry section). No end
  time: no end event (running).
* a tool span whose parent is a tool span of the same tool (an MCP client span and the server
  span it caused, same ``jsonrpc.request.id``; an execute_tool span around an MCP client span)
  is the same operation, not another one.
* agent, model and other spans are context: counted as ignored by kind.

Log events (the coding agents' telemetry): ``claude_code.tool_decision`` /
``codex.tool_decision`` -> policy-decision by source (see ``_decide``); ``claude_code.tool_result``
/ ``codex.tool_result`` -> invocation and result or failure at (time - duration, time), unless a
span already records that call; ``gemini_cli.tool_call`` carries its own decision and result.
Decisions and results are joined by tool_use_id / call_id, else by tool name in order (within
the same prompt id when both have one). ``claude_tool_decisions`` gives the Claude Code
decisions of an OTLP input to other importers.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Final

import orjson

from viewer.importers.common import (
    EPOCH,
    HOST,
    TEXT,
    Events,
    Report,
    assemble,
    clip,
    parse_ts,
    vcon_uuid,
)
from viewer.importers.common import dict_or_empty as _d
from viewer.importers.common import nonempty_str as _str
from viewer.importers.formats import Format, ImportInputError, Sample, split_lines
from viewer.importers.gemini import meta_exit_code

UNKNOWN_MCP: Final = "unknown-mcp-server"
_EXPORT_KEYS: Final = ("resourceSpans", "resourceLogs", "resourceMetrics")
_SPAN_KEYS: Final = frozenset({"context", "span_id", "spanId", "start_time", "startTimeUnixNano",
                               "traceId", "trace_id", "parent_id", "parentSpanId"})
_KINDS: Final = {1: "internal", 2: "server", 3: "client", 4: "producer", 5: "consumer"}
_MAX_DEPTH: Final = 64
#: Errors a malformed record can raise while it is read; it is then counted as unmapped.
_BAD: Final = (TypeError, ValueError, KeyError, AttributeError, IndexError, OverflowError,
               RecursionError)
_MCP_NAME: Final = re.compile(r"^mcp__(.+?)__(.+)$")
_HEX: Final = re.compile(r"[0-9a-fA-F]+").fullmatch
_REJECTS: Final = frozenset({"reject", "rejected", "denied", "deny", "abort"})
_TIMEOUTS: Final = re.compile(r"(?i)(^timeout$|timeout(error|exception)?$|deadline_exceeded)")
_CANCELS: Final = re.compile(r"(?i)(^cancel(l)?ed$|cancel(l)?ed(error)?$|^abort)")
#: Exception classes (the last part of a dotted name) raised when a call is refused before the
#: tool's code runs: its arguments failed the schema (pydantic's ValidationError, as LangChain's
#: BaseTool.run and others check them), the OpenAI Agents SDK's ModelBehaviorError (invalid JSON
#: input, a tool not found), AutoGen's InvalidToolArgumentsException / ToolNotFoundException,
#: LangChain.js's ToolInputParsingException, the Vercel AI SDK's errors as JavaScript names
#: them (``AI_InvalidToolInputError``, formerly ``AI_InvalidToolArgumentsError``,
#: ``AI_NoSuchToolError``), Semantic Kernel's FunctionExecutionException (what its method
#: functions raise for a required argument missing or not parseable, before the method runs;
#: the method's own exception keeps its class), smolagents' AgentToolCallError (its arguments
#: failed validate_tool_arguments, or the tool was not found; its AgentToolExecutionError
#: also wraps the tool's own exception, so it says nothing of whether the tool ran).
_PRE_RUN: Final = re.compile(r"^(ValidationError|ModelBehaviorError|InvalidToolArgumentsException"
                             r"|ToolNotFoundException|ToolInputParsingException"
                             r"|FunctionExecutionException|AgentToolCallError|(AI_)?("
                             r"InvalidToolInputError|InvalidToolArgumentsError|NoSuchToolError))$")
#: Log events this importer maps (others are ignored by name).
TOOL_LOGS: Final = frozenset({
    "claude_code.tool_decision", "claude_code.tool_result", "codex.tool_decision",
    "codex.tool_result", "gemini_cli.tool_call",
})


# --- reading ----------------------------------------------------------------------------------


@dataclass
class Span:
    where: str
    order: int
    name: str
    trace_id: str | None
    span_id: str | None
    parent_id: str | None
    kind: str
    start: datetime | None
    end: datetime | None
    status: str  # ok | unset | error
    status_message: str | None
    attrs: dict[str, Any]
    events: list[tuple[str, datetime | None, dict[str, Any]]]
    resource: dict[str, Any]
    #: the instrumentation scope's name (which library wrote the span), "" when not recorded
    scope: str = ""
    #: a Semantic Kernel function the application invoked itself (``_mark_sk_app_calls``)
    app_call: bool = False


@dataclass
class LogRec:
    where: str
    order: int
    name: str | None
    time: datetime | None
    attrs: dict[str, Any]
    body: Any
    resource: dict[str, Any]


@dataclass
class Reading:
    spans: list[Span] = field(default_factory=list)
    logs: list[LogRec] = field(default_factory=list)
    report: Report = field(default_factory=Report)
    forms: set[str] = field(default_factory=set)
    records: int = 0
    naive: bool = False


def _any_value(v: Any, depth: int = 0) -> Any:
    """An OTLP/JSON AnyValue as a plain value (a bare value is returned as it is)."""
    if depth > _MAX_DEPTH:
        raise RecursionError("attribute value too deep")
    if not isinstance(v, dict):
        return v
    if "stringValue" in v:
        return v["stringValue"]
    if "boolValue" in v:
        return v["boolValue"]
    if "intValue" in v:
        iv = v["intValue"]
        return int(iv) if isinstance(iv, str) and iv.lstrip("-").isdigit() else iv
    if "doubleValue" in v:
        return v["doubleValue"]
    if "arrayValue" in v:
        arr = v["arrayValue"]
        vals = arr.get("values", []) if isinstance(arr, dict) else []
        return [_any_value(x, depth + 1) for x in vals] if isinstance(vals, list) else []
    if "kvlistValue" in v:
        kv = v["kvlistValue"]
        vals = kv.get("values", []) if isinstance(kv, dict) else []
        return _kv(vals, depth + 1)
    if "bytesValue" in v:
        return {"bytes_base64": v["bytesValue"]}
    if not v:
        return None
    return v


def _kv(items: Any, depth: int = 0) -> dict[str, Any]:
    """OTLP ``[{key, value}]`` attributes, or an SDK dump's plain object, as a dict."""
    if isinstance(items, dict):
        return items
    out: dict[str, Any] = {}
    if not isinstance(items, list):
        return out
    for it in items:
        if isinstance(it, dict) and isinstance(it.get("key"), str):
            out[it["key"]] = _any_value(it.get("value"), depth)
    return out


def _id(v: Any, width: int) -> str | None:
    """A trace or span id as lower-case hex: hex text (with or without 0x), an integer (the
    SDK dumps), or base64 (the protobuf JSON mapping)."""
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, int):
        return format(v, f"0{width}x") if v > 0 else None
    if not isinstance(v, str) or not v:
        return None
    s = v[2:] if v[:2].lower() == "0x" else v
    if _HEX(s):
        return None if set(s) == {"0"} else s.lower()
    try:
        raw = base64.b64decode(s, validate=True)
    except (binascii.Error, ValueError):
        return s  # an id we cannot decode: kept as written
    return raw.hex() if raw else None


def _time(v: Any) -> tuple[datetime | None, bool]:
    """Nanoseconds (int or digit string), hrTime [s, ns], seconds/ms/us by size, or ISO."""
    if isinstance(v, bool) or v is None:
        return None, False
    if isinstance(v, list) and len(v) == 2 and all(
            isinstance(x, int) and not isinstance(x, bool) for x in v):
        v = v[0] * 1_000_000_000 + v[1]
    if isinstance(v, str) and v.strip().isdigit():
        v = int(v.strip())
    if isinstance(v, (int, float)):
        if v <= 0 or v != v:
            return None, False
        try:
            if v >= 1e17:
                return EPOCH + timedelta(microseconds=int(v) // 1000), False
            if v >= 1e14:
                return EPOCH + timedelta(microseconds=int(v)), False
            if v >= 1e11:
                return EPOCH + timedelta(milliseconds=v), False
            return EPOCH + timedelta(seconds=v), False
        except OverflowError:
            return None, False
    if isinstance(v, str):
        return parse_ts(v.strip())
    return None, False


def _kind(v: Any) -> str:
    if isinstance(v, int) and not isinstance(v, bool):
        return _KINDS.get(v, "")
    if isinstance(v, str):
        return v.rsplit(".", 1)[-1].rsplit("_", 1)[-1].lower()
    return ""


def _status(v: Any) -> tuple[str, str | None]:
    if not isinstance(v, dict):
        return "unset", None
    code = v.get("code", v.get("status_code"))
    msg = _str(v.get("message")) or _str(v.get("description"))
    if code in (2, "2") or (isinstance(code, str) and code.upper().endswith("ERROR")):
        return "error", msg
    if code in (1, "1") or (isinstance(code, str) and code.upper().endswith("OK")):
        return "ok", msg
    return "unset", msg


def _span(obj: dict[str, Any], where: str, order: int, resource: dict[str, Any],
          rd: Reading, scope: str = "") -> Span:
    """One span in either dialect (OTLP/JSON, or an SDK dump)."""
    ctx = obj.get("context") if isinstance(obj.get("context"), dict) else {}
    parent = obj.get("parent")
    if isinstance(parent, dict):
        parent_id = _id(parent.get("span_id", parent.get("spanId")), 16)
    else:
        parent_id = _id(obj.get("parentSpanId", obj.get("parent_id", obj.get("parent_span_id",
                                                                             parent))), 16)
    start, n1 = _time(obj.get("startTimeUnixNano", obj.get("start_time", obj.get("startTime"))))
    end, n2 = _time(obj.get("endTimeUnixNano", obj.get("end_time", obj.get("endTime"))))
    rd.naive = rd.naive or n1 or n2
    status, msg = _status(obj.get("status"))
    events: list[tuple[str, datetime | None, dict[str, Any]]] = []
    evs = obj.get("events")
    for e in evs if isinstance(evs, list) else []:
        if isinstance(e, dict):
            t, _ = _time(e.get("timeUnixNano", e.get("timestamp", e.get("time"))))
            events.append((str(e.get("name", "")), t, _kv(e.get("attributes"))))
    res = obj.get("resource")
    if isinstance(res, dict) and not resource:
        resource = _kv(res.get("attributes", res))
    name = obj.get("name")
    attrs = dict(_kv(obj.get("attributes")))
    if not scope:  # Jaeger's and Zipkin's tags for it (the OTLP translation writes them)
        scope = _str(attrs.get("otel.scope.name")) or _str(attrs.get("otel.library.name")) or ""
    return Span(
        where=where, order=order, name=name if isinstance(name, str) else "",
        trace_id=_id(obj.get("traceId", obj.get("trace_id", ctx.get("trace_id",
                                                                     ctx.get("traceId")))), 32),
        span_id=_id(obj.get("spanId", obj.get("span_id", ctx.get("span_id",
                                                                 ctx.get("spanId")))), 16),
        parent_id=parent_id, kind=_kind(obj.get("kind")), start=start, end=end,
        status=status, status_message=msg, attrs=attrs, events=events, resource=resource,
        scope=scope)


def _log_name(attrs: dict[str, Any], body: Any, explicit: Any) -> str | None:
    """The event's full name: ``eventName``, ``event.name`` or the body (Claude Code writes
    ``event.name: tool_decision`` with body ``claude_code.tool_decision``)."""
    names = [n for n in (_str(explicit), _str(attrs.get("event.name")), _str(body)) if n]
    for n in names:
        if n in TOOL_LOGS:
            return n
    short = _str(attrs.get("event.name"))
    if short and isinstance(body, str) and body.endswith("." + short) and len(body) < 200:
        return body
    for n in names:
        if len(n) <= 80 and " " not in n:
            return n
    return None


def _log(obj: dict[str, Any], where: str, order: int, resource: dict[str, Any],
         rd: Reading) -> LogRec:
    attrs = dict(_kv(obj.get("attributes")))
    body = _any_value(obj.get("body", obj.get("_body")))
    t, naive = _time(obj.get("timeUnixNano", obj.get("hrTime", obj.get("timestamp",
                                                                        obj.get("time")))))
    if t is None:
        t, naive = _time(attrs.get("event.timestamp"))
    if t is None:
        t, naive = _time(obj.get("observedTimeUnixNano", obj.get("hrTimeObserved")))
    rd.naive = rd.naive or naive
    res = obj.get("resource")
    if isinstance(res, dict) and not resource:
        resource = _kv(res.get("attributes", res))
    return LogRec(where=where, order=order, name=_log_name(attrs, body, obj.get("eventName")),
                  time=t, attrs=attrs, body=body, resource=resource)


def _is_span(obj: Any) -> bool:
    return isinstance(obj, dict) and isinstance(obj.get("name"), str) and bool(
        _SPAN_KEYS.intersection(obj))


def _is_log(obj: Any) -> bool:
    if not isinstance(obj, dict) or _is_span(obj):
        return False
    attrs = obj.get("attributes")
    if isinstance(attrs, dict) and isinstance(attrs.get("event.name"), str):
        return True
    return ("timeUnixNano" in obj or "hrTime" in obj) and ("body" in obj or "_body" in obj
                                                           or "attributes" in obj)


def _is_export(obj: Any) -> bool:
    return isinstance(obj, dict) and any(isinstance(obj.get(k), list) for k in _EXPORT_KEYS)


#: OTLP/JSON with the protobuf field names (``resource_spans``, ``start_time_unix_nano``,
#: ``string_value``...): what protobuf's JSON printers write when told to keep them; every
#: OTLP/JSON reader accepts both spellings.
_SNAKE_EXPORT_KEYS: Final = ("resource_spans", "resource_logs", "resource_metrics")


def _is_snake_export(obj: Any) -> bool:
    return isinstance(obj, dict) and any(isinstance(obj.get(k), list)
                                         for k in _SNAKE_EXPORT_KEYS)


def _camel(v: Any, depth: int = 0) -> Any:
    """The export's object keys in lowerCamelCase (attribute names are values of ``key``, and
    are kept as they are)."""
    if depth > _MAX_DEPTH:
        raise RecursionError("export too deep")
    if isinstance(v, dict):
        return {re.sub(r"_([a-z0-9])", lambda m: m.group(1).upper(), k)
                if isinstance(k, str) else k: _camel(x, depth + 1) for k, x in v.items()}
    if isinstance(v, list):
        return [_camel(x, depth + 1) for x in v]
    return v


def _take(value: Any, where: str, rd: Reading, depth: int = 0) -> None:
    """One top-level JSON value of the input: an OTLP export, a span dump, a span, a log."""
    rep = rd.report
    if _is_snake_export(value) and not _is_export(value):
        try:
            value = _camel(value)
        except RecursionError:
            rd.records += 1
            rep.fail(where, "an OTLP export nested too deep to read")
            return
        rd.forms.add("otlp-json-proto-names")
        _export(value, where, rd)
    elif _is_export(value):
        rd.forms.add("otlp-json")
        _export(value, where, rd)
    elif (traces := _jaeger_traces(value)) is not None:
        rd.forms.add("jaeger")
        for w, trace in traces:
            procs = trace.get("processes")
            for i, s in enumerate(trace["spans"]):
                _one(_from_jaeger(s, procs if isinstance(procs, dict) else {}),
                     f"{where}{w}/spans/{i}", {}, rd)
    elif isinstance(value, dict) and isinstance(value.get("spans"), list):
        rd.forms.add("span-dump")
        for i, s in enumerate(value["spans"]):
            _one(s, f"{where}/spans/{i}", {}, rd)
    elif _is_observations(value):
        rd.forms.add("langfuse-observations")
        key = "data" if isinstance(value.get("data"), list) else "observations"
        for i, s in enumerate(value[key]):
            _one(_from_langfuse(s), f"{where}/{key}/{i}", {}, rd)
    elif _is_ls_page(value):
        rd.forms.add("langsmith-runs")
        for i, r in enumerate(value["runs"]):
            _ls_tree(r, f"{where}/runs/{i}", rd)
    elif _is_ls_run(value):
        rd.forms.add("langsmith-runs")
        _ls_tree(value, where, rd)
    elif _is_span_page(value):
        rd.forms.add("phoenix-spans")
        for i, s in enumerate(value["data"]):
            _one(_from_phoenix(s), f"{where}/data/{i}", {}, rd)
    elif isinstance(value, list) and depth < 2:
        for i, item in enumerate(value):
            _take(item, f"{where}[{i}]", rd, depth + 1)
    elif _is_agents_record(value):
        rd.forms.add("openai-agents")
        if value.get("object") == "trace":
            rd.records += 1
            rep.ignore("OpenAI Agents trace record")
        else:
            _one(_from_agents(value), where, {}, rd)
    elif _is_zipkin(value):
        rd.forms.add("zipkin")
        _one(_from_zipkin(value), where, {}, rd)
    elif _is_span(value) or _is_log(value):
        rd.forms.add("sdk-json")
        _one(value, where, {}, rd)
    else:
        rd.records += 1
        rep.fail(where, "not a span, a log record or an OTLP export")


def _is_observation(v: Any) -> bool:
    """A Langfuse observation as its API gives it (``{id, traceId, type, name, startTime,
    endTime, input, output, level, statusMessage, parentObservationId, metadata}``)."""
    return isinstance(v, dict) and isinstance(v.get("traceId"), str) and isinstance(
        v.get("type"), str) and "startTime" in v and "id" in v and "spanId" not in v


def _is_observations(v: Any) -> bool:
    """A Langfuse API page of observations (``{data: [...], meta}``) or a trace with its
    observations (``{id, ..., observations: [...]}``)."""
    if not isinstance(v, dict):
        return False
    items = v.get("data") if isinstance(v.get("data"), list) else v.get("observations")
    return isinstance(items, list) and bool(items) and all(
        _is_observation(x) for x in items[:16])


def _from_langfuse(o: Any) -> Any:
    """A Langfuse observation as a span with the attributes Langfuse's own SDK writes (its
    OpenTelemetry attributes, when it kept them, under metadata.attributes)."""
    if not isinstance(o, dict):
        return o
    meta = o.get("metadata") if isinstance(o.get("metadata"), dict) else {}
    a = dict(meta["attributes"]) if isinstance(meta.get("attributes"), dict) else {}
    a[_LF + "type"] = str(o.get("type", "")).lower()
    for k, f in (("input", "input"), ("output", "output"), ("level", "level"),
                 ("status_message", "statusMessage")):
        if o.get(f) is not None:
            a.setdefault(_LF + k, o[f])
    return {"name": o.get("name") if isinstance(o.get("name"), str) else "",
            "trace_id": o.get("traceId"), "span_id": o.get("id"),
            "parent_id": o.get("parentObservationId"), "start_time": o.get("startTime"),
            "end_time": o.get("endTime"), "attributes": a}


def _is_span_page(v: Any) -> bool:
    """A page of Arize Phoenix's REST API (``{data: [span, ...], next_cursor}``): its Span
    model, or OtlpSpan in the protobuf field names (``.../spans/otlpv1``)."""
    if not isinstance(v, dict) or not isinstance(v.get("data"), list) or not v["data"]:
        return False
    return all(_has_span_id(x) for x in v["data"][:16])


def _from_phoenix(s: Any) -> Any:
    """A Phoenix span as a span the reader knows: an OtlpSpan's field names in camelCase;
    the Span model's span_kind back as the openinference.span.kind attribute (Phoenix pops
    it), its status_code and status_message as the status."""
    if not isinstance(s, dict):
        return s
    if "start_time_unix_nano" in s or isinstance(s.get("attributes"), list):
        return _camel(s)
    out = dict(s)
    a = dict(s["attributes"]) if isinstance(s.get("attributes"), dict) else {}
    if isinstance(s.get("span_kind"), str) and "openinference.span.kind" not in a:
        a["openinference.span.kind"] = s["span_kind"]
    out["attributes"] = a
    if "status" not in s and "status_code" in s:
        out["status"] = {"status_code": s.get("status_code"),
                         "description": s.get("status_message")}
    return out


#: A LangSmith run's fields as read (``langsmith.run_type`` and the tool's arguments, output,
#: error and call id), as span attributes.
_LSR: Final = "langsmith."


def _is_ls_run(v: Any) -> bool:
    """A LangSmith run (langsmith-sdk ``schemas.Run``: ``{id, name, run_type, start_time,
    end_time, inputs, outputs, error, extra, events, trace_id, parent_run_id, dotted_order,
    status}``), as ``client.list_runs`` / ``read_run`` and the REST API give it."""
    return isinstance(v, dict) and isinstance(v.get("run_type"), str) and isinstance(
        v.get("name"), str) and "id" in v and "start_time" in v and "span_id" not in v \
        and "spanId" not in v


def _is_ls_page(v: Any) -> bool:
    """A page of LangSmith's REST API (POST /runs/query): ``{runs: [...], cursors}``."""
    return isinstance(v, dict) and isinstance(v.get("runs"), list) and bool(v["runs"]) \
        and all(_is_ls_run(x) for x in v["runs"][:16])


def _ls_tree(run: Any, where: str, rd: Reading, depth: int = 0) -> None:
    """A run, and the child runs it carries (``read_run(load_child_runs=True)``)."""
    _one(_from_langsmith(run), where, {}, rd)
    kids = run.get("child_runs") if isinstance(run, dict) else None
    if isinstance(kids, list) and depth < _MAX_DEPTH:
        for i, k in enumerate(kids):
            _ls_tree(k, f"{where}/child_runs/{i}", rd, depth + 1)


def _ls_message(v: Any) -> dict[str, Any] | None:
    """A LangChain ToolMessage as a tool run's output holds it: its fields (``{content,
    type: "tool", tool_call_id, status}``), or its serialized form (``{lc, type:
    "constructor", id: [..., "ToolMessage"], kwargs}``); None when it is not one."""
    if not isinstance(v, dict):
        return None
    if v.get("lc") == 1 and isinstance(v.get("id"), list) and v["id"][-1:] == ["ToolMessage"] \
            and isinstance(v.get("kwargs"), dict):
        return v["kwargs"]
    return v if v.get("type") == "tool" and "content" in v else None


#: The exception class an error text starts with (LangChain records ``repr(error)`` then
#: the traceback: ``TimeoutError('...')Traceback ...``).
_LS_EXC: Final = re.compile(r"^\s*([A-Za-z_][\w.]*(?:Error|Exception|Timeout|Cancelled|"
                            r"Interrupt|Exit))\b")


#: A traceback's last line, naming the exception raised (``module.Class: message``).
_LS_TB_EXC: Final = re.compile(r"^([A-Za-z_][\w.]*(?:Error|Exception)):", re.M)


def _ls_last_exc(err: str) -> re.Match[str] | None:
    """The exception a LangSmith error text's traceback ends with, when its ``repr`` does not
    start with the class (pydantic's ValidationError's repr is its message, '1 validation
    error for ...')."""
    if "Traceback (most recent call last):" not in err:
        return None
    found = list(_LS_TB_EXC.finditer(err))
    return found[-1] if found else None


def _from_langsmith(run: Any) -> Any:
    """A LangSmith run as a span: named by its name, its ids and times as recorded; a tool
    run's arguments (``inputs``; LangChain's ``{input: text}`` before langchain-core 0.3 is
    the text), its output (``outputs.output``, a ToolMessage's content), its error text and
    its tool call id (``extra.tool_call_id``, ``extra.metadata``, a ToolCall input ``{type:
    "tool_call", id, name, args}``, the ToolMessage) as
    attributes (inputs, outputs and extra written as JSON text decoded); an error (or status
    ``error``) as status ERROR."""
    if not isinstance(run, dict):
        return run
    # a bulk export's rows (Parquet) keep inputs, outputs and extra as JSON text
    run = {**run, **{k: _json_or_text(run[k]) for k in ("inputs", "outputs", "extra")
                     if isinstance(run.get(k), str)}}
    kind = run.get("run_type")
    a: dict[str, Any] = {_LSR + "run_type": kind}
    err = run.get("error")
    failed = bool(err) or run.get("status") == "error"
    if kind == "tool":
        inputs = run.get("inputs")
        if isinstance(inputs, dict) and set(inputs) == {"input"}:
            inputs = inputs["input"]
        asked = None
        if isinstance(inputs, dict) and inputs.get("type") == "tool_call" and "args" in inputs:
            asked, inputs = inputs.get("id"), inputs["args"]  # a LangChain ToolCall traced whole
        if inputs not in (None, {}, ""):
            a[_LSR + "arguments"] = inputs
        outputs = run.get("outputs")
        out = outputs.get("output", outputs) if isinstance(outputs, dict) and set(
            outputs) <= {"output"} else outputs
        msg = _ls_message(out)
        extra = run.get("extra") if isinstance(run.get("extra"), dict) else {}
        meta = extra.get("metadata") if isinstance(extra.get("metadata"), dict) else {}
        call_id = extra.get("tool_call_id") or meta.get("tool_call_id") or asked or (
            msg.get("tool_call_id") if msg else None)
        if _str(call_id):
            a["tool_call_id"] = call_id
        if msg is not None:
            if str(msg.get("status", "")).lower() == "error":
                a[_LSR + "tool_status"] = "error"
            out = msg.get("content")
        if out not in (None, {}):
            a[_LSR + "output"] = out
        if isinstance(err, str) and err:
            m = _LS_EXC.match(err) or _ls_last_exc(err)
            if m:
                a["error.type"] = m.group(1).rsplit(".", 1)[-1]
    return {"name": run.get("name") if isinstance(run.get("name"), str) else "",
            "trace_id": run.get("trace_id"), "span_id": run.get("id"),
            "parent_id": run.get("parent_run_id"), "start_time": run.get("start_time"),
            "end_time": run.get("end_time"), "attributes": a,
            "status": {"status_code": "ERROR", "description": err if isinstance(err, str)
                       else None} if failed else {}}


def _is_jaeger_trace(v: Any) -> bool:
    """A trace as Jaeger's query API and UI give it (``{traceID, spans, processes}``)."""
    return isinstance(v, dict) and isinstance(v.get("traceID"), str) \
        and isinstance(v.get("spans"), list)


def _jaeger_traces(v: Any) -> list[tuple[str, dict[str, Any]]] | None:
    """The traces of a Jaeger JSON export (the UI's download and ``/api/traces``: ``{data:
    [trace, ...]}``, or one trace), each with where it is; None when it is not one."""
    if _is_jaeger_trace(v):
        return [("", v)]
    data = v.get("data") if isinstance(v, dict) else None
    if isinstance(data, list) and data and all(_is_jaeger_trace(t) for t in data):
        return [(f"/data/{i}", t) for i, t in enumerate(data)]
    return None


def _is_jaeger_span(v: Any) -> bool:
    return isinstance(v, dict) and isinstance(v.get("operationName"), str) \
        and ("spanID" in v or "traceID" in v)


#: Tags an OTLP -> Jaeger / Zipkin translation adds for what OTLP keeps outside attributes.
_TRANSLATED: Final = frozenset({"span.kind", "otel.status_code", "otel.status_description"})


def _micros(v: Any) -> int | None:
    """Jaeger's and Zipkin's microseconds (a number, or its digits as text) as nanoseconds."""
    if isinstance(v, str) and v.strip().isdigit():
        v = int(v.strip())
    return v * 1000 if isinstance(v, int) and not isinstance(v, bool) and v > 0 else None


def _translated_status(tags: dict[str, Any]) -> dict[str, Any]:
    """OTLP's status as Jaeger / Zipkin carry it: ``otel.status_code`` and
    ``otel.status_description``, or the older ``error`` tag (true in Jaeger; in Zipkin its
    presence, its value the message)."""
    code, _ = _status({"code": tags.get("otel.status_code")})  # "ERROR", or 2 (older SDKs)
    err = tags.get("error")
    said = _str(tags.get("otel.status_description")) or (
        _str(err) if _bool(err) is None else None)
    failed = code == "error" or err is True or (isinstance(err, str) and _bool(err) is not False)
    return {"status_code": "ERROR" if failed else code.upper(), "description": said}


def _plain_tags(tags: dict[str, Any]) -> dict[str, Any]:
    return {k: x for k, x in tags.items() if k not in _TRANSLATED and k != "error"}


def _from_jaeger(s: Any, processes: dict[str, Any]) -> Any:
    """A Jaeger span (``operationName``, ``references``, ``startTime`` / ``duration`` in
    microseconds, ``tags`` and ``logs`` as ``[{key, type, value}]``, its process by
    ``processID``) as an SDK span dump; a span event is a log whose ``event`` field names it."""
    if not _is_jaeger_span(s):
        return s
    tags = _kv(s.get("tags"))
    refs = s.get("references")
    refs = [r for r in refs if isinstance(r, dict)] if isinstance(refs, list) else []
    parent = next((r.get("spanID") for r in refs if r.get("refType") == "CHILD_OF"
                   and r.get("traceID") in (None, s.get("traceID"))), None)
    parent = parent or s.get("parentSpanID") or next((r.get("spanID") for r in refs), None)
    start = _micros(s.get("startTime"))
    dur = _micros(s.get("duration"))
    events = []
    logs = s.get("logs")
    for log in logs if isinstance(logs, list) else []:
        if isinstance(log, dict):
            fields = _kv(log.get("fields"))
            name = fields.pop("event", None)
            events.append({"name": name if isinstance(name, str) else "log",
                           "timestamp": _micros(log.get("timestamp")), "attributes": fields})
    proc, pid = s.get("process"), s.get("processID")
    if not isinstance(proc, dict) and isinstance(pid, str):
        proc = processes.get(pid)
    resource: dict[str, Any] = {}
    if isinstance(proc, dict):
        resource = dict(_kv(proc.get("tags")))
        if isinstance(proc.get("serviceName"), str):
            resource["service.name"] = proc["serviceName"]
    return {"name": s["operationName"], "trace_id": s.get("traceID"), "span_id": s.get("spanID"),
            "parent_id": parent, "kind": tags.get("span.kind"), "start_time": start,
            "end_time": start + dur if start is not None and dur is not None else None,
            "attributes": _plain_tags(tags), "status": _translated_status(tags),
            "events": events, "resource": resource}


def _is_zipkin(v: Any) -> bool:
    """A Zipkin v2 span (``{traceId, id, parentId, name, kind, timestamp, duration,
    localEndpoint, tags, annotations}``: tags a plain object of strings, times microseconds)."""
    if not (isinstance(v, dict) and isinstance(v.get("traceId"), str)
            and isinstance(v.get("id"), str)):
        return False
    if any(k in v for k in ("spanId", "startTime", "attributes", "startTimeUnixNano")):
        return False  # OTLP, or a Langfuse observation
    return isinstance(v.get("tags"), dict) or any(
        k in v for k in ("localEndpoint", "remoteEndpoint", "annotations", "timestamp"))


def _zipkin_event(a: Any) -> dict[str, Any] | None:
    """A Zipkin annotation as a span event: its value is the event's name, or as OTLP
    translators write an event with attributes, ``name|{json}|dropped`` (the collector) or
    ``{"name": {attributes}}`` (the Python exporter)."""
    if not isinstance(a, dict) or not isinstance(a.get("value"), str):
        return None
    value, name, attrs = a["value"], a["value"], {}
    try:
        if value.startswith("{"):
            d = json.loads(value)
            if isinstance(d, dict) and len(d) == 1:
                name, attrs = next(iter(d.items()))
        elif value.count("|") >= 2:
            head, rest = value.split("|", 1)
            body = rest.rsplit("|", 1)[0]
            d = json.loads(body)
            if isinstance(d, dict):
                name, attrs = head, d
    except (ValueError, RecursionError):
        pass
    return {"name": name, "timestamp": _micros(a.get("timestamp")),
            "attributes": attrs if isinstance(attrs, dict) else {}}


def _from_zipkin(s: dict[str, Any]) -> dict[str, Any]:
    """A Zipkin v2 span as an SDK span dump."""
    tags = s.get("tags") if isinstance(s.get("tags"), dict) else {}
    start = _micros(s.get("timestamp"))
    dur = _micros(s.get("duration"))
    local = s.get("localEndpoint")
    svc = local.get("serviceName") if isinstance(local, dict) else None
    anns = s.get("annotations")
    return {"name": s.get("name") if isinstance(s.get("name"), str) else "",
            "trace_id": s.get("traceId"), "span_id": s.get("id"), "parent_id": s.get("parentId"),
            "kind": s.get("kind"), "start_time": start,
            "end_time": start + dur if start is not None and dur is not None else None,
            "attributes": _plain_tags(tags), "status": _translated_status(tags),
            "events": [e for e in map(_zipkin_event, anns if isinstance(anns, list) else [])
                       if e is not None],
            "resource": {"service.name": svc} if isinstance(svc, str) else {}}


def _is_agents_record(v: Any) -> bool:
    """The OpenAI Agents SDK's own trace records (``Trace.export()`` / ``Span.export()``):
    ``{object: "trace", id, workflow_name}`` and ``{object: "trace.span", id, trace_id,
    parent_id, started_at, ended_at, span_data: {type, ...}, error}``."""
    return isinstance(v, dict) and (
        (v.get("object") == "trace.span" and isinstance(v.get("span_data"), dict))
        or (v.get("object") == "trace" and isinstance(v.get("id"), str)))


def _from_agents(v: dict[str, Any]) -> dict[str, Any]:
    """An OpenAI Agents SDK span record as an SDK span dump: named by its type, its
    span_data (and error) as attributes under the names Logfire gives them."""
    data = v["span_data"]
    kind = str(data.get("type") or "span")
    a = {k: x for k, x in data.items() if k != "type" and x is not None}
    a["openai_agents.span_type"] = kind
    err = v.get("error")
    if err:
        a["error"] = err
    return {"name": _AGENTS_FUNCTION if kind == "function" else f"openai_agents.{kind}",
            "trace_id": v.get("trace_id"), "span_id": v.get("id"),
            "parent_id": v.get("parent_id"), "start_time": v.get("started_at"),
            "end_time": v.get("ended_at"), "attributes": a,
            "status": {"status_code": "ERROR"} if err else {}}


def _one(obj: Any, where: str, resource: dict[str, Any], rd: Reading, log: bool = False,
         scope: str = "") -> None:
    rd.records += 1
    if not isinstance(obj, dict):
        rd.report.fail(where, "not an object")
        return
    try:
        if log or _is_log(obj):
            rd.logs.append(_log(obj, where, rd.records, resource, rd))
        elif isinstance(obj.get("name"), str) or _SPAN_KEYS.intersection(obj):
            rd.spans.append(_span(obj, where, rd.records, resource, rd, scope))
        else:
            rd.report.fail(where, "neither a span nor a log record")
    except _BAD:
        rd.report.fail(where, "malformed span or log record")


def _export(doc: dict[str, Any], where: str, rd: Reading) -> None:
    rep = rd.report
    for key, scopes_key, items_key in (("resourceSpans", "scopeSpans", "spans"),
                                       ("resourceLogs", "scopeLogs", "logRecords")):
        groups = doc.get(key)
        if groups is None:
            continue
        if not isinstance(groups, list):
            rd.records += 1
            rep.fail(f"{where}/{key}", "not a list")
            continue
        for i, rs in enumerate(groups):
            w = f"{where}/{key}/{i}"
            if not isinstance(rs, dict):
                rd.records += 1
                rep.fail(w, "not an object")
                continue
            res = rs.get("resource")
            resource = _kv(res.get("attributes")) if isinstance(res, dict) else {}
            scopes = rs.get(scopes_key, rs.get("instrumentationLibrarySpans"
                                               if items_key == "spans" else
                                               "instrumentationLibraryLogs"))
            for j, ss in enumerate(scopes if isinstance(scopes, list) else []):
                items = ss.get(items_key) if isinstance(ss, dict) else None
                sc = ss.get("scope", ss.get("instrumentationLibrary")) \
                    if isinstance(ss, dict) else None
                scope = _str(sc.get("name")) if isinstance(sc, dict) else None
                if not isinstance(items, list):
                    rd.records += 1
                    rep.fail(f"{w}/{scopes_key}/{j}", f"no {items_key} list")
                    continue
                for k, obj in enumerate(items):
                    _one(obj, f"{w}/{scopes_key}/{j}/{items_key}/{k}", resource, rd,
                         log=items_key == "logRecords", scope=scope or "")
    metrics = doc.get("resourceMetrics")
    if isinstance(metrics, list):
        for rm in metrics:
            sms = rm.get("scopeMetrics") if isinstance(rm, dict) else None
            for sm in sms if isinstance(sms, list) else []:
                ms = sm.get("metrics") if isinstance(sm, dict) else None
                for _ in ms if isinstance(ms, list) else []:
                    rd.records += 1
                    rep.ignore("metric")


#: An integer literal too long for 64 bits (orjson would read it as a rounded float).
_BIG_INT: Final = re.compile(rb'(?<![\w."])-?\d{20,}(?![\w."])')
_DIGITS20: Final = re.compile(rb"\d{20}").search  # the fast first look


def _loads(text: str | bytes) -> Any:
    """JSON, exactly: orjson, unless the text has integers beyond 64 bits (the SDK dumps'
    128-bit trace ids, which orjson rounds to floats) or NaN: then the standard library."""
    raw = text.encode() if isinstance(text, str) else text
    # OTLP/JSON writes 64-bit integers as strings: only the SDK dumps need the slow look
    head = raw[:4096]
    otlp = b'"resourceSpans"' in head or b'"resourceLogs"' in head \
        or b'"resourceMetrics"' in head
    if otlp or _DIGITS20(raw) is None or not _BIG_INT.search(raw):
        try:
            return orjson.loads(raw)
        except orjson.JSONDecodeError:
            pass
    return json.loads(raw.decode("utf-8", errors="replace"), parse_constant=lambda _c: None)


def _concatenated(text: str) -> list[Any] | None:
    """Pretty-printed JSON values one after another (ConsoleSpanExporter, Gemini CLI's
    outfile), or None when the text is not entirely that."""
    dec = json.JSONDecoder(parse_constant=lambda _c: None)
    out: list[Any] = []
    i, n = 0, len(text)
    while True:
        while i < n and text[i] in " \t\r\n":
            i += 1
        if i >= n:
            return out if len(out) > 1 else None
        try:
            value, i = dec.raw_decode(text, i)
        except (ValueError, RecursionError):
            return None
        out.append(value)


def _dedupe(rd: Reading) -> None:
    """One span per (trace id, span id): an exporter that prints a span when it starts and
    again when it ends, or twice (Microsoft Agent Framework's samples), is one span. The most
    complete copy is kept (an ended one, the last such), with the attributes and events only
    another copy has; the others are counted as ignored. Copies share their name and start
    too: two spans that differ there are two spans reusing an id, and both are kept."""
    copies: dict[tuple[str, str, str, datetime | None], list[Span]] = {}
    for s in rd.spans:
        if s.trace_id and s.span_id:
            copies.setdefault((s.trace_id, s.span_id, s.name, s.start), []).append(s)
    dropped: set[int] = set()
    for group in copies.values():
        if len(group) < 2:
            continue
        ended = [s for s in group if s.end is not None]
        keep = (ended or group)[-1]
        for s in group:
            if s is keep:
                continue
            keep.attrs = {**s.attrs, **keep.attrs}
            if not keep.events:
                keep.events = s.events
            if keep.status == "unset" and s.status != "unset":
                keep.status, keep.status_message = s.status, s.status_message
            dropped.add(id(s))
            rd.report.ignore("duplicate span copy (same trace and span id)")
    if dropped:
        rd.spans = [s for s in rd.spans if id(s) not in dropped]
        rd.report.warn(f"{len(dropped)} span(s) recorded more than once (same trace and span "
                       "id, as an exporter writes a span when it starts and again when it "
                       "ends): each is read once, from its most complete copy")


def read(data: bytes) -> Reading:
    """Every span and log record of the input; raises ImportInputError when there is none."""
    rd = Reading()
    if data[:3] == b"\xef\xbb\xbf":
        data = data[3:]
    text = data.decode("utf-8", errors="replace")
    whole: Any = None
    try:
        whole = _loads(data)
        is_doc = True
    except (ValueError, RecursionError):
        is_doc = False
    if is_doc:
        _take(whole, "", rd)
    else:
        lines = [(n, ln) for n, ln in enumerate(split_lines(data), 1) if ln.strip()]
        parsed: list[tuple[int, Any, bool]] = []
        for n, ln in lines:
            try:
                parsed.append((n, _loads(ln), True))
            except (ValueError, RecursionError):
                parsed.append((n, None, False))
        first_ok = bool(parsed) and parsed[0][2]
        values = None if first_ok else _concatenated(text)
        if values is not None:
            rd.forms.add("concatenated")
            for i, v in enumerate(values):
                _take(v, f"object {i + 1}", rd)
        else:
            for n, v, ok in parsed:
                if ok:
                    _take(v, f"line {n}", rd)
                else:
                    rd.records += 1
                    rd.report.fail(f"line {n}", "not JSON")
    _dedupe(rd)
    if not rd.spans and not rd.logs and not rd.report.ignored:
        raise ImportInputError(
            "no OpenTelemetry span or log record could be read (accepted: OTLP/JSON lines or "
            "document with resourceSpans/resourceLogs, a JSON array or JSONL of spans)")
    return rd


# --- spans -> operations ----------------------------------------------------------------------


_CONTENT_DEPTH: Final = 64
_INT_LIMIT: Final = 2**63


def _depth_ok(v: Any, depth: int = 0) -> bool:
    if depth > _CONTENT_DEPTH:
        return False
    if isinstance(v, dict):
        return all(_depth_ok(x, depth + 1) for x in v.values())
    if isinstance(v, list):
        return all(_depth_ok(x, depth + 1) for x in v)
    return True


def _safe(v: Any, depth: int = 0) -> Any:
    """Content as the vCon writer can write it: integers beyond 64 bits and non-finite
    numbers as text, and nothing nested deeper than 64 levels (marked where it was cut)."""
    if depth > _CONTENT_DEPTH:
        return "[nested deeper than 64 levels: not kept]"
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return v
    if isinstance(v, int):
        return v if -_INT_LIMIT <= v < _INT_LIMIT else str(v)
    if isinstance(v, float):
        return v if v == v and v not in (float("inf"), float("-inf")) else str(v)
    if isinstance(v, dict):
        return {str(k): _safe(x, depth + 1) for k, x in v.items()}
    if isinstance(v, list):
        return [_safe(x, depth + 1) for x in v]
    return str(v)


def _json_or_text(v: Any) -> Any:
    """A recorded JSON string decoded (arguments and results are often stringified); kept as
    the text it was when it does not decode or is nested too deep to keep as JSON."""
    if isinstance(v, str):
        s = v.strip()
        if s[:1] in ("{", "[", '"') or s in ("null", "true", "false"):
            try:
                parsed = _loads(s)
            except (ValueError, RecursionError):
                return v
            return parsed if _depth_ok(parsed) else v
    return v


def _content(v: Any) -> Any:
    """Recorded content decoded; a recorded JSON ``null`` stays as the text it was (so the
    event keeps content: the tool did answer, with null)."""
    parsed = _json_or_text(v)
    return v if parsed is None and v is not None else parsed


def _attr(spans: list[Span], *keys: str) -> Any:
    for s in spans:
        for k in keys:
            if k in s.attrs and s.attrs[k] is not None and s.attrs[k] != "":
                return s.attrs[k]
    return None


#: Google ADK's span over parallel tool calls ("exists so the dev UI's event lookup
#: resolves": each call has its own execute_tool span).
_ADK_MERGED: Final = "execute_tool (merged)"


#: Semantic Kernel's (Python) tracer for every KernelFunction invocation (functions/
#: kernel_function.py, ``trace.get_tracer(__name__)``). Its execute_tool span
#: (function_tracer.py) carries ``gen_ai.tool.call.id`` only when the invocation's metadata
#: has the id, which auto function invocation gives it (kernel.py passes the model's
#: FunctionCallContent); a function the app invokes itself (``kernel.invoke`` of a prompt or
#: native function) gets none. A connector may give the model's call no id (its Ollama
#: connector makes FunctionCallContent without one), so a span without one is the app's
#: only when the recording says so (``_mark_sk_app_calls``).
_SK_FUNCTION_SCOPE: Final = "semantic_kernel.functions.kernel_function"
_SK_APP_CALL: Final = "Semantic Kernel function the app invoked (no tool call id)"
#: Semantic Kernel's and the GenAI conventions' names of a call to the model.
_MODEL_OPERATIONS: Final = frozenset({
    "chat", "chat.completions", "chat.streaming_completions", "text_completion",
    "text.completions", "text.streaming_completions", "generate_content"})


def _sk_app_invocation(s: Span) -> bool:
    """A Semantic Kernel function the application invoked itself: not the agent's tool call."""
    return s.app_call


def _mark_sk_app_calls(rd: Reading) -> None:
    """Mark the Semantic Kernel spans without a call id that the recording shows the app
    invoked: one that encloses a model call (a prompt function: the model answers inside it),
    or any when another of its function spans has a call id (this Semantic Kernel gives the
    model's calls theirs), unless a model call under the same parent ended before it started
    (it then ran in the function-calling loop: the model's call, which may have no id). A
    span none of these tells apart stays a tool call, with a warning."""
    sk = [s for s in rd.spans if s.scope == _SK_FUNCTION_SCOPE
          and s.attrs.get("gen_ai.operation.name") == "execute_tool"]
    bare = [s for s in sk if not _str(s.attrs.get("gen_ai.tool.call.id"))]
    if not bare:
        return
    ids_given = len(bare) < len(sk)
    by_id = {(s.trace_id, s.span_id): s for s in rd.spans if s.span_id}
    models = [s for s in rd.spans if s.attrs.get("gen_ai.operation.name") in _MODEL_OPERATIONS]
    encloses: set[int] = set()
    for m in models:
        p, seen = by_id.get((m.trace_id, m.parent_id)) if m.parent_id else None, 0
        while p is not None and seen < 64:
            encloses.add(id(p))
            p = by_id.get((p.trace_id, p.parent_id)) if p.parent_id else None
            seen += 1
    unsure: list[Span] = []
    for s in bare:
        after_model = any(m.trace_id == s.trace_id and m.parent_id == s.parent_id
                          and m.end is not None and s.start is not None and m.end <= s.start
                          for m in models)
        if after_model:
            continue
        if id(s) in encloses or ids_given:
            s.app_call = True
        else:
            unsure.append(s)
    if unsure:
        names = list(dict.fromkeys(_tool_of([s]) or s.name for s in unsure))
        rd.report.warn("Semantic Kernel function span(s) without a tool call id (" + ", ".join(
            names[:5]) + (", …" if len(names) > 5 else "") + "): the recording does not say "
            "whether the model or the app invoked them; shown as tool calls")


def _is_tool_span(s: Span) -> bool:
    a = s.attrs
    if s.name == _ADK_MERGED or a.get("gen_ai.tool.name") == "(merged tools)":
        return False
    if _sk_app_invocation(s):
        return False
    if a.get("gen_ai.operation.name") == "execute_tool" or a.get("mcp.method.name") == "tools/call":
        return True
    if s.name == "claude_code.tool" or a.get("span.type") == "tool":
        return True
    if str(a.get("openinference.span.kind", "")).upper() == "TOOL":
        return True
    if a.get("traceloop.span.kind") == "tool":  # OpenLLMetry (Traceloop SDK) @tool spans
        return True
    if str(a.get(_LF + "type", "")).lower() == "tool":  # Langfuse SDK v3 as_type="tool"
        return True
    if a.get("ai.operationId") == "ai.toolCall" or (s.name == "ai.toolCall"
                                                    and "ai.toolCall.name" in a):
        return True  # the Vercel AI SDK's tool span (before it wrote execute_tool)
    if _agents_function(s) or a.get(_LSR + "run_type") == "tool":  # a LangSmith tool run
        return True
    if s.name == "function_tool" and _LK + "name" in a:
        return True  # LiveKit Agents' tool span (1.0-1.2 write no gen_ai attribute on it)
    # Pydantic AI names its tool span "running tool" (instrumentation version 1)
    return (s.name.startswith("execute_tool ") or s.name == "running tool") \
        and "gen_ai.tool.name" in a


_AGENTS_FUNCTION: Final = "Function: {name}"
#: Langfuse's observation attributes (its SDK v3 spans; its API's observations read as spans)
_LF: Final = "langfuse.observation."
#: LiveKit Agents' tool span attributes (``lk.function_tool.name``, ``.id``, ``.is_error``;
#: the arguments and output also under ``lk.pii.``, the newer versions' only names for them).
_LK: Final = "lk.function_tool."


def _agents_function(s: Span) -> bool:
    """Logfire's span of an OpenAI Agents SDK function tool call (instrument_openai_agents):
    named by its template 'Function: {name}', the SDK's FunctionSpanData as attributes (name,
    input, output, mcp_data, and error when it failed), no gen_ai.operation.name."""
    return (s.name == _AGENTS_FUNCTION or s.attrs.get("logfire.msg_template") == _AGENTS_FUNCTION) \
        and isinstance(s.attrs.get("name"), str) and bool(s.attrs["name"])


_HELPERS: Final = {"claude_code.tool.blocked_on_user": "blocked",
                   "claude_code.tool.execution": "execution"}


def _helper(s: Span) -> str | None:
    kind = _HELPERS.get(s.name)
    if kind is None and isinstance(s.attrs.get("span.type"), str):
        kind = _HELPERS.get("claude_code." + s.attrs["span.type"])
    return kind


def _ignored_kind(s: Span) -> str:
    a = s.attrs
    if _sk_app_invocation(s):
        return _SK_APP_CALL
    if s.name == _ADK_MERGED or a.get("gen_ai.tool.name") == "(merged tools)":
        return f"{_ADK_MERGED} span"
    op = _str(a.get("gen_ai.operation.name")) or _str(a.get("mcp.method.name"))
    if op and len(op) <= 60:
        return f"{op} span"
    if s.name.startswith("claude_code.") and len(s.name) <= 60:
        return f"{s.name} span"
    kind = _str(a.get("openinference.span.kind"))
    if kind and len(kind) <= 30:
        return f"{kind.lower()} span"
    kind = _str(a.get(_LSR + "run_type"))
    if kind and len(kind) <= 30:
        return f"{kind.lower()} run"  # LangSmith
    return "span (no GenAI or MCP operation)"


def _tool_of(spans: list[Span]) -> str | None:
    for s in spans:
        if _agents_function(s):
            return str(s.attrs["name"])
    name = _attr(spans, "gen_ai.tool.name", "tool.name", "tool_name", "traceloop.entity.name",
                 "ai.toolCall.name", "mcp.tool.name", _LK + "name")
    if isinstance(name, str) and name:
        return name
    for s in spans:
        for prefix in ("execute_tool ", "tools/call "):
            if s.name.startswith(prefix) and s.name[len(prefix):].strip():
                return s.name[len(prefix):].strip()
    for s in spans:  # Langfuse and LangSmith name a tool observation / run by the tool
        if (str(s.attrs.get(_LF + "type", "")).lower() == "tool"
                or s.attrs.get(_LSR + "run_type") == "tool") and s.name.strip():
            return s.name.strip()
    return None


#: OpenLLMetry's MCP instrumentation: its ``{tool}.tool`` spans are tools/call (client side, and
#: a FastMCP server's under an ``mcp.server`` span whose workflow is ``{server}.mcp``).
_OPENLLMETRY_MCP: Final = "opentelemetry.instrumentation.mcp"


def _openllmetry_mcp_server(s: Span) -> bool:
    """OpenLLMetry's FastMCP span around the server's own tool span (no tool call itself)."""
    return s.scope == _OPENLLMETRY_MCP and s.attrs.get("traceloop.span.kind") == "server"


def _mcp_server(spans: list[Span]) -> str | None:
    """The MCP server of a tool call, or None when the spans do not show MCP."""
    url = _attr(spans, "url.full", "mcp.server.url")
    named = _attr(spans, "mcp.server.name", "mcp_server_name", "gen_ai.tool.server.name")
    flow = _str(_attr(spans, "traceloop.workflow.name"))
    if named is None and flow and flow.endswith(".mcp") and flow[:-4] \
            and any(s.scope == _OPENLLMETRY_MCP for s in spans):
        named = flow[:-4]  # OpenLLMetry names a FastMCP server's workflow '{server}.mcp'
    mcp = any("mcp.method.name" in s.attrs or "mcp.session.id" in s.attrs
              # Mastra: an MCP tool call, its server's name in server.address
              or str(s.attrs.get("mastra.span.type", "")).lower() == "mcp_tool_call"
              or s.scope == _OPENLLMETRY_MCP
              for s in spans)
    if isinstance(named, str) and named:
        return named
    if not mcp:  # a function tool's own url.full or server.address is not a tool server
        return None
    if isinstance(url, str) and url:
        return url
    addr = _attr(spans, "server.address")
    if isinstance(addr, str) and addr:
        port = _attr(spans, "server.port")
        return f"{addr}:{port}" if isinstance(port, (int, str)) and str(port) else addr
    for s in spans:
        svc = _str(s.resource.get("service.name"))
        if s.kind == "server" and svc and not svc.startswith("unknown_service"):
            return svc
    return UNKNOWN_MCP


def _target(tool: str, server: str | None, rep: Report) -> tuple[str, str]:
    m = _MCP_NAME.match(tool)
    if server is None and m:
        return m.group(1), m.group(2)
    if server == UNKNOWN_MCP:
        rep.warn("an MCP tool call names no server (no url.full, server.address or server "
                 f"name): recorded as \"{UNKNOWN_MCP}\"")
    return (server or HOST), tool


@dataclass
class Decision:
    time: datetime | None
    vendor: str  # claude_code | codex | gemini_cli
    source: str | None
    decision: str | None
    where: str
    tool: str | None = None
    call_id: str | None = None
    prompt_id: str | None = None
    #: read off a tool_result or a span (replaced by a tool_decision record of the same call)
    from_result: bool = False
    server: str = HOST


@dataclass
class Call:
    """One tool call: from spans, from log events, or both."""

    tool: str
    server: str
    where: str
    call_id: str | None = None
    prompt_id: str | None = None
    start: datetime | None = None
    end: datetime | None = None
    end_type: str | None = None  # tool-result | tool-failure | tool-error | tool-timeout ...
    ran: bool = False  # an invocation was recorded (a span, a result event)
    invocation: dict[str, Any] = field(default_factory=dict)
    end_body: Any = None
    decisions: list[Decision] = field(default_factory=list)
    from_span: bool = False
    op: str | None = None
    sources: list[str] = field(default_factory=list)
    cancelled: bool = False
    #: why its invocation / its end is where it is, when the record does not say it directly
    inferred: dict[str, str] = field(default_factory=dict)
    #: pydantic-ai's deferral of the call (ApprovalRequired, CallDeferred), if any
    deferral: str | None = None
    #: (time, content) of a tool-pending: the call was accepted, to be completed later
    pending: tuple[datetime | None, Any] | None = None


def _error_text(v: Any) -> str:
    return v if isinstance(v, str) else ""


#: Google ADK's placeholders for what it did not record (a call id, a tool response).
_ADK_UNSET: Final = "<not specified>"
_ADK_NONE: Final = {"result": _ADK_UNSET}

#: A span event saying the tool raised: OpenTelemetry's own, and the GenAI conventions' event
#: for a tool execution.
_EXCEPTION_EVENTS: Final = frozenset({"exception", "gen_ai.execute_tool.exception"})


def _openllmetry_is_error(result: Any) -> bool:
    """OpenLLMetry's MCP client output, ``{result: <first content text>, is_error: true}``,
    for a tools/call answered with isError (its error.type is then an HTTP status name found in
    that text, GATEWAY_TIMEOUT for '504', which says nothing of how the call ended)."""
    return isinstance(result, dict) and result.get("is_error") is True \
        and set(result) <= {"result", "is_error"}


#: OpenInference's CrewAI instrumentation: its TOOL span wraps ToolUsage._use (wrappers) or is
#: built from CrewAI's tool events (``._event_listener``, which ends a failed attempt ERROR).
_CREWAI_SCOPE: Final = "openinference.instrumentation.crewai"
#: The start of CrewAI's errors.tool_usage_exception text (translations/en.json), which
#: ToolUsage._use returns, instead of raising, when the tool raised on its last attempt.
_CREWAI_FAILED: Final = "I encountered an error while trying to use the tool. This was the error: "


def _crewai_failed(result: Any, group: list[Span]) -> bool:
    """A CrewAI tool span whose output is CrewAI's text for a tool that raised: its span says OK
    (_use caught the exception and returned the text). Only at the start of the output (after
    the newline CrewAI puts first) and only on CrewAI's scope, so a tool's own output quoting
    those words is not misread."""
    return isinstance(result, str) and result.lstrip("\n").startswith(_CREWAI_FAILED) \
        and any(s.scope == _CREWAI_SCOPE or s.scope.startswith(_CREWAI_SCOPE + ".")
                for s in group)


def _raised_by_tool(err_type: Any, exc: list[tuple[str, dict[str, Any]]]) -> bool:
    """Whether an errored local tool span names the exception its own code raised: an
    ``error.type`` or ``exception.type`` that is a class name (``_OTHER``, the conventions'
    "unknown", says nothing) and none of them a refusal before the tool ran (``_PRE_RUN``).
    A span that names none cannot tell whether the tool ran."""
    names = [str(n) for n in [err_type, *(a.get("exception.type") for _, a in exc)]
             if n not in (None, "", "_OTHER")]
    return bool(names) and not any(_PRE_RUN.match(n.rsplit(".", 1)[-1]) for n in names)


def _strands_unknown(result: Any, tool: str | None) -> bool:
    """Strands' error result for a tool name not in its registry, written without running
    any tool (tools/executors/_executor.py: content [{text: 'Unknown tool: {name}'}])."""
    return bool(tool) and isinstance(result, list) and len(result) == 1 \
        and isinstance(result[0], dict) and result[0].get("text") == f"Unknown tool: {tool}"


def _agents_refused(err: Any) -> bool:
    """The OpenAI Agents SDK's span error for arguments refused before the function ran
    (src/agents/tool.py): 'Error running tool' for JSON it could not decode, data.error
    'Invalid JSON input for tool ...' for a ModelBehaviorError (bad JSON, a schema mismatch)."""
    if not isinstance(err, dict):
        return False
    data = err.get("data") if isinstance(err.get("data"), dict) else {}
    return err.get("message") == "Error running tool" \
        or str(data.get("error", "")).startswith("Invalid JSON input for tool")


def _span_outcome(group: list[Span], helpers: dict[str, Span],
                  local: bool) -> tuple[str | None, Any]:
    """(end event type or None while running, its content) for a group of spans; ``local``:
    the agent's own function (no MCP span), whose exception is its code's."""
    root = group[0]
    if root.end is None:
        return None, None
    if _agents_function(root):
        # the OpenAI Agents SDK: a tool that raised is the span's error {message, data}, with
        # the message the model was given as the output; a cancelled one says so; arguments
        # refused before it ran say that
        out = _content(root.attrs.get("output"))
        err = _json_or_text(root.attrs.get("error"))
        if err not in (None, "", {}):
            body = {"error": err, **({"result": out} if out is not None else {})}
            msg = str(err.get("message", "")) if isinstance(err, dict) else str(err)
            return ("tool-cancel" if msg.startswith("Tool execution cancelled")
                    else "tool-error" if _agents_refused(err) else "tool-failure"), body
        if root.status != "error":
            return "tool-result", out
    result = _attr(group, "gen_ai.tool.call.result", "output.value", "tool.output",
                   "gen_ai.tool.output",  # the name before gen_ai.tool.call.result
                   "tool_response",  # Pydantic AI
                   "traceloop.entity.output",  # OpenLLMetry
                   "ai.toolCall.result", "ai.toolCall.output",  # Vercel AI SDK
                   "gcp.vertex.agent.tool_response",  # Google ADK
                   _LF + "output",  # Langfuse
                   _LSR + "output",  # LangSmith
                   "lk.pii.function_tool.output", _LK + "output")  # LiveKit
    if _json_or_text(result) == _ADK_NONE:
        result = None  # ADK: no response event was recorded
    if result is None and root.attrs.get("gen_ai.operation.name") == "execute_tool":
        # any-agent's name for the tool's output (genai.output before mid 2025)
        result = root.attrs.get("gen_ai.output", root.attrs.get("genai.output"))
    if result is None:
        for s in group:
            for ename, _t, eattrs in s.events:
                if ename == "tool.output" and eattrs:
                    result = eattrs
                elif ename == "gen_ai.choice" and "message" in eattrs \
                        and root.attrs.get("gen_ai.operation.name") == "execute_tool":
                    result = eattrs["message"]  # Strands: the tool result's content
    if result is None:
        result = _attr(group, "tool.result")  # older Strands
    if result is None and root.attrs.get("gen_ai.operation.name") == "execute_tool":
        result = _own_message(root, "gen_ai.output.messages",
                              _str(root.attrs.get("gen_ai.tool.call.id")))
    result = _content(result)
    err_type = _attr(group, "error.type")
    exc = [(n, a) for s in group for n, _t, a in s.events if n in _EXCEPTION_EVENTS]
    status_err = any(s.status == "error" for s in group)
    messages = [s.status_message for s in group if s.status_message]
    if str(_attr(group, _LF + "level") or "").upper() == "ERROR":  # Langfuse's error level
        status_err = True
        said = _str(_attr(group, _LF + "status_message"))
        if said:
            messages.append(said)
    ex = helpers.get("execution")
    ex_fail = False
    if ex is not None:
        ok = ex.attrs.get("success")
        ex_fail = ok is False or (isinstance(ok, str) and ok.lower() == "false") \
            or ex.status == "error"
        if ex.status_message:
            messages.append(ex.status_message)
        if _str(ex.attrs.get("error")):
            messages.append(ex.attrs["error"])
    claude_err = _str(root.attrs.get("error")) if root.name == "claude_code.tool" else None
    if claude_err:
        messages.append(claude_err)
    # an MCP result's isError, LiveKit's is_error, CrewAI's error text (the tool raised or
    # reported an error; the output is what the model was told)
    is_error_result = (isinstance(result, dict) and result.get("isError") is True) \
        or _bool(_attr(group, _LK + "is_error")) is True or _openllmetry_is_error(result) \
        or _crewai_failed(result, group)
    detail: dict[str, Any] = {}
    if err_type is not None:
        detail["error_type"] = err_type
    if messages:
        detail["message"] = messages[0]
    if exc:
        detail["exception"] = exc[0][1]
    # the tool result's own status (Strands: gen_ai.tool.status, older tool.status): the
    # tool ran and returned an error result, while the span itself may say OK
    tool_status = _attr(group, "gen_ai.tool.status", "tool.status", _LSR + "tool_status")
    status_fail = isinstance(tool_status, str) and tool_status.lower() in ("error", "failed",
                                                                          "failure")
    if status_fail:
        detail["tool_status"] = tool_status
    if status_fail and _strands_unknown(result, _tool_of(group)):
        return "tool-error", {**detail, "result": result}
    if err_type == "tool_error" or is_error_result or (status_fail and not (
            status_err or exc or err_type is not None)):
        return "tool-failure", result if result is not None else detail or None
    errored = status_err or err_type is not None or bool(exc) or ex_fail or bool(claude_err)
    if not errored:
        return "tool-result", result
    et = str(err_type or "") + " " + " ".join(str(a.get("exception.type", "")) for _, a in exc)
    if any(_TIMEOUTS.search(w) for w in et.split()):
        return "tool-timeout", detail or None
    if any(_CANCELS.search(w) for w in et.split()):
        return "tool-cancel", detail or None
    if result is not None or ex_fail or (local and _raised_by_tool(err_type, exc)):
        return "tool-failure", ({**detail, "result": result} if result is not None
                                else detail or None)
    return "tool-error", detail or None


def _mcp_params_arguments(args: Any, tool: str, group: list[Span]) -> Any:
    """The arguments of an OpenLLMetry MCP tool span, whose input is the request's params as
    ``{tool_name, arguments}``; any other input as it is."""
    if isinstance(args, dict) and "arguments" in args and set(args) <= {"tool_name", "arguments"} \
            and args.get("tool_name", tool) == tool \
            and any(s.scope == _OPENLLMETRY_MCP for s in group):
        return args["arguments"]
    return args


def _span_calls(rd: Reading) -> list[Call]:
    rep = rd.report
    by_id = {(s.trace_id, s.span_id): s for s in rd.spans if s.span_id}
    tools = [s for s in rd.spans if _is_tool_span(s)]
    tool_ids = {id(s) for s in tools}
    app_calls = [s for s in rd.spans if _sk_app_invocation(s)]
    if app_calls:
        names = list(dict.fromkeys(_tool_of([s]) or s.name for s in app_calls))
        rep.warn(f"{len(app_calls)} Semantic Kernel function invocation(s) the app made itself "
                 f"(no tool call id: {', '.join(names[:5])}{', …' if len(names) > 5 else ''}) "
                 "are context, not the agent's tool calls")
    helpers: dict[int, dict[str, Span]] = {}
    root_of: dict[int, Span] = {}

    def parent(s: Span) -> Span | None:
        p = by_id.get((s.trace_id, s.parent_id)) if s.parent_id else None
        if p is not None and _openllmetry_mcp_server(p):  # the server side of the call above
            p = by_id.get((p.trace_id, p.parent_id)) if p.parent_id else None
        return p

    def root(s: Span) -> Span:
        seen = 0
        while True:
            p = parent(s)
            if p is None or id(p) not in tool_ids or seen > 64:
                return s
            ta, tb = _tool_of([s]), _tool_of([p])
            ja, jb = s.attrs.get("jsonrpc.request.id"), p.attrs.get("jsonrpc.request.id")
            if (ta and tb and ta != tb) or (ja is not None and jb is not None and
                                            str(ja) != str(jb)):
                return s
            s, seen = p, seen + 1

    groups: dict[int, list[Span]] = {}
    for s in tools:
        r = root(s)
        root_of[id(s)] = r
        groups.setdefault(id(r), []).append(s)
    for s in rd.spans:
        if id(s) in tool_ids:
            rep.mapped += 1
            continue
        kind = _helper(s)
        p = by_id.get((s.trace_id, s.parent_id)) if s.parent_id else None
        if kind and p is not None and id(p) in tool_ids:
            helpers.setdefault(id(root_of[id(p)]), {})[kind] = s
            rep.mapped += 1
        else:
            rep.ignore(_ignored_kind(s))
    calls: list[Call] = []
    for gid, group in groups.items():
        group.sort(key=lambda s: (s is not root_of[id(s)], s.order))
        r = group[0]
        hs = helpers.get(gid, {})
        tool = _tool_of(group)
        if tool is None:
            rep.warn("a tool span names no tool (no gen_ai.tool.name): recorded as "
                     "\"unknown-tool\"")
            tool = "unknown-tool"
        mcp = _json_or_text(r.attrs.get("mcp_data")) if _agents_function(r) else None
        named = _str(mcp.get("server")) if isinstance(mcp, dict) else None
        server, tool = _target(tool, named or _mcp_server(group), rep)
        call = Call(tool=tool, server=server, where=r.where, from_span=True, ran=True,
                    start=r.start, end=r.end)
        call.call_id = _str(_attr(group, "gen_ai.tool.call.id", "tool_use_id", "tool_call_id",
                                  "tool.call.id", "ai.toolCall.id", _LK + "id"))
        if call.call_id == _ADK_UNSET:
            call.call_id = None  # Google ADK's placeholder: no call id recorded
        call.prompt_id = _str(_attr(group, "prompt.id"))
        args = _attr(group, "gen_ai.tool.call.arguments", "gen_ai.tool.args",
                     "gen_ai.tool.input",  # the name before gen_ai.tool.call.arguments
                     "input.value",
                     "tool.parameters", "tool_input", "tool_arguments",  # Pydantic AI
                     "traceloop.entity.input",  # OpenLLMetry
                     "ai.toolCall.args", "ai.toolCall.input",  # Vercel AI SDK
                     "gcp.vertex.agent.tool_call_args",  # Google ADK
                     _LF + "input",  # Langfuse
                     _LSR + "arguments",  # LangSmith
                     "lk.pii.function_tool.arguments", _LK + "arguments")  # LiveKit
        if args is None and _agents_function(r):
            args = r.attrs.get("input")
        if args is None and r.attrs.get("gen_ai.operation.name") == "execute_tool":
            # Strands: the tool's input as the content of a gen_ai.tool.message event
            args = next((a["content"] for n, _t, a in r.events
                         if n == "gen_ai.tool.message" and "content" in a), None)
        if args is None and r.attrs.get("gen_ai.operation.name") == "execute_tool":
            args = _own_message(r, "gen_ai.input.messages", call.call_id)
        inv: dict[str, Any] = {}
        if args is not None:
            inv["arguments"] = _mcp_params_arguments(_json_or_text(args), tool, group)
        if r.name == "claude_code.tool":  # what Claude Code's span says of the arguments
            params = {k: r.attrs[k] for k in ("file_path", "full_command", "skill_name",
                                              "subagent_type") if _str(r.attrs.get(k))}
            if params:
                inv["parameters"] = params
        if call.call_id:
            inv["tool_call_id"] = call.call_id
        for key, attr in (("jsonrpc_request_id", "jsonrpc.request.id"),
                          ("mcp_session_id", "mcp.session.id")):
            v = _attr(group, attr)
            if v is not None:
                inv[key] = v
        inv["trace_id"] = r.trace_id
        inv["span_id"] = r.span_id
        if len(group) > 1:
            inv["merged_span_ids"] = [s.span_id for s in group[1:]]
        call.invocation = inv
        call.end_type, call.end_body = _span_outcome(
            group, hs, server == "!host" and not any(s.attrs.get("mcp.method.name")
                                                     for s in group))
        call.sources = [s.where for s in group]
        ex = hs.get("execution")
        if ex is not None and ex.start is not None:
            call.start = ex.start  # claude_code.tool also spans the permission wait
        deferral = _str(_attr(group, _DEFERRAL))
        stage = _str(_attr(group, "pydantic_ai.tool.failure_stage"))
        if deferral:  # pydantic-ai: deferred, not executed: no result and no error
            call.end_type, call.end_body = None, None
            call.deferral = deferral
            meta = _attr(group, "pydantic_ai.tool.deferral.metadata")
            said = {"deferral": deferral,
                    **({"metadata": _json_or_text(meta)} if meta is not None else {})}
            if deferral == "ApprovalRequired":
                call.ran = False  # it asked for approval; a run is a later span of the call
                inv["deferral"] = said
                call.decisions.append(Decision(
                    time=r.end or r.start, vendor="pydantic_ai", source=None,
                    decision=deferral, where=r.where, tool=tool, call_id=call.call_id,
                    from_result=True, server=server))
            elif r.end is not None:
                call.pending = (r.end, said)
                call.inferred["pending"] = (
                    f"pydantic-ai deferred this call ({deferral}): it is to be completed "
                    "later, outside the agent; its result is not in this trace")
        elif stage and call.end_type is not None and call.end_type != "tool-result":
            # the arguments were refused before the tool ran (pydantic-ai sets the stage only
            # "for calls that failed before execution")
            body = call.end_body
            if isinstance(body, dict) and "result" in body:
                body = body["result"]
            call.end_type = "tool-error"
            call.end_body = {"failure_stage": stage, "detail": body}
            call.inferred["end"] = (
                f"pydantic-ai failure_stage {stage}: the call was refused before the tool "
                "ran; the detail is what the model was told (its retry prompt)")
        b = hs.get("blocked")
        if b is not None and (b.attrs.get("decision") or "").lower() in _REJECTS \
                and ex is None:
            call.ran = False  # refused at the prompt: the tool never ran
        if b is not None and (_str(b.attrs.get("decision")) or _str(b.attrs.get("source"))):
            call.decisions.append(Decision(
                time=b.end or b.start, vendor="claude_code", source=_str(b.attrs.get("source")),
                decision=_str(b.attrs.get("decision")), where=b.where, tool=tool,
                call_id=call.call_id, from_result=True, server=server))
        calls.append(call)
    return _resumed(calls)


#: pydantic-ai's mark of a tool call deferred rather than executed (ApprovalRequired,
#: CallDeferred); ``pydantic_ai.tool.deferral.metadata`` is what the tool passed with it.
_DEFERRAL: Final = "pydantic_ai.tool.deferral.name"


def _resumed(calls: list[Call]) -> list[Call]:
    """A call that asked for approval (pydantic-ai ApprovalRequired) and a later span of the
    same call id that ran (the run resumed once approved) are one operation: the approval
    request is that run's decision."""
    asked = [c for c in calls if not c.ran and c.call_id and c.deferral]
    if not asked:
        return calls
    ran = {c.call_id: c for c in calls if c.ran and c.call_id}
    gone: set[int] = set()
    for c in asked:
        later = ran.get(c.call_id)
        if later is not None and (later.start is None or c.start is None
                                  or later.start >= c.start):
            later.decisions = c.decisions + later.decisions
            later.sources = c.sources + later.sources
            gone.add(id(c))
    return [c for c in calls if id(c) not in gone]


#: A tool call the model asked for, in a model span's indexed attributes: OpenLLMetry's older
#: ``gen_ai.completion.<i>.tool_calls.<j>.{id,name,arguments}`` and OpenInference's
#: ``llm.output_messages.<i>.message.tool_calls.<j>.tool_call.{id,function.name,
#: function.arguments}``.
_ASKED_ATTR: Final = re.compile(
    r"^(?:gen_ai\.completion\.(\d+)\.tool_calls\.(\d+)\.|llm\.output_messages\.(\d+)"
    r"\.message\.tool_calls\.(\d+)\.tool_call\.(?:function\.)?)(id|name|arguments)$")
#: Where a model's messages are kept whole: the newer ``gen_ai.output.messages`` attribute, the
#: ``gen_ai.choice`` event (span event or log), and the attribute form some SDKs write.
_MESSAGE_KEYS: Final = ("gen_ai.output.messages", "gen_ai.completion", "message", "body")


def _message_dicts(v: Any, into: tuple[str, ...], kinds: tuple[type, ...],
                   depth: int = 0) -> Iterator[dict[str, Any]]:
    """The objects of a model message value, each before those inside it: JSON text read,
    lists walked, and the keys ``into`` followed where their value is one of ``kinds``; at most
    six levels down (a recorded value is never trusted to end). Tool calls and tool answers
    are found in messages by the same walk."""
    if depth > 6:
        return
    v = _json_or_text(v)
    if isinstance(v, list):
        for x in v:
            yield from _message_dicts(x, into, kinds, depth + 1)
        return
    if not isinstance(v, dict):
        return
    yield v
    for k in into:
        if isinstance(v.get(k), kinds):
            yield from _message_dicts(v[k], into, kinds, depth + 1)


def _asked_in(msg: Any, out: list[tuple[str | None, str | None, Any]]) -> None:
    """Tool calls in a model message value, as (id, tool, arguments): parts ``{type:
    tool_call, id, name, arguments}`` (the newer conventions) or ``tool_calls: [{id, function:
    {name, arguments}} | {id, name, arguments}]`` (the older events)."""
    for v in _message_dicts(msg, ("parts", "message", "messages", "choices", "content"),
                            (list, dict)):
        if v.get("type") == "tool_call" and _str(v.get("name")):
            out.append((_str(v.get("id")), v["name"], v.get("arguments")))
        elif _str(v.get("toolName")):  # Vercel AI SDK ai.response.toolCalls
            out.append((_str(v.get("toolCallId")), v["toolName"],
                        v.get("args", v.get("input"))))
        for tc in v.get("tool_calls") or [] if isinstance(v.get("tool_calls"), list) else []:
            if isinstance(tc, dict):
                fn = _d(tc.get("function"))
                name = _str(tc.get("name")) or _str(fn.get("name"))
                if name:
                    out.append((_str(tc.get("id")), name,
                                tc.get("arguments", fn.get("arguments"))))


def _own_message(s: Span, key: str, call_id: str | None) -> Any:
    """A tool span's own arguments (``gen_ai.input.messages``: its tool_call part) or result
    (``gen_ai.output.messages``: its tool_call_response part), on the span or on one of its
    events (Strands under the latest conventions: ``gen_ai.client.inference.operation.details``
    events); the part of this call id, else the only part (several parts and no id match:
    none, rather than another call's)."""
    sources = [s.attrs.get(key)] + [a.get(key) for _n, _t, a in s.events]
    for v in sources:
        if v is None:
            continue
        parts: list[tuple[str | None, Any]]
        if key == "gen_ai.input.messages":
            asked: list[tuple[str | None, str | None, Any]] = []
            _asked_in(v, asked)
            parts = [(i, a) for i, _n, a in asked]
        else:
            answered: list[tuple[str, Any]] = []
            _answered_in(v, answered)
            parts = [(i, r) for i, r in answered]
        # this call id's part; else the only part, when nothing says it is another call's
        hit = [x for i, x in parts if call_id is not None and i == call_id]
        if not hit and len(parts) == 1 and (call_id is None or parts[0][0] is None):
            hit = [parts[0][1]]
        if hit and hit[0] is not None:
            return hit[0]
    return None


def _any_agent_asked(s: Span) -> list[tuple[str | None, str | None, Any]]:
    """The tool calls an any-agent ``call_llm`` span says the model asked for: its JSON output
    (``gen_ai.output``, formerly ``genai.output``) is any-agent's ``[{"tool.name",
    "tool.args"}]``, the OpenAI list ``[{id, function: {name, arguments}}]``, TinyAgent's
    ``[{name, arguments}]`` or LlamaIndex's message with ``additional_kwargs.tool_calls``."""
    if s.attrs.get("gen_ai.operation.name") != "call_llm":
        return []
    v = _json_or_text(s.attrs.get("gen_ai.output", s.attrs.get("genai.output")))
    if isinstance(v, dict):
        v = _d(v.get("additional_kwargs")).get("tool_calls")
    out: list[tuple[str | None, str | None, Any]] = []
    for tc in v if isinstance(v, list) else []:
        if not isinstance(tc, dict):
            continue
        fn = _d(tc.get("function"))
        name = _str(tc.get("tool.name")) or _str(fn.get("name")) or _str(tc.get("name"))
        if name:
            out.append((_str(tc.get("id")), name,
                        tc.get("tool.args", fn.get("arguments", tc.get("arguments")))))
    return out


#: An asked or answered tool call and where the record says so: (call id, tool or None,
#: arguments or the result, time, the record, what kind of record).
_Said = tuple[str | None, str | None, Any, datetime | None, "Span | LogRec", str]


def _indexed(attrs: dict[str, Any], pattern: re.Pattern[str], prefixes: tuple[str, ...],
             ) -> list[dict[str, Any]]:
    """Indexed message attributes (``<prefix>.<i>[.<j>].<field>``) grouped by index, in
    index order: ``{field: value}`` each."""
    groups: dict[tuple[int, ...], dict[str, Any]] = {}
    for k, v in attrs.items():
        m = pattern.match(k) if k.startswith(prefixes) else None
        if m is not None:
            idx = tuple(int(g) for g in m.groups()[:-1] if g is not None)
            groups.setdefault(idx, {})[m.group(m.lastindex or 0)] = v
    return [g for _, g in sorted(groups.items())]


def _asks(rd: Reading) -> list[_Said]:
    """Every tool call a model span or event says the model asked for, in record order, with
    the time it was asked (the model's answer: its span's end, its event's time)."""
    out: list[_Said] = []
    for s in rd.spans:
        if _is_tool_span(s):
            continue
        found: list[tuple[str | None, str | None, Any]] = []
        for x in _indexed(s.attrs, _ASKED_ATTR, ("gen_ai.completion.", "llm.output")):
            if isinstance(x.get("name"), str) and x["name"]:
                found.append((_str(x.get("id")), x["name"], x.get("arguments")))
        for key in ("gen_ai.output.messages", "ai.response.toolCalls"):
            if key in s.attrs:
                _asked_in(s.attrs[key], found)
        found += _any_agent_asked(s)
        out += [(i, n, a, s.end or s.start, s, "the model's answer on a chat span")
                for i, n, a in found]
        for name, t, ea in s.events:
            if name == "gen_ai.choice":
                found = []
                _asked_in(ea, found)
                out += [(i, n, a, t or s.end or s.start, s, "a gen_ai.choice event")
                        for i, n, a in found]
    for lg in rd.logs:
        found = []
        if lg.name == "gen_ai.choice" or lg.attrs.get("event.name") == "gen_ai.choice":
            _asked_in(lg.body, found)
        if "gen_ai.output.messages" in lg.attrs:  # gen_ai.client.inference.operation.details
            _asked_in(lg.attrs["gen_ai.output.messages"], found)
        out += [(i, n, a, lg.time, lg, "a gen_ai.choice log event") for i, n, a in found]
    return out


def _asked_calls(rd: Reading) -> list[tuple[str | None, str | None]]:
    """Every tool call a model span or event says the model asked for: (call id, tool)."""
    return [(i, n) for i, n, *_ in _asks(rd)]


#: A tool's answer in a model request's indexed messages: OpenLLMetry's
#: ``gen_ai.prompt.<i>.{role,tool_call_id,content}``, OpenInference's
#: ``llm.input_messages.<i>.message.{role,tool_call_id,content}``.
_ANSWER_ATTR: Final = re.compile(
    r"^(?:gen_ai\.prompt\.(\d+)\.|llm\.input_messages\.(\d+)\.message\.)"
    r"(role|tool_call_id|content)$")


def _answered_in(msg: Any, out: list[tuple[str, Any]]) -> None:
    """Tool answers in a model request's messages, as (call id, result): parts ``{type:
    tool_call_response, id, response}`` of the newer conventions, and the older ``{role: tool,
    tool_call_id | id, content}`` messages."""
    for v in _message_dicts(msg, ("parts", "messages"), (list,)):
        if v.get("type") == "tool_call_response" and _str(v.get("id")):
            out.append((v["id"], v.get("response", v.get("result"))))
        elif v.get("role") == "tool" and (_str(v.get("tool_call_id")) or _str(v.get("id"))):
            out.append((_str(v.get("tool_call_id")) or v["id"], v.get("content")))


def _answers(rd: Reading) -> list[_Said]:
    """Every tool answer a later model request carries (it was sent to the model: the call
    had ended), with the time of that request (its span's start, its event's time)."""
    out: list[_Said] = []
    for s in rd.spans:
        if _is_tool_span(s):
            continue  # Strands puts the tool's input in a gen_ai.tool.message of its tool span
        found: list[tuple[str, Any]] = []
        for x in _indexed(s.attrs, _ANSWER_ATTR, ("gen_ai.prompt.", "llm.input_messages.")):
            if x.get("role") == "tool" and _str(x.get("tool_call_id")):
                found.append((x["tool_call_id"], x.get("content")))
        if "gen_ai.input.messages" in s.attrs:
            _answered_in(s.attrs["gen_ai.input.messages"], found)
        out += [(i, None, r, s.start, s, "the model's next request") for i, r in found]
        for name, t, ea in s.events:
            if name == "gen_ai.tool.message" and _str(ea.get("id")):
                out.append((ea["id"], None, ea.get("content"), t or s.start, s,
                            "a gen_ai.tool.message event"))
    for lg in rd.logs:
        found = []
        if lg.name == "gen_ai.tool.message" or lg.attrs.get("event.name") == \
                "gen_ai.tool.message":
            body = _json_or_text(lg.body)
            cid = _str(_d(body).get("id")) or _str(lg.attrs.get("gen_ai.tool.call.id"))
            if cid:
                found.append((cid, _d(body).get("content")))
        if "gen_ai.input.messages" in lg.attrs:
            _answered_in(lg.attrs["gen_ai.input.messages"], found)
        out += [(i, None, r, lg.time, lg, "a gen_ai.tool.message log event") for i, r in found]
    return out


def _record_kind(r: Span | LogRec) -> str:
    """The kind a record was counted under as ignored."""
    if isinstance(r, Span):
        return _ignored_kind(r)
    return f"{r.name} log" if r.name else "log record (no event name)"


def _answered_calls(rd: Reading, times: dict[int, datetime], calls: list[Call]) -> None:
    """A call the model asked for that no tool span or tool event records, but whose answer
    (same call id) a later model request carries: it ran, between the two. It is made an
    operation: invoked when it was asked, ended by a tool-result when its answer was sent,
    each event saying so in ``inferred`` (the tool's own start and end, and whether it
    failed, are not recorded). The first record of each is counted as mapped."""
    known = {c.call_id for c in calls if c.call_id}
    answers: dict[str, _Said] = {}
    for a in _answers(rd):
        if a[0] is not None and a[0] not in known and a[0] not in answers:
            answers[a[0]] = a
    if not answers:
        return
    rep = rd.report
    moved: set[int] = set()
    made: list[str] = []
    left: dict[str, int] = {}  # calls with no call id, by tool: they may be these (in order)
    for c in calls:
        if not c.call_id:
            left[c.tool] = left.get(c.tool, 0) + 1
    for cid, name, args, t, rec, kind in _asks(rd):
        ans = answers.pop(cid, None) if cid else None
        if ans is None or name is None:
            continue
        bare = _MCP_NAME.match(name)
        same = next((x for x in (name, bare.group(2) if bare else name) if left.get(x)), None)
        if same is not None:  # a tool span without the call id records it already
            left[same] -= 1
            continue
        _i, _n, result, t2, rec2, kind2 = ans
        server, tool = _target(name, None, rep)
        call = Call(tool=tool, server=server, where=rec.where, call_id=cid, ran=True,
                    start=t or times.get(rec.order), end=t2 or times.get(rec2.order),
                    end_type="tool-result", end_body=_content(result),
                    sources=[rec.where, rec2.where])
        call.invocation = {**({"arguments": _json_or_text(args)} if args is not None else {}),
                           "tool_call_id": cid}
        call.inferred = {
            "invoke": f"no tool span or tool event records this call: the model asked for it "
                      f"({kind}) and a later request to the model carries its answer ({kind2}, "
                      "the same call id), so it ran in between; placed when it was asked",
            "end": "the answer as the next request to the model carries it, at that "
                   "request's time: when the tool itself ended, and whether it failed, are "
                   "not recorded"}
        calls.append(call)
        made.append(tool)
        for r in (rec, rec2):
            k = _record_kind(r)
            if id(r) not in moved and rep.ignored.get(k):
                moved.add(id(r))
                rep.ignored[k] -= 1
                if not rep.ignored[k]:
                    del rep.ignored[k]
                rep.mapped += 1
    if made:
        names = ", ".join(sorted({clip(t, 40) for t in made})[:5])
        rep.warn(f"{len(made)} tool call(s) ({names}) are recorded only in the model's messages "
                 "(asked in one request, answered in a later one under the same call id), with "
                 "no tool span: each is shown from when it was asked to when its answer was "
                 "sent; when the tool itself ran, and whether it failed, are not recorded")


def _asked_arguments(rd: Reading, calls: list[Call]) -> None:
    """A tool span that records no arguments but a call id: the arguments the model asked
    for under that id (any-agent's AGNO spans keep them only in the call_llm output), with
    ``inferred`` saying where they come from."""
    want = {c.call_id: c for c in calls if c.from_span and c.call_id
            and "arguments" not in c.invocation}
    if not want:
        return
    for cid, name, args, _t, _rec, kind in _asks(rd):
        c = want.get(cid) if cid else None
        if c is None or name not in (c.tool, f"mcp__{c.server}__{c.tool}"):
            continue
        del want[cid]
        value = _json_or_text(args)
        if value in (None, "", {}, []):
            continue  # asked with no arguments: nothing the span does not already say
        c.invocation = {"arguments": value, **c.invocation}
        c.inferred.setdefault("invoke", f"the tool span records no arguments: these are the "
                                        f"ones the model asked for under the same call id "
                                        f"({kind})")


def _unshown_asked(rd: Reading, calls: list[Call]) -> list[str]:
    """The tools of the calls the model asked for that no tool span or tool event records
    (matched by call id, else by tool name in order)."""
    ids = {c.call_id for c in calls if c.call_id}
    left: dict[str, int] = {}
    for c in calls:
        left[c.tool] = left.get(c.tool, 0) + 1
    missing: list[str] = []
    seen: set[str] = set()
    for cid, name in _asked_calls(rd):
        if cid is not None and (cid in ids or cid in seen):
            continue  # shown, or the same request seen in another span (nested LLM spans)
        if cid is not None:
            seen.add(cid)
        tool = name or "?"
        bare = _MCP_NAME.match(tool)
        for t in (tool, bare.group(2) if bare else tool):
            if left.get(t, 0) > 0:
                left[t] -= 1
                break
        else:
            missing.append(tool)
    return missing


# --- log events -> calls and decisions ----------------------------------------------------------


def _params(a: dict[str, Any]) -> dict[str, Any]:
    p = _json_or_text(a.get("tool_parameters"))
    return p if isinstance(p, dict) else {}


def _log_target(name: str, a: dict[str, Any], rep: Report) -> tuple[str, str]:
    """(server, tool) of a tool log event."""
    if name.startswith("gemini_cli."):
        tool = _str(a.get("function_name")) or "unknown-tool"
        mcp = a.get("tool_type") == "mcp"
        server = _str(a.get("mcp_server_name")) or (UNKNOWN_MCP if mcp else None)
        return _target(tool, server, rep)
    tool = _str(a.get("tool_name")) or _str(a.get("name")) or "unknown-tool"
    p = _params(a)
    srv = _str(p.get("mcp_server_name")) or _str(a.get("mcp_server")) \
        or _str(a.get("mcp_server_name"))
    if srv:
        return srv, _str(p.get("mcp_tool_name")) or tool
    if tool == "mcp_tool" or a.get("tool_source") == "mcp":
        return _target(tool, UNKNOWN_MCP, rep)
    return _target(tool, None, rep)


def _bool(v: Any) -> bool | None:
    if isinstance(v, bool):
        return v
    if isinstance(v, str) and v.lower() in ("true", "false"):
        return v.lower() == "true"
    return None


def _duration(v: Any) -> timedelta | None:
    if isinstance(v, str):
        try:
            v = float(v)
        except ValueError:
            return None
    if isinstance(v, (int, float)) and not isinstance(v, bool) and 0 <= v < 1e12:
        return timedelta(milliseconds=v)
    return None


def _log_calls(rd: Reading, times: dict[int, datetime], calls: list[Call]) -> list[Decision]:
    """Tool result log events joined to span calls or made calls of their own; returns the
    decision records (joined to calls in ``_join``)."""
    rep = rd.report
    decisions: list[Decision] = []
    span_ids = {c.call_id: c for c in calls if c.call_id}
    for lg in sorted(rd.logs, key=lambda r: (times[r.order], r.order)):
        name = lg.name
        if name not in TOOL_LOGS:
            rep.ignore(f"{name} log" if name else "log record (no event name)")
            continue
        a = lg.attrs
        when = times[lg.order]
        vendor = name.split(".", 1)[0]
        call_id = _str(a.get("tool_use_id")) or _str(a.get("call_id")) or _str(
            a.get("gen_ai.tool.call.id"))
        prompt_id = _str(a.get("prompt.id")) or _str(a.get("prompt_id"))
        server, tool = _log_target(name, a, rep)
        if name.endswith("tool_decision"):
            decisions.append(Decision(time=when, vendor=vendor, source=_str(a.get("source")),
                                      decision=_str(a.get("decision")), where=lg.where,
                                      tool=tool, call_id=call_id, prompt_id=prompt_id,
                                      server=server))
            rep.mapped += 1
            continue
        # a tool result (claude_code/codex tool_result, gemini_cli tool_call)
        if call_id and call_id in span_ids:
            rep.ignore(f"{name} log (the call is also a span)")
            continue
        ok = _bool(a.get("success"))
        dur = _duration(a.get("duration_ms"))
        start = when - dur if dur is not None else when
        if vendor == "gemini_cli":
            st, _ = _time(a.get("start_time"))
            en, _ = _time(a.get("end_time"))
            if st is not None and en is not None and st <= en:
                start, when = st, en
        call = Call(tool=tool, server=server, where=lg.where, call_id=call_id,
                    prompt_id=prompt_id, start=start, end=when, sources=[lg.where])
        args = a.get("function_args", a.get("tool_input", a.get("arguments")))
        inv: dict[str, Any] = {}
        if args is not None:
            inv["arguments"] = _json_or_text(args)
        p = _params(a)
        if p:
            inv["parameters"] = p
        if call_id:
            inv["tool_call_id"] = call_id
        if prompt_id:
            inv["prompt_id"] = prompt_id
        call.invocation = inv
        detail = {k: a[k] for k in ("error", "error_type", "status") if a.get(k) is not None}
        output = a.get("output", a.get("tool_output"))
        decision = _str(a.get("decision")) if vendor == "gemini_cli" else None
        status = _str(a.get("status"))
        if vendor == "gemini_cli" and decision == "reject":
            call.ran = False  # refused at the confirmation prompt: the tool never ran
        else:
            call.ran = True
            if status == "cancelled":
                call.end_type, call.end_body = "tool-cancel", detail or None
            elif ok is False:
                call.end_type = "tool-failure"
                call.end_body = {**detail, **({"output": _json_or_text(output)}
                                              if output is not None else {})} or None
            elif vendor == "gemini_cli" and meta_exit_code(a.get("metadata")) not in (None, 0):
                # the Gemini importer's rule: success true, but the command exited non-zero
                call.end_type = "tool-failure"
                call.end_body = {**detail, "metadata": _json_or_text(a["metadata"])}
            else:
                call.end_type = "tool-result"
                if ok is None:
                    rep.warn("some tool result log events say neither success true nor "
                             "false: shown as completed (the record does not say they "
                             "succeeded)")
                # no output recorded (Claude Code never logs it): what the record says of it
                call.end_body = _content(output) if output is not None else {
                    k: a[k] for k in ("success", "duration_ms", "tool_result_size_bytes",
                                      "content_length") if a.get(k) is not None} or None
        if vendor == "gemini_cli" and decision:
            call.decisions.append(Decision(time=start, vendor=vendor, source=None,
                                           decision=decision, where=lg.where, tool=tool,
                                           call_id=call_id, prompt_id=prompt_id))
        elif vendor == "claude_code":
            src = _str(a.get("decision_source")) or _str(a.get("source"))
            dec = _str(a.get("decision_type")) or _str(a.get("decision"))
            if src:
                call.decisions.append(Decision(time=start, vendor=vendor, source=src,
                                               decision=dec or "accept", where=lg.where,
                                               tool=tool, call_id=call_id,
                                               prompt_id=prompt_id, from_result=True))
        calls.append(call)
        rep.mapped += 1
    return decisions


def _join(decisions: list[Decision], calls: list[Call]) -> list[Decision]:
    """Attach decision records to their calls; returns those that match no call."""
    by_id = {c.call_id: c for c in calls if c.call_id}
    by_tool: dict[str, list[Call]] = {}
    for c in sorted(calls, key=lambda c: (c.start or EPOCH)):
        by_tool.setdefault(c.tool, []).append(c)
    first = dict.fromkeys(by_tool, 0)  # per tool: the first call that may still be undecided

    def decided(c: Call) -> bool:
        return any(not x.from_result for x in c.decisions)

    loose: list[Decision] = []
    for d in decisions:
        c = by_id.get(d.call_id) if d.call_id else None
        if c is None and not d.call_id and (d.decision or "").lower() not in _REJECTS \
                and d.tool in by_tool:
            cands = by_tool[d.tool]
            i = first[d.tool]
            while i < len(cands) and decided(cands[i]):
                i += 1
            first[d.tool] = i
            for j in range(i, len(cands)):
                cand = cands[j]
                if decided(cand):
                    continue
                if d.prompt_id and cand.prompt_id and d.prompt_id != cand.prompt_id:
                    continue
                if cand.end is not None and d.time is not None and d.time > cand.end:
                    continue
                c = cand
                break
        if c is None:
            loose.append(d)
            continue
        if c.tool == "unknown-tool" and d.tool and d.tool != "unknown-tool":
            # the result record named no tool; its decision (same call id) does
            c.tool, c.server = d.tool, d.server
        c.decisions = [x for x in c.decisions if not x.from_result] + [d]
    return loose


# --- decisions --------------------------------------------------------------------------------


@dataclass
class Rule:
    """What a recorded decision becomes."""

    once: str | None = None  # allowed | permission-required | disallowed
    standing: str | None = None
    runs: bool = True  # the tool runs after it
    cancel: bool = False  # user_abort: cancel the open call
    reason: str | None = None
    inferred: str = ""


def _decide(d: Decision) -> Rule:
    src = (d.source or "").lower()
    dec = (d.decision or "").lower()
    rejected = dec in _REJECTS
    label = f"{d.vendor} decision {d.decision or '(none)'}" + (
        f" from source {d.source}" if d.source else "")
    if d.vendor == "pydantic_ai":
        return Rule(once="permission-required", runs=False,
                    reason="the tool asked for approval (ApprovalRequired)",
                    inferred="pydantic-ai deferred the call with ApprovalRequired: the tool "
                             "asked for approval; a run after approval is a later span of the "
                             "same call id")
    if d.vendor == "gemini_cli":
        if dec == "reject":
            return Rule(once="permission-required", runs=False, reason="rejected by the user",
                        inferred=f"{label}: the user cancelled at the confirmation prompt; "
                                 "the tool did not run")
        if dec == "auto_accept":
            return Rule(once="permission-required", standing="allowed",
                        inferred=f"{label}: the user chose 'always allow' at the confirmation "
                                 "prompt: permission for this call, then allowed from now on")
        if dec == "modify":
            return Rule(once="permission-required", reason="arguments modified by the user",
                        inferred=f"{label}: the user edited the call before approving it")
        if dec == "accept":
            return Rule(once="permission-required",
                        inferred=f"{label}: the user approved this call once at the prompt")
        if not dec:
            return Rule(once="allowed", inferred=f"{label}: no confirmation was asked for "
                                                 "(Gemini logs a decision only when it asks)")
        return Rule(once="disallowed" if rejected else "allowed", runs=not rejected,
                    inferred=f"{label}: an unknown decision value")
    if src == "user_abort" or dec == "abort":
        return Rule(once="permission-required", runs=False, cancel=True,
                    reason="the user dismissed the permission prompt",
                    inferred=f"{label}: the user aborted at the permission prompt: the open "
                             "call is cancelled, or, if it never started, it did not run")
    if src == "config":
        if rejected:
            return Rule(once="disallowed", runs=False, reason="config",
                        inferred=f"{label}: a deny rule or mode refused it without asking")
        return Rule(standing="allowed",
                    inferred=f"{label}: allowed by configuration (rules, mode, an earlier "
                             "grant) without asking: a standing decision for this tool")
    if src == "user_permanent" or dec.replace("_", "") in ("approvedforsession",
                                                           "approvedexecpolicyamendment"):
        if d.vendor == "codex":
            return Rule(once="permission-required", standing="allowed",
                        inferred=f"{label}: the user approved it and for what follows: "
                                 "permission for this call, then a standing allowed decision")
        return Rule(standing="allowed",
                    inferred=f"{label}: the user chose 'don't ask again': a standing allowed "
                             "decision for this tool")
    if src in ("user_temporary", "user") and not rejected:
        return Rule(once="permission-required",
                    inferred=f"{label}: the user was asked and approved this call")
    if src in ("user_reject", "user") and rejected:
        return Rule(once="permission-required", runs=False, reason="rejected by the user",
                    inferred=f"{label}: the user was asked and said no; the tool did not run")
    if src == "hook":
        return Rule(once="disallowed" if rejected else "allowed", runs=not rejected,
                    reason="hook", inferred=f"{label}: a PreToolUse or PermissionRequest hook "
                                            "decided this call")
    return Rule(once="disallowed" if rejected else "allowed", runs=not rejected,
                reason=d.source, inferred=f"{label}: decided without asking the user")


# --- the vCon ---------------------------------------------------------------------------------


def _times(rd: Reading) -> dict[int, datetime]:
    """A time for every record (by order): recorded, else the previous record's."""
    items: list[tuple[int, datetime | None]] = [(s.order, s.start) for s in rd.spans]
    items += [(lg.order, lg.time) for lg in rd.logs]
    items.sort()
    known = [t for _, t in items if t is not None]
    out: dict[int, datetime] = {}
    if not known:
        if items:
            rd.report.times = "order-only"
        out = {o: EPOCH + timedelta(milliseconds=i) for i, (o, _) in enumerate(items)}
    else:
        if len(known) < len(items):
            rd.report.times = "partial"
        prev = known[0]
        for o, t in items:
            prev = t if t is not None else prev
            out[o] = prev
    for s in rd.spans:
        if s.start is not None and s.end is not None and s.end < s.start:
            rd.report.warn("a span ends before it starts (its times are kept as recorded)")
        if s.start is None:
            s.start = out[s.order]
            if s.end is not None and s.end < s.start:
                s.end = s.start
    return out


@dataclass
class _Ev:
    time: datetime
    rank: int
    seq: int
    etype: str
    call: Call | None
    source: str
    fields: dict[str, Any]


def _plan(calls: list[Call], loose: list[Decision], rep: Report) -> list[_Ev]:
    evs: list[_Ev] = []
    seq = 0

    def add(t: datetime | None, rank: int, etype: str, call: Call | None, src: str,
            **fields: Any) -> None:
        nonlocal seq
        seq += 1
        evs.append(_Ev(t or EPOCH, rank, seq, etype, call, src, fields))

    for d in loose:  # a decision whose call left no other record
        c = Call(tool=d.tool or "unknown-tool", server=d.server, where=d.where, call_id=d.call_id,
                 prompt_id=d.prompt_id, start=d.time, decisions=[d])
        calls.append(c)
    for c in calls:
        runs = c.ran
        cancel_at: datetime | None = None
        if not c.from_span and c.start is not None:
            # a log call's start is estimated (time - duration_ms, in whole ms); the host
            # starts the call when it decides, so it does not start before its decision
            late = [d.time for d in c.decisions if d.time is not None and d.time > c.start
                    and (c.end is None or d.time <= c.end)]
            if late:
                c.start = max(late)
        for d in c.decisions:
            rule = _decide(d)
            t = d.time or c.start
            extra = {"reason": rule.reason} if rule.reason else {}
            if rule.cancel and c.ran and c.start is not None and t is not None \
                    and t >= c.start and (c.end is None or t <= c.end):
                cancel_at = t
                continue
            if rule.once:
                add(t, 0, "policy-decision", c, d.where, decision=rule.once,
                    policy_life="once", operation="tool-invocation", inferred=rule.inferred,
                    **extra)
            if rule.standing:
                add(t, 0, "standing", c, d.where, decision=rule.standing,
                    policy_life="standing", operation="tool-invocation",
                    inferred=rule.inferred)
        if not runs:
            continue
        add(c.start, 1, "tool-invocation", c, c.sources[0] if c.sources else c.where)
        if c.pending is not None:
            add(c.pending[0], 2, "tool-pending", c, c.sources[-1] if c.sources else c.where,
                body=c.pending[1])
        if cancel_at is not None:
            add(cancel_at, 2, "tool-cancel", c, c.where,
                body={"reason": "user_abort: the user dismissed the permission prompt"})
        if c.end_type is not None:
            add(c.end, 3, c.end_type, c, c.sources[-1] if c.sources else c.where,
                body=c.end_body)
    evs.sort(key=lambda e: (e.time, e.rank, e.seq))
    return evs


#: Attributes that name the agent session a record belongs to (Claude Code and Gemini CLI
#: session.id, Codex conversation.id, the GenAI conventions' gen_ai.conversation.id).
_SESSION_KEYS: Final = ("session.id", "conversation.id", "gen_ai.conversation.id")


def _sessions(rd: Reading) -> set[str]:
    """The distinct agent session ids of the records (a trace may well span several
    services, an agent and the MCP servers it calls: that is one session)."""
    sessions: set[str] = set()
    for r in [*rd.spans, *rd.logs]:
        for k in _SESSION_KEYS:
            v = r.attrs.get(k, r.resource.get(k))
            if isinstance(v, (str, int)) and not isinstance(v, bool) and str(v):
                sessions.add(str(v))
                break
    return sessions


def _party_name(rd: Reading) -> str:
    for s in rd.spans:
        name = _str(s.attrs.get("gen_ai.agent.name"))
        if name:
            return name
    for r in [*rd.spans, *rd.logs]:
        svc = _str(r.resource.get("service.name"))
        if svc and not svc.startswith("unknown_service"):
            return svc
    return "AI agent (OpenTelemetry)"


#: Reading.forms that are a tracing product's own export, not OTLP: (title, unit, article).
_NOT_OTLP: Final = {
    "langsmith-runs": ("LangSmith run export", "records", "a"),
    "phoenix-spans": ("Arize Phoenix span export", "records", "an"),
    "langfuse-observations": ("Langfuse observation export", "records", "a"),
    "openai-agents": ("OpenAI Agents SDK trace", "records", "an"),
    "jaeger": ("Jaeger trace export", "spans", "a"),
    "zipkin": ("Zipkin span export", "spans", "a"),
}


def convert(data: bytes, *, source_name: str = "-", created: str | None = None,
            ) -> tuple[dict[str, Any], Report]:
    """An OpenTelemetry recording's bytes -> (a tool-invocation vCon, the import report)."""
    rd = read(data)
    rep = rd.report
    times = _times(rd)
    _mark_sk_app_calls(rd)
    calls = _span_calls(rd)
    decisions = _log_calls(rd, times, calls)
    _answered_calls(rd, times, calls)
    _asked_arguments(rd, calls)
    loose = _join(decisions, calls)
    if rd.naive:
        rep.warn("timestamps without a zone offset were read as UTC")
    named = _NOT_OTLP.get(next(iter(rd.forms - {"concatenated"}))) \
        if len(rd.forms - {"concatenated"}) == 1 else None
    if named is not None:  # the export of a tracing product, not OTLP: say which
        rep.title, rep.unit, rep.article = named
    events = Events(party=0)
    plan = _plan(calls, loose, rep)
    for e in plan:  # operation ids in order of first appearance
        c = e.call
        if c is not None and c.op is None and e.etype != "standing":
            c.op = events.new_operation()
    for e in plan:
        c = e.call
        assert c is not None
        if e.etype == "standing":
            ev = events.add("policy-decision", e.time, "", 1, e.source, server=c.server,
                            tool=c.tool, attempt_field=False, **e.fields)
            ev.pop("operation_id", None)
            continue
        body = _safe(e.fields.pop("body", None))
        if e.etype == "tool-invocation":
            why = {"inferred": c.inferred["invoke"]} if "invoke" in c.inferred else {}
            events.add(e.etype, e.time, c.op or "", 1, e.source, server=c.server, tool=c.tool,
                       body=_safe(c.invocation) or None, **why)
        elif e.etype == "policy-decision":
            events.add(e.etype, e.time, c.op or "", 1, e.source, server=c.server, tool=c.tool,
                       **e.fields)
            # what was asked, for the decision should the call never run (Events.asked)
            if "arguments" in c.invocation or "parameters" in c.invocation:
                events.asked(c.op or "", 1, _safe(c.invocation))
        else:
            mediatype = TEXT if isinstance(body, str) else "application/json"
            why = {"inferred": c.inferred["end"]} if "end" in c.inferred and \
                e.etype == c.end_type else {}
            if e.etype == "tool-pending" and "pending" in c.inferred:
                why = {"inferred": c.inferred["pending"]}
            events.add(e.etype, e.time, c.op or "", 1, e.source, body=body,
                       mediatype=mediatype, **why)
    sessions = _sessions(rd)
    if len(sessions) > 1:
        rep.warn(f"the input holds {len(sessions)} agent sessions (session.id / "
                 "conversation.id): all are in one vCon, on one agent party")
    missing = _unshown_asked(rd, calls)
    if missing:
        names = ", ".join(sorted({clip(t, 40) for t in missing})[:5])
        rep.warn(f"{len(missing)} tool call(s) the model asked for ({names}) appear only in "
                 "its messages, with no tool span or tool event: not shown as operations (the "
                 "recording does not say whether or how they ran)")
    if events.operations == 0 and not missing:
        rep.warn("the recording has no tool call (no execute_tool / tools/call span and no "
                 "tool log event): the vCon has no operations")
    start = min((e.time for e in plan), default=None)
    if start is None:
        known = [t for t in times.values() if t is not None]
        start = min(known) if known else None
    parties = [{"name": _party_name(rd), "role": "agent"}]
    provenance = {
        "tool": "vcon-view import otlp",
        "source": {"file": source_name, "sha256": hashlib.sha256(data).hexdigest(),
                   "format": "+".join(sorted(rd.forms)) or "otlp", "records": rd.records},
        "mapping": "OpenTelemetry GenAI execute_tool and MCP tools/call spans; Claude Code, "
                   "Codex and Gemini CLI tool log events (tool_decision, tool_result, "
                   "tool_call)",
        **rep.as_dict(),
    }
    vcon = assemble(uid=vcon_uuid(data), subject=f"Agent tool calls imported from "
                    f"OpenTelemetry {source_name}", parties=parties, events=events,
                    start=start, provenance=provenance, created=created)
    return vcon, rep


def claude_tool_decisions(data: bytes) -> list[dict[str, Any]]:
    """Every Claude Code ``tool_decision`` log record of an OTLP input, in input order, as
    ``{tool_use_id, tool_name, source, decision, time}`` (values as recorded, None when absent;
    ``time`` a timezone-aware datetime). Raises ImportInputError when the input holds no span
    or log record at all."""
    rd = read(data)
    out: list[dict[str, Any]] = []
    for lg in rd.logs:
        if lg.name != "claude_code.tool_decision":
            continue
        a = lg.attrs
        out.append({
            "tool_use_id": _str(a.get("tool_use_id")),
            "tool_name": _str(a.get("tool_name")),
            "source": _str(a.get("source")),
            "decision": _str(a.get("decision")),
            "time": lg.time,
        })
    return out


# --- recognising the format -------------------------------------------------------------------


_ID_KEYS: Final = ("spanId", "span_id", "traceId", "trace_id")


def _has_span_id(r: Any) -> bool:
    """A span for sniffing: a name and a span or trace id (at the top or in ``context``);
    a name and a start time alone could be anything. The OpenAI Agents SDK's records, and a
    batch of them in a list, Langfuse's observations and LangSmith's runs count too."""
    if isinstance(r, list) and r:
        return all(_is_agents_record(x) for x in r[:16])
    if _is_agents_record(r) or _is_observation(r) or _is_ls_run(r) or _is_jaeger_span(r) \
            or _is_zipkin(r):
        return True
    if not isinstance(r, dict) or not isinstance(r.get("name"), str):
        return False
    ctx = r.get("context")
    return any(k in r for k in _ID_KEYS) or (
        isinstance(ctx, dict) and any(k in ctx for k in _ID_KEYS))


def _records(smp: Sample) -> Iterator[Any]:
    doc = smp.doc
    traces = _jaeger_traces(doc) if smp.is_doc else None
    if traces:  # Jaeger's JSON
        yield from (s for _w, t in traces[:8] for s in t["spans"][:64])
    elif smp.is_doc and isinstance(doc, dict) and isinstance(doc.get("spans"), list):
        yield from doc["spans"][:64]
    elif smp.is_doc and _is_observations(doc):  # Langfuse's API
        yield from (doc.get("data") or doc.get("observations"))[:64]
    elif smp.is_doc and _is_ls_page(doc):  # LangSmith's REST API
        yield from doc["runs"][:64]
    elif smp.is_doc and _is_span_page(doc):  # Arize Phoenix's REST API
        yield from doc["data"][:64]
    elif not smp.is_doc:  # JSONL: objects, and the OpenAI Agents SDK's batches (lists)
        yield from (x for x in smp.lines if isinstance(x, dict) or (
            isinstance(x, list) and _has_span_id(x)))
    else:
        yield from smp.records()


def _pretty_spans(smp: Sample) -> bool:
    """Spans pretty-printed one after another (the Python SDK's ConsoleSpanExporter): not one
    document, not JSONL, a head that opens an object naming span and trace ids. Gemini CLI's
    outfile (records naming ``gemini_cli.`` events) is the Gemini importer's."""
    head = getattr(smp, "head", b"").lstrip()
    if smp.is_doc or head[:1] != b"{" or b"gemini_cli." in head:
        return False
    if any(x is not None for x in smp.lines[:1]):
        return False  # its first line is JSON: JSONL, sniffed record by record
    return b'"span_id"' in head and b'"trace_id"' in head and b'"name"' in head and (
        b'"start_time"' in head or b'"startTimeUnixNano"' in head)


def sniff(smp: Sample) -> bool:
    """OTLP/JSON exports, span dumps, or tool log records of Claude Code and Codex."""
    if _pretty_spans(smp):
        return True
    recs = list(_records(smp))
    if not recs:
        return False
    hits = 0
    for r in recs:
        if _is_export(r) or _is_snake_export(r) or _has_span_id(r):
            hits += 1
        elif isinstance(r, dict) and isinstance(r.get("attributes"), dict):
            name = r["attributes"].get("event.name")
            # plain Gemini CLI records (its telemetry outfile) are the Gemini importer's
            hits += isinstance(name, str) and name.split(".", 1)[0] in (
                "claude_code", "codex") and _is_log(r)
    return hits * 2 > len(recs)


FORMAT = Format(
    name="otlp",
    title="OpenTelemetry (OTLP) export",
    article="an",
    unit="records",
    sniff=sniff,
    convert=convert,
    help="OpenTelemetry spans or logs: OTLP/JSON (collector file exporter), SDK span dumps, "
         "Claude Code / Codex / Gemini CLI telemetry; LangSmith runs (list_runs JSON/JSONL, "
         "/runs/query pages); Jaeger and Zipkin JSON",
)
