"""Extreme shapes (issue 17): the cost of every dimension of a vCon, at N and at bigger N.

    .venv/bin/python bench/shapes.py                      # every shape at 1k and 8k
    .venv/bin/python bench/shapes.py --curve              # attempts of one operation: 1k, 10k,
                                                          # 100k against as many operations
    .venv/bin/python bench/shapes.py --shape attempts -n 1000 -n 10000

Each shape is a generated vCon whose size grows in one dimension only: the attempts of one
operation (a retry storm, with and without late answers), the events of one attempt,
operations, standing decisions (all applying to one tool, interleaved with its operations),
once decisions of one operation, findings, diagnostics, dialogs, attachments, parties and
signatures. The time measured is the whole headless path in one process: parse, model, and
every export (summary JSON, Markdown, CSV, check lines). A cost linear in N grows 8x from N to
8N; the growth tests (``tests/test_growth.py``) fail when it grows 32x (8^2 / 2).
"""

from __future__ import annotations

import argparse
import base64
import gc
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson

if __package__ in (None, ""):  # run as a script: the checkout's viewer
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

T0 = datetime(2026, 3, 1, 9, 0, 0, tzinfo=UTC)
SERVER = "https://tools.example.com/mcp"


def _t(seconds: float) -> str:
    return (T0 + timedelta(seconds=seconds)).isoformat().replace("+00:00", "Z")


def _ev(typ: str, at: float, op: str = "op-1", attempt: int = 1, **kw: Any) -> dict[str, Any]:
    ev: dict[str, Any] = {"type": typ, "time": _t(at), "sessions": 0, "party": 1,
                          "operation_id": op, "attempt": attempt}
    if typ == "tool-invocation":
        ev["server"] = SERVER
        ev["tool"] = "lookup"
    if typ in ("tool-invocation", "tool-result", "tool-progress"):
        ev.update(body={"n": at}, encoding="json", mediatype="application/json")
    ev.update(kw)
    return ev


def _standing(at: float, decision: str) -> dict[str, Any]:
    return {"type": "policy-decision", "time": _t(at), "sessions": 0, "party": 1,
            "decision": decision, "policy_life": "standing", "operation": "tool-invocation",
            "server": SERVER, "tool": "lookup"}


def _once(at: float, decision: str, op: str, attempt: int) -> dict[str, Any]:
    return {"type": "policy-decision", "time": _t(at), "sessions": 0, "party": 1,
            "decision": decision, "policy_life": "once", "operation": "tool-invocation",
            "operation_id": op, "attempt": attempt, "server": SERVER, "tool": "lookup"}


def _vcon(events: list[dict[str, Any]], **top: Any) -> dict[str, Any]:
    v: dict[str, Any] = {
        "vcon": "0.4.0", "uuid": "0195544a-0000-7000-8000-000000000017",
        "created_at": _t(0), "extensions": ["tool-invocation"],
        "parties": [{"name": "Alice"}, {"name": "Agent"}],
        "sessions": [{"start": _t(0), "parties": [0, 1]}],
        "events": events,
    }
    v.update(top)
    return v


def attempts(n: int) -> dict[str, Any]:
    """One operation retried n times: each attempt times out, the next is invoked."""
    evs = []
    for a in range(1, n + 1):
        evs += [_ev("tool-invocation", 2 * a, attempt=a), _ev("tool-timeout", 2 * a + 1, attempt=a)]
    return _vcon(evs)


def attempts_late(n: int) -> dict[str, Any]:
    """One operation invoked n times with no answer, then every answer arrives late."""
    evs = [_ev("tool-invocation", a, attempt=a) for a in range(1, n + 1)]
    evs += [_ev("tool-result", n + a, attempt=a) for a in range(1, n + 1)]
    return _vcon(evs)


def single_operations(n: int) -> dict[str, Any]:
    """The yardstick of ``attempts``: n operations of one attempt that times out."""
    evs = []
    for i in range(n):
        op = f"op-{i}"
        evs += [_ev("tool-invocation", 2 * i, op=op), _ev("tool-timeout", 2 * i + 1, op=op)]
    return _vcon(evs)


def events_per_attempt(n: int) -> dict[str, Any]:
    evs = [_ev("tool-invocation", 0)]
    evs += [_ev("tool-progress", 1 + i) for i in range(n)]
    evs.append(_ev("tool-result", n + 2))
    return _vcon(evs)


def operations(n: int) -> dict[str, Any]:
    evs = []
    for i in range(n):
        op = f"op-{i}"
        evs += [_ev("tool-invocation", 2 * i, op=op), _ev("tool-result", 2 * i + 1, op=op)]
    return _vcon(evs)


def standing_decisions(n: int) -> dict[str, Any]:
    """n standing decisions for one tool, each followed by an operation it governs."""
    evs = []
    for i in range(n):
        evs.append(_standing(3 * i, "allowed" if i % 2 else "permission-required"))
        op = f"op-{i}"
        evs += [_ev("tool-invocation", 3 * i + 1, op=op), _ev("tool-result", 3 * i + 2, op=op)]
    return _vcon(evs)


def once_decisions(n: int) -> dict[str, Any]:
    """One operation of n attempts, each with its own once decision."""
    evs = []
    for a in range(1, n + 1):
        evs += [_once(3 * a, "allowed", "op-1", a), _ev("tool-invocation", 3 * a + 1, attempt=a),
                _ev("tool-failure", 3 * a + 2, attempt=a, body="no", encoding="none",
                    mediatype="text/plain")]
    return _vcon(evs)


def findings(n: int) -> dict[str, Any]:
    """n operations that never end and run against a standing disallow: 2n findings."""
    evs: list[dict[str, Any]] = [_standing(0, "disallowed")]
    evs += [_ev("tool-invocation", 1 + i, op=f"op-{i}") for i in range(n)]
    return _vcon(evs)


def diagnostics(n: int) -> dict[str, Any]:
    """n events each with a wrong-typed member."""
    evs = []
    for i in range(n):
        op = f"op-{i}"
        evs += [_ev("tool-invocation", 2 * i, op=op, server=7),
                _ev("tool-result", 2 * i + 1, op=op)]
    return _vcon(evs)


def dialogs(n: int) -> dict[str, Any]:
    dialog = [{"type": "text", "start": _t(i), "parties": [0, 1], "body": f"line {i}",
               "encoding": "none", "mediatype": "text/plain"} for i in range(n)]
    return _vcon([_ev("tool-invocation", 0), _ev("tool-result", 1)], dialog=dialog)


def attachments(n: int) -> dict[str, Any]:
    atts = [{"filename": f"f-{i}.txt", "body": f"attachment {i}", "encoding": "none",
             "mediatype": "text/plain", "start": _t(0)} for i in range(n)]
    return _vcon([_ev("tool-invocation", 0), _ev("tool-result", 1)], attachments=atts)


def parties(n: int) -> dict[str, Any]:
    """n parties, each with an operation of its own."""
    evs = []
    for i in range(n):
        op = f"op-{i}"
        evs += [_ev("tool-invocation", 2 * i, op=op, party=i),
                _ev("tool-result", 2 * i + 1, op=op, party=i)]
    return _vcon(evs, parties=[{"name": f"agent {i}"} for i in range(n)],
                 sessions=[{"start": _t(0), "parties": list(range(n))}])


def signatures(n: int) -> dict[str, Any]:
    """A signed vCon (JWS general serialisation) with n signatures on its one layer."""
    inner = orjson.dumps(operations(10))
    payload = base64.urlsafe_b64encode(inner).rstrip(b"=").decode()
    header = base64.urlsafe_b64encode(b'{"alg":"ES256"}').rstrip(b"=").decode()
    return {"payload": payload,
            "signatures": [{"protected": header, "header": {"kid": f"key-{i}"},
                            "signature": "c2ln"} for i in range(n)]}


SHAPES: dict[str, Callable[[int], dict[str, Any]]] = {
    "attempts": attempts,
    "attempts-late": attempts_late,
    "events-per-attempt": events_per_attempt,
    "operations": operations,
    "standing-decisions": standing_decisions,
    "once-decisions": once_decisions,
    "findings": findings,
    "diagnostics": diagnostics,
    "dialogs": dialogs,
    "attachments": attachments,
    "parties": parties,
    "signatures": signatures,
}


def model_of(data: bytes) -> Any:
    """Parse and build the model (the first half of every command)."""
    from viewer.model.build import build_model
    from viewer.pipeline import open_bytes

    return build_model(open_bytes(data, name="shape.vcon.json"))


def exports(model: Any) -> None:
    """Every export of a built model: summary JSON, Markdown, CSV, check lines."""
    from viewer.report.check import check_lines
    from viewer.report.csv import to_csv
    from viewer.report.markdown import to_markdown
    from viewer.report.summary import iter_json

    b"".join(iter_json(model))
    to_markdown(model)
    to_csv(model)
    check_lines(model)


def headless(data: bytes) -> None:
    """The whole headless path: parse, model, every export."""
    exports(model_of(data))


def measure(data: Any, runs: int = 1, fn: Callable[[Any], Any] = headless,
            clock: Callable[[], float] = time.perf_counter) -> float:
    """Best time of ``runs`` runs of ``fn(data)`` by ``clock``, collector paused (as the CLI
    does)."""
    best = float("inf")
    for _ in range(runs):
        gc.collect()
        gc.disable()
        try:
            t = clock()
            fn(data)
            best = min(best, clock() - t)
        finally:
            gc.enable()
    return best


def growth(shape: str, n: int, factor: int = 8, runs: int = 2
           ) -> dict[str, tuple[float, float, float]]:
    """CPU time (steadier than wall on a shared machine) of the model and of the exports at n
    and at factor x n: {"model" | "exports": (at n, at factor x n, ratio)}."""
    make = SHAPES[shape]
    small, big = orjson.dumps(make(n)), orjson.dumps(make(n * factor))
    headless(small)  # warm the imports
    out = {}
    cpu = time.process_time
    a, b = measure(small, runs + 1, model_of, cpu), measure(big, runs, model_of, cpu)
    out["model"] = (a, b, b / max(a, 1e-4))
    m_small, m_big = model_of(small), model_of(big)
    a, b = measure(m_small, runs + 1, exports, cpu), measure(m_big, runs, exports, cpu)
    out["exports"] = (a, b, b / max(a, 1e-4))
    return out


def summary_json(data: bytes) -> None:
    from viewer.model.build import build_model
    from viewer.pipeline import open_bytes
    from viewer.report.summary import iter_json

    b"".join(iter_json(build_model(open_bytes(data, name="shape.vcon.json"))))


def curve(sizes: list[int]) -> None:
    print("attempts of one operation, summary --format json in one process (best of 1)")
    print(f"{'N':>8} {'MB':>6} {'attempts s':>11} {'late s':>8} {'N ops s':>8} {'ratio':>6}")
    for n in sizes:
        row = []
        for make in (attempts, attempts_late, single_operations):
            data = orjson.dumps(make(n))
            row.append(measure(data, 1, summary_json))
        mb = len(orjson.dumps(attempts(n))) / 1e6
        print(f"{n:>8} {mb:>6.1f} {row[0]:>11.2f} {row[1]:>8.2f} {row[2]:>8.2f} "
              f"{max(row[0], row[1]) / row[2]:>6.2f}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--shape", action="append", choices=sorted(SHAPES))
    p.add_argument("-n", type=int, action="append", help="sizes (default 1000 and 8000)")
    p.add_argument("--curve", action="store_true",
                   help="attempts of one operation at 1k, 10k, 100k against as many operations")
    p.add_argument("--write", metavar="DIR", help="also write each shape's file to DIR")
    args = p.parse_args(argv)
    if args.curve:
        curve(args.n or [1000, 10000, 100000])
        return 0
    sizes = args.n or [1000, 8000]
    print(f"{'shape':<20}" + "".join(f"{n:>10}" for n in sizes) + f"{'ratio':>8}")
    for shape in args.shape or SHAPES:
        times = []
        for n in sizes:
            data = orjson.dumps(SHAPES[shape](n))
            if args.write:
                Path(args.write).mkdir(parents=True, exist_ok=True)
                Path(args.write, f"{shape}-{n}.vcon.json").write_bytes(data)
            times.append(measure(data, 2))
        print(f"{shape:<20}" + "".join(f"{t:>10.3f}" for t in times)
              + f"{times[-1] / times[0]:>8.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
