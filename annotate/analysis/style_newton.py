"""The Newton fit behind `annotate.analysis.style_control`: logistic Bradley-Terry with extra columns.

Rows are items sorted by ordered model pair (slot A's model, slot B's), so every sum over battles of
one pair is one ``reduceat`` and the strengths block of the Hessian is a weighted graph Laplacian
assembled from per-pair sums; the feature blocks are BLAS products over contiguous ``(F, R)`` arrays.
No battles-by-models matrix is ever formed.  Everything is vectorised over a block of bootstrap
resamples (the leading axis ``b`` of every array).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from annotate.analysis.blas_threads import solve

__all__ = ["Rows", "by_pair", "information", "newton", "pair_sums", "pair_weights", "score", "sorted_rows"]

MAX_STEP = 2.0
"""Largest Newton step per coordinate (natural-log units); damps the first steps of separable fits."""


@dataclass(frozen=True, eq=False)
class Rows:
    """A design sorted by ordered model pair, with the per-pair index arrays the Newton steps use.

    Row arrays are stored feature-major (``(F, R)``, contiguous) so the products with a block of
    resamples ``(b, R)`` are BLAS calls over contiguous memory.
    """

    k: int
    pair_a: np.ndarray
    """(P,) slot-A model of each ordered pair."""
    pair_b: np.ndarray
    starts: np.ndarray
    """(P,) first row of each pair."""
    sizes: np.ndarray
    xt: np.ndarray
    """(F, R) scaled features."""
    products: np.ndarray
    """(U, R) products x_f x_g for f <= g (the upper triangle, U = F (F + 1) / 2)."""
    n: np.ndarray
    """(R,) votes per row."""
    s: np.ndarray
    """(R,) wins of slot A plus half the ties."""
    order: np.ndarray
    """Row order (into the design's rows)."""

    @property
    def n_features(self) -> int:
        return self.xt.shape[0]


def sorted_rows(k: int, model_a: np.ndarray, model_b: np.ndarray, x: np.ndarray, votes: np.ndarray) -> Rows:
    """Rows (one per item) sorted by ordered pair: models ``(R,)``, scaled features ``(R, F)``, votes ``(R, 3)``."""
    key = model_a * k + model_b
    order = np.argsort(key, kind="stable")
    key = key[order]
    starts = np.flatnonzero(np.r_[True, np.diff(key) != 0]) if key.size else np.zeros(0, dtype=np.int64)
    sizes = np.diff(np.r_[starts, key.size])
    xt = np.ascontiguousarray(x[order].T)
    upper = np.triu_indices(xt.shape[0])
    products = np.ascontiguousarray(xt[upper[0]] * xt[upper[1]]).reshape(len(upper[0]), key.size)
    v = votes[order]
    return Rows(k, key[starts] // k, key[starts] % k, starts, sizes, xt, products, v.sum(axis=1),
                 v[:, 0] + 0.5 * v[:, 2], order)


def pair_sums(values: np.ndarray, rows: Rows) -> np.ndarray:
    """``(b, R)`` per-row values -> ``(b, P)`` sums per pair."""
    return np.add.reduceat(values, rows.starts, axis=1)


def _scatter(per_pair: np.ndarray, rows: Rows) -> np.ndarray:
    """``(b, P)`` per-pair values -> ``(b, K)``: + at the pair's slot-A model, - at its slot-B model."""
    b = per_pair.shape[0]
    offsets = (np.arange(b) * rows.k)[:, None]
    plus = np.bincount((offsets + rows.pair_a[None, :]).ravel(), per_pair.ravel(), b * rows.k)
    minus = np.bincount((offsets + rows.pair_b[None, :]).ravel(), per_pair.ravel(), b * rows.k)
    return (plus - minus).reshape(b, rows.k)


def _laplacian(h_pair: np.ndarray, rows: Rows) -> np.ndarray:
    """``(b, P)`` per-pair information -> ``(b, K, K)`` weighted graph Laplacian."""
    b, _ = h_pair.shape
    k = rows.k
    pa, pb = rows.pair_a, rows.pair_b
    cells = np.concatenate([pa * k + pb, pb * k + pa, pa * k + pa, pb * k + pb])
    weights = np.concatenate([-h_pair, -h_pair, h_pair, h_pair], axis=1)
    offsets = (np.arange(b) * k * k)[:, None]
    flat = np.bincount((offsets + cells[None, :]).ravel(), weights.ravel(), b * k * k)
    return flat.reshape(b, k, k)


def by_pair(rows: Rows) -> Rows:
    """The same battles with one row per ordered pair and no features: the plain fit needs only the
    per-pair sums, so it runs on P rows instead of R."""
    p = rows.pair_a.size
    return Rows(rows.k, rows.pair_a, rows.pair_b, np.arange(p), np.ones(p, dtype=np.int64), np.zeros((0, p)),
                 np.zeros((0, p)), pair_sums(rows.n[None, :], rows)[0], pair_sums(rows.s[None, :], rows)[0],
                 np.arange(p))


def pair_weights(weights: np.ndarray, rows: Rows) -> tuple[np.ndarray, np.ndarray]:
    """Row weights ``(b, R)`` -> the weighted votes and wins of each pair ``(b, P)`` for `_by_pair`."""
    return pair_sums(weights * rows.n[None, :], rows), pair_sums(weights * rows.s[None, :], rows)


def score(resid: np.ndarray, rows: Rows) -> np.ndarray:
    """``(b, R)`` per-row residuals r (wins minus expected wins) -> ``(b, K + F)`` sums D^T r: the
    log-likelihood's gradient, one row's term being that row's (that item's) score."""
    k, f = rows.k, rows.n_features
    out = np.empty((resid.shape[0], k + f))
    out[:, :k] = _scatter(pair_sums(resid, rows), rows)
    if f:
        out[:, k:] = (rows.xt @ resid.T).T
    return out


def information(h: np.ndarray, rows: Rows) -> np.ndarray:
    """``(b, R)`` per-row weights h -> ``(b, K + F, K + F)`` D^T diag(h) D, assembled from per-pair sums
    (strengths block: a weighted graph Laplacian) and BLAS products over the rows: with h = n p (1 - p)
    the negative Hessian of the log-likelihood, with h = r^2 the sum of the rows' score outer products."""
    k, f = rows.k, rows.n_features
    b = h.shape[0]
    out = np.empty((b, k + f, k + f))
    out[:, :k, :k] = _laplacian(pair_sums(h, rows), rows)
    if f:
        product = np.empty_like(h)
        cross = np.stack([_scatter(pair_sums(np.multiply(h, rows.xt[j], out=product), rows), rows)
                          for j in range(f)], axis=2)
        out[:, :k, k:] = cross
        out[:, k:, :k] = cross.transpose(0, 2, 1)
        upper = np.triu_indices(f)
        block = np.empty((b, f, f))
        sums = (rows.products @ h.T).T
        block[:, upper[0], upper[1]] = sums
        block[:, upper[1], upper[0]] = sums
        out[:, k:, k:] = block
    return out


def newton(rows: Rows, n_w: np.ndarray, s_w: np.ndarray, theta: np.ndarray, beta: np.ndarray, ridge: float,
            max_iter: int = 100, tol: float = 1e-8) -> tuple[np.ndarray, np.ndarray]:
    """Penalised ML fit for a block of resamples from starting values ``(b, K)``, ``(b, F)``.

    n_w, s_w: ``(b, R)`` votes and wins (slot A's wins plus half the ties) of each row in each
    resample (the row's counts times how often its item was drawn).

    Gradient: D^T r + ridge terms with r = w (s - n p) per row (D: +1 at slot A's model, -1 at slot
    B's, then the feature columns).  Negative Hessian: D^T diag(w n p (1 - p)) D + ridge I, its
    strengths block a Laplacian, plus 11^T / K on that block for the direction where the
    likelihood is flat (it leaves steps orthogonal to it); the strengths are re-centred every step.
    """
    k, f = rows.k, rows.n_features
    theta, beta = theta.copy(), beta.copy()
    if rows.n.size == 0:
        return theta, beta
    eye = np.eye(k + f) * ridge
    eye[:k, :k] += 1.0 / k
    active = np.arange(n_w.shape[0])
    for _ in range(max_iter):
        if active.size == 0:
            break
        th, be = theta[active], beta[active]
        whole = active.size == n_w.shape[0]  # no copy of the block's weights while every resample is active
        nw, sw = (n_w, s_w) if whole else (n_w[active], s_w[active])
        eta = np.repeat(th[:, rows.pair_a] - th[:, rows.pair_b], rows.sizes, axis=1)
        if f:
            eta += be @ rows.xt
        # p = 1 / (1 + exp(-eta)), resid = sw - nw p, h = nw p (1 - p), in the arrays already made (each
        # block's arrays are tens of MiB: fresh ones would be mapped and faulted in every round)
        p = np.negative(eta, out=eta)
        with np.errstate(over="ignore"):
            np.exp(p, out=p)
        np.add(p, 1.0, out=p)
        np.divide(1.0, p, out=p)
        weighted = np.multiply(nw, p)
        resid = np.subtract(sw, weighted)
        np.subtract(1.0, p, out=p)
        h = np.multiply(weighted, p, out=weighted)
        grad = score(resid, rows)
        grad[:, :k] -= ridge * th
        grad[:, k:] -= ridge * be
        hess = information(h, rows)
        step = solve(hess + eye, grad[:, :, None])[:, :, 0]
        size = np.abs(step).max(axis=1)
        step *= np.minimum(1.0, MAX_STEP / np.maximum(size, 1e-300))[:, None]
        th = th + step[:, :k]
        theta[active] = th - th.mean(axis=1, keepdims=True)
        beta[active] = be + step[:, k:]
        active = active[size >= tol]
    return theta, beta
