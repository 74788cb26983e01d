"""The running tallies behind `annotate status` always equal a count of the rows, whatever wrote them."""

from __future__ import annotations

import random
import shutil
import sqlite3
from pathlib import Path

from conftest import make_item

from annotate.model import Assignment, ExternalLabel, Judgment, Suggestion, Timings
from annotate.store import Store
from annotate.store.merge import merge_session
from annotate.store.schema import MIGRATIONS, _v9_tallies
from annotate.store.store import SuggestionFailure
from annotate.store.tallies import recount, session_tally
from tests.migration_util import drop_item_facts, drop_open_queue, drop_training_tables, drop_vote_tallies


def timings(active: int) -> Timings:
    return Timings("2026-11-30T10:00:00.000+00:00", 100, active + 50, active)


def answer(store: Store, assignment: Assignment, label: str | None, active: int) -> Judgment:
    skip = "expertise" if label is None else None
    return store.submit(Judgment(assignment.id, label, timings(active), skip_reason=skip))


def check(store: Store) -> None:
    assert session_tally(store) == recount(store)


def test_every_kind_of_write_keeps_the_tallies_exact(store: Store, tmp_path: Path) -> None:
    rng = random.Random(4)
    items = [make_item(f"i{k}", category=rng.choice([None, "", "math", "code", "uncategorised"]),
                       gold=rng.choice([None, None, "A", "B"])) for k in range(30)]
    store.add_items(items)
    check(store)
    store.add_external_labels([ExternalLabel("crowd.csv", f"r{k % 4}", "crowd", f"i{k}", "A") for k in range(20)])
    store.add_external_labels([ExternalLabel("judge.csv", "gpt", "llm", f"i{k}", "B") for k in range(5)])
    check(store)
    suggested = store.add_suggestions([Suggestion(f"i{k}", rng.choice(["m1", "m2"]), "A", planted=k % 3 == 0)
                                       for k in range(12)])
    store.add_suggestion_failure(SuggestionFailure("i1", "m3", "h", "no verdict"))
    check(store)
    queue = [Assignment(0, name, f"i{k}", k, bool(k % 2), purpose=rng.choice(["main", "main", "gold", "repeat"]))
             for name in ("alice", "bob", "carol") for k in range(25)]
    stored = store.add_assignments(queue)
    adjudication = store.add_assignments([Assignment(0, "dana", f"i{k}", 100 + k, False, purpose="adjudication")
                                          for k in range(5)])
    check(store)
    answered = []
    for assignment in rng.sample(stored, 50) + adjudication[:3]:
        answered.append(answer(store, assignment, rng.choice(["A", "B", "tie", None]), rng.randint(0, 9000)))
        check(store)
    for judgment in rng.sample(answered, 10):  # revisions: the old answer is superseded, a skip may become a vote
        assignment = store.assignment(judgment.assignment_id)
        answer(store, assignment, rng.choice(["A", None]), rng.randint(0, 9000))
        check(store)
    untouched = [a.id for a in store.untouched_assignments(("main", "gold", "repeat"))][:7]
    store.delete_assignments(untouched)
    check(store)
    store.set_assignment_design([(answered[0].assignment_id, "upfront", suggested[0].id)])
    store.delete_unused_planted_suggestions()
    check(store)
    full = session_tally(store)
    assert full.items == 30 and full.annotators and full.overlap is not None

    # a copy of the session answered elsewhere, merged back: the merge's own inserts and updates count too
    copy = tmp_path / "copy.db"
    store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    shutil.copy(store.path, copy)
    with Store.open(copy) as other:
        for assignment in other.untouched_assignments(("main", "gold", "repeat")):
            answer(other, assignment, "B", 1234)
        other.add_items([make_item("late", category="new")])
        other.add_assignments([Assignment(0, "erin", "late", 0, False)])
        answer(other, other.assignments("erin")[0], "A", 10)
    merge_session(store, copy)
    check(store)
    merged = session_tally(store)
    assert merged.overlap is not None and merged.overlap[0] > full.overlap[0]
    assert [a.name for a in merged.annotators][-1] == "erin" and merged.items == 31


def test_a_file_from_before_the_tallies_is_counted_when_it_is_opened(store: Store) -> None:
    store.add_items([make_item(f"i{k}", category="c" if k % 2 else None, gold="A" if k < 3 else None)
                     for k in range(10)])
    store.add_external_labels([ExternalLabel("v.csv", "r", "crowd", "i1", "A")])
    stored = store.add_assignments([Assignment(0, "alice", f"i{k}", k, False) for k in range(10)])
    answer(store, stored[0], "A", 500)
    answer(store, stored[1], None, 700)
    expected = recount(store)
    path = store.path
    store.close()
    conn = sqlite3.connect(path)  # the file as annotate wrote it just before the tallies migration
    for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'").fetchall():
        conn.execute(f'DROP TRIGGER "{name}"')
    for table in ("item_tally", "label_tally", "suggestion_tally", "failure_tally", "progress_tally",
                  "item_progress", "overlap_tally", "spans"):  # spans: the migration after the tallies
        conn.execute(f'DROP TABLE "{table}"')
    drop_training_tables(conn)  # the training tables (v11)
    drop_vote_tallies(conn)  # and the vote tallies (their triggers went with the others)
    drop_open_queue(conn)  # and the open queue (v13)
    drop_item_facts(conn)  # and the item facts (v14)
    conn.execute(f"PRAGMA user_version = {MIGRATIONS.index(_v9_tallies)}")
    conn.commit()
    conn.close()
    with Store.open(path) as reopened:
        assert session_tally(reopened) == expected
        assert expected.annotators[0].done == 1 and expected.annotators[0].skipped == 1
        assert expected.annotators[0].active_ms == 1200 and expected.gold == 3
