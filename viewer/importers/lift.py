"""Lifting: tool-invocation events derived from vCons in the three pre-draft agent shapes.

* **vcon-mcp-proxy dialogs**: one text dialog per JSON-RPC message, with ``meta.mcp_type``,
  ``meta.mcp_method`` and ``meta.request_id``; mapped by ``viewer.importers.mcp``.
* an **``mcp_session`` dialog** (draft-howe-vcon-mcp-session): ``tool_call`` blocks (or, when
  the session has none, ``tool_use`` blocks) -> tool-invocation; ``tool_result`` ->
  tool-result, or tool-failure when ``is_error``.
* an **``agent_trace`` analysis** (draft-howe-vcon-agent-session, VAC entries): ``tool-call``
  entries -> tool-invocation; ``tool-result`` entries (by ``parent-id``/``call-id``) ->
  tool-result, or tool-failure when their status is not a success.

``lift(vcon)`` is pure: it returns the derived events and where they came from, and never
touches the vCon. ``derived_view`` gives the pipeline (``viewer.pipeline.lifted``) a copy of
the vCon with those events (plus a session or agent party when the vCon has none) for a vCon
without tool-lifecycle events;
``convert_vcon`` writes that copy as a new vCon (``vcon-view import vcon``).
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Final, TypeGuard

from viewer.importers.common import (
    EPOCH,
    Events,
    Report,
    clip,
    json_loads,
    parse_ts,
    rfc3339,
    vcon_uuid,
)
from viewer.importers.mcp import (
    C2S,
    S2C,
    MCPMapper,
    Msg,
    direction_named,
    orient,
    request_key,
)
from viewer.jsonenc import loads, reader
from viewer.model import spec
from viewer.model.times import parse_times
from viewer.model.types import Derivation, Diagnostic
from viewer.pipeline import has_lifecycle_events

_SERVER_ROLES: Final = frozenset({"server", "tool-server", "tool_server", "tool_provider",
                                  "mcp_server", "mcp-server"})
_CLIENT_ROLES: Final = frozenset({"client", "agent", "mcp_client", "mcp-client", "assistant",
                                  "ai_agent"})
_OK: Final = frozenset({"ok", "success", "succeeded", "completed", "complete", "done"})
#: A dialog whose meta has one of these is a vcon-mcp-proxy message.
_PROXY_KEYS: Final = frozenset({"mcp_type", "mcp_method", "request_id"})


class NothingToLift(Exception):
    """The vCon has tool-lifecycle events already, or none of the three shapes."""


@dataclass
class Provenance:
    """Where derived events came from; ``derived_from`` are JSON Pointers into the vCon."""

    derived_from: tuple[str, ...] = ()
    unreadable: int = 0  # objects in one of the shapes that could not be read (unmapped)
    shapes: tuple[str, ...] = ()
    event_sources: tuple[str, ...] = ()  # per derived event, a JSON Pointer
    add_parties: list[dict[str, Any]] = field(default_factory=list)
    add_session: dict[str, Any] | None = None
    report: Report = field(default_factory=Report)


def _list(vcon: dict[str, Any], key: str) -> list[Any]:
    v = vcon.get(key)
    return v if isinstance(v, list) else []


def _meta(obj: Any) -> dict[str, Any]:
    m = obj.get("meta") if isinstance(obj, dict) else None
    return m if isinstance(m, dict) else {}


def _names_server(v: Any) -> TypeGuard[str]:
    """``v`` can be a server's name: a non-empty string, not one of the draft's reserved
    ``!`` names (``!host`` is the agent's own host)."""
    return isinstance(v, str) and bool(v) and not v.startswith("!")


def _role(party: Any) -> str:
    if not isinstance(party, dict):
        return ""
    m = _meta(party)
    for v in (party.get("role"), m.get("party_type"), m.get("mcp_role")):
        if isinstance(v, str):
            r = v.lower()
            if r in _SERVER_ROLES or r in _CLIENT_ROLES:
                return r
    return str(party.get("role") or "").lower()


def _tagged(vcon: dict[str, Any], key: str) -> str | None:
    """A ``key:value`` entry of the vCon's tags attachment (purpose ``tags``, its body a list
    of such strings, as vcon-lib's add_tag and vcon-mcp-proxy write it)."""
    for att in _list(vcon, "attachments"):
        if not isinstance(att, dict) or att.get("purpose", att.get("type")) != "tags":
            continue
        body = _decode(att)
        for entry in body if isinstance(body, list) else []:
            if isinstance(entry, str) and entry.startswith(key + ":") and entry[len(key) + 1:]:
                return entry[len(key) + 1:]
    return None


def _arr(v: Any) -> list[Any]:
    return v if isinstance(v, list) else []


def _body_text(item: dict[str, Any]) -> tuple[str | None, Any]:
    """(the JSON text of a dialog's or analysis's body, None) when the body is text (json/none,
    or base64url decoded); else (None, the body as it is; None when its base64url is not
    readable)."""
    body, enc = item.get("body"), item.get("encoding")
    if isinstance(body, str) and enc == "base64url":
        try:
            body = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)).decode("utf-8")
        except ValueError:
            return None, None
    return (body, None) if isinstance(body, str) else (None, body)


def _json(text: str, read: Callable[[Any], Any] = loads) -> Any:
    """A body's JSON text read (``read``: see ``common.json_loads``); None if unreadable."""
    try:
        return json_loads(text, read)
    except (ValueError, RecursionError):  # not JSON, NaN, or nested too deeply
        return None


def _decode(item: dict[str, Any]) -> Any:
    """The body of a dialog or analysis, decoded from json/none/base64url; None if unreadable."""
    text, body = _body_text(item)
    return body if text is None else _json(text)


class _Lifter:
    def __init__(self, vcon: dict[str, Any]) -> None:
        self.vcon = vcon
        self.parties = _list(vcon, "parties")
        self.prov = Provenance()
        self.rep = self.prov.report
        self.ev = Events(party=0)
        self.sources: list[str] = []
        self.derived: list[str] = []
        self.shapes: list[str] = []
        self.first: datetime | None = None

    def party(self, want: frozenset[str], name: str) -> int:
        for i, p in enumerate(self.parties):
            if _role(p) in want or (isinstance(p, dict) and "agent_session" in _meta(p)):
                return i
        for i, p in enumerate(self.prov.add_parties):
            if p["name"] == name:
                return len(self.parties) + i
        self.prov.add_parties.append({"name": name, "role": "agent"})
        self.rep.warn(f"no agent party found: a party \"{name}\" was added for the derived "
                      "events")
        return len(self.parties) + len(self.prov.add_parties) - 1

    def note_time(self, t: datetime | None) -> None:
        if t is not None and (self.first is None or t < self.first):
            self.first = t

    def run(self) -> tuple[list[dict[str, Any]], Provenance]:
        if not has_lifecycle_events(self.vcon):
            self.proxy()
            self.mcp_sessions()
            self.agent_traces()
        n_sessions = len(_list(self.vcon, "sessions") or _list(self.vcon, "session"))
        if self.ev.events and n_sessions == 0:
            self.prov.add_session = {
                "parties": list(range(len(self.parties) + len(self.prov.add_parties))),
                **({"start": rfc3339(self.first)} if self.first else {}),
            }
        self.prov.derived_from = tuple(self.derived)
        self.prov.shapes = tuple(self.shapes)
        self.prov.event_sources = tuple(self.ev.sources)
        return self.ev.events, self.prov

    # -- vcon-mcp-proxy: a dialog per JSON-RPC message ---------------------------------------
    def proxy(self) -> None:
        found: list[tuple[str, dict[str, Any], dict[str, Any], dict[str, Any], int | None,
                          int | None]] = []
        dialogs = [(i, d, m) for i, d in enumerate(_list(self.vcon, "dialog"))
                   if not _PROXY_KEYS.isdisjoint(m := _meta(d))]
        got = [_body_text(d) for _, d, _ in dialogs]
        read = reader(text for text, _ in got if text is not None)
        try:  # all at once; when one is not read, each alone (json_loads says why)
            bodies = [body if text is None else read(text) for text, body in got]
        except (ValueError, RecursionError):
            bodies = [body if text is None else _json(text, read) for text, body in got]
        for (i, d, m), body in zip(dialogs, bodies, strict=True):
            where = f"/dialog/{i}"
            if not isinstance(body, (dict, list)):
                self.rep.fail(where, "dialog body is not a JSON-RPC message" if d.get(
                    "body") is not None else "dialog has no inline body (redacted, or kept "
                    "at its url, which is never fetched): not read")
                self.prov.unreadable += 1
                continue
            self.derived.append(where)
            if isinstance(body, dict):
                found.append((where, d, m, body, *_sender(d)))
                continue
            # a JSON-RPC batch (MCP 2025-03-26): each message of it, in its order
            base = where + ("/body(json)" if isinstance(d.get("body"), str) else "/body")
            if not body:
                self.rep.fail(where, "an empty JSON-RPC batch")
            for k, item in enumerate(body):
                if isinstance(item, dict):
                    found.append((f"{base}/{k}", d, m, item, *_sender(d)))
                else:
                    self.rep.fail(f"{base}/{k}", "not a JSON-RPC message")
        if not found:
            return
        self.shapes.append("vcon-mcp-proxy")
        sides = _learn_sides((body, sender, other) for _, _, _, body, sender, other in found)
        starts = [d.get("start") for _, d, _, _, _, _ in found]
        parsed = parse_times(starts)  # all at once when all are date-times with an offset
        if parsed is None:
            read_ts = [parse_ts(v) for v in starts]
            if any(naive for _, naive in read_ts):
                self.rep.warn("dialog start times without a zone offset were read as UTC")
            parsed = [ts for ts, _ in read_ts]
        msgs: list[Msg] = []
        open_c: dict[str, str] = {}  # the client's open requests: id key -> method
        open_s: dict[str, str] = {}  # the server's
        disagree = 0
        for (where, _, m, body, sender, _), ts in zip(found, parsed, strict=True):
            shape = _shape(body)
            mcp_type = m.get("mcp_type")
            if shape is not None and isinstance(mcp_type, str) and mcp_type in _SHAPES \
                    and mcp_type != shape:
                disagree += 1
            way = proxy_direction(body, shape, sides.get(sender) if sender is not None else None,
                                  open_c, open_s, explicit=m.get("direction", m.get("dir")))
            if way is not None and shape == "request":
                (open_c if way == C2S else open_s)[request_key(body.get("id"))] = body["method"]
            elif way is not None and shape == "response":
                (open_c if way == S2C else open_s).pop(request_key(body.get("id")), None)
            msgs.append(Msg(body, way, ts, where))
        if disagree:
            self.rep.warn(f"{disagree} dialog(s) have a meta.mcp_type that is not the shape of "
                          "their JSON-RPC message: the message was followed")
        times = parsed
        if None in parsed:  # a dialog without a time takes the time before it
            known = [ts for ts in parsed if ts is not None]
            times = []
            prev = known[0] if known else EPOCH
            for k, ts in enumerate(parsed):
                prev = ts if ts is not None else (prev if known else EPOCH.replace(
                    microsecond=min(k * 1000, 999000)))
                times.append(prev)
            if not known:
                self.rep.times = "order-only"
        self.note_time(times[0])
        client = self._side_party(sides, C2S)
        self.ev.party = client if client is not None else self.party(
            frozenset({"client", "agent", "mcp_client", "mcp-client"}), "MCP client (agent)")
        orient(msgs, self.rep)  # meta.direction words written as the server saw them
        MCPMapper(self.ev, self.rep, self._proxy_server(msgs, self._side_party(sides, S2C))
                  ).run(msgs, times)

    def _side_party(self, sides: dict[int, str | None], side: str) -> int | None:
        """The party the messages show on ``side`` (the lowest index if several)."""
        got = [p for p, s in sides.items() if s == side and 0 <= p < len(self.parties)]
        return min(got) if got else None

    def _proxy_server(self, msgs: list[Msg], learned: int | None) -> str:
        """The server's URL or name: from the party the messages show as the server, else a
        party whose role says server, else the proxy's ``server_name`` tag, else the
        serverInfo of an initialize result."""
        roled = (p for p in self.parties if _role(p) in _SERVER_ROLES)
        for p in ([self.parties[learned]] if learned is not None else roled):
            if not isinstance(p, dict):
                continue
            m = _meta(p)
            for v in (m.get("server_url"), p.get("url"), m.get("url"), p.get("name")):
                if _names_server(v):
                    return v
        tagged = _tagged(self.vcon, "server_name")
        if tagged and not tagged.startswith("!"):
            return tagged
        for msg in msgs:
            r = msg.msg.get("result") if msg.msg else None
            if isinstance(r, dict) and isinstance(r.get("serverInfo"), dict):
                n = r["serverInfo"].get("name")
                if _names_server(n):
                    return n
        self.rep.warn("the MCP server is not named in the vCon: recorded as "
                      "\"unknown-mcp-server\"")
        return "unknown-mcp-server"

    # -- mcp_session dialogs ---------------------------------------------------------------
    def mcp_sessions(self) -> None:
        for i, d in enumerate(_list(self.vcon, "dialog")):
            if not isinstance(d, dict) or d.get("type") != "mcp_session":
                continue
            where = f"/dialog/{i}"
            body = _decode(d)
            if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
                self.rep.fail(where, "mcp_session body has no messages array")
                self.prov.unreadable += 1
                continue
            self.shapes.append("mcp_session")
            self.derived.append(where)
            self.ev.party = self.party(frozenset({"ai_agent", "agent", "assistant"}),
                                       "AI agent")
            self._mcp_session(where, d, body)

    def _mcp_session(self, where: str, d: dict[str, Any], body: dict[str, Any]) -> None:
        msgs = body["messages"]
        blocks = [(k, j, b) for k, msg in enumerate(msgs) if isinstance(msg, dict)
                  for j, b in enumerate(_arr(msg.get("content"))) if isinstance(b, dict)]
        calls_are = "tool_call" if any(b.get("type") == "tool_call" for _, _, b in blocks) \
            else "tool_use"
        if calls_are == "tool_use" and any(b.get("type") == "tool_use" for _, _, b in blocks):
            self.rep.warn(f"{where}: the mcp_session has no tool_call blocks: its tool_use "
                          "blocks were taken as the invocations (the model's request; the "
                          "session does not evidence the call was made)")
        ops: dict[str, str] = {}
        if calls_are == "tool_call":
            # a tool_use no tool_call discharges: the model asked, the agent did not call
            # (the draft: "a valid and meaningful record"); no operation, but said
            called = {b.get("id") for _, _, b in blocks if b.get("type") == "tool_call"
                      and isinstance(b.get("id"), str)}
            asked = [b.get("name") for _, _, b in blocks if b.get("type") == "tool_use"
                     and not (isinstance(b.get("id"), str) and b["id"] in called)]
            if asked:
                names = ", ".join(clip(n, 32) for n in asked[:3])
                self.rep.warn(f"{where}: {len(asked)} tool_use block(s) not called: the model "
                              f"asked for {names}{' …' if len(asked) > 3 else ''} and no "
                              "tool_call of that id is recorded (declined, filtered or dropped)")
        start, _ = parse_ts(d.get("start"))
        prev = start or EPOCH
        for k, msg in enumerate(msgs):
            if not isinstance(msg, dict):
                continue
            ts, _ = parse_ts(msg.get("timestamp"))
            if ts is None:
                self.rep.times = "partial"
            prev = ts or prev
            self.note_time(prev)
            for j, b in enumerate(_arr(msg.get("content"))):
                if not isinstance(b, dict):
                    continue
                ptr = f"{where}/body/messages/{k}/content/{j}"
                t = b.get("type")
                if t == calls_are:
                    name = b.get("name")
                    if not isinstance(name, str) or not name:
                        self.rep.fail(ptr, f"{t} without a name")
                        continue
                    op = self.ev.new_operation()
                    if isinstance(b.get("id"), str):
                        ops[b["id"]] = op
                    self.ev.add("tool-invocation", prev, op, 1, ptr, body=b.get("input", {}),
                                server=self._session_server(body, msg, name), tool=name)
                    self.rep.mapped += 1
                elif t == "tool_result":
                    ref = b.get("tool_use_id")
                    c = b.get("content")
                    if ref is None and isinstance(c, dict) and "ref" in c:
                        # the placeholder of an output kept in an attachment names its call
                        # in content.id (draft: Linking Attachments to Tool Invocations)
                        ref = c.get("id")
                    op = ops.get(ref) if isinstance(ref, str) else None
                    if op is None:
                        self.rep.fail(ptr, "tool_result for no recorded call")
                        continue
                    out = {x: b[x] for x in ("content", "is_error", "duration_ms") if x in b}
                    kind = "tool-failure" if b.get("is_error") is True else "tool-result"
                    self.ev.add(kind, prev, op, 1, ptr, body=out)
                    self.rep.mapped += 1
                elif t == "tool_use":
                    self.rep.ignore("tool_use (the model's request; the tool_call is mapped)")

    def _session_server(self, body: dict[str, Any], msg: dict[str, Any], tool: str) -> str:
        to = msg.get("to")
        to = to[0] if isinstance(to, list) and to else to
        if type(to) is int and 0 <= to < len(self.parties) and _role(self.parties[to]) \
                in _SERVER_ROLES:
            p = self.parties[to]
            url = _meta(p).get("server_url")
            name = url if isinstance(url, str) and url else p.get("name")
            if _names_server(name):
                return name
        for s in _arr(body.get("servers")):
            if isinstance(s, dict) and tool in _arr(s.get("tools")):
                for v in (s.get("url"), s.get("server_url"), s.get("name")):
                    if _names_server(v):
                        return v
        for p in self.parties:
            m = _meta(p)
            if _role(p) in _SERVER_ROLES and tool in _arr(m.get("tools_provided")):
                url = m.get("server_url")
                name = url if isinstance(url, str) and url else p.get("name")
                if _names_server(name):
                    return name
        self.rep.warn("a tool's server is not named in the mcp_session: recorded as "
                      "\"unknown-mcp-server\"")
        return "unknown-mcp-server"

    # -- agent_trace analyses --------------------------------------------------------------
    def agent_traces(self) -> None:
        ops: dict[str, str] = {}
        for i, a in enumerate(_list(self.vcon, "analysis")):
            if not isinstance(a, dict) or a.get("type") != "agent_trace":
                continue
            where = f"/analysis/{i}"
            schema = a.get("schema")
            if a.get("encoding") == "base64url" and isinstance(schema, str) \
                    and "encoding=cbor" in schema.lower():
                # the agent-session draft: the schema URL says whether base64url holds CBOR
                self.rep.fail(where, "a CBOR (base64url) agent_trace is not read")
                self.prov.unreadable += 1
                continue
            if a.get("encoding") == "jwe":
                self.rep.fail(where, "an encrypted (jwe) agent_trace cannot be read "
                                     "without its key")
                self.prov.unreadable += 1
                continue
            body = _decode(a)
            entries = _entries(body)
            if entries is None:
                self.rep.fail(where, "agent_trace body has no entries")
                self.prov.unreadable += 1
                continue
            if "agent_trace" not in self.shapes:
                self.shapes.append("agent_trace")
            self.derived.append(where)
            self.ev.party = self.party(frozenset({"agent", "ai_agent"}), "AI agent")
            base = where + ("/body" if isinstance(a.get("body"), (dict, list)) else "/body(json)")
            self._entries(entries, base, ops)

    def _entries(self, entries: list[tuple[str, Any]], base: str, ops: dict[str, str]) -> None:
        prev = EPOCH
        for sub, e in entries:
            if not isinstance(e, dict):
                continue
            ptr = base + sub
            t = _entry_type(e)
            ts, _ = parse_ts(e.get("timestamp"))
            if ts is None and t in ("tool-call", "tool-result"):
                self.rep.times = "partial"
            prev = ts or prev
            if t == "tool-call":
                name = e.get("name", e.get("tool-name"))
                if not isinstance(name, str) or not name:
                    self.rep.fail(ptr, "tool-call without a name")
                    continue
                server, tool = spec.HOST_SERVER, name
                if name.startswith("mcp__") and name.count("__") >= 2:
                    _, server, tool = name.split("__", 2)
                op = self.ev.new_operation()
                if isinstance(e.get("id"), str):
                    ops[e["id"]] = op
                for link in _LINKS:  # links call and result (VAC CDDL; vcon-vac-adapter)
                    if isinstance(e.get(link), str):
                        ops[_CALL + e[link]] = op
                self.note_time(prev)
                args = next((e[k] for k in ("arguments", "input", "tool-input") if k in e), {})
                self.ev.add("tool-invocation", prev, op, 1, ptr, body=args, server=server,
                            tool=tool)
                self.rep.mapped += 1
            elif t == "tool-result":
                ref = next((key for k, pre in (
                    ("call-id", _CALL), ("call-id", ""), ("tool-use-id", _CALL),
                    ("tool-call-id", _CALL), ("tool-call-id", ""), ("parent-id", ""))
                    if isinstance(e.get(k), str) and (key := pre + e[k]) in ops), None)
                if ref is None:
                    self.rep.fail(ptr, "tool-result for no recorded tool-call")
                    continue
                status = e.get("status")
                status_ok = status is None or (isinstance(status, str)
                                               and status.lower() in _OK)
                ok = status_ok and e.get("is-error") is not True and e.get("error") is None
                # a status that is neither success nor a failure word is read as a failure
                if not status_ok and not (isinstance(status, str) and status.lower() in (
                        "error", "failed", "failure", "fail")):
                    self.rep.warn(f"agent_trace status {clip(status, 24)} read as a failure")
                out = {k: e[k] for k in _RESULT_KEYS if k in e}
                self.ev.add("tool-result" if ok else "tool-failure", prev, ops[ref], 1, ptr,
                            body=out)
                self.rep.mapped += 1
            else:
                self.rep.ignore(f"agent_trace {t} entry")


#: Prefix of a tool-call's ``call-id`` among the agent_trace calls (its ``id`` has none).
_CALL: Final = "\x00call-id:"
#: What links a tool-call to its tool-result: the VAC CDDL's ``call-id``, vcon-vac-adapter's
#: ``tool-use-id`` (the host's call id).
_LINKS: Final = ("call-id", "tool-use-id")
#: What a tool-result's event keeps: the VAC CDDL's members, and vcon-vac-adapter's.
_RESULT_KEYS: Final = ("status", "output", "error", "tool-output", "is-error", "duration-ms")


def _entry_type(e: dict[str, Any]) -> Any:
    """An agent_trace entry's type: ``type`` (the VAC CDDL: ``tool-call``), else ``kind`` as
    vcon-vac-adapter writes it (``tool_call``, ``tool_result``), read the same."""
    t = e.get("type", e.get("kind"))
    return t.replace("_", "-") if isinstance(t, str) else t


# -- vcon-mcp-proxy: which way a message went --------------------------------------------------

#: Requests only a server sends; ``ping`` either side sends; every other request is a client's.
_SERVER_REQUESTS: Final = frozenset({"elicitation/create", "sampling/createMessage",
                                     "roots/list"})
#: Notifications a client sends (the others are a server's) when the sender's side is unknown.
_CLIENT_NOTIFICATIONS: Final = frozenset({
    "notifications/initialized", "notifications/cancelled",
    "notifications/roots/list_changed"})
#: Members of a client's answer to the server's requests.
_CLIENT_ANSWER_KEYS: Final = {"elicitation/create": frozenset({"action"}),
                              "roots/list": frozenset({"roots"}),
                              "sampling/createMessage": frozenset({"model", "role"})}
_ALL_CLIENT_ANSWER_KEYS: Final = frozenset().union(*_CLIENT_ANSWER_KEYS.values())
_SHAPES: Final = frozenset({"request", "response", "notification"})


def _shape(msg: dict[str, Any]) -> str | None:
    """request, notification or response, by the JSON-RPC members (None: none of them)."""
    if isinstance(msg.get("method"), str):
        return "request" if "id" in msg else "notification"
    if "id" in msg and ("result" in msg or "error" in msg):
        return "response"
    return None


def proxy_direction(msg: dict[str, Any], shape: str | None, sender_side: str | None,
                    open_c: dict[str, str], open_s: dict[str, str], *,
                    explicit: Any = None) -> str | None:
    """Which way one vcon-mcp-proxy message went, C2S or S2C, read from the message itself.

    Never from the parties' roles (a real capture calls its MCP server party "agent").
    ``explicit`` (``meta.direction``) is honoured when it names a direction. Else, by the
    shape of the JSON-RPC message:

    * a request: elicitation/create, sampling/createMessage and roots/list are the server's;
      ``ping`` goes the way its sender sends; unknown, it is the server's when its id is
      open among the client's requests (a sender never reuses an id in flight), else the
      client's; any other request is a client's;
    * a response answers the open request with its id of the other side: an id open only
      among the client's requests (``open_c``) is the server answering (S2C), only among the
      server's (``open_s``) the client answering (C2S); open on both sides, or on neither,
      the sender's side decides; open on both with the sender unknown, an answer shaped as
      the client's answer to the server's open request (an empty result to ``ping``, an
      ``action`` to elicitation/create...) is the client's, any other the server's;
    * a notification goes the way its sender sends; unknown, initialized, cancelled and
      roots/list_changed are a client's, the rest a server's.

    ``sender_side`` is the side of the dialog's sender as its requests show it
    (``_learn_sides``); ``open_c``/``open_s`` (id key -> method) are kept by the caller.
    None: no direction (a response to no open request; the mapper reports it).
    """
    got = direction_named(explicit) if explicit is not None else None
    if got:
        return got
    method = msg.get("method")
    if shape == "request":
        if method in _SERVER_REQUESTS:
            return S2C
        if method != "ping":
            return C2S
        if sender_side:
            return sender_side
        return S2C if request_key(msg.get("id")) in open_c else C2S  # ids in flight are unique
    if shape == "notification":
        return sender_side or (C2S if method in _CLIENT_NOTIFICATIONS else S2C)
    if shape != "response":
        return None
    key = request_key(msg.get("id"))
    in_c, in_s = key in open_c, key in open_s
    if in_c != in_s:
        return S2C if in_c else C2S
    if sender_side or not in_c:
        return sender_side
    return C2S if _client_answer(open_s[key], msg.get("result")) else S2C


def _client_answer(method: str, result: Any) -> bool:
    """Whether ``result`` has the shape of a client's answer to the server's ``method``."""
    if not isinstance(result, dict):
        return False
    if method == "ping":
        return not result
    want = _CLIENT_ANSWER_KEYS.get(method)
    return not (want or _ALL_CLIENT_ANSWER_KEYS).isdisjoint(result)


def _sender(d: dict[str, Any]) -> tuple[int | None, int | None]:
    """The dialog's sender (``originator``, else the first of its ``parties``) and the other
    party of the dialog: indices used as identities (their roles are not read)."""
    ps = d.get("parties")
    if not isinstance(ps, list):
        ps = ()
    sender = d.get("originator")
    if type(sender) is not int:
        sender = next((p for p in ps if type(p) is int), None)
    for p in ps:
        if type(p) is int and p != sender:
            return sender, p
    return sender, None


def _learn_sides(found: Any) -> dict[int, str | None]:
    """Each sending party's side (C2S: the client), from the requests it sends.

    The sender of the first ``initialize`` is the client and the other party of that dialog
    the server. Any other request (not ``ping``) shows its sender on its side (a server's
    request: the server) and its other party on the other side. A party shown on both sides
    is None (its dialogs' senders are not reliable). ``found``: (message, sender, other).
    """
    sides: dict[int, str | None] = {}

    def put(party: int | None, side: str) -> None:
        if party is not None:
            sides[party] = side if sides.get(party, side) == side else None

    initialized = False
    for msg, sender, other in found:
        method = msg.get("method")
        if sender is None or not isinstance(method, str) or "id" not in msg or method == "ping":
            continue
        if method == "initialize" and not initialized:
            initialized = True
            sides[sender] = C2S
            if other is not None:
                sides[other] = S2C
            continue
        side = S2C if method in _SERVER_REQUESTS else C2S
        put(sender, side)
        put(other, C2S if side == S2C else S2C)
    return sides


def _entries(body: Any) -> list[tuple[str, Any]] | None:
    """(pointer suffix, entry) of a VAC record, an entries list or one entry (per-tool-call),
    each entry followed by the entries in its ``children`` (agent-conversation.cddl), in
    document order. The record's trace is ``session`` (the VAC CDDL) or ``session-trace``
    (the agent-session draft's example)."""
    if isinstance(body, list):
        return _walk("", body)
    if not isinstance(body, dict):
        return None
    wrapped = body.get("verifiable-agent-record")  # vcon-vac-adapter's outer member
    if isinstance(wrapped, dict):
        inner = _entries(wrapped)
        return None if inner is None else [
            (f"/verifiable-agent-record{sub}", e) for sub, e in inner]
    for key in ("session", "session-trace"):
        st = body.get(key)
        if isinstance(st, dict) and isinstance(st.get("entries"), list):
            return _walk(f"/{key}/entries", st["entries"])
    if isinstance(body.get("entries"), list):
        return _walk("/entries", body["entries"])
    if _entry_type(body) in ("tool-call", "tool-result"):
        return [("", body), *_children("", body)]
    return None


def _children(ptr: str, entry: Any) -> list[tuple[str, Any]]:
    kids = entry.get("children") if isinstance(entry, dict) else None
    return _walk(f"{ptr}/children", kids) if isinstance(kids, list) else []


def _walk(base: str, entries: list[Any]) -> list[tuple[str, Any]]:
    """Each entry of ``entries`` (at ``base``/k), then its children, depth first (a stack:
    nesting as deep as the JSON reader allows)."""
    out: list[tuple[str, Any]] = []
    stack = [(f"{base}/{k}", e) for k, e in reversed(list(enumerate(entries)))]
    while stack:
        ptr, e = stack.pop()
        out.append((ptr, e))
        kids = e.get("children") if isinstance(e, dict) else None
        if isinstance(kids, list):
            stack.extend((f"{ptr}/children/{k}", c) for k, c in reversed(list(enumerate(kids))))
    return out


def lift(vcon: dict[str, Any]) -> tuple[list[dict[str, Any]], Provenance]:
    """Derived tool-invocation events of a vCon in a pre-draft shape, and their provenance.

    Pure. No events when the vCon already has tool-lifecycle events or none of the shapes.
    Event ``party`` and ``sessions`` indices assume ``derived_vcon`` adds what Provenance
    asks for (an agent party, a session) at the end of those arrays.
    """
    return _Lifter(vcon).run()


def derived_vcon(vcon: dict[str, Any], events: list[dict[str, Any]],
                 prov: Provenance) -> dict[str, Any]:
    """A shallow copy of the vCon with the derived events (never modifies ``vcon``)."""
    out = dict(vcon)
    out["events"] = [*_list(vcon, "events"), *events]
    if prov.add_parties:
        out["parties"] = [*_list(vcon, "parties"), *prov.add_parties]
    if prov.add_session is not None:
        out["sessions"] = [prov.add_session]
    ext = _list(vcon, "extensions")
    if spec.EXTENSION_NAME not in ext:
        out["extensions"] = [*ext, spec.EXTENSION_NAME]
    return out


@dataclass(frozen=True)
class DerivedView:
    """What the pipeline hands ``build_model`` for a vCon whose operations are derived."""

    vcon: dict[str, Any]
    derived_from: tuple[str, ...]
    diagnostics: tuple[Diagnostic, ...]
    derivation: Derivation | None = None


def derived_view(vcon: dict[str, Any]) -> DerivedView | None:
    """The derived copy for display, or None when there is nothing to lift."""
    if not isinstance(vcon, dict) or has_lifecycle_events(vcon):
        return None
    try:
        events, prov = lift(vcon)
    except (ValueError, TypeError, KeyError, AttributeError, RecursionError) as exc:
        # hostile or odd input must never stop the file from being shown
        return DerivedView(vcon, (), (Diagnostic(
            "derived-failed", "warning", "",
            f"operations could not be derived from this vCon ({type(exc).__name__})"),))
    if not events:
        if not prov.report.unmapped:
            return None
        # a pre-draft record is there but none of it could be read (a CBOR or encrypted
        # agent_trace...): said, never shown as a file in which the agent called nothing
        return DerivedView(vcon, (), (Diagnostic(
            "derived-failed", "warning", "",
            "no operation could be derived from this vCon's pre-draft tool record: "
            + "; ".join(prov.report.lines())),))
    n_ops = len({e["operation_id"] for e in events})
    first = len(_list(vcon, "events"))
    diags = [Diagnostic(
        "derived-events", "info", prov.derived_from[0],
        f"no tool-invocation events in the file: {n_ops} operation(s) ({len(events)} events "
        f"from index {first}) were derived from {', '.join(prov.shapes)} at "
        f"{', '.join(prov.derived_from[:4])}{' …' if len(prov.derived_from) > 4 else ''}; "
        "the file is unchanged (vcon-view import vcon writes them)")]
    diags += [Diagnostic("derived-warning", "info", prov.derived_from[0], w)
              for w in prov.report.lines()]  # whole sentences (examples are few, by count)
    rep = prov.report
    dialogs = all(p.startswith("/dialog/") for p in prov.derived_from)
    derivation = Derivation(
        format="+".join(prov.shapes), title=", ".join(prov.shapes),
        objects=len(prov.derived_from) + prov.unreadable,
        unit="dialogs" if dialogs else "objects",
        mapped=rep.mapped, ignored=sum(rep.ignored.values()), unmapped=rep.unmapped,
        times=rep.times)
    return DerivedView(derived_vcon(vcon, events, prov), prov.derived_from, tuple(diags),
                       derivation)


#: How many of the input's own problems ``import vcon`` names one by one.
INPUT_FINDINGS = 5


def _input_findings(diagnostics: Iterable[Diagnostic], report: Report) -> None:
    """What the loader found wrong with the input vCon (a key named twice, a signature that
    does not verify, an unsupported critical extension) as the import's warnings: the
    derived vCon is a rewrite, in which such a problem would leave no trace."""
    found = [d for d in diagnostics if d.severity in ("error", "warning")]
    for d in found[:INPUT_FINDINGS]:
        report.warn(f"the input vCon: {d.code} at {d.pointer or '/'}: {d.message}")
    if len(found) > INPUT_FINDINGS:
        codes = ", ".join(sorted({d.code for d in found[INPUT_FINDINGS:]}))
        report.warn(f"the input vCon: {len(found) - INPUT_FINDINGS} more ({codes}); "
                    "vcon-view check FILE lists them all")


def convert_vcon(data: bytes, *, source_name: str = "-",
                 ignore_critical: bool = False) -> tuple[dict[str, Any], Report]:
    """``vcon-view import vcon``: the input vCon plus its derived events, as a new vCon."""
    from viewer.load import load_bytes
    from viewer.model.columns import plain

    loaded = load_bytes(data, name=source_name, ignore_critical=ignore_critical)
    vcon = plain(loaded.vcon)  # its events as values, which the derived vCon copies
    if has_lifecycle_events(vcon):
        raise NothingToLift("it already has tool-invocation events")
    events, prov = lift(vcon)
    if not events:
        if prov.report.unmapped:
            raise NothingToLift("nothing could be derived: " + "; ".join(prov.report.examples))
        raise NothingToLift("no vcon-mcp-proxy dialogs, mcp_session dialog or agent_trace "
                            "analysis with tool calls")
    _input_findings(loaded.diagnostics, prov.report)
    # No deep copy: ``out`` is a new dict whose changed members are new lists, the parsed
    # input is not used after this, and the result is only serialised.
    out = derived_vcon(vcon, events, prov)
    old_uuid = vcon.get("uuid")
    out["uuid"] = vcon_uuid(data, loaded.source.sha256)
    provenance = {
        "tool": "vcon-view import vcon",
        "source": {"file": source_name, "uuid": old_uuid, "sha256": loaded.source.sha256,
                   "shapes": list(prov.shapes)},
        "derived_from": list(prov.derived_from),
        **prov.report.as_dict(),
        "events": [{"event": i, "from": s}
                   for i, s in enumerate(prov.event_sources, len(_list(vcon, "events")))],
    }
    out["attachments"] = [*_list(out, "attachments"), {
        "purpose": "import-provenance",
        "party": events[0]["party"],
        "mediatype": "application/json",
        "encoding": "json",
        "body": provenance,
    }]
    return out, prov.report
