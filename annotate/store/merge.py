"""`annotate merge`: bring judgments and events from copies of a session back into it.

A lead hands an annotator a copy of the session file; the annotator works offline; the lead
merges the copy back. The copy is opened read-only and never changed.

- Assignments are matched by their natural key (annotator name, item id, queue position), not
  by row id, so a copy made at any time (or a file of another session with the same items)
  merges correctly. An assignment the session lacks is created when its annotator's queue
  position is free (its item and annotator are copied when missing); a position already used
  by another item, a different side mapping or a different cohort is a conflict.
- Judgments and events are matched by their globally unique `uid`: a uid already present means
  already merged and is skipped, so merging the same file twice changes nothing.
- Revisions are reproduced: a judgment the copy superseded is superseded here too, by the same
  judgment. A judgment's error spans come with it (by its uid); spans are part of its answer, so
  two answers that differ only in their spans are a conflict like any other.
- A conflict is one assignment whose current judgment differs between the two files, neither
  having seen the other's (different uids, neither in the other's history) and with different
  answers. It is reported (annotator, item, position, both answers) and nothing of that
  assignment is written: no judgment and no event. Everything else is merged, unless `strict`,
  which writes nothing at all when there is a conflict. When both files hold independent
  judgments with the same answer, the copy's are kept as history of this file's one, which
  stays current.
- Settling: with `prefer="copy"` or `prefer="here"` such a conflict is merged instead, and both
  judgments are kept. `copy`: the copy's judgments come in and its current one supersedes this
  file's (which stays, as history). `here`: the copy's judgments come in as history of this
  file's current one, which stays current. Either way the copy's judgments are now here (by
  uid), so merging the file again finds nothing new and no conflict; each settlement is listed
  in the merge log (`details.settled`: who, what, both answers and uids, which side was kept).
  Conflicts of place (a queue position holding another item, sides or cohorts that differ) are
  never settled this way.
- Everything happens in one transaction, and each merge is logged in the `merges` table (file,
  SHA-256, time, counts, conflicts).
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from annotate.model import Span
from annotate.store import health
from annotate.store.codec import content_hash, item_from_row
from annotate.store.spans import insert_spans, span_key, spans_by_judgment
from annotate.store.store import Store, StoreError, utc_now
from annotate.text import plural

_NEEDED_TABLES = ("items", "annotators", "assignments", "judgments", "events")


@dataclass(frozen=True)
class MergeConflict:
    """One assignment that could not be merged; nothing of it was written."""

    annotator: str
    item_id: str
    position: int
    ours: str
    """This session's current answer (or what occupies the place)."""
    theirs: str
    """The copy's current answer (or what it has in that place)."""
    reason: str
    settleable: bool = False
    """True for two different answers, which `prefer` can settle; False for a conflict of place."""


@dataclass(frozen=True)
class Settled:
    """A conflict of answers that `prefer` settled: both judgments are kept, `kept`'s is current."""

    annotator: str
    item_id: str
    position: int
    ours: str
    theirs: str
    kept: str
    """`copy` or `here`."""
    ours_uid: str
    theirs_uid: str


PREFER = ("copy", "here")
"""How a conflict of answers may be settled (`merge_session(prefer=...)`)."""


@dataclass(frozen=True)
class MergeReport:
    """What a merge did (or, when `written` is False, would have done)."""

    source: str
    sha256: str
    items: int = 0
    annotators: int = 0
    assignments: int = 0
    judgments: int = 0
    events: int = 0
    already: int = 0
    """Judgments of the copy already in this session (merged before, or made before the copy)."""
    duplicates: int = 0
    """Assignments judged independently in both files with the same answer (kept as history)."""
    conflicts: tuple[MergeConflict, ...] = ()
    written: bool = True
    settled: tuple[Settled, ...] = ()
    """Conflicts of answers settled by `prefer` (merged, both judgments kept)."""

    @property
    def changed(self) -> bool:
        return any((self.items, self.annotators, self.assignments, self.judgments, self.events))


class MergeConflictError(StoreError):
    """A strict merge refused because of conflicts; nothing was written."""

    def __init__(self, report: MergeReport) -> None:
        self.report = report
        super().__init__(
            f"{plural(len(report.conflicts), 'conflict')} in {report.source}; nothing was merged (strict)"
        )


class _Abort(Exception):
    pass


@dataclass
class _Counts:
    items: int = 0
    annotators: int = 0
    assignments: int = 0
    judgments: int = 0
    events: int = 0
    already: int = 0
    duplicates: int = 0
    conflicts: list[MergeConflict] = field(default_factory=list)
    settled: list[Settled] = field(default_factory=list)


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def open_read_only(path: Path) -> sqlite3.Connection:
    """The other session file, read-only (never migrated, never written), checked whole first
    (`PRAGMA quick_check`): a damaged copy is refused before anything of it is merged."""
    if not path.is_file():
        raise StoreError(f"{path}: no such session file")
    health.check_before_open(path, create=False)
    try:
        conn = sqlite3.connect(health.read_only_uri(path, health.copy_mode(path)), uri=True)
    except sqlite3.Error as exc:
        raise _copy_error(exc, path) from None
    conn.row_factory = sqlite3.Row
    try:
        health.check_opened(conn, path)
        problems = [r[0] for r in conn.execute("PRAGMA quick_check").fetchall()]
        if problems != ["ok"]:
            raise health.SessionFileError(
                f"{health.shown(path)}: the copy is damaged (SQLite's check: {problems[0]}); nothing was merged"
            )
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise _copy_error(exc, path) from None
    except BaseException:
        conn.close()
        raise
    missing = [t for t in _NEEDED_TABLES if t not in tables]
    if missing or version < 1:
        conn.close()
        raise StoreError(f"{path}: not a session file (no {', '.join(missing) or 'schema version'})")
    return conn


def merge_session(
    store: Store, other: Path | str, strict: bool = False, prefer: str | None = None,
) -> MergeReport:
    """Merge the judgments and events of the session file `other` into `store` (rules above).

    prefer: None (report conflicts of answers), `copy` or `here` (settle them, keeping both).
    Raises MergeConflictError (nothing written) when `strict` and a conflict is left.
    """
    if prefer not in (None, *PREFER):
        raise ValueError(f"prefer must be one of {', '.join(PREFER)}, not {prefer!r}")
    other = Path(other)
    if other.exists() and store.path.exists() and os.path.samefile(other, store.path):
        raise StoreError(f"{other} is this session's own file")
    sha = file_sha256(other)
    conn = open_read_only(other)
    try:
        source = _Source(conn, other)
        counts = _Counts()
        try:
            with store.transaction() as db:
                _merge(db, source, counts, prefer)
                if strict and counts.conflicts:
                    raise _Abort
                report = _report(str(other), sha, counts, written=True)
                db["merges"].insert({
                    "source": str(other), "sha256": sha, "merged_at": utc_now(), "items": counts.items,
                    "annotators": counts.annotators, "assignments": counts.assignments,
                    "judgments": counts.judgments, "events": counts.events,
                    "conflicts": len(counts.conflicts),
                    "details": json.dumps({
                        "already": counts.already, "duplicates": counts.duplicates,
                        "conflicts": [asdict(c) for c in counts.conflicts],
                        "settled": [asdict(c) for c in counts.settled],
                    }, sort_keys=True),
                })
        except _Abort:
            raise MergeConflictError(_report(str(other), sha, counts, written=False)) from None
    finally:
        conn.close()
    return report


def merge_log(store: Store) -> list[dict[str, Any]]:
    """Every merge so far, oldest first."""
    return [dict(r) for r in store.db.query("SELECT * FROM merges ORDER BY id")]


def _report(source: str, sha: str, counts: _Counts, written: bool) -> MergeReport:
    return MergeReport(
        source=source, sha256=sha, items=counts.items, annotators=counts.annotators,
        assignments=counts.assignments, judgments=counts.judgments, events=counts.events,
        already=counts.already, duplicates=counts.duplicates, conflicts=tuple(counts.conflicts),
        written=written, settled=tuple(counts.settled),
    )


def _copy_error(exc: sqlite3.Error, path: Path) -> StoreError:
    """An SQLite error reading the copy, as one line naming the copy (not the session)."""
    message = health.describe(exc, path)
    return health.SessionFileError(message) if message else StoreError(f"{path}: not a session file ({exc})")


class _Source:
    """The other file's rows, read once."""

    def __init__(self, conn: sqlite3.Connection, path: Path) -> None:
        self.conn = conn
        self.path = path
        try:
            self.annotators = {r["id"]: (r["name"], r["cohort"], r["created"]) for r in conn.execute(
                "SELECT id, name, cohort, created FROM annotators")}
            self.assignments = {r["id"]: dict(r) for r in conn.execute("SELECT * FROM assignments")}
            self.judgments = [dict(r) for r in conn.execute("SELECT * FROM judgments ORDER BY id")]
            self.events = [dict(r) for r in conn.execute("SELECT * FROM events ORDER BY id")]
            spans = _spans_of(conn, [j["id"] for j in self.judgments])
        except sqlite3.DatabaseError as exc:
            raise _copy_error(exc, path) from None
        self.spans = spans
        """The copy's judgment id -> its error spans (none when the copy predates them)."""
        for row in self.judgments:
            row["_spans"] = span_key(spans.get(row["id"], ()))

    def item(self, item_id: str) -> dict[str, Any] | None:
        """The copy's item row with its content hash recomputed from its content (the stored hash
        is not trusted: an edit in place leaves it stale); `content_hash` is "" when the row cannot
        be read back as an item."""
        try:
            row = self.conn.execute("SELECT * FROM items WHERE id = ?", [item_id]).fetchone()
        except sqlite3.DatabaseError as exc:
            raise _copy_error(exc, self.path) from None
        if row is None:
            return None
        found = dict(row)
        try:
            found["content_hash"] = content_hash(item_from_row(found))
        except (ValueError, KeyError, TypeError):
            found["content_hash"] = ""
        return found

    def key(self, assignment_id: int) -> tuple[str, str, int]:
        row = self.assignments[assignment_id]
        return self.annotators[row["annotator_id"]][0], row["item_id"], row["position"]


def _spans_of(conn: Any, judgment_ids: list[int]) -> dict[int, tuple[Span, ...]]:
    """Judgment id -> error spans, in a file that may predate the spans table (then none)."""
    has_table = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'spans'").fetchone()
    return spans_by_judgment(conn, judgment_ids) if has_table and judgment_ids else {}


def _with_spans(db: Any, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """This file's judgment rows with their spans (`_spans`, canonical) for comparing answers."""
    spans = _spans_of(db, [r["id"] for r in rows])
    for row in rows:
        row["_spans"] = span_key(spans.get(row["id"], ()))
    return rows


def _answer(row: dict[str, Any]) -> str:
    """A judgment's answer as text, for comparing and for reports (error spans included)."""
    if row["skip_reason"] is not None:
        return f"skip ({row['skip_reason']})"
    scores = json.loads(row["scores"] or "{}")
    answer = json.dumps(scores, sort_keys=True) if scores else str(row["label"])
    spans = row.get("_spans") or ()
    if spans:
        answer += " with spans " + "; ".join(f"{s[0]} {s[1]}-{s[2]} {s[3]}/{s[4]}" + (f" {s[5]!r}" if s[5] else "")
                                             for s in spans)
    return answer


_NOT_CONTENT = ("id", "assignment_id", "superseded_by")
"""Judgment columns that legitimately differ between two files holding the same judgment."""


def _edited_judgments(db: Any, source: _Source, counts: _Counts) -> set[int]:
    """The copy's assignments holding a judgment whose uid is here but whose content is not the
    same (an edit in place, in either file): each is a conflict, and nothing of it is merged."""
    here_columns = set(_columns(db, "judgments"))
    edited: set[int] = set()
    for row in source.judgments:
        cursor = db.execute("SELECT * FROM judgments WHERE uid = ?", [row["uid"]])
        found = cursor.fetchone()
        if found is None:
            continue
        ours = _with_spans(db, [dict(zip([d[0] for d in cursor.description], found, strict=True))])[0]
        differ = sorted(c for c in row if c in here_columns and c not in _NOT_CONTENT and row[c] != ours[c])
        if row["_spans"] != ours["_spans"]:
            differ.append("spans")
        name, item_id, position = source.key(row["assignment_id"])
        here_key = db.execute(
            "SELECT n.name, a.item_id, a.position FROM assignments a JOIN annotators n ON n.id = a.annotator_id"
            " WHERE a.id = ?", [ours["assignment_id"]],
        ).fetchone()
        if here_key is None or tuple(here_key) != (name, item_id, position):
            differ.append("assignment")
        if differ:
            edited.add(row["assignment_id"])
            counts.conflicts.append(MergeConflict(
                name, item_id, position, _answer(ours), _answer(row),
                f"judgment {row['uid']} is in both files but differs in {', '.join(differ)} (edited in place)",
            ))
    return edited


def _columns(db: Any, table: str) -> list[str]:
    return [r[1] for r in db.execute(f"PRAGMA table_info({table})").fetchall()]


def _merge(db: Any, source: _Source, counts: _Counts, prefer: str | None = None) -> None:
    uid_to_id: dict[str, int] = dict(db.execute("SELECT uid, id FROM judgments").fetchall())
    event_uids = {r[0] for r in db.execute("SELECT uid FROM events").fetchall()}
    new_judgments = [j for j in source.judgments if j["uid"] not in uid_to_id]
    counts.already = len(source.judgments) - len(new_judgments)
    new_events = [e for e in source.events if e["uid"] not in event_uids]
    wanted = {j["assignment_id"] for j in new_judgments} | {
        e["assignment_id"] for e in new_events if e["assignment_id"] is not None
    }
    annotator_ids = _Annotators(db, source, counts)
    mapped: dict[int, int] = {}
    blocked = _edited_judgments(db, source, counts)
    for other_id in sorted(wanted - blocked):
        target = _map_assignment(db, source, other_id, annotator_ids, counts)
        if target is None:
            blocked.add(other_id)
        else:
            mapped[other_id] = target
    by_assignment: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for row in source.judgments:
        by_assignment[row["assignment_id"]].append(row)
    judgment_columns = [c for c in _columns(db, "judgments") if c in source.judgments[0]] if source.judgments else []
    for other_id, target in sorted(mapped.items()):
        if not _merge_judgments(db, source, other_id, target, by_assignment[other_id], uid_to_id,
                                judgment_columns, counts, prefer):
            blocked.add(other_id)
    other_uid = {j["id"]: j["uid"] for j in source.judgments}
    event_columns = [c for c in _columns(db, "events") if c in source.events[0]] if source.events else []
    for event in new_events:
        other_assignment = event["assignment_id"]
        if other_assignment is not None and (other_assignment in blocked or other_assignment not in mapped):
            continue
        judgment_id = None
        if event["judgment_id"] is not None:
            judgment_id = uid_to_id.get(other_uid.get(event["judgment_id"], ""))
            if judgment_id is None:
                continue
        annotator_id = None
        if event["annotator_id"] is not None:
            annotator_id = annotator_ids.get(event["annotator_id"])
            if annotator_id is None:
                continue
        row = {c: event[c] for c in event_columns if c != "id"}
        row.update(
            assignment_id=None if event["assignment_id"] is None else mapped[event["assignment_id"]],
            judgment_id=judgment_id, annotator_id=annotator_id,
        )
        db.execute(
            f"INSERT INTO events ({', '.join(row)}) VALUES ({', '.join('?' * len(row))})", list(row.values())
        )
        counts.events += 1


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


def _merge_judgments(
    db: Any, source: _Source, other_id: int, target: int, theirs: list[dict[str, Any]],
    uid_to_id: dict[str, int], columns: list[str], counts: _Counts, prefer: str | None = None,
) -> bool:
    """Merge one assignment's judgments; False (nothing written) on a conflict left unsettled."""
    new = [j for j in theirs if j["uid"] not in uid_to_id]
    if not new:
        return True
    ours = _with_spans(db, [dict(r) for r in db.query(
        "SELECT id, uid, label, scores, skip_reason, superseded_by FROM judgments WHERE assignment_id = ? ORDER BY id",
        [target],
    )])
    their_uids = {j["uid"] for j in theirs}
    our_uids = {j["uid"] for j in ours}
    our_current = next((j for j in reversed(ours) if j["superseded_by"] is None), None)
    their_current = next((j for j in reversed(theirs) if j["superseded_by"] is None), None)
    independent = (
        our_current is not None and their_current is not None
        and our_current["uid"] not in their_uids and their_current["uid"] not in our_uids
    )
    differ = independent and _answer(our_current) != _answer(their_current)
    if differ and prefer is None:
        name, item_id, position = source.key(other_id)
        counts.conflicts.append(MergeConflict(
            name, item_id, position, _answer(our_current), _answer(their_current),
            "judged differently in both files", settleable=True,
        ))
        return False
    other_uid = {j["id"]: j["uid"] for j in theirs}
    for row in new:
        # the copy's sittings are not this file's: a merged judgment names no sitting
        values = {c: row[c] for c in columns if c not in ("id", "superseded_by", "sitting_id")}
        values["assignment_id"] = target
        values["item_id"] = source.key(other_id)[1]
        cursor = db.execute(
            f"INSERT INTO judgments ({', '.join(values)}) VALUES ({', '.join('?' * len(values))})",
            list(values.values()),
        )
        uid_to_id[row["uid"]] = int(cursor.lastrowid or 0)
        insert_spans(db, uid_to_id[row["uid"]], source.spans.get(row["id"], ()))
        counts.judgments += 1
    for row in theirs:
        if row["superseded_by"] is None:
            continue
        successor = uid_to_id.get(other_uid.get(row["superseded_by"], ""))
        if successor is not None:
            db.execute(
                "UPDATE judgments SET superseded_by = ? WHERE id = ? AND superseded_by IS NULL",
                [successor, uid_to_id[row["uid"]]],
            )
    if independent:
        assert our_current is not None and their_current is not None
        older, newer = our_current["id"], uid_to_id[their_current["uid"]]
        if not (differ and prefer == "copy"):
            older, newer = newer, older  # the copy's becomes history of this file's
        db.execute("UPDATE judgments SET superseded_by = ? WHERE id = ? AND superseded_by IS NULL", [newer, older])
        if differ:
            name, item_id, position = source.key(other_id)
            counts.settled.append(Settled(
                name, item_id, position, _answer(our_current), _answer(their_current), str(prefer),
                our_current["uid"], their_current["uid"],
            ))
        else:
            counts.duplicates += 1
    return True
