"""Text selected with the mouse in a response pane or the prompt pane is highlighted, and Ctrl+C
copies it as shown, sanitised, to the clipboard (OSC 52; the test app keeps it in `app.clipboard`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot

from annotate.safe_text import is_safe
from annotate.tui import make_app
from annotate.tui.screens.item_copy import NOTHING_SELECTED
from annotate.tui.screens.span_dialog import SpanDialog
from annotate.tui.widgets.doc_view import DocView
from annotate.tui.widgets.progress_line import ProgressLine
from annotate.tui.widgets.response_pane import ResponsePane
from tests.tui.conftest import make_session, pairwise_item
from tests.tui.test_spans import span_session

SIZES = [(80, 24), (160, 48)]

HOSTILE = "First paragraph, plain.\n\nThe secret \x1b]52;c;ZXZpbA==\x07 word here\u202e and the rest."
"""A response with an OSC 52 clipboard write, a BEL and a bidi override in it."""
SHOWN = "The secret ␛]52;c;ZXZpbA==␇ word here"
"""Its second paragraph up to `here`, as the pane shows it (and as the clipboard gets it)."""


def _cell(pane: DocView, text: str) -> tuple[int, int, int]:
    """(line, first column, end column) of `text` in the pane's lines; the columns are cells."""
    for y, strip in enumerate(pane.full_lines()):
        at = strip.text.find(text)
        if at >= 0:
            return y, at, at + len(text)
    raise AssertionError(f"{text!r} not shown")


async def _drag(pilot: Pilot, pane: DocView, line: int, start: int, end: int) -> None:
    """Press at cell `start` of `line`, move to the last cell before `end`, release there."""
    dx = pane.content_region.x - pane.region.x
    dy = pane.content_region.y - pane.region.y + line - round(pane.scroll_y)
    await pilot.mouse_down(pane, offset=(dx + start, dy))
    await pilot.hover(pane, offset=(dx + end - 1, dy))
    await pilot.mouse_up(pane, offset=(dx + end - 1, dy))
    await pilot.pause()


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_a_selection_in_a_response_is_highlighted_and_copied_sanitised(tmp_path: Path, size) -> None:
    spec, store = make_session(tmp_path, items=[pairwise_item(i, a=HOSTILE) for i in range(2)])
    app = make_app(spec, store, "ann", open_guideline=False)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        pane = next(p for p in app.screen.query(ResponsePane) if p.slot == "A")
        line, start, _ = _cell(pane, "The secret")
        _, _, end = _cell(pane, "word here")
        await _drag(pilot, pane, line, start, end)
        assert pane.text_selection is not None
        row = line - round(pane.scroll_y)
        selected = pane.screen.get_component_rich_style("screen--selection")
        painted = pane.render_line(row)
        cells = painted.crop(start, end)
        assert cells.text.startswith("The secret") and all(s.style.bgcolor == selected.bgcolor for s in cells)
        assert all(s.style.bgcolor != selected.bgcolor for s in painted.crop(0, start))
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert app.clipboard == SHOWN
        assert f"copied {len(SHOWN)} characters" in str(app.screen.query_one(ProgressLine).render())
        assert [e.payload for e in app.screen.events if e.kind == "copy"] == [{"chars": len(SHOWN)}]
        await pilot.double_click(pane, offset=(pane.content_region.x - pane.region.x + 2, 1))  # the whole pane
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert app.clipboard.startswith("First paragraph, plain.") and "word here⟨U+202E⟩ and" in app.clipboard
        assert is_safe(app.clipboard) and "\x1b" not in app.clipboard and "\x07" not in app.clipboard
    store.close()


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_a_selection_in_the_prompt_is_copied(tmp_path: Path, size) -> None:
    spec, store = make_session(tmp_path)
    app = make_app(spec, store, "ann", open_guideline=False)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        prompt = app.screen.query_one("#prompt", DocView)
        line, start, end = _cell(prompt, "reverse a list")
        await _drag(pilot, prompt, line, start, end)
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert app.clipboard == "reverse a list"
    store.close()


async def test_copy_without_a_selection_says_how(tmp_path: Path) -> None:
    spec, store = make_session(tmp_path)
    app = make_app(spec, store, "ann", open_guideline=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert app.clipboard == ""
        assert NOTHING_SELECTED in str(app.screen.query_one(ProgressLine).render())
        await pilot.press("1", "enter")  # the screen's keys still work
        await pilot.pause()
    assert len(store.judgments("ann")) == 1
    store.close()


async def test_in_the_plain_view_the_mouse_marks_spans_and_selects_nothing(tmp_path: Path) -> None:
    spec, store = span_session(tmp_path)
    app = make_app(spec, store, "mo", open_guideline=False)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        screen = app.screen
        await pilot.press("v")
        await pilot.pause()
        pane = screen.query_one("#left", ResponsePane)
        assert pane.plain is not None and not pane.allow_select
        await _drag(pilot, pane, 0, 0, 6)
        assert screen.selections == {} and app.screen is screen and screen.query_one(SpanDialog).is_open
    store.close()
