"""Clicks in the answer bar and the key bar do what the keys do."""

from __future__ import annotations

from pathlib import Path

import pytest

from annotate.tui import make_app
from annotate.tui.widgets.key_bar import KeyBar
from annotate.tui.widgets.label_bar import LabelBar
from tests.tui.conftest import make_session, screen_render

SIZES = [(80, 24), (160, 48)]


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_clicking_an_outcome_and_submit_answers_the_item(tmp_path: Path, size) -> None:
    spec, store = make_session(tmp_path)
    app = make_app(spec, store, "alice", open_guideline=False)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        bar = app.screen.query_one(LabelBar)
        top = bar.render().plain.splitlines()[0]
        await pilot.click(LabelBar, offset=(top.index("Tie"), 0))
        await pilot.pause()
        assert app.screen.has_answer() and "▶ 3  Tie ◀" in screen_render(app)[0]
        bottom = bar.render().plain.splitlines()[1]
        await pilot.click(LabelBar, offset=(bottom.index("submit"), 1))
        await pilot.pause()
        assert app.screen.index == 1
        keys = app.screen.query_one(KeyBar).render().plain
        await pilot.click(KeyBar, offset=(keys.index("Back"), 0))
        await pilot.pause()
        assert app.screen.index == 0
        await pilot.click(KeyBar, offset=(keys.index("Skip"), 0))
        await pilot.pause()
        assert type(app.screen).__name__ == "SkipDialog"
    assert [j.label for j in store.judgments("alice")] == ["tie"]
    store.close()


async def test_clicking_a_grade_grades(tmp_path: Path) -> None:
    spec, store = make_session(tmp_path, kind="single")
    app = make_app(spec, store, "alice", open_guideline=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        top = app.screen.query_one(LabelBar).render().plain.splitlines()[0]
        assert "1  1" not in top  # one number per grade, not the key and its label
        await pilot.click(LabelBar, offset=(top.index(" 7 ") + 1, 0))
        await pilot.pause()
        assert app.screen.grade == 7
    store.close()
