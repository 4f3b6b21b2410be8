"""The main screen's row layout, as pure functions (no App, no widget): testable alone.

``columns`` decides where each part of a row goes at a given width: the time axis is the hero
(at least ``WIDE_SHARE`` of the width from ``WIDE`` columns, ``NARROW_SHARE`` below), the
table columns shrink or drop to leave it that room, and any of them but the id can be hidden
(keys 1–8). ``RowPlan`` maps the list's rows to operations and their attempts' sub-lanes: an
operation with several attempts shows one sub-lane per attempt when it is expanded (by
default when it has findings and no more than ``FOLD_OVER`` attempts; ``space`` toggles).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Final

from viewer.model.spec import SHORT_MAX
from viewer.model.types import Operation

WIDE: Final = 120  # from this width the time axis gets WIDE_SHARE of it
WIDE_SHARE: Final = 0.60
NARROW_SHARE: Final = 0.45
#: The flag glyph column: the most serious flag's short label whole, "+" for more.
FLAGS_W: Final = SHORT_MAX + 1
FOLD_OVER: Final = 12  # an operation with more attempts starts folded

#: The columns that can be hidden, in row order, and the key (1–8) that toggles each.
HIDEABLE: Final = ("party", "target", "start", "decision", "attempts", "outcome", "flags",
                   "gap")
COLUMN_KEYS: Final[dict[str, str]] = {str(i): name for i, name in enumerate(HIDEABLE, 1)}


@dataclass(frozen=True, slots=True)
class Columns:
    """Where each part of a row goes: a width of 0 is a column left out (hidden or no room).
    Every column but the lane is followed by one blank cell."""

    id_w: int
    party_w: int
    target_w: int
    time_w: int
    decision_w: int
    attempts_w: int
    outcome_w: int
    flags_w: int
    lane_x: int
    lane_w: int
    short_flags: bool = True  # kept for callers of the earlier layout: flags are glyphs now
    outcome_word: bool = True  # the outcome's word after its glyph (else the glyph alone)
    gap: bool = True  # sub-lanes say the gap between attempts

    @property
    def left(self) -> int:
        return self.lane_x


def _span(w: int) -> int:
    return w + 1 if w else 0


def columns(width: int, hidden: Collection[str] = (), id_len: int | None = None,
            full: int | None = None, parties: bool = True) -> Columns:
    """The layout at ``width`` cells with the columns named in ``hidden`` left out.

    ``id_len``: the longest operation id (the id column needs no more); ``full``: the view's
    whole width, scrollbar included (default ``width``): the lane's share is of that, so a
    scrollbar takes its cells from the table, not from the time axis; ``parties``: some
    operation was run by a sub-agent (else the party column would stay empty, and is left
    out). The table gets what the lane's share leaves: the start time drops first, then the
    target shrinks, then the outcome's word is cut short, then the outcome keeps its glyph
    alone, then the target and the id shrink to their minimum. O(1)."""
    full = width if full is None else full
    share = WIDE_SHARE if full >= WIDE else NARROW_SHARE
    budget = max(0, width - max(8, int(full * share + 0.999)))
    shown = {n: n not in hidden for n in HIDEABLE}
    id_w, id_min = (16 if width >= 160 else 12), 7
    if id_len is not None:
        id_w = max(id_min, min(id_w, id_len))
    target_w, target_min = (26 if width >= 160 else 20), 10
    time_w = 11 if width >= 160 else 9
    outcome_w = 13
    party_w = 1 if shown["party"] and parties else 0
    dec_w = 1 if shown["decision"] else 0
    att_w = 3 if shown["attempts"] else 0
    flags_w = FLAGS_W if shown["flags"] else 0
    target_w = target_w if shown["target"] else 0
    time_w = time_w if shown["start"] else 0
    outcome_w = outcome_w if shown["outcome"] else 0
    word = True

    def total() -> int:
        return (1 + _span(id_w) + _span(party_w) + _span(target_w) + _span(time_w)
                + _span(dec_w) + _span(att_w) + _span(outcome_w) + _span(flags_w))

    if total() > budget and time_w:
        time_w = 0
    if total() > budget and flags_w > SHORT_MAX:
        flags_w = SHORT_MAX  # room for every short label whole; "+" only beside a shorter one
    preferred = target_w
    while total() > budget and target_w > 16:
        target_w -= 1
    if total() > budget and outcome_w:
        outcome_w = 9  # "✗ failed", "✓ complet…": the word still reads
    while total() > budget and target_w > target_min:
        target_w -= 1
    if total() > budget and outcome_w:
        outcome_w, word = 1, False
        while total() < budget and 0 < target_w < preferred:  # the room the word left
            target_w += 1
    while total() > budget and (target_w > target_min or id_w > id_min):
        if target_w > target_min and target_w >= id_w:
            target_w -= 1
        elif id_w > id_min:
            id_w -= 1
        else:
            target_w -= 1
    lane_x = total()
    return Columns(id_w, party_w, target_w, time_w, dec_w, att_w, outcome_w, flags_w,
                   lane_x, max(8, width - lane_x), True, word, shown["gap"])


def fit(text: str, width: int) -> str:
    """Truncate to ``width`` cells with an ellipsis, pad to exactly ``width``."""
    if width <= 0:
        return ""
    if len(text) > width:
        return text[: width - 1] + "…"
    return text.ljust(width)


def flag_glyph(flags: Collection[str], order: Sequence[str], short: dict[str, str],
               width: int = FLAGS_W) -> str:
    """The flag column: the most serious flag's short label, whole (a cut label is no name the
    filter knows), ``+`` when there are more and it fits (``viol+``); the status line lists
    them all."""
    present = [k for k in order if k in flags]
    if not present:
        return " " * width
    label = short[present[0]]
    more = "+" if len(present) > 1 and len(label) < width else ""
    return (label + more).ljust(width)[:max(width, len(label))]


def server_label(server: str | None) -> str:
    """The server without its scheme: the part that tells servers apart."""
    server = server or "?"
    for scheme in ("https://", "http://", "wss://", "ws://"):
        if server.startswith(scheme):
            return server[len(scheme):]
    return server


def target_label(op: Operation, prev: Operation | None) -> str:
    """``tool @ server`` on the first row of a run of the same server, ``│ tool`` below it:
    the server is said once per run."""
    tool = op.tool or "*"
    if prev is not None and prev.server == op.server:
        return f"│ {tool}"
    return f"{tool} @ {server_label(op.server)}"


# --- the row plan: operations and their attempts' sub-lanes --------------------------------
def default_expanded(ops: Sequence[Operation]) -> list[int]:
    """Operation indexes expanded by default: several attempts, a finding, at most
    ``FOLD_OVER`` attempts. Model order; computed once per model."""
    return [i for i, op in enumerate(ops)
            if op.flags and 1 < len(op.attempts) <= FOLD_OVER]


class RowPlan:
    """The list's rows: each shown operation, followed by one sub-lane per attempt when it is
    expanded. Only the expanded operations are stored, so a plan over 100k operations costs
    O(expanded) and a lookup O(log expanded)."""

    def __init__(self, shown: Sequence[int], expanded: Sequence[int],
                 attempts: Callable[[int], int]) -> None:
        """``expanded``: operation indexes (model order) shown with their sub-lanes;
        ``attempts(op_index)``: its number of attempts."""
        self.shown = shown
        pos: list[int] = []
        for op_index in expanded:
            k = bisect_left(shown, op_index)
            if k < len(shown) and shown[k] == op_index:
                pos.append(k)
        pos.sort()
        self.positions = pos  # positions in ``shown`` of the expanded operations
        self.extra = [attempts(shown[p]) for p in pos]
        self.before: list[int] = []  # sub-lane rows before each expanded operation
        acc = 0
        for n in self.extra:
            self.before.append(acc)
            acc += n
        self.total = len(shown) + acc

    def __len__(self) -> int:
        return self.total

    def is_expanded(self, pos: int) -> bool:
        k = bisect_left(self.positions, pos)
        return k < len(self.positions) and self.positions[k] == pos

    def row_of(self, pos: int, sub: int = -1) -> int:
        """The row of the operation at ``pos`` (``sub`` -1) or of its attempt ``sub``."""
        k = bisect_left(self.positions, pos)
        row = pos + (self.before[k] if k < len(self.before) else
                     (self.total - len(self.shown)))
        if sub >= 0 and k < len(self.positions) and self.positions[k] == pos:
            row += 1 + min(sub, self.extra[k] - 1)
        return row

    def at(self, row: int) -> tuple[int, int]:
        """(position in ``shown``, attempt index or -1 for the operation's own row)."""
        lo, hi = 0, len(self.positions)
        while lo < hi:  # the last expanded operation whose row is at or above ``row``
            mid = (lo + hi) // 2
            if self.positions[mid] + self.before[mid] <= row:
                lo = mid + 1
            else:
                hi = mid
        k = lo - 1
        if k < 0:
            return row, -1
        op_row = self.positions[k] + self.before[k]
        if row - op_row <= self.extra[k]:
            return self.positions[k], (row - op_row) - 1
        return row - self.before[k] - self.extra[k], -1

    def expanded_count(self) -> int:
        return len(self.positions)


def toggled(expanded: Sequence[int], op_index: int) -> list[int]:
    """``expanded`` with ``op_index`` added or taken out (model order kept)."""
    k = bisect_left(expanded, op_index)
    if k < len(expanded) and expanded[k] == op_index:
        return [*expanded[:k], *expanded[k + 1:]]
    return [*expanded[:k], op_index, *expanded[k:]]

