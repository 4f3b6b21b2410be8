"""Pilot-driven TUI benchmark: time to first data on screen, and key -> repaint latency.

    .venv/bin/python bench/tui.py                 # 1k, 10k, 100k operations and ~1M events
    .venv/bin/python bench/tui.py --quick         # 1k and 10k operations
    .venv/bin/python bench/tui.py --file F.json   # any vCon

Every file is measured in a fresh child process (``--child``), headless (``run_test``) at
160x50, against ``viewer.tui.app.make_app``. Times are taken *inside* the app, so Pilot's own
pauses (``wait_for_idle`` sleeps ~20 ms per step, ~60 ms per key press) do not count:

* **first data**: from the top of the child (before importing textual and the viewer) to the
  end of the first compositor frame (``Compositor.render_update``) that drew a timeline row
  (``TimelineView.render_line`` with a model). Compared with a bare parse measured the same
  way in another fresh child: from its top (before ``import orjson``) to the end of
  ``doc = orjson.loads(open(F, 'rb').read())``, gc disabled (the result is kept: freeing it
  is not part of the parse).
* **key -> repaint**: from just before ``pilot.press(key)`` sends the key to the end of the
  first compositor frame after it (latency, wall), and the main thread's CPU time
  (``time.thread_time``) over the same span. j/k move the operation selection (j N times down
  from the top, then k N times back), l/h switch attempts on an operation that has two or more
  (alternating l, h). ``x`` is not bound: its row is Pilot's overhead when nothing is redrawn
  (no frame follows it). ``press + pause`` is the whole Pilot round trip, for reference.

* **keys on every screen**: the same key -> repaint on the timeline (j/k, page keys, l/h, n, t,
  zoom), the detail (l/h, j/k), the findings and context lists (j/k, page down, end) and the
  export dialog (its format and scope keys); median, p99 and max of the samples.
* **opening a screen**: from the key (enter, f, c, e, ctrl+p) to the end of the first frame
  (which may say "building…"), and to the end of the first frame drawn once the screen has its
  content (the findings or context rows built, the palette's hit for a whole operation id).
* **quit**: in the parent, ``vcon-view FILE`` in a pseudo-terminal (``console_main``, as a
  user runs it): once every operation is replayed and checked and the screen is still, ``q``,
  and the time until the process has ended (``--quit N`` times; 0 skips it).

The goals from the issues: key -> repaint <= 16 ms median and <= 50 ms p99 on every screen at
100k operations; findings and context open <= 250 ms; quit <= 200 ms; first data <= 3x the bare
parse (issue 16: <= 2x).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

T_TOP = time.perf_counter()
C_TOP = time.process_time()

ROOT = Path(__file__).resolve().parent.parent
_TREE = next((a.split("=", 1)[1] for a in sys.argv if a.startswith("--tree=")), None)
if _TREE:  # measure the viewer package of another checkout (e.g. with proposed patches)
    sys.path.insert(0, str(Path(_TREE).resolve()))
OUT = ROOT / "bench" / "out"
PY = str(ROOT / ".venv" / "bin" / "python")
if not Path(PY).exists():  # pragma: no cover
    PY = sys.executable
SIZE = (160, 50)

BARE = (
    "import time; t = time.perf_counter(); c = time.process_time()\n"
    "import gc, json, sys, resource, orjson; gc.disable()\n"
    "doc = orjson.loads(open(sys.argv[1], 'rb').read())  # kept: freeing is not parsing\n"
    "print(json.dumps({'wall': time.perf_counter() - t, 'cpu': time.process_time() - c,\n"
    "  'rss': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))\n"
)


#: Functions on the way to the first frame, timed in the child: "module:qualname".
TRACED = (
    "viewer.tui.app:open_path",
    "viewer.tui.app:_default_builder",
    "viewer.tui.app:VconViewApp._show_model",
    "viewer.tui.app:VconViewApp._adopt",
    "viewer.tui.filter:Matcher.__init__",
    "viewer.tui.timeline:Axis.__init__",
    "viewer.tui.timeline:TimelineScreen.refresh_all",
    "viewer.tui.timeline:InfoHeader.present",
    "viewer.tui.timeline:StatusLine.present",
)


def _trace(stages: dict) -> None:
    """Wrap each TRACED function: first call's start offset, wall and own-thread CPU."""
    import functools
    import importlib

    for spec in TRACED:
        mod_name, qual = spec.split(":")
        try:
            owner = importlib.import_module(mod_name)
            *path, name = qual.split(".")
            for part in path:
                owner = getattr(owner, part)
            fn = getattr(owner, name)
        except (ImportError, AttributeError):
            continue

        def make(fn=fn, qual=qual):
            @functools.wraps(fn)
            def wrapper(*args, **kwargs):
                t0, c0 = time.perf_counter(), time.thread_time()
                try:
                    return fn(*args, **kwargs)
                finally:
                    if qual not in stages:
                        stages[qual] = (t0 - T_TOP, time.perf_counter() - t0,
                                        time.thread_time() - c0)
            return wrapper

        setattr(owner, name, make())


# --- child: one file, one app --------------------------------------------------------------------


def child(path: str, presses: int) -> dict:
    import asyncio

    from textual._compositor import Compositor

    from viewer.tui.app import make_app
    from viewer.tui.timeline import TimelineView

    t_import = time.perf_counter() - T_TOP
    frames: list[tuple[float, float]] = []  # (perf_counter, thread_time) at the end of a frame
    rows_drawn: list[float] = []  # perf_counter of the first timeline row drawn with data
    first_data: list[float] = []
    first_operations: list[int] = []  # operations in the model drawn first

    watch: list[tuple] = []  # (ready(), list to append the frame's end time to)
    render_update = Compositor.render_update

    def timed_render_update(self, *args, **kwargs):
        update = render_update(self, *args, **kwargs)
        if update is not None:
            now = time.perf_counter()
            frames.append((now, time.thread_time()))
            if watch and watch[0][0]():  # open_screen: the first frame with the content
                watch.pop()[1].append(now)
            if rows_drawn and not first_data:
                first_data.append(now)
                result["main_thread_cpu_s"] = time.thread_time()  # the event loop's thread
        return update

    render_line = TimelineView.render_line

    def timed_render_line(self, y):
        if not rows_drawn and self.vapp.model is not None:
            rows_drawn.append(time.perf_counter())
            first_operations.append(len(self.vapp.model.operations))
        return render_line(self, y)

    Compositor.render_update = timed_render_update  # type: ignore[method-assign]
    TimelineView.render_line = timed_render_line  # type: ignore[method-assign]

    result: dict = {"import_s": t_import}
    stages = result["stages"] = {}
    _trace(stages)

    async def drive() -> None:
        t_app = time.perf_counter()
        main0 = time.thread_time()
        app = make_app(path)
        async with app.run_test(size=SIZE) as pilot:
            while not first_data:
                await asyncio.sleep(0.002)
            result["first_data_s"] = first_data[0] - T_TOP
            result["first_data_from_app_s"] = first_data[0] - t_app
            result["first_data_cpu_s"] = time.process_time() - C_TOP  # about: polled
            result["main_thread_cpu_s"] -= main0  # event loop CPU from make_app to first data
            await pilot.pause()
            first = app.model
            assert first is not None
            result["first_operations"] = first_operations[0]
            # The viewer draws the first operations, then replays the rest and checks
            # conformance with the timeline on screen: keys are measured on the whole model.
            while app.model.pending_operations:
                await asyncio.sleep(0.002)
            result["all_operations_s"] = time.perf_counter() - T_TOP
            while app.model.unchecked is not None:
                await asyncio.sleep(0.002)
            result["checked_s"] = time.perf_counter() - T_TOP
            await pilot.pause()
            model = app.model
            result["events"] = len(model.events)
            result["operations"] = len(model.operations)

            async def press(key: str) -> tuple[float | None, float | None, float]:
                mark = len(frames)
                t0, c0 = time.perf_counter(), time.thread_time()
                await pilot.press(key)
                await pilot.pause()
                total = time.perf_counter() - t0
                if len(frames) > mark:
                    t1, c1 = frames[mark]
                    return t1 - t0, c1 - c0, total
                return None, None, total

            async def until(ready, limit: float = 600.0) -> float:
                """Wait (polling) until ``ready()``; the time it became so."""
                end = time.perf_counter() + limit
                while not ready():
                    if time.perf_counter() > end:
                        raise RuntimeError("timed out waiting for the screen")
                    # not too often: each wake-up takes the GIL from the worker measured
                    await asyncio.sleep(0.005)
                return time.perf_counter()

            async def open_screen(key: str, ready) -> dict:
                """Key -> first frame (anything: "building…"), and key -> the end of the
                first frame drawn once the screen has its content (``ready``)."""
                mark = len(frames)
                seen: list[float] = []
                watch.append((ready, seen))
                t0 = time.perf_counter()
                await pilot.press(key)
                await until(lambda: bool(seen))
                await pilot.pause()
                first = frames[mark][0] - t0 if len(frames) > mark else None
                return {"first_frame": first, "content": seen[0] - t0}

            keys: dict[str, list[tuple[float | None, float | None, float]]] = {}

            async def measure(screen: str, key: str, n: int) -> None:
                samples = keys.setdefault(f"{screen} {key}", [])
                for _ in range(n):
                    samples.append(await press(key))

            keys["timeline x"] = []
            for _ in range(presses):
                keys["timeline x"].append(await press("x"))
            app.select_operation(0)
            await pilot.pause()
            await measure("timeline", "j", presses)
            await measure("timeline", "k", presses)
            await measure("timeline", "pagedown", presses // 3 or 1)
            await measure("timeline", "pageup", presses // 3 or 1)
            multi = next((i for i, op in enumerate(model.operations) if len(op.attempts) > 1),
                         None)
            if multi is not None:
                app.select_operation(multi)
                await pilot.pause()
                for _ in range(presses):
                    keys.setdefault("timeline l", []).append(await press("l"))
                    keys.setdefault("timeline h", []).append(await press("h"))
            await measure("timeline", "n", presses // 3 or 1)
            await measure("timeline", "t", 3)
            await measure("timeline", "plus", 3)
            await measure("timeline", "minus", 3)
            # the detail screen
            opens: dict[str, dict] = {}
            opens["detail (enter)"] = await open_screen(
                "enter", lambda: type(app.screen).__name__ == "DetailScreen")
            await measure("detail", "l", presses // 2 or 1)
            await measure("detail", "h", presses // 2 or 1)
            await measure("detail", "j", presses // 3 or 1)
            await measure("detail", "k", presses // 3 or 1)
            await press("escape")
            # findings and context: built (in a thread on a long list) then drawn
            def listed(name: str):
                return lambda: (type(app.screen).__name__ == name
                                and getattr(app.screen, "rows", True) is not None)

            opens["findings (f)"] = await open_screen("f", listed("FindingsScreen"))
            await measure("findings", "j", presses)
            await measure("findings", "k", presses)
            await measure("findings", "pagedown", presses // 3 or 1)
            await measure("findings", "end", 2)
            await press("escape")
            opens["context (c)"] = await open_screen("c", listed("ContextScreen"))
            await measure("context", "j", presses)
            await measure("context", "k", presses)
            await measure("context", "pagedown", presses // 3 or 1)
            await press("escape")
            # the export dialog
            opens["export (e)"] = await open_screen(
                "e", lambda: type(app.screen).__name__ == "ExportScreen"
                and app.screen.is_mounted)
            for k in ("j", "c", "m", "s", "a"):
                await measure("export", k, presses // 3 or 1)
            await press("escape")
            # the command palette: open, then one query typed; its hits are in when the
            # palette's gathering worker is done
            opens["palette (ctrl+p)"] = await open_screen(
                "ctrl+p", lambda: type(app.screen).__name__ in ("GuardedPalette",
                                                                "CommandPalette"))
            palette = app.screen
            query = model.operations[len(model.operations) // 2].operation_id

            def hits_in() -> bool:  # the list shows the hit for the whole query first
                hits = palette.query_one("CommandList")
                return bool(hits.option_count) and query in str(
                    hits.get_option_at_index(0).prompt)

            await pilot.press(*query[:-1])
            await pilot.pause()
            opens["palette query"] = await open_screen(query[-1], hits_in)
            await press("escape")
            result["opens"] = opens
            result["keys"] = keys
            result["multi_attempt_operation"] = multi
            await pilot.press("q")

    asyncio.run(drive())
    import resource

    result["rss_kib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return result


# --- parent ---------------------------------------------------------------------------------


def run_child(path: Path, presses: int, timeout: float) -> dict:
    tree = [f"--tree={_TREE}"] if _TREE else []
    out = subprocess.run([PY, __file__, "--child", str(path), "--presses", str(presses), *tree],
                         capture_output=True, text=True, timeout=timeout, cwd=ROOT)
    if out.returncode != 0:
        raise RuntimeError(f"child failed on {path}: {out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def bare(path: Path) -> dict:
    out = subprocess.run([PY, "-c", BARE, str(path)], capture_output=True, text=True,
                         check=True)
    return json.loads(out.stdout)


def make_input(ops: int) -> Path:
    path = OUT / f"gen-{ops}.vcon.json"
    if not path.exists():
        OUT.mkdir(parents=True, exist_ok=True)
        gen = ROOT / "bench" / "generate.py"
        if not gen.exists():
            gen = ROOT / "bench" / "genbig.py"
            path = OUT / f"genbig-{ops}.vcon.json"
        tmp = path.with_suffix(".tmp")
        subprocess.run([PY, str(gen), "--operations", str(ops), "--seed", "0", "-o", str(tmp)],
                       check=True)
        tmp.replace(path)
    return path


def _ms(v: float | None) -> str:
    return "-" if v is None else f"{v * 1e3:,.1f}"


def _pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, round(q * (len(values) - 1)))]


def report(rows: list[tuple[str, Path, dict, dict]]) -> str:
    lines = [
        "#### First data on screen (headless, 160x50)",
        "",
        "| file | events | operations | bare parse wall | first data wall | ratio "
        "| bare parse CPU | first data CPU | ratio | of which imports (wall) "
        "| event loop CPU meanwhile | peak RSS (TUI) | peak RSS (bare) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for label, _, r, b in rows:
        lines.append(
            f"| {label} | {r['events']:,} | {r['operations']:,} | {_ms(b['wall'])} ms "
            f"| {_ms(r['first_data_s'])} ms | {r['first_data_s'] / b['wall']:.2f}x "
            f"| {_ms(b['cpu'])} ms | {_ms(r['first_data_cpu_s'])} ms "
            f"| {r['first_data_cpu_s'] / b['cpu']:.2f}x | {_ms(r['import_s'])} ms "
            f"| {_ms(r.get('main_thread_cpu_s'))} ms "
            f"| {r['rss_kib'] / 1024:,.0f} MiB | {b['rss'] / 1024:,.0f} MiB |")
    lines += [
        "",
        "#### Then: the rest of the operations and the conformance checks (timeline on screen)",
        "",
        "| file | runs | operations drawn first | first data (median, min-max) "
        "| every operation replayed | diagnostics complete | bare parse (median) "
        "| first data / bare (median of runs) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for label, _, r, b in rows:
        runs = r.get("runs", [r])
        bares = b.get("runs", [b])
        fd = [x["first_data_s"] for x in runs]
        ratios = [x["first_data_s"] / y["wall"] for x, y in zip(runs, bares, strict=True)]
        lines.append(
            f"| {label} | {len(runs)} | {r.get('first_operations', r['operations']):,} "
            f"| {_ms(statistics.median(fd))} ms ({_ms(min(fd))}-{_ms(max(fd))}) "
            f"| {_ms(statistics.median(x.get('all_operations_s', fd[0]) for x in runs))} ms "
            f"| {_ms(statistics.median(x.get('checked_s', fd[0]) for x in runs))} ms "
            f"| {_ms(statistics.median(y['wall'] for y in bares))} ms "
            f"| {statistics.median(ratios):.2f}x |")
    lines += [
        "",
        "#### On the way to the first frame (first call of each; CPU = that thread's)",
        "",
        "| file | step | starts at | wall | CPU |",
        "|---|---|---:|---:|---:|",
    ]
    for label, _, r, _b in rows:
        for qual, (start, wall, cpu) in sorted(r["stages"].items(), key=lambda kv: kv[1][0]):
            lines.append(f"| {label} | `{qual}` | {_ms(start)} ms | {_ms(wall)} ms "
                         f"| {_ms(cpu)} ms |")
    lines += [
        "",
        "#### Opening a screen (key sent -> first frame; -> first frame with its content)",
        "",
        "| file | screen | first frame | with content |",
        "|---|---|---:|---:|",
    ]
    for label, _, r, _b in rows:
        for name, o in r.get("opens", {}).items():
            lines.append(f"| {label} | {name} | {_ms(o['first_frame'])} ms "
                         f"| {_ms(o['content'])} ms |")
        if r.get("quit"):
            q = r["quit"]
            lines.append(f"| {label} | quit (`q` -> process ended, in a terminal; median of "
                         f"{len(q)}) | - | {_ms(statistics.median(q))} ms |")
    lines += [
        "",
        "#### Key -> repaint (in-app: key sent -> end of the next compositor frame)",
        "",
        "| file | screen key | n | repainted | latency median | latency p99 | max "
        "| CPU median | press + pause median |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for label, _, r, _b in rows:
        for key, samples in r["keys"].items():
            if not samples:
                lines.append(f"| {label} | `{key}` | 0 | - | - | - | - | - | - |")
                continue
            lat = [s[0] for s in samples if s[0] is not None]
            cpu = [s[1] for s in samples if s[1] is not None]
            tot = [s[2] for s in samples]
            lines.append(
                f"| {label} | `{key}` | {len(samples)} | {len(lat)} "
                f"| {_ms(statistics.median(lat)) if lat else '-'} ms "
                f"| {_ms(_pct(lat, 0.99)) if lat else '-'} ms "
                f"| {_ms(max(lat)) if lat else '-'} ms "
                f"| {_ms(statistics.median(cpu)) if cpu else '-'} ms "
                f"| {_ms(statistics.median(tot))} ms |")
    lines += ["", "Goals (issue 13): key -> repaint <= 16 ms median and <= 50 ms p99 on every "
              "screen at 100k operations; findings and context open <= 250 ms; quit <= 200 ms; "
              "first data <= 3x bare parse. `timeline x` is unbound (Pilot overhead, no frame)."]
    return "\n".join(lines)


QUIT_CHILD = "import sys; from viewer.cli import console_main; sys.exit(console_main())"


def quit_in_pty(path: Path, settle: float, quiet: float = 2.0) -> float:
    """``vcon-view FILE`` in a pseudo-terminal (160x50), as a user runs it: once the screen
    has been still for ``quiet`` seconds (after at least ``settle``: every operation
    replayed and checked), ``q``; the time until the process has ended."""
    import fcntl
    import pty
    import struct
    import termios
    import threading

    env = dict(os.environ, TERM="xterm-256color")
    if _TREE:
        env["PYTHONPATH"] = str(Path(_TREE).resolve())
    pid, fd = pty.fork()
    if pid == 0:  # pragma: no cover (the child)
        os.chdir(ROOT)
        # -P: not the current directory first on the path (--tree: that tree's viewer)
        os.execve(PY, [PY, "-P", "-c", QUIT_CHILD, str(path)], env)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", SIZE[1], SIZE[0], 0, 0))
    last = [time.perf_counter()]

    def drain() -> None:
        while True:
            try:
                if not os.read(fd, 65536):
                    return
            except OSError:
                return
            last[0] = time.perf_counter()

    threading.Thread(target=drain, daemon=True).start()
    try:
        time.sleep(settle)
        while time.perf_counter() - last[0] < quiet:
            time.sleep(0.05)
        t0 = time.perf_counter()
        os.write(fd, b"q")
        os.waitpid(pid, 0)
        return time.perf_counter() - t0
    finally:
        os.close(fd)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--child", metavar="FILE", help=argparse.SUPPRESS)
    p.add_argument("--presses", type=int, default=30, help="presses per key (default 30)")
    p.add_argument("--quick", action="store_true", help="1k and 10k operations only")
    p.add_argument("--ops", type=int, nargs="*",
                   help="operation counts (default 1000 10000 100000 400000; 400000 is ~1M "
                        "events with bench/generate.py)")
    p.add_argument("--file", type=Path, action="append", default=[], help="also this vCon")
    p.add_argument("--timeout", type=float, default=1800)
    p.add_argument("--json", type=Path, help="also write the raw measurements here")
    p.add_argument("--tree", help="--tree=DIR: run the viewer package of checkout DIR")
    p.add_argument("--quit", type=int, default=1, metavar="N",
                   help="quit timed N times in a pseudo-terminal per file (default 1; 0: not)")
    p.add_argument("--repeat", "-n", type=int, default=1,
                   help="runs per file, bare parse and viewer interleaved (first data is "
                        "reported per run and as the median; keys from the first run)")
    args = p.parse_args(argv)

    if args.child:
        print(json.dumps(child(args.child, args.presses)))
        return 0

    ops = args.ops if args.ops is not None else (
        [1000, 10_000] if args.quick else [1000, 10_000, 100_000, 400_000])
    files = [(f"{n:,} ops", make_input(n)) for n in ops] + [(f.name, f) for f in args.file]
    rows = []
    for label, path in files:
        print(f"measuring {label} ({path.name}) ...", file=sys.stderr)
        bares, runs = [], []
        for n in range(args.repeat):
            bares.append(bare(path))
            runs.append(run_child(path, args.presses if n == 0 else 1, args.timeout))
        r, b = dict(runs[0]), dict(bares[0])
        if args.quit:
            settle = max(2.0, runs[0].get("checked_s", 2.0) * 1.5)
            r["quit"] = [quit_in_pty(path, settle) for _ in range(args.quit)]
        r["runs"], b["runs"] = runs, bares
        rows.append((label, path, r, b))
    print(f"\n### vcon-view TUI benchmark ({os.cpu_count()} CPUs, load average "
          f"{os.getloadavg()[0]:.1f})\n")
    print(report(rows))
    if args.json:
        args.json.write_text(json.dumps(
            [{"label": lab, "file": str(pth), "tui": r, "bare": b} for lab, pth, r, b in rows],
            indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
