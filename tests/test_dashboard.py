"""The dashboard's figures (annotate.dashboard) against a hand-built session in a real SQLite file."""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

import numpy as np
import pytest

from annotate.analysis.agreement import krippendorff_alpha
from annotate.dashboard import krippendorff_from_coincidences, take_snapshot
from annotate.session import open_store
from annotate.store import SessionFileError, Store
from annotate.store.progress import Coincidences
from annotate.store.sittings import open_sitting
from tests.dashboard_util import build_session


@pytest.fixture
def built(tmp_path: Path):
    spec, store = build_session(tmp_path)
    yield spec, store
    store.close()


def rows_by_name(snapshot):
    return {a.name: a for a in snapshot.annotators}


def test_progress_quality_and_agreement_per_annotator(built) -> None:
    spec, store = built
    snap = take_snapshot(spec, store)
    rows = rows_by_name(snap)
    assert list(rows) == ["alice", "bob", "carol", "dave"]  # erin only adjudicates
    alice, bob, carol, dave = rows["alice"], rows["bob"], rows["carol"], rows["dave"]
    assert (alice.assigned, alice.done, alice.skipped, alice.left) == (6, 5, 1, 0)
    assert (carol.assigned, carol.done, carol.skipped, carol.left) == (3, 2, 0, 1)
    assert (dave.assigned, dave.done, dave.timed, dave.median_s) == (1, 1, 0, None)  # planted: no vote
    # medians of the current votes' active times (alice's first answer to i1 was superseded)
    assert (alice.median_s, bob.median_s, carol.median_s) == (4.0, 10.0, 20.0)
    assert (alice.fast, alice.timed, bob.fast, bob.timed) == (2, 5, 0, 5)
    # gold: i4's gold A, and i0's adjudicated A; the attention check apart
    assert (alice.gold_correct, alice.gold, bob.gold_correct, bob.gold, carol.gold_correct, carol.gold) == (
        2, 2, 1, 2, 0, 1)
    assert (alice.attention_failed, alice.attention, bob.attention_failed, bob.attention) == (0, 1, 1, 1)
    assert bob.checks == ("attention",) and alice.checks == () and carol.checks == ()
    # pairs with the others on shared items, one vote per annotator and item
    assert (alice.pairs_agreeing, alice.pairs) == (3, 6)
    assert (bob.pairs_agreeing, bob.pairs) == (2, 6)
    assert (carol.pairs_agreeing, carol.pairs) == (1, 4)
    assert (dave.pairs, dave.agreement) == (0, None)
    assert snap.items == 6 and (snap.assigned, snap.done, snap.skipped) == (15, 13, 1)
    assert snap.has_flags and alice.open_flags == 0  # every migrated file has the flags table (v8)


def test_alpha_equals_the_reports_alpha_on_the_same_votes(built) -> None:
    spec, store = built
    snap = take_snapshot(spec, store)
    codes = {"A": 0.0, "B": 1.0, "tie": 2.0}
    nan = np.nan
    # units i0, i1, i2, i4; raters alice, bob, carol
    matrix = np.array([[codes["A"], codes["A"], codes["B"]], [codes["B"], codes["A"], codes["B"]],
                       [codes["tie"], codes["tie"], nan], [codes["A"], codes["B"], nan]])
    expected = krippendorff_alpha(matrix, "nominal", n_boot=0).estimate
    assert snap.alpha.level == "nominal" and snap.alpha.items == 4 and snap.alpha.values == 10
    assert snap.alpha.value == pytest.approx(expected)


def test_ordinal_alpha_from_coincidences_matches_the_analysis() -> None:
    rng = np.random.default_rng(5)
    matrix = rng.integers(1, 6, size=(30, 4)).astype(float)
    matrix[rng.random(matrix.shape) < 0.3] = np.nan
    labels = tuple(str(g) for g in range(1, 6))
    cells: dict[tuple[str, str], float] = {}
    items = 0
    for unit in matrix:
        values = [str(int(v)) for v in unit if not np.isnan(v)]
        if len(values) < 2:
            continue
        items += 1
        for i, c in enumerate(values):
            for j, k in enumerate(values):
                if i != j:
                    cells[c, k] = cells.get((c, k), 0.0) + 1 / (len(values) - 1)
    coincidences = Coincidences(tuple((c, k, v) for (c, k), v in cells.items()), items)
    for level in ("ordinal", "nominal", "interval"):
        ours = krippendorff_from_coincidences(coincidences, level, labels).value
        assert ours == pytest.approx(krippendorff_alpha(matrix, level, n_boot=0).estimate), level


def test_alpha_without_shared_items_says_why(tmp_path: Path) -> None:
    coincidences = Coincidences((), 0)
    alpha = krippendorff_from_coincidences(coincidences, "nominal", ("A", "B"))
    assert alpha.value is None and "two annotators" in alpha.reason
    same = krippendorff_from_coincidences(Coincidences((("A", "A", 2.0),), 1), "nominal", ("A", "B"))
    assert same.value is None and "same label" in same.reason


def test_recent_pace_counts_only_the_window(built) -> None:
    spec, store = built
    now = time.time()
    inside = rows_by_name(take_snapshot(spec, store, now=now, window_min=15))
    assert inside["alice"].pace_recent == pytest.approx(5 / 0.25)  # 5 done in the last 15 minutes
    later = rows_by_name(take_snapshot(spec, store, now=now + 16 * 60, window_min=15))
    assert later["alice"].pace_recent == 0
    with pytest.raises(ValueError, match="window"):
        take_snapshot(spec, store, window_min=0)


def test_who_is_working_and_pace_per_hour_open(built) -> None:
    spec, store = built
    started = time.time()
    open_sitting(store, "alice", pid=os.getpid(), now=started + 1800)  # last beat 30 minutes after it opened
    rows = rows_by_name(take_snapshot(spec, store, now=started + 1800))
    assert rows["alice"].working == "terminal" and rows["bob"].working is None
    assert rows["alice"].pace_overall == pytest.approx(5 / 0.5, rel=0.01)
    assert rows["bob"].pace_overall is None  # never had the app open


def test_open_flags_when_the_file_keeps_them(built) -> None:
    spec, store = built
    conn = sqlite3.connect(spec.db)
    with conn:
        if not conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'flags'").fetchone():
            conn.execute(  # the shape of the flags migration (branch `annotator`)
                "CREATE TABLE flags (id INTEGER PRIMARY KEY AUTOINCREMENT, uid TEXT NOT NULL, assignment_id INTEGER"
                " NOT NULL, item_id TEXT NOT NULL, annotator_id INTEGER NOT NULL, kind TEXT NOT NULL, note TEXT NOT"
                " NULL DEFAULT '', created TEXT NOT NULL, cleared TEXT, cleared_by TEXT, clear_note TEXT NOT NULL"
                " DEFAULT '')"
            )
        bob = conn.execute("SELECT id FROM annotators WHERE name = 'bob'").fetchone()[0]
        assignment = conn.execute("SELECT id FROM assignments WHERE annotator_id = ?", [bob]).fetchone()[0]
        for uid, cleared in (("f1", None), ("f2", None), ("f3", "2026-01-01T00:00:00.000+00:00")):
            conn.execute("INSERT INTO flags (uid, assignment_id, item_id, annotator_id, kind, note, created, cleared)"
                         " VALUES (?, ?, 'i0', ?, 'broken', '[red]x[/red]', '2026-01-01', ?)",
                         [uid, assignment, bob, cleared])
    conn.close()
    rows = rows_by_name(take_snapshot(spec, store))
    assert rows["bob"].open_flags == 2 and rows["alice"].open_flags == 0


def test_a_watching_store_reads_and_never_writes_nor_locks(built) -> None:
    spec, store = built
    before = take_snapshot(spec, store)
    with open_store(spec, read_only=True) as watcher:
        assert watcher.read_only
        watched = take_snapshot(spec, watcher)
        assert watched.annotators == before.annotators and watched.alpha == before.alpha
        with pytest.raises(SessionFileError, match="read-only"):
            watcher.set_meta("x", "y")
        watcher.db.execute("BEGIN")  # a reader in the middle of a refresh
        watcher.db.execute("SELECT count(*) FROM judgments").fetchone()
        other = sqlite3.connect(spec.db, timeout=0)  # a writer does not wait for it
        other.execute("BEGIN IMMEDIATE")
        other.execute("INSERT INTO meta (key, value) VALUES ('written', 'while watched')")
        other.execute("COMMIT")
        other.close()
        watcher.db.execute("COMMIT")
        assert watcher.get_meta("written") == "while watched"


def test_a_read_only_open_of_a_missing_file_creates_nothing(tmp_path: Path) -> None:
    with pytest.raises(SessionFileError):
        Store.open(tmp_path / "none.db", create=True, read_only=True)
    assert not (tmp_path / "none.db").exists()


def _graded_session(tmp_path: Path, kind: str, labels: dict[str, list[str]], gold: str | None,
                    design: str = "outcomes"):
    from annotate.model import Assignment, Item, Judgment, Message, Response, Timings
    from annotate.session import create_session
    from annotate.store import utc_now

    spec = create_session("g", kind, seed=1, folder=tmp_path / "sessions", design=design)
    store = open_store(spec)
    slots = ("A",) if kind == "single" else ("A", "B")
    items = [Item(id=f"u{k}", kind="single" if kind == "single" else "pairwise",
                  conversation=(Message("user", "q"),), responses=tuple(Response(s, f"r{s}{k}", "m") for s in slots),
                  gold=gold if k == 0 else None) for k in range(len(next(iter(labels.values()))))]
    store.add_items(items)
    plan = [Assignment(0, who, f"u{k}", k) for who, answers in labels.items() for k in range(len(answers))]
    for a in store.add_assignments(plan):
        label = labels[a.annotator][int(a.item_id[1:])]
        store.submit(Judgment(a.id, label, Timings(utc_now(), 1, 5000, 4000)), shown=a)
    return spec, store


def test_single_grades_gold_and_ordinal_alpha(tmp_path: Path) -> None:
    grades = {"ann": ["3", "5", "7", "2"], "ben": ["3", "6", "7", "9"], "cat": ["4", "5", "8", "2"]}
    spec, store = _graded_session(tmp_path, "single", grades, gold="3")
    try:
        snap = take_snapshot(spec, store)
        rows = rows_by_name(snap)
        assert (rows["ann"].gold_correct, rows["ann"].gold, rows["cat"].gold_correct) == (1, 1, 0)
        matrix = np.array([[float(grades[r][u]) for r in ("ann", "ben", "cat")] for u in range(4)])
        expected = krippendorff_alpha(matrix, "ordinal", categories=list(range(1, 11)), n_boot=0).estimate
        assert snap.alpha.level == "ordinal" and snap.alpha.value == pytest.approx(expected)
    finally:
        store.close()


def test_graded_strengths_are_checked_against_gold_by_their_preference(tmp_path: Path) -> None:
    strengths = {"ann": ["+2", "-1", "0"], "ben": ["+1", "-1", "+1"]}
    spec, store = _graded_session(tmp_path, "pairwise", strengths, gold="A", design="graded-5")
    try:
        assert spec.schema.level == "ordinal"
        rows = rows_by_name(take_snapshot(spec, store))
        assert (rows["ann"].gold_correct, rows["ann"].gold) == (1, 1)  # +2 is A better, as gold A says
        assert (rows["ann"].pairs_agreeing, rows["ann"].pairs) == (1, 3)  # the same strength on u1 only
    finally:
        store.close()


def test_rubric_sessions_show_progress_and_say_why_no_alpha(tmp_path: Path) -> None:
    from annotate.model import Assignment, Item, Judgment, Message, Response, Timings
    from annotate.session import create_session
    from annotate.store import utc_now

    spec = create_session("r", "rubric", seed=1, folder=tmp_path / "sessions")
    with open_store(spec) as store:
        store.add_items([Item(id="x", kind="single", conversation=(Message("user", "q"),),
                              responses=(Response("A", "r", "m"),))])
        a = store.add_assignments([Assignment(0, "ann", "x", 0)])[0]
        scores = {c.name: 2 for c in spec.schema.criteria}
        store.submit(Judgment(a.id, None, Timings(utc_now(), 1, 2000, 1000), scores=scores), shown=a)
        snap = take_snapshot(spec, store)
    row = snap.annotators[0]
    assert (row.done, row.timed, row.fast, row.gold) == (1, 1, 1, 0)
    assert snap.alpha.value is None and "rubric" in snap.alpha.reason
