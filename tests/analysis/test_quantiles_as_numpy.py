"""`bootstrap._quantiles` stands in for `numpy.quantile` (linear) to avoid its import of numpy.ma: it must
give the same bits on every kind of sample the bootstrap makes, so intervals in reports do not move."""

from __future__ import annotations

import numpy as np
import pytest

from annotate.analysis.bootstrap import _quantiles, percentile_interval


def _samples(rng: np.random.Generator, n: int) -> list[np.ndarray]:
    return [
        rng.normal(size=n),
        rng.integers(0, 4, size=n).astype(np.float64),  # many ties, as shares of few units give
        np.round(rng.uniform(-1, 1, size=n), 2),
        np.where(rng.random(n) < 0.5, 0.0, -0.0),  # signed zeros
        np.full(n, 0.25),
        rng.exponential(size=n) * 1e-300,
    ]


@pytest.mark.parametrize("n", [1, 2, 3, 7, 40, 999, 1000, 1001])
def test_quantiles_are_numpy_quantiles_to_the_bit(n: int) -> None:
    rng = np.random.default_rng(n)
    levels = [0.5, 0.8, 0.9, 0.95, 0.99, 1.0, 0.0]
    for values in _samples(rng, n):
        for level in levels:
            tail = (1.0 - level) / 2.0
            q = np.array([tail, 1.0 - tail])
            expected = np.quantile(values, q)
            got = _quantiles(values.copy(), q)
            assert got.tobytes() == expected.tobytes(), (n, level, values[:5])


def test_percentile_interval_matches_numpy_with_non_finite_resamples() -> None:
    rng = np.random.default_rng(3)
    samples = rng.normal(size=1000)
    samples[rng.choice(1000, 100, replace=False)] = np.nan
    samples[:3] = np.inf
    finite = samples[np.isfinite(samples)]
    tail = (1.0 - 0.95) / 2.0  # as the code before computed its levels
    lo, hi = np.quantile(finite, [tail, 1.0 - tail])
    assert percentile_interval(samples) == (float(lo), float(hi))


def test_quantiles_refuse_a_level_outside_zero_one() -> None:
    with pytest.raises(ValueError, match="range"):
        _quantiles(np.arange(3.0), np.array([-0.1, 0.5]))
