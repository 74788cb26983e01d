"""A newcomer's queue written while they work: the app opens on the first chunk, the rest is written a
chunk at a time on the store thread, and the queue that results is the one written all at once."""

from __future__ import annotations

import threading
from functools import partial
from pathlib import Path

from annotate.plan import ensure_default_queue
from annotate.store import Store
from annotate.store.queues import queue_counts
from annotate.tui import make_app
from annotate.tui.app import AnnotateApp
from annotate.tui.growing_queue import AWAITING_NOTICE
from annotate.tui.launch import run_in_sitting
from annotate.tui.screens.annotate import PairwiseScreen
from annotate.tui.screens.finished import FinishedDialog
from annotate.tui.summary import SittingSummary
from annotate.tui.widgets.progress_line import ProgressLine
from tests.tui.conftest import make_session, pairwise_item

SIZE = (120, 40)
N = 40
CHUNK = 7


def _queue(store: Store, annotator: str) -> list[tuple[str, int, bool]]:
    return [(a.item_id, a.position, a.swapped) for a in store.assignments(annotator)]


def _written_at_once(tmp_path: Path, annotator: str) -> list[tuple[str, int, bool]]:
    """The same session's queue for `annotator` written in one go, as `annotate queue` does."""
    spec, store = make_session(tmp_path / "at-once", items=[pairwise_item(i) for i in range(N)])
    ensure_default_queue(store, spec, annotator)
    written = _queue(store, annotator)
    store.close()
    return written


async def _until(pilot: object, done: object, tries: int = 400) -> None:
    for _ in range(tries):
        if done():  # type: ignore[operator]
            return
        await pilot.pause(0.01)  # type: ignore[attr-defined]
    raise AssertionError("the app never got there")


def _progress(app: AnnotateApp) -> ProgressLine:
    return app.screen.query_one(ProgressLine)


async def test_the_app_opens_on_the_first_chunk_and_writes_the_rest_while_the_annotator_works(
        tmp_path: Path) -> None:
    spec, store = make_session(tmp_path, items=[pairwise_item(i) for i in range(N)])
    app = make_app(spec, store, "newbie", open_guideline=False, queue_chunk_rows=CHUNK)
    assert queue_counts(store, "newbie").total == CHUNK  # only the first chunk before the app opens
    gate = threading.Event()
    app.runner.call(gate.wait)  # the store thread waits: nothing more is written until the gate opens
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, PairwiseScreen) and len(app.queue) == CHUNK
        assert _progress(app).writing == f"writing your queue: {CHUNK} of {N}"
        for _ in range(CHUNK):  # every stored item answered while the rest is not yet written
            await pilot.press("1", "enter")
            await pilot.pause()
        assert isinstance(app.screen, PairwiseScreen), "no 'all done' while the queue is being written"
        assert _progress(app).notice == AWAITING_NOTICE
        assert app.screen.index == CHUNK - 1
        gate.set()
        await _until(pilot, lambda: app.screen.index == CHUNK)  # the first new item shows on arrival
        assert _progress(app).notice != AWAITING_NOTICE
        await _until(pilot, lambda: app.queue_fill is not None and not app.queue_fill.active)
        await pilot.pause()
        assert len(app.queue) == N and _progress(app).writing == ""
        for _ in range(N - CHUNK):
            await pilot.press("2", "enter")
            await pilot.pause()
        await _until(pilot, lambda: isinstance(app.screen, FinishedDialog))
    assert _queue(store, "newbie") == _written_at_once(tmp_path, "newbie")
    assert len(store.judgments("newbie")) == N
    store.close()


async def test_quitting_before_the_queue_is_written_loses_nothing_and_the_next_start_finishes_it(
        tmp_path: Path) -> None:
    spec, store = make_session(tmp_path, items=[pairwise_item(i) for i in range(N)])
    app = make_app(spec, store, "newbie", open_guideline=False, queue_chunk_rows=CHUNK)
    gate = threading.Event()
    app.runner.call(gate.wait)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("3", "enter")
        await pilot.pause()
        await pilot.press("q")
        await pilot.pause()
        gate.set()  # the chunk queued before the quit lands; no other is queued after it
        await _until(pilot, lambda: not app.is_running)
    summary = SittingSummary.of(app.queue, unwritten=app.queue_fill.remaining if app.queue_fill else 0)
    assert queue_counts(store, "newbie").total == 2 * CHUNK
    assert summary.unwritten == N - 2 * CHUNK and summary.total == 2 * CHUNK
    assert summary.line("annotate start").startswith(f"1 of {N} answered, all saved; {N - 2 * CHUNK} more join")
    assert len(store.judgments("newbie")) == 1

    again = make_app(spec, store, "newbie", open_guideline=False, queue_chunk_rows=CHUNK)
    async with again.run_test(size=SIZE) as pilot:
        await _until(pilot, lambda: again.queue_fill is not None and not again.queue_fill.active)
        await pilot.pause()
        assert len(again.queue) == N and again.queue.done == 1
        assert again.screen.index == 1  # the first item without an answer
    assert _queue(store, "newbie") == _written_at_once(tmp_path, "newbie")
    store.close()


async def test_a_small_queue_is_written_before_the_app_opens(tmp_path: Path) -> None:
    spec, store = make_session(tmp_path, items=[pairwise_item(i) for i in range(N)])
    app = make_app(spec, store, "newbie", open_guideline=False)  # below WHOLE_QUEUE_ROWS: one transaction
    assert queue_counts(store, "newbie").total == N
    assert app.queue_fill is not None and not app.queue_fill.active
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert _progress(app).writing == "" and len(app.queue) == N
    store.close()


def test_the_exit_line_counts_the_items_still_to_be_written(tmp_path: Path) -> None:
    spec, store = make_session(tmp_path, items=[pairwise_item(i) for i in range(N)])

    def build(sitting: object) -> AnnotateApp:
        app = make_app(spec, store, "newbie", open_guideline=False, queue_chunk_rows=CHUNK)
        app.runner.call(threading.Event().wait, 0.5)  # holds the store thread past the quit below
        app.call_later(app.quit_after_writes)
        app.run = partial(app.run, headless=True, size=SIZE)  # type: ignore[method-assign]
        return app

    summary = run_in_sitting(store, "newbie", build, lambda: "empty")
    stored = queue_counts(store, "newbie").total
    assert stored < N and summary.total == stored and summary.unwritten == N - stored
    store.close()
