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
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

import numpy as np
import pandas as pd

from annotate.analysis.estimate import json_number

__all__ = [
    "BiasReport", "Proportion", "binomial_test", "first_shown_bias", "length_bias", "position_bias", "wilson_interval",
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
        p_value: exact two-sided binomial test of share = 0.5.
    """

    rater: Any
    k: int
    n: int
    n_excluded: int
    share: float
    ci_low: float
    ci_high: float
    p_value: float

    @classmethod
    def of(cls, rater: Any, k: int, n: int, n_excluded: int) -> Proportion:
        """Build the share, interval and test from counts."""
        lo, hi = wilson_interval(k, n)
        share = k / n if n else float("nan")
        return cls(rater, int(k), int(n), int(n_excluded), share, lo, hi, binomial_test(k, n))

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


def _report(kind: str, df: pd.DataFrame, rater: str | None, hit: str, counted: str) -> BiasReport:
    """Totals of boolean columns ``hit`` (k) and ``counted`` (n) overall and per ``rater``."""
    k, n, total = int(df[hit].sum()), int(df[counted].sum()), len(df)
    overall = Proportion.of(None, k, n, total - n)
    per_rater: list[Proportion] = []
    if rater is not None and rater in df.columns:
        grouped = df.groupby(rater, sort=True)[[hit, counted]].sum()
        sizes = df.groupby(rater, sort=True).size()
        for rid, row in grouped.iterrows():
            per_rater.append(Proportion.of(rid, int(row[hit]), int(row[counted]), int(sizes[rid] - row[counted])))
    return BiasReport(kind, overall, tuple(per_rater))


def position_bias(judgments: pd.DataFrame, rater: str | None = "rater", side: str = "label_side") -> BiasReport:
    """Share of non-tie judgments that picked the left-hand response, overall and per rater.

    judgments: one row per judgment; column ``side`` in {"left", "right", "tie"} ("both_bad" and
    "tie_inconsistent" also count as ties); rows with a missing side are dropped; column ``rater``
    (optional: pass None or omit the column for the overall figure only).
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
    return _report("position", df, rater, "_hit", "_counted")


def first_shown_bias(
    votes: pd.DataFrame, rater: str | None = "rater", label: str = "label", shown_first: str = "shown_first",
) -> BiasReport:
    """Share of non-tie votes that picked the response the rater saw first, overall and per rater.

    votes: one row per vote; ``label`` in slot space ("A", "B"; anything else is a tie and
    excluded); ``shown_first`` the slot the rater saw first ("A" or "B"); rows where it is missing
    (order unknown) are dropped, so ``n_excluded`` counts only ties among votes of known order.
    k = votes for the slot shown first, n = votes for A or B.  It is the same measure as
    `position_bias` with "first" for "left": 0.5 without position bias when the order is
    randomised; for a judge always given A first, it is confounded with a preference for slot A.

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
    return _report("first_shown", df, rater, "_hit", "_counted")


def length_bias(
    votes: pd.DataFrame,
    rater: str | None = "rater",
    label: str = "label",
    len_a: str = "len_a",
    len_b: str = "len_b",
) -> BiasReport:
    """Share of non-tie votes between responses of unequal length that picked the longer one.

    votes: one row per vote; ``label`` in {"A", "B"} for a choice, anything else ("tie",
    "both_bad", "tie_inconsistent", ...) is a tie and excluded; ``len_a`` / ``len_b`` are the
    lengths of responses A and B in any consistent unit (characters, tokens); votes with equal
    lengths are excluded.  k = votes for the longer response, n = votes counted.  The p-value tests
    share = 0.5 (exact, two-sided); > 0.5 indicates verbosity bias (Zheng et al. 2023, section 3.3).
    """
    _require(votes, [label, len_a, len_b])
    df = votes.loc[votes[label].notna()]
    a_longer = df[len_a].to_numpy(np.float64) > df[len_b].to_numpy(np.float64)
    b_longer = df[len_b].to_numpy(np.float64) > df[len_a].to_numpy(np.float64)
    chose_a, chose_b = df[label].eq("A").to_numpy(), df[label].eq("B").to_numpy()
    counted = (chose_a | chose_b) & (a_longer | b_longer)
    hit = (chose_a & a_longer) | (chose_b & b_longer)
    df = df.assign(_hit=hit, _counted=counted)
    return _report("length", df, rater, "_hit", "_counted")
