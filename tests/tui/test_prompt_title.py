"""The prompt pane's title is set only when it changes (`PromptPane._title`): setting a border title
paints the widget again, and every new item's scroll to the end set the same "Prompt", so each item
came in two frames, the second one the prompt pane alone."""

from __future__ import annotations

import asyncio
from pathlib import Path

from annotate.tui import make_app
from annotate.tui.widgets.prompt_pane import PromptPane
from tests.tui.conftest import make_session
from tests.tui.test_question_in_view import LONG_PROMPT


async def test_a_new_item_whose_prompt_fits_does_not_paint_the_prompt_pane_again(tmp_path: Path) -> None:
    spec, store = make_session(tmp_path)
    app = make_app(spec, store, "ann", open_guideline=False)
    painted: list[int] = []
    app.painted_hooks.append(painted.append)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        prompt = app.screen.query_one("#prompt", PromptPane)
        refreshed: list[bool] = []
        refresh = prompt.refresh

        def counting(*args: object, **kwargs: object) -> object:
            refreshed.append(True)
            return refresh(*args, **kwargs)  # type: ignore[arg-type]

        prompt.refresh = counting  # type: ignore[method-assign]
        await pilot.press("1", "enter")
        for _ in range(500):
            if len(painted) > 1:
                break
            await asyncio.sleep(0.01)
        await pilot.pause()
        shown = len(refreshed)  # showing the new prompt refreshes the pane
        prompt._title()
        prompt._scroll_to_end()
        await pilot.pause()
        assert len(refreshed) == shown  # the same title: no paint
        assert str(prompt.border_title) == "Prompt"
        await pilot.press("q")
    store.close()


async def test_the_title_still_follows_the_lines_above(tmp_path: Path) -> None:
    spec, store = make_session(tmp_path, items=[LONG_PROMPT])
    app = make_app(spec, store, "alice", open_guideline=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        prompt = app.screen.query_one("#prompt", PromptPane)
        above = round(prompt.scroll_y)
        assert above > 1 and str(prompt.border_title) == f"Prompt ▲ {above} lines above"
        prompt.scroll_to(y=1, animate=False, immediate=True)
        await pilot.pause()
        assert str(prompt.border_title) == "Prompt ▲ 1 line above"
        prompt.scroll_to(y=0, animate=False, immediate=True)
        await pilot.pause()
        assert str(prompt.border_title) == "Prompt"
        prompt.scroll_to(y=above, animate=False, immediate=True)
        await pilot.pause()
        assert str(prompt.border_title) == f"Prompt ▲ {above} lines above"
        await pilot.press("q")
    store.close()
