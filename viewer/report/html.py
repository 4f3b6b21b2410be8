"""``--format html``: one self-contained, offline, printable report.

No script, no external fetch of any kind: a ``Content-Security-Policy`` meta forbids both
(``default-src 'none'``; the one ``<style>`` element is allowed by its hash, so no style
attribute or injected style could apply). Every recorded string goes through
``viewer.textsafe`` (controls, bidi and invisible characters escaped visibly) and then
``html.escape``: content only ever becomes text nodes, never an element, an attribute, a link
or a style. Every attribute value is ours (ids ``op-N``, classes, numbers, colours of the
default theme). The timeline is inline SVG with the viewer's glyphs and colours
(``viewer.glyphs``); a big file draws the operations with findings first, up to
``MAX_ROWS``, and a density lane counts all of them.
"""

from __future__ import annotations

import base64
import hashlib
import math
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import datetime
from html import escape

from viewer.content import dialog_time, order_only, view_span
from viewer.glyphs import (
    CONTEXT_GLYPH,
    DECISION_GLYPH,
    DEFAULT_PALETTE,
    EVENT_GLYPH,
    PARTY_GLYPH,
    SEVERITY_GLYPH,
    STATE_GLYPH,
    UNKNOWN_GLYPH,
)
from viewer.model import spec
from viewer.model.types import Finding, Model, Operation
from viewer.parties import delegated_mark, lead_party
from viewer.report.evidence import (
    DECISION,
    HOST_NOTE,
    NO_ARGUMENTS,
    NO_FINAL,
    NO_TURN,
    SCOPE,
    Cells,
    Evidence,
    Note,
    OperationEvidence,
    Quote,
    decision_cells,
    each_once,
    evidence,
    per_key,
    quote_blocks,
    standing_reason,
    time_texts,
)
from viewer.report.formats import ReportOptions, line_pieces
from viewer.report.summary import selected, selected_findings
from viewer.textsafe import is_block_safe, is_safe, safe, safe_block, safe_short

#: Operations drawn as rows of the timeline at most; the density lane counts every one.
MAX_ROWS = 300
#: Evidence sections open by default when there are at most this many (else collapsed).
OPEN_SECTIONS = 20
#: A cell quotes at most this much of one recorded identifier or message.
CELL_CHARS = 300
#: A diagnostic's message is quoted up to this many characters, as in Markdown (``MD_CHARS``).
MESSAGE_CHARS = 1000

_HEX = re.compile(r"#[0-9a-fA-F]{6}")


def colour(key: str) -> str:
    """The default theme's colour for a palette key (its hex part), grey when none."""
    m = _HEX.search(DEFAULT_PALETTE.get(key, ""))
    return m.group() if m else "#808080"


def h(value: object, limit: int = CELL_CHARS) -> str:
    """Untrusted value as HTML text: escaped visibly by textsafe, then HTML-escaped."""
    return escape(safe_short(value, limit), quote=True)


def hblock(text: str) -> str:
    """Multi-line untrusted text for a ``<pre>``: newlines kept, the rest as ``h``."""
    return escape(safe_block(text), quote=True)


#: Values are escaped in runs of this many (``h_each``, ``hblock_each``).
RUN = 256


def h_each(texts: Sequence[str], limit: int | None = CELL_CHARS) -> list[str]:
    """``[h(t, limit) for t in texts]`` for strings that are mostly distinct (no memo);
    ``limit`` None: each escaped whole (never cut by its escapes). In runs of ``RUN``: when a run's
    strings are within the limit and, joined by spaces, hold nothing ``safe`` escapes (so no
    line break), they are joined by line breaks, HTML-escaped at once (``html.escape`` replaces
    characters one for one, never a line break) and split again; any other run goes value by
    value."""
    out: list[str] = []
    for i in range(0, len(texts), RUN):
        run = texts[i:i + RUN]
        if (limit is None or max(map(len, run)) <= limit) and is_safe(" ".join(run)):
            out += escape("\n".join(run), quote=True).split("\n")
        elif limit is None:  # escaped whole: its escapes never cut it short of the limit
            out += [escape(safe(t), quote=True) for t in run]
        else:
            out += [h(t, limit) for t in run]
    return out


def h_column(values: Sequence[object], once: Callable[[object], str]) -> list[str]:
    """``[once(v) for v in values]``, ``once`` being ``h`` at its default limit (or
    ``each_once(h)``): a column of strings that are mostly distinct (ids, messages) by
    ``h_each``; a column holding anything else value by value."""
    if set(map(type, values)) <= {str}:
        return h_each(values)  # type: ignore[arg-type]
    return [once(v) for v in values]


def hblock_each(texts: Sequence[str]) -> list[str]:
    """``[hblock(t) for t in texts]``: in runs of ``RUN``, joined by NUL; a run whose only
    NULs are those and that holds nothing else ``safe_block`` escapes is kept as it is, any
    other one through ``safe_block`` one by one (a NUL becomes the text ``\\x00``, so none is
    left); then ``html.escape`` on the run joined, split again."""
    out: list[str] = []
    for i in range(0, len(texts), RUN):
        run = texts[i:i + RUN]
        text = "\0".join(run)
        if text.count("\0") != len(run) - 1 or not is_block_safe(text.replace("\0", "\n")):
            text = "\0".join(map(safe_block, run))
        out += escape(text, quote=True).split("\0")
    return out


# --- the page frame ----------------------------------------------------------------------------

_KEY_CSS = "".join(
    f".k{i}{{background:{colour('state:' + st)}}}" for i, st in enumerate(spec.STATES))
_SEV_CSS = "".join(
    f".sev-{sev}{{color:{colour('severity:' + sev)}}}" for sev in spec.SEVERITIES)
CSS = (
    ":root{--ink:#1d1f21;--dim:#5c6370;--line:#d0d4da;--bg:#ffffff;--panel:#f5f6f8}"
    "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;color:var(--ink);"
    "background:var(--bg);margin:0 auto;max-width:1180px;padding:16px 24px}"
    "h1{font-size:22px;margin:8px 0}h2{font-size:18px;margin:24px 0 8px;"
    "border-bottom:1px solid var(--line)}h3{font-size:15px;margin:12px 0 6px}"
    "h4{font-size:14px;margin:10px 0 4px}"
    "table{border-collapse:collapse;margin:6px 0;width:100%}"
    "th,td{border:1px solid var(--line);padding:3px 6px;text-align:left;vertical-align:top;"
    "overflow-wrap:break-word}th{background:var(--panel);white-space:nowrap}"
    "table.prov{width:auto}table.prov th{width:11em}"
    "code,pre,.mono{font-family:ui-monospace,'DejaVu Sans Mono',Menlo,monospace;"
    "font-size:12.5px}"
    "pre{background:var(--panel);border:1px solid var(--line);padding:6px 8px;"
    "white-space:pre-wrap;overflow-wrap:anywhere;margin:4px 0 8px}"
    ".banner{background:#a00000;color:#fff;padding:6px 10px;font-weight:bold}"
    ".nw{white-space:nowrap}.dim{color:var(--dim)}.note{color:var(--dim);font-size:13px}"
    "details{border:1px solid var(--line);margin:8px 0;padding:4px 10px;background:#fff}"
    "details>summary{cursor:pointer;font-weight:600}"
    "ul{margin:4px 0;padding-left:20px}"
    ".tl{width:100%;height:auto;background:#1e1e1e;border-radius:4px;"
    "-webkit-print-color-adjust:exact;print-color-adjust:exact}"
    ".legend span{margin-right:12px;white-space:nowrap}"
    ".legend b{display:inline-block;width:10px;height:10px;margin-right:3px;"
    "vertical-align:-1px;border-radius:2px}"
    + _SEV_CSS + _KEY_CSS +
    "@media print{body{max-width:none;padding:0}details{break-inside:avoid-page}"
    "details::details-content{content-visibility:visible;display:block}"
    "a{color:inherit;text-decoration:none}}"
)
_CSS_HASH = base64.b64encode(hashlib.sha256(CSS.encode()).digest()).decode()
#: Nothing may load or run: no script, no fetch, no frame, no form, no base; the one style
#: element is allowed by its hash; images only as data: (none are used today).
CSP = (f"default-src 'none'; style-src 'sha256-{_CSS_HASH}'; img-src data:; "
       "base-uri 'none'; form-action 'none'")


def to_html(model: Model, options: ReportOptions | None = None) -> str:
    """The report as one HTML document (a str)."""
    return "\n".join(html_lines(model, options))


def html_pieces(model: Model, options: ReportOptions | None = None) -> Iterator[bytes]:
    """``to_html`` as UTF-8 pieces (``formats.line_pieces``)."""
    return line_pieces(html_lines(model, options))


def html_lines(model: Model, options: ReportOptions | None = None) -> list[str]:
    """The lines of ``to_html``, the last one empty (the text ends with a line break)."""
    opts = options or ReportOptions()
    ev = evidence(model, opts)
    ops = selected(model, opts.operations)
    findings = selected_findings(model, opts.operations)
    e = each_once(h)  # a report repeats tools, servers, states and decisions by the thousand
    out: list[str] = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">',
        '<meta name="referrer" content="no-referrer">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        "<title>vcon-view incident report</title>",
        f"<style>{CSS}</style>",
        "</head><body>",
        "<header><h1>vcon-view incident report</h1>",
    ]
    s = model.source
    if ev.provenance.override_note:
        out.append(f'<p class="banner">WARNING: {e(ev.provenance.override_note)}. Unsupported '
                   f"critical extensions: {h(', '.join(s.unsupported_critical)) or 'none'}.</p>")
    out.append('<table class="prov">')
    out += [f"<tr><th>{escape(label)}</th><td>{e(value)}</td></tr>"
            for label, value in ev.provenance.rows]
    out.append("</table></header>")
    out += _timeline(model, ops, findings, ev)
    # the findings' messages, nearly all distinct: escaped as a column, once for both places
    messages = dict(zip(map(id, findings), h_column([f.message for f in findings], e),
                        strict=True))
    out += _findings(e, findings, ev, messages)
    out += _diagnostics(e, model)
    out += _operations(e, model, ops, ev)
    out += _standing(e, model)
    out += _evidence(e, model, ev, opts, messages)
    out.append("</body></html>")
    out.append("")  # the final line break
    return out


def _sev(e: Callable[[object], str], sev: str) -> str:
    return f'<span class="nw"><span class="sev-{sev}">{SEVERITY_GLYPH[sev]}</span> {sev}</span>' \
        if sev in SEVERITY_GLYPH else e(sev)


def _ref(ev: Evidence, op_id: str | None, text: str) -> str:
    pos = ev.anchors.get(op_id) if op_id is not None else None
    return f'<a href="#op-{pos}">{text}</a>' if pos is not None else text


def _table(sid: str, title: str, heads: Sequence[str], rows: Iterable[str] | None, *,
           notes: Sequence[str] = (), none: str = "None.") -> list[str]:
    """A section of one table: its heading, ``notes``, the header row ``heads``, then ``rows``
    (each a whole ``<tr>``, its text escaped); ``none`` in place of all but the heading when
    ``rows`` is None (nothing to list). Findings, diagnostics, operations and standing
    decisions are each framed so."""
    out = [f'<section id="{sid}"><h2>{title}</h2>']
    if rows is None:
        return [*out, f"<p>{none}</p></section>"]
    out += notes
    out.append("<table><tr>" + "".join(f"<th>{x}</th>" for x in heads) + "</tr>")
    out += rows
    out.append("</table></section>")
    return out


def _findings(e: Callable[[object], str], findings: Sequence[Finding], ev: Evidence,
              messages: dict[int, str]) -> list[str]:
    """``messages``: each finding's message through ``h``, by the finding's ``id``."""
    rows: list[str] | None = None
    if findings:
        # ids and messages are nearly all distinct: escaped column by column, not memoised
        ids = h_column([f.operation_id for f in findings], e)
        rows = [
            f"<tr><td>{_sev(e, f.severity)}</td><td>{e(f.kind)}</td>"
            f'<td class="mono">'
            f"{_ref(ev, f.operation_id, op_id if f.operation_id is not None else '(the file)')}"
            f"</td><td>{'' if f.attempt is None else f.attempt}</td>"
            f"<td>{', '.join(map(str, f.events))}</td><td>{messages[id(f)]}</td></tr>"
            for sev in spec.SEVERITIES for f, op_id in zip(findings, ids, strict=True)
            if f.severity == sev]
    return _table("findings", "Findings",
                  ("Severity", "Kind", "Operation", "Attempt", "Events", "Message"), rows)


def _diagnostics(e: Callable[[object], str], model: Model) -> list[str]:
    rows = [f"<tr><td>{_sev(e, d.severity)}</td><td>{e(d.code)}</td>"
            f'<td class="mono">{e(d.pointer) or "(document)"}</td>'
            f"<td>{h(d.message, MESSAGE_CHARS)}</td>"
            "</tr>" for sev in spec.SEVERITIES for d in model.diagnostics if d.severity == sev]
    return _table("diagnostics", "Diagnostics", ("Severity", "Code", "Pointer", "Message"),
                  rows if model.diagnostics else None)


def _decision(e: Callable[[object], str], value: str | None, life: str | None,
              event: int | None) -> str:
    if value is None and event is None:
        return '<span class="dim">none observed</span>'
    where = ", ".join(x for x in (e(life), f"event {event}" if event is not None else "") if x)
    glyph = DECISION_GLYPH.get(value, "?")
    return f"{glyph} " + (f"{e(value) or '(missing)'} ({where})" if where else e(value))


def _decisions(e: Callable[[object], str],
               rows: Sequence[tuple[str | None, str | None, int | None]]) -> list[str]:
    """``_decision`` of each (decision, life, event), each distinct one made once
    (``decision_cells``)."""
    return decision_cells(rows, lambda k: _decision(e, k[0], k[1], k[2]))


def _states(e: Callable[[object], str], states: Sequence[str | None]) -> str:
    return " → ".join(f"{STATE_GLYPH.get(x or '', '-')} {e(x)}" for x in states)


def _final(e: Callable[[object], str], key: tuple[str | None]) -> str:
    """An attempt's final state (``key``: it alone) with its glyph."""
    fs = key[0]
    return f"{STATE_GLYPH.get(fs or '', '-')} {e(fs) or '-'}"


def _operations(e: Callable[[object], str], model: Model, ops: Sequence[Operation],
                ev: Evidence) -> list[str]:
    heads = ("#", "Operation ID", "Target", "Decision", "Attempts", "Outcome", "Flags")
    if not ops:
        return _table("operations", "Operations", heads, None, none="No operations.")
    notes = []
    lead = lead_party(model)
    marks = [delegated_mark(model, op, lead) for op in ops]
    if any(marks):
        notes.append(f'<p class="note">{PARTY_GLYPH} name: an operation run by another party '
                     "than the lead agent (a sub-agent).</p>")
    if any(op.server == spec.HOST_SERVER for op in ops):
        notes.append(f'<p class="note">{escape(HOST_NOTE)}</p>')
    ids = h_column([op.operation_id for op in ops], e)  # distinct: in bulk, not memoised
    decisions = _decisions(e, list(map(DECISION, ops)))
    flags = per_key([op.flags for op in ops], lambda f: e(" ".join(sorted(f))))
    finals = iter(per_key([(a.final_state,) for op in ops for a in op.attempts],
                          lambda k: _final(e, k)))
    anchors = ev.anchors
    rows = []
    for i, (op, mark, op_id, decision, flag) in enumerate(
            zip(ops, marks, ids, decisions, flags, strict=True), 1):
        attempts = "; ".join([f"{a.number}: {next(finals)}" for a in op.attempts]) or "none"
        pos = anchors.get(op.operation_id)  # (``_ref``)
        rows.append(
            (f'<tr><td><a href="#op-{pos}">{i}</a></td>' if pos is not None
             else f"<tr><td>{i}</td>")
            + f'<td class="mono">{op_id}'
            + (f'<br><span class="dim">{e(mark)}</span>' if mark else "")
            + f"</td><td>{e(op.target)}</td>"
            f"<td>{decision}</td>"
            f"<td>{attempts}</td><td>{e(op.outcome)}</td>"
            f"<td>{flag}</td></tr>")
    return _table("operations", "Operations", heads, rows, notes=notes)


def _standing(e: Callable[[object], str], model: Model) -> list[str]:
    heads = ("Event", "Time", "Server", "Tool", "Decision", "Reason", "Replaced by")
    if not model.standing:
        return _table("standing", "Standing decisions", heads, None)
    when = time_texts(model, [d.time for d in model.standing])  # steps when order-only
    return _table("standing", "Standing decisions", heads, [
        f"<tr><td>{d.event}</td><td>{e(w)}</td><td>{e(d.server)}</td>"
        f"<td>{e(d.tool) or '(all tools)'}</td>"
        f"<td>{DECISION_GLYPH.get(d.decision, '?')} {e(d.decision)}</td>"
        f"<td>{h(standing_reason(model, d), MESSAGE_CHARS)}</td>"
        f"<td>{'' if d.replaced_by is None else d.replaced_by}</td>"
        "</tr>" for d, w in zip(model.standing, when, strict=True)])


# --- evidence ----------------------------------------------------------------------------------

def _evidence(e: Callable[[object], str], model: Model, ev: Evidence, opts: ReportOptions,
              messages: dict[int, str] | None = None) -> list[str]:
    """``messages``: findings' messages through ``h``, by the finding's ``id``."""
    out = ['<section id="evidence"><h2>Evidence</h2>']
    if opts.evidence == "none":
        return [*out, "<p>Not quoted (--evidence none).</p></section>"]
    out.append(f'<p class="note">For {SCOPE[opts.evidence]}: the dialog turn before it, '
               "each attempt's arguments and final content decoded as the viewer shows them, "
               f"each cut at {opts.max_chars:,} characters, and the gaps in time.</p>")
    if not ev.operations:
        out.append("<p>No operation has a finding.</p>" if opts.evidence == "findings"
                   else "<p>No operations.</p>")
    is_open = " open" if len(ev.operations) <= OPEN_SECTIONS else ""
    # The values that differ from one operation to the next (quotes, turns, gaps, times) are
    # escaped column by column (``h_each``, ``hblock_each``), then laid out in order.
    oes = ev.operations
    limit = opts.max_chars
    cells = Cells.of(
        oes, texts=lambda v: h_each(v, None), gaps=lambda v: h_each(v, 2000),
        times=lambda v: h_each([t or "" for t in v]), quotes=lambda q: _quotes(q, limit),
        states=lambda x: _states(e, x), decisions=lambda d: _decisions(e, d),
        when=lambda ts: time_texts(model, ts))
    for oe in oes:
        out += _operation_evidence(e, oe, limit, is_open, cells, messages or {})
    out.append("</section>")
    return out


def _quotes(quotes: Sequence[Quote], limit: int) -> list[tuple[str, str]]:
    """The lead paragraph and the ``<pre>`` of each quote (``Quote.block``), cut at ``limit``."""
    blocks = quote_blocks(quotes, limit)
    leads = h_each([q.lead(full, limit) for q, (_, full) in zip(quotes, blocks, strict=True)],
                   4 * limit)
    texts = hblock_each([text for text, _ in blocks])
    return [(f"<p>{lead}:</p>", f"<pre>{text}</pre>", *_note_items(q.notes, limit))
            if q.notes else (f"<p>{lead}:</p>", f"<pre>{text}</pre>")
            for q, lead, text in zip(quotes, leads, texts, strict=True)]


def _note_items(notes: Sequence[Note], limit: int) -> list[str]:
    """Each note as a paragraph: 'Reason (event 21): …' (one line, escaped)."""
    return [f'<p>{h(n.lead(limit), 4 * limit)}: {escape(safe(n.text), quote=True)}</p>'
            for n in notes]


def _operation_evidence(e: Callable[[object], str], oe: OperationEvidence, limit: int,
                        is_open: str, cells: Cells, messages: dict[int, str]) -> list[str]:
    op = oe.operation
    worst = next((sev for sev in spec.SEVERITIES if any(f.severity == sev
                                                        for f in oe.findings)), None)
    mark = f'<span class="sev-{worst}">{SEVERITY_GLYPH[worst]}</span> ' if worst else ""
    out = [f'<details id="op-{oe.position}"{is_open}><summary>{mark}Operation {oe.position}: '
           f'<span class="mono">{e(op.operation_id)}</span> · {e(op.target)} · '
           f"{e(op.outcome)}" + (f" · {e(oe.party)}" if oe.party else "") + "</summary>",
           "<ul>"]
    if op.flags:
        out.append(f"<li>Flags: {e(' '.join(sorted(op.flags)))}</li>")
    if oe.findings:
        out.append("<li>Findings: " + "; ".join(f"{_sev(e, f.severity)} {e(f.kind)}: "
                                                 f"{messages.get(id(f)) or e(f.message)}"
                                                 for f in oe.findings)
                   + "</li>")
    t = oe.turn
    if t is not None:
        who = f"<b>{e(t.speaker)}</b>: " if t.speaker else ""
        out.append(f"<li>{e(t.lead(limit))}: {who}{next(cells.said)}</li>")
    else:
        out.append(f"<li>{NO_TURN}</li>")
    gaps = cells.gaps
    out += [f"<li>{next(gaps)}</li>" for _ in oe.gaps]
    out.append("</ul>")
    if oe.requested is not None:
        out += next(cells.quotes)
    if not op.attempts and op.decision is not None:  # never ran: the decision its notes are of
        out.append(f"<p>Decision: {_decisions(e, [DECISION(op)])[0]}</p>")
    if oe.decided:
        out += _note_items(oe.decided, limit)
    for ae in oe.attempts:
        a = ae.attempt
        states = next(cells.states) or "no events"
        out.append(f"<h4>Attempt {a.number}: {states}</h4>")
        flags = f" · flags {e(' '.join(sorted(a.flags)))}" if a.flags else ""
        start, end = next(cells.starts), next(cells.ends)
        out.append(f"<p>Decision: {next(cells.decisions)}"
                   f"{flags} · started {start or 'time unknown'}, "
                   + (f"ended {end}" if a.end else "did not end") + "</p>")
        if ae.decided:
            out += _note_items(ae.decided, limit)
        for q, missing in ((ae.invocation, NO_ARGUMENTS), (ae.final, NO_FINAL)):
            out += next(cells.quotes) if q is not None else [f"<p>{missing}</p>"]
        if ae.between:
            out += _note_items(ae.between, limit)
    out.append("</details>")
    return out


# --- the timeline (inline SVG) -----------------------------------------------------------------

W = 1100  # viewBox width
LABEL_W = 230  # operation ids and targets
LANE_X = LABEL_W + 10
LANE_W = W - LANE_X - 30  # room on the right for the severity glyph
ROW_H = 18
TOP = 30  # ruler


def _rows(ops: Sequence[Operation], findings: Sequence[Finding]) -> tuple[list[int], str]:
    """Indices (into ``ops``) of the operations drawn, in time order, and a note."""
    if len(ops) <= MAX_ROWS:
        return list(range(len(ops))), ""
    rank = {sev: i for i, sev in enumerate(spec.SEVERITIES)}
    worst: dict[str, int] = {}
    for f in findings:
        if f.operation_id is not None:
            r = rank.get(f.severity, 3)
            if r < worst.get(f.operation_id, 9):
                worst[f.operation_id] = r
    tiers: dict[int, list[int]] = {}
    for i, op in enumerate(ops):
        tiers.setdefault(worst.get(op.operation_id, 9), []).append(i)
    chosen: list[int] = []
    for r in sorted(tiers):
        tier, room = tiers[r], MAX_ROWS - len(chosen)
        if len(tier) <= room:
            chosen += tier
        else:  # more than fit: spread evenly over the tier, which is in time order
            chosen += [tier[k * len(tier) // room] for k in range(room)]
            break
    chosen.sort()
    with_f = sum(1 for op in ops if op.operation_id in worst)
    note = (f"Showing {MAX_ROWS:,} of {len(ops):,} operations: those with findings first "
            f"({with_f:,} have one; errors, then warnings, then notes, then the rest; where "
            "a group has more than fit, spread evenly over time). The density lane above "
            "counts every operation by outcome.")
    return chosen, note


class _Axis:
    def __init__(self, model: Model) -> None:
        self.t0, t1 = view_span(model)  # the viewer's origin: events and dialog turns
        recorded = (t1 - self.t0).total_seconds() if t1 and self.t0 else 0.0
        self.one_time = recorded <= 0  # every event at one recorded time: one label
        self.span = max(recorded, 1e-3)
        self.order = order_only(model)  # times that give the order only: steps, not seconds

    def x(self, t: datetime | None) -> float | None:
        if t is None or self.t0 is None:
            return None
        return LANE_X + (t - self.t0).total_seconds() / self.span * LANE_W


def _fmt_tick(seconds: float, step: float) -> str:
    """'+12.5s', '+3m05s'...; ``step`` (the seconds between two ticks) sets the digits, so
    that ticks less than a tenth of a second apart are told apart ('+25ms', '+0.04ms')."""
    if step < 0.1:  # tenths of a second would repeat
        ms, digits = seconds * 1000, max(0, math.ceil(-math.log10(step * 1000) - 1e-9))
        if ms < 1000:
            return f"+{ms:.{digits}f}ms"
        return f"+{seconds:.{digits + 3}f}s"
    if seconds < 60:
        return f"+{seconds:.1f}s".replace(".0s", "s")
    if seconds < 3600:
        return f"+{int(seconds // 60)}m{int(seconds % 60):02d}s"
    return f"+{int(seconds // 3600)}h{int(seconds % 3600 // 60):02d}m"


def _glyph(x: float, y: float, glyph: str, fill: str, extra: str = "") -> str:
    return (f'<text x="{x:.1f}" y="{y:.1f}" fill="{fill}" text-anchor="middle"{extra}>'
            f"{escape(glyph)}</text>")


def _timeline(model: Model, ops: Sequence[Operation], findings: Sequence[Finding],
              ev: Evidence) -> list[str]:
    out = ['<section id="timeline"><h2>Timeline</h2>']
    axis = _Axis(model)
    chosen, note = _rows(ops, findings)
    legend = " ".join(
        f'<span><b class="k{i}"></b>{STATE_GLYPH[st]} {st}</span>'
        for i, st in enumerate(spec.STATES))
    out.append(f'<p class="legend">{legend}</p>')
    out.append('<p class="note">Rows: operations × time. Bars: each attempt, coloured by the '
               "state it was in; glyphs: its events (▶ invoked, ◌ timed out, ✓ result, ✗ "
               "failure, ! error, ⊘ denied, ■ cancel). A ring marks a late answer, a box an "
               "out-of-model step; ◇ ◈ ◆ are decisions (allowed, permission required, "
               "disallowed); » is a dialog turn; the right column is the worst finding.</p>")
    if note:
        out.append(f'<p class="note">{escape(note)}</p>')
    density = len(ops) > MAX_ROWS
    lanes = 2 + (2 if density else 0)  # context, standing, [density x2]
    height = TOP + (lanes + len(chosen)) * ROW_H + 10
    svg = [f'<svg class="tl" viewBox="0 0 {W} {height}" xmlns="http://www.w3.org/2000/svg" '
           f'font-family="DejaVu Sans Mono, monospace" font-size="12" role="img">']
    svg.append(f'<title>Timeline of {len(ops):,} operations</title>')
    svg += _ruler(axis, height)
    y = TOP
    svg += _context_lane(model, axis, y)
    y += ROW_H
    svg += _standing_lane(model, axis, y)
    y += ROW_H
    if density:
        svg += _density(ops, axis, y, 2 * ROW_H)
        y += 2 * ROW_H
    worst = _worst(findings)
    for i in chosen:
        svg += _op_row(model, ops[i], axis, y, worst.get(ops[i].operation_id), ev)
        y += ROW_H
    svg.append("</svg>")
    out.append("".join(svg))
    out.append("</section>")
    return out


def _worst(findings: Sequence[Finding]) -> dict[str, str]:
    rank = {sev: i for i, sev in enumerate(spec.SEVERITIES)}
    out: dict[str, str] = {}
    for f in findings:
        if f.operation_id is None:
            continue
        cur = out.get(f.operation_id)
        if cur is None or rank[f.severity] < rank[cur]:
            out[f.operation_id] = f.severity
    return out


def _ruler(axis: _Axis, height: int) -> list[str]:
    grey = colour("ruler")
    out = [f'<line x1="{LANE_X}" y1="{TOP - 6}" x2="{LANE_X + LANE_W}" y2="{TOP - 6}" '
           f'stroke="{grey}"/>',
           f'<text x="8" y="{TOP - 10}" fill="{grey}">operation · tool</text>']
    if axis.t0 is None:
        return out
    ticks = 0 if axis.one_time and not axis.order else 8
    # the importers' clock (order only) is a millisecond a step: a tick at whole steps only
    steps = round(axis.span * 1000) if axis.order else 0
    if axis.order:
        ticks = max(1, min(ticks, steps))
    for k in range(ticks + 1):
        frac = round(steps * k / ticks) / steps if axis.order and steps else k / (ticks or 1)
        x = LANE_X + LANE_W * frac
        out.append(f'<line x1="{x:.1f}" y1="{TOP - 9}" x2="{x:.1f}" y2="{height - 4}" '
                   f'stroke="{grey}" stroke-opacity="0.25"/>')
        anchor = "start" if k == 0 else "end" if k == ticks else "middle"
        if axis.order:
            label = f"step {round(steps * frac) + 1}"
        else:
            label = axis.t0.strftime("%H:%M:%S") if k == 0 else _fmt_tick(axis.span * k / ticks,
                                                                            axis.span / ticks)
        out.append(f'<text x="{x:.1f}" y="{TOP - 11}" fill="{grey}" '
                   f'text-anchor="{anchor}">{escape(label)}</text>')
    return out


def _label(y: float, text: str, fill: str) -> str:
    return f'<text x="8" y="{y + 13:.1f}" fill="{fill}">{text}</text>'


def _context_lane(model: Model, axis: _Axis, y: float) -> list[str]:
    ctx = colour("context")
    out = [_label(y, f"context: {len(model.dialog):,} dialog, {len(model.context):,} events",
                  colour("dim"))]
    seen: set[int] = set()
    for d in model.dialog:
        x = axis.x(dialog_time(d))
        if x is not None and round(x) not in seen:
            seen.add(round(x))
            out.append(_glyph(x, y + 13, CONTEXT_GLYPH["dialog"], ctx))
    for i in model.context[:5000]:
        e = model.events[i]
        x = axis.x(e.time)
        if x is not None and round(x) not in seen:
            seen.add(round(x))
            out.append(_glyph(x, y + 13, CONTEXT_GLYPH.get(e.type, UNKNOWN_GLYPH), ctx))
    return out


def _standing_lane(model: Model, axis: _Axis, y: float) -> list[str]:
    out = [_label(y, f"standing decisions: {len(model.standing):,}", colour("dim"))]
    for sd in model.standing[:2000]:
        x = axis.x(sd.time)
        if x is not None:
            d = sd.decision if sd.decision in DECISION_GLYPH else None
            out.append(_glyph(x, y + 13, DECISION_GLYPH.get(d, "?"),
                              colour(f"decision:{d}" if d else "decision:none")))
    return out


def _density(ops: Sequence[Operation], axis: _Axis, y: float, hgt: float) -> list[str]:
    """Every operation, bucketed by its first time, stacked by outcome."""
    buckets = 160
    counts: list[dict[str, int]] = [{} for _ in range(buckets)]
    for op in ops:
        x = axis.x(op.first_time)
        if x is None:
            continue
        b = min(buckets - 1, max(0, int((x - LANE_X) / LANE_W * buckets)))
        counts[b][op.outcome] = counts[b].get(op.outcome, 0) + 1
    top = max((sum(c.values()) for c in counts), default=0) or 1
    out = [_label(y, f"all {len(ops):,} operations (density)", colour("dim")),
           _label(y + ROW_H, f"tallest bar: {top:,}", colour("dim"))]
    bw = LANE_W / buckets
    outcome_state = {spec.outcome_name(s): s for s in spec.STATES}
    for b, c in enumerate(counts):
        base = y + hgt - 1
        for outcome in sorted(c):
            n = c[outcome]
            bh = n / top * (hgt - 2)
            base -= bh
            st = outcome_state.get(outcome)
            fill = colour(f"state:{st}" if st else "state:none")
            out.append(f'<rect x="{LANE_X + b * bw:.1f}" y="{base:.1f}" width="{bw:.2f}" '
                       f'height="{bh:.2f}" fill="{fill}"/>')
    return out


def _op_row(model: Model, op: Operation, axis: _Axis, y: float, worst: str | None,
            ev: Evidence) -> list[str]:
    out: list[str] = []
    fill = colour(f"severity:{worst}") if worst else "#d0d0d0"
    text = (f'<text x="8" y="{y + 13:.1f}" fill="{fill}">'
            f"{_clip(op.operation_id, op)}</text>")
    pos = ev.anchors.get(op.operation_id)
    out.append(f'<a href="#op-{pos}">{text}</a>' if pos is not None else text)
    n = len(op.attempts)
    for ai, a in enumerate(op.attempts):
        xs = [axis.x(model.events[s.event].time) if 0 <= s.event < len(model.events) else None
              for s in a.steps]
        # several attempts: each on its own sub-lane, so a retry never hides the one before
        dy = (ai - (n - 1) / 2) * min(5.0, 12 / n) if n > 1 else 0.0
        yy = y + dy
        for k, step in enumerate(a.steps):
            x0 = xs[k]
            if x0 is None:
                continue
            if k + 1 < len(a.steps):
                x1 = xs[k + 1]
                dash = ""
            elif step.after not in spec.FINAL_STATES:
                x1, dash = LANE_X + LANE_W, ' stroke-dasharray="3 3"'
            else:
                continue
            if x1 is None or x1 <= x0:
                continue
            st = colour(f"state:{step.after}" if step.after else "state:none")
            out.append(f'<line x1="{x0:.1f}" y1="{yy + 9:.1f}" x2="{x1:.1f}" y2="{yy + 9:.1f}" '
                       f'stroke="{st}" stroke-width="{5 if n == 1 else 3}" '
                       f'stroke-opacity="0.75"{dash}/>')
        for k, step in enumerate(a.steps):
            x = xs[k]
            if x is None:
                continue
            e = model.events[step.event]
            st = colour(f"state:{step.after}" if step.after else "state:none")
            if step.out_of_model:
                out.append(f'<rect x="{x - 6:.1f}" y="{yy + 2:.1f}" width="12" height="14" '
                           f'fill="none" stroke="{st}"/>')
            if step.late:
                out.append(f'<circle cx="{x:.1f}" cy="{yy + 9:.1f}" r="8" fill="none" '
                           f'stroke="{colour("flag")}" stroke-width="1.5"/>')
            out.append(_glyph(x, yy + 14, EVENT_GLYPH.get(e.type, UNKNOWN_GLYPH), st,
                              ' font-weight="bold"'))
    for idx in op.once_decisions:
        if not 0 <= idx < len(model.events):
            continue
        e = model.events[idx]
        x = axis.x(e.time)
        if x is None:
            continue
        d = e.raw.get("decision")
        d = d if isinstance(d, str) and d in DECISION_GLYPH else None
        out.append(_glyph(x - 4, y + 14, DECISION_GLYPH.get(d, "?"),
                          colour(f"decision:{d}" if d else "decision:none")))
    if worst:
        out.append(_glyph(W - 14, y + 14, SEVERITY_GLYPH[worst], colour(f"severity:{worst}")))
    return out


def _clip(op_id: str, op: Operation) -> str:
    """The row label: id and tool, cut to fit the label column (about 36 characters)."""
    text = f"{safe_short(op_id, 60)}  {safe_short(op.tool or '*', 40)}"
    if len(text) > 36:
        text = text[:35] + "…"
    return escape(text)

