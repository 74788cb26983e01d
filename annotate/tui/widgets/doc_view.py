"""DocView: a scrollable view of pre-rendered lines (the Line API), for long untrusted Markdown."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from textual.events import Resize
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from annotate.tui.render import Doc, render_lines

LinesFor = Callable[[Doc, int], list[Strip]]


class DocView(ScrollView, can_focus=False):
    """Shows a `Doc` rendered to lines at the view's width; paints only the lines in view.

    Lines come from `lines_for(doc, width)`, which the app points at its prefetching cache.
    Not focusable: the screen owns the scroll keys and routes them to the active view.
    """

    DEFAULT_CSS = """
    DocView {
        scrollbar-gutter: stable;
        overflow-x: hidden;
        overflow-y: auto;
        scrollbar-size-horizontal: 0;  /* else an auto height reserves a row for it */
    }
    """

    @dataclass
    class Scrolled(Message):
        """The view's scroll position changed (by key, wheel or link)."""

        view: DocView
        depth: float
        """0 at the top .. 1 at the bottom (1 when everything fits)."""

    def __init__(self, lines_for: LinesFor | None = None, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.lines_for: LinesFor = lines_for or render_lines
        """Where rendered lines come from."""
        self.doc: Doc | None = None
        """The document shown, or None."""
        self._lines: list[Strip] = []
        self._rendered_width = 0

    @property
    def render_width(self) -> int:
        """Width the lines are rendered at: the content region less the scrollbar gutter."""
        return self.scrollable_content_region.width

    @property
    def depth(self) -> float:
        """Scroll position, 0 (top) .. 1 (bottom); 1 when the whole document fits."""
        if self.max_scroll_y <= 0:
            return 1.0
        return min(1.0, self.scroll_y / self.max_scroll_y)

    def show(self, doc: Doc | None) -> None:
        """Show `doc` from its top."""
        self.doc = doc
        self._update_lines()
        self.scroll_to(0, 0, animate=False, immediate=True)

    def _update_lines(self) -> None:
        width = self.render_width
        if self.doc is None or width <= 0:
            self._lines = []
        else:
            self._lines = self.lines_for(self.doc, width)
        self._rendered_width = width
        self.virtual_size = Size(width, len(self._lines))
        self.refresh(layout=self.styles.height is not None and self.styles.height.is_auto)

    def on_resize(self, _event: Resize) -> None:
        if self.doc is not None and self.render_width != self._rendered_width:
            depth = self.depth
            self._update_lines()
            self.scroll_to(y=round(depth * self.max_scroll_y), animate=False, immediate=True)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return max(1, len(self._lines))

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        index = scroll_y + y
        width = self.scrollable_content_region.width
        if index >= len(self._lines):
            return Strip.blank(width, self.rich_style)
        line = self._lines[index]
        if line.cell_length != width or scroll_x:
            line = line.crop_extend(scroll_x, scroll_x + width, self.rich_style)
        return line

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if round(old_value) != round(new_value):
            self.post_message(self.Scrolled(self, self.depth))

    def set_depth(self, depth: float) -> None:
        """Scroll to a fraction of the way down (for linked scrolling)."""
        self.scroll_to(y=round(depth * self.max_scroll_y), animate=False, immediate=True)
