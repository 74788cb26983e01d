"""`annotate merge`: copies of a session file come back idempotently, conflicts are reported."""

from __future__ import annotations

import json
import shutil
import sqlite3
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from annotate.cli import main
from annotate.model import Event, Judgment, Timings
from annotate.plan import Rates, apply_plan, ensure_queue
from annotate.session import create_session, open_store
from annotate.spec import SessionSpec
from annotate.store import Store, StoreError
from annotate.store.merge import MergeConflictError, file_sha256, merge_log, merge_session
from tests.conftest import make_item


def timings() -> Timings:
    return Timings(shown_at="2025-01-01T00:00:00+00:00", first_input_ms=50, submit_ms=1200, active_ms=1100)


def judge(store: Store, assignment_id: int, label: str, annotator: str, rationale: str = "") -> Judgment:
    events = [
        Event("shown", time.monotonic_ns(), "2025-01-01T00:00:00+00:00", {"n": 1}, assignment_id, annotator),
        Event("label", time.monotonic_ns(), "2025-01-01T00:00:01+00:00", {"label": label}, assignment_id, annotator),
    ]
    return store.submit(Judgment(assignment_id, label, timings(), rationale=rationale), events)


def dump(path: Path) -> dict[str, list[tuple]]:
    """Every row of every table but the merge log, in a stable order."""
    conn = sqlite3.connect(path)
    try:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        return {
            t: sorted(conn.execute(f"SELECT * FROM {t}").fetchall(), key=repr)
            for t in tables if t not in ("merges", "sqlite_sequence")
        }
    finally:
        conn.close()


@pytest.fixture
def planned(tmp_path: Path) -> SessionSpec:
    """A session of 24 items planned for alice and bob with overlap 2."""
    spec = create_session("team", "pairwise", seed=3, folder=tmp_path / "sessions")
    with open_store(spec) as store:
        store.add_items([make_item(f"q{i:02d}") for i in range(24)])
        apply_plan(store, spec, ["alice", "bob"], 2, Rates(), 3)
    return spec


def copy_of(spec: SessionSpec, name: str) -> Path:
    """A copy of the closed session file, as a lead would hand out."""
    target = spec.db.parent / f"{name}.db"
    shutil.copy(spec.db, target)
    return target


def test_merge_brings_judgments_and_events_and_twice_changes_nothing(planned: SessionSpec) -> None:
    copy = copy_of(planned, "alice-copy")
    with Store.open(copy) as offline:
        for a in offline.assignments("alice")[:5]:
            judge(offline, a.id, "A", "alice", rationale="clearer")
        offline.log_events([Event("quit", time.monotonic_ns(), "2025-01-01T00:10:00+00:00", {}, None, "alice")])
    with open_store(planned) as store:
        for a in store.assignments("bob")[:3]:
            judge(store, a.id, "B", "bob")
    sha_before = file_sha256(copy)
    with open_store(planned) as store:
        report = merge_session(store, copy)
        assert (report.judgments, report.events, report.assignments, report.conflicts) == (5, 11, 0, ())
        alice = {j.assignment_id: j for j in store.judgments("alice")}
        assert len(alice) == 5 and all(j.label == "A" and j.rationale == "clearer" for j in alice.values())
        assert all(len(store.events(a)) == 2 for a in alice)
        assert len(store.judgments("bob")) == 3
    assert file_sha256(copy) == sha_before, "the copy must only be read"
    first = dump(planned.db)
    with open_store(planned) as store:
        again = merge_session(store, copy)
        assert not again.changed and again.already == 5
        assert [row["judgments"] for row in merge_log(store)] == [5, 0]
    assert dump(planned.db) == first


def test_a_conflict_is_reported_and_that_assignment_left_alone(planned: SessionSpec) -> None:
    copy = copy_of(planned, "alice-copy")
    with open_store(planned) as store:
        queue = store.assignments("alice")
    contested, other = queue[0], queue[1]
    with Store.open(copy) as offline:
        judge(offline, contested.id, "B", "alice")
        judge(offline, other.id, "tie", "alice")
    with open_store(planned) as store:
        judge(store, contested.id, "A", "alice")
    with open_store(planned) as store:
        with pytest.raises(MergeConflictError) as refused:
            merge_session(store, copy, strict=True)
        assert not refused.value.report.written
        assert len(store.judgments()) == 1 and merge_log(store) == []
        report = merge_session(store, copy)
        (conflict,) = report.conflicts
        assert (conflict.annotator, conflict.item_id, conflict.position) == ("alice", contested.item_id, 0)
        assert (conflict.ours, conflict.theirs) == ("A", "B")
        assert store.current_judgment(contested.id).label == "A"
        assert store.current_judgment(other.id).label == "tie"
        assert len(store.judgments(include_superseded=True)) == 2
        assert store.events(contested.id) and all(e.payload.get("label") != "B" for e in store.events(contested.id))
        assert merge_log(store)[-1]["conflicts"] == 1
        again = merge_session(store, copy)
        assert len(again.conflicts) == 1 and not again.changed


def test_revisions_are_reproduced_in_order(planned: SessionSpec) -> None:
    with open_store(planned) as store:
        target = store.assignments("alice")[2]
        judge(store, target.id, "A", "alice")
    copy = copy_of(planned, "alice-copy")
    with Store.open(copy) as offline:
        judge(offline, target.id, "B", "alice")
        judge(offline, target.id, "tie", "alice")
    with open_store(planned) as store:
        report = merge_session(store, copy)
        assert report.judgments == 2 and report.already == 1 and not report.conflicts
        chain = [j for j in store.judgments(include_superseded=True) if j.assignment_id == target.id]
        assert [j.label for j in chain] == ["A", "B", "tie"]
        assert [j.superseded_by for j in chain] == [chain[1].id, chain[2].id, None]
        assert store.current_judgment(target.id).label == "tie"


def test_the_same_answer_in_both_files_is_kept_as_history(planned: SessionSpec) -> None:
    copy = copy_of(planned, "alice-copy")
    with open_store(planned) as store:
        target = store.assignments("alice")[0]
        ours = judge(store, target.id, "A", "alice")
    with Store.open(copy) as offline:
        judge(offline, target.id, "A", "alice")
    with open_store(planned) as store:
        report = merge_session(store, copy)
        assert report.duplicates == 1 and not report.conflicts
        assert store.current_judgment(target.id).uid == ours.uid


def test_a_copy_made_before_the_plan_brings_its_own_assignments(tmp_path: Path) -> None:
    spec = create_session("early", "pairwise", seed=5, folder=tmp_path / "sessions")
    with open_store(spec) as store:
        store.add_items([make_item(f"q{i:02d}") for i in range(6)])
    copy = copy_of(spec, "dave-copy")
    with Store.open(copy) as offline:
        queue = ensure_queue(offline, spec, "dave")
        judge(offline, queue[0].id, "B", "dave")
    with open_store(spec) as store:
        report = merge_session(store, copy)
        assert (report.assignments, report.annotators, report.judgments) == (1, 1, 1)
        (assignment,) = store.assignments("dave")
        assert (assignment.item_id, assignment.position) == (queue[0].item_id, 0)
        assert store.current_judgment(assignment.id).label == "B"


def test_a_queue_place_holding_another_item_is_a_conflict(tmp_path: Path) -> None:
    spec = create_session("early", "pairwise", seed=5, folder=tmp_path / "sessions")
    with open_store(spec) as store:
        store.add_items([make_item(f"q{i:02d}") for i in range(6)])
    copy = copy_of(spec, "copy")
    with Store.open(copy) as offline:
        judge(offline, ensure_queue(offline, spec, "dave")[0].id, "B", "dave")
    with open_store(spec) as store:
        from annotate.model import Assignment

        mine = store.item_ids()
        theirs = Store.open(copy)
        try:
            first = theirs.assignments("dave")[0].item_id
        finally:
            theirs.close()
        other_item = next(i for i in mine if i != first)
        store.add_assignments([Assignment(0, "dave", other_item, 0)])
        report = merge_session(store, copy)
        (conflict,) = report.conflicts
        assert "queues differ" in conflict.reason and report.judgments == 0 and report.events == 0


def test_merging_the_session_into_itself_or_a_non_session_is_refused(planned: SessionSpec, tmp_path: Path) -> None:
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"not sqlite at all" * 100)
    with open_store(planned) as store:
        with pytest.raises(StoreError, match="own file"):
            merge_session(store, planned.db)
        with pytest.raises(StoreError, match="not a session file"):
            merge_session(store, junk)


def test_cli_merge_lists_conflicts_and_exits_1(planned: SessionSpec) -> None:
    copy = copy_of(planned, "alice-copy")
    with open_store(planned) as store:
        first, second = store.assignments("alice")[:2]
    with Store.open(copy) as offline:
        judge(offline, first.id, "B", "alice")
        judge(offline, second.id, "B", "alice")
    with open_store(planned) as store:
        judge(store, first.id, "A", "alice")
    result = CliRunner().invoke(main, ["merge", str(planned.path), str(copy)])
    assert result.exit_code == 1, result.output
    assert "merged" in result.output and ": 1 judgment, " in result.output
    assert f"conflict: alice, item {first.item_id}, position 0: here A, in the copy B" in result.output
    clean = CliRunner().invoke(main, ["merge", str(planned.path), str(copy), "--strict"])
    assert "NOT merged (strict)" in clean.output and clean.exit_code == 1


def _contested(planned: SessionSpec) -> tuple[Path, int, int, Judgment]:
    """A copy in which alice answered B on her first item and tie on her second; here she answered A
    on the first. Returns the copy, both assignment ids and this file's judgment."""
    copy = copy_of(planned, "alice-copy")
    with open_store(planned) as store:
        first, second = store.assignments("alice")[:2]
    with Store.open(copy) as offline:
        judge(offline, first.id, "B", "alice")
        judge(offline, second.id, "tie", "alice")
    with open_store(planned) as store:
        ours = judge(store, first.id, "A", "alice")
    return copy, first.id, second.id, ours


@pytest.mark.parametrize("prefer", ["copy", "here"])
def test_prefer_settles_a_conflict_keeping_both_judgments(planned: SessionSpec, prefer: str) -> None:
    copy, contested, other, ours = _contested(planned)
    with Store.open(copy) as offline:
        theirs = offline.current_judgment(contested)
    assert theirs is not None
    with open_store(planned) as store:
        report = merge_session(store, copy, prefer=prefer)
        assert report.conflicts == () and report.judgments == 2
        (settled,) = report.settled
        assert (settled.ours, settled.theirs, settled.kept) == ("A", "B", prefer)
        assert (settled.ours_uid, settled.theirs_uid) == (ours.uid, theirs.uid)
        chain = [j for j in store.judgments(include_superseded=True) if j.assignment_id == contested]
        assert sorted(j.uid for j in chain) == sorted([ours.uid, theirs.uid]), "both rows kept"
        current = store.current_judgment(contested)
        assert current is not None and current.label == ("B" if prefer == "copy" else "A")
        assert store.current_judgment(other).label == "tie"
        assert any(e.payload.get("label") == "B" for e in store.events(contested)), "the copy's events came too"
        log = merge_log(store)[-1]
        assert log["conflicts"] == 0
        assert json.loads(log["details"])["settled"][0]["theirs_uid"] == theirs.uid
    settled_dump = dump(planned.db)
    with open_store(planned) as store:
        again = merge_session(store, copy)  # no --prefer needed any more
        assert again.conflicts == () and again.settled == () and not again.changed and again.already == 2
    assert dump(planned.db) == settled_dump


def test_cli_conflict_says_how_to_settle_and_prefer_settles_it(planned: SessionSpec) -> None:
    copy, contested, _, _ = _contested(planned)
    with open_store(planned) as store:
        item_id = store.assignment(contested).item_id
    first = CliRunner().invoke(main, ["merge", str(planned.path), str(copy)])
    assert first.exit_code == 1
    assert f"conflict: alice, item {item_id}, position 0: here A, in the copy B" in first.stderr
    assert first.stderr.strip().endswith(
        "1 conflict: that assignment was left as it is here. To settle it, merge the file again with"
        " --prefer copy (the copy's answer becomes current) or --prefer here (this file's stays current);"
        " both answers are kept either way."
    )
    settled = CliRunner().invoke(main, ["merge", str(planned.path), str(copy), "--prefer", "copy"])
    assert settled.exit_code == 0, settled.output
    assert "1 conflict settled (--prefer copy)" in settled.stdout
    assert (f"  settled: alice, item {item_id}, position 0: the copy's B is current; here A is kept as history"
            in settled.stdout)
    for _ in range(2):
        again = CliRunner().invoke(main, ["merge", str(planned.path), str(copy)])
        assert again.exit_code == 0, again.output
        assert ": 0 judgments, 0 events, 0 assignments, 0 items, 0 annotators added; 2 judgments already here" \
            in again.stdout
        assert again.stderr == ""
    with open_store(planned) as store:
        assert store.current_judgment(contested).label == "B"


def test_a_conflict_of_place_is_not_settled_by_prefer(tmp_path: Path) -> None:
    spec = create_session("early", "pairwise", seed=5, folder=tmp_path / "sessions")
    with open_store(spec) as store:
        store.add_items([make_item(f"q{i:02d}") for i in range(6)])
    copy = copy_of(spec, "copy")
    with Store.open(copy) as offline:
        queue = ensure_queue(offline, spec, "dave")
        judge(offline, queue[0].id, "B", "dave")
    from annotate.model import Assignment

    with open_store(spec) as store:
        other_item = next(i for i in store.item_ids() if i != queue[0].item_id)
        store.add_assignments([Assignment(0, "dave", other_item, 0)])
    result = CliRunner().invoke(main, ["merge", str(spec.path), str(copy), "--prefer", "copy"])
    assert result.exit_code == 1
    assert "1 conflict of place (the files differ on the queue, the sides, the cohort, an item's content or a" \
        " judgment edited in place) cannot be settled" in result.stderr
    assert "To settle" not in result.stderr


def test_a_copy_whose_item_text_was_edited_is_a_conflict(planned: SessionSpec) -> None:
    """An item edited in the copy (its text changed in place, the stored hash left stale) must not
    bring judgments made on other text: the assignment is a conflict and nothing of it comes in."""
    copy = copy_of(planned, "alice-copy")
    with open_store(planned) as store:
        edited, fine = store.assignments("alice")[:2]
    with Store.open(copy) as offline:
        judge(offline, edited.id, "A", "alice")
        judge(offline, fine.id, "B", "alice")
    conn = sqlite3.connect(copy)
    row = conn.execute("SELECT responses FROM items WHERE id = ?", [edited.item_id]).fetchone()
    conn.execute("UPDATE items SET responses = ? WHERE id = ?", [row[0].replace("left text", "other text"),
                                                                  edited.item_id])
    conn.commit()
    conn.close()
    with open_store(planned) as store:
        report = merge_session(store, copy)
        (conflict,) = report.conflicts
        assert (conflict.item_id, conflict.position) == (edited.item_id, 0)
        assert "different content" in conflict.reason and not conflict.settleable
        assert store.current_judgment(edited.id) is None and store.events(edited.id) == []
        assert store.current_judgment(fine.id).label == "B"
        with pytest.raises(MergeConflictError):
            merge_session(store, copy, strict=True)


def test_an_edited_item_the_session_lacks_is_stored_with_its_true_hash(tmp_path: Path) -> None:
    spec = create_session("early", "pairwise", seed=5, folder=tmp_path / "sessions")
    copy = spec.db.parent / "copy.db"
    with open_store(spec):
        pass
    shutil.copy(spec.db, copy)
    with Store.open(copy) as offline:
        offline.add_items([make_item("q1")])
        judge(offline, ensure_queue(offline, spec, "dave")[0].id, "B", "dave")
    conn = sqlite3.connect(copy)
    conn.execute("UPDATE items SET responses = replace(responses, 'left text', 'edited')")
    conn.commit()
    conn.close()
    with open_store(spec) as store:
        report = merge_session(store, copy)
        assert report.items == 1 and not report.conflicts
        (item,) = store.items()
        assert item.responses[0].text == "edited"
        assert store.conflicting_item_ids([item]) == []  # the stored hash is the content's, not the stale one
        assert store.conflicting_item_ids([make_item("q1")]) == ["q1"]


@pytest.mark.parametrize("column, value", [("label", "B"), ("rationale", "changed my mind"), ("confidence", 5)])
def test_a_judgment_edited_in_place_under_the_same_uid_is_a_conflict(
    planned: SessionSpec, column: str, value: object,
) -> None:
    with open_store(planned) as store:
        target, fine = store.assignments("alice")[:2]
        original = judge(store, target.id, "A", "alice")
    copy = copy_of(planned, "alice-copy")
    with Store.open(copy) as offline:
        judge(offline, fine.id, "tie", "alice")
    conn = sqlite3.connect(copy)
    conn.execute(f"UPDATE judgments SET {column} = ? WHERE uid = ?", [value, original.uid])
    conn.commit()
    conn.close()
    with open_store(planned) as store:
        report = merge_session(store, copy)
        (conflict,) = report.conflicts
        assert original.uid in conflict.reason and column in conflict.reason and "edited in place" in conflict.reason
        assert (conflict.item_id, conflict.position, conflict.ours) == (target.item_id, 0, "A")
        assert store.current_judgment(target.id).uid == original.uid
        assert getattr(store.current_judgment(target.id), column) != value
        assert store.current_judgment(fine.id).label == "tie"
        assert merge_log(store)[-1]["conflicts"] == 1
