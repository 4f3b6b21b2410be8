"""``decision_cells`` gives what ``per_key(decision_keys(rows), make)`` gives: rows of str,
int and None are their own keys; a bool or a float (equal to an int, written otherwise) or
an unhashable member sends the rows through ``decision_keys``."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from viewer.report.evidence import decision_cells, decision_keys, per_key

_MEMBER = st.one_of(st.none(), st.sampled_from(["allowed", "once", "1", ""]),
                    st.integers(0, 3), st.booleans(), st.sampled_from([1.0, 0.0]))


def _make(key: tuple[object, object, object]) -> str:
    value, life, event = key
    return f"{value!s}|{life!s}|{'' if event is None else f'event {event}'}"


@given(st.lists(st.tuples(_MEMBER, _MEMBER, _MEMBER), max_size=40))
def test_same_cells_as_per_key(rows: list[tuple[object, object, object]]) -> None:
    assert decision_cells(rows, _make) == per_key(decision_keys(rows), _make)


def test_unhashable_member() -> None:
    rows = [("allowed", "once", [1]), ("allowed", "once", 1)]
    assert decision_cells(rows, _make) == per_key(decision_keys(rows), _make)


def test_a_bool_behind_an_equal_int_keeps_its_own_cell() -> None:
    """(0, 0, False) equals (0, 0, 0) and hashes alike: its cell is still made of itself
    (hypothesis found it; "event False" was written "event 0")."""
    for rows in ([(0, 0, 0), (0, 0, False)], [("allowed", "once", 1), ("allowed", "once", 1.0)],
                 [(None, "once", 1), (None, "once", True)]):
        assert decision_cells(rows, _make) == per_key(decision_keys(rows), _make), rows
