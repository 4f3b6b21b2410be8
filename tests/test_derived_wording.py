"""The derived-events diagnostic every report of an imported recording carries reads as a
sentence: '1 operation was derived', '4 operations were derived', not 'operation(s)'."""

from __future__ import annotations

from pathlib import Path

from viewer.pipeline import open_model

AGENTS = Path(__file__).resolve().parent / "fixtures" / "agents"


def _message(path: Path) -> str:
    m = open_model(str(path))
    return next(d.message for d in m.diagnostics if d.code == "derived-events")


def test_one_operation() -> None:
    msg = _message(AGENTS / "copilot-cli" / "agent-sessions__copilot_events.jsonl")
    assert ": 1 operation was derived from it by " in msg, msg


def test_several_operations() -> None:
    msg = _message(AGENTS / "codex-rollout" / "agent-history__codex_with_escalation.jsonl")
    assert ": 4 operations were derived from it by " in msg, msg


def test_none() -> None:
    msg = _message(AGENTS / "invariant-trace" / "explorer__with_annotations.jsonl")
    assert ": 0 operations were derived from it by " in msg, msg
