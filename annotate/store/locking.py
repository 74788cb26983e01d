"""Taking SQLite's write lock: BEGIN IMMEDIATE by short jittered polls, and retrying what can hit
SQLITE_BUSY outside the busy handler. Used by Store.open and Store.transaction (store.py)."""

from __future__ import annotations

import itertools
import random
import sqlite3
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from annotate.store._sqlite_utils import sqlite_utils


BUSY_TIMEOUT_MS = 30_000


def _retry_locked(action: Any, attempts: int = 50) -> Any:
    """Run an action that may hit SQLITE_BUSY outside the busy handler (e.g. switching to WAL while
    another connection opens the file), retrying with a short backoff instead of surfacing
    "database is locked" to a person."""
    for attempt in range(attempts):
        try:
            return action()
        except sqlite3.OperationalError as exc:
            if not _busy(exc) or attempt == attempts - 1:
                raise
            time.sleep(min(0.01 * (attempt + 1), 0.2))
    return None


def _busy(exc: sqlite3.OperationalError) -> bool:
    return "locked" in str(exc) or "busy" in str(exc)


LOCK_POLL_S = (0.0002, 0.0005, 0.001, 0.002, 0.003)
"""How long a writer waiting for the write lock sleeps between tries (then the last, each with
jitter): a lock released is taken within a few milliseconds, while SQLite's own busy handler
sleeps 1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100 ms in turn, so a writer that waits at all
waits tens of milliseconds past the release."""


LONG_WAIT_S = 0.1
"""Past this much waiting a writer is in a queue of several: it polls less often (`lock_pause`)."""
LONG_WAIT_POLL_S = 0.025


def lock_pause(attempt: int, waited_s: float) -> float:
    """The pause before the next try for the write lock: LOCK_POLL_S in turn, and once a writer has
    waited LONG_WAIT_S, a twentieth of its wait up to LONG_WAIT_POLL_S, so many waiters on a busy
    host do not take the CPU the lock's holder needs to finish (the pause stays short beside the
    wait already had)."""
    if waited_s >= LONG_WAIT_S:
        return max(LOCK_POLL_S[-1], min(LONG_WAIT_POLL_S, waited_s / 20))
    return LOCK_POLL_S[min(attempt, len(LOCK_POLL_S) - 1)]


def begin_immediate(db: sqlite_utils.Database, timeout_s: float = BUSY_TIMEOUT_MS / 1000) -> None:
    """BEGIN IMMEDIATE, waiting up to `timeout_s` for the write lock by our own short, jittered
    polls (LOCK_POLL_S) instead of SQLite's busy handler; raises "database is locked" after that.

    The connection's busy timeout is off only for these tries (every other statement keeps it)."""
    deadline = time.monotonic() + timeout_s
    db.execute("PRAGMA busy_timeout = 0")
    try:
        for attempt in itertools.count():
            try:
                db.execute("BEGIN IMMEDIATE")
                return
            except sqlite3.OperationalError as exc:
                if not _busy(exc) or time.monotonic() >= deadline:
                    raise
            time.sleep(lock_pause(attempt, time.monotonic() - (deadline - timeout_s)) * random.uniform(0.5, 1.5))
    finally:
        db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
