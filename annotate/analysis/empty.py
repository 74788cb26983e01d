"""Votes on items where a response is empty (the model returned nothing).

An empty response is data: a model that returns nothing should lose, and a rater who prefers it
(or calls it a tie) is worth a look. These counts let the report flag such items and say how
their votes went, without dropping them from any other figure.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd

__all__ = ["EmptyResponses", "empty_response_votes", "empty_response_votes_per_item"]


@dataclass(frozen=True)
class EmptyResponses:
    """Items with an empty response and the votes on them.

    Attributes:
        items: (item id, slot) of each empty response, in the order given.
        n_items: distinct items with at least one empty response.
        n_votes: votes on those items.
        for_empty, for_other, tie_or_both_bad: pairwise votes that chose an empty response, chose a
            non-empty one, or were a tie or both bad (all 0 for single-response sessions).
        median_grade: single-response sessions: the median grade of those votes (None otherwise or
            without votes).
    """

    items: tuple[tuple[str, str], ...]
    n_items: int
    n_votes: int
    for_empty: int = 0
    for_other: int = 0
    tie_or_both_bad: int = 0
    median_grade: float | None = None

    def to_json(self) -> dict[str, Any]:
        """Plain-JSON form: ``{n_items, items: [{item, slot}], n_votes, for_empty, for_other,
        tie_or_both_bad, median_grade}``."""
        return {
            "n_items": self.n_items,
            "items": [{"item": item, "slot": slot} for item, slot in self.items],
            "n_votes": self.n_votes,
            "for_empty": self.for_empty,
            "for_other": self.for_other,
            "tie_or_both_bad": self.tie_or_both_bad,
            "median_grade": self.median_grade,
        }


def empty_response_votes(votes: pd.DataFrame, empty: pd.DataFrame, pairwise: bool) -> EmptyResponses:
    """Count the votes on items with an empty response.

    votes: one row per vote, columns ``item`` and ``label`` (slot space for pairwise: A, B, tie,
    both_bad; a grade for single); empty: one row per empty response, columns ``item`` and ``slot``.
    A pairwise vote for A or B counts as ``for_empty`` when that slot is empty, else ``for_other``.

    >>> v = pd.DataFrame({"item": ["q1", "q1", "q1", "q2"], "label": ["A", "B", "tie", "A"]})
    >>> e = pd.DataFrame({"item": ["q1"], "slot": ["B"]})
    >>> r = empty_response_votes(v, e, pairwise=True)
    >>> (r.n_items, r.n_votes, r.for_empty, r.for_other, r.tie_or_both_bad)
    (1, 3, 1, 1, 1)
    """
    pairs = tuple((str(i), str(s)) for i, s in zip(empty["item"], empty["slot"], strict=True))
    slots: dict[str, set[str]] = {}
    for item, slot in pairs:
        slots.setdefault(item, set()).add(slot)
    on = votes.loc[votes["item"].astype(str).isin(slots)]
    if not pairwise:
        grades = pd.to_numeric(on["label"], errors="coerce").dropna()
        median = float(grades.median()) if len(grades) else None
        return EmptyResponses(pairs, len(slots), len(on), median_grade=median)
    labels = on["label"].astype(str).tolist()
    chosen = [(slots[str(item)], label) for item, label in zip(on["item"], labels, strict=True) if label in ("A", "B")]
    for_empty = sum(1 for empty_slots, label in chosen if label in empty_slots)
    return EmptyResponses(pairs, len(slots), len(on), for_empty, len(chosen) - for_empty, len(on) - len(chosen))


def empty_response_votes_per_item(votes: pd.DataFrame, empty: pd.DataFrame, pairwise: bool) -> list[EmptyResponses]:
    """`empty_response_votes` for each item with an empty response on its own, in the order of ``empty``."""
    on = votes.loc[votes["item"].astype(str).isin(set(empty["item"].astype(str)))]
    groups = {str(item): group for item, group in on.groupby(on["item"].astype(str), sort=False)}
    out = []
    for item in dict.fromkeys(empty["item"].astype(str)):
        mine = empty.loc[empty["item"].astype(str) == item]
        out.append(empty_response_votes(groups.get(item, on.iloc[:0]), mine, pairwise))
    return out
