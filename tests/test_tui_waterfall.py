"""Issue 13, the main screen as a waterfall: the row layout as pure functions (no App), then
the screen driven with Pilot (bars by state, sub-lanes, nothing hidden, the detail pane,
parties)."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from test_tui_support import model_of

from viewer.tui import palette as P
from viewer.tui.app import make_app
from viewer.tui.filter import parse_filter
from viewer.tui.lanes import Axis, lane_layers
from viewer.tui.pane import DetailPane
from viewer.tui.rows import (
    COLUMN_KEYS,
    FOLD_OVER,
    HIDEABLE,
    RowPlan,
    columns,
    default_expanded,
    flag_glyph,
    target_label,
)
from viewer.tui.timeline import StatusLine, TimelineView

DEMOS = Path(__file__).resolve().parent.parent / "demo_vcons"
TOUR = DEMOS / "tour.vcon.json"
SUBAGENT = DEMOS / "13-subagent-delegation.vcon.json"


# --- the layout, pure ------------------------------------------------------------------------
@pytest.mark.parametrize("width", [120, 130, 160, 200, 300])
def test_the_time_axis_gets_at_least_60_percent_from_120_columns(width: int) -> None:
    for id_len in (None, 7, 40):
        cols = columns(width, id_len=id_len)
        assert cols.lane_w >= 0.6 * width, (width, id_len, cols)
        assert cols.lane_x + cols.lane_w == width


@pytest.mark.parametrize("width", [80, 100, 119])
def test_below_120_columns_the_axis_gets_45_percent(width: int) -> None:
    cols = columns(width)
    assert cols.lane_w >= 0.45 * width
    assert cols.lane_x + cols.lane_w == width


def test_a_scrollbar_takes_its_cells_from_the_table_not_the_axis() -> None:
    assert columns(118, full=120).lane_w >= 0.6 * 120
    assert columns(118).lane_w < columns(118, full=120).lane_w


def test_every_column_but_the_id_can_be_hidden_by_keys_1_to_8() -> None:
    assert "id" not in HIDEABLE
    assert sorted(COLUMN_KEYS) == [str(i) for i in range(1, 9)]
    everything = columns(200, hidden=HIDEABLE)
    assert (everything.party_w, everything.target_w, everything.time_w, everything.decision_w,
            everything.attempts_w, everything.outcome_w, everything.flags_w) == (0,) * 7
    assert everything.id_w > 0 and not everything.gap
    assert everything.lane_w > columns(200).lane_w
    assert columns(200, hidden={"target"}).target_w == 0
    assert columns(200, parties=False).party_w == 0  # no sub-agent: no empty column


def test_the_target_is_said_once_per_run_of_the_same_server() -> None:
    model = model_of(TOUR)
    ops = {op.operation_id: op for op in model.operations}
    assert target_label(ops["op-01a7"], None) == "lookup_order @ mcp.shop.example/mcp"
    assert target_label(ops["op-02c4"], ops["op-01a7"]) == "│ update_address"
    assert target_label(ops["op-06d3"], ops["op-05e9"]).endswith("@ crm.example.com/mcp")


def test_flags_fold_into_a_glyph_column_of_whole_labels() -> None:
    order, short = P.FLAG_ORDER, P.FLAG_SHORT
    assert flag_glyph({"policy-violation", "late-response"}, order, short) == "viol+ "
    assert flag_glyph({"late-response"}, order, short) == "late  "
    assert flag_glyph({"unterminated", "late-response"}, order, short) == "late+ "
    assert flag_glyph({"decision-after-invocation", "retry"}, order, short) == "dlate "
    assert flag_glyph({"out-of-model", "unterminated"}, order, short) == "stray+"
    assert flag_glyph(set(), order, short) == "      "
    # where the layout has no sixth cell, a five-cell label stays whole and drops the "+"
    assert flag_glyph({"out-of-model", "unterminated"}, order, short, 5) == "stray"
    assert flag_glyph({"late-response", "unterminated"}, order, short, 5) == "late+"


def test_sub_lanes_by_default_for_retried_operations_with_findings() -> None:
    model = model_of(TOUR)
    ids = [model.operations[i].operation_id for i in default_expanded(model.operations)]
    assert ids == ["op-03f1", "op-06d3"]  # the retry after a timeout, the escalation
    assert FOLD_OVER == 12


def test_row_plan_maps_rows_to_operations_and_sub_lanes() -> None:
    shown = [0, 2, 3, 5, 8]
    plan = RowPlan(shown, [2, 5, 7], lambda i: {2: 2, 5: 3, 7: 4}[i])
    assert len(plan) == 5 + 2 + 3
    rows = [plan.at(r) for r in range(len(plan))]
    assert rows == [(0, -1), (1, -1), (1, 0), (1, 1), (2, -1), (3, -1), (3, 0), (3, 1), (3, 2),
                    (4, -1)]
    for row, (pos, sub) in enumerate(rows):
        assert plan.row_of(pos, sub) == row
    assert plan.is_expanded(1) and not plan.is_expanded(2)
    assert plan.row_of(3, 99) == 8  # an attempt past the last: its last sub-lane


def _lane(model, op_id: str, w: int = 200, only: int | None = None, error: bool = False):
    op = next(o for o in model.operations if o.operation_id == op_id)
    return lane_layers(model, op, Axis(model), w, only, error)


def test_each_attempt_is_a_bar_drawn_by_state() -> None:
    model = model_of(TOUR)
    assert P.STATE_BAR["Running"] in _lane(model, "op-03f1").plain  # ━
    assert P.STATE_BAR["Pending"] in _lane(model, "op-04b2").plain  # ┈
    assert P.STATE_BAR["Input Required"] in _lane(model, "op-02c4").plain  # ═
    assert P.STATE_BAR["Cancel Requested"] in _lane(model, "op-08c0").plain  # ╍


def test_a_late_response_is_joined_past_the_timeout_by_a_connector() -> None:
    model = model_of(TOUR)
    first = _lane(model, "op-03f1", only=0).plain.strip()
    assert "◌" in first and first.endswith("✓")
    assert P.LATE_CONNECTOR in first[first.index("◌"):]
    second = _lane(model, "op-03f1", only=1).plain.strip()
    assert "◌" not in second and P.LATE_CONNECTOR not in second  # attempt 2 alone


def test_the_standing_decision_sits_before_the_first_bar() -> None:
    model = model_of(TOUR)
    lane = _lane(model, "op-01a7").plain  # governed by a standing allow: no event of its own
    assert P.DECISION_GLYPH["allowed"] + "▶" in lane


def test_an_error_colours_its_lanes_bars() -> None:
    model = model_of(TOUR)
    loud = P.style("lane:error").color
    lane = _lane(model, "op-03f1", error=True)
    bars = [st for ch, st in zip(lane.chars, lane.styles, strict=True) if ch == "━"]
    assert bars and all(st.color == loud for st in bars)
    quiet = _lane(model, "op-03f1")
    assert all(st.color != loud for ch, st in zip(quiet.chars, quiet.styles, strict=True)
               if ch == "━")


def test_party_filter_term() -> None:
    assert parse_filter("party:researcher").parties == ("researcher",)


# --- the screen ------------------------------------------------------------------------------
async def _ready(app, pilot) -> TimelineView:
    await app.workers.wait_for_complete()
    await pilot.pause()
    return app.screen.query_one(TimelineView)


def _rows(view: TimelineView) -> list[str]:
    width = view.scrollable_content_region.width
    return [view.render_line(y).text[:width] for y in range(view.size.height)]


def _row(view: TimelineView, op_id: str) -> str:
    return next(t for t in _rows(view) if t[1:].startswith(op_id))


async def test_wide_screen_is_a_waterfall() -> None:
    app = make_app(str(TOUR))
    async with app.run_test(size=(120, 30)) as pilot:
        view = await _ready(app, pilot)
        cols = view.columns(view.lane_width())
        assert cols.lane_w >= 0.6 * 120
        assert "lookup_order" in _row(view, "op-01a7")
        assert "│ issue_refund" in _row(view, "op-03f1")  # the server is not repeated
        assert "late+" in _row(view, "op-03f1")
        rows = _rows(view)
        assert any("└ #2 0.5s after #1" in r for r in rows)  # the retry's gap, on its sub-lane
        assert any("└ #2 7.5s after #1" in r for r in rows)  # the escalation's
        status = app.screen.query_one(StatusLine)
        await pilot.press("j", "j")
        assert "late" in str(status.render()) and "duplicate" in str(status.render())


async def test_space_folds_and_unfolds_the_sub_lanes() -> None:
    app = make_app(str(TOUR), goto="op-03f1")
    async with app.run_test(size=(120, 30)) as pilot:
        view = await _ready(app, pilot)
        before = len(view.plan)
        assert view.is_expanded()
        await pilot.press("space")
        await pilot.pause()
        assert len(view.plan) == before - 2 and not view.is_expanded()
        assert not any("└ #2 0.5s" in r for r in _rows(view))
        await pilot.press("space")
        await pilot.pause()
        assert len(view.plan) == before
        await pilot.press("l")  # the second attempt: its sub-lane is the selected row
        await pilot.pause()
        band = P.style("selected-row").bgcolor
        sub = next(y for y in range(view.size.height)
                   if "└ #2 0.5s" in view.render_line(y).text)
        assert list(view.render_line(sub))[-1].style.bgcolor == band


async def test_keys_hide_columns_and_say_so() -> None:
    app = make_app(str(TOUR))
    async with app.run_test(size=(120, 30)) as pilot:
        view = await _ready(app, pilot)
        key = next(k for k, n in COLUMN_KEYS.items() if n == "target")
        await pilot.press(key)
        await pilot.pause()
        assert "lookup_order" not in _row(view, "op-01a7")
        assert view.columns(view.lane_width()).target_w == 0
        assert "column target hidden" in str(app.screen.query_one(StatusLine).render())
        await pilot.press(key)
        await pilot.pause()
        assert "lookup_order" in _row(view, "op-01a7")


async def test_the_selected_row_has_a_full_width_band() -> None:
    app = make_app(str(TOUR))
    async with app.run_test(size=(120, 30)) as pilot:
        view = await _ready(app, pilot)
        band = P.style("selected-row").bgcolor
        assert band is not None
        y = next(y for y in range(view.size.height) if view.render_line(y).text.startswith("›"))
        strip = view.render_line(y)
        assert strip.cell_length == view.lane_width()
        assert all(seg.style.bgcolor == band for seg in strip if not seg.style.reverse)
        assert list(view.render_line(y + 1))[-1].style.bgcolor != band


async def test_selected_and_late_differ_without_colour(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 13: the selected attempt was bold-underlined, like a late response. Selected is
    bold reverse, late is underline: attributes, so they differ under NO_COLOR too."""
    monkeypatch.setenv("NO_COLOR", "1")
    app = make_app(str(TOUR), goto="op-03f1")
    async with app.run_test(size=(120, 30)) as pilot:
        view = await _ready(app, pilot)
        assert app.no_color
        await pilot.press("l")  # attempt 2 selected; attempt 1's late ✓ is not
        await pilot.pause()
        y = next(y for y in range(view.size.height) if view.render_line(y).text.startswith("›"))
        cells = [(seg.text, seg.style) for seg in view.render_line(y) if seg.text.strip()]
        late = [st for text, st in cells if "✓" in text and st.underline]
        selected = [st for text, st in cells if st.bold and st.reverse and "▶" in text]
        assert late and all(not st.reverse for st in late)
        assert selected and all(not st.underline for st in selected)


async def test_scrolled_narrow_list_keeps_the_last_cells() -> None:
    app = make_app(str(TOUR))
    async with app.run_test(size=(80, 24)) as pilot:
        view = await _ready(app, pilot)
        await pilot.press("G")
        await pilot.pause()
        assert view.show_vertical_scrollbar and view.scroll_offset.y > 0
        lane_x = view.columns(view.lane_width()).lane_x
        assert "▶" in _row(view, "op-12d6")[lane_x:]
        assert "◆" in _row(view, "op-11e2")[lane_x:]


async def test_errors_are_loudest() -> None:
    app = make_app(str(TOUR))
    async with app.run_test(size=(120, 30)) as pilot:
        view = await _ready(app, pilot)
        y = next(y for y in range(view.size.height) if "op-07aa" in view.render_line(y).text)
        ident = next(seg for seg in view.render_line(y) if "op-07aa" in seg.text)
        assert ident.style.color == P.style("severity:error").color
        y = next(y for y in range(view.size.height) if "op-08c0" in view.render_line(y).text)
        ident = next(seg for seg in view.render_line(y) if "op-08c0" in seg.text)
        assert ident.style.color == P.style("severity:warning").color


async def test_detail_pane_under_the_timeline() -> None:
    app = make_app(str(TOUR), goto="op-03f1")
    async with app.run_test(size=(120, 40)) as pilot:
        await _ready(app, pilot)
        pane = app.screen.query_one(DetailPane)
        assert pane.display
        text = str(pane.render())
        assert "attempt 1" in text and "start → Running" in text and "Timed Out" in text
        await pilot.press("l")
        await pilot.pause()
        assert "attempt 2" in str(pane.render())
    app = make_app(str(TOUR))
    async with app.run_test(size=(120, 24)) as pilot:
        await _ready(app, pilot)
        pane = app.screen.query_one(DetailPane)
        assert pane.display and "start → Running" in str(pane.render())  # smaller
        assert pane.size.height < 7
    app = make_app(str(TOUR))
    async with app.run_test(size=(120, 20)) as pilot:
        await _ready(app, pilot)
        assert not app.screen.query_one(DetailPane).display  # a short terminal: rows first


async def test_a_sub_agents_operations_are_marked_and_filterable() -> None:
    app = make_app(str(SUBAGENT))
    async with app.run_test(size=(120, 30)) as pilot:
        view = await _ready(app, pilot)
        cols = view.columns(view.lane_width())
        assert cols.party_w == 1
        at = 1 + cols.id_w + 1
        assert _row(view, "op-s001")[at] == P.PARTY_GLYPH
        assert _row(view, "op-p001")[at] == " "
        assert app.apply_filter("party:researcher") is None
        await app.workers.wait_for_complete()
        await pilot.pause()
        model = app.model
        assert model is not None
        assert [model.operations[i].operation_id for i in app.shown] == ["op-s001", "op-s002"]


async def test_clicking_a_sub_lane_selects_its_attempt() -> None:
    app = make_app(str(TOUR))
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _ready(app, pilot)
        y = next(y for y in range(view.size.height) if "└ #2 0.5s" in view.render_line(y).text)
        await pilot.click(TimelineView, offset=(3, y))
        await pilot.pause()
        assert app.operation is not None and app.operation.operation_id == "op-03f1"
        assert app.attempt_sel == 1


async def test_key_8_hides_the_gap_labels() -> None:
    app = make_app(str(TOUR))
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _ready(app, pilot)
        assert COLUMN_KEYS["8"] == "gap"
        await pilot.press("8")
        await pilot.pause()
        rows = _rows(view)
        assert any(r.strip() == "└ #2" or r.lstrip().startswith("└ #2  ") for r in rows)
        assert not any("after #1" in r for r in rows)


async def test_one_origin_for_relative_times_when_the_dialog_starts_first(tmp_path: Path) -> None:
    """An audit found op-0011 at +3m24.7s in the list and +3m19.7s in its detail: the list
    measured from the dialog's start, the detail from the first event. One origin now."""
    from modelkit import t, tool, vcon

    events = [tool("tool-invocation", 10, op="op-1"), tool("tool-result", 11, op="op-1"),
              tool("tool-invocation", 200, op="op-2"), tool("tool-result", 204.7, op="op-2")]
    dialog = [{"type": "text", "start": t(-5), "parties": [0], "mediatype": "text/plain",
               "body": "please look it up", "encoding": "none"}]
    path = tmp_path / "dialog-first.vcon.json"
    path.write_bytes(orjson.dumps(vcon(events, dialog=dialog)))
    app = make_app(str(path))
    async with app.run_test(size=(200, 30)) as pilot:
        view = await _ready(app, pilot)
        assert "+3m25.0s" in _row(view, "op-2")  # 205 s after the dialog's first turn
        assert view.axis is not None and app.t0 == view.axis.t0
        await pilot.press("down", "enter")
        await pilot.pause()
        events_text = app.screen.query_one("#events").render()
        assert "+3m25.0s" in str(events_text)
        assert "+3m20.0s" not in str(events_text)


async def test_time_mode_and_zoom_back_redraw_rows_not_lanes(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """`t` changes the start column and the ruler, not a lane; zooming back to a window
    already drawn reuses its lanes: a key at 100k operations redraws only what changed.
    A theme change draws them again (new colours)."""
    from viewer.tui import lanes

    drawn: list[str] = []
    real = lanes.lane_layers

    def counting(model, op, *args, **kwargs):
        drawn.append(op.operation_id)
        return real(model, op, *args, **kwargs)

    monkeypatch.setattr(lanes, "lane_layers", counting)
    app = make_app(str(TOUR))
    async with app.run_test(size=(160, 40)) as pilot:
        view = await _ready(app, pilot)
        assert drawn  # the first paint draws every visible lane
        before = _rows(view)
        drawn.clear()
        await pilot.press("t", "t")
        await pilot.pause()
        assert app.time_mode == "absolute" and _rows(view) != before  # the ruler's times
        assert drawn == []
        await pilot.press("t", "plus")
        await pilot.pause()
        assert drawn  # a new window: its lanes are drawn
        drawn.clear()
        await pilot.press("minus")
        await pilot.pause()
        assert drawn == [] and _rows(view) == before
        app.theme = "vcon-light"
        await pilot.pause()
        assert drawn


async def test_the_pane_says_what_each_call_asked_and_got() -> None:
    """The pane under the timeline shows, beside each event, what it carried, on one line: the
    arguments of an invocation (an MCP call's params.arguments, not its envelope) and the
    words of a result, so a reviewer scanning the operations reads what ran without enter.
    Written by hand from the tour: op-03f1's attempt 1 refunds order 48213 and times out,
    attempt 2's result is 'Refund R-7781 issued: GBP 42.50'."""
    app = make_app(str(TOUR), goto="op-03f1")
    async with app.run_test(size=(160, 40)) as pilot:
        await _ready(app, pilot)
        pane = app.screen.query_one(DetailPane)
        text = str(pane.render())
        assert '{"order_id":"48213","amount":"42.50"' in text and '"jsonrpc"' not in text
        await pilot.press("l")
        await pilot.pause()
        assert "Refund R-7781 issued: GBP 42.50" in str(pane.render())
