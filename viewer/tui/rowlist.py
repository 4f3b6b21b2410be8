"""A list of rows drawn only where they are seen (Textual's line API), for lists of any length.

Textual's ``OptionList`` makes and lays out every option when it is built: on a file of 100k
operations the findings and context screens froze the viewer for tens of seconds. ``RowList``
holds a row count and a function that renders row ``i``; a frame renders the rows on screen
and nothing else, so opening, moving and paging cost the same at 10 rows and at a million.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

RenderRow = Callable[[int], Text]


def _always(_: int) -> bool:
    return True


def _nothing(_: int) -> Text:
    return Text()


class RowList(ScrollView, can_focus=True):
    """Rows ``0..count-1`` rendered on demand by ``render_row``; ``selectable(i)`` says which
    rows the cursor stops on (section headings do not). Enter posts ``RowList.Selected``."""

    DEFAULT_CSS = """
    RowList { height: 1fr; overflow-x: hidden; }
    RowList > .rowlist--cursor { background: $block-cursor-background;
                                 color: $block-cursor-foreground; text-style: bold; }
    """
    COMPONENT_CLASSES: ClassVar[set[str]] = {"rowlist--cursor"}
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("down,j", "cursor(1)", "Down", id="rowlist.down", show=False),
        Binding("up,k", "cursor(-1)", "Up", id="rowlist.up", show=False),
        Binding("pagedown", "page(1)", "Page down", id="rowlist.page_down", show=False),
        Binding("pageup", "page(-1)", "Page up", id="rowlist.page_up", show=False),
        Binding("home,g", "edge(0)", "First", id="rowlist.first", show=False),
        Binding("end,G", "edge(-1)", "Last", id="rowlist.last", show=False),
        Binding("enter", "select", "Select", id="rowlist.select", show=False),
    ]

    class Highlighted(Message):
        """The cursor moved to row ``index`` (or the rows were set)."""

        def __init__(self, rowlist: RowList, index: int) -> None:
            super().__init__()
            self.rowlist = rowlist
            self.index = index

    class Selected(Message):
        """Enter on a row: ``index`` is the row's position."""

        def __init__(self, rowlist: RowList, index: int) -> None:
            super().__init__()
            self.rowlist = rowlist
            self.index = index

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.count = 0
        self.cursor = -1
        self._render_row: RenderRow = _nothing
        self._selectable: Callable[[int], bool] = _always
        self._cache: LRUCache[tuple[int, int, bool], Strip] = LRUCache(maxsize=512)

    def set_rows(self, count: int, render_row: RenderRow,
                 selectable: Callable[[int], bool] | None = None, cursor: int = 0) -> None:
        """Show ``count`` rows; the cursor goes to ``cursor`` (or the next selectable row)."""
        self.count = count
        self._render_row = render_row
        self._selectable = selectable or _always
        self._cache.clear()
        self.virtual_size = Size(self.scrollable_content_region.width, count)
        self.cursor = self._next_selectable(max(0, cursor), 1)
        # the cursor in the middle of the view: moves either way stay within it
        height = max(1, self.scrollable_content_region.height)
        self.scroll_to(y=max(0, self.cursor - height // 2), animate=False, immediate=True)
        self.refresh()
        self.post_message(self.Highlighted(self, self.cursor))

    # --- the cursor ------------------------------------------------------------------------
    def _next_selectable(self, start: int, step: int) -> int:
        """The first selectable row from ``start`` in direction ``step`` (-1 when none)."""
        i = start
        while 0 <= i < self.count:
            if self._selectable(i):
                return i
            i += step
        return -1

    def move_to(self, index: int) -> None:
        """Put the cursor on row ``index`` and scroll it into view."""
        if not 0 <= index < self.count or index == self.cursor:
            return
        old, self.cursor = self.cursor, index
        self.scroll_to_cursor()  # (a scroll redraws the whole view)
        for row in (old, index):  # the rest is unchanged (the cache keys hold the cursor):
            if row >= 0:  # two lines drawn, not a screenful
                self.refresh_line(row)
        self.post_message(self.Highlighted(self, index))

    def scroll_to_cursor(self) -> None:
        height = max(1, self.scrollable_content_region.height)
        top = round(self.scroll_offset.y)
        if self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False, immediate=True)
        elif self.cursor >= top + height:
            self.scroll_to(y=self.cursor - height + 1, animate=False, immediate=True)

    def action_cursor(self, delta: int) -> None:
        step = 1 if delta > 0 else -1
        target = self._next_selectable(self.cursor + delta, step)
        if target >= 0:
            self.move_to(target)

    def action_page(self, direction: int) -> None:
        height = max(1, self.scrollable_content_region.height)
        target = max(0, min(self.count - 1, self.cursor + direction * height))
        found = self._next_selectable(target, direction)
        if found < 0:
            found = self._next_selectable(target, -direction)
        if found >= 0:
            self.move_to(found)

    def action_edge(self, end: int) -> None:
        found = self._next_selectable(self.count - 1, -1) if end < 0 else \
            self._next_selectable(0, 1)
        if found >= 0:
            self.move_to(found)

    def action_select(self) -> None:
        if 0 <= self.cursor < self.count:
            self.post_message(self.Selected(self, self.cursor))

    def on_click(self, event: events.Click) -> None:
        row = round(self.scroll_offset.y) + event.y
        if 0 <= row < self.count and self._selectable(row):
            self.move_to(row)
            self.post_message(self.Selected(self, row))

    # --- drawing ---------------------------------------------------------------------------
    def on_resize(self) -> None:
        self.virtual_size = Size(self.scrollable_content_region.width, self.count)
        self._cache.clear()
        if self.cursor >= 0:
            self.scroll_to_cursor()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._cache.clear()

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        base = self.rich_style
        row = round(self.scroll_offset.y) + y
        if not 0 <= row < self.count or width <= 0:
            return Strip.blank(max(0, width), base)
        selected = row == self.cursor
        key = (row, width, selected)
        strip = self._cache.get(key)
        if strip is None:
            text = self._render_row(row).copy()
            text.no_wrap = True
            text.truncate(width, overflow="ellipsis")
            style: Style = base
            if selected:
                style = base + self.get_component_rich_style("rowlist--cursor")
            segments = list(text.render(self.app.console))
            strip = Strip(segments).crop_extend(0, width, style).apply_style(style).simplify()
            self._cache[key] = strip
        return strip
