"""A share of votes when several votes share an item: interval and test that resample items.

Votes on one item are not independent (the same two answers, the same prompt), so a share pooled
over raters, such as "share of non-tie votes that picked the longer answer", has more uncertainty
than a binomial count of votes says.  `clustered_share` treats the item as the unit:

* when every item contributes at most one vote, votes and items are the same unit and the classic
  Wilson (1927) interval and exact binomial test apply;
* otherwise the interval is a 95 % percentile bootstrap over items (each resampled item brings all
  its votes; `annotate.analysis.bootstrap`; items with the same counts are one pattern, so a resample
  is drawn as how many of its draws fall on each pattern, at a cost that does not grow with the items),
  and the test is the exact binomial test on the
  *effective* counts k / deff of n / deff, where deff is the design effect of the clustered ratio
  (Kish 1965, *Survey Sampling*, section 8.2; the linearised variance of a ratio estimator, Cochran
  1977, *Sampling Techniques*, section 6.11; Rao & Scott 1992 for binomial data under clustering).
  deff is never taken below 1, so the test is never made more confident than the vote count.
  A bootstrap over a handful of items is too narrow (two items give three possible resamples), so
  the interval is widened where needed to contain the Wilson interval on the effective sample size
  (k / deff of n / deff): clustering never makes an interval narrower than the vote count allows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from annotate.analysis.bootstrap import estimate_from_features, safe_ratio

__all__ = ["ClusteredShare", "clustered_share", "design_effect", "share_of_items"]


@dataclass(frozen=True)
class ClusteredShare:
    """k of n votes, with an interval and a test whose unit is the item.

    Attributes:
        k, n: votes with the property, votes counted.
        share: k / n (NaN when n = 0).
        ci_low, ci_high: 95 % interval (Wilson when ``unit == "votes"``, item bootstrap otherwise).
        p_value: two-sided test of share = p0 (exact binomial, on effective counts when clustered).
        n_items: items with at least one counted vote.
        unit: ``"votes"`` (one vote per item: votes are the items) or ``"items"`` (items resampled).
        design_effect: the variance inflation from clustering (1 when unit is votes).
    """

    k: int
    n: int
    share: float
    ci_low: float
    ci_high: float
    p_value: float
    n_items: int
    unit: str
    design_effect: float


def design_effect(k_i: np.ndarray, n_i: np.ndarray) -> float:
    """Kish's design effect of the ratio sum(k_i) / sum(n_i) over clusters i (at least 1).

    Linearised cluster variance m / (m - 1) * sum((k_i - R n_i)^2) / n^2 over the binomial variance
    R (1 - R) / n.  1 when there are fewer than two clusters or R is 0 or 1 (nothing to compare).
    """
    k_i, n_i = np.asarray(k_i, dtype=np.float64), np.asarray(n_i, dtype=np.float64)
    keep = n_i > 0
    k_i, n_i = k_i[keep], n_i[keep]
    m, n = k_i.size, n_i.sum()
    if m < 2 or n == 0:
        return 1.0
    r = k_i.sum() / n
    if r <= 0.0 or r >= 1.0:
        return 1.0
    cluster_var = m / (m - 1) * ((k_i - r * n_i) ** 2).sum() / (n * n)
    return max(1.0, float(cluster_var / (r * (1 - r) / n)))


def _ratio(sums: np.ndarray) -> np.ndarray:
    return safe_ratio(sums[:, 0], sums[:, 1])


def clustered_share(
    hit: Any, counted: Any, item: Any, *, n_boot: int, seed: int | None, p0: float = 0.5,
) -> ClusteredShare:
    """The share of counted votes that are hits, with the item as the unit (see the module docstring).

    hit, counted: booleans per vote (a hit that is not counted is ignored); item: the item of each
    vote (any hashable values; a Series is factorised as it is typed).  n_boot: bootstrap resamples of
    items when items hold several counted votes (0: no interval then).

    >>> r = clustered_share([1, 1, 0, 1], [1, 1, 1, 1], ["a", "b", "c", "d"], n_boot=0, seed=0)
    >>> (r.k, r.n, r.unit)
    (3, 4, 'votes')
    """
    counted = np.asarray(counted, dtype=bool)
    hit = np.asarray(hit, dtype=bool) & counted
    items = item if isinstance(item, pd.Series) else pd.Series(np.asarray(item, dtype=object))
    codes = pd.factorize(items.iloc[np.flatnonzero(counted)])[0]  # in order of first appearance
    k_i = np.bincount(codes, hit[counted].astype(np.float64)) if codes.size else np.zeros(0)
    n_i = np.bincount(codes).astype(np.float64) if codes.size else np.zeros(0)
    return share_of_items(k_i, n_i, n_boot=n_boot, seed=seed, p0=p0)


def share_of_items(k_i: Any, n_i: Any, *, n_boot: int, seed: int | None, p0: float = 0.5) -> ClusteredShare:
    """`clustered_share` from per-item counts: k_i hits of n_i counted (votes, or pairs of votes)."""
    from annotate.analysis.bias import binomial_test, wilson_interval

    k_i = np.asarray(k_i, dtype=np.float64)
    n_i = np.asarray(n_i, dtype=np.float64)
    keep = n_i > 0
    k_i, n_i = k_i[keep], n_i[keep]
    k, n = round(float(k_i.sum())), round(float(n_i.sum()))
    share = k / n if n else float("nan")
    if n_i.size == 0 or n_i.max() <= 1:
        lo, hi = wilson_interval(k, n)
        p = binomial_test(k, n, p0) if n else float("nan")
        return ClusteredShare(k, n, share, lo, hi, p, int(n_i.size), "votes", 1.0)
    deff = design_effect(k_i, n_i)
    est = estimate_from_features(np.column_stack([k_i, n_i]), _ratio, n_boot=n_boot, seed=seed,
                                 n_units=int(n_i.size), n_raters=0, n_pairable=n, by_pattern=True)
    n_eff = max(1, round(n / deff))
    k_eff = min(n_eff, round(k / deff))
    lo, hi = _effective_wilson(k / deff, n / deff)
    if n_boot > 0 and est.ci_low == est.ci_low:
        lo, hi = min(lo, est.ci_low), max(hi, est.ci_high)
    elif n_boot <= 0:
        lo, hi = float("nan"), float("nan")
    return ClusteredShare(k, n, share, lo, hi, binomial_test(k_eff, n_eff, p0), int(n_i.size), "items", deff)


def _effective_wilson(k: float, n: float, level: float = 0.95) -> tuple[float, float]:
    """Wilson's interval for a possibly fractional effective count k of n (Kish's effective sample size)."""
    from statistics import NormalDist

    z = NormalDist().inv_cdf(0.5 + level / 2.0)
    share = k / n
    denom = 1.0 + z * z / n
    centre = (share + z * z / (2 * n)) / denom
    half = z / denom * (share * (1 - share) / n + z * z / (4 * n * n)) ** 0.5
    return (max(0.0, centre - half), min(1.0, centre + half))
