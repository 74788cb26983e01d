"""A judgment is filed on the item that was on screen, or refused; assignment ids are never reused.

The failure this guards against: an annotator opens the app before any plan (a default queue is
made for them), the lead runs the first `annotate plan` (which drops the never-shown default
assignments and adds planned ones), and the annotator's answer to the item on screen was stored
against whichever new assignment had been given the reused id: another item.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from annotate.model import Assignment, Judgment, Timings
from annotate.plan import Rates, apply_plan, ensure_queue
from annotate.spec import SessionSpec
from annotate.store import StaleAssignment, Store
from annotate.store.schema import MIGRATIONS, SCHEMA_VERSION
from annotate.store.store import utc_now
from tests.conftest import make_item

T = Timings(utc_now(), 100, 2000, 1900)


def _items(store: Store, n: int = 8) -> None:
    store.add_items([make_item(f"q{i}") for i in range(n)])


def test_ids_of_dropped_default_assignments_are_never_given_again(pairwise_spec: SessionSpec, store: Store) -> None:
    _items(store)
    before = ensure_queue(store, pairwise_spec, "alice")  # the app opened before any plan
    applied = apply_plan(store, pairwise_spec, ["alice", "bob"], 2, Rates(), seed=1)
    assert applied.dropped, "the first plan drops the default queue's untouched assignments"
    old_ids = {a.id for a in before}
    new_ids = {a.id for a in applied.added}
    assert not old_ids & new_ids
    assert min(new_ids) > max(old_ids)


def test_an_answer_to_a_dropped_assignment_is_refused_and_nothing_is_written(
    pairwise_spec: SessionSpec, store: Store
) -> None:
    _items(store)
    on_screen = ensure_queue(store, pairwise_spec, "alice")[0]
    apply_plan(store, pairwise_spec, ["alice", "bob"], 2, Rates(), seed=1)
    with pytest.raises(StaleAssignment, match="NOT saved"):
        store.submit(Judgment(on_screen.id, "A", T), shown=on_screen)
    with pytest.raises(StaleAssignment):  # without the shown assignment too: the id is gone
        store.submit(Judgment(on_screen.id, "A", T))
    assert store.judgments(include_superseded=True) == []


def test_an_assignment_changed_since_it_was_shown_is_refused(pairwise_spec: SessionSpec, store: Store) -> None:
    """Same id, but another condition or suggestion (an experiment redrawn under the open app)."""
    from dataclasses import replace

    _items(store)
    shown = ensure_queue(store, pairwise_spec, "alice")[0]
    store.set_assignment_design([(shown.id, "upfront", None)])
    with pytest.raises(StaleAssignment):
        store.submit(Judgment(shown.id, "B", T), shown=shown)
    with pytest.raises(StaleAssignment):
        store.log_events([], shown=shown)
    current = replace(shown, condition="upfront")
    stored = store.submit(Judgment(shown.id, "B", T), shown=current)
    assert stored.id is not None


def test_a_judgment_records_the_item_it_was_made_on(pairwise_spec: SessionSpec, store: Store) -> None:
    _items(store, 3)
    shown = ensure_queue(store, pairwise_spec, "alice")[1]
    store.submit(Judgment(shown.id, "tie", T), shown=shown)
    row = store.db.execute("SELECT item_id FROM judgments").fetchone()
    assert row[0] == shown.item_id


def _v3_file(path: Path) -> None:
    """A session file as annotate wrote it before ids were made unreusable (schema 3)."""
    from annotate.store._sqlite_utils import sqlite_utils

    db = sqlite_utils.Database(sqlite3.connect(str(path)))
    for version in range(3):
        MIGRATIONS[version](db)
    db.execute("PRAGMA user_version = 3")
    db.execute("INSERT INTO items (id, kind, conversation, responses, content_hash) VALUES ('x', 'pairwise',"
               " '[]', '[]', 'h'), ('y', 'pairwise', '[]', '[]', 'h2')")
    db.execute("INSERT INTO annotators (id, name, cohort) VALUES (1, 'alice', 'expert')")
    db.execute("INSERT INTO assignments (id, annotator_id, item_id, position) VALUES (1, 1, 'x', 0), (2, 1, 'y', 1)")
    db.execute("INSERT INTO judgments (uid, assignment_id, label, submitted_at) VALUES ('u1', 2, 'A', 'now')")
    db.execute("INSERT INTO events (uid, assignment_id, mono_ns, wall_time, kind) VALUES ('e1', 2, 1, 'now', 'k')")
    db.conn.commit()
    db.close()


def test_an_old_file_is_migrated_with_ids_rows_and_links_kept(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    _v3_file(path)
    with Store.open(path) as store:
        assert store.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert [(a.id, a.item_id) for a in store.assignments()] == [(1, "x"), (2, "y")]
        assert store.db.execute("SELECT assignment_id, item_id FROM judgments").fetchall() == [(2, "y")]
        assert store.db.execute("PRAGMA foreign_key_check").fetchall() == []
        assert store.db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert "AUTOINCREMENT" in store.db.execute(
            "SELECT sql FROM sqlite_master WHERE name = 'assignments'").fetchone()[0]
        indexes = {r[0] for r in store.db.execute("SELECT name FROM sqlite_master WHERE tbl_name = 'assignments'"
                                                   " AND type = 'index'")}
        assert "idx_assignments_annotator_id_position" in indexes
        (third,) = store.add_assignments([Assignment(0, "alice", "x", 5)])
        store.delete_assignments([third.id])
        (fourth,) = store.add_assignments([Assignment(0, "alice", "y", 6)])
        assert (third.id, fourth.id) == (3, 4)  # 3 was the highest id when deleted, yet never given again
