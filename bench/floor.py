"""How fast could ``vcon-view summary --format json`` be in CPython? A lower bound, measured.

    .venv/bin/python bench/floor.py bench/out/gen-88000.vcon.json          # median of 5
    .venv/bin/python bench/floor.py FILE -n 3

The engine issue's goal is ``summary`` within 2.5x a bare ``orjson.loads`` of the same file
(``check`` 2x). This script times the parts any summary of this design must pay, each in a
fresh process (a cold heap, as the CLI has; the collector off, as the CLI runs), the median of
N runs, interleaved:

- ``imports``: CPU from the top of the process to the end of importing what ``summary``
  imports (the loader, the model, the summary writer), less that of a process that imports
  only orjson (what the bare parse pays).
- ``typed decode``: the events array decoded into the column Structs (``columns.Events``,
  msgspec, the draft's tables checked in C) and nothing else: the least a checked read costs.
- ``load``: ``load_bytes`` as the CLI runs it (the typed decode, the rest of the vCon, the
  exact duplicate-key count, hashing on a second thread).
- ``model floor``: from those Structs, what the model must hold and nothing more: each event's
  operation read and grouped (in C where it can be), one ``Step`` per event, one ``Attempt``
  per attempt and one ``Operation`` per operation (the model's own Struct classes, built by
  field name), with placeholder values for what replay, policy and findings decide. No replay,
  no policy lookup, no finding rule, no diagnostic.
- ``summary dicts floor``: the summary's two dicts per operation (17 and 13 keys, as the
  document has), filled from those Structs, times written as recorded: no formatting.
- ``summary dump``: orjson's indented dump of the real summary document of the file.
- ``columnar floor``: the other design, a model held as columns (no ``Step``, ``Attempt`` or
  ``Operation`` object): from the Structs, each event's operation and attempt read and grouped,
  each operation's shape key made and looked up (replay memoised by shape), and the summary's
  two dicts per operation and attempt written straight from the columns, with placeholder
  values for what the rules decide. It replaces ``model floor`` plus ``summary dicts floor``
  in that design.
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import time
from operator import attrgetter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

MODES = ("bare parse", "imports", "typed decode", "load", "model floor", "summary dicts floor",
         "summary dump", "columnar floor")


def by_operation(oids: list[Any]) -> dict[Any, list[int]]:
    """Each operation id's event indices, in array order (what both designs group first)."""
    ops: dict[Any, list[int]] = {}
    get = ops.get
    for i, oid in enumerate(oids):
        rows = get(oid)
        if rows is None:
            rows = ops[oid] = []
        rows.append(i)
    return ops


def model_floor(structs: list[Any]) -> list[Any]:
    """Group the events by operation and build the model's Structs with placeholder values."""
    from viewer.model.types import Attempt, Operation, Step

    oids = list(map(attrgetter("operation_id"), structs))  # UNSET when none
    attempts = list(map(attrgetter("attempt"), structs))
    times = list(map(attrgetter("time"), structs))
    ops = by_operation(oids)
    out = []
    empty: frozenset[str] = frozenset()
    for oid, rows in ops.items():
        by_attempt: dict[Any, list[int]] = {}
        for i in rows:
            by_attempt.setdefault(attempts[i], []).append(i)
        built = tuple(
            Attempt(number=n if type(n) is int else 0,
                    steps=tuple([Step(event=i, before=None, after="Running", out_of_model=False,
                                      late=False) for i in ix]),
                    start=times[ix[0]], end=times[ix[-1]], final_state="Completed",
                    invocation=ix[0], server=None, tool=None, decision=None,
                    decision_life=None, decision_event=None, late=(), out_of_model=(),
                    escalated=False, flags=empty)
            for n, ix in by_attempt.items())
        out.append(Operation(
            operation_id=oid, operation="tool-invocation", server=None, tool=None,
            decision=None, decision_life=None, decision_event=None, outcome="success",
            attempts=built, once_decisions=(), unassigned_events=(), first_time=times[rows[0]],
            first_order=rows[0], retries=len(built) - 1, escalated=False, late_responses=0,
            flags=empty))
    return out


def dicts_floor(ops: list[Any]) -> list[dict[str, Any]]:
    """The summary's dicts per operation and attempt, filled from the Structs as they are."""
    after = attrgetter("after")
    event = attrgetter("event")
    out = []
    for op in ops:
        attempts = []
        for a in op.attempts:
            steps = a.steps
            attempts.append({
                "attempt": a.number, "start": a.start, "end": a.end,
                "states": list(map(after, steps)), "final_state": a.final_state,
                "events": list(map(event, steps)), "late": [], "out_of_model": [],
                "decision": a.decision, "decision_life": a.decision_life,
                "decision_event": a.decision_event, "escalated": a.escalated, "flags": [],
            })
        out.append({
            "operation_id": op.operation_id, "operation": op.operation, "server": op.server,
            "tool": op.tool, "decision": op.decision, "decision_life": op.decision_life,
            "decision_event": op.decision_event, "outcome": op.outcome, "attempts": attempts,
            "retries": op.retries, "escalated": op.escalated,
            "late_responses": op.late_responses, "unassigned_events": [],
            "once_decisions": [], "first_time": op.first_time, "flags": [], "party": None,
        })
    return out


def columnar_floor(structs: list[Any]) -> list[dict[str, Any]]:
    """The summary's dicts written from columns: events grouped by operation and attempt, no
    model object in between; what the rules decide left as placeholders."""
    oids = list(map(attrgetter("operation_id"), structs))  # UNSET when none
    numbers = list(map(attrgetter("attempt"), structs))
    times = list(map(attrgetter("time"), structs))
    types = list(map(type, structs))  # the tag is the Struct class
    ops = by_operation(oids)
    out = []
    shapes: dict[tuple[Any, ...], Any] = {}  # replay by shape: each shape's result made once
    for oid, rows in ops.items():
        key = tuple([(numbers[i], types[i]) for i in rows])
        if key not in shapes:
            shapes[key] = None
        by_attempt: dict[Any, list[int]] = {}
        for i in rows:
            by_attempt.setdefault(numbers[i], []).append(i)
        attempts = [{
            "attempt": n, "start": times[ix[0]], "end": times[ix[-1]],
            "states": [types[i].__name__ for i in ix], "final_state": "Completed",
            "events": ix, "late": [], "out_of_model": [], "decision": None,
            "decision_life": None, "decision_event": None, "escalated": False, "flags": [],
        } for n, ix in by_attempt.items()]
        out.append({
            "operation_id": oid, "operation": "tool-invocation", "server": None,
            "tool": None, "decision": None, "decision_life": None,
            "decision_event": None, "outcome": "success", "attempts": attempts,
            "retries": len(attempts) - 1, "escalated": False,
            "late_responses": 0, "unassigned_events": [],
            "once_decisions": [], "first_time": times[rows[0]], "flags": [], "party": None,
        })
    return out


def one(path: str, mode: str) -> float:
    """CPU seconds of ``mode`` in this (fresh) process."""
    if mode == "imports":
        import orjson  # the bare parse pays this import too

        t0 = time.process_time()
        import viewer.load
        import viewer.model.build
        import viewer.report.summary  # noqa: F401
        return time.process_time() - t0
    import msgspec
    import orjson

    gc.disable()
    raw = Path(path).read_bytes()
    if mode == "bare parse":
        t0 = time.process_time()
        orjson.loads(raw)
        return time.process_time() - t0
    from viewer.load import load_bytes
    from viewer.model.columns import Events

    if mode == "typed decode":
        events = msgspec.json.decode(raw, type=dict[str, msgspec.Raw])["events"]
        t0 = time.process_time()
        Events.decode(events)
        return time.process_time() - t0
    t0 = time.process_time()
    loaded = load_bytes(raw, name=path)
    if mode == "load":
        return time.process_time() - t0
    structs = loaded.vcon["events"].structs
    if None in structs:
        raise SystemExit(f"{path}: some events fail their column: not a floor input")
    if mode == "model floor":
        t0 = time.process_time()
        model_floor(structs)
        return time.process_time() - t0
    if mode == "columnar floor":
        t0 = time.process_time()
        columnar_floor(structs)
        return time.process_time() - t0
    if mode == "summary dicts floor":
        ops = model_floor(structs)
        t0 = time.process_time()
        dicts_floor(ops)
        return time.process_time() - t0
    from viewer.model.build import build_model
    from viewer.report.summary import dumps, summary_dict

    document = summary_dict(build_model(loaded))
    t0 = time.process_time()
    dumps(document)
    return time.process_time() - t0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("file")
    p.add_argument("--repeat", "-n", type=int, default=5)
    p.add_argument("--one", choices=MODES, help=argparse.SUPPRESS)  # a child's single run
    args = p.parse_args(argv)
    if args.one:
        print(one(args.file, args.one))
        os._exit(0)  # as the CLI ends: no freeing of the heap

    import subprocess

    runs: dict[str, list[float]] = {m: [] for m in MODES}
    for _ in range(args.repeat):  # interleaved, so drift on the machine hits all alike
        for m in MODES:
            res = subprocess.run([sys.executable, __file__, args.file, "--one", m],
                                 capture_output=True, text=True, check=True)
            runs[m].append(float(res.stdout))
    med = {k: statistics.median(v) for k, v in runs.items()}
    bare = med["bare parse"]
    print(f"### Lower bound of `summary --format json`: {args.file} "
          f"({os.path.getsize(args.file) / 1e6:.1f} MB; CPU of each part in a fresh process, "
          f"median of {args.repeat}, interleaved)\n")
    print("| what | CPU | x bare parse |\n|---|---:|---:|")
    for k, v in med.items():
        print(f"| {k} | {v * 1000:,.0f} ms | {v / bare:.2f}x |")
    summed = sum(med[k] for k in ("imports", "load", "model floor", "summary dicts floor",
                                  "summary dump"))
    check = sum(med[k] for k in ("imports", "load", "model floor"))
    print(f"\nImports, load, model floor, summary dicts floor and dump: {summed / bare:.2f}x the "
          f"parse (goal 2.5x), before replay, policy, findings, diagnostics and the summary's "
          f"own rules; the same without the summary (what `check` must pay): "
          f"{check / bare:.2f}x (goal 2x). With a typed decode in place of the load: "
          f"{(summed - med['load'] + med['typed decode']) / bare:.2f}x and "
          f"{(check - med['load'] + med['typed decode']) / bare:.2f}x.")
    columnar = summed - med["model floor"] - med["summary dicts floor"] + med["columnar floor"]
    print(f"\nThe columnar design (no model objects; the summary's dicts from columns): "
          f"{columnar / bare:.2f}x before the rules, leaving {2.5 - columnar / bare:.2f}x of the "
          f"parse for them under the 2.5x goal.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
