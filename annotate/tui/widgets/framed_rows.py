"""Framed rows: a document view's content rows joined to its border once, not styled row by row.

Textual draws every row of a widget through its styles pipeline (border, padding, background,
opacity, tint, hatch, outline, filters): about 0.14 ms a row on this project's 2-core host, so
the two response panes at 160x48 cost some 11 ms of every key that shows a new item. With plain
styles (no outline, tint, hatch, opacity or text opacity, no vertical padding) a content row is
the left border and padding, the content line, then the right padding and border, and those
edges are the same on every row. So the edges are taken once from a row that Textual drew itself
and each content row is joined to them; the border rows (with the title) are still Textual's.
tests/tui/test_framed_rows.py checks the rows are identical to Textual's in every pane style.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field

from rich.style import Style as RichStyle
from textual.color import Color
from textual.filter import LineFilter
from textual.geometry import Region
from textual.strip import Strip
from textual.style import Style
from textual.widget import Widget

RenderLines = Callable[[Region], list[Strip]]


@dataclass(frozen=True)
class Frame:
    """The parts of a row shared by every content row, for one look of the widget."""

    key: Hashable
    left: Strip
    """Border and padding left of the content (filtered)."""
    right: Strip
    """Padding and border right of the content (filtered)."""
    top: int
    """Rows above the content (border, no padding)."""
    bottom: int
    content: tuple[int, int]
    """(width, height) of the content region, as Textual pads each line to."""
    fill: RichStyle
    """The Rich style Textual pads short content lines with."""
    background: Color
    """The widget's background, which line filters blend with (part of `key`)."""
    borders: dict[tuple[int, object], Strip]
    """Border rows Textual drew, by (row, the title or subtitle on it): a ranking's titles change
    with the order, the rest of the frame does not."""
    rows: OrderedDict[int, tuple[Strip, Strip]] = field(default_factory=OrderedDict)
    """id(content line) -> (that line, its framed row), the newest last: the same framed row (and
    so the compositor's cuts and terminal text cached on it) each time a line is painted, and the
    render thread frames the first rows of documents read ahead (`frame_row`)."""


ROWS_KEPT = 512
"""Framed rows kept per frame: the first screenfuls of the documents read ahead."""


def frame_row(frame: Frame, line: Strip, filters: tuple[LineFilter, ...] | list[LineFilter],
              keep: bool = False) -> Strip:
    """`line` (a content line) padded to the content width, filtered and joined to the frame's
    edges: the row kept for it if there is one, else a new one, kept if `keep` (the render thread
    keeps the rows it frames ahead; rows framed while scrolling are not kept, as before). Safe on
    the render thread: the cache's single operations are atomic."""
    cached = frame.rows.get(id(line))
    if cached is not None and cached[0] is line:
        return cached[1]
    row = line.adjust_cell_length(frame.content[0], frame.fill)
    for line_filter in filters:
        row = row.apply_filter(line_filter, frame.background)
    row = Strip.join([frame.left, row, frame.right])
    if not keep:
        return row
    rows = frame.rows
    rows[id(line)] = (line, row)
    while len(rows) > ROWS_KEPT:
        try:
            rows.popitem(last=False)
        except KeyError:  # emptied by the other thread meanwhile
            break
    return row


def plain_styles(widget: Widget) -> bool:
    """The widget's rows are border + padding + content, nothing applied over them."""
    styles = widget.styles
    pad_top, _, pad_bottom, _ = styles.padding
    return (
        not pad_top and not pad_bottom and widget.opacity == 1.0 and styles.text_opacity == 1.0
        and not styles.tint.a and not any(edge for edge, _ in styles.outline)
        and not (styles.has_rule("hatch") and styles.hatch != "none")
    )


def frame_key(widget: Widget) -> Hashable:
    """Everything the edges of a content row depend on."""
    app = widget.app
    styles = widget.styles
    return (widget.outer_size, widget.content_region.size, styles.border, styles.padding, widget.background_colors,
            app.theme, app.ansi_color, tuple(app.get_line_filters()),
            styles.border_title_align, styles.border_subtitle_align, styles.border_title_style,
            styles.border_title_color, styles.border_title_background, styles.border_subtitle_style,
            styles.border_subtitle_color, styles.border_subtitle_background)


def make_frame(widget: Widget, key: Hashable, textual_lines: RenderLines) -> Frame | None:
    """The frame of `widget` taken from its first content row as Textual draws it; None when it
    has no content row."""
    width, height = widget.outer_size
    gutter = widget.styles.gutter
    if width <= gutter.width or height <= gutter.height:
        return None
    probe = textual_lines(Region(0, gutter.top, width, 1))[0]
    base, background = widget.background_colors
    inner = Style(background=base + background).rich_style  # what Textual pads short lines with
    return Frame(key, probe.crop(0, gutter.left), probe.crop(width - gutter.right, width), gutter.top, gutter.bottom,
                 tuple(widget.content_region.size), inner, background, {})


BORDERS_KEPT = 16
"""Border rows kept per frame (titles seen lately)."""


def _border_row(widget: Widget, frame: Frame, y: int, textual_lines: RenderLines) -> Strip:
    label = widget._border_title if y == 0 else widget._border_subtitle if y == widget.outer_size.height - 1 else None
    key = (y, label)
    row = frame.borders.get(key)
    if row is None:
        if len(frame.borders) >= BORDERS_KEPT:
            frame.borders.pop(next(iter(frame.borders)))
        row = frame.borders[key] = textual_lines(Region(0, y, widget.outer_size.width, 1))[0]
    return row


def framed_lines(widget: Widget, crop: Region, frame: Frame, content_line: Callable[[int], Strip],
                 textual_lines: RenderLines) -> list[Strip]:
    """The rows of `crop`: border rows as Textual draws them (kept per title), content rows joined
    to the frame's edges."""
    width, height = widget.outer_size
    content_width, content_height = frame.content
    filters = widget.get_line_filters()
    strips: list[Strip] = []
    for y in crop.line_range:
        if y < frame.top or y >= height - frame.bottom:
            strips.append(_border_row(widget, frame, y, textual_lines))
            continue
        content_y = y - frame.top
        line = content_line(content_y) if content_y < content_height else Strip.blank(content_width, frame.fill)
        strips.append(frame_row(frame, line, filters))
    if crop.column_span != (0, width):
        x1, x2 = crop.column_span
        strips = [strip.crop(x1, x2) for strip in strips]
    return _hover_links(widget, strips)


def _hover_links(widget: Widget, strips: list[Strip]) -> list[Strip]:
    """Links under the mouse styled as Textual styles them."""
    if not widget.auto_links:
        return strips
    hover = widget.hover_style
    if hover._link_id and hover._meta and "@click" in hover.meta:
        link_style = widget.link_style_hover
        if link_style:
            return [strip.style_links(hover.link_id, link_style) for strip in strips]
    return strips
