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

Modules:
    matrix  -- the ratings matrix: built from long data, its value domain, levels, encoding.
    alpha   -- Krippendorff's alpha.
    counts  -- percent agreement, Fleiss' kappa and Gwet's AC1 (per-unit category counts).
    cohen   -- Cohen's kappa for one pair of raters, unweighted or weighted.
    table   -- the table the report shows: every coefficient on one draw of resamples.
"""

from annotate.analysis.agreement.alpha import krippendorff_alpha
from annotate.analysis.agreement.cohen import cohen_kappa, kappa_scores
from annotate.analysis.agreement.counts import fleiss_kappa, gwet_ac1, percent_agreement
from annotate.analysis.agreement.matrix import LEVELS, Level, ratings_matrix, value_domain
from annotate.analysis.agreement.table import AgreementTable, PairKappa, agreement_table, interpret_alpha, pairs_table

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
