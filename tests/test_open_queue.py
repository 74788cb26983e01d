"""The open queue (migration v13) always holds exactly the assignments without a current judgment,
and the queue reads built on it (first unanswered entry, an entry's index, a page) give what a walk
down the whole queue gives, with and without gaps in the positions."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import pytest
from conftest import make_item

from annotate.model import Assignment, Judgment, Timings
from annotate.session import create_session, open_store
from annotate.store import Store
from annotate.store.queues import first_unanswered, queue_index, queue_slice
from annotate.store.schema import MIGRATIONS, SCHEMA_VERSION, _v13_open_queue
from tests.migration_util import drop_item_facts, drop_open_queue
from tests.test_vote_tallies import check_votes, random_writes


def stored_open(db: sqlite3.Connection) -> set[tuple[int, int, int, int]]:
    return set(db.execute('SELECT "annotator_id", "adjudication", "position", "assignment_id" FROM "open_queue"'))


def recount_open(db: sqlite3.Connection) -> set[tuple[int, int, int, int]]:
    return set(db.execute(
        "SELECT a.annotator_id, a.purpose = 'adjudication', a.position, a.id FROM assignments a WHERE NOT EXISTS"
        " (SELECT 1 FROM judgments j WHERE j.assignment_id = a.id AND j.superseded_by IS NULL)"
    ))


def check_open(store: Store) -> None:
    assert stored_open(store.db.conn) == recount_open(store.db.conn)


def check_both(store: Store) -> None:
    check_open(store)
    check_votes(store)


def test_random_writes_through_the_public_api_keep_the_open_queue_exact(tmp_path: Path) -> None:
    for seed in range(3):
        spec = create_session(f"open{seed}", "pairwise", seed=seed, folder=tmp_path / f"s{seed}")
        with open_store(spec) as store:
            random_writes(spec, store, random.Random(100 + seed), tmp_path / f"w{seed}", check=check_both)
            assert stored_open(store.db.conn)  # the writes left some entries open: the check saw rows


def timings() -> Timings:
    return Timings("2026-11-30T10:00:00.000+00:00", 100, 150, 100)


def walk(store: Store, annotator: str, adjudication: bool) -> list[tuple[Assignment, bool]]:
    """The queue in position order, each entry with whether it has a current judgment (no index used)."""
    entries = [a for a in store.assignments(annotator) if (a.purpose == "adjudication") == adjudication]
    entries.sort(key=lambda a: a.position)
    return [(a, store.current_judgment(a.id) is not None) for a in entries]


def build(store: Store, rng: random.Random, *, gaps: bool) -> None:
    store.add_items([make_item(f"i{k}") for k in range(40)])
    plan = [Assignment(0, "alice", f"i{k}", k, bool(k % 2)) for k in range(40)]
    plan += [Assignment(0, "alice", f"i{k}", 40 + k, False, purpose="adjudication") for k in range(5)]
    plan += [Assignment(0, "bob", f"i{k}", 7 + k, k % 3 == 0) for k in range(30)]  # a queue not starting at 0
    stored = store.add_assignments(plan)
    if gaps:  # a plan change took untouched entries out of the middle of both queues
        store.delete_assignments([a.id for a in stored if a.position in (3, 4, 17, 20)])
        stored = store.assignments()
    for a in rng.sample(stored, len(stored) * 2 // 3):
        store.submit(Judgment(a.id, rng.choice(["A", "B", None]), timings(), skip_reason=None))
    for a in rng.sample(store.assignments(), 5):  # revisions keep the entry answered
        if store.current_judgment(a.id) is not None:
            store.submit(Judgment(a.id, "tie", timings()))


@pytest.mark.parametrize("gaps", [False, True], ids=["dense", "gaps"])
def test_queue_reads_equal_a_walk_down_the_queue(store: Store, gaps: bool) -> None:
    build(store, random.Random(7), gaps=gaps)
    check_open(store)
    for annotator in ("alice", "bob"):
        for adjudication in (False, True):
            entries = walk(store, annotator, adjudication)
            positions = [a.position for a, _ in entries]
            for k, (assignment, _) in enumerate(entries):
                assert queue_index(store, annotator, assignment.position, adjudication) == k
                expected = next((a.position for a, done in entries[k:] if not done), None)
                assert first_unanswered(store, annotator, assignment.position, adjudication=adjudication) == expected
                bounded = next((a.position for a, done in entries[k:k + 5] if not done), None)
                before = entries[k + 5][0].position if k + 5 < len(entries) else None
                if before is not None:
                    assert first_unanswered(store, annotator, assignment.position, before, adjudication) == bounded
            for start in range(0, len(entries) + 3, 4):
                page = queue_slice(store, annotator, start, 6, adjudication)
                assert [a.position for a, _ in page] == positions[start:start + 6]
                assert [j is not None for _, j in page] == [done for _, done in entries[start:start + 6]]


def test_an_older_file_gets_its_open_queue_when_it_is_opened(store: Store) -> None:
    build(store, random.Random(3), gaps=True)
    expected = recount_open(store.db.conn)
    path = store.path
    store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    store.close()
    conn = sqlite3.connect(path)  # the file as annotate wrote it before migration v13
    drop_open_queue(conn)
    drop_item_facts(conn)  # the migration after it
    conn.execute(f"PRAGMA user_version = {MIGRATIONS.index(_v13_open_queue)}")
    conn.commit()
    conn.close()
    with Store.open(path) as reopened:
        assert reopened.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert stored_open(reopened.db.conn) == expected and expected
        check_open(reopened)


def test_writes_by_other_tools_keep_the_open_queue_exact(store: Store) -> None:
    """The triggers hold for any writer (the sqlite3 shell, a script): a judgment withdrawn by hand, moved
    to another assignment or deleted, and an assignment moved or re-purposed."""
    build(store, random.Random(5), gaps=False)
    db = store.db.conn
    answered = [a for a in store.assignments() if store.current_judgment(a.id) is not None]
    withdrawn, moved, deleted = answered[0], answered[1], answered[2]
    open_one = next(a for a in store.assignments() if store.current_judgment(a.id) is None)
    with db:
        db.execute("UPDATE judgments SET superseded_by = -1 WHERE assignment_id = ? AND superseded_by IS NULL",
                   [withdrawn.id])
        db.execute("UPDATE judgments SET assignment_id = ? WHERE assignment_id = ?", [open_one.id, moved.id])
        db.execute("DELETE FROM judgments WHERE assignment_id = ?", [deleted.id])
        db.execute("UPDATE assignments SET position = 1000 WHERE id = ?", [withdrawn.id])
        db.execute("UPDATE assignments SET purpose = 'adjudication' WHERE id = ?", [moved.id])
    check_open(store)
    opened = {row[3] for row in stored_open(db)}
    assert {withdrawn.id, moved.id, deleted.id} <= opened and open_one.id not in opened
