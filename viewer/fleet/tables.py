"""One file's bytes -> rows of the six fleet tables (``viewer.fleet.schema``).

``file_tables`` is the one per-file function every engine runs (the process pool of ``scan``,
Spark's ``mapInArrow``): it is total, so one bad file among millions is a row, never a failed
job. The values are the summary JSON's (``viewer.report.summary.summary_dict``), flattened;
nothing else is read from the vCon but its event times and ``created_at``, and no tool content
is copied: the tables are an index, the vCon stays the evidence.

This module imports neither pyarrow nor duckdb: ``to_arrow`` imports pyarrow when called.
"""

from __future__ import annotations

import hashlib
import os
import re
from datetime import UTC, date, datetime
from typing import TYPE_CHECKING, Any

from viewer.fleet.schema import INT64_MAX, INT64_MIN, TABLES, arrow_schema, column_names

if TYPE_CHECKING:
    from viewer.model.types import Model

Rows = dict[str, list[dict[str, Any]]]
#: The same rows as tuples in the schema's column order.
Tuples = dict[str, list[tuple[Any, ...]]]
NAMES: dict[str, tuple[str, ...]] = {name: column_names(name) for name in TABLES}

#: A URI's scheme (RFC 3986): ``s3://``, ``gs://``, ``file://``; a Windows drive is no scheme.
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]+://").match

#: ``summary``'s exit statuses (``viewer.cli``): read, refused (2 or 3), internal error.
EX_OK, EX_SOFTWARE = 0, 70


def canonical_uri(path: str) -> str:
    """A file's URI as the tables name it: ``file:///abs/path`` for a local path; a URI with
    a scheme (``s3://bucket/key``, ``gs://``, ``az://``, ``file://``) as given."""
    if _SCHEME(path):
        return path
    if os.name == "posix":  # pathlib's as_uri, without building a Path per listed file
        from urllib.parse import quote_from_bytes

        return "file://" + quote_from_bytes(os.fsencode(os.path.abspath(path)))
    from pathlib import Path

    return Path(os.path.abspath(path)).as_uri()


def empty_rows() -> Rows:
    return {name: [] for name in TABLES}


def file_tables(data: bytes, uri: str, *, scan_time: datetime | None = None) -> Rows:
    """The rows of every table for one input file; never raises (but on MemoryError from the
    caller's side). A file ``summary`` refuses is one ``vcons`` row with its status."""
    return as_rows(file_tuples(data, uri, scan_time=scan_time))


def file_tuples(data: bytes, uri: str, *, scan_time: datetime | None = None) -> Tuples:
    """``file_tables`` with each row a tuple in the schema's column order: what the engines
    collect (building and transposing tuples costs half of building and converting dicts)."""
    if scan_time is None:
        scan_time = datetime.now(UTC)
    try:
        return _read(data, uri, scan_time)
    except Exception as exc:  # summary's exit 70: a row says so, the scan goes on
        from viewer.textsafe import safe

        message = (f"internal error: {type(exc).__name__}: {safe(str(exc))[:300]} "
                   "(set VCON_VIEW_DEBUG=1 for a traceback)")
        return _refused(data, uri, scan_time, "failed", EX_SOFTWARE, message)


def as_rows(tuples: Tuples) -> Rows:
    """Tuples as dicts keyed by column name."""
    return {name: [dict(zip(NAMES[name], t, strict=True)) for t in items]
            for name, items in tuples.items()}


def empty_tuples() -> Tuples:
    return {name: [] for name in TABLES}


def _refused(data: bytes, uri: str, scan_time: datetime, status: str, code: int,
             message: str) -> Tuples:
    from viewer import __version__

    out = empty_tuples()
    form = "encrypted" if "encrypted vCon (JWE)" in message else None
    row = dict.fromkeys(NAMES["vcons"])
    row.update(
        file=uri, sha256=hashlib.sha256(data).hexdigest(), status=status, exit_status=code,
        error=message, size=len(data), form=form, gzip=data[:2] == b"\x1f\x8b",
        scanner_version=__version__, scan_time=scan_time,
    )
    out["vcons"].append(tuple(row.values()))
    return out


def utc_day(t: datetime | None) -> date | None:
    """The UTC day of an aware time; None for none, or one at the very edge of the calendar
    (year 1 with a positive offset has no UTC day that ``date`` can hold)."""
    if t is None:
        return None
    try:
        return t.astimezone(UTC).date()
    except OverflowError:
        return None


def _json_text(value: Any) -> str:
    """A recorded JSON value as the summary JSON writes it, compact (a string column)."""
    from viewer import jsonenc

    return jsonenc.dumps(value).decode()


def _int64(v: int | None) -> int | None:
    """An integer the 64-bit columns hold; an attempt number past 2^63-1 (the draft stops at
    2^53-1 and a diagnostic says so) is null."""
    return v if v is None or INT64_MIN <= v <= INT64_MAX else None


def _read(data: bytes, uri: str, scan_time: datetime) -> Tuples:
    from viewer.load import LoadError
    from viewer.model.build import build_model
    from viewer.pipeline import open_bytes

    try:
        model = build_model(open_bytes(data, name=uri))
    except LoadError as exc:
        return _refused(data, uri, scan_time, "refused", exc.exit_code, exc.message)
    return model_tuples(model, uri, scan_time)


def model_tuples(model: Model, uri: str, scan_time: datetime) -> Tuples:
    """The rows of one model: the summary JSON's values (``summary_dict``), read straight from
    the model as that function reads them, times as the datetimes its RFC 3339 texts are
    written from (``tests/test_fleet_tables.py`` holds the two equal). Each tuple follows its
    table's column order in ``viewer.fleet.schema``."""
    from viewer import __version__
    from viewer.model.times import parse_time
    from viewer.parties import op_party, party_record
    from viewer.report.summary import _source, decision_reason

    src = _source(model)
    first, last = model.time_span()
    created, _ = parse_time(model.vcon.get("created_at"))
    prefix = (uri, src["sha256"], src["uuid"], utc_day(first or created))
    out = empty_tuples()
    ops = out["operations"]
    atts = out["attempts"]
    targets: dict[str, tuple[Any, Any]] = {}
    parties: dict[int | None, tuple[Any, Any, Any]] = {}

    def party_columns(op: Any) -> tuple[Any, Any, Any]:
        """The summary's ``party`` record flattened (index, name, role), once per party."""
        party = op_party(model, op)
        try:
            return parties[party]
        except KeyError:
            rec = party_record(model, party)
            cols = parties[party] = ((_int64(rec["index"]), rec["name"], rec["role"]) if rec
                                     else (None, None, None))
            return cols

    def reason(op: Any) -> str | None:
        """The summary's ``decision_reason``; a value that is not a string as JSON text."""
        said = decision_reason(model, op)
        return said if said is None or isinstance(said, str) else _json_text(said)

    # prefix + (...) and the empty-collection tests: this loop runs once per operation and
    # attempt, and building each tuple at once costs less than unpacking prefix into it
    for op in model.operations:
        op_id, server, tool = op.operation_id, op.server, op.tool
        op_attempts, unassigned, once, op_flags = (op.attempts, op.unassigned_events,
                                                   op.once_decisions, op.flags)
        targets[op_id] = (server, tool)
        ops.append(prefix + (  # noqa: RUF005 (faster than unpacking, see above)
            op_id, op.operation, server, tool, op.decision, op.decision_life, op.decision_event,
            op.outcome, len(op_attempts), op.retries, op.escalated, op.late_responses,
            list(unassigned) if unassigned else [], list(once) if once else [], op.first_time,
            sorted(op_flags) if op_flags else [],
            *party_columns(op),
            reason(op) if once else None,
        ))
        head = prefix + (op_id, server, tool)  # noqa: RUF005
        for a in op_attempts:
            steps, late, out_of_model, flags = a.steps, a.late, a.out_of_model, a.flags
            atts.append(head + (  # noqa: RUF005
                _int64(a.number), a.start, a.end, [st.after for st in steps], a.final_state,
                [st.event for st in steps], list(late) if late else [],
                list(out_of_model) if out_of_model else [], a.decision, a.decision_life,
                a.decision_event, a.escalated, sorted(flags) if flags else [],
            ))
    no_target = (None, None)
    out["findings"] = [
        (*prefix, f.kind, f.severity, f.operation_id, _int64(f.attempt), list(f.events),
         f.message, *targets.get(f.operation_id, no_target))  # type: ignore[arg-type]
        for f in model.findings
    ]
    out["diagnostics"] = [(*prefix, d.code, d.severity, d.pointer, d.message)
                          for d in model.diagnostics]
    out["standing_decisions"] = [
        (*prefix, d.event, d.time, d.operation, d.server, d.tool, d.decision, d.reason,
         d.replaced_by)
        for d in model.standing
    ]
    d = model.derivation
    derived = bool(model.derived_from)
    by = model.counts()
    vcon = {
        "file": uri, "sha256": src["sha256"], "uuid": src["uuid"], "date": prefix[3],
        "status": "read", "exit_status": EX_OK, "error": None,
        "size": src["size"], "form": src["form"], "gzip": src["gzip"],
        "extensions": src["extensions"], "critical": src["critical"],
        "unsupported_critical": src["unsupported_critical"],
        "critical_override": src["critical_override"], "signed_layers": src["signed_layers"],
        "signatures": [{**g, "checked_at": sig.checked_at}
                       for g, sig in zip(src["signatures"], model.source.signatures,
                                         strict=True)],
        "signature_statuses": sorted({g["verified"] for g in src["signatures"]}),
        "derived": derived,
        "derived_from": list(model.derived_from),
        **{f"derived_{k}": getattr(d, k) if derived and d is not None else None for k in
           ("format", "title", "objects", "unit", "mapped", "ignored", "unmapped", "times")},
        "n_operations": len(ops), "n_attempts": len(atts),
        "n_standing_decisions": len(out["standing_decisions"]),
        "n_findings": len(model.findings), "n_diagnostics": len(model.diagnostics),
        "errors": by["error"], "warnings": by["warning"], "infos": by["info"],
        "finding_kinds": sorted({f.kind for f in model.findings}),
        "diagnostic_codes": sorted({x.code for x in model.diagnostics}),
        "first_event": first, "last_event": last, "created_at": created,
        "scanner_version": __version__, "scan_time": scan_time,
    }
    out["vcons"].append(tuple(vcon[c] for c in NAMES["vcons"]))
    return out


def merge(into: Rows, rows: Rows) -> Rows:
    """Append ``rows`` to ``into`` table by table (a chunk of files)."""
    for name, items in rows.items():
        into[name].extend(items)
    return into


def to_arrow(rows_by_table: Rows) -> dict[str, Any]:
    """Each table's rows as a ``pyarrow.Table`` with the schema of ``viewer.fleet.schema``
    (every table present, empty ones too)."""
    return tuples_to_arrow({name: [tuple(r[c] for c in NAMES[name]) for r in items]
                            for name, items in rows_by_table.items()})


def tuples_to_arrow(tuples_by_table: Tuples) -> dict[str, Any]:
    """``to_arrow`` for rows as tuples: each table's rows converted at once, as one struct
    array whose fields are the columns (no transposing in Python)."""
    import pyarrow as pa

    out = {}
    for name in TABLES:
        schema = arrow_schema(name)
        items = tuples_by_table.get(name, [])
        if not items:
            out[name] = schema.empty_table()
            continue
        row_type = pa.struct(list(schema))
        try:
            rows = pa.array(items, type=row_type)
        except (pa.ArrowException, UnicodeEncodeError):
            # a lone surrogate (an importer's Python json reads "\ud800"): written as U+FFFD,
            # as the summary JSON writes it
            rows = pa.array(_replace_surrogates(items), type=row_type)
        batch = pa.RecordBatch.from_struct_array(rows)
        out[name] = pa.Table.from_batches([batch]).replace_schema_metadata(schema.metadata)
    return out


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _replace_surrogates(values: Any) -> list[Any]:
    def fix(v: Any) -> Any:
        if isinstance(v, str):
            return _LONE_SURROGATE.sub("\ufffd", v)
        if isinstance(v, list | tuple):
            return type(v)(fix(x) for x in v)
        if isinstance(v, dict):
            return {k: fix(x) for k, x in v.items()}
        return v

    return [fix(v) for v in values]


def json_value(v: Any) -> Any:
    """A row value as the ndjson parts write it: times as RFC 3339 UTC text, days as ISO."""
    if isinstance(v, datetime):
        from viewer.model.times import format_time

        return format_time(v.astimezone(UTC))
    if isinstance(v, date):
        return v.isoformat()
    if isinstance(v, list) and v and isinstance(v[0], dict):  # signatures: checked_at
        return [{k: json_value(x) for k, x in item.items()} for item in v]
    return v
