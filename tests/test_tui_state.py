"""The viewer's selection and finding navigation without an App (viewer.tui.state), and the
messages the App sends its screens (viewer.tui.messages) instead of calling them by type."""

from __future__ import annotations

from pathlib import Path

from textual.screen import Screen

from viewer.model.build import build_model
from viewer.pipeline import open_path
from viewer.tui import state
from viewer.tui.app import make_app
from viewer.tui.messages import NoteChanged, SelectionMoved, ViewChanged

TOUR = Path(__file__).resolve().parent.parent / "demo_vcons" / "tour.vcon.json"


def tour():
    return build_model(open_path(str(TOUR)))


def test_finding_order_is_timeline_order_with_unplaced_findings_last() -> None:
    m = tour()
    order = state.finding_order(m)
    assert len(order) == len(m.findings)
    assert order == sorted(order)
    for op_index, i in order:
        target = state.finding_target(m, m.findings[i])[0]
        assert op_index == (len(m.operations) if target is None else target)


def test_step_finding_from_the_selection_and_after_the_last_visited() -> None:
    m = tour()
    order = state.finding_order(m)
    n = len(m.operations)
    first = state.step_finding(order, n, current=None, last_visited=-1, direction=1)
    assert first == state.Step(order[0][1], 0, len(order), False)
    back = state.step_finding(order, n, current=None, last_visited=-1, direction=-1)
    assert back is not None and back.place == len(order) - 1 and not back.wrapped
    # from an operation: its own first finding; then, still on it, the next one
    op = order[3][0]
    here = state.step_finding(order, n, current=op, last_visited=-1, direction=1)
    assert here is not None and order[here.place][0] == op
    nxt = state.step_finding(order, n, current=op, last_visited=here.finding, direction=1)
    assert nxt is not None and nxt.place == here.place + 1
    # past the end: wraps, and says so
    end = state.step_finding(order, n, current=order[-1][0], last_visited=order[-1][1],
                             direction=1)
    assert end is not None and end.place == 0 and end.wrapped
    assert state.step_finding([], n, None, -1, 1) is None


def test_in_reach_keeps_the_findings_of_the_operations_shown() -> None:
    order = [(0, 5), (2, 1), (2, 3), (7, 0)]
    assert state.in_reach(order, None) == order
    assert state.in_reach(order, [2, 3]) == [(2, 1), (2, 3)]


def test_selection_helpers() -> None:
    assert state.position_of([1, 4, 9], 4) == 1
    assert state.position_of([1, 4, 9], 5) is None
    assert state.position_of(range(10), 9) == 9
    assert state.clamp(7, 3) == 2 and state.clamp(-1, 3) == 0 and state.clamp(5, 0) == 0
    assert state.stepped(1, 5, 4) == 3 and state.stepped(1, -5, 4) == 0


class Listener(Screen[None]):
    """A screen the App knows nothing about: it hears the App by messages alone."""

    heard: list[str]

    def on_mount(self) -> None:
        self.heard = []

    def on_view_changed(self, message: ViewChanged) -> None:
        self.heard.append("view")

    def on_note_changed(self, message: NoteChanged) -> None:
        self.heard.append("note")

    def on_selection_moved(self, message: SelectionMoved) -> None:
        self.heard.append("selection")


async def test_screens_hear_the_app_by_messages() -> None:
    app = make_app(str(TOUR))
    async with app.run_test(size=(120, 30)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        listener = Listener()
        await app.push_screen(listener)
        app.apply_filter("tool:issue_refund")
        app.notify_finding(None, 1)
        app.select_operation(app.shown[0])
        await pilot.pause()
        assert listener.heard == ["view", "note", "selection"]


def _help() -> str:
    import io

    from rich.console import Console

    from viewer.tui.help import help_text

    console = Console(width=160, record=True, file=io.StringIO())
    console.print(help_text())
    return console.export_text()


def test_help_lists_every_binding_with_its_keys() -> None:
    """The help is built from the BINDINGS: each binding's keys, beside what it does."""
    from textual.binding import Binding

    from viewer.tui.detail import DetailScreen
    from viewer.tui.help import ABOUT, key_label
    from viewer.tui.timeline import TimelineScreen

    lines = _help().splitlines()
    for owner in (TimelineScreen, DetailScreen):
        for b in owner.BINDINGS:
            assert isinstance(b, Binding)
            if b.action == "app.help":
                continue
            about = ABOUT.get(b.id or "", b.description)
            assert any(line.split()[:len(key_label(b.key).split())]
                       == key_label(b.key).split() and about in line for line in lines), b


def test_a_new_binding_is_in_the_help_without_a_word_of_help_written(monkeypatch) -> None:
    from textual.binding import Binding

    from viewer.tui.timeline import TimelineScreen

    extra = Binding("ctrl+z", "fit", "Brand new", id="timeline.brand_new")
    monkeypatch.setattr(TimelineScreen, "BINDINGS", [*TimelineScreen.BINDINGS, extra])
    assert any("ctrl+z" in line and "Brand new" in line for line in _help().splitlines())
