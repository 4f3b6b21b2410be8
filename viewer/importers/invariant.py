"""Invariant traces: OpenAI chat-completions messages as Invariant Labs' SDK and Explorer keep them.

Accepted (README, "Invariant traces"):

* an Explorer dataset (JSONL): an optional first line ``{"metadata": {...}}`` (the dataset's),
  then one trace a line, either an object ``{"id"?, "index"?, "messages": [...],
  "metadata"?, "annotations"?}`` or a bare array of messages (whose first item may be
  ``{"metadata": {...}}``, the trace's);
* one trace as a whole JSON document: an array of messages, or one trace object.

A message is ``{role, content, tool_calls?, tool_call_id?, error?, name?, timestamp?}``:

* each ``tool_calls[]`` item of an assistant message (``function.name``, ``function.arguments``,
  a JSON string or an object) -> tool-invocation of a new operation on ``!host``, the call id
  kept in the invocation's content; the legacy ``function_call`` likewise;
* a ``tool`` message answering a call (``tool_call_id``) -> tool-result, or tool-failure when its
  ``error`` is set (the tool ran and reported an error, as the other importers read an errored
  result); a ``function`` message answers the open ``function_call`` of its ``name``;
* the user's and the assistant's text -> conversation dialogs; system messages are ignored.

Each trace is a party of its own (named from its index and its metadata's ``name``), so the
viewer's ``party:`` filter selects one trace. Trace and dataset metadata and the annotations
(guardrail and analyzer findings, user notes, addressed ``messages[2].tool_calls[0]…``) are kept
in the import-provenance attachment, each annotation with the event or dialog it addresses.
Messages have no time unless they carry a ``timestamp``: else the times give the order only.
The format records no permission decision, so none is written.
"""

from __future__ import annotations

import hashlib
import re
from datetime import datetime, timedelta
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
    clip,
    parse_ts,
    vcon_uuid,
)
from viewer.importers.common import nonempty_str as _s
from viewer.importers.formats import Format, ImportInputError, Sample, json_lines
from viewer.jsonenc import loads

#: Characters of a trace's recorded index shown in its party's name.
INDEX_SHOWN: Final = 40

#: OpenAI chat roles (``function``: the legacy function-calling answer).
ROLES: Final = frozenset({"system", "developer", "user", "assistant", "tool", "function"})
#: Roles whose messages are instructions to the model, not the conversation.
INSTRUCTIONS: Final = frozenset({"system", "developer"})
#: Content-part types whose ``text`` is conversation text.
TEXT_PARTS: Final = frozenset({"text", "input_text", "output_text"})
#: An annotation's address: ``messages[2].tool_calls[0]…`` or ``messages.2.tool_calls.0…``.
_ADDRESS: Final = re.compile(
    r"messages(?:\[(\d{1,9})\]|\.(\d{1,9}))(?:\.tool_calls(?:\[(\d{1,9})\]|\.(\d{1,9})))?")
#: How many messages of a trace the sniffer looks at.
SNIFF_MESSAGES: Final = 20


def _id(v: Any) -> str | None:
    """A call id as a key: a non-empty string, or an integer as its digits."""
    if isinstance(v, int) and not isinstance(v, bool):
        return str(v)
    return _s(v)


def is_message(x: Any) -> bool:
    """An OpenAI chat message: a known ``role`` beside ``content``, ``tool_calls`` or
    ``function_call`` (the other importers' records nest their messages under ``message``)."""
    return isinstance(x, dict) and isinstance(x.get("role"), str) and x["role"] in ROLES \
        and ("content" in x or "tool_calls" in x or "function_call" in x) \
        and "message" not in x and "payload" not in x


def is_metadata(x: Any) -> bool:
    """``{"metadata": {...}}`` alone: a dataset's first line, or a trace's first event."""
    return isinstance(x, dict) and len(x) == 1 and isinstance(x.get("metadata"), dict)


def is_message_list(v: Any) -> bool:
    """A trace's messages: a non-empty list whose items (past a leading metadata event) are
    mostly chat messages, the first of them one."""
    if not isinstance(v, list) or not v:
        return False
    items = v[1:] if is_metadata(v[0]) else v
    items = items[:SNIFF_MESSAGES]
    if not items or not is_message(items[0]):
        return False
    return sum(1 for x in items if is_message(x)) * 2 > len(items)


def is_trace_object(x: Any) -> bool:
    """``{"messages": [...], ...}`` with chat messages (a Gemini session's messages have
    ``type``, not ``role``, and it names its ``sessionId``)."""
    return isinstance(x, dict) and "sessionId" not in x and is_message_list(x.get("messages"))


def is_trace_list(v: Any) -> bool:
    """Several traces in one JSON document: a list of trace objects, or the Push API's
    ``{"messages": [[...], ...]}`` (a list of message lists)."""
    if isinstance(v, dict) and "sessionId" not in v:
        batch = v.get("messages")
        return isinstance(batch, list) and bool(batch) and is_message_list(batch[0])
    if not isinstance(v, list) or not v or not is_trace_object(v[0]):
        return False
    items = v[:SNIFF_MESSAGES]
    return sum(1 for x in items if is_trace_object(x)) * 2 > len(items)


def sniff(smp: Sample) -> bool:
    if smp.is_doc:
        return is_message_list(smp.doc) or is_trace_object(smp.doc) or is_trace_list(smp.doc)
    lines = [x for x in smp.lines if x is not None]
    if not lines:
        return False
    traces = sum(1 for x in lines if is_trace_object(x) or is_message_list(x))
    head = 1 if is_metadata(lines[0]) else 0
    return traces > 0 and (traces + head) * 2 > len(lines)


def text_of(content: Any) -> str | None:
    """The conversation text of a message's ``content``: the string, or the text parts of a
    list of content parts joined by newlines; None when there is none."""
    if isinstance(content, str):
        return content if content.strip() else None
    if isinstance(content, list):
        parts = [p.get("text", p.get("content")) for p in content if isinstance(p, dict)
                 and p.get("type") in TEXT_PARTS]  # AgentDojo's text blocks: ``content``
        parts = [x for x in parts if isinstance(x, str)]
        text = "\n".join(parts)
        return text if text.strip() else None
    return None


class _Trace:
    """One trace as read: where it is, its messages and what describes it."""

    def __init__(self, where: str, line: int | None, messages: list[Any], obj: dict[str, Any]
                 ) -> None:
        self.where = where  # "line 2" or "" (a whole document)
        self.line = line
        self.meta: Any = obj.get("metadata")
        self.leading_meta = False
        if messages and is_metadata(messages[0]):  # a raw event list's trace metadata
            self.meta, self.leading_meta = messages[0]["metadata"], True
            messages = messages[1:]
        self.messages = messages
        self.index = obj.get("index")
        self.id = obj.get("id")
        self.annotations = obj.get("annotations")
        #: message index -> the events it made (invocations by tool call, or its end)
        self.events: dict[int, list[int]] = {}
        self.calls: dict[tuple[int, int], int] = {}  # (message, tool call) -> event index

    def src(self, i: int) -> str:
        at = f"messages[{i + (1 if self.leading_meta else 0)}]"
        return f"{self.where} {at}" if self.where else at


def _read(data: bytes, rep: Report) -> tuple[list[_Trace], list[Any]]:
    """The traces of the input and the dataset metadata lines; counts what is neither."""
    try:
        doc = loads(data)
    except orjson.JSONDecodeError:
        doc = None
    else:
        if isinstance(doc, list) and is_message_list(doc):
            return [_Trace("", None, doc, {})], []
        if is_trace_list(doc):
            return _batch(doc, rep), []
        if isinstance(doc, dict) and isinstance(doc.get("messages"), list):
            return [_Trace("", None, doc["messages"], doc)], []
        if not (isinstance(doc, dict) and is_metadata(doc)):
            raise ImportInputError("not an Invariant trace (expected a JSON array of chat "
                                   "messages, a {messages: [...]} trace, or JSONL of them)")
    traces: list[_Trace] = []
    dataset: list[Any] = []
    # the number of the first non-blank line (bytes.strip strips what lstrip does)
    first = data[:len(data) - len(data.lstrip())].count(b"\n") + 1
    for n, _, obj in json_lines(data, rep):
        where = f"line {n}"
        if is_metadata(obj):
            rep.ignore("dataset metadata" if n == first else "metadata line")
            dataset.append(obj["metadata"])
        elif isinstance(obj, dict) and isinstance(obj.get("messages"), list):
            traces.append(_Trace(where, n, obj["messages"], obj))
        elif isinstance(obj, list) and all(isinstance(x, dict) for x in obj) and (
                not obj or any(is_message(x) or is_metadata(x) for x in obj)):
            traces.append(_Trace(where, n, obj, {}))
        else:
            rep.fail(where, "not an Invariant trace (a {messages: [...]} object or an array "
                     "of messages)")
    return traces, dataset


def _batch(doc: Any, rep: Report) -> list[_Trace]:
    """The traces of a list of trace objects, or of a Push API request (its ``metadata`` and
    ``annotations`` lists aligned with its message lists)."""
    traces: list[_Trace] = []
    if isinstance(doc, dict):
        meta, notes = doc.get("metadata"), doc.get("annotations")
        for k, msgs in enumerate(doc["messages"]):
            where = f"messages[{k}]"
            if not isinstance(msgs, list):
                rep.fail(where, "not a list of messages")
                continue
            obj = {"metadata": meta[k] if isinstance(meta, list) and k < len(meta) else None,
                   "annotations": notes[k] if isinstance(notes, list) and k < len(notes)
                   else None}
            traces.append(_Trace(where, None, msgs, obj))
        return traces
    for k, obj in enumerate(doc):
        where = f"item {k}"
        if isinstance(obj, dict) and isinstance(obj.get("messages"), list):
            traces.append(_Trace(where, None, obj["messages"], obj))
        else:
            rep.fail(where, "not an Invariant trace (a {messages: [...]} object)")
    return traces


class _Importer:
    def __init__(self, rep: Report) -> None:
        self.rep = rep
        self.ev = Events(party=0)
        self.parties: list[dict[str, Any]] = []
        self.dialogs = Dialogs(self.parties)
        self.open: dict[str, list[str]] = {}  # call id -> the trace's open operations, oldest first
        self.unnamed: list[tuple[str, str]] = []  # (tool, operation) of open calls without id
        self.ends: dict[str, int] = {}  # operation -> its end event
        self.born: dict[str, int] = {}  # operation -> its invocation event (the call's age)
        self.tool_of: dict[str, str] = {}  # operation -> its tool
        self.ids: set[str] = set()  # the call ids of the trace being read
        self.stray = 0  # tool messages naming an id no call of their trace has
        self.bad_args = 0
        self.bad_calls = 0
        self.inferred = 0
        self.unanswered = 0  # calls no tool message answered, in the traces read
        self.server = HOST  # the trace's MCP server (Invariant's MCP gateway names it)
        self.listings: set[str] = set()  # call ids of the trace's tools/list listings
        self.blocked = 0  # calls a blocking guardrail stopped

    def end_trace(self) -> None:
        """Call ids are a trace's own: what is still open stays Running, and is counted."""
        self.unanswered += sum(len(v) for v in self.open.values()) + len(self.unnamed)
        self.open.clear()
        self.unnamed.clear()
        self.ids.clear()
        self.listings.clear()

    def refuse_blocked(self, t: _Trace) -> None:
        """A call a blocking guardrail stopped: Invariant's gateways push the call with the
        guardrail's errors as annotations (action ``block``) and, as it never reached the
        tool, no tool message. Such a call, still open at the trace's end, is the once
        decision that refused it, its reason the guardrail's message; what was asked is kept
        for the decision's ``requested``."""
        notes = t.annotations if isinstance(t.annotations, list) else []
        for a in notes:
            if not _blocks(a):
                continue
            m = _ADDRESS.match(a["address"]) if isinstance(a.get("address"), str) else None
            if m is None:
                continue
            i, j = int(m.group(1) or m.group(2)), m.group(3) or m.group(4)
            hits = [e for (ci, cj), e in t.calls.items()
                    if ci == i and (j is None or cj == int(j))]
            for e in hits:
                ev = self.ev.events[e]
                op = ev["operation_id"]
                if ev["type"] != "tool-invocation" or not self._close(op):
                    continue
                body = ev.pop("body", None)
                ev.pop("encoding", None)
                ev.pop("mediatype", None)
                said = _s(a.get("content")) or "blocked"
                ev.update({"type": "policy-decision", "decision": "disallowed",
                           "policy_life": "once", "operation": "tool-invocation",
                           "reason": f"Invariant guardrail (block): {said}"[:2000],
                           "inferred": INFER_BLOCKED})
                self.ev.asked(op, 1, body)
                self.blocked += 1

    def _close(self, op: str) -> bool:
        """Take ``op`` off the open calls; False if it was answered."""
        for ops in self.open.values():
            if op in ops:
                ops.remove(op)
                return True
        hit = next((k for k, (_, o) in enumerate(self.unnamed) if o == op), None)
        if hit is None:
            return False
        self.unnamed.pop(hit)
        return True

    def party(self, t: _Trace) -> int:
        meta = t.meta if isinstance(t.meta, dict) else {}
        idx = t.index if isinstance(t.index, (int, str)) and not isinstance(t.index, bool) \
            else None
        shown = None if idx is None else str(idx)
        if shown is not None and len(shown) > INDEX_SHOWN:  # the whole one is in the meta
            shown = shown[:INDEX_SHOWN - 1] + "…"
        label = f"trace {shown}" if shown is not None else (
            f"trace ({t.where})" if t.where else "agent")
        name = _s(meta.get("name"))
        party: dict[str, Any] = {"name": f"{label} {name[:80]}" if name else label,
                                 "role": "agent"}
        pm = {k2: v for k2, v in (("trace_index", idx), ("trace_id", _s(t.id))) if v is not None}
        if pm:
            party["meta"] = pm
        self.parties.append(party)
        return len(self.parties) - 1

    def args(self, raw: Any) -> Any:
        """A call's arguments: an object as recorded; a JSON string decoded (integers exact)
        when it holds an object, else kept as the recorded text and counted."""
        if not isinstance(raw, str):
            return raw
        try:
            val = loads(raw)
        except orjson.JSONDecodeError:
            val = None
        if isinstance(val, dict):
            return val
        self.bad_args += 1
        return raw

    def invoke(self, t: _Trace, i: int, j: int | None, call: Any, party: int,
               when: datetime, src: str) -> bool:
        """One tool call (``j``: its place in ``tool_calls``; None: a ``function_call``)."""
        fn = call.get("function") if j is not None and isinstance(call, dict) else call
        if isinstance(fn, str) and isinstance(call, dict):  # AgentDojo's {function, args, id}
            name, raw = _s(fn), call.get("args")
        elif isinstance(fn, dict):
            name, raw = _s(fn.get("name")), fn.get("arguments")
        else:
            name = raw = None
        if name is None:
            self.bad_calls += 1
            return False
        cid = _id(call.get("id")) if j is not None else None
        body: dict[str, Any] = {}
        if cid is not None:
            body["tool_call_id"] = call["id"]
        if j is not None and call.get("type") not in (None, "function"):
            body["type"] = call.get("type")
        body["arguments"] = self.args(raw)
        op = self.ev.new_operation()
        self.born[op] = len(self.ev.events)
        self.tool_of[op] = name
        t.events.setdefault(i, []).append(len(self.ev.events))
        if j is not None:
            t.calls[(i, j)] = len(self.ev.events)
        self.ev.add("tool-invocation", when, op, 1, src if j is None else
                    f"{src}.tool_calls[{j}]", body=body, server=self.server, tool=name,
                    party=party)
        if cid is not None:
            self.open.setdefault(cid, []).append(op)
            self.ids.add(cid)
        else:
            self.unnamed.append((name, op))
        return True

    def oldest(self, name: str | None) -> str | None:
        """Take the oldest open call (invoked first) of the trace, of that tool if named."""
        heads = [(op, ops) for ops in self.open.values() for op in ops[:1]]
        heads += [(op, None) for _, op in self.unnamed]
        heads = [h for h in heads if name is None or self.tool_of[h[0]] == name]
        if not heads:
            return None
        op, ops = min(heads, key=lambda h: self.born[h[0]])
        if ops is None:
            self.unnamed.remove((self.tool_of[op], op))
        else:
            ops.remove(op)
        return op

    def answer(self, t: _Trace, i: int, msg: dict[str, Any], party: int, when: datetime,
               src: str) -> bool:
        """A ``tool`` or ``function`` message: the end of the call it answers."""
        role = msg["role"]
        recorded = msg.get("tool_call_id")
        tc = msg.get("tool_call")
        if _id(recorded) is None and role == "tool" and isinstance(tc, dict):
            recorded = tc.get("id")  # AgentDojo's copy of the call it answers
        cid = _id(recorded)
        why = None
        op = None
        if cid is not None:
            ops = self.open.get(cid)
            op = ops.pop(0) if ops else None
            name = _s(msg.get("name"))
            if op is None and cid not in self.ids and name is not None:
                # an id no call of the trace has, and the tool's name: the oldest open call
                # of that name, said so (with no name, nothing says which call it answers)
                op = self.oldest(name)
                if op is not None:
                    self.stray += 1
                    why = ("the tool message's tool_call_id names no call of its trace: it "
                           "answers the oldest open call of its name")
        elif role == "function":
            name = _s(msg.get("name"))
            hit = next((k for k, (tool, _) in enumerate(self.unnamed) if tool == name), None)
            if hit is not None:
                op = self.unnamed.pop(hit)[1]
        else:  # a tool message naming no call: the oldest open call (invoked first), said so
            op = self.oldest(None)
            why = "the tool message names no tool_call_id: it answers the oldest open call"
        if op is None:
            return False
        err = msg.get("error")
        failed = err is not None and err != "" and err is not False
        body: dict[str, Any] = {}
        if cid is not None:
            body["tool_call_id"] = recorded
        if role == "function" and _s(msg.get("name")):
            body["name"] = msg["name"]
        body["content"] = msg.get("content")
        if failed:
            body["error"] = err
        t.events.setdefault(i, []).append(len(self.ev.events))
        self.ends[op] = len(self.ev.events)
        if why and cid is None:
            self.inferred += 1
        self.ev.add("tool-failure" if failed else "tool-result", when, op, 1, src, body=body,
                    party=party, **({"inferred": why} if why else {}))
        return True

    def message(self, t: _Trace, i: int, msg: Any, party: int, when: datetime) -> None:
        src = t.src(i)
        if not isinstance(msg, dict):
            self.rep.fail(src, "a message that is not a JSON object")
            return
        role = msg.get("role")
        if not isinstance(role, str):
            self.rep.fail(src, "trace metadata after the first message" if is_metadata(msg)
                          else "a message without a role")
            return
        used = False
        if role == "user":
            used = self.dialogs.said(when, text_of(msg.get("content")), src, party=party)
        elif role == "assistant":
            used = self.dialogs.replied(when, text_of(msg.get("content")), src, party=party)
            used = self.dialogs.replied(when, _s(msg.get("refusal")), src, party=party) or used
            calls = msg.get("tool_calls")
            if isinstance(calls, list):
                for j, c in enumerate(calls):
                    if _call_name(c) == LISTING:  # not a tool call: the client's listing
                        self.listings.add(_id(c.get("id")) or "")
                        continue
                    used = self.invoke(t, i, j, c, party, when, src) or used
                if not used and calls and all(_call_name(c) == LISTING for c in calls):
                    self.rep.ignore(LISTED)
                    return
            if isinstance(msg.get("function_call"), dict):
                used = self.invoke(t, i, None, msg["function_call"], party, when, src) or used
        elif role in ("tool", "function"):
            if role == "tool" and (_id(msg.get("tool_call_id")) or "") in self.listings \
                    and self.listings:
                self.listings.discard(_id(msg.get("tool_call_id")) or "")
                self.rep.ignore(LISTED)
                return
            if self.answer(t, i, msg, party, when, src):
                used = True
            else:
                named = msg.get("tool_call_id") or msg.get("name")
                self.rep.fail(src, f"a {role} message answering no open tool call"
                              + (f" ({clip(named)})" if named else ""))
                return
        if used:
            self.rep.mapped += 1
        elif role in INSTRUCTIONS:
            self.rep.ignore(f"{role} message")
        elif role in ROLES:
            self.rep.ignore(f"{role} message without text or tool call")
        else:
            self.rep.ignore(f"{clip(role, 30)} message")


#: The tool call Invariant's MCP gateway pushes for a tools/list request (no function may be
#: named so: OpenAI function names allow no "/").
LISTING: Final = "tools/list"
LISTED: Final = "MCP tools/list (the Invariant MCP gateway's listing)"
INFER_BLOCKED: Final = (
    "a guardrail of Invariant's gateway in block mode flagged this call (its annotation) "
    "and no tool message answers it: the gateway stopped it before the tool")


def _call_name(call: Any) -> str | None:
    fn = call.get("function") if isinstance(call, dict) else None
    return _s(fn.get("name")) if isinstance(fn, dict) else None


def _blocks(a: Any) -> bool:
    """An annotation of a blocking guardrail's error: ``extra_metadata`` ``source``
    ``guardrails-error`` with ``guardrail-action`` ``block`` (the gateway of 2025), or a
    ``guardrail`` whose ``action`` is ``block`` (later)."""
    meta = a.get("extra_metadata") if isinstance(a, dict) else None
    if not isinstance(meta, dict) or meta.get("source") != "guardrails-error":
        return False
    g = meta.get("guardrail")
    return meta.get("guardrail-action") == "block" or (
        isinstance(g, dict) and g.get("action") == "block")


def _mcp_server(t: _Trace) -> str:
    """The trace's MCP server: its metadata's ``mcp_server`` (the serverInfo name Invariant's
    MCP gateway records), else the agent's own host."""
    meta = t.meta if isinstance(t.meta, dict) else {}
    name = _s(meta.get("mcp_server"))
    return name if name is not None and not name.startswith("!") else HOST


def _annotation(t: _Trace, a: Any, n: int) -> dict[str, Any]:
    """An annotation as kept: what it says, its address and the event it addresses."""
    out: dict[str, Any] = {"trace": t.where or "document", "annotation": n}
    if not isinstance(a, dict):
        return {**out, "value": a}
    out.update({k: a[k] for k in ("content", "address", "extra_metadata") if k in a})
    m = _ADDRESS.match(a["address"]) if isinstance(a.get("address"), str) else None
    if m is None:
        return out
    i = int(m.group(1) or m.group(2))
    j = m.group(3) or m.group(4)
    out["message"] = t.src(i)
    if j is not None and (i, int(j)) in t.calls:
        out["event"] = t.calls[(i, int(j))]
    elif i in t.events and j is None:
        out["event"] = t.events[i][0]
    return out


def convert(data: bytes, *, source_name: str = "-", created: str | None = None,
            ) -> tuple[dict[str, Any], Report]:
    """An Invariant trace file's bytes -> (a tool-invocation vCon, the import report)."""
    if data[:3] == b"\xef\xbb\xbf":
        data = data[3:]
    rep = Report()
    traces, dataset = _read(data, rep)
    if not any(t.messages for t in traces):
        raise ImportInputError("no Invariant trace with messages could be read (expected "
                               "OpenAI chat messages: a JSON array, {messages: [...]}, or "
                               "JSONL of them)")
    stamps: list[datetime | None] = []
    for t in traces:
        for msg in t.messages:
            ts = msg.get("timestamp") if isinstance(msg, dict) else None
            when, naive = parse_ts(ts) if ts is not None else (None, False)
            if naive and when is not None:
                rep.warn("timestamps without a zone offset were read as UTC")
            stamps.append(when)
    times = carried_times(stamps)
    if times is None:
        rep.times = "order-only"
        times = [EPOCH + timedelta(milliseconds=k) for k in range(1, len(stamps) + 1)]
    elif None in stamps:
        rep.times = "partial"
    imp = _Importer(rep)
    k = 0
    kept: list[dict[str, Any]] = []
    described: list[dict[str, Any]] = []
    several = len(traces) > 1
    for t in traces:
        if t.leading_meta:
            rep.ignore("trace metadata")
        if not t.messages:
            if not t.leading_meta:
                rep.ignore("trace without messages")
            continue
        party = imp.party(t)
        imp.server = _mcp_server(t)
        for i, msg in enumerate(t.messages):
            imp.message(t, i, msg, party, times[k])
            k += 1
        imp.refuse_blocked(t)
        imp.end_trace()
        d: dict[str, Any] = {"party": party, "trace": t.where or "document",
                             "messages": len(t.messages)}
        for key, v in (("index", t.index), ("id", t.id), ("metadata", t.meta)):
            if v is not None:
                d[key] = v
        described.append(d)
        if isinstance(t.annotations, list):
            kept += [_annotation(t, a, m) for m, a in enumerate(t.annotations)]
    unanswered = imp.unanswered
    if imp.ev.operations == 0:
        rep.warn("the trace has no tool call: the vCon has no operations")
    elif unanswered:
        rep.warn(f"{unanswered} tool call(s) have no recorded result (no tool message answers "
                 "them): they stay Running")
    if imp.blocked:
        rep.warn(f"{imp.blocked} tool call(s) flagged by a blocking guardrail and answered by "
                 "no tool message are shown as refused by it (a once disallowed decision, not "
                 "run)")
    if imp.bad_calls:
        rep.warn(f"{imp.bad_calls} tool call(s) without a function name were skipped")
    if imp.bad_args:
        rep.warn(f"{imp.bad_args} tool call argument string(s) are not a JSON object: kept as "
                 "the recorded text")
    if imp.stray:
        rep.warn(f"{imp.stray} tool message(s) name a tool_call_id that names no call of its "
                 "trace: each answers the oldest open call of its name (written in the event's "
                 "inferred)")
    if imp.inferred:
        rep.warn(f"{imp.inferred} tool message(s) name no tool_call_id: each answers the "
                 "oldest open call (written in the event's inferred)")
    if kept:
        on_events = sum("event" in a for a in kept)
        rest = len(kept) - on_events
        rep.warn(f"{len(kept)} annotation(s) (guardrail or analyzer findings, notes) are kept "
                 "in the import-provenance attachment with the event or dialog they address"
                 + (f"; the {on_events} addressing a tool call or its result are also on that "
                    "event, shown with it" if on_events else "")
                 + (f"; {'the ' + str(rest) + ' other(s)' if on_events else 'they'} (on the "
                    "user's or the agent's words, or on nothing the file has) are not shown "
                    "by the viewer" if rest else ""))
    provenance: dict[str, Any] = {
        "tool": "vcon-view import invariant",
        "source": {"file": source_name, "sha256": hashlib.sha256(data).hexdigest(),
                   "format": "Invariant trace (OpenAI chat messages)",
                   "traces": len(described)},
        "mapping": "OpenAI chat tool_calls / function_call -> tool-invocation, the tool "
                   "message answering it -> tool-result (tool-failure when it has an error); "
                   "one call = one operation, attempt 1; one party per trace",
        **rep.as_dict(),
        "traces": described,
    }
    if dataset:
        provenance["dataset_metadata"] = dataset
    if len(traces) == 1 and isinstance(traces[0].meta, dict) and _s(traces[0].meta.get("name")):
        subject = f"Invariant trace {traces[0].meta['name'][:80]} imported from {source_name}"
    elif several:
        subject = f"Invariant trace dataset ({len(described)} traces) imported from " \
                  f"{source_name}"
    else:
        subject = f"Invariant trace imported from {source_name}"
    vcon = assemble(uid=vcon_uuid(data), subject=subject, parties=imp.parties, events=imp.ev,
                    start=times[0] if rep.times != "order-only" else None,
                    provenance=provenance, created=created, dialogs=imp.dialogs)
    if kept:
        att = vcon["attachments"][-1]["body"]
        placed = {d["from"]: d["dialog"] for d in att.get("dialog", [])}
        for a in kept:
            if "event" not in a and a.get("message") in placed:
                a["dialog"] = placed[a["message"]]
        att["annotations"] = kept
        events = vcon["events"]
        for a in kept:  # on the event addressed, as the file has it: the viewer shows it there
            if "event" in a:
                events[a["event"]].setdefault("annotations", []).append(
                    {k: a[k] for k in ("content", "address", "extra_metadata") if k in a})
    return vcon, rep


FORMAT = Format(
    name="invariant",
    title="Invariant trace",
    article="an",
    unit="messages",
    sniff=sniff,
    convert=convert,
    help="an Invariant trace: Explorer dataset JSONL ({messages, metadata, annotations} a "
         "line), or OpenAI chat messages as a JSON array",
)
