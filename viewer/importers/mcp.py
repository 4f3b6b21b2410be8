"""MCP JSON-RPC transcripts -> tool-invocation events (the draft's MCP mapping appendix).

Readers turn each accepted input form into one list of ``Msg`` (a JSON-RPC message with its
direction, time and where it came from); ``MCPMapper`` then walks that list once and writes the
events. Both MCP revisions are handled by shape, not by a declared version:

* ``tools/call`` request -> tool-invocation (a new operation, its id assigned here);
* ``notifications/progress`` for the call's progressToken, or a task status ``working`` with a
  new ``statusMessage`` (the message as text) -> tool-progress;
* a task-augmented result (2025-11-25 ``result.task``) or a task handle (2026-07-28 tasks
  extension, ``resultType: "task"``) -> tool-pending;
* ``elicitation/create`` from the server, ``resultType: "input_required"``, or a task status
  ``input_required`` -> tool-input (a task's elicitation, related by ``_meta``, gives its
  question to the tool-input a status ``input_required`` made first); the elicitation's
  answer, ``tasks/update`` with ``inputResponses``, or a reissued ``tools/call`` carrying
  ``inputResponses`` -> tool-input-response (same operation and attempt: see ``RETRY_CHOICE``);
* a result with ``isError`` true -> tool-failure, else tool-result (also a task's final result
  from ``tasks/result``, a ``completed`` status carrying ``result``, or a ``failed`` status);
* a JSON-RPC error response -> tool-error; an HTTP 401/403 (when the transcript has HTTP status)
  -> tool-denied; ``notifications/cancelled`` or ``tasks/cancel`` -> tool-cancel (a task status
  ``cancelled`` after it is the acknowledgement: no event, the attempt stays Cancel Requested);
* the client's own request timeout (``client_timed_out``: the reason of its
  ``notifications/cancelled``, or a client log's error line) -> tool-timeout, before that
  cancel; a JSON-RPC error response is the server's answer whatever its code.

Nothing is added to an ended attempt: what arrives after its end is counted as ignored and
described in the provenance ``notes``. A task status for a task id not created yet waits
``HOLD_MESSAGES`` messages (or the same instant) for its CreateTaskResult.

Responses are paired with requests by direction and id (client and server number their requests
independently, so ids overlap), never by id alone. When the transcript has no direction, a
request's direction follows from its method, and a response answers the open request of that
id; if both sides have one open, a result shaped like a client's answer (``action``, ``roots``,
``model``) answers the server's request, anything else the client's.
"""

from __future__ import annotations

import contextlib
import heapq
import json
import re
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from itertools import islice
from typing import Any, Final

from viewer.importers.common import (
    EPOCH,
    JSON,
    TEXT,
    Events,
    Report,
    clip,
    json_loads,
    parse_ts,
)
from viewer.importers.common import nonempty_str as _str
from viewer.importers.formats import HEAD_BYTES, Format, ImportInputError, Sample, split_lines

#: How a 2026-07-28 retry carrying ``inputResponses`` is recorded (the draft's TODO).
RETRY_CHOICE: Final = (
    "a tools/call reissued with inputResponses is the same attempt: it is recorded as a "
    "tool-input-response of the operation whose result asked for input (input_required), "
    "not as a new tool-invocation; its new JSON-RPC id is followed for the final response"
)

C2S, S2C = "c2s", "s2c"
_DIR_WORDS: Final = {
    C2S: {"c2s", "client_to_server", "client->server", "to_server", "outgoing", "out", "send",
          "sent", "client", ">", "->"},
    S2C: {"s2c", "server_to_client", "server->client", "to_client", "incoming", "in", "recv",
          "received", "server", "<", "<-"},
}
#: MCP 2025-11-25 URLElicitationRequiredError: the request cannot be processed until the user
#: completes the URL elicitations the error carries, outside MCP; the client then retries it.
URL_ELICITATION_REQUIRED: Final = -32042
#: Requests a server sends to a client.
_S2C_REQUESTS: Final = frozenset({"elicitation/create", "sampling/createMessage", "roots/list"})
#: Requests either side sends (basic/utilities/ping; 2025-11-25 tasks, for a task a client
#: runs for the server): a capture without directions gives one to the server when its id
#: is open on the client's side only, as a side never has two open requests with one id.
_EITHER_REQUESTS: Final = frozenset({
    "ping", "tasks/get", "tasks/result", "tasks/list", "tasks/cancel",
})
#: Notifications a client sends (others default to server -> client).
_C2S_NOTIFICATIONS: Final = frozenset({
    "notifications/initialized", "notifications/cancelled", "notifications/roots/list_changed",
})
_CLIENT_ANSWER_KEYS: Final = frozenset({"action", "roots", "model", "role"})
_DENIED: Final = frozenset({401, 403})
#: Recorder members written beside a JSON-RPC message's own (never JSON-RPC members).
_FLAT_KEYS: Final = frozenset({"ts", "time", "timestamp", "dir", "direction"})




@dataclass(slots=True)
class Msg:
    """One JSON-RPC message (or an HTTP denial) of a transcript, in transcript order."""

    msg: dict[str, Any] | None
    dir: str | None
    ts: datetime | None
    where: str
    http_status: int | None = None
    http_detail: dict[str, Any] | None = None
    reply_to: Any = None  # for an HTTP denial with no JSON-RPC body: the request id it answers
    server: str | None = None  # the upstream server a proxy's record names (mcp-debug)
    conn: str | None = None  # the connection (its own request ids) in a log of several
    inferred: str | None = None  # how a response without a JSON-RPC id was paired
    compact: str | None = None  # a log without the JSON (Claude Desktop's compact, Cursor's)
    said_by_client: bool = False  # the client's words for an answer (Cursor's error line), not
    # a message the server sent: its own request timeout may be among them


@dataclass
class Transcript:
    messages: list[Msg]
    format: str
    server_url: str | None = None
    server_name: str | None = None
    client_name: str | None = None
    base_time: datetime | None = None
    report: Report = field(default_factory=Report)


# --- readers ----------------------------------------------------------------------------------


def _is_jsonrpc(obj: Any) -> bool:
    """A JSON-RPC message. Without ``jsonrpc`` or ``method``: an ``id`` with a ``result`` or
    an ``error`` (a log may leave the rest out), unless it is an OpenAI Agents SDK trace
    record (``object: trace.span`` with ``span_data``: an ``id`` and an ``error``, null or
    ``{message, data}``, and not a response) or a LangSmith run (``id``, ``error`` and
    ``run_type``)."""
    if not isinstance(obj, dict):
        return False
    if "jsonrpc" in obj or isinstance(obj.get("method"), str):
        return True
    if "span_data" in obj or obj.get("object") in ("trace", "trace.span") or "run_type" in obj:
        return False
    return "id" in obj and ("result" in obj or "error" in obj)


def direction_named(value: Any) -> str | None:
    """C2S or S2C when ``value`` names a direction in words a capture uses, else None."""
    if isinstance(value, str):
        v = value.strip().lower()
        for d, words in _DIR_WORDS.items():
            if v in words:
                return d
    return None


def _status(value: Any) -> int | None:
    return value if type(value) is int and 100 <= value <= 599 else None


def _add(out: list[Msg], m: Any, d: str | None, ts: datetime | None, where: str,
         report: Report, **extra: Any) -> None:
    """Append a message, or each message of a JSON-RPC batch."""
    items = m if isinstance(m, list) else [m]
    if not items:
        report.fail(where, "an empty JSON-RPC batch")
    for k, item in enumerate(items):
        w = f"{where}[{k}]" if isinstance(m, list) else where
        if _is_jsonrpc(item):
            out.append(Msg(item, d, ts, w, **extra))
        elif item is None and extra.get("http_status") is not None:
            out.append(Msg(None, d, ts, w, **extra))
        else:
            report.fail(w, "not a JSON-RPC message")


def _loads(raw: bytes) -> Any:
    """One JSON value as ``common.json_loads`` reads it (exact integers of any size), bad UTF-8
    replaced; ValueError when it is not read (also for NaN/Infinity, which are not JSON and
    would be written as null in silence, and for nesting too deep: orjson reads 1,024 levels,
    and what it refuses Python's parser reads only to its recursion limit)."""
    try:
        return json_loads(raw.decode("utf-8", errors="replace"))
    except RecursionError as exc:
        raise ValueError("nested too deeply") from exc


def read_transcript(data: bytes) -> Transcript:
    """Parse any accepted form; raises ImportInputError when nothing is MCP traffic."""
    try:
        whole = _loads(data[3:] if data.startswith(b"\xef\xbb\xbf") else data)
    except ValueError:
        whole = None
    listed = _inspector_list(whole)
    if isinstance(whole, dict) and isinstance(whole.get("session"), dict) \
            and isinstance(whole["session"].get("interactions"), list):
        t = _read_agent_vcr(whole)
    elif isinstance(whole, dict) and isinstance(whole.get("interactions"), list):
        t = _read_mcp_recorder(whole)
    elif listed is not None:
        t = Transcript([], "mcp-inspector-history")
        sink = _Sink(t.messages, t.report)
        for i, e in enumerate(listed):
            if _is_inspector_entry(e):
                _inspector_entry(sink, e, f"/{i}")
            else:
                sink.add(e, None, None, f"/{i}")
        sink.close()
    elif isinstance(whole, list):
        t = Transcript([], "json-array")
        sink = _Sink(t.messages, t.report)
        for i, m in enumerate(whole):
            sink.add(m, None, None, f"/{i}")
    elif _is_jsonrpc(whole):
        t = Transcript([], "jsonl")
        _Sink(t.messages, t.report).add(whole, None, None, "line 1")
    elif _looks_claude_log(data):
        t = _read_claude_log(data)
    elif _looks_vscode_log(data):
        t = _read_vscode_log(data)
    elif _looks_cursor_log(data):
        t = _read_cursor_log(data)
    else:
        t = _read_jsonl(data)
    _orient(t)
    if not t.messages:
        raise ImportInputError(
            "no MCP JSON-RPC message could be read (accepted: JSONL of {ts, dir, msg} or of "
            "JSON-RPC messages, a JSON array of messages, an MCP Inspector history export, "
            "an mcp-debug recording, Claude Desktop's MCP log, VS Code's MCP output channel, "
            "Cursor's MCP log, "
            "mcp-recorder and agent-vcr cassettes)")
    return t


#: Requests only a client sends (basic/lifecycle, server/tools, resources, prompts, utilities).
_CLIENT_REQUESTS: Final = frozenset({
    "initialize", "tools/call", "tools/list", "resources/list", "resources/read",
    "resources/templates/list", "resources/subscribe", "resources/unsubscribe",
    "prompts/list", "prompts/get", "completion/complete", "logging/setLevel",
})


def _orient(t: Transcript) -> None:
    orient(t.messages, t.report)


def orient(messages: list[Msg], report: Report) -> None:
    """Directions are often relative words ("incoming", "out", "send"): a capture made on the
    server's side has them the other way round. When more of the requests only a client
    sends are recorded as going to the client than to the server, every direction is turned
    round (and the import says so)."""
    to_server = to_client = 0
    for m in messages:
        msg = m.msg
        method = None if msg is None else msg.get("method")
        if m.dir is not None and isinstance(method, str) and "id" in msg \
                and method in _CLIENT_REQUESTS:
            if m.dir == C2S:
                to_server += 1
            else:
                to_client += 1
    if to_client > to_server:
        for m in messages:
            if m.dir is not None:
                m.dir = S2C if m.dir == C2S else C2S
        report.warn("the capture's directions have the client's requests (initialize, "
                    "tools/call...) going to the client: they were written as seen from the "
                    "server, and were turned round")


#: MCP Inspector (v2) MessageEntry kinds: ``direction`` is the kind of message, not its way.
_ENTRY_KINDS: Final = frozenset({"request", "response", "notification"})
#: Keys under which a wrapped Inspector history export may hold its entries.
_ENTRY_LISTS: Final = ("messages", "history", "entries")


def _is_inspector_entry(e: Any) -> bool:
    """An MCP Inspector ``MessageEntry``: ``{id, timestamp, direction, origin?, message,
    response?, duration?}`` whose ``message`` is a JSON-RPC message."""
    return isinstance(e, dict) and isinstance(e.get("direction"), str) \
        and "msg" not in e and _is_jsonrpc(e.get("message"))


def _inspector_list(whole: Any) -> list[Any] | None:
    """The entries of an Inspector history export (a JSON array of MessageEntry, or an object
    holding one under ``messages``/``history``/``entries``), else None."""
    items = whole
    if isinstance(whole, dict):
        items = next((whole[k] for k in _ENTRY_LISTS if isinstance(whole.get(k), list)), None)
    if not isinstance(items, list) or not items:
        return None
    hits = sum(1 for e in items[:64] if _is_inspector_entry(e))
    return items if hits * 2 > min(len(items), 64) else None


def _inspector_entry(sink: _Sink, e: dict[str, Any], where: str) -> None:
    """One MessageEntry: its message, then its inline ``response`` (at timestamp + duration,
    answering the other way), placed in time order among the entries that follow."""
    kind = e["direction"].strip().lower()
    d = direction_named(e.get("origin")) if kind in _ENTRY_KINDS else direction_named(kind)
    ts, naive = parse_ts(e.get("timestamp"))
    if naive:
        sink.report.warn("timestamps without a zone offset were read as UTC")
    msg = e["message"]
    sink.add(msg, d, ts, f"{where}/message")
    resp = e.get("response")
    if resp is None:
        return
    if d is not None:
        back = S2C if d == C2S else C2S
    else:
        method = msg.get("method")
        back = C2S if isinstance(method, str) and method in _S2C_REQUESTS else S2C
    sink.defer(resp, back, _after(ts, e.get("duration")), f"{where}/response")


def _after(ts: datetime | None, ms: Any) -> datetime | None:
    """``ts`` plus a recorded duration in milliseconds (ignored when not a usable number)."""
    if ts is None or not isinstance(ms, (int, float)) or isinstance(ms, bool) \
            or not 0 <= ms < 1e12:
        return ts
    try:
        return ts + timedelta(milliseconds=ms)
    except OverflowError:
        return ts


class _Sink:
    """Collects messages in transcript order. An inline response (Inspector entries) is held
    until the first later message whose time is past it, so its time order is kept."""

    def __init__(self, out: list[Msg], report: Report) -> None:
        self.out = out
        self.report = report
        self.later: list[tuple[datetime, int, Any, str | None, str]] = []
        self.n = 0

    def add(self, m: Any, d: str | None, ts: datetime | None, where: str, **extra: Any) -> None:
        """Append a message, or each message of a JSON-RPC batch (``extra``: Msg fields)."""
        if ts is not None and self.later:
            self._flush(ts)
        _add(self.out, m, d, ts, where, self.report, **extra)

    def defer(self, m: Any, d: str | None, ts: datetime | None, where: str) -> None:
        if ts is None:
            self.add(m, d, ts, where)
            return
        self.n += 1
        heapq.heappush(self.later, (ts, self.n, m, d, where))

    def _flush(self, upto: datetime | None) -> None:
        while self.later and (upto is None or self.later[0][0] <= upto):
            ts, _, m, d, where = heapq.heappop(self.later)
            _add(self.out, m, d, ts, where, self.report)

    def close(self) -> None:
        self._flush(None)


def _read_jsonl(data: bytes) -> Transcript:
    t = Transcript([], "jsonl")
    rep = t.report
    sink = _Sink(t.messages, rep)
    pairs = _DebugPairs(rep)
    gateway = _GatewayLog(rep)
    kinds: set[str] = set()
    for n, raw in enumerate(split_lines(data), 1):
        if not raw.strip():
            continue
        where = f"line {n}"
        if n == 1 and raw.startswith(b"\xef\xbb\xbf"):
            raw = raw[3:]
        if raw.lstrip().startswith(b"#"):  # mcp-debug's "# MCP Recording Session" lines
            rep.ignore("comment line")
            continue
        try:
            obj = _loads(raw)
        except ValueError:
            rep.fail(where, "not JSON")
            continue
        if _is_debug_record(obj):
            kinds.add("mcp-debug-record")
            ts, naive = parse_ts(obj.get("timestamp"))
            if naive:
                rep.warn("timestamps without a zone offset were read as UTC")
            pairs.add(sink, obj, ts, where)
        elif _is_gateway_record(obj):
            kinds.add("gh-aw-mcp-gateway")
            gateway.add(sink, obj, where)
        elif _is_debug_header(obj):
            kinds.add("mcp-debug-record")
            rep.ignore("recording header")
            t.base_time = t.base_time or parse_ts(obj.get("start_time"))[0]
            t.server_name = t.server_name or _str(obj.get("server_info"))
        elif isinstance(obj, dict) and ("msg" in obj or "http_status" in obj or (
                ("message" in obj or "frame" in obj) and "dir" in obj)):
            kinds.add("jsonl-ts-dir-msg")
            ts, naive = parse_ts(obj.get("ts", obj.get("time", obj.get("timestamp"))))
            if naive:
                rep.warn("timestamps without a zone offset were read as UTC")
            status = _status(obj.get("http_status"))
            detail = obj.get("http")
            http: dict[str, Any] = {}
            if status is not None:
                http = {"http_status": status,
                        "http_detail": detail if isinstance(detail, dict) else None,
                        "reply_to": obj.get("reply_to")}
            d = direction_named(obj.get("dir", obj.get("direction")))
            sink.add(_wrapped(obj), d, ts, where, **http)
        elif _is_mcpspy(obj):
            kinds.add("mcpspy")
            ts, naive = parse_ts(obj.get("timestamp"))
            if naive:
                rep.warn("timestamps without a zone offset were read as UTC")
            sink.add(_mcpspy_message(obj), None, ts, where)
        elif _is_inspector_entry(obj):
            kinds.add("mcp-inspector-history")
            _inspector_entry(sink, obj, where)
        elif isinstance(obj, dict) and isinstance(obj.get("kind"), str) and "message" in obj:
            kinds.add("doc-blocks")  # corpus extraction of the MCP docs' fenced examples
            if obj["kind"].startswith("jsonrpc-"):
                sink.add(obj["message"], None, None, where)
            else:
                rep.ignore(f"doc block ({obj['kind']})")
        elif isinstance(obj, dict) and "example" in obj and "type" in obj:
            kinds.add("schema-examples")
            if _is_jsonrpc(obj["example"]) and "jsonrpc" in obj["example"]:
                sink.add(obj["example"], None, None, where)
            else:
                rep.ignore("schema example (not a message)")
        elif isinstance(obj, dict) and _is_jsonrpc(obj) and _FLAT_KEYS.intersection(obj):
            # a JSON-RPC message with the recorder's time / direction beside its members
            # (mcp-debug --record: {"ts", "dir": "req"|"res", "id", "method"...})
            kinds.add("jsonl-jsonrpc-ts")
            ts, naive = parse_ts(obj.get("ts", obj.get("time", obj.get("timestamp"))))
            if naive:
                rep.warn("timestamps without a zone offset were read as UTC")
            d = direction_named(obj.get("dir", obj.get("direction")))
            sink.add({k: v for k, v in obj.items() if k not in _FLAT_KEYS}, d, ts, where)
        elif _is_jsonrpc(obj) or isinstance(obj, list):
            kinds.add("jsonl-jsonrpc")
            sink.add(obj, None, None, where)
        else:
            rep.fail(where, "neither a JSON-RPC message nor {ts, dir, msg}")
    sink.close()
    gateway.close()
    t.format = "+".join(sorted(kinds)) or "jsonl"
    return t


_SPY_TYPES: Final = frozenset({"request", "response", "notification"})
_SPY_MEMBERS: Final = ("id", "method", "params", "result", "error")


def _is_mcpspy(obj: Any) -> bool:
    """A record of MCPSpy's JSONL output: the message's members flattened beside
    ``timestamp``, ``transport_type``, ``<transport>_transport`` (pids, commands) and ``type``
    (request | response | notification), and the message as sent in ``raw``."""
    return isinstance(obj, dict) and isinstance(obj.get("transport_type"), str) \
        and obj.get("type") in _SPY_TYPES and ("raw" in obj or any(
            isinstance(k, str) and k.endswith("_transport") for k in obj))


def _mcpspy_message(obj: dict[str, Any]) -> Any:
    """The JSON-RPC message of an MCPSpy record: ``raw`` as sent when it parses as one;
    else its flattened members, without the ``error: {}`` MCPSpy writes on every record
    that has no error (read as an error, every response looked failed)."""
    raw = obj.get("raw")
    if isinstance(raw, str):
        with contextlib.suppress(ValueError, RecursionError):
            msg = json_loads(raw)
            if _is_jsonrpc(msg) or (isinstance(msg, list) and msg):
                return msg
    msg = {k: obj[k] for k in _SPY_MEMBERS if k in obj}
    if msg.get("error") in ({}, None):
        msg.pop("error", None)
    msg.setdefault("jsonrpc", "2.0")
    return msg


def _wrapped(obj: dict[str, Any]) -> Any:
    """The message of a ``{ts, dir, msg}`` line: under ``msg``, ``message`` or ``frame`` (a
    tap's session log, null when the line did not parse)."""
    for key in ("msg", "message", "frame"):
        if key in obj:
            return obj[key]
    return None


#: A line of Claude Desktop's MCP log (mcp.log, mcp-server-NAME.log): its time, then
#: ``[level] [server]`` (``[server] [level]`` in older builds), then the text.
_LOG_LINE: Final = re.compile(r"(\d{4}-\d\d-\d\dT\S+) \[([^\]\n]*)\] \[([^\]\n]*)\] (.*)",
                              re.DOTALL)
_LOG_LEVELS: Final = frozenset({"info", "error", "warn", "warning", "debug", "trace", "notice",
                                "fatal", "verbose"})
_LOG_MESSAGE: Final = re.compile(r"Message from (client|server): ")
#: The compact form newer Claude Desktop builds log instead of the JSON (README "MCP
#: transcripts"): ``method="tools/call" id=3 params``, ``id=3 result(2 blocks)``,
#: ``id=4 error(code=-32603)``; the tool name, arguments and results are not in the log.
_LOG_COMPACT: Final = re.compile(
    r'(?:method=(?P<method>"(?:[^"\\\n]|\\.)*")(?: id=(?P<rid>"(?:[^"\\\n]|\\.)*"|-?\d+))?'
    r"(?P<params> params)?"
    r'|id=(?P<aid>"(?:[^"\\\n]|\\.)*"|-?\d+) (?P<kind>result|error)'
    r"(?:\((?P<detail>[^)\n]*)\))?)"
    r"(?= |$)")
_COMPACT_CODE: Final = re.compile(r"code=(-?\d+)")
#: Notifications that say in their params which request or task they are about.
_NAMES_A_REQUEST: Final = frozenset({"notifications/cancelled", "notifications/progress",
                                     "notifications/tasks/status"})
#: The tool of a call whose name the compact log leaves out.
UNNAMED_TOOL: Final = "?"
_COMPACT_RESULT: Final = ("Claude Desktop's compact log records no isError: a result is shown "
                          "as tool-result")


def _log_line(text: str) -> tuple[str, str, str] | None:
    """(time, server, text) of a Claude Desktop MCP log line, else None."""
    m = _LOG_LINE.fullmatch(text)
    if m is None:
        return None
    ts, a, b, rest = m.groups()
    if a.lower() in _LOG_LEVELS:
        return ts, b, rest
    if b.lower() in _LOG_LEVELS:
        return ts, a, rest
    return None


def _text_lines(data: bytes) -> Iterator[tuple[int, str]]:
    """(line number, text) of each non-blank line of a text log, decoded (a bad byte as
    U+FFFD), the first line without its byte order mark."""
    for n, raw in enumerate(split_lines(data), 1):
        if raw.strip():
            text = raw.decode("utf-8", errors="replace")
            yield n, text.lstrip("\ufeff") if n == 1 else text


def _head_lines(data: bytes) -> Iterator[str]:
    """The first 256 non-blank lines of the input's head, decoded: what a log's sniffer reads."""
    lines = (raw for raw in data[:HEAD_BYTES].split(b"\n") if raw.strip())
    for raw in islice(lines, 256):
        yield raw.decode("utf-8", errors="replace").rstrip("\r")


def _looks_claude_log(data: bytes) -> bool:
    """Whether the first lines hold a Claude Desktop MCP log's ``Message from`` line."""
    return any((got := _log_line(text)) is not None and _LOG_MESSAGE.match(got[2])
               for text in _head_lines(data))


def _not_json(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON value")


def _read_claude_log(data: bytes) -> Transcript:
    """Claude Desktop's MCP log: each ``Message from client|server: <JSON>`` line is a
    message of the connection to that server (client -> server, server -> client); the JSON
    is read up to its end (newer builds add `` { metadata: undefined }``). The host's other
    lines and the servers' own output are counted as ignored."""
    t = Transcript([], "claude-desktop-mcp-log")
    rep = t.report
    decoder = json.JSONDecoder(parse_constant=_not_json)
    # the host writes each message to mcp.log and to mcp-server-NAME.log with the same time:
    # both read together (``tail -F mcp*.log``, a ``cat``) hold every message twice
    seen: set[tuple[str, str, str, str]] = set()
    for n, text in _text_lines(data):
        got = _log_line(text)
        if got is None:
            rep.ignore("server output (not an MCP message)")
            continue
        stamp, conn, rest = got
        said = _LOG_MESSAGE.match(rest)
        if said is None:
            rep.ignore("log line (not an MCP message)")
            continue
        where = f"line {n}"
        compact = None
        try:
            msg, end = decoder.raw_decode(rest, said.end())
            text = rest[said.end():end]
        except (ValueError, RecursionError):
            got_compact = _compact_message(rest[said.end():])
            if got_compact is None:
                rep.fail(where, "the logged message is not JSON")
                continue
            msg, compact = got_compact
            text = compact
        key = (conn, said.group(1), stamp, text)
        if key in seen:
            rep.ignore("the same message again (mcp.log and mcp-server-NAME.log)")
            rep.warn("the log holds messages twice, with the same time (mcp.log and "
                     "mcp-server-NAME.log read together): each is read once")
            continue
        seen.add(key)
        if compact is not None:
            rep.warn("Claude Desktop's compact MCP log (method=… id=…): the tool name, "
                     "arguments and results are not recorded; each call's tool is shown as "
                     f"\"{UNNAMED_TOOL}\", its invocation and result hold the log's words, and "
                     "a result is a tool-result (marked inferred: isError is not recorded)")
        ts, naive = parse_ts(stamp)
        if naive:
            rep.warn("timestamps without a zone offset were read as UTC")
        d = C2S if said.group(1) == "client" else S2C
        extra: dict[str, Any] = {"conn": conn}
        if compact is not None:
            extra["compact"] = compact
        _add(t.messages, msg, d, ts, where, rep, **extra)
    return t


#: A line of VS Code's MCP output channel ("MCP: <server>", one server per channel): the
#: channel's local time and level, then the extension host's words for a message: older builds
#: ``[Client Says] `` + the message and ``[Server Says] `` + each line of the server's stdout
#: (extHostMcpNode.ts), newer ones ``[editor -> server] `` / ``[server -> editor] `` + the
#: JSON (mcpServerRequestHandler.ts). Its other lines (state changes, ``[server stderr]``) are
#: not messages.
_VSCODE_LINE: Final = re.compile(
    r"(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)?) \[(\w+)\] (.*)", re.DOTALL)
_VSCODE_SAYS: Final = re.compile(
    r"\[(Client Says|editor -> server|Server Says|server -> editor)\] ")
_VSCODE_DIR: Final = {"Client Says": C2S, "editor -> server": C2S,
                      "Server Says": S2C, "server -> editor": S2C}


def _vscode_line(text: str) -> tuple[str, str, str] | None:
    """(time, direction, the logged message) of a VS Code MCP output line that logs a
    message, else None."""
    m = _VSCODE_LINE.fullmatch(text)
    if m is None or m.group(2).lower() not in _LOG_LEVELS:
        return None
    said = _VSCODE_SAYS.match(m.group(3))
    if said is None:
        return None
    return m.group(1), _VSCODE_DIR[said.group(1)], m.group(3)[said.end():]


def _looks_vscode_log(data: bytes) -> bool:
    """Whether the first lines hold a VS Code MCP output line that logs a JSON message."""
    return any((got := _vscode_line(text.lstrip("\ufeff"))) is not None
               and got[2].lstrip().startswith(("{", "[")) for text in _head_lines(data))


def _read_vscode_log(data: bytes) -> Transcript:
    """VS Code's MCP output channel: each logged message line is a message of the channel's one
    connection (the editor is the client); the channel's own lines and the server's stdout
    lines that are not JSON are counted as ignored."""
    t = Transcript([], "vscode-mcp-log")
    rep = t.report
    decoder = json.JSONDecoder(parse_constant=_not_json)
    for n, text in _text_lines(data):
        got = _vscode_line(text.rstrip("\r"))
        if got is None:
            rep.ignore("log line (not an MCP message)")
            continue
        stamp, d, rest = got
        where = f"line {n}"
        try:
            msg, _end = decoder.raw_decode(rest.strip(), 0)
        except (ValueError, RecursionError):
            if d == S2C:  # each stdout line is logged, JSON or not
                rep.ignore("server output (not an MCP message)")
            else:
                rep.fail(where, "the logged message is not JSON")
            continue
        ts, naive = parse_ts(stamp)
        if naive:
            rep.warn("timestamps without a zone offset were read as UTC (VS Code writes its "
                     "local time)")
        _add(t.messages, msg, d, ts, where, rep)
    return t


#: A line of Cursor's MCP log (the Output panel's "MCP Logs", ``Cursor MCP.log`` of 2025
#: builds with every server's lines, each after the log's short tag for that server, and the
#: per-server channels ``MCP <server>.log`` of later builds, untagged): the local time and
#: level, then the text. The lines of a tool call are ``Calling tool 'X'`` (later `` with
#: toolCallId: …``), then ``Successfully called tool 'X'`` or ``Error calling tool 'X': …``;
#: the servers' stderr is logged too, at [error] (not a failure of a call).
_CURSOR_LINE: Final = re.compile(
    r"(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)?) \[(\w+)\] (?:([^\s:'\[]+): )?(.*)", re.DOTALL)
_CURSOR_CALL: Final = re.compile(
    r"(?P<how>Calling|Successfully called|Error calling) tool '(?P<tool>[^'\n]*)'"
    r"(?P<rest>.*)", re.DOTALL)
_CURSOR_MCP_ERROR: Final = re.compile(r": (MCP error (-?\d+): .*)", re.DOTALL)
_CURSOR_RESULT: Final = ("Cursor's MCP log records no isError (\"Successfully called tool\" "
                         "says the call returned): a result is shown as tool-result")
_CURSOR_OLDEST: Final = ("the log has no request id: paired with the oldest open call of "
                         "that tool")


#: The MCP TypeScript SDK's own request timeout as the client writes it: the error's message
#: (``MCP error -32001: Request timed out``: src/shared/protocol.ts, ``McpError(ErrorCode.
#: RequestTimeout, "Request timed out")``, -32001 being the SDK's local code, never sent) or
#: ``String(error)``, the reason of the ``notifications/cancelled`` it sends on that timeout
#: (``Error: MCP error -32001: Request timed out``; ``McpError: …`` in builds that name it).
_CLIENT_TIMEOUT: Final = re.compile(r"(?:\w*Error: )?(?:MCP error -32001: )?Request timed out")


def client_timed_out(text: Any) -> bool:
    """Whether the client's own words (a cancel's reason, a client log's error line) are its
    SDK's request timeout: the client stopped waiting, which no server message says (the
    draft's tool-timeout). A server's JSON-RPC error is never read with this: it is the
    server's answer, whatever its code."""
    return isinstance(text, str) and _CLIENT_TIMEOUT.fullmatch(text.strip()) is not None


def _cursor_line(text: str) -> tuple[str, str | None, re.Match[str] | None] | None:
    """(time, the server's tag, the call line's match or None) of a Cursor MCP log line,
    else None."""
    m = _CURSOR_LINE.fullmatch(text)
    if m is None or m.group(2).lower() not in _LOG_LEVELS:
        return None
    return m.group(1), m.group(3), _CURSOR_CALL.fullmatch(m.group(4))


def _looks_cursor_log(data: bytes) -> bool:
    """Whether the first lines hold a Cursor MCP log's ``Calling tool 'X'`` (or its
    ``Handling CallTool action``) line."""
    for text in _head_lines(data):
        got = _cursor_line(text.lstrip("\ufeff"))
        if got is not None and (got[2] is not None or "Handling CallTool action" in text):
            return True
    return False


def _read_cursor_log(data: bytes) -> Transcript:
    """Cursor's MCP log: each ``Calling tool 'X'`` line is a tools/call of its server (the
    line's tag, else the channel's one server), answered by the next ``Successfully called
    tool 'X'`` (a result: isError is not logged) or ``Error calling tool 'X': …`` (an error,
    its JSON-RPC code when the text gives ``MCP error <code>:``) of that server: the oldest
    open call of X, as the log has no request id. The log's words stand for the arguments and
    the result, which it does not record; every other line is counted as ignored."""
    t = Transcript([], "cursor-mcp-log")
    rep = t.report
    ids: dict[str | None, int] = {}
    open_calls: dict[tuple[str | None, str], deque[int]] = {}
    for n, text in _text_lines(data):
        got = _cursor_line(text.rstrip("\r"))
        if got is None or got[2] is None:
            rep.ignore("log line (not a tool call)")
            continue
        stamp, tag, call = got
        ts, naive = parse_ts(stamp)
        if naive:
            rep.warn("timestamps without a zone offset were read as UTC (Cursor writes its "
                     "local time)")
        where, tool, words = f"line {n}", call.group("tool"), call.group(0)
        queue = open_calls.setdefault((tag, tool), deque())
        extra: dict[str, Any] = {"compact": words}
        if tag is not None:
            extra["conn"] = tag
        if call.group("how") == "Calling":
            rid = ids[tag] = ids.get(tag, 0) + 1
            queue.append(rid)
            rep.warn("Cursor's MCP log records no arguments, results or isError: each "
                     "invocation and result holds the log's words, and a result is a "
                     "tool-result (marked inferred)")
            msg: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "method": "tools/call",
                                   "params": {"name": tool}}
            _add(t.messages, msg, C2S, ts, where, rep, **extra)
            continue
        if not queue:
            rep.fail(where, f"an answer for tool {tool!r}, which has no open call")
            continue
        several = len(queue) > 1
        rid = queue.popleft()
        if call.group("how") == "Successfully called":
            msg = {"jsonrpc": "2.0", "id": rid, "result": {}}
            note = _CURSOR_RESULT + ("; " + _CURSOR_OLDEST if several else "")
        else:
            detail = call.group("rest").removeprefix(": ")
            code = _CURSOR_MCP_ERROR.match(call.group("rest"))
            err: dict[str, Any] = {"code": int(code.group(2))} if code else {}
            msg = {"jsonrpc": "2.0", "id": rid, "error": {**err, "message": detail}}
            note = _CURSOR_OLDEST if several else None
            extra["said_by_client"] = True
        _add(t.messages, msg, S2C, ts, where, rep, inferred=note, **extra)
    if ids.keys() - {None}:
        rep.warn("Cursor's MCP log names each server only by a short tag (db10:, ext7:): "
                 "the tag is the call's server (use --server to name it)")
    return t


def _compact_message(text: str) -> tuple[dict[str, Any], str] | None:
    """The JSON-RPC message a compact log line stands for, and the line's own words; None
    when the text is not in that form. A tools/call gets the tool ``UNNAMED_TOOL``; nothing
    the line does not say is added (no arguments, no result members, no error message)."""
    m = _LOG_COMPACT.match(text)
    if m is None:
        return None
    try:
        return _compact_read(m)
    except ValueError:  # a quoted method or id that is not a JSON string
        return None


def _compact_read(m: re.Match[str]) -> tuple[dict[str, Any], str]:
    words = m.group(0)
    if m.group("method") is not None:
        method = json.loads(m.group("method"))
        msg: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if m.group("rid") is not None:
            msg["id"] = json.loads(m.group("rid"))
        if method == "tools/call":
            msg["params"] = {"name": UNNAMED_TOOL}
        return msg, words
    rid = json.loads(m.group("aid"))
    if m.group("kind") == "result":
        return {"jsonrpc": "2.0", "id": rid, "result": {}}, words[len(m.group("aid")) + 4:]
    code = _COMPACT_CODE.search(m.group("detail") or "")
    err = {"code": int(code.group(1))} if code else {}
    return {"jsonrpc": "2.0", "id": rid, "error": err}, words[len(m.group("aid")) + 4:]


def _is_debug_record(obj: Any) -> bool:
    """One message of an mcp-debug recording (``--record``: integration/dynamic_wrapper.go
    ``RecordedMessage``): ``{timestamp, direction: "request"|"response", message_type,
    tool_name?, server_name?, message}``."""
    return isinstance(obj, dict) and "message_type" in obj and "message" in obj \
        and obj.get("direction") in ("request", "response")


def _is_debug_header(obj: Any) -> bool:
    """The session header of an mcp-debug recording: ``{start_time, server_info, messages}``."""
    return isinstance(obj, dict) and "start_time" in obj and "server_info" in obj \
        and isinstance(obj.get("messages"), list)


class _DebugPairs:
    """mcp-debug records the CallToolRequest it received without its JSON-RPC id, and the
    bare CallToolResult it returned: a response answers the oldest open request of the same
    tool and server (the proxy writes each call's request before its response). Once several
    of them were open together, the pairing is by order only until none is open, and each
    response so paired says so (``inferred``)."""

    def __init__(self, report: Report) -> None:
        self.report = report
        self.open: dict[tuple[str, str], deque[dict[str, int]]] = {}
        self.by_order: set[tuple[str, str]] = set()  # tools with overlapping calls
        self.n = 0

    def add(self, sink: _Sink, rec: dict[str, Any], ts: datetime | None, where: str) -> None:
        msg, server = rec["message"], _str(rec.get("server_name"))
        if server is not None and server.startswith("!"):  # "!host" is the agent's own host
            server = None
        key = (request_key(rec.get("tool_name")), request_key(rec.get("server_name")))
        w = f"{where}/message"
        if rec["direction"] == "request":
            if isinstance(msg, dict) and isinstance(msg.get("method"), str) and "id" not in msg:
                self.n += 1
                rid = {"mcp-debug-request": self.n}  # never equal to a JSON-RPC id
                queue = self.open.setdefault(key, deque())
                queue.append(rid)
                if len(queue) > 1:
                    self.by_order.add(key)
                msg = {**msg, "id": rid}
            sink.add(msg, C2S, ts, w, server=server)
            return
        if _is_jsonrpc(msg) and "id" in msg:
            sink.add(msg, S2C, ts, w, server=server)
            return
        queue = self.open.get(key)
        if not isinstance(msg, dict) or not queue:
            self.report.fail(w, "a response with no recorded request of its tool"
                             if isinstance(msg, dict) else "not a JSON-RPC message")
            return
        inferred = None
        if key in self.by_order:
            inferred = ("paired by order with the oldest open request of this tool: several "
                        "were open and the recording carries no JSON-RPC id")
            self.report.warn("mcp-debug records carry no JSON-RPC id: where several calls of "
                             "one tool were open, each response was paired with the oldest "
                             "(marked inferred)")
        rid = queue.popleft()
        if not queue:
            self.by_order.discard(key)
        sink.add({"jsonrpc": "2.0", "id": rid, "result": msg}, S2C, ts, w, server=server,
                 inferred=inferred)


#: A gh-aw MCP gateway record's kind: ``type`` (``REQUEST``...), or schema v2's ``event``.
_GATEWAY_KINDS: Final = {"REQUEST": "request", "rpc_request": "request",
                         "RESPONSE": "response", "rpc_response": "response"}


def _is_gateway_record(obj: Any) -> bool:
    """A record of the GitHub Agentic Workflows MCP gateway's rpc-messages.jsonl (gh-aw-mcpg
    internal/logger/jsonl_logger.go): ``{timestamp, type | event, _schema?, direction IN|OUT,
    server_id, method?, error?, payload}``, or one of its other events (``DIFC_FILTERED``,
    ``_schema`` ``difc-filtered/v2``...)."""
    if not isinstance(obj, dict):
        return False
    schema = obj.get("_schema")
    if isinstance(schema, str) and schema.startswith(("rpc-message/", "difc-")):
        return True
    kind = _str(obj.get("type"))
    return isinstance(obj.get("server_id"), str) and kind is not None and (
        (kind in _GATEWAY_KINDS and "payload" in obj) or kind == "DIFC_FILTERED")


class _GatewayLog:
    """The gh-aw MCP gateway's log of the messages it relays to each backend server: each
    ``server_id`` is a connection of its own (each numbers its requests from 1). ``OUT`` goes
    to the server, ``IN`` comes from it (turned round for ``server_id`` ``client``, the
    agent's side). A request an older gateway logged without its id (it marshals only jsonrpc,
    method and params) is answered by that server's next response that answers no request of
    its own id; a response that is only the gateway's ``error`` (payload null: it could not
    reach the server) answers that server's oldest open request: both by order, said in the
    response's ``inferred`` when several were open. Other records (``DIFC_FILTERED``: items the
    integrity policy withheld from a response) are no messages: counted as ignored, and said
    in a warning."""

    def __init__(self, report: Report) -> None:
        self.report = report
        #: per server, its open requests in order: (the id the message carries, id-less)
        self.pending: dict[str, list[tuple[Any, bool]]] = {}
        self.n = 0
        self.filtered = 0

    def add(self, sink: _Sink, rec: dict[str, Any], where: str) -> None:
        what = _str(rec.get("type")) or _str(rec.get("event")) or "record"
        kind = _GATEWAY_KINDS.get(what)
        server = _str(rec.get("server_id"))
        if kind is None or server is None:
            if what.upper() == "DIFC_FILTERED":
                self.filtered += 1
            self.report.ignore(f"gateway {what.upper() if len(what) <= 40 else 'event'} record")
            return
        ts, naive = parse_ts(rec.get("timestamp"))
        if naive:
            self.report.warn("timestamps without a zone offset were read as UTC")
        way = direction_named(rec.get("direction"))
        if server == "client" and way is not None:  # the agent's side: IN is the client's
            way = S2C if way == C2S else C2S
        msg, w = rec.get("payload"), f"{where}/payload"
        pend = self.pending.setdefault(server, [])
        if kind == "request":
            if isinstance(msg, dict) and isinstance(msg.get("method"), str):
                if "id" in msg:
                    pend.append((msg["id"], False))
                elif not msg["method"].startswith("notifications/"):
                    self.n += 1
                    rid = {"gateway-request": self.n}  # never equal to a JSON-RPC id
                    pend.append((rid, True))
                    msg = {**msg, "id": rid}
            sink.add(msg, way, ts, w, conn=server)
            return
        err = _str(rec.get("error"))
        own = request_key(msg["id"]) if isinstance(msg, dict) and "id" in msg else None
        hit = next((k for k, (i, idless) in enumerate(pend)
                    if not idless and request_key(i) == own), None) if own else None
        inferred = None
        if hit is not None:
            pend.pop(hit)
        else:
            # a payload with an id no open request has answers an id-less request; the
            # gateway's bare error, any open one
            answer = (isinstance(msg, dict) and ("result" in msg or "error" in msg)) or (
                msg is None and err is not None)
            cands = [k for k, (_, idless) in enumerate(pend) if idless or msg is None]
            if cands and answer:
                rid = pend.pop(cands[0])[0]
                if len(cands) > 1:
                    inferred = ("paired by order with the oldest open request of this server: "
                                "the gateway logged " + ("its error without a response"
                                                         if msg is None else
                                                         "the request without its JSON-RPC id"))
                    self.report.warn("the MCP gateway's log pairs some responses only by order "
                                     "(requests logged without their id, or its own errors): "
                                     "where several were open, each is marked inferred")
                if isinstance(msg, dict) and ("result" in msg or "error" in msg):
                    msg = {**msg, "id": rid}
                elif msg is None and err is not None:
                    msg = {"jsonrpc": "2.0", "id": rid, "error": {"message": err}}
            elif msg is None and err is not None:
                self.report.fail(w, f"a gateway error with no open request: {clip(err, 200)}")
                return
        sink.add(msg, way, ts, w, conn=server, inferred=inferred)

    def close(self) -> None:
        if self.filtered:
            self.report.warn(
                f"the MCP gateway's integrity policy withheld {self.filtered} item(s) "
                "(DIFC_FILTERED records: items removed from what a server returned, or calls "
                "it blocked); they are not shown as operations or decisions")


def _read_mcp_recorder(doc: dict[str, Any]) -> Transcript:
    """devhelmhq/mcp-recorder cassette: request/response pairs over Streamable HTTP."""
    meta = doc.get("metadata") if isinstance(doc.get("metadata"), dict) else {}
    info = meta.get("server_info") if isinstance(meta.get("server_info"), dict) else {}
    base, _ = parse_ts(meta.get("recorded_at"))
    t = Transcript([], "mcp-recorder", _str(meta.get("server_url")), _str(info.get("name")),
                   base_time=base)
    for i, it in enumerate(doc["interactions"]):
        where = f"/interactions/{i}"
        if not isinstance(it, dict):
            t.report.fail(where, "not an object")
            continue
        if it.get("type") == "lifecycle":
            t.report.ignore("HTTP lifecycle (GET/DELETE)")
            continue
        req, resp = it.get("request"), it.get("response")
        status = _status(it.get("response_status"))
        if req is not None:
            _add(t.messages, req, C2S, None, f"{where}/request", t.report)
        if status in _DENIED:
            rid = req.get("id") if isinstance(req, dict) else None
            t.messages.append(Msg(resp if _is_jsonrpc(resp) else None, S2C, None,
                                  f"{where}/response", http_status=status, reply_to=rid))
        elif resp is not None:
            _add(t.messages, resp, S2C, None, f"{where}/response", t.report)
    return t


def _read_agent_vcr(doc: dict[str, Any]) -> Transcript:
    """Jarvis2021/agent-vcr cassette: session.interactions[] with request, notifications,
    response, timestamp and latency_ms."""
    meta = doc.get("metadata") if isinstance(doc.get("metadata"), dict) else {}
    sess = doc["session"]
    sinfo = meta.get("server_info") if isinstance(meta.get("server_info"), dict) else {}
    cinfo = meta.get("client_info") if isinstance(meta.get("client_info"), dict) else {}
    t = Transcript([], "agent-vcr", None, _str(sinfo.get("name")), _str(cinfo.get("name")))
    rep = t.report
    base, naive = parse_ts(meta.get("recorded_at"))
    t.base_time = base
    for key in ("initialize_request", "initialize_response"):
        if _is_jsonrpc(sess.get(key)):
            d = C2S if key.endswith("request") else S2C
            t.messages.append(Msg(sess[key], d, base, f"/session/{key}"))
    stamped = _stamped_at_answer(sess["interactions"])
    if stamped:
        rep.warn("agent-vcr's recorder stamps each interaction when its answer arrived and "
                 "writes as latency_ms the time since the interaction before (every latency in "
                 "this file is that gap): each answer is placed at its timestamp, and so is its "
                 "request, whose own time is not recorded")
    for i, it in enumerate(sess["interactions"]):
        where = f"/session/interactions/{i}"
        if not isinstance(it, dict):
            rep.fail(where, "not an object")
            continue
        ts, nv = parse_ts(it.get("timestamp"))
        naive = naive or nv
        # the recorder pairs the client's requests with the server's answers; its
        # ``direction`` says whether an answer was recorded (session.py: server_to_client
        # when there is one), not the request's way, which its method tells
        req = it.get("request")
        method = req.get("method") if isinstance(req, dict) else None
        d = S2C if isinstance(method, str) and method in _S2C_REQUESTS else C2S
        back = S2C if d == C2S else C2S
        end = ts if stamped else _after(ts, it.get("latency_ms"))
        if it.get("request") is not None:
            _add(t.messages, it["request"], d, ts, f"{where}/request", rep)
        notes = it.get("notifications")
        for k, n in enumerate(notes if isinstance(notes, list) else []):
            _add(t.messages, n, None, ts, f"{where}/notifications/{k}", rep)
        if it.get("response") is not None:
            _add(t.messages, it["response"], back, end, f"{where}/response", rep)
    if naive:
        rep.warn("timestamps without a zone offset were read as UTC")
    return t


def _stamped_at_answer(interactions: Any) -> bool:
    """Whether agent-vcr interactions carry the times its recorder writes rather than those its
    format describes: the format says ``timestamp`` is the interaction's and ``latency_ms`` the
    time from request to response, but the recorder stamps an interaction when its answer
    arrives and sets ``latency_ms`` to the time since the interaction recorded before it (0 for
    the first). So: two or more interactions, the first latency 0, each later one the gap to
    the one before (each to within a millisecond, as stamps are written to the microsecond)."""
    if not isinstance(interactions, list) or len(interactions) < 2:
        return False
    prev: datetime | None = None
    for it in interactions:
        if not isinstance(it, dict):
            return False
        ts, _ = parse_ts(it.get("timestamp"))
        lat = it.get("latency_ms")
        if ts is None or type(lat) not in (int, float):
            return False
        gap = 0.0 if prev is None else (ts - prev).total_seconds() * 1000
        if abs(lat - gap) > 1:
            return False
        prev = ts
    return True


# --- times and server -------------------------------------------------------------------------


def resolve_times(t: Transcript) -> list[datetime]:
    """One time per message: recorded, else the previous one; none at all -> order only."""
    known = [m.ts for m in t.messages if m.ts is not None]
    if not known:
        t.report.times = "order-only"
        base = t.base_time or EPOCH
        return [base + timedelta(milliseconds=i) for i in range(len(t.messages))]
    if len(known) < len(t.messages):
        t.report.times = "partial"
    out: list[datetime] = []
    prev = known[0]
    for m in t.messages:
        prev = m.ts if m.ts is not None else prev
        out.append(prev)
    return out


def server_of(t: Transcript, override: str | None = None) -> str:
    """The draft's server: the URL when known, else the serverInfo name."""
    if override:
        return override
    if t.server_url:
        return t.server_url
    name = t.server_name
    for m in t.messages:
        r = (m.msg or {}).get("result")
        if isinstance(r, dict) and isinstance(r.get("serverInfo"), dict):
            name = name or _str(r["serverInfo"].get("name"))
    if name and not name.startswith("!"):
        return name
    t.report.warn("the server has no URL or serverInfo name in the transcript: "
                  "recorded as \"unknown-mcp-server\" (use --server to name it)")
    return "unknown-mcp-server"


def client_of(t: Transcript) -> str | None:
    if t.client_name:
        return t.client_name
    for m in t.messages:
        msg = m.msg or {}
        p = msg.get("params")
        if msg.get("method") == "initialize" and isinstance(p, dict) \
                and isinstance(p.get("clientInfo"), dict):
            return _str(p["clientInfo"].get("name"))
    return None


# --- the mapper -------------------------------------------------------------------------------


@dataclass(slots=True)
class _Op:
    id: str
    tool: str
    attempt: int = 1
    state: str = "running"  # running | pending | input | timeout | cancel | ended
    input_from: str = "running"
    awaiting_retry: bool = False
    request_state: Any = None
    final_status: dict[str, Any] | None = None  # a task "completed" without its result yet
    status_input: int | None = None  # event index of a tool-input made from a task status alone
    status_message: Any = None  # the last task statusMessage seen (progress only on a change)
    args: Any = None  # the arguments of its tools/call
    denied: bool = False  # its last attempt ended with an HTTP 401/403 or -32042
    last: datetime | None = None


def request_key(rid: Any) -> str:
    """Request ids compare by JSON value and type: 1 and "1" are different ids (a key of an
    integer or a string is written without the JSON encoder: most ids are one)."""
    if type(rid) is int:
        return f"i{rid}"
    if type(rid) is str:
        return f"s{rid}"
    try:
        return json.dumps(rid, sort_keys=True)
    except (TypeError, ValueError, RecursionError):
        return repr(rid)


#: How many messages a task status for a not-yet-created task is held, waiting for the
#: CreateTaskResult (a server may send the status first, in the same instant).
HOLD_MESSAGES: Final = 16
#: How many notes (context the events leave out) the provenance keeps.
MAX_NOTES: Final = 50
_ACTIVE: Final = frozenset({"running", "pending", "input", "timeout", "cancel"})
#: States in which the agent no longer waits (a tool's request for input is not taken up), and
#: the words for what it did.
_GIVEN_UP: Final = {"timeout": ("a timeout", "the agent stopped waiting"),
                    "cancel": ("a cancellation", "the agent asked the tool to stop")}


class MCPMapper:
    """Walks transcript messages once and writes events through ``Events``.

    Every message is counted exactly once in the report: ignored or unmapped when a handler
    says so, else mapped (it produced, changed or paired an event). A task status held for a
    task not created yet is counted when it is paired or given up.
    """

    def __init__(self, events: Events, report: Report, server: str, *,
                 fixed: bool = False) -> None:
        self.ev = events
        self.rep = report
        self.server = server
        self.fixed = fixed  # --server names the server of every call, whatever a record says
        self._inferred: str | None = None  # the current message's pairing, when inferred
        self._compact: str | None = None  # the current message's words in a compact log
        self.pending_c: dict[str, tuple[str, _Op | None]] = {}  # client's open requests
        self.pending_s: dict[str, tuple[str, _Op | None]] = {}  # server's open requests
        self.progress: dict[str, _Op] = {}
        self.tasks: dict[str, _Op] = {}
        self.ops: list[_Op] = []
        self.in_flight: dict[str, _Op] = {}  # ops whose tools/call is unanswered, oldest first
        # (tool, arguments) -> the op whose last attempt was denied or needed a URL
        # elicitation (-32042): a call that repeats it is its next attempt
        self.denied: dict[tuple[str, str], _Op] = {}
        self.denied_tools: dict[str, int] = {}  # tool -> how many of ``denied``
        self.awaiting: dict[str, _Op] = {}  # ops whose input_required result awaits a retry
        self.answered: dict[str, _Op] = {}  # request id key -> op whose tools/call it answered
        self.held: dict[str, list[tuple[Msg, datetime, int]]] = {}  # task id -> statuses
        self.held_order: deque[tuple[int, str]] = deque()
        self.notes: list[str] = []  # context the events leave out, for the provenance
        self.seq = 0
        self._verdict: tuple[str, ...] | None = None

    # -- public ---------------------------------------------------------------------------
    def run(self, messages: list[Msg], times: list[datetime]) -> None:
        for m, when in zip(messages, times, strict=True):
            self.message(m, when)
        self.finish(times[-1] if times else EPOCH)

    def finish(self, when: datetime) -> None:
        """A task seen completed whose tasks/result was not in the transcript; statuses held
        for a task that was never created."""
        for tid in list(self.held):
            self._give_up(tid)
        for op in self.ops:
            if op.state != "ended" and op.final_status is not None:
                self._end(op, op.final_status.get("result", op.final_status),
                          op.last or when, "task status completed (tasks/result not recorded)")

    def message(self, m: Msg, when: datetime) -> None:
        self.seq += 1
        if self.held_order:
            self._expire(when)
        self._verdict = None
        self._inferred = m.inferred
        self._dispatch(m, when)
        self._settle()

    # -- counting -------------------------------------------------------------------------
    def _settle(self) -> None:
        v = self._verdict
        if v is None:
            self.rep.mapped += 1
        elif v[0] == "ignore":
            self.rep.ignore(v[1])
        elif v[0] == "fail":
            self.rep.fail(v[1], v[2])
        # "held": counted when paired or given up

    def _ignore(self, kind: str) -> None:
        if self._verdict is None:
            self._verdict = ("ignore", kind)

    def _fail(self, where: str, why: str) -> None:
        if self._verdict is None:
            self._verdict = ("fail", where, why)

    def _note(self, text: str) -> None:
        if len(self.notes) < MAX_NOTES:
            self.notes.append(text)
        elif len(self.notes) == MAX_NOTES:
            self.notes.append("(further notes left out)")

    # -- dispatch -------------------------------------------------------------------------
    def _dispatch(self, m: Msg, when: datetime) -> None:
        msg = m.msg
        self._compact = m.compact
        if msg is None:  # an HTTP denial with no JSON-RPC body
            self._http_denial(m, when, m.reply_to)
            return
        method = msg.get("method")
        if m.compact is not None and method in _NAMES_A_REQUEST:
            self._fail(m.where, f"{method}: the compact log does not record which request "
                       "it names")
            return
        if isinstance(method, str):
            d = m.dir or (self._request_dir(method, msg["id"]) if "id" in msg else
                          C2S if method in _C2S_NOTIFICATIONS else S2C)
            if "id" in msg:
                (self._c2s_request if d == C2S else self._s2c_request)(m, msg, when)
            else:
                (self._c2s_note if d == C2S else self._s2c_note)(m, msg, when)
            return
        if "id" in msg and ("result" in msg or "error" in msg):
            self._response(m, msg, when)
            return
        self._fail(m.where, "not a request, notification or response")

    def _request_dir(self, method: str, rid: Any) -> str:
        """Who sent a request the capture gives no direction for."""
        if method in _S2C_REQUESTS:
            return S2C
        if method in _EITHER_REQUESTS:
            key = request_key(rid)
            if key in self.pending_c and key not in self.pending_s:
                return S2C
        return C2S

    # -- helpers --------------------------------------------------------------------------
    def _emit(self, etype: str, op: _Op, when: datetime, where: str, body: Any,
              mediatype: str = JSON) -> None:
        extra = {"inferred": self._inferred} if self._inferred else {}
        if self._compact is not None and etype != "tool-error":
            # a compact log line records no params or result: its words, never an invented {}
            body, mediatype = self._compact, TEXT
            if etype == "tool-result":  # the reader's own reason (Cursor's log), else Claude's
                extra["inferred"] = self._inferred or _COMPACT_RESULT
        self.ev.add(etype, when, op.id, op.attempt, where, body=body, mediatype=mediatype,
                    **extra)
        op.last = when

    def _ended(self, op: _Op, what: str, where: str) -> bool:
        """True (and the message ignored, with a note) when the attempt has already ended:
        no second end, and nothing else, is added to an ended attempt."""
        if op.state != "ended":
            return False
        self._ignore(f"{what} after the attempt ended")
        self._note(f"{where}: {what} for {op.id} attempt {op.attempt}, which had already "
                   "ended: kept as context, not as an event")
        return True

    def _stop(self, op: _Op) -> None:
        op.state = "ended"
        op.status_input = None
        self.in_flight.pop(op.id, None)

    def _end(self, op: _Op, result: Any, when: datetime, where: str) -> None:
        if self._ended(op, "a result", where):
            return
        is_err = isinstance(result, dict) and result.get("isError") is True
        self._emit("tool-failure" if is_err else "tool-result", op, when, where, result)
        self._stop(op)

    def _input(self, op: _Op, when: datetime, where: str, body: Any) -> None:
        if op.state != "input":
            op.input_from = op.state if op.state in ("running", "pending") else "running"
        self._emit("tool-input", op, when, where, body)
        op.state = "input"
        op.status_input = None

    def _input_response(self, op: _Op, when: datetime, where: str, body: Any) -> None:
        self._emit("tool-input-response", op, when, where, body)
        op.status_input = None
        if op.state == "input":
            op.state = op.input_from

    def _timeout(self, op: _Op, when: datetime, where: str, detail: str) -> None:
        """The client stopped waiting (its SDK's request timeout, ``client_timed_out``): a
        tool-timeout from a Working state, with the client's words as its detail."""
        if self._ended(op, "a timeout", where) or op.state not in ("running", "pending", "input"):
            return
        self._emit("tool-timeout", op, when, where, detail, mediatype=TEXT)
        op.state = "timeout"
        op.status_input = None

    def _cancel(self, op: _Op, when: datetime, where: str, body: Any) -> None:
        if self._ended(op, "a cancellation", where):
            return
        self._emit("tool-cancel", op, when, where, body)
        op.state = "cancel"
        op.status_input = None

    def _task_id(self, params: Any) -> str | None:
        if isinstance(params, dict):
            tid = params.get("taskId")
            if tid is None and isinstance(params.get("task"), dict):
                tid = params["task"].get("taskId")
            meta = params.get("_meta")
            if tid is None and isinstance(meta, dict):
                rel = meta.get("io.modelcontextprotocol/related-task")
                if isinstance(rel, dict):
                    tid = rel.get("taskId")
            if isinstance(tid, str):
                return tid
        return None

    def _task_op(self, params: Any) -> _Op | None:
        tid = self._task_id(params)
        return None if tid is None else self.tasks.get(tid)

    # -- statuses that arrive before their task -------------------------------------------
    def _hold(self, tid: str, m: Msg, when: datetime) -> None:
        self.held.setdefault(tid, []).append((m, when, self.seq))
        self.held_order.append((self.seq, tid))
        self._verdict = ("held",)

    def _expire(self, when: datetime) -> None:
        while self.held_order:
            seq, tid = self.held_order[0]
            msgs = self.held.get(tid)
            if msgs is None or msgs[0][2] > seq:  # released or given up already
                self.held_order.popleft()
                continue
            if self.seq - seq <= HOLD_MESSAGES or msgs[-1][1] == when:
                return
            self.held_order.popleft()
            self._give_up(tid)

    def _give_up(self, tid: str) -> None:
        for m, _, _ in self.held.pop(tid, ()):
            method = (m.msg or {}).get("method")
            self.rep.fail(m.where, f"{method} for a task not created in this transcript")

    def _release(self, tid: str, op: _Op) -> None:
        """The statuses held for this task, now that its CreateTaskResult has arrived."""
        held = self.held.pop(tid, None)
        if not held:
            return
        outer = self._verdict
        for m, when, _ in held:
            self._verdict = None
            params = (m.msg or {}).get("params")
            self._task_status(op, params if isinstance(params, dict) else {}, when, m.where)
            self._settle()
        self._verdict = outer

    # -- client -> server -----------------------------------------------------------------
    def _c2s_request(self, m: Msg, msg: dict[str, Any], when: datetime) -> None:
        method, rid = msg["method"], request_key(msg.get("id"))
        params = p if isinstance(p := msg.get("params"), dict) else {}
        prev = self.pending_c.get(rid)
        if prev is not None and prev[0] == "call":
            self.rep.warn("a request id was used again while the tools/call that first used "
                          "it was unanswered (a new session in the same capture?): answers to "
                          "that id go to the later request; the earlier call stays unanswered")
        if method == "tools/call":
            self._tools_call(m, rid, params, when)
        elif method in ("tasks/get", "tasks/result"):
            op = self._task_op(params)
            if op is None:
                self._fail(m.where, f"{method} for a task not created in this transcript")
            self.pending_c[rid] = (method, op)
        elif method == "tasks/update":
            op = self._task_op(params)
            if op is None:
                self._fail(m.where, "tasks/update for a task not created in this transcript")
            elif "inputResponses" in params:
                self._input_response(op, when, m.where, params.get("inputResponses"))
            self.pending_c[rid] = (method, op)
        elif method == "tasks/cancel":
            op = self._task_op(params)
            if op is None:
                self._fail(m.where, "tasks/cancel for a task not created in this transcript")
            else:
                self._cancel(op, when, m.where, params)
            self.pending_c[rid] = (method, op)
        else:
            self._ignore(f"request {method}")
            self.pending_c[rid] = ("other", None)

    def _tools_call(self, m: Msg, rid: str, params: dict[str, Any], when: datetime) -> None:
        name = params.get("name")
        if "inputResponses" in params:
            op = self._retry_target(name, params.get("requestState"))
            if op is not None:
                body = {k: params[k] for k in ("inputResponses", "requestState") if k in params}
                self._input_response(op, when, m.where, body)
                self.pending_c[rid] = ("call", op)
                op.awaiting_retry = False
                self.awaiting.pop(op.id, None)
                self.in_flight.setdefault(op.id, op)
                return
            self.rep.warn("a tools/call carrying inputResponses answers no input_required "
                          "result in the transcript: recorded as a new invocation")
        if not isinstance(name, str) or not name:
            self._fail(m.where, "tools/call without a tool name")
            self.pending_c[rid] = ("other", None)
            return
        args = params.get("arguments", {})
        op = self._denied_retry(name, args)
        if op is None:
            op = _Op(self.ev.new_operation(), name, args=args)
            self.ops.append(op)
        else:  # the draft: a retry after HTTP 401/403 is a new attempt of the same invocation
            op.attempt += 1
            op.state = "running"
            op.status_message = None
            op.denied = False
        server = self.server if self.fixed or m.server is None else m.server
        if m.compact is not None:  # no arguments recorded: the log's words, never an empty {}
            self.ev.add("tool-invocation", when, op.id, op.attempt, m.where, body=m.compact,
                        mediatype=TEXT, server=server, tool=name)
        else:
            self.ev.add("tool-invocation", when, op.id, op.attempt, m.where, body=args,
                        server=server, tool=name)
        op.last = when
        self.pending_c[rid] = ("call", op)
        self.in_flight.pop(op.id, None)
        self.in_flight[op.id] = op
        meta = params.get("_meta")
        if isinstance(meta, dict) and "progressToken" in meta:
            self.progress[request_key(meta["progressToken"])] = op

    def _denied_retry(self, name: str, args: Any) -> _Op | None:
        """The operation this call repeats (same tool and arguments) if its last attempt was
        denied or answered URL_ELICITATION_REQUIRED: the retry is its next attempt (the draft:
        an agent may retry after any ended attempt). Arguments are compared only for tools
        with such an operation."""
        if name not in self.denied_tools:
            return None
        op = self.denied.pop((name, request_key(args)), None)
        if op is not None:
            self.denied_tools[name] -= 1
            if not self.denied_tools[name]:
                del self.denied_tools[name]
        return op

    def _retry_target(self, name: Any, state: Any) -> _Op | None:
        for op in reversed(self.awaiting.values()):
            if op.tool == name and (
                state is None or op.request_state is None or state == op.request_state
            ):
                return op
        return None

    def _c2s_note(self, m: Msg, msg: dict[str, Any], when: datetime) -> None:
        method = msg["method"]
        params = p if isinstance(p := msg.get("params"), dict) else {}
        if method == "notifications/cancelled":
            key = request_key(params.get("requestId"))
            entry = self.pending_c.get(key)
            if entry is None and (op := self.answered.get(key)) is not None:
                # it crossed the answer on the wire (cancellation, Timing Considerations), or
                # names a task-augmented call, which only tasks/cancel cancels: context
                self._ignore("notifications/cancelled after the tools/call was answered")
                self._note(f"{m.where}: notifications/cancelled for {op.id} attempt "
                           f"{op.attempt} after its tools/call was answered: kept as context, "
                           "not as an event")
                return
            if entry is not None and (entry[0] != "call" or entry[1] is None):
                # another request (subscriptions/listen, tasks/result...): not tool traffic
                self._ignore("notifications/cancelled for a request that is not a tools/call")
                return
            if entry is None:
                self._fail(m.where, "notifications/cancelled for no open tools/call")
                return
            reason = params.get("reason")
            if client_timed_out(reason):  # the SDK sends it when it stops waiting
                self._timeout(entry[1], when, m.where, reason)
            self._cancel(entry[1], when, m.where, params)
            return
        self._ignore(f"notification {method}")

    # -- server -> client -----------------------------------------------------------------
    def _s2c_request(self, m: Msg, msg: dict[str, Any], when: datetime) -> None:
        method, rid = msg["method"], request_key(msg.get("id"))
        params = p if isinstance(p := msg.get("params"), dict) else {}
        if method != "elicitation/create":
            if method == "sampling/createMessage":
                self.rep.warn("sampling/createMessage requests are not supported by the draft "
                              "and were not mapped")
            self._ignore(f"server request {method}")
            self.pending_s[rid] = ("ping" if method == "ping" else "other", None)
            return
        op = self._task_op(params)
        if op is None and self.in_flight:
            op = next(reversed(self.in_flight.values()))
            if len(self.in_flight) > 1:
                self.rep.warn("an elicitation/create arrived while several tools/call were "
                              "open: it was given to the latest one")
        if op is None:
            self._fail(m.where, "elicitation/create outside any tool call")
            self.pending_s[rid] = ("other", None)
            return
        self.pending_s[rid] = ("elicit", op)
        if self._ended(op, "an elicitation/create", m.where):
            return
        if op.state == "input" and op.status_input is not None:
            # the task status input_required said only that input is needed: the question
            # itself (message, requestedSchema) becomes the content of that tool-input
            i = op.status_input
            ev = self.ev.events[i]
            ev.update(body=params, encoding="json", mediatype=JSON)
            self.ev.sources[i] = f"{self.ev.sources[i]} + {m.where}"
            op.status_input = None
        elif op.state in _GIVEN_UP:
            what, did = _GIVEN_UP[op.state]
            self._ignore(f"elicitation/create after {what}")
            self._note(f"{m.where}: an elicitation/create for {op.id} after {did}: kept as "
                       "context, not as an event")
        else:
            self._input(op, when, m.where, params)

    def _s2c_note(self, m: Msg, msg: dict[str, Any], when: datetime) -> None:
        method = msg["method"]
        params = p if isinstance(p := msg.get("params"), dict) else {}
        if method == "notifications/progress":
            op = self.progress.get(request_key(params.get("progressToken")))
            if op is None:
                self._fail(m.where, "notifications/progress for an unknown progressToken")
            elif not self._ended(op, "a progress notification", m.where):
                self._emit("tool-progress", op, when, m.where, params)
            return
        if method in ("notifications/tasks/status", "notifications/tasks"):
            tid = self._task_id(params)
            op = None if tid is None else self.tasks.get(tid)
            if op is not None:
                self._task_status(op, params, when, m.where)
            elif tid is not None:
                self._hold(tid, m, when)  # its CreateTaskResult may follow (same instant)
            else:
                self._fail(m.where, f"{method} without a taskId")
            return
        self._ignore(f"notification {method}")

    def _task_status(self, op: _Op, st: dict[str, Any], when: datetime, where: str) -> None:
        status = st.get("status")
        if op.state == "ended":
            self._ended(op, "a task status", where)
            return
        if status == "input_required":
            if op.state in ("running", "pending"):
                body = st.get("inputRequests", {k: st[k] for k in ("status", "statusMessage")
                                                if k in st})
                self._input(op, when, where, body)
                if "inputRequests" not in st:  # an elicitation/create will say what is asked
                    op.status_input = len(self.ev.events) - 1
            elif op.state in _GIVEN_UP:
                self._ignore(f"task status input_required after {_GIVEN_UP[op.state][0]}")
            # already Input Required: the same request, nothing new
        elif status == "completed":
            if "result" in st:
                self._end(op, st["result"], when, where)
            else:
                op.final_status = st
        elif status == "failed":
            self._emit("tool-failure", op, when, where, st)
            self._stop(op)
        elif status == "cancelled":
            if op.state == "cancel":
                # the tool's acknowledgement of tasks/cancel: the attempt stays Cancel
                # Requested (the draft's table has no event for it), and nothing more follows
                self._note(f"{where}: task status cancelled acknowledges the cancellation of "
                           f"{op.id} attempt {op.attempt}: it stays Cancel Requested")
                self._stop(op)
            else:  # cancelled by someone else: the tool did not complete
                self._emit("tool-failure", op, when, where, st)
                self._stop(op)
        elif status == "working":
            text = st.get("statusMessage")
            if isinstance(text, str) and text and text != op.status_message \
                    and op.state in ("running", "pending", "timeout", "cancel"):
                self._emit("tool-progress", op, when, where, text, mediatype=TEXT)
            elif op.state == "input" and isinstance(text, str) and text != op.status_message:
                self._ignore("task status working while input is required")
        else:
            self._ignore("task status not defined by MCP")
        if isinstance(st.get("statusMessage"), str):
            op.status_message = st["statusMessage"]

    # -- responses ------------------------------------------------------------------------
    def _response(self, m: Msg, msg: dict[str, Any], when: datetime) -> None:
        rid = request_key(msg.get("id"))
        d = m.dir
        if d is None:
            in_c, in_s = rid in self.pending_c, rid in self.pending_s
            if in_c and in_s:
                # a result shaped like a client's answer (an elicitation's action, roots, a
                # sampled message), or the empty result of a server's ping, is the client's
                res = msg.get("result")
                client_answer = isinstance(res, dict) and (
                    not _CLIENT_ANSWER_KEYS.isdisjoint(res)
                    or (self.pending_s[rid][0] == "ping" and set(res) <= {"_meta"}))
                d = C2S if client_answer else S2C
            else:
                d = C2S if in_s else S2C
        table = self.pending_c if d == S2C else self.pending_s
        entry = table.pop(rid, None)
        if entry is None and d == S2C and (op := self.answered.get(rid)) is not None:
            # the same answer recorded again (a replay after a reconnection): context
            self._ignore("a second response to an answered tools/call")
            self._note(f"{m.where}: a second response to the tools/call of {op.id} attempt "
                       f"{op.attempt}, which was answered already: kept as context, not as "
                       "an event")
            return
        if entry is None:
            self._fail(m.where, "a response to no open request of the other side")
            return
        kind, op = entry
        if kind == "call" and op is not None:
            self.answered[rid] = op
        if d == C2S:  # the client answering the server
            if kind == "elicit" and op is not None:
                if not self._ended(op, "an elicitation answer", m.where):
                    res = msg.get("result")
                    self._input_response(op, when, m.where,
                                         res if res is not None else msg.get("error"))
            else:
                self._ignore("response to a server request")
            return
        if m.http_status in _DENIED and op is not None:
            self._http_denial(m, when, msg.get("id"), op)
            return
        if kind == "call" and op is not None:
            self._call_response(m, msg, op, when)
        elif kind in ("tasks/get", "tasks/cancel") and op is not None:
            res = msg.get("result")
            if isinstance(res, dict) and isinstance(res.get("status"), str):
                self._task_status(op, res, when, m.where)
            elif msg.get("error") is not None:
                self._ignore(f"{kind} error")
        elif kind == "tasks/result" and op is not None:
            if msg.get("error") is not None:
                if not self._ended(op, "a tasks/result error", m.where):
                    self._emit("tool-error", op, when, m.where, msg["error"])
                    self._stop(op)
            else:
                self._end(op, msg.get("result"), when, m.where)
        elif kind == "tasks/update":
            pass
        else:
            self._ignore("response (not tool traffic)")

    def _call_response(self, m: Msg, msg: dict[str, Any], op: _Op, when: datetime) -> None:
        self.in_flight.pop(op.id, None)
        # a null member counts as absent: agent-vcr writes "error": null beside each result
        err = msg.get("error")
        if err is not None and m.said_by_client and isinstance(err, dict) \
                and client_timed_out(err.get("message")):
            self._timeout(op, when, m.where, err["message"])  # no answer: the attempt goes on
            return
        if err is not None:
            if not self._ended(op, "an error response", m.where):
                self._emit("tool-error", op, when, m.where, err)
                self._stop(op)
                if isinstance(err, dict) and err.get("code") == URL_ELICITATION_REQUIRED:
                    self._awaits_retry(op)
            return
        res = msg.get("result")
        if not isinstance(res, dict):
            self._fail(m.where, "tools/call result is not an object")
            return
        if self._ended(op, "a tools/call result", m.where):
            return
        if m.compact is not None:  # isError is not recorded (_emit marks it inferred)
            self._emit("tool-result", op, when, m.where, m.compact, mediatype=TEXT)
            self._stop(op)
            return
        rtype = res.get("resultType")
        if rtype == "input_required":
            body = {k: res[k] for k in ("inputRequests", "requestState") if k in res}
            self._input(op, when, m.where, body)
            op.awaiting_retry = True
            op.request_state = res.get("requestState")
            self.awaiting.pop(op.id, None)
            self.awaiting[op.id] = op
            return
        handle = res if rtype == "task" else res.get("task") if isinstance(
            res.get("task"), dict) else None
        if handle is not None:
            self._emit("tool-pending", op, when, m.where, handle)
            op.state = "pending"
            op.status_message = handle.get("statusMessage")
            tid = handle.get("taskId")
            if handle.get("status") not in (None, "working"):
                self._task_status(op, handle, when, m.where)
            if isinstance(tid, str):
                self.tasks[tid] = op
                self._release(tid, op)
            return
        self._end(op, res, when, m.where)

    def _http_denial(self, m: Msg, when: datetime, rid: Any, op: _Op | None = None) -> None:
        if op is None:
            entry = self.pending_c.pop(request_key(rid), None)
            op = entry[1] if entry and entry[0] == "call" else None
            if entry is not None and op is None:
                # initialize, tools/list...: an authorization step, not a tool's denial
                self._ignore(f"HTTP {m.http_status} for a request that is not a tools/call")
                return
        if op is None:
            self._fail(m.where, f"HTTP {m.http_status} for no open tools/call")
            return
        if self._ended(op, f"an HTTP {m.http_status}", m.where):
            return
        body: dict[str, Any] = {"http_status": m.http_status}
        detail = m.http_detail or {}
        for k in ("www_authenticate", "WWW-Authenticate", "error", "error_description", "scope"):
            if isinstance(detail.get(k), str):
                body["www_authenticate" if k == "WWW-Authenticate" else k] = detail[k]
        if m.msg is not None and m.msg.get("error") is not None:
            body["error"] = m.msg["error"]
        self._emit("tool-denied", op, when, m.where, body)
        self._stop(op)
        self._awaits_retry(op)

    def _awaits_retry(self, op: _Op) -> None:
        """The attempt ended for want of something the user gives outside MCP (a token after
        HTTP 401/403, a URL elicitation's page after -32042): the same call made again is
        this operation's next attempt (``_denied_retry``)."""
        op.denied = True
        key = (op.tool, request_key(op.args))
        if key not in self.denied:
            self.denied_tools[op.tool] = self.denied_tools.get(op.tool, 0) + 1
        self.denied[key] = op


# --- the vCon ---------------------------------------------------------------------------------


def convert(
    data: bytes,
    *,
    source_name: str = "-",
    server: str | None = None,
    created: str | None = None,
) -> tuple[dict[str, Any], Report]:
    """An MCP transcript's bytes -> (a tool-invocation vCon, the import report)."""
    from viewer.importers.common import assemble, vcon_uuid

    t = read_transcript(data)
    times = resolve_times(t)
    client = client_of(t)
    events = Events(party=0)
    if any(m.conn is not None for m in t.messages):
        names, notes = _run_connections(t, times, events, server)
        srv = ", ".join(names)
    else:
        srv = server_of(t, server)
        mapper = MCPMapper(events, t.report, srv, fixed=bool(server))
        mapper.run(t.messages, times)
        notes = mapper.notes
    if events.operations == 0:
        t.report.warn("the transcript has no tools/call request: the vCon has no operations")
    parties = [
        {"name": client or "MCP client (agent)", "role": "agent"},
        {"name": t.server_name or srv, "role": "tool-server",
         **({"meta": {"mcp_server_url": t.server_url}} if t.server_url else {})},
    ]
    import hashlib

    digest = hashlib.sha256(data).hexdigest()
    provenance = {
        "tool": "vcon-view import mcp",
        "source": {"file": source_name, "sha256": digest,
                   "format": t.format, "messages": len(t.messages)},
        "mapping": "draft-petrie-vcon-tool-invocation, Mapping to MCP (2025-11-25, 2026-07-28)",
        "retry_with_input_responses": RETRY_CHOICE,
        **t.report.as_dict(),
        **({"notes": notes} if notes else {}),
    }
    vcon = assemble(
        uid=vcon_uuid(data, digest),
        subject=f"MCP tool traffic imported from {source_name}",
        parties=parties,
        events=events,
        start=times[0] if times else None,
        provenance=provenance,
        created=created,
    )
    return vcon, t.report


def _run_connections(t: Transcript, times: list[datetime], events: Events,
                     override: str | None) -> tuple[list[str], list[str]]:
    """A log of several connections (Claude Desktop's mcp.log: one per server, each
    numbering its requests from 0): each connection has its own mapper, so ids pair within
    it only, and its server is ``--server``, else its serverInfo name, else the log's name
    for it. Messages are still taken in the log's order. (server names, notes)"""
    info: dict[str | None, str] = {}
    for m in t.messages:
        r = (m.msg or {}).get("result")
        if m.conn not in info and isinstance(r, dict) and isinstance(r.get("serverInfo"), dict):
            name = _str(r["serverInfo"].get("name"))
            if name and not name.startswith("!"):
                info[m.conn] = name
    mappers: dict[str | None, MCPMapper] = {}
    for m, when in zip(t.messages, times, strict=True):
        mapper = mappers.get(m.conn)
        if mapper is None:
            srv = override or info.get(m.conn) or (
                m.conn if m.conn and not m.conn.startswith("!") else "unknown-mcp-server")
            mapper = mappers[m.conn] = MCPMapper(events, t.report, srv, fixed=bool(override))
        mapper.message(m, when)
    end = times[-1] if times else EPOCH
    notes: list[str] = []
    for mapper in mappers.values():
        mapper.finish(end)
        notes += mapper.notes
    return list(dict.fromkeys(mp.server for mp in mappers.values())), notes[:MAX_NOTES + 1]


def _sniff(smp: Sample) -> bool:
    """MCP traffic: a cassette, an MCP Inspector history export (MessageEntry records, bare
    or under ``messages``/``history``/``entries``), or records that are JSON-RPC messages or
    carry one (``{ts, dir, msg}``)."""
    doc = smp.doc
    if isinstance(doc, dict) and (isinstance(doc.get("interactions"), list) or (
            isinstance(doc.get("session"), dict)
            and isinstance(doc["session"].get("interactions"), list))):
        return True
    if smp.is_doc and _inspector_list(doc) is not None:
        return True
    recs = smp.records()
    batches = [x for x in smp.lines if _is_batch(x)]  # bare JSONL lines holding a batch
    if not recs and not batches:
        return not smp.is_doc and (_looks_claude_log(smp.head) or _looks_vscode_log(smp.head)
                                   or _looks_cursor_log(smp.head))
    hits = len(batches) + sum(1 for r in recs if _is_jsonrpc(r) or _is_debug_record(r)
                              or _is_mcpspy(r) or _is_gateway_record(r) or (
        ("dir" in r or "direction" in r) and (_is_jsonrpc(m := _wrapped(r))
                                              or _is_batch(m))))
    return hits * 2 > len(recs) + len(batches)


def _is_batch(v: Any) -> bool:
    """A JSON-RPC batch (MCP 2025-03-26 allowed them): a non-empty array of messages."""
    return isinstance(v, list) and bool(v) and all(_is_jsonrpc(x) for x in v)


def _add_arguments(p: Any) -> None:
    p.add_argument("--server", metavar="URL_OR_NAME",
                   help="the server parameter (default: the transcript's URL, else serverInfo)")


FORMAT = Format(
    name="mcp",
    title="MCP JSON-RPC transcript",
    article="an",
    unit="messages",
    sniff=_sniff,
    convert=convert,
    help="an MCP JSON-RPC transcript",
    add_arguments=_add_arguments,
    options=("server",),
)
