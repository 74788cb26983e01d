"""Reads that stream a session row by row from one cursor, for exports that must not hold the
session in memory: votes grouped per item, judgments with their answers, and error spans."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from annotate.store.store import Store

VOTING = ("main", "gold")
"""Purposes whose judgments are votes on an item (repeats, attention checks and adjudications are not)."""


@dataclass(frozen=True)
class ItemVote:
    """One rater's current vote on an item: a judgment (with its scores) or an imported label."""

    rater: str
    cohort: str
    label: str | None
    scores: str
    """JSON text (`{}` for imported labels)."""
    source: str
    """`judgment`, or the file or format an imported label came from."""


def votes_by_item(store: Store, include_planted: bool = False) -> Iterator[tuple[str, list[ItemVote]]]:
    """(item id, its votes) for every item with a vote, in item order; per rater only the first vote
    (a main judgment before a gold one, then imported labels). Judgments: current, not skipped, of
    purpose main or gold, not under a planted suggestion unless include_planted."""
    planted = "" if include_planted else " AND COALESCE(s.planted, 0) = 0"
    sql = (
        "SELECT i.rowid AS ord, a.item_id, n.name, n.cohort, j.label, COALESCE(j.scores, '{}'), 'judgment',"
        " CASE a.purpose WHEN 'main' THEN 0 ELSE 1 END AS pref, j.id AS seq"
        " FROM judgments j JOIN assignments a ON a.id = j.assignment_id"
        " JOIN annotators n ON n.id = a.annotator_id JOIN items i ON i.id = a.item_id"
        " LEFT JOIN suggestions s ON s.id = a.suggestion_id"
        " WHERE j.superseded_by IS NULL AND j.skip_reason IS NULL"
        f" AND a.purpose IN ({','.join('?' * len(VOTING))}){planted}"
        " UNION ALL SELECT i.rowid, e.item_id, e.rater, e.cohort, e.label, '{}', e.source, 2, e.id"
        " FROM external_labels e JOIN items i ON i.id = e.item_id"
        " ORDER BY ord, pref, seq"
    )
    cursor = store.db.execute(sql, list(VOTING))
    rows = iter(cursor.fetchone, None)
    for item_id, group in itertools.groupby(rows, key=lambda r: r[1]):
        seen: set[str] = set()
        votes = []
        for _ord, _item, rater, cohort, label, scores, source, _pref, _seq in group:
            if rater in seen:
                continue
            seen.add(rater)
            votes.append(ItemVote(rater, cohort, label, scores, source))
        yield item_id, votes


def judgment_answers(
    store: Store, include_superseded: bool = False, include_planted: bool = False,
) -> Iterator[dict[str, Any]]:
    """Every judgment that is not a skip, in submit order, with who made it and how it was shown:
    uid, annotator, cohort, item, label, scores (JSON text), swapped (0/1), display_order (ranking
    items: the slots at positions 1, 2, ... as one string; else None), purpose, condition, position,
    submitted_at, superseded (0/1), planted (0/1). Current ones only unless
    include_superseded; none made under a planted suggestion unless include_planted."""
    where = ["j.skip_reason IS NULL"]
    if not include_superseded:
        where.append("j.superseded_by IS NULL")
    if not include_planted:
        where.append("COALESCE(s.planted, 0) = 0")
    sql = (
        "SELECT j.uid, n.name AS annotator, n.cohort, a.item_id AS item, j.label, COALESCE(j.scores, '{}') AS scores,"
        " a.swapped, a.display_order, a.purpose, a.condition, a.position, j.submitted_at,"
        " j.superseded_by IS NOT NULL AS superseded,"
        " COALESCE(s.planted, 0) AS planted FROM judgments j JOIN assignments a ON a.id = j.assignment_id"
        " JOIN annotators n ON n.id = a.annotator_id LEFT JOIN suggestions s ON s.id = a.suggestion_id"
        f" WHERE {' AND '.join(where)} ORDER BY j.id"
    )
    cursor = store.db.execute(sql)
    names = [d[0] for d in cursor.description]
    for row in iter(cursor.fetchone, None):
        yield dict(zip(names, row, strict=True))


def span_rows(
    store: Store, include_superseded: bool = False, include_planted: bool = False,
) -> Iterator[dict[str, Any]]:
    """Every error span of every judgment (current ones unless include_superseded; none made under a
    planted suggestion unless include_planted), in item order, then judgment and text order: uid
    (the judgment's), annotator, cohort, item, slot, swapped (0/1), kind (the item's), start, end
    (offsets into the original response text), category, severity, note, purpose, submitted_at,
    superseded (0/1), planted (0/1), and the slot's `model` and the spanned `text` (the item read
    once for all its spans)."""
    if not store.has_spans:
        return
    where = []
    if not include_superseded:
        where.append("j.superseded_by IS NULL")
    if not include_planted:
        where.append("COALESCE(s.planted, 0) = 0")
    clause = f"WHERE {' AND '.join(where)}" if where else ""
    sql = (
        "SELECT j.uid, n.name AS annotator, n.cohort, a.item_id AS item, p.slot, a.swapped, i.kind,"
        " p.char_start AS start, p.char_end AS \"end\", p.category, p.severity, p.note, a.purpose, j.submitted_at,"
        " j.superseded_by IS NOT NULL AS superseded, COALESCE(s.planted, 0) AS planted"
        " FROM spans p JOIN judgments j ON j.id = p.judgment_id JOIN assignments a ON a.id = j.assignment_id"
        " JOIN annotators n ON n.id = a.annotator_id JOIN items i ON i.id = a.item_id"
        f" LEFT JOIN suggestions s ON s.id = a.suggestion_id {clause}"
        " ORDER BY i.rowid, j.id, p.slot, p.char_start, p.char_end, p.id"
    )
    cursor = store.db.execute(sql)
    names = [d[0] for d in cursor.description]
    reader = store.db.conn.cursor()
    item_id, responses = None, {}
    for row in iter(cursor.fetchone, None):
        out = dict(zip(names, row, strict=True))
        if out["item"] != item_id:
            item_id = out["item"]
            found = reader.execute("SELECT responses FROM items WHERE id = ?", [item_id]).fetchone()
            responses = {r["slot"]: r for r in json.loads(found[0])} if found else {}
        response = responses.get(out["slot"], {})
        out["model"] = response.get("model")
        out["text"] = response.get("text", "")[out["start"]:out["end"]]
        yield out
