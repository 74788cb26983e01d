"""The typed API over one session's SQLite file. The only place in annotate that speaks SQL.

Every write happens in one `BEGIN IMMEDIATE` transaction, so a submit (judgment plus its events)
either lands whole or not at all, and several annotators' processes can write one file at once:
WAL lets readers go on while one writer holds the lock, and a writer waits for the lock instead of
failing with "database is locked": first for its turn among annotate's writers, in the order they
asked (writers.py), then for SQLite's lock itself (locking.py).

The Store class is composed of one mixin per concern: items.py (items, imported labels),
assignments.py (annotators, assignments), judgments.py (judgments, events, progress) and
suggestions.py; this module opens the file, holds the connection and runs the write transaction.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any

from annotate.model import Judgment
from annotate.store import health
from annotate.store.assignments import AssignmentsMixin
from annotate.store.database import LazyDatabase
from annotate.store.errors import StoreError
from annotate.store.items import ItemsMixin
from annotate.store.judgment_rows import _judgment_from_row
from annotate.store.judgments import JudgmentsMixin
from annotate.store.locking import (
    BUSY_TIMEOUT_MS,
    LOCK_POLL_S,
    LONG_WAIT_POLL_S,
    LONG_WAIT_S,
    _retry_locked,
    begin_immediate,
    lock_pause,
)
from annotate.store.records import (
    STALE_ANSWER,
    AddResult,
    ItemConflict,
    Progress,
    StaleAssignment,
    SuggestionFailure,
    new_uid,
    utc_now,
)
from annotate.store.schema import migrate
from annotate.store.spans import with_spans
from annotate.store.suggestions import SuggestionsMixin
from annotate.store.writers import WriterQueue

if TYPE_CHECKING:
    import pandas as pd

    from annotate.store._sqlite_utils import sqlite_utils

# Names other modules import from here. Store.open and Store.transaction look _retry_locked,
# begin_immediate and WriterQueue up in this module at call time: bench/stress_concurrent.py swaps
# begin_immediate and WriterQueue here to measure the ways of waiting that came before.
__all__ = [
    "BUSY_TIMEOUT_MS", "LOCK_POLL_S", "LONG_WAIT_POLL_S", "LONG_WAIT_S", "READ_ONLY_BY_CHOICE", "STALE_ANSWER",
    "AddResult", "ItemConflict", "Progress", "StaleAssignment", "Store", "StoreError", "SuggestionFailure",
    "_judgment_from_row", "_retry_locked", "begin_immediate", "lock_pause", "new_uid", "utc_now",
]

READ_ONLY_BY_CHOICE = "opened read-only, only to watch it"
"""The read-only reason of a file this user could write but opened with `read_only=True`."""


@contextmanager
def _savepoint(conn: sqlite3.Connection) -> Iterator[None]:
    """A transaction nested in the open one, as sqlite-utils' `atomic` makes it (a savepoint released at
    the end, rolled back to on an exception unless the exception already ended the whole transaction),
    run on the connection itself: a write on a first start needs no sqlite-utils (store/database.py)."""
    conn.execute('SAVEPOINT "annotate_nested"')
    try:
        yield
    except BaseException:
        if conn.in_transaction:
            conn.execute('ROLLBACK TO SAVEPOINT "annotate_nested"')
            conn.execute('RELEASE SAVEPOINT "annotate_nested"')
        raise
    conn.execute('RELEASE SAVEPOINT "annotate_nested"')


class Store(ItemsMixin, AssignmentsMixin, JudgmentsMixin, SuggestionsMixin):
    """One session file. Open with `Store.open(path)`; use as a context manager to close."""

    def __init__(self, db: LazyDatabase, path: Path, read_only: str = "") -> None:
        self.db = db
        """The connection: sqlite-utils' Database, which is imported only when more than reads need it
        (store/database.py)."""
        self.path = path
        self.read_only_reason = read_only
        """Why this user cannot write the file ("" when they can); every write is then refused."""
        self._wal = None if read_only else health.WalWatch(path, db)
        self._writers = None if read_only else WriterQueue(path)
        """This Store's place in the queue of the session's writers (a read-only one never writes)."""
        self._spans_table: bool | None = None
        self._annotator_ids: dict[str, int] = {}
        """Annotators' ids by name, as read outside a transaction (judgments.py: the events' annotators)."""
        self._prepared: set[str] = set()
        """Write statements compiled ahead, outside the write lock (store/database.py `prepare`)."""

    @property
    def has_spans(self) -> bool:
        """Whether the file has the spans table (a read-only file of an older version may not)."""
        if self._spans_table is None:
            self._spans_table = self.db.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'spans'").fetchone() is not None
        return self._spans_table

    def with_spans(self, judgments: list[Judgment]) -> list[Judgment]:
        """The judgments with their error spans attached (annotate.store.spans)."""
        return with_spans(self.db, judgments) if self.has_spans and judgments else judgments

    @property
    def read_only(self) -> bool:
        return bool(self.read_only_reason)

    # -- opening ---------------------------------------------------------------------------

    @classmethod
    @health.session_file_errors
    def open(cls, path: Path | str, create: bool = False, read_only: bool = False) -> Store:
        """Open a session file; with create=True make it (and migrate) when it is missing. A file
        this user cannot write is opened read-only, and so is any file with read_only=True (a
        watcher such as `status --watch`: it never migrates, writes or takes a write lock); a
        broken one is a SessionFileError that says what is wrong and what to do (store/health.py)."""
        path = Path(path)
        health.check_before_open(path, create and not read_only)
        access = health.access(path)
        if read_only and access.mode == "rw":
            access = health.Access("ro", READ_ONLY_BY_CHOICE)
        if access.mode != "rw":
            return cls._open_read_only(path, access)
        conn = health.connect(str(path), timeout=BUSY_TIMEOUT_MS / 1000, check_same_thread=False)
        db = LazyDatabase(conn)  # sqlite-utils (no plugin scan: annotate uses none) once more than reads need it
        db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        health.check_opened(db, path)
        if db.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
            _retry_locked(lambda: db.execute("PRAGMA journal_mode = wal"))
        db.execute("PRAGMA synchronous = FULL")
        migrate(db)  # foreign keys off: a migration may rebuild a table others refer to
        db.execute("PRAGMA foreign_keys = ON")
        return cls(db, path)

    @classmethod
    def _open_read_only(cls, path: Path, access: health.Access) -> Store:
        """A session this user cannot write: opened read-only, never migrated; writes are refused."""
        if not path.exists():
            raise health.SessionFileError(f"{health.shown(path)}: cannot create it: {access.reason}")
        conn = health.connect(
            health.read_only_uri(path, access.mode), uri=True, timeout=BUSY_TIMEOUT_MS / 1000,
            check_same_thread=False,
        )
        db = LazyDatabase(conn)  # sqlite-utils (no plugin scan: annotate uses none) once more than reads need it
        db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        db.execute("PRAGMA foreign_keys = ON")
        health.check_opened(db, path, read_only=access.reason)
        return cls(db, path, read_only=access.reason)

    def require_writable(self, what: str) -> None:
        """Refuse up front (SessionFileError) work that will write, on a session this user cannot write."""
        if self.read_only:
            raise health.read_only_error(self.path, self.read_only_reason, what)

    def close(self) -> None:
        self.db.close()
        if self._writers is not None:
            self._writers.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, exc_type: object, exc: BaseException | None, tb: object) -> None:
        """Close; an SQLite error about the file itself leaves as a SessionFileError naming it."""
        self.close()
        if exc is not None:
            found = health.translate(exc, self.path, self.read_only_reason)
            if found is not None and found is not exc:
                raise found from exc

    @contextmanager
    def transaction(self) -> Iterator[sqlite_utils.Database]:  # a LazyDatabase: the same API
        """One write transaction that takes the write lock up front (BEGIN IMMEDIATE), after this
        writer's turn among annotate's writers (writers.py); the turn ends with COMMIT or ROLLBACK.
        In its turn a writer takes SQLite's lock at once (no busy-timeout switching: a submit's CPU
        matters when many write); without a turn (no lock file) it polls for it (locking.py)."""
        self.require_writable("this command writes to it")
        timeout_s = BUSY_TIMEOUT_MS / 1000
        deadline = time.monotonic() + timeout_s
        with self._writers.turn(timeout_s) if self._writers is not None else nullcontext():
            if self.db.conn.in_transaction:
                with _savepoint(self.db.conn):
                    yield self.db
                return
            if self._writers is not None and self._writers.active:
                # Our turn: annotate's other writers wait behind us, so SQLite's lock is free but for a
                # writer that is not annotate (the sqlite3 shell), which the busy handler then waits for.
                self.db.execute("BEGIN IMMEDIATE")
            else:
                begin_immediate(self.db, max(0.0, deadline - time.monotonic()))
            try:
                if self._wal is not None:
                    self._wal.check()
                yield self.db
            except BaseException:
                self.db.conn.rollback()
                raise
            self.db.execute("COMMIT")
        if self._wal is not None:
            self._wal.check(committed=True)

    # -- meta ------------------------------------------------------------------------------

    def get_meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", [key]).fetchone()
        return None if row is None else row[0]

    def set_meta(self, key: str, value: str) -> None:
        with self.transaction() as db:  # what sqlite-utils' upsert of {key, value} runs, without it
            db.execute("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value ="
                       " excluded.value", [key, value])

    # -- frames for analysis and export (pandas imported lazily) ---------------------------

    def frame(self, sql: str, params: Sequence[Any] = ()) -> pd.DataFrame:
        """Run a read query into a DataFrame (for store/frames.py only)."""
        import pandas as pd

        cursor = self.db.execute(sql, list(params))
        columns = [d[0] for d in cursor.description]
        return pd.DataFrame(cursor.fetchall(), columns=columns)
