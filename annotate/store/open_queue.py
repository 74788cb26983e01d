"""Migration v13, the open queue: every assignment that has no current judgment, keyed by annotator and
position, kept by triggers in the writer's own transaction.

The app's start asks for an annotator's first unanswered entry. Without this table that is a walk
down the queue in position order with a judgment lookup per entry, so it grows with how far the
annotator has come (0.9M lookups for someone 90 % through a 1M-item queue). With it, it is one
seek in a small index, whatever the queue's length."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from annotate.store._sqlite_utils import sqlite_utils

OPEN_QUEUE_TABLE = "open_queue"

_CREATE = (
    'CREATE TABLE "open_queue" ("annotator_id" INTEGER NOT NULL, "adjudication" INTEGER NOT NULL,'
    ' "position" INTEGER NOT NULL, "assignment_id" INTEGER NOT NULL,'
    ' PRIMARY KEY ("annotator_id", "adjudication", "position")) WITHOUT ROWID'
)

_BACKFILL = (
    'INSERT INTO "open_queue" SELECT a."annotator_id", a."purpose" = \'adjudication\', a."position", a."id"'
    ' FROM "assignments" a WHERE NOT EXISTS (SELECT 1 FROM "judgments" j'
    ' WHERE j."assignment_id" = a."id" AND j."superseded_by" IS NULL)'
)

_LEAVE = (
    'DELETE FROM "open_queue" WHERE "annotator_id" = {a}."annotator_id"'
    ' AND "adjudication" = ({a}."purpose" = \'adjudication\') AND "position" = {a}."position";'
)
"""Statement taking assignment row {a} out of the open queue."""

_ENTER = (
    'INSERT OR REPLACE INTO "open_queue" SELECT {a}."annotator_id", {a}."purpose" = \'adjudication\','
    ' {a}."position", {a}."id" WHERE NOT EXISTS (SELECT 1 FROM "judgments" j'
    ' WHERE j."assignment_id" = {a}."id" AND j."superseded_by" IS NULL);'
)
"""Statement putting assignment row {a} in the open queue when it has no current judgment."""

_REFRESH = (
    'DELETE FROM "open_queue" WHERE ("annotator_id", "adjudication", "position") ='
    ' (SELECT "annotator_id", "purpose" = \'adjudication\', "position" FROM "assignments" WHERE "id" = {id});'
    ' INSERT OR REPLACE INTO "open_queue" SELECT a."annotator_id", a."purpose" = \'adjudication\', a."position",'
    ' a."id" FROM "assignments" a WHERE a."id" = {id} AND NOT EXISTS (SELECT 1 FROM "judgments" j'
    ' WHERE j."assignment_id" = a."id" AND j."superseded_by" IS NULL);'
)
"""Statements setting the open-queue row of assignment id {id} from its judgments as they are now."""


def create_open_queue(db: sqlite_utils.Database) -> None:
    """The open_queue table, filled from the rows already stored, and the triggers that keep it: an
    assignment enters when it is made without a current judgment and leaves when it is deleted; a
    judgment inserted, deleted or changed (superseded, moved) sets its assignments' rows again.

    A migration after this one that rebuilds assignments or judgments must create these again."""
    db.execute(_CREATE)
    db.execute(_BACKFILL)
    enter_new, leave_old = _ENTER.format(a="NEW"), _LEAVE.format(a="OLD")
    db.execute(f'CREATE TRIGGER "open_assignments_insert" AFTER INSERT ON "assignments" BEGIN {enter_new} END')
    db.execute(f'CREATE TRIGGER "open_assignments_delete" AFTER DELETE ON "assignments" BEGIN {leave_old} END')
    db.execute(
        'CREATE TRIGGER "open_assignments_update" AFTER UPDATE OF "annotator_id", "position", "purpose"'
        f' ON "assignments" BEGIN {leave_old} {enter_new} END'
    )
    refresh_new, refresh_old = _REFRESH.format(id='NEW."assignment_id"'), _REFRESH.format(id='OLD."assignment_id"')
    db.execute(f'CREATE TRIGGER "open_judgments_insert" AFTER INSERT ON "judgments" BEGIN {refresh_new} END')
    db.execute(f'CREATE TRIGGER "open_judgments_delete" AFTER DELETE ON "judgments" BEGIN {refresh_old} END')
    db.execute(
        'CREATE TRIGGER "open_judgments_update" AFTER UPDATE OF "assignment_id", "superseded_by" ON "judgments"'
        f' BEGIN {refresh_old} {refresh_new} END'
    )
