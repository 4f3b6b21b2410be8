"""The text summary wraps at words: at 80 columns Rich's table folded vocabulary mid-word
(``duplicate`` / ``-executio`` / ``n-risk``, ``not-perform`` / ``ed``, ``(standing`` / ``,
ev 0)``, a standing decision's time ``2026-03-01T09:00:0`` / ``0Z``). Identifiers (a server's
URL, an id) may still fold: they are one long word."""

from __future__ import annotations

import pytest
from reportkit import DEMOS, demo

from viewer.model.types import Model
from viewer.report.text import to_text
from viewer.report.texttable import Col, WordTable, share

NAMES = sorted(p.name for p in DEMOS.glob("*.vcon.json"))


def _words(model: Model) -> set[str]:
    """The words the tables hold that are vocabulary, not identifiers: outcomes, flags,
    decisions, states, the decision's life, standing decisions' times."""
    from viewer.report.evidence import time_texts

    words: set[str] = set()
    for op in model.operations[:500]:
        words |= {op.outcome, *op.flags}
        if op.decision:
            words.add(op.decision)
        for a in op.attempts:
            words |= set((a.final_state or "").split())
        if op.decision_life:
            words.add(f"({op.decision_life},")
    words |= {w for w in time_texts(model, [d.time for d in model.standing]) if w}
    words |= {d.decision for d in model.standing if isinstance(d.decision, str)}
    return {w for w in words if w and " " not in w and len(w) <= 25}


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("width", [80, 120])
def test_no_word_is_broken(name: str, width: int) -> None:
    model = demo(name)
    text = to_text(model, width=width)
    assert max(map(len, text.splitlines())) <= width
    rows = "\n".join(line for line in text.splitlines() if line[:1] in "│┃")  # the tables
    tokens = set(rows.replace("│", " ").replace("┃", " ").split())
    broken = sorted(w for w in _words(model) if w not in tokens)
    assert not broken, (broken, text)


def test_a_table_that_fits_is_rich_s_own() -> None:
    """Where the table fits (200 columns) nothing changes: it is Rich's table, as before."""
    from io import StringIO

    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    cols = [Col("#", justify="right"), Col("Operation ID", folds=True), Col("Flags")]
    rows = [(Text("1"), Text("op-7f3b"), Text("duplicate-execution-risk\nretry"))]
    table = WordTable("Operations", cols, merges=[("Operation ID", "Flags")])
    rich = Table(title="Operations", title_justify="left", expand=False)
    for c in cols:
        rich.add_column(c.header, overflow="fold", justify=c.justify)  # type: ignore[arg-type]
    for r in rows:
        table.add_row(*r)
        rich.add_row(*r)

    def drawn(x: object) -> str:
        con = Console(file=StringIO(), width=200, color_system=None, record=True)
        con.print(x)
        return con.export_text()

    assert drawn(table) == drawn(rich)


def test_share_serves_small_wants_first() -> None:
    # lows 1, 8, 10; highs 1, 12, 40; room 30: the middle column gets all 4 it wants
    assert share([1, 8, 10], [1, 12, 40], 30) == [1, 12, 17]
    assert share([3, 3], [3, 3], 10) == [3, 3]  # nothing wanted: nothing given


def test_columns_are_stacked_only_when_words_do_not_fit() -> None:
    from io import StringIO

    from rich.console import Console
    from rich.text import Text

    t = WordTable("T", [Col("Alpha"), Col("Beta"), Col("Gamma")],
                  merges=[("Beta", "Gamma")])
    t.add_row(Text("a" * 20), Text("b" * 20), Text("c" * 20))

    def drawn(width: int) -> str:
        con = Console(file=StringIO(), width=width, color_system=None, record=True)
        con.print(t)
        return con.export_text()

    assert "gamma" not in drawn(80) and "b" * 20 in drawn(80)
    narrow = drawn(50)
    assert "Beta" in narrow and "gamma" in narrow  # stacked: Beta over gamma
    assert "c" * 20 in narrow and "b" * 20 in narrow


@pytest.mark.parametrize("width", [80, 100])
def test_a_reason_is_not_read_a_word_a_line(width: int) -> None:
    """A free-text column that folds (a standing decision's reason) keeps room to be read:
    the table stacks its next pair of columns rather than leave it a few characters, so
    the reason's words up to ``READABLE`` characters stay whole (at 80 columns Codex's
    ``approval_policy`` was folded ``approval_`` / ``policy`` in a 9-character column)."""
    from viewer.report.evidence import standing_reason
    from viewer.report.texttable import READABLE

    model = demo("17-codex.vcon.json")
    text = to_text(model, width=width)
    rows = "\n".join(line for line in text.splitlines() if line[:1] in "│┃")
    tokens = set(rows.replace("│", " ").replace("┃", " ").split())
    words = {w for d in model.standing for w in standing_reason(model, d).split()
             if len(w) < READABLE}
    assert words and words <= tokens, sorted(words - tokens)
