"""The viewer draws the timeline first and adds the per-event conformance checks after.

``build_model(..., check_events=False)`` gives the first model; a worker completes it. These
tests hold the checks back (a gate on the worker thread) to see the in-between state, then let
them through and compare with the full build.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

from test_tui_keys import screen_text

from tests.tuikit import notices
from viewer.load import load_path
from viewer.model import build
from viewer.tui.app import make_app
from viewer.tui.findings import FindingsScreen
from viewer.tui.timeline import TimelineScreen

ERRORS = Path(__file__).resolve().parent.parent / "demo_vcons" / "11-conformance-errors.vcon.json"
SIZE = (150, 40)


def gate_checks(monkeypatch) -> threading.Event:
    """Hold ``complete_checks`` back on worker threads until the returned event is set."""
    gate = threading.Event()
    original = build.complete_checks

    def gated(model):
        if threading.current_thread() is not threading.main_thread():
            gate.wait(30)
        return original(model)

    monkeypatch.setattr(build, "complete_checks", gated)
    return gate


async def wait_for(pilot, condition, tries: int = 200) -> None:
    for _ in range(tries):
        if condition():
            return
        await pilot.pause(0.02)
    raise AssertionError("condition not met")


async def test_timeline_first_then_every_diagnostic(monkeypatch) -> None:
    full = build.build_model(load_path(str(ERRORS)))
    gate = gate_checks(monkeypatch)
    app = make_app(str(ERRORS))  # the default builder
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TimelineScreen))
        await pilot.pause()
        first = app.model
        assert first is not None and first.unchecked is not None
        assert len(first.diagnostics) < len(full.diagnostics)
        assert first.operations == full.operations and first.findings == full.findings
        assert "diagnostics: checking…" in screen_text(app)
        gate.set()
        await wait_for(pilot, lambda: app.model.unchecked is None)
        await pilot.pause()
        assert app.model.diagnostics == full.diagnostics
        assert app.matcher.model is app.model
        text = screen_text(app)
        assert f"diagnostics {len(full.diagnostics)}" in text and "checking" not in text
        assert "ERROR DIAGNOSTIC" in text


async def test_open_findings_screen_fills_in(monkeypatch) -> None:
    full = build.build_model(load_path(str(ERRORS)))
    gate = gate_checks(monkeypatch)
    app = make_app(str(ERRORS))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TimelineScreen))
        await pilot.press("f")
        assert isinstance(app.screen, FindingsScreen)
        assert "more diagnostics may follow" in screen_text(app)
        gate.set()
        await wait_for(pilot, lambda: app.model.unchecked is None)
        await pilot.pause()
        text = screen_text(app)
        assert f"{len(full.findings)} findings, {len(full.diagnostics)} diagnostics" in text
        assert "more diagnostics may follow" not in text


async def test_export_while_checking_has_every_diagnostic(monkeypatch, tmp_path: Path) -> None:
    full = build.build_model(load_path(str(ERRORS)))
    gate = gate_checks(monkeypatch)
    out = tmp_path / "out.json"
    app = make_app(str(ERRORS))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TimelineScreen))
        assert app.model.unchecked is not None
        await pilot.press("e")
        await pilot.press("j")
        app.screen.query_one("#export-path").value = str(out)
        await pilot.press("enter")
        await pilot.pause()
        assert app.model.unchecked is None  # checked on the spot, not exported without
        gate.set()
        await app.workers.wait_for_complete()
    data = json.loads(out.read_bytes())
    assert len(data["diagnostics"]) == len(full.diagnostics)
    assert data["counts"]["diagnostics"] == len(full.diagnostics)


# --- the first operations are drawn while the rest replay -----------------------------------------
TOUR = Path(__file__).resolve().parent.parent / "demo_vcons" / "tour.vcon.json"


def gate_stages(monkeypatch, first: int = 2) -> threading.Event:
    """Replay ``first`` operations first, and hold the rest back until the event is set."""
    from viewer.tui import app as app_module

    gate = threading.Event()
    original = build.build_stages

    def gated(loaded, *, first: int, above: int = 0):
        stages = original(loaded, first=first)  # staged whatever the size
        yield next(stages)
        gate.wait(30)
        yield from stages

    monkeypatch.setattr(build, "build_stages", gated)
    monkeypatch.setattr(app_module, "FIRST_OPERATIONS", first)
    return gate


async def test_first_operations_then_the_rest(monkeypatch) -> None:
    full = build.build_model(load_path(str(TOUR)))
    assert len(full.operations) > 4
    gate = gate_stages(monkeypatch, first=2)
    app = make_app(str(TOUR))
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TimelineScreen))
        await pilot.pause()
        assert len(app.model.operations) == 2
        assert app.model.operations == full.operations[:2]
        total = len(full.operations)
        assert f"first 2 of {total} operations shown, replaying the rest" in screen_text(app)
        await pilot.press("j", "j", "j")  # moves within what is there
        assert app.operation == full.operations[1]
        await pilot.press("e")  # no export of a part
        assert isinstance(app.screen, TimelineScreen)
        await pilot.pause()
        assert any("Still replaying" in n for n in notices(app))
        app.clear_notifications()  # the screen below is read next
        gate.set()
        await wait_for(pilot, lambda: app.model.unchecked is None
                       and not app.model.pending_operations)
        await pilot.pause()
        assert app.model.operations == full.operations
        assert app.model.diagnostics == full.diagnostics
        assert app.model.findings == full.findings
        assert app.operation == full.operations[1]  # the selection stayed
        text = screen_text(app)
        assert f"{len(full.operations)} operations" in text and "replaying" not in text
        await pilot.press("G")
        assert app.operation == full.operations[-1]


async def test_filter_set_while_replaying_covers_every_operation(monkeypatch) -> None:
    full = build.build_model(load_path(str(TOUR)))
    gate = gate_stages(monkeypatch, first=1)
    app = make_app(str(TOUR))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TimelineScreen))
        assert app.apply_filter("attempts:>1") is None
        gate.set()
        await wait_for(pilot, lambda: not app.model.pending_operations)
        await app.workers.wait_for_complete()
        await pilot.pause()
        want = [i for i, o in enumerate(full.operations) if len(o.attempts) > 1]
        assert want and list(app.shown) == want


# --- the loader's count of keys named twice is made with the checks put off ----------------------
def _named_twice(tmp_path: Path) -> Path:
    """The tour with a tool-result whose ``type`` is named twice (the last one read)."""
    data = TOUR.read_bytes().replace(b'"type": "tool-result"',
                                     b'"type": "tool-result", "type": "tool-result"', 1)
    assert data != TOUR.read_bytes()
    path = tmp_path / "twice.vcon.json"
    path.write_bytes(data)
    return path


async def test_a_key_named_twice_reaches_the_viewer_after_the_first_frame(
        monkeypatch, tmp_path: Path) -> None:
    path = _named_twice(tmp_path)
    full = build.build_model(load_path(str(path)))
    assert [d.code for d in full.diagnostics].count("duplicate-key") == 1
    gate = gate_checks(monkeypatch)
    app = make_app(str(path))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TimelineScreen))
        await pilot.pause()
        first = app.model
        assert first.key_check is not None  # drawn before the keys were counted
        assert "duplicate-key" not in [d.code for d in first.diagnostics]
        await pilot.press("f")  # a screen opened on the first reading
        assert "duplicate-key" not in screen_text(app)
        gate.set()
        await wait_for(pilot, lambda: app.model.unchecked is None)
        await pilot.pause()
        assert app.model.diagnostics == full.diagnostics
        assert app.model.operations == full.operations
        assert app.matcher.model is app.model
        assert isinstance(app.screen, FindingsScreen)  # rebuilt in place
        assert "duplicate-key" in screen_text(app)
        await pilot.press("escape")
        text = screen_text(app)
        assert "a key is named twice in one object" in text
        assert f"diagnostics {len(full.diagnostics)}" in text


async def test_export_from_a_file_naming_a_key_twice_counts_it(
        monkeypatch, tmp_path: Path) -> None:
    path = _named_twice(tmp_path)
    full = build.build_model(load_path(str(path)))
    gate = gate_checks(monkeypatch)
    out = tmp_path / "out.json"
    app = make_app(str(path))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TimelineScreen))
        await pilot.press("e")
        await pilot.press("j")
        app.screen.query_one("#export-path").value = str(out)
        await pilot.press("enter")
        await pilot.pause()
        gate.set()
        await app.workers.wait_for_complete()
        await pilot.pause()
    data = json.loads(out.read_bytes())
    assert len(data["diagnostics"]) == len(full.diagnostics)
    assert "duplicate-key" in [d["code"] for d in data["diagnostics"]]
