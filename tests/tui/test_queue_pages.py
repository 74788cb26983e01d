"""The app's queue reads a page at a time and agrees with the whole queue read at once."""

from __future__ import annotations

import random
from pathlib import Path

from annotate.model import Assignment, Judgment, Timings
from annotate.store import Store
from annotate.store.store import utc_now
from annotate.tui.queue import PAGE, Queue, StoreRunner
from tests.tui.conftest import make_session, pairwise_item

T = Timings(utc_now(), 1, 2, 2)


def _session(tmp_path: Path, n: int) -> Store:
    _spec, store = make_session(tmp_path, items=[pairwise_item(i) for i in range(n)])
    rng = random.Random(4)
    positions = sorted(rng.sample(range(n * 3), n))  # gaps between positions, as after a first plan
    store.add_assignments([Assignment(0, "alice", pairwise_item(i).id, p) for i, p in enumerate(positions)])
    store.add_assignments([Assignment(0, "alice", pairwise_item(0).id, n * 3 + 5, purpose="adjudication")])
    return store


def _reference(store: Store) -> tuple[list[Assignment], dict[int, Judgment]]:
    queue = [a for a in store.assignments("alice") if a.purpose != "adjudication"]
    answers = {j.assignment_id: j for j in store.judgments("alice")}
    return queue, answers


def _first_unfinished(queue: list[Assignment], answered: set[int], start: int) -> int | None:
    n = len(queue)
    for offset in range(n):
        index = (start + offset) % n
        if queue[index].id not in answered:
            return index
    return None


def test_pages_agree_with_the_whole_queue(tmp_path: Path) -> None:
    store = _session(tmp_path, 3 * PAGE + 17)
    whole, _ = _reference(store)
    rng = random.Random(7)
    for a in rng.sample(whole, len(whole) // 2):
        store.submit(Judgment(a.id, None if rng.random() < 0.2 else "A", T,
                              skip_reason="unsure" if rng.random() < 0.2 else None))
    whole, answers = _reference(store)
    queue = Queue(store, "alice")
    assert len(queue) == len(whole) == len(queue.assignments)
    assert queue.done == len(answers) and queue.skipped == sum(j.skipped for j in answers.values())
    for index in rng.sample(range(len(whole)), 60):
        assert queue.assignments[index] == whole[index]
        assert queue.index_of(whole[index]) == index
    fresh = Queue(store, "alice")  # nothing loaded yet: the file answers
    for start in [0, PAGE - 1, PAGE, 2 * PAGE + 3, len(whole) - 1, *rng.sample(range(len(whole)), 20)]:
        expected = _first_unfinished(whole, set(answers), start)
        assert queue.first_unfinished(start) == expected
        assert fresh.first_unfinished(start) == expected


def test_answers_of_this_sitting_win_over_the_file(tmp_path: Path) -> None:
    """A submit still queued on the store thread is not in the file yet, but the queue knows it."""
    store = _session(tmp_path, 2 * PAGE)
    whole, _ = _reference(store)
    queue = Queue(store, "alice")
    for a in whole[: PAGE + 3]:  # answered here, never written
        queue.set_answer(Judgment(a.id, "B", T))
    assert queue.done == PAGE + 3 and queue.first_unfinished(0) == PAGE + 3
    assert Queue(store, "alice").first_unfinished(0) == 0
    last = Judgment(whole[-1].id, None, T, skip_reason="expertise")
    queue.set_answer(last)
    assert queue.skipped == 1 and queue.answers.get(whole[-1].id) is last
    queue.drop_answer(last)  # its write failed
    assert queue.skipped == 0 and whole[-1].id not in queue.answers
    assert queue.first_unfinished(len(whole) - 1) == len(whole) - 1


def test_an_adjudication_queue_and_a_changed_assignment(tmp_path: Path) -> None:
    store = _session(tmp_path, 10)
    queue = Queue(store, "alice", adjudication=True)
    assert len(queue) == 1 and queue.assignments[0].purpose == "adjudication"
    plain = Queue(store, "alice")
    changed = plain.assignments[3]
    store.set_assignment_design([(changed.id, "upfront", None)])
    assert plain.index_of(changed) is None  # no longer as it was shown
    assert Queue(store, "alice").index_of(Queue(store, "alice").assignments[3]) == 3


def test_pages_read_on_the_reader_thread(tmp_path: Path) -> None:
    store = _session(tmp_path, 2 * PAGE + 1)
    whole, _ = _reference(store)
    reader = StoreRunner(Store.open(store.path))
    try:
        queue = Queue(store, "alice")
        queue.attach(reader)
        queue.prefetch(PAGE + 10)
        assert [queue.assignments[i] for i in (0, PAGE, 2 * PAGE)] == [whole[0], whole[PAGE], whole[2 * PAGE]]
        assert queue.first_unfinished(5) == 5
    finally:
        reader.close()
        reader.store.close()
