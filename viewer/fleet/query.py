"""``vcon-view query OUT "SQL"``: DuckDB over a scan's tables, printed safely.

The six tables are views named after them (``vcons``, ``operations``, ...), over every part of
OUT (Parquet or ndjson, partitioned or not); timestamps are shown in UTC. DuckDB's own printer
passes bidi overrides and zero-width characters through, so the result is printed here, every
value through ``viewer.textsafe`` (as a table, CSV or JSON).
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from datetime import date, datetime
from typing import Any

from viewer.cli import EX_OK, EX_USAGE, PROG, _emit, _Exit, _finish
from viewer.fleet.schema import TABLES, duckdb_type

QUERY_FORMATS = ("table", "csv", "json")
#: A table cell longer than this is cut (the JSON and CSV outputs are never cut).
CELL = 60


def scan_format(out: str) -> str:
    """The part format of a finished scan in OUT; one line and exit 2 for anything else."""
    from viewer.fleet.scan import read_scan_json
    from viewer.textsafe import safe

    try:
        doc = read_scan_json(out)
    except FileNotFoundError:
        raise _Exit(f"{safe(out)}: not a finished scan (no _scan.json); run "
                    f"'{PROG} scan PATH -o {safe(out)}'", EX_USAGE) from None
    except (OSError, ValueError) as exc:
        raise _Exit(f"{safe(out)}/_scan.json: cannot read ({safe(str(exc))})", EX_USAGE) from None
    fmt = doc.get("output_format", "parquet") if isinstance(doc, dict) else None
    if fmt not in ("parquet", "ndjson"):
        raise _Exit(f"{safe(out)}/_scan.json: unknown output format {safe(fmt)}", EX_USAGE)
    return str(fmt)


def _sql_text(s: str) -> str:
    return "'" + s.replace("'", "''") + "'"


def connect(out: str) -> Any:
    """A DuckDB connection with one view per table over OUT's parts (UTC, no downloads)."""
    fmt = scan_format(out)
    import duckdb

    con = duckdb.connect(config={"autoinstall_known_extensions": "false",
                                 "autoload_known_extensions": "false"})
    con.execute("SET TimeZone = 'UTC'")
    con.execute("SET enable_progress_bar = false")  # it would draw on our stderr
    for name, cols in TABLES.items():
        folder = os.path.join(out, name)
        has_parts = any(f.endswith(f".{fmt}") for _, _, files in os.walk(folder) for f in files)
        pattern = _sql_text(os.path.join(folder, "**", f"*.{fmt}"))
        if not has_parts:
            select = ", ".join(f"CAST(NULL AS {duckdb_type(c.type)}) AS \"{c.name}\""
                               for c in cols)
            body = f"SELECT {select} WHERE false"
        elif fmt == "parquet":
            body = (f"SELECT * FROM read_parquet({pattern}, hive_partitioning = false, "
                    "union_by_name = true)")
        else:
            columns = ", ".join(f"{_sql_text(c.name)}: {_sql_text(duckdb_type(c.type))}"
                                for c in cols)
            body = (f"SELECT * FROM read_json({pattern}, format = 'newline_delimited', "
                    f"columns = {{{columns}}}, hive_partitioning = false)")
        con.execute(f'CREATE VIEW "{name}" AS {body}')
    return con


def run_query(out: str, sql: str) -> tuple[list[str], list[tuple[Any, ...]]]:
    """Column names and rows of ``sql`` over the scan in OUT; a bad query is one line."""
    import duckdb

    from viewer.textsafe import safe

    con = connect(out)
    try:
        cur = con.execute(sql)
        if cur.description is None:
            return [], []
        names = [d[0] for d in cur.description]
        return names, cur.fetchall()
    except duckdb.Error as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise _Exit(f"query: {safe(first)}", EX_USAGE) from None
    finally:
        con.close()


def cell(value: Any) -> str:
    """One value as safe text: times in RFC 3339 UTC, lists and structs as JSON."""
    from viewer.textsafe import safe

    if value is None:
        return "NULL"
    if isinstance(value, str):
        return safe(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, datetime):
        from viewer.model.times import format_time

        return safe(format_time(value))
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, (list, tuple, dict)):
        return safe(_json_text(value))
    return safe(str(value))


def _json_text(value: Any) -> str:
    from viewer.jsonenc import dumps

    return dumps(value, option=_orjson_opts()).decode("utf-8", "replace")


def _orjson_opts() -> int:
    import orjson

    return orjson.OPT_NON_STR_KEYS


def render_table(names: list[str], rows: list[tuple[Any, ...]], width: int = CELL) -> str:
    """An aligned text table (terminal cells counted, wide characters too)."""
    from rich.cells import cell_len

    def cut(text: str) -> str:
        if cell_len(text) <= width:
            return text
        out = text[: width - 1]
        while cell_len(out) > width - 1:
            out = out[:-1]
        return out + "…"

    head = [cut(cell(n)) for n in names]
    body = [[cut(cell(v)) for v in r] for r in rows]
    widths = [max([cell_len(h)] + [cell_len(r[i]) for r in body]) for i, h in enumerate(head)]

    def line(cells: list[str]) -> str:
        return "  ".join(c + " " * (w - cell_len(c)) for c, w in zip(cells, widths, strict=True)
                         ).rstrip()

    lines = [line(head), "  ".join("-" * w for w in widths)]
    lines += [line(r) for r in body]
    lines.append(f"({len(rows):,} row{'s' if len(rows) != 1 else ''})")
    return "\n".join(lines) + "\n"


def render_csv(names: list[str], rows: list[tuple[Any, ...]]) -> str:
    import csv
    import io

    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow([cell(n) for n in names])
    for r in rows:
        w.writerow(["" if v is None else cell(v) for v in r])
    return buf.getvalue()


def render_json(names: list[str], rows: list[tuple[Any, ...]]) -> bytes:
    """One JSON array of objects; values exact, unsafe characters as JSON escapes."""
    from viewer.report.summary import dumps

    def plain(v: Any) -> Any:
        if isinstance(v, datetime):
            from viewer.model.times import format_time

            return format_time(v)
        if isinstance(v, date):
            return v.isoformat()
        if isinstance(v, (list, tuple)):
            return [plain(x) for x in v]
        if isinstance(v, dict):
            return {str(k): plain(x) for k, x in v.items()}
        if isinstance(v, (str, int, float, bool)) or v is None:
            return v
        return str(v)

    return dumps([dict(zip(names, map(plain, r), strict=True)) for r in rows])


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=f"{PROG} query",
        description="Run SQL (DuckDB) over the tables of a scan: vcons, operations, attempts, "
                    "findings, diagnostics, standing_decisions. Every value is printed with "
                    "control, bidi and invisible characters escaped.",
    )
    p.add_argument("out", metavar="OUT", help="the folder a scan wrote")
    p.add_argument("sql", metavar="SQL", help="the query, e.g. \"select kind, count(*) from "
                                              "findings group by all\"")
    p.add_argument("--format", "-f", choices=QUERY_FORMATS, default="table")
    p.add_argument("--width", type=int, default=CELL, metavar="N",
                   help=f"cut table cells to N characters (default {CELL})")
    return p


def cmd_query(argv: Sequence[str]) -> int:
    from viewer.fleet.cli import require

    args = _parser().parse_args(argv)
    require("duckdb", "query")
    names, rows = run_query(args.out, args.sql)
    if args.format == "json":
        _emit(render_json(names, rows), None, args.out)
    elif args.format == "csv":
        _emit(render_csv(names, rows), None, args.out)
    else:
        _emit(render_table(names, rows, max(8, args.width)), None, args.out)
    return _finish(EX_OK)
