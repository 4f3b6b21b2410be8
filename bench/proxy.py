"""A big vcon-mcp-proxy vCon (one text dialog per JSON-RPC message), and how long lifting it takes.

    .venv/bin/python bench/proxy.py --messages 50000            # writes bench/out/, times it
    .venv/bin/python bench/proxy.py --messages 50000 --no-time  # only writes the file

The session is an ``initialize`` handshake, ``tools/list``, then tools/call after tools/call with
distinct arguments (two in flight at a time), progress notifications, an elicitation now and
then (the server's request ids count from 1 too, so they collide with the client's), a ping
each way, and results of a few hundred bytes. The MCP server party's role is ``agent``, as in
the real capture that made the lifter read nothing as answered: direction must come from the
messages, not the roles. ``proxy_vcon`` is also used by tests/test_import_lift.py (small n).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

T0 = datetime(2026, 4, 2, 9, 0, 0, tzinfo=UTC)
TOOLS = ["get_forecast", "get_weather", "search_kb", "read_file"]


def _t(ms: int) -> str:
    t = T0 + timedelta(milliseconds=ms)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


def _dialog(ms: int, sender: int, msg: dict[str, Any], kind: str) -> dict[str, Any]:
    meta: dict[str, Any] = {"mcp_type": kind}
    if "method" in msg:
        meta["mcp_method"] = msg["method"]
    if "id" in msg:
        meta["request_id"] = msg["id"]
    return {"type": "text", "start": _t(ms), "parties": [sender, 1 - sender],
            "originator": sender, "mediatype": "application/json", "encoding": "none",
            "body": json.dumps(msg), "meta": meta}


def proxy_vcon(messages: int, *, client: dict[str, Any] | None = None,
               server: dict[str, Any] | None = None, pad: int = 300) -> dict[str, Any]:
    """About ``messages`` dialogs; party 0 the client, party 1 the MCP server (role agent)."""
    out: list[dict[str, Any]] = []
    ms = 0

    def add(sender: int, msg: dict[str, Any], kind: str) -> None:
        nonlocal ms
        ms += 7
        out.append(_dialog(ms, sender, dict(jsonrpc="2.0", **msg), kind))

    add(0, {"id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}},
        "clientInfo": {"name": "bench-client", "version": "1"}}}, "request")
    add(1, {"id": 0, "result": {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                                "serverInfo": {"name": "bench-weather", "version": "1"}}},
        "response")
    add(0, {"method": "notifications/initialized"}, "notification")
    add(0, {"id": 1, "method": "tools/list"}, "request")
    add(1, {"id": 1, "result": {"tools": [{"name": n} for n in TOOLS]}}, "response")
    rid, sid, k = 2, 1, 0
    while len(out) < messages:
        a, b = rid, rid + 1
        rid += 2
        for r in (a, b):
            add(0, {"id": r, "method": "tools/call", "params": {
                "name": TOOLS[r % len(TOOLS)], "arguments": {"q": f"question {r}"},
                "_meta": {"progressToken": f"p{r}"}}}, "request")
        add(1, {"method": "notifications/progress",
                "params": {"progressToken": f"p{b}", "progress": 50, "total": 100}},
            "notification")
        if k % 10 == 0:  # the server asks; its id counts on its own and collides
            add(1, {"id": sid, "method": "elicitation/create", "params": {
                "message": "which city?", "requestedSchema": {"type": "object"}}}, "request")
            add(0, {"id": sid, "result": {"action": "accept", "content": {"city": "Oslo"}}},
                "response")
            sid += 1
        if k % 25 == 0:
            add(0, {"id": f"ping-{k}", "method": "ping"}, "request")
            add(1, {"id": f"ping-{k}", "result": {}}, "response")
            add(1, {"id": sid, "method": "ping"}, "request")
            add(0, {"id": sid, "result": {}}, "response")
            sid += 1
        for r in (b, a):
            failed = r % 17 == 0
            add(1, {"id": r, "result": {"content": [{"type": "text", "text": (
                f"answer {r} " + "x" * pad)}], "isError": failed}}, "response")
        k += 1
    return {
        "vcon": "0.4.0", "uuid": "0195f0aa-0000-8000-8000-0000000be4c4",
        "created_at": _t(0), "subject": f"vcon-mcp-proxy capture, {len(out)} messages (bench)",
        "parties": [client if client is not None else {"name": "bench-client", "role": "user"},
                    server if server is not None else {"name": "bench-weather",
                                                       "role": "agent"}],
        "dialog": out,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--messages", type=int, default=50_000)
    ap.add_argument("--no-time", action="store_true")
    ap.add_argument("-o", "--output")
    args = ap.parse_args()
    path = Path(args.output or f"bench/out/proxy-{args.messages}.vcon.json")
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists():
        path.write_text(json.dumps(proxy_vcon(args.messages)))
    print(f"{path}: {path.stat().st_size / 1e6:.1f} MB", file=sys.stderr)
    if args.no_time:
        return 0
    if not os.environ.get("PYTHONPATH"):  # PYTHONPATH=TREE measures that tree's viewer/
        sys.path.insert(0, ".")
    from viewer.importers.lift import lift
    from viewer.model.build import build_model
    from viewer.pipeline import open_bytes

    data = path.read_bytes()
    vcon = json.loads(data)
    t, c = time.perf_counter(), time.process_time()
    events, prov = lift(vcon)
    lifted, lifted_cpu = time.perf_counter() - t, time.process_time() - c
    t, c = time.perf_counter(), time.process_time()
    model = build_model(open_bytes(data, name=path.name))  # load, lift, build
    built, built_cpu = time.perf_counter() - t, time.process_time() - c
    outcomes: dict[str, int] = {}
    for op in model.operations:
        outcomes[op.outcome] = outcomes.get(op.outcome, 0) + 1
    print(f"lift: {lifted:.2f} s wall, {lifted_cpu:.2f} s CPU ({len(events)} events, "
          f"{prov.report.unmapped} unmapped); load + lift + build_model: {built:.2f} s wall, "
          f"{built_cpu:.2f} s CPU; outcomes {outcomes}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
