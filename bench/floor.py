"""How fast could ``vcon-view summary --format json`` be in CPython? A lower bound, measured.

    .venv/bin/python bench/floor.py bench/out/gen-88000.vcon.json          # median of 5
    .venv/bin/python bench/floor.py FILE -n 3

The engine issue's goal is ``summary`` within 3x a bare ``orjson.loads`` of the same file. This
script times three things against that parse, each in a fresh process (a cold heap, as the CLI
has; the collector off, as the CLI runs), the median of N runs:

- ``floor``: the least any summary must do per event in pure Python, and nothing more: read
  ``type``, ``operation_id``, ``attempt`` and ``time`` of each event, parse its time (plain
  ``fromisoformat``: no RFC 3339 check), group events by operation, sort each operation's
  events and build one skeleton dict per operation and attempt (event indices only). No
  validation, no replay, no policy, no findings, no output fields, no dump.
- ``summary dump``: orjson's dump (indented, as the documented format is written) of the real
  summary document of the file, built beforehand: the cost of writing the output alone.
- ``check_event``: the engine's conformance check of every event alone (the draft's M/S/O/X
  cells, value sets and index references).

The three do not overlap, so their sum with the parse is a lower bound of what a summary that
checks and writes what the issue asks costs, before replay, policy, findings and start-up.
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import time
from datetime import datetime
from itertools import repeat
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def floor_summary(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """The skeleton summary: per-event reads, bulk time parse, grouping, sort, dicts."""
    events = doc["events"]
    times = list(map(datetime.fromisoformat, map(dict.get, events, repeat("time"))))
    ops: dict[str, list[tuple[datetime, int, Any, Any]]] = {}
    get_op = ops.get
    for i, e in enumerate(events):
        oid = e.get("operation_id")
        if oid is None:
            continue
        rows = get_op(oid)
        if rows is None:
            rows = ops[oid] = []
        rows.append((times[i], i, e.get("type"), e.get("attempt")))
    out = []
    for oid, rows in ops.items():
        rows.sort()
        attempts: dict[Any, list[int]] = {}
        for _, i, _, a in rows:
            attempts.setdefault(a, []).append(i)
        out.append({"operation_id": oid,
                    "attempts": [{"attempt": a, "events": ix} for a, ix in attempts.items()]})
    return out


MODES = ("bare parse", "floor", "summary dump", "check_event")


def one(path: str, mode: str) -> float:
    """CPU seconds of ``mode`` in this (fresh) process: a cold heap, as the CLI has."""
    import orjson

    gc.disable()
    raw = Path(path).read_bytes()
    if mode == "bare parse":
        t0 = time.process_time()
        doc = orjson.loads(raw)
        return time.process_time() - t0
    doc = orjson.loads(raw)
    if mode == "floor":
        t0 = time.process_time()
        floor_summary(doc)
        return time.process_time() - t0
    from viewer.load import load_bytes
    from viewer.model.build import build_model

    if mode == "summary dump":
        from viewer.report.summary import dumps, summary_dict

        document = summary_dict(build_model(load_bytes(raw, name=path)))
        t0 = time.process_time()
        dumps(document)
        return time.process_time() - t0
    from viewer.model.validate import Ctx, check_event

    ctx = Ctx.of(doc)
    out: list[Any] = []
    t0 = time.process_time()
    for i, ev in enumerate(doc["events"]):
        check_event(i, ev, ctx, out)
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
    import orjson

    n_ev = len(orjson.loads(Path(args.file).read_bytes())["events"])
    print(f"### Lower bound of `summary --format json`: {args.file} "
          f"({os.path.getsize(args.file) / 1e6:.1f} MB, {n_ev:,} events; CPU of each part in a "
          f"fresh process, median of {args.repeat})\n")
    print("| what | CPU | x bare parse |\n|---|---:|---:|")
    for k, v in med.items():
        print(f"| {k} | {v * 1000:,.0f} ms | {v / bare:.2f}x |")
    left = 3 * bare - bare - med["floor"]
    total = sum(med.values()) / bare
    print(f"\nParse, floor, dump and checks: {total:.2f}x the parse, before replay, policy, "
          "findings, the summary's fields, start-up and imports.")
    print(f"The goal (3x) leaves {left * 1000:,.0f} ms ({left / bare:.2f}x) beyond the parse and "
          f"the floor: {left / n_ev * 1e6:.2f} us per event for everything else, of which the "
          f"dump of the real document alone takes {med['summary dump'] / n_ev * 1e6:.2f} us and "
          f"the checks {med['check_event'] / n_ev * 1e6:.2f} us (interpreter start-up and imports "
          "not counted).")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
