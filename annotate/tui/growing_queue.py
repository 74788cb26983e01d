"""The app's side of a queue written while the annotator works (`annotate.tui.queue_fill`): one chunk
at a time on the store thread, the queue grown after each, the progress line's note, and the end of
the queue held back while more of it is coming. Mixed into AnnotateApp (app.py)."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.message import Message

from annotate.store.health import error_text
from annotate.tui.patient import patiently
from annotate.tui.queue_fill import QueueFill, writing_note

if TYPE_CHECKING:
    from textual.screen import Screen

    from annotate.store import Store
    from annotate.tui.queue import Queue, StoreRunner
    from annotate.tui.screens.item import ItemScreen

AWAITING_NOTICE = "the rest of your queue is still being written: the next item shows in a moment"
"""On the progress line when every item stored so far has an answer and more are being written."""


@dataclass
class QueueWritten(Message):
    """A chunk of the queue was written, or its writing failed (sent from the store thread)."""

    future: Future[tuple[bool, int]]
    """Whether more is to be written, and the queue's length now; or the exception."""


class GrowingQueueMixin:
    """Writes the rest of a newcomer's queue a chunk at a time and grows the app's queue; part of AnnotateApp."""

    store: Store
    annotator: str
    queue: Queue
    runner: StoreRunner
    screen_stack: list[Screen]
    queue_fill: QueueFill | None
    _quitting: bool
    _refresh_progress: Callable[[], None]
    post_message: Callable[[Message], bool]
    notify: Callable[..., None]
    all_done: Callable[[], None]

    _chunk_queued = False
    _awaiting_queue = False
    """Every stored item had an answer when more of the queue was still to come: show the next on arrival."""

    def queue_writing(self) -> bool:
        """Whether more of the queue may still come: part of it is to be written, or a chunk written on the
        store thread has not yet been added to the app's queue."""
        fill = self.queue_fill
        return fill is not None and (fill.active or self._chunk_queued)

    def writing_note(self) -> str:
        """`writing your queue: 1,200 of 1,000,000` while it is being written, else empty."""
        fill = self.queue_fill
        return writing_note(len(self.queue), fill.remaining) if fill is not None and self.queue_writing() else ""

    def fill_queue(self) -> None:
        """Queue the next chunk on the store thread (after the writes queued before it), unless one is
        queued, nothing is left to write, or the app is quitting (the next start writes the rest)."""
        fill = self.queue_fill
        if fill is None or not fill.active or self._quitting or self._chunk_queued:
            return
        self._chunk_queued = True
        store, annotator = self.store, self.annotator

        def step() -> tuple[bool, int]:
            from annotate.store.queues import queue_counts

            more = fill.step()
            return more, queue_counts(store, annotator).total

        future = self.runner.call(patiently(step, lambda: None))
        future.add_done_callback(lambda f: self.post_message(QueueWritten(f)))

    def on_queue_written(self, message: QueueWritten) -> None:
        self._chunk_queued = False
        fill = self.queue_fill
        error = message.future.exception()
        if error is not None or fill is None:
            self.queue_fill = None
            if error is not None:
                self.notify(f"Could not write the rest of your queue: {error_text(error, self.store.path)}. "
                            "It is written when you start again.", severity="error", timeout=30)
            self._queue_complete()
            return
        more, total = message.future.result()
        if fill.stopped:  # a plan replaced default queues: the design watch reads the queue again
            self.queue_fill = None
            self._awaiting_queue = False
            self._refresh_progress()
            return
        before = len(self.queue)
        self.queue.grow(total)
        if self._awaiting_queue and len(self.queue) > before:
            self._show_first_new(before)
        if not more:
            self._queue_complete()
        self._refresh_progress()
        self.fill_queue()

    def holds_back_end(self) -> bool:
        """When the annotator reached the end of what is stored: whether more of the queue is coming
        (say so and show it on arrival) rather than the queue being done."""
        if not self.queue_writing():
            return False
        self._awaiting_queue = True
        screen = self._item_screen_shown()
        if screen is not None:
            screen.show_notice(AWAITING_NOTICE, seconds=3600)
        return True

    def _show_first_new(self, before: int) -> None:
        nxt = self.queue.first_unfinished(before)
        screen = self._item_screen_shown()
        if nxt is None or screen is None:
            return
        self._awaiting_queue = False
        screen.clear_notice(AWAITING_NOTICE)
        screen.show_index(nxt)

    def _queue_complete(self) -> None:
        """Nothing more is coming: an annotator who was waiting for it has answered everything."""
        if self._awaiting_queue:
            self._awaiting_queue = False
            self.all_done()

    def _item_screen_shown(self) -> ItemScreen | None:
        from annotate.tui.screens.item import ItemScreen

        return next((s for s in reversed(self.screen_stack) if isinstance(s, ItemScreen)), None)
