"""Default queues: before a session has a plan, every annotator gets all items in an order and with
sides drawn from a seed derived from the session seed and the annotator's name.

`default_queue` is the pure part (ids + seed + name -> assignments); `ensure_queue` reads and
writes the store around it.
"""

from __future__ import annotations

import random
import zlib
from array import array
from collections.abc import Sequence
from dataclasses import replace
from typing import overload

from annotate.model import Assignment
from annotate.plan.orders import default_orders
from annotate.spec import SessionSpec
from annotate.store import Store
from annotate.store.item_ids import RowidIds

PLAN_META_KEY = "plan_hash"
"""Meta key holding the hash of the session's plan; none before the first `annotate plan`."""

def annotator_seed(session_seed: int, annotator: str) -> int:
    """A stable 32-bit seed for one annotator in one session.

    CRC-32 over "seed:name", never Python's `hash()`, which is salted per process.
    """
    return zlib.crc32(f"{session_seed}:{annotator}".encode())


def default_queue(
    item_ids: Sequence[str], session_seed: int, annotator: str, *, start: int = 0,
    pairwise: bool = True, ranked: Sequence[str] = (),
) -> list[Assignment]:
    """Assignments for `item_ids` in a seeded random order, at positions `start`, `start + 1`...

    Sides are counterbalanced: exactly half of the assignments are swapped (for an odd count the
    extra one goes either way at random); single-response tasks are never swapped. Ranking items
    (`ranked`: their slots) get display orders instead, the rows of a seeded Latin square each used
    equally often within one (`annotate.plan.orders.default_orders`). `start` also feeds the seed,
    so items appended later are drawn independently of the first batch. The returned assignments
    have `id` 0 (the store gives ids).
    """
    return list(draw_default_queue(item_ids, session_seed, annotator, start=start, pairwise=pairwise,
                                   ranked=ranked))


def draw_default_queue(
    item_ids: Sequence[str], session_seed: int, annotator: str, *, start: int = 0,
    pairwise: bool = True, ranked: Sequence[str] = (),
) -> DrawnQueue:
    """`default_queue` drawn (the same order, sides and display orders) but made into Assignments only
    when read: on a million items making them all costs several seconds, and a queue written a chunk at
    a time needs one chunk's before it writes the first."""
    seed = annotator_seed(session_seed, annotator)
    rng = random.Random(seed * 1_000_003 + start)
    n = len(item_ids)
    # Shuffled as arrays of machine ints: the same swaps as on lists of ids and of bools (a shuffle's
    # swaps depend only on the generator), so the same draw, in about half the time at a million items.
    order = array("i", range(n))
    rng.shuffle(order)
    swapped_count = n // 2 + (1 if n % 2 and rng.random() < 0.5 else 0)
    flags = array("b", bytes([1]) * swapped_count + bytes(n - swapped_count))
    rng.shuffle(flags)
    orders: list[tuple[str, ...]] = [()] * n
    if ranked:
        orders = default_orders(n, ranked, rng)
    if not pairwise or ranked:
        flags = array("b", bytes(n))
    return DrawnQueue(annotator, seed, start, item_ids, order, flags, orders)


class DrawnQueue(Sequence[Assignment]):
    """A drawn default queue: the assignment at index i (position `start + i`) is made when read, from
    the item at index `order[i]` of the ids drawn from (read from the store then, when they are
    `RowidIds`: `annotate.store.item_ids`)."""

    def __init__(self, annotator: str, seed: int, start: int, item_ids: Sequence[str], order: Sequence[int],
                 flags: Sequence[int], orders: list[tuple[str, ...]]) -> None:
        if not len(item_ids) == len(order) == len(flags) == len(orders):
            raise ValueError(f"{len(item_ids)} items, {len(order)} places, {len(flags)} sides, "
                             f"{len(orders)} display orders")
        self.annotator, self.seed, self.start = annotator, seed, start
        self._ids, self._order, self._flags, self._orders = item_ids, order, flags, orders

    def __len__(self) -> int:
        return len(self._order)

    @overload
    def __getitem__(self, index: int) -> Assignment: ...

    @overload
    def __getitem__(self, index: slice) -> list[Assignment]: ...

    def __getitem__(self, index: int | slice) -> Assignment | list[Assignment]:
        if isinstance(index, slice):
            at = range(*index.indices(len(self)))
            return [self._make(i, item_id) for i, item_id in zip(at, self._item_ids(at), strict=True)]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        return self._make(index, self._item_ids([index])[0])

    def _item_ids(self, at: Sequence[int]) -> list[str]:
        places = [self._order[i] for i in at]
        if isinstance(self._ids, RowidIds):
            return self._ids.gather(places)
        return [self._ids[p] for p in places]

    def _make(self, i: int, item_id: str) -> Assignment:
        return Assignment(id=0, annotator=self.annotator, item_id=item_id, position=self.start + i,
                          swapped=bool(self._flags[i]), seed=self.seed, order=self._orders[i])


DEFAULT_QUEUE_META = "default_queue_upto:"
"""Meta key prefix: `default_queue_upto:NAME` holds the newest item rowid NAME's default queue covers."""

DRAW_META = "default_queue_draw:"
"""Meta key prefix: `default_queue_draw:NAME` holds "START UPTO" while NAME's default queue is being written
a chunk at a time (set with the first chunk, removed with the last): the draw began at position START and
drew from the items up to rowid UPTO, so a start after a crash between chunks draws the same queue again
and writes the rest of it."""

CHUNK_ROWS = 300
"""Assignments written per transaction. Under the write lock a row costs some 70-140 us of CPU on a busy
host (load 3-6: its foreign keys and indexes, the open queue's and the tallies' triggers, the commit's pages
of the WAL), more as the file grows; 300 rows hold the lock about 20-45 ms of CPU, and the other annotators'
submits land between chunks (bench/bench_first_queue.py prints the holds and their latency)."""

WHOLE_QUEUE_ROWS = 10_000
"""A queue to write of up to this many rows is written in one transaction, as before chunks: chunks cost the
newcomer more in all (each commit writes again the WAL pages of the tallies and indexes its rows touch,
scattered over the file: 1.7-1.9x the CPU of one transaction at 100k items), which is worth paying only where
one transaction would hold the lock for seconds (at 10k about 0.4-0.8 s, at 100k 8-10 s: bench_first_queue)."""


def ensure_default_queue(store: Store, spec: SessionSpec, annotator: str, *, chunk_rows: int | None = None) -> None:
    """Create the annotator's default queue, or extend it with items added since, when the session
    has no plan. Cheap when nothing is new (two meta reads and an index lookup), so starting the app
    costs the same on a large session.

    Without a plan, items added to the session since the queue was made are appended at the end;
    nothing already assigned moves. With a plan nothing is made (someone the plan does not name has
    no queue). Adjudication assignments (`annotate adjudicate`) are never part of the queue.

    The queue is written `chunk_rows` assignments a transaction, in position order
    (`DefaultQueueWriter`), so the session's write lock is never held for long: a first queue on a
    large session is one row per item. By default (None) a queue of up to `WHOLE_QUEUE_ROWS` rows is
    written in one transaction and a longer one `CHUNK_ROWS` a transaction.
    """
    while True:  # again when items came after the draw (the rest of a draw cut short draws from fewer)
        writer = DefaultQueueWriter(store, spec, annotator, chunk_rows=chunk_rows)
        while writer.write_chunk():
            pass
        if not writer.wrote or writer.stopped:
            return


class DefaultQueueWriter:
    """Writes one annotator's default queue (or the part of it items added since need) a chunk at a
    time, each chunk its own short transaction, so other writers take the lock between chunks.

    The queue is drawn before the write lock (every other writer waits while one holds it). Under each
    chunk's lock the writer checks the file is as it left it: before the first chunk, the queue and the
    items as drawn; before a later one, the queue's last row is the one its previous chunk wrote. When
    not (the same annotator started in another terminal, or wrote meanwhile), it reads the queue again
    under the lock: if what is stored is the start of the same draw (the other start drew the same
    queue), it goes on after it; else it draws again from what is stored (the items not yet in the queue,
    after its last position). Either way every item is in the queue once, at positions 0, 1, ... A plan
    written meanwhile stops it (a plan replaces default queues). The "covered" meta (`DEFAULT_QUEUE_META`)
    is set with the last chunk only; a start after a crash between chunks finds it unset and writes the
    rest of the same draw (`DRAW_META`).
    """

    def __init__(self, store: Store, spec: SessionSpec, annotator: str, *, chunk_rows: int | None = None) -> None:
        if chunk_rows is not None and chunk_rows < 1:
            raise ValueError(f"chunk_rows must be at least 1, not {chunk_rows}")
        self.store, self.spec, self.annotator, self.chunk_rows = store, spec, annotator, chunk_rows
        self.key = DEFAULT_QUEUE_META + annotator
        self.draw_key = DRAW_META + annotator
        self.finished = False
        self.wrote = False
        """Whether this writer had a queue to write (else the queue covered every item already)."""
        self.stopped = False
        """Whether a plan written meanwhile stopped it."""
        self.chunks = 0
        self.redraws = 0
        """How often the queue was drawn again under the lock (the queue or the items had changed in a way
        not explained by another start writing the same draw)."""
        self._drawn: Sequence[Assignment] | None = None
        self._existing: list[Assignment] = []
        self._items: tuple[int, int] = (0, 0)
        self._start = 0
        self._upto = 0
        self._done = 0
        self._tail: tuple[int, int] | None = None

    @property
    def remaining(self) -> int:
        """Assignments of the draw not yet written (0 before the draw and once finished)."""
        if self.finished or self._drawn is None:
            return 0
        return len(self._drawn) - self._done

    def write_chunk(self) -> bool:
        """Write the next chunk in one transaction; whether there is more to write (False once the queue
        is complete, when nothing was to be written, or when a plan stopped it)."""
        if self.finished:
            return False
        store = self.store
        if self._drawn is None and not self._draw():
            self.finished = True
            return False
        self.wrote = True
        if self.chunks == 0 and not store.read_only:
            store.prepare_assignment_writes()
        assert self._drawn is not None
        if self.chunk_rows is None:  # decided once, by the whole queue to write (`WHOLE_QUEUE_ROWS`)
            rest = len(self._drawn) - self._done
            self.chunk_rows = max(rest, 1) if rest <= WHOLE_QUEUE_ROWS else CHUNK_ROWS
        made = self._drawn, self._done, self._drawn[self._done : self._done + self.chunk_rows]  # before the lock
        with store.transaction():
            if store.get_meta(PLAN_META_KEY):
                self._forget_draw()
                self.finished = self.stopped = True
                return False
            if not self._as_left() and not self._caught_up():
                self._redraw_under_lock()
            same = made[0] is self._drawn and made[1] == self._done
            chunk = made[2] if same else self._drawn[self._done : self._done + self.chunk_rows]
            if chunk:
                first_id = store.insert_assignments(chunk)
                self._done += len(chunk)
                self._tail = (chunk[-1].position, first_id + len(chunk) - 1)
            if self._done < len(self._drawn):
                if store.get_meta(self.draw_key) != self._draw_value():
                    store.set_meta(self.draw_key, self._draw_value())
            else:
                self._forget_draw()
                store.set_meta(self.key, str(self._upto))
                self.finished = True
        self.chunks += 1
        return not self.finished

    def _draw(self) -> bool:
        """Draw the queue before the lock; False when the queue already covers every item."""
        store = self.store
        if store.get_meta(PLAN_META_KEY):
            return False
        newest = store.newest_item_rowid()
        covered = store.get_meta(self.key)
        if covered is not None and int(covered) >= newest:
            return False
        self._existing = store.assignments(self.annotator)
        self._items = store.count_items(), newest
        self._redraw(self._existing)
        return True

    def _as_left(self) -> bool:
        """Under the lock: whether the queue (and before the first chunk, the items) are as this writer
        left them, so that what it drew still holds."""
        store = self.store
        if self._tail is None:
            return (store.assignments(self.annotator) == self._existing
                    and (store.count_items(), store.newest_item_rowid()) == self._items)
        return store.queue_tail(self.annotator) == self._tail

    def _caught_up(self) -> bool:
        """Under the lock, when the queue changed: whether the change is another start of this annotator
        writing chunks of the same draw after this writer's (its record in `DRAW_META` is this one's, the
        rows before are as this writer left them, the rows after are the draw's next ones); if so, go on
        after them without drawing again."""
        store = self.store
        recorded = store.get_meta(self.draw_key)
        if self._drawn is None or recorded not in (None, self._draw_value()):
            return False
        mine = self._tail if self._tail is not None else (
            (self._existing[-1].position, self._existing[-1].id) if self._existing else None)
        next_position = self._start + self._done
        if mine is None:
            written = store.queue_from(self.annotator, next_position)
        else:
            rows = store.queue_from(self.annotator, mine[0])
            if mine[0] != next_position - 1 or not rows or (rows[0].position, rows[0].id) != mine:
                return False
            written = rows[1:]
        ahead = len(self._drawn) - self._done
        # With the record: part of the draw is written. Without it: the other start wrote all of it.
        fits = len(written) == ahead if recorded is None else 0 < len(written) < ahead
        if not written or not fits or not all(_same_place(a, b) for a, b in zip(
                written, self._drawn[self._done : self._done + len(written)], strict=True)):
            return False
        self._done += len(written)
        self._tail = (written[-1].position, written[-1].id)
        return True

    def _redraw_under_lock(self) -> None:
        self.redraws += 1
        now = self.store.assignments(self.annotator)
        self._existing = now
        self._items = self.store.count_items(), self.store.newest_item_rowid()
        self._redraw(now)
        self._tail = None if not now else (now[-1].position, now[-1].id)

    def _redraw(self, now: list[Assignment]) -> None:
        """Draw what `now` (the stored queue) lacks: the rest of an unfinished draw recorded in `DRAW_META`
        when `now` ends with its start, else the items not yet in the queue, after its last position."""
        store, spec, annotator = self.store, self.spec, self.annotator
        recorded = store.get_meta(self.draw_key)
        if recorded is not None:
            start, upto = (int(part) for part in recorded.split())
            if start <= len(now) and all(a.position == i for i, a in enumerate(now[:start])):
                ids, _ = store.queue_item_ids(upto)
                drawn = _new_part(spec, annotator, now[:start], ids)
                written = now[start:]
                if len(written) < len(drawn) and all(
                        _same_place(a, b) for a, b in zip(written, drawn[: len(written)], strict=True)):
                    self._drawn, self._start, self._upto, self._done = drawn, start, upto, len(written)
                    return
        ids, upto = store.queue_item_ids()
        self._drawn = _new_part(spec, annotator, now, ids)
        self._start = len(now) if not now else now[-1].position + 1
        self._upto = upto
        self._done = 0

    def _draw_value(self) -> str:
        return f"{self._start} {self._upto}"

    def _forget_draw(self) -> None:
        """Remove the record of an unfinished draw (under the lock), if there is one."""
        if self.store.get_meta(self.draw_key) is not None:
            self.store.db.execute("DELETE FROM meta WHERE key = ?", [self.draw_key])


def forget_unfinished_draws(store: Store) -> None:
    """Remove every record of a default queue cut short between chunks (`DRAW_META`): the first plan
    (`apply_plan`, in its transaction) ends default queues, so none of them will be finished."""
    store.db.execute("DELETE FROM meta WHERE key LIKE ? ESCAPE '!'", [DRAW_META.replace("_", "!_") + "%"])


def _same_place(stored: Assignment, drawn: Assignment) -> bool:
    """Whether a stored assignment is the drawn one (the store gave it an id; the drawn one has 0)."""
    return stored == replace(drawn, id=stored.id)


def _new_part(spec: SessionSpec, annotator: str, existing: Sequence[Assignment], item_ids: Sequence[str],
              ) -> Sequence[Assignment]:
    """The assignments a default queue of `existing` ones lacks for `item_ids`, after the last of them."""
    if existing:
        assigned = {a.item_id for a in existing}
        new_ids: Sequence[str] = [item_id for item_id in item_ids if item_id not in assigned]
    else:
        new_ids = item_ids  # a first queue: every item, read when its chunk is written
    if not new_ids:
        return []
    start = max((a.position for a in existing), default=-1) + 1
    return draw_default_queue(new_ids, spec.seed, annotator, start=start, pairwise=spec.schema.sided,
                              ranked=spec.schema.slots if spec.schema.ranked is not None else ())


def ensure_queue(store: Store, spec: SessionSpec, annotator: str) -> list[Assignment]:
    """The annotator's queue as a list (made or extended first, as `ensure_default_queue` says).

    With a plan, the planned queue is returned as it is (empty for someone the plan does not name).
    The app reads queues a slice at a time instead (`annotate.store.queues`).
    """
    ensure_default_queue(store, spec, annotator)
    return [a for a in store.assignments(annotator) if a.purpose != "adjudication"]
