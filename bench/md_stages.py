"""Where the time of ``vcon-view summary FILE --format md`` goes, in one process (issue 16).

    .venv/bin/python bench/md_stages.py bench/out/gen-88000.vcon.json        # stage table
    .venv/bin/python bench/md_stages.py FILE -o OUT                           # + the bytes

The Markdown writer's own parts, given a built model, as ``markdown.markdown_pieces`` runs
them (gc off, the CLI's report options, ``SOURCE_DATE_EPOCH`` as ``bench/run.py`` sets it):
its steps are called here one by one, in its order, with the CPU time after each; the bytes
are the real report's (``-o``, then ``cmp`` against ``vcon-view summary FILE --format md``:
the proof that nothing was skipped). The question it answers: what a column engine could
not save, i.e. what the writer pays whatever holds the model: reading the quoted events'
values (``Model.read_raw``: the events array split into slices, then their JSON parsed),
decoding each quote (``content.decode_text``, which writes a JSON value back compact to find
its depth: that text is the quote's line), the quotes' lines made safe and marked up
(``one_lines``, ``md_each``), the lines joined and encoded, and written. The rest (the
tables, the findings' lines, the per-operation evidence sections, gaps) reads the model's
objects, and a column engine would pay its own cost for it.

``decode_text`` and ``_dumped`` are timed by wrappers (one call per quote, some 36 thousand:
a few ms of the wrappers' own are counted with them).
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("file")
    p.add_argument("-o", "--output", help="write the report here (else to /dev/null)")
    p.add_argument("--floor", action="store_true",
                   help="then the quotes made again as a column engine would make them: "
                        "each quoted event's content from its Struct (decoded by the load), "
                        "no read_raw (not counted in the total)")
    args = p.parse_args(argv)
    os.environ.setdefault("SOURCE_DATE_EPOCH", "1775131200")  # as bench/run.py's reports
    gc.disable()  # as the CLI runs
    clock = time.process_time
    t0 = clock()
    rows: list[tuple[str, float]] = []
    last = [t0]

    def mark(name: str) -> None:
        now = clock()
        rows.append((name, now - last[0]))
        last[0] = now

    from viewer import cli, content
    from viewer.model.build import build_model
    from viewer.model.columns import _SLICES, EventArray
    from viewer.pipeline import open_path
    from viewer.report import evidence as E
    from viewer.report import markdown as M
    from viewer.report.formats import line_pieces
    from viewer.report.summary import selected, selected_findings

    # the per-quote functions, timed where they are looked up (module globals)
    spent: dict[str, float] = {"decode_text": 0.0, "_dumped": 0.0}

    def timed(name: str, fn: Any) -> Any:
        def run(*a: Any, **k: Any) -> Any:
            c = clock()
            try:
                return fn(*a, **k)
            finally:
                spent[name] += clock() - c
        return run

    E.decode_text = timed("decode_text", E.decode_text)
    content._dumped = timed("_dumped", content._dumped)
    mark("imports")

    loaded = open_path(args.file)
    mark("load (open_path)")
    model = build_model(loaded)
    mark("build_model")
    ns = argparse.Namespace(format="md", evidence="findings", max_chars=2000,
                            ignore_critical=False, trust=None)
    opts = cli._report_options(ns)

    # -- evidence (E.evidence, step by step) --------------------------------------------------
    ops = selected(model, opts.operations)
    by_op: dict[str, list[Any]] = {}
    for f in selected_findings(model, opts.operations):
        if f.operation_id is not None:
            by_op.setdefault(f.operation_id, []).append(f)
    turns: dict[int, Any] = {}
    lead = E.lead_party(model)
    shown = [(pos, op, found) for pos, op in enumerate(ops, 1)
             if (found := by_op.get(op.operation_id, ())) or opts.evidence == "all"]
    quoted = list(E._quoted(op for _, op, _ in shown))
    mark("evidence: operations chosen, events named")
    array = model.events[0][9] if model.events else None
    if isinstance(array, EventArray) and array._slices is None:
        array._slices = _SLICES.decode(array._raw)  # what read_values does first
    mark("read_raw: the events array split into slices")
    model.read_raw(quoted)
    mark("read_raw: the quoted events' JSON parsed")
    out_ev = [E.operation_evidence(model, op, pos, found, opts, turns, lead)
              for pos, op, found in shown]
    mark("evidence: per operation (incl. decode_text)")
    rows.append(("  of which decode_text", spent["decode_text"]))
    rows.append(("    of which _dumped (compact JSON)", spent["_dumped"]))
    anchors = {e.operation.operation_id: e.position for e in out_ev}
    ev = E.Evidence(E.provenance(model, opts), tuple(out_ev), anchors)
    mark("evidence: provenance")

    # -- markdown_lines, step by step ----------------------------------------------------------
    findings = selected_findings(model, opts.operations)
    m = E.each_once(M.md)
    out: list[str] = ["# vcon-view incident report", ""]
    s = model.source
    if ev.provenance.override_note:
        out += [f"> **WARNING: {m(ev.provenance.override_note)}.** Unsupported critical "
                f"extensions: {m(', '.join(s.unsupported_critical)) or 'none'}.", ""]
    out += M._table(["Provenance", ""], ([label, m(value)] for label, value in ev.provenance.rows))
    out += ["", "## Operations", ""]
    cells = M._op_cells(m, ops)
    ids = cells.ids
    mark("tables: operations' cells (ids, targets, outcomes, flags)")
    if ops:
        marks = [E.delegated_mark(model, op, lead) for op in ops]
        if any(marks):
            out += [f"{M.PARTY_GLYPH} name: an operation run by another party than the lead "
                    "agent (a sub-agent).", ""]
        if any(op.server == M.spec.HOST_SERVER for op in ops):
            out += [M.md(M.HOST_NOTE), ""]
        out += M._operations_table(m, ops, cells, marks)
        mark("tables: operations table")
        out += M._attempts_table(m, model, ops, ids)
        mark("tables: attempts table")
    else:
        out.append("No operations.")
    out += ["", "## Standing decisions", ""]
    if model.standing:
        when = E.time_texts(model, [d.time for d in model.standing])
        out += M._table(
            ["Event", "Time", "Server", "Tool", "Decision", "Reason", "Replaced by"],
            ([str(d.event), m(w), m(d.server), m(d.tool) or "(all tools)",
              m(d.decision), m(E.standing_reason(model, d)),
              "" if d.replaced_by is None else str(d.replaced_by)]
             for d, w in zip(model.standing, when, strict=True)))
    else:
        out.append("None.")
    mark("tables: standing decisions")
    out += ["", "## Findings", ""]
    out += M._grouped(findings, M._finding_lines(m, findings, ev.anchors))
    mark("findings' lines")
    out += ["", "## Diagnostics", ""]
    out += M._grouped(
        model.diagnostics,
        [f"- **{m(d.code)}** at {m(d.pointer) or '(document)'}: {m(d.message)}"
         for d in model.diagnostics])
    out += ["", "## Evidence", ""]
    mark("diagnostics' lines")

    # -- _evidence, step by step (Cells.of's columns one at a time) -----------------------------
    limit = opts.max_chars
    out.append(f"For {M.SCOPE[opts.evidence]}: the dialog turn before it, each attempt's "
               "arguments and final content decoded as the viewer shows them (one line, JSON "
               f"compact, a line break as ⏎), each cut at {opts.max_chars:,} characters, and "
               "the gaps in time.")
    if not ev.operations:
        out += ["", "No operation has a finding." if opts.evidence == "findings"
                else "No operations."]
    oes = ev.operations
    atts = [ae for oe in oes for ae in oe.attempts]
    quotes = [q for oe in oes for q in (oe.requested, *(x for ae in oe.attempts
                                                        for x in (ae.invocation, ae.final)))
              if q is not None]
    mark("evidence cells: quotes gathered")
    lines = E.quote_lines(quotes, limit)  # one_lines: each quote's JSON line, checked safe
    mark("evidence cells: quotes' lines (one_lines, cut)")
    leads = M.md_each([q.lead(full, limit) for q, (_, full) in zip(quotes, lines, strict=True)],
                      4 * limit)
    mark("evidence cells: quotes' leads (made, md_each)")
    texts = M.md_each([text for text, _ in lines])
    mark("evidence cells: quotes' texts marked up (md_each)")
    quote_md = [f"- {lead}: {text}" + M._note_lines(q.notes, limit) if q.notes else
                f"- {lead}: {text}" for q, lead, text in zip(quotes, leads, texts, strict=True)]
    mark("evidence cells: quotes' Markdown lines")
    said = iter(M.md_each([oe.turn.text for oe in oes if oe.turn is not None]))
    gaps = iter(M.md_each([g for oe in oes for g in oe.gaps], M.MD_CHARS))
    starts = iter(M.md_column(E.time_texts(model, [ae.attempt.start for ae in atts]), m))
    ends = iter(M.md_column(E.time_texts(model, [ae.attempt.end for ae in atts]), m))
    states = iter(E.per_key([ae.attempt.states for ae in atts], lambda x: M._states(m, x)))
    decisions = iter(M._decisions(m, list(map(E.DECISION, [ae.attempt for ae in atts]))))
    ev_cells = E.Cells(said, gaps, starts, ends, iter(quote_md), states, decisions)
    mark("evidence cells: turns, gaps, times, states, decisions")
    turn_leads: dict[int, str] = {}
    for oe in oes:
        out += ["", *M._operation_evidence(m, oe, limit, ev_cells, cells, turn_leads)]
    out.append("")
    mark("evidence sections laid out (per operation)")

    pieces = list(line_pieces(out))
    mark("lines joined, encoded (line_pieces)")
    with open(args.output or os.devnull, "wb") as f:
        f.writelines(pieces)
    mark("written" + ("" if args.output else " (/dev/null)"))

    if args.floor:
        rows.append(("-- the quoting a column engine pays (--floor), after the above:", 0.0))
        _floor(model, quotes, quote_md, limit, mark)
        _tables_floor(model, m, mark)

    total = sum(v for k, v in rows if not k.startswith(("  ", "--", "floor", "tables floor")))
    print(f"{args.file}: {len(model.events):,} events, {len(ops):,} operations, "
          f"{len(oes):,} quoted, {len(quotes):,} quotes, {len(quoted):,} events named, "
          f"{sum(map(len, pieces)) / 1e6:.1f} MB", file=sys.stderr)
    for name, v in rows:
        print(f"{v * 1e3:8.1f} ms  {name}", file=sys.stderr)
    print(f"{total * 1e3:8.1f} ms  total", file=sys.stderr)
    os._exit(0)  # as the CLI ends: the heap is not freed


#: The members of an event ``content.decode_text`` reads.
_CONTENT = ("mediatype", "url", "body", "encoding", "content_hash")


def _floor(model: Any, quotes: list[Any], quote_md: list[str], limit: int, mark: Any) -> None:
    """The quotes' Markdown lines made again from the events' Structs, as a column engine
    holding no event dict would: each quoted event's content members read from its Struct
    (the load decoded the bodies: no second parse), ``decode_text`` (whose compact JSON text
    is the quote's line), ``Quote``, ``markdown._quote_lines`` (``quote_lines``, ``md_each``
    of leads and texts), then the lines joined and encoded as ``line_pieces`` does. Checked:
    the same lines as the report's."""
    import msgspec

    from viewer.content import decode_text
    from viewer.report.evidence import Quote
    from viewer.report.formats import line_pieces
    from viewer.report.markdown import _quote_lines

    unset = msgspec.UNSET
    structs = model.events[0][9].structs
    if any(q.event_type not in ("tool-invocation", *E_FINAL) for q in quotes):
        raise SystemExit("--floor: a quote of another kind (a refused call's request)")
    contents = []
    for q in quotes:
        st = structs[q.event]
        contents.append({k: v for k in _CONTENT if (v := getattr(st, k, unset)) is not unset})
    mark("floor: content members from the Structs")
    decoded = list(map(decode_text, contents))
    mark("floor: decode_text (incl. compact JSON)")
    made = [Quote(q.event, q.event_type, d, q.late, q.notes)
            for q, d in zip(quotes, decoded, strict=True)]
    mark("floor: Quote")
    lines = _quote_lines(made, limit)
    mark("floor: _quote_lines (one_lines, leads, md_each)")
    pieces = list(line_pieces(lines))
    mark("floor: joined, encoded (line_pieces)")
    if lines != quote_md:
        raise SystemExit("--floor: not the report's lines")
    _KEEP.append((contents, decoded, made, lines, pieces))


def _tables_floor(model: Any, m: Any, mark: Any) -> None:
    """The two big tables' cells that differ from row to row, made as a column engine would
    make them from plain columns (read from the model first, not counted): operation ids,
    outcomes, the attempts' start and end texts through ``md_column`` (the times as recorded,
    as the column engine has them), each attempt's events as "3, 4, 5", then both tables laid
    out by ``_column_table`` with every other column (targets, decisions, states, flags,
    numbers: a few distinct values) a column of shared strings. A lower bound for the tables:
    what varies per row escaped and every row joined, nothing else."""
    from viewer.report.markdown import _column_table, md_column

    ops = model.operations
    atts = [a for op in ops for a in op.attempts]
    raw_ids = [op.operation_id for op in ops]
    outcomes = [op.outcome for op in ops]
    texts = model.events[0][9].column("time")
    starts = [texts[a.steps[0].event] for a in atts]
    ends = [texts[a.steps[-1].event] if a.end is not None else None for a in atts]
    events = [[s.event for s in a.steps] for a in atts]
    att_op = [op.operation_id for op in ops for _ in op.attempts]
    shared_ops = [["x"] * len(ops)] * 4
    shared_atts = [["x"] * len(atts)] * 4
    mark("-- tables floor: plain columns read (not counted)")
    ids = md_column(raw_ids, m)
    outs = md_column(outcomes, m)
    mark("tables floor: ids, outcomes (md_column)")
    st = md_column(starts, m)
    en = md_column(ends, m)
    mark("tables floor: starts, ends (md_column)")
    evs = [", ".join(map(str, e)) for e in events]
    mark("tables floor: events")
    by_id = dict(zip(raw_ids, ids, strict=True))
    op_table = _column_table(["#", "Operation ID", "Target", "Decision", "Attempts",
                              "Outcome", "Flags"],
                             [[str(i) for i in range(1, len(ops) + 1)], ids, *shared_ops[:3],
                              outs, shared_ops[3]])
    mark("tables floor: operations table laid out")
    att_table = _column_table(["Operation ID", "Attempt", "Start", "End", "States", "Events",
                               "Decision", "Late", "Out of model", "Flags"],
                              [list(map(by_id.__getitem__, att_op)), shared_atts[0], st, en,
                               shared_atts[1], evs, shared_atts[2], [""] * len(atts),
                               [""] * len(atts), shared_atts[3]])
    mark("tables floor: attempts table laid out")
    _KEEP.append((op_table, att_table))


E_FINAL = ("tool-result", "tool-failure", "tool-error", "tool-denied")
_KEEP: list[Any] = []


if __name__ == "__main__":
    raise SystemExit(main())
