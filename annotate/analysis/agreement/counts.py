"""Percent agreement, Fleiss' kappa and Gwet's AC1: one family of coefficients summed from per-unit category
counts, computed on the same bootstrap resamples."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from annotate.analysis.agreement.coded import CodedRatings, as_coded
from annotate.analysis.agreement.matrix import _on_rows
from annotate.analysis.bootstrap import DEFAULT_N_BOOT, Part, safe_ratio
from annotate.analysis.estimate import Estimate


def _count_features(coded: CodedRatings) -> tuple[np.ndarray, np.ndarray, tuple[int, int, int]]:
    """Per-unit features ``[r_u >= 2, p_a(u), 1, n_u1/r_u .. n_uV/r_u]`` over units with >= 1 rating.

    p_a(u) = sum_k n_uk (n_uk - 1) / (r_u (r_u - 1)): the share of agreeing ordered rater pairs
    (0 for units with one rating, which the first column excludes from the average).
    Also returns the rows of those units and the counts ``(n_units with >= 2 ratings, n_raters there,
    pairable values)``.
    """
    counts = coded.counts()
    r = counts.sum(axis=1)
    rated, two = r >= 1, r >= 2
    n_info = (int(two.sum()), coded.raters_in(two), int(r[two].sum()))
    counts, r = counts[rated], r[rated]
    pairs = r * (r - 1.0)
    p_a = np.divide((counts * (counts - 1.0)).sum(axis=1), pairs, out=np.zeros_like(r), where=pairs > 0)
    features = np.column_stack([(r >= 2).astype(np.float64), p_a, np.ones_like(r), counts / r[:, None]])
    return features, np.flatnonzero(rated), n_info


def _percent_statistic(sums: np.ndarray) -> np.ndarray:
    return safe_ratio(sums[:, 1], sums[:, 0])


def _category_shares(sums: np.ndarray) -> np.ndarray:
    """pi_k: mean over rated units of n_uk / r_u; shape ``(m, V)``."""
    return safe_ratio(sums[:, 3:], sums[:, 2:3])


def _fleiss_statistic(sums: np.ndarray) -> np.ndarray:
    p_a = _percent_statistic(sums)
    p_e = (_category_shares(sums) ** 2).sum(axis=1)
    return safe_ratio(p_a - p_e, 1.0 - p_e)


def _gwet_statistic(n_categories: int):
    def statistic(sums: np.ndarray) -> np.ndarray:
        p_a = _percent_statistic(sums)
        pi = _category_shares(sums)
        p_e = (pi * (1.0 - pi)).sum(axis=1) / (n_categories - 1) if n_categories >= 2 else np.zeros_like(p_a)
        return safe_ratio(p_a - p_e, 1.0 - p_e)

    return statistic


def _count_family(
    matrix: np.ndarray | CodedRatings, categories: Sequence[Any] | None, n_boot: int, seed: int | None
) -> dict[str, Estimate]:
    """Percent agreement, Fleiss' kappa and Gwet's AC1 on the same bootstrap resamples."""
    coded = as_coded(matrix, categories)
    return _on_rows(coded.n_units, [_count_part(coded)], n_boot, seed)[0]


def _count_part(coded: CodedRatings) -> Part:
    """Percent agreement, Fleiss and Gwet over the rated units, as one part of a table's draw."""
    n_values = coded.n_values
    features, rows, (n_units, n_raters, n_pairable) = _count_features(coded)
    if n_units == 0:
        features, rows = features[:0], rows[:0]
    statistics = {"percent": _percent_statistic, "fleiss": _fleiss_statistic, "gwet": _gwet_statistic(n_values)}
    return Part(features, rows, statistics, n_units, n_raters, n_pairable)


def percent_agreement(
    matrix: np.ndarray | CodedRatings,
    categories: Sequence[Any] | None = None,
    *,
    n_boot: int = DEFAULT_N_BOOT,
    seed: int | None = 0,
) -> Estimate:
    """Raw agreement: per unit, the share of agreeing (ordered) rater pairs, averaged over units.

    As irrCAC ``pa.coeff.raw`` (Gwet 2014, *Handbook of Inter-Rater Reliability*, 4th ed., ch. 2):
    p_a = mean over units with r_u >= 2 ratings of sum_k n_uk (n_uk - 1) / (r_u (r_u - 1)).
    Units are equally weighted whatever their number of raters.  Units with < 2 ratings are
    ignored; the bootstrap resamples all rated units.  In [0, 1].
    """
    return _count_family(matrix, categories, n_boot, seed)["percent"]


def fleiss_kappa(
    matrix: np.ndarray | CodedRatings,
    categories: Sequence[Any] | None = None,
    *,
    n_boot: int = DEFAULT_N_BOOT,
    seed: int | None = 0,
) -> Estimate:
    """Fleiss' kappa (Fleiss 1971) generalised to a varying number of raters per unit.

    kappa = (p_a - p_e) / (1 - p_e) with p_a the percent agreement (`percent_agreement`, units with
    >= 2 ratings) and p_e = sum_k pi_k^2, pi_k = mean over units with >= 1 rating of n_uk / r_u.
    This is the generalisation in Gwet (2014, Handbook, 4th ed., section 2.5) and irrCAC
    ``fleiss.kappa.raw``; with the same number of raters on every unit it is Fleiss' (1971) formula.
    Single-rated units thus count towards the chance term only.  NaN when p_e = 1.
    """
    return _count_family(matrix, categories, n_boot, seed)["fleiss"]


def gwet_ac1(
    matrix: np.ndarray | CodedRatings,
    categories: Sequence[Any] | None = None,
    *,
    n_boot: int = DEFAULT_N_BOOT,
    seed: int | None = 0,
) -> Estimate:
    """Gwet's AC1 (Gwet 2008, Br. J. Math. Stat. Psychol. 61:29-48) for many raters with missing values.

    AC1 = (p_a - p_e) / (1 - p_e) with p_a as in `percent_agreement` and
    p_e = sum_k pi_k (1 - pi_k) / (q - 1), pi_k as in `fleiss_kappa`, q = the number of categories
    (``len(categories)``, or the distinct values observed when ``categories`` is None).  As irrCAC
    ``gwet.ac1.raw`` (Gwet 2014, Handbook, 4th ed.).  Pass the schema's categories: q matters.
    With q = 1, p_e = 0.
    """
    return _count_family(matrix, categories, n_boot, seed)["gwet"]
