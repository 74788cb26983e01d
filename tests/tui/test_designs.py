"""The pairwise screen on graded and per-aspect schemas: what is stored, in slot space, for
swapped and unswapped assignments alike."""

from __future__ import annotations

from pathlib import Path

from annotate.design import Graded, Outcomes
from annotate.tui import make_app
from annotate.tui.screens.annotate import PairwiseScreen
from annotate.tui.widgets.question_form import QuestionForm
from tests.tui.conftest import make_session, pairwise_item, screen_render

SIZE = (160, 48)


def _screen(app: object) -> PairwiseScreen:
    screen = app.screen  # type: ignore[attr-defined]
    assert isinstance(screen, PairwiseScreen)
    return screen


async def test_graded_answers_are_signed_strengths_from_slot_a(tmp_path: Path) -> None:
    spec, store = make_session(tmp_path, design="graded-5", items=[pairwise_item(i) for i in range(8)])
    assert isinstance(spec.schema.primary, Graded) and spec.schema.primary.both_bad
    app = make_app(spec, store, "gail", open_guideline=False)
    # key -> strength from the Left's view: 1 Left much better .. 5 Right much better, 6 both bad
    from_left = {"1": 2, "2": 1, "3": 0, "4": -1, "5": -2}
    expected: dict[int, str] = {}
    swapped_seen = set()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        text, _ = screen_render(app)
        assert "Left much better" in text and "Right much better" in text and "Both bad" in text
        for key in ("1", "2", "3", "4", "5", "6", "1", "5"):
            assignment = _screen(app).assignment
            assert assignment is not None
            swapped_seen.add(assignment.swapped)
            if key == "6":
                expected[assignment.id] = "both_bad"
            else:
                strength = from_left[key] if not assignment.swapped else -from_left[key]
                expected[assignment.id] = f"+{strength}" if strength > 0 else str(strength)
            await pilot.press(key, "enter")
            await pilot.pause()
    assert swapped_seen == {True, False}
    judgments = store.judgments("gail")
    assert {j.assignment_id: j.label for j in judgments} == expected
    assert all(dict(j.scores) == {} for j in judgments)
    store.close()


async def test_graded_revision_shows_the_answer_on_its_side(tmp_path: Path) -> None:
    spec, store = make_session(tmp_path, design="graded-7", items=[pairwise_item(i) for i in range(4)])
    app = make_app(spec, store, "gus", open_guideline=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("2", "enter")  # Left better on 7 points: +2 from the left
        await pilot.pause()
        await pilot.press("b")
        await pilot.pause()
        screen = _screen(app)
        assert screen.choice == "+2"
        text, _ = screen_render(app)
        assert "Left better" in text  # the chosen answer keeps its full words at 80 columns
    (judgment,) = store.judgments("gus")
    first = store.assignments("gus")[0]
    assert judgment.label == ("-2" if first.swapped else "+2")
    store.close()


async def test_aspects_one_row_each_stored_per_aspect_in_slot_space(tmp_path: Path) -> None:
    spec, store = make_session(tmp_path, design="aspects", items=[pairwise_item(i) for i in range(6)])
    names = [q.name for q in spec.schema.questions]
    assert names == ["correctness", "helpfulness", "safety", "overall"]
    assert spec.schema.primary_name == "overall"
    assert isinstance(spec.schema.question("safety"), Outcomes)
    app = make_app(spec, store, "ann", open_guideline=False)
    seen = set()
    expected = {}
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        text, _ = screen_render(app)
        for name in names:
            assert name in text
        for _ in range(4):
            screen = _screen(app)
            assignment = screen.assignment
            assert assignment is not None
            seen.add(assignment.swapped)
            left, right = ("B", "A") if assignment.swapped else ("A", "B")
            # correctness Left, helpfulness Right, safety Tie, overall 2 = Left better (+1 from the left)
            await pilot.press("1", "2", "3")
            assert screen.check_action("submit", ()) is None  # overall still open
            await pilot.press("2")
            expected[assignment.id] = {
                "correctness": left, "helpfulness": right, "safety": "tie",
                "overall": "+1" if left == "A" else "-1",
            }
            await pilot.press("enter")
            await pilot.pause()
        assert seen == {True, False}
    judgments = {j.assignment_id: j for j in store.judgments("ann")}
    assert {k: dict(j.scores) for k, j in judgments.items()} == expected
    assert {k: j.label for k, j in judgments.items()} == {k: v["overall"] for k, v in expected.items()}
    store.close()


async def test_aspects_arrows_move_between_rows_and_revise(tmp_path: Path) -> None:
    spec, store = make_session(tmp_path, design="aspects", items=[pairwise_item(i) for i in range(3)])
    app = make_app(spec, store, "ari", open_guideline=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = _screen(app)
        await pilot.press("1", "1", "1", "1")  # every row Left (overall: Left much better)
        await pilot.press("up", "up", "2")  # back to helpfulness: Right
        form = screen.query_one(QuestionForm)
        assert form.current == 2 and screen.answers["helpfulness"] == "right"  # moved on after the digit
        await pilot.press("enter")
        await pilot.pause()
    (judgment,) = store.judgments("ari")
    first = store.assignments("ari")[0]
    left, right = ("B", "A") if first.swapped else ("A", "B")
    assert dict(judgment.scores) == {"correctness": left, "helpfulness": right, "safety": left,
                                     "overall": "+2" if left == "A" else "-2"}
    store.close()


async def test_help_lists_the_schemas_keys(tmp_path: Path) -> None:
    spec, store = make_session(tmp_path, design="aspects", items=[pairwise_item(i) for i in range(2)])
    app = make_app(spec, store, "hal", open_guideline=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("question_mark")
        await pilot.pause()
        text, _ = screen_render(app)
        assert "Aspect: overall" in text and "Right much better" in text and "Next aspect" in text
        assert "Left better" in text  # the four-outcome rows
    store.close()
