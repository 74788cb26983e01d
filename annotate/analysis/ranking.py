"""Bradley-Terry ranking of models from pairwise battles, with bootstrap intervals.

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

Intervals: resampling the N battles with replacement is one multinomial draw of N over the
(pair, outcome) cells with the observed cell shares, so each bootstrap round is a vectorised
``Generator.multinomial`` draw followed by a refit; 95 % percentile intervals.
Rank = 1 + the number of models of the same component whose lower bound lies above this model's
upper bound.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from annotate.analysis.bootstrap import DEFAULT_N_BOOT, percentile_interval
from annotate.analysis.estimate import json_number

__all__ = [
    "WINNER_CODES",
    "PairCounts",
    "RankingRow",
    "components",
    "fit_bradley_terry",
    "pair_counts",
    "pair_counts_from_arrays",
    "rank_models",
    "to_rating",
]

WINNER_CODES: dict[str, int] = {"model_a": 0, "model_b": 1, "tie": 2, "both_bad": 2, "tie (bothbad)": 2}
"""Battle outcome -> 0 (model_a won), 1 (model_b won), 2 (tie)."""

RIDGE = 1e-6
"""Default ridge on the log-strengths (see the module docstring)."""

_SCALE = 400.0 / math.log(10.0)
_ANCHOR = 1000.0
_MAX_STEP = 2.0
"""Largest Newton step per coordinate (natural-log units); damps the first steps of separable fits."""

_CELLS_PER_BLOCK = 1 << 21
"""Bound on ``block * n_models**2`` so a block of bootstrap fits stays around 16 MiB per array."""


@dataclass(frozen=True, eq=False)
class PairCounts:
    """Battle outcomes aggregated per model pair.

    Attributes:
        models: model names; indexes below refer to this tuple.
        pairs: ``(P, 2)`` int64 model indexes, ``pairs[:, 0] < pairs[:, 1]``, each pair once.
        outcomes: ``(P, 3)`` float64 counts: wins of ``pairs[:, 0]``, wins of ``pairs[:, 1]``, ties
            (both_bad included).
    """

    models: tuple[str, ...]
    pairs: np.ndarray
    outcomes: np.ndarray

    @property
    def n_battles(self) -> int:
        """Total number of battles."""
        return round(float(self.outcomes.sum()))


def _canonical(models: Sequence[str], i: np.ndarray, j: np.ndarray, outcomes: np.ndarray) -> PairCounts:
    """Order each pair as (low, high) index (swapping the win columns) and merge duplicate pairs."""
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
    out = np.column_stack([wins, outcomes[:, 2]])
    keys, inverse = np.unique(lo.astype(np.int64) * k + hi, return_inverse=True)
    merged = np.column_stack([np.bincount(inverse, out[:, c], keys.size) for c in range(3)])
    return PairCounts(tuple(models), np.column_stack([keys // k, keys % k]).astype(np.int64), merged)


def pair_counts(
    battles: pd.DataFrame, model_a: str = "model_a", model_b: str = "model_b", winner: str = "winner"
) -> PairCounts:
    """Aggregate battles (one row each) into per-pair counts.

    battles: columns ``model_a``, ``model_b`` (names) and ``winner`` in {"model_a", "model_b", "tie",
    "both_bad"} (Arena's "tie (bothbad)" is accepted too); models are sorted by name.
    """
    missing = [c for c in (model_a, model_b, winner) if c not in battles.columns]
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
    return _canonical([str(m) for m in models], i, j, one_hot)


def pair_counts_from_arrays(models: Sequence[str], pairs: Sequence[Sequence[int]], outcomes: Any) -> PairCounts:
    """Per-pair counts from arrays, e.g. the Chatbot Arena export (``models``, ``X``, ``Y``).

    pairs: ``(P, 2)`` model indexes; outcomes: ``(P, >= 3)`` counts: wins of the first model, wins of
    the second, then one or more tie columns (summed; Arena: ties, ties both bad).
    """
    p = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    y = np.asarray(outcomes, dtype=np.float64)
    if y.ndim != 2 or y.shape[0] != p.shape[0] or y.shape[1] < 3:
        raise ValueError(f"outcomes must have shape (P, >= 3) with P = {p.shape[0]}, got {y.shape}")
    out = np.column_stack([y[:, 0], y[:, 1], y[:, 2:].sum(axis=1)])
    return _canonical([str(m) for m in models], p[:, 0], p[:, 1], out)


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
        step = np.linalg.solve(neg_hess + ridge * eye + flat, grad[:, :, None])[:, :, 0]
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


def _bootstrap_ratings(counts: PairCounts, n_boot: int, seed: int | None, ridge: float) -> np.ndarray:
    """Ratings of ``n_boot`` resamples of the battles, shape ``(n_boot, K)``."""
    k = len(counts.models)
    cells = counts.outcomes.ravel()
    total = round(float(cells.sum()))
    if not np.allclose(cells, np.round(cells)):
        raise ValueError("bootstrap needs whole battle counts")
    rng = np.random.default_rng(seed)
    shares = cells / cells.sum()
    block = max(1, _CELLS_PER_BLOCK // (k * k))
    out = []
    for start in range(0, n_boot, block):
        size = min(block, n_boot - start)
        draws = rng.multinomial(total, shares, size=size).astype(np.float64)
        w = _win_matrices(k, counts.pairs, draws.reshape(size, -1, 3))
        out.append(to_rating(_newton(w, ridge)))
    return np.concatenate(out, axis=0)


@dataclass(frozen=True)
class RankingRow:
    """One model's line in the leaderboard.

    Attributes:
        model: model name.
        rating: Bradley-Terry rating on the Elo-like scale (mean 1000, see module docstring).
        ci_low, ci_high: 95 % bootstrap percentile interval of the rating (NaN without bootstrap).
        rank: 1 + number of models of the same component whose ci_low > this model's ci_high (by
            rating if no intervals).
        win_rate: (wins + 0.5 ties) / battles.
        n_battles, wins, losses, ties: this model's battle counts (ties include both_bad).
        component: the connected component of the battle graph the model is in, numbered from 1
            (the one with most models first). Ratings and ranks compare only within a component.
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

    def to_json(self) -> dict[str, Any]:
        """Plain-JSON form with NaN as ``None``."""
        return {
            "component": self.component,
            "model": self.model,
            "rating": json_number(self.rating),
            "ci": [json_number(self.ci_low), json_number(self.ci_high)],
            "rank": self.rank,
            "win_rate": json_number(self.win_rate),
            "n_battles": self.n_battles,
            "wins": self.wins,
            "losses": self.losses,
            "ties": self.ties,
        }


def _played(counts: PairCounts) -> PairCounts:
    """Drop models without battles (they have no rating) and re-index the pairs."""
    keep = np.zeros(len(counts.models), dtype=bool)
    nonempty = counts.outcomes.sum(axis=1) > 0
    keep[counts.pairs[nonempty].ravel()] = True
    new_index = np.cumsum(keep) - 1
    models = tuple(m for m, k in zip(counts.models, keep, strict=True) if k)
    return PairCounts(models, new_index[counts.pairs[nonempty]], counts.outcomes[nonempty])


def _model_totals(counts: PairCounts) -> np.ndarray:
    """Per model ``[wins, losses, ties]``, shape ``(K, 3)``."""
    k = len(counts.models)
    i, j = counts.pairs[:, 0], counts.pairs[:, 1]
    a, b, t = counts.outcomes[:, 0], counts.outcomes[:, 1], counts.outcomes[:, 2]
    wins = np.bincount(i, a, k) + np.bincount(j, b, k)
    losses = np.bincount(i, b, k) + np.bincount(j, a, k)
    ties = np.bincount(i, t, k) + np.bincount(j, t, k)
    return np.column_stack([wins, losses, ties])


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
) -> tuple[RankingRow, ...]:
    """Bradley-Terry leaderboard with bootstrap intervals: component by component, best rating first.

    battles: one row per battle (see `pair_counts`) or pre-aggregated `PairCounts` (e.g. from
    `pair_counts_from_arrays`).  Models without battles are left out.  ``n_boot`` rounds of battle
    resampling seeded by ``seed`` (0 rounds: no intervals).  When the battle graph is not connected,
    each row's ``component`` says which group of mutually comparable models it belongs to, and ranks
    count only models of the same component.
    """
    counts = battles if isinstance(battles, PairCounts) else pair_counts(battles)
    counts = _played(counts)
    if not counts.models:
        return ()
    rating = to_rating(fit_bradley_terry(counts, ridge))
    k = len(counts.models)
    if n_boot > 0:
        boots = _bootstrap_ratings(counts, n_boot, seed, ridge)
        bounds = np.array([percentile_interval(boots[:, m]) for m in range(k)])
    else:
        bounds = np.full((k, 2), np.nan)
    group = components(counts)
    ranks = _ranks(rating, bounds[:, 0], bounds[:, 1], group)
    totals = _model_totals(counts)
    rows = []
    for m in np.lexsort((-rating, group)):
        wins, losses, ties = (round(float(x)) for x in totals[m])
        n = wins + losses + ties
        rows.append(
            RankingRow(
                model=counts.models[m],
                rating=float(rating[m]),
                ci_low=float(bounds[m, 0]),
                ci_high=float(bounds[m, 1]),
                rank=int(ranks[m]),
                win_rate=(wins + 0.5 * ties) / n if n else float("nan"),
                n_battles=n,
                wins=wins,
                losses=losses,
                ties=ties,
                component=int(group[m]),
            )
        )
    return tuple(rows)
