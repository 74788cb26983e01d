"""Bradley-Terry ranking of models from pairwise battles, with item-level bootstrap intervals.

Model (Bradley & Terry 1952): P(i beats j) = 1 / (1 + exp(-(theta_i - theta_j))).  A tie counts as
half a win for each side (as in Chatbot Arena's Bradley-Terry leaderboard, Chiang et al. 2024,
"Chatbot Arena", section 5 and FastChat ``elo_analysis.py``); "both_bad" is a tie.

Fit: maximum likelihood on *aggregated* counts (one row per model pair, so a million battles cost one
grouping pass), by Newton's method on the log-strengths, vectorised over bootstrap resamples.  A
vanishing ridge (1e-6 * sum theta^2 / 2) keeps the fit finite when a model won or lost every battle
(where the MLE does not exist; Ford 1957) and fixes the scale origin; it moves well-determined
ratings by far less than a rating point.  Models in separate connected components of the battle
graph (never compared, directly or through other models) are not comparable: the ridge centres each
component on the same mean, so their ratings say nothing about each other.  `rank_models` numbers
the components (``RankingRow.component``) and ranks within each.

Scale: Elo-like, rating_i = 1000 + 400 * log10(exp(theta_i)) = 1000 + 400 theta_i / ln 10 with the
mean of theta fixed at 0, so the mean rating is 1000 and a 400-point gap means 10:1 odds.

Intervals: the *items* are resampled with replacement, each with all its votes (a cluster
bootstrap, see `annotate.analysis.battles`): one multinomial draw over the distinct item patterns
per round, the battle counts rebuilt from the drawn items, then a refit; 95 % percentile intervals.
Without item ids every battle is its own item (the classic resampling of battles).
Rank = 1 + the number of models of the same component whose lower bound lies above this model's
upper bound.

Win rates, from the same resamples: per vote, (wins + ties / 2) / battles; per item, one verdict
per item (`annotate.analysis.majority`, plurality or mean rule), (items won + items tied / 2) /
items with a verdict, and the items without one (tied majority) counted.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from annotate.analysis.battles import (
    WINNER_CODES,
    ItemPatterns,
    PairCounts,
    pair_counts,
    pair_counts_from_arrays,
    played,
)
from annotate.analysis.blas_threads import solve
from annotate.analysis.bootstrap import DEFAULT_N_BOOT, MIN_UNITS_FOR_INTERVAL, percentile_interval
from annotate.analysis.estimate import json_number
from annotate.analysis.majority import verdicts

__all__ = [
    "WINNER_CODES",
    "ItemPatterns",
    "PairCounts",
    "RankingRow",
    "components",
    "fit_bradley_terry",
    "pair_counts",
    "pair_counts_from_arrays",
    "rank_models",
    "to_rating",
]

RIDGE = 1e-6
"""Default ridge on the log-strengths (see the module docstring)."""

_SCALE = 400.0 / math.log(10.0)
_ANCHOR = 1000.0
_MAX_STEP = 2.0
"""Largest Newton step per coordinate (natural-log units); damps the first steps of separable fits."""

_CELLS_PER_BLOCK = 1 << 21
"""Bound on ``block * n_models**2`` so one block of bootstrap fits stays around 16 MiB per array."""
_TERMS_PER_BLOCK = 1 << 23
"""Bound on ``block * terms`` of the item-to-counts map (`_LinearMap`): about 64 MiB."""


def _win_matrices(n_models: int, pairs: np.ndarray, outcomes: np.ndarray) -> np.ndarray:
    """``W[b, i, j]`` = wins of i over j plus half the ties; outcomes ``(B, P, 3)`` -> ``(B, K, K)``."""
    b = outcomes.shape[0]
    w = np.zeros((b, n_models * n_models))
    i, j = pairs[:, 0], pairs[:, 1]
    half_ties = 0.5 * outcomes[:, :, 2]
    w[:, i * n_models + j] = outcomes[:, :, 0] + half_ties
    w[:, j * n_models + i] = outcomes[:, :, 1] + half_ties
    return w.reshape(b, n_models, n_models)


def _newton(wins: np.ndarray, ridge: float, max_iter: int = 200, tol: float = 1e-10) -> np.ndarray:
    """Penalised Bradley-Terry MLE for a batch of win matrices ``(B, K, K)``; returns theta ``(B, K)``.

    Gradient g_i = sum_j (w_ij - n_ij p_ij) - ridge theta_i; negative Hessian = graph Laplacian of
    n_ij p_ij (1 - p_ij) + ridge I.  The all-ones direction (where the likelihood is flat) is handled
    by adding 11^T / K, which leaves steps orthogonal to it; theta is re-centred every step.
    """
    batch, k, _ = wins.shape
    totals = wins + wins.transpose(0, 2, 1)
    theta = np.zeros((batch, k))
    eye = np.eye(k)
    flat = np.full((k, k), 1.0 / k)
    active = np.arange(batch)
    for _ in range(max_iter):
        if active.size == 0:
            break
        th = theta[active]
        p = 0.5 * (1.0 + np.tanh(0.5 * (th[:, :, None] - th[:, None, :])))
        n = totals[active]
        grad = (wins[active] - n * p).sum(axis=2) - ridge * th
        info = n * p * (1.0 - p)
        neg_hess = -info
        neg_hess[:, np.arange(k), np.arange(k)] += info.sum(axis=2)
        step = solve(neg_hess + ridge * eye + flat, grad[:, :, None])[:, :, 0]
        size = np.abs(step).max(axis=1)
        step *= np.minimum(1.0, _MAX_STEP / np.maximum(size, 1e-300))[:, None]
        th = th + step
        theta[active] = th - th.mean(axis=1, keepdims=True)
        active = active[size >= tol]
    return theta


def fit_bradley_terry(counts: PairCounts, ridge: float = RIDGE) -> np.ndarray:
    """Log-strengths theta (natural log, mean 0), shape ``(len(counts.models),)``."""
    w = _win_matrices(len(counts.models), counts.pairs, counts.outcomes[None])
    return _newton(w, ridge)[0]


def to_rating(theta: np.ndarray) -> np.ndarray:
    """Elo-like ratings 1000 + 400 theta / ln 10 (see the module docstring)."""
    return _ANCHOR + _SCALE * np.asarray(theta)


_STATS = ("wins", "losses", "ties", "item_wins", "item_losses", "item_ties", "items_dropped")
"""Per-model totals gathered with the battle counts: votes won, lost, tied; items won, lost, tied
(one verdict per item) and items without a verdict."""

_COLUMNS = 7
"""Per pair: votes won by the first model, by the second, tied; items won by the first, by the
second, tied (one verdict each); items without a verdict."""


@dataclass(frozen=True, eq=False)
class _LinearMap:
    """Per-pair sums over items as one gather and one ``reduceat``: target ``pair * columns + column``
    (see `_COLUMNS`) gets the sum over the pattern entries of ``count[src] * weight``.  ``columns`` is 3
    (votes only) when every battle is its own item: its verdict is its vote."""

    src: np.ndarray
    weight: np.ndarray
    starts: np.ndarray
    targets: np.ndarray
    n_targets: int
    columns: int = _COLUMNS

    def apply(self, counts: np.ndarray) -> np.ndarray:
        """``(b, T)`` pattern counts -> ``(b, n_targets)`` sums."""
        out = np.zeros((counts.shape[0], self.n_targets))
        if self.src.size:
            out[:, self.targets] = np.add.reduceat(counts[:, self.src] * self.weight, self.starts, axis=1)
        return out


def _linear_map(counts: PairCounts, items: ItemPatterns, rule: str) -> _LinearMap:
    """The map from item patterns to the per-pair columns of `_COLUMNS` (votes only without item ids)."""
    columns = 3 if items.unit == "battles" else _COLUMNS
    pair = items.entry_pair * columns
    targets, weights = [pair, pair + 1, pair + 2], list(items.entry_votes.T)
    if columns == _COLUMNS:
        verdict = verdicts(items.entry_votes, rule)
        targets.append(pair + np.where(verdict < 0, 6, 3 + verdict))
        weights.append(np.ones(pair.size))
    target, weight = np.concatenate(targets), np.concatenate(weights)
    src = np.tile(items.entry_pattern, len(targets))
    keep = weight != 0
    order = np.argsort(target[keep], kind="stable")
    target, weight, src = target[keep][order], weight[keep][order], src[keep][order]
    starts = np.flatnonzero(np.r_[True, np.diff(target) != 0]) if target.size else np.zeros(0, dtype=np.int64)
    return _LinearMap(src, weight, starts, target[starts], counts.pairs.shape[0] * columns, columns)


def _split(sums: np.ndarray, pairs: np.ndarray, n_models: int) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """``(b, P * 7)`` (or ``(b, P * 3)``: votes only) -> pair outcomes ``(b, P, 3)`` and per-model totals
    ``{stat: (b, K)}`` (`_STATS`), with the per-vote and per-item win rates and the items compared."""
    n_columns = sums.shape[1] // max(1, pairs.shape[0])
    per_pair = sums.reshape(sums.shape[0], pairs.shape[0], n_columns)
    low = np.zeros((pairs.shape[0], n_models))
    high = np.zeros_like(low)
    low[np.arange(pairs.shape[0]), pairs[:, 0]] = 1.0
    high[np.arange(pairs.shape[0]), pairs[:, 1]] = 1.0
    column = [np.ascontiguousarray(per_pair[:, :, c]) for c in range(n_columns)]
    totals: dict[str, np.ndarray] = {}
    for prefix, (first, second, tie) in (("", (0, 1, 2)), ("item_", (3, 4, 5)))[: 1 if n_columns == 3 else 2]:
        wins = column[first] @ low + column[second] @ high
        ties = column[tie] @ (low + high)
        n = wins + column[second] @ low + column[first] @ high + ties
        rate = np.full(n.shape, np.nan)
        np.divide(wins + 0.5 * ties, n, out=rate, where=n > 0)
        totals |= {prefix + "wins": wins, prefix + "ties": ties, prefix + "losses": n - wins - ties,
                   prefix + "win_rate": rate}
    if n_columns == 3:  # every battle is its own item: the item verdicts are the votes, none dropped
        totals |= {"item_" + k: totals[k] for k in ("wins", "ties", "losses", "win_rate")}
        totals["items_dropped"] = np.zeros_like(totals["wins"])
    else:
        totals["items_dropped"] = column[6] @ (low + high)
    totals["n_items"] = totals["item_wins"] + totals["item_losses"] + totals["item_ties"] + totals["items_dropped"]
    return per_pair[:, :, :3], totals


def _bootstrap(counts: PairCounts, mapping: _LinearMap, n_boot: int, seed: int | None, ridge: float
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Ratings, per-vote and per-item win rates of ``n_boot`` item resamples, each ``(n_boot, K)``."""
    items = counts.item_patterns()
    if not np.allclose(items.multiplicity, np.round(items.multiplicity)):
        raise ValueError("bootstrap needs whole battle counts")
    k = len(counts.models)
    block = max(1, min(_CELLS_PER_BLOCK // (k * k), _TERMS_PER_BLOCK // max(1, mapping.src.size)))
    rng = np.random.default_rng(seed)
    shares = items.multiplicity / items.multiplicity.sum()
    ratings, vote_rates, item_rates = [], [], []
    for start in range(0, n_boot, block):
        size = min(block, n_boot - start)
        draws = rng.multinomial(items.n_items, shares, size=size).astype(np.float64)
        outcomes, totals = _split(mapping.apply(draws), counts.pairs, k)
        ratings.append(to_rating(_newton(_win_matrices(k, counts.pairs, outcomes), ridge)))
        vote_rates.append(totals["win_rate"])
        item_rates.append(totals["item_win_rate"])
    return np.concatenate(ratings), np.concatenate(vote_rates), np.concatenate(item_rates)


@dataclass(frozen=True)
class RankingRow:
    """One model's line in the leaderboard.

    Attributes:
        model: model name.
        rating: Bradley-Terry rating on the Elo-like scale (mean 1000, see module docstring).
        ci_low, ci_high: 95 % bootstrap percentile interval of the rating, items resampled (NaN
            without bootstrap).
        rank: 1 + number of models of the same component whose ci_low > this model's ci_high (by
            rating if no intervals).
        win_rate: per vote, (wins + 0.5 ties) / battles; win_rate_ci: its 95 % interval (items
            resampled).
        n_battles, wins, losses, ties: this model's battle counts (ties include both_bad).
        component: the connected component of the battle graph the model is in, numbered from 1
            (the one with most models first). Ratings and ranks compare only within a component.
        n_items: items (clusters) this model is compared on.
        item_win_rate: per item, one verdict per item by the majority rule: (items won + 0.5 items
            tied) / items with a verdict; item_win_rate_ci: its 95 % interval.
        items_dropped: items without a verdict (tied majority under the plurality rule).
    """

    model: str
    rating: float
    ci_low: float
    ci_high: float
    rank: int
    win_rate: float
    n_battles: int
    wins: int
    losses: int
    ties: int
    component: int = 1
    win_rate_ci: tuple[float, float] = (float("nan"), float("nan"))
    n_items: int = 0
    item_win_rate: float = float("nan")
    item_win_rate_ci: tuple[float, float] = (float("nan"), float("nan"))
    items_dropped: int = 0

    def to_json(self) -> dict[str, Any]:
        """Plain-JSON form with NaN as ``None``."""
        return {
            "component": self.component,
            "model": self.model,
            "rating": json_number(self.rating),
            "ci": [json_number(self.ci_low), json_number(self.ci_high)],
            "rank": self.rank,
            "win_rate": json_number(self.win_rate),
            "win_rate_ci": [json_number(v) for v in self.win_rate_ci],
            "n_battles": self.n_battles,
            "wins": self.wins,
            "losses": self.losses,
            "ties": self.ties,
            "n_items": self.n_items,
            "item_win_rate": json_number(self.item_win_rate),
            "item_win_rate_ci": [json_number(v) for v in self.item_win_rate_ci],
            "items_dropped": self.items_dropped,
        }


def components(counts: PairCounts) -> np.ndarray:
    """The connected component of each model in the graph of pairs with battles, shape ``(K,)``.

    Numbered from 1: most models first, then most battles, then by the first model name. A model
    without battles is a component of its own.
    """
    k = len(counts.models)
    parent = list(range(k))

    def root(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    played = counts.outcomes.sum(axis=1) > 0
    for i, j in counts.pairs[played]:
        a, b = root(int(i)), root(int(j))
        if a != b:
            parent[max(a, b)] = min(a, b)
    roots = np.array([root(m) for m in range(k)], dtype=np.int64)
    battles = np.zeros(k)
    np.add.at(battles, roots[counts.pairs[:, 0]], counts.outcomes.sum(axis=1))
    order = sorted(set(roots.tolist()), key=lambda r: (-int((roots == r).sum()), -battles[r], counts.models[r]))
    number = {r: n for n, r in enumerate(order, start=1)}
    return np.array([number[r] for r in roots.tolist()], dtype=np.int64)


def _ranks(rating: np.ndarray, low: np.ndarray, high: np.ndarray, group: np.ndarray | None = None) -> np.ndarray:
    """1 + number of models of the same group whose interval lies wholly above (falls back to point ratings)."""
    lo = np.where(np.isfinite(low), low, rating)
    hi = np.where(np.isfinite(high), high, rating)
    above = lo[None, :] > hi[:, None]
    if group is not None:
        above &= group[None, :] == group[:, None]
    return 1 + above.sum(axis=1)


def rank_models(
    battles: pd.DataFrame | PairCounts,
    n_boot: int = DEFAULT_N_BOOT,
    seed: int | None = 0,
    *,
    ridge: float = RIDGE,
    item: str | None = None,
    majority: str = "plurality",
) -> tuple[RankingRow, ...]:
    """Bradley-Terry leaderboard with bootstrap intervals: component by component, best rating first.

    battles: one row per battle (see `pair_counts`) or pre-aggregated `PairCounts` (e.g. from
    `pair_counts_from_arrays`).  item: for a DataFrame, the column naming the item each battle is a
    vote on: the bootstrap resamples items with all their votes (without it, each battle is an item).
    majority: the rule giving one verdict per item for the per-item win rate (`verdicts`).  Models
    without battles are left out.  ``n_boot`` rounds seeded by ``seed`` (0 rounds, or fewer than two
    items: no intervals).
    When the battle graph is not connected, each row's ``component`` says which group of mutually
    comparable models it belongs to, and ranks count only models of the same component.
    """
    counts = battles if isinstance(battles, PairCounts) else pair_counts(battles, item=item)
    counts = played(counts)
    if not counts.models:
        return ()
    rating = to_rating(fit_bradley_terry(counts, ridge))
    k = len(counts.models)
    items = counts.item_patterns()
    mapping = _linear_map(counts, items, majority)
    _, point = _split(mapping.apply(items.multiplicity[None, :]), counts.pairs, k)
    totals = {name: values[0] for name, values in point.items()}
    nan2 = np.full((k, 2), np.nan)
    bounds, vote_bounds, item_bounds = nan2, nan2, nan2
    if n_boot > 0 and items.n_items >= MIN_UNITS_FOR_INTERVAL:
        boots, vote_rates, item_rates = _bootstrap(counts, mapping, n_boot, seed, ridge)
        bounds, vote_bounds, item_bounds = (np.array([percentile_interval(b[:, m]) for m in range(k)])
                                            for b in (boots, vote_rates, item_rates))
    group = components(counts)
    ranks = _ranks(rating, bounds[:, 0], bounds[:, 1], group)
    rows = []
    for m in np.lexsort((-rating, group)):
        wins, losses, ties = (round(float(totals[key][m])) for key in ("wins", "losses", "ties"))
        rows.append(
            RankingRow(
                model=counts.models[m],
                rating=float(rating[m]),
                ci_low=float(bounds[m, 0]),
                ci_high=float(bounds[m, 1]),
                rank=int(ranks[m]),
                win_rate=float(totals["win_rate"][m]),
                n_battles=wins + losses + ties,
                wins=wins,
                losses=losses,
                ties=ties,
                component=int(group[m]),
                win_rate_ci=(float(vote_bounds[m, 0]), float(vote_bounds[m, 1])),
                n_items=round(float(totals["n_items"][m])),
                item_win_rate=float(totals["item_win_rate"][m]),
                item_win_rate_ci=(float(item_bounds[m, 0]), float(item_bounds[m, 1])),
                items_dropped=round(float(totals["items_dropped"][m])),
            )
        )
    return tuple(rows)
