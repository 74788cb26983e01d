"""Error spans in the session file (table `spans`, migration 10): written with their judgment, read
back with it, in slot space and in offsets of the original response text (annotate.model.Span)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

from annotate.model import Judgment, Span

SPAN_COLUMNS = "slot, char_start, char_end, category, severity, note"


def insert_spans(db: Any, judgment_id: int, spans: Iterable[Span]) -> int:
    """Write the spans of judgment `judgment_id` (inside the caller's transaction); returns how many."""
    count = 0
    for span in spans:
        db.execute(
            f"INSERT INTO spans (judgment_id, {SPAN_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [judgment_id, span.slot, span.start, span.end, span.category, span.severity, span.note],
        )
        count += 1
    return count


def response_texts(db: Any, item_id: str) -> dict[str, str]:
    """Slot -> the item's original response text ({} when the item is gone)."""
    row = db.execute("SELECT responses FROM items WHERE id = ?", [item_id]).fetchone()
    return {} if row is None else {r["slot"]: r["text"] for r in json.loads(row[0])}


def spans_by_judgment(db: Any, judgment_ids: Sequence[int]) -> dict[int, tuple[Span, ...]]:
    """Judgment id -> its spans in text order (judgments without any are left out)."""
    found: dict[int, list[Span]] = {}
    for begin in range(0, len(judgment_ids), 500):
        chunk = list(judgment_ids[begin : begin + 500])
        marks = ",".join("?" * len(chunk))
        rows = db.execute(
            f"SELECT judgment_id, {SPAN_COLUMNS} FROM spans WHERE judgment_id IN ({marks})"
            " ORDER BY judgment_id, slot, char_start, char_end, id", chunk,
        ).fetchall()
        for judgment_id, slot, start, end, category, severity, note in rows:
            found.setdefault(judgment_id, []).append(Span(slot, start, end, category, severity, note or ""))
    return {k: tuple(v) for k, v in found.items()}


def with_spans(db: Any, judgments: list[Judgment]) -> list[Judgment]:
    """The judgments with their stored spans attached (one query per 500 judgments)."""
    ids = [j.id for j in judgments if j.id is not None]
    spans = spans_by_judgment(db, ids) if ids else {}
    if not spans:
        return judgments
    return [replace(j, spans=spans[j.id]) if j.id in spans else j for j in judgments]


def span_key(spans: Iterable[Span]) -> tuple[tuple[Any, ...], ...]:
    """Spans in a canonical order, for comparing two judgments' spans."""
    return tuple(sorted((s.slot, s.start, s.end, s.category, s.severity, s.note) for s in spans))
