"""Whole-process benchmark of the importers against a bare parse of the same input.

Run from the repository root::

    .venv/bin/python bench/importers.py              # ~50 MB inputs, 3 runs each
    .venv/bin/python bench/importers.py --mb 10 -n 1 # a smoke run

A ~50 MB recording of each kind is made by repeating a real sample (tests/fixtures/agents/...)
with fresh ids and shifted times; beside it, a vCon of about the same size from
``bench/generate.py``. Each is measured in fresh processes (``bench/run.py``'s ``measure``):

* the bare parse: every JSONL line through ``orjson.loads`` (one ``loads`` for a vCon), the
  result kept, ended with ``os._exit`` as vcon-view's commands end;
* ``vcon-view import FORMAT FILE -o OUT`` and ``vcon-view summary FILE --format json`` (the
  recording opened directly), against ``summary --format json`` of the generated vCon.

The issue's goal: a 50 MB transcript imports in a time of the same order as ``summary`` on a
vCon of that size; the table gives each as a ratio of its own input's bare parse.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from run import OUT, PY, VCON_VIEW, measure

ROOT = Path(__file__).resolve().parent.parent
FIX = ROOT / "tests" / "fixtures" / "agents"
#: format -> the sample repeated to make its big input
SAMPLES = {
    "claude-code": FIX / "claude-code-transcript" / "spotter__subagent.jsonl",
    "codex": FIX / "codex-rollout" / "agent-sessions__codex_small.jsonl",
    "mcp": ROOT / "tests" / "fixtures" / "import_2025_flow.jsonl",
}
BARE_JSONL = ("import gc, os, orjson, sys; gc.disable(); "
              "d = [orjson.loads(x) for x in open(sys.argv[1], 'rb').read().split(b'\\n') "
              "if x.strip()]; os._exit(0)")
BARE_DOC = ("import gc, os, orjson, sys; gc.disable(); "
            "d = orjson.loads(open(sys.argv[1], 'rb').read()); os._exit(0)")
#: ids to make unique per copy: UUIDs and the hosts' call/message ids (not other values)
_ID = re.compile(rb'"(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}'
                 rb'|(?:toolu_|call_|msg_|req_|tc_)[0-9A-Za-z_]+)"')


def grow(sample: Path, target: int, out: Path) -> Path:
    """Repeat ``sample``'s lines to ``target`` bytes; each copy gets its own ids (a suffix on
    every quoted id-like string) so calls stay distinct, and times stay as recorded."""
    if out.exists() and out.stat().st_size >= target:
        return out
    lines = [ln for ln in sample.read_bytes().split(b"\n") if ln.strip()]
    tmp = out.with_suffix(".tmp")
    size, k = 0, 0
    with open(tmp, "wb") as f:
        while size < target:
            tag = b"-%d\"" % k
            for ln in lines:
                row = _ID.sub(lambda m, t=tag: m.group(0)[:-1] + t, ln) + b"\n"
                f.write(row)
                size += len(row)
            k += 1
    os.replace(tmp, out)
    return out


def vcon_of(target: int) -> Path:
    out = OUT / f"gen-{target >> 20}mb.vcon.json"
    if not out.exists():
        from generate import generate

        generate(out, max(1000, target // 760))  # ~760 bytes an operation
    return out


def med(argv: list[str], n: int) -> tuple[float, int]:
    samples = [measure(argv) for _ in range(n)]
    bad = [s.status for s in samples if s.status != 0]
    return statistics.median(s.cpu for s in samples), bad[0] if bad else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mb", type=int, default=50)
    ap.add_argument("-n", type=int, default=3)
    ap.add_argument("--formats", default=",".join(SAMPLES))
    args = ap.parse_args(argv)
    OUT.mkdir(parents=True, exist_ok=True)
    target = args.mb << 20
    rows = []
    vc = vcon_of(target)
    bare, _ = med([PY, "-c", BARE_DOC, str(vc)], args.n)
    summ, st = med([*VCON_VIEW, "summary", str(vc), "--format", "json"], args.n)
    rows.append((f"vCon (generated), {vc.stat().st_size >> 20} MB", bare, None, summ, st))
    with tempfile.TemporaryDirectory() as tmp:
        for fmt in args.formats.split(","):
            src = grow(SAMPLES[fmt], target, OUT / f"{fmt}-{args.mb}mb.jsonl")
            bare, _ = med([PY, "-c", BARE_JSONL, str(src)], args.n)
            imp, st1 = med([*VCON_VIEW, "import", fmt, str(src), "-q", "-o",
                            str(Path(tmp) / "o.vcon.json")], args.n)
            summ, st2 = med([*VCON_VIEW, "summary", str(src), "--format", "json"], args.n)
            rows.append((f"{fmt}, {src.stat().st_size >> 20} MB", bare, imp, summ, st1 or st2))
    print(f"median CPU of {args.n} fresh processes; ratios to the bare parse of the same input")
    print(f"{'input':<34}{'bare parse':>12}{'import':>18}{'summary json':>18}")
    for name, bare, imp, summ, st in rows:
        i = "-" if imp is None else f"{imp * 1000:,.0f} ms {imp / bare:4.1f}x"
        s = f"{summ * 1000:,.0f} ms {summ / bare:4.1f}x"
        flag = "" if st == 0 else f"  (exit {st})"
        print(f"{name:<34}{bare * 1000:>9,.0f} ms{i:>18}{s:>18}{flag}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
