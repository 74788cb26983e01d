"""Two-way cluster ("pigeonhole") bootstrap over annotators and items, percentile intervals, and the
permutation test of a difference in agree rates."""

from __future__ import annotations

import numpy as np
import pandas as pd

from annotate.analysis.anchoring.rows import _ratio

_MAX_CELLS = 1 << 22


def _counts(rng: np.random.Generator, n: int, b: int) -> np.ndarray:
    """(b, n) draw counts of n-with-replacement resamples of n clusters."""
    idx = rng.integers(0, n, size=(b, n)) + (np.arange(b) * n)[:, None]
    return np.bincount(idx.ravel(), minlength=b * n).reshape(b, n).astype(np.float64)


def two_way_bootstrap_sums(
    features: np.ndarray, a_idx: np.ndarray, i_idx: np.ndarray, n_boot: int, seed: int | None,
) -> np.ndarray:
    """Feature sums of `n_boot` two-way cluster resamples, shape (n_boot, k).

    Annotators and items are resampled independently (each n-out-of-n with replacement); a row's
    weight is the product of its annotator's and its item's draw counts.
    """
    n_rows, k = features.shape
    if n_boot <= 0 or n_rows == 0:
        return np.empty((0, k))
    n_a, n_i = int(a_idx.max()) + 1, int(i_idx.max()) + 1
    rng = np.random.default_rng(seed)
    block = max(1, _MAX_CELLS // max(n_rows, n_a, n_i))
    out = []
    done = 0
    while done < n_boot:
        b = min(block, n_boot - done)
        wa = _counts(rng, n_a, b)
        wi = _counts(rng, n_i, b)
        out.append((wa[:, a_idx] * wi[:, i_idx]) @ features)
        done += b
    return np.concatenate(out, axis=0)


def _interval(samples: np.ndarray, level: float) -> tuple[float, float]:
    finite = samples[np.isfinite(samples)]
    if samples.size == 0 or finite.size < 0.5 * samples.size:
        return (float("nan"), float("nan"))
    tail = (1.0 - level) / 2.0
    lo, hi = np.quantile(finite, [tail, 1.0 - tail])
    return (float(lo), float(hi))


def _permutation_p(
    agree: np.ndarray, is_mode: np.ndarray, groups: np.ndarray, design: str, n_perm: int, seed: int | None,
) -> float:
    """Two-sided randomization p-value of the difference in agree rates between `is_mode` rows and
    the rest, permuting labels within `groups` (within) or whole groups' labels (between)."""
    n = len(agree)
    n1 = int(is_mode.sum())
    if n_perm <= 0 or n1 == 0 or n1 == n:
        return float("nan")
    y = agree.astype(np.float64)
    observed = y[is_mode].mean() - y[~is_mode].mean()
    rng = np.random.default_rng(seed)
    exceed = 0
    done = 0
    if design == "between":
        codes, uniq = pd.factorize(groups)
        label = np.zeros(len(uniq), dtype=bool)
        label[codes[is_mode]] = True
        if len(np.unique(label)) < 2:
            return float("nan")
        block = max(1, _MAX_CELLS // max(n, 1))
        while done < n_perm:
            b = min(block, n_perm - done)
            order = np.argsort(rng.random((b, len(uniq))), axis=1)
            x = label[order][:, codes]
            diff = _diffs(x, y)
            exceed += int(np.sum(np.abs(diff) >= abs(observed) - 1e-12))
            done += b
    else:
        order0 = np.argsort(groups, kind="stable")
        g = pd.factorize(groups[order0])[0].astype(np.float64)
        ys, xs = y[order0], is_mode[order0]
        block = max(1, _MAX_CELLS // max(n, 1))
        while done < n_perm:
            b = min(block, n_perm - done)
            perm = np.argsort(g[None, :] + rng.random((b, n)), axis=1)
            x = xs[perm]
            diff = _diffs(x, ys)
            exceed += int(np.sum(np.abs(diff) >= abs(observed) - 1e-12))
            done += b
    return (1 + exceed) / (1 + n_perm)


def _diffs(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Per row of boolean x (b, n): mean of y where x minus mean of y where not x."""
    xf = x.astype(np.float64)
    n1 = xf.sum(axis=1)
    s1 = xf @ y
    return _ratio(s1, n1) - _ratio(y.sum() - s1, len(y) - n1)
