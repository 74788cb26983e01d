"""Agreement on pairwise preference votes between cohorts of raters, as in MT-Bench.

Follows Zheng et al. (2023), "Judging LLM-as-a-Judge with MT-Bench and Chatbot Arena", section 4.2
and appendix D.3, and FastChat's ``llm_judge/compute_agreement.py``: agreement is the probability
that two *different* raters agree on a randomly selected item, estimated by pooling all vote pairs
(agreeing pairs / all pairs), with ties ("S1", ties count as a vote) and without ties ("S2", only
pairs where both raters chose A or B).

Votes: a long DataFrame with columns ``item``, ``rater``, ``rater_type`` (any string: "expert",
"crowd", "llm", ...) and ``label`` in {"A", "B", "tie", "both_bad", "tie_inconsistent"}; "tie",
"both_bad" and "tie_inconsistent" are all one class, *tie*.  Rows with a missing label are dropped.
A rater may vote on an item more than once; pairs of votes by the same rater are never counted.

Intervals: 95 % percentile bootstrap over items (vectorised, see `annotate.analysis.bootstrap`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from annotate.analysis.bootstrap import (
    DEFAULT_N_BOOT,
    MIN_UNITS_FOR_INTERVAL,
    estimates_from_features,
    safe_ratio,
)
from annotate.analysis.estimate import Estimate
from annotate.analysis.majority import verdicts
from annotate.frame_codes import code_columns, factorize, mapped

__all__ = ["LABEL_CLASSES", "PairAgreement", "majority_agreement", "type_agreement"]

LABEL_CLASSES: dict[str, int] = {"A": 0, "B": 1, "tie": 2, "both_bad": 2, "tie_inconsistent": 2}
"""Vote label -> class (0 = A, 1 = B, 2 = tie)."""

_COLUMNS = ("item", "rater", "rater_type", "label")


@dataclass(frozen=True)
class PairAgreement:
    """Agreement between raters of type ``type_x`` and raters of type ``type_y``.

    Attributes:
        type_x, type_y: the two rater types (equal for agreement within one cohort).
        with_ties: agreement counting tie as a third answer (MT-Bench "w/ tie", S1).  Its
            ``n_units`` is the number of items with at least one pair, ``n_pairable`` the number of
            pairs (votes pairs; majority pairs for `majority_agreement`).
        without_ties: agreement over pairs where both chose A or B (MT-Bench "w/o tie", S2).
        n_pairs_with_ties, n_pairs_without_ties: the pair counts behind each estimate.
        n_items: items with at least one pair (with ties).
        n_items_tied: `majority_agreement` only: items both types voted on that were dropped because
            a type's majority was tied (plurality rule); 0 otherwise.
        rule: `majority_agreement` only: the majority rule used (None for vote pairs).
    """

    type_x: str
    type_y: str
    with_ties: Estimate
    without_ties: Estimate
    n_pairs_with_ties: int
    n_pairs_without_ties: int
    n_items: int
    n_items_tied: int = 0
    rule: str | None = None

    def to_json(self) -> dict[str, Any]:
        """Plain-JSON form with NaN as ``None``."""
        return {
            "type_x": self.type_x,
            "type_y": self.type_y,
            "with_ties": self.with_ties.to_json(),
            "without_ties": self.without_ties.to_json(),
            "n_pairs_with_ties": int(self.n_pairs_with_ties),
            "n_pairs_without_ties": int(self.n_pairs_without_ties),
            "n_items": int(self.n_items),
            "n_items_tied": int(self.n_items_tied),
            "rule": self.rule,
        }


def _prepare(votes: pd.DataFrame, types: set[str]) -> pd.DataFrame:
    """Votes of the given types with an integer ``cls`` column; validates columns and labels."""
    missing = [c for c in _COLUMNS if c not in votes.columns]
    if missing:
        raise ValueError(f"votes are missing columns {missing}")
    v = votes.loc[votes["label"].notna() & votes["rater_type"].isin(types),
                  [*_COLUMNS, *code_columns(votes, "item", "rater")]]
    unknown = set(v["label"].unique()) - set(LABEL_CLASSES)
    if unknown:
        raise ValueError(f"unknown vote labels {sorted(map(str, unknown))}; expected {sorted(LABEL_CLASSES)}")
    return v.assign(cls=mapped(v["label"], LABEL_CLASSES).astype(np.int64))


def _class_counts(v: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Counts of classes 0, 1, 2 per group of ``keys``; columns 0, 1, 2."""
    counts = v.groupby([*keys, "cls"]).size().unstack("cls", fill_value=0)
    return counts.reindex(columns=[0, 1, 2], fill_value=0)


def _pair_sums(cx: pd.DataFrame, cy: pd.DataFrame, items: pd.Index) -> np.ndarray:
    """Per item ``[agree with ties, pairs with ties, agree without ties, pairs without ties]``.

    cx, cy: class counts per (item, rater) for each side.  Pairs of votes by the same rater are
    removed: ordered pairs = C_x C_y - sum_r c_xr c_yr, per class for the agreeing pairs.
    """
    per_x = cx.groupby(level="item").sum().reindex(items, fill_value=0).to_numpy(np.float64)
    per_y = cy.groupby(level="item").sum().reindex(items, fill_value=0).to_numpy(np.float64)
    same = cx.set_axis(["0_x", "1_x", "2_x"], axis=1).join(cy.set_axis(["0_y", "1_y", "2_y"], axis=1), how="inner")
    sx = same[["0_x", "1_x", "2_x"]].to_numpy(np.float64) if len(same) else np.zeros((0, 3))
    sy = same[["0_y", "1_y", "2_y"]].to_numpy(np.float64) if len(same) else np.zeros((0, 3))
    prod = pd.DataFrame(
        np.column_stack([sx * sy, sx.sum(1) * sy.sum(1), sx[:, :2].sum(1) * sy[:, :2].sum(1)]),
        index=same.index.get_level_values("item"),
    )
    self_pairs = prod.groupby(level=0).sum().reindex(items, fill_value=0).to_numpy(np.float64)
    agree_all = (per_x * per_y).sum(1) - self_pairs[:, :3].sum(1)
    pairs_all = per_x.sum(1) * per_y.sum(1) - self_pairs[:, 3]
    agree_nt = (per_x[:, :2] * per_y[:, :2]).sum(1) - self_pairs[:, :2].sum(1)
    pairs_nt = per_x[:, :2].sum(1) * per_y[:, :2].sum(1) - self_pairs[:, 4]
    return np.column_stack([agree_all, pairs_all, agree_nt, pairs_nt])


def _rate(num: int, den: int):
    def statistic(sums: np.ndarray) -> np.ndarray:
        return safe_ratio(sums[:, num], sums[:, den])

    return statistic


def _agreement_from_item_sums(
    sums: np.ndarray, n_raters: int, type_x: str, type_y: str, n_boot: int, seed: int | None
) -> PairAgreement:
    """Bootstrap the pooled ratios over items that have at least one pair (with ties)."""
    sums = sums[sums[:, 1] > 0]
    n_items, n_pairs, n_pairs_nt = sums.shape[0], round(float(sums[:, 1].sum())), round(float(sums[:, 3].sum()))
    n_items_nt = int((sums[:, 3] > 0).sum())
    est = estimates_from_features(
        sums,
        {"with": _rate(0, 1), "without": _rate(2, 3)},
        n_boot=n_boot,
        seed=seed,
        n_units=n_items,
        n_raters=n_raters,
        n_pairable=n_pairs,
        by_pattern=True,
    )
    w = est["with"]
    wo = est["without"]
    lo, hi = (wo.ci_low, wo.ci_high) if n_items_nt >= MIN_UNITS_FOR_INTERVAL else (float("nan"), float("nan"))
    without = Estimate(wo.estimate, lo, hi, n_items_nt, n_raters, n_pairs_nt)
    return PairAgreement(type_x, type_y, w, without, n_pairs, n_pairs_nt, n_items)


def type_agreement(
    votes: pd.DataFrame,
    type_x: str,
    type_y: str,
    *,
    n_boot: int = DEFAULT_N_BOOT,
    seed: int | None = 0,
) -> PairAgreement:
    """Probability that two different raters, one of type X and one of type Y, agree on an item.

    Counts every pair (vote of a type-X rater, vote of a type-Y rater) on the same item by two
    different raters; with ``type_x == type_y`` every unordered pair of votes by different raters of
    that type, once.  Estimate = agreeing pairs / pairs, pooled over items (MT-Bench, Zheng et al.
    2023, section 4.2 and FastChat ``compute_agreement.py``), so items with more votes weigh more.
    Without ties: only pairs where both votes are A or B.  Bootstrap over the items with a pair.

    >>> votes = pd.DataFrame({"item": [1, 1, 1], "rater": ["e1", "e2", "g"],
    ...                       "rater_type": ["expert", "expert", "llm"], "label": ["A", "A", "tie"]})
    >>> type_agreement(votes, "expert", "llm", n_boot=0).with_ties.estimate
    0.0
    """
    v = _prepare(votes, {type_x, type_y})
    item_codes, item_values = factorize(v, "item")  # in order of first appearance, as pd.unique
    rater_codes = factorize(v, "rater")[0]
    if (item_codes < 0).any() or (rater_codes < 0).any():  # a missing item or rater: grouped as pandas does
        return _type_agreement_frames(v, type_x, type_y, n_boot, seed)
    is_x = (v["rater_type"] == type_x).to_numpy()
    is_y = is_x if type_x == type_y else (v["rater_type"] == type_y).to_numpy()
    sums = _pair_sums_coded(item_codes, rater_codes, v["cls"].to_numpy(np.int64), is_x, is_y, len(item_values))
    if type_x == type_y:
        sums = sums / 2.0
    with_pairs = (sums[:, 1] > 0)[item_codes]
    n_raters = int(np.unique(rater_codes[with_pairs]).size)
    return _agreement_from_item_sums(sums, n_raters, type_x, type_y, n_boot, seed)


def _type_agreement_frames(v: pd.DataFrame, type_x: str, type_y: str, n_boot: int, seed: int | None
                           ) -> PairAgreement:
    """`type_agreement` by pandas groupbys (votes with a missing item or rater)."""
    cx = _class_counts(v[v["rater_type"] == type_x], ["item", "rater"])
    cy = cx if type_x == type_y else _class_counts(v[v["rater_type"] == type_y], ["item", "rater"])
    items = pd.Index(pd.unique(v["item"]), name="item")
    sums = _pair_sums(cx, cy, items)
    if type_x == type_y:
        sums = sums / 2.0
    with_pairs = items[sums[:, 1] > 0]
    n_raters = int(v.loc[v["item"].isin(with_pairs), "rater"].nunique())
    return _agreement_from_item_sums(sums, n_raters, type_x, type_y, n_boot, seed)


def _pair_sums_coded(items: np.ndarray, raters: np.ndarray, cls: np.ndarray, is_x: np.ndarray, is_y: np.ndarray,
                     n_items: int) -> np.ndarray:
    """`_pair_sums` on integer codes: votes of item ``items``, rater ``raters``, class ``cls``; ``is_x`` /
    ``is_y``: which votes are of each side (the same array when the types are one)."""
    n_raters = int(raters.max(initial=0)) + 1
    key = items.astype(np.int64) * n_raters + raters

    def per(side: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Class counts per item, and per (item, rater) with their keys."""
        per_item = np.bincount(items[side] * 3 + cls[side], minlength=n_items * 3).reshape(-1, 3).astype(np.float64)
        keys, inverse = np.unique(key[side], return_inverse=True)
        per_rater = np.bincount(inverse.ravel() * 3 + cls[side], minlength=keys.size * 3).reshape(-1, 3)
        return per_item, keys, per_rater.astype(np.float64)

    per_x, keys_x, cx = per(is_x)
    per_y, keys_y, cy = (per_x, keys_x, cx) if is_y is is_x else per(is_y)
    both, at_x, at_y = np.intersect1d(keys_x, keys_y, assume_unique=True, return_indices=True)
    sx, sy = cx[at_x], cy[at_y]
    owner = both // n_raters

    def summed(weights: np.ndarray) -> np.ndarray:
        return np.bincount(owner, weights, minlength=n_items)

    # a rater's pairs with themselves, per item and class, summed one column at a time (no table of them all)
    same = [summed(sx[:, c] * sy[:, c]) for c in range(3)]
    agree_all = (per_x * per_y).sum(1) - ((same[0] + same[1]) + same[2])
    pairs_all = per_x.sum(1) * per_y.sum(1) - summed(sx.sum(1) * sy.sum(1))
    agree_nt = (per_x[:, :2] * per_y[:, :2]).sum(1) - (same[0] + same[1])
    pairs_nt = per_x[:, :2].sum(1) * per_y[:, :2].sum(1) - summed(sx[:, :2].sum(1) * sy[:, :2].sum(1))
    return np.column_stack([agree_all, pairs_all, agree_nt, pairs_nt])


def _majority(counts: pd.DataFrame, items: pd.Index, rule: str) -> np.ndarray:
    """Majority class per item by ``rule`` (`verdicts`); -1 when no vote or no majority."""
    return verdicts(counts.reindex(items, fill_value=0).to_numpy(), rule)


def majority_agreement(
    votes: pd.DataFrame,
    type_x: str,
    type_y: str,
    *,
    n_boot: int = DEFAULT_N_BOOT,
    seed: int | None = 0,
    rule: str = "plurality",
) -> PairAgreement:
    """Agreement between the per-item majority vote of type X and that of type Y.

    Per item and type, one verdict among A / B / tie (all tie labels are one class) by ``rule``
    (`annotate.analysis.majority`: plurality with shared top counts dropped, or the sign of the mean
    score).  An item a type did not vote on is left out; an item both voted on where a majority is
    tied is dropped and counted in ``n_items_tied``.  With ties: share of remaining items whose
    majorities are equal; without ties: among items where both majorities are A or B.  One pair per
    item, so ``n_pairs_*`` count items.  The two types must differ (a cohort always agrees with its
    own majority).  Bootstrap over the items kept.
    """
    if type_x == type_y:
        raise ValueError("majority agreement needs two different rater types")
    v = _prepare(votes, {type_x, type_y})
    items = pd.Index(pd.unique(v["item"]), name="item")
    cx = _class_counts(v[v["rater_type"] == type_x], ["item"])
    cy = _class_counts(v[v["rater_type"] == type_y], ["item"])
    mx, my = _majority(cx, items, rule), _majority(cy, items, rule)
    voted = items.isin(cx.index) & items.isin(cy.index)
    both = (mx >= 0) & (my >= 0)
    decisive = both & (mx < 2) & (my < 2)
    sums = np.column_stack([both & (mx == my), both, decisive & (mx == my), decisive]).astype(np.float64)
    n_raters = int(v.loc[v["item"].isin(items[both]), "rater"].nunique())
    result = _agreement_from_item_sums(sums, n_raters, type_x, type_y, n_boot, seed)
    return replace(result, n_items_tied=int((voted & ~both).sum()), rule=rule)
