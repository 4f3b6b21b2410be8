"""What a sub-agent's operation was acting on is the prompt its launcher gave it, not the
user's prompt to the lead agent.

The Claude Code importer writes a Task's prompt as a dialog turn from the lead agent (role
"agent") to the sub-agent. The turn before an operation skips turns said by an agent (the
lead's narration is not what it was asked), so every operation of a sub-agent quoted the
user's first prompt to the lead instead: in demo 15 (a real session with a sub-agent,
``tests/fixtures/agents/claude-code-transcript/spotter__subagent.jsonl``) the sub-agent's
``Read`` of op-0011 said the user asked "/handgemacht:create-beads websearch ..." rather than
"Draft bead content ...", the Task prompt.
"""

from __future__ import annotations

from reportkit import demo, opts

from viewer.content import turn_before
from viewer.parties import lead_party, op_party
from viewer.report.evidence import operation_evidence
from viewer.report.markdown import to_markdown
from viewer.tui.present import said_before

CLAUDE = "15-claude-code.vcon.json"


def _ops() -> tuple[object, dict[str, object]]:
    m = demo(CLAUDE)
    return m, {op.operation_id: op for op in m.operations}


def test_a_subagents_operation_quotes_its_task_prompt() -> None:
    m, ops = _ops()
    lead = lead_party(m)
    sub = ops["op-0011"]
    assert op_party(m, sub) != lead  # the sub-agent's Read
    turn = operation_evidence(m, sub, 11, (), opts()).turn
    assert turn is not None and turn.text.startswith("Draft bead content"), turn
    assert said_before(m, sub.first_time, op_party(m, sub)).split(": ", 1)[1].startswith(
        "Draft bead content")
    md = to_markdown(m, None, opts(evidence="all"))
    section = md.split("**op-0011**", 1)[1].split("\n### ", 1)[0]
    assert "Draft bead content" in section and "create-beads" not in section, section


def test_the_lead_agents_operations_still_quote_the_user() -> None:
    m, ops = _ops()
    for op_id in ("op-0010", "op-0020"):  # the Task call itself, and the lead after it
        op = ops[op_id]
        assert op_party(m, op) == lead_party(m)
        turn = operation_evidence(m, op, 1, (), opts()).turn
        assert turn is not None and "create-beads" in turn.text, (op_id, turn)


def test_a_party_no_turn_is_addressed_to_falls_back_to_the_rule_for_all() -> None:
    m, ops = _ops()
    t = ops["op-0011"].first_time
    assert turn_before(m, t, party=99) == turn_before(m, t)
