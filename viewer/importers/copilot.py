"""GitHub Copilot CLI sessions (``~/.copilot/session-state/<id>/events.jsonl``) -> tool events.

Every line is one event ``{type, data, id, timestamp, parentId}``. What carries tool traffic:

* ``tool.execution_start`` (``toolCallId``, ``toolName``, ``arguments``, for MCP tools
  ``mcpServerName``/``mcpToolName``) -> tool-invocation of a new operation (``op-NNNN``; the
  toolCallId stays in the content, it is never the operation id);
* ``tool.execution_complete`` (same ``toolCallId``; ``success``, ``result``, ``error``) ->
  tool-result when it succeeded; tool-failure when the tool ran and failed (it returned a
  result, or its error code is ``failure``); tool-error when it could not run (an error with
  no result). A call the host refused never ran: Copilot records it as a failed completion
  (error code ``rejected``, "The user rejected this tool call"; code ``denied``, "Denied by
  preToolUse hook: ...", "Permission denied and could not request permission from user"),
  which becomes one ``once`` policy-decision ``disallowed`` with the recorded text as
  ``reason`` and no tool-invocation;
* a completion whose start is not recorded takes its invocation from the ``assistant.message``
  ``toolRequests`` entry with that toolCallId (at that message's time);
* ``hook.end`` of a ``preToolUse`` hook answering ``permissionDecision: "deny"`` -> the
  decision of the call it gated (by the call id in the hook's input, else the next call of that
  tool), with the hook's reason, at the hook's time; one decision per call;
* a recorded ``permission.completed`` whose result is ``denied-...`` -> that call's decision
  (``permission.requested`` or the completion names the toolCallId);
* a recorded approval (``approved``, ``approved-for-session``, ``approved-for-location``) ->
  that call's ``once`` decision ``permission-required`` (the draft's decision for a prompt;
  the tool-invocation that follows is the grant), at the time of the ``permission.requested``
  (else of the answer), with how it was answered as ``reason``. Times are never moved: Copilot
  writes ``tool.execution_start`` before it asks, so such a decision follows its invocation
  and the model flags it. An approval for the session or the location also becomes a
  ``standing`` ``allowed`` decision from the answer's time on, for what its ``approval``
  covers: an MCP tool or server, a custom tool, or every read / write / memory store (written
  for the tool that asked); an approval of some shell commands only is not (the draft cannot
  name a command);
* ``abort`` -> tool-cancel of every call still running; ``tool.execution_progress`` and
  ``tool.execution_partial_result`` -> tool-progress;
* a sub-agent's calls (``parentToolCallId``) are on a party of their own, named by
  ``subagent.started``;
* a call the user asked for by hand (``tool.user_requested``, ``isUserRequested``) is invoked
  by the host like any other: its invocation's content says ``isUserRequested: true``.

Everything else (conversation, usage, session lifecycle) is counted as ignored by its type;
lines that are not Copilot events are counted as unmapped. A prompt approved without a
``permission.completed`` in the file (older versions, or rules that approve silently) leaves
no decision.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
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
    parse_ts,
    vcon_uuid,
)
from viewer.importers.common import nonempty_str as _s
from viewer.importers.formats import Format, ImportInputError, Sample, json_records
from viewer.jsonenc import loads

#: Record types that only Copilot writes (sniffing).
COPILOT_TYPES: Final = frozenset({
    "session.start", "session.resume", "session.model_change", "session.info",
    "session.shutdown", "session.error", "session.truncation", "user.message",
    "assistant.message", "assistant.turn_start", "assistant.turn_end", "assistant.reasoning",
    "tool.execution_start", "tool.execution_complete", "tool.user_requested", "hook.start",
    "hook.end", "subagent.started", "subagent.completed", "system.message",
    "system.notification",
})
#: Namespaces of Copilot's session events: an unhandled type in one of them is ignored by its
#: type; any other type is unknown and counted as unmapped.
NAMESPACES: Final = (
    "session.", "assistant.", "user.", "system.", "subagent.", "skill.", "hook.", "tool.",
    "permission.", "pending_messages.", "user_input.", "elicitation.", "sampling.", "mcp.",
    "external_tool.", "command.", "commands.", "auto_mode_switch.", "exit_plan_mode.",
    "capabilities.", "canvas.", "extensions.", "factory_run.", "model_call.", "model.", "fusion.",
    "session_limits_exhausted.", "ui.", "binary_asset", "custom_notification", "result",
    # github-copilot-sdk 1.0.27's newer namespaces (``agent.interrupted`` is metadata of an
    # interruption; the ``abort`` event still cancels the calls)
    "agent.", "sandbox.", "human_response.", "tool_search.", "mcp_app.", "workflow.",
    "prompt_cache_break",
)
#: MCP servers every Copilot CLI has: their tools are named "<server>-<tool>".
BUILTIN_MCP: Final = ("github-mcp-server",)

INFER_USER: Final = ("the user declined the permission prompt: Copilot records the call as "
                     "failed with error code \"rejected\" (\"The user rejected this tool call\")")
INFER_HOOK_TEXT: Final = ("a preToolUse hook denied the call: Copilot records it as failed "
                          "with \"Denied by preToolUse hook\"")
INFER_NO_PROMPT: Final = ("no approval rule allowed the call and the user could not be asked "
                          "(non-interactive run): \"Permission denied and could not request "
                          "permission from user\"")
INFER_POLICY: Final = ("Copilot's permission rules denied the call: it is recorded as failed "
                       "with error code \"denied\"")
INFER_RUN_AFTER_GRANT: Final = ("Copilot records tool.execution_start before it asks: the call "
                                "ran once approved, at the time of the approval")
INFER_HOOK_END: Final = "a preToolUse hook answered permissionDecision \"deny\" (hook.end)"
INFER_ASKED: Final = ("Copilot asked for permission (permission.requested) and recorded the "
                      "answer \"{kind}\" (permission.completed): in the draft a prompt is the "
                      "decision permission-required, and the tool-invocation follows when it is "
                      "granted; placed at the prompt's time")
INFER_ANSWER: Final = ("Copilot recorded the answer \"{kind}\" to a permission prompt "
                       "(permission.completed; the prompt itself is not in the file): in the "
                       "draft a prompt is the decision permission-required, and the "
                       "tool-invocation follows when it is granted; placed at the answer's time")
INFER_STANDING: Final = ("the answer \"{kind}\" carries a \"{akind}\" approval: Copilot does "
                         "not ask again for what it covers {until}")
#: Who answered a prompt (permission.completed ``decisionSource``, Copilot CLI >= 1.0.84).
APPROVERS: Final = {
    "human_response": "by the user",
    "assisted_approval": "on the assisted-approval judge's recommendation",
    "host_policy": "by the host's policy",
    "authorization_carry_forward": "by an earlier approval in this session (carried forward)",
}
#: Session approvals that cover every call of one permission kind: recorded as a standing
#: decision for the tool of the call that asked (other tools of that kind are not named).
KIND_APPROVALS: Final = {"read": "every file read", "write": "every file write",
                         "memory": "every memory store"}


@dataclass
class Rec:
    """One parsed line."""

    n: int
    typ: str
    data: dict[str, Any]
    obj: dict[str, Any]
    when: datetime = EPOCH

    @property
    def where(self) -> str:
        return f"line {self.n}"


@dataclass
class Denial:
    """A once decision for one call: a refusal (from a completion, a preToolUse hook or a
    permission result; ``disallowed``), or a recorded approval of a permission prompt
    (``permission-required``: the draft's decision for a prompt that was granted)."""

    rec: Rec
    reason: str | None
    inferred: str
    tool_name: str | None = None  # hooks: the tool they gated
    call_ids: tuple[str, ...] = ()
    args: Any = None
    call: Call | None = None  # the call it governs, once linked
    fallback: str | None = None  # the reason when no text is recorded (a permission result)
    decision: str = "disallowed"
    #: an approval for the session/location: what it covers (``UserToolSessionApproval``)
    approval: dict[str, Any] | None = None
    done: Rec | None = None  # an approval: its permission.completed line

    @property
    def granted(self) -> bool:
        return self.decision != "disallowed"


@dataclass
class Call:
    """One tool call (one toolCallId execution) = one operation."""

    call_id: str
    name: str | None
    args: Any
    party_key: str | None
    mcp_server: str | None = None
    mcp_tool: str | None = None
    ran: bool = False  # an invocation is recorded (start, or the request of a completion)
    ended: bool = False
    refused: bool = False  # its completion records that the host refused it: it never ran
    denial: Denial | None = None  # the decision that refuses it
    decided: bool = False  # its decision is written
    op_id: str | None = None
    invoked_at: tuple[int, Action] | None = None  # (record number, its invoke action)
    #: the user asked for this tool by hand (tool.user_requested, isUserRequested): the host
    #: still invoked it, so it stays on the agent's party (the draft's party of tool events)
    by_user: bool = False


@dataclass
class Action:
    kind: str  # invoke | end | cancel | progress | decision | standalone
    call: Call | None = None
    etype: str = ""
    body: Any = None
    denial: Denial | None = None
    inferred: str | None = None  # an invocation placed at a later recorded time: why


@dataclass
class Session:
    recs: list[Rec] = field(default_factory=list)
    status: dict[int, tuple[str, str]] = field(default_factory=dict)  # n -> (what, detail)
    actions: dict[int, list[Action]] = field(default_factory=dict)
    subagents: dict[str, str] = field(default_factory=dict)
    servers: set[str] = field(default_factory=set)
    info: dict[str, Any] = field(default_factory=dict)

    def act(self, rec: Rec, action: Action) -> None:
        self.actions.setdefault(rec.n, []).append(action)
        if action.kind == "invoke" and action.call is not None:
            action.call.invoked_at = (rec.n, action)

    def mapped(self, rec: Rec) -> None:
        self.status[rec.n] = ("mapped", "")

    def ignored(self, rec: Rec, kind: str | None = None) -> None:
        self.status[rec.n] = ("ignored", kind or rec.typ)

    def fail(self, n: int, why: str) -> None:
        self.status[n] = ("unmapped", why)


# --- reading ------------------------------------------------------------------------------------


def read(data: bytes, report: Report) -> Session:
    """Parse the lines and give every record a time (recorded, else the one before it)."""
    if data[:3] == b"\xef\xbb\xbf":
        data = data[3:]
    ses = Session()
    for i, obj, why in json_records(data):
        if obj is None:
            ses.fail(i, why)
            continue
        typ = obj.get("type")
        if not isinstance(typ, str) or not typ:
            ses.fail(i, "no event type")
            continue
        d = obj.get("data")
        ses.recs.append(Rec(i, typ, d if isinstance(d, dict) else {}, obj))
    if not any(r.typ in COPILOT_TYPES or r.typ.startswith(NAMESPACES) or r.typ == "abort"
               for r in ses.recs):
        raise ImportInputError("no GitHub Copilot CLI session event could be read "
                               "(expected events.jsonl lines of {type, data, id, timestamp})")
    _times(ses.recs, report)
    return ses


def _times(recs: list[Rec], report: Report) -> None:
    parsed: list[datetime | None] = []
    naive = False
    for r in recs:
        t, nv = parse_ts(r.obj.get("timestamp"))
        naive = naive or (nv and t is not None)
        parsed.append(t)
    known = [t for t in parsed if t is not None]
    if not known:
        report.times = "order-only"
        for k, r in enumerate(recs):
            r.when = EPOCH + timedelta(milliseconds=k)
        return
    if len(known) < len(parsed):
        report.times = "partial"
    if naive:
        report.warn("timestamps without a zone offset were read as UTC")
    prev = known[0]
    last: datetime | None = None
    back: list[str] = []
    for r, t in zip(recs, parsed, strict=True):
        if t is not None:
            if last is not None and t < last:
                back.append(r.where)
            prev = last = t
        r.when = prev
    if back:
        more = f" (and {len(back) - 1} more)" if len(back) > 1 else ""
        report.warn(f"{back[0]}{more}: timestamp earlier than the line before it; times are "
                    "kept as recorded, in file order")


def standing_scope(approval: dict[str, Any] | None, call: Call | None,
                   target: Any) -> tuple[str, str | None, str] | None:
    """(server, tool or None for the whole server, what it covers) of a session or location
    approval; None when the draft cannot name it (an approval of some shell commands only:
    the draft's target is a tool, never a command)."""
    if not isinstance(approval, dict):
        return None
    k = approval.get("kind")
    if k == "mcp":
        server, tool = _s(approval.get("serverName")), _s(approval.get("toolName"))
        if server is None:
            return None
        return (server, tool, f"the MCP tool {tool[:100]}" if tool
                else f"every tool of the MCP server {server[:100]}")
    if k == "custom-tool" and _s(approval.get("toolName")):
        server, tool = target(Call("", approval["toolName"], None, None))
        return server, tool, f"the custom tool {tool[:100]}"
    if isinstance(k, str) and k in KIND_APPROVALS and call is not None and call.name:
        server, tool = target(call)
        return server, tool, f"{KIND_APPROVALS[k]} (recorded for the tool that asked)"
    return None


def _host_target(call: Call) -> tuple[str, str]:
    return HOST, call.name or "?"


# --- the walk -----------------------------------------------------------------------------------


def _args(v: Any) -> Any:
    """Arguments as recorded; a JSON text (toolRequests) is read as the value it holds."""
    if isinstance(v, str):
        try:
            return loads(v)
        except orjson.JSONDecodeError:
            return v
    return v


def _error_text(d: dict[str, Any]) -> tuple[str | None, str | None]:
    """(message, code) of a completion's error, else its result text."""
    err = d.get("error")
    if isinstance(err, dict):
        return _s(err.get("message")), _s(err.get("code"))
    if isinstance(err, str):
        return err, None
    res = d.get("result")
    if isinstance(res, dict):
        return _s(res.get("content")), None
    return _s(res), None


def refusal(d: dict[str, Any]) -> tuple[str, str] | None:
    """(reason, rule) when a completion records a call the host refused, else None."""
    if d.get("success") is True:
        return None
    msg, code = _error_text(d)
    res = d.get("result")
    if isinstance(res, dict) and _s(res.get("resultType")) in ("rejected", "denied"):
        code = code or res["resultType"]  # the ToolResult's own verdict, where it is recorded
        msg = msg or _s(res.get("textResultForLlm"))
    text = msg or ""
    low = text.casefold()
    if code == "failure" or (isinstance(res, dict) and res.get("resultType") == "failure"):
        return None  # the tool ran and failed: its message is its own (an MCP server's words)
    if code == "rejected" or low.startswith("the user rejected this tool call"):
        return text or "rejected", INFER_USER
    if low.startswith("denied by pretooluse hook"):
        return text, INFER_HOOK_TEXT
    if low.startswith("permission denied and could not request permission from user"):
        return text, INFER_NO_PROMPT
    if code == "denied" or low.startswith("denied by "):
        return text or "denied", INFER_POLICY
    return None


#: How Copilot's shell tools end the text of a command's result (``<exited with exit code N>``;
#: 1.0.x of 2026: ``<shellId: S completed with exit code N>``); the completion still says
#: ``success: true`` when the command exited non-zero (the tool ran; the command failed).
EXIT_MARK: Final = re.compile(
    r"<(?:exited|shellId: [^<>\n]{0,40}? completed) with exit code (-?\d+)>\s*\Z")
INFER_EXIT: Final = ("success true, but the command's result ends '<... with exit code {code}>'"
                     ": the tool ran and the command failed")
INFER_EXIT_CODE: Final = ("success true, but the completion's {field} says exitCode {code}: the "
                          "tool ran and the command failed")
#: Result ``contents`` blocks that carry a shell command's ``exitCode`` (the session event
#: schema: ``shell_exit``, and the deprecated ``terminal`` it replaces).
EXIT_BLOCKS: Final = frozenset({"shell_exit", "terminal"})


def structured_exit(d: dict[str, Any]) -> tuple[int, str] | None:
    """(exit code, where) that a completion records as a field: ``shellExecution.exitCode``
    ("reported by the shell driver", kept when the result's contents are stripped), else the
    last ``shell_exit`` / ``terminal`` block of the result's ``contents``; None: neither."""
    ex = d.get("shellExecution")
    if isinstance(ex, dict) and type(ex.get("exitCode")) is int:
        return ex["exitCode"], "shellExecution"
    res = d.get("result")
    blocks = res.get("contents") if isinstance(res, dict) else None
    codes = [(b["exitCode"], f"{b['type']} content") for b in blocks
             if isinstance(b, dict) and b.get("type") in EXIT_BLOCKS
             and type(b.get("exitCode")) is int] if isinstance(blocks, list) else []
    return codes[-1] if codes else None


def exit_code(d: dict[str, Any]) -> int | None:
    """The exit code a shell result records: its structured field, else the mark its text
    ends with (None: neither)."""
    found = structured_exit(d)
    if found is not None:
        return found[0]
    res = d.get("result")
    if not isinstance(res, dict):
        return None
    for k in ("content", "detailedContent", "textResultForLlm"):
        m = EXIT_MARK.search(res[k][-200:]) if isinstance(res.get(k), str) else None
        if m is not None:
            return int(m.group(1))
    return None


def outcome(d: dict[str, Any]) -> str | None:
    """The end event of a completion that is not a refusal (None: it does not say)."""
    if d.get("success") is True:
        return "tool-result" if exit_code(d) in (None, 0) else "tool-failure"
    err = d.get("error")
    if d.get("success") is False or err is not None:
        code = err.get("code") if isinstance(err, dict) else None
        return "tool-failure" if d.get("result") is not None or code == "failure" \
            else "tool-error"
    return None


def _end_body(cid: str, d: dict[str, Any]) -> dict[str, Any]:
    body: dict[str, Any] = {"toolCallId": cid}
    for k in ("result", "error"):
        if d.get(k) is not None:
            body[k] = d[k]
    return body


def _party_key(rec: Rec, req: dict[str, Any] | None = None) -> str | None:
    for src in (req or {}, rec.data, rec.obj):
        for k in ("parentToolCallId", "agentId"):
            if _s(src.get(k)):
                return src[k]
    return None


def _refused_at_prompt(call: Call) -> bool:
    """Started before the prompt (Copilot writes the start before it asks) and refused at it
    (a recorded ``denied-…`` answer): the call is not running."""
    den = call.denial
    return den is not None and den.fallback is not None and not den.granted \
        and call.invoked_at is not None and call.invoked_at[0] < den.rec.n


class Walker:
    """Pass 1: pair starts, completions, requests, hooks and aborts by toolCallId, decide
    what each line becomes, and which line writes which event (pass 2 writes them in order)."""

    def __init__(self, ses: Session) -> None:
        self.ses = ses
        self.open: dict[str, Call] = {}  # started, not ended
        self.cancelled: dict[str, Call] = {}  # cancelled by abort, completion not seen yet
        self.requests: dict[str, tuple[Rec, dict[str, Any]]] = {}  # requested, not started
        self.hooks: dict[str, dict[str, Any]] = {}  # hookInvocationId -> hook.start input
        self.pending: list[Denial] = []  # hook/permission denials not linked to a call yet
        self.perm_requests: dict[str, tuple[Rec, dict[str, Any]]] = {}
        self.grants: list[Denial] = []  # recorded approvals (linked to their call by id)
        self.calls: dict[str, Call] = {}  # the latest call of each toolCallId
        self.user_requests: dict[str, Rec] = {}  # tool.user_requested, by toolCallId
        self.twice: list[str] = []  # lines starting a call id that is still running

    @property
    def warnings(self) -> list[str]:
        if not self.twice:
            return []
        more = f" (and {len(self.twice) - 1} more)" if len(self.twice) > 1 else ""
        return [f"{self.twice[0]}{more}: a tool call id started twice before it completed: "
                "the second start is a new operation"]

    def run(self) -> None:
        for r in self.ses.recs:
            handler = getattr(self, "on_" + r.typ.replace(".", "_"), None)
            if handler is not None and r.typ in HANDLED:
                handler(r)
            elif r.typ.startswith(NAMESPACES) or r.typ == "abort":
                self.ses.ignored(r)
            else:
                self.ses.fail(r.n, "unknown event type")
        for den in self.pending:  # a denial whose call never showed up: its own operation
            if den.call is None:
                req = next((self.requests[c] for c in den.call_ids if c in self.requests),
                           None)
                if req is not None:  # the model's request names the refused call
                    req_rec, body = req
                    call = Call(body["toolCallId"], _s(body.get("name")),
                                _args(body.get("arguments")), _party_key(req_rec, body))
                    call.refused, call.denial, den.call = True, den, call
                    self.calls[call.call_id] = call
                    self.ses.mapped(req_rec)
                elif den.tool_name is None:
                    self.ses.fail(den.rec.n, "a preToolUse denial that names no tool"
                                  if den.fallback is None else
                                  "a permission denial whose tool call is not recorded")
                else:
                    self.ses.act(den.rec, Action("standalone", denial=den))
        for call in self.open.values():
            if _refused_at_prompt(call):  # and no completion recorded: it never ran
                call.refused = True
        for g in self.grants:  # an approval whose call never ran: no once decision
            if g.call is None and g.done is not None:
                if g.rec is not g.done:
                    self.ses.ignored(g.rec)
                if standing_scope(g.approval, None, _host_target) is None:
                    self.ses.ignored(g.done, f"permission.completed ({g.fallback}, no tool call "
                                             "recorded)")

    # -- linking denials ----------------------------------------------------------------------
    def _link(self, call: Call) -> None:
        self.calls[call.call_id] = call
        for g in self.grants:
            if g.call is None and call.call_id in g.call_ids:
                g.call = call
        for den in self.pending:
            if den.call is not None:
                continue
            if call.call_id in den.call_ids or (not den.call_ids and den.tool_name == call.name):
                den.call = call
                if call.denial is None:
                    call.denial = den
                return

    # -- tool events ---------------------------------------------------------------------------
    def on_tool_execution_start(self, r: Rec) -> None:
        d = r.data
        cid, name = _s(d.get("toolCallId")), _s(d.get("toolName"))
        if cid is None or name is None:
            self.ses.fail(r.n, "tool.execution_start without toolCallId and toolName")
            return
        if cid in self.open:
            self.twice.append(r.where)
        call = Call(cid, name, _args(d.get("arguments")), _party_key(r),
                    _s(d.get("mcpServerName")), _s(d.get("mcpToolName")), ran=True)
        asked = self.user_requests.pop(cid, None)
        if asked is not None:
            call.by_user = True
            self.ses.mapped(asked)  # it names who asked for the call
        self.requests.pop(cid, None)
        self.cancelled.pop(cid, None)
        self.open[cid] = call
        self._link(call)
        self.ses.act(r, Action("invoke", call))
        self.ses.mapped(r)

    def on_tool_execution_complete(self, r: Rec) -> None:
        d = r.data
        cid = _s(d.get("toolCallId"))
        if cid is None:
            self.ses.fail(r.n, "tool.execution_complete without toolCallId")
            return
        refused = refusal(d)
        end = None if refused else outcome(d)
        if refused is None and end is None:
            self.ses.fail(r.n, "tool.execution_complete says neither success nor error")
            return
        call = self.open.pop(cid, None) or self.cancelled.pop(cid, None)
        if call is None and cid in self.requests:
            req_rec, req = self.requests.pop(cid)
            call = Call(cid, _s(req.get("name")), _args(req.get("arguments")),
                        _party_key(req_rec, req))
            call.by_user = self.user_requests.pop(cid, None) is not None
            self._link(call)
            self.ses.mapped(req_rec)  # the request names the call (and is its invocation)
            if refused is None:
                call.ran = True
                self.ses.act(req_rec, Action("invoke", call))
        if call is None and refused is not None:
            call = self._call_for_refusal(cid, r)
        if call is None:
            self.ses.fail(r.n, "completes a tool call whose start is not recorded")
            return
        call.ended = True
        call.by_user = call.by_user or d.get("isUserRequested") is True
        self.ses.mapped(r)
        if refused is not None:
            call.refused = True
            den = Denial(r, refused[0], refused[1])
            if call.denial is None:
                call.denial = den
            elif call.denial.reason is None:
                call.denial.reason = refused[0]
            self.ses.act(r, Action("decision", call, denial=call.denial))
            return
        code = exit_code(d) if d.get("success") is True else None
        found = structured_exit(d)
        why = None if not code else INFER_EXIT.format(code=code) if found is None else \
            INFER_EXIT_CODE.format(field=found[1], code=code)
        self.ses.act(r, Action("end", call, etype=end or "", body=_end_body(cid, d),
                               inferred=why))

    def _call_for_refusal(self, cid: str, r: Rec) -> Call | None:
        """A refused call with no start and no request: named by a hook that gated it, or by
        the completion's telemetry."""
        for den in self.pending:
            if den.call is None and cid in den.call_ids and den.tool_name:
                call = Call(cid, den.tool_name, den.args, _party_key(r))
                self._link(call)
                return call
        tele = r.data.get("toolTelemetry")
        props = tele.get("properties") if isinstance(tele, dict) else None
        name = _s(r.data.get("toolName")) or (
            _s(props.get("tool")) if isinstance(props, dict) else None)
        return Call(cid, name, None, _party_key(r)) if name else None

    def _progress(self, r: Rec, key: str) -> None:
        cid = _s(r.data.get("toolCallId"))
        call = self.open.get(cid) if cid else None
        if call is None:
            self.ses.fail(r.n, f"{r.typ} for no running tool call")
            return
        body = {"toolCallId": cid, key: r.data.get(key)}
        self.ses.act(r, Action("progress", call, body=body))
        self.ses.mapped(r)

    def on_tool_execution_progress(self, r: Rec) -> None:
        self._progress(r, "progressMessage")

    def on_tool_execution_partial_result(self, r: Rec) -> None:
        self._progress(r, "partialOutput")

    def on_abort(self, r: Rec) -> None:
        running = [c for c in self.open.values() if c.ran and not _refused_at_prompt(c)]
        if not running:
            self.ses.ignored(r, "abort (no call running)")
            return
        reason = r.data.get("reason")
        body = {"reason": reason} if reason is not None else None
        for call in running:
            self.ses.act(r, Action("cancel", call, body=body))
            self.cancelled[call.call_id] = call
        self.open.clear()
        self.ses.mapped(r)

    # -- what names calls ----------------------------------------------------------------------
    def on_assistant_message(self, r: Rec) -> None:
        reqs = r.data.get("toolRequests")
        for req in reqs if isinstance(reqs, list) else []:
            if isinstance(req, dict) and _s(req.get("toolCallId")) and _s(req.get("name")):
                self.requests[req["toolCallId"]] = (r, req)
        self.ses.ignored(r)  # becomes mapped when a request is the invocation of a call

    def on_tool_user_requested(self, r: Rec) -> None:
        """The user asked for a tool by hand: its call is invoked by the host as any other
        (its request, when no start is recorded)."""
        cid, name = _s(r.data.get("toolCallId")), _s(r.data.get("toolName"))
        if cid is None or name is None:
            self.ses.ignored(r)
            return
        self.user_requests[cid] = r
        self.requests[cid] = (r, {"toolCallId": cid, "name": name,
                                  "arguments": r.data.get("arguments")})
        self.ses.ignored(r)  # becomes mapped when its call is recorded

    def on_subagent_started(self, r: Rec) -> None:
        cid = _s(r.data.get("toolCallId"))
        name = _s(r.data.get("agentDisplayName")) or _s(r.data.get("agentName"))
        agent = _s(r.obj.get("agentId"))
        for key in (cid, agent):
            if key and name:
                self.ses.subagents[key] = name
        self.ses.ignored(r)

    def on_session_start(self, r: Rec) -> None:
        for k in ("sessionId", "copilotVersion", "producer"):
            if _s(r.data.get(k)) and k not in self.ses.info:
                self.ses.info[k] = r.data[k]
        self.ses.ignored(r)

    def on_session_mcp_servers_loaded(self, r: Rec) -> None:
        servers = r.data.get("servers")
        for s in servers if isinstance(servers, list) else []:
            name = _s(s) or (_s(s.get("name")) or _s(s.get("serverName"))
                             if isinstance(s, dict) else None)
            if name:
                self.ses.servers.add(name)
        self.ses.ignored(r)

    # -- hooks and permission results ----------------------------------------------------------
    def on_hook_start(self, r: Rec) -> None:
        hid = _s(r.data.get("hookInvocationId"))
        inp = r.data.get("input")
        if hid and isinstance(inp, dict):
            self.hooks[hid] = inp
        self.ses.ignored(r)

    def on_hook_end(self, r: Rec) -> None:
        d = r.data
        out = d.get("output")
        kind = _s(d.get("hookType")) or ""
        deny = isinstance(out, dict) and (
            out.get("permissionDecision") == "deny" or out.get("decision") in ("deny", "block"))
        if kind.casefold() != "pretooluse" or not deny or not isinstance(out, dict):
            self.ses.ignored(r)
            return
        reason = _s(out.get("permissionDecisionReason")) or _s(out.get("reason"))
        inp = self.hooks.get(_s(d.get("hookInvocationId")) or "", {})
        name, args, ids = _s(inp.get("toolName")), inp.get("toolArgs"), []
        if _s(inp.get("toolCallId")):
            ids.append(inp["toolCallId"])
        calls = inp.get("toolCalls")
        for c in calls if isinstance(calls, list) else []:
            if isinstance(c, dict) and _s(c.get("id")):
                ids.append(c["id"])
                name = name or _s(c.get("name"))
                args = args if args is not None else _args(c.get("args"))
        den = Denial(r, reason, INFER_HOOK_END, name, tuple(ids), args)
        running = [c for c in self.open.values() if c.denial is None and (
            c.call_id in ids if ids else c.name == name)]
        if running:  # the hook ran after the call's start: it gates that call
            den.call, running[-1].denial = running[-1], den
        else:
            self.pending.append(den)
        self.ses.act(r, Action("decision", denial=den))
        self.ses.mapped(r)

    def on_permission_requested(self, r: Rec) -> None:
        rid = _s(r.data.get("requestId"))
        pr = r.data.get("permissionRequest")
        if rid and isinstance(pr, dict):
            self.perm_requests[rid] = (r, pr)
            if pr.get("kind") == "mcp" and _s(pr.get("serverName")):
                self.ses.servers.add(pr["serverName"])
        self.ses.ignored(r)

    def on_permission_completed(self, r: Rec) -> None:
        res = r.data.get("result")
        kind = _s(res.get("kind")) if isinstance(res, dict) else None
        asked, pr = self.perm_requests.get(_s(r.data.get("requestId")) or "", (None, {}))
        cid = _s(pr.get("toolCallId")) or _s(r.data.get("toolCallId"))
        if kind and kind.startswith("approved") and cid is not None and isinstance(res, dict):
            self._approved(r, asked, pr, res, kind, cid)
            return
        if not kind or not kind.startswith("denied") or cid is None:
            # an approval that names no tool call, a cancelled prompt: no decision to write
            self.ses.ignored(r, f"permission.completed ({kind or '?'})")
            return
        msg = _s(res.get("message")) if isinstance(res, dict) else None
        den = Denial(r, msg, f"the permission request ended \"{kind}\" (permission.completed)",
                     _s(pr.get("toolName")), (cid,), pr.get("args"), fallback=kind)
        call = self.open.get(cid)
        if call is not None and call.denial is None:
            den.call, call.denial = call, den
        else:
            self.pending.append(den)
        self.ses.act(r, Action("decision", denial=den))
        self.ses.mapped(r)

    def _approved(self, r: Rec, asked: Rec | None, pr: dict[str, Any], res: dict[str, Any],
                  kind: str, cid: str) -> None:
        """A recorded approval: the call's once ``permission-required`` decision, at the
        prompt's time (else the answer's); an approval for the session or the location is
        also a standing ``allowed`` decision from the answer's time on, for what it covers."""
        at = asked or r
        src = _s(r.data.get("decisionSource"))
        who = (APPROVERS.get(src or "") or
               ("by a permissionRequest hook" if asked is not None
                and asked.data.get("resolvedByHook") is True else "at the permission prompt"))
        scope = ""
        if kind == "approved-for-session":
            scope = " for the rest of the session"
        elif kind == "approved-for-location":
            loc = _s(res.get("locationKey"))
            scope = " for this location" + (f" ({loc[:200]})" if loc else "")
        reason = f"approved {who}{scope} ({kind[:60]})"
        rule = (INFER_ASKED if asked is not None else INFER_ANSWER).format(kind=kind[:60])
        approval = res.get("approval") if kind != "approved" else None
        grant = Denial(at, reason, rule, _s(pr.get("toolName")), (cid,), pr.get("args"),
                       fallback=kind[:60], decision="permission-required",
                       approval=approval if isinstance(approval, dict) else None, done=r)
        call = self.calls.get(cid)
        grant.call = call
        self._run_after_grant(call, r)
        self.grants.append(grant)
        self.ses.act(at, Action("decision", denial=grant))
        if grant.approval is not None:
            self.ses.act(r, Action("standing", denial=grant))
        self.ses.mapped(r)
        self.ses.mapped(at)

    def _run_after_grant(self, call: Call | None, done: Rec) -> None:
        """Copilot writes ``tool.execution_start`` before it asks: a call approved after its
        start ran once it was approved. Its invocation is placed at the approval's recorded
        time (the event's ``inferred`` says so), not before the decision that let it run."""
        if call is None or call.invoked_at is None or call.invoked_at[0] >= done.n:
            return
        n, action = call.invoked_at
        self.ses.actions[n].remove(action)
        action.inferred = INFER_RUN_AFTER_GRANT
        self.ses.act(done, action)


#: Types with a handler (others in Copilot's namespaces are ignored by type).
HANDLED: Final = frozenset({
    "tool.execution_start", "tool.execution_complete", "tool.execution_progress",
    "tool.execution_partial_result", "abort", "assistant.message", "subagent.started",
    "tool.user_requested",
    "session.start", "session.mcp_servers_loaded", "hook.start", "hook.end",
    "permission.requested", "permission.completed",
})


# --- writing ------------------------------------------------------------------------------------


class Writer:
    """Pass 2: the events, in file order."""

    def __init__(self, ses: Session) -> None:
        self.ses = ses
        self.ev = Events(party=0)
        self.parties: list[dict[str, Any]] = [{"name": "GitHub Copilot CLI", "role": "agent"}]
        self.party_of: dict[str, int] = {}
        self.dialogs = Dialogs(self.parties)
        self.prefixes = sorted({*self.ses.servers, *BUILTIN_MCP}, key=len, reverse=True)

    def target(self, call: Call) -> tuple[str, str]:
        name = call.name or "?"
        if call.mcp_server:
            tool = call.mcp_tool or name.removeprefix(call.mcp_server + "-") or name
            return call.mcp_server, tool
        for s in self.prefixes:
            if name.startswith(s + "-") and len(name) > len(s) + 1:
                return s, name[len(s) + 1:]
        return HOST, name

    def party(self, call: Call) -> int:
        return self.party_for(call.party_key)

    def party_for(self, key: str | None) -> int:
        if key is None:
            return 0
        if key not in self.party_of:
            self.party_of[key] = len(self.parties)
            name = self.ses.subagents.get(key) or "Copilot sub-agent"
            self.parties.append({"name": name, "role": "agent",
                                 "meta": {"copilot_parent_tool_call_id": key}})
        return self.party_of[key]

    def op(self, call: Call) -> str:
        if call.op_id is None:
            call.op_id = self.ev.new_operation()
        return call.op_id

    def write(self) -> None:
        recs = {r.n: r for r in self.ses.recs}
        for n in sorted(self.ses.actions):
            r = recs[n]
            for a in self.ses.actions[n]:
                self.one(r, a)

    def conversation(self) -> None:
        """user.message / assistant.message content as text dialogs (a sub-agent's messages:
        its party, to the agent that started it); a line with a turn counts as mapped."""
        for r in self.ses.recs:
            if r.typ not in ("user.message", "assistant.message"):
                continue
            text = r.data.get("content")
            if not isinstance(text, str) or not text.strip():
                continue
            if self.ses.status.get(r.n, ("", ""))[0] == "unmapped":
                continue
            key = _party_key(r)
            party = self.party_for(key)
            if r.typ == "user.message":
                ok = self.dialogs.said(r.when, text, r.where, party)
            else:
                ok = self.dialogs.replied(r.when, text, r.where, party,
                                          None if party == 0 else 0)
            if ok:
                self.ses.mapped(r)

    def one(self, r: Rec, a: Action) -> None:
        call = a.call
        if a.kind in ("decision", "standalone"):
            den = a.denial
            if den is None:
                return
            if a.kind == "standalone":
                call = Call("", den.tool_name, den.args, None)
            else:
                call = call or den.call
            if call is None or call.decided:
                return
            if den.granted and (call.refused or call.denial is not None):
                return  # a refusal of the same call is recorded: it is the decision
            call.decided = True
            server, tool = self.target(call)
            self.ev.add("policy-decision", r.when, self.op(call), 1, r.where, server=server,
                        tool=tool, party=self.party(call), decision=den.decision,
                        policy_life="once", operation="tool-invocation",
                        **({"reason": den.reason or den.fallback}
                           if den.reason or den.fallback else {}),
                        inferred=den.inferred)
            # what was asked, for the decision should the call never run (Events.asked)
            if call.args is not None:
                asked = self.body(call, tool)
                if not call.call_id:  # a hook's denial that names no call id
                    del asked["toolCallId"]
                self.ev.asked(self.op(call), 1, asked)
            return
        if a.kind == "standing":
            self.standing(r, a.denial)
            return
        if call is None:
            return
        if call.refused:
            return  # the host refused it: it never ran, its decision says so
        if a.kind == "invoke":
            server, tool = self.target(call)
            self.ev.add("tool-invocation", r.when, self.op(call), 1, r.where,
                        body=self.body(call, tool),
                        server=server, tool=tool, party=self.party(call),
                        **({"inferred": a.inferred} if a.inferred else {}))
            return
        etype = {"end": a.etype, "cancel": "tool-cancel", "progress": "tool-progress"}[a.kind]
        self.ev.add(etype, r.when, self.op(call), 1, r.where, body=a.body,
                    party=self.party(call),
                    **({"inferred": a.inferred} if a.inferred else {}))


    @staticmethod
    def body(call: Call, tool: str) -> dict[str, Any]:
        """The invocation's content: the call id, its arguments, the name Copilot gave."""
        body: dict[str, Any] = {"toolCallId": call.call_id}
        if call.args is not None:
            body["arguments"] = call.args
        if call.name and call.name != tool:
            body["toolName"] = call.name
        if call.by_user:
            body["isUserRequested"] = True
        return body

    def standing(self, r: Rec, grant: Denial | None) -> None:
        """A session or location approval: standing ``allowed`` from the answer's time on."""
        if grant is None or grant.approval is None:
            return
        scope = standing_scope(grant.approval, grant.call, self.target)
        if scope is None:
            return
        server, tool, what = scope
        kind = grant.fallback or "approved"
        until = ("in this location (Copilot keeps it for later sessions there too)"
                 if kind == "approved-for-location" else "for the rest of the session")
        akind = str(grant.approval.get("kind"))[:40]
        ev = self.ev.add("policy-decision", r.when, "", 1, r.where, attempt_field=False,
                         server=server, tool=tool,
                         party=self.party(grant.call) if grant.call else 0,
                         decision="allowed", policy_life="standing",
                         operation="tool-invocation", reason=f"{grant.reason}: {what}",
                         inferred=INFER_STANDING.format(kind=kind, akind=akind, until=until))
        del ev["operation_id"]


def convert(data: bytes, *, source_name: str = "-",
            created: str | None = None) -> tuple[dict[str, Any], Report]:
    """A Copilot CLI events.jsonl's bytes -> (a tool-invocation vCon, the import report)."""
    report = Report()
    ses = read(data, report)
    walker = Walker(ses)
    walker.run()
    for w in walker.warnings:
        report.warn(w)
    for n, acts in ses.actions.items():  # an abort whose every cancel is of a refused call
        if acts and all(a.kind == "cancel" and a.call and a.call.refused for a in acts):
            ses.status[n] = ("ignored", "abort (no call running)")
    writer = Writer(ses)
    writer.write()
    writer.conversation()
    report.tally(ses.status)
    if writer.ev.operations == 0:
        report.warn("the session has no tool execution: the vCon has no operations")
    info = ses.info
    if info:
        writer.parties[0]["meta"] = {f"copilot_{k}": v for k, v in info.items()}
    start = ses.recs[0].when if ses.recs else None
    sid = info.get("sessionId")
    provenance = {
        "tool": "vcon-view import copilot",
        "source": {"file": source_name, "sha256": hashlib.sha256(data).hexdigest(),
                   "format": "copilot-cli events.jsonl", "lines": len(ses.status)},
        "mapping": "GitHub Copilot CLI session events -> draft-petrie-vcon-tool-invocation "
                   "(one toolCallId = one operation, attempt 1)",
        **report.as_dict(),
    }
    vcon = assemble(
        uid=vcon_uuid(data),
        subject=f"GitHub Copilot CLI session {sid[:80]}" if isinstance(sid, str)
        else f"GitHub Copilot CLI session imported from {source_name}",
        parties=writer.parties,
        events=writer.ev,
        start=start,
        provenance=provenance,
        created=created,
        dialogs=writer.dialogs,
    )
    return vcon, report


def sniff(smp: Sample) -> bool:
    """Copilot's event envelope: records of {type, data} whose types are Copilot's."""
    if smp.is_doc and not isinstance(smp.doc, dict):
        return False
    recs = smp.records()
    if not recs or any("vcon" in r for r in recs[:1]):
        return False
    env = [r for r in recs if isinstance(r.get("type"), str) and isinstance(r.get("data"), dict)
           and ("id" in r or "timestamp" in r or "parentId" in r
                # `copilot -p --output-format json` excerpts: tool events without the envelope
                or (r["type"].startswith("tool.execution_") and "toolCallId" in r["data"]))]
    return any(r["type"] in COPILOT_TYPES for r in env) and len(env) * 2 > len(recs)


FORMAT = Format(
    name="copilot",
    title="GitHub Copilot CLI session",
    unit="lines",
    sniff=sniff,
    convert=convert,
    help="a GitHub Copilot CLI session (~/.copilot/session-state/<id>/events.jsonl)",
)
