"""A column engine for ``summary --format json``, prototyped to be measured (issue 16).

    .venv/bin/python bench/proto_columns.py FILE -o OUT   # = `summary FILE --format json -o OUT`
    .venv/bin/python bench/proto_columns.py FILE --stages # + CPU per stage, ms (stderr)
    .venv/bin/python bench/proto_columns.py FILE --csv    # = `summary FILE --format csv`
    .venv/bin/python bench/proto_columns.py FILE --md-floor  # < `summary FILE --format md`

A measurement, not a second engine: nothing in ``viewer/`` calls it, and it answers only for
the fast case (every event passes its column Struct, the events are in time order, every time
parses in bulk, no identifier may be suspicious, no standing decision names an operation, no
model rule registered); anything else exits with status 3 and "not the fast case". What it
measures is the cheapest honest design of the other way README's *Performance* section
describes (a model held as columns): the same bytes as ``vcon-view summary FILE --format
json`` (``cmp`` is the proof that no rule was skipped), made without one ``Event`` tuple per
event, nor ``Step``, ``Attempt`` or ``Operation`` objects:

- decode: ``pipeline.open_path`` as the CLI runs it (the one-pass typed decode, the other
  members, the duplicate-key count, hashing), then the checks the model makes of a clean file
  (``columns.unclean`` through ``build._flagged``, ``times.parse_times``, ``check_vcon``);
- grouping: the events grouped by operation straight from the Struct columns, decisions and
  events without an attempt found by C searches (``list.index``);
- per shape: each sequence of (attempt, event type) replayed once by the viewer's own
  ``build._Shapes`` (``replay.shape_of``, ``findings.shape_findings``: the transition table and
  the shape rules are not re-written here), from ``Event`` tuples of that shape's first
  operation only; what the summary reads of it (states, positions, outcome) read out once;
- per operation, the rules that read data: target (invocation, unassigned invocation, once
  decision), operation kind, ``operation-id-not-unique`` / ``operation-target-mismatch`` /
  ``attempt-gap`` / ``attempt-order`` diagnostics, the once decisions (the real ``OnceIndex``)
  and ``OPERATION_RULES`` (its one rule, on the time column), the standing decision governing
  each attempt (the real ``StandingIndex``: its per-target settled answer, its search when an
  attempt comes before a target's last decision), the real ``ATTEMPT_RULES``, the shape's
  findings placed on the operation's events, findings sorted by the builder's keys, flags.
  The operations of one shape whose attempts one standing answer governs share a plan made
  once (their findings in the builder's order, flags, the dicts' fixed values): each then
  pays for its target, its time and target checks, the attempt rules' calls and its findings'
  event indices; any other operation (once decisions, an event without attempt, a gap, a
  second attempt-1 invocation, a check that finds something) takes the general path;
- dicts: the summary's dicts per operation and attempt written from those columns (times as
  recorded when canonical, else ``format_time``), findings, standing decisions (the real
  ``StandingIndex.records``), diagnostics, counts, the suspicious-identifier search (the real
  ``build._may_be_suspicious``);
- dump: the real ``summary.dumps`` and ``summary._spliced`` (operations and findings 512 at a
  time), as ``iter_json`` does.

``--csv``: the bytes of ``vcon-view summary FILE --format csv`` instead, from the same
per-operation records (``_csv_pieces``: every cell through the viewer's own ``csv._written``).
``--md-floor``: not a report, a lower bound of ``summary --format md`` on this engine as a
whole process (``_md_floor_pieces``: the quotes, the big tables' varying cells, the findings'
lines, by the viewer's own functions); ``bench/md_stages.py`` measures the real Markdown
writer's parts in one process.

``--templates`` (an experiment, the same bytes): the plan path's operations written as text,
each plan's operation laid out once by orjson with holes, filled per operation, in place of
its dict and orjson's dump of it (on gen-88000 no cheaper: 364 ms of text and 87 of dump
against 226 ms of dicts, 166 of dump and 44 of freeing them; the join of some 25 pieces costs
what a 13-key dict and its dump do).

Whole-process comparison: ``bench/run.py --proto`` runs it next to the bare parse and the CLI.
"""

from __future__ import annotations

import argparse
import gc
import os
import re
import sys
import time
from itertools import chain, islice, pairwise, repeat
from operator import attrgetter, itemgetter, le
from pathlib import Path
from types import SimpleNamespace
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


#: What a run made, kept to the end of the process (as the CLI keeps its model: ``os._exit``
#: ends the process before anything is freed).
_KEEP: list[Any] = []


class NotFast(Exception):
    """The file is not one this prototype answers for."""


class _Dec:
    """A once decision as ``policy.OnceIndex`` reads it: ``index`` and ``get("decision")``."""

    __slots__ = ("decision", "index")

    def __init__(self, index: int, decision: Any) -> None:
        self.index = index
        self.decision = decision

    def get(self, name: str) -> Any:
        assert name == "decision"
        return self.decision


def _fast(shaped: Any, plans: tuple[Any, ...]) -> tuple[Any, ...] | None:
    """What an operation of this shape must be checked for to take the plan path: the
    positions of its tool-invocations after the first (their target must be the first's), the
    pairs of consecutive attempts' invocations (the later must not be earlier in time), whether
    it has one attempt; None when a per-operation diagnostic is certain or needs more (a gap in
    the attempt numbers, a second attempt-1 invocation) or there is no attempt."""
    if shaped.gap or not plans:
        return None
    invocations = shaped.invocations
    if sum(1 for q in invocations if _attempt_of(shaped, q) == 1) > 1:
        return None
    inv_of = [p[3] for p in plans if p[3] is not None]
    return (tuple(invocations[1:]), tuple(pairwise(inv_of)), len(plans) == 1)


def _attempt_of(shaped: Any, position: int) -> int | None:
    """The attempt number of the tool event at ``position`` of a shape's operations."""
    for a in shaped.shape.attempts:
        if any(s.event == position for s in a.steps):
            return a.number
    return None


def _ruled(rule: Any, number: int, gov: Any, at: int, oid: str, sid: str,
           severity: dict[str, str]) -> dict[str, Any]:
    """The finding of attempt rule ``rule`` (the viewer's own ``check``) as the summary has it."""
    events, msg = rule.check(number, gov, at)
    return {"kind": rule.kind, "severity": severity[rule.kind], "operation_id": oid,
            "attempt": number, "events": list(events), "message": sid + msg}


def _not_canonical(texts: list[str], canonical: Any) -> set[int]:
    """The positions of ``texts`` (no newline in any) that ``canonical`` does not fullmatch:
    the longest run of matching lines from each position found by one match, in C."""
    run = re.compile(f"(?:{canonical.pattern}\n)*", canonical.flags)
    joined = "\n".join(texts) + "\n"
    bad: set[int] = set()
    pos = line = 0
    end_all = len(joined)
    while True:
        end = run.match(joined, pos).end()
        line += joined.count("\n", pos, end)
        if end >= end_all:
            return bad
        bad.add(line)
        pos = joined.index("\n", end) + 1
        line += 1


def summary_pieces(path: str, marks: list[tuple[str, float]] | None = None,
                   stream: bool = True, templates: bool = False,
                   check: bool = False, csv: bool = False,
                   md_floor: bool = False, lazy: bool = False) -> list[bytes]:
    """The bytes of ``summary --format json`` of ``path``, in pieces. ``marks``: (stage, CPU
    at its end) appended as it goes; ``stream`` false: every dict made before the dump (for
    the stage breakdown), else 512 at a time as ``iter_json`` does. ``templates``: the
    operations of the plan path written as text (``_template``), not dicts dumped.
    ``check``: the text of ``vcon-view check FILE`` instead (no dicts, no dump); ``csv``: the
    bytes of ``summary --format csv`` instead (``_csv_pieces``); ``md_floor``: a lower bound
    of ``summary --format md`` (``_md_floor_pieces``: not the report's bytes). ``lazy``
    (with ``csv``, which prints no finding): the plan path's operations get no finding dicts
    (their flags are their plan's; the attempt rules are not called per operation)."""
    if lazy and not csv:
        raise ValueError("lazy: only for the CSV, which prints no finding")
    import msgspec

    from viewer.model import build, findings, spec
    from viewer.model.columns import COLUMNS, TAGS, Events
    from viewer.model.policy import NONE, OnceIndex, StandingIndex, decision_value
    from viewer.model.times import format_time, parse_times
    from viewer.model.types import Event
    from viewer.model.validate import Ctx, check_vcon
    from viewer.parties import party_record
    from viewer.pipeline import open_path
    from viewer.report import summary
    from viewer.textsafe import QUOTE_CHARS, is_safe, safe_short

    def mark(name: str) -> None:
        if marks is not None:
            marks.append((name, time.process_time()))

    # The registries this prototype writes out on columns: refuse if they grow.
    if [r.kind for r in findings.OPERATION_RULES] != ["decision-after-invocation"]:
        raise NotFast("the operation rules changed")
    if findings.MODEL_RULES:
        raise NotFast("a model rule is registered")

    mark("imports")

    # -- decode -----------------------------------------------------------------------------
    loaded = open_path(path)
    vcon = loaded.vcon
    evs = vcon.get("events")
    if getattr(loaded, "derived_from", ()) or type(evs) is not Events or not evs.structs:
        raise NotFast("no events read into columns")
    mark("load")
    structs = evs.structs
    if None in structs or evs._loose:
        raise NotFast("an event fails its column")
    ctx = Ctx.of(vcon)
    if 1 in build._flagged(evs, ctx):
        raise NotFast("an event is flagged for check_event")
    mark("event checks")
    texts = evs.column("time")
    times = parse_times(texts)
    if times is None or not all(map(le, times, islice(times, 1, None))):
        raise NotFast("times not all parsed in bulk, or not in order")
    diags = list(loaded.diagnostics)
    check_vcon(vcon, True, diags)
    mark("times")

    # -- grouping ---------------------------------------------------------------------------
    classes = list(map(type, structs))
    # as the Structs hold them: UNSET (or None, for an optional member recorded null) when
    # absent, read as none below (an id is a non-empty string, an attempt at least 1)
    oids = list(map(attrgetter("operation_id"), structs))
    atts = list(map(attrgetter("attempt"), structs))
    pairs = list(zip(atts, classes, strict=True))  # each event's part of its operation's shape key
    mark("columns")
    policy = COLUMNS[spec.POLICY_DECISION]
    decisions: list[int] = []  # (C searches: a few hundred hits in 221k events)
    at = -1
    try:
        while True:
            at = classes.index(policy, at + 1)
            decisions.append(at)
    except ValueError:
        pass
    no_attempt: list[int] = []
    for none in (None, msgspec.UNSET):
        at = -1
        try:
            while True:
                at = atts.index(none, at + 1)
                no_attempt.append(at)
        except ValueError:
            pass
    # Measured and not kept (gen-88000, where each operation's events are together): by runs
    # of one id, with itertools.groupby (79-83 against 54-62 ms) or found in C with
    # map(ne)/compress and one step per run (78-80 ms); each key a slice of one byte per event
    # (17 ms to make the bytes, about as much saved)
    ops: dict[Any, list[int]] = {}
    get = ops.get
    for i, oid in enumerate(oids):
        rows = get(oid)
        if rows is None:
            rows = ops[oid] = []
        rows.append(i)
    ops.pop(None, None)
    ops.pop(msgspec.UNSET, None)
    lives = spec.POLICY_LIVES
    standing_events = []
    irregular: set[Any] = set()  # operations with a once decision or an event without attempt
    for i in decisions:
        st = structs[i]
        life = st.policy_life
        oid = oids[i] or None
        if life not in lives:
            life = "once" if oid is not None else "standing"
        if life == "standing":
            if oid is not None:
                raise NotFast("a standing decision names an operation")
            standing_events.append(Event(i, spec.POLICY_DECISION, "decision", times[i], i,
                                         None, atts[i] or None, st.party, (), evs))
        else:
            irregular.add(oid)
    irregular.update(oids[i] or None for i in no_attempt)
    irregular.discard(None)
    standing = StandingIndex(standing_events)
    settled: dict[Any, tuple[Any, Any]] = {}  # (server, tool) -> as StandingIndex._settle
    settled_any: dict[Any, tuple[Any, Any]] = {}  # (kind, server, tool) -> the same
    mark("grouping")

    # -- per shape --------------------------------------------------------------------------
    shapes = build._Shapes()
    extra: dict[Any, tuple[Any, ...]] = {}
    outcome_of, unknown = build._OUTCOME, build._UNKNOWN
    per_shape = [0.0]

    def shape(key: tuple[Any, ...], tool: list[int]) -> tuple[Any, ...]:
        """What the operations of one shape share, from the viewer's own ``_Shapes``."""
        c0 = time.process_time()
        shaped = shapes.add(tuple([(atts[i], TAGS[classes[i]]) for i in tool]), [
            Event(i, TAGS[classes[i]], "tool", times[i], i, oids[i], atts[i], structs[i].party,
                  (), evs) for i in tool])
        plans = []
        for p in shaped.plans:
            kinds = frozenset(f[0] for f in p.static)
            steps = tuple(s.event for s in p.steps)
            plans.append((p.number, p.first, p.end, p.invocation, p.static, kinds,
                          sorted(kinds), [s.after for s in p.steps], p.state, steps,
                          steps == tuple(range(len(tool))), p.late, p.out_of_model,
                          "escalation" in kinds))
        got = extra[key] = (
            shaped, tuple(plans),
            sum(1 for p in plans if p[0] > 1),  # retries
            sum(len(p[11]) for p in plans),  # late responses
            any(p[13] for p in plans),  # escalated
            outcome_of.get(plans[-1][8], unknown) if plans else None,
            _fast(shaped, plans),
            shaped.invocations[0] if shaped.invocations else None,
            {},  # id of the governing decision -> (it, its plan)
        )
        per_shape[0] += time.process_time() - c0
        return got

    # -- per operation: the rules that read data ----------------------------------------------
    severity = spec.FINDING_SEVERITY
    attempt_rules = findings.attempt_rules
    governed: dict[Any, tuple[Any, ...]] = {}
    sorted_kinds: dict[frozenset[str], list[str]] = {}
    found_all: list[dict[str, Any]] = []
    model_ops: list[tuple[Any, ...]] = []
    append_op = model_ops.append
    after_kind = findings.OPERATION_RULES[0].kind

    def target_of(i: int) -> tuple[str | None, str | None]:
        st = structs[i]
        server, tool = st.server, st.tool
        return (server if type(server) is str else None, tool if type(tool) is str else None)

    def raw(v: Any) -> Any:
        return None if v is msgspec.UNSET else v

    def sorted_of(kinds: frozenset[str]) -> list[str]:
        got = sorted_kinds.get(kinds)
        if got is None:
            got = sorted_kinds[kinds] = sorted(kinds)
        return got

    outside = len(structs)  # an index no event has: the ``at`` the rules are probed with

    def make_plan(shp: tuple[Any, ...], gov: Any) -> tuple[Any, ...]:
        """What every operation of shape ``shp`` governed by ``gov`` (a standing answer, the
        same for each attempt) has in common: its findings in the builder's order (each
        static one's event positions; each attempt rule, called per operation), flags, the
        summary's dicts with the values that do not change. Valid for an operation whose
        first event comes after every event ``gov`` names (``gov_max``): then the order of
        the findings is the one found here."""
        rules = governed.get(gov)
        if rules is None:
            rules = governed[gov] = attempt_rules(gov)
        specs = []  # ((attempt, class, position or index), finding spec), in append order
        gov_max = -1
        attempts = []
        for (number, first_pos, end_pos, inv_pos, static, kinds, _ks, states, final, steps,
             whole, late_p, oom_p, esc) in shp[1]:
            at_pos = inv_pos if inv_pos is not None else first_pos
            flags = set(kinds)
            for rule in rules:
                flags.add(rule.kind)
                at_, _ = rule.check(number, gov, outside)
                named = [i for i in at_ if i != outside]
                gov_max = max(gov_max, *named) if named else gov_max
                k = ((number, 1, min(named)) if named else
                     (number, 2, at_pos) if at_ else (number, 0, -1))
                specs.append((k, (False, rule, number, at_pos)))
            for kind_, sev, at_p, first_at, msg in static:
                k = (number, 0, -1) if first_at is None else (number, 2, first_at)
                specs.append((k, (True, kind_, sev, number, at_p, msg)))
            attempts.append(({
                "attempt": number, "start": None, "end": None, "states": states,
                "final_state": final, "events": None, "late": [], "out_of_model": [],
                "decision": gov.decision, "decision_life": gov.life,
                "decision_event": gov.event, "escalated": esc,
                "flags": sorted_of(frozenset(flags)),
            }, first_pos, end_pos, whole, steps, late_p, oom_p))
        specs.sort(key=lambda x: x[0])  # stable: ties keep the order of appending
        found = tuple(f for _, f in specs)
        op = {
            "operation_id": None, "operation": "tool-invocation", "server": None,
            "tool": None, "decision": gov.decision, "decision_life": gov.life,
            "decision_event": gov.event, "outcome": shp[5], "attempts": None,
            "retries": shp[2], "escalated": shp[4], "late_responses": shp[3],
            "unassigned_events": [], "once_decisions": [], "first_time": None,
            "flags": sorted_of(frozenset(f[1] if f[0] else f[1].kind for f in found)),
            "party": None,
        }
        got = (gov_max, found, tuple(attempts), op, shp[1][0][1])
        shp[8][id(gov)] = (gov, got)
        return got

    settle = standing._settle
    # safe_short(oid) is oid itself for every operation when none holds a character ``safe``
    # escapes (a property of each character: one search of them all) and none is too long
    ids_plain = is_safe("".join(ops)) and max(map(len, ops), default=0) <= QUOTE_CHARS
    extend_found = found_all.extend
    for oid, rows in ops.items():
        if oid in irregular:
            tool = [i for i in rows if classes[i] is not policy and atts[i]]
            once = [i for i in rows if classes[i] is policy]
            unassigned = [i for i in rows if not atts[i]]
            key = tuple(map(pairs.__getitem__, tool))
            shp = extra.get(key)
            if shp is None:
                shp = shape(key, tool)
        else:
            tool, once, unassigned = rows, (), ()
            key = tuple(map(pairs.__getitem__, tool))
            shp = extra.get(key)
            if shp is None:
                shp = shape(key, tool)
            inv0 = shp[7]
            fast = shp[6]
            if fast is not None and inv0 is not None:  # a plan per (shape, decision)
                st = structs[rows[inv0]]
                server, tool_name = st.server, st.tool
                ok = type(server) is str and type(tool_name) is str
                later_invs, inv_pairs, one_attempt = fast
                for p in later_invs:  # operation-target-mismatch: none when all agree
                    st = structs[rows[p]]
                    if st.server != server or st.tool != tool_name:
                        ok = False
                for a, b in inv_pairs:  # attempt-order: none while invocations rise in time
                    if times[rows[a]] > times[rows[b]]:
                        ok = False
                if ok:
                    got = settled.get((server, tool_name))
                    if got is None:
                        got = settled[(server, tool_name)] = settle(
                            "tool-invocation", server, tool_name)
                    since, gov = got
                    first = rows[0]
                    if since is None or since > times[first]:
                        if one_attempt:  # before the target's last decision: the search
                            p = shp[1][0]
                            when = rows[p[3] if p[3] is not None else p[1]]
                            gov = standing.governing("tool-invocation", server, tool_name, Event(
                                when, TAGS[classes[when]], "tool", times[when], when, oid,
                                atts[when], structs[when].party, (), evs))
                        else:
                            gov = None  # (each attempt may have its own: the general path)
                    if gov is not None:
                        plan = shp[8].get(id(gov))
                        plan = make_plan(shp, gov) if plan is None else plan[1]
                        if plan[0] < first:
                            found = plan[1]
                            if found and not lazy:
                                sid = oid if ids_plain else safe_short(oid)
                                extend_found([
                                    {"kind": f[1], "severity": f[2], "operation_id": oid,
                                     "attempt": f[3], "events": [rows[p] for p in f[4]],
                                     "message": sid + f[5]} if f[0] else
                                    _ruled(f[1], f[2], gov, rows[f[3]], oid, sid, severity)
                                    for f in found])
                            append_op((oid, rows, plan, server, tool_name))
                            continue
        shaped, plans = shp[0], shp[1]
        sid = ""
        invocations = shaped.invocations
        first_inv = tool[invocations[0]] if invocations else None
        src = first_inv
        for i in unassigned:
            if TAGS[classes[i]] == "tool-invocation" and (src is None or i < src):
                src = i
                break
        if src is None and once:
            src = once[0]
        server = tool_name = None
        if src is not None:
            server, tool_name = target_of(src)
        kind = "tool-invocation"
        if once and type(structs[once[0]].operation) is str:
            kind = structs[once[0]].operation

        if shaped.several_invocations:
            sid = safe_short(oid)
            seen_first = False
            for p in invocations:
                i = tool[p]
                if atts[i] == 1:
                    if seen_first:
                        diags.append(build.Diagnostic(
                            "operation-id-not-unique", "error", f"/events/{i}/operation_id",
                            f"operation_id {sid} has a second attempt-1 tool-invocation: "
                            "operation_id MUST be unique among the operations in the vCon"))
                    seen_first = True
                a_server, a_tool = raw(structs[i].server), raw(structs[i].tool)
                other_server = (a_server if type(a_server) is str else None) != server
                if i != first_inv and (other_server or (a_tool if type(a_tool) is str
                                                        else None) != tool_name):
                    member = "server" if other_server else "tool"
                    diags.append(build.Diagnostic(
                        "operation-target-mismatch", "error", f"/events/{i}/{member}",
                        f"operation {sid}: this tool-invocation names "
                        f"{safe_short(a_server)} / {safe_short(a_tool)}, "
                        f"the first names {safe_short(server)} / {safe_short(tool_name)}"))
        if shaped.gap:
            sid = sid or safe_short(oid)
            missing: list[int] = []
            prev = 0
            for p in plans:
                missing.extend(range(prev + 1, min(p[0], prev + 12 - len(missing))))
                prev = p[0]
            after_gap = next(p for p in plans if p[0] > missing[0])
            shown = ", ".join(map(str, missing[:10])) + (", …" if len(missing) > 10 else "")
            diags.append(build.Diagnostic(
                "attempt-gap", "warning", f"/events/{tool[after_gap[1]]}/attempt",
                f"operation {sid}: attempt {shown} missing; attempts start "
                "at 1 and rise by one"))
        if shaped.several_attempts:
            prev_inv = -1
            for p in plans:
                if p[3] is None:
                    continue
                i = tool[p[3]]
                if prev_inv >= 0 and times[prev_inv] > times[i]:
                    sid = sid or safe_short(oid)
                    diags.append(build.Diagnostic(
                        "attempt-order", "warning", f"/events/{i}/time",
                        f"operation {sid}: attempt {p[0]} was invoked before attempt "
                        f"{atts[prev_inv]}"))
                prev_inv = i

        found: list[dict[str, Any]] = []
        keys: list[tuple[int, int]] = []
        flagged: dict[int, set[str]] = {}
        once_index = None
        if once:
            pairs_once = [(atts[i], i) for i in once if atts[i]]
            if pairs_once:
                by_number = {a.number: a for a in shaped.shape.attempts}
                for m, dec in pairs_once:  # findings.decision_after_invocation, on columns
                    a = by_number.get(m)
                    if a is not None and a.invocation is not None:
                        inv = tool[a.invocation]
                        if times[dec] > times[inv]:
                            sid = sid or safe_short(oid)
                            flagged.setdefault(m, set()).add(after_kind)
                            found.append({"kind": after_kind, "severity": severity[after_kind],
                                          "operation_id": oid, "attempt": m,
                                          "events": [dec, inv],
                                          "message": sid + f" attempt {m}: the once decision "
                                          "was recorded after the tool-invocation"})
                            keys.append((m or 0, min(dec, inv)))
                once_index = OnceIndex([(m, _Dec(i, raw(structs[i].decision)))
                                        for m, i in pairs_once])

        govs = []
        aflags = []
        first_gov = NONE
        for (number, first_pos, _end, inv_pos, static, kinds, kinds_sorted, _states, _final,
             _steps, _whole, _late, _oom, _esc) in plans:
            gov = NONE if once_index is None else once_index.governing(number)
            if gov is NONE and standing.by_target:
                when = tool[inv_pos if inv_pos is not None else first_pos]
                tkey = (kind, server, tool_name)
                got = settled_any.get(tkey)
                if got is None:
                    got = settled_any[tkey] = standing._settle(kind, server, tool_name)
                since = got[0]
                if since is not None and since <= times[when]:
                    gov = got[1]
                else:  # before the target's last decision: the index's own search
                    gov = standing.governing(kind, server, tool_name, Event(
                        when, TAGS[classes[when]], "tool", times[when], when, oid, atts[when],
                        structs[when].party, (), evs))
            if not govs:
                first_gov = gov
            govs.append(gov)
            rules = governed.get(gov)
            if rules is None:
                rules = governed[gov] = attempt_rules(gov)
            flags = flagged.get(number)
            if rules:
                sid = sid or safe_short(oid)
                flags = set() if flags is None else flags
                for rule in rules:
                    flags.add(rule.kind)
                    at_, msg = rule.check(number, gov,
                                          tool[inv_pos if inv_pos is not None else first_pos])
                    found.append({"kind": rule.kind, "severity": severity[rule.kind],
                                  "operation_id": oid, "attempt": number,
                                  "events": list(at_), "message": sid + msg})
                    keys.append((number, min(at_, default=-1)))
            if static:
                sid = sid or safe_short(oid)
                for kind_, sev, at_p, first_at, msg in static:
                    found.append({"kind": kind_, "severity": sev, "operation_id": oid,
                                  "attempt": number, "events": [tool[p] for p in at_p],
                                  "message": sid + msg})
                    keys.append((number, -1 if first_at is None else tool[first_at]))
            if flags:
                flags |= kinds
                fz = frozenset(flags)
                got_sorted = sorted_kinds.get(fz)
                if got_sorted is None:
                    got_sorted = sorted_kinds[fz] = sorted(fz)
                aflags.append(got_sorted)
            else:
                aflags.append(kinds_sorted)
        op_flags: list[str] = []
        if found:
            if len(found) > 1:
                found = [f for _, f in sorted(zip(keys, found, strict=True),
                                              key=lambda x: x[0])]
            fz = frozenset([f["kind"] for f in found])
            op_flags = sorted_kinds.get(fz)
            if op_flags is None:
                op_flags = sorted_kinds[fz] = sorted(fz)
            found_all.extend(found)
        if plans:
            decision, life, dec_event = first_gov.decision, first_gov.life, first_gov.event
            outcome = shp[5]
        else:
            last = once[-1] if once else None
            decision = decision_value(_Dec(last, raw(structs[last].decision))) if once else None
            life = "once" if once else None
            dec_event = last
            outcome = (spec.DISALLOWED_OUTCOME if decision == "disallowed"
                       else spec.NOT_PERFORMED_OUTCOME)
        party = (structs[tool[plans[0][1]]].party if plans else
                 structs[once[0]].party if once else None)
        append_op((oid, tool, shp, kind, server, tool_name, decision, life, dec_event, outcome,
                   govs, aflags, op_flags, once, unassigned, rows[0], party))
    mark("per-op rules")
    if marks is not None:  # the shapes' part of that loop, as its own stage
        marks.insert(-1, ("per shape", per_shape[0]))

    shim = SimpleNamespace(source=loaded.source, parties=vcon.get("parties")
                           if isinstance(vcon.get("parties"), list) else [])
    if build._may_be_suspicious(vcon, ops, [SimpleNamespace(source=evs)]):
        raise NotFast("some identifier may be suspicious")
    if check:  # `vcon-view check FILE`'s text from these findings, by the real check_text
        from viewer.model.types import Finding, Model
        from viewer.report.check import CheckOutcome, check_text

        _KEEP.append((loaded, structs, texts, times, classes, oids, atts, pairs, ops,
                      model_ops, found_all, shapes, extra, standing))
        model = SimpleNamespace(source=loaded.source, diagnostics=tuple(diags), findings=tuple(
            [Finding(f["kind"], f["severity"], f["operation_id"], f["attempt"],
                     tuple(f["events"]), f["message"]) for f in found_all]))
        model.counts = lambda: Model.counts(model)
        status = 1 if any(d.severity == "error" for d in diags) else 0  # no --fail-on
        text = check_text(model, CheckOutcome(status))
        mark("check text")
        return [text.encode("utf-8", "replace")]
    if csv:  # `summary --format csv`'s bytes from the same records
        _KEEP.append((loaded, structs, texts, times, classes, oids, atts, pairs, ops,
                      model_ops, found_all, shapes, extra, standing))
        return _csv_pieces(vcon, model_ops, texts, times, structs, shim, mark)
    if md_floor:  # what `summary --format md` cannot do without, from the same records
        _KEEP.append((loaded, structs, texts, times, classes, oids, atts, pairs, ops,
                      model_ops, found_all, shapes, extra, standing))
        return _md_floor_pieces(model_ops, found_all, texts, structs, classes, mark)

    # -- dicts --------------------------------------------------------------------------------
    # The times not written as recorded (``summary._CANONICAL``), found in one pass of the
    # pattern over the column joined (no value holds a newline: ``parse_times`` took them all)
    bad = _not_canonical(texts, summary._CANONICAL)

    def text(i: int) -> str | None:
        return texts[i] if i not in bad else format_time(times[i])

    records: dict[Any, Any] = {}

    def op_dicts(recs: list[tuple[Any, ...]] = model_ops) -> Any:
        for rec in recs:
            if len(rec) == 5:  # the fast path's: the plan's dicts, copied and filled
                oid, rows, plan, server, tool_name = rec
                attempts = []
                for tmpl, first_pos, end_pos, whole, steps, late_p, oom_p in plan[2]:
                    a = tmpl.copy()
                    i = rows[first_pos]
                    a["start"] = texts[i] if i not in bad else format_time(times[i])
                    if end_pos is not None:
                        i = rows[end_pos]
                        a["end"] = texts[i] if i not in bad else format_time(times[i])
                    a["events"] = rows if whole else [rows[p] for p in steps]
                    if late_p:
                        a["late"] = [rows[p] for p in late_p]
                    if oom_p:
                        a["out_of_model"] = [rows[p] for p in oom_p]
                    attempts.append(a)
                o = plan[3].copy()
                o["operation_id"] = oid
                o["server"] = server
                o["tool"] = tool_name
                o["attempts"] = attempts
                i = rows[0]
                o["first_time"] = texts[i] if i not in bad else format_time(times[i])
                party = structs[rows[plan[4]]].party
                record = records.get(party, False)
                if record is False:
                    record = records[party] = party_record(shim, party)
                o["party"] = record
                yield o
                continue
            (oid, tool, shp, kind, server, tool_name, decision, life, dec_event, outcome,
             govs, aflags, op_flags, once, unassigned, first, party) = rec
            attempts = []
            for (number, first_pos, end_pos, _inv, _static, _kinds, _ks, states, final,
                 steps, whole, late_p, oom_p, esc), gov, flags in zip(shp[1], govs, aflags,
                                                                   strict=True):
                attempts.append({
                    "attempt": number,
                    "start": text(tool[first_pos]),
                    "end": None if end_pos is None else text(tool[end_pos]),
                    "states": states,
                    "final_state": final,
                    "events": tool if whole else [tool[p] for p in steps],
                    "late": [tool[p] for p in late_p] if late_p else [],
                    "out_of_model": [tool[p] for p in oom_p] if oom_p else [],
                    "decision": gov.decision,
                    "decision_life": gov.life,
                    "decision_event": gov.event,
                    "escalated": esc,
                    "flags": flags,
                })
            record = records.get(party, False)
            if record is False:
                record = records[party] = party_record(shim, party)
            yield {
                "operation_id": oid,
                "operation": kind,
                "server": server,
                "tool": tool_name,
                "decision": decision,
                "decision_life": life,
                "decision_event": dec_event,
                "outcome": outcome,
                "attempts": attempts,
                "retries": shp[2],
                "escalated": shp[4],
                "late_responses": shp[3],
                "unassigned_events": list(unassigned),
                "once_decisions": list(once),
                "first_time": text(first),
                "flags": op_flags,
                "party": record,
            }

    out: dict[str, Any] = {"format": summary.FORMAT}
    if loaded.source.critical_override:
        out["produced_under_override"] = True
        out["note"] = summary.OVERRIDE_NOTE
    out["source"] = summary._source(shim)
    out["operations"] = []
    out["standing_decisions"] = [
        {"event": d.event, "time": format_time(d.time), "operation": d.operation,
         "server": d.server, "tool": d.tool, "decision": d.decision, "reason": d.reason,
         "replaced_by": d.replaced_by}
        for d in standing.records()]
    out["findings"] = []
    out["diagnostics"] = [{"code": d.code, "severity": d.severity, "pointer": d.pointer,
                           "message": d.message} for d in diags]
    by_severity = {"error": 0, "warning": 0, "info": 0}
    for f in found_all:
        by_severity[f["severity"]] += 1
    for d in diags:
        by_severity[d.severity] += 1
    out["counts"] = {"findings": len(found_all), "diagnostics": len(diags),
                     "by_severity": by_severity}
    _KEEP.append((loaded, structs, texts, times, classes, bad, oids, atts, pairs, ops,
                  model_ops, found_all, shapes, extra, standing))
    if not model_ops:
        out["findings"] = found_all
        return [summary.dumps(out)]
    head = summary.dumps(out)
    if templates:
        pieces = _with_templates(head, model_ops, op_dicts, found_all, texts, times, bad,
                                 structs, records, shim, marks)
        if pieces is not None:
            return pieces
    if stream:
        lists = {"operations": summary._in_batches(op_dicts())}
        if found_all:
            lists["findings"] = summary._in_batches(iter(found_all))
        return list(summary._spliced(head, lists))
    every = list(op_dicts())
    mark("dicts")
    lists = {"operations": summary._batches(every)}
    if found_all:
        lists["findings"] = summary._batches(found_all)
    pieces = list(summary._spliced(head, lists))
    mark("dump")
    del lists
    every.clear()  # the CLI frees its dicts batch by batch, as it dumps them: paid here
    mark("free dicts")
    return pieces


def _csv_pieces(vcon: dict[str, Any], model_ops: list[tuple[Any, ...]], texts: list[str],
                times: list[Any], structs: list[Any], shim: Any, mark: Any) -> list[bytes]:
    """The bytes of ``summary --format csv`` from the per-operation records: one row per
    attempt (one for an operation without any), in ``viewer/report/csv.py``'s columns. Every
    cell is escaped and quoted by the viewer's own ``csv._written`` (``cell``, then the csv
    module's quoting), which is value by value (a cell does not depend on its column): the
    cells that change from row to row (ids, times, event lists) a column at a time, those a
    plan, a target or a party has in common once per distinct value. The operations of the
    plan path are written a plan at a time, each column made in C (``map`` over the
    operations' event lists); the others row by row. Rows joined, pieces cut by
    ``csv._pieces``."""
    from viewer.content import _find_provenance
    from viewer.parties import party_name
    from viewer.report import csv as C
    from viewer.report.summary import _CANONICAL, rfc3339
    from viewer.signatures import overall

    prov = _find_provenance(SimpleNamespace(attachments=vcon.get("attachments") or []))
    if prov is not None and prov[1].get("times") == "order-only":  # (content.order_only)
        raise NotFast("an import's times may be steps")
    written = C._written

    def one(value: Any) -> str:
        return written([value])[0]

    shared: dict[tuple[Any, ...], str] = {}  # values (and their types) -> their cells

    def joined(*values: Any) -> str:
        """The cells of ``values`` (a plan's, a target's, an attempt's), made once each."""
        key = (values, tuple(map(type, values)))  # (True and 1 are equal, written otherwise)
        got = shared.get(key)
        if got is None:
            got = shared[key] = ",".join([one(v) for v in values])
        return got

    def states_text(states: list[str | None]) -> str:  # csv._columns' "states" column
        return " > ".join([s or "" for s in states])

    def time_texts(idx: list[int]) -> list[str]:
        """The times of events ``idx`` as the reports write them: as recorded where
        ``summary._CANONICAL`` matches (one pass over them joined), else ``rfc3339``. (Only
        the attempts' starts and ends: not every event's.)"""
        got = list(map(texts.__getitem__, idx))
        for p in _not_canonical(got, _CANONICAL) if got else ():
            got[p] = rfc3339(times[idx[p]])
        return got

    def time_cells(idx: list[int]) -> list[str]:
        """The times of events ``idx``, escaped."""
        return written(time_texts(idx))

    def ints_cells(lists: Any, positions: tuple[int, ...], whole: bool = False) -> Any:
        """Each operation's events at ``positions`` of its list, as "3 4 5", escaped."""
        if whole:
            return written(list(map(" ".join, map(map, repeat(str), lists))))
        if not positions:
            return repeat("")
        if len(positions) == 1:
            return written(list(map(str, map(itemgetter(positions[0]), lists))))
        return written(list(map(" ".join, map(map, repeat(str), map(itemgetter(*positions),
                                                                        lists)))))

    provenance = ",".join(C._quoted_column(C.cells([
        True if shim.source.critical_override else None,
        overall(shim.source) or "unsigned"])))
    tails: dict[Any, str] = {}  # party -> its cell and the provenance

    def tail(party: Any) -> str:
        got = tails.get(party)
        if got is None:
            got = tails[party] = one(party_name(shim, party)) + "," + provenance
        return got

    lines: list[Any] = [None] * len(model_ops)  # each operation's row(s)
    groups: dict[int, tuple[Any, list[int]]] = {}
    general: list[int] = []
    for k, rec in enumerate(model_ops):
        if len(rec) == 5:
            group = groups.get(id(rec[2]))
            if group is None:
                group = groups[id(rec[2])] = (rec[2], [])
            group[1].append(k)
        else:
            general.append(k)
    party_of = list(map(attrgetter("party"), structs))  # (one pass, in the Structs' order)
    mark("csv: grouping")

    for plan, ks in groups.values():  # the plan path: a plan's operations at a time
        # (each operation's record read once, in C. Measured and not kept: the grouping loop
        # appending ids, event lists and targets to the plan's columns, with no transposing
        # here: +30 ms of grouping for 5-30 ms less here, gen-88000)
        oids, lists, _, servers, tools = zip(*map(model_ops.__getitem__, ks), strict=True)
        op = plan[3]
        ids = written(oids)
        # the target's cells a column at a time (cheaper than a key per operation), then
        # what the plan's operations share
        heads = list(map(",".join, zip(
            repeat(joined("tool-invocation")), written(servers), written(tools),
            repeat(joined(op["decision"], op["decision_life"], op["decision_event"],
                          op["outcome"])))))
        parties = list(map(party_of.__getitem__, map(itemgetter(plan[4]), lists)))
        rests = list(map({p: tail(p) for p in dict.fromkeys(parties)}.__getitem__, parties))
        per_attempt = []
        for t, first_pos, end_pos, whole, steps, late_p, oom_p in plan[2]:
            per_attempt.append(list(map(",".join, zip(
                ids, heads, repeat(one(t["attempt"])),
                time_cells(list(map(itemgetter(first_pos), lists))),
                repeat("") if end_pos is None else
                time_cells(list(map(itemgetter(end_pos), lists))),
                repeat(joined(t["final_state"], states_text(t["states"]))),
                ints_cells(lists, steps, whole), ints_cells(lists, late_p),
                ints_cells(lists, oom_p),
                repeat(joined(t["decision"], t["decision_life"], t["decision_event"],
                              t["escalated"], " ".join(t["flags"]))),
                rests))))
        op_lines = per_attempt[0] if len(per_attempt) == 1 else \
            list(map("\r\n".join, zip(*per_attempt, strict=True)))
        any(map(lines.__setitem__, ks, op_lines))  # (None each: all set, in C)
    mark("csv: plan path")

    # the general path: row by row, raw values, each column escaped at the end (as
    # ``csv._columns`` does)
    cols: list[list[Any]] = [[] for _ in range(22)]
    row_op: list[int] = []
    add = [c.append for c in cols]
    for k in general:
        (oid, tool, shp, kind, server, tool_name, decision, life, dec_event, outcome,
         govs, aflags, op_flags, _once, _unassigned, _first, party) = model_ops[k]
        head = (oid, kind, server, tool_name, decision, life, dec_event, outcome)
        plans = shp[1]
        if not plans:  # one row, its attempt's cells empty, the operation's flags
            for put, v in zip(add, (*head, None, None, None, None, "", "", "", "", None, None,
                                    None, None, " ".join(op_flags), party),
                              strict=True):
                put(v)
            row_op.append(k)
            continue
        for (number, first_pos, end_pos, _inv, _static, _kinds, _ks, states, final, steps,
             whole, late_p, oom_p, esc), gov, flags in zip(plans, govs, aflags, strict=True):
            for put, v in zip(add, (
                    *head, number, tool[first_pos],
                    None if end_pos is None else tool[end_pos], final,
                    states_text(states),
                    " ".join(map(str, tool)) if whole else
                    " ".join([str(tool[p]) for p in steps]),
                    " ".join([str(tool[p]) for p in late_p]) if late_p else "",
                    " ".join([str(tool[p]) for p in oom_p]) if oom_p else "",
                    gov.decision, gov.life, gov.event, esc, " ".join(flags), party),
                    strict=True):
                put(v)
            row_op.append(k)
    if row_op:  # (times held as event indices so far, parties as parties)
        for at in (9, 10):
            idx = cols[at]
            got = iter(time_texts([i for i in idx if i is not None]))
            cols[at] = [None if i is None else next(got) for i in idx]
        names = {p: party_name(shim, p) for p in dict.fromkeys(cols[21])}
        cols[21] = list(map(names.__getitem__, cols[21]))
        cells = [written(c) for c in cols]
        for k, line in zip(row_op, map(",".join, zip(*cells, repeat(provenance))),
                           strict=True):
            lines[k] = line if lines[k] is None else lines[k] + "\r\n" + line
    mark("csv: general path")
    pieces = list(C._pieces(C._header(), lines))
    mark("csv: pieces")
    _KEEP.append((lines, groups, cols))
    return pieces


def _md_floor_pieces(model_ops: list[tuple[Any, ...]], found_all: list[dict[str, Any]],
                     texts: list[str], structs: list[Any], classes: list[Any],
                     mark: Any) -> list[bytes]:
    """A lower bound of ``summary --format md`` on the column engine, as a whole process:
    not the report, but the parts of it no engine can skip, each by the viewer's own
    functions, joined and encoded as ``line_pieces`` does:
    - each quote of the operations with a finding (each attempt's first invocation and last
      result, failure, error or denial, as ``operation_evidence`` picks them), its content
      read from the event's Struct (decoded by the load), ``decode_text``, ``Quote`` (no
      notes: the bench files' quoted events have none), ``markdown._quote_lines``;
    - the operations and attempts tables: ids, outcomes, starts and ends (``md_column``),
      each attempt's events, laid out by ``_column_table``; the targets, decisions, attempts,
      states and flags a column of one shared string each (not made: a lower bound);
    - the findings' lines (``_finding_lines``, ``_grouped``) from ``Finding`` Structs.
    Left out (so the report costs more): the provenance block, the turns, gaps, notes and
    the evidence sections around the quotes."""
    import msgspec

    from viewer.content import decode_text
    from viewer.model.columns import TAGS
    from viewer.model.types import Finding
    from viewer.report.evidence import FINAL_TYPES, Quote, each_once
    from viewer.report.formats import line_pieces
    from viewer.report.markdown import (
        _column_table,
        _finding_lines,
        _grouped,
        _quote_lines,
        md,
        md_column,
    )

    unset = msgspec.UNSET
    m = each_once(md)
    limit = 2000  # formats.EVIDENCE_CHARS, the CLI's default --max-chars
    with_finding = {f["operation_id"] for f in found_all}
    anchors: dict[str, int] = {}
    quoted: list[tuple[int, bool]] = []  # (event, late) of each quote, in report order
    ids: list[str] = []
    outcomes: list[Any] = []
    att_ids: list[str] = []
    starts: list[int] = []
    ends: list[int | None] = []
    events: list[str] = []
    def picked(rows: list[int], att: list[tuple[Any, ...]]) -> list[tuple[int, bool]]:
        """(position, late) of each quote of an operation: per attempt its first invocation
        and its last final event (as ``operation_evidence`` picks them)."""
        out = []
        for steps, _first, _end, late, _whole in att:
            kinds = [TAGS[classes[rows[p]]] for p in steps]
            inv = next((p for p, k in zip(steps, kinds, strict=True)
                        if k == "tool-invocation"), None)
            fin = next((p for p, k in zip(reversed(steps), reversed(kinds), strict=True)
                        if k in FINAL_TYPES), None)
            if inv is not None:
                out.append((inv, False))
            if fin is not None:
                out.append((fin, fin in late))
        return out

    per_plan: dict[int, tuple[Any, ...]] = {}  # what a plan's operations share
    for pos, rec in enumerate(model_ops, 1):
        oid, rows = rec[0], rec[1]
        if len(rec) == 5:
            plan = rec[2]
            got = per_plan.get(id(plan))
            if got is None:
                got = per_plan[id(plan)] = (
                    plan[3]["outcome"],
                    [(steps, first, end, late, whole)
                     for _t, first, end, whole, steps, late, _o in plan[2]], None)
            outcome, att, picks = got
        else:
            outcome, picks = rec[9], None
            att = [(p[9], p[1], p[2], p[11], p[10]) for p in rec[2][1]]
        ids.append(oid)
        outcomes.append(outcome)
        for steps, first, end, _late, whole in att:
            att_ids.append(oid)
            starts.append(rows[first])
            ends.append(None if end is None else rows[end])
            events.append(", ".join(map(str, rows)) if whole else
                          ", ".join([str(rows[p]) for p in steps]))
        if oid in with_finding:
            anchors[oid] = pos
            if picks is None:
                picks = picked(rows, att)  # (positions: the same for a plan's operations)
                if len(rec) == 5:
                    per_plan[id(rec[2])] = (outcome, att, picks)
            quoted += [(rows[p], late) for p, late in picks]
    mark("md floor: columns, quoted events")
    contents = []
    for i, _late in quoted:
        st = structs[i]
        contents.append({k: v for k in _CONTENT if (v := getattr(st, k, unset)) is not unset})
    quotes = [Quote(i, TAGS[classes[i]], d, late)
              for (i, late), d in zip(quoted, map(decode_text, contents), strict=True)]
    lines = _quote_lines(quotes, limit)
    mark("md floor: quotes")
    op_ids = md_column(ids, m)
    by_id = dict(zip(ids, op_ids, strict=True))
    n, k = len(ids), len(att_ids)
    shared = ["x"] * n
    lines += _column_table(["#", "Operation ID", "Target", "Decision", "Attempts", "Outcome",
                            "Flags"],
                           [[str(i) for i in range(1, n + 1)], op_ids, shared, shared,
                            shared, md_column(outcomes, m), shared])
    shared = ["x"] * k
    lines += _column_table(["Operation ID", "Attempt", "Start", "End", "States", "Events",
                            "Decision", "Late", "Out of model", "Flags"],
                           [list(map(by_id.__getitem__, att_ids)), shared,
                            md_column(list(map(texts.__getitem__, starts)), m),
                            md_column([None if i is None else texts[i] for i in ends], m),
                            shared, events, shared, [""] * k, [""] * k, shared])
    mark("md floor: tables")
    findings = [Finding(f["kind"], f["severity"], f["operation_id"], f["attempt"],
                        tuple(f["events"]), f["message"]) for f in found_all]
    lines += _grouped(findings, _finding_lines(m, findings, anchors))
    mark("md floor: findings")
    pieces = list(line_pieces(lines))
    mark("md floor: joined, encoded")
    _KEEP.append((quoted, contents, quotes, lines, findings, pieces))
    return pieces


#: The members of an event ``content.decode_text`` reads.
_CONTENT = ("mediatype", "url", "body", "encoding", "content_hash")


_HOLE = "\x00{}\x00"  # a string hole's value: orjson writes it "\u0000...\u0000"
_INT = 9_000_000_000_000_000  # an integer hole's value: the k-th is _INT + k (16 digits)


def _template(plan: tuple[Any, ...]) -> tuple[str, Any]:
    """The operation of ``plan`` as orjson writes it at its depth in the document, with
    ``%s`` for what each operation has of its own, in this order: its id (JSON-plain, quoted
    by the template), server and tool (JSON), then per attempt its start, its end (when it
    ended in a final state), its events, late and out-of-model events, then its first time,
    its party (JSON at its depth). Made from orjson's own output, so the layout is orjson's."""
    import orjson

    k = 0
    expected: list[str] = ["oid", "server", "tool"]

    def ints(n: int) -> list[int]:
        nonlocal k
        got = list(range(_INT + k, _INT + k + n))
        k += n
        expected.extend(["int"] * n)
        return got

    o = plan[3].copy()
    o["operation_id"] = _HOLE.format("oid")
    o["server"] = _HOLE.format("server")
    o["tool"] = _HOLE.format("tool")
    attempts = []
    for tmpl, _first, end_pos, _whole, steps, late_p, oom_p in plan[2]:
        a = tmpl.copy()
        a["start"] = _HOLE.format("time")
        expected.append("time")
        if end_pos is not None:
            a["end"] = _HOLE.format("time")
            expected.append("time")
        a["events"] = ints(len(steps))
        a["late"] = ints(len(late_p))
        a["out_of_model"] = ints(len(oom_p))
        attempts.append(a)
    o["attempts"] = attempts
    o["first_time"] = _HOLE.format("time")
    o["party"] = _HOLE.format("party")
    expected += ["time", "party"]
    wrap = '{\n  "operations": [\n'
    text = orjson.dumps({"operations": [o]}, option=orjson.OPT_INDENT_2).decode()
    if not (text.startswith(wrap) and text.endswith("\n  ]\n}")):
        raise NotFast("orjson's indented layout changed")
    text = text[len(wrap):-6].replace("%", "%%")
    found = []
    for name, quoted in (("oid", True), ("server", False), ("tool", False), ("time", True),
                         ("party", False)):
        token = '"\\u0000' + name + '\\u0000"'
        found += [(m.start(), name) for m in re.finditer(re.escape(token), text)]
        text = text.replace(token, '"%s"' if quoted else "%s")
    # (positions moved as tokens were replaced: order them on a text with only ints left)
    order = [name for _, name in sorted(found)]
    for j in range(k):
        found_at = text.index(str(_INT + j))
        order.append((found_at, "int"))
        text = text.replace(str(_INT + j), "%s", 1)
    return text, (order, expected)


def _with_templates(head: bytes, model_ops: list[tuple[Any, ...]], op_dicts: Any,
                    found_all: list[dict[str, Any]], texts: list[str], times: list[Any],
                    bad: set[int], structs: list[Any], records: dict[Any, Any], shim: Any,
                    marks: list[tuple[str, float]] | None) -> list[bytes] | None:
    """The document with its operations written as text: each operation of the plan path
    from its plan's template (``_template``), any other as its dict through orjson; None when
    some operation id is not JSON-plain (ASCII, no quote, backslash or control)."""
    import orjson

    from viewer.parties import party_record
    from viewer.report import summary
    from viewer.textsafe import is_safe

    ids = "".join(r[0] for r in model_ops)
    if not (ids.isascii() and is_safe(ids) and '"' not in ids and "\\" not in ids):
        return None
    made: dict[int, list[str]] = {}
    pair_json: dict[tuple[str, str], tuple[str, str]] = {}
    party_json: dict[Any, str] = {}
    wrap = len('{\n  "operations": [\n')
    option = orjson.OPT_INDENT_2
    items: list[str] = []
    add = items.append
    for rec in model_ops:
        if len(rec) != 5:  # the general path's: its dict, as _spliced writes it
            chunk = orjson.dumps({"operations": list(op_dicts([rec]))}, option=option)
            add(chunk[wrap:-6].decode())
            continue
        oid, rows, plan, server, tool_name = rec
        parts = made.get(id(plan))
        if parts is None:  # the constant text around the holes (a join is cheaper than %)
            parts = made[id(plan)] = [t.replace("%%", "%") for t in _template(plan)[0].split("%s")]
        sj = pair_json.get((server, tool_name))
        if sj is None:
            sj = pair_json[(server, tool_name)] = (orjson.dumps(server).decode(),
                                                   orjson.dumps(tool_name).decode())
        vals = [oid, sj[0], sj[1]]
        for _tmpl, first_pos, end_pos, whole, steps, late_p, oom_p in plan[2]:
            i = rows[first_pos]
            vals.append(texts[i] if i not in bad else summary.rfc3339(times[i]))
            if end_pos is not None:
                i = rows[end_pos]
                vals.append(texts[i] if i not in bad else summary.rfc3339(times[i]))
            vals += map(str, rows) if whole else [str(rows[p]) for p in steps]
            if late_p:
                vals += [str(rows[p]) for p in late_p]
            if oom_p:
                vals += [str(rows[p]) for p in oom_p]
        i = rows[0]
        vals.append(texts[i] if i not in bad else summary.rfc3339(times[i]))
        party = structs[rows[plan[4]]].party
        pj = party_json.get(party)
        if pj is None:
            record = records.get(party, False)
            if record is False:
                record = records[party] = party_record(shim, party)
            pj = party_json[party] = orjson.dumps(record, option=option).decode().replace(
                "\n", "\n      ")
        vals.append(pj)
        vals.append("")
        add("".join(chain.from_iterable(zip(parts, vals, strict=True))))
    if marks is not None:
        marks.append(("op texts", time.process_time()))
    marker = summary._opened("operations") + b"]"
    end = head.index(marker) + len(marker) - 1  # at the "]"
    pieces = [head[:end - 1] + b"[\n"]
    for at in range(0, len(items), summary.BATCH):
        if at:
            pieces.append(b",\n")
        pieces.append(summary._escaped(",\n".join(items[at:at + summary.BATCH]).encode()))
    pieces.append(b"\n  ")
    rest = head[end:]
    if found_all:
        pieces += summary._spliced(rest, {"findings": summary._batches(found_all)})
    else:
        pieces.append(rest)
    if marks is not None:
        marks.append(("dump", time.process_time()))
    _KEEP.append(items)
    return pieces


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("file")
    p.add_argument("-o", "--output", help="write the JSON here (default: stdout)")
    p.add_argument("--stages", action="store_true",
                   help="make every dict before the dump and print CPU per stage to stderr")
    p.add_argument("--check", action="store_true",
                   help="write what `vcon-view check FILE` writes instead (the 2x question)")
    p.add_argument("--csv", action="store_true",
                   help="write what `summary FILE --format csv` writes instead (the 3x question)")
    p.add_argument("--lazy", action="store_true",
                   help="with --csv: no finding made for the plan path's operations (the "
                        "CSV prints only their flags, which are their plan's); measured: "
                        "per-op rules 182-210 against 227-229 ms, whole process within noise")
    p.add_argument("--md-floor", action="store_true",
                   help="a lower bound of `summary FILE --format md` (not its bytes): the "
                        "quotes, the big tables' varying cells, the findings' lines")
    p.add_argument("--templates", action="store_true",
                   help="write the plan path's operations as text from a template per plan "
                        "(an experiment: what writing without dicts would save)")
    args = p.parse_args(argv)
    gc.disable()  # as the CLI runs
    t0 = time.process_time()
    marks: list[tuple[str, float]] = [("start", t0)]
    try:
        pieces = summary_pieces(args.file, marks, stream=not args.stages,
                                templates=args.templates, check=args.check,
                                csv=args.csv, md_floor=args.md_floor, lazy=args.lazy)
    except NotFast as exc:
        print(f"{args.file}: not the fast case ({exc})", file=sys.stderr)
        os._exit(3)
    if args.output and args.output != "-":
        with open(args.output, "wb") as f:
            f.writelines(pieces)
    else:
        sys.stdout.buffer.writelines(pieces)
        sys.stdout.flush()
    if args.stages:
        marks.append(("write", time.process_time()))
        prev = t0
        rows = []
        for name, at in marks[1:]:
            if name == "per shape":  # a part of the per-op loop, not a mark in time
                rows.append((name, at))
                continue
            rows.append((name, at - prev))
            prev = at
        shape_part = next((v for k, v in rows if k == "per shape"), 0.0)
        for name, v in rows:
            if name == "per-op rules":
                v -= shape_part
            print(f"{name:>14}: {v * 1e3:7.1f} ms", file=sys.stderr)
        print(f"{'total':>14}: {(prev - t0) * 1e3:7.1f} ms", file=sys.stderr)
    os._exit(0)  # as the CLI ends: the heap is not freed


if __name__ == "__main__":
    raise SystemExit(main())
