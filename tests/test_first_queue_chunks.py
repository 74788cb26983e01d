"""A default queue written a chunk a transaction (`DefaultQueueWriter`): the same queue as the single
transaction wrote, kept here as the oracle (`single_transaction_queue`, the code of e28079b), through
kills between chunks, two starts of one annotator at once, another annotator's submits, items added
and a plan written between chunks; the covered meta only once complete; the status tallies right
after every chunk. Real session files, real processes."""

from __future__ import annotations

import multiprocessing as mp
import os
import random
import signal
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from conftest import make_item

from annotate.design import RANK_SLOTS
from annotate.model import Assignment, Item, Judgment, Message, Response, Timings
from annotate.plan import PLAN_META_KEY, Rates, apply_plan, ensure_queue
from annotate.plan.default import (
    DEFAULT_QUEUE_META,
    DRAW_META,
    DefaultQueueWriter,
    annotator_seed,
    draw_default_queue,
)
from annotate.plan.orders import default_orders
from annotate.session import create_session, load_session
from annotate.spec import SessionSpec
from annotate.store import Store, utc_now
from annotate.store.tallies import recount, session_tally


def old_default_queue(
    item_ids: Sequence[str], session_seed: int, annotator: str, *, start: int = 0,
    pairwise: bool = True, ranked: Sequence[str] = (),
) -> list[Assignment]:
    """`default_queue` of e28079b, verbatim (every Assignment made at once)."""
    seed = annotator_seed(session_seed, annotator)
    rng = random.Random(seed * 1_000_003 + start)
    order = list(item_ids)
    rng.shuffle(order)
    n = len(order)
    swapped_count = n // 2 + (1 if n % 2 and rng.random() < 0.5 else 0)
    flags = [True] * swapped_count + [False] * (n - swapped_count)
    rng.shuffle(flags)
    orders: list[tuple[str, ...]] = [()] * n
    if ranked:
        orders = default_orders(n, ranked, rng)
    if not pairwise or ranked:
        flags = [False] * n
    return [
        Assignment(id=0, annotator=annotator, item_id=item_id, position=start + i, swapped=flag, seed=seed,
                   order=shown)
        for i, (item_id, flag, shown) in enumerate(zip(order, flags, orders, strict=True))
    ]


def old_new_part(spec: SessionSpec, annotator: str, existing: Sequence[Assignment], item_ids: Sequence[str],
                 ) -> list[Assignment]:
    """`_new_part` of e28079b, verbatim but for calling `old_default_queue`."""
    assigned = {a.item_id for a in existing}
    new_ids = [item_id for item_id in item_ids if item_id not in assigned]
    if not new_ids:
        return []
    start = max((a.position for a in existing), default=-1) + 1
    return old_default_queue(new_ids, spec.seed, annotator, start=start, pairwise=spec.schema.sided,
                             ranked=spec.schema.slots if spec.schema.ranked is not None else ())


def single_transaction_queue(store: Store, spec: SessionSpec, annotator: str) -> None:
    """The oracle: `ensure_default_queue` before chunks (e28079b), the whole queue in one transaction."""
    if store.get_meta(PLAN_META_KEY):
        return
    newest = store.newest_item_rowid()
    key = DEFAULT_QUEUE_META + annotator
    covered = store.get_meta(key)
    if covered is not None and int(covered) >= newest:
        return
    existing = store.assignments(annotator)
    items = store.count_items(), store.newest_item_rowid()
    drawn = old_new_part(spec, annotator, existing, store.item_ids())
    with store.transaction():
        if store.get_meta(PLAN_META_KEY):
            return
        now = store.assignments(annotator)
        if now != existing or (store.count_items(), store.newest_item_rowid()) != items:
            drawn = old_new_part(spec, annotator, now, store.item_ids())
        if drawn:
            store.insert_assignments(drawn)
        store.set_meta(key, str(newest))


def content(assignments: list[Assignment]) -> list[tuple[Any, ...]]:
    """What a queue holds but the ids the store gives."""
    return [(a.annotator, a.item_id, a.position, a.swapped, a.condition, a.purpose, a.suggestion_id, a.seed,
             a.order) for a in assignments]


def items_of(kind: str, start: int, n: int) -> list[Item]:
    if kind == "ranking":
        return [Item(f"r{i:04d}", "ranking", (Message("user", f"q{i}"),),
                     tuple(Response(s, f"{s}{i}", f"m{s}") for s in RANK_SLOTS[:4])) for i in range(start, start + n)]
    if kind == "single":
        return [Item(f"s{i:04d}", "single", (Message("user", f"q{i}"),), (Response("A", f"a{i}", "m1"),))
                for i in range(start, start + n)]
    return [make_item(f"i{i:04d}") for i in range(start, start + n)]


def session(tmp_path: Path, name: str, kind: str = "pairwise", n: int = 0, seed: int = 4) -> SessionSpec:
    spec = create_session(name, kind, seed=seed, folder=tmp_path / name)
    if n:
        with Store.open(spec.db) as store:
            store.add_items(items_of(kind, 0, n))
    return spec


def oracle(tmp_path: Path, kind: str, steps: list[tuple[str, int]], name: str = "ann",
           seed: int = 4) -> tuple[list[tuple[Any, ...]], str | None]:
    """The queue (and the covered meta) the single transaction makes after `steps`: ("add", n) adds n
    items, ("start", 0) starts `name`."""
    spec = session(tmp_path, "oracle", kind, seed=seed)
    added = 0
    with Store.open(spec.db) as store:
        for step, n in steps:
            if step == "add":
                store.add_items(items_of(kind, added, n))
                added += n
            else:
                single_transaction_queue(store, spec, name)
        return content(store.assignments(name)), store.get_meta(DEFAULT_QUEUE_META + name)


def check_whole(store: Store, name: str, expected: tuple[list[tuple[Any, ...]], str | None]) -> None:
    """The queue and the covered meta are the oracle's; no unfinished draw is left; tallies right."""
    queue = store.assignments(name)
    assert content(queue) == expected[0]
    assert [a.position for a in queue] == list(range(len(queue)))
    assert len({a.item_id for a in queue}) == len(queue) == store.count_items()
    assert store.get_meta(DEFAULT_QUEUE_META + name) == expected[1]
    assert store.get_meta(DRAW_META + name) is None
    assert session_tally(store) == recount(store)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 10, 11, 257])
def test_the_lazy_draw_is_the_old_draw(n: int) -> None:
    ids = [f"x{i}" for i in range(n)]
    for seed, start, pairwise, ranked in [(0, 0, True, ()), (7, 13, True, ()), (3, 0, False, ()),
                                          (5, 4, True, RANK_SLOTS[:4]), (9, 0, True, RANK_SLOTS[:3])]:
        old = old_default_queue(ids, seed, "ann", start=start, pairwise=pairwise, ranked=ranked)
        drawn = draw_default_queue(ids, seed, "ann", start=start, pairwise=pairwise, ranked=ranked)
        assert list(drawn) == old and len(drawn) == n
        assert drawn[2:9] == old[2:9] and drawn[5:] == old[5:] and drawn[::3] == old[::3]
        if n:
            assert drawn[-1] == old[-1] and drawn[0] == old[0]
        with pytest.raises(IndexError):
            drawn[n]


@pytest.mark.parametrize(("kind", "n", "chunk_rows"), [
    ("pairwise", 0, 3), ("pairwise", 1, 3), ("pairwise", 7, 7), ("pairwise", 8, 7), ("pairwise", 101, 10),
    ("pairwise", 2500, 1000), ("single", 37, 5), ("ranking", 41, 6),
])
def test_uninterrupted_chunks_write_the_single_transactions_queue(tmp_path: Path, kind: str, n: int,
                                                                  chunk_rows: int) -> None:
    spec = session(tmp_path, "s", kind, n)
    with Store.open(spec.db) as store:
        writer = DefaultQueueWriter(store, spec, "ann", chunk_rows=chunk_rows)
        while writer.write_chunk():
            assert store.get_meta(DEFAULT_QUEUE_META + "ann") is None  # covered only once complete
        assert writer.chunks == max(1, -(-n // chunk_rows))
        check_whole(store, "ann", oracle(tmp_path, kind, [("add", n), ("start", 0)]))
        assert [a.id for a in store.assignments("ann")] == list(range(1, n + 1))


@pytest.mark.parametrize("kind", ["pairwise", "ranking"])
def test_an_extension_is_chunked_the_same(tmp_path: Path, kind: str) -> None:
    """Items added after a queue was made are appended in chunks, the same draw as in one transaction."""
    spec = session(tmp_path, "s", kind, 30)
    with Store.open(spec.db) as store:
        ensure_queue(store, spec, "ann")
        store.add_items(items_of(kind, 30, 23))
        from annotate.plan import ensure_default_queue

        ensure_default_queue(store, spec, "ann", chunk_rows=4)
        check_whole(store, "ann", oracle(tmp_path, kind, [("add", 30), ("start", 0), ("add", 23), ("start", 0)]))


def _write_then_die(spec_path: str, name: str, chunks: int, chunk_rows: int) -> None:
    """A start killed (SIGKILL: no cleanup, no rollback by Python) after `chunks` chunks."""
    spec = load_session(spec_path)
    store = Store.open(spec.db)
    writer = DefaultQueueWriter(store, spec, name, chunk_rows=chunk_rows)
    for _ in range(chunks):
        writer.write_chunk()
    os.kill(os.getpid(), signal.SIGKILL)


def _killed_after(spec: SessionSpec, chunks: int, chunk_rows: int, name: str = "ann") -> None:
    proc = mp.get_context("fork").Process(target=_write_then_die, args=(str(spec.path), name, chunks, chunk_rows))
    proc.start()
    proc.join(60)
    assert proc.exitcode == -signal.SIGKILL


@pytest.mark.parametrize("chunks", [1, 2, 5])
def test_a_start_killed_between_chunks_is_completed_by_the_next_start(tmp_path: Path, chunks: int) -> None:
    spec = session(tmp_path, "s", "pairwise", 60)
    _killed_after(spec, chunks, chunk_rows=10)
    with Store.open(spec.db) as store:
        left = store.assignments("ann")
        assert [a.position for a in left] == list(range(10 * chunks))
        assert store.get_meta(DEFAULT_QUEUE_META + "ann") is None
        assert store.get_meta(DRAW_META + "ann") == "0 60"
        assert [t.assigned for t in session_tally(store).annotators] == [10 * chunks]
        assert session_tally(store) == recount(store)
        queue = ensure_queue(store, spec, "ann")  # the next start
        check_whole(store, "ann", oracle(tmp_path, "pairwise", [("add", 60), ("start", 0)]))
        assert queue[: 10 * chunks] == left


def test_a_start_killed_twice_then_items_added_still_gets_every_item_once(tmp_path: Path) -> None:
    """Killed, restarted and killed again, then items added before the last start: the rest of the first
    draw, then the new items after it (as had the items come after a complete queue)."""
    spec = session(tmp_path, "s", "pairwise", 50)
    _killed_after(spec, 1, chunk_rows=7)
    _killed_after(spec, 2, chunk_rows=9)
    with Store.open(spec.db) as store:
        assert len(store.assignments("ann")) == 7 + 18
        store.add_items(items_of("pairwise", 50, 12))
        ensure_queue(store, spec, "ann")
        check_whole(store, "ann", oracle(tmp_path, "pairwise", [("add", 50), ("start", 0), ("add", 12), ("start", 0)]))


def test_a_queue_changed_by_hand_after_a_kill_is_extended_by_the_old_rule(tmp_path: Path) -> None:
    """When what is stored is not the start of the recorded draw (here its last row deleted), the next start
    appends the items not yet assigned after the last position: every item once, positions contiguous."""
    spec = session(tmp_path, "s", "pairwise", 40)
    _killed_after(spec, 2, chunk_rows=10)
    with Store.open(spec.db) as store:
        [last] = [a for a in store.assignments("ann") if a.position == 19]
        store.delete_assignments([last.id])
        store.add_assignments([Assignment(0, "ann", last.item_id, 19, not last.swapped)])
        queue = ensure_queue(store, spec, "ann")
        assert [a.position for a in queue] == list(range(40))
        assert sorted(a.item_id for a in queue) == sorted(store.item_ids())
        assert store.get_meta(DRAW_META + "ann") is None
        assert store.get_meta(DEFAULT_QUEUE_META + "ann") == "40"


def test_the_first_plan_after_a_kill_between_chunks_leaves_no_unfinished_draw(tmp_path: Path) -> None:
    spec = session(tmp_path, "s", "pairwise", 30)
    _killed_after(spec, 1, chunk_rows=10)
    _killed_after(spec, 1, chunk_rows=10, name="bob")
    with Store.open(spec.db) as store:
        store.set_meta("defaultXqueueXdraw:x", "not a draw record")  # the "_" of the prefix is no wildcard
        assert store.get_meta(DRAW_META + "ann") == store.get_meta(DRAW_META + "bob") == "0 30"
        apply_plan(store, spec, ["ann", "carol"], 2, Rates(), 3, dry_run=True)
        assert store.get_meta(DRAW_META + "ann") == "0 30"  # a dry run writes nothing
        apply_plan(store, spec, ["ann", "carol"], 2, Rates(), 3)
        assert store.get_meta(DRAW_META + "ann") is store.get_meta(DRAW_META + "bob") is None
        assert store.get_meta("defaultXqueueXdraw:x") == "not a draw record"
        assert store.assignments("bob") == [] and len(store.assignments("ann")) == 30


def _start_at_once(spec_path: str, name: str, chunk_rows: int, barrier: Any, results: Any) -> None:
    try:
        spec = load_session(spec_path)
        with Store.open(spec.db) as store:
            from annotate.plan import ensure_default_queue

            barrier.wait()
            ensure_default_queue(store, spec, name, chunk_rows=chunk_rows)
            results.put(content(store.assignments(name)))
    except Exception as exc:  # reported to the test, which fails on it
        results.put(f"{type(exc).__name__}: {exc}")


@pytest.mark.parametrize("chunk_rows", [1, 7, 50])
def test_one_annotator_starting_twice_at_once_gets_one_queue_the_uninterrupted_one(tmp_path: Path,
                                                                                   chunk_rows: int) -> None:
    spec = session(tmp_path, "s", "pairwise", 300)
    context = mp.get_context("fork")
    barrier, results = context.Barrier(3), context.Queue()
    procs = [context.Process(target=_start_at_once, args=(str(spec.path), "ann", chunk_rows, barrier, results))
             for _ in range(3)]
    for proc in procs:
        proc.start()
    queues = [results.get(timeout=120) for _ in procs]
    for proc in procs:
        proc.join()
    assert all(isinstance(q, list) for q in queues), queues
    expected = oracle(tmp_path, "pairwise", [("add", 300), ("start", 0)])
    assert all(q == expected[0] for q in queues)
    with Store.open(spec.db) as store:
        check_whole(store, "ann", expected)


def test_two_starts_taking_turns_go_on_after_each_others_chunks_without_drawing_again(tmp_path: Path) -> None:
    """Two starts of one annotator whose chunks alternate: each finds the other's chunk of the same draw
    after its own and goes on after it (reading the few rows written since, not the whole queue again)."""
    spec = session(tmp_path, "s", "pairwise", 100)
    with Store.open(spec.db) as one, Store.open(spec.db) as two:
        first, second = (DefaultQueueWriter(store, spec, "ann", chunk_rows=9) for store in (one, two))
        assert first.write_chunk()
        more = [True, True]
        while any(more):
            more = [first.write_chunk() if more[0] else False, second.write_chunk() if more[1] else False]
        assert first.redraws == second.redraws == 0
        assert first.chunks + second.chunks == 12 + 1  # 12 of rows; one finding the queue complete
        check_whole(one, "ann", oracle(tmp_path, "pairwise", [("add", 100), ("start", 0)]))


def _submit_on_signal(spec_path: str, go: Any, done: Any, results: Any) -> None:
    """Another annotator: submits one judgment each time `go` is set, then sets `done`."""
    spec = load_session(spec_path)
    with Store.open(spec.db) as store:
        queue = ensure_queue(store, spec, "bob")
        for assignment in queue[:3]:
            if not go.wait(60):
                break
            go.clear()
            store.submit(Judgment(assignment.id, "A", Timings(utc_now(), 1, 2, 2)), [])
            done.set()
    results.put("ok")


def test_another_annotators_submits_land_between_chunks(tmp_path: Path) -> None:
    """Each submit is asked for and lands while the newcomer's queue is half written (with one transaction
    it would wait for the whole queue); the queue is still the uninterrupted one."""
    spec = session(tmp_path, "s", "pairwise", 40)
    context = mp.get_context("fork")
    go, done, results = context.Event(), context.Event(), context.Queue()
    proc = context.Process(target=_submit_on_signal, args=(str(spec.path), go, done, results))
    with Store.open(spec.db) as store:
        ensure_queue(store, spec, "bob")
        proc.start()
        writer = DefaultQueueWriter(store, spec, "ann", chunk_rows=10)
        for k in range(3):
            assert writer.write_chunk()
            done.clear()
            go.set()
            assert done.wait(30), "the other annotator's submit did not land between two chunks"
            assert len(store.judgments("bob")) == k + 1
            assert len(store.assignments("ann")) == 10 * (k + 1)
        assert not writer.write_chunk()
        assert results.get(timeout=30) == "ok"
        proc.join()
        bob = [t for t in session_tally(store).annotators if t.name == "bob"]
        assert [(t.assigned, t.answered) for t in bob] == [(40, 3)]
        check_whole(store, "ann", oracle(tmp_path, "pairwise", [("add", 40), ("start", 0)]))


def test_items_added_between_chunks_come_after_the_drawn_queue(tmp_path: Path) -> None:
    spec = session(tmp_path, "s", "pairwise", 30)
    with Store.open(spec.db) as store, Store.open(spec.db) as other:
        from annotate.plan import ensure_default_queue

        writer = DefaultQueueWriter(store, spec, "ann", chunk_rows=8)
        assert writer.write_chunk()
        other.add_items(items_of("pairwise", 30, 5))
        while writer.write_chunk():
            pass
        assert len(store.assignments("ann")) == 30 and store.get_meta(DEFAULT_QUEUE_META + "ann") == "30"
        ensure_default_queue(store, spec, "ann", chunk_rows=8)  # what the next start does
        check_whole(store, "ann", oracle(tmp_path, "pairwise", [("add", 30), ("start", 0), ("add", 5), ("start", 0)]))
    spec2 = session(tmp_path, "t", "pairwise", 30)
    with Store.open(spec2.db) as store, Store.open(spec2.db) as other:
        writer = DefaultQueueWriter(store, spec2, "ann", chunk_rows=8)
        assert writer.write_chunk()
        other.add_items(items_of("pairwise", 30, 5))
        ensure_default_queue(store, spec2, "ann", chunk_rows=8)  # a start in one call covers both draws
        assert len(store.assignments("ann")) == 35 and store.get_meta(DEFAULT_QUEUE_META + "ann") == "35"


def test_a_plan_written_between_chunks_stops_the_default_queue(tmp_path: Path) -> None:
    spec = session(tmp_path, "s", "pairwise", 30)
    with Store.open(spec.db) as store, Store.open(spec.db) as lead:
        writer = DefaultQueueWriter(store, spec, "ann", chunk_rows=8)
        assert writer.write_chunk()
        assert store.get_meta(DRAW_META + "ann") == "0 30"
        applied = apply_plan(lead, spec, ["bob", "carol"], 2, Rates(), 3)
        assert not writer.write_chunk()
        assert store.assignments("ann") == []  # the plan dropped the untouched default assignments
        assert store.get_meta(DEFAULT_QUEUE_META + "ann") is None
        assert store.get_meta(DRAW_META + "ann") is None
        assert len(store.assignments()) == len(applied.added)
        assert ensure_queue(store, spec, "ann") == []
        assert session_tally(store) == recount(store)


def test_status_tallies_right_after_every_chunk(tmp_path: Path) -> None:
    spec = session(tmp_path, "s", "pairwise", 25)
    with Store.open(spec.db) as store:
        writer = DefaultQueueWriter(store, spec, "ann", chunk_rows=6)
        written = []
        while True:
            more = writer.write_chunk()
            tally = session_tally(store)
            assert tally == recount(store)
            written.append([t.assigned for t in tally.annotators])
            if not more:
                break
        assert written == [[6], [12], [18], [24], [25]]
        assert session_tally(store).overlap == (0, 25)


@pytest.mark.parametrize(("n", "whole", "chunks"), [(40, 40, 1), (40, 39, -(-40 // 7)), (0, 10, 1)])
def test_by_default_a_queue_up_to_the_whole_limit_is_one_transaction(tmp_path: Path, monkeypatch: Any, n: int,
                                                                     whole: int, chunks: int) -> None:
    """Chunks cost the newcomer more in all, so only a queue past `WHOLE_QUEUE_ROWS` is chunked (by
    `CHUNK_ROWS`); below it the queue is the single transaction's, written in one."""
    import annotate.plan.default as default

    monkeypatch.setattr(default, "WHOLE_QUEUE_ROWS", whole)
    monkeypatch.setattr(default, "CHUNK_ROWS", 7)
    spec = session(tmp_path, "s", "pairwise", n)
    with Store.open(spec.db) as store:
        writer = DefaultQueueWriter(store, spec, "ann")
        while writer.write_chunk():
            pass
        assert writer.chunks == chunks
        check_whole(store, "ann", oracle(tmp_path, "pairwise", [("add", n), ("start", 0)]))
