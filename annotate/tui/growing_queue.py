"""The app's side of a queue written while the annotator works (`annotate.tui.queue_fill`): one chunk
at a time on the store thread, the queue grown after each, the progress line's note, and the end of
the queue held back while more of it is coming (`QueueWritingDialog`). Mixed into AnnotateApp (app.py)."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from textual.message import Message

from annotate.store.health import error_text
from annotate.tui.patient import is_lock_timeout
from annotate.tui.queue_fill import QueueFill, writing_note

if TYPE_CHECKING:
    from textual.screen import Screen

    from annotate.store import Store
    from annotate.tui.queue import Queue, StoreRunner
    from annotate.tui.screens.item import ItemScreen
    from annotate.tui.screens.queue_writing import QueueWritingDialog

FILL_RETRY_S = 1.0
"""After a chunk that waited the busy timeout for another program's hold on the lock: try again this much later."""


@dataclass
class QueueWritten(Message):
    """A chunk of the queue was written, or its writing failed (sent from the store thread)."""

    future: Future[tuple[bool, int, int]]
    """Whether more is to be written, the queue's length now and what remains to write; or the exception."""


class GrowingQueueMixin:
    """Writes the rest of a newcomer's queue a chunk at a time and grows the app's queue; part of AnnotateApp."""

    store: Store
    annotator: str
    queue: Queue
    runner: StoreRunner
    screen_stack: list[Screen[Any]]
    queue_fill: QueueFill | None
    _quitting: bool
    _refresh_progress: Callable[[], None]
    post_message: Callable[[Message], bool]
    notify: Callable[..., None]
    all_done: Callable[[], None]
    set_timer: Callable[..., Any]
    push_screen: Callable[..., Any]
    quit_after_writes: Callable[[], None]

    _chunk_queued = False
    _fill_halted = False
    _planned = 0
    """The queue's length once written, as of the last chunk (for the progress line's note)."""
    _writing_dialog: QueueWritingDialog | None = None
    """The dialog shown while every stored item has an answer and more is coming."""

    def queue_writing(self) -> bool:
        """Whether more of the queue may still come: part of it is to be written, or a chunk written on the
        store thread has not yet been added to the app's queue."""
        fill = self.queue_fill
        return fill is not None and (fill.active or self._chunk_queued)

    def writing_note(self) -> str:
        """`writing your queue: 1,200 of 1,000,000` while it is being written, else empty."""
        if not self.queue_writing() or self.queue_fill is None:
            return ""
        planned = max(self._planned, len(self.queue) + self.queue_fill.remaining)
        return writing_note(len(self.queue), planned - len(self.queue))

    def halt_queue_fill(self) -> None:
        """Queue no more chunks (the app is being stopped by a signal); the next start writes the rest."""
        self._fill_halted = True

    def fill_queue(self) -> None:
        """Queue the next chunk on the store thread (after the writes queued before it), unless one is
        queued, nothing is left to write, or the app is quitting (the next start writes the rest)."""
        fill = self.queue_fill
        if fill is None or not fill.active or self._quitting or self._fill_halted or self._chunk_queued:
            return
        self._chunk_queued = True
        store, annotator = self.store, self.annotator

        def step() -> tuple[bool, int, int]:
            from annotate.store.queues import queue_counts

            more = fill.step()
            return more, queue_counts(store, annotator).total, fill.remaining

        future = self.runner.call(step)
        future.add_done_callback(lambda f: self.post_message(QueueWritten(f)))

    def on_queue_written(self, message: QueueWritten) -> None:
        self._chunk_queued = False
        fill = self.queue_fill
        if fill is None:
            return
        error = message.future.exception()
        if error is not None:
            if is_lock_timeout(error) and not self._quitting:  # another program holds the lock: later
                self.set_timer(FILL_RETRY_S, self.fill_queue)
                return
            fill.give_up()
            self.notify(f"Could not write the rest of your queue: {error_text(error, self.store.path)}. "
                        "Your next start writes it.", severity="error", timeout=30)
            self._end_wait("done")
            self._refresh_progress()
            return
        more, total, remaining = message.future.result()
        if fill.stopped:  # a plan replaced default queues: the design watch reads the queue again
            self._end_wait("done")
            self._refresh_progress()
            return
        before = len(self.queue)
        self.queue.grow(total)
        self._planned = total + remaining
        if len(self.queue) > before:
            self._end_wait("next")
        if not more:
            self._end_wait("done")
        self._refresh_progress()
        self.fill_queue()

    def holds_back_end(self) -> bool:
        """When the annotator reached the end of what is stored: whether more of the queue is coming (a
        dialog says so and goes when it comes) rather than the queue being done."""
        if not self.queue_writing():
            return False
        if self._writing_dialog is not None:
            return True
        from annotate.tui.screens.queue_writing import QueueWritingDialog

        before = len(self.queue)
        self._writing_dialog = dialog = QueueWritingDialog(self.writing_note)

        def chosen(what: str | None) -> None:
            if self._writing_dialog is dialog:
                self._writing_dialog = None
            screen = self.item_screen_shown()
            if what == "quit":
                self.quit_after_writes()
            elif what == "back" and screen is not None:
                screen.go_to(len(self.queue) - 1)
            elif what == "next" and screen is not None:
                nxt = self.queue.first_unfinished(before)
                if nxt is None:
                    self.all_done()
                else:
                    screen.go_to(nxt)
            elif what == "done":
                self.all_done()

        self.push_screen(dialog, chosen)
        return True

    def _end_wait(self, what: str) -> None:
        """Tell the waiting dialog, if there is one, that more items are stored (`next`) or none will be (`done`)."""
        if self._writing_dialog is not None:
            waiting, self._writing_dialog = self._writing_dialog, None
            waiting.ready(what)

    def item_screen_shown(self) -> ItemScreen | None:
        """The item screen, the topmost of the stack (dialogs may be over it)."""
        from annotate.tui.screens.item import ItemScreen

        return next((s for s in reversed(self.screen_stack) if isinstance(s, ItemScreen)), None)
