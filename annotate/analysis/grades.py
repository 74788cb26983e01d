"""Grades of single responses (a single grade, or rubric criteria): means per group, their ranking,
the distribution of grades, and the correlation between two criteria.

Grades: a long DataFrame, one row per grade, with columns ``item``, ``rater``, ``score`` (a number
on the question's scale; rows without one are dropped) and any grouping columns (``model``,
``category``, ``turn``, ``criterion``). Every interval is a 95 % percentile bootstrap over *items*:
all grades of an item are drawn together (a cluster bootstrap), because grades of one item are not
independent; never over single grades (`annotate.analysis.bootstrap`).

A mean is pooled over grades (sum of grades / number of grades), so an item graded by three raters
weighs three times an item graded once, as MT-Bench's single-grade table does (FastChat
``show_result.py``: the mean score per model and turn over all judgments).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from annotate.analysis.bootstrap import estimate_from_features, estimates_from_features, safe_ratio
from annotate.analysis.estimate import Estimate, json_number

__all__ = ["Correlation", "GroupMean", "criterion_correlation", "distribution", "mean_by", "rank_by_mean"]


@dataclass(frozen=True)
class GroupMean:
    """The mean grade of one group: `mean.estimate` with its item-bootstrap interval; n_units =
    items, n_raters = raters, n_pairable = grades."""

    key: tuple[Any, ...]
    mean: Estimate
    sd: float
    """Standard deviation of the grades (n - 1 in the denominator; NaN for one grade)."""

    def to_json(self, names: Sequence[str]) -> dict[str, Any]:
        return {**{n: _plain(k) for n, k in zip(names, self.key, strict=True)}, "mean": self.mean.to_json(),
                "sd": json_number(self.sd)}


def _plain(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value


def _item_sums(part: pd.DataFrame) -> np.ndarray:
    """Per item: [sum of grades, number of grades], shape (n_items, 2)."""
    sums = part.groupby("item", sort=False)["score"].agg(["sum", "size"])
    return sums.to_numpy(np.float64)


def _mean_statistic(sums: np.ndarray) -> np.ndarray:
    return safe_ratio(sums[:, 0], sums[:, 1])


def mean_by(grades: pd.DataFrame, keys: Sequence[str] = (), *, n_boot: int = 1000, seed: int | None = 0,
            ) -> list[GroupMean]:
    """The mean grade of each group of `keys` (all grades for no keys), in sorted group order.

    >>> g = pd.DataFrame({"item": ["a", "a", "b"], "rater": ["x", "y", "x"], "score": [4, 6, 8], "model": "m"})
    >>> [round(m.mean.estimate, 3) for m in mean_by(g, ["model"], n_boot=0)]
    [6.0]
    """
    g = grades.loc[grades["score"].notna()]
    if g.empty:
        return []
    groups = [((), g)] if not keys else [
        (key if isinstance(key, tuple) else (key,), part)
        for key, part in g.groupby(list(keys), sort=True, dropna=False)
    ]
    out = []
    for key, part in groups:
        features = _item_sums(part)
        mean = estimate_from_features(
            features, _mean_statistic, n_boot=n_boot, seed=seed, n_units=len(features),
            n_raters=int(part["rater"].nunique()), n_pairable=len(part),
        )
        sd = float(part["score"].std(ddof=1)) if len(part) > 1 else float("nan")
        out.append(GroupMean(tuple(key), mean, sd))
    return out


def rank_by_mean(means: Sequence[GroupMean]) -> list[tuple[int, GroupMean]]:
    """Groups best first, each with its rank: 1 + the number of groups whose lower bound lies above
    its upper bound (as the Bradley-Terry ranking); without intervals, 1 + the number of higher means."""
    ordered = sorted(means, key=lambda m: (-_finite_or(m.mean.estimate, -np.inf), str(m.key)))
    out = []
    for m in ordered:
        high = m.mean.ci_high if np.isfinite(m.mean.ci_high) else m.mean.estimate
        above = 0
        for other in ordered:
            if other is m:
                continue
            low = other.mean.ci_low if np.isfinite(other.mean.ci_low) else other.mean.estimate
            above += bool(low > high)
        out.append((1 + above, m))
    return out


def _finite_or(value: float, default: float) -> float:
    return value if np.isfinite(value) else default


def distribution(grades: pd.DataFrame, scale: Sequence[int]) -> list[int]:
    """How many grades took each value of `scale` (in its order); grades off the scale not counted."""
    return [int((grades["score"] == v).sum()) for v in scale]


@dataclass(frozen=True)
class Correlation:
    """Pearson's r and Spearman's rho between two criteria over the judgments that scored both;
    n_units = items, n_pairable = judgments."""

    a: str
    b: str
    pearson: Estimate
    spearman: Estimate

    def to_json(self) -> dict[str, Any]:
        return {"a": self.a, "b": self.b, "pearson": self.pearson.to_json(), "spearman": self.spearman.to_json()}


def _joint_statistics(xs: np.ndarray, ys: np.ndarray):
    """Pearson and Spearman statistics of summed joint count tables, flattened (m, len(xs) * len(ys)).

    Spearman's rho is Pearson's r of the mid-ranks, which the marginal counts give exactly (ties
    share the mean of the ranks they span), so each resample's rho is the rho of that resample.
    """
    vx, vy = len(xs), len(ys)

    def pearson_of(table: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """r of tables (m, vx, vy) whose rows / columns take the values x (m, vx) and y (m, vy)."""
        n = table.sum(axis=(1, 2))
        px, py = table.sum(axis=2), table.sum(axis=1)
        dx = x - safe_ratio((px * x).sum(axis=1), n)[:, None]
        dy = y - safe_ratio((py * y).sum(axis=1), n)[:, None]
        sxy = np.einsum("mij,mi,mj->m", table, dx, dy)
        sxx, syy = (px * dx**2).sum(axis=1), (py * dy**2).sum(axis=1)
        return safe_ratio(sxy, np.sqrt(sxx * syy))

    def pearson(sums: np.ndarray) -> np.ndarray:
        table = sums.reshape(-1, vx, vy)
        m = table.shape[0]
        return pearson_of(table, np.broadcast_to(xs.astype(np.float64), (m, vx)),
                          np.broadcast_to(ys.astype(np.float64), (m, vy)))

    def midranks(counts: np.ndarray) -> np.ndarray:
        before = np.cumsum(counts, axis=1) - counts
        return before + (counts + 1.0) / 2.0

    def spearman(sums: np.ndarray) -> np.ndarray:
        table = sums.reshape(-1, vx, vy)
        rx, ry = midranks(table.sum(axis=2)), midranks(table.sum(axis=1))
        return pearson_of(table, rx, ry)

    return pearson, spearman


def criterion_correlation(
    wide: pd.DataFrame, a: str, b: str, scale_a: Sequence[int], scale_b: Sequence[int], *,
    n_boot: int = 1000, seed: int | None = 0,
) -> Correlation:
    """Correlation between criteria `a` and `b` over judgments (rows of `wide`: columns item, rater,
    and one column per criterion holding its score) that scored both on their scales.

    Both coefficients come from per-item joint count tables of (score a, score b), so the bootstrap
    over items recomputes Pearson's r and Spearman's rho (mid-ranks for ties) of each resample
    exactly, in one matrix product. Items are numbered in the order they first appear in `wide`.
    """
    both = wide.loc[wide[a].isin(list(scale_a)) & wide[b].isin(list(scale_b))]
    xs, ys = np.asarray(scale_a), np.asarray(scale_b)
    ix = {v: k for k, v in enumerate(scale_a)}
    iy = {v: k for k, v in enumerate(scale_b)}
    codes, uniques = pd.factorize(both["item"].astype(str))
    features = np.zeros((len(uniques), len(xs) * len(ys)))
    cells = np.asarray([ix[x] * len(ys) + iy[y] for x, y in zip(both[a], both[b], strict=True)], dtype=np.int64)
    if len(cells):
        np.add.at(features, (codes, cells), 1.0)
    pearson, spearman = _joint_statistics(xs, ys)
    est = estimates_from_features(features, {"pearson": pearson, "spearman": spearman}, n_boot=n_boot, seed=seed,
                                  n_units=len(uniques), n_raters=int(both["rater"].nunique()), n_pairable=len(both))
    return Correlation(a, b, est["pearson"], est["spearman"])
