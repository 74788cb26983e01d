"""The copy's annotators, items and assignments matched to this file's by natural key, created here when
their place is free, or recorded as conflicts of place."""

from __future__ import annotations

from typing import Any

from annotate.store.merge.results import MergeConflict, _Counts
from annotate.store.merge.source import _columns, _Source
from annotate.store.store import utc_now


class _Annotators:
    """Maps the other file's annotator ids to this file's, creating annotators as needed."""

    def __init__(self, db: Any, source: _Source, counts: _Counts) -> None:
        self.db = db
        self.source = source
        self.counts = counts
        self.ids: dict[int, int | None] = {}

    def get(self, other_id: int) -> int | None:
        """This file's id, or None when the name is here with another cohort."""
        if other_id in self.ids:
            return self.ids[other_id]
        name, cohort, created = self.source.annotators[other_id]
        row = self.db.execute("SELECT id, cohort FROM annotators WHERE name = ?", [name]).fetchone()
        if row is None:
            cursor = self.db.execute(
                "INSERT INTO annotators (name, cohort, created) VALUES (?, ?, ?)", [name, cohort, created or utc_now()]
            )
            self.counts.annotators += 1
            found: int | None = int(cursor.lastrowid or 0)
        else:
            found = row[0] if row[1] == cohort else None
        self.ids[other_id] = found
        return found

    def cohort_here(self, other_id: int) -> str:
        name = self.source.annotators[other_id][0]
        row = self.db.execute("SELECT cohort FROM annotators WHERE name = ?", [name]).fetchone()
        return "" if row is None else row[0]


def _map_assignment(db: Any, source: _Source, other_id: int, annotators: _Annotators, counts: _Counts) -> int | None:
    """This file's id for the other file's assignment, created when its place is free; None
    (and a conflict recorded) when it cannot be matched."""
    row = source.assignments[other_id]
    name, item_id, position = source.key(other_id)
    annotator_id = annotators.get(row["annotator_id"])
    if annotator_id is None:
        cohort = source.annotators[row["annotator_id"]][1]
        counts.conflicts.append(MergeConflict(
            name, item_id, position, f"cohort {annotators.cohort_here(row['annotator_id'])}", f"cohort {cohort}",
            "the annotator belongs to another cohort here",
        ))
        return None
    here = db.execute(
        "SELECT id, item_id, swapped, display_order FROM assignments WHERE annotator_id = ? AND position = ?",
        [annotator_id, position],
    ).fetchone()
    order = row.get("display_order") or None  # a copy made before display orders existed has none
    if here is not None:
        if here[1] != item_id:
            counts.conflicts.append(MergeConflict(
                name, item_id, position, f"item {here[1]}", f"item {item_id}",
                "the queues differ: this place holds another item here",
            ))
            return None
        if bool(here[2]) != bool(row["swapped"]):
            counts.conflicts.append(MergeConflict(
                name, item_id, position, f"swapped={bool(here[2])}", f"swapped={bool(row['swapped'])}",
                "the same assignment shows the sides the other way round here",
            ))
            return None
        if (here[3] or None) != order:
            counts.conflicts.append(MergeConflict(
                name, item_id, position, f"display order {here[3] or '-'}", f"display order {order or '-'}",
                "the same assignment shows the responses in another order here",
            ))
            return None
        if not _same_item(db, source, item_id):
            counts.conflicts.append(_item_conflict(name, item_id, position))
            return None
        return int(here[0])
    if not _ensure_item(db, source, item_id, counts):
        counts.conflicts.append(_item_conflict(name, item_id, position))
        return None
    # suggestions are not merged: the assignment keeps its condition, not the link
    cursor = db.execute(
        "INSERT INTO assignments (annotator_id, item_id, position, swapped, condition, purpose, suggestion_id, seed,"
        " created, display_order) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [annotator_id, item_id, position, row["swapped"], row["condition"], row["purpose"], None,
         row["seed"], row.get("created") or utc_now(), order],
    )
    counts.assignments += 1
    return int(cursor.lastrowid or 0)


def _item_conflict(name: str, item_id: str, position: int) -> MergeConflict:
    return MergeConflict(
        name, item_id, position, "item with other content", "item with other content",
        "the item id holds different content in the two files (an item edited in one of them)",
    )


def _same_item(db: Any, source: _Source, item_id: str) -> bool:
    """The item has the same content in both files (recomputed from the copy's row)."""
    here = db.execute("SELECT content_hash FROM items WHERE id = ?", [item_id]).fetchone()
    theirs = source.item(item_id)
    return here is not None and theirs is not None and theirs["content_hash"] == here[0]


def _ensure_item(db: Any, source: _Source, item_id: str, counts: _Counts) -> bool:
    here = db.execute("SELECT content_hash FROM items WHERE id = ?", [item_id]).fetchone()
    if here is not None:
        return _same_item(db, source, item_id)
    theirs = source.item(item_id)
    if theirs is None or not theirs["content_hash"]:
        return False
    columns = [c for c in _columns(db, "items") if c in theirs]
    db.execute(
        f"INSERT INTO items ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})",
        [theirs[c] for c in columns],
    )
    counts.items += 1
    return True
