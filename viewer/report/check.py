"""What ``vcon-view check`` prints, in a registry of its formats (text lines, JSON).

The command decides the exit status (``viewer.cli``); this module says it: one line per
diagnostic and finding, errors first, and the status and why. A format added to
``CHECK_FORMATS`` is a ``--format`` choice of ``check``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from viewer.model.types import Model


@dataclass(frozen=True, slots=True)
class CheckOutcome:
    """The command's verdict on a model: its exit status, the finding kinds that fail it,
    and (with ``--require-signature``) why the signature requirement is not met (None: met)."""

    status: int
    fail_on: frozenset[str] = frozenset()
    require_signature: bool = False
    unmet: str | None = None


def check_lines(model: Model) -> list[str]:
    """One safe line per diagnostic then per finding, errors first within each."""
    from viewer.model.spec import SEVERITY_RANK
    from viewer.textsafe import safe, safe_short

    def rank(item: Any) -> int:
        return SEVERITY_RANK.get(item.severity, 9)

    lines = [
        f"{d.severity:<7}  {safe(d.code)}  {safe(d.pointer) or '/'}  {safe(d.message)}"
        for d in sorted(model.diagnostics, key=rank)
    ]
    for f in sorted(model.findings, key=rank):
        where = [f"operation={safe_short(f.operation_id)}" if f.operation_id is not None else ""]
        if f.attempt is not None:
            where.append(f"attempt={f.attempt}")
        if f.events:
            where.append("events=" + ",".join(map(str, f.events)))
        loc = " ".join(w for w in where if w) or "-"
        lines.append(f"{f.severity:<7}  {safe(f.kind)}  {loc}  {safe(f.message)}")
    return lines


def check_text(model: Model, outcome: CheckOutcome) -> str:
    """The lines, an override warning and an unmet signature requirement first, and a last
    line counting them with the exit status."""
    lines = []
    if model.source.critical_override:
        lines.append("warning  produced-under-override  -  critical extensions ignored "
                     "(--ignore-critical); the core draft says this vCon must not be processed")
    if outcome.unmet is not None:
        from viewer.model.spec import SIGNATURE_REQUIRED
        from viewer.textsafe import safe

        lines.append(f"{'error':<7}  {SIGNATURE_REQUIRED}  -  --require-signature: "
                     f"{safe(outcome.unmet)}")
    lines += check_lines(model)
    counts = model.counts()
    lines.append(
        f"{len(model.diagnostics)} diagnostics, {len(model.findings)} findings: "
        f"{counts['error']} error, {counts['warning']} warning, {counts['info']} info"
        f" -> exit {outcome.status}"
    )
    return "\n".join(lines) + "\n"


def check_json(model: Model, outcome: CheckOutcome) -> bytes:
    """The summary JSON's source, diagnostics, findings and counts, with the verdict."""
    from viewer.report.summary import dumps, summary_dict

    doc = summary_dict(model, with_operations=False)  # it gives no operation
    out: dict[str, Any] = {}
    if model.source.critical_override:
        out["produced_under_override"] = True
        out["note"] = doc["note"]
    out.update(
        source=doc["source"], diagnostics=doc["diagnostics"], findings=doc["findings"],
        counts=doc["counts"], fail_on=sorted(outcome.fail_on), exit=outcome.status,
    )
    if outcome.require_signature:
        out["require_signature"] = {"met": outcome.unmet is None, "reason": outcome.unmet}
    return dumps(out)


#: ``check --format NAME``: what it renders, text or bytes.
CHECK_FORMATS: dict[str, Callable[[Model, CheckOutcome], str | bytes]] = {
    "text": check_text,
    "json": check_json,
}
