"""Krippendorff's alpha at the nominal, ordinal, interval and ratio levels, with bootstrap intervals over units."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from annotate.analysis.agreement.coded import CodedRatings, as_coded
from annotate.analysis.agreement.matrix import LEVELS, Level, _on_rows
from annotate.analysis.bootstrap import DEFAULT_N_BOOT, Part, safe_ratio
from annotate.analysis.estimate import Estimate


def _fixed_delta(level: Level, domain: np.ndarray) -> np.ndarray:
    """Squared difference function delta^2_ck (V x V) for the levels whose metric ignores frequencies."""
    a, b = domain[:, None], domain[None, :]
    if level == "nominal":
        return 1.0 - np.eye(domain.size)
    if level == "interval":
        return (a - b) ** 2
    total = a + b
    ratio = np.zeros(np.broadcast(a, b).shape)
    np.divide(a - b, total, out=ratio, where=total != 0)
    return ratio**2


def _ordinal_delta(n_v: np.ndarray) -> np.ndarray:
    """Ordinal delta^2 from value frequencies n_v of shape ``(m, V)``; returns ``(m, V, V)``.

    Krippendorff (2011) eq. for ordinal metric: (sum_{g=c}^{k} n_g - (n_c + n_k)/2)^2, which equals
    ``(p_k - p_c)^2`` with mid-rank positions ``p = cumsum(n_v) - n_v / 2``.
    """
    p = np.cumsum(n_v, axis=1) - n_v / 2.0
    return (p[:, :, None] - p[:, None, :]) ** 2


def _alpha_fixed_statistic(delta: np.ndarray):
    """alpha from sums ``[D_o numerator, n_1 .. n_V]`` for nominal / interval / ratio."""

    def statistic(sums: np.ndarray) -> np.ndarray:
        d_o, n_v = sums[:, 0], sums[:, 1:]
        n = n_v.sum(axis=1)
        d_e = ((n_v @ delta) * n_v).sum(axis=1)
        return 1.0 - safe_ratio((n - 1.0) * d_o, d_e)

    return statistic


def _alpha_ordinal_statistic(n_values: int):
    """alpha from summed coincidence matrices (flattened ``V*V``) for the ordinal metric."""

    def statistic(sums: np.ndarray) -> np.ndarray:
        o = sums.reshape(-1, n_values, n_values)
        n_v = o.sum(axis=2)
        n = n_v.sum(axis=1)
        delta = _ordinal_delta(n_v)
        d_o = (o * delta).sum(axis=(1, 2))
        d_e = np.einsum("bc,bck,bk->b", n_v, delta, n_v)
        return 1.0 - safe_ratio((n - 1.0) * d_o, d_e)

    return statistic


def _coincidences(counts: np.ndarray, m: np.ndarray) -> np.ndarray:
    """Per-unit coincidence matrices o_uck = (n_uc n_uk - [c=k] n_uc) / (m_u - 1); ``(n, V, V)``."""
    o = counts[:, :, None] * counts[:, None, :]
    diag = np.arange(counts.shape[1])
    o[:, diag, diag] -= counts
    return o / (m - 1.0)[:, None, None]


def krippendorff_alpha(
    matrix: np.ndarray | CodedRatings,
    level: Level = "nominal",
    categories: Sequence[Any] | None = None,
    *,
    n_boot: int = DEFAULT_N_BOOT,
    seed: int | None = 0,
) -> Estimate:
    """Krippendorff's alpha = 1 - D_o / D_e at the given level of measurement.

    Follows Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", sections on
    coincidence matrices and the nominal / ordinal / interval / ratio difference functions; equals
    ``krippendorff.alpha(matrix.T, level_of_measurement=level)`` on the same values.

    matrix: ``(n_units, n_raters)`` with NaN for missing (see the module docstring for codes versus
    numbers), or its `CodedRatings` (whose domain then stands for ``categories``).  Units with fewer
    than two ratings are not pairable and are dropped; the bootstrap
    resamples the matrix's units (rows) and each resample's alpha is that of the pairable units it
    drew (percentile interval, ``n_boot`` resamples, ``seed``).
    ``n_pairable`` is Krippendorff's n, the number of pairable values.  NaN when D_e = 0 (no
    variation) or no unit is pairable.

    Memory: the ordinal level keeps a V x V coincidence matrix per unit (fine for Likert scales).

    >>> m = np.array([[1, 1], [2, 2], [3, 3], [1, 2]], dtype=float)
    >>> round(krippendorff_alpha(m, "nominal", n_boot=0).estimate, 4)
    0.6667
    """
    if level not in LEVELS:
        raise ValueError(f"level must be one of {LEVELS}, got {level!r}")
    coded = as_coded(matrix, categories)
    return _on_rows(coded.n_units, [_alpha_part(coded, level)], n_boot, seed)[0]["value"]


def _alpha_part(coded: CodedRatings, level: Level) -> Part:
    """Alpha's features over the pairable units (`krippendorff_alpha`), as one part of a table's draw."""
    domain = coded.domain
    counts = coded.counts()
    m = counts.sum(axis=1)
    pairable = m >= 2
    n_units, n_raters, n_pairable = int(pairable.sum()), coded.raters_in(pairable), int(m[pairable].sum())
    counts, m = counts[pairable], m[pairable]
    if level == "ordinal":
        features = _coincidences(counts, m).reshape(counts.shape[0], domain.size**2)
        statistic = _alpha_ordinal_statistic(domain.size)
    else:
        delta = _fixed_delta(level, domain)
        d_o = ((counts @ delta) * counts).sum(axis=1) / (m - 1.0)
        features = np.column_stack([d_o, counts])
        statistic = _alpha_fixed_statistic(delta)
    return Part(features, np.flatnonzero(pairable), {"value": statistic}, n_units, n_raters, n_pairable)
