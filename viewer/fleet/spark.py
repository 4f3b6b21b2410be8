"""The fleet scan on Apache Spark: the same per-file function, the same tables, many machines.

Where the vCons are millions (Databricks, EMR, Glue, Dataproc), Spark already runs. This module
takes the active ``SparkSession`` and runs the per-file function
(``viewer.fleet.tables.file_tuples``) in Spark's Python workers through ``mapInArrow`` over
``binaryFile``:

- The files are listed once, on the driver, by ``viewer.fleet.inputs.expand``: the pool's
  listing and suffix filter, so both engines read the same files. Spark is handed that list.
- ``run_spark_scan`` (``vcon-view scan --engine spark``): each task writes its own parts with
  the pool's writer (``viewer.fleet.scan.Writer``: pyarrow, zstd, the schema and its
  ``vcon-view-tables/1`` metadata) under deterministic names, ``part-NNNNN`` after its Spark
  partition, first to an attempt's temporary name and then renamed: a retried or speculative
  task overwrites its own files with the same rows. Spark's own writer is not used: its Parquet
  has another schema (nullable flags, INT96 or session-zone timestamps, no table metadata) and
  random file names, so rows would be equal but files not. OUT must be a folder every executor
  sees (local for ``local[N]``; ``/dbfs/...``, a shared mount on a cluster).
- Spark skips empty files silently (a split of no bytes is never read), and a file removed after
  the listing is skipped too. The driver compares its listing with the files the tasks report,
  runs the pool's chunk function (``scan_chunk``) on the ones missing, and writes them as one more
  part, so the empty file is the same ``refused`` row as in the pool. ``_scan.json`` is written
  last, by the driver, with the listing's count and the files Spark did not return.
- ``scan_tables`` returns one DataFrame per table, for teams who write Delta or Iceberg
  themselves: the tasks send each chunk's tables as Arrow IPC, decoded per table by a second
  ``mapInArrow`` with the table's schema; the empty files, known from the listing's sizes, are
  added from the driver.

pyspark, pandas and pyarrow are the ``spark`` extra; this module imports pyspark only inside its
functions, and Spark's workers import it (and ``viewer``) themselves.
"""

from __future__ import annotations

import contextlib
import gc
import os
import re
import time
from collections.abc import Iterable, Iterator, Sequence
from datetime import UTC, datetime
from typing import Any

import orjson

from viewer.fleet import inputs
from viewer.fleet.scan import (
    MAX_CHUNK,
    Chunk,
    Result,
    ScanError,
    Writer,
    _write_scan_json,
    listing,
    make_chunk,
    open_out,
    scan_chunk,
)
from viewer.fleet.schema import TABLES, arrow_schema
from viewer.fleet.tables import canonical_uri, empty_tuples, file_tuples

#: Files tabulated together in a task (one row group per table), as the pool's chunks.
CHUNK = MAX_CHUNK
#: ``scan_tables``'s intermediate rows: one Arrow IPC stream per chunk and table.
BLOB_SCHEMA = "table string, data binary"
_HADOOP_GLOB = re.compile(r"([\\{}\[\]*?])")


# --- paths between the listing and Spark ----------------------------------------------------


def spark_path(uri: str) -> str:
    """The path Spark (Hadoop) is given for a listed URI: a local file as ``file://`` and its
    plain path (Hadoop does not decode percent escapes), glob characters escaped."""
    if uri.lower().startswith("file://"):
        return "file://" + _HADOOP_GLOB.sub(r"\\\1", inputs.local_path(uri))
    return _HADOOP_GLOB.sub(r"\\\1", uri)


def uri_of(path: str) -> str:
    """The canonical URI (the tables' ``file``) of the path Spark reports: ``file:/abs`` is a
    local path; any other URI (``s3://bucket/key``) is as the listing names it."""
    if path.lower().startswith("file:"):
        local = path[5:]
        if local.startswith("//"):
            local = local[2:]
        return canonical_uri(local)
    return path


def _binary_files(spark: Any, items: Sequence[inputs.Input]) -> Any:
    """The listed files as Spark's ``binaryFile`` rows (``path``, ``content``). A file removed
    since the listing, or that cannot be read (permission denied), is skipped rather than
    failing the job: the driver finds it missing and gives it the pool's refused row."""
    reader = (spark.read.format("binaryFile").option("ignoreMissingFiles", "true")
              .option("ignoreCorruptFiles", "true"))
    # Spark checks each path given with a listing job of one task per path (up to 10,000):
    # 8,000 files cost more JVM CPU than reading them. One task per core lists as well.
    key = "spark.sql.sources.parallelPartitionDiscovery.parallelism"
    cores = _parallelism(spark)
    before = spark.conf.get(key, None)
    if cores:
        spark.conf.set(key, str(cores))
    try:
        return reader.load([spark_path(i.uri) for i in items]).select("path", "content")
    finally:
        if cores:
            if before is None:
                spark.conf.unset(key)
            else:
                spark.conf.set(key, before)


def _parallelism(spark: Any) -> int | None:
    """The session's default parallelism (None under Spark Connect, which has no
    SparkContext)."""
    try:
        return int(spark.sparkContext.defaultParallelism)
    except Exception:
        return None


def _pairs(batches: Iterable[Any]) -> Iterator[list[tuple[str, bytes]]]:
    """(URI, bytes) of each file in ``binaryFile`` batches, ``CHUNK`` at a time."""
    for batch in batches:
        paths = batch.column(0).to_pylist()
        contents = batch.column(1)
        for k in range(0, len(paths), CHUNK):
            yield [(uri_of(paths[i]), contents[i].as_py())
                   for i in range(k, min(k + CHUNK, len(paths)))]


def tabulate(pairs: Sequence[tuple[str, bytes]], scan_time: datetime, fmt: str) -> Chunk:
    """A chunk of files already read (a Spark task's): ``scan_chunk``'s result for them."""
    cpu0 = time.process_time()
    rows = empty_tuples()
    size = 0
    # The model is acyclic: collector passes over its young objects free nothing (as in the
    # pool's workers, scan._worker_init); Spark's Python worker runs with the collector on.
    was = gc.isenabled()
    gc.disable()
    try:
        for uri, data in pairs:
            size += len(data)
            for name, items in file_tuples(data, uri, scan_time=scan_time).items():
                rows[name].extend(items)
        return make_chunk(rows, len(pairs), size, fmt, cpu0)
    finally:
        if was:
            gc.enable()


# --- one task's parts -----------------------------------------------------------------------


class TaskWriter(Writer):
    """The pool's writer for one Spark partition: its parts are ``part-NNNNN`` in the scan's
    temporary folder, written under the attempt's name and renamed by ``publish``."""

    def __init__(self, tmp: str, fmt: str, partition: str | None, part: int,
                 attempt: int) -> None:  # the folders exist: the driver made them
        self.out = os.path.dirname(tmp)
        self.fmt = fmt
        self.partition = partition
        self.tmp = tmp
        self._open: dict[tuple[str, str], Any] = {}
        self.parts = {name: [] for name in TABLES}
        self.name = f"part-{part:05d}.{fmt}"
        self.attempt = attempt

    def _part(self, table: str, day: str | None) -> str:
        folder = os.path.join(table, *([f"date={day}"] if day is not None else []))
        return os.path.join(folder, f".{self.name}.attempt-{self.attempt}.tmp")

    def publish(self) -> None:
        """Close the parts and give them their final names (a retry's replace an earlier's)."""
        self.close()
        for name in TABLES:
            for rel in self.parts[name]:
                src = os.path.join(self.tmp, rel)
                os.replace(src, os.path.join(os.path.dirname(src), self.name))

    def abort_parts(self) -> None:
        """A failed attempt removes what it wrote (a later attempt writes it again)."""
        self.close()
        for name in TABLES:
            for rel in self.parts[name]:
                with contextlib.suppress(OSError):
                    os.unlink(os.path.join(self.tmp, rel))


def _write_partition(tmp: str, fmt: str, partition: str | None,
                     scan_time: datetime) -> Any:
    """The ``mapInArrow`` function of ``run_spark_scan``: writes, and reports per chunk."""

    def run(batches: Iterator[Any]) -> Iterator[Any]:
        import pyarrow as pa
        from pyspark import TaskContext

        ctx = TaskContext.get()
        writer = TaskWriter(tmp, fmt, partition, ctx.partitionId(), ctx.attemptNumber())
        reports = []
        try:
            for pairs in _pairs(batches):
                chunk = tabulate(pairs, scan_time, fmt)
                writer.write(chunk)
                reports.append(_report(chunk, [uri for uri, _ in pairs], ctx.partitionId()))
            writer.ensure_every_table()
            writer.publish()
        except BaseException:
            writer.abort_parts()
            raise
        # Reported only once the parts have their names: a task that failed reports nothing.
        if reports:
            yield pa.RecordBatch.from_pylist(reports, schema=_report_schema())

    return run


def _report_schema() -> Any:
    """What a task reports per chunk to the driver: which files it read, totals, refusals."""
    import pyarrow as pa

    return pa.schema([("part", pa.int64()), ("files", pa.list_(pa.string())), ("bytes", pa.int64()),
                      ("refused", pa.string()), ("kinds", pa.list_(pa.string())),
                      ("cpu", pa.float64())] + [(f"rows_{n}", pa.int64()) for n in TABLES])


def _report(chunk: Chunk, files: list[str], part: int) -> dict[str, Any]:
    return {"part": part, "files": files, "bytes": chunk.bytes,
            "refused": orjson.dumps(chunk.refused).decode(), "kinds": sorted(chunk.kinds),
            "cpu": chunk.cpu, **{f"rows_{name}": n for name, n in chunk.rows.items()}}


# --- the scan -------------------------------------------------------------------------------


#: Settings of a SparkSession vcon-view starts itself (never of one already running, nor a key
#: the user gave in ``PYSPARK_SUBMIT_ARGS`` or ``spark-defaults.conf``). A scan's JVM runs for
#: minutes and does little but hand bytes to Python: C1 alone compiles its hot code for a
#: fraction of C2's CPU, and the serial collector needs no threads of its own. A file's open
#: cost counts 64 KB (Spark's default packs dozens of small vCons into a task, yet a scan is
#: hundreds of tasks, each six Parquet parts and a round trip to Python) and the files are cut
#: into about four partitions per core (``spark.sql.files.minPartitionNum``, set once the
#: cores are known), so the last tasks still share the cores.
OWN_SESSION_CONF = {
    "spark.driver.extraJavaOptions": "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC",
    "spark.sql.files.openCostInBytes": str(64 << 10),
}
PARTITIONS_PER_CORE = 4


def active_session() -> Any:
    """The active SparkSession, or a new one (``getOrCreate``; spark-submit's settings apply).
    A session this process starts runs its Python workers with this interpreter unless
    ``PYSPARK_PYTHON`` says otherwise (the ``vcon-view`` venv has ``viewer``; ``python3`` on
    PATH may not), and gets ``OWN_SESSION_CONF`` where the user set nothing else."""
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.appName("vcon-view scan")
    ours = (SparkSession.getActiveSession() is None
            and "PYSPARK_GATEWAY_PORT" not in os.environ)
    if not ours:
        return builder.getOrCreate()
    if "PYSPARK_PYTHON" not in os.environ:
        import sys

        os.environ["PYSPARK_PYTHON"] = sys.executable
    given = _user_conf_keys()
    for key, value in OWN_SESSION_CONF.items():
        if key not in given:
            builder = builder.config(key, value)
    spark = builder.getOrCreate()
    cores = _parallelism(spark)
    key = "spark.sql.files.minPartitionNum"
    if cores and key not in given:
        spark.conf.set(key, str(PARTITIONS_PER_CORE * cores))
    return spark


def _user_conf_keys() -> set[str]:
    """The Spark settings the user gave where a new session reads them: ``--conf k=v`` in
    ``PYSPARK_SUBMIT_ARGS``, and ``spark-defaults.conf`` (``SPARK_CONF_DIR``, else
    ``SPARK_HOME/conf``)."""
    import shlex
    from itertools import pairwise

    keys: set[str] = set()
    words = shlex.split(os.environ.get("PYSPARK_SUBMIT_ARGS", ""))
    for flag, value in pairwise(words):
        if flag == "--conf" and "=" in value:
            keys.add(value.split("=", 1)[0].strip())
        elif flag == "--driver-java-options":
            keys.add("spark.driver.extraJavaOptions")
    folder = os.environ.get("SPARK_CONF_DIR") or (
        os.path.join(os.environ["SPARK_HOME"], "conf") if "SPARK_HOME" in os.environ else None)
    if folder:
        with contextlib.suppress(OSError), \
                open(os.path.join(folder, "spark-defaults.conf"), encoding="utf-8") as f:
            for line in f:
                words = line.split(None, 1)
                if words and not words[0].startswith("#"):
                    keys.add(words[0])
    return keys


def run_spark_scan(spark: Any, paths: Sequence[str], out: str, *, fmt: str = "parquet",
                   partition: str | None = None, stdin_lines: Sequence[str] = (),
                   scan_time: datetime | None = None) -> Result:
    """``scan --engine spark``: the tables in ``out`` as the pool writes them (the parts are
    per Spark partition), ``_scan.json`` last. Raises ScanError for usage/OUT."""
    started = datetime.now(UTC)
    scan_time = scan_time or started
    wall0 = time.perf_counter()
    cpu0 = time.process_time()
    items = listing(paths, out, stdin_lines)
    writer = open_out(out, fmt, partition)
    result = Result()
    with writer:  # a failure removes the parts
        reports: list[Any] = []
        n_parts = 0
        present = [i for i in items if i.size]  # Spark reads no empty file
        if present:
            df = _binary_files(spark, present)
            job = df.mapInArrow(_write_partition(writer.tmp, fmt, partition, scan_time),
                                _from_arrow(_report_schema()))
            reports = job.collect()
        seen: set[str] = set()
        for r in reports:
            n_parts = max(n_parts, r["part"] + 1)
            seen.update(r["files"])
            result.bytes += r["bytes"]
            result.refused.extend(orjson.loads(r["refused"]))
            result.kinds.update(r["kinds"])
            result.cpu += r["cpu"]
            for name in TABLES:
                result.rows[name] += r[f"rows_{name}"]
        listed = {i.uri for i in items}
        if seen - listed:
            raise ScanError("Spark named a file the listing did not: "
                            f"{_safe(sorted(seen - listed)[0])}")
        # Empty files (Spark never reads them) and files gone since the listing: the pool's
        # function on the driver, as one more part.
        missing = [i.uri for i in items if i.uri not in seen]
        if missing:
            driver = TaskWriter(writer.tmp, fmt, partition, n_parts, 0)
            chunk = scan_chunk(missing, scan_time, fmt)
            driver.write(chunk)
            driver.publish()
            result.add(chunk)
        result.files = len(seen) + len(missing)
        _collect_parts(writer)
        writer.finish()
    result.cpu += time.process_time() - cpu0  # the driver's Python; the JVMs are not counted
    result.refused.sort(key=lambda r: r["file"])
    _write_scan_json(out, paths, fmt, partition, _parallelism(spark),
                    writer.parts, result, scan_time, started, time.perf_counter() - wall0,
                    engine="spark", extra={"listed": len(items), "spark_partitions": n_parts,
                                           "not_returned_by_spark": missing})
    return result


def _collect_parts(writer: Writer) -> None:
    """The parts the tasks wrote, as the writer's list (an attempt's leftovers removed)."""
    for name in TABLES:
        base = os.path.join(writer.tmp, name)
        for root, dirs, files in os.walk(base):
            dirs.sort()
            for f in sorted(files):
                path = os.path.join(root, f)
                if f.startswith("."):
                    os.unlink(path)  # a failed attempt's, or a speculative loser's
                else:
                    writer.parts[name].append(os.path.relpath(path, writer.tmp))


def _safe(text: str) -> str:
    from viewer.textsafe import safe

    return safe(text)


# --- DataFrames -----------------------------------------------------------------------------


def scan_tables(spark: Any, paths: Sequence[str], *,
                scan_time: datetime | None = None) -> dict[str, Any]:
    """One Spark DataFrame per fleet table for the files ``paths`` names (the pool's listing),
    with the rows the pool writes; write them where you like (Delta, Iceberg, Parquet).

    The files are tabulated once: the intermediate rows are persisted (memory, then disk) and
    each table's DataFrame reads its own from them. ``unpersist`` any of them when done."""
    from pyspark import StorageLevel

    scan_time = scan_time or datetime.now(UTC)
    items = inputs.expand(paths)
    present = [i for i in items if i.size]  # Spark reads no empty file
    blobs = None
    if present:
        blobs = _binary_files(spark, present).mapInArrow(_encode_partition(scan_time),
                                                        BLOB_SCHEMA)
    empty = [i.uri for i in items if not i.size]
    if empty:  # empty (or gone at listing time): Spark would not read it; its row is made here
        chunk = scan_chunk(empty, scan_time, "parquet")
        local = spark.createDataFrame(
            [(name, _ipc(chunk.tables[name])) for name in TABLES], BLOB_SCHEMA)
        blobs = local if blobs is None else blobs.unionByName(local)
    if blobs is None:
        blobs = spark.createDataFrame([], BLOB_SCHEMA)
    blobs = blobs.persist(StorageLevel.MEMORY_AND_DISK)
    return {name: blobs.filter(blobs["table"] == name)
            .mapInArrow(_decode(name), spark_schema(name)) for name in TABLES}


def spark_schema(table: str) -> Any:
    """The Spark ``StructType`` of a fleet table (from its Arrow schema)."""
    return _from_arrow(arrow_schema(table))


def _from_arrow(schema: Any) -> Any:
    from pyspark.sql.pandas.types import from_arrow_schema

    return from_arrow_schema(schema)


def _ipc(table: Any) -> bytes:
    import pyarrow as pa

    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as w:
        w.write_table(table)
    return sink.getvalue().to_pybytes()


def _encode_partition(scan_time: datetime) -> Any:
    def run(batches: Iterator[Any]) -> Iterator[Any]:
        import pyarrow as pa

        for pairs in _pairs(batches):
            chunk = tabulate(pairs, scan_time, "parquet")
            names = [n for n in TABLES if chunk.rows[n]]
            if names:
                yield pa.RecordBatch.from_pydict(
                    {"table": names, "data": [_ipc(chunk.tables[n]) for n in names]},
                    schema=pa.schema([("table", pa.string()), ("data", pa.binary())]))

    return run


def _decode(table: str) -> Any:
    def run(batches: Iterator[Any]) -> Iterator[Any]:
        import pyarrow as pa

        for batch in batches:
            for blob in batch.column(1).to_pylist():
                with pa.ipc.open_stream(blob) as r:
                    yield from r

    return run


def submit_main(argv: Sequence[str] | None = None) -> int:
    """``scan --engine spark`` with ``argv`` (spark-submit's arguments after this file)."""
    import sys

    from viewer.cli import main

    return main(["scan", "--engine", "spark", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":  # spark-submit .../viewer/fleet/spark.py PATH... -o OUT
    raise SystemExit(submit_main())
