"""Annotate's writers take turns for the write lock in the order they asked (annotate/store/writers.py).

Real processes on a real session file. Arrival order is made certain, not timed: a writer has
asked once the ticket counter in the lock file has moved past it.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
import sqlite3
import stat
import struct
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import make_item

from annotate.store import Store
from annotate.store.writers import WriterQueue, lock_path

CONTEXT = mp.get_context("fork")


def _tickets(db: Path) -> int:
    """How many turns have been asked for on this session so far."""
    raw = lock_path(db).read_bytes()[:8]
    return struct.unpack("<q", raw)[0] if len(raw) == 8 else 0


def _wait_tickets(db: Path, count: int, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while _tickets(db) < count:
        assert time.monotonic() < deadline, f"never got to {count} tickets"
        time.sleep(0.005)


def _record(tx: Any, name: str) -> None:
    tx.execute("INSERT INTO meta (key, value) VALUES (?, (SELECT count(*) + 1 FROM meta WHERE key LIKE 'order:%'))",
               [f"order:{name}"])


def _write_in_turn(db: str, name: str, done: mp.Queue) -> None:
    """One annotate process: a transaction that records who wrote, in the order the writes landed."""
    try:
        with Store.open(db) as store, store.transaction() as tx:
            _record(tx, name)
        done.put(name)
    except Exception as exc:
        done.put(f"{type(exc).__name__}: {exc}")


def _hold(db: str, holding: mp.Event, release: mp.Event, again: bool) -> None:
    """Hold the lock until `release`; with `again`, ask for it once more the moment it commits."""
    with Store.open(db) as store:
        with store.transaction():
            holding.set()
            release.wait(60)
        if again:
            with store.transaction() as tx:
                _record(tx, "holder again")


def _order(db: Path) -> list[str]:
    with Store.open(db) as store:
        rows = store.db.execute("SELECT key, value FROM meta WHERE key LIKE 'order:%'").fetchall()
    return [key.removeprefix("order:") for key, _ in sorted(rows, key=lambda r: int(r[1]))]


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "s.db"
    with Store.open(path, create=True) as store:
        store.add_items([make_item("i1")])
    return path


def _queue_behind_a_holder(db: Path, names: list[str], again: bool = False) -> list[str]:
    """A process holds the lock; `names` ask for it one after the other; then it is released.
    (No Store is open in this process while it forks: SQLite's locks do not survive a fork.)"""
    holding, release = CONTEXT.Event(), CONTEXT.Event()
    holder = CONTEXT.Process(target=_hold, args=(str(db), holding, release, again))
    holder.start()
    assert holding.wait(30)
    base = _tickets(db)
    done: mp.Queue = CONTEXT.Queue()
    procs = []
    for k, name in enumerate(names):
        proc = CONTEXT.Process(target=_write_in_turn, args=(str(db), name, done))
        proc.start()
        procs.append(proc)
        _wait_tickets(db, base + k + 1)
    release.set()
    results = [done.get(timeout=60) for _ in procs]
    for proc in [holder, *procs]:
        proc.join(60)
    return results


def test_writers_get_the_lock_in_the_order_they_asked(db: Path) -> None:
    """Eight processes ask, one after the other, while the lock is held; they write in that order
    (under SQLite's lock alone, whichever polls first after a release goes next)."""
    names = [f"w{k}" for k in range(8)]
    assert sorted(_queue_behind_a_holder(db, names)) == names
    assert _order(db) == names


def test_a_writer_that_waited_is_not_overtaken_by_the_holder_asking_again(db: Path) -> None:
    """The writer holding the lock commits and at once asks again (an annotator submitting back to
    back): the one that was waiting goes first, and so do the newcomers that asked before it."""
    names = ["waiter", "newcomer1", "newcomer2"]
    assert sorted(_queue_behind_a_holder(db, names, again=True)) == sorted(names)
    assert _order(db) == [*names, "holder again"]


def _take_turn(db: str, timeout_s: float, done: mp.Queue) -> None:
    queue = WriterQueue(Path(db))
    try:
        with queue.turn(timeout_s):
            done.put("got it")
    except sqlite3.OperationalError as exc:
        done.put(str(exc))
    finally:
        queue.close()


def _other_process_gets_a_turn(db: Path, timeout_s: float = 5.0) -> str:
    done: mp.Queue = CONTEXT.Queue()
    proc = CONTEXT.Process(target=_take_turn, args=(str(db), timeout_s, done))
    proc.start()
    proc.join(60)
    return done.get(timeout=5)


def test_the_turn_ends_when_the_transaction_fails(db: Path) -> None:
    with Store.open(db) as store:
        with pytest.raises(ValueError), store.transaction() as tx:
            tx.execute("INSERT INTO meta (key, value) VALUES ('half', 'written')")
            raise ValueError("boom")
        assert store.get_meta("half") is None
        assert _other_process_gets_a_turn(db) == "got it"
        other = Store.open(db)
        got: list[str] = []
        thread = threading.Thread(target=lambda: got.append(_in_thread_turn(other)))
        thread.start()
        thread.join(30)
        other.close()
        assert got == ["got it"]


def _in_thread_turn(store: Store) -> str:
    with store.transaction():
        return "got it"


def test_a_turn_not_given_in_time_is_database_is_locked(db: Path) -> None:
    with Store.open(db) as store, store.transaction():
        assert _other_process_gets_a_turn(db, timeout_s=0.3) == "database is locked"
    assert _other_process_gets_a_turn(db) == "got it"


def test_two_stores_on_one_file_in_one_process_take_turns(db: Path) -> None:
    """A second Store on the same file, on another thread, waits for the first's transaction and
    then writes; neither deadlocks, and closing one leaves the other's turn held."""
    first, second = Store.open(db), Store.open(db)
    inside = threading.Event()
    release = threading.Event()
    order: list[str] = []

    def hold() -> None:
        with first.transaction() as tx:
            tx.execute("INSERT INTO meta (key, value) VALUES ('first', '1')")
            inside.set()
            release.wait(30)
            order.append("first")

    def write() -> None:
        with second.transaction() as tx:
            tx.execute("INSERT INTO meta (key, value) VALUES ('second', '1')")
            order.append("second")

    holder = threading.Thread(target=hold)
    holder.start()
    assert inside.wait(10)
    writer = threading.Thread(target=write)
    writer.start()
    writer.join(0.3)
    assert order == []  # waiting for its turn
    release.set()
    holder.join(30)
    writer.join(30)
    assert order == ["first", "second"]
    first.close()  # the process's other Store still queues on the same lock file
    with second.transaction():
        assert _other_process_gets_a_turn(db, timeout_s=0.3) == "database is locked"
    second.close()


def _die_holding_the_turn(db: str, ready: mp.Queue) -> None:
    store = Store.open(db)
    with store.transaction() as tx:
        tx.execute("INSERT INTO meta (key, value) VALUES ('dead', 'writer')")
        ready.put("holding")
        time.sleep(600)


def test_a_writer_killed_in_its_turn_does_not_block_the_others(db: Path) -> None:
    ready: mp.Queue = CONTEXT.Queue()
    proc = CONTEXT.Process(target=_die_holding_the_turn, args=(str(db), ready))
    proc.start()
    assert ready.get(timeout=30) == "holding"
    assert _other_process_gets_a_turn(db, timeout_s=0.3) == "database is locked"
    os.kill(proc.pid, signal.SIGKILL)
    proc.join(30)
    assert _other_process_gets_a_turn(db) == "got it"
    with Store.open(db) as store:
        store.set_meta("after", "yes")
        assert store.get_meta("dead") is None and store.get_meta("after") == "yes"


def test_the_lock_file_has_the_session_files_permissions(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    Store.open(db, create=True).close()
    lock_path(db).unlink()
    db.chmod(0o660)
    Store.open(db).close()
    assert stat.S_IMODE(lock_path(db).stat().st_mode) == 0o660


def test_a_reader_never_makes_the_lock_file(db: Path) -> None:
    lock_path(db).unlink()
    with Store.open(db, read_only=True) as store:
        assert store.judgments() == []
    assert not lock_path(db).exists()


def test_without_a_writable_lock_file_writes_still_land(db: Path, tmp_path: Path) -> None:
    """A lock file this user cannot open for writing: the writer goes straight to SQLite's lock."""
    lock_path(db).unlink()
    lock_path(db).mkdir()  # cannot be opened as a file, not even by root
    with Store.open(db) as store:
        store.set_meta("still", "saved")
        assert store.get_meta("still") == "saved"


def _hold_on_request(db: str, orders: mp.Queue, replies: mp.Queue) -> None:
    """Take a turn on each "hold" and keep it until "release"; stop on "stop"."""
    queue = WriterQueue(Path(db))
    try:
        while orders.get(timeout=60) == "hold":
            with queue.turn(30):
                replies.put("holding")
                assert orders.get(timeout=60) == "release"
    finally:
        queue.close()


def _helper_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "annotate-writer-queue"]


def test_a_writer_waiting_for_its_turn_sleeps_and_reuses_one_helper_thread(db: Path) -> None:
    """Three waits behind another process's turn: each sleeps in the kernel (the process spends next
    to no CPU over a 1.5 s wait, where a poll every fraction of a millisecond would spend tens of
    milliseconds, a spin all of it), and all three are made by the same helper thread, not one
    started per wait."""
    import resource

    orders: mp.Queue = CONTEXT.Queue()
    replies: mp.Queue = CONTEXT.Queue()
    holder = CONTEXT.Process(target=_hold_on_request, args=(str(db), orders, replies))
    holder.start()
    queue = WriterQueue(db)
    seen: list[threading.Thread] = []
    cpu_ms: list[float] = []
    try:
        for round_ in range(3):
            orders.put("hold")
            assert replies.get(timeout=30) == "holding"
            asked = _tickets(db) + 1
            got: list[str] = []

            def take(got: list[str] = got) -> None:
                with queue.turn(30):
                    got.append("turn")

            waiting = threading.Thread(target=take)
            waiting.start()
            _wait_tickets(db, asked)
            time.sleep(0.05)
            seen.extend(_helper_threads())
            if round_ == 0:
                before = resource.getrusage(resource.RUSAGE_SELF)
                time.sleep(1.5)
                after = resource.getrusage(resource.RUSAGE_SELF)
                cpu_ms.append(1000 * (after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime))
            assert got == []  # still waiting
            orders.put("release")
            waiting.join(30)
            assert got == ["turn"]
    finally:
        orders.put("stop")
        holder.join(30)
        queue.close()
    assert cpu_ms[0] < 30, f"waiting 1.5 s for a turn took {cpu_ms[0]:.0f} ms of CPU"
    assert len(seen) == 3 and len(set(map(id, seen))) == 1, seen
