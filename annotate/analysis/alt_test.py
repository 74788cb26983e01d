"""The alternative annotator test: may an LLM judge stand in for the human annotators?

Calderon, Reichart & Dror (2025), "The Alternative Annotator Test for LLM-as-a-Judge: How to
Statistically Justify Replacing Human Annotators with LLMs", ACL 2025, section 3.  Leave one human
annotator out at a time and ask who represents the *remaining* annotators better on the items the
left-out one answered: the judge, or the left-out annotator.

For human j and each item i that j answered (and that the judge answered, with at least one other
human on it):

* alignment scores against the other humans H_i^-j: S(judge) = sim(judge_i, H_i^-j) and
  S(h_j) = sim(h_j,i, H_i^-j), where sim is the share of the other humans who gave the same label
  (``accuracy``, nominal labels) or minus the root mean squared difference from their labels
  (``neg_rmse``, grades);
* W_i^judge = [S(judge) >= S(h_j)] and W_i^h = [S(h_j) >= S(judge)] (a tie counts for both);
* the advantage probabilities rho_j^judge = mean_i W_i^judge and rho_j^h = mean_i W_i^h.

The hypothesis per annotator is H0_j: rho_j^judge - rho_j^h <= -epsilon against H1_j: it is above
-epsilon, tested with a one-sided paired t-test on d_i = W_i^h - W_i^judge (H0: mean d >= epsilon;
p = P(T <= t) for t = (mean d - epsilon) / (sd d / sqrt n), n - 1 degrees of freedom).  epsilon is the
cost-benefit margin granted to the judge for being cheaper and faster; the paper's rule of thumb
(section 3.2 and its FAQ): 0.2 for expert annotators, 0.15 for skilled ones, 0.1 for crowd workers
(`default_epsilon`).  The p-values of all tested annotators are corrected together with the
Benjamini-Yekutieli procedure at level ``alpha`` (0.05), which controls the false discovery rate
under any dependence between the tests (Benjamini & Yekutieli 2001).  The winning rate omega is
the share of tested annotators whose H0 is rejected; the judge **passes** when omega >= 0.5.  The
average advantage probability rho = mean_j rho_j^judge compares judges with one another.

The t-test needs about 30 items per annotator (the paper's section 3.3 and FAQ): annotators with
fewer (``min_items``, default 30) are not tested and are listed with the reason; the paper asks
for at least three human annotators (two are allowed and flagged in the notes).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd

from annotate.analysis.estimate import json_number
from annotate.analysis.reasons import not_enough
from annotate.analysis.student_t import t_cdf

__all__ = [
    "DEFAULT_ALPHA",
    "EPSILON_BY_COHORT",
    "MIN_ITEMS",
    "AltTest",
    "AnnotatorTrial",
    "alt_test",
    "benjamini_yekutieli",
    "default_epsilon",
    "one_sided_t_test",
]

Scoring = Literal["accuracy", "neg_rmse"]
EPSILON_BY_COHORT = {"expert": 0.2, "skilled": 0.15, "crowd": 0.1}
"""The paper's rule of thumb for epsilon by who the human annotators are."""
DEFAULT_ALPHA = 0.05
MIN_ITEMS = 30
"""Fewest items for an annotator to be tested (the t-test's normality needs about 30)."""


def default_epsilon(cohorts: Sequence[str]) -> float:
    """epsilon for human annotators of these cohorts: the smallest of the paper's values among them
    (expert 0.2, skilled 0.15, crowd 0.1; an unknown cohort counts as expert)."""
    values = [EPSILON_BY_COHORT.get(str(c), EPSILON_BY_COHORT["expert"]) for c in cohorts]
    return min(values) if values else EPSILON_BY_COHORT["expert"]


def one_sided_t_test(d: Sequence[float] | np.ndarray, epsilon: float) -> tuple[float, float]:
    """``(t, p)`` of H0: mean(d) >= epsilon against H1: mean(d) < epsilon (Student, n - 1 df).

    With no spread in d, t is -inf (p = 0) when mean(d) < epsilon, +inf (p = 1) when above, and
    undefined (NaN, never rejected) when equal, as for any one-sample t-test.

    >>> t, p = one_sided_t_test([0, 0, 1, -1, 0, 0, -1, 0], 0.2)  # mean -0.125, sd 0.6409, n 8
    >>> round(t, 4), round(p, 4)
    (-1.4344, 0.0973)
    """
    d = np.asarray(d, dtype=np.float64)
    n = d.size
    if n < 2:
        return math.nan, math.nan
    diff = float(d.mean()) - epsilon
    sd = float(d.std(ddof=1))
    if sd == 0.0:
        if abs(diff) < 1e-15:
            return math.nan, math.nan
        return (-math.inf, 0.0) if diff < 0 else (math.inf, 1.0)
    t = diff / (sd / math.sqrt(n))
    return t, t_cdf(t, n - 1)


def benjamini_yekutieli(p_values: Sequence[float], alpha: float = DEFAULT_ALPHA) -> np.ndarray:
    """Which hypotheses are rejected: the largest k with p_(k) <= k alpha / (m c_m), c_m = sum_i 1 / i,
    rejects the k smallest p-values (Benjamini & Yekutieli 2001, theorem 1.3).  NaN is never rejected.

    >>> benjamini_yekutieli([0.001, 0.02, 0.3], 0.05).tolist()
    [True, False, False]
    """
    p = np.asarray(p_values, dtype=np.float64)
    m = p.size
    out = np.zeros(m, dtype=bool)
    if m == 0:
        return out
    c_m = float(np.sum(1.0 / np.arange(1, m + 1)))
    finite = np.where(np.isnan(p), np.inf, p)
    order = np.argsort(finite, kind="stable")
    thresholds = np.arange(1, m + 1) * alpha / (m * c_m)
    below = np.flatnonzero(finite[order] <= thresholds)
    if below.size:
        out[order[: below[-1] + 1]] = True
    return out


@dataclass(frozen=True)
class AnnotatorTrial:
    """One left-out human annotator.

    Attributes:
        rater: the human annotator; n_items: items compared (answered by them, the judge and at
            least one other human).
        rho_judge, rho_human: advantage probabilities of the judge and of this annotator.
        t, p_value: the one-sided paired t-test of H0: rho_judge - rho_human <= -epsilon.
        rejected: H0 rejected after the Benjamini-Yekutieli correction (the judge wins against
            this annotator); None when the annotator was not tested.
        reason: why not tested (``not enough data (n = ...: ...)``), else None.
    """

    rater: Any
    n_items: int
    rho_judge: float
    rho_human: float
    t: float
    p_value: float
    rejected: bool | None
    reason: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"rater": self.rater, "n_items": self.n_items, "rho_judge": json_number(self.rho_judge),
                "rho_human": json_number(self.rho_human), "t": json_number(self.t),
                "p_value": json_number(self.p_value), "rejected": self.rejected, "reason": self.reason}


@dataclass(frozen=True)
class AltTest:
    """The test of one judge against the human annotators.

    Attributes:
        trials: one per human annotator (tested or not, with the reason).
        epsilon, alpha, scoring, min_items: the settings.
        winning_rate: omega, the share of tested annotators the judge wins against (NaN when none
            was tested); passed: omega >= 0.5 (None when none was tested).
        advantage: rho, the mean of the tested annotators' rho_judge.
        n_items: items that entered (judge label and at least two human labels).
        n_tested: annotators tested; reason: why nothing was tested, else None.
        notes: caveats (e.g. fewer than three annotators tested).
    """

    trials: tuple[AnnotatorTrial, ...]
    epsilon: float
    alpha: float
    scoring: str
    min_items: int
    winning_rate: float
    passed: bool | None
    advantage: float
    n_items: int
    n_tested: int
    reason: str | None = None
    notes: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "epsilon": self.epsilon, "alpha": self.alpha, "scoring": self.scoring, "min_items": self.min_items,
            "correction": "Benjamini-Yekutieli", "winning_rate": json_number(self.winning_rate),
            "passed": self.passed, "advantage_probability": json_number(self.advantage), "n_items": self.n_items,
            "n_tested": self.n_tested, "reason": self.reason, "notes": list(self.notes),
            "annotators": [t.to_json() for t in self.trials],
        }


def _wins(h: pd.DataFrame, judged: np.ndarray, scoring: Scoring) -> tuple[np.ndarray, np.ndarray]:
    """W^judge and W^h for every (item, annotator) row of ``h`` (columns unit, rater, label; two or more
    humans per unit), from per-item sums so no loop runs over items: for ``accuracy`` how many of the
    other humans gave the judge's label and the annotator's own (compared as counts, so ties are
    exact); for ``neg_rmse`` the mean squared difference from the others (the root is monotone)."""
    unit = h["unit"].to_numpy()
    m = h.groupby("unit", sort=False)["rater"].transform("size").to_numpy(np.float64)
    if scoring == "accuracy":
        label = h["label"].to_numpy(dtype=object)
        counts = h.groupby(["unit", "label"], sort=False).size()
        own = counts.reindex(pd.MultiIndex.from_arrays([unit, label])).to_numpy(np.float64, copy=True) - 1.0
        theirs = counts.reindex(pd.MultiIndex.from_arrays([unit, judged])).fillna(0).to_numpy(np.float64, copy=True)
        theirs -= (label == judged).astype(np.float64)
        return (theirs >= own).astype(np.float64), (own >= theirs).astype(np.float64)
    x = pd.to_numeric(h["label"], errors="raise").to_numpy(np.float64)
    y = np.asarray(judged, dtype=np.float64)
    s1 = h.assign(_x=x).groupby("unit", sort=False)["_x"].transform("sum").to_numpy() - x
    s2 = h.assign(_x=x * x).groupby("unit", sort=False)["_x"].transform("sum").to_numpy() - x * x
    rest = m - 1.0

    def msd(v: np.ndarray) -> np.ndarray:
        return np.maximum((s2 - 2.0 * v * s1 + rest * v * v) / rest, 0.0)

    d_judge, d_own = msd(y), msd(x)
    close = np.abs(d_judge - d_own) <= 1e-9 * (1.0 + np.abs(d_own))
    return ((d_judge <= d_own) | close).astype(np.float64), ((d_own <= d_judge) | close).astype(np.float64)


def alt_test(
    humans: pd.DataFrame,
    judge: pd.DataFrame,
    *,
    epsilon: float,
    alpha: float = DEFAULT_ALPHA,
    scoring: Scoring = "accuracy",
    min_items: int = MIN_ITEMS,
) -> AltTest:
    """The alternative annotator test of ``judge`` against ``humans`` (see the module docstring).

    humans: columns unit, rater, label, one answer per (unit, rater) (the first is kept); judge:
    columns unit, label, one per unit.  Missing labels are ignored.  scoring: ``accuracy`` for
    nominal labels, ``neg_rmse`` for grades (labels must then be numbers).
    """
    if scoring not in ("accuracy", "neg_rmse"):
        raise ValueError(f"scoring must be accuracy or neg_rmse, not {scoring!r}")
    if not 0.0 <= epsilon < 1.0:
        raise ValueError(f"epsilon must lie in [0, 1), not {epsilon}")
    h = humans.loc[humans["label"].notna(), ["unit", "rater", "label"]].drop_duplicates(["unit", "rater"])
    j = judge.loc[judge["label"].notna(), ["unit", "label"]].drop_duplicates("unit").set_index("unit")["label"]
    h = h.loc[h["unit"].isin(j.index)]
    per_unit = h.groupby("unit", sort=False)["rater"].transform("size")
    h = h.loc[per_unit >= 2]
    n_items = int(h["unit"].nunique())
    if scoring == "neg_rmse":
        for what, values in (("human", h["label"]), ("judge", j)):
            if pd.to_numeric(values, errors="coerce").isna().any():
                raise ValueError(f"neg_rmse scoring needs numeric labels; a {what} label is not a number")
    w_judge, w_human = _wins(h, j.loc[h["unit"]].to_numpy(dtype=object), scoring) if not h.empty else (
        np.zeros(0), np.zeros(0))
    h = h.assign(_wj=w_judge, _wh=w_human)
    trials: list[AnnotatorTrial] = []
    tested_p: list[float] = []
    for rater, mine in h.groupby("rater", sort=True):
        n = len(mine)
        if n < min_items:
            why = f"fewer than {min_items} items to test"
            trials.append(AnnotatorTrial(rater, n, math.nan, math.nan, math.nan, math.nan, None,
                                         not_enough(n, "items", why)))
            continue
        wj, wh = mine["_wj"].to_numpy(), mine["_wh"].to_numpy()
        t, p = one_sided_t_test(wh - wj, epsilon)
        trials.append(AnnotatorTrial(rater, n, float(wj.mean()), float(wh.mean()), t, p, False))
        tested_p.append(p)
    rejected = iter(benjamini_yekutieli(tested_p, alpha).tolist())
    trials = [t if t.rejected is None else AnnotatorTrial(t.rater, t.n_items, t.rho_judge, t.rho_human, t.t,
                                                          t.p_value, bool(next(rejected))) for t in trials]
    tested = [t for t in trials if t.rejected is not None]
    notes = []
    if not tested:
        why = f"no annotator has {min_items} items to test" if trials else "no item to compare"
        reason = not_enough(n_items, "items", why)
        return AltTest(tuple(trials), epsilon, alpha, scoring, min_items, math.nan, None, math.nan, n_items, 0,
                       reason)
    if len(tested) < 3:
        notes.append(f"only {len(tested)} annotator{'s' if len(tested) > 1 else ''} tested: the paper asks for at "
                     "least three, so the result rests on few comparisons")
    omega = sum(1 for t in tested if t.rejected) / len(tested)
    rho = float(np.mean([t.rho_judge for t in tested]))
    return AltTest(tuple(trials), epsilon, alpha, scoring, min_items, omega, omega >= 0.5, rho, n_items, len(tested),
                   None, tuple(notes))
