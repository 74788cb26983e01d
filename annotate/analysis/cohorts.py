"""Agreement of each rater with the rest, agreement tables for large rater pools, cohort majorities
and the battles a ranking is fitted on.  Pure functions over DataFrames.

Long ratings here are DataFrames with columns ``unit``, ``rater``, ``label`` (one row per rating,
at most one per unit and rater; rows with a missing label are dropped), as
`annotate.analysis.agreement.ratings_matrix` takes them.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from annotate.analysis.agreement import AgreementTable, Level, agreement_table, krippendorff_alpha, pairs_table
from annotate.analysis.agreement.coded import CodedRatings, as_coded, coded_ratings
from annotate.analysis.agreement.cohen import _pair_part
from annotate.analysis.agreement.matrix import _on_rows
from annotate.analysis.bias import wilson_interval
from annotate.analysis.estimate import Estimate, json_number
from annotate.analysis.majority import verdicts
from annotate.frame_codes import mapped

__all__ = [
    "TIE_CLASS",
    "RestAgreement",
    "battles_from_votes",
    "cohort_confusion",
    "pooled_agreement_table",
    "rest_agreement",
    "rest_agreement_coded",
]

TIE_CLASS = {"A": "A", "B": "B", "tie": "tie", "both_bad": "tie", "tie_inconsistent": "tie"}
"""Pairwise label -> MT-Bench class (tie, both bad and inconsistent verdicts are all one class)."""


def pooled_agreement_table(
    matrix: np.ndarray | CodedRatings,
    level: Level,
    categories: Sequence[Any] | None,
    rater_ids: Sequence[Hashable],
    n_boot: int = 1000,
    seed: int | None = 0,
    max_pairs: int = 45,
) -> AgreementTable:
    """`agreement_table`, but with Cohen's kappa only for the ``max_pairs`` rater pairs with the most
    units in common (ties broken by column order), so pools of hundreds of crowd raters stay fast.

    matrix: ``(n_units, n_raters)`` with NaN for missing, as from `ratings_matrix`, or its `CodedRatings`
    (`coded_ratings`; the pairs are then counted on the units with two ratings or more, never on a
    raters x raters table).  With at most ``max_pairs`` pairs sharing a unit the result equals
    `agreement_table` exactly.
    """
    coded = as_coded(matrix, categories)
    first, second, shared = coded.overlaps()
    if first.size <= max_pairs:
        return agreement_table(coded, level, categories, rater_ids, n_boot=n_boot, seed=seed)
    top = np.lexsort((second, first, -shared))[:max_pairs]
    pairs = list(zip(first[top].tolist(), second[top].tolist(), strict=True))
    return pairs_table(coded, level, categories, rater_ids, pairs, n_boot=n_boot, seed=seed)


@dataclass(frozen=True)
class RestAgreement:
    """One rater against the consensus of the other raters.

    Attributes:
        rater: the rater id.
        kappa: Cohen's kappa between the rater and the leave-one-out consensus on the units where
            both exist (unweighted at the nominal level, linearly weighted above), 95 % bootstrap
            interval over those units; n_units = units compared.
        agree: units where the rater's label equals the consensus; n: units compared.
        share, ci_low, ci_high: agree / n with a Wilson (1927) interval.
        alpha_without: Krippendorff's alpha of all raters except this one (point estimate; None when
            not computed), to compare with alpha of all raters.
    """

    rater: Any
    kappa: Estimate
    agree: int
    n: int
    share: float
    ci_low: float
    ci_high: float
    alpha_without: float | None

    def to_json(self) -> dict[str, Any]:
        """Plain-JSON form with NaN as ``None``."""
        return {
            "rater": self.rater,
            "kappa": self.kappa.to_json(),
            "agreement": {
                "share": json_number(self.share), "ci": [json_number(self.ci_low), json_number(self.ci_high)],
                "k": self.agree, "n": self.n,
            },
            "alpha_without": json_number(self.alpha_without),
        }


def _consensus(others: np.ndarray, level: Level) -> np.ndarray:
    """Consensus category per unit from the other raters' category counts ``(n, V)``; -1 if none.

    Nominal: the most frequent category, -1 when the top count is shared.  Ordinal and above: the
    lower median of the other raters' categories (always one of their categories).
    """
    m = others.sum(axis=1)
    if level == "nominal":
        top = others.max(axis=1)
        unique = (others == top[:, None]).sum(axis=1) == 1
        return np.where((m > 0) & unique, others.argmax(axis=1), -1)
    cum = np.cumsum(others, axis=1)
    median = (cum * 2 >= m[:, None]).argmax(axis=1)
    return np.where(m > 0, median, -1)


def rest_agreement(
    ratings: pd.DataFrame,
    level: Level = "nominal",
    order: Sequence[Any] | None = None,
    n_boot: int = 1000,
    seed: int | None = 0,
    alpha_without_max_raters: int = 50,
    only: Sequence[Any] | None = None,
) -> tuple[RestAgreement, ...]:
    """Each rater's agreement with the leave-one-out consensus of all other raters.

    ratings: long (unit, rater, label), at most one rating per unit and rater.  For every rater and
    every unit they rated that at least one other rater rated, the consensus of the others is their
    most frequent label (nominal; units where the top count is shared are skipped) or their lower
    median (ordinal and above).  This is the leave-one-out comparison of Snow et al. (2008, "Cheap and
    Fast - But is it Good?", EMNLP, section 3), who compare each annotator with the average of the
    others; here with chance correction (Cohen's kappa, Cohen 1960; linearly weighted, Cohen 1968,
    above the nominal level) and raw agreement with a Wilson interval.  ``alpha_without`` (alpha if
    this rater were dropped, cf. "alpha if item deleted") is computed when there are at most
    ``alpha_without_max_raters`` raters.  ``only``: compute for these raters alone (e.g. an LLM judge
    against the consensus of the human raters in ``ratings``).

    Returns one `RestAgreement` per rater with at least one compared unit, in rater order.

    >>> df = pd.DataFrame({"unit": [1, 1, 1, 2, 2, 2], "rater": list("abcabc"), "label": list("xxyyyy")})
    >>> [(r.rater, r.agree, r.n) for r in rest_agreement(df, n_boot=0)]
    [('a', 1, 1), ('b', 1, 1), ('c', 1, 2)]
    """
    coded, _units, raters, categories = coded_ratings(ratings, order=order)
    return rest_agreement_coded(coded, raters, categories, level, n_boot=n_boot, seed=seed,
                                alpha_without_max_raters=alpha_without_max_raters, only=only)


def rest_agreement_coded(
    coded: CodedRatings,
    raters: Sequence[Any],
    categories: Sequence[Any],
    level: Level = "nominal",
    *,
    n_boot: int = 1000,
    seed: int | None = 0,
    alpha_without_max_raters: int = 50,
    only: Sequence[Any] | None = None,
) -> tuple[RestAgreement, ...]:
    """`rest_agreement` of ratings already coded (`coded_ratings`: its ``coded``, ``rater_ids`` and
    ``categories``), so a report that also builds an agreement table from them codes them once."""
    n_values = len(categories)
    counts = coded.counts()
    # every rating on a unit someone else rated too, with the others' counts there; sorted by (rater, unit)
    order_by_rater = coded.by_rater_order()
    multi = coded.ratings_per_unit()[coded.unit[order_by_rater]] >= 2
    ratings_at = order_by_rater[multi]
    own = coded.value[ratings_at]
    others = counts[coded.unit[ratings_at]]
    others[np.arange(own.size), own] -= 1.0
    consensus = _consensus(others, level)
    keep = consensus >= 0
    rater_of = coded.rater[ratings_at][keep]
    own, consensus = own[keep], consensus[keep]
    bounds = np.searchsorted(rater_of, np.arange(len(raters) + 1))
    weights = "unweighted" if level == "nominal" else "linear"
    scores = np.arange(n_values, dtype=np.float64)  # Cohen's weights on category positions
    with_alpha = len(raters) <= alpha_without_max_raters
    out = []
    wanted = None if only is None else set(only)
    for r in np.flatnonzero(np.diff(bounds) > 0).tolist():
        rater = raters[r]
        if wanted is not None and rater not in wanted:
            continue
        lo_at, hi_at = bounds[r], bounds[r + 1]
        mine, cons = own[lo_at:hi_at], consensus[lo_at:hi_at]
        n = int(mine.size)
        part = _pair_part(np.arange(n), mine, cons, scores, (weights,))
        kappa = _on_rows(n, [part], n_boot, seed)[0][weights]
        agree = int((mine == cons).sum())
        lo, hi = wilson_interval(agree, n)
        alpha_without = None
        if with_alpha and len(raters) > 2:
            alpha_without = krippendorff_alpha(coded.without_rater(r), level, categories, n_boot=0).estimate
        out.append(RestAgreement(rater, kappa, agree, n, agree / n, lo, hi, alpha_without))
    return tuple(out)


def _majority_labels(votes: pd.DataFrame, labels: Sequence[str], rule: str) -> pd.Series:
    """Per item, the majority label by ``rule`` (labels A, B, tie; items without a majority dropped)."""
    counts = votes.groupby(["item", "label"]).size().unstack("label", fill_value=0)
    counts = counts.reindex(columns=list(labels), fill_value=0)
    verdict = verdicts(counts.to_numpy(), rule)
    keep = verdict >= 0
    return pd.Series(np.asarray(labels, dtype=object)[verdict[keep]], index=counts.index[keep])


def cohort_confusion(
    votes: pd.DataFrame, cohort_x: str, cohort_y: str, labels: Sequence[str] = ("A", "B", "tie"),
    cohort: str = "cohort", rule: str = "plurality",
) -> pd.DataFrame:
    """Confusion matrix of per-item majority labels: cohort X's majority (rows) by cohort Y's (columns).

    votes: one row per vote with columns item, ``cohort``, label; labels outside ``labels`` and
    missing labels are dropped.  labels: the three classes A, B, tie in that order (the majority
    rules score them +1, -1, 0).  Per item and cohort the majority follows ``rule``
    (`annotate.analysis.majority`); an item without a majority, or that one cohort did not label, is
    left out.  Returns a 3 x 3 DataFrame of item counts (index: X's label, columns: Y's label).
    """
    if len(labels) != 3:
        raise ValueError("cohort_confusion takes the three classes A, B, tie")
    v = votes.loc[votes["label"].isin(list(labels))]
    mx = _majority_labels(v.loc[v[cohort] == cohort_x], labels, rule)
    my = _majority_labels(v.loc[v[cohort] == cohort_y], labels, rule)
    both = pd.concat([mx.rename("x"), my.rename("y")], axis=1, join="inner")
    table = pd.crosstab(pd.Categorical(both["x"], categories=list(labels)),
                        pd.Categorical(both["y"], categories=list(labels)), dropna=False)
    table = table.reindex(index=list(labels), columns=list(labels), fill_value=0)
    table.index.name, table.columns.name = cohort_x, cohort_y
    return table.astype(np.int64)


def battles_from_votes(votes: pd.DataFrame) -> pd.DataFrame:
    """One battle per pairwise vote on an item whose two slots hold different, named models.

    votes: columns model_a, model_b, label (slot space).  A -> ``model_a`` wins, B -> ``model_b``
    wins, tie / both_bad / tie_inconsistent -> ``tie``; other labels (grades, missing) are dropped.
    Returns columns model_a, model_b, winner (as `annotate.analysis.ranking.pair_counts` takes them)
    plus the input's other columns.
    """
    winner = mapped(votes["label"], {"A": "model_a", "B": "model_b", "tie": "tie", "both_bad": "tie",
                                     "tie_inconsistent": "tie"})
    keep = winner.notna() & votes["model_a"].notna() & votes["model_b"].notna()
    keep &= votes["model_a"].astype(str) != votes["model_b"].astype(str)
    out = votes.loc[keep].assign(winner=winner[keep])
    return out.assign(model_a=out["model_a"].astype(str), model_b=out["model_b"].astype(str))
