"""Default queues: before a session has a plan, every annotator gets all items in an order and with
sides drawn from a seed derived from the session seed and the annotator's name.

`default_queue` is the pure part (ids + seed + name -> assignments); `ensure_queue` reads and
writes the store around it.
"""

from __future__ import annotations

import random
import zlib
from collections.abc import Sequence

from annotate.model import Assignment
from annotate.plan.orders import default_orders
from annotate.spec import SessionSpec
from annotate.store import Store

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


DEFAULT_QUEUE_META = "default_queue_upto:"
"""Meta key prefix: `default_queue_upto:NAME` holds the newest item rowid NAME's default queue covers."""


def ensure_default_queue(store: Store, spec: SessionSpec, annotator: str) -> None:
    """Create the annotator's default queue, or extend it with items added since, when the session
    has no plan. Cheap when nothing is new (two meta reads and an index lookup), so starting the app
    costs the same on a large session.

    Without a plan, items added to the session since the queue was made are appended at the end;
    nothing already assigned moves. With a plan nothing is made (someone the plan does not name has
    no queue). Adjudication assignments (`annotate adjudicate`) are never part of the queue.

    Read and write happen in one write transaction, so the same annotator starting twice at the
    same moment (two terminals) gets one queue, not a clash over its positions.
    """
    if store.get_meta(PLAN_META_KEY):
        return
    newest = store.newest_item_rowid()
    key = DEFAULT_QUEUE_META + annotator
    covered = store.get_meta(key)
    if covered is not None and int(covered) >= newest:
        return
    # Drawn before the write lock, which one writer holds at a time (every other annotator starting or
    # submitting waits meanwhile); drawn again under it only when the queue or the items changed since.
    existing = store.assignments(annotator)
    items = store.count_items(), store.newest_item_rowid()
    drawn = _new_part(spec, annotator, existing, store.item_ids())
    if not store.read_only:
        store.prepare_assignment_writes()
    with store.transaction():
        if store.get_meta(PLAN_META_KEY):
            return
        now = store.assignments(annotator)  # under the write lock
        if now != existing or (store.count_items(), store.newest_item_rowid()) != items:
            drawn = _new_part(spec, annotator, now, store.item_ids())
        if drawn:
            store.insert_assignments(drawn)
        store.set_meta(key, str(newest))


def _new_part(spec: SessionSpec, annotator: str, existing: Sequence[Assignment], item_ids: Sequence[str],
              ) -> list[Assignment]:
    """The assignments a default queue of `existing` ones lacks for `item_ids`, after the last of them."""
    assigned = {a.item_id for a in existing}
    new_ids = [item_id for item_id in item_ids if item_id not in assigned]
    if not new_ids:
        return []
    start = max((a.position for a in existing), default=-1) + 1
    return default_queue(new_ids, spec.seed, annotator, start=start, pairwise=spec.schema.sided,
                         ranked=spec.schema.slots if spec.schema.ranked is not None else ())


def ensure_queue(store: Store, spec: SessionSpec, annotator: str) -> list[Assignment]:
    """The annotator's queue as a list (made or extended first, as `ensure_default_queue` says).

    With a plan, the planned queue is returned as it is (empty for someone the plan does not name).
    The app reads queues a slice at a time instead (`annotate.store.queues`).
    """
    ensure_default_queue(store, spec, annotator)
    return [a for a in store.assignments(annotator) if a.purpose != "adjudication"]
