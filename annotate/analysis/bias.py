"""Position and length bias of pairwise judgments, per rater and overall.

Position bias (Zheng et al. 2023, "Judging LLM-as-a-Judge", section 3.3; Wang et al. 2023, "Large
Language Models are not Fair Evaluators"): among non-tie judgments, the share that picked the
response shown on the left (`position_bias`, the session's own judgments) or shown first
(`first_shown_bias`, imported votes whose display order is known).  Without bias it is 0.5
whenever the side of each response is randomised.  Length (verbosity) bias (Zheng et al. 2023,
section 3.3): among non-tie judgments of responses of unequal length, the share that picked the
longer one.

Each share comes with an exact two-sided binomial test against 0.5 and a Wilson (1927) score
interval.  Both are written out here (no scipy): the test sums binomial probabilities in log space.
When several counted votes share an item (the "all raters" row, or a rater's repeats), the item is
the unit: the interval resamples items and the test uses the design effect
(`annotate.analysis.clustered`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

import numpy as np
import pandas as pd

from annotate.analysis.estimate import json_number
from annotate.frame_codes import factorize, factorized

__all__ = [
    "BiasReport", "Proportion", "binomial_test", "first_shown_bias", "holm", "length_bias", "position_bias",
    "wilson_interval",
]

_TIE_LABELS = frozenset({"tie", "both_bad", "tie_inconsistent"})
_RELATIVE_TOLERANCE = 1 + 1e-7
"""R's ``binom.test`` tolerance when deciding which outcomes are 'as extreme' as the observed one."""


def _log_binomial_pmf(n: int, p: float) -> np.ndarray:
    """log P(X = k) for k = 0..n, X ~ Binomial(n, p) with 0 < p < 1; shape ``(n + 1,)``.

    log C(n, k) is the cumulative sum of log((n - i + 1) / i), i = 1..k (vectorised, no overflow).
    """
    i = np.arange(1, n + 1, dtype=np.float64)
    log_choose = np.concatenate([[0.0], np.cumsum(np.log(n - i + 1) - np.log(i))])
    k = np.arange(n + 1, dtype=np.float64)
    return log_choose + k * math.log(p) + (n - k) * math.log1p(-p)


def binomial_test(k: int, n: int, p: float = 0.5) -> float:
    """Exact two-sided binomial test p-value of ``k`` successes in ``n`` trials against ``p``.

    Sums the probabilities of all outcomes no more likely than the observed one (the rule of R's
    ``binom.test`` and scipy's ``binomtest``, with relative tolerance 1e-7).  NaN when ``n == 0``.

    >>> round(binomial_test(9, 10), 12)
    0.021484375
    """
    if not (0 <= k <= n) or not (0.0 <= p <= 1.0):
        raise ValueError(f"need 0 <= k <= n and 0 <= p <= 1, got k={k}, n={n}, p={p}")
    if n == 0:
        return float("nan")
    if p in (0.0, 1.0):
        return 1.0 if k == n * p else 0.0
    log_pmf = _log_binomial_pmf(n, p)
    extreme = log_pmf <= log_pmf[k] + math.log(_RELATIVE_TOLERANCE)
    chosen = log_pmf[extreme]
    top = chosen.max()
    return float(min(1.0, math.exp(top) * np.exp(chosen - top).sum()))


def holm(p_values: Any) -> np.ndarray:
    """Holm (1979) step-down adjusted p-values (family-wise error), NaN kept as NaN.

    Sort the m finite p-values ascending; the k-th (from 0) becomes max over j <= k of
    min(1, (m - j) p_(j)).  A test is significant at level a after the correction when its
    adjusted p-value is <= a.

    >>> holm([0.01, 0.04, 0.03]).round(3).tolist()
    [0.03, 0.06, 0.06]
    """
    p = np.asarray(p_values, dtype=np.float64)
    out = np.full(p.shape, np.nan)
    finite = np.flatnonzero(np.isfinite(p))
    m = finite.size
    if m == 0:
        return out
    order = finite[np.argsort(p[finite], kind="stable")]
    adjusted = np.minimum(1.0, np.maximum.accumulate((m - np.arange(m)) * p[order]))
    out[order] = adjusted
    return out


def wilson_interval(k: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """Wilson (1927) score interval for a binomial proportion k / n; ``(nan, nan)`` when ``n == 0``."""
    if n == 0:
        return (float("nan"), float("nan"))
    z = NormalDist().inv_cdf(0.5 + level / 2.0)
    share = k / n
    denom = 1.0 + z * z / n
    centre = (share + z * z / (2 * n)) / denom
    half = z / denom * math.sqrt(share * (1 - share) / n + z * z / (4 * n * n))
    low = 0.0 if k == 0 else max(0.0, centre - half)
    high = 1.0 if k == n else min(1.0, centre + half)
    return (low, high)


@dataclass(frozen=True)
class Proportion:
    """A share k / n of judgments with its Wilson 95 % interval and exact binomial p-value vs 0.5.

    Attributes:
        rater: the rater id, or None for all raters together.
        k: judgments with the property (picked left; picked the longer response).
        n: judgments that count (non-tie; for length, also unequal lengths).
        n_excluded: judgments left out (ties; for length, also equal lengths).
        share: k / n (NaN when n = 0).
        ci_low, ci_high: Wilson interval.
        p_value: exact two-sided binomial test of share = 0.5 (on effective counts when clustered).
        unit: what the interval resamples: ``"votes"`` (one counted vote per item, Wilson interval)
            or ``"items"`` (several votes share an item: item bootstrap).
        n_items: items with a counted vote (None when not known).
        design_effect: variance inflation from votes sharing items (1 when unit is votes).
    """

    rater: Any
    k: int
    n: int
    n_excluded: int
    share: float
    ci_low: float
    ci_high: float
    p_value: float
    unit: str = "votes"
    n_items: int | None = None
    design_effect: float = 1.0

    @classmethod
    def of(cls, rater: Any, k: int, n: int, n_excluded: int) -> Proportion:
        """Build the share, interval and test from counts."""
        lo, hi = wilson_interval(k, n)
        share = k / n if n else float("nan")
        return cls(rater, int(k), int(n), int(n_excluded), share, lo, hi, binomial_test(k, n))

    @classmethod
    def clustered(cls, rater: Any, hit: Any, counted: Any, item: Any, n_excluded: int, n_boot: int,
                  seed: int | None) -> Proportion:
        """The share of counted votes that are hits, with the item as the unit (`clustered_share`)."""
        from annotate.analysis.clustered import clustered_share

        c = clustered_share(hit, counted, item, n_boot=n_boot, seed=seed)
        return cls(rater, c.k, c.n, int(n_excluded), c.share, c.ci_low, c.ci_high, c.p_value, c.unit, c.n_items,
                   c.design_effect)

    def to_json(self) -> dict[str, Any]:
        """Plain-JSON form with NaN as ``None``."""
        rater = self.rater.item() if isinstance(self.rater, np.generic) else self.rater
        return {
            "rater": rater,
            "share": json_number(self.share),
            "ci": [json_number(self.ci_low), json_number(self.ci_high)],
            "p_value": json_number(self.p_value),
            "k": self.k,
            "n": self.n,
            "n_excluded": self.n_excluded,
            "unit": self.unit,
            "n_items": self.n_items,
            "design_effect": json_number(self.design_effect),
        }


@dataclass(frozen=True)
class BiasReport:
    """A bias measured over all raters together and per rater.

    Attributes:
        kind: "position" (share of non-tie picks on the left), "first_shown" (share of non-tie picks
            of the response shown first) or "length" (share picking the longer).
        overall: all judgments pooled (rater None).
        per_rater: one `Proportion` per rater, sorted by rater id.
    """

    kind: str
    overall: Proportion
    per_rater: tuple[Proportion, ...]

    def to_json(self) -> dict[str, Any]:
        """Plain-JSON form."""
        return {
            "kind": self.kind,
            "overall": self.overall.to_json(),
            "per_rater": [p.to_json() for p in self.per_rater],
        }


def _require(df: pd.DataFrame, columns: list[str]) -> None:
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise ValueError(f"judgments are missing columns {missing}")


def _report(kind: str, df: pd.DataFrame, rater: str | None, hit: str, counted: str, item: str | None = None,
            n_boot: int = 0, seed: int | None = 0) -> BiasReport:
    """Totals of boolean columns ``hit`` (k) and ``counted`` (n) overall and per ``rater``; with ``item``
    (a column), votes sharing an item are one unit for the interval and the test."""
    clustered = item is not None and item in df.columns

    def share(part: pd.DataFrame, who: Any) -> Proportion:
        excluded = len(part) - int(part[counted].sum())
        if clustered:
            return Proportion.clustered(who, part[hit].to_numpy(), part[counted].to_numpy(), part[item], excluded,
                                        n_boot, seed)
        return Proportion.of(who, int(part[hit].sum()), int(part[counted].sum()), excluded)

    overall = share(df, None)
    per_rater: list[Proportion] = []
    if rater is not None and rater in df.columns:
        totals = _totals(df, rater, hit, counted)
        shared: set[Any] = set()
        if clustered:  # raters with two counted votes on one item (repeats): those need the item as unit
            shared = _repeating(df.loc[df[counted]], rater, item)
        parts = dict(tuple(df.loc[df[rater].isin(shared)].groupby(rater))) if shared else {}
        by_counts = _CountedShares()
        for rid, k, n, size in totals.itertuples():
            per_rater.append(share(parts[rid], rid) if rid in parts
                             else by_counts.of(rid, int(k), int(n), int(size - n)))
    return BiasReport(kind, overall, tuple(per_rater))


class _CountedShares:
    """`Proportion.of` with the vote as the unit (``n_items`` = n) for many raters: the interval and the exact
    test depend on (k, n) alone, so each distinct (k, n) is computed once (40,000 Arena judges share a few
    thousand), the figures the same as one `Proportion.of` per rater."""

    def __init__(self) -> None:
        self._known: dict[tuple[int, int], tuple[float, float, float, float]] = {}

    def of(self, rater: Any, k: int, n: int, n_excluded: int) -> Proportion:
        known = self._known.get((k, n))
        if known is None:
            once = Proportion.of(None, k, n, 0)
            known = self._known[(k, n)] = (once.share, once.ci_low, once.ci_high, once.p_value)
        share, low, high, p_value = known
        return Proportion(rater, k, n, n_excluded, share, low, high, p_value, "votes", n, 1.0)


def _totals(df: pd.DataFrame, rater: str, hit: str, counted: str) -> Any:
    """Per rater (sorted): k (hits), n (counted) and size (rows), as ``groupby(rater, sort=True).agg``
    gives them (itertuples: rater, k, n, size); from the rater's codes when `df` carries them
    (`annotate.frame_codes`), by a groupby of the texts otherwise."""
    fast = factorized(df, rater, sort=True)
    if fast is None:
        return df.groupby(rater, sort=True).agg(k=(hit, "sum"), n=(counted, "sum"), size=(hit, "size"))
    codes, names = fast
    width = len(names)

    def summed(column: str) -> np.ndarray:
        return np.bincount(codes, weights=df[column].to_numpy(dtype=np.int64), minlength=width).astype(np.int64)

    size = np.bincount(codes, minlength=width).astype(np.int64)
    return pd.DataFrame({"k": summed(hit), "n": summed(counted), "size": size}, index=pd.Index(names, name=rater))


def _repeating(df: pd.DataFrame, rater: str, item: str) -> set[Any]:
    """The raters with two rows or more on one item (in integer codes of both columns)."""
    raters, values = factorize(df, rater)
    items = factorize(df, item)[0]
    keep = (raters >= 0) & (items >= 0)  # as a groupby, a missing rater or item is no group
    key = items[keep].astype(np.int64) * max(len(values), 1) + raters[keep]
    repeated = np.unique(key[pd.Series(key).duplicated().to_numpy()] % max(len(values), 1))
    return set(values.take(repeated).tolist()) if repeated.size else set()


def position_bias(
    judgments: pd.DataFrame, rater: str | None = "rater", side: str = "label_side", *, item: str | None = None,
    n_boot: int = 0, seed: int | None = 0,
) -> BiasReport:
    """Share of non-tie judgments that picked the left-hand response, overall and per rater.

    judgments: one row per judgment; column ``side`` in {"left", "right", "tie"} ("both_bad" and
    "tie_inconsistent" also count as ties); rows with a missing side are dropped; column ``rater``
    (optional: pass None or omit the column for the overall figure only); ``item``: the column naming
    each judgment's item, so that judgments sharing an item are one unit (``n_boot`` item resamples).
    k = left picks, n = left + right picks.  Under no position bias (and randomised sides) the share
    is 0.5; the p-value tests exactly that (two-sided, exact binomial).
    """
    _require(judgments, [side])
    df = judgments.loc[judgments[side].notna()]
    sides = df[side].astype(str)
    unknown = set(sides.unique()) - {"left", "right"} - _TIE_LABELS
    if unknown:
        raise ValueError(f"unknown values in {side!r}: {sorted(unknown)}; expected left, right or tie")
    df = df.assign(_hit=sides.eq("left"), _counted=sides.isin(["left", "right"]))
    return _report("position", df, rater, "_hit", "_counted", item, n_boot, seed)


def first_shown_bias(
    votes: pd.DataFrame, rater: str | None = "rater", label: str = "label", shown_first: str = "shown_first",
    *, item: str | None = None, n_boot: int = 0, seed: int | None = 0,
) -> BiasReport:
    """Share of non-tie votes that picked the response the rater saw first, overall and per rater.

    votes: one row per vote; ``label`` in slot space ("A", "B"; anything else is a tie and
    excluded); ``shown_first`` the slot the rater saw first ("A" or "B"); rows where it is missing
    (order unknown) are dropped, so ``n_excluded`` counts only ties among votes of known order.
    ``item`` as in `position_bias`.  k = votes for the slot shown first, n = votes for A or B.  It is
    the same measure as `position_bias` with "first" for "left": 0.5 without position bias when the
    order is randomised; for a judge always given A first, it is confounded with a preference for
    slot A.

    >>> df = pd.DataFrame({"rater": ["j"] * 4, "label": ["A", "A", "B", "tie"], "shown_first": ["A", "B", "B", "A"]})
    >>> r = first_shown_bias(df)
    >>> (r.overall.k, r.overall.n, r.overall.n_excluded)
    (2, 3, 1)
    """
    _require(votes, [label, shown_first])
    df = votes.loc[votes[label].notna() & votes[shown_first].isin(["A", "B"])]
    labels, first = df[label].astype(str), df[shown_first].astype(str)
    chose = labels.isin(["A", "B"])
    df = df.assign(_hit=chose & labels.eq(first), _counted=chose)
    return _report("first_shown", df, rater, "_hit", "_counted", item, n_boot, seed)


def length_bias(
    votes: pd.DataFrame,
    rater: str | None = "rater",
    label: str = "label",
    len_a: str = "len_a",
    len_b: str = "len_b",
    *,
    item: str | None = None,
    n_boot: int = 0,
    seed: int | None = 0,
) -> BiasReport:
    """Share of non-tie votes between responses of unequal length that picked the longer one.

    votes: one row per vote; ``label`` in {"A", "B"} for a choice, anything else ("tie",
    "both_bad", "tie_inconsistent", ...) is a tie and excluded; ``len_a`` / ``len_b`` are the
    lengths of responses A and B in any consistent unit (characters, tokens); votes with equal
    lengths are excluded; ``item`` as in `position_bias`.  k = votes for the longer response, n = votes
    counted.  The p-value tests share = 0.5 (exact, two-sided); > 0.5 indicates verbosity bias (Zheng
    et al. 2023, section 3.3).
    """
    _require(votes, [label, len_a, len_b])
    df = votes.loc[votes[label].notna()]
    a_longer = df[len_a].to_numpy(np.float64) > df[len_b].to_numpy(np.float64)
    b_longer = df[len_b].to_numpy(np.float64) > df[len_a].to_numpy(np.float64)
    chose_a, chose_b = df[label].eq("A").to_numpy(), df[label].eq("B").to_numpy()
    counted = (chose_a | chose_b) & (a_longer | b_longer)
    hit = (chose_a & a_longer) | (chose_b & b_longer)
    df = df.assign(_hit=hit, _counted=counted)
    return _report("length", df, rater, "_hit", "_counted", item, n_boot, seed)
