"""Many annotators, one file: nothing lost and no "database is locked" reaching a person.

`bench/stress_concurrent.py` starts 10 annotator processes at the same moment on one session file,
each getting its default queue and submitting 100 judgments (with their events) through the app's
own store thread; it exits 0 only when every row is there, no process saw any error and
`PRAGMA integrity_check` is ok. Here it runs at full size (10 x 100), in a few seconds.
"""

from __future__ import annotations

import multiprocessing as mp
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from conftest import make_item

from annotate.model import Assignment, Judgment, Timings
from annotate.plan import ensure_queue
from annotate.session import create_session, load_session
from annotate.store import Store, utc_now

BENCH = Path(__file__).resolve().parents[1] / "bench" / "stress_concurrent.py"


def test_ten_processes_a_hundred_judgments_each_nothing_lost(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, str(BENCH), "--processes", "10", "--judgments", "100", "--dir", str(tmp_path)],
        capture_output=True, text=True, timeout=300,
    )
    out = result.stdout
    assert result.returncode == 0, out + result.stderr
    assert "judgments stored 1000 of 1000 (every annotator 100-100)" in out
    assert "errors reaching a user: 0" in out
    assert "integrity_check: ok" in out
    assert re.search(r"median [\d.]+ ms, p99 [\d.]+ ms", out)
    assert "locked" not in out + result.stderr


def test_a_writer_holding_the_lock_makes_others_wait_not_fail(tmp_path: Path) -> None:
    """A long write elsewhere (an import, a merge) holds the write lock for a second and a half: a
    submit queued meanwhile waits for it and lands, instead of failing with "database is locked"."""
    path = tmp_path / "s.db"
    with Store.open(path, create=True) as store:
        store.add_items([make_item("i1"), make_item("i2")])
        [a1, a2] = store.add_assignments([Assignment(0, "ann", "i1", 0, False), Assignment(0, "ann", "i2", 1, True)])
    holder = Store.open(path)
    annotator = Store.open(path)
    held = threading.Event()

    def hold() -> None:
        with holder.transaction() as db:
            db.execute("INSERT INTO meta (key, value) VALUES ('busy', 'yes')")
            held.set()
            time.sleep(1.5)

    thread = threading.Thread(target=hold)
    thread.start()
    assert held.wait(5)
    began = time.monotonic()
    annotator.submit(Judgment(a1.id, "A", Timings(utc_now(), 1, 2, 2)), [])
    waited = time.monotonic() - began
    thread.join()
    annotator.submit(Judgment(a2.id, "B", Timings(utc_now(), 1, 2, 2)), [])
    assert waited > 1.0, "the submit did not wait for the lock (was it really held?)"
    assert [j.label for j in annotator.judgments("ann")] == ["A", "B"]
    assert annotator.get_meta("busy") == "yes"
    holder.close()
    annotator.close()


def _start(spec_path: str, name: str, barrier: mp.Barrier, results: mp.Queue) -> None:
    """What `annotate start SESSION --annotator NAME` does first: open the file, get the queue."""
    try:
        spec = load_session(spec_path)
        with Store.open(spec.db) as store:
            barrier.wait()
            results.put([(a.item_id, a.position) for a in ensure_queue(store, spec, name)])
    except Exception as exc:
        results.put(f"{type(exc).__name__}: {exc}")


def test_one_annotator_starting_in_several_terminals_at_once_gets_one_queue(tmp_path: Path) -> None:
    """Used to fail with "UNIQUE constraint failed: assignments.annotator_id, assignments.position" (a
    traceback at start) when two starts both found no queue and both wrote one."""
    spec = create_session("s", "pairwise", folder=tmp_path / "sessions")
    with Store.open(spec.db) as store:
        store.add_items([make_item(f"i{k:02d}") for k in range(40)])
    context = mp.get_context("fork")
    for name in ("alice", "bob", "carol"):
        barrier, results = context.Barrier(6), context.Queue()
        procs = [context.Process(target=_start, args=(str(spec.path), name, barrier, results)) for _ in range(6)]
        for proc in procs:
            proc.start()
        queues = [results.get(timeout=60) for _ in procs]
        for proc in procs:
            proc.join()
        assert all(isinstance(q, list) for q in queues), queues
        assert all(q == queues[0] for q in queues) and len(queues[0]) == 40
    with Store.open(spec.db) as store:
        assert [len(store.assignments(name)) for name in ("alice", "bob", "carol")] == [40, 40, 40]


def test_a_writer_in_a_long_queue_polls_less_often() -> None:
    """Short waits poll every few milliseconds at most; past LONG_WAIT_S the pause grows with the wait,
    up to LONG_WAIT_POLL_S, so dozens of waiters leave the CPU to the writer holding the lock."""
    from annotate.store.store import LOCK_POLL_S, LONG_WAIT_POLL_S, LONG_WAIT_S, lock_pause

    assert [lock_pause(k, 0.0) for k in range(len(LOCK_POLL_S) + 2)] == [*LOCK_POLL_S, LOCK_POLL_S[-1],
                                                                         LOCK_POLL_S[-1]]
    assert lock_pause(50, LONG_WAIT_S) == pytest.approx(LONG_WAIT_S / 20)
    assert lock_pause(50, 0.3) == pytest.approx(0.015)
    assert lock_pause(500, 20.0) == LONG_WAIT_POLL_S


@pytest.mark.parametrize("meanwhile", ["queue", "items", "both"])
def test_a_queue_drawn_before_the_write_lock_is_drawn_again_when_the_file_changed_meanwhile(
        tmp_path: Path, meanwhile: str) -> None:
    """The default queue is drawn before the write lock is taken (so that others wait less). When another
    start wrote the same annotator's queue, or items were added, between the draw and the lock, it is
    drawn again under the lock: one queue, every item once, the same as had the two come one after the
    other."""
    spec = create_session("s", "pairwise", seed=4, folder=tmp_path / "sessions")
    with Store.open(spec.db) as store:
        store.add_items([make_item(f"i{k:02d}") for k in range(10)])
    racing, other = Store.open(spec.db), Store.open(spec.db)

    def write_meanwhile() -> None:  # runs after the draw, just before the write lock is asked for
        if meanwhile in ("queue", "both"):
            ensure_queue(other, spec, "ann")
        if meanwhile in ("items", "both"):
            other.add_items([make_item(f"j{k:02d}") for k in range(3)])

    racing.prepare_assignment_writes = write_meanwhile  # type: ignore[method-assign]
    queue = ensure_queue(racing, spec, "ann")
    racing.close()
    other.close()
    expected_items = 10 + (3 if meanwhile != "queue" else 0)
    assert len(queue) == expected_items == len({a.item_id for a in queue})
    assert [a.position for a in queue] == list(range(expected_items))
    sequential = create_session("t", "pairwise", seed=4, folder=tmp_path / "sequential")
    with Store.open(sequential.db) as store:
        store.add_items([make_item(f"i{k:02d}") for k in range(10)])
        if meanwhile in ("queue", "both"):
            ensure_queue(store, sequential, "ann")
        if meanwhile in ("items", "both"):
            store.add_items([make_item(f"j{k:02d}") for k in range(3)])
        expected = ensure_queue(store, sequential, "ann")
    assert [(a.item_id, a.position, a.swapped) for a in queue] == [(a.item_id, a.position, a.swapped)
                                                                     for a in expected]
