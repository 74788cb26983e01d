"""Flags in the session file (annotate.flags): written by the app, listed and cleared by the lead.

A flag is written with the events that led to it, in one transaction, on the assignment exactly as
the screen showed it (StaleAssignment otherwise, as for a submit). Clearing never deletes: it
stamps who cleared the flag, when, and why.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

from annotate.flags import Flag, check_flag
from annotate.model import Assignment, Event
from annotate.store.store import Store, new_uid, utc_now

_COLUMNS = (
    "f.id, f.uid, f.assignment_id, f.item_id, n.name, f.kind, f.note, f.created, f.cleared, f.cleared_by,"
    " f.clear_note"
)
_FROM = " FROM flags f JOIN annotators n ON n.id = f.annotator_id"


def _flag(row: Sequence[Any]) -> Flag:
    return Flag(
        id=row[0], uid=row[1], assignment_id=row[2], item_id=row[3], annotator=row[4], kind=row[5], note=row[6],
        created=row[7], cleared=row[8], cleared_by=row[9], clear_note=row[10] or "",
    )


def add_flag(store: Store, flag: Flag, events: Iterable[Event] = (), *, shown: Assignment | None = None) -> Flag:
    """Store a flag (and the events that led to it) on its assignment; the stored Flag."""
    note = check_flag(flag.kind, flag.note)
    uid = flag.uid or new_uid()
    created = flag.created or utc_now()
    event_rows = store._event_rows(events)
    with store.transaction() as db:
        assignment = store._check_assignment(flag.assignment_id, shown)
        annotator = store.annotator(assignment.annotator)
        assert annotator is not None
        cursor = db.execute(
            "INSERT INTO flags (uid, assignment_id, item_id, annotator_id, kind, note, created)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            [uid, assignment.id, assignment.item_id, annotator.id, flag.kind, note, created],
        )
        store._insert_events(db, event_rows, judgment_id=None)
    return replace(flag, id=int(cursor.lastrowid or 0), uid=uid, created=created, note=note,
                   item_id=assignment.item_id, annotator=assignment.annotator)


def withdraw_flags(store: Store, assignment: Assignment, events: Iterable[Event] = ()) -> int:
    """The annotator withdraws their open flags on `assignment` (cleared by them); how many."""
    event_rows = store._event_rows(events)
    with store.transaction() as db:
        store._check_assignment(assignment.id, assignment)
        cursor = db.execute(
            "UPDATE flags SET cleared = ?, cleared_by = ?, clear_note = 'withdrawn'"
            " WHERE assignment_id = ? AND cleared IS NULL", [utc_now(), assignment.annotator, assignment.id],
        )
        store._insert_events(db, event_rows, judgment_id=None)
    return cursor.rowcount


def open_flags(store: Store, assignment_ids: Sequence[int]) -> dict[int, list[Flag]]:
    """Assignment id -> its open flags (oldest first), for the assignments given that have any."""
    found: dict[int, list[Flag]] = {}
    for start in range(0, len(assignment_ids), 500):
        chunk = list(assignment_ids[start : start + 500])
        marks = ",".join("?" * len(chunk))
        for row in store.db.execute(
            f"SELECT {_COLUMNS}{_FROM} WHERE f.assignment_id IN ({marks}) AND f.cleared IS NULL ORDER BY f.id", chunk,
        ):
            flag = _flag(row)
            found.setdefault(flag.assignment_id, []).append(flag)
    return found


def flags(store: Store, *, include_cleared: bool = False, item_id: str | None = None) -> list[Flag]:
    """Flags in the order they were made (open ones only unless `include_cleared`)."""
    where, params = [], []
    if not include_cleared:
        where.append("f.cleared IS NULL")
    if item_id is not None:
        where.append("f.item_id = ?")
        params.append(item_id)
    clause = f" WHERE {' AND '.join(where)}" if where else ""
    return [_flag(r) for r in store.db.execute(f"SELECT {_COLUMNS}{_FROM}{clause} ORDER BY f.id", params)]


def flag_rows(store: Store) -> Iterator[dict[str, Any]]:
    """Every flag with its assignment's position and purpose, for the export (read a row at a time)."""
    cursor = store.db.execute(
        f"SELECT {_COLUMNS}, a.position, a.purpose{_FROM} JOIN assignments a ON a.id = f.assignment_id ORDER BY f.id"
    )
    for row in cursor:
        flag = _flag(row)
        yield {
            "id": flag.id, "item": flag.item_id, "annotator": flag.annotator, "kind": flag.kind, "note": flag.note,
            "created": flag.created, "position": row[11], "purpose": row[12], "cleared": flag.cleared,
            "cleared_by": flag.cleared_by, "clear_note": flag.clear_note or None, "uid": flag.uid,
        }


@dataclass(frozen=True)
class FlagCounts:
    """Open flags by kind, items with an open flag, and flags cleared."""

    open: Counter[str]
    items: int
    cleared: int

    @property
    def total_open(self) -> int:
        return sum(self.open.values())


def flag_counts(store: Store) -> FlagCounts:
    """How many flags are open (by kind), on how many items, and how many were cleared (one query)."""
    rows = store.db.execute(
        "SELECT kind, cleared IS NULL, count(*) FROM flags GROUP BY kind, cleared IS NULL"
    ).fetchall()
    items = store.db.execute("SELECT count(DISTINCT item_id) FROM flags WHERE cleared IS NULL").fetchone()[0]
    open_ = Counter({kind: n for kind, is_open, n in rows if is_open})
    cleared = sum(n for _kind, is_open, n in rows if not is_open)
    return FlagCounts(open_, int(items), cleared)


def clear_flags(store: Store, *, by: str, note: str = "", flag_id: int | None = None,
                item_id: str | None = None) -> list[Flag]:
    """Clear one open flag (`flag_id`) or every open flag on an item (`item_id`); the flags cleared.
    ValueError when there is no such open flag."""
    if (flag_id is None) == (item_id is None):
        raise ValueError("clear one flag (its id) or the flags of one item")
    with store.transaction() as db:
        where, param = ("f.id = ?", flag_id) if flag_id is not None else ("f.item_id = ?", item_id)
        found = [_flag(r) for r in db.execute(f"SELECT {_COLUMNS}{_FROM} WHERE {where} ORDER BY f.id", [param])]
        if not found:
            what = f"flag {flag_id}" if flag_id is not None else "the item"
            raise ValueError(f"no flag: {what} was never flagged" if item_id is not None else f"no {what}")
        still = [f for f in found if f.cleared is None]
        if not still:
            raise ValueError(f"already cleared: {'flag' if flag_id is not None else 'every flag of the item'}"
                             f" (by {found[-1].cleared_by}, {found[-1].cleared})")
        now = utc_now()
        for flag in still:
            db.execute("UPDATE flags SET cleared = ?, cleared_by = ?, clear_note = ? WHERE id = ?",
                       [now, by, note.strip(), flag.id])
    return [replace(f, cleared=now, cleared_by=by, clear_note=note.strip()) for f in still]
