"""The training round in the app: feedback in screen space, the pass and fail paths, the lead's override."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Static

from annotate.model import slot_to_side
from annotate.store.training import round_entries, set_override, training_state
from annotate.training import import_training
from annotate.tui import make_app
from annotate.tui.screens.item import ItemScreen
from annotate.tui.screens.training import TrainingResultDialog, TrainingScreen
from tests.training_util import add_training_table, write_training_file
from tests.tui.conftest import make_session, screen_render

SIZES = [(80, 24), (160, 48)]
KEY = {"left": "1", "right": "2", "tie": "3", "both_bad": "4"}


def _size_id(size: tuple[int, int]) -> str:
    return f"{size[0]}x{size[1]}"


def _training_session(tmp_path: Path, threshold: float = 0.75, retries: int = 0):
    spec, store = make_session(tmp_path)
    spec = add_training_table(spec, threshold, retries)
    import_training(store, spec, write_training_file(tmp_path))
    return spec, store


def _key_for(entry, gold: str, right: bool) -> str:
    """The digit that answers `entry` right (or wrong) on screen, given its gold slot label."""
    side = slot_to_side(gold, entry.swapped)
    if not right:
        side = "both_bad" if side != "both_bad" else "tie"
    return KEY[side]


GOLD = {"train-0": "A", "train-1": "B", "train-2": "tie", "train-3": "A"}


@pytest.mark.parametrize("size", SIZES, ids=_size_id)
async def test_feedback_shows_the_expected_outcome_on_the_screen_sides(tmp_path: Path, size) -> None:
    spec, store = _training_session(tmp_path)
    app = make_app(spec, store, "alice", open_guideline=False)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, TrainingScreen)
        entries = app.screen.entries
        first = entries[0]
        text = screen_render(app)[0]
        assert "Training 1 of 4" in text and "Left" in text and "Right" in text
        assert "train-" not in text.replace("Training", "")  # ids never on screen (refs are)
        await pilot.press(_key_for(first, GOLD[first.item_id], right=False))
        await pilot.pause()
        text, raw = screen_render(app)
        expected = {"A": "Left better", "B": "Right better"}
        shown = {"left": "Left better", "right": "Right better", "tie": "Tie"}[slot_to_side(GOLD[first.item_id],
                                                                                           first.swapped)]
        assert f"Expected: {shown}" in text and "Your answer: Both bad" in text
        assert "[bold]Slot A[/bold]" in text  # markup shown as text
        assert "\x1b[31m" not in raw  # the escape sequence never reaches the terminal
        assert expected  # slot names are never the feedback's words
        assert "Not the expected outcome" in text
        (stored,) = [e for e in round_entries(store, "alice") if e.label is not None]
        assert stored.label == "both_bad" and stored.acknowledged_at is None and stored.state == "gold feedback pending"
        await pilot.press("i")
        await pilot.pause()
        assert "gold feedback pending" in screen_render(app)[0]
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("1")  # answer keys do nothing while the feedback is up
        await pilot.pause()
        assert [e.label for e in round_entries(store, "alice")][1] is None
        await pilot.press("enter")
        await pilot.pause()
        assert "Training 2 of 4" in screen_render(app)[0]
        assert round_entries(store, "alice")[0].acknowledged_at is not None
    store.close()


async def _answer_round(pilot, app, rights: list[bool]) -> None:
    for index, right in enumerate(rights):
        entry = app.screen.entries[index]
        await pilot.press(_key_for(entry, GOLD[entry.item_id], right), "enter")
        await pilot.pause()


@pytest.mark.parametrize("size", SIZES, ids=_size_id)
async def test_passing_opens_the_main_queue(tmp_path: Path, size) -> None:
    spec, store = _training_session(tmp_path)
    app = make_app(spec, store, "alice", open_guideline=False)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        await _answer_round(pilot, app, [True, True, False, True])  # 3 of 4 = 75 %
        await pilot.pause()
        assert isinstance(app.screen, TrainingResultDialog)
        text = screen_render(app)[0]
        assert "Training passed" in text and "3 of 4 right (75%)" in text
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ItemScreen)
        assert len(store.judgments("alice")) == 0  # training answers are never judgments
        await pilot.press("1", "enter")
        await pilot.pause()
    assert len(store.judgments("alice")) == 1
    state = training_state(store, spec, "alice")
    assert state is not None and state.verdict == "passed"
    store.close()


@pytest.mark.parametrize("size", SIZES, ids=_size_id)
async def test_failing_says_the_score_and_the_command_then_the_override_lets_them_in(tmp_path: Path, size) -> None:
    spec, store = _training_session(tmp_path)
    app = make_app(spec, store, "alice", open_guideline=False)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        await _answer_round(pilot, app, [True, False, False, True])
        await pilot.pause()
        assert isinstance(app.screen, TrainingResultDialog)
        text = screen_render(app)[0]
        assert "Training not passed" in text and "2 of 4 right (50%)" in text and "75%" in text
        said = " ".join(str(w.render()) for w in app.screen.query(Static))
        assert "the lead can let you through with `annotate training t --pass alice`" in said.lower()
        await pilot.press("enter")  # cannot open the main queue
        await pilot.pause()
        assert isinstance(app.screen, TrainingResultDialog)
        await pilot.press("q")
        await pilot.pause()
    assert training_state(store, spec, "alice").verdict == "failed"
    again = make_app(spec, store, "alice", open_guideline=False)
    async with again.run_test(size=size) as pilot:  # still failed: the result again, straight away
        await pilot.pause()
        await pilot.pause()
        assert isinstance(again.screen, TrainingResultDialog)
        await pilot.press("q")
        await pilot.pause()
    set_override(store, "alice", "pass", by="lead")
    assert training_state(store, spec, "alice").verdict == "overridden"
    third = make_app(spec, store, "alice", open_guideline=False)
    async with third.run_test(size=size) as pilot:
        await pilot.pause()
        assert isinstance(third.screen, ItemScreen)
    store.close()


async def test_a_retry_starts_a_new_round_in_a_new_order(tmp_path: Path) -> None:
    spec, store = _training_session(tmp_path, retries=1)
    app = make_app(spec, store, "alice", open_guideline=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await _answer_round(pilot, app, [False, False, False, False])
        await pilot.pause()
        assert "r starts a new round (1 left)" in screen_render(app)[0]
        await pilot.press("r")
        await pilot.pause()
        assert isinstance(app.screen, TrainingScreen) and "round 2" in screen_render(app)[0]
        await _answer_round(pilot, app, [True, True, True, True])
        await pilot.pause()
        assert "Training passed" in screen_render(app)[0]
    assert training_state(store, spec, "alice").attempt == 2
    store.close()


async def test_quitting_with_the_feedback_up_shows_it_again_on_the_next_start(tmp_path: Path) -> None:
    spec, store = _training_session(tmp_path)
    app = make_app(spec, store, "alice", open_guideline=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("2")
        await pilot.pause()
        await pilot.press("q")
        await pilot.pause()
    again = make_app(spec, store, "alice", open_guideline=False)
    async with again.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        text = screen_render(again)[0]
        assert "Training 1 of 4" in text and "Your answer: Right better" in text
    store.close()


async def test_left_is_stored_as_the_slot_on_the_left_swapped_or_not(tmp_path: Path) -> None:
    spec, store = _training_session(tmp_path)
    app = make_app(spec, store, "alice", open_guideline=False)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        entries = app.screen.entries
        assert {e.swapped for e in entries} == {True, False}
        for _ in entries:
            await pilot.press("1", "enter")  # Left better, every time
            await pilot.pause()
    stored = round_entries(store, "alice")
    assert [e.label for e in stored] == ["B" if e.swapped else "A" for e in stored]
    assert all(e.acknowledged_at is not None for e in stored)
    store.close()


async def test_the_main_items_list_shows_the_training_items_first_and_still_goes_to_a_number(tmp_path: Path) -> None:
    from annotate.tui.screens.items import ItemsDialog

    spec, store = _training_session(tmp_path)
    app = make_app(spec, store, "alice", open_guideline=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await _answer_round(pilot, app, [True, True, True, True])
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ItemScreen)
        await pilot.press("i")
        await pilot.pause()
        assert isinstance(app.screen, ItemsDialog)
        text = screen_render(app)[0]
        assert "T1" in text and "T4" in text and "not answered" in text
        await pilot.press("enter")  # Enter on the highlighted entry: the item on screen, not a training one
        await pilot.pause()
        assert isinstance(app.screen, ItemScreen) and app.screen.index == 0
        await pilot.press("i", "3", "enter")
        await pilot.pause()
        assert isinstance(app.screen, ItemScreen) and app.screen.index == 2
    store.close()
