"""The context screen's transcript: dialog turns, core events and operations by instant."""

from __future__ import annotations

from modelkit import model_of, tool

from viewer.tui.context import transcript


def test_transcript_orders_by_instant_with_offsets() -> None:
    """A turn at 10:00+01:00 (09:00Z) comes before an operation at 09:00:30Z; the offset was
    dropped before and the turn was listed after it."""
    dialog = [
        {"type": "text", "start": "2026-03-01T10:00:00+01:00", "parties": [0, 1], "body": "a",
         "encoding": "none", "mediatype": "text/plain"},
        {"type": "text", "start": "2026-03-01T09:01:00Z", "parties": [0, 1], "body": "b",
         "encoding": "none", "mediatype": "text/plain"},
        {"type": "text", "parties": [0, 1], "body": "untimed", "encoding": "none",
         "mediatype": "text/plain"},
    ]
    m = model_of([tool("tool-invocation", 30), tool("tool-result", 31)], dialog=dialog)
    rows = transcript(m)
    assert [(kind, i) for _, _, kind, i in rows] == [
        ("dialog", 0), ("operation", 0), ("dialog", 1), ("dialog", 2)]


def _turn(speaker: int, listener: int, body: str, second: int) -> dict[str, object]:
    return {"type": "text", "start": f"2026-03-01T09:00:{second:02d}Z",
            "parties": [speaker, listener], "body": body, "encoding": "none",
            "mediatype": "text/plain"}


def test_a_turn_to_one_of_several_agents_names_the_agent() -> None:
    """With several agents (sub-agents, the traces of an Invariant file), "user: ..." alone does
    not say which agent was asked: the line names the listener. With one agent it is plain."""
    from viewer.tui.context import context_line

    agents = [{"name": "trace 1 alpha", "role": "agent"}, {"name": "trace 2 beta", "role": "agent"},
              {"name": "user", "role": "user"}]
    dialog = [_turn(2, 0, "first ask", 1), _turn(0, 2, "first answer", 2),
              _turn(2, 1, "second ask", 3), _turn(1, 0, "hand-off", 4)]
    m = model_of([tool("tool-invocation", 30), tool("tool-result", 31)], dialog=dialog,
                 parties=agents)
    lines = {str(context_line(m, r, "relative", None)).split(" ", 1)[1].strip()
             for r in transcript(m) if r[2] == "dialog"}
    assert lines == {"» 2 user (user) → 0 trace 1 alpha (agent): first ask",
                     "» 0 trace 1 alpha (agent): first answer",
                     "» 2 user (user) → 1 trace 2 beta (agent): second ask",
                     "» 1 trace 2 beta (agent) → 0 trace 1 alpha (agent): hand-off"}

    one = model_of([tool("tool-invocation", 30)], dialog=[_turn(1, 0, "ask", 1)],
                   parties=[{"name": "agent", "role": "agent"}, {"name": "user", "role": "user"}])
    (row,) = [r for r in transcript(one) if r[2] == "dialog"]
    assert str(context_line(one, row, "relative", None)).rstrip().endswith(
        "» 1 user (user): ask")

    # A main agent and its sub-agent: the user only ever asks the main one, so the user's
    # turns stay plain; the hand-off between the agents names both.
    sub = model_of([tool("tool-invocation", 30)],
                   dialog=[_turn(2, 0, "ask", 1), _turn(0, 1, "delegate", 2)], parties=agents)
    lines = {str(context_line(sub, r, "relative", None)).split(" ", 1)[1].strip()
             for r in transcript(sub) if r[2] == "dialog"}
    assert lines == {"» 2 user (user): ask",
                     "» 0 trace 1 alpha (agent) → 1 trace 2 beta (agent): delegate"}
