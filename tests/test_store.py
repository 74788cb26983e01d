"""The SQLite store: round trips, idempotent and atomic adds, supersede on revise, pragmas."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from conftest import make_item

from annotate.model import Assignment, Event, ExternalLabel, Item, Judgment, Message, Response, Timings
from annotate.store import ItemConflict, Store, StoreError
from annotate.store.schema import SCHEMA_VERSION

TIMINGS = Timings("2026-11-30T10:00:00.000+00:00", 1200, 5300, 5100, {"A": 4000, "B": 3900}, {"A": 1.0}, 800)


def test_items_round_trip_with_history_and_metadata(store: Store) -> None:
    item = Item(
        id="q1-t2", kind="pairwise",
        conversation=(Message("system", "be brief"), Message("user", "Question 1")),
        responses=(
            Response("A", "answer **two**", "m1", (Message("assistant", "a1"), Message("user", "q2"))),
            Response("B", "other answer", "m2", (Message("assistant", "b1"), Message("user", "q2"))),
        ),
        category="math", gold="A", metadata={"source": "unit", "n": 3},
    )
    assert store.add_items([item]).added == 1
    loaded = store.item("q1-t2")
    assert loaded.conversation == item.conversation
    assert loaded.responses == item.responses
    assert dict(loaded.metadata) == {"source": "unit", "n": 3}
    assert (loaded.category, loaded.gold, loaded.prompt) == ("math", "A", "Question 1")


def test_add_items_is_idempotent(store: Store) -> None:
    items = [make_item(f"i{n}") for n in range(5)]
    assert store.add_items(items).added == 5
    again = store.add_items(items)
    assert (again.added, again.unchanged) == (0, 5)
    assert store.count_items() == 5


def test_add_items_is_atomic_on_conflict(store: Store) -> None:
    store.add_items([make_item("i1")])
    batch = [make_item("new1"), make_item("i1", a="changed text"), make_item("new2")]
    with pytest.raises(ItemConflict, match="'i1'"):
        store.add_items(batch)
    assert store.item_ids() == ["i1"]


def test_duplicate_ids_in_one_batch_are_refused(store: Store) -> None:
    with pytest.raises(ItemConflict, match="twice"):
        store.add_items([make_item("x"), make_item("x")])
    assert store.count_items() == 0


def test_submit_supersedes_and_keeps_both_rows(store: Store) -> None:
    store.add_items([make_item("i1"), make_item("i2")])
    a1, a2 = store.add_assignments([Assignment(0, "alice", "i1", 0, False), Assignment(0, "alice", "i2", 1, True)])
    assert store.progress("alice").next_position == 0
    event = Event("key.label", 10, "2026-11-30T10:00:01Z", {"side": "left"}, a1.id, "alice")
    first = store.submit(Judgment(a1.id, "A", TIMINGS, rationale="clearer", confidence=4), [event])
    revised = store.submit(Judgment(a1.id, "tie", TIMINGS))
    rows = store.judgments("alice", include_superseded=True)
    assert [j.label for j in rows] == ["A", "tie"]
    assert rows[0].superseded_by == revised.id
    assert store.current_judgment(a1.id).label == "tie"
    assert [j.id for j in store.judgments("alice")] == [revised.id]
    assert first.uid and first.uid != revised.uid
    loaded = rows[0]
    assert loaded.timings == TIMINGS
    assert (loaded.rationale, loaded.confidence) == ("clearer", 4)
    assert [e.kind for e in store.events(a1.id)] == ["key.label"]
    progress = store.progress("alice")
    assert (progress.done, progress.total, progress.next_position) == (1, 2, 1)
    store.submit(Judgment(a2.id, None, TIMINGS, skip_reason="unsure"))
    progress = store.progress("alice")
    assert (progress.done, progress.skipped, progress.next_position) == (1, 1, None)


def test_submit_failure_writes_nothing(store: Store) -> None:
    store.add_items([make_item("i1")])
    [a1] = store.add_assignments([Assignment(0, "alice", "i1", 0)])
    bad_event = Event("key", 1, "now", {}, a1.id, "nobody")
    with pytest.raises(StoreError):
        store.submit(Judgment(a1.id, "A", TIMINGS), [bad_event])
    assert store.judgments(include_superseded=True) == []


def test_external_labels_idempotent_and_raters_get_cohort(store: Store) -> None:
    store.add_items([make_item("i1")])
    labels = [ExternalLabel("arena", "voter1", "crowd", "i1", "A", "model_a")]
    assert store.add_external_labels(labels).added == 1
    assert store.add_external_labels(labels).added == 0
    assert store.annotator("voter1").cohort == "crowd"
    with pytest.raises(StoreError, match="cohort"):
        store.ensure_annotator("voter1", "expert")


def test_pragmas_and_schema_version(store: Store) -> None:
    db = store.db
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert db.execute("PRAGMA busy_timeout").fetchone()[0] >= 5000
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert set(db.table_names()) >= {
        "items", "annotators", "assignments", "judgments", "events", "suggestions", "external_labels", "meta"}


def test_foreign_keys_enforced(store: Store) -> None:
    with pytest.raises(sqlite3.IntegrityError):
        store.add_assignments([Assignment(0, "alice", "no-such-item", 0)])
    assert store.assignments("alice") == []


def test_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "future.db"
    Store.open(path, create=True).close()
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    with pytest.raises(StoreError, match=r"newer annotate .*upgrade annotate"):  # one line in the CLI, not a traceback
        Store.open(path)


def test_open_missing_file_without_create(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="no such session file"):
        Store.open(tmp_path / "missing.db")
    assert not (tmp_path / "missing.db").exists()


def test_an_external_label_keeps_the_slot_shown_first(store: Store) -> None:
    store.add_items([make_item("i1"), make_item("i2")])
    labels = [ExternalLabel("judge.csv", "gpt", "llm", "i1", "A", "A", shown_first="B"),
              ExternalLabel("judge.csv", "gpt", "llm", "i2", "B", "B")]
    store.add_external_labels(labels)
    assert [lab.shown_first for lab in store.external_labels()] == ["B", None]


def test_a_version_3_file_gains_the_shown_first_column(tmp_path: Path) -> None:
    """A session file made before the column existed is migrated; its labels have no known order."""
    from annotate.store._sqlite_utils import sqlite_utils
    from annotate.store.schema import MIGRATIONS, migrate

    path = tmp_path / "old.db"
    db = sqlite_utils.Database(path)
    for version, step in enumerate(MIGRATIONS[:3]):
        step(db)
        db.execute(f"PRAGMA user_version = {version + 1}")
    db["items"].insert({"id": "i1", "kind": "pairwise", "conversation": "[]", "responses": "[]", "content_hash": "h"})
    db["external_labels"].insert({"source": "s", "rater": "r", "cohort": "crowd", "item_id": "i1", "label": "A"})
    assert migrate(db) == len(MIGRATIONS) - 3
    db.close()
    with Store.open(path) as store:
        assert [lab.shown_first for lab in store.external_labels()] == [None]
