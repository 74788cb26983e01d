"""How a judgment becomes a row of the judgments table and back, and what an answer to an
assignment is about (the fields a stale-assignment check compares)."""

from __future__ import annotations

import json
from types import MappingProxyType
from typing import Any

from annotate import __version__
from annotate.model import Assignment, Judgment, Timings
from annotate.store.codec import dumps
from annotate.store.records import utc_now


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

