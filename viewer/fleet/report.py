"""``vcon-view report OUT``: the auditor's fleet report over a scan's tables.

Which sessions in a period had a policy violation or a duplicate execution, on which server and
tool, how that moved week by week, which files could not be read and why, and the sessions to
open first, each with the command that opens it. The report is a small document (sections of
paragraphs and tables) rendered as Markdown or HTML; every recorded value goes through
``viewer.textsafe`` (Markdown: ``viewer.report.markdown.md``; HTML: escaped), and no link is
live.
"""

from __future__ import annotations

import argparse
import html
import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from viewer.cli import EX_OK, EX_USAGE, PROG, _emit, _Exit, _finish
from viewer.model import spec

#: Rows of the long tables before "... more".
MAX_TARGETS = 30
MAX_REVIEW = 25
MAX_UNREAD = 20


class Code(str):
    """A cell that is a command: shown as code (it is built from safe text)."""


@dataclass
class Section:
    title: str
    paragraphs: list[str] = field(default_factory=list)
    header: list[str] = field(default_factory=list)
    rows: list[list[Any]] = field(default_factory=list)
    after: list[str] = field(default_factory=list)


@dataclass
class Document:
    title: str
    sections: list[Section]


# --- the queries ----------------------------------------------------------------------------


def _period_filter(since: date | None, until: date | None, *, read_only: bool = True) -> str:
    """A WHERE clause for the period (dates are ``date`` objects: their ISO text is safe)."""
    clauses = ["status = 'read'"] if read_only else ["true"]
    if since is not None:
        clauses.append(f"date >= DATE '{since.isoformat()}'")
    if until is not None:
        clauses.append(f"date <= DATE '{until.isoformat()}'")
    return " AND ".join(clauses)


def build(out: str, *, since: date | None = None, until: date | None = None) -> Document:
    """The report's document from the scan in OUT (DuckDB over its tables)."""
    from viewer.fleet.query import connect
    from viewer.fleet.scan import read_scan_json
    from viewer.textsafe import safe

    con = connect(out)
    scan = read_scan_json(out)
    con.execute(f"CREATE TEMP TABLE s AS SELECT * FROM vcons WHERE {_period_filter(since, until)}")
    # Every row carries its session's date, and only files that were read have operations
    # and findings: the period filters them without a join.
    day_where = _period_filter(since, until, read_only=False)
    con.execute(f"CREATE TEMP VIEW f AS SELECT * FROM findings WHERE {day_where}")
    con.execute(f"CREATE TEMP VIEW o AS SELECT * FROM operations WHERE {day_where}")

    def one(sql: str, p: Sequence[Any] = ()) -> Any:
        return con.execute(sql, list(p)).fetchone()

    def rows(sql: str, p: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        return con.execute(sql, list(p)).fetchall()

    n_sessions, first_day, last_day, n_ops, n_undated = one(
        "SELECT count(*), min(date), max(date), coalesce(sum(n_operations), 0), "
        "count(*) FILTER (WHERE date IS NULL) FROM s")
    flagging = [k for k, sev in spec.FINDING_SEVERITY.items() if sev in ("error", "warning")]
    n_findings, n_flagged = one(
        "SELECT coalesce(sum(n_findings), 0), "
        "count(*) FILTER (WHERE list_has_any(finding_kinds, ?)) FROM s", [flagging])
    n_files, n_unread = one("SELECT count(*), count(*) FILTER (WHERE status <> 'read') "
                            "FROM vcons")

    sections = []
    # -- period and scope
    period_from = since or first_day
    period_to = until or last_day
    period = (f"{period_from or '…'} to {period_to or '…'} (UTC days of each session's first "
              "event" + (", as asked" if since or until else ", all the scan holds") + ")")
    inputs = ", ".join(safe(str(p)) for p in scan.get("inputs", [])) or "(none)"
    scope = Section("Period and scope", paragraphs=[
        f"Period: {period}.",
        f"Scope: {n_files:,} files scanned from {inputs} by {safe(scan.get('scanner', '?'))} "
        f"(scan of {safe(scan.get('scan_time', '?'))}); {n_unread:,} could not be read.",
        f"Sessions in the period: {n_sessions:,}, with {n_ops:,} tool operations and "
        f"{n_findings:,} findings; {n_flagged:,} sessions have an error or warning finding.",
    ])
    if n_undated and not (since or until):
        scope.paragraphs.append(f"{n_undated:,} sessions have no event time nor created_at: "
                                "they count in the totals but in no week.")
    elif since or until:
        undated = one("SELECT count(*) FROM vcons WHERE status = 'read' AND date IS NULL")[0]
        if undated:
            scope.paragraphs.append(f"{undated:,} sessions have no date and are outside "
                                    "every period.")
    sections.append(scope)

    # -- files not read
    unread = rows("SELECT file, exit_status, error FROM vcons WHERE status <> 'read' "
                  "ORDER BY file")
    s = Section("Files not read")
    if not unread:
        s.paragraphs.append("Every file was read.")
    else:
        by: dict[tuple[str, int], int] = {}
        for file, code, error in unread:
            key = (_reason(file, error), code)
            by[key] = by.get(key, 0) + 1
        s.paragraphs.append(f"{len(unread):,} files could not be read; each is a row of "
                            "`vcons` with its reason (`vcon-view summary FILE` says the same).")
        s.header = ["reason", "exit status", "files"]
        s.rows = [[r, str(c), f"{n:,}"] for (r, c), n in
                  sorted(by.items(), key=lambda kv: (-kv[1], kv[0]))]
        s.after = [f"{_location(file)}: {_reason(file, error)}"
                   for file, _, error in unread[:MAX_UNREAD]]
        if len(unread) > MAX_UNREAD:
            s.after.append(f"… and {len(unread) - MAX_UNREAD:,} more (query: select file, error "
                           "from vcons where status <> 'read')")
    sections.append(s)

    # -- findings by kind
    counts = {k: (n, m) for k, n, m in rows(
        # in two steps (per kind and file, then per kind): a distinct count over millions of
        # rows costs several times more
        "SELECT kind, sum(n), count(*) FROM (SELECT kind, file, count(*) AS n FROM f "
        "GROUP BY ALL) GROUP BY kind")}
    kinds = list(spec.FINDING_KINDS) + sorted(k for k in counts if k not in
                                              spec.FINDING_SEVERITY)
    kinds.sort(key=lambda k: (spec.SEVERITY_RANK.get(spec.FINDING_SEVERITY.get(k, ""), 3),
                              -counts.get(k, (0, 0))[1], k))
    s = Section("Findings by kind", paragraphs=[
        "Share: of the period's sessions, those with at least one finding of the kind."])
    s.header = ["kind", "severity", "findings", "sessions", "share of sessions"]
    for k in kinds:
        n, m = counts.get(k, (0, 0))
        s.rows.append([k, spec.FINDING_SEVERITY.get(k, "?"), f"{n:,}", f"{m:,}",
                       _share(m, n_sessions)])
    sections.append(s)

    # -- per server and tool
    targets = rows(
        "WITH per AS (SELECT server, tool, file, count(*) AS n, "
        "  count(*) FILTER (WHERE outcome <> 'completed') AS nc FROM o GROUP BY ALL), "
        "ops AS (SELECT server, tool, sum(n) AS ops, count(*) AS sessions, "
        "  sum(nc) AS not_completed FROM per GROUP BY ALL), "
        "fk AS (SELECT server, tool, kind, any_value(severity) AS severity, count(*) AS n "
        "  FROM f WHERE operation_id IS NOT NULL GROUP BY ALL) "
        "SELECT ops.server, ops.tool, ops.ops, ops.sessions, ops.not_completed, "
        "  coalesce(sum(fk.n) FILTER (WHERE fk.severity = 'error'), 0) AS errors, "
        "  coalesce(sum(fk.n) FILTER (WHERE fk.severity = 'warning'), 0) AS warnings, "
        "  list(fk.kind || ' ' || fk.n ORDER BY fk.n DESC, fk.kind) "
        "    FILTER (WHERE fk.kind IS NOT NULL) AS kinds "
        "FROM ops LEFT JOIN fk ON ops.server IS NOT DISTINCT FROM fk.server "
        "  AND ops.tool IS NOT DISTINCT FROM fk.tool "
        "GROUP BY ALL ORDER BY errors DESC, warnings DESC, ops.ops DESC, "
        "  ops.server NULLS LAST, ops.tool NULLS LAST")
    s = Section("Per server and tool", paragraphs=[
        "Operations in the period by the server and tool they name; findings on them by "
        "kind (findings about a whole vCon have no tool)."])
    s.header = ["server", "tool", "operations", "sessions", "not completed", "errors",
                "warnings", "finding kinds"]
    for server, tool, ops, sessions, nc, errors, warnings, k in targets[:MAX_TARGETS]:
        s.rows.append([_or_none(server), _or_none(tool), f"{ops:,}", f"{sessions:,}",
                       f"{nc:,}", f"{errors:,}", f"{warnings:,}", ", ".join(k or [])])
    if len(targets) > MAX_TARGETS:
        s.after.append(f"… and {len(targets) - MAX_TARGETS:,} more servers and tools.")
    if not targets:
        s.paragraphs.append("No operations in the period.")
    sections.append(s)

    # -- weekly trend
    weeks = rows(
        "SELECT date_trunc('week', s.date)::DATE AS week, count(*) AS sessions, "
        "  sum(n_operations) AS ops, sum(n_findings) AS findings, "
        "  count(*) FILTER (WHERE list_contains(finding_kinds, 'policy-violation')), "
        "  count(*) FILTER (WHERE list_contains(finding_kinds, 'duplicate-execution-risk')), "
        "  count(*) FILTER (WHERE list_has_any(finding_kinds, ?)) "
        "FROM s WHERE s.date IS NOT NULL GROUP BY week ORDER BY week",
        [[k for k, sev in spec.FINDING_SEVERITY.items() if sev in ("error", "warning")]])
    s = Section("Weekly trend", paragraphs=[
        "Weeks start on Monday (UTC). Columns after findings count sessions."])
    s.header = ["week", "sessions", "operations", "findings", "policy-violation",
                "duplicate-execution-risk", "any error or warning finding"]
    for week, sessions, ops, findings, pv, dup, flagged in weeks:
        s.rows.append([str(week), f"{sessions:,}", f"{ops:,}", f"{findings:,}", f"{pv:,}",
                       f"{dup:,}", f"{flagged:,} ({_share(flagged, sessions)})"])
    if not weeks:
        s.paragraphs.append("No dated session in the period.")
    sections.append(s)

    # -- sessions to review
    review = rows(
        "WITH fk AS (SELECT file, kind, any_value(severity) AS severity, count(*) AS n FROM f "
        "  WHERE severity IN ('error', 'warning') GROUP BY ALL), "
        "k AS (SELECT file, coalesce(sum(n) FILTER (WHERE severity = 'error'), 0) AS errors, "
        "  coalesce(sum(n) FILTER (WHERE severity = 'warning'), 0) AS warnings, "
        "  list(kind ORDER BY kind) AS kinds FROM fk GROUP BY file) "
        "SELECT s.file, s.date, s.uuid, k.errors, k.warnings, k.kinds "
        "FROM s JOIN k USING (file) "
        "ORDER BY k.errors DESC, k.warnings DESC, s.date DESC NULLS LAST, s.file")
    s = Section("Sessions to review", paragraphs=[
        "Sessions with an error or warning finding, most errors first; each command opens "
        "the session in the viewer."])
    s.header = ["date", "uuid", "error findings", "warning findings", "kinds", "open with"]
    for file, day, uuid, errors, warnings, k in review[:MAX_REVIEW]:
        s.rows.append([str(day) if day else "-", _or_none(uuid), f"{errors:,}",
                       f"{warnings:,}", ", ".join(k or []), Code(open_command(file))])
    if len(review) > MAX_REVIEW:
        s.after.append(f"… and {len(review) - MAX_REVIEW:,} more: vcon-view query OUT "
                       "\"select file from findings where severity <> 'info'\"")
    if not review:
        s.paragraphs.append("No session in the period has an error or warning finding.")
    sections.append(s)
    con.close()
    return Document("Fleet report", sections)


def _share(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "-"


def _or_none(value: Any) -> str:
    return "(none)" if value is None else value


def _reason(file: str, error: str | None) -> str:
    """The part of summary's refusal that says why, without the file name and details."""
    from viewer.textsafe import safe

    text = error or "?"
    label = safe(file) + ": "
    if text.startswith(label):
        text = text[len(label):]
    for stop in (" (", ";", ","):
        text = text.split(stop, 1)[0]
    return text.strip() or "?"


def _location(uri: str) -> str:
    from viewer.fleet.inputs import local_path

    return local_path(uri) if uri.lower().startswith("file://") else uri


def open_command(uri: str) -> str:
    """The shell command that opens one session in the viewer (safe text, shell-quoted)."""
    from viewer.textsafe import safe

    where = shlex.quote(safe(_location(uri)))
    scheme = uri.split("://", 1)[0].lower() if "://" in uri else ""
    if scheme == "s3":
        return f"aws s3 cp {where} - | vcon-view -"
    if scheme in ("gs", "gcs"):
        return f"gcloud storage cat {where} | vcon-view -"
    if scheme in ("az", "abfs", "abfss"):
        return f"azcopy copy {where} session.vcon.json && vcon-view session.vcon.json"
    return f"vcon-view {where}"


# --- rendering ------------------------------------------------------------------------------


def to_markdown(doc: Document) -> str:
    from viewer.report.markdown import md

    def cell(v: Any) -> str:
        if isinstance(v, Code) and "`" not in v and "|" not in v:
            return f"`{v}`"
        return md(str(v))

    lines = [f"# {doc.title}", ""]
    for s in doc.sections:
        lines += [f"## {s.title}", ""]
        for p in s.paragraphs:
            lines += [_md_paragraph(p), ""]
        if s.header:
            lines.append("| " + " | ".join(s.header) + " |")
            lines.append("|" + "|".join("---" for _ in s.header) + "|")
            lines += ["| " + " | ".join(cell(c) or " " for c in r) + " |" for r in s.rows]
            lines.append("")
        for a in s.after:
            lines.append(f"- {md(a)}")
        if s.after:
            lines.append("")
    return "\n".join(lines)


def _md_paragraph(text: str) -> str:
    """Our own sentences: recorded parts in them (inputs, scanner) were made safe; the
    Markdown characters in them are escaped except the backtick code spans we wrote."""
    from viewer.report.markdown import md

    parts = text.split("`")
    return "".join(f"`{p}`" if i % 2 else md(p) for i, p in enumerate(parts))


_CSS = ("body{font-family:system-ui,sans-serif;max-width:70rem;margin:2rem auto;padding:0 1rem}"
        "table{border-collapse:collapse;margin:.5rem 0 1rem}"
        "th,td{border:1px solid #bbb;padding:.25rem .5rem;text-align:left;vertical-align:top}"
        "th{background:#eee}code{font-size:90%;white-space:pre-wrap;word-break:break-all}")


def to_html(doc: Document) -> str:
    """A standalone page: no script, no external resource, no link."""
    from viewer.textsafe import safe

    def esc(v: Any) -> str:
        return html.escape(safe(str(v)), quote=True)

    def cell(v: Any) -> str:
        return f"<code>{esc(v)}</code>" if isinstance(v, Code) else esc(v)

    def para(text: str) -> str:
        parts = text.split("`")
        return "".join(f"<code>{esc(p)}</code>" if i % 2 else esc(p)
                       for i, p in enumerate(parts))

    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
           'style-src \'unsafe-inline\'">',
           f"<title>{esc(doc.title)}</title><style>{_CSS}</style></head><body>",
           f"<h1>{esc(doc.title)}</h1>"]
    for s in doc.sections:
        out.append(f"<h2>{esc(s.title)}</h2>")
        out += [f"<p>{para(p)}</p>" for p in s.paragraphs]
        if s.header:
            out.append("<table><thead><tr>" + "".join(f"<th>{esc(h)}</th>" for h in s.header)
                       + "</tr></thead><tbody>")
            out += ["<tr>" + "".join(f"<td>{cell(c)}</td>" for c in r) + "</tr>"
                    for r in s.rows]
            out.append("</tbody></table>")
        if s.after:
            out.append("<ul>" + "".join(f"<li>{esc(a)}</li>" for a in s.after) + "</ul>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"


# --- command --------------------------------------------------------------------------------


def _day(value: str) -> date:
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a date (YYYY-MM-DD): {value!r}") from None


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=f"{PROG} report",
        description="The fleet report of a scan: period and scope, files not read and why, "
                    "findings by kind with the share of sessions, per server and tool, weekly "
                    "trend, and the sessions to review with the command that opens each.",
    )
    p.add_argument("out", metavar="OUT", help="the folder a scan wrote")
    p.add_argument("-o", "--output", metavar="FILE",
                   help="write FILE (.md or .html, atomically) instead of Markdown on stdout")
    p.add_argument("--since", type=_day, metavar="DATE", help="first UTC day (YYYY-MM-DD)")
    p.add_argument("--until", type=_day, metavar="DATE", help="last UTC day, included")
    p.add_argument("--format", choices=("md", "html"), default=None,
                   help="md or html (default: from -o's suffix, else md)")
    return p


def cmd_report(argv: Sequence[str]) -> int:
    from viewer.fleet.cli import require

    args = _parser().parse_args(argv)
    require("duckdb", "report")
    if args.since and args.until and args.since > args.until:
        raise _Exit("report: --since is after --until", EX_USAGE)
    fmt = args.format or ("html" if (args.output or "").lower().endswith((".html", ".htm"))
                          else "md")
    doc = build(args.out, since=args.since, until=args.until)
    text = to_html(doc) if fmt == "html" else to_markdown(doc)
    _emit(text, args.output, args.out)
    return _finish(EX_OK)
