"""The lead plans the session while an annotator has the app open: no answer lands on another item.

The app opened before any plan shows an item of the annotator's default queue; `annotate plan`
then runs in another process (here: another connection to the same file) and drops that queue.
The answer given to the item on screen must never be stored against another item: it is refused,
the annotator is told, and the app goes on in the new queue, where answers land on the items shown.
"""

from __future__ import annotations

from pathlib import Path

from annotate.plan import Rates, apply_plan
from annotate.store import Store
from annotate.tui import make_app
from annotate.tui.screens.item import ItemScreen
from annotate.tui.screens.queue_changed import QueueChangedDialog
from tests.tui.conftest import make_session, pairwise_item

SIZE = (120, 40)


def _item_screen(app: object) -> ItemScreen:
    screen = next(s for s in reversed(app.screen_stack) if isinstance(s, ItemScreen))  # type: ignore[attr-defined]
    return screen


async def _settle(pilot: object, app: object) -> None:
    for _ in range(50):
        await pilot.pause(0.02)  # type: ignore[attr-defined]
        if app.runner.pending == 0 and not app._reloading:  # type: ignore[attr-defined]
            await pilot.pause()  # type: ignore[attr-defined]
            return


async def test_an_answer_given_after_a_new_plan_is_refused_and_the_new_queue_opens(tmp_path: Path) -> None:
    spec, store = make_session(tmp_path, items=[pairwise_item(i) for i in range(10)])
    app = make_app(spec, store, "alice", open_guideline=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        first = _item_screen(app).assignment
        assert first is not None
        with Store.open(spec.db) as lead:  # the lead's `annotate plan`, in its own connection
            applied = apply_plan(lead, spec, ["alice", "bob"], 2, Rates(), seed=3)
        assert any(a.id == first.id for a in applied.dropped)
        shown_item = _item_screen(app).item
        await pilot.press("1", "enter")
        await _settle(pilot, app)
        assert isinstance(app.screen, QueueChangedDialog)
        assert any("NOT saved" in line for line in app.screen.lines())
        assert store.judgments(include_superseded=True) == []  # nothing filed, on any item
        await pilot.press("enter")
        await pilot.pause()
        planned = [a for a in store.assignments("alice")]
        assert [a.id for a in app.queue.assignments] == [a.id for a in planned]
        screen = _item_screen(app)
        assert screen.assignment == planned[0]
        on_screen = screen.item
        await pilot.press("2", "enter")
        await _settle(pilot, app)
    (judgment,) = store.judgments("alice")
    assert judgment.assignment_id == planned[0].id
    row = store.db.execute("SELECT item_id FROM judgments WHERE id = ?", [judgment.id]).fetchone()
    assert row[0] == on_screen.id == planned[0].item_id
    assert shown_item is not None and app.stale_answers == 1
    store.close()


async def test_the_app_notices_a_new_plan_before_any_answer(tmp_path: Path) -> None:
    """The app looks at the plan hash every few seconds and reads its queue again on its own."""
    spec, store = make_session(tmp_path, items=[pairwise_item(i) for i in range(6)])
    app = make_app(spec, store, "alice", open_guideline=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        with Store.open(spec.db) as lead:
            apply_plan(lead, spec, ["alice"], 1, Rates(), seed=5)
        app._check_design()  # what the DESIGN_CHECK_S interval does
        await _settle(pilot, app)
        assert isinstance(app.screen, QueueChangedDialog)
        assert not any("NOT saved" in line for line in app.screen.lines())
        await pilot.press("enter")
        await pilot.pause()
        planned = store.assignments("alice")
        assert [a.id for a in app.queue.assignments] == [a.id for a in planned]
        await pilot.press("3", "enter")
        await _settle(pilot, app)
    (judgment,) = store.judgments("alice")
    assert judgment.assignment_id == planned[0].id
    store.close()


async def test_a_plan_that_keeps_the_item_on_screen_only_says_so(tmp_path: Path) -> None:
    """An assignment that was touched (answered, or with events) is kept by the plan: the app stays."""
    spec, store = make_session(tmp_path, items=[pairwise_item(i) for i in range(6)])
    app = make_app(spec, store, "alice", open_guideline=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("1", "enter")
        await _settle(pilot, app)
        await pilot.press("b")  # back to the answered item: it is kept by any plan
        await _settle(pilot, app)
        kept = _item_screen(app).assignment
        with Store.open(spec.db) as lead:
            apply_plan(lead, spec, ["alice"], 1, Rates(), seed=5)
        app._check_design()
        await _settle(pilot, app)
        assert not isinstance(app.screen, QueueChangedDialog)
        assert _item_screen(app).assignment == kept
        assert app.queue.assignments[_item_screen(app).index] == kept
    store.close()
