"""The annotator's queue as the app sees it, read from the store a page at a time.

No Textual here. `StoreRunner` (`annotate.tui.store_runner`) runs every Store call on one thread;
the read-ahead of the next items and their documents is `annotate.tui.prefetch`.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from typing import Any, TypeVar, overload

from annotate.flags import Flag
from annotate.model import Assignment, Judgment
from annotate.store import Store
from annotate.tui.store_runner import StoreRunner

T = TypeVar("T")

PAGE = 128
"""Queue entries read at a time."""
PAGES_KEPT = 64
"""Pages kept in memory (the ones around the item on screen); older ones are read again if needed."""


class Queue:
    """One annotator's queue as the app sees it, read from the store a page at a time.

    Opening it reads three aggregates and one page, never the whole queue, so the app starts as
    fast on a million items as on a hundred (`annotate.store.queues`). The answers the app wrote in
    this sitting are kept here and win over what the pages say: a read on the reader connection
    does not wait for (and may not yet see) a write still queued on the store thread.

    Reads go through `read`: called directly until the app `attach`es its reader thread, after
    which a page is read on that thread (and `prefetch` reads the pages around an index ahead).
    """

    def __init__(self, store: Store, annotator: str, *, adjudication: bool = False) -> None:
        from annotate.store.queues import queue_counts

        self.store = store
        self.annotator = annotator
        self.adjudication = adjudication
        counts = queue_counts(store, annotator, adjudication)
        self.total = counts.total
        self._done = counts.done
        self._skipped = counts.skipped
        self._pages: OrderedDict[int, list[tuple[Assignment, Judgment | None]]] = OrderedDict()
        self._stored: dict[int, Judgment | None] = {}
        """Assignment id -> the judgment the file held when its page was read, for loaded pages."""
        self._pending: dict[int, Future[_Page]] = {}
        self._stored_flags: dict[int, tuple[Flag, ...]] = {}
        """Assignment id -> its open flags when its page was read, for loaded pages."""
        self._local_flags: dict[int, tuple[Flag, ...]] = {}
        """Open flags as this sitting left them, by assignment id (they win over the pages')."""
        self._local: dict[int, Judgment | None] = {}
        """Answers written (or found lost) in this sitting, by assignment id; None: no answer."""
        self._reader: StoreRunner | None = None
        self.assignments = _Entries(self)
        """The queue's assignments by index (a read-only sequence over the pages)."""
        self.answers = _Answers(self)
        """Assignment id -> current judgment (skips included), for assignments of loaded pages."""

    def attach(self, reader: StoreRunner) -> None:
        """Read pages on `reader`'s thread from now on (the app's reader connection)."""
        self._reader = reader

    def __len__(self) -> int:
        return self.total

    def grow(self, total: int) -> None:
        """More of the queue is stored now (a newcomer's queue written while they work,
        `annotate.tui.queue_fill`): it holds `total` entries. The last page read short, when there is
        one, is read again when needed; the entries before stay as they are."""
        if total <= self.total:
            return
        last = self.total // PAGE  # the page the old end fell in: read (or being read) short
        self.total = total
        self._pending.pop(last, None)
        self._forget(last)

    # -- pages -----------------------------------------------------------------------------------

    def _read_page(self, page: int) -> _Page:
        if self._reader is None:
            return _page_with_flags(self.store, self.annotator, page * PAGE, PAGE, self.adjudication)
        return self._reader.call(
            _page_with_flags, self._reader.store, self.annotator, page * PAGE, PAGE, self.adjudication
        ).result()

    def page(self, page: int) -> list[tuple[Assignment, Judgment | None]]:
        """Entries of one page, read now if they were not read (or asked for) before."""
        found = self._pages.get(page)
        if found is None:
            pending = self._pending.pop(page, None)
            found, flags = pending.result() if pending is not None else self._read_page(page)
            self._pages[page] = found
            self._stored.update((a.id, j) for a, j in found)
            self._stored_flags.update((a.id, tuple(flags.get(a.id, ()))) for a, _j in found)
            while len(self._pages) > PAGES_KEPT:
                self._forget(next(iter(self._pages)))
        self._pages.move_to_end(page)
        return found

    def _forget(self, page: int) -> None:
        """Drop a page read, and what was kept of its entries' stored answers and flags."""
        for a, _j in self._pages.pop(page, ()):
            self._stored.pop(a.id, None)
            self._stored_flags.pop(a.id, None)

    def prefetch(self, index: int) -> None:
        """Start reading the pages of `index` and its neighbours, without waiting."""
        if self._reader is None:
            return
        for page in {index // PAGE, (index + PAGE // 2) // PAGE, max(0, index - PAGE // 2) // PAGE}:
            if page * PAGE >= self.total or page in self._pages or page in self._pending:
                continue
            self._pending[page] = self._reader.call(
                _page_with_flags, self._reader.store, self.annotator, page * PAGE, PAGE, self.adjudication
            )

    def entry(self, index: int) -> tuple[Assignment, Judgment | None]:
        if not 0 <= index < self.total:
            raise IndexError(f"queue index {index} out of range (0..{self.total - 1})")
        assignment, stored = self.page(index // PAGE)[index % PAGE]
        return assignment, self._local.get(assignment.id, stored)

    # -- answers ---------------------------------------------------------------------------------

    def answer(self, assignment_id: int) -> Judgment | None:
        """The current answer for an assignment of a loaded page (or written in this sitting)."""
        if assignment_id in self._local:
            return self._local[assignment_id]
        return self._stored.get(assignment_id)

    def set_answer(self, judgment: Judgment) -> None:
        """The app wrote (or is writing) `judgment`: it is the assignment's current answer now."""
        self._count(self.answer(judgment.assignment_id), -1)
        self._local[judgment.assignment_id] = judgment
        self._count(judgment, +1)

    def drop_answer(self, judgment: Judgment) -> None:
        """The write of `judgment` failed: the assignment has no answer (unless a later one replaced it)."""
        if self._local.get(judgment.assignment_id) is judgment:
            self._count(judgment, -1)
            self._local[judgment.assignment_id] = None

    def flags(self, assignment_id: int) -> tuple[Flag, ...]:
        """The open flags on an assignment of a loaded page (or as this sitting left them)."""
        if assignment_id in self._local_flags:
            return self._local_flags[assignment_id]
        return self._stored_flags.get(assignment_id, ())

    def set_flags(self, assignment_id: int, flags: tuple[Flag, ...]) -> None:
        """The app flagged (or withdrew the flags of) an assignment: these are its open flags now."""
        self._local_flags[assignment_id] = flags

    def _count(self, judgment: Judgment | None, sign: int) -> None:
        if judgment is not None:
            self._done += sign
            self._skipped += sign if judgment.skipped else 0

    @property
    def done(self) -> int:
        """Entries with a current judgment (skips included)."""
        return self._done

    @property
    def skipped(self) -> int:
        return self._skipped

    def finished(self, index: int) -> bool:
        return self.entry(index)[1] is not None

    # -- finding entries -------------------------------------------------------------------------

    def first_unfinished(self, start: int = 0) -> int | None:
        """The first index at or after `start` (wrapping round) with no answer, or None."""
        n = self.total
        if n == 0 or self._done >= n:
            return None
        start = start % n
        found = self._first_unfinished_in(start, n)
        return found if found is not None else self._first_unfinished_in(0, start)

    def _first_unfinished_in(self, low: int, high: int) -> int | None:
        """The first index in [low, high) without an answer: from loaded pages while they last,
        then from the file (answers written in this sitting taken into account)."""
        from annotate.store.queues import first_unanswered, queue_index

        index = low
        while index < high:
            page = index // PAGE
            if page not in self._pages and page not in self._pending:
                break
            if not self.finished(index):
                return index
            index += 1
        if index >= high:
            return None
        end = self.entry(high - 1)[0].position + 1 if high < self.total else None
        position = self.entry(index)[0].position
        while True:
            found = self._read(first_unanswered, self.annotator, position, end, self.adjudication)
            if found is None:
                return None
            at = self._read(queue_index, self.annotator, found, self.adjudication)
            if at >= high:  # past the entries this queue holds: the file may hold more (growing_queue.py)
                return None
            assignment, answer = self.entry(at)
            if answer is None:
                return at
            position = assignment.position + 1  # answered in this sitting, not yet in the file

    def index_of(self, assignment: Assignment | None) -> int | None:
        """The index of `assignment` in this queue when it is there exactly as given, else None."""
        from annotate.store.queues import queue_index, stored_assignment

        if assignment is None:
            return None
        stored = self._read(stored_assignment, assignment.id)
        if stored != assignment or (stored.purpose == "adjudication") != self.adjudication:
            return None
        if stored.annotator != self.annotator:
            return None
        return self._read(queue_index, self.annotator, stored.position, self.adjudication)

    def _read(self, func: Callable[..., T], *args: Any) -> T:
        if self._reader is None:
            return func(self.store, *args)
        return self._reader.call(func, self._reader.store, *args).result()


_Page = tuple[list[tuple[Assignment, Judgment | None]], dict[int, list[Flag]]]
"""A page of a queue: its entries, and the open flags of those that have any."""


def _page_with_flags(store: Store, annotator: str, start: int, count: int, adjudication: bool) -> _Page:
    """One page of entries and their open flags (on the reader thread: one query each)."""
    from annotate.store.flags import open_flags
    from annotate.store.queues import queue_slice

    entries = queue_slice(store, annotator, start, count, adjudication)
    return entries, open_flags(store, [a.id for a, _j in entries])


class _Entries(Sequence[Assignment]):
    """A queue's assignments by index, read through its pages."""

    def __init__(self, queue: Queue) -> None:
        self._queue = queue

    def __len__(self) -> int:
        return self._queue.total

    @overload
    def __getitem__(self, index: int) -> Assignment: ...

    @overload
    def __getitem__(self, index: slice) -> list[Assignment]: ...

    def __getitem__(self, index: int | slice) -> Assignment | list[Assignment]:
        if isinstance(index, slice):
            return [self._queue.entry(i)[0] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        return self._queue.entry(index)[0]


class _Answers:
    """A queue's current answers by assignment id (a read-only mapping view)."""

    def __init__(self, queue: Queue) -> None:
        self._queue = queue

    def get(self, assignment_id: int, default: Judgment | None = None) -> Judgment | None:
        found = self._queue.answer(assignment_id)
        return default if found is None else found

    def __contains__(self, assignment_id: object) -> bool:
        return isinstance(assignment_id, int) and self._queue.answer(assignment_id) is not None

    def __getitem__(self, assignment_id: int) -> Judgment:
        found = self._queue.answer(assignment_id)
        if found is None:
            raise KeyError(assignment_id)
        return found

    def __bool__(self) -> bool:
        return self._queue.done > 0
