"""ResponsePane: one response (or the prompt), titled only by its screen side."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import ClassVar

from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType

from annotate.text_map import TextMap
from annotate.tui.plain_lines import Mark, PlainLines
from annotate.tui.render import Doc
from annotate.tui.widgets.doc_view import DocView, LinesFor

SpanKey = Callable[[str], None]
"""What the screen does with a span-mode key (the action's argument: `left`, `word`, `confirm`...)."""
SpanMouse = Callable[[str, int, int], None]
"""What the screen does with a mouse event in the plain view: (`down` | `drag` | `up`, line, column)."""

_CONSUMED = frozenset({
    "enter", "escape", "tab", "shift+tab", "up", "down", "left", "right", "home", "end", "pageup", "pagedown",
    "backspace", "delete", "space", "ctrl+left", "ctrl+right",
})
"""Keys span mode keeps from the screen's bindings (with every printable character)."""


def span_bindings() -> list[BindingType]:
    """The keys of span mode (active while a pane has focus in it), each with an id."""
    rows = (
        ("left,h", "left", "Cursor left", False), ("right,l", "right", "Cursor right", False),
        ("up,k", "up", "Line up", False), ("down,j", "down", "Line down", False),
        ("w,ctrl+right", "word", "Next word", False), ("b,ctrl+left", "word_back", "Previous word", False),
        ("e", "word_end", "End of word", False), ("home,0", "line_start", "Start of line", False),
        ("end,dollar_sign", "line_end", "End of line", False), ("pageup", "page_up", "Page up", False),
        ("pagedown", "page_down", "Page down", False),
        ("space,v", "anchor", "Anchor", True), ("enter", "confirm", "Mark", True),
        ("n", "next", "Next error", True), ("p,N", "previous", "Previous error", False),
        ("x,delete,backspace", "delete", "Delete error", True), ("tab", "pane", "Other pane", True),
        ("shift+tab", "pane_back", "Other pane", False), ("escape", "escape", "Done", True),
    )
    return [
        Binding(keys, f"span('{what}')", text, show=show, id=f"span-{what.replace('_', '-')}", tooltip=text)
        for keys, what, text, show in rows
    ]


class ResponsePane(DocView):
    """A DocView with a fixed border title ("Left", "Right", "Response", "Prompt").

    `slot` says which response slot the pane currently shows (it changes per item with the
    side mapping); it is never shown. The title is a fixed string, never item text or a model.

    A response pane shows its document as Markdown, or (`show_plain`) the judged response as plain
    sanitised text with marks painted on (error spans, a selection, a cursor: `plain_lines`). In
    *span mode* (`span_key` set) it has focus and its own keys move a cursor and mark spans; every
    key it uses, and every printable one, is kept from the screen's bindings meanwhile.
    """

    BINDINGS: ClassVar[list[BindingType]] = span_bindings()

    def __init__(self, title: str, lines_for: LinesFor | None = None, *, id: str | None = None,
                 classes: str | None = None) -> None:
        super().__init__(lines_for, id=id, classes=classes)
        self.title = title
        """The fixed title shown in the border."""
        self.slot: str | None = None
        """The slot (`A`/`B`) shown now; None for the prompt."""
        self.border_title = Text(title)
        self.span_key: SpanKey | None = None
        """Set by the screen while the pane is in span mode."""
        self.span_mouse: SpanMouse | None = None
        """Set by the screen while the pane shows plain text: mouse presses and drags there mark spans."""
        self._markdown_for: LinesFor = self.lines_for
        self._plain: TextMap | None = None
        self._plain_lines: PlainLines | None = None
        self._marks: tuple[Mark, ...] = ()
        self._subtitle = ""
        self._kept: PlainLines | None = None

    # -- the two views -------------------------------------------------------------------------

    @property
    def plain(self) -> TextMap | None:
        """The text shown as plain text, or None (Markdown)."""
        return self._plain

    @property
    def plain_lines(self) -> PlainLines | None:
        """The plain view's lines at the pane's width (None in the Markdown view or before layout)."""
        return self._plain_lines if self._plain is not None else None

    def show(self, doc: Doc | None) -> None:
        """Show `doc` from its top, as Markdown."""
        self._plain, self._plain_lines, self._marks, self._kept = None, None, (), None
        self.lines_for = self._markdown_for
        self.span_mouse = None
        self.set_subtitle("")  # not the last item's plain view
        super().show(doc)

    def show_plain(self, text: TextMap | None) -> None:
        """Show `text` (the judged response) as plain text, or (None) the document as Markdown again,
        at about the same depth."""
        if text is self._plain:
            return
        depth = self.depth if self.max_scroll_y > 0 else 0.0
        self._plain, self._plain_lines = text, None
        self.lines_for = self._markdown_for if text is None else self._plain_for
        deepest = self.deepest
        DocView.show(self, self.doc)
        self.deepest = deepest
        if depth:
            self.set_depth(depth)
        self.set_subtitle("plain text" if text is not None else "")

    def set_subtitle(self, text: str) -> None:
        """Show `text` (fixed words) in the bottom border; the pane is painted again only when it changes
        (Textual paints the whole pane on every assignment, where a cursor step repaints two lines)."""
        if text != self._subtitle:
            self._subtitle = text
            self.border_subtitle = Text(text)

    def _plain_for(self, doc: Doc, width: int) -> PlainLines:
        text = self._plain
        assert text is not None
        lines = self._plain_lines
        if lines is None or lines.width != max(width, 2) or lines.text is not text:
            lines = self._kept_lines(text, width)
            lines.set_marks(self._marks)
            self._plain_lines = lines
        return lines

    def _kept_lines(self, text: TextMap, width: int) -> PlainLines:
        """The plain lines of `text` at `width`, kept (with the lines painted) while the pane shows the
        same response: span mode going off and on again, or `prepare_plain`, paints nothing twice."""
        kept = self._kept
        if kept is None or kept.text is not text or kept.width != max(width, 2):
            kept = self._kept = PlainLines(text, width)
        return kept

    def prepare_plain(self, text: TextMap) -> None:
        """Lay out `text` plain at the pane's width and paint the lines its view would show from the top,
        while the annotator reads (span mode then only paints the marks)."""
        width, rows = self.render_width, self.scrollable_content_region.height
        if width > 0 and self._plain is None:
            lines = self._kept_lines(text, width)
            depth = self.depth if self.max_scroll_y > 0 else 0.0  # where `show_plain` would scroll to
            top = round(depth * max(0, len(lines) - rows))
            for index in range(top, min(len(lines), top + rows)):
                _ = lines[index]

    def set_marks(self, marks: Sequence[Mark]) -> None:
        """Paint these marks on the plain view (kept when it is laid out again at another width)."""
        self._marks = tuple(marks)
        if self._plain_lines is not None:
            top, rows = round(self.scroll_y), self.scrollable_content_region.height
            for line in self._plain_lines.set_marks(self._marks):
                if top <= line < top + rows:  # only lines in view that changed are painted again
                    self.refresh_line(line)

    def scroll_to_line(self, line: int) -> None:
        """Scroll just enough that `line` is in view."""
        rows = max(1, self.scrollable_content_region.height)
        top = round(self.scroll_y)
        if line < top:
            self.scroll_to(y=line, animate=False, immediate=True)
        elif line >= top + rows:
            self.scroll_to(y=line - rows + 1, animate=False, immediate=True)

    @property
    def allow_select(self) -> bool:
        """Text is selected with the mouse (and copied with Ctrl+C), except where the mouse marks error
        spans (the plain view, span mode)."""
        return self.span_mouse is None and self.span_key is None and super().allow_select

    # -- span mode -----------------------------------------------------------------------------

    def check_consume_key(self, key: str, character: str | None) -> bool:
        if self.span_key is None:
            return False
        return key in _CONSUMED or (character is not None and character.isprintable())

    def action_span(self, what: str) -> None:
        if self.span_key is not None:
            self.span_key(what)

    def _cell(self, event: events.MouseEvent) -> tuple[int, int] | None:
        offset = event.get_content_offset(self)
        if offset is None:
            return None
        return round(self.scroll_y) + offset.y, offset.x

    def on_mouse_down(self, event: events.MouseDown) -> None:
        cell = self._cell(event) if self.span_mouse is not None and event.button == 1 else None
        if cell is not None and self.span_mouse is not None:
            self.capture_mouse()
            self.span_mouse("down", *cell)
            event.stop()

    def on_mouse_move(self, event: events.MouseMove) -> None:
        if self.span_mouse is not None and event.button == 1 and self.app.mouse_captured is self:
            cell = self._cell(event)
            if cell is not None:
                self.span_mouse("drag", *cell)

    def on_mouse_up(self, event: events.MouseUp) -> None:
        if self.app.mouse_captured is self:
            self.capture_mouse(False)
            cell = self._cell(event)
            if self.span_mouse is not None and cell is not None:
                self.span_mouse("up", *cell)
                event.stop()
