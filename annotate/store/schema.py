"""The session file's tables (DESIGN.md section 3) and the migrations that build them.

The schema version lives in SQLite's `PRAGMA user_version`. Each migration is a function that
takes the database from version N-1 to N; `migrate` runs the missing ones in one transaction,
so a file is never left half-migrated. Add a migration by appending a function to MIGRATIONS;
never edit one that has shipped.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from annotate.store.tally_schema import _v9_tallies

if TYPE_CHECKING:
    from annotate.store._sqlite_utils import sqlite_utils


def _v1_initial(db: sqlite_utils.Database) -> None:
    db["meta"].create({"key": str, "value": str}, pk="key")
    db["items"].create(
        {
            "id": str, "kind": str, "conversation": str, "responses": str, "category": str,
            "gold": str, "metadata": str, "content_hash": str, "source": str, "created": str,
        },
        pk="id", not_null={"kind", "conversation", "responses", "content_hash"},
    )
    db["annotators"].create(
        {"id": int, "name": str, "cohort": str, "created": str},
        pk="id", not_null={"name", "cohort"},
    )
    db["annotators"].create_index(["name"], unique=True)
    db["suggestions"].create(
        {
            "id": int, "item_id": str, "source_model": str, "label": str, "rationale": str,
            "swapped_label": str, "planted": int, "prompt_hash": str, "raw": str, "created": str,
        },
        pk="id", foreign_keys=[("item_id", "items", "id")], not_null={"item_id", "label"},
    )
    db["assignments"].create(
        {
            "id": int, "annotator_id": int, "item_id": str, "position": int, "swapped": int,
            "condition": str, "purpose": str, "suggestion_id": int, "seed": int, "created": str,
        },
        pk="id",
        foreign_keys=[
            ("annotator_id", "annotators", "id"), ("item_id", "items", "id"),
            ("suggestion_id", "suggestions", "id"),
        ],
        not_null={"annotator_id", "item_id", "position", "swapped", "condition", "purpose"},
        defaults={"swapped": 0, "condition": "none", "purpose": "main"},
    )
    db["assignments"].create_index(["annotator_id", "position"], unique=True)
    db["assignments"].create_index(["item_id"])
    db["judgments"].create(
        {
            "id": int, "uid": str, "assignment_id": int, "label": str, "initial_label": str,
            "scores": str, "rationale": str, "confidence": int, "guideline_id": str,
            "guideline_version": str, "skip_reason": str, "shown_at": str,
            "first_input_ms": int, "submit_ms": int, "active_ms": int, "timings": str,
            "submitted_at": str, "app_version": str, "superseded_by": int,
        },
        pk="id", foreign_keys=[("assignment_id", "assignments", "id")],
        not_null={"uid", "assignment_id", "submitted_at"},
    )
    db["judgments"].create_index(["uid"], unique=True)
    db["judgments"].create_index(["assignment_id"])
    db["events"].create(
        {
            "id": int, "uid": str, "assignment_id": int, "annotator_id": int, "judgment_id": int,
            "mono_ns": int, "wall_time": str, "kind": str, "payload": str,
        },
        pk="id",
        foreign_keys=[
            ("assignment_id", "assignments", "id"), ("annotator_id", "annotators", "id"),
            ("judgment_id", "judgments", "id"),
        ],
        not_null={"uid", "kind", "mono_ns", "wall_time"},
    )
    db["events"].create_index(["uid"], unique=True)
    db["events"].create_index(["assignment_id"])
    db["external_labels"].create(
        {
            "id": int, "source": str, "rater": str, "cohort": str, "item_id": str,
            "label": str, "raw": str, "created": str,
        },
        pk="id", foreign_keys=[("item_id", "items", "id")],
        not_null={"source", "rater", "cohort", "item_id", "label"},
    )
    db["external_labels"].create_index(["source", "rater", "item_id"], unique=True)


def _v2_suggestion_failures(db: sqlite_utils.Database) -> None:
    """LLM replies that gave no verdict (kept with the raw reply, never as a label), and an index
    for looking suggestions up by item and source."""
    db["suggestion_failures"].create(
        {
            "id": int, "item_id": str, "source_model": str, "prompt_hash": str, "error": str,
            "raw": str, "created": str,
        },
        pk="id", foreign_keys=[("item_id", "items", "id")],
        not_null={"item_id", "source_model", "error", "created"},
    )
    db["suggestion_failures"].create_index(["item_id"])
    db["suggestions"].create_index(["item_id", "source_model", "prompt_hash"])


def _v3_merges(db: sqlite_utils.Database) -> None:
    """A log of `annotate merge`: which file was merged when, and what it brought."""
    db["merges"].create(
        {
            "id": int, "source": str, "sha256": str, "merged_at": str, "items": int, "annotators": int,
            "assignments": int, "judgments": int, "events": int, "conflicts": int, "details": str,
        },
        pk="id", not_null={"source", "sha256", "merged_at"},
    )


def _rebuild_autoincrement(db: sqlite_utils.Database, table: str) -> None:
    """Rebuild `table` with `id INTEGER PRIMARY KEY AUTOINCREMENT`, rows, ids and indexes kept.

    Without AUTOINCREMENT SQLite hands out max(id) + 1, so deleting the rows with the highest ids
    and inserting new ones reuses their ids. Runs inside the migration's transaction with foreign
    keys off (Store.open migrates before it turns them on); other tables' references name the
    table, so they hold again once the rebuilt table takes the old name.
    """
    create = db.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", [table]).fetchone()[0]
    indexes = [r[0] for r in db.execute(
        "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL", [table]
    ).fetchall()]
    head = f'CREATE TABLE "{table}" ('
    if not create.startswith(head) or '"id" INTEGER PRIMARY KEY,' not in create:
        raise RuntimeError(f"the session file's {table} table has an unexpected shape; cannot migrate it")
    staging = f"{table}_rebuild"
    db.execute(
        create.replace(head, f'CREATE TABLE "{staging}" (', 1)
        .replace('"id" INTEGER PRIMARY KEY,', '"id" INTEGER PRIMARY KEY AUTOINCREMENT,', 1)
    )
    db.execute(f'INSERT INTO "{staging}" SELECT * FROM "{table}"')
    db.execute(f'DROP TABLE "{table}"')
    db.execute(f'ALTER TABLE "{staging}" RENAME TO "{table}"')
    for sql in indexes:
        db.execute(sql)


def _v4_identity(db: sqlite_utils.Database) -> None:
    """Identity that cannot be confused (issue: judgments filed on the wrong item).

    - Assignment and suggestion ids are never reused (AUTOINCREMENT): an app that still shows an
      assignment a plan has since deleted can never have its answer filed on a newer one.
    - A judgment records the item it was made on (`item_id`) and the sitting it came from.
    - `sittings`: who has the app open where (one annotator, one sitting), with a heartbeat so a
      sitting left by a crashed app expires; `display` says terminal or browser.
    - Indexes for reading a queue a slice at a time, whatever the session's size.
    """
    _rebuild_autoincrement(db, "suggestions")
    _rebuild_autoincrement(db, "assignments")
    db.execute('ALTER TABLE "judgments" ADD COLUMN "item_id" TEXT')
    db.execute(
        'UPDATE "judgments" SET "item_id" = (SELECT a."item_id" FROM "assignments" a'
        ' WHERE a."id" = "judgments"."assignment_id")'
    )
    db.execute('ALTER TABLE "judgments" ADD COLUMN "sitting_id" INTEGER')
    db.execute(
        'CREATE TABLE "sittings" ('
        ' "id" INTEGER PRIMARY KEY AUTOINCREMENT,'
        ' "annotator_id" INTEGER NOT NULL REFERENCES "annotators"("id"),'
        ' "token" TEXT NOT NULL,'
        ' "host" TEXT NOT NULL,'
        ' "pid" INTEGER NOT NULL,'
        ' "display" TEXT NOT NULL,'
        ' "terminal" TEXT,'
        ' "started" TEXT NOT NULL,'
        ' "heartbeat" TEXT NOT NULL,'
        ' "heartbeat_unix" REAL NOT NULL,'
        ' "ended" TEXT,'
        ' "end_reason" TEXT)'
    )
    db.execute('CREATE UNIQUE INDEX "idx_sittings_token" ON "sittings" ("token")')
    db.execute('CREATE INDEX "idx_sittings_open" ON "sittings" ("annotator_id", "ended")')
    # An annotator's queue is read a slice at a time (store/queues.py): these cover its queries.
    db.execute('CREATE INDEX "idx_assignments_queue" ON "assignments" ("annotator_id", "position", "purpose")')
    db.execute(
        'CREATE INDEX "idx_judgments_current" ON "judgments" ("assignment_id") WHERE "superseded_by" IS NULL'
    )


def _v5_external_label_order(db: sqlite_utils.Database) -> None:
    """The slot an imported rater saw first (`A`, `B`; NULL when the file does not say), for the
    position bias of LLM judges and crowd raters."""
    db["external_labels"].add_column("shown_first", str)


def _v6_links(db: sqlite_utils.Database) -> None:
    """Private browser links (`annotate serve`): one live link per annotator and one for the lead.

    Only a hash of each link's secret is stored, never the secret; a renewed or revoked link keeps
    its row with `revoked` set, so the file says when each link stopped working.
    """
    db.execute(
        "CREATE TABLE links ("
        " id INTEGER PRIMARY KEY AUTOINCREMENT,"
        " role TEXT NOT NULL CHECK (role IN ('annotator', 'lead')),"
        " annotator_id INTEGER REFERENCES annotators(id),"
        " secret_sha256 TEXT NOT NULL,"
        " created TEXT NOT NULL,"
        " revoked TEXT,"
        " revoke_reason TEXT,"
        " CHECK ((role = 'lead') = (annotator_id IS NULL)))"
    )
    db.execute("CREATE UNIQUE INDEX idx_links_secret ON links (secret_sha256)")
    db.execute(
        "CREATE UNIQUE INDEX idx_links_live ON links (role, coalesce(annotator_id, 0)) WHERE revoked IS NULL"
    )


def _v7_display_order(db: sqlite_utils.Database) -> None:
    """The display order of a ranking assignment: the slots at positions 1, 2, ... as one string
    (`CADB`: slot C shown first); NULL for pairs, whose `swapped` flag says it, and single responses."""
    db["assignments"].add_column("display_order", str)


def _v8_flags(db: sqlite_utils.Database) -> None:
    """Flags (annotate.flags): an annotator's word that an item has a problem, per assignment, kept
    when cleared (who and when); and the key of the session's item references (annotate.refs)."""
    db.execute(
        "CREATE TABLE flags ("
        " id INTEGER PRIMARY KEY AUTOINCREMENT,"
        " uid TEXT NOT NULL,"
        " assignment_id INTEGER NOT NULL REFERENCES assignments(id),"
        " item_id TEXT NOT NULL REFERENCES items(id),"
        " annotator_id INTEGER NOT NULL REFERENCES annotators(id),"
        " kind TEXT NOT NULL,"
        " note TEXT NOT NULL DEFAULT '',"
        " created TEXT NOT NULL,"
        " cleared TEXT,"
        " cleared_by TEXT,"
        " clear_note TEXT NOT NULL DEFAULT '')"
    )
    db.execute("CREATE UNIQUE INDEX idx_flags_uid ON flags (uid)")
    db.execute("CREATE INDEX idx_flags_assignment ON flags (assignment_id)")
    db.execute("CREATE INDEX idx_flags_item ON flags (item_id)")
    from annotate.refs import REF_KEY_META, new_ref_key

    db.execute("INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)", [REF_KEY_META, new_ref_key()])


def _v10_spans(db: sqlite_utils.Database) -> None:
    """Error spans: stretches of a response an annotator marked, one row each, written in the same
    transaction as the judgment they belong to. Offsets are Python str indices (code points) into
    the slot's original response text, `char_start` inclusive, `char_end` exclusive; the slot is a
    response slot (A, B), never a screen side."""
    db.execute(
        "CREATE TABLE spans ("
        " id INTEGER PRIMARY KEY AUTOINCREMENT,"
        " judgment_id INTEGER NOT NULL REFERENCES judgments(id),"
        " slot TEXT NOT NULL,"
        " char_start INTEGER NOT NULL,"
        " char_end INTEGER NOT NULL,"
        " category TEXT NOT NULL,"
        " severity TEXT NOT NULL,"
        " note TEXT NOT NULL DEFAULT '',"
        " CHECK (0 <= char_start AND char_start < char_end))"
    )
    db.execute("CREATE INDEX idx_spans_judgment ON spans (judgment_id)")


def _v11_training(db: sqlite_utils.Database) -> None:
    """A training round (annotate.training): training items (gold and an explanation), each
    annotator's rounds of them (order, side, answer in slot space, when the feedback was dismissed)
    and the lead's word on who may work (`pass` / `revoke`, kept as a history: the latest counts).
    Apart from items, assignments and judgments, so nothing of the main queue can count them."""
    db.execute(
        "CREATE TABLE training_items ("
        " id TEXT PRIMARY KEY,"
        " item TEXT NOT NULL,"
        " gold TEXT NOT NULL,"
        " explanation TEXT NOT NULL,"
        " content_hash TEXT NOT NULL,"
        " source TEXT NOT NULL DEFAULT '',"
        " created TEXT NOT NULL)"
    )
    db.execute(
        "CREATE TABLE training_answers ("
        " id INTEGER PRIMARY KEY AUTOINCREMENT,"
        " annotator_id INTEGER NOT NULL REFERENCES annotators(id),"
        " item_id TEXT NOT NULL REFERENCES training_items(id),"
        " attempt INTEGER NOT NULL,"
        " position INTEGER NOT NULL,"
        " swapped INTEGER NOT NULL,"
        " label TEXT,"
        " answered_at TEXT,"
        " acknowledged_at TEXT,"
        " UNIQUE (annotator_id, attempt, position))"
    )
    db.execute(
        "CREATE TABLE training_overrides ("
        " id INTEGER PRIMARY KEY AUTOINCREMENT,"
        " annotator_id INTEGER NOT NULL REFERENCES annotators(id),"
        " action TEXT NOT NULL CHECK (action IN ('pass', 'revoke')),"
        " by TEXT NOT NULL,"
        " note TEXT NOT NULL DEFAULT '',"
        " created TEXT NOT NULL)"
    )


def _v12_dashboard_tallies(db: sqlite_utils.Database) -> None:
    """Vote tallies kept by triggers, so a refresh of the live dashboard reads a few rows per annotator
    and label instead of scanning every judgment (annotate/store/vote_tallies.py says what each holds).

    It reads and indexes only tables of v10 and before, so it applies after whatever v11 is; a
    migration after it that rebuilds judgments, assignments or suggestions must create its
    triggers again."""
    from annotate.store.vote_tallies import create_vote_tallies

    create_vote_tallies(db)


def _v13_open_queue(db: sqlite_utils.Database) -> None:
    """The assignments without a current judgment, kept by triggers, so the app's start finds an
    annotator's first unanswered entry by one seek (annotate/store/open_queue.py)."""
    from annotate.store.open_queue import create_open_queue

    create_open_queue(db)


def _v14_item_facts(db: sqlite_utils.Database) -> None:
    """Facts kept per item from its import (its slots' models and lengths, a pairwise item's style
    counts), so a report does not parse every item's responses (annotate/store/item_facts.py)."""
    from annotate.store.item_facts import create_item_facts

    create_item_facts(db)


def _v15_vote_pairs_by_label(db: sqlite_utils.Database) -> None:
    """The one_vote triggers count an item's pairs of votes from its votes by label (O(m) per vote, not
    O(m^2)): the same tallies, a submit's CPU no longer growing with the square of an item's votes."""
    from annotate.store.vote_tallies import count_pairs_by_label

    count_pairs_by_label(db)


Migration = Callable[["sqlite_utils.Database"], None]

MIGRATIONS: tuple[Migration, ...] = (
    _v1_initial, _v2_suggestion_failures, _v3_merges, _v4_identity, _v5_external_label_order, _v6_links,
    _v7_display_order, _v8_flags, _v9_tallies, _v10_spans, _v11_training, _v12_dashboard_tallies,
    _v13_open_queue, _v14_item_facts, _v15_vote_pairs_by_label,
)
"""MIGRATIONS[i] takes the schema from version i to version i + 1."""

SCHEMA_VERSION = len(MIGRATIONS)


def schema_version(db: sqlite_utils.Database) -> int:
    """The version the file is at (0 for a new, empty file)."""
    return int(db.execute("PRAGMA user_version").fetchone()[0])


def migrate(db: sqlite_utils.Database) -> int:
    """Bring the file to SCHEMA_VERSION; returns the number of migrations applied.

    Raises RuntimeError for a file written by a newer version of annotate.
    """
    current = schema_version(db)
    if current > SCHEMA_VERSION:
        raise RuntimeError(
            f"the session file is at schema version {current}, newer than this annotate "
            f"understands ({SCHEMA_VERSION}); upgrade annotate"
        )
    if current == SCHEMA_VERSION:
        return 0
    db.execute("BEGIN IMMEDIATE")
    try:
        current = schema_version(db)  # another process may have migrated meanwhile
        for version in range(current, SCHEMA_VERSION):
            MIGRATIONS[version](db)
            db.execute(f"PRAGMA user_version = {version + 1}")
        db.execute("COMMIT")
    except BaseException:
        db.conn.rollback()
        raise
    return SCHEMA_VERSION - current
