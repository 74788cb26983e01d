"""Agreement on rankings of k responses, position bias by display position, and the pairs a ranking implies.

Rankings: a long DataFrame, one row per (ranking, slot), with columns ``item``, ``rater``, ``slot`` and
``rank`` (the slot's mid-rank in that rater's ranking of the item: 1 = best, a tie of places 2 and 3
is 2.5 each); optional ``position`` (the display position 1..k the slot was shown at; NaN when not
known, e.g. imported votes) and ``model``. One ranking per (item, rater) ranks every slot of the item.

Every interval is a 95 % percentile bootstrap over *items* (`annotate.analysis.bootstrap`): the
rankings of one item, and the slots within one ranking, are never independent evidence.

* Kendall's W (Kendall & Babington Smith 1939; Kendall 1948, *Rank Correlation Methods*, ch. 6) is
  computed per item over its m raters ranking its k responses, corrected for ties:
  ``W = 12 S / (m^2 (k^3 - k) - m sum_j T_j)`` with ``S`` the sum of squared deviations of the
  responses' rank sums from their mean, and ``T_j = sum (t^3 - t)`` over the tied groups of rater j
  (Siegel & Castellan 1988, eq. 9.18). Without ties it is the textbook W. The session figure is the
  mean of the items' W (each item weighs the same); under no agreement each item's W is near 1 / m
  (its expectation for untied rankings), so the chance level is reported beside it.
* Krippendorff's alpha at the ordinal level on ranks (Krippendorff 2011): the units are the (item,
  slot) pairs, the values the mid-ranks; it equals ``krippendorff.alpha`` on that matrix. Its
  coincidences are summed per item, so the bootstrap resamples items, not slots.
* Position bias: per display position, the mean rank of the response shown there (expected
  (k + 1) / 2 when position plays no part) and how often it was ranked alone first (expected 1 / k,
  exact binomial test on the effective counts when items hold several rankings, Holm over positions).
* Implied pairs: each ranking gives k (k - 1) / 2 preferences between its responses, a tie where
  they share a place; `battles_from_ranks` turns them into battles between the responses' models for
  Bradley-Terry (`annotate.analysis.ranking`, ties as half a win), the item still the unit resampled.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from annotate.analysis.agreement.alpha import _alpha_ordinal_statistic, _coincidences
from annotate.analysis.bootstrap import estimate_from_features, estimates_from_features, safe_ratio
from annotate.analysis.estimate import Estimate, json_number

__all__ = [
    "KendallW",
    "PositionBias",
    "battles_from_ranks",
    "kendall_w",
    "kendall_w_item",
    "position_bias",
    "rank_alpha",
]

RANK_COLUMNS = ("item", "rater", "slot", "rank")


def _check(ranks: pd.DataFrame, also: tuple[str, ...] = ()) -> None:
    missing = [c for c in (*RANK_COLUMNS, *also) if c not in ranks.columns]
    if missing:
        raise ValueError(f"rankings are missing columns {missing}")


def _ties(ranks: np.ndarray) -> float:
    """sum (t^3 - t) over the groups of equal values in one ranking."""
    _, counts = np.unique(ranks, return_counts=True)
    return float((counts.astype(np.float64) ** 3 - counts).sum())


def kendall_w_item(matrix: np.ndarray) -> float:
    """Kendall's W, corrected for ties, of one item: ``matrix`` (m raters, k responses) of mid-ranks.

    NaN with fewer than two raters or when every ranking ties every response (nothing to agree on).

    >>> round(kendall_w_item(np.array([[1, 2, 3], [1, 2, 3], [2, 1, 3]], dtype=float)), 4)
    0.7778
    """
    m, k = matrix.shape
    if m < 2 or k < 2:
        return float("nan")
    sums = matrix.sum(axis=0)
    s = float(((sums - sums.mean()) ** 2).sum())
    ties = sum(_ties(row) for row in matrix)
    denominator = m * m * (k**3 - k) - m * ties
    return 12.0 * s / denominator if denominator > 0 else float("nan")


@dataclass(frozen=True)
class KendallW:
    """Kendall's W over items: `mean` the mean of the items' W (n_units = items with two or more
    rankings and something to agree on, n_raters = raters, n_pairable = rankings), its interval over
    items; `chance` the mean of 1 / m over those items; `per_item` each item's (W, m)."""

    mean: Estimate
    chance: float
    per_item: pd.DataFrame
    """Columns item, w, raters (NaN w where undefined), in item order."""
    undefined: int
    """Items with two or more rankings whose W is undefined (every ranking tied every response)."""
    tied_rankings: int
    """Rankings with at least one tie (the tie correction applied to them)."""

    def to_json(self) -> dict[str, Any]:
        return {"mean": self.mean.to_json(), "chance": json_number(self.chance), "undefined": self.undefined,
                "tied_rankings": self.tied_rankings, "tie_correction": True}


def _matrices(ranks: pd.DataFrame) -> list[tuple[Any, np.ndarray]]:
    """(item, matrix of mid-ranks raters x slots) per item, slots in sorted order, in item order."""
    out = []
    for item, part in ranks.groupby("item", sort=False):
        wide = part.pivot_table(index="rater", columns="slot", values="rank", aggfunc="first")
        wide = wide.dropna(axis=0, how="any")
        out.append((item, wide.to_numpy(np.float64)))
    return out


def kendall_w(ranks: pd.DataFrame, *, n_boot: int = 1000, seed: int | None = 0) -> KendallW:
    """Kendall's W per item and its mean over items with an item-bootstrap interval (module docstring)."""
    _check(ranks)
    rows, features = [], []
    undefined = 0
    for item, matrix in _matrices(ranks):
        w = kendall_w_item(matrix)
        rows.append({"item": item, "w": w, "raters": matrix.shape[0]})
        if matrix.shape[0] >= 2:
            if np.isfinite(w):
                features.append((w, 1.0 / matrix.shape[0], 1.0))
            else:
                undefined += 1
    per_item = pd.DataFrame(rows, columns=["item", "w", "raters"])
    f = np.asarray(features, dtype=np.float64).reshape(-1, 3)
    counted = per_item.loc[per_item["w"].notna()]
    n_rankings = int(counted["raters"].sum())
    raters = int(ranks.loc[ranks["item"].isin(counted["item"]), "rater"].nunique())
    mean = estimate_from_features(
        f, lambda s: safe_ratio(s[:, 0], s[:, 2]), n_boot=n_boot, seed=seed, n_units=len(f), n_raters=raters,
        n_pairable=n_rankings,
    )
    chance = float(f[:, 1].mean()) if len(f) else float("nan")
    tied = ranks.groupby(["item", "rater"])["rank"].agg(lambda r: r.nunique() < len(r))
    return KendallW(mean, chance, per_item, undefined, int(tied.sum()))


def rank_alpha(ranks: pd.DataFrame, *, n_boot: int = 1000, seed: int | None = 0) -> Estimate:
    """Krippendorff's alpha at the ordinal level on the mid-ranks, units (item, slot), the bootstrap over
    items (module docstring). n_units = items with a pairable unit, n_raters = raters, n_pairable =
    pairable values (ranks in units ranked by two or more raters)."""
    _check(ranks)
    values = np.sort(ranks["rank"].astype(np.float64).unique())
    if values.size == 0:
        return Estimate.undefined()
    index = np.searchsorted(values, ranks["rank"].to_numpy(np.float64))
    unit = pd.factorize(pd.MultiIndex.from_arrays([ranks["item"], ranks["slot"]]))[0]
    n_units = int(unit.max()) + 1
    counts = np.zeros((n_units, values.size))
    np.add.at(counts, (unit, index), 1.0)
    m = counts.sum(axis=1)
    pairable = m >= 2
    if not pairable.any():  # no response ranked by two raters: nothing to agree on
        return Estimate.undefined()
    unit_item = pd.factorize(ranks["item"])[0]
    item_of_unit = np.zeros(n_units, dtype=np.int64)
    item_of_unit[unit] = unit_item
    coincidences = _coincidences(counts[pairable], m[pairable]).reshape(int(pairable.sum()), -1)
    items, inverse = np.unique(item_of_unit[pairable], return_inverse=True)
    features = np.zeros((items.size, values.size * values.size))
    np.add.at(features, inverse, coincidences)
    pairable_items = set(items.tolist())
    raters = int(ranks.loc[[i in pairable_items for i in unit_item], "rater"].nunique()) if items.size else 0
    return estimate_from_features(
        features, _alpha_ordinal_statistic(values.size), n_boot=n_boot, seed=seed, n_units=int(items.size),
        n_raters=raters, n_pairable=int(m[pairable].sum()),
    )


@dataclass(frozen=True)
class PositionBias:
    """How rankings went by display position: per position the mean rank (with an item interval) and
    the share of rankings that put the response there alone first."""

    k: int
    mean_rank: tuple[Estimate, ...]
    """Per position 1..k: the mean rank of the response shown there (n_pairable = rankings)."""
    first: tuple[Any, ...]
    """Per position: a `ClusteredShare` of rankings with one response first, tested against 1 / k."""
    p_holm: tuple[float, ...]
    """The first-place tests' p-values after Holm's correction over the k positions."""
    n_rankings: int

    @property
    def expected_rank(self) -> float:
        return (self.k + 1) / 2

    def to_json(self) -> list[dict[str, Any]]:
        out = []
        for p in range(self.k):
            share = self.first[p]
            out.append({
                "position": p + 1, "mean_rank": self.mean_rank[p].to_json(), "expected_rank": self.expected_rank,
                "first": {"k": share.k, "n": share.n, "share": json_number(share.share),
                          "ci": [json_number(share.ci_low), json_number(share.ci_high)],
                          "expected": 1 / self.k, "p_value": json_number(share.p_value),
                          "p_holm": json_number(self.p_holm[p]), "unit": share.unit,
                          "design_effect": json_number(share.design_effect)},
            })
        return out


def position_bias(ranks: pd.DataFrame, k: int, *, n_boot: int = 1000, seed: int | None = 0) -> PositionBias:
    """Ranks by display position (module docstring); rows without a position are left out."""
    from annotate.analysis.bias import holm
    from annotate.analysis.clustered import share_of_items

    _check(ranks, ("position",))
    shown = ranks.loc[ranks["position"].notna()].assign(position=lambda r: r["position"].astype(int))
    item_codes = pd.factorize(shown["item"])[0]
    n_items = int(item_codes.max()) + 1 if item_codes.size else 0
    features = np.zeros((n_items, 2 * k))
    positions = shown["position"].to_numpy() - 1
    np.add.at(features, (item_codes, 2 * positions), shown["rank"].to_numpy(np.float64))
    np.add.at(features, (item_codes, 2 * positions + 1), 1.0)
    statistics = {str(p): (lambda s, p=p: safe_ratio(s[:, 2 * p], s[:, 2 * p + 1])) for p in range(k)}
    n_rankings = int(shown.groupby(["item", "rater"]).ngroups) if len(shown) else 0
    estimates = estimates_from_features(features, statistics, n_boot=n_boot, seed=seed, n_units=n_items,
                                        n_raters=int(shown["rater"].nunique()), n_pairable=n_rankings)
    # first places: rankings whose best rank is held by one response only
    keyed = shown.assign(best=shown.groupby(["item", "rater"])["rank"].transform("min"))
    keyed = keyed.assign(top=keyed["rank"] == keyed["best"])
    alone = keyed.groupby(["item", "rater"])["top"].transform("sum") == 1
    single = keyed.loc[alone]
    per_item_n = single.loc[single["top"]].groupby("item").size()
    shares = []
    for p in range(1, k + 1):
        hits = single.loc[single["top"] & (single["position"] == p)].groupby("item").size()
        hits = hits.reindex(per_item_n.index, fill_value=0)
        shares.append(share_of_items(hits.to_numpy(), per_item_n.to_numpy(), n_boot=n_boot, seed=seed, p0=1 / k))
    adjusted = holm([s.p_value for s in shares])
    return PositionBias(k, tuple(estimates[str(p)] for p in range(k)), tuple(shares),
                        tuple(float(x) for x in adjusted), n_rankings)


def battles_from_ranks(ranks: pd.DataFrame) -> pd.DataFrame:
    """One battle per pair of responses in each ranking whose models are named and differ.

    ranks: the long rankings with a ``model`` column (and any other columns to keep, e.g. cohort).
    Returns columns model_a, model_b (the models of the pair's first and second slot in letter order),
    winner (model_a, model_b or tie, as `annotate.analysis.ranking.pair_counts` takes it), item, rater,
    slot_a, slot_b, plus the kept columns of the first slot's row.
    """
    _check(ranks, ("model",))
    base = ranks.loc[ranks["model"].notna()]
    pairs = base.merge(base[["item", "rater", "slot", "rank", "model"]], on=["item", "rater"], suffixes=("", "_b"))
    pairs = pairs.loc[(pairs["slot"] < pairs["slot_b"]) & (pairs["model"].astype(str) != pairs["model_b"].astype(str))]
    winner = np.where(pairs["rank"] < pairs["rank_b"], "model_a", np.where(pairs["rank"] > pairs["rank_b"],
                                                                            "model_b", "tie"))
    out = pairs.rename(columns={"slot": "slot_a", "model": "model_a"}).assign(
        winner=winner, model_a=pairs["model"].astype(str), model_b=pairs["model_b"].astype(str))
    return out.drop(columns=["rank", "rank_b"]).reset_index(drop=True)
