"""Exports for the next step: preference pairs for training, and answers per question.

- `preferences`: one row per item whose reference preference is A or B, as chosen / rejected text:
  the shape DPO trainers and reward-model tools read (`prompt`, `chosen`, `rejected`; `conversation`
  holds the whole shared context as messages). The reference is the item's gold, else its
  adjudicated label, else the majority of the human votes (cohorts expert and crowd; one vote per
  rater: their first main judgment, else gold, else an imported label); a tied majority, a tie and
  both bad give no pair. Beside it, the agreement behind it: `n_votes`, `n_agree` (votes with the
  same preference), `agreement` (their share) and `label_source` (gold, adjudicated or majority).
  Graded answers count through the preference they collapse to; `mean_strength` is their mean
  strength towards the chosen response (graded schemas only). For aspect schemas `aspect` picks the
  question (default: the primary one). Ranking sessions give one row per item and pair of its
  responses, from the pairs the rankings imply (`_implied_preference_rows`).
- `answers`: every judgment's answer to every question of the schema, in slot space, with the side
  it was shown on: long (one row per judgment and question) or wide (one row per judgment, a column
  per question and one per question's side).

Both are generators of rows (one item or one judgment at a time, from one cursor), so an export of
any size runs in constant memory.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from typing import Any

from annotate.design import LabelSchema, Question, order_of
from annotate.store import Store

PREFERENCE_COLUMNS = (
    "item", "prompt", "conversation", "chosen", "rejected", "chosen_model", "rejected_model", "chosen_slot",
    "label_source", "n_votes", "n_agree", "agreement", "mean_strength", "category",
)
HUMAN_COHORTS = ("expert", "crowd")
ANSWER_LONG_COLUMNS = (
    "uid", "annotator", "cohort", "item", "question", "value", "value_side", "preference", "number", "swapped",
    "display_order", "purpose", "condition", "submitted_at", "superseded", "planted",
)
ANSWER_BASE_COLUMNS = ("uid", "annotator", "cohort", "item", "swapped", "display_order", "purpose", "condition",
                       "submitted_at", "superseded", "planted")
LAYOUTS = ("long", "wide")


class DesignExportError(ValueError):
    """An export these options cannot give (no such aspect, a schema without preferences...)."""


def _question_for(schema: LabelSchema, aspect: str | None) -> Question:
    if aspect is None:
        question = schema.primary
        if question is None or not question.sided:
            raise DesignExportError(f"--what preferences: this {schema.kind} session has no pairwise preference")
        return question
    names = [q.name for q in schema.questions]
    if aspect not in names:
        raise DesignExportError(f"--aspect {aspect!r}: the session asks {', '.join(names)}")
    question = schema.question(aspect)
    if not question.sided:
        raise DesignExportError(f"--aspect {aspect!r}: not a pairwise preference")
    return question


def preference_rows(
    store: Store, schema: LabelSchema, *, aspect: str | None = None, include_planted: bool = False,
) -> Iterator[dict[str, Any]]:
    """Chosen / rejected rows (module docstring), one item at a time in item order. The options are
    checked at once (DesignExportError), before any row is asked for."""
    return _preference_rows(store, schema, _question_for(schema, aspect), include_planted)


def _preference_rows(
    store: Store, schema: LabelSchema, question: Question, include_planted: bool,
) -> Iterator[dict[str, Any]]:
    from annotate.adjudication import adjudicated_labels
    from annotate.store.streams import votes_by_item

    primary = question.name == schema.primary_name
    adjudicated = adjudicated_labels(store) if primary else {}
    if question.shape == "ranking":
        yield from _implied_preference_rows(store, question, adjudicated, include_planted)
        return
    for item_id, votes in votes_by_item(store, include_planted=include_planted):
        values = []
        for vote in votes:
            if vote.cohort not in HUMAN_COHORTS:
                continue
            answers = schema.decode(vote.label, json.loads(vote.scores or "{}"))
            raw = answers.get(question.name) if vote.source == "judgment" else (vote.label if primary else None)
            value = question.parse(raw) if raw is not None else None
            if value is not None:
                values.append(value)
        item = store.item(item_id)
        reference, source = _reference(question, item.gold if primary else None, adjudicated.get(item_id), values)
        if reference not in ("A", "B"):
            continue
        prefs = [question.preference(v) for v in values]
        strengths = [question.number(v) for v in values]
        towards = [s if reference == "A" else -s for s in strengths if s is not None]
        chosen, rejected = item.response(reference), item.response("B" if reference == "A" else "A")
        agree = sum(1 for p in prefs if p == reference)
        yield {
            "item": item.id, "prompt": item.prompt,
            "conversation": [{"role": m.role, "content": m.content} for m in item.conversation],
            "chosen": chosen.text, "rejected": rejected.text, "chosen_model": chosen.model,
            "rejected_model": rejected.model, "chosen_slot": reference, "label_source": source,
            "n_votes": len(prefs), "n_agree": agree, "agreement": agree / len(prefs) if prefs else None,
            "mean_strength": sum(towards) / len(towards) if towards and question.level != "nominal" else None,
            "category": item.category,
        }


def _implied_preference_rows(
    store: Store, question: Question, adjudicated: dict[str, str], include_planted: bool,
) -> Iterator[dict[str, Any]]:
    """Ranking sessions: one row per item and pair of its responses (x before y in slot order) whose
    reference is that one of the two is better: the pair the gold ranking implies, else the
    adjudicated ranking's, else the majority of the human rankings' implied outcomes for the pair
    (x better, y better or tied); a tie or a tied majority gives no row."""
    from annotate.store.streams import votes_by_item

    for item_id, votes in votes_by_item(store, include_planted=include_planted):
        pairs = [question.pairs(v) for vote in votes if vote.cohort in HUMAN_COHORTS
                 and (v := question.parse(vote.label)) is not None]
        item = store.item(item_id)
        fixed = None
        for label, source in ((item.gold, "gold"), (adjudicated.get(item_id), "adjudicated")):
            ranking = question.parse(label) if label is not None else None
            if ranking is not None:
                fixed = ({(x, y): o for x, y, o in question.pairs(ranking)}, source)
                break
        slots = question.slots  # type: ignore[attr-defined]
        for i, x in enumerate(slots):
            for y in slots[i + 1:]:
                outcomes = [o for implied in pairs for a, b, o in implied if (a, b) == (x, y)]
                if fixed is not None:
                    reference, source = fixed[0][(x, y)], fixed[1]
                else:
                    counts = Counter(outcomes).most_common()
                    tied = not counts or (len(counts) > 1 and counts[0][1] == counts[1][1])
                    reference, source = (None if tied else counts[0][0]), "majority"
                if reference not in ("A", "B"):
                    continue
                chosen_slot, rejected_slot = (x, y) if reference == "A" else (y, x)
                chosen, rejected = item.response(chosen_slot), item.response(rejected_slot)
                agree = sum(1 for o in outcomes if o == reference)
                yield {
                    "item": item.id, "prompt": item.prompt,
                    "conversation": [{"role": m.role, "content": m.content} for m in item.conversation],
                    "chosen": chosen.text, "rejected": rejected.text, "chosen_model": chosen.model,
                    "rejected_model": rejected.model, "chosen_slot": chosen_slot, "label_source": source,
                    "n_votes": len(outcomes), "n_agree": agree,
                    "agreement": agree / len(outcomes) if outcomes else None,
                    "mean_strength": None, "category": item.category,
                }


def _reference(question: Question, gold: str | None, adjudicated: str | None, values: list[str],
               ) -> tuple[str | None, str]:
    """The preference a pair is built from and where it came from: gold, adjudicated, majority."""
    for label, source in ((gold, "gold"), (adjudicated, "adjudicated")):
        if label is not None:
            value = question.parse(label)
            preference = question.preference(value) if value is not None else label
            if preference in ("A", "B", "tie", "both_bad"):
                return preference, source
    counts = Counter(question.preference(v) for v in values).most_common()
    if not counts or (len(counts) > 1 and counts[0][1] == counts[1][1]):
        return None, "majority"
    return counts[0][0], "majority"


def answer_columns(schema: LabelSchema, layout: str) -> tuple[str, ...]:
    if layout == "long":
        return ANSWER_LONG_COLUMNS
    per_question = tuple(c for q in schema.questions for c in (q.name, f"{q.name}_side"))
    return ANSWER_BASE_COLUMNS + per_question


def answer_rows(
    store: Store, schema: LabelSchema, *, layout: str = "long", include_superseded: bool = False,
    include_planted: bool = False,
) -> Iterator[dict[str, Any]]:
    """Every judgment's answers (module docstring), in submit order; skips left out."""
    if layout not in LAYOUTS:
        raise DesignExportError(f"--layout {layout!r}: expected long or wide")
    return _answer_rows(store, schema, layout, include_superseded, include_planted)


def _answer_rows(
    store: Store, schema: LabelSchema, layout: str, include_superseded: bool, include_planted: bool,
) -> Iterator[dict[str, Any]]:
    from annotate.store.streams import judgment_answers

    for row in judgment_answers(store, include_superseded, include_planted):
        swapped = bool(row["swapped"])
        order = order_of(swapped, row["display_order"] or ())
        answers = schema.decode(row["label"], json.loads(row["scores"] or "{}"))
        base = {k: row[k] for k in ANSWER_BASE_COLUMNS}
        base.update(swapped=swapped, superseded=bool(row["superseded"]), planted=bool(row["planted"]),
                    display_order=row["display_order"] or None)
        if layout == "wide":
            wide = dict(base)
            for q in schema.questions:
                value = answers.get(q.name)
                wide[q.name] = value
                wide[f"{q.name}_side"] = _side(q, value, order)
            yield wide
            continue
        for q in schema.questions:
            value = answers.get(q.name)
            if value is None:
                continue
            number = q.number(value) if q.parse(value) is not None else None
            yield {**base, "question": q.name, "value": value, "value_side": _side(q, value, order),
                   "preference": q.preference(value) if q.parse(value) is not None else None, "number": number}


def _side(question: Question, value: str | None, order: tuple[str, ...]) -> str | None:
    """The value as the screen showed it; None for values outside the question (or grades: no side)."""
    if value is None or not question.sided or question.parse(value) is None:
        return None
    return question.to_side(question.parse(value) or value, order)
