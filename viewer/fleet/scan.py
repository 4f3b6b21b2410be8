"""``vcon-view scan``: many vCons into the fleet tables, on one machine, with no engine.

The files are listed once (``viewer.fleet.inputs``), cut into chunks and handed to a process
pool; each worker reads its files and runs ``file_tables`` on each, and returns one Arrow table
per fleet table (ndjson: the lines, so that format needs no pyarrow). The parent writes each
table as it arrives, in input order, so ``-j 1`` (in-process) and ``-j N`` give the same tables:
one Parquet file (zstd) per table, or per table and UTC day with ``--partition-by date``
(``date=YYYY-MM-DD/``, Hive style; the column stays in the file too).

Everything is written under a temporary folder inside OUT and moved into place at the end; the
old tables of a previous scan are replaced, and ``OUT/_scan.json`` (what was read, row counts,
refused files, times) is written last: a folder without it is not a finished scan.
"""

from __future__ import annotations

import gc
import os
import shutil
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import orjson

from viewer.fleet import inputs
from viewer.fleet.schema import FORMAT, TABLES
from viewer.fleet.tables import (
    NAMES,
    Tuples,
    empty_tuples,
    file_tuples,
    tuples_to_arrow,
)

SCAN_JSON = "_scan.json"
#: Null partition value, as Hive and Spark write it (they read it back as null).
NULL_PARTITION = "__HIVE_DEFAULT_PARTITION__"
FORMATS = ("parquet", "ndjson")
#: Files per chunk: large enough that a chunk's fixed costs (its Arrow tables, their pickling
#: and Parquet row group) are small per file, small enough that two workers stay busy to the
#: end (``chunks`` also gives each worker about eight).
MAX_CHUNK = 256


class ScanError(Exception):
    """A scan that cannot start or finish (OUT unwritable, a PATH that cannot be listed)."""


@dataclass
class Chunk:
    """What a worker sends back for a run of files."""

    tables: dict[str, Any]  # table -> pyarrow.Table (parquet) or ndjson bytes
    rows: dict[str, int]
    files: int = 0
    bytes: int = 0
    refused: list[dict[str, Any]] = field(default_factory=list)
    kinds: set[str] = field(default_factory=set)
    cpu: float = 0.0


def scan_chunk(uris: Sequence[str], scan_time: datetime, fmt: str) -> Chunk:
    """Read and tabulate ``uris`` (a worker's job; also ``-j 1`` in-process)."""
    from viewer.load import LoadError

    cpu0 = time.process_time()
    rows = empty_tuples()
    size = 0
    for uri in uris:
        try:
            data = inputs.read(uri)
        except LoadError as exc:
            data = b""
            got = _unreadable(uri, scan_time, exc)
        else:
            got = file_tuples(data, uri, scan_time=scan_time)
        size += len(data)
        for name, items in got.items():
            rows[name].extend(items)
        del data, got
    return make_chunk(rows, len(uris), size, fmt, cpu0)


def make_chunk(rows: Tuples, files: int, size: int, fmt: str, cpu0: float) -> Chunk:
    """A chunk's rows as a worker returns them (also a Spark task's, viewer.fleet.spark)."""
    col = {c: i for i, c in enumerate(NAMES["vcons"])}
    status, kinds_at = col["status"], col["finding_kinds"]
    refused = [{k: v[col[k]] for k in ("file", "status", "exit_status", "error")}
               for v in rows["vcons"] if v[status] != "read"]
    kinds = {k for v in rows["vcons"] for k in (v[kinds_at] or ())}
    counts = {name: len(items) for name, items in rows.items()}
    tables = tuples_to_arrow(rows) if fmt == "parquet" else ndjson_tables(rows)
    return Chunk(tables, counts, files, size, refused, kinds, time.process_time() - cpu0)


def _unreadable(uri: str, scan_time: datetime, exc: Exception) -> Tuples:
    """A file that could not be read at all: the row summary's refusal would give."""
    from viewer.fleet.tables import _refused

    code = getattr(exc, "exit_code", 2)
    return _refused(b"", uri, scan_time, "refused", code, str(exc))


def ndjson_tables(rows: Tuples) -> dict[str, bytes]:
    """Each table as JSON lines: times RFC 3339 in UTC, days ISO, unsafe characters escaped
    (as the summary JSON escapes them: the values decode back exactly)."""
    from viewer.fleet.tables import json_value
    from viewer.jsonenc import dumps
    from viewer.report.summary import _escaped

    out = {}
    for name, items in rows.items():
        names = NAMES[name]
        lines = [dumps({k: json_value(v) for k, v in zip(names, r, strict=True)})
                 for r in items]
        out[name] = _escaped(b"".join(line + b"\n" for line in lines))
    return out


def _worker_init() -> None:
    # The model is acyclic: collector passes over its young objects free nothing (cli._parsed).
    gc.disable()
    without_pandas()


def preload(fmt: str) -> None:
    """Import what tabulating a file needs, once, before the pool forks: its workers then
    start with it instead of each importing pyarrow and the model again."""
    import viewer.load
    import viewer.model.build
    import viewer.pipeline
    import viewer.report.summary  # noqa: F401  (the tables' values are summary's)

    if fmt == "parquet":
        import pyarrow.parquet  # noqa: F401


def without_pandas() -> None:
    """Let pyarrow convert Python lists without importing pandas (which it checks for on its
    first conversion, and which costs more CPU than pyarrow's own import): for processes that
    only scan (the pool's workers, the ``scan`` command). Nothing is done when pandas is
    already imported, or pyarrow is not (``--format ndjson`` needs none); pyarrow remembers
    its answer for the process."""
    if "pandas" not in sys.modules and "pyarrow" in sys.modules:
        sys.meta_path.insert(0, _NoPandas)
        try:
            import pyarrow as pa

            pa.array([], pa.int64())  # pyarrow's one look for pandas happens now
        finally:
            sys.meta_path.remove(_NoPandas)


class _NoPandas:
    """An import finder that says pandas is not there (see ``without_pandas``)."""

    @staticmethod
    def find_spec(name: str, path: Any = None, target: Any = None) -> None:
        if name == "pandas" or name.startswith("pandas."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)


# --- writing --------------------------------------------------------------------------------


class Writer:
    """The parts of every table under a temporary folder, moved into OUT by ``commit``."""

    def __init__(self, out: str, fmt: str, partition: str | None) -> None:
        self.out = out
        self.fmt = fmt
        self.partition = partition
        self.tmp = os.path.join(out, f".scan-{os.getpid()}.tmp")
        self._open: dict[tuple[str, str], Any] = {}
        self.parts: dict[str, list[str]] = {name: [] for name in TABLES}
        os.makedirs(self.tmp, exist_ok=False)
        for name in TABLES:
            os.makedirs(os.path.join(self.tmp, name))

    def _part(self, table: str, day: str | None) -> str:
        rel = os.path.join(table, *([f"date={day}"] if day is not None else []),
                           f"part-00000.{self.fmt}")
        return rel

    def write(self, chunk: Chunk) -> None:
        for name in TABLES:
            data = chunk.tables[name]
            if self.partition is None:
                self._append(name, None, data)
            elif self.fmt == "parquet":
                for day, part in _split_arrow(data):
                    self._append(name, day, part)
            else:
                for day, part in _split_ndjson(data):
                    self._append(name, day, part)

    def _append(self, table: str, day: str | None, data: Any) -> None:
        key = (table, day)
        handle = self._open.get(key)
        if handle is None:
            rel = self._part(table, day)
            path = os.path.join(self.tmp, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            if self.fmt == "parquet":
                import pyarrow.parquet as pq

                handle = pq.ParquetWriter(path, data.schema, compression="zstd")
            else:
                handle = open(path, "wb")  # noqa: SIM115 (closed in close())
            self._open[key] = handle
            self.parts[table].append(rel)
        if self.fmt == "parquet":
            if data.num_rows:  # the file has the schema from its writer; no empty row groups
                handle.write_table(data)
        elif data:
            handle.write(data)

    def close(self) -> None:
        for handle in self._open.values():
            handle.close()
        self._open.clear()

    def ensure_every_table(self) -> None:
        """An unpartitioned table with no rows still has its (empty) part, with the schema."""
        if self.partition is not None:
            return
        for name in TABLES:
            if not self.parts[name]:
                self._append(name, None, _empty(name, self.fmt))

    def commit(self) -> None:
        """Move the new tables over the old ones (``_scan.json`` was removed first)."""
        for name in TABLES:
            dest = os.path.join(self.out, name)
            if os.path.lexists(dest):
                shutil.rmtree(dest) if os.path.isdir(dest) else os.unlink(dest)
            os.replace(os.path.join(self.tmp, name), dest)
        os.rmdir(self.tmp)

    def finish(self) -> None:
        """Close the parts and move them into OUT, every engine's last step: the old
        ``_scan.json`` goes first, so no moment shows the old tables as finished."""
        self.ensure_every_table()
        self.close()
        scan_json = os.path.join(self.out, SCAN_JSON)
        if os.path.lexists(scan_json):
            os.unlink(scan_json)
        self.commit()

    def abort(self) -> None:
        self.close()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def __enter__(self) -> Writer:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: Any) -> None:
        """Any failure in the ``with`` block aborts (OUT keeps what it had); an OSError is
        the scan's ``cannot write``. Both engines write their tables in such a block."""
        if exc is None:
            return
        self.abort()
        if isinstance(exc, OSError):
            raise cannot_write(self.out, exc) from None


def open_out(out: str, fmt: str, partition: str | None) -> Writer:
    """OUT made ready (``prepare_out``) and a writer of its parts; raises ScanError."""
    prepare_out(out)
    try:
        return Writer(out, fmt, partition)
    except OSError as exc:
        raise cannot_write(out, exc) from None


def cannot_write(out: str, exc: OSError) -> ScanError:
    """The error of a scan whose OUT could not be written, whichever step failed."""
    from viewer.textsafe import safe

    return ScanError(f"cannot write {safe(out)}: {safe(exc.strerror or exc)}")


def _empty(table: str, fmt: str) -> Any:
    if fmt == "parquet":
        from viewer.fleet.schema import arrow_schema

        return arrow_schema(table).empty_table()
    return b""


def _split_arrow(table: Any) -> Iterator[tuple[str, Any]]:
    import pyarrow.compute as pc

    if table.num_rows == 0:
        return
    days = table.column("date")
    for day in sorted(days.unique().to_pylist(), key=lambda d: (d is None, d)):
        mask = pc.is_null(days) if day is None else pc.equal(days, day)
        yield (NULL_PARTITION if day is None else day.isoformat()), table.filter(mask)


def _split_ndjson(data: bytes) -> Iterator[tuple[str, bytes]]:
    by: dict[str, list[bytes]] = {}
    for line in data.splitlines(keepends=True):
        day = orjson.loads(line).get("date")
        by.setdefault(day if isinstance(day, str) else NULL_PARTITION, []).append(line)
    for day in sorted(by):
        yield day, b"".join(by[day])


# --- the scan -------------------------------------------------------------------------------


@dataclass
class Result:
    """What ``_scan.json`` records, and the exit status's inputs."""

    files: int = 0
    bytes: int = 0
    rows: dict[str, int] = field(default_factory=lambda: dict.fromkeys(TABLES, 0))
    refused: list[dict[str, Any]] = field(default_factory=list)
    kinds: set[str] = field(default_factory=set)
    cpu: float = 0.0

    def add(self, chunk: Chunk) -> None:
        """Count a chunk's files, bytes, rows, refusals, kinds and CPU time in."""
        self.files += chunk.files
        self.bytes += chunk.bytes
        self.refused.extend(chunk.refused)
        self.kinds |= chunk.kinds
        self.cpu += chunk.cpu
        for name, n in chunk.rows.items():
            self.rows[name] += n


def chunks(items: Sequence[inputs.Input], jobs: int) -> list[list[str]]:
    """Runs of URIs: about eight per worker, at most ``MAX_CHUNK`` files each."""
    n = len(items)
    size = max(1, min(MAX_CHUNK, -(-n // (jobs * 8)) if n else 1))
    return [[i.uri for i in items[k:k + size]] for k in range(0, n, size)]


def prepare_out(out: str) -> None:
    """OUT is created, or is an empty folder, or a previous scan's (it has ``_scan.json``):
    anything else is refused, so a mistyped OUT never has its files replaced."""
    from viewer.textsafe import safe

    if os.path.lexists(out) and not os.path.isdir(out):
        raise ScanError(f"{safe(out)}: exists and is not a folder")
    try:
        os.makedirs(out, exist_ok=True)
        entries = [e for e in os.listdir(out) if not e.startswith(".scan-")]
    except OSError as exc:
        raise cannot_write(out, exc) from None
    if entries and SCAN_JSON not in entries:
        raise ScanError(f"{safe(out)}: is not empty and holds no {SCAN_JSON}; "
                        "scan writes into an empty folder or over a previous scan")
    if not os.access(out, os.W_OK):
        raise ScanError(f"cannot write {safe(out)}: permission denied")


def listing(paths: Sequence[str], out: str,
            stdin_lines: Sequence[str] = ()) -> list[inputs.Input]:
    """The files a scan into ``out`` reads (every engine's): ``paths`` expanded, less OUT's
    own files when OUT is inside a scanned folder (its _scan.json, a previous scan's parts
    are not sessions). Raises ScanError for a PATH that cannot be listed."""
    try:
        items = inputs.expand(paths, stdin_lines)
    except inputs.InputError as exc:
        raise ScanError(str(exc)) from None
    own = inputs.canonical_uri(out).rstrip("/") + "/"
    return [i for i in items if not i.uri.startswith(own)]


def run_scan(paths: Sequence[str], out: str, *, jobs: int = 1, fmt: str = "parquet",
             partition: str | None = None, stdin_lines: Sequence[str] = (),
             scan_time: datetime | None = None, progress: Any = None) -> Result:
    """Scan ``paths`` into ``out``; returns the totals. Raises ScanError for usage/OUT."""
    started = datetime.now(UTC)
    scan_time = scan_time or started
    wall0 = time.perf_counter()
    items = listing(paths, out, stdin_lines)
    writer = open_out(out, fmt, partition)
    result = Result()
    total_bytes = sum(i.size or 0 for i in items)
    cpu0 = time.process_time()
    with writer:  # a failure removes the parts
        for chunk in _results(chunks(items, jobs), jobs, scan_time, fmt):
            writer.write(chunk)
            result.add(chunk)
            if progress is not None:
                progress(result, len(items), total_bytes, time.perf_counter() - wall0)
        writer.finish()
    if jobs > 1:
        result.cpu += time.process_time() - cpu0  # the parent's writing
    else:
        result.cpu = time.process_time() - cpu0
    _write_scan_json(out, paths, fmt, partition, jobs, writer.parts, result, scan_time,
                     started, time.perf_counter() - wall0)
    return result


def _results(work: list[list[str]], jobs: int, scan_time: datetime,
             fmt: str) -> Iterator[Chunk]:
    """Each chunk's tables, in input order; ``jobs`` 1 runs in this process."""
    if jobs <= 1 or len(work) <= 1:
        was = gc.isenabled()
        gc.disable()
        try:
            for uris in work:
                yield scan_chunk(uris, scan_time, fmt)
        finally:
            if was:
                gc.enable()
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    context = multiprocessing.get_context(method)
    if method == "fork":
        preload(fmt)
    with ProcessPoolExecutor(max_workers=jobs, mp_context=context,
                             initializer=_worker_init) as pool:
        # At most a few chunks ahead of the writer: memory stays bounded on a huge listing.
        pending = []
        it = iter(work)
        for uris in it:
            pending.append(pool.submit(scan_chunk, uris, scan_time, fmt))
            if len(pending) >= jobs * 3:
                break
        while pending:
            chunk = pending.pop(0).result()
            nxt = next(it, None)
            if nxt is not None:
                pending.append(pool.submit(scan_chunk, nxt, scan_time, fmt))
            yield chunk


def _write_scan_json(out: str, paths: Sequence[str], fmt: str, partition: str | None,
                     jobs: int, parts: dict[str, list[str]], result: Result,
                     scan_time: datetime, started: datetime, seconds: float, *,
                     engine: str = "pool", extra: dict[str, Any] | None = None) -> None:
    from viewer import __version__
    from viewer.model.times import format_time
    from viewer.report.summary import dumps
    from viewer.report.write import write_atomic

    doc = {
        "format": FORMAT,
        "scanner": f"vcon-view {__version__}",
        "engine": engine,
        "jobs": jobs,
        "output_format": fmt,
        "partition_by": partition,
        "inputs": list(paths),
        "files": result.files,
        "bytes": result.bytes,
        "rows": result.rows,
        "refused": result.refused,
        "tables": {name: sorted(p.replace(os.sep, "/") for p in parts[name])
                   for name in TABLES},
        "scan_time": format_time(scan_time),
        "started": format_time(started),
        "finished": format_time(datetime.now(UTC)),
        "seconds": round(seconds, 3),
        "cpu_seconds": round(result.cpu, 3),
        **(extra or {}),
    }
    write_atomic(os.path.join(out, SCAN_JSON), dumps(doc), input_path=None)


# --- progress -------------------------------------------------------------------------------


class Progress:
    """One line on a terminal's stderr, rewritten at most five times a second."""

    def __init__(self, stream: Any = None) -> None:
        self.stream = stream or sys.stderr
        self.last = 0.0

    def __call__(self, result: Result, total: int, total_bytes: int, seconds: float) -> None:
        now = time.monotonic()
        if now - self.last < 0.2 and result.files < total:
            return
        self.last = now
        rate = result.files / seconds if seconds > 0 else 0.0
        width = 24
        done = int(width * result.files / total) if total else width
        line = (f"\r[{'#' * done}{'.' * (width - done)}] {result.files:,}/{total:,} files  "
                f"{result.bytes / 1e6:,.1f}/{total_bytes / 1e6:,.1f} MB  {rate:,.0f} files/s  "
                f"{len(result.refused):,} refused")
        try:
            self.stream.write(line)
            self.stream.flush()
        except (OSError, ValueError):
            pass

    def done(self) -> None:
        try:
            self.stream.write("\n")
            self.stream.flush()
        except (OSError, ValueError):
            pass


def read_scan_json(out: str) -> dict[str, Any]:
    with open(os.path.join(out, SCAN_JSON), "rb") as f:
        return orjson.loads(f.read())
