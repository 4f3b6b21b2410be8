"""Issue 13, one vocabulary: the filter takes every name a finding kind is shown by (rows,
findings screen, reports, --fail-on), its error line lists them all from the one table, and a
half-typed token keeps the last good result on screen."""

from __future__ import annotations

from pathlib import Path

import pytest

from viewer.cli import main
from viewer.model import spec
from viewer.tui import palette as P
from viewer.tui.app import make_app
from viewer.tui.filter import FilterError, parse_filter
from viewer.tui.rows import columns, flag_glyph
from viewer.tui.timeline import TimelineView

TOUR = Path(__file__).resolve().parent.parent / "demo_vcons" / "tour.vcon.json"


@pytest.mark.parametrize(("name", "kind"), [
    ("conflict", "standing-conflict"), ("confl", "standing-conflict"),
    ("decided-late", "decision-after-invocation"), ("dec-late", "decision-after-invocation"),
    ("dup", "duplicate-execution-risk"), ("viol", "policy-violation"),
    ("esc", "escalation"), ("unterm", "unterminated"), ("late-response", "late-response"),
    ("policy-violation", "policy-violation"), ("DUP", "duplicate-execution-risk"),
])
def test_the_labels_the_rows_show_are_filter_names(name: str, kind: str) -> None:
    assert parse_filter(f"flag:{name}").flags == ((kind,),)


def test_every_shown_name_is_accepted() -> None:
    shown = {*P.FLAG_LABEL.values(), *P.FLAG_SHORT.values(), *spec.FINDING_KINDS}
    for name in shown:
        (kinds,) = parse_filter(f"flag:{name}").flags
        assert kinds[0] in spec.FINDING_KINDS
    for kind, label in P.FLAG_LABEL.items():  # a label stands for its own kind
        assert parse_filter(f"flag:{label}").flags == ((kind,),)
        assert parse_filter(f"flag:{P.FLAG_SHORT[kind]}").flags == ((kind,),)


def test_the_error_line_lists_every_accepted_name() -> None:
    with pytest.raises(FilterError) as err:
        parse_filter("flag:bogus")
    message = str(err.value)
    names = {n for k in spec.FINDING_TABLE for n in spec.finding_names(k)}
    assert len(names) > 20
    for name in names:
        assert name in message, name


def test_one_table_gives_severity_and_labels() -> None:
    assert {k.name: k.severity for k in spec.FINDING_TABLE} == spec.FINDING_SEVERITY
    assert {k.name: k.label for k in sorted(
        (k for k in spec.FINDING_TABLE if k.row is not None), key=lambda k: k.row)} == P.FLAG_LABEL


async def test_a_half_typed_token_keeps_the_last_good_result() -> None:
    app = make_app(str(TOUR))
    async with app.run_test(size=(120, 24)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("slash", *"attempts:>1", "enter")
        await pilot.pause()
        good = list(app.shown)
        assert good and len(good) < len(app.model.operations)
        await pilot.press("slash", "end", "space", *"flag:la")  # half of flag:late
        await pilot.pause()
        assert list(app.shown) == good  # not an empty timeline
        await pilot.press(*"te")
        await pilot.pause()
        ids = [app.model.operations[i].operation_id for i in app.shown]
        assert ids == ["op-03f1"]  # attempts:>1 flag:late


async def test_the_row_label_filters_the_rows() -> None:
    app = make_app(str(TOUR))
    async with app.run_test(size=(120, 24)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.apply_filter("flag:dup") is None
        assert [app.model.operations[i].operation_id for i in app.shown] == ["op-03f1"]
        assert app.apply_filter("flag:confl|viol") is None
        assert [app.model.operations[i].operation_id for i in app.shown] == ["op-07aa"]


def test_fail_on_takes_the_row_labels_too(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(TOUR), "--fail-on", "late"]) == 1
    assert main(["check", str(TOUR), "--fail-on", "dec-late,dup"]) == 1
    assert main(["check", str(TOUR), "--fail-on", "bogus"]) == 2


DEMOS = TOUR.parent
# Between them every kind that has a row label: the tour (violation, conflict, escalation,
# out-of-model, decided-late, late), the double refund (duplicate), the unterminated cancel.
EVERY_KIND = (TOUR, DEMOS / "04-double-refund.vcon.json",
              DEMOS / "08-cancel-unterminated.vcon.json")


@pytest.mark.parametrize("width", [80, 120, 200])
def test_a_flag_cell_is_a_whole_filter_name_at_any_width(width: int) -> None:
    """Issue 13: the flag column never cuts a label (``unter``, ``dec-l``), whatever the
    most serious flag and whether more follow."""
    cols = columns(width)
    assert cols.flags_w
    if width >= 120:
        assert cols.lane_w >= 0.6 * width  # the axis keeps its share
    order = P.FLAG_ORDER
    for i, kind in enumerate(order):
        for flags in ({kind}, {kind, *order[i + 1:]}):
            cell = flag_glyph(flags, order, P.FLAG_SHORT, cols.flags_w).strip()
            name = cell.removesuffix("+")
            assert parse_filter(f"flag:{name}").flags == ((kind,),), (width, cell)


@pytest.mark.parametrize("width", [80, 120, 200])
async def test_the_rows_show_only_whole_filter_names(width: int) -> None:
    seen: set[str] = set()
    for path in EVERY_KIND:
        app = make_app(str(path))
        async with app.run_test(size=(width, 40)) as pilot:
            await app.workers.wait_for_complete()
            await pilot.pause()
            view = app.screen.query_one(TimelineView)
            cols = view.columns(view.scrollable_content_region.width)
            ops = {op.operation_id: op for op in app.model.operations}
            for y in range(view.size.height):
                line = view.render_line(y).text
                op = next((o for i, o in ops.items() if line[1:].startswith(i)), None)
                if op is None:
                    continue
                cell = line[cols.lane_x - cols.flags_w - 1: cols.lane_x - 1].strip()
                if not cell:
                    continue
                (kinds,) = parse_filter(f"flag:{cell.removesuffix('+')}").flags
                first = next(k for k in P.FLAG_ORDER if k in op.flags)
                assert kinds == (first,), (path.name, op.operation_id, cell)
                seen.add(first)
    assert len(seen) >= 5, seen  # the most serious flag of the ops on screen, of many kinds
