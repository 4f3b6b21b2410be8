"""Issue 13, the retry in words and side by side: the detail's delta is from the previous
event of the same attempt, the gap between attempts is said, and `d` compares the tool
arguments (not the JSON-RPC envelope) and shows both attempts' results."""

from __future__ import annotations

import re
from pathlib import Path

from modelkit import model_of, tool

from viewer.tui.app import make_app
from viewer.tui.diff import DiffScreen
from viewer.tui.timeline import StatusLine

TOUR = Path(__file__).resolve().parent.parent / "demo_vcons" / "tour.vcon.json"
GAP = ("attempt 2 invoked 0.5 s after attempt 1 timed out; it had waited 15.0 s; "
       "attempt 1 answered 5.9 s after its timeout")


def _plain(widget) -> str:
    return str(widget.render())


async def test_detail_delta_is_from_the_same_attempts_previous_event() -> None:
    app = make_app(str(TOUR), goto="op-03f1")
    async with app.run_test(size=(130, 36)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("l", "enter")
        await pilot.pause()
        rows = _plain(app.screen.query_one("#events")).splitlines()
        invocation = next(r for r in rows if "tool-invocation" in r)
        result = next(r for r in rows if "tool-result" in r)
        # the attempt's first event has no delta (it was +34.642s, from the standing decision
        # at +0.055 s, which read as a 34.6 s wait)
        assert re.search(r"\+34\.697s\s+▶ tool-invocation", invocation), invocation
        assert "+1.300s" in result
        assert GAP in " ".join(_plain(app.screen.query_one("#detail-head")).split())


async def test_the_gap_between_attempts_is_on_the_main_screen() -> None:
    app = make_app(str(TOUR), goto="op-03f1")
    async with app.run_test(size=(200, 50)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("l")
        await pilot.pause()
        assert GAP in _plain(app.screen.query_one(StatusLine))


async def test_diff_compares_arguments_and_shows_both_results() -> None:
    app = make_app(str(TOUR), goto="op-03f1")
    async with app.run_test(size=(130, 36)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("l", "d")
        await pilot.pause()
        assert isinstance(app.screen, DiffScreen)
        from test_tui_keys import screen_text

        text = screen_text(app)
        assert "arguments identical" in text
        assert "JSON-RPC id 3 → 4" in text
        assert '"order_id": "48213"' in text  # the arguments are on screen
        assert "R-7779" in text and "R-7781" in text  # the duplicate refund, side by side


def test_arguments_are_params_arguments_or_the_body() -> None:
    from viewer.tui.diff import envelope_changes, split_arguments

    rpc = {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
           "params": {"name": "refund", "arguments": {"n": 1}}}
    args, where, rest = split_arguments(rpc)
    assert (args, where) == ({"n": 1}, "params.arguments")
    assert rest == {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params.name": "refund"}
    assert split_arguments({"order": 1}) == ({"order": 1}, "body", {})
    assert envelope_changes(rest, {**rest, "id": 4}) == ["JSON-RPC id 3 → 4"]
    assert envelope_changes({"a": 1}, {"a": 1}) == []


def test_gap_after_a_failure_and_while_still_running() -> None:
    from viewer.tui.present import attempt_gap

    m = model_of([tool("tool-invocation", 0), tool("tool-failure", 2),
                  tool("tool-invocation", 5, attempt=2), tool("tool-result", 6, attempt=2)])
    a, b = m.operations[0].attempts
    assert attempt_gap(m, a, b) == ("attempt 2 invoked 3.0 s after attempt 1 failed; "
                                    "it had run 2.0 s")
    m = model_of([tool("tool-invocation", 0), tool("tool-invocation", 90, attempt=2),
                  tool("tool-result", 95, attempt=2)])
    a, b = m.operations[0].attempts
    assert attempt_gap(m, a, b) == ("attempt 2 invoked 1 min 30 s after attempt 1 began, while "
                                    "it was still running")
