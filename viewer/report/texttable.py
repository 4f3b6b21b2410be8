"""The text summary's tables, laid out so that no word is broken (README, *Headless*).

Rich narrows a table that is wider than the terminal by shrinking its widest columns, whatever
their words: at 80 columns ``duplicate-execution-risk`` became ``duplicate`` / ``-executio`` /
``n-risk`` and ``not-performed`` ``not-perform`` / ``ed``. A ``WordTable`` lays itself out at
the width it is drawn at: when its columns do not fit at their natural width, each gets at least
its longest word (an identifier column, free to fold, at least ``FOLD_MIN``) and the rest of
the width goes to the columns that want more, the narrowest wants served first; when even the
words do not fit, the columns named in ``merges`` are stacked in pairs, one pair at a time,
until they do (``Outcome`` over ``flags``), or while a folding column (a reason) would be left
fewer than ``READABLE`` characters. At a width where the table fits it is Rich's table as
before, byte for byte.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

#: The narrowest an identifier column (a URL, an id: one long word) is made: it folds.
FOLD_MIN = 8
#: A folding column squeezed below this many characters (a reason read a word a line) makes
#: the table stack its next pair of columns, while it has one, to give it the room.
READABLE = 20


@dataclass(frozen=True, slots=True)
class Col:
    """A column: its header, and whether its cells may be folded (identifiers) rather than
    wrapped at words only."""

    header: str
    folds: bool = False
    justify: str = "left"


@dataclass(slots=True)
class WordTable:
    """A titled table of Text cells (``rows``) drawn without breaking a word where the width
    allows it; ``merges``: pairs of column headers that may be stacked, in order."""

    title: str
    cols: Sequence[Col]
    rows: list[tuple[Text, ...]] = field(default_factory=list)
    merges: Sequence[tuple[str, str]] = ()

    def add_row(self, *cells: Text) -> None:
        self.rows.append(cells)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        cols, rows = list(self.cols), [list(r) for r in self.rows]
        fits, widths, squeezed = _fit(console, options, cols, rows)
        for top, under in self.merges:
            if fits and not squeezed:
                break
            heads = [c.header for c in cols]
            cols, rows = _merged(cols, rows, heads.index(top), heads.index(under))
            fits, widths, squeezed = _fit(console, options, cols, rows)
        # words that fit nowhere (a very narrow terminal): Rich's own layout, which folds them
        yield _table(self.title, cols, rows, widths if fits else None)


def _table(title: str, cols: Sequence[Col], rows: Sequence[Sequence[Text]],
           widths: list[int] | None) -> Table:
    """The Rich table; ``widths``: each column's width (None: Rich's own)."""
    table = Table(title=title, title_justify="left", expand=False)
    for i, c in enumerate(cols):
        table.add_column(c.header, overflow="fold", justify=c.justify,  # type: ignore[arg-type]
                         width=None if widths is None else widths[i])
    for r in rows:
        table.add_row(*r)
    return table


def _merged(cols: list[Col], rows: list[list[Text]], a: int, b: int
            ) -> tuple[list[Col], list[list[Text]]]:
    """Column ``b`` stacked under column ``a``, in ``a``'s place, and so their headers:
    'Outcome' over 'flags'."""
    head = Col(f"{cols[a].header}\n{cols[b].header.lower()}", cols[a].folds or cols[b].folds)
    out_cols = [head if i == a else c for i, c in enumerate(cols) if i != b]
    out_rows = []
    for r in rows:
        top, under = r[a], r[b]
        cell = top if not under.plain else Text("\n").join([top, under])
        out_rows.append([cell if i == a else x for i, x in enumerate(r) if i != b])
    return out_cols, out_rows


def _fit(console: Console, options: ConsoleOptions, cols: Sequence[Col],
         rows: Sequence[Sequence[Text]]) -> tuple[bool, list[int] | None, bool]:
    """Whether every word fits at ``options.max_width``; each column's width: None when the
    table fits as it is (Rich lays it out as before), else widths that keep every word whole
    (``share``); and whether a folding column got fewer than ``READABLE`` characters of more
    that it wants."""
    n = len(cols)
    room = options.max_width - (n + 1) - 2 * n  # the box's lines, each cell's padding (0, 1)
    lows, highs = [], []
    for i, c in enumerate(cols):
        head = Measurement.get(console, options, Text(c.header))
        cells = [Measurement.get(console, options, r[i]) for r in rows]
        word = max((m.minimum for m in cells), default=0)
        if c.folds:
            word = min(word, FOLD_MIN)
        lows.append(max(head.minimum, word, 1))
        highs.append(max([head.maximum, *(m.maximum for m in cells)]))
    if sum(highs) <= room:
        return True, None, False
    if sum(lows) > room:
        return False, None, False
    widths = share(lows, highs, room)
    squeezed = any(c.folds and w < min(READABLE, high)
                   for c, w, high in zip(cols, widths, highs, strict=True))
    return True, widths, squeezed


def share(lows: list[int], highs: list[int], room: int) -> list[int]:
    """Widths from ``lows`` up, ``room`` in all: what is left shared out fairly (max-min) to
    the columns that want more, so a column that wants little gets all it wants and the
    widest (an identifier) the rest."""
    widths = list(lows)
    left = room - sum(lows)
    wanting = sorted((i for i in range(len(lows)) if highs[i] > lows[i]),
                     key=lambda i: highs[i] - lows[i])
    while wanting and left > 0:
        i = wanting.pop(0)
        give = min(highs[i] - widths[i], left // (len(wanting) + 1))
        widths[i] += give
        left -= give
    for i in range(len(widths)):  # what the rounding left, to the first that wants it
        more = min(highs[i] - widths[i], left)
        if more > 0:
            widths[i] += more
            left -= more
    return widths
