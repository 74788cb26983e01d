"""The key path's drawing shortcuts paint exactly what Textual would.

Document views join content rows to a border drawn once (annotate/tui/widgets/framed_rows.py),
their scrollbars share cached strips (line_scrollbar.py) and the bars remember the lines of each
state they showed (strip_memo.py). Each is compared here, segment by segment (text and style),
with Textual's own drawing of the same widget in the same state: panes active and not, the narrow
layout (top border only, no padding), scrolled, with a search mark, in light and dark themes and
under NO_COLOR, at 80x24 and 160x48.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.style import Style
from textual.geometry import Region
from textual.scrollbar import ScrollBar
from textual.strip import Strip
from textual.widget import Widget

from annotate.tui import make_app
from annotate.tui.widgets.doc_view import DocView
from annotate.tui.widgets.key_bar import KeyBar
from annotate.tui.widgets.label_bar import LabelBar
from annotate.tui.widgets.line_scrollbar import LineScrollBar
from tests.tui.conftest import make_session, pairwise_item

LONG = "\n\n".join(
    f"## Part {i}\n\nA paragraph with **bold**, `code` and a [link](https://example.com/{i}) that wraps "
    "across the width of the pane more than once, so rows differ.\n\n- a list item\n- another"
    for i in range(30)
)


def cells(strips: list[Strip]) -> list[list[tuple[str, object]]]:
    return [[(seg.text, _drawn(seg.style)) for seg in strip] for strip in strips]


def _drawn(style: Style | None) -> Style | None:
    """`style` without the text offsets a mouse selection reads: they are not drawn, and DocView adds
    them only where the selection asks for a row (`render_line`), not when it paints."""
    if style is None or "offset" not in style.meta:
        return style
    rest = {k: v for k, v in style.meta.items() if k != "offset"}
    return style.clear_meta_and_links() + Style.from_meta(rest) if rest else style.clear_meta_and_links()


def textual_rows(widget: Widget) -> list[list[tuple[str, object]]]:
    """The widget drawn by Textual's own pipeline (its styles cache emptied first)."""
    widget._styles_cache.clear()
    return cells(Widget.render_lines(widget, widget.outer_size.region))


def our_rows(widget: Widget, crop: Region | None = None) -> list[list[tuple[str, object]]]:
    return cells(widget.render_lines(crop or widget.outer_size.region))


def assert_same(widget: Widget) -> None:
    assert widget.size.area, f"{widget!r} is not laid out"
    ours, theirs = our_rows(widget), textual_rows(widget)
    assert len(ours) == len(theirs)
    for y, (a, b) in enumerate(zip(ours, theirs, strict=True)):
        assert a == b, f"{widget!r} row {y} differs"
    width, height = widget.outer_size
    part = Region(3, 1, max(1, width - 7), max(1, height - 2))  # a crop, as the compositor asks for
    widget._styles_cache.clear()
    theirs_part = cells(Widget.render_lines(widget, part))
    assert our_rows(widget, part) == theirs_part


def views(app: object) -> list[DocView]:
    return [view for view in app.screen.query(DocView) if view.display and view.size.area]  # type: ignore[attr-defined]


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
@pytest.mark.parametrize("theme", ["textual-dark", "textual-light"])
async def test_panes_scrollbars_and_bars_paint_as_textual_does(tmp_path: Path, size: tuple[int, int],
                                                               theme: str) -> None:
    spec, store = make_session(tmp_path, items=[pairwise_item(i, a=LONG, b=f"Short answer {i}.") for i in range(3)])
    app = make_app(spec, store, "alice", open_guideline=False, theme=theme)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        shown = views(app)
        assert len(shown) >= 2
        for view in shown:
            view.finish()
        await pilot.pause()
        for view in shown:
            assert_same(view)
        left = app.screen.query_one("#left", DocView)
        assert isinstance(left.vertical_scrollbar, LineScrollBar) and left.vertical_scrollbar.display
        left.scroll_to(y=7, animate=False, immediate=True)
        left.mark = (8, 2, 9)
        await pilot.pause()
        assert_same(left)
        await pilot.press("tab")  # the other pane becomes the active one: its border changes colour
        await pilot.pause()
        for view in views(app):
            assert_same(view)
        for bar in app.screen.query(ScrollBar):
            if bar.display and bar.size.area:
                assert_same(bar)
        for bar_type in (KeyBar, LabelBar):
            bar = app.screen.query_one(bar_type)
            assert_same(bar)
        await pilot.press("1")  # a chosen answer: the label bar and key bar show a new state
        await pilot.pause()
        for bar_type in (KeyBar, LabelBar):
            assert_same(app.screen.query_one(bar_type))
    store.close()


async def test_guideline_panel_and_its_scrollbar(tmp_path: Path) -> None:
    spec, store = make_session(tmp_path)
    app = make_app(spec, store, "alice", open_guideline=True)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        guideline = app.screen.query_one("#guideline", DocView)
        assert guideline.display
        assert_same(guideline)
        assert_same(guideline.vertical_scrollbar)
    store.close()


async def test_no_color_and_narrow_layout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    spec, store = make_session(tmp_path, items=[pairwise_item(i, a=LONG, b=LONG) for i in range(2)])
    app = make_app(spec, store, "alice", open_guideline=False)
    async with app.run_test(size=(60, 30)) as pilot:  # narrow: panes stacked, top border only
        await pilot.pause()
        assert app.screen.has_class("-narrow") or app.screen.query(".-narrow")
        for view in views(app):
            view.finish()
        await pilot.pause()
        for view in views(app):
            assert_same(view)
        for bar in app.screen.query(ScrollBar):
            if bar.display and bar.size.area:
                assert_same(bar)
    store.close()


async def test_label_bar_states_are_remembered_and_told_apart(tmp_path: Path) -> None:
    spec, store = make_session(tmp_path)
    app = make_app(spec, store, "alice", open_guideline=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        bar = app.screen.query_one(LabelBar)
        before = our_rows(bar)
        await pilot.press("2")
        await pilot.pause()
        chosen = our_rows(bar)
        assert chosen != before and "Right better" in "".join(text for text, _ in chosen[0])
        assert "▶" in "".join(text for text, _ in chosen[0])
        await pilot.press("enter")  # the next item: back to nothing chosen, drawn as before
        await pilot.pause()
        assert our_rows(bar) == before == textual_rows(bar)
    store.close()


async def test_ranking_panes_whose_titles_change_with_the_order(tmp_path: Path) -> None:
    from tests.tui.test_ranking import ranking_session

    spec, store = ranking_session(tmp_path)
    app = make_app(spec, store, "alice", open_guideline=False)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        before = {view.id: our_rows(view)[0] for view in views(app)}
        await pilot.press("1")  # response 1 placed first: its title says so
        await pilot.pause()
        changed = [view for view in views(app) if our_rows(view)[0] != before.get(view.id)]
        assert changed, "no pane title changed"
        for view in views(app):
            assert_same(view)
    store.close()
