"""Adjudication: a third person settles the items where annotators disagree.

Rules (docs/merging.md, "Adjudication: annotate adjudicate", says the same for leads):

- An item is in disagreement when the current answers of its annotators (main and gold
  assignments; skips, repeats, attention checks and other adjudications left out) carry at
  least two different labels. Items whose `gold` is already known are left out: they need no
  adjudication.
- `annotate adjudicate SESSION --annotator NAME` gives NAME one assignment of purpose
  `adjudication` per such item that NAME did not judge themselves, appended after NAME's other
  assignments, with sides counterbalanced (half swapped). They never enter NAME's own annotation
  queue (`ensure_queue` leaves them out).
- The adjudicator's answer is an ordinary judgment of that assignment (slot space, with
  timings and events); revising it supersedes it as usual.
- `adjudicated_labels` is what reports and exports use as gold: per item, the adjudicators'
  current label when they all agree (one adjudicator is the usual case); items where
  adjudicators disagree get none, and `reference_labels` adds the items' own gold.
- Agreement statistics must leave purpose `adjudication` out: an adjudicator has seen the
  others' answers (the votes frame carries `purpose` for that).
"""

from __future__ import annotations

import random
from collections import defaultdict
from dataclasses import dataclass

from annotate.design import LabelSchema, order_of
from annotate.model import SIDE_TEXT, Assignment, Span, slot_to_side
from annotate.spec import SessionSpec
from annotate.store import Store

ADJUDICATION = "adjudication"
"""The purpose of an adjudicator's assignments."""
VOTING_PURPOSES = ("main", "gold")
"""Purposes whose answers count as the annotators' votes."""



@dataclass(frozen=True)
class Vote:
    """One annotator's current answer on a disputed item."""

    annotator: str
    label: str
    """Slot space (pairwise) or the grade as text."""
    rationale: str
    confidence: int | None
    swapped: bool
    """The side mapping this annotator saw."""
    spans: tuple[Span, ...] = ()
    """The errors this annotator marked (slot space), shown to the adjudicator."""


@dataclass(frozen=True)
class Disagreement:
    """An item whose annotators gave different labels."""

    item_id: str
    votes: tuple[Vote, ...]

    @property
    def labels(self) -> tuple[str, ...]:
        return tuple(sorted({v.label for v in self.votes}))


def disagreements(store: Store) -> list[Disagreement]:
    """Every item in disagreement (rules above), in item order, votes in submit order."""
    disputed = store.disagreements(VOTING_PURPOSES)
    if not disputed:
        return []
    gold = {item.id for item in store.items() if item.gold is not None}
    wanted = [i for i in disputed if i not in gold]
    votes = item_votes(store, wanted)
    return [Disagreement(item_id, votes.get(item_id, ())) for item_id in wanted]


def item_votes(store: Store, item_ids: list[str] | set[str]) -> dict[str, tuple[Vote, ...]]:
    """The annotators' current votes on these items (adjudications left out), in submit order."""
    wanted = set(item_ids)
    votes: dict[str, list[Vote]] = defaultdict(list)
    for assignment, judgment in store.current_votes(VOTING_PURPOSES):
        if assignment.item_id in wanted and judgment.label is not None:
            votes[assignment.item_id].append(Vote(
                assignment.annotator, judgment.label, judgment.rationale, judgment.confidence, assignment.swapped,
                judgment.spans,
            ))
    return {item_id: tuple(found) for item_id, found in votes.items()}


def ensure_adjudication_queue(store: Store, spec: SessionSpec, adjudicator: str) -> list[Assignment]:
    """The adjudicator's adjudication assignments, adding one for each item now in disagreement
    that they have none for and did not judge themselves. Raises ValueError for rubric sessions."""
    if spec.kind == "rubric":
        raise ValueError("adjudication settles labels: it works for pairwise, single and ranking sessions, not rubric "
                         "ones")
    with store.transaction():
        existing = store.assignments(adjudicator)
        have = {a.item_id for a in existing if a.purpose == ADJUDICATION}
        todo = [
            d.item_id for d in disagreements(store)
            if d.item_id not in have and adjudicator not in {v.annotator for v in d.votes}
        ]
        if todo:
            start = max((a.position for a in existing), default=-1) + 1
            rng = random.Random(f"adjudicate:{spec.seed}:{adjudicator}:{start}")
            ranked = spec.kind == "ranking"
            sided = spec.schema.sided and not ranked
            flags = [k % 2 == 1 for k in range(len(todo))] if sided else [False] * len(todo)
            rng.shuffle(flags)
            orders = [_adjudication_order(spec, rng) for _ in todo]
            store.add_assignments([
                Assignment(0, adjudicator, item_id, start + k, swapped=flag, purpose=ADJUDICATION, seed=spec.seed,
                           order=order)
                for k, (item_id, flag, order) in enumerate(zip(todo, flags, orders, strict=True))
            ])
    return [a for a in store.assignments(adjudicator) if a.purpose == ADJUDICATION]


def _adjudication_order(spec: SessionSpec, rng: random.Random) -> tuple[str, ...]:
    """A ranking item's display order for its adjudicator: the slots in a seeded random order (one
    adjudicator per item, so there is nothing to balance across annotators); () for other kinds."""
    if spec.kind != "ranking":
        return ()
    slots = list(getattr(spec.schema.primary, "slots", ()))
    rng.shuffle(slots)
    return tuple(slots)


def adjudicated_labels(store: Store) -> dict[str, str]:
    """Item id -> the adjudicated label, for items whose adjudicators agree (rules above)."""
    labels: dict[str, set[str]] = defaultdict(set)
    for assignment, judgment in store.current_votes((ADJUDICATION,)):
        if judgment.label is not None:
            labels[assignment.item_id].add(judgment.label)
    return {item_id: next(iter(found)) for item_id, found in labels.items() if len(found) == 1}


def reference_labels(store: Store) -> dict[str, str]:
    """Item id -> the best known right answer: the item's own gold, else the adjudicated label."""
    labels = adjudicated_labels(store)
    labels.update({item.id: item.gold for item in store.items() if item.gold is not None})
    return labels


def vote_text(vote: Vote, kind: str, swapped: bool, schema: LabelSchema | None = None,
              order: tuple[str, ...] = ()) -> str:
    """A vote as the adjudicator should read it: pairwise labels in the adjudicator's own side
    mapping (`swapped` is the adjudication assignment's), in the words of the session's schema when
    given (`Left much better` for a graded `+2`), rankings over the adjudicator's own display
    positions (`order`: `3 > 1 = 2 > 4`), grades as they are."""
    if kind == "ranking" and schema is not None and schema.primary is not None and order:
        value = schema.primary.parse(vote.label)
        return vote.label if value is None else schema.primary.text_of(value, order)
    if kind != "pairwise":
        return f"grade {vote.label}"
    primary = schema.primary if schema is not None else None
    if primary is not None:
        value = primary.parse(vote.label)
        return vote.label if value is None else primary.text_of(value, order_of(swapped))
    try:
        return SIDE_TEXT[slot_to_side(vote.label, swapped)]
    except ValueError:
        return vote.label
