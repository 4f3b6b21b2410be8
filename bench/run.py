"""Whole-process benchmark of the headless commands against a bare ``orjson.loads``.

Run from the repository root::

    .venv/bin/python bench/run.py            # 1k, 10k ops and the ~50 MB / ~220k-event file
    .venv/bin/python bench/run.py --quick    # 1k and 10k ops, 3 repeats: a smoke run

Each measurement is one fresh child process, spawned and reaped here with ``os.wait4``, so
the wall time (spawn to exit, interpreter start-up included), the CPU time and the peak RSS
(``ru_maxrss``) are those of that child alone. Every command runs N times; the table gives
the median and the minimum wall time and the median peak RSS, and the ratios of
``summary``/``check`` and the md and csv reports to the bare parse (goals: time <= 3x, RSS
<= 1.5x for summary and check; the html report's time <= 1.5x the md one's).

The input files are made with ``bench/generate.py`` (the demo library's streaming generator)
when it is present, else with ``bench/genbig.py``; they go to ``bench/out/`` (gitignored) and
are reused while they exist (``--regen`` rebuilds them).

Note: output goes to a /dev/null file descriptor, never ``-o /dev/null``: ``-o`` writes a
temporary file next to the target and renames it over the target, which would replace the
device node when run as root.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from pycache import warn_if_recompiling

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
OUT = BENCH / "out"
PY = str(ROOT / ".venv" / "bin" / "python")
if not Path(PY).exists():  # pragma: no cover - run from another environment
    PY = sys.executable


def _entry_point() -> str:
    """``module:function`` of the vcon-view script as pyproject.toml declares it.

    The command is run through this, not ``.venv/bin/vcon-view``: an editable install's script
    keeps the entry point of the day it was installed.
    """
    import tomllib

    with open(ROOT / "pyproject.toml", "rb") as f:
        return tomllib.load(f)["project"]["scripts"]["vcon-view"]


ENTRY = _entry_point()
_MOD, _FN = ENTRY.split(":")
#: argv prefix of ``vcon-view``: sys.argv[0] as the script has it, sys.path[0] the checkout.
VCON_VIEW = [PY, "-c", f"import sys; sys.argv[0] = 'vcon-view'; sys.path[0] = {str(ROOT)!r}; "
             f"from {_MOD} import {_FN}; sys.exit({_FN}())"]

#: The floor: read and parse, nothing else. The result is kept and the process ends with
#: os._exit, as vcon-view's headless commands end, so neither pays for freeing the parse.
BARE = ("import gc, os, orjson, sys; gc.disable(); "
        "doc = orjson.loads(open(sys.argv[1], 'rb').read()); os._exit(0)")
NOOP = "pass"
REPORT_ENV = {**os.environ, "SOURCE_DATE_EPOCH": "1775131200"}
REPORTS = ("summary --format md", "summary --format csv", "summary --format html")


@dataclass
class Sample:
    wall: float  # seconds
    cpu: float  # user + sys seconds
    rss: int  # peak resident set, KiB
    status: int


def measure(argv: list[str], timeout: float | None = None, env: dict | None = None) -> Sample:
    """Run argv once with stdout/stderr on /dev/null; child-only rusage via wait4.

    A child still running after ``timeout`` seconds is killed and its sample has status -9.
    """
    with open(os.devnull, "wb") as devnull:
        t0 = time.perf_counter()
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=devnull, stderr=devnull,
                                env=env)
        timer = None
        if timeout:
            import threading

            timer = threading.Timer(timeout, proc.kill)
            timer.start()
        _, status, ru = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        if timer is not None:
            timer.cancel()
    proc.returncode = os.waitstatus_to_exitcode(status)  # already reaped: keep Popen quiet
    return Sample(wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss, proc.returncode)


@dataclass
class Result:
    name: str
    samples: list[Sample]

    @property
    def med(self) -> float:
        return statistics.median(s.wall for s in self.samples)

    @property
    def min(self) -> float:
        return min(s.wall for s in self.samples)

    @property
    def cpu(self) -> float:
        return statistics.median(s.cpu for s in self.samples)

    @property
    def cpu_min(self) -> float:
        return min(s.cpu for s in self.samples)

    @property
    def rss(self) -> float:
        return statistics.median(s.rss for s in self.samples)

    @property
    def statuses(self) -> set[int]:
        return {s.status for s in self.samples}


#: ``--proto``'s groups: each the CLI's command and the column-engine prototype's run of it.
PROTO_GROUPS = ("json", "templates", "check", "csv", "md")


def commands(path: Path, trees: dict[str, Path], proto: list[str] | None = None
             ) -> dict[str, tuple[list[str], dict | None]]:
    """name -> (argv, environment). ``trees``: label -> a checkout whose ``viewer`` to run too.
    ``proto``: only the bare parse and, for each group named (``PROTO_GROUPS``; [] for all),
    the CLI's command and the column-engine prototype's (``bench/proto_columns.py``: the same
    bytes, the same text), for issue 16."""
    f = str(path)
    if proto is not None:
        groups = proto or list(PROTO_GROUPS)
        proto_py = [PY, str(BENCH / "proto_columns.py"), f]
        cmds = {
            "python -c pass": ([PY, "-c", NOOP], None),
            "bare parse": ([PY, "-c", BARE, f], None),
        }
        if "json" in groups or "templates" in groups:
            cmds["summary --format json"] = ([*VCON_VIEW, "summary", f, "--format", "json"],
                                             None)
        if "json" in groups:
            cmds["proto_columns.py (same bytes)"] = (proto_py, None)
        if "templates" in groups:
            cmds["proto_columns.py --templates"] = ([*proto_py, "--templates"], None)
        if "check" in groups:
            cmds["check"] = ([*VCON_VIEW, "check", f], None)
            cmds["proto_columns.py --check (same text)"] = ([*proto_py, "--check"], None)
        if "csv" in groups:
            cmds["summary --format csv"] = ([*VCON_VIEW, "summary", f, "--format", "csv"],
                                            REPORT_ENV)
            cmds["proto_columns.py --csv (same bytes)"] = ([*proto_py, "--csv"], REPORT_ENV)
            cmds["proto_columns.py --csv --lazy (same bytes)"] = (
                [*proto_py, "--csv", "--lazy"], REPORT_ENV)
        if "md" in groups:  # (no column-engine Markdown: a lower bound of it; md_stages.py)
            cmds["summary --format md"] = ([*VCON_VIEW, "summary", f, "--format", "md"],
                                           REPORT_ENV)
            cmds["proto_columns.py --md-floor (a lower bound)"] = (
                [*proto_py, "--md-floor"], REPORT_ENV)
        return cmds
    cmds: dict[str, tuple[list[str], dict | None]] = {
        "python -c pass": ([PY, "-c", NOOP], None),
        "bare parse": ([PY, "-c", BARE, f], None),
        "summary --format json": ([*VCON_VIEW, "summary", f, "--format", "json"], None),
        "check": ([*VCON_VIEW, "check", f], None),
        # the reports (evidence for the operations with a finding, the default), at a fixed
        # report time; the HTML report's goal is <= 1.5x the Markdown one
        "summary --format md": ([*VCON_VIEW, "summary", f, "--format", "md"], REPORT_ENV),
        "summary --format csv": ([*VCON_VIEW, "summary", f, "--format", "csv"], REPORT_ENV),
        "summary --format html": ([*VCON_VIEW, "summary", f, "--format", "html"], REPORT_ENV),
    }
    for label, tree in trees.items():
        # sys.path[0] is the working directory under -c: point it at the other checkout
        launch = (f"import sys; sys.argv[0] = 'vcon-view'; sys.path[0] = sys.argv.pop(1); "
                  f"from {_MOD} import {_FN}; sys.exit({_FN}())")
        cli = [PY, "-c", launch, str(tree)]
        cmds[f"summary --format json [{label}]"] = ([*cli, "summary", f, "--format", "json"],
                                                   None)
        cmds[f"check [{label}]"] = ([*cli, "check", f], None)
        for fmt in ("md", "csv", "html"):
            cmds[f"summary --format {fmt} [{label}]"] = (
                [*cli, "summary", f, "--format", fmt], REPORT_ENV)
    return cmds


def bench_file(path: Path, repeat: int, trees: dict[str, Path],
               timeout: float | None, proto: list[str] | None = None) -> dict[str, Result]:
    """Interleave the commands (round-robin) so drift hits them all alike."""
    cmds = commands(path, trees, proto)
    results = {name: Result(name, []) for name in cmds}
    for argv, env in cmds.values():  # warm the page cache and .pyc files once
        measure(argv, timeout, env)
    for _ in range(repeat):
        for name, (argv, env) in cmds.items():
            results[name].samples.append(measure(argv, timeout, env))
    return results


# --- inputs ------------------------------------------------------------------------------------


def generator() -> tuple[str, list[str]]:
    """(name, argv prefix) of the generator to use: theirs if present, else ours."""
    theirs = BENCH / "generate.py"
    if theirs.exists():
        return "bench/generate.py", [PY, str(theirs)]
    return "bench/genbig.py", [PY, str(BENCH / "genbig.py")]


def make_input(ops: int, regen: bool) -> Path:
    name, argv = generator()
    tag = "gen" if name.endswith("generate.py") else "genbig"
    path = OUT / f"{tag}-{ops}.vcon.json"
    if path.exists() and not regen:
        return path
    OUT.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    t0 = time.perf_counter()
    subprocess.run([*argv, "--operations", str(ops), "--seed", "0", "-o", str(tmp)],
                   check=True, cwd=ROOT)
    tmp.replace(path)
    print(f"generated {path.relative_to(ROOT)} with {name} in {time.perf_counter() - t0:.1f} s",
          file=sys.stderr)
    return path


def describe(path: Path) -> tuple[int, int]:
    """(size in bytes, number of events), counted in a child to keep this process small."""
    code = ("import orjson, sys; d = orjson.loads(open(sys.argv[1], 'rb').read()); "
            "print(len(d.get('events') or []))")
    out = subprocess.run([PY, "-c", code, str(path)], check=True, capture_output=True, text=True)
    return path.stat().st_size, int(out.stdout)


# --- report ------------------------------------------------------------------------------------


def table(rows: list[tuple[str, int, int, dict[str, Result]]], repeat: int) -> str:
    head = (
        "| file | events | command | wall median | wall min | CPU median | CPU min "
        "| peak RSS | CPU / bare | wall min / bare | RSS / bare | exit |\n"
        "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"
    )
    lines = [head]
    for name, size, events, res in rows:
        bare = res["bare parse"]
        for cmd, r in res.items():
            rc = rw = rm = ""
            if cmd not in ("bare parse", "python -c pass"):
                rc = f"{r.cpu / bare.cpu:.2f}x"
                rw = f"{r.min / bare.min:.2f}x"
                rm = f"{r.rss / bare.rss:.2f}x"
            lines.append(
                f"| {name}, {size / 1e6:.1f} MB | {events:,} | `{cmd}` "
                f"| {r.med * 1e3:,.0f} ms | {r.min * 1e3:,.0f} ms "
                f"| {r.cpu * 1e3:,.0f} ms | {r.cpu_min * 1e3:,.0f} ms | {r.rss / 1024:,.0f} MiB "
                f"| {rc} | {rw} | {rm} | {','.join(map(str, sorted(r.statuses)))} |"
            )
    lines.append("")
    lines.append(
        f"{repeat} runs per command after one warm-up, interleaved. Wall = spawn to exit "
        "(interpreter start-up included); CPU = user + sys of the child; peak RSS = its "
        "ru_maxrss (os.wait4: the child only). Ratios: median CPU, minimum wall, median RSS "
        "over the bare parse of the same file. Exit -9: killed at --timeout.")
    return "\n".join(lines)


def goals(rows: list[tuple[str, int, int, dict[str, Result]]]) -> str:
    out = []
    for name, _, _, res in rows:
        bare = res["bare parse"]
        for cmd, r in res.items():
            if cmd.split(" [")[0] in ("bare parse", "python -c pass", "summary --format html"):
                continue  # the HTML report's goal is relative to the Markdown one (below)
            t, w, m = r.cpu / bare.cpu, r.min / bare.min, r.rss / bare.rss
            rss = "" if cmd.split(" [")[0] in REPORTS else \
                f"; RSS {m:.2f}x ({'ok' if m <= 1.5 else 'MISSED'} <= 1.5x)"
            out.append(f"- {name} `{cmd}`: CPU {t:.2f}x, wall min {w:.2f}x "
                       f"({'ok' if max(t, w) <= 3 else 'MISSED'} <= 3x){rss}")
        for tag in sorted({c[len("summary --format md"):] for c in res
                           if c.startswith("summary --format md")}):
            md, html = res.get("summary --format md" + tag), res.get("summary --format html" + tag)
            if md is not None and html is not None:
                t, w = html.cpu / md.cpu, html.min / md.min
                out.append(f"- {name} html / md{tag}: CPU {t:.2f}x, wall min {w:.2f}x, RSS "
                           f"{html.rss / md.rss:.2f}x ({'ok' if max(t, w) <= 1.5 else 'MISSED'} "
                           "<= 1.5x)")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="1k and 10k ops only, 3 repeats")
    p.add_argument("--repeat", "-n", type=int, help="runs per command (default 7, quick 3)")
    p.add_argument("--ops", type=int, nargs="*",
                   help="operation counts of the generated files (default 1000 10000 and the "
                        "big one)")
    p.add_argument("--big-ops", type=int, default=88_000,
                   help="operations of the big file (default 88000: ~220k events, ~67 MB "
                        "with bench/generate.py)")
    p.add_argument("--file", type=Path, action="append", default=[],
                   help="also measure this existing vCon")
    p.add_argument("--regen", action="store_true", help="regenerate the input files")
    p.add_argument("--tree", action="append", default=[], metavar="LABEL=DIR",
                   help="also run the viewer package of checkout DIR (e.g. one with proposed "
                        "patches applied), labelled LABEL")
    p.add_argument("--proto", nargs="*", choices=PROTO_GROUPS, metavar="GROUP",
                   help="only the bare parse and, per group (json, templates, check, csv, md; "
                        "none named: all), the CLI's command and bench/proto_columns.py's "
                        "(issue 16's column engine, measured; md: its lower bound, --md-floor)")
    p.add_argument("--timeout", type=float, default=900,
                   help="kill a command after this many seconds (default 900)")
    args = p.parse_args(argv)

    repeat = args.repeat or (3 if args.quick else 7)
    ops = args.ops if args.ops is not None else (
        [1000, 10_000] if args.quick else [1000, 10_000, args.big_ops])
    files = [(f"{n:,} ops", make_input(n, args.regen)) for n in ops]
    files += [(f.name, f) for f in args.file]
    trees = dict(t.split("=", 1) for t in args.tree)
    trees = {k: Path(v).resolve() for k, v in trees.items()}
    # the children inherit the environment (not a -B of this process)
    warn_if_recompiling([ROOT, *trees.values()], not os.environ.get("PYTHONDONTWRITEBYTECODE"))
    load_before = os.getloadavg()[0]

    rows = []
    for label, path in files:
        size, events = describe(path)
        print(f"measuring {label} ({path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}"
              f", {size / 1e6:.1f} MB, {events:,} events) x{repeat} ...", file=sys.stderr)
        rows.append((label, size, events, bench_file(path, repeat, trees, args.timeout,
                                                     args.proto)))
    load_after = os.getloadavg()[0]

    print(f"\n### vcon-view headless benchmark ({platform.python_implementation()} "
          f"{platform.python_version()}, {platform.machine()}, {os.cpu_count()} CPUs, "
          f"inputs by {generator()[0]}, entry point {ENTRY}; load average "
          f"{load_before:.1f} before, {load_after:.1f} after)\n")
    print(table(rows, repeat))
    print()
    print(goals(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
