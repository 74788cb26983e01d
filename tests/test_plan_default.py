"""The default queue: seeded order, counterbalanced sides, stable when items are added."""

from __future__ import annotations

from pathlib import Path

from annotate.model import Item, Message, Response
from annotate.plan import annotator_seed, default_queue, ensure_queue
from annotate.session import create_session, open_store


def _item(i: int) -> Item:
    return Item(
        id=f"q{i:03d}", kind="pairwise", conversation=(Message("user", f"question {i}"),),
        responses=(Response("A", f"a{i}", "m1"), Response("B", f"b{i}", "m2")),
    )


def test_same_inputs_same_queue() -> None:
    ids = [f"q{i}" for i in range(20)]
    assert default_queue(ids, 7, "alice") == default_queue(ids, 7, "alice")
    assert [a.item_id for a in default_queue(ids, 7, "alice")] != [a.item_id for a in default_queue(ids, 7, "bob")]
    assert annotator_seed(7, "alice") == annotator_seed(7, "alice") != annotator_seed(8, "alice")


def test_every_item_once_and_half_swapped() -> None:
    ids = [f"q{i}" for i in range(44)]
    queue = default_queue(ids, 1, "alice")
    assert sorted(a.item_id for a in queue) == sorted(ids)
    assert [a.position for a in queue] == list(range(44))
    assert sum(a.swapped for a in queue) == 22
    odd = default_queue(ids[:7], 1, "alice")
    assert sum(a.swapped for a in odd) in (3, 4)
    assert not any(a.swapped for a in default_queue(ids, 1, "alice", pairwise=False))


def test_ensure_queue_creates_then_appends(tmp_path: Path) -> None:
    spec = create_session("plan", "pairwise", seed=3, folder=tmp_path / "sessions")
    with open_store(spec) as store:
        store.add_items([_item(i) for i in range(10)])
        first = ensure_queue(store, spec, "alice")
        assert len(first) == 10 and all(a.id for a in first)
        assert ensure_queue(store, spec, "alice") == first
        store.add_items([_item(i) for i in range(10, 14)])
        grown = ensure_queue(store, spec, "alice")
        assert grown[:10] == first
        assert sorted(a.item_id for a in grown[10:]) == ["q010", "q011", "q012", "q013"]
        assert [a.position for a in grown] == list(range(14))


def test_queue_is_reproducible_across_stores(tmp_path: Path) -> None:
    queues = []
    for name in ("one", "two"):
        spec = create_session(name, "pairwise", seed=5, folder=tmp_path / name)
        with open_store(spec) as store:
            store.add_items([_item(i) for i in range(12)])
            queues.append([(a.item_id, a.swapped) for a in ensure_queue(store, spec, "bob")])
    assert queues[0] == queues[1]
