"""The triage queries the README shows, kept here so tests and ``bench/fleet.py`` run the very
same text (DuckDB SQL over the views of ``vcon-view query``; lambdas as ``lambda k: ...``)."""

from __future__ import annotations

from typing import Final

#: name -> (what it answers, SQL)
TRIAGE: Final[dict[str, tuple[str, str]]] = {
    "violations-this-week": (
        "sessions of the last 7 days with a policy violation or a duplicate execution",
        "select date, uuid, file, "
        "list_filter(finding_kinds, lambda k: k in ('policy-violation', "
        "'duplicate-execution-risk')) as kinds "
        "from vcons where date >= current_date - 7 "
        "and list_has_any(finding_kinds, ['policy-violation', 'duplicate-execution-risk']) "
        "order by date desc, uuid limit 50",
    ),
    "by-kind-server-tool": (
        "findings of the last 7 days per kind, server and tool, with the sessions they touch",
        "select kind, server, tool, count(*) as findings, count(distinct file) as sessions "
        "from findings where date >= current_date - 7 "
        "group by all order by findings desc limit 20",
    ),
    "weekly-trend": (
        "sessions per week, and how many had a policy violation or a duplicate execution",
        "select date_trunc('week', date)::date as week, count(*) as sessions, "
        "count(*) filter (where list_contains(finding_kinds, 'policy-violation')) as violations, "
        "count(*) filter (where list_contains(finding_kinds, 'duplicate-execution-risk')) "
        "as duplicates from vcons where status = 'read' and date is not null "
        "group by all order by week",
    ),
    "retried-tools": (
        "tools whose calls were retried: operations retried, retries, and attempts that ran "
        "after a later attempt had been invoked (duplicate executions)",
        "select o.server, o.tool, o.retried, o.retries, coalesce(d.duplicates, 0) as duplicates "
        "from (select server, tool, count(*) as retried, sum(retries) as retries "
        "      from operations where retries > 0 group by all) o "
        "left join (select server, tool, count(*) as duplicates from findings "
        "           where kind = 'duplicate-execution-risk' group by all) d "
        "on o.server is not distinct from d.server and o.tool is not distinct from d.tool "
        "order by duplicates desc, o.retries desc limit 20",
    ),
    "not-read": (
        "files that could not be read, by exit status, with one example each",
        "select exit_status, count(*) as files, min(error) as example "
        "from vcons where status <> 'read' group by all order by files desc",
    ),
}
