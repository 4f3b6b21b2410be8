"""Snapshot tests of the timeline and detail screens in the bundled non-default themes.

Update with ``pytest tests/test_tui_theme_snapshots.py --snapshot-update`` after a deliberate
change, and look at the SVGs (``rsvg-convert``) before committing them.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_tui_support import model_of

from viewer.tui import palette
from viewer.tui.app import make_app

TOUR = Path(__file__).resolve().parent.parent / "demo_vcons" / "tour.vcon.json"
SIZE = (130, 36)
THEMES = ("vcon-light", "vcon-high-contrast", "vcon-colorblind")

pytestmark = pytest.mark.skipif(not TOUR.exists(), reason="demo_vcons/tour.vcon.json missing")


@pytest.fixture(autouse=True)
def _default_palette_after():
    yield
    palette.reset_palette()


def themed(theme: str):
    return make_app(str(TOUR), model=model_of(TOUR), theme=theme)


@pytest.mark.parametrize("theme", THEMES)
def test_snapshot_timeline_theme(snap_compare, theme: str) -> None:
    assert snap_compare(themed(theme), terminal_size=SIZE, press=["j", "j"])


@pytest.mark.parametrize("theme", THEMES)
def test_snapshot_detail_theme(snap_compare, theme: str) -> None:
    assert snap_compare(themed(theme), terminal_size=SIZE, press=["j", "j", "enter", "l", "l"])
