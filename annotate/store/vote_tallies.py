"""The vote tallies behind the live dashboard (`annotate status --watch`), kept by triggers (migration v12).

A refresh reads these few rows instead of scanning every judgment (`annotate.store.progress`):

- vote_index: one row per vote, i.e. per current judgment that is not a skip, not an adjudication
  and not made under a planted suggestion (annotator, item, label ('' for none), purpose, time:
  active, else submit); indexed by (annotator, time) for medians and fast answers, and by item;
- vote_label_tally: per (annotator, label) the votes and the timed ones;
- one_vote: per (item, annotator) the vote agreement counts: the main one, else the first
  (attention checks left out), as the report's `unique_votes`;
- coincidence_tally: per (m, label c, label k) the ordered pairs of two annotators' one_votes with
  labels c and k on items with m one_votes; Krippendorff's o_ck is the sum over m of pairs / (m - 1);
- unit_tally: items per number m of one_votes;
- agreement_tally: per (annotator, their label c, the other's label k) the pairs with other
  annotators' one_votes on the same items.

Labels are the stored ones: the query maps them to the values agreement compares, which is exact
because every count here is linear in the pairs. Triggers on judgments, assignments and suggestions
refresh the vote rows a change touches, in the same transaction, whoever writes (the app, plans,
merges); triggers on vote_index and one_vote keep the rest. Since migration v15 the one_vote triggers count the
pairs that move from the item's votes by label (O(m) per vote in an item's m votes, not O(m^2)).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from annotate.store._sqlite_utils import sqlite_utils

VOTE_TABLES = ("vote_index", "vote_label_tally", "one_vote", "coincidence_tally", "unit_tally", "agreement_tally")
VOTE_INDEXES = ("idx_judgments_recent", "idx_items_gold", "idx_assignments_adjudication", "idx_assignments_suggestion")
"""The indexes v12 adds to older tables."""

_TABLES = (
    'CREATE TABLE "vote_index" ("judgment_id" INTEGER PRIMARY KEY, "annotator_id" INTEGER NOT NULL,'
    ' "item_id" TEXT NOT NULL, "label" TEXT NOT NULL, "purpose" TEXT NOT NULL, "ms" INTEGER)',
    'CREATE INDEX "idx_vote_index_time" ON "vote_index" ("annotator_id", "ms", "label")',
    'CREATE INDEX "idx_vote_index_item" ON "vote_index" ("item_id", "annotator_id")',
    'CREATE TABLE "vote_label_tally" ("annotator_id" INTEGER NOT NULL, "label" TEXT NOT NULL,'
    ' "votes" INTEGER NOT NULL, "timed" INTEGER NOT NULL, PRIMARY KEY ("annotator_id", "label")) WITHOUT ROWID',
    'CREATE TABLE "one_vote" ("item_id" TEXT NOT NULL, "annotator_id" INTEGER NOT NULL, "label" TEXT NOT NULL,'
    ' PRIMARY KEY ("item_id", "annotator_id")) WITHOUT ROWID',
    'CREATE TABLE "coincidence_tally" ("m" INTEGER NOT NULL, "c" TEXT NOT NULL, "k" TEXT NOT NULL,'
    ' "pairs" INTEGER NOT NULL, PRIMARY KEY ("m", "c", "k")) WITHOUT ROWID',
    'CREATE TABLE "unit_tally" ("m" INTEGER NOT NULL PRIMARY KEY, "items" INTEGER NOT NULL) WITHOUT ROWID',
    'CREATE TABLE "agreement_tally" ("annotator_id" INTEGER NOT NULL, "c" TEXT NOT NULL, "k" TEXT NOT NULL,'
    ' "pairs" INTEGER NOT NULL, PRIMARY KEY ("annotator_id", "c", "k")) WITHOUT ROWID',
    # the recent pace: a range of the current judgments that are not skips, by submit time
    'CREATE INDEX "idx_judgments_recent" ON "judgments" ("submitted_at", "assignment_id")'
    ' WHERE "superseded_by" IS NULL AND "skip_reason" IS NULL',
    # the items with a gold label (the reference for gold accuracy), without reading every item
    'CREATE INDEX "idx_items_gold" ON "items" ("id", "gold") WHERE "gold" IS NOT NULL',
    # the adjudicated reference labels, and the votes a suggestion's change touches
    'CREATE INDEX "idx_assignments_adjudication" ON "assignments" ("item_id") WHERE "purpose" = \'adjudication\'',
    'CREATE INDEX "idx_assignments_suggestion" ON "assignments" ("suggestion_id") WHERE "suggestion_id" IS NOT NULL',
)

_VOTES = (
    'INSERT INTO "vote_index" SELECT j."id", a."annotator_id", a."item_id", coalesce(j."label", \'\'), a."purpose",'
    ' coalesce(j."active_ms", j."submit_ms") FROM "judgments" j JOIN "assignments" a ON a."id" = j."assignment_id"'
    ' LEFT JOIN "suggestions" s ON s."id" = a."suggestion_id" WHERE {where} AND j."superseded_by" IS NULL'
    ' AND j."skip_reason" IS NULL AND a."purpose" != \'adjudication\' AND coalesce(s."planted", 0) = 0;'
)
"""The vote rows of the judgments `{where}` selects (over j, the judgment, and a, its assignment)."""

_BACKFILL = (
    _VOTES.format(where="1").rstrip(";"),
    'INSERT INTO "vote_label_tally" SELECT "annotator_id", "label", count(*), count("ms") FROM "vote_index"'
    ' GROUP BY 1, 2',
    'INSERT INTO "one_vote" SELECT "item_id", "annotator_id", "label" FROM (SELECT "item_id", "annotator_id",'
    ' "label", min(("purpose" != \'main\') * 1000000000000 + "judgment_id") FROM "vote_index"'
    ' WHERE "purpose" != \'attention\' GROUP BY 1, 2)',  # label is the row of the min (SQLite's bare column rule)
    'INSERT INTO "unit_tally" SELECT "m", count(*) FROM (SELECT count(*) AS "m" FROM "one_vote" GROUP BY "item_id")'
    ' GROUP BY 1',
    'INSERT INTO "coincidence_tally" SELECT u."m", x."label", y."label", count(*) FROM "one_vote" x'
    ' JOIN "one_vote" y ON y."item_id" = x."item_id" AND y."annotator_id" != x."annotator_id"'
    ' JOIN (SELECT "item_id", count(*) AS "m" FROM "one_vote" GROUP BY 1) u ON u."item_id" = x."item_id"'
    ' GROUP BY 1, 2, 3',
    'INSERT INTO "agreement_tally" SELECT x."annotator_id", x."label", y."label", count(*) FROM "one_vote" x'
    ' JOIN "one_vote" y ON y."item_id" = x."item_id" AND y."annotator_id" != x."annotator_id" GROUP BY 1, 2, 3',
)

_ADD = ' WHERE 1 ON CONFLICT DO UPDATE SET "{column}" = "{column}" + excluded."{column}";'
"""Add the selected rows to a tally (`WHERE 1`: SQLite's rule for an upsert from a SELECT)."""

_M = '(SELECT count(*) FROM "one_vote" WHERE "item_id" = {r}."item_id")'
"""The item's one_votes now (after the row {r} went in or out)."""

_PAIRS = (
    'FROM "one_vote" x JOIN "one_vote" y ON y."item_id" = x."item_id" AND y."annotator_id" != x."annotator_id"'
    ' WHERE x."item_id" = {r}."item_id"{but} GROUP BY x."label", y."label"'
)
_BUT = ' AND x."annotator_id" != {r}."annotator_id" AND y."annotator_id" != {r}."annotator_id"'
_OTHERS = 'FROM "one_vote" y WHERE y."item_id" = {r}."item_id" AND y."annotator_id" != {r}."annotator_id"'


_LABEL_COUNTS = (
    '(SELECT "label", count(*) AS "n" FROM "one_vote" WHERE "item_id" = {r}."item_id"'
    ' AND "annotator_id" != {r}."annotator_id" GROUP BY "label")'
)
"""The item's other one_votes (all but {r}'s) counted by label."""

_LABEL_PAIRS = 'a."n" * (b."n" - (a."label" = b."label"))'
"""The ordered pairs of two annotators' votes with labels a and b: n_a x n_b, n_a x (n_a - 1) for a = b."""


def _one_vote_change(r: str, sign: int, pairs_by_label: bool = False) -> str:
    """Statements counting the one_vote {r} in (sign 1, after its insert) or out (-1, after its delete).

    The item's pairs move from m - 1 to m one_votes (in; m counted now) or from m + 1 to m (out):
    the pairs without {r} move, the pairs with {r} (both orders) come or go with it. With
    `pairs_by_label` (v15) the pairs that move are computed from the item's votes counted by label,
    O(m) per vote, instead of joining the item's votes with themselves, O(m^2) (v12); the rows and
    counts are the same."""
    m = _M.format(r=r)
    now, was = (m, f"{m} - 1") if sign > 0 else (m, f"{m} + 1")
    with_r = f"{m}" if sign > 0 else f"{m} + 1"
    minus = "-" if sign < 0 else ""
    others = _OTHERS.format(r=r)
    if pairs_by_label:
        counts = _LABEL_COUNTS.format(r=r)
        moved = f'FROM {counts} a JOIN {counts} b WHERE {_LABEL_PAIRS} > 0'
        pairs_out = f'SELECT {was}, a."label", b."label", -({_LABEL_PAIRS}) {moved}'
        pairs_in = f'SELECT {now}, a."label", b."label", {_LABEL_PAIRS} {moved}'
    else:
        pairs_but = _PAIRS.format(r=r, but=_BUT.format(r=r))
        pairs_out = f'SELECT {was}, x."label", y."label", -count(*) {pairs_but}'
        pairs_in = f'SELECT {now}, x."label", y."label", count(*) {pairs_but}'
    return (
        f'INSERT INTO "unit_tally" SELECT * FROM (SELECT {was} AS m, -1 UNION ALL SELECT {now}, 1) WHERE m > 0'
        ' ON CONFLICT DO UPDATE SET "items" = "items" + excluded."items";'
        f' INSERT INTO "coincidence_tally" SELECT * FROM ('
        f'{pairs_out}'
        f' UNION ALL {pairs_in}'
        f' UNION ALL SELECT {with_r}, {r}."label", y."label", {minus}count(*) {others} GROUP BY y."label"'
        f' UNION ALL SELECT {with_r}, y."label", {r}."label", {minus}count(*) {others} GROUP BY y."label")'
        + _ADD.format(column="pairs")
        + f' INSERT INTO "agreement_tally" SELECT * FROM ('
        f'SELECT {r}."annotator_id", {r}."label", y."label", {minus}count(*) {others} GROUP BY y."label"'
        f' UNION ALL SELECT y."annotator_id", y."label", {r}."label", {minus}count(*) {others}'
        ' GROUP BY y."annotator_id", y."label")' + _ADD.format(column="pairs")
    )


_ONE_VOTE_IN = _one_vote_change("NEW", 1)
_ONE_VOTE_OUT = _one_vote_change("OLD", -1)
"""The one_vote triggers as v12 made them (replaced in v15 by `count_pairs_by_label`)."""

_CHOSEN = (
    'SELECT "item_id", "annotator_id", "label" FROM "vote_index" WHERE "item_id" = {r}."item_id"'
    ' AND "annotator_id" = {r}."annotator_id" AND "purpose" != \'attention\''
    ' ORDER BY "purpose" != \'main\', "judgment_id" LIMIT 1'
)
_CHOOSE_ONE = (
    'DELETE FROM "one_vote" WHERE "item_id" = {r}."item_id" AND "annotator_id" = {r}."annotator_id"'
    ' AND "label" IS NOT (SELECT "label" FROM (' + _CHOSEN + '));'
    ' INSERT INTO "one_vote" SELECT * FROM (' + _CHOSEN + ') WHERE NOT EXISTS (SELECT 1 FROM "one_vote"'
    ' WHERE "item_id" = {r}."item_id" AND "annotator_id" = {r}."annotator_id");'
)
"""Choose the (item, annotator)'s one_vote again after the vote row {r} went in or out; a one_vote
whose label stays is left alone (a revision to the same label changes no pair)."""

_DROP_VOTES = 'DELETE FROM "vote_index" WHERE "judgment_id" IN (SELECT j."id" FROM "judgments" j {where});'


def _trigger(db: sqlite_utils.Database, name: str, event: str, table: str, body: str, when: str = "") -> None:
    when_clause = f" WHEN {when}" if when else ""
    db.execute(f'CREATE TRIGGER "{name}" AFTER {event} ON "{table}"{when_clause} BEGIN {body} END')


def create_vote_tallies(db: sqlite_utils.Database) -> None:
    """Create the tables, fill them from the rows, and create the triggers that keep them."""
    for sql in _TABLES + _BACKFILL:
        db.execute(sql)
    label_in = ('INSERT INTO "vote_label_tally" VALUES (NEW."annotator_id", NEW."label", 1, NEW."ms" IS NOT NULL)'
                ' ON CONFLICT DO UPDATE SET "votes" = "votes" + 1, "timed" = "timed" + excluded."timed";')
    label_out = ('UPDATE "vote_label_tally" SET "votes" = "votes" - 1, "timed" = "timed" - (OLD."ms" IS NOT NULL)'
                 ' WHERE "annotator_id" = OLD."annotator_id" AND "label" = OLD."label";')
    _trigger(db, "votes_vote_index_insert", "INSERT", "vote_index", label_in)
    _trigger(db, "votes_vote_index_delete", "DELETE", "vote_index", label_out)
    _trigger(db, "votes_one_vote_choose_insert", "INSERT", "vote_index", _CHOOSE_ONE.format(r="NEW"),
             when="NEW.\"purpose\" != 'attention'")
    _trigger(db, "votes_one_vote_choose_delete", "DELETE", "vote_index", _CHOOSE_ONE.format(r="OLD"),
             when="OLD.\"purpose\" != 'attention'")
    _trigger(db, "votes_one_vote_insert", "INSERT", "one_vote", _ONE_VOTE_IN)
    _trigger(db, "votes_one_vote_delete", "DELETE", "one_vote", _ONE_VOTE_OUT)

    drop_judgment = 'DELETE FROM "vote_index" WHERE "judgment_id" = OLD."id";'
    _trigger(db, "votes_judgments_insert", "INSERT", "judgments", _VOTES.format(where='j."id" = NEW."id"'))
    _trigger(db, "votes_judgments_delete", "DELETE", "judgments", drop_judgment)
    _trigger(db, "votes_judgments_update",
             'UPDATE OF "id", "assignment_id", "label", "skip_reason", "superseded_by", "active_ms", "submit_ms"',
             "judgments", drop_judgment + _VOTES.format(where='j."id" = NEW."id"'))
    of_assignment = 'WHERE j."assignment_id" = {r}."id"'
    for event, drop, add in (
        ("INSERT", "", "NEW"), ("DELETE", "OLD", ""),
        ('UPDATE OF "id", "annotator_id", "item_id", "purpose", "suggestion_id"', "OLD", "NEW"),
    ):
        body = (_DROP_VOTES.format(where=of_assignment.format(r=drop)) if drop else "") + (
            _VOTES.format(where=f'a."id" = {add}."id"') if add else "")
        _trigger(db, f"votes_assignments_{event.split()[0].lower()}", event, "assignments", body)
    of_suggestion = 'JOIN "assignments" a ON a."id" = j."assignment_id" WHERE a."suggestion_id" = {r}."id"'
    for event, drop, add in (
        ("INSERT", "NEW", "NEW"), ("DELETE", "OLD", "OLD"), ('UPDATE OF "id", "planted"', "OLD", "NEW"),
    ):  # an assignment may name a suggestion that is not (or no longer) there: its votes count as unplanted
        body = _DROP_VOTES.format(where=of_suggestion.format(r=drop)) + _VOTES.format(
            where=f'a."suggestion_id" = {add}."id"')
        _trigger(db, f"votes_suggestions_{event.split()[0].lower()}", event, "suggestions", body)


def count_pairs_by_label(db: sqlite_utils.Database) -> None:
    """Make the one_vote triggers count the pairs that move from the item's votes by label, O(m) per
    vote instead of O(m^2) (migration v15; the tallies they keep are the same, so nothing is refilled).
    With many annotators on one item the self-join was most of a submit's CPU, inside the write lock
    (docs/scaling.md, "Annotators writing at once")."""
    for name, event, table, r, sign in (("votes_one_vote_insert", "INSERT", "one_vote", "NEW", 1),
                                        ("votes_one_vote_delete", "DELETE", "one_vote", "OLD", -1)):
        db.execute(f'DROP TRIGGER IF EXISTS "{name}"')
        _trigger(db, name, event, table, _one_vote_change(r, sign, pairs_by_label=True))
