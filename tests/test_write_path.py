"""What a submit asks of SQLite: little, when many annotators write at once (docs/scaling.md).

Each statement is counted with SQLite's trace callback on a real session file.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import make_item

from annotate.model import Assignment, Event, Judgment, Timings
from annotate.store import Store, StoreError, utc_now
from annotate.store.writers import lock_path


def _session(path: Path, n: int = 3) -> list[Assignment]:
    with Store.open(path, create=True) as store:
        store.add_items([make_item(f"i{k}") for k in range(n)])
        return store.add_assignments([Assignment(0, "ann", f"i{k}", k, False) for k in range(n)])


def _submit(store: Store, assignment: Assignment) -> None:
    events = [Event(kind, k, utc_now(), {"k": k}, assignment.id, "ann")
              for k, kind in enumerate(("item.shown", "key.label", "key.submit"))]
    store.submit(Judgment(assignment.id, "A", Timings(utc_now(), 1, 2, 2)), events)


def _traced(store: Store) -> list[str]:
    statements: list[str] = []
    store.db.conn.set_trace_callback(statements.append)
    return statements


def test_a_writer_in_its_turn_takes_the_lock_without_switching_the_busy_timeout(tmp_path: Path) -> None:
    """In its turn no other annotate writer can hold SQLite's lock: BEGIN IMMEDIATE straight away."""
    assignments = _session(tmp_path / "s.db")
    with Store.open(tmp_path / "s.db") as store:
        statements = _traced(store)
        _submit(store, assignments[0])
        assert [j.label for j in store.judgments("ann")] == ["A"]
    assert "BEGIN IMMEDIATE" in statements and "COMMIT" in statements
    assert not [s for s in statements if "busy_timeout" in s]


def test_a_writer_without_a_turn_still_polls_for_the_lock(tmp_path: Path) -> None:
    """No lock file to queue on (it cannot be opened for writing): the short polls, as before."""
    assignments = _session(tmp_path / "s.db")
    lock_path(tmp_path / "s.db").unlink()
    lock_path(tmp_path / "s.db").mkdir()
    with Store.open(tmp_path / "s.db") as store:
        statements = _traced(store)
        _submit(store, assignments[0])
        assert [j.label for j in store.judgments("ann")] == ["A"]
    assert "PRAGMA busy_timeout = 0" in statements


def test_a_submits_events_annotator_is_read_once_per_store(tmp_path: Path) -> None:
    assignments = _session(tmp_path / "s.db")
    with Store.open(tmp_path / "s.db") as store:
        statements = _traced(store)
        for assignment in assignments:
            _submit(store, assignment)
        assert len(store.events()) == 9
        assert {e.annotator for e in store.events()} == {"ann"}
    assert len([s for s in statements if "FROM annotators WHERE name" in s]) == 1


def test_an_event_of_an_unknown_annotator_writes_nothing(tmp_path: Path) -> None:
    assignments = _session(tmp_path / "s.db")
    with Store.open(tmp_path / "s.db") as store:
        stray = Event("key.submit", 1, utc_now(), {}, assignments[0].id, "nobody")
        with pytest.raises(StoreError, match="unknown annotator 'nobody'"):
            store.submit(Judgment(assignments[0].id, "A", Timings(utc_now(), 1, 2, 2)), [stray])
        assert store.judgments() == [] and store.events() == []
        _submit(store, assignments[0])
        assert len(store.judgments()) == 1 and len(store.events()) == 3


def test_new_uids_sort_in_the_order_they_were_made() -> None:
    """So the unique indexes on uid grow at their end instead of on a random page (32 hex digits)."""
    import time

    from annotate.store.records import new_uid

    made = []
    for _ in range(5):
        made.append(new_uid())
        time.sleep(0.002)
    assert made == sorted(made)
    assert all(len(uid) == 32 and int(uid, 16) >= 0 for uid in made)
    assert len({new_uid() for _ in range(10_000)}) == 10_000
