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
