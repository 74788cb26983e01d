"""Pilot tests of each suggestion display mode: the suggestion appears exactly as the assignment's
condition says and never otherwise; initial and final labels and the time it was on screen are
stored; the on_request reveal is logged; the model's name never appears."""

from __future__ import annotations

from pathlib import Path

import pytest

from annotate.model import Assignment, Suggestion, slot_to_side
from annotate.suggest.display import REVEAL_EVENT, SHOWN_EVENT, SuggestionView, suggestion_text
from annotate.tui import make_app
from annotate.tui.app import AnnotateApp
from annotate.tui.widgets.suggestion import SuggestionLine
from tests.tui.conftest import make_session, screen_render, single_item

SIZE = (160, 48)
JUDGE = "secret-judge-70b"


class FakeClock:
    def __init__(self) -> None:
        self.now = 1_000_000_000_000

    def __call__(self) -> int:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += int(seconds * 1e9)


def setup(tmp_path: Path, conditions: list[str], swapped: list[bool] | None = None, kind: str = "pairwise",
          label: str = "A"):
    """A session whose annotator `ann` has one assignment per condition, each with a suggestion."""
    items = [single_item(i) for i in range(len(conditions))] if kind == "single" else None
    spec, store = make_session(tmp_path, kind=kind, items=items)
    item_ids = store.item_ids()[: len(conditions)]
    suggestions = store.add_suggestions([Suggestion(i, JUDGE, label) for i in item_ids])
    swapped = swapped or [False] * len(conditions)
    store.add_assignments([
        Assignment(0, "ann", item_id, position, swapped=flag, condition=condition, suggestion_id=s.id)
        for position, (item_id, condition, flag, s) in enumerate(zip(item_ids, conditions, swapped, suggestions,
                                                                     strict=True))
    ])
    store.set_meta("plan_hash", "test")  # a planned queue: no default assignments are added
    return spec, store


def line(app: AnnotateApp) -> SuggestionLine:
    return app.screen.query_one(SuggestionLine)


def on_screen(app: AnnotateApp) -> str:
    return screen_render(app)[0]


async def test_none_never_shows_the_suggestion(tmp_path: Path) -> None:
    spec, store = setup(tmp_path, ["none"])
    clock = FakeClock()
    app = make_app(spec, store, "ann", open_guideline=False, clock=clock)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert not line(app).display and "Suggestion" not in on_screen(app)
        await pilot.press("a")  # nothing to reveal
        await pilot.pause()
        assert "Suggestion" not in on_screen(app)
        await pilot.press("1", "enter")
        await pilot.pause()
    judgment = store.judgments("ann")[0]
    assert judgment.timings.suggestion_ms is None and judgment.initial_label is None
    kinds = {e.kind for e in store.events()}
    assert SHOWN_EVENT not in kinds and REVEAL_EVENT not in kinds
    store.close()


@pytest.mark.parametrize(("swapped", "shown"), [(False, "Left better"), (True, "Right better")])
async def test_upfront_shows_it_in_side_space_with_the_item(tmp_path: Path, swapped: bool, shown: str) -> None:
    spec, store = setup(tmp_path, ["upfront"], swapped=[swapped])
    clock = FakeClock()
    app = make_app(spec, store, "ann", open_guideline=False, clock=clock)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert line(app).display
        text = on_screen(app)
        assert f"Suggestion: {shown}" in text
        assert JUDGE not in text
        clock.advance(4.0)
        await pilot.press("2", "enter")
        await pilot.pause()
    judgment = store.judgments("ann")[0]
    assert judgment.timings.suggestion_ms == 4000
    assert judgment.initial_label is None
    assert judgment.label == ("A" if swapped else "B")
    assert SHOWN_EVENT in {e.kind for e in store.events()}
    store.close()


async def test_after_shows_it_once_a_first_answer_is_committed_then_confirm_or_revise(tmp_path: Path) -> None:
    spec, store = setup(tmp_path, ["after", "after"])
    clock = FakeClock()
    app = make_app(spec, store, "ann", open_guideline=False, clock=clock)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert not line(app).display and "Suggestion" not in on_screen(app)
        await pilot.press("2")  # Right (slot B)
        clock.advance(5.0)
        await pilot.press("enter")  # the first answer: kept, the suggestion appears, nothing written yet
        await pilot.pause()
        assert store.judgments("ann") == []
        assert app.screen.index == 0
        assert "Suggestion: Left better" in on_screen(app)
        clock.advance(2.0)
        await pilot.press("1", "enter")  # revised to the suggestion
        await pilot.pause()
        # the second item: confirm the first answer unchanged
        assert app.screen.index == 1 and not line(app).display
        await pilot.press("2", "enter")
        await pilot.pause()
        assert line(app).display
        clock.advance(1.0)
        await pilot.press("enter")
        await pilot.pause()
    first, second = store.judgments("ann")
    assert (first.initial_label, first.label) == ("B", "A")
    assert first.timings.suggestion_ms == 2000
    assert (second.initial_label, second.label) == ("B", "B")
    assert second.timings.suggestion_ms == 1000
    kinds = [e.kind for e in store.events(first.assignment_id)]
    assert "suggestion.initial" in kinds and SHOWN_EVENT in kinds
    store.close()


async def test_on_request_reveals_on_a_key_and_logs_it(tmp_path: Path) -> None:
    spec, store = setup(tmp_path, ["on_request", "on_request"], swapped=[True, False])
    clock = FakeClock()
    app = make_app(spec, store, "ann", open_guideline=False, clock=clock)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        text = on_screen(app)
        assert "Press a to see a suggestion" in text and "Suggestion:" not in text
        clock.advance(3.0)
        await pilot.press("a")
        await pilot.pause()
        assert "Suggestion: Right better" in on_screen(app)  # slot A shown on the right (swapped)
        assert app.screen.check_action("reveal_suggestion", ()) is None  # once is enough
        clock.advance(1.5)
        await pilot.press("1", "enter")
        await pilot.pause()
        # the second item: answered without asking
        assert "Press a to see a suggestion" in on_screen(app)
        await pilot.press("1", "enter")
        await pilot.pause()
    first, second = store.judgments("ann")
    assert first.timings.suggestion_ms == 1500 and first.initial_label is None
    assert second.timings.suggestion_ms is None
    reveals = [e for e in store.events() if e.kind == REVEAL_EVENT]
    assert [e.assignment_id for e in reveals] == [first.assignment_id]
    store.close()


async def test_grades_show_the_suggested_grade(tmp_path: Path) -> None:
    spec, store = setup(tmp_path, ["upfront"], kind="single", label="7")
    app = make_app(spec, store, "ann", open_guideline=False, clock=FakeClock())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert "Suggestion: 7" in on_screen(app)
        await pilot.press("5", "enter")
        await pilot.pause()
    assert store.judgments("ann")[0].label == "5"
    store.close()


async def test_going_back_in_after_shows_it_again_and_keeps_the_initial_label(tmp_path: Path) -> None:
    spec, store = setup(tmp_path, ["after", "none"])
    clock = FakeClock()
    app = make_app(spec, store, "ann", open_guideline=False, clock=clock)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("2", "enter")
        await pilot.pause()
        await pilot.press("1", "enter")
        await pilot.pause()
        await pilot.press("b")
        await pilot.pause()
        assert app.screen.index == 0 and line(app).display  # seen already: shown at once
        await pilot.press("3", "enter")
        await pilot.pause()
    revised = store.current_judgment(store.assignments("ann")[0].id)
    assert revised is not None and (revised.initial_label, revised.label) == ("B", "tie")
    store.close()


def test_view_rules_without_textual() -> None:
    assert SuggestionView.start("upfront", None, "pairwise", False, 0).text() == ""
    assert SuggestionView.start("none", "A", "pairwise", False, 0).stage == "hidden"
    view = SuggestionView.start("after", "B", "pairwise", True, 0)
    assert view.stage == "waiting" and view.intercept_submit("A", 0) is True
    assert view.initial_label == "A" and view.visible
    assert suggestion_text("both_bad", "pairwise", False) == "Suggestion: Both bad"
    assert suggestion_text(slot_to_side("A", True), "pairwise", False) == "Suggestion: ?"
    assert suggestion_text("[red]x", "single", False) == "Suggestion: ?"
