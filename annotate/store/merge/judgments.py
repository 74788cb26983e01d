"""Judgments of the two files compared and merged: answers as text (error spans included), judgments
edited in place, and one assignment's judgments brought in with their revisions, conflicts and settlements."""

from __future__ import annotations

import json
from typing import Any

from annotate.store.merge.results import MergeConflict, Settled, _Counts
from annotate.store.merge.source import _columns, _Source, _spans_of
from annotate.store.spans import insert_spans, span_key


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
