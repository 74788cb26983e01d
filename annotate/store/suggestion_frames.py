"""The frame `annotate.analysis.anchoring` reads, built from a session (pandas imported lazily).

One row per current, non-skipped judgment of a `main` or `gold` assignment (attention checks,
repeats and adjudication are left out: they are not part of the experiment), with the columns the
analysis documents plus a few for context.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from annotate.store.store import Store

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["ANCHORING_COLUMNS", "anchoring_frame", "has_experiment", "suggestion_reveals"]

ANCHORING_COLUMNS = (
    "annotator", "item", "condition", "suggestion", "suggestion_correct", "planted", "initial_label",
    "final_label", "gold", "time_ms", "shown", "suggestion_ms", "submit_ms", "purpose", "cohort", "position",
    "swapped", "source_model", "judgment_id", "assignment_id",
)
REVEAL_EVENT = "suggestion.reveal"
"""Event kind the app logs when an annotator reveals an `on_request` suggestion."""


def anchoring_frame(store: Store, purposes: tuple[str, ...] = ("main", "gold")) -> pd.DataFrame:
    """Columns ANCHORING_COLUMNS; see `annotate.analysis.anchoring` for their meaning.

    `assignment_id` lets the randomization test re-draw the stored design; `time_ms` is the active
    time; `shown` is whether the suggestion was on screen at all (the app
    records `Timings.suggestion_ms` whenever it was); `suggestion_correct` is None when the item has
    no gold and the suggestion is not planted (planted ones are wrong by construction).
    """
    import pandas as pd

    marks = ",".join("?" * len(purposes))
    raw = store.frame(
        "SELECT j.id AS judgment_id, a.id AS assignment_id, n.name AS annotator, n.cohort, a.item_id AS item,"
        " a.condition, a.purpose,"
        " a.position, a.swapped, s.label AS suggestion, s.planted, s.source_model, j.initial_label,"
        " j.label AS final_label, i.gold, j.active_ms AS time_ms, j.submit_ms, j.timings"
        " FROM judgments j JOIN assignments a ON a.id = j.assignment_id"
        " JOIN annotators n ON n.id = a.annotator_id JOIN items i ON i.id = a.item_id"
        " LEFT JOIN suggestions s ON s.id = a.suggestion_id"
        f" WHERE j.superseded_by IS NULL AND j.skip_reason IS NULL AND a.purpose IN ({marks})"
        " ORDER BY j.id",
        list(purposes),
    )
    suggestion_ms = [json.loads(t or "{}").get("suggestion_ms") for t in raw["timings"]]
    planted = [False if pd.isna(p) else bool(p) for p in raw["planted"]]
    correct = []
    for suggestion, gold, was_planted in zip(raw["suggestion"], raw["gold"], planted, strict=True):
        # A missing value arrives as None or as float NaN (pandas' string columns): test with isna,
        # never `is None`, or an item without gold would count as a wrong suggestion.
        if pd.isna(suggestion):
            correct.append(None)
        elif was_planted:
            correct.append(False)
        elif pd.isna(gold):
            correct.append(None)
        else:
            correct.append(bool(suggestion == gold))
    frame = raw.drop(columns=["timings"]).assign(
        planted=planted, suggestion_correct=pd.array(correct, dtype="object"),
        suggestion_ms=pd.array(suggestion_ms, dtype="Int64"),
        shown=[ms is not None for ms in suggestion_ms], swapped=raw["swapped"].astype(bool),
    )
    return frame.reindex(columns=list(ANCHORING_COLUMNS)).reset_index(drop=True)


def has_experiment(store: Store, purposes: tuple[str, ...] = ("main", "gold")) -> bool:
    """Whether `anchoring_frame` would have a judgment shown with a suggestion or under a condition
    other than ``none`` (one indexed probe, so a session without an experiment never builds the frame)."""
    marks = ",".join("?" * len(purposes))
    judged = ("EXISTS (SELECT 1 FROM judgments j WHERE j.assignment_id = a.id AND j.superseded_by IS NULL"
              " AND j.skip_reason IS NULL)")
    row = store.db.execute(  # the assignments first (few carry a suggestion or a condition), then their judgments
        "SELECT EXISTS (SELECT 1 FROM assignments a JOIN suggestions s ON s.id = a.suggestion_id"
        f" WHERE a.suggestion_id IS NOT NULL AND s.label IS NOT NULL AND a.purpose IN ({marks}) AND {judged})"
        " OR EXISTS (SELECT 1 FROM assignments a WHERE a.condition IS NOT NULL AND a.condition != 'none'"
        f" AND a.purpose IN ({marks}) AND {judged})",
        [*purposes, *purposes],
    ).fetchone()
    return bool(row[0])


def suggestion_reveals(store: Store) -> dict[int, int]:
    """Assignment id -> how many times its suggestion was revealed (`on_request`)."""
    out: dict[int, int] = {}
    for event in store.events():
        if event.kind == REVEAL_EVENT and event.assignment_id is not None:
            out[event.assignment_id] = out.get(event.assignment_id, 0) + 1
    return out
