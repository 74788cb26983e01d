"""The annotator's queue as the app sees it, and the threads that talk to the store.

No Textual here. `StoreRunner` runs every Store call on one thread, in the order they were made:
SQLite writes must land in order (a revision must supersede the judgment it revises) and the
one connection is never used from two threads at once. `Prefetcher` reads the next items on that
thread and renders them on another, so showing the next item never waits for SQLite or Rich.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, TypeVar

from annotate.model import Assignment, Item, Judgment
from annotate.store import Store
from annotate.tui.render import Doc, LineCache

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


class Prefetcher:
    """Items read ahead on the store thread and their documents rendered ahead on another."""

    def __init__(self, runner: StoreRunner, cache: LineCache, capacity: int = 12) -> None:
        self.runner = runner
        self.cache = cache
        self.capacity = capacity
        self._items: OrderedDict[str, Future[Item]] = OrderedDict()
        self._render_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="annotate-render")
        self._rendering: dict[tuple[tuple[str, ...], int], Future[None]] = {}
        self._lock = threading.Lock()

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

    def prefetch(self, item_id: str, docs: Callable[[Item], Iterable[tuple[Doc, int]]]) -> None:
        """Read the item and render `docs(item)` (doc, width pairs) into the cache, in the background."""

        def render(item_future: Future[Item]) -> None:
            if item_future.exception() is not None:
                return
            for doc, width in docs(item_future.result()):
                self._render_later(doc, width)

        self.item(item_id).add_done_callback(render)

    def _render_later(self, doc: Doc, width: int) -> None:
        key = (doc.key, width)
        with self._lock:
            if key in self._rendering or self.cache.peek(doc, width) is not None:
                return
            self._rendering[key] = self._render_pool.submit(self._render, doc, width)

    def _render(self, doc: Doc, width: int) -> None:
        try:
            self.cache.get(doc, width)
        finally:
            with self._lock:
                self._rendering.pop((doc.key, width), None)

    def lines(self, doc: Doc, width: int) -> Any:
        """Rendered lines now: from the cache, by waiting for a render already running, or by
        rendering here."""
        lines = self.cache.peek(doc, width)
        if lines is not None:
            return lines
        with self._lock:
            running = self._rendering.get((doc.key, width))
        if running is not None:
            running.result()
            lines = self.cache.peek(doc, width)
            if lines is not None:
                return lines
        return self.cache.get(doc, width)

    def idle(self) -> bool:
        """True when nothing is being read or rendered ahead."""
        with self._lock:
            rendering = bool(self._rendering)
            reading = any(not f.done() for f in self._items.values())
        return not rendering and not reading

    def close(self) -> None:
        self._render_pool.shutdown(wait=False, cancel_futures=True)


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
