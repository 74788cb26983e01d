"""A response as plain sanitised text, in lines of cells a `DocView` can show, with marks painted on.

Where the Markdown view (`render.DocLines`) shows what a response means, this view shows what it
*is*, character by character, so that a cell on screen can be mapped to an offset of the stored
text and back (`annotate.text_map`). Marked error spans are highlighted (background and underline,
so they show on a monochrome terminal too), the span being selected is reversed and the cursor is a
solid block. Lines are painted lazily, only those the view shows, and painted again only after a
mark or the cursor changed.

`PlainLines` has the interface `DocView` reads from `DocLines` (`lines`, `height`, `complete`,
`ensure`, `finish`, `when_complete`), so a pane switches views by switching where its lines come from.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from annotate.text_map import Layout, TextMap

MARK_STYLES: dict[str, Style] = {
    "other": Style(underline=True, italic=True, color="bright_cyan"),
    "minor": Style(underline=True, bgcolor="#5f5f00"),
    "major": Style(underline=True, bold=True, bgcolor="#870000"),
    "current": Style(bold=True, underline=True, color="white", bgcolor="#005faf"),
    "selection": Style(reverse=True),
    "cursor": Style(bold=True, color="black", bgcolor="#00d787"),
}
"""How each kind of mark looks; later kinds are painted over earlier ones."""
_ORDER = {kind: rank for rank, kind in enumerate(MARK_STYLES)}


@dataclass(frozen=True)
class Mark:
    """A stretch of the shown text, [start, end) in indices of `TextMap.shown`, painted as `kind`."""

    start: int
    end: int
    kind: str
    """A key of MARK_STYLES; an error's severity (`minor`, `major`) or another key of the map."""


def severity_kind(severity: str, severities: Sequence[str]) -> str:
    """The mark kind of an error of `severity`: `major` for the most severe of `severities`, else `minor`."""
    return "major" if severities and severity == severities[-1] and len(severities) > 1 else "minor"


class PlainLines(Sequence[Strip]):
    """A `TextMap` laid out at one width, as a sequence of `Strip`s painted on demand."""

    def __init__(self, text: TextMap, width: int) -> None:
        self.text = text
        self.width = max(width, 2)
        self.layout: Layout = text.layout(self.width)
        self.marks: tuple[Mark, ...] = ()
        self._cache: dict[int, Strip] = {}

    # -- what DocView reads ---------------------------------------------------------------------

    @property
    def lines(self) -> PlainLines:
        return self

    @property
    def complete(self) -> bool:
        return True

    @property
    def height(self) -> int:
        return len(self.layout)

    def ensure(self, count: int) -> bool:
        return False

    def render_next(self) -> bool:
        return False

    def finish(self) -> PlainLines:
        return self

    def when_complete(self, callback: Callable[[], None]) -> None:
        callback()

    def __len__(self) -> int:
        return len(self.layout)

    def __getitem__(self, index):  # type: ignore[override]
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        strip = self._cache.get(index)
        if strip is None:
            strip = self._paint(index)
            self._cache[index] = strip
        return strip

    def __iter__(self) -> Iterator[Strip]:
        return (self[i] for i in range(len(self)))

    # -- marks ----------------------------------------------------------------------------------

    def set_marks(self, marks: Sequence[Mark]) -> set[int]:
        """Paint these marks from now on; returns the lines that look different now (painted again
        when next shown): those a mark added or removed touches, so a cursor step repaints two."""
        marks = tuple(sorted(marks, key=lambda m: _ORDER.get(m.kind, 0)))
        if marks == self.marks:
            return set()
        before, after = Counter(self.marks), Counter(marks)
        self.marks = marks
        changed: set[int] = set()
        layout = self.layout
        for mark in (before - after) + (after - before):
            if mark.end <= mark.start:
                continue
            first, last = layout.line_of(mark.start), layout.line_of(mark.end - 1)
            changed.update(range(first, last + 1))
        for number in changed:
            self._cache.pop(number, None)
        return changed

    def _paint(self, number: int) -> Strip:
        layout = self.layout
        line = layout.line(number)
        shown = self.text.shown
        marks = [m for m in self.marks if m.start < line.end and m.end > line.start]
        segments: list[Segment] = []
        run: list[str] = []
        run_style: Style | None = None
        cells = 0
        style: Style | None = None
        for i in range(line.start, line.end):
            char = shown[i]
            width = layout.widths[i]
            if char == "\n" or char == "\t":
                char = " " * width
            if width or i == line.start:  # a unit's first character: its style is the whole unit's
                style = _style_at(i, marks)
            if style != run_style and run:
                segments.append(Segment("".join(run), run_style))
                run = []
            run_style = style
            run.append(char)
            cells += width
        if run:
            segments.append(Segment("".join(run), run_style))
        if cells < self.width:
            segments.append(Segment(" " * (self.width - cells)))
        return Strip(segments, self.width)


def _style_at(index: int, marks: Sequence[Mark]) -> Style | None:
    style: Style | None = None
    for mark in marks:
        if mark.start <= index < mark.end:
            extra = MARK_STYLES.get(mark.kind)
            style = extra if style is None else style + extra
    return style
