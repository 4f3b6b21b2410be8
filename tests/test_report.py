"""Exports: golden files, exact JSON values, and no untrusted text acting in any format.

Golden files live in tests/golden/report/; regenerate them with VCON_VIEW_UPDATE_GOLDEN=1 and
review the diff (they are the documented output, not a snapshot to wave through).
"""

from __future__ import annotations

import csv
import io
import os
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta, timezone
from datetime import date as date_type
from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console

from viewer.load import load_bytes
from viewer.model.build import build_model
from viewer.model.types import (
    Attempt,
    Diagnostic,
    Finding,
    Model,
    Operation,
    Signature,
    Source,
    StandingDecision,
    Step,
)
from viewer.report.csv import COLUMNS, cell, to_csv
from viewer.report.markdown import md, to_markdown
from viewer.report.summary import FORMAT, rfc3339, summary_dict, to_json
from viewer.report.text import render_text, to_text
from viewer.report.write import write_atomic
from viewer.textsafe import UNSAFE_TABLE

ROOT = Path(__file__).resolve().parent
FIXTURES = ROOT / "fixtures"
GOLDEN = ROOT / "golden" / "report"
UPDATE = os.environ.get("VCON_VIEW_UPDATE_GOLDEN") == "1"

HOSTILE = (
    "\x1b[2J\x1b]52;c;ZXZpbA==\x07\x9b31m\u202eevil\r\n[@click=app.quit]x[/]|=cmd`<b>"
    "&#x202e;\u200b\x00\x7f"
)
#: Every character textsafe escapes; none may reach an export raw.
UNSAFE_CHARS = frozenset(chr(c) for c in UNSAFE_TABLE)


def model_of(name: str, *, ignore_critical: bool = False) -> Model:
    """Fixture through the real loader and builder, under a stable file name."""
    data = (FIXTURES / name).read_bytes()
    return build_model(load_bytes(data, name=name, ignore_critical=ignore_critical))


def raw_unsafe(text: str, allowed: str = "\n") -> set[str]:
    return {c for c in text if c in UNSAFE_CHARS and c not in allowed}


def check_golden(name: str, actual: str) -> None:
    path = GOLDEN / name
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(actual.encode("utf-8"))
    assert path.exists(), f"missing golden {path}; run with VCON_VIEW_UPDATE_GOLDEN=1"
    assert actual == path.read_bytes().decode("utf-8")


# --- a hand-built model: hostile text in every string field -----------------------------------

T0 = datetime(2026, 3, 1, 9, 0, 0, tzinfo=UTC)


def hostile_model(*, override: bool = False) -> Model:
    h = HOSTILE
    step = Step(event=1, before=None, after="Running", out_of_model=False, late=False)
    done = Step(event=2, before="Running", after="Completed", out_of_model=False, late=True)
    attempt = Attempt(
        number=1, steps=(step, done), start=T0, end=T0 + timedelta(seconds=2),
        final_state="Completed", invocation=1, server="=" + h, tool="@" + h,
        decision="allowed", decision_life="standing", decision_event=0, late=(2,),
        out_of_model=(), escalated=False, flags=frozenset({"late-response"}),
    )
    op = Operation(
        operation_id="+" + h, operation="tool-invocation", server="=" + h, tool="@" + h,
        decision="allowed", decision_life="standing", decision_event=0, outcome="completed",
        attempts=(attempt,), once_decisions=(), unassigned_events=(7,), first_time=T0,
        first_order=1, retries=0, escalated=False, late_responses=1,
        flags=frozenset({"late-response"}),
    )
    bare = Operation(
        operation_id="-" + h, operation="tool-invocation", server=None, tool=None,
        decision=None, decision_life=None, decision_event=None, outcome="not-performed",
        attempts=(), once_decisions=(), unassigned_events=(), first_time=None, first_order=3,
        retries=0, escalated=False, late_responses=0, flags=frozenset(),
    )
    source = Source(
        file="in" + h, sha256="0" * 64, size=1, form="signed", gzip=True, uuid="u" + h,
        extensions=("tool-invocation", "x" + h), critical=("c" + h,),
        unsupported_critical=("c" + h,) if override else (), critical_override=override,
        signatures=(Signature(alg="RS256" + h, kid=h, x5c=2, x5u=h, uuid=h),),
        signed_layers=1,
    )
    return Model(
        source=source, vcon={}, events=(), replay=(), operations=(op, bare),
        standing=(StandingDecision(event=0, time=T0, operation="tool-invocation",
                                   server="=" + h, tool=None, decision="allowed",
                                   reason=h, replaced_by=None),),
        findings=(
            Finding(kind="late-response", severity="warning", operation_id="+" + h, attempt=1,
                    events=(2,), message="late " + h),
            Finding(kind="policy-violation", severity="error", operation_id=None, attempt=None,
                    events=(), message="global " + h),
        ),
        diagnostics=(Diagnostic(code="invalid-value", severity="error",
                                pointer="/events/3/" + h, message="bad " + h),),
        context=(), by_operation={"+" + h: 0, "-" + h: 1},
    )


# --- golden files ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def small() -> Model:
    return model_of("report_small.vcon.json")


def test_golden_json(small: Model) -> None:
    check_golden("small.summary.json", to_json(small).decode("utf-8"))


def test_golden_markdown(small: Model) -> None:
    check_golden("small.report.md", to_markdown(small))


def test_golden_csv(small: Model) -> None:
    check_golden("small.attempts.csv", to_csv(small))


def test_golden_text(small: Model) -> None:
    check_golden("small.summary.txt", to_text(small, width=120))


# --- summary JSON: section 9 ------------------------------------------------------------------


def test_summary_has_every_section9_field(small: Model) -> None:
    doc = orjson.loads(to_json(small))
    assert doc["format"] == FORMAT
    assert {"file", "sha256", "form", "uuid", "extensions", "critical"} <= doc["source"].keys()
    op_keys = {"operation_id", "operation", "server", "tool", "decision", "decision_life",
               "decision_event", "outcome", "attempts", "retries", "escalated",
               "late_responses", "unassigned_events"}
    att_keys = {"attempt", "start", "end", "states", "final_state", "events", "late",
                "out_of_model", "decision", "decision_event"}
    for op in doc["operations"]:
        assert op_keys <= op.keys()
        for a in op["attempts"]:
            assert att_keys <= a.keys()
            assert len(a["states"]) == len(a["events"])
    for d in doc["standing_decisions"]:
        assert {"event", "time", "server", "tool", "decision", "reason", "replaced_by"} <= d.keys()
    for f in doc["findings"]:
        assert {"kind", "severity", "operation_id", "attempt", "events", "message"} <= f.keys()
    for d in doc["diagnostics"]:
        assert {"code", "severity", "pointer", "message"} == d.keys()
    assert "produced_under_override" not in doc


def test_summary_content_of_small_fixture(small: Model) -> None:
    doc = summary_dict(small)
    ops = {o["operation_id"]: o for o in doc["operations"]}
    assert [o["operation_id"] for o in doc["operations"]] == [
        "op-read", "op-shell", "op-write", "op-fetch", "op-skip"]
    shell = ops["op-shell"]
    assert (shell["decision"], shell["decision_life"], shell["decision_event"]) == (
        "disallowed", "standing", 4)
    assert shell["retries"] == 1 and shell["escalated"] and shell["late_responses"] == 1
    assert shell["attempts"][1]["states"] == ["Running", "Timed Out", "Completed"]
    assert shell["attempts"][1]["late"] == [10]
    assert ops["op-write"]["attempts"][0]["out_of_model"] == [13]
    assert ops["op-write"]["attempts"][0]["end"] is None
    assert ops["op-fetch"]["outcome"] == "disallowed" and ops["op-fetch"]["attempts"] == []
    assert ops["op-skip"]["outcome"] == "not-performed"
    assert [(d["event"], d["replaced_by"]) for d in doc["standing_decisions"]] == [
        (0, None), (4, 7), (7, None)]
    assert doc["operations"][0]["attempts"][0]["start"] == "2026-03-01T09:00:02Z"


def test_summary_subset_keeps_only_its_findings(small: Model) -> None:
    shell = small.operation("op-shell")
    assert shell is not None
    doc = summary_dict(small, [shell])
    assert [o["operation_id"] for o in doc["operations"]] == ["op-shell"]
    assert doc["selection"] == {"operations": 1, "of": 5, "operation_ids": ["op-shell"]}
    assert doc["findings"] and {f["operation_id"] for f in doc["findings"]} == {"op-shell"}
    assert len(doc["standing_decisions"]) == 3  # policy context kept whole
    assert "selection" not in summary_dict(small)


def test_subset_drops_global_findings() -> None:
    m = hostile_model()
    full = summary_dict(m)
    assert any(f["operation_id"] is None for f in full["findings"])
    part = summary_dict(m, [m.operations[0]])
    assert all(f["operation_id"] is not None for f in part["findings"])


def test_rfc3339() -> None:
    assert rfc3339(None) is None
    assert rfc3339(T0) == "2026-03-01T09:00:00Z"
    plus2 = datetime(2026, 3, 1, 11, 0, 0, 500000, tzinfo=timezone(timedelta(hours=2)))
    assert rfc3339(plus2) == "2026-03-01T11:00:00.500+02:00"


def test_json_keeps_exact_values_but_no_raw_unsafe_bytes() -> None:
    m = hostile_model()
    raw = to_json(m)
    text = raw.decode("utf-8")
    assert raw_unsafe(text) == set()
    doc = orjson.loads(raw)
    assert doc["operations"][0]["operation_id"] == "+" + HOSTILE  # exact, scripts can match
    assert doc["diagnostics"][0]["pointer"] == "/events/3/" + HOSTILE
    assert doc["source"]["file"] == "in" + HOSTILE


# --- override marking (--ignore-critical: every output says so) -----------------------------


def test_override_marks_every_format() -> None:
    m = model_of("report_critical.vcon.json", ignore_critical=True)
    assert m.source.critical_override
    doc = orjson.loads(to_json(m))
    assert doc["produced_under_override"] is True and "ignore-critical" in doc["note"]
    assert doc["source"]["critical_override"] is True
    assert "WARNING" in to_markdown(m).split("\n## ")[0]
    rows = list(csv.DictReader(io.StringIO(to_csv(m))))
    assert rows and all(r["produced_under_override"] == "true" for r in rows)
    assert to_text(m).startswith("WARNING: produced under --ignore-critical")


def test_no_override_no_mark(small: Model) -> None:
    assert "WARNING" not in to_markdown(small)
    rows = list(csv.DictReader(io.StringIO(to_csv(small))))
    assert all(r["produced_under_override"] == "" for r in rows)


def test_csv_says_an_unsigned_file_is_unsigned(small: Model) -> None:
    rows = list(csv.DictReader(io.StringIO(to_csv(small))))
    assert COLUMNS[-1] == "signature" and rows
    assert all(r["signature"] == "unsigned" for r in rows)


# --- hostile text: nothing acts, in any format ------------------------------------------------


@pytest.fixture(params=["hand-built", "fixture"])
def hostile(request: pytest.FixtureRequest) -> Model:
    if request.param == "hand-built":
        return hostile_model(override=True)
    return model_of("report_hostile.vcon.json")


def test_markdown_has_no_raw_unsafe_char(hostile: Model) -> None:
    out = to_markdown(hostile)
    assert raw_unsafe(out) == set()
    assert "\\[@click=app.quit\\]" in out  # the brackets are escaped: no link starts
    headings = set(re.findall(r"^### Operation (\d+)$", out, flags=re.M))
    for line in out.splitlines():
        line = line.removeprefix("> ")  # our own override banner is a block quote
        # Our own link from a finding to its operation's evidence, at the end of the line and
        # made of our words and a number only; it must lead to a heading of the report.
        ours = re.search(r" → \[evidence\]\(#operation-(\d+)\)$", line)
        if ours:
            assert ours.group(1) in headings, line
            line = line[: ours.start()]
        for part in re.split(r"(?<!\\)\|", line):  # table cells, or the whole line
            assert not re.search(r"(?<!\\)[\[\]<>`&]", part), line


def test_markdown_tables_keep_their_shape(hostile: Model) -> None:
    out = to_markdown(hostile)
    for block in re.findall(r"(?:^\|.*\|\n)+", out, flags=re.M):
        lines = block.splitlines()
        widths = {len(re.findall(r"(?<!\\)\|", line)) for line in lines}
        assert len(widths) == 1, block  # an escaped | never adds a cell


def test_md_escapes_structure() -> None:
    assert md("a|b`c[d]<e>&f\nx") == "a\\|b\\`c\\[d\\]\\<e\\>\\&f\\\\x0ax"
    assert md(None) == ""


def test_csv_has_no_raw_unsafe_char_and_no_formula(hostile: Model) -> None:
    out = to_csv(hostile)
    assert raw_unsafe(out.replace("\r\n", ""), allowed="") == set()
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0] == list(COLUMNS)
    assert all(len(r) == len(COLUMNS) for r in rows)
    for r in rows[1:]:
        for c in r:
            assert not c.startswith(("=", "+", "-", "@")), c


def test_csv_cell_neutralises_formulas() -> None:
    assert cell("=HYPERLINK(1)") == "'=HYPERLINK(1)"
    assert cell("@SUM(A1)") == "'@SUM(A1)"
    assert cell("+1") == "'+1" and cell("-1") == "'-1"
    assert cell("ok=1") == "ok=1"
    assert cell(None) == "" and cell(True) == "true" and cell(3) == "3"


def test_csv_one_row_per_attempt_and_one_for_bare_operation(small: Model) -> None:
    rows = list(csv.DictReader(io.StringIO(to_csv(small))))
    assert [(r["operation_id"], r["attempt"]) for r in rows] == [
        ("op-read", "1"), ("op-shell", "1"), ("op-shell", "2"), ("op-write", "1"),
        ("op-fetch", ""), ("op-skip", "")]
    fetch = rows[4]
    assert fetch["outcome"] == "disallowed" and fetch["start"] == "" and fetch["states"] == ""


def test_text_shows_markup_literally_and_no_unsafe_char(hostile: Model) -> None:
    console = Console(record=True, width=200, file=io.StringIO(), color_system="truecolor",
                      force_terminal=True)
    console.print(render_text(hostile))
    plain = console.export_text()
    assert raw_unsafe(plain) == set()
    assert "[@click=app.quit]x[/]" in plain.replace("\n", "")
    styled = console.export_text(styles=True)
    assert "\x9b" not in styled and "\u202e" not in styled and "\x07" not in styled
    # the only ESC bytes are Rich's own SGR colour codes, never the recorded screen clear/OSC
    assert not re.search(r"\x1b(?!\[[0-9;]*m)", styled)


def test_text_plain_export_no_unsafe(hostile: Model) -> None:
    out = to_text(hostile, width=100)
    assert raw_unsafe(out) == set()


# --- write_atomic ------------------------------------------------------------------------------


def test_write_atomic_writes_and_replaces(tmp_path: Path) -> None:
    target = tmp_path / "out.json"
    write_atomic(target, b"one", input_path=None)
    assert target.read_bytes() == b"one"
    write_atomic(str(target), "two", input_path=str(tmp_path / "in.json"))
    assert target.read_text() == "two"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]  # no temp file left


def test_write_atomic_writes_pieces_and_keeps_the_old_file_when_they_fail(
        tmp_path: Path) -> None:
    """The summary JSON is written as it is made; a failure half-way leaves the target as it
    was and no temporary file."""
    target = tmp_path / "out.json"
    write_atomic(target, iter([b"a", b"bc", b""]), input_path=None)
    assert target.read_bytes() == b"abc"

    def broken() -> Iterator[bytes]:
        yield b"half"
        raise RuntimeError("failed while making the output")

    with pytest.raises(RuntimeError):
        write_atomic(target, broken(), input_path=None)
    assert target.read_bytes() == b"abc"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]


def test_write_atomic_refuses_the_input_before_making_the_output(tmp_path: Path) -> None:
    src = tmp_path / "in.vcon.json"
    src.write_bytes(b"{}")
    made: list[bytes] = []

    def pieces() -> Iterator[bytes]:
        made.append(b"x")
        yield b"x"

    with pytest.raises(ValueError, match="input file"):
        write_atomic(src, pieces(), input_path=str(src))
    assert made == [] and src.read_bytes() == b"{}"


def test_write_atomic_refuses_input(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    src = tmp_path / "in.vcon.json"
    src.write_bytes(b"{}")
    link = tmp_path / "link.json"
    link.symlink_to(src)
    hard = tmp_path / "hard.json"
    os.link(src, hard)
    monkeypatch.chdir(tmp_path)
    for target in (src, str(src), "in.vcon.json", "./sub/../in.vcon.json", link, hard):
        (tmp_path / "sub").mkdir(exist_ok=True)
        with pytest.raises(ValueError, match="input file") as exc:
            write_atomic(target, b"clobber", input_path=str(src))
        assert "\n" not in str(exc.value)
    assert src.read_bytes() == b"{}"
    assert link.is_symlink()


def test_write_atomic_refuses_directory(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="directory"):
        write_atomic(tmp_path, b"x", input_path=None)


def test_write_atomic_missing_dir_raises_oserror(tmp_path: Path) -> None:
    with pytest.raises(OSError):
        write_atomic(tmp_path / "nope" / "out.json", b"x", input_path=None)


def test_write_atomic_to_a_device_writes_in_place(tmp_path: Path) -> None:
    """-o onto a FIFO or device must not replace it with a regular file (found: /dev/null)."""
    import os
    import stat
    import threading

    from viewer.report.write import write_atomic

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    write_atomic(fifo, b"summary\n", input_path=None)
    reader.join(timeout=10)
    assert got == [b"summary\n"]
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_write_atomic_through_a_symlink_keeps_the_link(tmp_path: Path) -> None:
    from viewer.report.write import write_atomic

    real = tmp_path / "real.md"
    real.write_text("old")
    link = tmp_path / "link.md"
    link.symlink_to(real)
    write_atomic(link, "new", input_path=None)
    assert link.is_symlink() and real.read_text() == "new"


def test_streamed_json_is_the_document_byte_for_byte() -> None:
    """iter_json (what summary --format json writes) equals dumps(summary_dict(...))."""
    from viewer.load import load_path
    from viewer.model.build import build_model
    from viewer.report.summary import dumps, iter_json, summary_dict

    demos = sorted((Path(__file__).resolve().parent.parent / "demo_vcons").glob("*.vcon.json*"))
    for f in demos:
        model = build_model(load_path(str(f)))
        for subset in (None, model.operations[:2], ()):
            assert b"".join(iter_json(model, subset)) == dumps(summary_dict(model, subset)), f


def test_del_is_escaped_in_an_all_ascii_summary() -> None:
    """DEL is ASCII, so an all-ASCII document must still be scanned for it."""
    import orjson

    from tests.modelkit import model_of, tool
    from viewer.report.summary import to_json

    m = model_of([tool("tool-invocation", 0, op="op-\x7f")])
    out = to_json(m)
    assert b"\x7f" not in out and b"op-\\u007f" in out
    assert orjson.loads(out)["operations"][0]["operation_id"] == "op-\x7f"


def test_streamed_json_across_batches_is_the_document_byte_for_byte(monkeypatch) -> None:
    """Several batches (a small BATCH) of operations and of findings (every third operation
    has no outcome), with unsafe characters in some operation ids."""
    from tests.modelkit import model_of, tool
    from viewer.report import summary
    from viewer.report.summary import dumps, iter_json, summary_dict

    evs = []
    for n in range(23):
        oid = f"op-{n}" + ("\u202e\x7f" if n % 5 == 0 else "")
        evs.append(tool("tool-invocation", 2 * n, op=oid))
        if n % 3:
            evs.append(tool("tool-result", 2 * n + 1, op=oid))
    model = model_of(evs)
    assert len(model.findings) == 8
    for batch in (1, 4, 7, 8, 23, 512):
        monkeypatch.setattr(summary, "BATCH", batch)
        for subset in (None, model.operations[3:17]):
            assert b"".join(iter_json(model, subset)) == dumps(summary_dict(model, subset))


def test_text_caps_long_lists_and_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    """The text format is a terminal overview: past its caps it says how many more there are
    and which formats list all (a 100k-operation table took two minutes to draw)."""
    from viewer.load import load_path
    from viewer.model.build import build_model
    from viewer.report import text

    model = build_model(load_path(str(Path(__file__).resolve().parent.parent / "demo_vcons"
                                      / "tour.vcon.json")))
    full = text.to_text(model, width=160)
    assert "more operations" not in full and "more findings" not in full
    monkeypatch.setattr(text, "TABLE_MAX", 5)
    monkeypatch.setattr(text, "LIST_MAX", 3)
    capped = text.to_text(model, width=160)
    assert "… and 7 more operations: the text table shows the first 5" in capped
    assert f"… and {len(model.findings) - 3} more findings" in capped
    shown_ops = {op.operation_id for op in model.operations if op.operation_id in capped}
    assert shown_ops == {op.operation_id for op in model.operations[:5]} | {
        f.operation_id for f in sorted(model.findings, key=lambda f: ("error", "warning",
                                                                     "info").index(f.severity))[:3]}


def _derived_models() -> dict[str, Model]:
    """A lifted proxy vCon with 2 stray responses, and an imported MCP transcript."""
    import json

    from viewer.pipeline import open_bytes, open_path

    v = json.loads((FIXTURES / "import_proxy_agent_server.vcon.json").read_bytes())
    for k in range(2):
        v["dialog"].append({"type": "text", "parties": [1, 0], "originator": 1,
                            "body": json.dumps({"jsonrpc": "2.0", "id": 900 + k, "result": {}}),
                            "encoding": "none", "meta": {"mcp_type": "response"}})
    return {
        "lifted": build_model(open_bytes(json.dumps(v).encode(), name="proxy.vcon.json")),
        "imported": build_model(open_path(str(FIXTURES / "import_partial.jsonl"))),
    }


def test_derived_views_say_so_in_every_header() -> None:
    models = _derived_models()
    lifted, imported = models["lifted"], models["imported"]
    line = "derived from 32 dialogs (vcon-mcp-proxy) · 2 not mapped"
    assert lifted.derivation is not None and lifted.derivation.line() == line
    assert "Operations: 10, " + line + "\n" in to_text(lifted, width=160)
    assert "| Operations | 10, " + md(line) + " |\n" in to_markdown(lifted)
    derived = summary_dict(lifted)["derived"]
    assert derived["from"][0] == "/dialog/0" and derived["note"]
    assert {k: v for k, v in derived.items() if k not in ("from", "note")} == {
        "format": "vcon-mcp-proxy", "title": "vcon-mcp-proxy", "objects": 32,
        "unit": "dialogs", "mapped": 23, "ignored": 7, "unmapped": 2, "times": "recorded"}
    assert orjson.loads(to_json(lifted))["derived"] == derived
    d = imported.derivation
    assert d is not None and d.unmapped == 3
    assert f"Operations: {len(imported.operations)}, {d.line()}\n" in to_text(imported,
                                                                          width=160)
    assert d.line() == ("derived from 5 messages (MCP JSON-RPC transcript) · 3 not mapped · "
                        "times are order only")
    assert summary_dict(imported)["derived"]["unmapped"] == 3
    assert summary_dict(imported)["derived"]["format"] == "mcp"


def test_own_events_have_no_derived_header() -> None:
    model = build_model(load_bytes((FIXTURES / "report_small.vcon.json").read_bytes()))
    assert model.derivation is None
    assert "derived" not in to_text(model) and "derived" not in to_markdown(model)
    assert "derived" not in summary_dict(model)


# --- the party of each operation (a sub-agent's calls are not the lead agent's) --------------

SUBAGENT = FIXTURES / "agents" / "claude-code-transcript" / "spotter__subagent.jsonl"
#: spotter__subagent: the Plan sub-agent (party 1) made op-0011..op-0019, the main agent the rest
SUB_OPS = {f"op-{n:04d}" for n in range(11, 20)}


@pytest.fixture(scope="module")
def delegated() -> Model:
    from viewer.importers import claude_code

    vcon, _ = claude_code.convert(SUBAGENT.read_bytes(), source_name="subagent.jsonl")
    return build_model(load_bytes(orjson.dumps(vcon), name="subagent.vcon.json"))


def test_summary_json_names_the_party_of_each_operation(delegated: Model) -> None:
    doc = orjson.loads(to_json(delegated))
    by_id = {op["operation_id"]: op["party"] for op in doc["operations"]}
    assert len(by_id) == 25
    for op_id, party in by_id.items():
        if op_id in SUB_OPS:  # op-0012/13 never ran: their decision names the party
            assert party == {"index": 1, "name": "sub-agent afb92ff", "role": "agent"}, op_id
        else:
            assert party == {"index": 0, "name": "Claude Code (main agent)", "role": "agent"}


def test_summary_party_is_exact_and_null_when_unrecorded() -> None:
    vcon = _two_party_vcon(HOSTILE)
    vcon["events"].append({"type": "tool-invocation", "time": "2026-03-01T09:00:03Z",
                           "operation_id": "op-c", "attempt": 1, "server": "s", "tool": "t"})
    vcon["events"].append({"type": "tool-invocation", "time": "2026-03-01T09:00:04Z",
                           "party": 9, "operation_id": "op-d", "attempt": 1, "server": "s",
                           "tool": "t"})
    m = build_model(load_bytes(orjson.dumps(vcon), name="p.vcon.json"))
    raw = to_json(m)
    assert not raw_unsafe(raw.decode("utf-8"))
    parties = {op["operation_id"]: op["party"] for op in orjson.loads(raw)["operations"]}
    assert parties == {
        "op-a": {"index": 0, "name": "Lead", "role": "agent"},
        "op-b": {"index": 1, "name": HOSTILE, "role": None},
        "op-c": None,  # no party recorded
        "op-d": {"index": 9, "name": None, "role": None},  # out of range: the index only
    }


def _two_party_vcon(sub_name: str) -> dict[str, object]:
    ev = {"type": "tool-invocation", "server": "s", "tool": "t", "attempt": 1}
    return {
        "vcon": "0.4.0", "uuid": "0195544a-0000-7000-8000-00000000abcd",
        "created_at": "2026-03-01T09:00:00Z", "extensions": ["tool-invocation"],
        "parties": [{"name": "Lead", "role": "agent"}, {"name": sub_name}],
        "events": [
            {**ev, "time": "2026-03-01T09:00:01Z", "party": 0, "operation_id": "op-a"},
            {**ev, "time": "2026-03-01T09:00:02Z", "party": 1, "operation_id": "op-b"},
        ],
    }


def _line_of(text: str, op_id: str) -> str:
    return next(line for line in text.splitlines() if op_id in line)


def test_text_report_marks_subagent_operations(delegated: Model) -> None:
    text = to_text(delegated, width=160)
    table = text.split("Standing decisions")[0]
    assert table.count("↳ sub-agent afb92ff") == len(SUB_OPS)
    # the mark sits under the operation id of each sub-agent operation, none under the lead's
    lines = table.splitlines()
    for i, line in enumerate(lines):
        for op_id in (f"op-{n:04d}" for n in range(1, 26)):
            if f" {op_id} " in line:
                assert ("↳ sub-agent afb92ff" in lines[i + 1]) == (op_id in SUB_OPS), op_id


def test_markdown_and_html_mark_subagent_operations(delegated: Model) -> None:
    from viewer.report.html import to_html

    md_text = to_markdown(delegated)
    html_text = to_html(delegated)
    for op_id in (f"op-{n:04d}" for n in range(1, 26)):
        row = _line_of(md_text.split("## Operations")[1], f"| {op_id}")
        assert ("↳ sub-agent afb92ff" in row) == (op_id in SUB_OPS), op_id
        cell_html = re.search(rf'<td class="mono">{op_id}(.*?)</td>', html_text)
        assert cell_html is not None
        assert ("↳ sub-agent afb92ff" in cell_html.group(1)) == (op_id in SUB_OPS), op_id


def test_csv_has_a_party_column(delegated: Model) -> None:
    assert "party" in COLUMNS
    rows = list(csv.DictReader(io.StringIO(to_csv(delegated))))
    assert {r["operation_id"] for r in rows} == {f"op-{n:04d}" for n in range(1, 26)}
    for r in rows:
        assert r["party"] == ("sub-agent afb92ff" if r["operation_id"] in SUB_OPS
                              else "Claude Code (main agent)"), r["operation_id"]


def test_a_hostile_party_name_is_made_safe_in_every_report() -> None:
    from viewer.report.html import to_html

    m = build_model(load_bytes(orjson.dumps(_two_party_vcon("=" + HOSTILE)), name="p.vcon.json"))
    for out in (to_text(m, width=200), to_markdown(m), to_html(m), to_csv(m)):
        assert not raw_unsafe(out, allowed="\n\r"), out[:200]
    assert "↳" in to_text(m, width=200) and "↳" in to_markdown(m) and "↳" in to_html(m)
    assert "[@click=app.quit]" in to_text(m, width=200)  # shown literally, never markup
    assert "<b>" not in to_html(m).split("<body>")[1].replace("<b>vcon", "")
    row = next(r for r in csv.DictReader(io.StringIO(to_csv(m))) if r["operation_id"] == "op-b")
    assert row["party"].startswith("'=")  # a formula-looking name stays text


def test_evidence_sections_name_a_subagents_operation(delegated: Model) -> None:
    from viewer.report.formats import ReportOptions
    from viewer.report.html import to_html

    opts = ReportOptions(evidence="all")
    md_heads = [line for line in to_markdown(delegated, options=opts).splitlines()
                if line.startswith("**op-")]  # the head line of each operation's section
    html_heads = [s.split("</summary>")[0] for s in to_html(delegated, opts).split("<details ")[1:]]
    for heads in (md_heads, html_heads):
        assert len(heads) == 25
        marked = {re.findall(r"op-00\d\d", head)[0] for head in heads
                  if "↳ sub-agent afb92ff" in head}
        assert marked == SUB_OPS


@pytest.mark.parametrize("name", ["tour.vcon.json", "13-subagent-delegation.vcon.json",
                                  "07-not-performed.vcon.json", "15-claude-code.vcon.json"])
def test_summary_party_follows_the_one_rule(name: str) -> None:
    """The summary's fast loop reads each operation's party by position; viewer.parties is
    the rule (the TUI's too): the two agree on every operation."""
    from viewer.parties import op_party, party_record

    data = (ROOT.parent / "demo_vcons" / name).read_bytes()
    m = build_model(load_bytes(data, name=name))
    doc = summary_dict(m)
    assert [op["party"] for op in doc["operations"]] == [
        party_record(m, op_party(m, op)) for op in m.operations]


_DIGITS = st.sampled_from("0123456789")


@st.composite
def _recorded_times(draw: st.DrawFn) -> str:
    """Date-times as recorders write them: zones Z/z/offsets, 0-9 fraction digits, t/T/space,
    leap seconds, non-ASCII digits (which RFC 3339 does not allow)."""
    date = draw(st.dates(min_value=date_type(1, 1, 1), max_value=date_type(9999, 12, 31)))
    h, m = draw(st.integers(0, 23)), draw(st.integers(0, 59))
    s = draw(st.sampled_from([0, 7, 59, 60]))
    frac = "".join(draw(st.lists(_DIGITS, max_size=9)))
    digit = draw(st.sampled_from(["", "\u0661"]))  # an Arabic-Indic one, at times
    sep = draw(st.sampled_from(["T", "t", " "]))
    zone = draw(st.sampled_from(["Z", "z", "+00:00", "+01:00", "-05:30", ""]))
    return (f"{date.isoformat()}{sep}{h:02d}:{m:02d}:{s:02d}"
            + (f".{frac}" if frac else "") + digit + zone)


@settings(max_examples=300, deadline=None)
@given(st.lists(_recorded_times(), min_size=2, max_size=2))
def test_summary_times_are_the_rule_applied_to_what_was_recorded(times: list[str]) -> None:
    """The summary writes a recorded time as recorded only when that is its RFC 3339 form: each
    time it writes is format_time(parse_time(recorded)), whatever the recorder wrote."""
    from tests.modelkit import model_of, tool
    from viewer.model.times import format_time, parse_time

    events = [tool("tool-invocation", 0), tool("tool-result", 1)]
    for ev, text in zip(events, times, strict=True):
        ev["time"] = text
    m = model_of(events)
    doc = orjson.loads(to_json(m))
    for op in doc["operations"]:
        for a in op["attempts"]:
            start, end = (parse_time(times[i])[0] for i in a["events"][:1] + a["events"][-1:])
            assert a["start"] == format_time(start)
            assert a["end"] in (None, format_time(end))  # None: no final state reached
        first = m.events[m.replay[m.operations[0].first_order]]
        assert op["first_time"] == format_time(first.time)
