"""`StoreRunner`: every Store call of the app on one thread, in the order they were made.

SQLite writes must land in order (a revision must supersede the judgment it revises) and the one
connection is never used from two threads at once. No Textual here.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import CancelledError, Future, ThreadPoolExecutor
from typing import Any, TypeVar

from annotate.store import Store

T = TypeVar("T")


class StoreRunner:
    """Runs Store calls on one dedicated thread, first in, first out."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="annotate-store")
        self._pending = 0
        self._lock = threading.Lock()
        self._last: Future[Any] | None = None
        self._closed = False
        self._open = threading.Event()
        """Set unless held: calls queued during a hold start when it ends (or at its deadline)."""
        self._open.set()
        self._hold_until = 0.0

    def hold(self, at_most_s: float) -> None:
        """Calls queued from now start only after `release` or `at_most_s` seconds: the app holds its
        writes from a key until the next item is painted, so that the write's Python work does not
        compete for the GIL with the paint; nothing is lost or reordered, only started a little later."""
        with self._lock:
            self._hold_until = time.monotonic() + at_most_s
            self._open.clear()

    def release(self) -> None:
        """End a hold: the calls held start now."""
        self._open.set()

    def _gated(self, func: Callable[..., T], *args: Any) -> T:
        wait = self._hold_until - time.monotonic()
        if wait > 0:
            self._open.wait(wait)
        return func(*args)

    def call(self, func: Callable[..., T], *args: Any) -> Future[T]:
        """Queue `func(*args)`; the future holds its result or exception.

        Raises RuntimeError once the runner is closed (see `closed`)."""
        with self._lock:
            held = not self._open.is_set()
            future = self._pool.submit(self._gated, func, *args) if held else self._pool.submit(func, *args)
            self._pending += 1
            self._last = future
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

    @property
    def closed(self) -> bool:
        """True once `close` began: nothing more can be queued, and Store calls belong to the caller's thread."""
        return self._closed

    def drain(self, timeout: float | None = None) -> bool:
        """Wait until every call queued so far has finished; False on timeout.

        Works after `close` too (a SIGHUP can land while the app is being taken down): the calls run
        in the order they were queued, so the last one finishing means all have. Ends a hold."""
        self.release()
        with self._lock:
            last = self._last
        if last is None:
            return True
        try:
            last.exception(timeout)
        except TimeoutError:
            return False
        except CancelledError:
            pass
        return True

    def close(self) -> None:
        """Finish every queued call, then stop the thread."""
        with self._lock:
            self._closed = True
        self.release()
        self._pool.shutdown(wait=True)
