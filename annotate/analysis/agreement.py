"""Inter-annotator agreement on a units x raters ratings matrix, with bootstrap intervals over units.

The ratings matrix
------------------
A 2-D float array, shape ``(n_units, n_raters)``, one row per unit (item), one column per rater,
``np.nan`` where the rater did not rate the unit.  `ratings_matrix` builds it from long data.

How the matrix relates to ``categories`` (the *value domain*):

* If every category is a real number (not a bool), the matrix holds the numbers themselves and
  the order of ``categories`` is the category order (ranks for ordinal, weights for Cohen).
* Otherwise the matrix holds integer codes: ``k`` stands for ``categories[k]``.
* ``categories=None`` means the domain is the sorted distinct values found in the matrix.

Nominal and ordinal statistics use only equality and the category order, so they give the same
result on codes and on numbers; interval and ratio distances (alpha, weighted kappa) use the numbers.

Every coefficient is a function of sums of per-unit sufficient statistics (per-unit coincidence
matrices for alpha, per-unit category counts for Fleiss/Gwet/percent agreement, per-unit cells of
the pair table for Cohen), so the bootstrap (`annotate.analysis.bootstrap`) resamples units with a
``(B, n_units)`` weight matrix and aggregates with one matrix product per block of resamples.  The
units resampled are the matrix's rows: one draw serves every coefficient and rater pair of a table,
each summing the resampled units it uses (pairable units for alpha, jointly rated ones for a pair).
Units rated alike are one pattern, and a large table's resamples are drawn as counts of patterns
(`annotate.analysis.bootstrap.estimates_on_shared_resamples`): the same bootstrap distribution at a
cost that grows with the patterns (at most (V + 1) ** raters), not with the units.

Missing values: a unit enters a multi-rater coefficient's agreement term only if it has >= 2
ratings ("pairable", Krippendorff 2011); single ratings are never paired.  Each coefficient's
docstring says what it does with single-rated units.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any, Literal

import numpy as np
import pandas as pd

from annotate.analysis.bootstrap import (
    DEFAULT_N_BOOT,
    Part,
    estimates_on_shared_resamples,
    safe_ratio,
)
from annotate.analysis.estimate import Estimate, json_number

__all__ = [
    "LEVELS",
    "AgreementTable",
    "Level",
    "PairKappa",
    "agreement_table",
    "cohen_kappa",
    "fleiss_kappa",
    "gwet_ac1",
    "interpret_alpha",
    "kappa_scores",
    "krippendorff_alpha",
    "pairs_table",
    "percent_agreement",
    "ratings_matrix",
    "value_domain",
]

Level = Literal["nominal", "ordinal", "interval", "ratio"]
"""Stevens' level of measurement of the labels."""

LEVELS: tuple[Level, ...] = ("nominal", "ordinal", "interval", "ratio")

KappaWeights = Literal["unweighted", "linear", "quadratic"]

Reliability = Literal["reliable", "tentative", "unreliable"]


# --------------------------------------------------------------------------------------------
# Building and encoding the matrix
# --------------------------------------------------------------------------------------------


def _is_number(value: object) -> bool:
    """A real, finite number that is not a bool (numpy scalars included)."""
    if isinstance(value, bool | np.bool_):
        return False
    if isinstance(value, int | np.integer):
        return True
    return isinstance(value, float | np.floating) and math.isfinite(float(value))


def _plain(value: Any) -> Any:
    """numpy scalars as Python scalars (for ids and categories that end up in JSON)."""
    return value.item() if isinstance(value, np.generic) else value


def value_domain(categories: Sequence[Any]) -> np.ndarray:
    """The values the matrix uses for ``categories``, shape ``(len(categories),)``, float64.

    All-numeric categories stand for themselves; anything else is coded ``0 .. len - 1``.
    """
    if len(categories) > 0 and all(_is_number(c) for c in categories):
        return np.asarray([float(c) for c in categories], dtype=np.float64)
    return np.arange(len(categories), dtype=np.float64)


def _factorize(values: pd.Series) -> tuple[np.ndarray, tuple[Any, ...]]:
    """Integer codes and sorted distinct values (first-seen order if the values do not sort)."""
    try:
        codes, uniques = pd.factorize(values, sort=True)
    except TypeError:
        codes, uniques = pd.factorize(values, sort=False)
    return codes, tuple(_plain(u) for u in uniques)


def _categories_for(observed: Sequence[Any], order: Sequence[Any] | None) -> tuple[Any, ...]:
    """The category list: ``order`` if given (it must cover every observed label), else sorted labels."""
    if order is not None:
        categories = tuple(_plain(c) for c in order)
        if len(set(categories)) != len(categories):
            raise ValueError("order lists a category twice")
        unknown = [c for c in observed if c not in set(categories)]
        if unknown:
            raise ValueError(f"labels not in order: {sorted(map(str, unknown))[:5]}")
        return categories
    try:
        return tuple(sorted(observed))
    except TypeError:
        return tuple(sorted(observed, key=str))


def ratings_matrix(
    long_df: pd.DataFrame,
    unit: str = "unit",
    rater: str = "rater",
    label: str = "label",
    order: Sequence[Any] | None = None,
) -> tuple[np.ndarray, tuple[Any, ...], tuple[Any, ...], tuple[Any, ...]]:
    """Pivot long judgments into a ratings matrix.

    long_df: one row per judgment with columns ``unit``, ``rater``, ``label``; rows whose label is
    missing are dropped; a (unit, rater) pair may occur only once (ValueError otherwise: keep one
    judgment per rater and unit, e.g. the latest, before computing agreement).

    order: the category order.  Required for ordinal labels that are not numbers (e.g.
    ``["bad", "ok", "good"]``); it must contain every label and may contain unused categories.
    Without it the categories are the sorted distinct labels.

    Returns ``(matrix, unit_ids, rater_ids, categories)``: ``matrix`` has shape
    ``(len(unit_ids), len(rater_ids))`` with NaN for missing; numeric labels are kept as numbers,
    other labels become integer codes into ``categories`` (see the module docstring).

    >>> df = pd.DataFrame({"unit": [1, 1, 2], "rater": ["a", "b", "a"], "label": ["x", "y", "x"]})
    >>> m, units, raters, cats = ratings_matrix(df)
    >>> m.tolist(), units, raters, cats
    ([[0.0, 1.0], [0.0, nan]], (1, 2), ('a', 'b'), ('x', 'y'))
    """
    missing_cols = [c for c in (unit, rater, label) if c not in long_df.columns]
    if missing_cols:
        raise ValueError(f"ratings are missing columns {missing_cols}")
    df = long_df.loc[long_df[label].notna(), [unit, rater, label]]
    observed = [_plain(v) for v in pd.unique(df[label])]
    categories = _categories_for(observed, order)
    unit_codes, unit_ids = _factorize(df[unit])
    rater_codes, rater_ids = _factorize(df[rater])
    if all(_is_number(c) for c in categories) and categories:
        values = df[label].astype(np.float64).to_numpy()
    else:
        values = pd.Categorical(df[label], categories=list(categories)).codes.astype(np.float64)
    key = unit_codes.astype(np.int64) * len(rater_ids) + rater_codes
    uniq, counts = np.unique(key, return_counts=True)
    if (counts > 1).any():
        first = int(uniq[counts > 1][0])
        raise ValueError(
            f"unit {unit_ids[first // len(rater_ids)]!r} has more than one rating by rater "
            f"{rater_ids[first % len(rater_ids)]!r}; keep one judgment per (unit, rater)"
        )
    matrix = np.full((len(unit_ids), len(rater_ids)), np.nan)
    matrix[unit_codes, rater_codes] = values
    return matrix, unit_ids, rater_ids, categories


def _encode(matrix: np.ndarray, categories: Sequence[Any] | None) -> tuple[np.ndarray, np.ndarray]:
    """Category index per cell (``-1`` where missing) and the value domain.

    Returns ``(idx, domain)``: ``idx`` int64 of the matrix's shape, ``domain`` float64 ``(V,)``.
    """
    m = np.asarray(matrix, dtype=np.float64)
    if m.ndim != 2:
        raise ValueError(f"the ratings matrix must be 2-D (units x raters), got shape {m.shape}")
    present = ~np.isnan(m)
    vals = m[present]
    domain = np.unique(vals) if categories is None else value_domain(categories)
    if np.unique(domain).size != domain.size:
        raise ValueError("categories contain duplicate values")
    sorter = np.argsort(domain, kind="stable")
    sorted_domain = domain[sorter]
    idx = np.full(m.shape, -1, dtype=np.int64)
    if vals.size == 0:
        return idx, domain
    if domain.size == 0:
        raise ValueError("the ratings matrix holds values but categories is empty")
    pos = np.clip(np.searchsorted(sorted_domain, vals), 0, domain.size - 1)
    outside = sorted_domain[pos] != vals
    if outside.any():
        raise ValueError(f"ratings matrix holds values outside the categories, e.g. {vals[outside][:3].tolist()}")
    idx[present] = sorter[pos]
    return idx, domain


def _value_counts(idx: np.ndarray, n_values: int) -> np.ndarray:
    """Per-unit category counts, shape ``(n_units, n_values)`` float64 (Krippendorff's n_uc)."""
    n_units = idx.shape[0]
    rows, _ = np.nonzero(idx >= 0)
    flat = rows * n_values + idx[idx >= 0]
    return np.bincount(flat, minlength=n_units * n_values).reshape(n_units, n_values).astype(np.float64)


def _n_raters(idx: np.ndarray, unit_mask: np.ndarray) -> int:
    """Raters with at least one rating in the selected units."""
    return int((idx[unit_mask] >= 0).any(axis=0).sum())


# --------------------------------------------------------------------------------------------
# Krippendorff's alpha
# --------------------------------------------------------------------------------------------


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
    matrix: np.ndarray,
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
    numbers).  Units with fewer than two ratings are not pairable and are dropped; the bootstrap
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
    idx, domain = _encode(matrix, categories)
    return _on_rows(idx.shape[0], [_alpha_part(idx, domain, level)], n_boot, seed)[0]["value"]


def _on_rows(n_rows: int, parts: Sequence[Part], n_boot: int, seed: int | None) -> list[dict[str, Estimate]]:
    """The parts' estimates on one draw of resamples of the matrix's ``n_rows`` units."""
    return estimates_on_shared_resamples(parts, n_rows, n_boot=n_boot, seed=seed, by_pattern=True)


def _alpha_part(idx: np.ndarray, domain: np.ndarray, level: Level) -> Part:
    """Alpha's features over the pairable rows (`krippendorff_alpha`), as one part of a table's draw."""
    counts = _value_counts(idx, domain.size)
    m = counts.sum(axis=1)
    pairable = m >= 2
    n_units, n_raters, n_pairable = int(pairable.sum()), _n_raters(idx, pairable), int(m[pairable].sum())
    counts, m = counts[pairable], m[pairable]
    if level == "ordinal":
        features = _coincidences(counts, m).reshape(counts.shape[0], -1)
        statistic = _alpha_ordinal_statistic(domain.size)
    else:
        delta = _fixed_delta(level, domain)
        d_o = ((counts @ delta) * counts).sum(axis=1) / (m - 1.0)
        features = np.column_stack([d_o, counts])
        statistic = _alpha_fixed_statistic(delta)
    return Part(features, np.flatnonzero(pairable), {"value": statistic}, n_units, n_raters, n_pairable)


# --------------------------------------------------------------------------------------------
# Fleiss' kappa, Gwet's AC1, percent agreement (one family: per-unit category counts)
# --------------------------------------------------------------------------------------------


def _count_features(idx: np.ndarray, n_values: int) -> tuple[np.ndarray, np.ndarray, tuple[int, int, int]]:
    """Per-unit features ``[r_u >= 2, p_a(u), 1, n_u1/r_u .. n_uV/r_u]`` over units with >= 1 rating.

    p_a(u) = sum_k n_uk (n_uk - 1) / (r_u (r_u - 1)): the share of agreeing ordered rater pairs
    (0 for units with one rating, which the first column excludes from the average).
    Also returns the rows of those units and the counts ``(n_units with >= 2 ratings, n_raters there,
    pairable values)``.
    """
    counts = _value_counts(idx, n_values)
    r = counts.sum(axis=1)
    rated, two = r >= 1, r >= 2
    n_info = (int(two.sum()), _n_raters(idx, two), int(r[two].sum()))
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
    matrix: np.ndarray, categories: Sequence[Any] | None, n_boot: int, seed: int | None
) -> dict[str, Estimate]:
    """Percent agreement, Fleiss' kappa and Gwet's AC1 on the same bootstrap resamples."""
    idx, domain = _encode(matrix, categories)
    return _on_rows(idx.shape[0], [_count_part(idx, domain.size)], n_boot, seed)[0]


def _count_part(idx: np.ndarray, n_values: int) -> Part:
    """Percent agreement, Fleiss and Gwet over the rated rows, as one part of a table's draw."""
    features, rows, (n_units, n_raters, n_pairable) = _count_features(idx, n_values)
    if n_units == 0:
        features, rows = features[:0], rows[:0]
    statistics = {"percent": _percent_statistic, "fleiss": _fleiss_statistic, "gwet": _gwet_statistic(n_values)}
    return Part(features, rows, statistics, n_units, n_raters, n_pairable)


def percent_agreement(
    matrix: np.ndarray,
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
    matrix: np.ndarray,
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
    matrix: np.ndarray,
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


# --------------------------------------------------------------------------------------------
# Cohen's kappa for one pair of raters
# --------------------------------------------------------------------------------------------


def kappa_scores(level: Level | None, domain: np.ndarray) -> np.ndarray:
    """The number each category stands for in Cohen's (1968) weights, shape ``(V,)`` float64.

    Interval and ratio: the label values themselves (``domain``), so the weight of a disagreement
    is the distance between the two labels and depends on nothing else in the file: categories
    that neither rater of the pair used add empty rows and columns to the pair table, and adding a
    third rater cannot change a pair's kappa.  Nominal, ordinal and None: the positions
    ``0 .. V - 1`` in the declared category order (ordinal labels are ranks, not amounts).
    """
    if level in ("interval", "ratio"):
        return np.asarray(domain, dtype=np.float64)
    return np.arange(domain.size, dtype=np.float64)


def _disagreement_weights(kind: KappaWeights, scores: np.ndarray) -> np.ndarray:
    """Cohen (1968) disagreement weights v_ij = 1-[i=j], |s_i-s_j| or (s_i-s_j)^2 on category scores s.

    With positions as scores, the agreement weights 1 - |i-j|/(q-1) (linear) and
    1 - (i-j)^2/(q-1)^2 (quadratic) give the same kappa: kappa_w is invariant to the scale of v.
    """
    diff = np.abs(scores[:, None] - scores[None, :])
    if kind == "unweighted":
        return (diff > 0).astype(np.float64)
    if kind == "linear":
        return diff
    if kind == "quadratic":
        return diff**2
    raise ValueError(f"weights must be 'unweighted', 'linear' or 'quadratic', got {kind!r}")


def _kappa_statistic(v: np.ndarray):
    """kappa_w = 1 - n sum v_ij n_ij / sum v_ij n_i. n_.j from a summed ``V*V`` pair table."""
    n_values = v.shape[0]

    def statistic(sums: np.ndarray) -> np.ndarray:
        table = sums.reshape(-1, n_values, n_values)
        n = table.sum(axis=(1, 2))
        rows, cols = table.sum(axis=2), table.sum(axis=1)
        observed = (table * v).sum(axis=(1, 2))
        expected = np.einsum("bi,ij,bj->b", rows, v, cols)
        return 1.0 - safe_ratio(n * observed, expected)

    return statistic


def _cohen_part(idx: np.ndarray, a: int, b: int, scores: np.ndarray, kinds: Sequence[KappaWeights]) -> Part:
    """Cohen's kappa of raters (columns) ``a`` and ``b`` for each weighting, over the rows both rated,
    as one part of a table's draw.

    scores: `kappa_scores` of the categories, shape ``(V,)``.
    """
    n_values = scores.size
    both = (idx[:, a] >= 0) & (idx[:, b] >= 0)
    cells = idx[both, a] * n_values + idx[both, b]
    features = np.zeros((cells.size, n_values * n_values))
    features[np.arange(cells.size), cells] = 1.0
    n = int(both.sum())
    statistics = {kind: _kappa_statistic(_disagreement_weights(kind, scores)) for kind in kinds}
    return Part(features, np.flatnonzero(both), statistics, n, 2 if n else 0, 2 * n)


def cohen_kappa(
    matrix: np.ndarray,
    rater_a: int,
    rater_b: int,
    categories: Sequence[Any] | None = None,
    *,
    weights: KappaWeights = "unweighted",
    level: Level | None = None,
    n_boot: int = DEFAULT_N_BOOT,
    seed: int | None = 0,
) -> Estimate:
    """Cohen's kappa between two raters (matrix columns ``rater_a``, ``rater_b``) on the units both rated.

    Unweighted: Cohen (1960).  Weighted: Cohen (1968), kappa_w = 1 - n sum v_ij n_ij / sum v_ij n_i. n_.j,
    with linear (|s_i - s_j|) or quadratic ((s_i - s_j)^2) disagreement weights v on category scores s
    (`kappa_scores`):

    * ``level`` interval or ratio: s = the numeric label values, so a disagreement of 1 vs 10 weighs
      nine times one of 1 vs 2 and the pair's kappa does not depend on labels other raters used;
      the categories must be numbers.  Quadratic weights on values are the weighting under which
      kappa_w approaches the intraclass correlation (Fleiss & Cohen 1973).
    * otherwise (nominal, ordinal, None): s = the category *positions* in ``categories`` (the
      declared order), as ``vcd::Kappa`` "Equal-Spacing" / "Fleiss-Cohen" and sklearn
      ``cohen_kappa_score(weights=...)`` on a fixed label list.

    The chance term uses each rater's own marginals over the jointly rated units.  The bootstrap
    resamples the matrix's units; each resample's kappa is that of the jointly rated units it drew.
    NaN when the expected disagreement is 0.
    """
    idx, domain = _encode(matrix, categories)
    for col in (rater_a, rater_b):
        if not 0 <= col < idx.shape[1]:
            raise ValueError(f"rater column {col} out of range for {idx.shape[1]} raters")
    scores = _pair_scores(level, domain, categories)
    return _on_rows(idx.shape[0], [_cohen_part(idx, rater_a, rater_b, scores, (weights,))], n_boot, seed)[0][weights]


def _pair_scores(level: Level | None, domain: np.ndarray, categories: Sequence[Any] | None) -> np.ndarray:
    """`kappa_scores`, refusing text categories at the levels whose weights are label values."""
    if level in ("interval", "ratio") and categories is not None and not all(_is_number(c) for c in categories):
        raise ValueError(f"at the {level} level the categories must be numbers, got {list(categories)[:5]}")
    return kappa_scores(level, domain)


# --------------------------------------------------------------------------------------------
# The table the report shows
# --------------------------------------------------------------------------------------------


def _ci_json(e: Estimate | None) -> list[float | None] | None:
    return None if e is None else [json_number(e.ci_low), json_number(e.ci_high)]


@dataclass(frozen=True)
class PairKappa:
    """Cohen's kappa for one pair of raters.

    Attributes:
        raters: the two rater ids, in matrix column order.
        estimate: unweighted kappa (n_units = units both rated).
        weighted_linear, weighted_quadratic: weighted kappas; None at the nominal level.
    """

    raters: tuple[Hashable, Hashable]
    estimate: Estimate
    weighted_linear: Estimate | None
    weighted_quadratic: Estimate | None

    @property
    def n_units(self) -> int:
        """Units rated by both raters."""
        return self.estimate.n_units

    def to_json(self) -> dict[str, Any]:
        """The report's JSON entry for this pair."""
        wl, wq = self.weighted_linear, self.weighted_quadratic
        return {
            "raters": [_plain(self.raters[0]), _plain(self.raters[1])],
            "estimate": json_number(self.estimate.estimate),
            "ci": _ci_json(self.estimate),
            "weighted_linear": None if wl is None else json_number(wl.estimate),
            "weighted_linear_ci": _ci_json(wl),
            "weighted_quadratic": None if wq is None else json_number(wq.estimate),
            "weighted_quadratic_ci": _ci_json(wq),
            "n_units": int(self.n_units),
        }


@dataclass(frozen=True)
class AgreementTable:
    """All agreement coefficients of one ratings matrix, each with its bootstrap interval and n.

    Attributes:
        level: the level of measurement alpha was computed at.
        krippendorff_alpha, fleiss_kappa, gwet_ac1, percent_agreement: see the functions of the
            same names.
        cohen_kappa: one `PairKappa` per pair of raters who rated at least one unit in common.
    """

    level: Level
    krippendorff_alpha: Estimate
    fleiss_kappa: Estimate
    gwet_ac1: Estimate
    percent_agreement: Estimate
    cohen_kappa: tuple[PairKappa, ...]

    def to_json(self) -> dict[str, Any]:
        """``{"level", "krippendorff_alpha", "fleiss_kappa", "gwet_ac1", "percent_agreement", "cohen_kappa"}``."""
        return {
            "level": self.level,
            "krippendorff_alpha": self.krippendorff_alpha.to_json(),
            "fleiss_kappa": self.fleiss_kappa.to_json(),
            "gwet_ac1": self.gwet_ac1.to_json(),
            "percent_agreement": self.percent_agreement.to_json(),
            "cohen_kappa": [pair.to_json() for pair in self.cohen_kappa],
        }


def agreement_table(
    matrix: np.ndarray,
    level: Level,
    categories: Sequence[Any] | None,
    rater_ids: Sequence[Hashable],
    n_boot: int = DEFAULT_N_BOOT,
    seed: int | None = 0,
) -> AgreementTable:
    """Krippendorff's alpha, Fleiss' kappa, Gwet's AC1, percent agreement and pairwise Cohen's kappa.

    matrix: ``(n_units, n_raters)``, NaN for missing, as returned by `ratings_matrix`;
    rater_ids: one id per column.  Weighted Cohen's kappas are computed at the ordinal level (on
    category positions) and above (interval, ratio: on the label values; see `cohen_kappa`).  Every
    interval is a 95 % percentile bootstrap over units with ``n_boot`` resamples seeded by ``seed``,
    drawn once for the table: each coefficient and pair sums the resampled units it uses.
    """
    if level not in LEVELS:
        raise ValueError(f"level must be one of {LEVELS}, got {level!r}")
    matrix = np.asarray(matrix, dtype=np.float64)
    if matrix.ndim != 2 or len(rater_ids) != matrix.shape[1]:
        raise ValueError(f"need one rater id per column: {len(rater_ids)} ids for shape {matrix.shape}")
    pairs = [(a, b) for a, b in combinations(range(matrix.shape[1]), 2)]
    return pairs_table(matrix, level, categories, rater_ids, pairs, n_boot=n_boot, seed=seed)


def pairs_table(
    matrix: np.ndarray,
    level: Level,
    categories: Sequence[Any] | None,
    rater_ids: Sequence[Hashable],
    pairs: Sequence[tuple[int, int]],
    *,
    n_boot: int = DEFAULT_N_BOOT,
    seed: int | None = 0,
) -> AgreementTable:
    """`agreement_table` with Cohen's kappa for the given column pairs only (in that order; pairs
    that rated no unit in common are left out).  Every coefficient and pair is computed on one
    draw of resamples of the matrix's units."""
    matrix = np.asarray(matrix, dtype=np.float64)
    idx, domain = _encode(matrix, categories)
    scores = _pair_scores(level, domain, categories)
    kinds: tuple[KappaWeights, ...] = ("unweighted",) if level == "nominal" else ("unweighted", "linear", "quadratic")
    shared = [(a, b) for a, b in pairs if ((idx[:, a] >= 0) & (idx[:, b] >= 0)).any()]
    parts = [_count_part(idx, domain.size), _alpha_part(idx, domain, level)]
    parts += [_cohen_part(idx, a, b, scores, kinds) for a, b in shared]
    family, alpha, *kappas = _on_rows(idx.shape[0], parts, n_boot, seed)
    return AgreementTable(
        level=level,
        krippendorff_alpha=alpha["value"],
        fleiss_kappa=family["fleiss"],
        gwet_ac1=family["gwet"],
        percent_agreement=family["percent"],
        cohen_kappa=tuple(PairKappa((rater_ids[a], rater_ids[b]), k["unweighted"], k.get("linear"), k.get("quadratic"))
                          for (a, b), k in zip(shared, kappas, strict=True)),
    )


def interpret_alpha(alpha: float) -> Reliability:
    """Krippendorff's (2004, *Content Analysis*, 2nd ed., section 11.4.4) reading of alpha.

    ``"reliable"`` for alpha >= 0.800; ``"tentative"`` (conclusions only tentatively) for
    0.667 <= alpha < 0.800; ``"unreliable"`` below 0.667 and for NaN (no evidence of reliability).
    """
    if not math.isfinite(alpha) or alpha < 0.667:
        return "unreliable"
    return "reliable" if alpha >= 0.800 else "tentative"
