"""StoreRunner's hold (annotate/tui/store_runner.py): a submit's write waits for the next item's
paint, never longer than its deadline, and nothing is lost or reordered."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from annotate.store import Store
from annotate.tui import make_app
from annotate.tui.store_runner import StoreRunner
from tests.tui.conftest import make_session


def test_calls_queued_in_a_hold_start_at_release_in_order(tmp_path: Path) -> None:
    _spec, store = make_session(tmp_path)
    runner = StoreRunner(store)
    ran: list[int] = []
    runner.hold(30.0)
    futures = [runner.call(ran.append, i) for i in range(3)]
    time.sleep(0.1)
    assert ran == [] and runner.pending == 3
    runner.release()
    for future in futures:
        future.result(5)
    assert ran == [0, 1, 2]
    runner.call(ran.append, 3).result(5)  # not held any more
    runner.close()
    store.close()


def test_a_hold_ends_at_its_deadline_and_at_drain(tmp_path: Path) -> None:
    _spec, store = make_session(tmp_path)
    runner = StoreRunner(store)
    started = time.monotonic()
    runner.hold(0.2)
    runner.call(lambda: None).result(5)
    assert 0.15 <= time.monotonic() - started < 5
    runner.hold(30.0)
    done = threading.Event()
    runner.call(done.set)
    assert runner.drain(5) and done.is_set()
    runner.close()
    store.close()


async def test_the_submit_is_written_after_the_next_item_is_painted(tmp_path: Path) -> None:
    spec, store = make_session(tmp_path)
    app = make_app(spec, store, "ann", open_guideline=False)
    painted: list[int] = []
    app.painted_hooks.append(painted.append)
    seen_at_write: list[int] = []
    submit = store.submit

    def recording_submit(*args, **kwargs):  # type: ignore[no-untyped-def]
        seen_at_write.append(len(painted))
        return submit(*args, **kwargs)

    store.submit = recording_submit  # type: ignore[method-assign]
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        first = len(painted)
        await pilot.press("1", "enter")
        while app.runner.pending:
            await pilot.pause(0.01)
        assert seen_at_write == [first + 1]  # the next item was painted before the write began
        await pilot.press("q")
    with Store.open(spec.db) as again:
        assert len(again.judgments("ann")) == 1
    store.close()
