"""SpanCompositor (annotate/tui/compositor.py): a partial update draws only what it writes, and what
the terminal shows after every frame is what a full render of the screen shows."""

from __future__ import annotations

from pathlib import Path

from rich.cells import cell_len
from textual._compositor import ChopsUpdate, LayoutUpdate
from textual.geometry import Region
from textual.strip import Strip

from annotate.tui import make_app
from annotate.tui.compositor import SpanCompositor
from annotate.tui.widgets.doc_view import DocView
from tests.tui.conftest import make_session, pairwise_item

Cell = tuple[str, str]


def long_answer(i: int, side: str) -> str:
    body = "\n\n".join(
        f"## Part {k}\n\nThe {side} answer {i} explains step {k} with **bold** and `code` words.\n\n"
        f"- point {k}a\n- point {k}b\n\n```python\nxs.sort(key=len)  # {k}\n```"
        for k in range(12)
    )
    return f"{side} answer {i} begins here.\n\n{body}"


def write(screen: list[list[Cell]], x: int, y: int, strip: Strip) -> None:
    """Put a strip's cells on the terminal model at (x, y)."""
    for text, style, _control in strip:
        label = str(style) if style else ""
        for char in text:
            width = cell_len(char)
            if 0 <= x < len(screen[y]):
                screen[y][x] = (char, label)
            if width == 2 and x + 1 < len(screen[y]):
                screen[y][x + 1] = ("", label)
            x += width


def apply(screen: list[list[Cell]], update: object) -> None:
    """What a terminal shows after receiving the update (ChopsUpdate.render_segments' logic, in cells)."""
    if isinstance(update, LayoutUpdate):
        for y, strips in enumerate(update.strips):
            write(screen, 0, y, Strip.join(strips))
        return
    assert isinstance(update, ChopsUpdate)
    for y, x1, x2 in update.spans:
        for end, (x, strip) in zip(update.chop_ends[y], update.chops[y].items(), strict=True):
            if strip is None or x > x2 or end <= x1:
                continue
            if not (x2 > x >= x1 and end <= x2):
                strip = strip.crop(0, min(end, x2) - x)
            write(screen, x, y, strip)


def cells(strips: list[Strip]) -> list[list[Cell]]:
    width = max(strip.cell_length for strip in strips)
    screen: list[list[Cell]] = [[(" ", "")] * width for _ in strips]
    for y, strip in enumerate(strips):
        write(screen, 0, y, strip)
    return screen


class Recording(SpanCompositor):
    """Checks each frame against a full render, and counts the rows each widget was asked for."""

    screen_model: list[list[Cell]] | None = None
    frames = 0
    asked: dict[str, int]
    drawn: dict[str, int]
    late: list[int] = []  # noqa: RUF012
    """Rows the last frame left different from a full render without a repaint pending."""
    """Rows asked of each widget (by id) in the last frame that wrote anything."""

    def render_update(self, full: bool = False, screen_stack: list | None = None, simplify: bool = False) -> object:
        self.asked = {}
        update = super().render_update(full=full, screen_stack=screen_stack, simplify=simplify)
        if update is not None:
            self.drawn = dict(self.asked)  # before the full render below asks every widget
        expected = cells(self.render_strips())
        if self.screen_model is None:
            self.screen_model = [[(" ", "")] * len(expected[0]) for _ in expected]
        if update is not None:
            apply(self.screen_model, update)
            self.frames += 1
        mismatched = [y for y, (got, want) in enumerate(zip(self.screen_model, expected, strict=True)) if got != want]
        # A widget whose state changed after this frame was begun (the save status, set by a message
        # from the store thread) is repainted in the next frame: only its rows may differ now.
        pending = {y for widget, (region, clip) in self.visible_widgets.items() if widget._repaint_required
                   for y in region.intersection(clip).line_range}
        self.late = [y for y in mismatched if y not in pending]
        return update


def _count_rows(compositor: Recording) -> None:
    for widget in list(compositor.visible_widgets):
        if getattr(widget, "_counted", False):
            continue
        original = widget.render_lines

        def counted(crop, widget=widget, original=original):  # type: ignore[no-untyped-def]
            asked = widget.screen._compositor.asked
            asked[widget.id or type(widget).__name__] = asked.get(widget.id or type(widget).__name__, 0) + crop.height
            return original(crop)

        widget.render_lines = counted  # type: ignore[method-assign]
        widget._counted = True  # type: ignore[attr-defined]


async def test_every_frame_leaves_the_terminal_as_a_full_render_shows_it(tmp_path: Path) -> None:
    items = [pairwise_item(i, long_answer(i, "Left"), long_answer(i, "Right")) for i in range(5)]
    spec, store = make_session(tmp_path, items=items)
    app = make_app(spec, store, "ann", open_guideline=False)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        compositor = app.screen._compositor
        assert isinstance(compositor, SpanCompositor)
        compositor.__class__ = Recording
        app.screen.refresh()  # a first, full frame puts the whole screen on the model terminal
        await pilot.pause()
        for keys in (("1",), ("enter",), ("space", "space"), ("tab",), ("down", "down"), ("2", "enter"),
                     ("g",), ("g",), ("question_mark",), ("escape",), ("backspace",), ("3", "enter")):
            await pilot.press(*keys)
            await pilot.pause()
            await pilot.pause()
        for _ in range(20):  # everything settles; the last frame leaves the terminal as a full render shows it
            await pilot.pause(0.05)
        app.screen.query_one("#progress").refresh()
        await pilot.pause()
        assert compositor.frames > 12
        assert not compositor.late, f"rows {compositor.late} left different from a full render"
        shown = "\n".join("".join(char for char, _ in row) for row in compositor.screen_model)
        assert "Left answer" in shown and "Right answer" in shown
    store.close()


async def test_a_frame_draws_only_the_widgets_it_changes(tmp_path: Path) -> None:
    items = [pairwise_item(i, long_answer(i, "Left"), long_answer(i, "Right")) for i in range(3)]
    spec, store = make_session(tmp_path, items=items)
    app = make_app(spec, store, "ann", open_guideline=False)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        compositor = app.screen._compositor
        compositor.__class__ = Recording
        app.screen.refresh()
        await pilot.pause()
        _count_rows(compositor)
        screen = app.screen
        screen.query_one("#progress").refresh()
        await pilot.pause()
        assert compositor.drawn == {"progress": 1}  # neither the panes behind the box nor the screen
        await pilot.press("1", "enter")  # the next item: the panes and bars, but not what they hide
        await pilot.pause()
        _count_rows(compositor)
        await pilot.press("space")
        await pilot.pause()
        asked = compositor.drawn
        assert "panes" not in asked and type(screen).__name__ not in asked
        left = next(view for view in screen.query(DocView) if view.id == "left")
        assert asked.get("left", 0) <= left.outer_size.height
    store.close()


def test_the_pieces_needed_are_those_a_span_touches() -> None:
    """The pieces a span needs, and no others."""
    from annotate.tui.compositor import _needed_cuts

    cuts = [[0, 10, 20, 30], [0, 30]]
    assert _needed_cuts(cuts, [(0, 12, 15), (1, 0, 30)]) == {0: [10], 1: [0]}
    assert _needed_cuts(cuts, [(0, 5, 25)]) == {0: [0, 10, 20]}


async def test_the_next_items_rows_are_framed_and_cut_ahead_of_the_key(tmp_path: Path) -> None:
    """The render thread frames the first screenful of the next item's documents (doc_view.py
    `warmer`): the rows the panes paint for it are the ones built then, cut where the compositor
    cuts them and with their terminal text made, and they show the next item in full."""
    items = [pairwise_item(i, long_answer(i, "Left"), long_answer(i, "Right")) for i in range(4)]
    spec, store = make_session(tmp_path, items=items)
    app = make_app(spec, store, "ann", open_guideline=False)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        await pilot.press("1")
        await pilot.pause(0.3)  # past the delay after which reading ahead starts (item_ahead.py)
        while not app.settled():
            await pilot.pause(0.01)
        screen = app.screen
        panes = {pane.id: pane for pane in screen.response_panes()}
        ahead = {pane_id: {key: row for key, (_line, row) in pane._frame.rows.items()}
                 for pane_id, pane in panes.items()}
        await pilot.press("enter")
        await pilot.pause()
        assert screen.index == 1
        for pane_id, pane in panes.items():
            frame = pane._frame
            width = pane.outer_size.width
            shown = pane.scrollable_content_region.height
            rows = pane.render_lines(Region(0, frame.top, width, shown))
            for y, row in enumerate(rows):
                line = pane._lines[y]
                assert ahead[pane_id].get(id(line)) is row, f"{pane_id} row {y} was framed on the key path"
                assert line.text.rstrip() in row.text
            text = "\n".join(row.text for row in rows)
            side = "Left" if "Left answer 1" in text else "Right"
            assert f"{side} answer 1 begins here." in text
            cuts = pane._row_cuts(frame)
            assert cuts and all(piece._render_cache is not None for piece in rows[0].divide(cuts))
    store.close()
