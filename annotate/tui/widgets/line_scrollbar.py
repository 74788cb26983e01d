"""LineScrollBar: Textual's vertical scrollbar, drawn from a few cached strips.

Every item changes the length of the documents in the response panes, so their scrollbars are
drawn again on the key path. Textual draws a scrollbar as a Rich renderable, line by line through
the styles pipeline: about 3 ms per pane at 160x48 on this project's 2-core host, a tenth of the
whole frame. A scrollbar's rows are only a handful of distinct cells (track above, thumb, its two
partial ends, track below), so this one asks Textual's own renderer for the cells and keeps one
strip per distinct cell: the same look, mouse actions and colours, for a few list lookups a row.
"""

from __future__ import annotations

from rich.color import Color
from rich.segment import Segment
from rich.style import Style
from textual.geometry import Region
from textual.scrollbar import ScrollBar, ScrollBarRender
from textual.strip import Strip

_STRIPS: dict[tuple[Segment, Style, int], Strip] = {}
"""One strip per distinct scrollbar cell and width (a few dozen in a sitting: colours x cells)."""

_STRIPS_MAX = 512

_DEFAULT_BACK = Color.parse("#555555")
_DEFAULT_BAR = Color.parse("bright_magenta")


def _strip(segment: Segment, base: Style, width: int) -> Strip:
    """The cell on the widget's base style, as Textual's Rich rendering puts it (base + cell)."""
    key = (segment, base, width)
    strip = _STRIPS.get(key)
    if strip is None:
        if len(_STRIPS) >= _STRIPS_MAX:
            _STRIPS.clear()
        text, style, control = segment
        strip = _STRIPS[key] = Strip([Segment(text, base + style, control)], width)
    return strip


class LineScrollBar(ScrollBar):
    """A vertical scrollbar whose rows are shared, filtered-once strips; horizontal ones (and any
    custom renderer) are drawn by Textual as usual."""

    def render_lines(self, crop: Region) -> list[Strip]:
        bar = self.render()
        if not self.vertical or type(bar) is not ScrollBarRender or not isinstance(bar.style, Style):
            return super().render_lines(crop)
        width, height = self.size
        style = bar.style
        segments = bar.render_bar(
            size=height, virtual_size=bar.virtual_size, window_size=bar.window_size, position=bar.position,
            thickness=width, vertical=True, back_color=style.bgcolor or _DEFAULT_BACK,
            bar_color=style.color or _DEFAULT_BAR,
        ).segments
        _, background = self.background_colors
        base = self.visual_style.rich_style
        filters = self.get_line_filters()
        strips: list[Strip] = []
        for y in range(crop.y, min(crop.bottom, len(segments))):
            strip = _strip(segments[y], base, width)
            for line_filter in filters:
                strip = strip.apply_filter(line_filter, background)
            strips.append(strip if crop.column_span == (0, width) else strip.crop(crop.x, crop.right))
        return strips
