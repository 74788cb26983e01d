"""Training: each annotator's training round (score, threshold, passed / failed / let through by the
lead) and how often each training item was answered right.

Training answers are stored apart from judgments (annotate.store.training), so no other section of
the report, and no export of labels, can count them: this section is the only place they appear.
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Any

from annotate.report.model import Column, Section, Table

if TYPE_CHECKING:
    from annotate.report.context import Context
    from annotate.store import Store

NOTE = ("Training answers are never votes: agreement, ranking, gold accuracy, biases, anchoring and the exports of"
        " labels leave them out. A lead's pass (`annotate training SESSION --pass NAME`) opens the main queue"
        " whatever the score; the score shown is the latest round's.")


def training_section(ctx: Context, store: Store) -> tuple[Section, dict[str, Any]] | None:
    """The section and its JSON, or None when the session has no training round."""
    from annotate.store.training import all_answers, count_training_items, training_states
    from annotate.training import cohort_names

    spec = ctx.spec
    if spec.training is None:
        return None
    n_items = count_training_items(store)
    states = training_states(store, spec, cohort_names(store, spec))
    answers = all_answers(store)
    rows = tuple(
        (s.annotator, s.attempt, s.answered, s.correct, s.score if s.score is not None else None, s.threshold,
         s.verdict)
        for s in states
    )
    by_item: dict[str, list[Any]] = defaultdict(lambda: ["", 0, 0])
    for entry, gold in answers:
        counts = by_item[entry.item_id]
        counts[0] = gold
        counts[1] += 1
        counts[2] += entry.label == gold
    item_rows = tuple((item, gold, n, right, right / n) for item, (gold, n, right) in sorted(by_item.items()))
    tables = (
        Table("training_annotators", "Training per annotator",
              (Column("annotator"), Column("round", "int"), Column("answered", "int"), Column("right", "int"),
               Column("score", "pct"), Column("threshold", "pct"), Column("result")),
              rows[: ctx.max_rows], (NOTE,), empty="Nobody has started the training round yet."),
        Table("training_items", "Training items (every round)",
              (Column("item"), Column("gold"), Column("answers", "int"), Column("right", "int"),
               Column("share right", "pct")),
              item_rows[: ctx.max_rows], empty="No training answers yet."),
    )
    payload = {
        "n_items": n_items,
        "pass_threshold": spec.training.pass_threshold,
        "retries": spec.training.retries,
        "annotators": [
            {"annotator": s.annotator, "round": s.attempt, "answered": s.answered, "right": s.correct,
             "n_items": s.total, "score": s.score, "passed": s.passed, "overridden": s.overridden,
             "result": s.verdict}
            for s in states
        ],
        "items": [{"item": item, "gold": gold, "n_answers": n, "n_right": right}
                  for item, gold, n, right, _ in item_rows],
    }
    warnings = () if n_items else ("The spec has a [training] table but no training items are imported"
                                   " (`annotate import SESSION FILE --training`).",)
    return Section("training", "Training", tables, warnings), payload
