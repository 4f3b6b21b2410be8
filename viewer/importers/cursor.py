"""Cursor agent transcripts (``~/.cursor/projects/<project>/agent-transcripts/*.jsonl``).

Each line is a message ``{"role": "user"|"assistant", "message": {"content": [blocks]}}``,
plus ``{"type": "turn_ended", "status": ...}`` lines. What carries tool traffic:

* a ``tool_use`` block (``name``, ``input``, an ``id`` in newer versions) -> tool-invocation of a
  new operation on ``!host``; ``CallMcpTool`` (``input.server``, ``input.toolName``,
  ``input.arguments``) is that MCP server and tool, and ``CallDynamicTool`` its ``namespace``;
* a ``tool_result`` block answering a ``tool_use`` id (when a transcript has them) ->
  tool-result, or tool-failure when ``is_error``.

Cursor writes no result for most calls, and no timestamps: a call with no result stays Running
(the viewer flags it unterminated), and times come from the ``<timestamp>`` a user turn may
carry (each call takes the time of the turn before it), else they give the order only.

Also read: the older text transcript (``agent-transcripts/*.txt``, ``convert_text``), and
``cursor-agent --print --output-format stream-json`` (``tool_call`` started/completed
by ``call_id``, ``timestamp_ms``; a completion's ``result`` names how it ended, and ``rejected``
means refused: a once decision, no invocation), which has Claude Code's stream-json shapes
otherwise and is told apart by its own record types (``is_stream_record``).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta, timezone
from typing import Any, Final

import orjson

from viewer.importers.common import (
    EPOCH,
    HOST,
    Dialogs,
    Events,
    Report,
    assemble,
    carried_times,
    parse_ts,
    vcon_uuid,
)
from viewer.importers.common import nonempty_str as _s
from viewer.importers.formats import (
    HEAD_BYTES,
    Format,
    ImportInputError,
    Sample,
    json_lines,
    split_lines,
)
from viewer.jsonenc import loads

ROLES: Final = frozenset({"user", "assistant"})
#: Cursor's wrappers of an MCP call: the input key naming the server.
WRAPPERS: Final = {"CallMcpTool": "server", "CallDynamicTool": "namespace"}
_TS_TAG: Final = re.compile(r"<timestamp>(.{1,80}?)</timestamp>", re.S)
_HUMAN: Final = re.compile(
    r"^\s*(?:\w+,\s*)?(\w{3})\w*\.?\s+(\d{1,2}),\s*(\d{4}),\s*(\d{1,2}):(\d{2})(?::(\d{2}))?"
    r"\s*([AaPp][Mm])\s*\(\s*(?:UTC|GMT)\s*([+-]\d{1,2})?(?::?(\d{2}))?\s*\)\s*$")
_MONTHS: Final = {m: i for i, m in enumerate(
    ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"), 1)}


_QUERY: Final = re.compile(r"<user_query>(.*?)</user_query>", re.S)


def query_text(text: str) -> str | None:
    """What the user typed: the ``<user_query>`` of a user text block when it has one, else
    the text without its ``<timestamp>`` tag."""
    m = _QUERY.search(text)
    text = m.group(1) if m is not None else _TS_TAG.sub("", text)
    text = text.strip("\n")
    return text if text.strip() else None


def turn_time(text: str) -> tuple[datetime | None, bool]:
    """The ``<timestamp>`` of a user turn: RFC 3339, or Cursor's "Friday, Jul 17, 2026,
    7:08 AM (UTC-6)". (time, it had no zone offset)."""
    m = _TS_TAG.search(text)
    if m is None:
        return None, False
    raw = m.group(1).strip()
    t, naive = parse_ts(raw)
    if t is not None:
        return t, naive
    return _human(raw), False


def _human(raw: str) -> datetime | None:
    h = _HUMAN.match(raw)
    if h is None:
        return None
    mon = _MONTHS.get(h.group(1).lower())
    if mon is None:
        return None
    hour = int(h.group(4)) % 12 + (12 if h.group(7).lower() == "pm" else 0)
    off = timedelta(hours=int(h.group(8) or 0))
    off += timedelta(minutes=int(h.group(9) or 0)) * (-1 if off < timedelta(0) else 1)
    try:
        return datetime(int(h.group(3)), mon, int(h.group(2)), hour, int(h.group(5)),
                        int(h.group(6) or 0), tzinfo=timezone(off)).astimezone(UTC)
    except ValueError:
        return None


def _blocks(obj: dict[str, Any]) -> list[Any] | None:
    msg = obj.get("message")
    content = msg.get("content") if isinstance(msg, dict) else None
    return content if isinstance(content, list) else None


def _target(name: str, inp: Any) -> tuple[str, str, Any]:
    """(server, tool, arguments) of a tool_use."""
    key = WRAPPERS.get(name)
    if key and isinstance(inp, dict) and _s(inp.get(key)) and _s(inp.get("toolName")):
        return inp[key], inp["toolName"], inp.get("arguments")
    return HOST, name, inp


# --- cursor-agent --print --output-format stream-json ----------------------------------------

#: Records only cursor-agent's stream-json writes (Claude Code's stream-json, which it otherwise
#: resembles, has none of them): tool_call events, thinking events, model_call_id/timestamp_ms.
STREAM_TYPES: Final = frozenset({"tool_call", "thinking"})
#: How a completed tool_call's ``result`` says the call ended (cursor-agent's documented
#: ``success``; ``failure``/``error`` as its community parsers read them; the other oneof
#: names its adapters list, e.g. AgentsServer's cursor_agent_client.py, whose fixtures were
#: captured from the CLI: a timeout, the file-level errors of a tool that ran, and what kept
#: the call from running at all). ``rejected`` is a refusal (``REJECTED``); any other key
#: (``stillRunning``, ``async``, ``needsConfirmation``...) is not read: the call is left open
#: and the import says so.
RESULT_KINDS: Final = {
    "success": "tool-result", "failure": "tool-failure", "error": "tool-error",
    "timeout": "tool-timeout",
    **dict.fromkeys(("fileNotFound", "invalidFile", "notFile", "fileBusy", "noSpace",
                     "notFound", "permissionDenied", "readPermissionDenied",
                     "writePermissionDenied"), "tool-failure"),
    **dict.fromkeys(("spawnError", "sandboxUnsupported", "serverNotFound", "toolNotFound"),
                    "tool-error"),
}
#: A completed tool_call refused before it ran: Cursor's permissions (a headless run refuses
#: what they do not allow, without asking) or the person at the prompt.
REJECTED: Final = "rejected"
INFER_REJECTED: Final = ("cursor-agent's result for this call is rejected: it did not run "
                         "(Cursor's permissions or the user refused it; the record does not "
                         "say which, nor whether anyone was asked). The decision is placed "
                         "where the call was asked")


def is_stream_record(r: Any) -> bool:
    """A line only cursor-agent's stream-json writes."""
    if not isinstance(r, dict):
        return False
    t = r.get("type")
    if t == "tool_call":
        return isinstance(r.get("tool_call"), dict) and r.get("subtype") in ("started",
                                                                             "completed")
    if t == "thinking":
        return "session_id" in r
    return t in ("assistant", "user") and ("model_call_id" in r or "timestamp_ms" in r) \
        and isinstance(r.get("message"), dict)


def _stream_call(tc: dict[str, Any]) -> tuple[str, str, str, Any, Any]:
    """(kind key, server, tool, arguments, result) of a ``tool_call`` object: one key naming
    the kind (``readToolCall``, ``shellToolCall``, ``mcpToolCall``, ``function``...)."""
    key = next((k for k in tc if isinstance(tc[k], dict)), None) or "unknown"
    inner = tc.get(key) if isinstance(tc.get(key), dict) else {}
    if key == "function":
        name = _s(inner.get("name")) or "function"
        return key, HOST, name, inner.get("arguments"), inner.get("result")
    args = inner.get("args")
    tool = key[:-8] if key.endswith("ToolCall") and len(key) > 8 else key
    server = HOST
    if isinstance(args, dict) and _s(args.get("providerIdentifier")) and _s(
            args.get("toolName")):  # an MCP tool: its server and its own name
        server, tool = args["providerIdentifier"], args["toolName"]
    return key, server, tool, args, inner.get("result")


def _stream_end(result: Any) -> tuple[str | None, str | None]:
    """(end event type, or None when the result does not say; why, when inferred)."""
    if not isinstance(result, dict) or len(result) != 1:
        return None, None
    kind, val = next(iter(result.items()))
    etype = RESULT_KINDS.get(kind)
    if etype == "tool-result" and isinstance(val, dict):
        code = val.get("exitCode")
        if type(code) is int and code != 0:
            return "tool-failure", f"result success, but exitCode {code}: the command failed"
        if val.get("isError") is True:
            return "tool-failure", "result success with isError true: the tool reported an error"
    return etype, None


def _refused(ev: Events, asked: dict[str, Any], op: str, said: Any) -> None:
    """A call whose completion says ``rejected``: its tool-invocation, written when it was
    asked, becomes the once decision that refused it (no invocation: it did not run); what
    was asked is kept for the decision's ``requested``."""
    body = asked.pop("body", None)
    asked.pop("encoding", None)
    asked.pop("mediatype", None)
    reason = _s(said.get("reason")) if isinstance(said, dict) else None
    asked["type"] = "policy-decision"
    asked.update({"decision": "disallowed", "policy_life": "once",
                  "operation": "tool-invocation", "reason": (reason or "rejected")[:2000],
                  "inferred": INFER_REJECTED})
    ev.asked(op, 1, body)


def convert_stream(data: bytes, source_name: str, created: str | None,
                   ) -> tuple[dict[str, Any], Report]:
    """cursor-agent stream-json: tool_call started -> tool-invocation, completed -> its end
    (by ``call_id``); times from ``timestamp_ms`` where a line has one."""
    rep = Report()
    lines = [(n, obj) for n, _, obj in json_lines(data, rep)]
    stamps = [parse_ts(o.get("timestamp_ms"))[0] if isinstance(o, dict) else None
              for _, o in lines]
    times = carried_times(stamps)
    if times is None:
        rep.times = "order-only"
        times = [EPOCH + timedelta(milliseconds=k) for k in range(len(lines))]
    elif None in stamps:
        rep.times = "partial"
    ev = Events(party=0)
    parties: list[dict[str, Any]] = [{"name": "Cursor agent", "role": "agent"}]
    dialogs = Dialogs(parties)
    open_calls: dict[str, str] = {}
    asked_ev: dict[str, dict[str, Any]] = {}  # call id -> its tool-invocation, as written
    ended: set[str] = set()
    unread: dict[str, int] = {}
    sessions: set[str] = set()
    for (n, obj), when in zip(lines, times, strict=True):
        where = f"line {n}"
        if not isinstance(obj, dict):
            rep.fail(where, "not a JSON object")
            continue
        if _s(obj.get("session_id")):
            sessions.add(obj["session_id"])
        t = obj.get("type")
        if t == "user":
            texts = [b.get("text") for b in _blocks(obj) or [] if isinstance(b, dict)]
            if any(dialogs.said(when, x, where) for x in texts):
                rep.mapped += 1
            else:
                rep.ignore("user")
            continue
        if t != "tool_call" or not isinstance(obj.get("tool_call"), dict):
            rep.ignore(str(t)[:40] if isinstance(t, str) and t else "record without a type")
            continue
        cid = _s(obj.get("call_id")) or f"(no call_id, {where})"
        key, server, tool, args, result = _stream_call(obj["tool_call"])
        sub = obj.get("subtype")
        op = open_calls.get(cid)
        if op is None and cid not in ended:
            op = ev.new_operation()
            open_calls[cid] = op
            body = {"call_id": cid, "cursorTool": key, "arguments": args}
            kw = {} if sub == "started" else {
                "inferred": "no started event: the invocation is taken from the completion"}
            asked_ev[cid] = ev.add("tool-invocation", when, op, 1, where, body=body,
                                   server=server, tool=tool, **kw)
        elif op is None or sub == "started":
            rep.ignore(f"tool_call {sub} repeated")
            continue
        rep.mapped += 1
        if sub != "completed":
            continue
        if isinstance(result, dict) and len(result) == 1 and REJECTED in result:
            _refused(ev, asked_ev[cid], op, result[REJECTED])
            open_calls.pop(cid, None)
            ended.add(cid)
            continue
        etype, why = _stream_end(result)
        if etype is None:
            kinds = ",".join(sorted(result)) if isinstance(result, dict) and result else \
                "no result"
            unread[kinds[:40]] = unread.get(kinds[:40], 0) + 1
            continue
        open_calls.pop(cid, None)
        ended.add(cid)
        ev.add(etype, when, op, 1, where, body={"call_id": cid, "result": result},
               **({"inferred": why} if why else {}))
    for kinds, k in sorted(unread.items()):
        rep.warn(f"{k} completed tool call(s) whose result is {kinds!r}, which vcon-view does "
                 "not read: their outcome is not shown (left open)")
    if len(sessions) > 1:
        rep.warn(f"the input holds {len(sessions)} cursor-agent sessions: all are in one vCon")
    if ev.operations == 0:
        rep.warn("the stream has no tool call: the vCon has no operations")
    if len(sessions) == 1:
        parties[0]["meta"] = {"cursor_session_id": next(iter(sessions))}
    return _imported(
        data, source_name, created, rep, ev, dialogs, "cursor-agent stream",
        start=next((t for t in stamps if t is not None), None),
        source={"format": "cursor-agent stream-json", "lines": len(lines)},
        mapping="cursor-agent tool_call started/completed (by call_id) -> "
                "draft-petrie-vcon-tool-invocation (one call = one operation, attempt 1)")


def _imported(data: bytes, source_name: str, created: str | None, rep: Report, ev: Events,
              dialogs: Dialogs, what: str, *, start: datetime | None, source: dict[str, Any],
              mapping: str) -> tuple[dict[str, Any], Report]:
    """(the vCon, ``rep``) of any of Cursor's three forms: they differ only in ``what`` the
    subject calls the input, the ``source`` fields after its file and hash (the form, its
    lines), and the ``mapping`` the provenance names. ``rep`` is complete: it is copied in."""
    provenance = {
        "tool": "vcon-view import cursor",
        "source": {"file": source_name, "sha256": hashlib.sha256(data).hexdigest(), **source},
        "mapping": mapping,
        **rep.as_dict(),
    }
    vcon = assemble(uid=vcon_uuid(data), subject=f"{what} imported from {source_name}",
                    parties=dialogs.parties, events=ev, start=start, provenance=provenance,
                    created=created, dialogs=dialogs)
    return vcon, rep


def _turn_times(user_texts: Iterable[list[str]], rep: Report) -> list[datetime]:
    """Each item's time, from its user texts (none for an item that is not a user turn): the
    first ``<timestamp>`` they hold, carried to the items after it (partial times), else the
    order only. Both transcript forms (JSONL and text) date their items so."""
    stamps: list[datetime | None] = []
    for texts in user_texts:
        t = None
        for text in texts:
            t, naive = turn_time(text)
            if t is not None:
                if naive:
                    rep.warn("timestamps without a zone offset were read as UTC")
                break
        stamps.append(t)
    times = carried_times(stamps)
    if times is None:
        rep.times = "order-only"
        return [EPOCH + timedelta(milliseconds=k) for k in range(len(stamps))]
    rep.times = "partial"
    return times


# --- the text transcript (agent-transcripts/*.txt) ------------------------------------------

#: A turn of Cursor's text transcript opens with a line of its own: "user:", "assistant:"
#: (some versions write "A:").
_TXT_TURN: Final = re.compile(r"(user|assistant|A):[ \t]*")
_TXT_CALL: Final = "[Tool call] "
_WS: Final = " \t\r\n\x0b\x0c"  # what bytes.strip() strips
_TXT_RESULT: Final = "[Tool result]"
#: An argument line under "[Tool call] NAME": two spaces, the name, a colon, the value.
_TXT_ARG: Final = re.compile(r"  ([A-Za-z_][\w.-]{0,100}):(?: (.*))?")
INFER_TXT_RESULT: Final = ("Cursor's text transcript marks that this call returned ([Tool result] "
                           "{name}) but records neither its output nor whether it succeeded: no "
                           "end event is written")


def is_text_transcript(head: bytes) -> bool:
    """Cursor's text transcript: its first line that is not blank opens a turn ("user:"...)
    and Cursor's own marks follow (a ``<user_query>``, a ``[Tool call]``, a ``[Thinking]``):
    a plain "user:" / "assistant:" chat log of another tool is not claimed."""
    text = head.decode("utf-8", errors="replace").lstrip("\ufeff")
    first = next((ln.strip() for ln in text.split("\n") if ln.strip()), "")
    if _TXT_TURN.fullmatch(first) is None:
        return False
    return "<user_query>" in text or "\n" + _TXT_CALL in text or "\n[Thinking]" in text


def _next_text(lines: list[str], n: int) -> str:
    """The first line after line ``n`` (1-based) that is not blank, stripped ("" at the end)."""
    return next((ln.strip(_WS) for ln in lines[n:] if ln.strip(_WS)), "")


def _inline_args(rest: str) -> dict[str, Any]:
    """Arguments written on the "[Tool call] NAME" line itself: a JSON object is read as one,
    other text is kept as recorded."""
    if not rest.strip():
        return {}
    try:
        v = loads(rest)
    except orjson.JSONDecodeError:
        v = None
    return dict(v) if isinstance(v, dict) else {"text": rest}


def convert_text(data: bytes, source_name: str, created: str | None,
                 ) -> tuple[dict[str, Any], Report]:
    """The text transcript: each turn's text is a dialog, each ``[Tool call] NAME`` (its
    ``  key: value`` lines are the arguments, as recorded text) an operation on ``!host``
    (``CallMcpTool`` its server and tool). ``[Tool result] NAME`` records that the oldest
    open call of that name returned, not how: the call stays open, and its invocation says so
    (``inferred``). No times but a user turn's ``<timestamp>``."""
    rep = Report()
    lines = data.decode("utf-8", errors="replace").split("\n")
    status: dict[int, tuple[str, str]] = {}
    # items in order: ("turn", first line, role, [(n, text)]) | ("call", n, name, args)
    #                 | ("result", n, name)
    items: list[tuple[Any, ...]] = []
    role: str | None = None
    text: list[tuple[int, str]] = []
    call: dict[str, Any] | None = None  # the call whose argument lines are being read
    output = False  # in the lines after a [Tool result] marker
    turn_n = 0

    def flush() -> None:
        nonlocal text
        if role is not None and text:
            items.append(("turn", turn_n, role, text))
        text = []

    for n, raw in enumerate(lines, 1):
        line = raw[:-1] if raw.endswith("\r") else raw
        if n == 1:
            line = line.lstrip("\ufeff")
        if call is not None:
            m = _TXT_ARG.fullmatch(line)
            if m is not None:
                call["args"][m.group(1)] = m.group(2) or ""
                call["key"] = m.group(1)
                status[n] = ("mapped", "")
                continue
            if line.startswith("  ") and line.strip(_WS) and call["key"] is not None:
                call["args"][call["key"]] += "\n" + line[2:]  # a value's further lines
                status[n] = ("mapped", "")
                continue
            call = None
        if not line.strip(_WS):  # blank as bytes.strip() sees it: every other line counts
            continue
        turn = _TXT_TURN.fullmatch(line)
        if turn is not None and output and turn.group(1) == "user" \
                and not _next_text(lines, n).startswith("<"):
            turn = None  # a tool's output line ("user:" in a file read); Cursor tags a user turn
        if turn is not None:
            flush()
            output = False
            role = "user" if turn.group(1) == "user" else "assistant"
            turn_n = n
            status[n] = ("ignored", f"{role} turn without text")
            continue
        if role == "assistant" and line.startswith(_TXT_CALL):
            flush()
            name, _, rest = line[len(_TXT_CALL):].strip().partition(" ")
            output = False
            call = {"args": _inline_args(rest), "key": None}
            items.append(("call", n, name or "unknown", call["args"]))
            status[n] = status[turn_n] = ("mapped", "")  # the turn's line: its call is mapped
            continue
        if role == "assistant" and line.startswith(_TXT_RESULT):
            flush()
            items.append(("result", n, line[len(_TXT_RESULT):].strip().partition(" ")[0]))
            output = True
            continue
        if output and line.startswith("[Thinking]"):
            output = False
        if output:  # what follows a [Tool result] marker up to the next mark or turn is the
            # tool's (Cursor opens a new assistant turn for the agent's next words)
            status[n] = ("ignored", "[Tool result] output (records no outcome)")
            continue
        if role is None:
            status[n] = ("unmapped", "text before the first turn")
            continue
        text.append((n, line))
    flush()
    if not any(it[0] == "call" for it in items) and not any(it[0] == "turn" for it in items):
        raise ImportInputError("no Cursor transcript turn could be read (expected turns opened "
                               "by 'user:' / 'assistant:' lines)")

    times = _turn_times(
        (["\n".join(x for _, x in it[3])] if it[0] == "turn" and it[2] == "user" else []
         for it in items), rep)

    ev = Events(party=0)
    parties: list[dict[str, Any]] = [{"name": "Cursor agent", "role": "agent"}]
    dialogs = Dialogs(parties)
    waiting: dict[str, list[dict[str, Any]]] = {}  # tool name -> its invocations not returned
    returned = 0
    for it, when in zip(items, times, strict=True):
        kind, n = it[0], it[1]
        where = f"line {n}"
        if kind == "turn":
            body = "\n".join(x for _, x in it[3])
            said = dialogs.said(when, query_text(body), where) if it[2] == "user" \
                else dialogs.replied(when, body.strip("\n"), where)
            for k, _ in it[3]:
                status[k] = ("mapped", "") if said else ("ignored", f"{it[2]} text")
            if said:
                status[n] = ("mapped", "")
        elif kind == "call":
            name, args = it[2], it[3]
            server, tool, arguments = _target(name, args)
            body = {"arguments": arguments}
            if tool != name or server != HOST:
                body["cursorTool"] = name
            inv = ev.add("tool-invocation", when, ev.new_operation(), 1, where, body=body,
                         server=server, tool=tool)
            waiting.setdefault(name, []).append(inv)
        else:
            queue = waiting.get(it[2])
            if queue:
                queue.pop(0)["inferred"] = INFER_TXT_RESULT.format(name=it[2][:100])
                status[n] = ("mapped", "")
                returned += 1
            else:
                status[n] = ("unmapped", "a [Tool result] for no open call of that name")
    rep.tally(status)
    if ev.operations == 0:
        rep.warn("the transcript has no tool call: the vCon has no operations")
    else:
        rep.warn("Cursor's text transcript records the calls, not their outcomes: every "
                 f"operation stays Running ({returned} marked returned by a [Tool result])")
    return _imported(
        data, source_name, created, rep, ev, dialogs, "Cursor agent transcript",
        start=times[0] if rep.times != "order-only" else None,
        source={"format": "cursor agent transcript text", "lines": len(status)},
        mapping="Cursor text transcript [Tool call] blocks -> draft-petrie-vcon-tool-invocation "
                "(one call = one operation, attempt 1; [Tool result] records no outcome)")


def convert(data: bytes, *, source_name: str = "-",
            created: str | None = None) -> tuple[dict[str, Any], Report]:
    """A Cursor agent transcript's bytes -> (a tool-invocation vCon, the import report)."""
    bom = data[:3] == b"\xef\xbb\xbf"
    if bom:
        data = data[3:]
    if is_text_transcript(data[:HEAD_BYTES]):
        return convert_text(data, source_name, created)
    head = [r for r in (_loads_or_none(x) for x in split_lines(data)[:400]) if r is not None]
    if any(is_stream_record(r) for r in head):
        return convert_stream(data, source_name, created)
    rep = Report()
    recs: list[tuple[int, dict[str, Any]]] = []
    status: dict[int, tuple[str, str]] = {}
    for n, raw in enumerate(split_lines(data), 1):
        if not raw.strip():
            if n == 1 and bom:  # a line holding only the byte order mark is still a line
                status[n] = ("ignored", "byte order mark")
            continue
        try:
            obj = loads(raw)
        except orjson.JSONDecodeError:
            status[n] = ("unmapped", "not JSON")
            continue
        if not isinstance(obj, dict):
            status[n] = ("unmapped", "not a JSON object")
        elif _s(obj.get("role")) in ROLES and _blocks(obj) is not None:
            recs.append((n, obj))
        elif obj.get("type") == "turn_ended":
            status[n] = ("ignored", "turn_ended")
        else:
            status[n] = ("unmapped", "not a Cursor transcript message")
    if not recs:
        raise ImportInputError("no Cursor transcript message could be read (expected JSONL of "
                               "{role, message: {content: [...]}})")

    times = _turn_times(
        ([b["text"] for b in _blocks(obj) or [] if isinstance(b, dict)
          and isinstance(b.get("text"), str)] if obj["role"] == "user" else []
         for _, obj in recs), rep)

    ev = Events(party=0)
    parties: list[dict[str, Any]] = [{"name": "Cursor agent", "role": "agent"}]
    dialogs = Dialogs(parties)
    calls: dict[str, str] = {}  # tool_use id -> operation id
    idless: list[str] = []  # operations of tool_use blocks without an id, oldest first
    bad_blocks = 0
    for (n, obj), when in zip(recs, times, strict=True):
        where = f"line {n}"
        used = False
        for b in _blocks(obj) or []:
            if not isinstance(b, dict):
                continue
            kind = b.get("type")
            if kind == "text" and isinstance(b.get("text"), str):
                if obj["role"] == "user":
                    text = query_text(b["text"])
                    used = dialogs.said(when, text, where) or used
                else:
                    used = dialogs.replied(when, b["text"], where) or used
            elif kind == "tool_use":
                name = _s(b.get("name"))
                if name is None:
                    bad_blocks += 1
                    continue
                server, tool, args = _target(name, b.get("input"))
                body: dict[str, Any] = {}
                if _s(b.get("id")):
                    body["toolUseId"] = b["id"]
                body["arguments"] = args
                if tool != name or server != HOST:
                    body["cursorTool"] = name
                op = ev.new_operation()
                if _s(b.get("id")):
                    calls[b["id"]] = op
                else:
                    idless.append(op)
                ev.add("tool-invocation", when, op, 1, where, body=body, server=server,
                       tool=tool)
                used = True
            elif kind == "tool_result":
                op = calls.pop(_s(b.get("tool_use_id")) or "", None)
                why: dict[str, str] = {}
                if op is None and idless:
                    # the transcript's tool_use blocks carry no id: the result answers the
                    # oldest call still open among them
                    op = idless.pop(0)
                    why["inferred"] = ("the tool_result names an id no tool_use carries (the "
                                       "calls have no id): it answers the oldest open call "
                                       "without an id")
                if op is None:
                    bad_blocks += 1
                    continue
                etype = "tool-failure" if b.get("is_error") is True else "tool-result"
                ev.add(etype, when, op, 1, where, body={
                    "toolUseId": b.get("tool_use_id"), "content": b.get("content")}, **why)
                used = True
        status[n] = ("mapped", "") if used else ("ignored", f"{obj['role']} message")
    if bad_blocks:
        rep.warn(f"{bad_blocks} tool block(s) without a tool name, or answering no recorded "
                 "call, were skipped")
    rep.tally(status)
    if ev.operations == 0:
        rep.warn("the transcript has no tool call: the vCon has no operations")
    elif len(calls) or idless or not any(e["type"] != "tool-invocation" for e in ev.events):
        rep.warn("Cursor transcripts record the calls, not their results: operations with no "
                 "result stay Running")
    return _imported(
        data, source_name, created, rep, ev, dialogs, "Cursor agent transcript",
        start=times[0] if rep.times != "order-only" else None,
        source={"format": "cursor agent transcript jsonl", "lines": len(status)},
        mapping="Cursor agent transcript tool_use blocks -> draft-petrie-vcon-tool-invocation "
                "(one tool_use = one operation, attempt 1)")


def _loads_or_none(raw: bytes) -> Any:
    try:
        return loads(raw) if raw.strip() else None
    except orjson.JSONDecodeError:
        return None


def sniff(smp: Sample) -> bool:
    """Cursor's shape: top-level ``role`` and ``message.content`` as a list of blocks (Claude
    Code puts ``role`` inside ``message`` and has a top-level ``type``); or cursor-agent's
    stream-json (its tool_call / thinking records)."""
    if smp.is_doc and not isinstance(smp.doc, dict):
        return False
    if not smp.is_doc and is_text_transcript(smp.head):
        return True
    recs = smp.records()
    if not recs:
        return False
    if any(is_stream_record(r) for r in recs):
        return True
    msgs = [r for r in recs if _s(r.get("role")) in ROLES and "type" not in r
            and _blocks(r) is not None]
    other = [r for r in recs if r.get("type") == "turn_ended" and "role" not in r]
    return bool(msgs) and (len(msgs) + len(other)) * 2 > len(recs)


FORMAT = Format(
    name="cursor",
    title="Cursor agent transcript",
    unit="lines",
    sniff=sniff,
    convert=convert,
    help="a Cursor agent transcript (~/.cursor/projects/<project>/agent-transcripts/*.jsonl "
         "or .txt)",
)

