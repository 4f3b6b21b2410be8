"""A small streaming generator of large tool-invocation vCons, for the benchmarks only.

``bench/run.py`` prefers the demo library's ``bench/generate.py``; this one is the fallback
(and the one used while that is being written). It writes the ``events`` array one event at a
time, so memory stays flat whatever the size::

    .venv/bin/python bench/genbig.py --operations 50000 -o bench/out/genbig-50000.vcon.json

Each operation is a mix drawn from a seeded RNG: a once policy-decision (60 %), a
tool-invocation, tool-progress (40 %), then a tool-result, a tool-error (with a retry, 8 %) or
a tool-timeout; about 4.4 events and 1 kB of JSON per operation, with a few standing decisions
and context events (join/leave). Operations overlap in time, so replay order differs from
array order.
"""

from __future__ import annotations

import argparse
import random
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import orjson

T0 = datetime(2026, 4, 2, 9, 0, 0, tzinfo=UTC)
SERVERS = ["https://mcp.shop.example/mcp", "https://mcp.crm.example/mcp", "!host"]
TOOLS = ["lookup_order", "update_address", "refund", "search_kb", "send_email", "read_file"]


def _t(ms: int) -> str:
    t = T0 + timedelta(milliseconds=ms)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


def _events(operations: int, rng: random.Random):
    yield {"type": "join", "time": _t(0), "session": 0, "party": 0}
    yield {"type": "join", "time": _t(1), "session": 0, "party": 1}
    for k, server in enumerate(SERVERS[:2]):
        yield {"type": "policy-decision", "time": _t(2 + k), "sessions": 0, "party": 1,
               "operation": "tool-invocation", "policy_life": "standing",
               "decision": "allowed", "reason": "support tools allowed", "server": server}
    clock = 10
    pending: list[tuple[int, dict]] = []  # (time, event) emitted later: out-of-array-order
    for n in range(operations):
        op = f"op-{n:07d}"
        server = rng.choice(SERVERS)
        tool = rng.choice(TOOLS)
        clock += rng.randint(5, 400)
        at = clock
        attempts = 2 if rng.random() < 0.08 else 1
        if rng.random() < 0.6:
            yield {"type": "policy-decision", "time": _t(at), "sessions": 0, "party": 1,
                   "operation_id": op, "attempt": 1, "operation": "tool-invocation",
                   "policy_life": "once",
                   "decision": "disallowed" if rng.random() < 0.02 else "allowed",
                   "server": server, "tool": tool}
            at += rng.randint(1, 20)
        for attempt in range(1, attempts + 1):
            rid = n * 4 + attempt
            yield {"type": "tool-invocation", "time": _t(at), "sessions": 0, "party": 1,
                   "operation_id": op, "attempt": attempt, "server": server, "tool": tool,
                   "mediatype": "application/json", "encoding": "json",
                   "body": {"jsonrpc": "2.0", "id": rid, "method": "tools/call",
                            "params": {"name": tool,
                                       "arguments": {"order_id": str(40000 + n)}}}}
            at += rng.randint(10, 900)
            if rng.random() < 0.4:
                yield {"type": "tool-progress", "time": _t(at), "sessions": 0, "party": 1,
                       "operation_id": op, "attempt": attempt,
                       "mediatype": "application/json", "encoding": "json",
                       "body": {"jsonrpc": "2.0", "method": "notifications/progress",
                                "params": {"progressToken": f"pt-{rid}", "progress": 1,
                                           "total": 2, "message": "querying warehouse"}}}
                at += rng.randint(10, 900)
            if attempt < attempts:
                ev = {"type": "tool-error", "time": _t(at), "sessions": 0, "party": 1,
                      "operation_id": op, "attempt": attempt,
                      "mediatype": "application/json", "encoding": "json",
                      "body": {"jsonrpc": "2.0", "id": rid,
                               "error": {"code": -32000, "message": "upstream timeout"}}}
            elif rng.random() < 0.03:
                ev = {"type": "tool-timeout", "time": _t(at), "sessions": 0, "party": 1,
                      "operation_id": op, "attempt": attempt}
            else:
                ev = {"type": "tool-result", "time": _t(at), "sessions": 0, "party": 1,
                      "operation_id": op, "attempt": attempt,
                      "mediatype": "application/json", "encoding": "json",
                      "body": {"jsonrpc": "2.0", "id": rid, "result": {"content": [
                          {"type": "text",
                           "text": f"Order {40000 + n}: shipped via ParcelCo, status "
                                   f"{rng.choice(['delivered', 'returned', 'in transit'])}."}
                      ]}}}
            pending.append((at, ev))
            at += rng.randint(5, 50)
        # results land in the array a little later than they happen (concurrent operations)
        while len(pending) > 3:
            yield pending.pop(0)[1]
    for _, ev in pending:
        yield ev
    yield {"type": "leave", "time": _t(clock + 10_000), "session": 0, "party": 0}


def generate(path: str | Path, operations: int, seed: int = 0) -> int:
    """Write the vCon to ``path``; returns the number of events."""
    rng = random.Random(seed)
    head = {
        "vcon": "0.4.0",
        "uuid": f"00000000-0000-4000-8000-{seed:012d}",
        "created_at": _t(0),
        "subject": f"benchmark: {operations} tool operations",
        "extensions": ["tool-invocation"],
        "parties": [{"name": "Customer", "validation": "none"},
                    {"name": "Support Agent", "validation": "none"}],
        "sessions": [{"start": _t(0), "parties": [0, 1]}],
    }
    count = 0
    with open(path, "wb") as f:
        f.write(orjson.dumps(head)[:-1] + b',"events":[\n')
        for ev in _events(operations, rng):
            if count:
                f.write(b",\n")
            f.write(orjson.dumps(ev))
            count += 1
        f.write(b"\n]}\n")
    return count


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="Write a large tool-invocation vCon (benchmarks).")
    p.add_argument("--operations", type=int, required=True)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("-o", "--output", required=True)
    args = p.parse_args(argv)
    n = generate(args.output, args.operations, args.seed)
    print(f"{args.output}: {n} events", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
