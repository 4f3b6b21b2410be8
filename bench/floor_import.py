"""How fast could ``vcon-view import vcon`` be on a vcon-mcp-proxy vCon? A lower bound, measured.

    .venv/bin/python bench/floor_import.py bench/out/proxy-50000.vcon.json           # 5 runs
    .venv/bin/python bench/floor_import.py FILE -n 7 --tree main=/work/main          # and main's

Every command is a whole process (interpreter start included, the collector off as the CLI
runs, ended with ``os._exit``), the commands interleaved run by run, medians reported:

- ``bare``: read the file and ``orjson.loads`` it, nothing else (the unit of every ratio);
- ``floor``: what any importer of this shape must do, and nothing more: the bare parse, one
  ``orjson.loads`` per dialog body (a JSON-RPC message), requests paired with their responses
  by (sender, id) and progress notifications with their call by token, one event dict per
  mapped message (its time copied as recorded: no parsing, no checking), the provenance's
  per-event pointer, the derived vCon dumped indented as ``import`` writes it (its two big
  arrays 512 items at a time), and written to a file (fsynced, renamed). No direction
  rules, no checks, no report, no imports of ours;
- ``import vcon`` of this checkout (and of each ``--tree``).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from run import _FN, _MOD, BARE, PY, VCON_VIEW, measure

FLOOR = r'''
import gc, os, sys, orjson
gc.disable()
data = open(sys.argv[1], "rb").read()
doc = orjson.loads(data)
loads = orjson.loads
events, sources, calls, tokens = [], [], {}, {}
latest = None
n = 0
for i, d in enumerate(doc["dialog"]):
    m = loads(d["body"])
    sender = d["originator"]
    method = m.get("method")
    op = None
    body = None
    if method is None:
        op = calls.pop((1 - sender, m["id"]), None)
        body = m.get("result", m.get("error"))
        etype = "tool-result"
    elif method == "tools/call":
        n += 1
        op = latest = f"op-{n:04d}"
        calls[(sender, m["id"])] = op
        p = m["params"]
        body = p.get("arguments")
        tokens[p["_meta"]["progressToken"]] = op
        etype = "tool-invocation"
    elif method == "notifications/progress":
        op = tokens.get(m["params"]["progressToken"])
        body = m["params"]
        etype = "tool-progress"
    elif method == "elicitation/create":
        op = latest
        calls[(sender, m["id"])] = op
        body = m["params"]
        etype = "tool-input"
    if op is None:
        continue
    ev = {"type": etype, "time": d["start"], "sessions": [0], "party": 0,
          "operation_id": op, "attempt": 1}
    if etype == "tool-invocation":
        ev["server"] = "bench-weather"
        ev["tool"] = m["params"]["name"]
    ev["body"] = body
    ev["encoding"] = "json"
    ev["mediatype"] = "application/json"
    events.append(ev)
    sources.append(f"/dialog/{i}")
out = dict(doc)
out["events"] = events
out["sessions"] = [{"parties": [0, 1], "start": events[0]["time"]}]
out["extensions"] = ["tool-invocation"]
out["attachments"] = [{"purpose": "import-provenance", "party": 0,
                       "mediatype": "application/json", "encoding": "json", "body": {
                           "derived_from": [f"/dialog/{i}" for i in range(len(doc["dialog"]))],
                           "events": [{"event": i, "from": s} for i, s in enumerate(sources)]}}]
opt = orjson.OPT_INDENT_2
head = orjson.dumps({**out, "dialog": [], "events": []}, option=opt | orjson.OPT_APPEND_NEWLINE)
target = sys.argv[2]
fd, tmp = __import__("tempfile").mkstemp(dir=os.path.dirname(target) or ".")
with os.fdopen(fd, "wb") as fh:  # in pieces: the two big arrays 512 items at a time
    at = 0
    for name in ("dialog", "events"):
        marker = b'\n  "' + name.encode() + b'": []'
        end = head.index(marker, at) + len(marker) - 1
        fh.write(head[at:end - 1] + b"[\n")
        items = out[name]
        for k in range(0, len(items), 512):
            chunk = orjson.dumps({name: items[k:k + 512]}, option=opt)
            fh.write((b",\n" if k else b"") + chunk[len(name) + 10:-6])
        fh.write(b"\n  ")
        at = end
    fh.write(head[at:])
    fh.flush()
    os.fsync(fh.fileno())
os.replace(tmp, target)
os._exit(0)
'''


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("file")
    ap.add_argument("-n", type=int, default=5)
    ap.add_argument("--tree", action="append", default=[], metavar="NAME=PATH",
                    help="also time import vcon of another checkout (its .venv's python)")
    args = ap.parse_args()
    out = Path(tempfile.mkdtemp(prefix="floor-import-"))
    cmds: dict[str, list[str]] = {
        "bare": [PY, "-c", BARE, args.file],
        "floor": [PY, "-c", FLOOR, args.file, str(out / "floor.json")],
        "import vcon": [*VCON_VIEW, "import", "vcon", args.file, "-o", str(out / "here.json"),
                        "-q"],
    }
    for spec in args.tree:
        name, path = spec.split("=", 1)
        py = str(Path(path) / ".venv" / "bin" / "python")
        launch = ("import sys; sys.argv[0] = 'vcon-view'; sys.path[0] = sys.argv.pop(1); "
                  f"from {_MOD} import {_FN}; sys.exit({_FN}())")
        cmds[f"import vcon ({name})"] = [py, "-c", launch, path, "import", "vcon", args.file,
                                        "-o", str(out / f"{name}.json"), "-q"]
    samples: dict[str, list] = {k: [] for k in cmds}
    for _ in range(args.n):
        for name, argv in cmds.items():
            s = measure(argv)
            if s.status != 0:
                raise SystemExit(f"{name}: exit status {s.status}")
            samples[name].append(s)
    bare = statistics.median(s.cpu for s in samples["bare"])
    print(f"{'command':28s} {'CPU ms':>8s} {'ratio':>6s} {'wall ms':>8s} {'RSS MiB':>8s}"
          f"   (medians of {args.n}, interleaved)")
    for name, ss in samples.items():
        cpu = statistics.median(s.cpu for s in ss)
        wall = statistics.median(s.wall for s in ss)
        rss = statistics.median(s.rss for s in ss) / 1024
        print(f"{name:28s} {cpu * 1000:8.0f} {cpu / bare:5.2f}x {wall * 1000:8.0f} {rss:8.0f}")
    for f in out.iterdir():
        f.unlink()
    out.rmdir()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
