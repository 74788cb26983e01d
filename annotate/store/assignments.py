"""The Store's annotators and assignments (queues as planned): adding, reading, deleting untouched
ones, redrawing their design, and the current votes and disagreements over them.
Mixed into Store (store.py), whose `db`, `transaction` and `with_spans` it uses."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from annotate.model import Annotator, Assignment, Judgment
from annotate.store.errors import StoreError
from annotate.store.judgment_rows import _judgment_from_row
from annotate.store.records import utc_now

if TYPE_CHECKING:
    from annotate.store._sqlite_utils import sqlite_utils


_INSERT_ANNOTATOR = "INSERT OR IGNORE INTO annotators (name, cohort, created) VALUES (?, ?, ?)"
_INSERT_ASSIGNMENTS = (
    "INSERT INTO assignments (annotator_id, item_id, position, swapped, condition, purpose, suggestion_id, seed,"
    " created, display_order) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)


class AssignmentsMixin:
    """Annotators and assignments; part of Store."""

    db: sqlite_utils.Database

    # -- annotators ------------------------------------------------------------------------

    def ensure_annotator(self, name: str, cohort: str = "expert") -> Annotator:
        """The annotator called `name`, created with `cohort` if new. A name already stored
        with another cohort is refused: one rater belongs to one cohort."""
        found = self.annotator(name)
        if found is not None:
            if found.cohort != cohort:
                raise StoreError(
                    f"annotator {name!r} is already in cohort {found.cohort!r}, not {cohort!r}"
                )
            return found
        with self.transaction() as db:
            db.execute(_INSERT_ANNOTATOR, [name, cohort, utc_now()])
        found = self.annotator(name)
        assert found is not None
        return found

    def annotator(self, name: str) -> Annotator | None:
        row = self.db.execute(
            "SELECT id, name, cohort FROM annotators WHERE name = ?", [name]
        ).fetchone()
        return None if row is None else Annotator(*row)

    def annotators(self) -> list[Annotator]:
        rows = self.db.execute("SELECT id, name, cohort FROM annotators ORDER BY id").fetchall()
        return [Annotator(*row) for row in rows]

    # -- assignments -----------------------------------------------------------------------

    def add_assignments(self, assignments: Sequence[Assignment]) -> list[Assignment]:
        """Store new assignments (their `id` is ignored) atomically; returns them with ids.
        Annotators are created (cohort expert) if new."""
        first = self.insert_assignments(assignments)
        return [replace(a, id=first + i) for i, a in enumerate(assignments)]

    def prepare_assignment_writes(self) -> None:
        """Compile the statements that store annotators and assignments now (store/database.py `prepare`),
        so that a queue written later compiles none of them while it holds the write lock."""
        self.db.prepare(_INSERT_ANNOTATOR, _INSERT_ASSIGNMENTS)

    def insert_assignments(self, assignments: Sequence[Assignment]) -> int:
        """`add_assignments` without the returned list (the id of the first one, the others' following it):
        a default queue written under another transaction's lock builds nothing it does not need there."""
        names = {a.annotator for a in assignments}
        ids = {name: self.ensure_annotator(name).id for name in names}
        created = utc_now()
        rows = [
            [ids[a.annotator], a.item_id, a.position, int(a.swapped), a.condition, a.purpose, a.suggestion_id,
             a.seed, created, "".join(a.order) or None]
            for a in assignments
        ]
        with self.transaction() as db:
            # One statement for all rows (a first queue on a large session is one row per item). Under the
            # write lock AUTOINCREMENT hands out consecutive ids from the sequence, which is checked after.
            before = self._assignment_sequence(db)
            db.conn.executemany(_INSERT_ASSIGNMENTS, rows)
            after = self._assignment_sequence(db)
            if after - before != len(rows):
                raise RuntimeError(f"assignment ids not consecutive: {before}..{after} for {len(rows)} rows")
        return before + 1

    def queue_tail(self, annotator: str) -> tuple[int, int] | None:
        """(position, id) of the last assignment in `annotator`'s queue, None without one: two index
        lookups, so a queue written a chunk at a time checks under each chunk's lock, without reading
        the queue, that nobody appended to it or replaced its last row since the previous chunk."""
        row = self.db.execute(
            "SELECT a.position, a.id FROM assignments a JOIN annotators n ON n.id = a.annotator_id"
            " WHERE n.name = ? ORDER BY a.position DESC LIMIT 1", [annotator],
        ).fetchone()
        return None if row is None else (int(row[0]), int(row[1]))

    def queue_from(self, annotator: str, position: int) -> list[Assignment]:
        """`annotator`'s assignments at `position` and after, in order (the part of a queue another start
        wrote after this one's last chunk)."""
        rows = self.db.execute(
            self._ASSIGNMENT_SQL + " WHERE n.name = ? AND a.position >= ? ORDER BY a.position", [annotator, position]
        )
        return [self._assignment(r) for r in rows.fetchall()]

    def queue_item_ids(self, upto: int | None = None) -> tuple[Sequence[str], int]:
        """The ids a default queue draws from, in item order (rowid), those up to rowid `upto` when given,
        with the newest rowid among them (0 without items): a queue written in chunks records it, so that
        the next start, after a crash between chunks, draws again from the same items. Read when asked for
        where the rowids allow it (`annotate.store.item_ids`)."""
        from annotate.store.item_ids import queue_item_ids

        return queue_item_ids(self, upto)  # type: ignore[arg-type]

    @staticmethod
    def _assignment_sequence(db: Any) -> int:
        """The last id AUTOINCREMENT gave an assignment (0 before the first)."""
        row = db.execute("SELECT seq FROM sqlite_sequence WHERE name = 'assignments'").fetchone()
        return int(row[0]) if row else 0

    _ASSIGNMENT_SQL = (
        "SELECT a.id, n.name, a.item_id, a.position, a.swapped, a.condition, a.purpose,"
        " a.suggestion_id, a.seed, a.display_order FROM assignments a JOIN annotators n ON n.id = a.annotator_id"
    )

    @staticmethod
    def _assignment(row: Sequence[Any]) -> Assignment:
        return Assignment(
            id=row[0], annotator=row[1], item_id=row[2], position=row[3], swapped=bool(row[4]),
            condition=row[5], purpose=row[6], suggestion_id=row[7], seed=row[8], order=tuple(row[9] or ""),
        )

    def assignments(self, annotator: str | None = None) -> list[Assignment]:
        """An annotator's queue in order, or every assignment when annotator is None."""
        if annotator is None:
            rows = self.db.execute(self._ASSIGNMENT_SQL + " ORDER BY n.id, a.position")
        else:
            rows = self.db.execute(
                self._ASSIGNMENT_SQL + " WHERE n.name = ? ORDER BY a.position", [annotator]
            )
        return [self._assignment(r) for r in rows.fetchall()]

    def assignment(self, assignment_id: int) -> Assignment:
        row = self.db.execute(self._ASSIGNMENT_SQL + " WHERE a.id = ?", [assignment_id]).fetchone()
        if row is None:
            raise KeyError(f"no assignment {assignment_id}")
        return self._assignment(row)

    _UNTOUCHED = (
        "NOT EXISTS (SELECT 1 FROM judgments j WHERE j.assignment_id = a.id)"
        " AND NOT EXISTS (SELECT 1 FROM events e WHERE e.assignment_id = a.id)"
    )

    def untouched_assignments(self, purposes: Sequence[str] = ("main",)) -> list[Assignment]:
        """Assignments with these purposes that have no judgment and no event (never shown)."""
        marks = ",".join("?" * len(purposes))
        rows = self.db.execute(
            self._ASSIGNMENT_SQL + f" WHERE a.purpose IN ({marks}) AND {self._UNTOUCHED}"
            " ORDER BY n.id, a.position", list(purposes),
        )
        return [self._assignment(r) for r in rows.fetchall()]

    def delete_assignments(self, ids: Sequence[int]) -> int:
        """Delete assignments that were never touched, atomically. Refused (nothing deleted) when
        one is unknown or has a judgment or an event."""
        with self.transaction() as db:
            for assignment_id in ids:
                cursor = db.execute(
                    f"DELETE FROM assignments AS a WHERE a.id = ? AND {self._UNTOUCHED}", [assignment_id]
                )
                if cursor.rowcount != 1:
                    raise StoreError(f"assignment {assignment_id} is unknown or has judgments or events; kept")
        return len(ids)

    def current_votes(self, purposes: Sequence[str] | None = None) -> list[tuple[Assignment, Judgment]]:
        """Every assignment with a current judgment that is not a skip, with that judgment, in
        submit order; only assignments with one of `purposes` when given."""
        sql = (
            self._ASSIGNMENT_SQL.replace("SELECT ", "SELECT j.id AS judgment_id, ", 1)
            + " JOIN judgments j ON j.assignment_id = a.id"
            " WHERE j.superseded_by IS NULL AND j.skip_reason IS NULL"
        )
        params: list[Any] = []
        if purposes is not None:
            sql += f" AND a.purpose IN ({','.join('?' * len(purposes))})"
            params += list(purposes)
        rows = self.db.execute(sql + " ORDER BY j.id", params).fetchall()
        judgments = {j.id: j for j in self.with_spans(self._judgments_by_id([r[0] for r in rows]))}
        return [(self._assignment(r[1:]), judgments[r[0]]) for r in rows]

    def _judgments_by_id(self, ids: Sequence[int]) -> list[Judgment]:
        found: list[Judgment] = []
        for start in range(0, len(ids), 500):
            chunk = list(ids[start : start + 500])
            marks = ",".join("?" * len(chunk))
            rows = self.db.query(f"SELECT * FROM judgments WHERE id IN ({marks})", chunk)
            found += [_judgment_from_row(r) for r in rows]
        return found

    def disagreements(self, purposes: Sequence[str] = ("main", "gold")) -> list[str]:
        """Items whose current labels (skips left out) differ between annotators, counting only
        assignments with these purposes; in item order."""
        marks = ",".join("?" * len(purposes))
        rows = self.db.execute(
            "SELECT a.item_id FROM judgments j JOIN assignments a ON a.id = j.assignment_id"
            " JOIN items i ON i.id = a.item_id"
            " WHERE j.superseded_by IS NULL AND j.skip_reason IS NULL AND j.label IS NOT NULL"
            f" AND a.purpose IN ({marks}) GROUP BY a.item_id HAVING count(DISTINCT j.label) > 1"
            " ORDER BY min(i.rowid)", list(purposes),
        ).fetchall()
        return [r[0] for r in rows]

    def set_assignment_design(self, updates: Sequence[tuple[int, str, int | None]]) -> int:
        """Set (assignment id, condition, suggestion id or None) for many assignments in one
        transaction; returns how many rows changed. Refused (nothing written) when an id is unknown."""
        changed = 0
        with self.transaction() as db:
            for assignment_id, condition, suggestion_id in updates:
                cursor = db.execute(
                    "UPDATE assignments SET condition = ?, suggestion_id = ? WHERE id = ?",
                    [condition, suggestion_id, assignment_id],
                )
                if cursor.rowcount != 1:
                    raise StoreError(f"no assignment {assignment_id}")
                changed += 1
        return changed
