"""The Store's judgments and events: a submit (judgment, spans and events in one transaction, refused
when the assignment on screen is stale), reading them back, progress, and the export rows.
Mixed into Store (store.py), whose `db`, `transaction`, `with_spans`, `_stream` and assignment
helpers it uses."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import replace
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from annotate.model import Assignment, Event, Judgment
from annotate.store.codec import dumps
from annotate.store.errors import StoreError
from annotate.store.judgment_rows import _judgment_from_row, _judgment_row, _meaning
from annotate.store.records import STALE_ANSWER, Progress, StaleAssignment, new_uid
from annotate.store.spans import insert_spans, response_texts

if TYPE_CHECKING:
    from annotate.design.spans import Taxonomy
    from annotate.store._sqlite_utils import sqlite_utils


_SUPERSEDE = ("UPDATE judgments SET superseded_by = ? WHERE assignment_id = ? AND id != ?"
              " AND superseded_by IS NULL")
"""A submit's new judgment supersedes the assignment's earlier current one."""
_BY_ID = " WHERE a.id = ?"
_INSERT_EVENTS = ("INSERT INTO events (uid, assignment_id, annotator_id, mono_ns, wall_time, kind, payload,"
                  " judgment_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")


class JudgmentsMixin:
    """Judgments and events; part of Store."""

    db: sqlite_utils.Database
    _annotator_ids: dict[str, int]
    read_only: bool
    _prepared: set[str]
    """Write statements this Store's connection has compiled ahead (`submit`: the first one's)."""

    # -- judgments and events --------------------------------------------------------------

    def submit(
        self, judgment: Judgment, events: Iterable[Event] = (), *, shown: Assignment | None = None,
        sitting_id: int | None = None, taxonomy: Taxonomy | None = None,
    ) -> Judgment:
        """Record a judgment and the events that led to it in one transaction.

        A judgment for an assignment that already has one supersedes it: both rows are kept and
        the old one points to the new one through `superseded_by`. `shown` is the assignment as
        the screen had it: when the stored one is gone or differs (item, annotator, position,
        sides, condition, purpose, suggestion), nothing is written and StaleAssignment is raised.
        The judgment row records the item it was made on and the sitting (`sittings`) it came from.
        Its error spans are written in the same transaction; a span outside its response's text (or
        on a slot the item lacks, or, given the session's `taxonomy`, with a category or severity
        outside it) is a StoreError and nothing is written.
        """
        uid = judgment.uid or new_uid()
        row = _judgment_row(judgment, uid)
        row["sitting_id"] = sitting_id
        row["item_id"] = None  # read under the write lock below
        insert = f"INSERT INTO judgments ({', '.join(row)}) VALUES ({', '.join('?' * len(row))})"
        event_rows = self._event_rows(events)  # built before the write lock is taken: it is held for less
        if insert not in self._prepared and not self.read_only:  # compiled before the lock (database.py `prepare`)
            self.db.prepare(insert, _SUPERSEDE, self._ASSIGNMENT_SQL + _BY_ID, _INSERT_EVENTS)
            self._prepared.add(insert)
        with self.transaction() as db:
            row["item_id"] = self._check_assignment(judgment.assignment_id, shown).item_id
            if judgment.spans:
                from annotate.design.spans import check_spans

                try:
                    check_spans(judgment.spans, response_texts(db, row["item_id"]), taxonomy)
                except ValueError as exc:
                    raise StoreError(f"item {row['item_id']}: {exc}") from None
            cursor = db.execute(insert, list(row.values()))
            new_id = int(cursor.lastrowid or 0)
            insert_spans(db, new_id, judgment.spans)
            db.execute(_SUPERSEDE, [new_id, judgment.assignment_id, new_id])
            self._insert_events(db, event_rows, judgment_id=new_id)
        return replace(judgment, id=new_id, uid=uid)

    def log_events(self, events: Iterable[Event], *, shown: Assignment | None = None) -> None:
        """Record events that belong to no submit (quit, help, navigation). With `shown` (the
        assignment on screen they are about), refused with StaleAssignment as `submit` is."""
        event_rows = self._event_rows(events)
        with self.transaction() as db:
            if shown is not None:
                self._check_assignment(shown.id, shown)
            self._insert_events(db, event_rows, judgment_id=None)

    def _check_assignment(self, assignment_id: int, shown: Assignment | None) -> Assignment:
        """The stored assignment, which must exist and, given `shown`, equal it in every field
        that decides what the answer means (call inside the write transaction)."""
        row = self.db.execute(self._ASSIGNMENT_SQL + _BY_ID, [assignment_id]).fetchone()
        annotator = shown.annotator if shown is not None else "the annotator"
        if row is None:
            raise StaleAssignment(STALE_ANSWER.format(annotator=annotator))
        stored = self._assignment(row)
        if shown is not None and _meaning(stored) != _meaning(shown):
            raise StaleAssignment(STALE_ANSWER.format(annotator=annotator))
        return stored

    def _event_rows(self, events: Iterable[Event]) -> list[list[Any]]:
        """The events as rows of the events table, their judgment_id (the last value) still None.
        Raises StoreError for an event of an unknown annotator."""
        rows = []
        for event in events:
            annotator_id = None if event.annotator is None else self._annotator_id(event.annotator)
            rows.append([event.uid or new_uid(), event.assignment_id, annotator_id, event.mono_ns, event.wall_time,
                         event.kind, dumps(dict(event.payload)), None])
        return rows

    def _annotator_id(self, name: str) -> int:
        """The id of the annotator `name`, remembered once read outside a transaction (annotators are
        never deleted or renamed, so a committed id stays true; one read inside a transaction could
        still be rolled back)."""
        ids = self._annotator_ids
        found_id = ids.get(name)
        if found_id is not None:
            return found_id
        found = self.annotator(name)  # type: ignore[attr-defined]
        if found is None:
            raise StoreError(f"event for unknown annotator {name!r}")
        if not self.db.conn.in_transaction:
            ids[name] = found.id
        return found.id

    def _insert_events(self, db: sqlite_utils.Database, rows: list[list[Any]], judgment_id: int | None) -> None:
        """Insert rows made by `_event_rows`, for the judgment `judgment_id` (None: of no submit)."""
        if not rows:
            return
        for row in rows:
            row[-1] = judgment_id
        db.conn.executemany(_INSERT_EVENTS, rows)

    def current_judgment(self, assignment_id: int) -> Judgment | None:
        """The judgment in force for an assignment (the latest, not superseded), if any."""
        rows = list(self.db.query(
            "SELECT * FROM judgments WHERE assignment_id = ? AND superseded_by IS NULL"
            " ORDER BY id DESC LIMIT 1", [assignment_id],
        ))
        return self.with_spans([_judgment_from_row(rows[0])])[0] if rows else None

    def judgments(
        self, annotator: str | None = None, include_superseded: bool = False
    ) -> list[Judgment]:
        """Judgments in submit order, for one annotator or all."""
        where = [] if include_superseded else ["j.superseded_by IS NULL"]
        params: list[Any] = []
        if annotator is not None:
            where.append("n.name = ?")
            params.append(annotator)
        clause = f"WHERE {' AND '.join(where)}" if where else ""
        sql = (
            "SELECT j.* FROM judgments j JOIN assignments a ON a.id = j.assignment_id"
            f" JOIN annotators n ON n.id = a.annotator_id {clause} ORDER BY j.id"
        )
        return self.with_spans([_judgment_from_row(r) for r in self.db.query(sql, params)])

    def events(self, assignment_id: int | None = None) -> list[Event]:
        """Events in the order they were recorded, for one assignment or all."""
        sql = (
            "SELECT e.*, n.name AS annotator_name FROM events e"
            " LEFT JOIN annotators n ON n.id = e.annotator_id"
        )
        params: list[Any] = []
        if assignment_id is not None:
            sql += " WHERE e.assignment_id = ?"
            params.append(assignment_id)
        return [
            Event(
                kind=r["kind"], mono_ns=r["mono_ns"], wall_time=r["wall_time"],
                payload=MappingProxyType(json.loads(r["payload"] or "{}")),
                assignment_id=r["assignment_id"], annotator=r["annotator_name"], uid=r["uid"],
            )
            for r in self.db.query(sql + " ORDER BY e.id", params)
        ]

    def progress(self, annotator: str) -> Progress:
        """How far an annotator is; `next_position` is where a resumed sitting starts."""
        rows = self.db.execute(
            "SELECT a.position, j.label IS NOT NULL OR j.scores != '{}', j.skip_reason IS NOT NULL,"
            " j.id IS NOT NULL FROM assignments a JOIN annotators n ON n.id = a.annotator_id"
            " LEFT JOIN judgments j ON j.assignment_id = a.id AND j.superseded_by IS NULL"
            " WHERE n.name = ? ORDER BY a.position",
            [annotator],
        ).fetchall()
        done = sum(1 for r in rows if r[3] and not r[2])
        skipped = sum(1 for r in rows if r[2])
        pending = [r[0] for r in rows if not r[3]]
        return Progress(len(rows), done, skipped, pending[0] if pending else None)

    def judgment_export_rows(
        self, include_superseded: bool = False, include_planted: bool = False
    ) -> Iterator[dict[str, Any]]:
        """Judgments joined with who made them and how the item was shown, for `annotate export`;
        read from one cursor a batch at a time.

        One dict per judgment in submit order, keys: uid, annotator, cohort, item, label (slot
        space), swapped (0/1), initial_label, scores and timings (JSON text), rationale,
        confidence, skip_reason, guideline_id, guideline_version, shown_at, first_input_ms,
        submit_ms, active_ms, submitted_at, app_version, condition, purpose, position, planted
        (0/1: made under a planted suggestion), superseded (0/1), and the linked suggestion:
        suggestion_label, suggestion_model (None without one), shown_event (0/1: a
        `suggestion.reveal` or `suggestion.shown` event was logged for the assignment), has_events
        (0/1: any event was).
        Current judgments only unless include_superseded; judgments under planted suggestions are
        left out unless include_planted (DESIGN.md section 6).
        """
        where = []
        if not include_superseded:
            where.append("j.superseded_by IS NULL")
        if not include_planted:
            where.append("COALESCE(s.planted, 0) = 0")
        clause = f"WHERE {' AND '.join(where)}" if where else ""
        sql = (
            "SELECT j.uid, n.name AS annotator, n.cohort, a.item_id AS item, j.label, a.swapped, a.display_order,"
            " j.initial_label, j.scores, j.rationale, j.confidence, j.skip_reason, j.guideline_id,"
            " j.guideline_version, j.shown_at, j.first_input_ms, j.submit_ms, j.active_ms, j.timings,"
            " j.submitted_at, j.app_version, a.condition, a.purpose, a.position,"
            " COALESCE(s.planted, 0) AS planted, j.superseded_by IS NOT NULL AS superseded,"
            " s.label AS suggestion_label, s.source_model AS suggestion_model,"
            " EXISTS (SELECT 1 FROM events e WHERE e.assignment_id = a.id"
            " AND e.kind IN ('suggestion.reveal', 'suggestion.shown')) AS shown_event,"
            " EXISTS (SELECT 1 FROM events e WHERE e.assignment_id = a.id) AS has_events"
            " FROM judgments j JOIN assignments a ON a.id = j.assignment_id"
            " JOIN annotators n ON n.id = a.annotator_id"
            f" LEFT JOIN suggestions s ON s.id = a.suggestion_id {clause} ORDER BY j.id"
        )
        return self._stream(sql)
