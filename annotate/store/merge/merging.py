"""`merge_session`: one merge of a copy in one transaction, logged in the `merges` table; and the
merge log."""

from __future__ import annotations

import json
import os
from collections import defaultdict
from dataclasses import asdict
from pathlib import Path
from typing import Any

from annotate.store.merge.judgments import _edited_judgments, _merge_judgments
from annotate.store.merge.matching import _Annotators, _map_assignment
from annotate.store.merge.results import PREFER, MergeConflictError, MergeReport, _Abort, _Counts, _report
from annotate.store.merge.source import _columns, _Source, file_sha256, open_read_only
from annotate.store.store import Store, StoreError, utc_now


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
