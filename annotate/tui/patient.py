"""A write of the app that waits out another program's long hold on the session's write lock.

Every write of the app takes the session's write lock, waiting for it at most the store's busy
timeout (30 s). An import of a large file (the 1.67M Arena battles) swaps its staged rows in with
one transaction that can hold the lock for a minute; a submit that gave up then would be shown as
NOT SAVED and the annotator's answer dropped. A try that timed out wrote nothing (the lock is taken
before anything is written, and a transaction that fails is rolled back), so it is safe to try the
same write again; trying again on the store thread, before the next queued call, keeps the writes
in the order they were made (a revision still lands after the judgment it revises). No Textual here.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

RETRY_PAUSE_S = 0.2
"""Between two tries once the busy timeout has passed: each try waits the busy timeout again."""
GIVE_UP_S = 600.0
"""How long a write waits in all before it fails as it did before (NOT SAVED): ten times the longest
hold an import was measured to need, and a bound on how long quitting (or SIGTERM) can wait for a
program that holds the lock and never lets go (a `sqlite3` shell left inside BEGIN)."""


def is_lock_timeout(error: BaseException) -> bool:
    """Whether `error` says the write lock did not come within the busy timeout (SQLite's own
    error, and the one annotate's writer queue raises in its place)."""
    return isinstance(error, sqlite3.OperationalError) and "database is locked" in str(error)


def patiently(write: Callable[[], T], on_wait: Callable[[], None], pause_s: float = RETRY_PAUSE_S,
              give_up_s: float = GIVE_UP_S) -> Callable[[], T]:
    """`write`, tried again for as long as it fails only because the lock is held elsewhere, up to
    `give_up_s` in all (then its error is raised); `on_wait` is called once, when the first try has
    timed out (to say so on screen)."""

    def run() -> T:
        waited = False
        deadline = time.monotonic() + give_up_s
        while True:
            try:
                return write()
            except sqlite3.OperationalError as exc:
                if not is_lock_timeout(exc) or time.monotonic() >= deadline:
                    raise
            if not waited:
                waited = True
                on_wait()
            time.sleep(pause_s)

    return run
