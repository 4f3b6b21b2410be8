"""Conformance diagnostics for tool-lifecycle Event Objects and the top-level vCon.

Every applicability cell comes from ``spec.py``: this module turns each column of the draft's
tables into a plan (which parameters are M, S, X) once, at import time, and checks each event
against its plan in one pass. The builder calls ``check_event`` for every event and
``check_vcon`` once; both append ``Diagnostic`` objects to a list they are given.

Decisions the draft leaves open (documented here and in the README):

* ``policy-decision`` without a usable ``policy_life``: checked against the cells on which the
  "once" and "standing" columns agree; the cells that differ (``operation_id``, ``attempt``,
  ``tool``) are not enforced for presence.
* ``policy-decision`` whose ``operation`` is not "tool-invocation": a warning (the draft's other
  operations are a TODO), and ``server``/``tool`` are not enforced for presence, because the table
  applies to the "tool-invocation" operation only.
* A top-level ``redacted`` that is null, ``{}`` or ``[]`` does not make the vCon redacted (core:
  objects with no values may be left out, so an empty one means the same as none).
* A missing ``created_at`` is reported as ``missing-required`` with severity *warning*
  (the core draft's own examples lack it).
"""

from __future__ import annotations

import re
from typing import Any, Final, NamedTuple

import msgspec

from viewer.model import spec
from viewer.model.times import parse_time
from viewer.model.types import Diagnostic, EventArray, Severity
from viewer.textsafe import safe

# --- helpers -----------------------------------------------------------------------------------

_MAX_UINT: Final = spec.MAX_UINT


def pointer(*parts: str | int) -> str:
    """RFC 6901 JSON Pointer from reference tokens ("~" -> "~0", "/" -> "~1")."""
    return "".join(
        "/" + (str(p) if isinstance(p, int) else p.replace("~", "~0").replace("/", "~1"))
        for p in parts
    )


def _show(value: Any, limit: int = 60) -> str:
    """A short, neutralised rendering of a recorded value for a message."""
    if isinstance(value, str):
        text = safe(value[: limit + 1])
        text = f'"{text}"'
    elif isinstance(value, (dict, list)):
        text = _json_type(value)
    else:
        text = safe(value)
    return text if len(text) <= limit + 2 else text[:limit] + "…"


#: A JSON value's type in a message's words, the first that holds (a bool is also an int).
_JSON_TYPES: Final = ((bool, "a boolean"), (int, "an integer"), (float, "a number"),
                      (str, "a string"), (list, "an array"), (dict, "an object"))


def _json_type(value: Any) -> str:
    for kind, words in _JSON_TYPES:
        if isinstance(value, kind):
            return words
    return "null" if value is None else type(value).__name__


def _diag(out: list[Diagnostic], code: str, severity: Severity, ptr: str, msg: str) -> None:
    out.append(Diagnostic(code, severity, ptr, msg))


# --- plans: the draft's columns, read once from spec.py -----------------------------------------

#: Parameters with a value check (policy_life is checked while choosing the column).
_VALUE_PARAMS: Final = (
    "operation_id", "attempt", "party", "decision", "operation", "server", "tool", "reason",
    "attachment",
)
_SESSIONS: Final = "sessions"
_CONTENT: Final = "content"
_BUILDER_PARAMS: Final = frozenset({"type", "time"})  # type: checked first; time: the builder's
_SECTION_POLICY: Final = "draft §Policy Decision Event Parameters"
_SECTION_TOOL: Final = "draft §Tool Event Parameters"


class _Plan(NamedTuple):
    """One column of an applicability table, split the way the checker consumes it."""

    type: str
    section: str
    required: frozenset[str]  # plain M parameters (not type/time/sessions/content)
    required_list: tuple[str, ...]  # same, in table order, for stable diagnostics
    forbidden: frozenset[str]  # plain X parameters
    forbidden_list: tuple[str, ...]
    recommended: tuple[str, ...]  # plain S parameters
    sessions: spec.Cell
    content: spec.Cell
    checked: tuple[str, ...]  # parameters whose value is checked (all but the X ones)


def _plan(event_type: str, column: dict[str, spec.Cell], section: str) -> _Plan:
    plain = [(p, c) for p, c in column.items() if p not in _BUILDER_PARAMS
             and p not in (_SESSIONS, _CONTENT)]
    req = tuple(p for p, c in plain if c == "M")
    forb = tuple(p for p, c in plain if c == "X")
    return _Plan(
        type=event_type,
        section=section,
        required=frozenset(req),
        required_list=req,
        forbidden=frozenset(forb),
        forbidden_list=forb,
        recommended=tuple(p for p, c in plain if c == "S"),
        sessions=column.get(_SESSIONS, "O"),
        content=column.get(_CONTENT, "O"),
        checked=tuple(p for p in _VALUE_PARAMS if column.get(p, "O") != "X"),
    )


def _agreed(a: dict[str, spec.Cell], b: dict[str, spec.Cell]) -> dict[str, spec.Cell]:
    """The cells on which two columns agree; where they differ the parameter is optional."""
    return {p: (c if b.get(p) == c else "O") for p, c in a.items()}


def _drop_target(column: dict[str, spec.Cell]) -> dict[str, spec.Cell]:
    """Server and tool identify a tool only for the "tool-invocation" operation."""
    return {p: ("O" if p in ("server", "tool") and c == "M" else c) for p, c in column.items()}


_TOOL_PLANS: Final[dict[str, _Plan]] = {
    t: _plan(t, col, _SECTION_TOOL) for t, col in spec.TOOL_EVENT_PARAMS.items()
}
_POLICY_COLUMNS: Final = {
    **spec.POLICY_DECISION_PARAMS,
    None: _agreed(*(spec.POLICY_DECISION_PARAMS[life] for life in spec.POLICY_LIVES)),
}
#: (policy_life or None, operation known?) -> plan
_POLICY_PLANS: Final[dict[tuple[str | None, bool], _Plan]] = {
    (life, known): _plan(
        spec.POLICY_DECISION, col if known else _drop_target(col), _SECTION_POLICY
    )
    for life, col in _POLICY_COLUMNS.items()
    for known in (True, False)
}

_CONTENT_KEYS: Final = frozenset(spec.CONTENT_PARAMS)
_DECISIONS: Final = frozenset(spec.DECISIONS)
_POLICY_LIVES: Final = frozenset(spec.POLICY_LIVES)
_OPERATIONS: Final = frozenset(spec.OPERATIONS)
_ENCODINGS: Final = frozenset(spec.ENCODINGS)

# base64url (RFC 4648 §5), padding optional; content_hash tokens (core-03 ContentHash).
_B64URL_RE: Final = re.compile(r"[A-Za-z0-9_-]*")
_HASH_RE: Final = re.compile(r"([a-z0-9]+)-([A-Za-z0-9_-]+)(={0,2})")
#: digest lengths in bytes of the algorithms vcon-view knows; sha512 is the one core-03 requires.
_DIGEST_BYTES: Final = {"sha512": 64, "sha384": 48, "sha256": 32}
_REQUIRED_HASH: Final = "sha512"


def _b64url_ok(s: str) -> bool:
    """base64url with optional padding, of a length that decodes to whole bytes."""
    stripped = s.rstrip("=")
    pad = len(s) - len(stripped)
    if pad > 2 or _B64URL_RE.fullmatch(stripped) is None:
        return False
    rem = len(stripped) % 4
    if rem == 1:
        return False
    return pad == 0 or (len(s) % 4 == 0 and pad == (4 - rem) % 4)


def _b64url_len(n_bytes: int) -> int:
    """Unpadded base64url length of n_bytes bytes."""
    return (n_bytes * 4 + 2) // 3


# --- context ------------------------------------------------------------------------------------


def _present(value: Any) -> bool:
    """Present and not empty: null, {} and [] mean the same as absent (core: may be left out)."""
    return value is not None and value != {} and value != []


class Ctx(msgspec.Struct, frozen=True):
    """What event checks need from the rest of the vCon, computed once per vCon."""

    n_parties: int | None  # None: parties absent or not a list (top-level check reports it)
    n_sessions: int | None  # None: sessions not a list (structure error); absent -> 0
    attachments: list[Any] | None  # None: not a list (structure error); absent -> []
    redacted: bool  # a non-empty top-level `redacted`: a missing S parameter is no warning

    @classmethod
    def of(cls, vcon: dict) -> Ctx:
        parties = vcon.get("parties")
        sessions = vcon.get("sessions")
        if sessions is None:
            sessions = vcon.get("session")  # legacy top-level name (reported by check_vcon)
        attachments = vcon.get("attachments")
        if attachments is None:
            attachments = []
        return cls(
            n_parties=len(parties) if isinstance(parties, list) else None,
            n_sessions=0 if sessions is None else (
                len(sessions) if isinstance(sessions, list) else None
            ),
            attachments=attachments if isinstance(attachments, list) else None,
            redacted=_present(vcon.get("redacted")),
        )


# --- event checks --------------------------------------------------------------------------------


def check_event(index: int, ev: Any, ctx: Ctx, out: list[Diagnostic]) -> None:
    """Diagnostics for ``events[index]``, appended to ``out``.

    Only tool-lifecycle events are checked against the draft; other types are context and only a
    malformed object or ``type`` is reported. ``time`` is the builder's (it parses it anyway).
    """
    if type(ev) is not dict:
        _diag(out, "invalid-type", "error", f"/events/{index}",
              f"event: must be a JSON object, found {_json_type(ev)} (core §Event Object)")
        return
    etype = ev.get("type")
    if type(etype) is not str:
        base = f"/events/{index}"
        if etype is None:
            _diag(out, "missing-required", "error", base,
                  "event: type MUST be present (core §Event Object type)")
        else:
            _diag(out, "invalid-type", "error", base + "/type",
                  f"event: type must be a string, found {_json_type(etype)} (core §Event Object)")
        return
    if etype not in _TOOL_PLANS and etype != spec.POLICY_DECISION:
        return  # context event: nothing more is ours to check
    _full_check(index, ev, etype, ctx, out)


def _full_check(index: int, ev: dict[str, Any], etype: str, ctx: Ctx,
                out: list[Diagnostic]) -> None:
    """The complete check of a lifecycle event, which says what is off (nulls are absent)."""
    if None in ev.values():
        ev = {k: v for k, v in ev.items() if v is not None}
    plan = _TOOL_PLANS.get(etype) or _policy_plan(index, ev, out)
    _check_plan(index, ev, plan, ctx, out)


def _policy_plan(index: int, ev: dict[str, Any], out: list[Diagnostic]) -> _Plan:
    """Pick the policy-decision column by policy_life; report an unusable policy_life."""
    life = ev.get("policy_life")
    if life is not None and (type(life) is not str or life not in _POLICY_LIVES):
        life_ok = None
        if type(life) is not str:
            _diag(out, "invalid-type", "error", f"/events/{index}/policy_life",
                  f"policy-decision: policy_life must be a string, found {_json_type(life)} "
                  f"(draft §policy_life)")
        else:
            _diag(out, "invalid-value", "error", f"/events/{index}/policy_life",
                  f"policy-decision: policy_life {_show(life)} is not one of "
                  f"{', '.join(spec.POLICY_LIVES)} (draft §policy_life)")
    else:
        life_ok = life  # None when missing: the missing-required comes from the plan
    op = ev.get("operation")
    known = type(op) is not str or op in _OPERATIONS
    return _POLICY_PLANS[(life_ok, known)]


def _check_plan(
    index: int, ev: dict[str, Any], plan: _Plan, ctx: Ctx, out: list[Diagnostic]
) -> None:
    """The full check of one event (nulls already removed) against its column."""
    keys = ev.keys()
    t, section, required, required_list, forbidden, forbidden_list, recommended, \
        _sessions, _content, checked = plan
    if not keys >= required:
        base = f"/events/{index}"
        for p in required_list:
            if p not in ev:
                _diag(out, "missing-required", "error", base,
                      f"{t}: {p} MUST be present ({section})")
    if not keys.isdisjoint(forbidden):
        for p in forbidden_list:
            if p in ev:
                _diag(out, "forbidden-parameter", "error", f"/events/{index}/{p}",
                      f"{t}: {p} MUST NOT be present ({section})")
    if recommended and not ctx.redacted:
        for p in recommended:
            if p not in ev:
                _diag(out, "missing-recommended", "warning", f"/events/{index}",
                      f"{t}: {p} SHOULD be present ({section})")

    _check_sessions_cell(index, ev, plan, ctx, out)
    _check_content_cell(index, ev, keys, plan, ctx, out)

    # Values of the parameters present; a forbidden one was reported above and is not here.
    for k in checked:
        if k in ev:
            _VALUE_CHECKS[k](index, ev[k], t, ctx, out)


def _absent(index: int, plan: _Plan, cell: spec.Cell, ctx: Ctx, out: list[Diagnostic], must: str,
            should: str) -> None:
    """A parameter group absent from an event, against its ``cell``: under M an error naming it
    ``must``, under S a warning naming it ``should`` (none in a redacted vCon, which may leave
    anything out). Sessions and content are checked so; the single parameters by the plan's
    sets (``_check_plan``)."""
    if cell == "M":
        _diag(out, "missing-required", "error", f"/events/{index}",
              f"{plan.type}: {must} MUST be present ({plan.section})")
    elif cell == "S" and not ctx.redacted:
        _diag(out, "missing-recommended", "warning", f"/events/{index}",
              f"{plan.type}: {should} SHOULD be present ({plan.section})")


def _check_sessions_cell(
    index: int, ev: dict[str, Any], plan: _Plan, ctx: Ctx, out: list[Diagnostic]
) -> None:
    t = plan.type
    if "sessions" in ev or "session" in ev:
        if plan.sessions == "X":
            for p in ("sessions", "session"):
                if p in ev:
                    _diag(out, "forbidden-parameter", "error", f"/events/{index}/{p}",
                          f"{t}: {p} MUST NOT be present ({plan.section})")
        else:
            _check_sessions(index, ev, ctx, out)
    else:
        _absent(index, plan, plan.sessions, ctx, out, "sessions (or the core's session)",
                "sessions")


def _check_content_cell(index: int, ev: dict[str, Any], keys: Any, plan: _Plan, ctx: Ctx,
                  out: list[Diagnostic]) -> None:
    t = plan.type
    if _CONTENT_KEYS.isdisjoint(keys):
        _absent(index, plan, plan.content, ctx, out, "content (body or url)",
                "content (body or url)")
    elif plan.content == "X":
        for p in spec.CONTENT_PARAMS:
            if p in ev:
                _diag(out, "forbidden-parameter", "error", f"/events/{index}/{p}",
                      f"{t}: {p} MUST NOT be present: this type has no content "
                      f"({plan.section})")
    else:
        no_body = ev.get("body") is None and ev.get("url") is None
        if no_body and not ctx.redacted and (
            ev.get("encoding") is not None or ev.get("content_hash") is not None
        ):
            # draft §Event Content: body (and url) are optional only in a redacted vCon
            part = "body" if ev.get("encoding") is not None else "url"
            _diag(out, "missing-required", "error", f"/events/{index}",
                  f"{t}: {'encoding' if part == 'body' else 'content_hash'} without {part}: "
                  f"{part} may be absent only in a redacted vCon (draft §Event Content)")
        elif (plan.content in ("M", "S") and "body" not in ev and "url" not in ev
                and not ctx.redacted):
            sev: Severity = "error" if plan.content == "M" else "warning"
            code = "missing-required" if plan.content == "M" else "missing-recommended"
            _diag(out, code, sev, f"/events/{index}",
                  f"{t}: content has neither body nor url (draft §Event Content)")
        _check_content(index, ev, t, out)


# --- value checks, one per parameter --------------------------------------------------------------


def _is_uint(value: Any) -> bool:
    """An UnsignedInt (JMAP: an integer 0..2^53-1; a boolean is not one)."""
    return type(value) is int and 0 <= value <= _MAX_UINT


def _index_ok(value: Any, limit: int | None) -> bool:
    """An UnsignedInt index that ``_index_ref`` accepts: below ``limit`` when one is known."""
    return _is_uint(value) and (limit is None or value < limit)


def _uint(index: int, name: str, value: Any, t: str, out: list[Diagnostic],
          ptr: str | None = None) -> bool:
    """True when value is an UnsignedInt (JMAP: an integer 0..2^53-1; a boolean is not one)."""
    if _is_uint(value):
        return True
    ptr = ptr or f"/events/{index}/{name}"
    if type(value) is int:
        why = ("is larger than an UnsignedInt allows (2^53-1)" if value > _MAX_UINT
               else "is not an UnsignedInt (0 or more)")
        _diag(out, "invalid-value", "error", ptr, f"{t}: {name} {value} {why}")
    else:
        shown = "" if isinstance(value, (dict, list)) else f" {_show(value)}"
        _diag(out, "invalid-type", "error", ptr,
              f"{t}: {name} must be an UnsignedInt, found {_json_type(value)}{shown}")
    return False


def _index_ref(index: int, name: str, value: Any, limit: int | None, what: str, t: str,
               out: list[Diagnostic], ptr: str) -> None:
    if _uint(index, name, value, t, out, ptr) and limit is not None and value >= limit:
        _diag(out, "index-out-of-range", "error", ptr,
              f"{t}: {name} {value} refers to {what}[{value}], but {what} has {limit} "
              f"element{'' if limit == 1 else 's'}")


def _index_refs(index: int, name: str, v: Any, limit: int | None, what: str, t: str,
                out: list[Diagnostic], base: str, cite: str) -> None:
    """An UnsignedInt index or an array of them (``sessions``, ``attachment``)."""
    if type(v) is list:
        for i, item in enumerate(v):
            _index_ref(index, name, item, limit, what, t, out, f"{base}/{i}")
    elif type(v) is int:
        _index_ref(index, name, v, limit, what, t, out, base)
    else:
        _diag(out, "invalid-type", "error", base,
              f"{t}: {name} must be an UnsignedInt or an array of them, found "
              f"{_json_type(v)}{cite}")


def _check_sessions(index: int, ev: dict[str, Any], ctx: Ctx, out: list[Diagnostic]) -> None:
    t = ev["type"]
    n = ctx.n_sessions
    if "sessions" in ev:
        v = ev["sessions"]
        base = f"/events/{index}/sessions"
        if type(v) is list and not v:
            _diag(out, "invalid-value", "error", base,
                  f"{t}: sessions is an empty array; it must reference at least one "
                  f"Session Object (draft §Event Object Types and Parameters)")
        _index_refs(index, "sessions", v, n, "sessions", t, out, base, "")
    if "session" in ev:
        _index_ref(index, "session", ev["session"], n, "sessions", t, out,
                   f"/events/{index}/session")


def _string(index: int, name: str, value: Any, t: str, out: list[Diagnostic],
            section: str) -> bool:
    if type(value) is str:
        return True
    _diag(out, "invalid-type", "error", f"/events/{index}/{name}",
          f"{t}: {name} must be a string, found {_json_type(value)} ({section})")
    return False


def _v_operation_id(index: int, v: Any, t: str, ctx: Ctx, out: list[Diagnostic]) -> None:
    if _string(index, "operation_id", v, t, out, "draft §operation_id") and not v:
        _diag(out, "invalid-value", "error", f"/events/{index}/operation_id",
              f"{t}: operation_id is empty; it must identify the operation "
              f"(draft §operation_id)")


def _v_attempt(index: int, v: Any, t: str, ctx: Ctx, out: list[Diagnostic]) -> None:
    if type(v) is int:
        if v < 1:
            _diag(out, "invalid-value", "error", f"/events/{index}/attempt",
                  f"{t}: attempt {v} is not valid; the first attempt is 1 (draft §attempt)")
        elif v > _MAX_UINT:
            _diag(out, "invalid-value", "error", f"/events/{index}/attempt",
                  f"{t}: attempt {v} is larger than an UnsignedInt allows (2^53-1)")
    else:
        _diag(out, "invalid-type", "error", f"/events/{index}/attempt",
              f"{t}: attempt must be an integer of 1 or more, found {_json_type(v)} "
              f"{_show(v)} (draft §attempt)")


def _v_party(index: int, v: Any, t: str, ctx: Ctx, out: list[Diagnostic]) -> None:
    _index_ref(index, "party", v, ctx.n_parties, "parties", t, out, f"/events/{index}/party")


def _value_in(name: str, values: tuple[str, ...], section: str, severity: Severity = "error"):
    allowed = frozenset(values)

    def check(index: int, v: Any, t: str, ctx: Ctx, out: list[Diagnostic]) -> None:
        if type(v) is str and v in allowed:
            return
        if _string(index, name, v, t, out, section):
            _diag(out, "invalid-value", severity, f"/events/{index}/{name}",
                  f"{t}: {name} {_show(v)} is not one of {', '.join(values)} ({section})")

    return check


def _v_operation(index: int, v: Any, t: str, ctx: Ctx, out: list[Diagnostic]) -> None:
    if type(v) is str and v in _OPERATIONS:
        return
    if _string(index, "operation", v, t, out, "draft §operation"):
        _diag(out, "invalid-value", "warning", f"/events/{index}/operation",
              f"{t}: operation {_show(v)} is not defined by the draft (it defines "
              f"{', '.join(spec.OPERATIONS)}; other operations are a TODO) (draft §operation)")


def _v_server(index: int, v: Any, t: str, ctx: Ctx, out: list[Diagnostic]) -> None:
    if (_string(index, "server", v, t, out, "draft §server") and v.startswith("!")
            and v != spec.HOST_SERVER):
        _diag(out, "invalid-value", "error", f"/events/{index}/server",
              f"{t}: server {_show(v)} starts with \"!\", which is reserved; only "
              f"\"{spec.HOST_SERVER}\" is defined (draft §server)")


def _v_tool(index: int, v: Any, t: str, ctx: Ctx, out: list[Diagnostic]) -> None:
    _string(index, "tool", v, t, out, "draft §tool")


def _v_reason(index: int, v: Any, t: str, ctx: Ctx, out: list[Diagnostic]) -> None:
    _string(index, "reason", v, t, out, "draft §reason")


def _v_attachment(index: int, v: Any, t: str, ctx: Ctx, out: list[Diagnostic]) -> None:
    att = ctx.attachments
    n = None if att is None else len(att)
    _index_refs(index, "attachment", v, n, "attachments", t, out,
                f"/events/{index}/attachment", " (draft §attachment)")


_VALUE_CHECKS: Final = {
    "operation_id": _v_operation_id,
    "attempt": _v_attempt,
    "party": _v_party,
    "decision": _value_in("decision", spec.DECISIONS, "draft §decision"),
    # policy_life is checked while choosing the column (_policy_plan).
    "operation": _v_operation,
    "server": _v_server,
    "tool": _v_tool,
    "reason": _v_reason,
    "attachment": _v_attachment,
}


# --- content (README: "Content"; core-03 §Inline Files / §Externally Referenced Files)


def _check_content(index: int, ev: dict[str, Any], t: str, out: list[Diagnostic]) -> None:
    base = f"/events/{index}"
    has_body = "body" in ev
    has_url = "url" in ev
    if has_body and has_url:
        _diag(out, "content-body-and-url", "error", base,
              f"{t}: body and url MUST NOT both be present (draft §Event Content)")
    mt = ev.get("mediatype")
    if mt is not None:
        if type(mt) is not str:
            _diag(out, "invalid-type", "error", base + "/mediatype",
                  f"{t}: mediatype must be a string, found {_json_type(mt)} (core-03 Mediatype)")
        elif "/" not in mt:
            _diag(out, "invalid-value", "error", base + "/mediatype",
                  f"{t}: mediatype {_show(mt)} is not of the form type/subtype "
                  f"(core-03 Mediatype)")
    enc = ev.get("encoding")
    enc_ok = False
    if enc is not None:
        if type(enc) is not str:
            _diag(out, "invalid-type", "error", base + "/encoding",
                  f"{t}: encoding must be a string, found {_json_type(enc)} (core-03 §encoding)")
        elif enc not in _ENCODINGS:
            _diag(out, "invalid-value", "error", base + "/encoding",
                  f"{t}: encoding {_show(enc)} is not one of {', '.join(spec.ENCODINGS)} "
                  f"(core-03 §encoding)")
        else:
            enc_ok = True
    if has_body:
        body = ev["body"]
        if mt is None:
            _diag(out, "content-mediatype-missing", "error", base,
                  f"{t}: mediatype MUST be present with inline content (draft §Event Content)")
        if enc is None:
            if body != "":
                _diag(out, "content-encoding-missing", "error", base,
                      f"{t}: encoding MUST be present with a non-empty body "
                      f"(core-03 §encoding)")
        elif enc_ok:
            _check_body(base, body, enc, t, out)
    if has_url:
        url = ev["url"]
        if type(url) is not str:
            _diag(out, "invalid-type", "error", base + "/url",
                  f"{t}: url must be a string, found {_json_type(url)} (core-03 §url)")
        if "content_hash" not in ev:
            _diag(out, "content-hash-missing", "error", base,
                  f"{t}: externally referenced content MUST have a content_hash "
                  f"(draft §Privacy and Integrity Considerations)")
    if "content_hash" in ev:
        _check_hash(base + "/content_hash", ev["content_hash"], t, out)


def _check_body(base: str, body: Any, enc: str, t: str, out: list[Diagnostic]) -> None:
    """The body can be decoded by its encoding (json: any JSON value, already parsed)."""
    if enc == "json":
        return
    if type(body) is not str:
        _diag(out, "content-body-invalid", "error", base + "/body",
              f"{t}: body must be a string with encoding {enc}, found {_json_type(body)} "
              f"(core-03 §encoding)")
    elif enc == "base64url" and not _b64url_ok(body):
        _diag(out, "content-body-invalid", "error", base + "/body",
              f"{t}: body is not valid base64url (RFC 4648 §5 alphabet, padding optional) "
              f"(core-03 §encoding)")


def _check_hash(ptr: str, value: Any, t: str, out: list[Diagnostic]) -> None:
    """content_hash: one ContentHash token or an array of them, a sha512 one among them."""
    if type(value) is str:
        tokens = [(ptr, value)]
    elif type(value) is list and value:
        tokens = [(f"{ptr}/{i}", v) for i, v in enumerate(value)]
    else:
        _diag(out, "content-hash-invalid", "error", ptr,
              f"{t}: content_hash must be a token alg-base64urldigest or a non-empty array of "
              f"them, found {_json_type(value)} (core-03 ContentHash)")
        return
    algs = set()
    for p, tok in tokens:
        m = _HASH_RE.fullmatch(tok) if type(tok) is str else None
        if m is None:
            _diag(out, "content-hash-invalid", "error", p,
                  f"{t}: content_hash {_show(tok)} is not of the form alg-base64urldigest "
                  f"(core-03 ContentHash)")
            continue
        alg, digest, pad = m.groups()
        algs.add(alg)
        n = _DIGEST_BYTES.get(alg)
        ok = _b64url_ok(digest + pad) and (n is None or len(digest) == _b64url_len(n))
        if not ok:
            want = f" of {_b64url_len(n)} characters" if n else ""
            _diag(out, "content-hash-invalid", "error", p,
                  f"{t}: content_hash {alg} digest is not base64url{want} "
                  f"(core-03 ContentHash)")
    if algs and _REQUIRED_HASH not in algs:
        _diag(out, "content-hash-invalid", "error", ptr,
              f"{t}: content_hash has no {_REQUIRED_HASH} token; {_REQUIRED_HASH} is required "
              f"(core-03 §content_hash)")


# --- top-level checks ----------------------------------------------------------------------------

#: Legacy top-level names (older vCon generations) -> what replaces them.
LEGACY_TOP_LEVEL: Final = {
    "appended": "renamed amended (core-03, 0.3.0 to 0.4.0)",
    "group": "no longer defined: reserved for future extension (core-03)",
    "session": "use sessions (core editor's draft: top-level sessions array)",
    # must_support (renamed critical) is reported by the loader, not here.
}
#: Legacy names inside dialog/attachments/analysis items -> what replaces them.
LEGACY_ITEM: Final = {
    "mimetype": "renamed mediatype (core-03, 0.0.1 to 0.0.2)",
    "alg": "alg and signature were combined into content_hash (core-03, 0.0.1 to 0.0.2)",
    "signature": "alg and signature were combined into content_hash (core-03, 0.0.1 to 0.0.2)",
}
LEGACY_DIALOG: Final = {
    "transfer-target": "renamed transfer_target (core-03, 0.0.2 to 0.3.0)",
    "target-dialog": "renamed target_dialog (core-03, 0.0.2 to 0.3.0)",
}

#: Expected JSON shape of top-level members (core-03; sessions/events: editor's draft).
_TOP_SHAPES: Final[dict[str, type]] = {
    "vcon": str, "uuid": str, "created_at": str, "updated_at": str, "subject": str,
    "redacted": dict, "amended": dict, "appended": dict, "group": list,
    "parties": list, "dialog": list, "analysis": list, "attachments": list,
    "sessions": list, "session": list, "events": list,
}
#: Arrays whose items must be objects (events: check_event reports its own items).
_OBJECT_ARRAYS: Final = ("parties", "dialog", "analysis", "attachments", "sessions", "session")
_ITEM_LEGACY_ARRAYS: Final = ("dialog", "attachments", "analysis")

def check_vcon(vcon: dict, has_lifecycle_events: bool, out: list[Diagnostic]) -> None:
    """Top-level diagnostics: structure, legacy names, created_at and the extensions SHOULD."""
    for name, shape in _TOP_SHAPES.items():
        v = vcon.get(name)
        if v is not None and not isinstance(v, shape) and not isinstance(v, EventArray):
            _diag(out, "invalid-structure", "error", pointer(name),
                  f"{name} must be {_json_type(shape())}, "
                  f"found {_json_type(v)} (core §vCon JSON Object)")
    for name in _OBJECT_ARRAYS:
        items = vcon.get(name)
        if type(items) is not list:
            continue
        for i, item in enumerate(items):
            if type(item) is not dict:
                _diag(out, "invalid-structure", "error", pointer(name, i),
                      f"{name}[{i}] must be an object, found {_json_type(item)} "
                      f"(core §vCon JSON Object)")

    for name, why in LEGACY_TOP_LEVEL.items():
        if vcon.get(name) is not None:
            _diag(out, "legacy-parameter", "warning", pointer(name),
                  f"top-level {name} is a legacy parameter: {why}")
    for arr in _ITEM_LEGACY_ARRAYS:
        items = vcon.get(arr)
        if type(items) is not list:
            continue
        table = {**LEGACY_ITEM, **LEGACY_DIALOG} if arr == "dialog" else LEGACY_ITEM
        for i, item in enumerate(items):
            if type(item) is not dict:
                continue
            for name, why in table.items():
                if item.get(name) is not None:
                    _diag(out, "legacy-parameter", "warning", pointer(arr, i, name),
                          f"{arr}[{i}].{name} is a legacy parameter: {why}")

    created = vcon.get("created_at")
    if created is None:
        _diag(out, "missing-required", "warning", "",
              "created_at is absent; core-03 says it MUST be present (a warning: older "
              "generations and the core draft's own examples lack it)")
    elif type(created) is str:
        when, naive = parse_time(created)  # the builder's parser, so both agree
        if when is None:
            _diag(out, "time-unparsable", "warning", "/created_at",
                  f"created_at {_show(created)} is not an RFC 3339 date-time (core-03 Date)")
        elif naive:
            _diag(out, "time-no-offset", "warning", "/created_at",
                  f"created_at {_show(created)} has no zone offset; read as UTC "
                  f"(RFC 3339 requires one)")

    ext = vcon.get("extensions")
    names: list[str] = []
    if ext is not None:
        if type(ext) is not list:
            _diag(out, "invalid-type", "error", "/extensions",
                  f"extensions must be an array of strings, found {_json_type(ext)} "
                  f"(core §extensions)")
        else:
            for i, e in enumerate(ext):
                if type(e) is str:
                    names.append(e)
                else:
                    _diag(out, "invalid-type", "error", pointer("extensions", i),
                          f"extensions[{i}] must be a string, found {_json_type(e)} "
                          f"(core §extensions)")
    if has_lifecycle_events and spec.EXTENSION_NAME not in names:
        _diag(out, "extension-not-listed", "warning",
              "/extensions" if ext is not None else "",
              f"tool-lifecycle events are present but extensions does not list "
              f"\"{spec.EXTENSION_NAME}\" (draft §Extension Name: SHOULD)")
    if vcon.get("parties") is None:
        _diag(out, "missing-required", "error", "",
              "parties is absent, but every tool-lifecycle event's party MUST refer to the "
              "agent in it (draft §Event Object Types and Parameters)" if has_lifecycle_events
              else "parties is absent; core-03 makes it required (an array, empty when no "
              "party is known; core §parties Objects Array)")
    _check_core_refs(vcon, out)


def _check_core_refs(vcon: dict, out: list[Diagnostic]) -> None:
    """The core draft's rules a reader of the conversation relies on: the vCon's uuid, and the
    indices that tie dialog, analysis and attachments to parties and dialog (a wrong index
    puts words in the wrong mouth). Values are not checked beyond their JSON type."""
    uuid = vcon.get("uuid")
    if uuid is None:
        _diag(out, "missing-required", "error", "",
              "uuid is absent; core-03 requires it (core §uuid)")
    elif type(uuid) is str and not uuid.strip():
        _diag(out, "invalid-value", "error", "/uuid",
              "uuid is empty; it MUST be globally unique (core §uuid)")
    parties, dialog = vcon.get("parties"), vcon.get("dialog")
    n_parties = len(parties) if type(parties) is list else None
    n_dialog = len(dialog) if type(dialog) is list else None
    # (array, ((parameter, limit, what it indexes, array levels allowed), ...)), as core-03
    # types them: dialog parties "UnsignedInt | UnsignedInt[] | (UnsignedInt | UnsignedInt[])[]"
    refs = (("dialog", (("parties", n_parties, "parties", 2),
                        ("originator", n_parties, "parties", 0))),
            ("analysis", (("dialog", n_dialog, "dialog", 1),)),
            ("attachments", (("party", n_parties, "parties", 0),
                             ("dialog", n_dialog, "dialog", 0))))
    for arr, params in refs:
        items = vcon.get(arr)
        if type(items) is not list:
            continue
        for i, item in enumerate(items):
            if type(item) is not dict:
                continue
            for name, limit, what, depth in params:
                v = item.get(name)
                if v is not None:
                    _core_index(out, v, limit, what, (arr, i, name), depth)
            for name in ("mediatype", "mimetype"):  # the content of dialog, analysis, files
                v = item.get(name)
                if v is not None and type(v) is not str:
                    _diag(out, "invalid-type", "error", pointer(arr, i, name),
                          f"{arr}[{i}].{name} must be a string, found {_json_type(v)} "
                          "(core-03 Mediatype)")


def _core_index(out: list[Diagnostic], v: Any, limit: int | None, what: str,
                at: tuple[str | int, ...], depth: int) -> None:
    """An UnsignedInt index into ``what`` (``limit`` elements; None: not an array, reported
    elsewhere), or, ``depth`` levels deep, arrays of them: the events' index check. ``at``:
    (array, item, parameter, positions in the parameter's arrays); the pointer and the labels
    (``dialog[2]``, ``parties[1]``) are written only for an index that is reported."""
    if type(v) is list and depth > 0:
        for j, item in enumerate(v):
            _core_index(out, item, limit, what, (*at, j), depth - 1)
        return
    if _index_ok(v, limit):  # most are: nothing to write
        return
    arr, i, name, *path = at
    _index_ref(-1, name + "".join(f"[{j}]" for j in path), v, limit, what, f"{arr}[{i}]",
               out, pointer(*at))
