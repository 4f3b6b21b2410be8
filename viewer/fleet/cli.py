"""``vcon-view scan``, ``query`` and ``report``: the fleet commands (issue 15).

Plain ``vcon-view`` imports nothing from here until one of them runs; pyarrow and duckdb (the
``fleet`` extra) are imported by the command that needs them, and a missing one is one line
naming the extra, exit 2.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from collections.abc import Sequence
from typing import Any

from viewer.cli import EX_FAIL, EX_OK, EX_USAGE, PROG, _Exit, _fail_on

#: Which extra brings which module.
EXTRAS = {"pyarrow": "fleet", "duckdb": "fleet", "pyspark": "spark", "pandas": "spark"}


def require(module: str, what: str, extra: str | None = None) -> None:
    """One line and exit 2 when ``module`` (of an optional extra) is not installed."""
    if importlib.util.find_spec(module) is None:
        extra = extra or EXTRAS.get(module, "fleet")
        raise _Exit(f"{what} needs {module}: pip install 'vcon-view[{extra}]'", EX_USAGE)


# --- scan -----------------------------------------------------------------------------------


def _scan_parser() -> argparse.ArgumentParser:
    from viewer.fleet.scan import FORMATS

    p = argparse.ArgumentParser(
        prog=f"{PROG} scan",
        description="Read many vCons (and agent recordings) into the fleet tables: vcons, "
                    "operations, attempts, findings, diagnostics, standing_decisions. A file "
                    "that cannot be read is a row of vcons with its reason. Exit 0 however many "
                    "files were refused, 1 with --fail-on when a file has such a finding, 2 "
                    "usage or unwritable OUT.",
    )
    p.add_argument("paths", nargs="+", metavar="PATH",
                   help="folder (recursive: *.vcon, *.vcon.json, *.json, each also .gz), glob, "
                        "file, - (paths on stdin), or s3:// gs:// az:// abfs:// file:// URI")
    p.add_argument("-o", "--output", required=True, metavar="OUT",
                   help="folder for the tables (empty, or a previous scan's: replaced)")
    p.add_argument("-j", "--jobs", type=_jobs, default=None, metavar="N",
                   help="worker processes (default: the CPUs; 1 runs in this process)")
    p.add_argument("--engine", choices=("pool", "spark"), default="pool",
                   help="pool: processes on this machine; spark: the active SparkSession "
                        "(spark-submit, a cluster; needs the spark extra)")
    p.add_argument("--format", choices=FORMATS, default="parquet",
                   help="parquet (zstd; needs the fleet extra) or ndjson (no extra)")
    p.add_argument("--partition-by", choices=("date",), default=None,
                   help="one folder per UTC day of the session (date=YYYY-MM-DD)")
    p.add_argument("--fail-on", metavar="KINDS", type=_fail_on, default=frozenset(),
                   help="exit 1 when any file has a finding of these kinds (comma-separated, "
                        "or all)")
    return p


def _jobs(value: str) -> int:
    try:
        n = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of jobs: {value!r}") from None
    if n < 1:
        raise argparse.ArgumentTypeError("jobs must be 1 or more")
    return n


def cmd_scan(argv: Sequence[str]) -> int:
    import os

    args = _scan_parser().parse_args(argv)
    if args.engine == "spark":
        if args.jobs is not None:
            raise _Exit("scan --engine spark: -j is the pool's; Spark's parallelism is its "
                        "master's (local[N], the cluster)", EX_USAGE)
        for module in ("pyspark", "pandas", "pyarrow"):
            require(module, "scan --engine spark", "spark")
    if args.format == "parquet":
        require("pyarrow", "scan --format parquet")
    if any(p != "-" and "://" in p and not p.lower().startswith("file://")
           for p in args.paths):
        require("pyarrow", "scan of an object store (pyarrow.fs)")
    stdin_lines: list[str] = []
    if "-" in args.paths:
        if sys.stdin is None or sys.stdin.isatty():
            raise _Exit("scan -: pipe the paths in, one a line (find ... | vcon-view scan -)",
                        EX_USAGE)
        stdin_lines = sys.stdin.read().splitlines()
    jobs = args.jobs or max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
                            else (os.cpu_count() or 1))
    from viewer.fleet.scan import Progress, ScanError, run_scan, without_pandas

    if args.engine == "spark":
        from viewer.fleet.spark import active_session, run_spark_scan

        try:
            result = run_spark_scan(active_session(), args.paths, args.output,
                                    fmt=args.format, partition=args.partition_by,
                                    stdin_lines=stdin_lines)
        except ScanError as exc:
            raise _Exit(str(exc), EX_USAGE) from None
        return _scanned(args, result)
    progress = Progress() if sys.stderr is not None and sys.stderr.isatty() else None
    if args.format == "parquet":
        import pyarrow  # noqa: F401

        without_pandas()  # this process only scans
    try:
        result = run_scan(args.paths, args.output, jobs=jobs, fmt=args.format,
                          partition=args.partition_by, stdin_lines=stdin_lines,
                          progress=progress)
    except ScanError as exc:
        raise _Exit(str(exc), EX_USAGE) from None
    finally:
        if progress is not None:
            progress.done()
    return _scanned(args, result)


def _scanned(args: argparse.Namespace, result: Any) -> int:
    """The closing line on stderr, and the exit status (1: --fail-on matched)."""
    if sys.stderr is not None:
        sys.stderr.write(
            f"{PROG}: scanned {result.files:,} files ({len(result.refused):,} not read), "
            f"{result.rows['operations']:,} operations, {result.rows['findings']:,} findings "
            f"-> {_safe(args.output)}\n")
    if args.fail_on and result.kinds & args.fail_on:
        return EX_FAIL
    return EX_OK


def _safe(text: str) -> str:
    from viewer.textsafe import safe

    return safe(text)


# --- entry ----------------------------------------------------------------------------------


def cmd_query(argv: Sequence[str]) -> int:
    from viewer.fleet.query import cmd_query as run

    return run(argv)


def cmd_report(argv: Sequence[str]) -> int:
    from viewer.fleet.report import cmd_report as run

    return run(argv)
