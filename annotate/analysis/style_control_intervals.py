"""The intervals of the two fits in `annotate.analysis.style_control`: item bootstrap, or item-clustered sandwich.

Bootstrap: the items are resampled with all their votes and both fits refitted on the same
resamples (`bootstrap_bounds`), 95 % percentile intervals; its cost is resamples x items.

Sandwich (`sandwich_bounds`): the normal approximation, estimate +- 1.96 standard errors.  The
estimate solves sum_i g_i(w) - ridge w = 0, g_i the score of item i (all its votes together:
D_i^T r_i, r_i its wins of slot A plus half its ties minus their expected number).  Linearised, a
resample's estimate moves by H^-1 sum_i (c_i - 1) g_i, c_i how often item i was drawn, so the
bootstrap's covariance tends to

    V = H^-1 J H^-1,   J = sum_i g_i g_i^T - G G^T / n,   G = sum_i g_i

(H the penalised negative Hessian at the estimate; the G term is the multinomial draw's, G = ridge w
is about 0).  The item is the cluster, exactly the unit the bootstrap resamples: votes on one item
that lean the same way widen V as they widen the bootstrap.  J is assembled as the Hessian is
(`annotate.analysis.style_newton.information` with weights r_i^2 in place of n_i p_i (1 - p_i)), so
no rows-by-parameters matrix is formed: a few passes over the rows, whatever the resamples.

The likelihood does not change when all strengths of a connected component shift together, and
neither does any item's score (J u = 0 for those directions u, and H u = ridge u): their variance is
0 in V, and adding u u^T / |u|^2 per component to H before inverting changes nothing else while it
keeps the inverse well conditioned (the ridge alone would leave eigenvalues of 1e-6).  V is then
taken for the centred strengths (C V C^T, C = I - 11^T / K), as the fit centres them; ratings are an
increasing affine map of them, so their bounds are the map of the strengths' bounds (the ratings'
covariance is A V A^T with A = 400 / ln 10 C).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from statistics import NormalDist

import numpy as np

from annotate.analysis.bootstrap import percentile_interval, resample_counts
from annotate.analysis.style_newton import Rows, information, newton, pair_weights, score

__all__ = ["bootstrap_bounds", "cluster_covariance", "sandwich_bounds"]

Z = NormalDist().inv_cdf(0.975)
"""The normal quantile of a 95 % two-sided interval."""
_CELLS = 1 << 22
"""Bound on ``block * n_rows`` (one bootstrap block of per-row arrays, about 32 MiB each)."""
_HESSIAN_CELLS = 1 << 22
"""Bound on ``block * (K + F)**2`` for the batched Hessians."""

Bounds = tuple[np.ndarray, np.ndarray, np.ndarray]
"""``(K, 2)`` plain ratings', ``(K, 2)`` controlled ratings' and ``(F, 2)`` coefficients' bounds."""


def _probabilities(rows: Rows, theta: np.ndarray, beta: np.ndarray) -> np.ndarray:
    """``(R,)`` P(slot A wins) of every row at the estimate."""
    eta = np.repeat(theta[rows.pair_a] - theta[rows.pair_b], rows.sizes)
    if rows.n_features:
        eta = eta + beta @ rows.xt
    with np.errstate(over="ignore"):
        return 1.0 / (1.0 + np.exp(-eta))


def cluster_covariance(rows: Rows, theta: np.ndarray, beta: np.ndarray, ridge: float, group: np.ndarray
                       ) -> np.ndarray:
    """``(K + F, K + F)`` covariance of the strengths (centred) and coefficients, ``(K,)`` theta and ``(F,)``
    beta being the estimate on ``rows`` (one row per item) and ``group`` the models' connected components."""
    k, f = rows.k, rows.n_features
    p = _probabilities(rows, theta, beta)
    expected = rows.n * p
    resid = rows.s - expected
    hessian = information((expected * (1.0 - p))[None, :], rows)[0] + ridge * np.eye(k + f)
    total = score(resid[None, :], rows)[0]
    meat = information((resid * resid)[None, :], rows)[0] - np.outer(total, total) / max(rows.n.size, 1)
    bread = hessian.copy()
    for c in np.unique(group):
        member = np.zeros(k + f)
        member[:k] = group == c
        bread += np.outer(member, member) / member.sum()
    inverse = np.linalg.inv(bread)
    cov = inverse @ meat @ inverse
    centre = np.eye(k + f)
    centre[:k, :k] -= 1.0 / k
    cov = centre @ cov @ centre.T
    return (cov + cov.T) / 2.0


def _block_rows(n_rows: int, width: int) -> int:
    return max(1, min(_CELLS // max(1, n_rows), _HESSIAN_CELLS // (width * width)))


def bootstrap_bounds(rows: Rows, pairs: Rows, theta_p: np.ndarray, theta_c: np.ndarray, beta_c: np.ndarray,
                     n_boot: int, seed: int | None, ridge: float, rating: Callable[[np.ndarray], np.ndarray]
                     ) -> Bounds:
    """Percentile bounds from ``n_boot`` item resamples, both fits refitted on each (warm-started at the
    estimates ``(1, K)``, ``(1, F)``); ``pairs`` is ``rows`` by pair (`annotate.analysis.style_newton.by_pair`)."""
    k, f, n_items = rows.k, rows.n_features, rows.n.size
    boots_p, boots_c, boots_b = [], [], []
    rng = np.random.default_rng(seed)
    per_block = _block_rows(n_items, k + f)
    for weights in resample_counts(rng, n_items, n_boot):
        for start in range(0, weights.shape[0], per_block):
            w = weights[start:start + per_block]
            b = w.shape[0]
            # Items are exchangeable: the weights are taken in the rows' (sorted) order as drawn.
            tp, _ = newton(pairs, *pair_weights(w, rows), np.repeat(theta_p, b, 0), np.zeros((b, 0)), ridge)
            tc, bc = newton(rows, w * rows.n[None, :], w * rows.s[None, :], np.repeat(theta_c, b, 0),
                             np.repeat(beta_c, b, 0), ridge)
            boots_p.append(rating(tp))
            boots_c.append(rating(tc))
            boots_b.append(bc)
    bp, bc_, bb = np.concatenate(boots_p), np.concatenate(boots_c), np.concatenate(boots_b)
    return (np.array([percentile_interval(bp[:, m]) for m in range(k)]),
            np.array([percentile_interval(bc_[:, m]) for m in range(k)]),
            np.array([percentile_interval(bb[:, j]) for j in range(f)]).reshape(f, 2))


def sandwich_bounds(rows: Rows, theta_p: np.ndarray, theta_c: np.ndarray, beta_c: np.ndarray, group: np.ndarray,
                    ridge: float, rating: Callable[[np.ndarray], np.ndarray]) -> Bounds:
    """Estimate +- 1.96 sandwich standard errors for both fits (estimates ``(1, K)``, ``(1, F)``); the plain
    fit's items are ``rows`` without their features (its clusters are the items too, not the pairs)."""
    k = rows.k
    plain = dataclasses.replace(rows, xt=rows.xt[:0], products=rows.products[:0])
    se_p = np.sqrt(np.diag(cluster_covariance(plain, theta_p[0], np.zeros(0), ridge, group)))
    cov_c = cluster_covariance(rows, theta_c[0], beta_c[0], ridge, group)
    se_c, se_b = np.sqrt(np.diag(cov_c)[:k]), np.sqrt(np.diag(cov_c)[k:])

    def bounds(estimate: np.ndarray, se: np.ndarray) -> np.ndarray:
        return np.column_stack([estimate - Z * se, estimate + Z * se])

    return (rating(bounds(theta_p[0], se_p)), rating(bounds(theta_c[0], se_c)),
            bounds(beta_c[0], se_b).reshape(-1, 2))
