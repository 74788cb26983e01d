"""A training round: gold items with an explanation, answered before the main queue.

A lead imports training items (`annotate import SESSION FILE --training`: native items, each with a
`gold` label and an `explanation`) and the spec's `[training]` table sets the pass threshold. Every
annotator answers every training item first, in their own seeded order with the sides swapped for
half of them (within one); after each answer the screen shows the expected outcome on the sides
they saw, their answer and the explanation. When the share answered right reaches the threshold the
main queue opens; otherwise the lead may let them through (`annotate training SESSION --pass NAME`)
or, with `retries` in the spec, they take the round again.

Training answers live in tables of their own (annotate.store.training): they are never judgments,
so no figure of the main queue (agreement, ranking, gold accuracy, bias, anchoring, exports) can
count them. Labels are stored in slot space, like judgments.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from annotate.model import SIDE_TEXT, Item, slot_to_side

MAX_EXPLANATION_CHARS = 4000
OVERRIDE_ACTIONS = ("pass", "revoke")
"""What the lead records: `pass` opens the main queue whatever the score; `revoke` takes that back."""


@dataclass(frozen=True)
class TrainingItem:
    """An item with its gold label (slot space) and the explanation shown after an answer."""

    item: Item
    explanation: str

    @property
    def gold(self) -> str:
        assert self.item.gold is not None
        return self.item.gold


@dataclass(frozen=True)
class TrainingEntry:
    """One training item in one annotator's round, as shown and as answered."""

    id: int
    annotator: str
    item_id: str
    attempt: int
    """1 for the first round, 2 for the first retry, ..."""
    position: int
    swapped: bool
    """False: slot A on the left."""
    label: str | None = None
    """The answer in slot space, or None before it."""
    answered_at: str | None = None
    acknowledged_at: str | None = None
    """When the annotator dismissed the feedback (None: still to be seen)."""

    @property
    def state(self) -> str:
        """`not answered`, `gold feedback pending` (answered, feedback not yet dismissed) or `answered`."""
        if self.label is None:
            return "not answered"
        return "gold feedback pending" if self.acknowledged_at is None else "answered"


@dataclass(frozen=True)
class TrainingState:
    """Where one annotator stands: their latest round and the lead's word."""

    annotator: str
    attempt: int
    """The latest round (0: not started)."""
    total: int
    answered: int
    correct: int
    threshold: float
    retries: int
    override: str | None = None
    """The lead's latest word (`pass`, `revoke`) or None."""

    @property
    def finished(self) -> bool:
        return self.total > 0 and self.answered == self.total

    @property
    def score(self) -> float | None:
        """Share right in the latest round once it is finished, else None."""
        return self.correct / self.total if self.finished else None

    @property
    def passed(self) -> bool:
        return self.score is not None and self.score >= self.threshold - 1e-9

    @property
    def overridden(self) -> bool:
        return self.override == "pass"

    @property
    def opens(self) -> bool:
        """Whether the main queue is open: passed, or let through by the lead."""
        return self.passed or self.overridden

    @property
    def may_retry(self) -> bool:
        return self.finished and not self.opens and self.attempt <= self.retries

    @property
    def verdict(self) -> str:
        """`not started`, `in progress`, `passed`, `failed` or `overridden` (failed, let through)."""
        if self.overridden and not self.passed:
            return "overridden"
        if self.attempt == 0:
            return "not started"
        if not self.finished:
            return "in progress"
        return "passed" if self.passed else "failed"


def needed(total: int, threshold: float) -> int:
    """Right answers needed out of `total` to reach `threshold`."""
    for k in range(total + 1):
        if k / total >= threshold - 1e-9:
            return k
    return total


def round_order(item_ids: Sequence[str], seed: int, annotator: str, attempt: int) -> list[tuple[str, bool]]:
    """(item id, swapped) in the order `annotator` sees the training items in round `attempt`.

    Seeded by the session seed, the name and the round, so it is reproducible; the order is a
    shuffle and half the items (within one, chosen at random) have slot B on the left, so across a
    cohort each item is shown each way about equally often.
    """
    rng = random.Random(f"training:{seed}:{annotator}:{attempt}")
    order = sorted(set(item_ids))
    rng.shuffle(order)
    n = len(order)
    swapped = set(rng.sample(range(n), n // 2 + (rng.random() < 0.5 if n % 2 else 0)))
    return [(item_id, i in swapped) for i, item_id in enumerate(order)]


def outcome_text(label: str, swapped: bool) -> str:
    """A slot-space label as the annotator saw it: `Left better`, `Tie`."""
    return SIDE_TEXT[slot_to_side(label, swapped)]


def check_explanation(value: object) -> str | None:
    """What is wrong with an explanation (None when it is fine)."""
    if not isinstance(value, str) or not value.strip():
        return "a non-empty string: what a training item's expected outcome rests on"
    if len(value) > MAX_EXPLANATION_CHARS:
        return f"at most {MAX_EXPLANATION_CHARS} characters"
    return None


def read_training_file(path: Path | str, schema: object) -> list[TrainingItem]:
    """The training items of a native JSON Lines (or JSON) file; FormatError naming the file, the
    line and the field for anything wrong (every item needs `gold` and `explanation`)."""
    from annotate.formats.native import parse_item
    from annotate.formats.reading import Record, read_table

    table = read_table(path)
    found: list[TrainingItem] = []
    seen: dict[str, str] = {}
    for record in table.records:
        data = dict(record.data) if isinstance(record.data, dict) else record.data
        if not isinstance(data, dict):
            raise record.error("an object (one training item)")
        explanation = data.pop("explanation", None)
        item = parse_item(Record(data, record.file, record.line, record.index), schema)  # type: ignore[arg-type]
        if item.gold is None:
            raise record.error("a gold label (A, B, tie or both_bad): a training item needs its expected outcome",
                               "gold", found="nothing")
        problem = check_explanation(explanation)
        if problem is not None:
            raise record.error(problem, "explanation", **({"found": "nothing"} if explanation is None
                                                          else {"got": explanation}))
        if item.id in seen:
            raise record.error("an id used once in the file", "id",
                               found=f"{item.id!r} again (first on {seen[item.id]})")
        seen[item.id] = record.where
        found.append(TrainingItem(item, str(explanation)))
    if not found:
        from annotate.formats.errors import FormatError

        raise FormatError(table.file, "at least one training item", found="an empty file")
    return found


def import_training(store: Any, spec: Any, path: Path | str) -> Any:
    """Read a training file and add its items to the session (all or nothing); the AddResult.
    A session whose spec has no `[training]` table is refused: the items would never be shown."""
    from annotate.store.training import add_training_items

    if spec.training is None:
        raise ValueError(f"{spec.path}: [training] a table with pass_threshold (e.g. 0.8) is needed before"
                         " training items are imported; the section is missing")
    items = read_training_file(path, spec.schema)
    return add_training_items(store, items, source=Path(path).name)


def cohort_names(store: Any, spec: Any) -> list[str]:
    """The annotators a training round is for: the plan's and the spec's [plan] names."""
    from annotate.plan import stored_plan_inputs

    inputs = stored_plan_inputs(store) or {}
    return sorted(set(inputs.get("annotators", [])) | set(spec.plan.annotators))


def state_text(state: TrainingState) -> str:
    """`4 of 5 right (80 %), threshold 80 %: passed`, for the lead and the report."""
    threshold = f"threshold {state.threshold:.0%}"
    if state.attempt == 0:
        return f"not started ({state.total} items, {threshold})" + (": let through by the lead"
                                                                     if state.overridden else "")
    counts = f"{state.correct} of {state.total} right" if state.finished else \
        f"{state.answered} of {state.total} answered"
    share = f" ({state.correct / state.total:.0%})" if state.finished else ""
    rounds = f", round {state.attempt}" if state.attempt > 1 else ""
    return f"{counts}{share}, {threshold}{rounds}: {state.verdict}"


def training_lines(store: Any, spec: Any) -> list[str]:
    """The lead's listing: a heading, then one line per annotator."""
    from annotate.safe_text import one_line
    from annotate.store.training import count_training_items, training_states

    total = count_training_items(store)
    if total == 0:
        return [f"no training items yet: import some with `annotate import {spec.name} FILE --training`"]
    states = training_states(store, spec, cohort_names(store, spec))
    lines = [f"training: {total} items, pass threshold {spec.training.pass_threshold:.0%} "
             f"({needed(total, spec.training.pass_threshold)} of {total}), retries {spec.training.retries}"]
    if not states:
        lines.append("nobody has started the training round yet")
    width = max((len(s.annotator) for s in states), default=0)
    for state in states:
        lines.append(f"  {one_line(state.annotator):<{width}}  {state_text(state)}")
    if any(s.verdict == "failed" for s in states):
        lines.append(f"let someone through with `annotate training {spec.name} --pass NAME`")
    return lines
