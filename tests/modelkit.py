"""Build small vCons for model tests: one clear line per event."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import orjson

from viewer.load import load_bytes
from viewer.model.build import build_model
from viewer.model.types import Model

T0 = datetime(2026, 3, 1, 9, 0, 0, tzinfo=UTC)
SERVER = "https://tools.example.com/mcp"


def t(seconds: float) -> str:
    """A time ``seconds`` after T0, RFC 3339 with Z."""
    return (T0 + timedelta(seconds=seconds)).isoformat().replace("+00:00", "Z")


def tool(typ: str, at: float, op: str = "op-1", attempt: int = 1, **kw: Any) -> dict[str, Any]:
    ev: dict[str, Any] = {
        "type": typ, "time": t(at), "sessions": 0, "party": 1,
        "operation_id": op, "attempt": attempt,
    }
    if typ == "tool-invocation":
        ev["server"] = kw.pop("server", SERVER)
        ev["tool"] = kw.pop("tool", "lookup")
    if typ not in ("tool-pending", "tool-timeout", "tool-cancel") and "body" not in kw:
        ev.update(body={"n": at}, encoding="json", mediatype="application/json")
    ev.update(kw)
    return ev


def once(at: float, decision: str, op: str = "op-1", attempt: int = 1, **kw: Any) -> dict:
    ev = {
        "type": "policy-decision", "time": t(at), "sessions": 0, "party": 1,
        "decision": decision, "policy_life": "once", "operation": "tool-invocation",
        "operation_id": op, "attempt": attempt, "server": kw.pop("server", SERVER),
        "tool": kw.pop("tool", "lookup"),
    }
    ev.update(kw)
    return ev


def standing(at: float, decision: str, tool_name: str | None = None, **kw: Any) -> dict:
    ev = {
        "type": "policy-decision", "time": t(at), "sessions": 0, "party": 1,
        "decision": decision, "policy_life": "standing", "operation": "tool-invocation",
        "server": kw.pop("server", SERVER),
    }
    if tool_name is not None:
        ev["tool"] = tool_name
    ev.update(kw)
    return ev


def vcon(events: list[dict[str, Any]], **top: Any) -> dict[str, Any]:
    v = {
        "vcon": "0.4.0",
        "uuid": "0195544a-0000-7000-8000-000000000001",
        "created_at": t(0),
        "extensions": ["tool-invocation"],
        "parties": [{"name": "Alice"}, {"name": "Agent"}],
        "sessions": [{"start": t(0), "parties": [0, 1]}],
        "events": events,
    }
    v.update(top)
    return v


def model_of(events: list[dict[str, Any]], **top: Any) -> Model:
    return build_model(load_bytes(orjson.dumps(vcon(events, **top)), name="test.vcon.json"))


def kinds(m: Model) -> list[tuple[str, str | None, int | None]]:
    return [(f.kind, f.operation_id, f.attempt) for f in m.findings]


def codes(m: Model) -> list[str]:
    return [d.code for d in m.diagnostics]
