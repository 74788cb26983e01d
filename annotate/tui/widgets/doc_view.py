"""DocView: a scrollable view of pre-rendered lines (the Line API), for long untrusted Markdown.

Text in it can be selected with the mouse (Textual's selection) and copied: the selection is
painted on the lines in view, and the text copied is what the lines show, sanitised again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual import on
from textual.events import Resize
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.scrollbar import ScrollBar
from textual.selection import Selection
from textual.strip import Strip

from annotate.safe_text import sanitize
from annotate.tui.render import Doc, DocLines, whole_lines
from annotate.tui.widgets.framed_rows import Frame, frame_key, frame_row, framed_lines, make_frame, plain_styles
from annotate.tui.widgets.line_scrollbar import LineScrollBar

LinesFor = Callable[[Doc, int], DocLines]

MARGIN_LINES = 4
"""Lines rendered beyond the bottom of the view (a few key presses of scrolling)."""


class DocView(ScrollView, can_focus=False):
    """Shows a `Doc` rendered to lines at the view's width; paints only the lines in view.

    Lines come from `lines_for(doc, width)`, which the app points at its prefetching cache. They
    may be partly rendered: the view renders what it shows (from the top down to the bottom of the
    view) when it shows a document or scrolls, and the app's render thread renders the rest. Until
    then the height is an estimate (`complete` is False); when the rest arrives the height is
    corrected and `Measured` is posted. Not focusable: the screen owns the scroll keys and routes
    them to the active view.
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
        measured: bool = True
        """False when `depth` is a fraction of an estimated height (the view was not `complete`)."""

    @dataclass
    class Measured(Message):
        """The whole document is rendered: the height, `depth` and `deepest_depth` are exact now."""

        view: DocView

    @dataclass
    class _Rendered(Message):
        """The render thread rendered the last part of `lines` (posted from that thread)."""

        lines: DocLines

    def __init__(self, lines_for: LinesFor | None = None, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.lines_for: LinesFor = lines_for or whole_lines
        """Where rendered lines come from."""
        self.doc: Doc | None = None
        """The document shown, or None."""
        self.deepest = 0
        """The furthest scroll position (top line shown) since the document was shown."""
        self._source: DocLines | None = None
        self._lines: list[Strip] = []
        self._rendered_width = 0
        self._awaiting: DocLines | None = None
        self._frame: Frame | None = None
        self.mark: tuple[int, int, int] | None = None
        """(line, first cell, end cell) of a search match shown in reverse video, or None."""
        self._painting = False
        """Inside the paint of the view (`render_lines`), where rows need no text offsets."""
        self._size_inputs: tuple[Size, Size, Size, Size] | None = None
        """What `_size_updated` last ran with."""

    @property
    def vertical_scrollbar(self) -> ScrollBar:
        """The vertical scrollbar, a LineScrollBar (created on first use, as Textual's is)."""
        if self._vertical_scrollbar is None:
            bar = LineScrollBar(vertical=True, name="vertical", thickness=self.scrollbar_size_vertical)
            bar.display = False
            self._vertical_scrollbar = bar
            self.app._start_widget(self, bar)
        return self._vertical_scrollbar

    @property
    def render_width(self) -> int:
        """Width the lines are rendered at: the content region less the scrollbar gutter."""
        return self.scrollable_content_region.width

    @property
    def complete(self) -> bool:
        """Every line of the document is rendered: heights and depths are exact. False while the
        view has a document but no width to render it at yet (before its first layout)."""
        if self._source is None:
            return self.doc is None
        return self._source.complete

    @property
    def rendered(self) -> int:
        """Lines rendered so far, from the top of the document."""
        return len(self._lines)

    @property
    def depth(self) -> float:
        """Scroll position, 0 (top) .. 1 (bottom); 1 when the whole document fits."""
        if self.max_scroll_y <= 0:
            return 1.0
        return min(1.0, self.scroll_y / self.max_scroll_y)

    @property
    def deepest_depth(self) -> float:
        """The deepest position reached since the document was shown, 0 .. 1 (1 when it fits);
        exact once `complete`."""
        if self.max_scroll_y <= 0:
            return 1.0
        return min(1.0, self.deepest / self.max_scroll_y)

    def show(self, doc: Doc | None) -> None:
        """Show `doc` from its top."""
        self.doc = doc
        self.mark = None
        self.deepest = 0
        if self.is_mounted and self.text_selection is not None:  # it selected lines of what was shown before
            self.screen.clear_selection()
        self.scroll_to(0, 0, animate=False, immediate=True)
        self._update_lines(0)

    def full_lines(self) -> list[Strip]:
        """Every line of the document, rendering the rest here if need be (tests, checks)."""
        if self._source is not None and not self._source.complete:
            self._source.finish()
            self._set_height()
        return self._lines

    def finish(self) -> None:
        """Render the rest of the document now, so that its height is exact."""
        self.full_lines()

    def _rows(self) -> int:
        """Lines the view can show at once (at most the screen's height when it grows with them)."""
        rows = self.scrollable_content_region.height
        if self.styles.height is not None and self.styles.height.is_auto:
            rows = max(rows, self.app.size.height)
        return rows

    @property
    def screenful(self) -> int:
        """Lines rendered when a document is shown from its top: the view's rows and a margin."""
        return self._rows() + MARGIN_LINES

    def _update_lines(self, top: int) -> None:
        width = self.render_width
        if self.doc is None or width <= 0:
            self._source, self._lines = None, []
        else:
            source = self.lines_for(self.doc, width)
            source.ensure(top + self._rows() + MARGIN_LINES)
            self._source, self._lines = source, source.lines
            if not source.complete and self._awaiting is not source:
                self._awaiting = source
                source.when_complete(lambda: self.post_message(self._Rendered(source)))
        self._rendered_width = width
        self._set_height()

    def _set_height(self) -> None:
        height = self._source.height if self._source is not None else 0
        self.virtual_size = Size(self._rendered_width, height)
        self.refresh(layout=self.styles.height is not None and self.styles.height.is_auto)

    def _prepare(self, top: int) -> None:
        """Render the lines from `top` to a little below the bottom of the view."""
        source = self._source
        if source is not None and not source.complete and source.ensure(top + self._rows() + MARGIN_LINES):
            self._set_height()

    @on(_Rendered)
    def _rendered(self, message: _Rendered) -> None:
        message.stop()
        if message.lines is not self._source:
            return
        self._awaiting = None
        self._set_height()
        if self.scroll_y > self.max_scroll_y:
            self.scroll_to(y=self.max_scroll_y, animate=False, immediate=True)
        self.post_message(self.Measured(self))

    def _size_updated(self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True) -> bool:
        """ScrollView's, skipped when nothing it uses changed since it last ran. A ScrollView learns its
        own height only here (Textual compares it with the layout's size for a widget without
        children, which always differs), so it updated and painted both scrollbars again after every
        layout of the screen, in a frame of their own: after a box shown over the panes, the strip
        under them growing. Their size, the layout's container size, the gutter and the document's
        height are what it reads."""
        inputs = (size, container_size, self.virtual_size, self.styles.gutter.totals)
        if inputs == self._size_inputs:
            return self._container_size != container_size  # what ScrollView returns for them
        self._size_inputs = inputs
        return super()._size_updated(size, virtual_size, container_size, layout)

    def on_resize(self, _event: Resize) -> None:
        if self.doc is not None and self.render_width != self._rendered_width:
            unmeasured = self._source is None  # first layout: shown before it had a width
            depth = 0.0 if unmeasured else self.depth
            deepest = self.deepest / self.max_scroll_y if self.max_scroll_y > 0 else 0.0
            self._update_lines(round(self.scroll_y))
            self.deepest = round(deepest * self.max_scroll_y)  # in lines at the new width
            self.scroll_to(y=round(depth * self.max_scroll_y), animate=False, immediate=True)
            self._prepare(round(self.scroll_y))
            if unmeasured and self.complete:
                self.post_message(self.Measured(self))

    def warmer(self) -> Callable[[DocLines], None] | None:
        """What the render thread does with a document read ahead for this view, or None: frame the
        rows of its first screenful as this view paints them (`frame_row`), cut them where the
        compositor cuts this view's rows and turn the pieces into terminal text, all cached on the
        strips, so that showing it paints, cuts and writes from those caches. Taken on the UI
        thread; a view whose look, place or edges changed by then simply misses the caches."""
        frame = self._frame
        if (frame is None or not self.is_mounted or not plain_styles(self) or frame.key != frame_key(self)
                or type(self).render_line is not DocView.render_line):
            return None
        filters = tuple(self.get_line_filters())
        width = self.scrollable_content_region.width
        rows = self._rows() + MARGIN_LINES
        cuts = self._row_cuts(frame)
        console = self.app.console

        def warm(lines: DocLines) -> None:
            for line in lines.lines[:rows]:
                if line.cell_length != width:
                    continue  # painted through crop_extend: a new strip every time
                row = frame_row(frame, line, filters, keep=True)
                for piece in row.divide(cuts) if cuts else (row,):
                    piece.render(console)

        return warm

    def _row_cuts(self, frame: Frame) -> list[int] | None:
        """Where the compositor cuts this view's content rows (relative to its left edge) when it
        draws them whole; None if unknown (not laid out yet) or not the same on every row."""
        try:
            compositor = self.screen._compositor
            region, clip = compositor.visible_widgets[self]
            cuts = compositor.cuts
        except (KeyError, AttributeError):
            return None
        area = region.intersection(clip)
        x1, x2 = area.column_span
        found: list[int] | None = None
        for y in range(max(area.y, region.y + frame.top), min(area.bottom, region.bottom - frame.bottom)):
            mine = [cut - x1 for cut in cuts[y] if x1 <= cut <= x2][1:]
            if found is None:
                found = mine
            elif mine != found:
                return None
        return found

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return max(1, self.virtual_size.height)

    def render_lines(self, crop: Region) -> list[Strip]:
        """Paint the rows in `crop`. Only a mouse selection reads the text offsets of cells, and it asks
        `render_line` directly; painted rows go without them (adding them costs per segment)."""
        self._painting = True
        try:
            return self._paint(crop)
        finally:
            self._painting = False

    def _paint(self, crop: Region) -> list[Strip]:
        """Content rows joined to the border drawn once (framed_rows), when the styles allow."""
        if not plain_styles(self):
            return super().render_lines(crop)
        key = frame_key(self)
        frame = self._frame
        if frame is None or frame.key != key:
            frame = self._frame = make_frame(self, key, super().render_lines)
            if frame is None:
                return super().render_lines(crop)
        if type(self).render_line is not DocView.render_line:  # a subclass draws its rows its own way
            return framed_lines(self, crop, frame, self.render_line, super().render_lines)
        scroll_x, scroll_y = self.scroll_offset
        line_at = partial(self._line_at, scroll_x=scroll_x, scroll_y=scroll_y,
                          width=self.scrollable_content_region.width, style=self.rich_style,
                          selection=self.text_selection)
        return framed_lines(self, crop, frame, line_at, super().render_lines)

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        line = self._line_at(y, scroll_x, scroll_y, self.scrollable_content_region.width, self.rich_style,
                             self.text_selection)
        if not self._painting:  # where the pointer is in the text, for a selection (after every cut: each
            line = line.apply_offsets(scroll_x, scroll_y + y)  # segment's offset is where it starts)
        return line

    def _line_at(self, y: int, scroll_x: int, scroll_y: int, width: int, style: Style,
                 selection: Selection | None) -> Strip:
        """Row `y` of the view scrolled to (scroll_x, scroll_y), `width` cells wide, with `selection`
        (the view's, read once per paint) highlighted."""
        index = scroll_y + y
        if index >= len(self._lines) and self._source is not None and not self._source.complete:
            self._source.ensure(index + MARGIN_LINES)  # not prepared by a scroll (should not happen)
        if index >= len(self._lines):
            return Strip.blank(width, style)
        line = self._lines[index]
        if selection is not None and (span := selection.get_span(index)) is not None:
            line = _selected(line, span, self.screen.get_component_rich_style("screen--selection"))
        if self.mark is not None and self.mark[0] == index:
            line = _marked(line, self.mark[1], self.mark[2])
        if line.cell_length != width or scroll_x:
            line = line.crop_extend(scroll_x, scroll_x + width, style)
        return line

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        top = round(new_value)
        source = self._source
        if source is not None and not source.complete:
            if top > 0 and top >= self.max_scroll_y:  # the (estimated) end: go to the true end
                source.finish()
                self._set_height()
                if top != self.max_scroll_y:
                    self.scroll_to(y=self.max_scroll_y, animate=False, immediate=True)
                    return
            else:
                self._prepare(top)
        super().watch_scroll_y(old_value, new_value)
        self.deepest = max(self.deepest, top)
        if round(old_value) != top:
            self.post_message(self.Scrolled(self, self.depth, self.complete))

    def selection_updated(self, selection: Selection | None) -> None:
        self.refresh()  # only the lines in view are painted again

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        """The selected text as the lines show it, each without its trailing padding; sanitised once
        more, so that no control character or escape sequence reaches the clipboard."""
        if self.doc is None:
            return None
        lines = self.full_lines() if selection.end is None else self._lines
        first = 0 if selection.start is None else selection.start.y
        last = len(lines) - 1 if selection.end is None else min(selection.end.y, len(lines) - 1)
        picked: list[str] = []
        for y in range(first, last + 1):
            span = selection.get_span(y)
            if span is not None:
                start, end = span
                picked.append(lines[y].text[start: None if end == -1 else end].rstrip())
        return sanitize("\n".join(picked)), "\n"

    def set_depth(self, depth: float) -> None:
        """Scroll to a fraction of the way down (for linked scrolling)."""
        self.scroll_to(y=round(depth * self.max_scroll_y), animate=False, immediate=True)


MARK_STYLE = Style(reverse=True, bold=True)
"""A search match: reverse video, so it shows in every theme and without colour."""


def _marked(line: Strip, start: int, end: int, style: Style = MARK_STYLE) -> Strip:
    """`line` with cells [start, end) in `style`."""
    end = min(end, line.cell_length)
    if start >= end:
        return line
    before, match, after = line.crop(0, start), line.crop(start, end), line.crop(end, line.cell_length)
    return Strip.join([before, match.apply_style(style), after])


def _selected(line: Strip, span: tuple[int, int], style: Style) -> Strip:
    """`line` with the characters [start, end) of a selection's span in `style` (end -1: to the end of
    its text, not of its padding); a selection counts characters, a strip is cut in cells."""
    text = line.text
    start, end = span
    first, stop = cell_len(text[:start]), cell_len(text[: len(text.rstrip()) if end == -1 else end])
    if first >= stop:
        return line
    chosen = line.crop(first, stop)
    chosen = Strip(Segment.apply_style(chosen, post_style=style), chosen.cell_length)  # over code blocks' colours too
    return Strip.join([line.crop(0, first), chosen, line.crop(stop, line.cell_length)])
