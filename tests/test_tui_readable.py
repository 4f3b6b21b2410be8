"""Pilot tests: what a screen cuts to fit one line can still be read whole on that screen, and
what a row must say is not the part cut at 80 columns."""

from __future__ import annotations

import re
from pathlib import Path

from test_tui_keys import screen_text

from viewer.model.build import build_model
from viewer.pipeline import open_path
from viewer.tui.app import make_app
from viewer.tui.context import ContextScreen
from viewer.tui.detail import DetailScreen
from viewer.tui.findings import FindingsScreen

ROOT = Path(__file__).resolve().parent.parent
TOUR = ROOT / "demo_vcons" / "tour.vcon.json"
NARROW = (80, 24)


def tour_app():
    return make_app(str(TOUR), model=build_model(open_path(str(TOUR))))


def flat(text: str) -> str:
    return re.sub(r"\s+", " ", text)


async def test_findings_screen_shows_the_highlighted_finding_whole_at_80_columns() -> None:
    app = tour_app()
    async with app.run_test(size=NARROW) as pilot:
        await pilot.pause()
        await pilot.press("f")
        await pilot.pause()
        assert isinstance(app.screen, FindingsScreen)
        model = app.model
        top = next(f for f in model.findings if f.severity == "error")  # the list's first
        assert len(top.message) > 60  # wider than its column at 80
        assert flat(top.message) in flat(screen_text(app))
        await pilot.press("j")  # the next one is said in turn
        await pilot.pause()
        nxt = next(f for f in model.findings if f.severity == "warning")
        assert flat(nxt.message) in flat(screen_text(app))
        assert flat(top.message) not in flat(screen_text(app))


async def test_context_screen_shows_the_highlighted_turn_whole_at_80_columns() -> None:
    app = tour_app()
    async with app.run_test(size=NARROW) as pilot:
        await pilot.pause()
        await pilot.press("c")
        await pilot.pause()
        assert isinstance(app.screen, ContextScreen)
        rl = app.screen.query_one("#context")
        bodies = [d.get("body") for d in app.model.dialog]
        long = next(b for b in bodies if len(b) > 80)  # wider than the screen
        assert flat(long) not in flat(screen_text(app))  # cut on its row
        for _ in range(rl.count):
            if flat(long) in flat(screen_text(app)):
                break
            await pilot.press("j")
            await pilot.pause()
        assert flat(long) in flat(screen_text(app))


async def test_detail_flags_are_not_cut_at_80_columns() -> None:
    """The late result of op-03f1 attempt 1: its row says "late" and its event number."""
    app = tour_app()
    async with app.run_test(size=NARROW) as pilot:
        await pilot.pause()
        app.select_operation(app.model.by_operation["op-03f1"])
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, DetailScreen)
        op = app.operation
        late = [i for i in op.attempts[0].events if app.model.events[i].type == "tool-result"]
        text = screen_text(app)
        assert "late…" not in text and re.search(r"\blate\b", text)
        assert f"#{late[0]}" in text  # the row ends whole, its event number on it


AGENTS = ROOT / "tests" / "fixtures" / "agents"
HOOKS = AGENTS / "claude-code-hooks" / "quantstats__pre_tool_use.json"
INVARIANT = AGENTS / "invariant-trace" / "explorer__trace_for_analysis.jsonl"


def app_of(path: Path):
    return make_app(str(path), model=build_model(open_path(str(path))))


async def test_order_only_times_are_not_shown_as_durations() -> None:
    """A hook log has no times: its events are 1 ms apart in the import, to keep their order.
    The ruler, the start column and the detail count steps, never "+0.005s"; `t` says why it
    has no other mode."""
    app = app_of(HOOKS)
    async with app.run_test(size=(200, 50), notifications=True) as pilot:
        await pilot.pause()
        assert app.model.derivation.times == "order-only"
        text = screen_text(app)
        assert "times are order only" in text
        assert not re.search(r"\+\d+\.\d+s", text), text  # no seconds anywhere
        assert "step 5" in text  # the ruler and the start column count steps
        await pilot.press("t")
        await pilot.pause()
        assert not re.search(r"\d\d:\d\d:\d\d", screen_text(app))  # not a time of day
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, DetailScreen)
        assert not re.search(r"\+\d+\.\d+s", screen_text(app))


async def test_order_only_detail_has_no_delta() -> None:
    app = app_of(INVARIANT)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        text = screen_text(app)
        assert isinstance(app.screen, DetailScreen)
        assert not re.search(r"\+\d+\.\d+s", text), text


async def test_palette_puts_the_operation_whose_id_starts_so_first() -> None:
    """`op-07` in the palette goes to op-07aa, not to op-01a7 (a fuzzy match of o, p, -, 0, 7
    that outscored the id)."""
    app = tour_app()
    async with app.run_test(size=(120, 32)) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+p", *"op-07")
        await pilot.pause(0.6)
        await pilot.press("enter")
        await pilot.pause()
        assert app.operation.operation_id == "op-07aa"


async def test_palette_puts_a_target_that_holds_the_text_before_fuzzy_matches() -> None:
    app = tour_app()
    async with app.run_test(size=(120, 32)) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+p", *"close_account")
        await pilot.pause(0.6)
        await pilot.press("enter")
        await pilot.pause()
        assert app.operation.operation_id == "op-11e2"


async def test_pane_of_an_operation_never_run_says_its_decision_and_reason() -> None:
    """op-0002 of the Codex escalation sample: the escalation the user never granted. The pane
    under the list says the decision and its recorded reason, not only "no attempt"."""
    path = AGENTS / "codex-rollout" / "agent-history__codex_with_escalation.jsonl"
    app = app_of(path)
    async with app.run_test(size=(160, 40)) as pilot:
        await pilot.pause()
        app.select_operation(app.model.by_operation["op-0002"])
        await pilot.pause()
        op = app.operation
        assert not op.attempts and op.decision == "permission-required"
        reason = app.model.events[op.decision_event].raw["reason"]
        pane = flat(str(app.screen.query_one("DetailPane").render()))
        assert "permission-required" in pane and flat(reason)[:60] in pane, pane


async def test_detail_shows_a_multi_line_string_of_the_content_as_text() -> None:
    """A Bash failure in a Claude Code transcript: its output is one JSON string of many lines.
    The detail shows it with its line breaks too, not only as "\\n" inside the JSON."""
    path = AGENTS / "claude-code-transcript" / "dmux__logs_chat.json"
    app = app_of(path)
    async with app.run_test(size=(160, 60)) as pilot:
        await pilot.pause()
        app.select_operation(app.model.by_operation["op-0039"])
        await pilot.pause()
        await pilot.press("enter", "l")
        await pilot.pause()
        assert isinstance(app.screen, DetailScreen)
        text = screen_text(app)
        assert "/content as text" in text, text
        assert re.search(r"(?<!\\n)\s+Node\.js v22\.19\.0", text)  # a line of its own


def test_a_time_past_an_hour_keeps_its_seconds() -> None:
    """Two events of a long session at +2h30m10s and +2h33m46s read as +2h30m and +2h33m."""
    from viewer.tui.present import fmt_delta

    assert fmt_delta(2 * 3600 + 30 * 60 + 10.4) == "+2h30m10s"
    assert fmt_delta(-(3600 + 5)) == "-1h00m05s"
    assert fmt_delta(59 * 60 + 59.94) == "+59m59.9s"


def _imported(tmp_path: Path, fmt: str, src: Path) -> Path:
    import subprocess
    import sys

    out = tmp_path / "imported.vcon.json"
    subprocess.run([sys.executable, "-m", "viewer", "import", fmt, str(src), "-o", str(out)],
                   check=True, capture_output=True, cwd=ROOT)
    return out


async def test_an_imported_vcon_whose_times_give_the_order_only_says_so(tmp_path: Path) -> None:
    """`vcon-view import` wrote the hook log as a vCon, its provenance saying the times are
    synthetic: opened later, it reads as the hook log did (steps, and the header says why),
    not as milliseconds in 1970."""
    path = _imported(tmp_path, "claude-code", HOOKS)
    app = app_of(path)
    async with app.run_test(size=(200, 50)) as pilot:
        await pilot.pause()
        assert app.model.derivation is None  # the file's own events
        text = screen_text(app)
        assert "times are order only" in text
        assert not re.search(r"\+\d+\.\d+s", text), text
        assert "step 5" in text


async def test_a_provenance_claim_the_times_do_not_bear_out_is_not_followed(
        tmp_path: Path) -> None:
    """A provenance saying "order-only" over times that are not the importer's synthetic
    clock (from the epoch, 1 ms apart) changes nothing: the recorded times are shown."""
    import json

    path = _imported(tmp_path, "claude-code", HOOKS)
    v = json.loads(path.read_text())
    for i, ev in enumerate(v["events"]):
        ev["time"] = f"2026-04-02T09:00:{i:02d}.000Z"
    path.write_text(json.dumps(v))
    app = app_of(path)
    async with app.run_test(size=(200, 50)) as pilot:
        await pilot.pause()
        text = screen_text(app)
        assert "step 5" not in text and "+5s" in text.replace("+5.0s", "+5s"), text


async def test_the_header_is_compact_at_80_columns_so_the_list_keeps_its_rows() -> None:
    """At 80 columns the header said the uuid whole, the extensions, "error warning info" and
    "time … zoom" in words, over four lines (six for an imported vCon): two rows of the list
    at 24 lines went to it. Still said: the file, the form, the start of the uuid, every count,
    the time mode and the zoom."""
    app = tour_app()
    async with app.run_test(size=NARROW) as pilot:
        await pilot.pause()
        head = app.screen.query_one("#info-header")
        assert head.size.height == 2, str(head.render())
        text = str(head.render())
        for said in ("tour.vcon.json", "unsigned", "uuid 5a2f0909", "12 operations",
                     "✗1", "⚠7", "i5", "diagnostics 0", "relative", "×1"):
            assert said in text, (said, text)
        await pilot.resize_terminal(160, 40)  # wide again: the words come back
        await pilot.pause()
        assert "extensions: tool-invocation" in str(head.render())
        assert "warning" in str(head.render())


async def test_context_shows_the_highlighted_turn_with_its_line_breaks() -> None:
    """A turn of several paragraphs reads as paragraphs under the list, not joined by ⏎."""
    path = AGENTS / "claude-code-transcript" / "spotter__subagent.jsonl"
    app = app_of(path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("c")
        await pilot.pause()
        rl = app.screen.query_one("#context")
        whole = app.screen.query_one("#context-whole")
        rl.move_to(0)
        for _ in range(rl.count):
            if "Key findings:" in str(whole.render()):
                break
            await pilot.press("j")
            await pilot.pause()
        shown = str(whole.render())
        assert "Key findings:" in shown and "⏎" not in shown, shown
        assert "\nKey findings:" in shown or "Key findings:\n" in shown


async def test_enter_on_a_turn_in_the_context_shows_all_of_it() -> None:
    """Under the list a turn is cut to the room there is; enter on it shows all of it, to
    scroll, and escape comes back to the same line."""
    from viewer.tui.context import TurnScreen

    path = AGENTS / "claude-code-transcript" / "spotter__subagent.jsonl"
    app = app_of(path)
    async with app.run_test(size=(100, 24)) as pilot:
        await pilot.pause()
        await pilot.press("c")
        await pilot.pause()
        rl = app.screen.query_one("#context")
        last = max(i for i in range(rl.count) if app.screen.rows[i][2] == "dialog")
        rl.move_to(last)  # the final report: many lines
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, TurnScreen)
        body = app.model.dialog[app.screen_stack[-2].rows[last][3]]["body"]
        tail = body.strip().splitlines()[-1].strip()
        await pilot.press("end")
        await pilot.pause()
        assert flat(tail)[:40] in flat(screen_text(app))
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, ContextScreen)
        assert app.screen.query_one("#context").cursor == last
