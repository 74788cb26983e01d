"""The annotator's queue as the app sees it, and the threads that talk to the store.

No Textual here. `StoreRunner` (`annotate.tui.store_runner`) runs every Store call on one thread;
`Prefetcher` reads the next items on that thread and renders documents on another, so showing the
next item waits neither for SQLite nor for more Rich rendering than its first screenful.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future
from typing import Any, TypeVar, overload

from annotate.flags import Flag
from annotate.model import Assignment, Item, Judgment
from annotate.store import Store
from annotate.tui.render import Doc, DocLines, LineCache
from annotate.tui.store_runner import StoreRunner

T = TypeVar("T")


HOLD_MAX_S = 1.0
"""A hold on the render thread ends by itself after this long (a screen that forgot to release)."""
SHOWN_MAX = 4
"""Documents on screen the render thread finishes first (prompt, two responses, guideline)."""
AHEAD_MAX = 12
"""Documents rendered ahead at most; the oldest requests are dropped first."""


def read_label(store: Store, suggestion_id: int) -> str | None:
    """A suggestion's label, or None when the store has no such suggestion."""
    try:
        return store.suggestion(suggestion_id).label
    except KeyError:
        return None


Warm = Callable[[DocLines], None]
"""Work on a document's lines once rendered ahead (on the render thread)."""
Ahead = tuple[Doc, int] | tuple[Doc, int, Warm | None] | tuple[Doc, int, Warm | None, int]
"""A document to render ahead: (doc, width[, what to do with its lines[, lines of its first screenful]])."""


class Prefetcher:
    """Items (and suggestion labels) read ahead on the store thread; documents rendered on a render
    thread, a part at a time (`render.DocLines`).

    The render thread first renders the first screenful of each neighbour's documents (what the next
    key shows), then finishes the documents on screen (the last `lines` handed out), then renders
    the neighbours' documents whole. A screen `hold`s it from a key press until the next
    item is painted: rendering holds the GIL and would slow that paint down; between two parts it
    checks the hold, so it gives way within one part.
    """

    def __init__(self, runner: StoreRunner, cache: LineCache, capacity: int = 12) -> None:
        self.runner = runner
        self.cache = cache
        self.capacity = capacity
        """Items kept."""
        self._items: OrderedDict[str, Future[Item]] = OrderedDict()
        self._labels: dict[int, Future[str | None]] = {}
        self._shown: deque[DocLines] = deque(maxlen=SHOWN_MAX)
        """Documents handed out to views and not complete, most recent last."""
        self._ahead: deque[tuple[Doc, int]] = deque(maxlen=AHEAD_MAX)
        """(document, width) to render ahead, oldest first."""
        self._warm: dict[tuple[Doc, int], Warm] = {}
        """(document, width) -> what the view that will show it does with its lines once they are
        rendered ahead (frames its first rows: widgets/doc_view.py `warmer`), on the render thread."""
        self._first: deque[tuple[Doc, int]] = deque(maxlen=AHEAD_MAX)
        """(document, width) wanted ahead whose first screenful is not rendered yet, oldest first:
        rendered before anything else, so that the next key finds what it shows, even when the
        documents on screen are long (a 50k-character response takes ~300 ms to finish)."""
        self._rows: dict[tuple[Doc, int], int] = {}
        """(document, width) -> the lines of its first screenful (where `_first` stops)."""
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._hold_until = 0.0
        self._hold_token = 0
        self._busy = False
        self._closed = False
        self._thread: threading.Thread | None = None

    # -- reading ---------------------------------------------------------------------------------

    def item(self, item_id: str) -> Future[Item]:
        """The item, read on the store thread once and kept for a while."""
        with self._lock:
            future = self._items.get(item_id)
            if future is None:
                future = self.runner.call(self.runner.store.item, item_id)
                self._items[item_id] = future
            self._items.move_to_end(item_id)
            while len(self._items) > self.capacity:
                self._items.popitem(last=False)
            return future

    def label(self, suggestion_id: int) -> Future[str | None]:
        """A suggestion's label (None when missing), read on the store thread once. Asked for
        before the item it goes with, it is there when the item is (the store thread runs calls
        in order)."""
        with self._lock:
            future = self._labels.get(suggestion_id)
            if future is None:
                future = self.runner.call(read_label, self.runner.store, suggestion_id)
                self._labels[suggestion_id] = future
            return future

    # -- rendering -------------------------------------------------------------------------------

    def prefetch(self, item_id: str, docs: Callable[[Item], Iterable[Ahead]]) -> None:
        """Read the item and render `docs(item)` into the cache, in the background: (doc, width), or
        with what to do with the rendered lines on the render thread (then once the first screenful is
        rendered, if its lines are given, else once the whole document is), and the lines of its
        first screenful, rendered before any document's rest."""

        def render(item_future: Future[Item]) -> None:
            if item_future.exception() is not None:
                return
            wanted = list(docs(item_future.result()))
            with self._lock:
                for doc, width, *then in wanted:
                    entry = (doc, width)
                    warm = then[0] if then else None
                    rows = then[1] if len(then) > 1 else 0
                    if warm is not None:
                        self._warm[entry] = warm
                    if rows > 0 and entry not in self._first:
                        self._rows[entry] = rows
                        self._first.append(entry)
                    if entry not in self._ahead:
                        self._ahead.append(entry)
                if len(self._warm) > 2 * AHEAD_MAX:
                    for entry in [e for e in self._warm if e not in self._ahead]:
                        del self._warm[entry]
                for entry in [e for e in self._rows if e not in self._first]:
                    del self._rows[entry]
                self._start()

        self.item(item_id).add_done_callback(render)

    def lines(self, doc: Doc, width: int) -> DocLines:
        """The document's lines at `width` for a view on screen: as far as rendered (ahead, or
        not at all); the render thread finishes them first. The view renders what it shows now."""
        lines = self.cache.get(doc, width)
        if not lines.complete:
            with self._lock:
                if lines in self._shown:
                    self._shown.remove(lines)
                self._shown.append(lines)
                self._start()
        return lines

    def hold(self) -> int:
        """Pause the render thread (after the part it is rendering) until `release(token)`, or
        HOLD_MAX_S; returns the token."""
        with self._lock:
            self._hold_token += 1
            self._hold_until = time.monotonic() + HOLD_MAX_S
            return self._hold_token

    def release(self, token: int) -> None:
        """End the hold `token`, unless a later one was taken since."""
        with self._lock:
            if token == self._hold_token:
                self._hold_until = 0.0
                self._wake.notify_all()

    def idle(self) -> bool:
        """True when nothing is being read, nor is left to render."""
        with self._lock:
            rendering = (self._busy or bool(self._ahead) or bool(self._first)
                         or any(not lines.complete for lines in self._shown))
            reading = any(not f.done() for f in self._items.values())
        return not rendering and not reading

    def close(self) -> None:
        """Stop the render thread (after the part it is rendering)."""
        with self._lock:
            self._closed = True
            self._wake.notify_all()

    def _start(self) -> None:
        """Wake the render thread, starting it the first time (the lock is held)."""
        if self._thread is None and not self._closed:
            self._thread = threading.Thread(target=self._run, name="annotate-render", daemon=True)
            self._thread.start()
        self._wake.notify_all()

    def _next(self) -> tuple[str, Any] | None:
        """What to render next (the lock is held): the first screenful of a document wanted ahead,
        oldest first (`first`); else a document on screen, newest first (`shown`); else the oldest
        document wanted ahead (`ahead`)."""
        if self._first:
            return "first", self._first[0]
        for lines in reversed(self._shown):
            if not lines.complete:
                return "shown", lines
        return ("ahead", self._ahead[0]) if self._ahead else None

    def _run(self) -> None:
        while True:
            with self._lock:
                while True:
                    if self._closed:
                        return
                    wait = self._hold_until - time.monotonic()
                    job = self._next() if wait <= 0 else None
                    if job is not None:
                        break
                    self._busy = False
                    self._wake.wait(wait if wait > 0 else None)
                self._busy = True
            kind, what = job
            try:
                if kind == "shown":
                    what.render_next()
                elif kind == "first":
                    self._render_first(what)
                else:
                    lines = self.cache.get(*what)
                    if not lines.render_next():
                        with self._lock:
                            if self._ahead and self._ahead[0] == what:
                                self._ahead.popleft()
                            warm = self._warm.pop(what, None)
                        if warm is not None:
                            warm(lines)
            except Exception:  # a document that cannot be rendered ahead is rendered (and fails) on screen
                with self._lock:
                    if kind == "shown" and what in self._shown:
                        self._shown.remove(what)
                    if kind == "first" and what in self._first:
                        self._first.remove(what)
                    if kind != "shown" and what in self._ahead:
                        self._ahead.remove(what)

    def _render_first(self, entry: tuple[Doc, int]) -> None:
        """Render one more part of the first screenful of `entry`; once it is there, do what its view
        does with it (`Warm`) and leave the rest for later."""
        lines = self.cache.get(*entry)
        rows = self._rows.get(entry, 0)
        if len(lines.lines) < rows and lines.render_next() and len(lines.lines) < rows and not lines.complete:
            return
        with self._lock:
            if entry in self._first:
                self._first.remove(entry)
            self._rows.pop(entry, None)
            warm = self._warm.pop(entry, None)
        if warm is not None:
            warm(lines)


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
                _, evicted = self._pages.popitem(last=False)
                for a, _j in evicted:
                    self._stored.pop(a.id, None)
                    self._stored_flags.pop(a.id, None)
        self._pages.move_to_end(page)
        return found

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
