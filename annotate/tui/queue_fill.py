"""QueueFill: a newcomer's default queue written while they already work on its first items.

On a large session without a plan, a first start has one assignment to write per item: about a
minute and a half at a million items, far too long to wait for the first item. So the app writes
the first chunk before it opens (`begin`) and the rest a chunk at a time on its store thread
(`step`, one call per chunk, so the annotator's submits land between chunks, in order). A chunk is
its own transaction (`DefaultQueueWriter`); quitting between chunks loses nothing: the next start
writes the rest of the same draw.

No Textual here: the app (`growing_queue.py`) calls `step` on its store thread and shows `writing_note`.
"""

from __future__ import annotations

from annotate.plan.default import CHUNK_ROWS, DefaultQueueWriter
from annotate.spec import SessionSpec
from annotate.store import Store


class QueueFill:
    """The part of one annotator's default queue still to be written, and the writing of it."""

    def __init__(self, store: Store, spec: SessionSpec, annotator: str, *, chunk_rows: int | None = None) -> None:
        self.store, self.spec, self.annotator, self.chunk_rows = store, spec, annotator, chunk_rows
        self._writer: DefaultQueueWriter | None = None
        self.stopped = False
        """A plan written meanwhile stopped the writing (a plan replaces default queues): for good."""
        self.given_up = False
        """A chunk failed (not for the lock): the rest is left to the next start."""

    @property
    def active(self) -> bool:
        """Whether part of the queue is still to be written in this sitting."""
        return self._writer is not None and not self._writer.finished and not self.given_up

    @property
    def remaining(self) -> int:
        """Assignments still to be written (after a failure too: the next start writes them)."""
        return 0 if self._writer is None or self.stopped else self._writer.remaining

    def begin(self) -> None:
        """Before the app opens: write the first chunk of what the queue lacks (the whole of a queue of up
        to `WHOLE_QUEUE_ROWS` when `chunk_rows` is None)."""
        if not (self.active or self.stopped or self.given_up):
            self._start_writer(self.chunk_rows)

    def resume(self) -> None:
        """On the store thread, when the app reads its queue again: write the first chunk of what the queue
        lacks now (items imported since), unless the writing is under way, stopped or given up. Chunks of
        `CHUNK_ROWS` (not a whole queue in one transaction ahead of the annotator's submits)."""
        if not (self.active or self.stopped or self.given_up):
            self._start_writer(self.chunk_rows or CHUNK_ROWS)

    def step(self) -> bool:
        """Write the next chunk (on the app's store thread); whether more is to be written.

        Items imported after the queue was drawn get a draw of their own once this one is written,
        as `ensure_default_queue` does."""
        if not self.active or self._writer is None:
            return False
        if self._writer.write_chunk():
            return True
        if self._writer.stopped:
            self.stopped = True
            return False
        if self._writer.wrote:
            return self._start_writer(self.chunk_rows or CHUNK_ROWS)
        return False

    def give_up(self) -> None:
        """A chunk failed: write no more in this sitting (what is stored stays; the next start goes on)."""
        self.given_up = True

    def _start_writer(self, chunk_rows: int | None) -> bool:
        self._writer = DefaultQueueWriter(self.store, self.spec, self.annotator, chunk_rows=chunk_rows)
        more = self._writer.write_chunk()
        self.stopped = self.stopped or self._writer.stopped
        return more


def writing_note(stored: int, remaining: int) -> str:
    """The progress line's note while the queue is being written.

    >>> writing_note(1_200, 998_800)
    'writing your queue: 1,200 of 1,000,000'
    """
    return f"writing your queue: {stored:,} of {stored + remaining:,}"
