"""The annotator's queue as the app sees it, and the threads that talk to the store.

No Textual here. `StoreRunner` runs every Store call on one thread, in the order they were made:
SQLite writes must land in order (a revision must supersede the judgment it revises) and the
one connection is never used from two threads at once. `Prefetcher` reads the next items on that
thread and renders documents on another, so showing the next item waits neither for SQLite nor
for more Rich rendering than its first screenful.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, TypeVar

from annotate.model import Assignment, Item, Judgment
from annotate.store import Store
from annotate.tui.render import Doc, DocLines, LineCache

T = TypeVar("T")


class StoreRunner:
    """Runs Store calls on one dedicated thread, first in, first out."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="annotate-store")
        self._pending = 0
        self._lock = threading.Lock()

    def call(self, func: Callable[..., T], *args: Any) -> Future[T]:
        """Queue `func(*args)`; the future holds its result or exception."""
        with self._lock:
            self._pending += 1
        future = self._pool.submit(func, *args)
        future.add_done_callback(self._done)
        return future

    def _done(self, _future: Future[Any]) -> None:
        with self._lock:
            self._pending -= 1

    @property
    def pending(self) -> int:
        """Calls queued or running."""
        with self._lock:
            return self._pending

    def drain(self, timeout: float | None = None) -> bool:
        """Wait until every call queued so far has finished; False on timeout."""
        marker = self._pool.submit(lambda: None)
        try:
            marker.result(timeout)
        except TimeoutError:
            return False
        return True

    def close(self) -> None:
        """Finish every queued call, then stop the thread."""
        self._pool.shutdown(wait=True)


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


class Prefetcher:
    """Items (and suggestion labels) read ahead on the store thread; documents rendered on a render
    thread, a part at a time (`render.DocLines`).

    The render thread first finishes the documents on screen (the last `lines` handed out), then
    renders the neighbours' documents ahead. A screen `hold`s it from a key press until the next
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

    def prefetch(self, item_id: str, docs: Callable[[Item], Iterable[tuple[Doc, int]]]) -> None:
        """Read the item and render `docs(item)` (doc, width pairs) into the cache, in the background."""

        def render(item_future: Future[Item]) -> None:
            if item_future.exception() is not None:
                return
            wanted = list(docs(item_future.result()))
            with self._lock:
                for entry in wanted:
                    if entry not in self._ahead:
                        self._ahead.append(entry)
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
            rendering = self._busy or bool(self._ahead) or any(not lines.complete for lines in self._shown)
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

    def _next(self) -> DocLines | tuple[Doc, int] | None:
        """What to render next (the lock is held): a document on screen, newest first, else the
        oldest document wanted ahead."""
        for lines in reversed(self._shown):
            if not lines.complete:
                return lines
        return self._ahead[0] if self._ahead else None

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
            try:
                lines = job if isinstance(job, DocLines) else self.cache.get(*job)
                if not lines.render_next() and not isinstance(job, DocLines):
                    with self._lock:
                        if self._ahead and self._ahead[0] == job:
                            self._ahead.popleft()
            except Exception:  # a document that cannot be rendered ahead is rendered (and fails) on screen
                with self._lock:
                    if job in self._shown:
                        self._shown.remove(job)  # type: ignore[arg-type]
                    elif self._ahead and self._ahead[0] == job:
                        self._ahead.popleft()


@dataclass
class Queue:
    """One annotator's assignments and the judgments currently in force for them."""

    assignments: list[Assignment]
    answers: dict[int, Judgment] = field(default_factory=dict)
    """Assignment id -> current judgment (skips included)."""

    def __len__(self) -> int:
        return len(self.assignments)

    def finished(self, index: int) -> bool:
        return self.assignments[index].id in self.answers

    @property
    def done(self) -> int:
        """Assignments with a current judgment (skips included)."""
        return sum(1 for a in self.assignments if a.id in self.answers)

    @property
    def skipped(self) -> int:
        return sum(1 for a in self.assignments if a.id in self.answers and self.answers[a.id].skipped)

    def first_unfinished(self, start: int = 0) -> int | None:
        """The first index at or after `start` (wrapping round) with no judgment, or None."""
        n = len(self.assignments)
        for offset in range(n):
            index = (start + offset) % n
            if not self.finished(index):
                return index
        return None
