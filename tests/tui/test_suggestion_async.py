"""The suggestion label is read on the store thread and never waited for on the event loop
(annotate/tui/widgets/suggestion.py): when it is still on its way as the item is shown, the item
shows without it and the suggestion appears, per its condition, when it arrives."""

from __future__ import annotations

from concurrent.futures import Future
from pathlib import Path

from annotate.suggest.display import SHOWN_EVENT
from annotate.tui import make_app
from annotate.tui.app import AnnotateApp
from tests.tui.test_suggestion_modes import SIZE, FakeClock, line, on_screen, setup


class LabelOnItsWay(Future):
    """A label read not finished yet; asking for its result before it is would block the loop."""

    def result(self, timeout: float | None = None) -> str | None:
        assert self.done(), "the event loop waited for a suggestion label"
        return super().result(timeout)


def slow_labels(app: AnnotateApp) -> dict[int, LabelOnItsWay]:
    """Make every label read of `app` pending until the test sets it."""
    pending: dict[int, LabelOnItsWay] = {}
    app.prefetcher.label = lambda suggestion_id: pending.setdefault(suggestion_id, LabelOnItsWay())  # type: ignore[method-assign]
    return pending


async def test_upfront_appears_when_the_label_arrives(tmp_path: Path) -> None:
    spec, store = setup(tmp_path, ["upfront"])
    clock = FakeClock()
    app = make_app(spec, store, "ann", open_guideline=False, clock=clock)
    pending = slow_labels(app)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert not line(app).display and "Suggestion" not in on_screen(app)
        (future,) = pending.values()
        clock.advance(2.0)
        future.set_result("A")
        await pilot.pause()
        assert "Suggestion: Left better" in on_screen(app)
        clock.advance(3.0)
        await pilot.press("2", "enter")
        await pilot.pause()
    judgment = store.judgments("ann")[0]
    assert judgment.timings.suggestion_ms == 3000  # from when it appeared
    assert SHOWN_EVENT in {e.kind for e in store.events()}
    store.close()


async def test_after_keeps_a_first_answer_given_before_the_label_arrives(tmp_path: Path) -> None:
    spec, store = setup(tmp_path, ["after"])
    clock = FakeClock()
    app = make_app(spec, store, "ann", open_guideline=False, clock=clock)
    pending = slow_labels(app)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("2", "enter")  # the first answer, while the label is on its way
        await pilot.pause()
        assert store.judgments("ann") == [] and not line(app).display
        (future,) = pending.values()
        future.set_result("A")
        await pilot.pause()
        assert "Suggestion: Left better" in on_screen(app)  # shown after the first answer, as `after` says
        await pilot.press("enter")  # keeps the first answer
        await pilot.pause()
    judgment = store.judgments("ann")[0]
    assert (judgment.initial_label, judgment.label) == ("B", "B")
    store.close()


async def test_a_label_arriving_for_an_item_no_longer_shown_changes_nothing(tmp_path: Path) -> None:
    spec, store = setup(tmp_path, ["on_request", "none"])
    app = make_app(spec, store, "ann", open_guideline=False, clock=FakeClock())
    pending = slow_labels(app)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.screen.check_action("reveal_suggestion", ()) is None  # nothing to reveal yet
        await pilot.press("1", "enter")
        await pilot.pause()
        for future in pending.values():
            future.set_result("A")
        await pilot.pause()
        assert app.screen.index == 1 and not line(app).display
    assert store.judgments("ann")[0].timings.suggestion_ms is None
    store.close()
