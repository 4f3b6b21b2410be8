"""The lane layout as pure functions (viewer/tui/lanes.py): no App, no widget."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from itertools import pairwise

from hypothesis import given
from hypothesis import strategies as st
from modelkit import model_of, once, standing, tool

from viewer.tui import palette as P
from viewer.tui.lanes import (
    Axis,
    lane_layers,
    place_marks,
    point_lane,
    relative_label,
    ruler_cells,
    ruler_date,
    ticks,
)


def _place(marks, w, nudge=2):
    """place_marks on (x, precedence, mark), keyed by their order."""
    return place_marks([(i, x, p, m) for i, (x, p, m) in enumerate(marks)], w, nudge=nudge)


def _shown(placed) -> list[tuple[int, str, int]]:
    return [(p.x, p.mark, p.count) for p in placed]


def test_marks_on_free_cells_stay_where_they_are() -> None:
    assert _shown(_place([(0, 0, "a"), (5, 0, "b")], 10)) == [(0, "a", 1), (5, "b", 1)]


def test_a_mark_on_a_taken_cell_is_pushed_right_within_the_nudge() -> None:
    placed = _place([(3, 2, "▶"), (3, 2, "◌"), (3, 2, "▶")], 10)
    assert _shown(placed) == [(3, "▶", 1), (4, "◌", 1), (5, "▶", 1)]


def test_marks_that_must_share_a_cell_show_the_first_by_precedence_and_a_count() -> None:
    # five progress marks and a result in one cell of a 3-cell lane: the ✓ shows, with 6
    placed = _place([(0, 2, "▶")] + [(1, 0, "·")] * 5 + [(1, 3, "✓")], 3, nudge=0)
    assert _shown(placed) == [(0, "▶", 1), (1, "✓", 6)]
    # a later progress mark does not hide the final state
    placed = _place([(0, 3, "✓"), (0, 0, "·")], 1, nudge=0)
    assert _shown(placed) == [(0, "✓", 2)]


def test_a_count_keeps_its_cells_free() -> None:
    placed = _place([(0, 0, "·"), (0, 0, "·"), (1, 3, "✓")], 10, nudge=0)
    # the ✓ at cell 1 would cover the count: it shares the cell instead (nudge 0)...
    assert _shown(placed) == [(0, "✓", 3)]
    placed = _place([(0, 0, "·"), (0, 0, "·"), (1, 3, "✓")], 10, nudge=2)
    assert _shown(placed) == [(0, "·", 1), (1, "·", 1), (2, "✓", 1)]


def test_a_count_at_the_lanes_end_moves_left_to_fit() -> None:
    placed = _place([(9, 4, "◆"), (9, 4, "◆")], 10, nudge=0)
    assert _shown(placed) == [(8, "◆", 2)]


@given(st.lists(st.tuples(st.integers(0, 19), st.integers(0, 4)), max_size=60),
       st.integers(0, 3))
def test_place_marks_keeps_order_and_counts_every_mark(raw, nudge) -> None:
    marks = [(x, p, i) for i, (x, p) in enumerate(raw)]
    placed = _place(marks, 20, nudge=nudge)
    assert sum(p.count for p in placed) == len(marks)  # nothing dropped in silence
    xs = [p.x for p in placed]
    assert xs == sorted(set(xs))
    end = -1
    for p in placed:  # no count digit under the next mark, nothing off the lane
        assert p.x > end and p.x + len(p.count_label) < 20 + (1 if p is placed[-1] else 0)
        end = p.x + len(p.count_label)


def _two_decisions_model():
    return model_of([standing(0, "allowed", "lookup"), standing(0, "disallowed", "refund"),
                     tool("tool-invocation", 0), tool("tool-result", 100)])


def test_the_standing_lane_counts_two_decisions_in_one_cell() -> None:
    m = _two_decisions_model()
    axis = Axis(m)
    points = [(sd.time, 4, P.DECISION_GLYPH.get(sd.decision, "?"), P.decision_style(sd.decision))
              for sd in m.standing]
    cells = point_lane(points, axis, 1)  # one cell: no room to push
    assert "".join(c for c, _ in cells) == "◆"
    cells = point_lane(points, axis, 40)
    lane = "".join(c for c, _ in cells)
    assert lane.startswith("◇◆")  # room to push: both shown, in order
    cells = point_lane(points * 3, axis, 3)
    assert "".join(c for c, _ in cells) == "◇◆5"  # six decisions on three cells


def test_a_lane_shows_a_cancel_and_a_failure_that_share_a_cell() -> None:
    """The imported op of the issue: `▶◷────!` where a ■ and a ✗ were."""
    m = model_of([tool("tool-invocation", 0), tool("tool-pending", 1),
                  tool("tool-cancel", 99.6), tool("tool-failure", 99.7),
                  tool("tool-error", 100)])
    axis = Axis(m)
    lane = lane_layers(m, m.operations[0], axis, 8)
    text = lane.plain
    assert text.startswith("▶◷")
    assert "3" in text  # ■, ✗ and ! share the last cells: counted, not dropped
    total = sum(int(n) for n in re.findall(r"\d+", text)) + len(re.findall(r"[▶◷■✗!]", text)) \
        - len(re.findall(r"[▶◷■✗!](?=\d)", text))
    assert total == 5


def test_a_once_decision_is_a_mark_of_its_own_before_the_invocation() -> None:
    m = model_of([once(0, "allowed"), tool("tool-invocation", 0), tool("tool-result", 10)])
    lane = lane_layers(m, m.operations[0], Axis(m), 20)
    assert lane.plain.startswith("◇▶")
    assert lane.owners[0] == -1 and lane.owners[1] == 0


def test_selection_and_lateness_look_different() -> None:
    """Late is underlined; the selected attempt is bold reverse: told apart without colour."""
    late, sel = P.style("late"), P.style("selected-attempt")
    assert late.underline and not late.reverse
    assert sel.reverse and sel.bold and not sel.underline
    m = model_of([tool("tool-invocation", 0), tool("tool-timeout", 5),
                  tool("tool-invocation", 6, attempt=2), tool("tool-result", 8, attempt=2),
                  tool("tool-result", 10)])
    lane = lane_layers(m, m.operations[0], Axis(m), 40)
    late_x = lane.plain.rindex("✓")
    assert lane.styles[late_x].underline and not lane.styles[late_x].reverse
    selected = lane.with_selection(1, sel)
    second = [x for x, o in enumerate(lane.owners) if o == 1]
    assert second and all(selected[x].reverse and not selected[x].underline for x in second)
    assert selected[late_x] == lane.styles[late_x]  # attempt 1's late ✓ is not selected


def test_ticks_fall_on_round_steps_and_the_last_label_is_not_cut() -> None:
    m = model_of([tool("tool-invocation", 0), tool("tool-result", 80.52)])
    axis = Axis(m)
    for w in (20, 37, 51, 97, 131):
        cells = ruler_cells(axis, w, absolute=False)
        labels = re.findall(r"\+[^─┬]+", cells)
        assert labels and labels[0] == "+0s"
        for label in labels:
            value = re.fullmatch(r"\+(?:(\d+)m)?(\d+)s", label)
            assert value, (w, label)  # whole seconds: no +20.130s
            secs = int(value.group(1) or 0) * 60 + int(value.group(2))
            assert any(secs % step == 0 for step in (1, 2, 5, 10, 20, 30, 60)), label
        assert len(cells) == w
        for tick in ticks(axis, w, False):
            assert tick.x + 1 + len(tick.label) <= w


def test_zoomed_ticks_keep_round_fractions() -> None:
    m = model_of([tool("tool-invocation", 0), tool("tool-result", 80.52)])
    axis = Axis(m)
    axis.set_window(64, 40.26)
    labels = [t.label for t in ticks(axis, 60, False) if t.label]
    assert labels and all(re.fullmatch(r"\+\d+\.\d+s", lab) for lab in labels), labels
    steps = {round(float(b[1:-1]) - float(a[1:-1]), 3) for a, b in pairwise(labels)}
    assert len(steps) == 1 and steps.pop() in (0.1, 0.2, 0.5, 1.0)


def test_relative_labels() -> None:
    assert relative_label(0, 20) == "+0s"
    assert relative_label(80, 20) == "+1m20s"
    assert relative_label(120, 60) == "+2m"
    assert relative_label(1.25, 0.05) == "+1.25s"
    assert relative_label(3600 * 2 + 300, 300) == "+2h05m"


def test_absolute_ticks_are_wall_clock_and_the_date_is_said_once() -> None:
    m = model_of([tool("tool-invocation", 7.3), tool("tool-result", 95)])
    axis = Axis(m)
    labels = [t.label for t in ticks(axis, 80, True) if t.label]
    assert labels and all(re.fullmatch(r"09:0\d:\d0", lab) for lab in labels), labels
    assert ruler_date(axis) == "2026-03-01 UTC"


def test_the_window_moves_with_its_centre() -> None:
    m = model_of([tool("tool-invocation", 0), tool("tool-result", 100)])
    axis = Axis(m)
    axis.set_window(4, 80)
    assert (axis.ws, axis.we) == (67.5, 92.5)
    axis.set_window(4, 99)  # kept inside the span
    assert axis.we == 100
    assert axis.t0 == datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
