"""Simulation: the bootstrap intervals cover the population value about 95 % of the time."""

from __future__ import annotations

import numpy as np
import pytest

from annotate.analysis.agreement import fleiss_kappa, gwet_ac1, krippendorff_alpha, percent_agreement

N_REPLICATIONS = 200
N_BOOT = 200
N_UNITS = 80
N_RATERS = 4
N_CATEGORIES = 4
COPY_PROB = 0.8
MISSING = 0.15


def simulate(rng: np.random.Generator) -> np.ndarray:
    """Each unit has a latent label, uniform over q categories; each rater copies it with probability p,
    otherwise draws a uniform category; 15 % of ratings are missing completely at random.

    Population values (uniform marginals): two ratings of a unit agree with probability
    p^2 + (1 - p^2) / q, chance agreement is 1 / q, so Krippendorff's alpha (nominal and interval: the
    covariance of two ratings of a unit is p^2 Var), Fleiss' kappa and Gwet's AC1 (p_e = 1 / q when
    pi_k = 1 / q) all equal p^2, and percent agreement is p^2 + (1 - p^2) / q.
    """
    latent = rng.integers(0, N_CATEGORIES, size=(N_UNITS, 1))
    copy = rng.random((N_UNITS, N_RATERS)) < COPY_PROB
    noise = rng.integers(0, N_CATEGORIES, size=(N_UNITS, N_RATERS))
    m = np.where(copy, latent, noise).astype(float)
    m[rng.random(m.shape) < MISSING] = np.nan
    return m


TRUE_ALPHA = COPY_PROB**2
TRUE_PERCENT = COPY_PROB**2 + (1 - COPY_PROB**2) / N_CATEGORIES
CATEGORIES = list(range(N_CATEGORIES))

STATISTICS = {
    "alpha_nominal": (lambda m, s: krippendorff_alpha(m, "nominal", CATEGORIES, n_boot=N_BOOT, seed=s), TRUE_ALPHA),
    "alpha_interval": (lambda m, s: krippendorff_alpha(m, "interval", CATEGORIES, n_boot=N_BOOT, seed=s), TRUE_ALPHA),
    "fleiss_kappa": (lambda m, s: fleiss_kappa(m, CATEGORIES, n_boot=N_BOOT, seed=s), TRUE_ALPHA),
    "gwet_ac1": (lambda m, s: gwet_ac1(m, CATEGORIES, n_boot=N_BOOT, seed=s), TRUE_ALPHA),
    "percent_agreement": (lambda m, s: percent_agreement(m, CATEGORIES, n_boot=N_BOOT, seed=s), TRUE_PERCENT),
}


@pytest.mark.parametrize("name", list(STATISTICS))
def test_percentile_interval_coverage(name: str) -> None:
    """200 replications x 200 resamples, seeded: coverage of the population value in [0.88, 0.99]
    (binomial sd of the coverage at 0.95 over 200 replications is 0.015), and the point estimates are
    centred on the population value (mean within 0.02)."""
    compute, truth = STATISTICS[name]
    rng = np.random.default_rng(12345)
    covered, estimates = 0, []
    for rep in range(N_REPLICATIONS):
        e = compute(simulate(rng), rep)
        covered += e.ci_low <= truth <= e.ci_high
        estimates.append(e.estimate)
    coverage = covered / N_REPLICATIONS
    assert 0.88 <= coverage <= 0.99, f"{name}: coverage {coverage:.3f}"
    assert abs(np.mean(estimates) - truth) < 0.02
