"""Fleet triage benchmark (issue 15): ``scan`` against one ``summary`` process per file, and
the triage queries on tables of 100k sessions.

Run from the repository root::

    .venv/bin/python bench/fleet.py                 # 2,000 files (+ bad ones), loop of 200
    .venv/bin/python bench/fleet.py --files 200 --loop 50 --sessions 20000   # a smoke run

The corpus is made with ``bench/generate.py`` (seeded, 5-200 operations per file) in the
layout of a vcon-server file store (``YYYY/MM/DD/<uuid>.json``, every fifth file gzipped,
``lookup/*.txt`` indexes), plus bad files of six kinds; it goes to ``bench/out/fleet/`` and is
reused while it exists. Each engine runs as a fresh child process (``--repeat`` times, the
least CPU kept: the machine is shared); its CPU is the children's ``getrusage`` delta, so the
workers of ``-j 2`` count too. The loop of ``summary`` processes
runs on an evenly spaced sample of the files (``--loop``) and is reported per file.

Engines are a registry (``ENGINES``): another engine (Spark ``local[2]``) adds itself with
``register`` and gets a column in the same table, measured on the same corpus.

The triage queries (``viewer.fleet.triage``, the README's) run on tables of ``--sessions``
sessions made cheaply: the scanned corpus's rows repeated, each copy with its own file, uuid
and date (spread over the last 12 weeks, so "this week" finds rows).
"""

from __future__ import annotations

import argparse
import gzip
import os
import random
import resource
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
OUT = ROOT / "bench" / "out" / "fleet"
VENV = ROOT / ".venv" / "bin"
VCON_VIEW = str(VENV / "vcon-view") if (VENV / "vcon-view").exists() else "vcon-view"


@dataclass
class Measure:
    name: str
    files: int
    wall: float
    cpu: float
    #: CPU seconds by kind of process (Spark: driver JVM, Python workers, parent), when known
    parts: dict[str, float] | None = None

    @property
    def cpu_per_file_ms(self) -> float:
        return 1000 * self.cpu / self.files

    @property
    def files_per_s(self) -> float:
        return self.files / self.wall

    @property
    def files_per_cpu_s(self) -> float:
        return self.files / self.cpu


#: name -> callable(corpus, files, workdir) -> Measure. Another engine registers itself here.
ENGINES: dict[str, Callable[[Path, int, Path], Measure]] = {}


def register(name: str, run: Callable[[Path, int, Path], Measure]) -> None:
    ENGINES[name] = run


# --- corpus ---------------------------------------------------------------------------------


def make_corpus(n: int, seed: int = 15) -> Path:
    """``n`` generated vCons in a conserver layout, plus bad files; reused when present."""
    from bench.generate import generate

    corpus = OUT / f"corpus-{n}-{seed}"
    if (corpus / ".complete").exists():
        return corpus
    shutil.rmtree(corpus, ignore_errors=True)
    rng = random.Random(seed)
    t0 = time.perf_counter()
    tmp = OUT / "gen.tmp.json"
    OUT.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        day = date(2026, 1, 1) + timedelta(days=rng.randrange(90))
        folder = corpus / f"{day.year:04d}" / f"{day.month:02d}" / f"{day.day:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        generate(tmp, rng.randint(5, 200), seed=seed * 100_000 + i)
        data = tmp.read_bytes()
        name = f"{i:08x}-0000-4000-8000-{seed:012x}"
        if i % 5 == 0:
            (folder / f"{name}.json.gz").write_bytes(gzip.compress(data, 6, mtime=0))
        else:
            (folder / f"{name}.json").write_bytes(data)
        if i % 500 == 0:
            print(f"  corpus {i}/{n} ({time.perf_counter() - t0:.0f} s)", file=sys.stderr)
    tmp.unlink(missing_ok=True)
    bad = corpus / "2026" / "bad"
    bad.mkdir(parents=True, exist_ok=True)
    sample = next(corpus.rglob("*.json")).read_bytes()
    for k in range(max(1, n // 200)):
        (bad / f"truncated-{k}.json").write_bytes(sample[: len(sample) // 2])
        (bad / f"not-json-{k}.json").write_bytes(b"this is not JSON\n")
        (bad / f"not-a-vcon-{k}.json").write_bytes(b'{"hello": "world"}\n')
        (bad / f"encrypted-{k}.json").write_bytes(
            b'{"unprotected": {"cty": "application/vcon+json", "enc": "A256CBC-HS512", '
            b'"uuid": "x"}, "recipients": [{"header": {"alg": "RSA-OAEP"}, '
            b'"encrypted_key": "AA"}], "iv": "AA", "ciphertext": "AA", "tag": "AA"}')
        (bad / f"array-{k}.json").write_bytes(b"[1, 2, 3]\n")
        (bad / f"empty-{k}.json").write_bytes(b"")
    (corpus / "lookup").mkdir(exist_ok=True)
    (corpus / "lookup" / "uuid.txt").write_text("index\n")
    (corpus / ".complete").write_text("ok\n")
    print(f"  corpus ready in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    return corpus


def corpus_files(corpus: Path) -> list[Path]:
    from viewer.fleet.inputs import expand, local_path

    return [Path(local_path(i.uri)) for i in expand([str(corpus)])]


# --- engines --------------------------------------------------------------------------------


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _timed(name: str, files: int, argv: list[str]) -> Measure:
    cpu0, t0 = _children_cpu(), time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return Measure(name, files, time.perf_counter() - t0, _children_cpu() - cpu0)


def scan_engine(jobs: int) -> Callable[[Path, int, Path], Measure]:
    def run(corpus: Path, files: int, work: Path) -> Measure:
        out = work / f"scan-j{jobs}"
        shutil.rmtree(out, ignore_errors=True)
        return _timed(f"scan -j {jobs}", files, [VCON_VIEW, "scan", str(corpus), "-o", str(out),
                                                 "-j", str(jobs)])
    return run


register("scan -j 1", scan_engine(1))
register("scan -j 2", scan_engine(2))


def spark_engine(master: str) -> Callable[[Path, int, Path], Measure]:
    """``scan --engine spark`` in a fresh process on ``master``, Spark's defaults but the UI
    off and bound to 127.0.0.1. Its CPU is every process it starts: the driver's Python, the
    JVM, Spark's Python daemon and workers. The children's ``getrusage`` misses the workers
    (the daemon's children, killed at the end, are reaped by no one that reports to us), so
    every descendant's CPU is also read from ``/proc`` while it runs (this process is their
    subreaper, so an orphan stays a descendant) and the larger of the two totals is kept."""
    def run(corpus: Path, files: int, work: Path) -> Measure:
        out = work / f"spark-{master}"
        shutil.rmtree(out, ignore_errors=True)
        _subreaper()
        env = {**os.environ, "PYSPARK_PYTHON": str(VENV / "python"),
               "SPARK_LOCAL_IP": "127.0.0.1",
               "PYSPARK_SUBMIT_ARGS": f"--master {master} --conf spark.ui.enabled=false "
                                      "--conf spark.driver.host=127.0.0.1 pyspark-shell"}
        cpu0, t0 = _children_cpu(), time.perf_counter()
        polled: dict[int, float] = {}
        kinds: dict[int, str] = {}
        stop = threading.Event()
        poller = threading.Thread(target=_poll_descendants, args=(polled, stop, kinds))
        poller.start()
        try:
            subprocess.run([VCON_VIEW, "scan", "--engine", "spark", str(corpus), "-o",
                            str(out)], check=True, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, env=env)
            _reap()
        finally:
            stop.set()
            poller.join()
        wall = time.perf_counter() - t0
        parts: dict[str, float] = {}
        for pid, used in polled.items():
            parts[kinds.get(pid, "parent")] = parts.get(kinds.get(pid, "parent"), 0.0) + used
        return Measure(f"spark {master}", files, wall,
                       max(_children_cpu() - cpu0, sum(polled.values())), parts)
    return run


def _kind(pid: int) -> str:
    """Which of Spark's processes ``pid`` is: the driver JVM, a Python worker (Spark's daemon
    and the workers it forks), or the parent (``vcon-view``'s own Python, the driver)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            argv = f.read().split(b"\0")
    except OSError:
        return "parent"
    if argv and argv[0].endswith(b"java"):
        return "driver JVM"
    if any(b"pyspark" in a and (b"daemon" in a or b"worker" in a) for a in argv):
        return "python workers"
    return "parent"


def _poll_descendants(seen: dict[int, float], stop: threading.Event,
                      kinds: dict[int, str] | None = None) -> None:
    """The CPU seconds of every descendant of this process, last seen, every 0.2 s (and, in
    ``kinds``, which kind of process each is)."""
    me, tick = os.getpid(), os.sysconf("SC_CLK_TCK")
    while not stop.wait(0.2):
        parent: dict[int, int] = {}
        cpu: dict[int, float] = {}
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            try:
                with open(f"/proc/{name}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            parent[int(name)] = int(fields[1])
            cpu[int(name)] = (int(fields[11]) + int(fields[12])) / tick
        for pid, used in cpu.items():
            p, hops = parent.get(pid), 0
            while p not in (None, 0, 1, me) and hops < 64:
                p, hops = parent.get(p), hops + 1
            if p == me:
                seen[pid] = max(seen.get(pid, 0.0), used)
                if kinds is not None:  # each time: Spark's launcher script execs into java
                    kind = _kind(pid)  # (a zombie has no command line: keep what it was)
                    if kind != "parent" or pid not in kinds:
                        kinds[pid] = kind


def _subreaper() -> None:
    """Orphaned descendants (Spark's Python daemon) become this process's children."""
    import ctypes

    pr_set_child_subreaper = 36
    ctypes.CDLL(None, use_errno=True).prctl(pr_set_child_subreaper, 1, 0, 0, 0)


def _reap() -> None:
    """Wait for every descendant left (their CPU then counts in RUSAGE_CHILDREN)."""
    while True:
        try:
            os.wait()
        except ChildProcessError:
            return


try:
    import pyspark  # noqa: F401  (the spark extra)
except ImportError:
    pass
else:
    register("spark local[2]", spark_engine("local[2]"))


def summary_loop(paths: list[Path]) -> Measure:
    """One ``vcon-view summary --format json FILE`` process per file, one after another."""
    cpu0, t0 = _children_cpu(), time.perf_counter()
    for p in paths:
        subprocess.run([VCON_VIEW, "summary", "--format", "json", str(p)],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return Measure("summary loop", len(paths), time.perf_counter() - t0, _children_cpu() - cpu0)


# --- triage queries on 100k sessions --------------------------------------------------------


def big_tables(scan_out: Path, sessions: int, dest: Path) -> dict[str, int]:
    """Tables of ``sessions`` sessions: the scan's rows repeated, each copy its own session."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    from viewer.fleet.schema import TABLES, arrow_schema

    shutil.rmtree(dest, ignore_errors=True)
    base = {name: pq.read_table(scan_out / name) for name in TABLES}
    n = base["vcons"].num_rows
    copies = -(-sessions // n)
    today = datetime.now(UTC).date()
    rows = {}
    for name in TABLES:
        t = base[name]
        parts = []
        for c in range(copies):
            day = pa.scalar(today - timedelta(days=(c * 7919) % 84), pa.date32())
            part = t.set_column(t.schema.get_field_index("file"), "file",
                                pc.binary_join_element_wise(t.column("file"),
                                                            pa.scalar(f"#{c}"), ""))
            part = part.set_column(part.schema.get_field_index("uuid"), "uuid",
                                   pc.binary_join_element_wise(
                                       pc.fill_null(part.column("uuid"), ""),
                                       pa.scalar(f"-{c}"), ""))
            part = part.set_column(part.schema.get_field_index("date"), "date",
                                   pa.array([day.as_py()] * part.num_rows, pa.date32()))
            parts.append(part)
        table = pa.concat_tables(parts)
        if name == "vcons":
            table = table.slice(0, sessions)
        folder = dest / name
        folder.mkdir(parents=True)
        pq.write_table(table.cast(arrow_schema(name)), folder / "part-00000.parquet",
                       compression="zstd")
        rows[name] = table.num_rows
    (dest / "_scan.json").write_text('{"format": "vcon-view-tables/1", '
                                     '"output_format": "parquet"}\n')
    return rows


def time_queries(dest: Path, repeat: int = 3) -> dict[str, tuple[float, float]]:
    """(wall, CPU) of each triage query, the least of ``repeat`` runs each, through
    ``vcon-view query``'s own path (views over the Parquet parts, rows fetched). The CPU time
    is the process's, DuckDB's threads included: the figure a loaded machine moves least."""
    from viewer.fleet.query import run_query
    from viewer.fleet.triage import TRIAGE

    out = {}
    for name, (_, sql) in TRIAGE.items():
        wall = cpu = float("inf")
        for _ in range(repeat):
            t0, c0 = time.perf_counter(), time.process_time()
            run_query(str(dest), sql)
            wall = min(wall, time.perf_counter() - t0)
            cpu = min(cpu, time.process_time() - c0)
        out[name] = (wall, cpu)
    from viewer.fleet.report import build, to_markdown

    t0, c0 = time.perf_counter(), time.process_time()
    to_markdown(build(str(dest)))
    out["report (whole, once)"] = (time.perf_counter() - t0, time.process_time() - c0)
    return out


# --- main -----------------------------------------------------------------------------------


def _table(results: list[Measure]) -> None:
    """The engines side by side; the last is the loop of summary processes, when it ran."""
    loop = results[-1] if results[-1].name == "summary loop" else None

    def vs(m: Measure) -> str:
        return f"{m.files_per_cpu_s / loop.files_per_cpu_s:,.1f}x" if loop else "-"

    print()
    print("| engine | files | wall s | CPU s | CPU per file | files/s | files per CPU-s | "
          "vs summary loop |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for m in results:
        print(f"| {m.name} | {m.files:,} | {m.wall:,.1f} | {m.cpu:,.1f} | "
              f"{m.cpu_per_file_ms:,.1f} ms | {m.files_per_s:,.0f} | {m.files_per_cpu_s:,.0f} | "
              f"{vs(m)} |")
    print(f"\nload average {os.getloadavg()[0]:.1f}; goal: scan >= 20x the summary loop in "
          "files per CPU-second: "
          + ", ".join(f"{m.name} {vs(m)}" for m in results if m is not loop))
    for m in results:
        if m.parts:
            print(f"{m.name} CPU by process: " + ", ".join(
                f"{k} {v:,.1f} s ({1000 * v / m.files:,.1f} ms/file)"
                for k, v in sorted(m.parts.items(), key=lambda kv: -kv[1]))
                  + " (polled every 0.2 s)")
    pools = [m for m in results if m.name.startswith("scan")]
    for m in (m for m in results if m.name.startswith("spark") and pools):
        print(f"goal: Spark within 2x the pool's CPU: {m.name} used "
              + ", ".join(f"{m.cpu / p.cpu:.2f}x the CPU of {p.name}" for p in pools))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--files", type=int, default=2000, help="generated vCons (default 2000)")
    p.add_argument("--loop", type=int, default=200,
                   help="files in the summary-process loop (an even sample; default 200)")
    p.add_argument("--sessions", type=int, default=100_000,
                   help="sessions in the tables the triage queries run on (default 100000)")
    p.add_argument("--queries-only", action="store_true",
                   help="only the triage queries, on the tables of an earlier run when present")
    p.add_argument("--repeat", type=int, default=2,
                   help="runs of each engine; the least CPU and the least wall are kept")
    p.add_argument("--engines", default=",".join(ENGINES),
                   help=f"comma-separated, of: {', '.join(ENGINES)}")
    args = p.parse_args(argv)

    if args.queries_only:
        args.engines, args.loop = "", 0
    corpus = make_corpus(args.files)
    files = corpus_files(corpus)
    work = OUT / "work"
    work.mkdir(parents=True, exist_ok=True)
    size = sum(f.stat().st_size for f in files)
    print(f"corpus: {len(files):,} files ({args.files:,} generated + bad), "
          f"{size / 1e6:,.1f} MB, {os.cpu_count()} CPUs")

    results: list[Measure] = []
    for name in [e for e in args.engines.split(",") if e]:
        runs = [ENGINES[name](corpus, len(files), work) for _ in range(args.repeat)]
        best = min(runs, key=lambda m: m.cpu)
        best.wall = min(m.wall for m in runs)
        results.append(best)
    if args.loop:
        step = max(1, len(files) // args.loop)
        results.append(summary_loop(files[::step][: args.loop]))
    if results:
        _table(results)

    scan_out = work / "scan-j1" if (work / "scan-j1").exists() else work / "scan-j2"
    if args.sessions and scan_out.exists():
        dest = work / f"big-{args.sessions}"
        if not (args.queries_only and (dest / "_scan.json").exists()):
            t0 = time.perf_counter()
            big_tables(scan_out, args.sessions, dest)
            print(f"\n(triage tables made in {time.perf_counter() - t0:.0f} s)")
        import pyarrow.parquet as pq

        from viewer.fleet.schema import TABLES

        rows = {n: pq.read_metadata(dest / n / "part-00000.parquet").num_rows for n in TABLES}
        print(f"\ntriage tables: {', '.join(f'{k} {v:,}' for k, v in rows.items())}; "
              f"load average {os.getloadavg()[0]:.1f}")
        print("| query | wall (best of 3) | CPU (best of 3) |\n|---|---:|---:|")
        for name, (wall, cpu) in time_queries(dest).items():
            print(f"| {name} | {wall * 1000:,.0f} ms | {cpu * 1000:,.0f} ms |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
