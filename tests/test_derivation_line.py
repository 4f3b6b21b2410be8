"""The header line of a derived model counts what was read in words a reader expects."""

from __future__ import annotations

from viewer.model.types import Derivation


def line(objects: int, unit: str) -> str:
    return Derivation(format="gemini", title="Gemini CLI session", objects=objects, unit=unit,
                      mapped=objects, ignored=0, unmapped=0).line()


def test_one_object_is_named_in_the_singular() -> None:
    assert line(1, "records") == "derived from 1 record (Gemini CLI session)"
    assert line(1, "lines").startswith("derived from 1 line (")
    assert line(2, "records").startswith("derived from 2 records (")
    assert line(0, "messages").startswith("derived from 0 messages (")
    assert line(1_000, "dialogs").startswith("derived from 1,000 dialogs (")
