"""FrameAtOnce (annotate/tui/screens/item_frame.py): the frame that shows a new item is drawn when the
screen is idle, not at the next tick of Textual's frame timer, with every widget the item changed."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from textual.widget import Widget

from annotate.tui import make_app
from annotate.tui.widgets.progress_line import ProgressLine
from tests.tui.conftest import make_session, screen_render


async def test_the_next_item_is_drawn_with_the_frame_timer_stopped(tmp_path: Path) -> None:
    spec, store = make_session(tmp_path)
    app = make_app(spec, store, "ann", open_guideline=False)
    painted: list[int] = []
    app.painted_hooks.append(painted.append)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        screen = app.screen
        first = screen.item
        assert first is not None and painted
        screen._update_timer.stop()  # from here on, only FrameAtOnce draws
        await pilot.press("1", "enter")
        for _ in range(500):
            if len(painted) > 1:
                break
            await asyncio.sleep(0.01)
        shown = screen.item
        assert shown is not None and shown.id != first.id
        assert len(painted) == 2  # the next item was painted
        text, _raw = screen_render(app)
        assert shown.conversation[-1].content in text and first.conversation[-1].content not in text
        await pilot.press("q")
    store.close()


async def test_a_change_that_has_not_reached_the_screen_yet_is_in_the_frame(tmp_path: Path) -> None:
    """Under load the screen can be idle before a changed widget's own idle handler has told it: the
    frame waits for that widget rather than leave it to the timer's next tick."""
    spec, store = make_session(tmp_path)
    app = make_app(spec, store, "ann", open_guideline=False)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        screen = app.screen
        screen._update_timer.stop()
        prompt = screen.query_one("#prompt")
        drawn: list[set[Widget]] = []
        draw = screen._on_timer_update

        def drawing() -> None:
            drawn.append(set(screen._dirty_widgets))
            draw()

        screen._on_timer_update = drawing  # type: ignore[method-assign]
        screen.draw_next_frame_at_once()
        prompt._repaint_required = True  # changed, and its idle handler has not run yet
        screen.query_one(ProgressLine).refresh()
        for _ in range(300):
            if drawn:
                break
            await asyncio.sleep(0.01)
        assert len(drawn) == 1 and prompt in drawn[0] and not prompt._repaint_required
        await pilot.press("q")
    store.close()


async def test_without_the_refresh_state_it_reads_the_timer_draws_as_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """FrameAtOnce reads Textual's private refresh state; a Textual without it must not break the app:
    the frames are then the timer's, and the next item still shows."""
    import annotate.tui.screens.item_frame as item_frame

    monkeypatch.setattr(item_frame, "_frame_state_unknown", False)
    spec, store = make_session(tmp_path)
    app = make_app(spec, store, "ann", open_guideline=False)
    painted: list[int] = []
    app.painted_hooks.append(painted.append)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        screen = app.screen
        first = screen.item
        # A widget as a Textual without `_repaint_required` and its kin would give (renamed private state).
        walk = screen.walk_children

        class Renamed:  # what item_frame asks the widgets for
            pass

        monkeypatch.setattr(item_frame, "Widget", Renamed)
        monkeypatch.setattr(screen, "walk_children",
                            lambda *args, **kwargs: [object()] if args == (Renamed,) else walk(*args, **kwargs))
        await pilot.press("1", "enter")
        for _ in range(500):
            if len(painted) > 1:
                break
            await asyncio.sleep(0.01)
        assert item_frame._frame_state_unknown
        shown = screen.item
        assert shown is not None and first is not None and shown.id != first.id and len(painted) == 2
        await pilot.press("q")
    store.close()
