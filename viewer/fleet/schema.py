"""The fleet tables (``vcon-view-tables/1``): six tables whose columns are data, not code.

``scan`` writes them, ``query`` and ``report`` read them, and another engine (Spark) builds the
same rows with the same per-file function (``viewer.fleet.tables.file_tables``). Columns may be
added in a later ``/1`` release; a column's meaning never changes (a change is ``/2``).

Types are written as strings so this module imports nothing heavy: ``arrow_schema`` turns them
into a ``pyarrow.Schema`` when pyarrow is there (the ``fleet`` extra); ``ndjson`` output needs
only the names.
"""

from __future__ import annotations

from typing import Any, NamedTuple

#: Written into every part's metadata (Parquet key ``vcon-view-tables``) and ``_scan.json``.
FORMAT = "vcon-view-tables/1"
#: The metadata key of ``FORMAT`` in a Parquet part, and of the table's name.
META_FORMAT = b"vcon-view-tables"
META_TABLE = b"vcon-view-table"


class Column(NamedTuple):
    name: str
    type: str  # string int64 bool date timestamp list<string> list<int64> list<signature>
    doc: str


#: Every row starts with these: where it came from and which session it is.
PREFIX: tuple[Column, ...] = (
    Column("file", "string", "canonical URI of the input: file:///abs/path, s3://bucket/key"),
    Column("sha256", "string", "hex SHA-256 of the bytes read (before any gunzip)"),
    Column("uuid", "string", "the vCon's uuid (signed: the signature header's when absent)"),
    Column("date", "date", "UTC day of the first event, else of created_at; null when neither"),
)

_VCONS: tuple[Column, ...] = (
    Column("status", "string", "read | refused (summary exits 2 or 3) | failed (exits 70)"),
    Column("exit_status", "int64", "the exit status `vcon-view summary FILE` gives"),
    Column("error", "string", "summary's one-line error for a refused or failed file"),
    Column("size", "int64", "bytes read"),
    Column("form", "string", "unsigned | signed | encrypted (null when not read)"),
    Column("gzip", "bool", "some layer was gzip-compressed"),
    Column("extensions", "list<string>", "source.extensions"),
    Column("critical", "list<string>", "source.critical"),
    Column("unsupported_critical", "list<string>", "source.unsupported_critical"),
    Column("critical_override", "bool", "source.critical_override"),
    Column("signed_layers", "int64", "source.signed_layers"),
    Column("signatures", "list<signature>",
           "source.signatures: layer, index, alg, kid, x5c, x5u, uuid, verified (the status), "
           "reason, subject, chain, anchor, checked_at (a time), time_source"),
    Column("signature_statuses", "list<string>",
           "distinct signatures[].verified, sorted (verified, valid-signature-untrusted, "
           "invalid, unverifiable); empty when unsigned"),
    Column("derived", "bool", "the operations were derived (lifted or imported), not recorded"),
    Column("derived_from", "list<string>", "derived.from"),
    Column("derived_format", "string", "derived.format (claude-code, otlp, ...)"),
    Column("derived_title", "string", "derived.title"),
    Column("derived_objects", "int64", "derived.objects"),
    Column("derived_unit", "string", "derived.unit"),
    Column("derived_mapped", "int64", "derived.mapped"),
    Column("derived_ignored", "int64", "derived.ignored"),
    Column("derived_unmapped", "int64", "derived.unmapped"),
    Column("derived_times", "string", "derived.times: recorded | partial | order-only"),
    Column("n_operations", "int64", "rows in operations"),
    Column("n_attempts", "int64", "rows in attempts"),
    Column("n_standing_decisions", "int64", "rows in standing_decisions"),
    Column("n_findings", "int64", "counts.findings"),
    Column("n_diagnostics", "int64", "counts.diagnostics"),
    Column("errors", "int64", "counts.by_severity.error (findings and diagnostics)"),
    Column("warnings", "int64", "counts.by_severity.warning"),
    Column("infos", "int64", "counts.by_severity.info"),
    Column("finding_kinds", "list<string>", "distinct finding kinds, sorted"),
    Column("diagnostic_codes", "list<string>", "distinct diagnostic codes, sorted"),
    Column("first_event", "timestamp", "earliest event time"),
    Column("last_event", "timestamp", "latest event time"),
    Column("created_at", "timestamp", "the vCon's created_at, when it is an RFC 3339 time"),
    Column("scanner_version", "string", "vcon-view version that wrote the row"),
    Column("scan_time", "timestamp", "when the scan started"),
)

_OPERATIONS: tuple[Column, ...] = (
    Column("operation_id", "string", "operations[].operation_id"),
    Column("operation", "string", "operations[].operation"),
    Column("server", "string", "operations[].server"),
    Column("tool", "string", "operations[].tool"),
    Column("decision", "string", "operations[].decision"),
    Column("decision_life", "string", "operations[].decision_life"),
    Column("decision_event", "int64", "operations[].decision_event"),
    Column("outcome", "string", "operations[].outcome"),
    Column("n_attempts", "int64", "len(operations[].attempts)"),
    Column("retries", "int64", "operations[].retries"),
    Column("escalated", "bool", "operations[].escalated"),
    Column("late_responses", "int64", "operations[].late_responses"),
    Column("unassigned_events", "list<int64>", "operations[].unassigned_events"),
    Column("once_decisions", "list<int64>", "operations[].once_decisions"),
    Column("first_time", "timestamp", "operations[].first_time"),
    Column("flags", "list<string>", "operations[].flags"),
    Column("party_index", "int64", "operations[].party.index (null: none, or past 2^63-1)"),
    Column("party_name", "string", "operations[].party.name"),
    Column("party_role", "string", "operations[].party.role"),
    # (not ``operations[].requested``: tool content, which the tables never copy)
    Column("decision_reason", "string",
           "operations[].decision_reason (a value that is not a string: its JSON text)"),
)

_ATTEMPTS: tuple[Column, ...] = (
    Column("operation_id", "string", "the operation's operation_id"),
    Column("server", "string", "the operation's server"),
    Column("tool", "string", "the operation's tool"),
    Column("attempt", "int64", "attempts[].attempt (null above 2^63-1, which the draft refuses)"),
    Column("start_time", "timestamp", "attempts[].start"),
    Column("end_time", "timestamp", "attempts[].end"),
    Column("states", "list<string>", "attempts[].states"),
    Column("final_state", "string", "attempts[].final_state"),
    Column("events", "list<int64>", "attempts[].events"),
    Column("late", "list<int64>", "attempts[].late"),
    Column("out_of_model", "list<int64>", "attempts[].out_of_model"),
    Column("decision", "string", "attempts[].decision"),
    Column("decision_life", "string", "attempts[].decision_life"),
    Column("decision_event", "int64", "attempts[].decision_event"),
    Column("escalated", "bool", "attempts[].escalated"),
    Column("flags", "list<string>", "attempts[].flags"),
)

_FINDINGS: tuple[Column, ...] = (
    Column("kind", "string", "findings[].kind"),
    Column("severity", "string", "findings[].severity"),
    Column("operation_id", "string", "findings[].operation_id (null: the whole vCon)"),
    Column("attempt", "int64", "findings[].attempt (null above 2^63-1)"),
    Column("events", "list<int64>", "findings[].events"),
    Column("message", "string", "findings[].message"),
    Column("server", "string", "the operation's server, copied in"),
    Column("tool", "string", "the operation's tool, copied in"),
)

_DIAGNOSTICS: tuple[Column, ...] = (
    Column("code", "string", "diagnostics[].code"),
    Column("severity", "string", "diagnostics[].severity"),
    Column("pointer", "string", "diagnostics[].pointer"),
    Column("message", "string", "diagnostics[].message"),
)

_STANDING: tuple[Column, ...] = (
    Column("event", "int64", "standing_decisions[].event"),
    Column("time", "timestamp", "standing_decisions[].time"),
    Column("operation", "string", "standing_decisions[].operation"),
    Column("server", "string", "standing_decisions[].server"),
    Column("tool", "string", "standing_decisions[].tool"),
    Column("decision", "string", "standing_decisions[].decision"),
    Column("reason", "string", "standing_decisions[].reason"),
    Column("replaced_by", "int64", "standing_decisions[].replaced_by"),
)

#: The six tables, in the order they are written; each column list starts with ``PREFIX``.
TABLES: dict[str, tuple[Column, ...]] = {
    "vcons": PREFIX + _VCONS,
    "operations": PREFIX + _OPERATIONS,
    "attempts": PREFIX + _ATTEMPTS,
    "findings": PREFIX + _FINDINGS,
    "diagnostics": PREFIX + _DIAGNOSTICS,
    "standing_decisions": PREFIX + _STANDING,
}

#: Signed 64-bit range: an integer outside it is written as null (see ``attempt``).
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


def column_names(table: str) -> tuple[str, ...]:
    return tuple(c.name for c in TABLES[table])


def arrow_type(name: str) -> Any:
    """The pyarrow type of a column type string."""
    import pyarrow as pa

    scalar = {
        "string": pa.string(), "int64": pa.int64(), "bool": pa.bool_(), "date": pa.date32(),
        "timestamp": pa.timestamp("us", tz="UTC"),
    }
    if name in scalar:
        return scalar[name]
    if name == "list<signature>":
        return pa.list_(pa.struct([
            ("layer", pa.int64()), ("index", pa.int64()), ("alg", pa.string()),
            ("kid", pa.string()), ("x5c", pa.int64()), ("x5u", pa.string()),
            ("uuid", pa.string()), ("verified", pa.string()), ("reason", pa.string()),
            ("subject", pa.string()), ("chain", pa.list_(pa.string())),
            ("anchor", pa.string()), ("checked_at", pa.timestamp("us", tz="UTC")),
            ("time_source", pa.string()),
        ]))
    if name.startswith("list<") and name.endswith(">"):
        return pa.list_(scalar[name[5:-1]])
    raise ValueError(f"unknown column type {name!r}")


def arrow_schema(table: str) -> Any:
    """The ``pyarrow.Schema`` of ``table``, with the format and table name as metadata."""
    import pyarrow as pa

    return pa.schema(
        [pa.field(c.name, arrow_type(c.type)) for c in TABLES[table]],
        metadata={META_FORMAT: FORMAT.encode(), META_TABLE: table.encode()},
    )


def duckdb_type(name: str) -> str:
    """The DuckDB type of a column type string (for reading ndjson parts)."""
    scalar = {"string": "VARCHAR", "int64": "BIGINT", "bool": "BOOLEAN", "date": "DATE",
              "timestamp": "TIMESTAMPTZ"}
    if name in scalar:
        return scalar[name]
    if name == "list<signature>":
        return ("STRUCT(layer BIGINT, \"index\" BIGINT, alg VARCHAR, kid VARCHAR, x5c BIGINT, "
                "x5u VARCHAR, uuid VARCHAR, verified VARCHAR, reason VARCHAR, subject VARCHAR, "
                "chain VARCHAR[], anchor VARCHAR, checked_at TIMESTAMPTZ, "
                "time_source VARCHAR)[]")
    return scalar[name[5:-1]] + "[]"
