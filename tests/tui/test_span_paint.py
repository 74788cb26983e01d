"""Span mode paints only what changed: toggling it, moving in it and the span dialog neither paint
the whole screen nor lay it out again when nothing moved; the dialog takes its keys while the pane
in span mode keeps the focus, and the note box gets the focus (and typed text) on its row only."""

from __future__ import annotations

from pathlib import Path

from textual.geometry import Region
from textual.widgets import Input

from annotate.model import Item, Message, Response
from annotate.tui import make_app
from annotate.tui.screens.item import ItemScreen
from annotate.tui.screens.span_dialog import SpanDialog
from annotate.tui.widgets.key_bar import KeyBar
from annotate.tui.widgets.progress_line import ProgressLine
from annotate.tui.widgets.response_pane import ResponsePane
from annotate.tui.widgets.span_strip import STRIP_ROWS, SpanStrip, rows_shown
from tests.tui.conftest import MODELS
from tests.tui.test_spans import SIZE, span_session


class Paints:
    """Records what the screen's compositor does: full frames, the regions of partial ones, layouts."""

    def __init__(self, screen: ItemScreen) -> None:
        self.full = 0
        self.dirty: list[Region] = []
        self.layouts = 0
        compositor = screen._compositor
        full, partial, reflow = compositor.render_full_update, compositor.render_partial_update, compositor.reflow

        def count_full(*args, **kwargs):
            self.full += 1
            return full(*args, **kwargs)

        def note_partial():
            self.dirty.extend(compositor._dirty_regions)
            return partial()

        def count_reflow(*args, **kwargs):
            self.layouts += 1
            return reflow(*args, **kwargs)

        compositor.render_full_update = count_full
        compositor.render_partial_update = note_partial
        compositor.reflow = count_reflow

    def clear(self) -> None:
        self.full, self.dirty, self.layouts = 0, [], 0

    def touched(self, region: Region) -> bool:
        return any(region.overlaps(dirty) for dirty in self.dirty)


def long_item(i: int) -> Item:
    """Responses longer than the panes (they scroll, with a scrollbar)."""
    text = "\n\n".join(f"Paragraph {k}: the number {91 + k} is odd, so it is prime." for k in range(80))
    return Item(id=f"l{i}", kind="pairwise", conversation=(Message("user", "Which numbers are prime?"),),
                responses=(Response("A", text, MODELS[0]), Response("B", "**No.** " + text, MODELS[1])))


async def test_span_mode_and_its_dialog_paint_only_what_changed(tmp_path: Path) -> None:
    spec, store = span_session(tmp_path, items=[long_item(i) for i in range(3)])
    app = make_app(spec, store, "p", open_guideline=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ItemScreen)
        progress = screen.query_one(ProgressLine).region
        paints = Paints(screen)
        await pilot.press("m")  # the pane takes the focus: no whole-screen frame for it
        await pilot.pause()
        assert screen.span_slot is not None and paints.full == 0 and not paints.touched(progress)
        paints.clear()
        await pilot.press("space", "w", "l")  # the strip counts the selection: painted, not laid out
        await pilot.pause()
        assert screen.anchor is not None and paints.layouts == 0 and paints.full == 0
        await pilot.press("space")
        paints.clear()
        await pilot.press("enter")  # the box shown over the panes: the rows above it are left alone
        await pilot.pause()
        dialog = screen.query_one(SpanDialog)
        assert dialog.is_open and paints.full == 0 and not paints.touched(progress)
        right = screen.query_one("#right", ResponsePane)
        assert right.show_vertical_scrollbar and right.vertical_scrollbar.region
        assert not paints.touched(right.vertical_scrollbar.region)  # a layout that left the panes alone
        paints.clear()
        await pilot.press("1", "1", "enter")  # closed, the error painted
        await pilot.pause()
        assert not dialog.is_open and screen.spans and paints.full == 0 and not paints.touched(progress)
        paints.clear()
        await pilot.press("escape")
        await pilot.pause()
        assert screen.span_slot is None and paints.full == 0 and not paints.touched(progress)
        for pane in screen.response_panes():  # the scrollbars follow the Markdown's height again
            assert pane.show_vertical_scrollbar
            assert pane.vertical_scrollbar.window_virtual_size == pane.virtual_size.height
    store.close()


async def test_the_dialog_takes_its_keys_while_the_pane_keeps_the_focus(tmp_path: Path) -> None:
    spec, store = span_session(tmp_path)
    app = make_app(spec, store, "k", open_guideline=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ItemScreen)
        await pilot.press("m")
        pane = app.focused
        assert isinstance(pane, ResponsePane)
        await pilot.press("enter")
        await pilot.pause()
        dialog = screen.query_one(SpanDialog)
        note = dialog.query_one(Input)
        keys = [(action, words) for action, _key, words, _on in screen.query_one(KeyBar).entries()]
        assert keys == [("cancel", "Cancel"), ("save", "Save")]  # the box's keys, as when it had the focus
        await pilot.press("2")  # a category: the severity row, the focus still on the pane
        assert dialog.category == "reasoning" and dialog.row == 1 and app.focused is pane and note.disabled
        await pilot.press("1")  # a severity: the note row, where the note box takes the focus
        await pilot.pause()
        assert dialog.severity == "minor" and dialog.row == 2 and app.focused is note
        await pilot.press(*"off by 2")  # typed text goes into the note, digits too
        assert note.value == "off by 2" and dialog.severity == "minor"
        await pilot.press("up")  # back to the severity row: the pane has the focus again
        await pilot.pause()
        assert dialog.row == 1 and app.focused is pane and note.disabled
        await pilot.press("3")  # a digit the taxonomy has no severity for: a bell, nothing chosen
        await pilot.press("2")  # major; back in the note box, which kept its text
        await pilot.pause()
        assert dialog.severity == "major" and app.focused is note and note.value == "off by 2"
        await pilot.press("end", "!")
        assert note.value == "off by 2!"
        await pilot.press("enter")
        await pilot.pause()
        assert not dialog.is_open and app.focused is pane and screen.span_slot is not None
        assert [(s.category, s.severity, s.note) for s in screen.spans] == [("reasoning", "major", "off by 2!")]
        keys = [words for _action, _key, words, _on in screen.query_one(KeyBar).entries()]
        assert "Save" not in keys and "Mark" in keys  # span mode's keys again
    store.close()


async def test_the_strip_keeps_its_height_whatever_it_shows(tmp_path: Path) -> None:
    spec, store = span_session(tmp_path)
    app = make_app(spec, store, "s", open_guideline=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ItemScreen)
        strip = screen.query_one(SpanStrip)
        panes = screen.query_one("#panes").region
        heights = []

        def seen() -> str:
            heights.append((strip.region.height, screen.query_one("#panes").region))
            assert rows_shown(strip.state) <= STRIP_ROWS
            return strip.render().plain

        assert seen().startswith(" Errors  Left: none")
        await pilot.press("m")
        await pilot.pause()
        assert "no errors marked in this response yet" in seen()
        for _ in range(3):
            await pilot.press("enter", "1", "1", "enter", "w")
        await pilot.pause()
        shown = seen()
        assert len(screen.spans) == 3 and "3 errors: n / p go through them" in shown
        assert len(shown.splitlines()) == STRIP_ROWS
        await pilot.press("escape")
        await pilot.pause()
        shown = seen()  # the counts, and the first errors with their pane
        assert "Left: 3" in shown or "Right: 3" in shown
        assert "(the first 2 listed)" in shown and shown.count("factual · minor") == 2
        assert heights == [(STRIP_ROWS, panes)] * len(heights)  # nothing moved
    store.close()


async def test_a_cursor_step_paints_its_lines_and_the_next_item_drops_the_plain_subtitle(tmp_path: Path) -> None:
    spec, store = span_session(tmp_path)
    app = make_app(spec, store, "c", open_guideline=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ItemScreen)
        await pilot.press("m")
        await pilot.pause()
        pane = app.focused
        assert isinstance(pane, ResponsePane)
        await pilot.press("l")  # (after the layout for span mode, Textual paints the scrollbars again)
        await pilot.pause()
        paints = Paints(screen)
        await pilot.press("l")  # the cursor's line only: not the pane's border, nor the key bar
        await pilot.pause()
        assert paints.dirty and all(region.height == 1 for region in paints.dirty)
        assert not paints.touched(screen.query_one(KeyBar).region)
        await pilot.press("enter", "1", "1", "enter", "escape")
        await pilot.pause()
        assert "1 error marked" in str(pane.border_subtitle)
        await pilot.press("1", "enter")  # the next item, in Markdown: no subtitle of the last one's plain view
        await pilot.pause()
        assert all(p.plain is None and not p.border_subtitle for p in screen.response_panes())
    store.close()


async def test_span_mode_paints_only_the_cursor_line_anew(tmp_path: Path, monkeypatch) -> None:
    from annotate.tui.plain_lines import PlainLines

    spec, store = span_session(tmp_path, items=[long_item(i) for i in range(2)])
    app = make_app(spec, store, "r", open_guideline=False)
    painted: list[int] = []
    paint = PlainLines._paint

    def counted(self: PlainLines, number: int):
        painted.append(number)
        return paint(self, number)

    monkeypatch.setattr(PlainLines, "_paint", counted)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ItemScreen)
        while not (app.settled() and screen.spans_prepared()):  # laid out and painted while the annotator reads
            await pilot.pause()
        painted.clear()
        await pilot.press("m")
        await pilot.pause()
        pane = app.focused
        assert isinstance(pane, ResponsePane) and pane.plain_lines is not None
        assert screen.span_slot is not None and painted == [0]  # the line with the cursor
        await pilot.press("escape")
        await pilot.pause()
        painted.clear()
        await pilot.press("m")  # again: the lines kept, with the cursor where it was: nothing painted anew
        await pilot.pause()
        assert screen.span_slot is not None and painted == []
    store.close()


async def test_going_back_to_a_marked_item_lays_its_plain_text_out_again_for_nothing(
    tmp_path: Path, monkeypatch
) -> None:
    """`b` to revise an item with errors marked shows its plain text with the marks: from the offset map
    and layout kept when the item was first shown, not built again (about half of that key's time)."""
    from annotate.text_map import Layout

    spec, store = span_session(tmp_path, items=[long_item(i) for i in range(3)])
    app = make_app(spec, store, "k", open_guideline=False)
    built: list[int] = []
    init = Layout.__init__

    def counted(self, *args, **kwargs):
        built.append(1)
        init(self, *args, **kwargs)

    monkeypatch.setattr(Layout, "__init__", counted)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ItemScreen)
        first = screen.item
        await pilot.press("m", "space", "w", "enter", "1", "1", "enter", "escape", "1", "enter")
        await pilot.pause()
        assert screen.item != first
        while not (app.settled() and screen.spans_prepared()):
            await pilot.pause()
        built.clear()
        await pilot.press("b")
        await pilot.pause()
        assert screen.item == first and screen.spans
        assert any(p.plain is not None for p in screen.response_panes())  # its marks shown on the plain text
        assert built == []
    store.close()
