"""The map from a plain view's cells to offsets of the original text (annotate.text_map): on hostile
text, Markdown, wide characters and long responses, every selection is a stretch of the original."""

from __future__ import annotations

import itertools

import pytest
from rich.cells import cell_len

from annotate.safe_text import sanitize, sanitize_offsets
from annotate.text_map import TextMap, cell_width
from tests.hostile_corpus import hostile_strings

MARKDOWN = (
    "# Title\n\nSome **bold** and `code` text with a [link](http://x.example).\n\n"
    "- one\n- two\n\n```python\nprint('hi')\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"
)
WIDE = "中文字符测试，全角标点。日本語のテキスト 👩‍👩‍👧‍👦 family 🏳️‍🌈 flag 👍🏽 e\u0301 done"
CASES = [*hostile_strings(include_huge=False), ("markdown", MARKDOWN), ("wide", WIDE),
         ("crlf", "line one\r\nline two\r\r\nthree\r"), ("tabs", "a\tbb\tccc\t\td"),
         ("long", " ".join(f"word{i}" for i in range(2500)))]


@pytest.mark.parametrize(("name", "text"), CASES, ids=[c[0] for c in CASES])
def test_shown_is_the_sanitised_text_and_every_unit_is_a_stretch_of_the_original(name: str, text: str) -> None:
    shown, starts, ends = sanitize_offsets(text)
    assert shown == sanitize(text)
    assert len(starts) == len(ends) == len(shown)
    assert all(s < e for s, e in zip(starts, ends, strict=True))
    assert list(starts) == sorted(starts) and list(ends) == sorted(ends)
    for i, char in enumerate(shown):
        original = text[starts[i]:ends[i]]
        if original != char:  # a placeholder's character, or the newline of a CRLF
            assert char in sanitize(original), (i, original, char)
    tm = TextMap(text)
    stops = list(tm.stops)
    # consecutive units are contiguous stretches of the original: nothing is lost or counted twice
    for a, b in itertools.pairwise(stops):
        start, end = tm.original_span(a, a)
        assert start < end == tm.starts[b]
    if stops:
        start, end = tm.original_span(stops[0], stops[-1])
        assert end == len(text)
        assert all(cell_width(c) == 0 and c not in "\n\t" for c in tm.shown[:stops[0]])


@pytest.mark.parametrize(("name", "text"), CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("width", [9, 37, 80])
def test_layout_round_trips_every_stop_through_its_cell(name: str, text: str, width: int) -> None:
    tm = TextMap(text)
    layout = tm.layout(width)
    covered = []
    for number in range(len(layout)):
        line = layout.line(number)
        covered.extend(range(line.start, line.end))
        cells = sum(layout.widths[i] for i in range(line.start, line.end))
        assert cells <= width, (number, tm.shown[line.start:line.end])
        for i in range(line.start, line.end):
            assert layout.cols[i] + layout.widths[i] <= width
    assert covered == list(range(len(tm.shown)))  # the lines partition the shown text, in order
    for stop in tm.stops[:3000]:
        line, column = layout.position(stop)
        assert layout.stop_at_cell(line, column) == stop


def test_a_placeholder_is_one_stop_standing_for_its_one_character() -> None:
    text = "ab\u202ecd\x1b[2Je"
    tm = TextMap(text)
    assert tm.shown == "ab⟨U+202E⟩cd␛[2Je"
    bidi = tm.shown.index("⟨")
    assert bidi in tm.stops and bidi + 1 not in tm.stops  # its eight characters are one unit
    assert tm.original_span(bidi, bidi) == (2, 3)
    assert text[slice(*tm.original_span(bidi, tm.step(bidi, 2)))] == "\u202ecd"
    escape = tm.shown.index("␛")
    assert text[slice(*tm.original_span(escape, tm.step(escape, 3)))] == "\x1b[2J"


def test_crlf_is_one_newline_standing_for_both_characters() -> None:
    text = "ab\r\ncd"
    tm = TextMap(text)
    assert tm.shown == "ab\ncd"
    newline = tm.shown.index("\n")
    assert tm.original_span(newline, newline) == (2, 4)
    assert text[slice(*tm.original_span(tm.stops[0], tm.stops[-1]))] == text


def test_wide_characters_take_two_cells_and_never_straddle_a_line() -> None:
    tm = TextMap("中文字")
    layout = tm.layout(3)  # one column is kept for a space: one wide character per line
    assert [tm.shown[layout.line(n).start:layout.line(n).end] for n in range(len(layout))] == ["中", "文", "字"]
    assert layout.stop_at_cell(0, 1) == 0  # the right half of a wide character is that character


def test_zero_width_characters_belong_to_the_stop_before_them() -> None:
    text = "e\u0301x👍🏽y"
    tm = TextMap(text)
    assert list(tm.stops) == [0, 2, 3, 5]  # e (with its accent), x, the thumb (with its skin tone), y
    assert text[slice(*tm.original_span(0, 0))] == "e\u0301"
    thumb = tm.step(0, 2)
    assert text[slice(*tm.original_span(thumb, thumb))] == "👍🏽"
    layout = tm.layout(20)
    assert sum(layout.widths[i] for i in range(thumb, thumb + 2)) == cell_len("👍🏽")  # as Rich and Textual paint it


def test_a_family_emoji_is_one_stop_of_the_cells_rich_gives_it() -> None:
    family = "👩\u200d👩\u200d👧\u200d👦"
    tm = TextMap(f"a{family}b")
    assert list(tm.stops) == [0, 1, 1 + len(family)]
    assert tm.original_span(1, 1) == (1, 1 + len(family))
    layout = tm.layout(20)
    assert layout.cols[1 + len(family)] == 1 + cell_len(family)


def test_shown_range_highlights_exactly_the_characters_of_an_original_stretch() -> None:
    text = "x \x1b[31mred\x1b[0m y"
    tm = TextMap(text)
    start, end = text.index("red"), text.index("red") + 3
    i, j = tm.shown_range(start, end)
    assert tm.shown[i:j] == "red"
    i, j = tm.shown_range(1, 3)  # the space and the escape character
    assert tm.shown[i:j] == " ␛"


def test_word_motions_and_trimming() -> None:
    tm = TextMap("Hello,  big world")
    assert tm.next_word(0) == 5  # the comma is a word of punctuation
    assert tm.next_word(5) == 8
    assert tm.word_end(8) == 10
    assert tm.previous_word(11) == 8
    assert tm.word_at(9) == (8, 10)
    start, end = tm.original_span(6, 11)
    assert tm.trimmed(start, end) == (8, 11)
