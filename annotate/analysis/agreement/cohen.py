"""Cohen's kappa for one pair of raters, unweighted or with linear / quadratic disagreement weights."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import numpy as np

from annotate.analysis.agreement.coded import CodedRatings, as_coded
from annotate.analysis.agreement.matrix import Level, _is_number, _on_rows
from annotate.analysis.bootstrap import DEFAULT_N_BOOT, Part, safe_ratio
from annotate.analysis.estimate import Estimate

KappaWeights = Literal["unweighted", "linear", "quadratic"]


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


def _cohen_part(coded: CodedRatings, a: int, b: int, scores: np.ndarray, kinds: Sequence[KappaWeights]) -> Part:
    """Cohen's kappa of raters ``a`` and ``b`` for each weighting, over the units both rated, as one part
    of a table's draw.

    scores: `kappa_scores` of the categories, shape ``(V,)``.
    """
    units, values_a, values_b = coded.pair(a, b)
    return _pair_part(units, values_a, values_b, scores, kinds)


def _pair_part(units: np.ndarray, values_a: np.ndarray, values_b: np.ndarray, scores: np.ndarray,
               kinds: Sequence[KappaWeights]) -> Part:
    """Cohen's kappa of two raters' category indices on the same ``units`` (ascending), one part of a draw."""
    n_values = scores.size
    cells = values_a * n_values + values_b
    features = np.zeros((cells.size, n_values * n_values))
    features[np.arange(cells.size), cells] = 1.0
    n = int(cells.size)
    statistics = {kind: _kappa_statistic(_disagreement_weights(kind, scores)) for kind in kinds}
    return Part(features, units, statistics, n, 2 if n else 0, 2 * n)


def cohen_kappa(
    matrix: np.ndarray | CodedRatings,
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
    coded = as_coded(matrix, categories)
    for col in (rater_a, rater_b):
        if not 0 <= col < coded.n_raters:
            raise ValueError(f"rater column {col} out of range for {coded.n_raters} raters")
    scores = _pair_scores(level, coded.domain, categories)
    part = _cohen_part(coded, rater_a, rater_b, scores, (weights,))
    return _on_rows(coded.n_units, [part], n_boot, seed)[0][weights]


def _pair_scores(level: Level | None, domain: np.ndarray, categories: Sequence[Any] | None) -> np.ndarray:
    """`kappa_scores`, refusing text categories at the levels whose weights are label values."""
    if level in ("interval", "ratio") and categories is not None and not all(_is_number(c) for c in categories):
        raise ValueError(f"at the {level} level the categories must be numbers, got {list(categories)[:5]}")
    return kappa_scores(level, domain)
