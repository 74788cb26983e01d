"""Annotate's own writers take turns for a session's write lock in the order they asked for it.

SQLite hands its write lock to whichever waiter polls first after it is released, so under load a
writer that has waited seconds can be overtaken again and again by newcomers (the tail of
`bench/stress_concurrent.py`). Before BEGIN IMMEDIATE, a writer of annotate therefore queues on a
lock file beside the session (`NAME.db-lock`, `lock_path`) and goes on only when every writer that
asked before it has finished its transaction. BEGIN IMMEDIATE still follows (locking.py): SQLite
keeps the last word on who writes, against writers that are not annotate (the sqlite3 shell,
sqlite-utils) too, so this queue gives order, never safety; when the lock file cannot be opened
for writing a writer goes straight to BEGIN IMMEDIATE, as before.

The queue is a ticket lock made of POSIX byte-range locks (fcntl), which the kernel drops when the
process holding them dies, so a writer killed in its transaction never blocks the others:

- a counter at the start of the file hands out tickets, under a lock on byte 0 held for a moment;
- the writer with ticket t holds byte BASE + t from taking its ticket to the end of its transaction;
- it waits by locking byte BASE + t - 1, its predecessor's: the kernel wakes it, and only it, when
  that writer commits, rolls back or dies.

POSIX locks belong to a process, not to a file descriptor, so a process keeps one descriptor per
lock file (closing any descriptor of a file would drop all of the process's locks on it) and one
threading lock in front of it: Stores on the same file in one process, and threads sharing one
Store, take turns there first. A blocking fcntl call has no timeout, so a writer that must wait
hands the blocking call to a helper thread and gives up after its timeout ("database is locked", as
SQLite says). The helper is started once per process and lock file and kept for the next wait (a
thread started per wait cost more CPU than the rest of the wait); one left blocked by a writer that
gave up finishes that call and ends, and the next wait gets a new one. Waiting sleeps in the
kernel: it takes no CPU however long it lasts.

For local disks on Linux and macOS. Not for NFS or other network file systems (their locks are
served by a lock daemon, slowly or not at all, and SQLite's WAL needs shared memory that they do
not have anyway). fcntl does not exist on Windows, which annotate does not support.
"""

from __future__ import annotations

import fcntl
import os
import sqlite3
import struct
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

SUFFIX = "-lock"
BASE = 64
"""Byte offset of ticket 0's lock; the bytes before it hold the ticket counter and its lock."""
_COUNTER = struct.Struct("<q")
_COUNTER_POLL_S = 0.0002
"""The counter's lock is held for a few microseconds: waiting for it is a poll."""


def lock_path(db: Path) -> Path:
    """The lock file of the session database `db`."""
    return db.with_name(db.name + SUFFIX)


def locked_error() -> sqlite3.OperationalError:
    return sqlite3.OperationalError("database is locked")


class _LockFile:
    """One process's descriptor on one lock file, the threading lock in front of it, and the ticket
    its holder has (if any)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.pid = os.getpid()
        self.users = 0
        self.turn = threading.RLock()
        self.depth = 0
        """How deeply the thread holding `turn` is nested in transactions (the ticket is taken at 1)."""
        self.waiter: _Waiter | None = None
        """The helper thread that makes this file's blocking lock calls (started at the first wait)."""


_files: dict[str, _LockFile] = {}
_files_lock = threading.Lock()


def _forget_after_fork() -> None:
    """A forked child owns none of its parent's locks: it opens its own descriptors."""
    global _files_lock
    _files.clear()
    _files_lock = threading.Lock()


os.register_at_fork(after_in_child=_forget_after_fork)


def _open_lock_file(path: Path, mode: int) -> int | None:
    """A read-write descriptor on the lock file, made with the session file's permissions when it
    is missing (as SQLite makes `-wal` and `-shm`, so whoever may write the session may queue); None
    when this user cannot open it for writing."""
    flags = os.O_RDWR | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        pass
    except OSError:
        return None
    else:
        with suppress(OSError):
            os.fchmod(fd, mode & 0o666)
        return fd
    try:
        return os.open(path, flags)
    except OSError:
        return None


class WriterQueue:
    """One Store's place in the queue of its session's writers (see the module's docstring)."""

    def __init__(self, db: Path) -> None:
        self.path = lock_path(db)
        self._key = os.path.realpath(self.path)
        self._db = db
        self._file: _LockFile | None = None
        self._attach()

    def _attach(self) -> None:
        with _files_lock:
            found = _files.get(self._key)
            if found is None or found.pid != os.getpid():
                try:
                    mode = os.stat(self._db).st_mode
                except OSError:
                    mode = 0o644
                fd = _open_lock_file(self.path, mode)
                if fd is None:
                    self._file = None
                    return
                found = _files[self._key] = _LockFile(fd)
            found.users += 1
            self._file = found

    @property
    def active(self) -> bool:
        """Whether this writer queues (False when the lock file could not be opened for writing)."""
        return self._file is not None

    def close(self) -> None:
        """Leave: the last Store of the process on this file closes the descriptor."""
        file, self._file = self._file, None
        if file is None or file.pid != os.getpid():
            return
        with _files_lock:
            file.users -= 1
            if file.users == 0 and _files.get(self._key) is file:
                del _files[self._key]
                if file.waiter is not None:
                    file.waiter.stop()
                os.close(file.fd)

    @contextmanager
    def turn(self, timeout_s: float) -> Iterator[None]:
        """Wait until every annotate writer that asked before has finished, then hold the turn until
        the block ends (however it ends). Raises sqlite3.OperationalError("database is locked") when
        the turn does not come within `timeout_s`."""
        file = self._file
        if file is not None and file.pid != os.getpid():
            self._file = None
            self._attach()
            file = self._file
        if file is None:
            yield
            return
        deadline = time.monotonic() + timeout_s
        if not file.turn.acquire(timeout=max(0.0, timeout_s)):
            raise locked_error()
        try:
            file.depth += 1
            if file.depth > 1:  # a transaction inside one this thread holds: the turn is already ours
                yield
                return
            ticket = _take_ticket(file.fd, deadline)
            try:
                if ticket > 0 and not _wait_for(file, BASE + ticket - 1, deadline):
                    raise locked_error()
                yield
            finally:
                _unlock(file.fd, BASE + ticket)
        finally:
            file.depth -= 1
            file.turn.release()


def _try_lock(fd: int, offset: int) -> bool:
    try:
        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, offset, os.SEEK_SET)
    except (BlockingIOError, PermissionError):
        return False
    return True


def _unlock(fd: int, offset: int) -> None:
    with suppress(OSError):
        fcntl.lockf(fd, fcntl.LOCK_UN, 1, offset, os.SEEK_SET)


def _take_ticket(fd: int, deadline: float) -> int:
    """The next ticket, with its byte locked (nobody else can hold it: tickets are handed out once)."""
    while not _try_lock(fd, 0):
        if time.monotonic() >= deadline:
            raise locked_error()
        time.sleep(_COUNTER_POLL_S)
    try:
        raw = os.pread(fd, _COUNTER.size, 0)
        ticket = _COUNTER.unpack(raw)[0] if len(raw) == _COUNTER.size else 0
        os.pwrite(fd, _COUNTER.pack(ticket + 1), 0)
        if not _try_lock(fd, BASE + ticket):
            raise locked_error()
        return ticket
    finally:
        _unlock(fd, 0)


def _wait_for(file: _LockFile, offset: int, deadline: float) -> bool:
    """Wait until the byte at `offset` (the predecessor's ticket) is free; False at the deadline.
    Called by the thread holding `file.turn` only."""
    if _try_lock(file.fd, offset):
        _unlock(file.fd, offset)
        return True
    waiter = file.waiter
    if waiter is None or not waiter.idle:
        waiter = file.waiter = _Waiter(file.fd)
    if waiter.wait(offset, max(0.0, deadline - time.monotonic())):
        return True
    file.waiter = None  # still blocked on the byte: it ends once that call returns
    return False


class _Waiter:
    """A thread that makes blocking lock calls on one descriptor for a caller that waits with a timeout.

    One call at a time: `wait` hands it the byte and sleeps until the byte was free (True) or the
    timeout (False; the thread is then left to finish that call and ends)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self._cond = threading.Condition(threading.Lock())
        self._job: tuple[int, threading.Event] | None = None
        self._busy = False
        self._ended = False
        threading.Thread(target=self._run, name="annotate-writer-queue", daemon=True).start()

    @property
    def idle(self) -> bool:
        """Whether it can take a call now (not still blocked in one, not stopped)."""
        return not self._busy and not self._ended

    def wait(self, offset: int, timeout_s: float) -> bool:
        freed = threading.Event()
        with self._cond:
            self._job, self._busy = (offset, freed), True
            self._cond.notify()
        if freed.wait(timeout_s):
            return True
        with self._cond:
            if freed.is_set():  # freed at the very moment the wait timed out
                return True
            self._ended = True  # abandoned: it ends after this call
            self._cond.notify()
        return False

    def stop(self) -> None:
        with self._cond:
            self._ended = True
            self._cond.notify()

    def _run(self) -> None:
        while True:
            with self._cond:
                while self._job is None and not self._ended:
                    self._cond.wait()
                if self._job is None:
                    return
                (offset, freed), self._job = self._job, None
            try:
                fcntl.lockf(self.fd, fcntl.LOCK_EX, 1, offset, os.SEEK_SET)
            except OSError:  # EDEADLK, or the descriptor closed meanwhile: SQLite's lock still decides
                pass
            else:
                _unlock(self.fd, offset)
            with self._cond:
                self._busy = False
                freed.set()
                if self._ended:
                    return
