"""Where each cell of a plain-text view comes from in the original text, and back.

A response pane renders Markdown, whose cells are not the text's characters: markup is consumed,
bullets, borders and link targets are added, and the sanitiser (`annotate.safe_text`) shows control
characters as visible placeholders (`␛[2J`, `⟨U+202E⟩`). So a screen column is not a string offset.
To mark a stretch of a response (error spans) or find text in it, a pane shows the response as
plain sanitised text laid out by this module, which keeps, for every character on screen, the
stretch of the original text it stands for. Everything a person selects is turned into offsets of
the original (stored) text, and stored offsets are turned back into what to highlight.

- `TextMap(original)`: `shown` = `sanitize(original)`; `shown[i]` stands for
  `original[starts[i]:ends[i]]` (`safe_text.sanitize_offsets`).
- *Stops*: the places a cursor can be, one per original character that takes cells on screen. A
  placeholder is one stop (its eight characters stand for one); zero-width characters (combining
  marks, joiners, tag characters of a flag) belong to the stop before them; the newline is a stop.
- `TextMap.layout(width)` wraps `shown` into lines of at most `width` cells (words kept whole
  where they fit, the last column kept for the space after a word; wide CJK and emoji characters
  take two cells and never straddle a line end; a tab goes to the next multiple of four) and
  answers: which line and column a character is at, which character a cell shows.

Offsets are Python str indices (code points) into the original text: `start` inclusive, `end`
exclusive, as in `original[start:end]`. This module is pure (no Textual): the TUI paints from it.
"""

from __future__ import annotations

import bisect
import re
from array import array
from dataclasses import dataclass
from functools import cached_property

from rich.cells import get_character_cell_size

from annotate.safe_text import sanitize_offsets

try:  # Rich 14.1 and later measure grapheme clusters (a family emoji is one pair of cells), as Textual paints them
    from rich.cells import split_graphemes as _split_graphemes
except ImportError:  # pragma: no cover - older Rich: one code point at a time
    _split_graphemes = None

__all__ = ["TAB", "Layout", "TextMap"]

TAB = 4
"""Tab stops every this many cells in a plain view."""

_WORD = re.compile(r"\w+|[^\w\s]+")
"""A word for word motions: a run of word characters, or of punctuation."""


def cell_width(char: str) -> int:
    """Cells `char` takes on a terminal on its own (as Rich and Textual count them): 0, 1 or 2."""
    if " " <= char < "\x7f":
        return 1
    return get_character_cell_size(char)


def graphemes(text: str) -> list[tuple[int, int, int]]:
    """(start, end, cells) of each grapheme cluster of `text`, covering it without gaps, measured as
    Rich measures them: an emoji with a skin tone or a ZWJ family is one cluster, a combining accent
    belongs to its letter."""
    if text.isascii():
        return [(i, i + 1, 1) for i in range(len(text))]
    if _split_graphemes is not None:
        return _split_graphemes(text)[0]
    out: list[tuple[int, int, int]] = []
    for i, char in enumerate(text):
        width = cell_width(char)
        if width == 0 and out:
            out[-1] = (out[-1][0], i + 1, out[-1][2])
        else:
            out.append((i, i + 1, width))
    return out


class TextMap:
    """A text as shown in a plain view (sanitised), with the original offsets of every character."""

    def __init__(self, original: str) -> None:
        self.original = original
        """The stored text; offsets index it."""
        shown, starts, ends = sanitize_offsets(original)
        self.shown = shown
        """`sanitize(original)`: what the view shows (before wrapping and tab expansion)."""
        self.starts = starts
        """`starts[i]`: where the original stretch of `shown[i]` begins."""
        self.ends = ends
        """`ends[i]`: where it ends (exclusive)."""

    def __len__(self) -> int:
        return len(self.shown)

    @cached_property
    def units(self) -> list[tuple[int, int, int]]:
        """(start, end, cells) in `shown` of what the cursor steps over: grapheme clusters, a whole
        placeholder as one (its characters stand for one original character); a newline or a tab
        has 0 cells here (the layout gives them theirs)."""
        shown, starts = self.shown, self.starts
        out: list[tuple[int, int, int]] = []
        for start, end, cells in graphemes(shown):
            if out and starts[start] == starts[out[-1][0]]:
                out[-1] = (out[-1][0], end, out[-1][2] + cells)  # the rest of a placeholder
            else:
                out.append((start, end, cells))
        return out

    @cached_property
    def stops(self) -> array:
        """Indices into `shown` where a cursor can be (see the module docstring), ascending."""
        shown = self.shown
        return array("q", (start for start, _end, cells in self.units if cells > 0 or shown[start] in "\n\t"))

    def stop_at(self, index: int) -> int:
        """The stop whose unit holds `shown[index]` (the stop at or before it; the first stop when none)."""
        stops = self.stops
        if not stops:
            return 0
        k = bisect.bisect_right(stops, index) - 1
        return stops[max(k, 0)]

    def unit_end(self, stop: int) -> int:
        """Where the unit of the stop at `stop` ends in `shown`: the next stop, or the end."""
        stops = self.stops
        k = bisect.bisect_right(stops, stop)
        return stops[k] if k < len(stops) else len(self.shown)

    def step(self, stop: int, count: int) -> int:
        """The stop `count` stops after (negative: before) `stop`, clamped to the first and last."""
        stops = self.stops
        if not stops:
            return 0
        k = bisect.bisect_left(stops, stop) + count
        return stops[min(max(k, 0), len(stops) - 1)]

    @cached_property
    def _word_starts(self) -> array:
        return array("q", (m.start() for m in _WORD.finditer(self.shown)))

    @cached_property
    def _word_ends(self) -> array:
        return array("q", (m.end() - 1 for m in _WORD.finditer(self.shown)))

    def next_word(self, stop: int) -> int:
        """The stop at the start of the next word after `stop` (the last stop when there is none)."""
        starts = self._word_starts
        k = bisect.bisect_right(starts, stop)
        return self.stop_at(starts[k]) if k < len(starts) else self.step(stop, len(self.shown))

    def previous_word(self, stop: int) -> int:
        """The stop at the start of the word before `stop` (or of the word `stop` is inside)."""
        starts = self._word_starts
        k = bisect.bisect_left(starts, stop) - 1
        return self.stop_at(starts[k]) if k >= 0 else self.step(stop, -len(self.shown))

    def word_end(self, stop: int) -> int:
        """The stop at the last character of the word `stop` is in, or of the next one."""
        ends = self._word_ends
        k = bisect.bisect_right(ends, stop)
        return self.stop_at(ends[k]) if k < len(ends) else self.step(stop, len(self.shown))

    def previous_word_end(self, stop: int) -> int:
        """The stop at the last character of the word before the one `stop` is in (or the first stop)."""
        start = self.previous_word(self.step(stop, 1)) if stop < len(self.shown) else stop
        ends = self._word_ends
        k = bisect.bisect_left(ends, start) - 1
        return self.stop_at(ends[k]) if k >= 0 else self.step(stop, -len(self.shown))

    def trimmed(self, start: int, end: int) -> tuple[int, int]:
        """`original[start:end]` without white space at either end (as it is when all white space)."""
        part = self.original[start:end]
        stripped = part.strip()
        if not stripped:
            return start, end
        lead = len(part) - len(part.lstrip())
        return start + lead, start + lead + len(stripped)

    def word_at(self, stop: int) -> tuple[int, int]:
        """The stops at the first and last character of the word under `stop` (or `stop`, `stop`)."""
        for match in _WORD.finditer(self.shown, max(0, stop - 200)):
            if match.start() <= stop < match.end():
                return self.stop_at(match.start()), self.stop_at(match.end() - 1)
            if match.start() > stop:
                break
        return stop, stop

    # -- original offsets ----------------------------------------------------------------------

    def original_span(self, first: int, last: int) -> tuple[int, int]:
        """The original (start, end) of a selection from the stop `first` to the stop `last`, both
        included in whole (the order does not matter)."""
        first, last = min(first, last), max(first, last)
        end = self.unit_end(last)
        return self.starts[first], self.ends[end - 1]

    def shown_range(self, start: int, end: int) -> tuple[int, int]:
        """The characters of `shown` [i, j) that stand for any of `original[start:end]`."""
        i = bisect.bisect_right(self.ends, start)
        j = bisect.bisect_left(self.starts, end)
        return i, max(i, j)

    def stop_of_offset(self, offset: int) -> int:
        """The stop whose unit holds the original character at `offset`."""
        i = min(bisect.bisect_right(self.ends, offset), max(len(self.shown) - 1, 0))
        return self.stop_at(i)

    def layout(self, width: int) -> Layout:
        """`shown` wrapped at `width` cells (at least 2); built once per width."""
        width = max(width, 2)
        layouts = self.__dict__.setdefault("_layouts", {})
        found = layouts.get(width)
        if found is None:
            found = layouts[width] = Layout(self, width)
        return found

    def prepare(self, width: int) -> None:
        """Build now what the cursor and the layout at `width` need (while nothing waits for it), so
        that showing this text plain and moving over it costs little later."""
        _ = self.stops, self._word_starts, self._word_ends
        self.layout(width)


@dataclass(frozen=True)
class _Line:
    start: int
    """First index into `shown` on the line."""
    end: int
    """One past the last."""


class Layout:
    """A `TextMap` wrapped at a width: `lines`, and every character's line and column."""

    def __init__(self, text: TextMap, width: int) -> None:
        self.text = text
        self.width = width
        shown = text.shown
        n = len(shown)
        cols = array("q", bytes(8 * n))
        widths = array("b", bytes(n))
        """The cells of each unit go to its first character; the others take 0."""
        units = text.units
        line_starts = array("q", [0])
        x = 0
        line_unit = 0
        """Index into `units` of the first unit on the line."""
        last_space = -1
        """Index into `units` of the last space on the line (a place to break it), or -1."""
        k = 0
        while k < len(units):
            first, end, cells = units[k]
            char = shown[first]
            w = 1 if char == "\n" else (TAB - x % TAB) if char == "\t" else cells
            limit = width if char == " " or char == "\n" else width - 1  # the last column is for a space
            if w and x + w > limit and k > line_unit:
                if last_space >= line_unit and last_space + 1 < k and char != " ":
                    k = last_space + 1  # move the word after the last space to the next line
                else:
                    last_space = -1
                line_starts.append(units[k][0])
                line_unit = k
                x = 0
                last_space = -1
                continue
            cols[first] = x
            widths[first] = min(w, width)
            for i in range(first + 1, end):
                cols[i] = x
            x += w
            if char == " " or char == "\t":
                last_space = k
            k += 1
            if char == "\n":
                if k < len(units):
                    line_starts.append(units[k][0])
                    line_unit = k
                x = 0
                last_space = -1
        self.cols = cols
        """`cols[i]`: the column of `shown[i]` on its line."""
        self.widths = widths
        """`widths[i]`: the cells `shown[i]` takes (a tab: to the next stop; a newline: 1; 0 inside a unit)."""
        self._line_starts = line_starts

    def __len__(self) -> int:
        """The number of lines."""
        return len(self._line_starts)

    def line(self, number: int) -> _Line:
        """Line `number` (0-based) as a range of `shown`."""
        starts = self._line_starts
        end = starts[number + 1] if number + 1 < len(starts) else len(self.text.shown)
        return _Line(starts[number], end)

    def line_of(self, index: int) -> int:
        """The line `shown[index]` is on."""
        return max(0, bisect.bisect_right(self._line_starts, index) - 1)

    def position(self, stop: int) -> tuple[int, int]:
        """(line, column) of the stop `stop`."""
        if not len(self.text.shown):
            return (0, 0)
        stop = min(stop, len(self.text.shown) - 1)
        return self.line_of(stop), self.cols[stop]

    def stop_at_cell(self, number: int, x: int) -> int:
        """The stop a click at column `x` of line `number` lands on (the line's last one past its end)."""
        number = min(max(number, 0), len(self) - 1)
        line = self.line(number)
        text = self.text
        best = text.stop_at(line.start)
        for i in range(line.start, line.end):
            if self.widths[i] == 0:
                continue
            if self.cols[i] > x:
                break
            best = i
        return text.stop_at(best)

    def vertical(self, stop: int, lines: int, column: int | None = None) -> int:
        """The stop `lines` lines below (negative: above) `stop`, at `column` (default: its own)."""
        number, x = self.position(stop)
        return self.stop_at_cell(number + lines, x if column is None else column)

    def line_edge(self, stop: int, end: bool) -> int:
        """The first (or last) stop of the line `stop` is on."""
        line = self.line(self.line_of(stop))
        text = self.text
        if not end:
            return text.stop_at(line.start) if line.start < len(text.shown) else stop
        last = line.end - 1
        if last > line.start and text.shown[last] == "\n":
            last -= 1
        return text.stop_at(max(last, line.start))
