"""validate.py against the draft's tables: every cell of every column, both ways.

The cases are generated from ``spec.py`` (the tables as data), so a change to a cell there is a
change to what is tested here. Each test builds a fully valid event of one type and changes one
thing.
"""

from __future__ import annotations

import base64
import copy
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from viewer.model import spec
from viewer.model.types import Diagnostic
from viewer.model.validate import Ctx, check_event, check_vcon, pointer

FIX = Path(__file__).parent / "fixtures" / "validate"

CTX = Ctx(n_parties=2, n_sessions=1, attachments=[{}, {}], redacted=False)
REDACTED = Ctx(n_parties=2, n_sessions=1, attachments=[{}, {}], redacted=True)
IDX = 3  # the event's index in `events`
BASE = f"/events/{IDX}"
SERVER = "https://tools.example.com/mcp"


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


SHA512 = "sha512-" + _b64(hashlib.sha512(b"content").digest())
SHA256 = "sha256-" + _b64(hashlib.sha256(b"content").digest())

#: A valid value for every parameter the draft defines (other than type/time/content).
VALUES: dict[str, Any] = {
    "sessions": 0, "party": 1, "operation_id": "op-1", "attempt": 1, "decision": "allowed",
    "operation": "tool-invocation", "server": SERVER, "tool": "lookup",
    "reason": "policy 7", "attachment": 0,
}
CONTENT = {"body": {"q": "x"}, "encoding": "json", "mediatype": "application/json"}

#: Every column of the three tables: (id, type, policy_life, column).
COLUMNS = [
    *((f"policy-decision/{life}", spec.POLICY_DECISION, life, col)
      for life, col in spec.POLICY_DECISION_PARAMS.items()),
    *((t, t, None, col) for t, col in spec.TOOL_EVENT_PARAMS.items()),
]
COLUMN_IDS = [c[0] for c in COLUMNS]


def valid(event_type: str, life: str | None = None, cells: str = "MS") -> dict[str, Any]:
    """A fully valid event of one type: every parameter whose cell is in ``cells``."""
    col = spec.applicability(event_type, life)
    assert col is not None
    ev: dict[str, Any] = {"type": event_type, "time": "2026-03-01T09:00:00Z"}
    for p, c in col.items():
        if c not in cells or p in ("type", "time"):
            continue
        if p == "content":
            ev.update(CONTENT)
        elif p == "policy_life":
            ev[p] = life
        else:
            ev[p] = VALUES[p]
    return ev


def run(ev: Any, ctx: Ctx = CTX) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    check_event(IDX, ev, ctx, out)
    return out


def codes(diags: list[Diagnostic]) -> list[tuple[str, str, str]]:
    return [(d.code, d.severity, d.pointer) for d in diags]


def cells(kind: str) -> list[tuple[str, str, str | None, str]]:
    """(id, type, policy_life, parameter) for every cell of that kind, all columns."""
    return [
        pytest.param(t, life, p, id=f"{cid}:{p}")
        for cid, t, life, col in COLUMNS
        for p, c in col.items()
        if c == kind
    ]


# --- the valid event of each type ------------------------------------------------------------


@pytest.mark.parametrize(("cid", "t", "life", "col"), COLUMNS, ids=COLUMN_IDS)
@pytest.mark.parametrize("with_cells", ["MS", "MSO"])
def test_valid_event_of_each_type_has_no_diagnostics(cid, t, life, col, with_cells):
    ev = valid(t, life, with_cells)
    assert run(ev) == []
    assert run(ev, REDACTED) == []


def test_every_type_of_the_draft_is_covered():
    assert {c[1] for c in COLUMNS} == spec.LIFECYCLE_EVENT_SET


# --- M cells ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("t", "life", "p"), cells("M"))
@pytest.mark.parametrize("how", ["absent", "null"])
def test_missing_m_cell_is_missing_required(t, life, p, how):
    ev = valid(t, life)
    if p == "time":  # the builder's: validate.py says nothing about time
        del ev["time"]
        assert run(ev) == []
        return
    if how == "absent":
        del ev[p]
    else:
        ev[p] = None
    diags = run(ev)
    assert [d.code for d in diags] == ["missing-required"]
    assert diags[0].severity == "error"
    assert diags[0].pointer == BASE
    assert p in diags[0].message and "MUST be present" in diags[0].message


def test_missing_sessions_is_satisfied_by_core_session():
    ev = valid("tool-result")
    del ev["sessions"]
    ev["session"] = 0
    assert run(ev) == []


# --- X cells ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("t", "life", "p"), cells("X"))
def test_present_x_cell_is_forbidden(t, life, p):
    ev = valid(t, life)
    added = list(CONTENT) if p == "content" else [p]
    for q in added:
        ev[q] = CONTENT[q] if p == "content" else ("once" if q == "policy_life" else VALUES[q])
    diags = run(ev)
    assert codes(diags) == [("forbidden-parameter", "error", f"{BASE}/{q}") for q in added]
    assert all("MUST NOT be present" in d.message for d in diags)


@pytest.mark.parametrize(("t", "life", "p"), cells("X"))
def test_null_x_cell_counts_as_absent(t, life, p):
    ev = valid(t, life)
    for q in (CONTENT if p == "content" else [p]):
        ev[q] = None
    assert run(ev) == []


@pytest.mark.parametrize("q", spec.CONTENT_PARAMS)
def test_each_content_parameter_alone_is_forbidden_where_content_is_x(q):
    ev = valid("policy-decision", "once")
    ev[q] = CONTENT.get(q, "https://x.example/c" if q == "url" else SHA512)
    assert codes(run(ev)) == [("forbidden-parameter", "error", f"{BASE}/{q}")]


def test_forbidden_value_is_not_also_type_checked():
    ev = valid("tool-result")
    ev["server"] = 5  # wrong type, but forbidden: one diagnostic
    assert [d.code for d in run(ev)] == ["forbidden-parameter"]


# --- S and O cells ----------------------------------------------------------------------------


@pytest.mark.parametrize(("t", "life", "p"), cells("S"))
def test_missing_s_cell_is_a_warning_unless_redacted(t, life, p):
    ev = valid(t, life)
    for q in (CONTENT if p == "content" else [p]):
        del ev[q]
    diags = run(ev)
    assert codes(diags) == [("missing-recommended", "warning", BASE)]
    assert run(ev, REDACTED) == []


@pytest.mark.parametrize(("t", "life", "p"), cells("S"))
def test_s_content_with_only_mediatype_still_warns(t, life, p):
    ev = valid(t, life)
    del ev["body"], ev["encoding"]
    assert codes(run(ev)) == [("missing-recommended", "warning", BASE)]
    assert run(ev, REDACTED) == []


@pytest.mark.parametrize(("t", "life", "p"), cells("O"))
def test_o_cell_absent_or_present_is_fine(t, life, p):
    ev = valid(t, life, "MSO")
    assert run(ev) == []
    for q in (CONTENT if p == "content" else [p]):
        ev.pop(q, None)
    assert run(ev) == []


# --- type, non-objects, context events --------------------------------------------------------


@pytest.mark.parametrize("ev", [[], "tool-result", 3, None, True])
def test_event_not_an_object(ev):
    assert codes(run(ev)) == [("invalid-type", "error", BASE)]


def test_type_missing_or_not_a_string():
    assert codes(run({"time": "2026-03-01T09:00:00Z"})) == [("missing-required", "error", BASE)]
    assert codes(run({"type": 7})) == [("invalid-type", "error", f"{BASE}/type")]
    assert codes(run({"type": None})) == [("missing-required", "error", BASE)]


@pytest.mark.parametrize("t", ["join", "keydown", "x-unknown", "Tool-Result", ""])
def test_context_events_are_not_checked_against_the_draft(t):
    ev = {"type": t, "server": "!bad", "attempt": 0, "body": "x", "url": 5, "party": 99}
    assert run(ev) == []


# --- value sets ---------------------------------------------------------------------------------


@pytest.mark.parametrize("life", spec.POLICY_LIVES)
@pytest.mark.parametrize("decision", spec.DECISIONS)
def test_every_decision_and_policy_life_is_valid(decision, life):
    ev = valid("policy-decision", life)
    ev["decision"] = decision
    assert run(ev) == []


@pytest.mark.parametrize(("value", "code"), [
    ("maybe", "invalid-value"), ("Allowed", "invalid-value"), ("", "invalid-value"),
    (1, "invalid-type"), (["allowed"], "invalid-type"), (True, "invalid-type"),
])
def test_wrong_decision(value, code):
    ev = valid("policy-decision", "once")
    ev["decision"] = value
    assert codes(run(ev)) == [(code, "error", f"{BASE}/decision")]


@pytest.mark.parametrize(("value", "code"), [
    ("forever", "invalid-value"), ("Once", "invalid-value"), (1, "invalid-type"),
    ({"x": 1}, "invalid-type"),
])
@pytest.mark.parametrize("life", spec.POLICY_LIVES)
def test_wrong_policy_life_is_reported_and_common_cells_still_apply(life, value, code):
    ev = valid("policy-decision", life)
    ev["policy_life"] = value
    assert codes(run(ev)) == [(code, "error", f"{BASE}/policy_life")]
    # The cells both columns agree on still apply: server is M in both.
    del ev["server"]
    assert [d.code for d in run(ev)][1:] == ["missing-required"]


def test_missing_policy_life_checks_only_cells_common_to_both_columns():
    agree = {
        p: c for p, c in spec.POLICY_DECISION_PARAMS["once"].items()
        if spec.POLICY_DECISION_PARAMS["standing"][p] == c
    }
    for life in spec.POLICY_LIVES:
        ev = valid("policy-decision", life)
        del ev["policy_life"]
        assert codes(run(ev)) == [("missing-required", "error", BASE)]
    ev = valid("policy-decision", "once")
    del ev["policy_life"]
    for p, c in agree.items():
        if c == "M" and p not in ("type", "time", "policy_life"):
            e = dict(ev)
            del e[p]
            assert [d.code for d in run(e)] == ["missing-required", "missing-required"], p


def test_standing_carrying_operation_id_and_attempt():
    ev = valid("policy-decision", "standing")
    ev.update(operation_id="op-1", attempt=1)
    assert codes(run(ev)) == [
        ("forbidden-parameter", "error", f"{BASE}/operation_id"),
        ("forbidden-parameter", "error", f"{BASE}/attempt"),
    ]


@pytest.mark.parametrize("op", spec.OPERATIONS)
def test_every_operation_is_valid(op):
    ev = valid("policy-decision", "once")
    ev["operation"] = op
    assert run(ev) == []


def test_unknown_operation_is_a_warning_and_needs_no_tool_target():
    ev = valid("policy-decision", "once")
    ev["operation"] = "delegation"
    assert codes(run(ev)) == [("invalid-value", "warning", f"{BASE}/operation")]
    del ev["server"], ev["tool"]
    assert codes(run(ev)) == [("invalid-value", "warning", f"{BASE}/operation")]
    ev["operation"] = 5
    assert codes(run(ev)) == [
        ("missing-required", "error", BASE), ("missing-required", "error", BASE),
        ("invalid-type", "error", f"{BASE}/operation"),
    ]


@pytest.mark.parametrize(("value", "code"), [
    (spec.HOST_SERVER, None), (SERVER, None), ("local-files", None),
    ("!hostx", "invalid-value"), ("!", "invalid-value"), ("!other", "invalid-value"),
    (5, "invalid-type"), (["x"], "invalid-type"),
])
@pytest.mark.parametrize(("t", "life"), [("tool-invocation", None),
                                         ("policy-decision", "once"),
                                         ("policy-decision", "standing")])
def test_server_values(t, life, value, code):
    ev = valid(t, life)
    ev["server"] = value
    want = [] if code is None else [(code, "error", f"{BASE}/server")]
    assert codes(run(ev)) == want


@pytest.mark.parametrize("p", ["tool", "reason"])
def test_tool_and_reason_are_strings(p):
    ev = valid("policy-decision", "once", "MSO")
    ev[p] = 42
    assert codes(run(ev)) == [("invalid-type", "error", f"{BASE}/{p}")]


@pytest.mark.parametrize(("value", "code"), [
    ("op-1", None), ("x", None), ("", "invalid-value"), (1, "invalid-type"),
    (["op"], "invalid-type"),
])
def test_operation_id_values(value, code):
    ev = valid("tool-result")
    ev["operation_id"] = value
    assert codes(run(ev)) == ([] if code is None else [(code, "error", f"{BASE}/operation_id")])


@pytest.mark.parametrize(("value", "code"), [
    (1, None), (2, None), (10**6, None),
    (0, "invalid-value"), (-1, "invalid-value"),
    (1.5, "invalid-type"), (1.0, "invalid-type"), ("1", "invalid-type"),
    (True, "invalid-type"), (False, "invalid-type"), ([1], "invalid-type"),
])
@pytest.mark.parametrize(("t", "life"), [("tool-invocation", None), ("tool-progress", None),
                                         ("policy-decision", "once")])
def test_attempt_values(t, life, value, code):
    ev = valid(t, life)
    ev["attempt"] = value
    assert codes(run(ev)) == ([] if code is None else [(code, "error", f"{BASE}/attempt")])


@pytest.mark.parametrize("enc", spec.ENCODINGS)
def test_every_encoding_is_valid(enc):
    ev = valid("tool-result")
    bodies = {"json": {"a": 1}, "none": "text", "base64url": _b64(b"\x00\xff")}
    ev.update(encoding=enc, body=bodies[enc])
    assert run(ev) == []


@pytest.mark.parametrize(("value", "code"), [("gzip", "invalid-value"), ("JSON", "invalid-value"),
                                             ("base64", "invalid-value"), (1, "invalid-type")])
def test_wrong_encoding(value, code):
    ev = valid("tool-result")
    ev["encoding"] = value
    assert codes(run(ev)) == [(code, "error", f"{BASE}/encoding")]


# --- index references ----------------------------------------------------------------------------


def ref_cases(name: str, limit: int):
    """In range, out of range and wrong types for an UnsignedInt index."""
    return [
        *((i, []) for i in range(limit)),
        (limit, [("index-out-of-range", "")]),
        (limit + 5, [("index-out-of-range", "")]),
        (-1, [("invalid-value", "")]),
        ("0", [("invalid-type", "")]),
        (True, [("invalid-type", "")]),
        (0.0, [("invalid-type", "")]),
    ]


@pytest.mark.parametrize(("value", "want"), ref_cases("party", 2))
def test_party_reference(value, want):
    ev = valid("tool-result")
    ev["party"] = value
    assert codes(run(ev)) == [(c, "error", f"{BASE}/party") for c, _ in want]


def test_party_not_checked_against_absent_parties():
    ev = valid("tool-result")
    ev["party"] = 99
    assert run(ev, Ctx(n_parties=None, n_sessions=1, attachments=[], redacted=False)) == []


@pytest.mark.parametrize("key", ["sessions", "session"])
@pytest.mark.parametrize(("value", "want"), ref_cases("sessions", 1))
def test_session_reference(key, value, want):
    ev = valid("tool-invocation")
    del ev["sessions"]
    ev[key] = value
    assert codes(run(ev)) == [(c, "error", f"{BASE}/{key}") for c, _ in want]


def test_sessions_array():
    ev = valid("tool-invocation")
    ctx = Ctx(n_parties=2, n_sessions=2, attachments=[], redacted=False)
    ev["sessions"] = [0, 1]
    assert run(ev, ctx) == []
    ev["sessions"] = [1, 2, "x"]
    assert codes(run(ev, ctx)) == [
        ("index-out-of-range", "error", f"{BASE}/sessions/1"),
        ("invalid-type", "error", f"{BASE}/sessions/2"),
    ]
    ev["sessions"] = []
    assert codes(run(ev, ctx)) == [("invalid-value", "error", f"{BASE}/sessions")]
    ev["sessions"] = "0"
    assert codes(run(ev, ctx)) == [("invalid-type", "error", f"{BASE}/sessions")]


@pytest.mark.parametrize("value", [2**53, 2**70])
def test_an_index_past_an_unsignedint_says_it_is_too_large(value: int) -> None:
    """2**70 is 0 or more: the message says what is wrong with it, as attempt's does."""
    ev = valid("tool-invocation")
    ev["party"] = value
    [d] = run(ev)
    assert (d.code, d.pointer) == ("invalid-value", f"{BASE}/party")
    assert d.message == (f"tool-invocation: party {value} is larger than an UnsignedInt "
                         "allows (2^53-1)")
    ev["party"] = -1
    assert run(ev)[0].message == "tool-invocation: party -1 is not an UnsignedInt (0 or more)"


def test_session_out_of_range_when_there_are_no_sessions():
    ev = valid("tool-result")
    none = Ctx(n_parties=2, n_sessions=0, attachments=[], redacted=False)
    assert codes(run(ev, none)) == [("index-out-of-range", "error", f"{BASE}/sessions")]
    unknown = Ctx(n_parties=2, n_sessions=None, attachments=[], redacted=False)
    assert run(ev, unknown) == []


@pytest.mark.parametrize(("value", "want"), ref_cases("attachment", 2))
def test_attachment_reference(value, want):
    ev = valid("tool-result")
    ev["attachment"] = value
    assert codes(run(ev)) == [(c, "error", f"{BASE}/attachment") for c, _ in want]


def test_attachment_array_and_empty_attachments():
    ev = valid("tool-invocation")
    ev["attachment"] = [0, 1, 2]
    assert codes(run(ev)) == [("index-out-of-range", "error", f"{BASE}/attachment/2")]
    ev["attachment"] = 0
    no_att = Ctx(n_parties=2, n_sessions=1, attachments=[], redacted=False)
    assert codes(run(ev, no_att)) == [("index-out-of-range", "error", f"{BASE}/attachment")]
    bad_shape = Ctx(n_parties=2, n_sessions=1, attachments=None, redacted=False)
    assert run(ev, bad_shape) == []
    ev["attachment"] = "0"
    assert codes(run(ev)) == [("invalid-type", "error", f"{BASE}/attachment")]


# --- content --------------------------------------------------------------------------------------


def content(**kw: Any) -> list[tuple[str, str, str]]:
    ev = valid("tool-result")
    for k in CONTENT:
        del ev[k]
    ev.update({k: v for k, v in kw.items()})
    return codes(run(ev))


def test_body_and_url_together():
    assert content(body="x", encoding="none", mediatype="text/plain",
                   url="https://x.example/c", content_hash=SHA512) == [
        ("content-body-and-url", "error", BASE)]


def test_inline_mediatype_required():
    assert content(body={"a": 1}, encoding="json") == [
        ("content-mediatype-missing", "error", BASE)]
    assert content(body="x", encoding="none", mediatype=5) == [
        ("invalid-type", "error", f"{BASE}/mediatype")]
    assert content(body="x", encoding="none", mediatype="text") == [
        ("invalid-value", "error", f"{BASE}/mediatype")]


@pytest.mark.parametrize("body", ["x", {"a": 1}, [], 0, False])
def test_non_empty_body_needs_encoding(body):
    assert content(body=body, mediatype="application/json") == [
        ("content-encoding-missing", "error", BASE)]


def test_empty_string_body_needs_no_encoding():
    assert content(body="", mediatype="text/plain") == []


@pytest.mark.parametrize("body", ["a string", 1, None, [1, "x"], {"k": None}, True])
def test_json_body_is_any_json_value(body):
    # A null body is absent: an encoding without a body is then an error outside a redacted
    # vCon (draft §Event Content: body is optional only in a redacted vCon).
    want = [("missing-required", "error", BASE)] if body is None else []
    assert content(body=body, encoding="json", mediatype="application/json") == want


@pytest.mark.parametrize(("body", "ok"), [
    ("plain text", True), ("", True), ({"a": 1}, False), (5, False), (["x"], False),
])
def test_none_body_must_be_a_string(body, ok):
    got = content(body=body, encoding="none", mediatype="text/plain")
    assert got == ([] if ok else [("content-body-invalid", "error", f"{BASE}/body")])


@pytest.mark.parametrize(("body", "ok"), [
    (_b64(b"hello"), True), (_b64(b"hello") + "=", True), (_b64(b"hi"), True),
    (_b64(b"hi") + "=", True), (_b64(b"h") + "==", True),
    (_b64(b"hi") + "==", False), (_b64(bytes(range(256))), True), ("", True),
    ("-_-_", True),
    ("aGVsbG8==", False),  # too much padding for its length
    ("aGV=sbG8", False), ("a+b/", False), ("abcde", False), ("aGVsbG8===", False),
    ("aGVs bG8", False), ({"a": 1}, False), (12, False),
])
def test_base64url_body(body, ok):
    got = content(body=body, encoding="base64url", mediatype="application/octet-stream")
    assert got == ([] if ok else [("content-body-invalid", "error", f"{BASE}/body")])


def test_external_content_with_hash_is_valid():
    url = "https://x.example/out.json"
    assert content(url=url, content_hash=SHA512, mediatype="application/json") == []
    assert content(url=url, content_hash=[SHA256, SHA512]) == []
    assert content(url=url, content_hash=SHA512 + "==") == []


def test_external_content_needs_content_hash():
    assert content(url="https://x.example/c") == [("content-hash-missing", "error", BASE)]
    assert content(url=5, content_hash=SHA512) == [("invalid-type", "error", f"{BASE}/url")]


@pytest.mark.parametrize(("value", "ptr"), [
    ("sha512:" + SHA512[7:], ""),
    ("SHA512-" + SHA512[7:], ""),
    ("sha-512-" + SHA512[7:], ""),
    (SHA512[:-1], ""),  # one character short
    (SHA512 + "A", ""),
    (SHA512[:20] + "+" + SHA512[21:], ""),
    ("sha512-", ""),
    (SHA256, ""),  # no sha512 token
    ([SHA256], ""),
    ([], ""),
    (5, ""),
    ([SHA512, 5], "/1"),
    ([SHA512, "md5"], "/1"),
])
def test_invalid_content_hash(value, ptr):
    got = content(url="https://x.example/c", content_hash=value)
    assert got and {c for c, _, _ in got} == {"content-hash-invalid"}
    assert got[0][2] == f"{BASE}/content_hash{ptr}"


def test_redacted_content_without_body_or_url_is_fine():
    ev = valid("tool-result")
    del ev["body"]
    assert run(ev, REDACTED) == []
    ev2 = valid("tool-result")
    for k in CONTENT:
        del ev2[k]
    ev2.update(content_hash=SHA512, mediatype="application/json")
    assert run(ev2, REDACTED) == []


def test_messages_neutralise_recorded_text():
    ev = valid("tool-invocation")
    ev["server"] = "!evil\x1b]52;c;aGk=\x07\u202e"
    (d,) = run(ev)
    assert "\x1b" not in d.message and "\u202e" not in d.message and "\x07" not in d.message
    assert "\\x1b" in d.message
    assert "\n" not in d.message


def test_event_is_not_modified():
    ev = valid("tool-result")
    ev.update(server=None, attempt=0, body=None)
    before = copy.deepcopy(ev)
    run(ev)
    assert ev == before


# --- Ctx ----------------------------------------------------------------------------------------


def test_ctx_of():
    c = Ctx.of({"parties": [{}, {}], "sessions": [{}], "attachments": [{}],
                "redacted": {"uuid": "u"}})
    assert (c.n_parties, c.n_sessions, c.attachments, c.redacted) == (2, 1, [{}], True)
    c = Ctx.of({})
    assert (c.n_parties, c.n_sessions, c.attachments, c.redacted) == (None, 0, [], False)
    c = Ctx.of({"parties": "x", "sessions": {}, "attachments": 3, "redacted": None})
    assert (c.n_parties, c.n_sessions, c.attachments, c.redacted) == (None, None, None, False)
    assert Ctx.of({"session": [{}, {}, {}]}).n_sessions == 3  # legacy top-level name
    assert Ctx.of({"sessions": None, "session": [{}]}).n_sessions == 1
    # An empty redacted object is no redaction (core: empty objects may be left out).
    assert Ctx.of({"redacted": {}}).redacted is False
    assert Ctx.of({"redacted": []}).redacted is False


def test_pointer_escapes():
    assert pointer("events", 3, "attempt") == "/events/3/attempt"
    assert pointer("a/b", "m~n") == "/a~1b/m~0n"
    assert pointer() == ""


# --- check_vcon ---------------------------------------------------------------------------------


def top(vcon: dict[str, Any], lifecycle: bool = False) -> list[tuple[str, str, str]]:
    out: list[Diagnostic] = []
    check_vcon(vcon, lifecycle, out)
    return codes(out)


CLEAN = {"vcon": "0.4.0", "uuid": "u", "created_at": "2026-03-01T09:00:00Z",
         "parties": [{}], "extensions": [spec.EXTENSION_NAME], "sessions": [{}]}


def test_clean_vcon_has_no_top_level_diagnostics():
    assert top(CLEAN, True) == []
    assert top({**CLEAN, "extensions": None}, False) == []


def test_extension_not_listed():
    assert top({**CLEAN, "extensions": ["other"]}, True) == [
        ("extension-not-listed", "warning", "/extensions")]
    v = dict(CLEAN)
    del v["extensions"]
    assert top(v, True) == [("extension-not-listed", "warning", "")]
    assert top(v, False) == []
    assert top({**CLEAN, "extensions": "tool-invocation"}, True) == [
        ("invalid-type", "error", "/extensions"),
        ("extension-not-listed", "warning", "/extensions")]
    assert top({**CLEAN, "extensions": [spec.EXTENSION_NAME, 3]}, True) == [
        ("invalid-type", "error", "/extensions/1")]


def test_parties_absent():
    """Required by core-03 in any vCon; with tool events the draft's reason is given."""
    v = dict(CLEAN)
    del v["parties"]
    for lifecycle, why in ((True, "MUST refer to the agent"), (False, "core-03 makes it required")):
        out: list[Diagnostic] = []
        check_vcon(v, lifecycle, out)
        assert codes(out) == [("missing-required", "error", "")]
        assert why in out[0].message
    assert top({**CLEAN, "parties": None}, False) == [("missing-required", "error", "")]
    assert top({**CLEAN, "parties": []}, False) == []  # empty is fine: no party known


@pytest.mark.parametrize(("uuid", "expected"), [
    (None, [("missing-required", "error", "")]),
    ("", [("invalid-value", "error", "/uuid")]),
    ("  ", [("invalid-value", "error", "/uuid")]),
    (7, [("invalid-structure", "error", "/uuid")]),
    ("0190e5f1-a2b3-8c4d-9e5f-0123456789ab", []),
])
def test_uuid_required_and_not_empty(uuid: Any, expected: list) -> None:
    v = dict(CLEAN)
    if uuid is None:
        del v["uuid"]
    else:
        v["uuid"] = uuid
    assert top(v, False) == expected


def test_core_index_references():
    """dialog parties/originator, analysis dialog, attachments party/dialog: in range, typed."""
    v = {**CLEAN, "parties": [{}, {}], "dialog": [
        {"parties": [0, [1, 0]], "originator": 1},  # nested arrays are core-03's own shape
        {"parties": 1},
        {"parties": [0, 2, [5]], "originator": 2},
        {"parties": [-1, "a", [[0]], True, 1.0], "originator": [0]},
    ], "analysis": [{"dialog": 3}, {"dialog": [0, 4]}, {"dialog": [[0]]}, {"dialog": False}],
        "attachments": [{"party": 1, "dialog": 0}, {"party": 2, "dialog": 9}]}
    assert top(v, False) == [
        ("index-out-of-range", "error", "/dialog/2/parties/1"),
        ("index-out-of-range", "error", "/dialog/2/parties/2/0"),
        ("index-out-of-range", "error", "/dialog/2/originator"),
        ("invalid-value", "error", "/dialog/3/parties/0"),  # as on events: -1 is a bad value
        ("invalid-type", "error", "/dialog/3/parties/1"),
        ("invalid-type", "error", "/dialog/3/parties/2/0"),
        ("invalid-type", "error", "/dialog/3/parties/3"),  # a boolean is not an index
        ("invalid-type", "error", "/dialog/3/parties/4"),  # nor is 1.0
        ("invalid-type", "error", "/dialog/3/originator"),
        ("index-out-of-range", "error", "/analysis/1/dialog/1"),
        ("invalid-type", "error", "/analysis/2/dialog/0"),
        ("invalid-type", "error", "/analysis/3/dialog"),
        ("index-out-of-range", "error", "/attachments/1/party"),
        ("index-out-of-range", "error", "/attachments/1/dialog"),
    ]
    out: list[Diagnostic] = []
    check_vcon(v, False, out)
    assert out[0].message == ("dialog[2]: parties[1] 2 refers to parties[2], but parties has 2 "
                              "elements")
    assert out[7].message == "dialog[3]: parties[4] must be an UnsignedInt, found a number 1.0"


def test_core_mediatype_must_be_a_string():
    v = {**CLEAN, "dialog": [{"mimetype": 12345}, {"mediatype": "text/plain"}],
         "attachments": [{"mediatype": ["a"]}]}
    assert [c for c in top(v, False) if c[1] == "error"] == [
        ("invalid-type", "error", "/dialog/0/mimetype"),
        ("invalid-type", "error", "/attachments/0/mediatype")]


@pytest.mark.parametrize(("member", "value"), [
    ("parties", "alice"), ("events", {}), ("analysis", "a string"), ("dialog", 5),
    ("attachments", {}), ("sessions", 0), ("redacted", "yes"), ("amended", []),
    ("created_at", 1700000000), ("uuid", 5),
])
def test_wrong_top_level_shape(member, value):
    got = top({**CLEAN, member: value})
    assert ("invalid-structure", "error", "/" + member) in got


@pytest.mark.parametrize("member", ["parties", "events", "analysis", "dialog", "attachments"])
def test_null_top_level_member_is_absent(member):
    absent = dict(CLEAN)
    absent.pop(member, None)
    # null reads as absent: no structure error, only what absence itself gives (parties is
    # required by core-03)
    assert top({**CLEAN, member: None}) == top(absent) == (
        [("missing-required", "error", "")] if member == "parties" else [])


def test_items_must_be_objects():
    assert top({**CLEAN, "parties": [{}, "bob"], "dialog": [None]}) == [
        ("invalid-structure", "error", "/parties/1"), ("invalid-structure", "error", "/dialog/0")]


def test_created_at():
    v = dict(CLEAN)
    del v["created_at"]
    assert top(v) == [("missing-required", "warning", "")]
    assert top({**CLEAN, "created_at": "yesterday"}) == [
        ("time-unparsable", "warning", "/created_at")]
    assert top({**CLEAN, "created_at": "2026-03-01T09:00:00"}) == [
        ("time-no-offset", "warning", "/created_at")]
    assert top({**CLEAN, "created_at": "2026-03-01T09:00:00.123+02:00"}) == []


def test_legacy_names_synthetic():
    v = {**CLEAN, "appended": {"uuid": "x"}, "group": [], "session": [{}],
         "must_support": ["x"],
         "dialog": [{"mimetype": "text/plain", "alg": "SHA-512", "signature": "x",
                     "transfer-target": 1}],
         "attachments": [{"mimetype": "text/plain"}], "analysis": [{"mimetype": "a/b"}]}
    got = top(v)
    assert got == [
        ("legacy-parameter", "warning", "/appended"),
        ("legacy-parameter", "warning", "/group"),
        ("legacy-parameter", "warning", "/session"),
        ("legacy-parameter", "warning", "/dialog/0/mimetype"),
        ("legacy-parameter", "warning", "/dialog/0/alg"),
        ("legacy-parameter", "warning", "/dialog/0/signature"),
        ("legacy-parameter", "warning", "/dialog/0/transfer-target"),
        ("legacy-parameter", "warning", "/attachments/0/mimetype"),
        ("legacy-parameter", "warning", "/analysis/0/mimetype"),
    ]
    # null legacy members are absent; party role is fine; must_support is the loader's.
    assert top({**CLEAN, "appended": None, "group": None, "parties": [{"role": "agent"}]}) == []


# --- real drift from the corpus ------------------------------------------------------------------


def load(name: str) -> dict[str, Any]:
    return json.loads((FIX / name).read_text(encoding="utf-8"))


def test_corpus_cat_like_fake_vcon_chat():
    got = top(load("fake-vcons__chat_10_texts.vcon.json"))
    assert got.count(("legacy-parameter", "warning", "/group")) == 1
    mimetypes = [p for c, _, p in got if c == "legacy-parameter" and p.endswith("/mimetype")]
    assert mimetypes == [f"/dialog/{i}/mimetype" for i in range(10)]
    assert all(s == "warning" for _, s, _ in got)


def test_corpus_dataset_alg_signature_and_naive_created_at():
    got = top(load("vcon-server__dataset_9a752af2.vcon.json"))
    assert ("legacy-parameter", "warning", "/dialog/0/alg") in got
    assert ("legacy-parameter", "warning", "/dialog/0/signature") in got
    assert all(s == "warning" for _, s, _ in got)


def test_corpus_null_dialog_string_analysis():
    got = top(load("vcon-server__null_dialog_string_analysis.json"))
    assert ("invalid-structure", "error", "/analysis") in got
    assert not any(p == "/dialog" for _, _, p in got)  # null dialog is absent


# --- from review ------------------------------------------------------------------------------
def _diags_of(ev: dict, **top: object) -> list[tuple[str, str, str]]:
    from tests.modelkit import model_of

    return [(d.code, d.severity, d.pointer) for d in model_of([ev], **top).diagnostics]


def test_encoding_without_body_is_an_error_unless_redacted() -> None:
    from tests.modelkit import tool

    ev = tool("tool-pending", 0, encoding="json", mediatype="application/json")
    assert ("missing-required", "error", "/events/0") in _diags_of(ev)
    assert not [d for d in _diags_of(ev, redacted={"uuid": "x"}) if d[0] == "missing-required"]


def test_content_hash_without_url_is_an_error() -> None:
    from tests.modelkit import tool

    ev = tool("tool-result", 0, body=None, content_hash="sha512-" + "A" * 86)
    del ev["body"]
    assert ("missing-required", "error", "/events/0") in _diags_of(ev)


def test_attempt_beyond_unsigned_int() -> None:
    from tests.modelkit import tool

    ev = tool("tool-invocation", 0, attempt=2**60)
    assert ("invalid-value", "error", "/events/0/attempt") in _diags_of(ev)
