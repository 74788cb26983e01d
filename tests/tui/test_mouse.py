"""Clicks in the answer bar, the aspect and rubric rows, the ranking bars and the key bar do what the
keys do."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import pytest
from textual.pilot import Pilot

from annotate.tui import make_app
from annotate.tui.screens.annotate import PairwiseScreen
from annotate.tui.screens.ranking import RankingScreen
from annotate.tui.widgets.key_bar import KeyBar
from annotate.tui.widgets.label_bar import LabelBar
from annotate.tui.widgets.question_form import QuestionForm
from annotate.tui.widgets.rank_bar import RankBar, RankStrip
from annotate.tui.widgets.rubric_form import RubricForm
from tests.tui.conftest import make_session, pairwise_item, screen_render
from tests.tui.test_ranking import ranking_session

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


def _row_x(line: str, key: str, after: int = 0) -> int:
    """Column of the answer `key` in a form row (` 2 Right`), looked for from column `after`."""
    at = line.find(f" {key} ", after)
    assert at >= 0, (key, line)
    return at + 1


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_clicking_an_aspect_answer_answers_that_aspect_in_slot_space(tmp_path: Path, size) -> None:
    spec, store = make_session(tmp_path, design="aspects", items=[pairwise_item(i) for i in range(4)])
    names = [q.name for q in spec.schema.questions]
    head = 3 + max(len(n) for n in names) + 2
    app = make_app(spec, store, "ann", open_guideline=False)
    expected, seen = {}, set()
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        for _ in range(4):
            screen = app.screen
            assert isinstance(screen, PairwiseScreen)
            assignment = screen.assignment
            assert assignment is not None
            seen.add(assignment.swapped)
            form = screen.query_one(QuestionForm)
            # out of order: overall first (2: Left better), then correctness Left, helpfulness Right, safety Tie
            for row, key in ((3, "2"), (0, "1"), (1, "2"), (2, "3")):
                line = form.render().plain.splitlines()[row]
                await pilot.click(QuestionForm, offset=(_row_x(line, key, head), row))
                await pilot.pause()
                assert f"▶{key} " in form.render().plain.splitlines()[row]  # marked as the key marks it
            left, right = ("B", "A") if assignment.swapped else ("A", "B")
            expected[assignment.id] = {"correctness": left, "helpfulness": right, "safety": "tie",
                                       "overall": "+1" if left == "A" else "-1"}
            assert screen.answers == {"overall": "+1", "correctness": "left", "helpfulness": "right", "safety": "tie"}
            await pilot.click(QuestionForm, offset=(4, 1))  # a row's name marks that row
            await pilot.pause()
            assert form.current == 1
            await pilot.press("enter")
            await pilot.pause()
        assert seen == {True, False}
    judgments = {j.assignment_id: j for j in store.judgments("ann")}
    assert {k: dict(j.scores) for k, j in judgments.items()} == expected
    assert {k: j.label for k, j in judgments.items()} == {k: v["overall"] for k, v in expected.items()}
    store.close()


async def test_clicking_an_answer_while_confidence_is_asked_answers(tmp_path: Path) -> None:
    spec, store = make_session(tmp_path, design="aspects", items=[pairwise_item(i) for i in range(2)])
    app = make_app(spec, store, "ann", open_guideline=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, PairwiseScreen)
        await pilot.press("c")
        form = screen.query_one(QuestionForm)
        line = form.render().plain.splitlines()[2]
        await pilot.click(QuestionForm, offset=(_row_x(line, "3", 12), 2))
        await pilot.pause()
        assert screen.confidence is None and screen.mode == ""  # an answer, not a confidence of 3
        assert screen.answers == {"safety": "tie"} and form.current == 3
    store.close()


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_clicking_a_rubric_score_scores_that_criterion(tmp_path: Path, size) -> None:
    spec, store = make_session(tmp_path, kind="rubric")
    names = [c.name for c in spec.schema.criteria]
    head = 3 + max(len(n) for n in names) + 2
    app = make_app(spec, store, "rita", open_guideline=False)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        form = app.screen.query_one(RubricForm)
        for row, score in ((4, 4), (0, 4), (1, 3), (2, 1), (3, 0)):
            line = form.render().plain.splitlines()[row]
            await pilot.click(RubricForm, offset=(_row_x(line, str(score), head), row))
            await pilot.pause()
            assert f"▶{score}◀" in form.render().plain.splitlines()[row]
        await pilot.press("enter")
        await pilot.pause()
    (judgment,) = store.judgments("rita")
    assert dict(judgment.scores) == dict(zip(names, [4, 3, 1, 0, 4], strict=True))
    store.close()


async def _click_response(pilot: Pilot, strip: RankStrip, position: int) -> None:
    line = strip.render().plain
    at = max(line.find(f"[{position}]"), line.find(f" {position} "))
    await pilot.click(RankStrip, offset=(at + 1, 0))
    await pilot.pause()


async def _click_hint(pilot: Pilot, bar: RankBar, words: str) -> None:
    await pilot.click(RankBar, offset=(bar.render().plain.splitlines()[0].index(words), 0))
    await pilot.pause()


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_clicking_the_ranking_bars_ranks_in_slot_space(tmp_path: Path, size) -> None:
    orders = ["ABCD", "DBAC"]
    spec, store = ranking_session(tmp_path, orders=orders, n=2)
    app = make_app(spec, store, "ann", open_guideline=False)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        for _ in orders:
            screen = app.screen
            assert isinstance(screen, RankingScreen)
            strip = screen.query_one(RankStrip)
            response = partial(_click_response, pilot, strip)
            hint = partial(_click_hint, pilot, screen.query_one(RankBar))
            await response(2)
            await hint("x clear")
            assert screen.places == []
            await response(3)
            await response(2)
            await hint("u undo")
            assert screen.places == [[3]]
            await response(1)
            await hint("= tie")
            assert screen.rank_mode == "tie"
            await response(4)
            await response(2)
            assert screen.places == [[3], [1, 4], [2]]
            assert "1st" in strip.render().plain and "=2nd" in strip.render().plain
            await hint("Enter submits")
            await pilot.pause()
    judgments = {store.assignment(j.assignment_id).item_id: j.label for j in store.judgments("ann")}
    # positions 3 > 1 = 4 > 2 through each display order, as the keys store them (test_ranking.py)
    assert judgments == {"rank-000": "C>A=D>B", "rank-001": "A>C=D>B"}
    store.close()


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_clicking_the_view_keys_in_the_strip_shows_other_responses(tmp_path: Path, size) -> None:
    spec, store = ranking_session(tmp_path, orders=["ABCD"], n=1)
    app = make_app(spec, store, "ann", open_guideline=False)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, RankingScreen)
        line = screen.query_one(RankStrip).render().plain
        await pilot.click(RankStrip, offset=(line.index("]", line.index("  [ ]")), 0))
        await pilot.pause()
        assert screen.view[0] == (3 if size[0] >= 120 else 2)  # the next response not in the other pane
        await pilot.click(RankStrip, offset=(line.index("v+digit"), 0))
        await pilot.pause()
        assert screen.rank_mode == "view"
    store.close()
