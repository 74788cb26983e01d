"""`StoreRunner`: every Store call of the app on one thread, in the order they were made.

SQLite writes must land in order (a revision must supersede the judgment it revises) and the one
connection is never used from two threads at once. No Textual here.
"""

from __future__ import annotations

import threading
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

    def call(self, func: Callable[..., T], *args: Any) -> Future[T]:
        """Queue `func(*args)`; the future holds its result or exception.

        Raises RuntimeError once the runner is closed (see `closed`)."""
        with self._lock:
            future = self._pool.submit(func, *args)
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
        in the order they were queued, so the last one finishing means all have."""
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
        self._pool.shutdown(wait=True)
