"""Display orders of ranking items (annotate.plan.orders): each response at each position about equally
often per item (across its annotators) and per annotator (across their queue), seeded, reproducible,
in the plan hash; default queues before a plan balanced per annotator; repeats reversed."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from annotate.design import RANK_SLOTS
from annotate.model import Assignment, Item, Message, Response
from annotate.plan import Rates, apply_plan, default_queue, ensure_queue, make_plan, plan_digest, verify_plan
from annotate.plan.orders import position_counts, reversed_order, unbalanced_orders, williams_rows
from annotate.session import create_session, open_store
from tests.test_plan import by_annotator, sessions, stored


def test_williams_rows_are_a_latin_square_balanced_for_neighbours_at_even_k() -> None:
    for k in range(2, 7):
        rows = williams_rows(k)
        assert all(sorted(r) == list(range(k)) for r in rows)
        assert all(sorted(col) == list(range(k)) for col in zip(*rows, strict=True))
        if k % 2 == 0:  # every ordered pair of neighbours once (Williams 1949)
            pairs = Counter((r[p], r[p + 1]) for r in rows for p in range(k - 1))
            assert len(pairs) == k * (k - 1) and set(pairs.values()) == {1}


def check_orders(assignments: tuple[Assignment, ...], slots: tuple[str, ...]) -> None:
    k = len(slots)
    for a in assignments:
        assert sorted(a.order) == list(slots) and not a.swapped
    per_annotator, per_item = position_counts(assignments)
    for counts, owners in ((per_annotator, {a.annotator for a in assignments if a.purpose != "repeat"}),
                           (per_item, {a.item_id for a in assignments if a.purpose != "repeat"})):
        for owner in owners:
            for position in range(1, k + 1):
                seen = [counts.get((owner, s, position), 0) for s in slots]
                assert max(seen) - min(seen) <= 1, (owner, position, seen)
    for queue in by_annotator(assignments).values():
        for repeat in (a for a in queue if a.purpose == "repeat"):
            (first,) = [a for a in queue if a.item_id == repeat.item_id and a.purpose == "main"]
            assert repeat.order == reversed_order(first.order)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sessions(), st.integers(3, 6))
def test_fresh_ranking_plan_balances_positions(session: dict, k: int) -> None:
    slots = RANK_SLOTS[:k]
    plan = make_plan(**session, ranked=slots)
    check_orders(plan.assignments, slots)
    assert not [n for n in plan.notes if "balanced" in n], plan.notes
    assert plan.inputs["ranking_k"] == k and plan.inputs["pairwise"] is False
    # a pure function of its inputs, and the orders are in the hash
    assert make_plan(**session, ranked=slots).assignments == plan.assignments
    if plan.assignments:
        changed = list(plan.assignments)
        changed[0] = replace(changed[0], order=tuple(reversed(changed[0].order)))
        assert plan_digest(plan.inputs, changed) != plan.hash


@pytest.mark.parametrize("seed", range(12))
def test_large_ranking_plans_balance_positions(seed: int) -> None:
    rnd = random.Random(seed)
    k = rnd.randint(3, 6)
    people = rnd.randint(k - 1, 8)
    items = [f"i{n:03d}" for n in range(rnd.randint(100, 200))]
    overlap = rnd.randint(2, min(people, 6))
    plan = make_plan(items, [], [], [f"p{n}" for n in range(people)], overlap, Rates(repeat=0.1), seed,
                     ranked=RANK_SLOTS[:k])
    check_orders(plan.assignments, RANK_SLOTS[:k])
    # with overlap k, every item shows each response at each position exactly once
    if overlap == k:
        _, per_item = position_counts(plan.assignments)
        assert set(per_item.values()) == {1}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sessions(), st.integers(1, 30), st.integers(3, 6))
def test_extending_a_ranking_plan_keeps_orders_and_stays_balanced(session: dict, extra: int, k: int) -> None:
    slots = RANK_SLOTS[:k]
    first = make_plan(**session, ranked=slots)
    existing = stored(first)
    more = dict(session, item_ids=[*session["item_ids"], *(f"new-{n:02d}" for n in range(extra))])
    second = make_plan(**more, existing=existing, ranked=slots)
    assert set(existing) <= set(second.assignments)
    off = unbalanced_orders(second.assignments, k)
    assert not off or any("display orders could not be balanced" in n for n in second.notes)
    new_items = {a.item_id for a in second.new} - set(session["item_ids"])
    _, per_item = position_counts(second.assignments)
    for item in new_items:
        for position in range(1, k + 1):
            seen = [per_item.get((item, s, position), 0) for s in slots]
            assert max(seen) - min(seen) <= 1
    again = make_plan(**more, existing=[*existing, *stored(second, start_id=len(existing) + 1)], ranked=slots)
    assert again.new == () and again.hash == second.hash


@pytest.mark.parametrize("n", [1, 5, 12, 13, 40])
def test_default_queue_balances_positions_per_annotator(n: int) -> None:
    slots = RANK_SLOTS[:4]
    queue = default_queue([f"x{i}" for i in range(n)], 3, "alice", ranked=slots)
    assert [sorted(a.order) for a in queue] == [list(slots)] * n
    per_annotator, _ = position_counts(queue)
    for position in range(1, 5):
        seen = [per_annotator.get(("alice", s, position), 0) for s in slots]
        assert max(seen) - min(seen) <= 1
    assert queue == default_queue([f"x{i}" for i in range(n)], 3, "alice", ranked=slots)  # seeded
    assert default_queue(["x0", "x1"], 3, "alice") == default_queue(["x0", "x1"], 3, "alice", ranked=())


def ranking_item(i: int, k: int = 4) -> Item:
    return Item(f"r{i:02d}", "ranking", (Message("user", f"q{i}"),),
                tuple(Response(s, f"{s}{i}", f"m{s}") for s in RANK_SLOTS[:k]))


def test_plan_stored_with_orders_and_verified(tmp_path: Path) -> None:
    spec = create_session("r", "ranking", seed=5, folder=tmp_path / "sessions")
    with open_store(spec) as store:
        store.add_items([ranking_item(i) for i in range(24)])
        applied = apply_plan(store, spec, ["ann", "bob", "cy", "dee"], 4, Rates(), 9)
        assert verify_plan(store) is True
        queue = ensure_queue(store, spec, "ann")
        assert all(sorted(a.order) == ["A", "B", "C", "D"] for a in queue)
        assert [a.order for a in store.assignments()] == [a.order for a in sorted(
            applied.added, key=lambda a: (a.annotator, a.position))]
        # each item: its 4 annotators see every response at every position exactly once
        _, per_item = position_counts(store.assignments())
        assert set(per_item.values()) == {1}
        # a changed order is a changed plan
        store.db.execute("UPDATE assignments SET display_order = 'DCBA' WHERE id = 1")
        assert verify_plan(store) is False


def test_default_queue_in_the_store_has_orders(tmp_path: Path) -> None:
    spec = create_session("r", "ranking", seed=5, folder=tmp_path / "sessions")
    with open_store(spec) as store:
        store.add_items([ranking_item(i) for i in range(9)])
        queue = ensure_queue(store, spec, "ann")
        assert len(queue) == 9 and all(len(a.order) == 4 for a in queue)
        assert queue == store.assignments("ann")
