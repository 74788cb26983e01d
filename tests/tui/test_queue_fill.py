"""A newcomer's queue written while they work: the app opens on the first chunk, the rest is written a
chunk at a time on the store thread, and the queue that results is the one written all at once."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial
from pathlib import Path

from annotate.model import Judgment, Timings
from annotate.plan import PLAN_META_KEY, ensure_default_queue
from annotate.store import Store, utc_now
from annotate.store.queues import queue_counts
from annotate.tui import make_app
from annotate.tui.app import AnnotateApp
from annotate.tui.launch import run_in_sitting
from annotate.tui.queue import Queue
from annotate.tui.queue_fill import QueueFill
from annotate.tui.screens.annotate import PairwiseScreen
from annotate.tui.screens.finished import FinishedDialog
from annotate.tui.screens.queue_writing import QueueWritingDialog
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


def _hold(app: AnnotateApp) -> threading.Event:
    """The app's store thread waits (queued before anything the app queues) until the event is set."""
    gate = threading.Event()
    app.runner.call(gate.wait)
    return gate


@asynccontextmanager
async def _opened_after(gate: threading.Event) -> AsyncIterator[None]:
    """Sets `gate` on the way out, before the app's teardown waits for its store thread (a failed assert
    must not leave it waiting for ever)."""
    try:
        yield
    finally:
        gate.set()


def _progress(app: AnnotateApp) -> ProgressLine:
    return app.screen.query_one(ProgressLine)


async def test_the_app_opens_on_the_first_chunk_and_writes_the_rest_while_the_annotator_works(
        tmp_path: Path) -> None:
    spec, store = make_session(tmp_path, items=[pairwise_item(i) for i in range(N)])
    app = make_app(spec, store, "newbie", open_guideline=False, queue_chunk_rows=CHUNK)
    assert queue_counts(store, "newbie").total == CHUNK  # only the first chunk before the app opens
    gate = _hold(app)  # the store thread waits: nothing more is written until the gate opens
    async with app.run_test(size=SIZE) as pilot, _opened_after(gate):
        await pilot.pause()
        assert isinstance(app.screen, PairwiseScreen) and len(app.queue) == CHUNK
        assert _progress(app).writing == f"writing your queue: {CHUNK} of {N}"
        for _ in range(CHUNK):  # every stored item answered while the rest is not yet written
            await pilot.press("1", "enter")
            await pilot.pause()
        assert isinstance(app.screen, QueueWritingDialog), "no 'all done' while the queue is being written"
        items = next(s for s in app.screen_stack if isinstance(s, PairwiseScreen))
        assert items.index == CHUNK - 1
        await pilot.press("s", "2", "enter")  # no key reaches the item screen under the dialog
        await pilot.pause()
        assert isinstance(app.screen, QueueWritingDialog) and app.queue.skipped == 0
        assert app._writes_in_flight == CHUNK  # the submits, held behind the gate; nothing more
        await pilot.press("b")  # back to revise the last item, and on to the end again
        await pilot.pause()
        assert app.screen is items and items.index == CHUNK - 1
        await pilot.press("2", "enter")
        await pilot.pause()
        assert isinstance(app.screen, QueueWritingDialog) and app.is_running
        gate.set()
        await _until(pilot, lambda: app.screen is items and items.index == CHUNK)  # the first new item
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
    gate = _hold(app)
    async with app.run_test(size=SIZE) as pilot, _opened_after(gate):
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


async def test_a_failed_chunk_leaves_the_rest_to_the_next_start_and_says_so(tmp_path: Path) -> None:
    spec, store = make_session(tmp_path, items=[pairwise_item(i) for i in range(N)])
    app = make_app(spec, store, "newbie", open_guideline=False, queue_chunk_rows=CHUNK)
    fill = app.queue_fill
    assert fill is not None and fill._writer is not None

    def broken() -> bool:
        raise sqlite3.OperationalError("disk I/O error")

    fill._writer.write_chunk = broken  # type: ignore[method-assign]
    async with app.run_test(size=SIZE) as pilot:
        await _until(pilot, lambda: fill.given_up and not app.queue_writing())
        for _ in range(CHUNK):
            await pilot.press("1", "enter")
            await pilot.pause()
        await _until(pilot, lambda: isinstance(app.screen, FinishedDialog))
        assert app.screen.unwritten == N - CHUNK
    summary = SittingSummary.of(app.queue, unwritten=fill.remaining)
    assert summary.line("x").startswith(f"{CHUNK} of {N} answered, all saved; {N - CHUNK} more join")
    store.close()


async def test_a_chunk_that_waited_out_the_lock_is_tried_again(tmp_path: Path, monkeypatch: object) -> None:
    from annotate.tui import growing_queue

    monkeypatch.setattr(growing_queue, "FILL_RETRY_S", 0.01)  # type: ignore[attr-defined]
    spec, store = make_session(tmp_path, items=[pairwise_item(i) for i in range(N)])
    app = make_app(spec, store, "newbie", open_guideline=False, queue_chunk_rows=CHUNK)
    fill = app.queue_fill
    assert fill is not None and fill._writer is not None
    writer, tries = fill._writer, []
    original = writer.write_chunk

    def locked_once() -> bool:
        tries.append(1)
        if len(tries) == 1:
            raise sqlite3.OperationalError("database is locked")
        return original()

    writer.write_chunk = locked_once  # type: ignore[method-assign]
    async with app.run_test(size=SIZE) as pilot:
        await _until(pilot, lambda: not app.queue_writing())
        assert len(app.queue) == N and not fill.given_up and len(tries) > 1
    assert _queue(store, "newbie") == _written_at_once(tmp_path, "newbie")
    store.close()


async def test_reading_the_queue_again_goes_on_writing_what_items_imported_since_need(tmp_path: Path) -> None:
    spec, store = make_session(tmp_path, items=[pairwise_item(i) for i in range(20)])
    app = make_app(spec, store, "newbie", open_guideline=False, queue_chunk_rows=CHUNK)
    async with app.run_test(size=SIZE) as pilot:
        await _until(pilot, lambda: not app.queue_writing())
        assert len(app.queue) == 20
        app.runner.call(store.add_items, [pairwise_item(100 + i) for i in range(20)]).result()
        app.reload_queue(None)  # as when the design watch sees a new experiment hash
        await _until(pilot, lambda: not app._reloading)
        await _until(pilot, lambda: not app.queue_writing())
        assert len(app.queue) == 40 and app.runner.call(lambda: len(store.assignments("newbie"))).result() == 40
    store.close()


def test_a_fill_stopped_by_a_plan_stays_stopped(tmp_path: Path) -> None:
    spec, store = make_session(tmp_path, items=[pairwise_item(i) for i in range(N)])
    fill = QueueFill(store, spec, "newbie", chunk_rows=CHUNK)
    fill.begin()
    store.set_meta(PLAN_META_KEY, "a plan")
    assert fill.step() is False and fill.stopped and fill.remaining == 0
    fill.resume()  # the app reads its queue again after the plan
    assert fill.stopped and not fill.active
    store.close()


def test_the_queue_never_looks_past_the_entries_it_holds(tmp_path: Path) -> None:
    """Between a chunk's commit and its message the file holds more of the queue than the app's Queue."""
    spec, store = make_session(tmp_path, items=[pairwise_item(i) for i in range(N)])
    fill = QueueFill(store, spec, "newbie", chunk_rows=CHUNK)
    fill.begin()
    for a in store.assignments("newbie")[1:]:  # entry 0 left without an answer
        store.submit(Judgment(a.id, "A", Timings(utc_now(), 10, 500, 400)), shown=a)
    queue = Queue(store, "newbie")
    assert fill.step()  # one more chunk in the file; the queue not grown
    assert queue.first_unfinished(1) == 0 and queue.first_unfinished(3) == 0
    queue.grow(2 * CHUNK)
    assert queue.first_unfinished(1) == CHUNK
    store.close()


async def test_more_items_stored_under_another_screen_show_once_it_closes(tmp_path: Path) -> None:
    from textual.screen import ModalScreen

    spec, store = make_session(tmp_path, items=[pairwise_item(i) for i in range(N)])
    app = make_app(spec, store, "newbie", open_guideline=False, queue_chunk_rows=CHUNK)
    gate = _hold(app)
    async with app.run_test(size=SIZE) as pilot, _opened_after(gate):
        await pilot.pause()
        for _ in range(CHUNK):
            await pilot.press("1", "enter")
            await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, QueueWritingDialog)
        above: ModalScreen[None] = ModalScreen()
        await app.push_screen(above)
        gate.set()
        await _until(pilot, lambda: dialog._ready == "next")  # told while another screen is on top of it
        assert app.screen is above
        app.pop_screen()
        items = next(s for s in app.screen_stack if isinstance(s, PairwiseScreen))
        await _until(pilot, lambda: app.screen is items and items.index == CHUNK)
    store.close()
