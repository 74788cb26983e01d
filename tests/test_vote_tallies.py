"""The vote tallies behind the live dashboard (migration v12) always equal a recount of the rows, whatever
wrote them, and the dashboard's figures from them equal the figures from a scan of the judgments."""

from __future__ import annotations

import random
import sqlite3
from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest
from conftest import make_item

from annotate.dashboard import gold_rows, label_rows, snapshot_of, take_snapshot
from annotate.formats import import_labels
from annotate.model import Assignment, ExternalLabel, Judgment, Suggestion, Timings
from annotate.quality_rules import FAST_MS
from annotate.session import create_session, open_store
from annotate.spec import SessionSpec
from annotate.store import Store
from annotate.store.backup import backup_session
from annotate.store.merge import merge_session
from annotate.store.progress import progress_counts
from annotate.store.progress_scan import scan_progress_counts
from annotate.store.schema import MIGRATIONS, SCHEMA_VERSION, _v12_dashboard_tallies
from tests.dashboard_util import build_session
from tests.migration_util import drop_item_facts, drop_open_queue, drop_vote_tallies

LABELS = ("A", "B", "tie", "both_bad", "tie_inconsistent")
SINCE = "2026-11-30T10:00:30.000+00:00"


def recount_votes(db: sqlite3.Connection) -> dict[str, Counter]:
    """The vote tallies computed in Python from the judgments, assignments and suggestions."""
    votes = {}
    for jid, r, u, label, purpose, ms, superseded, skip, planted in db.execute(
        "SELECT j.id, a.annotator_id, a.item_id, j.label, a.purpose, coalesce(j.active_ms, j.submit_ms),"
        " j.superseded_by, j.skip_reason, s.planted FROM judgments j JOIN assignments a ON a.id = j.assignment_id"
        " LEFT JOIN suggestions s ON s.id = a.suggestion_id"
    ):
        if superseded is None and skip is None and purpose != "adjudication" and not planted:
            votes[jid] = (r, u, label or "", purpose, ms)
    labels: Counter = Counter()
    for r, _, label, _, ms in votes.values():
        labels[r, label, "votes"] += 1
        labels[r, label, "timed"] += ms is not None
    chosen: dict[tuple[str, int], tuple[tuple[bool, int], str]] = {}
    for jid, (r, u, label, purpose, _) in votes.items():
        if purpose != "attention":
            key = (purpose != "main", jid)
            if (u, r) not in chosen or key < chosen[u, r][0]:
                chosen[u, r] = (key, label)
    by_item: dict[str, list[tuple[int, str]]] = {}
    for (u, r), (_, label) in chosen.items():
        by_item.setdefault(u, []).append((r, label))
    units: Counter = Counter()
    coincidences: Counter = Counter()
    agreement: Counter = Counter()
    for one in by_item.values():
        units[(len(one),)] += 1
        for r, c in one:
            for r2, k in one:
                if r != r2:
                    coincidences[len(one), c, k] += 1
                    agreement[r, c, k] += 1
    return {
        "vote_index": Counter({(jid, *v): 1 for jid, v in votes.items()}), "vote_label_tally": labels,
        "one_vote": Counter({(u, r, label): 1 for (u, r), (_, label) in chosen.items()}),
        "unit_tally": units, "coincidence_tally": coincidences, "agreement_tally": agreement,
    }


def stored_votes(db: sqlite3.Connection) -> dict[str, Counter]:
    """The vote tallies as the triggers keep them (rows counting zero left out)."""
    labels: Counter = Counter()
    for r, label, n, timed in db.execute("SELECT annotator_id, label, votes, timed FROM vote_label_tally"):
        labels[r, label, "votes"] += n
        labels[r, label, "timed"] += timed

    def counted(sql: str) -> Counter:
        return Counter({tuple(row[:-1]): row[-1] for row in db.execute(sql)})

    return {
        "vote_index": Counter({row: 1 for row in db.execute(
            "SELECT judgment_id, annotator_id, item_id, label, purpose, ms FROM vote_index")}),
        "vote_label_tally": labels,
        "one_vote": Counter({row: 1 for row in db.execute("SELECT item_id, annotator_id, label FROM one_vote")}),
        "unit_tally": counted("SELECT m, items FROM unit_tally"),
        "coincidence_tally": counted("SELECT m, c, k, pairs FROM coincidence_tally"),
        "agreement_tally": counted("SELECT annotator_id, c, k, pairs FROM agreement_tally"),
    }


def check_votes(store: Store) -> None:
    def nonzero(tallies: dict[str, Counter]) -> dict[str, dict]:
        return {name: {k: v for k, v in counter.items() if v} for name, counter in tallies.items()}

    assert nonzero(stored_votes(store.db.conn)) == nonzero(recount_votes(store.db.conn))


def same_counts(spec: SessionSpec, store: Store) -> None:
    """progress_counts from the tallies equals the scan: integers exactly, times and o_ck to rounding."""
    labels, gold = label_rows(spec.schema.primary), gold_rows(spec)
    tallied = progress_counts(store, labels=labels, gold=gold, since=SINCE, fast_ms=FAST_MS)
    scanned = scan_progress_counts(store, labels=labels, gold=gold, since=SINCE, fast_ms=FAST_MS)
    assert tallied.items == scanned.items and tallied.has_flags == scanned.has_flags
    assert tallied.annotators == scanned.annotators
    assert tallied.coincidences.items == scanned.coincidences.items
    assert cells(tallied) == pytest.approx(cells(scanned), rel=1e-12)


def cells(counts) -> dict[tuple[str, str], float]:
    return {(c, k): v for c, k, v in counts.coincidences.cells if v}


def timings(active: int | None, second: int) -> Timings:
    return Timings(f"2026-11-30T10:00:{second:02d}.000+00:00", 100, (active or 0) + 50, active)


def test_random_writes_through_the_public_api_keep_the_vote_tallies_exact(tmp_path: Path) -> None:
    for seed in range(3):
        spec = create_session(f"votes{seed}", "pairwise", seed=seed, folder=tmp_path / f"s{seed}")
        with open_store(spec) as store:
            random_writes(spec, store, random.Random(seed), tmp_path / f"w{seed}")


def random_writes(
    spec: SessionSpec, store: Store, rng: random.Random, work: Path, check: Callable[[Store], None] = check_votes
) -> None:
    """70 random writes through the public API, with `check` run on the session (and on copies made
    and answered elsewhere) after every one."""
    work.mkdir()
    store.add_items([make_item(f"i{k}", gold=rng.choice([None, None, "A", "B"])) for k in range(12)])
    purposes = ["main", "main", "main", "gold", "repeat", "attention"]
    plan = [Assignment(0, name, f"i{rng.randrange(12)}", position, bool(position % 2), purpose=rng.choice(purposes))
            for name in ("alice", "bob", "carol", "dana") for position in range(10)]
    plan += [Assignment(0, "erin", f"i{k}", k, False, purpose="adjudication") for k in range(4)]
    stored = store.add_assignments(plan)
    suggestions = store.add_suggestions([Suggestion(f"i{k}", "judge", "A", planted=True) for k in range(4)])
    check(store)
    for step in range(70):
        op = rng.random()
        if op < 0.6:  # a submit, a revision (a changed answer) or a skip
            a = rng.choice(stored)
            label = rng.choice([*LABELS, None])
            active = rng.choice([None, rng.randint(0, 20000)])
            store.submit(Judgment(a.id, label, timings(active, step % 60), skip_reason=None if label else "unsure"))
        elif op < 0.7:  # a planted suggestion put on an assignment, or taken off
            a = rng.choice(stored)
            planted = rng.choice([None, rng.choice(suggestions).id])
            store.set_assignment_design([(a.id, "upfront" if planted else "none", planted)])
        elif op < 0.75:
            store.delete_unused_planted_suggestions()
            suggestions = store.add_suggestions([Suggestion(f"i{rng.randrange(12)}", "judge", "B", planted=True)])
        elif op < 0.82:  # a plan change: untouched assignments go, new ones come
            untouched = [a.id for a in store.untouched_assignments(tuple(purposes))]
            store.delete_assignments(rng.sample(untouched, min(2, len(untouched))))
            store.add_assignments([Assignment(0, rng.choice(["alice", "frank"]), f"i{rng.randrange(12)}",
                                              100 + step, False, purpose=rng.choice(purposes))])
            stored = store.assignments()
        elif op < 0.88:  # labels made elsewhere: `annotate labels import` and the store's own call
            votes = work / f"votes{step}.csv"
            votes.write_text("item,rater,label\n" + "".join(f"i{rng.randrange(12)},r{k},{rng.choice(LABELS[:4])}\n"
                                                           for k in range(3)))
            import_labels(store, spec.schema, votes, cohort="crowd")
            store.add_external_labels([ExternalLabel("direct", "gpt", "llm", f"i{rng.randrange(12)}", "A")])
        elif op < 0.94:  # a copy answered elsewhere, merged back
            copy = work / f"copy{step}.db"
            backup_session(store, copy)
            with Store.open(copy) as other:
                check(other)  # the backup keeps the tallies and their triggers
                for a in rng.sample(other.assignments(), 3):
                    label = rng.choice(LABELS)
                    other.submit(Judgment(a.id, label, timings(rng.randint(0, 9000), step % 60)))
                check(other)
            merge_session(store, copy, prefer=rng.choice(["copy", "here"]))
        else:
            stored = store.assignments()
        check(store)
        if step % 10 == 9:
            same_counts(spec, store)
    same_counts(spec, store)


def strip_vote_tallies(path: Path) -> None:
    """Make the file what annotate wrote before migration v12 (whatever came before it stays)."""
    conn = sqlite3.connect(path)
    drop_vote_tallies(conn)
    drop_open_queue(conn)  # the migrations after it
    drop_item_facts(conn)
    conn.execute(f"PRAGMA user_version = {MIGRATIONS.index(_v12_dashboard_tallies)}")
    conn.commit()
    conn.close()


def test_an_older_file_migrates_and_its_tallies_equal_a_recount(tmp_path: Path) -> None:
    spec, store = build_session(tmp_path)
    expected = take_snapshot(spec, store, now=2e9)
    path = store.path
    store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    store.close()
    strip_vote_tallies(path)
    with open_store(spec) as migrated:
        assert migrated.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        check_votes(migrated)
        assert stored_votes(migrated.db.conn)["one_vote"]  # the backfill counted the votes already there
        assert take_snapshot(spec, migrated, now=2e9) == expected
        same_counts(spec, migrated)


def test_the_dashboard_shows_the_same_figures_as_the_scan(tmp_path: Path) -> None:
    """take_snapshot on the tallies against the same snapshot from the scan of the judgments (the old computation)."""
    spec = create_session("same", "pairwise", seed=5, folder=tmp_path / "sessions")
    with open_store(spec) as store:
        random_writes(spec, store, random.Random(11), tmp_path / "work")
        now = 1.8e9
        tallied = take_snapshot(spec, store, now=now, window_min=1e9)
        since = datetime.fromtimestamp(now - 1e9 * 60, UTC).isoformat(timespec="milliseconds")
        counts = scan_progress_counts(store, labels=label_rows(spec.schema.primary), gold=gold_rows(spec),
                                      since=since, fast_ms=FAST_MS)
        scanned = snapshot_of(spec, counts, {}, now, 1e9)
    assert tallied.annotators == scanned.annotators and tallied.items == scanned.items
    assert tallied.alpha.value == pytest.approx(scanned.alpha.value, rel=1e-12)
    assert (tallied.alpha.items, tallied.alpha.values) == (scanned.alpha.items, scanned.alpha.values)
    assert sum(a.pairs for a in tallied.annotators) > 0 and tallied.alpha.items > 0
    assert sum(a.pace_recent for a in tallied.annotators) > 0 and sum(a.gold for a in tallied.annotators) > 0


def test_a_vote_with_a_label_the_schema_does_not_know_leaves_agreement_to_the_scan(tmp_path: Path) -> None:
    spec, store = build_session(tmp_path)
    try:
        # bob answers i0 again as a repeat; his main vote there then carries a label no schema value matches
        repeat = store.add_assignments([Assignment(0, "bob", "i0", 50, False, purpose="repeat")])[0]
        store.submit(Judgment(repeat.id, "B", timings(3000, 1)))
        main = next(a for a in store.assignments("bob") if a.item_id == "i0" and a.purpose == "main")
        store.submit(Judgment(main.id, "unknown-label", timings(3000, 2)))
        check_votes(store)
        same_counts(spec, store)
    finally:
        store.close()


def test_a_vote_on_a_crowded_item_costs_in_proportion_to_its_votes_not_their_square(tmp_path: Path) -> None:
    """Sixty annotators vote on one item (and some change their answer): the tallies equal a recount, and
    the 60th vote runs under six times the SQLite steps of the 10th (linear in the item's votes; the
    self-join of the item's votes before v15 took about 24 times)."""
    with Store.open(tmp_path / "s.db", create=True) as store:
        store.add_items([make_item("i0")])
        stored = store.add_assignments([Assignment(0, f"r{n:02d}", "i0", 0, False) for n in range(60)])
        steps: dict[int, int] = {}
        counter = [0]

        def tick() -> int:
            counter[0] += 1
            return 0

        store.db.conn.set_progress_handler(tick, 10)
        for m, a in enumerate(stored, start=1):
            counter[0] = 0
            store.submit(Judgment(a.id, LABELS[m % 3], timings(1000, 0)))
            steps[m] = counter[0]
        store.db.conn.set_progress_handler(None, 0)
        for a in stored[::7]:  # revisions: the one_vote goes out and comes back with another label
            store.submit(Judgment(a.id, "both_bad", timings(1000, 0)))
        check_votes(store)
        assert steps[60] < 6 * steps[10], steps
