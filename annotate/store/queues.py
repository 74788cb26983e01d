"""An annotator's queue read a slice at a time, so opening the app costs the same at 100 items
and at a million (DESIGN.md section 8: the app's start and key path never read the whole session).

A queue is an annotator's assignments in position order: every purpose but `adjudication` for
annotating, only `adjudication` for adjudicating. Queue *indexes* (0, 1, 2, ...) count entries of
that queue; *positions* are the stored ones, unique per annotator but not always contiguous (a
first plan drops never-shown default assignments). The counts come from the running tallies of
the tallies migration (v9); every other query walks the covering indexes made by migration 4 (assignments by
annotator, position and purpose; current judgments by assignment), so its cost grows with the rows
it returns or scans, not with the session.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from annotate.model import Assignment, Judgment
from annotate.store.store import Store, _judgment_from_row

_PURPOSE = {False: "a.purpose != 'adjudication'", True: "a.purpose = 'adjudication'"}

_ASSIGNMENT_COLUMNS = (
    "a.id, n.name, a.item_id, a.position, a.swapped, a.condition, a.purpose, a.suggestion_id, a.seed, a.display_order"
)


@dataclass(frozen=True)
class QueueCounts:
    """How many entries a queue has, and how many have a current judgment (skips included) and skips."""

    total: int
    done: int
    skipped: int


def annotator_id(store: Store, annotator: str) -> int | None:
    row = store.db.execute("SELECT id FROM annotators WHERE name = ?", [annotator]).fetchone()
    return None if row is None else int(row[0])


def queue_counts(store: Store, annotator: str, adjudication: bool = False) -> QueueCounts:
    """Entries, answered entries (skips included) and skips of the annotator's queue, from the
    session's running tallies (`annotate.store.tallies`): one row, whatever the queue's length."""
    who = annotator_id(store, annotator)
    if who is None:
        return QueueCounts(0, 0, 0)
    row = store.db.execute(
        'SELECT "assigned", "answered", "skipped" FROM "progress_tally" WHERE "annotator_id" = ?'
        ' AND "adjudication" = ?',
        [who, int(adjudication)],
    ).fetchone()
    return QueueCounts(0, 0, 0) if row is None else QueueCounts(int(row[0]), int(row[1]), int(row[2]))


def queue_slice(
    store: Store, annotator: str, start: int, limit: int, adjudication: bool = False
) -> list[tuple[Assignment, Judgment | None]]:
    """Entries `start` to `start + limit - 1` of the queue, each with its current judgment (or None)."""
    who = annotator_id(store, annotator)
    if who is None:
        return []
    dense = _dense_span(store, who, adjudication)
    if dense is not None:  # entry k is at position first + k: a range seek, however far in the page is
        low = dense[0] + start
        window, params = "a.position >= ? AND a.position < ? ORDER BY a.position", [who, low, low + limit]
    else:
        window, params = "1 ORDER BY a.position LIMIT ? OFFSET ?", [who, limit, start]
    rows = store.db.execute(
        f"SELECT {_ASSIGNMENT_COLUMNS} FROM assignments a JOIN annotators n ON n.id = a.annotator_id"
        f" WHERE a.annotator_id = ? AND {_PURPOSE[adjudication]} AND {window}",
        params,
    ).fetchall()
    entries = [Store._assignment(r) for r in rows]
    current = _current_judgments([a.id for a in entries], store)
    return [(a, current.get(a.id)) for a in entries]


def queue_index(store: Store, annotator: str, position: int, adjudication: bool = False) -> int:
    """The queue index of the entry at `position`: how many entries come before it."""
    who = annotator_id(store, annotator)
    if who is None:
        return 0
    dense = _dense_span(store, who, adjudication)
    if dense is not None:
        first, entries = dense
        return max(0, min(position - first, entries))
    return int(store.db.execute(
        f"SELECT count(*) FROM assignments a WHERE a.annotator_id = ? AND a.position < ? AND {_PURPOSE[adjudication]}",
        [who, position],
    ).fetchone()[0])


def _dense_span(store: Store, who: int, adjudication: bool) -> tuple[int, int] | None:
    """The queue's first position and its number of entries when its positions run without a gap (the
    usual case: a queue is written in order and grows at its end), so that entry k is at the first
    position + k; else None.

    Two seeks at the ends of the queue's index and its tally row, whatever the queue's length."""
    ends = [
        store.db.execute(
            f"SELECT a.position FROM assignments a WHERE a.annotator_id = ? AND {_PURPOSE[adjudication]}"
            f" ORDER BY a.position {order} LIMIT 1", [who],
        ).fetchone()
        for order in ("ASC", "DESC")
    ]
    if ends[0] is None or ends[1] is None:
        return None
    assigned = store.db.execute(
        'SELECT "assigned" FROM "progress_tally" WHERE "annotator_id" = ? AND "adjudication" = ?',
        [who, int(adjudication)],
    ).fetchone()
    first, last = int(ends[0][0]), int(ends[1][0])
    if assigned is None or last - first + 1 != int(assigned[0]):
        return None
    return first, int(assigned[0])


def first_unanswered(
    store: Store, annotator: str, from_position: int, before_position: int | None = None,
    adjudication: bool = False,
) -> int | None:
    """The position of the first entry at or after `from_position` (and before `before_position`,
    when given) with no current judgment in the file, or None."""
    who = annotator_id(store, annotator)
    if who is None:
        return None
    params: list[Any] = [who, int(adjudication), from_position]
    bound = ""
    if before_position is not None:
        bound = ' AND "position" < ?'
        params.append(before_position)
    row = store.db.execute(
        'SELECT "position" FROM "open_queue" WHERE "annotator_id" = ? AND "adjudication" = ? AND "position" >= ?'
        f'{bound} ORDER BY "position" LIMIT 1', params,
    ).fetchone()
    return None if row is None else int(row[0])


def stored_assignment(store: Store, assignment_id: int) -> Assignment | None:
    """The assignment as stored now, or None when it is gone."""
    row = store.db.execute(
        f"SELECT {_ASSIGNMENT_COLUMNS} FROM assignments a JOIN annotators n ON n.id = a.annotator_id WHERE a.id = ?",
        [assignment_id],
    ).fetchone()
    return None if row is None else Store._assignment(row)


def _current_judgments(ids: list[int], store: Store) -> dict[int, Judgment]:
    found: dict[int, Judgment] = {}
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        marks = ",".join("?" * len(chunk))
        for row in store.db.query(
            f"SELECT * FROM judgments WHERE assignment_id IN ({marks}) AND superseded_by IS NULL ORDER BY id", chunk
        ):
            found[row["assignment_id"]] = _judgment_from_row(row)
    if found:
        with_spans = store.with_spans(list(found.values()))
        found = {j.assignment_id: j for j in with_spans}
    return found
