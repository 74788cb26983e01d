"""Training rounds in the session file (annotate.training): items, answers and the lead's word.

Training items, answers and overrides have tables of their own (schema v11), never items,
assignments or judgments, so every reader of the main queue leaves them out by construction.
Each write is one transaction; an answer is stored in slot space on the round's row as shown.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from annotate.model import Item
from annotate.spec import SessionSpec
from annotate.store.codec import content_hash, dumps, item_from_row, item_payload
from annotate.store.store import AddResult, ItemConflict, Store, utc_now
from annotate.training import OVERRIDE_ACTIONS, TrainingEntry, TrainingItem, TrainingState, round_order

_ENTRY = ("SELECT t.id, n.name, t.item_id, t.attempt, t.position, t.swapped, t.label, t.answered_at,"
          " t.acknowledged_at FROM training_answers t JOIN annotators n ON n.id = t.annotator_id")


def _entry(row: Sequence[Any]) -> TrainingEntry:
    return TrainingEntry(id=row[0], annotator=row[1], item_id=row[2], attempt=row[3], position=row[4],
                         swapped=bool(row[5]), label=row[6], answered_at=row[7], acknowledged_at=row[8])


def has_training_tables(store: Store) -> bool:
    """Whether the file has the training tables (a read-only file of an older version may not)."""
    return store.db.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'training_items'").fetchone() is not None


def add_training_items(store: Store, items: Sequence[TrainingItem], source: str = "") -> AddResult:
    """Add training items atomically; an id stored with the same content is left alone, with other
    content the whole add is refused (ItemConflict naming the id). A training id may not be a main
    item's id either: the two never mix."""
    created = utc_now()
    with store.transaction() as db:
        added = 0
        for training in items:
            item = training.item
            payload = item_payload(item)
            digest = content_hash(item) + ":" + dumps(training.explanation)
            row = db.execute("SELECT content_hash FROM training_items WHERE id = ?", [item.id]).fetchone()
            if row is not None:
                if row[0] != digest:
                    raise ItemConflict(f"training item id {item.id!r} is already stored with different content;"
                                       " give the new version another id")
                continue
            if db.execute("SELECT 1 FROM items WHERE id = ?", [item.id]).fetchone() is not None:
                raise ItemConflict(f"training item id {item.id!r} is a main item's id; training items need ids"
                                   " of their own")
            db.execute(
                "INSERT INTO training_items (id, item, gold, explanation, content_hash, source, created)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                [item.id, dumps(payload), item.gold, training.explanation, digest, source, created],
            )
            added += 1
    return AddResult(added=added, unchanged=len(items) - added)


def training_items(store: Store) -> list[TrainingItem]:
    """Every training item, in the order they were imported."""
    if not has_training_tables(store):
        return []
    rows = store.db.execute("SELECT item, explanation FROM training_items ORDER BY rowid").fetchall()
    return [TrainingItem(_item(json.loads(raw)), explanation) for raw, explanation in rows]


def _item(payload: dict[str, Any]) -> Item:
    return item_from_row({
        "id": payload["id"], "kind": payload["kind"], "conversation": json.dumps(payload["conversation"]),
        "responses": json.dumps(payload["responses"]), "category": payload["category"], "gold": payload["gold"],
        "metadata": json.dumps(payload["metadata"]),
    })


def count_training_items(store: Store) -> int:
    if not has_training_tables(store):
        return 0
    return int(store.db.execute("SELECT count(*) FROM training_items").fetchone()[0])


def round_entries(store: Store, annotator: str, attempt: int | None = None) -> list[TrainingEntry]:
    """The annotator's entries of round `attempt` (default: their latest), in display order."""
    if not has_training_tables(store):
        return []
    if attempt is None:
        attempt = latest_attempt(store, annotator)
    rows = store.db.execute(f"{_ENTRY} WHERE n.name = ? AND t.attempt = ? ORDER BY t.position",
                            [annotator, attempt]).fetchall()
    return [_entry(r) for r in rows]


def latest_attempt(store: Store, annotator: str) -> int:
    row = store.db.execute(
        "SELECT max(t.attempt) FROM training_answers t JOIN annotators n ON n.id = t.annotator_id WHERE n.name = ?",
        [annotator]).fetchone()
    return int(row[0] or 0)


def start_round(store: Store, spec: SessionSpec, annotator: str) -> list[TrainingEntry]:
    """The annotator's current round: the latest one, or (none yet) a first one made now from
    every training item in their seeded, counterbalanced order (annotate.training.round_order)."""
    entries = round_entries(store, annotator)
    if entries:
        return entries
    return new_round(store, spec, annotator)


def new_round(store: Store, spec: SessionSpec, annotator: str) -> list[TrainingEntry]:
    """Store round latest + 1 for `annotator` (a first round, or a retry) and return it."""
    ids = [t.item.id for t in training_items(store)]
    if not ids:
        raise ValueError("the session has no training items: import some (`annotate import SESSION FILE --training`)")
    with store.transaction() as db:
        annotator_id = store.ensure_annotator(annotator).id
        attempt = latest_attempt(store, annotator) + 1
        rows = [(annotator_id, item_id, attempt, position, int(swapped))
                for position, (item_id, swapped) in enumerate(round_order(ids, spec.seed, annotator, attempt))]
        db.conn.executemany("INSERT INTO training_answers (annotator_id, item_id, attempt, position, swapped)"
                       " VALUES (?, ?, ?, ?, ?)", rows)
    return round_entries(store, annotator, attempt)


def answer(store: Store, entry: TrainingEntry, label: str) -> TrainingEntry:
    """Store the slot-space answer to `entry` (once: a training answer is never revised)."""
    with store.transaction() as db:
        now = utc_now()
        cursor = db.execute("UPDATE training_answers SET label = ?, answered_at = ? WHERE id = ? AND label IS NULL",
                            [label, now, entry.id])
        if cursor.rowcount != 1:
            raise ValueError(f"training entry {entry.id} is already answered")
    return _one(store, entry.id)


def acknowledge(store: Store, entry: TrainingEntry) -> TrainingEntry:
    """The annotator dismissed the feedback on `entry`."""
    with store.transaction() as db:
        db.execute("UPDATE training_answers SET acknowledged_at = ? WHERE id = ? AND acknowledged_at IS NULL",
                   [utc_now(), entry.id])
    return _one(store, entry.id)


def _one(store: Store, entry_id: int) -> TrainingEntry:
    return _entry(store.db.execute(f"{_ENTRY} WHERE t.id = ?", [entry_id]).fetchone())


def set_override(store: Store, annotator: str, action: str, by: str, note: str = "") -> None:
    """Record the lead's word on `annotator`: `pass` (open the main queue) or `revoke` (take it back)."""
    if action not in OVERRIDE_ACTIONS:
        raise ValueError(f"override must be one of {', '.join(OVERRIDE_ACTIONS)}, not {action!r}")
    with store.transaction() as db:
        annotator_id = store.ensure_annotator(annotator).id
        db.execute("INSERT INTO training_overrides (annotator_id, action, by, note, created) VALUES (?, ?, ?, ?, ?)",
                   [annotator_id, action, by, note, utc_now()])


def training_states(store: Store, spec: SessionSpec, names: Iterable[str] = ()) -> list[TrainingState]:
    """Per annotator (everyone with a round or an override, and `names`), their latest round's
    counts and the lead's latest word, by name. Reads aggregates: one row per annotator."""
    if spec.training is None:
        return []
    total = count_training_items(store)
    rows: dict[str, list[Any]] = {n: [0, 0, 0, None] for n in names}
    if has_training_tables(store):
        for name, attempt, answered, correct in store.db.execute(
            "SELECT n.name, t.attempt, count(t.label), sum(t.label = i.gold) FROM training_answers t"
            " JOIN annotators n ON n.id = t.annotator_id JOIN training_items i ON i.id = t.item_id"
            " WHERE t.attempt = (SELECT max(u.attempt) FROM training_answers u WHERE u.annotator_id = t.annotator_id)"
            " GROUP BY n.name, t.attempt"
        ):
            rows[name] = [attempt, answered, int(correct or 0), None]
        for name, action in store.db.execute(
            "SELECT n.name, o.action FROM training_overrides o JOIN annotators n ON n.id = o.annotator_id"
            " WHERE o.id = (SELECT max(p.id) FROM training_overrides p WHERE p.annotator_id = o.annotator_id)"
        ):
            rows.setdefault(name, [0, 0, 0, None])[3] = action
    return [TrainingState(name, attempt, total, answered, correct, spec.training.pass_threshold,
                          spec.training.retries, override)
            for name, (attempt, answered, correct, override) in sorted(rows.items())]


def training_state(store: Store, spec: SessionSpec, annotator: str) -> TrainingState | None:
    """The annotator's state, or None when the session has no training round (no [training]
    table, or no training items imported)."""
    if spec.training is None or count_training_items(store) == 0:
        return None
    return next(s for s in training_states(store, spec, [annotator]) if s.annotator == annotator)


def all_answers(store: Store) -> list[tuple[TrainingEntry, str]]:
    """Every answered training entry with its item's gold label (for the report)."""
    if not has_training_tables(store):
        return []
    rows = store.db.execute(
        f"{_ENTRY.replace('SELECT ', 'SELECT i.gold, ', 1)} JOIN training_items i ON i.id = t.item_id"
        " WHERE t.label IS NOT NULL ORDER BY n.name, t.attempt, t.position").fetchall()
    return [(_entry(r[1:]), r[0]) for r in rows]
