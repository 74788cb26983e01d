"""Pilot tests of the pairwise screen, asserting on what the store holds."""

from __future__ import annotations

from pathlib import Path

from annotate.guidelines import load_guideline
from annotate.model import side_to_slot
from annotate.tui import make_app
from annotate.tui.app import AnnotateApp
from annotate.tui.screens.annotate import PairwiseScreen
from annotate.tui.widgets.guideline_panel import GuidelinePanel
from tests.tui.conftest import make_session, pairwise_item

SIZE = (160, 48)


class FakeClock:
    """A monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1_000_000_000_000

    def __call__(self) -> int:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += int(seconds * 1e9)


def screen(app: AnnotateApp) -> PairwiseScreen:
    assert isinstance(app.screen, PairwiseScreen)
    return app.screen


async def test_labels_are_stored_in_slot_space(tmp_path: Path) -> None:
    spec, store = make_session(tmp_path)
    app = make_app(spec, store, "alice", open_guideline=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        expected = {}
        for key, side in (("1", "left"), ("2", "right"), ("3", "tie"), ("4", "both_bad")):
            assignment = screen(app).assignment
            assert assignment is not None
            expected[assignment.id] = side_to_slot(side, assignment.swapped)
            await pilot.press(key, "enter")
            await pilot.pause()
    judgments = store.judgments("alice")
    assert {j.assignment_id: j.label for j in judgments} == expected
    shipped = load_guideline("pairwise-chat").version
    assert all(j.guideline_id == "pairwise-chat" and j.guideline_version == shipped for j in judgments)
    store.close()


async def test_always_left_gives_a_and_b_in_the_ratio_of_unswapped_to_swapped(tmp_path: Path) -> None:
    spec, store = make_session(tmp_path, items=[pairwise_item(i) for i in range(12)])
    app = make_app(spec, store, "lefty", open_guideline=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        for _ in range(12):
            await pilot.press("1", "enter")
            await pilot.pause()
    assignments = {a.id: a for a in store.assignments("lefty")}
    labels = [j.label for j in store.judgments("lefty")]
    unswapped = sum(1 for a in assignments.values() if not a.swapped)
    swapped = len(assignments) - unswapped
    assert labels.count("A") == unswapped and labels.count("B") == swapped
    assert unswapped == swapped == 6  # the default queue counterbalances sides
    store.close()


async def test_submit_is_disabled_until_a_label_is_chosen(tmp_path: Path) -> None:
    spec, store = make_session(tmp_path)
    app = make_app(spec, store, "alice", open_guideline=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.screen.check_action("submit", ()) is None
        await pilot.press("enter")
        await pilot.pause()
        assert screen(app).index == 0
        await pilot.press("3")
        assert app.screen.check_action("submit", ()) is True
    assert store.judgments("alice") == []
    store.close()


async def test_rationale_confidence_and_timings(tmp_path: Path) -> None:
    spec, store = make_session(tmp_path)
    clock = FakeClock()
    app = make_app(spec, store, "alice", clock=clock)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.screen.query_one(GuidelinePanel).display  # open on the first item ever
        clock.advance(5)
        await pilot.press("g")  # close after 5 s
        clock.advance(2)
        await pilot.press("1")
        clock.advance(40)  # an idle gap: removed from active time
        await pilot.press("r", *"clearer code", "enter", "c", "4")
        clock.advance(1)
        await pilot.press("enter")
        await pilot.pause()
    (judgment,) = store.judgments("alice")
    assert judgment.rationale == "clearer code"
    assert judgment.confidence == 4
    t = judgment.timings
    assert t.guideline_ms == 5000
    assert t.first_input_ms == 5000
    assert t.submit_ms == 48_000
    assert t.active_ms == 8000
    assert set(t.pane_view_ms) == {"A", "B"}
    assert min(t.pane_view_ms.values()) >= 43_000  # one pane was under the guideline for 5 s
    assert t.pane_max_scroll == {"A": 1.0, "B": 1.0}
    store.close()


async def test_back_revise_supersedes_and_keeps_both_rows(tmp_path: Path) -> None:
    spec, store = make_session(tmp_path)
    app = make_app(spec, store, "alice", open_guideline=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        first = screen(app).assignment
        assert first is not None
        await pilot.press("1", "enter")
        await pilot.pause()
        await pilot.press("b")
        await pilot.pause()
        assert screen(app).assignment == first
        assert screen(app).choice == "left"  # the stored answer is preselected
        await pilot.press("enter")  # unchanged: moves on, writes nothing
        await pilot.pause()
        assert screen(app).index == 1
        await pilot.press("backspace")
        await pilot.pause()
        await pilot.press("2", "enter")
        await pilot.pause()
    rows = [j for j in store.judgments("alice", include_superseded=True) if j.assignment_id == first.id]
    assert len(rows) == 2
    old, new = rows
    assert old.superseded_by == new.id and new.superseded_by is None
    assert old.label == side_to_slot("left", first.swapped)
    assert new.label == side_to_slot("right", first.swapped)
    assert store.current_judgment(first.id) == new
    store.close()


async def test_skip_with_reason(tmp_path: Path) -> None:
    spec, store = make_session(tmp_path)
    app = make_app(spec, store, "alice", open_guideline=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("s")
        await pilot.pause()
        await pilot.press("escape")  # cancel: nothing written
        await pilot.pause()
        assert screen(app).index == 0
        await pilot.press("s", "2")
        await pilot.pause()
        assert screen(app).index == 1
        await pilot.press("s", "5")
        await pilot.pause()
        await pilot.press(*"typo in prompt", "enter")
        await pilot.pause()
    skips = store.judgments("alice")
    assert [(j.label, j.skip_reason) for j in skips] == [(None, "broken"), (None, "other: typo in prompt")]
    assert store.progress("alice").skipped == 2
    store.close()


async def test_resume_at_first_unfinished_and_guideline_only_on_first_item(tmp_path: Path) -> None:
    spec, store = make_session(tmp_path)
    app = make_app(spec, store, "alice")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("g", "1", "enter", "2", "enter", "q")
        await pilot.pause()
    assert store.progress("alice").next_position == 2
    again = make_app(spec, store, "alice")
    async with again.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert screen(again).index == 2
        assert screen(again).assignment == store.assignments("alice")[2]
        assert not again.screen.query_one(GuidelinePanel).display
    store.close()


async def test_next_unfinished_jumps_over_answered_items(tmp_path: Path) -> None:
    spec, store = make_session(tmp_path)
    app = make_app(spec, store, "alice", open_guideline=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("1", "enter", "1", "enter", "1", "enter")
        await pilot.pause()
        await pilot.press("b", "b", "b")
        await pilot.pause()
        assert screen(app).index == 0
        await pilot.press("n")
        await pilot.pause()
        assert screen(app).index == 3
    kinds = [e.kind for e in store.events()]
    assert kinds.count("nav.back") == 3 and "nav.next_unfinished" in kinds
    store.close()


async def test_every_key_action_is_an_event(tmp_path: Path) -> None:
    spec, store = make_session(tmp_path)
    app = make_app(spec, store, "alice", open_guideline=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        first = screen(app).assignment
        assert first is not None
        await pilot.press("j", "tab", "l", "g", "g", "question_mark")
        await pilot.pause()
        await pilot.press("escape", "3", "c", "2", "enter")
        await pilot.pause()
        await pilot.press("q")
        await pilot.pause()
    assert len(store.judgments("alice")) == 1
    events = store.events(first.id)
    kinds = [e.kind for e in events]
    for kind in ("item.shown", "key.scroll", "key.switch_pane", "scroll.link", "guideline.toggle", "help.open",
                 "key.label", "key.confidence", "key.submit"):
        assert kind in kinds, kind
    label = next(e for e in events if e.kind == "key.label")
    assert dict(label.payload) == {"key": "3", "side": "tie", "slot": "tie"}
    assert all(e.annotator == "alice" for e in events)
    quit_events = [e for e in store.events() if e.kind == "app.quit"]
    assert len(quit_events) == 1
    store.close()


async def test_quit_right_after_submit_keeps_the_write(tmp_path: Path) -> None:
    spec, store = make_session(tmp_path)
    app = make_app(spec, store, "alice", open_guideline=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("1", "enter", "q")
    assert len(store.judgments("alice")) == 1
    store.close()


async def test_finishing_the_queue(tmp_path: Path) -> None:
    spec, store = make_session(tmp_path, items=[pairwise_item(i) for i in range(2)])
    app = make_app(spec, store, "alice", open_guideline=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("1", "enter", "2", "enter")
        await pilot.pause()
        assert type(app.screen).__name__ == "FinishedDialog"
        await pilot.press("b")
        await pilot.pause()
        assert screen(app).index == 1
        assert screen(app).choice == "right"
    progress = store.progress("alice")
    assert (progress.done, progress.next_position) == (2, None)
    store.close()


async def test_narrow_terminal_stacks_the_panes(tmp_path: Path) -> None:
    spec, store = make_session(tmp_path)
    app = make_app(spec, store, "alice", open_guideline=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        left = app.screen.query_one("#left")
        right = app.screen.query_one("#right")
        assert left.region.x == right.region.x and left.region.y < right.region.y
        assert left.region.height >= 5
        await pilot.press("1", "enter")
        await pilot.pause()
        await pilot.resize_terminal(160, 48)
        await pilot.pause()
        assert left.region.y == right.region.y and left.region.x < right.region.x
    assert len(store.judgments("alice")) == 1
    store.close()


async def test_zoom_hides_the_other_pane_from_view_time(tmp_path: Path) -> None:
    spec, store = make_session(tmp_path)
    clock = FakeClock()
    app = make_app(spec, store, "alice", clock=clock, open_guideline=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assignment = screen(app).assignment
        assert assignment is not None
        await pilot.press("z")  # zoom the active (left) pane
        await pilot.pause()
        clock.advance(10)
        await pilot.press("z")
        await pilot.pause()
        clock.advance(2)
        await pilot.press("1", "enter")
        await pilot.pause()
    (judgment,) = store.judgments("alice")
    left = side_to_slot("left", assignment.swapped)
    right = side_to_slot("right", assignment.swapped)
    assert judgment.timings.pane_view_ms[left] == 12_000
    assert judgment.timings.pane_view_ms[right] == 2_000
    store.close()


async def test_break_reminder_after_a_long_stretch(tmp_path: Path) -> None:
    spec, store = make_session(tmp_path, items=[pairwise_item(i) for i in range(30)])
    clock = FakeClock()
    app = make_app(spec, store, "alice", clock=clock, open_guideline=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        for _ in range(12):  # 48 minutes, never idle for 5
            clock.advance(240)
            await pilot.press("1", "enter")
            await pilot.pause()
        assert not app.break_due()
        clock.advance(240)
        await pilot.press("2", "enter")
        await pilot.pause()
        assert app.break_due()
        from tests.tui.conftest import screen_render

        assert "Consider a short break" in screen_render(app)[0]
        clock.advance(6 * 60)  # a real pause resets the stretch
        await pilot.press("3", "enter")
        await pilot.pause()
        assert not app.break_due()
    store.close()


async def test_a_write_landing_before_the_finished_dialog_is_composed(tmp_path: Path) -> None:
    """`Saved` can arrive between the dialog's push and its compose (the write starts once the last item is
    painted): the save status must not fail the app then, and the dialog shows the status once composed."""
    from annotate.tui.screens.finished import FinishedDialog

    spec, store = make_session(tmp_path, items=[pairwise_item(i) for i in range(2)])
    app = make_app(spec, store, "alice", open_guideline=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        dialog = FinishedDialog(2, 0)
        mounted = app.push_screen(dialog)
        dialog.refresh_progress()  # not composed yet: nothing to update
        await mounted
        await pilot.pause()
        dialog.refresh_progress()
        assert "saved" in str(dialog.query_one("#finished-saved").render()).lower()
    store.close()
