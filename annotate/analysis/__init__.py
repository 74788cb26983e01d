"""Statistics core of annotate: pure functions over pandas / numpy, no UI.

Every statistic returns its point estimate together with a 95 % interval (bootstrap percentile, or
Wilson for simple proportions) and the n behind it; see `Estimate`.

The names below are imported on first use, so importing one module of the package loads only what
that module needs.

Modules:
    estimate   -- `Estimate`, the result type shared by every statistic.
    bootstrap  -- vectorised bootstrap over units (weights from a (B, n_units) index matrix).
    agreement  -- Krippendorff's alpha, Fleiss' kappa, Gwet's AC1, percent agreement, Cohen's kappa.
    pairwise   -- MT-Bench agreement between rater cohorts on A / B / tie votes.
    bias       -- position and length bias with exact binomial tests and Wilson intervals.
    ranking    -- Bradley-Terry ratings with bootstrap intervals and rank bands.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from annotate.analysis.agreement import (
        LEVELS,
        AgreementTable,
        Level,
        PairKappa,
        agreement_table,
        cohen_kappa,
        fleiss_kappa,
        gwet_ac1,
        interpret_alpha,
        krippendorff_alpha,
        percent_agreement,
        ratings_matrix,
    )
    from annotate.analysis.bias import (
        BiasReport,
        Proportion,
        binomial_test,
        length_bias,
        position_bias,
        wilson_interval,
    )
    from annotate.analysis.estimate import Estimate
    from annotate.analysis.pairwise import PairAgreement, majority_agreement, type_agreement
    from annotate.analysis.ranking import (
        PairCounts,
        RankingRow,
        fit_bradley_terry,
        pair_counts,
        pair_counts_from_arrays,
        rank_models,
    )

_HOMES = {
    **dict.fromkeys(("LEVELS", "AgreementTable", "Level", "PairKappa", "agreement_table", "cohen_kappa",
                     "fleiss_kappa", "gwet_ac1", "interpret_alpha", "krippendorff_alpha", "percent_agreement",
                     "ratings_matrix"), "annotate.analysis.agreement"),
    **dict.fromkeys(("BiasReport", "Proportion", "binomial_test", "length_bias", "position_bias", "wilson_interval"),
                    "annotate.analysis.bias"),
    "Estimate": "annotate.analysis.estimate",
    **dict.fromkeys(("PairAgreement", "majority_agreement", "type_agreement"), "annotate.analysis.pairwise"),
    **dict.fromkeys(("PairCounts", "RankingRow", "fit_bradley_terry", "pair_counts", "pair_counts_from_arrays",
                     "rank_models"), "annotate.analysis.ranking"),
}
"""Where each name of `__all__` lives: imported on first use (PEP 562), so that a module of the package
(e.g. `annotate.analysis.agreement` for `annotate agreement FILE`) loads without the others and pandas."""


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


__all__ = [
    "LEVELS",
    "AgreementTable",
    "BiasReport",
    "Estimate",
    "Level",
    "PairAgreement",
    "PairCounts",
    "PairKappa",
    "Proportion",
    "RankingRow",
    "agreement_table",
    "binomial_test",
    "cohen_kappa",
    "fit_bradley_terry",
    "fleiss_kappa",
    "gwet_ac1",
    "interpret_alpha",
    "krippendorff_alpha",
    "length_bias",
    "majority_agreement",
    "pair_counts",
    "pair_counts_from_arrays",
    "percent_agreement",
    "position_bias",
    "rank_models",
    "ratings_matrix",
    "type_agreement",
    "wilson_interval",
]
