"""One verdict per item from several pairwise votes: the majority rule, stated and chosen by the lead.

Votes on an item are counted per class: A (slot A preferred), B, tie (tie, both bad and an LLM's
inconsistent verdict are one class, as in MT-Bench).  Two rules turn the counts into one verdict:

* ``plurality``: the class with the most votes; an item where the top count is shared (2 A and 2 B,
  or 1 A, 1 B and 1 tie) has no majority and is *dropped* (counted, never silently).
* ``mean``: the sign of the mean score, scoring A as +1, B as -1 and a tie as 0: positive is A,
  negative is B, zero is a tie.  No item is dropped.

The two differ when ties are frequent: votes A, tie, tie give A under ``mean`` and tie under
``plurality``; A, A, B, tie, tie gives A under ``mean`` and no majority under ``plurality``.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

__all__ = ["DROPPED", "MAJORITY_RULES", "MajorityRule", "describe_rule", "verdicts"]

MajorityRule = Literal["plurality", "mean"]
MAJORITY_RULES: tuple[MajorityRule, ...] = ("plurality", "mean")

DROPPED = -1
"""The verdict of an item without a majority (plurality rule, top count shared) or without votes."""

_DESCRIPTIONS = {
    "plurality": "plurality: the most frequent of A, B and tie; items where the top count is shared are dropped",
    "mean": "sign of the mean score (A = +1, B = -1, tie = 0): positive A, negative B, zero a tie",
}


def describe_rule(rule: str) -> str:
    """The rule in one phrase, as the report prints it next to every majority figure."""
    return _DESCRIPTIONS[_check(rule)]


def _check(rule: str) -> MajorityRule:
    if rule not in MAJORITY_RULES:
        raise ValueError(f"majority rule must be one of {', '.join(MAJORITY_RULES)}, not {rule!r}")
    return rule  # type: ignore[return-value]


def verdicts(counts: np.ndarray, rule: str = "plurality") -> np.ndarray:
    """The verdict class per row of vote counts.

    counts: ``(n, 3)`` votes per item for classes 0 (A), 1 (B), 2 (tie); any non-negative numbers.
    Returns ``(n,)`` int64 in {0, 1, 2, `DROPPED`}; a row without votes is always `DROPPED`.

    >>> verdicts(np.array([[2, 1, 0], [1, 1, 0], [1, 0, 2]]), "plurality").tolist()
    [0, -1, 2]
    >>> verdicts(np.array([[2, 1, 0], [1, 1, 0], [1, 0, 2]]), "mean").tolist()
    [0, 2, 0]
    """
    rule = _check(rule)
    c = np.asarray(counts, dtype=np.float64).reshape(-1, 3)
    total = c.sum(axis=1)
    if rule == "plurality":
        top = c.max(axis=1)
        unique = (c == top[:, None]).sum(axis=1) == 1
        out = np.where(unique, c.argmax(axis=1), DROPPED)
    else:
        score = c[:, 0] - c[:, 1]
        out = np.where(score > 0, 0, np.where(score < 0, 1, 2))
    return np.where(total > 0, out, DROPPED).astype(np.int64)
