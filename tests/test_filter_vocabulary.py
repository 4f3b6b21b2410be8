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
