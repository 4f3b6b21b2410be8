"""Generate big tool-invocation vCons for benchmarks, streaming, seeded.

    python bench/generate.py --operations N [--events-per-op K] [--big-result-mb M]
                             [--attachments A] [--seed S] -o FILE

or ``from bench.generate import generate; generate(path, operations, seed=0, ...)``.

The file is written as it is generated (events are never all held in memory), so a million
events need a few megabytes of RAM. The mix of operations is realistic and valid per
draft-petrie-vcon-tool-invocation: most complete, some fail, error, are denied and escalated,
time out and are retried (with late first results), run as tasks, ask for input, are
cancelled (and keep sending progress), or are not performed; a few run against a standing
disallow. ``vcon-view check`` reports findings on such a file but no error diagnostic.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import random
import sys
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

import orjson

START_MS = int(datetime(2026, 1, 5, 8, 0, tzinfo=UTC).timestamp() * 1000)
PERSON, AGENT = 0, 1
SERVERS = (
    ("https://mcp.shop.example/mcp", ("lookup_order", "update_address", "issue_refund",
                                      "export_invoices", "delete_customer")),
    ("https://crm.example.com/mcp", ("read_crm_notes", "write_crm_note", "search_contacts")),
    ("https://mcp.k8s-ops.example/mcp", ("list_pods", "restart_deployment", "get_logs")),
    ("filesystem", ("read_file", "write_file", "list_directory")),
    ("!host", ("delegate_to_subagent", "run_shell")),
)
DISALLOWED = ("https://mcp.shop.example/mcp", "delete_customer")
FREEZE = ("https://mcp.k8s-ops.example/mcp", None)  # server-wide permission-required at 50 %

#: (kind, weight): the mix of operation stories.
MIX = (
    ("completed", 66), ("failed", 6), ("errored", 5), ("denied-escalated", 4),
    ("timeout-retry-late", 4), ("task", 5), ("input", 4), ("cancel-unterminated", 2),
    ("cancel-completed", 1), ("timeout-abandoned", 1), ("not-performed", 1),
    ("disallowed", 1),
)
KINDS = tuple(k for k, _ in MIX)
WEIGHTS = tuple(w for _, w in MIX)


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


class _Clock:
    """Millisecond clock with a cached per-second RFC 3339 prefix (fast for 1M events)."""

    def __init__(self, ms: int) -> None:
        self.ms = ms
        self._sec = -1
        self._prefix = ""

    def add(self, ms: int) -> None:
        self.ms += ms

    def now(self) -> str:
        sec, milli = divmod(self.ms, 1000)
        if sec != self._sec:
            self._sec = sec
            self._prefix = datetime.fromtimestamp(sec, UTC).strftime("%Y-%m-%dT%H:%M:%S.")
        return f"{self._prefix}{milli:03d}Z"


class _Writer:
    """Buffers encoded events and writes them in ~1 MB chunks."""

    def __init__(self, fh: IO[bytes]) -> None:
        self.fh = fh
        self.buf: list[bytes] = []
        self.size = 0
        self.count = 0

    def event(self, ev: dict[str, Any]) -> None:
        data = orjson.dumps(ev)
        self.buf.append(b",\n" + data if self.count else b"\n" + data)
        self.size += len(data)
        self.count += 1
        if self.size > 1 << 20:
            self.flush()

    def flush(self) -> None:
        self.fh.write(b"".join(self.buf))
        self.buf.clear()
        self.size = 0


class _Gen:
    """The state of one generation run: clock, rng, writer and the operation being written."""

    def __init__(self, w: _Writer, rng: random.Random, clock: _Clock, attachments: int) -> None:
        self.w, self.rng, self.clock, self.attachments = w, rng, clock, attachments
        self.rpc = 0
        self.op, self.server, self.tool = "", "", ""

    def ev(self, type_: str, attempt: int | None = None, body: Any = None, *,
           op: bool = True, **extra: Any) -> None:
        e: dict[str, Any] = {"type": type_, "time": self.clock.now(), "sessions": 0,
                             "party": AGENT}
        if op:
            e["operation_id"] = self.op
        if attempt is not None:
            e["attempt"] = attempt
        e.update(extra)
        if body is not None:
            e["mediatype"] = "application/json"
            e["encoding"] = "json"
            e["body"] = body
        self.w.event(e)

    def standing(self, decision: str, server: str, tool: str | None, reason: str) -> None:
        extra: dict[str, Any] = {"operation": "tool-invocation", "policy_life": "standing",
                                 "decision": decision, "reason": reason, "server": server}
        if tool is not None:
            extra["tool"] = tool
        self.ev("policy-decision", op=False, **extra)

    def once(self, decision: str) -> None:
        self.w.event({"type": "policy-decision", "time": self.clock.now(), "sessions": 0,
                      "party": AGENT, "operation": "tool-invocation", "policy_life": "once",
                      "decision": decision, "operation_id": self.op, "attempt": 1,
                      "server": self.server, "tool": self.tool})

    def invoke(self, attempt: int) -> int:
        self.rpc += 1
        rng = self.rng
        args = {"target": f"item-{rng.randrange(100000)}", "limit": rng.randrange(1, 50)}
        body = ({"jsonrpc": "2.0", "id": self.rpc, "method": "tools/call",
                 "params": {"name": self.tool, "arguments": args}}
                if self.server != "!host" else args)
        kw: dict[str, Any] = {"server": self.server, "tool": self.tool}
        if self.attachments and rng.random() < 0.1:
            kw["attachment"] = rng.randrange(self.attachments)
        self.ev("tool-invocation", attempt, body, **kw)
        return self.rpc

    def result(self, attempt: int, rid: int, text: str, error: bool = False,
               type_: str = "tool-result") -> None:
        res: dict[str, Any] = {"content": [{"type": "text", "text": text}]}
        if error:
            res["isError"] = True
        self.ev(type_, attempt, {"jsonrpc": "2.0", "id": rid, "result": res})

    def progress(self, attempt: int, n: int, total: int) -> None:
        for k in range(n):
            self.clock.add(self.rng.randrange(20, 400))
            self.ev("tool-progress", attempt, {
                "jsonrpc": "2.0", "method": "notifications/progress",
                "params": {"progressToken": self.op, "progress": k + 1, "total": total}})

    def operation(self, i: int, kind: str, extra_progress: int, big_mb: float) -> None:
        """Write the events of operation number ``i`` of the given kind."""
        rng, clock = self.rng, self.clock
        if kind in ("not-performed", "disallowed"):
            self.once("permission-required" if kind == "not-performed" else "disallowed")
            return
        if rng.random() < 0.03:
            self.once("allowed")
            clock.add(2)
        rid = self.invoke(1)
        self.progress(1, extra_progress, extra_progress + 1)
        clock.add(rng.randrange(30, 1500))
        if big_mb > 0:
            text = ("x" * 1023 + "\n") * int(big_mb * 1024)
            self.ev("tool-result", 1, {"jsonrpc": "2.0", "id": rid, "result": {
                "content": [{"type": "text", "text": text}]}})
            return
        if kind == "completed":
            self.result(1, rid, f"ok: {rng.randrange(1000)} records")
        elif kind == "failed":
            self.result(1, rid, "upstream returned 500", error=True, type_="tool-failure")
        elif kind == "errored":
            self.ev("tool-error", 1, {"jsonrpc": "2.0", "id": rid, "error": {
                "code": -32602, "message": "Invalid params"}})
        elif kind == "denied-escalated":
            self.ev("tool-denied", 1, {"status": 403, "www_authenticate": {
                "error": "insufficient_scope", "scope": f"{self.tool}:write",
                "error_description": "The token lacks the required scope"}})
            clock.add(rng.randrange(2000, 20000))
            rid2 = self.invoke(2)
            clock.add(rng.randrange(30, 1500))
            self.result(2, rid2, "ok after step-up")
        elif kind in ("timeout-retry-late", "timeout-abandoned"):
            clock.add(30000)
            self.ev("tool-timeout", 1, {"waited_ms": 30000})
            if kind == "timeout-retry-late":
                clock.add(rng.randrange(200, 3000))
                rid2 = self.invoke(2)
                clock.add(rng.randrange(30, 1500))
                self.result(2, rid2, "ok (retry)")
                clock.add(rng.randrange(1000, 20000))
                self.result(1, rid, "ok (late)")
        elif kind == "task":
            task_id = str(uuid.UUID(int=rng.getrandbits(128), version=4))
            self.ev("tool-pending", 1, {"jsonrpc": "2.0", "id": rid, "result": {"task": {
                "taskId": task_id, "status": "working", "pollInterval": 2000}}})
            self.progress(1, 2, 3)
            clock.add(rng.randrange(500, 5000))
            self.result(1, rid, "task completed")
        elif kind == "input":
            eid = 10_000 + i
            self.ev("tool-input", 1, {"jsonrpc": "2.0", "id": eid, "method": "elicitation/create",
                                      "params": {"mode": "form", "message": "Confirm?",
                                                 "requestedSchema": {"type": "object",
                                                                     "properties": {}}}})
            clock.add(rng.randrange(1000, 15000))
            self.ev("tool-input-response", 1, {"jsonrpc": "2.0", "id": eid,
                                               "result": {"action": "accept"}})
            clock.add(rng.randrange(30, 1500))
            self.result(1, rid, "confirmed and done")
        elif kind.startswith("cancel"):
            self.ev("tool-cancel", 1, {"jsonrpc": "2.0", "method": "notifications/cancelled",
                                       "params": {"requestId": rid, "reason": "user cancelled"}})
            self.progress(1, 2, 10)
            if kind == "cancel-completed":
                clock.add(rng.randrange(100, 3000))
                self.result(1, rid, "finished anyway")


def generate(path: str | Path, operations: int, seed: int = 0, *,
             events_per_op: int | None = None, big_result_mb: float = 0.0,
             attachments: int = 0) -> dict[str, int]:
    """Write a vCon with ``operations`` operations to ``path``; returns counts.

    ``events_per_op`` pads performed operations with tool-progress events up to about K events
    each; ``big_result_mb`` makes one tool-result (in the middle) carry a text body of that many
    MiB; ``attachments`` adds A small inline Attachment Objects referenced by some invocations.
    """
    rng = random.Random(seed)
    clock = _Clock(START_MS)
    path = Path(path)
    dialog: list[dict[str, Any]] = []
    big_at = operations // 2 if big_result_mb > 0 else -1
    extra_progress = max(0, (events_per_op or 0) - 3)

    with path.open("wb") as fh:
        head = {
            "vcon": "0.4.0",
            "uuid": str(uuid.UUID(int=rng.getrandbits(128), version=4)),
            "subject": f"Generated benchmark: {operations} tool operations (seed {seed})",
            "extensions": ["tool-invocation"],
            "parties": [
                {"name": "Bench User", "mailto": "bench.user@example.com",
                 "validation": "email"},
                {"name": "Bench Agent (claude)", "validation": "none"},
            ],
        }
        fh.write(orjson.dumps(head, option=orjson.OPT_INDENT_2)[:-2] + b",\n")
        if attachments:
            fh.write(b'  "attachments": [')
            for i in range(attachments):
                data = hashlib.sha512(f"attachment {seed} {i}".encode()).digest() * 8
                att = {"purpose": "tool-input", "start": clock.now(), "party": PERSON,
                       "mediatype": "application/octet-stream", "filename": f"input-{i}.bin",
                       "encoding": "base64url", "body": _b64url(data)}
                fh.write((b",\n" if i else b"\n") + orjson.dumps(att))
            fh.write(b"\n  ],\n")
        fh.write(b'  "events": [')
        w = _Writer(fh)
        g = _Gen(w, rng, clock, attachments)
        for server, _tools in SERVERS:
            g.standing("allowed", server, None, "allowed by workspace policy")
            clock.add(1)
        g.standing("disallowed", *DISALLOWED, "reserved to the privacy team")

        for i in range(operations):
            g.op = f"op-{i:06x}"
            clock.add(rng.randrange(50, 2500))
            if i == operations // 2:
                g.standing("permission-required", FREEZE[0], FREEZE[1], "change freeze")
            if i % 100 == 0:
                dialog.append({"type": "text", "start": clock.now(), "parties": [PERSON, AGENT],
                               "originator": PERSON, "mediatype": "text/plain",
                               "encoding": "none", "body": f"Request {i // 100 + 1}: please "
                               "continue with the next batch."})
            g.server, tools = SERVERS[rng.randrange(len(SERVERS))]
            g.tool = tools[rng.randrange(len(tools))]
            if (g.server, g.tool) == DISALLOWED and rng.random() > 0.05:
                g.tool = tools[0]  # violations stay rare
            kind = rng.choices(KINDS, WEIGHTS)[0]
            g.operation(i, kind, extra_progress, big_result_mb if i == big_at else 0.0)

        w.flush()
        fh.write(b"\n  ],\n  \"dialog\": [")
        for k, d in enumerate(dialog):
            fh.write((b",\n" if k else b"\n") + orjson.dumps(d))
        clock.add(1000)
        sessions = [{"start": fmt_start(), "parties": [PERSON, AGENT],
                     "dialog": list(range(len(dialog))),
                     "duration": round((clock.ms - START_MS) / 1000, 3)}]
        fh.write(b"\n  ],\n  \"sessions\": " + orjson.dumps(sessions))
        fh.write(b",\n  \"created_at\": " + orjson.dumps(clock.now()) + b"\n}\n")
    return {"operations": operations, "events": w.count, "dialog": len(dialog),
            "attachments": attachments}


def fmt_start() -> str:
    return _Clock(START_MS).now()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--operations", type=int, required=True, metavar="N")
    p.add_argument("--events-per-op", type=int, default=None, metavar="K")
    p.add_argument("--big-result-mb", type=float, default=0.0, metavar="M")
    p.add_argument("--attachments", type=int, default=0, metavar="A")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("-o", "--output", required=True, metavar="FILE")
    args = p.parse_args(argv)
    stats = generate(args.output, args.operations, args.seed,
                     events_per_op=args.events_per_op, big_result_mb=args.big_result_mb,
                     attachments=args.attachments)
    print(" ".join(f"{k}={v}" for k, v in stats.items()), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
