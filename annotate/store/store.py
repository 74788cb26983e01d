"""The typed API over one session's SQLite file. The only place in annotate that speaks SQL.

Every write happens in one `BEGIN IMMEDIATE` transaction, so a submit (judgment plus its events)
either lands whole or not at all, and several annotators' processes can write one file at once:
WAL lets readers go on while one writer holds the lock, and the busy timeout makes a writer wait
for the lock instead of failing with "database is locked".
"""

from __future__ import annotations

import itertools
import json
import random
import sqlite3
import time
import uuid
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from annotate import __version__
from annotate.model import (
    Annotator,
    Assignment,
    Event,
    ExternalLabel,
    Item,
    Judgment,
    Suggestion,
    Timings,
)
from annotate.store import health
from annotate.store._sqlite_utils import sqlite_utils
from annotate.store.codec import content_hash, dumps, item_from_row, item_row
from annotate.store.errors import StoreError
from annotate.store.schema import migrate
from annotate.store.spans import insert_spans, response_texts, with_spans

if TYPE_CHECKING:
    import pandas as pd

    from annotate.design.spans import Taxonomy

BUSY_TIMEOUT_MS = 30_000
READ_ONLY_BY_CHOICE = "opened read-only, only to watch it"
"""The read-only reason of a file this user could write but opened with `read_only=True`."""


class ItemConflict(StoreError):
    """An item id already stored with different content."""


class StaleAssignment(StoreError):
    """A write for an assignment that is gone, or is no longer what was on screen (another item,
    sides, condition or suggestion): refused, so an answer is never filed on the wrong item."""


STALE_ANSWER = (
    "this answer was NOT saved: the item on screen is no longer in {annotator}'s queue as it was shown"
    " (the session was planned again while the app was open); open the queue again to go on"
)


def utc_now() -> str:
    """The current UTC time, ISO-8601 with milliseconds."""
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def new_uid() -> str:
    return uuid.uuid4().hex


@dataclass(frozen=True)
class AddResult:
    """What a bulk add did: rows added and rows already there unchanged."""

    added: int
    unchanged: int


@dataclass(frozen=True)
class Progress:
    """One annotator's progress through their queue."""

    total: int
    done: int
    skipped: int
    next_position: int | None
    """Position of the first assignment with no current judgment, or None when all are done."""


@dataclass(frozen=True)
class SuggestionFailure:
    """An LLM reply that gave no usable verdict for an item (`annotate suggest`)."""

    item_id: str
    source_model: str
    prompt_hash: str
    error: str
    """Why: no verdict found, HTTP status, timeout after retries..."""
    raw: str = ""
    """The reply (or replies, as JSON) verbatim; untrusted text."""
    created: str = ""


class Store:
    """One session file. Open with `Store.open(path)`; use as a context manager to close."""

    def __init__(self, db: sqlite_utils.Database, path: Path, read_only: str = "") -> None:
        self.db = db
        self.path = path
        self.read_only_reason = read_only
        """Why this user cannot write the file ("" when they can); every write is then refused."""
        self._wal = None if read_only else health.WalWatch(path, db)
        self._spans_table: bool | None = None

    @property
    def has_spans(self) -> bool:
        """Whether the file has the spans table (a read-only file of an older version may not)."""
        if self._spans_table is None:
            self._spans_table = self.db.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'spans'").fetchone() is not None
        return self._spans_table

    def with_spans(self, judgments: list[Judgment]) -> list[Judgment]:
        """The judgments with their error spans attached (annotate.store.spans)."""
        return with_spans(self.db, judgments) if self.has_spans and judgments else judgments

    @property
    def read_only(self) -> bool:
        return bool(self.read_only_reason)

    # -- opening ---------------------------------------------------------------------------

    @classmethod
    @health.session_file_errors
    def open(cls, path: Path | str, create: bool = False, read_only: bool = False) -> Store:
        """Open a session file; with create=True make it (and migrate) when it is missing. A file
        this user cannot write is opened read-only, and so is any file with read_only=True (a
        watcher such as `status --watch`: it never migrates, writes or takes a write lock); a
        broken one is a SessionFileError that says what is wrong and what to do (store/health.py)."""
        path = Path(path)
        health.check_before_open(path, create and not read_only)
        access = health.access(path)
        if read_only and access.mode == "rw":
            access = health.Access("ro", READ_ONLY_BY_CHOICE)
        if access.mode != "rw":
            return cls._open_read_only(path, access)
        conn = health.connect(str(path), timeout=BUSY_TIMEOUT_MS / 1000, check_same_thread=False)
        db = sqlite_utils.Database(conn)
        db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        health.check_opened(db, path)
        if db.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
            _retry_locked(lambda: db.execute("PRAGMA journal_mode = wal"))
        db.execute("PRAGMA synchronous = FULL")
        migrate(db)  # foreign keys off: a migration may rebuild a table others refer to
        db.execute("PRAGMA foreign_keys = ON")
        return cls(db, path)

    @classmethod
    def _open_read_only(cls, path: Path, access: health.Access) -> Store:
        """A session this user cannot write: opened read-only, never migrated; writes are refused."""
        if not path.exists():
            raise health.SessionFileError(f"{health.shown(path)}: cannot create it: {access.reason}")
        conn = health.connect(
            health.read_only_uri(path, access.mode), uri=True, timeout=BUSY_TIMEOUT_MS / 1000,
            check_same_thread=False,
        )
        db = sqlite_utils.Database(conn)
        db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        db.execute("PRAGMA foreign_keys = ON")
        health.check_opened(db, path, read_only=access.reason)
        return cls(db, path, read_only=access.reason)

    def require_writable(self, what: str) -> None:
        """Refuse up front (SessionFileError) work that will write, on a session this user cannot write."""
        if self.read_only:
            raise health.read_only_error(self.path, self.read_only_reason, what)

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, exc_type: object, exc: BaseException | None, tb: object) -> None:
        """Close; an SQLite error about the file itself leaves as a SessionFileError naming it."""
        self.close()
        if exc is not None:
            found = health.translate(exc, self.path, self.read_only_reason)
            if found is not None and found is not exc:
                raise found from exc

    @contextmanager
    def transaction(self) -> Iterator[sqlite_utils.Database]:
        """One write transaction that takes the write lock up front (BEGIN IMMEDIATE)."""
        self.require_writable("this command writes to it")
        if self.db.conn.in_transaction:
            with self.db.atomic():
                yield self.db
            return
        begin_immediate(self.db)
        try:
            if self._wal is not None:
                self._wal.check()
            yield self.db
        except BaseException:
            self.db.conn.rollback()
            raise
        self.db.execute("COMMIT")
        if self._wal is not None:
            self._wal.check(committed=True)

    # -- meta ------------------------------------------------------------------------------

    def get_meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", [key]).fetchone()
        return None if row is None else row[0]

    def set_meta(self, key: str, value: str) -> None:
        with self.transaction() as db:
            db["meta"].upsert({"key": key, "value": value}, pk="key")

    # -- items -----------------------------------------------------------------------------

    def add_items(self, items: Sequence[Item], source: str = "") -> AddResult:
        """Add items atomically. An id already stored with the same content is left alone
        (so importing a file twice changes nothing); with different content the whole add is
        refused with ItemConflict naming the id."""
        ids = [item.id for item in items]
        seen: set[str] = set()
        for item_id in ids:
            if item_id in seen:
                raise ItemConflict(f"item id {item_id!r} appears twice in the input")
            seen.add(item_id)
        created = utc_now()
        with self.transaction() as db:
            stored = self._hashes(ids)
            new_rows = []
            for item in items:
                old = stored.get(item.id)
                if old is None:
                    new_rows.append(item_row(item, source, created))
                elif old != content_hash(item):
                    raise ItemConflict(
                        f"item id {item.id!r} is already stored with different content; "
                        "give the new version another id"
                    )
            if new_rows:
                db["items"].insert_all(new_rows, batch_size=500)
        return AddResult(added=len(new_rows), unchanged=len(items) - len(new_rows))

    def conflicting_item_ids(self, items: Sequence[Item]) -> list[str]:
        """Ids of `items` already stored with different content (what add_items would refuse),
        in input order; lets an importer name the offending line before it writes anything."""
        stored = self._hashes([item.id for item in items])
        return [
            item.id for item in items
            if item.id in stored and stored[item.id] != content_hash(item)
        ]

    def add_items_and_labels(
        self, items: Sequence[Item], labels: Sequence[ExternalLabel], source: str = ""
    ) -> tuple[AddResult, AddResult]:
        """add_items then add_external_labels in ONE transaction: an import that brings items
        and their votes (Arena, MT-Bench) lands whole or not at all. The inner calls' own
        transactions (and ensure_annotator's) nest as savepoints of this one."""
        with self.transaction():
            added_items = self.add_items(items, source)
            added_labels = self.add_external_labels(labels)
        return added_items, added_labels

    def _hashes(self, ids: Sequence[str]) -> dict[str, str]:
        found: dict[str, str] = {}
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            marks = ",".join("?" * len(chunk))
            sql = f"SELECT id, content_hash FROM items WHERE id IN ({marks})"
            found.update(dict(self.db.execute(sql, chunk).fetchall()))
        return found

    def item(self, item_id: str) -> Item:
        rows = list(self.db.query("SELECT * FROM items WHERE id = ?", [item_id]))
        if not rows:
            raise KeyError(f"no item {item_id!r}")
        return item_from_row(rows[0])

    def items(self) -> list[Item]:
        return [item_from_row(r) for r in self.db.query("SELECT * FROM items ORDER BY rowid")]

    def iter_items(self) -> Iterator[Item]:
        """Every item in the order they were added, decoded one at a time (for exports that stream)."""
        for row in self._stream("SELECT * FROM items ORDER BY rowid"):
            yield item_from_row(row)

    def _stream(self, sql: str, params: Sequence[Any] = (), batch: int = 1000) -> Iterator[dict[str, Any]]:
        """Rows of a read query as dicts, fetched `batch` at a time from a cursor of their own."""
        cursor = self.db.conn.execute(sql, list(params))
        keys = [d[0] for d in cursor.description]
        while rows := cursor.fetchmany(batch):
            for row in rows:
                yield dict(zip(keys, row, strict=True))

    def item_ids(self) -> list[str]:
        return [r[0] for r in self.db.execute("SELECT id FROM items ORDER BY rowid")]

    def newest_item_rowid(self) -> int:
        """The largest item rowid (0 without items); items are never deleted, so it only grows."""
        return int(self.db.execute("SELECT coalesce(max(rowid), 0) FROM items").fetchone()[0])

    def count_items(self) -> int:
        return int(self.db.execute("SELECT count(*) FROM items").fetchone()[0])

    def has_answers(self) -> bool:
        """Whether any judgment, imported vote or suggestion is stored (answers in the label schema)."""
        return any(
            self.db.execute(f"SELECT EXISTS (SELECT 1 FROM {table})").fetchone()[0]
            for table in ("judgments", "external_labels", "suggestions")
        )

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
            db.execute(
                "INSERT OR IGNORE INTO annotators (name, cohort, created) VALUES (?, ?, ?)",
                [name, cohort, utc_now()],
            )
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
            db.conn.executemany(
                "INSERT INTO assignments (annotator_id, item_id, position, swapped, condition,"
                " purpose, suggestion_id, seed, created, display_order) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                rows,
            )
            after = self._assignment_sequence(db)
            if after - before != len(rows):
                raise RuntimeError(f"assignment ids not consecutive: {before}..{after} for {len(rows)} rows")
        return [replace(a, id=before + 1 + i) for i, a in enumerate(assignments)]

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
        with self.transaction() as db:
            row["item_id"] = self._check_assignment(judgment.assignment_id, shown).item_id
            if judgment.spans:
                from annotate.design.spans import check_spans

                try:
                    check_spans(judgment.spans, response_texts(db, row["item_id"]), taxonomy)
                except ValueError as exc:
                    raise StoreError(f"item {row['item_id']}: {exc}") from None
            cursor = db.execute(
                f"INSERT INTO judgments ({', '.join(row)}) VALUES ({', '.join('?' * len(row))})",
                list(row.values()),
            )
            new_id = int(cursor.lastrowid or 0)
            insert_spans(db, new_id, judgment.spans)
            db.execute(
                "UPDATE judgments SET superseded_by = ? WHERE assignment_id = ? AND id != ?"
                " AND superseded_by IS NULL",
                [new_id, judgment.assignment_id, new_id],
            )
            self._insert_events(db, events, judgment_id=new_id)
        return replace(judgment, id=new_id, uid=uid)

    def log_events(self, events: Iterable[Event], *, shown: Assignment | None = None) -> None:
        """Record events that belong to no submit (quit, help, navigation). With `shown` (the
        assignment on screen they are about), refused with StaleAssignment as `submit` is."""
        with self.transaction() as db:
            if shown is not None:
                self._check_assignment(shown.id, shown)
            self._insert_events(db, events, judgment_id=None)

    def _check_assignment(self, assignment_id: int, shown: Assignment | None) -> Assignment:
        """The stored assignment, which must exist and, given `shown`, equal it in every field
        that decides what the answer means (call inside the write transaction)."""
        row = self.db.execute(self._ASSIGNMENT_SQL + " WHERE a.id = ?", [assignment_id]).fetchone()
        annotator = shown.annotator if shown is not None else "the annotator"
        if row is None:
            raise StaleAssignment(STALE_ANSWER.format(annotator=annotator))
        stored = self._assignment(row)
        if shown is not None and _meaning(stored) != _meaning(shown):
            raise StaleAssignment(STALE_ANSWER.format(annotator=annotator))
        return stored

    def _insert_events(
        self, db: sqlite_utils.Database, events: Iterable[Event], judgment_id: int | None
    ) -> None:
        annotator_ids: dict[str, int] = {}
        for event in events:
            annotator_id = None
            if event.annotator is not None:
                if event.annotator not in annotator_ids:
                    found = self.annotator(event.annotator)
                    if found is None:
                        raise StoreError(f"event for unknown annotator {event.annotator!r}")
                    annotator_ids[event.annotator] = found.id
                annotator_id = annotator_ids[event.annotator]
            db.execute(
                "INSERT INTO events (uid, assignment_id, annotator_id, judgment_id, mono_ns,"
                " wall_time, kind, payload) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [event.uid or new_uid(), event.assignment_id, annotator_id, judgment_id,
                 event.mono_ns, event.wall_time, event.kind, dumps(dict(event.payload))],
            )

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

    # -- external labels and suggestions ---------------------------------------------------

    def add_external_labels(self, labels: Sequence[ExternalLabel]) -> AddResult:
        """Add imported votes atomically; a (source, rater, item) already stored is unchanged.
        Raters become annotators of their cohort."""
        created = utc_now()
        for name, cohort in sorted({(lab.rater, lab.cohort) for lab in labels}):
            self.ensure_annotator(name, cohort)
        with self.transaction() as db:
            before = db.execute("SELECT count(*) FROM external_labels").fetchone()[0]
            db.conn.executemany(
                "INSERT OR IGNORE INTO external_labels (source, rater, cohort, item_id, label,"
                " raw, shown_first, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [(lab.source, lab.rater, lab.cohort, lab.item_id, lab.label, lab.raw, lab.shown_first, created)
                 for lab in labels],
            )
            after = db.execute("SELECT count(*) FROM external_labels").fetchone()[0]
        return AddResult(added=after - before, unchanged=len(labels) - (after - before))

    def external_labels(self) -> list[ExternalLabel]:
        return list(self.iter_external_labels())

    def iter_external_labels(self) -> Iterator[ExternalLabel]:
        """The imported labels in the order they were stored, read a batch at a time."""
        cursor = self.db.conn.execute(
            "SELECT source, rater, cohort, item_id, label, raw, shown_first FROM external_labels ORDER BY id"
        )
        while rows := cursor.fetchmany(1000):
            yield from (ExternalLabel(*row) for row in rows)

    def add_suggestions(self, suggestions: Sequence[Suggestion]) -> list[Suggestion]:
        created = utc_now()
        stored = []
        with self.transaction() as db:
            for s in suggestions:
                cursor = db.execute(
                    "INSERT INTO suggestions (item_id, source_model, label, rationale,"
                    " swapped_label, planted, prompt_hash, raw, created)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [s.item_id, s.source_model, s.label, s.rationale, s.swapped_label,
                     int(s.planted), s.prompt_hash, s.raw, created],
                )
                stored.append(replace(s, id=int(cursor.lastrowid or 0)))
        return stored

    def suggestions(self, item_id: str | None = None) -> list[Suggestion]:
        return list(self.iter_suggestions(item_id))

    def iter_suggestions(self, item_id: str | None = None) -> Iterator[Suggestion]:
        """Suggestions in the order they were stored (for one item or all), read a batch at a time."""
        sql = ("SELECT id, item_id, source_model, label, rationale, swapped_label, planted,"
               " prompt_hash, raw FROM suggestions")
        params: list[Any] = []
        if item_id is not None:
            sql += " WHERE item_id = ?"
            params.append(item_id)
        cursor = self.db.conn.execute(sql + " ORDER BY id", params)
        while rows := cursor.fetchmany(1000):
            yield from (
                Suggestion(r[1], r[2], r[3], r[4] or "", r[5], bool(r[6]), r[7] or "", r[8] or "", id=r[0])
                for r in rows
            )

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

    def suggestion(self, suggestion_id: int) -> Suggestion:
        """One suggestion by id; KeyError when there is none."""
        for s in self._suggestions_where("id = ?", [suggestion_id]):
            return s
        raise KeyError(f"no suggestion {suggestion_id}")

    def _suggestions_where(self, clause: str, params: Sequence[Any]) -> list[Suggestion]:
        sql = ("SELECT id, item_id, source_model, label, rationale, swapped_label, planted,"
               f" prompt_hash, raw FROM suggestions WHERE {clause} ORDER BY id")
        return [
            Suggestion(r[1], r[2], r[3], r[4] or "", r[5], bool(r[6]), r[7] or "", r[8] or "", id=r[0])
            for r in self.db.execute(sql, list(params)).fetchall()
        ]

    def add_suggestion_failure(self, failure: SuggestionFailure) -> None:
        """Record an LLM reply that gave no verdict (the raw reply kept for audit, never a label)."""
        with self.transaction() as db:
            db.execute(
                "INSERT INTO suggestion_failures (item_id, source_model, prompt_hash, error, raw, created)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                [failure.item_id, failure.source_model, failure.prompt_hash, failure.error, failure.raw,
                 utc_now()],
            )

    def suggestion_failures(self, item_id: str | None = None) -> list[SuggestionFailure]:
        """Recorded failures in the order they happened, for one item or all."""
        sql = "SELECT item_id, source_model, prompt_hash, error, raw, created FROM suggestion_failures"
        params: list[Any] = []
        if item_id is not None:
            sql += " WHERE item_id = ?"
            params.append(item_id)
        return [SuggestionFailure(*r) for r in self.db.execute(sql + " ORDER BY id", params).fetchall()]

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

    def delete_unused_planted_suggestions(self) -> int:
        """Delete planted suggestions no assignment points to (left over when a design is redrawn)."""
        with self.transaction() as db:
            cursor = db.execute(
                "DELETE FROM suggestions WHERE planted = 1 AND id NOT IN"
                " (SELECT suggestion_id FROM assignments WHERE suggestion_id IS NOT NULL)"
            )
        return int(cursor.rowcount or 0)

    # -- frames for analysis and export (pandas imported lazily) ---------------------------

    def frame(self, sql: str, params: Sequence[Any] = ()) -> pd.DataFrame:
        """Run a read query into a DataFrame (for store/frames.py only)."""
        import pandas as pd

        cursor = self.db.execute(sql, list(params))
        columns = [d[0] for d in cursor.description]
        return pd.DataFrame(cursor.fetchall(), columns=columns)


def _meaning(a: Assignment) -> tuple[Any, ...]:
    """What an answer to an assignment is about; any change means it is another assignment."""
    return (a.id, a.annotator, a.item_id, a.position, bool(a.swapped), a.condition, a.purpose, a.suggestion_id,
            tuple(a.order))


def _judgment_row(judgment: Judgment, uid: str) -> dict[str, Any]:
    t = judgment.timings
    return {
        "uid": uid,
        "assignment_id": judgment.assignment_id,
        "label": judgment.label,
        "initial_label": judgment.initial_label,
        "scores": dumps(dict(judgment.scores)),
        "rationale": judgment.rationale,
        "confidence": judgment.confidence,
        "guideline_id": judgment.guideline_id,
        "guideline_version": judgment.guideline_version,
        "skip_reason": judgment.skip_reason,
        "shown_at": t.shown_at,
        "first_input_ms": t.first_input_ms,
        "submit_ms": t.submit_ms,
        "active_ms": t.active_ms,
        "timings": dumps({
            "pane_view_ms": dict(t.pane_view_ms),
            "pane_max_scroll": dict(t.pane_max_scroll),
            "guideline_ms": t.guideline_ms,
            "suggestion_ms": t.suggestion_ms,
        }),
        "submitted_at": utc_now(),
        "app_version": __version__,
    }


def _judgment_from_row(row: dict[str, Any]) -> Judgment:
    extra = json.loads(row["timings"] or "{}")
    timings = Timings(
        shown_at=row["shown_at"],
        first_input_ms=row["first_input_ms"],
        submit_ms=row["submit_ms"],
        active_ms=row["active_ms"],
        pane_view_ms=MappingProxyType(extra.get("pane_view_ms", {})),
        pane_max_scroll=MappingProxyType(extra.get("pane_max_scroll", {})),
        guideline_ms=extra.get("guideline_ms", 0),
        suggestion_ms=extra.get("suggestion_ms"),
    )
    return Judgment(
        assignment_id=row["assignment_id"], label=row["label"], timings=timings,
        scores=MappingProxyType(json.loads(row["scores"] or "{}")),
        initial_label=row["initial_label"], rationale=row["rationale"] or "",
        confidence=row["confidence"], guideline_id=row["guideline_id"],
        guideline_version=row["guideline_version"], skip_reason=row["skip_reason"],
        uid=row["uid"], id=row["id"], superseded_by=row["superseded_by"],
    )


def _retry_locked(action: Any, attempts: int = 50) -> Any:
    """Run an action that may hit SQLITE_BUSY outside the busy handler (e.g. switching to WAL while
    another connection opens the file), retrying with a short backoff instead of surfacing
    "database is locked" to a person."""
    for attempt in range(attempts):
        try:
            return action()
        except sqlite3.OperationalError as exc:
            if not _busy(exc) or attempt == attempts - 1:
                raise
            time.sleep(min(0.01 * (attempt + 1), 0.2))
    return None


def _busy(exc: sqlite3.OperationalError) -> bool:
    return "locked" in str(exc) or "busy" in str(exc)


LOCK_POLL_S = (0.0002, 0.0005, 0.001, 0.002, 0.003)
"""How long a writer waiting for the write lock sleeps between tries (then the last, each with
jitter): a lock released is taken within a few milliseconds, while SQLite's own busy handler
sleeps 1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100 ms in turn, so a writer that waits at all
waits tens of milliseconds past the release."""


LONG_WAIT_S = 0.1
"""Past this much waiting a writer is in a queue of several: it polls less often (`lock_pause`)."""
LONG_WAIT_POLL_S = 0.025


def lock_pause(attempt: int, waited_s: float) -> float:
    """The pause before the next try for the write lock: LOCK_POLL_S in turn, and once a writer has
    waited LONG_WAIT_S, a twentieth of its wait up to LONG_WAIT_POLL_S, so many waiters on a busy
    host do not take the CPU the lock's holder needs to finish (the pause stays short beside the
    wait already had)."""
    if waited_s >= LONG_WAIT_S:
        return max(LOCK_POLL_S[-1], min(LONG_WAIT_POLL_S, waited_s / 20))
    return LOCK_POLL_S[min(attempt, len(LOCK_POLL_S) - 1)]


def begin_immediate(db: sqlite_utils.Database, timeout_s: float = BUSY_TIMEOUT_MS / 1000) -> None:
    """BEGIN IMMEDIATE, waiting up to `timeout_s` for the write lock by our own short, jittered
    polls (LOCK_POLL_S) instead of SQLite's busy handler; raises "database is locked" after that.

    The connection's busy timeout is off only for these tries (every other statement keeps it)."""
    deadline = time.monotonic() + timeout_s
    db.execute("PRAGMA busy_timeout = 0")
    try:
        for attempt in itertools.count():
            try:
                db.execute("BEGIN IMMEDIATE")
                return
            except sqlite3.OperationalError as exc:
                if not _busy(exc) or time.monotonic() >= deadline:
                    raise
            time.sleep(lock_pause(attempt, time.monotonic() - (deadline - timeout_s)) * random.uniform(0.5, 1.5))
    finally:
        db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
