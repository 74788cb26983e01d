"""Migration v9, the running tallies: the tables `status` and the dashboard read instead of scanning
(items per category and gold, labels per source and cohort, suggestions, per-annotator progress and
active time, per-item overlap), their backfill from the rows already stored, and the triggers on
judgments and assignments that keep them up to date in the writer's own transaction."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from annotate.store._sqlite_utils import sqlite_utils


_TALLY_TABLES = (
    'CREATE TABLE "item_tally" ("category" TEXT NOT NULL PRIMARY KEY, "items" INTEGER NOT NULL,'
    ' "gold" INTEGER NOT NULL) WITHOUT ROWID',
    'CREATE TABLE "label_tally" ("source" TEXT NOT NULL, "cohort" TEXT NOT NULL, "labels" INTEGER NOT NULL,'
    ' PRIMARY KEY ("source", "cohort")) WITHOUT ROWID',
    'CREATE TABLE "suggestion_tally" ("source_model" TEXT NOT NULL, "planted" INTEGER NOT NULL,'
    ' "suggestions" INTEGER NOT NULL, PRIMARY KEY ("source_model", "planted")) WITHOUT ROWID',
    'CREATE TABLE "failure_tally" ("source_model" TEXT NOT NULL PRIMARY KEY, "failures" INTEGER NOT NULL)'
    ' WITHOUT ROWID',
    'CREATE TABLE "progress_tally" ("annotator_id" INTEGER NOT NULL, "adjudication" INTEGER NOT NULL,'
    ' "assigned" INTEGER NOT NULL, "answered" INTEGER NOT NULL, "skipped" INTEGER NOT NULL,'
    ' "active_ms" INTEGER NOT NULL, PRIMARY KEY ("annotator_id", "adjudication")) WITHOUT ROWID',
    'CREATE TABLE "item_progress" ("item_id" TEXT NOT NULL PRIMARY KEY, "assigned" INTEGER NOT NULL,'
    ' "judged" INTEGER NOT NULL) WITHOUT ROWID',
    'CREATE TABLE "overlap_tally" ("id" INTEGER PRIMARY KEY CHECK ("id" = 1), "items" INTEGER NOT NULL,'
    ' "full" INTEGER NOT NULL)',
)

_TALLY_BACKFILL = (
    'INSERT INTO "item_tally" SELECT coalesce("category", \'\'), count(*), count("gold") FROM "items" GROUP BY 1',
    'INSERT INTO "label_tally" SELECT "source", "cohort", count(*) FROM "external_labels" GROUP BY 1, 2',
    'INSERT INTO "suggestion_tally" SELECT "source_model", coalesce("planted", 0) != 0, count(*) FROM "suggestions"'
    ' GROUP BY 1, 2',
    'INSERT INTO "failure_tally" SELECT "source_model", count(*) FROM "suggestion_failures" GROUP BY 1',
    'INSERT INTO "progress_tally" SELECT a."annotator_id", a."purpose" = \'adjudication\', count(DISTINCT a."id"),'
    ' count(j."id"), count(j."skip_reason"), coalesce(sum(j."active_ms"), 0) FROM "assignments" a'
    ' LEFT JOIN "judgments" j ON j."assignment_id" = a."id" AND j."superseded_by" IS NULL GROUP BY 1, 2',
    'INSERT INTO "item_progress" SELECT a."item_id", count(DISTINCT a."id"),'
    ' coalesce(sum(j."id" IS NOT NULL AND j."skip_reason" IS NULL), 0) FROM "assignments" a'
    ' LEFT JOIN "judgments" j ON j."assignment_id" = a."id" AND j."superseded_by" IS NULL'
    ' WHERE a."purpose" != \'adjudication\' GROUP BY 1',
    'INSERT INTO "overlap_tally" SELECT 1, count(*), coalesce(sum("judged" >= "assigned"), 0) FROM "item_progress"'
    ' WHERE "assigned" > 0',
)

# A current judgment (superseded_by IS NULL) counts once for its assignment's annotator (answered, skipped,
# active time) and, when it is not a skip and its assignment is not an adjudication, for the assignment's item.
_JUDGMENT_IN = """
    UPDATE "progress_tally" SET "answered" = "answered" + 1, "skipped" = "skipped" + ({j}."skip_reason" IS NOT NULL),
        "active_ms" = "active_ms" + coalesce({j}."active_ms", 0)
    WHERE {j}."superseded_by" IS NULL AND ("annotator_id", "adjudication") =
        (SELECT "annotator_id", "purpose" = 'adjudication' FROM "assignments" WHERE "id" = {j}."assignment_id");
    UPDATE "item_progress" SET "judged" = "judged" + 1
    WHERE {j}."superseded_by" IS NULL AND {j}."skip_reason" IS NULL AND "item_id" =
        (SELECT "item_id" FROM "assignments" WHERE "id" = {j}."assignment_id" AND "purpose" != 'adjudication');
"""
_JUDGMENT_OUT = """
    UPDATE "progress_tally" SET "answered" = "answered" - 1, "skipped" = "skipped" - ({j}."skip_reason" IS NOT NULL),
        "active_ms" = "active_ms" - coalesce({j}."active_ms", 0)
    WHERE {j}."superseded_by" IS NULL AND ("annotator_id", "adjudication") =
        (SELECT "annotator_id", "purpose" = 'adjudication' FROM "assignments" WHERE "id" = {j}."assignment_id");
    UPDATE "item_progress" SET "judged" = "judged" - 1
    WHERE {j}."superseded_by" IS NULL AND {j}."skip_reason" IS NULL AND "item_id" =
        (SELECT "item_id" FROM "assignments" WHERE "id" = {j}."assignment_id" AND "purpose" != 'adjudication');
"""
# An assignment counts for its annotator (assigned) and, unless it is an adjudication, for its item; its
# current judgments move with it when it is deleted or changes annotator, item or purpose.
_ASSIGNMENT_IN = """
    INSERT OR IGNORE INTO "progress_tally" VALUES ({a}."annotator_id", {a}."purpose" = 'adjudication', 0, 0, 0, 0);
    UPDATE "progress_tally" SET "assigned" = "assigned" + 1,
        "answered" = "answered" + (SELECT count(*) FROM "judgments" j
            WHERE j."assignment_id" = {a}."id" AND j."superseded_by" IS NULL),
        "skipped" = "skipped" + (SELECT count(j."skip_reason") FROM "judgments" j
            WHERE j."assignment_id" = {a}."id" AND j."superseded_by" IS NULL),
        "active_ms" = "active_ms" + (SELECT coalesce(sum(j."active_ms"), 0) FROM "judgments" j
            WHERE j."assignment_id" = {a}."id" AND j."superseded_by" IS NULL)
    WHERE "annotator_id" = {a}."annotator_id" AND "adjudication" = ({a}."purpose" = 'adjudication');
    INSERT OR IGNORE INTO "item_progress" SELECT {a}."item_id", 0, 0 WHERE {a}."purpose" != 'adjudication';
    UPDATE "item_progress" SET "assigned" = "assigned" + 1,
        "judged" = "judged" + (SELECT count(*) FROM "judgments" j
            WHERE j."assignment_id" = {a}."id" AND j."superseded_by" IS NULL AND j."skip_reason" IS NULL)
    WHERE "item_id" = {a}."item_id" AND {a}."purpose" != 'adjudication';
"""
_ASSIGNMENT_OUT = """
    UPDATE "progress_tally" SET "assigned" = "assigned" - 1,
        "answered" = "answered" - (SELECT count(*) FROM "judgments" j
            WHERE j."assignment_id" = {a}."id" AND j."superseded_by" IS NULL),
        "skipped" = "skipped" - (SELECT count(j."skip_reason") FROM "judgments" j
            WHERE j."assignment_id" = {a}."id" AND j."superseded_by" IS NULL),
        "active_ms" = "active_ms" - (SELECT coalesce(sum(j."active_ms"), 0) FROM "judgments" j
            WHERE j."assignment_id" = {a}."id" AND j."superseded_by" IS NULL)
    WHERE "annotator_id" = {a}."annotator_id" AND "adjudication" = ({a}."purpose" = 'adjudication');
    UPDATE "item_progress" SET "assigned" = "assigned" - 1,
        "judged" = "judged" - (SELECT count(*) FROM "judgments" j
            WHERE j."assignment_id" = {a}."id" AND j."superseded_by" IS NULL AND j."skip_reason" IS NULL)
    WHERE "item_id" = {a}."item_id" AND {a}."purpose" != 'adjudication';
"""


def _count_in(table: str, keys: dict[str, str], counter: str) -> str:
    """Statements counting row {r} in `table` (a tally keyed by `keys`: column -> expression over {r})."""
    where = " AND ".join(f'"{column}" = {expression}' for column, expression in keys.items())
    return (f'INSERT OR IGNORE INTO "{table}" VALUES ({", ".join(keys.values())}, 0);'
            f' UPDATE "{table}" SET "{counter}" = "{counter}" + 1 WHERE {where};')


def _v9_tallies(db: sqlite_utils.Database) -> None:
    """Running counts kept by triggers, so `annotate status` (and the app's start) read a few rows
    whatever the session's size (DESIGN.md section 8: status is a query, not a load).

    - item_tally: items and gold items per category ('' for none);
    - label_tally: imported labels per (source, cohort); suggestion_tally: LLM suggestions per
      (source model, planted); failure_tally: replies without a verdict per source model;
    - progress_tally: per (annotator, adjudication or not): assignments, current judgments
      (answered, skips included), skips and their active time;
    - item_progress: per item, its assignments (adjudication left out) and how many have a current
      judgment that is not a skip; overlap_tally: items with an assignment and how many of them
      have every assignment judged.

    Triggers on the counted tables keep them exact in the same transaction as the change, whoever
    writes (the app, imports, plans, merges). A migration that rebuilds a counted table must create
    its triggers again.
    """
    for sql in _TALLY_TABLES + _TALLY_BACKFILL:
        db.execute(sql)
    item_keys = {"category": "coalesce({r}.\"category\", '')"}
    item_in = (f'INSERT OR IGNORE INTO "item_tally" VALUES ({item_keys["category"]}, 0, 0);'
               ' UPDATE "item_tally" SET "items" = "items" + 1, "gold" = "gold" + ({r}."gold" IS NOT NULL)'
               f' WHERE "category" = {item_keys["category"]};')
    item_out = ('UPDATE "item_tally" SET "items" = "items" - 1, "gold" = "gold" - ({r}."gold" IS NOT NULL)'
                f' WHERE "category" = {item_keys["category"]};')
    label_in = _count_in("label_tally", {"source": '{r}."source"', "cohort": '{r}."cohort"'}, "labels")
    label_out = ('UPDATE "label_tally" SET "labels" = "labels" - 1 WHERE "source" = {r}."source"'
                 ' AND "cohort" = {r}."cohort";')
    planted = 'coalesce({r}."planted", 0) != 0'
    suggestion_in = _count_in("suggestion_tally", {"source_model": '{r}."source_model"', "planted": planted},
                              "suggestions")
    suggestion_out = ('UPDATE "suggestion_tally" SET "suggestions" = "suggestions" - 1'
                      f' WHERE "source_model" = {{r}}."source_model" AND "planted" = {planted};')
    failure_in = _count_in("failure_tally", {"source_model": '{r}."source_model"'}, "failures")
    failure_out = 'UPDATE "failure_tally" SET "failures" = "failures" - 1 WHERE "source_model" = {r}."source_model";'
    counted = (
        ("items", item_in, item_out, '"category", "gold"'),
        ("external_labels", label_in, label_out, '"source", "cohort"'),
        ("suggestions", suggestion_in, suggestion_out, '"source_model", "planted"'),
        ("suggestion_failures", failure_in, failure_out, '"source_model"'),
    )
    for table, count_in, count_out, columns in counted:
        _triggers(db, table, count_in.replace("{r}", "{row}"), count_out.replace("{r}", "{row}"), columns)
    _triggers(db, "assignments", _ASSIGNMENT_IN.replace("{a}", "{row}"), _ASSIGNMENT_OUT.replace("{a}", "{row}"),
              '"annotator_id", "item_id", "purpose"')
    _triggers(db, "judgments", _JUDGMENT_IN.replace("{j}", "{row}"), _JUDGMENT_OUT.replace("{j}", "{row}"),
              '"assignment_id", "superseded_by", "skip_reason", "active_ms"')
    db.execute(
        'CREATE TRIGGER "tally_item_progress" AFTER UPDATE ON "item_progress" BEGIN'
        ' UPDATE "overlap_tally" SET "items" = "items" + (NEW."assigned" > 0) - (OLD."assigned" > 0),'
        ' "full" = "full" + (NEW."assigned" > 0 AND NEW."judged" >= NEW."assigned")'
        ' - (OLD."assigned" > 0 AND OLD."judged" >= OLD."assigned"); END'
    )


def _triggers(db: sqlite_utils.Database, table: str, count_in: str, count_out: str, columns: str) -> None:
    """After insert: count the new row in; after delete: out; after an update of `columns`: the old
    row out and the new one in (`count_in` / `count_out` name the row `{row}`)."""
    new, old = count_in.format(row="NEW"), count_out.format(row="OLD")
    db.execute(f'CREATE TRIGGER "tally_{table}_insert" AFTER INSERT ON "{table}" BEGIN {new} END')
    db.execute(f'CREATE TRIGGER "tally_{table}_delete" AFTER DELETE ON "{table}" BEGIN {old} END')
    db.execute(f'CREATE TRIGGER "tally_{table}_update" AFTER UPDATE OF {columns} ON "{table}" BEGIN {old} {new} END')


_BULK_COUNTS = {
    "items": 'INSERT INTO "item_tally" SELECT coalesce("category", \'\'), count(*), count("gold")'
             ' FROM "items" NOT INDEXED WHERE "rowid" > ? GROUP BY 1 ON CONFLICT ("category") DO UPDATE'
             ' SET "items" = "items" + excluded."items", "gold" = "gold" + excluded."gold"',
    "external_labels": 'INSERT INTO "label_tally" SELECT "source", "cohort", count(*)'
                       ' FROM "external_labels" NOT INDEXED WHERE "rowid" > ? GROUP BY 1, 2'
                       ' ON CONFLICT ("source", "cohort") DO UPDATE'
                       ' SET "labels" = "labels" + excluded."labels"',
}
"""Count a table's rows with rowids above the one given into its tally (its insert trigger's work, in one go).
NOT INDEXED: the rows appended are a range of rowids, read in one pass of the table; else SQLite walks the votes'
unique index (source first, for the GROUP BY) and reads every row from the table by rowid, 3.0 s instead of 0.6 s
for the 1.67M Arena votes."""


def newest_rowid(conn: sqlite3.Connection, table: str) -> int:
    return int(conn.execute(f'SELECT coalesce(max("rowid"), 0) FROM "{table}"').fetchone()[0])


@contextmanager
def counted_in_bulk(conn: sqlite3.Connection, tables: Sequence[str]) -> Iterator[None]:
    """Inside a write transaction: rows appended to `tables` (items, external_labels) in the block are
    counted into their tallies by one aggregate query each at its end, instead of by the insert
    triggers row by row. The insert triggers are dropped for the block and created again from their
    stored SQL before it ends, in the same transaction: no other connection sees the session without
    them, and an error rolls the whole back. Only inserts may be made in the block (other triggers run)."""
    if not conn.in_transaction:
        raise RuntimeError("counted_in_bulk needs the caller's write transaction")
    names = [f"tally_{table}_insert" for table in tables]
    marks = ",".join("?" * len(names))
    triggers = conn.execute(f"SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name IN ({marks})",
                            names).fetchall()
    if len(triggers) != len(names):  # a file without the tallies (before v9 is opened and migrated): leave it be
        yield
        return
    before = {table: newest_rowid(conn, table) for table in tables}
    for name, _ in triggers:
        conn.execute(f'DROP TRIGGER "{name}"')
    yield
    for table in tables:
        conn.execute(_BULK_COUNTS[table], [before[table]])
    for _, sql in triggers:
        conn.execute(sql)
