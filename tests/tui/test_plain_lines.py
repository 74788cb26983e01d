"""The plain view's painted lines: exactly the pane's width as Rich measures them (so borders stay put),
marks painted over whole units, on hostile text, wide characters and Markdown."""

from __future__ import annotations

import pytest
from rich.cells import cell_len

from annotate.text_map import TextMap
from annotate.tui.plain_lines import MARK_STYLES, Mark, PlainLines
from tests.hostile_corpus import hostile_strings

CASES = [*hostile_strings(include_huge=False), ("family", "a 👩\u200d👩\u200d👧\u200d👦 b " * 30),
         ("cjk", "中文字符测试，全角标点。" * 30)]


@pytest.mark.parametrize(("name", "text"), CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("width", [11, 58])
def test_every_line_is_the_width_of_the_pane(name: str, text: str, width: int) -> None:
    lines = PlainLines(TextMap(text), width)
    lines.set_marks([Mark(0, 7, "major"), Mark(2, 3, "cursor"), Mark(5, 40, "selection")])
    for strip in lines:
        assert sum(cell_len(segment.text) for segment in strip) == width == strip.cell_length


def test_marks_paint_the_characters_they_cover_and_later_kinds_win() -> None:
    tm = TextMap("abc def ghi")
    lines = PlainLines(tm, 40)
    lines.set_marks([Mark(4, 7, "minor"), Mark(5, 6, "cursor")])
    styles = [(segment.text, segment.style) for segment in lines[0]]
    assert styles[0] == ("abc ", None)
    assert styles[1] == ("d", MARK_STYLES["minor"])
    assert styles[2] == ("e", MARK_STYLES["minor"] + MARK_STYLES["cursor"])
    assert styles[3] == ("f", MARK_STYLES["minor"])


def test_terminal_controls_never_reach_the_strip() -> None:
    text = "\x1b[2J\x1b]52;c;aGk=\x07 \u202eevil\x9b31m"
    lines = PlainLines(TextMap(text), 30)
    painted = "".join(segment.text for strip in lines for segment in strip)
    assert not any(c in painted for c in "\x1b\x07\u202e\x9b")
    assert "␛[2J" in painted and "⟨U+202E⟩" in painted


def test_moving_a_mark_repaints_only_the_lines_it_left_and_reached() -> None:
    tm = TextMap("\n".join(f"line {k} of the text" for k in range(30)))
    lines = PlainLines(tm, 40)
    assert tm.layout(40) is lines.layout  # laid out once per width
    first = tm.shown.index("line 3")
    assert lines.set_marks([Mark(first, first + 1, "cursor")]) == {3}
    painted = list(lines)
    later = tm.shown.index("line 7")
    assert lines.set_marks([Mark(later, later + 1, "cursor")]) == {3, 7}
    assert lines.set_marks([Mark(later, later + 1, "cursor")]) == set()
    again = list(lines)
    assert all(again[k] is painted[k] for k in range(30) if k not in (3, 7))  # kept, not painted again
    assert MARK_STYLES["cursor"] not in {s.style for s in again[3]}
    assert MARK_STYLES["cursor"] in {s.style for s in again[7]}
    wide = tm.shown.index("line 1 ")
    assert lines.set_marks([Mark(later, later + 1, "cursor"), Mark(wide, later, "selection")]) == set(range(1, 7))
