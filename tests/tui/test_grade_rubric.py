"""The single-response (grade) and rubric screens."""

from __future__ import annotations

from pathlib import Path

from annotate.tui import make_app
from annotate.tui.screens.grade import GradeScreen, grade_keys
from annotate.tui.screens.rubric import RubricScreen
from tests.tui.conftest import make_session, screen_render


def test_grade_keys() -> None:
    assert grade_keys(1, 10)["0"] == 10 and grade_keys(1, 10)["1"] == 1
    assert grade_keys(0, 4) == {"0": 0, "1": 1, "2": 2, "3": 3, "4": 4}
    assert grade_keys(1, 5)["5"] == 5
    assert grade_keys(0, 20) == {}


async def test_grade_screen(tmp_path: Path) -> None:
    spec, store = make_session(tmp_path, kind="single")
    app = make_app(spec, store, "gina", open_guideline=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, GradeScreen)
        text, _ = screen_render(app)
        assert "Response" in text and "Grade 1-10" in text
        await pilot.press("7", "enter")
        await pilot.pause()
        await pilot.press("0", "minus", "enter")  # 10, then one lower
        await pilot.pause()
        await pilot.press("b")
        await pilot.pause()
        assert app.screen.grade == 9
    assert [j.label for j in store.judgments("gina")] == ["7", "9"]
    store.close()


async def test_rubric_screen(tmp_path: Path) -> None:
    spec, store = make_session(tmp_path, kind="rubric")
    names = [c.name for c in spec.schema.criteria]
    app = make_app(spec, store, "rita", open_guideline=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, RubricScreen)
        text, _ = screen_render(app)
        for name in names:
            assert name in text
        await pilot.press("4", "3", "2")  # the first three criteria, moving down after each
        assert app.screen.check_action("submit", ()) is None
        await pilot.press("up", "1", "0", "4")  # revise the third, then the last two
        await pilot.press("enter")
        await pilot.pause()
    (judgment,) = store.judgments("rita")
    assert judgment.label is None
    assert dict(judgment.scores) == dict(zip(names, [4, 3, 1, 0, 4], strict=True))
    assert store.progress("rita").done == 1
    store.close()
