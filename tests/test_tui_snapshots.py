"""Snapshot tests of the TUI screens on the demo tour (pytest-textual-snapshot).

Update with ``pytest tests/test_tui_snapshots.py --snapshot-update`` after a deliberate change,
and look at the report before committing new SVGs.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_tui_support import model_of

from viewer.tui.app import make_app

TOUR = Path(__file__).resolve().parent.parent / "demo_vcons" / "tour.vcon.json"
SIZE = (130, 36)

pytestmark = pytest.mark.skipif(not TOUR.exists(), reason="demo_vcons/tour.vcon.json missing")


def tour_app():
    return make_app(str(TOUR), model=model_of(TOUR))


def test_snapshot_timeline(snap_compare) -> None:
    assert snap_compare(tour_app(), terminal_size=SIZE)


def test_snapshot_timeline_narrow(snap_compare) -> None:
    assert snap_compare(tour_app(), terminal_size=(80, 24), press=["j", "j"])


def test_snapshot_detail(snap_compare) -> None:
    assert snap_compare(tour_app(), terminal_size=SIZE, press=["j", "j", "enter", "l"])


def test_snapshot_raw(snap_compare) -> None:
    assert snap_compare(tour_app(), terminal_size=SIZE, press=["j", "j", "enter", "r"])


def test_snapshot_diff(snap_compare) -> None:
    assert snap_compare(tour_app(), terminal_size=SIZE, press=["j", "j", "l", "d"])


def test_snapshot_findings(snap_compare) -> None:
    assert snap_compare(tour_app(), terminal_size=SIZE, press=["f"])


def test_snapshot_help(snap_compare) -> None:
    assert snap_compare(tour_app(), terminal_size=SIZE, press=["question_mark"])


def test_snapshot_context(snap_compare) -> None:
    assert snap_compare(tour_app(), terminal_size=SIZE, press=["j", "j", "c"])


def test_snapshot_timeline_scrolled_120x14(snap_compare) -> None:
    """Issue 13: a scrolled list; the lanes' last cells (close_account's ◆, track_parcel's ▶)
    are left of the scrollbar."""
    assert snap_compare(tour_app(), terminal_size=(120, 14), press=["G"])


def test_snapshot_timeline_wide_zoomed_200x50(snap_compare) -> None:
    """Issue 13: 200 columns, the retry selected and zoomed: the ruler's round ticks, the gap
    between the attempts in the status line."""
    assert snap_compare(tour_app(), terminal_size=(200, 50),
                        press=["j", "j", "l", "plus", "plus"])


def test_snapshot_waterfall_80x24_scrolled(snap_compare) -> None:
    """Issue 13, the main screen as a waterfall at 80 columns with a scrolled list: the lane
    keeps 45 % of the width and its last cells left of the scrollbar; the detail pane under it."""
    assert snap_compare(tour_app(), terminal_size=(80, 24), press=["G"])


def test_snapshot_waterfall_120x36(snap_compare) -> None:
    """120 columns: the time axis gets 60 %; the retry's sub-lanes with their gap; the server
    once per run; flags as glyphs; the selected row's band."""
    assert snap_compare(tour_app(), terminal_size=(120, 36), press=["j", "j", "l"])


def test_snapshot_waterfall_200x50(snap_compare) -> None:
    """200 columns: the start time back in the table, the bars by state, the late connector."""
    assert snap_compare(tour_app(), terminal_size=(200, 50), press=["j", "j"])
