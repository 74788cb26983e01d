"""Battles between models aggregated per model pair, and the items (clusters) they come from.

A *battle* is one vote between two models: the first won, the second won, or a tie ("both_bad" is a
tie).  `PairCounts` holds the outcome counts per model pair, which is all a Bradley-Terry fit needs.

Votes on one item are not independent: three annotators judging the same two answers to the same
prompt share the prompt's difficulty and the answers' quirks.  A bootstrap that resamples single
votes then understates the uncertainty.  So `PairCounts` also describes the items (`ItemPatterns`),
and intervals resample items with all their votes (a cluster bootstrap; Davison & Hinkley 1997,
*Bootstrap Methods and their Application*, section 3.8; Field & Welsh 2007).

Resampling items without a loop over items: an item is its vector of votes per (pair, outcome)
cell.  Items with the same vector (a *pattern*) are exchangeable, so drawing N items with
replacement is exactly one multinomial draw of N over the distinct patterns with probabilities
multiplicity / N.  With three votes per item there are at most 10 patterns per pair, so the cost
does not grow with the number of items.  Without item ids every battle is its own item, the
patterns are the (pair, outcome) cells, and the draw is the classic multinomial resampling of
battles.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from annotate.frame_codes import factorize

__all__ = [
    "WINNER_CODES",
    "ItemPatterns",
    "PairCounts",
    "pair_counts",
    "pair_counts_from_arrays",
    "played",
]

WINNER_CODES: dict[str, int] = {"model_a": 0, "model_b": 1, "tie": 2, "both_bad": 2, "tie (bothbad)": 2}
"""Battle outcome -> 0 (model_a won), 1 (model_b won), 2 (tie)."""


@dataclass(frozen=True, eq=False)
class ItemPatterns:
    """The items behind the battles, as distinct patterns of votes (see the module docstring).

    An *entry* is one pattern's votes on one model pair; a pattern usually has one entry (an item
    compares one pair of models), but a cluster that spans pairs has one per pair.

    Attributes:
        multiplicity: ``(T,)`` number of items with each pattern (sums to the number of items).
        entry_pattern: ``(E,)`` the pattern of each entry.
        entry_pair: ``(E,)`` the pair (row of `PairCounts.pairs`) of each entry, non-decreasing.
        entry_votes: ``(E, 3)`` the pattern's votes on that pair: wins of ``pairs[p, 0]``, wins of
            ``pairs[p, 1]``, ties.
        unit: what one item is, for the report: ``"items"`` (votes grouped by item id) or
            ``"battles"`` (no item ids: every battle is its own item).
    """

    multiplicity: np.ndarray
    entry_pattern: np.ndarray
    entry_pair: np.ndarray
    entry_votes: np.ndarray
    unit: str = "items"

    @property
    def n_items(self) -> int:
        """How many items (clusters) there are."""
        return round(float(self.multiplicity.sum()))


@dataclass(frozen=True, eq=False)
class PairCounts:
    """Battle outcomes aggregated per model pair, with the items they come from.

    Attributes:
        models: model names; indexes below refer to this tuple.
        pairs: ``(P, 2)`` int64 model indexes, ``pairs[:, 0] < pairs[:, 1]``, each pair once.
        outcomes: ``(P, 3)`` float64 counts: wins of ``pairs[:, 0]``, wins of ``pairs[:, 1]``, ties
            (both_bad included).
        items: the items behind the counts; None means every battle is its own item (see
            `PairCounts.item_patterns`).
    """

    models: tuple[str, ...]
    pairs: np.ndarray
    outcomes: np.ndarray
    items: ItemPatterns | None = None

    @property
    def n_battles(self) -> int:
        """Total number of battles."""
        return round(float(self.outcomes.sum()))

    def item_patterns(self) -> ItemPatterns:
        """`items`, or, without item ids, one pattern per non-empty (pair, outcome) cell."""
        if self.items is not None:
            return self.items
        pair, outcome = np.nonzero(self.outcomes)
        votes = np.zeros((pair.size, 3))
        votes[np.arange(pair.size), outcome] = 1.0
        return ItemPatterns(self.outcomes[pair, outcome].astype(np.float64), np.arange(pair.size), pair, votes,
                            unit="battles")


def _orient(models: Sequence[str], i: np.ndarray, j: np.ndarray, outcomes: np.ndarray
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Validate; order each pair as (low, high) index, swapping the win columns.  Returns the pair
    keys ``low * K + high``, the unique keys and the oriented outcomes."""
    k = len(models)
    if (i == j).any():
        raise ValueError(f"a model cannot battle itself: {models[int(i[i == j][0])]!r}")
    if ((i < 0) | (j < 0) | (i >= k) | (j >= k)).any():
        raise ValueError("model index out of range")
    if (outcomes < 0).any():
        raise ValueError("battle counts must be non-negative")
    swap = i > j
    lo, hi = np.where(swap, j, i), np.where(swap, i, j)
    wins = np.where(swap[:, None], outcomes[:, [1, 0]], outcomes[:, :2])
    key = lo.astype(np.int64) * k + hi
    return key, np.unique(key), np.column_stack([wins, outcomes[:, 2]])


def _canonical(models: Sequence[str], i: np.ndarray, j: np.ndarray, outcomes: np.ndarray,
               clusters: np.ndarray | None = None) -> PairCounts:
    """Merge rows into one per pair; with ``clusters`` (one integer code per row), the item patterns."""
    k = len(models)
    key, keys, out = _orient(models, i, j, outcomes)
    inverse = np.searchsorted(keys, key)
    merged = np.column_stack([np.bincount(inverse, out[:, c], keys.size) for c in range(3)])
    pairs = np.column_stack([keys // k, keys % k]).astype(np.int64)
    items = None if clusters is None else _patterns(clusters, inverse, out, keys.size)
    return PairCounts(tuple(models), pairs, merged, items)


def _patterns(clusters: np.ndarray, pair: np.ndarray, out: np.ndarray, n_pairs: int) -> ItemPatterns:
    """Distinct vote patterns of the items; ``clusters``, ``pair``: codes per row, ``out``: ``(n, 3)``."""
    merged = _one_pair_patterns(clusters, pair, out, n_pairs)
    if merged is not None:
        return merged
    codes = pd.factorize(clusters)[0]
    n_clusters = int(codes.max()) + 1 if codes.size else 0
    entry_key = codes.astype(np.int64) * n_pairs + pair
    entries, inverse = np.unique(entry_key, return_inverse=True)
    votes = np.column_stack([np.bincount(inverse, out[:, c], entries.size) for c in range(3)])
    entry_cluster, entry_pair = entries // n_pairs, entries % n_pairs
    if entries.size == n_clusters:  # every item compares one pair: merge items with equal votes
        return _merged(entry_pair, votes)
    order = np.lexsort((entry_cluster, entry_pair))  # items spanning pairs: each its own pattern
    return ItemPatterns(np.ones(n_clusters), entry_cluster[order], entry_pair[order], votes[order])


def _one_pair_patterns(clusters: np.ndarray, pair: np.ndarray, out: np.ndarray, n_pairs: int) -> ItemPatterns | None:
    """`_patterns` when every item compares one pair and the clusters are small non-negative integers (the
    items' codes): merged from the clusters as they are, since merging forgets which item was which (no
    factorize: 0.6 s at the Arena's 1.67M items); None otherwise (the caller numbers the items)."""
    if clusters.dtype.kind not in "iu" or not clusters.size:
        return None
    if int(clusters.min()) < 0 or (int(clusters.max()) + 1) * n_pairs >= 2**62:
        return None
    entries, inverse = np.unique(clusters.astype(np.int64) * n_pairs + pair, return_inverse=True)
    entry_cluster = entries // n_pairs
    n_clusters = int(np.count_nonzero(entry_cluster[1:] != entry_cluster[:-1])) + 1  # entries sort by cluster
    if entries.size != n_clusters:
        return None
    votes = np.column_stack([np.bincount(inverse, out[:, c], entries.size) for c in range(3)])
    return _merged(entries % n_pairs, votes)


def _merged(entry_pair: np.ndarray, votes: np.ndarray) -> ItemPatterns:
    """The patterns of items that compare one pair each: items with the same pair and votes merged."""
    rows = np.empty((entry_pair.size, 4), dtype=np.int64)
    rows[:, 0], rows[:, 1:] = entry_pair, votes
    distinct, multiplicity = _unique_rows(rows)  # sorted by pair first
    return ItemPatterns(multiplicity.astype(np.float64), np.arange(distinct.shape[0]), distinct[:, 0],
                        distinct[:, 1:].astype(np.float64))


def _unique_rows(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(rows, axis=0, return_counts=True)`` for rows of non-negative integers: the distinct rows
    sorted (by the first column, then the next...) and how often each comes. Where the rows fit one integer
    key each (mixed radix, the same order), the keys are sorted instead of the rows: 0.1 s instead of 1.3 s
    at the Arena's 1.67M items."""
    if rows.size == 0 or rows.min() < 0:
        return np.unique(rows, axis=0, return_counts=True)  # type: ignore[no-any-return]
    radix = [int(r) + 1 for r in rows.max(axis=0)]  # Python ints: their product cannot overflow
    if math.prod(radix) >= 2**62:
        return np.unique(rows, axis=0, return_counts=True)  # type: ignore[no-any-return]
    key = np.zeros(rows.shape[0], dtype=np.int64)
    for c, r in enumerate(radix):
        key = key * r + rows[:, c]
    keys, counts = np.unique(key, return_counts=True)
    distinct = np.empty((keys.size, len(radix)), dtype=np.int64)
    for c in reversed(range(len(radix))):
        distinct[:, c] = keys % radix[c]
        keys = keys // radix[c]
    return distinct, counts


def pair_counts(
    battles: pd.DataFrame, model_a: str = "model_a", model_b: str = "model_b", winner: str = "winner",
    item: str | None = None,
) -> PairCounts:
    """Aggregate battles (one row each) into per-pair counts.

    battles: columns ``model_a``, ``model_b`` (names) and ``winner`` in {"model_a", "model_b", "tie",
    "both_bad"} (Arena's "tie (bothbad)" is accepted too); models are sorted by name.  ``item``: the
    column naming the item each battle is a vote on; rows with the same value are one cluster for
    the bootstrap.  Without it every battle is its own item.
    """
    missing = [c for c in (model_a, model_b, winner, *((item,) if item else ())) if c not in battles.columns]
    if missing:
        raise ValueError(f"battles are missing columns {missing}")
    winner_codes, winner_names = pd.factorize(battles[winner])
    unknown = [str(w) for w in winner_names if w not in WINNER_CODES]
    if unknown or (winner_codes < 0).any():
        raise ValueError(
            f"unknown winner values {sorted(unknown)[:5] or ['<missing>']}; expected {sorted(WINNER_CODES)}"
        )
    codes_a, names_a = pd.factorize(battles[model_a].astype(str))
    codes_b, names_b = pd.factorize(battles[model_b].astype(str))
    models = sorted(set(names_a) | set(names_b))
    position = {m: k for k, m in enumerate(models)}
    i = np.array([position[m] for m in names_a], dtype=np.int64)[codes_a]
    j = np.array([position[m] for m in names_b], dtype=np.int64)[codes_b]
    n = len(battles)
    outcome = np.array([WINNER_CODES[w] for w in winner_names], dtype=np.int64)[winner_codes]
    one_hot = np.zeros((n, 3))
    one_hot[np.arange(n), outcome] = 1.0
    clusters = None if item is None else _item_codes(battles, item)
    return _canonical([str(m) for m in models], i, j, one_hot, clusters)


def _item_codes(battles: pd.DataFrame, item: str) -> np.ndarray:
    """The items (column `item`) as integers in order of first appearance, NaN where missing (as `_patterns`
    factorises them); from the items' codes where the battles carry them (`annotate.frame_codes`)."""
    codes = factorize(battles, item)[0]
    return np.where(codes < 0, np.nan, codes) if (codes < 0).any() else codes


def pair_counts_from_arrays(models: Sequence[str], pairs: Sequence[Sequence[int]], outcomes: Any) -> PairCounts:
    """Per-pair counts from arrays, e.g. the Chatbot Arena export (``models``, ``X``, ``Y``).

    pairs: ``(P, 2)`` model indexes; outcomes: ``(P, >= 3)`` counts: wins of the first model, wins of
    the second, then one or more tie columns (summed; Arena: ties, ties both bad).  No item ids:
    every battle is its own item.
    """
    p = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    y = np.asarray(outcomes, dtype=np.float64)
    if y.ndim != 2 or y.shape[0] != p.shape[0] or y.shape[1] < 3:
        raise ValueError(f"outcomes must have shape (P, >= 3) with P = {p.shape[0]}, got {y.shape}")
    out = np.column_stack([y[:, 0], y[:, 1], y[:, 2:].sum(axis=1)])
    return _canonical([str(m) for m in models], p[:, 0], p[:, 1], out)


def played(counts: PairCounts) -> PairCounts:
    """Drop models without battles (they have no rating) and pairs without battles; re-index."""
    keep = np.zeros(len(counts.models), dtype=bool)
    nonempty = counts.outcomes.sum(axis=1) > 0
    keep[counts.pairs[nonempty].ravel()] = True
    new_index = np.cumsum(keep) - 1
    models = tuple(m for m, k in zip(counts.models, keep, strict=True) if k)
    items = counts.items
    if items is not None and not nonempty.all():
        new_pair = np.cumsum(nonempty) - 1
        items = ItemPatterns(items.multiplicity, items.entry_pattern, new_pair[items.entry_pair], items.entry_votes,
                             items.unit)
    return PairCounts(models, new_index[counts.pairs[nonempty]], counts.outcomes[nonempty], items)
