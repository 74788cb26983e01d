"""FrameAtOnce (annotate/tui/screens/item_frame.py): the frame that shows a new item is drawn when the
screen is idle, not at the next tick of Textual's frame timer."""

from __future__ import annotations

import asyncio
from pathlib import Path

from annotate.tui import make_app
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
