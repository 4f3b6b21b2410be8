"""The demo library: each story produces what demo_vcons/README.md says it does.

Every demo's ``summary --format json`` is pinned to ``tests/golden/demos/<name>.summary.json``
(reviewed by hand against the story); regenerate with ``VCON_VIEW_UPDATE_GOLDEN=1`` and review
the diff. ``check`` exits 0 on every demo but 11-conformance-errors, which exits 1 with exactly
the codes of the README's table. The builder is deterministic, and so is ``bench.generate``.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections import Counter
from pathlib import Path
from types import ModuleType

import orjson
import pytest

from viewer.cli import check_status
from viewer.load import load_bytes
from viewer.model.build import build_model
from viewer.model.types import Model
from viewer.report.summary import to_json

ROOT = Path(__file__).resolve().parent.parent
DEMOS = ROOT / "demo_vcons"
GOLDEN = ROOT / "tests" / "golden" / "demos"
UPDATE = os.environ.get("VCON_VIEW_UPDATE_GOLDEN") == "1"

DEMO_FILES = sorted(p.name for p in DEMOS.iterdir() if p.name.endswith((".vcon.json",
                                                                          ".vcon.json.gz")))

#: Per demo, per operation: (outcome, finding kinds in any order). Reviewed against the story.
EXPECTED: dict[str, dict[str, tuple[str, list[str]]]] = {
    "tour": {
        "op-01a7": ("completed", []),
        "op-02c4": ("completed", ["permission-inferred", "out-of-model"]),
        "op-03f1": ("completed", ["late-response", "duplicate-execution-risk", "retry"]),
        "op-04b2": ("failed", []),
        "op-05e9": ("errored", []),
        "op-06d3": ("completed", ["retry", "escalation"]),
        "op-07aa": ("completed", ["policy-violation", "standing-conflict"]),
        "op-08c0": ("cancel-requested", ["late-response", "unterminated"]),
        "op-09f5": ("completed", ["decision-after-invocation"]),
        "op-10b8": ("not-performed", []),
        "op-11e2": ("disallowed", []),
        "op-12d6": ("running", ["unterminated"]),
    },
    "02-mcp-2025-11-25": {
        "op-3b10": ("completed", []), "op-3b11": ("completed", []),
        "op-3b12": ("failed", []), "op-3b13": ("errored", []),
    },
    "03-mcp-2026-07-28": {"op-91c0": ("completed", []), "op-91c1": ("completed", [])},
    "04-double-refund": {
        "op-7f3a": ("completed", []),
        "op-7f3b": ("completed", ["late-response", "duplicate-execution-risk", "retry"]),
    },
    "05-step-up-consent": {"op-c21e": ("completed", ["retry", "escalation"])},
    "06-standing-decisions": {
        "op-k001": ("completed", []), "op-k002": ("completed", []),
        "op-k003": ("completed", ["permission-inferred"]),
        "op-k004": ("completed", ["policy-violation", "standing-conflict"]),
    },
    "07-not-performed": {
        "op-b100": ("completed", []), "op-b101": ("not-performed", []),
        "op-b102": ("disallowed", []),
    },
    "08-cancel-unterminated": {
        "op-d0c5": ("cancel-requested", ["late-response"] * 3 + ["unterminated"]),
    },
    "09-content-variety": {f"op-aa0{i}": ("completed", []) for i in range(1, 6)},
    "11-no-extension": {"op-n001": ("completed", [])},
    "12-hostile-content": {
        "op-h001": ("completed", []), "op-h002": ("failed", []), "op-h003": ("completed", []),
    },
    "13-subagent-delegation": {
        op: ("completed", []) for op in ("op-p001", "op-p002", "op-s001", "op-s002", "op-p003")
    },
}
EXPECTED["14-imported-mcp"] = {  # imported from tests/fixtures/import_2025_flow.jsonl
    "op-0001": ("cancel-requested", ["unterminated"]),
    "op-0002": ("completed", []),
    "op-0003": ("errored", []),
    "op-0004": ("failed", []),
}
EXPECTED["15-claude-code"] = {  # spotter__subagent.jsonl: research, a Plan sub-agent, beads
    **{f"op-{n:04d}": ("completed", []) for n in range(1, 26)},
    "op-0011": ("failed", []),  # the sub-agent's Read of a directory (EISDIR)
    # <tool_use_error>Sibling tool call errored: the host cancelled them before they ran
    "op-0012": ("not-performed", []),
    "op-0013": ("not-performed", []),
    **{f"op-{n:04d}": ("completed", ["permission-inferred"]) for n in range(22, 26)},
}
EXPECTED["19-copilot"] = {  # imported from tests/fixtures/agents/copilot-cli/..._small.jsonl
    "op-0001": ("completed", []),  # shell ls
    "op-0002": ("failed", []),  # a sub-agent's call (its own party)
    "op-0003": ("failed", []),  # no tool.execution_start: invoked by its toolRequests entry
}
EXPECTED["17-codex"] = {  # imported from the agent-history Codex escalation rollout
    "op-0001": ("completed", ["permission-inferred"]),
    "op-0002": ("not-performed", []),
    "op-0003": ("completed", ["permission-inferred"]),
    "op-0004": ("not-performed", []),
}
EXPECTED["18-gemini"] = {  # imported from the agent-history Gemini tool-error session
    "op-0001": ("completed", []),
    "op-0002": ("failed", []),
    "op-0003": ("completed", []),
    "op-0004": ("completed", []),
}
EXPECTED["16-otel"] = {  # imported from agents/otel-genai/any-agent__OPENAI_trace.json
    "op-0001": ("completed", []),
    "op-0002": ("completed", []),
}
EXPECTED["10-signed"] = EXPECTED["04-double-refund"]
EXPECTED["10-gzip"] = EXPECTED["05-step-up-consent"]

#: Diagnostic codes per demo (all others: none). 11-conformance-errors: README's table.
EXPECTED_CODES: dict[str, Counter[str]] = {
    "10-signed": Counter({"signature-untrusted": 1}),  # signed by the demo key, no --trust
    "11-no-extension": Counter({"extension-not-listed": 1}),
    "11-conformance-errors": Counter({
        "missing-required": 1,  # E1
        "forbidden-parameter": 3,  # E2, E15, E16
        "invalid-value": 3,  # E3, E4, E14
        "index-out-of-range": 3,  # E5, E6, E7
        "content-body-and-url": 1,  # E8
        "content-mediatype-missing": 1,  # E9
        "content-encoding-missing": 1,  # E10
        "content-body-invalid": 1,  # E11
        "content-hash-missing": 1,  # E12
        "content-hash-invalid": 1,  # E13
        "operation-id-not-unique": 1,  # E17
        "operation-target-mismatch": 1,  # E18
        "attempt-gap": 1,  # E19 (warning)
        "time-unparsable": 1,  # E20
        "time-no-offset": 1,  # E21 (warning)
    }),
    # issue 17: a server and two party names carry escape/bidi characters
    "12-hostile-content": Counter({"suspicious-text": 3}),
}
FAILING = {"11-conformance-errors"}


def stem(file_name: str) -> str:
    return file_name.split(".vcon.json")[0]


def model_of(file_name: str) -> Model:
    """Load under the repo-relative name, so no absolute path reaches the summary."""
    data = (DEMOS / file_name).read_bytes()
    return build_model(load_bytes(data, name=f"demo_vcons/{file_name}"))


def test_every_demo_is_covered() -> None:
    assert {stem(f) for f in DEMO_FILES} == set(EXPECTED) | {"11-conformance-errors"}
    assert "tour.vcon.json" in DEMO_FILES


@pytest.mark.parametrize("file_name", DEMO_FILES)
def test_summary_golden(file_name: str) -> None:
    actual = to_json(model_of(file_name))
    path = GOLDEN / f"{stem(file_name)}.summary.json"
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(actual)
    assert path.exists(), f"missing golden {path}; run with VCON_VIEW_UPDATE_GOLDEN=1"
    assert str(ROOT) not in actual.decode("utf-8")
    assert actual == path.read_bytes()


@pytest.mark.parametrize("file_name", DEMO_FILES)
def test_check_exit_and_codes(file_name: str) -> None:
    model = model_of(file_name)
    name = stem(file_name)
    assert check_status(model, frozenset()) == (1 if name in FAILING else 0)
    assert Counter(d.code for d in model.diagnostics) == EXPECTED_CODES.get(name, Counter())


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_story_outcomes_and_findings(name: str) -> None:
    file_name = next(f for f in DEMO_FILES if stem(f) == name)
    summary = orjson.loads(to_json(model_of(file_name)))
    outcomes = {op["operation_id"]: op["outcome"] for op in summary["operations"]}
    assert outcomes == {op: exp[0] for op, exp in EXPECTED[name].items()}
    found: dict[str, list[str]] = {}
    for f in summary["findings"]:
        found.setdefault(f["operation_id"], []).append(f["kind"])
    for op, (_, kinds) in EXPECTED[name].items():
        assert sorted(found.get(op, [])) == sorted(kinds), op


def test_tour_covers_everything() -> None:
    from viewer.model.spec import FINDING_KINDS, LIFECYCLE_EVENT_TYPES, STATES

    raw = orjson.loads((DEMOS / "tour.vcon.json").read_bytes())
    summary = orjson.loads(to_json(model_of("tour.vcon.json")))
    assert set(LIFECYCLE_EVENT_TYPES) <= {e["type"] for e in raw["events"]}
    assert {"join", "keydown"} <= {e["type"] for e in raw["events"]}
    states = {s for op in summary["operations"] for a in op["attempts"] for s in a["states"]}
    assert set(STATES) <= states
    assert set(FINDING_KINDS) == {f["kind"] for f in summary["findings"]}
    assert summary["diagnostics"] == []


def _import(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def test_builder_is_deterministic_and_committed(tmp_path: Path) -> None:
    builder = _import(DEMOS / "build.py", "demo_vcons_build")
    written = builder.build(tmp_path)
    assert sorted(p.name for p in written) == sorted(
        [f for f in DEMO_FILES if f not in IMPORTED] + ["10-signed.root.pem"])
    for p in written:
        assert p.read_bytes() == (DEMOS / p.name).read_bytes(), p.name


#: Demos written by ``vcon-view import``, not by build.py: (transcript, --server).
#: Demos made by an importer: the ``vcon-view`` arguments that make each (output appended).
IMPORTED: dict[str, list[str]] = {
    "14-imported-mcp.vcon.json": ["import", "mcp", "tests/fixtures/import_2025_flow.jsonl",
                                  "--server", "https://weather.example.com/mcp"],
}
IMPORTED["15-claude-code.vcon.json"] = [
    "import", "claude-code", "tests/fixtures/agents/claude-code-transcript/spotter__subagent.jsonl"]
IMPORTED["19-copilot.vcon.json"] = [
    "import", "copilot", "tests/fixtures/agents/copilot-cli/agent-sessions__copilot_small.jsonl"]
IMPORTED["17-codex.vcon.json"] = [
    "import", "codex",
    "tests/fixtures/agents/codex-rollout/agent-history__codex_with_escalation.jsonl"]
IMPORTED["18-gemini.vcon.json"] = [
    "import", "gemini",
    "tests/fixtures/agents/gemini-cli/agent-history__gemini_with_tool_error.jsonl"]
IMPORTED["16-otel.vcon.json"] = [
    "import", "otlp", "tests/fixtures/agents/otel-genai/any-agent__OPENAI_trace.json"]


@pytest.mark.parametrize("name", sorted(IMPORTED))
def test_imported_demo_is_reproducible(name: str, tmp_path: Path,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The README's import command, rerun, writes the committed demo byte for byte."""
    from viewer.cli import main

    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1772442000")
    monkeypatch.chdir(ROOT)
    out = tmp_path / name
    code = main([*IMPORTED[name], "-q", "-o", str(out)])
    assert code == 0
    assert out.read_bytes() == (DEMOS / name).read_bytes()


def test_bench_generator(tmp_path: Path) -> None:
    gen = _import(ROOT / "bench" / "generate.py", "bench_generate")
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    stats = gen.generate(a, 400, seed=3, events_per_op=4, big_result_mb=0.25, attachments=2)
    gen.generate(b, 400, seed=3, events_per_op=4, big_result_mb=0.25, attachments=2)
    assert a.read_bytes() == b.read_bytes()
    model = build_model(load_bytes(a.read_bytes(), name="gen.json"))
    assert not [d for d in model.diagnostics if d.severity == "error"]
    assert len(orjson.loads(a.read_bytes())["events"]) == stats["events"]
    kinds = {f.kind for f in model.findings}
    assert {"late-response", "duplicate-execution-risk", "retry", "escalation",
            "unterminated"} <= kinds
